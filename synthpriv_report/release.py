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

Sizes and ranges, checked before any data is read: a number is an integer or a finite number of magnitude at most
:data:`MAX_NUMBER` (2**53, the largest integer every JSON reader holds exactly); a text field holds at most 4000
characters (``purpose``, ``recipients``, ``levels_reason``, ``decision.rationale``, ``decision.conditions``,
``decision.dpo_opinion`` and each entry of ``generator.post_filters`` and ``decision.triggers``) or
:data:`MAX_SHORT` = 400 (the other text fields, each ``generator.settings`` value and name); a list holds at most 50
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

__all__ = ["CONTEXT_SCHEMA", "CONTEXT_SCHEMA_ID", "DECISIONS", "MAX_NUMBER", "MAX_SHORT", "RELEASE_MODES",
           "load_context", "validate_context"]

#: The identifier of the context's layout, written into every validated context.
CONTEXT_SCHEMA_ID = "synthpriv_report.context/1"
RELEASE_MODES = ("public", "restricted", "internal")
#: The outcomes a decision record may hold.
DECISIONS = ("release", "release_with_conditions", "do_not_release")

#: The largest magnitude of a number in a release context: 2**53, the largest integer that every JSON reader holds
#: exactly (RFC 8259, section 6); a larger one (a 64-bit seed, say) is written as a string.
MAX_NUMBER = 2**53
#: The longest name or short text field of a release context, in characters.
MAX_SHORT = 400

_TEXT = {"type": "string", "maxLength": 4000}
_SHORT = {"type": "string", "maxLength": MAX_SHORT}
_TEXTS = {"type": "array", "items": _TEXT, "maxItems": 50}
_SCALAR = {"type": ["string", "number", "boolean", "null"], "maxLength": MAX_SHORT}
_NUMBER = {"minimum": -MAX_NUMBER, "maximum": MAX_NUMBER}

#: JSON Schema (draft 2020-12) of a release context; unknown fields are refused (a misspelt field would otherwise
#: vanish from the report without a word).
CONTEXT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://synthpriv-report.invalid/schema/context-1.json",
    "title": "synthpriv_report release context",
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "schema": {"const": CONTEXT_SCHEMA_ID},
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
        return f"{where} must be {' or '.join(_TYPE_WORDS.get(w, w) for w in want)}"
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


def validate_context(context: Any) -> dict[str, Any]:
    """A release context checked field by field, with its schema identifier.

    Parameters
    ----------
    context : mapping
        The fields of :data:`CONTEXT_SCHEMA`; every field is optional, unknown fields are refused.

    Returns
    -------
    dict
        A JSON-safe copy with ``"schema": "synthpriv_report.context/1"``.

    Raises
    ------
    TypeError
        ``context`` is not a mapping.
    ValueError
        Naming the field that is unknown, of the wrong type, too long, or out of range (a number beyond
        :data:`MAX_NUMBER` in magnitude or not finite).

    Examples
    --------
    >>> validate_context({"purpose": "teaching", "release_mode": "public"})["schema"]
    'synthpriv_report.context/1'
    >>> validate_context({"release_mode": "open"})
    Traceback (most recent call last):
    ...
    ValueError: context.release_mode must be one of "public", "restricted", "internal"
    """
    if not isinstance(context, Mapping):
        raise TypeError(f"context must be a dict of release-context fields (or a JSON file of one), got "
                        f"{type(context).__name__}")
    try:
        doc = _plain(context)
        _scan(doc)
    except RecursionError:
        raise ValueError("context is nested too deeply to be a release context") from None
    import jsonschema

    cls = jsonschema.validators.validator_for(CONTEXT_SCHEMA)
    errors = sorted(cls(CONTEXT_SCHEMA).iter_errors(doc), key=lambda e: (len(list(e.absolute_path)), str(e.path)))
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
