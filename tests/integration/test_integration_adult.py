"""Integration test on a few thousand rows of UCI Adult (docs/metrics.md: the closeness and holdout metrics, and
the levels).

T = 3,000 rows of adult_train, H = 3,000 rows of adult_test. Two synthetic sets of 3,000 rows:
- leaky: rows of T resampled with replacement (how synthetic/exact_copy.csv.gz was made, applied to this T);
- independent: rows of synthetic/independent_marginals.csv.gz (each column drawn on its own from the full
  adult_train), a "good" set that copies no individual on purpose.
"""

from __future__ import annotations

import time

import pandas as pd
import pytest
from _support.paths import ADULT

from synthpriv_report import Evaluation

SECTION2 = ["dcr", "exact_copies", "holdout_dcr_share", "privacy_score", "nndr", "dcr_test", "nndr_test"]
N = 3000

pytestmark = pytest.mark.skipif(not (ADULT / "adult_train.csv").exists(), reason="Adult data not available")


@pytest.fixture(scope="module")
def adult() -> dict[str, pd.DataFrame]:
    T = pd.read_csv(ADULT / "adult_train.csv").sample(N, random_state=0).reset_index(drop=True)
    H = pd.read_csv(ADULT / "adult_test.csv").sample(N, random_state=1).reset_index(drop=True)
    leaky = T.sample(N, replace=True, random_state=2).reset_index(drop=True)
    indep = pd.read_csv(ADULT / "synthetic" / "independent_marginals.csv.gz").sample(
        N, random_state=3).reset_index(drop=True)
    return {"T": T, "H": H, "leaky": leaky, "indep": indep}


def _run(adult, s):
    ev = Evaluation(adult["T"], adult[s], adult["H"], progress=False, metrics=SECTION2, n_bootstrap=200)
    t0 = time.perf_counter()
    res = ev.results()
    return ev, res, time.perf_counter() - t0


def test_leaky_set_is_high_risk(adult) -> None:
    ev, res, seconds = _run(adult, "leaky")
    assert res.verdict.level == "high"
    assert res["exact_copies"].value == 1.0 and res["exact_copies"].level == "high"
    assert res["exact_copies"].details["holdout_copy_share"] < 0.01
    hs = res["holdout_dcr_share"]
    assert hs.value > 0.9 and hs.interval[0] > 0.55 and hs.level == "high"
    assert res["dcr"].value == 0.0
    assert res["privacy_score"].value < 50
    assert res["dcr_test"].level == "high" and res["nndr_test"].level == "high"
    reasons = " ".join(res.verdict.reasons)
    for m in ("exact_copies", "holdout_dcr_share", "privacy_score"):
        assert res[m].title in reasons
    keys = [(s.space, s.query, s.ref) for s in ev.searches]
    assert len(keys) == len(set(keys))
    assert seconds < 30


def test_independent_set_sits_at_its_holdout_baseline(adult) -> None:
    _, res, seconds = _run(adult, "indep")
    copies = res["exact_copies"]
    baseline = copies.details["holdout_copy_share"]
    assert abs(copies.value - baseline) <= 0.01
    assert copies.calibration == pytest.approx(baseline)
    assert copies.level != "high"
    hs = res["holdout_dcr_share"]
    assert 0.45 <= hs.value <= 0.56 and hs.interval[0] <= 0.55 and hs.level != "high"
    assert res["privacy_score"].value >= 50
    assert res["dcr"].value > 0
    assert res.verdict.level != "high"
    assert seconds < 30
