"""No string runs in a real JupyterLab: every view and widget, drawn with script payloads as column names,
category values, set names and labels, in headless Chromium.

Regression (issue 23): ``compare()`` put each label into an HTML widget unescaped; a label holding markup ran
script in JupyterLab. The notebook shows the evaluation's view, one metric's view, ``explore()``, ``compare()``
(labels from the payloads), one record's view, the records-at-risk table and a report loaded from JSON; after it
ran, ``document.body.dataset.pwned`` must be empty and the labels must show as text.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _support.hostile import PAYLOADS
from _support.jupyterlab import running_cell
from _support.paths import ROOT

TOKEN = "synthpriv-hostile-widgets"
DONE = "ALL" + "-VIEWS-SHOWN"
CELL = f"""\
import json
import numpy as np, pandas as pd
from IPython.display import display
from synthpriv_report import Evaluation
from synthpriv_report.display.widgets import compare
from synthpriv_report.export import from_json
P = json.load(open("payloads.json", encoding="utf-8"))
rng = np.random.default_rng(0)
def frame(n):
    d = {{p: rng.choice([P[(i + j + 1) % len(P)] for j in range(3)], n) for i, p in enumerate(P[:12])}}
    d["num"] = rng.normal(size=n)
    return pd.DataFrame(d)
T, H = frame(80), frame(60)
ev = Evaluation(T, T.copy(), H, key_fields=P[:2], sensitive_fields=[P[2]],
                metrics=["dcr", "exact_copies", "holdout_dcr_share", "privacy_score", "nndr"], progress=False,
                random_state=0, n_bootstrap=20, names={{"real": P[3], "synthetic": P[4], "holdout": P[5]}})
display(ev)
display(ev["dcr"])
display(ev.explore())
display(compare({{P[k]: ev for k in range(6, 10)}}, "privacy_score", "alpha", min=0.05, max=0.5, step=0.05))
display(ev.explain(0))
display(ev.records_at_risk())
display(from_json(ev.to_json()))
print("{DONE}")
"""


@pytest.mark.browser
@pytest.mark.slow
def test_no_payload_runs_in_any_view_or_widget_in_jupyterlab(tmp_path: Path) -> None:
    (tmp_path / "payloads.json").write_text(json.dumps(PAYLOADS), encoding="utf-8")
    with running_cell(tmp_path, "hostile.ipynb", CELL, token=TOKEN, pythonpath=ROOT) as (page, _):
        try:
            page.wait_for_selector(f".jp-OutputArea-output:has-text('{DONE}')", timeout=300_000)
            # the widgets render after their models arrive: wait for the compare() table
            page.wait_for_selector(".widget-html-content:has-text('alpha = 0.1')", timeout=120_000)
        except Exception:
            page.screenshot(path=str(tmp_path / "failure.png"))
            raise
        page.wait_for_timeout(2_000)  # an onerror handler runs once the broken image fails to load
        seen = page.evaluate(
            "() => ({pwned: document.body.dataset.pwned || '', text: document.body.innerText,"
            " errors: [...document.querySelectorAll('.jp-OutputArea-output[data-mime-type="
            "\"application/vnd.jupyter.stderr\"]')].map(e => e.innerText.slice(0, 300))})")
        page.screenshot(path=str(tmp_path / "after.png"))
    assert seen["pwned"] == "", "a payload ran in JupyterLab"
    assert not [e for e in seen["errors"] if "Traceback" in e or "Error" in e], seen["errors"]
    labels = [PAYLOADS[k] for k in range(6, 10)]
    shown = [lab for lab in labels if lab.strip()[:20] in seen["text"]]
    assert shown == labels, f"compare() labels not shown as text: {sorted(set(labels) - set(shown))}"
