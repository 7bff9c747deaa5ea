"""Inputs other than pandas DataFrames: Parquet files and Dask DataFrames, read for the columns analysed only.

An evaluation's ``real``, ``synthetic``, ``holdout`` and ``reference`` may each be a pandas DataFrame (used as it
is), a path to a Parquet file or dataset folder (``str`` or :class:`os.PathLike` ending in ``.parquet`` or ``.pq``),
or a Dask DataFrame. Only the columns a set's schema names, less the ``exclude=`` columns, are read: Parquet through
``columns=`` (an excluded column is never read from disk), a Dask DataFrame by computing the selected columns only
(``ddf[columns].compute()``: a frame from ``dask.dataframe.read_parquet`` then reads only those columns; work a
graph does for a column anyway, such as an assigned column Dask's optimiser keeps, is Dask's). The rows keep their
order (a Dask DataFrame's partitions in order); the index is ignored, as for DataFrames.

The files of a Parquet dataset must each hold every column once (a file that lacks a column or holds one twice
is refused, naming the file and the column); a column stored in different types by different files takes the
widest of them, the type ``pandas.concat`` of the files gives (float64 where one file holds float32 and another
float64), with or without a Dask client (:func:`synthpriv_report.cluster.partitioned.parquet_layout`).

A reference set (``reference=``, the membership attacks' reference data) is read here like the other sets, but
never partitioned on a cluster: :func:`partitioned_inputs` refuses it, naming ``reference=`` (with a Dask client
and a Parquet or Dask input, give every set as a pandas DataFrame, or leave ``reference=`` out and the attacks
split the holdout).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ..core.formats import SET_LABELS
from .convert import _near_miss
from .parquet import ParquetLayout, parquet_layout, read_parquet_part

__all__ = ["Inputs", "read_inputs", "PARQUET_SUFFIXES"]

PARQUET_SUFFIXES = (".parquet", ".pq")


@dataclass(frozen=True)
class Inputs:
    """The sets as pandas DataFrames, and how :func:`synthpriv_report.data.preparation.prepare` must treat ``exclude=``.

    Attributes
    ----------
    real, synthetic, holdout : DataFrame (holdout optional)
    exclude : sequence of str or None
        What ``prepare(exclude=...)`` receives: the caller's list when every input was a DataFrame, else None
        (the excluded columns were not read).
    excluded : tuple of str
        The columns left out, for the evaluation's record (empty when ``prepare`` handles them).
    reference : DataFrame or None
        The reference set, where given (``reference=``).
    """

    real: pd.DataFrame
    synthetic: pd.DataFrame
    holdout: pd.DataFrame | None
    exclude: Sequence[str] | None
    excluded: tuple[str, ...] = ()
    reference: pd.DataFrame | None = None


def _is_dask_frame(obj: Any) -> bool:
    if type(obj).__module__.split(".")[0] not in ("dask", "dask_expr"):
        return False
    import dask.dataframe as dd

    return isinstance(obj, dd.DataFrame)


def _kind(obj: Any, set_name: str) -> str:
    if isinstance(obj, pd.DataFrame):
        return "pandas"
    if isinstance(obj, (str, os.PathLike)):
        path = Path(obj)
        if path.suffix.lower() not in PARQUET_SUFFIXES:
            raise TypeError(f"the {SET_LABELS[set_name]} data is a path without a Parquet suffix ({str(path)!r}): "
                            f"give a .parquet or .pq path, or read the file into a pandas DataFrame first")
        if not path.exists():
            raise FileNotFoundError(f"the {SET_LABELS[set_name]} data: no such Parquet file or folder {str(path)!r}")
        return "parquet"
    if _is_dask_frame(obj):
        return "dask"
    # anything else goes on to prepare(), which names what it got
    return "other"


def _columns(obj: Any, kind: str, layout: ParquetLayout | None) -> list:
    if kind == "parquet" and layout is not None:
        return layout.columns
    return list(obj.columns)


def _read(obj: Any, kind: str, columns: list, layout: ParquetLayout | None) -> pd.DataFrame:
    if kind == "parquet" and layout is not None:
        if layout.uniform:  # every file stores every column in one type: pandas reads the folder at once
            return pd.read_parquet(obj, columns=columns).reset_index(drop=True)
        # read at once, the files would take the first file's types (a float64 column of a later file cut to
        # float32): each file is read in the dataset's types and the files are joined, as a cluster's workers do
        return pd.concat([read_parquet_part(part, columns) for part in layout.parts], ignore_index=True)
    if kind == "dask":
        return obj[columns].compute().reset_index(drop=True)
    return obj[columns]  # a new frame; the caller's is untouched




def read_inputs(real: Any, synthetic: Any, holdout: Any = None, *,
                exclude: Sequence[str] | None = None, reference: Any = None) -> Inputs:
    """The sets as pandas DataFrames, reading only the analysed columns of Parquet and Dask inputs.

    Parameters
    ----------
    real, synthetic : DataFrame, Parquet path or Dask DataFrame
    holdout : DataFrame, Parquet path or Dask DataFrame, optional
    reference : DataFrame, Parquet path or Dask DataFrame, optional
        The membership attacks' reference set (``reference=``), read as the holdout is.
    exclude : sequence of str, optional
        Columns left out: never read from a Parquet file, not selected for computing from a Dask DataFrame.

    Returns
    -------
    Inputs
        When every input is a pandas DataFrame they are passed on unchanged (``prepare`` applies ``exclude``).

    Raises
    ------
    TypeError
        A path without a Parquet suffix; ``exclude`` given as one string.
    FileNotFoundError
        A Parquet path that does not exist.
    ValueError
        ``exclude`` names a column the real data lacks; a set's columns differ from the real data's; a file of a
        Parquet dataset lacks a column another file holds, or holds one twice.

    Examples
    --------
    >>> T = pd.DataFrame({"id": [1, 2], "age": [30, 40]})
    >>> read_inputs(T, T).real is T
    True
    """
    given = {"T": real, "S": synthetic, "H": holdout, "R": reference}
    kinds = {s: _kind(obj, s) for s, obj in given.items() if obj is not None}
    if all(k in ("pandas", "other") for k in kinds.values()):
        return Inputs(real, synthetic, holdout, exclude, reference=reference)
    if isinstance(exclude, str):
        raise TypeError(f"exclude= must be a list of column names, not the string {exclude!r}")
    if "other" in kinds.values():  # prepare() names the offending set and type
        return Inputs(real, synthetic, holdout, exclude, reference=reference)
    excl = list(exclude or [])
    # each Parquet input's files checked to hold the same columns once each, and each column's widest type
    layouts = {s: parquet_layout(given[s], s) if k == "parquet" else None for s, k in kinds.items()}
    cols = {s: _columns(given[s], k, layouts[s]) for s, k in kinds.items()}
    bad = [c for c in cols["T"] if not isinstance(c, str)]
    if bad:
        raise TypeError(f"the {SET_LABELS['T']} data has non-string column names: {bad[:5]!r}; rename them")
    unknown = [c for c in excl if c not in cols["T"]]
    if unknown:
        raise ValueError(f"exclude= names column(s) not in the data: {', '.join(map(repr, unknown))}")
    if all(c in excl for c in cols["T"]):
        raise ValueError("every column is excluded; at least one column must be analysed")
    for s in cols:
        if s == "T":
            continue
        missing = [c for c in cols["T"] if c not in cols[s]]
        extra = [c for c in cols[s] if c not in cols["T"]]
        if missing:
            raise ValueError(f"column(s) {', '.join(map(repr, missing))} of the real data are missing from the "
                             f"{SET_LABELS[s]} data{_near_miss(missing[0], extra)}")
        if extra:
            raise ValueError(f"column(s) {', '.join(map(repr, extra))} of the {SET_LABELS[s]} data are not in "
                             f"the real data")
    frames = {s: _read(given[s], kinds[s], [c for c in cols[s] if c not in excl], layouts[s]) for s in kinds}
    return Inputs(frames["T"], frames["S"], frames.get("H"), None, tuple(excl), reference=frames.get("R"))
