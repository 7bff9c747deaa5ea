"""Small demo data shipped inside the package: an Adult census sample with an honest and a leaky synthetic set.

The files under ``datasets/data/`` were made once by ``scripts/make_demo_data.py`` (seeded, reproducible) from
the UCI Adult training file; the package never reads anything outside itself to load them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields
from importlib import resources

import numpy as np
import pandas as pd

__all__ = ["DEMO_FILES", "DemoData", "load_demo", "memorised_atypical", "nearest_other_distance",
           "synthetic_with_copies"]

#: Field name -> shipped file (xz-compressed CSV under ``synthpriv_report/datasets/data/``).
DEMO_FILES: dict[str, str] = {
    "real": "real.csv.xz",
    "holdout": "holdout.csv.xz",
    "synthetic": "synthetic.csv.xz",
    "synthetic_leaky": "synthetic_leaky.csv.xz",
}

_DESCRIPTION = (
    "Demo data from the UCI Adult census income data set (Becker and Kohavi, 1996; 15 columns: age, "
    "workclass, fnlwgt, education, education-num, marital-status, occupation, relationship, race, sex, "
    "capital-gain, capital-loss, hours-per-week, native-country, income). 'real' is 3,000 records sampled from "
    "the Adult training file and 'holdout' 1,500 further disjoint records of the same population. 'synthetic' "
    "(3,000 records) comes from an honest generator fitted on 'real' only: every column is resampled "
    "independently within each income class, numeric columns with a small jitter; it copies no record. "
    "'synthetic_leaky' (3,000 records) is 1,500 exact copies of 'real' records and 1,500 lightly perturbed "
    "copies of other 'real' records (age +-1, hours-per-week +-2, fnlwgt +-2 %): a memorising generator. "
    "synthetic_with_copies() makes sets between the two, with any share of copies and near copies. Made "
    "reproducibly (fixed random seed) by scripts/make_demo_data.py in the package's repository."
)


@dataclass(frozen=True, eq=False)
class DemoData(Mapping[str, object]):
    """The demo data sets and suggested attribute roles (also readable as a mapping: ``demo["real"]``).

    Attributes
    ----------
    real : DataFrame
        Real training records T, 3,000 rows x 15 columns.
    holdout : DataFrame
        Real holdout records H (not seen by either generator), 1,500 rows.
    synthetic : DataFrame
        Honest synthetic records S (class-conditional independent resampling), 3,000 rows.
    synthetic_leaky : DataFrame
        Leaky synthetic records (half exact copies, half perturbed copies of ``real``), 3,000 rows.
    key_fields : tuple of str
        Suggested key attributes A_K (quasi-identifiers an attacker may know): age, sex, race, marital-status.
    sensitive_fields : tuple of str
        Suggested sensitive attribute A_S: income.
    description : str
        Where the data come from and how the synthetic sets were made.
    """

    real: pd.DataFrame
    holdout: pd.DataFrame
    synthetic: pd.DataFrame
    synthetic_leaky: pd.DataFrame
    key_fields: tuple[str, ...]
    sensitive_fields: tuple[str, ...]
    description: str

    def __getitem__(self, key: str) -> object:
        if key not in self._names():
            raise KeyError(f"no demo field {key!r}; available: {', '.join(self._names())}")
        return getattr(self, key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())

    @classmethod
    def _names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    def __repr__(self) -> str:
        sizes = ", ".join(f"{n}={len(getattr(self, n))} rows" for n in DEMO_FILES)
        return f"DemoData({sizes}, key_fields={self.key_fields}, sensitive_fields={self.sensitive_fields})"


def _has_lzma() -> bool:
    try:
        import lzma  # noqa: F401  (absent from some builds of Python, Pyodide's among them)
    except ImportError:
        return False
    return True


def gzip_name(filename: str) -> str:
    """The gzip copy's name of a shipped ``.csv.xz`` file (what a Python without ``lzma`` reads)."""
    return filename[: -len(".xz")] + ".gz"


def _read(filename: str) -> pd.DataFrame:
    """One shipped file: the xz-compressed CSV, or where Python has no ``lzma`` module (Pyodide) its gzip copy,
    which the in-browser site's wheel carries (:mod:`synthpriv_report.tools.lite`); both hold the same text."""
    folder = resources.files(__name__).joinpath("data")
    if _has_lzma() and folder.joinpath(filename).is_file():
        with folder.joinpath(filename).open("rb") as fh:
            return pd.read_csv(fh, compression="xz")
    gz = folder.joinpath(gzip_name(filename))
    if not gz.is_file():
        raise RuntimeError(f"the demo file {filename} is xz-compressed and this Python has no lzma module; install "
                           "the package from a wheel made by `synthpriv-report lite`, which carries gzip copies")
    with gz.open("rb") as fh:
        return pd.read_csv(fh, compression="gzip")


def load_demo() -> DemoData:
    """Load the embedded Adult demo data (no file or network access outside the package).

    Every call reads the shipped files again, so callers may modify the frames they get.

    Returns
    -------
    DemoData
        Frozen dataclass (also a read-only mapping) with fields ``real`` (T, 3,000 rows), ``holdout``
        (H, 1,500 rows), ``synthetic`` (honest S, 3,000 rows), ``synthetic_leaky`` (memorising S, 3,000 rows),
        ``key_fields`` (``("age", "sex", "race", "marital-status")``), ``sensitive_fields`` (``("income",)``)
        and ``description``. All four frames have the same 15 columns; missing categories are NaN.

    Examples
    --------
    >>> from synthpriv_report.datasets import load_demo
    >>> demo = load_demo()
    >>> demo.real.shape, demo.holdout.shape
    ((3000, 15), (1500, 15))
    >>> demo.sensitive_fields
    ('income',)
    >>> from synthpriv_report import Evaluation
    >>> ev = Evaluation(demo.real, demo.synthetic, demo.holdout, key_fields=demo.key_fields,
    ...                 sensitive_fields=demo.sensitive_fields, progress=False)  # doctest: +SKIP
    """
    frames = {name: _read(filename) for name, filename in DEMO_FILES.items()}
    return DemoData(
        **frames,
        key_fields=("age", "sex", "race", "marital-status"),
        sensitive_fields=("income",),
        description=_DESCRIPTION,
    )


#: How a near copy differs from the real record it copies: (column, largest change, kind), as in the shipped
#: leaky set (age +-1 year, hours-per-week +-2 hours, fnlwgt +-2 %; categories and capital columns unchanged).
NEAR_COPY_CHANGES: tuple[tuple[str, float, str], ...] = (
    ("age", 1, "add"), ("hours-per-week", 2, "add"), ("fnlwgt", 0.02, "scale"),
)


def synthetic_with_copies(demo: DemoData, copy_share: float = 0.0, near_share: float = 0.0, *,
                          random_state: int = 0) -> pd.DataFrame:
    """A synthetic set between the demo's honest and leaky ones: the honest set with a share of its records
    replaced by exact copies of real training records and another share by near copies.

    A teaching tool: moving ``copy_share`` and ``near_share`` shows which measure reacts first to which kind of
    leak. Near copies change age by up to 1 year, hours-per-week by up to 2 hours and fnlwgt by up to 2 %
    (:data:`NEAR_COPY_CHANGES`), the perturbation of the shipped leaky set.

    Parameters
    ----------
    demo : DemoData
        From :func:`load_demo`.
    copy_share, near_share : float
        Shares of the synthetic records (each in [0, 1], together at most 1) that are exact copies, and near
        copies, of distinct training records. Both 0 gives the honest set unchanged.
    random_state : int
        Seed: which synthetic rows are replaced, which real rows are copied, and the perturbations.

    Returns
    -------
    DataFrame
        As many rows as ``demo.synthetic`` and the same columns and dtypes.

    Examples
    --------
    >>> demo = load_demo()
    >>> s = synthetic_with_copies(demo, copy_share=0.1, near_share=0.05, random_state=0)
    >>> s.shape == demo.synthetic.shape
    True
    >>> int(s.merge(demo.real.drop_duplicates(), how="inner").shape[0]) >= 300
    True
    """
    for name, share in (("copy_share", copy_share), ("near_share", near_share)):
        if not 0.0 <= float(share) <= 1.0:
            raise ValueError(f"{name} must be in [0, 1], got {share!r}")
    if copy_share + near_share > 1.0 + 1e-12:
        raise ValueError(f"copy_share + near_share must be at most 1, got {copy_share} + {near_share}")
    rng = np.random.default_rng(random_state)
    honest, real = demo.synthetic, demo.real
    n = len(honest)
    n_copy, n_near = int(round(copy_share * n)), int(round(near_share * n))
    n_copy, n_near = min(n_copy, len(real)), min(n_near, len(real) - min(n_copy, len(real)))
    replaced = rng.choice(n, size=n_copy + n_near, replace=False)
    sources = rng.choice(len(real), size=n_copy + n_near, replace=False)
    out = honest.copy()
    copied = real.iloc[sources].reset_index(drop=True)
    near = copied.iloc[n_copy:].copy()
    for column, size, kind in NEAR_COPY_CHANGES:
        if column not in near.columns or len(near) == 0:
            continue
        values = near[column].to_numpy()
        if kind == "add":
            changed = values + rng.integers(-int(size), int(size) + 1, size=len(near))
        else:
            changed = np.rint(values * (1.0 + rng.uniform(-size, size, size=len(near))))
        lo, hi = real[column].min(), real[column].max()
        near[column] = np.clip(changed, lo, hi).astype(real[column].dtype)
    new_rows = pd.concat([copied.iloc[:n_copy], near], ignore_index=True)
    for column in out.columns:
        col = out[column].astype(object) if out[column].dtype != new_rows[column].dtype else out[column]
        values = col.to_numpy().copy()
        values[replaced] = new_rows[column].to_numpy()
        out[column] = pd.Series(values, index=out.index).astype(honest[column].dtype)
    return out


def nearest_other_distance(real: pd.DataFrame, *, rows_per_block: int = 256) -> np.ndarray:
    """Each record's gower distance to its nearest *other* record of ``real``, by brute force (for the leak
    injector; the evaluation's own searches are exact and far faster).

    Per column: numbers ``|a - b|`` over the column's range (0 for a constant column), categories 0 when equal and 1
    otherwise; a missing value is equal to a missing value and at distance 1 from any other. The distance is the
    mean over the columns.

    Examples
    --------
    >>> nearest_other_distance(pd.DataFrame({"x": [0.0, 1.0, 4.0], "c": ["a", "a", "b"]})).tolist()
    [0.125, 0.125, 0.875]
    """
    n = len(real)
    if n < 2:
        return np.full(n, np.inf)
    parts: list[tuple[np.ndarray, bool, float]] = []
    for c in real.columns:
        col = real[c]
        if pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
            v = col.to_numpy(dtype=np.float64)
            finite = v[np.isfinite(v)]
            span = float(finite.max() - finite.min()) if finite.size else 0.0
            parts.append((v, True, span))
        else:
            codes = pd.factorize(col, use_na_sentinel=True)[0].astype(np.float64)
            codes[codes < 0] = np.nan
            parts.append((codes, False, 0.0))
    out = np.empty(n)
    for a in range(0, n, rows_per_block):
        b = min(n, a + rows_per_block)
        total = np.zeros((b - a, n))
        for v, numeric, span in parts:
            x, y = v[a:b, None], v[None, :]
            both_missing = np.isnan(x) & np.isnan(y)
            one_missing = np.isnan(x) ^ np.isnan(y)
            with np.errstate(invalid="ignore"):
                d = (np.abs(x - y) / span if span > 0 else np.zeros_like(x - y)) if numeric else (x != y) * 1.0
            d = np.where(both_missing, 0.0, np.where(one_missing, 1.0, d))
            total += d
        total /= len(parts)
        total[np.arange(b - a), np.arange(a, b)] = np.inf
        out[a:b] = total.min(axis=1)
    return out


def memorised_atypical(train: pd.DataFrame, synthetic: pd.DataFrame, *, share: float = 0.02, noise: float = 0.01,
                       random_state: int = 0) -> pd.DataFrame:
    """``synthetic`` with the most atypical training records memorised: the leak that distance checks miss.

    The ``round(share * len(train))`` training records farthest from their nearest other training record
    (:func:`nearest_other_distance`; ties broken by a hash of the record's values, so the choice does not depend on
    the row order) replace as many synthetic records (seeded positions), every number moved by ``noise`` times its
    column's range in the training data, up or down at random: no exact copy, no record equal but on one column,
    beyond the near-copy cut-off of closely spaced data. This is how Meeus et al. ("Achilles' Heels: Vulnerable
    Record Identification in Synthetic Data Publishing", ESORICS 2023) describe where the risk concentrates.

    Parameters
    ----------
    train, synthetic : DataFrame
        The real training records and an honest synthetic set with the same columns (at least as many records as
        are memorised).
    share : float
        Share of the training records memorised, in [0, 1].
    noise : float
        Size of the move of each number, as a share of its column's range, at least 0.
    random_state : int

    Returns
    -------
    DataFrame
        As many rows as ``synthetic``, its columns; numeric columns as float64. Neither input is changed.

    Examples
    --------
    The record at 10 lies farthest from the others; it replaces one synthetic record, moved by 10% of the range:

    >>> t = pd.DataFrame({"x": [0.0, 1.0, 2.0, 10.0]})
    >>> s = memorised_atypical(t, pd.DataFrame({"x": [5.0, 5.0]}), share=0.25, noise=0.1, random_state=0)
    >>> sorted(s["x"].tolist())[0], sorted(s["x"].tolist())[1] in (9.0, 11.0)
    (5.0, True)
    """
    if not 0.0 <= float(share) <= 1.0:
        raise ValueError(f"share must be in [0, 1], got {share!r}")
    if not float(noise) >= 0.0:
        raise ValueError(f"noise must be at least 0, got {noise!r}")
    if list(train.columns) != list(synthetic.columns):
        raise ValueError("train and synthetic must have the same columns in the same order")
    k = int(round(float(share) * len(train)))
    if k > len(synthetic):
        raise ValueError(f"{k} records to memorise but the synthetic set holds {len(synthetic)}")
    rng = np.random.default_rng(random_state)
    dist = nearest_other_distance(train)
    tie = pd.util.hash_pandas_object(train, index=False).to_numpy()
    chosen = np.lexsort((tie, -dist))[:k]
    src = train.iloc[np.sort(chosen)].reset_index(drop=True).copy()
    out = synthetic.copy()
    numeric = [c for c in train.columns
               if pd.api.types.is_numeric_dtype(train[c]) and not pd.api.types.is_bool_dtype(train[c])]
    for c in numeric:
        span = float(train[c].max() - train[c].min())
        src[c] = src[c].astype(np.float64) + rng.choice([-1.0, 1.0], size=k) * float(noise) * span
        out[c] = out[c].astype(np.float64)
    where = np.sort(rng.choice(len(synthetic), size=k, replace=False))
    for c in out.columns:
        values = out[c].to_numpy(dtype=object if c not in numeric else np.float64).copy()
        values[where] = src[c].to_numpy()
        out[c] = pd.Series(values, index=out.index).astype(np.float64 if c in numeric else synthetic[c].dtype)
    return out
