"""A set's prepared arrays held in blocks (synthpriv_report.cluster.held), read back row for row: every kind of row key
numpy takes, reads that cross block borders, a packed numeric set read through its blocks, and a lost block."""

from __future__ import annotations

import numpy as np
import pytest

from synthpriv_report.cluster.held import HeldArray, HeldDataLost, HeldNumericSet, HeldSet, LocalBlocks
from synthpriv_report.data.containers import NumericSet


def _arrays(n: int, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"x": rng.normal(size=n), "codes": rng.integers(-1, 100, size=(n, 3)).astype(np.int8),
            "order": rng.permutation(n).astype(np.int32)}


ROW_KEYS = [slice(None), slice(0, 0), slice(5, 38), slice(36, 37), slice(None, None, -1), slice(3, 40, 7),
            slice(-9, None), np.array([39, 0, 13, 13, 12]), np.array([], dtype=np.int64), np.array([-1, -40]),
            np.arange(40) % 3 == 0, np.array([[1, 2], [30, 31]]), np.uint8(12), -3, 0]


@pytest.mark.parametrize("block_rows", [1, 7, 13, 40, 100])
def test_every_row_key_reads_what_the_whole_array_gives(block_rows):
    arrays = _arrays(40)
    store = HeldSet(LocalBlocks(), arrays, block_rows=block_rows)
    for name, whole in arrays.items():
        held = HeldArray(store, name)
        assert held.shape == whole.shape and held.dtype == whole.dtype and len(held) == 40
        for key in ROW_KEYS:
            got, want = held[key], whole[key]
            assert got.dtype == want.dtype and np.array_equal(got, want), (name, key)
        assert np.array_equal(np.asarray(held), whole) and np.array_equal(held.astype(np.int64), whole.astype(np.int64))
    codes = HeldArray(store, "codes")
    for key in [(slice(None), 1), (slice(2, 9), [2, 0]), (np.array([4, 1]), slice(1, None)), (5, 2)]:
        assert np.array_equal(codes[key], arrays["codes"][key]), key
    for j in range(3):
        col = codes.column(j)
        assert col.shape == (40,) and np.array_equal(col[3:29], arrays["codes"][3:29, j])
        assert np.array_equal(np.asarray(col), arrays["codes"][:, j])


def test_reads_are_new_arrays_and_never_change_what_is_held():
    arrays = _arrays(20)
    keep = {k: v.copy() for k, v in arrays.items()}
    held = HeldArray(HeldSet(LocalBlocks(), arrays, block_rows=6), "x")
    a = held[2:5]
    a[:] = 99.0
    b = held[np.array([3])]
    b[:] = -1.0
    assert np.array_equal(held[:], keep["x"])


def test_bad_row_keys_are_refused_as_numpy_refuses_them():
    held = HeldArray(HeldSet(LocalBlocks(), _arrays(10), block_rows=4), "x")
    for key in (10, -11, np.array([0, 10]), np.array([-11])):
        with pytest.raises(IndexError):
            held[key]
    with pytest.raises(IndexError, match="mask"):
        held[np.ones(9, dtype=bool)]
    with pytest.raises(IndexError, match="positions"):
        held[np.array([0.5])]
    with pytest.raises(ValueError, match="same number of rows"):
        HeldSet(LocalBlocks(), {"a": np.zeros(3), "b": np.zeros(4)})


@pytest.mark.parametrize("block_rows", [3, 64, 1000])
def test_a_packed_numeric_set_read_through_its_blocks_gives_the_same_numbers_bit_for_bit(block_rows):
    rng = np.random.default_rng(3)
    n = 300
    x = np.column_stack([rng.integers(0, 7, n).astype(float),  # codes into a table of distinct values
                         rng.normal(size=n).astype(np.float32).astype(float),  # float32 numbers
                         rng.normal(size=n)])  # float64
    x[rng.random((n, 3)) < 0.1] = np.nan
    x[0, 2], x[1, 2] = -0.0, np.inf
    local = NumericSet.packed(x)
    fields, tables = HeldNumericSet.fields_of(local)
    held = HeldNumericSet(HeldSet(LocalBlocks(), fields, block_rows=block_rows), tables)
    assert held.shape == local.shape and held.nbytes == local.nbytes
    for rows in (slice(None), slice(10, 250), rng.integers(0, n, 40), rng.random(n) < 0.5, slice(None, None, -2)):
        for cols in ([0, 1, 2], [2, 0], [1], []):
            assert np.array_equal(held.columns(cols, rows).view(np.int64), local.columns(cols, rows).view(np.int64))
        assert np.array_equal(held[rows].view(np.int64), local[rows].view(np.int64))
        assert np.array_equal(held[rows, 1].view(np.int64), local[rows, 1].view(np.int64))
    assert np.array_equal(np.asarray(held).view(np.int64), x.view(np.int64))
    assert np.array_equal(np.asarray(held.take(np.arange(n)[::-1])).view(np.int64), x[::-1].view(np.int64))


class _Forgetful(LocalBlocks):
    """Blocks of which the copies named in ``lost`` cannot be read back (as when their worker died)."""

    def __init__(self, copies: int):
        self.n_copies, self.lost = copies, set()
        self.made = 0

    def copies(self) -> int:
        return self.n_copies

    def put(self, value, copy):
        self.made += 1
        return (self.made, value)

    def get(self, handle):
        if handle[0] in self.lost:
            raise KeyError(f"block {handle[0]} is gone")
        return handle[1]


def test_a_block_whose_first_copy_is_lost_is_read_from_the_second_and_all_lost_is_a_clear_error():
    arrays = _arrays(30)
    where = _Forgetful(copies=2)
    store = HeldSet(where, arrays, block_rows=10)
    assert where.made == 6  # three blocks, two copies each
    where.lost = {1, 3, 5}  # every block's first copy
    assert np.array_equal(HeldArray(store, "x")[:], arrays["x"])
    store._cache.clear()
    where.lost = {3, 4}  # both copies of the second block (rows 10 to 19)
    x = HeldArray(store, "x")
    assert np.array_equal(x[:10], arrays["x"][:10]) and np.array_equal(x[20:], arrays["x"][20:])
    with pytest.raises(HeldDataLost, match=r"rows 10 to 19 .* every copy is gone .*block 3 is gone.*block 4"):
        x[5:15]
