"""Tests of synthpriv_report.matching.identity: ids equal exactly when records are identical (docs/metrics.md, "Sets and
columns": numbers as float64 exactly with -0.0 equal to 0.0 and missing equal to missing, categories through their
codes), dense, and exact even when two different records share a hash."""

from __future__ import annotations

import numpy as np
import pytest

from synthpriv_report.matching import identity
from synthpriv_report.matching.identity import record_ids, record_ids_by_columns


def _nan_with_payload(payload: int) -> float:
    return float(np.array([0x7FF8000000000000 | payload], dtype=np.int64).view(np.float64)[0])


def test_hand_made_records() -> None:
    """T: (0, a), (NaN, b), (1, a), (0, a); S: (-0, a), (NaN with another payload, b), (1, b).
    Identical: T0 = T3 = S0; T1 = S1; T2 and S2 stand alone."""
    num = {"T": np.array([[0.0], [np.nan], [1.0], [0.0]]),
           "S": np.array([[-0.0], [_nan_with_payload(0x1234)], [1.0]])}
    cod = {"T": np.array([[0], [1], [0], [0]]), "S": np.array([[0], [1], [1]])}
    assert np.isnan(num["S"][1, 0]) and num["S"][1:2].view(np.int64)[0, 0] != np.array([np.nan]).view(np.int64)[0]
    ids = record_ids(num, cod, ["T", "S"])
    t, s = ids["T"].tolist(), ids["S"].tolist()
    assert t[0] == t[3] == s[0] and t[1] == s[1]
    assert len({t[0], t[1], t[2], s[2]}) == 4
    assert sorted(set(t + s)) == [0, 1, 2, 3]  # dense


def _canonical_rows(num: np.ndarray, cod: np.ndarray) -> list[tuple]:
    out = []
    for r in range(num.shape[0]):
        vals = tuple("nan" if np.isnan(v) else float(v + 0.0) for v in num[r])
        out.append(vals + tuple(int(c) for c in cod[r]))
    return out


def _random_sets(seed: int) -> tuple[dict, dict, list[str]]:
    rng = np.random.default_rng(seed)
    sets = ["T", "S", "H"]
    num, cod = {}, {}
    for i, s in enumerate(sets):
        n = 400 + 37 * i
        x = rng.choice([0.0, -0.0, 1.5, np.nan, 2.25], size=(n, 2))
        c = rng.integers(0, 3, size=(n, 2))
        num[s], cod[s] = x, c
    return num, cod, sets


def _assert_exact(ids: dict, num: dict, cod: dict, sets: list[str]) -> None:
    rows, labels = [], []
    for s in sets:
        rows += _canonical_rows(num[s], cod[s])
        labels += ids[s].tolist()
    by_row: dict = {}
    for row, lab in zip(rows, labels):
        by_row.setdefault(row, set()).add(lab)
    assert all(len(v) == 1 for v in by_row.values())  # identical records share one id
    assert len({next(iter(v)) for v in by_row.values()}) == len(by_row)  # different records never do
    assert sorted(set(labels)) == list(range(len(by_row)))  # dense


def test_ids_equal_exactly_when_records_are_identical() -> None:
    num, cod, sets = _random_sets(3)
    ids = record_ids(num, cod, sets)
    _assert_exact(ids, num, cod, sets)
    _assert_exact(record_ids_by_columns(num, cod, sets), num, cod, sets)


def test_a_hash_shared_by_different_records_falls_back_to_exact_ids(monkeypatch) -> None:
    """Every record given the same hash: the check against each id's first record finds the difference and the
    column-by-column numbering runs; the ids stay exact."""
    num, cod, sets = _random_sets(4)
    calls = []
    real = identity.record_ids_by_columns

    def spy(*a, **kw):
        calls.append(1)
        return real(*a, **kw)

    monkeypatch.setattr(identity, "_row_hashes", lambda bits, codes: np.zeros(bits.shape[0], dtype=np.int64))
    monkeypatch.setattr(identity, "record_ids_by_columns", spy)
    ids = identity.record_ids(num, cod, sets)
    assert calls == [1]
    _assert_exact(ids, num, cod, sets)


@pytest.mark.parametrize("shape", [(0, 2), (5, 0)])
def test_empty_sets_and_no_numeric_columns(shape) -> None:
    n, q = shape
    num = {"T": np.zeros((n, q)), "S": np.zeros((3, q))}
    cod = {"T": np.zeros((n, 1), dtype=np.int64), "S": np.array([[0], [1], [0]])}
    ids = record_ids(num, cod, ["T", "S"])
    assert len(ids["T"]) == n and ids["S"][0] == ids["S"][2] != ids["S"][1]


@pytest.mark.parametrize("collide", [False, True])
def test_canonical_order_reads_a_packed_set_and_code_columns_as_it_reads_whole_arrays(monkeypatch, collide) -> None:
    """A packed set (read a block of rows at a time) and codes given column by column in a narrow type give the
    order the whole float64 array and the (n, c) int64 codes give; with every hash equal (the collision path,
    which orders by the values themselves) too. Either way the records come out in an order of their values
    alone: the same sequence of records from the rows shuffled."""
    from synthpriv_report.data.containers import NumericSet

    if collide:
        monkeypatch.setattr(identity, "_row_hashes", lambda bits, codes: np.zeros(bits.shape[0], dtype=np.int64))
    rng = np.random.default_rng(3)
    n = 60
    num = rng.integers(0, 3, size=(n, 2)).astype(np.float64)
    num[rng.random((n, 2)) < 0.1] = np.nan
    num[rng.random((n, 2)) < 0.1] = -0.0
    codes = rng.integers(-1, 2, size=(n, 2))
    tables = [np.array(["a", "b"], dtype=object), np.array(["x", "y"], dtype=object)]

    def records(nm, cd, order):
        texts = [[tables[j][c] if c >= 0 else None for j, c in enumerate(cd[i])] for i in order]
        bits = [[float(v) + 0.0 if v == v else "nan" for v in nm[i]] for i in order]
        return [tuple(b) + tuple(t) for b, t in zip(bits, texts)]

    whole = identity.canonical_order(num, codes, tables)
    packed = identity.canonical_order(NumericSet.packed(num), [codes[:, j].astype(np.int8) for j in range(2)],
                                      tables)
    assert packed.dtype == np.int32 and packed.tolist() == whole.tolist()  # 4 bytes a position
    assert sorted(whole.tolist()) == list(range(n))
    perm = rng.permutation(n)
    shuffled = identity.canonical_order(NumericSet.packed(num[perm]), [codes[perm, j] for j in range(2)], tables)
    assert records(num[perm], codes[perm], shuffled) == records(num, codes, whole)
    # the sorted hashes, and the rows of pairs under one hash, compared a few at a time: the same order
    for block in (1, 2, 7):
        monkeypatch.setattr(identity, "SORTED_BLOCK", block)
        monkeypatch.setattr(identity, "PAIR_BLOCK", block)
        monkeypatch.setattr(identity, "ORDER_BLOCK", block)
        assert identity.canonical_order(num, codes, tables).tolist() == whole.tolist(), block


@pytest.mark.parametrize("block", [1, 2, 7, 1 << 19])
def test_stable_order_by_ranges_is_one_stable_sort(monkeypatch, block):
    """The hashes sorted a range of values at a time give np.argsort(kind="stable")'s permutation exactly: ties
    (identical records) keep their order as given, the extreme hashes and both signs included."""
    monkeypatch.setattr(identity, "ORDER_BLOCK", block)
    rng = np.random.default_rng(block)
    wide = rng.integers(-2**63, 2**63 - 1, size=300, dtype=np.int64)
    few = rng.integers(-3, 3, size=300).astype(np.int64)
    edges = np.array([-2**63, 2**63 - 1, 0, -1] * 25, dtype=np.int64)
    for h in (wide, few, np.concatenate([wide, few, edges, wide[:40]]), wide[:1], wide[:0]):
        got = identity.stable_order(h, np.int32)
        assert got.dtype == np.int32
        assert got.tolist() == np.argsort(h, kind="stable").tolist()


@pytest.mark.parametrize("block", [1, 2, 3, 1 << 20])
def test_repeated_ids_is_a_count_of_two_or_more(monkeypatch, block):
    """Whether a record's id occurs twice or more, found block by block from two flags per id: the same as a
    count per id, for ids repeated within a block, across blocks, and not at all."""
    monkeypatch.setattr(identity, "REPEAT_BLOCK", block)
    rng = np.random.default_rng(block)
    for ids in (rng.integers(0, 40, size=60), np.arange(9)[::-1], np.array([7, 7]), np.array([0]),
                np.zeros(0, dtype=np.int64), rng.integers(0, 5, size=30).astype(np.int32)):
        got = identity.repeated_ids(ids)
        assert got.dtype == bool and got.shape == ids.shape
        assert got.tolist() == (np.bincount(ids)[ids] >= 2).tolist() if ids.size else got.size == 0
