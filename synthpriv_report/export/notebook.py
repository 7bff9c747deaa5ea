"""The report notebook: nbformat v4 code cells whose outputs are ``text/html`` + ``text/plain`` bundles.

Every cell is drawn from the validated document (:class:`~synthpriv_report.export.document.ReportData`) by the
export's Jinja templates; no user string ever goes into a Markdown cell (nbconvert's Markdown renderer passes raw
HTML and ``javascript:`` links through). Figures come from :func:`synthpriv_report.display.figures.figures_for`
on the result objects rebuilt from the document (their evidence); nothing is computed.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import nbformat

from ..registry import GROUP_TITLES, get_spec
from ..results import ResultSet
from .document import ReportData, results_from_document
from .schema import SCHEMA
from .templating import fmt_number, render, shorten_text, value_text

__all__ = ["DEFAULT_TITLE", "LEVEL_WORDS", "build_notebook"]

DEFAULT_TITLE = "Synthetic data privacy report"
LEVEL_WORDS = {"low": "LOW RISK", "medium": "MEDIUM RISK", "high": "HIGH RISK", "not_assessed": "NOT ASSESSED"}
DIRECTION_HINTS = {"higher_is_riskier": "higher is riskier", "higher_is_safer": "higher is safer"}
SET_NAMES = {"T": "real training (T)", "H": "holdout (H)", "S": "synthetic (S)"}
#: Details shown per metric (the JSON report keeps them all).
MAX_DETAILS = 40

logger = logging.getLogger(__name__)


def _code(source: str, html: str, text: str, *tags: str) -> Any:
    out = nbformat.v4.new_output("display_data", data={"text/plain": text, "text/html": html}, metadata={})
    cell = nbformat.v4.new_code_cell(source, outputs=[out])
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


def _section_key(s: str) -> list[int]:
    return [int(p) for p in s.split(".") if p.isdigit() and len(p) < 6] or [99]


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


def _cover(data: ReportData, title: str) -> tuple[str, str]:
    doc = data.document
    v = doc["verdict"]
    settings = dict(doc["settings"])
    sizes = settings.pop("sizes", None)
    sizes = sizes if isinstance(sizes, Mapping) else {}
    settings.pop("default_params", None)
    settings.pop("metrics", None)  # listed in the summary and the appendix
    word = LEVEL_WORDS.get(v["level"], str(v["level"]).upper())
    html = render(
        "cover.html.j2", title=title,
        verdict={"level": v["level"], "word": word, "reasons": v["reasons"], "not_run": v.get("not_run") or [],
                 "checks": v.get("checks") or []},
        created=doc["created"], version=doc["generator"]["version"],
        source="re-rendered from a JSON report (no data)" if data.from_json else "computed evaluation",
        revealed=data.revealed,
        inputs=list((doc.get("inputs") or {}).items()),
        sizes=[(SET_NAMES.get(k, k), n) for k, n in sizes.items()],
        fingerprints=[(SET_NAMES.get(k, k), fp) for k, fp in doc["fingerprints"].items()],
        settings=list(settings.items()),
        data_notes=list(doc.get("data_notes") or []),
    )
    text = "\n".join([shorten_text(title, 200), f"Verdict: {word}"]
                     + [f"- {shorten_text(r, 600)}" for r in v["reasons"]])
    return html, text


def _summary(metrics: list[Mapping[str, Any]]) -> tuple[str, str]:
    text = "\n".join(f"{shorten_text(m['name']):<20} "
                     f"{fmt_number(m['value']) if m['computed'] else 'not computed':>12} {m['level'] or '—'}"
                     for m in metrics)
    return render("summary.html.j2", metrics=metrics), text


def _methods(data: ReportData) -> tuple[str, str]:
    doc = data.document
    metrics = list(doc["metrics"].values())
    params = doc["params"]
    rules = [{"name": m["name"], **m["level_rule"]} for m in metrics if m["level_rule"] is not None]
    html = render(
        "methods.html.j2",
        sections=sorted({m["section"] for m in metrics if m["section"]}, key=_section_key)[:60],
        spaces=sorted({m["space"] for m in metrics if m["computed"] and m["space"]})[:20],
        n_bootstrap=params.get("n_bootstrap"),
        calibrated=any(m["calibration"] is not None for m in metrics),
        checks=[c["metric"] for c in doc["verdict"]["checks"]],
        rules=rules,
        params=[(k, v) for k, v in params.items()],
        from_json=data.from_json,
    )
    text = "Methods\n" + "\n".join(f"{shorten_text(k)} = {value_text(v)}" for k, v in params.items())
    return html, text


def _metric(results: ResultSet, m: Mapping[str, Any], group_title: str | None) -> tuple[str, str]:
    spec = _spec(m["name"])
    figures, errors = _figures(results, m["name"])
    details = list(m["details"].items())
    html = render(
        "metric.html.j2", m=m, group_title=group_title,
        definition=getattr(spec, "definition", "") or "", summary=getattr(spec, "summary", "") or "",
        words=getattr(spec, "words", None), interval_kind=getattr(spec, "interval_kind", "") or "95% interval",
        direction=DIRECTION_HINTS.get(m["direction"], m["direction"]),
        figures=figures, figure_errors=errors,
        details=details[:MAX_DETAILS], more_details=max(len(details) - MAX_DETAILS, 0),
    )
    head = f"{shorten_text(m['title'] or m['name'])} ({shorten_text(m['name'])}, spec {shorten_text(m['section'], 20)})"
    if m["computed"]:
        body = f"value {fmt_number(m['value'])}  level {m['level'] or '—'}"
    else:
        body = f"not computed: {shorten_text(m['reason_not_computed'], 600)}"
    return html, f"{head}\n{body}"


def _appendix(data: ReportData) -> tuple[str, str]:
    doc = data.document
    not_computed = [m for m in doc["metrics"].values() if not m["computed"]]
    not_selected = []
    for name in doc["registered_metrics"]:
        if name not in doc["metrics"]:
            spec = _spec(name)
            not_selected.append((name, getattr(spec, "title", "") or ""))
    html = render("appendix.html.j2", not_computed=not_computed, not_selected=not_selected)
    text = "\n".join(f"{shorten_text(m['name'])}: {shorten_text(m['reason_not_computed'], 600)}"
                     for m in not_computed) or "every selected metric computed"
    return html, text


def build_notebook(data: ReportData, *, title: str = DEFAULT_TITLE) -> Any:
    """An nbformat v4 notebook of the report: code cells whose outputs are HTML bundles (no Markdown cells).

    Parameters
    ----------
    data : ReportData
        The validated report (:func:`~synthpriv_report.export.report_data`).
    title : str
        Document title (shown on the cover, shortened; the notebook's metadata keeps it whole).
    """
    doc = data.document
    metrics = list(doc["metrics"].values())
    drawn = results_from_document(doc)  # figures come from the document too, like every text
    cover = _cover(data, title)
    cells = [
        _code("report.cover()", *cover, "spr-cover"),
        _code("report.summary()", *_summary(metrics), "spr-page-break"),
        _code("report.methods()", *_methods(data)),
    ]
    for key, group_title in GROUP_TITLES.items():
        members = [m for m in metrics if _group_of(m["name"]) == key]
        for i, m in enumerate(members):
            tags = ("spr-page-break",) if i == 0 else ()
            cells.append(_code(f"report.metric({len(cells) - 3})", *_metric(drawn, m, group_title if i == 0 else None),
                               *tags))
    cells.append(_code("report.appendix()", *_appendix(data), "spr-page-break"))
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["title"] = shorten_text(title, 200)
    nb.metadata["synthpriv_report"] = {"schema": SCHEMA, "created": doc["created"]}
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb
