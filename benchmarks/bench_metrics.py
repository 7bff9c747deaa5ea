"""Time every registered metric on full UCI Adult or the 3k demo, and the D-MLP classifier on both (run by hand;
prints its figures, asserts nothing about time).

T = adult_train (32,561 rows), S = a synthetic set chosen with ``--synthetic`` (default gaussian_copula),
H = adult_test (16,281), key fields age, sex, race, marital-status, sensitive field income.

Metrics are computed one at a time with ``ev.results(metrics=[name])`` so each one's first computation (its
neighbour searches, fits and calibration) is attributed to it; a search already run for an earlier metric is
reused, as in a normal evaluation, so the order is the registry's report order. The script prints per-metric wall
time and CPU time, the searches each one triggered (``ev.searches``: space, query, reference, k, seconds), the total,
and the
peak memory (``ru_maxrss`` of the process; with ``--tracemalloc`` also the peak of Python allocations, which
slows numpy-heavy code down a little).

``--demo`` times every metric on the bundled 3k demo instead (T 3,000, S 3,000 honest, H 1,500) and prints the
D-MLP classifier's share of the whole. ``--dmlp`` times only the D-MLP classifier, on the demo and on full Adult
(20,000 records per class after the ``max_rows`` cap), and with ``--compare`` also runs scikit-learn's own
``MLPClassifier`` (the implementation before the compiled one) on the same folds and prints both sets of fold
AUCs, their means and their fold-to-fold ranges. Wall time on a shared machine overstates; the CPU seconds of
the process (all threads) are printed beside it.

Usage::

    python benchmarks/bench_metrics.py [--synthetic gaussian_copula] [--max-rows 20000] [--metrics a,b]
    python benchmarks/bench_metrics.py --demo
    python benchmarks/bench_metrics.py --dmlp [--compare] [--threads N]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from synthpriv_report import Evaluation
from synthpriv_report.core.registry import metric_names

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
    ap.add_argument("--demo", action="store_true", help="every metric on the bundled 3k demo, with the D-MLP share")
    ap.add_argument("--dmlp", action="store_true", help="only the D-MLP classifier, on the demo and full Adult")
    ap.add_argument("--compare", action="store_true", help="with --dmlp: also scikit-learn's MLPClassifier run")
    ap.add_argument("--threads", type=int, default=None, help="with --dmlp: fold threads (default: one per fold)")
    args = ap.parse_args(argv)
    if args.dmlp:
        return bench_dmlp(args)
    if args.demo:
        return bench_demo(args)

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


def _timed(fn: Any) -> tuple[Any, float, float]:
    t0, c0 = time.perf_counter(), _cpu()
    out = fn()
    return out, time.perf_counter() - t0, _cpu() - c0


def bench_demo(args: argparse.Namespace) -> None:
    """Every metric on the 3k demo, one at a time, and the D-MLP classifier's share of the total."""
    from synthpriv_report.datasets import load_demo

    d = load_demo()
    ev = Evaluation(d.real, d.synthetic, d.holdout, key_fields=d.key_fields, sensitive_fields=d.sensitive_fields,
                    calibrate=not args.no_calibrate, progress=False)
    names = args.metrics.split(",") if args.metrics else metric_names()
    print(f"3k demo: T={len(d.real):,}  S={len(d.synthetic):,} (honest)  H={len(d.holdout):,}  "
          f"calibrate={not args.no_calibrate}")
    print(f"{'metric':<20}{'seconds':>9}{'cpu s':>9}  {'value':>12}")
    wall, cpu = {}, {}
    for name in names:
        r, wall[name], cpu[name] = _timed(lambda: ev.results(metrics=[name])[name])
        val = f"{r.value:12.4g}" if r.computed else f"{'-':>12}"
        print(f"{name:<20}{wall[name]:9.2f}{cpu[name]:9.2f}  {val}")
    tw, tc = sum(wall.values()), sum(cpu.values())
    print(f"total {tw:.2f} s wall, {tc:.2f} CPU s")
    if "detection_mlp" in wall:
        print(f"D-MLP: {wall['detection_mlp']:.2f} s wall ({100 * wall['detection_mlp'] / tw:.0f}% of the total), "
              f"{cpu['detection_mlp']:.2f} CPU s ({100 * cpu['detection_mlp'] / tc:.0f}% of the CPU total)")


def _fmt_aucs(aucs: Any) -> str:
    return (f"mean {aucs.mean():.4f}  range [{aucs.min():.4f}, {aucs.max():.4f}]  folds "
            + " ".join(f"{a:.4f}" for a in aucs))


def bench_dmlp(args: argparse.Namespace) -> None:
    """The D-MLP classifier alone, on the demo and on full Adult, optionally beside scikit-learn's run."""
    from synthpriv_report.datasets import load_demo
    from synthpriv_report.metrics.distinguishability import review_classifier as rc

    d = load_demo()
    T = pd.read_csv(args.data / "adult_train.csv")
    H = pd.read_csv(args.data / "adult_test.csv")
    S = pd.read_csv(args.data / "synthetic" / f"{args.synthetic}.csv.gz")
    # with the holdout, as in an evaluation: the embedding's levels and ranges are fitted on T and H
    cases = [("3k demo", d.real, d.synthetic, d.holdout), (f"full Adult ({args.synthetic})", T, S, H)]
    # compile (or load the compiled kernels from numba's cache) outside the timings
    rng = np.random.default_rng(0)
    rc.detection_auc(rng.normal(size=(60, 3)), np.repeat([0, 1], 30), random_state=0, n_threads=1)
    for label, real, syn, hold in cases:
        ev = Evaluation(real, syn, hold, max_rows=args.max_rows, calibrate=False, progress=False)
        lab = rc._labelled(ev.context)
        X, y = lab["X"], lab["y"]
        print(f"{label}: {lab['n_real']:,} real + {lab['n_syn']:,} synthetic records used, {X.shape[1]} features")
        seed = ev.context.random_state
        aucs, w, c = _timed(lambda: rc.detection_auc(X, y, random_state=seed, n_threads=args.threads))
        print(f"  compiled (float32, {rc._n_threads(args.threads, rc.N_FOLDS)} fold threads): {w:7.2f} s wall "
              f"{c:7.2f} CPU s   {_fmt_aucs(aucs)}")
        if args.compare:
            ref, w, c = _timed(lambda: rc.sklearn_detection_auc(X, y, random_state=seed))
            print(f"  scikit-learn MLPClassifier (float64, 1 thread): {w:7.2f} s wall {c:7.2f} CPU s   "
                  f"{_fmt_aucs(ref)}")
            spread = max(aucs.max() - aucs.min(), ref.max() - ref.min())
            print(f"  difference of the means {aucs.mean() - ref.mean():+.4f}; largest fold-to-fold range {spread:.4f}")


if __name__ == "__main__":
    main()
