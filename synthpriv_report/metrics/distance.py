"""Distance metrics from the practitioner seeds (spec section 2).

Each metric is a pure function over per-record distance arrays plus an adapter that reads the arrays from the
evaluation's neighbour cache. The ``*_arrays`` helpers are public so that figures and per-record views can read
the same cached arrays without a new search.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import stats
from ..params import grade, level_rule, thresholds
from ..registry import MetricSpec, register
from ..results import MetricResult, not_computed
from ..spaces import SPACE_DESCRIPTIONS, SpaceSpec

EPS = 1e-12


def _ratio(a: ArrayLike, b: ArrayLike) -> NDArray[np.float64]:
    """(a + eps) / (b + eps), the ratio convention of spec section 0."""
    return (np.asarray(a, dtype=np.float64) + EPS) / (np.asarray(b, dtype=np.float64) + EPS)


# ---------------------------------------------------------------------------------------------------------------
# pure functions


def dcr_histogram(dcr: ArrayLike, *, gower: bool, bins: int = 20, upper: float | None = None) -> dict[str, list]:
    """Histogram of DCR values: 20 equal-width bins on [0, 1] for gower, on [0, max] otherwise (spec 2.1).

    >>> dcr_histogram([0.0, 0.5, 1.0], gower=True, bins=2)
    {'edges': [0.0, 0.5, 1.0], 'counts': [1, 2]}
    """
    v = np.asarray(dcr, dtype=np.float64)
    v = v[np.isfinite(v)]
    hi = 1.0 if gower else float(upper if upper is not None else (v.max() if v.size else 1.0))
    if hi <= 0:
        hi = 1.0
    counts, edges = np.histogram(v, bins=bins, range=(0.0, hi))
    return {"edges": edges.tolist(), "counts": counts.astype(int).tolist()}


def exact_copy_share(is_copy: ArrayLike) -> tuple[float, tuple[float, float]]:
    """Share of records with an identical real record, with its Wilson interval (spec 2.1).

    >>> exact_copy_share([True, False, False, True])[0]
    0.5
    """
    c = np.asarray(is_copy, dtype=bool)
    share = float(c.mean()) if c.size else float("nan")
    return share, stats.wilson(share, int(c.size))


def holdout_dcr_share(dcr_train: ArrayLike, dcr_holdout: ArrayLike) -> dict[str, Any]:
    """Share of synthetic records closer to train than to holdout, ties counted one half (spec 2.2).

    Parameters
    ----------
    dcr_train, dcr_holdout : array of shape (n_synthetic,)
        DCR(s, T) and DCR(s, H) (on equal-sized real sets).

    Returns
    -------
    dict
        ``share``, ``wins``, ``ties``, ``n``, ``interval`` (Wilson), ``k`` = round-half-up(wins + ties/2) and
        ``p_value`` (exact one-sided binomial test of k successes in n trials against 0.5).

    >>> r = holdout_dcr_share([0.1, 0.2, 0.3, 0.4], [0.2, 0.2, 0.1, 0.5])
    >>> r["share"], r["wins"], r["ties"], r["k"]
    (0.625, 2, 1, 3)
    """
    share, wins, nties, n = stats.win_share(dcr_train, dcr_holdout)
    k = stats.round_half_up(wins + 0.5 * nties)
    return {
        "share": share, "wins": wins, "ties": nties, "n": n, "interval": stats.wilson(share, n), "k": k,
        "p_value": stats.binomial_p_greater(k, n, 0.5),
    }


def proximity_ratio_score(ttpr: ArrayLike, tspr: ArrayLike, *, alpha: float = 0.1) -> dict[str, Any]:
    """Proximity-ratio privacy score (spec 2.3, seed 000).

    ``q`` = alpha-quantile of TTPR (linear interpolation); f_TT = share of TTPR <= q, f_TS = share of TSPR <= q
    (tie rule of spec 0); score = 100 min(1, f_TT / f_TS), and 100 when f_TS = 0. Higher is safer, range
    [0, 100].

    >>> r = proximity_ratio_score([1.0, 2.0, 3.0, 4.0], [0.5, 0.5, 3.0, 4.0], alpha=0.25)
    >>> r["q"], r["f_tt"], r["f_ts"], r["score"]
    (1.75, 0.25, 0.5, 50.0)
    """
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    tt = np.asarray(ttpr, dtype=np.float64)
    ts = np.asarray(tspr, dtype=np.float64)
    q = float(np.quantile(tt, alpha))
    f_tt = float(stats.leq(tt, q).mean())
    f_ts = float(stats.leq(ts, q).mean())
    score = 100.0 if f_ts == 0 else 100.0 * min(1.0, f_tt / f_ts)
    lo_ts, hi_ts = stats.wilson(f_ts, int(ts.size))
    # interval of the score from the Wilson interval of f_TS (f_TT is alpha by construction)
    s_lo = 100.0 if hi_ts == 0 else 100.0 * min(1.0, f_tt / hi_ts)
    s_hi = 100.0 if lo_ts == 0 else 100.0 * min(1.0, f_tt / lo_ts)
    return {"score": score, "q": q, "f_tt": f_tt, "f_ts": f_ts, "f_ts_interval": (lo_ts, hi_ts),
            "interval": (s_lo, s_hi), "n": int(ts.size)}


def nndr_values(dcr: ArrayLike, nearest: ArrayLike, real_knn_dist: ArrayLike) -> NDArray[np.float64]:
    """NNDR(s) = DCR(s, T) / mean distance of t* to its k nearest records of T \\ t* (spec 2.4).

    Parameters
    ----------
    dcr : array (n,)
        DCR(s, T).
    nearest : int array (n,)
        Position of t*, the nearest record of s in T.
    real_knn_dist : array (|T|, k)
        Distances of each t to its k nearest records of T \\ t.

    >>> [round(float(v), 9) for v in nndr_values([0.1, 0.0], [0, 1], np.array([[0.2, 0.4], [0.1, 0.1]]))]
    [0.333333333, 0.0]
    """
    denom = np.asarray(real_knn_dist, dtype=np.float64).mean(axis=1)[np.asarray(nearest, dtype=np.int64)]
    return _ratio(dcr, denom)


def holdout_test(ref_values: ArrayLike, syn_values: ArrayLike, *, statistic: str = "mean") -> dict[str, Any]:
    """Seed 004's holdout-referenced test: D = 100 (stat_HT - stat_ST) / stat_HT; score = 100 - max(D, 0),
    floored at 0 (spec 2.5). Bands: D < 10 High privacy, 10 <= D <= 50 Medium, D > 50 Low.

    Returns ``None`` for ``score`` with a ``reason`` when stat_HT is 0.

    >>> r = holdout_test([1.0, 1.0], [0.5, 0.5]); r["D"], r["score"], r["band"]
    (50.0, 50.0, 'Medium privacy')
    """
    f = np.mean if statistic == "mean" else np.median
    if statistic not in ("mean", "median"):
        raise ValueError(f"statistic must be 'mean' or 'median', got {statistic!r}")
    ht = float(f(np.asarray(ref_values, dtype=np.float64)))
    st = float(f(np.asarray(syn_values, dtype=np.float64)))
    if ht == 0:
        return {"stat_ht": ht, "stat_st": st, "D": None, "score": None, "band": None,
                "reason": f"the holdout-to-train {statistic} is 0, so D is undefined"}
    d = 100.0 * (ht - st) / ht
    score = max(0.0, 100.0 - max(d, 0.0))
    band = "Low privacy" if d > 50 else ("Medium privacy" if d >= 10 else "High privacy")
    return {"stat_ht": ht, "stat_st": st, "D": d, "score": score, "band": band, "reason": None}


def nn_ratio(d1: ArrayLike, d2: ArrayLike) -> NDArray[np.float64]:
    """ratio(x) = d1/d2 with the eps convention, and 0 when d1 = 0 (a copy is the riskiest case; spec 2.5).

    >>> [round(v, 9) for v in nn_ratio([0.0, 1.0], [1.0, 2.0]).tolist()]
    [0.0, 0.5]
    """
    d1 = np.asarray(d1, dtype=np.float64)
    r = _ratio(d1, d2)
    r[stats.ties(d1, 0.0)] = 0.0
    return r


# ---------------------------------------------------------------------------------------------------------------
# cached arrays (public: figures and per-record views read these)


def _space(ctx: Any, metric: str, default: str) -> SpaceSpec:
    return ctx.metric_space(metric, default)


def dcr_arrays(ctx: Any, space: SpaceSpec | None = None) -> dict[str, Any]:
    """DCR(s, T) ("S"), DCR(h, T) ("H", with a holdout), DCR(t, T \\ t) ("T"), the exact-copy flags of S
    ("copies"), the nearest real position of each s ("nearest") and the space label ("space").

    Reads the cached k=1 tables; only the first call of an evaluation searches.
    """
    sp = space or _space(ctx, "dcr", "gower")
    out: dict[str, Any] = {"space": sp.label, "gower": sp.kind == "gower"}
    st = ctx.knn(sp, ctx.S, ctx.T, 1)
    out["S"] = st.dist[:, 0]
    out["nearest"] = st.idx[:, 0]
    out["T"] = ctx.knn(sp, ctx.T, ctx.T, 1).dist[:, 0]
    if ctx.H is not None:
        out["H"] = ctx.knn(sp, ctx.H, ctx.T, 1).dist[:, 0]
        out["H_copies"] = ctx.identical_in(ctx.H, ctx.T)
    out["copies"] = ctx.identical_in(ctx.S, ctx.T)
    return out


def _ps_sets(ctx: Any):
    """R1, R2 and S' of spec 2.3 (SetRefs), drawn from default_rng(random_state) in the spec's order."""

    def make():
        n_t = ctx.size(ctx.T)
        rng = np.random.default_rng(ctx.random_state)
        perm = rng.permutation(n_t)
        half = n_t // 2
        r1 = np.sort(perm[:half])
        r2 = np.sort(perm[half:])
        n_s = ctx.size(ctx.S)
        if n_s >= r2.size:
            s_rows = stats.subsample(n_s, r2.size, rng)
        else:
            s_rows = np.arange(n_s)
            r2 = r2[stats.subsample(r2.size, n_s, rng)]
        return (ctx.subset(ctx.T, r1, "privacy_score.R1"), ctx.subset(ctx.T, r2, "privacy_score.R2"),
                ctx.subset(ctx.S, s_rows, "privacy_score.S"))

    return ctx.memo(("privacy_score.sets", ctx.S, ctx.random_state), make)


def privacy_score_arrays(ctx: Any) -> dict[str, Any]:
    """TTPR and TSPR of every record of R1 (spec 2.3), cached so that alpha moves without a search."""
    sp = _space(ctx, "privacy_score", "gower")

    def make():
        r1, r2, s1 = _ps_sets(ctx)
        d2 = ctx.knn(sp, r1, r1, 1).dist[:, 0]
        to_r2 = ctx.knn(sp, r1, r2, 1).dist[:, 0]
        to_s = ctx.knn(sp, r1, s1, 1).dist[:, 0]
        return {"ttpr": _ratio(to_r2, d2), "tspr": _ratio(to_s, d2), "space": sp.label,
                "sizes": {"R1": ctx.size(r1), "R2": ctx.size(r2), "S'": ctx.size(s1)}}

    return ctx.memo(("privacy_score.arrays", sp, ctx.S, ctx.random_state), make)


def nndr_arrays(ctx: Any) -> dict[str, Any]:
    """NNDR per synthetic record ("S") and per holdout record ("H", with a holdout) (spec 2.4)."""
    sp = _space(ctx, "nndr", "gower")
    k = ctx.settings["nndr_k"]

    def make():
        real = ctx.knn(sp, ctx.T, ctx.T, k).dist
        out = {"space": sp.label, "k": k}
        st = ctx.knn(sp, ctx.S, ctx.T, 1)
        out["S"] = nndr_values(st.dist[:, 0], st.idx[:, 0], real)
        if ctx.H is not None:
            ht = ctx.knn(sp, ctx.H, ctx.T, 1)
            out["H"] = nndr_values(ht.dist[:, 0], ht.idx[:, 0], real)
        return out

    return ctx.memo(("nndr.arrays", sp, k, ctx.S, ctx.H), make)


def _holdout_share_sets(ctx: Any):
    """Equal-sized real sets for spec 2.2: a random subsample of the larger one (default_rng(random_state))."""

    def make():
        n_t, n_h = ctx.size(ctx.T), ctx.size(ctx.H)
        t_ref, h_ref = ctx.full(ctx.T), ctx.full(ctx.H)
        if n_t != n_h:
            rng = np.random.default_rng(ctx.random_state)
            if n_t > n_h:
                t_ref = ctx.subset(ctx.T, stats.subsample(n_t, n_h, rng), "holdout_dcr_share.T")
            else:
                h_ref = ctx.subset(ctx.H, stats.subsample(n_h, n_t, rng), "holdout_dcr_share.H")
        return t_ref, h_ref

    return ctx.memo(("holdout_dcr_share.sets", ctx.random_state), make)


# ---------------------------------------------------------------------------------------------------------------
# adapters


def _boot(values: NDArray[np.float64], ctx: Any, params: dict[str, Any]) -> dict[str, tuple[float, float]]:
    return stats.bootstrap_stats(values, n_resamples=int(params["n_bootstrap"]), random_state=ctx.random_state,
                                 quantiles=(0.5, 0.05))


def _describe(values: NDArray[np.float64], ctx: Any, params: dict[str, Any], key: str) -> dict[str, Any]:
    """Summary statistics with bootstrap intervals, cached per array so that slider moves stay cheap."""

    def make():
        s = stats.summary(values)
        ci = _boot(values, ctx, params)
        s.update({"mean_ci": ci["mean"], "median_ci": ci["q0.5"], "p5_ci": ci["q0.05"]})
        return s

    return ctx.memo(("describe", key, ctx.S, ctx.H, int(params["n_bootstrap"]), ctx.random_state), make)


def _dcr_plan(ctx, params):
    sp = _space(ctx, "dcr", "gower")
    reqs = [ctx.request(sp, ctx.S, ctx.T, 1), ctx.request(sp, ctx.T, ctx.T, 1)]
    if ctx.H is not None:
        reqs.append(ctx.request(sp, ctx.H, ctx.T, 1))
    return reqs


def _dcr_compute(ctx, params) -> MetricResult:
    a = dcr_arrays(ctx)
    s = _describe(a["S"], ctx, params, "dcr." + a["space"])
    gower = a["gower"]
    upper = max(float(np.max(a["S"])), float(np.max(a["T"])), float(np.max(a["H"])) if "H" in a else 0.0)
    details: dict[str, Any] = {
        "mean": s["mean"], "median": s["median"], "p5": s["p5"], "mean_ci": s["mean_ci"],
        "p5_ci": s["p5_ci"], "n": s["n"],
        "histogram": dcr_histogram(a["S"], gower=gower, upper=upper),
        "exact_copy_share": float(a["copies"].mean()),
        "baseline_within_real": {**{k: v for k, v in stats.summary(a["T"]).items()},
                                 "histogram": dcr_histogram(a["T"], gower=gower, upper=upper)},
    }
    baseline = "within-real (T to T \\ t)"
    base_median = details["baseline_within_real"]["median"]
    if "H" in a:
        hs = stats.summary(a["H"])
        details["baseline_holdout"] = {**hs, "histogram": dcr_histogram(a["H"], gower=gower, upper=upper),
                                       "exact_copy_share": float(a["H_copies"].mean())}
        baseline = "holdout to train (H to T)"
        base_median = hs["median"]
    t = thresholds("dcr", params.get("levels"))
    # both medians 0: S is exactly as close to T as the baseline is (ratio 1); only the baseline 0: safe side
    ratio = s["median"] / base_median if base_median > 0 else (1.0 if s["median"] == 0 else float("inf"))
    details["ratio_to_baseline"] = ratio
    details["baseline"] = baseline
    level = grade(ratio, "higher_is_safer", medium=t["medium"], high=t["high"])
    return MetricResult(name="dcr", value=s["median"], interval=s["median_ci"], level=level, details=details,
                        space=a["space"], level_rule=level_rule("dcr", params.get("levels")))


def _copies_compute(ctx, params) -> MetricResult:
    copies = ctx.identical_in(ctx.S, ctx.T)
    share, interval = exact_copy_share(copies)
    details: dict[str, Any] = {"n_copies": int(copies.sum()), "n": int(copies.size),
                               "distinct_real_records_copied": int(np.unique(ctx.record_ids(ctx.S)[copies]).size)}
    rule = level_rule("exact_copies", params.get("levels"))
    if ctx.H is not None:
        h_copies = ctx.identical_in(ctx.H, ctx.T)
        base = float(h_copies.mean())
        details["holdout_copy_share"] = base
        details["holdout_copy_interval"] = stats.wilson(base, int(h_copies.size))
        if interval[0] > base:
            level = "high"
        elif share > base:
            level = "medium"
        else:
            level = "low"
    else:
        level = "high" if copies.any() else "low"
    return MetricResult(name="exact_copies", value=share, interval=interval, level=level, details=details,
                        level_rule=rule)


def _share_plan(ctx, params):
    sp = _space(ctx, "holdout_dcr_share", "gower")
    t_ref, h_ref = _holdout_share_sets(ctx)
    return [ctx.request(sp, ctx.S, t_ref, 1), ctx.request(sp, ctx.S, h_ref, 1)]


def _share_compute(ctx, params) -> MetricResult:
    sp = _space(ctx, "holdout_dcr_share", "gower")
    t_ref, h_ref = _holdout_share_sets(ctx)
    d_t = ctx.knn(sp, ctx.S, t_ref, 1).dist[:, 0]
    d_h = ctx.knn(sp, ctx.S, h_ref, 1).dist[:, 0]
    r = holdout_dcr_share(d_t, d_h)
    t = thresholds("holdout_dcr_share", params.get("levels"))
    level = grade(r["interval"][0], "higher_is_riskier", medium=t["medium"], high=t["high"])
    details = {k: r[k] for k in ("wins", "ties", "n", "k", "p_value")}
    details["real_sizes_used"] = {"T": ctx.size(t_ref), "H": ctx.size(h_ref)}
    details["subsampled"] = "T" if t_ref.rows is not None else ("H" if h_ref.rows is not None else None)
    return MetricResult(name="holdout_dcr_share", value=r["share"], interval=r["interval"], level=level,
                        details=details, space=sp.label, level_rule=level_rule("holdout_dcr_share",
                                                                                params.get("levels")))


def _ps_plan(ctx, params):
    sp = _space(ctx, "privacy_score", "gower")
    r1, r2, s1 = _ps_sets(ctx)
    return [ctx.request(sp, r1, r1, 1), ctx.request(sp, r1, r2, 1), ctx.request(sp, r1, s1, 1)]


def _ps_compute(ctx, params) -> MetricResult:
    if ctx.size(ctx.T) < 4:
        return not_computed("privacy_score", "needs at least 4 real records (two halves with a neighbour each)")
    a = privacy_score_arrays(ctx)
    r = proximity_ratio_score(a["ttpr"], a["tspr"], alpha=float(params["alpha"]))
    t = thresholds("privacy_score", params.get("levels"))
    level = grade(r["score"], "higher_is_safer", medium=t["medium"], high=t["high"])
    details = {"alpha": float(params["alpha"]), "q": r["q"], "f_tt": r["f_tt"], "f_ts": r["f_ts"],
               "f_ts_interval": r["f_ts_interval"], "sizes": a["sizes"],
               "note": "even S = T cannot score 0: S' holds only about half of R1's copies (spec 2.3)",
               "interval_method": "score at the Wilson interval of f_TS"}
    return MetricResult(name="privacy_score", value=r["score"], interval=r["interval"], level=level,
                        details=details, space=a["space"], level_rule=level_rule("privacy_score",
                                                                                  params.get("levels")))


def _nndr_plan(ctx, params):
    sp = _space(ctx, "nndr", "gower")
    reqs = [ctx.request(sp, ctx.T, ctx.T, ctx.settings["nndr_k"]), ctx.request(sp, ctx.S, ctx.T, 1)]
    if ctx.H is not None:
        reqs.append(ctx.request(sp, ctx.H, ctx.T, 1))
    return reqs


def _nndr_compute(ctx, params) -> MetricResult:
    k = ctx.settings["nndr_k"]
    if ctx.size(ctx.T) <= k:
        return not_computed("nndr", f"needs more than nndr_k={k} real records")
    a = nndr_arrays(ctx)
    thr = float(params["nndr_threshold"])
    below = stats.less(a["S"], thr)
    share = float(below.mean())
    interval = stats.wilson(share, int(below.size))
    s = _describe(a["S"], ctx, params, "nndr." + a["space"])
    details: dict[str, Any] = {"threshold": thr, "k": k, "mean": s["mean"], "median": s["median"], "p5": s["p5"],
                               "mean_ci": s["mean_ci"], "median_ci": s["median_ci"], "n_below": int(below.sum()),
                               "n": int(below.size)}
    excess = share
    if "H" in a:
        h_share = float(stats.less(a["H"], thr).mean())
        details["holdout_share"] = h_share
        details["holdout_interval"] = stats.wilson(h_share, int(a["H"].size))
        excess = share - h_share
    details["excess_over_holdout"] = excess if "H" in a else None
    t = thresholds("nndr", params.get("levels"))
    level = grade(excess, "higher_is_riskier", medium=t["medium"], high=t["high"])
    return MetricResult(name="nndr", value=share, interval=interval, level=level, details=details,
                        space=a["space"], level_rule=level_rule("nndr", params.get("levels")))


def _test_plan(metric: str, k: int):
    def plan(ctx, params):
        sp = _space(ctx, metric, "euclidean")
        return [ctx.request(sp, ctx.S, ctx.T, k), ctx.request(sp, ctx.H, ctx.T, k)]

    return plan


def _test_result(metric: str, ctx, params, ref_vals, syn_vals, sp: SpaceSpec, quantity: str) -> MetricResult:
    stat = params["test_statistic"]
    r = holdout_test(ref_vals, syn_vals, statistic=stat)
    if r["score"] is None:
        return not_computed(metric, r["reason"], space=sp.label)
    nb = int(params["n_bootstrap"])
    rep_h = stats.bootstrap_replicates(ref_vals, statistic=stat, n_resamples=nb, random_state=ctx.random_state)
    rep_s = stats.bootstrap_replicates(syn_vals, statistic=stat, n_resamples=nb,
                                       random_state=None if ctx.random_state is None else ctx.random_state + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        rep_d = 100.0 * (rep_h - rep_s) / rep_h
    rep_score = np.maximum(0.0, 100.0 - np.maximum(rep_d, 0.0))
    t = thresholds(metric, params.get("levels"))
    d = r["D"]
    level = "high" if d > t["high"] else ("medium" if d >= t["medium"] else "low")
    details = {"statistic": stat, "quantity": quantity, f"{quantity}_HT": r["stat_ht"],
               f"{quantity}_ST": r["stat_st"], "D": d, "band": r["band"],
               f"{quantity}_HT_ci": stats.percentile_interval(rep_h),
               f"{quantity}_ST_ci": stats.percentile_interval(rep_s), "D_ci": stats.percentile_interval(rep_d),
               "n_holdout": int(np.size(ref_vals)), "n_synthetic": int(np.size(syn_vals)),
               "interval_method": "percentile bootstrap, H and S resampled independently"}
    return MetricResult(name=metric, value=r["score"], interval=stats.percentile_interval(rep_score), level=level,
                        details=details, space=sp.label, level_rule=level_rule(metric, params.get("levels")))


def _dcr_test_compute(ctx, params) -> MetricResult:
    sp = _space(ctx, "dcr_test", "euclidean")
    h = ctx.knn(sp, ctx.H, ctx.T, 1).dist[:, 0]
    s = ctx.knn(sp, ctx.S, ctx.T, 1).dist[:, 0]
    return _test_result("dcr_test", ctx, params, h, s, sp, "DCR")


def _nndr_test_compute(ctx, params) -> MetricResult:
    sp = _space(ctx, "nndr_test", "euclidean")
    if ctx.size(ctx.T) < 2:
        return not_computed("nndr_test", "needs at least 2 real records")
    h = ctx.knn(sp, ctx.H, ctx.T, 2).dist
    s = ctx.knn(sp, ctx.S, ctx.T, 2).dist
    return _test_result("nndr_test", ctx, params, nn_ratio(h[:, 0], h[:, 1]), nn_ratio(s[:, 0], s[:, 1]), sp,
                        "NNDR")


# ---------------------------------------------------------------------------------------------------------------
# registration (report order)

register(MetricSpec(
    name="dcr", title="Distance to closest record", section="2.1", group="closeness",
    direction="higher_is_safer", value_range=(0.0, float("inf")), compute=_dcr_compute, plan=_dcr_plan,
    default_space="gower", space_choosable=True, params=("n_bootstrap",), calibratable=True,
    summary="Median distance from each synthetic record to its closest real training record; compare it with "
            "the same distance for fresh real (holdout) records.",
    definition="DCR(s, T) is the distance from a synthetic record to its nearest real training record. The "
               "distribution is compared with holdout-to-train and within-real distances; a synthetic set much "
               "closer to T than fresh real data is suspicious.",
))
register(MetricSpec(
    name="exact_copies", title="Exact copies", section="2.1", group="closeness",
    direction="higher_is_riskier", value_range=(0.0, 1.0), compute=_copies_compute, calibratable=True,
    copy_sensitive=True,
    summary="Share of synthetic records that are identical to a real training record.",
    definition="The share of synthetic records with an identical record (every column equal) in the real "
               "training data. Its baseline is the share of holdout records that coincide with a training record.",
))
register(MetricSpec(
    name="holdout_dcr_share", title="Closer to train than to holdout", section="2.2", group="holdout",
    direction="higher_is_riskier", value_range=(0.0, 1.0), compute=_share_compute, plan=_share_plan,
    needs=("holdout",), default_space="gower", space_choosable=True, copy_sensitive=True,
    summary="Share of synthetic records closer to a training record than to any holdout record; 50% is ideal.",
    definition="For each synthetic record, is its nearest training record closer than its nearest holdout "
               "record (ties count one half)? A generator that learned the population and not the individuals "
               "gives about 50% on equal-sized real sets.",
))
register(MetricSpec(
    name="privacy_score", title="Proximity-ratio privacy score", section="2.3", group="closeness",
    direction="higher_is_safer", value_range=(0.0, 100.0), compute=_ps_compute, plan=_ps_plan,
    default_space="gower", space_choosable=True, params=("alpha",), calibratable=True,
    summary="Compares how often synthetic records fall unusually close to real records with how often real "
            "records do; 100 means no excess closeness.",
    definition="Real records are split into halves R1 and R2; for each r in R1 the distance to R2 and to the "
               "synthetic set are divided by its distance to its neighbour in R1 (TTPR, TSPR). The score is "
               "100 times the share of TTPR below their alpha-quantile divided by the share of TSPR below it, "
               "capped at 100.",
))
register(MetricSpec(
    name="nndr", title="Nearest-neighbour distance ratio", section="2.4", group="closeness",
    direction="higher_is_riskier", value_range=(0.0, 1.0), compute=_nndr_compute, plan=_nndr_plan,
    default_space="gower", space_choosable=True, params=("nndr_threshold", "n_bootstrap"), calibratable=True,
    summary="Share of synthetic records much closer to their nearest real record than real records typically "
            "are to their own neighbours.",
    definition="NNDR(s) divides the distance from s to its nearest real record t* by the mean distance from t* "
               "to its k nearest real neighbours. A low ratio means s sits unusually close to one real person.",
))
register(MetricSpec(
    name="dcr_test", title="DCR holdout test (Diff-%)", section="2.5", group="holdout",
    direction="higher_is_safer", value_range=(0.0, 100.0), compute=_dcr_test_compute, plan=_test_plan("dcr_test", 1),
    needs=("holdout",), default_space="euclidean", space_choosable=True, params=("test_statistic",),
    summary="How much closer synthetic records are to the training data than holdout records are (100 = no "
            "closer).",
    definition="D is the relative drop from the holdout-to-train DCR statistic to the synthetic-to-train one, "
               "in percent; the privacy score is 100 - max(D, 0). Bands: D < 10 high privacy, 10-50 medium, "
               "above 50 low.",
))
register(MetricSpec(
    name="nndr_test", title="NNDR holdout test (Diff-%)", section="2.5", group="holdout",
    direction="higher_is_safer", value_range=(0.0, 100.0), compute=_nndr_test_compute,
    plan=_test_plan("nndr_test", 2), needs=("holdout",), default_space="euclidean", space_choosable=True,
    params=("test_statistic",),
    summary="Whether synthetic records are more distinctly close to a single training record than holdout "
            "records are (100 = no difference).",
    definition="ratio(x) = d1/d2, the distances to the nearest and second-nearest training records (0 for a "
               "copy). D compares the holdout and synthetic ratio statistics as in the DCR test.",
))

__all__ = [
    "dcr_histogram", "exact_copy_share", "holdout_dcr_share", "proximity_ratio_score", "nndr_values",
    "holdout_test", "nn_ratio", "dcr_arrays", "privacy_score_arrays", "nndr_arrays", "SPACE_DESCRIPTIONS",
]
