"""The documentation's metric reference is generated from the declarations and is current: every registered
metric has its row in the table of all metrics and a page of its own, with its declared rule and its definition
from docs/metrics.md."""

from __future__ import annotations

from _support.paths import ROOT

from synthpriv_report.core.registry import get_spec, metric_names
from synthpriv_report.tools.catalogue import (
    BEGIN,
    END,
    PAGES_DIR,
    definition_sections,
    metric_pages,
    metrics_table,
    update_readme,
)

DEFINITIONS = ROOT / "docs" / "metrics.md"


def _pages() -> dict[str, str]:
    return metric_pages(DEFINITIONS.read_text(encoding="utf-8"))


def test_the_sites_table_is_current():
    table = _pages()[f"{PAGES_DIR}/table.md"]
    assert metrics_table() in table


def test_every_metric_has_a_row_with_its_rule():
    table = metrics_table()
    for name in metric_names():
        row = next(line for line in table.splitlines() if line.startswith(f"| `{name}`"))
        assert "higher is" in row and ("high" in row or "no level" in row)


def test_every_metric_has_a_page_with_its_declaration_and_definition():
    pages = _pages()
    _, sections = definition_sections(DEFINITIONS.read_text(encoding="utf-8"))
    for name in metric_names():
        page = pages[f"{PAGES_DIR}/{name}.md"]
        spec = get_spec(name)
        assert page.startswith(f"# `{name}`: ") and "| Level rule |" in page
        assert ("| Drives the verdict | yes |" in page) == spec.drives_verdict
        first_line = sections[name].strip().splitlines()[0]
        assert first_line[:60] in page, name
        assert f"[`{name}`]({name}.md)" in pages[f"{PAGES_DIR}/index.md"]


def test_a_metric_without_a_definition_is_refused():
    text = DEFINITIONS.read_text(encoding="utf-8").replace("\n## dcr\n", "\n## dcr_gone\n")
    try:
        metric_pages(text)
    except ValueError as err:
        assert "dcr" in str(err)
    else:
        raise AssertionError("a registered metric without a section in docs/metrics.md was accepted")


def test_the_definitions_links_point_at_the_split_pages():
    pages = _pages()
    for path, text in pages.items():
        assert "](#dcr)" not in text or path.endswith("/dcr.md"), path
    assert "](dcr.md)" in pages[f"{PAGES_DIR}/index.md"] or "](dcr.md)" in "".join(pages.values())


def test_the_table_can_still_be_written_between_markers(tmp_path):
    doc = tmp_path / "table.md"
    doc.write_text(f"before\n{BEGIN}\nold\n{END}\nafter\n", encoding="utf-8")
    assert update_readme(doc) is True
    assert doc.read_text(encoding="utf-8") == f"before\n{BEGIN}\n{metrics_table()}\n{END}\nafter\n"
    assert update_readme(doc) is False
