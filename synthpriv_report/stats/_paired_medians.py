"""Compiled kernel of :func:`synthpriv_report.stats.paired_median_replicates` (a module of its own, imported on
first use, so that numba caches the machine code on disk: functions defined inside other functions are not
cached)."""

from __future__ import annotations

import numpy as np

from .._compiled import COMPILED, njit, prange


@njit(cache=True, inline="always")
def median_of_counts(c, v, lo_rank, hi_rank, frac):
    """The linear-interpolation quantile between ranks ``lo_rank`` and ``hi_rank`` (weight ``frac``) of values
    ``v`` (ascending) held ``c[j]`` times each; NaN when the counts end before ``hi_rank``."""
    acc = 0
    lo_v = 0.0
    found_lo = False
    for j in range(c.shape[0]):
        acc += c[j]
        if not found_lo and acc > lo_rank:
            lo_v = v[j]
            found_lo = True
        if acc > hi_rank:
            return lo_v + frac * (v[j] - lo_v)
    return np.nan

def windowed(a, b_sorted, rank_b, seeds, lo_rank, hi_rank, frac, half):
    """Bootstrap replicates of (median of ``a``, median of ``b``) over the same resampled records (see
    :func:`_windowed`); one resample per seed, each seed taken modulo 2**32 (numba's ``np.random.seed`` keeps its
    low 32 bits; NumPy's legacy generator, which draws the same numbers from the same seed, accepts no more).

    Without numba the kernel runs as plain Python on NumPy's global legacy generator, whose state is restored
    afterwards (the caller's draws do not change)."""
    seeds = np.asarray(seeds, dtype=np.int64) & np.int64(0xFFFFFFFF)
    if COMPILED:
        return _windowed(a, b_sorted, rank_b, seeds, lo_rank, hi_rank, frac, half)
    state = np.random.get_state()
    try:
        return _windowed(a, b_sorted, rank_b, seeds, lo_rank, hi_rank, frac, half)
    finally:
        np.random.set_state(state)


@njit(cache=True, parallel=True)
def _windowed(a, b_sorted, rank_b, seeds, lo_rank, hi_rank, frac, half):
    """Bootstrap replicates of (median of ``a``, median of ``b``) over the same resampled records: ``a`` ascending,
    ``b_sorted`` the b values ascending and ``rank_b[i]`` record i's place among them; one resample per seed;
    records within ``half`` ranks of the median ranks in either order are counted one by one, the others
    through four cells (see :func:`synthpriv_report.stats.paired_median_bootstrap`)."""
    n = a.shape[0]
    lo_w = max(0, lo_rank - half)
    hi_w = min(n, hi_rank + half + 1)
    # records counted one by one: in the window of a's ranks (their positions) or of b's ranks
    single = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        single[i] = (lo_w <= i < hi_w) or (lo_w <= rank_b[i] < hi_w)
    ind = np.nonzero(single)[0]
    k = ind.shape[0]
    # the other records in four cells: below or above the window in a, times below or above it in b
    cell_of = np.full(n, -1, dtype=np.int64)
    cells = np.zeros(4, dtype=np.int64)
    for i in range(n):
        if not single[i]:
            cell_of[i] = (0 if i < lo_w else 2) + (0 if rank_b[i] < lo_w else 1)
            cells[cell_of[i]] += 1
    start = np.zeros(5, dtype=np.int64)
    for c in range(4):
        start[c + 1] = start[c] + cells[c]
    members = np.empty(start[4], dtype=np.int64)
    fill = start[:4].copy()
    for i in range(n):
        if cell_of[i] >= 0:
            members[fill[cell_of[i]]] = i
            fill[cell_of[i]] += 1
    p = np.empty(k + 4)
    p[:k] = 1.0 / n
    for c in range(4):
        p[k + c] = cells[c] / n
    a_first = np.searchsorted(ind, lo_w)
    a_last = np.searchsorted(ind, hi_w)
    b_win = np.array([x for x in range(k) if lo_w <= rank_b[ind[x]] < hi_w], dtype=np.int64)
    b_win = b_win[np.argsort(rank_b[ind[b_win]])]
    B = seeds.shape[0]
    ma = np.empty(B)
    mb = np.empty(B)
    for r in prange(B):
        np.random.seed(seeds[r])
        cnt = np.random.multinomial(n, p)
        inside = True
        for which in range(2):
            acc = cnt[k] + cnt[k + 1] if which == 0 else cnt[k] + cnt[k + 2]
            for x in range(k):
                if (ind[x] < lo_w) if which == 0 else (rank_b[ind[x]] < lo_w):
                    acc += cnt[x]
            n_win = a_last - a_first if which == 0 else b_win.shape[0]
            win = np.empty(n_win, dtype=np.int64)
            vals = np.empty(n_win)
            for y in range(n_win):
                x = a_first + y if which == 0 else b_win[y]
                win[y] = cnt[x]
                vals[y] = a[ind[x]] if which == 0 else b_sorted[rank_b[ind[x]]]
            m = np.nan
            if acc <= lo_rank:
                m = median_of_counts(win, vals, lo_rank - acc, hi_rank - acc, frac)
            if np.isnan(m):
                inside = False
                break
            if which == 0:
                ma[r] = m
            else:
                mb[r] = m
        if not inside:
            # a median outside the window: the same draw resolved record by record (each cell's draws
            # spread uniformly over its records), then both medians read from the full counts
            ca = np.zeros(n, dtype=np.int64)
            cb = np.zeros(n, dtype=np.int64)
            for x in range(k):
                ca[ind[x]] += cnt[x]
                cb[rank_b[ind[x]]] += cnt[x]
            for c in range(4):
                for _ in range(cnt[k + c]):
                    j = members[start[c] + np.random.randint(0, cells[c])]
                    ca[j] += 1
                    cb[rank_b[j]] += 1
            ma[r] = median_of_counts(ca, a, lo_rank, hi_rank, frac)
            mb[r] = median_of_counts(cb, b_sorted, lo_rank, hi_rank, frac)
    return ma, mb
