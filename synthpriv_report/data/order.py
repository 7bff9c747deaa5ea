"""The canonical row order: a set's rows put in an order that does not depend on how the caller ordered them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from .containers import CodedSet, NumericSet, code_dtype, position_dtype, read_codes


def _canonicalize(s: str, num_arrays: dict[str, NDArray[np.float64] | NumericSet],
                  cat_arrays: dict[str, NDArray[np.object_] | CodedSet],
                  factorized: dict[str, list[tuple[NDArray[np.int64], NDArray[np.object_]]]]) -> NDArray[np.integer]:
    """Put set ``s`` in its canonical order (:func:`synthpriv_report.matching.identity.canonical_order`), in place in
    the
    three dicts, and number each categorical column's texts in order of first appearance in that order (codes in
    the narrowest integer type that holds them, :func:`code_dtype`); returns the order (canonical position ->
    caller's row, in :func:`position_dtype`). A column in the old order is let go as soon as it is reordered
    (the packed numbers are reordered in place, the list ``factorized[s]`` emptied as its codes are renumbered),
    so that the set is never held twice."""
    from ..matching.identity import canonical_order

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
