"""The pages a data protection officer's file needs, drawn from the validated document alone.

The release context (stated by the user), the threat model, the residual risks in a regulator's terms, a
plain-language summary with a recommended action, the limitations and assumptions, the decision record and the
reproducibility block. Each function returns a plain dict for a template; every string a user or a file supplied
(the context's fields, column and file names) stays a string here and is escaped by the templates. What a page
says of a measure comes from its declaration (:class:`~synthpriv_report.registry.MetricSpec`: ``residual_risk``,
``limitation``, ``sample_note``, ``group``), never from its name.

The public sources these pages rest on: Article 29 Working Party, Opinion 05/2014 on anonymisation techniques
(WP216); the ICO's guidance "Anonymisation, pseudonymisation and privacy enhancing technologies"; EDPB Opinion
28/2024 on certain data protection aspects related to the processing of personal data in the context of AI models;
ISO/IEC 27559:2022, "Privacy enhancing data de-identification framework".
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from ..formats import fmt_count, level_text
from ..registry import MetricSpec, get_spec

__all__ = ["ESTIMATE_STATEMENT", "PUBLIC_SOURCES", "SIMILARITY_LIMITS", "context_rows", "decision_context",
           "json_file_sha256", "limitations_context", "plain_summary", "reproducibility_context", "residual_risks",
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


def residual_risks(doc: Mapping[str, Any]) -> list[dict[str, str]]:
    """One sentence per measure that declares a residual risk (the three criteria, membership inference)."""
    out = []
    for m, spec in _computed(doc):
        if spec.residual_risk is None:
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


def recommended_action(doc: Mapping[str, Any]) -> dict[str, str]:
    """The action this report recommends, with the rule it follows (stricter for a public release, stated)."""
    level = str(doc["verdict"]["level"])
    public = _ctx(doc).get("release_mode") == "public"
    raised = _attack_levels(doc)
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
    rule = ("How the recommendation is made (a package rule, not a legal standard): a high verdict, or one not "
            "assessed, leads to \"do not release\"; a medium or inconclusive verdict to \"release with "
            "conditions\"; a low one (every risk ruled out) to \"release\". For a public release the rule is "
            "stricter: a medium or inconclusive verdict leads to \"do not release\", "
            "and a medium or high level of any attack simulation (anonymisation criteria, membership inference), "
            "which otherwise do not drive the verdict, to \"release with conditions\".")
    return {"action": action, "action_text": _OUTCOMES[action], "why": why, "rule": rule,
            "public": "yes" if public else "no"}


def plain_summary(doc: Mapping[str, Any], verdict_word: str) -> dict[str, Any]:
    """The half-page summary for the person who decides: tested, found, not covered, recommended action."""
    meta = dict(doc.get("meta") or {})
    sets = {str(s.get("role")): s for s in meta.get("sets") or []}
    n = {r: fmt_count(s.get("rows")) for r, s in sets.items()}
    tested = (f"Whether the synthetic data set ({n.get('synthetic', '?')} records) reveals the people in the real "
              f"data it was made from ({n.get('real', '?')} records)"
              + (f", compared with {n['holdout']} real records of the same population that the generator never saw"
                 if "holdout" in n else ", without real records the generator never saw to compare with")
              + ": copies and near copies of real records, synthetic records unusually close to real people, and "
                "simulated attacks (singling out, linking, inferring a sensitive value, telling who was in the "
                "training data).")
    checks = [c for c in doc["verdict"].get("checks") or []]
    fired = [c for c in checks if c.get("level") in ("medium", "high")]
    unsure = [c for c in checks if c.get("level") == "inconclusive"]
    found = (f"Verdict: {verdict_word}. " + (f"{len(fired)} of the {len(checks)} checks behind the verdict found a "
                                             "medium or high risk." if fired else
                                             f"No check of the {len(checks)} behind the verdict found a risk, but "
                                             f"{len(unsure)} could not rule one out on these data." if unsure else
                                             f"Every check of the {len(checks)} behind the verdict ruled its risk "
                                             "out." if checks else "No check behind the verdict ran."))
    not_covered = ("Attacks using the generator itself, repeated releases from the same data, linkage with outside "
                   "registers beyond the key fields, and what the data reveal about groups of people rather than "
                   "individuals (see \"Limitations and assumptions\").")
    return {"tested": tested, "found": found, "risks": residual_risks(doc), "not_covered": not_covered,
            "action": recommended_action(doc), "estimate": ESTIMATE_STATEMENT}


def limitations_context(doc: Mapping[str, Any], cautions: Sequence[str]) -> dict[str, Any]:
    """The limitations and assumptions page: holdout assumption, blind spots, samples, what remains."""
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
        "cautions": list(cautions),
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


def decision_context(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The decision record: the outcome boxes (ticked when the context records one), the fields to fill in."""
    d = dict(_ctx(doc).get("decision") or {})
    outcome = d.get("outcome")
    rec = recommended_action(doc)
    boxes = [{"key": k, "text": t, "ticked": k == outcome} for k, t in _OUTCOMES.items()]
    fields = [("Rationale", d.get("rationale")), ("Conditions of the release", d.get("conditions")),
              ("Opinion of the data protection officer", d.get("dpo_opinion")),
              ("Assessment made by (name, role)", d.get("assessor")),
              ("Data protection officer (name)", d.get("dpo")),
              ("Decision taken by (name, role)", d.get("decided_by")),
              ("Date of the decision", d.get("date")),
              ("Next review date", d.get("next_review"))]
    return {"boxes": boxes, "recorded": outcome is not None, "fields": [(k, "" if v is None else str(v))
                                                                         for k, v in fields],
            "recommended": rec, "triggers": list(DEFAULT_TRIGGERS),
            "user_triggers": [str(t) for t in d.get("triggers") or []]}


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
