"""Validate and align the real training (T), holdout (H) and synthetic (S) sets once (spec section 0).

The caller's DataFrames are never modified: every conversion works on copies.
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd
from numpy.typing import NDArray

Kind = Literal["numeric", "categorical"]
SetName = Literal["T", "H", "S"]

SET_LABELS: dict[str, str] = {"T": "real (training)", "H": "holdout", "S": "synthetic"}

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
        Set name -> float64 array ``(n, n_numeric)`` of numeric columns (NaN = missing).
    categorical : dict
        Set name -> object array ``(n, n_categorical)`` of strings (:data:`MISSING` = missing).
    sizes : dict
        Set name -> number of records.
    fingerprints : dict
        Set name -> SHA-256 of the canonical form of the analysed columns.
    excluded : tuple of str
        Columns left out at the caller's request.
    """

    columns: tuple[str, ...]
    kinds: dict[str, Kind]
    numeric: dict[str, NDArray[np.float64]]
    categorical: dict[str, NDArray[np.object_]]
    sizes: dict[str, int]
    fingerprints: dict[str, str]
    excluded: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def numeric_columns(self) -> tuple[str, ...]:
        return tuple(c for c in self.columns if self.kinds[c] == "numeric")

    @property
    def categorical_columns(self) -> tuple[str, ...]:
        return tuple(c for c in self.columns if self.kinds[c] == "categorical")

    @property
    def sets(self) -> tuple[str, ...]:
        """Names of the sets present, in the order T, H, S."""
        return tuple(s for s in ("T", "H", "S") if s in self.sizes)

    @property
    def has_holdout(self) -> bool:
        return "H" in self.sizes

    def column_values(self, set_name: str, column: str) -> NDArray:
        """Values of one column of one set (float64 for numeric, strings for categorical)."""
        if self.kinds[column] == "numeric":
            return self.numeric[set_name][:, self.numeric_columns.index(column)]
        return self.categorical[set_name][:, self.categorical_columns.index(column)]


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


def _to_numeric(series: pd.Series, column: str, set_name: str, *, datetime_like: bool = False
                ) -> NDArray[np.float64]:
    """Convert one column to float64, with errors that name the column and the set.

    Datetimes become seconds since the epoch (UTC); when the real column is a datetime, text in another set is
    parsed as a datetime.
    """
    label = SET_LABELS[set_name]
    if datetime_like and not _is_datetime(series) and not pd.api.types.is_numeric_dtype(series.dtype):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "could not infer format": parsed element-wise
            parsed = pd.to_datetime(series, errors="coerce", utc=True)
        bad = parsed.isna() & series.notna()
        if bad.any():
            raise ValueError(
                f"column {column!r} holds datetimes in the real data but has values that are not datetimes in "
                f"the {label} data: {series[bad].iloc[0]!r} ({int(bad.sum())} value(s))"
            )
        series = parsed
    if pd.api.types.is_datetime64_any_dtype(series.dtype) or isinstance(series.dtype, pd.DatetimeTZDtype):
        ts = pd.to_datetime(series)
        if getattr(ts.dt, "tz", None) is not None:
            ts = ts.dt.tz_convert("UTC").dt.tz_localize(None)
        vals = ts.astype("datetime64[ns]").to_numpy().astype("int64").astype(np.float64) / 1e9
        vals[ts.isna().to_numpy()] = np.nan
        return vals
    if pd.api.types.is_timedelta64_dtype(series.dtype):
        vals = series.dt.total_seconds().to_numpy(dtype=np.float64, na_value=np.nan)
        return vals
    if pd.api.types.is_bool_dtype(series.dtype):
        return series.astype("float64").to_numpy()
    if pd.api.types.is_numeric_dtype(series.dtype):
        vals = series.to_numpy(dtype=np.float64, na_value=np.nan)
    else:
        converted = pd.to_numeric(series, errors="coerce")
        bad = converted.isna() & series.notna()
        if bad.any():
            example = series[bad].iloc[0]
            raise ValueError(
                f"column {column!r} is numeric in the real data but has non-numeric values in the {label} data: "
                f"{example!r} ({int(bad.sum())} value(s))"
            )
        vals = converted.to_numpy(dtype=np.float64, na_value=np.nan)
    inf = np.isinf(vals)
    if inf.any():
        raise ValueError(
            f"column {column!r} has {int(inf.sum())} infinite value(s) in the {label} data; "
            "replace them with a finite value or a missing value"
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
    missing = series.isna().to_numpy()
    out = np.empty(len(series), dtype=object)
    if series.dtype != object:
        # one conversion per distinct value (a typed column holds no values that compare equal but print
        # differently, such as True and 1 in an object column)
        codes, uniques = pd.factorize(series)
        texts = np.empty(len(uniques) + 1, dtype=object)
        texts[:-1] = [_as_text(u) for u in uniques]
        texts[-1] = MISSING
        out[:] = texts[codes]  # code -1 (missing) takes the last entry
    elif pd.api.types.infer_dtype(series, skipna=True) == "string":
        out[:] = series.to_numpy(dtype=object)  # already text
    else:
        vals = series.to_numpy(dtype=object)
        out[:] = [_as_text(v) for v in vals] if len(vals) else []
    out[missing] = MISSING
    return out


def fingerprint(numeric: NDArray[np.float64], categorical: NDArray[np.object_], columns: Sequence[str],
                kinds: dict[str, Kind]) -> str:
    """SHA-256 of a canonical form: column names and kinds, numeric values as float64 bytes (one NaN),
    categorical values as UTF-8 strings, row by row in the given order.

    >>> len(fingerprint(np.zeros((2, 1)), np.array([["a"], ["b"]], dtype=object), ["x", "y"],
    ...                 {"x": "numeric", "y": "categorical"}))
    64
    """
    h = hashlib.sha256()
    h.update(("\x1f".join(f"{c}:{kinds[c]}" for c in columns)).encode())
    num = np.ascontiguousarray(numeric, dtype="<f8").copy()
    num[np.isnan(num)] = np.nan  # one canonical NaN payload
    h.update(num.tobytes())
    # row by row, each value length-prefixed so that no value can imitate a separator; each distinct value is
    # encoded once
    flat = np.asarray(categorical, dtype=object).ravel()
    if flat.size:
        codes, uniques = pd.factorize(flat)
        blobs = np.empty(len(uniques), dtype=object)
        for i, v in enumerate(uniques):
            b = v.encode("utf-8", "surrogatepass")
            blobs[i] = len(b).to_bytes(8, "little") + b
        h.update(b"".join(blobs[codes].tolist()))
    h.update(str(numeric.shape[0]).encode())
    return h.hexdigest()


def prepare(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    holdout: pd.DataFrame | None = None,
    *,
    numeric: Sequence[str] | None = None,
    categorical: Sequence[str] | None = None,
    exclude: Sequence[str] | None = None,
) -> PreparedData:
    """Validate and align T, H and S (spec section 0).

    Parameters
    ----------
    real, synthetic : DataFrame
        The real training records T and the synthetic records S.
    holdout : DataFrame, optional
        Real records the generator did not see (H).
    numeric, categorical : sequence of str, optional
        Columns whose kind overrides the one inferred from T's dtype.
    exclude : sequence of str, optional
        Columns left out of every metric (identifiers).

    Returns
    -------
    PreparedData

    Raises
    ------
    TypeError
        A set is not a DataFrame, or has non-string column names.
    ValueError
        An empty set, fewer than 2 real records, duplicate column names, a column missing from a set, a numeric
        column holding text, infinities, a column entirely missing in the real data. Each message names the
        column and the set.

    >>> T = pd.DataFrame({"age": [30, 40], "sex": ["F", "M"]})
    >>> d = prepare(T, T.copy())
    >>> d.kinds
    {'age': 'numeric', 'sex': 'categorical'}
    """
    frames: dict[str, pd.DataFrame] = {"T": _check_frame(real, "T"), "S": _check_frame(synthetic, "S")}
    if holdout is not None:
        frames["H"] = _check_frame(holdout, "H")
    if len(frames["T"]) < 2:
        raise ValueError(f"the real data needs at least 2 records, got {len(frames['T'])}")

    t_cols = list(frames["T"].columns)
    for s, df in frames.items():
        if s == "T":
            continue
        missing = [c for c in t_cols if c not in df.columns]
        extra = [c for c in df.columns if c not in t_cols]
        if missing:
            raise ValueError(
                f"column(s) {', '.join(map(repr, missing))} of the real data are missing from the "
                f"{SET_LABELS[s]} data"
            )
        if extra:
            raise ValueError(
                f"column(s) {', '.join(map(repr, extra))} of the {SET_LABELS[s]} data are not in the real data"
            )

    exclude = list(exclude or [])
    numeric = list(numeric or [])
    categorical = list(categorical or [])
    for arg_name, cols in (("exclude", exclude), ("numeric", numeric), ("categorical", categorical)):
        unknown = [c for c in cols if c not in t_cols]
        if unknown:
            raise ValueError(f"{arg_name}= names column(s) not in the data: {', '.join(map(repr, unknown))}")
    both = set(numeric) & set(categorical)
    if both:
        raise ValueError(f"column(s) {sorted(both)} are listed as both numeric and categorical")

    columns = tuple(c for c in t_cols if c not in exclude)
    if not columns:
        raise ValueError("every column is excluded; at least one column must be analysed")

    kinds: dict[str, Kind] = {}
    for c in columns:
        if c in numeric:
            kinds[c] = "numeric"
        elif c in categorical:
            kinds[c] = "categorical"
        else:
            kinds[c] = _kind_of(frames["T"][c])

    # Real data (T and H) together decide whether a column is entirely missing.
    for c in columns:
        real_missing = frames["T"][c].isna().all() and (holdout is None or frames["H"][c].isna().all())
        if real_missing:
            raise ValueError(
                f"column {c!r} is entirely missing in the real data; exclude it with exclude=[{c!r}]"
            )

    num_cols = [c for c in columns if kinds[c] == "numeric"]
    cat_cols = [c for c in columns if kinds[c] == "categorical"]
    num_arrays: dict[str, NDArray[np.float64]] = {}
    cat_arrays: dict[str, NDArray[np.object_]] = {}
    for s, df in frames.items():
        n = len(df)
        num = np.empty((n, len(num_cols)), dtype=np.float64)
        for j, c in enumerate(num_cols):
            num[:, j] = _to_numeric(df[c], c, s, datetime_like=_is_datetime(frames["T"][c]))
        cat = np.empty((n, len(cat_cols)), dtype=object)
        for j, c in enumerate(cat_cols):
            col = df[c]
            if s != "T" and pd.api.types.is_bool_dtype(frames["T"][c].dtype):
                col = _as_bool_text(col)
            cat[:, j] = _to_strings(col)
        num_arrays[s] = num
        cat_arrays[s] = cat

    ordered = num_cols + cat_cols
    prints = {s: fingerprint(num_arrays[s], cat_arrays[s], ordered, kinds) for s in frames}
    notes = []
    for c in num_cols:
        real_vals = np.concatenate([num_arrays[s][:, num_cols.index(c)] for s in ("T", "H") if s in frames])
        finite = real_vals[~np.isnan(real_vals)]
        if finite.size and finite.min() == finite.max():
            notes.append(f"column {c!r} is constant in the real data: its range is treated as 1 (spec section 1)")
    for c in cat_cols:
        real_vals = np.concatenate([cat_arrays[s][:, cat_cols.index(c)] for s in ("T", "H") if s in frames])
        if len(set(real_vals.tolist())) == 1:
            notes.append(f"column {c!r} is constant in the real data: it only separates records of S that differ")
    return PreparedData(
        columns=columns,
        kinds=kinds,
        numeric=num_arrays,
        categorical=cat_arrays,
        sizes={s: len(df) for s, df in frames.items()},
        fingerprints=prints,
        excluded=tuple(exclude),
        notes=tuple(notes),
    )
