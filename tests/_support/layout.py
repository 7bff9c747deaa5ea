"""Shared by the layout tests (``tests/browser/test_layout_browser.py``, ``tests/browser/test_layout_pdf.py``):
one small demo report per test session, its HTML page and PDFs, JupyterLab's own style sheets, a headless
Chromium and the screenshot folder.

The report is evaluated once per session (a few hundred demo rows, the metrics that compute fast, every group of
the report represented) and every document is rendered from it once.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

from _support.paths import ROOT

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
#: Metrics of the layout report: ones that compute fast, from the closeness, holdout and attack groups.
#: A title with long unbroken names, as a user might give.
TITLE = "Quarterly release adult_census_synthetic_v2_final: privacy review"


def screenshot_dir() -> Path:
    """Where the tests write their PNG screenshots: ``$SYNTHPRIV_SCREENSHOTS`` or ``reports/screenshots``
    (git-ignored) in the repository."""
    d = Path(os.environ.get("SYNTHPRIV_SCREENSHOTS") or ROOT / "reports" / "screenshots")
    d.mkdir(parents=True, exist_ok=True)
    return d


@lru_cache(maxsize=1)
def _workdir() -> Path:
    return Path(tempfile.mkdtemp(prefix="spr-layout-"))


@lru_cache(maxsize=1)
def report() -> Any:
    """The session's ResultSet (demo data, leaky synthetic set, so that every level shows).

    Every registered measure runs, so that each table of the summary (the checks, distinguishability, the other
    measures with one that could not be computed) is laid out with all its rows.
    """
    from synthpriv_report import Evaluation
    from synthpriv_report.core.registry import metric_names
    from synthpriv_report.datasets import load_demo

    demo = load_demo()
    ev = Evaluation(demo.real.iloc[:400], demo.synthetic_leaky.iloc[:400], demo.holdout.iloc[:200],
                    key_fields=demo.key_fields, sensitive_fields=demo.sensitive_fields,
                    metrics=metric_names(), progress=False, random_state=0)
    return ev.results()


@lru_cache(maxsize=1)
def html_report() -> str:
    """The HTML export of :func:`report` (as a string)."""
    from synthpriv_report.export.render import render_html

    return render_html(report(), title=TITLE)


@lru_cache(maxsize=2)
def pdf_report(engine: str) -> Path:
    """The PDF of :func:`html_report` printed by ``engine``."""
    from synthpriv_report.export.files import write_atomic
    from synthpriv_report.export.render import html_to_pdf

    if engine == "chromium" and not Path(CHROMIUM).exists():
        pytest.skip(f"no system Chromium at {CHROMIUM}: the Chromium PDF engine needs it (apt-get install chromium)")
    if engine == "weasyprint":
        pytest.importorskip("weasyprint", reason="WeasyPrint not installed (pip install weasyprint)")
    return write_atomic(_workdir() / f"report-{engine}.pdf", html_to_pdf(html_report(), engine=engine))


# ---------------------------------------------------------------------------------------------------------------
# JupyterLab's own CSS


def lab_dir() -> Path:
    """The installed JupyterLab application folder (``share/jupyter/lab``)."""
    commands = pytest.importorskip("jupyterlab.commands", reason="jupyterlab not installed")
    return Path(commands.get_app_dir())


def lab_theme_css(theme: str) -> str:
    """The built variables of a JupyterLab theme: ``light``, ``dark`` or ``dark-high-contrast``."""
    path = lab_dir() / "themes" / "@jupyterlab" / f"theme-{theme}-extension" / "index.css"
    if not path.is_file():
        pytest.skip(f"JupyterLab theme CSS not found at {path}")
    return path.read_text(encoding="utf-8")


_CSS_MODULE = re.compile(r"\.push\(\[\w+\.id,`(.*?)`,\"\"\]\)", re.S)


@lru_cache(maxsize=1)
def lab_core_css() -> str:
    """JupyterLab's own style sheets (rendermime, output area, notebook...) as built into its static bundle.

    The bundle carries each style sheet as a JavaScript template string (webpack's css-loader); they are cut out
    of every ``static/*.js`` file that holds the rendermime rules.
    """
    found = []
    for js in sorted((lab_dir() / "static").glob("*.js")):
        text = js.read_text(encoding="utf-8", errors="replace")
        if ".jp-RenderedHTMLCommon" not in text:
            continue
        for m in _CSS_MODULE.finditer(text):
            found.append(m.group(1).replace("\\`", "`").replace("\\\\", "\\"))
    css = "\n".join(found)
    if ":not(.jp-RenderedMarkdown).jp-RenderedHTMLCommon td" not in css:
        pytest.skip("JupyterLab's rendermime style sheet was not found in its static bundle")
    return css


def lab_page(view_html: str, theme: str) -> str:
    """A notebook output as JupyterLab lays it out: its CSS, a theme, an output area with a prompt column."""
    return f"""<!DOCTYPE html><html><head><meta charset="utf-8">
<style>{lab_core_css()}</style>
<style>{lab_theme_css(theme)}</style>
<style>body {{ margin: 0; background: var(--jp-layout-color0); color: var(--jp-content-font-color1);
  font-family: var(--jp-ui-font-family); }}</style>
</head><body class="jp-ThemedContainer">
<div class="jp-Notebook jp-mod-scrollPastEnd" style="padding: 8px 16px;">
<div class="jp-Cell jp-CodeCell jp-Notebook-cell">
<div class="jp-Cell-outputWrapper"><div class="jp-OutputArea jp-Cell-outputArea" id="spr-output-area">
<div class="jp-OutputArea-child">
<div class="jp-OutputPrompt jp-OutputArea-prompt">[1]:</div>
<div class="jp-RenderedHTMLCommon jp-RenderedHTML jp-OutputArea-output" data-mime-type="text/html">
{view_html}
</div></div></div></div></div></div>
</body></html>"""


# ---------------------------------------------------------------------------------------------------------------
# headless Chromium (Selenium)


def chrome(width: int = 1000, height: int = 900) -> Any:
    """A headless Chromium driven through chromedriver; skips with the reason when either is missing."""
    for path, what in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromedriver (apt-get install chromium-driver)")):
        if not Path(path).exists():
            pytest.skip(f"{what} not installed at {path}: the layout checks need a real browser")
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium not installed (pip install selenium)")
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="spr-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", f"--user-data-dir={profile}", "--hide-scrollbars",
                f"--window-size={width},{height}", "--force-device-scale-factor=1"):
        options.add_argument(arg)
    try:
        driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    except Exception as exc:  # noqa: BLE001 - any start failure is a skip with its reason
        shutil.rmtree(profile, ignore_errors=True)
        pytest.skip(f"headless Chromium did not start: {exc}")
    driver.set_page_load_timeout(60)
    driver._spr_profile = profile
    return driver


def quit_chrome(driver: Any) -> None:
    driver.quit()
    shutil.rmtree(driver._spr_profile, ignore_errors=True)


def write_page(html: str, name: str) -> Path:
    """``html`` written to a file of this session's work folder (loaded by the browser as file://)."""
    path = _workdir() / name
    path.write_text(html, encoding="utf-8")
    return path


#: Measures a loaded page in the browser. Returns overflow, right-aligned text cells, tables wider than their
#: output area, and every visible text element whose contrast with what lies behind it is below 4.5:1.
MEASURE_JS = r"""
const root = document.querySelector(arguments[0]);
const area = document.querySelector(arguments[1]) || document.body;
function rgba(s) {
  const m = s.match(/rgba?\(([^)]+)\)/);
  if (!m) return [0, 0, 0, 0];
  const p = m[1].split(/[ ,\/]+/).filter(x => x.length).map(Number);
  return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
}
function over(top, bottom) {  // top colour composited over an opaque bottom colour
  const a = top[3];
  return [0, 1, 2].map(i => top[i] * a + bottom[i] * (1 - a)).concat([1]);
}
function background(el) {
  const layers = [];
  for (let e = el; e; e = e.parentElement) {
    const c = rgba(getComputedStyle(e).backgroundColor);
    if (c[3] > 0) layers.push(c);
    if (c[3] >= 1) break;
  }
  let bg = [255, 255, 255, 1];
  for (let i = layers.length - 1; i >= 0; i--) bg = over(layers[i], bg);
  return bg;
}
function lum(c) {
  const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
}
function contrast(a, b) { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); }
const doc = document.documentElement;
const out = {overflow: doc.scrollWidth - doc.clientWidth, rightAligned: [], wideTables: [], lowContrast: [],
             nText: 0, nCells: 0, nTables: 0, areaWidth: area.getBoundingClientRect().width};
const areaRight = area.getBoundingClientRect().right;
for (const t of root.querySelectorAll('table')) {
  out.nTables++;
  const r = t.getBoundingClientRect();
  if (r.width > 0 && r.right > areaRight + 0.5) out.wideTables.push([t.className, Math.round(r.width)]);
}
for (const c of root.querySelectorAll('td, th')) {
  const text = c.textContent.trim();
  if (!text || c.getClientRects().length === 0) continue;
  out.nCells++;
  const align = getComputedStyle(c).textAlign;
  const numeric = c.classList.contains('spr-num');
  if (!numeric && (align === 'right' || align === 'end' || align === '-webkit-right'))
    out.rightAligned.push(text.slice(0, 40));
}
for (const el of root.querySelectorAll('*')) {
  const own = Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim());
  if (!own || el.getClientRects().length === 0) continue;
  const st = getComputedStyle(el);
  if (st.visibility === 'hidden' || st.display === 'none' || el.closest('style')) continue;
  out.nText++;
  const fg = over(rgba(st.color), background(el));
  const bg = background(el);
  const ratio = contrast(fg, bg);
  if (ratio < 4.5) out.lowContrast.push([el.tagName, el.className, el.textContent.trim().slice(0, 30),
                                         st.color, Math.round(ratio * 100) / 100]);
}
return out;
"""
