"""Settings are refused where they are given, by an error naming the setting, what it allows and what was given."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthpriv_report import Evaluation


@pytest.fixture(scope="module")
def frames():
    rng = np.random.default_rng(0)

    def make(m):
        return pd.DataFrame({"a": rng.normal(size=m), "k": rng.choice(list("xyz"), m), "s": rng.choice(list("pq"), m)})

    return make(40), make(40), make(30)


BAD_INIT = [
    ({"max_rows": -5}, ValueError, r"max_rows must be an integer in \[1, inf\), got -5"),
    ({"max_rows": -3}, ValueError, r"max_rows"),
    ({"max_rows": 2.5}, TypeError, r"max_rows must be an integer"),
    ({"random_state": "abc"}, TypeError, r"random_state must be a non-negative integer.*'abc'"),
    ({"random_state": 1.5}, TypeError, r"random_state.*1\.5"),
    ({"random_state": -1}, ValueError, r"random_state"),
    ({"n_components": -1}, ValueError, r"n_components.*-1"),
    ({"n_components": 1.5}, ValueError, r"n_components.*1\.5"),
    ({"nndr_k": 0}, ValueError, r"nndr_k"),
    ({"verdict_metrics": ["bogus"]}, ValueError,
     r"verdict_metrics must be a list of metric names, got an unknown metric 'bogus'"),
    ({"verdict_metrics": "exact_copies"}, TypeError, r"verdict_metrics must be a list"),
    ({"metrics": "dcr"}, TypeError, r"metrics must be a list of metric names, got the string 'dcr'"),
    ({"metrics": []}, ValueError,
     r"metrics must be a list of metric names, got an empty list \(name at least one metric\)"),
    ({"metrics": ["dcr", "dcr"]}, ValueError, r"more than once"),
    ({"alpha": "0.1"}, TypeError, r"alpha must be a number in \(0, 1\), got '0.1'"),
    ({"alpha": 1.5}, ValueError, r"alpha must be a number in \(0, 1\)"),
    ({"alhpa": 0.2}, ValueError, r"unknown parameter 'alhpa' \(did you mean 'alpha'\?\)"),
    ({"risk_percentile": 150}, ValueError, r"risk_percentile must be a number in \(0, 100\), got 150"),
    ({"test_statistic": "mode"}, ValueError, r"test_statistic must be one of 'mean', 'median', got 'mode'"),
    ({"n_bootstrap": 0}, ValueError, r"n_bootstrap must be an integer in \[10, 100000\], got 0"),
    ({"hitr_divisor": 0}, ValueError, r"hitr_divisor must be a number in \(0, inf\), got 0"),
    ({"nndr_threshold": float("nan")}, ValueError, r"nndr_threshold"),
    ({"cvp_threshold": True}, TypeError, r"cvp_threshold"),
    ({"calibrate": "yes"}, TypeError, r"calibrate must be True or False"),
    ({"progress": 1}, TypeError, r"progress must be True or False"),
    ({"key_fields": ["k"], "sensitive_fields": ["k"]}, ValueError, r"'k'.*both key_fields and sensitive_fields"),
    ({"key_fields": ["nope"]}, ValueError,
     r"key_fields must be a list of analysed column names, got an unknown analysed column 'nope'"),
    ({"sensitive_fields": "s"}, TypeError, r"sensitive_fields must be a list"),
    ({"levels": {"privacy_score": {"medium": 10, "high": 90}}}, ValueError, r"levels\['privacy_score'\]"),
    ({"names": {"real": ""}}, ValueError, r"names\['real'\] must be a non-empty string, got ''"),
    ({"names": {"reel": "x"}}, ValueError, r"names must be a dict .*, got the key 'reel'"),
    ({"spaces": {"dcr": "manhattan"}}, ValueError, r"manhattan"),
]


@pytest.mark.parametrize("kwargs, exc, match", BAD_INIT, ids=[str(k) for k, *_ in BAD_INIT])
def test_bad_setting_refused_at_construction(frames, kwargs, exc, match):
    T, S, H = frames
    with pytest.raises(exc, match=match):
        Evaluation(T, S, H, **{"progress": False, **kwargs})


BAD_RESULTS = [
    ({"alpha": "0.1"}, TypeError, r"alpha"),
    ({"alhpa": 0.1}, ValueError, r"did you mean 'alpha'"),
    ({"random_state": 3}, ValueError, r"structural setting.*Evaluation"),
    ({"n_bootstrap": 0}, ValueError, r"n_bootstrap"),
    ({"levels": {"bogus": {"high": 1}}}, ValueError, r"unknown metric 'bogus'"),
    ({"metrics": "dcr"}, TypeError, r"got the string 'dcr'"),
]


@pytest.mark.parametrize("kwargs, exc, match", BAD_RESULTS, ids=[str(k) for k, *_ in BAD_RESULTS])
def test_bad_setting_refused_by_results(frames, kwargs, exc, match):
    T, S, H = frames
    ev = Evaluation(T, S, H, progress=False, metrics=["exact_copies"])
    with pytest.raises(exc, match=match):
        ev.results(**kwargs)
    assert ev.search_count == 0  # refused before any work


def test_generator_random_state_is_reproducible(frames):
    T, S, H = frames
    a = Evaluation(T, S, H, progress=False, metrics=["privacy_score"], random_state=np.random.default_rng(5))
    b = Evaluation(T, S, H, progress=False, metrics=["privacy_score"], random_state=np.random.default_rng(5))
    assert a.results()["privacy_score"].value == b.results()["privacy_score"].value
    assert isinstance(a.settings["random_state"], int)


def test_edge_intervals_never_break_a_figure():
    """Regression: at k = n the Wilson upper bound came out below 1 for 932 sizes and the holdout-share figure
    failed ("'xerr' must not contain negative values"), so a full copy could not be exported."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from synthpriv_report.core.results import MetricResult
    from synthpriv_report.metrics.closeness.copies import plot_exact_copies
    from synthpriv_report.metrics.holdout.holdout_share import plot_holdout_share
    from synthpriv_report.stats import wilson

    ax = Figure().subplots()
    for n in range(2, 3001):
        for value in (0.0, 1.0):
            iv = wilson(value, n)
            ax.cla()
            plot_holdout_share(MetricResult("holdout_dcr_share", value, interval=iv, level="high"), ax=ax)
            ax.cla()
            plot_exact_copies(MetricResult("exact_copies", value, interval=iv, level="high",
                                           details={"holdout_copy_share": 0.0}), ax=ax)


@pytest.mark.parametrize("n", [3, 69, 200])
def test_full_copy_exports_as_high_risk(n, tmp_path):
    """From 3 records on (2 copies of 2 records cannot be told from chance at the verdict's per-check level)."""
    rng = np.random.default_rng(n)
    T = pd.DataFrame({"a": rng.normal(size=n), "c": rng.choice(list("xyz"), n)})
    H = pd.DataFrame({"a": rng.normal(size=n), "c": rng.choice(list("xyz"), n)})
    ev = Evaluation(T, T.copy(), H, progress=False, n_bootstrap=20,
                    metrics=["exact_copies", "holdout_dcr_share", "dcr"])
    assert ev.results()["exact_copies"].level == "high" and ev.results().verdict.level == "high"
    out = tmp_path / "copy.html"
    ev.to_html(out)
    assert "HIGH RISK" in out.read_text(encoding="utf-8").upper()
