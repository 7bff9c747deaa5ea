"""Result types: small frozen dataclasses that every metric returns.

Presentation code (HTML, figures, widgets, export) reads these objects and never computes a metric.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, overload

import numpy as np

from .formats import fmt_number

Direction = Literal["higher_is_riskier", "higher_is_safer"]
#: A check's outcome: a risk *ruled out* ("low": the risky end of the check's interval at its test level lies in
#: the low band), *not ruled out* ("inconclusive": no risk shown, none ruled out), or *shown* ("medium", "high").
Level = Literal["low", "inconclusive", "medium", "high"]

_LEVEL_ORDER = {"low": 0, "inconclusive": 1, "medium": 2, "high": 3}

#: How a level rule's thresholds read: plain numbers, a share in percent, or a difference of shares in points.
RuleUnit = Literal["number", "percent", "points"]


@overload
def to_jsonable(obj: Mapping[str, Any]) -> dict[str, Any]: ...


@overload
def to_jsonable(obj: Any) -> Any: ...


def to_jsonable(obj: Any) -> Any:
    """Convert numpy scalars/arrays, tuples and nested containers into JSON-safe Python objects.

    Non-finite floats become ``None`` (JSON has no NaN); arrays become lists.

    >>> to_jsonable({"a": np.float64(1.5), "b": (1, np.int64(2)), "c": float("nan")})
    {'a': 1.5, 'b': [1, 2], 'c': None}
    """
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, (np.bool_,)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        f = float(obj)
        return f if math.isfinite(f) else None
    if isinstance(obj, np.ndarray):
        return [to_jsonable(v) for v in obj.tolist()]
    if isinstance(obj, Mapping):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if hasattr(obj, "to_dict"):
        return to_jsonable(obj.to_dict())
    return str(obj)


@dataclass(frozen=True)
class LevelRule:
    """How a level was assigned: the thresholds and where they come from.

    Parameters
    ----------
    medium, high : float or None
        Thresholds on the metric's headline value. For a ``higher_is_riskier`` metric the level is high when
        ``value > high`` (or ``>=`` when ``inclusive``), medium when beyond ``medium``; for a
        ``higher_is_safer`` metric the comparison is reversed (below the thresholds).
    source : str
        Where the thresholds come from (a public source, "package default", or "set by the user").
    description : str
        Human-readable rule, shown beside the badge.
    scale : str
        What the thresholds are compared with ("the value", "the Wilson lower bound of the share", ...).
    graded : float or None
        The number that was compared with the thresholds (on ``scale``); ``None`` for a rule that is not a pair
        of thresholds. Shown beside the level when it is not the value itself, so that a level never seems to
        contradict its value.
    unit : {"number", "percent", "points"}
        How the thresholds and ``graded`` read: plain numbers, a share in percent (0.55 reads 55%), or a
        difference of shares in percentage points (0.05 reads 5 percentage points). The stored numbers are
        fractions in every case.
    negligible : float or None
        The edge of the low band on the graded scale: a risk is *ruled out* (level low) only when ``risky_end``
        lies inside it; ``None`` for a rule with no such test (a level graded on a point value).
    risky_end : float or None
        The risky end of the check's interval at its test level, on the graded scale (the upper bound of a
        risk, the lower bound of a score where higher is safer), read when no risk is shown; ``None`` when a risk
        is shown, when the rule has none or when it could not be computed.
    inconclusive_because : str or None
        Why a check with no risk shown is inconclusive rather than low, in words for the reader ("cannot rule
        out a share of up to 14.7%"); ``None`` unless the level is ``"inconclusive"``.
    """

    medium: float | None
    high: float | None
    source: str
    description: str
    scale: str = "the value"
    graded: float | None = None
    unit: RuleUnit = "number"
    negligible: float | None = None
    risky_end: float | None = None
    inconclusive_because: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable(
            {"medium": self.medium, "high": self.high, "source": self.source, "description": self.description,
             "scale": self.scale, "graded": self.graded, "unit": self.unit, "negligible": self.negligible,
             "risky_end": self.risky_end, "inconclusive_because": self.inconclusive_because}
        )


@dataclass(frozen=True)
class MetricResult:
    """The outcome of one metric.

    Parameters
    ----------
    name : str
        Registry name (docs/metrics.md).
    value : float or None
        Headline value; ``None`` exactly when the metric was not computed.
    interval : tuple of float or None
        95% interval of the headline value (Wilson for proportions, bootstrap for distance statistics).
    direction : {"higher_is_riskier", "higher_is_safer"}
        Which way risk grows.
    level : {"low", "inconclusive", "medium", "high"} or None
        Risk level from ``level_rule``: a risk shown (medium, high), ruled out (low) or neither (inconclusive);
        ``None`` when not computed.
    details : dict
        Secondary statistics and sizes, JSON-safe after :func:`to_jsonable`.
    reason_not_computed : str or None
        Why the metric could not be computed on these data.
    section : str
        The section of docs/metrics.md defining the metric.
    title : str
        Short human title.
    value_range : tuple of float
        Declared range of ``value``.
    space : str or None
        Distance space used, when the metric uses one.
    level_rule : LevelRule or None
        The thresholds that produced ``level``.
    calibration : float or None
        The same metric with the holdout in the role of the synthetic data (docs/metrics.md, "Baselines: the holdout
        and the calibration"), when available.
    notes : tuple of str
        Applicability notes: assumptions of the metric that do not hold on these data.
    evidence : dict
        The small, bounded data the metric's figures need (histograms, quantile summaries, curve points, counts;
        never per-record real values), so that every view can be drawn from the result alone.
    """

    name: str
    value: float | None
    interval: tuple[float, float] | None = None
    direction: Direction = "higher_is_riskier"
    level: Level | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    reason_not_computed: str | None = None
    section: str = ""
    title: str = ""
    value_range: tuple[float, float] = (0.0, 1.0)
    space: str | None = None
    level_rule: LevelRule | None = None
    calibration: float | None = None
    notes: tuple[str, ...] = ()
    evidence: Mapping[str, Any] = field(default_factory=dict)

    @property
    def computed(self) -> bool:
        """True when the metric produced a value."""
        return self.reason_not_computed is None

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        out: dict[str, Any] = _display().bundle(self, include=include, exclude=exclude)
        return out

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dictionary of every field."""
        return to_jsonable(
            {
                "name": self.name,
                "title": self.title,
                "section": self.section,
                "computed": self.computed,
                "value": self.value,
                "interval": self.interval,
                "direction": self.direction,
                "level": self.level,
                "level_rule": self.level_rule.to_dict() if self.level_rule else None,
                "value_range": self.value_range,
                "space": self.space,
                "calibration": self.calibration,
                "notes": list(self.notes),
                "reason_not_computed": self.reason_not_computed,
                "details": dict(self.details),
                "evidence": dict(self.evidence),
            }
        )


class InconsistentReportError(ValueError):
    """A report read back from JSON whose stored numbers cannot be true together: a share outside [0, 1], an
    interval that is inverted or leaves out its value, a bound or level that its stored counts do not give.

    A ``ValueError``, so that every caller that refuses bad input refuses it (the command line exits with
    status 2). ``field`` is the path of the offending field inside its metric (``("details", "share")``), or
    inside the document once the reader has placed it (``("metrics", "exact_copies", "details", "share")``).
    """

    def __init__(self, message: str, field: tuple[Any, ...] = ()):
        super().__init__(message)
        self.field = tuple(field)


def stored_number(details: Mapping[str, Any], key: str, *, low: float | None = None, high: float | None = None,
                  where: tuple[Any, ...] = ("details",)) -> float:
    """A finite number stored in a result's ``details`` (read back from JSON), within ``[low, high]``.

    Raises
    ------
    InconsistentReportError
        Naming the field when it is missing, not a number, or outside the range.

    >>> stored_number({"share": 0.25}, "share", low=0.0, high=1.0)
    0.25
    >>> stored_number({"share": 2.0}, "share", low=0.0, high=1.0)
    Traceback (most recent call last):
    ...
    synthpriv_report.core.results.InconsistentReportError: is 2.0, outside [0, 1]
    """
    v = details.get(key) if isinstance(details, Mapping) else None
    path = (*where, key)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(float(v)):
        raise InconsistentReportError(f"is {v!r}, not a finite number", path)
    v = float(v)
    if (low is not None and v < low) or (high is not None and v > high):
        lo = -math.inf if low is None else low
        hi = math.inf if high is None else high
        raise InconsistentReportError(f"is {v!r}, outside [{lo:g}, {hi:g}]", path)
    return v


def stored_count(details: Mapping[str, Any], key: str, *, high: float | None = None,
                 where: tuple[Any, ...] = ("details",)) -> int:
    """A count of records stored in a result's ``details``: a whole number from 0 to ``high``.

    >>> stored_count({"n": 200}, "n"), stored_count({"k": 3.0}, "k", high=3)
    (200, 3)
    >>> stored_count({"n": 2.5}, "n")
    Traceback (most recent call last):
    ...
    synthpriv_report.core.results.InconsistentReportError: is 2.5, not a whole number of records
    """
    v = stored_number(details, key, low=0.0, high=high, where=where)
    if v != math.floor(v):
        raise InconsistentReportError(f"is {v!r}, not a whole number of records", (*where, key))
    return int(v)


def not_computed(name: str, reason: str, **kwargs: Any) -> MetricResult:
    """A result for a metric that cannot be computed on the given data (docs/metrics.md, "Shared machinery")."""
    return MetricResult(name=name, value=None, reason_not_computed=reason, **kwargs)


VerdictLevel = Literal["low", "inconclusive", "medium", "high", "not_assessed"]


@dataclass(frozen=True)
class Verdict:
    """The headline verdict: the highest level among the driving checks that ran.

    Parameters
    ----------
    level : {"low", "inconclusive", "medium", "high", "not_assessed"}
        Highest level among the driving checks that ran (low < inconclusive < medium < high): low only when every
        check that ran ruled its risk out; ``"not_assessed"`` when none of them ran.
    reasons : tuple of str
        One sentence per check that fired (level medium or high), then one per inconclusive check saying what it
        could not rule out.
    checks : tuple of (name, level or None)
        Every driving check with its level (``None``: could not run).
    not_run : tuple of (name, reason)
        Driving checks that could not run, with the reason.
    """

    level: VerdictLevel
    reasons: tuple[str, ...]
    checks: tuple[tuple[str, Level | None], ...]
    not_run: tuple[tuple[str, str], ...] = ()

    @property
    def n_ran(self) -> int:
        """How many driving checks ran (the verdict rests on these)."""
        return sum(1 for _, lv in self.checks if lv is not None)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        out: dict[str, Any] = _display().bundle(self, include=include, exclude=exclude)
        return out

    def to_dict(self) -> dict[str, Any]:
        return to_jsonable(
            {
                "level": self.level,
                "reasons": list(self.reasons),
                "checks": [{"metric": n, "level": lv} for n, lv in self.checks],
                "not_run": [{"metric": n, "reason": r} for n, r in self.not_run],
            }
        )


def max_level(levels: list[Level | None]) -> Level:
    """Highest of the given levels, ignoring ``None``; ``"low"`` when none.

    >>> max_level(["low", None, "medium"])
    'medium'
    """
    best: Level = "low"
    for lv in levels:
        if lv is not None and _LEVEL_ORDER[lv] > _LEVEL_ORDER[best]:
            best = lv
    return best


class ResultSet(Mapping[str, MetricResult]):
    """An ordered, read-only mapping of metric name to :class:`MetricResult`, with the verdict.

    A result set is everything a report shows: it is drawn (notebook view, figures, HTML, PDF) from the result set
    alone, and it can be saved as JSON and loaded again without the data.

    Parameters
    ----------
    results : dict
        Metric results in registry order.
    verdict : Verdict
        The headline verdict.
    params : dict
        The parameters these results were reduced with.
    meta : dict, optional
        JSON-safe context of the evaluation: settings, data summary (names, sizes, columns), fingerprints,
        versions, notes.
    """

    def __init__(self, results: dict[str, MetricResult], verdict: Verdict, params: Mapping[str, Any],
                 meta: Mapping[str, Any] | None = None):
        self._results = dict(results)
        self.verdict = verdict
        self.params = dict(params)
        self.meta: dict[str, Any] = dict(meta or {})

    def __getitem__(self, name: str) -> MetricResult:
        try:
            return self._results[name]
        except KeyError:
            raise KeyError(f"no result named {name!r}; available: {', '.join(self._results)}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._results)

    def __len__(self) -> int:
        return len(self._results)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        out: dict[str, Any] = _display().bundle(self, include=include, exclude=exclude)
        return out

    def to_frame(self) -> Any:  # a pandas.DataFrame (pandas is imported when called)
        """A tidy table: one row per metric with value, interval, direction, level and reason."""
        import pandas as pd

        rows = []
        for r in self._results.values():
            lo, hi = r.interval if r.interval is not None else (None, None)
            rows.append(
                {
                    "metric": r.name,
                    "title": r.title,
                    "section": r.section,
                    "value": r.value,
                    "ci_low": lo,
                    "ci_high": hi,
                    "direction": r.direction,
                    "level": r.level,
                    "space": r.space,
                    "calibration": r.calibration,
                    "reason_not_computed": r.reason_not_computed,
                }
            )
        return pd.DataFrame(rows).set_index("metric")

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dictionary: verdict, parameters, every metric and the evaluation's context (``meta``)."""
        doc: dict[str, Any] = {
            "verdict": self.verdict.to_dict(),
            "params": self.params,
            "metrics": {n: r.to_dict() for n, r in self._results.items()},
            "meta": self.meta,
        }
        out: dict[str, Any] = to_jsonable(doc)
        return out

    @classmethod
    def from_json(cls, path: Any) -> ResultSet:
        """Load a saved JSON report (validated field by field; a ``ValueError`` names what is wrong, an
        :class:`InconsistentReportError` the first stored number its counts do not give); its ``to_html``/``to_pdf``
        draw the same document, figures included, without the data."""
        out: ResultSet = _presentation().load_results(path)
        return out

    def to_html(self, path: Any, **kwargs: Any) -> Any:
        """Write the self-contained HTML report of these results (figures included, no data needed)."""
        return _presentation().to_html(self, path, **kwargs)

    def to_pdf(self, path: Any, **kwargs: Any) -> Any:
        """Write the paginated PDF report of these results."""
        return _presentation().to_pdf(self, path, **kwargs)

    def to_json(self, path: Any = None, **kwargs: Any) -> Any:
        """Write (or return) the versioned JSON report."""
        return _presentation().to_json(self, path, **kwargs)

    def __repr__(self) -> str:
        lines = [f"ResultSet(verdict={self.verdict.level!r}, {len(self)} metrics)"]
        for r in self._results.values():
            if r.computed:
                lines.append(f"  {r.name:<20} {fmt_number(r.value)}  [{r.level or 'no level'}]")
            else:
                lines.append(f"  {r.name:<20} not computed: {r.reason_not_computed}")
        return "\n".join(lines)


def _display() -> Any:
    """The display package (results reach up to it lazily to show themselves in a notebook; it needs neither
    nbconvert nor a PDF engine, so the in-browser build shows results without them)."""
    from .. import display

    return display


def _presentation() -> Any:
    """The export package (the one place results reach up to presentation, lazily, for their own rendering)."""
    from .. import export

    return export
