"""The README's "Adding a metric" steps: a toy metric registered from this test module alone appears in
``results()``, the notebook HTML, the JSON, the sliders (for its parameter) and the HTML export."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from synthpriv_report import Evaluation, plotting, stats
from synthpriv_report.display import bundle
from synthpriv_report.registry import FigureSpec, LevelSpec, MetricSpec, Param, Words, register, unregister
from synthpriv_report.results import MetricResult, ResultSet

from _support.page_text import no_wbr

TOY_CUT = Param("toy_cut", 0.25, low=0.0, high=1.0, slider=(0.0, 1.0, 0.05), label="toy cut",
                doc="Distance at or below which a synthetic record counts as close.")


def toy_close_share(dcr: np.ndarray, *, cut: float) -> float:
    """Share of distances at most ``cut`` (the pure function)."""
    return float(np.mean(np.asarray(dcr) <= cut))


def _plan(ctx, params):
    return [ctx.request("gower", ctx.S, ctx.T, 1)]


def _compute(ctx, params) -> MetricResult:
    d = ctx.knn("gower", ctx.S, ctx.T, 1).dist[:, 0]
    share = toy_close_share(d, cut=params["toy_cut"])
    return MetricResult("toy_share", share, interval=stats.wilson(share, d.size),
                        details={"n": int(d.size), "cut": params["toy_cut"]},
                        evidence={"hist": stats.histogram(d, upper=1.0)})


def _figure(result, ax):
    plotting.hist(ax, result.evidence["hist"], filled=True, color=plotting.COLORS["S"], label="synthetic")
    ax.axvline(result.details["cut"], color=plotting.COLORS["line"], ls="--")
    ax.set_title("Toy share")


TOY = MetricSpec(
    name="toy_share", title="Toy close share", section="toy", group="closeness", direction="higher_is_riskier",
    value_range=(0.0, 1.0), compute=_compute, plan=_plan, default_space="gower", params=(TOY_CUT,),
    level=LevelSpec(medium=0.3, high=0.6, source="a test of this package", description="high above {high}"),
    figures=(FigureSpec(_figure, "Distances of synthetic records with the toy cut"),),
    summary="Share of synthetic records within the toy cut of a training record.",
    words=Words(measures="a toy", high_means="risky", ideal="0"), interval_kind="Wilson 95%",
)


@pytest.fixture(scope="module")
def ev():
    register(TOY)
    rng = np.random.default_rng(1)
    T = pd.DataFrame({"a": rng.normal(size=80), "c": rng.choice(list("xyz"), 80)})
    S = pd.concat([T.iloc[:30], pd.DataFrame({"a": rng.normal(size=50), "c": rng.choice(list("xyz"), 50)})],
                  ignore_index=True)
    e = Evaluation(T, S, progress=False, metrics=["exact_copies", "toy_share"])
    yield e
    unregister("toy_share")


def test_toy_metric_in_results_with_its_level(ev):
    r = ev.results()["toy_share"]
    assert r.computed and 30 / 80 <= r.value <= 1.0 and r.level in ("medium", "high")
    assert r.level_rule.source == "a test of this package"
    lower = ev.results(toy_cut=0.0)["toy_share"]
    assert lower.value == pytest.approx(30 / 80)  # only the copies are at distance 0
    assert ev.results(levels={"toy_share": {"medium": 1.0, "high": 1.0}})["toy_share"].level == "low"


def test_toy_metric_in_notebook_html_with_its_figure(ev):
    html = no_wbr(bundle(ev)["text/html"])
    assert "toy_share" in html and "Toy close share" in html
    assert "Distances of synthetic records with the toy cut" in html


def test_toy_metric_in_json_and_back(ev, tmp_path):
    doc = ev.to_dict()
    assert "toy_share" in doc["results"]["metrics"]
    path = tmp_path / "r.json"
    ev.to_json(path)
    assert "toy_share" in json.loads(path.read_text())["metrics"]
    back = ResultSet.from_json(path)
    assert back["toy_share"].value == ev.results()["toy_share"].value


def test_toy_parameter_has_a_slider(ev):
    x = ev.explore()
    assert "toy_cut" in x.sliders and "toy_share" in x.images
    n = ev.search_count
    x.sliders["toy_cut"].value = 0.0
    assert ev.search_count == n


def test_toy_metric_in_html_export(ev, tmp_path):
    out = tmp_path / "r.html"
    ev.to_html(out)
    page = no_wbr(out.read_text(encoding="utf-8"))
    assert "toy_share" in page and "Distances of synthetic records with the toy cut" in page
