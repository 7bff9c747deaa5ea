"""The teaching notebooks in a real JupyterLab (headless Chromium): every slider of the lab dragged with the mouse,
the time from the release of the mouse button to the last change of the widget's output measured in the page,
and screenshots in the light and the dark theme.

The time is what a student waits for: the kernel re-reduces cached arrays, renders the table, draws the figure,
and the browser shows the new table and image. The target is 300 ms on an idle 2-core machine. The test prints each
time with the machine's load and checks that every slider's output changed; it asserts no time (a shared machine
runs every step slower by about its load per core). ``SYNTHPRIV_SCREENSHOTS`` names a folder that keeps the
screenshots and a ``slider_times.json`` of the times; without it they stay in the test's temporary folder.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from _support.jupyterlab import running_notebook
from _support.paths import ROOT

TOKEN = "synthpriv-lab-sliders"
LAB = ROOT / "notebooks" / "02_teaching_the_metrics.ipynb"
QUICKSTART = ROOT / "notebooks" / "01_quickstart.ipynb"
TARGET_MS = 300.0

_OBSERVE = """(i) => {
  const h = document.querySelectorAll('.jp-OutputArea-output .widget-slider .noUi-handle')[i];
  const own = h.closest('.widget-slider');
  const area = h.closest('.jp-OutputArea-output');
  window.__spr = {t: [], release: 0, area: area};
  if (window.__sprObs) window.__sprObs.disconnect();
  window.__sprObs = new MutationObserver(ms => { for (const m of ms) {
    if (own.contains(m.target)) continue;   // the slider's own readout and handle
    window.__spr.t.push(performance.now()); } });
  window.__sprObs.observe(area, {subtree: true, childList: true, attributes: true, characterData: true});
  const label = own.querySelector('.widget-label');
  const track = own.querySelector('.noUi-target').getBoundingClientRect();
  const hb = h.getBoundingClientRect();
  return {label: label ? label.innerText : '', right: track.right - (hb.left + hb.right) / 2};
}"""
_RELEASE = "() => { window.__spr.t = []; window.__spr.release = performance.now(); }"
_RESULT = "() => ({n: window.__spr.t.length, last: window.__spr.t.length ? Math.max(...window.__spr.t) : 0, " \
          "release: window.__spr.release, now: performance.now()})"
#: The kernel's own time for the update, as the widget's status line says it ("updated in N ms").
_KERNEL = "() => { const m = /updated in (\\d+) ms/.exec(window.__spr.area.innerText); return m ? +m[1] : null; }"


def _settle(page, quiet_ms: float = 1500.0, limit_s: float = 30.0) -> dict:
    """Wait until the output has changed and then stayed quiet for ``quiet_ms``; the observer's record."""
    deadline = time.monotonic() + limit_s
    while True:
        r = page.evaluate(_RESULT)
        if r["n"] and r["now"] - r["last"] > quiet_ms:
            return r
        if time.monotonic() > deadline:
            return r
        page.wait_for_timeout(100)


def _drag(page, i: int) -> dict:
    """Drag the i-th slider's handle with the mouse and measure release -> last output change."""
    handle = page.locator(".jp-OutputArea-output .widget-slider .noUi-handle").nth(i)
    handle.scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    info = page.evaluate(_OBSERVE, i)
    box = handle.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    dx = 60 if info["right"] > 70 else -60
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + dx, y, steps=6)
    page.evaluate(_RELEASE)
    page.mouse.up()
    r = _settle(page)
    ms = r["last"] - r["release"] if r["n"] else None
    return {"slider": info["label"], "ms": ms, "kernel_ms": page.evaluate(_KERNEL), "changes": r["n"]}


def _click_measure(page, selector: str) -> dict:
    """Click a button of a widget (the leak explorer's kind) and measure click -> last output change."""
    button = page.locator(selector).first
    button.scroll_into_view_if_needed()
    button.evaluate("""(b) => {
      const area = b.closest('.jp-OutputArea-output'); const own = b.closest('.widget-toggle-buttons');
      window.__spr = {t: [], release: 0}; if (window.__sprObs) window.__sprObs.disconnect();
      window.__sprObs = new MutationObserver(ms => { for (const m of ms) { if (own.contains(m.target)) continue;
        window.__spr.t.push(performance.now()); } });
      window.__sprObs.observe(area, {subtree: true, childList: true, attributes: true, characterData: true}); }""")
    page.evaluate(_RELEASE)
    button.click()
    r = _settle(page)
    return {"slider": "leak kind (toggle)", "ms": r["last"] - r["release"] if r["n"] else None, "changes": r["n"]}


def _shots(page, folder: Path, theme: str) -> list[Path]:
    """Screenshots of the lab's widgets and views in ``theme``."""
    out = []
    targets = [("first_figure", ".jp-OutputArea-output .widget-image >> nth=0"),
               ("near_copies_compare", ".widget-html-content:has-text('near_copies at near_copy_quantile')"),
               ("leak_explorer", ".widget-html-content:has-text('of the synthetic records')"),
               ("privacy_score_compare", ".widget-html-content:has-text('privacy_score at alpha')"),
               ("verdict", ".jp-OutputArea-output:has(.spr-verdict) >> nth=1"),
               ("explore", ".widget-html-content:has-text('Results at these settings')"),
               ("what_the_checks_miss", ".jp-OutputArea-output:has-text('ε lower bound (95%)') >> nth=0"),
               ("membership_roc", ".jp-CodeCell:has-text('side_by_side(mia)') .widget-image >> nth=0"),
               ("attack_explorer", ".widget-html-content:has-text('membership attack at')")]
    for name, selector in targets:
        loc = page.locator(selector).first
        loc.scroll_into_view_if_needed()
        page.wait_for_timeout(500)
        path = folder / f"lab_{name}_{theme}.png"
        page.screenshot(path=str(path))
        out.append(path)
    return out


def _switch_theme(page, theme: str) -> None:
    page.click(".lm-MenuBar-itemLabel:text-is('Settings')")
    page.hover(".lm-Menu-itemLabel:text-is('Theme')")
    page.click(f".lm-Menu-itemLabel:text-is('JupyterLab {theme.capitalize()}')")
    page.wait_for_function(f"() => document.body.dataset.jpThemeLight === '{str(theme == 'light').lower()}'")
    page.wait_for_timeout(1500)


@pytest.mark.browser
@pytest.mark.slow
def test_every_slider_of_the_lab_answers_after_release(tmp_path: Path) -> None:
    folder = Path(os.environ.get("SYNTHPRIV_SCREENSHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    with running_notebook(tmp_path, LAB, token=TOKEN, pythonpath=ROOT) as (page, _):
        try:
            page.wait_for_selector(".widget-html-content:has-text('Results at these settings')", timeout=900_000)
            page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=120_000)
        except Exception:
            page.screenshot(path=str(folder / "lab_failure.png"))
            raise
        page.wait_for_timeout(3000)
        errors = page.evaluate("() => [...document.querySelectorAll('.jp-OutputArea-output[data-mime-type="
                               "\"application/vnd.jupyter.stderr\"]')].map(e => e.innerText.slice(0, 300))")
        n = page.locator(".jp-OutputArea-output .widget-slider .noUi-handle").count()
        load = os.getloadavg()[0]
        times = [_drag(page, i) for i in range(n)]
        times.append(_click_measure(page, ".widget-toggle-button:has-text('near copies')"))
        load = max(load, os.getloadavg()[0])
        shots = _shots(page, folder, "light")
        _switch_theme(page, "dark")
        shots += _shots(page, folder, "dark")
    cores = os.cpu_count() or 1
    record = {"load_1min": load, "cores": cores, "target_ms": TARGET_MS, "times": times,
              "screenshots": [str(p) for p in shots]}
    (folder / "slider_times.json").write_text(json.dumps(record, indent=1))
    print(f"\nload {load:.2f} on {cores} cores; target {TARGET_MS:.0f} ms on an idle machine")
    for t in times:
        kernel = f"(kernel {t['kernel_ms']} ms)" if t.get("kernel_ms") is not None else ""
        print(f"  {t['slider']:<45} {t['ms'] if t['ms'] is None else round(t['ms'])} ms {kernel}")
    assert not [e for e in errors if "Traceback" in e or "Error" in e], errors
    assert n >= 8, f"only {n} sliders found in the lab"
    dead = [t["slider"] for t in times if t["ms"] is None]
    assert not dead, f"sliders whose output never changed after release: {dead}"


@pytest.mark.browser
@pytest.mark.slow
def test_quickstart_views_in_both_themes(tmp_path: Path) -> None:
    """The compact summary, one metric's card and the verdict of notebook 01, in the light and the dark theme:
    no raw ``Verdict(`` repr, no raw float, the privacy score's card says it drives the verdict."""
    folder = Path(os.environ.get("SYNTHPRIV_SCREENSHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    with running_notebook(tmp_path, QUICKSTART, token=TOKEN + "-01", pythonpath=ROOT) as (page, _):
        page.wait_for_selector(".widget-html-content:has-text('Results at these settings')", timeout=900_000)
        page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=120_000)
        page.wait_for_timeout(2000)
        text = page.evaluate("() => document.body.innerText")
        # the explorer's sliders, each dragged with the mouse (times printed, none asserted)
        n = page.locator(".jp-OutputArea-output .widget-slider .noUi-handle").count()
        load = os.getloadavg()[0]
        times = [_drag(page, i) for i in range(n)]
        print(f"\nnotebook 01, explore(): load {load:.2f} on {os.cpu_count()} cores")
        for t in times:
            kernel = f"(kernel {t['kernel_ms']} ms)" if t.get("kernel_ms") is not None else ""
            print(f"  {t['slider']:<45} {t['ms'] if t['ms'] is None else round(t['ms'])} ms {kernel}")
        shots = []
        for theme in ("light", "dark"):
            if theme == "dark":
                _switch_theme(page, "dark")
            for name, selector in (("summary", ".spr-report:has-text('Synthetic data privacy evaluation') >> nth=0"),
                                   ("metric_card", "h2:has-text('Proximity-ratio privacy score')"),
                                   ("verdict", ".jp-OutputArea-output:has(.spr-verdict) >> nth=1"),
                                   ("explore", ".widget-html-content:has-text('Results at these settings')")):
                page.locator(selector).first.scroll_into_view_if_needed()
                page.wait_for_timeout(500)
                path = folder / f"quickstart_{name}_{theme}.png"
                page.screenshot(path=str(path))
                shots.append(path)
    assert n >= 8 and not [t["slider"] for t in times if t["ms"] is None], times  # every slider answered
    assert "Verdict(level=" not in text
    assert "Drives the verdict." in text
    assert "0.15000000000000002" not in text
    assert all(p.stat().st_size > 0 for p in shots)
