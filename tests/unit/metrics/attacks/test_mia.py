"""The reference-calibrated membership attacks (docs/metrics.md, sections mia_distance_ratio, mia_density_ratio,
mia_local_lr, mia_worst_case): ROC points, rates at fixed false-positive rates with ties, exact intervals, the test
against chance and the ε bound, derived by hand on tiny sets or from their definitions independently of the code."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from _support.attacks import distance_ratio_flagged_above_every_nonmember
from scipy.stats import binom

from synthpriv_report import Evaluation, stats
from synthpriv_report.metrics.attacks.mia_common import MIN_RECORDS, attack_roc, split_positions
from synthpriv_report.metrics.attacks.mia_density_ratio import density_ratio_scores
from synthpriv_report.metrics.attacks.mia_local_lr import bandwidth, local_lr_scores, log_kernel_sums

ATTACKS = ["mia_distance_ratio", "mia_density_ratio", "mia_local_lr", "mia_worst_case"]


# ---------------------------------------------------------------------------------------------------------------
# the ROC and its rates


def test_roc_by_hand_with_ties_at_the_threshold() -> None:
    # members 10, 9, 5, 5; 100 non-members: 98 at 0, one at 5, one at 7
    non = np.array([0.0] * 98 + [5.0, 7.0])
    r = attack_roc([10.0, 9.0, 5.0, 5.0], non)
    # AUC: 10 and 9 beat all 100; each 5 beats the 98 zeros, ties the 5 and loses to the 7: (200 + 2 * 98.5) / 400
    assert r.auc == pytest.approx(397 / 400)
    assert r.tied_pairs_share == pytest.approx(2 / 400)
    # 1%: floor(1.0) = 1 non-member may be flagged; the threshold lies strictly above the tie group of the second
    # highest non-member (5): members 10 and 9 and the non-member at 7 are flagged; the two members at 5 are tied
    one = r.at(0.01)
    assert (one.allowed, one.flagged_members, one.flagged_nonmembers, one.tied_members) == (1, 2, 1, 2)
    assert (one.tpr, one.fpr, one.reportable) == (0.5, 0.01, True)
    # 0.1%: none may be flagged (floor(0.1) = 0) and the rate cannot be read from 100 non-members
    tenth = r.at(0.001)
    assert (tenth.allowed, tenth.flagged_members, tenth.flagged_nonmembers, tenth.reportable) == (0, 2, 0, False)
    # 10%: the 11th highest non-member is a 0, so everything above 0 is flagged: 4 members, 2 non-members
    ten = r.at(0.1)
    assert (ten.allowed, ten.flagged_members, ten.flagged_nonmembers) == (10, 4, 2)
    # advantage: flagging 10, 9, 7, 5, 5, 5 gives 4/4 - 2/100
    assert r.advantage == pytest.approx(0.98)


def test_roc_curve_runs_from_origin_to_one() -> None:
    r = attack_roc([3.0, 2.0, 1.0], [2.5, 0.5, 0.0])
    assert (r.curve_fpr[0], r.curve_tpr[0], r.curve_fpr[-1], r.curve_tpr[-1]) == (0.0, 0.0, 1.0, 1.0)
    assert all(a <= b for a, b in zip(r.curve_fpr, r.curve_fpr[1:]))
    assert all(a <= b for a, b in zip(r.curve_tpr, r.curve_tpr[1:]))


def test_scores_equal_within_tolerance_are_tied() -> None:
    r = attack_roc([1.0], [1.0 + 1e-13])
    assert r.auc == 0.5 and r.tied_pairs_share == 1.0
    assert r.at(0.01).flagged_members == 0 and r.at(0.01).tied_members == 1


def test_row_order_does_not_matter() -> None:
    rng = np.random.default_rng(5)
    m, n = rng.integers(0, 6, 40).astype(float), rng.integers(0, 6, 30).astype(float)
    assert attack_roc(m, n) == attack_roc(rng.permutation(m), rng.permutation(n))


def test_perfect_separation() -> None:
    r = attack_roc(np.arange(100, 200, dtype=float), np.arange(100, dtype=float))
    assert r.auc == 1.0 and r.advantage == 1.0
    assert r.at(0.01).tpr == 1.0 and r.at(0.01).flagged_nonmembers == 1
    assert r.excess_lower_bound > 0.9 and r.epsilon_lower_bound > 1.0


def test_bad_scores_are_refused() -> None:
    with pytest.raises(ValueError, match="finite"):
        attack_roc([np.nan], [1.0])
    with pytest.raises(ValueError, match="at least one"):
        attack_roc([], [1.0])


# ---------------------------------------------------------------------------------------------------------------
# exact intervals, the test against chance, ε


@pytest.mark.parametrize("k, n", [(0, 10), (3, 10), (10, 10), (1, 1000), (57, 600)])
def test_clopper_pearson_ends_solve_the_binomial_tails(k: int, n: int) -> None:
    lo, hi = stats.clopper_pearson(k, n, confidence=0.95)
    # the lower end: P(X >= k | lo) = 2.5%; the upper end: P(X <= k | hi) = 2.5% (0 and 1 at the extremes)
    if k == 0:
        assert lo == 0.0
    else:
        assert binom.sf(k - 1, n, lo) == pytest.approx(0.025, rel=1e-6)
    if k == n:
        assert hi == 1.0
    else:
        assert binom.cdf(k, n, hi) == pytest.approx(0.025, rel=1e-6)


def test_clopper_pearson_one_sided() -> None:
    # no success in 100 trials: the one-sided 95% upper bound solves (1 - p)^100 = 0.05
    assert stats.clopper_pearson(0, 100, sided="one")[1] == pytest.approx(1 - 0.05 ** (1 / 100))


@pytest.mark.parametrize("m", [1, 2, 3, 4, 5])
def test_exceedance_p_value_when_no_non_member_may_be_flagged(m: int) -> None:
    # M >= m: the m highest of the 19 pooled scores are all members
    assert stats.exceedance_p_value(m, 10, 9, 0) == pytest.approx(math.comb(10, m) / math.comb(19, m))


def test_exceedance_law_by_simulation() -> None:
    # exchangeable scores: 12 members, 30 non-members, 2 non-members may be flagged
    rng = np.random.default_rng(0)
    draws = 20000
    counts = np.empty(draws, dtype=int)
    for i in range(draws):
        m, n = rng.random(12), rng.random(30)
        threshold = np.sort(n)[::-1][2]  # the third highest non-member
        counts[i] = int((m > threshold).sum())
    for flagged in (1, 3, 5):
        p = stats.exceedance_p_value(flagged, 12, 30, 2)
        assert abs(np.mean(counts >= flagged) - p) < 4 * math.sqrt(p * (1 - p) / draws) + 1e-3
    q = stats.exceedance_quantile(12, 30, 2, 0.01)
    assert np.mean(counts > q) <= 0.01 + 4 * math.sqrt(0.01 / draws)
    assert np.mean(counts > q - 1) > 0.01


def test_epsilon_lower_bound_by_hand() -> None:
    assert stats.epsilon_lower_bound(0.5, 0.05) == pytest.approx(math.log(10))
    # the second inequality decides: (1 - 0.5) / (1 - 0.9) = 5 beats 0.9 / 0.5 = 1.8
    assert stats.epsilon_lower_bound(0.9, 0.5) == pytest.approx(math.log(5))
    assert stats.epsilon_lower_bound(0.2, 0.2) == 0.0
    # delta: (0.5 - 0.1) / 0.05 = 8
    assert stats.epsilon_lower_bound(0.5, 0.05, delta=0.1) == pytest.approx(math.log(8))


def test_epsilon_of_an_attack_uses_the_conservative_ends() -> None:
    r = attack_roc(np.arange(100, 200, dtype=float), np.arange(100, dtype=float))
    one = r.at(0.01)  # 100 of 100 members, 1 of 100 non-members
    a = 0.05 / 6  # 95% over three rates and two ends
    tpr_lo = stats.clopper_pearson(100, 100, confidence=1 - a, sided="one")[0]
    fpr_hi = stats.clopper_pearson(1, 100, confidence=1 - a, sided="one")[1]
    assert one.epsilon_lower_bound == pytest.approx(max(math.log(tpr_lo / fpr_hi),
                                                        math.log((1 - fpr_hi) / (1 - tpr_lo))))


# ---------------------------------------------------------------------------------------------------------------
# the attacks' scores


def test_density_ratio_scores_average_the_orders() -> None:
    # orders 1 and 2: log(0.2 / 0.1) and log(0.4 / 0.1), averaged
    got = density_ratio_scores(np.array([[0.1, 0.1]]), np.array([[0.2, 0.4]]))
    assert got[0] == pytest.approx((math.log(2) + math.log(4)) / 2)


def test_local_likelihood_ratio_by_hand() -> None:
    # synthetic record 0 has two reference records at distance 0 (kernel sum 2), record 1 one at distance 1
    # (kernel sum exp(-1/2)); the target lies at 0 from record 0 and at 1 from record 1, h = 1:
    # log(1 + 1 / 2) + log(1 + exp(-1/2) / exp(-1/2)) = log(1.5) + log(2) = log(3)
    sums = log_kernel_sums(np.array([[0.0, 0.0], [1.0, np.inf]]), 1.0)
    got = local_lr_scores(np.array([[0.0, 1.0]]), np.array([[0, 1]]), sums, 1.0)
    assert got[0] == pytest.approx(math.log(3))
    # a missing neighbour adds nothing
    assert local_lr_scores(np.array([[np.inf]]), np.array([[-1]]), sums, 1.0)[0] == 0.0
    assert bandwidth(np.array([0.0, 0.3, 0.1, 0.2])) == 0.2


# ---------------------------------------------------------------------------------------------------------------
# the split and the evaluation


def test_split_is_seeded_disjoint_and_complete() -> None:
    t, r = split_positions(21, 7)
    assert len(t) == 11 and len(r) == 10
    assert sorted(np.concatenate([t, r]).tolist()) == list(range(21))
    t2, r2 = split_positions(21, 7)
    assert t.tolist() == t2.tolist() and r.tolist() == r2.tolist()
    assert split_positions(21, 8)[0].tolist() != t.tolist()


def _frames(seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    T = pd.DataFrame({"x": rng.normal(size=12).round(3)})
    H = pd.DataFrame({"x": rng.normal(size=24).round(3)})
    S = pd.concat([T.iloc[:6] + 0.001, pd.DataFrame({"x": rng.normal(size=6).round(3)})], ignore_index=True)
    return T, H, S


def test_distance_ratio_flags_by_hand_on_one_column() -> None:
    T, H, S = _frames()
    ev = Evaluation(T, S, holdout=H, row_order="as_given", progress=False, calibrate=False, random_state=3)
    r = ev.results(metrics=["mia_distance_ratio"])["mia_distance_ratio"]
    targets, reference = split_positions(len(H), 3)
    t, h, s, ref = T.x.to_numpy(), H.x.to_numpy()[targets], S.x.to_numpy(), H.x.to_numpy()[reference]
    # 12 non-members: no rate below 1/12 lets one be flagged, so a member is flagged above every non-member
    expected = distance_ratio_flagged_above_every_nonmember(t, s, h, ref)
    one = r.details["tpr_at"]["0.01"]
    assert (r.details["n_members"], r.details["n_nonmembers"], r.details["n_reference"]) == (12, 12, 12)
    assert one["flagged_members"] == expected and one["flagged_nonmembers"] == 0
    assert r.value == expected / 12


def test_holdout_too_small_is_not_computed() -> None:
    T, H, S = _frames()
    ev = Evaluation(T, S, holdout=H.head(2 * MIN_RECORDS - 1), progress=False, calibrate=False)
    res = ev.results(metrics=ATTACKS)
    for name in ATTACKS:
        assert not res[name].computed and "holdout of at least" in res[name].reason_not_computed


def test_no_holdout_is_not_computed() -> None:
    T, _, S = _frames()
    res = Evaluation(T, S, progress=False, calibrate=False).results(metrics=ATTACKS)
    assert all(not res[n].computed and "needs a holdout" in res[n].reason_not_computed for n in ATTACKS)


@pytest.mark.slow  # about a second
def test_the_battery_shares_the_searches() -> None:
    T, H, S = _frames()
    ev = Evaluation(T, S, holdout=H, progress=False, calibrate=False)
    ev.results(metrics=["membership_inference", *ATTACKS])
    refs = sorted((s.query, s.ref) for s in ev.searches)
    # members and the holdout against the synthetic data (shared with membership_inference), three searches
    # against the reference, and the training records against themselves (the worst case's atypicality)
    assert refs == sorted([("T", "S"), ("H", "S"), ("T", "H[mia.reference]"),
                           ("H[mia.targets]", "H[mia.reference]"), ("S", "H[mia.reference]"), ("T", "T")])
    before = ev.search_count
    ev.results(metrics=ATTACKS, alpha=0.2)
    assert ev.search_count == before
    # the distance metrics, in the same space, read the same training-to-training search: nothing more is searched
    # for the atypicality than they search anyway
    both = Evaluation(T, S, holdout=H, progress=False, calibrate=False)
    both.results(metrics=["dcr", *ATTACKS])
    assert sorted((s.query, s.ref) for s in both.searches).count(("T", "T")) == 1
    alone = Evaluation(T, S, holdout=H, progress=False, calibrate=False)
    alone.results(metrics=["dcr"])
    assert both.search_count == len(refs) + len({(s.query, s.ref) for s in alone.searches} - set(refs))


def test_worst_case_is_the_strongest_attack_with_a_wider_interval() -> None:
    T, H, S = _frames()
    res = Evaluation(T, S, holdout=H, progress=False, calibrate=False).results(metrics=ATTACKS)
    w = res["mia_worst_case"]
    strongest = max(w.details["attacks"].values(), key=lambda a: a["excess_lower_bound"])
    assert w.value == strongest["tpr_at_1pct_fpr"]
    assert w.details["excess_lower_bound"] == strongest["excess_lower_bound"]
    assert w.details["n_attacks"] == 4 and set(w.details["attacks"]) >= {"distance ratio", "local likelihood ratio"}
    best = res["mia_distance_ratio"] if w.details["worst_attack"] == "distance ratio" else None
    if best is not None:
        assert w.interval[0] <= best.interval[0] and w.interval[1] >= best.interval[1]


def test_a_low_attack_says_how_large_a_leak_it_could_have_shown() -> None:
    from synthpriv_report.metrics.attacks.mia_common import attack_graded

    # no flagged-member excess at either rate; the fewest members that must stand out is the smaller of what
    # chance allows (18 at 0.1%, 39 at 1%): 18 of 1,000 = 1.8%
    note = attack_graded({"details": {"n_members": 1000, "tpr_at": {
        "0.001": {"flagged_members": 3, "chance_allows": 18}, "0.01": {"flagged_members": 20, "chance_allows": 39}}}})
    assert "more than 18 of the 1,000 training members (1.8%)" in note and "can go unseen" in note
    # with 1,000 members and 500 non-members, none of whom may be flagged (0.1% of 500 is 0), chance can put M
    # members above every non-member with P(M >= q) = C(1000, q) / C(1500, q); the worst case tests at
    # 5% / 7 checks / 4 attacks / 3 rates, so chance allows the smallest q with P(M > q) <= that level
    a = 0.05 / 7 / 4 / 3
    q = next(q for q in range(100) if math.comb(1000, q + 1) / math.comb(1500, q + 1) <= a)
    assert stats.exceedance_quantile(1000, 500, 0, a) == q == 18
    # an attack that shows a leak does not add the sentence
    shown = attack_graded({"details": {"n_members": 1000, "tpr_at": {"0.001": {"flagged_members": 30,
                                                                                 "chance_allows": 18}}}})
    assert "can go unseen" not in shown and "flags 30 training members where chance allows at most 18" in shown


@pytest.mark.parametrize("q, a, b", [(0.025, 5, 6), (0.0005, 3, 998), (0.9995, 998, 3), (0.001, 400, 600)])
def test_beta_quantile_by_bisection_agrees_with_scipy(q: float, a: float, b: float) -> None:
    # the fallback used where SciPy's root finder gives up: the smallest x with I_x(a, b) >= q
    from scipy.special import betainc
    from scipy.stats import beta

    from synthpriv_report.stats.intervals import _beta_bisection, beta_quantile

    x = _beta_bisection(q, a, b)
    assert betainc(a, b, x) >= q and betainc(a, b, np.nextafter(x, 0.0)) <= q
    assert x == pytest.approx(beta.ppf(q, a, b), rel=1e-9) and beta_quantile(q, a, b) == beta.ppf(q, a, b)


@pytest.mark.parametrize("n_m, n_n, allowed",
                         [(10, 9, 0), (1000, 500, 0), (1000, 500, 4), (37, 4000, 39), (5000, 1, 0)])
def test_exceedance_tail_is_scipys_betabinom_bit_for_bit(n_m: int, n_n: int, allowed: int) -> None:
    # the tail is summed without SciPy's distribution object; every p-value and quantile must be SciPy's own
    from scipy.stats import betabinom

    law = betabinom(n_m, allowed + 1, n_n - allowed)
    for flagged in range(0, min(n_m, 60) + 2):
        assert stats.exceedance_p_value(flagged, n_m, n_n, allowed) == (1.0 if flagged <= 0 else law.sf(flagged - 1))
    for a in (0.5, 0.05, 0.05 / 7, 1e-4):
        q = stats.exceedance_quantile(n_m, n_n, allowed, a)
        assert law.sf(q) <= a and (q == 0 or law.sf(q - 1) > a)
