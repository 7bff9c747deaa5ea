"""Live sliders (synthpriv_report.display.widgets), driven headlessly."""

from __future__ import annotations

import re

import pytest
from _support.frames import mixed

from synthpriv_report import Evaluation
from synthpriv_report.display.widgets import compare

METRICS = ["dcr", "exact_copies", "holdout_dcr_share", "privacy_score", "nndr"]


def _ev(leak: bool) -> Evaluation:
    """150 real, synthetic and holdout records; with ``leak``, 100 of the synthetic ones are copies."""
    T, S, H = mixed(150, 7, n_synthetic=150, copied=100 if leak else 0)
    return Evaluation(T, S, H, metrics=METRICS, progress=False, n_bootstrap=20)


@pytest.fixture(scope="module")
def leaky() -> Evaluation:
    ev = _ev(True)
    ev.results()
    return ev


@pytest.mark.slow  # draws every view eleven times
def test_ten_slider_moves_update_views_without_searching(leaky):
    x = leaky.explore()
    n = leaky.search_count
    html0, png0 = x.summary.value, x.images["privacy_score"].value
    assert all(s.continuous_update is False for s in x.sliders.values())
    # sliders come from the declarations of the evaluation's own metrics: no CVP/DVP/HitR slider here
    assert not {"cvp_threshold", "dvp_threshold", "hitr_divisor"} & set(x.sliders)
    moves = [("alpha", 0.3), ("alpha", 0.05), ("nndr_threshold", 0.9), ("nndr_threshold", 0.2),
             ("levels:privacy_score:medium", 95.0), ("levels:nndr:high", 0.6), ("levels:nndr:medium", 0.3),
             ("levels:privacy_score:high", 95.0), ("levels:holdout_dcr_share:high", 0.99), ("alpha", 0.2)]
    for key, value in moves:
        x.sliders[key].value = value
    assert len(x.timings) == 10
    assert leaky.search_count == n
    assert x.summary.value != html0
    assert x.images["privacy_score"].value != png0
    assert "alpha" in x.summary.value and "0.2" in x.summary.value


@pytest.mark.slow  # about 1 s
def test_level_slider_changes_the_badge(leaky):
    x = leaky.explore()
    x.sliders["levels:privacy_score:high"].value = 0.0
    x.sliders["levels:privacy_score:medium"].value = 0.0
    rs = x._results()
    assert rs["privacy_score"].level in ("low", "inconclusive")  # nothing is below 0: no risk shown
    assert rs["privacy_score"].level_rule.source == "user"
    # the merged results equal a direct call with the same overrides
    direct = leaky.results(levels={"privacy_score": {"high": 0.0, "medium": 0.0}})
    assert {n: r.level for n, r in direct.items()} == {n: r.level for n, r in rs.items()}
    assert direct.verdict.level == rs.verdict.level


@pytest.mark.slow  # about a second
def test_compare_side_by_side():
    evs = {"leaky": _ev(True), "honest": _ev(False)}
    box = compare(evs, "privacy_score", "alpha", min=0.05, max=0.5, step=0.05)
    slider, table = box.children[0], box.children[1]
    before = table.value
    assert "leaky" in before and "honest" in before
    slider.value = 0.4
    assert table.value != before and "alpha = 0.4" in table.value


def test_compare_table_is_styled_like_the_views():
    """compare()'s table carries the views' scoped style: numbers in right-aligned cells, a caption, row and
    column headers, the level as a word in a badge (not by colour alone)."""
    evs = {"leaky <b>": _ev(True)}
    table = compare(evs, "privacy_score", "alpha", min=0.05, max=0.5, step=0.05, figure=False).children[1].value
    assert table.startswith('<div class="spr-report"><style>') and "td.spr-num" in table
    assert "<caption>privacy_<wbr>score at alpha = " in table
    assert '<th scope="row">leaky &lt;b&gt;</th><td class="spr-num">' in table
    assert re.search(r'<span class="spr-badge spr-(low|medium|high)">(low|medium|high) risk</span>', table)


def test_compare_table_writes_a_share_as_a_percentage():
    """The values of a share (the leaky set's exact-copy share, and the holdout's) read as percentages, as in
    the figure's legend; a score keeps three significant digits."""
    leaky = _ev(True)
    share = leaky.results(metrics=["exact_copies"])["exact_copies"]
    table = compare({"leaky": leaky}, "exact_copies", "alpha", min=0.05, max=0.5, step=0.05,
                    figure=False).children[1].value
    cells = re.findall(r'<td class="spr-num">([^<]*)</td>', table)
    assert re.fullmatch(r"\d+(\.\d+)?%", cells[0]), cells
    assert abs(float(cells[0][:-1]) - 100 * share.value) < 0.1, (cells[0], share.value)
    assert all(c.endswith("%") or c == "—" for c in cells), cells


# ---------------------------------------------------------------------------------------------------------------
# issue 29: sliders that answer, figures side by side on shared axes


def _png_size(png: bytes) -> tuple[int, int]:
    import struct

    return struct.unpack(">II", png[16:24])


@pytest.mark.slow  # about 1 s
def test_live_figure_keeps_its_figure_and_shares_the_axes(leaky):
    from synthpriv_report.display.figures import WIDGET_DPI, LiveFigure

    honest = _ev(False)
    rs = [honest.results()["privacy_score"], leaky.results()["privacy_score"]]
    live = LiveFigure("privacy_score", panels=("honest", "leaky"))
    png = live.draw(rs)
    fig, axes = live._fig, list(live._axes)
    assert png.startswith(b"\x89PNG") and len(axes) == 2
    assert axes[0].get_xlim() == axes[1].get_xlim() and axes[0].get_ylim() == axes[1].get_ylim()
    assert axes[0].get_title().startswith("honest") and axes[1].get_title().startswith("leaky")
    width, _ = _png_size(png)
    assert width == round(fig.get_figwidth() * WIDGET_DPI)  # screen resolution, not the reports' 200 dpi
    again = live.draw([honest.results(alpha=0.3)["privacy_score"], leaky.results(alpha=0.3)["privacy_score"]])
    assert live._fig is fig and list(live._axes) == axes  # the same figure and axes, redrawn
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    assert not isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine)  # laid out once, then frozen
    assert again != png and len(live.timings) == 2


def test_a_label_with_dollars_is_text_in_a_figure(leaky):
    from synthpriv_report.display.figures import LiveFigure

    live = LiveFigure("privacy_score", panels=("$x^2$ <b>",))
    live.draw([leaky.results()["privacy_score"]])
    title = live._axes[0].title
    assert title.get_text().startswith("$x^2$ <b>") and title.get_parse_math() is False


@pytest.mark.slow  # about 1 s
def test_explorer_level_slider_redraws_only_its_own_figure(leaky):
    x = leaky.explore()
    before = {n: x.images[n].value for n in x.images}
    counts = {n: len(f.timings) for n, f in x.figures.items()}
    x.sliders["levels:privacy_score:high"].value = 60.0
    redrawn = {n for n, f in x.figures.items() if len(f.timings) > counts[n]}
    assert redrawn <= {"privacy_score"}
    assert all(x.images[n].value == before[n] for n in x.images if n != "privacy_score")
    # full size: no thumbnail width cap
    assert all(img.layout.max_width == "100%" for img in x.images.values())


@pytest.mark.slow  # about 1 s
def test_compare_redraws_the_figure_only_when_the_parameter_changes_it():
    evs = {"leaky": _ev(True), "honest": _ev(False)}
    box = compare(evs, "privacy_score", "alpha", min=0.05, max=0.5, step=0.05)
    image = box.children[2]
    first = image.value
    box.children[0].value = 0.4
    assert image.value != first and len(box.timings) == 2
    box2 = compare(evs, "near_copies", "alpha", min=0.05, max=0.5, step=0.05)  # alpha does not move near copies
    png = box2.children[2].value
    box2.children[0].value = 0.4
    assert box2.children[2].value == png


@pytest.mark.slow  # about a second
def test_leak_explorer_shows_which_check_reacts_first():
    from synthpriv_report.display.widgets import first_reactions, leak_explorer

    honest, leaky_ev = _ev(False), _ev(True)
    results = {"copies": {0.0: honest.results(), 0.5: leaky_ev.results()}}
    box = leak_explorer(results)
    kind, share, table = box.children
    assert "0%" in table.value
    share.value = 0.5
    assert "50%" in table.value and len(box.timings) == 2
    firsts = first_reactions(results["copies"])
    assert firsts["exact_copies"] == 0.5  # copies found at the leaky share, not at 0
    assert all(v in (None, 0.0, 0.5) for v in firsts.values())
    assert "not at any share computed" in table.value or all(v is not None for v in firsts.values())


@pytest.mark.slow  # about a second
def test_a_redrawn_live_figure_is_pixel_for_pixel_a_fresh_one(leaky):
    """The blitted update (frame restored, only the drawing's artists drawn again) gives the same PNG as drawing
    the same results on a new figure."""
    from synthpriv_report.display.figures import LiveFigure

    honest = _ev(False)
    live = LiveFigure("privacy_score", panels=("honest", "leaky"))
    live.draw([honest.results()["privacy_score"], leaky.results()["privacy_score"]])
    moved = [honest.results(alpha=0.3)["privacy_score"], leaky.results(alpha=0.3)["privacy_score"]]
    assert live.draw(moved) == LiveFigure("privacy_score", panels=("honest", "leaky")).draw(moved)


@pytest.mark.slow  # about 1 s
def test_a_kept_legend_is_pixel_for_pixel_a_typeset_one():
    """A legend whose entries did not change is not typeset again: its box is drawn and its kept inside pasted
    in. The PNG is the same as drawing the results on a new figure, and the legend was indeed kept."""
    from synthpriv_report.display.figures import LiveFigure

    evs = [Evaluation(*mixed(150, 7, n_synthetic=150, copied=c), metrics=["near_copies", "dcr"], progress=False,
                      n_bootstrap=20) for c in (0, 100)]
    live = LiveFigure("near_copies", panels=("honest", "leaky"))
    live.draw([ev.results(near_copy_quantile=0.01)["near_copies"] for ev in evs])
    before = {slot: kept[1] for slot, kept in live._legends.items()}
    # a move that changes no near-copy count (at 0.05 the number cut-off of the one-column rule takes in more
    # records, and the legend's shares change)
    moved = [ev.results(near_copy_quantile=0.02)["near_copies"] for ev in evs]
    png = live.draw(moved)
    assert before and all(live._legends[slot][1] is legend for slot, legend in before.items())
    assert png == LiveFigure("near_copies", panels=("honest", "leaky")).draw(moved)
    # the same results drawn again: the kept legend again, the same pixels
    assert live.draw(moved) == png


# ---------------------------------------------------------------------------------------------------------------
# level sliders read in the direction of the quantity their rule grades (the lab, round two, item 4)

#: The holdout tests (a score where higher is safer, graded on D where higher is riskier), a share and a score
#: graded on bounds of themselves, a difference of shares, and a parameter slider with a step of 0.001.
RULED = ["holdout_dcr_share", "privacy_score", "nndr", "near_copies", "dcr_test", "nndr_test"]


@pytest.fixture(scope="module")
def ruled() -> Evaluation:
    T, S, H = mixed(150, 7, n_synthetic=150, copied=100)
    ev = Evaluation(T, S, H, metrics=RULED, progress=False, n_bootstrap=20)
    ev.results()
    return ev


def _rule_direction(metric: str) -> str:
    """The direction of the quantity a metric's rule grades, read from the registry here (not through the
    package's helper): the rule's own where it declares one, else the metric's."""
    from synthpriv_report.core.registry import get_spec

    spec = get_spec(metric)
    return spec.level.direction or spec.direction


def _decimals(step: float) -> int:
    text = f"{step:.10f}".rstrip("0")
    return len(text.split(".")[1])


def _in_order(direction: str, medium: float, high: float) -> bool:
    """Medium on the safe side of high (or on it), in ``direction``."""
    return high >= medium if direction == "higher_is_riskier" else high <= medium


def test_every_level_slider_reads_in_its_rules_direction_and_starts_in_order():
    """Every level slider the registry gives (all metrics, not only one evaluation's): the word of its label
    follows the direction of the quantity its rule grades, it starts at the rule's threshold, the pair starts
    uncrossed, and its readout shows as many decimals as its step has."""
    from synthpriv_report.core.registry import REGISTRY, LevelSpec
    from synthpriv_report.display.widgets import level_sliders, readout_format

    sliders = level_sliders(list(REGISTRY))
    ruled_metrics = {n for n, s in REGISTRY.items()
                     if isinstance(s.level, LevelSpec) and s.level.rule is None
                     and s.level.medium is not None and s.level.high is not None
                     and all(abs(v) < float("inf") for v in s.value_range)}  # a slider needs a finite range
    assert {m for m, *_ in sliders} == ruled_metrics
    against = {n for n in ruled_metrics if _rule_direction(n) != REGISTRY[n].direction}
    assert {"dcr_test", "nndr_test"} <= against  # the metrics whose rule runs against their value
    starts: dict[str, dict[str, float]] = {}
    for metric, which, label, lo, hi, step, start in sliders:
        word = "above" if _rule_direction(metric) == "higher_is_riskier" else "below"
        assert label == f"{metric}: {which} risk {word}", (metric, label)
        assert start == getattr(REGISTRY[metric].level, which) and lo <= start <= hi
        assert int(readout_format(step)[1:-1]) == _decimals(step), (metric, step)
        starts.setdefault(metric, {})[which] = start
    for metric, pair in starts.items():
        assert _in_order(_rule_direction(metric), pair["medium"], pair["high"]), (metric, pair)


@pytest.mark.slow  # about a second
def test_every_slider_reads_out_as_many_decimals_as_its_step(ruled):
    x = ruled.explore()
    steps = {k: s.step for k, s in x.sliders.items()}
    assert steps["near_copy_quantile"] == 0.001  # a 0.001-step slider reads three decimals, not two
    for key, s in x.sliders.items():
        assert int(s.readout_format[1:-1]) == _decimals(s.step), (key, s.step, s.readout_format)
    box = compare({"leaky": ruled}, "near_copies", "near_copy_quantile", min=0.001, max=0.1, step=0.001,
                  figure=False)
    assert box.children[0].readout_format == ".3f"


@pytest.mark.slow  # about 7 s
def test_dragging_each_level_slider_keeps_the_pair_in_order_and_grades_like_results(ruled, monkeypatch):
    """Each level slider of each metric dragged across its whole range, up then down: after every move the pair
    is uncrossed in its rule's direction, the partner moved only when the moved threshold passed it (and then to
    it), and the level the panel is given equals ``results(levels=...)`` with the sliders' thresholds on the
    rule."""
    import numpy as np

    x = ruled.explore()
    searches = ruled.search_count
    shown: list = []
    monkeypatch.setattr(x, "_refresh", lambda rs, *, figures: shown.append(rs))
    keys = [k for k in x.sliders if k.startswith("levels:")]
    assert {k.split(":")[1] for k in keys} == {"holdout_dcr_share", "privacy_score", "nndr", "dcr_test",
                                                "nndr_test"}
    graded_d = {m: ruled.results()[m].level_rule.graded for m in ("dcr_test", "nndr_test")}
    for key in keys:
        _, metric, which = key.split(":")
        partner_key = f"levels:{metric}:{'medium' if which == 'high' else 'high'}"
        direction = _rule_direction(metric)
        s, partner = x.sliders[key], x.sliders[partner_key]
        n = round((s.max - s.min) / s.step)
        positions = [float(v) for v in np.round(np.linspace(s.min, s.max, n + 1), 10)]
        seen = set()
        for v in positions + positions[::-1]:
            before = partner.value
            s.value = v
            med, high = (s.value, partner.value) if which == "medium" else (partner.value, s.value)
            assert _in_order(direction, med, high), (key, v, med, high)
            had_to = not _in_order(direction, *((v, before) if which == "medium" else (before, v)))
            assert partner.value == (v if had_to else before), (key, v, before, partner.value)
            direct = ruled.results(levels={metric: {"medium": med, "high": high, "on": "rule"}})[metric]
            assert shown[-1][metric].level == direct.level, (key, v)
            assert shown[-1][metric].level_rule.source == "user"
            if metric in graded_d:  # the thresholds are on D, where higher is riskier
                d = graded_d[metric]
                if abs(d - high) > 1e-6 and abs(d - med) > 1e-6:
                    want = "high" if d > high else "medium" if d > med else None
                    assert (direct.level == want) if want else direct.level in ("low", "inconclusive"), (key, v)
            seen.add(direct.level)
        if metric in graded_d:
            assert {"high", "medium"} <= seen  # the drag crossed the graded D both ways
    assert ruled.search_count == searches  # level moves re-grade; nothing is searched again


@pytest.mark.slow  # about a second
def test_dcr_test_and_nndr_test_level_sliders_read_above_and_start_uncrossed(ruled):
    """Regression: the holdout tests' level sliders read "high risk below 50 / medium risk below 10" and started
    crossed, because their labels and ordering guard took the metric's direction (the score: higher is safer)
    instead of their rule's (D: higher is riskier); the first drag of the medium threshold pulled the high one
    along. They now read "above", start at the rule's 50 and 10, a drag moves one threshold, and the level shown
    is the one ``results(levels=...)`` gives with the same thresholds on D."""
    x = ruled.explore()
    before = x.summary.value
    for metric in ("dcr_test", "nndr_test"):
        high, medium = x.sliders[f"levels:{metric}:high"], x.sliders[f"levels:{metric}:medium"]
        assert high.description == f"{metric}: high risk above" and high.value == 50.0
        assert medium.description == f"{metric}: medium risk above" and medium.value == 10.0
        d = ruled.results()[metric].level_rule.graded
        medium.value = 20.0
        assert high.value == 50.0 and not x._notes and "moved with" not in x.status.value
        high.value = round(d) + 1.0 if d < 99 else 99.0  # just above the graded D: no longer high
        assert medium.value == 20.0
        rs = x._results()
        direct = ruled.results(levels={metric: {"medium": 20.0, "high": high.value, "on": "rule"}})
        assert 20.0 < d < high.value  # D's lower bound now lies between the two thresholds
        assert rs[metric].level == direct[metric].level == "medium"
        assert rs[metric].level_rule.medium == 20.0 and rs[metric].level_rule.high == high.value
    assert x.summary.value != before
    # the rule's own thresholds given on the rule grade exactly as the default rule does
    same = ruled.results(levels={m: {"medium": 10.0, "high": 50.0, "on": "rule"} for m in ("dcr_test", "nndr_test")})
    default = ruled.results()
    assert all(same[m].level == default[m].level for m in ("dcr_test", "nndr_test"))
    # thresholds on the value keep the metric's direction; on the rule, the rule's
    with pytest.raises(ValueError, match="higher is safer"):
        ruled.results(levels={"dcr_test": {"medium": 10.0, "high": 50.0}})
    with pytest.raises(ValueError, match="quantity its rule grades where higher is riskier"):
        ruled.results(levels={"dcr_test": {"medium": 50.0, "high": 10.0, "on": "rule"}})


@pytest.mark.slow  # about 2 s
def test_a_view_keeps_a_static_copy_for_a_notebook_opened_without_its_kernel(leaky):
    """A reopened notebook whose widget state was not saved showed 'VBox(children=...)': every view's display
    bundle now carries a readable text and a static HTML copy (figures as images, controls as label and value,
    every label escaped), beside the live widget."""
    from synthpriv_report.display.widgets import SNAPSHOT_TEXT, compare, side_by_side

    views = {"compare": compare({"a <b>x</b>": leaky}, "near_copies", "near_copy_quantile", min=0.001, max=0.1,
                                step=0.001),
             "side_by_side": side_by_side({"h": leaky["dcr"]}),
             "explore": leaky.explore()}
    for name, view in views.items():
        bundle = view._repr_mimebundle_()
        assert "application/vnd.jupyter.widget-view+json" in bundle, name
        assert bundle["text/plain"] == SNAPSHOT_TEXT and "VBox" not in bundle["text/plain"], name
        page = bundle["text/html"]
        assert "<img" in page and "data:image/png;base64," in page, name
        assert "<script" not in page and "<b>x</b>" not in page, name
    assert "a &lt;b&gt;x&lt;/b&gt;" in views["compare"]._repr_mimebundle_()["text/html"]
    assert "near-copy distance quantile: 0.01" in views["compare"]._repr_mimebundle_()["text/html"]


@pytest.mark.slow  # about 1 s
def test_the_attack_explorer_reads_the_attack_at_each_rate_without_searching() -> None:
    from _support.frames import mixed

    from synthpriv_report.analysis.vulnerable import operating_point
    from synthpriv_report.display.widgets import EXPLORER_FPRS, attack_explorer

    T, S, H = mixed(150, 7, n_synthetic=150, copied=100)
    ev = Evaluation(T, S, H, metrics=["mia_worst_case"], progress=False, calibrate=False, random_state=0)
    label = "<b>leaky</b>"
    box = attack_explorer({label: ev}, promise=1.0)
    slider, table, image, status = box.children
    n = ev.search_count
    assert [v for _, v in slider.options] == list(EXPLORER_FPRS) and slider.value == 0.01
    assert slider.continuous_update is False
    first_png = bytes(image.value)
    assert first_png.startswith(b"\x89PNG")
    for f in (0.1, 0.5, 0.001, 0.01):
        slider.value = f
        p = operating_point(ev, f)
        assert f"{p.flagged_members:,} of {p.n_members:,}" in table.value
        assert f"{p.flagged_nonmembers:,} of {p.n_nonmembers:,}" in table.value
    assert ev.search_count == n  # every move reads the cached scores
    assert len(box.timings) == 5 and "updated in" in status.value
    assert "&lt;b&gt;leaky&lt;/b&gt;" in table.value and "<b>leaky</b>" not in table.value
    slider.value = 0.5
    assert bytes(image.value) != first_png  # the chosen rate is drawn
    with pytest.raises(ValueError, match="fpr must be one of"):
        attack_explorer(ev, fpr=0.03)
    with pytest.raises(ValueError, match="promise must be"):
        attack_explorer(ev, promise=-1.0)
    no_holdout = Evaluation(T, S, metrics=["mia_worst_case"], progress=False, calibrate=False)
    with pytest.raises(ValueError, match="needs a holdout"):
        attack_explorer(no_holdout)
