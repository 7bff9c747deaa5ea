"""Tests of the review paper's distance metrics: CVP, DVP', NSND, Authenticity', ID, NNDR,
DCR', MDCR', NNAA', HiddR.

Hand-computed examples use one numeric column x, whose euclidean coordinate is x' = (x - min_T) / range_T, so
every distance is |x'_a - x'_b|; the projected space of a one-column embedding is that same line (centred), so
projected distances are the same |x'_a - x'_b|.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from _support.evaluation import evaluation

from synthpriv_report import neighbors as nb
from synthpriv_report import stats
from synthpriv_report.core.registry import get_spec
from synthpriv_report.metrics.review.authenticity import column_entropy
from synthpriv_report.metrics.review.dcr_review import dcr_review_score, mdcr_score
from synthpriv_report.metrics.review.nnaa import nnaa_score
from synthpriv_report.metrics.review.rescaled import cvp_score, dvp_score, nsnd_score, rescaled_distance

NAMES = ["cvp", "dvp", "nsnd", "authenticity", "identifiability", "nndr_review", "dcr_review", "mdcr", "nnaa",
         "hidden_rate"]
COPY_SENSITIVE = ["authenticity", "identifiability", "nnaa", "mdcr", "dcr_review", "nndr_review"]


def _ev(T, S, H=None, **kw):
    kw.setdefault("metrics", NAMES)
    kw.setdefault("row_order", "as_given")  # the expectations name records by their position in these frames
    return evaluation(T, S, H, **kw)


def _frame(x):
    return pd.DataFrame({"x": np.asarray(x, dtype=float)})


# T x = [0, 1, 2, 4, 4] (a duplicate inside T), range 0..4 -> x' = [0, .25, .5, 1, 1]
T1 = _frame([0, 1, 2, 4, 4])
# S x = [0, 8] -> x' = [0, 2]
S1 = _frame([0, 8])


# ---------------------------------------------------------------------------------------------------------------
# registration


def test_registration():
    for name in NAMES:
        spec = get_spec(name)
        # DVP' measures how far the synthetic data stays from the real data: it is reported with the
        # distinguishability measures; every other metric of the family is a closeness measure
        assert spec.group == ("distinguishability" if name == "dvp" else "closeness")
        assert spec.direction == "higher_is_riskier"
        assert spec.value_range == (0.0, 1.0)
        assert spec.copy_sensitive == (name in COPY_SENSITIVE)
        assert spec.calibratable == (name != "hidden_rate")
        assert spec.plan is not None and spec.summary and spec.definition
    assert get_spec("hidden_rate").needs == ("pairing",)
    assert get_spec("cvp").param_names == ("cvp_threshold",)
    assert get_spec("dvp").param_names == ("dvp_threshold",)
    assert get_spec("nndr_review").default_space == "projected"
    assert get_spec("mdcr").default_space == "euclidean"


# ---------------------------------------------------------------------------------------------------------------
# CVP, DVP', NSND


def test_cvp_dvp_nsnd_by_hand():
    # d(y, S) = nearest of S' = [0, 2]: y=0 -> 0; .25 -> .25; .5 -> .5; 1 -> 1 (tie between 0 and 2); 1 -> 1
    # d_min = 0; d_max = farthest pair = |0 - 2| = 2; u = d / 2 = [0, .125, .25, .5, .5]
    ev = _ev(T1, S1)
    r = ev.results()
    # CVP(0.2): u <= 0.2 for 2 records -> 2/5
    assert r["cvp"].value == pytest.approx(0.4)
    assert r["cvp"].details["d_min"] == 0.0 and r["cvp"].details["d_max"] == pytest.approx(2.0)
    # DVP'(0.8): no u >= 0.8 -> 1 - 0 = 1
    assert r["dvp"].value == pytest.approx(1.0)
    # NSND = 1 - mean(u) = 1 - 1.375 / 5 = 0.725
    assert r["nsnd"].value == pytest.approx(0.725)
    assert r["nsnd"].details["nsnd_original"] == pytest.approx(0.275)
    # sliders, ties on the threshold count: u <= .25 -> 3/5; u >= .5 -> 2/5 far -> DVP' = 0.6
    r2 = ev.results(cvp_threshold=0.25, dvp_threshold=0.5)
    assert r2["cvp"].value == pytest.approx(0.6)
    assert r2["dvp"].value == pytest.approx(0.6)
    # intervals: Wilson over |T| = 5 records; NSND: bootstrap of mean u, turned around
    assert r["cvp"].interval == pytest.approx(stats.wilson(0.4, 5))
    lo, hi = r["nsnd"].interval
    assert lo <= 0.725 <= hi
    for name in ("cvp", "dvp", "nsnd"):
        assert any("d_max" in n for n in r[name].notes)  # the saturation is stated


def test_cvp_not_computed_when_all_distances_equal():
    # T x = [0, 0, 0], S x = [2, 2]: every real-synthetic distance is the same, d_max = d_min
    r = _ev(_frame([0, 0, 0]), _frame([2, 2])).results(metrics=["cvp", "dvp", "nsnd"])
    for name in ("cvp", "dvp", "nsnd"):
        assert not r[name].computed and "d_max = d_min" in r[name].reason_not_computed
        assert r[name].value is None


def test_pure_cvp_functions():
    u = rescaled_distance([1.0, 2.0, 3.0, 5.0], d_min=1.0, d_max=5.0)  # [0, .25, .5, 1]
    assert cvp_score(u) == 0.25
    assert cvp_score(u, threshold=0.25) == 0.5  # tie included
    assert dvp_score(u) == 0.75  # only u = 1 is far
    assert nsnd_score(u) == pytest.approx(1 - 1.75 / 4)


# ---------------------------------------------------------------------------------------------------------------
# Authenticity', MDCR'


def test_authenticity_and_mdcr_by_hand():
    # T' = [0, .25, .5, 1, 1]; S' = [0, 2]
    # d(y, S)     = [0, .25, .5, 1, 1]
    # d(y, T\y)   = [.25, .25 (tie 0 and .5), .25, 0 (duplicate), 0]
    # Auth' terms = [1 (0 < .25), .5 (tie), 0, 0, 0] -> 1.5 / 5 = 0.3
    r = _ev(T1, S1).results(metrics=["authenticity", "mdcr"])
    assert r["authenticity"].value == pytest.approx(0.3)
    assert r["authenticity"].details["n_ties"] == 1
    assert r["authenticity"].details["authenticity_original"] == pytest.approx(0.7)
    assert r["authenticity"].interval == pytest.approx(stats.wilson(0.3, 5))
    # MDCR: median d(y, S) = .5; median d(y, T\y) = median [0, 0, .25, .25, .25] = .25; ratio 2 -> 1/3
    assert r["mdcr"].value == pytest.approx(1 / 3)
    assert r["mdcr"].details["ratio"] == pytest.approx(2.0)
    lo, hi = r["mdcr"].interval
    assert 0.0 <= lo <= hi <= 1.0


def test_mdcr_not_computed_when_real_median_is_zero():
    # T x = [0, 0, 1, 1, 5]: d(y, T\y) = [0, 0, 0, 0, .8], median 0; 4 of 5 records have a duplicate in T
    r = _ev(_frame([0, 0, 1, 1, 5]), _frame([2, 3])).results(metrics=["mdcr"])["mdcr"]
    assert not r.computed and "median" in r.reason_not_computed
    assert r.details["share_real_with_identical_real"] == pytest.approx(0.8)


def test_mdcr_numerator_zero_is_one():
    assert mdcr_score(0.0, 0.3) == 1.0
    assert mdcr_score(0.3, 0.3) == 0.5


# ---------------------------------------------------------------------------------------------------------------
# Identifiability


def test_column_entropy_by_hand():
    # x = [0, 0, 0, 3]: deciles 0,0,0,0,0,0,.3,1.2,2.1 -> edges [0, .3, 1.2, 2.1]; bins (edges strictly
    # below): 0 -> 0, 3 -> 4; counts 3, 1 -> H = -(.75 ln .75 + .25 ln .25)
    h = -(0.75 * math.log(0.75) + 0.25 * math.log(0.25))
    assert column_entropy([0.0, 0.0, 0.0, 3.0], numeric=True) == pytest.approx(h)
    # a missing value is its own bin: [1, 1, nan, nan] -> two bins of 1/2 -> ln 2
    assert column_entropy([1.0, 1.0, np.nan, np.nan], numeric=True) == pytest.approx(math.log(2))
    assert column_entropy(["a", "b", "c", "d"], numeric=False) == pytest.approx(math.log(4))
    assert column_entropy(["z", "z", "z"], numeric=False) == 0.0


def test_identifiability_by_hand():
    # T: x = [0, 0, 0, 3] (x' = [0, 0, 0, 1]), c = [p, q, r, s], k = z constant.
    # H_x = -(.75 ln .75 + .25 ln .25) = 0.562335 -> w_x = 1.778300, w_x^2 = 3.162350
    # H_c = ln 4 = 1.386294 -> w_c = 0.721348, a mismatch costs 2 w_c^2 = 1.040684
    # H_k = 0 -> k is left out (S's k = y differs everywhere and must not matter)
    T = pd.DataFrame({"x": [0.0, 0.0, 0.0, 3.0], "c": list("pqrs"), "k": ["z"] * 4})
    S = pd.DataFrame({"x": [2.0, 3.0], "c": ["p", "s"], "k": ["y", "y"]})  # x' = [2/3, 1]
    # weighted d^2 = 3.162350 dx'^2 + 1.040684 [c differs]
    # d(y, T\y):  y0, y1, y2 -> c differs, dx' 0 -> sqrt(1.040684) = 1.020139; y3 -> sqrt(4.203034) = 2.050130
    # d(y, S): y0 -> s0: sqrt(3.162350 * 4/9) = 1.185537; y1, y2 -> s0: sqrt(1.405489 + 1.040684) = 1.564021;
    #          y3 -> s1: 0 (x and c equal, k left out)
    # synthetic closer: y0 no (1.1855 > 1.0201; unweighted it would be closer: 0.667 < 1.414), y1 no, y2 no,
    # y3 yes -> ID = 1/4
    r = _ev(T, S).results(metrics=["identifiability"])["identifiability"]
    assert r.value == pytest.approx(0.25)
    assert r.details["columns_left_out"] == ["k"]
    assert r.details["entropy"]["x"] == pytest.approx(0.562335, abs=1e-6)
    assert r.details["weights"]["c"] == pytest.approx(1 / math.log(4), rel=1e-6)
    assert r.interval == pytest.approx(stats.wilson(0.25, 4))


def test_identifiability_not_computed_on_constant_columns():
    T = pd.DataFrame({"c": ["a", "a", "a"]})
    r = _ev(T, pd.DataFrame({"c": ["a", "b"]})).results(metrics=["identifiability"])["identifiability"]
    assert not r.computed and "entropy 0" in r.reason_not_computed


# ---------------------------------------------------------------------------------------------------------------
# NNDR (review), DCR' (review), HiddR: projected space (one column -> the same line)


S3 = _frame([1, 3, 4, 2.5])  # x' = [.25, .75, 1, .625]


def test_nndr_review_by_hand():
    # T' = [0, .25, .5, 1, 1]
    # s0 .25: identical to y1 -> r = 1            (paper: d1 = 0 -> 1)
    # s1 .75: d1 = d2 = .25 (tie .5 and 1) -> r = 1 - 1 = 0   (paper: 1)
    # s2 1.0: identical to y3 (and y4) -> r = 1  (paper: d1 = 0 -> 1)
    # s3 .625: d1 = .125 (.5), d2 = .375 (1) -> r = 1 - 1/3 = 2/3   (paper: 1/3)
    # NNDR = (1 + 0 + 1 + 2/3) / 4 = 2/3; paper's Eq. 27 mean = (1 + 1 + 1 + 1/3) / 4 = 5/6
    r = _ev(T1, S3).results(metrics=["nndr_review"])["nndr_review"]
    assert r.value == pytest.approx(2 / 3)
    assert r.details["nndr_original_mean"] == pytest.approx(5 / 6)
    assert r.details["n_copies"] == 2
    assert r.details["projected_k"] == 1
    lo, hi = r.interval
    assert lo <= r.value <= hi


def test_nndr_review_copy_rule_uses_exact_equality():
    # Two columns; "c" differs but the projection keeps 1 component (n_components=1) on which s is on y.
    T = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0], "c": list("aaab")})
    S = pd.DataFrame({"x": [0.0], "c": ["b"]})
    r = _ev(T, S, n_components=1).results(metrics=["nndr_review"])["nndr_review"]
    assert r.details["n_copies"] == 0
    r_copy = _ev(T, T.iloc[[0]].reset_index(drop=True)).results(metrics=["nndr_review"])["nndr_review"]
    assert r_copy.value == 1.0 and r_copy.details["n_copies"] == 1


def test_dcr_review_by_hand():
    # DCR(y, S): y0 -> .25 (s0); y1 -> 0; y2 .5 -> .125 (s3 .625); y3, y4 -> 0 (s2)
    # mean = .375 / 5 = .075 -> DCR' = 1 / 1.075
    r = _ev(T1, S3).results(metrics=["dcr_review"])["dcr_review"]
    assert r.value == pytest.approx(1 / 1.075)
    assert r.details["dcr_mean"] == pytest.approx(0.075)
    lo, hi = r.interval
    assert lo <= r.value <= hi
    assert dcr_review_score(0.0) == 1.0


def test_hidden_rate_by_hand():
    # DCR(y, S) as in test_dcr_review_by_hand: [.25, 0, .125, 0, 0]
    # pairs: (0, 0) d = .25 = min -> y0 counts; (1, 1) d = .5 > 0 -> no; (2, 1) d = .25 > .125 -> no;
    # (2, 3) d = .125 = min -> y2 counts; (3, 2) d = 0 = min -> y3 counts. y4 is not paired.
    # distinct paired real records {0, 1, 2, 3} -> HiddR = 3/4; the paper divides by |S| = 4 -> 3/4 too
    pairs = [(0, 0), (1, 1), (2, 1), (2, 3), (3, 2)]
    r = _ev(T1, S3, pairing=pairs).results(metrics=["hidden_rate"])["hidden_rate"]
    assert r.value == pytest.approx(0.75)
    assert r.details["n_real_paired"] == 4 and r.details["n_pairs"] == 5
    assert r.details["n_pairs_at_minimum"] == 3
    assert r.interval == pytest.approx(stats.wilson(0.75, 4))


def test_hidden_rate_not_computed_without_pairing():
    r = _ev(T1, S3).results(metrics=["hidden_rate"])["hidden_rate"]
    assert not r.computed and "pairing" in r.reason_not_computed
    r0 = _ev(T1, S3, pairing=np.zeros((0, 2), dtype=int)).results(metrics=["hidden_rate"])["hidden_rate"]
    assert not r0.computed


# ---------------------------------------------------------------------------------------------------------------
# NNAA'


def test_nnaa_by_hand_equal_sizes():
    # T x = [0, 1, 2, 4] -> x' = [0, .25, .5, 1]; S x = [0, 3, 3, 8] -> x' = [0, .75, .75, 2]
    # d(y, S) = [0, .25, .25, .25]; d(y, T\y) = [.25, .25, .25, .5]
    #   1[d(y,S) > d(y,T\y)] + ½ ties = [0, .5, .5, 0] -> .25
    # d(z, T) = [0, .25, .25, 1]; d(z, S\z) = [.75, 0 (duplicate), 0, 1.25]
    #   1[d(z,T) > d(z,S\z)] + ½ ties = [0, 1, 1, 0] -> .5
    # AA = ½ (.25 + .5) = .375 -> NNAA' = .625
    r = _ev(_frame([0, 1, 2, 4]), _frame([0, 3, 3, 8])).results(metrics=["nnaa"])["nnaa"]
    assert r.value == pytest.approx(0.625)
    assert r.details["n_draws"] == 1
    assert r.interval == pytest.approx(stats.wilson(0.625, 8))


def _nn1(q, ref, self_excl):
    d = np.abs(q[:, None] - ref[None, :])
    if self_excl:
        np.fill_diagonal(d, np.inf)
    return d.min(axis=1)


@pytest.mark.slow  # over half a second
def test_nnaa_unequal_sizes_averages_five_subsamples():
    rng = np.random.default_rng(5)
    tx = rng.normal(size=40).round(2)
    sx = rng.normal(size=25).round(2)
    r = _ev(_frame(tx), _frame(sx), random_state=3).results(metrics=["nnaa"])["nnaa"]
    assert r.details["n_draws"] == 5 and r.details["evaluation_size"] == 25
    # independent brute force: x' = (x - min_T) / range_T; 5 successive subsamples of T of size 25
    lo, span = tx.min(), tx.max() - tx.min()
    t, s = (tx - lo) / span, (sx - lo) / span
    draw = np.random.default_rng(3)
    vals = []
    for _ in range(5):
        rows = np.sort(draw.choice(40, 25, replace=False))
        y = t[rows]
        vals.append(nnaa_score(_nn1(y, s, False), _nn1(y, y, True), _nn1(s, y, False), _nn1(s, s, True)))
    assert r.value == pytest.approx(float(np.mean(vals)))
    assert r.details["draw_values"] == pytest.approx(vals)


# ---------------------------------------------------------------------------------------------------------------
# properties


def _mixed(n, seed):
    """Unique-record mixed data with dependent columns."""
    rng = np.random.default_rng(seed)
    a = rng.normal(size=n)
    b = a * 2 + rng.normal(scale=0.3, size=n)
    cat = np.where(a > 0, "hi", "lo")
    cat2 = rng.choice(list("uvwxyz"), size=n)
    return pd.DataFrame({"a": a.round(4), "b": b.round(4), "g": cat, "h": cat2})


def _latent(n, seed):
    """Unique-record data whose five categorical columns follow one latent class (strong dependence), so that
    resampling each column independently moves records away from every real one (categorical mismatches keep
    projected distances large enough for DCR' to show it)."""
    rng = np.random.default_rng(seed)
    z = rng.integers(0, 4, size=n)
    cols = {"a": (z + rng.normal(scale=0.5, size=n)).round(4)}
    for j in range(5):
        cols[f"c{j}"] = np.where(rng.random(n) < 0.85, z, rng.integers(0, 4, size=n)).astype(str)
    return pd.DataFrame(cols)


@pytest.mark.slow  # about 2 s
def test_shuffle_invariance():
    T = _mixed(150, 1)
    S = _mixed(150, 2)
    pairs = np.c_[np.arange(150), np.arange(150)]
    base = _ev(T, S, pairing=pairs).results()
    pt = np.random.default_rng(7).permutation(150)
    ps = np.random.default_rng(8).permutation(150)
    T2 = T.iloc[pt].reset_index(drop=True)
    S2 = S.iloc[ps].reset_index(drop=True)
    inv_t, inv_s = np.argsort(pt), np.argsort(ps)
    pairs2 = np.c_[inv_t[pairs[:, 0]], inv_s[pairs[:, 1]]]  # the same (real, synthetic) pairs, new positions
    shuffled = _ev(T2, S2, pairing=pairs2).results()
    for name in NAMES:
        assert base[name].computed, name
        assert shuffled[name].value == pytest.approx(base[name].value, abs=1e-9), name


@pytest.mark.slow  # about 2 s
def test_exact_copy_scores_one_and_independent_columns_score_lower():
    T = _latent(200, 3)
    assert not T.duplicated().any()
    copy = T.sample(frac=1.0, random_state=0).reset_index(drop=True)
    rc = _ev(T, copy).results(metrics=COPY_SENSITIVE)
    rng = np.random.default_rng(4)
    indep = pd.DataFrame({c: rng.permutation(T[c].to_numpy()) for c in T.columns})
    ri = _ev(T, indep).results(metrics=COPY_SENSITIVE)
    for name in COPY_SENSITIVE:
        assert rc[name].value >= 0.95, name
        assert ri[name].value < rc[name].value - 0.2, (name, ri[name].value)


@pytest.mark.slow  # about 2 s
def test_searches_are_shared_and_sliders_do_not_search():
    T = _mixed(120, 5)
    S = _mixed(120, 6)
    H = _mixed(80, 7)
    ev = _ev(T, S, H, calibrate=True, pairing=np.c_[np.arange(120), np.arange(120)])
    r = ev.results()
    keys = [(s.space, s.query, s.ref) for s in ev.searches]
    assert len(keys) == len(set(keys))  # each (space, query, ref) once
    main = [k for k in keys if "H" not in k[1] + k[2] and "[" not in k[1] + k[2]]
    # euclidean T->S, T->T, S->T, S->S; weighted T->S, T->T; projected S->T, T->S
    assert len(main) == 8
    # calibration (|H| != |T|): NNAA' searches within 5 subsamples of T of |H| records
    assert sum("[nnaa." in k[1] + k[2] for k in keys) == 5 * 3
    assert r["cvp"].calibration is not None and r["nnaa"].calibration is not None
    assert r["hidden_rate"].calibration is None
    n = ev.search_count
    for i in range(10):
        ev.results(cvp_threshold=0.1 + 0.03 * i, dvp_threshold=0.6 + 0.03 * i)
    assert ev.search_count == n


def test_levels_use_review_absolute_thresholds():
    r = _ev(T1, S1).results(metrics=["cvp"], cvp_threshold=1.0)["cvp"]  # every u <= 1 -> 1.0
    assert r.value == 1.0 and r.level == "high"
    assert r.level_rule.high == 0.8 and r.level_rule.medium == 0.5
    r2 = _ev(T1, S1).results(metrics=["cvp"], cvp_threshold=1.0,
                             levels={"review_absolute": {"medium": 0.5, "high": 1.1}})["cvp"]
    assert r2.level == "medium"


@pytest.mark.slow  # about 4 s
@pytest.mark.parametrize("space", ["euclidean", "gower", "hamming", "projected"])
def test_context_farthest_matches_brute_force(space):
    rng = np.random.default_rng(21)
    for _ in range(5):
        def mk(k):
            x = rng.normal(size=k).round(1)
            x[rng.random(k) < 0.1] = np.nan
            return pd.DataFrame({"x": x, "y": rng.integers(0, 5, k).astype(float),
                                 "c": rng.choice(list("abcdefg"), k), "d": rng.choice(list("pq"), k)})
        ev = _ev(mk(int(rng.integers(3, 120))), mk(int(rng.integers(3, 120))))
        ctx = ev.context
        sp = ctx.space(space)
        enc = ctx.encoding(sp)
        n, m = ctx.size("T"), ctx.size("S")
        ii, jj = np.meshgrid(np.arange(n), np.arange(m), indexing="ij")
        all_d = nb.pair_distances(enc, "T", ii.ravel(), "S", jj.ravel())  # brute force over every pair
        d, i, j = ctx.farthest(sp, "T", "S")
        assert d == pytest.approx(all_d.max(), rel=1e-12, abs=1e-12)
        assert nb.pair_distances(enc, "T", np.array([i]), "S", np.array([j]))[0] == pytest.approx(d)
