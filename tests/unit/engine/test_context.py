"""Tests of :class:`synthpriv_report.engine.context.Context`, the object a metric's ``plan`` and ``compute`` receive:
what its
docstrings promise, checked on frames of a few rows with expectations worked out by hand."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthpriv_report import Evaluation
from synthpriv_report.engine.context import Context
from synthpriv_report.engine.requests import SetRef


def _evaluation(holdout: bool = False) -> Evaluation:
    # gower on one column of range 4: the distance is |a - b| / 4. Row order as given, so positions are the
    # frames' own. T holds 1.0 twice: each copy is the other's nearest record, at distance 0.
    T = pd.DataFrame({"x": [0.0, 1.0, 1.0, 4.0, 2.0]})
    S = pd.DataFrame({"x": [0.9, 4.0, 3.0]})
    H = pd.DataFrame({"x": [0.5, 3.5]}) if holdout else None
    return Evaluation(T, S, H, progress=False, calibrate=False, row_order="as_given")


def test_a_table_has_the_documented_shapes_dtypes_and_order() -> None:
    ev = _evaluation()
    table = ev.context.knn("gower", "S", "T", 2)
    assert table.dist.shape == (3, 2) and table.idx.shape == (3, 2)
    assert table.dist.dtype == np.float64 and table.idx.dtype == np.int64
    # 0.9: 1.0 at positions 1 and 2 tie (0.1 / 4), the lower position first; 4.0: itself (0), then 2.0 (2 / 4);
    # 3.0: 4.0 and 2.0 tie at 1 / 4, position 3 before 4
    assert table.idx.tolist() == [[1, 2], [3, 4], [3, 4]]
    assert table.dist == pytest.approx(np.array([[0.025, 0.025], [0.0, 0.5], [0.25, 0.25]]))
    assert np.all(np.diff(table.dist, axis=1) >= 0)


def test_a_set_searched_against_itself_leaves_each_record_out_of_its_own_neighbours() -> None:
    ctx = _evaluation().context
    table = ctx.knn("gower", "T", "T", 1)
    assert not np.any(table.idx[:, 0] == np.arange(5))
    # the duplicate 1.0 at positions 1 and 2 is a neighbour at distance 0 (left out by position, not by value)
    assert table.idx[1:3, 0].tolist() == [2, 1] and table.dist[1:3, 0].tolist() == [0.0, 0.0]
    # 0.0's nearest is 1.0 at position 1 (ties with 2, lower position first)
    assert table.idx[0, 0] == 1 and table.dist[0, 0] == pytest.approx(0.25)
    # identical records: within one set the record itself does not count, a duplicate does
    assert ctx.identical_in("T", "T").tolist() == [False, True, True, False, False]


def test_a_subset_against_itself_excludes_by_position_within_the_subset_but_not_against_its_base() -> None:
    ctx = _evaluation().context
    sub = ctx.subset("T", [0, 3, 4], "ends")
    assert isinstance(sub, SetRef) and sub.label == "T[ends]" and ctx.size(sub) == 3
    within = ctx.knn("gower", sub, sub, 1)
    # 0.0 -> 2.0 (subset position 2), 4.0 -> 2.0, 2.0 -> 0.0 and 4.0 tie at 2 / 4: subset position 0 first
    assert within.idx[:, 0].tolist() == [2, 2, 0]
    against_base = ctx.knn("gower", sub, "T", 1)
    # against the whole of T it is not a within-set search: each record finds itself (base positions)
    assert against_base.idx[:, 0].tolist() == [0, 3, 4] and against_base.dist[:, 0].tolist() == [0.0] * 3


def test_more_neighbours_than_references_are_inf_and_minus_one() -> None:
    ctx = _evaluation().context
    table = ctx.knn("gower", "S", "T", 6)
    assert np.all(np.isinf(table.dist[:, 5])) and np.all(table.idx[:, 5] == -1)
    assert np.all(np.isfinite(table.dist[:, :5])) and np.all(table.idx[:, :5] >= 0)
    within = ctx.knn("gower", "T", "T", 5)  # four other records each
    assert np.all(within.idx[:, 4] == -1) and np.all(within.idx[:, :4] >= 0)


def test_a_second_call_with_the_same_or_a_smaller_k_does_not_search_again() -> None:
    ev = _evaluation()
    ctx = ev.context
    assert ev.search_count == 0
    first = ctx.knn("gower", "S", "T", 3)
    assert ev.search_count == 1
    again = ctx.knn("gower", "S", "T", 3)
    fewer = ctx.knn("gower", "S", "T", 1)
    assert ev.search_count == 1
    np.testing.assert_array_equal(again.idx, first.idx)
    np.testing.assert_array_equal(fewer.dist, first.dist[:, :1])
    np.testing.assert_array_equal(fewer.idx, first.idx[:, :1])
    # a set given by name and by a whole-set reference is the same search
    ctx.knn("gower", ctx.full("S"), ctx.full("T"), 2)
    assert ev.search_count == 1
    # more neighbours than are cached: searched again at the larger k, and the log says so
    more = ctx.knn("gower", "S", "T", 4)
    assert ev.search_count == 2 and ev.searches[-1].k == 4
    np.testing.assert_array_equal(more.idx[:, :3], first.idx)


def test_a_planned_search_runs_once_with_the_largest_planned_k() -> None:
    ev = _evaluation()
    ctx = ev.context
    ev._engine.plan([ctx.request("gower", ctx.S, ctx.T, 1), ctx.request("gower", ctx.S, ctx.T, 3)], owner="doc")
    assert ev.search_count == 0  # planning searches nothing
    assert ctx.cached_table("gower", "S", "T") is None  # and neither does reading the cache
    assert ctx.knn("gower", "S", "T", 1).k == 1
    assert ev.search_count == 1 and ev.searches[0].k == 3
    assert ctx.cached_table("gower", "S", "T").k == 3
    ctx.knn("gower", "S", "T", 3)
    assert ev.search_count == 1


def test_memo_computes_once_and_peek_never_computes() -> None:
    ctx = _evaluation().context
    calls = []

    def step() -> list[int]:
        calls.append(1)
        return [1, 2, 3]

    assert ctx.peek(("test", "step")) is None
    first = ctx.memo(("test", "step"), step)
    second = ctx.memo(("test", "step"), step)
    assert first is second and len(calls) == 1
    assert ctx.peek(("test", "step")) is first
    assert ctx.peek(("test", "other")) is None and len(calls) == 1


def test_the_calibration_context_puts_the_holdout_in_the_synthetic_role_and_shares_the_caches() -> None:
    ev = _evaluation(holdout=True)
    ctx = ev.context
    assert (ctx.T, ctx.S, ctx.H, ctx.is_calibration) == ("T", "S", "H", False)
    calib = ctx.calibration()
    assert isinstance(calib, Context)
    assert (calib.T, calib.S, calib.H, calib.is_calibration) == ("T", "H", None, True)
    # the same search from either context runs once
    table = ctx.knn("gower", "H", "T", 1)
    assert calib.knn("gower", calib.S, calib.T, 1).idx.tolist() == table.idx.tolist() == [[0], [3]]
    assert ev.search_count == 1
    # and a memoised step is shared
    ctx.memo(("test", "shared"), lambda: "from the main context")
    assert calib.peek(("test", "shared")) == "from the main context"
    # without a holdout, H is None
    assert _evaluation().context.H is None


def test_set_refs_are_equal_by_base_tag_and_rows() -> None:
    ctx = _evaluation().context
    a = ctx.subset("T", [0, 2], "half")
    assert a == ctx.subset("T", np.array([0, 2]), "half") and hash(a) == hash(ctx.subset("T", [0, 2], "half"))
    assert a != ctx.subset("T", [0, 2], "other") and a != ctx.subset("T", [0, 3], "half")
    # held in 4 bytes a row; identified by the rows as int64, whatever type holds them
    assert a.rows.dtype == np.int32 and a.key == SetRef("T", np.array([0, 2], dtype=np.int64), "half").key
    assert ctx.full("T") == SetRef("T") and ctx.size("T") == 5 and ctx.size("S") == 3
