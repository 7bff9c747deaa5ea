"""The invariants every registered metric must hold, runnable on any metric, the package's own or a third party's.

scikit-learn gives estimator authors ``check_estimator``; this module gives metric authors
:func:`check_metric`. Each check is one property that must hold whatever the metric measures:

``range``
    The value, its interval and its calibration value lie in the declared ``value_range``; the interval is
    ordered and holds the value.
``row_order``
    Shuffling the rows of every set (the pairing shuffled with them) changes neither the value nor the calibration
    value, unless the metric's declaration gives a reason why it depends on the row order (``Computation.row_order``).
``reproducible``
    Two evaluations with the same ``random_state`` give the same result, field for field.
``json``
    The result's JSON form is strict JSON (no NaN, no infinity) and names the metric, with and without the
    optional inputs.
``details``
    Every computed result's ``details`` carry the keys the declaration lists (``Computation.details``, a
    ``TypedDict``): each required key, and no key it does not declare, in every evaluation (with and without the
    optional inputs, on a copy, ...). The keys the evaluation adds to a calibratable metric's details
    (:data:`~synthpriv_report.core.registry.EVALUATION_DETAILS`) need no declaration.
``not_computed``
    A result that is not computed has no value and no level and says why; a computed one has a value and a level.
``copy``
    For a copy-sensitive metric (``Computation.copy_sensitive``): a synthetic set that is an exact copy of the
    training data scores within 5% of the risky end of the range, and one whose columns were resampled
    independently scores clearly less risky (by a tenth of the range at least).
``no_search_on_move``
    Moving the reduction parameters (the sliders') re-reduces cached arrays: no neighbour search runs again.

The data: by default a sample of the embedded demo (UCI Adult, :func:`synthpriv_report.datasets.load_demo`), its
suggested key and sensitive fields, and a pairing of each training record with one synthetic record, so that
every metric has what it needs. :class:`CheckData` takes other frames. The evaluations are made once per data
and shared by every check and every metric (:func:`evaluations`).

Examples
--------
>>> from synthpriv_report.testing import CHECKS, check_metric
>>> CHECKS[:3]
('range', 'row_order', 'reproducible')
>>> check_metric("exact_copies", checks=("range", "json"))  # doctest: +SKIP
['range', 'json']
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .core.registry import EVALUATION_DETAILS, get_spec, metric_names
from .evaluation.evaluation import Evaluation

#: The checks, in the order :func:`check_metric` runs them.
CHECKS: tuple[str, ...] = ("range", "row_order", "reproducible", "json", "details", "not_computed", "copy",
                           "no_search_on_move")

#: Parameter moves of :func:`check_metric`'s ``no_search_on_move``: every slider of the package's metrics, and
#: level thresholds; a move of a parameter no metric of the evaluation reads is ignored by it.
PARAM_MOVES: tuple[Mapping[str, Any], ...] = (
    {"alpha": 0.2},
    {"nndr_threshold": 0.3},
    {"cvp_threshold": 0.1},
    {"dvp_threshold": 0.9},
    {"hitr_divisor": 10.0},
    {"air_tolerance": 0.3},
    {"test_statistic": "median"},
    {"levels": {"review_absolute": {"medium": 0.1, "high": 0.2}, "review_excess": {"medium": 0.005, "high": 0.01}}},
    {"alpha": 0.05, "nndr_threshold": 0.8, "cvp_threshold": 0.3, "dvp_threshold": 0.7},
    {"hitr_divisor": 50.0, "air_tolerance": 0.0, "test_statistic": "mean",
     "levels": {"dcr_test": {"medium": 50.0, "high": 5.0}}},
)

#: How far from the risky end (as a share of the declared range) a copy may score, and how much less risky the
#: independently resampled set must be.
COPY_TOLERANCE = 0.05
INDEPENDENT_MARGIN = 0.1


class MetricCheckError(AssertionError):
    """A metric broke one of the invariants: the message names the metric, the check and what was seen."""


@dataclass(frozen=True)
class CheckData:
    """The frames the checks evaluate: training, synthetic and holdout records of the same size, the fields' roles.

    Parameters
    ----------
    T, S, H : DataFrame
        Training, synthetic and holdout records, with the same columns and the same number of rows. The training
        records must be unique, and so must their projections on all columns but the sensitive ones (a copy then
        sits at the risky end of the key-based metrics too).
    key_fields, sensitive_fields : tuple of str
        The fields' roles for the main evaluations (the copy evaluations use every non-sensitive column as keys).
    random_state : int
        Seed of the evaluations, of the shuffles and of the independently resampled set.
    metrics : tuple of str, optional
        The metrics the evaluations compute (default every registered one).
    """

    T: pd.DataFrame
    S: pd.DataFrame
    H: pd.DataFrame
    key_fields: tuple[str, ...]
    sensitive_fields: tuple[str, ...]
    random_state: int = 0
    metrics: tuple[str, ...] | None = None
    _evaluations: dict[str, Evaluation] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        n = len(self.T)
        if not (len(self.S) == len(self.H) == n) or n < 10:
            raise ValueError(f"the checks need training, synthetic and holdout sets of one size (at least 10 rows); "
                             f"got {len(self.T)}, {len(self.S)} and {len(self.H)}")
        if self.T.duplicated().any():
            raise ValueError("the checks need unique training records: a copy of duplicates is not at the risky end "
                             "of every metric")
        rest = [c for c in self.T.columns if c not in self.sensitive_fields]
        if self.T[rest].duplicated().any():
            raise ValueError("the checks need unique training records on the non-sensitive columns too (the key "
                             "projections of the copy evaluations)")

    @property
    def n(self) -> int:
        """Records per set."""
        return len(self.T)


def demo_data(n: int = 200, random_state: int = 0, metrics: Sequence[str] | None = None) -> CheckData:
    """``n`` records of each of the demo's training, honest synthetic and holdout sets, drawn without replacement
    (seeded), with the demo's key and sensitive fields; the evaluations compute ``metrics`` (default all)."""
    from .datasets import load_demo

    demo = load_demo()
    rng = np.random.default_rng(random_state)

    def draw(frame: pd.DataFrame) -> pd.DataFrame:
        return frame.iloc[np.sort(rng.choice(len(frame), size=n, replace=False))].reset_index(drop=True)

    return CheckData(draw(demo.real), draw(demo.synthetic), draw(demo.holdout), tuple(demo.key_fields),
                     tuple(demo.sensitive_fields), random_state, None if metrics is None else tuple(metrics))


def _prime(ev: Evaluation) -> Evaluation:
    """Compute every metric at once, so the searches are planned together. A metric that fails here fails again,
    alone, in the check that asks for it, which is where it is reported."""
    with contextlib.suppress(Exception):
        ev.results()
    return ev


def _identity(n: int) -> np.ndarray:
    return np.column_stack([np.arange(n), np.arange(n)])


def evaluations(data: CheckData) -> dict[str, Evaluation]:
    """The evaluations the checks read, made once per :class:`CheckData` and kept on it.

    ``main`` and ``again`` (the same inputs and seed), ``shuffled`` (every set's rows permuted, the pairing with
    them), ``copy`` (the synthetic set an exact copy of the training set), ``independent`` (each column resampled
    from the training set on its own) and ``bare`` (no holdout, no sensitive fields, no pairing: 80 records).
    """
    if data._evaluations:
        return data._evaluations
    n, seed = data.n, data.random_state
    T, S, H = data.T, data.S, data.H
    chosen = None if data.metrics is None else list(data.metrics)

    def make(t: pd.DataFrame, s: pd.DataFrame, h: pd.DataFrame | None, pairing: Any, **kw: Any) -> Evaluation:
        kw.setdefault("key_fields", list(data.key_fields))
        return _prime(Evaluation(t, s, h, sensitive_fields=list(data.sensitive_fields), pairing=pairing,
                                 progress=False, random_state=seed, metrics=chosen, **kw))

    rng = np.random.default_rng(seed + 99)
    pt, ps, ph = rng.permutation(n), rng.permutation(n), rng.permutation(n)
    # the pair (i, i) moves to (position of T's row i, position of S's row i) in the shuffled frames
    moved = np.column_stack([np.argsort(pt), np.argsort(ps)])
    indep_rng = np.random.default_rng(seed + 14)
    independent = pd.DataFrame({c: T[c].to_numpy()[indep_rng.integers(0, n, n)] for c in T.columns})
    out = {
        "main": make(T, S, H, _identity(n)),
        "again": make(T, S, H, _identity(n)),
        "shuffled": make(T.iloc[pt].reset_index(drop=True), S.iloc[ps].reset_index(drop=True),
                         H.iloc[ph].reset_index(drop=True), moved),
        # every non-sensitive column a key: the records and their key projections are unique, so a copy sits at
        # the risky end of the key-based metrics too
        "copy": make(T, T.copy(), H, _identity(n), calibrate=False, key_fields=None),
        "independent": make(T, independent, H, _identity(n), calibrate=False, key_fields=None),
        "bare": _prime(Evaluation(T.head(80), S.head(80), progress=False, calibrate=False, metrics=chosen)),
    }
    data._evaluations.update(out)
    return out


#: The evaluations of :func:`evaluations`, in the order the checks that read them all go through them.
_LABELS: tuple[str, ...] = ("main", "again", "shuffled", "copy", "independent", "bare")


def _risk(name: str, value: float) -> float:
    """Position of ``value`` in the declared range, 1 at the risky end."""
    spec = get_spec(name)
    lo, hi = spec.value_range
    r = (value - lo) / (hi - lo)
    return r if spec.direction == "higher_is_riskier" else 1.0 - r


def _same(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=0.0, abs_tol=1e-9)


def _fail(name: str, check: str, what: str) -> MetricCheckError:
    return MetricCheckError(f"metric {name!r} fails the check {check!r}: {what}")


def run_check(name: str, check: str, data: CheckData | None = None) -> str | None:
    """Run one check on one registered metric.

    Parameters
    ----------
    name : str
        A registered metric.
    check : str
        One of :data:`CHECKS`.
    data : CheckData, optional
        Default :func:`demo_data` of this metric alone (made once per call: pass one to share its evaluations
        between calls).

    Returns
    -------
    str or None
        None when the check passed; the reason when it does not apply to the metric (not computed on these data,
        declared order-dependent, not copy-sensitive).

    Raises
    ------
    MetricCheckError
        When the metric breaks the invariant (the message names it, the check and the numbers).
    KeyError, ValueError
        An unknown metric or check.
    """
    spec = get_spec(name)
    if check not in CHECKS:
        raise ValueError(f"unknown check {check!r}; choose one of {', '.join(CHECKS)}")
    evs = evaluations(data if data is not None else demo_data(metrics=(name,)))
    if check == "range":
        r = evs["main"].results(metrics=[name])[name]
        if not r.computed:
            return f"not computed: {r.reason_not_computed}"
        lo, hi = spec.value_range
        tol = 1e-12 * max(1.0, abs(hi - lo)) if math.isfinite(hi - lo) else 1e-12
        if r.value is None or not math.isfinite(r.value) or not lo - tol <= r.value <= hi + tol:
            raise _fail(name, check, f"value {r.value!r} outside its declared range [{lo}, {hi}]")
        if r.interval is not None:
            low, high = r.interval
            if not (lo - tol <= low <= r.value + tol and r.value - tol <= high <= hi + tol):
                raise _fail(name, check, f"interval ({low!r}, {high!r}) does not hold the value {r.value!r} within "
                                         f"[{lo}, {hi}]")
        if r.calibration is not None and not lo - tol <= r.calibration <= hi + tol:
            raise _fail(name, check, f"calibration value {r.calibration!r} outside [{lo}, {hi}]")
    elif check == "row_order":
        if spec.row_order:
            return f"depends on the row order by definition: {spec.row_order}"
        given = evs["main"].results(metrics=[name])[name]
        moved = evs["shuffled"].results(metrics=[name])[name]
        if given.computed != moved.computed or not _same(given.value, moved.value) \
                or not _same(given.calibration, moved.calibration):
            raise _fail(name, check, f"rows shuffled give value {moved.value!r} (calibration {moved.calibration!r}) "
                                     f"against {given.value!r} ({given.calibration!r})")
    elif check == "reproducible":
        first = evs["main"].results(metrics=[name])[name].to_dict()
        second = evs["again"].results(metrics=[name])[name].to_dict()
        if first != second:
            diff = sorted(k for k in set(first) | set(second) if first.get(k) != second.get(k))
            raise _fail(name, check, f"the same inputs and random_state differ in {', '.join(diff)}")
    elif check == "json":
        for label in ("main", "bare"):
            d = evs[label].results(metrics=[name])[name].to_dict()
            try:
                text = json.dumps(d, allow_nan=False)
            except (TypeError, ValueError) as exc:
                raise _fail(name, check, f"its JSON form ({label} evaluation) is not strict JSON: {exc}") from exc
            if json.loads(text).get("name") != name:
                raise _fail(name, check, f"its JSON form ({label} evaluation) does not name it")
    elif check == "details":
        required, optional = spec.detail_keys()
        allowed = required | optional | (set(EVALUATION_DETAILS) if spec.calibratable else set())
        declared = spec.details.__name__ if spec.details is not None else "no details type"
        for label in _LABELS:
            r = evs[label].results(metrics=[name])[name]
            if not r.computed:
                continue
            keys = set(r.details)
            missing, extra = sorted(required - keys), sorted(keys - allowed)
            if missing or extra:
                what = "; ".join(part for part in (
                    f"lacks the required key(s) {', '.join(missing)}" if missing else "",
                    f"carries the undeclared key(s) {', '.join(extra)}" if extra else "") if part)
                raise _fail(name, check, f"its details ({label} evaluation) {what} (declared: {declared})")
    elif check == "not_computed":
        for label in ("main", "bare", "copy"):
            r = evs[label].results(metrics=[name])[name]
            if r.computed and (r.value is None or r.reason_not_computed is not None or r.level is None):
                raise _fail(name, check, f"computed ({label}) without a value or a level, or with a reason")
            if not r.computed and (r.value is not None or r.level is not None
                                   or not (isinstance(r.reason_not_computed, str) and r.reason_not_computed.strip())):
                raise _fail(name, check, f"not computed ({label}) but with a value or a level, or without a reason")
    elif check == "copy":
        if not spec.copy_sensitive:
            return "copy_sensitive=False in its MetricSpec"
        c = evs["copy"].results(metrics=[name])[name]
        i = evs["independent"].results(metrics=[name])[name]
        for label, r in (("copy", c), ("independent", i)):
            if not r.computed or r.value is None:
                raise _fail(name, check, f"not computed on the {label} set: {r.reason_not_computed}")
        copy_risk = _risk(name, float(c.value if c.value is not None else math.nan))
        indep_risk = _risk(name, float(i.value if i.value is not None else math.nan))
        if copy_risk < 1.0 - COPY_TOLERANCE:
            raise _fail(name, check, f"an exact copy scores {c.value!r}, not within {COPY_TOLERANCE:.0%} of the "
                                     f"risky end of {spec.value_range}")
        if indep_risk > copy_risk - INDEPENDENT_MARGIN:
            raise _fail(name, check, f"independently resampled columns score {i.value!r}, not clearly less risky "
                                     f"than a copy ({c.value!r})")
    else:  # no_search_on_move
        ev = evs["main"]
        ev.results()
        before = ev.search_count
        for move in PARAM_MOVES:
            ev.results(metrics=[name], **move)
        if ev.search_count != before:
            raise _fail(name, check, f"moving the parameters searched again: {ev.searches[before:]}")
    return None


def check_metric(name: str, *, checks: Sequence[str] = CHECKS, data: CheckData | None = None) -> list[str]:
    """Run the invariants of :data:`CHECKS` on a registered metric.

    Parameters
    ----------
    name : str
        A registered metric (the package's or one registered by the caller).
    checks : sequence of str, default every check
    data : CheckData, optional
        Default :func:`demo_data` of this metric alone.

    Returns
    -------
    list of str
        The checks that ran and passed (those that do not apply to the metric are left out).

    Raises
    ------
    MetricCheckError
        At the first invariant the metric breaks.
    """
    data = data if data is not None else demo_data(metrics=(name,))
    return [check for check in checks if run_check(name, check, data) is None]


def metric_check_cases(names: Iterable[str] | None = None, checks: Sequence[str] = CHECKS
                       ) -> list[tuple[str, str]]:
    """Every (metric, check) pair, for a test runner's parametrization (``pytest.mark.parametrize``): one
    failure names its metric and its check."""
    return [(n, c) for n in (metric_names() if names is None else names) for c in checks]


__all__ = ["CHECKS", "CheckData", "MetricCheckError", "PARAM_MOVES", "check_metric", "demo_data", "evaluations",
           "metric_check_cases", "run_check"]
