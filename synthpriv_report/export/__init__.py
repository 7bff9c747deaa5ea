"""Compliance export: a validated report document -> an nbformat notebook -> nbconvert template -> HTML, PDF; JSON.

The export never computes anything twice and never starts a kernel. :func:`report_data` turns an
:class:`~synthpriv_report.evaluation.evaluation.Evaluation` (or a :class:`~synthpriv_report.core.results.ResultSet`)
into one
JSON-safe document through one adapter (:func:`~synthpriv_report.export.document.build_document`) and validates
it; a JSON report read back by :func:`from_json` is validated the same way, and checked, not trusted: its SHA-256
digest (:func:`~synthpriv_report.export.document.content_digest`) must match its content, and every level and the
verdict are derived again from the stored values and details by the registry's level rules
(:func:`~synthpriv_report.export.document.check_levels`); a disagreement is a ``ValueError`` naming it. HTML and PDF
are drawn from that document only, by the export's Jinja templates (one environment, autoescaping on), as the
outputs of a notebook converted with nbconvert's ``HTMLExporter`` and the ``synthpriv`` template (a child of the
``lab`` template that hides code and prompts, loads nothing from a network, carries a Content-Security-Policy
without script and adds A4 print CSS with page numbers). The PDF is printed from that HTML by WeasyPrint (default)
or by the system Chromium through playwright, with JavaScript disabled.

Modules
-------
``document``   the report document: build it (the one adapter), validate it, load it; ``to_json``
``loaded``     a report read back from JSON (``from_json``), drawn again without the data
``comparison`` several releases as one document: the chosen release's report with a page on choosing among
               them; its JSON read back (``comparison_from_json``) writes the HTML and PDF again without the data
``schema``     the schema identifier ``synthpriv_report/1`` and the JSON Schema of the document
``templating`` the export templates, rendered by the package's one Jinja environment factory
``notebook``   the nbformat notebook of a document (HTML outputs only: no user string in a Markdown cell)
``render``     nbconvert exporters, HTML and PDF, ``to_html``/``to_pdf``/``write_reports``
``files``      files written whole or not at all; output paths checked against the inputs
``error_rates`` how often a verdict like the report's was wrong in the nearest measured cell of the
               calibration harness (``calibration_cells.json``), for ``templates/error_rates.html.j2``
``templates/`` the export's Jinja templates

Documents
---------
HTML and PDF carry: a cover block (verdict and its reasons, date, package version, inputs, data fingerprints and
settings), a summary table, a methods section (distance spaces, level rules and their sources, definitions,
parameters), one section per metric group with figures, and an appendix of metrics not computed (and why) or not
selected. Names and values longer than 80 characters (sentences: 600) are shortened for display with an ellipsis;
the full text stays in the element's ``title`` attribute and in the JSON report, so the layout cost of a document
does not grow with the length of a name.

Template location
-----------------
The Python API finds the template inside the installed package (``synthpriv_report/_templates``) or, in a source
checkout, in the top-level ``templates/`` folder (:func:`template_basedirs`). ``jupyter nbconvert --template
synthpriv`` finds the copy installed as shared data in ``share/jupyter/nbconvert/templates/synthpriv``. An editable
install copies it once, so while editing the template pass the checkout folder explicitly:
``jupyter nbconvert --to html --template synthpriv --TemplateExporter.extra_template_basedirs=templates nb.ipynb``.
nbconvert exporters ``synthpriv_html``, ``synthpriv_pdf`` (WeasyPrint) and ``synthpriv_chromium_pdf`` are
registered as entry points: ``jupyter nbconvert --to synthpriv_pdf analysis.ipynb``.

Real values
-----------
Real record values are withheld where the metrics produce their results (unless ``reveal_real_values=True``); the
export shows results and settings only (no per-record tables) and never rewrites a finished sentence.

JSON schema ``synthpriv_report/1``
----------------------------------
``{"schema": "synthpriv_report/1", "created": ISO-8601 UTC, "generator": {"package", "version"},
"verdict": {"level", "reasons", "checks", "not_run"}, "params": {...}, "metrics": {name: {"name", "title",
"section", "computed", "value", "interval", "direction", "level", "level_rule", "value_range", "space",
"calibration", "notes", "reason_not_computed", "details"}}, "settings": Evaluation.settings_dict(),
"fingerprints": {set: sha256}, "versions": {package: version}, "data_notes": [...],
"registered_metrics": [...], "revealed_real_values": bool, "inputs": {set: name}, "meta": {...},
"digest": {"algorithm": "sha256", "value": hex, "of": ...}}``. Non-finite numbers are
``null``. A reader accepts every ``synthpriv_report/1`` document; fields may be added within a major version,
never removed. :data:`~synthpriv_report.export.schema.JSON_SCHEMA` is the JSON Schema; a document that does not
conform, or of another version, is refused with a ``ValueError`` naming the field.
"""

from __future__ import annotations

from ..core.results import InconsistentReportError
from ..display import bundle
from .comparison import LoadedComparison, comparison_from_json
from .document import (
    ReportData,
    build_document,
    load_document,
    load_results,
    report_data,
    to_json,
    validate_document,
)
from .files import AtomicFiles, check_distinct, write_atomic
from .loaded import LoadedReport, from_json
from .notebook import build_notebook
from .render import (
    CHROMIUM_ARGS,
    CHROMIUM_PATH,
    CSP,
    TEMPLATE_NAME,
    SynthprivChromiumPDFExporter,
    SynthprivHTMLExporter,
    SynthprivPDFExporter,
    html_to_pdf,
    render_html,
    template_basedirs,
    to_html,
    to_pdf,
    write_reports,
)
from .schema import JSON_SCHEMA, SCHEMA

__all__ = [
    "CHROMIUM_ARGS",
    "CHROMIUM_PATH",
    "CSP",
    "JSON_SCHEMA",
    "SCHEMA",
    "TEMPLATE_NAME",
    "AtomicFiles",
    "InconsistentReportError",
    "LoadedComparison",
    "LoadedReport",
    "ReportData",
    "SynthprivChromiumPDFExporter",
    "SynthprivHTMLExporter",
    "SynthprivPDFExporter",
    "build_document",
    "bundle",
    "load_results",
    "build_notebook",
    "check_distinct",
    "comparison_from_json",
    "from_json",
    "html_to_pdf",
    "load_document",
    "render_html",
    "report_data",
    "template_basedirs",
    "to_html",
    "to_json",
    "to_pdf",
    "validate_document",
    "write_atomic",
    "write_reports",
]
