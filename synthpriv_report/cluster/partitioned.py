"""Partitioned inputs on a Dask cluster: each partition is read, checked and encoded on a worker.

With a Dask client, a set given as a Parquet dataset (a folder of files, or one file) or a Dask DataFrame is never
read whole in the calling process. One task per partition (a Parquet file, a Dask partition) reads the analysed
columns of its rows on a worker, converts and checks the numbers (an error names the column, the set and the
row's position in the whole set), turns each categorical column into integer codes and a table of its distinct
texts, and summarises what the identifier check needs. The calling process receives the encoded partitions
(each numeric column packed as the prepared data holds it, a byte or two a value for ages and counts; integer
codes; each column's distinct texts once) and joins them in partition order; it holds no DataFrame of a whole
set, no float64 array of a set's numbers and no string per record.

From there the preparation is that of :func:`synthpriv_report.data.preparation.prepare`: the per-partition code tables
and
tables of distinct numbers are merged into one per column (in order of first appearance, as numbering the whole
column would give; :func:`number_merge` for the numbers), so the prepared data, the encoders fitted from them
(numeric ranges, category levels) and every number are the same as when the whole frames are read; the tests
check that field by field.

Where this differs from reading the whole frame, and why:

- an error for a bad value names the first bad row of the first partition (in set order) that holds one, and
  counts the other bad rows of that partition only (the other partitions' rows are not examined again);
- the identifier check counts the distinct values of a text column by their text (a number ``1`` and a text
  ``"1"`` in one column of mixed types are one value), as the prepared data will.

A set given as a pandas DataFrame is encoded in the calling process as one partition.

A reference set (``Evaluation(reference=...)``, the membership attacks' reference data) is not supported here:
:func:`synthpriv_report.data.sources.partitioned_inputs` refuses it with a ``ValueError`` naming ``reference=``, before
any partition is read. With a Dask client a reference set can be used when every set is a pandas DataFrame (the
sets are then prepared in the calling process and only the searches run on the workers).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ..core.formats import SET_LABELS
from ..data import containers as dm
from ..data.containers import CodedSet, Kind, NumericSet, PreparedData, code_dtype, float32_exact, packed_column
from ..data.convert import ROW_OFFSET, _is_datetime, _kind_of
from ..data.identifiers import (
    check_include_exclude,
    numeric_identifier_reason,
    split_identifiers,
    text_identifier_reason,
)
from ..data.parquet import _index_columns, parquet_layout, read_parquet_part
from ..data.preparation import (
    Park,
    _check_same_columns,
    _checked_column_lists,
    _checked_frames,
    all_missing_error,
    encode_set,
    finish,
)
from ..data.sources import _kind

__all__ = ["Partitions", "partitions_of", "prepare_partitioned", "PartitionedInputs", "partitioned_inputs"]


@dataclass(frozen=True)
class Partitions:
    """One set as partitions to be read on the workers.

    Attributes
    ----------
    set_name : {"T", "S", "H"}
    kind : {"parquet", "dask", "pandas"}
    meta : DataFrame
        No rows: the set's columns and dtypes (all of its data columns).
    parts : list
        Parquet files (:class:`ParquetPart`), Dask delayed partitions, or one pandas DataFrame.
    """

    set_name: str
    kind: str
    meta: pd.DataFrame
    parts: list[Any]












def partitions_of(obj: Any, set_name: str, kind: str) -> Partitions:
    """The partitions of a set of ``kind`` (as :mod:`synthpriv_report.data.sources` classified it).

    A Parquet dataset's partitions are its files in pyarrow's order (the order ``pandas.read_parquet`` reads them
    in); its dtypes are those of :func:`parquet_layout` (the widest type of each column over the files), read
    from the files' footers without reading a row.
    """
    if kind == "parquet":
        import pyarrow.dataset as ds

        # the columns pandas.read_parquet reads: the files' own and any taken from "name=value" folder names
        dataset = ds.dataset(str(obj), format="parquet", partitioning="hive")
        layout = parquet_layout(obj, set_name)
        own = set(layout.columns) if layout.parts else set(dataset.schema.names)
        from_folders = [n for n in dataset.schema.names if n not in own and n not in _index_columns(dataset.schema)]
        if from_folders:
            raise ValueError(f"the {SET_LABELS[set_name]} data {str(obj)!r} takes column(s) "
                             f"{', '.join(map(repr, from_folders))} from its folder names; with a Dask client each "
                             f"file is read on its own, so each file must hold every column")
        return Partitions(set_name, "parquet", layout.meta.iloc[:0], list(layout.parts))
    if kind == "dask":
        return Partitions(set_name, "dask", obj._meta.iloc[:0].reset_index(drop=True), list(obj.to_delayed()))
    return Partitions(set_name, "pandas", obj.iloc[:0].reset_index(drop=True), [obj])


# ---------------------------------------------------------------------------------------------------------------
# on a worker: one partition


@dataclass
class EncodedPart:
    """What a worker returns for one partition: each numeric column packed as
    :class:`~synthpriv_report.data.containers.NumericSet`
    holds it (codes into the partition's distinct values, or float32 or float64 values), each category's code in
    the narrowest integer type that holds its partition's texts, plus each categorical column's distinct texts.

    Attributes
    ----------
    n : int
        Rows.
    num : list of (held, table)
        Per numeric column, converted (NaN: missing) and packed by
        :func:`~synthpriv_report.data.containers.packed_column`:
        ``(codes, distinct values in order of first appearance)`` or ``(values, None)``; a column that failed
        holds NaN.
    cat : list of (codes, table)
        Per categorical column: codes (-1: missing; :func:`~synthpriv_report.data.containers.code_dtype` of the table's
        length) and distinct texts in order of first appearance.
    all_missing : dict
        Column -> whether every value of this partition is missing.
    failed : list of str
        Columns whose values failed the checks in this partition (the error is raised again, with the row's
        position in the set, by the calling process).
    identifier : dict
        Column -> what the identifier check needs beyond the encoded values: ``("floats", values)`` for a
        numeric column encoded as categories, ``("raw", distinct values, count)`` for a text column whose raw
        values are not all strings.
    """

    n: int
    num: list[tuple[NDArray[Any], NDArray[np.float64] | None]]
    cat: list[tuple[NDArray[np.int64], NDArray[np.object_]]]
    all_missing: dict[str, bool]
    failed: list[str] = field(default_factory=list)
    identifier: dict[str, Any] = field(default_factory=dict)


def _read_part(part: Any, kind: str, columns: list[str]) -> pd.DataFrame:
    if kind == "parquet":
        return read_parquet_part(part, columns)
    return part[columns].reset_index(drop=True)


def _is_text(series: pd.Series) -> bool:
    return isinstance(series.dtype, pd.StringDtype) or (
        series.dtype == object and pd.api.types.infer_dtype(series, skipna=True) == "string")


def encode_part(part: Any, kind: str, set_name: str, real_meta: pd.DataFrame, num_cols: list[str],
                cat_cols: list[str], *, reveal: bool, id_candidates: Sequence[str] = ()) -> EncodedPart:
    """Read one partition (the analysed columns only), check and encode it: a task on a worker."""
    df = _read_part(part, kind, list(num_cols) + list(cat_cols))
    n = len(df)
    out = EncodedPart(n=n, num=[], cat=[], all_missing={c: bool(df[c].isna().all()) for c in df.columns})
    for c in num_cols:
        try:
            values = encode_set(df[[c]], set_name, real_meta, [c], [], reveal=reveal)[0][:, 0]
        except ValueError:
            out.failed.append(c)
            values = np.full(n, np.nan)
        out.num.append(packed_column(values))  # packed here: no float64 column travels or is stacked
        del values
    for c in cat_cols:
        try:
            _, _, fact = encode_set(df[[c]], set_name, real_meta, [], [c], reveal=reveal)
            codes, table = fact[0]
            out.cat.append((codes.astype(code_dtype(len(table)), copy=False), table))
        except ValueError:
            out.failed.append(c)
            out.cat.append((np.full(n, -1, dtype=np.int8), np.empty(0, dtype=object)))
    for c in id_candidates:
        series = df[c]
        numeric_raw = pd.api.types.is_numeric_dtype(real_meta[c].dtype)
        if numeric_raw and c in cat_cols:
            with np.errstate(invalid="ignore", over="ignore"):
                out.identifier[c] = ("floats", series.dropna().to_numpy(dtype=np.float64, na_value=np.nan))
        elif not numeric_raw and (c in num_cols or not _is_text(series)):
            values = series.dropna()
            out.identifier[c] = ("raw", pd.unique(values.to_numpy(dtype=object)), int(values.shape[0]))
    return out


def raise_part(part: Any, kind: str, set_name: str, real_meta: pd.DataFrame, column: str, numeric: bool,
               offset: int, reveal: bool) -> None:
    """Check one column of one partition again, with its rows numbered from ``offset``: raises the error that
    names the set, the column and the row's position in the whole set (a task on a worker)."""
    df = _read_part(part, kind, [column])
    token = ROW_OFFSET.set(offset)
    try:
        encode_set(df, set_name, real_meta, [column] if numeric else [], [] if numeric else [column],
                      reveal=reveal)
    finally:
        ROW_OFFSET.reset(token)


# ---------------------------------------------------------------------------------------------------------------
# in the calling process: merge


def _in_order_of_first_appearance(tables: Sequence[list[Any]], *, limit: int | None = None
                                  ) -> tuple[list[list[int]], dict[Any, int]]:
    """Each partition's table of distinct values as numbers in the merged table, and the merged table (value ->
    number, in order of first appearance over the partitions in order); stops once more than ``limit`` values
    are numbered (the caller then reads ``len`` of the merged table).

    >>> _in_order_of_first_appearance([["b", "a"], ["c", "b"]])
    ([[0, 1], [2, 0]], {'b': 0, 'a': 1, 'c': 2})
    """
    position: dict[Any, int] = {}
    numbered = []
    for table in tables:
        numbered.append([position.setdefault(value, len(position)) for value in table])
        if limit is not None and len(position) > limit:
            break
    return numbered, position


def table_remaps(tables: Sequence[NDArray[np.object_]]) -> tuple[list[NDArray[np.integer]], NDArray[np.object_]]:
    """One column's merged table from its partitions' tables, and per partition the map from its codes to the
    merged ones (entry -1, for code -1, is -1: missing), in the narrowest integer type that holds them
    (:func:`~synthpriv_report.data.containers.code_dtype`). The merged table holds each text once, in order of first
    appearance over the partitions in order (what numbering the whole column gives).

    >>> remaps, table = table_remaps([np.array(["b", "a"], dtype=object), np.array(["c", "b"], dtype=object)])
    >>> [r.tolist() for r in remaps], table.tolist(), remaps[0].dtype.name
    ([[0, 1, -1], [2, 0, -1]], ['b', 'a', 'c'], 'int8')
    """
    numbered, position = _in_order_of_first_appearance([table.tolist() for table in tables])
    dtype = code_dtype(len(position))
    remaps = [np.array(codes + [-1], dtype=dtype) for codes in numbered]  # code -1 (missing) takes the last entry
    return remaps, np.array(list(position), dtype=object)


def merge_tables(parts: Sequence[tuple[NDArray[np.integer], NDArray[np.object_]]]
                 ) -> tuple[NDArray[np.integer], NDArray[np.object_]]:
    """One column's codes and table from its partitions' (codes, table) (:func:`table_remaps`); -1 stays
    missing.

    >>> c, t = merge_tables([(np.array([0, 1, -1]), np.array(["b", "a"], dtype=object)),
    ...                      (np.array([0, 1]), np.array(["c", "b"], dtype=object))])
    >>> c.tolist(), t.tolist()
    ([0, 1, -1, 2, 0], ['b', 'a', 'c'])
    """
    remaps, table = table_remaps([t for _, t in parts])
    codes = np.concatenate([r[c] for r, (c, _) in zip(remaps, parts)]) if parts else np.zeros(0, dtype=np.int8)
    return codes, table


@dataclass(frozen=True)
class NumberMerge:
    """How one numeric column's packed partitions (:func:`~synthpriv_report.data.containers.packed_column`) become the
    column
    :class:`~synthpriv_report.data.containers.NumericSet` holds for the whole set: what :func:`number_merge` decides
    from
    the partitions' tables and dtypes alone, before any partition's values are read.

    Attributes
    ----------
    dtype : numpy dtype
        Of the whole column: uint8 or uint16 codes, or float32 or float64 values.
    table : ndarray or None
        The whole column's distinct values (float64, in order of first appearance), where it is held as codes.
    remaps : list of ndarray or None
        Per partition, its codes' codes in ``table``.
    """

    dtype: np.dtype
    table: NDArray[np.float64] | None
    remaps: list[NDArray[np.integer]] | None

    def part(self, held: NDArray[Any], table: NDArray[np.float64] | None, k: int) -> NDArray[Any]:
        """Partition ``k``'s packed values ``(held, table)`` as the whole column holds them."""
        if self.remaps is not None:
            return self.remaps[k][held]
        return (held if table is None else table[held]).astype(self.dtype, copy=False)


def number_merge(parts: Sequence[tuple[NDArray[Any], NDArray[np.float64] | None]]) -> NumberMerge:
    """The whole column's packing from its partitions' (:class:`NumberMerge`), the one
    :func:`~synthpriv_report.data.containers.packed_column` gives on the whole column, bit for bit: codes where the
    column has
    at most :data:`~synthpriv_report.data.containers.PACKED_MAX_DISTINCT` distinct float64 bit patterns (its table in
    order
    of first appearance over the partitions in order: what numbering the whole column gives), else float32 where
    every partition's values are float32 numbers, else float64. Only the partitions' tables and dtypes are read
    (``held`` may be empty).

    >>> m = number_merge([(np.array([0, 1, 0], dtype=np.uint8), np.array([2.0, 0.5])),
    ...                   (np.array([0, 1], dtype=np.uint8), np.array([7.0, 2.0]))])
    >>> m.table.tolist(), [r.tolist() for r in m.remaps], m.part(np.array([1, 0], dtype=np.uint8), None, 1).tolist()
    ([2.0, 0.5, 7.0], [[0, 1], [2, 0]], [0, 2])
    """
    if all(table is not None for _, table in parts):
        numbered, position = _in_order_of_first_appearance(
            [np.asarray(table, dtype=np.float64).view(np.uint64).tolist() for _, table in parts],
            limit=dm.PACKED_MAX_DISTINCT)
        if len(position) <= dm.PACKED_MAX_DISTINCT:
            dtype = np.dtype(np.uint8 if len(position) <= 256 else np.uint16)
            merged = np.array(list(position), dtype=np.uint64).view(np.float64)
            return NumberMerge(dtype, merged, [np.array(codes, dtype=dtype) for codes in numbered])
    narrow = all(held.dtype == np.float32 if table is None else float32_exact(table) for held, table in parts)
    return NumberMerge(np.dtype(np.float32 if narrow else np.float64), None, None)


@dataclass(frozen=True)
class PartitionedInputs:
    """Where each set came from, for :func:`prepare_partitioned`."""

    sets: dict[str, Partitions]
    excluded: tuple[str, ...]


def _summary(part: EncodedPart) -> EncodedPart:
    """``part`` without its per-record arrays (rows, tables, checks, identifier evidence): a task on a worker."""
    return EncodedPart(n=part.n, num=[(np.empty(0, dtype=held.dtype), table) for held, table in part.num],
                       cat=[(np.empty(0, dtype=codes.dtype), table) for codes, table in part.cat],
                       all_missing=part.all_missing, failed=part.failed, identifier=part.identifier)


def _encode_parts(client: Any, jobs: list[tuple[Partitions, Any]], settings: dict[str, dict[str, Any]]
                  ) -> tuple[list[EncodedPart], Callable[[int], EncodedPart]]:
    """:func:`encode_part` for each job: as tasks on the workers for Parquet files and Dask partitions (each
    partition is read where its task runs), here for a pandas frame.

    Returns
    -------
    summaries : list of EncodedPart
        In job order, without the per-record arrays (:func:`_summary`): what the checks read.
    fetch : callable
        ``fetch(i)``: job ``i``'s whole result. A partition encoded on a worker stays there until it is fetched,
        so that the calling process holds one partition's arrays at a time while it merges them.
    """
    import dask

    local: dict[int, EncodedPart] = {}
    remote = []
    for i, (p, part) in enumerate(jobs):
        if p.kind == "pandas":
            local[i] = encode_part(part, p.kind, p.set_name, **settings[p.set_name])
        else:
            remote.append((i, dask.delayed(encode_part, pure=False)(part, p.kind, p.set_name,
                                                                   **settings[p.set_name])))
    futures = dict(zip((i for i, _ in remote), client.compute([d for _, d in remote]))) if remote else {}
    summaries: list[EncodedPart] = [_summary(local[i]) if i in local else None  # type: ignore[misc]
                                    for i in range(len(jobs))]
    if futures:
        wanted = [client.submit(_summary, f, pure=False) for f in futures.values()]
        for i, summary in zip(futures, client.gather(wanted)):
            summaries[i] = summary

    def fetch(i: int) -> EncodedPart:
        return local.pop(i) if i in local else futures.pop(i).result()  # let go once fetched

    return summaries, fetch


def prepare_partitioned(client: Any, inputs: PartitionedInputs, *, numeric: Sequence[str] | None,
                        categorical: Sequence[str] | None, include: Sequence[str] | None,
                        named: Sequence[Sequence[str] | None], reveal_real_values: bool,
                        row_order: str, park: Park | None = None
                        ) -> tuple[PreparedData, dict[str, str], dict[str, str], list[str]]:
    """Prepare sets given as partitions: encoded on the workers, merged here.

    ``park``, where given (:class:`synthpriv_report.cluster.held.Parking`), is handed each set as soon as its partitions
    are merged, before the next set's are fetched, and again once the set is in its canonical order
    (:func:`~synthpriv_report.data.preparation.finish`): this process then holds one set at a time, the checks reading
    the
    others a block at a time from where they are kept.

    Returns
    -------
    data : PreparedData
        The same as :func:`~synthpriv_report.data.preparation.prepare` on the whole frames (with the identifier-like
        columns
        left out as :class:`~synthpriv_report.evaluation.evaluation.Evaluation` leaves them out).
    auto_excluded, kept : dict
        Identifier-like columns left out, and those kept by ``include``, with the reason.
    exclude : list of str
        The caller's exclusions.
    """
    sets = inputs.sets
    metas = {s: p.meta for s, p in sets.items()}
    frames = _checked_frames(*(_placeholder(metas[s]) if s in metas else None for s in ("T", "S", "H")))
    _check_same_columns({s: metas[s] for s in frames})
    real_meta = metas["T"]
    excl = list(inputs.excluded)
    exclude, num_over, cat_over = _checked_column_lists(list(real_meta.columns), exclude=excl,
                                                           numeric=numeric, categorical=categorical)
    columns = [c for c in real_meta.columns if c not in exclude]
    if not columns:
        raise ValueError("every column is excluded; at least one column must be analysed")
    kinds: dict[str, Kind] = {c: ("numeric" if c in num_over else "categorical" if c in cat_over
                                  else _kind_of(real_meta[c])) for c in columns}
    num_cols = [c for c in columns if kinds[c] == "numeric"]
    cat_cols = [c for c in columns if kinds[c] == "categorical"]
    requested = {c for group in named if group is not None for c in group}
    candidates = [c for c in columns if c not in requested]
    jobs = [(p, part) for s in ("T", "H", "S") if s in sets for p in [sets[s]] for part in p.parts]
    per_set = {s: {"real_meta": real_meta, "num_cols": num_cols, "cat_cols": cat_cols,
                   "reveal": bool(reveal_real_values), "id_candidates": candidates if s == "T" else ()}
               for s in sets}
    summaries, fetch = _encode_parts(client, jobs, per_set)
    by_set: dict[str, list[tuple[Any, EncodedPart]]] = {s: [] for s in sets}
    job_of: dict[str, list[int]] = {s: [] for s in sets}
    for i, ((p, part), r) in enumerate(zip(jobs, summaries)):
        by_set[p.set_name].append((part, r))
        job_of[p.set_name].append(i)
    sizes = {s: sum(r.n for _, r in by_set[s]) for s in ("T", "S", "H") if s in by_set}
    for s in sizes:
        if sizes[s] == 0:
            raise ValueError(f"the {SET_LABELS[s]} data is empty (0 rows)")
    if sizes["T"] < 2:
        raise ValueError(f"the real data needs at least 2 records, got {sizes['T']}")

    num: dict[str, NumericSet] = {}
    fact: dict[str, list[tuple[NDArray[np.integer], NDArray[np.object_]]]] = {}
    for s in sizes:  # each partition's arrays are fetched, copied into the set's and let go: one at a time
        merged = [table_remaps([r.cat[j][1] for _, r in by_set[s]]) for j in range(len(cat_cols))]
        packing = [number_merge([r.num[j] for _, r in by_set[s]]) for j in range(len(num_cols))]
        numbers = [np.empty(sizes[s], dtype=m.dtype) for m in packing]  # packed as they come: no float64 stack
        codes = [np.empty(sizes[s], dtype=remaps[0].dtype) for remaps, _ in merged]  # a set has partitions
        offset = 0
        for k, i in enumerate(job_of[s]):
            whole = fetch(i)
            for j, m in enumerate(packing):
                numbers[j][offset:offset + whole.n] = m.part(*whole.num[j], k)
            for j, (remaps, _) in enumerate(merged):
                codes[j][offset:offset + whole.n] = remaps[k][whole.cat[j][0]]
            offset += whole.n
            del whole
        num[s] = NumericSet([(numbers[j], m.table) for j, m in enumerate(packing)], rows=sizes[s])
        del numbers
        if park is not None:  # kept elsewhere in the caller's order until finish puts it in its canonical order
            num[s], codes, _ = park(num[s], codes, None)
        fact[s] = [(codes[j], table) for j, (_, table) in enumerate(merged)]
        del codes
    failed = {c for s in sizes for _, r in by_set[s] for c in r.failed}

    # identifier-like columns (before any other check, as Evaluation does on a whole frame)
    auto, kept = _identifiers(by_set["T"], real_meta, candidates, num_cols, cat_cols, num["T"], fact["T"],
                              failed, include, excl, requested)
    gone = set(auto)
    columns = [c for c in columns if c not in gone]
    keep_num = [j for j, c in enumerate(num_cols) if c not in gone]
    keep_cat = [j for j, c in enumerate(cat_cols) if c not in gone]
    num_cols = [num_cols[j] for j in keep_num]
    cat_cols = [cat_cols[j] for j in keep_cat]
    if len(keep_num) < num["T"].shape[1]:
        num = {s: a.select(keep_num) for s, a in num.items()}
    fact = {s: [f[j] for j in keep_cat] for s, f in fact.items()}
    kinds = {c: kinds[c] for c in columns}

    # a column entirely missing in the real data, then the first bad value (set by set, column by column)
    for c in columns:
        if all(r.all_missing[c] for s in ("T", "H") if s in by_set for _, r in by_set[s]):
            raise all_missing_error(c)
    for s in ("T", "S", "H"):
        if s not in by_set:
            continue
        for c in num_cols + cat_cols:
            offset = 0
            for part, r in by_set[s]:
                if c in r.failed:
                    _raise_again(client, sets[s], part, real_meta, c, c in num_cols, offset,
                                 bool(reveal_real_values))
                offset += r.n

    # each set's texts are read from its codes and tables: no object pointer per cell is made
    cat = {s: CodedSet.of_factorized(fact[s], rows=sizes[s]) for s in sizes}
    data = finish(sizes=sizes, synthetic_dtypes=metas["S"].dtypes, columns=tuple(columns), kinds=kinds,
                     num_arrays=num, cat_arrays=cat, factorized=fact,
                     exclude=list(exclude) + [c for c in auto if c not in exclude], kept=list(kept),
                     row_order=row_order, park=park,  # type: ignore[arg-type]
                     reveal_real_values=bool(reveal_real_values))
    return data, auto, kept, excl


def _placeholder(meta: pd.DataFrame) -> pd.DataFrame:
    """A frame with the columns of ``meta`` and two rows, for the checks of the inputs' shape (the row counts
    are checked once the partitions are read)."""
    return pd.DataFrame(np.empty((2, meta.shape[1]), dtype=object), columns=meta.columns)


def _raise_again(client: Any, p: Partitions, part: Any, real_meta: pd.DataFrame, column: str, numeric: bool,
                 offset: int, reveal: bool) -> None:
    if p.kind == "pandas":
        raise_part(part, p.kind, p.set_name, real_meta, column, numeric, offset, reveal)
    else:
        import dask

        future = client.compute(dask.delayed(raise_part, pure=False)(part, p.kind, p.set_name, real_meta, column,
                                                                      numeric, offset, reveal))
        future.result()  # raises the worker's ValueError here
    raise RuntimeError(f"column {column!r} failed its check in one partition and passed it when checked again")


def _identifiers(parts: list[tuple[Any, EncodedPart]], real_meta: pd.DataFrame, candidates: Sequence[str],
                 num_cols: Sequence[str], cat_cols: Sequence[str], num_t: NumericSet,
                 fact_t: list[tuple[NDArray[np.int64], NDArray[np.object_]]], failed: set[str],
                 include: Sequence[str] | None, exclude: Sequence[str], requested: set[str]
                 ) -> tuple[dict[str, str], dict[str, str]]:
    """The identifier check of :class:`~synthpriv_report.evaluation.evaluation.Evaluation` on the encoded real data."""
    incl = list(include or [])
    check_include_exclude(incl, exclude)
    found: dict[str, str] = {}
    for c in candidates:
        dtype = real_meta[c].dtype
        if (pd.api.types.is_bool_dtype(dtype) or _is_datetime(real_meta[c])
                or pd.api.types.is_timedelta64_dtype(dtype) or pd.api.types.is_complex_dtype(dtype)):
            continue
        extra = [r.identifier.get(c) for _, r in parts]
        if pd.api.types.is_numeric_dtype(dtype):
            if c in failed:
                continue  # a value that is no finite number: never an identifier (and refused later)
            if c in num_cols:
                arr = num_t[:, list(num_cols).index(c)]
                arr = arr[~np.isnan(arr)]
            else:
                arr = np.concatenate([e[1] for e in extra]) if extra else np.zeros(0)
            reason = numeric_identifier_reason(arr, c, integer=pd.api.types.is_integer_dtype(dtype))
        else:
            if all(e is None for e in extra) and c in cat_cols:
                codes, table = fact_t[list(cat_cols).index(c)]
                n = int((np.asarray(codes) >= 0).sum())
                uniq = table
            else:
                n = sum(e[2] for e in extra if e is not None)
                seen: dict[Any, None] = {}
                for e in extra:
                    for v in (e[1] if e is not None else ()):
                        seen.setdefault(v, None)
                uniq = np.array(list(seen), dtype=object)
            reason = text_identifier_reason(uniq, n)
        if reason is not None:
            found[c] = reason
    return split_identifiers(found, candidates, incl, requested, stacklevel=5)


def partitioned_inputs(real: Any, synthetic: Any, holdout: Any = None, *,
                       exclude: Sequence[str] | None = None, reference: Any = None) -> Any:
    """The sets as partitions to read on a Dask cluster's workers
    (:class:`~synthpriv_report.cluster.partitioned.PartitionedInputs`), or None when no set is a Parquet path or a Dask
    DataFrame (then :func:`read_inputs` reads them here). A pandas DataFrame among them is one partition. Bad
    paths and a string ``exclude`` raise as in :func:`read_inputs`.

    A reference set is not supported on this path: where the sets would be partitioned and ``reference`` is
    given, a ``ValueError`` names ``reference=`` (give every set as a pandas DataFrame to use one with a Dask
    client).
    """
    given = {"T": real, "S": synthetic, "H": holdout}
    kinds = {s: _kind(obj, s) for s, obj in given.items() if obj is not None}
    if reference is not None:
        kinds["R"] = _kind(reference, "R")
    if not any(k in ("parquet", "dask") for k in kinds.values()) or "other" in kinds.values():
        return None
    if reference is not None:
        raise ValueError("reference= cannot be used with partitioned inputs (a Parquet path or a Dask DataFrame "
                         "read on a Dask client's workers): give every set, the reference set included, as a "
                         "pandas DataFrame, or leave reference= out (the membership attacks then split the "
                         "holdout into targets and reference data)")
    if isinstance(exclude, str):
        raise TypeError(f"exclude= must be a list of column names, not the string {exclude!r}")
    return PartitionedInputs({s: partitions_of(given[s], s, k) for s, k in kinds.items()}, tuple(exclude or ()))
