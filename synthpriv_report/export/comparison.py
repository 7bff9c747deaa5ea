"""A comparison of several releases as one document: the chosen release's full report (the data protection
officer's dossier and the technical annex), with a page on choosing among the releases right after the dossier.

The JSON document (schema ``synthpriv_report.comparison/1``) holds the comparison (every release's verdicts,
checks, attacks and utility, and the ranking; :meth:`~synthpriv_report.comparison.Comparison.to_dict`), the chosen
release's name and the chosen release's own report document, under one SHA-256 digest. Read back by
:func:`load_comparison`, it is checked, not trusted: the digest must match, the chosen release's report is
validated and its levels derived again like any report's (:func:`~synthpriv_report.export.document.report_data`),
its verdict must be the comparison's verdict for that release, and the adjusted false-alarm rate must be the
verdict's rate divided by the number of releases compared.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..display.comparison import comparison_view, epsilon_sweep_figure, worst_attack
from ..display.figures import data_uri, render_figure
from ..formats import level_text
from ..plotting import COLORS
from .document import ReportData, dumps, read_document, report_data, with_digest
from .notebook import DEFAULT_TITLE
from .templating import render

__all__ = ["COMPARISON_SCHEMA", "comparison_document", "comparison_page", "load_comparison",
           "write_comparison_reports"]

#: The schema identifier of a comparison's JSON document.
COMPARISON_SCHEMA = "synthpriv_report.comparison/1"


def comparison_document(cmp: Any, chosen: str | None = None, *, reveal_real_values: bool | None = None,
                        inputs: Mapping[str, str] | None = None) -> tuple[dict[str, Any], ReportData]:
    """The comparison's JSON document and the chosen release's report content.

    Parameters
    ----------
    cmp : Comparison
    chosen : str, optional
        The release the document is written for (default: the first of the comparison's ranking).
    reveal_real_values : bool, optional
        As in :func:`~synthpriv_report.export.document.report_data`.
    inputs : mapping, optional
        The input files' names by role (``real``, ``holdout``, ...), recorded in the chosen release's report; the
        release's own name is its synthetic set's name.

    Returns
    -------
    (dict, ReportData)
    """
    name = cmp.chosen(chosen)
    named = {**dict(inputs or {}), "synthetic": name}
    data = report_data(cmp.evaluations[name], reveal_real_values=reveal_real_values, inputs=named)
    body = {"schema": COMPARISON_SCHEMA, "created": data.document["created"], "chosen": name,
            "comparison": cmp.to_dict(), "chosen_report": data.to_dict()}
    return with_digest(body), data


def load_comparison(path: str | os.PathLike[str]) -> tuple[dict[str, Any], ReportData]:
    """Read a comparison's JSON document back, checked (see the module's description).

    Returns
    -------
    (dict, ReportData)
        The document and the chosen release's report content.

    Raises
    ------
    ValueError
        Naming the file and what does not hold.
    """
    doc, source = read_document(path, COMPARISON_SCHEMA, "a comparison document")
    try:
        data = report_data(doc["chosen_report"])
    except ValueError as exc:
        raise ValueError(f"{source}: field chosen_report: {exc}") from exc
    cmp = doc["comparison"]
    rows = {r["name"]: r for r in cmp["per_release"]}
    chosen = doc["chosen"]
    if chosen not in rows or sorted(cmp["ranking"]) != sorted(rows) or list(cmp["releases"]) != list(rows):
        raise ValueError(f"{source}: fields chosen and comparison.ranking: they must name the releases compared")
    if rows[chosen]["verdict"]["level"] != data.document["verdict"]["level"]:
        raise ValueError(f"{source}: the chosen release's verdict in the comparison "
                         f"({rows[chosen]['verdict']['level']}) is not its report's "
                         f"({data.document['verdict']['level']})")
    n = len(rows)
    if cmp["n_compared"] != n or abs(cmp["adjusted_alpha"] - cmp["alpha"] / n) > 1e-12:
        raise ValueError(f"{source}: field comparison.adjusted_alpha: it must be alpha / n_compared "
                         f"({cmp['alpha']} / {n})")
    return dict(doc), data


def _tradeoff_figure(cmp: Mapping[str, Any], chosen: str) -> dict[str, str] | None:
    """Privacy against utility, one point per release: the marginal distance (left is more faithful) and the
    strongest membership attack's true-positive rate at a 1% false-positive rate (down is safer)."""
    points = [(r["name"], r["utility"].get("marginal_distance"), worst_attack(r)) for r in cmp["per_release"]]
    points = [(n, float(x), float(y)) for n, x, y in points if x is not None and y is not None]
    if not points:
        return None

    def draw(ax: Any) -> None:
        for name, x, y in points:
            colour = COLORS["S"] if name == chosen else COLORS["H"]
            ax.scatter([x], [100.0 * y], s=36, color=colour, zorder=4 if name == chosen else 3)
            # a release's name is the user's text: drawn as plain text, never parsed as mathematics
            ax.annotate(name if len(name) <= 40 else name[:39] + "…", (x, 100.0 * y), xytext=(5, 4),
                        textcoords="offset points", fontsize=8, parse_math=False)
        ax.axhline(1.0, color=COLORS["line"], linestyle=":", linewidth=1)
        ax.set_xlim(left=0.0)
        ax.set_ylim(bottom=0.0)
        ax.set_xlabel("marginal distance (total variation per column, averaged; left is closer to the real data)")
        ax.set_ylabel("strongest attack's TPR at 1% FPR (%)")
        ax.set_title("Privacy against utility, one point per release (dotted: chance, 1%)")

    svg = render_figure(draw, size=(6.0, 3.2), fmt="svg")
    alt = "; ".join(f"{n}: marginal distance {x:.3g}, strongest attack {100.0 * y:.1f}% at 1% FPR"
                    for n, x, y in points)
    return {"src": data_uri(svg, "svg"), "alt": f"Privacy against utility. {alt}"}


def comparison_page(doc: Mapping[str, Any]) -> tuple[str, str]:
    """The HTML and plain text of the page on choosing among the releases, from the comparison document."""
    cmp = doc["comparison"]
    view = comparison_view(cmp)
    chosen = doc["chosen"]
    rows = {r["name"]: r for r in cmp["per_release"]}
    for row in view["rows"]:  # in the ranking's order, each with its rank
        row["chosen"] = row["name"] == chosen
    mine = rows[chosen]
    context = {"v": view, "chosen": chosen,
               "alone": level_text(mine["verdict"]["level"]), "adjusted": level_text(mine["adjusted_verdict"]["level"]),
               "figure": _tradeoff_figure(cmp, chosen), "sweep": epsilon_sweep_figure(cmp, fmt="svg")}
    html = render("comparison.html.j2", **context)
    text = (f"Choosing among {view['n']} releases: this report is about {chosen}; its verdict alone: "
            f"{context['alone']}; allowing for the choice among {view['n']}: {context['adjusted']}.")
    return html, text


def write_comparison_reports(cmp: Any, *, chosen: str | None = None, html: str | os.PathLike[str] | None = None,
                             pdf: str | os.PathLike[str] | None = None, json: str | os.PathLike[str] | None = None,
                             engine: str = "weasyprint", title: str = DEFAULT_TITLE,
                             reveal_real_values: bool | None = None, inputs: Mapping[str, str] | None = None,
                             on_stage: Any = None) -> list[Path]:
    """Write the comparison's documents all together, each whole or not at all.

    The HTML and the PDF are the chosen release's report (its dossier, then a page on choosing among the
    releases, then its technical annex); the PDF has the comparison's JSON document attached; the JSON is the
    comparison's document (:func:`comparison_document`).

    Parameters
    ----------
    cmp : Comparison
    chosen : str, optional
        The release the documents are written for (default: the first of the ranking).
    html, pdf, json : path-like, optional
        Targets (at least one).
    engine : {"weasyprint", "chromium"}
    title : str
    reveal_real_values : bool, optional
    inputs : mapping, optional
        As in :func:`comparison_document`.
    on_stage : callable, optional
        Called with ``("html" | "pdf" | "json", done)`` around each document.

    Returns
    -------
    list of Path
        The written files, in the order html, pdf, json.
    """
    from .render import render_html, write_documents

    doc, data = comparison_document(cmp, chosen, reveal_real_values=reveal_real_values, inputs=inputs)
    return write_documents(lambda: render_html(data, title=title, after_dossier=[comparison_page(doc)]), dumps(doc),
                           html=html, pdf=pdf, json=json, engine=engine, on_stage=on_stage)  # type: ignore[arg-type]
