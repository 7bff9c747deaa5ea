"""A Parquet dataset read part by part: its layout (files, row counts, columns) and one part's analysed columns,
so that no set given as Parquet is read whole where it need not be.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..core.formats import SET_LABELS


@dataclass(frozen=True)
class ParquetPart:
    """One file of a Parquet dataset, and the columns whose values must be widened as they are read.

    Attributes
    ----------
    path : str
        The file.
    widen : tuple of (str, dtype)
        Columns this file stores in a narrower type than the dataset's (float32 where another file holds
        float64, say), each with the dataset's type (:func:`parquet_layout`).
    """

    path: str
    widen: tuple[tuple[str, Any], ...] = ()

@dataclass(frozen=True)
class ParquetLayout:
    """A Parquet file or dataset folder as its files' footers describe it (no row read).

    Attributes
    ----------
    parts : list of ParquetPart
        The files in pyarrow's order (the order ``pandas.read_parquet`` reads them in).
    meta : DataFrame
        No rows: the data columns (pandas' stored index columns left out) in the first file's order, each with
        the type the files read one by one and joined with ``pandas.concat`` give it: the widest of the files'
        types (float64 where one file holds float32 and another float64).
    """

    parts: list[ParquetPart]
    meta: pd.DataFrame

    @property
    def columns(self) -> list[str]:
        """The data columns."""
        return [str(c) for c in self.meta.columns]

    @property
    def uniform(self) -> bool:
        """Whether every file stores every column in the dataset's type (nothing is widened)."""
        return not any(part.widen for part in self.parts)

def _index_columns(schema: Any) -> set[str]:
    """The columns in which pandas stored a frame's index (named in the schema's pandas metadata)."""
    meta = schema.pandas_metadata
    return {c for c in (meta or {}).get("index_columns", []) if isinstance(c, str)}

def parquet_layout(path: Any, set_name: str) -> ParquetLayout:
    """The files of a Parquet file or dataset folder, checked to agree on their columns, and each column's type.

    Every file must hold every data column exactly once: with a Dask client each file is read on its own, and
    reading the folder at once would fill a column a file lacks with missing values. Where the files store a
    column in different types, the dataset's type is the one ``pandas.concat`` of the files gives (the widest),
    so that the numbers are the same whether the files are read here or on a cluster's workers.

    Parameters
    ----------
    path : str or os.PathLike
        A Parquet file, or a folder of them.
    set_name : {"T", "S", "H"}
        The set, for the error messages.

    Returns
    -------
    ParquetLayout

    Raises
    ------
    ValueError
        A file holds a column twice, or lacks a column another file holds (the message names the file and the
        column).
    """
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    label = f"of the {SET_LABELS[set_name]} data {str(path)!r}"
    files = list(ds.dataset(str(path), format="parquet").files)
    folder = os.path.isdir(path)

    def shown(f: str) -> str:  # a file of a folder by its path inside the folder
        return repr(os.path.relpath(f, path) if folder else f)

    names: list[list[str]] = []
    metas: list[pd.DataFrame] = []
    for f in files:
        schema = pq.read_schema(f)
        index = _index_columns(schema)
        own = [n for n in schema.names if n not in index]
        repeated = [n for n, count in Counter(own).items() if count > 1]
        if repeated:
            raise ValueError(f"the file {shown(f)} {label} holds the column {repeated[0]!r} "
                             f"{own.count(repeated[0])} times; each column must appear once in every file")
        names.append(own)
        metas.append(schema.empty_table().to_pandas().reset_index(drop=True)[own])
    union = list(dict.fromkeys(n for own in names for n in own))
    for f, own in zip(files, names):
        lacking = [n for n in union if n not in own]
        if lacking:
            holder = next(g for g, other in zip(files, names) if lacking[0] in other)
            raise ValueError(f"the file {shown(f)} {label} lacks the column {lacking[0]!r}, which the file "
                             f"{shown(holder)} holds; every file of a Parquet dataset must hold the same columns")
    if not metas:
        return ParquetLayout([], ds.dataset(str(path), format="parquet").schema.empty_table().to_pandas()
                             .reset_index(drop=True))
    meta = pd.concat(metas, ignore_index=True) if len(metas) > 1 else metas[0]
    parts = [ParquetPart(f, tuple((c, meta[c].dtype) for c in m.columns if m[c].dtype != meta[c].dtype))
             for f, m in zip(files, metas)]
    return ParquetLayout(parts, meta)

def read_parquet_part(part: ParquetPart, columns: Sequence[str]) -> pd.DataFrame:
    """``columns`` of one file of a Parquet dataset, each in the dataset's type (:func:`parquet_layout`)."""
    df = pd.read_parquet(part.path, columns=list(columns)).reset_index(drop=True)
    wanted = set(columns)
    for c, dtype in part.widen:
        if c in wanted:
            df[c] = df[c].astype(dtype)
    return df
