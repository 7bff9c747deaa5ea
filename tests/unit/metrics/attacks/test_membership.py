"""membership_inference: AUC and TPR at 1% FPR of the distance-to-synthetic attack, derived by hand on tiny sets."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthpriv_report import Evaluation
from synthpriv_report.metrics.attacks.membership import membership_auc


def test_auc_and_tpr_by_hand_with_a_tie() -> None:
    # members 0, 0, 1, 3; non-members 1, 2, 4, 5. Pairs (m, n) with m < n: 0 beats all 4 (twice: 8), 1 beats
    # 2, 4, 5 (3) and ties 1 (1/2), 3 beats 4 and 5 (2): 13.5 of 16 pairs
    r = membership_auc([0.0, 0.0, 1.0, 3.0], [1.0, 2.0, 4.0, 5.0])
    assert r.auc == pytest.approx(13.5 / 16)
    assert r.tied_pairs_share == pytest.approx(1 / 16)
    # 4 non-members: floor(0.04) = 0 may be flagged; members strictly below the closest non-member (1): 0 and 0
    assert (r.flagged_members, r.flagged_nonmembers, r.tpr, r.fpr) == (2, 0, 0.5, 0.0)


def test_a_member_tied_with_the_threshold_record_is_not_flagged() -> None:
    # the member at 1.0 ties the closest non-member: flagging it would flag that non-member (FPR 1/3 > 1%)
    r = membership_auc([1.0, 2.0], [1.0, 3.0, 4.0])
    assert r.flagged_members == 0 and r.tpr == 0.0
    # pairs: 1 vs 1 tie (1/2), 1 beats 3, 4 (2), 2 beats 3, 4 (2): 4.5 of 6
    assert r.auc == pytest.approx(4.5 / 6)


def test_equal_within_the_tie_tolerance_is_a_tie() -> None:
    r = membership_auc([1.0], [1.0 + 1e-13])
    assert r.auc == 0.5 and r.tied_pairs_share == 1.0


def test_one_percent_of_two_hundred_non_members() -> None:
    # 200 non-members at 1..200: floor(0.01 * 200) = 2 may be flagged, so the threshold is strictly below the
    # third smallest (3): members at 0.5, 2.5 are flagged, 3.0 and 10 are not
    non = np.arange(1, 201, dtype=float)
    r = membership_auc([0.5, 2.5, 3.0, 10.0], non)
    assert (r.flagged_members, r.flagged_nonmembers) == (2, 2)
    assert r.tpr == 0.5 and r.fpr == 0.01
    # AUC: 0.5 beats 200, 2.5 beats 198, 3.0 beats 197 and ties 1, 10 beats 190 and ties 1 -> (785 + 1) / 800
    assert r.auc == pytest.approx((200 + 198 + 197.5 + 190.5) / 800)


def test_perfect_separation_and_its_reverse() -> None:
    hi = membership_auc([0.0, 0.0, 0.1], [0.5, 0.6, 0.7])
    lo = membership_auc([0.5, 0.6, 0.7], [0.0, 0.0, 0.1])
    assert hi.auc == 1.0 and lo.auc == 0.0
    assert hi.tpr == 1.0 and lo.tpr == 0.0
    assert 0.0 <= hi.interval[0] <= hi.auc <= hi.interval[1] <= 1.0


def test_row_order_does_not_matter() -> None:
    rng = np.random.default_rng(3)
    dm, dn = rng.integers(0, 6, 9).astype(float), rng.integers(0, 6, 7).astype(float)
    a = membership_auc(dm, dn)
    b = membership_auc(rng.permutation(dm), rng.permutation(dn))
    assert a == b


def test_range_on_random_draws() -> None:
    rng = np.random.default_rng(0)
    for _ in range(50):
        r = membership_auc(rng.random(rng.integers(1, 10)), rng.random(rng.integers(1, 10)))
        assert 0.0 <= r.interval[0] <= r.auc <= r.interval[1] <= 1.0
        assert 0.0 <= r.tpr <= 1.0 and 0.0 <= r.fpr <= 0.01


def test_empty_or_non_finite_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one"):
        membership_auc([], [1.0])
    with pytest.raises(ValueError, match="finite"):
        membership_auc([np.nan], [1.0])


@pytest.mark.slow  # about half a second
def test_an_exact_copy_is_found_and_an_independent_set_is_not() -> None:
    rng = np.random.default_rng(1)
    T = pd.DataFrame({"x": rng.normal(size=300), "c": rng.choice(list("abc"), 300)})
    H = pd.DataFrame({"x": rng.normal(size=300), "c": rng.choice(list("abc"), 300)})
    fresh = pd.DataFrame({"x": rng.normal(size=300), "c": rng.choice(list("abc"), 300)})
    copy = Evaluation(T, T.copy(), H, progress=False, calibrate=False, metrics=["membership_inference"])
    r = copy.results()["membership_inference"]
    assert r.value > 0.95 and r.level == "high" and r.details["tpr_at_1pct_fpr"] == 1.0
    ind = Evaluation(T, fresh, H, progress=False, calibrate=False, metrics=["membership_inference"])
    r = ind.results()["membership_inference"]
    # no risk shown; with 300 records on each side the AUC's upper end (0.59) is beyond the 0.55 that would rule
    # the risk out, so the attack is inconclusive, and says which AUC it could not rule out
    assert r.interval[0] <= 0.55 < r.interval[1] and r.level == "inconclusive"
    assert r.level_rule.risky_end == pytest.approx(r.interval[1])
