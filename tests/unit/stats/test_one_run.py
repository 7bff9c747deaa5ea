"""Tests of synthpriv_report.stats.one_run: the one-run audit of Steinke, Nasr and Jagielski (NeurIPS 2023).

Every expectation is derived here by hand: binomial tails summed from math.comb, the crossing found by a bisection
written in this file, the right guesses of the audit counted canary by canary.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from synthpriv_report import stats
from synthpriv_report.stats import (
    one_run_audit,
    one_run_epsilon,
    one_run_guess_counts,
    one_run_p_value,
    one_run_precision_needed,
)


def tail(r: int, v: int, q: float) -> float:
    """P[Binomial(r, q) >= v] by direct summation."""
    return math.fsum(math.comb(r, k) * q**k * (1.0 - q) ** (r - k) for k in range(v, r + 1))


def pmf(r: int, k: int, q: float) -> float:
    return math.comb(r, k) * q**k * (1.0 - q) ** (r - k)


def p_value_delta(r: int, v: int, eps: float, delta: float, m: int) -> float:
    """Corollary 5.4 written out: tail + 2 m δ max_i P[v - i <= X < v] / i."""
    q = math.exp(eps) / (1.0 + math.exp(eps))
    alpha = max(math.fsum(pmf(r, k, q) for k in range(v - i, v)) / i for i in range(1, v + 1))
    return min(1.0, tail(r, v, q) + 2.0 * m * delta * alpha)


def crossing_q(r: int, v: int, beta: float) -> float:
    """The q in [1/2, 1] where tail(r, v, q) = beta, by bisection on q (the tail rises with q)."""
    lo, hi = 0.5, 1.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if tail(r, v, mid) <= beta:
            lo = mid
        else:
            hi = mid
    return lo


def logit(q: float) -> float:
    return math.log(q / (1.0 - q))


def test_exported_from_stats() -> None:
    for name in ("one_run_audit", "one_run_epsilon", "one_run_guess_counts", "one_run_p_value",
                 "one_run_precision_needed", "OneRunOutcome", "OneRunRow"):
        assert name in stats.__all__
        assert hasattr(stats, name)


def test_p_value_is_the_binomial_tail() -> None:
    # r = 4, v = 3, ε = log 3: q = 3/4, P[X >= 3] = 4 (3/4)^3 (1/4) + (3/4)^4 = 189/256
    assert one_run_p_value(4, 3, math.log(3.0)) == pytest.approx(189 / 256, rel=1e-12)
    assert one_run_p_value(4, 0, 2.0) == 1.0
    assert one_run_p_value(0, 0, 0.0) == 1.0


@pytest.mark.parametrize("r", [10, 50, 200])
def test_all_guesses_right_solves_p_to_the_r_equals_beta(r: int) -> None:
    """With v = r the tail is p^r, so the bound is log(p / (1 - p)) at p = β^(1/r)."""
    p = 0.05 ** (1.0 / r)
    expected = math.log(p / (1.0 - p))
    got = one_run_epsilon(r, r)
    assert got == pytest.approx(expected, abs=2e-9)
    assert got <= expected + 1e-12  # the low end of the bracket: its p-value is at most β
    assert math.isfinite(got)


def test_nothing_shown_at_half_right_or_fewer() -> None:
    for r in (1, 2, 7, 10, 100, 1001):
        assert one_run_epsilon(r, 0) == 0.0
        for v in range(0, r // 2 + 1, max(1, r // 20)):
            assert one_run_epsilon(r, v) == 0.0
    assert one_run_epsilon(0, 0) == 0.0
    # one guess, right: q <= β is impossible for q >= 1/2
    assert one_run_epsilon(1, 1) == 0.0


def test_small_hand_cases_against_an_independent_bisection() -> None:
    # r = 4, v = 3 at 95%: P[Bin(4, 1/2) >= 3] = 5/16 > 0.05, so ε = 0 is not even rejected
    assert tail(4, 3, 0.5) == pytest.approx(5 / 16)
    assert one_run_epsilon(4, 3) == 0.0
    # at 60% confidence (β = 0.4 > 5/16) the crossing solves 4 q^3 - 3 q^4 = 0.4
    q = crossing_q(4, 3, 0.4)
    assert 4 * q**3 - 3 * q**4 == pytest.approx(0.4, abs=1e-12)
    assert one_run_epsilon(4, 3, confidence=0.6) == pytest.approx(logit(q), abs=2e-9)
    # r = 10, v = 9: 10 q^9 - 9 q^10 = 0.05
    q = crossing_q(10, 9, 0.05)
    eps = one_run_epsilon(10, 9)
    assert eps == pytest.approx(logit(q), abs=2e-9)
    expit = lambda e: math.exp(e) / (1.0 + math.exp(e))  # noqa: E731
    assert tail(10, 9, expit(eps)) <= 0.05
    assert tail(10, 9, expit(eps + 1e-8)) > 0.05
    assert tail(10, 9, expit(eps - 1e-6)) < 0.05


def test_monotone_in_right_guesses_and_in_confidence() -> None:
    r = 100
    bounds = [one_run_epsilon(r, v) for v in range(r + 1)]
    assert all(a <= b for a, b in zip(bounds, bounds[1:]))
    positive = [b for b in bounds if b > 0]
    assert len(positive) > 20 and all(a < b for a, b in zip(positive, positive[1:]))
    by_confidence = [one_run_epsilon(r, 80, confidence=c) for c in (0.5, 0.9, 0.95, 0.99, 0.999)]
    assert all(a > b for a, b in zip(by_confidence, by_confidence[1:]))


def test_delta_bound_is_corollary_5_4() -> None:
    """For δ > 0 the returned ε is where the p-value of Corollary 5.4, summed here from math.comb, crosses β."""
    for r, v, m, delta in [(20, 18, 100, 1e-3), (100, 80, 1000, 1e-5), (50, 50, 200, 1e-4)]:
        eps = one_run_epsilon(r, v, delta=delta, canaries=m)
        assert 0.0 < eps < one_run_epsilon(r, v)
        assert p_value_delta(r, v, eps, delta, m) <= 0.05
        assert p_value_delta(r, v, eps + 1e-8, delta, m) > 0.05
        assert one_run_p_value(r, v, eps, delta=delta, canaries=m) == pytest.approx(
            p_value_delta(r, v, eps, delta, m), rel=1e-9)
    # more canaries at the same δ weaken the bound
    assert one_run_epsilon(100, 80, delta=1e-4, canaries=10_000) < one_run_epsilon(100, 80, delta=1e-4, canaries=100)
    # r = v = 2, m = 2, ε = 0 (q = 1/2): tail P[X >= 2] = 1/4; α = max(P[X = 1] / 1, P[0 <= X < 2] / 2)
    # = max(1/2, 3/8) = 1/2; p = 1/4 + 2 * 2 * 0.01 * 1/2 = 0.27
    assert one_run_p_value(2, 2, 0.0, delta=0.01, canaries=2) == pytest.approx(0.27, rel=1e-12)


def test_refusals_name_the_problem() -> None:
    with pytest.raises(ValueError, match="needs canaries"):
        one_run_epsilon(10, 9, delta=1e-5)
    with pytest.raises(ValueError, match="correct"):
        one_run_epsilon(10, 11)
    with pytest.raises(ValueError, match="confidence"):
        one_run_epsilon(10, 9, confidence=1.0)
    with pytest.raises(ValueError, match="canaries"):
        one_run_epsilon(10, 9, canaries=5)
    with pytest.raises(TypeError, match="guesses"):
        one_run_epsilon(10.0, 9)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="delta"):
        one_run_epsilon(10, 9, delta=1.0, canaries=10)
    assert one_run_epsilon(np.int64(10), np.int64(10)) == one_run_epsilon(10, 10)


def test_guess_counts() -> None:
    assert one_run_guess_counts(1000) == (20, 50, 100, 200, 500, 1000)
    # 7: ceil(7/50) = ceil(7/20) = ceil(7/10) = 1, ceil(7/5) = 2, ceil(7/2) = 4, 7
    assert one_run_guess_counts(7) == (1, 2, 4, 7)
    assert one_run_guess_counts(1) == (1,)
    with pytest.raises(ValueError):
        one_run_guess_counts(0)


def test_audit_counts_right_guesses_by_hand() -> None:
    """Eight canaries. Ranked by score, highest first, equal scores in canary order:
    canary 0 (0.9, in), 2 (0.9, out), 6 (0.7, in), 3 (0.5, in), 5 (0.5, in), 1 (0.2, out), 7 (0.2, out), 4 (0.1, out).

    r = 1: "in" {0}: 1 right; no "out" guess.                                    -> 1
    r = 3: "in" {0, 2}: 1 right; "out" {4}: 1 right.                             -> 2
    r = 5: "in" {0, 2, 6}: 2 right; "out" {7, 4}: 2 right (7 before 1: the tie at 0.2 goes by canary order). -> 4
    r = 8: "in" {0, 2, 6, 3}: 3 right (3 before 5: tie at 0.5); "out" {5, 1, 7, 4}: 3 right. -> 6
    """
    scores = [0.9, 0.2, 0.9, 0.5, 0.1, 0.5, 0.7, 0.2]
    included = [True, False, False, True, False, True, True, False]
    out = one_run_audit(scores, included, grid=[8, 1, 3, 5, 5])
    assert out.canaries == 8 and out.included == 4
    assert [(row.guesses, row.k_plus, row.k_minus, row.correct) for row in out.rows] == [
        (1, 1, 0, 1), (3, 2, 1, 2), (5, 3, 2, 4), (8, 4, 4, 6)]
    assert out.row_confidence == pytest.approx(1 - 0.05 / 4)
    for row in out.rows:
        assert row.epsilon_bound == one_run_epsilon(row.guesses, row.correct, confidence=out.row_confidence)
    assert out.best == max(out.rows, key=lambda row: row.epsilon_bound)
    # 0/1 integers are accepted for included, and give the same counts
    again = one_run_audit(scores, [int(x) for x in included], grid=[1, 3, 5, 8])
    assert again.rows == out.rows


def test_audit_perfect_attack_with_one_guess_count_is_unadjusted() -> None:
    """All eight guesses right, one row: no Bonferroni factor, the bound is logit(0.05^(1/8))."""
    scores = [0.8, 0.1, 0.7, 0.2, 0.9, 0.3, 0.6, 0.0]
    included = [s >= 0.5 for s in scores]
    out = one_run_audit(scores, included, grid=[8])
    assert out.best.correct == 8 and out.row_confidence == pytest.approx(0.95)
    p = 0.05 ** (1 / 8)
    assert out.epsilon_bound == pytest.approx(math.log(p / (1 - p)), abs=2e-9)
    # the default grid for 8 canaries is (1, 2, 4, 8): each row at 1 - 0.05/4
    default = one_run_audit(scores, included)
    assert [row.guesses for row in default.rows] == [1, 2, 4, 8]
    p = 0.0125 ** (1 / 8)
    assert default.epsilon_bound == pytest.approx(math.log(p / (1 - p)), abs=2e-9)
    assert default.epsilon_bound < out.epsilon_bound


def test_audit_to_dict_is_json_safe() -> None:
    out = one_run_audit(np.arange(10.0), np.arange(10) >= 5, delta=1e-5)
    d = out.to_dict()
    assert json.loads(json.dumps(d)) == d
    assert d["best"] == out.best.to_dict() and d["delta"] == 1e-5 and d["canaries"] == 10
    assert all(type(v) is int for row in d["rows"] for k, v in row.items() if k != "epsilon_bound")


def test_audit_refusals() -> None:
    with pytest.raises(ValueError, match="NaN"):
        one_run_audit([0.1, float("nan")], [True, False])
    with pytest.raises(ValueError, match="shape"):
        one_run_audit([0.1, 0.2], [True])
    with pytest.raises(ValueError, match="bools"):
        one_run_audit([0.1, 0.2], [0.5, 1.0])
    with pytest.raises(ValueError, match="between 1 and"):
        one_run_audit([0.1, 0.2], [True, False], grid=[3])
    with pytest.raises(ValueError, match="at least one canary"):
        one_run_audit([], [])


@pytest.mark.parametrize("eps", [0.0, 0.5, 1.0, 2.0])
@pytest.mark.parametrize("r", [5, 20, 100, 400])
def test_precision_needed_agrees_with_the_bound(eps: float, r: int) -> None:
    n = one_run_precision_needed(eps, r)
    q = math.exp(eps) / (1.0 + math.exp(eps))
    if n <= r:
        assert one_run_epsilon(r, n) >= eps - 1e-9
        assert tail(r, n, q) <= 0.05
    else:
        assert n == r + 1 and q**r > 0.05
    if n >= 1:
        assert one_run_epsilon(r, n - 1) < eps or (eps == 0.0 and one_run_epsilon(r, n - 1) == 0.0)
        assert tail(r, n - 1, q) > 0.05


def test_precision_needed_hand_case() -> None:
    # r = 10, ε = 0: the fewest v with P[Bin(10, 1/2) >= v] <= 0.05: P[>= 9] = 11/1024, P[>= 8] = 56/1024
    assert one_run_precision_needed(0.0, 10) == 9
    assert one_run_precision_needed(0.0, 10, confidence=0.9) == 8  # 56/1024 = 0.0547 <= 0.1


def test_random_guessing_rarely_shows_leakage() -> None:
    """Scores independent of inclusion: the best row's 95% bound is positive in at most about 5% of runs."""
    rng = np.random.default_rng(20231)
    positive = 0
    for _ in range(200):
        included = rng.random(1000) < 0.5
        scores = rng.random(1000)
        if one_run_audit(scores, included).epsilon_bound > 0.0:
            positive += 1
    assert positive <= 24  # 12% of 200
    # and the same audit sees a real signal: scores shifted up by 0.3 for the included canaries
    for _ in range(20):
        included = rng.random(1000) < 0.5
        assert one_run_audit(rng.random(1000) + 0.3 * included, included).epsilon_bound > 0.0


def test_in_only_guesses_abstain_on_low_scores_and_count_in_the_correction():
    # eight canaries, scores highest first: in, in, in, out, in, out, out, in
    scores = [8, 7, 6, 5, 4, 3, 2, 1]
    truth = [True, True, True, False, True, False, False, True]
    out = one_run_audit(scores, truth, grid=[2, 4], sides=("balanced", "in"))
    assert [(r.guesses, r.k_plus, r.k_minus, r.correct) for r in out.rows] == [
        (2, 1, 1, 1), (4, 2, 2, 3), (2, 2, 0, 2), (4, 4, 0, 3)]
    assert out.row_confidence == pytest.approx(1 - 0.05 / 4)
    for r in out.rows:
        assert r.epsilon_bound == one_run_epsilon(r.guesses, r.correct, confidence=out.row_confidence)
    with pytest.raises(ValueError, match="sides"):
        one_run_audit(scores, truth, sides=("out",))
