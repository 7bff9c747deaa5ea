"""The one level policy (synthpriv_report.grading.levels): overrides for every metric, validation, margins, NaN."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from synthpriv_report import Evaluation
from synthpriv_report.core.registry import get_spec, metric_names
from synthpriv_report.core.results import MetricResult
from synthpriv_report.grading.levels import apply_level, beyond, grade, validate_levels
from synthpriv_report.stats import wilson

LEVELLED = [n for n in metric_names() if get_spec(n).level is not None]


def _result(name: str, value: float) -> MetricResult:
    spec = get_spec(name)
    return MetricResult(name, value, interval=(value, value), direction=spec.direction,
                        value_range=spec.value_range)


def _mid(name: str) -> float:
    lo, hi = get_spec(name).value_range
    return (lo + hi) / 2 if math.isfinite(hi) else lo + 1.0


def test_every_levelled_metric_has_one():
    # every registered metric declares a level rule, and the policy grades each of them
    assert len(LEVELLED) == len(metric_names())
    assert "dcr" in LEVELLED and "cvp" in LEVELLED and "exact_copies" in LEVELLED


@pytest.mark.parametrize("name", LEVELLED)
def test_overrides_move_the_level_both_ways(name):
    spec = get_spec(name)
    v = _mid(name)
    riskier = spec.direction == "higher_is_riskier"
    # thresholds on the risky side of the value: never fires
    far = {"medium": v + 1e6, "high": v + 2e6} if riskier else {"medium": v - 1e6, "high": v - 2e6}
    # (low only where the rule's risky end is ruled out; a bare value without the counts behind it is inconclusive)
    assert apply_level(spec, _result(name, v), validate_levels({name: far})).level in ("low", "inconclusive")
    # thresholds on the safe side: high
    near = {"medium": v - 2e6, "high": v - 1e6} if riskier else {"medium": v + 2e6, "high": v + 1e6}
    r = apply_level(spec, _result(name, v), validate_levels({name: near}))
    assert r.level == "high" and r.level_rule.source == "user" and "set by the user" in r.level_rule.description
    # between the two: medium
    mid = {"medium": v - 1.0, "high": v + 1.0} if riskier else {"medium": v + 1.0, "high": v - 1.0}
    assert apply_level(spec, _result(name, v), validate_levels({name: mid})).level == "medium"


def test_cvp_override_from_the_issue_is_followed():
    rng = np.random.default_rng(0)
    T = pd.DataFrame({"a": rng.normal(size=60), "b": rng.choice(list("xyz"), 60)})
    ev = Evaluation(T, T.copy(), progress=False, calibrate=False, metrics=["cvp"])
    assert ev.results()["cvp"].value == 1.0 and ev.results()["cvp"].level == "high"
    assert ev.results(levels={"cvp": {"medium": 4, "high": 5}})["cvp"].level == "low"


@pytest.mark.parametrize("levels, match", [
    ({"privacy_score": {"medium": 10, "high": 90}}, r"levels\['privacy_score'\].*above the medium"),
    ({"cvp": {"medium": 0.9, "high": 0.1}}, r"levels\['cvp'\].*below the medium"),
    ({"nope": {"high": 1}}, r"unknown metric 'nope'"),
    ({"privacy_scor": {"high": 1}}, r"did you mean 'privacy_score'"),
    ({"dcr": {"medium": None, "high": "low"}}, r"levels\['dcr'\]\['high'\] must be a number"),
    ({"dcr": {"medium": None, "high": float("nan")}}, r"levels\['dcr'\]\['high'\] must be a finite number"),
        ({"dcr": {"high": 0.5}}, r"levels\['dcr'\] must be a dict with the keys 'medium' and 'high'.*missing 'medium'"),
        ({"exact_copies": {"medium": 0.1}}, r"levels\['exact_copies'\] must be a dict with the keys.*missing 'high'"),
    ({"dcr": {"hihg": 0.1}}, r"levels\['dcr'\] must be a dict with the keys 'medium' and 'high'"),
    ({"dcr": {}}, r"levels\['dcr'\] must be a dict"),
    ({"holdout_dcr_share": {"medium": 0.9, "high": 0.55}}, r"levels\['holdout_dcr_share'\].*below the medium"),
])
def test_wrong_overrides_are_refused_by_name(levels, match):
    with pytest.raises(ValueError, match=match):
        validate_levels(levels)


def test_levels_must_be_a_dict():
    with pytest.raises(TypeError, match="levels="):
        validate_levels([("dcr", 1)])


def test_rounding_cannot_cross_a_threshold():
    assert not beyond(0.55 + 1e-17, 0.55, "higher_is_riskier")
    assert not beyond(50.0 - 1e-13, 50.0, "higher_is_safer")
    assert grade(0.2 * 3, "higher_is_riskier", medium=0.6, high=0.9) == "low"  # 0.6000000000000001
    assert grade(0.2 * 3, "higher_is_riskier", medium=0.6, high=0.9, inclusive=True) == "medium"


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_values_are_never_graded(bad):
    for name in ("nndr_review", "privacy_score", "dcr"):
        r = apply_level(get_spec(name), _result(name, bad), None)
        assert not r.computed and r.level is None and r.value is None
        assert "not a finite number" in r.reason_not_computed


def _copy_result(n_copies: int, n: int, n_base_copies: int, n_base: int) -> MetricResult:
    """An exact_copies result whose evidence comes from the two shares (as the metric computes it)."""
    from synthpriv_report.metrics.closeness.copies import excess_evidence

    flags = np.arange(n) < n_copies
    base = np.arange(n_base) < n_base_copies
    return MetricResult("exact_copies", n_copies / n, interval=wilson(n_copies / n, n),
                        details={"n_copies": n_copies, "n": n, **excess_evidence(flags, base, None, "holdout")})


def test_exact_copies_of_independent_samples_are_never_high_at_any_size():
    """Regression: the Wilson lower bound at k = 0 came out as 8.7e-19 for 186 sizes (69, 75, 125, 138, 150,
    ...), which 'exceeded' the holdout's own copy share of 0 and graded an honest generator HIGH RISK. The rule
    now compares the two shares (Newcombe's interval of their difference); equal shares are never high."""
    spec = get_spec("exact_copies")
    for n in range(1, 3001, 7):
        assert apply_level(spec, _copy_result(0, n, 0, n), None).level in ("low", "inconclusive"), n
        k = n // 10
        assert apply_level(spec, _copy_result(k, n, k, n), None).level in ("low", "inconclusive"), n


def test_no_copies_rule_the_copy_risk_out_only_with_enough_records():
    """Three outcomes: no copies on either side rule a copy risk out (the upper end of Newcombe's interval at the
    per-check level within 3 points) only once the sets are large enough; below that the check is inconclusive
    and names the bound. By hand: with k = 0 on both sides the upper end is the Wilson upper bound of 0 of n,
    z^2 / (n + z^2), and z = 2.45 at 5%/7 one-sided: below 3 points from n = 189 on."""
    from synthpriv_report.core.registry import verdict_alpha
    from synthpriv_report.stats.evidence import z_of

    spec = get_spec("exact_copies")
    z2 = z_of(verdict_alpha()) ** 2
    first = next(n for n in range(1, 1000) if z2 / (n + z2) <= 0.03)
    assert 180 <= first <= 200
    small = apply_level(spec, _copy_result(0, first - 1, 0, first - 1), None)
    assert small.level == "inconclusive" and small.level_rule.inconclusive_because.startswith("cannot rule out")
    assert apply_level(spec, _copy_result(0, first, 0, first), None).level == "low"
    # a tenth of both sets copied: the shares agree, but at 1,000 records the interval of their difference still
    # reaches beyond 3 points, and at 10,000 it does not
    assert apply_level(spec, _copy_result(100, 1000, 100, 1000), None).level == "inconclusive"
    assert apply_level(spec, _copy_result(1000, 10000, 1000, 10000), None).level == "low"


def test_full_copy_is_high_at_every_size_with_evidence():
    """A full copy against a baseline without copies is high from 3 records on; with 2 against 2 the data cannot
    tell it from chance at the verdict's per-check level (Newcombe's lower bound is below 0)."""
    spec = get_spec("exact_copies")
    assert apply_level(spec, _copy_result(2, 2, 0, 2), None).level == "inconclusive"
    for n in range(3, 3001, 7):
        assert apply_level(spec, _copy_result(n, n, 0, n), None).level == "high", n


def test_a_few_more_copies_than_the_holdout_is_not_evidence():
    """Regression (the old rule): 3 copies in 1,000 synthetic records against 1 in 1,000 holdout records had a
    Wilson lower bound above the holdout's share, and was graded high; the difference is within chance."""
    spec = get_spec("exact_copies")
    assert apply_level(spec, _copy_result(3, 1000, 1, 1000), None).level == "low"
    assert apply_level(spec, _copy_result(30, 1000, 1, 1000), None).level == "high"


@pytest.mark.slow  # about 2 s
def test_three_independent_normal_samples_are_not_high_risk():
    rng = np.random.default_rng(3)

    def make(m):
        return pd.DataFrame({"x": rng.normal(size=m), "y": rng.normal(size=m)})

    ev = Evaluation(make(300), make(300), make(150), progress=False, n_bootstrap=50,
                    metrics=["exact_copies", "holdout_dcr_share", "privacy_score", "dcr_test", "nndr_test"])
    res = ev.results()
    assert res["exact_copies"].value == 0.0 and res["exact_copies"].level == "low"
    assert res["exact_copies"].interval[0] == 0.0
    assert res.verdict.level != "high"


def test_verdict_not_assessed_when_no_driving_check_ran():
    rng = np.random.default_rng(0)
    T = pd.DataFrame({"a": rng.normal(size=40)})
    ev = Evaluation(T, T.copy(), progress=False, metrics=["dcr", "nndr"])
    v = ev.results().verdict
    assert v.level == "not_assessed" and v.n_ran == 0
    assert {n for n, _ in v.not_run} == {"exact_copies", "near_copies", "holdout_dcr_share", "privacy_score",
                                         "dcr_test", "nndr_test", "mia_worst_case"}


def test_shares_read_their_rule_and_graded_number_in_percent():
    # a share shown as 57.2% was graded "on the Wilson lower bound of the share: 0.524" under a rule "above 0.55":
    # the rule, the graded number and the value now read in the same unit
    share = MetricResult("holdout_dcr_share", 0.572, interval=(0.524, 0.62), direction="higher_is_riskier",
                         value_range=(0.0, 1.0))
    rule = apply_level(get_spec("holdout_dcr_share"), share, None).level_rule
    assert rule.unit == "percent" and rule.graded == pytest.approx(0.524)
    assert "above 55%" in rule.description and "above 50%" in rule.description and "0.5" not in rule.description
    # a difference of shares (the value minus the holdout's) reads in percentage points
    cvp = MetricResult("cvp", 0.40, interval=(0.35, 0.45), direction="higher_is_riskier", value_range=(0.0, 1.0),
                       calibration=0.20)
    rule = apply_level(get_spec("cvp"), cvp, None).level_rule
    assert rule.unit == "points" and rule.graded == pytest.approx(0.20)
    assert "more than 20 percentage points" in rule.description and "more than 5 percentage points" in rule.description
    # a metric whose value is not a share keeps plain numbers, and user thresholds follow the same unit
    zcap = MetricResult("zcap", 0.63, interval=(0.6, 0.66), direction="higher_is_riskier", value_range=(0.0, 1.0),
                        calibration=0.60)
    assert apply_level(get_spec("zcap"), zcap, None).level_rule.unit == "number"
    user = apply_level(get_spec("cvp"), cvp, {"cvp": {"medium": 0.1, "high": 0.3}}).level_rule
    assert user.unit == "percent" and "above 30%" in user.description and "above 10%" in user.description


def test_a_weak_attack_is_inconclusive_whatever_its_bound():
    """A criterion whose attack did no better than a random guess rules nothing out, even with a narrow interval;
    the same interval with an attack better than its baseline rules the risk out (upper end 2% <= 5%)."""
    spec = get_spec("singling_out_risk")

    def result(attack: float, baseline: float) -> MetricResult:
        rates = {"attack": {"value": attack}, "control": {"value": attack}, "baseline": {"value": baseline}}
        return MetricResult("singling_out_risk", 0.0, interval=(0.0, 0.02), details={"rates": rates})

    weak = apply_level(spec, result(0.1, 0.2), None)
    assert weak.level == "inconclusive" and "no better than a random guess" in weak.level_rule.inconclusive_because
    assert apply_level(spec, result(0.3, 0.2), None).level == "low"
    wide = apply_level(spec, MetricResult("singling_out_risk", 0.0, interval=(0.0, 0.147),
                                          details={"rates": {"attack": {"value": 0.3}, "baseline": {"value": 0.2}}}),
                       None)
    assert wide.level == "inconclusive" and wide.level_rule.risky_end == 0.147
