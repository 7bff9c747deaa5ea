"""Tests of synthpriv_report.metrics.distinguishability.review_classifier: D-MLP and MIR (docs/metrics.md, sections
detection_mlp
and mir)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from _support.evaluation import evaluation

from synthpriv_report.metrics.distinguishability import review_classifier as rc
from synthpriv_report.stats import wilson


def _frame(n: int, shift: float, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"x": rng.uniform(0, 1, n) + shift, "y": rng.normal(0, 1, n),
                         "c": rng.choice(list("abc"), n)})


_ev = evaluation


# ----------------------------------------------------------------------------------------------------------------
# pure functions, by hand


def test_cap_rows_draws_t_first_then_s():
    # rng = default_rng(3): T (50 > 20) draws sort(choice(50, 20)), then S (30 > 20) sort(choice(30, 20))
    rng = np.random.default_rng(3)
    exp_t = np.sort(rng.choice(50, 20, replace=False))
    exp_s = np.sort(rng.choice(30, 20, replace=False))
    rt, rs = rc.cap_rows(50, 30, 20, random_state=3)
    assert rt.tolist() == exp_t.tolist() and rs.tolist() == exp_s.tolist()
    # T under the cap draws nothing, so S gets the rng's first draw
    rt, rs = rc.cap_rows(10, 30, 20, random_state=3)
    assert rt.tolist() == list(range(10))
    assert rs.tolist() == np.sort(np.random.default_rng(3).choice(30, 20, replace=False)).tolist()


def test_mir_scores_by_hand():
    # real test records: 5 (labels 1), predicted real 3 -> recall 3/5 = 0.6
    # holdout: 8 records, 2 predicted real -> 0.25; advantage 0.6 - 0.25 = 0.35
    s = rc.mir_scores([1, 1, 1, 1, 1, 0, 0], [1, 0, 1, 0, 1, 1, 1], [0, 1, 0, 0, 1, 0, 0, 0])
    assert s.recall == pytest.approx(0.6)
    assert s.n_real_test == 5
    assert s.holdout_predicted_real == pytest.approx(0.25)
    assert s.membership_advantage == pytest.approx(0.35)
    no_holdout = rc.mir_scores([1, 0], [1, 0])
    assert no_holdout.membership_advantage is None and no_holdout.n_holdout is None


# ----------------------------------------------------------------------------------------------------------------
# through the evaluation


def test_separable_scores_near_one():
    T, S = _frame(150, 0.0, 1), _frame(150, 10.0, 2)
    res = _ev(T, S).results(metrics=["detection_mlp", "mir"])
    d, m = res["detection_mlp"], res["mir"]
    assert d.value > 0.95 and d.details["advantage"] > 0.9 and d.level == "high"
    assert m.value > 0.95 and m.level == "high"
    assert d.interval[0] <= d.value <= d.interval[1]
    assert len(d.details["fold_aucs"]) == 5
    # MIR interval: Wilson on the recall over the real test records (30% of 150, stratified = 45)
    assert m.details["n_real_test"] == 45
    assert m.interval == pytest.approx(wilson(m.value, 45))


def test_exact_copy_auc_near_half():
    # unique records (continuous x, y); 400 per class. On much smaller data the MLP partly memorises the copy of
    # a held-out record, which sits in the training folds with the opposite label, and the AUC drops below 0.5.
    T = _frame(400, 0.0, 1)
    r = _ev(T, T.copy()).results(metrics=["detection_mlp"])["detection_mlp"]
    assert abs(r.value - 0.5) < 0.1
    assert "not a copy detector" in r.details["note"]


def test_deterministic_for_fixed_random_state():
    T, S, H = _frame(120, 0.0, 1), _frame(120, 0.2, 2), _frame(60, 0.0, 3)
    a = _ev(T, S, H, random_state=7).results(metrics=["detection_mlp", "mir"])
    b = _ev(T, S, H, random_state=7).results(metrics=["detection_mlp", "mir"])
    for name in ("detection_mlp", "mir"):
        assert a[name].computed
        assert a[name].to_dict() == b[name].to_dict()
    json.dumps(a.to_dict(), allow_nan=False)


def test_max_rows_subsample_sizes_reported():
    T, S = _frame(120, 0.0, 1), _frame(90, 0.3, 2)
    res = _ev(T, S, max_rows=50).results(metrics=["detection_mlp", "mir"])
    for name in ("detection_mlp", "mir"):
        d = res[name].details
        assert (d["n_real_used"], d["n_synthetic_used"]) == (50, 50)
        assert (d["n_real_total"], d["n_synthetic_total"], d["max_rows"]) == (120, 90, 50)
    # MIR: 100 labelled records, test_size 0.3 stratified -> 15 real of 30 test records
    assert res["mir"].details["n_real_test"] == 15 and res["mir"].details["n_test"] == 30


def test_membership_advantage_by_hand():
    # T has x in [0, 1), S has x in [10, 11): the boosted trees separate them perfectly, so every real test record
    # is predicted real (recall = 1). H holds 6 real-like records (x in [0, 1)) and 4 synthetic-like (x >= 10):
    # share of H predicted real = 6/10 = 0.6, membership advantage = 1 - 0.6 = 0.4.
    T, S = _frame(60, 0.0, 1), _frame(60, 10.0, 2)
    H = pd.concat([_frame(6, 0.0, 3), _frame(4, 10.0, 4)], ignore_index=True)
    r = _ev(T, S, H).results(metrics=["mir"])["mir"]
    assert r.value == 1.0
    assert next(iter(r.details)) == "membership_advantage"
    assert r.details["holdout_predicted_real"] == pytest.approx(0.6)
    assert r.details["membership_advantage"] == pytest.approx(0.4)
    assert r.details["n_holdout"] == 10
    assert r.level == "high" and "membership advantage" in r.level_rule.description


def test_mir_predicts_the_holdout_in_blocks_with_the_same_numbers():
    """The evaluation hands MIR the holdout's embedding block by block (a million holdout records are never
    embedded whole); the predictions are those of the whole array."""
    T, S, H = _frame(80, 0.0, 1), _frame(80, 0.4, 2), _frame(50, 0.2, 3)
    ev = _ev(T, S, H)
    lab = rc._labelled(ev.context)
    X_h = ev.context.embedding("H")
    whole = rc.mir_predictions(lab["X"], lab["y"], X_h, random_state=0)
    blocks = rc.mir_predictions(lab["X"], lab["y"], ev.context.embedding_blocks("H", rows_per_block=7),
                                random_state=0)
    for a, b in zip(whole, blocks):
        np.testing.assert_array_equal(a, b)
    assert len(blocks[2]) == 50
    r = ev.results(metrics=["mir"])["mir"]
    assert r.details["n_holdout"] == 50
    assert r.details["holdout_predicted_real"] == pytest.approx(float(np.mean(whole[2] == 1)))


def test_classifier_features_embed_only_the_kept_rows():
    T, S = _frame(120, 0.0, 1), _frame(90, 0.3, 2)
    ctx = _ev(T, S, max_rows=50).context
    lab = rc._labelled(ctx)
    rows_t, rows_s = rc.cap_rows(120, 90, 50, random_state=0)
    expected = np.concatenate([ctx.embedding("T")[rows_t], ctx.embedding("S")[rows_s]])
    np.testing.assert_array_equal(lab["X"], expected)


def test_too_few_records_not_computed():
    T, S = _frame(8, 0.0, 1), _frame(50, 0.0, 2)
    res = _ev(T, S).results(metrics=["detection_mlp", "mir"])
    for name in ("detection_mlp", "mir"):
        r = res[name]
        assert not r.computed and r.value is None
        assert "at least 10 records per class" in r.reason_not_computed and "real class has 8" in \
            r.reason_not_computed


def test_no_refit_and_no_search_on_re_reduction(monkeypatch):
    calls = {"dmlp": 0, "mir": 0}
    real_auc, real_mir = rc.detection_auc, rc.mir_predictions

    def count_auc(*a, **k):
        calls["dmlp"] += 1
        return real_auc(*a, **k)

    def count_mir(*a, **k):
        calls["mir"] += 1
        return real_mir(*a, **k)

    monkeypatch.setattr(rc, "detection_auc", count_auc)
    monkeypatch.setattr(rc, "mir_predictions", count_mir)
    ev = _ev(_frame(80, 0.0, 1), _frame(80, 0.5, 2))
    first = ev.results(metrics=["detection_mlp", "mir"])
    over = ev.results(metrics=["detection_mlp", "mir"], alpha=0.3,
                      levels={"detection_mlp": {"medium": 0.0, "high": 1.0}, "mir": {"medium": None, "high": 0.0}})
    assert calls == {"dmlp": 1, "mir": 1}
    assert ev.search_count == 0
    assert over["detection_mlp"].value == first["detection_mlp"].value
    assert over["detection_mlp"].level == "medium" and over["detection_mlp"].level_rule.source == "user"
    assert over["mir"].level == "high"


def test_levels_without_holdout_use_recall_rule():
    r = _ev(_frame(60, 0.0, 1), _frame(60, 10.0, 2)).results(metrics=["mir"])["mir"]
    assert "membership_advantage" not in r.details
    assert r.level_rule.high == rc.LEVELS["mir_recall"]["high"]


# ----------------------------------------------------------------------------------------------------------------
# the compiled run against scikit-learn's


def test_fold_aucs_do_not_depend_on_threads():
    T, S = _frame(150, 0.0, 1), _frame(150, 0.4, 2)
    X = np.r_[T[["x", "y"]].to_numpy(), S[["x", "y"]].to_numpy()]
    y = np.r_[np.ones(150, dtype=np.int64), np.zeros(150, dtype=np.int64)]
    one = rc.detection_auc(X, y, random_state=4, n_threads=1)
    two = rc.detection_auc(X, y, random_state=4, n_threads=2)
    np.testing.assert_array_equal(one, two)
    with pytest.raises(ValueError, match="n_threads"):
        rc.detection_auc(X, y, random_state=4, n_threads=0)


def test_compiled_auc_matches_scikit_learn_within_fold_spread():
    # partly separable classes: the AUC sits between 0.5 and 1, where a different definition would show
    T, S = _frame(200, 0.0, 1), _frame(200, 0.3, 2)
    X = np.r_[T[["x", "y"]].to_numpy(), S[["x", "y"]].to_numpy()]
    y = np.r_[np.ones(200, dtype=np.int64), np.zeros(200, dtype=np.int64)]
    fast = rc.detection_auc(X, y, random_state=0)
    ref = rc.sklearn_detection_auc(X, y, random_state=0)
    spread = max(fast.max() - fast.min(), ref.max() - ref.min())
    assert abs(fast.mean() - ref.mean()) <= spread
    # fold by fold: same folds, same draws; float32 moves a fold's AUC by far less than the folds differ
    assert np.abs(fast - ref).max() <= spread
