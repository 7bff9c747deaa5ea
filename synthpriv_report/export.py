"""Compliance export: the notebook views -> an nbformat notebook -> nbconvert template -> HTML and PDF; JSON.

The export never computes anything twice and never starts a kernel. It takes the results already computed by an
:class:`~synthpriv_report.evaluation.Evaluation` (or read back from a JSON report), builds a notebook whose code
cells carry as *outputs* the same MIME bundles the notebook displays (:func:`synthpriv_report.display.bundle`),
and converts it with nbconvert's ``HTMLExporter`` and the ``synthpriv`` template (a child of the ``lab``
template that hides code and prompts, loads nothing from a network and adds A4 print CSS with page numbers).
The PDF is printed from that HTML by WeasyPrint (default) or by the system Chromium through playwright.

Documents
---------
HTML and PDF carry: a cover block (verdict and its reasons, date, package version, data fingerprints and
settings), a summary table, a methods section (distance spaces, level thresholds and their sources, spec
sections), one section per metric group with figures, and an appendix of metrics not computed (and why) or not
selected.

Template location
-----------------
The Python API finds the template inside the installed package (``synthpriv_report/_templates``) or, in a source
checkout, in the top-level ``templates/`` folder (:func:`template_basedirs`). ``jupyter nbconvert --template
synthpriv`` finds the copy installed as shared data in ``share/jupyter/nbconvert/templates/synthpriv``. An editable
install copies it once, so while editing the template pass the checkout folder explicitly:
``jupyter nbconvert --to html --template synthpriv --TemplateExporter.extra_template_basedirs=templates nb.ipynb``
(or create ``<dir>/nbconvert/templates/synthpriv`` and add ``<dir>`` to ``JUPYTER_PATH``). nbconvert exporters
``synthpriv_html``, ``synthpriv_pdf`` (WeasyPrint) and ``synthpriv_chromium_pdf`` are registered as entry points:
``jupyter nbconvert --to synthpriv_pdf analysis.ipynb``.

No leak
-------
Unless ``reveal_real_values=True``, the documents contain no raw real record values: they are built from results
and settings only (no per-record tables), and as a second line of defence every text field of the results is
checked against the category levels that occur in the real data but not in the synthetic data; such a level is
replaced by ``[real value withheld]``.

JSON schema ``synthpriv_report/1``
----------------------------------
``{"schema": "synthpriv_report/1", "created": ISO-8601 UTC, "generator": {"package", "version"},
"verdict": {"level", "reasons", "checks", "not_run"}, "params": {...}, "metrics": {name: {"name", "title",
"section", "computed", "value", "interval", "direction", "level", "level_rule", "value_range", "space",
"calibration", "notes", "reason_not_computed", "details"}}, "settings": Evaluation.settings_dict(),
"fingerprints": {set: sha256}, "versions": {package: version}, "data_notes": [...],
"registered_metrics": [...], "revealed_real_values": bool}``. Non-finite numbers are ``null``. A reader accepts
every ``synthpriv_report/1`` document; fields may be added within a major version, never removed.
"""

from __future__ import annotations

import concurrent.futures
import datetime as _dt
import json
import logging
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import jinja2
import nbformat
from nbconvert import HTMLExporter

from .params import LEVEL_THRESHOLDS
from .registry import GROUP_TITLES, get_spec, metric_names
from .results import LevelRule, MetricResult, ResultSet, Verdict, to_jsonable

__all__ = [
    "SCHEMA",
    "TEMPLATE_NAME",
    "LoadedReport",
    "ReportData",
    "SynthprivChromiumPDFExporter",
    "SynthprivHTMLExporter",
    "SynthprivPDFExporter",
    "build_notebook",
    "from_json",
    "html_to_pdf",
    "template_basedirs",
    "to_html",
    "to_json",
    "to_pdf",
]

SCHEMA = "synthpriv_report/1"
TEMPLATE_NAME = "synthpriv"
WITHHELD = "[real value withheld]"
CHROMIUM_PATH = "/usr/bin/chromium"
CHROMIUM_ARGS = ("--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run")
PdfEngine = Literal["weasyprint", "chromium"]

_LEVEL_WORDS = {"low": "LOW RISK", "medium": "MEDIUM RISK", "high": "HIGH RISK"}


# ---------------------------------------------------------------------------------------------------------------
# templates


def template_basedirs() -> list[str]:
    """Folders holding the ``synthpriv`` nbconvert template: inside the installed package and in a checkout.

    An installed wheel ships the template as ``synthpriv_report/_templates/synthpriv`` (and as shared data under
    ``share/jupyter/nbconvert/templates/synthpriv`` for ``jupyter nbconvert --template synthpriv``); a source
    checkout (editable install) has it in the top-level ``templates/synthpriv``.
    """
    here = Path(__file__).resolve().parent
    candidates = (here / "_templates", here.parent / "templates")
    found = [str(p) for p in candidates if (p / TEMPLATE_NAME / "conf.json").is_file()]
    if not found:
        raise FileNotFoundError(
            f"the {TEMPLATE_NAME!r} nbconvert template was not found in {', '.join(map(str, candidates))}")
    return found


def _exporter_kwargs(kwargs: dict[str, Any]) -> dict[str, Any]:
    """Constructor arguments selecting the synthpriv template (template paths are resolved at construction)."""
    out = dict(kwargs)
    out["extra_template_basedirs"] = list(out.get("extra_template_basedirs") or []) + template_basedirs()
    out.setdefault("template_name", TEMPLATE_NAME)
    out.setdefault("exclude_input", True)
    out.setdefault("exclude_input_prompt", True)
    out.setdefault("exclude_output_prompt", True)
    out.setdefault("embed_images", True)
    return out


class SynthprivHTMLExporter(HTMLExporter):
    """nbconvert exporter ``synthpriv_html``: the lab exporter with the ``synthpriv`` template, code hidden."""

    export_from_notebook = "synthpriv report (HTML)"

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **_exporter_kwargs(kwargs))


class SynthprivPDFExporter(SynthprivHTMLExporter):
    """nbconvert exporter ``synthpriv_pdf``: the synthpriv HTML printed to an A4 PDF by WeasyPrint.

    ``jupyter nbconvert --to synthpriv_pdf analysis.ipynb`` writes ``analysis.pdf``.
    """

    # like nbconvert's WebPDFExporter: the template renders text/html; the written file gets the .pdf extension
    export_from_notebook = "synthpriv report (PDF, WeasyPrint)"
    engine: PdfEngine = "weasyprint"

    def from_notebook_node(self, nb: Any, resources: dict | None = None, **kw: Any) -> tuple[bytes, dict]:
        html, resources = super().from_notebook_node(nb, resources=resources, **kw)
        pdf = html_to_pdf(html, engine=self.engine)
        resources["output_extension"] = ".pdf"
        return pdf, resources


class SynthprivChromiumPDFExporter(SynthprivPDFExporter):
    """nbconvert exporter ``synthpriv_chromium_pdf``: the synthpriv HTML printed by the system Chromium."""

    export_from_notebook = "synthpriv report (PDF, Chromium)"
    engine: PdfEngine = "chromium"


# ---------------------------------------------------------------------------------------------------------------
# the report's content, independent of where it came from (an Evaluation or a JSON file)


@dataclass(frozen=True)
class ReportData:
    """Everything a report document shows; built from results and settings only (never from records).

    Attributes
    ----------
    results : ResultSet
        Metric results and verdict (real-only category levels withheld unless revealed).
    settings : dict
        JSON-safe settings (:meth:`Evaluation.settings_dict`).
    fingerprints : dict
        Set name -> SHA-256 of the analysed data.
    versions : dict
        Package and dependency versions at evaluation time.
    data_notes : tuple of str
        Notes from data preparation.
    created : str
        ISO-8601 UTC time the report was created.
    registered : tuple of str
        Metrics registered when the report was created (for the "not selected" appendix).
    from_json : bool
        True when rebuilt from a JSON report (figures that need per-record arrays are not available).
    revealed : bool
        Whether raw real values were allowed in the documents.
    """

    results: ResultSet
    settings: Mapping[str, Any]
    fingerprints: Mapping[str, str]
    versions: Mapping[str, str]
    data_notes: tuple[str, ...] = ()
    created: str = ""
    registered: tuple[str, ...] = ()
    from_json: bool = False
    revealed: bool = False
    evaluation: Any = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The JSON document (schema ``synthpriv_report/1``)."""
        rs = self.results.to_dict()
        return to_jsonable({
            "schema": SCHEMA,
            "created": self.created,
            "generator": {"package": "synthpriv_report", "version": self.versions.get("synthpriv_report", "")},
            "verdict": rs["verdict"],
            "params": rs["params"],
            "metrics": rs["metrics"],
            "settings": dict(self.settings),
            "fingerprints": dict(self.fingerprints),
            "versions": dict(self.versions),
            "data_notes": list(self.data_notes),
            "registered_metrics": list(self.registered),
            "revealed_real_values": self.revealed,
        })


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()


def _versions(ev: Any) -> dict[str, str]:
    import importlib.metadata as md

    from .evaluation import _versions as core_versions

    out = dict(core_versions())
    for name in ("nbconvert", "nbformat", "jinja2", "weasyprint"):
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            out[name] = "not installed"
    return out


def _real_only_levels(ev: Any) -> set[str]:
    """Category levels present in the real data (T or H) but not in the synthetic data."""
    from .data import MISSING

    d = ev.data
    if not d.categorical_columns:
        return set()
    real: set[str] = set()
    for s in ("T", "H"):
        if s in d.categorical:
            real.update(map(str, d.categorical[s].ravel().tolist()))
    syn = set(map(str, d.categorical["S"].ravel().tolist())) if "S" in d.categorical else set()
    return {v for v in real - syn if v != MISSING and v.strip()}


def _scrub(obj: Any, secrets: set[str]) -> Any:
    """Replace every secret occurring in a string of ``obj`` (nested containers) by :data:`WITHHELD`."""
    if not secrets:
        return obj
    if isinstance(obj, str):
        out = obj
        for s in sorted(secrets, key=len, reverse=True):
            if s in out and (len(s) >= 3 or out == s):
                out = out.replace(s, WITHHELD)
        return out
    if isinstance(obj, Mapping):
        return {_scrub(k, secrets): _scrub(v, secrets) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_scrub(v, secrets) for v in obj)
    return obj


def _scrub_result(r: MetricResult, secrets: set[str]) -> MetricResult:
    """The same object when nothing needs withholding (so figures still find their evaluation)."""
    fields_now = {"details": to_jsonable(dict(r.details)), "notes": tuple(r.notes),
                  "reason_not_computed": r.reason_not_computed}
    scrubbed = {k: _scrub(v, secrets) for k, v in fields_now.items()}
    if scrubbed == fields_now:
        return r
    return replace(r, details=scrubbed["details"], notes=tuple(scrubbed["notes"]),
                   reason_not_computed=scrubbed["reason_not_computed"])


def report_data(ev: Any, *, reveal_real_values: bool | None = None, **params: Any) -> ReportData:
    """Collect the report content of an evaluation (computes missing results once; reads the rest).

    Parameters
    ----------
    ev : Evaluation
    reveal_real_values : bool, optional
        Allow raw real values in the documents (default: the evaluation's own setting).
    **params
        Reduction parameters passed to :meth:`Evaluation.results`.
    """
    if isinstance(ev, LoadedReport):
        return ev.data
    reveal = bool(ev.settings.get("reveal_real_values")) if reveal_real_values is None else bool(reveal_real_values)
    rs = ev.results(**params)
    secrets = set() if reveal else _real_only_levels(ev)
    results = {n: _scrub_result(r, secrets) for n, r in rs.items()}
    verdict = rs.verdict
    if secrets:
        verdict = Verdict(verdict.level, tuple(_scrub(list(verdict.reasons), secrets)), verdict.checks,
                          tuple((n, _scrub(w, secrets)) for n, w in verdict.not_run))
    return ReportData(
        results=ResultSet(results, verdict, rs.params),
        settings=ev.settings_dict(),
        fingerprints=ev.fingerprints,
        versions=_versions(ev),
        data_notes=tuple(_scrub(list(ev.data.notes), secrets)),
        created=_now(),
        registered=tuple(metric_names()),
        revealed=reveal,
        evaluation=ev,
    )


# ---------------------------------------------------------------------------------------------------------------
# notebook


_ENV = jinja2.Environment(autoescape=True, trim_blocks=True, lstrip_blocks=True, undefined=jinja2.StrictUndefined)

_COVER = _ENV.from_string("""
<div class="spr-cover">
<p class="spr-cover-kicker">Synthetic data privacy report</p>
<h1 class="spr-cover-title">{{ title }}</h1>
<div class="spr-cover-verdict spr-verdict-{{ verdict.level }}">Verdict: {{ level_word }}</div>
{% if verdict.reasons %}
<ul class="spr-cover-reasons">{% for r in verdict.reasons %}<li>{{ r }}</li>{% endfor %}</ul>
{% else %}
<p>No driving check fired.</p>
{% endif %}
{% if verdict.not_run %}
<p class="spr-cover-note">Driving checks that could not run:
{% for n, why in verdict.not_run %}<code>{{ n }}</code> ({{ why }}){% if not loop.last %}; {% endif %}{% endfor %}</p>
{% endif %}
<table class="spr-cover-table">
<tr><th>Date</th><td>{{ created }}</td></tr>
<tr><th>Package</th><td>synthpriv_report {{ version }}</td></tr>
<tr><th>Source of this document</th><td>{{ source }}</td></tr>
<tr><th>Real values shown</th><td>{{ "yes (reveal_real_values=True)" if revealed else "no: raw real record values are withheld" }}</td></tr>
{% for name, size in sizes %}<tr><th>Records: {{ name }}</th><td>{{ size }}</td></tr>{% endfor %}
{% for name, fp in fingerprints %}<tr><th>Fingerprint {{ name }}</th><td><code class="spr-fp">{{ fp }}</code></td></tr>{% endfor %}
</table>
<h3>Settings</h3>
<table class="spr-cover-table spr-settings">
{% for k, v in settings %}<tr><th>{{ k }}</th><td>{{ v }}</td></tr>{% endfor %}
</table>
</div>
""")

_SUMMARY = _ENV.from_string("""
<div class="spr-summary">
<table class="spr-summary-table">
<thead><tr><th>Metric</th><th>Title</th><th>Spec</th><th>Value</th><th>95% interval</th><th>Level</th><th>Holdout as synthetic</th></tr></thead>
<tbody>
{% for r in rows %}
<tr><td><code>{{ r.name }}</code></td><td>{{ r.title }}</td><td>§{{ r.section }}</td><td>{{ r.value }}</td><td>{{ r.interval }}</td>
<td><span class="spr-level spr-level-{{ r.level_key }}">{{ r.level }}</span></td><td>{{ r.calibration }}</td></tr>
{% endfor %}
</tbody>
</table>
</div>
""")

_APPENDIX = _ENV.from_string("""
<div class="spr-appendix">
{% if not_computed %}
<table class="spr-summary-table">
<thead><tr><th>Metric</th><th>Title</th><th>Spec</th><th>Why not computed</th></tr></thead>
<tbody>{% for n, t, s, why in not_computed %}<tr><td><code>{{ n }}</code></td><td>{{ t }}</td><td>§{{ s }}</td><td>{{ why }}</td></tr>{% endfor %}</tbody>
</table>
{% else %}<p>Every selected metric was computed.</p>{% endif %}
{% if not_selected %}
<p>Registered but not selected for this evaluation (pass <code>metrics=</code> to include them):</p>
<ul>{% for n, t in not_selected %}<li><code>{{ n }}</code> — {{ t }}</li>{% endfor %}</ul>
{% endif %}
</div>
""")


def _fmt(v: Any) -> str:
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, (list, tuple)):
        return ", ".join(_fmt(x) for x in v) if v else "—"
    if isinstance(v, Mapping):
        return "; ".join(f"{k}: {_fmt(x)}" for k, x in v.items()) if v else "—"
    return str(v)


def _display_output(data: Mapping[str, Any]) -> Any:
    return nbformat.v4.new_output("display_data", data=dict(data), metadata={})


def _md(text: str, *tags: str) -> Any:
    cell = nbformat.v4.new_markdown_cell(text)
    if tags:
        cell.metadata["tags"] = list(tags)
    return cell


def _code(source: str, bundle_: Mapping[str, Any], *tags: str) -> Any:
    cell = nbformat.v4.new_code_cell(source, outputs=[_display_output(bundle_)])
    if tags:
        cell.metadata["tags"] = list(tags)
    return cell


def _html_bundle(html: str, text: str) -> dict[str, str]:
    return {"text/plain": text, "text/html": html}


def _methods_markdown(data: ReportData) -> str:
    rs = data.results
    spaces = sorted({r.space for r in rs.values() if r.computed and r.space})
    sections = sorted({r.section for r in rs.values() if r.section}, key=lambda s: [int(p) for p in s.split(".")
                                                                                   if p.isdigit()] or [99])
    calibrated = any(r.calibration is not None for r in rs.values())
    lines = [
        "This report evaluates whether the synthetic data set reproduces, or sits unusually close to, the real "
        "records the generator was trained on (T). Every number follows the package's metric specification; each "
        "metric below cites its section.",
        "",
        f"- **Spec sections used:** {', '.join('§' + s for s in sections) or '—'}; levels and verdict §5; "
        "intervals, calibration and per-record risk §4; sets, columns and identity of records §0; spaces §1.",
        f"- **Distance space(s):** {', '.join(spaces) if spaces else '—'} (spec §1: numeric columns rescaled by the "
        "real data's range; gower averages per-column differences, euclidean embeds categories one-hot, projected "
        "is a PCA of the euclidean embedding; encoders are fitted on real data only).",
        "- **Intervals:** Wilson 95% intervals for proportions; seeded bootstrap intervals over records for means "
        f"and medians of per-record distances ({_fmt(rs.params.get('n_bootstrap'))} resamples).",
        "- **Calibration:** " + ("each metric comparing S with T was also computed with the holdout in the role of "
                                 "the synthetic data (an ideal generator), shown as *holdout as synthetic*."
                                 if calibrated else "no holdout calibration (no holdout given or calibration off)."),
        f"- **Verdict:** the highest level among the driving checks "
        f"{', '.join('`' + n + '`' for n, _ in rs.verdict.checks) or '—'}; a check that could not run never "
        "drives it.",
        "",
        "**Level thresholds** (value scale of each metric; for *higher is safer* metrics a level fires below the "
        "threshold). The rule applied to each result is shown beside its value.",
        "",
        "| Rule | Medium | High | Source | Description |",
        "|---|---|---|---|---|",
    ]
    overrides = rs.params.get("levels") or {}
    used_rules = {r.name: r.level_rule for r in rs.values() if r.level_rule is not None}
    rows = []
    for name, t in LEVEL_THRESHOLDS.items():
        rule = used_rules.get(name)
        medium, high, source, desc = (t["medium"], t["high"], t["source"], t["description"])
        if rule is not None:
            medium, high, source, desc = rule.medium, rule.high, rule.source, rule.description
        elif name in overrides:
            medium = overrides[name].get("medium", medium)
            high = overrides[name].get("high", high)
            source = "user"
        rows.append(f"| `{name}` | {_fmt(medium)} | {_fmt(high)} | {source} | {desc.replace('|', '/')} |")
    for name, rule in used_rules.items():
        if name not in LEVEL_THRESHOLDS:
            rows.append(f"| `{name}` | {_fmt(rule.medium)} | {_fmt(rule.high)} | {rule.source} | "
                        f"{rule.description.replace('|', '/')} |")
    lines.extend(rows)
    params = {k: v for k, v in rs.params.items() if k != "levels"}
    lines += ["", "**Reduction parameters:** " + "; ".join(f"`{k}` = {_fmt(v)}" for k, v in params.items())]
    if data.from_json:
        lines += ["", "*This document was re-rendered from a JSON report without the data: figures that need "
                      "per-record arrays (distance distributions) are omitted.*"]
    return "\n".join(lines)


def _group_of(name: str) -> str:
    try:
        return get_spec(name).group
    except ValueError:
        return "closeness"


def _bundle(obj: Any) -> dict[str, Any]:
    from .display import bundle

    return {k: v for k, v in bundle(obj).items() if isinstance(v, str)}


def build_notebook(data: ReportData, *, title: str = "Synthetic data privacy report") -> Any:
    """An nbformat v4 notebook of the report: markdown cells and code cells whose outputs are display bundles.

    Nothing is computed: the outputs are rendered from ``data.results`` with :func:`display.bundle`.
    """
    from .display import views

    if data.evaluation is not None and not data.from_json:
        views.remember(data.evaluation)  # lets the metric views find their cached arrays for figures
    rs = data.results
    v = rs.verdict
    settings = dict(data.settings)
    sizes_map = settings.pop("sizes", {}) or {}
    set_names = {"T": "real training (T)", "H": "holdout (H)", "S": "synthetic (S)"}
    cover_html = _COVER.render(
        title=title, verdict=v, level_word=_LEVEL_WORDS.get(v.level, v.level), created=data.created,
        version=data.versions.get("synthpriv_report", ""),
        source="re-rendered from a JSON report (no data)" if data.from_json else "computed evaluation",
        revealed=data.revealed,
        sizes=[(set_names.get(k, k), n) for k, n in sizes_map.items()],
        fingerprints=[(set_names.get(k, k), fp) for k, fp in data.fingerprints.items()],
        settings=[(k, _fmt(val)) for k, val in settings.items() if k != "default_params"],
    )
    cover_text = f"{title}\nVerdict: {_LEVEL_WORDS.get(v.level, v.level)}\n" + "\n".join(f"- {r}" for r in v.reasons)
    rows = [{"name": r.name, "title": r.title, "section": r.section,
             "value": _fmt(r.value) if r.computed else "not computed",
             "interval": "—" if r.interval is None else f"[{_fmt(r.interval[0])}, {_fmt(r.interval[1])}]",
             "level": r.level or "—", "level_key": r.level or "none",
             "calibration": _fmt(r.calibration)} for r in rs.values()]
    summary_text = "\n".join(f"{r['name']:<20} {r['value']:>12} {r['level']}" for r in rows)

    cells = [
        _code("ev.results().verdict", _html_bundle(cover_html, cover_text), "spr-cover"),
        _md("## Summary", "spr-page-break"),
        _code("ev.results().to_frame()", _html_bundle(_SUMMARY.render(rows=rows), summary_text)),
        _md("## Methods\n\n" + _methods_markdown(data)),
    ]
    for key, group_title in GROUP_TITLES.items():
        members = [r for r in rs.values() if _group_of(r.name) == key]
        if not members:
            continue
        cells.append(_md(f"## {group_title}", "spr-page-break"))
        for r in members:
            cells.append(_code(f'ev["{r.name}"]', _bundle(r)))
    not_computed = [(r.name, r.title, r.section, r.reason_not_computed) for r in rs.values() if not r.computed]
    not_selected = []
    for name in data.registered:
        if name not in rs:
            try:
                not_selected.append((name, get_spec(name).title))
            except ValueError:
                not_selected.append((name, ""))
    appendix_text = "\n".join(f"{n}: {why}" for n, _, _, why in not_computed) or "every selected metric computed"
    cells += [
        _md("## Appendix: metrics not computed", "spr-page-break"),
        _code("[r for r in ev.results().values() if not r.computed]",
              _html_bundle(_APPENDIX.render(not_computed=not_computed, not_selected=not_selected), appendix_text)),
    ]
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["title"] = title
    nb.metadata["synthpriv_report"] = {"schema": SCHEMA, "created": data.created}
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


# ---------------------------------------------------------------------------------------------------------------
# writers


def _source(obj: Any, reveal_real_values: bool | None, params: Mapping[str, Any]) -> ReportData:
    if isinstance(obj, ReportData):
        return obj
    if isinstance(obj, LoadedReport):
        return obj.data
    return report_data(obj, reveal_real_values=reveal_real_values, **params)


def render_html(obj: Any, *, title: str = "Synthetic data privacy report", reveal_real_values: bool | None = None,
                **params: Any) -> str:
    """The self-contained HTML report as a string (see :func:`to_html`)."""
    data = _source(obj, reveal_real_values, params)
    nb = build_notebook(data, title=title)
    html, _ = SynthprivHTMLExporter().from_notebook_node(nb)
    return html


def to_html(ev: Any, path: str | os.PathLike[str], *, title: str = "Synthetic data privacy report",
            reveal_real_values: bool | None = None, **params: Any) -> Path:
    """Write the self-contained HTML report (opens offline: no remote script, style sheet or font).

    Parameters
    ----------
    ev : Evaluation or LoadedReport
        The evaluation (results computed once, then only read) or a report loaded by :func:`from_json`.
    path : path-like
        Output file.
    title : str
        Document title.
    reveal_real_values : bool, optional
        Allow raw real values (default: the evaluation's ``reveal_real_values`` setting).
    **params
        Reduction parameters for :meth:`Evaluation.results` (``alpha``, thresholds, ``levels``).

    Returns
    -------
    Path
        The written file.
    """
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_html(ev, title=title, reveal_real_values=reveal_real_values, **params), encoding="utf-8")
    return out


_CHROMIUM_CSS = "<style>@page { @bottom-right { content: none; } }</style>"
_CHROMIUM_FOOTER = ('<div style="font-size:8px;width:100%;text-align:right;margin-right:12mm;color:#555">'
                    'Page <span class="pageNumber"></span> of <span class="totalPages"></span></div>')


@contextmanager
def _quiet_weasyprint() -> Iterator[None]:
    loggers = [logging.getLogger(n) for n in ("weasyprint", "fontTools")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.ERROR)
    try:
        yield
    finally:
        for lg, lv in zip(loggers, levels):
            lg.setLevel(lv)


def _chromium_pdf(html: str, executable_path: str) -> bytes:
    from playwright.sync_api import sync_playwright

    html = html.replace("</head>", _CHROMIUM_CSS + "</head>", 1)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable_path, args=list(CHROMIUM_ARGS), headless=True)
        try:
            page = browser.new_page()
            page.route("**/*", lambda route: route.abort() if not route.request.url.startswith(("data:", "about:"))
                       else route.continue_())
            page.set_content(html, wait_until="load")
            pdf = page.pdf(format="A4", print_background=True, prefer_css_page_size=True,
                           display_header_footer=True, header_template="<span></span>",
                           footer_template=_CHROMIUM_FOOTER)
        finally:
            browser.close()
    return pdf


def html_to_pdf(html: str, *, engine: PdfEngine = "weasyprint", executable_path: str = CHROMIUM_PATH) -> bytes:
    """Print report HTML to PDF bytes with WeasyPrint or the system Chromium (never downloads a browser)."""
    if engine == "weasyprint":
        import weasyprint

        with _quiet_weasyprint():
            return weasyprint.HTML(string=html, base_url=None).write_pdf()
    if engine == "chromium":
        if not Path(executable_path).exists():
            raise FileNotFoundError(f"Chromium not found at {executable_path!r}; pass executable_path= or use "
                                    "engine='weasyprint'")
        import asyncio

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return _chromium_pdf(html, executable_path)
        # playwright's sync API refuses to run inside a running event loop (a Jupyter kernel): use a thread
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(_chromium_pdf, html, executable_path).result()
    raise ValueError(f"unknown PDF engine {engine!r}; choose 'weasyprint' or 'chromium'")


def to_pdf(ev: Any, path: str | os.PathLike[str], engine: PdfEngine = "weasyprint", *,
           title: str = "Synthetic data privacy report", reveal_real_values: bool | None = None,
           executable_path: str = CHROMIUM_PATH, **params: Any) -> Path:
    """Write the paginated A4 PDF report (cover, summary, methods, one section per group, appendix).

    Parameters
    ----------
    ev : Evaluation or LoadedReport
    path : path-like
    engine : {"weasyprint", "chromium"}
        WeasyPrint (default) or the system Chromium through playwright (``executable_path``).
    title, reveal_real_values, **params
        As in :func:`to_html`.
    executable_path : str
        Chromium binary for ``engine="chromium"``.
    """
    if engine not in ("weasyprint", "chromium"):
        raise ValueError(f"unknown PDF engine {engine!r}; choose 'weasyprint' or 'chromium'")
    html = render_html(ev, title=title, reveal_real_values=reveal_real_values, **params)
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(html_to_pdf(html, engine=engine, executable_path=executable_path))
    return out


def to_json(ev: Any, path: str | os.PathLike[str] | None = None, *, reveal_real_values: bool | None = None,
            indent: int | None = 2, **params: Any) -> dict[str, Any] | Path:
    """The versioned JSON report (schema ``synthpriv_report/1``, see the module docstring).

    Built from results, settings and fingerprints only. Returns the document as a dict when ``path`` is None,
    else writes it and returns the path.
    """
    doc = _source(ev, reveal_real_values, params).to_dict()
    if path is None:
        return doc
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=indent, allow_nan=False, ensure_ascii=False), encoding="utf-8")
    return out


# ---------------------------------------------------------------------------------------------------------------
# reading a JSON report back


def _result_from_dict(d: Mapping[str, Any]) -> MetricResult:
    rule = d.get("level_rule")
    value_range = d.get("value_range") or [0.0, 1.0]
    return MetricResult(
        name=d["name"],
        value=None if d.get("value") is None or not d.get("computed", True) else float(d["value"]),
        interval=None if d.get("interval") is None else tuple(float("nan") if x is None else float(x)
                                                                for x in d["interval"]),
        direction=d.get("direction", "higher_is_riskier"),
        level=d.get("level"),
        details=dict(d.get("details") or {}),
        reason_not_computed=None if d.get("computed", True) else (d.get("reason_not_computed") or "not computed"),
        section=d.get("section", ""),
        title=d.get("title", ""),
        value_range=(float(value_range[0]) if value_range[0] is not None else float("-inf"),
                     float(value_range[1]) if value_range[1] is not None else float("inf")),
        space=d.get("space"),
        level_rule=None if rule is None else LevelRule(rule.get("medium"), rule.get("high"), rule.get("source", ""),
                                                        rule.get("description", "")),
        calibration=d.get("calibration"),
        notes=tuple(d.get("notes") or ()),
    )


def _verdict_from_dict(d: Mapping[str, Any]) -> Verdict:
    return Verdict(
        level=d["level"],
        reasons=tuple(d.get("reasons") or ()),
        checks=tuple((c["metric"], c.get("level")) for c in d.get("checks") or ()),
        not_run=tuple((c["metric"], c.get("reason", "")) for c in d.get("not_run") or ()),
    )


class LoadedReport:
    """A report read back from JSON: re-renders the HTML/PDF/JSON documents without the data.

    Attributes
    ----------
    results : ResultSet
        Rebuilt :class:`MetricResult`, :class:`Verdict` and :class:`ResultSet`.
    settings, fingerprints, versions : dict
        As written by :func:`to_json`.
    document : dict
        The JSON document as read.

    Figures that need per-record arrays (distance distributions) cannot be drawn and are omitted; the documents
    say so in their methods section.
    """

    def __init__(self, document: Mapping[str, Any]):
        schema = str(document.get("schema", ""))
        if schema != SCHEMA:
            raise ValueError(f"not a synthpriv_report JSON report of schema {SCHEMA!r} (found {schema!r})")
        self.document = dict(document)
        metrics = {n: _result_from_dict(m) for n, m in document["metrics"].items()}
        self.results = ResultSet(metrics, _verdict_from_dict(document["verdict"]), document.get("params") or {})
        self.settings = dict(document.get("settings") or {})
        self.fingerprints = dict(document.get("fingerprints") or {})
        self.versions = dict(document.get("versions") or {})
        self.data = ReportData(results=self.results, settings=self.settings, fingerprints=self.fingerprints,
                               versions=self.versions, data_notes=tuple(document.get("data_notes") or ()),
                               created=str(document.get("created", "")),
                               registered=tuple(document.get("registered_metrics") or ()), from_json=True,
                               revealed=bool(document.get("revealed_real_values", False)))

    @property
    def verdict(self) -> Verdict:
        return self.results.verdict

    def __getitem__(self, name: str) -> MetricResult:
        return self.results[name]

    def to_html(self, path: str | os.PathLike[str], **kw: Any) -> Path:
        return to_html(self, path, **kw)

    def to_pdf(self, path: str | os.PathLike[str], engine: PdfEngine = "weasyprint", **kw: Any) -> Path:
        return to_pdf(self, path, engine, **kw)

    def to_json(self, path: str | os.PathLike[str] | None = None, **kw: Any) -> dict[str, Any] | Path:
        return to_json(self, path, **kw)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        from .display import bundle

        return bundle(self.results, include=include, exclude=exclude)

    def __repr__(self) -> str:
        return f"LoadedReport(verdict={self.verdict.level!r}, {len(self.results)} metrics, created={self.data.created!r})"


def from_json(path: str | os.PathLike[str]) -> LoadedReport:
    """Read a JSON report written by :func:`to_json` (schema ``synthpriv_report/1``)."""
    with open(path, encoding="utf-8") as fh:
        document = json.load(fh)
    if not isinstance(document, Mapping):
        raise ValueError(f"{path}: not a synthpriv_report JSON report")
    return LoadedReport(document)
