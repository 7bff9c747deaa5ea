"""``dcr_test`` and ``nndr_test``: the two holdout-referenced tests. D is the drop, in percent, from the holdout
records' distance statistic (closest-record distance, or nearest-to-second-nearest ratio) to the synthetic
records' one; the score is 100 - max(D, 0).

Definition, source and choices: ``docs/metrics.md``, sections "dcr_test" and "nndr_test".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ... import stats
from ...core.formats import fmt_number
from ...core.formats import is_finite_number as finite
from ...core.params import N_BOOTSTRAP, SOURCES
from ...core.registry import (
    Computation,
    Grading,
    LevelSpec,
    MetricSpec,
    Param,
    Presentation,
    ResultJSON,
    TypedDict,
    Words,
    register,
    verdict_alpha,
)
from ...core.results import InconsistentReportError, MetricResult, not_computed, stored_number
from ...spaces import SpaceSpec
from .._shared.arrays import SmallResult, eps_ratio, groups_too_small, space_for
from .._shared.shift import holdout_shift_notes, holdout_shift_requests


@dataclass(frozen=True)
class HoldoutTest(SmallResult):
    """What :func:`holdout_test` finds.

    Attributes
    ----------
    stat_ht : float
        The statistic (mean or median) of the holdout records' values (distances to the training data).
    stat_st : float
        The same statistic of the synthetic records' values.
    D : float or None
        ``100 (stat_ht - stat_st) / stat_ht``, the drop in percent; None when ``stat_ht`` is 0.
    score : float or None
        ``100 - max(D, 0)`` floored at 0, higher is safer; None when ``stat_ht`` is 0.
    band : str or None
        ``"High privacy"`` (D < 10), ``"Medium privacy"`` (10 <= D <= 50) or ``"Low privacy"`` (D > 50); None when
        ``stat_ht`` is 0.
    reason : str or None
        Why ``D`` is undefined, else None.
    """

    stat_ht: float
    stat_st: float
    D: float | None
    score: float | None
    band: str | None
    reason: str | None


def holdout_test(ref_values: ArrayLike, syn_values: ArrayLike, *, statistic: str = "mean") -> HoldoutTest:
    """The holdout-referenced test: D = 100 (stat_HT - stat_ST) / stat_HT; score = 100 - max(D, 0), floored at 0
    (``docs/metrics.md``, sections "dcr_test" and "nndr_test"). Bands: D < 10 High privacy, 10 <= D <= 50 Medium,
    D > 50 Low.

    Parameters
    ----------
    ref_values : array of shape (n_holdout,)
        The holdout records' values (DCR or nearest-neighbour distance ratio to the training data).
    syn_values : array of shape (n_synthetic,)
        The synthetic records' values.
    statistic : {"mean", "median"}, default "mean"
        The statistic compared.

    Returns
    -------
    HoldoutTest
        ``score``, ``D`` and ``band`` are None, with a ``reason``, when stat_HT is 0.

    Examples
    --------
    >>> r = holdout_test([1.0, 1.0], [0.5, 0.5]); r.D, r.score, r.band
    (50.0, 50.0, 'Medium privacy')
    """
    f = np.mean if statistic == "mean" else np.median
    if statistic not in ("mean", "median"):
        raise ValueError(f"statistic must be 'mean' or 'median', got {statistic!r}")
    ht = float(f(np.asarray(ref_values, dtype=np.float64)))
    st = float(f(np.asarray(syn_values, dtype=np.float64)))
    if ht == 0:
        return HoldoutTest(stat_ht=ht, stat_st=st, D=None, score=None, band=None,
                           reason=f"the holdout-to-train {statistic} is 0, so D is undefined")
    d = 100.0 * (ht - st) / ht
    score = max(0.0, 100.0 - max(d, 0.0))
    band = "Low privacy" if d > 50 else ("Medium privacy" if d >= 10 else "High privacy")
    return HoldoutTest(stat_ht=ht, stat_st=st, D=d, score=score, band=band, reason=None)


def nn_ratio(d1: ArrayLike, d2: ArrayLike) -> NDArray[np.float64]:
    """ratio(x) = d1/d2 with the eps convention, and 0 when d1 = 0 (a copy is the riskiest case;
    ``docs/metrics.md``, section "nndr_test").

    >>> [round(v, 9) for v in nn_ratio([0.0, 1.0], [1.0, 2.0]).tolist()]
    [0.0, 0.5]
    """
    d1 = np.asarray(d1, dtype=np.float64)
    r = eps_ratio(d1, d2)
    r[stats.ties(d1, 0.0)] = 0.0
    return r


TEST_STATISTIC = Param("test_statistic", "mean", kind="choice", choices=("mean", "median"),
                       label="statistic of the holdout tests",
                       doc="Whether the holdout tests compare means or medians of the distances.")


def _too_small(ctx: Any) -> str | None:
    """Why a holdout test is not assessed on these sets: its interval resamples the holdout and the synthetic
    records, and each needs :data:`~synthpriv_report.metrics._shared.arrays.MIN_GROUP_RECORDS` records (a holdout of
    one record resamples to itself, and the interval would rest on the synthetic records alone)."""
    return groups_too_small({"holdout": ctx.size(ctx.H), "synthetic": ctx.size(ctx.S)})


def _test_plan(metric: str, k: int) -> Callable[[Any, dict[str, Any]], list[Any]]:
    def plan(ctx: Any, params: dict[str, Any]) -> list[Any]:
        if _too_small(ctx) is not None:
            return []
        sp = space_for(ctx, metric, "euclidean")
        return [ctx.request(sp, ctx.S, ctx.T, k), ctx.request(sp, ctx.H, ctx.T, k), *holdout_shift_requests(ctx)]

    return plan


def _test_result(metric: str, ctx: Any, params: dict[str, Any], ref_vals: ArrayLike, syn_vals: ArrayLike,
                 sp: SpaceSpec, quantity: str) -> MetricResult:
    stat = params["test_statistic"]
    r = holdout_test(ref_vals, syn_vals, statistic=stat)
    if r.score is None:
        return not_computed(metric, r.reason or "", space=sp.label)
    nb = int(params["n_bootstrap"])
    rs = ctx.random_state

    def replicates(values: ArrayLike, role: Any, seed: int | None) -> NDArray[np.float64]:
        # kept on the evaluation: they do not depend on the verdict's false-alarm rate, so the verdict graded at
        # another rate (a comparison's adjusted verdicts) reads only their quantiles again
        kept: NDArray[np.float64] = ctx.memo(
            (f"{metric}.replicates", sp, role, ctx.T, stat, nb, seed),
            lambda: stats.bootstrap_replicates(values, statistic=stat, n_resamples=nb, random_state=seed,
                                               plans=ctx.resample_plans))
        return kept

    rep_h = replicates(ref_vals, ctx.H, rs)
    rep_s = replicates(syn_vals, ctx.S, None if rs is None else rs + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        rep_d = 100.0 * (rep_h - rep_s) / rep_h
    rep_score = np.maximum(0.0, 100.0 - np.maximum(rep_d, 0.0))
    finite_d = rep_d[np.isfinite(rep_d)]
    d_lower = float(np.quantile(finite_d, verdict_alpha())) if finite_d.size else float("nan")
    d_upper = float(np.quantile(finite_d, 1.0 - verdict_alpha())) if finite_d.size else float("nan")
    details = {"statistic": stat, "quantity": quantity, f"{quantity}_HT": r.stat_ht,
               f"{quantity}_ST": r.stat_st, "D": r.D, "band": r.band,
               f"{quantity}_HT_ci": stats.percentile_interval(rep_h),
               f"{quantity}_ST_ci": stats.percentile_interval(rep_s), "D_ci": stats.percentile_interval(rep_d),
               "n_holdout": int(np.size(ref_vals)), "n_synthetic": int(np.size(syn_vals)),
               "D_lower_bound_for_level": d_lower, "D_upper_bound_for_level": d_upper,
               "check_alpha": verdict_alpha(),
               "interval_method": "percentile bootstrap 95%, holdout and synthetic resampled independently"}
    return MetricResult(name=metric, value=r.score, interval=stats.percentile_interval(rep_score),
                        details=details, space=sp.label, notes=holdout_shift_notes(ctx))


def _dcr_test_compute(ctx: Any, params: dict[str, Any]) -> MetricResult:
    sp = space_for(ctx, "dcr_test", "euclidean")
    reason = _too_small(ctx)
    if reason is not None:
        return not_computed("dcr_test", reason, space=sp.label)
    h = ctx.knn(sp, ctx.H, ctx.T, 1).dist[:, 0]
    s = ctx.knn(sp, ctx.S, ctx.T, 1).dist[:, 0]
    return _test_result("dcr_test", ctx, params, h, s, sp, "DCR")


def _nndr_test_compute(ctx: Any, params: dict[str, Any]) -> MetricResult:
    sp = space_for(ctx, "nndr_test", "euclidean")
    if ctx.size(ctx.T) < 2:
        return not_computed("nndr_test", "needs at least 2 real records")
    reason = _too_small(ctx)
    if reason is not None:
        return not_computed("nndr_test", reason, space=sp.label)

    def ratios(query: Any) -> NDArray[np.float64]:  # one set's two columns held at a time, not both sets'
        d = ctx.knn(sp, query, ctx.T, 2).dist
        return nn_ratio(d[:, 0], d[:, 1])

    return _test_result("nndr_test", ctx, params, ratios(ctx.H), ratios(ctx.S), sp, "NNDR")


def _d_sentence(m: ResultJSON, what: str, lower_means: str, ideal: str) -> str:
    details = m.get("details") or {}
    d = details.get("D")
    score = fmt_number(m.get("value"))
    stat = "On average" if str(details.get("statistic") or "mean") == "mean" else "Typically (median)"
    tail = f"score {score} out of 100 (100: {ideal})."
    if not (isinstance(d, (int, float)) and finite(d)):
        return f"The score is {tail}"
    if d > 0:
        return (f"{stat}, the synthetic records' {what} is {fmt_number(d)}% lower than for real records the "
                f"generator never saw{lower_means}: {tail}")
    return (f"{stat}, the synthetic records' {what} is not lower than for real records the generator never saw "
            f"({fmt_number(-d)}% higher): {tail}")


def dcr_test_finding(m: ResultJSON) -> str:
    """What the closest-record distance test found, in one sentence.

    >>> dcr_test_finding({"value": 80.0, "details": {"D": 20.0}})[:70]
    "On average, the synthetic records' distance to their closest training "
    """
    return _d_sentence(m, "distance to their closest training record", ", so they sit closer to real people",
                       "no closer than unseen real records")


def nndr_test_finding(m: ResultJSON) -> str:
    """What the distance-ratio test found, in one sentence.

    >>> nndr_test_finding({"value": 100.0, "details": {"D": -5.0, "statistic": "median"}})[:40]
    'Typically (median), the synthetic record'
    """
    return _d_sentence(m, "ratio of the distances to their nearest and second-nearest training records",
                       ", so more of them sit distinctly close to one single training record",
                       "no different from unseen real records")


def d_graded(m: ResultJSON) -> str | None:
    """The level of both tests is graded on the lower confidence bound of D, not on D itself nor on the score
    shown: the sentence names the bound, and D beside it, so that a reader does not meet two numbers both called D.

    >>> print(d_graded({"level_rule": {"graded": -3.0}, "details": {"D": 1.5}}))  # doctest: +NORMALIZE_WHITESPACE
    Graded on the lower confidence bound of D, the drop from the holdout's distance statistic to the synthetic
    data's (D itself is 1.5%): -3% (negative: the synthetic records are farther than the holdout's).
    """
    graded = (m.get("level_rule") or {}).get("graded")
    if not (isinstance(graded, (int, float)) and finite(graded)):
        return None
    d = (m.get("details") or {}).get("D")
    itself = f" (D itself is {fmt_number(d)}%)" if finite(d) else ""
    sign = " (negative: the synthetic records are farther than the holdout's)" if graded < 0 else ""
    return (f"Graded on the lower confidence bound of D, the drop from the holdout's distance statistic to the "
            f"synthetic data's{itself}: {fmt_number(graded)}%{sign}.")


def d_again(r: MetricResult) -> dict[tuple[Any, ...], float | None]:
    """A holdout test computed again from its stored statistics (its ``LevelSpec.rederive``, for a report read
    back from JSON): D from the two stored distance statistics, the score and the band from D, and the per-check
    level. The lower bound of D its level reads is a quantile of bootstrap replicates a report does not store; it
    is checked to lie at or below the lower end of D's 95% interval (a quantile at a smaller level of the same
    replicates)."""
    d = r.details
    q = str(d.get("quantity") or "")
    ht = stored_number(d, f"{q}_HT", low=0.0)
    st = stored_number(d, f"{q}_ST", low=0.0)
    if ht == 0:
        raise InconsistentReportError("is 0, so D is undefined and the test has no score", ("details", f"{q}_HT"))
    t = holdout_test([ht], [st])  # the test of the two stored statistics: the same D, score and band
    if d.get("band") != t.band:
        raise InconsistentReportError(f"is {d.get('band')!r} but D = {t.D:.6g} gives {t.band!r}", ("details", "band"))
    ci = d.get("D_ci")
    lower = d.get("D_lower_bound_for_level")
    if (finite(lower) and isinstance(ci, (list, tuple)) and len(ci) == 2 and finite(ci[0])
            and lower > ci[0] + 1e-9 * max(1.0, abs(ci[0]))):
        raise InconsistentReportError(f"is {lower!r}, above the lower end of D's 95% interval ({ci[0]!r}): a bound "
                                      f"at a stricter level cannot be higher", ("details", "D_lower_bound_for_level"))
    upper = d.get("D_upper_bound_for_level")
    if (finite(upper) and isinstance(ci, (list, tuple)) and len(ci) == 2 and finite(ci[1])
            and upper < ci[1] - 1e-9 * max(1.0, abs(ci[1]))):
        raise InconsistentReportError(f"is {upper!r}, below the upper end of D's 95% interval ({ci[1]!r}): a bound "
                                      f"at a stricter level cannot be lower", ("details", "D_upper_bound_for_level"))
    return {("details", "D"): t.D, ("value",): t.score, ("details", "check_alpha"): verdict_alpha()}

#: The low band of the holdout tests: a risk is ruled out when D's upper confidence bound at the check's level is at
#: most 20 (synthetic records at most 20% closer to the training data than unseen real records are); the vendor's
#: "high privacy" band (D below 10) is out of reach of this bound at a thousand records.
D_NEGLIGIBLE = 20.0

_D_LEVEL = LevelSpec(
    medium=10.0, high=50.0, direction="higher_is_riskier", inclusive=(True, False), rederive=d_again,
    of=lambda r: r.details.get("D_lower_bound_for_level", r.details.get("D")),
    risky_end=lambda r: r.details.get("D_upper_bound_for_level"), negligible=D_NEGLIGIBLE,
    risky_scale="the upper confidence bound of D",
    scale="the lower confidence bound of D, the drop in percent from the holdout's distance statistic to the "
          "synthetic data's",
    source="the bands of " + SOURCES["betterdata"] + " (a vendor's thresholds, not a regulator's); graded on "
                                   "the lower confidence bound of D (holdout and synthetic records resampled), by "
                                   "this package",
    description="D above {high} beyond chance: low privacy (high risk); D at least {medium} beyond chance: medium "
                "privacy; otherwise high privacy. Beyond chance: the lower end of D's bootstrap confidence "
                "interval (at the level that keeps the verdict's false alarms near 5%) reaches the band")


class DcrTestDetails(TypedDict):
    """The details of ``dcr_test``: the keys its compute function sets."""

    statistic: str
    quantity: str
    DCR_HT: float
    DCR_ST: float
    D: float
    band: str
    DCR_HT_ci: tuple[float, float]
    DCR_ST_ci: tuple[float, float]
    D_ci: tuple[float, float]
    n_holdout: int
    n_synthetic: int
    D_lower_bound_for_level: float
    D_upper_bound_for_level: float
    check_alpha: float
    interval_method: str


class NndrTestDetails(TypedDict):
    """The details of ``nndr_test``: the keys its compute function sets."""

    statistic: str
    quantity: str
    NNDR_HT: float
    NNDR_ST: float
    D: float
    band: str
    NNDR_HT_ci: tuple[float, float]
    NNDR_ST_ci: tuple[float, float]
    D_ci: tuple[float, float]
    n_holdout: int
    n_synthetic: int
    D_lower_bound_for_level: float
    D_upper_bound_for_level: float
    check_alpha: float
    interval_method: str


register(MetricSpec(
    name="dcr_test",
    computation=Computation(
        compute=_dcr_test_compute, plan=_test_plan("dcr_test", 1), needs=("holdout",), default_space="euclidean",
        space_choosable=True, params=(TEST_STATISTIC, N_BOOTSTRAP), details=DcrTestDetails),
    grading=Grading(
        direction="higher_is_safer", value_range=(0.0, 100.0), value_kind="score", level=_D_LEVEL, drives_verdict=True),
    presentation=Presentation(
        title="Closest-record distance test against the holdout", section="2.5", group="holdout",
        summary="How much closer synthetic records are to the training data than holdout records are (100 = no "
                "closer).",
        definition="D is the drop, in percent, from the holdout records' distance-to-closest-training-record "
                   "statistic to the synthetic records' one; the privacy score is 100 - max(D, 0). Bands: D below "
                   "10 high privacy, 10 to 50 medium, above 50 low.",
        words=Words(measures="whether synthetic records are closer to the training data than unseen real records are",
                    high_means="a high score is safe; 100 means synthetic records are no closer than unseen real ones",
                    ideal="100"),
        interval_kind="bootstrap 95% (percentile)", finding=dcr_test_finding, graded_note=d_graded,
        limitation=("it compares a mean or median distance: a small share of copied records among many honest ones may "
                    "not move it beyond chance (the copy checks look for those)")),
))


register(MetricSpec(
    name="nndr_test",
    computation=Computation(
        compute=_nndr_test_compute, plan=_test_plan("nndr_test", 2), needs=("holdout",), default_space="euclidean",
        space_choosable=True, params=(TEST_STATISTIC, N_BOOTSTRAP), details=NndrTestDetails),
    grading=Grading(
        direction="higher_is_safer", value_range=(0.0, 100.0), value_kind="score", level=_D_LEVEL, drives_verdict=True),
    presentation=Presentation(
        title="Distance-ratio test against the holdout", section="2.5", group="holdout",
        summary="Whether synthetic records are more distinctly close to a single training record than holdout "
                "records are (100 = no difference).",
        definition="A record's distance ratio divides its distance to the nearest training record by its distance "
                   "to the second-nearest one (0 for a copy of a training record). D is the drop, in percent, from "
                   "the holdout records' ratio statistic to the synthetic records' one, and the score and bands are "
                   "those of the closest-record distance test.",
        words=Words(measures="whether synthetic records sit distinctly close to one single training record more "
                             "often than unseen real records do",
                    high_means="a high score is safe; 100 means no difference from unseen real records",
                    ideal="100"),
        interval_kind="bootstrap 95% (percentile)", finding=nndr_test_finding, graded_note=d_graded,
        limitation=("it compares a mean or median distance: a small share of copied records among many honest ones may "
                    "not move it beyond chance (the copy checks look for those)")),
))
