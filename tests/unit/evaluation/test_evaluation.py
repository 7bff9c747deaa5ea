"""Tests of synthpriv_report.evaluation.evaluation: search planning and caching, parameters, exports, errors."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from _support.frames import mixed

from synthpriv_report import Evaluation

SECTION2 = ["dcr", "exact_copies", "holdout_dcr_share", "privacy_score", "nndr", "dcr_test", "nndr_test"]


def _keys(ev):
    return [(s.space, s.query, s.ref) for s in ev.searches]


def test_only_the_needed_searches_run() -> None:
    T, S, H = mixed()
    ev = Evaluation(T, S, H, progress=False, n_bootstrap=50)
    res = ev.results(metrics=["dcr", "nndr"])
    assert list(res) == ["dcr", "nndr"]
    # dcr: S->T, T->T, H->T (k=1); nndr: T->T (k=5), S->T, H->T; calibration (H as S) adds nothing new
    assert sorted(_keys(ev)) == sorted([("gower", "S", "T"), ("gower", "T", "T"), ("gower", "H", "T")])
    ks = {(s.query, s.ref): s.k for s in ev.searches}
    assert ks[("T", "T")] == 5 and ks[("S", "T")] == 1
    ev.results(metrics=["exact_copies"])  # exact copies compare records, no search
    assert len(ev.searches) == 3


@pytest.mark.slow  # about 2 s
def test_each_search_runs_once_across_all_section2_metrics_and_ten_parameter_changes() -> None:
    T, S, H = mixed(seed=1)
    for spaces in (None, "euclidean", {"dcr": "euclidean", "holdout_dcr_share": "projected"}):
        ev = Evaluation(T, S, H, progress=False, metrics=SECTION2, n_bootstrap=50, spaces=spaces)
        first = ev.results()
        keys = _keys(ev)
        assert len(keys) == len(set(keys)), Counter(keys)
        n = ev.search_count
        changes = [
            {"alpha": 0.05}, {"alpha": 0.3}, {"nndr_threshold": 0.2}, {"nndr_threshold": 0.8},
            {"test_statistic": "median"}, {"levels": {"privacy_score": {"medium": 90.0, "high": 10.0}}},
            {"levels": {"holdout_dcr_share": {"high": 0.9, "medium": 0.6}}}, {"n_bootstrap": 30},
            {"alpha": 0.2, "nndr_threshold": 0.4, "test_statistic": "median"},
            {"levels": {"dcr_test": {"medium": 90.0, "high": 80.0}, "nndr_test": {"medium": 5.0, "high": None}}},
        ]
        for ch in changes:
            res = ev.results(**ch)
            assert ev.search_count == n, ch
            assert res.params == {**res.params, **ch}
        assert ev.results(alpha=0.3)["privacy_score"].details["alpha"] == 0.3
        assert ev.results()["dcr"].value == first["dcr"].value


def test_sequential_metric_requests_do_not_search_a_key_twice() -> None:
    """Regression: ev["dcr_test"] then ev["nndr_test"] (or ev["dcr"] then ev["nndr"]) searched the same
    (space, query, ref) twice, first with k=1 then again with k=2 (k=5), because only the requested metrics
    were planned. Planning the k of every metric of the evaluation (without running the searches) keeps one
    search per key."""
    T, S, H = mixed(seed=2)
    ev = Evaluation(T, S, H, progress=False, metrics=SECTION2, n_bootstrap=50)
    ev["dcr_test"]
    ev["nndr_test"]
    ev["dcr"]
    ev["nndr"]
    keys = _keys(ev)
    assert len(keys) == len(set(keys)), Counter(keys)


def test_calibration_uses_holdout_as_synthetic() -> None:
    # canonical frames of test_metrics_distance: with H as S, the dcr value is median DCR(h, T) = .05 (gower)
    # and the exact-copy share is H's own copy share 1/6
    T = pd.DataFrame({"x": [0.0, 2.0, 4.0, 6.0, 8.0, 10.0], "c": list("aabbab")})
    H = pd.DataFrame({"x": [1.0, 5.0, 9.0, 10.0, 3.0, 7.0], "c": list("ababba")})
    S = pd.DataFrame({"x": [0.0, 4.0, 5.0, 10.0], "c": list("aabb")})
    ev = Evaluation(T, S, H, progress=False, metrics=SECTION2, nndr_k=2, n_bootstrap=50)
    res = ev.results()
    assert res["dcr"].calibration == pytest.approx(0.05)
    assert res["exact_copies"].calibration == pytest.approx(1 / 6)
    # nndr with H as S: NNDR_H = [.2, .25, 1/7, 0, .25, 1/7] all below .5 -> 1
    assert res["nndr"].calibration == pytest.approx(1.0)
    assert res["holdout_dcr_share"].calibration is None  # needs H, not comparable
    off = Evaluation(T, S, H, progress=False, metrics=SECTION2, nndr_k=2, calibrate=False, n_bootstrap=50)
    assert off.results()["dcr"].calibration is None


def test_to_frame_columns_and_rows() -> None:
    T, S, _ = mixed(seed=3)
    res = Evaluation(T, S, None, progress=False, metrics=SECTION2, n_bootstrap=50).results()
    df = res.to_frame()
    assert df.index.name == "metric" and list(df.index) == SECTION2
    assert list(df.columns) == ["title", "section", "value", "ci_low", "ci_high", "direction", "level", "space",
                                "calibration", "reason_not_computed"]
    assert df.loc["holdout_dcr_share", "reason_not_computed"] and pd.isna(df.loc["holdout_dcr_share", "value"])
    assert df.loc["dcr", "section"] == "2.1" and df.loc["dcr", "space"] == "gower"
    assert pd.isna(df.loc["dcr_test", "space"]) and pd.isna(df.loc["dcr_test", "level"])
    assert df.loc["exact_copies", "ci_low"] <= df.loc["exact_copies", "value"] <= df.loc["exact_copies", "ci_high"]


@pytest.mark.slow  # about a second
def test_to_dict_is_json_and_reproducible() -> None:
    T, S, H = mixed(seed=4)
    ev = Evaluation(T, S, H, progress=False, metrics=SECTION2, n_bootstrap=50, random_state=3, alpha=0.2)
    d = ev.to_dict()
    text = json.dumps(d, allow_nan=False)
    assert json.loads(text) == d
    assert set(d["fingerprints"]) == {"T", "H", "S"} and all(len(v) == 64 for v in d["fingerprints"].values())
    assert d["fingerprints"] == ev.fingerprints
    st = d["settings"]
    assert st["random_state"] == 3 and st["sizes"] == {"T": 60, "H": 60, "S": 30}
    assert st["columns"] == {"x": "numeric", "y": "numeric", "c": "categorical"}
    assert st["default_params"]["alpha"] == 0.2
    for pkg in ("synthpriv_report", "numpy", "pandas", "numba", "python"):
        assert pkg in d["versions"]
    assert set(d["results"]["metrics"]) == set(SECTION2)
    assert d["results"]["verdict"]["level"] in ("low", "inconclusive", "medium", "high")
    assert d["results"]["params"]["alpha"] == 0.2
    m = d["results"]["metrics"]["holdout_dcr_share"]
    assert m["computed"] and m["section"] == "2.2" and m["level_rule"]["high"] == 0.55
    # the same inputs give the same dict
    ev2 = Evaluation(T, S, H, progress=False, metrics=SECTION2, n_bootstrap=50, random_state=3, alpha=0.2)
    d2 = ev2.to_dict()
    assert d2["results"] == d["results"] and d2["fingerprints"] == d["fingerprints"]


def test_not_computed_is_none_not_nan_in_json() -> None:
    T, S, _ = mixed(seed=5)
    d = Evaluation(T, S, None, progress=False, metrics=SECTION2, n_bootstrap=50).to_dict()
    m = d["results"]["metrics"]["dcr_test"]
    assert m["computed"] is False and m["value"] is None and "holdout" in m["reason_not_computed"]


def test_unknown_names_give_clear_errors() -> None:
    T, S, H = mixed(seed=6)
    with pytest.raises(ValueError, match="unknown metric 'nope'.*known metrics"):
        Evaluation(T, S, H, progress=False, metrics=["dcr", "nope"])
    ev = Evaluation(T, S, H, progress=False, metrics=SECTION2, n_bootstrap=50)
    with pytest.raises(ValueError, match="unknown metric 'nope'"):
        ev.results(metrics=["nope"])
    with pytest.raises(ValueError, match="unknown metric 'nope'"):
        ev["nope"]
    with pytest.raises(ValueError, match=r"unknown parameter.*'alpah'.*alpha"):
        ev.results(alpah=0.2)
    with pytest.raises(ValueError, match=r"unknown parameter.*'random_state'.*structural"):
        ev.results(random_state=3)
    with pytest.raises(ValueError, match="unknown parameter"):
        Evaluation(T, S, H, progress=False, bogus=1)
    with pytest.raises(ValueError, match=r"spaces\['dcr'\] must be one of 'gower', .*got 'manhattan'"):
        Evaluation(T, S, H, progress=False, spaces={"dcr": "manhattan"})
    with pytest.raises(ValueError, match=r"spaces must be None, one of 'gower', .*got 'cosine'"):
        Evaluation(T, S, H, progress=False, spaces="cosine")
    with pytest.raises(ValueError, match="unknown metric 'dcrr'"):
        Evaluation(T, S, H, progress=False, spaces={"dcrr": "gower"})
    with pytest.raises(ValueError, match="fixed space"):
        Evaluation(T, S, H, progress=False, spaces={"exact_copies": "gower"})
    with pytest.raises(ValueError, match="nndr_k"):
        Evaluation(T, S, H, progress=False, nndr_k=0)
    with pytest.raises(ValueError, match="sensitive_fields.*'zz'"):
        Evaluation(T, S, H, progress=False, sensitive_fields=["zz"])
    with pytest.raises(ValueError, match="alpha"):
        ev.results(metrics=["privacy_score"], alpha=2.0)


def test_unknown_names_in_level_overrides_are_errors() -> None:
    """Regression: levels={"privacy_scor": {...}} or {"privacy_score": {"hihg": ...}} was silently ignored
    (params.thresholds only reads the keys it knows), so a typo left the default thresholds in force with no
    warning. Unknown metric names and keys other than medium/high should be a clear ValueError."""
    T, S, H = mixed(seed=8)
    ev = Evaluation(T, S, H, progress=False, metrics=SECTION2, n_bootstrap=50)
    with pytest.raises(ValueError, match="privacy_scor"):
        ev.results(levels={"privacy_scor": {"high": 10.0}})
    with pytest.raises(ValueError, match="hihg"):
        ev.results(levels={"privacy_score": {"hihg": 10.0}})


@pytest.mark.slow  # about a second
def test_results_are_cached_per_parameters() -> None:
    T, S, H = mixed(seed=7)
    ev = Evaluation(T, S, H, progress=False, metrics=SECTION2, n_bootstrap=50)
    a = ev.results()
    b = ev.results()
    assert all(a[m] is b[m] for m in SECTION2)
    c = ev.results(alpha=0.3)
    assert c["privacy_score"] is not a["privacy_score"] and c["dcr"] is a["dcr"]
    assert ev["dcr"] is a["dcr"]
    assert "Evaluation(T=60, S=30, H=60" in repr(ev)
    assert "verdict=" in repr(a)


def test_presentation_accessors_read_caches_without_searching() -> None:
    T, S, H = mixed(seed=7)
    ev = Evaluation(T, S, H, progress=False, n_bootstrap=20)
    ctx = ev.context
    assert ev.computed_metrics() == frozenset()
    assert ctx.cached_table("gower", "S", "T") is None  # not searched yet, and asking does not search
    assert ev.search_count == 0
    ev.results(metrics=["dcr"])
    assert ev.computed_metrics() == {"dcr"}
    before = ev.search_count
    table = ctx.cached_table("gower", "S", "T")
    assert table is not None and table.dist.shape == (len(S), 1)
    np.testing.assert_array_equal(table.dist, ctx.knn("gower", "S", "T", 1).dist)
    assert ctx.cached_table("euclidean", "S", "T") is None  # another space was never searched
    assert ev.search_count == before


@pytest.mark.slow  # about a second
def test_engine_choice_is_logged_and_gives_the_same_numbers() -> None:
    T, S, H = mixed(seed=8)
    res = {}
    for engine in ("tree", "tiled", "auto"):
        ev = Evaluation(T, S, H, progress=False, metrics=["dcr", "nndr"], n_bootstrap=50, engine=engine)
        res[engine] = ev.results().to_dict()["metrics"]
        assert all(s.engine in ("tree", "tiled", "dense") and s.reason for s in ev.searches)
        if engine != "auto":
            assert {s.engine for s in ev.searches} == {engine}
    assert res["tree"] == res["tiled"] == res["auto"]
    with pytest.raises(ValueError, match="engine must be one of"):
        Evaluation(T, S, H, progress=False, engine="fast")


def test_the_evaluation_reads_texts_from_the_fitted_codes_as_prepare_gave_them() -> None:
    """Once the encoders are fitted, an evaluation holds no array of text pointers per set: its categorical
    values are read from the fitted codes, and every column of every set reads as prepare gave it (missing values
    and a category seen in one set only included), in the evaluation's row order."""
    from synthpriv_report.data.containers import CodedSet
    from synthpriv_report.data.preparation import prepare

    T, S, H = mixed(seed=4)
    S = S.copy()
    cat = [c for c in T.columns if not pd.api.types.is_numeric_dtype(T[c])]
    assert cat
    S.loc[S.index[:3], cat[0]] = None
    S.loc[S.index[3], cat[0]] = "only in the synthetic data"
    ev = Evaluation(T, S, H, progress=False)
    ref = prepare(T, S, H, row_order="canonical")
    assert all(isinstance(ev.data.categorical[s], CodedSet) for s in ev.data.sets)
    for s in ev.data.sets:
        assert ev.data.categorical[s].shape == ref.categorical[s].shape
        assert ev.data.categorical[s].tolist() == ref.categorical[s].tolist()
        for c in ev.data.categorical_columns:
            assert ev.data.column_values(s, c).tolist() == ref.column_values(s, c).tolist(), (s, c)
    assert "only in the synthetic data" in ev.data.column_values("S", cat[0]).tolist()
    with pytest.raises(TypeError, match="one column at a time"):
        ev.data.categorical["T"][0]
