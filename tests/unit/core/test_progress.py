"""Tests of synthpriv_report.core.progress and the progress bars of an evaluation (stderr, silenced by
progress=False)."""

from __future__ import annotations

import pytest
from _support.frames import mixed

from synthpriv_report.core import progress
from synthpriv_report.evaluation.evaluation import Evaluation


@pytest.fixture
def no_delay(monkeypatch: pytest.MonkeyPatch) -> None:
    # bars appear after DELAY seconds; a tiny evaluation is faster than that
    monkeypatch.setattr(progress, "DELAY", 0.0)


def test_bar_names_its_stage_on_stderr(no_delay: None, capfd: pytest.CaptureFixture[str]) -> None:
    with progress.bar(3, "counting sheep", enabled=True) as b:
        b.update(3)
    with progress.stage("one long step", enabled=True):
        pass
    err = capfd.readouterr().err
    assert "counting sheep" in err and "one long step" in err


def test_disabled_bar_writes_nothing(no_delay: None, capfd: pytest.CaptureFixture[str]) -> None:
    with progress.bar(3, "counting sheep", enabled=False) as b:
        b.update(3)
        b.note("x")
    assert list(progress.steps(range(3), "steps", enabled=False)) == [0, 1, 2]
    with progress.stage("one long step", enabled=False):
        pass
    out = capfd.readouterr()
    assert out.err == "" and out.out == ""


def test_short_stage_shows_no_bar(capfd: pytest.CaptureFixture[str]) -> None:
    # with the default delay a stage shorter than DELAY seconds prints nothing
    with progress.stage("a quick step", enabled=True):
        pass
    assert "a quick step" not in capfd.readouterr().err


@pytest.mark.slow  # about a second
def test_evaluation_progress_on_stderr_and_off(no_delay: None, capfd: pytest.CaptureFixture[str]) -> None:
    T, S, H = mixed(60, n_synthetic=60)
    metrics = ["dcr", "exact_copies", "holdout_dcr_share"]
    on = Evaluation(T, S, H, metrics=metrics, progress=True).results()
    err = capfd.readouterr().err
    for name in ("preparing the data", "fitting the encoders", "metrics", "search tree"):
        assert name in err, name
    off = Evaluation(T, S, H, metrics=metrics, progress=False).results()
    captured = capfd.readouterr()
    assert captured.err == ""
    # no number changes with the bars
    for m in metrics:
        assert on[m].value == off[m].value and on[m].interval == off[m].interval


def test_evaluation_records_stage_and_metric_seconds() -> None:
    T, S, H = mixed(60, n_synthetic=60)
    ev = Evaluation(T, S, H, metrics=["dcr", "exact_copies"], progress=False)
    ev.results()
    t = ev.timings
    assert set(t["metrics"]) == {"dcr", "exact_copies"}
    assert "fitting the encoders" in t["stages"] and all(v >= 0 for v in t["stages"].values())


@pytest.mark.slow  # about half a second
def test_cli_bars_on_stderr_and_no_progress(no_delay: None, tmp_path, capfd: pytest.CaptureFixture[str]) -> None:
    from synthpriv_report.tools.cli import main

    T, S, H = mixed(60, n_synthetic=60)
    paths = {}
    for name, df in (("real", T), ("synthetic", S), ("holdout", H)):
        paths[name] = tmp_path / f"{name}.csv"
        df.to_csv(paths[name], index=False)
    args = ["evaluate", "--real", str(paths["real"]), "--synthetic", str(paths["synthetic"]), "--holdout",
            str(paths["holdout"]), "--metrics", "dcr,exact_copies", "--key", "x,y", "--json"]
    assert main(args + [str(tmp_path / "a.json")]) == 0
    err = capfd.readouterr().err
    assert "preparing the data" in err and "metrics" in err
    assert main(args + [str(tmp_path / "b.json"), "--no-progress"]) == 0
    err = capfd.readouterr().err
    assert "preparing the data" not in err and "metrics:" not in err and "%|" not in err
