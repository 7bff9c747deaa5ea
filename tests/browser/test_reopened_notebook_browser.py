"""A notebook saved with its outputs and opened again in JupyterLab, without running a cell: every interactive
view shows its figures and tables, not the text ``VBox(...)`` nor an error.

Executed by nbclient (which, like JupyterLab's "Save Widget State Automatically", stores the widgets' state in the
notebook), the file is opened twice: untrusted (a notebook received from someone else: JupyterLab renders no
widget and shows the still copy each view carries in its ``text/html``), and trusted (JupyterLab draws the widgets
again from the stored state). Screenshots go to ``$SYNTHPRIV_SCREENSHOTS`` when set.
"""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from _support.jupyterlab import opened_notebook
from _support.paths import ROOT

TOKEN = "synthpriv-reopened"

#: A small notebook with the views a lab shows: one slider over two evaluations, and the attack's rate slider.
SOURCE = """from synthpriv_report import Evaluation
from synthpriv_report.datasets import load_demo
from synthpriv_report.display.widgets import attack_explorer, compare

demo = load_demo()
evs = {label: Evaluation(demo.real.head(400), S.head(400), demo.holdout.head(400), metrics=["dcr", "mia_worst_case"],
                         progress=False, random_state=0)
       for label, S in (("honest", demo.synthetic), ("leaky", demo.synthetic_leaky))}
display(compare(evs, "dcr", "alpha", min=0.01, max=0.2, step=0.01))
attack_explorer(evs)"""


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from nbclient import NotebookClient

    folder = tmp_path_factory.mktemp("executed")
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(SOURCE)]
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
    NotebookClient(nb, timeout=600, kernel_name="python3").execute()
    outputs = nb.cells[0].outputs
    assert len(outputs) == 2 and all("text/html" in o.get("data", {}) for o in outputs), outputs
    path = folder / "reopened.ipynb"
    nbformat.write(nb, path)
    return path


@pytest.mark.browser
@pytest.mark.slow
@pytest.mark.parametrize("trusted", [False, True], ids=["untrusted", "trusted"])
def test_a_reopened_notebook_shows_its_views(executed: Path, tmp_path: Path, trusted: bool) -> None:
    folder = Path(os.environ.get("SYNTHPRIV_SCREENSHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    with opened_notebook(tmp_path, executed, token=TOKEN + str(trusted), pythonpath=ROOT, trusted=trusted) as (
            page, _):
        page.wait_for_selector(".jp-OutputArea-output img", timeout=60_000)
        page.wait_for_timeout(2000)
        text = page.evaluate("() => [...document.querySelectorAll('.jp-OutputArea-output')]"
                             ".map(e => e.innerText).join('\\n')")
        images = page.evaluate("() => [...document.querySelectorAll('.jp-OutputArea-output img')]"
                               ".map(i => i.naturalWidth)")
        page.screenshot(path=str(folder / f"reopened_{'trusted' if trusted else 'untrusted'}.png"), full_page=True)
    assert "VBox(" not in text and "Error displaying widget" not in text, text[:500]
    # both views' tables: the compare table's rows and the attack's table, and a figure of each, drawn
    assert "dcr at alpha = 0.1" in text and "honest" in text and "leaky" in text
    assert "false positives" in text and "Members found" in text and "Outsiders accused" in text
    assert len(images) >= 2 and all(w > 100 for w in images), images
