"""The data assessment block of a report: what the controller states about the training data, and what to check.

The release context's ``data_assessment`` (schema ``synthpriv_report.context/2``, :mod:`synthpriv_report.core.release`)
states who the people in the data are, where the data come from, whether they are a sample or the whole population,
which columns hold special-category data (Article 9 GDPR) or criminal-offence data (Article 10), the lawful basis,
the DPIA, other safeguards, the data protection officer's contact and the organisation's role. This module turns it
into rows for a data protection officer and adds warnings a reader should not miss: an analysed column whose name
looks like special-category data but is not declared as such, a release made from the whole population, and
special-category data without a DPIA reference.

It reads only a validated report document (the dict of :func:`synthpriv_report.export.document.load_document` or
``to_json``); every string it returns stays a plain string, escaped by the templates (``assessment.html.j2``).
A name's match is a hint for the reader, never a finding about the data: the data's values are not read here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..text.templating import TEXT_WIDTH, shorten_text

__all__ = ["NOT_STATED", "SPECIAL_CATEGORY_WORDS", "assessment_lines", "column_words", "data_assessment_context",
           "special_category_of"]

#: The text of a field the context leaves out (the same words as the release context's rows on the cover).
NOT_STATED = "not stated"

#: Words that, found as whole words in a column's name, suggest special-category data under Article 9(1) GDPR
#: ("personal data revealing racial or ethnic origin, political opinions, religious or philosophical beliefs, or
#: trade union membership, ... genetic data, biometric data for the purpose of uniquely identifying a natural
#: person, data concerning health or data concerning a natural person's sex life or sexual orientation"), or
#: criminal-offence data under Article 10. Keys name the category as the warnings print it; each term is one word or
#: several consecutive words of the name, lower case. A column named ``sex`` or ``gender`` is not special-category
#: data by itself (its value is not a person's sex life or sexual orientation), so neither word is listed.
SPECIAL_CATEGORY_WORDS: dict[str, tuple[str, ...]] = {
    "racial or ethnic origin (GDPR Art. 9(1))": (
        "race", "races", "racial", "ethnic", "ethnicity", "ethnicities", "ethnic origin", "skin colour",
        "skin color"),
    "political opinions (GDPR Art. 9(1))": (
        "political", "politics", "political party", "party affiliation", "voting intention"),
    "religious or philosophical beliefs (GDPR Art. 9(1))": (
        "religion", "religions", "religious", "faith", "belief", "beliefs", "philosophical", "denomination",
        "church"),
    "trade-union membership (GDPR Art. 9(1))": (
        "trade union", "tradeunion", "union member", "union membership", "unionised", "unionized"),
    "genetic data (GDPR Art. 9(1))": (
        "genetic", "genetics", "gene", "genes", "genome", "genomic", "genotype", "dna"),
    "biometric data (GDPR Art. 9(1))": (
        "biometric", "biometrics", "fingerprint", "fingerprints", "facial", "faceprint", "iris scan", "retina",
        "retinal", "voiceprint"),
    "data concerning health (GDPR Art. 9(1))": (
        "health", "diagnosis", "diagnoses", "diagnosed", "diagnostic", "disease", "diseases", "disability",
        "disabilities", "disabled", "medical", "medication", "medications", "medicine", "illness", "illnesses",
        "sickness", "symptom", "symptoms", "clinical", "patient", "psychiatric", "mental", "cancer", "diabetes",
        "diabetic", "hiv", "pregnancy", "pregnant", "bmi", "blood pressure", "cholesterol", "hypertension", "icd"),
    "sex life or sexual orientation (GDPR Art. 9(1))": (
        "sexual", "sexuality", "sex life", "sexlife", "lgbt", "lgbtq", "gay", "lesbian", "bisexual", "homosexual",
        "heterosexual"),
    "criminal convictions and offences (GDPR Art. 10)": (
        "criminal", "crime", "crimes", "conviction", "convictions", "convicted", "offence", "offences", "offense",
        "offenses", "arrest", "arrests", "prison", "incarceration"),
}

_TERMS: tuple[tuple[str, tuple[str, ...]], ...] = tuple(
    (category, tuple(term.split())) for category, terms in SPECIAL_CATEGORY_WORDS.items() for term in terms)
_SEPARATORS = re.compile(r"[\W_]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+|[^\W\d_]+")

_COVERAGE = {"sample": "a sample of the population", "population": "the whole population",
             "unknown": "not known"}
_ROLES = {"controller": "controller", "processor": "processor (processes the data on a controller's behalf)",
          "joint_controller": "joint controller (decides with others why and how the data are processed)"}
_ROLE_OF_COLUMN = {"key": "a key field", "sensitive": "a sensitive field", "column": "an analysed column"}


def column_words(name: str) -> list[str]:
    """The words of a column name, lower case: split on ``_``, ``-``, spaces and other punctuation, and camelCase.

    Parameters
    ----------
    name : str
        A column name.

    Returns
    -------
    list of str
        Its words in order; digits form words of their own.

    Examples
    --------
    >>> column_words("HeartDisease")
    ['heart', 'disease']
    >>> column_words("health_status-code 2")
    ['health', 'status', 'code', '2']
    >>> column_words("HIVStatus")
    ['hiv', 'status']
    """
    return [w.lower() for part in _SEPARATORS.split(str(name)) for w in _CAMEL.findall(part)]


def special_category_of(name: str) -> str | None:
    """The special-category (or criminal-offence) category a column's name suggests, by whole words.

    Parameters
    ----------
    name : str
        A column name.

    Returns
    -------
    str or None
        The first key of :data:`SPECIAL_CATEGORY_WORDS` one of whose terms occurs as whole consecutive words of the
        name (:func:`column_words`, case-insensitive); ``None`` when none does.

    Examples
    --------
    >>> special_category_of("HeartDisease")
    'data concerning health (GDPR Art. 9(1))'
    >>> special_category_of("sex") is None and special_category_of("gender") is None
    True
    >>> special_category_of("racetrack_visits") is None  # "race" only as a whole word
    True
    """
    words = column_words(name)
    for category, term in _TERMS:
        n = len(term)
        if any(tuple(words[i:i + n]) == term for i in range(len(words) - n + 1)):
            return category
    return None


def _text(value: Any) -> str:
    if value is None or value == "":
        return NOT_STATED
    if isinstance(value, (list, tuple)):
        return "; ".join(str(v) for v in value) if value else "none"
    return str(value)


def _rows(block: Mapping[str, Any]) -> list[tuple[str, str]]:
    coverage, role = block.get("coverage"), block.get("organisation_role")
    return [
        ("Data subjects (who the people in the data are)", _text(block.get("data_subjects"))),
        ("Source of the data", _text(block.get("source"))),
        ("Period the data cover", _text(block.get("period"))),
        ("Training data: sample or whole population", _COVERAGE.get(str(coverage), NOT_STATED)),
        ("Special-category data (GDPR Art. 9) or criminal-offence data (Art. 10): columns declared",
         _text(block.get("special_category_fields"))),
        ("Lawful basis", _text(block.get("lawful_basis"))),
        ("DPIA reference (data protection impact assessment)", _text(block.get("dpia_reference"))),
        ("Other safeguards", _text(block.get("safeguards"))),
        ("Contact of the data protection officer", _text(block.get("dpo_contact"))),
        ("The organisation acts as", _ROLES.get(str(role), NOT_STATED)),
    ]


def _columns(meta: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Each analysed column once, with its role: key fields first, then sensitive fields, then the others."""
    seen: dict[str, str] = {}
    named: Iterable[tuple[str, Any]] = [
        *(("key", k) for k in meta.get("key_fields") or ()),
        *(("sensitive", s) for s in meta.get("sensitive_fields") or ()),
        *(("column", c.get("name") if isinstance(c, Mapping) else c) for c in meta.get("columns") or ())]
    for role, name in named:
        if name is not None:
            seen.setdefault(str(name), role)
    return list(seen.items())


def _undeclared_warnings(columns: Sequence[tuple[str, str]], declared: Iterable[Any]) -> tuple[list[str], bool]:
    """A warning for each column whose name suggests special-category data and that is not declared; and whether
    any column's name suggests it (declared or not)."""
    stated = {str(d).strip().casefold() for d in declared}
    warnings, any_detected = [], False
    for name, role in columns:
        category = special_category_of(name)
        if category is None:
            continue
        any_detected = True
        if name.strip().casefold() in stated:
            continue
        warnings.append(
            f"The column \"{name}\" ({_ROLE_OF_COLUMN[role]}) has a name that suggests {category}, but the data "
            "assessment does not declare it as special-category or criminal-offence data. Ask the controller "
            "whether it holds such data; if it does, list it under special_category_fields (a column's name is "
            "only a hint: its values were not examined).")
    return warnings, any_detected


def data_assessment_context(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The data assessment of a report as rows and warnings, for the template ``assessment.html.j2`` (variable
    ``a``).

    Parameters
    ----------
    doc : mapping
        A validated report document: reads ``doc["context"]["data_assessment"]`` (absent in a version-1 context)
        and ``doc["meta"]``'s ``key_fields``, ``sensitive_fields`` and ``columns`` (``[{"name", "kind"}, ...]``).

    Returns
    -------
    dict
        ``rows``: ``(label, text)`` pairs in plain English, ``"not stated"`` where the context leaves a field out;
        ``warnings``: sentences, one for each analysed column whose name suggests special-category data
        (:data:`SPECIAL_CATEGORY_WORDS`) and is not declared in ``special_category_fields``, one when ``coverage``
        is ``"population"``, one when special-category data are declared or suggested by a name and no
        ``dpia_reference`` is given; ``given``: whether the context holds a data assessment. Every string is
        plain text (the templates escape it).

    Examples
    --------
    >>> doc = {"context": {"data_assessment": {"coverage": "population"}},
    ...        "meta": {"key_fields": ["age"], "sensitive_fields": ["religion"], "columns": []}}
    >>> a = data_assessment_context(doc)
    >>> a["given"], dict(a["rows"])["Training data: sample or whole population"]
    (True, 'the whole population')
    >>> [w.split(" (")[0] for w in a["warnings"]][:1]
    ['The column "religion"']
    >>> len(a["warnings"])
    3
    """
    context = doc.get("context")
    block = (context or {}).get("data_assessment") if isinstance(context, Mapping) else None
    block = block if isinstance(block, Mapping) else {}
    meta = doc.get("meta")
    declared = block.get("special_category_fields") or []
    warnings, detected = _undeclared_warnings(_columns(meta if isinstance(meta, Mapping) else {}), declared)
    if block.get("coverage") == "population":
        warnings.append(
            "The training data are stated to be the whole population, not a sample of it: every person in that "
            "population is in the training data. Anyone who knows that someone belongs to the population therefore "
            "knows that this person's record was used, whatever the synthetic data show; the membership checks of "
            "this report cannot protect that fact, and what remains to protect is what the data reveal about each "
            "person.")
    if (declared or detected) and not block.get("dpia_reference"):
        warnings.append(
            "Special-category data are declared, or suggested by a column's name, and no DPIA reference is given. "
            "Under Article 35 GDPR a data protection impact assessment is normally required when special categories "
            "of data are processed on a large scale (Art. 35(3)(b)); give its reference, or record why none was "
            "needed.")
    return {"given": bool(block), "rows": _rows(block), "warnings": warnings}


def assessment_lines(a: Mapping[str, Any]) -> list[str]:
    """The data assessment as lines of plain text (a notebook output's ``text/plain`` form).

    Parameters
    ----------
    a : mapping
        The result of :func:`data_assessment_context`.

    Returns
    -------
    list of str
        A heading, one ``label: text`` line a row and one ``Warning: ...`` line a warning, each text shortened to
        :data:`~synthpriv_report.text.templating.TEXT_WIDTH` characters as the HTML form shortens it.

    Examples
    --------
    >>> assessment_lines({"given": False, "rows": [("Lawful basis", "not stated")], "warnings": []})
    ['Data assessment', 'Lawful basis: not stated']
    """
    return (["Data assessment"] + [f"{label}: {shorten_text(text, TEXT_WIDTH)}" for label, text in a["rows"]]
            + [f"Warning: {shorten_text(w, TEXT_WIDTH)}" for w in a["warnings"]])
