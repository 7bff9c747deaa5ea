"""The report notebook: nbformat v4 code cells whose outputs are ``text/html`` + ``text/plain`` bundles.

Every cell is drawn from the validated document (:class:`~synthpriv_report.export.document.ReportData`) by the
export's Jinja templates; no user string ever goes into a Markdown cell (nbconvert's Markdown renderer passes raw
HTML and ``javascript:`` links through). Figures come from :func:`synthpriv_report.display.figures.figures_for`
on the result objects rebuilt from the document (their evidence); nothing is computed.
"""

from __future__ import annotations

import datetime as _dt
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import nbformat

from ..core.formats import fmt_count, level_text
from ..core.registry import GROUP_TITLES, get_spec
from ..core.results import ResultSet
from ..text import wording
from ..text.templating import shorten_text
from . import dossier
from .assessment import assessment_lines, data_assessment_context
from .document import ReportData, dumps, results_from_document
from .error_rates import error_rates
from .schema import SCHEMA
from .templating import render

__all__ = ["DEFAULT_TITLE", "build_notebook", "cover_context", "document_date"]

DEFAULT_TITLE = "Synthetic data privacy report"
#: Details shown per metric (the JSON report keeps them all).
MAX_DETAILS = 40

logger = logging.getLogger(__name__)


def _code(source: str, html: str, text: str, *tags: str) -> Any:
    """A code cell showing ``html`` (``text`` for plain-text readers), as ``nbformat.v4.new_code_cell`` makes it.

    The cell is checked against the notebook format once, with the whole notebook (``new_notebook``), not one
    by one.
    """
    out = nbformat.NotebookNode(output_type="display_data", metadata={},
                                data={"text/plain": text, "text/html": html})
    cell = nbformat.NotebookNode(id=nbformat.v4.nbbase.random_cell_id(),  # type: ignore[attr-defined]
                                 cell_type="code",
                                 metadata=nbformat.NotebookNode(), execution_count=None, source=source,
                                 outputs=[out])
    if tags:
        cell.metadata["tags"] = list(tags)
    return cell


def _spec(name: str) -> Any:
    try:
        return get_spec(name)
    except (ValueError, KeyError, TypeError):
        return None


def _group_of(name: str) -> str:
    spec = _spec(name)
    return spec.group if spec is not None and spec.group in GROUP_TITLES else "closeness"


#: Figures already drawn, by document: ``{content digest: {metric: (figures, errors)}}``, the most recent
#: :data:`FIGURE_DOCUMENTS` documents. A document's figures are a function of the document alone (they are drawn from
#: its evidence, with its parameters, in the package's fixed style), and its digest covers every field of it, so an
#: HTML, a PDF and a dossier of one report draw each figure once, whatever order they are written in.
_DRAWN: OrderedDict[str, dict[str, tuple[list[dict[str, str]], list[str]]]] = OrderedDict()
FIGURE_DOCUMENTS = 4
_DRAWN_LOCK = threading.Lock()


def _drawn_figures(doc: Mapping[str, Any]) -> dict[str, tuple[list[dict[str, str]], list[str]]]:
    """The figure store of one document (a new one for a document without a digest)."""
    d = doc.get("digest")
    key = d.get("value") if isinstance(d, Mapping) else None
    if not isinstance(key, str):
        return {}
    with _DRAWN_LOCK:
        store = _DRAWN.pop(key, None) or {}
        _DRAWN[key] = store
        while len(_DRAWN) > FIGURE_DOCUMENTS:
            _DRAWN.popitem(last=False)
    return store


def _figures(results: ResultSet, name: str) -> tuple[list[dict[str, str]], list[str]]:
    """Figures of one metric as ``[{"caption", "alt", "src"}]`` (SVG), and why a figure could not be drawn.

    Drawn from the result rebuilt from the document (its evidence), so a live evaluation and a JSON report give
    the same figures. A figure that fails on damaged evidence is replaced by a note: it must not stop the report.
    """
    from ..display.figures import figure_entries

    r = results[name]
    if not r.computed:
        return [], []
    try:
        return figure_entries(r, results.params), []
    except Exception as exc:  # noqa: BLE001 - any failure of a figure drawn from a document's evidence
        logger.warning("figure of %s could not be drawn: %s", shorten_text(name), exc, exc_info=True)
        return [], [f"{type(exc).__name__}: {exc}"]


def _driving(doc: Mapping[str, Any]) -> list[str]:
    return [str(c["metric"]) for c in doc["verdict"].get("checks") or []]


def _title(doc: Mapping[str, Any], name: str) -> str:
    m = doc["metrics"].get(name)
    if m is not None and m.get("title"):
        return str(m["title"])
    spec = _spec(name)
    return spec.title if spec is not None else name


def _verdict_lead(level: str, n_ran: int, n_checks: int, n_fired: int, n_unsure: int = 0) -> str:
    if level == "not_assessed":
        if n_checks == 0:
            return ("No check behind the verdict was chosen, so the data were not assessed: this is not a "
                    "finding of low risk.")
        return (f"None of the {n_checks} checks behind the verdict could run, so the data were not assessed: "
                "this is not a finding of low risk.")
    rests = (f"The verdict rests on all {n_checks} checks behind it" if n_ran == n_checks
             else f"The verdict rests on {n_ran} of the {n_checks} checks behind it (the others did not run)")
    if n_fired:
        found = f"{n_fired} of them found a medium or high risk, and the verdict takes the highest level found"
    elif n_unsure:
        found = (f"none of them showed a risk, but {n_unsure} could not rule one out on these data, so the verdict "
                 f"is inconclusive: not a finding of low risk")
    else:
        found = "every one of them ruled its risk out"
    return (f"{rests}; {found}. Each check compares the synthetic data with the real records the generator learned "
            f"from: distance checks, and membership attacks by someone who holds the release and other real records "
            f"of the same population.")



def cover_context(data: ReportData, title: str = DEFAULT_TITLE) -> dict[str, Any]:
    """Everything the first page shows, in plain words and formatted numbers (also read by the tests)."""
    doc = data.document
    v = doc["verdict"]
    meta = dict(doc.get("meta") or {})
    settings = dict(doc["settings"])
    driving = _driving(doc)
    checks = []
    for name in driving:
        m = doc["metrics"].get(name)
        lv = next((c["level"] for c in v["checks"] if c["metric"] == name), None)
        if m is None or not m["computed"] or lv is None:
            continue
        row = wording.metric_row(m, driving)
        checks.append({"name": name, "title": row["title"], "sentence": row["sentence"], "level": lv,
                       "level_text": level_text(lv)})
    not_run = [{"name": c["metric"], "title": _title(doc, c["metric"]), "reason": c["reason"]}
               for c in v.get("not_run") or []]
    # a note on the data that also bears on a check behind the verdict (the holdout unlike the training data)
    # is shown beside the verdict, not only at the end of the first page
    cautions = wording.verdict_cautions(doc.get("data_notes") or [],
                                        {n: m.get("notes") or [] for n, m in doc["metrics"].items()}, driving)
    n_checks = len(v.get("checks") or [])
    n_fired = sum(1 for c in checks if c["level"] in ("medium", "high"))
    level = str(v["level"])
    keys = meta.get("key_fields", settings.get("key_fields")) or []
    sensitive = meta.get("sensitive_fields", settings.get("sensitive_fields")) or []
    columns = meta.get("columns")
    if columns:
        col_items = [(str(c.get("name")), str(c.get("kind"))) for c in columns]
    elif isinstance(settings.get("columns"), Mapping):
        col_items = [(str(c), str(k)) for c, k in settings["columns"].items()]
    else:
        col_items = []
    # each name is shortened on its own, so that a long list never hides a name behind one ellipsis
    col_count = f"{fmt_count(len(col_items))}: " if col_items else "not recorded"
    excluded = meta.get("excluded", settings.get("excluded")) or []
    setting_src = {k: x for k, x in settings.items() if k not in ("key_fields", "sensitive_fields", "excluded")}
    return {
        "title": title,
        "verdict": {
            "level": level, "word": level_text(level).upper(),
            "lead": _verdict_lead(level, len(checks), n_checks, n_fired,
                                  sum(1 for c in checks if c["level"] == "inconclusive")),
            "reliability": wording.VERDICT_RELIABILITY if level != "not_assessed" else "",
            "reliability_attacks": wording.VERDICT_RELIABILITY_ATTACKS if level != "not_assessed" else "",
            "checks": checks, "not_run": not_run, "cautions": cautions,
            "not_run_lead": ("Checks behind the verdict that did not run, so the verdict does not rest on them:"
                             if level != "not_assessed" else "Why the checks did not run:"),
        },
        "levels_note": ("Levels: a risk shown (medium or high), ruled out (low: the risky end of the check's interval "
                        "inside its low band) or inconclusive (neither), by one rule per check; the thresholds are "
                        "this package's defaults, set after the source named for each in the annex, not values set "
                        "by a regulator. The holdout is a set of real records the generator never saw: what it "
                        "reaches is a reference, itself an estimate, for an honest generator."),
        "estimate": dossier.ESTIMATE_STATEMENT,
        "release": dossier.context_rows(doc),
        "threat": dossier.threat_model(doc),
        "sets": wording.set_rows(meta, doc.get("fingerprints"), settings.get("sizes")),
        "fingerprint_algorithm": str(meta.get("fingerprint_algorithm")
                                     or "SHA-256 of the analysed columns in a canonical text form"),
        "key_fields": [str(k) for k in keys], "key_fields_none": "none",
        "key_fields_chosen": wording.chosen_text(meta.get("key_fields_chosen", settings.get("key_fields_chosen"))),
        "sensitive_fields": [str(c) for c in sensitive],
        "sensitive_none": "none given (the attacks that need one did not run)",
        "columns": col_items, "columns_count": col_count,
        "excluded": [str(c) for c in excluded],
        "revealed": data.revealed,
        "version": doc["generator"]["version"],
        "created": doc["created"],
        "source": ("drawn again from a saved JSON report, without the data (its numbers checked against their "
                   "stored counts)") if data.from_json
        else "drawn from the evaluation of the data sets listed in this annex",
        "settings": wording.setting_rows(setting_src, doc["params"]),
        "data_notes": list(doc.get("data_notes") or []),
        "digest": _digest_text(doc),
    }


def _digest_text(doc: Mapping[str, Any]) -> str | None:
    """The document's SHA-256 digest as shown on the cover (grouped by eight for reading aloud), or None."""
    d = doc.get("digest")
    value = d.get("value") if isinstance(d, Mapping) else None
    if not isinstance(value, str):
        return None
    return " ".join(value[i:i + 8] for i in range(0, len(value), 8))


def _cover(data: ReportData, title: str) -> tuple[str, str]:
    ctx = cover_context(data, title)
    html = render("cover.html.j2", **ctx)
    v = ctx["verdict"]
    text = "\n".join([shorten_text(title, 200), f"Verdict: {v['word']}", v["lead"]]
                     + [x for x in (v["reliability"], v["reliability_attacks"]) if x]
                     + [f"- {c['title']}: {c['sentence']} ({c['level_text']})" for c in v["checks"]]
                     + [f"- did not run: {n['title']}: {shorten_text(n['reason'], 600)}" for n in v["not_run"]])
    return html, text


def dossier_context(data: ReportData, title: str = DEFAULT_TITLE) -> dict[str, Any]:
    """Everything the data protection officer's four pages show (also read by the tests)."""
    doc = data.document
    cover = cover_context(data, title)
    driving = _driving(doc)
    checks = []
    for c in cover["verdict"]["checks"]:
        row = wording.metric_row(doc["metrics"][c["name"]], driving)
        interval = str(row.get("interval") or "")
        checks.append({**c, "value": row["value"], "interval": interval if len(interval) <= 30 else ""})
    regulator = dossier.regulator_terms(doc)
    return {"title": title, "verdict": cover["verdict"], "checks": checks,
            "action": dossier.recommended_action(doc), "sets": cover["sets"], "created": cover["created"],
            "version": cover["version"], "estimate": dossier.ESTIMATE_STATEMENT, "foot": dossier.footer(doc),
            "regulator": regulator, "risks": dossier.residual_risks(doc, [r["name"] for r in regulator["rows"]]),
            "threat": cover["threat"], "d": dossier.decision_context(doc), "a": data_assessment_context(doc),
            "e": _error_rates(doc)}


def _error_rates(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The error rates for this report, or why they cannot be given (a report saved before data sets were
    described, say)."""
    try:
        return error_rates(doc)
    except ValueError as exc:
        return {"measured": False, "sentences": [f"How often this verdict would be wrong for data like these is not "
                                                 f"stated: {exc}."]}


def _dossier(data: ReportData, title: str, alone: bool = False) -> tuple[str, str]:
    ctx = dossier_context(data, title)
    html = render("dossier.html.j2", alone=alone, **ctx)
    v, act, d = ctx["verdict"], ctx["action"], ctx["d"]
    lines = ([shorten_text(title, 200), f"Verdict: {v['word']}", v["lead"]]
             + [f"- {c['title']}: {c['value']} ({c['level_text']})" for c in ctx["checks"]]
             + [f"Recommended action: {act['action_text']}: {act['why']}"]
             + [ctx["regulator"]["found"]] + [f"- {r['title']}: {r['sentence']}" for r in ctx["risks"]]
             + assessment_lines(ctx["a"]) + list(ctx["e"].get("sentences") or []) + ["Decision record"]
             + [f"[{'x' if b['ticked'] else ' '}] {b['text']}" for b in d["boxes"]]
             + ([f"Warning: {d['warning']}"] if d["warning"] else [])
             + [f"{f['label']}: {f['value'] or '________'}" for f in d["fields"]] + ["Signature: ________"])
    return html, "\n".join(lines)


def _limitations(data: ReportData) -> tuple[str, str]:
    doc = data.document
    driving = _driving(doc)
    cautions = wording.verdict_cautions(doc.get("data_notes") or [],
                                        {n: m.get("notes") or [] for n, m in doc["metrics"].items()}, driving)
    lim = dossier.limitations_context(doc, cautions)
    html = render("limitations.html.j2", l=lim)
    text = "\n".join(["Limitations and assumptions", lim["holdout"]]
                     + [f"- {b['title']}: {b['text']}" for b in lim["blind"]] + [lim["population"]])
    return html, text


def _reproducibility(data: ReportData) -> tuple[str, str]:
    doc = data.document
    r = dossier.reproducibility_context(doc, dossier.json_file_sha256(dumps(data.to_dict())))
    html = render("reproducibility.html.j2", r=r)
    text = "\n".join(["Reproducibility", f"command: {r['command'] or '-'}", f"python: {r['python_call'] or '-'}",
                      f"JSON report SHA-256: {r['json_sha256']}"]
                     + [f"{i['name']}: {i['sha256'] or i['note']} / {i['fingerprint']}" for i in r["inputs"]])
    return html, text


def _annex(data: ReportData, title: str) -> tuple[str, str]:
    html = render("annex_inputs.html.j2", **cover_context(data, title))
    return html, "Technical annex: data sets, settings, methods, every measure, level rules."


def _summary(data: ReportData) -> tuple[str, str]:
    doc = data.document
    checks, dist, others = wording.split_metrics(list(doc["metrics"].values()), _driving(doc))
    risk = wording.risk_text((doc.get("meta") or {}).get("records_at_risk"))
    html = render("summary.html.j2", checks=checks, distinguishability=dist, others=others, risk=risk,
                  checks_intro=wording.CHECKS_INTRO, others_intro=wording.OTHERS_INTRO,
                  checks_title=wording.CHECKS_TITLE, others_title=wording.OTHERS_TITLE,
                  dist_title=wording.DISTINGUISHABILITY_TITLE, dist_intro=wording.DISTINGUISHABILITY_INTRO,
                  risk_title=wording.RISK_TITLE)
    lines = [wording.CHECKS_TITLE]
    lines += [f"  {shorten_text(r['title']):<40} {r['value']:>14} {r['level_text']}" for r in checks]
    if risk:
        lines += ["", wording.RISK_TITLE, "  " + risk["summary"]]
    if dist:
        lines += ["", wording.DISTINGUISHABILITY_TITLE]
        lines += [f"  {shorten_text(r['title']):<40} {r['value']:>14} {r['level_text']} ({r['drives']})"
                  for r in dist]
    if others:
        lines += ["", wording.OTHERS_TITLE]
        lines += [f"  {shorten_text(r['title']):<40} {r['value']:>14} {r['level_text']}" for r in others]
    return html, "\n".join(lines)


def _methods(data: ReportData) -> tuple[str, str]:
    doc = data.document
    metrics = list(doc["metrics"].values())
    params = doc["params"]
    html = render(
        "methods.html.j2",
        spaces=sorted({str(m["space"]).split("(")[0] for m in metrics if m["computed"] and m["space"]})[:20],
        n_bootstrap=fmt_count(params.get("n_bootstrap")),
        calibrated=any(m["calibration"] is not None for m in metrics),
        checks=[_title(doc, n) for n in _driving(doc)],
        from_json=data.from_json,
    )
    return html, "Methods: exact nearest-neighbour searches; intervals labelled by kind; levels by one rule each."


def _metric(results: Callable[[], ResultSet], m: Mapping[str, Any], group_title: str | None, driving: list[str],
            group_intro: str = "", drawn: dict[str, Any] | None = None) -> tuple[str, str]:
    spec = _spec(m["name"])
    store = {} if drawn is None else drawn
    if m["name"] not in store:
        store[m["name"]] = _figures(results(), m["name"])
    figures, errors = store[m["name"]]
    details = [(k, v) for k, v in m["details"].items() if k not in ("interval_kind", "interval_method")]
    row = wording.metric_row(m, driving)
    html = render(
        "metric.html.j2", m=m, r=row, group_title=group_title, group_intro=group_intro,
        definition=getattr(spec, "definition", "") or "", summary=getattr(spec, "summary", "") or "",
        words=getattr(spec, "words", None),
        figures=figures, figure_errors=errors,
        details=details[:MAX_DETAILS], more_details=max(len(details) - MAX_DETAILS, 0),
    )
    head = f"{shorten_text(row['title'])} ({shorten_text(m['name'])})"
    if m["computed"]:
        body = f"value {row['value']}  level {row['level_text']}"
        if row["graded"]:
            body += f"  ({row['graded']})"
        if row["records"]:
            body += f"\n{row['records']}"
    else:
        body = f"not computed: {shorten_text(m['reason_not_computed'], 600)}"
    return html, f"{head}\n{body}"


def _appendix(data: ReportData) -> tuple[str, str]:
    from ..core.params import SOURCES

    doc = data.document
    not_computed = [m for m in doc["metrics"].values() if not m["computed"]]
    not_selected = []
    for name in doc["registered_metrics"]:
        if name not in doc["metrics"]:
            spec = _spec(name)
            not_selected.append((name, getattr(spec, "title", "") or name))
    # measures that share one rule (the same words, applied to the same quantity, from the same source) share one
    # row, so that a rule read once is not printed again for each of them
    groups: dict[tuple[str, str, str], dict[str, Any]] = {}
    for m in doc["metrics"].values():
        rule = m["level_rule"]
        if rule is None:
            continue
        key = (rule["description"], rule.get("scale") or "the value", rule["source"])
        group = groups.setdefault(key, {"description": key[0], "scale": key[1], "source": key[2], "measures": []})
        group["measures"].append((m["title"] or m["name"], m["name"]))
    rules = list(groups.values())
    given = doc.get("context")
    ctx = given if isinstance(given, Mapping) else {}
    html = render("appendix.html.j2", rules=rules, sources=list(SOURCES.values()), not_computed=not_computed,
                  not_selected=not_selected, user_levels=bool((doc.get("params") or {}).get("levels")),
                  levels_reason=str(ctx.get("levels_reason") or ""))
    text = "\n".join(f"{shorten_text(m['name'])}: {shorten_text(m['reason_not_computed'], 600)}"
                     for m in not_computed) or "every selected measure computed"
    return html, text


def document_date(created: Any) -> str | None:
    """The report's creation time as the W3C date-time a page's ``<meta name="dcterms.created">`` carries: UTC,
    to the second (``2026-12-06T20:41:22+00:00``); None when ``created`` is not an ISO 8601 time with a zone.

    A PDF's creation and modification dates are this time (the time the JSON report records), never the time it
    was printed, so that the PDF, its XMP metadata and its attached JSON name one moment; a report read back from
    a JSON file whose time cannot be read gets no dates rather than a wrong one.

    >>> document_date("2026-12-06T21:41:22.5+01:00")
    '2026-12-06T20:41:22+00:00'
    >>> document_date("yesterday") is None, document_date("2026-12-06T20:41:22") is None
    (True, True)
    """
    try:
        when = _dt.datetime.fromisoformat(str(created))
    except ValueError:
        return None
    if when.tzinfo is None or when.utcoffset() is None:
        return None
    return when.astimezone(_dt.timezone.utc).replace(microsecond=0).isoformat()


def build_notebook(data: ReportData, *, title: str = DEFAULT_TITLE, dossier_only: bool = False,
                   after_dossier: Sequence[tuple[str, str]] = ()) -> Any:
    """An nbformat v4 notebook of the report: code cells whose outputs are HTML bundles (no Markdown cells).

    The report opens with the data protection officer's dossier (four pages: verdict and recommendation, residual
    risk, the data and the error rates, the decision record), followed by the technical annex (cover, summary,
    limitations, reproducibility, methods, every measure, the rules).

    Parameters
    ----------
    data : ReportData
        The validated report (:func:`~synthpriv_report.export.report_data`).
    title : str
        Document title (shown on the cover, shortened; the notebook's metadata keeps it whole).
    dossier_only : bool, default False
        The dossier alone, to be printed and signed apart from the annex.
    after_dossier : sequence of (html, text)
        Pages placed between the dossier and the annex, each starting a new page (a comparison of several
        releases puts its page on choosing among them here).
    """
    doc = data.document
    if dossier_only:
        return _notebook([_code("report.dossier()", *_dossier(data, title, alone=True), "spr-dossier")], doc, title)
    metrics = list(doc["metrics"].values())
    # figures come from the document too, like every text; drawn once per document (:data:`_DRAWN`)
    rebuilt: list[ResultSet] = []

    def drawn_from() -> ResultSet:
        if not rebuilt:
            rebuilt.append(results_from_document(doc))
        return rebuilt[0]

    store = _drawn_figures(doc)
    cover = _cover(data, title)
    driving = _driving(doc)
    cells = [
        _code("report.dossier()", *_dossier(data, title), "spr-dossier"),
        *(_code(f"report.page({i})", html, text, "spr-page-break") for i, (html, text) in enumerate(after_dossier)),
        _code("report.cover()", *cover, "spr-cover"),
        _code("report.summary()", *_summary(data), "spr-page-break"),
        _code("report.limitations()", *_limitations(data), "spr-page-break"),
        _code("report.reproducibility()", *_reproducibility(data), "spr-page-break"),
        _code("report.annex()", *_annex(data, title), "spr-page-break"),
        _code("report.methods()", *_methods(data)),
    ]
    first_metric = len(cells)
    for key, group_title in GROUP_TITLES.items():
        members = [m for m in metrics if _group_of(m["name"]) == key]
        intro = ""
        if key == "distinguishability":
            group_title, intro = wording.DISTINGUISHABILITY_TITLE, wording.DISTINGUISHABILITY_INTRO
        for i, m in enumerate(members):
            tags = ("spr-page-break",) if i == 0 else ()
            cells.append(_code(f"report.metric({len(cells) - first_metric})",
                               *_metric(drawn_from, m, group_title if i == 0 else None, driving,
                                        intro if i == 0 else "", store),
                               *tags))
    cells.append(_code("report.appendix()", *_appendix(data), "spr-page-break"))
    return _notebook(cells, doc, title)


def _notebook(cells: list[Any], doc: Mapping[str, Any], title: str) -> Any:
    """The notebook of ``cells``, with the metadata every page is written from."""
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["title"] = shorten_text(title, 200)
    # the page's <meta name="generator"> and <meta name="dcterms.created">/<meta name="dcterms.modified">: WeasyPrint
    # writes them into the PDF's information dictionary and its XMP metadata (the creator tool and both dates)
    nb.metadata["synthpriv_report"] = {"schema": SCHEMA, "created": doc["created"],
                                       "generator": f"synthpriv_report {doc['generator']['version']}".strip(),
                                       "document_date": document_date(doc["created"])}
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb
