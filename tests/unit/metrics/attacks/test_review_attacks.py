"""Tests of the review paper's matching and attack metrics: zcap, gcap, air, crp, hitting_rate.

Expected values are derived by hand on frames of 4-6 rows (arithmetic in the comments); brute-force references
with explicit loops (fine in a test, never in the package) check the grouped and tree-based implementations on
random data with many ties.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from _support.evaluation import evaluation

from synthpriv_report.core.registry import get_spec
from synthpriv_report.matching.joins import group_ids, hitting_matches
from synthpriv_report.metrics.attacks._common import correct_exists, entropy_weights
from synthpriv_report.metrics.attacks.air import air_f1
from synthpriv_report.metrics.attacks.cap import gcap_scores, zcap_scores
from synthpriv_report.metrics.attacks.crp import crp_value
from synthpriv_report.stats import bootstrap_ratio

NAMES = ["zcap", "gcap", "air", "crp", "hitting_rate"]
NAN = float("nan")


def _ev(T, S, H=None, **kw):
    kw.setdefault("metrics", NAMES)
    kw.setdefault("row_order", "as_given")  # the expectations name records by their position in these frames
    kw.setdefault("calibrate", True)  # the calibration (H in the synthetic role) is checked by hand below
    return evaluation(T, S, H, **kw)


def _res(ev, **params):
    params.setdefault("n_bootstrap", 50)
    return ev.results(**params)


# ---------------------------------------------------------------------------------------------------------------
# ZCAP and GCAP: one hand example with ties, missing keys and a numeric sensitive attribute that they skip

T_CAP = pd.DataFrame({
    "k1": ["a", "a", "b", "b", "c"],
    "k2": [1.0, 1.0, NAN, 2.0, 3.0],
    "s": ["x", "y", "x", "x", "y"],
    "v": [1.0, 2.0, 3.0, 4.0, 5.0],
})
S_CAP = pd.DataFrame({
    "k1": ["a", "a", "a", "b", "b", "c"],
    "k2": [1.0, 1.0, 1.0, NAN, NAN, 4.0],
    "s": ["x", "x", "y", "x", "y", "y"],
    "v": [1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
})


def test_zcap_hand_example():
    # keys (k1, k2); missing equals missing.
    # y0 (a,1) s=x: matches z0,z1,z2; correct z0,z1 -> 2/3
    # y1 (a,1) s=y: matches z0,z1,z2; correct z2    -> 1/3
    # y2 (b,NaN) s=x: matches z3,z4; correct z3     -> 1/2
    # y3 (b,2) and y4 (c,3): no exact key match     -> 0, 0
    # ZCAP = (2/3 + 1/3 + 1/2 + 0 + 0) / 5 = 1.5 / 5 = 0.3
    ev = _ev(T_CAP, S_CAP, key_fields=["k1", "k2"], sensitive_fields=["s", "v"])
    r = _res(ev)["zcap"]
    assert r.value == pytest.approx(0.3)
    assert r.details["sensitive_used"] == ["s"]
    assert r.details["sensitive_skipped_numeric"] == ["v"]
    # distinct key combinations of T: (a,1), (b,NaN), (b,2), (c,3) -> 4; y0, y1, y2 have a match -> 3/5
    assert r.details["n_key_combinations_real"] == 4
    assert r.details["share_real_with_match"] == pytest.approx(0.6)
    assert r.interval[0] <= r.value <= r.interval[1]
    assert r.space is None


def test_gcap_hand_example_ties_at_minimal_hamming_distance():
    # Hamming distance on (k1, k2), numeric by exact value, NaN equals NaN.
    # y0, y1, y2: distance 0 as in ZCAP -> 2/3, 1/3, 1/2
    # y3 (b,2): z3 (b,NaN) and z4 (b,NaN) at distance 1 (k2 differs), z0-z2 and z5 at 2
    #           -> matches z3 (x), z4 (y); y3 s=x -> 1/2
    # y4 (c,3): z5 (c,4) at 1, all others at 2 -> match z5 (y), y4 s=y -> 1
    # GCAP = (2/3 + 1/3 + 1/2 + 1/2 + 1) / 5 = 3 / 5 = 0.6
    ev = _ev(T_CAP, S_CAP, key_fields=["k1", "k2"], sensitive_fields=["s", "v"])
    r = _res(ev)["gcap"]
    assert r.value == pytest.approx(0.6)
    # |N(y)| = 3, 3, 2, 2, 1 -> mean 11/5; exact key match for 3 of 5
    assert r.details["mean_matches_per_real"] == pytest.approx(11 / 5)
    assert r.details["share_exact_key_match"] == pytest.approx(0.6)
    assert r.space.startswith("hamming")


def test_zcap_gcap_average_over_categorical_sensitive_attributes():
    # second categorical a_S "t": every synthetic record has t = "p", T has t = p,p,q,p,p
    # ZCAP_t: y0 3/3, y1 3/3, y2 (t=q) 0/2, y3 0, y4 0 -> 2/5; ZCAP = (0.3 + 0.4) / 2 = 0.35
    # GCAP_t: y0 1, y1 1, y2 (t=q) 0, y3 1, y4 1 -> 4/5; GCAP = (0.6 + 0.8) / 2 = 0.7
    T = T_CAP.assign(t=["p", "p", "q", "p", "p"])
    S = S_CAP.assign(t="p")
    ev = _ev(T, S, key_fields=["k1", "k2"], sensitive_fields=["s", "t"])
    res = _res(ev)
    assert res["zcap"].value == pytest.approx(0.35)
    assert res["zcap"].details["per_attribute"] == pytest.approx({"s": 0.3, "t": 0.4})
    assert res["gcap"].value == pytest.approx(0.7)


def test_zcap_gcap_not_computed_for_numeric_only_sensitive():
    ev = _ev(T_CAP, S_CAP, key_fields=["k1", "k2"], sensitive_fields=["v"])
    res = _res(ev)
    for name in ("zcap", "gcap"):
        assert not res[name].computed
        assert res[name].value is None
        assert "numeric" in res[name].reason_not_computed
    assert res["air"].computed
    # GCAP plans no search when it cannot run; AIR's euclidean search is the only one
    assert [s.space for s in ev.searches] == ["euclidean[k1,k2]"]


def test_sensitive_metrics_not_computed_without_sensitive_fields():
    ev = _ev(T_CAP, S_CAP)
    res = _res(ev)
    for name in ("zcap", "gcap", "air"):
        assert not res[name].computed
        assert "sensitive" in res[name].reason_not_computed
    assert res["crp"].computed and res["hitting_rate"].computed


# ---------------------------------------------------------------------------------------------------------------
# AIR

T_AIR = pd.DataFrame({
    "g": ["a", "a", "b", "b", "a"],
    "a": [0.0, 0.0, 4.0, 4.0, 8.0],
    "s": ["x", "y", "x", "x", "y"],
    "v": [10.0, 100.0, 100.0, 100.0, -50.0],
})
S_AIR = pd.DataFrame({
    "g": ["a", "a", "b", "b", "a"],
    "a": [0.0, 0.0, 2.0, 6.0, 7.0],
    "s": ["x", "y", "x", "y", "y"],
    "v": [10.5, 30.0, 95.0, 100.0, -54.0],
})


def test_air_hand_example():
    # keys (g, a); a scaled by T's range 8: a' = a/8; a category mismatch adds 2 to d^2.
    # y0 (a,0): z0, z1 at 0 -> N = {z0, z1}
    #    s=x: TP 1 (z0) -> F1 = 2*1/(2*1 + 1) = 2/3;  v=10: z0 |0.5| <= 1.05 ok, z1 |20| > 3 -> 2/3
    # y1 (a,0): N = {z0, z1}; s=y: TP 1 -> 2/3;  v=100: |89.5| > 1.05, |70| > 3 -> TP 0 -> 0
    # y2 (b,0.5): z2 (b,0.25) and z3 (b,0.75) tie at 0.25 -> N = {z2, z3}
    #    s=x: TP 1 -> 2/3;  v=100: |5| <= 9.5 and |0| <= 10 -> TP 2 -> 2*2/(2*2 + 0) = 1
    # y3 = y2 (identical records) -> 2/3, 1
    # y4 (a,1): z4 (a,0.875) at 0.125 -> N = {z4}; s=y -> 1; v=-50: |4| <= 5.4 -> 1
    # per record (mean over s, v): 2/3, 1/3, 5/6, 5/6, 1
    # P(y) = 1/5, 1/5, 2/5, 2/5, 1/5; w = -P ln P: w1 = 0.2 ln 5, w2 = 0.4 ln 2.5
    w1, w2 = 0.2 * math.log(5), 0.4 * math.log(2.5)
    expected = (w1 * (2 / 3 + 1 / 3 + 1) + w2 * (5 / 6 + 5 / 6)) / (3 * w1 + 2 * w2)
    ev = _ev(T_AIR, S_AIR, key_fields=["g", "a"], sensitive_fields=["s", "v"])
    r = _res(ev)["air"]
    assert r.value == pytest.approx(expected)
    # s alone: F1 = 2/3, 2/3, 2/3, 2/3, 1
    exp_s = (w1 * (2 / 3 + 2 / 3 + 1) + w2 * (4 / 3)) / (3 * w1 + 2 * w2)
    assert r.details["per_attribute"]["s"] == pytest.approx(exp_s)
    # dataset level, s: TP = 5, FP = 1+1+1+1+0 = 4, FN = 0 -> P = 5/9, R = 1, F1 = 5/7
    ds = r.details["dataset_level"]["s"]
    assert (ds["TP"], ds["FP"], ds["FN"]) == (5, 4, 0)
    assert ds["f1"] == pytest.approx(5 / 7)
    # dataset level, v: TP = 1+0+2+2+1 = 6, FP = 1+2+0+0+0 = 3; y1 (TP 0, v=100) has a correct z3 (100) -> FN 1
    # P = 2/3, R = 6/7, F1 = 2 (2/3)(6/7) / (2/3 + 6/7) = 0.75
    dv = r.details["dataset_level"]["v"]
    assert (dv["TP"], dv["FP"], dv["FN"]) == (6, 3, 1)
    assert dv["precision"] == pytest.approx(2 / 3)
    assert dv["recall"] == pytest.approx(6 / 7)
    assert dv["f1"] == pytest.approx(0.75)
    # |N(y)| = 2, 2, 2, 2, 1 -> 9/5
    assert r.details["mean_matches_per_real"] == pytest.approx(9 / 5)
    assert r.space == "euclidean[g,a]"


@pytest.mark.slow  # about half a second
def test_air_numeric_missing_and_tolerance_slider():
    # y0 (k=a) v=NaN, N = {z0} with v=NaN: both missing -> correct -> F1 1
    # y1 (k=b) v=5, N = {z1} with v=6: |1| <= 0.1*6 = 0.6? no -> F1 0; AIR = (w*1 + w*0) / 2w = 0.5
    # air_tolerance 0.2: |1| <= 1.2 -> F1 1 -> AIR 1
    T = pd.DataFrame({"k": ["a", "b"], "v": [NAN, 5.0]})
    S = pd.DataFrame({"k": ["a", "b"], "v": [NAN, 6.0]})
    ev = _ev(T, S, key_fields=["k"], sensitive_fields=["v"])
    assert _res(ev)["air"].value == pytest.approx(0.5)
    assert _res(ev, air_tolerance=0.2)["air"].value == pytest.approx(1.0)
    # boundary is inclusive: |11 - 10| = 0.1 * 10
    T2 = pd.DataFrame({"k": ["a", "b"], "v": [11.0, 1.0]})
    S2 = pd.DataFrame({"k": ["a", "b"], "v": [10.0, 10.0]})
    ev2 = _ev(T2, S2, key_fields=["k"], sensitive_fields=["v"])
    assert _res(ev2)["air"].value == pytest.approx(0.5)


def test_air_not_computed_when_every_real_record_is_identical():
    T = pd.DataFrame({"k": ["a"] * 3, "x": [1.0] * 3, "s": ["p"] * 3})
    S = pd.DataFrame({"k": ["a", "b", "a"], "x": [1.0, 2.0, 3.0], "s": ["p", "q", "q"]})
    r = _res(_ev(T, S, sensitive_fields=["s"]))["air"]
    assert not r.computed
    assert "identical" in r.reason_not_computed


# ---------------------------------------------------------------------------------------------------------------
# CRP


def test_crp_hand_example():
    # T: (a,1), (a,1), (b,2), (c,NaN); S: (a,1), (a,1), (c,NaN), (d,4), (b,2.5)
    # synthetic copies: z0, z1 (of (a,1)), z2 ((c,NaN): missing equals missing) -> 3 / |T| = 3/4
    # real records with a copy in S: the two (a,1) and (c,NaN) -> 3
    T = pd.DataFrame({"c": ["a", "a", "b", "c"], "x": [1.0, 1.0, 2.0, NAN]})
    S = pd.DataFrame({"c": ["a", "a", "c", "d", "b"], "x": [1.0, 1.0, NAN, 4.0, 2.5]})
    r = _res(_ev(T, S))["crp"]
    assert r.value == pytest.approx(0.75)
    assert r.details["n_copies"] == 3
    assert r.details["n_real_copied"] == 3
    assert r.interval[0] < 0.75 < r.interval[1]


def test_crp_clipped_with_multiplicity():
    # 6 synthetic copies of (a,1) over |T| = 4 -> 6/4 = 1.5, clipped to 1
    T = pd.DataFrame({"c": ["a", "a", "b", "c"], "x": [1.0, 1.0, 2.0, 3.0]})
    S = pd.DataFrame({"c": ["a"] * 6, "x": [1.0] * 6})
    r = _res(_ev(T, S))["crp"]
    assert r.value == 1.0
    assert r.details["ratio_unclipped"] == pytest.approx(1.5)
    assert crp_value(6, 4) == 1.0


# ---------------------------------------------------------------------------------------------------------------
# HitR

T_HIT = pd.DataFrame({
    "c": ["a", "a", None, "b"],
    "x": [0.0, 30.0, 15.0, 10.0],
    "u": [1.0, NAN, 2.0, 3.0],
})
S_HIT = pd.DataFrame({
    "c": ["a", "a", "a", None, "b", "c"],
    "x": [1.0, 0.5, 30.0, 15.5, 12.0, 10.0],
    "u": [1.0, 1.05, 1.0, 2.0, 3.0, 3.0],
})


def test_hitting_rate_hand_example():
    # ranges on T alone: x 30 -> h_x = 30/30 = 1; u 3 - 1 = 2 -> h_u = 2/30
    # y0 (a,0,1): z0 |dx| = 1 <= 1 (inclusive), du 0 -> match; z1 dx 0.5, du 0.05 <= 0.0667 -> match
    # y1 (a,30,NaN): z2 has u = 1 (one missing) -> no match
    # y2 (missing,15,2): z3 (missing,15.5,2): missing equals missing, dx 0.5 -> match
    # y3 (b,10,3): z4 dx 2 > 1; z5 category c != b -> no match
    # HitR = 2/4 = 0.5, pairs = 3
    ev = _ev(T_HIT, S_HIT, reveal_real_values=True)
    r = _res(ev)["hitting_rate"]
    assert r.value == pytest.approx(0.5)
    assert r.details["n_pairs"] == 3
    assert r.details["tolerances"] == pytest.approx({"x": 1.0, "u": 2 / 30})
    # by default the tolerances (a real column's range over 30) are withheld; the numbers are the same
    hidden = _res(_ev(T_HIT, S_HIT))["hitting_rate"]
    assert "tolerances" not in hidden.details and hidden.value == r.value
    assert not any(v in (1.0, 2 / 30) for v in hidden.details.values() if isinstance(v, float))
    # divisor 15: h_x = 2 -> y3 and z4 (dx 2 <= 2) match too -> 3/4, pairs 4
    r15 = _res(ev, hitr_divisor=15)["hitting_rate"]
    assert r15.value == pytest.approx(0.75)
    assert r15.details["n_pairs"] == 4


def test_hitting_rate_above_its_candidate_budget_checks_a_seeded_sample_and_says_so(monkeypatch):
    """The HitR join's candidates grow with |T| x |S|: above HITR_MAX_CANDIDATES it checks a random subsample of
    T drawn from default_rng(random_state), sized to the budget, against every synthetic record; the value is the
    share of those records hit (by hand below), the calibration checks the same records, a note says so."""
    from synthpriv_report.matching.joins import _HitrIndex, hitting_candidates
    from synthpriv_report.metrics.attacks import hitting_rate as metric_module

    T = pd.concat([T_HIT] * 5, ignore_index=True)  # 20 real records: 10 hit (the 1st and 3rd of every 4)
    S, H = S_HIT, S_HIT.iloc[[3, 0]]
    ev = _ev(T, S, H, random_state=4)
    index = metric_module._hitr_index(ev.context)
    assert isinstance(index, _HitrIndex)
    h = np.array([1.0, 2 / 30])
    cands = hitting_candidates(index, h)
    monkeypatch.setattr(metric_module, "HITR_MAX_CANDIDATES", cands // 2)
    r = _res(_ev(T, S, H, random_state=4))["hitting_rate"]
    k = int(20 * ((cands // 2) / cands))
    rows = np.sort(np.random.default_rng(4).choice(20, k, replace=False))
    assert r.details["n_real"] == k and r.details["n_real_total"] == 20
    assert r.value == pytest.approx(np.mean(rows % 4 % 2 == 0))  # positions 0 and 2 of each block of 4 are hit
    assert any(f"random sample of {k} of the 20 real records" in n and "random_state=4" in n for n in r.notes)
    # calibration, H = S rows 3 and 0: only real records 0 (by z0) and 2 (by z3) of each block are hit
    assert r.calibration == pytest.approx(np.mean(rows % 4 % 2 == 0))
    # within the budget: every record, no note
    monkeypatch.setattr(metric_module, "HITR_MAX_CANDIDATES", cands)
    full = _res(_ev(T, S, H, random_state=4))["hitting_rate"]
    assert full.details["n_real"] == 20 and full.value == pytest.approx(0.5)
    assert not any("random sample" in n for n in full.notes)


def test_hitting_rate_uses_training_range_only():
    # H widens the fitted range of x to 300, but HitR's h uses T's range 30 -> still 1
    H = pd.DataFrame({"c": ["a", "b"], "x": [0.0, 300.0], "u": [1.0, 3.0]})
    r = _res(_ev(T_HIT, S_HIT, H, reveal_real_values=True))["hitting_rate"]
    assert r.value == pytest.approx(0.5)
    assert r.details["tolerances"]["x"] == pytest.approx(1.0)


def test_hitting_matches_constant_column_is_exact_equality():
    # range 0 -> h = 0: 5.0 matches 5.0 but not 5.0 + 1e-9
    hit, pairs = hitting_matches([[0]], [[5.0]], [[0], [0]], [[5.0], [5.0 + 1e-9]], [0.0])
    assert hit.tolist() == [True] and pairs == 1
    hit, pairs = hitting_matches([[0]], [[5.0]], [[0]], [[5.0 + 1e-9]], [0.0])
    assert hit.tolist() == [False] and pairs == 0


# ---------------------------------------------------------------------------------------------------------------
# pure functions against brute-force references on random data with many ties


def _random_frame(rng, n, *, missing=True):
    df = pd.DataFrame({
        "c1": rng.choice(["a", "b", "c"], n),
        "c2": rng.choice(["p", "q"], n),
        "x": rng.integers(0, 6, n).astype(float),
        "y": rng.integers(0, 40, n).astype(float),
        "s": rng.choice(["u", "v", "w"], n),
        "t": rng.integers(10, 14, n).astype(float),
    })
    if missing:
        df.loc[rng.random(n) < 0.1, "c1"] = None
        df.loc[rng.random(n) < 0.1, "x"] = NAN
    return df


def _same(a, b):
    return (a == b) or (pd.isna(a) and pd.isna(b))  # missing equals missing


@pytest.mark.parametrize("engine", ["tree", "tiled"])  # the ties at the minimum counted by either
def test_zcap_gcap_match_brute_force(engine):
    rng = np.random.default_rng(1)
    T, S = _random_frame(rng, 60), _random_frame(rng, 50)
    keys = ["c1", "c2", "x"]
    ev = _ev(T, S, key_fields=keys, sensitive_fields=["s"], engine=engine)
    res = _res(ev)
    Tv, Sv = T[keys].to_numpy(object), S[keys].to_numpy(object)
    z, g = [], []
    for i in range(len(T)):
        ham = np.array([sum(not _same(Tv[i, k], Sv[j, k]) for k in range(len(keys))) for j in range(len(S))])
        same_s = (S["s"].to_numpy() == T["s"].iloc[i])
        exact = ham == 0
        z.append((exact & same_s).sum() / max(1, exact.sum()))
        at_min = ham == ham.min()
        g.append((at_min & same_s).sum() / at_min.sum())
    assert res["zcap"].value == pytest.approx(np.mean(z))
    assert res["gcap"].value == pytest.approx(np.mean(g))


@pytest.mark.slow  # about 1 s
def test_gcap_above_its_pair_budget_uses_a_seeded_sample_of_the_real_records_and_says_so(monkeypatch):
    """GCAP's cost grows with |T| x |S|: above GCAP_MAX_PAIRS pairs it runs on a random subsample of
    GCAP_MAX_PAIRS // |S| real records drawn from default_rng(random_state) (sorted positions), against every
    synthetic record; the value is the brute-force mean over exactly those records, the sizes are in the details
    and a note states the sample."""
    from synthpriv_report.metrics.attacks import cap as metric_module

    rng = np.random.default_rng(1)
    T, S, H = _random_frame(rng, 60), _random_frame(rng, 50), _random_frame(rng, 40)
    keys = ["c1", "c2", "x"]
    monkeypatch.setattr(metric_module, "GCAP_MAX_PAIRS", 25 * 50)
    ev = _ev(T, S, H, key_fields=keys, sensitive_fields=["s"], random_state=7)
    r = _res(ev)["gcap"]
    rows = np.sort(np.random.default_rng(7).choice(60, 25, replace=False))
    Tv = T[keys].to_numpy(object)

    def brute(R):  # GCAP of the sampled real records against R, by the definition
        Rv, out = R[keys].to_numpy(object), []
        for i in rows:
            ham = np.array([sum(not _same(Tv[i, k], Rv[j, k]) for k in range(len(keys))) for j in range(len(R))])
            at_min = ham == ham.min()
            out.append((at_min & (R["s"].to_numpy() == T["s"].iloc[i])).sum() / at_min.sum())
        return np.mean(out)

    assert r.value == pytest.approx(brute(S))
    assert (r.details["n_real_used"], r.details["n_real_total"], r.details["max_pairs"]) == (25, 60, 1250)
    assert any("random sample of 25 of the 60 real records" in n and "random_state=7" in n for n in r.notes)
    # the calibration (H as S) compares the same sampled real records
    assert r.calibration == pytest.approx(brute(H))
    # the same seed gives the same sample and value; within the budget every record is used and nothing said
    again = _res(_ev(T, S, H, key_fields=keys, sensitive_fields=["s"], random_state=7))["gcap"]
    assert again.value == r.value
    monkeypatch.setattr(metric_module, "GCAP_MAX_PAIRS", 60 * 50)
    full = _res(_ev(T, S, key_fields=keys, sensitive_fields=["s"]))["gcap"]
    assert full.details["n_real_used"] == 60 and not any("random sample" in n for n in full.notes)


@pytest.mark.parametrize("engine", ["tree", "tiled"])  # the ties at the minimum counted by either
def test_air_matches_brute_force(engine):
    rng = np.random.default_rng(2)
    T, S = _random_frame(rng, 60, missing=False), _random_frame(rng, 50, missing=False)
    keys = ["c1", "x"]
    ev = _ev(T, S, key_fields=keys, sensitive_fields=["s", "t"], engine=engine)
    r = _res(ev, air_tolerance=0.1)["air"]
    rg = T["x"].max() - T["x"].min()
    f1 = np.zeros(len(T))
    for i in range(len(T)):
        d2 = ((T["x"].iloc[i] - S["x"].to_numpy()) / rg) ** 2 + 2.0 * (S["c1"].to_numpy() != T["c1"].iloc[i])
        nmin = np.isclose(d2, d2.min(), rtol=1e-9, atol=1e-15)
        tp_s = (nmin & (S["s"].to_numpy() == T["s"].iloc[i])).sum()
        zt = S["t"].to_numpy()
        tp_t = (nmin & (np.abs(T["t"].iloc[i] - zt) <= 0.1 * np.abs(zt) + 1e-12)).sum()
        f = [2 * tp / (2 * tp + nmin.sum() - tp) if tp else 0.0 for tp in (tp_s, tp_t)]
        f1[i] = np.mean(f)
    rows = T.astype(str).agg("|".join, axis=1)
    p = rows.map(rows.value_counts()).to_numpy() / len(T)
    w = -p * np.log(p)
    assert r.value == pytest.approx((w * f1).sum() / w.sum())


def test_hitting_matches_brute_force():
    rng = np.random.default_rng(3)
    n, m = 80, 70
    cat_t, cat_s = rng.integers(0, 2, (n, 2)), rng.integers(0, 2, (m, 2))
    num_t, num_s = rng.integers(0, 10, (n, 3)).astype(float), rng.integers(0, 10, (m, 3)).astype(float)
    num_t[rng.random((n, 3)) < 0.1] = NAN
    num_s[rng.random((m, 3)) < 0.1] = NAN
    h = np.array([1.0, 2.0, 0.0])
    hit, pairs = hitting_matches(cat_t, num_t, cat_s, num_s, h)
    ref_hit, ref_pairs = np.zeros(n, bool), 0
    for i in range(n):
        for j in range(m):
            ok = (cat_t[i] == cat_s[j]).all()
            for k in range(3):
                a, b = num_t[i, k], num_s[j, k]
                ok = ok and ((np.isnan(a) and np.isnan(b)) or (abs(a - b) <= h[k]))
            ref_hit[i] |= ok
            ref_pairs += ok
    assert hit.tolist() == ref_hit.tolist()
    assert pairs == ref_pairs


def test_small_pure_functions():
    ia, ib, ng = group_ids([[1, 2], [1, 3]], [[1, 3], [0, 0]])
    assert ia.tolist()[1] == ib.tolist()[0] and ng == 3
    # y0 key 0 with 2 matches, one sharing s -> 1/2; y1 key 1 no match -> 0
    assert zcap_scores([0, 1], [0, 0], [1, 1], [1, 2]).tolist() == [0.5, 0.0]
    assert gcap_scores([3], [[3, 0]]).tolist() == [[1.0, 0.0]]
    # F1 = 2 TP / (TP + |N|): TP 2 of 3 -> 4/5
    assert air_f1([3], [2]).tolist() == pytest.approx([0.8])
    assert entropy_weights([7]).tolist() == [0.0]
    # negative z: |y - z| <= 0.1 |z| -> y in [-11, -9]
    assert correct_exists([-9.0, -8.9, -11.0], [-10.0], kind=1).tolist() == [True, False, True]
    lo, hi = bootstrap_ratio(np.ones(10), np.ones(10), n_resamples=20, random_state=0)
    assert lo == hi == 1.0


# ---------------------------------------------------------------------------------------------------------------
# properties


@pytest.mark.slow  # about 2 s
def test_shuffle_invariance():
    rng = np.random.default_rng(4)
    T, S, H = _random_frame(rng, 80), _random_frame(rng, 70), _random_frame(rng, 40)
    kw = {"key_fields": ["c1", "c2", "x"], "sensitive_fields": ["s", "t"]}
    base = _res(_ev(T, S, H, **kw))
    pT = T.sample(frac=1.0, random_state=1).reset_index(drop=True)
    pS = S.sample(frac=1.0, random_state=2).reset_index(drop=True)
    pH = H.sample(frac=1.0, random_state=3).reset_index(drop=True)
    shuf = _res(_ev(pT, pS, pH, **kw))
    for name in NAMES:
        assert base[name].value == pytest.approx(shuf[name].value), name
        assert base[name].calibration == pytest.approx(shuf[name].calibration), name


@pytest.mark.slow  # about half a second
def test_exact_copy_scores_one_on_unique_records():
    rng = np.random.default_rng(5)
    n = 300
    T = pd.DataFrame({
        "id": np.arange(n, dtype=float),  # unique key combination per record
        "c": rng.choice(["a", "b", "c"], n),
        "x": rng.normal(size=n),
        "s": rng.choice(["u", "v"], n),
        "t": rng.normal(10, 1, n),
    })
    ev = _ev(T, T.sample(frac=1.0, random_state=0), key_fields=["id", "c", "x"], sensitive_fields=["s", "t"])
    res = _res(ev)
    for name in NAMES:
        assert res[name].value == pytest.approx(1.0), name
        assert res[name].level == "high"
        assert get_spec(name).value_range == (0.0, 1.0)
    for name in ("zcap", "crp", "hitting_rate"):
        assert get_spec(name).copy_sensitive


@pytest.mark.slow  # about 1 s
def test_calibration_equals_holdout_in_the_synthetic_role():
    rng = np.random.default_rng(6)
    T, S, H = _random_frame(rng, 70), _random_frame(rng, 60), _random_frame(rng, 50)
    kw = {"key_fields": ["c1", "x"], "sensitive_fields": ["s", "t"]}
    with_h = _res(_ev(T, S, H, **kw))
    # H's records also shape the fitted ranges and levels; use the same H so the euclidean scale is the same
    as_syn = _res(_ev(T, H, H, calibrate=False, **kw))
    for name in NAMES:
        assert with_h[name].calibration == pytest.approx(as_syn[name].value), name


def test_levels_from_review_absolute_thresholds():
    ev = _ev(T_CAP, S_CAP, key_fields=["k1", "k2"], sensitive_fields=["s"])
    r = _res(ev)["gcap"]  # 0.6
    assert r.level == "medium"
    assert r.level_rule.medium == 0.5 and r.level_rule.high == 0.8
    assert _res(ev, levels={"review_absolute": {"medium": 0.7, "high": 0.8}})["gcap"].level == "low"
    assert _res(ev, levels={"gcap": {"medium": 0.5, "high": 0.6}})["gcap"].level == "high"


def test_slider_moves_run_no_new_search():
    rng = np.random.default_rng(7)
    T, S, H = _random_frame(rng, 120), _random_frame(rng, 100), _random_frame(rng, 60)
    ev = _ev(T, S, H, key_fields=["c1", "c2", "x"], sensitive_fields=["s", "t"])
    first = _res(ev)
    n = ev.search_count
    # hamming and euclidean key spaces, each T -> S and T -> H
    assert n == 4
    values = set()
    for d in (5, 10, 15, 20, 25):
        values.add(_res(ev, hitr_divisor=d)["hitting_rate"].value)
    for tol in (0.0, 0.05, 0.2, 0.3, 0.5):
        _res(ev, air_tolerance=tol)
    assert ev.search_count == n
    assert len(values) > 1
    assert _res(ev)["hitting_rate"].value == first["hitting_rate"].value
