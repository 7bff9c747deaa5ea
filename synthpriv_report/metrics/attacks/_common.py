"""What the attack metrics of Trudslev et al.'s review share: the key and sensitive columns, their encodings,
the interval of a mean of per-record scores and the level rule (``review_absolute``: medium from 0.5, high from
0.8, inclusive; the calibration value, the holdout in the role of the synthetic data, is shown beside the value and
not subtracted). Definitions and sources: ``docs/metrics.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ... import stats
from ...core.registry import Words
from ...spaces import SpaceSpec
from ...stats import bootstrap_ratio

if TYPE_CHECKING:  # pragma: no cover
    from ...engine.context import Context


REL_TOL = stats.REL_TOL


ABS_TOL = stats.ABS_TOL


def entropy_weights(record_ids: ArrayLike) -> NDArray[np.float64]:
    """AIR weights ``w(y) = -P(y) ln P(y)`` with ``P(y)`` = share of T identical to y (paper Eq. 10-11; the
    constant ``H(T)`` cancels in the normalised sum).

    Parameters
    ----------
    record_ids : array-like of int, shape (n,)
        Ids of the records of T; equal ids for identical records.

    Returns
    -------
    ndarray, shape (n,)

    Examples
    --------
    >>> entropy_weights([0, 0, 1, 2]).round(4).tolist()
    [0.3466, 0.3466, 0.3466, 0.3466]
    >>> entropy_weights([3, 3]).tolist()
    [0.0, 0.0]
    """
    ids = np.asarray(record_ids, dtype=np.int64)
    n = ids.shape[0]
    if n == 0:
        return np.zeros(0)
    _, inv, counts = np.unique(ids, return_inverse=True, return_counts=True)
    p: NDArray[np.float64] = counts[inv.reshape(-1)] / n
    return np.abs(p * np.log(p))  # -P ln P >= 0 (abs avoids -0.0)


def correct_exists(y: ArrayLike, z: ArrayLike, *, kind: int, tolerance: float = 0.1) -> NDArray[np.bool_]:
    """For each real sensitive value, does S hold any value that would be a correct guess (AIR; docs/metrics.md, "air")?

    Categorical (``kind=0``): an equal code exists. Numeric (``kind=1``): some z with ``|y - z| <= tol |z|``
    (with the package's tie tolerance (docs/metrics.md, "Ties, self-matches and nearest records")); both missing is
    correct, one missing wrong. The numeric case
    is a union-of-intervals lookup: intervals ``[z - r, z + r]`` sorted by their lower end, a running maximum
    of their upper ends and one ``searchsorted`` per query (O((n + m) log m)).

    Examples
    --------
    >>> correct_exists([10.0, 15.0, np.nan], [10.5, 20.0], kind=1).tolist()
    [True, False, False]
    >>> correct_exists([1, 2], [2, 2], kind=0).tolist()
    [False, True]
    """
    yv = np.asarray(y, dtype=np.float64)
    zv = np.asarray(z, dtype=np.float64)
    if kind == 0:
        return np.isin(yv, zv)
    out = np.zeros(yv.shape[0], dtype=bool)
    y_nan = np.isnan(yv)
    z_nan = np.isnan(zv)
    out[y_nan] = bool(z_nan.any())
    zz = zv[~z_nan]
    if zz.size == 0:
        return out
    # |y - z| <= r + REL_TOL * max(|y - z|, r) + ABS_TOL  <=>  |y - z| <= (r + ABS_TOL) / (1 - REL_TOL)
    r = (tolerance * np.abs(zz) + ABS_TOL) / (1.0 - REL_TOL)
    lo, hi = zz - r, zz + r
    order = np.argsort(lo, kind="stable")
    lo_s = lo[order]
    run_hi = np.maximum.accumulate(hi[order])
    yy = yv[~y_nan]
    k = np.searchsorted(lo_s, yy, side="right") - 1
    ok = k >= 0
    ok[ok] = run_hi[k[ok]] >= yy[ok]
    out[~y_nan] = ok
    return out


def _keys(ctx: Context) -> tuple[str, ...]:
    return tuple(ctx.settings["key_fields"])


def _split_sensitive(ctx: Context) -> tuple[list[str], list[str]]:
    kinds = ctx.data.kinds
    sens = list(ctx.settings["sensitive_fields"])
    return ([a for a in sens if kinds[a] == "categorical"], [a for a in sens if kinds[a] == "numeric"])


def _sens_codes(ctx: Context, set_name: str, attrs: list[str]) -> NDArray[np.int64]:
    cols = [ctx.data.categorical_columns.index(a) for a in attrs]
    return ctx.fitted.codes[set_name][:, cols].astype(np.int64)


def _sens_values(ctx: Context, set_name: str, attrs: list[str]) -> NDArray[np.float64]:
    cols = [ctx.data.numeric_columns.index(a) for a in attrs]
    return ctx.data.numeric[set_name][:, cols]


def _hamming_keys(ctx: Context) -> SpaceSpec:
    return SpaceSpec("hamming", columns=_keys(ctx))


def _euclid_keys(ctx: Context) -> SpaceSpec:
    return SpaceSpec("euclidean", columns=_keys(ctx))


def _key_groups(ctx: Context) -> tuple[NDArray[np.int64], NDArray[np.int64], int]:
    """Key-combination ids of T and the synthetic-role set (exact values, missing equals missing)."""
    return ctx.memo(("review_attack.key_groups", _hamming_keys(ctx), ctx.T, ctx.S),
                    lambda: ctx.key_groups(_keys(ctx), ctx.T, ctx.S))


def _interval(num: NDArray[np.float64], den: NDArray[np.float64] | None, ctx: Context,
              params: dict[str, Any]) -> tuple[float, float] | None:
    """Bootstrap interval of a (weighted) mean of per-record scores; the calibration context only needs the
    value, so it skips the resampling."""
    if ctx.is_calibration:
        return None
    d = np.ones_like(num) if den is None else den
    return bootstrap_ratio(num, d, n_resamples=int(params["n_bootstrap"]), random_state=ctx.random_state)


def _numeric_sens_reason(metric: str, num: list[str]) -> str:
    return (f"every sensitive attribute is numeric ({', '.join(num)}); {metric} is defined for categorical "
            "sensitive attributes only")


def _budget_rows(n_real: int, cost: int, budget: int, random_state: int | None) -> NDArray[np.int64] | None:
    """The real records a join whose work ``cost`` grows with |T| x |S| compares: all (None) while ``cost`` is at
    most ``budget``, else ``n_real * budget // cost`` positions (at least one) drawn from
    ``default_rng(random_state)`` (sorted; the package's subsample rule), so that about ``budget`` work remains."""
    if cost <= budget:
        return None
    return stats.subsample(n_real, max(1, n_real * budget // cost), np.random.default_rng(random_state))


def _sample_note(n_used: int, n_total: int, random_state: int | None, budget: int, what: str,
                 also: str = "") -> tuple[str, ...]:
    """The report's note on a metric computed on a sample of the real records (none when all were used)."""
    if n_used == n_total:
        return ()
    return (f"computed on a random sample of {n_used:,} of the {n_total:,} real records (drawn with "
            f"random_state={random_state}), each compared with every synthetic record: the work grows with the "
            f"product of the two sizes, and above {budget:,} {what} the real records are sampled; the interval "
            "covers the sampling" + (f"; {also}" if also else ""),)


_WORDS_ATTACK = Words(measures="how much an attacker who knows some of a person's values learns from the synthetic "
                               "data, as defined by Trudslev et al.",
                      high_means="a high value is risky (1 = the attack always succeeds), but only beyond the value "
                                 "the holdout reaches when it stands in for the synthetic data (shown beside it): "
                                 "up to there the attack learns what any data of the population would teach",
                      ideal="the value the holdout reaches when it stands in for the synthetic data")

