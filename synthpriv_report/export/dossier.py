"""The pages a data protection officer's file needs, drawn from the validated document alone.

The release context (stated by the user), the threat model, the residual risks in a regulator's terms with each
attack's absolute rates (:func:`risk_evidence`, :func:`regulator_terms`), the recommended action with its rule and
the facts it depends on (:func:`recommended_action`, :func:`missing_facts`), the limitations and assumptions, the
decision record checked against the recommendation (:func:`decision_context`), the footer that ties each dossier
page to its report (:func:`footer`) and the reproducibility block. Each function returns a plain dict for a
template; every string a user or a file supplied (the context's fields, column and file names) stays a string here
and is escaped by the templates. What a page
says of a measure comes from its declaration (:class:`~synthpriv_report.core.registry.MetricSpec`: ``residual_risk``,
``limitation``, ``sample_note``, ``group``), never from its name.

The public sources these pages rest on: Article 29 Working Party, Opinion 05/2014 on anonymisation techniques
(WP216); the ICO's guidance "Anonymisation, pseudonymisation and privacy enhancing technologies"; EDPB Opinion
28/2024 on certain data protection aspects related to the processing of personal data in the context of AI models;
ISO/IEC 27559:2022, "Privacy enhancing data de-identification framework".
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..core.formats import fmt_count, fmt_share, level_text
from ..core.registry import MetricSpec, get_spec

__all__ = ["DECISION_FIELDS", "ESTIMATE_STATEMENT", "OUTCOME_WORDS", "PUBLIC_SOURCES", "RELEASE_FACTS",
           "SIMILARITY_LIMITS", "context_rows", "decision_context", "footer", "json_file_sha256",
           "limitations_context", "missing_facts", "recommended_action", "regulator_terms",
           "reproducibility_context", "residual_risks", "risk_evidence",
           "threat_model"]

#: The public documents the file is written against.
PUBLIC_SOURCES = (
    "Article 29 Data Protection Working Party, Opinion 05/2014 on anonymisation techniques (WP216), 10 April 2014",
    "Information Commissioner's Office (UK), Anonymisation, pseudonymisation and privacy enhancing technologies "
    "guidance (draft chapters 2021-2022)",
    "European Data Protection Board, Opinion 28/2024 on certain data protection aspects related to the processing "
    "of personal data in the context of AI models, 17 December 2024",
    "ISO/IEC 27559:2022, Information security, cybersecurity and privacy protection - Privacy enhancing data "
    "de-identification framework",
)

#: What checks of similarity and membership attacks on one release can and cannot show, with their public sources
#: (paragraphs).
SIMILARITY_LIMITS = ((
    "Distance checks (copies, closeness, holdout comparisons) can pass releases whose people a membership attack "
    "finds: G. Ganev and E. De Cristofaro, \"On the Inadequacy of Similarity-based Privacy Metrics\" (IEEE Symposium "
    "on Security and Privacy 2025); Z. Yao, N. Krčo, G. Ganev and Y.-A. de Montjoye, \"The DCR Delusion\" (ESORICS "
    "2025)."), ("The risk concentrates on atypical people (M. Meeus, F. Guépin, A.-M. Creţu and Y.-A. de Montjoye, "
    "\"Achilles' Heels\", ESORICS 2023), and outliers stay exposed to attacks with the generator in the loop (T. "
    "Stadler, B. Oprisanu and C. Troncoso, \"Synthetic Data - Anonymisation Groundhog Day\", USENIX Security 2022)."),
    ("This report therefore also runs membership attacks that use real reference records; a low verdict means that "
    "neither the distance checks nor these attacks showed a leak under this threat model, not that no attack could. "
    "Two practices leak by themselves and are not seen here: evaluating many candidate releases against the same "
    "training data and keeping the one that passes (the choice depends on the private data), and removing "
    "synthetic records that lie close to real ones after generation (what is missing points at the people it was "
    "near)."))

#: What every verdict and residual risk is, and is not.
ESTIMATE_STATEMENT = (
    "These figures are statistical estimates for an anonymisation assessment, made from these data with the "
    "attacks and checks named in this report. They are not a legal determination that the synthetic data are "
    "anonymous: that judgement, in its context (purpose, recipients, other data available to them), belongs to "
    "the controller and its data protection officer.")

_MODES = {
    "public": "public (anyone may obtain the data)",
    "restricted": "restricted (named recipients under an agreement)",
    "internal": "internal (within the organisation)",
}
_OUTCOMES = {"release": "Release", "release_with_conditions": "Release with conditions",
             "do_not_release": "Do not release"}
NOT_STATED = "not stated"


def _spec(name: str) -> MetricSpec | None:
    try:
        return get_spec(name)
    except (ValueError, TypeError):
        return None


def _ctx(doc: Mapping[str, Any]) -> dict[str, Any]:
    c = doc.get("context")
    return dict(c) if isinstance(c, Mapping) else {}


def _text(v: Any) -> str:
    if v is None or v == "":
        return NOT_STATED
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (list, tuple)):
        return "; ".join(_text(x) for x in v) or "none"
    if isinstance(v, Mapping):
        return "; ".join(f"{k} = {_text(x)}" for k, x in v.items()) or "none"
    return str(v)


def context_rows(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The release context as rows for the cover: ``{"given", "rows", "generator_rows", "mode", "schema"}``."""
    c = _ctx(doc)
    g = dict(c.get("generator") or {})
    mode = c.get("release_mode")
    rows = [("Purpose of the release", _text(c.get("purpose"))),
            ("Recipients", _text(c.get("recipients"))),
            ("Release mode", _MODES.get(str(mode), NOT_STATED) if mode else NOT_STATED),
            ("Operator (who ran this assessment)", _text(c.get("operator"))),
            ("Organisation", _text(c.get("organisation")))]  # controller or processor: not assumed
    eps = g.get("epsilon")
    gen = [("Generator", _text(g.get("name"))), ("Generator version", _text(g.get("version"))),
           ("Generator settings", _text(g.get("settings")) if g.get("settings") else NOT_STATED),
           ("Differential privacy", NOT_STATED if "epsilon" not in g else
            ("none (no epsilon)" if eps is None else
             f"epsilon = {eps:g}" + (f", delta = {g['delta']:g}" if g.get("delta") is not None else ""))),
           ("Filters applied after generation", _text(g.get("post_filters")) if "post_filters" in g else NOT_STATED),
           ("Trained model released too", _text(g.get("model_released")) if "model_released" in g else NOT_STATED)]
    return {"given": bool(c), "rows": rows, "generator_rows": gen, "mode": mode,
            "schema": c.get("schema") or "", "levels_reason": c.get("levels_reason")}


def _computed(doc: Mapping[str, Any]) -> list[tuple[Mapping[str, Any], MetricSpec]]:
    out = []
    for m in doc["metrics"].values():
        spec = _spec(str(m.get("name")))
        if spec is not None and m.get("computed"):
            out.append((m, spec))
    return out


def _attack_titles(doc: Mapping[str, Any]) -> list[str]:
    return [str(m.get("title") or m.get("name")) for m, spec in _computed(doc)
            if spec.residual_risk is not None or spec.group == "attack"]


def threat_model(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The attacker this report models, what they know and want, what is not modelled, which checks test them."""
    meta = dict(doc.get("meta") or {})
    settings = dict(doc.get("settings") or {})
    keys = [str(k) for k in (meta.get("key_fields") or settings.get("key_fields") or [])]
    sensitive = [str(k) for k in (meta.get("sensitive_fields") or settings.get("sensitive_fields") or [])]
    chosen = meta.get("key_fields_chosen") or settings.get("key_fields_chosen")
    g = dict(_ctx(doc).get("generator") or {})
    not_modelled = [
        "access to the generator or the trained model (attacks that query or inspect the model)"
        + (": the context states that the model is released too, so this matters here"
           if g.get("model_released") is True else ""),
        "several releases from the same training data, combined",
        "linkage to outside registers beyond the key fields listed here",
        "an insider who already holds part of the training data",
        "what is true of the population as a whole (inference about groups, not about a person in the data)",
    ]
    return {"known": keys, "known_chosen": str(chosen) if chosen else "",
            "sensitive": sensitive,
            "attacker": ("Someone who obtains the synthetic data (as the release mode allows) and knows some "
                         "facts about a real person, and tries to learn whether that person was in the training "
                         "data, to single them out, to link their records or to infer a sensitive value."),
            "not_modelled": not_modelled, "tested_by": _attack_titles(doc)}


def residual_risks(doc: Mapping[str, Any], names: Sequence[str] | None = None) -> list[dict[str, str]]:
    """One sentence per measure that declares a residual risk (the three criteria, membership inference), or
    only for the measures ``names``."""
    out = []
    for m, spec in _computed(doc):
        if spec.residual_risk is None or (names is not None and m.get("name") not in names):
            continue
        sentence = spec.residual_risk(m)
        if sentence:
            out.append({"title": str(m.get("title") or m.get("name")), "sentence": sentence,
                        "level": str(m.get("level") or ""), "level_text": level_text(m.get("level"))})
    not_run = [(str(m.get("title") or m.get("name")), str(m.get("reason_not_computed")))
               for m in doc["metrics"].values()
               if not m.get("computed") and (_spec(str(m.get("name"))) or _NOSPEC).residual_risk is not None]
    return out + [{"title": title, "sentence": "Not computed, so no residual risk can be stated: " + why,
                   "level": "", "level_text": ""} for title, why in not_run]


class _NoSpec:
    residual_risk = None


_NOSPEC = _NoSpec()


def _attack_levels(doc: Mapping[str, Any]) -> list[tuple[str, str]]:
    return [(str(m.get("title") or m.get("name")), str(m.get("level"))) for m, spec in _computed(doc)
            if (spec.residual_risk is not None or spec.group == "attack") and m.get("level") in ("medium", "high")]


#: The order of the outcomes, from the strictest.
_STRICTNESS = {"do_not_release": 0, "release_with_conditions": 1, "release": 2}

#: The facts of the release context that a recommendation to release depends on: what a reader is told is missing
#: when one is not stated (``(words, test of the context and its generator block)``).
RELEASE_FACTS: tuple[tuple[str, Any], ...] = (
    ("the release mode (public, restricted or internal)", lambda c, g: c.get("release_mode") is not None),
    ("whether the trained model is released too", lambda c, g: "model_released" in g),
    ("whether the generator is differentially private (its epsilon, or that it has none)",
     lambda c, g: "epsilon" in g),
    ("the filters applied after generation (or that there were none)", lambda c, g: "post_filters" in g),
)


def missing_facts(doc: Mapping[str, Any]) -> list[str]:
    """The facts a recommendation to release depends on that the release context does not state.

    A released model opens attacks that query it (not modelled here), filters applied after generation leak by
    what they remove, and the rule for a public release is stricter: a report cannot recommend "release" while
    any of them is unknown.
    """
    c = _ctx(doc)
    g = c.get("generator") if isinstance(c.get("generator"), Mapping) else {}
    return [words for words, stated in RELEASE_FACTS if not stated(c, g)]


def recommended_action(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The action this report recommends, with the rule it follows (stricter for a public release, stated).

    Returns ``{"action", "action_text", "why", "rule", "public", "missing"}``; ``missing`` lists the facts of the
    release context a release depends on that are not stated (:func:`missing_facts`): with any of them missing,
    "release" becomes "release with conditions", and the reason names them.
    """
    level = str(doc["verdict"]["level"])
    public = _ctx(doc).get("release_mode") == "public"
    raised = _attack_levels(doc)
    missing = missing_facts(doc)
    if level == "not_assessed":
        action, why = "do_not_release", "the checks behind the verdict did not run, so the data were not assessed"
    elif level == "high":
        action, why = "do_not_release", "a check behind the verdict found a high risk"
    elif level == "inconclusive":
        if public:
            action, why = "do_not_release", ("no check behind the verdict found a risk, but not every risk was ruled "
                                             "out, and a public release is held to the stricter rule below")
        else:
            action, why = "release_with_conditions", ("no check behind the verdict found a risk, but not every "
                                                      "risk was ruled out on these data")
    elif level == "medium":
        if public:
            action, why = "do_not_release", ("a check behind the verdict found a medium risk, and a public release "
                                             "is held to the stricter rule below")
        else:
            action, why = "release_with_conditions", "a check behind the verdict found a medium risk"
    elif public and raised:
        action = "release_with_conditions"
        why = ("the checks behind the verdict found a low risk, but for a public release the attack simulations "
               "also count, and " + "; ".join(f"{t}: {level_text(lv)}" for t, lv in raised))
    else:
        action, why = "release", "the checks behind the verdict found a low risk"
    if action == "release" and missing:
        action = "release_with_conditions"
        why += (", but a release also depends on facts the release context does not state: "
                + "; ".join(missing) + " (state them, or make them conditions of the release)")
    rule = ("The rule (this package's, not a legal standard): high, or not assessed: do not release; medium or "
            "inconclusive: release with conditions; low: release, once the release context states the release "
            "mode, whether the model is released, whether the generator is differentially private and the filters "
            "applied after generation. A public release is held to a stricter rule: medium or inconclusive: do not "
            "release; any attack simulation (anonymisation criteria, membership inference) medium or high: release "
            "with conditions.")
    return {"action": action, "action_text": _OUTCOMES[action], "why": why, "rule": rule,
            "public": "yes" if public else "no", "missing": missing}


def limitations_context(doc: Mapping[str, Any], cautions: Sequence[str]) -> dict[str, Any]:
    """The limitations and assumptions page: the residual risks in words, holdout assumption, blind spots, samples,
    what remains."""
    blind, samples = [], []
    for m, spec in _computed(doc):
        title = str(m.get("title") or m.get("name"))
        if spec.limitation:
            blind.append({"title": title, "text": spec.limitation})
        if spec.sample_note is not None:
            try:
                note = spec.sample_note(m)
            except (TypeError, ValueError, KeyError):
                note = None
            if note:
                samples.append({"title": title, "text": note})
    has_holdout = any(str(s.get("role")) == "holdout" for s in (doc.get("meta") or {}).get("sets") or [])
    levels = (doc.get("params") or {}).get("levels")
    reason = _ctx(doc).get("levels_reason")
    return {
        "holdout": ("Every comparison with the holdout assumes that the holdout and the training data were drawn at "
                    "random from the same records, so that the holdout shows what a generator that learned the "
                    "population, and no individual, would reach. If the holdout was chosen differently (other "
                    "years, other sites), the comparisons are biased." if has_holdout else
                    "No holdout was given: measures that need real records the generator never saw did not run, "
                    "and others compare the training data with itself."),
        "cautions": list(cautions), "residual": residual_risks(doc),
        "blind": blind, "samples": samples,
        "population": ("Inference about groups remains: synthetic data that are faithful to the real data reveal "
                       "what is true of the population (for example, that most people of a given age and "
                       "occupation earn above a threshold). The checks here count a leak only where people in the "
                       "training data are exposed more than people outside it; such group-level inference may "
                       "still harm members of small groups, and is for the controller to weigh."),
        "similarity": SIMILARITY_LIMITS,
        "thresholds": ("Level thresholds are this package's defaults, set after the named vendor documentation or "
                       "papers listed in the annex; they are not values set by a regulator."),
        "user_levels": bool(levels),
        "levels_reason": str(reason) if reason else "",
        "estimate": ESTIMATE_STATEMENT,
        "sources": list(PUBLIC_SOURCES),
    }


DEFAULT_TRIGGERS = (
    "a new version of the generator, new generator settings, or a new training data set",
    "a change of purpose, of recipients or of the release mode (for example from restricted to public)",
    "a further release drawn from the same training data",
    "the trained model being released, or made available to the recipients",
    "new outside data that the recipients could link with (a register holding the key fields)",
    "a published attack on synthetic data that these checks do not cover",
)

#: The decision record's fields: (label, key of the context's ``decision`` block, name of the PDF form field).
DECISION_FIELDS = (
    ("Rationale", "rationale", "rationale"),
    ("Conditions of the release", "conditions", "conditions"),
    ("Reason, where the decision departs from the recommendation", None, "departure_reason"),
    ("Opinion of the data protection officer", "dpo_opinion", "dpo_opinion"),
    ("Assessment made by (name, role)", "assessor", "assessor"),
    ("Data protection officer (name)", "dpo", "dpo"),
    ("Decision taken by (name, role)", "decided_by", "decided_by"),
    ("Date of the decision", "date", "decision_date"),
    ("Next review date", "next_review", "next_review"),
)


def decision_context(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The decision record: the outcome boxes, the fields to fill in, and the recorded decision checked against
    the recommendation.

    Returns ``{"boxes", "recorded", "fields", "recommended", "departs", "warning", "triggers", "user_triggers"}``.
    A box is ticked when the release context records that outcome. A field the context fills is printed as its
    text; every other field is left to fill in, on paper or as a PDF form field named ``field``. A recorded
    outcome less strict than the recommendation (``release`` against ``release_with_conditions``, say) sets
    ``departs`` and a ``warning`` that asks for the reason.
    """
    d = dict(_ctx(doc).get("decision") or {})
    outcome = d.get("outcome")
    rec = recommended_action(doc)
    boxes = [{"key": k, "text": t, "ticked": k == outcome, "field": f"outcome_{k}"} for k, t in _OUTCOMES.items()]
    fields = [{"label": label, "value": "" if key is None or d.get(key) is None else str(d[key]), "field": name}
              for label, key, name in DECISION_FIELDS]
    departs = (isinstance(outcome, str) and outcome in _STRICTNESS
               and _STRICTNESS[outcome] > _STRICTNESS[str(rec["action"])])
    warning = ""
    if departs:
        warning = (f"The decision recorded in the release context, \"{_OUTCOMES[str(outcome)]}\", is less strict than "
                   f"this report's recommendation, \"{rec['action_text']}\" ({rec['why']}). A decision that "
                   "departs from the recommendation should state its reason below, and the data protection officer's "
                   "opinion on it.")
    return {"boxes": boxes, "recorded": outcome is not None, "fields": fields, "recommended": rec,
            "departs": departs, "warning": warning, "triggers": list(DEFAULT_TRIGGERS),
            "user_triggers": [str(t) for t in d.get("triggers") or []]}


_SHORT_ROLES = {"real": "training data", "synthetic": "synthetic data", "holdout": "holdout", "reference": "reference"}


def footer(doc: Mapping[str, Any]) -> dict[str, Any]:
    """What every dossier page prints at its foot, tying a printed page to its report and its data.

    ``{"digest": the report's SHA-256 content digest (grouped by eight), "sets": [(role words, first 16 hex
    digits of the canonical fingerprint)], "rows": [(role words, records)]}``; the full fingerprints are in the
    technical annex.
    """
    d = doc.get("digest")
    value = d.get("value") if isinstance(d, Mapping) else None
    digest = " ".join(value[i:i + 8] for i in range(0, len(value), 8)) if isinstance(value, str) else ""
    found = list((doc.get("meta") or {}).get("sets") or [])
    sets = [(_SHORT_ROLES.get(str(s.get("role")), str(s.get("role"))), str(s.get("fingerprint") or "")[:16])
            for s in found if s.get("fingerprint")]
    rows = [(_SHORT_ROLES.get(str(s.get("role")), str(s.get("role"))), fmt_count(s.get("rows"))) for s in found]
    return {"digest": digest, "sets": sets, "rows": rows}


def _pct(v: Any) -> str:
    """A share in words; a rounding residue of an interval's end (below 1e-9) reads 0%."""
    if not isinstance(v, (int, float)) or not math.isfinite(v):
        return "n/a"
    return fmt_share(0.0 if abs(v) < 1e-9 else v)


def _rate(value: Any, iv: Any) -> str:
    if isinstance(iv, (list, tuple)) and len(iv) == 2 and all(isinstance(x, (int, float)) for x in iv):
        return f"{_pct(value)} [{_pct(iv[0])}, {_pct(iv[1])}]"
    return _pct(value)


#: A level's outcome in the words of the three outcomes.
OUTCOME_WORDS = {"low": "ruled out", "inconclusive": "inconclusive", "medium": "shown: medium",
                 "high": "shown: high"}


def _wilson(rate: Mapping[str, Any]) -> list[float] | None:
    v, e = rate.get("value"), rate.get("error")
    if not isinstance(v, (int, float)) or not isinstance(e, (int, float)):
        return None
    return [max(0.0, float(v) - float(e)), min(1.0, float(v) + float(e))]


def risk_evidence(doc: Mapping[str, Any]) -> list[dict[str, str]]:
    """One row per attack simulation with absolute rates: how often the attack succeeds on people in the training
    data and on people outside it, what chance gives, whether the attack was informative, and the outcome.

    The three anonymisation criteria (singling out, linkability, inference: Article 29 Working Party, Opinion
    05/2014) give their attack, control and random-guess success rates with Wilson intervals; the membership
    attacks give their true-positive rate at 1% false accusations (people in the training data found), the rate
    at which people outside it were accused, and chance (1%). An attack is informative when it does better than
    chance: a criterion's attack above its random guess, a membership attack flagging more members than chance
    allows (or, for the single distance attack, an AUC interval above 0.5).
    """
    rows = []
    driving = {str(c.get("metric")) for c in (doc.get("verdict") or {}).get("checks") or []}
    for m, spec in _computed(doc):
        d = m.get("details") or {}
        if spec.group == "attack" and "tpr_at" in d and m.get("name") not in driving:
            continue  # one membership attack of several: the worst case behind the verdict speaks for them
        title = str(m.get("title") or m.get("name"))
        level = str(m.get("level") or "")
        rates = d.get("rates") if isinstance(d.get("rates"), Mapping) else None
        given = m.get("interval")
        iv = list(given) if isinstance(given, (list, tuple)) else [None, None]
        if rates and spec.residual_risk is not None:
            att, ctl, base = (dict(rates.get(k) or {}) for k in ("attack", "control", "baseline"))
            unit = "attempts"
            members, others = _rate(att.get("value"), _wilson(att)), _rate(ctl.get("value"), _wilson(ctl))
            chance, bound = _pct(base.get("value")), f"{_pct(iv[1])} (normalised)"
            informative = (isinstance(att.get("value"), (int, float)) and isinstance(base.get("value"), (int, float))
                           and att["value"] > base["value"])
        elif isinstance(d.get("tpr_at"), Mapping) and "0.01" in d["tpr_at"]:
            one = dict(d["tpr_at"]["0.01"])
            unit = "people"
            members, others = _rate(one.get("tpr"), one.get("tpr_interval")), _rate(one.get("fpr"),
                                                                                     one.get("fpr_interval"))
            chance, bound = "1%", f"{_pct((one.get('tpr_interval') or [None, None])[1])} of the people in it found"
            informative = float(one.get("flagged_members", 0)) > float(one.get("chance_allows", 0))
        elif "tpr_at_1pct_fpr" in d:
            unit = "people"
            members, others = _rate(d.get("tpr_at_1pct_fpr"), d.get("tpr_interval")), _pct(d.get("fpr_achieved"))
            chance, bound = "1%", f"{_pct((d.get('tpr_interval') or [None, None])[1])} of the people in it found"
            informative = isinstance(iv[0], (int, float)) and iv[0] > 0.5  # the AUC's interval above a coin's
        else:
            continue
        rows.append({"name": str(m.get("name")), "title": title, "unit": unit, "members": members, "others": others,
                     "chance": chance, "informative": "yes" if informative else "no", "bound": bound,
                     "outcome": OUTCOME_WORDS.get(level, level_text(level)), "level": level})
    return rows


def regulator_terms(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The residual risk in the words of the public guidance: the means reasonably likely to be used (GDPR
    Recital 26), the motivated intruder (ICO), a risk reduced to a sufficiently remote level (ICO) and an
    insignificant likelihood of extraction (EDPB Opinion 28/2024), with what this report did and did not rule out.

    Returns ``{"intro", "judgement", "found", "weak", "rows"}``: the regulator's test, whose judgement the bounds
    serve, the outcomes in one sentence, the criteria whose attack was no better than chance, :func:`risk_evidence`.
    """
    rows = risk_evidence(doc)
    by = {"ruled out": [r["title"] for r in rows if r["level"] == "low"],
          "shown": [r["title"] for r in rows if r["level"] in ("medium", "high")],
          "inconclusive": [r["title"] for r in rows if r["level"] == "inconclusive"],
          "weak": [r["title"] for r in rows if r["informative"] == "no" and r["unit"] == "attempts"]}
    intro = ("Recital 26 of the GDPR asks whether a person can be identified by any of the means reasonably likely "
             "to be used, singling out among them. The ICO's guidance tests this with a motivated intruder: someone "
             "competent, with no special knowledge or equipment, who wants to identify people and uses what "
             "anyone can find (the internet, libraries, public registers). The attacks below play that intruder "
             "with the means stated in the threat model: the released data, the key fields, and real records of "
             "the same population.")
    judgement = ("The ICO asks that the risk be reduced to a sufficiently remote level; EDPB Opinion 28/2024 asks "
                 "that the likelihood of extracting personal data be insignificant. Whether the bounds below are "
                 "sufficiently remote, or insignificant, for this release is the controller's judgement; the bounds "
                 "are what that judgement can rest on.")
    parts = []
    if by["shown"]:
        parts.append("a risk is shown by " + "; ".join(by["shown"]))
    if by["inconclusive"]:
        parts.append("not ruled out by " + "; ".join(by["inconclusive"]))
    if by["ruled out"]:
        parts.append("ruled out, within the stated bound, by " + "; ".join(by["ruled out"]))
    found = ("For the means tested here: " + "; and ".join(parts) + ".") if parts else (
        "No attack simulation ran in this report (they need a holdout, and the inference attack a sensitive "
        "field), so no residual risk can be stated.")
    weak = ("An anonymisation criterion whose attack does no better than random guessing on these data is no "
            "evidence either way: " + "; ".join(by["weak"]) + ".") if by["weak"] else ""
    return {"intro": intro, "judgement": judgement, "found": found, "weak": weak, "rows": rows}


def json_file_sha256(text: str) -> str:
    """The SHA-256 (hex) of a JSON report's text as written to its file (UTF-8)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _sentences(text: str) -> list[str]:
    """``text`` cut into its sentences (at a full stop followed by a space), each keeping its full stop.

    >>> _sentences("One. Two, e.g. three.")
    ['One.', 'Two, e.g.', 'three.']
    """
    parts = [p.strip() for p in text.split(". ") if p.strip()]
    return [p if p.endswith(".") else p + "." for p in parts]


def reproducibility_context(doc: Mapping[str, Any], json_sha256: str) -> dict[str, Any]:
    """The reproducibility block: command or call, versions, platform, inputs with raw and canonical digests."""
    prov = dict(doc.get("provenance") or {})
    meta = dict(doc.get("meta") or {})
    fps = {str(s.get("role")): (s.get("fingerprint") or "") for s in meta.get("sets") or []}
    inputs = []
    for r in prov.get("inputs") or []:
        role = str(r.get("role"))
        inputs.append({"role": role, "name": str(r.get("name") or role), "file": str(r.get("file") or ""),
                       "sha256": str(r.get("sha256") or ""), "note": str(r.get("note") or ""),
                       "bytes": fmt_count(r.get("bytes")) if r.get("bytes") is not None else "",
                       "fingerprint": str(fps.get(role, ""))})
    platform = dict(prov.get("platform") or {})
    digest = (doc.get("digest") or {}).get("value") if isinstance(doc.get("digest"), Mapping) else None
    return {"command": str(prov.get("command") or ""), "python_call": str(prov.get("python_call") or ""),
            "versions": sorted((str(k), str(v)) for k, v in (doc.get("versions") or {}).items()),
            "platform": [(str(k), str(v)) for k, v in platform.items()],
            "inputs": inputs, "recompute": str(prov.get("fingerprint_recompute") or ""),
            "recompute_steps": _sentences(str(prov.get("fingerprint_recompute") or "")),
            "json_sha256": json_sha256, "content_digest": str(digest or ""),
            "created": str(doc.get("created") or "")}
