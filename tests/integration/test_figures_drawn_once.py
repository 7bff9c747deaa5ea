"""A report's figures are drawn once per document: the HTML, the PDF and the dossier of one report share them,
and another document (other parameters) draws its own."""

from __future__ import annotations

import re
from typing import Any

import pytest

from synthpriv_report import Evaluation
from synthpriv_report.datasets import load_demo
from synthpriv_report.export import notebook, render_html

METRICS = ["dcr", "exact_copies", "holdout_dcr_share", "nndr"]


def _figures_of(page: str) -> list[str]:
    return re.findall(r'src="(data:image/[^"]+)"', page)


@pytest.fixture()
def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    original = notebook._figures

    def figures(results: Any, name: str) -> Any:
        calls.append(name)
        return original(results, name)

    monkeypatch.setattr(notebook, "_figures", figures)
    monkeypatch.setattr(notebook, "_DRAWN", type(notebook._DRAWN)())
    return calls


def test_one_document_draws_each_figure_once(counted: list[str]) -> None:
    d = load_demo()
    ev = Evaluation(d.real.iloc[:300], d.synthetic.iloc[:300], d.holdout.iloc[:200], metrics=METRICS,
                    progress=False, random_state=0)
    first = render_html(ev)
    assert sorted(counted) == sorted(METRICS)
    again = render_html(ev)
    assert sorted(counted) == sorted(METRICS)  # nothing drawn the second time
    # the same figures on the page (cells' identifiers are new each time a notebook is made)
    assert _figures_of(again) == _figures_of(first) and len(_figures_of(first)) >= len(METRICS)
    render_html(ev, dossier_only=True)
    assert len(counted) == len(METRICS)
    # other parameters make another document, with figures of its own
    render_html(ev, alpha=0.01)
    assert len(counted) == 2 * len(METRICS)


def test_the_store_keeps_only_the_latest_documents(counted: list[str]) -> None:
    for n in range(notebook.FIGURE_DOCUMENTS + 2):
        notebook._drawn_figures({"digest": {"value": f"{n:064x}"}})
    assert len(notebook._DRAWN) == notebook.FIGURE_DOCUMENTS
    assert f"{0:064x}" not in notebook._DRAWN and f"{notebook.FIGURE_DOCUMENTS + 1:064x}" in notebook._DRAWN
    assert notebook._drawn_figures({}) == {} and len(notebook._DRAWN) == notebook.FIGURE_DOCUMENTS
