"""Figures (synthpriv_report.display.figures): axes, labels, threshold lines, deterministic PNG bytes."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # test process only; the package never sets a backend

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from synthpriv_report.display.figures import plot_risk_overview, render_png, risk_position  # noqa: E402
from synthpriv_report.metrics.dcr import plot_dcr  # noqa: E402
from synthpriv_report.metrics.holdout_share import plot_holdout_share  # noqa: E402
from synthpriv_report.metrics.nndr import plot_nndr  # noqa: E402
from synthpriv_report.metrics.privacy_score import plot_privacy_score  # noqa: E402
from synthpriv_report.results import MetricResult, ResultSet, Verdict  # noqa: E402

DCR = {"S": np.array([0.0, 0.0, 0.1, 0.2]), "H": np.array([0.1, 0.3, 0.5]), "T": np.array([0.05, 0.2, 0.4]),
       "copies": np.array([True, True, False, False]), "space": "gower"}


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def _vlines(ax):
    return [ln.get_xdata()[0] for ln in ax.lines if len(set(np.atleast_1d(ln.get_xdata()))) == 1
            and len(ln.get_xdata()) == 2]


def test_plot_dcr_histogram_bins_and_copies():
    ax = plot_dcr(DCR)
    # 20 equal-width bins on [0, 1] for gower: the step outline of the filled S histogram spans [0, 1]
    assert ax.get_xlim() == (0.0, 1.0)
    assert "gower" in ax.get_xlabel()
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("exact copies: 50.0%" in s for s in labels)  # 2 of 4 synthetic records are copies
    assert 0.0 in _vlines(ax)


def test_plot_dcr_ecdf_and_non_gower_range():
    arr = dict(DCR, space="euclidean", S=np.array([0.0, 2.0]), H=np.array([1.0, 3.0]), T=np.array([0.5]))
    ax = plot_dcr(arr, kind="ecdf")
    assert ax.get_xlim() == (0.0, 3.0)  # [0, max] outside gower
    assert ax.get_ylabel().startswith("cumulative")


def test_plot_privacy_score_alpha_line():
    ttpr = np.arange(1.0, 11.0)  # 1..10; 0.1-quantile (linear) = 1 + 0.1*9 = 1.9
    tspr = np.array([0.5, 0.5, 0.5, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0])  # 3 of 10 <= 1.9 -> f_TS = 0.3
    ax = plot_privacy_score({"ttpr": ttpr, "tspr": tspr}, alpha=0.1)
    assert pytest.approx(1.9) in _vlines(ax)
    hlines = [ln.get_ydata()[0] for ln in ax.lines if len(set(ln.get_ydata())) == 1 and len(ln.get_ydata()) == 2]
    assert 0.1 in hlines
    labels = " ".join(t.get_text() for t in ax.get_legend().get_texts())
    assert "TSPR at most q: 30.0%" in labels and "TTPR" in labels and "TSPR" in labels


def test_plot_nndr_threshold_line():
    ax = plot_nndr({"S": np.array([0.1, 0.9]), "H": np.array([0.6, 0.8])}, threshold=0.5)
    assert 0.5 in _vlines(ax)
    labels = " ".join(t.get_text() for t in ax.get_legend().get_texts())
    assert "50.0% below" in labels and "0.0% below" in labels


def test_plot_holdout_share_interval_and_half_line():
    r = MetricResult("holdout_dcr_share", 0.7, interval=(0.6, 0.8), level="high", calibration=0.5)
    ax = plot_holdout_share(r)
    assert 0.5 in _vlines(ax)
    assert "Wilson" in " ".join(t.get_text() for t in ax.get_legend().get_texts())
    ax2 = plot_holdout_share(MetricResult("holdout_dcr_share", None, reason_not_computed="needs a holdout"))
    assert "needs a holdout" in ax2.texts[0].get_text()


def test_risk_overview_one_bar_per_finite_metric():
    rs = ResultSet({
        "a": MetricResult("a", 0.25, level="low"),
        "b": MetricResult("b", 80.0, direction="higher_is_safer", value_range=(0.0, 100.0), level="medium"),
        "c": MetricResult("c", 3.0, value_range=(0.0, float("inf"))),
        "d": MetricResult("d", None, reason_not_computed="x"),
    }, Verdict("low", (), ()), {})
    ax = plot_risk_overview(rs)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b"]
    widths = sorted(p.get_width() for p in ax.patches)
    assert widths == pytest.approx([0.2, 0.25])  # b: 1 - 80/100
    assert risk_position(rs["c"]) is None


def test_png_bytes_are_deterministic():
    a = render_png(lambda ax: plot_dcr(DCR, ax=ax))
    b = render_png(lambda ax: plot_dcr(DCR, ax=ax))
    assert a == b and a[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"Software" not in a and b"matplotlib" not in a.lower()
    assert plt.get_fignums() == []  # rendering leaves no pyplot figure open


def test_svg_is_deterministic_vector_text_of_at_least_8pt():
    """Pages embed SVG: the same bytes twice, text kept as text, no text under 8 pt at the figure's printed size
    (the metric functions ask for 8 pt legends on a figure narrowed to the page width), no wider than the page."""
    import re

    from synthpriv_report.display.figures import render_figure
    from synthpriv_report.plotting import MAX_WIDTH_IN

    draw = lambda a, b: (plot_dcr(DCR, ax=a), plot_dcr(DCR, ax=b, kind="ecdf"))  # noqa: E731
    svg = render_figure(draw, ncols=2, size=(6.0, 3.4))
    assert svg == render_figure(draw, ncols=2, size=(6.0, 3.4))
    text = svg.decode("utf-8")
    assert "<text" in text and "exact copies: 50.0%" in text  # text, not glyph outlines
    width_pt = float(re.search(r'<svg[^>]*width="([\d.]+)pt"', text).group(1))
    assert width_pt <= MAX_WIDTH_IN * 72 + 0.01
    sizes = [float(s) for s in re.findall(r"font-size:\s*([\d.]+)px", text)]
    # matplotlib writes sizes in px of 1/72 inch (points) in its SVG user units
    assert sizes and min(sizes) >= 8.0, sorted(set(sizes))
    assert b"<dc:date>" not in svg and plt.get_fignums() == []


def test_figure_style_changes_no_global_setting():
    from synthpriv_report.plotting import figure_style

    before = dict(matplotlib.rcParams)
    with figure_style():
        assert matplotlib.rcParams["svg.fonttype"] == "none"
    assert dict(matplotlib.rcParams) == before


def test_risk_overview_draws_thresholds_on_the_value_scale():
    """A review metric graded on its excess over the holdout shows its thresholds at holdout + threshold; a
    metric graded on another quantity shows none."""
    from synthpriv_report.display.figures import threshold_values
    from synthpriv_report.results import LevelRule

    excess = LevelRule(0.05, 0.2, "s", "d", scale="the value minus the same metric computed on the holdout")
    r = MetricResult("zcap", 0.6, calibration=0.4, level="medium", level_rule=excess,
                     direction="higher_is_riskier", value_range=(0.0, 1.0))
    other = MetricResult("dcr_test", 40.0, level="medium", direction="higher_is_riskier", value_range=(0.0, 100.0),
                         level_rule=LevelRule(10.0, 50.0, "s", "d", scale="D, the drop in percent"))
    assert threshold_values(r) == [(pytest.approx(0.45), "medium"), (pytest.approx(0.6), "high")]
    assert threshold_values(other) == []
    ax = plot_risk_overview({"zcap": r, "dcr_test": other})
    marks = sorted(round(ln.get_xdata()[0], 3) for ln in ax.lines if ln.get_color() == "#222222")
    assert marks == [0.45, 0.6]
