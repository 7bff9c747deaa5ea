"""The shadow-model membership attack (synthpriv_report.evaluation.shadow): generators whose memorisation is known by
construction (copies, ignores its data, sequential trees with leaves of one), the distance by hand, the threshold
rule, reproducibility, the guard against too many trainings and the JSON form."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from _support.generators import CopyTraining, Ignores

from synthpriv_report.evaluation.generators import SequentialCART, as_generator
from synthpriv_report.evaluation.shadow import (
    ShadowOutcome,
    gower_distances,
    shadow_attack,
    shadow_threshold,
)
from synthpriv_report.stats import clopper_pearson, epsilon_lower_bound


def _frame(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.integers(20, 60, size=n), "job": rng.choice(list("abcd"), size=n),
                         "hours": rng.integers(10, 50, size=n).astype(float)})


BASE = _frame(16, 1)
TARGETS = pd.DataFrame({"age": [95, 18, 70], "job": ["z", "a", "y"], "hours": [99.0, 5.0, 0.0]})


def _eps(tp: int, fn: int, fp: int, tn: int, confidence: float = 0.95) -> float:
    end = 1 - (1 - confidence) / 2
    lo = clopper_pearson(tp, tp + fn, confidence=end, sided="one")[0]
    hi = clopper_pearson(fp, fp + tn, confidence=end, sided="one")[1]
    return epsilon_lower_bound(lo, hi)


def test_a_generator_that_copies_its_training_records_is_caught_every_time() -> None:
    out = shadow_attack(CopyTraining(), BASE, TARGETS, trainings=8, n_synthetic=len(BASE) + 1, random_state=3)
    # the target's distance is 0 exactly in the runs that held it, and above 0 in the others
    assert (out.distances[out.included] == 0.0).all()
    assert (out.distances[~out.included] > 0.0).all()
    assert out.thresholds == (0.0, 0.0, 0.0)
    # 3 targets x 4 evaluation runs, 2 with the target and 2 without in each
    assert out.counts == (6, 0, 0, 6)
    assert out.target_counts == ((2, 0, 0, 2),) * 3
    assert (out.tpr, out.fpr, out.advantage) == (1.0, 0.0, 1.0)
    assert out.tpr_interval == clopper_pearson(6, 6) and out.fpr_interval == clopper_pearson(0, 6)
    # the bound at the one-sided Clopper-Pearson ends, 97.5% each: 0.025 ** (1/6) and 1 minus that
    assert out.epsilon == pytest.approx(_eps(6, 0, 0, 6), rel=1e-12)
    lo = 0.025 ** (1 / 6)
    assert out.epsilon == pytest.approx(math.log(lo / (1 - lo)), rel=1e-9)
    # per target at 95% each; the family-wise bound pays for three targets (each end at 1 - 0.05 / 6)
    assert out.target_epsilon == pytest.approx([_eps(2, 0, 0, 2)] * 3)
    assert out.epsilon_familywise == pytest.approx(_eps(2, 0, 0, 2, confidence=1 - 0.05 / 3))
    assert out.epsilon_familywise <= max(out.target_epsilon)
    assert (out.total_trainings, out.n_shadow, out.n_evaluation, out.evaluation_runs) == (24, 4, 4, (6, 6))


def test_a_generator_that_ignores_its_training_data_shows_no_membership() -> None:
    pool = _frame(30, 7)
    out = shadow_attack(Ignores(pool), BASE, TARGETS, trainings=20, random_state=0)
    n_in, n_out = out.evaluation_runs
    tp, fn, fp, tn = out.counts
    assert (tp + fn, fp + tn) == (n_in, n_out) == (15, 15)
    for i, (a, b, c, d) in enumerate(out.target_counts):
        assert a + b == int(out.included[i, out.n_shadow:].sum()) == 5
        assert c + d == int((~out.included[i, out.n_shadow:]).sum()) == 5
    assert out.epsilon < 1.0 and out.epsilon_familywise < 1.0
    assert out.epsilon == pytest.approx(_eps(tp, fn, fp, tn))
    # the release never depends on the training data: the distances of the runs with and without the target come
    # from one law (here, runs with equal seeds would give equal distances)
    assert out.seeded and out.distances.min() > 0


def test_gower_distance_by_hand_on_four_records() -> None:
    base = pd.DataFrame({"x": [0.0, 10.0], "c": ["a", "b"]})
    records = pd.DataFrame({"x": [2.0, 7.0, np.nan, 30.0], "c": ["a", "a", "a", None]})
    target = pd.Series({"x": 2.0, "c": "a"})
    # x: 0, 5/10, missing against 2 (1), 28/10 capped at 1; c: equal, equal, equal, missing against "a" (1)
    assert gower_distances(target, records, base=base).tolist() == [0.0, 0.25, 0.5, 1.0]
    # a missing target value is 0 against a missing value and 1 against any other
    missing = pd.DataFrame({"x": [np.nan], "c": [None]})
    assert gower_distances(missing, records, base=base).tolist() == [1.0, 1.0, 0.5, 0.5]
    # a numeric column with a single value in base: 0 when equal, 1 otherwise
    flat = pd.DataFrame({"x": [3.0, 3.0], "c": ["a", "a"]})
    assert gower_distances(pd.Series({"x": 3.0, "c": "b"}), records, base=flat).tolist() == [1.0, 1.0, 1.0, 1.0]


def test_the_count_statistic_counts_records_within_the_radius() -> None:
    base = BASE
    out = shadow_attack(CopyTraining(), base, TARGETS.iloc[:1], trainings=4, n_synthetic=2 * (len(base) + 1),
                        statistic="count", radius=0.0, random_state=1)
    # a copy generator cycling twice holds the target twice in the runs with it, never in the others
    assert out.counts_within[out.included].tolist() == [2, 2]
    assert out.counts_within[~out.included].tolist() == [0, 0]
    assert out.thresholds == (2.0,) and out.counts == (1, 0, 0, 1)


def test_the_threshold_maximises_the_advantage_with_ties_to_fewer_in_guesses() -> None:
    # 0 separates 2 of 3 runs with the target and no run without it; 0.3 all three and one of three without:
    # both give 2/3, and the smaller threshold wins
    assert shadow_threshold([0.0, 0.0, 0.3], [0.2, 0.4, 0.5]) == 0.0
    assert shadow_threshold([0.5, 0.5], [0.5]) == -math.inf
    assert shadow_threshold([0.4], [0.1]) == -math.inf  # a reversed statistic is not turned round
    assert shadow_threshold([3.0, -2.0], [0.0, 0.0], exact=True) == -2.0


def test_sequential_cart_with_leaves_of_one_is_found() -> None:
    base = _frame(24, 2)
    out = shadow_attack(SequentialCART(min_samples_leaf=1), base, TARGETS.iloc[:2], trainings=16,
                        n_synthetic=4 * len(base), random_state=0)
    # a record whose first value is unique is copied whole whenever that value is drawn: 1 - (24/25)^96 = 98%
    assert out.tpr >= 0.8 and out.fpr == 0.0
    assert out.epsilon == pytest.approx(_eps(*out.counts)) and out.epsilon > 0.3
    assert out.seeded


def test_same_random_state_same_outcome_and_frames_untouched() -> None:
    base, targets = BASE.copy(), TARGETS.iloc[:2].copy()
    recipe = SequentialCART(min_samples_leaf=2)
    a = shadow_attack(recipe, base, targets, trainings=6, random_state=11)
    b = shadow_attack(as_generator(recipe, random_state=99), base, targets, trainings=6, random_state=11)
    c = shadow_attack(recipe, base, targets, trainings=6, random_state=12)
    pd.testing.assert_frame_equal(base, BASE)
    pd.testing.assert_frame_equal(targets, TARGETS.iloc[:2])
    da, db = a.to_dict(), b.to_dict()
    da.pop("seconds"), db.pop("seconds")
    assert da == db
    assert not np.array_equal(a.seeds, c.seeds) and not np.array_equal(a.included, c.included)
    # columns in another order are the same targets
    d = shadow_attack(recipe, base, targets[["hours", "job", "age"]], trainings=6, random_state=11)
    assert np.array_equal(d.distances, a.distances)


def test_too_many_trainings_are_refused_naming_the_product() -> None:
    with pytest.raises(ValueError, match=r"3 targets x 200 trainings = 600 .*max_trainings=400.*fewer targets"):
        shadow_attack(CopyTraining(), BASE, TARGETS, trainings=200)
    with pytest.raises(ValueError, match="fewer targets or fewer trainings"):
        shadow_attack(CopyTraining(), BASE, TARGETS, trainings=4, max_trainings=11)


def test_bad_inputs_are_refused() -> None:
    with pytest.raises(ValueError, match="target 1 .* also a record of base"):
        shadow_attack(CopyTraining(), BASE, pd.concat([TARGETS.iloc[:1], BASE.iloc[[3]]]), trainings=4)
    with pytest.raises(ValueError, match="trainings"):
        shadow_attack(CopyTraining(), BASE, TARGETS, trainings=3)
    with pytest.raises(ValueError, match="missing \\['hours'\\]"):
        shadow_attack(CopyTraining(), BASE, TARGETS[["age", "job"]], trainings=4)
    with pytest.raises(ValueError, match="statistic"):
        shadow_attack(CopyTraining(), BASE, TARGETS, trainings=4, statistic="auc")  # type: ignore[arg-type]


def test_to_dict_is_json_and_holds_no_record_value() -> None:
    out = shadow_attack(CopyTraining(), BASE, TARGETS, trainings=4, n_synthetic=len(BASE) + 1, random_state=0)
    assert isinstance(out, ShadowOutcome)
    doc = out.to_dict()
    text = json.dumps(doc, allow_nan=False)
    assert [t["position"] for t in doc["targets"]] == [0, 1, 2]
    assert doc["trainings"]["total"] == 12 and doc["trainings"]["evaluation_runs_with_target"] == 3
    strings, numbers = [], []

    def leaves(x: object) -> None:
        if isinstance(x, dict):
            strings.extend(x)
            for v in x.values():
                leaves(v)
        elif isinstance(x, list):
            for v in x:
                leaves(v)
        elif isinstance(x, str):
            strings.append(x)
        elif isinstance(x, (int, float)) and not isinstance(x, bool):
            numbers.append(x)

    leaves(json.loads(text))
    assert not {"z", "y", "age", "job", "hours"} & set(strings)
    assert not {95, 99, 70} & set(numbers)
    assert "trainings each" in out.summary()
