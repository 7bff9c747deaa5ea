"""Validate and align the real training (T), holdout (H), synthetic (S) and reference (R) sets once
(docs/metrics.md, "Shared machinery"). The reference set, optional and only beside a holdout, is real records of
the same population that are neither training nor holdout records (the membership attacks' reference data,
``Evaluation(reference=...)``); it goes through every check the holdout goes through, and counts as real data
wherever the holdout does (numeric ranges, notes on constant and identifier-like columns, spellings).

The caller's DataFrames are never modified: every conversion works on copies, and no row is ever dropped. Every
bad input is a ``TypeError`` or ``ValueError`` naming the column, the set and, for a bad value, its 0-based row
position; a value of the real or holdout data is quoted only with ``reveal_real_values=True`` (messages end up
in logs). What is handled rather than refused is listed in :func:`prepare`'s notes.
"""

from __future__ import annotations

import contextvars
import hashlib
import re
import unicodedata
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from .formats import SET_LABELS
from .validation import Options, Setting

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
        elif hasattr(codes, "column"):  # codes held on a cluster (synthpriv_report.held.HeldArray)
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


def _kind_of(series: pd.Series) -> Kind:
    if pd.api.types.is_bool_dtype(series.dtype):
        return "categorical"
    if pd.api.types.is_numeric_dtype(series.dtype) or pd.api.types.is_datetime64_any_dtype(series.dtype):
        return "numeric"
    if isinstance(series.dtype, pd.DatetimeTZDtype) or pd.api.types.is_timedelta64_dtype(series.dtype):
        return "numeric"
    return "categorical"


def _check_frame(df: object, set_name: str) -> pd.DataFrame:
    label = SET_LABELS[set_name]
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"the {label} data must be a pandas DataFrame, got {type(df).__name__}")
    if df.shape[0] == 0:
        raise ValueError(f"the {label} data is empty (0 rows)")
    if df.shape[1] == 0:
        raise ValueError(f"the {label} data has no columns")
    dup = df.columns[df.columns.duplicated()].unique().tolist()
    if dup:
        raise ValueError(f"the {label} data has duplicate column names: {', '.join(map(repr, dup))}")
    bad = [c for c in df.columns if not isinstance(c, str)]
    if bad:
        raise TypeError(f"the {label} data has non-string column names: {bad[:5]!r}; rename them to strings")
    return df


def _is_datetime(series: pd.Series) -> bool:
    return pd.api.types.is_datetime64_any_dtype(series.dtype) or isinstance(series.dtype, pd.DatetimeTZDtype)


#: Longest quoted value in an error message (longer values are cut, with an ellipsis).
_QUOTE_CHARS = 40

#: Position of a partition's first row in its whole set, while that partition is checked on its own
#: (:mod:`synthpriv_report.partitioned`): an error names the row's position in the set, not in the partition.
ROW_OFFSET: contextvars.ContextVar[int] = contextvars.ContextVar("ROW_OFFSET", default=0)


def _where(column: str, set_name: str, positions: NDArray[np.bool_] | NDArray[np.int64], values: pd.Series,
           *, reveal: bool) -> str:
    """Where a bad value sits: its row position and how many there are, plus the value itself only when it may
    be shown (a synthetic value, or a real one with ``reveal_real_values=True``).

    Row positions are 0-based positions in the set as given (never the index label, which may itself be data).
    """
    pos = np.flatnonzero(np.asarray(positions))
    first = int(pos[0])
    text = f"at row {first + ROW_OFFSET.get()} (0-based position)"
    if pos.size > 1:
        text += f" and {pos.size - 1} other row(s)"
    if set_name == "S" or reveal:
        q = repr(values.iloc[first])
        if len(q) > _QUOTE_CHARS:
            q = q[:_QUOTE_CHARS] + "..."
        text += f": {q}"
    else:
        text += " (value withheld; pass reveal_real_values=True to quote it)"
    return text


def _numbers_one_by_one(series: pd.Series, column: str, set_name: str, *, reveal: bool
                        ) -> NDArray[np.float64]:
    """Slow path of :func:`_to_numeric` for an object column that pandas cannot convert as a whole (integers
    beyond the float range, complex numbers, unconvertible objects): convert value by value to name the first
    value that fails."""
    label = SET_LABELS[set_name]
    vals = series.to_numpy(dtype=object)
    out = np.full(len(vals), np.nan)
    bad = np.zeros(len(vals), dtype=bool)
    why = ""
    for i, v in enumerate(vals):
        if v is None or v is pd.NA or v is pd.NaT or (isinstance(v, float) and np.isnan(v)):
            continue
        try:
            if isinstance(v, (complex, np.complexfloating)):
                raise TypeError("complex")
            if isinstance(v, str):
                v = pd.to_numeric(v)
            out[i] = float(v)
        except OverflowError:
            bad[i], why = True, why or "too large for a 64-bit float"
        except (TypeError, ValueError):
            bad[i], why = True, why or "not a real number"
    if bad.any():
        raise ValueError(
            f"column {column!r} is numeric in the real data but has values that are {why} in the {label} data "
            f"{_where(column, set_name, bad, series, reveal=reveal)}"
        )
    return out


def _to_numeric(series: pd.Series, column: str, set_name: str, *, datetime_like: bool = False,
                reveal: bool = False) -> NDArray[np.float64]:
    """Convert one column to float64, with errors that name the column, the set and the row position.

    Datetimes become seconds since the epoch (UTC); when the real column is a datetime, text in another set is
    parsed as a datetime. Text that reads as a missing number (``""``, ``"nan"``) is a missing value. A value is
    quoted in an error only when it is synthetic or ``reveal`` is true.
    """
    label = SET_LABELS[set_name]
    if datetime_like and not _is_datetime(series) and not pd.api.types.is_numeric_dtype(series.dtype):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "could not infer format": parsed element-wise
            parsed = pd.to_datetime(series, errors="coerce", utc=True)
        bad = (parsed.isna() & series.notna()).to_numpy()
        if bad.any():
            raise ValueError(
                f"column {column!r} holds datetimes in the real data but has values that are not datetimes in "
                f"the {label} data {_where(column, set_name, bad, series, reveal=reveal)}"
            )
        series = parsed
    if _is_datetime(series):
        ts = pd.to_datetime(series)
        if getattr(ts.dt, "tz", None) is not None:
            ts = ts.dt.tz_convert("UTC").dt.tz_localize(None)
        vals = ts.astype("datetime64[ns]").to_numpy().astype("int64").astype(np.float64) / 1e9
        vals[ts.isna().to_numpy()] = np.nan
        return vals
    if pd.api.types.is_timedelta64_dtype(series.dtype):
        return series.dt.total_seconds().to_numpy(dtype=np.float64, na_value=np.nan)
    if pd.api.types.is_bool_dtype(series.dtype):
        return series.astype("float64").to_numpy()
    if pd.api.types.is_complex_dtype(series.dtype):
        raise ValueError(
            f"column {column!r} holds complex numbers in the {label} data; a distance needs real numbers: "
            "split it into a real and an imaginary column"
        )
    if pd.api.types.is_numeric_dtype(series.dtype):
        with np.errstate(over="ignore"):  # a longdouble beyond the float64 range becomes inf, reported below
            vals = series.to_numpy(dtype=np.float64, na_value=np.nan)
    else:
        try:
            converted = pd.to_numeric(series, errors="coerce")
        except (OverflowError, TypeError, ValueError):
            converted = None
        if converted is None or not (pd.api.types.is_float_dtype(converted.dtype)
                                     or pd.api.types.is_integer_dtype(converted.dtype)
                                     or pd.api.types.is_bool_dtype(converted.dtype)):
            vals = _numbers_one_by_one(series, column, set_name, reveal=reveal)
        else:
            bad = np.array(converted.isna() & series.notna(), dtype=bool)  # a writable copy
            if bad.any():  # text that reads as a missing number is a missing value
                pos = np.flatnonzero(bad)
                raw = series.to_numpy(dtype=object)[pos]
                bad[pos] = [not (isinstance(v, str) and v.strip().lower() in ("", "nan")) for v in raw]
            if bad.any():
                raise ValueError(
                    f"column {column!r} is numeric in the real data but has non-numeric values in the {label} "
                    f"data {_where(column, set_name, bad, series, reveal=reveal)}"
                )
            vals = converted.to_numpy(dtype=np.float64, na_value=np.nan)
    inf = np.isinf(vals)
    if inf.any():
        raise ValueError(
            f"column {column!r} has infinite value(s) (or values beyond the 64-bit float range) in the {label} "
            f"data {_where(column, set_name, inf, series, reveal=reveal)}; replace them with a finite value or "
            "a missing value"
        )
    return vals


def _as_text(v: object) -> str:
    # an integral float (an integer column read with missing values) reads as the integer: 13.0 -> "13"
    if isinstance(v, (float, np.floating)) and np.isfinite(v) and float(v).is_integer():
        return str(int(v))
    return str(v)


def _as_bool_text(series: pd.Series) -> pd.Series:
    """Values of H or S for a boolean real column: 1/0 and 'true'/'false' (any case) read as True/False."""
    def conv(v: object) -> object:
        if v is None or (isinstance(v, float) and np.isnan(v)):
            return v
        if isinstance(v, (bool, np.bool_)):
            return bool(v)
        if isinstance(v, (int, float, np.integer, np.floating)) and v in (0, 1):
            return bool(v)
        if isinstance(v, str) and v.strip().lower() in ("true", "false"):
            return v.strip().lower() == "true"
        return v

    return series.astype(object).map(conv)


def _to_strings(series: pd.Series) -> NDArray[np.object_]:
    """Categorical values as strings (integral floats written as integers); missing values become
    :data:`MISSING`."""
    return _factorized_strings(series)[0]


def _factorized_strings(series: pd.Series) -> tuple[NDArray[np.object_], NDArray[np.int64], NDArray[np.object_]]:
    """:func:`_to_strings`, with the distinct texts: ``(texts, codes, table)`` where ``table`` holds each distinct
    non-missing text once and ``texts = table[codes]``, :data:`MISSING` where ``codes == -1``. A value that is
    the text :data:`MISSING` itself (refused by :func:`prepare`) is a table entry like any other."""
    missing = series.isna().to_numpy()
    if isinstance(series.dtype, pd.StringDtype) or (
            series.dtype == object and pd.api.types.infer_dtype(series, skipna=True) == "string"):
        # already text: one Python string per distinct value, shared by every cell that holds it (a million
        # cells of a column then cost 8 bytes each, not a string object each)
        codes, uniques = pd.factorize(series)
        table = np.array(list(uniques), dtype=object)
    elif series.dtype != object:
        # one conversion per distinct value (a typed column holds no values that compare equal but print
        # differently, such as True and 1 in an object column)
        codes, uniques = pd.factorize(series)
        table = np.array([_as_text(u) for u in uniques], dtype=object)
        if len(set(table.tolist())) < len(table):  # two values written alike: number the texts instead
            codes, table = _renumber(table, codes)
    else:
        vals = series.to_numpy(dtype=object)
        codes, table = _factorize_texts(np.array([None if m else _as_text(v) for v, m in zip(vals, missing)],
                                                 dtype=object))
    codes = np.asarray(codes, dtype=np.int64)
    lookup = np.empty(len(table) + 1, dtype=object)
    lookup[:-1] = table
    lookup[-1] = MISSING
    out = lookup[codes]  # code -1 (missing) takes the last entry
    return out, codes, table


def _renumber(table: NDArray[np.object_], codes: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.object_]]:
    """Codes over the distinct entries of ``table`` (two entries may hold the same text); -1 stays -1."""
    new_codes, uniques = pd.factorize(table)
    remap = np.append(new_codes.astype(np.int64), -1)  # code -1 takes the last entry
    return remap[np.asarray(codes, dtype=np.int64)], np.array(list(uniques), dtype=object)


def _factorize_texts(texts: NDArray[np.object_]) -> tuple[NDArray[np.int64], NDArray[np.object_]]:
    """``(codes, distinct texts)`` of an array of texts, None (missing) coded -1."""
    codes, uniques = pd.factorize(texts)
    return codes.astype(np.int64), np.array(list(uniques), dtype=object)


def fingerprint(numeric: NDArray[np.float64] | NumericSet, categorical: NDArray[np.object_], columns: Sequence[str],
                kinds: dict[str, Kind],
                factorized: Sequence[tuple[NDArray[np.int64], NDArray[np.object_]]] | None = None) -> str:
    """SHA-256 of a canonical form: column names and kinds, numeric values as float64 bytes (one NaN),
    categorical values as UTF-8 strings, row by row in the given order (:func:`prepare` gives each set in its
    canonical order, unless the rows are kept as given, so that the digest does not depend on the order of the
    rows).

    ``factorized``: per categorical column, ``(codes, distinct texts)`` as :func:`prepare` found them (code -1:
    missing); the same digest, without numbering the strings again.

    >>> len(fingerprint(np.zeros((2, 1)), np.array([["a"], ["b"]], dtype=object), ["x", "y"],
    ...                 {"x": "numeric", "y": "categorical"}))
    64
    """
    h = hashlib.sha256()
    h.update(("\x1f".join(f"{c}:{kinds[c]}" for c in columns)).encode())
    step = 1 << 20  # a million values at a time: the same bytes as the whole array's, in bounded memory
    rows = max(1, step // max(1, numeric.shape[1]))
    for start in range(0, numeric.shape[0], rows):
        num = np.array(numeric[start:start + rows], dtype="<f8", order="C")  # a copy
        num[np.isnan(num)] = np.nan  # one canonical NaN payload
        h.update(num.tobytes())
    # row by row, each value length-prefixed so that no value can imitate a separator; each distinct value is
    # encoded once
    def blob(v: str) -> bytes:
        b = v.encode("utf-8", "surrogatepass")
        return len(b).to_bytes(8, "little") + b

    if factorized is not None and len(factorized) and categorical.shape[0]:
        # one table of every column's texts (and the missing marker last); a cell's entry is its column's
        # offset plus its code
        tables = [t for _, t in factorized]
        offsets = np.concatenate([[0], np.cumsum([len(t) for t in tables])]).astype(np.int64)
        blobs = np.array([blob(v) for t in tables for v in t.tolist()] + [blob(MISSING)], dtype=object)
        rows = max(1, (step >> 2) // len(factorized))  # a quarter of a million cells: their bytes, list and join
        for start in range(0, categorical.shape[0], rows):
            ids = np.column_stack([np.where(c[start:start + rows] < 0, offsets[-1],
                                            c[start:start + rows].astype(np.int64) + o)
                                   for (c, _), o in zip(factorized, offsets[:-1])])
            h.update(b"".join(blobs[ids.ravel()].tolist()))
    else:
        flat = np.asarray(categorical, dtype=object).ravel()
        if flat.size:
            codes, uniques = pd.factorize(flat)
            blobs = np.array([blob(v) for v in uniques], dtype=object)
            for start in range(0, codes.shape[0], step):
                h.update(b"".join(blobs[codes[start:start + step]].tolist()))
    h.update(str(numeric.shape[0]).encode())
    return h.hexdigest()


#: Spellings read as a boolean by :func:`prepare` (compared after stripping spaces and lower-casing).
BOOL_TRUE = frozenset({"true", "t", "yes", "y", "1", "1.0"})
BOOL_FALSE = frozenset({"false", "f", "no", "n", "0", "0.0"})
_MAX_BOOL_SPELLINGS = 64


def _unify_booleans(column: str, texts: dict[str, NDArray[np.object_]],
                    distinct: dict[str, NDArray[np.object_]] | None = None, *, reveal: bool = False) -> str | None:
    """Map a boolean-like column to ``"True"``/``"False"`` in every set when its spellings differ.

    The column is boolean-like when each of its non-missing values in every set is a spelling of a boolean
    (:data:`BOOL_TRUE`, :data:`BOOL_FALSE`, any case); its spellings differ when one boolean is written in more
    than one way (``True`` in the real data, ``yes`` in the synthetic data). Such a column is rewritten in place
    (``texts`` holds this module's own arrays) and a note is returned; otherwise nothing changes. ``distinct``:
    each set's distinct non-missing texts where already known. The note quotes the synthetic spellings, and
    those of the real sets only with ``reveal`` (else it counts them).
    """
    uniques: dict[str, NDArray[np.object_]] = {}
    for s, col in texts.items():
        if distinct is not None:
            uniques[s] = distinct[s]
            continue
        u = pd.unique(col)
        uniques[s] = u[u != MISSING]
    if not _may_be_boolean(uniques):
        return None
    spellings = sorted(set().union(*(set(u.tolist()) for u in uniques.values())))
    if len(spellings) < 2:
        return None
    norm = {v: v.strip().lower() for v in spellings}
    n_true = sum(n in BOOL_TRUE for n in norm.values())
    n_false = len(spellings) - n_true
    if n_true <= 1 and n_false <= 1:
        return None  # one spelling per value: nothing to unify
    to_bool = {v: ("True" if n in BOOL_TRUE else "False") for v, n in norm.items()}
    for col in texts.values():
        codes, u = pd.factorize(col)
        mapped = np.array([to_bool.get(v, MISSING) for v in u] + [MISSING], dtype=object)
        col[:] = mapped[codes]
    by_set = "; ".join(
        f"{SET_LABELS[s]}: {', '.join(map(repr, sorted(set(u.tolist()))))}" if s == "S" or reveal
        else f"{SET_LABELS[s]}: {len(set(u.tolist()))} spelling(s), withheld"
        for s, u in uniques.items() if len(u)
    )
    return (f"column {column!r} spells true/false differently across the sets ({by_set}): every spelling is "
            "read as the boolean True or False")


def _near_miss(name: str, candidates: Sequence[str]) -> str:
    """A hint naming a column that differs from ``name`` only in case, spaces or Unicode normalisation."""
    def key(c: str) -> str:
        return unicodedata.normalize("NFKC", c).strip().casefold()

    k = key(name)
    hits = [c for c in candidates if key(c) == k]
    return f" (did you mean {hits[0]!r}?)" if hits else ""


#: A categorical column with at least this many records, all of whose real values are distinct, is noted as
#: identifier-like.
IDENTIFIER_MIN_RECORDS = 20


def prepare(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    holdout: pd.DataFrame | None = None,
    *,
    reference: pd.DataFrame | None = None,
    numeric: Sequence[str] | None = None,
    categorical: Sequence[str] | None = None,
    exclude: Sequence[str] | None = None,
    reveal_real_values: bool = False,
    kept: Sequence[str] = (),
    row_order: Literal["canonical", "as_given"] = "as_given",
) -> PreparedData:
    """Validate and align T, H and S (docs/metrics.md, "Shared machinery").

    Parameters
    ----------
    real, synthetic : DataFrame
        The real training records T and the synthetic records S.
    holdout : DataFrame, optional
        Real records the generator did not see (H).
    reference : DataFrame, optional
        Real records of the same population that are neither training nor holdout records (R): the membership
        attacks' reference set. Needs a holdout. Checked as the holdout is (the same columns as the real data,
        values of the real data's kinds, no infinity), never modified, no row dropped; it counts as real data
        where the holdout does (numeric ranges, notes).
    numeric, categorical : sequence of str, optional
        Columns whose kind overrides the one inferred from T's dtype.
    exclude : sequence of str, optional
        Columns left out of every metric (identifiers).
    reveal_real_values : bool, default False
        Quote the offending value of the real or holdout data in an error message. By default an error names
        the column, the set and the row position only; synthetic values are always quoted.
    kept : sequence of str, default ()
        Columns kept on purpose although they look like identifiers (``Evaluation(include=...)``): no note
        suggests leaving them out.
    row_order : {"canonical", "as_given"}, default "as_given"
        ``"canonical"`` holds every set in an order that depends on the records' values alone
        (:func:`synthpriv_report.identity.canonical_order`), so that every step that takes records by position
        (the privacy score's halves, subsamples, bootstrap resamples, the lowest position among tied nearest
        records) gives the same numbers whatever the order of the rows; ``"as_given"`` keeps the caller's order
        (positions as the metric definitions write them, to reproduce a computation made on that order).
        :class:`~synthpriv_report.evaluation.Evaluation` asks for ``"canonical"`` unless told otherwise.

    Returns
    -------
    PreparedData

    Raises
    ------
    TypeError
        A set is not a DataFrame, or has non-string column names.
    ValueError
        An empty set, fewer than 2 real records, a reference set without a holdout, duplicate column names, a
        column missing from a set, a numeric column holding text, complex numbers, numbers beyond the 64-bit float
        range or infinities, a categorical value equal to the internal missing marker, a column entirely missing
        in the real data. Each message names the column, the set (the reference set as ``reference=``) and (for a
        bad value) its 0-based row position.

    Notes
    -----
    Handled without an error, and documented here: the caller's DataFrames are never modified and no row is ever
    dropped; the index is ignored (rows are matched by position); the other sets' column order may differ; a missing
    categorical value is its own category and a missing number is NaN; text ``""`` or ``"nan"`` in a numeric column
    is a missing value; categories absent from the real data are ordinary categories (those of a reference set that
    no training record holds are counted in a note naming the column); a column constant in the real data, a column
    entirely missing in S, H or R, and an identifier-like categorical column (all real values distinct) are kept,
    with a note in :attr:`PreparedData.notes`; column names and values may hold any Unicode, control characters
    included (messages quote names with ``repr``).

    Boolean spellings: a categorical column whose non-missing values in every set are spellings of booleans
    (true/false, t/f, yes/no, y/n, 1/0, any case) and that writes one boolean in more than one way (real
    ``True``/``False`` against synthetic ``yes``/``no``) is read as the booleans ``"True"``/``"False"`` in
    every set, with a note; otherwise the spellings would be disjoint categories and every synthetic record
    would differ from every real one. A column with one spelling per value is left as it is.

    >>> T = pd.DataFrame({"age": [30, 40], "sex": ["F", "M"]})
    >>> d = prepare(T, T.copy())
    >>> d.kinds
    {'age': 'numeric', 'sex': 'categorical'}
    >>> d = prepare(T.assign(ok=[True, False]), T.assign(ok=["yes", "no"]))
    >>> d.column_values("S", "ok").tolist()
    ['True', 'False']
    """
    ROW_ORDER.validate(row_order)
    frames = _checked_frames(real, synthetic, holdout, reference)
    _check_same_columns(frames)
    exclude, numeric, categorical = _checked_column_lists(list(frames["T"].columns), exclude=exclude,
                                                          numeric=numeric, categorical=categorical)
    columns = tuple(c for c in frames["T"].columns if c not in exclude)
    if not columns:
        raise ValueError("every column is excluded; at least one column must be analysed")
    kinds = _column_kinds(frames, columns, numeric=numeric, categorical=categorical)
    num_cols = [c for c in columns if kinds[c] == "numeric"]
    cat_cols = [c for c in columns if kinds[c] == "categorical"]
    num_arrays, cat_arrays, factorized = _encode(frames, num_cols, cat_cols, reveal=bool(reveal_real_values))
    return finish(sizes={s: len(df) for s, df in frames.items()}, synthetic_dtypes=frames["S"].dtypes,
                  columns=columns, kinds=kinds, num_arrays=num_arrays, cat_arrays=cat_arrays,
                  factorized=factorized, exclude=exclude, kept=kept, row_order=row_order,
                  reveal_real_values=bool(reveal_real_values))


def finish(*, sizes: dict[str, int], synthetic_dtypes: Any, columns: tuple[str, ...], kinds: dict[str, Kind],
           num_arrays: dict[str, NDArray[np.float64] | NumericSet],
           cat_arrays: dict[str, NDArray[np.object_] | CodedSet], factorized: Factorized, exclude: Sequence[str],
           kept: Sequence[str], row_order: Literal["canonical", "as_given"], park: Park | None = None,
           reveal_real_values: bool = False) -> PreparedData:
    """Phases 6 to 9 of :func:`prepare`, on the encoded sets: boolean spellings, fingerprints, notes, precision,
    canonical order. ``synthetic_dtypes``: the synthetic data's dtype per column (a ``DataFrame.dtypes``).
    ``reveal_real_values``: whether the notes may quote a value of the real or holdout data (by default they
    count such values and say what they are, never quote one).

    ``park``, where given, is handed each set as soon as it is in its canonical order, and what it returns is kept
    in its place (:class:`synthpriv_report.held.Parking`: an evaluation with a Dask client keeps the set on the
    workers, and this process holds one set at a time). The sets may be given parked already (read from where
    they are kept, a block at a time; a set is read whole only to put it in its canonical order).

    The numbers are held as :class:`NumericSet` (each column in the narrowest form that gives back its float64
    values bit for bit), and the canonical order in int32 where a set has fewer than 2**31 records.

    ``num_arrays`` is handed over: it is emptied here, so that each set's numbers in the caller's order are let go
    once the set is held in its canonical order (the caller keeps no second copy of every set meanwhile)."""
    numbers: dict[str, NDArray[np.float64] | NumericSet] = {s: NumericSet.packed(num_arrays.pop(s))
                                                              for s in list(num_arrays)}
    num_cols = [c for c in columns if kinds[c] == "numeric"]
    cat_cols = [c for c in columns if kinds[c] == "categorical"]
    notes = _unify_boolean_columns(list(sizes), cat_cols, cat_arrays, factorized, reveal=reveal_real_values)
    def digest(s: str) -> str:
        return fingerprint(numbers[s], cat_arrays[s], num_cols + cat_cols, kinds, factorized=factorized[s])

    # in the evaluation's row order: with the canonical order (the default), each set's digest is taken once it
    # is in that order (below), so that shuffling a set's rows does not change its fingerprint
    prints = {s: digest(s) for s in sizes} if row_order != "canonical" else {}
    notes += _column_notes(sizes, num_cols, cat_cols, numbers, factorized, kept=kept)
    precision = _synthetic_precision(synthetic_dtypes, list(sizes), num_cols, numbers)
    notes += [f"column {c!r} of the synthetic data is stored at {p} precision: its numbers are compared with the "
              f"real ones at that precision (a real value rounded to {p} is not a new value)"
              for c, p in precision.items()]
    notes += _spelling_notes(cat_cols, factorized, [s for s in REAL_SETS if s in sizes],
                             reveal=reveal_real_values)
    def narrow(o: NDArray[np.integer]) -> NDArray[np.integer]:  # each set's, before the next set's is made
        return o.astype(position_dtype(o.size), copy=False)

    # rows as given: no order is held (None reads as each record at its own position; 4 bytes a record less)
    order: dict[str, Any] | None = None
    if row_order == "canonical":
        order = {}
        for s in sizes:
            order[s] = narrow(_canonicalize(s, numbers, cat_arrays, factorized))
            prints[s] = digest(s)
            if park is not None:  # this set is let go here before the next one is read
                numbers[s], held, order[s] = park(numbers[s], [c for c, _ in factorized[s]],  # type: ignore[arg-type]
                                                  order[s])
                factorized[s] = [(h, t) for h, (_, t) in zip(held, factorized[s])]
                cat_arrays[s] = CodedSet.of_factorized(factorized[s], rows=sizes[s])
                del held
    return PreparedData(
        columns=columns,
        kinds=kinds,
        numeric=numbers,  # type: ignore[arg-type]  # packed above
        categorical=cat_arrays,
        sizes=dict(sizes),
        fingerprints=prints,
        excluded=tuple(exclude),
        notes=tuple(notes),
        factorized={s: tuple(f) for s, f in factorized.items()},
        order=order,
        precision=precision,
    )


# ---------------------------------------------------------------------------------------------------------------
# the phases of prepare()

#: ``row_order=`` of :func:`prepare`.
ROW_ORDER = Setting("row_order", "as_given", Options(("canonical", "as_given")),
                    doc="Hold each set in an order of its values alone, or in the rows' own order.")

#: Per set, per categorical column (in column order): the codes of its values (-1: missing) and its distinct
#: texts, so that later steps read each column's distinct values rather than every string.
Factorized = dict[str, list[tuple[NDArray[np.int64], NDArray[np.object_]]]]

#: What :func:`finish` hands each set to once it is in its canonical order: ``(numbers, codes per categorical
#: column, order) -> (numbers, codes, order)`` read like what was given, kept elsewhere
#: (:class:`synthpriv_report.held.Parking`).
Park = Callable[[NumericSet, list[Any], Any], tuple[NumericSet, list[Any], Any]]


def _checked_frames(real: object, synthetic: object, holdout: object | None,
                    reference: object | None = None) -> dict[str, pd.DataFrame]:
    """Phase 1, the inputs: each set a DataFrame with rows, columns and distinct string column names, at least 2
    real records, and a reference set only beside a holdout. Returns ``{"T": ..., "S": ...[, "H": ...][, "R":
    ...]}``.

    >>> sorted(_checked_frames(pd.DataFrame({"a": [1, 2]}), pd.DataFrame({"a": [3]}), None))
    ['S', 'T']
    """
    if reference is not None and holdout is None:
        raise ValueError(reference_without_holdout())
    frames: dict[str, pd.DataFrame] = {"T": _check_frame(real, "T"), "S": _check_frame(synthetic, "S")}
    if holdout is not None:
        frames["H"] = _check_frame(holdout, "H")
    if reference is not None:
        frames["R"] = _check_frame(reference, "R")
    if len(frames["T"]) < 2:
        raise ValueError(f"the real data needs at least 2 records, got {len(frames['T'])}")
    return frames


def reference_without_holdout() -> str:
    """The message refusing a reference set given without a holdout: the attacks' targets come from the
    holdout."""
    return ("reference= was given without a holdout: the membership attacks take their non-member targets from the "
            "holdout and only their reference data from reference=; pass holdout= too (on the command line "
            "--holdout with --reference)")


def _check_same_columns(frames: dict[str, pd.DataFrame]) -> None:
    """Phase 2, alignment: every set has the real data's columns and no other (in any order; a hint names a
    column that differs only in case, spaces or Unicode form)."""
    t_cols = list(frames["T"].columns)
    for s, df in frames.items():
        if s == "T":
            continue
        missing = [c for c in t_cols if c not in df.columns]
        extra = [c for c in df.columns if c not in t_cols]
        if missing:
            raise ValueError(
                f"column(s) {', '.join(map(repr, missing))} of the real data are missing from the "
                f"{SET_LABELS[s]} data{_near_miss(missing[0], extra)}"
            )
        if extra:
            raise ValueError(
                f"column(s) {', '.join(map(repr, extra))} of the {SET_LABELS[s]} data are not in the real data"
            )


def _checked_column_lists(t_cols: Sequence[str], *, exclude: Sequence[str] | None,
                          numeric: Sequence[str] | None, categorical: Sequence[str] | None
                          ) -> tuple[list[str], list[str], list[str]]:
    """Phase 3, the column arguments: ``exclude``, ``numeric`` and ``categorical`` as lists of the real data's
    columns, no column both numeric and categorical.

    >>> _checked_column_lists(["a", "b"], exclude=None, numeric=["a"], categorical=None)
    ([], ['a'], [])
    """
    for arg_name, cols in (("exclude", exclude), ("numeric", numeric), ("categorical", categorical)):
        if isinstance(cols, str):
            raise TypeError(f"{arg_name}= must be a list of column names, not the string {cols!r}")
    lists = {"exclude": list(exclude or []), "numeric": list(numeric or []), "categorical": list(categorical or [])}
    for arg_name, cols in lists.items():
        unknown = [c for c in cols if c not in t_cols]
        if unknown:
            raise ValueError(f"{arg_name}= names column(s) not in the data: {', '.join(map(repr, unknown))}")
    both = set(lists["numeric"]) & set(lists["categorical"])
    if both:
        raise ValueError(f"column(s) {sorted(both)} are listed as both numeric and categorical")
    return lists["exclude"], lists["numeric"], lists["categorical"]


def _column_kinds(frames: dict[str, pd.DataFrame], columns: Sequence[str], *, numeric: Sequence[str],
                  categorical: Sequence[str]) -> dict[str, Kind]:
    """Phase 4, column kinds: the caller's ``numeric``/``categorical`` first, else the real data's dtype
    (booleans are categorical; numbers, datetimes and durations numeric). A column entirely missing in the real
    data (T and H together) is refused: it has no kind and no distance.

    >>> _column_kinds({"T": pd.DataFrame({"a": [1, 2], "b": [True, False]})}, ["a", "b"], numeric=[],
    ...               categorical=[])
    {'a': 'numeric', 'b': 'categorical'}
    """
    kinds: dict[str, Kind] = {}
    for c in columns:
        if c in numeric:
            kinds[c] = "numeric"
        elif c in categorical:
            kinds[c] = "categorical"
        else:
            kinds[c] = _kind_of(frames["T"][c])
    for c in columns:
        if all(frames[s][c].isna().all() for s in REAL_SETS if s in frames):
            raise all_missing_error(c)
    return kinds


def all_missing_error(column: str) -> ValueError:
    """The error for a column entirely missing in the real data (T, H and R together): it has no kind and no
    distance."""
    return ValueError(f"column {column!r} is entirely missing in the real data; exclude it with "
                      f"exclude=[{column!r}]")


def _encode(frames: dict[str, pd.DataFrame], num_cols: Sequence[str], cat_cols: Sequence[str], *, reveal: bool
            ) -> tuple[dict[str, NDArray[np.float64]], dict[str, NDArray[np.object_]], Factorized]:
    """Phase 5, values: each set's numeric columns as a float64 ``(n, q)`` array (:func:`_to_numeric`), its
    categorical columns as an object ``(n, c)`` array of strings (missing: :data:`MISSING`) with each column
    factorized (:func:`encode_set`)."""
    num_arrays: dict[str, NDArray[np.float64]] = {}
    cat_arrays: dict[str, NDArray[np.object_]] = {}
    factorized: Factorized = {}
    for s, df in frames.items():
        num_arrays[s], cat_arrays[s], factorized[s] = encode_set(df, s, frames["T"], num_cols, cat_cols,
                                                                 reveal=reveal)
    return num_arrays, cat_arrays, factorized


def encode_set(df: pd.DataFrame, s: str, real: pd.DataFrame, num_cols: Sequence[str], cat_cols: Sequence[str], *,
               reveal: bool) -> tuple[NDArray[np.float64], NDArray[np.object_],
                                      list[tuple[NDArray[np.int64], NDArray[np.object_]]]]:
    """The values of one set (or of one partition of it): numbers converted and checked, categories as strings
    and factorized. ``real`` supplies the real data's dtypes only (an empty frame will do): a datetime real
    column parses text in the other sets as datetimes, a boolean one reads 1/0 and true/false as booleans. A value
    equal to the missing marker is refused (never quoted: it is the marker itself)."""
    n = len(df)
    num = np.empty((n, len(num_cols)), dtype=np.float64)
    for j, c in enumerate(num_cols):
        num[:, j] = _to_numeric(df[c], c, s, datetime_like=_is_datetime(real[c]), reveal=reveal)
    cat = np.empty((n, len(cat_cols)), dtype=object)
    fact = []
    for j, c in enumerate(cat_cols):
        col = df[c]
        if s != "T" and pd.api.types.is_bool_dtype(real[c].dtype):
            col = _as_bool_text(col)
        texts, codes, table = _factorized_strings(col)
        if any(v == MISSING for v in table.tolist()):
            clash = (texts == MISSING) & ~col.isna().to_numpy()
            raise ValueError(
                f"column {c!r} holds the text reserved for missing values ({MISSING!r}) in the "
                f"{SET_LABELS[s]} data {_where(c, s, clash, col, reveal=False)}; rename that value"
            )
        cat[:, j] = texts
        fact.append((codes, table))
    return num, cat, fact


def _unify_boolean_columns(sets: Sequence[str], cat_cols: Sequence[str],
                           cat_arrays: dict[str, NDArray[np.object_] | CodedSet], factorized: Factorized, *,
                           reveal: bool = False) -> list[str]:
    """Phase 6, boolean spellings: each categorical column that spells true/false differently across the sets is
    rewritten as ``"True"``/``"False"`` (:func:`_unify_booleans`) and factorized again; one note each. An object
    array is rewritten in place; a :class:`CodedSet` is read from the new codes (``cat_arrays[s]`` is replaced)."""
    notes = []
    rewritten = False
    for j, c in enumerate(cat_cols):
        tables = {s: factorized[s][j][1] for s in sets}
        if not _may_be_boolean(tables):
            continue
        # a column slice of a C-ordered object array is a view (rewritten in place); a coded set's is a new array
        texts = {s: cat_arrays[s][:, j] for s in sets}
        note = _unify_booleans(c, texts, tables, reveal=reveal)
        if note is not None:
            notes.append(note)
            rewritten = True
            for s in sets:
                col = texts[s]
                factorized[s][j] = _factorize_texts(np.where(col == MISSING, None, col))
    if rewritten:
        for s in sets:
            if isinstance(cat_arrays[s], CodedSet):
                cat_arrays[s] = CodedSet.of_factorized(factorized[s], rows=len(cat_arrays[s]))
    return notes


def _may_be_boolean(tables: Mapping[str, NDArray[np.object_]]) -> bool:
    """Whether a column whose sets hold the distinct texts ``tables`` can be one :func:`_unify_booleans` rewrites
    (every text a boolean spelling, not too many): read from the tables alone, before any record's text."""
    if any(len(t) > _MAX_BOOL_SPELLINGS for t in tables.values()):
        return False  # far too many distinct values to be a boolean: skip the per-value check
    spellings = BOOL_TRUE | BOOL_FALSE
    return all(v == MISSING or v.strip().lower() in spellings for t in tables.values() for v in t.tolist())


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
    records (:class:`synthpriv_report.held.HeldArray`) are read a block of theirs at a time, so that each block is
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


def _column_notes(sizes: dict[str, int], num_cols: Sequence[str], cat_cols: Sequence[str],
                  num_arrays: Mapping[str, NDArray[np.float64] | NumericSet], factorized: Factorized, *,
                  kept: Sequence[str]) -> list[str]:
    """Phase 7, notes on columns kept as they are: constant in the real data, a different value in every real
    record (unless ``kept``), entirely missing in the synthetic, holdout or reference data, categories of the
    reference set that no training record holds."""
    notes = []
    real_sets = [s for s in REAL_SETS if s in sizes]
    q = len(num_cols)
    lo, hi = [np.inf] * q, [-np.inf] * q
    seen = [False] * q  # a real value (not missing) in the column
    for v in number_blocks(num_arrays, real_sets):
        for j in range(q):
            if not np.isnan(v[:, j]).all():
                seen[j] = True
                lo[j], hi[j] = min(lo[j], float(np.nanmin(v[:, j]))), max(hi[j], float(np.nanmax(v[:, j])))
    for j, c in enumerate(num_cols):
        if seen[j] and lo[j] == hi[j]:
            notes.append(f"column {c!r} is constant in the real data: its range is treated as 1, so a difference in "
                         "it counts in full")
    # each set's category codes read a block of records at a time, every column at once: which columns have a
    # missing value (code -1) somewhere, which have nothing else
    any_missing = {s: np.zeros(len(cat_cols), dtype=bool) for s in sizes}
    all_missing = {s: np.ones(len(cat_cols), dtype=bool) for s in sizes}
    for s in sizes:
        for _, parts in code_blocks([codes for codes, _ in factorized[s]]):
            for j, part in enumerate(parts):
                gone = part < 0
                any_missing[s][j] |= bool(gone.any())
                all_missing[s][j] &= bool(gone.all())
    for j, c in enumerate(cat_cols):
        distinct = set().union(*(factorized[s][j][1].tolist() for s in real_sets))
        if any(any_missing[s][j] for s in real_sets):
            distinct.add(MISSING)
        n_distinct = len(distinct)
        n_real = sum(sizes[s] for s in real_sets)
        if n_distinct == 1:
            notes.append(f"column {c!r} is constant in the real data: it only separates records of S that differ")
        elif n_distinct == n_real >= IDENTIFIER_MIN_RECORDS and c not in kept:
            notes.append(f"column {c!r} has a different value in every real record: it looks like an identifier, "
                         f"which sets every record apart; consider exclude=[{c!r}]")
    for s in sizes:
        if s == "T":
            continue
        missing = np.ones(q, dtype=bool)
        for v in number_blocks(num_arrays, [s]):
            missing &= np.isnan(v).all(axis=0)
        for j, c in enumerate(num_cols):
            if num_arrays[s].shape[0] and missing[j]:
                notes.append(f"column {c!r} is entirely missing in the {SET_LABELS[s]} data")
        for j, c in enumerate(cat_cols):
            if sizes[s] and all_missing[s][j]:
                notes.append(f"column {c!r} is entirely missing in the {SET_LABELS[s]} data")
    if "R" in sizes:  # the reference set's categories that no training record holds (counted, never quoted)
        for j, c in enumerate(cat_cols):
            seen = set(factorized["T"][j][1].tolist())
            unseen = sum(v not in seen for v in factorized["R"][j][1].tolist())
            if unseen:
                notes.append(f"column {c!r}: {unseen} value(s) of the {SET_LABELS['R']} data appear in no training "
                             f"record; each is a category of its own (a reference record that holds one differs "
                             f"from every training record in this column)")
    return notes


def _canonicalize(s: str, num_arrays: dict[str, NDArray[np.float64] | NumericSet],
                  cat_arrays: dict[str, NDArray[np.object_] | CodedSet],
                  factorized: dict[str, list[tuple[NDArray[np.int64], NDArray[np.object_]]]]) -> NDArray[np.integer]:
    """Put set ``s`` in its canonical order (:func:`synthpriv_report.identity.canonical_order`), in place in the
    three dicts, and number each categorical column's texts in order of first appearance in that order (codes in
    the narrowest integer type that holds them, :func:`code_dtype`); returns the order (canonical position ->
    caller's row, in :func:`position_dtype`). A column in the old order is let go as soon as it is reordered
    (the packed numbers are reordered in place, the list ``factorized[s]`` emptied as its codes are renumbered),
    so that the set is never held twice."""
    from .identity import canonical_order

    # a set kept elsewhere (parked on a cluster's workers) is read whole here, and let go there
    cols = factorized[s] = list(zip(read_codes([c for c, _ in factorized[s]]), [t for _, t in factorized[s]]))
    # (emptied below, a column at a time)
    if isinstance(num_arrays[s], NumericSet):
        num_arrays[s] = num_arrays[s].local()  # type: ignore[union-attr]
    num = num_arrays[s]
    # read a block of rows at a time: no float64 copy of the numbers, no (n, c) array of the codes
    order = canonical_order(num, [c for c, _ in cols], [t for _, t in cols])
    order = order.astype(position_dtype(order.size), copy=False)  # int32 below 2**31 records, before it is used
    if isinstance(num, NumericSet):
        num.reorder(order)  # a column at a time, in place: the set is not held twice
    else:
        num_arrays[s] = np.ascontiguousarray(num[order])
    del num
    coded = isinstance(cat_arrays[s], CodedSet)
    if coded:
        cat_arrays[s] = None  # type: ignore[assignment]  # its codes are those of cols: made again below
    else:
        cat_arrays[s] = np.ascontiguousarray(np.asarray(cat_arrays[s])[order])
    renumbered = []
    for j in range(len(cols)):
        codes_j, table = cols[j]
        cols[j] = None  # type: ignore[call-overload]  # the column's codes in the old order go once renumbered
        cj = codes_j[order]
        del codes_j
        seen = _first_appearances(cj, len(table))
        remap = np.full(len(table) + 1, -1, dtype=code_dtype(len(table)))  # code -1 takes the last entry
        remap[seen] = np.arange(seen.size)
        renumbered.append((remap[cj], np.asarray(table, dtype=object)[seen]))
        del cj
    factorized[s] = renumbered
    if coded:
        cat_arrays[s] = CodedSet.of_factorized(renumbered, rows=int(order.size))
    return order


def _first_appearances(codes: NDArray[np.integer], n_codes: int, block: int = 1 << 20) -> NDArray[np.integer]:
    """The codes (0 to ``n_codes - 1``; -1, missing, left out) that occur in ``codes``, in order of first
    appearance: ``pd.unique(codes[codes >= 0])``, found a block of ``block`` records at a time (pandas' unique
    makes an 8-byte copy of what it is given).

    >>> _first_appearances(np.array([2, -1, 0, 2, 1, 0]), 3, block=2).tolist()
    [2, 0, 1]
    """
    seen = np.zeros(n_codes, dtype=bool)
    found = []
    for a in range(0, codes.shape[0], block):
        part = codes[a:a + block]
        new = pd.unique(part[part >= 0])
        new = new[~seen[new]]
        seen[new] = True
        found.append(new)
    return np.concatenate(found) if found else codes[:0]


def _synthetic_precision(synthetic_dtypes: Any, sets: Sequence[str], num_cols: Sequence[str],
                         num_arrays: Mapping[str, NDArray[np.float64] | NumericSet]) -> dict[str, str]:
    """Numeric columns that the synthetic data holds at a lower precision than float64: stored as float32 or
    float16, or written with float64 values that are all float32 numbers while the real values are not (as a
    generator that computes in float32 writes them). Numbers are then judged equal at that precision."""
    out: dict[str, str] = {}
    real_sets = [s for s in REAL_SETS if s in sets]
    stored = {c: np.dtype(synthetic_dtypes[c]).name for c in num_cols
              if pd.api.types.is_float_dtype(synthetic_dtypes[c]) and np.dtype(synthetic_dtypes[c]).itemsize < 8}
    judged = [j for j, c in enumerate(num_cols) if c not in stored]
    # read a block of records at a time: the finite values of each block, with the whole columns' conclusions
    fraction = dict.fromkeys(judged, False)  # a synthetic value with a fraction
    single = dict.fromkeys(judged, True)  # every synthetic value a float32 number
    real_single = dict.fromkeys(judged, True)  # every real value a float32 number
    with np.errstate(over="ignore"):
        for v in number_blocks(num_arrays, ["S"]):
            for j in judged:
                x = v[:, j][np.isfinite(v[:, j])]
                fraction[j] = fraction[j] or not (x == np.round(x)).all()
                single[j] = single[j] and bool((x.astype(np.float32).astype(np.float64) == x).all())
        # no fractions: whole numbers (below 2**24) are the same at every precision
        asked = [j for j in judged if fraction[j] and single[j]]
        for v in number_blocks(num_arrays, real_sets) if asked else ():
            for j in asked:
                x = v[:, j][np.isfinite(v[:, j])]
                real_single[j] = real_single[j] and bool((x.astype(np.float32).astype(np.float64) == x).all())
    for j, c in enumerate(num_cols):  # in column order
        if c in stored:
            out[c] = stored[c]
        elif j in asked and not real_single[j]:
            out[c] = "float32"  # the real values are not all float32 numbers (a column without any: none)
    return out


def _spelling_key(text: str) -> str:
    return unicodedata.normalize("NFKC", text).strip().rstrip(".").strip().casefold()


def _spelling_notes(cat_cols: Sequence[str], factorized: dict[str, list[tuple[NDArray[np.int64],
                    NDArray[np.object_]]]], real_sets: Sequence[str], *, reveal: bool = False) -> list[str]:
    """Notes on synthetic categorical values that are no real value but differ from one only by case,
    surrounding spaces, Unicode form or a trailing dot, and on synthetic columns that share no value with the
    real column. Such a re-spelled value spells out a real one: it is quoted only with ``reveal`` (else counted
    and described); a synthetic value that re-spells no real value may be quoted."""
    notes = []
    for j, c in enumerate(cat_cols):
        real = set().union(*(factorized[s][j][1].tolist() for s in real_sets))
        syn = [v for v in factorized["S"][j][1].tolist()]
        if not syn or not real:
            continue
        unseen = [v for v in syn if v not in real]
        keys = {_spelling_key(v) for v in real}
        if len(unseen) == len(syn):
            shown = unseen if reveal else [v for v in unseen if _spelling_key(v) not in keys]
            example = (f" (for example {shown[0]!r})" if shown else
                       f" (its {len(unseen)} value(s) differ from real values only by case, surrounding spaces, "
                       f"Unicode form or a trailing dot: withheld, as they spell out real values)")
            notes.append(f"column {c!r}: the synthetic data shares no value with the real data{example}, so every "
                         f"synthetic record differs from every real one in it; check that the column holds the same "
                         f"thing in both")
            continue
        respelled = [v for v in unseen if _spelling_key(v) in keys]
        if respelled:
            example = (f"for example {respelled[0]!r}" if reveal else
                       "values withheld: each spells out a real value; pass reveal_real_values=True to quote one")
            notes.append(f"column {c!r}: {len(respelled)} synthetic value(s) differ from a real value only by "
                         f"case, surrounding spaces, Unicode form or a trailing dot ({example}); they count as "
                         f"different values, so records that carry them are counted as near copies, not exact "
                         f"copies")
    return notes


# ---------------------------------------------------------------------------------------------------------------
# identifier-like columns (used by Evaluation to leave them out by default)

#: Fewer non-missing real values than this and no column is taken for an identifier: too few to tell.
IDENTIFIER_MIN_VALUES = 20
#: "Nearly all distinct": at most one value in this many may repeat an earlier one (below this many values,
#: every value must be distinct).
IDENTIFIER_REPEAT_ONE_IN = 100
#: A whole-number column counts as numbered like a running count when its span (max - min + 1) is at most this
#: many times its number of distinct values: near-consecutive (a running count, or what is left of it after a
#: split that keeps four records in five) ...
IDENTIFIER_SPAN_FACTOR = 1.25
#: ... or, with at least this many distinct values, at most :data:`IDENTIFIER_WIDE_SPAN_FACTOR` times (a split that
#: keeps half the records): so many distinct whole numbers packed so tightly are no measurement. Below it, 30
#: distinct ages among 53 possible values are a small sample of ages, not record numbers.
IDENTIFIER_WIDE_MIN_DISTINCT = 100
IDENTIFIER_WIDE_SPAN_FACTOR = 2
#: Distinct values checked against the code-like pattern (a sample; the share below must match).
_CODE_SAMPLE = 2000
_CODE_SHARE = 0.95

_IDENTIFIER_NAME = re.compile(
    r"(?:^|[^a-z0-9])(?:id|ids|uuid|guid|key|record|rec|row|index|idx|nr|no|num|number|serial|code)(?:$|[^a-z0-9])"
    r"|[a-z0-9](?:Id|ID|Uuid|UUID|Nr|No|Num|Number|Key|Code)$"
)
_UUID = re.compile(r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$")
_CODE = re.compile(r"^[^\s]{1,64}$")
_DIGIT = re.compile(r"[0-9]")
_DECIMAL_OR_DATE = re.compile(r"^[+-]?(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?$"
                              r"|^\d{4}-\d{2}-\d{2}|^\d{1,2}[/.]\d{1,2}[/.]\d{2,4}")


def _name_says_identifier(column: str) -> bool:
    """Whether a column's name reads like an identifier's (``id``, ``patient_id``, ``recordNo``, ``uuid``...)."""
    return bool(_IDENTIFIER_NAME.search(column.lower()) or _IDENTIFIER_NAME.search(column))


def _nearly_all_distinct(n_values: int, n_distinct: int) -> bool:
    """The "nearly all distinct" rule: at least :data:`IDENTIFIER_MIN_VALUES` values, and at most one in
    :data:`IDENTIFIER_REPEAT_ONE_IN` repeating an earlier one (so, below 100 values, every value distinct).

    >>> _nearly_all_distinct(20, 20), _nearly_all_distinct(99, 98), _nearly_all_distinct(1000, 990)
    (True, False, True)
    >>> _nearly_all_distinct(19, 19), _nearly_all_distinct(1000, 989)
    (False, False)
    """
    if n_values < IDENTIFIER_MIN_VALUES:
        return False
    return n_values - n_distinct <= n_values // IDENTIFIER_REPEAT_ONE_IN


def _is_code(value: str) -> bool:
    return bool(_UUID.match(value) or (_CODE.match(value) and _DIGIT.search(value)
                                       and not _DECIMAL_OR_DATE.match(value)))


def identifier_reason(series: pd.Series, column: str) -> str | None:
    """Why a real column looks like an identifier, in plain words, or None when it does not.

    The rule, applied to the non-missing values of the real training data:

    1. *Nearly all distinct*: at least 20 values, and at most one in 100 repeats an earlier value (with fewer
       than 100 values, all distinct). Fewer than 20 values are too few to tell: never an identifier.
    2. And one of:

       - *whole numbers numbered like a record count*: every value is a whole number (an integer column, or a
         float column without fractions) and the values are packed like a running number, or they run in
         increasing or decreasing order down the file, or the column's
         name reads like an identifier's (``id``, ``patient_id``, ``recordNo``, ``uuid``, ...). Packed means
         near-consecutive: the span from the smallest to the largest value is at most 1.25 times the number of
         distinct values (1, 2, 3, ... or what is left of it after a split keeping four records in five), or at
         most twice that number when there are at least 100 distinct values. A small sample of a measurement
         (30 distinct ages between 17 and 69) is not packed enough;
       - *code-like text*: at least 95% of the distinct texts (a sample of 2,000) are UUIDs or single tokens
         with a digit and no spaces (``ID-000123``, ``A77F3``, ``000123``), excluding decimal numbers and
         dates written as text.

    A measurement is never taken for an identifier: numbers with fractions, dates, booleans and times are
    skipped, and whole numbers spread far apart in no order (Adult's ``fnlwgt``: 21,648 distinct values in
    32,561 records, all distinct in small samples) do not pass step 2 unless their name says "id".

    Parameters
    ----------
    series : Series
        The column of the real training data, as given.
    column : str
        Its name.

    Returns
    -------
    str or None
        The reason (e.g. ``"a different whole number in every real record, numbered like a running count"``).

    >>> identifier_reason(pd.Series(range(1, 31)), "n")
    'a different whole number in every real record, numbered like a running count'
    >>> identifier_reason(pd.Series([f"ID-{i:06d}" for i in range(30)]), "ref")
    'a different code (such as ID-000123 or a UUID) in every real record'
    >>> identifier_reason(pd.Series(np.arange(30) * 1000.5), "weight") is None
    True
    """
    dtype = series.dtype
    if (pd.api.types.is_bool_dtype(dtype) or _is_datetime(series) or pd.api.types.is_timedelta64_dtype(dtype)
            or pd.api.types.is_complex_dtype(dtype)):
        return None
    n = int(series.count())
    if n < IDENTIFIER_MIN_VALUES:
        return None
    allowed = n // IDENTIFIER_REPEAT_ONE_IN  # repeats the rule tolerates
    # a sound shortcut: repeats among the first values are repeats of the whole column, so a column of few
    # distinct values is refused after reading a prefix
    head = series.iloc[:3 * allowed + 1000].dropna()
    if len(head) - head.nunique() > allowed:
        return None
    values = series.dropna()
    if pd.api.types.is_numeric_dtype(dtype):
        with np.errstate(invalid="ignore", over="ignore"):
            arr = values.to_numpy(dtype=np.float64, na_value=np.nan)
        return numeric_identifier_reason(arr, column, integer=pd.api.types.is_integer_dtype(dtype))
    # text (object, string or categorical columns)
    return text_identifier_reason(pd.unique(values.to_numpy(dtype=object)), n)


def numeric_identifier_reason(arr: NDArray[np.float64], column: str, *, integer: bool) -> str | None:
    """:func:`identifier_reason` for the non-missing values of a numeric column, in the order of the rows
    (``integer``: the column's dtype is an integer one)."""
    n = int(arr.shape[0])
    if n < IDENTIFIER_MIN_VALUES:
        return None
    if not np.isfinite(arr).all() or not (integer or (arr == np.round(arr)).all()):
        return None
    n_distinct = int(pd.unique(arr).size)
    if not _nearly_all_distinct(n, n_distinct):
        return None
    every = "every" if n_distinct == n else "nearly every"
    span = float(arr.max() - arr.min()) + 1.0
    if span <= IDENTIFIER_SPAN_FACTOR * n_distinct or (
            n_distinct >= IDENTIFIER_WIDE_MIN_DISTINCT and span <= IDENTIFIER_WIDE_SPAN_FACTOR * n_distinct):
        return f"a different whole number in {every} real record, numbered like a running count"
    step = np.diff(arr)
    if (step >= 0).all() or (step <= 0).all():
        return f"a different whole number in {every} real record, in order down the file like a record number"
    if _name_says_identifier(column):
        return f"a different whole number in {every} real record, and a name that reads like an identifier"
    return None


def text_identifier_reason(uniq: NDArray[np.object_], n: int) -> str | None:
    """:func:`identifier_reason` for a text column from its distinct non-missing values (in order of first
    appearance) and its number ``n`` of non-missing values."""
    if n < IDENTIFIER_MIN_VALUES or not _nearly_all_distinct(n, len(uniq)):
        return None
    sample = uniq[:_CODE_SAMPLE]
    share = sum(isinstance(v, str) and _is_code(v) for v in sample) / len(sample)
    if share < _CODE_SHARE:
        return None
    every = "every" if len(uniq) == n else "nearly every"
    return f"a different code (such as ID-000123 or a UUID) in {every} real record"


def check_include_exclude(include: Sequence[str], exclude: Sequence[str]) -> None:
    """A column is either left out (``exclude=``) or kept (``include=``), never both."""
    both = [c for c in include if c in exclude]
    if both:
        raise ValueError(f"column(s) {', '.join(map(repr, both))} are named by both exclude= and include=; "
                         "a column is either left out or kept")


def split_identifiers(found: dict[str, str], candidates: Sequence[str], include: Sequence[str],
                      requested: set[str], *, stacklevel: int) -> tuple[dict[str, str], dict[str, str]]:
    """Identifier-like columns (``found``: column -> reason) left out, and those kept because ``include`` names
    them: ``(auto, kept)``. Each column left out is announced with a ``UserWarning`` (at ``stacklevel``); every
    candidate column looking like an identifier, none named by the caller (``requested``), is an error."""
    kept = {c: r for c, r in found.items() if c in include}
    auto = {c: r for c, r in found.items() if c not in include}
    if auto and len(auto) == len(candidates) and not requested:
        raise ValueError(f"every column looks like an identifier ({', '.join(map(repr, auto))}); keep the ones "
                         f"to analyse with include=[...]")
    for c, reason in auto.items():
        warnings.warn(f"column {c!r} looks like an identifier ({reason}) and is left out of every metric; keep it "
                      f"with include=[{c!r}]", UserWarning, stacklevel=stacklevel + 1)
    return auto, kept


def identifier_columns(real: pd.DataFrame, columns: Sequence[str]) -> dict[str, str]:
    """The columns among ``columns`` of the real training data that look like identifiers, with the reason.

    See :func:`identifier_reason` for the rule. The frame is only read.

    >>> T = pd.DataFrame({"row": range(50), "age": [30, 40] * 25})
    >>> identifier_columns(T, ["row", "age"])
    {'row': 'a different whole number in every real record, numbered like a running count'}
    """
    out = {}
    for c in columns:
        reason = identifier_reason(real[c], c)
        if reason is not None:
            out[c] = reason
    return out
