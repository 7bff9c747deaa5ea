"""``exact_copies`` and ``near_copies``: the copy checks of the verdict. Synthetic records that are a training
record, verbatim or with a small change, against the same share for fresh real records.

A generator that memorises people does not always reproduce them verbatim: one number moved by a unit, one
category changed, redacted or re-spelled, every number rounded to float32. Such a record still points at one
real person. A synthetic record is a *near copy* when one of these holds:

- it is an exact copy (every column equal, numbers at the synthetic column's precision);
- it equals a training record on every column but one, and the differing value is close: a number within the
  near-copy number cut-off (below), a category whatever its new value (an existing level, a re-spelling, a
  redaction: a category has no nearer or farther value, Gower's distance puts every pair of levels at 1);
- its distance to the closest training record is below the distance that only ``near_copy_quantile`` (1%) of
  training records have to their own closest other training record: it is closer than real people lie to one
  another (the cut-off is calibrated on the real data, not a fixed constant).

The number cut-off of the one-column rule is calibrated the same way: the ``near_copy_quantile`` of the training
records' smallest range-scaled difference in one number to another training record equal on every other column.
Without it, on tables with few columns, where most fresh real records equal a training record on all their
categories and differ in one number, 42-83% of fresh records were "near copies" and no leak could rise above them.

Its baseline is the same flag for fresh real records: holdout records against the training data, or without a
holdout each training record against the *other* training records. The level compares the two shares through
both sides' uncertainty (:func:`synthpriv_report.stats.evidence.excess_share`), as for exact copies.

``exact_copies`` grades a second statistic: the copies of training records *unique* on the analysed columns, the
informative event (a copy of a record many people share reveals little about any of them). With a holdout, as
``unique_disclosure`` compares its records: the share of training uniques that the synthetic data contain against
the share of holdout records that no training record equals (:func:`training_uniques_copied`); without one, the
synthetic records that copy a training unique against the training records that copy a unique of the others
(:func:`copies_unique`). Each statistic is tested at half the check's per-check level (:func:`statistic_alpha`);
the level reads the larger lower bound. (The holdout records that equal a training unique were tried as the
baseline first: a generator of independent marginals, which favours rare combinations of values, then looked like
a copier on four categorical columns of Adult, 7 of 20 honest releases graded high.)

Equality on "every column but one" is found by hashing: each cell is mapped to a 64-bit word by a bijection of
its value (numbers by their float64 bits, categories by their code), a record's key with column j left out is
the sum of its other cells' words; per column the training records are sorted by that key and then by the
column's value, so the nearest differing value is found by binary search, and every match is then checked cell by
cell, so a match is exact (:func:`one_column_gaps`; with a Dask client the records are grouped by every column
but one in a join on the workers, a column at a time, :func:`_gaps_by_joins`, with the same result).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ... import stats
from ..._compiled import COMPILED, njit
from ...core import plotting as plot
from ...core.formats import fmt_count, fmt_share
from ...core.formats import is_finite_number as finite
from ...core.params import SOURCES
from ...core.registry import (
    Computation,
    FigureSpec,
    Grading,
    LevelSpec,
    MetricSpec,
    NotRequired,
    Param,
    Presentation,
    ResultJSON,
    TypedDict,
    Words,
    register,
    verdict_alpha,
)
from ...core.results import InconsistentReportError, MetricResult, not_computed, stored_count, stored_number
from ...data.containers import code_dtype, position_dtype
from ...stats import evidence
from .._shared.arrays import space_for

NEAR_COPY_QUANTILE = Param(
    "near_copy_quantile", 0.01, low=0.0, high=0.5, low_open=True, slider=(0.001, 0.1, 0.001),
    label="near-copy distance quantile",
    doc="A synthetic record closer to a training record than this share of training records are to their own "
        "closest other training record counts as a near copy.")

def near_copy_cutoff(within: NDArray[np.float64], quantile: float) -> float:
    """The distance below which a record counts as a near copy: the ``quantile`` of the training records'
    distances to their closest other training record (linear interpolation).

    >>> near_copy_cutoff(np.array([0.1, 0.2, 0.3, 0.4, 0.5]), 0.25)
    0.2
    """
    return float(np.quantile(np.asarray(within, dtype=np.float64), quantile))


def leave_one_out_cutoffs(within: NDArray[np.float64], quantile: float) -> NDArray[np.float64]:
    """Per training record, the cut-off computed from the *other* training records' distances.

    A fresh record is compared with a cut-off it took no part in; a training record compared with a cut-off
    computed with its own distance would be flagged less often (at 100 records, 1 in 100 against about 2 in 101
    for a fresh record), which makes an honest release look worse than its baseline.

    >>> leave_one_out_cutoffs(np.array([0.1, 0.2, 0.3, 0.4, 0.5]), 0.25).round(6).tolist()
    [0.275, 0.25, 0.175, 0.175, 0.175]
    """
    d = np.asarray(within, dtype=np.float64)
    n = d.size
    if n < 2:
        return np.full(n, np.nan)
    order = np.argsort(d, kind="stable").astype(position_dtype(n), copy=False)  # 4 bytes a record
    h = quantile * (n - 2)  # position in the n - 1 other values
    lo = int(np.floor(h))
    frac = h - lo

    def y(i: int) -> NDArray[np.float64]:  # the i-th smallest of the others: x[i] after the record, else x[i + 1]
        i = min(i, n - 2)
        after = np.ones(n, dtype=bool)
        after[order[:i + 1]] = False  # the records at sorted positions 0..i
        values: NDArray[np.float64] = np.where(after, d[order[i]], d[order[i + 1]])
        return values

    # a + frac * (b - a), made in place: one array of the records' values at a time besides the sort
    a = y(lo)
    b = y(lo + 1)
    b -= a
    b *= frac
    a += b
    return a


def exact_copy_share(is_copy: ArrayLike) -> tuple[float, tuple[float, float]]:
    """Share of records with an identical real record, with its Wilson interval (docs/metrics.md, "dcr").

    >>> exact_copy_share([True, False, False, True])[0]
    0.5
    """
    c = np.asarray(is_copy, dtype=bool)
    share = float(c.mean()) if c.size else float("nan")
    return share, stats.wilson(share, int(c.size))


def copy_baseline(ctx: Any, flags_of: Any) -> tuple[NDArray[np.bool_], NDArray[np.bool_],
                                                      NDArray[np.integer] | None, str]:
    """The baseline of a copy check: the same flag for fresh real records.

    With a holdout, each holdout record against the training data (independent records). Without one, each
    training record against the *other* training records (leave one out): how often a real record has a
    duplicate or near duplicate in the real data itself. Duplicates flag one another, so those flags come with
    groups (records that flag each other share one) for the design effect.

    ``flags_of(query, ref)`` returns ``(flags, partner, unique)``: per query record its flag, the position in
    ``ref`` of the record that flagged it (-1 where none) and whether the record it copies is a training unique
    (:func:`copies_unique`). Returns the flags, the unique flags, the groups (None for a holdout) and the
    baseline's name.
    """
    if ctx.H is not None:
        flags, _, unique = flags_of(ctx.H, ctx.T)
        return flags, unique, None, "holdout"
    flags, partner, unique = flags_of(ctx.T, ctx.T)
    return flags, unique, _pair_groups(partner), "training"


def _pair_groups(partner: NDArray[np.integer]) -> NDArray[np.integer]:
    """Connected groups of records linked to the record that flagged them (-1: no link), in the narrowest integer
    type that holds the records' positions (:func:`~synthpriv_report.data.containers.position_dtype`).

    Groups are numbered in the order of their first record, as ``scipy.sparse.csgraph.connected_components``
    (weak connection) numbers them. Each record has at most one link, so the compiled path finds the groups by
    union-find in one array of 4 bytes a record (:func:`_linked_groups`) instead of a sparse graph of about 40;
    without numba the sparse graph is used. The tests check that both give the same numbers.

    >>> _pair_groups(np.array([-1, 3, -1, 0, 2])).tolist()
    [0, 0, 1, 0, 1]
    """
    if COMPILED:
        out = np.empty(partner.size, dtype=position_dtype(partner.size))
        _linked_groups(partner, out)
        return out
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    n = partner.size
    rows = np.flatnonzero(partner >= 0)
    graph = coo_matrix((np.ones(rows.size), (rows, partner[rows])), shape=(n, n))
    groups: NDArray[np.integer] = connected_components(graph, directed=True, connection="weak")[1].astype(
        position_dtype(n))
    return groups


@njit(cache=True)  # type: ignore[untyped-decorator]  # numba has no type hints: its njit is Any
def _root(out: NDArray[np.integer], x: int) -> int:  # pragma: no cover - compiled
    """The root of ``x`` in the pointers ``out``, halving the path on the way (a pointer only moves to a smaller
    position)."""
    while out[x] != x:
        out[x] = out[out[x]]
        x = out[x]
    return x


@njit(cache=True)  # type: ignore[untyped-decorator]  # numba has no type hints: its njit is Any
def _linked_groups(partner: NDArray[np.integer], out: NDArray[np.integer]) -> None:  # pragma: no cover - compiled
    """Union-find over the links ``i -- partner[i]`` in ``out``, then each record's group numbered by its group's
    first record. Every pointer goes to a smaller position (a root is its group's first record), so one pass in
    position order flattens the pointers and a second numbers the roots in order and gives every record its root's
    number."""
    n = partner.size
    for i in range(n):
        out[i] = i
    for i in range(n):
        j = partner[i]
        if j < 0:
            continue
        a, b = _root(out, i), _root(out, j)
        if a < b:
            out[b] = a
        elif b < a:
            out[a] = b
    for i in range(n):  # out[i] < i points at a record already flattened: at its root
        out[i] = out[out[i]]
    count = 0
    for i in range(n):  # a root keeps out[i] == i until numbered; every other record's root is numbered before it
        if out[i] == i:
            out[i] = count
            count += 1
        else:
            out[i] = out[out[i]]


def _exact_flags(ctx: Any, query: Any, ref: Any) -> tuple[NDArray[np.bool_], NDArray[np.integer]]:
    flags = ctx.identical_in(query, ref)
    ids_q = ctx.record_ids(query)
    ids_r = ids_q if query == ref else ctx.record_ids(ref)  # within one set: its ids read once
    held = position_dtype(ids_r.size)  # positions of ref, 4 bytes a record below 2**31 records
    # a flagged record's id is one of ref's: a slot per id of ref, not per id of every set
    first = np.full(int(ids_r.max(initial=0)) + 1, -1, dtype=held)
    first[ids_r[::-1]] = np.arange(ids_r.size - 1, -1, -1, dtype=held)
    partner = np.full(ids_q.size, -1, dtype=held)
    partner[flags] = first[ids_q[flags]]
    del first
    if query == ref:  # a record's partner is another record with its id: the first one, or for it the next
        partner[flags & (partner == np.arange(ids_q.size, dtype=held))] = -1
    return flags, partner


#: How many statistics ``exact_copies`` grades: the copies among all synthetic records and the copies of training
#: uniques. Each is tested at the check's one-sided level divided by this (Bonferroni within the check), so that the
#: check as a whole keeps its share of the verdict's false alarms. ``near_copies`` grades one.
COPY_STATISTICS = 2


def statistic_alpha(statistics: int = COPY_STATISTICS) -> float:
    """The one-sided level of each of a copy check's ``statistics``: the verdict's per-check level divided by
    their number."""
    return verdict_alpha() / statistics


def excess_evidence(flags: NDArray[np.bool_], base: NDArray[np.bool_], groups: NDArray[np.integer] | None,
                    baseline: str, *, statistics: int = 1) -> dict[str, Any]:
    """Details of a copy check: the synthetic share against its baseline, both sides' uncertainty counted
    (:func:`synthpriv_report.stats.evidence.excess_share` at :func:`statistic_alpha`, the check's level shared by its
    ``statistics``)."""
    alpha = statistic_alpha(statistics)
    e = evidence.excess_share(flags, base, alpha=alpha, baseline_groups=groups)
    n_base = int(base.size)
    return {"baseline": baseline, "baseline_share": e["baseline_share"], "n_baseline": n_base,
            "baseline_interval": stats.wilson(e["baseline_share"], n_base),
            "baseline_design_effect": e["deff_baseline"], "excess": e["excess"],
            "excess_lower_bound": e["excess_lower"], "check_alpha": verdict_alpha(), "statistic_alpha": alpha}


def unique_evidence(flags: NDArray[np.bool_], base: NDArray[np.bool_], groups: NDArray[np.integer] | None,
                    baseline: str, flagged: str) -> dict[str, Any]:
    """The second statistic of ``exact_copies``: ``flags`` counted in ``flagged`` against the baseline ``base``,
    as :func:`excess_evidence` compares them (without the levels, stored once in the check's details)."""
    e = excess_evidence(flags, base, groups, baseline, statistics=COPY_STATISTICS)
    del e["check_alpha"], e["statistic_alpha"]
    return {flagged: int(flags.sum()), "n": int(flags.size), **e}


def excess_again(details: Mapping[str, Any], flagged: str, *, where: tuple[Any, ...] = ("details",),
                 baseline: tuple[int, float | None] | None = None, statistics: int = 1
                 ) -> dict[tuple[Any, ...], float]:
    """A copy check's comparison with its baseline computed again from its stored counts (what
    :func:`excess_evidence` stored, on a report read back from JSON): the synthetic share ``flagged / n``, the
    baseline's Wilson interval, the excess and the lower end of Newcombe's interval at the verdict's per-check
    level shared by its statistics (:func:`statistic_alpha`), by the functions that made them
    (:func:`synthpriv_report.stats.evidence.newcombe_lower`).

    The baseline's design effect (duplicates among the training records flag one another) rests on per-record
    groups a report does not store: it must be 1 for a holdout (independent records) or for a baseline share of 0
    or 1, and otherwise lie between 1 and the number of baseline records (Kish's design effect is at most the
    largest group), and the bound is computed again at the stored one.

    Parameters
    ----------
    details : mapping
        The stored details (``n``, ``flagged``, ``baseline_share``, and unless ``baseline`` is given
        ``n_baseline``, ``baseline_design_effect``).
    flagged : str
        The key counting the flagged synthetic records.
    where : tuple
        The path of ``details`` in the result's JSON form.
    baseline : (int, float or None), optional
        The number of baseline records and their design effect, for a summary nested in another check's details
        (compared with that check's baseline records); a design effect of ``None`` (not stored) leaves the
        summary's lower bound unchecked.

    Returns
    -------
    dict
        Field path to the number the counts give; ``("value",)`` is the synthetic share.
    """
    n = stored_count(details, "n", where=where)
    if n == 0:
        raise InconsistentReportError("is 0: a share of no records cannot be graded", (*where, "n"))
    share = stored_count(details, flagged, high=n, where=where) / n
    p0 = stored_number(details, "baseline_share", low=0.0, high=1.0, where=where)
    alpha = statistic_alpha(statistics)
    out: dict[tuple[Any, ...], float] = {("value",): share, (*where, "excess"): share - p0}
    deff: float | None
    if baseline is None:
        n0 = stored_count(details, "n_baseline", where=where)
        if n0 == 0:
            raise InconsistentReportError("is 0: a baseline of no records gives no comparison",
                                          (*where, "n_baseline"))
        deff = stored_number(details, "baseline_design_effect", low=1.0, high=float(n0), where=where)
        if details.get("baseline") == "holdout" or p0 in (0.0, 1.0):
            out[where + ("baseline_design_effect",)] = deff = 1.0
        out[where + ("baseline_interval", 0)], out[where + ("baseline_interval", 1)] = stats.wilson(p0, n0)
        if where == ("details",):
            out[where + ("check_alpha",)] = verdict_alpha()
            out[where + ("statistic_alpha",)] = alpha
    else:
        n0, deff = baseline
    out[where + ("baseline_share",)] = round(p0 * n0) / n0  # a whole number of flagged baseline records
    if deff is not None:
        n_eff = n0 / deff
        out[where + ("excess_lower_bound",)] = evidence.newcombe_lower(share * n, n, p0 * n_eff, n_eff,
                                                                      z=evidence.z_of(alpha))
    return out


def copy_check_again(flagged: str, statistics: int = 1) -> Callable[[MetricResult], dict[tuple[Any, ...], float]]:
    """The re-derivation of a copy check (its ``LevelSpec.rederive``) whose flagged synthetic records are counted
    in ``details[flagged]`` and which grades ``statistics`` statistics: :func:`excess_again`, the Wilson interval
    of the share, the near copies by kind, for ``exact_copies`` the copies of training uniques
    (``unique_copies``) and its near-copy summary, and the bound its level reads (the largest of the lower
    ends).

    Without a holdout the near-copy summary inside ``exact_copies`` does not store its baseline's design effect,
    so its lower bound is not computed again there; the ``near_copies`` check, which drives the verdict too, stores
    it and its own bound is computed again."""

    def again(r: MetricResult) -> dict[tuple[Any, ...], float]:
        d = r.details
        out = excess_again(d, flagged, statistics=statistics)
        out[("interval", 0)], out[("interval", 1)] = stats.wilson(out[("value",)], stored_count(d, "n"))
        if "holdout_copy_share" in d:
            out[("details", "holdout_copy_share")] = out[("details", "baseline_share")]
            out[("details", "holdout_copy_interval", 0)] = out[("details", "baseline_interval", 0)]
            out[("details", "holdout_copy_interval", 1)] = out[("details", "baseline_interval", 1)]
        kinds = [key for key in ("n_exact", "n_one_column", "n_closer_than_real") if key in d]
        total = sum(stored_count(d, key) for key in kinds)
        if kinds and total != stored_count(d, flagged):
            raise InconsistentReportError(f"is {d[flagged]!r} but its kinds ({', '.join(kinds)}) add up to {total}",
                                          ("details", flagged))
        lower = out[("details", "excess_lower_bound")]
        base = (stored_count(d, "n_baseline"), 1.0 if d.get("baseline") == "holdout" else None)
        unique = d.get("unique_copies")
        if isinstance(unique, Mapping):  # the copies of training uniques: a full comparison of its own
            at: tuple[Any, ...] = ("details", "unique_copies")
            inner = excess_again(unique, flagged, where=at, statistics=statistics)
            inner.pop(("value",))
            out.update(inner)
            lower = max(lower, inner[at + ("excess_lower_bound",)])
        near = d.get("near_copies")
        if isinstance(near, Mapping):
            # compared with the same baseline records: independent ones for a holdout
            where: tuple[Any, ...] = ("details", "near_copies")
            inner = excess_again(near, "n_near_copies", where=where, baseline=base)
            inner.pop(("value",))
            out.update(inner)
            lower = max(lower, inner.get(where + ("excess_lower_bound",),
                                         stored_number(near, "excess_lower_bound", where=where)))
        if "copy_check_lower_bound" in d:
            out[("details", "copy_check_lower_bound")] = lower
        return out

    return again


#: The low band of the copy checks: a copy risk is ruled out when the synthetic share exceeds its baseline by at most
#: this much (3 percentage points) at the upper end of Newcombe's interval at the check's level.
COPY_NEGLIGIBLE = 0.03


def copy_excess_upper(details: Mapping[str, Any], flagged: str) -> float | None:
    """The upper end of Newcombe's interval of the synthetic share minus its baseline, at the level its lower end
    is read at (``statistic_alpha`` where the check tests two statistics, else the verdict's per-check level),
    from the counts a copy check stores (the risky end its "ruled out" reads); for ``exact_copies`` the larger of
    the exact-copy and the near-copy comparison (near copies count as copies there). The copies of training
    uniques are a part of these copies, so the bound on all copies covers them. ``None`` when a count is
    missing.

    >>> round(copy_excess_upper({"n": 1000, "n_copies": 0, "baseline_share": 0.0, "n_baseline": 1000,
    ...                          "baseline_design_effect": 1.0}, "n_copies"), 4)
    0.006
    """
    alpha = details.get("statistic_alpha")
    z = evidence.z_of(float(alpha) if isinstance(alpha, (int, float)) and 0 < alpha < 1 else verdict_alpha())

    def upper(d: Mapping[str, Any], key: str, n0: float, deff: float) -> float | None:
        n, k, p0 = d.get("n"), d.get(key), d.get("baseline_share")
        if not (isinstance(n, (int, float)) and math.isfinite(n) and isinstance(k, (int, float)) and math.isfinite(k)
                and isinstance(p0, (int, float)) and math.isfinite(p0)) or not n or not n0:
            return None
        m0 = float(n0) / max(float(deff), 1.0)
        return evidence.newcombe_upper(float(k), float(n), float(p0) * m0, m0, z=z)

    n0 = details.get("n_baseline")
    deff = details.get("baseline_design_effect") or 1.0
    if not isinstance(n0, (int, float)) or not isinstance(deff, (int, float)):
        return None
    bound = upper(details, flagged, n0, deff)
    near = details.get("near_copies")
    if bound is not None and isinstance(near, Mapping):
        inner = upper(near, "n_near_copies", n0, 1.0 if details.get("baseline") == "holdout" else deff)
        bound = None if inner is None else max(bound, inner)
    return bound


def copy_check_level(share: str, what: str, baseline: str, source: str, *,
                     key: str = "excess_lower_bound", flagged: str = "n_copies", statistics: int = 1) -> LevelSpec:
    """The level rule of a copy check (exact or near copies): high when the lower end of Newcombe's interval of the
    synthetic share minus its baseline, at the verdict's per-check level, is above 0 (``key``: the details entry
    holding that lower end; ``flagged``: the one counting the flagged synthetic records, from which a report read
    back is checked by :func:`copy_check_again`)."""
    return LevelSpec(
        medium=None, high=0.0, difference=True, direction="higher_is_riskier",
        rederive=copy_check_again(flagged, statistics),
        of=lambda r: r.details.get(key, r.details.get("excess_lower_bound")),
        risky_end=lambda r: copy_excess_upper(r.details, flagged), negligible=COPY_NEGLIGIBLE,
        risky_scale="the upper end of that interval",
        scale=f"the lower confidence bound of the {share} minus its baseline ({baseline})",
        source=f"{source}; the comparison is Newcombe's interval for a difference of two shares",
        description=f"high when the synthetic data hold more {what} of training records than fresh real records "
                    f"do, beyond chance: the lower end of the interval of the difference of the two "
                    f"shares (both sides' uncertainty, at the verdict's per-check level) is above {{high}}")


def _copies_compute(ctx: Any, params: dict[str, Any]) -> MetricResult:
    # near copies count as copies: the check also compares the near-copy shares. Made first (and kept), while
    # this step holds none of its own per-record arrays
    near = near_copy_evidence(ctx, params)["details"] if ctx.size(ctx.T) >= 2 else None
    copies = ctx.identical_in(ctx.S, ctx.T)
    share, interval = exact_copy_share(copies)
    details: dict[str, Any] = {"n_copies": int(copies.sum()), "n": int(copies.size),
                               "distinct_real_records_copied": int(np.unique(ctx.record_ids(ctx.S)[copies]).size)}

    def flags_of(q: str, r: str) -> tuple[NDArray[np.bool_], NDArray[np.integer], NDArray[np.bool_]]:
        f, partner = _exact_flags(ctx, q, r)
        return f, partner, copies_unique(ctx, q, f, f, partner)

    base, base_unique, groups, which = copy_baseline(ctx, flags_of)
    details.update(excess_evidence(copies, base, groups, which, statistics=COPY_STATISTICS))
    if ctx.H is not None:
        details["holdout_copy_share"] = details["baseline_share"]
        details["holdout_copy_interval"] = details["baseline_interval"]
        targets, unseen, unseen_groups = training_uniques_copied(ctx)
        if targets.size and unseen.size:  # a comparison of no records is not made
            details["unique_copies"] = unique_evidence(targets, unseen, unseen_groups, "holdout_unseen", "n_copies")
    else:
        unique = copies_unique(ctx, ctx.S, copies, copies, np.full(copies.size, -1))
        details["unique_copies"] = unique_evidence(unique, base_unique, groups, which, "n_copies")
    lower = details["excess_lower_bound"]
    if "unique_copies" in details:
        lower = max(lower, details["unique_copies"]["excess_lower_bound"])
    if near is not None:
        details["near_copies"] = {k: near[k] for k in ("n_near_copies", "n", "baseline_share", "excess",
                                                       "excess_lower_bound")}
        lower = max(lower, near["excess_lower_bound"])
    details["copy_check_lower_bound"] = lower
    share_unique = unique_training_share(ctx)
    details["unique_training_share"] = share_unique
    notes = [uniqueness_note(share_unique)]
    if share_unique >= UNIQUE_SHARE_NOTE:  # below it, the uniqueness note says the checks have little power
        note = copy_baseline_note(float(details["baseline_share"]), ctx.H is not None)
        notes += [note] if note else []
    return MetricResult(name="exact_copies", value=share, interval=interval, details=details, notes=tuple(notes))


def training_uniques_copied(ctx: Any) -> tuple[NDArray[np.bool_], NDArray[np.bool_], NDArray[np.integer]]:
    """With a holdout, the copies of training uniques as ``unique_disclosure`` compares its records: per training
    record unique on the analysed columns, whether the synthetic data contain it; per holdout record that no
    training record equals (each would be unique had it been in the training data, exactly the condition a
    training unique meets), whether the synthetic data contain it; and the groups of identical holdout records
    (the same synthetic records decide them: Kish's design effect).

    A training unique and such a holdout record are alike in everything but membership, so a generator that did
    not copy its training records contains both equally often, whatever distribution it draws from: one that
    over-represents rare combinations of values, as independent marginals do, hits rare holdout records as often
    as rare training records. (Counting instead the holdout records that equal a training unique would compare a
    fresh record's rate with the generator's, and a generator that favours rare combinations would look like a
    copier.)
    """
    ids_t = ctx.record_ids(ctx.T)
    ids_s = ctx.record_ids(ctx.S)
    ids_h = ctx.record_ids(ctx.H)
    top = int(max(ids_t.max(initial=-1), ids_s.max(initial=-1), ids_h.max(initial=-1))) + 1
    count = np.bincount(ids_t.astype(np.intp), minlength=top)
    in_s = np.zeros(top, dtype=bool)
    in_s[ids_s] = True
    uniques = ids_t[count[ids_t] == 1]
    unseen = ids_h[count[ids_h] == 0]
    return in_s[uniques], in_s[unseen], unseen


def unique_training_share(ctx: Any) -> float:
    """Share of training records that no other training record equals on the analysed columns."""
    return float(1.0 - np.mean(ctx.identical_in(ctx.T, ctx.T))) if ctx.size(ctx.T) else float("nan")


#: Below this share of unique training records, the copy checks are said to have little power.
UNIQUE_SHARE_NOTE = 0.5

#: From this share of fresh real records that equal a training record (the exact-copy baseline), the exact-copy
#: check is said to have little power.
COPY_BASELINE_NOTE = 0.05

#: The measured power the notes quote: ``python benchmarks/bench_calibration.py --part few --draws 20`` (tables
#: of four categories and one number, 1,000 records a set) and the copy checks over ``--part leaks``' draws (four
#: categorical columns of Adult).
#: Keep in step with the README's tables.
MEASURED_POWER = {
    "categorical": "on four categorical columns of Adult, where under half the records are unique, 3% exact copies "
                   "and 10% copies with one category changed, redacted or re-spelled were found in none of 5 "
                   "simulated releases of 1,000 records",
    "copies": "on tables of four categories and one number (Bank's job, marital, education, housing and balance), "
              "where 6-8% of fresh records equal a training record, 3% exact copies were found in {} of 20 simulated "
              "releases of 1,000 records",
    "copies_holdout": "16",
    "copies_training": "6",
}


def uniqueness_note(unique: float) -> str:
    """The reader's sentence on how unique the training records are, which says how much a copy reveals (with the
    measured power below :data:`UNIQUE_SHARE_NOTE`).

    >>> uniqueness_note(0.98)[:60]
    '98% of the training records are unique on the analysed colum'
    >>> uniqueness_note(0.9986)[:45]  # never "100%" where not every record is unique
    '99.9% of the training records are unique on t'
    >>> "none of 5" in uniqueness_note(0.3)
    True
    """
    text = (f"{fmt_share(unique)} of the training records are unique on the analysed columns (no other training "
            f"record is identical).")
    if unique < UNIQUE_SHARE_NOTE:
        text += (" Most records are shared by several people, so a copy of one reveals little about any single "
                 "person, and the copy checks cannot tell copies from records that fresh real data would also "
                 f"contain: they have little power on such data ({MEASURED_POWER['categorical']}).")
    return text


def _baseline_words(with_holdout: bool) -> str:
    """Whose share a copy check's baseline is, in the reader's words."""
    return ("fresh real records (the holdout)" if with_holdout
            else "the training records (each against the others, for want of a holdout)")


def copy_baseline_note(baseline_share: float, with_holdout: bool) -> str | None:
    """The reader's sentence when many fresh real records equal a training record, so that exact copies must rise
    well above them to show, with the power measured on such tables (None below :data:`COPY_BASELINE_NOTE`).

    >>> copy_baseline_note(0.07, False)[:70]
    '7% of the training records (each against the others, for want of a hol'
    >>> copy_baseline_note(0.01, True) is None
    True
    """
    if not (baseline_share >= COPY_BASELINE_NOTE):
        return None
    whose = _baseline_words(with_holdout)
    power = MEASURED_POWER["copies"].format(MEASURED_POWER["copies_holdout" if with_holdout else "copies_training"])
    return (f"{baseline_share:.0%} of {whose} equal a training record, so copies show only once they rise well "
            f"above that share; the copies of training records unique on the analysed columns are compared too, "
            f"but the check has little power here: {power}"
            f"{' with a holdout' if with_holdout else ' without a holdout'}.")


# ---------------------------------------------------------------------------------------------------------------
# the one-column rule: equal on every other column, and the differing value close


def one_column_gaps(q_words: NDArray[np.uint64], r_words: NDArray[np.uint64], q_values: NDArray[np.float64],
                    r_values: NDArray[np.float64], q_scaled: NDArray[np.float64], r_scaled: NDArray[np.float64],
                    n_numeric: int) -> dict[str, NDArray[Any]]:
    """For each record of ``q``: the records of ``r`` equal to it on every column but one and different in that
    one, found per column, the numeric ones by how close the differing number is.

    Parameters
    ----------
    q_words, r_words : uint64 arrays, shapes (n_q, p), (n_r, p)
        Cell words (:func:`synthpriv_report.matching.identity.cell_words`), the ``n_numeric`` numeric columns first.
    q_values, r_values : float arrays, shapes (n, n_numeric)
        The numbers as records are compared for equality (at the synthetic columns' precision).
    q_scaled, r_scaled : float arrays, shapes (n, n_numeric)
        The same numbers range-scaled on the real data (``(x - min) / range``, the Gower space's coordinates).
    n_numeric : int

    Returns
    -------
    dict
        ``gap`` (float, (n_q,)): the smallest range-scaled difference ``min(1, |a' - b'|)`` in the one numeric
        column where a record of ``r`` differs (a missing value against a number: 1), ``inf`` where none;
        ``gap_column``/``gap_partner``: that column and the record (-1 where none); ``category_column``/
        ``category_partner``: the first categorical column on which alone a record of ``r`` differs, and that
        record (-1 where none).

    A record of ``r`` with the same value in the column is an exact duplicate, not a one-column match, so within
    one set (``q is r``) a record never matches itself or its duplicates. Keys are hashed (the sum of the other
    cells' words); the record found is then checked cell by cell, so a reported match is exact.

    >>> from synthpriv_report.matching.identity import cell_words
    >>> none = np.zeros((3, 0), dtype=np.int64)
    >>> t = np.array([[1.0, 10.0], [1.0, 50.0], [2.0, 10.0]])
    >>> s = np.array([[1.0, 11.0]])
    >>> g = one_column_gaps(cell_words(s, none[:1]), cell_words(t, none), s, t, s / 100, t / 100, 2)
    >>> round(float(g["gap"][0]), 6), int(g["gap_column"][0]), int(g["gap_partner"][0])
    (0.01, 1, 0)
    """
    from ...matching.identity import equal_but, keys_but, row_totals

    n_q, p = q_words.shape
    gap = np.full(n_q, np.inf)
    gap_column = np.full(n_q, -1, dtype=np.int64)
    gap_partner = np.full(n_q, -1, dtype=np.int64)
    cat_column = np.full(n_q, -1, dtype=np.int64)
    cat_partner = np.full(n_q, -1, dtype=np.int64)
    out = {"gap": gap, "gap_column": gap_column, "gap_partner": gap_partner, "category_column": cat_column,
           "category_partner": cat_partner}
    if p < 2 or r_words.shape[0] == 0 or n_q == 0:
        return out
    tq, tr = row_totals(q_words), row_totals(r_words)
    for j in range(p):
        kq, kr = keys_but(q_words, tq, j), keys_but(r_words, tr, j)
        numeric = j < n_numeric
        if numeric:
            vq, vr = q_values[:, j], r_values[:, j]
            sq, sr = q_scaled[:, j], r_scaled[:, j]
        else:  # a category's code: any other level is as near as any other (Gower: a mismatch counts 1)
            vq = q_words[:, j].view(np.int64).astype(np.float64)
            vr = r_words[:, j].view(np.int64).astype(np.float64)
            sq, sr = vq, vr
        order = np.lexsort((vr, kr))  # by key, then by value (NaN last), positions ascending among equals
        g = np.full(n_q, np.inf)
        part = np.full(n_q, -1, dtype=np.int64)
        _nearest_differing(kr[order], vr[order], sr[order], order.astype(np.int64), kq, vq, sq, not numeric,
                           g, part)
        found = np.flatnonzero(part >= 0)
        found = found[equal_but(q_words, found, r_words, part[found], j, same=True)]
        if numeric:
            better = found[g[found] < gap[found]]
            gap[better], gap_column[better], gap_partner[better] = g[better], j, part[better]
        else:
            new = found[cat_column[found] < 0]
            cat_column[new], cat_partner[new] = j, part[new]
    return out


def _nearest_differing_loop(ks: NDArray[np.uint64], vs: NDArray[np.float64], ss: NDArray[np.float64],
                            pos: NDArray[np.int64], kq: NDArray[np.uint64], vq: NDArray[np.float64],
                            sq: NDArray[np.float64], category: bool, gap: NDArray[np.float64],
                            partner: NDArray[np.int64]) -> None:  # pragma: no cover - compiled
    """Per query record, among the references with its key (``ks`` sorted; within a key, ``vs`` ascending with
    missing values last), the one whose value differs from the query's and is nearest: its gap (0 for a
    category, else ``min(1, |sq - ss|)``, 1 for a missing value against a number) and position, written to
    ``gap`` and ``partner``; a nearer one on the left wins a tie."""
    n = ks.size
    for i in range(kq.size):
        k = kq[i]
        lo, hi = 0, n
        while lo < hi:
            mid = (lo + hi) // 2
            if ks[mid] < k:
                lo = mid + 1
            else:
                hi = mid
        start = lo
        hi = n
        while lo < hi:
            mid = (lo + hi) // 2
            if ks[mid] <= k:
                lo = mid + 1
            else:
                hi = mid
        end = lo
        if start == end:
            continue
        a, b = start, end  # the first missing value of the group
        while a < b:
            mid = (a + b) // 2
            if vs[mid] == vs[mid]:
                a = mid + 1
            else:
                b = mid
        finite_end = a
        v = vq[i]
        best = np.inf
        bp = -1
        if v != v:  # missing: any number differs, by 1
            if finite_end > start:
                best, bp = 1.0, pos[start]
        else:
            if finite_end < end:
                best, bp = 1.0, pos[finite_end]
            a, b = start, finite_end  # first value >= v
            while a < b:
                mid = (a + b) // 2
                if vs[mid] < v:
                    a = mid + 1
                else:
                    b = mid
            left = a - 1
            a2, b2 = a, finite_end  # first value > v
            while a2 < b2:
                mid = (a2 + b2) // 2
                if vs[mid] <= v:
                    a2 = mid + 1
                else:
                    b2 = mid
            right = a2
            if left >= start:
                d = 0.0 if category else min(1.0, abs(sq[i] - ss[left]))
                if d <= best:
                    best, bp = d, pos[left]
            if right < finite_end:
                d = 0.0 if category else min(1.0, abs(ss[right] - sq[i]))
                if d < best:
                    best, bp = d, pos[right]
        gap[i] = best
        partner[i] = bp


_nearest_differing: Any = njit(cache=True)(_nearest_differing_loop)


def _gap_arrays(ctx: Any, query: str, ref: str) -> dict[str, NDArray[Any]]:
    """:func:`one_column_gaps` of ``query`` against ``ref`` (the numbers at the synthetic columns' precision,
    range-scaled on the real data as in the Gower space), found once per evaluation (memoised). Where the backend
    groups the records equal on every column but one by a join of its own (on a Dask cluster's workers,
    :meth:`~synthpriv_report.engine.context.Context.other_column_ids`), this process holds a column at a time
    (:func:`_gaps_by_joins`): the same arrays."""

    def make() -> dict[str, NDArray[Any]]:
        g = _gaps_by_joins(ctx, query, ref)
        if g is None:
            from ...engine.cache import compared_numbers
            from ...matching.identity import cell_words

            d, codes = ctx.data, ctx.fitted.codes
            nq = compared_numbers(d, query)
            wq = cell_words(nq, codes[query])
            sq = ctx.fitted.rescale(nq)
            if query == ref:
                nr, wr, sr = nq, wq, sq
            else:
                nr = compared_numbers(d, ref)
                wr, sr = cell_words(nr, codes[ref]), ctx.fitted.rescale(nr)
            g = one_column_gaps(wq, wr, nq, nr, sq, sr, len(d.numeric_columns))
        held = position_dtype(ctx.size(ref))
        cols = code_dtype(len(ctx.data.columns))
        return {"gap": g["gap"], "gap_column": g["gap_column"].astype(cols),
                "gap_partner": g["gap_partner"].astype(held), "category_column": g["category_column"].astype(cols),
                "category_partner": g["category_partner"].astype(held)}

    out: dict[str, NDArray[Any]] = ctx.memo(("near_copies.columns", query, ref), make)
    return out


def _gaps_by_joins(ctx: Any, query: str, ref: str) -> dict[str, NDArray[Any]] | None:
    """:func:`one_column_gaps` from the backend's groupings of the records by every column but one, a column at a
    time: the groups are exact (no key to check), a categorical value differs where the whole record's id does,
    and a number is read one column at a time. ``None`` where the backend does not join records itself (in this
    process), or where a join met a collision: the caller then works on whole columns here."""
    from ...engine.cache import compared_numbers

    d = ctx.data
    p, n_num = len(d.columns), len(d.numeric_columns)
    n_q = ctx.size(query)
    if p < 2 or n_q == 0 or ctx.size(ref) == 0:
        return None  # nothing to group by the other columns: the caller's whole-column path, small here
    first = ctx.other_column_ids(query, ref, 0)
    if first is None:
        return None
    out = {"gap": np.full(n_q, np.inf), "gap_column": np.full(n_q, -1, dtype=np.int64),
           "gap_partner": np.full(n_q, -1, dtype=np.int64), "category_column": np.full(n_q, -1, dtype=np.int64),
           "category_partner": np.full(n_q, -1, dtype=np.int64)}
    rid_q: NDArray[np.float64] | None = None
    rid_r: NDArray[np.float64] | None = None
    for j in range(p):
        if j >= n_num and rid_q is None:  # the records' ids, read once the number columns are done
            rid_q = ctx.record_ids(query).astype(np.float64)
            rid_r = rid_q if query == ref else ctx.record_ids(ref).astype(np.float64)
        ids = first if j == 0 else ctx.other_column_ids(query, ref, j)
        first = None  # held only until the first column's groups are read
        if ids is None:
            return None
        kq, kr = (np.asarray(k, dtype=np.int64) for k in ids)
        if j < n_num:
            def column(s: str) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
                blocks = [compared_numbers(d, s, rows=slice(a, min(a + _COLUMN_BLOCK, ctx.size(s))))[:, j]
                          for a in range(0, ctx.size(s), _COLUMN_BLOCK)]
                v = np.concatenate(blocks) if blocks else np.zeros(0)
                return v, ctx.fitted.rescale(v[:, None], [j])[:, 0]

            vq, sq = column(query)
            vr, sr = (vq, sq) if query == ref else column(ref)
        else:
            assert rid_q is not None and rid_r is not None
            vq, sq, vr, sr = rid_q, rid_q, rid_r, rid_r
        order = np.lexsort((vr, kr))
        g = np.full(n_q, np.inf)
        part = np.full(n_q, -1, dtype=np.int64)
        _nearest_differing(kr[order], vr[order], sr[order], order.astype(np.int64), kq, vq, sq, j >= n_num, g, part)
        found = np.flatnonzero(part >= 0)
        if j < n_num:
            better = found[g[found] < out["gap"][found]]
            out["gap"][better], out["gap_column"][better], out["gap_partner"][better] = g[better], j, part[better]
        else:
            new = found[out["category_column"][found] < 0]
            out["category_column"][new], out["category_partner"][new] = j, part[new]
    return out


#: Rows a block when a number column is read on a cluster (one column of a block at a time).
_COLUMN_BLOCK = 65536


def number_tolerance(ctx: Any, quantile: float) -> tuple[float, NDArray[np.float64]]:
    """The largest range-scaled difference in one number that still makes a record equal on every other column a
    near copy: the ``quantile`` of the training records' smallest such difference to another training record
    (records with none count as 2, beyond any difference, which is at most 1); and per training record the same
    cut-off computed from the *other* training records (:func:`leave_one_out_cutoffs`).

    A cut-off of 1 or more counts every one-column match on a number (as when fewer than ``quantile`` of the
    training records have one)."""
    gaps = _gap_arrays(ctx, ctx.T, ctx.T)["gap"]
    filled = np.where(np.isfinite(gaps), gaps, 2.0)
    return near_copy_cutoff(filled, quantile), leave_one_out_cutoffs(filled, quantile)


def near_copy_flags(ctx: Any, query: str, ref: str, cutoff: float | NDArray[np.float64], dist: NDArray[np.float64],
                    nearest: NDArray[np.int64], tolerance: float | NDArray[np.float64]) -> dict[str, Any]:
    """Which records of ``query`` are near copies of a record of ``ref`` (the training data), by kind.

    ``dist``/``nearest``: each query record's distance to its closest record of ``ref`` (itself left out within
    one set) and that record's position. ``tolerance``: the number cut-off of the one-column rule
    (:func:`number_tolerance`). The distances and cut-offs are compared first and let go (where the caller passed
    them as temporaries) before the identical records and the one-column matches are read.
    """
    below = stats.less(dist, np.broadcast_to(np.asarray(cutoff, dtype=np.float64), dist.shape))
    del dist, cutoff
    exact, exact_partner = _exact_flags(ctx, query, ref)

    g = _gap_arrays(ctx, query, ref)
    by_category = g["category_column"] >= 0
    tol = np.broadcast_to(np.asarray(tolerance, dtype=np.float64), g["gap"].shape)
    by_number = np.isfinite(g["gap"]) & ~stats.less(tol, g["gap"])  # the differing number within the cut-off
    one_col = (by_category | by_number) & ~exact
    column = np.where(by_category, g["category_column"], np.where(by_number, g["gap_column"], -1))
    close = below & ~exact & ~one_col
    del below
    flags = exact | one_col | close
    # the three kinds are disjoint: one array, filled kind by kind (not three nested whole-length temporaries)
    partner = np.full(close.shape[0], -1, dtype=position_dtype(ctx.size(ref)))
    partner[close] = nearest[close]
    partner[one_col] = np.where(by_category, g["category_partner"], g["gap_partner"])[one_col]
    partner[exact] = exact_partner[exact]
    return {"flags": flags, "partner": partner, "exact": exact, "one_column": one_col, "column": column,
            "close": close}


def copies_unique(ctx: Any, query: str, flags: NDArray[np.bool_], exact: NDArray[np.bool_],
                  partner: NDArray[np.integer]) -> NDArray[np.bool_]:
    """Which flagged records of ``query`` copy a training record that is *unique* on the analysed columns: no
    other training record equals it. The record copied is the identical one for an exact copy, else the one that
    flagged it (``partner``). Within the training data (leave one out), unique among the *other* training
    records: an exact copy there is one of a pair of identical records.

    Without a holdout, ``exact_copies`` compares the synthetic records' flags with the training records' own
    (leave one out: a training record with exactly one identical other copies a unique of the others, the analogue
    at ``n - 1`` records). A copy of a record that many training records share reveals little about any one of
    them (the synthpop literature's disclosure measures count only records unique in the original).
    """
    ids_t = ctx.record_ids(ctx.T)
    ids_q = ids_t if query == ctx.T else ctx.record_ids(query)
    count = np.bincount(ids_t.astype(np.intp), minlength=int(ids_q.max(initial=-1)) + 1)
    out = np.zeros(flags.shape[0], dtype=bool)
    at = np.flatnonzero(flags & (exact | (partner >= 0)))
    copied = np.where(exact[at], ids_q[at], ids_t[np.maximum(partner[at], 0)])
    c = count[copied]
    if query == ctx.T:
        c = c - (copied == ids_q[at])
    out[at] = c == 1
    return out


def _near_plan(ctx: Any, params: dict[str, Any]) -> list[Any]:
    sp = ctx.metric_space("dcr", "gower")
    reqs = [ctx.request(sp, ctx.S, ctx.T, 1), ctx.request(sp, ctx.T, ctx.T, 1)]
    if ctx.H is not None:
        reqs.append(ctx.request(sp, ctx.H, ctx.T, 1))
    return reqs


def near_copy_evidence(ctx: Any, params: dict[str, Any]) -> dict[str, Any]:
    """The near copies of the synthetic data (flags by kind) and their comparison with the baseline, among all
    records and among the copies of training uniques (cached per ``near_copy_quantile``): read by ``near_copies``
    and by the copy check ``exact_copies``."""
    q = float(params["near_copy_quantile"])

    def make() -> dict[str, Any]:
        sp = space_for(ctx, "dcr", "gower")
        # the records equal but on one column first (kept), while this step holds no per-record array; then each
        # array read as it is used (dcr_arrays' numbers, the holdout's not read here)
        tol, tol_each = number_tolerance(ctx, q)
        _gap_arrays(ctx, ctx.S, ctx.T)
        if ctx.H is not None:
            _gap_arrays(ctx, ctx.H, ctx.T)  # the baseline's (copy_baseline's query)
        cutoff = near_copy_cutoff(ctx.knn(sp, ctx.T, ctx.T, 1).dist[:, 0], q)
        st = ctx.knn(sp, ctx.S, ctx.T, 1)
        s = near_copy_flags(ctx, ctx.S, ctx.T, cutoff, st.dist[:, 0], st.idx[:, 0], tol)
        del st
        del s["partner"]  # per-record arrays no longer needed while the baseline's are made

        def flags_of(query: Any, ref: Any) -> tuple[NDArray[np.bool_], NDArray[np.integer], None]:
            if query == ref:
                tt = ctx.knn(sp, ctx.T, ctx.T, 1)  # read here: held only while this set's flags are made
                # the cut-offs and the distances passed as temporaries: let go once compared
                f = near_copy_flags(ctx, query, ref, leave_one_out_cutoffs(tt.dist[:, 0], q), tt.dist[:, 0],
                                    tt.idx[:, 0], tol_each)
            else:
                th = ctx.knn(sp, query, ref, 1)
                f = near_copy_flags(ctx, query, ref, cutoff, th.dist[:, 0], th.idx[:, 0], tol)
            return f["flags"], f["partner"], None

        base, _, groups, which = copy_baseline(ctx, flags_of)
        flags = s["flags"]
        cols = list(ctx.data.numeric_columns) + list(ctx.data.categorical_columns)
        by_col = np.bincount(s["column"][s["one_column"]].astype(np.intp), minlength=len(cols))
        details: dict[str, Any] = {
            "n_near_copies": int(flags.sum()), "n": int(flags.size),
            "n_exact": int(s["exact"].sum()), "n_one_column": int(s["one_column"].sum()),
            "n_closer_than_real": int(s["close"].sum()),
            "one_column_by_column": {cols[j]: int(c) for j, c in enumerate(by_col) if c},
            "distance_cutoff": cutoff, "number_cutoff": tol, "cutoff_quantile": q, "space": sp.label,
        }
        details.update(excess_evidence(flags, base, groups, which))
        return {"flags": flags, "details": details, "space": sp.label}

    # the evidence holds bounds at the verdict's per-check level: kept apart for each false-alarm rate in force
    held: dict[str, Any] = ctx.memo(("near_copies.evidence", ctx.S, ctx.H, q, verdict_alpha()), make)
    return held


#: From this share of fresh real records that are near copies (the baseline), the near-copy check is said to have
#: little power.
NEAR_BASELINE_NOTE = 0.25


def near_baseline_note(baseline_share: float, with_holdout: bool) -> str | None:
    """The reader's sentence when many fresh real records are near copies by the rule, so that a leak of near
    copies must rise well above them to show, with the power measured on such tables (None below
    :data:`NEAR_BASELINE_NOTE`).

    >>> near_baseline_note(0.9, True)[:62]
    '90% of fresh real records (the holdout) are near copies of a t'
    >>> near_baseline_note(0.1, True) is None
    True
    """
    if not (baseline_share >= NEAR_BASELINE_NOTE):
        return None
    whose = _baseline_words(with_holdout)
    return (f"{baseline_share:.0%} of {whose} are near copies of a training record by this rule, so a leak of "
            f"near copies shows only once it rises well above that share: the check has little power here "
            f"({MEASURED_POWER['categorical']}).")


def _near_compute(ctx: Any, params: dict[str, Any]) -> MetricResult:
    if ctx.size(ctx.T) < 2:
        return not_computed("near_copies", "needs at least 2 real training records")
    e = near_copy_evidence(ctx, params)
    share = float(e["flags"].mean())
    note = near_baseline_note(float(e["details"]["baseline_share"]), ctx.H is not None)
    return MetricResult(name="near_copies", value=share, interval=stats.wilson(share, int(e["flags"].size)),
                        details=dict(e["details"]), space=e["space"], notes=(note,) if note else ())


def plot_exact_copies(result: Any, *, ax: Any = None) -> Any:
    """The share of synthetic records that copy a training record, with its Wilson interval, against the share of
    holdout records that coincide with a training record (the level's reference)."""
    ax = plot.new_ax(ax)
    if result is None or not result.computed:
        return plot.empty(ax, "exact copies not computed")
    return copy_strip(ax, result, what="copies", xlabel="share of synthetic records identical to a training record",
                      title="Exact copies", base_words=("holdout records equal to a training record",
                                                        "training records equal to another one"))


def plot_near_copies(result: Any, *, ax: Any = None) -> Any:
    """The near-copy share with its Wilson interval against the same share for fresh real records."""
    ax = plot.new_ax(ax)
    if result is None or not result.computed:
        return plot.empty(ax, "near copies not computed")
    return copy_strip(ax, result, what="near copies",
                      xlabel="share of synthetic records that are a training record with a small change",
                      title="Near copies", base_words=("holdout records as near a training record",
                                                       "training records as near another one"))


def copy_strip(ax: Any, result: MetricResult, *, what: str, xlabel: str, title: str,
               base_words: tuple[str, str]) -> Any:
    """A copy check's share with its Wilson interval on a strip, against its baseline's share (a dashed line):
    ``base_words`` name the baseline with a holdout and without one."""
    assert result.value is not None  # drawn for a computed result only
    v = float(result.value)
    d = result.details
    base = d.get("baseline_share", d.get("holdout_copy_share"))
    words = base_words[0] if d.get("baseline", "holdout") == "holdout" else base_words[1]
    refs = [] if base is None else [(float(base), f"{words}: {base:.1%}", "--")]
    lo, hi = (result.interval if result.interval is not None else (v, v))
    label = f"{what} = {v:.1%} of synthetic (Wilson 95% {lo:.1%}–{hi:.1%})"
    # the x axis from 0 to the furthest of the share, its interval and the baseline, with room at both ends
    plot.interval_strip(ax, v, result.interval, result.level, label=label, refs=refs, marks=(0.0,))
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.legend(fontsize=8, loc="upper right")
    return ax



# ---------------------------------------------------------------------------------------------------------------
# the reader's sentences (from the JSON form of a result, so a report re-drawn from its file says the same)


def _baseline_tail(details: Mapping[str, Any], holdout_words: str, training_words: str) -> str:
    """The end of a copy check's sentence: its baseline in words (the holdout's share, or without a holdout the
    training records' own share against the other training records)."""
    base = details.get("baseline_share", details.get("holdout_copy_share"))
    if not finite(base):
        return " (no holdout to compare with)."
    if details.get("baseline", "holdout") == "holdout":
        return f"; among real records the generator never saw, {fmt_share(base)} {holdout_words}."
    return f"; among the training records themselves, {fmt_share(base)} {training_words}."


def _counts(details: Mapping[str, Any], key: str) -> str:
    n_flagged, n = details.get(key), details.get("n")
    return f" ({fmt_count(n_flagged)} of {fmt_count(n)})" if finite(n_flagged) and finite(n) else ""


def exact_copies_finding(m: ResultJSON) -> str:
    """What the exact-copy check found, in one sentence (with the near copies when they decide its level).

    >>> m = {"value": 0.095, "details": {"n_copies": 57, "n": 600, "holdout_copy_share": 0.0}}
    >>> print(exact_copies_finding(m))  # doctest: +NORMALIZE_WHITESPACE
    9.5% of the synthetic records (57 of 600) are exact copies of a real training record; among real records
    the generator never saw, 0% equal a training record.
    """
    details = m.get("details") or {}
    tail = _baseline_tail(details, "equal a training record", "equal another training record")
    near = details.get("near_copies")
    if isinstance(near, Mapping) and finite(near.get("excess_lower_bound")) and near["excess_lower_bound"] > 0:
        tail = (f"{tail[:-1]}; and {fmt_share(near.get('n_near_copies', 0) / max(near.get('n') or 1, 1))} are "
                f"a training record with a small change, against {fmt_share(near.get('baseline_share'))} of "
                f"fresh real records, which counts as copying.")
    return (f"{fmt_share(m.get('value'))} of the synthetic records{_counts(details, 'n_copies')} are exact copies "
            f"of a real training record{tail}")


def near_copies_finding(m: ResultJSON) -> str:
    """What the near-copy check found, in one sentence.

    >>> near_copies_finding({"value": 0.1, "details": {"n_near_copies": 10, "n": 100, "baseline": "training",
    ...                                                "baseline_share": 0.01}}).split("; ")[1]
    'among the training records themselves, 1% are as near another training record.'
    """
    details = m.get("details") or {}
    tail = _baseline_tail(details, "are as near a training record", "are as near another training record")
    return (f"{fmt_share(m.get('value'))} of the synthetic records{_counts(details, 'n_near_copies')} are a "
            f"training record with a small change (a copy, equal on all columns but one, or closer than real "
            f"people are to one another){tail}")


# ---------------------------------------------------------------------------------------------------------------
# declarations (report order)

class ExactCopiesDetails(TypedDict):
    """The details of ``exact_copies``: the keys its compute function sets."""

    n_copies: int
    n: int
    distinct_real_records_copied: int
    baseline: str
    baseline_share: float
    n_baseline: int
    baseline_interval: tuple[float, float]
    baseline_design_effect: float
    excess: float
    excess_lower_bound: float
    check_alpha: float
    statistic_alpha: float
    holdout_copy_share: NotRequired[float]
    holdout_copy_interval: NotRequired[tuple[float, float]]
    unique_copies: NotRequired[dict[str, Any]]
    near_copies: NotRequired[dict[str, Any]]
    copy_check_lower_bound: float
    unique_training_share: float


class NearCopiesDetails(TypedDict):
    """The details of ``near_copies``: the keys its compute function sets."""

    n_near_copies: int
    n: int
    n_exact: int
    n_one_column: int
    n_closer_than_real: int
    one_column_by_column: dict[str, int]
    distance_cutoff: float
    number_cutoff: float
    cutoff_quantile: float
    space: str
    baseline: str
    baseline_share: float
    n_baseline: int
    baseline_interval: tuple[float, float]
    baseline_design_effect: float
    excess: float
    excess_lower_bound: float
    check_alpha: float
    statistic_alpha: float


register(MetricSpec(
    name="exact_copies",
    computation=Computation(
        compute=_copies_compute, plan=_near_plan, params=(NEAR_COPY_QUANTILE,), calibratable=True, copy_sensitive=True,
        details=ExactCopiesDetails),
    grading=Grading(
        direction="higher_is_riskier", value_range=(0.0, 1.0), value_kind="share",
        level=copy_check_level(
            "copy (or near-copy) share", "exact copies, or more near copies,",
            "the same share of holdout records; without a holdout, of training records against the others",
            "package default, after " + SOURCES["apx"] + " (a distance of 0 leaks a real record); near copies "
            "count as copies", key="copy_check_lower_bound", statistics=COPY_STATISTICS),
        drives_verdict=True),
    presentation=Presentation(
        title="Exact copies", section="2.1", group="closeness",
        summary="Share of synthetic records that are identical to a real training record.",
        definition="The share of synthetic records with an identical record (every column equal) in the real "
                   "training data. Its baseline is the share of holdout records that coincide with a training record; "
                   "the share of training records unique on the analysed columns that the synthetic data contain is "
                   "compared with the share of holdout records no training record equals that they contain.",
        words=Words(measures="how many synthetic records are exact copies of a real person's record",
                    high_means="a high value is risky: real records were reproduced",
                    ideal="no more than the share of unseen real records that happen to equal a training record"),
        interval_kind="Wilson 95%",
        figures=(FigureSpec(lambda r, a: plot_exact_copies(r, ax=a),
                            "Share of synthetic records identical to a training record, against the holdout's own "
                            "share", size=(6.0, 2.2), needs_evidence=False),),
        finding=exact_copies_finding,
        limitation=("it sees only records equal to a training record in every analysed column; a copy with noise "
                    "added to a number, or with a value changed, is not an exact copy (the near-copy check looks for "
                    "those)")),
))


register(MetricSpec(
    name="near_copies",
    computation=Computation(
        compute=_near_compute, plan=_near_plan, params=(NEAR_COPY_QUANTILE,), calibratable=True, copy_sensitive=True,
        details=NearCopiesDetails),
    grading=Grading(
        direction="higher_is_riskier", value_range=(0.0, 1.0), value_kind="share",
        level=copy_check_level(
            "near-copy share", "near copies", "holdout records that are near copies of a training record; without a "
            "holdout, training records near another one",
            "package default: near copies count as copies (Article 29 Working Party, Opinion 05/2014 on anonymisation "
            "techniques: a record that singles out a person)", flagged="n_near_copies"),
        drives_verdict=True),
    presentation=Presentation(
        title="Near copies", section="package", group="closeness",
        summary="Share of synthetic records that are a training record with a small change: equal on every column "
                "but one with the differing value close, or closer to it than real people are to one another.",
        definition="A synthetic record is a near copy when it is an exact copy of a training record, equals one on "
                   "every column but one (a differing number no farther than all but 1% of training records' own "
                   "one-number neighbours; a differing category whatever its value), or lies closer to one than all "
                   "but 1% of training records lie to their own closest other training record. The same count for "
                   "fresh real records (the holdout, or the training records among themselves) is its baseline.",
        words=Words(measures="how many synthetic records are a real person's record with a small change",
                    high_means="a high value is risky: real records were reproduced with cosmetic changes",
                    ideal="no more than the share of unseen real records that lie as close to a training record"),
        interval_kind="Wilson 95%",
        figures=(FigureSpec(lambda r, a: plot_near_copies(r, ax=a),
                            "Share of synthetic records that are near copies of a training record, by kind, against "
                            "the same share for fresh real records", size=(6.0, 2.2), needs_evidence=False),),
        finding=near_copies_finding,
        limitation=("it sees copies with one value changed or lying closer to a training record than nearly all real "
                    "records lie to one another; a copy with enough noise added to several columns to sit as far away "
                    "as real neighbours do is not seen")),
))

