"""Distance metrics of the practitioners' documents (DCR, exact copies, holdout share, privacy score, NNDR and the
two holdout tests).

Each metric is a pure function over per-record distance arrays, an adapter that reads the arrays from the
evaluation's neighbour cache and one declaration (:func:`register`) with its parameters, level rule, figures and
words. The ``*_arrays`` helpers are public so that per-record views can read the same cached arrays without a new
search; figures draw from the result's evidence alone.

Levels of the checks behind the verdict (a deliberate change from spec section 5, whose rules graded point values
or one side's interval against the other's point value, and so graded about half of honest releases medium or
high): every level is a one-sided test at :data:`synthpriv_report.params.CHECK_ALPHA` (5% shared by the six
default checks), comparing the synthetic statistic with its baseline through both sides' uncertainty
(:mod:`synthpriv_report.evidence`). The thresholds of spec section 5 and seed 004's bands stay; they apply to the
confidence bound instead of the point value. The displayed 95% intervals are those of the spec. Without a holdout,
the copy baseline is the training records against the other training records (spec section 5 graded any copy
high). The privacy score's halves and every subsample follow the canonical order of the records
(:func:`synthpriv_report.identity.canonical_order`), so that the same data in another row order give the same
numbers.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import plotting as plot
from .. import evidence, stats
from ..params import CHECK_ALPHA, N_BOOTSTRAP, SOURCES
from ..registry import FigureSpec, LevelSpec, MetricSpec, Param, Words, register
from ..results import MetricResult, not_computed
from ..spaces import SPACE_DESCRIPTIONS, SpaceSpec
from ..wording import fmt_number
from .copies import (NEAR_COPY_QUANTILE, cell_words_of, leave_one_out_cutoffs, near_copy_cutoff,
                     one_column_matches)

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


#: A holdout is reported as unlike the training data when the two-sided Mann-Whitney p-value of its distances to
#: the training data against the training records' own is below ``HOLDOUT_SHIFT_P`` and the probability that a
#: holdout record is the farther one differs from one half by at least ``HOLDOUT_SHIFT_AUC`` (package defaults:
#: on random splits of Adult and Bank Marketing the probability stays within 0.498-0.502; a holdout split off by
#: date gave 0.561).
HOLDOUT_SHIFT_P = 1e-3
HOLDOUT_SHIFT_AUC = 0.02


def holdout_shift(d_holdout: ArrayLike, d_within: ArrayLike) -> dict[str, float]:
    """Do holdout records lie as far from the training data as training records lie from one another?

    The spec takes the holdout as fresh records of the training data's population (spec section 0) and says
    nothing of checking it; the package checks it, since every comparison with the holdout rests on it. When
    holdout and training records are drawn at random from the same records, DCR(h, T) and DCR(t, T minus t)
    have the same distribution (each is the distance from a record of the population to its nearest of about
    |T| others), so the probability that a holdout record is the farther one is one half.

    Parameters
    ----------
    d_holdout : array
        DCR(h, T) of every holdout record.
    d_within : array
        DCR(t, T minus t) of every training record.

    Returns
    -------
    dict
        ``auc``: P(holdout farther) + half P(equal), the Mann-Whitney U of the holdout divided by the number of
        pairs; ``p_value``: two-sided, normal approximation with the tie correction; ``median_holdout``,
        ``median_within``, ``n_holdout``, ``n_within``.

    Examples
    --------
    >>> r = holdout_shift([0.3, 0.4, 0.5], [0.1, 0.2, 0.3])
    >>> r["auc"], r["median_holdout"], r["median_within"]
    (0.9444444444444444, 0.4, 0.2)
    """
    h = np.asarray(d_holdout, dtype=np.float64)
    t = np.asarray(d_within, dtype=np.float64)
    if h.size == 0 or t.size == 0:
        raise ValueError("holdout_shift needs at least one distance in each set")
    n1, n2 = h.size, t.size
    ts = np.sort(t)
    below = np.searchsorted(ts, h, side="left")
    equal = np.searchsorted(ts, h, side="right") - below
    u = float(below.sum()) + 0.5 * float(equal.sum())  # Mann-Whitney U of the holdout
    # normal approximation with the tie correction (as scipy.stats.mannwhitneyu, method="asymptotic", without the
    # continuity correction), from sorts instead of a ranking of both sets: a second at a million each
    n = n1 + n2
    counts = np.unique(np.concatenate([h, ts]), return_counts=True)[1].astype(np.float64)
    ties = float(np.sum(counts ** 3 - counts))
    var = n1 * n2 / 12.0 * ((n + 1) - (ties / (n * (n - 1)) if n > 1 else 0.0))
    z = (u - n1 * n2 / 2.0) / math.sqrt(var) if var > 0 else 0.0
    return {"auc": u / (n1 * n2), "p_value": math.erfc(abs(z) / math.sqrt(2.0)),
            "median_holdout": float(np.median(h)), "median_within": float(np.median(ts)),
            "n_holdout": int(n1), "n_within": int(n2)}


def holdout_shift_note(shift: dict[str, Any] | None) -> str | None:
    """The reader's note when :func:`holdout_shift` finds the holdout unlike the training data, else None."""
    if not shift or not (shift["p_value"] < HOLDOUT_SHIFT_P and abs(shift["auc"] - 0.5) >= HOLDOUT_SHIFT_AUC):
        return None
    farther = shift["auc"] > 0.5
    share = shift["auc"] if farther else 1.0 - shift["auc"]
    word = "farther" if farther else "closer"
    effect = ("too much distance from an honest generator and can report a risk that is not there" if farther
              else "too little distance from an honest generator and can hide a risk")
    return (f"The holdout does not look like a random sample of the training data's records: its records lie "
            f"{word} {'from' if farther else 'to'} the training records than these lie {'from' if farther else 'to'} "
            f"one another (median "
            f"distance to the closest training record {fmt_number(shift['median_holdout'])} against "
            f"{fmt_number(shift['median_within'])}; the holdout record is the {word} one in {share:.1%} of pairs, 50% "
            f"for a random split; Mann-Whitney p < {HOLDOUT_SHIFT_P:g}), as when a holdout is split off by date "
            f"or source. Comparisons with it then expect {effect}. Draw the holdout at random from the same "
            f"records.")


def holdout_shift_requests(ctx: Any) -> list[Any]:
    """The searches :func:`holdout_shift_of` reads (none without a holdout): planned by the metrics that compare
    with the holdout, so that they run once."""
    if ctx.H is None:
        return []
    sp = _space(ctx, "dcr", "gower")
    return [ctx.request(sp, ctx.T, ctx.T, 1), ctx.request(sp, ctx.H, ctx.T, 1)]


def holdout_shift_of(ctx: Any, *, compute: bool = True) -> dict[str, Any] | None:
    """:func:`holdout_shift` on the evaluation's data, in the distance space of ``dcr`` (cached; None without a
    holdout, or when ``compute`` is false and no metric has needed it yet)."""
    if ctx.H is None:
        return None
    sp = _space(ctx, "dcr", "gower")
    key = ("holdout_shift", sp, ctx.T, ctx.H)
    if not compute:
        return ctx.peek(key)

    def make() -> dict[str, Any]:
        return holdout_shift(ctx.knn(sp, ctx.H, ctx.T, 1).dist[:, 0], ctx.knn(sp, ctx.T, ctx.T, 1).dist[:, 0])

    return ctx.memo(key, make)


def holdout_shift_notes(ctx: Any) -> tuple[str, ...]:
    """The note of :func:`holdout_shift_note` as a tuple (empty when the holdout looks like the training data)."""
    note = holdout_shift_note(holdout_shift_of(ctx))
    return (note,) if note else ()


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
        t_r2 = ctx.knn(sp, r1, r2, 1)
        t_s = ctx.knn(sp, r1, s1, 1)
        to_r2, to_s = t_r2.dist[:, 0], t_s.dist[:, 0]
        return {"ttpr": _ratio(to_r2, d2), "tspr": _ratio(to_s, d2), "space": sp.label,
                "nearest_b": t_r2.idx[:, 0], "nearest_s": t_s.idx[:, 0],
                "sizes": {"half_a": ctx.size(r1), "half_b": ctx.size(r2), "synthetic_sample": ctx.size(s1)}}

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
# parameters

ALPHA = Param("alpha", 0.1, low=0.0, high=1.0, low_open=True, high_open=True, slider=(0.01, 0.5, 0.01),
              label="alpha (privacy score quantile)",
              doc="The quantile of the real-to-real proximity ratios that defines 'unusually close'.")
NNDR_THRESHOLD = Param("nndr_threshold", 0.5, low=0.0, low_open=True, slider=(0.05, 1.0, 0.05),
                       label="NNDR threshold",
                       doc="A synthetic record with a nearest-neighbour distance ratio below it counts as at risk.")
TEST_STATISTIC = Param("test_statistic", "mean", kind="choice", choices=("mean", "median"),
                       label="statistic of the holdout tests",
                       doc="Whether the holdout tests compare means or medians of the distances.")


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


def dcr_evidence(arrays: dict[str, Any]) -> dict[str, Any]:
    """What the DCR figures need, from :func:`dcr_arrays`: per set a histogram (20 bins on [0, 1] for gower, on
    [0, max] otherwise) and a quantile summary, and the share of exact copies."""
    gower = bool(arrays.get("gower", str(arrays.get("space", "")).startswith("gower")))
    sets = {k: np.asarray(arrays[k], dtype=np.float64) for k in ("S", "H", "T") if arrays.get(k) is not None}
    finite = [v[np.isfinite(v)] for v in sets.values()]
    upper = 1.0 if gower else max([float(v.max()) for v in finite if v.size] + [1e-12])
    ev: dict[str, Any] = {"space": str(arrays.get("space", "gower")), "gower": gower, "upper": upper}
    for k, v in sets.items():
        ev[k] = {"hist": stats.histogram(v, upper=upper), "quantiles": stats.quantile_summary(v)}
    copies = arrays.get("copies")
    if copies is not None and np.asarray(copies).size:
        ev["copy_share"] = float(np.mean(np.asarray(copies, dtype=bool)))
    return ev


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
    baseline = "within the training data (each record to its nearest other record)"
    base_median = details["baseline_within_real"]["median"]
    if "H" in a:
        hs = stats.summary(a["H"])
        details["baseline_holdout"] = {**hs, "histogram": dcr_histogram(a["H"], gower=gower, upper=upper),
                                       "exact_copy_share": float(a["H_copies"].mean())}
        baseline = "holdout to training data"
        base_median = hs["median"]
    # both medians 0: S is exactly as close to T as the baseline is (ratio 1); only the baseline 0: safe side
    ratio = s["median"] / base_median if base_median > 0 else (1.0 if s["median"] == 0 else float("inf"))
    details["ratio_to_baseline"] = ratio
    details["baseline"] = baseline
    shift = holdout_shift_of(ctx)
    if shift is not None:
        details["holdout_vs_within_real"] = shift
    note = holdout_shift_note(shift)
    return MetricResult(name="dcr", value=s["median"], interval=s["median_ci"], details=details,
                        space=a["space"], evidence=dcr_evidence(a), notes=(note,) if note else ())


def copy_baseline(ctx: Any, flags_of: Any) -> tuple[NDArray[np.bool_], NDArray[np.int64] | None, str]:
    """The baseline of a copy check: the same flag for fresh real records.

    With a holdout, each holdout record against the training data (independent records). Without one, each
    training record against the *other* training records (leave one out): how often a real record has a
    duplicate or near duplicate in the real data itself. Duplicates flag one another, so those flags come with
    groups (records that flag each other share one) for the design effect.

    ``flags_of(query, ref)`` returns ``(flags, partner)``: per query record its flag and the position in ``ref``
    of the record that flagged it (-1 where none).
    """
    if ctx.H is not None:
        flags, _ = flags_of(ctx.H, ctx.T)
        return flags, None, "holdout"
    flags, partner = flags_of(ctx.T, ctx.T)
    return flags, _pair_groups(partner), "training"


def _pair_groups(partner: NDArray[np.int64]) -> NDArray[np.int64]:
    """Connected groups of records linked to the record that flagged them (-1: no link)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    n = partner.size
    rows = np.flatnonzero(partner >= 0)
    graph = coo_matrix((np.ones(rows.size), (rows, partner[rows])), shape=(n, n))
    return connected_components(graph, directed=True, connection="weak")[1].astype(np.int64)


def _exact_flags(ctx: Any, query: Any, ref: Any) -> tuple[NDArray[np.bool_], NDArray[np.int64]]:
    flags = ctx.identical_in(query, ref)
    ids_q, ids_r = ctx.record_ids(query), ctx.record_ids(ref)
    first = np.full(int(max(ids_q.max(initial=0), ids_r.max(initial=0))) + 1, -1, dtype=np.int64)
    first[ids_r[::-1]] = np.arange(ids_r.size - 1, -1, -1, dtype=np.int64)
    partner = np.where(flags, first[ids_q], -1)
    if query == ref:  # a record's partner is another record with its id: the first one, or for it the next
        own = np.arange(ids_q.size)
        partner = np.where(flags & (partner == own), -1, partner)
    return flags, partner


def excess_evidence(flags: NDArray[np.bool_], base: NDArray[np.bool_], groups: NDArray[np.int64] | None,
                    baseline: str) -> dict[str, Any]:
    """Details of a copy check: the synthetic share against its baseline, both sides' uncertainty counted
    (:func:`synthpriv_report.evidence.excess_share` at the verdict's per-check level)."""
    e = evidence.excess_share(flags, base, alpha=CHECK_ALPHA, baseline_groups=groups)
    n_base = int(base.size)
    return {"baseline": baseline, "baseline_share": e["baseline_share"], "n_baseline": n_base,
            "baseline_interval": stats.wilson(e["baseline_share"], n_base),
            "baseline_design_effect": e["deff_baseline"], "excess": e["excess"],
            "excess_lower_bound": e["excess_lower"], "check_alpha": CHECK_ALPHA}


def copy_check_level(share: str, what: str, baseline: str, source: str, *,
                     key: str = "excess_lower_bound") -> LevelSpec:
    """The level rule of a copy check (exact or near copies): high when the lower end of Newcombe's interval of the
    synthetic share minus its baseline, at the verdict's per-check level, is above 0 (``key``: the details entry
    holding that lower end)."""
    return LevelSpec(
        medium=None, high=0.0, difference=True, direction="higher_is_riskier",
        of=lambda r: r.details.get(key, r.details.get("excess_lower_bound")),
        scale=f"the lower confidence bound of the {share} minus its baseline ({baseline})",
        source=f"{source}; the comparison is Newcombe's interval for a difference of two shares",
        description=f"high when the synthetic data hold more {what} of training records than fresh real records "
                    f"do, beyond chance: the lower end of the confidence interval of the difference of the two "
                    f"shares (both sides' uncertainty counted, at a level that keeps the verdict's false alarms near "
                    f"5%) is above {{high}}")


def _copies_compute(ctx, params) -> MetricResult:
    copies = ctx.identical_in(ctx.S, ctx.T)
    share, interval = exact_copy_share(copies)
    details: dict[str, Any] = {"n_copies": int(copies.sum()), "n": int(copies.size),
                               "distinct_real_records_copied": int(np.unique(ctx.record_ids(ctx.S)[copies]).size)}
    base, groups, which = copy_baseline(ctx, lambda q, r: _exact_flags(ctx, q, r))
    details.update(excess_evidence(copies, base, groups, which))
    if ctx.H is not None:
        details["holdout_copy_share"] = details["baseline_share"]
        details["holdout_copy_interval"] = details["baseline_interval"]
    lower = details["excess_lower_bound"]
    if ctx.size(ctx.T) >= 2:  # near copies count as copies: the check also compares the near-copy shares
        near = near_copy_evidence(ctx, params)["details"]
        details["near_copies"] = {k: near[k] for k in ("n_near_copies", "n", "baseline_share", "excess",
                                                       "excess_lower_bound")}
        lower = max(lower, near["excess_lower_bound"])
    details["copy_check_lower_bound"] = lower
    unique = unique_training_share(ctx)
    details["unique_training_share"] = unique
    return MetricResult(name="exact_copies", value=share, interval=interval, details=details,
                        notes=(uniqueness_note(unique),))


def unique_training_share(ctx: Any) -> float:
    """Share of training records that no other training record equals on the analysed columns."""
    return float(1.0 - np.mean(ctx.identical_in(ctx.T, ctx.T))) if ctx.size(ctx.T) else float("nan")


#: Below this share of unique training records, the copy checks are said to have little power.
UNIQUE_SHARE_NOTE = 0.5


def uniqueness_note(unique: float) -> str:
    """The reader's sentence on how unique the training records are, which says how much a copy reveals.

    >>> uniqueness_note(0.98)[:60]
    '98% of the training records are unique on the analysed colum'
    """
    text = (f"{unique:.0%} of the training records are unique on the analysed columns (no other training record "
            f"is identical).")
    if unique < UNIQUE_SHARE_NOTE:
        text += (" Most records are shared by several people, so a copy of one reveals little about any single "
                 "person, and the copy checks cannot tell copies from records that fresh real data would also "
                 "contain: they have little power on such data.")
    return text


def _share_plan(ctx, params):
    sp = _space(ctx, "holdout_dcr_share", "gower")
    t_ref, h_ref = _holdout_share_sets(ctx)
    return [ctx.request(sp, ctx.S, t_ref, 1), ctx.request(sp, ctx.S, h_ref, 1), *holdout_shift_requests(ctx)]


def _share_compute(ctx, params) -> MetricResult:
    sp = _space(ctx, "holdout_dcr_share", "gower")
    t_ref, h_ref = _holdout_share_sets(ctx)
    tab_t, tab_h = ctx.knn(sp, ctx.S, t_ref, 1), ctx.knn(sp, ctx.S, h_ref, 1)
    d_t, d_h = tab_t.dist[:, 0], tab_h.dist[:, 0]
    r = holdout_dcr_share(d_t, d_h)
    details = {k: r[k] for k in ("wins", "ties", "n", "k", "p_value")}
    details.update(share_level_bounds(d_t, d_h, tab_t.idx[:, 0], tab_h.idx[:, 0]))
    details["real_sizes_used"] = {"training": ctx.size(t_ref), "holdout": ctx.size(h_ref)}
    details["subsampled"] = ("training" if t_ref.rows is not None
                             else "holdout" if h_ref.rows is not None else None)
    return MetricResult(name="holdout_dcr_share", value=r["share"], interval=r["interval"], details=details,
                        space=sp.label, notes=holdout_shift_notes(ctx))


def near_copy_flags(ctx: Any, query: str, ref: str, cutoff: float | NDArray[np.float64], dist: NDArray[np.float64],
                    nearest: NDArray[np.int64]) -> dict[str, Any]:
    """Which records of ``query`` are near copies of a record of ``ref`` (the training data), by kind.

    ``dist``/``nearest``: each query record's distance to its closest record of ``ref`` (itself left out within
    one set) and that record's position.
    """
    same = query == ref
    exact, exact_partner = _exact_flags(ctx, query, ref)

    def make():
        w = cell_words_of(ctx)
        return one_column_matches(w[query], w[ref], same=same)

    column, col_partner = ctx.memo(("near_copies.columns", query, ref), make)
    one_col = (column >= 0) & ~exact
    close = stats.less(dist, np.broadcast_to(np.asarray(cutoff, dtype=np.float64), dist.shape)) & ~exact & ~one_col
    flags = exact | one_col | close
    partner = np.where(exact, exact_partner, np.where(one_col, col_partner, np.where(close, nearest, -1)))
    return {"flags": flags, "partner": partner, "exact": exact, "one_column": one_col, "column": column,
            "close": close}


def _near_plan(ctx, params):
    sp = ctx.metric_space("dcr", "gower")
    reqs = [ctx.request(sp, ctx.S, ctx.T, 1), ctx.request(sp, ctx.T, ctx.T, 1)]
    if ctx.H is not None:
        reqs.append(ctx.request(sp, ctx.H, ctx.T, 1))
    return reqs


def plot_near_copies(result: Any, *, ax: Any = None) -> Any:
    """The near-copy share with its Wilson interval against the same share for fresh real records."""
    ax = plot.new_ax(ax)
    if result is None or not result.computed:
        return plot.empty(ax, "near copies not computed")
    return copy_strip(ax, result, what="near copies",
                      xlabel="share of synthetic records that are a training record with a small change",
                      title="Near copies", base_words=("holdout records as near a training record",
                                                       "training records as near another one"))


def near_copy_evidence(ctx: Any, params: dict[str, Any]) -> dict[str, Any]:
    """The near copies of the synthetic data (flags by kind) and their comparison with the baseline (cached per
    ``near_copy_quantile``): read by ``near_copies`` and by the copy check ``exact_copies``."""
    q = float(params["near_copy_quantile"])

    def make() -> dict[str, Any]:
        a = dcr_arrays(ctx)
        cutoff = near_copy_cutoff(a["T"], q)
        sp = _space(ctx, "dcr", "gower")
        tt = ctx.knn(sp, ctx.T, ctx.T, 1)
        s = near_copy_flags(ctx, ctx.S, ctx.T, cutoff, a["S"], a["nearest"])

        def flags_of(query, ref):
            if query == ref:
                loo = leave_one_out_cutoffs(tt.dist[:, 0], q)
                f = near_copy_flags(ctx, query, ref, loo, tt.dist[:, 0], tt.idx[:, 0])
            else:
                th = ctx.knn(sp, query, ref, 1)
                f = near_copy_flags(ctx, query, ref, cutoff, th.dist[:, 0], th.idx[:, 0])
            return f["flags"], f["partner"]

        base, groups, which = copy_baseline(ctx, flags_of)
        flags = s["flags"]
        cols = list(ctx.data.numeric_columns) + list(ctx.data.categorical_columns)
        by_col = np.bincount(s["column"][s["one_column"]], minlength=len(cols))
        details: dict[str, Any] = {
            "n_near_copies": int(flags.sum()), "n": int(flags.size),
            "n_exact": int(s["exact"].sum()), "n_one_column": int(s["one_column"].sum()),
            "n_closer_than_real": int(s["close"].sum()),
            "one_column_by_column": {cols[j]: int(c) for j, c in enumerate(by_col) if c},
            "distance_cutoff": cutoff, "cutoff_quantile": q, "space": sp.label,
        }
        details.update(excess_evidence(flags, base, groups, which))
        return {"flags": flags, "details": details, "space": sp.label}

    return ctx.memo(("near_copies.evidence", ctx.S, ctx.H, q), make)


def _near_compute(ctx, params) -> MetricResult:
    if ctx.size(ctx.T) < 2:
        return not_computed("near_copies", "needs at least 2 real training records")
    e = near_copy_evidence(ctx, params)
    share = float(e["flags"].mean())
    return MetricResult(name="near_copies", value=share, interval=stats.wilson(share, int(e["flags"].size)),
                        details=dict(e["details"]), space=e["space"])


def share_level_bounds(d_t: ArrayLike, d_h: ArrayLike, near_t: ArrayLike, near_h: ArrayLike) -> dict[str, Any]:
    """The bound the level of ``holdout_dcr_share`` rests on: the lower confidence bound of the share at the
    verdict's per-check level, Wilson's at the effective number of synthetic records.

    Synthetic records whose nearest real record (among training and holdout) is the same one win or lose
    together, so they are one group for the design effect; the per-record outcomes are 1 (closer to the training
    record), 1/2 (a tie) and 0.
    """
    dt = np.asarray(d_t, dtype=np.float64)
    dh = np.asarray(d_h, dtype=np.float64)
    tie = stats.ties(dt, dh)
    win = (dt < dh) & ~tie
    y = np.where(tie, 0.5, win.astype(np.float64))
    nt = np.asarray(near_t, dtype=np.int64)
    groups = np.where(dh < dt, nt.max(initial=0) + 1 + np.asarray(near_h, dtype=np.int64), nt)
    b = evidence.share_bounds(y, groups, alpha=CHECK_ALPHA)
    return {"lower_bound_for_level": b["lower"], "design_effect": b["deff"], "check_alpha": CHECK_ALPHA}


def _ps_plan(ctx, params):
    sp = _space(ctx, "privacy_score", "gower")
    r1, r2, s1 = _ps_sets(ctx)
    return [ctx.request(sp, r1, r1, 1), ctx.request(sp, r1, r2, 1), ctx.request(sp, r1, s1, 1)]


def score_level_bound(arrays: dict[str, Any], q: float, f_tt: float) -> dict[str, Any]:
    """The bound the level of ``privacy_score`` rests on: the score's upper confidence bound at the verdict's
    per-check level, from the lower bound of f_TS - f_TT.

    Both shares are over the same records of the first half, and each is uncertain: f_TT through the second
    half drawn from the training data, f_TS through the synthetic sample. Their difference is bounded with
    the two variances added, each clustered by the record that is nearest (records of the first half that share
    their nearest synthetic, or second-half, record are one group).
    """
    a = stats.leq(arrays["ttpr"], q).astype(np.float64)
    b = stats.leq(arrays["tspr"], q).astype(np.float64)
    d = evidence.difference_bounds(a, arrays["nearest_b"], b, arrays["nearest_s"], alpha=CHECK_ALPHA)
    den = f_tt + d["lower"]
    upper = 100.0 if den <= 0 or f_tt <= 0 else 100.0 * min(1.0, f_tt / den)
    return {"upper_bound_for_level": upper, "f_ts_minus_f_tt_lower": d["lower"], "check_alpha": CHECK_ALPHA}


def privacy_score_evidence(arrays: dict[str, Any], *, alpha: float) -> dict[str, Any]:
    """What the privacy-score figure needs: quantile summaries of TTPR and TSPR and the quantile q with f_TT and
    f_TS at ``alpha``."""
    r = proximity_ratio_score(arrays["ttpr"], arrays["tspr"], alpha=alpha)
    return {"ttpr": stats.quantile_summary(arrays["ttpr"]), "tspr": stats.quantile_summary(arrays["tspr"]),
            "alpha": alpha, "q": r["q"], "f_tt": r["f_tt"], "f_ts": r["f_ts"]}


def _ps_compute(ctx, params) -> MetricResult:
    if ctx.size(ctx.T) < 4:
        return not_computed("privacy_score", "needs at least 4 real records (two halves with a neighbour each)")
    a = privacy_score_arrays(ctx)
    alpha = float(params["alpha"])
    r = proximity_ratio_score(a["ttpr"], a["tspr"], alpha=alpha)
    details = {"alpha": alpha, "q": r["q"], "f_tt": r["f_tt"], "f_ts": r["f_ts"],
               "f_ts_interval": r["f_ts_interval"], "sizes": a["sizes"],
               **score_level_bound(a, r["q"], r["f_tt"]),
               "note": "even a synthetic set equal to the training data cannot score 0: the synthetic half holds "
                       "only about half of the first real half's copies",
               "interval_method": "the score at the two ends of the Wilson 95% interval of the share of "
                                  "train-to-synthetic ratios at most q"}
    return MetricResult(name="privacy_score", value=r["score"], interval=r["interval"], details=details,
                        space=a["space"], evidence=privacy_score_evidence(a, alpha=alpha))


def _nndr_plan(ctx, params):
    sp = _space(ctx, "nndr", "gower")
    reqs = [ctx.request(sp, ctx.T, ctx.T, ctx.settings["nndr_k"]), ctx.request(sp, ctx.S, ctx.T, 1)]
    if ctx.H is not None:
        reqs.append(ctx.request(sp, ctx.H, ctx.T, 1))
    return reqs


def nndr_evidence(arrays: dict[str, Any], *, threshold: float) -> dict[str, Any]:
    """What the NNDR figure needs: per set a 30-bin histogram on a common range and the share below the
    threshold."""
    sets = {k: np.asarray(arrays[k], dtype=np.float64) for k in ("S", "H") if arrays.get(k) is not None}
    fin = {k: v[np.isfinite(v)] for k, v in sets.items()}
    upper = max([float(np.quantile(v, 0.99)) for v in fin.values() if v.size] + [threshold * 1.5, 1e-9]) * 1.05
    ev: dict[str, Any] = {"threshold": threshold, "upper": upper}
    for k, v in fin.items():
        ev[k] = {"hist": stats.histogram(v, upper=upper, bins=30), "n": int(v.size),
                 "share_below": float(np.mean(v < threshold)) if v.size else 0.0}
    return ev


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
    if "H" in a:
        h_share = float(stats.less(a["H"], thr).mean())
        details["holdout_share"] = h_share
        details["holdout_interval"] = stats.wilson(h_share, int(a["H"].size))
    details["excess_over_holdout"] = share - details["holdout_share"] if "H" in a else None
    return MetricResult(name="nndr", value=share, interval=interval, details=details, space=a["space"],
                        evidence=nndr_evidence(a, threshold=thr))


def _test_plan(metric: str, k: int):
    def plan(ctx, params):
        sp = _space(ctx, metric, "euclidean")
        return [ctx.request(sp, ctx.S, ctx.T, k), ctx.request(sp, ctx.H, ctx.T, k), *holdout_shift_requests(ctx)]

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
    finite_d = rep_d[np.isfinite(rep_d)]
    d_lower = float(np.quantile(finite_d, CHECK_ALPHA)) if finite_d.size else float("nan")
    details = {"statistic": stat, "quantity": quantity, f"{quantity}_HT": r["stat_ht"],
               f"{quantity}_ST": r["stat_st"], "D": r["D"], "band": r["band"],
               f"{quantity}_HT_ci": stats.percentile_interval(rep_h),
               f"{quantity}_ST_ci": stats.percentile_interval(rep_s), "D_ci": stats.percentile_interval(rep_d),
               "n_holdout": int(np.size(ref_vals)), "n_synthetic": int(np.size(syn_vals)),
               "D_lower_bound_for_level": d_lower, "check_alpha": CHECK_ALPHA,
               "interval_method": "percentile bootstrap 95%, holdout and synthetic resampled independently"}
    return MetricResult(name=metric, value=r["score"], interval=stats.percentile_interval(rep_score),
                        details=details, space=sp.label, notes=holdout_shift_notes(ctx))


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
# figures (drawn from a result's evidence; the arrays of the ``*_arrays`` helpers are accepted too)


def _evidence(data: Any, build) -> dict[str, Any] | None:
    if isinstance(data, MetricResult):
        return dict(data.evidence) if data.computed and data.evidence else None
    if isinstance(data, dict):
        return build(data)
    return None


def plot_dcr(data: Any, *, ax: Any = None, kind: str = "hist") -> Any:
    """Distances to the closest training record: synthetic against the holdout and within-real baselines.

    Parameters
    ----------
    data : MetricResult or mapping
        The ``dcr`` result (its evidence), or the arrays of :func:`dcr_arrays`.
    ax : matplotlib Axes, optional
    kind : {"hist", "ecdf"}
        Histogram (shares per bin, so that sets of different sizes compare) or empirical CDF.

    Returns
    -------
    matplotlib Axes
        Exact copies are marked by a vertical line at 0 with their share in the legend. Lower is riskier.
    """
    ev = _evidence(data, dcr_evidence)
    ax = plot.new_ax(ax)
    if not ev:
        return plot.empty(ax, "DCR evidence not available (the 'dcr' metric was not computed)")
    hi = float(ev["upper"])
    for key in ("S", "H", "T"):
        if key not in ev:
            continue
        n = ev[key]["quantiles"]["n"]
        label = f"{plot.SET_NAMES[key]} (n={n})"
        if kind == "ecdf":
            plot.ecdf(ax, ev[key]["quantiles"], color=plot.COLORS[key], label=label, lw=1.6)
        else:
            plot.hist(ax, ev[key]["hist"], filled=key == "S", color=plot.COLORS[key], label=label)
    if "copy_share" in ev:
        ax.axvline(0.0, color=plot.COLORS["line"], ls="--", lw=1.2,
                   label=f"exact copies: {ev['copy_share']:.1%} of synthetic")
    ax.set_xlabel(f"distance to closest training record ({ev['space']})")
    ax.set_ylabel("cumulative share of records" if kind == "ecdf" else "share of records per bin")
    ax.set_title("Distance to closest record (DCR)" + (": ECDF" if kind == "ecdf" else ""))
    ax.set_xlim(0.0, hi)
    ax.legend(fontsize=8, loc="lower right" if kind == "ecdf" else "upper right")
    return ax


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
        crosses q. A TSPR curve above the TTPR curve at q is risky.
    """
    a = 0.1 if alpha is None else float(alpha)
    ev = _evidence(data, lambda arr: privacy_score_evidence(arr, alpha=a))
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
    tops = [s["values"][98] for s in (ev["ttpr"], ev["tspr"]) if len(s.get("values", [])) > 98]
    hi = max(tops) * 1.05 if tops else 1.0
    ax.set_xlim(0.0, max(hi, q * 1.2, 1e-9))
    ax.set_ylim(0.0, 1.0)
    ax.set_xlabel("proximity ratio (distance / distance to own nearest real neighbour)")
    ax.set_ylabel("cumulative share of train records")
    ax.set_title("Proximity ratios: TTPR vs TSPR")
    ax.legend(fontsize=8, loc="lower right")
    return ax


def plot_nndr(data: Any, *, ax: Any = None, threshold: float | None = None) -> Any:
    """NNDR distributions of synthetic and holdout records, with the threshold line.

    Parameters
    ----------
    data : MetricResult or mapping
        The ``nndr`` result, or :func:`nndr_arrays` (``"S"``, optional ``"H"``).
    ax : matplotlib Axes, optional
    threshold : float, optional
        Threshold when arrays are given (default 0.5); a result carries its own.

    Returns
    -------
    matplotlib Axes
        Records left of the line count as at risk (a low NNDR is riskier).
    """
    t = 0.5 if threshold is None else float(threshold)
    ev = _evidence(data, lambda arr: nndr_evidence(arr, threshold=t))
    ax = plot.new_ax(ax)
    if not ev:
        return plot.empty(ax, "NNDR evidence not available (the metric was not computed)")
    for key, name in (("S", "synthetic"), ("H", "holdout")):
        if key in ev:
            plot.hist(ax, ev[key]["hist"], filled=key == "S", color=plot.COLORS[key],
                      label=f"{name} (n={ev[key]['n']}; {ev[key]['share_below']:.1%} below)")
    ax.axvline(ev["threshold"], color=plot.COLORS["line"], ls="--", lw=1.2, label=f"threshold = {ev['threshold']:g}")
    ax.set_xlim(0.0, ev["upper"])
    ax.set_xlabel("NNDR (distance / typical spacing of real records there)")
    ax.set_ylabel("share of records per bin")
    ax.set_title("Nearest-neighbour distance ratio")
    ax.legend(fontsize=8, loc="upper right")
    return ax


def plot_holdout_share(result: Any, *, ax: Any = None) -> Any:
    """The holdout DCR share with its Wilson interval, the 50% line and the level thresholds.

    Parameters
    ----------
    result : MetricResult
        The ``holdout_dcr_share`` result.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
        Above 50%: synthetic records sit closer to training records than to holdout records (riskier).
    """
    ax = plot.new_ax(ax)
    if result is None or not result.computed:
        why = result.reason_not_computed if result is not None else "no result"
        return plot.empty(ax, f"holdout share not computed: {why}")
    v = float(result.value)
    refs = [(0.5, "50%: no closer to train than to holdout", "--")]
    rule = result.level_rule
    if rule is not None and rule.high is not None:
        refs.append((float(rule.high), f"high-risk threshold ({rule.high:g}, on {rule.scale})", ":"))
    label = f"share = {v:.1%}"
    if result.interval is not None:
        label += f" (Wilson 95% {result.interval[0]:.1%}–{result.interval[1]:.1%})"
    plot.interval_strip(ax, v, result.interval, result.level, label=label, refs=refs)
    if result.calibration is not None:
        ax.plot([result.calibration], [0.0], "|", color=plot.COLORS["H"], ms=18, mew=2,
                label=f"holdout in place of the synthetic data: {result.calibration:.1%}")
    ax.set_xlabel("share of synthetic records closer to train than to holdout")
    ax.set_title("Holdout DCR share")
    ax.legend(fontsize=8, loc="upper left")
    return ax


def plot_exact_copies(result: Any, *, ax: Any = None) -> Any:
    """The share of synthetic records that copy a training record, with its Wilson interval, against the share of
    holdout records that coincide with a training record (the level's reference)."""
    ax = plot.new_ax(ax)
    if result is None or not result.computed:
        return plot.empty(ax, "exact copies not computed")
    return copy_strip(ax, result, what="copies", xlabel="share of synthetic records identical to a training record",
                      title="Exact copies", base_words=("holdout records equal to a training record",
                                                        "training records equal to another one"))


def copy_strip(ax: Any, result: MetricResult, *, what: str, xlabel: str, title: str,
               base_words: tuple[str, str]) -> Any:
    """A copy check's share with its Wilson interval on a strip, against its baseline's share (a dashed line):
    ``base_words`` name the baseline with a holdout and without one."""
    v = float(result.value)
    d = result.details
    base = d.get("baseline_share", d.get("holdout_copy_share"))
    words = base_words[0] if d.get("baseline", "holdout") == "holdout" else base_words[1]
    refs = [] if base is None else [(float(base), f"{words}: {base:.1%}", "--")]
    lo, hi = (result.interval if result.interval is not None else (v, v))
    upper = min(1.0, max(0.05, hi * 1.2, (base or 0.0) * 1.2))
    label = f"{what} = {v:.1%} of synthetic (Wilson 95% {lo:.1%}–{hi:.1%})"
    plot.interval_strip(ax, v, result.interval, result.level, label=label, refs=refs, xlim=(0.0, upper))
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.legend(fontsize=8, loc="upper right")
    return ax


# ---------------------------------------------------------------------------------------------------------------
# registration (report order)

_SPACE_NOTE = "Choose another distance space with spaces={name: ...}."

register(MetricSpec(
    name="dcr", title="Distance to closest record", section="2.1", group="closeness",
    direction="higher_is_safer", value_range=(0.0, float("inf")), compute=_dcr_compute, plan=_dcr_plan,
    default_space="gower", space_choosable=True, params=(N_BOOTSTRAP,), calibratable=True,
    interval_kind="bootstrap 95% (percentile, records resampled)",
    level=LevelSpec(
        medium=0.9, high=0.5, direction="higher_is_safer", of=lambda r: r.details.get("ratio_to_baseline"),
        scale="the median DCR divided by the baseline's median DCR (holdout to train; without a holdout, "
              "within the real data)",
        source="package default, after " + SOURCES["apx"],
        description="high when synthetic records are typically less than {high} times as far from the training "
                    "data as the baseline, medium when less than {medium} times"),
    figures=(FigureSpec(lambda r, a, b: (plot_dcr(r, ax=a, kind="hist"), plot_dcr(r, ax=b, kind="ecdf")),
                        "Distances from synthetic records to their closest training record, against the same "
                        "distances for holdout records and within the real data", ncols=2, size=(5.0, 3.4)),),
    summary="Median distance from each synthetic record to its closest real training record; compare it with "
            "the same distance for fresh real (holdout) records.",
    definition="The distance to closest record (DCR) of a synthetic record is its distance to the nearest real "
               "training record. Their distribution is compared with the same distances of holdout records and "
               "with the distances between training records themselves; synthetic data much closer to the "
               "training data than fresh real records are is suspicious.",
    words=Words(measures="how far each synthetic record is from the nearest real person in the training data",
                high_means="a high value is safe: synthetic records are not near-copies of real people",
                ideal="about the holdout's own median distance to the training data"),
))
register(MetricSpec(
    name="exact_copies", title="Exact copies", section="2.1", group="closeness",
    direction="higher_is_riskier", value_range=(0.0, 1.0), compute=_copies_compute, plan=_near_plan,
    params=(NEAR_COPY_QUANTILE,), calibratable=True, copy_sensitive=True, interval_kind="Wilson 95%",
    level=copy_check_level(
        "copy (or near-copy) share", "exact copies, or more near copies,",
        "the same share of holdout records; without a holdout, of training records against the others",
        "package default, after " + SOURCES["apx"] + " (a distance of 0 leaks a real record); near copies "
        "count as copies", key="copy_check_lower_bound"),
    figures=(FigureSpec(lambda r, a: plot_exact_copies(r, ax=a),
                        "Share of synthetic records identical to a training record, against the holdout's own "
                        "share", size=(6.0, 2.2), needs_evidence=False),),
    summary="Share of synthetic records that are identical to a real training record.",
    definition="The share of synthetic records with an identical record (every column equal) in the real "
               "training data. Its baseline is the share of holdout records that coincide with a training record.",
    words=Words(measures="how many synthetic records are exact copies of a real person's record",
                high_means="a high value is risky: real records were reproduced",
                ideal="no more than the share of unseen real records that happen to equal a training record"),
))
register(MetricSpec(
    name="near_copies", title="Near copies", section="package", group="closeness",
    direction="higher_is_riskier", value_range=(0.0, 1.0), compute=_near_compute, plan=_near_plan, calibratable=True,
    copy_sensitive=True, params=(NEAR_COPY_QUANTILE,), interval_kind="Wilson 95%",
    level=copy_check_level(
        "near-copy share", "near copies", "holdout records that are near copies of a training record; without a "
        "holdout, training records near another one",
        "package default: near copies count as copies (Article 29 Working Party, Opinion 05/2014 on anonymisation "
        "techniques: a record that singles out a person)"),
    figures=(FigureSpec(lambda r, a: plot_near_copies(r, ax=a),
                        "Share of synthetic records that are near copies of a training record, by kind, against "
                        "the same share for fresh real records", size=(6.0, 2.2), needs_evidence=False),),
    summary="Share of synthetic records that are a training record with a small change: equal on every column "
            "but one, or closer to it than real people are to one another.",
    definition="A synthetic record is a near copy when it is an exact copy of a training record, equals one on "
               "every column but one, or lies closer to one than all but 1% of training records lie to their "
               "own closest other training record. The same count for fresh real records (the holdout, or the "
               "training records among themselves) is its baseline.",
    words=Words(measures="how many synthetic records are a real person's record with a small change",
                high_means="a high value is risky: real records were reproduced with cosmetic changes",
                ideal="no more than the share of unseen real records that lie as close to a training record"),
))
register(MetricSpec(
    name="holdout_dcr_share", title="Closer to the training data than to the holdout", section="2.2", group="holdout",
    direction="higher_is_riskier", value_range=(0.0, 1.0), compute=_share_compute, plan=_share_plan,
    needs=("holdout",), default_space="gower", space_choosable=True, copy_sensitive=True,
    interval_kind="Wilson 95%",
    level=LevelSpec(
        medium=0.5, high=0.55, same_scale=True,
        of=lambda r: r.details.get("lower_bound_for_level", r.interval[0] if r.interval is not None else r.value),
        scale="the lower confidence bound of the share",
        source="package default, after " + SOURCES["clearbox"],
        description="high when the share is above {high} beyond chance, medium when above {medium} beyond chance: "
                    "the lower end of its confidence interval (at the level that keeps the verdict's false alarms "
                    "near 5%; synthetic records that share their nearest real record count as one group) is above "
                    "the threshold; an honest generator gives about 50%"),
    figures=(FigureSpec(lambda r, a: plot_holdout_share(r, ax=a),
                        "Share of synthetic records closer to the training data than to the holdout, with its "
                        "interval, the 50% line and the high-risk threshold", size=(6.0, 2.2),
                        needs_evidence=False),),
    summary="Share of synthetic records closer to a training record than to any holdout record; 50% is ideal.",
    definition="For each synthetic record, is its nearest training record closer than its nearest holdout "
               "record (ties count one half)? A generator that learned the population and not the individuals "
               "gives about 50% on equal-sized real sets.",
    words=Words(measures="whether synthetic records sit nearer the training records than real records the "
                         "generator never saw",
                high_means="a value well above 50% is risky: the generator memorised training records",
                ideal="50%"),
))
register(MetricSpec(
    name="privacy_score", title="Proximity-ratio privacy score", section="2.3", group="closeness",
    direction="higher_is_safer", value_range=(0.0, 100.0), compute=_ps_compute, plan=_ps_plan,
    default_space="gower", space_choosable=True, params=(ALPHA,), calibratable=True,
    interval_kind="Wilson 95% (the score at the two ends of the Wilson interval of the share of real records with a synthetic record unusually close)",
    level=LevelSpec(medium=90.0, high=50.0, source="package default, after " + SOURCES["aindo"], same_scale=True,
                    of=lambda r: r.details.get("upper_bound_for_level", r.value),
                    scale="the upper confidence bound of the score",
                    description="high when the score is below {high} beyond chance, medium when below {medium} "
                                "beyond chance: the upper end of its confidence interval (both halves' "
                                "uncertainty counted, at the level that keeps the verdict's false alarms near 5%) "
                                "is below the threshold"),
    figures=(FigureSpec(lambda r, a: plot_privacy_score(r, ax=a),
                        "Proximity ratios of real records to other real records (TTPR) and to synthetic records "
                        "(TSPR), with the alpha-quantile"),),
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
))
register(MetricSpec(
    name="nndr", title="Nearest-neighbour distance ratio", section="2.4", group="closeness",
    direction="higher_is_riskier", value_range=(0.0, 1.0), compute=_nndr_compute, plan=_nndr_plan,
    default_space="gower", space_choosable=True, params=(NNDR_THRESHOLD, N_BOOTSTRAP), calibratable=True,
    interval_kind="Wilson 95%",
    level=LevelSpec(
        medium=0.05, high=0.2, difference=True,
        of=lambda r: r.details.get("excess_over_holdout") if r.details.get("excess_over_holdout") is not None
        else r.value,
        scale="the share below the threshold minus the holdout's share (without a holdout: the share)",
        source="package default, after " + SOURCES["apx"],
        description="high when the share exceeds the holdout's share by more than {high}, medium by more than "
                    "{medium}"),
    figures=(FigureSpec(lambda r, a: plot_nndr(r, ax=a),
                        "Nearest-neighbour distance ratios of synthetic and holdout records, with the threshold"),),
    summary="Share of synthetic records much closer to their nearest real record than real records typically "
            "are to their own neighbours.",
    definition="For each synthetic record, the nearest-neighbour distance ratio (NNDR) divides its distance to "
               "the nearest real training record by that real record's mean distance to its k nearest other "
               "real records. A low ratio means the synthetic record sits unusually close to one real person; "
               "the measure is the share of synthetic records below the threshold.",
    words=Words(measures="how many synthetic records sit unusually close to one real person",
                high_means="a high share is risky",
                ideal="about the holdout's own share"),
))

_D_LEVEL = LevelSpec(
    medium=10.0, high=50.0, direction="higher_is_riskier", inclusive=(True, False),
    of=lambda r: r.details.get("D_lower_bound_for_level", r.details.get("D")),
    scale="the lower confidence bound of D, the drop in percent from the holdout's distance statistic to the "
          "synthetic data's",
    source=SOURCES["betterdata"] + "; graded on the lower confidence bound of D (holdout and synthetic records "
                                   "resampled), by this package",
    description="D above {high} beyond chance: low privacy (high risk); D at least {medium} beyond chance: medium "
                "privacy; otherwise high privacy. Beyond chance: the lower end of D's bootstrap confidence "
                "interval (at the level that keeps the verdict's false alarms near 5%) reaches the band")

register(MetricSpec(
    name="dcr_test", title="Closest-record distance test against the holdout", section="2.5", group="holdout",
    direction="higher_is_safer", value_range=(0.0, 100.0), compute=_dcr_test_compute,
    plan=_test_plan("dcr_test", 1), needs=("holdout",), default_space="euclidean", space_choosable=True,
    params=(TEST_STATISTIC, N_BOOTSTRAP), interval_kind="bootstrap 95% (percentile)", level=_D_LEVEL,
    summary="How much closer synthetic records are to the training data than holdout records are (100 = no "
            "closer).",
    definition="D is the drop, in percent, from the holdout records' distance-to-closest-training-record "
               "statistic to the synthetic records' one; the privacy score is 100 - max(D, 0). Bands: D below "
               "10 high privacy, 10 to 50 medium, above 50 low.",
    words=Words(measures="whether synthetic records are closer to the training data than unseen real records are",
                high_means="a high score is safe; 100 means synthetic records are no closer than unseen real ones",
                ideal="100"),
))
register(MetricSpec(
    name="nndr_test", title="Distance-ratio test against the holdout", section="2.5", group="holdout",
    direction="higher_is_safer", value_range=(0.0, 100.0), compute=_nndr_test_compute,
    plan=_test_plan("nndr_test", 2), needs=("holdout",), default_space="euclidean", space_choosable=True,
    params=(TEST_STATISTIC, N_BOOTSTRAP), interval_kind="bootstrap 95% (percentile)", level=_D_LEVEL,
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
))

__all__ = [
    "holdout_shift", "holdout_shift_note", "HOLDOUT_SHIFT_P", "HOLDOUT_SHIFT_AUC",
    "dcr_histogram", "exact_copy_share", "holdout_dcr_share", "proximity_ratio_score", "nndr_values",
    "holdout_test", "nn_ratio", "dcr_arrays", "privacy_score_arrays", "nndr_arrays", "SPACE_DESCRIPTIONS",
    "plot_dcr", "plot_privacy_score", "plot_nndr", "plot_holdout_share", "plot_exact_copies", "ALPHA",
    "NNDR_THRESHOLD", "TEST_STATISTIC",
]
