"""Figures (synthpriv_report.display.figures): axes, labels, threshold lines, deterministic PNG bytes."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")  # test process only; the package never sets a backend

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from synthpriv_report.core.results import MetricResult, ResultSet, Verdict  # noqa: E402
from synthpriv_report.display.figures import plot_risk_overview, render_png, risk_position  # noqa: E402
from synthpriv_report.metrics.closeness.dcr import plot_dcr  # noqa: E402
from synthpriv_report.metrics.closeness.nndr import plot_nndr  # noqa: E402
from synthpriv_report.metrics.closeness.privacy_score import plot_privacy_score  # noqa: E402
from synthpriv_report.metrics.holdout.holdout_share import plot_holdout_share  # noqa: E402

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
    # 20 equal-width bins on [0, 1] for gower, drawn on the part the distances reach (H's 0.5 lies in the bin
    # ending at 0.55), with room left of 0 for the copies' line
    lo, hi = ax.get_xlim()
    assert lo < 0.0 and hi == pytest.approx(0.55 * 1.04)
    assert "gower" in ax.get_xlabel()
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("exact copies: 50.0%" in s for s in labels)  # 2 of 4 synthetic records are copies
    assert 0.0 in _vlines(ax)


def test_plot_dcr_ecdf_and_non_gower_range():
    arr = dict(DCR, space="euclidean", S=np.array([0.0, 2.0]), H=np.array([1.0, 3.0]), T=np.array([0.5]))
    ax = plot_dcr(arr, kind="ecdf")
    assert ax.get_xlim() == pytest.approx((-0.12, 3.12))  # [0, max] outside gower, with a margin at both ends
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

    from synthpriv_report.core.plotting import MAX_WIDTH_IN
    from synthpriv_report.display.figures import render_figure

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
    from synthpriv_report.core.plotting import figure_style

    before = dict(matplotlib.rcParams)
    with figure_style():
        assert matplotlib.rcParams["svg.fonttype"] == "none"
    assert dict(matplotlib.rcParams) == before


def test_risk_overview_draws_thresholds_on_the_value_scale():
    """A review metric graded on its excess over the holdout shows its thresholds at holdout + threshold; a
    metric graded on another quantity shows none."""
    from synthpriv_report.core.results import LevelRule
    from synthpriv_report.display.figures import threshold_values

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


# ---------------------------------------------------------------------------------------------------------------
# every metric's figures on the demo data: value axes that follow the data, marks drawn whole

#: The bulk of a drawn distribution (this share of every set) fills at least :data:`MIN_FILL` of its value axis.
BULK = 0.9
MIN_FILL = 0.4


@pytest.fixture(scope="module")
def demo_figures():
    """Every declared figure of every metric that has one, drawn from the demo evaluation (honest and leaky
    synthetic data): ``[(label, axes)]``."""
    from matplotlib.figure import Figure

    from synthpriv_report import Evaluation
    from synthpriv_report.core.registry import REGISTRY
    from synthpriv_report.datasets import load_demo

    d = load_demo()
    names = [n for n, spec in REGISTRY.items() if spec.figures]
    drawn = []
    for which, syn in (("honest", d.synthetic), ("leaky", d.synthetic_leaky)):
        results = Evaluation(d.real, syn, d.holdout, sensitive_fields=list(d.sensitive_fields),
                             key_fields=list(d.key_fields), metrics=names, n_bootstrap=50, random_state=0,
                             progress=False).results()
        for name in names:
            r = results[name]
            assert r.computed, (name, r.reason_not_computed)
            for i, spec in enumerate(REGISTRY[name].figures):
                fig = Figure(figsize=(spec.size[0] * spec.ncols, spec.size[1]))
                axes = list(np.ravel(fig.subplots(1, spec.ncols)))
                spec.draw(r, *axes)
                drawn += [(f"{which} {name} figure {i} axes {j}", ax) for j, ax in enumerate(axes)]
    return drawn


def _data_line(ax, line) -> bool:
    """A line drawn in data coordinates on both axes (not a reference line across the axes)."""
    return all(line.get_transform().contains_branch_seperately(ax.transData))


def _is_mark(line) -> bool:
    """A marker or a single point rather than a curve."""
    return line.get_linestyle() in ("None", "none", "") or len(np.atleast_1d(line.get_xdata())) == 1


def _distributions(ax) -> list[tuple[float, np.ndarray, np.ndarray]]:
    """The distributions drawn on a linear value axis, each as ``(start, x, cumulative share at x)``: histograms
    (step outlines, from the heights of their bins) and ECDF or quantile curves (ten points or more)."""
    from matplotlib.patches import Polygon

    if ax.get_xscale() != "linear":
        return []
    out = []
    for p in ax.patches:
        if not isinstance(p, Polygon):
            continue
        v = p.get_patch_transform().transform(p.get_path().vertices)
        edges = np.unique(v[:, 0])
        mids = (edges[:-1] + edges[1:]) / 2
        heights = np.zeros(mids.size)
        for (x0, y0), (x1, y1) in zip(v[:-1], v[1:]):  # the outline's horizontal segments are the bins' tops
            if y0 == y1 and x0 != x1:
                inside = (mids > min(x0, x1)) & (mids < max(x0, x1))
                heights[inside] = np.maximum(heights[inside], y0)
        mass = heights * np.diff(edges)
        if mass.sum() > 0:
            out.append((float(edges[np.flatnonzero(mass)[0]]), edges[1:], np.cumsum(mass) / mass.sum()))
    for line in ax.lines:
        x = np.asarray(line.get_xdata(), dtype=float)
        if _data_line(ax, line) and not _is_mark(line) and x.size >= 10:
            out.append((float(x[0]), x, np.asarray(line.get_ydata(), dtype=float)))
    return out


def _marks(ax) -> list[tuple[str, float, bool]]:
    """``(axis, position, clipped)`` of every reference line (across the axes), marker and error bar."""
    out = []
    for line in ax.lines:
        on_x, on_y = line.get_transform().contains_branch_seperately(ax.transData)
        xs, ys = np.atleast_1d(line.get_xdata()), np.atleast_1d(line.get_ydata())
        if on_x and not on_y:
            out += [("x", float(x), line.get_clip_on()) for x in xs]
        elif on_y and not on_x:
            out += [("y", float(y), line.get_clip_on()) for y in ys]
        elif _is_mark(line):
            out += [(a, float(v), line.get_clip_on()) for a, vs in (("x", xs), ("y", ys)) for v in vs]
    for c in ax.collections:  # error bars
        for seg in getattr(c, "get_segments", lambda: [])():
            out += [(a, float(v), c.get_clip_on()) for a, i in (("x", 0), ("y", 1)) for v in np.asarray(seg)[:, i]]
    return out


@pytest.mark.slow  # about 5 s
def test_every_figure_value_axis_follows_the_data_it_shows(demo_figures):
    """On the demo data the bulk of every histogram and ECDF (90% of each set) fills at least 40% of its value
    axis: no axis spans a metric's theoretical range that its data occupy a small part of, and the bulk is in
    view."""
    checked = 0
    for label, ax in demo_figures:
        dists = _distributions(ax)
        if not dists:
            continue
        checked += 1
        lo, hi = ax.get_xlim()
        start = max(lo, min(first for first, _, _ in dists))
        bulk = max(float(x[np.searchsorted(c, BULK - 1e-9)]) for _, x, c in dists)
        assert bulk <= hi, (label, bulk, (lo, hi))
        assert (bulk - start) / (hi - lo) >= MIN_FILL, (label, (start, bulk), (lo, hi))
    assert checked >= 10  # dcr (2 axes), nndr, privacy_score, membership_inference, each on both data sets


@pytest.mark.slow  # reads the module's demo_figures fixture, an evaluation on demo data
def test_every_figure_draws_its_marks_whole(demo_figures):
    """Every threshold, baseline and reference line, every marker and every error bar of every metric figure
    lies inside the axes' limits; one exactly on a limit is drawn unclipped."""
    for label, ax in demo_figures:
        lims = {"x": sorted(ax.get_xlim()), "y": sorted(ax.get_ylim())}
        for axis, v, clipped in _marks(ax):
            lo, hi = lims[axis]
            if clipped:
                assert lo < v < hi, (label, axis, v, (lo, hi))
            else:
                assert lo <= v <= hi, (label, axis, v, (lo, hi))


def test_dcr_and_nndr_axes_no_longer_span_the_theoretical_range_or_cut_their_lines():
    """Regression: the DCR figures ran from 0 to 1 (the gower range) with every distance below 0.32, and the NNDR
    histogram to 16 with its bulk below 4; the line at 0 (exact copies) lay on the axes' edge."""
    rng = np.random.default_rng(0)
    dist = {"S": rng.uniform(0.05, 0.3, 400), "H": rng.uniform(0.0, 0.32, 200), "T": rng.uniform(0.0, 0.3, 400),
            "copies": np.zeros(400, dtype=bool), "space": "gower"}
    for kind in ("hist", "ecdf"):
        lo, hi = plot_dcr(dist, kind=kind).get_xlim()
        assert lo < 0.0 < 0.32 < hi < 0.4, (kind, lo, hi)  # the copies' line at 0 inside, no room to 1
    # NNDR: 97.5% of the ratios below 4, the rest spread out to 16 (each tail bin well under 1% of the records)
    ratios = {"S": np.concatenate([rng.uniform(0.0, 4.0, 975), np.linspace(4.0, 16.0, 25)]),
              "H": np.concatenate([rng.uniform(0.0, 3.0, 490), np.linspace(3.0, 16.0, 10)])}
    ax = plot_nndr(ratios, threshold=0.5)
    lo, hi = ax.get_xlim()
    assert lo < 0.0 and 4.0 < hi < 6.0, (lo, hi)
    assert lo < 0.5 < hi and 0.5 in _vlines(ax)
