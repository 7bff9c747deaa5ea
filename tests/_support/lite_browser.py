"""Run a JupyterLite teaching site's notebook in headless Chromium as a student would, and record what happened.

    python tests/_support/lite_browser.py SITE OUT [--notebook NAME] [--sliders N]

Serves the folder SITE on 127.0.0.1 (Python's static file server: JupyterLite needs nothing else), opens the
notebook, runs its cells one after another with Shift+Enter (timing each from the key press until its
execution count appears), then drags sliders with the mouse and times each update: from the mouse button's
release to the last change of that output's tables and figures. Writes ``OUT/result.json`` and screenshots
(``OUT/notebook.png``, ``OUT/slider-<i>.png``, and each of :data:`VIEWS` in the light and the dark
theme, ``OUT/lite_<view>_<theme>.png``). Meant to run inside a network namespace that holds only the
loopback device (``unshare -n``), so that any request past this machine fails: the site must be complete.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import shutil
import sys
import threading
import time
from pathlib import Path
from typing import Any

_STATE_JS = """(i) => {
  const cell = document.querySelectorAll('.jp-Notebook .jp-Cell')[i];
  const prompt = cell.querySelector('.jp-InputPrompt');
  return prompt ? prompt.innerText.trim() : '';
}"""

_ERRORS_JS = """(i) => [...document.querySelectorAll('.jp-Notebook .jp-Cell')[i].querySelectorAll(
  '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')].map(e => e.innerText)
  .filter(t => /Traceback|Error/.test(t)).map(t => t.slice(0, 4000))"""

# Everything a cell printed on stderr (a red box under the cell), errors or not
_STDERR_JS = """(i) => [...document.querySelectorAll('.jp-Notebook .jp-Cell')[i].querySelectorAll(
  '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')].map(e => e.innerText.slice(0, 600))"""

# What a slider's output shows, less the sliders themselves: the text of its tables and the figures' sources
_SNAPSHOT_JS = """(s) => {
  const area = document.querySelectorAll('.widget-slider')[s].closest('.jp-OutputArea');
  const tables = [...area.querySelectorAll('table')].map(t => t.innerText).join('\\n');
  const figures = [...area.querySelectorAll('img, svg')].filter(e => !e.closest('.widget-slider'))
    .map(e => e.tagName === 'IMG' ? e.getAttribute('src') : e.outerHTML).join('\\n');
  return {tables, figures, n_tables: area.querySelectorAll('table').length,
          n_figures: area.querySelectorAll('img').length};
}"""

# Record, in the page, the time of the mouse button's release and of every later change of the output
_WATCH_JS = """(s) => {
  const area = document.querySelectorAll('.widget-slider')[s].closest('.jp-OutputArea');
  window.__spr = {up: null, last: null};
  document.addEventListener('mouseup', () => { window.__spr.up = performance.now(); },
                            {capture: true, once: true});
  if (window.__sprObserver) window.__sprObserver.disconnect();
  window.__sprObserver = new MutationObserver(records => {
    for (const r of records) {
      const node = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      if (node && !node.closest('.widget-slider')) { window.__spr.last = performance.now(); }
    }
  });
  window.__sprObserver.observe(area, {subtree: true, childList: true, characterData: true, attributes: true});
}"""


def _serve(site: Path, served: dict[str, int]) -> tuple[http.server.ThreadingHTTPServer, int]:
    """A static server of ``site`` on a free loopback port; ``served`` gets the bytes of every file sent."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def copyfile(self, source: Any, outputfile: Any) -> None:
            size = os.fstat(source.fileno()).st_size
            super().copyfile(source, outputfile)
            served[self.path.split("?")[0]] = served.get(self.path.split("?")[0], 0) + size

        def handle(self) -> None:
            try:
                super().handle()
            except ConnectionError:  # the browser dropped a request it no longer needed
                pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


def _run_cells(page: Any, result: dict[str, Any], cell_timeout_s: float) -> None:
    cells = page.locator(".jp-Notebook .jp-Cell")
    n = cells.count()
    cells.nth(0).locator(".jp-InputPrompt").click()
    page.keyboard.press("Escape")  # command mode: Shift+Enter runs the selected cell and selects the next
    for i in range(n):
        cell = cells.nth(i)
        is_code = "jp-CodeCell" in (cell.get_attribute("class") or "")
        source = cell.locator(".jp-InputArea-editor").inner_text() if is_code else ""
        t0 = time.perf_counter()
        page.keyboard.press("Shift+Enter")
        if is_code:
            deadline = t0 + cell_timeout_s
            while True:
                prompt = page.evaluate(_STATE_JS, i)
                if prompt.startswith("[") and prompt[1:-2].isdigit():
                    break
                if time.perf_counter() > deadline:
                    result["errors"].append(f"cell {i} did not finish within {cell_timeout_s:.0f} s")
                    return
                time.sleep(0.05)
        seconds = time.perf_counter() - t0
        errors = page.evaluate(_ERRORS_JS, i) if is_code else []
        stderr = page.evaluate(_STDERR_JS, i) if is_code else []
        result["cells"].append({"index": i, "code": is_code, "seconds": round(seconds, 3),
                                "source": source[:300], "errors": errors, "stderr": stderr})
        result["errors"] += [f"cell {i}: {e}" for e in errors]
        if errors:
            return


def _drag_sliders(page: Any, out: Path, result: dict[str, Any], limit: int) -> None:
    n = page.locator(".widget-slider").count()
    result["sliders_found"] = n
    for s in range(min(n, limit)):
        slider = page.locator(".widget-slider").nth(s)
        slider.scroll_into_view_if_needed()
        handle = slider.locator(".noUi-handle").first
        track = slider.locator(".noUi-target, .slider-container").first.bounding_box()
        box = handle.bounding_box()
        if box is None or track is None:
            result["sliders"].append({"slider": s, "error": "not visible"})
            continue
        before = page.evaluate(_SNAPSHOT_JS, s)
        page.evaluate(_WATCH_JS, s)
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        # a third of the track to the right, or to the left when the handle sits in the right half
        dx = track["width"] / 3 * (1 if x < track["x"] + track["width"] / 2 else -1)
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x + dx, y, steps=8)
        page.mouse.up()
        deadline = time.perf_counter() + 60
        while time.perf_counter() < deadline:  # settled: no change of the output for 2 s
            time.sleep(0.25)
            state = page.evaluate("() => ({up: window.__spr.up, last: window.__spr.last, now: performance.now()})")
            if state["last"] is not None and state["now"] - state["last"] > 2000:
                break
        after = page.evaluate(_SNAPSHOT_JS, s)
        label = slider.locator(".widget-label").first.inner_text() if slider.locator(".widget-label").count() else ""
        entry: dict[str, Any] = {
            "slider": s, "label": label,
            "update_ms": None if state["last"] is None or state["up"] is None else round(state["last"] - state["up"]),
            "tables": before["n_tables"], "figures": before["n_figures"],
            "table_changed": before["tables"] != after["tables"],
            "figure_changed": before["figures"] != after["figures"],
        }
        result["sliders"].append(entry)
        slider.locator("xpath=ancestor::div[contains(@class,'jp-OutputArea')][1]").screenshot(
            path=str(out / f"slider-{s}.png"))


#: The views a student looks at, screenshot in both themes: name, and a selector of the output that shows it.
VIEWS: tuple[tuple[str, str], ...] = (
    ("first_figure", ".jp-OutputArea-output .widget-image >> nth=0"),
    ("leak_explorer", ".widget-html-content:has-text('of the synthetic records')"),
    ("what_the_checks_miss", ".jp-OutputArea-output:has-text('ε lower bound (95%)') >> nth=0"),
    ("attack_explorer", ".widget-html-content:has-text('membership attack at')"),
    ("verdict", ".jp-OutputArea-output:has(.spr-verdict) >> nth=1"),
)


def _view_shots(page: Any, out: Path, result: dict[str, Any]) -> None:
    """Screenshots of :data:`VIEWS` in the light theme, then in the dark one (Settings > Theme)."""
    shots = []
    for theme in ("light", "dark"):
        if theme == "dark":
            page.click(".lm-MenuBar-itemLabel:text-is('Settings')")
            page.hover(".lm-Menu-itemLabel:text-is('Theme')")
            page.click(".lm-Menu-itemLabel:text-is('JupyterLab Dark')")
            page.wait_for_function("() => document.body.dataset.jpThemeLight === 'false'", timeout=30_000)
            page.wait_for_timeout(1500)
        for name, selector in VIEWS:
            loc = page.locator(selector).first
            if loc.count() == 0:
                result["errors"].append(f"view not found for its screenshot: {name}")
                continue
            loc.scroll_into_view_if_needed()
            page.wait_for_timeout(400)
            path = out / f"lite_{name}_{theme}.png"
            page.screenshot(path=str(path))
            shots.append(path.name)
    result["screenshots"] = shots


def main(argv: list[str] | None = None) -> int:
    from playwright.sync_api import sync_playwright

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("site", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--notebook", default="02_teaching_the_metrics.ipynb")
    ap.add_argument("--sliders", type=int, default=4, help="how many sliders to drag (the first ones)")
    ap.add_argument("--cell-timeout", type=float, default=600)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    chromium = shutil.which("chromium")
    result: dict[str, Any] = {"cells": [], "errors": [], "sliders": [], "console_errors": [], "requests_failed": []}
    served: dict[str, int] = {}
    server, port = _serve(args.site, served)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=[
                "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run"])
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.on("console", lambda m: m.type == "error" and result["console_errors"].append(m.text[:300]))
            page.on("requestfailed", lambda r: result["requests_failed"].append(r.url[:300]))
            t0 = time.perf_counter()
            page.goto(f"http://127.0.0.1:{port}/lab/index.html?path={args.notebook}", timeout=120_000)
            page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
            page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=180_000)
            result["kernel_ready_s"] = round(time.perf_counter() - t0, 3)
            _run_cells(page, result, args.cell_timeout)
            page.screenshot(path=str(args.out / "notebook.png"))
            if not result["errors"]:
                _drag_sliders(page, args.out, result, args.sliders)
                _view_shots(page, args.out, result)
            browser.close()
    finally:
        server.shutdown()
    result["served_bytes"] = sum(served.values())
    result["served_largest"] = sorted(served.items(), key=lambda kv: -kv[1])[:15]
    (args.out / "result.json").write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
