"""What the documentation tests share."""

#: The public modules whose names the API reference documents, at these import paths. A module with ``__all__``
#: exposes exactly those names; one without exposes the names it defines that do not start with an underscore.
PUBLIC_MODULES = (
    "synthpriv_report",
    "synthpriv_report.datasets",
    "synthpriv_report.display",
    "synthpriv_report.display.widgets",
    "synthpriv_report.analysis.risk",
    "synthpriv_report.analysis.record",
    "synthpriv_report.analysis.vulnerable",
    "synthpriv_report.export",
    "synthpriv_report.evaluation.generators",
    "synthpriv_report.extend",
    "synthpriv_report.testing",
)

