"""Issue 55, a level from nothing: the checks that compare two groups of records account for both groups' sizes,
and one whose smaller group has fewer than 10 records is not assessed, with both sizes in the reason.

Before: with a holdout of one record, ``membership_inference``'s DeLong interval held the members' term alone
(the non-members' cannot be estimated from one record, and was taken as 0), about ±0.05 wide, so fresh real
records in the synthetic role were graded medium or high; ``dcr_test`` and ``nndr_test`` resampled the one
holdout record to itself, and their intervals rested on the synthetic records alone.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _support.evaluation import evaluation

from synthpriv_report.metrics.attacks.membership import membership_auc

CHECKS = ["membership_inference", "holdout_dcr_share", "dcr_test", "nndr_test"]


def _fresh(n_real: int, n_holdout: int, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Training, "synthetic" and holdout records as three independent draws of one population: a generator that
    learned nothing of any individual."""
    rng = np.random.default_rng(seed)

    def draw(n: int) -> pd.DataFrame:
        return pd.DataFrame({"age": rng.integers(18, 90, n).astype(float), "income": rng.lognormal(10, 1, n),
                             "region": rng.choice(["north", "south", "east", "west"], n)})

    return draw(n_real), draw(n_real), draw(n_holdout)


def test_the_auc_interval_with_one_non_member_is_all_of_zero_to_one():
    # members at 0..9 and one non-member at 4.5: 5 of the 10 members are closer, AUC = 0.5. DeLong's variance has
    # a term from each group's spread; one non-member has no spread to estimate, so nothing bounds the AUC
    r = membership_auc(np.arange(10.0), [4.5])
    assert r.auc == 0.5
    assert r.interval == (0.0, 1.0)
    # with two non-members both terms are estimated: the interval is narrower than [0, 1]
    two = membership_auc(np.arange(10.0), [4.5, 4.5])
    assert 0.0 < two.interval[0] < 0.5 < two.interval[1] < 1.0


def test_a_holdout_of_one_record_is_not_assessed_by_any_check_that_compares_it():
    T, S, H = _fresh(400, 1)
    res = evaluation(T, S, H, metrics=CHECKS, random_state=0).results()
    for name in CHECKS:
        r = res[name]
        assert not r.computed and r.level is None, name
        assert "too few records to assess" in r.reason_not_computed, name
        assert "1 holdout record" in r.reason_not_computed and "at least 10" in r.reason_not_computed, name
    assert "400 training records" in res["membership_inference"].reason_not_computed
    assert "400 synthetic records" in res["dcr_test"].reason_not_computed
    # none of them drives the verdict: each is listed among the checks that did not run, with its reason
    not_run = dict(res.verdict.not_run)
    for name in ("holdout_dcr_share", "dcr_test", "nndr_test"):
        assert "too few records to assess" in not_run[name]


@pytest.mark.parametrize("n_holdout", [9, 10])
def test_ten_records_a_group_is_the_smallest_assessed(n_holdout):
    T, S, H = _fresh(400, n_holdout, seed=1)
    res = evaluation(T, S, H, metrics=CHECKS, random_state=0).results()
    for name in CHECKS:
        assert res[name].computed is (n_holdout >= 10), name


def test_a_synthetic_set_of_fewer_than_ten_records_is_not_assessed_by_the_holdout_tests():
    T, S, H = _fresh(400, 50, seed=2)
    res = evaluation(T, S.iloc[:5], H, metrics=["dcr_test", "nndr_test"], random_state=0).results()
    for name in ("dcr_test", "nndr_test"):
        assert not res[name].computed
        assert "50 holdout records with 5 synthetic records" in res[name].reason_not_computed
