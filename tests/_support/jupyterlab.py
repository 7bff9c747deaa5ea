"""A real JupyterLab in headless Chromium for the browser tests: one notebook of one cell, served from a
temporary folder, opened, its kernel started and the cell run."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import nbformat
import pytest

CHROMIUM = shutil.which("chromium")
#: JupyterLab's theme names, by the short names the tests use.
THEMES = {"light": "JupyterLab Light", "dark": "JupyterLab Dark"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def _lab_page(tmp_path: Path, name: str, *, token: str, pythonpath: Path | None,
              viewport: tuple[int, int]) -> Iterator[tuple[Any, Any]]:
    """Start JupyterLab on ``tmp_path`` (its settings in ``tmp_path/cfg``), open the notebook ``name`` in headless
    Chromium and wait until its kernel is idle; yields ``(page, playwright module)`` and closes browser and server
    afterwards."""
    playwright = pytest.importorskip("playwright.sync_api")
    port = free_port()
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(tmp_path / "cfg"), JUPYTER_RUNTIME_DIR=str(tmp_path / "rt"))
    if pythonpath is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(pythonpath), os.environ.get("PYTHONPATH", "")])
    log = open(tmp_path / "server.log", "wb")
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "lab", "--no-browser", f"--IdentityProvider.token={token}",
         "--ip", "127.0.0.1", f"--port={port}", f"--ServerApp.root_dir={tmp_path}",
         "--allow-root", "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token={token}", timeout=2)
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
                page = browser.new_page(viewport={"width": viewport[0], "height": viewport[1]})
                page.set_default_timeout(60_000)
                page.goto(f"http://127.0.0.1:{port}/lab/tree/{name}?token={token}", timeout=90_000)
                page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
                try:  # JupyterLab may ask which kernel to start: accept the notebook's own (python3)
                    page.wait_for_selector(".jp-Dialog .jp-mod-accept", timeout=15_000).click()
                except playwright.TimeoutError:
                    pass
                page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=120_000)
                yield page, playwright
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


@contextmanager
def running_cell(tmp_path: Path, name: str, cell: str, *, token: str,
                 pythonpath: Path | None = None) -> Iterator[tuple[Any, Any]]:
    """Write ``name`` (one code cell), start JupyterLab on it, open it in Chromium, run the cell; yields
    ``(page, playwright module)`` and closes browser and server afterwards. Skips without a system Chromium."""
    if CHROMIUM is None:
        pytest.skip("no system Chromium (shutil.which('chromium') is None); the browser check needs one")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(cell)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, tmp_path / name)
    with _lab_page(tmp_path, name, token=token, pythonpath=pythonpath, viewport=(1400, 900)) as (page, playwright):
        page.click(".jp-Cell .jp-InputArea-editor")
        page.keyboard.press("Shift+Enter")
        yield page, playwright


def _user_settings(cfg: Path, theme: str) -> None:
    """JupyterLab user settings for a test: the theme, and every cell of a notebook kept in the page (no
    windowing), so that a test can find a widget far down a long notebook."""
    settings = cfg / "lab" / "user-settings" / "@jupyterlab"
    (settings / "apputils-extension").mkdir(parents=True, exist_ok=True)
    (settings / "apputils-extension" / "themes.jupyterlab-settings").write_text(json.dumps({"theme": THEMES[theme]}))
    (settings / "apputils-extension" / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))  # no news pop-up over the screenshots
    (settings / "notebook-extension").mkdir(parents=True, exist_ok=True)
    (settings / "notebook-extension" / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))


@contextmanager
def running_notebook(tmp_path: Path, source: Path, *, token: str, pythonpath: Path | None = None,
                     theme: str = "light", viewport: tuple[int, int] = (1400, 900)) -> Iterator[tuple[Any, Any]]:
    """Copy the notebook ``source`` into ``tmp_path``, start JupyterLab on it (``theme`` "light" or "dark"), open
    it in Chromium and run all its cells (Run > Run All Cells); yields ``(page, playwright module)`` as soon as
    the run was started and closes browser and server afterwards. Skips without a system Chromium."""
    if CHROMIUM is None:
        pytest.skip("no system Chromium (shutil.which('chromium') is None); the browser check needs one")
    shutil.copy(source, tmp_path / source.name)
    _user_settings(tmp_path / "cfg", theme)
    with _lab_page(tmp_path, source.name, token=token, pythonpath=pythonpath, viewport=viewport) as (page, pw):
        page.click(".lm-MenuBar-itemLabel:text-is('Run')")
        page.click(".lm-Menu-itemLabel:text-is('Run All Cells')")
        yield page, pw


@contextmanager
def opened_notebook(tmp_path: Path, source: Path, *, token: str, pythonpath: Path | None = None,
                    trusted: bool = False, theme: str = "light") -> Iterator[tuple[Any, Any]]:
    """Copy the notebook ``source`` (with its outputs) into ``tmp_path`` and open it in JupyterLab in Chromium
    without running a cell, as a reader who opens a saved notebook again; with ``trusted``, sign it first (in a
    signature store of the test's own, so the user's is not touched). Yields ``(page, playwright module)``."""
    if CHROMIUM is None:
        pytest.skip("no system Chromium (shutil.which('chromium') is None); the browser check needs one")
    shutil.copy(source, tmp_path / source.name)
    _user_settings(tmp_path / "cfg", theme)
    data = tmp_path / "data"
    data.mkdir(exist_ok=True)
    old = os.environ.get("JUPYTER_DATA_DIR")
    os.environ["JUPYTER_DATA_DIR"] = str(data)  # the server and `jupyter trust` share this signature store
    try:
        if trusted:
            subprocess.run([sys.executable, "-m", "jupyter", "trust", str(tmp_path / source.name)], check=True,
                           capture_output=True)
        with _lab_page(tmp_path, source.name, token=token, pythonpath=pythonpath, viewport=(1400, 900)) as opened:
            yield opened
    finally:
        if old is None:
            os.environ.pop("JUPYTER_DATA_DIR", None)
        else:
            os.environ["JUPYTER_DATA_DIR"] = old
