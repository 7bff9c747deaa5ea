"""Distance-based metrics of the review paper (seed 002), spec section 3.

CVP, DVP', NSND (2.2.1, 2.2.2, 2.2.6), Authenticity' (2.2.4), ID (2.2.5), NNDR (2.2.7), DCR' (2.2.8), MDCR'
(2.2.9), NNAA' (2.2.10) and HiddR (2.2.12). Every value is in [0, 1] and higher means more risk (the review
paper's rescaled convention, spec section 0); none of them is 0 at an ideal generator, which is why the evaluation
shows each beside its calibration (the holdout in the role of the synthetic data, spec section 4).

The module has two layers:

- pure array functions (data positional, options keyword-only, numpy only) that turn per-record distances into
  the spec's numbers, tested on hand-computed examples;
- adapters ``_plan_*`` / ``_compute_*`` that list and read the cached neighbour tables of the evaluation's
  :class:`~synthpriv_report.engine.Context`. Searches are shared between metrics: euclidean T -> S with
  k = 1 serves CVP, DVP', NSND, Authenticity' and MDCR'; euclidean T -> T with k = 1 serves Authenticity', MDCR'
  and NNAA'; projected S -> T with k = 2 serves NNDR; projected T -> S with k = 1 serves DCR' and HiddR.

Intervals (spec section 4): a share of records (CVP, DVP', Authenticity', ID, NNAA', HiddR) gets a Wilson
interval; a mean of per-record values (NSND, NNDR, DCR') gets a percentile bootstrap of the mean over records,
transformed to the headline scale; MDCR' gets a bootstrap of the two medians over the same resampled real records.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import neighbors as nb
from .. import stats
from ..params import N_BOOTSTRAP, review_level
from ..registry import MetricSpec, Param, Words, register
from ..results import MetricResult, not_computed
from ..spaces import SpaceSpec

if TYPE_CHECKING:  # pragma: no cover
    from ..engine import Context, SearchRequest, SetRef, TreeRequest

#: Level thresholds every metric of this module uses (the evaluation shows the calibration value beside it).

#: Number of subsample draws of NNAA' when |T| != |S| (spec 3, 2.2.10).
NNAA_DRAWS = 5

#: Epsilon of the identifiability weights w_a = 1 / (H_a + eps) (spec 3, 2.2.5).
ID_EPS = 1e-8

SATURATION_NOTE = (
    "d_max is the farthest real-synthetic pair, which dwarfs nearest-neighbour distances: the rescaled distances "
    "u crowd near 0, so DVP' is about 1 on almost any data and NSND sits high even for an ideal generator; read "
    "the value against its calibration (holdout in the role of the synthetic data)."
)


# ---------------------------------------------------------------------------------------------------------------
# pure functions


def rescaled_distance(dcr: ArrayLike, *, d_min: float, d_max: float) -> NDArray[np.float64]:
    """u(y) = (d(y) - d_min) / (d_max - d_min) of spec 3 (CVP, DVP', NSND; Eq. 16, 17, 24).

    Parameters
    ----------
    dcr : array-like, shape (n_real,)
        d(y) = DCR(y, S) for every real record y.
    d_min, d_max : float
        Smallest and largest real-synthetic distance (Eq. 14-15); ``d_max > d_min``.

    Returns
    -------
    ndarray, shape (n_real,)
        Values in [0, 1].

    >>> rescaled_distance([1.0, 2.0, 3.0], d_min=1.0, d_max=5.0).tolist()
    [0.0, 0.25, 0.5]
    """
    d = np.asarray(dcr, dtype=np.float64)
    return (d - d_min) / (d_max - d_min)


def cvp_score(u: ArrayLike, *, threshold: float = 0.2) -> float:
    """CVP = share of real records with u(y) <= threshold (spec 3, 2.2.1); ties with the threshold count.

    Higher is riskier; range [0, 1]; 1 = every real record has a close synthetic record.

    >>> cvp_score([0.0, 0.2, 0.5, 1.0])
    0.5
    """
    return float(np.mean(stats.leq(u, np.full(np.shape(u), threshold))))


def dvp_score(u: ArrayLike, *, threshold: float = 0.8) -> float:
    """DVP' = 1 - share of real records with u(y) >= threshold (spec 3, 2.2.2); ties with the threshold count.

    Higher is riskier; range [0, 1]; 1 = no real record is far from every synthetic record.

    >>> dvp_score([0.0, 0.2, 0.8, 1.0])
    0.5
    """
    return float(1.0 - np.mean(stats.leq(np.full(np.shape(u), threshold), u)))


def nsnd_score(u: ArrayLike) -> float:
    """NSND = 1 - mean u(y) (spec 3, 2.2.6, resolved: the paper's Eq. 24 grows with distance).

    Higher is riskier; range [0, 1].

    >>> nsnd_score([0.0, 0.2, 0.8, 1.0])
    0.5
    """
    return float(1.0 - np.mean(np.asarray(u, dtype=np.float64)))


def closer_indicator(d_a: ArrayLike, d_b: ArrayLike, *, exact: bool = False) -> NDArray[np.float64]:
    """Per record 1[d_a < d_b] + 1/2 1[d_a = d_b] with the tie rule of spec section 0.

    Authenticity' uses ``closer_indicator(d(y, S), d(y, T \\ y))``, ID the same in the weighted space, NNAA's
    terms ``closer_indicator(d(y, T \\ y), d(y, S))`` and ``closer_indicator(d(z, S \\ z), d(z, T))``.

    >>> closer_indicator([0.0, 1.0, 2.0, 3.0], [1.0, 1.0, 1.0, 3.0 + 1e-13]).tolist()
    [1.0, 0.5, 0.0, 0.5]
    """
    a = np.asarray(d_a, dtype=np.float64)
    b = np.asarray(d_b, dtype=np.float64)
    return stats.less(a, b, exact=exact).astype(np.float64) + 0.5 * stats.ties(a, b, exact=exact)


def column_entropy(values: ArrayLike, *, numeric: bool, missing: Any = None) -> float:
    """Shannon entropy (natural log) of one column of T, as the identifiability weights need (spec 3, 2.2.5).

    Categorical: over its levels (``missing`` is a level like any other). Numeric: over bins whose edges are the
    distinct values among the 10%, 20%, ..., 90% quantiles (linear interpolation) of the non-missing values; a
    value's bin index is the number of edges strictly below it; missing values (NaN) form their own bin.

    Parameters
    ----------
    values : array-like, shape (n,)
        The column's values in T (float64 with NaN for numeric; strings for categorical).
    numeric : bool
        Whether the column is numeric.
    missing : object, optional
        Unused for numeric columns; for categorical columns missing is already one string level.

    Returns
    -------
    float
        H_a >= 0; 0 when every value falls in one bin or level.

    >>> round(column_entropy(["a", "a", "b", "b"], numeric=False), 6)  # ln 2
    0.693147
    >>> column_entropy([1.0, 1.0, 1.0, float("nan")], numeric=True) > 0  # value bin and missing bin
    True
    """
    v = np.asarray(values)
    n = v.shape[0]
    if n == 0:
        return 0.0
    if numeric:
        x = v.astype(np.float64)
        miss = np.isnan(x)
        present = x[~miss]
        counts_list = []
        if present.size:
            edges = np.unique(np.quantile(present, np.arange(1, 10) / 10.0))
            idx = np.searchsorted(edges, present, side="left")  # number of edges strictly below each value
            counts_list.append(np.bincount(idx, minlength=edges.size + 1))
        counts_list.append(np.array([int(miss.sum())]))
        counts = np.concatenate(counts_list)
    else:
        _, counts = np.unique(v.astype(str), return_counts=True)
    counts = counts[counts > 0].astype(np.float64)
    p = counts / n
    h = float(-(p * np.log(p)).sum())
    return max(h, 0.0)


def nndr_review_scores(d1: ArrayLike, d2: ArrayLike, copy: ArrayLike) -> tuple[NDArray[np.float64],
                                                                              NDArray[np.float64]]:
    """Per synthetic record the NNDR scores of spec 3 (2.2.7): the rescaled r(s) and the paper's Eq. 27 term.

    r(s) = 1 when s is identical to a real record (``copy``), else 1 - d1/d2, and 1 when d2 = 0. The paper's
    term is 1 when d1 = 0 (tie rule) and d1/d2 otherwise.

    Parameters
    ----------
    d1, d2 : array-like, shape (n_syn,)
        Distances to the nearest and second nearest real record in the projected space.
    copy : array-like of bool, shape (n_syn,)
        s has an identical record in T (section 0 equality).

    Returns
    -------
    r, raw : ndarray, shape (n_syn,)

    >>> r, raw = nndr_review_scores([0.0, 1.0, 1.0, 0.0], [1.0, 4.0, 1.0, 0.0], [True, False, False, False])
    >>> r.tolist(), raw.tolist()
    ([1.0, 0.75, 0.0, 1.0], [1.0, 0.25, 1.0, 1.0])
    """
    a = np.asarray(d1, dtype=np.float64)
    b = np.asarray(d2, dtype=np.float64)
    c = np.asarray(copy, dtype=bool)
    zero2 = stats.ties(b, np.zeros_like(b))
    zero1 = stats.ties(a, np.zeros_like(a))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(zero2, 0.0, a / np.where(zero2, 1.0, b))
    r = np.where(c | zero2, 1.0, 1.0 - ratio)
    raw = np.where(zero1, 1.0, ratio)
    return r, raw


def dcr_review_score(mean_dcr: float) -> float:
    """DCR' = 1 - sigma(ln DCR) = 1 / (1 + DCR), and 1 when DCR = 0 (spec 3, 2.2.8).

    >>> dcr_review_score(0.0), dcr_review_score(1.0), dcr_review_score(3.0)
    (1.0, 0.5, 0.25)
    """
    m = float(mean_dcr)
    return 1.0 if m <= 0.0 else 1.0 / (1.0 + m)


def mdcr_score(num_median: float, den_median: float) -> float:
    """MDCR' = 1 / (1 + num/den) = sigma(-ln ratio), and 1 when the numerator is 0 (spec 3, 2.2.9).

    The caller reports *not computed* when ``den_median`` is 0; here a zero denominator with a positive
    numerator gives the limit 0 (used only inside bootstrap resamples).

    >>> mdcr_score(0.0, 2.0), mdcr_score(2.0, 2.0), mdcr_score(6.0, 2.0)
    (1.0, 0.5, 0.25)
    """
    a, b = float(num_median), float(den_median)
    if stats.ties(a, 0.0).item():
        return 1.0
    if stats.ties(b, 0.0).item():
        return 0.0
    return 1.0 / (1.0 + a / b)


def nnaa_score(d_ys: ArrayLike, d_yy: ArrayLike, d_zy: ArrayLike, d_zz: ArrayLike, *,
               exact: bool = False) -> float:
    """NNAA' = 1 - AA for one pair of equally sized sets (spec 3, 2.2.10, with the ½ the printed Eq. 30 omits).

    AA = ½ [mean over y of (1[d(y, S) > d(y, T∖y)] + ½ ties) + mean over z of (1[d(z, T) > d(z, S∖z)] + ½ ties)].

    Parameters
    ----------
    d_ys, d_yy : array-like, shape (n,)
        For every real record: distance to the nearest synthetic record and to the nearest other real record.
    d_zy, d_zz : array-like, shape (n,)
        For every synthetic record: distance to the nearest real record and to the nearest other synthetic one.

    Returns
    -------
    float
        In [0, 1]; 1 when S = T (every record's nearest neighbour is its copy in the other set), about 0.5 when
        the sets are exchangeable.

    >>> nnaa_score([0.0, 0.0], [1.0, 1.0], [0.0, 0.0], [1.0, 1.0])
    1.0
    >>> nnaa_score([2.0, 1.0], [1.0, 1.0], [2.0, 2.0], [1.0, 3.0])
    0.375
    """
    aa_y = closer_indicator(d_yy, d_ys, exact=exact).mean()  # 1[d(y, S) > d(y, T∖y)] + ½ ties
    aa_z = closer_indicator(d_zz, d_zy, exact=exact).mean()  # 1[d(z, T) > d(z, S∖z)] + ½ ties
    return float(1.0 - 0.5 * (aa_y + aa_z))


def hidden_rate_counts(y_rows: ArrayLike, pair_dist: ArrayLike, dmin_y: ArrayLike, *,
                       exact: bool = False) -> tuple[int, int, int]:
    """Count the real records that the pairing hides badly (spec 3, 2.2.12).

    A real record y counts when some z paired with it lies at the minimal distance from y among all of S.

    Parameters
    ----------
    y_rows : array-like of int, shape (n_pairs,)
        Real position of each pair.
    pair_dist : array-like, shape (n_pairs,)
        Distance between the paired real and synthetic records.
    dmin_y : array-like, shape (n_pairs,)
        DCR(y, S) of each pair's real record.

    Returns
    -------
    counted, n_real_paired, n_pairs_at_min : int
        Real records counted, distinct real records in the pairing (the denominator), pairs at the minimum.

    >>> hidden_rate_counts([0, 0, 1, 2], [1.0, 0.5, 2.0, 1.0], [0.5, 0.5, 1.0, 1.0])
    (2, 3, 2)
    """
    y = np.asarray(y_rows, dtype=np.int64)
    hit = stats.ties(pair_dist, dmin_y, exact=exact)
    return int(np.unique(y[hit]).size), int(np.unique(y).size), int(hit.sum())


# ---------------------------------------------------------------------------------------------------------------
# helpers shared by the adapters


def _share_result(name: str, value: float, n: int, params: dict[str, Any], space: SpaceSpec,
                  details: dict[str, Any], notes: tuple[str, ...] = ()) -> MetricResult:
    """A share of records: Wilson interval over ``n`` trials."""
    return MetricResult(name=name, value=float(value), interval=stats.wilson(float(value), int(n)),
                        details=details, space=space.label, notes=notes)


def _mean_interval(x: NDArray[np.float64], ctx: Context, params: dict[str, Any]) -> tuple[float, float]:
    ci = stats.bootstrap_stats(x, n_resamples=int(params["n_bootstrap"]), random_state=ctx.random_state,
                               quantiles=())
    return ci["mean"]


def _sizes(ctx: Context) -> dict[str, int]:
    return {"n_real": ctx.size(ctx.T), "n_synthetic": ctx.size(ctx.S)}


def _exact(ctx: Context, space: SpaceSpec) -> bool:
    return bool(ctx.encoding(space).integer_valued)


def _space_details(ctx: Context, space: SpaceSpec) -> dict[str, Any]:
    if space.kind != "projected":
        return {"space": space.label}
    proj = ctx.projection(space)
    return {"space": space.label, "projected_k": int(proj.n_components),
            "explained_variance": float(np.sum(proj.explained_variance_ratio[:proj.n_components]))}




# ---------------------------------------------------------------------------------------------------------------
# CVP, DVP', NSND (2.2.1, 2.2.2, 2.2.6)


def _plan_closeness(name: str):
    def plan(ctx: Context, params: dict[str, Any]) -> list[SearchRequest | TreeRequest]:
        sp = ctx.metric_space(name, "euclidean")
        # d_max reads the trees of T and S (the farthest-pair search)
        return [ctx.request(sp, ctx.T, ctx.S, 1), ctx.tree_request(sp, ctx.T), ctx.tree_request(sp, ctx.S)]
    return plan


def _rescaled(ctx: Context, name: str) -> tuple[SpaceSpec, NDArray[np.float64] | None, dict[str, Any]]:
    """(space, u or None when d_max = d_min, details)."""
    sp = ctx.metric_space(name, "euclidean")
    d = ctx.knn(sp, ctx.T, ctx.S, 1).dist[:, 0]
    d_min = float(d.min())
    d_max, i_far, j_far = ctx.farthest(sp, ctx.T, ctx.S)
    details = {**_sizes(ctx), "d_min": d_min, "d_max": float(d_max), "farthest_pair": [int(i_far), int(j_far)],
               "dcr_mean": float(d.mean()), "dcr_median": float(np.median(d))}
    if stats.ties(d_max, d_min, exact=_exact(ctx, sp)).item():
        return sp, None, details
    return sp, rescaled_distance(d, d_min=d_min, d_max=d_max), details


def _not_spread(name: str, details: dict[str, Any], sp: SpaceSpec) -> MetricResult:
    return not_computed(name, f"every real-synthetic distance is the same (d_max = d_min = {details['d_min']:.6g}); "
                        "the rescaled distance is undefined", details=details, space=sp.label)


def _compute_cvp(ctx: Context, params: dict[str, Any]) -> MetricResult:
    """CVP (spec 3, 2.2.1): share of real records whose rescaled nearest-synthetic distance u(y) <= threshold.

    Higher is riskier, range [0, 1]. Interval: Wilson over |T| records.
    """
    sp, u, details = _rescaled(ctx, "cvp")
    if u is None:
        return _not_spread("cvp", details, sp)
    thr = float(params["cvp_threshold"])
    value = cvp_score(u, threshold=thr)
    details.update(threshold=thr, n_close=round(value * u.size), u_mean=float(u.mean()),
                   u_median=float(np.median(u)))
    return _share_result("cvp", value, u.size, params, sp, details, (SATURATION_NOTE,))


def _compute_dvp(ctx: Context, params: dict[str, Any]) -> MetricResult:
    """DVP' (spec 3, 2.2.2): 1 - share of real records with u(y) >= threshold.

    Higher is riskier, range [0, 1]. Interval: Wilson over |T| records (of the share of records not far).
    """
    sp, u, details = _rescaled(ctx, "dvp")
    if u is None:
        return _not_spread("dvp", details, sp)
    thr = float(params["dvp_threshold"])
    value = dvp_score(u, threshold=thr)
    details.update(threshold=thr, dvp_original=1.0 - value, n_far=round((1.0 - value) * u.size),
                   u_mean=float(u.mean()), u_median=float(np.median(u)))
    return _share_result("dvp", value, u.size, params, sp, details, (SATURATION_NOTE,))


def _compute_nsnd(ctx: Context, params: dict[str, Any]) -> MetricResult:
    """NSND (spec 3, 2.2.6): 1 - mean u(y).

    Higher is riskier, range [0, 1]. Interval: bootstrap of the mean of u over real records, then 1 - (hi, lo).
    """
    sp, u, details = _rescaled(ctx, "nsnd")
    if u is None:
        return _not_spread("nsnd", details, sp)
    value = nsnd_score(u)
    lo, hi = _mean_interval(u, ctx, params)
    details.update(nsnd_original=float(u.mean()), u_median=float(np.median(u)))
    return MetricResult(name="nsnd", value=value, interval=(1.0 - hi, 1.0 - lo),
                        details=details, space=sp.label, notes=(SATURATION_NOTE,))


# ---------------------------------------------------------------------------------------------------------------
# Authenticity' (2.2.4) and ID (2.2.5)


def _plan_authenticity(ctx: Context, params: dict[str, Any]) -> list[SearchRequest]:
    sp = ctx.metric_space("authenticity", "euclidean")
    return [ctx.request(sp, ctx.T, ctx.S, 1), ctx.request(sp, ctx.T, ctx.T, 1)]


def _closer_than_real(name: str, ctx: Context, sp: SpaceSpec, params: dict[str, Any],
                      extra: dict[str, Any]) -> MetricResult:
    if ctx.size(ctx.T) < 2:
        return not_computed(name, "needs at least two real records (nearest other real record)")
    d_s = ctx.knn(sp, ctx.T, ctx.S, 1).dist[:, 0]
    d_t = ctx.knn(sp, ctx.T, ctx.T, 1).dist[:, 0]
    exact = _exact(ctx, sp)
    ind = closer_indicator(d_s, d_t, exact=exact)
    value = float(ind.mean())
    n_tie = int(stats.ties(d_s, d_t, exact=exact).sum())
    details = {**_sizes(ctx), **extra, "n_synthetic_closer": int(stats.less(d_s, d_t, exact=exact).sum()),
               "n_ties": n_tie, "dcr_synthetic_median": float(np.median(d_s)),
               "dcr_real_median": float(np.median(d_t))}
    return _share_result(name, value, d_s.size, params, sp, details)


def _compute_authenticity(ctx: Context, params: dict[str, Any]) -> MetricResult:
    """Authenticity' (spec 3, 2.2.4): mean over y of 1[d(y, S) < d(y, T∖y)] + ½ ties, i.e. 1 - Auth.

    Higher is riskier, range [0, 1]. Interval: Wilson over |T| records (halves included).
    """
    sp = ctx.metric_space("authenticity", "euclidean")
    res = _closer_than_real("authenticity", ctx, sp, params, {})
    if not res.computed:
        return res
    return replace(res, details={**res.details, "authenticity_original": 1.0 - float(res.value)})


def _id_weights(ctx: Context) -> dict[str, float]:
    """Entropy H_a of every column of T (fitted on T alone, spec section 0)."""
    def fit() -> dict[str, float]:
        d = ctx.data
        return {c: column_entropy(d.column_values(ctx.T, c), numeric=d.kinds[c] == "numeric") for c in d.columns}
    return ctx.memo(("review_distance", "id_entropy"), fit)


def _id_space(ctx: Context) -> tuple[SpaceSpec | None, dict[str, float]]:
    ent = _id_weights(ctx)
    weights = tuple((c, 1.0 / (h + ID_EPS)) for c, h in ent.items() if h > 0.0)
    if not weights:
        return None, ent
    return SpaceSpec("euclidean", weights=weights), ent


def _plan_identifiability(ctx: Context, params: dict[str, Any]) -> list[SearchRequest]:
    sp, _ = _id_space(ctx)
    if sp is None:
        return []
    return [ctx.request(sp, ctx.T, ctx.S, 1), ctx.request(sp, ctx.T, ctx.T, 1)]


def _compute_identifiability(ctx: Context, params: dict[str, Any]) -> MetricResult:
    """ID (spec 3, 2.2.5): Authenticity' in the euclidean space whose columns are weighted by 1/(H_a + 1e-8).

    Higher is riskier, range [0, 1]. Interval: Wilson over |T| records (halves included).
    """
    sp, ent = _id_space(ctx)
    if sp is None:
        return not_computed("identifiability", "every column is constant in the real data (entropy 0), so no "
                            "column is left to weigh")
    extra = {"entropy": {c: float(h) for c, h in ent.items()},
             "weights": {c: float(w) for c, w in sp.weights or ()},
             "columns_left_out": [c for c, h in ent.items() if h <= 0.0]}
    return _closer_than_real("identifiability", ctx, sp, params, extra)


# ---------------------------------------------------------------------------------------------------------------
# NNDR (2.2.7) and DCR' (2.2.8), projected space


def _plan_nndr_review(ctx: Context, params: dict[str, Any]) -> list[SearchRequest]:
    return [ctx.request(ctx.metric_space("nndr_review", "projected"), ctx.S, ctx.T, 2)]


def _compute_nndr_review(ctx: Context, params: dict[str, Any]) -> MetricResult:
    """NNDR (spec 3, 2.2.7): mean over s of r(s) = 1 for a copy of a real record, else 1 - d1/d2 (1 if d2 = 0).

    Higher is riskier, range [0, 1]. Interval: bootstrap of the mean of r(s) over synthetic records.
    """
    sp = ctx.metric_space("nndr_review", "projected")
    if ctx.size(ctx.T) < 2:
        return not_computed("nndr_review", "needs at least two real records (second nearest real record)")
    tab = ctx.knn(sp, ctx.S, ctx.T, 2)
    copy = ctx.identical_in(ctx.S, ctx.T)
    r, raw = nndr_review_scores(tab.dist[:, 0], tab.dist[:, 1], copy)
    value = float(r.mean())
    details = {**_sizes(ctx), **_space_details(ctx, sp), "nndr_original_mean": float(raw.mean()),
               "n_copies": int(copy.sum()), "ratio_median": float(np.median(1.0 - r[~copy])) if (~copy).any()
               else 0.0}
    return MetricResult(name="nndr_review", value=value, interval=_mean_interval(r, ctx, params),
                        details=details, space=sp.label)


def _plan_dcr_review(ctx: Context, params: dict[str, Any]) -> list[SearchRequest]:
    return [ctx.request(ctx.metric_space("dcr_review", "projected"), ctx.T, ctx.S, 1)]


def _compute_dcr_review(ctx: Context, params: dict[str, Any]) -> MetricResult:
    """DCR' (spec 3, 2.2.8): 1 / (1 + mean over y of DCR(y, S)) in the projected space, 1 when that mean is 0.

    Higher is riskier, range [0, 1]; the level depends on the projected space's scale. Interval: bootstrap of
    the mean DCR over real records, transformed (the transform is decreasing, so the bounds swap).
    """
    sp = ctx.metric_space("dcr_review", "projected")
    d = ctx.knn(sp, ctx.T, ctx.S, 1).dist[:, 0]
    mean = float(d.mean())
    value = dcr_review_score(mean)
    lo, hi = _mean_interval(d, ctx, params)
    details = {**_sizes(ctx), **_space_details(ctx, sp), "dcr_mean": mean, "dcr_median": float(np.median(d)),
               "dcr_mean_interval": (lo, hi)}
    return MetricResult(name="dcr_review", value=value, interval=(dcr_review_score(hi), dcr_review_score(lo)),
                        details=details, space=sp.label)


# ---------------------------------------------------------------------------------------------------------------
# MDCR' (2.2.9)


def _plan_mdcr(ctx: Context, params: dict[str, Any]) -> list[SearchRequest]:
    sp = ctx.metric_space("mdcr", "euclidean")
    return [ctx.request(sp, ctx.T, ctx.S, 1), ctx.request(sp, ctx.T, ctx.T, 1)]


def _compute_mdcr(ctx: Context, params: dict[str, Any]) -> MetricResult:
    """MDCR' (spec 3, 2.2.9): 1 / (1 + median DCR(y, S) / median DCR(y, T∖y)), 1 when the numerator is 0.

    Higher is riskier, range [0, 1]. Not computed when the denominator median is 0. Interval: bootstrap over
    real records of both medians on the same resample.
    """
    sp = ctx.metric_space("mdcr", "euclidean")
    if ctx.size(ctx.T) < 2:
        return not_computed("mdcr", "needs at least two real records (nearest other real record)")
    d_s = ctx.knn(sp, ctx.T, ctx.S, 1).dist[:, 0]
    d_t = ctx.knn(sp, ctx.T, ctx.T, 1).dist[:, 0]
    num, den = float(np.median(d_s)), float(np.median(d_t))
    details = {**_sizes(ctx), "median_dcr_synthetic": num, "median_dcr_real": den}
    if stats.ties(den, 0.0, exact=_exact(ctx, sp)).item():
        dup = float(ctx.identical_in(ctx.T, ctx.T).mean())
        details["share_real_with_identical_real"] = dup
        return not_computed("mdcr", f"the median distance between real records and their nearest other real "
                            f"record is 0 ({dup:.1%} of real records have an identical real record)",
                            details=details, space=sp.label)
    value = mdcr_score(num, den)
    details["ratio"] = num / den
    details["mdcr_original"] = float(1.0 / (1.0 + np.exp(-num / den)))
    ci = stats.paired_median_bootstrap(d_s, d_t, statistic=mdcr_score, n_resamples=int(params["n_bootstrap"]),
                                       random_state=ctx.random_state)
    return MetricResult(name="mdcr", value=value, interval=ci, details=details,
                        space=sp.label)


# ---------------------------------------------------------------------------------------------------------------
# NNAA' (2.2.10)


def _nnaa_sets(ctx: Context) -> list[tuple[SetRef, SetRef]]:
    """(real set, synthetic set) pairs of equal size: the full sets, or 5 subsamples of the larger one."""
    n_t, n_s = ctx.size(ctx.T), ctx.size(ctx.S)
    full_t, full_s = ctx.full(ctx.T), ctx.full(ctx.S)
    if n_t == n_s:
        return [(full_t, full_s)]
    rng = np.random.default_rng(ctx.random_state)
    out = []
    for i in range(NNAA_DRAWS):
        if n_t > n_s:
            out.append((ctx.subset(ctx.T, stats.subsample(n_t, n_s, rng), tag=f"nnaa.{i}"), full_s))
        else:
            out.append((full_t, ctx.subset(ctx.S, stats.subsample(n_s, n_t, rng), tag=f"nnaa.{i}")))
    return out


def _plan_nnaa(ctx: Context, params: dict[str, Any]) -> list[SearchRequest]:
    sp = ctx.metric_space("nnaa", "euclidean")
    if min(ctx.size(ctx.T), ctx.size(ctx.S)) < 2:
        return []
    reqs = []
    for y, z in _nnaa_sets(ctx):
        reqs += [ctx.request(sp, y, z, 1), ctx.request(sp, y, y, 1), ctx.request(sp, z, y, 1),
                 ctx.request(sp, z, z, 1)]
    return reqs


def _compute_nnaa(ctx: Context, params: dict[str, Any]) -> MetricResult:
    """NNAA' (spec 3, 2.2.10): 1 - AA on equally sized sets (5 subsamples of the larger set when sizes differ).

    Higher is riskier, range [0, 1]. Interval: Wilson with p = NNAA' over the 2·min(|T|, |S|) records of one
    evaluation (each record is one trial of the nearest-neighbour classifier).
    """
    sp = ctx.metric_space("nnaa", "euclidean")
    m = min(ctx.size(ctx.T), ctx.size(ctx.S))
    if m < 2:
        return not_computed("nnaa", "needs at least two real and two synthetic records")
    exact = _exact(ctx, sp)
    values = []
    for y, z in _nnaa_sets(ctx):
        values.append(nnaa_score(ctx.knn(sp, y, z, 1).dist[:, 0], ctx.knn(sp, y, y, 1).dist[:, 0],
                                 ctx.knn(sp, z, y, 1).dist[:, 0], ctx.knn(sp, z, z, 1).dist[:, 0], exact=exact))
    value = float(np.mean(values))
    details = {**_sizes(ctx), "evaluation_size": m, "n_draws": len(values), "draw_values": values,
               "aa": 1.0 - value}
    return _share_result("nnaa", value, 2 * m, params, sp, details)


# ---------------------------------------------------------------------------------------------------------------
# HiddR (2.2.12)


def _plan_hidden_rate(ctx: Context, params: dict[str, Any]) -> list[SearchRequest]:
    return [ctx.request(ctx.metric_space("hidden_rate", "projected"), ctx.T, ctx.S, 1)]


def _compute_hidden_rate(ctx: Context, params: dict[str, Any]) -> MetricResult:
    """HiddR (spec 3, 2.2.12): share of paired real records with a paired synthetic record at their minimal
    distance to S (projected space, Minkowski p = 2); the denominator is the number of distinct paired real
    records (the paper's |Z| is in the details).

    Higher is riskier, range [0, 1]. Interval: Wilson over the paired real records.
    """
    pairs = ctx.settings.get("pairing")
    if pairs is None or len(pairs) == 0:
        return not_computed("hidden_rate", "needs the generator's pairing of real and synthetic records "
                            "(pairing=)")
    pairs = np.asarray(pairs, dtype=np.int64)
    sp = ctx.metric_space("hidden_rate", "projected")
    dmin = ctx.knn(sp, ctx.T, ctx.S, 1).dist[:, 0]
    y_rows, z_rows = pairs[:, 0], pairs[:, 1]
    pd_ = nb.pair_distances(ctx.encoding(sp), ctx.T, y_rows, ctx.S, z_rows)
    counted, n_paired, n_pairs_min = hidden_rate_counts(y_rows, pd_, dmin[y_rows], exact=_exact(ctx, sp))
    value = counted / n_paired
    details = {**_sizes(ctx), **_space_details(ctx, sp), "n_pairs": len(pairs), "n_real_paired": n_paired,
               "n_real_counted": counted, "n_pairs_at_minimum": n_pairs_min,
               "hidden_rate_paper": counted / ctx.size(ctx.S)}
    return _share_result("hidden_rate", value, n_paired, params, sp, details)


# ---------------------------------------------------------------------------------------------------------------
# registration


CVP_THRESHOLD = Param("cvp_threshold", 0.2, low=0.0, high=1.0, slider=(0.05, 0.5, 0.05), label="CVP threshold u ≤",
                      doc="A real record counts for the close value probability (CVP) when its distance to the "
                          "synthetic data, rescaled to [0, 1], is at most this.")
DVP_THRESHOLD = Param("dvp_threshold", 0.8, low=0.0, high=1.0, slider=(0.5, 0.95, 0.05), label="DVP threshold u ≥",
                      doc="A real record counts as distant for the distant value probability (DVP) when its distance "
                          "to the synthetic data, rescaled to [0, 1], is at least this.")

_WORDS_CLOSE = Words(measures="how close synthetic records come to real people, as defined by Trudslev et al.",
                     high_means="a high value is risky (1 = no privacy)",
                     ideal="the value the holdout reaches when it stands in for the synthetic data")


def _spec(name: str, title: str, compute: Any, plan: Any, *, space: str | None, summary: str, definition: str,
          params: tuple[Param, ...] = (), copy_sensitive: bool = False, calibratable: bool = True,
          choosable: bool = True, needs: tuple = (), interval_kind: str = "Wilson 95%",
          group: str = "closeness", words: Words = _WORDS_CLOSE) -> MetricSpec:
    return register(MetricSpec(
        name=name, title=title, section="3", group=group, direction="higher_is_riskier",
        value_range=(0.0, 1.0), compute=compute, plan=plan, needs=needs, default_space=space,
        space_choosable=choosable, params=params, summary=summary, definition=definition,
        copy_sensitive=copy_sensitive, calibratable=calibratable, level=review_level, words=words,
        interval_kind=interval_kind,
    ))


_spec("cvp", "Close value probability (CVP)", _compute_cvp, _plan_closeness("cvp"), space="euclidean",
      params=(CVP_THRESHOLD,),
      summary="Share of real records with a synthetic record unusually close, on a min-max rescaled distance.",
      definition="For each real record, the distance to its nearest synthetic record is rescaled to u in [0, 1] "
      "between the smallest and largest real-synthetic distances. CVP is the share of real records with u at "
      "most the threshold (0.2).")
_spec("dvp", "Distant value probability (DVP')", _compute_dvp, _plan_closeness("dvp"), space="euclidean",
      params=(DVP_THRESHOLD,), group="distinguishability",
      words=Words(measures="how many real records have some synthetic record near them, i.e. how well the "
                           "synthetic data covers the real data",
                  high_means="a value near 1 means no real record is far from every synthetic record, which "
                             "almost any faithful synthetic data reaches; it describes coverage, not leakage",
                  ideal="the value the holdout reaches in place of the synthetic data"),
      summary="One minus the share of real records far from every synthetic record; near 1 on almost any data.",
      definition="With the same rescaled nearest-synthetic distance u as CVP, DVP is the share of real records "
      "with u at least the threshold (0.8). DVP' = 1 - DVP, so 1 means no real record is far from the "
      "synthetic data.")
_spec("nsnd", "Nearest synthetic neighbour distance (NSND)", _compute_nsnd, _plan_closeness("nsnd"),
      space="euclidean",
      params=(N_BOOTSTRAP,), interval_kind="bootstrap 95% (percentile)",
      summary="One minus the mean rescaled distance from each real record to its nearest synthetic record.",
      definition="With the same rescaled nearest-synthetic distance u as CVP, NSND = 1 - mean u over the real "
      "records. The mean u of Trudslev et al. (Eq. 24) grows with distance, so it is turned around to keep 1 = no "
      "privacy.")
_spec("authenticity", "Authenticity'", _compute_authenticity, _plan_authenticity, space="euclidean",
      copy_sensitive=True,
      summary="Share of real records whose nearest synthetic record is closer than their nearest other real one.",
      definition="For each real record, its distance to the nearest synthetic record is compared with its "
      "distance to the nearest other real record; a closer synthetic record counts 1, a tie one half. "
      "Authenticity' is the mean count, i.e. 1 minus the authenticity of Trudslev et al.")
_spec("identifiability", "Identifiability (ID)", _compute_identifiability, _plan_identifiability,
      space=None, copy_sensitive=True, choosable=False,
      summary="Authenticity' with low-entropy (more identifying) columns weighted up.",
      definition="Each column's euclidean coordinates are multiplied by 1/(entropy + 1e-8), the column's "
      "entropy taken in the real data (constant columns left out). ID is the share of real records whose nearest synthetic record is "
      "closer than their nearest other real record in that weighted space, ties counted one half.")
_spec("nndr_review", "Nearest neighbour distance ratio (review NNDR)", _compute_nndr_review, _plan_nndr_review,
      space="projected", copy_sensitive=True,
      params=(N_BOOTSTRAP,), interval_kind="bootstrap 95% (percentile)",
      summary="Mean over synthetic records of 1 - d1/d2 to the real records (1 for copies), in PCA space.",
      definition="For each synthetic record, d1 and d2 are the distances to its two nearest real records in the "
      "projected (PCA) space; its score is 1 for an exact copy of a real record, else 1 - d1/d2 (1 when d2 = 0). "
      "The value is the mean score; the mean of Trudslev et al. (Eq. 27) is in the details.")
_spec("dcr_review", "Distance to closest record (DCR')", _compute_dcr_review, _plan_dcr_review,
      space="projected", copy_sensitive=True,
      params=(N_BOOTSTRAP,), interval_kind="bootstrap 95% (percentile)",
      summary="1/(1 + mean distance from each real record to its nearest synthetic record) in PCA space.",
      definition="DCR is the mean over real records of the distance to the nearest synthetic record in the "
      "projected (PCA) space. DCR' = 1 - sigmoid(ln DCR) = 1/(1 + DCR), 1 when DCR = 0; its level depends on "
      "the space's scale.")
_spec("mdcr", "Median distance to closest record (MDCR')", _compute_mdcr, _plan_mdcr, space="euclidean",
      copy_sensitive=True,
      params=(N_BOOTSTRAP,), interval_kind="bootstrap 95% (percentile)",
      summary="Median real-to-synthetic nearest distance relative to the median real-to-real one, squashed.",
      definition="ratio = the median, over real records, of the distance to the nearest synthetic record, "
      "divided by the median distance to the nearest other real record. MDCR' = 1/(1 + ratio), 1 when the "
      "numerator is 0, so a synthetic set closer than real records are to "
      "each other scores above 0.5.")
_spec("nnaa", "Nearest neighbour adversarial accuracy (NNAA')", _compute_nnaa, _plan_nnaa, space="euclidean",
      copy_sensitive=True,
      summary="One minus the accuracy of telling real from synthetic by whose nearest neighbour is which.",
      definition="AA averages, over real records, whether the nearest synthetic record is farther than the "
      "nearest other real one, and over synthetic records, whether the nearest real record is farther than the "
      "nearest other synthetic one (ties one half), on equally sized sets. NNAA' = 1 - AA; 1 when the synthetic data copies the real data.")
_spec("hidden_rate", "Hidden rate (HiddR)", _compute_hidden_rate, _plan_hidden_rate, space="projected",
      needs=("pairing",), calibratable=False,
      summary="Share of real records whose own synthetic offspring is their nearest synthetic record.",
      definition="Given the generator's pairing of real and synthetic records, a real record counts when one "
      "of its paired synthetic records is at its minimal distance to the synthetic data in the projected space. "
      "HiddR is the counted share of the real records that appear in the pairing.")
