"""Widgets never die, and no widget runs a string.

Regressions (issue 23): in ``Evaluation.explore()`` a level slider moved past its partner (medium past high)
raised inside the callback, and from then on every slider raised until the cell was run again; ``compare()`` put
each label into an HTML widget unescaped (a file name holding markup ran script in JupyterLab).
"""

from __future__ import annotations

import markupsafe
import pandas as pd
import pytest
from _support.frames import mixed
from _support.hostile import PAYLOADS

from synthpriv_report import Evaluation
from synthpriv_report.display.widgets import compare

METRICS = ["dcr", "exact_copies", "holdout_dcr_share", "privacy_score"]


def _half_copied(seed: int, columns: tuple[str, str, str] = ("a", "b", "c")) -> tuple[pd.DataFrame, ...]:
    """120 real, synthetic and holdout records (two numeric columns and a categorical one, named ``columns``);
    half the synthetic records are copies of real ones."""
    sets = mixed(120, seed, n_synthetic=120, copied=60, categories="xyz")
    return tuple(frame.set_axis(list(columns), axis=1) for frame in sets)


@pytest.fixture(scope="module")
def ev() -> Evaluation:
    T, S, H = _half_copied(3)
    e = Evaluation(T, S, H, metrics=METRICS, progress=False, n_bootstrap=20, random_state=0)
    e.results()
    return e


@pytest.mark.parametrize("metric, which, to", [
    ("privacy_score", "medium", 10.0),   # higher is safer: medium (90) moved below high (50)
    ("privacy_score", "high", 99.0),     # high moved above medium
    ("holdout_dcr_share", "medium", 0.9),  # higher is riskier: medium moved above high
    ("holdout_dcr_share", "high", 0.1),
])
def test_a_level_slider_moved_past_its_partner_takes_it_along(ev: Evaluation, metric: str, which: str,
                                                              to: float) -> None:
    x = ev.explore()
    partner = "high" if which == "medium" else "medium"
    x.sliders[f"levels:{metric}:{which}"].value = to  # raised ValueError inside the callback before
    assert x.sliders[f"levels:{metric}:{partner}"].value == pytest.approx(to)
    assert "moved with" in x.status.value
    # every other control keeps working
    before = x.summary.value
    x.sliders["alpha"].value = 0.3
    assert x.summary.value != before and "not applied" not in x.status.value
    x.sliders[f"levels:{metric}:{which}"].value = x.sliders[f"levels:{metric}:{which}"].min
    assert "not applied" not in x.status.value


def test_a_refused_setting_is_shown_in_the_panel_and_the_sliders_keep_working(ev: Evaluation,
                                                                              monkeypatch: pytest.MonkeyPatch
                                                                              ) -> None:
    x = ev.explore()
    real = ev.results
    calls = {"n": 0}

    def refuse_once(*a: object, **kw: object) -> object:
        calls["n"] += 1
        if calls["n"] == 1:
            raise ValueError("alpha must be <b>sensible</b>")
        return real(*a, **kw)

    monkeypatch.setattr(ev, "results", refuse_once)
    good = x.summary.value
    x.sliders["alpha"].value = 0.05
    assert "not applied" in x.status.value and "&lt;b&gt;sensible&lt;/b&gt;" in x.status.value
    assert x.sliders["alpha"].value == pytest.approx(0.1) and x.summary.value == good  # back to what worked
    x.sliders["levels:privacy_score:high"].value = 80.0
    assert "not applied" not in x.status.value and "updated in" in x.status.value


def test_compare_labels_and_every_widget_string_are_escaped() -> None:
    T, S, H = _half_copied(5)
    evs = {p: Evaluation(T, S, H, metrics=["privacy_score"], progress=False, n_bootstrap=20, random_state=0)
           for p in PAYLOADS[:4]}
    box = compare(evs, "privacy_score", "alpha", min=0.05, max=0.5, step=0.05)
    htmls = _html_values(box)
    assert htmls
    for value in htmls:
        for p in PAYLOADS[:4]:
            if set("<>&\"'") & set(p):
                assert p not in value, f"unescaped label in a widget: {value[:200]}"
    shown = "".join(htmls)
    assert all(str(markupsafe.escape(p)) in shown for p in PAYLOADS[:4])


def _html_values(widget: object) -> list[str]:
    """Every ``value`` of an HTML widget under ``widget``."""
    import ipywidgets as w

    out: list[str] = []
    stack = [widget]
    while stack:
        x = stack.pop()
        if isinstance(x, (w.HTML, w.HTMLMath)):
            out.append(x.value)
        stack.extend(getattr(x, "children", ()) or ())
    return out


def test_explorer_of_hostile_names_shows_every_string_escaped(hostile_ev: Evaluation) -> None:
    x = hostile_ev.explore()
    raw = [p for v in _html_values(x.widget) for p in PAYLOADS if set("<>") & set(p) and p in v]
    assert not raw, raw[:3]
