"""The three anonymisation criteria (singling out, linkability, inference): the risk formula against the paper's
written again here, the attack kernels on tiny frames, the parameters (Adult-sized checks:
``tests/integration/test_criteria_adult.py``)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from synthpriv_report import Evaluation
from synthpriv_report.metrics.criteria._common import Rate, criterion_result, residual_risk, wilson_rate
from synthpriv_report.metrics.criteria.inference import correct_guesses
from synthpriv_report.metrics.criteria.linkability import linked, split_columns
from synthpriv_report.metrics.criteria.singling_out import (
    EQ,
    GE,
    GT,
    ISNULL,
    LE,
    LT,
    NE,
    column_index,
    count_matches,
)

CRITERIA = ["singling_out_risk", "linkability_risk", "inference_risk"]


# ---------------------------------------------------------------------------------------------------------------
# the risk formula, against the paper's formula written again here


def _paper_risk(n_att: int, k_att: float, n_ctl: int, k_ctl: float, cl: float) -> tuple[float, float, float]:
    """Giomi et al.'s risk from success counts, written independently: Wilson centres and half-widths, the
    normalised excess and its first-order error, value and interval clipped to [0, 1]."""
    z = norm.ppf(0.5 + cl / 2)

    def wilson(n: int, k: float) -> tuple[float, float]:
        c = (k + z ** 2 / 2) / (n + z ** 2)
        h = z / (n + z ** 2) * math.sqrt(k * (n - k) / n + z ** 2 / 4)
        return c, h

    ra, ea = wilson(n_att, k_att)
    rc, ec = wilson(n_ctl, k_ctl)
    v = (ra - rc) / (1 - rc)
    e = math.sqrt((ea / (1 - rc)) ** 2 + (ec * (ra - 1) / (1 - rc) ** 2) ** 2)
    return min(1.0, max(0.0, v)), min(1.0, max(0.0, v - e)), min(1.0, max(0.0, v + e))


def test_risk_matches_the_papers_formula_on_many_counts() -> None:
    rng = np.random.default_rng(7)
    for _ in range(500):
        n_att, n_ctl, n_base = (int(x) for x in rng.integers(1, 5000, 3))
        k_att, k_ctl, k_base = int(rng.integers(0, n_att + 1)), int(rng.integers(0, n_ctl + 1)), int(
            rng.integers(0, n_base + 1))
        cl = float(rng.choice([0.8, 0.9, 0.95, 0.99]))
        r = criterion_result("x", k_attack=k_att, n_attack=n_att, k_control=k_ctl, n_control=n_ctl,
                             k_baseline=k_base, n_baseline=n_base, confidence_level=cl, details={})
        v, lo, hi = _paper_risk(n_att, k_att, n_ctl, k_ctl, cl)
        assert abs(r.value - v) <= 1e-12
        assert abs(r.interval[0] - lo) <= 1e-12 and abs(r.interval[1] - hi) <= 1e-12
        z = norm.ppf(0.5 + cl / 2)
        assert abs(r.details["rates"]["baseline"]["value"] - (k_base + z * z / 2) / (n_base + z * z)) <= 1e-12


def test_the_rate_is_the_wilson_centre_not_the_share() -> None:
    # k = 0, n = 500, z = 1.959964: (z^2/2) / (500 + z^2) = 0.0038125...
    r = wilson_rate(0, 500)
    assert r.value == pytest.approx(1.920729 / 503.841459, rel=1e-6)
    assert r.value > 0
    with pytest.raises(ValueError):
        wilson_rate(3, 2)


def test_a_negative_residual_is_clipped_but_kept() -> None:
    r = residual_risk(Rate(0.2, 0.01, 20, 100), Rate(0.5, 0.01, 50, 100))
    assert r.value == 0.0 and r.interval == (0.0, 0.0)
    assert r.residual == pytest.approx(-0.6)


def test_a_larger_confidence_level_widens_the_interval() -> None:
    a = criterion_result("x", k_attack=300, n_attack=1000, k_control=200, n_control=1000, k_baseline=10,
                         n_baseline=1000, confidence_level=0.9, details={})
    b = criterion_result("x", k_attack=300, n_attack=1000, k_control=200, n_control=1000, k_baseline=10,
                         n_baseline=1000, confidence_level=0.99, details={})
    assert b.interval[0] < a.interval[0] < a.interval[1] < b.interval[1]


# ---------------------------------------------------------------------------------------------------------------
# the attack kernels on tiny frames


def test_count_matches_by_hand() -> None:
    # columns: age (number), city (code)
    X = np.array([[30.0, 0.0], [40.0, 1.0], [50.0, 1.0], [np.nan, 0.0]])
    cols = np.array([[0, 1], [0, 1], [0, 1], [0, 1], [0, 1]], dtype=np.int64)
    ops = np.array([[GE, EQ], [LE, EQ], [ISNULL, EQ], [GE, NE], [LE, EQ]], dtype=np.int64)
    vals = np.array([[40.0, 1.0], [30.0, 0.0], [0.0, 0.0], [0.0, 5.0], [10.0, 0.0]])
    # age >= 40 & city == 1: rows 1, 2; age <= 30 & city == 0: row 0 (the missing age fails the comparison);
    # age missing & city == 0: row 3; age >= 0 & city != 5: rows 0, 1, 2; age <= 10 & city == 0: none
    assert count_matches(X, cols, ops, vals, 10).tolist() == [2, 1, 1, 3, 0]
    assert count_matches(X, cols, ops, vals, 2).tolist() == [2, 1, 1, 2, 0]


def _count_matches_brute(X, cols, ops, vals, limit):
    """Every record against every condition, in NumPy (a missing number satisfies no comparison)."""
    out = []
    with np.errstate(invalid="ignore"):
        for c, o, v in zip(cols, ops, vals):
            ok = np.ones(X.shape[0], dtype=bool)
            for j, op, x in zip(c, o, v):
                col = X[:, j]
                ok &= {EQ: col == x, NE: col != x, GT: col > x, LT: col < x, GE: col >= x, LE: col <= x,
                       ISNULL: np.isnan(col)}[int(op)] & (~np.isnan(col) | (op == ISNULL))
            out.append(min(int(ok.sum()), limit))
    return out


@pytest.mark.parametrize("seed", range(5))
def test_count_matches_equals_a_scan_of_every_record(seed: int) -> None:
    # few distinct values (many ties at a condition's value), missing numbers, -0.0 beside 0.0, every operator,
    # values taken from the records and values between them; narrow conditions read the sorted index, wide ones
    # every record
    rng = np.random.default_rng(seed)
    n, d = 400, 5
    X = rng.integers(-3, 4, size=(n, d)).astype(np.float64)
    X[:, 0] = rng.normal(size=n).round(1)
    X[rng.random((n, d)) < 0.1] = np.nan
    X[X == 0.0] = np.where(rng.random(int((X == 0.0).sum())) < 0.5, -0.0, 0.0)
    q, m = 300, 3
    cols = np.sort(np.argsort(rng.random((q, d)), axis=1)[:, :m], axis=1).astype(np.int64)
    ops = rng.integers(0, 7, size=(q, m)).astype(np.int64)
    vals = X[rng.integers(0, n, size=(q, 1)), cols]
    vals[rng.random((q, m)) < 0.2] += 0.5
    for limit in (1, 2, 10, n + 1):
        expected = _count_matches_brute(X, cols, ops, vals, limit)
        assert count_matches(X, cols, ops, vals, limit).tolist() == expected
        assert count_matches(X, cols, ops, vals, limit, index=column_index(X)).tolist() == expected


def test_linked_and_split_and_guesses_by_hand() -> None:
    assert linked([[3], [4], [-1]], [[3], [5], [-1]]).tolist() == [True, False, False]
    assert split_columns(("a", "b", "c", "d")) == (("a", "b"), ("c", "d"))
    # a tolerance relative to the secret: a negative guess is never right for a positive secret
    assert correct_guesses([-5.0, 104.0, 106.0], [100.0, 100.0, 100.0], numeric=True).tolist() == [
        False, True, False]
    assert correct_guesses([1.0], [1.0], numeric=True, tolerance=0.0).tolist() == [True]


def _toy(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.integers(18, 90, n).astype(float), "zip": rng.choice(list("abcdefgh"), n),
                         "job": rng.choice(["x", "y", "z", "w"], n), "income": rng.choice(["lo", "hi"], n)})


def test_the_criteria_need_a_holdout() -> None:
    T = _toy(60, 0)
    ev = Evaluation(T, T.copy(), key_fields=["age", "zip", "job"], sensitive_fields=["income"], progress=False,
                    metrics=CRITERIA)
    res = ev.results()
    for name in CRITERIA:
        assert not res[name].computed and "holdout" in res[name].reason_not_computed


@pytest.mark.slow  # about a second
def test_the_confidence_level_re_reduces_without_attacking_again() -> None:
    T, H, S = _toy(300, 1), _toy(300, 2), _toy(300, 3)
    ev = Evaluation(T, S, H, key_fields=["age", "zip", "job"], sensitive_fields=["income"], progress=False,
                    metrics=CRITERIA, n_attacks=200)
    first = ev.results()
    n_search = ev.search_count
    memo = dict(ev.context._engine.memo)
    second = ev.results(confidence_level=0.8)
    assert ev.search_count == n_search
    assert set(ev.context._engine.memo) == set(memo)  # no attack ran again
    for name in CRITERIA:
        a, b = first[name], second[name]
        for part in ("attack", "control", "baseline"):
            assert a.details["rates"][part]["successes"] == b.details["rates"][part]["successes"]
        assert b.details["confidence_level"] == 0.8
        assert b.interval[1] - b.interval[0] <= a.interval[1] - a.interval[0]


@pytest.mark.slow  # about 2 s
def test_more_link_neighbours_link_at_least_as_many_and_the_split_is_stated() -> None:
    T, H, S = _toy(300, 1), _toy(300, 2), _toy(300, 3)
    ev = Evaluation(T, S, H, key_fields=["age", "zip", "job"], sensitive_fields=["income"], progress=False,
                    metrics=["linkability_risk"], n_attacks=200)
    one = ev.results()["linkability_risk"].details
    three = ev.results(link_neighbors=3)["linkability_risk"].details
    for part in ("attack", "control"):
        assert three["rates"][part]["successes"] >= one["rates"][part]["successes"]
    assert (one["columns_a"], one["columns_b"]) == (["age", "zip"], ["job"])
    alt = ev.results(link_split="alternate")["linkability_risk"].details
    assert (alt["columns_a"], alt["columns_b"]) == (["age", "job"], ["zip"])
