"""Tests of ``unique_disclosure``: training uniques whose sensitive value the synthetic data give away (DiSCO),
against holdout records whose key values no training record has.

Expected counts are derived by hand on frames of 4-7 rows (the arithmetic is in the comments); the properties
(an exact copy discloses every training unique, fresh real records disclose no more training uniques than holdout
records, the row order changes nothing) are checked on frames drawn from one population.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from _support.evaluation import evaluation
from scipy.stats import beta

from synthpriv_report import stats
from synthpriv_report.core.registry import get_spec, verdict_alpha
from synthpriv_report.metrics.attacks.unique_disclosure import (
    absent_from,
    clustered_design_effect,
    disclosed,
    exact_bounds,
    excess_bounds,
    synthetic_matches,
    unique_within,
)
from synthpriv_report.stats import evidence

NAME = "unique_disclosure"
NAN = float("nan")


def _result(T, S, H, **kw):
    kw.setdefault("key_fields", ["k", "n"])
    kw.setdefault("sensitive_fields", ["s"])
    return evaluation(T, S, H, metrics=[NAME], **kw).results()[NAME]


# ---------------------------------------------------------------------------------------------------------------
# one hand example: a shared key, a missing numeric key value, mixed and unanimous synthetic values

T = pd.DataFrame({
    "k": ["a", "a", "b", "b", "c", "d"],
    "n": [1.0, 1.0, 1.0, 2.0, NAN, 3.0],
    "s": ["x", "y", "x", "y", "x", "y"],
})
H = pd.DataFrame({
    "k": ["a", "e", "e", "f", "b"],
    "n": [1.0, 1.0, 1.0, 2.0, 2.0],
    "s": ["x", "x", "y", "x", "x"],
})
S = pd.DataFrame({
    "k": ["b", "b", "b", "c", "c", "e", "a"],
    "n": [1.0, 2.0, 2.0, NAN, NAN, 1.0, 1.0],
    "s": ["x", "x", "y", "x", "x", "x", "x"],
})


def test_hand_example_counts():
    # Training keys (k, n): (a,1) twice, so T0 and T1 are not unique; T2 (b,1), T3 (b,2), T4 (c,NaN) and
    # T5 (d,3) are the 4 training uniques.
    #   T2 (b,1) s=x: one synthetic record, S0 (b,1) x          -> disclosed, and a replicated unique
    #   T3 (b,2) s=y: S1 x and S2 y disagree                    -> not disclosed (2 synthetic matches)
    #   T4 (c,NaN) s=x: S3 and S4, both x (missing equals missing) -> disclosed (2 matches: not repU)
    #   T5 (d,3): no synthetic record                           -> not disclosed
    # share = 2 / 4; repU = 1 / 4; uniques whose keys occur in S: T2, T3, T4 = 3.
    # Holdout records whose keys no training record has: H1 (e,1), H2 (e,1), H3 (f,2) -> 3 (H0 (a,1) and
    # H4 (b,2) have training keys).
    #   H1 (e,1) s=x: one synthetic record, S5 x -> disclosed; H2 (e,1) s=y: S5 is x -> not; H3: no match.
    # holdout share = 1 / 3; both H1 and H2 have exactly one synthetic match -> 2 replicated.
    # Over all records (synthpop's DiSCO): T0 (a,1) x has S6 x alone -> disclosed, with T2, T4: 3 / 6;
    # holdout: H0 (a,1) x and H1 -> 2 / 5 (H4 (b,2) x meets S1 x and S2 y).
    r = _result(T, S, H)
    d = r.details
    assert (d["n_training"], d["n_training_unique"], d["n_disclosed"]) == (6, 4, 2)
    assert r.value == pytest.approx(0.5)
    assert (d["n_replicated_uniques"], d["n_training_unique_in_synthetic"]) == (1, 3)
    assert d["rep_u"] == pytest.approx(0.25) and d["rep_u_of_training"] == pytest.approx(1 / 6)
    assert (d["n_holdout"], d["n_holdout_unseen_keys"], d["n_holdout_disclosed"]) == (5, 3, 1)
    assert d["holdout_share"] == pytest.approx(1 / 3) and d["n_holdout_replicated"] == 2
    assert d["disco_of_training"] == pytest.approx(0.5) and d["disco_of_holdout"] == pytest.approx(0.4)
    assert d["excess"] == pytest.approx(0.5 - 1 / 3)
    assert d["sensitive_field"] == "s" and d["key_fields"] == ["k", "n"]


def test_hand_example_intervals_and_level():
    # The value's interval: Clopper-Pearson 95% of 2 of 4, Beta(0.025; 2, 3) to Beta(0.975; 3, 2).
    r = _result(T, S, H)
    d = r.details
    assert r.interval == pytest.approx((beta.ppf(0.025, 2, 3), beta.ppf(0.975, 3, 2)))
    assert d["holdout_interval"] == pytest.approx([beta.ppf(0.025, 1, 3), beta.ppf(0.975, 2, 2)])
    # The holdout flags [1, 0, 0] in key groups {H1, H2}, {H3}: the clustered variance
    # ((1 - 1/3) + (0 - 1/3))^2 + (0 - 1/3)^2 = 2/9 over 9 is a third of the plain 2/27, so the design effect is 1.
    assert d["holdout_design_effect"] == 1.0
    # The graded bound: Newcombe's square-and-add of the two exact intervals at the per-check level alpha:
    # L = (1/2 - 1/3) - sqrt((1/2 - Beta(alpha; 2, 3))^2 + (Beta(1 - alpha; 2, 2) - 1/3)^2).
    a = verdict_alpha()
    lower = 1 / 6 - math.sqrt((0.5 - beta.ppf(a, 2, 3)) ** 2 + (beta.ppf(1 - a, 2, 2) - 1 / 3) ** 2)
    assert d["excess_lower_bound"] == pytest.approx(lower)
    assert d["check_alpha"] == pytest.approx(a)
    # so few records prove nothing either way: no risk shown (graded on that bound), none ruled out (inconclusive)
    assert r.level == "inconclusive" and r.level_rule.graded == pytest.approx(lower)


def test_hand_example_reveals_counts_not_values():
    T2, H2, S2 = (f.assign(s=f["s"].map({"x": "secret_level_x", "y": "secret_level_y"}),
                           k=f["k"].map(lambda v: f"person_{v}")) for f in (T, H, S))
    r = _result(T2, S2, H2)
    assert r.details["n_disclosed"] == 2  # the same counts as above
    text = json.dumps(r.to_dict())
    assert "secret_level" not in text and "person_" not in text


# ---------------------------------------------------------------------------------------------------------------
# properties


def _population(n: int, seed: int) -> pd.DataFrame:
    """Records of one population: three key fields with many combinations, a sensitive field tied to one."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 60, n)
    b = rng.choice(list("pqrstu"), n)
    c = rng.choice(["u", "v", "w"], n, p=[0.6, 0.3, 0.1])
    s = np.where(rng.random(n) < 0.2 + 0.02 * (a % 10), "hi", "lo")
    return pd.DataFrame({"a": a.astype(float), "b": b, "c": c, "s": s})


KEYS = {"key_fields": ["a", "b", "c"], "sensitive_fields": ["s"]}


def test_an_exact_copy_discloses_every_training_unique():
    T_, H_ = _population(400, 1), _population(400, 2)
    r = _result(T_, T_.copy(), H_, **KEYS)
    d = r.details
    assert d["n_training_unique"] > 50
    assert d["n_disclosed"] == d["n_training_unique"] and r.value == 1.0
    assert d["n_replicated_uniques"] == d["n_training_unique"] and d["rep_u"] == 1.0
    # no synthetic record has key values that no training record has: the holdout's rate is 0
    assert d["n_holdout_unseen_keys"] > 20 and d["n_holdout_disclosed"] == 0 and d["holdout_share"] == 0.0
    assert d["excess_lower_bound"] > 0.05 and r.level == "high"


def test_a_release_of_resampled_training_records_is_high():
    # records of T drawn with replacement: every training unique drawn is disclosed, none of the holdout
    T_, H_ = _population(400, 3), _population(400, 4)
    S_ = T_.sample(400, replace=True, random_state=5).reset_index(drop=True)
    r = _result(T_, S_, H_, **KEYS)
    assert r.details["holdout_share"] == 0.0 and r.value > 0.5 and r.level == "high"


@pytest.mark.parametrize("seed", [10, 20, 30])
def test_fresh_real_records_show_no_excess(seed):
    # S drawn from the population like T and H, independently of T: the two rates agree up to chance
    T_, H_, S_ = _population(2000, seed), _population(2000, seed + 1), _population(2000, seed + 2)
    r = _result(T_, S_, H_, **KEYS)
    d = r.details
    assert d["n_training_unique"] > 100 and d["n_holdout_unseen_keys"] > 100
    assert 0 < d["holdout_share"] < 1
    assert abs(d["excess"]) < 0.1
    assert r.level in ("low", "inconclusive")


def test_row_order_changes_no_number():
    T_, H_, S_ = _population(500, 40), _population(500, 41), _population(500, 42)
    S_.iloc[:200] = T_.iloc[:200].to_numpy()  # some leak, so that every count is not zero
    rng = np.random.default_rng(7)
    shuffled = [f.iloc[rng.permutation(len(f))].reset_index(drop=True) for f in (T_, S_, H_)]
    a = _result(T_, S_, H_, row_order="as_given", **KEYS).to_dict()
    b = _result(*shuffled, row_order="as_given", **KEYS).to_dict()
    assert a["details"]["n_disclosed"] > 0 and a["details"]["n_holdout_disclosed"] > 0
    assert a == b


# ---------------------------------------------------------------------------------------------------------------
# several sensitive fields, numbers, notes, and the cases that are not assessed


def test_several_sensitive_fields_headline_the_worst():
    # Keys k; T's four records are all unique. S repeats each key with the true number v but a wrong category s:
    #   for s: no training unique disclosed (0 of 4); for v: every one (4 of 4, numbers by exact value).
    # The holdout's keys e, f are not in T and not in S: 0 of 2 for both fields.
    T_ = pd.DataFrame({"k": list("abcd"), "s": list("xxyy"), "v": [1.5, 2.5, 3.5, 4.5]})
    S_ = pd.DataFrame({"k": list("abcd"), "s": list("yyxx"), "v": [1.5, 2.5, 3.5, 4.5]})
    H_ = pd.DataFrame({"k": list("ef"), "s": list("xy"), "v": [1.5, 2.5]})
    r = _result(T_, S_, H_, key_fields=["k"], sensitive_fields=["s", "v"])
    assert r.details["sensitive_field"] == "v" and r.value == 1.0
    assert r.details["per_field"]["s"]["n_disclosed"] == 0 and r.details["per_field"]["v"]["n_disclosed"] == 4
    # the level of each field is shared: half the per-check level each
    assert r.details["check_alpha"] == pytest.approx(verdict_alpha() / 2)
    assert any("2 sensitive fields" in n for n in r.notes)


def test_a_number_changed_slightly_is_not_disclosed():
    T_ = pd.DataFrame({"k": list("abcd"), "v": [1.5, 2.5, 3.5, 4.5]})
    S_ = pd.DataFrame({"k": list("abcd"), "v": [1.5, 2.5, 3.5, 4.5 + 1e-9]})  # d's value off by 1e-9
    H_ = pd.DataFrame({"k": list("ef"), "v": [1.5, 2.5]})
    r = _result(T_, S_, H_, key_fields=["k"], sensitive_fields=["v"])
    assert (r.details["n_training_unique"], r.details["n_disclosed"]) == (4, 3)


def test_continuous_key_and_sensitive_fields_get_a_note():
    # 60 distinct numbers in 60 records: above 50 distinct values and 5% of the records
    rng = np.random.default_rng(0)
    T_ = pd.DataFrame({"age": rng.normal(size=60), "g": rng.choice(list("ab"), 60), "inc": rng.normal(size=60)})
    H_ = T_.assign(age=rng.normal(size=60))
    r = _result(T_, T_.copy(), H_, key_fields=["age", "g"], sensitive_fields=["inc"])
    assert r.computed
    assert any("continuous key field(s) age" in n for n in r.notes)
    assert any("continuous sensitive field(s) inc" in n for n in r.notes)


def test_without_a_holdout_or_sensitive_fields_it_is_not_assessed():
    r = _result(T, S, None)
    assert not r.computed and r.value is None and "holdout" in r.reason_not_computed
    r = _result(T, S, H, sensitive_fields=None)
    assert not r.computed and "sensitive" in r.reason_not_computed


def test_without_training_uniques_or_unseen_holdout_keys_it_is_not_assessed():
    T_ = pd.DataFrame({"k": list("aabb"), "s": list("xyxy")})
    r = _result(T_, T_.copy(), pd.DataFrame({"k": list("c"), "s": list("x")}), key_fields=["k"])
    assert not r.computed and "no training record is unique" in r.reason_not_computed
    T_ = pd.DataFrame({"k": list("abc"), "s": list("xyx")})
    r = _result(T_, T_.copy(), pd.DataFrame({"k": list("ab"), "s": list("xx")}), key_fields=["k"])
    assert not r.computed and "every holdout record has key values" in r.reason_not_computed


def test_declaration():
    spec = get_spec(NAME)
    assert spec.copy_sensitive and not spec.drives_verdict and not spec.calibratable
    assert spec.needs == ("holdout", "sensitive_fields") and spec.kind() == "share"


# ---------------------------------------------------------------------------------------------------------------
# the pure functions


def test_indicators_by_hand():
    assert unique_within([3, 1, 3, 0]).tolist() == [False, True, False, True]
    assert absent_from([0, 1, 2], [1]).tolist() == [True, False, True]
    assert synthetic_matches([0, 1], [1, 1, 1]).tolist() == [0, 3]
    # key 0: synthetic values {5}; key 1: {5, 6}; key 2: none
    assert disclosed([0, 0, 1, 2], [5, 6, 5, 5], [0, 1, 1, 0], [5, 5, 6, 5]).tolist() == [True, False, False, False]


@pytest.mark.parametrize("k, n", [(0, 7), (3, 7), (7, 7), (12, 40)])
def test_exact_bounds_are_clopper_pearson_on_whole_numbers(k, n):
    assert exact_bounds(k, n, 0.025) == pytest.approx(stats.clopper_pearson(k, n))
    assert exact_bounds(k, n, 0.05) == pytest.approx(stats.clopper_pearson(k, n, sided="one"))


def test_excess_bounds_by_hand():
    # 0 of 10 against 0 of 10: d = 0, lower = -(u0 - 0) = -(1 - tail^(1/10)), upper = +(u1 - 0)
    lo, hi = excess_bounds(0, 10, 0, 10, tail=0.025)
    assert lo == pytest.approx(-(1 - 0.025 ** 0.1)) and hi == pytest.approx(1 - 0.025 ** 0.1)
    # 10 of 10 against 0 of 10: lower = 1 - sqrt((1 - tail^(1/10))^2 + (1 - tail^(1/10))^2)
    lo, hi = excess_bounds(10, 10, 0, 10, tail=0.025)
    assert lo == pytest.approx(1 - math.sqrt(2) * (1 - 0.025 ** 0.1)) and hi == pytest.approx(1.0)


def test_design_effect_matches_the_package_and_ignores_group_numbers():
    rng = np.random.default_rng(3)
    groups = rng.integers(0, 40, 300)
    flags = (rng.random(300) < 0.2 + 0.5 * (groups % 3 == 0)).astype(int)  # flags cluster in groups
    deff = clustered_design_effect(flags, groups)
    assert deff > 1.2 and deff == pytest.approx(evidence.design_effect(flags, groups), rel=1e-12)
    relabel = rng.permutation(1000)[groups]  # other numbers for the same groups, records in another order
    order = rng.permutation(300)
    assert clustered_design_effect(flags[order], relabel[order]) == deff
