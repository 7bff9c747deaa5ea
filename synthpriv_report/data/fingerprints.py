"""A set's fingerprint: a digest of its values, written into the reports so that a reader can tell which data they
describe.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from .containers import MISSING, Kind, NumericSet


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
