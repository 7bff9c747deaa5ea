"""The notebooks render in the site with their outputs, from a stored execution (docs/notebooks/) that must be
fresh: made from the notebooks as they are now, without errors, with figures, without widget state."""

from __future__ import annotations

import json
import sys

import pytest
from _support.paths import ROOT

sys.path.insert(0, str(ROOT / "docs" / "_tools"))
from execute_notebooks import WIDGET_VIEW, source_digest  # noqa: E402

SOURCES = sorted((ROOT / "notebooks").glob("*.ipynb"))
RERUN = "run: python docs/_tools/execute_notebooks.py {name}"


def _stored(name: str) -> dict:
    return json.loads((ROOT / "docs" / "notebooks" / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("source", SOURCES, ids=[p.name for p in SOURCES])
def test_the_stored_execution_is_fresh(source):
    stored = _stored(source.name)
    meta = stored["metadata"]["synthpriv_docs"]
    assert meta["source_sha256"] == source_digest(json.loads(source.read_text(encoding="utf-8"))), \
        RERUN.format(name=source.name)
    assert meta["date"] and meta["commit"] and meta["machine"]


@pytest.mark.parametrize("source", SOURCES, ids=[p.name for p in SOURCES])
def test_the_stored_execution_has_outputs_and_no_errors(source):
    stored = _stored(source.name)
    code = [c for c in stored["cells"] if c["cell_type"] == "code"]
    outputs = [o for c in code for o in c.get("outputs", [])]
    assert all(c.get("execution_count") for c in code if "".join(c["source"]).strip()), RERUN.format(name=source.name)
    assert not [o for o in outputs if o["output_type"] == "error"]
    assert any("image/png" in o.get("data", {}) or "<img" in "".join(o.get("data", {}).get("text/html", ""))
               for o in outputs), f"{source.name}: no figure among the stored outputs"
    assert "widgets" not in stored["metadata"], "widget state would load the widget manager from a CDN"
    assert not [o for o in outputs if WIDGET_VIEW in o.get("data", {})]


@pytest.mark.slow
@pytest.mark.parametrize("source", SOURCES, ids=[p.name for p in SOURCES])
def test_the_notebook_page_shows_its_figures(site, source):
    page = (site.path / "notebooks" / source.with_suffix(".html").name).read_text(encoding="utf-8")
    assert "jupyter-wrapper" in page and page.count("<img") >= 1
