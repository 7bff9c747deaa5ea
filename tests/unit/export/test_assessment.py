"""Tests of :mod:`synthpriv_report.export.assessment` and its template ``assessment.html.j2``: the data assessment
rows, the warnings on column names that look like special-category data, on a whole-population release and on a
missing DPIA, and the escaping of the user's strings."""

from __future__ import annotations

from typing import Any

import pytest
from _support.page_text import PageParser

from synthpriv_report.export import dossier
from synthpriv_report.export.assessment import (
    NOT_STATED,
    SPECIAL_CATEGORY_WORDS,
    assessment_lines,
    column_words,
    data_assessment_context,
    special_category_of,
)
from synthpriv_report.export.templating import render

COLUMNS = ["race", "sex", "health_status", "HeartDisease", "religion"]


def _doc(assessment: dict[str, Any] | None = None, *, keys: list[str] | None = None,
         sensitive: list[str] | None = None, columns: list[str] = COLUMNS) -> dict[str, Any]:
    context = {"schema": "synthpriv_report.context/2"}
    if assessment is not None:
        context["data_assessment"] = assessment
    return {"context": context,
            "meta": {"key_fields": keys or [], "sensitive_fields": sensitive or [],
                     "columns": [{"name": c, "kind": "categorical"} for c in columns]}}


def _warned_columns(a: dict[str, Any]) -> list[str]:
    return [w.split('"')[1] for w in a["warnings"] if w.startswith("The column ")]


def test_column_names_are_split_into_whole_words() -> None:
    assert column_words("HeartDisease") == ["heart", "disease"]
    assert column_words("health_status") == ["health", "status"]
    assert column_words("trade-union member") == ["trade", "union", "member"]
    assert column_words("BMIValue2") == ["bmi", "value", "2"]


def test_the_issue_columns_warn_on_race_health_heart_disease_and_religion_but_not_sex() -> None:
    a = data_assessment_context(_doc({}))
    assert _warned_columns(a) == ["race", "health_status", "HeartDisease", "religion"]
    by_column = {w.split('"')[1]: w for w in a["warnings"] if w.startswith("The column ")}
    assert "racial or ethnic origin" in by_column["race"]
    assert "data concerning health" in by_column["health_status"]
    assert "data concerning health" in by_column["HeartDisease"]
    assert "religious or philosophical beliefs" in by_column["religion"]
    assert all("GDPR Art. 9(1)" in w for w in by_column.values())


@pytest.mark.parametrize("name", ["sex", "gender", "Sex", "GENDER", "sex_code", "racetrack", "disposition",
                                  "unhealthy_snacks_bought", "reunion_count", "age", "income"])
def test_names_that_are_not_special_category_by_a_whole_word_do_not_warn(name: str) -> None:
    assert special_category_of(name) is None


@pytest.mark.parametrize(("name", "category"), [
    ("Ethnicity", "racial or ethnic origin"), ("political_party", "political opinions"),
    ("ReligiousAffiliation", "religious or philosophical beliefs"), ("trade_union", "trade-union membership"),
    ("dna_sample_id", "genetic data"), ("fingerprint_hash", "biometric data"),
    ("DIAGNOSIS", "data concerning health"), ("disability-status", "data concerning health"),
    ("sexual orientation", "sex life or sexual orientation"), ("sex_life", "sex life or sexual orientation"),
    ("prior_convictions", "criminal convictions and offences (GDPR Art. 10)"),
])
def test_each_category_is_found_case_insensitively(name: str, category: str) -> None:
    got = special_category_of(name)
    assert got is not None and got.startswith(category)


def test_every_category_cites_its_article_and_no_list_holds_sex_or_gender() -> None:
    assert all(c.endswith(("(GDPR Art. 9(1))", "(GDPR Art. 10)")) for c in SPECIAL_CATEGORY_WORDS)
    terms = {t for ts in SPECIAL_CATEGORY_WORDS.values() for t in ts}
    assert not terms & {"sex", "gender"}
    assert all(t == t.lower().strip() for t in terms)


def test_declared_special_category_fields_are_not_warned_about() -> None:
    a = data_assessment_context(_doc({"special_category_fields": ["race", "Health_Status", " religion "],
                                      "dpia_reference": "DPIA-1"}))
    assert _warned_columns(a) == ["HeartDisease"]
    everything = data_assessment_context(_doc({"special_category_fields": COLUMNS, "dpia_reference": "DPIA-1"}))
    assert everything["warnings"] == []


def test_key_and_sensitive_fields_are_named_with_their_role_once_each() -> None:
    a = data_assessment_context(_doc({"dpia_reference": "D"}, keys=["race", "age"], sensitive=["HeartDisease"],
                                     columns=["age", "race", "HeartDisease", "religion"]))
    warned = [w for w in a["warnings"] if w.startswith("The column ")]
    assert [w.split('"')[1] for w in warned] == ["race", "HeartDisease", "religion"]
    assert "(a key field)" in warned[0] and "(a sensitive field)" in warned[1] and "(an analysed column)" in warned[2]


def test_a_whole_population_release_is_warned_about_in_plain_words() -> None:
    a = data_assessment_context(_doc({"coverage": "population"}, columns=["age"]))
    assert len(a["warnings"]) == 1
    assert "whole population" in a["warnings"][0] and "record was used" in a["warnings"][0]
    for coverage in ("sample", "unknown"):
        assert data_assessment_context(_doc({"coverage": coverage}, columns=["age"]))["warnings"] == []


def test_special_category_data_without_a_dpia_reference_is_warned_about() -> None:
    declared_only = data_assessment_context(_doc({"special_category_fields": ["notes"]}, columns=["age", "notes"]))
    assert len(declared_only["warnings"]) == 1
    assert "Article 35" in declared_only["warnings"][0] and "normally required" in declared_only["warnings"][0]
    detected_only = data_assessment_context(_doc({}, columns=["age", "diagnosis"]))
    assert sum("Article 35" in w for w in detected_only["warnings"]) == 1
    with_dpia = data_assessment_context(_doc({"special_category_fields": ["diagnosis"], "dpia_reference": "D-7"},
                                             columns=["age", "diagnosis"]))
    assert with_dpia["warnings"] == []
    nothing = data_assessment_context(_doc({}, columns=["age", "income"]))
    assert nothing["warnings"] == []


def test_rows_say_not_stated_and_render_each_stated_field() -> None:
    empty = data_assessment_context(_doc(None, columns=[]))
    assert empty["given"] is False and len(empty["rows"]) == 10
    assert all(text == NOT_STATED == dossier.NOT_STATED for _, text in empty["rows"])
    full = data_assessment_context(_doc({
        "data_subjects": "patients", "source": "hospital records", "period": "2020-2024", "coverage": "sample",
        "special_category_fields": ["diagnosis", "ethnicity"], "lawful_basis": "Art. 9(2)(j)",
        "dpia_reference": "DPIA-7", "safeguards": ["licence", "access control"], "dpo_contact": "dpo@x.org",
        "organisation_role": "joint_controller"}, columns=[]))
    rows = dict(full["rows"])
    assert full["given"] is True and NOT_STATED not in rows.values()
    assert rows["Data subjects (who the people in the data are)"] == "patients"
    assert rows["Training data: sample or whole population"] == "a sample of the population"
    assert rows["Lawful basis"] == "Art. 9(2)(j)"
    assert rows["Other safeguards"] == "licence; access control"
    assert rows["Contact of the data protection officer"] == "dpo@x.org"
    assert rows["The organisation acts as"].startswith("joint controller")
    assert any(label.startswith("Special-category data (GDPR Art. 9)") and text == "diagnosis; ethnicity"
               for label, text in full["rows"])
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in full["rows"])


def test_a_version_1_context_or_none_gives_rows_and_still_checks_the_columns() -> None:
    for context in ({"schema": "synthpriv_report.context/1", "purpose": "x"}, None):
        a = data_assessment_context({"context": context, "meta": {"columns": [{"name": "religion"}]}})
        assert a["given"] is False and all(v == NOT_STATED for _, v in a["rows"])
        assert _warned_columns(a) == ["religion"]


def test_the_template_escapes_the_users_strings_and_uses_the_report_classes() -> None:
    hostile = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    a = data_assessment_context(_doc({"data_subjects": hostile, "coverage": "population"},
                                     columns=["race", "<b>religion</b>"]))
    page = render("assessment.html.j2", a=a)
    assert "<script" not in page and "<img" not in page and "<b>" not in page
    assert "&lt;script&gt;" in page
    parsed = PageParser()
    parsed.feed(page)
    tags = [t for t, _ in parsed.tags]
    assert tags[0] == "section" and "spr-assessment" in (parsed.tags[0][1]["class"] or "").split()
    assert "script" not in tags and "img" not in tags and "b" not in tags
    assert any(t == "table" and attrs.get("class") == "spr-decision-table" for t, attrs in parsed.tags)
    cautions = [attrs for t, attrs in parsed.tags if attrs.get("class") == "spr-cover-caution"]
    assert len(cautions) == len(a["warnings"]) == 4  # race, religion, the population, the DPIA
    text = "".join(parsed.text)
    assert "Data assessment" in text and hostile in text  # shown as text, whole
    assert "<h3>Data assessment</h3>" in page


def test_a_long_text_is_shortened_with_its_full_text_kept_in_a_title() -> None:
    long = "word " * 300
    page = render("assessment.html.j2", a=data_assessment_context(_doc({"source": long}, columns=[])))
    assert 'class="spr-short"' in page and page.count("word") > 300  # shown cut, whole in the title attribute


def test_the_plain_text_lines_hold_every_row_and_warning() -> None:
    a = data_assessment_context(_doc({"coverage": "population"}, columns=["race"]))
    lines = assessment_lines(a)
    assert lines[0] == "Data assessment"
    assert len(lines) == 1 + len(a["rows"]) + len(a["warnings"])
    assert "Training data: sample or whole population: the whole population" in lines
    assert sum(line.startswith("Warning: ") for line in lines) == 3
