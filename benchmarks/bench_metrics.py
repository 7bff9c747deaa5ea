"""Time every registered metric on full UCI Adult (run by hand; prints its figures, asserts nothing about time).

T = adult_train (32,561 rows), S = a synthetic set chosen with ``--synthetic`` (default gaussian_copula),
H = adult_test (16,281), key fields age, sex, race, marital-status, sensitive field income.

Metrics are computed one at a time with ``ev.results(metrics=[name])`` so each one's first computation (its
neighbour searches, fits and calibration) is attributed to it; a search already run for an earlier metric is
reused, as in a normal evaluation, so the order is the registry's report order. The script prints per-metric wall
time and CPU time, the searches each one triggered (``ev.searches``: space, query, reference, k, seconds), the total, and the
peak memory (``ru_maxrss`` of the process; with ``--tracemalloc`` also the peak of Python allocations, which
slows numpy-heavy code down a little).

Usage::

    python benchmarks/bench_metrics.py [--synthetic gaussian_copula] [--max-rows 20000] [--metrics a,b]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import tracemalloc
from pathlib import Path

import pandas as pd

from synthpriv_report import Evaluation
from synthpriv_report.registry import metric_names

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "adult"
SYNTHETIC = ("gaussian_copula", "exact_copy", "noisy_copy", "independent_marginals")


def _rss_mib() -> float:
    """Peak resident memory of this process in MiB (Linux reports kibibytes, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def _cpu() -> float:
    """CPU seconds of this process, all threads (user + system): on a shared machine wall time overstates."""
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--synthetic", choices=SYNTHETIC, default="gaussian_copula")
    ap.add_argument("--data", type=Path, default=DATA, help="folder holding adult_train.csv, adult_test.csv and "
                                                           "synthetic/")
    ap.add_argument("--max-rows", type=int, default=20_000)
    ap.add_argument("--metrics", default=None, help="comma-separated subset (default: every registered metric)")
    ap.add_argument("--no-calibrate", action="store_true")
    ap.add_argument("--tracemalloc", action="store_true")
    args = ap.parse_args(argv)

    if args.tracemalloc:
        tracemalloc.start()
    t_start = time.perf_counter()
    T = pd.read_csv(args.data / "adult_train.csv")
    H = pd.read_csv(args.data / "adult_test.csv")
    S = pd.read_csv(args.data / "synthetic" / f"{args.synthetic}.csv.gz")
    t_load = time.perf_counter() - t_start

    t0 = time.perf_counter()
    ev = Evaluation(T, S, H, key_fields=["age", "sex", "race", "marital-status"], sensitive_fields=["income"],
                    max_rows=args.max_rows, calibrate=not args.no_calibrate, progress=False)
    t_prep = time.perf_counter() - t0
    names = args.metrics.split(",") if args.metrics else metric_names()

    print(f"T={len(T):,}  S={len(S):,} ({args.synthetic})  H={len(H):,}  columns={len(T.columns)}  "
          f"max_rows={args.max_rows:,}  calibrate={not args.no_calibrate}")
    print(f"load {t_load:.2f} s, prepare {t_prep:.2f} s\n")
    print(f"{'metric':<20}{'seconds':>9}{'cpu s':>9}{'searches':>10}  {'value':>12}  level / reason")
    rows = []
    for name in names:
        n_before = ev.search_count
        t0, c0 = time.perf_counter(), _cpu()
        r = ev.results(metrics=[name])[name]
        dt, dc = time.perf_counter() - t0, _cpu() - c0
        new = ev.searches[n_before:]
        rows.append((name, dt, new))
        val = f"{r.value:12.4g}" if r.computed else f"{'-':>12}"
        tail = r.level if r.computed else f"not computed: {r.reason_not_computed}"
        print(f"{name:<20}{dt:9.2f}{dc:9.2f}{len(new):10d}  {val}  {tail}")
        for s in new:
            print(f"{'':<22}search {s.space}: {s.query} -> {s.ref}  k={s.k}  {s.n_query:,} x {s.n_ref:,}  "
                  f"{s.seconds:.2f} s")
    t_metrics = sum(dt for _, dt, _ in rows)

    t0 = time.perf_counter()
    ev.results(metrics=names, alpha=0.2, nndr_threshold=0.3, cvp_threshold=0.1, test_statistic="median")
    t_rereduce = time.perf_counter() - t0
    total = time.perf_counter() - t_start

    print(f"\nsearches executed: {ev.search_count}, {sum(s.seconds for s in ev.searches):.2f} s in searches")
    seen: set[tuple[str, str, str]] = set()
    redo = []
    for s in ev.searches:
        key = (s.space, s.query, s.ref)
        if key in seen:
            redo.append(s)
        seen.add(key)
    if redo:
        # one metric at a time, a later metric may need a larger k than an earlier one searched; a full
        # ev.results() plans the union first and searches each (space, query, reference) once
        print(f"  of which {len(redo)} repeat a (space, query, reference) with a larger k because metrics run one "
              f"at a time ({sum(s.seconds for s in redo):.2f} s; a single ev.results() would not repeat them)")
    print(f"metrics total {t_metrics:.2f} s; a full re-reduction with new parameters {t_rereduce:.2f} s")
    print(f"wall total (load + prepare + metrics + re-reduction) {total:.2f} s")
    print(f"peak resident memory (ru_maxrss) {_rss_mib():,.0f} MiB")
    if args.tracemalloc:
        _, peak = tracemalloc.get_traced_memory()
        print(f"peak traced Python allocations {peak / 2**20:,.0f} MiB")
    slow = sorted(rows, key=lambda r: -r[1])[:5]
    print("slowest: " + ", ".join(f"{n} {dt:.1f} s" for n, dt, _ in slow))


if __name__ == "__main__":
    main()
