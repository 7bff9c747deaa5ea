"""The metric tables and the metric reference pages of the documentation, generated from the metric declarations.

``python -m synthpriv_report.tools.catalogue`` prints the table of every metric;
``python -m synthpriv_report.tools.catalogue --write FILE`` replaces the text between the
``<!-- metrics-table -->`` and ``<!-- /metrics-table -->`` markers of ``FILE``. :func:`metric_pages` makes the
documentation site's metric reference, at every build, from the declarations and the definitions in
``docs/metrics.md`` (one page per metric: its declared facts, then its section of that file), so a new metric
appears there as soon as it is registered and nothing is written twice.
"""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path

from ..core.params import LEVEL_FAMILIES
from ..core.registry import GROUP_TITLES, LevelSpec, get_spec, metric_names
from ..grading.levels import rule_text

BEGIN, END = "<!-- metrics-table -->", "<!-- /metrics-table -->"
_DIRECTION = {"higher_is_riskier": "higher is riskier", "higher_is_safer": "higher is safer"}


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _range(lo: float, hi: float) -> str:
    return f"[{lo:g}, ∞)" if hi == float("inf") else f"[{lo:g}, {hi:g}]"


def _level_text(name: str) -> tuple[str, str]:
    spec = get_spec(name)
    ls = spec.level
    if ls is None:
        return "no level", ""
    if not isinstance(ls, LevelSpec):  # a rule chosen per result (e.g. with or without a holdout)
        if getattr(ls, "__name__", "") == "review_level":
            a, e = LEVEL_FAMILIES["review_absolute"], LEVEL_FAMILIES["review_excess"]
            text = f"with a holdout: on {e.scale}, {rule_text(spec, e)}; without: {rule_text(spec, a)}"
            return text, "package default"
        return (ls.__doc__ or "chosen per result").strip().splitlines()[0], "package default"
    scale = "" if ls.scale == "the value" else f"on {ls.scale}: "
    source = ls.source.split(",")[0] if ls.source.startswith("package default") else ls.source
    return scale + rule_text(spec, ls), source


def metrics_table() -> str:
    """Markdown table: every registered metric with its group, direction, range, interval, level rule and
    parameters."""
    lines = ["| metric | what it measures | direction, range | interval | level rule | parameters |",
             "|---|---|---|---|---|---|"]
    for group in GROUP_TITLES:
        for name in metric_names():
            spec = get_spec(name)
            if spec.group != group:
                continue
            rule, _ = _level_text(name)
            drives = " **Drives the verdict.**" if spec.drives_verdict else ""
            params = ", ".join(f"`{p.name}` ({p.allowed()}, default {p.default!r})" for p in spec.params
                               if p.name != "n_bootstrap")
            what = spec.words.measures if spec.words else spec.summary
            lines.append(f"| `{name}` ({_cell(spec.title)}) | {_cell(what)} | {_DIRECTION[spec.direction]}, "
                         f"{_range(*spec.value_range)} | {_cell(spec.interval_kind or '—')} | "
                         f"{_cell(rule)}{drives} | {_cell(params or '—')} |")
    return "\n".join(lines)


#: Where the metric reference lives in the documentation site (relative to its ``docs`` folder).
PAGES_DIR = "reference/metrics"

_HEADING = re.compile(r"^## (.+?)\s*$", re.M)


def _md(text: str) -> str:
    """A declaration's text as a Markdown table cell: markup characters escaped, one line."""
    return html.escape(_cell(text), quote=False)


def definition_sections(definitions: str) -> tuple[str, dict[str, str]]:
    """``(intro, {heading: body})`` of the definitions document (``docs/metrics.md``): the text before its first
    ``## `` heading and each second-level section's body, in order."""
    parts = _HEADING.split(definitions)
    intro, sections = parts[0], {}
    for head, body in zip(parts[1::2], parts[2::2]):
        sections[head.strip()] = body.strip("\n") + "\n"
    return intro, sections


def _slug(heading: str) -> str:
    """The page name of a section that is not a metric (``Generator audit (`audit`)`` -> ``generator-audit``)."""
    words = re.sub(r"\(.*?\)", "", heading).strip().lower()
    return re.sub(r"[^a-z0-9]+", "-", words).strip("-")


def _relink(body: str, here: str, pages: dict[str, str]) -> str:
    """The definitions' in-document links (``(#dcr)``, ``(#shared-machinery)``) pointed at the split pages.

    ``pages`` maps a section's anchor to its page; an anchor inside the shared machinery maps to that page's
    anchor."""
    def repl(m: re.Match[str]) -> str:
        anchor = m.group(1)
        if anchor in pages:
            target = pages[anchor]
            return f"]({target})" if target != here else f"](#{anchor})"
        return f"](index.md#{anchor})"
    return re.sub(r"\]\(#([A-Za-z0-9_-]+)\)", repl, body)


def metric_facts(name: str) -> str:
    """A metric's declared facts as a two-column Markdown table (what it measures, direction and range, interval,
    level rule, whether it drives the verdict, parameters, family)."""
    spec = get_spec(name)
    rule, source = _level_text(name)
    params = "<br>".join(f"`{p.name}`: {_md(p.allowed())}, default `{p.default!r}`" for p in spec.params
                         if p.name != "n_bootstrap")
    rows = [
        ("What it measures", _md(spec.words.measures if spec.words else spec.summary)),
        ("Direction, range", f"{_DIRECTION[spec.direction]}, {_range(*spec.value_range)}"),
        ("Interval", _md(spec.interval_kind or "—")),
        ("Level rule", _md(rule) + (f" (source: {_md(source)})" if source else "")),
        ("Drives the verdict", "yes" if spec.drives_verdict else "no"),
        ("Parameters", params or "—"),
        ("Family", _md(GROUP_TITLES.get(spec.group, spec.group))),
    ]
    return "\n".join(["| declared | |", "|---|---|"] + [f"| {k} | {v} |" for k, v in rows])


def metric_pages(definitions: str) -> dict[str, str]:
    """The documentation site's metric reference: ``{path: Markdown}``, paths relative to the site's ``docs``
    folder, under :data:`PAGES_DIR`.

    ``definitions`` is the text of ``docs/metrics.md``. The pages are ``index.md`` (every metric by family, with
    the shared machinery the definitions open with), ``table.md`` (:func:`metrics_table`), one page per
    registered metric (its declared facts from :func:`metric_facts`, then its section of the definitions), and
    one page per other section of the definitions (the generator audit, the references). A registered metric
    without a section in the definitions, or a section naming no registered metric, raises ``ValueError``.
    """
    intro, sections = definition_sections(definitions)
    names = metric_names()
    machinery = "Shared machinery"
    missing = [n for n in names if n not in sections]
    if missing:
        raise ValueError(f"docs/metrics.md has no section for the registered metric(s) {missing}")
    others = [h for h in sections if h not in names and h != machinery]
    pages: dict[str, str] = {}
    anchors = {n: f"{n}.md" for n in names}
    anchors.update({_slug(h): f"{_slug(h)}.md" for h in others})
    anchors["shared-machinery"] = "index.md#shared-machinery"
    anchors["references"] = "references.md"

    by_group = []
    for group, title in GROUP_TITLES.items():
        members = [n for n in names if get_spec(n).group == group]
        if not members:
            continue
        by_group += [f"## {title}", "", "| metric | what it measures | direction, range | drives the verdict |",
                     "|---|---|---|---|"]
        for n in members:
            spec = get_spec(n)
            what = spec.words.measures if spec.words else spec.summary
            by_group.append(f"| [`{n}`]({n}.md) ({_md(spec.title)}) | {_md(what)} | "
                            f"{_DIRECTION[spec.direction]}, {_range(*spec.value_range)} | "
                            f"{'yes' if spec.drives_verdict else 'no'} |")
        by_group.append("")
    conventions = [p for p in intro.split("\n\n") if p.startswith("Formulas are written")]
    index = [
        "# Metric reference", "",
        f"Every metric the package computes ({len(names)}), by family. Each page gives the metric's declared facts "
        "(the same declaration the reports, the sliders and the JSON read), then its definition, its public source "
        "and the choices made where the source is silent. [All metrics in one table](table.md) · "
        "[References](references.md).", "",
        *(c.strip() + "\n" for c in conventions),
        *by_group,
        f"## {machinery}", "",
        _relink(sections[machinery], "index.md", anchors),
    ]
    pages[f"{PAGES_DIR}/index.md"] = "\n".join(index)
    pages[f"{PAGES_DIR}/table.md"] = ("# All metrics in one table\n\nGenerated from the metric declarations; each "
                                     "metric's page has its definition.\n\n" + metrics_table() + "\n")
    for n in names:
        spec = get_spec(n)
        page = [f"# `{n}`: {_md(spec.title)}", "", metric_facts(n), "", "## Definition", "",
                _relink(sections[n], f"{n}.md", anchors)]
        pages[f"{PAGES_DIR}/{n}.md"] = "\n".join(page)
    for h in others:
        pages[f"{PAGES_DIR}/{_slug(h)}.md"] = f"# {h}\n\n" + _relink(sections[h], f"{_slug(h)}.md", anchors)
    return pages


def metric_nav() -> list[dict[str, object]]:
    """The metric reference's navigation for MkDocs: the index, then each family's metrics as a section."""
    nav: list[dict[str, object]] = [{"Overview": f"{PAGES_DIR}/index.md"}]
    names = metric_names()
    for group, title in GROUP_TITLES.items():
        members = [n for n in names if get_spec(n).group == group]
        if members:
            nav.append({title: [{n: f"{PAGES_DIR}/{n}.md"} for n in members]})
    return nav


def update_readme(path: str | Path) -> bool:
    """Replace the table between the markers of ``path``; True when the file changed."""
    p = Path(path)
    text = p.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        raise ValueError(f"{p} has no {BEGIN} ... {END} markers")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    new = f"{head}{BEGIN}\n{metrics_table()}\n{END}{tail}"
    if new != text:
        tmp = p.with_name(p.name + ".tmp")
        tmp.write_text(new, encoding="utf-8")
        tmp.replace(p)
        return True
    return False


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--write"] and len(args) == 2:
        update_readme(args[1])
        return 0
    sys.stdout.write(metrics_table() + "\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
