"""A generator audit as one document: the first training run's release report (the data protection officer's
dossier and the technical annex), with a "Generator audit" page right after the dossier.

The JSON document (schema ``synthpriv_report.audit_document/1``) holds the audit
(:meth:`~synthpriv_report.evaluation.audit.Audit.to_dict`: the generator, every run, each measure over the runs, the
canary
audit, the ε pair and the generator's verdict) and the first run's own report document, under one SHA-256 digest.
Read back by :func:`load_audit`, it is checked, not trusted: the digest must match; the first run's report is
validated and its levels derived again like any report's; and the audit's numbers are derived again from what it
stores, by the functions that computed them: each measure's interval from the runs' values and interval widths
(:func:`~synthpriv_report.evaluation.audit.rubin_interval`), each canary row's ε bound from its counts of guesses and
correct
guesses (:func:`~synthpriv_report.stats.one_run_epsilon`), the shadow-model attack's bounds from its counts
(:func:`~synthpriv_report.evaluation.shadow.shadow_epsilon`), and the verdict from the runs' levels and the ε pair
(:func:`~synthpriv_report.evaluation.audit.grade_generator`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..core.formats import level_text
from ..core.registry import get_spec
from ..display.audit import audit_view, epsilon_reading, runs_figure
from ..evaluation.audit import grade_generator, rubin_interval
from ..evaluation.shadow import shadow_epsilon
from ..stats import one_run_epsilon
from .document import ReportData, dumps, read_document, report_data, with_digest
from .notebook import DEFAULT_TITLE
from .templating import render

__all__ = ["AUDIT_DOCUMENT_SCHEMA", "audit_document", "audit_page", "load_audit", "write_audit_reports"]

#: The schema identifier of an audit's JSON document.
AUDIT_DOCUMENT_SCHEMA = "synthpriv_report.audit_document/1"
_TOL = 1e-9


def audit_document(au: Any, *, reveal_real_values: bool | None = None, inputs: Mapping[str, str] | None = None
                   ) -> tuple[dict[str, Any], ReportData | None]:
    """The audit's JSON document and the first run's report content (None for an audit without training runs,
    whose document holds the audit alone).

    Parameters
    ----------
    au : Audit
    reveal_real_values : bool, optional
        As in :func:`~synthpriv_report.export.document.report_data`.
    inputs : mapping, optional
        The input files' names by role (``real``, ``holdout``, ...), recorded in the report.
    """
    data = None
    if au.runs:
        named = {**dict(inputs or {}), "synthetic": "training run 1"}
        data = report_data(au.runs[0].evaluation, reveal_real_values=reveal_real_values, inputs=named)
    audit = au.to_dict()
    body = {"schema": AUDIT_DOCUMENT_SCHEMA,
            "created": data.document["created"] if data is not None else _now(),
            "audit": audit, "first_run_report": None if data is None else data.to_dict()}
    return with_digest(body), data


def _now() -> str:
    import datetime as _dt

    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()


def _close(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    x, y = float(a), float(b)
    if math.isinf(x) or math.isinf(y):
        return x == y
    return abs(x - y) <= _TOL * max(1.0, abs(x), abs(y))


def check_audit(d: Mapping[str, Any], source: str = "the audit") -> None:
    """Derive the audit's numbers again from what it stores and refuse any that differ (the error names the
    field): each measure's interval, each canary row's ε bound, the measured ε and the verdict."""
    for i, m in enumerate(d["metrics"]):
        vals = m.get("values") or []
        if len(vals) >= 2 and m.get("interval") is not None:
            iv = rubin_interval(vals, m.get("halfwidths") or [None] * len(vals))
            spec = get_spec(m["metric"])
            lo, hi = spec.value_range if spec.value_range is not None else (-math.inf, math.inf)
            iv = None if iv is None else (max(iv[0], lo), min(iv[1], hi))
            if iv is None or not (_close(iv[0], m["interval"][0]) and _close(iv[1], m["interval"][1])):
                raise ValueError(f"{source}: field metrics[{i}].interval ({m['metric']}): it is not the interval "
                                 "the runs' values give")
    canary = d.get("canaries")
    measured = None
    if canary:
        out = canary["outcome"]
        for j, row in enumerate(out["rows"]):
            bound = one_run_epsilon(row["guesses"], row["correct"], confidence=out["row_confidence"],
                                    delta=out.get("delta", 0.0), canaries=out["canaries"])
            if not _close(bound, row["epsilon_bound"]):
                raise ValueError(f"{source}: field canaries.outcome.rows[{j}].epsilon_bound: {row['epsilon_bound']} "
                                 f"is not the bound {row['guesses']} guesses with {row['correct']} correct give "
                                 f"({bound})")
        measured = max(float(r["epsilon_bound"]) for r in out["rows"]) if out["rows"] else 0.0
    shadow = d.get("shadow")
    if shadow:
        pooled = shadow["pooled"]
        c = pooled["counts"]
        delta = float(shadow["settings"].get("delta") or 0.0)
        eps = shadow_epsilon(c["tp"], c["fn"], c["fp"], c["tn"], alpha=0.05, delta=delta)
        if not _close(eps, pooled["epsilon_lower_bound"]):
            raise ValueError(f"{source}: field shadow.pooled.epsilon_lower_bound: it is not the bound its counts "
                             f"give ({eps})")
        n = len(shadow["targets"])
        for j, t in enumerate(shadow["targets"]):
            tc = t["counts"]
            fw = shadow_epsilon(tc["tp"], tc["fn"], tc["fp"], tc["tn"], alpha=0.05 / n, delta=delta)
            if not _close(fw, t["epsilon_familywise"]):
                raise ValueError(f"{source}: field shadow.targets[{j}].epsilon_familywise: it is not the bound its "
                                 f"counts give ({fw})")
        sums = {k: sum(t["counts"][k] for t in shadow["targets"]) for k in ("tp", "fn", "fp", "tn")}
        if sums != {k: c[k] for k in sums}:
            raise ValueError(f"{source}: field shadow.pooled.counts: they are not the sum of the targets' counts")
        if not canary:
            measured = eps
    if (measured is None) != (d["epsilon"]["measured"] is None) or (
            measured is not None and not _close(measured, d["epsilon"]["measured"])):
        raise ValueError(f"{source}: field epsilon.measured: it is not the bound the canaries or the shadow attack "
                         f"give ({measured})")
    v = d["verdict"]
    again = grade_generator(v["checks"], v["run_levels"], declared=d["epsilon"]["declared"], measured=measured)
    if again["level"] != v["level"]:
        raise ValueError(f"{source}: field verdict.level: {v['level']!r} is not the level its runs and ε pair give "
                         f"({again['level']!r})")
    runs = [r["verdict"] for r in d["runs"]]
    if runs != list(v["run_levels"]):
        raise ValueError(f"{source}: field verdict.run_levels: they are not the runs' verdicts")


def load_audit(path: str | os.PathLike[str]) -> tuple[dict[str, Any], ReportData | None]:
    """Read an audit's JSON document back, checked (see the module's description).

    Returns
    -------
    (dict, ReportData or None)
        The document and the first run's report content (None for an audit without training runs).

    Raises
    ------
    ValueError
        Naming the file and what does not hold.
    """
    doc, source = read_document(path, AUDIT_DOCUMENT_SCHEMA, "a generator audit document")
    data = None
    if doc.get("first_run_report") is not None:
        try:
            data = report_data(doc["first_run_report"])
        except ValueError as exc:
            raise ValueError(f"{source}: field first_run_report: {exc}") from exc
    try:
        check_audit(doc["audit"], source)
    except (KeyError, TypeError, IndexError) as exc:
        raise ValueError(f"{source}: field audit: missing or malformed ({exc!r})") from exc
    first = doc["audit"]["runs"][0]["verdict"] if doc["audit"]["runs"] else None
    theirs = None if data is None else data.document["verdict"]["level"]
    if first != theirs:
        raise ValueError(f"{source}: field first_run_report: the first run's verdict in the audit ({first}) is not "
                         f"its report's ({theirs})")
    return dict(doc), data


def audit_page(doc: Mapping[str, Any]) -> tuple[str, str]:
    """The HTML and plain text of the "Generator audit" page, from the audit document."""
    d = doc["audit"]
    view = audit_view(d)
    context = {"v": view, "figure": runs_figure(d, fmt="svg"), "first": level_text(d["runs"][0]["verdict"]),
               "generator_level": level_text(d["verdict"]["level"])}
    html = render("audit.html.j2", **context)
    text = (f"Generator audit: {view['n_runs']} training runs; the generator's verdict: "
            f"{context['generator_level']}; this report's release (run 1): {context['first']}. "
            f"{epsilon_reading(d['epsilon'])}")
    return html, text


def write_audit_reports(au: Any, *, html: str | os.PathLike[str] | None = None,
                        pdf: str | os.PathLike[str] | None = None, json: str | os.PathLike[str] | None = None,
                        engine: str = "weasyprint", title: str = DEFAULT_TITLE,
                        reveal_real_values: bool | None = None, inputs: Mapping[str, str] | None = None,
                        on_stage: Any = None) -> list[Path]:
    """Write the audit's documents all together, each whole or not at all: the HTML and the PDF are the first
    run's report with the "Generator audit" page after its dossier (the PDF with the JSON attached), the JSON the
    audit's document (:func:`audit_document`).

    Returns
    -------
    list of Path
        The written files, in the order html, pdf, json.

    Raises
    ------
    ValueError
        Nothing to write (no target given), or an HTML or PDF document asked of an audit without training runs.
    """
    from .render import render_html, write_documents

    if html is None and pdf is None and json is None:
        raise ValueError("nothing to write: give at least one of html=, pdf=, json=")
    if (html is not None or pdf is not None) and not au.runs:
        raise ValueError("the HTML and PDF documents are the first training run's report: they need runs >= 1 "
                         "(an audit without training runs is written as JSON alone)")
    doc, data = audit_document(au, reveal_real_values=reveal_real_values, inputs=inputs)
    return write_documents(lambda: render_html(data, title=title, after_dossier=[audit_page(doc)]), dumps(doc),
                           html=html, pdf=pdf, json=json, engine=engine, on_stage=on_stage)  # type: ignore[arg-type]
