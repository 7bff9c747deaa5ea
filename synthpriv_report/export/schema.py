"""The JSON report's schema: its version string and a JSON Schema (draft 2020-12) of the document.

A document names its schema in the field ``schema``: ``"synthpriv_report/<major>"``. Fields may be added within
a major version, never removed or retyped, so objects allow extra properties; a reader refuses a document of
another major version (an unknown future layout is never drawn as if it were ours).
"""

from __future__ import annotations

import re
from typing import Any

from ..core.release import CONTEXT_SCHEMA, CONTEXT_SCHEMA_V1

__all__ = ["DIGEST_ALGORITHM", "JSON_SCHEMA", "LEVELS", "VERDICT_LEVELS", "SCHEMA", "SCHEMA_NAME", "SCHEMA_VERSION",
           "parse_schema_id"]

SCHEMA_NAME = "synthpriv_report"
SCHEMA_VERSION = 1
#: The schema identifier written into every document (``document["schema"]``).
SCHEMA = f"{SCHEMA_NAME}/{SCHEMA_VERSION}"

LEVELS = ("low", "inconclusive", "medium", "high")
#: Verdict levels: a level, or "not_assessed" when none of the driving checks ran.
VERDICT_LEVELS = (*LEVELS, "not_assessed")
DIRECTIONS = ("higher_is_riskier", "higher_is_safer")

_SCHEMA_ID = re.compile(r"^synthpriv_report/(\d{1,6})(?:\.\d{1,6})?$")


def parse_schema_id(value: Any) -> int | None:
    """The major version of a schema identifier, or None when it is not a synthpriv_report identifier.

    >>> parse_schema_id("synthpriv_report/1"), parse_schema_id("synthpriv_report/2.1"), parse_schema_id("x/1")
    (1, 2, None)
    """
    if not isinstance(value, str):
        return None
    m = _SCHEMA_ID.match(value)
    return int(m.group(1)) if m else None


_NUM = {"type": "number"}
_NUM_OR_NULL = {"type": ["number", "null"]}
_STR = {"type": "string"}
_STR_OR_NULL = {"type": ["string", "null"]}
_LEVEL = {"enum": list(LEVELS)}
_LEVEL_OR_NULL = {"enum": [*LEVELS, None]}
_PAIR = {"type": "array", "minItems": 2, "maxItems": 2, "items": _NUM_OR_NULL}

_LEVEL_RULE = {
    "type": ["object", "null"],
    "required": ["medium", "high", "source", "description"],
    "properties": {"medium": _NUM_OR_NULL, "high": _NUM_OR_NULL, "source": _STR, "description": _STR,
                   "scale": _STR, "graded": _NUM_OR_NULL, "unit": {"enum": ["number", "percent", "points"]},
                   "negligible": _NUM_OR_NULL, "risky_end": _NUM_OR_NULL, "inconclusive_because": _STR_OR_NULL},
}

_METRIC = {
    "type": "object",
    "required": ["name", "title", "section", "computed", "value", "interval", "direction", "level", "level_rule",
                 "value_range", "space", "calibration", "notes", "reason_not_computed", "details"],
    "properties": {
        "name": {"type": "string", "minLength": 1},
        "title": _STR,
        "section": _STR,
        "computed": {"type": "boolean"},
        "value": _NUM_OR_NULL,
        "interval": {"anyOf": [_PAIR, {"type": "null"}]},
        "direction": {"enum": list(DIRECTIONS)},
        "level": _LEVEL_OR_NULL,
        "level_rule": _LEVEL_RULE,
        "value_range": _PAIR,
        "space": _STR_OR_NULL,
        "calibration": _NUM_OR_NULL,
        "notes": {"type": "array", "items": _STR},
        "reason_not_computed": _STR_OR_NULL,
        "details": {"type": "object"},
    },
}

_STR_LIST = {"type": "array", "items": _STR}
_STR_MAP = {"type": "object", "additionalProperties": _STR}
_COUNT = {"type": "integer", "minimum": 0}
_COUNT_OR_NULL = {"type": ["integer", "null"], "minimum": 0}

#: The evaluation's context (``ResultSet.meta``) as far as the documents read it: every field a view reads is
#: typed, so a damaged one is refused by name instead of failing while the page is drawn.
_META = {
    "type": "object",
    "properties": {
        "sets": {"type": "array", "items": {
            "type": "object",
            "properties": {"role": _STR, "name": _STR_OR_NULL, "rows": _COUNT_OR_NULL, "columns": _COUNT_OR_NULL,
                           "fingerprint": _STR_OR_NULL}}},
        "fingerprint_algorithm": _STR_OR_NULL,
        "columns": {"type": "array", "items": {"type": "object",
                                               "properties": {"name": _STR, "kind": _STR_OR_NULL}}},
        "excluded": _STR_LIST,
        "excluded_columns": _STR_LIST,
        "key_fields": _STR_LIST,
        "key_fields_chosen": _STR_OR_NULL,
        "sensitive_fields": _STR_LIST,
        "settings": {"type": "object"},
        "fingerprints": _STR_MAP,
        "versions": _STR_MAP,
        "data_notes": _STR_LIST,
        "searches": _COUNT,
        "revealed_real_values": {"type": "boolean"},
        "registered_metrics": _STR_LIST,
        "records_at_risk": {"type": "object"},
        "inputs": _STR_MAP,
        "names": _STR_MAP,
        "created": _STR_OR_NULL,
        "evaluated_at": _STR_OR_NULL,
        "context": {"type": ["object", "null"]},
        "provenance": {"type": ["object", "null"]},
    },
}

#: The reproducibility record (:func:`synthpriv_report.export.document.build_document`).
_PROVENANCE = {
    "type": "object",
    "properties": {
        "python_call": _STR_OR_NULL,
        "command": _STR_OR_NULL,
        "inputs": {"type": "array", "items": {
            "type": "object", "required": ["role", "name"],
            "properties": {"role": _STR, "name": _STR, "file": _STR_OR_NULL,
                           "sha256": {"type": ["string", "null"], "pattern": "^[0-9a-f]{64}$"},
                           "bytes": _COUNT_OR_NULL, "note": _STR}}},
        "platform": _STR_MAP,
        "fingerprint_recompute": _STR,
    },
}

#: The digest of a document (see :func:`synthpriv_report.export.document.content_digest`).
DIGEST_ALGORITHM = "sha256"
_DIGEST = {
    "type": "object",
    "required": ["algorithm", "value"],
    "properties": {"algorithm": {"const": DIGEST_ALGORITHM}, "value": {"type": "string",
                                                                        "pattern": "^[0-9a-f]{64}$"},
                   "of": _STR},
}

#: JSON Schema of a ``synthpriv_report/1`` document (extra properties allowed everywhere: fields may be added).
JSON_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://synthpriv-report.invalid/schema/synthpriv_report-1.json",
    "title": "synthpriv_report JSON report",
    "type": "object",
    "required": ["schema", "created", "generator", "verdict", "params", "metrics", "settings", "fingerprints",
                 "versions", "registered_metrics"],
    "properties": {
        "schema": {"const": SCHEMA},
        "created": _STR,
        "generator": {"type": "object", "required": ["package", "version"],
                      "properties": {"package": _STR, "version": _STR}},
        "verdict": {
            "type": "object",
            "required": ["level", "reasons", "checks"],
            "properties": {
                "level": {"enum": list(VERDICT_LEVELS)},
                "reasons": {"type": "array", "items": _STR},
                "checks": {"type": "array", "items": {"type": "object", "required": ["metric", "level"],
                                                      "properties": {"metric": _STR, "level": _LEVEL_OR_NULL}}},
                "not_run": {"type": "array", "items": {"type": "object", "required": ["metric", "reason"],
                                                       "properties": {"metric": _STR, "reason": _STR}}},
            },
        },
        "params": {"type": "object", "properties": {
            "levels": {"type": ["object", "null"], "additionalProperties": {
                "type": "object", "properties": {"medium": _NUM, "high": _NUM, "on": {"enum": ["value", "rule"]}}}}}},
        "metrics": {"type": "object", "additionalProperties": _METRIC},
        "settings": {
            "type": "object",
            "properties": {
                "sizes": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}},
                "key_fields": {"type": "array", "items": _STR},
                "sensitive_fields": {"type": "array", "items": _STR},
                "columns": {"type": "object", "additionalProperties": _STR},
                "verdict_metrics": _STR_LIST,
                "metrics": _STR_LIST,
                "excluded": _STR_LIST,
                "key_fields_chosen": _STR_OR_NULL,
                "reveal_real_values": {"type": "boolean"},
                "default_params": {"type": "object"},
            },
        },
        "fingerprints": {"type": "object", "additionalProperties": _STR},
        "versions": {"type": "object", "additionalProperties": _STR},
        "data_notes": {"type": "array", "items": _STR},
        "registered_metrics": {"type": "array", "items": _STR},
        "revealed_real_values": {"type": "boolean"},
        "inputs": {"type": "object", "additionalProperties": _STR},
        "meta": _META,
        # a report keeps its context as it was written: one saved with a version-1 context still reads
        "context": {"anyOf": [{"type": "null"}, *({k: v for k, v in c.items() if k not in ("$schema", "$id", "title")}
                                                  for c in (CONTEXT_SCHEMA_V1, CONTEXT_SCHEMA))]},
        "provenance": _PROVENANCE,
        "digest": _DIGEST,
    },
}
