"""Tests of synthpriv_report.identity: ids equal exactly when records are identical (docs/metrics.md, "Sets and
columns": numbers as float64 exactly with -0.0 equal to 0.0 and missing equal to missing, categories through their
codes), dense, and exact even when two different records share a hash."""

from __future__ import annotations

import numpy as np
import pytest

from synthpriv_report import identity
from synthpriv_report.identity import record_ids, record_ids_by_columns


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
