"""Tests of synthpriv_report.engine's memory habits: trees leave the cache once nothing planned needs them (and
are never built twice within one evaluation), and encodings share the arrays they hold in common."""

from __future__ import annotations

import numpy as np
import pytest
from _support.frames import mixed

from synthpriv_report import Evaluation
from synthpriv_report.engine import cache as engine_module
from synthpriv_report.spaces import SpaceSpec


@pytest.fixture
def built(monkeypatch):
    """Every tree the engine builds, as (space label, set, rows or None)."""
    calls = []
    real = engine_module.nb.build_tree

    def spy(enc, set_name, rows=None):
        calls.append((enc.spec.label, set_name, None if rows is None else tuple(rows.tolist())))
        return real(enc, set_name, rows)

    monkeypatch.setattr(engine_module.nb, "build_tree", spy)
    return calls


@pytest.mark.slow  # about a second
def test_trees_leave_the_cache_after_their_last_planned_search(built) -> None:
    T, S, H = mixed()
    ev = Evaluation(T, S, H, progress=False, n_bootstrap=20,
                    metrics=["dcr", "holdout_dcr_share", "privacy_score", "dcr_test"])
    ev.results()
    assert ev._engine.trees == {}
    # each tree was built once: no tree was dropped while a planned search still needed it
    assert len(built) == len(set(built))
    assert {(b[0], b[1]) for b in built if b[2] is None} == {("gower", "T"), ("gower", "H"), ("euclidean", "T")}


@pytest.mark.slow  # about a second
def test_a_tree_a_metric_reads_itself_is_kept_until_that_metric_ran(built) -> None:
    # CVP, DVP' and NSND read the trees of T and S (farthest pair) after searching T -> S; the calibration
    # (H as S) reads those of T and H. A released tree would be built a second time.
    T, S, H = mixed()
    ev = Evaluation(T, S, H, progress=False, n_bootstrap=20, metrics=["dcr", "cvp", "dvp", "nsnd"])
    res = ev.results()
    assert all(res[m].computed for m in ("cvp", "dvp", "nsnd"))
    assert len(built) == len(set(built))
    assert ("euclidean", "T", None) in built and ("euclidean", "S", None) in built
    assert ev._engine.trees == {} and ev._engine.planned_reads == {}


def test_a_tree_asked_for_again_is_rebuilt_with_the_same_numbers(built) -> None:
    T, S, H = mixed()
    ev = Evaluation(T, S, H, progress=False, n_bootstrap=20, metrics=["dcr"])
    first = ev.results()["dcr"]
    assert ev._engine.trees == {}
    tree = ev.context.tree("gower", "T")  # e.g. a per-record view: rebuilt, then kept
    assert ev.context.tree("gower", "T") is tree
    assert built.count(("gower", "T", None)) == 2
    again = ev.results(n_bootstrap=21)["dcr"]  # a re-reduction reads the cached tables
    assert again.value == first.value


def test_encodings_share_equal_arrays() -> None:
    T, S, H = mixed()
    ev = Evaluation(T, S, H, progress=False, metrics=["dcr"])
    ctx = ev.context
    g, e = ctx.encoding("gower"), ctx.encoding("euclidean")
    for s in ("T", "H", "S"):
        # no numeric value is missing: gower and euclidean coordinates are the same numbers, held once
        assert e.num[s] is g.num[s]
        # every categorical column in order: both hold one int64 copy of the fitted codes (held narrow)
        assert g.cat[s] is e.cat[s] and g.cat[s].dtype == np.int64 and ctx.fitted.codes[s].dtype == np.int8
        assert np.array_equal(g.cat[s], ctx.fitted.codes[s])
    keys = ctx.encoding(SpaceSpec("euclidean", columns=("c", "x")))
    assert keys.cat["T"] is g.cat["T"]  # the one categorical column: the same codes
    assert keys.num["T"].shape == (len(T), 1)


def test_encodings_with_a_missing_number_keep_their_own_coordinates() -> None:
    T, S, H = mixed(missing=True)
    ev = Evaluation(T, S, H, progress=False, metrics=["dcr"], row_order="as_given")  # row 0 is the missing one
    ctx = ev.context
    g, e = ctx.encoding("gower"), ctx.encoding("euclidean")
    assert np.isnan(g.num["T"][0, 0])
    # euclidean: missing := 0 plus a missing-indicator coordinate (docs/metrics.md, "Distance spaces")
    assert e.num["T"].shape[1] == g.num["T"].shape[1] + 1
    assert e.num["T"][0, 0] == 0.0 and e.num["T"][0, -1] == 1.0
    assert not np.shares_memory(e.num["T"], g.num["T"])
