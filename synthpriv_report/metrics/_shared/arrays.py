"""The per-record distance arrays several metrics share, cached on the evaluation.

:func:`dcr_arrays` gives the arrays of ``dcr`` and the copy checks at once (what a DCR figure is drawn from); those
metrics read the same arrays a set at a time. ``nndr`` reads :func:`nndr_arrays`, and the per-record analysis each
set's :func:`nndr_of`. Each array comes from the evaluation's neighbour cache
(:class:`synthpriv_report.engine.context.Context`), so a slider move or a second metric never searches again.
Definitions:
``docs/metrics.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ... import stats
from ...core.results import MetricResult
from ...spaces import SpaceSpec


@dataclass(frozen=True)
class SmallResult:
    """Base of the typed results of the pure metric functions (frozen dataclasses of a few named numbers).

    A result is read by attribute (``r.share``); :meth:`to_dict` gives the same numbers as a dictionary, which is
    how a result enters a :class:`~synthpriv_report.core.results.MetricResult`'s details or a JSON document.
    """

    def to_dict(self) -> dict[str, Any]:
        """The fields by name, in the order they are declared (a shallow copy: values are the objects held)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


#: Fewest records each of two compared groups needs before a check that compares them is graded (the membership
#: attacks' ``MIN_RECORDS`` too): with fewer, one group's spread cannot be estimated from its records, and chance
#: alone moves the comparison past any threshold.
MIN_GROUP_RECORDS = 10


def groups_too_small(groups: dict[str, int], *, minimum: int | None = None) -> str | None:
    """Why a check that compares two groups of records is not assessed on groups of these sizes, or None.

    Parameters
    ----------
    groups : dict
        Each group's name, as the reader should see it before "records" ("training", "holdout") -> its number
        of records.
    minimum : int, optional
        Fewest records the smaller group needs (default :data:`MIN_GROUP_RECORDS`, read when called).

    Returns
    -------
    str or None
        The reason, naming both sizes, when the smaller group has fewer than ``minimum`` records.

    Examples
    --------
    >>> print(groups_too_small({"training": 1000, "holdout": 1}))  # doctest: +NORMALIZE_WHITESPACE
    too few records to assess: it compares 1,000 training records with 1 holdout record, and each group needs at
    least 10: with fewer, chance alone can move the comparison past any threshold
    >>> groups_too_small({"training": 10, "holdout": 10}) is None
    True
    """
    minimum = MIN_GROUP_RECORDS if minimum is None else int(minimum)
    if min(groups.values()) >= minimum:
        return None
    (a, n_a), (b, n_b) = list(groups.items())[:2]

    def records(n: int, name: str) -> str:
        return f"{n:,} {name} record{'' if n == 1 else 's'}"

    return (f"too few records to assess: it compares {records(n_a, a)} with {records(n_b, b)}, and each group "
            f"needs at least {minimum}: with fewer, chance alone can move the comparison past any threshold")


#: The small constant of every distance ratio: ``(a + EPS) / (b + EPS)`` stays finite when ``b`` is 0.
EPS = 1e-12


def eps_ratio(a: ArrayLike, b: ArrayLike) -> NDArray[np.float64]:
    """``(a + EPS) / (b + EPS)``, the ratio convention of every distance ratio (a copy's 0 / 0 is 1, not NaN).

    >>> [round(v, 9) for v in eps_ratio([0.0, 1.0], [0.0, 2.0]).tolist()]
    [1.0, 0.5]
    """
    out = np.asarray(a, dtype=np.float64) + EPS
    den = np.asarray(b, dtype=np.float64)
    if out.ndim == 1 and den.shape == out.shape:  # divided where it is, a block at a time: one new array
        for i in range(0, out.shape[0], RATIO_BLOCK):
            out[i:i + RATIO_BLOCK] /= den[i:i + RATIO_BLOCK] + EPS
    else:
        out /= den + EPS
    return out


#: Records :func:`eps_ratio` divides at a time (8 MB of denominators).
RATIO_BLOCK = 1 << 20


def space_for(ctx: Any, metric: str, default: str) -> SpaceSpec:
    """The distance space ``metric`` runs in: the caller's choice (``spaces={metric: ...}``) or ``default``."""
    space: SpaceSpec = ctx.metric_space(metric, default)
    return space


def dcr_arrays(ctx: Any, space: SpaceSpec | None = None, *, within_real: bool = True, holdout: bool = True,
               nearest: bool = True) -> dict[str, Any]:
    """DCR(s, T) ("S"), DCR(h, T) and the holdout's exact-copy flags ("H" and "H_copies", with a holdout unless
    ``holdout`` is false), DCR(t, T \\ t) ("T", unless ``within_real`` is false), the exact-copy flags of S
    ("copies"), the nearest real position of each s ("nearest", unless ``nearest`` is false) and the space label
    ("space").

    Reads the cached k=1 tables; only the first call of an evaluation searches. A caller leaves out what it does
    not read: with a Dask client each array is read back from the workers when it is asked for (8 bytes a record).
    """
    sp = space or space_for(ctx, "dcr", "gower")
    # the copy flags first (one byte a record): the first of an evaluation finds the identical records, whose
    # temporaries then meet none of the distance columns read below
    with_holdout = ctx.H is not None and holdout
    h_copies = ctx.identical_in(ctx.H, ctx.T) if with_holdout else None
    copies = ctx.identical_in(ctx.S, ctx.T)
    out: dict[str, Any] = {"space": sp.label, "gower": sp.kind == "gower"}
    out["S"] = ctx.knn(sp, ctx.S, ctx.T, 1).dist[:, 0]
    if nearest:
        out["nearest"] = ctx.knn(sp, ctx.S, ctx.T, 1).idx[:, 0]
    if within_real:
        out["T"] = ctx.knn(sp, ctx.T, ctx.T, 1).dist[:, 0]
    if with_holdout:
        out["H"] = ctx.knn(sp, ctx.H, ctx.T, 1).dist[:, 0]
        out["H_copies"] = h_copies
    out["copies"] = copies
    return out


def nndr_values(dcr: ArrayLike, nearest: ArrayLike, real_knn_dist: ArrayLike) -> NDArray[np.float64]:
    """NNDR(s) = DCR(s, T) / mean distance of t* to its k nearest records of T \\ t* (docs/metrics.md, "nndr").

    Parameters
    ----------
    dcr : array (n,)
        DCR(s, T).
    nearest : int array (n,)
        Position of t*, the nearest record of s in T.
    real_knn_dist : array (|T|, k) or (|T|,)
        Distances of each t to its k nearest records of T \\ t, or their row means
        (:meth:`~synthpriv_report.neighbors.NeighborTable.row_means`: the same numbers, made where the table is).

    >>> [round(float(v), 9) for v in nndr_values([0.1, 0.0], [0, 1], np.array([[0.2, 0.4], [0.1, 0.1]]))]
    [0.333333333, 0.0]
    >>> [round(float(v), 9) for v in nndr_values([0.1, 0.0], [0, 1], np.array([0.3, 0.1]))]
    [0.333333333, 0.0]
    """
    real = np.asarray(real_knn_dist, dtype=np.float64)
    return _nndr_ratio(dcr, (real if real.ndim == 1 else real.mean(axis=1))[np.asarray(nearest, dtype=np.int64)])


def _nndr_ratio(dcr: ArrayLike, denom: NDArray[np.float64]) -> NDArray[np.float64]:
    """eps_ratio's numbers, made in two arrays of a record each instead of four: (dcr + EPS) / (denom + EPS);
    ``denom`` (a new array, the mean distance of each record's t*) is changed in place."""
    denom += EPS
    out = np.asarray(dcr, dtype=np.float64) + EPS
    out /= denom
    return out


def nndr_of(ctx: Any, s: Any) -> NDArray[np.float64]:
    """NNDR per record of set ``s`` against the training data: the array :func:`nndr_arrays` holds under ``"S"``
    (``s`` the synthetic set) or ``"H"`` (the holdout), one array per set shared by the contexts that read it (the
    holdout's is the calibration's "S")."""
    sp = space_for(ctx, "nndr", "gower")
    k = ctx.settings["nndr_k"]

    def make() -> NDArray[np.float64]:
        # nndr_values' numbers, one array read at a time: each denominator found (the nearest positions and the
        # real records' means let go) before the distances are read. A table handed out keeps what it reads, so
        # each column is asked of its own.
        real = ctx.knn(sp, ctx.T, ctx.T, k)  # searched first, as ever; nothing read yet
        nearest = ctx.knn(sp, s, ctx.T, 1).idx[:, 0]
        denom = real.row_means()[nearest]  # 8 bytes a real record, not 8 k
        del nearest, real
        return _nndr_ratio(ctx.knn(sp, s, ctx.T, 1).dist[:, 0], denom)

    return ctx.memo(("nndr.values", sp, k, s), make)  # type: ignore[no-any-return]


def nndr_arrays(ctx: Any) -> dict[str, Any]:
    """NNDR per synthetic record ("S") and per holdout record ("H", with a holdout) (docs/metrics.md, "nndr")."""
    sp = space_for(ctx, "nndr", "gower")
    k = ctx.settings["nndr_k"]

    def make() -> dict[str, Any]:
        out = {"space": sp.label, "k": k, "S": nndr_of(ctx, ctx.S)}
        if ctx.H is not None:
            out["H"] = nndr_of(ctx, ctx.H)
        return out

    arrays: dict[str, Any] = ctx.memo(("nndr.arrays", sp, k, ctx.S, ctx.H), make)
    return arrays


def bootstrap_summary(values: NDArray[np.float64], ctx: Any,
                      params: dict[str, Any]) -> dict[str, tuple[float, float]]:
    """Percentile-bootstrap 95% intervals of the mean, the median and the 5th percentile of ``values``
    (``params["n_bootstrap"]`` resamples, seeded by the evaluation's ``random_state``)."""
    return stats.bootstrap_stats(values, n_resamples=int(params["n_bootstrap"]), random_state=ctx.random_state,
                                 quantiles=(0.5, 0.05), plans=ctx.resample_plans)


def describe(values: NDArray[np.float64], ctx: Any, params: dict[str, Any], key: str) -> dict[str, Any]:
    """Summary statistics with bootstrap intervals, cached per array so that slider moves stay cheap."""

    def make() -> dict[str, Any]:
        s: dict[str, Any] = stats.summary(values)
        ci = bootstrap_summary(values, ctx, params)
        s.update({"mean_ci": ci["mean"], "median_ci": ci["q0.5"], "p5_ci": ci["q0.05"]})
        return s

    described: dict[str, Any] = ctx.memo(("describe", key, ctx.S, ctx.H, int(params["n_bootstrap"]), ctx.random_state),
                                         make)
    return described


def figure_evidence(data: Any, build: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, Any] | None:
    """What a figure draws: a result's stored evidence (None when it has none), or ``build(arrays)`` when it is
    given the cached arrays themselves."""
    if isinstance(data, MetricResult):
        return dict(data.evidence) if data.computed and data.evidence else None
    if isinstance(data, dict):
        return build(data)
    return None
