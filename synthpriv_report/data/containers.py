"""The prepared sets: :class:`PreparedData`, its numeric and coded columns, and the dtypes they use.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import NDArray

Kind = Literal["numeric", "categorical"]
SetName = Literal["T", "H", "S", "R"]

#: The sets of real records: what fixes the numeric ranges and is meant by "the real data" in notes (the training
#: records, the holdout and the reference set, where given).
REAL_SETS: tuple[str, ...] = ("T", "H", "R")


#: Marker used for a missing categorical value once values are strings. Chosen so that it cannot collide
#: with a real value (it contains a control character).
MISSING = "\x00<missing>"


@dataclass(frozen=True)
class PreparedData:
    """Aligned, validated data.

    Attributes
    ----------
    columns : tuple of str
        Analysed columns (excluded columns removed), in T's order.
    kinds : dict
        Column name -> ``"numeric"`` or ``"categorical"``.
    numeric : dict
        Set name -> the numeric columns ``(n, n_numeric)``, read as float64 (NaN = missing), held as a
        :class:`NumericSet`.
    categorical : dict
        Set name -> object array ``(n, n_categorical)`` of strings (:data:`MISSING` = missing); in an evaluation,
        once its encoders are fitted, a :class:`CodedSet` read a column at a time (``categorical[s][:, j]``).
    sizes : dict
        Set name -> number of records.
    fingerprints : dict
        Set name -> SHA-256 of the canonical form of the analysed columns.
    excluded : tuple of str
        Columns left out at the caller's request.
    order : dict, optional
        Set name -> the caller's row position of each record (the sets held in a canonical order:
        ``row_order="canonical"``); None where the records are held in the caller's order.
    factorized : dict, optional
        Set name -> per categorical column ``(codes, distinct texts)``: ``categorical[s][:, j]`` is
        ``texts[codes]`` with :data:`MISSING` where the code is -1. Found once by :func:`prepare` so that later
        steps need not number a million strings again; None where the data were built otherwise.
    """

    columns: tuple[str, ...]
    kinds: dict[str, Kind]
    numeric: dict[str, NumericSet]
    categorical: dict[str, NDArray[np.object_]]
    sizes: dict[str, int]
    fingerprints: dict[str, str]
    excluded: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)
    factorized: dict[str, tuple[tuple[NDArray[np.int64], NDArray[np.object_]], ...]] | None = field(
        default=None, compare=False, repr=False)
    order: dict[str, NDArray[np.int64]] | None = field(default=None, compare=False, repr=False)
    precision: dict[str, str] = field(default_factory=dict)

    def caller_rows(self, set_name: str, positions: NDArray[np.integer]) -> NDArray[np.int64]:
        """The caller's row positions (in the frame as passed) of records at ``positions`` of the prepared arrays.

        :func:`prepare` holds every set in a canonical order (:func:`canonical_order`), so that no number depends
        on the order of the rows; views that name rows map them back with this.
        """
        pos = np.asarray(positions, dtype=np.int64)
        return pos.copy() if self.order is None else self.order[set_name][pos].astype(np.int64)

    def prepared_rows(self, set_name: str, rows: NDArray[np.integer]) -> NDArray[np.int64]:
        """The positions in the prepared arrays of the caller's row positions ``rows`` (inverse of
        :meth:`caller_rows`)."""
        r = np.asarray(rows, dtype=np.int64)
        if self.order is None:
            return r.copy()
        order = np.asarray(self.order[set_name])
        inv = np.empty(order.size, dtype=np.int64)
        inv[order] = np.arange(order.size, dtype=np.int64)
        return inv[r]

    @property
    def numeric_columns(self) -> tuple[str, ...]:
        return tuple(c for c in self.columns if self.kinds[c] == "numeric")

    @property
    def categorical_columns(self) -> tuple[str, ...]:
        return tuple(c for c in self.columns if self.kinds[c] == "categorical")

    @property
    def sets(self) -> tuple[str, ...]:
        """Names of the sets present, in the order T, H, S, R (the reference set last, so that every number
        found over the other sets, record ids included, is the same with or without it)."""
        return tuple(s for s in ("T", "H", "S", "R") if s in self.sizes)

    @property
    def has_holdout(self) -> bool:
        return "H" in self.sizes

    @property
    def has_reference(self) -> bool:
        """Whether a reference set was given (``Evaluation(reference=...)``)."""
        return "R" in self.sizes

    def column_values(self, set_name: str, column: str) -> NDArray:
        """Values of one column of one set (float64 for numeric, strings for categorical)."""
        if self.kinds[column] == "numeric":
            return self.numeric[set_name][:, self.numeric_columns.index(column)]
        return self.categorical[set_name][:, self.categorical_columns.index(column)]


class CodedSet:
    """One set's categorical values held as codes into each column's table of texts, read as texts one column at
    a time: ``coded[:, j]`` (or ``coded[rows, j]``) is column ``j``'s texts, equal to the object array
    :func:`prepare` makes from whole frames. Partitioned inputs are prepared this way (codes from the partitions'
    tables, :meth:`of_factorized`), and an evaluation holds every set this way once its encoders are fitted (the
    encoders' codes, which it keeps anyway), so that a million records do not also cost 8 bytes a cell of object
    pointers.

    Examples
    --------
    >>> c = CodedSet(np.array([[1, 0], [0, 0]]), (np.array(["a", "b"], dtype=object), np.array(["x"], dtype=object)))
    >>> c[:, 0].tolist(), c.shape, c.tolist()
    (['b', 'a'], (2, 2), [['b', 'x'], ['a', 'x']])
    >>> f = CodedSet.of_factorized([(np.array([0, -1]), np.array(["a"], dtype=object))])
    >>> f[:, 0].tolist() == ["a", MISSING]
    True
    """

    def __init__(self, codes: NDArray[np.int64] | Sequence[NDArray[np.int64]], levels: Sequence[NDArray[np.object_]],
                 *, rows: int | None = None):
        if isinstance(codes, np.ndarray):
            rows, columns = int(codes.shape[0]), [codes[:, j] for j in range(codes.shape[1])]
        elif hasattr(codes, "column"):  # codes held on a cluster (synthpriv_report.cluster.held.HeldArray)
            rows, columns = int(codes.shape[0]), [codes.column(j) for j in range(codes.shape[1])]
        else:
            columns = list(codes)
            rows = int(columns[0].shape[0]) if columns else int(rows or 0)
        self._rows = rows
        self._columns = columns
        self._levels = [np.asarray(lv, dtype=object) for lv in levels]

    @classmethod
    def of_factorized(cls, columns: Sequence[tuple[NDArray[np.int64], NDArray[np.object_]]], *, rows: int = 0
                      ) -> CodedSet:
        """A set from its per-column ``(codes, distinct texts)`` (code -1: missing, read as :data:`MISSING`);
        ``rows``: the number of records where there is no column."""
        return cls([c for c, _ in columns], [np.append(np.asarray(t, dtype=object), MISSING) for _, t in columns],
                   rows=rows)

    @property
    def shape(self) -> tuple[int, int]:
        return (self._rows, len(self._columns))

    def __len__(self) -> int:
        return self._rows

    def __getitem__(self, key: tuple[Any, int]) -> NDArray[np.object_]:
        if not (isinstance(key, tuple) and len(key) == 2 and isinstance(key[1], (int, np.integer))):
            raise TypeError("a coded set is read one column at a time: coded[rows, j]")
        rows, j = key
        return self._levels[int(j)][self._columns[int(j)][rows]]

    def __array__(self, dtype: Any = None, copy: Any = None) -> NDArray[np.object_]:
        n, c = self.shape
        out = np.empty((n, c), dtype=object)
        for j in range(c):
            out[:, j] = self[:, j]
        return out if dtype is None else out.astype(dtype)

    def tolist(self) -> list[list[str]]:
        return np.asarray(self).tolist()  # type: ignore[no-any-return]


#: A numeric column with at most this many distinct values (by their float64 bits) is held as codes into its
#: table of values (one byte a value up to 256 of them, two up to 65,536).
PACKED_MAX_DISTINCT = 1 << 16


def packed_column(values: NDArray[np.float64]) -> tuple[NDArray[Any], NDArray[np.float64] | None]:
    """One column as :class:`NumericSet` holds it: ``(codes, table)`` where the column has at most
    :data:`PACKED_MAX_DISTINCT` distinct float64 bit patterns, else ``(values, None)`` in float32 where every
    value is a float32 number bit for bit (NaN, -0.0 and infinities included), else in float64."""
    col = np.ascontiguousarray(values, dtype=np.float64)
    bits = col.view(np.uint64)
    head = bits[:2 * PACKED_MAX_DISTINCT]  # more distinct values than that in its first rows: in the whole column
    if pd.unique(head).size <= PACKED_MAX_DISTINCT:
        codes, table = pd.factorize(bits, sort=False)
        if table.size <= PACKED_MAX_DISTINCT:
            dtype = np.uint8 if table.size <= 256 else np.uint16
            return codes.astype(dtype), np.asarray(table, dtype=np.uint64).view(np.float64)
    if float32_exact(col):
        return col.astype(np.float32), None
    return col.copy(), None


def float32_exact(values: NDArray[np.float64]) -> bool:
    """Whether every value is a float32 number bit for bit (NaN, -0.0 and infinities included): how
    :class:`NumericSet` decides to hold a column in float32.

    >>> float32_exact(np.array([0.5, -0.0, np.inf])), float32_exact(np.array([0.1]))
    (True, False)
    """
    col = np.ascontiguousarray(values, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        narrow = col.astype(np.float32)
    return bool(np.array_equal(narrow.astype(np.float64).view(np.uint64), col.view(np.uint64)))


class NumericSet:
    """One set's numeric columns, each held in the narrowest form that gives back its float64 values bit for
    bit: codes into a table of the column's distinct values (a column of ages or counts: one or two bytes a
    value), float32 where every value is a float32 number, else float64. Read like the float64 array ``(n, q)``
    it stands for: ``numbers[rows]`` (rows by slice, positions or mask), ``numbers[rows, j]`` (one column),
    ``numbers[rows, cols]``; every read is a new float64 array. An evaluation holds its prepared numbers this
    way: the six numeric columns of the Adult census data take 11 bytes a record instead of 48 (ages, years of
    education and weekly hours one byte each, capital gains and losses two, the sampling weight a float32).

    Examples
    --------
    >>> x = np.array([[1.0, 0.1], [2.0, np.nan], [1.0, 1e300]])
    >>> p = NumericSet.packed(x)
    >>> p.shape, p[:, 0].tolist(), np.array_equal(np.asarray(p), x, equal_nan=True)
    ((3, 2), [1.0, 2.0, 1.0], True)
    >>> p[np.array([2, 0])].tolist(), p.take(np.array([1, 0, 2]))[0, 0].item()
    ([[1.0, 1e+300], [1.0, 0.1]], 2.0)
    """

    __slots__ = ("_rows", "_columns")
    ndim = 2
    dtype = np.dtype(np.float64)

    def __init__(self, columns: Sequence[tuple[NDArray[Any], NDArray[np.float64] | None]], *, rows: int):
        self._rows = int(rows)
        self._columns = list(columns)

    @classmethod
    def packed(cls, numbers: NDArray[np.float64] | NumericSet) -> NumericSet:
        """``numbers`` (float64, ``(n, q)``) held column by column (:func:`packed_column`)."""
        if isinstance(numbers, NumericSet):
            return numbers
        arr = np.asarray(numbers, dtype=np.float64)
        return cls([packed_column(arr[:, j]) for j in range(arr.shape[1])], rows=arr.shape[0])

    @property
    def shape(self) -> tuple[int, int]:
        return (self._rows, len(self._columns))

    @property
    def nbytes(self) -> int:
        """Bytes held (codes or values, and tables)."""
        return sum(a.nbytes + (0 if t is None else t.nbytes) for a, t in self._columns)

    def __len__(self) -> int:
        return self._rows

    def column(self, j: int, rows: Any = slice(None)) -> NDArray[np.float64]:
        """Column ``j`` (of ``rows``) as a new float64 array."""
        held, table = self._columns[j]
        part = held[rows]
        return table[part] if table is not None else part.astype(np.float64)

    def rows(self, rows: Any = slice(None)) -> NDArray[np.float64]:
        """The records ``rows`` (slice, positions or boolean mask) as a new C-contiguous float64 ``(m, q)``."""
        return self.columns(list(range(len(self._columns))), rows)

    def columns(self, cols: Sequence[int], rows: Any = slice(None)) -> NDArray[np.float64]:
        """Columns ``cols`` of the records ``rows`` as a new C-contiguous float64 array."""
        m = np.broadcast_to(np.uint8(0), (self._rows,))[rows].shape[0]  # as numpy counts rows, for no column too
        out = np.empty((m, len(cols)))
        for k, j in enumerate(cols):
            out[:, k] = self.column(int(j), rows)
        return out

    def take(self, order: NDArray[np.integer]) -> NumericSet:
        """The records in the order ``order`` (positions), held the same way."""
        return NumericSet([(held[order], table) for held, table in self._columns], rows=int(order.shape[0]))

    def reorder(self, order: NDArray[np.integer]) -> None:
        """Put the records in the order ``order`` (a permutation of the positions), in place, a column at a time:
        each column's records in the old order are let go before the next column is read, so that the set is
        held once and one column twice, not the whole set twice (:meth:`take` makes a new set).

        >>> p = NumericSet.packed(np.array([[1.0, 0.5], [2.0, np.nan], [3.0, 0.25]]))
        >>> p.reorder(np.array([2, 0, 1]))
        >>> p[:, 0].tolist(), np.isnan(p[:, 1]).tolist()
        ([3.0, 1.0, 2.0], [False, False, True])
        """
        if order.shape[0] != self._rows:
            raise ValueError(f"an order of {order.shape[0]} positions for {self._rows} records")
        for j, (held, table) in enumerate(self._columns):
            self._columns[j] = (held[order], table)
            del held

    def local(self) -> NumericSet:
        """The set with every column an array of this process: itself where each is (a column read from
        elsewhere, such as a cluster's workers, is read whole).

        >>> p = NumericSet.packed(np.array([[1.0], [2.0]]))
        >>> p.local() is p
        True
        """
        if all(isinstance(held, np.ndarray) for held, _ in self._columns):
            return self
        return NumericSet([(np.asarray(held), table) for held, table in self._columns], rows=self._rows)

    def select(self, cols: Sequence[int]) -> NumericSet:
        """Columns ``cols`` only."""
        return NumericSet([self._columns[int(j)] for j in cols], rows=self._rows)

    def __getitem__(self, key: Any) -> NDArray[np.float64]:
        if isinstance(key, tuple):
            if len(key) != 2:
                raise IndexError("a numeric set is indexed by rows or by (rows, columns)")
            rows, cols = key
            if isinstance(cols, (int, np.integer)):
                return self.column(int(cols), rows)
            picked = (list(range(len(self._columns)))[cols] if isinstance(cols, slice)
                      else np.arange(len(self._columns))[np.asarray(cols)].tolist())
            return self.columns(picked, rows)
        if isinstance(key, (int, np.integer)):
            return self.rows(np.array([int(key)]))[0]
        return self.rows(key)

    def __array__(self, dtype: Any = None, copy: Any = None) -> NDArray[np.float64]:
        out = self.rows()
        return out if dtype is None else out.astype(dtype)

    def tolist(self) -> list[list[float]]:
        return self.rows().tolist()  # type: ignore[no-any-return]


def position_dtype(n: int) -> np.dtype:
    """int32 where positions among ``n`` records (and -1, -2) fit it, else int64: how the evaluation keeps
    per-record positions and ids (4 bytes a record below 2**31 records).

    >>> [str(position_dtype(n)) for n in (0, 2**31 - 1, 2**31)]
    ['int32', 'int32', 'int64']
    """
    return np.dtype(np.int32 if n < 2**31 else np.int64)


def code_dtype(n_levels: int) -> np.dtype:
    """The narrowest signed integer type that holds the codes ``0 .. n_levels - 1`` and ``-1`` (int8 up to 128
    levels): how partitioned inputs, the canonical order and the fitted encoders hold category codes.

    >>> [str(code_dtype(n)) for n in (0, 128, 129, 40_000, 3_000_000_000)]
    ['int8', 'int8', 'int16', 'int32', 'int64']
    """
    for dtype in (np.int8, np.int16, np.int32):
        if n_levels - 1 <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    return np.dtype(np.int64)


def coded_texts(codes: Mapping[str, NDArray[np.int64]], levels: Sequence[NDArray[np.object_]],
                ) -> dict[str, CodedSet]:
    """Per set, its categorical values as a :class:`CodedSet` of ``codes[s]`` into ``levels`` (per column, the
    texts in code order)."""
    return {s: CodedSet(c, levels) for s, c in codes.items()}


#: Numbers (records times numeric columns) the preparation's checks read at a time (8 MB of float64).
CHECK_BLOCK = 1 << 20

def number_blocks(num_arrays: Mapping[str, NDArray[np.float64] | NumericSet], sets: Sequence[str],
                  block: int | None = None) -> Iterator[NDArray[np.float64]]:
    """The numbers of each of ``sets`` as float64 ``(b, q)`` blocks of records, at most ``block`` numbers
    (default :data:`CHECK_BLOCK`; at least one record) a block, none for a set without records or columns: a
    check reads a block of every column at once, not a float64 copy of a whole column and its temporaries, and a
    set kept on a cluster's workers is fetched once, not once a column. Every check folds its blocks into the
    whole columns' conclusions (extremes, all or any)."""
    for s in sets:
        num = num_arrays[s]
        q = num.shape[1]
        step = max(1, (CHECK_BLOCK if block is None else block) // max(1, q))
        for a in range(0, num.shape[0] if q else 0, step):  # no numeric column: nothing to read
            yield np.asarray(num[a:a + step], dtype=np.float64).reshape(-1, q)

def code_blocks(columns: Sequence[Any]) -> Iterator[tuple[int, list[NDArray[Any]]]]:
    """``(start, parts)``: each of ``columns`` (one set's category codes, one array a column) a block of records at
    a time, every column's part of a block together. Columns kept on a cluster's workers that share blocks of
    records (:class:`synthpriv_report.cluster.held.HeldArray`) are read a block of theirs at a time, so that each block
    is
    fetched once for every column, not once a column; arrays here are read :data:`CHECK_BLOCK` records at a time
    (views)."""
    if not columns:
        return
    n = int(columns[0].shape[0])
    step = max(1, int(getattr(columns[0], "block_rows", CHECK_BLOCK)))
    for a in range(0, n, step):
        yield a, [c[a:a + step] for c in columns]

def read_codes(columns: Sequence[Any]) -> list[NDArray[Any]]:
    """Each of ``columns`` (:func:`code_blocks`) as an array of this process: itself where it is one, else read
    whole, a block of records of every column at a time."""
    if all(isinstance(c, np.ndarray) for c in columns):
        return list(columns)
    out = [np.empty(c.shape, dtype=c.dtype) for c in columns]
    for a, parts in code_blocks(columns):
        for o, part in zip(out, parts):
            o[a:a + part.shape[0]] = part
    return out
