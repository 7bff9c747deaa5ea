"""A set's prepared arrays held on the Dask workers, read a block of rows at a time by the calling process.

With a Dask client, an evaluation hands each set's prepared data to the workers while the encoders are fitted:
the numbers as :class:`~synthpriv_report.data.containers.NumericSet` packs them and the canonical order once the fit has
read the numbers (:meth:`synthpriv_report.engine.cache._Engine.hold_numbers`), then each set's fitted category codes as
soon as they are made (:meth:`~synthpriv_report.engine.cache._Engine.hold_codes`). The
calling process keeps the handles, the small tables (each packed column's distinct values, each categorical
column's texts) and the last blocks it read, not the records: every later step that reads records (the rows a
search sends to a worker, the cell words of the identical-record joins) reads the rows it needs, and a step that
needs a whole column reads that column.

Each block is one future of :data:`HELD_BLOCK_BYTES` or so, kept on one worker, with a second copy on another
worker where the cluster has more than one: a worker's death loses neither, and reading falls back to the copy.
Dask cannot make a scattered value again; where every copy of a block is gone (two workers died), reading it raises
:class:`HeldDataLost`, and the evaluation cannot go on without its data: run it again.

Examples
--------
Without a cluster the same classes read arrays held here (:class:`LocalBlocks`), which is how the tests check them
row for row:

>>> import numpy as np
>>> store = HeldSet(LocalBlocks(), {"x": np.arange(10.0), "c": np.arange(20).reshape(10, 2)}, block_rows=3)
>>> x, c = HeldArray(store, "x"), HeldArray(store, "c")
>>> x.shape, x[2:5].tolist(), x[np.array([9, 0])].tolist(), c[4, 1].item(), c[:, 1][-2:].tolist()
((10,), [2.0, 3.0, 4.0], [9.0, 0.0], 9, [17, 19])
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..data.containers import NumericSet

__all__ = ["HeldSet", "HeldArray", "HeldNumericSet", "HeldValue", "HeldDataLost", "LocalBlocks", "Box", "Parking",
           "HELD_BLOCK_BYTES", "HELD_CACHE_BLOCKS", "HELD_PIECE_MIN_BYTES"]

#: About this many bytes of one group of a set's prepared arrays in one block (the numbers and order, or the codes:
#: about 400,000 Adult-like records of 10 bytes of numbers, 500,000 of 8 bytes of codes).
HELD_BLOCK_BYTES = 4 * 2**20
#: A memoised result's arrays of at least this many bytes are kept on the workers in pieces (:class:`HeldValue`).
HELD_PIECE_MIN_BYTES = 2**16
#: Blocks the calling process keeps after reading them (a read of a few rows that crosses a block border, then
#: the next column of the same rows, finds both blocks here).
HELD_CACHE_BLOCKS = 2


class HeldDataLost(RuntimeError):
    """Every copy of a block of a set's prepared data kept on the cluster is gone."""


class LocalBlocks:
    """Blocks held in this process: what :class:`HeldSet` does with a cluster, without one (tests, doctests)."""

    def put(self, value: dict[str, NDArray[Any]], copy: int) -> Any:
        return value

    def get(self, handle: Any) -> dict[str, NDArray[Any]]:
        return handle  # type: ignore[no-any-return]

    def copies(self) -> int:
        return 1


class ClusterBlocks:
    """Blocks held on a Dask cluster's workers, block ``b``'s copies on workers ``b`` and ``b + 1`` (in address
    order, modulo the number of workers)."""

    def __init__(self, client: Any):
        self.client = client
        self.workers = sorted(client.nthreads())  # asked of the scheduler
        self._next = 0

    def copies(self) -> int:
        return min(2, len(self.workers))

    def put(self, value: dict[str, NDArray[Any]], copy: int) -> Any:
        w = self.workers[(self._next + copy) % len(self.workers)]
        if copy == self.copies() - 1:
            self._next += 1
        with self.client.as_current():
            return self.client.scatter(Box(value), workers=[w], hash=False)

    def get(self, handle: Any) -> dict[str, NDArray[Any]]:
        with self.client.as_current():
            return handle.result().value  # type: ignore[no-any-return]


class Box:
    """One value in one future: ``Client.scatter`` would split a dict or tuple into one future per element. A held
    block is scattered in one, and so is each piece of an array of a :class:`HeldValue`."""

    __slots__ = ("value",)

    def __init__(self, value: Any):
        self.value = value

    def __reduce__(self) -> tuple[Any, tuple[Any]]:
        return (Box, (self.value,))


class HeldValue:
    """A plain value (numbers, strings and arrays in tuples, lists and dicts: a memoised step's result) kept on a
    Dask cluster's workers, each of its arrays of at least :data:`HELD_PIECE_MIN_BYTES` cut into pieces of about
    :data:`HELD_BLOCK_BYTES`, one future each (:meth:`synthpriv_report.cluster.distributed.DaskSearcher.hold`).

    The calling process keeps the value's shape with a handle in place of each array cut, and :meth:`read` makes
    each such array whole again from its pieces, one piece after another into the array it fills: reading it holds
    the array and a piece, not the array twice (a value sent in one future is read into a buffer first, then copied
    out of it). Smaller arrays and anything else stay here, as they are.

    Parameters
    ----------
    client : distributed.Client
    value : object
        What to keep; it can be let go once this returns.
    """

    def __init__(self, client: Any, value: Any):
        self.client = client
        with client.as_current():
            self._shape = self._cut(value)

    def _cut(self, value: Any) -> Any:
        def cut(v: Any) -> Any:
            if not (isinstance(v, np.ndarray) and v.nbytes >= HELD_PIECE_MIN_BYTES and v.dtype.kind in "biufcmM"):
                return v
            whole = np.ascontiguousarray(v).reshape(-1)
            step = max(1, HELD_BLOCK_BYTES // whole.itemsize)
            pieces = [(lo, self.client.scatter(Box(whole[lo:lo + step]), hash=False))
                      for lo in range(0, whole.size, step)]
            return _Pieces(v.shape, v.dtype, pieces)

        return _mapped(value, cut)

    def futures(self) -> list[Any]:
        """The futures of every piece kept, array after array."""
        out: list[Any] = []
        _mapped(self._shape, lambda v: out.extend(f for _, f in v.pieces) if isinstance(v, _Pieces) else None)
        return out

    def read(self) -> Any:
        """A fresh copy of the value (its arrays new arrays, equal to those kept)."""
        with self.client.as_current():
            return _mapped(self._shape, _joined)


class _Pieces:
    """An array's place in a :class:`HeldValue`: its shape, type and the futures of its pieces (start, future)."""

    __slots__ = ("shape", "dtype", "pieces")

    def __init__(self, shape: tuple[int, ...], dtype: np.dtype, pieces: list[tuple[int, Any]]):
        self.shape, self.dtype, self.pieces = shape, dtype, pieces


def _mapped(value: Any, leaf: Any) -> Any:
    """``value`` with its dicts, lists and tuples rebuilt and ``leaf`` applied to everything else, in order."""
    if isinstance(value, dict):
        return {k: _mapped(v, leaf) for k, v in value.items()}
    if isinstance(value, list):
        return [_mapped(v, leaf) for v in value]
    if type(value) is tuple:
        return tuple(_mapped(v, leaf) for v in value)
    return leaf(value)


def _joined(value: Any) -> Any:
    """An array made whole from its pieces (anything else as it is)."""
    if not isinstance(value, _Pieces):
        return value
    out = np.empty(value.shape, dtype=value.dtype)
    flat = out.reshape(-1)
    for lo, fut in value.pieces:
        piece = fut.result().value
        flat[lo:lo + piece.shape[0]] = piece
        del piece
    return out


class HeldSet:
    """Arrays of one set (the same number of rows each) held in blocks of contiguous rows.

    Parameters
    ----------
    blocks : ClusterBlocks or LocalBlocks
        Where the blocks are kept.
    fields : mapping
        Name -> array (rows first); each array is read block by block and can be let go once this returns.
    block_rows : int, optional
        Rows per block; by default about :data:`HELD_BLOCK_BYTES` a block.
    """

    def __init__(self, blocks: ClusterBlocks | LocalBlocks, fields: Mapping[str, NDArray[Any]], *,
                 block_rows: int | None = None):
        arrays = {k: np.asarray(v) for k, v in fields.items()}
        sizes = {a.shape[0] for a in arrays.values()}
        if len(sizes) != 1:
            raise ValueError("the arrays of one set must have the same number of rows")
        self.n = sizes.pop()
        self.shapes = {k: a.shape[1:] for k, a in arrays.items()}
        self.dtypes = {k: a.dtype for k, a in arrays.items()}
        self.nbytes = {k: int(a.nbytes) for k, a in arrays.items()}
        row_bytes = max(1, sum(a.itemsize * int(np.prod(a.shape[1:])) for a in arrays.values()))
        self.block_rows = int(block_rows or max(1024, HELD_BLOCK_BYTES // row_bytes))
        self._where = blocks
        self._blocks: list[list[Any]] = []
        for lo in range(0, self.n, self.block_rows):
            part = {k: np.ascontiguousarray(a[lo:lo + self.block_rows]) for k, a in arrays.items()}
            self._blocks.append([blocks.put(part, c) for c in range(blocks.copies())])
            del part
        self._cache: OrderedDict[int, dict[str, NDArray[Any]]] = OrderedDict()
        self._lock = threading.Lock()

    def _block(self, b: int) -> dict[str, NDArray[Any]]:
        with self._lock:
            got = self._cache.get(b)
            if got is not None:
                self._cache.move_to_end(b)
                return got
        errors = []
        for handle in self._blocks[b]:
            try:
                got = self._where.get(handle)
                break
            except Exception as exc:  # noqa: BLE001 - the cluster's own errors (a lost value), named below
                errors.append(f"{type(exc).__name__}: {exc}")
        else:
            raise HeldDataLost(f"rows {b * self.block_rows} to {min(self.n, (b + 1) * self.block_rows) - 1} of a "
                               f"set's prepared data were kept on the Dask cluster and every copy is gone "
                               f"({'; '.join(errors)}): the workers that held them died. Run the evaluation again.")
        with self._lock:
            self._cache[b] = got
            while len(self._cache) > HELD_CACHE_BLOCKS:
                self._cache.popitem(last=False)
        return got

    def read(self, name: str, rows: Any = slice(None)) -> NDArray[Any]:
        """Rows ``rows`` (a slice, positions, a boolean mask or one position, as numpy takes them) of field
        ``name``: a new array, as ``array[rows]`` of the whole array gives it."""
        return self.read_many([name], rows)[name]

    def read_many(self, names: Sequence[str], rows: Any = slice(None)) -> dict[str, NDArray[Any]]:
        """Rows ``rows`` of each field of ``names`` (:meth:`read`), each block fetched once for all of them."""
        if isinstance(rows, (int, np.integer)):
            pos = int(rows) + (self.n if int(rows) < 0 else 0)
            if not 0 <= pos < self.n:
                raise IndexError(f"row {int(rows)} is out of bounds for {self.n} rows")
            b = pos // self.block_rows
            got = self._block(b)
            return {k: got[k][pos - b * self.block_rows].copy() for k in names}
        if isinstance(rows, slice):
            start, stop, step = rows.indices(self.n)
            if step == 1:
                m = max(0, stop - start)
                out = {k: np.empty((m, *self.shapes[k]), dtype=self.dtypes[k]) for k in names}
                at = start
                while at < stop:
                    b = at // self.block_rows
                    lo = b * self.block_rows
                    hi = min(stop, lo + self.block_rows)
                    got = self._block(b)
                    for k in names:
                        out[k][at - start:hi - start] = got[k][at - lo:hi - lo]
                    at = hi
                return out
            pos = np.arange(start, stop, step, dtype=np.int64)
        else:
            key = np.asarray(rows)
            if key.dtype == bool:
                if key.shape != (self.n,):
                    raise IndexError(f"a boolean mask of {key.shape} for {self.n} rows")
                pos = np.flatnonzero(key)
            else:
                if key.size and key.dtype.kind not in "iu":
                    raise IndexError("rows are read by slice, integer positions or a boolean mask")
                pos = key.astype(np.int64, copy=True)
                if pos.size and (pos.min() < -self.n or pos.max() >= self.n):
                    raise IndexError(f"a row position is out of bounds for {self.n} rows")
                pos[pos < 0] += self.n
        flat = pos.reshape(-1)
        out = {k: np.empty((flat.size, *self.shapes[k]), dtype=self.dtypes[k]) for k in names}
        which = flat // self.block_rows
        for b in np.unique(which):
            sel = np.flatnonzero(which == b)
            got = self._block(int(b))
            for k in names:
                out[k][sel] = got[k][flat[sel] - int(b) * self.block_rows]
        return {k: v.reshape(pos.shape + self.shapes[k]) for k, v in out.items()}


class HeldArray:
    """One field of a :class:`HeldSet` (or one column of a two-dimensional field) read like the array it stands
    for: ``held[rows]``, ``held[rows, columns]``, ``shape``, ``dtype``, ``len``, ``astype`` and ``np.asarray``
    (the last two read it whole)."""

    def __init__(self, store: HeldSet, name: str, column: int | None = None):
        self._store, self._name, self._column = store, name, column
        inner = store.shapes[name]
        self.shape: tuple[int, ...] = (store.n,) + (inner if column is None else inner[1:])
        self.dtype = store.dtypes[name]
        self.ndim = len(self.shape)
        self.size = int(np.prod(self.shape))
        self.nbytes = self.size * self.dtype.itemsize

    def __len__(self) -> int:
        return self.shape[0]

    @property
    def block_rows(self) -> int:
        """Rows a block of its set holds: a read of a block's rows of each field (or column) of the set fetches
        that block once (the set keeps the blocks it read last)."""
        return self._store.block_rows

    def column(self, j: int) -> HeldArray:
        """Column ``j`` of a two-dimensional field, read as a one-dimensional array."""
        return HeldArray(self._store, self._name, int(j))

    def __getitem__(self, key: Any) -> NDArray[Any]:
        rows, rest = (key[0], key[1:]) if isinstance(key, tuple) else (key, ())
        out = self._store.read(self._name, rows)
        if self._column is not None:
            out = out[..., self._column]
        if not rest:
            return out
        lead = () if isinstance(rows, (int, np.integer)) else (slice(None),)
        return out[lead + tuple(rest)]

    def __array__(self, dtype: Any = None, copy: Any = None) -> NDArray[Any]:
        out = self[:]
        return out if dtype is None else out.astype(dtype)

    def astype(self, dtype: Any, copy: bool = True) -> NDArray[Any]:
        return np.asarray(self).astype(dtype)

    def tolist(self) -> list[Any]:
        return np.asarray(self).tolist()  # type: ignore[no-any-return]


class HeldNumericSet(NumericSet):
    """A :class:`~synthpriv_report.data.containers.NumericSet` whose packed columns are fields ``num0``, ``num1``, ...
    of a
    :class:`HeldSet`: read as the set it was made from, the same float64 numbers bit for bit, the rows of every
    column it reads fetched together."""

    __slots__ = ("_store",)

    def __init__(self, store: HeldSet, tables: Sequence[NDArray[np.float64] | None]):
        super().__init__([(HeldArray(store, f"num{j}"), t) for j, t in enumerate(tables)], rows=store.n)
        self._store = store

    @property
    def nbytes(self) -> int:
        """Bytes kept on the cluster (one copy) and the tables kept here."""
        return sum(self._store.nbytes[f"num{j}"] + (0 if t is None else t.nbytes)
                   for j, (_, t) in enumerate(self._columns))

    def columns(self, cols: Sequence[int], rows: Any = slice(None)) -> NDArray[np.float64]:
        """Columns ``cols`` of the records ``rows`` as a new C-contiguous float64 array (as
        :meth:`NumericSet.columns`)."""
        m = np.broadcast_to(np.uint8(0), (self._rows,))[rows].shape[0]
        out = np.empty((m, len(cols)))
        parts = self._store.read_many(sorted({f"num{int(j)}" for j in cols}), rows)
        for k, j in enumerate(cols):
            part, table = parts[f"num{int(j)}"], self._columns[int(j)][1]
            out[:, k] = table[part] if table is not None else part.astype(np.float64)
        return out

    def local(self) -> NumericSet:
        """The set read whole into this process, held as :class:`~synthpriv_report.data.containers.NumericSet` holds it
        (each
        block fetched once for every column)."""
        names = [f"num{j}" for j in range(len(self._columns))]
        parts = self._store.read_many(names)
        return NumericSet([(parts[k], t) for k, (_, t) in zip(names, self._columns)], rows=self._rows)

    @classmethod
    def fields_of(cls, numbers: NumericSet) -> tuple[dict[str, NDArray[Any]], list[NDArray[np.float64] | None]]:
        """The fields (``num0``, ...) and tables a :class:`HeldSet` takes to hold ``numbers``."""
        return ({f"num{j}": held for j, (held, _) in enumerate(numbers._columns)},
                [t for _, t in numbers._columns])


class Parking:
    """Hands each set's prepared arrays to a Dask cluster's workers as soon as the preparation has made them, so
    that the calling process holds one set at a time while it prepares the data (:func:`synthpriv_report.data.
    finish`'s ``park``, :func:`synthpriv_report.cluster.partitioned.prepare_partitioned`'s).

    A call parks one set: its packed numbers (with its canonical order where given) as one :class:`HeldSet`, as
    :meth:`synthpriv_report.engine.cache._Engine.hold_numbers` holds them, and its category codes as another, so that
    reading either reads only its own blocks. What it returns reads like what it was given (:class:`HeldNumericSet`
    and :class:`HeldArray`), the same values; the arrays given can be let go once it returns.

    Parameters
    ----------
    blocks : ClusterBlocks or LocalBlocks
        Where the blocks are kept.

    Examples
    --------
    >>> numbers = NumericSet.packed(np.array([[1.0, 0.5], [2.0, np.nan], [1.0, 0.25]]))
    >>> held, codes, order = Parking(LocalBlocks())(numbers, [np.array([0, -1, 1], dtype=np.int8)], np.arange(3))
    >>> np.array_equal(np.asarray(held), np.asarray(numbers), equal_nan=True), codes[0][:].tolist(), order[1:]
    (True, [0, -1, 1], array([1, 2]))
    """

    def __init__(self, blocks: ClusterBlocks | LocalBlocks):
        self.blocks = blocks

    def __call__(self, numbers: NumericSet, codes: Sequence[NDArray[Any]], order: NDArray[Any] | None = None
                 ) -> tuple[HeldNumericSet, list[HeldArray], HeldArray | None]:
        fields, tables = HeldNumericSet.fields_of(numbers)
        if order is not None:
            fields["order"] = order
        store = HeldSet(self.blocks, fields)
        del fields
        held_order = None if order is None else HeldArray(store, "order")
        held_codes: list[HeldArray] = []
        if len(codes):
            code_store = HeldSet(self.blocks, {f"code{j}": c for j, c in enumerate(codes)})
            held_codes = [HeldArray(code_store, f"code{j}") for j in range(len(codes))]
        return HeldNumericSet(store, tables), held_codes, held_order
