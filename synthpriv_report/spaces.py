"""Distance spaces (docs/metrics.md, "Distance spaces"), fitted on real data only, in a compact encoding.

A space encodes each record as scaled numeric coordinates plus integer category codes, so that a distance over
15 columns costs about 15 operations rather than one per one-hot coordinate. The one-hot embedding is built only
where a model needs dense features (PCA, classifiers).

Modes of the compact encoding (used by :mod:`synthpriv_report.neighbors`):

- ``gower`` (mode 0): d = (1/p) [sum over numeric of min(1, |a' - b'|) (both missing 0, one missing 1)
  + sum over categorical of 1[a != b]].
- ``l2`` (mode 1): d = sqrt(sum_j w_j (a_j - b_j)^2 + sum_c cost_c 1[a_c != b_c]); euclidean, weighted euclidean
  and projected spaces. A categorical mismatch costs 2 w^2 (two one-hot coordinates of weight w differ by 1).
- ``hamming`` (mode 2): d = number of columns whose codes differ (numeric values coded by exact value).
"""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ._compiled import one_blas_thread
from .core.formats import SET_LABELS as SET_NAMES
from .data.containers import MISSING, REAL_SETS, PreparedData, code_blocks, code_dtype, number_blocks

SpaceKind = Literal["gower", "euclidean", "projected", "hamming"]
MODE_GOWER, MODE_L2, MODE_HAMMING = 0, 1, 2

SPACE_DESCRIPTIONS: dict[str, str] = {
    "gower": "Gower distance: mean over columns of range-scaled |difference| capped at 1 for numeric "
    "columns and mismatch for categorical columns; range [0, 1]",
    "euclidean": "Euclidean distance between embeddings: range-scaled numeric values, missing "
    "indicators, one-hot categories (a category mismatch adds 2 to the squared distance)",
    "projected": "Euclidean distance after a principal-component projection of the euclidean embedding, "
    "fitted on the real records",
    "hamming": "Hamming distance: number of columns whose values differ",
}


@dataclass(frozen=True)
class SpaceSpec:
    """Identity of a distance space; hashable, used as a cache key.

    Parameters
    ----------
    kind : {"gower", "euclidean", "projected", "hamming"}
    columns : tuple of str, optional
        Restrict the space to these columns (e.g. key attributes); default all analysed columns.
    weights : tuple of (column, weight) pairs, optional
        Per-column weights of a weighted euclidean space (identifiability); a column with weight 0 is
        left out.
    n_components : int or float, optional
        Projected space: an int keeps that many components; a float in (0, 1] keeps the smallest number whose
        cumulative explained-variance ratio reaches it (default 0.95).
    """

    kind: SpaceKind
    columns: tuple[str, ...] | None = None
    weights: tuple[tuple[str, float], ...] | None = None
    n_components: int | float | None = None

    @property
    def label(self) -> str:
        """Short human label, e.g. ``"euclidean[age,sex]"``."""
        s = self.kind
        if self.weights is not None:
            s = "weighted " + s
        if self.columns is not None:
            s += "[" + ",".join(self.columns) + "]"
        if self.kind == "projected":
            s += f"(n_components={self.n_components if self.n_components is not None else 0.95})"
        return s


def as_space(space: str | SpaceSpec) -> SpaceSpec:
    """Normalise a space name or spec; unknown names are an error listing the known ones."""
    if isinstance(space, SpaceSpec):
        return space
    if space not in ("gower", "euclidean", "projected", "hamming"):
        raise ValueError(f"unknown space {space!r}; choose one of 'gower', 'euclidean', 'projected', 'hamming'")
    return SpaceSpec(kind=space)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Encoding:
    """The compact encoding of every set in one space.

    Attributes
    ----------
    spec : SpaceSpec
    mode : int
        0 gower, 1 l2, 2 hamming.
    num : dict
        Set name -> float64 ``(n, q)`` numeric coordinates (gower: NaN = missing).
    cat : dict
        Set name -> int64 ``(n, c)`` category codes.
    num_weight : ndarray
        ``(q,)`` multiplier of each numeric term (l2: of the squared difference).
    cat_cost : ndarray
        ``(c,)`` cost of a mismatch in each categorical column.
    scale : float
        Gower: 1/p; otherwise 1.
    n_codes : ndarray
        ``(c,)`` number of distinct codes per categorical column.
    integer_valued : bool
        Every distance is an integer (hamming).
    cat_columns : tuple of str
        Names of the categorical columns, in code order (for messages).
    """

    spec: SpaceSpec
    mode: int
    num: dict[str, NDArray[np.float64]]
    cat: dict[str, NDArray[np.int64]]
    num_weight: NDArray[np.float64]
    cat_cost: NDArray[np.float64]
    scale: float
    n_codes: NDArray[np.int64]
    integer_valued: bool = False
    cat_columns: tuple[str, ...] = ()


#: Range-scaled numeric coordinates are clipped to this magnitude (a trillion real ranges away from the real
#: minimum): beyond it every distance is already "far" (gower caps at 1), and squared distances of a few hundred
#: such coordinates stay finite even in single precision (the dense projected search filters in float32).
SCALED_LIMIT = 1e12

#: Largest dense one-hot embedding (rows x coordinates) :func:`embed` builds: 2**28 float64 values, 2 GiB.
MAX_EMBEDDING_VALUES = 2 ** 28


@dataclass(frozen=True)
class Fitted:
    """Quantities fitted once per evaluation on the real data (T ∪ H when H is given).

    Attributes
    ----------
    num_min : ndarray
        ``(q,)`` smallest real value of each numeric column (NaN when a column has no real value).
    num_range : ndarray
        ``(q,)`` real range ``max - min`` (1 for a constant column); ``inf`` when it exceeds the float64 range
        (values near ``±1.8e308``). Scaling uses :attr:`num_half_range`, which is always finite.
    levels : tuple of ndarray
        Per categorical column, its levels over every set, sorted by code point.
    codes : dict
        Set name -> ``(n, c)`` level codes, in the narrowest integer type that holds them (:func:`code_dtype`;
        int8 for columns of at most 128 levels); :meth:`wide_codes` gives them as int64.
    has_missing : ndarray
        ``(q,)`` whether a numeric column has a missing value in some set.
    num_half_range : ndarray
        ``(q,)`` ``max/2 - min/2`` (0.5 for a constant column): finite for every finite input.
    """

    num_min: NDArray[np.float64]
    num_range: NDArray[np.float64]
    levels: tuple[NDArray[np.object_], ...]
    codes: dict[str, NDArray[np.signedinteger[Any]]]
    has_missing: NDArray[np.bool_]
    num_half_range: NDArray[np.float64] | None = None
    _wide: weakref.WeakValueDictionary[str, NDArray[np.int64]] = field(
        default_factory=weakref.WeakValueDictionary, compare=False, repr=False)

    def wide_codes(self, set_name: str) -> NDArray[np.int64]:
        """``codes[set_name]`` as int64 (the type the search kernels take): one array, shared by every encoding
        that holds it, and freed when the last of them is (a weak reference here keeps no copy alive).

        >>> f = Fitted(np.zeros(0), np.zeros(0), (), {"T": np.array([[1, 0]], dtype=np.int8)}, np.zeros(0, bool))
        >>> w = f.wide_codes("T"); w.dtype.name, w.tolist(), f.wide_codes("T") is w
        ('int64', [[1, 0]], True)
        """
        wide = self._wide.get(set_name)
        if wide is None:
            wide = self.codes[set_name].astype(np.int64)
            self._wide[set_name] = wide
        return wide

    def __getstate__(self) -> dict[str, Any]:  # the weak cache is not pickled (nor picklable)
        return {k: v for k, v in self.__dict__.items() if k != "_wide"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        object.__setattr__(self, "_wide", weakref.WeakValueDictionary())

    def rescale(self, values: NDArray[np.float64], columns: Sequence[int] | NDArray[np.int64] | slice = slice(None)
                ) -> NDArray[np.float64]:
        """Range-scaled values ``(x - min) / range`` of the numeric columns ``columns`` (NaN stays NaN).

        Computed so that it cannot overflow: where ``x - min`` or the range exceeds the float64 range, as
        ``(x/2 - min/2) / (max/2 - min/2)``, which is the same number; then clipped to
        ``±``:data:`SCALED_LIMIT`. Finite input always gives finite output.

        >>> f = Fitted(np.array([-1e308]), np.array([np.inf]), (), {}, np.zeros(1, bool), np.array([1e308]))
        >>> f.rescale(np.array([[-1e308], [1e308], [0.0]])).ravel().tolist()
        [0.0, 1.0, 0.5]
        """
        lo = self.num_min[columns]
        rng = self.num_range[columns]
        half = self.num_half_range[columns] if self.num_half_range is not None else rng / 2.0
        x = np.asarray(values, dtype=np.float64)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            out = (x - lo) / rng
            unsafe = (~np.isfinite(out) | ~np.isfinite(rng)) & ~np.isnan(x)
            if unsafe.any():
                safe = (x / 2.0 - lo / 2.0) / half
                out = np.where(unsafe, safe, out)
        return np.clip(out, -SCALED_LIMIT, SCALED_LIMIT)


def _levels_and_codes(stacked: NDArray[np.object_]) -> tuple[NDArray[np.object_], NDArray[np.int64]]:
    """Sorted distinct strings of ``stacked`` and each value's position among them, in linear time plus a sort of
    the distinct values (hash-based factorisation; strings compare by code point, NUL characters included)."""
    codes, uniques = pd.factorize(stacked, sort=False)
    uniques = np.asarray(uniques, dtype=object)
    order = np.argsort(uniques, kind="stable") if len(uniques) > 1 else np.zeros(len(uniques), dtype=np.int64)
    rank = np.empty(len(uniques), dtype=np.int64)
    rank[order] = np.arange(len(uniques), dtype=np.int64)
    return uniques[order], rank[codes]


def _levels_from_tables(data: PreparedData, j: int, missing: bool
                        ) -> tuple[NDArray[np.object_], dict[str, NDArray[np.int64]]]:
    """:func:`_levels_and_codes` for categorical column ``j`` from the codes and distinct texts :func:`prepare`
    found per set (``data.factorized``): the same sorted levels, without numbering the strings again, and per set
    the lookup from its codes to the levels' (its last entry: the code of a missing value, -1). ``missing``:
    whether a value of the column is missing (code -1) in some set."""
    parts = [data.factorized[s][j] for s in data.sets]
    distinct = set().union(*(t.tolist() for _, t in parts))
    if missing:
        distinct.add(MISSING)
    levels = np.array(sorted(distinct), dtype=object)
    position = {v: i for i, v in enumerate(levels.tolist())}
    missing_at = position.get(MISSING, -1)
    lookups = {s: np.array([position[v] for v in t.tolist()] + [missing_at], dtype=np.int64)
               for s, (_, t) in zip(data.sets, parts)}
    return levels, lookups


#: Numbers (records times numeric columns) :func:`fit` reads at a time (8 MB of float64).
FIT_BLOCK_ROWS = 1 << 20


#: What :func:`fit` hands each set's codes to: ``(set name, codes, levels) -> what to hold in their place``.
EachSet = Callable[[str, NDArray[np.signedinteger[Any]], tuple[NDArray[np.object_], ...]], Any]


def fit(data: PreparedData, *, each_set: EachSet | None = None,
        numbers_read: Callable[[], None] | None = None) -> Fitted:
    """Numeric ranges from the real data (the training, holdout and reference records,
    :data:`~synthpriv_report.data.containers.REAL_SETS`), category levels from the union of all sets (docs/metrics.md,
    "Shared machinery").

    Ranges never overflow: see :meth:`Fitted.rescale`. Levels are found by hashing (``pandas.factorize``), so a
    column with one distinct value per record (an identifier) costs about as much as a binary one. The codes are
    held in the narrowest integer type that holds every column's (:func:`code_dtype`: one byte a cell for columns
    of at most 128 levels); :meth:`Fitted.wide_codes` gives them as int64.

    ``each_set(set_name, codes, levels)``, where given, is called with each set's codes as soon as they are made,
    set after set, and what it returns is held in their place (an evaluation with a Dask client hands the set to
    the workers there: :meth:`synthpriv_report.cluster.backend.DaskBackend.hold_codes`); ``levels`` are the fitted
    levels.
    ``numbers_read()``, where given, is called once the numbers have been read (the ranges and the columns with
    missing values found), before any codes are made (an evaluation with a Dask client hands every set's numbers to
    the workers there: :meth:`~synthpriv_report.engine.cache._Engine.hold_numbers`).
    """
    real_sets = [s for s in REAL_SETS if data.sizes.get(s)]  # the real data has records (at least 2)
    q = data.numeric["T"].shape[1]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slice: a column with no real value
        # block by block of each set (every column of a block at once), then across the blocks: the same extremes
        # as of the sets stacked, without stacking them (or reading more than a block at a time)
        lo, hi = np.full(q, np.nan), np.full(q, np.nan)
        lows, highs = [], []
        for block in number_blocks(data.numeric, real_sets, FIT_BLOCK_ROWS):
            lows.append(np.nanmin(block, axis=0))
            highs.append(np.nanmax(block, axis=0))
        if lows and q:
            lo, hi = np.nanmin(np.stack(lows), axis=0), np.nanmax(np.stack(highs), axis=0)
        rng = hi - lo
        half = hi / 2.0 - lo / 2.0
    const = (rng == 0) | (half == 0)
    rng = np.where(const, 1.0, rng)
    half = np.where(const, 0.5, half)
    all_sets = data.sets
    has_missing = np.zeros(q, dtype=bool)
    for block in number_blocks(data.numeric, all_sets, FIT_BLOCK_ROWS):
        has_missing |= np.isnan(block).any(axis=0)
    if numbers_read is not None:
        numbers_read()
    n_cat = len(data.categorical_columns)
    levels: list[NDArray[np.object_]] = []
    if data.factorized is not None:
        # the levels first (from the sets' tables of distinct texts), then the codes, in their narrow type
        # each set's codes read a block of records at a time, every column at once (codes kept on a cluster's
        # workers are fetched once for every column, not once a column)
        missing = np.zeros(n_cat, dtype=bool)
        for s in all_sets:
            for _, parts in code_blocks([c for c, _ in data.factorized[s]]):
                missing |= np.array([bool((part < 0).any()) for part in parts], dtype=bool)
        tables = [_levels_from_tables(data, j, bool(missing[j])) for j in range(n_cat)]
        levels = [lv for lv, _ in tables]
        dtype = code_dtype(max((len(lv) for lv in levels), default=0))
        codes = {}
        for s in all_sets:  # set after set: each_set may let a set go before the next set's codes are made
            made = np.empty((data.sizes[s], n_cat), dtype=dtype)
            for a, parts in code_blocks([c for c, _ in data.factorized[s]]):
                for j, ((_, lookups), part) in enumerate(zip(tables, parts)):
                    made[a:a + part.shape[0], j] = lookups[s][part]  # code -1 (missing) takes the last entry
            codes[s] = made if each_set is None else each_set(s, made, tuple(levels))
            del made
    else:
        wide = {s: np.empty((data.sizes[s], n_cat), dtype=np.int64) for s in all_sets}
        for j in range(n_cat):
            stacked = np.concatenate([data.categorical[s][:, j] for s in all_sets])
            lv, inv = _levels_and_codes(stacked)
            levels.append(lv)
            start = 0
            for s in all_sets:
                n = data.sizes[s]
                wide[s][:, j] = inv[start:start + n]
                start += n
        dtype = code_dtype(max((len(lv) for lv in levels), default=0))
        codes = {s: wide[s].astype(dtype) for s in all_sets}
        del wide
        if each_set is not None:
            codes = {s: each_set(s, codes.pop(s), tuple(levels)) for s in all_sets}
    return Fitted(num_min=lo, num_range=rng, levels=tuple(levels), codes=codes, has_missing=has_missing,
                  num_half_range=half)


def _column_weights(spec: SpaceSpec, columns: Sequence[str]) -> dict[str, float]:
    if spec.weights is None:
        return {c: 1.0 for c in columns}
    w = dict(spec.weights)
    return {c: float(w.get(c, 0.0)) for c in columns}


def encode(data: PreparedData, fitted: Fitted, spec: SpaceSpec) -> Encoding:
    """Encode every set of ``data`` in the space ``spec`` (projected spaces: see :func:`project`).

    Examples
    --------
    >>> import pandas as pd
    >>> from synthpriv_report.data import prepare
    >>> T = pd.DataFrame({"x": [0.0, 10.0], "c": ["a", "b"]})
    >>> d = prepare(T, T.copy()); enc = encode(d, fit(d), SpaceSpec("gower"))
    >>> enc.num["T"].ravel().tolist(), enc.cat["T"].ravel().tolist(), enc.scale
    ([0.0, 1.0], [0, 1], 0.5)
    """
    num_cols, cat_cols, _ = _space_columns(data, spec)
    ni = [data.numeric_columns.index(c) for c in num_cols]
    ci = [data.categorical_columns.index(c) for c in cat_cols]
    n_codes = np.array([len(fitted.levels[j]) for j in ci], dtype=np.int64)

    if spec.kind == "hamming":
        # Numeric key values are coded by exact value (float64), missing equals missing.
        num_codes = {}
        for j in ni:
            stacked = np.concatenate([data.numeric[s][:, j] for s in data.sets])
            key = np.where(np.isnan(stacked), np.inf, stacked)  # one code for missing
            # codes by hashing in order of first appearance (only equality counts; -0.0 and 0.0 share a code)
            inv = pd.factorize(key, sort=False)[0].astype(np.int64)
            start = 0
            for s in data.sets:
                num_codes.setdefault(s, []).append(inv[start:start + data.sizes[s]])
                start += data.sizes[s]
        cat = {}
        extra_codes = []
        for s in data.sets:
            parts = [fitted.codes[s][:, ci]] + [v[:, None] for v in num_codes.get(s, [])]
            cat[s] = np.ascontiguousarray(np.concatenate(parts, axis=1).astype(np.int64))
        for k in range(len(num_cols)):
            extra_codes.append(int(max(cat[s][:, len(ci) + k].max() for s in data.sets)) + 1)
        return Encoding(
            spec=spec, mode=MODE_HAMMING,
            num={s: np.zeros((data.sizes[s], 0)) for s in data.sets}, cat=cat,
            num_weight=np.zeros(0), cat_cost=np.ones(len(ci) + len(num_cols)), scale=1.0,
            n_codes=np.concatenate([n_codes, np.array(extra_codes, dtype=np.int64)]),
            integer_valued=True, cat_columns=tuple(cat_cols) + tuple(num_cols),
        )

    if ci == list(range(len(data.categorical_columns))):
        # every column in order: the fitted codes as int64, one array shared by every such encoding (read-only)
        cat = {s: fitted.wide_codes(s) for s in data.sets}
    else:
        cat = {s: np.ascontiguousarray(fitted.codes[s][:, ci], dtype=np.int64) for s in data.sets}
    header = encoding_header(data, fitted, spec)
    num = {s: encoded_numbers(data, fitted, header, s) for s in data.sets}
    return replace(header, num=num, cat=cat)


class EncodedRows:
    """One set's numeric coordinates or category codes in one space, made a block at a time when sliced.

    ``rows[a:b]`` or ``rows[positions]`` gives those records' rows of :func:`encode`'s array, bit for bit, from
    the prepared data and the fitted encoders; ``shape[0]`` is the number of records. A search on a Dask cluster
    reads its records so, one block after another, and the calling process never makes a whole set's
    coordinates.

    Parameters
    ----------
    make : callable
        ``make(positions)`` -> the rows at ``positions`` (a slice or integer array) of the whole set.
    n : int
        Records.
    rows : ndarray of int64, optional
        A subset: position ``i`` here is record ``rows[i]`` of the set.
    """

    def __init__(self, make: Callable[[NDArray[np.int64] | slice], NDArray[Any]], n: int,
                 rows: NDArray[np.integer[Any]] | None = None):
        self._make, self._rows = make, rows
        self.shape = (int(n) if rows is None else int(rows.shape[0]),)

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, key: NDArray[np.int64] | slice) -> NDArray[Any]:
        return self._make(key if self._rows is None else self._rows[key])


def _space_columns(data: PreparedData, spec: SpaceSpec) -> tuple[list[str], list[str], dict[str, float]]:
    """The numeric and categorical columns of a gower or euclidean-type space (a weight of 0 leaves one out)."""
    cols = list(spec.columns) if spec.columns is not None else list(data.columns)
    unknown = [c for c in cols if c not in data.columns]
    if unknown:
        raise ValueError(f"space {spec.label} names column(s) not analysed: {', '.join(map(repr, unknown))}")
    weights = _column_weights(spec, cols)
    cols = [c for c in cols if weights[c] > 0]
    return ([c for c in cols if data.kinds[c] == "numeric"], [c for c in cols if data.kinds[c] == "categorical"],
            weights)


def encoding_header(data: PreparedData, fitted: Fitted, spec: SpaceSpec) -> Encoding:
    """The :class:`Encoding` of a gower or euclidean-type space without its arrays (``num`` and ``cat`` empty):
    what a search needs besides the records (mode, weights, costs, scale, number of codes).

    With :func:`encoded_numbers` and :func:`encoded_codes` it gives any rows of :func:`encode`'s arrays without
    making a whole set's: a row's coordinates depend only on the row and the fitted encoders.
    """
    num_cols, cat_cols, weights = _space_columns(data, spec)
    ci = [data.categorical_columns.index(c) for c in cat_cols]
    n_codes = np.array([len(fitted.levels[j]) for j in ci], dtype=np.int64)
    if spec.kind == "gower":
        return Encoding(spec=spec, mode=MODE_GOWER, num={}, cat={}, num_weight=np.ones(len(num_cols)),
                        cat_cost=np.ones(len(ci)), scale=1.0 / (len(num_cols) + len(cat_cols)), n_codes=n_codes,
                        cat_columns=tuple(cat_cols))
    if spec.kind in ("euclidean", "projected"):
        ni = [data.numeric_columns.index(c) for c in num_cols]
        miss = [j for j, jj in enumerate(ni) if fitted.has_missing[jj]]
        w_num = [weights[c] ** 2 for c in num_cols] + [weights[num_cols[j]] ** 2 for j in miss]
        return Encoding(spec=spec, mode=MODE_L2, num={}, cat={}, num_weight=np.array(w_num, dtype=np.float64),
                        cat_cost=np.array([2.0 * weights[c] ** 2 for c in cat_cols], dtype=np.float64),
                        scale=1.0, n_codes=n_codes, cat_columns=tuple(cat_cols))
    raise ValueError(f"no compact numeric coordinates in a {spec.kind!r} space")


def encoded_numbers(data: PreparedData, fitted: Fitted, header: Encoding, set_name: str,
                    rows: NDArray[np.int64] | slice = slice(None)) -> NDArray[np.float64]:
    """Rows ``rows`` of ``set_name``'s numeric coordinates in the space of ``header``
    (:func:`encoding_header`): bit for bit those of :func:`encode`.

    Gower: range-scaled values, NaN for missing. Euclidean-type: range-scaled values with 0 for missing, then a
    missing indicator for each numeric column with a missing value in some set.
    """
    num_cols, _, _ = _space_columns(data, header.spec)
    ni = [data.numeric_columns.index(c) for c in num_cols]
    scaled = fitted.rescale(data.numeric[set_name].columns(ni, rows), ni)
    if header.mode == MODE_GOWER:
        return np.ascontiguousarray(scaled)
    miss = [j for j, jj in enumerate(ni) if fitted.has_missing[jj]]
    isnan = np.isnan(scaled)
    scaled = np.where(isnan, 0.0, scaled)
    return np.ascontiguousarray(np.concatenate([scaled, isnan[:, miss].astype(np.float64)], axis=1))


def encoded_codes(data: PreparedData, fitted: Fitted, header: Encoding, set_name: str,
                  rows: NDArray[np.int64] | slice = slice(None)) -> NDArray[np.int64]:
    """Rows ``rows`` of ``set_name``'s category codes in the space of ``header`` (:func:`encoding_header`), as
    :func:`encode` gives them (a copy)."""
    ci = [data.categorical_columns.index(c) for c in header.cat_columns]
    codes = fitted.codes[set_name][rows]
    return np.ascontiguousarray(codes if ci == list(range(codes.shape[1])) else codes[:, ci], dtype=np.int64)




def _too_wide(enc: Encoding, set_name: str, n_rows: int, width: int) -> ValueError:
    j = int(np.argmax(enc.n_codes)) if len(enc.n_codes) else -1
    worst = ""
    if j >= 0:
        name = f" {enc.cat_columns[j]!r}" if j < len(enc.cat_columns) else ""
        worst = f"; its widest categorical column{name} has {int(enc.n_codes[j])} categories"
    return ValueError(
        f"the one-hot embedding of the {SET_NAMES.get(set_name, set_name)} records in the space "
        f"{enc.spec.label} would hold {n_rows} x {width} values (more than "
        f"{MAX_EMBEDDING_VALUES}){worst}; exclude identifier-like columns with exclude=[...]"
    )


def embedding_width(enc: Encoding) -> int:
    """Number of coordinates of the dense one-hot embedding of an l2 encoding."""
    return int(next(iter(enc.num.values())).shape[1]) + int(enc.n_codes[:next(iter(enc.cat.values())).shape[1]].sum())


def _one_hot(enc: Encoding, num: NDArray[np.float64], codes: NDArray[np.int64]) -> NDArray[np.float64]:
    """The dense embedding of compact rows ``num``, ``codes`` of the encoding ``enc`` (see :func:`embed`)."""
    n, q = num.shape
    widths = [int(enc.n_codes[j]) for j in range(codes.shape[1])]
    out = np.zeros((n, q + sum(widths)), dtype=np.float64)  # written in place: no block is built and copied
    np.multiply(num, np.sqrt(enc.num_weight), out=out[:, :q])
    flat = out.reshape(-1)
    row_start = np.arange(n, dtype=np.int64) * out.shape[1]
    offset = q
    for j, width in enumerate(widths):
        col = codes[:, j]
        if n and (col.min() < 0 or col.max() >= width):  # as a block's own indexing: from the end, else an error
            if col.min() < -width or col.max() >= width:
                raise IndexError(f"a code of categorical column {j} lies outside its {width} levels")
            col = np.where(col < 0, col + width, col)
        flat[row_start + offset + col] = np.sqrt(enc.cat_cost[j] / 2.0)
        offset += width
    return out


def embed(enc: Encoding, set_name: str, rows: NDArray[np.integer[Any]] | None = None) -> NDArray[np.float64]:
    """Dense one-hot embedding of an l2 encoding: its squared euclidean distances equal the compact ones.

    Each numeric coordinate is multiplied by sqrt(weight); each categorical column becomes a one-hot block over
    its levels multiplied by sqrt(cost / 2). ``rows``: only these records of the set, in this order (a row's
    embedding does not depend on the others). More than :data:`MAX_EMBEDDING_VALUES` values is an error naming
    the widest categorical column.
    """
    if enc.mode != MODE_L2:
        raise ValueError("only euclidean-type spaces have a one-hot embedding")
    num, codes = enc.num[set_name], enc.cat[set_name]
    if rows is not None:
        num, codes = num[rows], codes[rows]
    width = num.shape[1] + int(enc.n_codes[:codes.shape[1]].sum())
    if num.shape[0] * width > MAX_EMBEDDING_VALUES:
        raise _too_wide(enc, set_name, num.shape[0], width)
    return _one_hot(enc, num, codes)


@dataclass(frozen=True)
class Projection:
    """PCA of the euclidean embedding fitted on the real records (docs/metrics.md, "Distance spaces": projected)."""

    mean: NDArray[np.float64]
    components: NDArray[np.float64]
    explained_variance_ratio: NDArray[np.float64]
    n_components: int


#: Records embedded at a time by :func:`project`: the dense one-hot embedding of a whole set (a million records
#: by about a hundred coordinates, 0.9 GB) is never built; blocks of this many rows are.
PROJECT_BLOCK = 1 << 16


def _row_ids(columns: Sequence[NDArray]) -> NDArray[np.int64]:
    """An id per row, equal exactly when the rows hold equal values in every column (float64 columns compared
    by value: -0.0 as 0.0), numbered in order of first appearance; linear time (hash factorisation column by
    column, as :meth:`synthpriv_report.engine.cache._Engine.record_ids` does)."""
    ids = None
    for col in columns:
        if col.dtype == np.float64:
            col = (col + 0.0).view(np.int64)  # -0.0 + 0.0 is 0.0; no NaN in an l2 encoding
        codes, uniques = pd.factorize(col)
        if ids is None:
            ids = codes.astype(np.int64)
        else:
            ids, _ = pd.factorize(ids * np.int64(len(uniques)) + codes.astype(np.int64))
            ids = ids.astype(np.int64)
    return ids


def project(data: PreparedData, euclid: Encoding, spec: SpaceSpec, *,
            fitted: Projection | None = None) -> tuple[Encoding, Projection]:
    """Projected space: exact SVD of the centred real embedding, smallest k reaching 95% variance (or the
    requested ``n_components``). Identical records map to identical coordinates (each distinct embedding row is
    projected once). ``fitted``: the projection already fitted on these real records' embedding (the same bytes:
    the caller's responsibility), used instead of fitting it again.

    Memory stays at a few blocks of :data:`PROJECT_BLOCK` embedded rows plus the result, whatever the number of
    records: the mean is summed block by block; the SVD is that of the triangular factor R of a QR
    factorisation of the centred real embedding, accumulated block by block (``R = qr([R; block])``), which has
    the same singular values and right singular vectors as the embedding itself. The factorisations and products
    run on one BLAS thread (:func:`~synthpriv_report._compiled.one_blas_thread`), so the coordinates do not
    depend on the machine's cores.
    """
    real_sets = [s for s in REAL_SETS if s in data.sizes]
    width = embedding_width(euclid)
    block = PROJECT_BLOCK
    widest_block = max(min(block, data.sizes[s]) for s in data.sets)
    if widest_block * width > MAX_EMBEDDING_VALUES or width * width > MAX_EMBEDDING_VALUES:
        big = max(data.sets, key=lambda s: data.sizes[s])
        raise _too_wide(euclid, big, data.sizes[big], width)

    def blocks(s: str):
        n = data.sizes[s]
        for a in range(0, n, block):
            yield embed(euclid, s, np.arange(a, min(n, a + block)))

    if fitted is not None:
        with one_blas_thread():
            return _projected(data, euclid, spec, fitted.mean, fitted.components, fitted.explained_variance_ratio)
    n_real = sum(data.sizes[s] for s in real_sets)
    total = np.zeros(width)
    for s in real_sets:
        for X in blocks(s):
            total += X.sum(axis=0)
    mean = total / n_real
    with one_blas_thread():
        R = np.zeros((0, width))
        for s in real_sets:
            for X in blocks(s):
                R = np.linalg.qr(np.concatenate([R, X - mean], axis=0), mode="r")
        _, sv, vt = np.linalg.svd(R, full_matrices=False)
    var = sv ** 2
    total_var = var.sum()
    ratio = var / total_var if total_var > 0 else np.zeros_like(var)
    nc = spec.n_components if spec.n_components is not None else 0.95
    if isinstance(nc, (int, np.integer)) and not isinstance(nc, bool):
        if not 1 <= nc <= vt.shape[0]:
            raise ValueError(f"n_components={nc} must be between 1 and {vt.shape[0]}")
        k = int(nc)
    else:
        if not 0 < float(nc) <= 1:
            raise ValueError(f"n_components={nc} must be an int or a fraction in (0, 1]")
        cum = np.cumsum(ratio)
        k = int(np.searchsorted(cum, float(nc) - 1e-12) + 1)
        k = max(1, min(k, vt.shape[0]))
    with one_blas_thread():
        return _projected(data, euclid, spec, mean, vt[:k], ratio)


def _projected(data: PreparedData, euclid: Encoding, spec: SpaceSpec, mean: NDArray[np.float64],
               comps: NDArray[np.float64], ratio: NDArray[np.float64]) -> tuple[Encoding, Projection]:
    """Every set's coordinates in the projected space of ``mean`` and ``comps`` (:func:`project`)."""
    k = comps.shape[0]
    block = PROJECT_BLOCK
    # each distinct record (over every set) is projected once, where it first appears; the others copy it
    sets = list(data.sets)
    sizes = [data.sizes[s] for s in sets]
    n_cols = euclid.num[sets[0]].shape[1], euclid.cat[sets[0]].shape[1]
    ids = _row_ids([np.concatenate([euclid.num[s][:, j] for s in sets]) for j in range(n_cols[0])]
                   + [np.concatenate([euclid.cat[s][:, j] for s in sets]) for j in range(n_cols[1])])
    if ids is None:  # no coordinate at all: one distinct row
        ids = np.zeros(sum(sizes), dtype=np.int64)
    first = np.empty(int(ids.max()) + 1 if ids.size else 0, dtype=np.int64)
    first[ids[::-1]] = np.arange(ids.size - 1, -1, -1)  # the lowest position of each id
    src = first[ids]  # the position each record's coordinates come from
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    num = {}
    for i, s in enumerate(sets):
        lo, hi = offsets[i], offsets[i + 1]
        out = np.empty((hi - lo, k))
        own = np.flatnonzero(src[lo:hi] == np.arange(lo, hi))
        for a in range(0, own.size, block):
            rows = own[a:a + block]
            out[rows] = (embed(euclid, s, rows) - mean) @ comps.T
        copied = np.flatnonzero(src[lo:hi] != np.arange(lo, hi))
        if copied.size:
            from_pos = src[lo:hi][copied]
            which = np.searchsorted(offsets, from_pos, side="right") - 1
            for j in np.unique(which):
                sel = which == j
                base = out if j == i else num[sets[j]]
                out[copied[sel]] = base[from_pos[sel] - offsets[j]]
        num[s] = out
    enc = Encoding(
        spec=spec, mode=MODE_L2, num=num,
        cat={s: np.zeros((data.sizes[s], 0), dtype=np.int64) for s in data.sets},
        num_weight=np.ones(k), cat_cost=np.zeros(0), scale=1.0, n_codes=np.zeros(0, dtype=np.int64),
    )
    return enc, Projection(mean=mean, components=comps, explained_variance_ratio=ratio, n_components=k)
