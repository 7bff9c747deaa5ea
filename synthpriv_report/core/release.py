"""The release context a user supplies: what the synthetic data is for, who receives it, how it was made.

A data protection officer judges a release in its context (Article 29 Working Party, Opinion 05/2014; ICO,
"Anonymisation, pseudonymisation and privacy enhancing technologies guidance"; ISO/IEC 27559:2022, "Privacy
enhancing data de-identification framework"): the purpose, the recipients and whether the release is public,
restricted or internal, and how the synthetic data was made (the generator, its version and settings, a
differential-privacy budget if any, filters applied after generation, whether the trained model is released too).
None of this can be read from the data, so the user states it: ``Evaluation(..., context={...})`` (a dict, or
the path of a UTF-8 JSON file holding one) or ``synthpriv-report evaluate --context FILE.json``. It is validated
here field by field against a versioned JSON Schema (:data:`CONTEXT_SCHEMA`, identifier :data:`CONTEXT_SCHEMA_ID`),
printed on the report's cover and kept in the JSON report. Every string in it is the user's: the reports put it on
a page only through the template engine's autoescaping.

Version 2 (``synthpriv_report.context/2``) adds the optional block ``data_assessment``: what the controller states
about the training data itself (who the data subjects are, the source and period, whether the data are a sample
or the whole population, the columns it declares as special-category or criminal-offence data under Articles 9
and 10 GDPR, the lawful basis, the DPIA, other safeguards, the DPO's contact and the organisation's role). Version
1 is still read: a context naming ``synthpriv_report.context/1`` is checked against the version-1 schema
(:data:`CONTEXT_SCHEMA_V1`, which has no ``data_assessment``), one naming no schema against version 2 (of which
version 1 is a subset); a validated context is always written with :data:`CONTEXT_SCHEMA_ID`.

Sizes and ranges, checked before any data is read: a number is an integer or a finite number of magnitude at most
:data:`MAX_NUMBER` (2**53, the largest integer every JSON reader holds exactly); a text field holds at most 4000
characters (``purpose``, ``recipients``, ``levels_reason``, ``decision.rationale``, ``decision.conditions``,
``decision.dpo_opinion``, ``data_assessment.data_subjects``, ``data_assessment.source``,
``data_assessment.lawful_basis`` and each entry of ``generator.post_filters``, ``decision.triggers`` and
``data_assessment.safeguards``) or :data:`MAX_SHORT` = 400 (the other text fields, each entry of
``data_assessment.special_category_fields``, each ``generator.settings`` value and name); a list holds at most 50
entries and ``generator.settings`` at most 100.
"""

from __future__ import annotations

import json
import math
import numbers
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["CONTEXT_SCHEMA", "CONTEXT_SCHEMA_ID", "CONTEXT_SCHEMA_ID_V1", "CONTEXT_SCHEMA_IDS", "CONTEXT_SCHEMA_V1",
           "COVERAGES", "DECISIONS", "MAX_NUMBER", "MAX_SHORT", "ORGANISATION_ROLES", "RELEASE_MODES", "load_context",
           "validate_context"]

#: The identifier of the context's layout, written into every validated context.
CONTEXT_SCHEMA_ID = "synthpriv_report.context/2"
#: The identifier of the first layout (no ``data_assessment``), still read.
CONTEXT_SCHEMA_ID_V1 = "synthpriv_report.context/1"
#: Every identifier a context may name, oldest first.
CONTEXT_SCHEMA_IDS = (CONTEXT_SCHEMA_ID_V1, CONTEXT_SCHEMA_ID)
RELEASE_MODES = ("public", "restricted", "internal")
#: The outcomes a decision record may hold.
DECISIONS = ("release", "release_with_conditions", "do_not_release")
#: Whether the training data are a sample of the population they describe or the whole of it
#: (``data_assessment.coverage``).
COVERAGES = ("sample", "population", "unknown")
#: The organisation's role in the processing (Article 4(7) and (8), Article 26 GDPR;
#: ``data_assessment.organisation_role``).
ORGANISATION_ROLES = ("controller", "processor", "joint_controller")

#: The largest magnitude of a number in a release context: 2**53, the largest integer that every JSON reader holds
#: exactly (RFC 8259, section 6); a larger one (a 64-bit seed, say) is written as a string.
MAX_NUMBER = 2**53
#: The longest name or short text field of a release context, in characters.
MAX_SHORT = 400

_TEXT = {"type": "string", "maxLength": 4000}
_SHORT = {"type": "string", "maxLength": MAX_SHORT}
_TEXTS = {"type": "array", "items": _TEXT, "maxItems": 50}
_SHORTS = {"type": "array", "items": _SHORT, "maxItems": 50}
_SCALAR = {"type": ["string", "number", "boolean", "null"], "maxLength": MAX_SHORT}
_NUMBER = {"minimum": -MAX_NUMBER, "maximum": MAX_NUMBER}

#: JSON Schema (draft 2020-12) of a version-1 release context (``synthpriv_report.context/1``), kept to read the
#: contexts written before ``data_assessment`` existed; unknown fields are refused (a misspelt field would otherwise
#: vanish from the report without a word).
CONTEXT_SCHEMA_V1: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://synthpriv-report.invalid/schema/context-1.json",
    "title": "synthpriv_report release context",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "schema": {"const": CONTEXT_SCHEMA_ID_V1},
        "purpose": _TEXT,
        "recipients": _TEXT,
        "release_mode": {"enum": list(RELEASE_MODES)},
        "operator": _SHORT,
        "organisation": _SHORT,
        "levels_reason": _TEXT,
        "generator": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "name": _SHORT,
                "version": _SHORT,
                "settings": {"type": "object", "maxProperties": 100, "additionalProperties": {**_SCALAR, **_NUMBER},
                             "propertyNames": {"maxLength": MAX_SHORT}},
                "epsilon": {"type": ["number", "null"], "exclusiveMinimum": 0, "maximum": MAX_NUMBER},
                "delta": {"type": ["number", "null"], "minimum": 0, "maximum": 1},
                "post_filters": _TEXTS,
                "model_released": {"type": "boolean"},
            },
        },
        "decision": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "outcome": {"enum": [*DECISIONS, None]},
                "rationale": _TEXT,
                "conditions": _TEXT,
                "dpo_opinion": _TEXT,
                "assessor": _SHORT,
                "dpo": _SHORT,
                "decided_by": _SHORT,
                "date": _SHORT,
                "next_review": _SHORT,
                "triggers": _TEXTS,
            },
        },
    },
}

#: The data assessment block of version 2: what the controller states about the training data themselves.
_DATA_ASSESSMENT = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "data_subjects": _TEXT,
        "source": _TEXT,
        "period": _SHORT,
        "coverage": {"enum": list(COVERAGES)},
        "special_category_fields": _SHORTS,
        "lawful_basis": _TEXT,
        "dpia_reference": _SHORT,
        "safeguards": _TEXTS,
        "dpo_contact": _SHORT,
        "organisation_role": {"enum": list(ORGANISATION_ROLES)},
    },
}

#: JSON Schema (draft 2020-12) of a release context, version 2 (:data:`CONTEXT_SCHEMA_ID`): version 1's fields and
#: the optional ``data_assessment`` block; unknown fields are refused, at every level.
CONTEXT_SCHEMA: dict[str, Any] = {
    **CONTEXT_SCHEMA_V1,
    "$id": "https://synthpriv-report.invalid/schema/context-2.json",
    "properties": {**CONTEXT_SCHEMA_V1["properties"], "schema": {"const": CONTEXT_SCHEMA_ID},
                   "data_assessment": _DATA_ASSESSMENT},
}

_TYPE_WORDS = {"object": "an object", "array": "an array", "string": "a string", "number": "a number",
               "integer": "an integer", "boolean": "true or false", "null": "null"}


def _where(path: Any) -> str:
    parts = [f"[{p}]" if isinstance(p, int) else ("." + str(p)) for p in path]
    return ("context" + "".join(parts)) if parts else "context"


def _message(err: Any) -> str:
    where = _where(list(err.absolute_path))
    v = err.validator
    if v == "additionalProperties":
        extra = sorted(set(err.instance) - set(err.schema.get("properties", {})))
        known = ", ".join(sorted(err.schema.get("properties", {})))
        return f"{where}: unknown field {json.dumps(extra[0], ensure_ascii=False)[:80]} (known fields: {known})"
    if v == "type":
        want = err.validator_value if isinstance(err.validator_value, list) else [err.validator_value]
        return f"{where} must be {' or '.join(str(_TYPE_WORDS.get(w, w)) for w in want)}"
    if v in ("enum", "const"):
        allowed = err.validator_value if v == "enum" else [err.validator_value]
        return f"{where} must be one of {', '.join(json.dumps(a) for a in allowed)}"
    if v == "maxLength" and "propertyNames" in list(err.absolute_schema_path):
        return f"{where}: a name is longer than {err.validator_value} characters"
    if v == "maxLength":
        return f"{where} is longer than {err.validator_value} characters"
    if v in ("maxItems", "maxProperties"):
        return f"{where} holds more than {err.validator_value} entries"
    if v in ("exclusiveMinimum", "minimum", "maximum"):
        return f"{where} is out of range ({v.replace('exclusiveM', 'above m')} {err.validator_value})"
    return f"{where}: {str(err.message)[:200]}"


def _scan(value: Any, path: tuple[Any, ...] = ()) -> None:
    """Numbers that JSON cannot hold or that are out of range (:data:`MAX_NUMBER`) and unpaired surrogates, named
    by field."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{_where(path)} is {value}, not a JSON number")
    if isinstance(value, numbers.Number) and not isinstance(value, (bool, int, float)):
        raise ValueError(f"{_where(path)} is a {type(value).__name__}, not a JSON number")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) > MAX_NUMBER:
        digits = len(str(abs(value))) if isinstance(value, int) else 0
        shown = f"{value:.6g}" if isinstance(value, float) else (str(value) if digits <= 30 else
                                                                 f"an integer of {digits} digits")
        raise ValueError(f"{_where(path)} is {shown}, out of range: a number in a release context is at most "
                         f"2**53 = {MAX_NUMBER} in magnitude (write a larger one as a string)")
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(f"{_where(path)} holds an unpaired surrogate, which is not valid Unicode") from None
    elif isinstance(value, Mapping):
        for k, v in value.items():
            if not isinstance(k, str):
                raise ValueError(f"{_where(path)}: key {k!r} is not a string")
            _scan(v, path + (k,))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _scan(v, path + (i,))


def _plain(value: Any) -> Any:
    """Tuples as lists (a JSON document holds arrays), NumPy's numbers as Python's."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):  # np.int64(5), np.float32(0.5), np.str_("x"), np.bool_(True)
        return value.item()
    return value


def _schema_for(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON Schema a context is checked against: the version it names, version 2 when it names none.

    Raises
    ------
    ValueError
        The context names a schema identifier this version does not read; or it names version 1 and holds a
        field of version 2 only (``data_assessment``).
    """
    if "schema" not in doc:
        return CONTEXT_SCHEMA
    named = doc["schema"]
    if not (isinstance(named, str) and named in CONTEXT_SCHEMA_IDS):
        raise ValueError(f"context.schema must be one of {', '.join(json.dumps(i) for i in CONTEXT_SCHEMA_IDS)}")
    if named == CONTEXT_SCHEMA_ID:
        return CONTEXT_SCHEMA
    newer = sorted((set(doc) & set(CONTEXT_SCHEMA["properties"])) - set(CONTEXT_SCHEMA_V1["properties"]))
    if newer:
        raise ValueError(f"context.{newer[0]} is a field of schema {json.dumps(CONTEXT_SCHEMA_ID)}, but the context "
                         f"names {json.dumps(CONTEXT_SCHEMA_ID_V1)}: name {json.dumps(CONTEXT_SCHEMA_ID)} or no schema")
    return CONTEXT_SCHEMA_V1


def validate_context(context: Any) -> dict[str, Any]:
    """A release context checked field by field, written with the current schema identifier.

    A context naming ``"schema": "synthpriv_report.context/1"`` is checked against :data:`CONTEXT_SCHEMA_V1` (so it
    cannot hold ``data_assessment``); one naming :data:`CONTEXT_SCHEMA_ID` or no schema against
    :data:`CONTEXT_SCHEMA`. Either way the copy returned names :data:`CONTEXT_SCHEMA_ID`: every version-1 context
    is a valid version-2 one.

    Parameters
    ----------
    context : mapping
        The fields of :data:`CONTEXT_SCHEMA`; every field is optional, unknown fields are refused.

    Returns
    -------
    dict
        A JSON-safe copy with ``"schema": "synthpriv_report.context/2"``.

    Raises
    ------
    TypeError
        ``context`` is not a mapping.
    ValueError
        Naming the field that is unknown, of the wrong type, too long, or out of range (a number beyond
        :data:`MAX_NUMBER` in magnitude or not finite); or a schema identifier this version does not read.

    Examples
    --------
    >>> validate_context({"purpose": "teaching", "release_mode": "public"})["schema"]
    'synthpriv_report.context/2'
    >>> validate_context({"schema": "synthpriv_report.context/1", "purpose": "teaching"})["schema"]
    'synthpriv_report.context/2'
    >>> validate_context({"release_mode": "open"})
    Traceback (most recent call last):
    ...
    ValueError: context.release_mode must be one of "public", "restricted", "internal"
    >>> validate_context({"data_assessment": {"coverage": "most"}})
    Traceback (most recent call last):
    ...
    ValueError: context.data_assessment.coverage must be one of "sample", "population", "unknown"
    """
    if not isinstance(context, Mapping):
        raise TypeError(f"context must be a dict of release-context fields (or a JSON file of one), got "
                        f"{type(context).__name__}")
    try:
        doc = _plain(context)
        _scan(doc)
    except RecursionError:
        raise ValueError("context is nested too deeply to be a release context") from None
    schema = _schema_for(doc)
    import jsonschema

    cls = jsonschema.validators.validator_for(schema)
    errors = sorted(cls(schema).iter_errors(doc), key=lambda e: (len(list(e.absolute_path)), str(e.path)))
    if errors:
        raise ValueError(_message(errors[0]))
    return {"schema": CONTEXT_SCHEMA_ID, **{k: v for k, v in doc.items() if k != "schema"}}


def load_context(path: str | os.PathLike[str], *, option: str | None = None) -> dict[str, Any]:
    """Read and validate a release context from a UTF-8 JSON file.

    Parameters
    ----------
    path : path-like
        The JSON file, holding one object of :data:`CONTEXT_SCHEMA`'s fields.
    option : str, optional
        The command-line option the path was given to (``"--context"``), which messages name; by default they
        name the setting, ``context=``.

    Returns
    -------
    dict
        The validated context (:func:`validate_context`).

    Raises
    ------
    FileNotFoundError, IsADirectoryError, PermissionError
        The file does not exist, is a folder or cannot be read (an ``OSError``): the message names the setting,
        the path and what was expected.
    ValueError
        An empty path, a file that is not UTF-8 JSON, or a field refused by :func:`validate_context`; the message
        names the setting, the path and the field.

    Examples
    --------
    >>> load_context("")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: context='': the path is empty; give the path of a UTF-8 JSON file of release-context fields, or ...
    """
    given = os.fspath(path)
    label = f"{option} {given if given.strip() else repr(given)}" if option else f"context={given!r}"
    expected = "the path of a UTF-8 JSON file of release-context fields" + ("" if option else
                                                                            ", or a dict of those fields")
    if not str(given).strip():
        raise ValueError(f"{label}: the path is empty; give {expected}")
    p = Path(given)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise FileNotFoundError(f"{label}: no such file; give {expected}") from None
    except IsADirectoryError:
        raise IsADirectoryError(f"{label}: a folder, not a file; give {expected}") from None
    except OSError as exc:
        raise type(exc)(f"{label}: cannot read the file ({exc.strerror or exc}); give {expected}") from None
    except ValueError as exc:  # a path holding a NUL character
        raise ValueError(f"{label}: not a usable path ({exc}); give {expected}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{label}: not UTF-8 text (offset {exc.start}); a release context is a UTF-8 JSON "
                         f"file") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{label}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise ValueError(f"{label}: nested too deeply to be a release context") from None
    except ValueError as exc:  # an integer of more digits than Python converts (sys.get_int_max_str_digits)
        if "integer string conversion" not in str(exc):
            raise ValueError(f"{label}: not valid JSON ({' '.join(str(exc).split())[:200]})") from None
        raise ValueError(f"{label}: a number is out of range: a number in a release context is at most 2**53 = "
                         f"{MAX_NUMBER} in magnitude ({' '.join(str(exc).split(';')[0].split())})") from None
    try:
        return validate_context(doc)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{label}: {exc}") from None
