"""Damaged and foreign JSON documents: each either loads and renders, or is refused with a ``ValueError`` that
names the field (never a bare KeyError/TypeError/AttributeError from inside the renderer).

Regression: 17 of 39 damaged or foreign documents ended in a bare exception from the renderer, and a document of a
future schema version was drawn as if it were ours.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from synthpriv_report import Evaluation, InconsistentReportError
from synthpriv_report.datasets import load_demo
from synthpriv_report.export import SCHEMA, build_notebook, from_json, render_html, report_data, validate_document
from synthpriv_report.export.schema import JSON_SCHEMA

OK = None


@pytest.fixture(scope="module")
def base() -> dict[str, Any]:
    demo = load_demo()
    ev = Evaluation(demo.real.iloc[:200], demo.synthetic.iloc[:200], demo.holdout.iloc[:100],
                    key_fields=demo.key_fields, sensitive_fields=demo.sensitive_fields,
                    metrics=["exact_copies", "dcr", "holdout_dcr_share"], random_state=0, progress=False)
    return ev.to_json()


def _set(path: str, value: Any) -> Callable[[dict], dict]:
    """A mutation setting ``path`` (dots; ``metrics.dcr.value``) to ``value``."""
    def mutate(doc: dict) -> dict:
        *parents, last = path.split(".")
        node: Any = doc
        for p in parents:
            node = node[int(p)] if isinstance(node, list) else node[p]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
        return doc
    return mutate


def _drop(path: str) -> Callable[[dict], dict]:
    def mutate(doc: dict) -> dict:
        *parents, last = path.split(".")
        node: Any = doc
        for p in parents:
            node = node[p]
        del node[last]
        return doc
    return mutate


def _text(text: str) -> Callable[[dict], str]:
    return lambda doc: text


def _replace_text(old: str, new: str) -> Callable[[dict], str]:
    return lambda doc: json.dumps(doc).replace(old, new, 1)


# (id, mutation of the valid document (a dict, or the raw text of the file), fragment of the error or OK)
CASES: list[tuple[str, Callable[[dict], Any], str | None]] = [
    ("truncated", lambda d: json.dumps(d)[: len(json.dumps(d)) // 2], "not valid JSON"),
    ("empty file", _text(""), "not valid JSON"),
    ("not json at all", _text("<html>report</html>"), "not valid JSON"),
    ("list at top level", lambda d: [d], "object at top level"),
    ("string at top level", _text('"synthpriv_report/1"'), "object at top level"),
    ("null at top level", _text("null"), "object at top level"),
    ("package.json", _text('{"name": "left-pad", "version": "1.3.0", "main": "index.js"}'), "schema"),
    ("jupyter notebook", _text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'), "schema"),
    ("future version", _set("schema", "synthpriv_report/2"), "newer version"),
    ("future minor of a future major", _set("schema", "synthpriv_report/3.1"), "newer version"),
    ("version zero", _set("schema", "synthpriv_report/0"), "schema"),
    ("foreign schema", _set("schema", "other/1"), "schema"),
    ("schema not a string", _set("schema", 1), "schema"),
    ("missing schema", _drop("schema"), "schema"),
    ("missing metrics", _drop("metrics"), "metrics"),
    ("missing verdict", _drop("verdict"), "verdict"),
    ("missing settings", _drop("settings"), "settings"),
    ("missing verdict level", _drop("verdict.level"), "verdict.level"),
    ("missing metric value", _drop("metrics.dcr.value"), "metrics.dcr.value"),
    ("missing metric details", _drop("metrics.dcr.details"), "metrics.dcr.details"),
    ("metrics is a list", _set("metrics", []), "metrics"),
    ("metrics null", _set("metrics", None), "metrics"),
    ("metric null", _set("metrics.dcr", None), "metrics.dcr"),
    ("details null", _set("metrics.dcr.details", None), "metrics.dcr.details"),
    ("details a string", _set("metrics.dcr.details", "lots"), "metrics.dcr.details"),
    ("verdict null", _set("verdict", None), "verdict"),
    ("settings null", _set("settings", None), "settings"),
    ("params a list", _set("params", [1, 2]), "params"),
    ("value a string", _set("metrics.dcr.value", "0.5"), "metrics.dcr.value"),
    ("value a boolean", _set("metrics.dcr.value", True), "metrics.dcr.value"),
    ("computed a string", _set("metrics.dcr.computed", "yes"), "metrics.dcr.computed"),
    ("computed without value", _set("metrics.dcr.value", None), "metrics.dcr.value"),
    ("interval of three", _set("metrics.dcr.interval", [0, 1, 2]), "metrics.dcr.interval"),
    ("interval a number", _set("metrics.dcr.interval", 0.3), "metrics.dcr.interval"),
    ("interval of strings", _set("metrics.dcr.interval", ["a", "b"]), "metrics.dcr.interval"),
    ("value_range null", _set("metrics.dcr.value_range", None), "metrics.dcr.value_range"),
    ("unknown level word", _set("metrics.dcr.level", "critical"), "metrics.dcr.level"),
    ("unknown verdict level", _set("verdict.level", "catastrophic"), "verdict.level"),
    ("verdict level upper case", _set("verdict.level", "HIGH"), "verdict.level"),
    ("unknown direction", _set("metrics.dcr.direction", "sideways"), "metrics.dcr.direction"),
    ("reasons a string", _set("verdict.reasons", "because"), "verdict.reasons"),
    ("reason a number", _set("verdict.reasons", [1]), "verdict.reasons[0]"),
    ("check without metric", _set("verdict.checks", [{"level": "low"}]), "verdict.checks[0].metric"),
    ("notes a string", _set("metrics.dcr.notes", "note"), "metrics.dcr.notes"),
    ("level_rule a string", _set("metrics.dcr.level_rule", "strict"), "metrics.dcr.level_rule"),
    ("level_rule threshold a string", _set("metrics.dcr.level_rule.high", "0.5"), "metrics.dcr.level_rule.high"),
    ("metric filed under another name", _set("metrics.dcr.name", "exact_copies"), "metrics.dcr.name"),
    ("fingerprint a number", _set("fingerprints.T", 123), "fingerprints.T"),
    ("sizes negative", _set("settings.sizes", {"T": -5}), "settings.sizes.T"),
    ("key_fields a string", _set("settings.key_fields", "age"), "settings.key_fields"),
    ("NaN literal", _replace_text('"value": 0.0', '"value": NaN'), ".value: nan"),
    ("Infinity literal", _replace_text('"calibration": null', '"calibration": Infinity'), "calibration"),
    ("huge float becomes infinite", _replace_text('"value": 0.0', '"value": 1e400'), ".value: inf"),
    ("huge integer", _set("metrics.dcr.value", 10**400), "metrics.dcr.value"),
    ("integer of 5000 digits", _replace_text('"value": 0.0', '"value": ' + "9" * 5000), "JSON"),
    ("unpaired surrogate", _replace_text('"title": "', '"title": "\\ud800'), "surrogate"),
    ("runaway nesting", _set("metrics.dcr.details", {"x": json.loads("[" * 80 + "]" * 80)}), "nested"),
    ("deep nesting beyond the parser", _replace_text('"details": {', '"details": {"x": ' + "[" * 100_000 + "]"
                                                     * 100_000 + ", "), "JSON"),
    ("latin-1 bytes", lambda d: json.dumps(d).replace("Exact", "Exact\udcff"), "not UTF-8"),
    # documents that are ours, if odd: they load and render
    ("large but finite numbers", lambda d: _set("metrics.dcr.interval", [1e307, 1e308])(
        _set("metrics.dcr.details.excess_over_calibration", 1e308)(_set("metrics.dcr.value", 1e308)(d))), OK),
    # a value its own interval leaves out cannot be true (issue 55: stored numbers are checked against one another)
    ("a value outside its interval", _set("metrics.dcr.value", 1e308), "metrics.dcr.interval"),
    ("huge integer count", _set("metrics.dcr.details.n", 10**30), OK),
    ("nested garbage in details", lambda d: _set("metrics.dcr.details", {
        **d["metrics"]["dcr"]["details"], "a": [[{"b": [None, True, 1e-300, "x" * 5000]}]], "": {},
        "k" * 3000: "v"})(d), OK),
    # the stored level is derived again from the stored details: details that no longer hold it are refused
    ("details replaced by garbage", _set("metrics.dcr.details", {"a": [[{"b": [None, True]}]]}), "metrics.dcr.level"),
    ("extra fields (added within the major version)", _set("future_field", {"anything": [1, 2, 3]}), OK),
    ("garbage evidence", _set("metrics.dcr.evidence", {"histogram": "not an array", "S": [[None]]}), OK),
    ("no metrics at all", lambda d: {**d, "metrics": {}, "verdict": {
        "level": "not_assessed", "reasons": [], "checks": [{**c, "level": None} for c in d["verdict"]["checks"]],
        "not_run": [{"metric": c["metric"], "reason": "not requested in this evaluation"}
                    for c in d["verdict"]["checks"]]}}, OK),
    ("unregistered metric name without a level", lambda d: {**d, "metrics": {"my_metric": {
        **d["metrics"]["dcr"], "name": "my_metric", "level": None, "level_rule": None}}, "verdict": {
        "level": "not_assessed", "reasons": [], "checks": [{**c, "level": None} for c in d["verdict"]["checks"]],
        "not_run": [{"metric": c["metric"], "reason": "not requested in this evaluation"}
                    for c in d["verdict"]["checks"]]}}, OK),
    # a level that cannot be checked is refused (the report is checked, not trusted)
    ("unregistered metric with a level", lambda d: {**d, "metrics": {**d["metrics"], "my_metric": {
        **d["metrics"]["dcr"], "name": "my_metric"}}}, "metrics.my_metric.level"),
    ("strange settings", _set("settings", {"spaces": {"dcr": ["x", {"y": None}]}, "sizes": {}}), OK),
    ("byte order mark", lambda d: "\ufeff" + json.dumps(d), OK),
]


def test_enough_cases() -> None:
    assert len(CASES) >= 39
    assert sum(1 for *_, want in CASES if want is not OK) >= 39


@pytest.mark.parametrize("case, mutate, want", CASES, ids=[c[0] for c in CASES])
def test_damaged_document(case: str, mutate: Callable[[dict], Any], want: str | None, base: dict[str, Any],
                          tmp_path: Path) -> None:
    made = mutate(copy.deepcopy(base))
    if isinstance(made, dict):  # a deliberate edit, about its fields: without its digest (as written before digests)
        made.pop("digest", None)
    path = tmp_path / "report.json"
    if isinstance(made, str):
        path.write_bytes(made.encode("utf-8", "surrogateescape") if "\udcff" in made
                         else made.encode("utf-8", "surrogatepass"))
    else:
        path.write_text(json.dumps(made), encoding="utf-8")
    if want is OK:
        loaded = from_json(path)
        html = render_html(loaded)
        assert "Verdict:" in html and "</html>" in html
        return
    with pytest.raises(ValueError) as info:
        from_json(path)
    assert type(info.value) in (ValueError, InconsistentReportError), \
        f"{case}: {type(info.value).__name__} instead of ValueError"
    message = str(info.value)
    assert want in message, f"{case}: {message!r} does not name {want!r}"
    assert str(path) in message
    assert len(message) < 600


def test_future_version_is_refused_even_when_otherwise_identical(base: dict[str, Any]) -> None:
    doc = copy.deepcopy(base)
    doc["schema"] = "synthpriv_report/2"
    with pytest.raises(ValueError, match=r"field schema .*newer version.*upgrade"):
        validate_document(doc)


def test_document_of_a_live_evaluation_validates_against_the_json_schema(base: dict[str, Any]) -> None:
    import jsonschema

    jsonschema.validate(base, JSON_SCHEMA)
    assert base["schema"] == SCHEMA == JSON_SCHEMA["properties"]["schema"]["const"]


def test_loaded_and_live_documents_render_through_the_same_path(base: dict[str, Any]) -> None:
    live = build_notebook(report_data(base))
    again = build_notebook(from_json(base).data)
    assert [c.outputs[0].data["text/plain"] for c in live.cells] == [c.outputs[0].data["text/plain"]
                                                                    for c in again.cells]
