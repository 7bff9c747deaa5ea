"""The reader's words: number formats by kind, one plain sentence per check, settings in words.

Every document (the notebook view, the HTML and PDF exports, a report re-drawn from JSON) takes its reader-facing
words from here, and reads only finished results: the JSON form of a metric (:meth:`MetricResult.to_dict`) and
of the evaluation's context (``ResultSet.meta``). Nothing here computes a metric.

Number formats
--------------
* plain numbers: 3 significant digits (``0.136``, ``1,650``), thousands separated;
* counts: whole numbers with thousands separators (``3,000``);
* shares (proportions in [0, 1]): percentages with 3 significant digits (``9.5%``, ``0.333%``);
* scores out of 100: 3 significant digits followed by "out of 100" where a sentence needs it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..core.formats import (
    LEVEL_WORDS,
    SET_ROLES,
    fmt_count,
    fmt_interval,
    fmt_number,
    fmt_on_unit,
    fmt_share,
    fmt_value,
)
from ..core.formats import is_finite_number as _finite
from ..core.registry import MetricSpec, ValueKind, get_spec

__all__ = ["CHECKS_INTRO", "CHECKS_TITLE", "OTHERS_INTRO", "OTHERS_TITLE", "RISK_TITLE", "DISTINGUISHABILITY_INTRO",
           "DISTINGUISHABILITY_TITLE", "LEVEL_WORDS", "NOT_LEAKAGE", "ROLE_WORDS", "ValueKind", "check_sentence",
           "chosen_text", "drives_text", "fmt_count", "fmt_interval", "fmt_number", "fmt_on_unit", "fmt_share",
           "fmt_value", "graded_text", "interval_label", "interval_text",
           "TELL_APART_WORDS", "is_distinguishability", "metric_row", "split_metrics",
           "range_text", "risk_summary", "risk_text", "setting_rows", "set_rows", "value_kind"]

#: The data sets, as a reader knows them.
ROLE_WORDS = {
    "real": "Real training data (the records the generator learned from)",
    "synthetic": "Synthetic data (the data set evaluated)",
    "holdout": "Holdout (real records of the same population the generator never saw)",
    "reference": ("Reference set (real records of the same population, neither training nor holdout records, given "
                  "as the membership attacks' reference data; every holdout record is then attacked)"),
}
_ROLE_OF_SET = SET_ROLES

DISTINGUISHABILITY_TITLE = "How distinguishable is the synthetic data?"
NOT_LEAKAGE = ("Distinguishability is not leakage: a generator that copied its training records exactly would be "
               "indistinguishable from the real data, and a generator that leaks nothing can still be easy to tell "
               "apart from it.")
DISTINGUISHABILITY_INTRO = ("These measures say how easily real and synthetic records can be told apart. They "
                            "describe how faithful the synthetic data is, not whether it reveals real people. "
                            + NOT_LEAKAGE)

OTHERS_TITLE = "Other measures (not behind the verdict)"
OTHERS_INTRO = ("These measures are shown for context and do not drive the verdict, whatever their level: the verdict "
                "rests on the checks above, each of which compares the synthetic data directly with real records the "
                "generator never saw under a rule cited from a paper or a vendor's documentation. The measures below "
                "overlap with those "
                "checks or have no published risk bands; where a holdout was given, most of their levels compare "
                "the value with what the holdout reaches in place of the synthetic data (last column).")
CHECKS_TITLE = "The checks behind the verdict"
CHECKS_INTRO = ("These checks compare the synthetic data with the real records the generator learned from and with "
                "real records it never saw (the holdout). The verdict is the highest level among those that ran.")


def _spec_of(m: Mapping[str, Any]) -> MetricSpec | None:
    """The declaration of the metric whose JSON form is ``m`` (None for a name no metric registers, as in a
    document written by another version)."""
    try:
        return get_spec(str(m.get("name", "")))
    except (ValueError, TypeError):
        return None


def value_kind(m: Mapping[str, Any]) -> ValueKind:
    """What kind of number a metric's headline value is (from its JSON form): share, score, AUC, distance, number.

    A registered metric's kind is its declaration's (:meth:`MetricSpec.kind`); another name's is read from the
    range it states.

    >>> value_kind({"name": "exact_copies"}), value_kind({"name": "x", "value_range": [0, 100]})
    ('share', 'score')
    """
    spec = _spec_of(m)
    if spec is not None:
        return spec.kind()
    rng = m.get("value_range") or (None, None)
    return "score" if list(rng) == [0, 100] else "number"


def interval_label(m: Mapping[str, Any]) -> str:
    """How the interval of a metric was made, in words ("Wilson 95%", "min-max over the 5 fold AUCs", ...).

    >>> interval_label({"name": "exact_copies"})
    'Wilson 95%'
    """
    spec = _spec_of(m)
    kind = spec.interval_kind if spec is not None else ""
    if not kind:
        details = m.get("details") or {}
        kind = str(details.get("interval_kind") or details.get("interval_method") or "")
    return kind or "95% interval (method not stated by the metric)"


def range_text(m: Mapping[str, Any]) -> str:
    """The range of a metric's value in words: the declaration's ``range_note`` where it has one for this
    result (distances in the gower space are in [0, 1]), else the declared range.

    >>> range_text({"name": "dcr", "value_range": [0, None], "space": "gower"})
    'from 0 to 1 (gower distances average per-column differences, each between 0 and 1)'
    >>> range_text({"name": "dcr", "value_range": [0, None], "space": "euclidean"})
    '0 or more'
    >>> range_text({"name": "exact_copies", "value_range": [0, 1]})
    'from 0% to 100%'
    """
    lo, hi = (list(m.get("value_range") or [None, None]) + [None, None])[:2]
    spec = _spec_of(m)
    note = spec.range_note(m) if spec is not None and spec.range_note is not None else None
    if note:
        return note
    kind = value_kind(m)
    if hi is None or (isinstance(hi, float) and math.isinf(hi)):
        return f"{fmt_number(lo)} or more"
    return f"from {fmt_value(lo, kind)} to {fmt_value(hi, kind)}"


# ---------------------------------------------------------------------------------------------------------------
# levels: what was graded, whether it drives the verdict


def graded_text(m: Mapping[str, Any]) -> str:
    """When a level is graded on another quantity than the value shown, that quantity and its number; for an
    inconclusive level, also the risk it could not rule out.

    >>> print(graded_text({"value": 0.5, "level": "inconclusive", "level_rule": {"scale": "the value",
    ...       "inconclusive_because": "cannot rule out a risk up to 62%"}}))
    Inconclusive: cannot rule out a risk up to 62%.
    """
    text = _graded_text(m)
    why = (m.get("level_rule") or {}).get("inconclusive_because")
    if m.get("level") == "inconclusive" and why:
        text = (text + " " if text else "") + f"Inconclusive: {why}."
    return text


def _graded_text(m: Mapping[str, Any]) -> str:
    """When a level is graded on another quantity than the value shown, that quantity and its number.

    Empty when the level is graded on the value itself (then level and value agree by construction). The
    declaration's ``graded_note`` says it where the rule's scale alone would not.

    >>> m = {"name": "mir", "value": 0.99, "level": "low", "level_rule": {"scale": "the membership advantage",
    ...      "graded": 0.003}, "details": {"holdout_predicted_real": 0.987}}
    >>> print(_graded_text(m))  # doctest: +NORMALIZE_WHITESPACE
    Graded on the membership advantage: 0.003, not on the value shown (99% of real test records were labelled
    real, and 98.7% of the holdout records too).
    """
    rule = m.get("level_rule") or {}
    scale = str(rule.get("scale") or "the value")
    if not m.get("level") or scale == "the value":
        return ""
    graded = rule.get("graded")
    unit = rule.get("unit")
    spec = _spec_of(m)
    note = spec.graded_note(m) if spec is not None and spec.graded_note is not None else None
    if note:
        return note
    if _finite(graded):
        # read like the rule's thresholds (a share in percent, a difference of shares in percentage points), so
        # that the number, the rule and the value shown compare at a glance
        return f"Graded on {scale}: {fmt_on_unit(graded, unit)}."
    return f"Graded on {scale}."


def is_distinguishability(m: Mapping[str, Any]) -> bool:
    """Whether a metric (JSON form) measures distinguishability (its declared report group)."""
    spec = _spec_of(m)
    return spec is not None and spec.group == "distinguishability"


#: What a measure shows in place of a note on the data that is shown once, under the verdict.
SEE_VERDICT_NOTE = "the note on the data under the verdict bears on this measure"


#: How often the verdict is wrong, from the calibration harness's published figures (benchmarks/bench_calibration.py;
#: the tables and their sizes are in the README, "How often is the verdict wrong?").
VERDICT_RELIABILITY = (
    "How often its checks err was measured by simulation on the UCI Adult and Bank Marketing data (20 to 30,000 "
    "records per set, with and without a holdout): releases of fresh real records of the same population were "
    "graded medium or high in 9 of 860 draws (at most 2 in 40 in a cell of 40 draws), and releases copying 3% "
    "of the training records exactly, 10% with one value changed, or the whole training data with one column "
    "redacted or re-spelled were graded high in all 480 draws at 1,000 and 10,000 records per set. Where most "
    "records are shared by several people, copies cannot be told from "
    "chance.")


#: How often the membership attacks behind the verdict are wrong, from the same harness (its part "attacks").
VERDICT_RELIABILITY_ATTACKS = (
    "The membership attacks raised no alarm in 100 honest draws with a holdout, "
    "and releases that memorise the 2% most atypical training records, every number moved by 1% of its range, "
    "were graded high in all 60 draws (Adult at 1,000 and 10,000 records per set, Bank at 1,000); a leak of 10 "
    "such people among 1,000 was found in 5 of 40 draws, and the same 2% leak on a table of six numbers alone in "
    "2 of 20.")


def verdict_cautions(data_notes: Sequence[Any], notes_of: Mapping[str, Sequence[Any]],
                     driving: Sequence[str]) -> list[str]:
    """The notes on the data that also bear on a check behind the verdict (the holdout unlike the training data):
    shown beside the verdict, once. ``notes_of`` maps a metric's name to its notes."""
    check_notes = {str(n) for name in driving for n in notes_of.get(name) or ()}
    return [str(n) for n in data_notes or () if str(n) in check_notes]

RISK_TITLE = "Synthetic records flagged one by one"


def risk_text(r: Any) -> dict[str, str] | None:
    """The per-record rule's counts (``meta["records_at_risk"]`` of a report) in words; None when absent or
    malformed. The sentences are made again from the numbers, never taken from the document's text.

    >>> t = risk_text({"n_synthetic": 3000, "n_flagged": 2, "reference": "holdout", "n_reference": 1500,
    ...                "n_reference_flagged": 14, "risk_percentile": 1.0, "dcr_cutoff": 0.0041, "nndr_cutoff": 0.12})
    >>> t["summary"].split(" are ")[0]
    '2 of 3,000 synthetic records (0.1%)'
    >>> "0.0041" in t["rule"] and "0.12" in t["rule"]
    True
    """
    if not isinstance(r, Mapping):
        return None
    if isinstance(r.get("reason"), str):
        return {"summary": "The per-record rule could not be set: " + r["reason"], "rule": ""}
    counts = ("n_synthetic", "n_flagged", "n_reference", "n_reference_flagged")
    if not all(isinstance(r.get(k), int) and not isinstance(r.get(k), bool) and r[k] >= 0 for k in counts):
        return None
    pct = r.get("risk_percentile")
    if not _finite(pct) or not 0 < float(pct) < 100 or r["n_flagged"] > r["n_synthetic"] \
            or r["n_reference_flagged"] > r["n_reference"]:
        return None
    holdout = r.get("reference") == "holdout"
    where = "the holdout" if holdout else "the training records, each measured against the others"
    cuts = [f"{label} is below {fmt_number(r.get(key))}" for key, label in
            (("dcr_cutoff", "its distance to the closest training record"),
             ("nndr_cutoff", "its distance ratio (that distance divided by the typical spacing of the real "
                             "records around the closest one)"))
            if _finite(r.get(key))]
    rule = ("A synthetic record is flagged when it is an exact copy of a training record"
            + (", or when " + " or ".join(cuts) if cuts else "")
            + f". The cut-offs are set on {where}, so that the same rule flags at most {float(pct):g}% of them. "
            "This count does not drive the verdict. The flagged records are not listed in this document: records "
            "this close to real people could reveal them.")
    return {"summary": risk_summary(r["n_flagged"], r["n_synthetic"], r["n_reference_flagged"], r["n_reference"],
                                    float(pct), "holdout" if holdout else "training"),
            "rule": rule}


def risk_summary(n_flagged: int, n_synthetic: int, n_ref_flagged: int, n_ref: int, percentile: float,
                 reference: str = "holdout") -> str:
    """One plain sentence comparing the synthetic records flagged with the reference records the rule flags.

    >>> print(risk_summary(3, 3000, 15, 1500, 1.0))  # doctest: +NORMALIZE_WHITESPACE
    3 of 3,000 synthetic records (0.1%) are flagged as at risk. The rule is set so that it flags at most 1% of
    the holdout records, real records the generator never saw: it flags 15 of 1,500 (1.0%). A share well above
    the holdout's means synthetic records sit closer to the training data than new real records do.
    """
    def share(a: int, b: int) -> str:
        return f"{100.0 * a / b:.1f}%" if b else "0%"

    if reference == "holdout":
        who = "the holdout records, real records the generator never saw"
        whose = "the holdout's"
        fresh = "new real records do"
    else:
        who = "the training records, each measured against the others (no holdout was given)"
        whose = "theirs"
        fresh = "the training records sit to each other"
    return (f"{n_flagged:,} of {n_synthetic:,} synthetic records ({share(n_flagged, n_synthetic)}) are flagged as "
            f"at risk. The rule is set so that it flags at most {percentile:g}% of {who}: it flags "
            f"{n_ref_flagged:,} of {n_ref:,} ({share(n_ref_flagged, n_ref)}). A share well above {whose} means "
            f"synthetic records sit closer to the training data than {fresh}.")


def drives_text(m: Mapping[str, Any], driving: Sequence[str]) -> str:
    """Whether a metric drives the verdict and, if not, why not (one sentence)."""
    if m.get("name") in driving:
        return "Drives the verdict."
    if is_distinguishability(m):
        return ("Does not drive the verdict: it measures how easily real and synthetic records are told apart, "
                "which is not leakage.")
    return ("Does not drive the verdict: the verdict rests on the checks listed with it, which compare "
            "the synthetic data directly with unseen real records; this measure is shown for context.")


# ---------------------------------------------------------------------------------------------------------------
# one plain sentence per check


def check_sentence(m: Mapping[str, Any]) -> str:
    """One plain sentence saying what a check found, with its number formatted (JSON form of the metric): the
    declaration's ``finding``, or the value with what the metric measures.

    >>> print(check_sentence({"name": "exact_copies", "computed": True, "value": 0.095,
    ...     "details": {"n_copies": 57, "n": 600, "holdout_copy_share": 0.0}}))  # doctest: +NORMALIZE_WHITESPACE
    9.5% of the synthetic records (57 of 600) are exact copies of a real training record; among real records
    the generator never saw, 0% equal a training record.
    """
    name = m.get("name")
    v = m.get("value")
    title = m.get("title") or name
    if not m.get("computed", v is not None):
        return f"{title} could not be computed: {m.get('reason_not_computed')}"
    spec = _spec_of(m)
    if spec is not None and spec.finding is not None:
        return spec.finding(m)
    kind = value_kind(m)
    words = spec.words if spec is not None else None
    what = f" It measures {words.measures}." if words is not None else ""
    return f"{title}: {fmt_value(v, kind)}.{what}"


# ---------------------------------------------------------------------------------------------------------------
# the inputs and the settings


def chosen_text(how: Any) -> str:
    """How the key fields were chosen, in words."""
    known = {"given": "given for this evaluation",
             "every analysed column not sensitive": "not given, so every analysed column that is not sensitive"}
    if how is None:
        return "not recorded"
    return known.get(str(how), str(how))


def set_rows(meta: Mapping[str, Any], fingerprints: Mapping[str, Any] | None = None,
             sizes: Mapping[str, Any] | None = None) -> list[dict[str, str]]:
    """One row per data set: what it is, its name, rows, columns, fingerprint (from ``meta["sets"]``, or from
    the older ``sizes``/``fingerprints`` fields of a document)."""
    rows = []
    sets = meta.get("sets") or []
    if sets:
        for s in sets:
            role = str(s.get("role"))
            rows.append({"role": ROLE_WORDS.get(role, role), "name": str(s.get("name") or role),
                         "rows": fmt_count(s.get("rows")), "columns": fmt_count(s.get("columns")),
                         "fingerprint": str(s.get("fingerprint") or "—")})
        return rows
    for key, n in (sizes or {}).items():
        role = _ROLE_OF_SET.get(key, key)
        rows.append({"role": ROLE_WORDS.get(role, role), "name": role, "rows": fmt_count(n), "columns": "—",
                     "fingerprint": str((fingerprints or {}).get(key) or "—")})
    return rows


#: Settings of the evaluation in words (the identifier is shown beside them in a code font).
SETTING_WORDS: dict[str, str] = {
    "key_fields": "Key fields (what an attacker is assumed to know about a person)",
    "key_fields_chosen": "How the key fields were chosen",
    "sensitive_fields": "Sensitive fields (what an attacker wants to learn)",
    "excluded": "Columns left out of the analysis",
    "pairing": "Pairing of real and synthetic records given by the generator",
    "spaces": "Distance space chosen per measure",
    "nndr_k": "Neighbours averaged in the nearest-neighbour distance ratio",
    "n_components": "Dimensions kept in the projected (principal-component) space",
    "max_rows": "Most records per set given to the classifiers",
    "random_state": "Random state (makes every random step repeatable)",
    "row_order": "Order of the records (canonical: every number independent of the row order)",
    "calibrate": "Each measure also computed with the holdout in place of the synthetic data",
    "reveal_real_values": "Real record values shown in this report",
    "engine": "Nearest-neighbour search method",
    "device": "Processor of the neighbour searches",
    "verdict_metrics": "Checks behind the verdict",
    "levels": "Level thresholds set for this report",
}
_NONE_WORDS = {"spaces": "the default of each measure", "n_components": "automatic (95% of the variance)",
               "pairing": "none given", "random_state": "not fixed (numbers may change between runs)",
               "levels": "none: the package defaults"}
_VALUE_WORDS = {"engine": {"auto": "chosen per search (auto)", "tree": "tree search", "tiled": "tiled exact scan"},
                "device": {"cpu": "CPU", "cuda": "GPU (CUDA)", "auto": "GPU when available, else CPU"}}
_SKIP = {"columns", "sizes", "metrics", "default_params", "key_fields_chosen"}


def _plain(v: Any) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (int, float)):
        return fmt_number(v)
    if v is None:
        return "—"
    if isinstance(v, Mapping):
        return "; ".join(f"{k}: {_plain(x)}" for k, x in v.items()) or "—"
    if isinstance(v, (list, tuple)):
        return ", ".join(_plain(x) for x in v) or "none"
    return str(v)


def setting_rows(settings: Mapping[str, Any], params: Mapping[str, Any] | None = None) -> list[dict[str, str]]:
    """Every setting and reduction parameter as ``{"words", "code", "value"}`` rows, in plain words.

    >>> [r["value"] for r in setting_rows({"calibrate": True, "max_rows": 20000, "spaces": None})]
    ['yes', '20,000', 'the default of each measure']
    """
    rows = []
    for key, v in settings.items():
        if key in _SKIP:
            continue
        if key == "verdict_metrics" and isinstance(v, (list, tuple)):
            value = ", ".join(_title_of(x) for x in v) or "none"
        elif v is None or (key in ("levels", "excluded") and not v):
            value = _NONE_WORDS.get(key, "none")
        elif key in _VALUE_WORDS and isinstance(v, str):
            value = _VALUE_WORDS[key].get(v, v)
        else:
            value = _plain(v)
        rows.append({"words": SETTING_WORDS.get(key, key.replace("_", " ").capitalize()), "code": key,
                     "value": value})
    if params:
        from ..core.registry import declared_params

        decl = declared_params()
        for key, v in params.items():
            if key == "levels":
                value = _NONE_WORDS["levels"] if not v else _plain(v)
                rows.append({"words": SETTING_WORDS["levels"], "code": key, "value": value})
                continue
            p = decl.get(key)
            words = (p.doc or p.label) if p is not None else key.replace("_", " ").capitalize()
            rows.append({"words": words, "code": key, "value": _plain(v)})
    return rows


def _title_of(name: Any) -> str:
    try:
        return get_spec(str(name)).title
    except (ValueError, TypeError):
        return str(name)


# ---------------------------------------------------------------------------------------------------------------
# the rows of a report's tables


def metric_row(m: Mapping[str, Any], driving: Sequence[str] = ()) -> dict[str, Any]:
    """Everything a table row shows of one metric (its JSON form), formatted for a reader."""
    kind = value_kind(m)
    computed = bool(m.get("computed", m.get("value") is not None))
    try:
        spec = get_spec(str(m.get("name")))
    except (ValueError, TypeError):
        spec = None
    words = spec.words if spec is not None else None
    records = spec.records_note(m) if computed and spec is not None and spec.records_note is not None else None
    cal = m.get("calibration")
    dist = is_distinguishability(m) and m.get("name") not in driving
    level = m.get("level")
    return {
        "name": str(m.get("name")),
        "title": str(m.get("title") or m.get("name")),
        "computed": computed,
        "value": fmt_value(m.get("value"), kind) if computed else "not computed",
        "interval": interval_text(m.get("interval"), kind, m.get("value_range")) if computed else "—",
        "interval_label": interval_label(m) if computed and m.get("interval") is not None else "",
        # a distinguishability measure is not a risk: its level reads as how easily the two are told apart, in a
        # neutral badge, never "high risk"
        "level": ("dist" if dist and level is not None else level),
        "level_text": (TELL_APART_WORDS.get(level, "no level") if dist
                       else LEVEL_WORDS.get(level, str(level))),
        "graded": graded_text(m) if computed else "",
        "calibration": fmt_value(cal, kind) if _finite(cal) else "—",
        "drives": drives_text(m, driving),
        "driving": m.get("name") in driving,
        "sentence": check_sentence(m) if computed else "",
        "records": records or "",
        "measures": words.measures if words is not None else "",
        "ideal": words.ideal if words is not None else "",
        "direction": {"higher_is_riskier": "higher is riskier",
                      "higher_is_safer": "higher is safer"}.get(str(m.get("direction")), ""),
        "range": range_text(m),
        "reason": m.get("reason_not_computed") or "",
    }


#: The level of a distinguishability measure in words: how easily real and synthetic records are told apart.
TELL_APART_WORDS: dict[Any, str] = {"low": "hard to tell apart", "medium": "fairly easy to tell apart",
                                    "high": "easy to tell apart", None: "no level"}


def interval_text(iv: Any, kind: ValueKind, value_range: Any = None) -> str:
    """An interval in words; one whose two ends are equal says so rather than "100 to 100".

    >>> interval_text([100.0, 100.0], "score", [0, 100])
    '100 at both ends (the value sits at the end of its range, so no spread can be shown)'
    >>> interval_text([0.1, 0.2], "share")
    '10% to 20%'
    """
    if iv is None or len(iv) != 2 or not (_finite(iv[0]) and _finite(iv[1])) or iv[0] != iv[1]:
        return fmt_interval(iv, kind)
    lo, hi = (list(value_range or [None, None]) + [None, None])[:2]
    at_end = iv[0] in (lo, hi)
    return (f"{fmt_value(iv[0], kind)} at both ends"
            + (" (the value sits at the end of its range, so no spread can be shown)" if at_end
               else " (every resample gave the same value)"))


def split_metrics(metrics: Sequence[Mapping[str, Any]], driving: Sequence[str]
                  ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """Rows of (the checks behind the verdict, the distinguishability measures, the other measures).

    A driving check is always in the first list (even a distinguishability metric chosen to drive the verdict);
    the checks keep the verdict's order.
    """
    by_name = {str(m.get("name")): m for m in metrics}
    checks = [metric_row(by_name[n], driving) for n in driving if n in by_name]
    dist, other = [], []
    for m in metrics:
        if m.get("name") in driving:
            continue
        (dist if is_distinguishability(m) else other).append(metric_row(m, driving))
    return checks, dist, other
