"""A comparison of several releases as one document: the chosen release's full report (the data protection
officer's dossier and the technical annex), with a page on choosing among the releases right after the dossier.

The JSON document (schema ``synthpriv_report.evaluation.comparison/1``) holds the comparison (every release's verdicts,
checks, attacks and utility, and the ranking; :meth:`~synthpriv_report.evaluation.comparison.Comparison.to_dict`), the
chosen
release's name and the chosen release's own report document, under one SHA-256 digest. Read back by
:func:`load_comparison`, it is checked, not trusted: the digest must match, the chosen release's report is
validated and its levels derived again like any report's (:func:`~synthpriv_report.export.document.report_data`),
its verdict must be the comparison's verdict for that release, and the adjusted false-alarm rate must be the
verdict's rate divided by the number of releases compared.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..core.formats import level_text
from ..core.plotting import COLORS
from ..core.registry import REGISTRY
from ..core.results import MetricResult, to_jsonable
from ..display.comparison import comparison_view, epsilon_sweep_figure, worst_attack
from ..display.figures import data_uri, render_figure, side_by_side_entry
from .document import (
    ReportData,
    dumps,
    read_document,
    report_data,
    result_from_dict,
    schema_document,
    with_digest,
)
from .notebook import DEFAULT_TITLE
from .templating import render

__all__ = ["COMPARISON_SCHEMA", "LoadedComparison", "comparison_document", "comparison_from_json", "comparison_page",
           "load_comparison", "release_checks", "write_comparison_reports"]

#: Longest release name written beside its point in the privacy-against-utility figure (cut with "…").
NAME_CHARS = 32

#: The schema identifier of a comparison's JSON document.
COMPARISON_SCHEMA = "synthpriv_report.evaluation.comparison/1"


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
    results = cmp.results()
    checks = {release: {metric: results[release][metric].to_dict() for metric in ev.verdict_metrics
                        if metric in results[release]}
              for release, ev in cmp.evaluations.items()}
    body = {"schema": COMPARISON_SCHEMA, "created": data.document["created"], "chosen": name,
            "comparison": cmp.to_dict(), "release_checks": to_jsonable(checks), "chosen_report": data.to_dict()}
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
    return _checked(doc, source)


def _checked(doc: Mapping[str, Any], source: str) -> tuple[dict[str, Any], ReportData]:
    """A comparison document whose digest holds, checked field by field (:func:`load_comparison`)."""
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
    release_checks(doc, data, source=source)
    return dict(doc), data


def release_checks(doc: Mapping[str, Any], data: ReportData | None = None, *,
                   source: str = "document") -> dict[str, dict[str, MetricResult]]:
    """Every release's results of the checks behind its verdict, rebuilt from a comparison's document (its
    ``release_checks`` field; a document written before the field existed has none, and gives ``{}``).

    Checked against the rest of the document: the releases are the comparison's; each result's value and level
    are the ones its release's row of the comparison shows; the chosen release's results are, field for field,
    those of its own report (``data``, whose levels have been derived again on load).

    Returns
    -------
    dict of str -> dict of str -> MetricResult
        ``{release: {metric: result}}``, in the comparison's order of releases.

    Raises
    ------
    ValueError
        Naming the file (``source``) and the field.
    """
    stored = doc.get("release_checks")
    if stored is None:
        return {}
    rows = {r["name"]: r for r in doc["comparison"]["per_release"]}
    if not isinstance(stored, Mapping) or list(stored) != list(rows):
        raise ValueError(f"{source}: field release_checks: it must hold the releases compared, in their order")
    out: dict[str, dict[str, MetricResult]] = {}
    for name, entries in stored.items():
        shown = {c["metric"]: c for c in rows[name]["checks"]}
        if not isinstance(entries, Mapping):
            raise ValueError(f"{source}: field release_checks.{name}: not an object of results")
        results = {}
        for metric, entry in entries.items():
            where = f"{source}: field release_checks.{name}.{metric}"
            if metric not in shown or not isinstance(entry, Mapping):
                raise ValueError(f"{where}: not a check behind the verdict of this release")
            r = result_from_dict(entry, source=where)
            if r.name != metric or r.value != shown[metric]["value"] or r.level != shown[metric]["level"]:
                raise ValueError(f"{where}: its value and level are not the ones the comparison shows for this "
                                 "release")
            if data is not None and name == doc["chosen"] and entry != data.document["metrics"].get(metric):
                raise ValueError(f"{where}: it is not the chosen release's result in its own report")
            results[metric] = r
        out[name] = results
    return out


def _tradeoff_figure(cmp: Mapping[str, Any], chosen: str) -> dict[str, str] | None:
    """Privacy against utility, one point per release: the marginal distance (left is more faithful) and the
    strongest membership attack's true-positive rate at a 1% false-positive rate (down is safer)."""
    found = [(r["name"], r["utility"].get("marginal_distance"), worst_attack(r)) for r in cmp["per_release"]]
    points = [(str(n), float(x), float(y)) for n, x, y in found if x is not None and y is not None]
    if not points:
        return None

    x_top = max(x for _, x, _ in points) * 1.08 or 1.0
    y_top = max(100.0 * y for _, _, y in points) * 1.15 + 2.0

    def draw(ax: Any) -> None:
        placed: list[tuple[float, float, str]] = []
        for name, x, y in points:
            colour = COLORS["S"] if name == chosen else COLORS["H"]
            ax.scatter([x], [100.0 * y], s=36, color=colour, zorder=4 if name == chosen else 3)
            # the name on the side with room, and above the names of points close by (never on top of them); a
            # release's name is the user's text: drawn as plain text, never parsed as mathematics
            fx, fy = x / x_top, 100.0 * y / y_top
            side = "right" if fx > 0.45 else "left"
            near = sum(1 for px, py, ps in placed if ps == side and abs(px - fx) < 0.3 and abs(py - fy) < 0.08)
            placed.append((fx, fy, side))
            label = ax.annotate(name if len(name) <= NAME_CHARS else name[:NAME_CHARS - 1] + "…", (x, 100.0 * y),
                                xytext=(-5 if side == "right" else 5, 4 + 11 * near), textcoords="offset points",
                                ha=side, fontsize=8, parse_math=False)
            label.set_in_layout(False)  # the axes keep their width; the names are placed to fit inside them
        ax.axhline(1.0, color=COLORS["line"], linestyle=":", linewidth=1)
        ax.set_xlim(0.0, x_top)
        ax.set_ylim(0.0, y_top)
        ax.set_xlabel("marginal distance (total variation per column, averaged; left is closer to the real data)")
        ax.set_ylabel("strongest attack's TPR at 1% FPR (%)")
        ax.set_title("Privacy against utility, one point per release (dotted: chance, 1%)")

    svg = render_figure(draw, size=(6.0, 3.2), fmt="svg")
    alt = "; ".join(f"{n}: marginal distance {x:.3g}, strongest attack {100.0 * y:.1f}% at 1% FPR"
                    for n, x, y in points)
    return {"src": data_uri(svg, "svg"), "alt": f"Privacy against utility. {alt}"}


def _check_figures(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Each check behind the verdict that declares figures, with its figures drawn for every release side by side
    on shared axes, in the ranking's order (:func:`~synthpriv_report.display.figures.side_by_side_entry`, the
    drawing of :meth:`Comparison.figure <synthpriv_report.evaluation.comparison.Comparison.figure>`), from the results
    stored
    in the document: ``[{"metric", "title", "figures": [{"caption", "alt", "src"}]}]``."""
    stored = release_checks(doc)
    ranking = [name for name in doc["comparison"]["ranking"] if name in stored]
    metrics = list(dict.fromkeys(m for name in ranking for m in stored[name]))
    out = []
    for metric in metrics:
        if not all(metric in stored[name] for name in ranking):
            continue
        results = {name: stored[name][metric] for name in ranking}
        spec = REGISTRY.get(metric)
        figures = [side_by_side_entry(results, i) for i in range(len(spec.figures) if spec is not None else 0)]
        drawn = [{**f, "caption": f["caption"].rstrip().rstrip(".") + "."} for f in figures if f is not None]
        if drawn:
            first = next(iter(results.values()))
            out.append({"metric": metric, "title": first.title or metric, "figures": drawn})
    return out


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
               "figure": _tradeoff_figure(cmp, chosen), "sweep": epsilon_sweep_figure(cmp, fmt="svg"),
               "check_figures": _check_figures(doc)}
    html = render("comparison.html.j2", **context)
    text = (f"Choosing among {view['n']} releases: this report is about {chosen}; its verdict alone: "
            f"{context['alone']}; allowing for the choice among {view['n']}: {context['adjusted']}.")
    return html, text


class LoadedComparison:
    """A comparison read back from its JSON document (:func:`comparison_from_json`): it writes the comparison's
    HTML, PDF and JSON again without the data, from the checked document alone, as a live
    :class:`~synthpriv_report.evaluation.comparison.Comparison` writes them.

    The document holds the chosen release's whole report and, for every release, its verdicts, the results of the
    checks behind its verdict (with the evidence their figures are drawn from), its membership attacks and its
    utility: what the documents show. It does not hold the other releases' whole reports, so the documents are
    written for the release chosen when the document was made.

    Attributes
    ----------
    document : dict
        The checked comparison document (schema ``synthpriv_report.evaluation.comparison/1``).
    report : ReportData
        The chosen release's report, its levels derived again on load.
    chosen : str
        The release the documents are written for.
    """

    def __init__(self, document: Mapping[str, Any], *, source: str = "document"):
        # the digest and every field checked, as load_comparison checks a file
        doc, data = _checked(schema_document(document, COMPARISON_SCHEMA, "a comparison document", source=source),
                             source)
        self.document = doc
        self.report = data
        self.chosen: str = doc["chosen"]

    @property
    def names(self) -> list[str]:
        """The releases' names, in the order given."""
        return list(self.document["comparison"]["releases"])

    @property
    def n_compared(self) -> int:
        """How many releases were compared."""
        return int(self.document["comparison"]["n_compared"])

    def ranking(self) -> list[str]:
        """The releases from the least to the most risky, as the comparison ranked them."""
        return list(self.document["comparison"]["ranking"])

    def to_dict(self) -> dict[str, Any]:
        """The comparison's dictionary, as :meth:`Comparison.to_dict
        <synthpriv_report.evaluation.comparison.Comparison.to_dict>`
        gave it (a deep copy)."""
        return copy.deepcopy(dict(self.document["comparison"]))

    def release_checks(self) -> dict[str, dict[str, MetricResult]]:
        """Every release's results of the checks behind its verdict (:func:`release_checks`)."""
        return release_checks(self.document)

    def write_reports(self, *, html: str | os.PathLike[str] | None = None, pdf: str | os.PathLike[str] | None = None,
                      json: str | os.PathLike[str] | None = None, chosen: str | None = None,
                      **options: Any) -> list[Path]:
        """Write the comparison's documents again (:func:`write_comparison_reports`, whose ``engine`` and ``title``
        ``options`` takes); ``chosen``, when given, must be the release the document was made for.

        Returns
        -------
        list of pathlib.Path
            The written files, in the order html, pdf, json.
        """
        return write_comparison_reports(self, chosen=chosen, html=html, pdf=pdf, json=json, **options)

    def _repr_html_(self) -> str:
        from ..display.comparison import render_comparison

        return render_comparison(self.to_dict())

    def __repr__(self) -> str:
        return (f"LoadedComparison({self.n_compared} releases: {', '.join(map(repr, self.names))}; chosen "
                f"{self.chosen!r}, created {self.document['created']!r})")


def comparison_from_json(source: str | os.PathLike[str] | Mapping[str, Any]) -> LoadedComparison:
    """Read a comparison's JSON document (a path, or an already parsed document) as a :class:`LoadedComparison`,
    checked as :func:`load_comparison` checks it (a parsed document's digest too).

    Raises
    ------
    ValueError
        Naming the file (or "document") and what does not hold.
    """
    if isinstance(source, Mapping):
        return LoadedComparison(source)
    doc, where = read_document(source, COMPARISON_SCHEMA, "a comparison document")
    return LoadedComparison(doc, source=where)


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
    cmp : Comparison or LoadedComparison
        A live comparison, or one read back from its JSON document (:func:`comparison_from_json`: its documents
        are written again from the document alone).
    chosen : str, optional
        The release the documents are written for (default: the first of the ranking; a loaded comparison is
        written for the release it was made for).
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

    Raises
    ------
    ValueError
        Nothing to write (no target given), or a release the document cannot be written for.
    """
    from .render import render_html, write_documents

    if html is None and pdf is None and json is None:
        raise ValueError("nothing to write: give at least one of html=, pdf=, json=")
    if isinstance(cmp, LoadedComparison):
        if chosen is not None and chosen != cmp.chosen:
            raise ValueError(f"this comparison was read back from its JSON document, which holds the whole report of "
                             f"{cmp.chosen!r} only; it cannot be written for {chosen!r}: write it from the "
                             "Comparison itself")
        if reveal_real_values is not None or inputs is not None:
            raise ValueError("reveal_real_values= and inputs= were fixed when the comparison's document was made; "
                             "a comparison read back from it is written as it is")
        doc, data = cmp.document, cmp.report
    else:
        doc, data = comparison_document(cmp, chosen, reveal_real_values=reveal_real_values, inputs=inputs)
    return write_documents(lambda: render_html(data, title=title, after_dossier=[comparison_page(doc)]), dumps(doc),
                           html=html, pdf=pdf, json=json, engine=engine, on_stage=on_stage)  # type: ignore[arg-type]
