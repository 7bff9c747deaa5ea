"""``privacy_score``: the proximity-ratio privacy score, which compares how often synthetic records fall
unusually close to real records with how often real records fall that close to one another (100: no excess).

Definition, source and choices: ``docs/metrics.md``, section "privacy_score".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ... import stats
from ...core import plotting as plot
from ...core.formats import fmt_number, fmt_share
from ...core.formats import is_finite_number as finite
from ...core.params import SOURCES
from ...core.registry import (
    Computation,
    FigureSpec,
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
from ...core.results import InconsistentReportError, MetricResult, not_computed, stored_count, stored_number
from ...data.containers import position_dtype
from ...stats import evidence
from .._shared.arrays import SmallResult, eps_ratio, figure_evidence, space_for


@dataclass(frozen=True)
class ProximityRatioScore(SmallResult):
    """What :func:`proximity_ratio_score` finds.

    Attributes
    ----------
    score : float
        ``100 min(1, f_tt / f_ts)`` (100 when ``f_ts`` is 0); higher is safer, range [0, 100].
    q : float
        The alpha-quantile of the real-to-real proximity ratios (TTPR), linear interpolation.
    f_tt : float
        Share of TTPR at most ``q`` (tie tolerance included).
    f_ts : float
        Share of the real-to-synthetic proximity ratios (TSPR) at most ``q``.
    f_ts_interval : tuple of (float, float)
        Wilson 95% interval of ``f_ts``.
    interval : tuple of (float, float)
        The score at the two ends of ``f_ts_interval``.
    n : int
        Number of TSPR values.
    """

    score: float
    q: float
    f_tt: float
    f_ts: float
    f_ts_interval: tuple[float, float]
    interval: tuple[float, float]
    n: int


def proximity_ratio_score(ttpr: ArrayLike, tspr: ArrayLike, *, alpha: float = 0.1) -> ProximityRatioScore:
    """Proximity-ratio privacy score (``docs/metrics.md``, section "privacy_score").

    ``q`` = alpha-quantile of TTPR (linear interpolation); f_TT = share of TTPR <= q, f_TS = share of TSPR <= q
    (with the tie tolerance of ``docs/metrics.md``, section "Ties, self-matches and nearest records");
    score = 100 min(1, f_TT / f_TS), and 100 when f_TS = 0. Higher is safer, range [0, 100].

    Parameters
    ----------
    ttpr : array of shape (n,)
        Real-to-real proximity ratios of the records of the first real half.
    tspr : array of shape (n,)
        Real-to-synthetic proximity ratios of the same records.
    alpha : float, default 0.1
        The quantile of TTPR that defines "unusually close", in (0, 1).

    Returns
    -------
    ProximityRatioScore

    Examples
    --------
    >>> r = proximity_ratio_score([1.0, 2.0, 3.0, 4.0], [0.5, 0.5, 3.0, 4.0], alpha=0.25)
    >>> r.q, r.f_tt, r.f_ts, r.score
    (1.75, 0.25, 0.5, 50.0)
    """
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    tt = np.asarray(ttpr, dtype=np.float64)
    ts = np.asarray(tspr, dtype=np.float64)
    q = float(np.quantile(tt, alpha))
    f_tt = float(stats.leq(tt, q).mean())
    f_ts = float(stats.leq(ts, q).mean())
    lo_ts, hi_ts = stats.wilson(f_ts, int(ts.size))
    # interval of the score from the Wilson interval of f_TS (f_TT is alpha by construction)
    return ProximityRatioScore(score=score_of(f_tt, f_ts), q=q, f_tt=f_tt, f_ts=f_ts, f_ts_interval=(lo_ts, hi_ts),
                               interval=(score_of(f_tt, hi_ts), score_of(f_tt, lo_ts)), n=int(ts.size))


#: The low band of ``privacy_score``: a risk is ruled out when the score's lower confidence bound at the check's level
#: is at least 50 (synthetic records fall unusually close to real people at most twice as often as real people fall
#: close to each other); the medium band's 90 is out of reach of this bound below tens of thousands of records.
SCORE_NEGLIGIBLE = 50.0


def score_of(f_tt: float, f_ts: float) -> float:
    """The score of the shares f_TT and f_TS: 100 min(1, f_TT / f_TS), and 100 when f_TS = 0.

    >>> score_of(0.1, 0.2), score_of(0.1, 0.0)
    (50.0, 100.0)
    """
    return 100.0 if f_ts == 0 else 100.0 * min(1.0, f_tt / f_ts)


def _ps_sets(ctx: Any) -> tuple[Any, Any, Any]:
    """R1, R2 and S' (``docs/metrics.md``, section "privacy_score"; SetRefs), drawn from
    default_rng(random_state) in the order the definition gives. The halves R1 and R2 depend on the training data
    alone: drawn once, they are shared by the evaluation and its calibration context (which draws its S' from
    the holdout, continuing the same stream of draws)."""

    def halves() -> tuple[Any, Any, Mapping[str, Any]]:
        n_t = ctx.size(ctx.T)
        rng = np.random.default_rng(ctx.random_state)
        perm = rng.permutation(n_t)
        half = n_t // 2
        return (ctx.subset(ctx.T, np.sort(perm[:half]), "privacy_score.R1"),
                ctx.subset(ctx.T, np.sort(perm[half:]), "privacy_score.R2"), rng.bit_generator.state)

    def make() -> tuple[Any, Any, Any]:
        r1, r2, state = ctx.memo(("privacy_score.halves", ctx.random_state), halves)
        rng = np.random.Generator(np.random.PCG64())
        rng.bit_generator.state = state  # the stream continues where the halves left it, as one draw would
        n_s, n_r2 = ctx.size(ctx.S), ctx.size(r2)
        if n_s >= n_r2:
            s_rows = stats.subsample(n_s, n_r2, rng)
        else:
            s_rows = np.arange(n_s)
            r2 = ctx.subset(ctx.T, r2.rows[stats.subsample(n_r2, n_s, rng)], "privacy_score.R2")
        return r1, r2, ctx.subset(ctx.S, s_rows, "privacy_score.S")

    sets: tuple[Any, Any, Any] = ctx.memo(("privacy_score.sets", ctx.S, ctx.random_state), make)
    return sets


def _positions(idx: NDArray[np.integer]) -> NDArray[np.integer]:
    """Neighbour positions as the evaluation keeps them: int32 below 2**31 records (they only group records)."""
    return idx.astype(position_dtype(int(idx.max()) + 1 if idx.size else 0), copy=False)


def privacy_score_arrays(ctx: Any) -> dict[str, Any]:
    """TTPR and TSPR of every record of R1 (``docs/metrics.md``, section "privacy_score"), cached so that alpha
    moves without a search."""
    sp = space_for(ctx, "privacy_score", "gower")

    def make() -> dict[str, Any]:
        r1, r2, s1 = _ps_sets(ctx)

        # shared by the contexts whose halves are the same
        def real_side() -> tuple[NDArray[np.float64], NDArray[np.integer]]:
            t_r2 = ctx.knn(sp, r1, r2, 1)
            return eps_ratio(t_r2.dist[:, 0], ctx.knn(sp, r1, r1, 1).dist[:, 0]), _positions(t_r2.idx[:, 0])

        ttpr, nearest_b = ctx.memo(("privacy_score.real_side", sp, r1, r2), real_side)
        t_s = ctx.knn(sp, r1, s1, 1)
        return {"ttpr": ttpr, "tspr": eps_ratio(t_s.dist[:, 0], ctx.knn(sp, r1, r1, 1).dist[:, 0]),
                "space": sp.label, "nearest_b": nearest_b, "nearest_s": _positions(t_s.idx[:, 0]),
                "sizes": {"half_a": ctx.size(r1), "half_b": ctx.size(r2), "synthetic_sample": ctx.size(s1)}}

    arrays: dict[str, Any] = ctx.memo(("privacy_score.arrays", sp, ctx.S, ctx.random_state), make)
    return arrays


ALPHA = Param("alpha", 0.1, low=0.0, high=1.0, low_open=True, high_open=True, slider=(0.01, 0.5, 0.01),
              label="alpha (privacy score quantile)",
              doc="The quantile of the real-to-real proximity ratios that defines 'unusually close'.")


def _ps_plan(ctx: Any, params: dict[str, Any]) -> list[Any]:
    sp = space_for(ctx, "privacy_score", "gower")
    r1, r2, s1 = _ps_sets(ctx)
    return [ctx.request(sp, r1, r1, 1), ctx.request(sp, r1, r2, 1), ctx.request(sp, r1, s1, 1)]


@dataclass(frozen=True)
class ScoreLevelBound(SmallResult):
    """What :func:`score_level_bound` finds: the bound the level of ``privacy_score`` is read from.

    Attributes
    ----------
    upper_bound_for_level : float
        Upper confidence bound of the score at the verdict's per-check level.
    f_ts_minus_f_tt_lower : float
        Lower confidence bound of f_TS - f_TT at that level.
    lower_bound_for_level : float
        Lower confidence bound of the score at that level (from the upper bound of f_TS - f_TT): the risky end
        that must reach the low band for the risk to be ruled out.
    f_ts_minus_f_tt_upper : float
        Upper confidence bound of f_TS - f_TT at that level.
    check_alpha : float
        The verdict's per-check level.
    """

    upper_bound_for_level: float
    f_ts_minus_f_tt_lower: float
    lower_bound_for_level: float
    f_ts_minus_f_tt_upper: float
    check_alpha: float


def score_level_bound(arrays: dict[str, Any], q: float, f_tt: float) -> ScoreLevelBound:
    """The bound the level of ``privacy_score`` rests on: the score's upper confidence bound at the verdict's
    per-check level, from the lower bound of f_TS - f_TT.

    Both shares are over the same records of the first half, and each is uncertain: f_TT through the second
    half drawn from the training data, f_TS through the synthetic sample. Their difference is bounded with
    the two variances added, each clustered by the record that is nearest (records of the first half that share
    their nearest synthetic, or second-half, record are one group).
    """
    a = stats.leq(arrays["ttpr"], q).astype(np.float64)
    b = stats.leq(arrays["tspr"], q).astype(np.float64)
    d = evidence.difference_bounds(a, arrays["nearest_b"], b, arrays["nearest_s"], alpha=verdict_alpha())
    return ScoreLevelBound(upper_bound_for_level=upper_of(f_tt, d["lower"]), f_ts_minus_f_tt_lower=d["lower"],
                           lower_bound_for_level=upper_of(f_tt, d["upper"]), f_ts_minus_f_tt_upper=d["upper"],
                           check_alpha=verdict_alpha())


def upper_of(f_tt: float, lower: float) -> float:
    """The score's upper bound from f_TT and the lower bound of f_TS - f_TT: 100 min(1, f_TT / (f_TT + lower)),
    and 100 when f_TT or f_TT + lower is not positive (the same function of the upper bound of f_TS - f_TT gives
    the score's lower bound).

    >>> upper_of(0.1, 0.1), upper_of(0.1, -0.2)
    (50.0, 100.0)
    """
    den = f_tt + lower
    return 100.0 if den <= 0 or f_tt <= 0 else 100.0 * min(1.0, f_tt / den)


def score_again(r: MetricResult) -> dict[tuple[Any, ...], float]:
    """``privacy_score`` computed again from its stored shares (its ``LevelSpec.rederive``, for a report read back
    from JSON): f_TT and f_TS are whole numbers of the first half's records, the score and its interval follow
    from them and the Wilson interval of f_TS, and the upper bound the level reads from f_TT and the stored lower
    bound of f_TS - f_TT. That lower bound rests on cluster-robust variances of per-record indicators a report
    does not store: it is checked not to exceed the difference itself."""
    d = r.details
    sizes: Mapping[str, Any] = d["sizes"] if isinstance(d.get("sizes"), Mapping) else {}
    n = stored_count(sizes, "half_a", where=("details", "sizes"))
    if n == 0:
        raise InconsistentReportError("is 0: a share of no records cannot be graded", ("details", "sizes", "half_a"))
    f_tt = stored_number(d, "f_tt", low=0.0, high=1.0)
    f_ts = stored_number(d, "f_ts", low=0.0, high=1.0)
    lower = stored_number(d, "f_ts_minus_f_tt_lower", low=-1.0, high=1.0)
    if lower > f_ts - f_tt + 1e-9:
        raise InconsistentReportError(f"is {lower!r}, above the difference f_ts - f_tt = {f_ts - f_tt!r} it bounds "
                                      f"from below", ("details", "f_ts_minus_f_tt_lower"))
    lo_ts, hi_ts = stats.wilson(f_ts, n)
    extra: dict[tuple[Any, ...], float] = {}
    if "f_ts_minus_f_tt_upper" in d:
        upper = stored_number(d, "f_ts_minus_f_tt_upper", low=-1.0, high=1.0)
        if upper < f_ts - f_tt - 1e-9:
            raise InconsistentReportError(f"is {upper!r}, below the difference f_ts - f_tt = {f_ts - f_tt!r} it "
                                          f"bounds from above", ("details", "f_ts_minus_f_tt_upper"))
        extra[("details", "lower_bound_for_level")] = upper_of(f_tt, upper)
    return {("details", "f_tt"): round(f_tt * n) / n, ("details", "f_ts"): round(f_ts * n) / n,
            ("details", "f_ts_interval", 0): lo_ts, ("details", "f_ts_interval", 1): hi_ts,
            ("value",): score_of(f_tt, f_ts), ("interval", 0): score_of(f_tt, hi_ts),
            ("interval", 1): score_of(f_tt, lo_ts), ("details", "upper_bound_for_level"): upper_of(f_tt, lower),
            ("details", "check_alpha"): verdict_alpha(), **extra}


def privacy_score_evidence(arrays: dict[str, Any], *, alpha: float) -> dict[str, Any]:
    """What the privacy-score figure needs: quantile summaries of TTPR and TSPR and the quantile q with f_TT and
    f_TS at ``alpha``."""
    r = proximity_ratio_score(arrays["ttpr"], arrays["tspr"], alpha=alpha)
    return {"ttpr": stats.quantile_summary(arrays["ttpr"]), "tspr": stats.quantile_summary(arrays["tspr"]),
            "alpha": alpha, "q": r.q, "f_tt": r.f_tt, "f_ts": r.f_ts}


def _ps_compute(ctx: Any, params: dict[str, Any]) -> MetricResult:
    if ctx.size(ctx.T) < 4:
        return not_computed("privacy_score", "needs at least 4 real records (two halves with a neighbour each)")
    a = privacy_score_arrays(ctx)
    alpha = float(params["alpha"])
    r = proximity_ratio_score(a["ttpr"], a["tspr"], alpha=alpha)
    details = {"alpha": alpha, "q": r.q, "f_tt": r.f_tt, "f_ts": r.f_ts,
               "f_ts_interval": r.f_ts_interval, "sizes": a["sizes"],
               **score_level_bound(a, r.q, r.f_tt).to_dict(),
               "note": "even a synthetic set equal to the training data cannot score 0: the synthetic half holds "
                       "only about half of the first real half's copies",
               "interval_method": "the score at the two ends of the Wilson 95% interval of the share of "
                                  "train-to-synthetic ratios at most q"}
    return MetricResult(name="privacy_score", value=r.score, interval=r.interval, details=details,
                        space=a["space"], evidence=privacy_score_evidence(a, alpha=alpha))


def plot_privacy_score(data: Any, *, ax: Any = None, alpha: float | None = None) -> Any:
    """TTPR against TSPR as empirical CDFs with the alpha-quantile line.

    Parameters
    ----------
    data : MetricResult or mapping
        The ``privacy_score`` result, or :func:`privacy_score_arrays` (``"ttpr"``, ``"tspr"``).
    ax : matplotlib Axes, optional
    alpha : float, optional
        Quantile level when arrays are given (default 0.1); a result carries its own.

    Returns
    -------
    matplotlib Axes
        q = alpha-quantile of TTPR (vertical line), the horizontal line at alpha, and f_TS where the TSPR curve
        crosses q. A TSPR curve above the TTPR curve at q is risky. The x axis runs from 0 to where the ratios
        end (:func:`~synthpriv_report.core.plotting.quantile_top`), q always in view.
    """
    a = 0.1 if alpha is None else float(alpha)
    ev = figure_evidence(data, lambda arr: privacy_score_evidence(arr, alpha=a))
    ax = plot.new_ax(ax)
    if not ev:
        return plot.empty(ax, "privacy score evidence not available (the metric was not computed)")
    a, q = float(ev["alpha"]), float(ev["q"])
    plot.ecdf(ax, ev["ttpr"], color=plot.COLORS["T"], lw=1.6,
              label="train-to-train ratio (TTPR): half A → half B")
    plot.ecdf(ax, ev["tspr"], color=plot.COLORS["S"], lw=1.6,
              label="train-to-synthetic ratio (TSPR): half A → synthetic")
    ax.axvline(q, color=plot.COLORS["line"], ls="--", lw=1.2, label=f"q = {a:g}-quantile of TTPR = {q:.3g}")
    ax.axhline(a, color=plot.COLORS["line"], ls=":", lw=1.0, label=f"α = {a:g}")
    ax.plot([q], [ev["f_ts"]], "o", color=plot.COLORS["S"], ms=5,
            label=f"TSPR at most q: {ev['f_ts']:.1%} (TTPR: {ev['f_tt']:.1%})")
    # x: from 0 to where the ratios end (95% of each set), q in view; y: the whole [0, 1] of a share, with room
    # for the point at f_TS when it is 0 or 1
    tops = [plot.quantile_top(ev[key]) for key in ("ttpr", "tspr")]
    plot.fit_axis(ax, [0.0, q, *tops], low=0.0)
    plot.fit_axis(ax, [0.0, 1.0], axis="y")
    ax.set_xlabel("proximity ratio (distance / distance to own nearest real neighbour)")
    ax.set_ylabel("cumulative share of train records")
    ax.set_title("Proximity ratios: TTPR vs TSPR")
    ax.legend(fontsize=8, loc="lower right")
    return ax


def privacy_score_finding(m: ResultJSON) -> str:
    """What the privacy score found, in one sentence.

    >>> privacy_score_finding({"value": 47.6, "details": {"f_ts": 0.21, "f_tt": 0.1}})[:60]
    'The privacy score is 47.6 out of 100: 21% of the real record'
    """
    v = m.get("value")
    details = m.get("details") or {}
    f_ts, f_tt = details.get("f_ts"), details.get("f_tt")
    if finite(f_ts) and finite(f_tt):
        return (f"The privacy score is {fmt_number(v)} out of 100: {fmt_share(f_ts)} of the real records have "
                f"a synthetic record unusually close to them, against {fmt_share(f_tt)} with another real "
                f"record that close (100: no excess closeness).")
    return f"The privacy score is {fmt_number(v)} out of 100 (100: no excess closeness)."


class PrivacyScoreDetails(TypedDict):
    """The details of ``privacy_score``: the keys its compute function sets."""

    alpha: float
    q: float
    f_tt: float
    f_ts: float
    f_ts_interval: tuple[float, float]
    sizes: dict[str, int]
    upper_bound_for_level: float
    f_ts_minus_f_tt_lower: float
    lower_bound_for_level: float
    f_ts_minus_f_tt_upper: float
    check_alpha: float
    note: str
    interval_method: str


register(MetricSpec(
    name="privacy_score",
    computation=Computation(
        compute=_ps_compute, plan=_ps_plan, default_space="gower", space_choosable=True, params=(ALPHA,),
        calibratable=True,
        row_order="R1 and R2 are a random permutation of the training records' positions (docs/metrics.md, "
                  "privacy_score)",
        details=PrivacyScoreDetails),
    grading=Grading(
        direction="higher_is_safer", value_range=(0.0, 100.0), value_kind="score",
        level=LevelSpec(medium=90.0, high=50.0, source="package default, after " + SOURCES["aindo"], same_scale=True,
                        rederive=score_again,
                        of=lambda r: r.details.get("upper_bound_for_level", r.value),
                        risky_end=lambda r: r.details.get("lower_bound_for_level"), negligible=SCORE_NEGLIGIBLE,
                        risky_scale="the lower confidence bound of the score",
                        scale="the upper confidence bound of the score",
                        description="high when the score is below {high} beyond chance, medium when below {medium} "
                                    "beyond chance: the upper end of its confidence interval (both halves' "
                                    "uncertainty counted, at the level that keeps the verdict's false alarms near 5%) "
                                    "is below the threshold"),
        drives_verdict=True),
    presentation=Presentation(
        title="Proximity-ratio privacy score", section="2.3", group="closeness",
        summary="Compares how often synthetic records fall unusually close to real records with how often real "
                "records do; 100 means no excess closeness.",
        definition="The real training records are split at random into two halves, A and B. For each record of A, "
                   "its distance to the nearest record of B and its distance to the nearest synthetic record are "
                   "each divided by its distance to the nearest other record of A: the train-to-train and "
                   "train-to-synthetic proximity ratios. The score is 100 times the share of train-to-train ratios "
                   "below their alpha-quantile divided by the share of train-to-synthetic ratios below that same "
                   "value, capped at 100.",
        words=Words(measures="how often synthetic records fall unusually close to real people, compared with how "
                             "often real people fall close to each other",
                    high_means="a high score is safe; 100 means no excess closeness",
                    ideal="100"),
        interval_kind="Wilson 95% (the score at the two ends of the Wilson interval of the share of real records with "
                      "a synthetic record unusually close)",
        figures=(FigureSpec(lambda r, a: plot_privacy_score(r, ax=a),
                            "Proximity ratios of real records to other real records (TTPR) and to synthetic records "
                            "(TSPR), with the alpha-quantile"),),
        finding=privacy_score_finding,
        limitation=("it counts synthetic records unusually close to real people as a share: a small share of copied "
                    "records among many honest ones may not move it beyond chance (the copy checks look for those)")),
))
