"""Per-record risk table (synthpriv_report.risk): which synthetic records are at risk, masking."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from synthpriv_report import Evaluation, ResultSet
from synthpriv_report.analysis.risk import calibrate_cutoffs, differing_matrix, flag_records
from synthpriv_report.data.preparation import prepare
from synthpriv_report.metrics._shared.arrays import dcr_arrays, nndr_arrays


def _with_planted_copies():
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


@pytest.mark.slow  # over half a second
def test_records_at_risk_flags_copies_and_masks():
    T, H, S = _with_planted_copies()
    # 'secret' is all distinct code-like text: kept on purpose (it is the column whose real values must be masked)
    ev = Evaluation(T, S, H, metrics=["dcr", "nndr"], progress=False, n_bootstrap=20, include=["secret"])
    ev.results()
    n = ev.search_count
    table = ev.records_at_risk()
    assert ev.search_count == n  # reads cached tables only
    assert table.index.name == "synthetic_row"
    assert table.loc[0, "exact_copy"] and table.loc[0, "nearest_real_row"] == 5
    assert table.loc[0, "n_differing"] == 0 and "exact copy" in table.loc[0, "reasons"]
    # record 1 differs from real 7 in one of 3 columns: gower DCR = 1/3, which the holdout's cut-off need not
    # undercut; when flagged its differing column is 'secret'
    if 1 in table.index:
        assert table.loc[1, "differing_columns"] == "secret"
    assert "real_values" not in table.columns
    assert not table.astype(str).apply(lambda c: c.str.contains("s5")).any().any()  # real value never shown
    assert table.attrs["revealed"] is False and table.attrs["reference"] == "holdout"


@pytest.mark.slow  # over half a second
def test_records_at_risk_reveals_on_request():
    T, H, S = _with_planted_copies()
    ev = Evaluation(T, S, H, metrics=["dcr", "nndr"], progress=False, n_bootstrap=20)
    table = ev.records_at_risk(reveal_real_values=True, risk_percentile=50)
    assert "real_values" in table.columns
    # the exact copy is always listed and has no differing values
    assert table.loc[0, "real_values"] == {}
    flagged = table[table["n_differing"] > 0]
    for _, row in flagged.iterrows():
        assert set(row["real_values"]) == set(row["differing_columns"].split(", "))


# ----------------------------------------------------------------------------------------------------------------
# the calibration, by hand


def test_calibrate_cutoffs_by_hand():
    # 10 holdout records, 30%: at most 3 flagged. Sorted DCR 0.1..1.0, NNDR (by record) below.
    dcr = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    nndr = [0.05, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1]
    # k=1: cuts (0.1, 0.05) flag nobody strictly below -> 0
    # k=2: cuts (0.2, 0.1): DCR flags record 0; NNDR 0.05 < 0.1 flags record 0 -> 1
    # k=3: cuts (0.3, 0.2): DCR records 0, 1; NNDR records 0, 9 -> {0, 1, 9} = 3
    # k=4: cuts (0.4, 0.3): DCR 0, 1, 2; NNDR 0, 9, 8 -> 5 > 3, so k = 3
    c = calibrate_cutoffs(dcr, nndr, [False] * 10, percentile=30)
    assert (c.k, c.dcr_cut, c.nndr_cut, c.n_reference_flagged, c.target) == (3, 0.3, 0.2, 3, 3)
    assert flag_records(dcr, nndr, [False] * 10, c.dcr_cut, c.nndr_cut).tolist() == [
        True, True, False, False, False, False, False, False, False, True]


def test_calibrate_cutoffs_copies_beyond_the_share_flag_only_copies():
    # 3 of 10 holdout records are copies (DCR 0); at 10% only 1 may be flagged: k = 0, no cut-off, the copies
    # are still flagged and the holdout's own count (3) says it is above the nominal share
    dcr = [0.0, 0.0, 0.0, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    nndr = [0.0, 0.0, 0.0, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1]
    copies = [True, True, True] + [False] * 7
    c = calibrate_cutoffs(dcr, nndr, copies, percentile=10)
    assert c.k == 0 and c.n_reference_flagged == 3 and c.target == 1
    assert flag_records([0.01, 0.0], [0.01, 0.0], [False, True], c.dcr_cut, c.nndr_cut).tolist() == [False, True]


def test_calibrate_cutoffs_ties_are_not_below():
    # every holdout DCR and NNDR equal: a cut-off equal to them flags nothing, whatever k
    c = calibrate_cutoffs([0.5] * 8, [0.5] * 8, [False] * 8, percentile=50)
    assert c.n_reference_flagged == 0 and c.k == 8
    assert not flag_records([0.5 + 1e-15], [0.6], [False], c.dcr_cut, c.nndr_cut).any()
    assert flag_records([0.49], [0.6], [False], c.dcr_cut, c.nndr_cut).all()


def test_calibrate_cutoffs_bad_input():
    with pytest.raises(ValueError, match="risk_percentile"):
        calibrate_cutoffs([0.1], [0.1], [False], percentile=0)
    with pytest.raises(ValueError, match="differ in length"):
        calibrate_cutoffs([0.1, 0.2], [0.1], [False], percentile=5)
    with pytest.raises(ValueError, match="at least one reference"):
        calibrate_cutoffs([], [], [], percentile=5)
    T, H, S = _with_planted_copies()
    ev = Evaluation(T, S, H, metrics=["dcr", "nndr"], progress=False, n_bootstrap=20)
    for bad in (0, 100, -1):
        with pytest.raises(ValueError, match="risk_percentile"):
            ev.records_at_risk(risk_percentile=bad)


# ----------------------------------------------------------------------------------------------------------------
# through the evaluation: calibrated on the holdout


def _iid(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"x": rng.normal(0, 1, n), "y": rng.gamma(2.0, 1.0, n), "z": rng.uniform(0, 1, n),
                         "c": rng.choice(list("abcd"), n, p=[0.4, 0.3, 0.2, 0.1])})


def test_synthetic_equal_to_holdout_is_flagged_like_the_holdout():
    # S = H: every synthetic record is measured exactly as its holdout twin, so the rule flags the same records
    T, H = _iid(300, 1), _iid(400, 2)
    ev = Evaluation(T, H.copy(), H, metrics=["dcr", "nndr"], progress=False, n_bootstrap=20)
    table = ev.records_at_risk(risk_percentile=5)
    a = table.attrs
    assert a["n_reference"] == 400 and a["n_reference_flagged"] <= 20  # floor(5% of 400)
    assert a["n_flagged"] == a["n_reference_flagged"] == len(table)
    assert a["reference_flagged_share"] == pytest.approx(a["n_reference_flagged"] / 400)
    dcr = dcr_arrays(ev.context)
    nn = nndr_arrays(ev.context)
    on_h = flag_records(dcr["H"], nn["H"], dcr["H_copies"], a["dcr_cutoff"], a["nndr_cutoff"])
    # S = H: the two sets have one canonical order; the table names the synthetic data's own rows
    assert sorted(ev.data.caller_rows("S", np.flatnonzero(on_h)).tolist()) == table.index.tolist()


@pytest.mark.slow  # over half a second
def test_honest_generator_flags_about_the_nominal_share():
    # T, H and S independent draws of one distribution (continuous columns: no exact copies). For the DCR rule
    # alone at the k-th smallest holdout value, a fresh record falls below with probability pi ~ Beta(k, n_H-k+1)
    # (mean k/(n_H+1)); the joint rule behaves alike, so given the cut-offs the synthetic count is Binomial(n_S,
    # pi) and the holdout's own share is within one record of the target. sd(share_S - share_H) <=
    # sqrt(p(1-p)(1/n_S + 1/n_H)); p = 5%, n_S = n_H = 2000: 0.0069. Five of them (0.034) plus 2/n_H cannot be
    # exceeded by chance in practice (and the seed is fixed).
    T, H, S = _iid(1500, 11), _iid(2000, 12), _iid(2000, 13)
    ev = Evaluation(T, S, H, metrics=["dcr", "nndr"], progress=False, n_bootstrap=20)
    a = ev.records_at_risk(risk_percentile=5).attrs
    assert 99 <= a["n_reference_flagged"] <= 100  # target floor(5% of 2000) = 100; no ties, +1 or +2 per rank
    sd = np.sqrt(0.05 * 0.95 * (1 / 2000 + 1 / 2000))
    assert abs(a["flagged_share"] - a["reference_flagged_share"]) <= 5 * sd + 2 / 2000
    assert abs(a["flagged_share"] - 0.05) <= 5 * sd + 2 / 2000


def test_exact_copy_flags_every_record():
    T, H = _iid(300, 21), _iid(300, 22)
    ev = Evaluation(T, T.copy(), H, metrics=["dcr", "nndr"], progress=False, n_bootstrap=20)
    table = ev.records_at_risk()
    assert len(table) == 300 and table["exact_copy"].all()
    assert table.attrs["n_reference_flagged"] <= 3  # floor(1% of 300)
    assert (table["nearest_real_row"].to_numpy() == np.arange(300)).all()
    assert "300 of 300 synthetic records (100.0%)" in table.attrs["summary"]


@pytest.mark.slow  # about 1 s
def test_row_shuffle_invariance():
    T, H, S = _iid(300, 31), _iid(400, 32), _iid(400, 33)
    S.iloc[:5] = T.iloc[:5].to_numpy()  # a few copies among them
    base = Evaluation(T, S, H, metrics=["dcr", "nndr"], progress=False, n_bootstrap=20).records_at_risk(
        risk_percentile=5)
    rng = np.random.default_rng(0)
    ps, ph = rng.permutation(len(S)), rng.permutation(len(H))
    moved = Evaluation(T, S.iloc[ps].reset_index(drop=True), H.iloc[ph].reset_index(drop=True),
                       metrics=["dcr", "nndr"], progress=False, n_bootstrap=20).records_at_risk(risk_percentile=5)
    for key in ("dcr_cutoff", "nndr_cutoff", "n_flagged", "n_reference_flagged", "cutoff_rank"):
        assert moved.attrs[key] == base.attrs[key]
    # synthetic row j of the shuffled set is row ps[j] of the original
    assert sorted(ps[moved.index.to_numpy()].tolist()) == base.index.tolist()
    back = moved.set_index(pd.Index(ps[moved.index.to_numpy()], name="synthetic_row")).sort_index()
    pd.testing.assert_frame_equal(back, base, check_exact=True)


def test_without_holdout_the_training_records_are_the_reference():
    T, S = _iid(300, 41), _iid(300, 42)
    ev = Evaluation(T, S, None, metrics=["dcr", "nndr"], progress=False, n_bootstrap=20)
    ev.results()
    n = ev.search_count
    a = ev.records_at_risk(risk_percentile=5).attrs
    assert ev.search_count == n
    assert a["reference"].startswith("training records") and a["n_reference"] == 300
    assert a["n_reference_flagged"] <= 15
    assert "no holdout was given" in a["summary"]


@pytest.mark.slow  # about 1 s
def test_report_states_the_counts_and_lists_no_record(tmp_path):
    # the reports carry the rule's counts (meta["records_at_risk"]), the same as the table's attrs, and no record
    T, H, S = _with_planted_copies()
    ev = Evaluation(T, S, H, metrics=["dcr", "nndr"], progress=False, n_bootstrap=20, include=["secret"],
                    random_state=0)
    meta = ev.results().meta["records_at_risk"]
    n = ev.search_count
    attrs = ev.records_at_risk().attrs
    assert ev.search_count == n
    for key in ("n_synthetic", "n_flagged", "n_reference", "n_reference_flagged", "dcr_cutoff", "nndr_cutoff"):
        assert meta[key] == attrs[key], key
    assert meta["n_flagged"] >= 1  # synthetic record 0 is an exact copy
    assert not any(isinstance(v, (list, dict)) for v in meta.values())  # counts and cut-offs only
    ev.to_html(tmp_path / "r.html")
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "Synthetic records flagged one by one" in page
    assert f"{meta['n_flagged']} of 80 synthetic records" in page
    assert "are not listed in this document" in page
    # the real records' secret values never reach the page (the column name does, in the data description)
    assert not any(f">{v}<" in page or f" {v} " in page for v in T["secret"])
    # the sentence is made from the numbers: a document whose counts contradict each other gets no section,
    # and stored text is never shown in place of the sentence
    doc = ev.to_json()
    doc["meta"]["records_at_risk"].update(n_flagged=999, summary="All clear.")
    del doc["digest"]  # a deliberate edit (a document without a digest is read; its digest would refuse it)
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    ResultSet.from_json(path).to_html(tmp_path / "t.html")
    tampered = (tmp_path / "t.html").read_text(encoding="utf-8")
    assert "Synthetic records flagged one by one" not in tampered and "All clear." not in tampered


def test_report_has_no_risk_section_without_the_distance_metrics(tmp_path):
    T, H, S = _with_planted_copies()
    ev = Evaluation(T, S, H, metrics=["exact_copies"], progress=False, include=["secret"])
    assert "records_at_risk" not in ev.results().meta
