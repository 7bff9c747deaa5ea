"""A column converted once: numbers, texts, booleans and dates read from a caller's frame, every bad value
refused with its column, set and row.
"""

from __future__ import annotations

import contextvars
import unicodedata
import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ..core.formats import SET_LABELS
from .containers import MISSING, Kind


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
#: (:mod:`synthpriv_report.cluster.partitioned`): an error names the row's position in the set, not in the partition.
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


def _may_be_boolean(tables: Mapping[str, NDArray[np.object_]]) -> bool:
    """Whether a column whose sets hold the distinct texts ``tables`` can be one :func:`_unify_booleans` rewrites
    (every text a boolean spelling, not too many): read from the tables alone, before any record's text."""
    if any(len(t) > _MAX_BOOL_SPELLINGS for t in tables.values()):
        return False  # far too many distinct values to be a boolean: skip the per-value check
    spellings = BOOL_TRUE | BOOL_FALSE
    return all(v == MISSING or v.strip().lower() in spellings for t in tables.values() for v in t.tolist())
