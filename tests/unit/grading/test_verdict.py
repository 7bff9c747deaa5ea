"""The headline verdict: highest level among the checks that ran, "not assessed" when none ran, plain reasons."""

from __future__ import annotations

from synthpriv_report.core.results import LevelRule, MetricResult, not_computed
from synthpriv_report.grading.verdict import compute_verdict

DRIVING = ["exact_copies", "holdout_dcr_share", "privacy_score"]


def test_no_check_ran_is_not_assessed_never_low():
    v = compute_verdict({"dcr": MetricResult("dcr", 0.1, level="low"), "nndr": MetricResult("nndr", 0.0, level="low")},
                        DRIVING)
    assert v.level == "not_assessed" and v.n_ran == 0
    assert [n for n, _ in v.not_run] == DRIVING
    assert all(why == "not requested in this evaluation" for _, why in v.not_run)


def test_a_check_that_could_not_run_is_listed_with_its_reason_and_never_drives():
    res = {"exact_copies": MetricResult("exact_copies", 0.0, level="low", title="Exact copies"),
           "holdout_dcr_share": not_computed("holdout_dcr_share", "needs a holdout set (holdout=)")}
    v = compute_verdict(res, DRIVING)
    assert v.level == "low" and v.n_ran == 1
    assert dict(v.not_run) == {"holdout_dcr_share": "needs a holdout set (holdout=)",
                               "privacy_score": "not requested in this evaluation"}


def test_reason_is_one_plain_sentence_with_the_formatted_number():
    res = {"exact_copies": MetricResult("exact_copies", 0.095, level="high", title="Exact copies",
                                        details={"n_copies": 57, "n": 600, "holdout_copy_share": 0.0}),
           "privacy_score": MetricResult("privacy_score", 96.0, level="low", direction="higher_is_safer",
                                         title="Proximity-ratio privacy score")}
    v = compute_verdict(res, DRIVING)
    assert v.level == "high" and v.n_ran == 2
    assert v.reasons == ("High risk from Exact copies: 9.5% of the synthetic records (57 of 600) are exact copies of "
                         "a real training record; among real records the generator never saw, 0% equal a training "
                         "record.",)


def test_three_outcomes_order_the_verdict():
    """Low only when every check that ran ruled its risk out; inconclusive when none showed a risk and one could
    not rule it out (its reason names the bound); a risk shown outranks both."""
    why = "cannot rule out a risk up to 74.2% (the upper confidence bound of the share)"
    unsure = MetricResult("holdout_dcr_share", 0.62, level="inconclusive", title="Closer to the training data",
                          level_rule=LevelRule(0.5, 0.55, "s", "d", risky_end=0.742, negligible=0.6,
                                               inconclusive_because=why))
    low = MetricResult("exact_copies", 0.0, level="low")
    v = compute_verdict({"exact_copies": low, "holdout_dcr_share": unsure}, ["exact_copies", "holdout_dcr_share"])
    assert v.level == "inconclusive"
    assert v.reasons == ("Inconclusive: Closer to the training data showed no risk but could not rule one out: it "
                         + why + ".",)
    assert compute_verdict({"exact_copies": low}, ["exact_copies"]).level == "low"
    high = MetricResult("exact_copies", 0.5, level="high")
    v = compute_verdict({"exact_copies": high, "holdout_dcr_share": unsure}, ["exact_copies", "holdout_dcr_share"])
    assert v.level == "high" and v.reasons[0].startswith("High risk from") and v.reasons[1].startswith("Inconclusive")
