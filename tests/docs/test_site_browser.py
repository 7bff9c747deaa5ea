"""The built site in headless Chromium, served on 127.0.0.1 with every request to another host blocked and
recorded: the home page, the search (a query typed, results listed), a metric page and the API reference render,
and no request left the machine.

Set ``SYNTHPRIV_DOCS_SHOTS=DIR`` to keep the screenshots (home, search, metric page, API reference) in DIR.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]
CHROMIUM = shutil.which("chromium")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # noqa: D401 - the test's output stays readable
        pass


@pytest.fixture(scope="module")
def served(site):
    handler = functools.partial(_Quiet, directory=str(site.path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.mark.skipif(CHROMIUM is None, reason="needs a system Chromium (setup.sh installs it)")
def test_search_metric_page_and_api_reference_offline(served, tmp_path):
    from playwright.sync_api import sync_playwright

    shots = Path(os.environ.get("SYNTHPRIV_DOCS_SHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    blocked: list[str] = []
    failed: list[str] = []
    errors: list[str] = []

    def route(r):
        if urlparse(r.request.url).hostname == "127.0.0.1" or r.request.url.startswith(("data:", "blob:")):
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run"])
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.route("**/*", route)
        page = context.new_page()
        page.on("requestfailed", lambda r: failed.append(r.url))
        page.on("pageerror", lambda e: errors.append(str(e)))

        page.goto(f"{served}/index.html")
        assert "synthpriv_report" in page.title()
        page.wait_for_selector("img[src='images/report.png']")
        page.screenshot(path=str(shots / "home.png"))

        page.click("input[data-md-component='search-query']")
        page.keyboard.type("holdout share", delay=20)
        item = page.wait_for_selector(".md-search-result__item", timeout=30_000)
        assert "holdout" in item.inner_text().lower()
        page.screenshot(path=str(shots / "search.png"))

        page.goto(f"{served}/reference/metrics/holdout_dcr_share.html")
        h1 = page.inner_text("article h1")
        assert "holdout_dcr_share" in h1
        assert "Drives the verdict" in page.inner_text("article table")
        assert page.locator("article h2", has_text="Definition").first.is_visible()
        page.screenshot(path=str(shots / "metric.png"))

        page.goto(f"{served}/api/synthpriv_report.html")
        heading = page.wait_for_selector("[id='synthpriv_report.Evaluation']")
        assert heading.is_visible()
        heading.scroll_into_view_if_needed()
        page.screenshot(path=str(shots / "api.png"))

        page.goto(f"{served}/notebooks/01_quickstart.html")
        assert page.locator(".jupyter-wrapper img").count() >= 1
        browser.close()

    assert not blocked, f"requests to other hosts: {blocked[:10]}"
    assert not [u for u in failed if urlparse(u).hostname == "127.0.0.1"], failed
    assert not errors, errors
