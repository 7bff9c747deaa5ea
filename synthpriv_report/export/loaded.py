"""A report read back from JSON (:func:`from_json`): it re-renders the HTML, PDF and JSON documents without the
data, from the validated document only, as a live evaluation's report is rendered.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..core.results import MetricResult, Verdict
from ..display import bundle
from .document import ReportData, check_levels, load_document, results_from_document, to_json, validate_document
from .render import to_html, to_pdf

__all__ = ["LoadedReport", "from_json"]


class LoadedReport:
    """A report read back from JSON: re-renders the HTML/PDF/JSON documents without the data.

    Attributes
    ----------
    results : ResultSet
        Rebuilt :class:`MetricResult`, :class:`Verdict` and :class:`ResultSet`.
    settings, fingerprints, versions : dict
        As written by :func:`to_json`.
    document : dict
        The validated JSON document.

    Figures that need per-record arrays (distance distributions) cannot be drawn and are omitted; the documents
    say so in their methods section.
    """

    def __init__(self, document: Mapping[str, Any], *, source: str = "document"):
        doc = validate_document(document, source=source)
        check_levels(doc, source=source)
        self.document = doc
        self.results = results_from_document(doc)
        self.data = ReportData(doc, self.results, from_json=True)
        self.settings = dict(doc["settings"])
        self.fingerprints = dict(doc["fingerprints"])
        self.versions = dict(doc["versions"])

    @property
    def verdict(self) -> Verdict:
        return self.results.verdict

    def __getitem__(self, name: str) -> MetricResult:
        return self.results[name]

    def to_html(self, path: str | os.PathLike[str], **kw: Any) -> Path:
        return to_html(self, path, **kw)

    def to_pdf(self, path: str | os.PathLike[str], engine: str = "weasyprint", **kw: Any) -> Path:
        return to_pdf(self, path, engine, **kw)  # type: ignore[arg-type]

    def to_json(self, path: str | os.PathLike[str] | None = None, **kw: Any) -> dict[str, Any] | Path:
        return to_json(self, path, **kw)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return bundle(self.results, include=include, exclude=exclude)

    def __repr__(self) -> str:
        return (f"LoadedReport(verdict={self.verdict.level!r}, {len(self.results)} metrics, "
                f"created={self.data.created!r})")


def from_json(source: str | os.PathLike[str] | Mapping[str, Any]) -> LoadedReport:
    """Read a JSON report written by :func:`to_json` (a path, or an already parsed document).

    The report is checked, not trusted: every metric's stored numbers are checked against one another (values and
    intervals within their declared ranges and consistent; the bounds a level rests on computed again from the
    stored counts), and every level and the verdict derived again
    (:func:`~synthpriv_report.export.document.check_levels`).

    Raises
    ------
    ValueError
        When the file is not JSON, not a synthpriv_report document, of another schema version, or a field is
        missing or of the wrong type (the message names the file and the field).
    InconsistentReportError
        A ``ValueError`` too: when its numbers cannot be true together or do not give its levels and verdict (a
        share outside [0, 1], an inverted interval, a bound its counts do not give); the message names the field,
        e.g. ``metrics.exact_copies.details.excess_lower_bound``.
    """
    if isinstance(source, Mapping):
        return LoadedReport(source)
    return LoadedReport(load_document(source), source=str(source))
