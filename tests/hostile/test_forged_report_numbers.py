"""A report read back from JSON is computed again from its stored counts, not graded from its stored bounds.

Regressions (issue 55): a report of 200 synthetic records that are all exact copies, with its lower confidence
bounds edited below 0, its levels, verdict and digest made again to match, was read back and drawn as LOW RISK
beside "200 of 200 are exact copies": the levels were graded from the bounds stored in the details, never from
the counts. A share of 200% with the inverted interval [0.9, 0.1] was accepted and drawn.

Every forgery below is made the way a forger who holds this package would make it: the numbers edited, then every
level, the level rule shown beside it and the verdict graded again by the package's own level policy from the
edited numbers, and the digest made again. On the package before the fix each one loads.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Callable
from pathlib import Path
from statistics import NormalDist
from typing import Any

import pytest

from synthpriv_report import Evaluation, InconsistentReportError, ResultSet
from synthpriv_report.core.registry import get_spec
from synthpriv_report.datasets import load_demo
from synthpriv_report.export import from_json, report_data
from synthpriv_report.export.document import results_from_document, with_digest
from synthpriv_report.grading.levels import apply_level
from synthpriv_report.grading.verdict import compute_verdict

FieldPath = tuple[Any, ...]
N = 200


def _evaluate(synthetic: Any, holdout: Any) -> dict[str, Any]:
    demo = load_demo()
    ev = Evaluation(demo.real.iloc[:N], synthetic, holdout, key_fields=list(demo.key_fields),
                    sensitive_fields=list(demo.sensitive_fields), random_state=0, progress=False, n_bootstrap=50)
    doc = ev.to_json()
    assert from_json(copy.deepcopy(doc)).verdict.level == doc["verdict"]["level"]  # a genuine report loads
    return doc


@pytest.fixture(scope="module")
def copied() -> dict[str, Any]:
    """Every metric, on 200 synthetic records that are the 200 training records (all of them exact copies)."""
    demo = load_demo()
    doc = _evaluate(demo.real.iloc[:N].copy(), demo.holdout.iloc[:100])
    ec = doc["metrics"]["exact_copies"]
    assert ec["details"]["n_copies"] == N and ec["details"]["n"] == N and ec["value"] == 1.0
    assert ec["level"] == "high" and doc["verdict"]["level"] == "high"
    return doc


@pytest.fixture(scope="module")
def no_holdout() -> dict[str, Any]:
    """Every metric of an honest release without a holdout: the copy checks' baseline is the training records
    among themselves, whose duplicates flag one another (a design effect that is not 1)."""
    demo = load_demo()
    doc = _evaluate(demo.synthetic.iloc[:N].copy(), None)
    assert doc["metrics"]["exact_copies"]["details"]["baseline"] == "training"
    return doc


def _node(doc: dict[str, Any], path: FieldPath) -> Any:
    node: Any = doc
    for p in path:
        node = node[p]
    return node


def _set(doc: dict[str, Any], path: FieldPath, value: Any) -> None:
    _node(doc, path[:-1])[path[-1]] = value


def regraded(doc: dict[str, Any]) -> dict[str, Any]:
    """The forger's last steps: every level, the rule shown beside it and the verdict graded again from the edited
    numbers by the package's own policy, and the digest made again (a digest is not a signature)."""
    levels = doc["params"].get("levels")
    results = results_from_document(doc)
    graded = {}
    for name, r in results.items():
        again = apply_level(get_spec(name), r, levels)
        graded[name] = again
        doc["metrics"][name]["level"] = again.level
        doc["metrics"][name]["level_rule"] = again.level_rule.to_dict() if again.level_rule else None
    doc["verdict"] = compute_verdict(graded, doc["settings"]["verdict_metrics"]).to_dict()
    return with_digest(doc)


def _refused(doc: dict[str, Any], field: FieldPath) -> str:
    with pytest.raises(InconsistentReportError) as info:
        from_json(doc)
    assert info.value.field == field, str(info.value)
    msg = str(info.value)
    shown = ""
    for p in field:  # metrics.x.details.tpr_at.'0.01'.tpr, verdict.reasons[0]
        shown += f"[{p}]" if isinstance(p, int) else ("." if shown else "") + (p if p.replace("_", "").isalnum()
                                                                               else repr(p))
    assert f"field {shown} " in msg, msg
    return msg


def _lowered_bounds(doc: dict[str, Any]) -> None:
    """Every bound the driving checks are graded on moved to the safe side."""
    m = doc["metrics"]
    for name in ("exact_copies", "near_copies"):
        for key in ("excess_lower_bound", "copy_check_lower_bound"):
            if key in m[name]["details"]:
                m[name]["details"][key] = -0.25
    m["exact_copies"]["details"]["near_copies"]["excess_lower_bound"] = -0.25
    m["holdout_dcr_share"]["details"]["lower_bound_for_level"] = 0.3
    m["privacy_score"]["details"]["upper_bound_for_level"] = 100.0
    for name in ("dcr_test", "nndr_test"):
        m[name]["details"]["D_lower_bound_for_level"] = -50.0
    worst = m["mia_worst_case"]["details"]
    worst["excess_lower_bound"] = -0.5
    for attack in worst["attacks"].values():
        attack["excess_lower_bound"] = -0.5


def test_all_copies_with_lowered_bounds_and_a_low_verdict_are_refused(copied: dict[str, Any],
                                                                      tmp_path: Path) -> None:
    doc = copy.deepcopy(copied)
    _lowered_bounds(doc)
    forged = regraded(doc)
    # what the forged report would draw: the lowered bounds hide the risk, but "low" is a claim that the counts
    # must back (the risky end of each copy check is computed from them), so even the forgery cannot reach low
    assert forged["verdict"]["level"] == "inconclusive"
    assert forged["metrics"]["exact_copies"]["details"]["n_copies"] == N
    field = ("metrics", "exact_copies", "details", "excess_lower_bound")
    msg = _refused(copy.deepcopy(forged), field)
    assert "-0.25" in msg and "changed after it was made" in msg
    # the bound its counts give, by hand: 200 of 200 against 0 of 100 holdout records, Newcombe's lower end at
    # one-sided level 5% / 7 checks, halved between the check's two statistics (all copies, copies of training
    # uniques): 1 - sqrt((1 - l1)^2 + u0^2), Wilson's l1 = 200 / (200 + z^2) at a share of 1
    # and u0 = z^2 / (100 + z^2) at a share of 0
    details = copied["metrics"]["exact_copies"]["details"]
    assert details["baseline_share"] == 0.0 and details["n_baseline"] == 100
    z2 = NormalDist().inv_cdf(1 - 0.05 / 7 / 2) ** 2
    by_hand = 1 - math.sqrt((z2 / (N + z2)) ** 2 + (z2 / (100 + z2)) ** 2)
    given = float(re.search(r"statistics give ([0-9.e-]+)", msg).group(1))
    assert given == pytest.approx(by_hand, rel=1e-12) and given > 0.9
    assert isinstance(InconsistentReportError("x"), ValueError)  # every caller refusing bad input refuses it
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged), encoding="utf-8")
    for load in (from_json, ResultSet.from_json):
        with pytest.raises(InconsistentReportError) as info:
            load(path)
        assert str(path) in str(info.value) and "metrics.exact_copies.details.excess_lower_bound" in str(info.value)
    with pytest.raises(InconsistentReportError):
        report_data(copy.deepcopy(forged))


def test_a_share_of_200_percent_with_an_inverted_interval_is_refused(copied: dict[str, Any]) -> None:
    doc = copy.deepcopy(copied)
    doc["metrics"]["exact_copies"].update(value=2.0, interval=[0.9, 0.1])
    msg = _refused(regraded(doc), ("metrics", "exact_copies", "value"))
    assert "2.0" in msg and "outside the metric's range [0, 1]" in msg


E = ("metrics", "exact_copies")
NC = ("metrics", "near_copies")
HS = ("metrics", "holdout_dcr_share")
PS = ("metrics", "privacy_score")
DT = ("metrics", "dcr_test")
WC = ("metrics", "mia_worst_case")
DR = ("metrics", "mia_distance_ratio")


def _with(*edits: tuple[FieldPath, Any]) -> Callable[[dict[str, Any]], None]:
    def edit(doc: dict[str, Any]) -> None:
        for path, value in edits:
            _set(doc, path, value)

    return edit


#: (what the forger did, the edit, the field the refusal names)
FORGERIES = [
    ("an inverted interval", _with((E + ("interval",), [0.9, 0.1])), E + ("interval",)),
    ("an interval that leaves out its value", _with((E + ("interval",), [0.1, 0.2])), E + ("interval",)),
    ("a range widened to hold the value", _with((E + ("value_range",), [0.0, 2.0])), E + ("value_range",)),
    ("counts that do not give the share", _with((E + ("details", "n_copies"), 150)), E + ("value",)),
    ("a count that is not whole", _with((E + ("details", "n"), 200.5)), E + ("details", "n")),
    ("a baseline share above 1", _with((E + ("details", "baseline_share"), 1.5)),
     E + ("details", "baseline_share")),
    ("a holdout baseline given a design effect", _with((E + ("details", "baseline_design_effect"), 50.0)),
     E + ("details", "baseline_design_effect")),
    ("a baseline interval that leaves out its share", _with((E + ("details", "baseline_interval"), [0.5, 0.6])),
     E + ("details", "baseline_interval")),
    ("a stricter per-check level", _with((E + ("details", "check_alpha"), 1e-12)), E + ("details", "check_alpha")),
    ("the near-copy summary's bound", _with((E + ("details", "near_copies", "excess_lower_bound"), -0.3)),
     E + ("details", "near_copies", "excess_lower_bound")),
    ("near copies whose kinds do not add up", _with((NC + ("details", "n_exact"), 0)),
     NC + ("details", "n_near_copies")),
    ("the near copies' bound", _with((NC + ("details", "excess_lower_bound"), -0.3)),
     NC + ("details", "excess_lower_bound")),
    ("wins that do not give the share", _with((HS + ("details", "wins"), 0)), HS + ("value",)),
    ("the holdout share's bound", _with((HS + ("details", "lower_bound_for_level"), 0.2)),
     HS + ("details", "lower_bound_for_level")),
    ("a design effect below 1", _with((HS + ("details", "design_effect"), 0.5)), HS + ("details", "design_effect")),
    ("the privacy score's bound", _with((PS + ("details", "upper_bound_for_level"), 100.0)),
     PS + ("details", "upper_bound_for_level")),
    ("a lower bound above the difference it bounds", _with((PS + ("details", "f_ts_minus_f_tt_lower"), 0.9)),
     PS + ("details", "f_ts_minus_f_tt_lower")),
    ("a drop D its statistics do not give", _with((DT + ("details", "D"), 0.0)), DT + ("details", "D")),
    ("a bound of D above its 95% interval", _with((DT + ("details", "D_lower_bound_for_level"), 1e6)),
     DT + ("details", "D_lower_bound_for_level")),
    ("what chance allows an attack", _with((WC + ("details", "tpr_at", "0.01", "chance_allows"), 10 ** 6)),
     WC + ("details", "tpr_at", "0.01", "chance_allows")),
    ("the worst case's graded share", _with((WC + ("details", "excess_lower_bound"), -1.0)),
     WC + ("details", "excess_lower_bound")),
    ("the worst case tested at one attack's level", _with((WC + ("details", "check_alpha"), 0.05 / 7)),
     WC + ("details", "check_alpha")),
    ("members flagged that do not give the rate", _with((WC + ("details", "tpr_at", "0.01", "flagged_members"), 0)),
     WC + ("details", "tpr_at", "0.01", "tpr")),
    ("atypical records flagged beyond their number", _with((WC + ("details", "atypical", "0.01", "n_flagged"), 3)),
     WC + ("details", "atypical", "0.01", "n_flagged")),
    ("a most atypical group of another size", _with((WC + ("details", "atypical", "0.05", "n"), 20)),
     WC + ("details", "atypical", "0.05", "n")),
    ("atypical flags that do not add up to the members flagged",
     _with((WC + ("details", "atypical", "rest", "n_flagged"), 0)), WC + ("details", "atypical", "rest", "n_flagged")),
    ("the 5% flagging fewer than the 1% within it", _with((WC + ("details", "atypical", "0.05", "n_flagged"), 1)),
     WC + ("details", "atypical", "0.05", "n_flagged")),
    ("a chance that is not the rate times the count", _with((WC + ("details", "atypical", "0.05", "chance"), 5.0)),
     WC + ("details", "atypical", "0.05", "chance")),
    ("fewer top scores than counted", _with((WC + ("details", "top_scores", "10", "n"), 5)),
     WC + ("details", "top_scores", "10", "n")),
    ("more members among the top scores than records", _with((WC + ("details", "top_scores", "10", "n_members"),
                                                               10 ** 4)),
     WC + ("details", "top_scores", "10", "n_members")),
    ("an inverted rate interval", _with((DR + ("details", "tpr_at", "0.1", "tpr_interval"), [0.9, 0.1])),
     DR + ("details", "tpr_at", "0.1", "tpr_interval")),
    ("a true-positive rate of 200%", _with((DR + ("details", "tpr_at", "0.1", "tpr"), 2.0)),
     DR + ("details", "tpr_at", "0.1", "tpr")),
    ("an AUC above 1", _with((DR + ("details", "auc"), 1.5)), DR + ("details", "auc")),
    ("an AUC interval that leaves out the AUC", _with((DR + ("details", "auc_interval"), [0.0, 0.01])),
     DR + ("details", "auc_interval")),
    ("a negative distance", _with((("metrics", "dcr", "value"), -1.0)), ("metrics", "dcr", "value")),
    ("an interval that leaves out its value, on a metric graded on its value",
     _with((("metrics", "crp", "interval"), [0.0, 0.01])), ("metrics", "crp", "interval")),
    ("an excess over the calibration that is not the difference",
     _with((("metrics", "crp", "details", "excess_over_calibration"), 0.0)),
     ("metrics", "crp", "details", "excess_over_calibration")),
]


@pytest.mark.parametrize("what, edit, field", FORGERIES, ids=[f[0] for f in FORGERIES])
def test_each_forged_number_is_refused_naming_its_field(what: str, edit: Callable[[dict[str, Any]], None],
                                                         field: FieldPath, copied: dict[str, Any]) -> None:
    doc = copy.deepcopy(copied)
    edit(doc)
    _refused(regraded(doc), field)


def test_the_copies_most_atypical_records_are_all_flagged(copied: dict[str, Any]) -> None:
    # the release is the training data: the strongest attack flags every member, the most atypical among them
    at = copied["metrics"]["mia_worst_case"]["details"]["atypical"]
    assert (at["0.01"]["n"], at["0.05"]["n"], at["rest"]["n"]) == (2, 10, 190)
    assert all(at[g]["n_flagged"] == at[g]["n"] for g in ("0.01", "0.05", "rest"))


def test_the_graded_number_shown_beside_a_level_is_checked(copied: dict[str, Any]) -> None:
    doc = regraded(copy.deepcopy(copied))
    doc["metrics"]["exact_copies"]["level_rule"]["graded"] = -0.5  # "graded on -50 points", level left high
    _refused(with_digest(doc), E + ("level_rule", "graded"))


@pytest.mark.parametrize("what, edit, field", [
    ("a design effect above the number of baseline records",
     _with((E + ("details", "baseline_design_effect"), 10 ** 6)), E + ("details", "baseline_design_effect")),
    ("a raised near-copy bound", _with((NC + ("details", "excess_lower_bound"), 0.5)),
     NC + ("details", "excess_lower_bound")),
], ids=["design effect", "near-copy bound"])
def test_forgeries_without_a_holdout_are_refused(what: str, edit: Callable[[dict[str, Any]], None], field: FieldPath,
                                                 no_holdout: dict[str, Any]) -> None:
    doc = copy.deepcopy(no_holdout)
    edit(doc)
    _refused(regraded(doc), field)


def test_the_reasons_printed_under_the_verdict_are_checked(copied: dict[str, Any]) -> None:
    doc = copy.deepcopy(copied)
    assert doc["verdict"]["reasons"]  # a high verdict says which checks fired
    doc["verdict"]["reasons"] = ["High risk from Exact copies: no synthetic record copies a training record."]
    msg = _refused(with_digest(doc), ("verdict", "reasons", 0))
    assert "no synthetic record copies" in msg
