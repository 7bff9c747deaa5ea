"""Reports and release contexts across the context's schema versions: a report saved with a version-1 context
(``synthpriv_report.context/1``) still loads and renders; a version-2 context's data assessment is kept in the
JSON report, and read from it by :func:`~synthpriv_report.export.assessment.data_assessment_context`."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pandas as pd
import pytest

from synthpriv_report import Evaluation
from synthpriv_report.core.release import CONTEXT_SCHEMA_ID, CONTEXT_SCHEMA_ID_V1
from synthpriv_report.export import from_json, render_html
from synthpriv_report.export.assessment import data_assessment_context
from synthpriv_report.export.document import content_digest, load_document
from synthpriv_report.export.schema import JSON_SCHEMA

CONTEXT = {"purpose": "Teaching statistics with an old context", "release_mode": "restricted",
           "generator": {"name": "Gaussian copula", "version": "SDV 1.2"}}
ASSESSMENT = {"data_subjects": "patients of a teaching hospital", "coverage": "sample",
              "special_category_fields": ["religion"], "organisation_role": "controller"}


def _frame(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "race": rng.choice(["a", "b", "c"], n), "sex": rng.choice(["f", "m"], n),
        "health_status": rng.choice(["good", "fair", "poor"], n), "HeartDisease": rng.integers(0, 2, n),
        "religion": rng.choice(["x", "y", "z"], n), "age": rng.integers(18, 90, n)})


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    ev = Evaluation(_frame(80, 0), _frame(80, 1), key_fields=["race", "sex", "age"],
                    sensitive_fields=["health_status"], metrics=["exact_copies"], progress=False, calibrate=False,
                    context={**CONTEXT, "data_assessment": ASSESSMENT})
    return ev.to_json()


def _as_version_1(doc: dict[str, Any]) -> dict[str, Any]:
    """The document as the previous version wrote it: the same context under the version-1 identifier."""
    old = copy.deepcopy(doc)
    old["context"] = {**{k: v for k, v in old["context"].items() if k != "data_assessment"},
                      "schema": CONTEXT_SCHEMA_ID_V1}
    old["digest"]["value"] = content_digest(old)
    return old


def test_the_json_report_keeps_the_data_assessment_under_the_new_identifier(document: dict[str, Any]) -> None:
    assert document["context"]["schema"] == CONTEXT_SCHEMA_ID
    assert document["context"]["data_assessment"] == ASSESSMENT
    jsonschema.validate(document, JSON_SCHEMA)


def test_the_assessment_read_from_a_real_report_warns_on_the_undeclared_columns(document: dict[str, Any]) -> None:
    a = data_assessment_context(document)
    warned = [w.split('"')[1] for w in a["warnings"] if w.startswith("The column ")]
    # religion is declared; sex is not special-category data by itself; age is not either
    assert warned == ["race", "health_status", "HeartDisease"]
    assert sum("Article 35" in w for w in a["warnings"]) == 1  # no DPIA reference given
    assert dict(a["rows"])["Data subjects (who the people in the data are)"] == "patients of a teaching hospital"


def test_a_report_saved_with_a_version_1_context_still_loads_and_renders(document: dict[str, Any],
                                                                         tmp_path: Path) -> None:
    old = _as_version_1(document)
    jsonschema.validate(old, JSON_SCHEMA)
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old, indent=2), encoding="utf-8")
    loaded = load_document(path)
    # the report's context is kept as it was written, not rewritten (its digest covers it)
    assert loaded["context"]["schema"] == CONTEXT_SCHEMA_ID_V1 and loaded["context"]["purpose"] == CONTEXT["purpose"]
    report = from_json(path)
    page = render_html(report)
    assert "Teaching statistics with an old context" in page and "Gaussian copula" in page
    # saved again and read again
    again = tmp_path / "again.json"
    report.to_json(again)
    assert load_document(again)["context"]["schema"] == CONTEXT_SCHEMA_ID_V1
    a = data_assessment_context(loaded)
    assert a["given"] is False and [w.split('"')[1] for w in a["warnings"] if w.startswith("The column ")] == [
        "race", "health_status", "HeartDisease", "religion"]


def test_a_version_1_context_holding_a_data_assessment_is_refused_by_name(document: dict[str, Any],
                                                                          tmp_path: Path) -> None:
    forged = copy.deepcopy(document)
    forged["context"]["schema"] = CONTEXT_SCHEMA_ID_V1
    forged["digest"]["value"] = content_digest(forged)
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged), encoding="utf-8")
    with pytest.raises(ValueError, match=r"context\.data_assessment is a field of schema "
                                         r"\"synthpriv_report\.context/2\""):
        load_document(path)
