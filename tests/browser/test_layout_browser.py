"""The notebook view and the HTML export laid out by a real browser (headless Chromium through Selenium).

The notebook view (``ResultSet._repr_html_``) is placed in an output area styled by JupyterLab's own CSS (taken
from the installed ``jupyterlab`` package: its rendermime rules and its light, dark and high-contrast theme
variables); the HTML export is loaded as written. At 1000 px wide: no horizontal overflow, no text cell
right-aligned (JupyterLab right-aligns every cell of an HTML output), no table wider than the output area, and
every visible text element at a contrast of at least 4.5:1 (WCAG AA) with what lies behind it. A screenshot of the
dark view is written to the screenshot folder (``$SYNTHPRIV_SCREENSHOTS`` or ``reports/screenshots``).
"""

from __future__ import annotations

from typing import Any

import pytest
from _support import layout as ls

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def browser() -> Any:
    driver = ls.chrome(width=1000, height=900)
    try:
        yield driver
    finally:
        ls.quit_chrome(driver)


@pytest.fixture(scope="module")
def view_html() -> str:
    return ls.report()._repr_mimebundle_()["text/html"]


def _measure(driver: Any, path: Any, root: str, area: str) -> dict[str, Any]:
    driver.get(path.as_uri())
    return driver.execute_script(ls.MEASURE_JS, root, area)


def _check(m: dict[str, Any]) -> None:
    assert m["nCells"] > 20 and m["nText"] > 50 and m["nTables"] >= 3, m  # the page really was measured
    assert m["overflow"] <= 0, f"the page scrolls sideways by {m['overflow']} px at 1000 px"
    assert m["rightAligned"] == [], f"text cells right-aligned: {m['rightAligned'][:10]}"
    assert m["wideTables"] == [], f"tables wider than the output area ({m['areaWidth']:.0f} px): {m['wideTables']}"
    assert m["lowContrast"] == [], f"{len(m['lowContrast'])} of {m['nText']} text elements below 4.5:1: " \
                                   f"{m['lowContrast'][:8]}"


@pytest.mark.parametrize("theme", ["light", "dark", "dark-high-contrast"])
def test_notebook_view_in_jupyterlab_css(browser: Any, view_html: str, theme: str) -> None:
    path = ls.write_page(ls.lab_page(view_html, theme), f"view-{theme}.html")
    m = _measure(browser, path, ".spr-report", "#spr-output-area")
    if theme == "dark":
        browser.save_screenshot(str(ls.screenshot_dir() / "notebook-view-dark.png"))
    _check(m)


def test_jupyterlab_css_really_right_aligns_foreign_tables(browser: Any) -> None:
    """The check can fail: a plain table in the same output area is right-aligned by JupyterLab's rules."""
    plain = "<div class='spr-report-not'><table><tr><td>text cell</td><td>other text</td></tr></table></div>"
    path = ls.write_page(ls.lab_page(plain, "light"), "plain-table.html")
    m = _measure(browser, path, ".spr-report-not", "#spr-output-area")
    assert m["rightAligned"] == ["text cell", "other text"]


def test_dark_text_on_dark_background_is_caught(browser: Any) -> None:
    """The contrast check can fail: fixed dark text on JupyterLab's dark background is reported."""
    dark = "<div class='spr-x'><p style='color:#1f2328'>dark on dark</p></div>"
    path = ls.write_page(ls.lab_page(dark, "dark"), "dark-text.html")
    m = _measure(browser, path, ".spr-x", "#spr-output-area")
    assert [row[2] for row in m["lowContrast"]] == ["dark on dark"]


def test_html_export_layout(browser: Any) -> None:
    path = ls.write_page(ls.html_report(), "report.html")
    m = _measure(browser, path, "body", "body")
    _check(m)


def test_html_export_accessibility(browser: Any) -> None:
    """Headings in order (no level skipped), every table with a caption and column or row headers with a scope,
    every image with alt text that names a value."""
    path = ls.write_page(ls.html_report(), "report.html")
    browser.get(path.as_uri())
    got = browser.execute_script(r"""
      const levels = Array.from(document.querySelectorAll('.spr-export :is(h1, h2, h3, h4)'))
        .map(h => Number(h.tagName[1]));
      const tables = Array.from(document.querySelectorAll('.spr-export table')).map(t => [
        !!t.querySelector('caption') && t.querySelector('caption').textContent.trim().length > 0,
        Array.from(t.querySelectorAll('th')).every(th => ['col', 'row'].includes(th.getAttribute('scope')))]);
      const alts = Array.from(document.querySelectorAll('.spr-export img')).map(i => i.getAttribute('alt') || '');
      return {levels, tables, alts};""")
    levels = got["levels"]
    assert levels and levels[0] == 1
    assert all(b - a <= 1 for a, b in zip(levels, levels[1:])), levels
    assert got["tables"] and all(cap and scoped for cap, scoped in got["tables"]), got["tables"]
    assert got["alts"] and all(len(a) > 20 and any(ch.isdigit() for ch in a) for a in got["alts"]), got["alts"]
