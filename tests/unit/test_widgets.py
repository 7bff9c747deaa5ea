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


def test_a_redrawn_live_figure_is_pixel_for_pixel_a_fresh_one(leaky):
    """The blitted update (frame restored, only the drawing's artists drawn again) gives the same PNG as drawing
    the same results on a new figure."""
    from synthpriv_report.display.figures import LiveFigure

    honest = _ev(False)
    live = LiveFigure("privacy_score", panels=("honest", "leaky"))
    live.draw([honest.results()["privacy_score"], leaky.results()["privacy_score"]])
    moved = [honest.results(alpha=0.3)["privacy_score"], leaky.results(alpha=0.3)["privacy_score"]]
    assert live.draw(moved) == LiveFigure("privacy_score", panels=("honest", "leaky")).draw(moved)


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
