"""The report document: one JSON-safe dict that every export is drawn from.

:func:`build_document` is the one adapter from an :class:`~synthpriv_report.evaluation.evaluation.Evaluation` (or a
:class:`~synthpriv_report.core.results.ResultSet`) to the document; :func:`validate_document` checks a document field by
field (a ``ValueError`` names the field); :func:`load_document` reads a JSON report and validates it (and
:func:`~synthpriv_report.export.loaded.from_json` makes a report of it). HTML and PDF are rendered from the
validated document only, so a live evaluation and a JSON report take the same path.

Masking of real values happens where the metrics produce their results; nothing here rewrites a sentence.
"""

from __future__ import annotations

import copy
import datetime as _dt
import hashlib
import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.release import validate_context
from ..core.results import InconsistentReportError, LevelRule, MetricResult, ResultSet, Verdict, to_jsonable
from ..core.versions import core_versions, tool_versions
from ..text.templating import shorten_text
from .files import write_atomic
from .schema import DIGEST_ALGORITHM, JSON_SCHEMA, SCHEMA, SCHEMA_VERSION, parse_schema_id

__all__ = ["FINGERPRINT_RECOMPUTE", "ReportData",
           "build_document", "check_levels", "content_digest", "load_document", "report_data",
           "result_from_dict", "schema_document", "to_json", "validate_document"]

#: What the digest is computed over, in words (written beside it in the document).
DIGEST_OF = ("SHA-256 of the document without its digest field, as JSON with sorted keys, no spaces and UTF-8 "
             "text; it catches accidental edits, it is not a signature")

#: Deepest nesting accepted in a document (ours is at most 6 levels deep; details may nest a little more).
MAX_NESTING = 64


# ---------------------------------------------------------------------------------------------------------------
# the adapter: Evaluation / ResultSet -> document


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()


def _tool_versions() -> dict[str, str]:
    return tool_versions()


def _core_versions() -> dict[str, str]:
    return core_versions()


def _is_evaluation(obj: Any) -> bool:
    return hasattr(obj, "results") and hasattr(obj, "settings_dict")


def build_document(source: Any, *, reveal_real_values: bool | None = None, inputs: Mapping[str, str] | None = None,
                   **params: Any) -> tuple[dict[str, Any], ResultSet, Any]:
    """The one adapter: an Evaluation or ResultSet -> ``(document, results, evaluation or None)``.

    The document is JSON-safe and not yet validated (see :func:`report_data`, which validates it). Results are
    computed by the evaluation when missing (once; later calls read its caches).

    Parameters
    ----------
    source : Evaluation or ResultSet
    reveal_real_values : bool, optional
        Record that raw real values were allowed (default: the evaluation's own setting; an evaluation that
        reveals them is always recorded as revealing).
    inputs : dict, optional
        Names of the analysed inputs (``{"real": "train.csv", ...}``), shown on the cover.
    **params
        Reduction parameters for :meth:`Evaluation.results`.
    """
    ev = source if _is_evaluation(source) else None
    if ev is not None:
        rs = ev.results(**params)
    elif isinstance(source, ResultSet):
        if params:
            raise ValueError(f"a ResultSet is already reduced; parameters {', '.join(map(repr, params))} cannot be "
                             "applied: call Evaluation.results(...) with them")
        rs = source
    else:
        raise TypeError(f"cannot build a report from an object of type {type(source).__name__}; give an Evaluation, "
                        "a ResultSet or a report loaded with from_json")
    meta = dict(getattr(rs, "meta", None) or {})
    settings = meta.get("settings") or (ev.settings_dict() if ev is not None else {})
    fingerprints = meta.get("fingerprints") or (ev.fingerprints if ev is not None else {})
    versions = {**(meta.get("versions") or _core_versions()), **_tool_versions()}
    notes = meta.get("data_notes") or meta.get("notes") or (list(ev.data.notes) if ev is not None else [])
    names = inputs if inputs is not None else (meta.get("names") or meta.get("inputs")
                                                or getattr(ev, "names", None) or {})
    own_reveal = bool((settings or {}).get("reveal_real_values", False))
    revealed = own_reveal or bool(reveal_real_values)
    body = rs.to_dict()
    body_meta = dict(body.get("meta") or {})
    context = body_meta.pop("context", None)
    provenance = body_meta.pop("provenance", None)
    if ev is not None:
        context = context if context is not None else getattr(ev, "release_context", None)
        provenance = provenance if provenance is not None else getattr(ev, "provenance", None)
    body["meta"] = body_meta
    doc = to_jsonable({
        "schema": SCHEMA,
        # a result set drawn from a saved report keeps that report's time (results_from_document puts it in meta)
        # ...and every document of one evaluation carries the time it was made, so that its HTML, PDF and JSON,
        # written by separate calls, describe the same JSON bytes (the SHA-256 the pages print)
        "created": meta.get("created") or meta.get("evaluated_at") or _now(),
        "generator": {"package": "synthpriv_report", "version": str(versions.get("synthpriv_report", ""))},
        "verdict": body["verdict"],
        "params": body["params"],
        "metrics": body["metrics"],
        "settings": dict(settings),
        "fingerprints": dict(fingerprints),
        "versions": {str(k): str(v) for k, v in versions.items()},
        "data_notes": [str(n) for n in notes],
        "registered_metrics": _registered(),
        "revealed_real_values": revealed,
        "inputs": {str(k): str(v) for k, v in dict(names).items() if v is not None},
        "context": context,
        "provenance": _provenance(provenance, versions),
    })
    if body.get("meta"):
        doc["meta"] = body["meta"]
    return doc, rs, ev


def _provenance(recorded: Mapping[str, Any] | None, versions: Mapping[str, str]) -> dict[str, Any]:
    """The reproducibility record: how the evaluation was asked for, on what platform, each input's raw-file
    SHA-256 (when it was a file) and how to recompute the canonical fingerprints."""
    import platform

    rec = dict(recorded or {})
    rec.setdefault("python_call", None)
    rec.setdefault("command", None)
    rec.setdefault("inputs", [])
    rec.setdefault("platform", {"platform": platform.platform(), "machine": platform.machine(),
                                "python": platform.python_version(),
                                "implementation": platform.python_implementation()})
    rec["fingerprint_recompute"] = FINGERPRINT_RECOMPUTE
    rec["versions_recorded"] = len(versions)
    return rec


#: How a reader recomputes the canonical fingerprints of the data sets (written beside them in every document).
FINGERPRINT_RECOMPUTE = (
    "Run the same evaluation again on the same files with the same version of synthpriv_report (the command or "
    "Python call above) and compare the fingerprints in the new JSON report's field meta.sets; in Python, "
    "Evaluation(real, synthetic, holdout, ...).fingerprints gives them without computing any measure. A "
    "fingerprint is the SHA-256 of the analysed columns in a canonical form (column names and kinds, numbers as "
    "64-bit floats, categories as UTF-8 text, records in the evaluation's row order, canonical by default), so it "
    "identifies the data analysed whatever file they came from; the raw-file SHA-256 beside it identifies the "
    "exact file (sha256sum FILE).")


def _registered() -> list[str]:
    from ..core.registry import metric_names

    return list(metric_names())


def content_digest(document: Mapping[str, Any]) -> str:
    """The SHA-256 digest (hex) of a document's canonical content: every field but ``digest``, as JSON with
    sorted keys, no insignificant spaces, non-ASCII text as UTF-8.

    The same content gives the same digest whatever the indentation or key order of the file. It catches an
    accidental edit or a damaged copy; anyone can compute it again after changing a report, so it is **not** a
    signature (verify a report against its data by running the evaluation again and comparing).

    >>> content_digest({"b": 1, "a": [1.5, "é"]}) == content_digest({"a": [1.5, "é"], "b": 1, "digest": {}})
    True
    """
    body = {k: v for k, v in document.items() if k != "digest"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def with_digest(document: Mapping[str, Any]) -> dict[str, Any]:
    """The document with its ``digest`` field (``{"algorithm": "sha256", "value": hex, "of": ...}``)."""
    doc = {k: v for k, v in document.items() if k != "digest"}
    doc["digest"] = {"algorithm": DIGEST_ALGORITHM, "value": content_digest(doc), "of": DIGEST_OF}
    return doc


def read_document(path: str | os.PathLike[str], schema: str, what: str) -> tuple[dict[str, Any], str]:
    """A JSON document of the package read from ``path``: its layout named ``schema`` and its SHA-256 digest
    matching its content, else a ``ValueError`` naming the file (``what``: the kind of document, for the message).

    Returns
    -------
    (dict, str)
        The document and the file's name (for the caller's own messages).
    """
    source = Path(path).name
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    return schema_document(doc, schema, what, source=source), source


def schema_document(doc: Any, schema: str, what: str, *, source: str = "document") -> dict[str, Any]:
    """``doc`` (parsed JSON) checked as :func:`read_document` checks a file's: its layout named ``schema`` and its
    SHA-256 digest matching its content, else a ``ValueError`` naming ``source``."""
    if not isinstance(doc, Mapping) or doc.get("schema") != schema:
        raise ValueError(f"{source}: not {what} (schema {schema!r} expected)")
    digest = doc.get("digest")
    stated = digest.get("value") if isinstance(digest, Mapping) else None
    if stated != content_digest(doc):
        raise ValueError(f"{source}: field digest: the document's content does not match its SHA-256 digest")
    return dict(doc)


def _check_digest(doc: Mapping[str, Any], source: str) -> None:
    """Refuse a document whose content no longer matches its digest (a document without one is accepted: it was
    written before digests existed)."""
    stated = doc.get("digest")
    if stated is None:
        return
    actual = content_digest(doc)
    if stated["value"] != actual:
        raise ValueError(f"{source}: field digest: the report's content does not match its SHA-256 digest (stated "
                         f"{stated['value'][:16]}..., content {actual[:16]}...): it was changed after it was written "
                         "(or damaged in a copy); draw it again from its evaluation")


# ---------------------------------------------------------------------------------------------------------------
# validation


def _path(parts: Any) -> str:
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        else:
            key = shorten_text(p, 40)
            out += ("." if out else "") + (key if key.replace("_", "").isalnum() else repr(key))
    return out or "(top level)"


_JSON_TYPES = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "a number",
               float: "a number", type(None): "null"}


def _kind(v: Any) -> str:
    return _JSON_TYPES.get(type(v), type(v).__name__)


def _scan(doc: Any) -> None:
    """Non-finite or out-of-range numbers, unpaired surrogates and runaway nesting, named by field."""
    stack: list[tuple[Any, tuple[Any, ...], int]] = [(doc, (), 0)]
    while stack:
        v, where, depth = stack.pop()
        if depth > MAX_NESTING:
            raise ValueError(f"field {_path(where)}: nested more than {MAX_NESTING} levels deep; not a "
                             "synthpriv_report document")
        if isinstance(v, float) and not math.isfinite(v):
            raise ValueError(f"field {_path(where)}: {v} is not a JSON number (a synthpriv_report document writes "
                             "null for a missing or non-finite value)")
        if isinstance(v, int) and not isinstance(v, bool) and abs(v) >= 10**308:
            raise ValueError(f"field {_path(where)}: a number too large to represent")
        if isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                raise ValueError(f"field {_path(where)}: the text holds an unpaired surrogate (\\ud800-\\udfff), "
                                 "which is not valid Unicode") from None
        elif isinstance(v, Mapping):
            for k, x in v.items():
                if not isinstance(k, str):
                    raise ValueError(f"field {_path(where)}: key {k!r} is not a string")
                stack.append((k, where + (k,), depth + 1))
                stack.append((x, where + (k,), depth + 1))
        elif isinstance(v, (list, tuple)):
            for i, x in enumerate(v):
                stack.append((x, where + (i,), depth + 1))


def _schema_error(err: Any) -> str:
    where = list(err.absolute_path)
    inst = err.instance
    if err.validator == "required":
        missing = next((k for k in err.validator_value if isinstance(inst, Mapping) and k not in inst), "?")
        return f"field {_path(where + [missing])} is missing"
    if err.validator == "type":
        want = err.validator_value if isinstance(err.validator_value, list) else [err.validator_value]
        names = " or ".join({"object": "an object", "array": "an array", "string": "a string", "number": "a number",
                             "integer": "an integer", "boolean": "true or false", "null": "null"}.get(str(w), str(w))
                            for w in want)
        return f"field {_path(where)} must be {names}, found {_kind(inst)}"
    if err.validator in ("enum", "const"):
        allowed = err.validator_value if err.validator == "enum" else [err.validator_value]
        return (f"field {_path(where)} must be one of {', '.join(json.dumps(a) for a in allowed)}, found "
                f"{shorten_text(json.dumps(inst, ensure_ascii=False, default=str), 60)}")
    if err.validator in ("minItems", "maxItems"):
        return f"field {_path(where)} must hold exactly 2 numbers (or null), found {len(inst)} items"
    if err.validator == "anyOf":
        return f"field {_path(where)} must be a pair [low, high] of numbers or null, found {_kind(inst)}"
    return f"field {_path(where)}: {shorten_text(err.message, 200)}"


def _validator() -> Any:
    import jsonschema

    cls = jsonschema.validators.validator_for(JSON_SCHEMA)
    return cls(JSON_SCHEMA)


def validate_document(document: Any, *, source: str = "document") -> dict[str, Any]:
    """Check that ``document`` is a ``synthpriv_report/1`` report; returns it as a dict.

    Raises
    ------
    ValueError
        Naming the field that is missing, of the wrong type or out of range; an unknown schema, or a future
        version of ours, is refused on the field ``schema``.
    """
    if not isinstance(document, Mapping):
        raise ValueError(f"{source}: a synthpriv_report JSON report is an object at top level, found "
                         f"{_kind(document)}")
    if "schema" not in document:
        raise ValueError(f"{source}: field schema is missing: not a synthpriv_report JSON report")
    schema_id = document["schema"]
    major = parse_schema_id(schema_id)
    shown = shorten_text(json.dumps(schema_id, ensure_ascii=False, default=str), 60)
    if major is None:
        raise ValueError(f"{source}: field schema is {shown}: not a synthpriv_report JSON report (expected "
                         f"{SCHEMA!r})")
    if major > SCHEMA_VERSION:
        raise ValueError(f"{source}: field schema is {shown}, a newer version than this synthpriv_report reads "
                         f"({SCHEMA!r}): upgrade synthpriv_report to draw it")
    if schema_id != SCHEMA:
        raise ValueError(f"{source}: field schema is {shown}: unsupported version (expected {SCHEMA!r})")
    try:
        _scan(document)
    except ValueError as exc:
        raise ValueError(f"{source}: {exc}") from None
    if document.get("context") is not None:
        try:
            validate_context(document["context"])
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{source}: field {exc}") from None
    errors = sorted(_validator().iter_errors(document), key=lambda e: (len(list(e.absolute_path)), str(e.path)))
    if errors:
        raise ValueError(f"{source}: {_schema_error(errors[0])}")
    doc = dict(document)
    for key, m in doc["metrics"].items():
        where = ("metrics", key)
        if m["name"] != key:
            raise ValueError(f"{source}: field {_path(where + ('name',))} is "
                             f"{shorten_text(repr(m['name']), 60)} but the metric is filed under "
                             f"{shorten_text(repr(key), 60)}")
        if m["computed"]:
            if m["value"] is None:
                raise ValueError(f"{source}: field {_path(where + ('value',))} is null but the metric is marked "
                                 "computed")
            if m["reason_not_computed"] is not None:
                raise ValueError(f"{source}: field {_path(where + ('reason_not_computed',))} is set but the metric "
                                 "is marked computed")
        elif m["reason_not_computed"] is None:
            raise ValueError(f"{source}: field {_path(where + ('reason_not_computed',))} is missing for a metric "
                             "marked not computed")
    _check_digest(doc, source)
    return doc


# ---------------------------------------------------------------------------------------------------------------
# a loaded report is checked, not trusted: its levels and verdict are derived again


def _shown_level(level: Any) -> str:
    return "no level" if level is None else repr(level)


def check_levels(document: Mapping[str, Any], *, source: str = "document") -> None:
    """Derive every level and the verdict of a validated document again, and refuse it where they disagree.

    For each stored metric the :class:`MetricResult` is rebuilt from its stored value, interval, calibration and
    details. Its stored numbers are first checked against one another
    (:func:`synthpriv_report.export.rederive.check_stored_numbers`: the value and every interval within the
    declared range and consistent, and the numbers its level rests on, such as a lower confidence bound, computed
    again from its stored counts by the metric's own ``LevelSpec.rederive``), then it is graded by the package's
    one level policy (:func:`synthpriv_report.grading.levels.apply_level` with the registry's declaration of that metric
    and the document's ``params.levels`` overrides), and the stored level and the graded number and thresholds
    shown beside it must be the ones the policy gives. The verdict is computed again
    (:func:`synthpriv_report.grading.verdict.compute_verdict`) over the driving checks the document's settings name.
    Nothing here knows any metric's rule: a rule changed in the registry is the rule applied.

    Raises
    ------
    InconsistentReportError
        A ``ValueError`` naming the first disagreement or impossible value (in document order: a metric's numbers,
        its level and the rule shown with it, then the verdict's checks, then the verdict's level), or a metric
        this version does not know that carries a level.
    ValueError
        When the document's ``params.levels`` overrides are not valid thresholds.
    """
    from dataclasses import replace

    from ..core.params import validate_levels
    from ..core.registry import REGISTRY
    from ..grading.levels import apply_level
    from ..grading.verdict import compute_verdict
    from .rederive import check_stored_numbers, same_number

    made_by = str((document.get("generator") or {}).get("version") or "an unknown version")
    why = (f"the report was changed after it was made, or made by a version that grades differently (it was made "
           f"by synthpriv_report {made_by}); draw it again from its evaluation")
    try:
        levels = validate_levels(document["params"].get("levels"))
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{source}: field params.levels: {exc}") from None
    results = results_from_document(document, source=source)
    meta = document.get("meta")
    listed = meta.get("columns") if isinstance(meta, Mapping) else None
    columns = (frozenset(str(c["name"]) for c in listed if isinstance(c, Mapping) and "name" in c)
               if isinstance(listed, list) else None)
    graded: dict[str, MetricResult] = {}
    for name, stored in results.items():
        where = ("metrics", name)
        spec = REGISTRY.get(name)
        if spec is None:
            if stored.level is not None:
                raise InconsistentReportError(
                    f"{source}: field {_path(where + ('level',))}: metric {shorten_text(name, 60)!r} is not one this "
                    f"version of synthpriv_report knows, so its level {_shown_level(stored.level)} cannot be checked; "
                    f"refusing to draw it", where + ("level",))
            graded[name] = stored
            continue
        if stored.direction != spec.direction:
            raise InconsistentReportError(
                f"{source}: field {_path(where + ('direction',))} is {stored.direction!r} but {name!r} is "
                f"{spec.direction.replace('_', ' ')}: {why}", where + ("direction",))
        if stored.computed:
            try:
                check_stored_numbers(spec, document["metrics"][name], stored, columns=columns)
            except InconsistentReportError as exc:
                raise InconsistentReportError(f"{source}: {exc}: {why}", exc.field) from None
        try:
            again = apply_level(spec, replace(stored, level=None, level_rule=None), levels)
        except Exception as exc:  # noqa: BLE001 - a rule that cannot read the stored numbers
            raise InconsistentReportError(
                f"{source}: field {_path(where)}: its level cannot be derived again from the stored values "
                f"({type(exc).__name__}: {shorten_text(str(exc), 120)}); {why}", where) from None
        if again.computed != stored.computed:
            raise InconsistentReportError(
                f"{source}: field {_path(where + ('value',))}: the stored value cannot be graded "
                f"({again.reason_not_computed}); {why}", where + ("value",))
        rule = again.level_rule
        if again.level != stored.level:
            basis = (f" (its rule, {shorten_text(rule.description, 160)}, on {rule.scale}"
                     + (f" = {rule.graded:.6g}" if rule.graded is not None else "") + ")") if rule else ""
            raise InconsistentReportError(
                f"{source}: field {_path(where + ('level',))} is {_shown_level(stored.level)} but the stored values "
                f"give {_shown_level(again.level)}{basis}: {why}", where + ("level",))
        shown = document["metrics"][name].get("level_rule")
        keys = ("graded", "medium", "high", "negligible", "risky_end")
        for key in keys if rule is not None and isinstance(shown, Mapping) else ():
            # the number and thresholds printed beside the level are the ones it was graded with
            if not same_number(shown.get(key), getattr(rule, key)):
                raise InconsistentReportError(
                    f"{source}: field {_path(where + ('level_rule', key))} is {shown.get(key)!r} but the stored "
                    f"values give {getattr(rule, key)!r}: {why}", where + ("level_rule", key))
        graded[name] = again
    stored_verdict = results.verdict
    settings = document.get("settings") or {}
    driving = settings.get("verdict_metrics")
    stored_names = [n for n, _ in stored_verdict.checks]
    if driving is None:
        driving = stored_names
    if list(driving) != stored_names:
        raise InconsistentReportError(
            f"{source}: field verdict.checks names {', '.join(map(repr, stored_names)) or 'no check'} but the "
            f"settings' verdict_metrics are {', '.join(map(repr, driving)) or 'none'}: {why}", ("verdict", "checks"))
    verdict = compute_verdict(graded, list(driving))
    for (name, lv_stored), (_, lv_again) in zip(stored_verdict.checks, verdict.checks):
        if lv_stored != lv_again:
            raise InconsistentReportError(
                f"{source}: field verdict.checks: {name!r} is listed at {_shown_level(lv_stored)} but its result "
                f"gives {_shown_level(lv_again)}: {why}", ("verdict", "checks"))
    if stored_verdict.level != verdict.level:
        raise InconsistentReportError(f"{source}: field verdict.level is {stored_verdict.level!r} but the checks "
                                      f"give {verdict.level!r}: {why}", ("verdict", "level"))
    if list(stored_verdict.reasons) != list(verdict.reasons):  # the sentences the cover prints under the verdict
        stored_reasons, again_reasons = list(stored_verdict.reasons), list(verdict.reasons)
        i = next((i for i, (a, b) in enumerate(zip(stored_reasons, again_reasons)) if a != b),
                 min(len(stored_reasons), len(again_reasons)))
        shown = repr(shorten_text(stored_reasons[i], 120)) if i < len(stored_reasons) else "missing"
        wanted = repr(shorten_text(again_reasons[i], 120)) if i < len(again_reasons) else "no reason"
        raise InconsistentReportError(f"{source}: field {_path(('verdict', 'reasons', i))} is {shown} but the checks "
                                      f"give {wanted}: {why}", ("verdict", "reasons", i))


# ---------------------------------------------------------------------------------------------------------------
# document -> result objects


def _or_nan(x: Any) -> float:
    """A JSON number as a float; NaN for null (an interval's open end)."""
    return float("nan") if x is None else float(x)


def _result_from_dict(d: Mapping[str, Any]) -> MetricResult:
    rule = d.get("level_rule")
    lo, hi = d["value_range"]
    iv = d.get("interval")
    extra: dict[str, Any] = {}
    if "evidence" in d and "evidence" in MetricResult.__dataclass_fields__:
        extra["evidence"] = dict(d["evidence"]) if isinstance(d["evidence"], Mapping) else {}
    if rule is None:
        level_rule = None
    else:
        def number(key: str) -> float | None:
            v = rule.get(key)
            return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None

        why = rule.get("inconclusive_because")
        level_rule = LevelRule(rule["medium"], rule["high"], rule["source"], rule["description"],
                               rule["scale"] if isinstance(rule.get("scale"), str) else "the value",
                               number("graded"),
                               rule["unit"] if rule.get("unit") in ("number", "percent", "points") else "number",
                               number("negligible"), number("risky_end"), why if isinstance(why, str) else None)
    return MetricResult(
        name=d["name"],
        value=float(d["value"]) if d["computed"] else None,
        interval=None if iv is None else (_or_nan(iv[0]), _or_nan(iv[1])),
        direction=d["direction"],
        level=d["level"],
        details=dict(d["details"]),
        reason_not_computed=None if d["computed"] else d["reason_not_computed"],
        section=d["section"],
        title=d["title"],
        value_range=(float("-inf") if lo is None else float(lo), float("inf") if hi is None else float(hi)),
        space=d["space"],
        level_rule=level_rule,
        calibration=None if d["calibration"] is None else float(d["calibration"]),
        notes=tuple(d["notes"]),
        **extra,
    )


def result_from_dict(entry: Mapping[str, Any], *, source: str = "document") -> MetricResult:
    """The :class:`MetricResult` of one metric's stored entry (as :meth:`MetricResult.to_dict` writes it and a
    report's ``metrics`` field holds it); an entry of an unexpected shape is a ``ValueError`` naming ``source``.

    >>> r = MetricResult("m", 0.25, interval=(0.1, 0.4), title="Share")
    >>> result_from_dict(r.to_dict()) == r
    True
    """
    try:
        return _result_from_dict(entry)
    except (TypeError, KeyError, AttributeError, IndexError, ValueError) as exc:
        raise ValueError(f"{source}: a field has an unexpected shape ({type(exc).__name__}: "
                         f"{shorten_text(str(exc), 120)}); not a result this version can draw") from None


def results_from_document(doc: Mapping[str, Any], *, source: str = "document") -> ResultSet:
    """The :class:`ResultSet` of a validated document (a field of an unexpected shape is a ``ValueError``)."""
    try:
        return _results_from_document(doc)
    except (TypeError, KeyError, AttributeError, IndexError) as exc:
        raise ValueError(f"{source}: a field has an unexpected shape ({type(exc).__name__}: "
                         f"{shorten_text(str(exc), 120)}); not a report this version can draw") from None


def _results_from_document(doc: Mapping[str, Any]) -> ResultSet:
    v = doc["verdict"]
    verdict = Verdict(level=v["level"], reasons=tuple(v["reasons"]),
                      checks=tuple((c["metric"], c["level"]) for c in v["checks"]),
                      not_run=tuple((c["metric"], c["reason"]) for c in v.get("not_run") or ()))
    meta = dict(doc.get("meta") or {})
    for key in ("settings", "fingerprints", "versions", "data_notes", "inputs", "registered_metrics", "context",
                "provenance"):
        meta.setdefault(key, doc.get(key))
    meta.setdefault("revealed_real_values", doc.get("revealed_real_values", False))
    meta["created"] = doc.get("created")
    return ResultSet({n: _result_from_dict(m) for n, m in doc["metrics"].items()}, verdict, doc["params"], meta)


def load_results(path: str | os.PathLike[str]) -> ResultSet:
    """A saved JSON report as a :class:`ResultSet` (validated field by field; draws the same documents)."""
    return results_from_document(load_document(path))


# ---------------------------------------------------------------------------------------------------------------
# the report content handed to the renderers


@dataclass(frozen=True)
class ReportData:
    """A validated report document, with the result objects it was made from.

    Attributes
    ----------
    document : dict
        The validated JSON-safe document (schema ``synthpriv_report/1``); every text of HTML and PDF comes from it.
    results : ResultSet
        The results the document was made from (the evaluation's own objects, or rebuilt from a JSON report).
    evaluation : Evaluation or None
        The live evaluation, when there is one (kept for callers; rendering reads the document only).
    from_json : bool
        True when the document was read back from a JSON report.
    """

    document: Mapping[str, Any]
    results: ResultSet
    evaluation: Any = field(default=None, repr=False, compare=False)
    from_json: bool = False

    @property
    def settings(self) -> dict[str, Any]:
        return dict(self.document["settings"])

    @property
    def fingerprints(self) -> dict[str, str]:
        return dict(self.document["fingerprints"])

    @property
    def versions(self) -> dict[str, str]:
        return dict(self.document["versions"])

    @property
    def data_notes(self) -> tuple[str, ...]:
        return tuple(self.document.get("data_notes") or ())

    @property
    def created(self) -> str:
        return str(self.document["created"])

    @property
    def registered(self) -> tuple[str, ...]:
        return tuple(self.document["registered_metrics"])

    @property
    def revealed(self) -> bool:
        return bool(self.document.get("revealed_real_values", False))

    def to_dict(self) -> dict[str, Any]:
        """The JSON document (a deep copy)."""
        return copy.deepcopy(dict(self.document))


def report_data(source: Any, *, reveal_real_values: bool | None = None, inputs: Mapping[str, str] | None = None,
                **params: Any) -> ReportData:
    """The validated report content of an Evaluation, ResultSet or loaded report (see :func:`build_document`).

    A loaded report (:class:`~synthpriv_report.export.loaded.LoadedReport`) is anything that carries its
    :class:`ReportData` as ``data``.
    """
    if isinstance(source, ReportData):
        return source
    if isinstance(getattr(source, "data", None), ReportData):
        data: ReportData = source.data
        return data
    if isinstance(source, Mapping) and not isinstance(source, ResultSet):
        doc = _checked(source, "document")
        return ReportData(doc, results_from_document(doc), from_json=True)
    doc, rs, ev = build_document(source, reveal_real_values=reveal_real_values, inputs=inputs, **params)
    doc = with_digest(validate_document(doc, source="report of this evaluation"))
    return ReportData(doc, rs, evaluation=ev, from_json=ev is None and bool((rs.meta or {}).get("created")))


def _checked(document: Any, source: str) -> dict[str, Any]:
    """A document read from outside: validated field by field, its digest and its levels and verdict checked."""
    doc = validate_document(document, source=source)
    check_levels(doc, source=source)
    return doc


# ---------------------------------------------------------------------------------------------------------------
# JSON in and out


def to_json(source: Any, path: str | os.PathLike[str] | None = None, *, reveal_real_values: bool | None = None,
            indent: int | None = 2, **params: Any) -> dict[str, Any] | Path:
    """The versioned JSON report (schema ``synthpriv_report/1``).

    Returns the document as a dict when ``path`` is None, else writes it whole (a temporary file beside it, then
    ``os.replace``) and returns the path.
    """
    doc = report_data(source, reveal_real_values=reveal_real_values, **params).to_dict()
    if path is None:
        return doc
    return write_atomic(path, dumps(doc, indent=indent))


def dumps(document: Mapping[str, Any], *, indent: int | None = 2) -> str:
    """The JSON text of a document (no NaN literals, UTF-8 text)."""
    return json.dumps(document, indent=indent, allow_nan=False, ensure_ascii=False) + "\n"


def load_document(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read and validate a JSON report; a ``ValueError`` names the file and the field."""
    p = Path(path)
    raw = p.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{p}: not UTF-8 text (byte {raw[exc.start]:#04x} at offset {exc.start}); a synthpriv_report "
                         "JSON report is UTF-8") from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{p}: not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}); a "
                         "synthpriv_report JSON report was expected") from None
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"{p}: not a readable JSON document ({shorten_text(str(exc), 120)})") from None
    return _checked(document, str(p))
