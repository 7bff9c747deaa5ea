"""A report drawn from JSON is checked, not trusted.

Regressions (issue 23): ``ResultSet.from_json`` checked types only, so a report edited to show a copied data set
graded "low" under a "low" verdict was drawn again as a LOW RISK report; a damaged report with ``meta`` of the
wrong type ended in a bare TypeError; an accidental edit went unnoticed.

Every level and the verdict are derived again from the stored values, intervals and details by the registry's
level rules (nothing here names a metric's rule: the toy metric below grades on a p-value in its details, as the
verdict's statistical tests do), and the document's SHA-256 digest of its content is checked on load.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from _support.pdf import pdf_text

from synthpriv_report import Evaluation, InconsistentReportError
from synthpriv_report.core.registry import (
    Computation,
    Grading,
    LevelSpec,
    MetricSpec,
    Presentation,
    Words,
    get_spec,
    register,
    unregister,
)
from synthpriv_report.core.results import MetricResult, ResultSet
from synthpriv_report.datasets import load_demo
from synthpriv_report.export import from_json, render_html, report_data
from synthpriv_report.export.document import content_digest, with_digest
from synthpriv_report.grading.levels import apply_level
from synthpriv_report.grading.verdict import compute_verdict

METRICS = ["exact_copies", "dcr", "holdout_dcr_share"]
DRIVING = ["exact_copies", "holdout_dcr_share"]
#: The verdict of the honest report below: no risk shown, not every risk ruled out at these sizes.
HONEST = "inconclusive"


def _evaluation(synthetic_rows: Any) -> Evaluation:
    demo = load_demo()
    return Evaluation(demo.real.iloc[:200], synthetic_rows, demo.holdout.iloc[:100], metrics=METRICS,
                      verdict_metrics=DRIVING, random_state=0, progress=False)


@pytest.fixture(scope="module")
def honest() -> dict[str, Any]:
    demo = load_demo()
    doc = _evaluation(demo.synthetic.iloc[:200]).to_json()
    # 200 fresh records against 100 holdout records show no risk, but are too few to rule every risk out
    assert doc["verdict"]["level"] == HONEST
    return doc


@pytest.fixture(scope="module")
def copied() -> dict[str, Any]:
    demo = load_demo()
    doc = _evaluation(demo.real.iloc[:200].copy()).to_json()  # every synthetic record a copy: high risk
    assert doc["metrics"]["exact_copies"]["level"] == "high" and doc["verdict"]["level"] == "high"
    return doc


def _forged(doc: dict[str, Any]) -> dict[str, Any]:
    """The forger's last step: a digest made again for the edited content (a digest is not a signature)."""
    return with_digest(doc)


def _refused(doc: dict[str, Any], *fragments: str) -> str:
    with pytest.raises(ValueError) as info:
        from_json(doc)
    assert type(info.value) in (ValueError, InconsistentReportError)
    msg = str(info.value)
    for f in fragments:
        assert f in msg, msg
    return msg


def test_live_reports_load_again(honest: dict[str, Any], copied: dict[str, Any]) -> None:
    assert from_json(honest).verdict.level == HONEST
    assert from_json(copied).verdict.level == "high"


def test_copies_relabelled_low_under_a_low_verdict_are_refused(copied: dict[str, Any]) -> None:
    doc = copy.deepcopy(copied)
    for m in doc["metrics"].values():
        if m["level"] is not None:
            m["level"] = "low"
    doc["verdict"].update(level="low", reasons=[],
                          checks=[{**c, "level": "low" if c["level"] else None} for c in doc["verdict"]["checks"]])
    msg = _refused(_forged(doc), "metrics.exact_copies.level", "'low'", "'high'")
    assert "changed after it was made" in msg


def test_a_copied_result_pasted_into_an_honest_report_is_refused(honest: dict[str, Any],
                                                                copied: dict[str, Any]) -> None:
    doc = copy.deepcopy(honest)
    doc["metrics"]["exact_copies"] = {**copied["metrics"]["exact_copies"], "level": "low"}
    _refused(_forged(doc), "metrics.exact_copies.level")


def test_a_lowered_verdict_over_a_high_check_is_refused(copied: dict[str, Any]) -> None:
    doc = copy.deepcopy(copied)
    doc["verdict"]["level"] = "low"
    _refused(_forged(doc), "verdict.level", "'low'", "'high'")
    doc["verdict"]["checks"] = [{**c, "level": "low"} for c in doc["verdict"]["checks"]]
    _refused(_forged(doc), "verdict.checks", "exact_copies")


def test_a_check_dropped_from_the_verdict_is_refused(copied: dict[str, Any]) -> None:
    doc = copy.deepcopy(copied)
    doc["verdict"]["checks"] = [c for c in doc["verdict"]["checks"] if c["metric"] != "exact_copies"]
    _refused(_forged(doc), "verdict.checks", "verdict_metrics")


def test_relaxed_user_thresholds_written_in_afterwards_are_refused(honest: dict[str, Any]) -> None:
    ev = _evaluation(load_demo().synthetic.iloc[:200])
    strict = ev.to_json(levels={"holdout_dcr_share": {"medium": 0.0, "high": 0.0}})
    assert from_json(strict)["holdout_dcr_share"].level == "high"  # a report made with overrides loads
    doc = copy.deepcopy(strict)
    doc["params"]["levels"] = None  # the overrides removed, the levels they gave kept
    _refused(_forged(doc), "metrics.holdout_dcr_share.level")


def test_a_value_that_is_no_longer_a_finite_number_is_refused(honest: dict[str, Any]) -> None:
    doc = copy.deepcopy(honest)
    doc["params"]["levels"] = {"dcr": {"medium": "lots"}}
    _refused(_forged(doc), "params.levels")


def test_an_accidental_edit_is_caught_by_the_digest(honest: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    text = json.dumps(honest, indent=2)
    path.write_text(text, encoding="utf-8")
    assert from_json(path).verdict.level == HONEST
    title = honest["metrics"]["dcr"]["title"]
    path.write_text(text.replace(title, title + " (edited)", 1), encoding="utf-8")
    msg = _refused_path(path)
    assert "digest" in msg and "not match" in msg


def _refused_path(path: Path) -> str:
    with pytest.raises(ValueError) as info:
        from_json(path)
    assert str(path) in str(info.value)
    return str(info.value)


def test_digest_is_of_the_canonical_content(honest: dict[str, Any]) -> None:
    assert honest["digest"]["algorithm"] == "sha256"
    assert honest["digest"]["value"] == content_digest(honest)
    shuffled = dict(reversed(list(honest.items())))
    assert content_digest(shuffled) == content_digest(honest)
    assert from_json(json.loads(json.dumps(shuffled, indent=7))).verdict.level == HONEST


def test_the_cover_shows_the_digest(honest: dict[str, Any]) -> None:
    html = render_html(from_json(honest))
    value = honest["digest"]["value"]
    assert " ".join(value[i:i + 8] for i in range(0, 64, 8)) in html
    assert "not a signature" in html


def test_the_pdf_cover_shows_the_digest(honest: dict[str, Any]) -> None:
    from synthpriv_report.export import html_to_pdf

    pdf = html_to_pdf(render_html(from_json(honest)), engine="weasyprint")
    pages = ["".join(p.split()) for p in pdf_text(pdf).split("\f")]
    # every page of the dossier at its foot, and the annex's cover, which says what the digest is
    assert all(honest["digest"]["value"] in p for p in pages[:4])
    cover = "".join(pages[4:6])
    assert honest["digest"]["value"] in cover and "notasignature" in cover


def test_the_written_json_and_the_cover_carry_one_digest(tmp_path: Path) -> None:
    from synthpriv_report.export import write_reports

    ev = _evaluation(load_demo().synthetic.iloc[:200])
    write_reports(ev, html=tmp_path / "r.html", json=tmp_path / "r.json")
    doc = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert doc["digest"]["value"] == content_digest(doc)
    assert doc["digest"]["value"][:8] in (tmp_path / "r.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("where, value", [
    ("meta", 5), ("meta", "x"), ("meta", []), ("meta", True), ("meta.sets", "x"), ("meta.sets", [1]),
    ("meta.columns", [1]), ("meta.columns", {"a": 1}), ("meta.searches", "many"), ("meta.key_fields", "age"),
    ("meta.data_notes", [None]), ("meta.records_at_risk", 3), ("meta.settings", []), ("meta.versions", {"x": 1}),
    ("settings.verdict_metrics", "exact_copies"), ("settings.default_params", 2), ("params.levels", []),
    ("params.levels", {"dcr": 1}), ("digest", "abc"), ("digest", {"algorithm": "md5", "value": "0" * 64}),
    ("digest", {"algorithm": "sha256", "value": "xyz"}),
])
def test_fields_of_the_wrong_type_are_named_never_a_bare_type_error(where: str, value: Any,
                                                                   honest: dict[str, Any]) -> None:
    doc = copy.deepcopy(honest)
    node = doc
    *parents, last = where.split(".")
    for p in parents:
        node = node[p]
    node[last] = value
    doc.pop("digest", None) if where != "digest" else None
    with pytest.raises(ValueError) as info:
        from_json(doc)
    assert type(info.value) in (ValueError, InconsistentReportError)
    assert where in str(info.value)


# ---------------------------------------------------------------------------------------------------------------
# the re-derivation is generic: a metric whose rule reads a p-value from its details


def _p_rule(result: MetricResult) -> str:
    p = result.details["p_value"]
    return "high" if p < 0.001 else "medium" if p < 0.05 else "low"


TOY = MetricSpec(
    name="toy_test",
    computation=Computation(compute=lambda ctx, params: None),  # never computed here
    grading=Grading(
        direction="higher_is_riskier", value_range=(0.0, 1.0),
        level=LevelSpec(None, None, source="a test of this package", description="on a p-value",
                        scale="the p-value", rule=_p_rule)),
    presentation=Presentation(
        title="Toy test", section="toy", group="holdout", words=Words(measures="a toy", high_means="risky", ideal="0")),
)


@pytest.fixture()
def toy() -> Any:
    register(TOY)
    yield get_spec("toy_test")
    unregister("toy_test")


def _toy_document(spec: MetricSpec, p_value: float) -> dict[str, Any]:
    raw = MetricResult("toy_test", 0.4, interval=(0.3, 0.5), direction="higher_is_riskier", title="Toy test",
                       details={"p_value": p_value, "n": 100})
    graded = apply_level(spec, raw, None)
    verdict = compute_verdict({"toy_test": graded}, ["toy_test"])
    return report_data(ResultSet({"toy_test": graded}, verdict, {"levels": None})).to_dict()


def test_a_rule_reading_details_is_applied_again(toy: MetricSpec) -> None:
    doc = _toy_document(toy, 1e-6)
    assert doc["metrics"]["toy_test"]["level"] == "high" and doc["verdict"]["level"] == "high"
    assert from_json(doc).verdict.level == "high"
    forged = copy.deepcopy(doc)
    forged["metrics"]["toy_test"]["details"]["p_value"] = 0.5  # the evidence edited, the level kept
    _refused(_forged(forged), "metrics.toy_test.level", "'high'", "'low'")
    forged = copy.deepcopy(doc)
    forged["metrics"]["toy_test"]["level"] = "low"
    forged["verdict"]["level"] = "low"
    forged["verdict"]["checks"] = [{"metric": "toy_test", "level": "low"}]
    _refused(_forged(forged), "metrics.toy_test.level")


def test_a_metric_this_version_does_not_know_cannot_carry_a_level(toy: MetricSpec) -> None:
    doc = _toy_document(toy, 1e-6)
    unregister("toy_test")
    try:
        _refused(doc, "toy_test", "not one this version")
    finally:
        register(TOY)


@pytest.mark.parametrize("leaky, holdout", [(True, True), (False, False)])
def test_every_registered_metric_of_a_live_report_checks_out_after_a_json_round_trip(leaky: bool,
                                                                                     holdout: bool) -> None:
    """The guard for any level rule: what a rule reads must survive JSON (NaN becomes null, tuples lists)."""
    from synthpriv_report.core.registry import metric_names

    demo = load_demo()
    syn = demo.synthetic_leaky if leaky else demo.synthetic
    ev = Evaluation(demo.real.iloc[:300], syn.iloc[:300], demo.holdout.iloc[:150] if holdout else None,
                    key_fields=list(demo.key_fields), sensitive_fields=list(demo.sensitive_fields),
                    random_state=0, progress=False, n_bootstrap=50)
    doc = ev.to_json()
    assert set(doc["metrics"]) == set(metric_names())
    loaded = from_json(json.loads(json.dumps(doc)))
    assert loaded.verdict.level == doc["verdict"]["level"]
    assert {n: r.level for n, r in loaded.results.items()} == {n: m["level"] for n, m in doc["metrics"].items()}


def test_a_genuine_report_whose_columns_are_named_like_counts_and_shares_loads() -> None:
    """Details keyed by column (a tolerance per column, a risk per sensitive field) may use any name: a column
    named ``n`` with a tolerance of 0.13, or ``share`` with values far above 1, is not a count or a share."""
    from _support.frames import mixed

    real, synthetic, holdout = (f.rename(columns={"x": "n", "y": "share", "c": "tpr"}) for f in mixed(60, 3, copied=6))
    # the tolerances are in a report only where real values may be shown
    ev = Evaluation(real, synthetic, holdout, key_fields=["tpr", "n"], sensitive_fields=["share"], random_state=0,
                    progress=False, reveal_real_values=True,
                    metrics=["exact_copies", "near_copies", "hitting_rate", "gcap", "identifiability",
                             "inference_risk"],
                    verdict_metrics=["exact_copies", "near_copies"])
    doc = json.loads(json.dumps(ev.to_json()))
    tolerances = doc["metrics"]["hitting_rate"]["details"]["tolerances"]
    assert tolerances["n"] != int(tolerances["n"])  # a column's tolerance that is no whole number of records
    loaded = from_json(doc)
    assert {n: r.level for n, r in loaded.results.items()} == {n: m["level"] for n, m in doc["metrics"].items()}
