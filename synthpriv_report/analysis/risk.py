"""Per-record risk table (docs/metrics.md, "Baselines: the holdout and the calibration"): the synthetic records at
risk, by row position, calibrated by the holdout.

The rule. A synthetic record is *at risk* when it is an exact copy of a real training record, or when its DCR
(distance to the closest training record) is below a DCR cut-off, or when its NNDR (that distance relative to the
spacing of the real records around its closest one) is below an NNDR cut-off. The cut-offs are set on the
holdout, real records the generator never saw: they are as close to the training data as the records of a
generator that does not copy its training data would be. The same rule is applied to the holdout records (each
one's exact-copy flag, DCR and NNDR measured against the training data, as for a synthetic record), and the two
cut-offs are the largest order statistics of the holdout's DCR and NNDR, the k-th smallest of each for one k,
under which at most ``risk_percentile`` % of the holdout records are flagged. So an honest generator has about
that share of its records flagged, and the table says how many holdout records the same rule flags, so that a
reader can compare the two shares.

Choices this package makes or its rules conflict (docs/metrics.md, "Baselines: the holdout and the calibration" names
the three rules: exact copies, DCR
below the 1st percentile of the holdout's DCR, NNDR below a threshold):

* The fixed NNDR threshold (the ``nndr`` metric's 0.5) is not calibrated: on the bundled Adult demo, 37% of the
  holdout records have an NNDR below 0.5, so an honest generator had 6% of its records flagged. Both cut-offs
  are therefore set on the holdout, and together rather than each at the percentile, since the union of two
  rules at p % each would flag up to 2p % of the holdout. The DCR cut-off is thus at or below the holdout's
  ``risk_percentile``-th percentile of DCR.
* "Below" is strict with the package's tie tolerance (docs/metrics.md, "Ties, self-matches and nearest records"), so
a cut-off equal to a record's value does not
  flag it. An exact copy is always flagged: when more than ``risk_percentile`` % of the holdout records are
  themselves copies of training records (duplicated rows), the holdout's own count says so and is above the
  nominal share.
* Without a holdout the training records take its place, each one measured against the other training records
  (its DCR to T without itself, its NNDR from the same tables, a duplicate elsewhere in T counting as a copy);
  the attrs say ``reference = "training records (each against the others)"``.

The table reads the per-record arrays the distance metrics read (those of
:func:`~synthpriv_report.metrics._shared.arrays.
dcr_arrays` and :func:`~synthpriv_report.metrics._shared.arrays.nndr_arrays`, a set at a time), in the DCR and NNDR
metrics' spaces; after those metrics ran it starts no neighbour search.

Real values are masked: the table lists *which* columns differ from the nearest real record, never the real
values, unless ``reveal_real_values=True`` (or the evaluation was created with it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from .. import stats
from ..core.params import RISK_PERCENTILE, check_bool
from ..data.containers import MISSING
from ..metrics._shared.arrays import nndr_of, nndr_values, space_for
from ..text.wording import risk_summary

#: The metrics whose cached arrays the per-record rule reads: the rule is set only when both were computed.
RISK_METRICS = ("dcr", "nndr")


def risk_rule_applies(results: Any) -> bool:
    """Whether the per-record rule can be set from these results (both :data:`RISK_METRICS` computed)."""
    return all(n in results and results[n].computed for n in RISK_METRICS)


def record_values(data: Any, set_name: str, row: int) -> dict[str, Any]:
    """Values of one record by column (missing categorical values as None, numeric NaN as None)."""
    out: dict[str, Any] = {}
    for c in data.columns:
        v = data.column_values(set_name, c)[row]
        if data.kinds[c] == "numeric":
            out[c] = None if np.isnan(v) else float(v)
        else:
            out[c] = None if v == MISSING else str(v)
    return out


def differing_matrix(data: Any, s_rows: NDArray[np.int64], t_rows: NDArray[np.int64]) -> NDArray[np.bool_]:
    """``(len(s_rows), n_columns)`` booleans: column differs between synthetic record s and real record t.

    Numeric values are compared as float64, exactly (missing equals missing); categorical values as strings
    (docs/metrics.md, "Shared machinery").

    Examples
    --------
    >>> import pandas as pd
    >>> from synthpriv_report.data import prepare
    >>> T = pd.DataFrame({"x": [1.0, 2.0], "c": ["a", "b"]})
    >>> S = pd.DataFrame({"x": [1.0, 5.0], "c": ["b", "b"]})
    >>> differing_matrix(prepare(T, S), np.array([0, 1]), np.array([0, 1])).tolist()
    [[False, True], [True, False]]
    """
    out = np.zeros((len(s_rows), len(data.columns)), dtype=bool)
    for j, c in enumerate(data.columns):
        a = data.column_values("S", c)[s_rows]
        b = data.column_values("T", c)[t_rows]
        if data.kinds[c] == "numeric":
            out[:, j] = ~((a == b) | (np.isnan(a) & np.isnan(b)))
        else:
            out[:, j] = a.astype(str) != b.astype(str)
    return out


@dataclass(frozen=True)
class RiskCutoffs:
    """The calibrated per-record rule and what it flags among the reference (holdout) records.

    Attributes
    ----------
    dcr_cut, nndr_cut : float
        A record is flagged when its DCR (or NNDR) is below the cut-off (strictly, with the tie tolerance);
        ``-inf`` when no cut-off flags anything beyond the exact copies.
    k : int
        The cut-offs are the k-th smallest reference DCR and NNDR (1-based; 0 when only copies are flagged).
    n_reference : int
        Number of reference records.
    n_reference_flagged : int
        Reference records the rule flags (copies included).
    target : int
        The most the calibration allows: ``floor(percentile / 100 * n_reference)``.
    """

    dcr_cut: float
    nndr_cut: float
    k: int
    n_reference: int
    n_reference_flagged: int
    target: int


def flag_records(dcr: ArrayLike, nndr: ArrayLike, copy: ArrayLike, dcr_cut: float, nndr_cut: float
                 ) -> NDArray[np.bool_]:
    """Records flagged by the rule: an exact copy, or DCR below ``dcr_cut``, or NNDR below ``nndr_cut``.

    "Below" is strict with the package's tie tolerance (docs/metrics.md, "Ties, self-matches and nearest records").

    >>> flag_records([0.0, 0.1, 0.5], [0.0, 0.9, 0.2], [True, False, False], 0.2, 0.1).tolist()
    [True, True, False]
    """
    d = np.asarray(dcr, dtype=np.float64)
    r = np.asarray(nndr, dtype=np.float64)
    return (np.asarray(copy, dtype=bool) | stats.less(d, dcr_cut)
            | stats.less(r, nndr_cut))


def calibrate_cutoffs(ref_dcr: ArrayLike, ref_nndr: ArrayLike, ref_copy: ArrayLike, *, percentile: float
                      ) -> RiskCutoffs:
    """Cut-offs under which the reference (holdout) records themselves are flagged at most ``percentile`` %.

    With the reference DCRs and NNDRs sorted ascending, candidate cut-offs for k = 1..n are the k-th smallest of
    each; the rule of :func:`flag_records` flags a non-decreasing number of reference records as k grows, and the
    largest k that flags at most ``floor(percentile / 100 * n)`` of them is kept (a binary search). When even
    k = 1 flags more (the copies alone exceed the share), k = 0 and only exact copies are flagged.

    Parameters
    ----------
    ref_dcr, ref_nndr : arrays of shape (n,)
        DCR and NNDR of each reference record to the training data (non-finite values never count as below).
    ref_copy : bool array of shape (n,)
        Whether each reference record is identical to a training record.
    percentile : float
        Nominal share in percent, within (0, 100).

    Returns
    -------
    RiskCutoffs

    Examples
    --------
    Ten holdout records, 20%: at most 2 may be flagged. k = 2 gives cut-offs 0.2 (DCR) and 0.15 (NNDR), which
    flag the records with DCR 0.1 and NNDR 0.05 (records 0 and 9): 2 records.

    >>> dcr = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    >>> nndr = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.15, 0.05]
    >>> c = calibrate_cutoffs(dcr, nndr, [False] * 10, percentile=20)
    >>> c.k, c.dcr_cut, c.nndr_cut, c.n_reference_flagged
    (2, 0.2, 0.15, 2)
    """
    d = np.asarray(ref_dcr, dtype=np.float64)
    r = np.asarray(ref_nndr, dtype=np.float64)
    cp = np.asarray(ref_copy, dtype=bool)
    n = int(d.size)
    if not (r.size == n and cp.size == n):
        raise ValueError(f"reference arrays differ in length: dcr {n}, nndr {r.size}, copies {cp.size}")
    if n == 0:
        raise ValueError("the per-record rule needs at least one reference (holdout) record")
    if not 0.0 < float(percentile) < 100.0:
        raise ValueError(f"risk_percentile must be within (0, 100), got {percentile}")
    target = int(np.floor(float(percentile) / 100.0 * n + 1e-9))
    sd, sr = np.sort(d), np.sort(r)  # non-finite values sort last and are never "below"

    def cuts(k: int) -> tuple[float, float]:
        return (-np.inf, -np.inf) if k == 0 else (float(sd[k - 1]), float(sr[k - 1]))

    def count(k: int) -> int:
        return int(flag_records(d, r, cp, *cuts(k)).sum())

    lo, hi = 0, n
    if count(1) <= target:  # else k = 0: only exact copies are flagged
        lo = 1  # invariant: count(lo) <= target
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if count(mid) <= target:
                lo = mid
            else:
                hi = mid - 1
    dc, nc = cuts(lo)
    return RiskCutoffs(dcr_cut=dc, nndr_cut=nc, k=lo, n_reference=n, n_reference_flagged=count(lo),
                       target=target)


def _reference(ctx: Any) -> tuple[str, NDArray, NDArray, NDArray]:
    """Reference records for the calibration, their DCRs, NNDRs and exact-copy flags: the holdout, else the
    training records against each other (the arrays :func:`~synthpriv_report.metrics._shared.arrays.dcr_arrays` and
    :func:`~synthpriv_report.metrics._shared.arrays.nndr_arrays` hold for them)."""
    sp = space_for(ctx, "dcr", "gower")
    if ctx.H is not None:
        copies = np.asarray(ctx.identical_in(ctx.H, ctx.T), dtype=bool)
        return ("holdout", np.asarray(ctx.knn(sp, ctx.H, ctx.T, 1).dist[:, 0], dtype=np.float64),
                np.asarray(nndr_of(ctx, ctx.H), dtype=np.float64), copies)

    spn = space_for(ctx, "nndr", "gower")
    real = ctx.knn(spn, ctx.T, ctx.T, int(ctx.settings["nndr_k"]))
    d_t = real.dist[:, 0]
    nndr_t = nndr_values(d_t, real.idx[:, 0], real.row_means())
    del real, d_t
    return ("training records (each against the others)",
            np.asarray(ctx.knn(sp, ctx.T, ctx.T, 1).dist[:, 0], dtype=np.float64),
            np.asarray(nndr_t, dtype=np.float64), np.asarray(ctx.identical_in(ctx.T, ctx.T), dtype=bool))


def records_at_risk(ev: Any, *, risk_percentile: float | None = None,
                    reveal_real_values: bool | None = None) -> pd.DataFrame:
    """The synthetic records at risk (docs/metrics.md, "Baselines: the holdout and the calibration"), one row each,
    sorted by synthetic row position.

    The rule and its calibration on the holdout are described in the module docstring: the cut-offs are set so
    that the same rule flags at most ``risk_percentile`` % of the holdout records, and the table's ``attrs`` say
    how many it flags, beside the synthetic count.

    Parameters
    ----------
    ev : Evaluation
    risk_percentile : float, optional
        Nominal share in percent (0 < p < 100) of holdout records the rule may flag; default the evaluation's
        ``risk_percentile`` parameter (1).
    reveal_real_values : bool, optional
        Show the differing columns' real and synthetic values; default ``ev.settings["reveal_real_values"]``.

    Returns
    -------
    DataFrame
        Index ``synthetic_row`` (position in S). Columns: ``nearest_real_row``, ``dcr``, ``nndr``,
        ``exact_copy``, ``dcr_below_cutoff``, ``nndr_below_cutoff``, ``reasons`` (text), ``n_differing``,
        ``differing_columns`` (comma-separated names); with revealed values also ``real_values`` and
        ``synthetic_values`` (dicts over the differing columns). Empty (same columns) when no record is at risk.
        Lower DCR and NNDR are riskier. ``attrs``: ``n_synthetic``, ``n_flagged``, ``flagged_share``,
        ``reference`` ("holdout" or the training records), ``n_reference``, ``n_reference_flagged``,
        ``reference_flagged_share``, ``risk_percentile``, ``dcr_cutoff``, ``nndr_cutoff``, ``cutoff_rank`` (k),
        ``dcr_space``, ``nndr_space``, ``revealed`` and ``summary`` (one plain sentence comparing the counts).
    """

    f = _flags(ev, risk_percentile)
    reveal = bool(ev.settings["reveal_real_values"] if reveal_real_values is None
                  else check_bool("reveal_real_values", reveal_real_values))
    d_s, nearest, copy, nndr, low_dcr, low_nndr, cut = (f["dcr"], f["nearest"], f["copy"], f["nndr"],
                                                          f["low_dcr"], f["low_nndr"], f["cut"])
    at_risk = np.flatnonzero(copy | low_dcr | low_nndr)
    diff = differing_matrix(ev.data, at_risk, nearest[at_risk])
    cols = np.asarray(ev.data.columns, dtype=object)
    reasons = []
    for i in at_risk:
        r = []
        if copy[i]:
            r.append("exact copy of a real training record")
        if low_dcr[i]:
            r.append(f"distance to the closest real record below {cut.dcr_cut:.3g}")
        if low_nndr[i]:
            r.append(f"distance ratio (NNDR) below {cut.nndr_cut:.3g}")
        reasons.append("; ".join(r))
    syn_rows = ev.data.caller_rows("S", at_risk)  # the caller's row positions, not the prepared order
    frame = pd.DataFrame({
        "nearest_real_row": ev.data.caller_rows("T", nearest[at_risk]),
        "dcr": d_s[at_risk],
        "nndr": nndr[at_risk],
        "exact_copy": copy[at_risk],
        "dcr_below_cutoff": low_dcr[at_risk],
        "nndr_below_cutoff": low_nndr[at_risk],
        "reasons": reasons,
        "n_differing": diff.sum(axis=1).astype(np.int64),
        "differing_columns": [", ".join(cols[row]) for row in diff],
    }, index=pd.Index(syn_rows, name="synthetic_row"))
    if reveal:
        real_vals, syn_vals = [], []
        for k, i in enumerate(at_risk):
            names = list(cols[diff[k]])
            rv = record_values(ev.data, "T", int(nearest[i]))
            sv = record_values(ev.data, "S", int(i))
            real_vals.append({c: rv[c] for c in names})
            syn_vals.append({c: sv[c] for c in names})
        frame["real_values"] = real_vals
        frame["synthetic_values"] = syn_vals
    frame = frame.sort_index()
    frame.attrs.update({**_counts(f, int(at_risk.size)), "revealed": reveal})
    return frame


def _flags(ev: Any, risk_percentile: float | None, *, nearest: bool = True) -> dict[str, Any]:
    """The rule's cut-offs, calibrated on the reference records, and which synthetic records each part flags (and
    each synthetic record's nearest real position, unless ``nearest`` is false: the counts do not need them)."""
    # validated where it is given: "5" or True is a TypeError naming the parameter, never read as a number
    pct = float(ev.default_params["risk_percentile"] if risk_percentile is None
                else RISK_PERCENTILE.validate(risk_percentile))
    if not 0.0 < pct < 100.0:
        raise ValueError(f"risk_percentile must be within (0, 100) (a percentage of the holdout), got {pct}")
    ctx = ev.context
    # the reference records first: their arrays read, the cut-offs found and the arrays let go before the
    # synthetic records' are read (the arrays of dcr_arrays and nndr_arrays, a set at a time)
    ref_name, ref_d, ref_r, ref_c = _reference(ctx)
    cut = calibrate_cutoffs(ref_d, ref_r, ref_c, percentile=pct)
    del ref_d, ref_r, ref_c
    sp = space_for(ctx, "dcr", "gower")
    copy = np.asarray(ctx.identical_in(ctx.S, ctx.T), dtype=bool)
    d_s = np.asarray(ctx.knn(sp, ctx.S, ctx.T, 1).dist[:, 0], dtype=np.float64)
    nndr = np.asarray(nndr_of(ctx, ctx.S), dtype=np.float64)
    return {"pct": pct, "dcr": d_s, "nndr": nndr,
            "nearest": np.asarray(ctx.knn(sp, ctx.S, ctx.T, 1).idx[:, 0], dtype=np.int64) if nearest else None,
            "copy": copy, "cut": cut, "reference": ref_name,
            "low_dcr": stats.less(d_s, cut.dcr_cut),
            "low_nndr": stats.less(nndr, cut.nndr_cut),
            "dcr_space": sp.label, "nndr_space": space_for(ctx, "nndr", "gower").label}


def _counts(f: dict[str, Any], n_flagged: int) -> dict[str, Any]:
    cut, n_s = f["cut"], int(f["dcr"].size)
    return {
        "n_synthetic": n_s, "n_flagged": n_flagged, "flagged_share": n_flagged / n_s if n_s else 0.0,
        "reference": f["reference"], "n_reference": cut.n_reference, "n_reference_flagged": cut.n_reference_flagged,
        "reference_flagged_share": cut.n_reference_flagged / cut.n_reference, "risk_percentile": f["pct"],
        "dcr_cutoff": cut.dcr_cut, "nndr_cutoff": cut.nndr_cut, "cutoff_rank": cut.k, "dcr_space": f["dcr_space"],
        "nndr_space": f["nndr_space"],
        "summary": risk_summary(n_flagged, n_s, cut.n_reference_flagged, cut.n_reference, f["pct"], f["reference"]),
    }


def risk_overview(ev: Any, *, risk_percentile: float | None = None) -> dict[str, Any]:
    """How many synthetic records the per-record rule flags, beside the reference records it flags: the
    ``attrs`` of :func:`records_at_risk` without its rows (no record, real or synthetic, is in it), for reports.

    Reads the same cached arrays; once the DCR and NNDR metrics ran it starts no neighbour search.
    """
    f = _flags(ev, risk_percentile, nearest=False)
    return _counts(f, int(np.count_nonzero(f["copy"] | f["low_dcr"] | f["low_nndr"])))


