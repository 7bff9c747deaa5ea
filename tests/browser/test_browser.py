"""Real-browser check: JupyterLab in headless Chromium runs a notebook, a slider moves, the view updates."""

from __future__ import annotations

from pathlib import Path

import pytest
from _support.jupyterlab import running_cell

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


@pytest.mark.browser
@pytest.mark.slow
def test_slider_moves_in_jupyterlab(tmp_path: Path):
    with running_cell(tmp_path, "tiny.ipynb", CELL, token=TOKEN) as (page, _):
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
