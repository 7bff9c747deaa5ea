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
    assert rs["privacy_score"].level == "low"  # nothing is below 0
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
