"""Per-record risk table of spec section 4: the synthetic records at risk, by row position.

A synthetic record is at risk when it is an exact copy of a real training record, when its DCR to the training
data is below the ``risk_percentile``-th percentile of the holdout's DCR (strictly below, with the tie rule of
spec section 0), or when its NNDR is below the NNDR threshold. The table reads the per-record arrays the
distance metrics cached (:func:`~synthpriv_report.metrics.distance.dcr_arrays`,
:func:`~synthpriv_report.metrics.distance.nndr_arrays`) and the cached S→T table for the nearest real record;
after the metrics ran it starts no neighbour search.

Real values are masked: the table lists *which* columns differ from the nearest real record, never the real
values, unless ``reveal_real_values=True`` (or the evaluation was created with it).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from . import stats
from .data import MISSING


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
    (spec section 0).

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


def records_at_risk(ev: Any, *, risk_percentile: float | None = None, nndr_threshold: float | None = None,
                    reveal_real_values: bool | None = None) -> pd.DataFrame:
    """The synthetic records at risk (spec section 4), one row each, sorted by synthetic row position.

    Parameters
    ----------
    ev : Evaluation
    risk_percentile : float, optional
        Percentile (0-100) of the holdout's DCR(h, T) below which a synthetic DCR counts as at risk; default the
        evaluation's ``risk_percentile`` parameter (1). Without a holdout the within-real DCR(t, T∖t) is the
        reference (the only fresh-record baseline available), and the ``reference`` column says so.
    nndr_threshold : float, optional
        NNDR below this is at risk; default the evaluation's ``nndr_threshold`` (0.5).
    reveal_real_values : bool, optional
        Show the differing columns' real and synthetic values; default ``ev.settings["reveal_real_values"]``.

    Returns
    -------
    DataFrame
        Index ``synthetic_row`` (position in S). Columns: ``nearest_real_row``, ``dcr``, ``nndr``,
        ``exact_copy``, ``dcr_below_reference``, ``nndr_below_threshold``, ``reasons`` (text),
        ``n_differing``, ``differing_columns`` (comma-separated names); with revealed values also
        ``real_values`` and ``synthetic_values`` (dicts over the differing columns). Empty (same columns) when
        no record is at risk. Lower DCR and NNDR are riskier.
    """
    from .metrics.distance import dcr_arrays, nndr_arrays

    params = ev.default_params
    pct = float(params["risk_percentile"] if risk_percentile is None else risk_percentile)
    thr = float(params["nndr_threshold"] if nndr_threshold is None else nndr_threshold)
    if not 0.0 <= pct <= 100.0:
        raise ValueError(f"risk_percentile must be within [0, 100], got {pct}")
    reveal = bool(ev.settings["reveal_real_values"] if reveal_real_values is None else reveal_real_values)
    ctx = ev.context
    dcr = dcr_arrays(ctx)
    nn = nndr_arrays(ctx)
    d_s = np.asarray(dcr["S"], dtype=np.float64)
    nearest = np.asarray(dcr["nearest"], dtype=np.int64)
    ref_name = "holdout DCR(h, T)" if dcr.get("H") is not None else "within-real DCR(t, T\\t)"
    ref = np.asarray(dcr["H"] if dcr.get("H") is not None else dcr["T"], dtype=np.float64)
    cut = float(np.percentile(ref[np.isfinite(ref)], pct))
    copy = np.asarray(dcr["copies"], dtype=bool)
    low_dcr = stats.less(d_s, np.full_like(d_s, cut))
    nndr = np.asarray(nn["S"], dtype=np.float64)
    low_nndr = stats.less(nndr, np.full_like(nndr, thr))
    at_risk = np.flatnonzero(copy | low_dcr | low_nndr)
    diff = differing_matrix(ev.data, at_risk, nearest[at_risk])
    cols = np.asarray(ev.data.columns, dtype=object)
    reasons = []
    for i in at_risk:
        r = []
        if copy[i]:
            r.append("exact copy")
        if low_dcr[i]:
            r.append(f"DCR below percentile {pct:g} of the {ref_name} ({cut:.4g})")
        if low_nndr[i]:
            r.append(f"NNDR below {thr:g}")
        reasons.append("; ".join(r))
    frame = pd.DataFrame({
        "nearest_real_row": nearest[at_risk],
        "dcr": d_s[at_risk],
        "nndr": nndr[at_risk],
        "exact_copy": copy[at_risk],
        "dcr_below_reference": low_dcr[at_risk],
        "nndr_below_threshold": low_nndr[at_risk],
        "reasons": reasons,
        "n_differing": diff.sum(axis=1).astype(np.int64),
        "differing_columns": [", ".join(cols[row]) for row in diff],
    }, index=pd.Index(at_risk, name="synthetic_row"))
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
    frame.attrs.update({"reference": ref_name, "reference_cut": cut, "risk_percentile": pct,
                        "nndr_threshold": thr, "space": dcr["space"], "revealed": reveal})
    return frame
