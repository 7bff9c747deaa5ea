"""Metric declarations and the registry: everything the package knows about one metric, in one place.

A metric is one :class:`MetricSpec`, declared in the metric's own module, with its fields in three groups.
:class:`Computation`: its compute function, the neighbour searches it needs, its parameters (:class:`Param`: type,
allowed range, default, slider range and step), the keys of its details (a ``TypedDict``) and its applicability
checks. :class:`Grading`: its direction, range and level rule (:class:`LevelSpec`: thresholds on a stated scale,
the public source of the rule). :class:`Presentation`: its titles, the figures it draws (:class:`FigureSpec`:
functions of the result alone) and its plain-language sentences (what it measures, what a high value means, the
ideal value). The evaluation, the level policy
(:mod:`synthpriv_report.grading.levels`), the widgets, the report and the README's tables are built from these
declarations; adding a metric is one module plus one :func:`register` call.
"""

from __future__ import annotations

import contextlib
import contextvars
import re
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, ForwardRef, Literal

from ..stats.evidence import VERDICT_FALSE_ALARM, check_alpha
from .formats import ValueKind
from .protocols import MetricContext
from .results import Direction, Level, MetricResult
from .validation import Constraint, Interval, Options, check

# A metric declares the details of its results as a ``TypedDict`` (``Computation.details``), ``NotRequired`` marking
# a key that only some results carry: from typing, or from typing_extensions before Python 3.11.
if sys.version_info < (3, 11):  # pragma: no cover - Python 3.10
    from typing import get_origin

    from typing_extensions import NotRequired, Required, TypedDict, is_typeddict
else:
    from typing import NotRequired, Required, TypedDict, get_origin, is_typeddict


#: What a metric's ``compute`` and ``plan`` receive: the evaluation's context
#: (:class:`synthpriv_report.engine.context.Context`), typed by the protocol it satisfies, so that the declarations sit
# below
#: the engine in the layers.
Context = MetricContext

Group = Literal["closeness", "holdout", "attack", "distinguishability", "criteria"]


#: The JSON form of a computed result (:meth:`MetricResult.to_dict`): what a metric's sentences are made from, so
#: that a report re-drawn from its JSON file says the same words as the live evaluation.
ResultJSON = Mapping[str, Any]
Need = Literal["holdout", "sensitive_fields", "pairing"]

#: Groups in report order with their display titles.
GROUP_TITLES: dict[str, str] = {
    "closeness": "Closeness to real records",
    "holdout": "Holdout comparisons",
    "attack": "Attack simulations",
    "distinguishability": "Distinguishability",
    "criteria": "The three anonymisation criteria",
}


# ---------------------------------------------------------------------------------------------------------------
# parameters


@dataclass(frozen=True)
class Param:
    """A reduction parameter a metric reads (a slider in :meth:`Evaluation.explore`).

    Parameters
    ----------
    name : str
        Keyword of :meth:`Evaluation.results`.
    default : int, float or str
        Default value.
    kind : {"float", "int", "choice"}
        Type of the value.
    low, high : float, optional
        Allowed range (``None``: unbounded on that side).
    low_open, high_open : bool
        Whether the range excludes ``low`` / ``high``.
    choices : tuple of str
        Allowed values of a ``"choice"`` parameter.
    slider : (min, max, step), optional
        Slider range of the explorer; ``None``: no slider.
    label : str
        Short label of the slider.
    doc : str
        One sentence on what the parameter does.
    reduces_only : bool
        True when a change only re-reduces cached arrays (never a new neighbour search).
    """

    name: str
    default: Any
    kind: Literal["float", "int", "choice"] = "float"
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple[str, ...] = ()
    slider: tuple[float, float, float] | None = None
    label: str = ""
    doc: str = ""
    reduces_only: bool = True

    @property
    def constraint(self) -> Constraint:
        """The parameter's constraint (:mod:`synthpriv_report.core.validation`): an interval of numbers or options.

        An integer parameter also takes a float with a whole value (``1000.0``), as a slider or a JSON document
        may give it.
        """
        if self.kind == "choice":
            return Options(tuple(self.choices))
        return Interval("int" if self.kind == "int" else "real", self.low, self.high, low_open=self.low_open,
                        high_open=self.high_open, whole_floats=self.kind == "int")

    def allowed(self) -> str:
        """The allowed values in words, e.g. ``"a number in (0, 1)"``.

        >>> Param("alpha", 0.1, low=0.0, high=1.0, low_open=True, high_open=True).allowed()
        'a number in (0, 1)'
        """
        return self.constraint.words()

    def validate(self, value: Any) -> Any:
        """``value`` checked and normalised; a ``TypeError``/``ValueError`` naming the parameter otherwise.

        >>> Param("n", 10, kind="int", low=1).validate(3)
        3
        >>> Param("n", 10, kind="int", low=1).validate(0)
        Traceback (most recent call last):
        ...
        ValueError: n must be an integer in [1, inf), got 0
        """
        return check(self.name, value, self.constraint)


# ---------------------------------------------------------------------------------------------------------------
# levels


@dataclass(frozen=True)
class LevelSpec:
    """A metric's default level rule (applied by :mod:`synthpriv_report.grading.levels`, the one level policy).

    Parameters
    ----------
    medium, high : float or None
        Thresholds on the graded quantity (``scale``). For ``direction="higher_is_riskier"`` a level fires when
        the quantity is above the threshold, for ``"higher_is_safer"`` when it is below.
    source : str
        The public source of the rule (paper, post or "package default" with the reasoning in ``description``).
    description : str
        The rule in words, for the reader of the report.
    scale : str
        What is graded, in words ("the value", "the Wilson lower bound of the share", ...).
    of : callable, optional
        ``of(result) -> float or None``: the graded quantity; default the headline value.
    direction : {"higher_is_riskier", "higher_is_safer"}, optional
        Direction of the graded quantity; default the metric's.
    inclusive : bool or (bool, bool)
        Whether reaching a threshold fires it, for (medium, high).
    rule : callable, optional
        ``rule(result) -> level``: a rule that is not a pair of thresholds (used instead of them).
    family : str, optional
        Name of a rule shared by several metrics; ``levels={family: {...}}`` moves the thresholds of all of them.
    same_scale : bool
        The graded quantity ``of`` is on the headline value's scale (e.g. the value's lower confidence bound), so
        thresholds given by the user are compared with it too; otherwise user thresholds are compared with the
        headline value.
    difference : bool
        The graded quantity is a difference of two values on the headline's scale (the value minus the holdout's,
        say). For a metric whose value is a share, its thresholds and the graded number then read in percentage
        points; otherwise (a share graded on itself or on a bound of it) in percent.
    rederive : callable, optional
        ``rederive(result) -> {field: value}``: the numbers the level rests on (the graded bound, the value, its
        interval, the per-check level, ...) computed again from the counts the result stores, by the same
        functions that computed them (:mod:`synthpriv_report.stats.evidence`, :mod:`synthpriv_report.stats`). Each key
        is a field of the result's JSON form as a tuple (``("details", "excess_lower_bound")``, ``("interval",
        0)``). A report read back from JSON is refused where a stored number differs from its value here; a
        stored count that cannot be true raises :class:`~synthpriv_report.core.results.InconsistentReportError` naming
        the field. ``None``: the metric's graded quantity rests on per-record arrays a report does not store, and
        only its declared range and its intervals are checked on reading.
    risky_end : callable, optional
        ``risky_end(result) -> float or None``: the risky end of the check's interval at its test level, on the
        graded scale (the scale and direction of ``of``: the upper bound of a risk, the lower bound of a score
        where higher is safer). With it, "low" is a claim: a result that shows no risk is *low* (the risk ruled
        out) only when this end lies inside the low band (at ``negligible`` or on its safe side), and
        *inconclusive* otherwise (an equivalence test in the sense of Schuirmann's two one-sided tests, 1987).
        ``None``: the rule grades a point value and says nothing of what it could not rule out.
    negligible : float, optional
        The edge of the low band on the graded scale; default the ``medium`` threshold (``high`` without one).
    weak : callable, optional
        ``weak(result) -> str or None``: a reason the check can rule nothing out on these data whatever its bound
        (an attack no better than its random-guess baseline, a decision made mostly by ties); the level is then
        inconclusive with that reason.
    risky_scale : str
        What ``risky_end`` is, in words for the reader ("the upper confidence bound of the share").
    """

    medium: float | None
    high: float | None
    source: str
    description: str
    scale: str = "the value"
    of: Callable[[MetricResult], float | None] | None = None
    direction: Direction | None = None
    inclusive: bool | tuple[bool, bool] = False
    rule: Callable[[MetricResult], Level] | None = None
    family: str | None = None
    same_scale: bool = False
    difference: bool = False
    rederive: Callable[[MetricResult], Mapping[tuple[str | int, ...], Any]] | None = None
    risky_end: Callable[[MetricResult], float | None] | None = None
    negligible: float | None = None
    weak: Callable[[MetricResult], str | None] | None = None
    risky_scale: str = "the risky end of the interval"

    @property
    def low_band(self) -> float | None:
        """The edge of the low band a risk must be ruled out within (``negligible``, else the first threshold)."""
        if self.negligible is not None:
            return self.negligible
        return self.medium if self.medium is not None else self.high


#: A metric's level: one rule, or a function choosing the rule from the result (e.g. with or without a holdout).
LevelChoice = LevelSpec | Callable[[MetricResult], LevelSpec]


# ---------------------------------------------------------------------------------------------------------------
# figures and words


@dataclass(frozen=True)
class FigureSpec:
    """A figure of a metric, drawn from its result alone.

    Parameters
    ----------
    draw : callable
        ``draw(result, *axes)``; reads ``result.evidence`` and ``result.details`` only.
    caption : str
        One sentence saying what the figure shows.
    ncols : int
        Number of axes side by side.
    size : (float, float)
        Size of one axes in inches.
    needs_evidence : bool
        Whether the figure reads ``result.evidence`` (a result without evidence then has no figure).
    """

    draw: Callable[..., Any]
    caption: str
    ncols: int = 1
    size: tuple[float, float] = (6.0, 3.4)
    needs_evidence: bool = True


@dataclass(frozen=True)
class Words:
    """Plain-language sentences of a metric for the reader of the report.

    Parameters
    ----------
    measures : str
        What the metric measures.
    high_means : str
        What a high value means.
    ideal : str
        The value an ideal generator reaches.
    """

    measures: str
    high_means: str
    ideal: str


# ---------------------------------------------------------------------------------------------------------------
# the declaration

#: The keys the evaluation itself adds to the details of a metric declared ``calibratable`` when its calibration
#: value is computed (the value minus the calibration value); its details type need not declare them.
EVALUATION_DETAILS: tuple[str, ...] = ("excess_over_calibration",)


#: A key's qualifier written in a postponed annotation: ``NotRequired[...]``, ``typing.Required[...]``, ...
_QUALIFIER = re.compile(r"^\s*(?:[A-Za-z_]\w*\.)*(NotRequired|Required)\s*\[")


def _qualifier(hint: object) -> str | None:
    """``"NotRequired"`` or ``"Required"`` when the annotation of a key says so, else None."""
    if isinstance(hint, ForwardRef):
        hint = hint.__forward_arg__
    if isinstance(hint, str):
        m = _QUALIFIER.match(hint)
        return m.group(1) if m else None
    origin: object = get_origin(hint)
    if origin is NotRequired:
        return "NotRequired"
    if origin is Required:
        return "Required"
    return None


def detail_keys(details: type | None) -> tuple[frozenset[str], frozenset[str]]:
    """The required and the optional keys of a details ``TypedDict`` (``None``: no keys).

    A key is optional when its annotation says ``NotRequired[...]``, or when the class that declares it is
    ``total=False`` and its annotation does not say ``Required[...]``. The annotations are read as written, so
    that the qualifiers count also in a module with ``from __future__ import annotations`` (where the class's
    own ``__required_keys__`` does not see them) and the types need not be importable where they are checked.

    >>> class Sizes(TypedDict):
    ...     n: int
    ...     n_holdout: NotRequired[int]
    >>> detail_keys(Sizes)
    (frozenset({'n'}), frozenset({'n_holdout'}))
    """
    if details is None:
        return frozenset(), frozenset()
    if not is_typeddict(details):
        raise TypeError(f"a metric's details must be declared as a TypedDict class, got {details!r}")
    annotations: dict[str, object] = dict(getattr(details, "__annotations__", {}))
    declared_required: frozenset[str] = frozenset(getattr(details, "__required_keys__", frozenset()))
    required, optional = set(), set()
    for key, hint in annotations.items():
        qualifier = _qualifier(hint)
        if qualifier == "Required" or (qualifier is None and key in declared_required):
            required.add(key)
        else:
            optional.add(key)
    return frozenset(required), frozenset(optional)


@dataclass(frozen=True)
class Computation:
    """How a metric is computed: what the evaluation reads to compute its result, and what that result is.

    Parameters
    ----------
    compute : callable
        ``compute(ctx, params) -> MetricResult`` without a level; reads cached arrays from the context.
    plan : callable or None
        ``plan(ctx, params) -> list[SearchRequest]``: the neighbour searches ``compute`` will ask for, so the
        evaluation can run each (space, query, reference) search once with the largest ``k``.
    needs : tuple of str
        Inputs besides the training and synthetic data: ``"holdout"``, ``"sensitive_fields"``, ``"pairing"``.
        Without one of them the metric is not computed, and its result says why.
    default_space : str or None
        Default distance space; ``None`` when the metric uses no space or a fixed one.
    space_choosable : bool
        Whether the caller may choose another space.
    params : tuple of Param
        The reduction parameters ``compute`` reads (each a slider of :meth:`Evaluation.explore`).
    calibratable : bool
        The metric compares the synthetic data with the training data, so it can be computed again with the
        holdout in the role of the synthetic data (the result's calibration value).
    details : TypedDict class, optional
        The keys, and the types of their values, that ``compute`` puts in the result's ``details``: a class
        derived from ``TypedDict`` (``NotRequired[...]`` for a key that only some results carry).
        :func:`~synthpriv_report.testing.check_metric` holds every computed result to it: each required key
        present, no key undeclared (besides those the evaluation adds, :data:`EVALUATION_DETAILS`). ``None``:
        the details are empty.
    checks : tuple of callable
        Applicability checks ``check(ctx, spec, result) -> str or None``, run on each computed result: a note
        when an assumption of the metric fails on these data.
    copy_sensitive : bool
        An exact copy of the training data scores at the risky end of the range (held by the ``copy`` check of
        :mod:`synthpriv_report.testing`).
    row_order : str
        Why the value depends on the order of the rows by definition (a split or a permutation drawn by position),
        or ``""`` when it does not: the ``row_order`` check of :mod:`synthpriv_report.testing` holds it to that.
    """

    compute: Callable[[Context, dict[str, Any]], MetricResult]
    plan: Callable[[Context, dict[str, Any]], Sequence[Any]] | None = None
    needs: tuple[Need, ...] = ()
    default_space: str | None = None
    space_choosable: bool = False
    params: tuple[Param, ...] = ()
    calibratable: bool = False
    details: type | None = None
    checks: tuple[Callable[..., str | None], ...] = ()
    copy_sensitive: bool = False
    row_order: str = ""

    def __post_init__(self) -> None:
        if self.details is not None and not is_typeddict(self.details):
            raise TypeError(f"details must be a TypedDict class listing the keys of the result's details, got "
                            f"{self.details!r}")


@dataclass(frozen=True)
class Grading:
    """How a metric's value is graded: what the level policy (:mod:`synthpriv_report.grading.levels`) and the
    verdict read to turn the value into a level.

    Parameters
    ----------
    direction : {"higher_is_riskier", "higher_is_safer"}
        Which way risk grows.
    value_range : tuple of float
        Declared range of the headline value. A value outside it is an error, and a report read back from JSON
        with one is refused.
    value_kind : {"share", "score", "auc", "distance", "number"}, optional
        What kind of number the headline value is; it says how thresholds read (a share's in percent or
        percentage points) and how the value is written. ``None``: read from the range (:meth:`MetricSpec.kind`).
    level : LevelSpec, callable or None
        The default level rule, or ``level(result) -> LevelSpec`` choosing it from the result (``None``: the
        metric has no level).
    drives_verdict : bool
        The metric is one of the checks behind the verdict by default (``Evaluation(verdict_metrics=None)``).
        The verdict's per-check test level is shared among these checks (:func:`verdict_alpha`).
    """

    direction: Direction
    value_range: tuple[float, float]
    value_kind: ValueKind | None = None
    level: LevelChoice | None = None
    drives_verdict: bool = False


@dataclass(frozen=True)
class Presentation:
    """How a metric is shown: its names, sentences, figures and notes. Nothing here changes a number or a level.

    The callables take the result's JSON form ``m`` (:data:`ResultJSON`), so that a report drawn again from its
    JSON file says the same words as the live evaluation.

    Parameters
    ----------
    title : str
        Short human title.
    section : str
        Section of the metric definitions, e.g. ``"2.2"`` (``"package"``: defined by this package).
    group : str
        Report group, a key of :data:`GROUP_TITLES`.
    summary : str
        One plain-language line for the report.
    definition : str
        Two sentences defining the metric.
    words : Words or None
        What it measures, what a high value means, the ideal value.
    interval_kind : str
        How the interval is made, in words ("Wilson 95%", "bootstrap 95%", ...).
    figures : tuple of FigureSpec
        Figures drawn from the result alone.
    finding : callable, optional
        ``finding(m) -> str``: the one plain sentence the cover of a report prints for a computed result
        (numbers formatted for the reader). ``None``: "<title>: <value>. It measures <what>."
    graded_note : callable, optional
        ``graded_note(m) -> str or None``: when the level is graded on another quantity than the value shown,
        the sentence that says which and its number. ``None`` (or a ``None`` return): the rule's scale and its
        graded number in the rule's units.
    range_note : callable, optional
        ``range_note(m) -> str or None``: the range of the value in words where the declared range says less
        than the data do (a distance in a space bounded by 1, say).
    residual_risk : callable, optional
        ``residual_risk(m) -> str or None``: the residual risk in a regulator's terms, one sentence for a data
        protection officer ("an attacker who knows X succeeds on at most Y% of people (95% upper bound) more often
        than on people not in the training data"). Declared by the measures that simulate an attacker against
        people, which the report's threat model lists as testing that attacker.
    limitation : str
        What the measure cannot see (a kind of leak it is blind to), for the report's limitations page.
    sample_note : callable, optional
        ``sample_note(m) -> str or None``: the sample the result rests on when it is not every record (attacks
        drawn, records subsampled), with its size, for the limitations page.
    records_note : callable, optional
        ``records_note(m) -> str or None``: which records the risk falls on, in counts (never a record), one
        short plain sentence that the measure's section prints under its result.
    """

    title: str
    section: str
    group: Group
    summary: str = ""
    definition: str = ""
    words: Words | None = None
    interval_kind: str = ""
    figures: tuple[FigureSpec, ...] = ()
    finding: Callable[[ResultJSON], str] | None = None
    graded_note: Callable[[ResultJSON], str | None] | None = None
    range_note: Callable[[ResultJSON], str | None] | None = None
    residual_risk: Callable[[ResultJSON], str | None] | None = None
    limitation: str = ""
    sample_note: Callable[[ResultJSON], str | None] | None = None
    records_note: Callable[[ResultJSON], str | None] | None = None


#: The group each field of a declaration belongs to, by field name.
FIELD_GROUPS: dict[str, str] = {
    **{f.name: "computation" for f in fields(Computation)},
    **{f.name: "grading" for f in fields(Grading)},
    **{f.name: "presentation" for f in fields(Presentation)},
}

_GROUP_CLASSES: dict[str, type[Any]] = {"computation": Computation, "grading": Grading, "presentation": Presentation}


@dataclass(frozen=True, init=False)
class MetricSpec:
    """The declaration of one metric: its name and three groups of fields.

    Each field sits in the group of what reads it:

    - :class:`Computation`: what the evaluation reads to compute a result (the compute function, its searches,
      inputs, space and parameters, the calibration), and what the result is (its details' keys, the invariants
      of :mod:`synthpriv_report.testing` it is held to).
    - :class:`Grading`: what the level policy and the verdict read to turn the value into a level (its direction,
      range and kind, the level rule, whether it drives the verdict).
    - :class:`Presentation`: what only the reader sees (titles, sentences, figures, notes); nothing there changes
      a number or a level.

    Every field can also be read on the declaration itself, by its name: ``spec.direction`` is
    ``spec.grading.direction``, ``spec.compute`` is ``spec.computation.compute``.

    Parameters
    ----------
    name : str
        Registry name (also the JSON and command-line name).
    computation : Computation
        How the metric is computed.
    grading : Grading
        How its value is graded.
    presentation : Presentation
        How it is shown.
    **flat
        The fields of the groups given flat, as in earlier releases (``MetricSpec(name=..., title=...,
        direction=..., compute=...)``): deprecated, with a ``DeprecationWarning`` naming the group of each, and
        removed in a later release. A group given both ways is an error, and so is an unknown field.

    Examples
    --------
    >>> spec = MetricSpec(
    ...     name="m",
    ...     computation=Computation(compute=print),
    ...     grading=Grading(direction="higher_is_safer", value_range=(0.0, 100.0)),
    ...     presentation=Presentation(title="M", section="package", group="closeness"))
    >>> spec.direction, spec.kind()
    ('higher_is_safer', 'score')
    """

    name: str
    computation: Computation
    grading: Grading
    presentation: Presentation

    def __init__(self, name: str, computation: Computation | None = None, grading: Grading | None = None,
                 presentation: Presentation | None = None, **flat: Any) -> None:
        given: dict[str, Any] = {"computation": computation, "grading": grading, "presentation": presentation}
        if flat:
            unknown = sorted(k for k in flat if k not in FIELD_GROUPS)
            if unknown:
                raise TypeError(f"MetricSpec got unknown field(s) {', '.join(map(repr, unknown))}; the fields of "
                                f"each group: {_fields_in_words()}")
            by_group: dict[str, dict[str, Any]] = {}
            for key, value in flat.items():
                by_group.setdefault(FIELD_GROUPS[key], {})[key] = value
            clash = sorted(g for g in by_group if given[g] is not None)
            if clash:
                raise TypeError(f"MetricSpec {name!r}: {' and '.join(clash)} given both as a group and as flat "
                                f"fields ({', '.join(sorted(k for g in clash for k in by_group[g]))})")
            warnings.warn(
                f"MetricSpec {name!r}: flat fields are deprecated; group them: "
                + "; ".join(f"{group}={_GROUP_CLASSES[group].__name__}({', '.join(sorted(kw))})"
                            for group, kw in sorted(by_group.items())),
                DeprecationWarning, stacklevel=2)
            for group, kw in by_group.items():
                try:
                    given[group] = _GROUP_CLASSES[group](**kw)
                except TypeError as exc:
                    raise TypeError(f"MetricSpec {name!r}: {exc}") from None
        for group, cls in _GROUP_CLASSES.items():
            if not isinstance(given[group], cls):
                raise TypeError(f"MetricSpec {name!r}: {group} must be a {cls.__name__}(...), got "
                                f"{given[group]!r}")
        object.__setattr__(self, "name", name)
        for group in _GROUP_CLASSES:
            object.__setattr__(self, group, given[group])

    # the fields by their own names, read-only -------------------------------------------------------------------

    @property
    def compute(self) -> Callable[[Context, dict[str, Any]], MetricResult]:
        """:attr:`Computation.compute`."""
        return self.computation.compute

    @property
    def plan(self) -> Callable[[Context, dict[str, Any]], Sequence[Any]] | None:
        """:attr:`Computation.plan`."""
        return self.computation.plan

    @property
    def needs(self) -> tuple[Need, ...]:
        """:attr:`Computation.needs`."""
        return self.computation.needs

    @property
    def default_space(self) -> str | None:
        """:attr:`Computation.default_space`."""
        return self.computation.default_space

    @property
    def space_choosable(self) -> bool:
        """:attr:`Computation.space_choosable`."""
        return self.computation.space_choosable

    @property
    def params(self) -> tuple[Param, ...]:
        """:attr:`Computation.params`."""
        return self.computation.params

    @property
    def calibratable(self) -> bool:
        """:attr:`Computation.calibratable`."""
        return self.computation.calibratable

    @property
    def details(self) -> type | None:
        """:attr:`Computation.details`."""
        return self.computation.details

    @property
    def checks(self) -> tuple[Callable[..., str | None], ...]:
        """:attr:`Computation.checks`."""
        return self.computation.checks

    @property
    def copy_sensitive(self) -> bool:
        """:attr:`Computation.copy_sensitive`."""
        return self.computation.copy_sensitive

    @property
    def row_order(self) -> str:
        """:attr:`Computation.row_order`."""
        return self.computation.row_order

    @property
    def direction(self) -> Direction:
        """:attr:`Grading.direction`."""
        return self.grading.direction

    @property
    def value_range(self) -> tuple[float, float]:
        """:attr:`Grading.value_range`."""
        return self.grading.value_range

    @property
    def value_kind(self) -> ValueKind | None:
        """:attr:`Grading.value_kind`."""
        return self.grading.value_kind

    @property
    def level(self) -> LevelChoice | None:
        """:attr:`Grading.level`."""
        return self.grading.level

    @property
    def drives_verdict(self) -> bool:
        """:attr:`Grading.drives_verdict`."""
        return self.grading.drives_verdict

    @property
    def title(self) -> str:
        """:attr:`Presentation.title`."""
        return self.presentation.title

    @property
    def section(self) -> str:
        """:attr:`Presentation.section`."""
        return self.presentation.section

    @property
    def group(self) -> Group:
        """:attr:`Presentation.group`."""
        return self.presentation.group

    @property
    def summary(self) -> str:
        """:attr:`Presentation.summary`."""
        return self.presentation.summary

    @property
    def definition(self) -> str:
        """:attr:`Presentation.definition`."""
        return self.presentation.definition

    @property
    def words(self) -> Words | None:
        """:attr:`Presentation.words`."""
        return self.presentation.words

    @property
    def interval_kind(self) -> str:
        """:attr:`Presentation.interval_kind`."""
        return self.presentation.interval_kind

    @property
    def figures(self) -> tuple[FigureSpec, ...]:
        """:attr:`Presentation.figures`."""
        return self.presentation.figures

    @property
    def finding(self) -> Callable[[ResultJSON], str] | None:
        """:attr:`Presentation.finding`."""
        return self.presentation.finding

    @property
    def graded_note(self) -> Callable[[ResultJSON], str | None] | None:
        """:attr:`Presentation.graded_note`."""
        return self.presentation.graded_note

    @property
    def range_note(self) -> Callable[[ResultJSON], str | None] | None:
        """:attr:`Presentation.range_note`."""
        return self.presentation.range_note

    @property
    def residual_risk(self) -> Callable[[ResultJSON], str | None] | None:
        """:attr:`Presentation.residual_risk`."""
        return self.presentation.residual_risk

    @property
    def limitation(self) -> str:
        """:attr:`Presentation.limitation`."""
        return self.presentation.limitation

    @property
    def sample_note(self) -> Callable[[ResultJSON], str | None] | None:
        """:attr:`Presentation.sample_note`."""
        return self.presentation.sample_note

    @property
    def records_note(self) -> Callable[[ResultJSON], str | None] | None:
        """:attr:`Presentation.records_note`."""
        return self.presentation.records_note

    # ------------------------------------------------------------------------------------------------------------

    @property
    def param_names(self) -> tuple[str, ...]:
        """The names of the reduction parameters the metric reads."""
        return tuple(p.name for p in self.params)

    def detail_keys(self) -> tuple[frozenset[str], frozenset[str]]:
        """The required and the optional keys of the result's details (:func:`detail_keys` of
        :attr:`Computation.details`)."""
        return detail_keys(self.details)

    def kind(self) -> ValueKind:
        """What kind of number the headline value is: the declared ``value_kind``, else read from the range.

        A value on [0, 100] is a ``"score"``, one on [0, 1] with a Wilson interval a ``"share"``, any other a
        ``"number"``.

        >>> grading = Grading("higher_is_riskier", (0.0, 1.0))
        >>> MetricSpec("m", Computation(print), grading, Presentation("M", "x", "closeness")).kind()
        'number'
        >>> MetricSpec("m", Computation(print), grading,
        ...            Presentation("M", "x", "closeness", interval_kind="Wilson 95%")).kind()
        'share'
        """
        if self.value_kind is not None:
            return self.value_kind
        if tuple(self.value_range) == (0.0, 100.0):
            return "score"
        if self.interval_kind.lower().startswith("wilson") and tuple(self.value_range) == (0.0, 1.0):
            return "share"
        return "number"


def _fields_in_words() -> str:
    return "; ".join(f"{cls.__name__}: {', '.join(f.name for f in fields(cls))}" for cls in _GROUP_CLASSES.values())


REGISTRY: dict[str, MetricSpec] = {}


def register(spec: MetricSpec) -> MetricSpec:
    """Add a metric to :data:`REGISTRY`.

    Registering a name twice, or a parameter whose declaration differs from another metric's parameter of the same
    name, is an error.
    """
    if spec.name in REGISTRY:
        raise ValueError(f"metric {spec.name!r} is registered twice")
    if spec.group not in GROUP_TITLES:
        raise ValueError(f"metric {spec.name!r}: unknown group {spec.group!r}; known: {', '.join(GROUP_TITLES)}")
    known = declared_params()
    for p in spec.params:
        if p.name in known and known[p.name] != p:
            raise ValueError(f"metric {spec.name!r} declares parameter {p.name!r} differently from another metric")
    REGISTRY[spec.name] = spec
    return spec


def unregister(name: str) -> None:
    """Remove a metric (for tests that register a toy metric)."""
    REGISTRY.pop(name, None)


def metric_names() -> list[str]:
    """Registered metric names in registration (report) order."""
    return list(REGISTRY)


def get_spec(name: str) -> MetricSpec:
    """The declaration of ``name``; a clear error for an unknown name."""
    if not isinstance(name, str):
        raise TypeError(f"a metric name must be a string, got {name!r}")
    try:
        return REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown metric {name!r}; known metrics: {', '.join(REGISTRY)}") from None


def verdict_metric_names() -> list[str]:
    """The checks behind the verdict by default: the metrics declared with ``drives_verdict``, in report order."""
    return [name for name, spec in REGISTRY.items() if spec.drives_verdict]


#: The verdict's false-alarm rate in force (:func:`verdict_false_alarm`); the package default outside any block.
_FALSE_ALARM: contextvars.ContextVar[float] = contextvars.ContextVar("verdict_false_alarm",
                                                                   default=VERDICT_FALSE_ALARM)


def verdict_false_alarm_rate() -> float:
    """The false-alarm rate the verdict is built for at this point: :data:`~synthpriv_report.stats.evidence.\
VERDICT_FALSE_ALARM` (0.05), or the rate of the innermost :func:`verdict_false_alarm` block.

    >>> verdict_false_alarm_rate()
    0.05
    """
    return _FALSE_ALARM.get()


@contextlib.contextmanager
def verdict_false_alarm(rate: float) -> Iterator[float]:
    """Within this block, the verdict's checks are graded for a false-alarm rate of ``rate`` instead of the default
    0.05: every check's one-sided level becomes ``rate`` shared among the checks (:func:`verdict_alpha`).

    This is how a comparison of N releases pays for choosing among them (Bonferroni over the releases: each
    release's verdict at ``0.05 / N``). An evaluation keeps the results of each rate apart, so a result graded
    inside the block is never reused outside it, nor the other way round. The setting belongs to the running
    thread or task only (a context variable).

    >>> with verdict_false_alarm(0.01):
    ...     verdict_false_alarm_rate()
    0.01
    >>> verdict_false_alarm_rate()
    0.05
    """
    r = float(rate)
    if not 0.0 < r < 1.0:
        raise ValueError(f"the verdict's false-alarm rate must lie strictly between 0 and 1, got {rate!r}")
    token = _FALSE_ALARM.set(r)
    try:
        yield r
    finally:
        _FALSE_ALARM.reset(token)


def verdict_alpha(total: float | None = None) -> float:
    """The one-sided test level of each check behind the verdict: ``total`` shared among the default checks
    (Bonferroni), so that an honest release is graded medium or high by any of them at most ``total`` of the time.
    ``total`` defaults to the rate in force (:func:`verdict_false_alarm_rate`: 0.05 unless a
    :func:`verdict_false_alarm` block sets another).

    Read when a level is graded (not at import), so that it always counts the registered checks.
    """
    return check_alpha(max(len(verdict_metric_names()), 1), verdict_false_alarm_rate() if total is None else total)


#: Parameters read by several metrics or outside any one metric (registered by :mod:`synthpriv_report.core.params`).
SHARED_PARAMS: dict[str, Param] = {}

#: Level rules shared by several metrics, by family name (registered by :mod:`synthpriv_report.core.params`).
SHARED_LEVEL_FAMILIES: dict[str, LevelSpec] = {}


def register_shared(params: Iterable[Param] = (), families: Mapping[str, LevelSpec] | None = None) -> None:
    """Declare parameters and level-rule families that belong to no single metric.

    The module that defines them (:mod:`synthpriv_report.core.params`) registers them, so that this module, below it in
    the layers, never imports it. Declaring a name twice with different declarations is an error.
    """
    for p in params:
        if SHARED_PARAMS.get(p.name, p) != p:
            raise ValueError(f"shared parameter {p.name!r} is declared twice, differently")
        SHARED_PARAMS[p.name] = p
    for name, rule in (families or {}).items():
        if SHARED_LEVEL_FAMILIES.get(name, rule) != rule:
            raise ValueError(f"level family {name!r} is declared twice, differently")
        SHARED_LEVEL_FAMILIES[name] = rule


def declared_params() -> dict[str, Param]:
    """Every reduction parameter: the shared ones (:data:`SHARED_PARAMS`) and each metric's own."""
    out = dict(SHARED_PARAMS)
    for spec in REGISTRY.values():
        for p in spec.params:
            out.setdefault(p.name, p)
    return out


def level_families() -> dict[str, LevelSpec]:
    """Shared level rules by family name (``levels={"review_absolute": ...}`` moves all of their members)."""
    return dict(SHARED_LEVEL_FAMILIES)


def graded_direction(spec: MetricSpec) -> Direction:
    """The direction of the quantity a metric's declared rule grades: the rule's own (``LevelSpec.direction``),
    else the metric's. The holdout tests' value is a score where higher is safer, but their rule grades D, the
    drop in distance, where higher is riskier.

    >>> graded_direction(get_spec("dcr_test")), get_spec("dcr_test").direction
    ('higher_is_riskier', 'higher_is_safer')
    >>> graded_direction(get_spec("privacy_score"))
    'higher_is_safer'
    """
    ls = spec.level
    if isinstance(ls, LevelSpec) and ls.direction is not None:
        return ls.direction
    return spec.direction


def resolve_level(spec: MetricSpec, result: MetricResult) -> LevelSpec | None:
    """The default level rule of ``spec`` for this result (a choice may depend on the result)."""
    if spec.level is None:
        return None
    if isinstance(spec.level, LevelSpec):
        return spec.level
    return spec.level(result)


__all__ = [
    "GROUP_TITLES", "Param", "LevelSpec", "FigureSpec", "Words", "MetricSpec", "Computation", "Grading",
    "Presentation", "FIELD_GROUPS", "EVALUATION_DETAILS", "detail_keys", "NotRequired", "Required", "TypedDict",
    "REGISTRY", "register",
    "unregister", "metric_names", "get_spec", "SHARED_PARAMS", "SHARED_LEVEL_FAMILIES", "register_shared",
    "declared_params", "verdict_metric_names", "verdict_alpha", "verdict_false_alarm", "verdict_false_alarm_rate",
    "ValueKind", "ResultJSON", "level_families", "resolve_level", "graded_direction",
]
