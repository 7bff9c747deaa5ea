"""Real-browser check: JupyterLab in headless Chromium runs a notebook, a slider moves, the view updates."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

CHROMIUM = shutil.which("chromium")
TOKEN = "synthpriv-browser-test"
CELL = """\
import numpy as np, pandas as pd
from synthpriv_report import Evaluation
from synthpriv_report.display.widgets import compare
rng = np.random.default_rng(0)
T = pd.DataFrame({"a": rng.normal(size=80), "c": rng.choice(list("xyz"), 80)})
S = pd.concat([T.iloc[:40], pd.DataFrame({"a": rng.normal(size=40), "c": rng.choice(list("xyz"), 40)})],
              ignore_index=True)
ev = Evaluation(T, S, metrics=["privacy_score"], progress=False)
compare({"demo": ev}, "privacy_score", "alpha", min=0.05, max=0.5, step=0.05, value=0.1, figure=False)
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.browser
@pytest.mark.slow
def test_slider_moves_in_jupyterlab(tmp_path: Path):
    if CHROMIUM is None:
        pytest.skip("no system Chromium (shutil.which('chromium') is None); the browser check needs one")
    playwright = pytest.importorskip("playwright.sync_api")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(CELL)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, tmp_path / "tiny.ipynb")
    port = _free_port()
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(tmp_path / "cfg"), JUPYTER_RUNTIME_DIR=str(tmp_path / "rt"))
    log = open(tmp_path / "server.log", "wb")
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--IdentityProvider.token={TOKEN}",
         "--ip", "127.0.0.1", f"--port={port}", f"--ServerApp.root_dir={tmp_path}",
         "--allow-root", "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token={TOKEN}", timeout=2)
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    pytest.fail("JupyterLab did not start:\n" + (tmp_path / "server.log").read_text()[-3000:])
                time.sleep(0.5)
        with playwright.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=[
                "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run"])
            try:
                page = browser.new_page(viewport={"width": 1400, "height": 900})
                page.set_default_timeout(60_000)
                page.goto(f"http://127.0.0.1:{port}/lab/tree/tiny.ipynb?token={TOKEN}", timeout=90_000)
                page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
                try:  # JupyterLab may ask which kernel to start: accept the notebook's own (python3)
                    page.wait_for_selector(".jp-Dialog .jp-mod-accept", timeout=15_000).click()
                except playwright.TimeoutError:
                    pass
                page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=120_000)
                page.click(".jp-Cell .jp-InputArea-editor")
                page.keyboard.press("Shift+Enter")
                try:
                    table = page.wait_for_selector(".widget-html-content:has-text('alpha = 0.1')",
                                                   timeout=180_000)
                except Exception:
                    page.screenshot(path=str(tmp_path / "failure.png"))
                    raise
                readout = page.wait_for_selector(".widget-slider .widget-readout", timeout=30_000)
                before_readout, before_table = readout.inner_text(), table.inner_text()
                page.screenshot(path=str(tmp_path / "before.png"))
                page.focus(".widget-slider .noUi-handle")
                page.keyboard.press("ArrowRight")
                page.wait_for_selector(".widget-html-content:has-text('alpha = 0.15')", timeout=60_000)
                after_readout = page.inner_text(".widget-slider .widget-readout")
                after_table = page.inner_text(".widget-html-content")
                page.screenshot(path=str(tmp_path / "after.png"))
                assert after_readout != before_readout
                assert after_table != before_table and "alpha = 0.15" in after_table
                assert (tmp_path / "after.png").stat().st_size > 0
            finally:
                browser.close()
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)
        log.close()
