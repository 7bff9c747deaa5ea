"""Tests of :mod:`synthpriv_report.core.release`: the release context's schema, version 2 (``data_assessment``) and
version 1 (still read, written out as version 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from synthpriv_report.core.release import (
    CONTEXT_SCHEMA,
    CONTEXT_SCHEMA_ID,
    CONTEXT_SCHEMA_ID_V1,
    CONTEXT_SCHEMA_V1,
    MAX_SHORT,
    load_context,
    validate_context,
)

FULL = {
    "data_subjects": "adult patients of three hospitals",
    "source": "electronic health records, extracted 2025-01-10",
    "period": "2019-2024",
    "coverage": "sample",
    "special_category_fields": ["diagnosis", "ethnicity"],
    "lawful_basis": "Art. 6(1)(e) and Art. 9(2)(j) GDPR",
    "dpia_reference": "DPIA-2025-007",
    "safeguards": ["licence forbids re-identification", "access by named researchers only"],
    "dpo_contact": "dpo@example.org",
    "organisation_role": "controller",
}


def test_the_identifiers_and_the_schemas_name_their_versions() -> None:
    assert CONTEXT_SCHEMA_ID == "synthpriv_report.context/2" and CONTEXT_SCHEMA_ID_V1 == "synthpriv_report.context/1"
    assert CONTEXT_SCHEMA["$id"].endswith("context-2.json") and CONTEXT_SCHEMA_V1["$id"].endswith("context-1.json")
    assert "data_assessment" in CONTEXT_SCHEMA["properties"]
    assert "data_assessment" not in CONTEXT_SCHEMA_V1["properties"]
    # version 2 is version 1 and one more field
    assert set(CONTEXT_SCHEMA["properties"]) - set(CONTEXT_SCHEMA_V1["properties"]) == {"data_assessment"}


def test_every_data_assessment_field_is_accepted_and_kept() -> None:
    got = validate_context({"purpose": "research", "data_assessment": FULL})
    assert got["schema"] == CONTEXT_SCHEMA_ID and got["data_assessment"] == FULL
    assert validate_context({"data_assessment": {}})["data_assessment"] == {}
    for role in ("processor", "joint_controller"):
        assert validate_context({"data_assessment": {"organisation_role": role}})


@pytest.mark.parametrize(("assessment", "message"), [
    ({"data_subject": "x"}, 'context.data_assessment: unknown field "data_subject" (known fields: coverage, '),
    ({"coverage": "most"}, 'context.data_assessment.coverage must be one of "sample", "population", "unknown"'),
    ({"organisation_role": "owner"}, "context.data_assessment.organisation_role must be one of \"controller\""),
    ({"coverage": None}, "context.data_assessment.coverage must be one of"),
    ({"data_subjects": "x" * 4001}, "context.data_assessment.data_subjects is longer than 4000 characters"),
    ({"lawful_basis": "x" * 4001}, "context.data_assessment.lawful_basis is longer than 4000 characters"),
    ({"period": "x" * (MAX_SHORT + 1)}, "context.data_assessment.period is longer than 400 characters"),
    ({"dpia_reference": "x" * (MAX_SHORT + 1)}, "context.data_assessment.dpia_reference is longer than 400"),
    ({"special_category_fields": ["x" * (MAX_SHORT + 1)]},
     r"context.data_assessment.special_category_fields[0] is longer than 400"),
    ({"special_category_fields": ["c"] * 51}, "context.data_assessment.special_category_fields holds more than 50"),
    ({"special_category_fields": "diagnosis"}, "context.data_assessment.special_category_fields must be an array"),
    ({"safeguards": ["ok", "x" * 4001]}, r"context.data_assessment.safeguards[1] is longer than 4000"),
    ({"dpo_contact": 3}, "context.data_assessment.dpo_contact must be a string"),
])
def test_a_bad_data_assessment_is_refused_naming_the_field(assessment: dict, message: str) -> None:
    with pytest.raises(ValueError) as info:
        validate_context({"data_assessment": assessment})
    assert message in str(info.value)


def test_limits_are_inclusive_as_for_the_other_fields() -> None:
    ok = {"data_subjects": "x" * 4000, "period": "x" * MAX_SHORT, "special_category_fields": ["c"] * 50}
    assert validate_context({"data_assessment": ok})["data_assessment"] == ok


def test_data_assessment_must_be_an_object() -> None:
    with pytest.raises(ValueError, match="context.data_assessment must be an object"):
        validate_context({"data_assessment": ["coverage"]})


def test_a_version_1_context_is_still_read_and_written_out_as_version_2(tmp_path: Path) -> None:
    old = {"schema": CONTEXT_SCHEMA_ID_V1, "purpose": "teaching", "release_mode": "public",
           "decision": {"outcome": "release", "next_review": "2027-06-01"}}
    got = validate_context(old)
    assert got["schema"] == CONTEXT_SCHEMA_ID
    assert {k: v for k, v in got.items() if k != "schema"} == {k: v for k, v in old.items() if k != "schema"}
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old), encoding="utf-8")
    assert load_context(path) == got
    # a context naming no schema is read as the current version
    assert validate_context({"purpose": "teaching"})["schema"] == CONTEXT_SCHEMA_ID
    # validating a validated context again changes nothing
    assert validate_context(got) == got


def test_a_version_1_context_cannot_hold_a_data_assessment() -> None:
    with pytest.raises(ValueError) as info:
        validate_context({"schema": CONTEXT_SCHEMA_ID_V1, "data_assessment": {"coverage": "sample"}})
    assert str(info.value).startswith('context.data_assessment is a field of schema "synthpriv_report.context/2"')
    # its other fields are still checked against version 1
    with pytest.raises(ValueError, match='unknown field "purpse"'):
        validate_context({"schema": CONTEXT_SCHEMA_ID_V1, "purpse": "x"})


@pytest.mark.parametrize("schema", ["synthpriv_report.context/3", "synthpriv_report.context/0", 1, None,
                                    ["synthpriv_report.context/1"]])
def test_an_unknown_schema_identifier_is_refused_naming_both_known_ones(schema: object) -> None:
    with pytest.raises(ValueError) as info:
        validate_context({"schema": schema})
    assert str(info.value) == ('context.schema must be one of "synthpriv_report.context/1", '
                               '"synthpriv_report.context/2"')
