"""``unique_disclosure`` on UCI Adult and on many honest releases.

On full Adult with the key fields age, sex, race and marital-status, 563 training people are unique; a release of
training records drawn with replacement (``synthetic/exact_copy.csv.gz``) holds 362 of them, each with their true
income, 197 as the only synthetic record with their key values, and no holdout record's key values: graded high.
A release of fresh real records is graded low. On simulated populations, honest releases are graded medium or high
about as often as the per-check level allows, and releases of training records always high.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthpriv_report import Evaluation
from synthpriv_report.core.registry import verdict_alpha
from synthpriv_report.metrics.attacks.unique_disclosure import field_counts
from tests._support.paths import ADULT

pytestmark = pytest.mark.slow
adult = pytest.mark.skipif(not (ADULT / "adult_train.csv").exists(), reason="Adult data not available")
KEYS = ["age", "sex", "race", "marital-status"]


def _adult(S: pd.DataFrame, T: pd.DataFrame, H: pd.DataFrame):
    ev = Evaluation(T, S, H, key_fields=KEYS, sensitive_fields=["income"], progress=False, calibrate=False,
                    metrics=["unique_disclosure"])
    return ev.results()["unique_disclosure"]


@adult
def test_adult_release_of_training_records():
    T = pd.read_csv(ADULT / "adult_train.csv")
    H = pd.read_csv(ADULT / "adult_test.csv")
    r = _adult(pd.read_csv(ADULT / "synthetic" / "exact_copy.csv.gz"), T, H)
    d = r.details
    # the counts: 563 uniques; 197 of them the only synthetic match (all with the true income)
    assert (d["n_training"], d["n_training_unique"]) == (32561, 563)
    assert d["n_replicated_uniques"] == 197
    # every unique drawn into the release is disclosed: 362 have at least one synthetic record, all correct
    assert d["n_training_unique_in_synthetic"] == 362 and d["n_disclosed"] == 362
    assert d["n_holdout_disclosed"] == 0 and d["n_holdout_unseen_keys"] > 100
    assert r.level == "high" and d["excess_lower_bound"] > 0.5


@adult
def test_adult_release_of_fresh_real_records():
    T = pd.read_csv(ADULT / "adult_train.csv")
    test = pd.read_csv(ADULT / "adult_test.csv").sample(frac=1.0, random_state=0).reset_index(drop=True)
    half = len(test) // 2
    r = _adult(test.iloc[:half], T, test.iloc[half:])
    assert r.details["n_training_unique"] == 563
    # no excess shown; whether it is ruled out (upper bound within 5 points) follows the bound
    assert abs(r.details["excess"]) < 0.1 and r.level in ("low", "inconclusive")
    assert (r.level == "low") == (r.details["excess_upper_bound"] <= 0.05)


# ---------------------------------------------------------------------------------------------------------------
# many releases of a simulated population


def _population(n: int, rng: np.random.Generator) -> pd.DataFrame:
    a = rng.integers(0, 60, n)
    b = rng.choice(list("pqrstu"), n)
    c = rng.choice(["u", "v", "w"], n, p=[0.6, 0.3, 0.1])
    s = np.where(rng.random(n) < 0.2 + 0.02 * (a % 10), "hi", "lo")
    return pd.DataFrame({"a": a, "b": b, "c": c, "s": s})


def _ids(A: pd.DataFrame, B: pd.DataFrame, cols: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Shared ids of the rows of A and B by their values in ``cols`` (pandas' grouping, not the package's)."""
    both = pd.concat([A[cols], B[cols]], ignore_index=True)
    ids = both.groupby(cols, sort=False).ngroup().to_numpy()
    return ids[:len(A)], ids[len(A):]


def _graded_bound(T: pd.DataFrame, S: pd.DataFrame, H: pd.DataFrame) -> float:
    keys = ["a", "b", "c"]
    kt, kst = _ids(T, S, keys)
    kh, ksh = _ids(H, S, keys)
    kth, kht = _ids(T, H, keys)
    st, sst = _ids(T, S, ["s"])
    sh, ssh = _ids(H, S, ["s"])
    d = field_counts(keys_t=kt, keys_s_t=kst, sens_t=st, sens_s_t=sst, keys_h=kh, keys_s_h=ksh, sens_h=sh,
                     sens_s_h=ssh, keys_t_h=kth, keys_h_t=kht, tail=verdict_alpha())
    return d["excess_lower_bound"]


def test_honest_releases_rarely_graded_and_leaky_ones_always():
    rng = np.random.default_rng(2026)
    n_runs = 100
    honest = [_graded_bound(_population(2000, rng), _population(2000, rng), _population(2000, rng))
              for _ in range(n_runs)]
    # each honest release is graded medium or more with probability about alpha (under 1%): with 100 releases,
    # 4 or more would happen by chance less than 1% of the time
    assert sum(b > 0 for b in honest) <= 3, sorted(honest)[-5:]
    leaky = []
    for _ in range(20):
        T, H = _population(2000, rng), _population(2000, rng)
        leaky.append(_graded_bound(T, T.sample(2000, replace=True, random_state=int(rng.integers(1 << 30))), H))
    assert min(leaky) > 0.05  # graded high every time
