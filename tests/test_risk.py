"""Per-record risk table (synthpriv_report.risk): which synthetic records are at risk, masking."""

from __future__ import annotations

import numpy as np
import pandas as pd

from synthpriv_report import Evaluation
from synthpriv_report.data import prepare
from synthpriv_report.risk import differing_matrix


def _frames():
    rng = np.random.default_rng(3)
    T = pd.DataFrame({"age": rng.integers(18, 90, 80).astype(float), "job": rng.choice(list("abcdef"), 80),
                      "secret": [f"s{i}" for i in range(80)]})
    H = pd.DataFrame({"age": rng.integers(18, 90, 80).astype(float), "job": rng.choice(list("abcdef"), 80),
                      "secret": [f"h{i}" for i in range(80)]})
    S = H.copy()
    S.iloc[0] = T.iloc[5]                      # exact copy of real record 5
    S.iloc[1] = T.iloc[7]
    S.loc[1, "secret"] = "changed"             # real record 7 with one column changed
    return T, H, S


def test_differing_matrix_by_hand():
    T = pd.DataFrame({"x": [1.0, np.nan], "c": ["a", "b"]})
    S = pd.DataFrame({"x": [1.0, np.nan], "c": ["b", "b"]})
    # row 0: x equal, c a != b; row 1: missing equals missing, c equal
    assert differing_matrix(prepare(T, S), np.array([0, 1]), np.array([0, 1])).tolist() == [[False, True],
                                                                                            [False, False]]


def test_records_at_risk_flags_copies_and_masks():
    T, H, S = _frames()
    ev = Evaluation(T, S, H, metrics=["dcr", "nndr"], progress=False, n_bootstrap=20)
    ev.results()
    n = ev.search_count
    table = ev.records_at_risk()
    assert ev.search_count == n  # reads cached tables only
    assert table.index.name == "synthetic_row"
    assert table.loc[0, "exact_copy"] and table.loc[0, "nearest_real_row"] == 5
    assert table.loc[0, "n_differing"] == 0 and "exact copy" in table.loc[0, "reasons"]
    # record 1 differs from real 7 in one of 3 columns: gower DCR = 1/3, which the holdout's DCR percentile 1
    # need not undercut; when flagged its differing column is 'secret'
    if 1 in table.index:
        assert table.loc[1, "differing_columns"] == "secret"
    assert "real_values" not in table.columns
    assert not table.astype(str).apply(lambda c: c.str.contains("s5")).any().any()  # real value never shown
    assert table.attrs["revealed"] is False and table.attrs["reference"].startswith("holdout")


def test_records_at_risk_reveals_on_request():
    T, H, S = _frames()
    ev = Evaluation(T, S, H, metrics=["dcr", "nndr"], progress=False, n_bootstrap=20)
    table = ev.records_at_risk(reveal_real_values=True, risk_percentile=50, nndr_threshold=0.0)
    assert "real_values" in table.columns
    # with percentile 50 the near copy (DCR 1/3) is below the holdout median only if that median exceeds 1/3;
    # the exact copy is always listed and has no differing values
    assert table.loc[0, "real_values"] == {}
    flagged = table[table["n_differing"] > 0]
    for _, row in flagged.iterrows():
        assert set(row["real_values"]) == set(row["differing_columns"].split(", "))
