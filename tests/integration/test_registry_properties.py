"""Registry-driven invariants of every registered metric (style guide, habit 10).

Each test is parametrized by ``metric_names()``, so every metric registered by any module shows up separately.
The data: a few hundred rows of UCI Adult (mixed numeric and categorical columns), key fields age, sex, race,
marital-status, sensitive field income, and a holdout. T, S and H have the same size, so no metric draws a
size-equalising subsample (docs/metrics.md, sections holdout_dcr_share, privacy_score, nnaa); only metrics that
always draw by position are order-dependent.
The evaluations are shared through module-scoped fixtures.
"""

from __future__ import annotations

import contextlib
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _support.paths import ADULT as ADULT_DIR

from synthpriv_report import Evaluation
from synthpriv_report.registry import get_spec, metric_names

ADULT = str(ADULT_DIR) + "/"
N = 200
KEYS = ["age", "sex", "race", "marital-status"]
SENSITIVE = ["income"]
NAMES = metric_names()

#: Metrics whose value depends on the row order by definition, with the reason (sections of docs/metrics.md cited).
ORDER_DEPENDENT: dict[str, str] = {
    "detection_mlp": "StratifiedKFold(shuffle=True) assigns folds by position and the MLP's minibatches follow the "
                     "row order (detection_mlp)",
    "mir": "train_test_split draws the test part by position (mir)",
    "privacy_score": "R1/R2 are a random permutation of T's positions (privacy_score)",
}

#: Ten re-reductions with changed parameters; none may search again.
PARAM_MOVES: list[dict] = [
    {"alpha": 0.2},
    {"nndr_threshold": 0.3},
    {"cvp_threshold": 0.1},
    {"dvp_threshold": 0.9},
    {"hitr_divisor": 10.0},
    {"air_tolerance": 0.3},
    {"test_statistic": "median"},
    {"levels": {"review_absolute": {"medium": 0.1, "high": 0.2}, "review_excess": {"medium": 0.005, "high": 0.01}}},
    {"alpha": 0.05, "nndr_threshold": 0.8, "cvp_threshold": 0.3, "dvp_threshold": 0.7},
    {"hitr_divisor": 50.0, "air_tolerance": 0.0, "test_statistic": "mean",
     "levels": {"dcr_test": {"medium": 50.0, "high": 5.0}}},
]


# ----------------------------------------------------------------------------------------------------------------
# data and shared evaluations


@pytest.fixture(scope="module")
def frames() -> dict[str, pd.DataFrame]:
    if not Path(ADULT, "adult_train.csv").exists():
        pytest.skip(f"Adult data not available at {ADULT} (tests read ../shared/data beside the repository)")
    train = pd.read_csv(ADULT + "adult_train.csv").drop_duplicates()
    test = pd.read_csv(ADULT + "adult_test.csv").drop_duplicates()
    T = train.sample(N, random_state=11).reset_index(drop=True)
    H = test.sample(N, random_state=12).reset_index(drop=True)
    S = pd.read_csv(ADULT + "synthetic/gaussian_copula.csv.gz").sample(N, random_state=13).reset_index(drop=True)
    rng = np.random.default_rng(14)
    indep = pd.DataFrame({c: T[c].to_numpy()[rng.integers(0, N, N)] for c in T.columns})
    assert not T.duplicated().any(), "the copy tests need unique records"
    assert not T.drop(columns=SENSITIVE).duplicated().any(), "and unique key projections"
    return {"T": T, "H": H, "S": S, "copy": T.copy(), "indep": indep}


def _prime(ev: Evaluation) -> None:
    """Compute every metric at once, so the searches are planned together; a metric that fails here fails again,
    alone, in its own parametrized test below, which is where it should be reported."""
    with contextlib.suppress(Exception):
        ev.results()


def _evaluate(T: pd.DataFrame, S: pd.DataFrame, H: pd.DataFrame | None, pairing, **kw) -> Evaluation:
    kw.setdefault("key_fields", KEYS)
    ev = Evaluation(T, S, H, sensitive_fields=SENSITIVE, pairing=pairing, progress=False, random_state=0, **kw)
    _prime(ev)
    return ev


IDENTITY = np.column_stack([np.arange(N), np.arange(N)])


@pytest.fixture(scope="module")
def ev_main(frames) -> Evaluation:
    return _evaluate(frames["T"], frames["S"], frames["H"], IDENTITY)


@pytest.fixture(scope="module")
def ev_again(frames) -> Evaluation:
    return _evaluate(frames["T"], frames["S"], frames["H"], IDENTITY)


@pytest.fixture(scope="module")
def ev_shuffled(frames) -> Evaluation:
    rng = np.random.default_rng(99)
    pt, ps, ph = rng.permutation(N), rng.permutation(N), rng.permutation(N)
    # original pair (i, i) moves to (position of T row i, position of S row i) in the shuffled frames
    pairing = np.column_stack([np.argsort(pt)[np.arange(N)], np.argsort(ps)[np.arange(N)]])
    return _evaluate(frames["T"].iloc[pt].reset_index(drop=True), frames["S"].iloc[ps].reset_index(drop=True),
                     frames["H"].iloc[ph].reset_index(drop=True), pairing)


# The copy evaluations use the default key fields (every column but income): the records are unique, and so are
# their key projections, which the key-based metrics (ZCAP, GCAP, AIR) need for a copy to sit at the risky end
# (with keys age, sex, race, marital-status many real records share their keys, so even a copy scores below 1).


@pytest.fixture(scope="module")
def ev_copy(frames) -> Evaluation:
    return _evaluate(frames["T"], frames["copy"], frames["H"], IDENTITY, calibrate=False, key_fields=None)


@pytest.fixture(scope="module")
def ev_indep(frames) -> Evaluation:
    return _evaluate(frames["T"], frames["indep"], frames["H"], IDENTITY, calibrate=False, key_fields=None)


@pytest.fixture(scope="module")
def ev_bare(frames) -> Evaluation:
    """No holdout, no sensitive fields, no pairing: metrics needing them are not computed."""
    ev = Evaluation(frames["T"].head(80), frames["S"].head(80), progress=False, calibrate=False)
    _prime(ev)
    return ev


def _risk(name: str, value: float) -> float:
    """Position of ``value`` in the declared range, 1 at the risky end."""
    spec = get_spec(name)
    lo, hi = spec.value_range
    r = (value - lo) / (hi - lo)
    return r if spec.direction == "higher_is_riskier" else 1.0 - r


def _close(a, b) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=0.0, abs_tol=1e-9)


# ----------------------------------------------------------------------------------------------------------------
# invariants


@pytest.mark.parametrize("name", NAMES)
def test_value_and_interval_in_range(ev_main, name):
    r = ev_main.results(metrics=[name])[name]
    if not r.computed:
        pytest.skip(f"not computed: {r.reason_not_computed}")
    lo, hi = get_spec(name).value_range
    tol = 1e-12 * max(1.0, abs(hi - lo)) if math.isfinite(hi - lo) else 1e-12
    assert r.value is not None and math.isfinite(r.value)
    assert lo - tol <= r.value <= hi + tol
    if r.interval is not None:
        a, b = r.interval
        assert lo - tol <= a <= r.value + tol and r.value - tol <= b <= hi + tol
    if r.calibration is not None:
        assert lo - tol <= r.calibration <= hi + tol


@pytest.mark.parametrize("name", NAMES)
def test_row_order_does_not_change_value(ev_main, ev_shuffled, name):
    if name in ORDER_DEPENDENT:
        pytest.skip(ORDER_DEPENDENT[name])
    a = ev_main.results(metrics=[name])[name]
    b = ev_shuffled.results(metrics=[name])[name]
    assert a.computed == b.computed
    assert _close(a.value, b.value), (a.value, b.value)
    assert _close(a.calibration, b.calibration), (a.calibration, b.calibration)


@pytest.mark.parametrize("name", NAMES)
def test_same_random_state_same_numbers(ev_main, ev_again, name):
    a = ev_main.results(metrics=[name])[name].to_dict()
    b = ev_again.results(metrics=[name])[name].to_dict()
    assert a == b


@pytest.mark.parametrize("name", NAMES)
def test_to_dict_is_json(ev_main, ev_bare, name):
    for ev in (ev_main, ev_bare):
        d = ev.results(metrics=[name])[name].to_dict()
        text = json.dumps(d, allow_nan=False)
        assert json.loads(text)["name"] == name


@pytest.mark.parametrize("name", NAMES)
def test_not_computed_has_reason_and_no_value(ev_main, ev_bare, ev_copy, name):
    for ev in (ev_main, ev_bare, ev_copy):
        r = ev.results(metrics=[name])[name]
        if r.computed:
            assert r.value is not None and r.reason_not_computed is None and r.level is not None
        else:
            assert r.value is None and r.level is None
            assert isinstance(r.reason_not_computed, str) and r.reason_not_computed.strip()


@pytest.mark.parametrize("name", NAMES)
def test_exact_copy_at_risky_end(ev_copy, ev_indep, name):
    spec = get_spec(name)
    if not spec.copy_sensitive:
        pytest.skip("copy_sensitive=False in its MetricSpec")
    c = ev_copy.results(metrics=[name])[name]
    i = ev_indep.results(metrics=[name])[name]
    assert c.computed, c.reason_not_computed
    assert i.computed, i.reason_not_computed
    # within 0.05 (as a share of the declared range) of the risky end
    assert _risk(name, c.value) >= 0.95, c.value
    # an independently resampled-columns synthetic set is clearly less risky
    assert _risk(name, i.value) <= _risk(name, c.value) - 0.1, (i.value, c.value)


@pytest.mark.parametrize("name", NAMES)
def test_parameter_moves_add_no_search(ev_main, name):
    ev_main.results()
    before = ev_main.search_count
    for move in PARAM_MOVES:
        ev_main.results(metrics=[name], **move)
    assert ev_main.search_count == before, ev_main.searches[before:]
