"""Benchmark of a comparison of releases against separate evaluations (run by hand; prints a table).

    nice python benchmarks/bench_comparison.py            # 5 releases of full Adult (about 15 minutes on 2 cores)
    nice python benchmarks/bench_comparison.py --rows 5000   # a quicker look on the first rows of each set
    nice python benchmarks/bench_comparison.py --rounds 3    # the ratio three times (a noisy machine), the median

The releases are the synthetic sets of ``../shared/data/adult/synthetic`` (independent marginals, Gaussian copula,
noisy copy, exact copy; the copula once more as the fifth, under another name), each evaluated against
``adult_train.csv`` with ``adult_test.csv`` as the holdout, ``sensitive_fields=["income"]``, every other setting at
its default. Kernels are compiled first (a small evaluation), so neither side pays for numba's compiler.

Measured in CPU seconds of this process (``time.process_time``: every thread), in one process:
1. each release's stand-alone ``Evaluation(...).results()``, one after the other;
2. ``Comparison(...)`` of the same releases: the results of every release, then the adjusted verdicts (the
   verdict's checks graded again at alpha / N), then the utility measures (``target="income"``).
The target is comparison CPU (results and adjusted verdicts) <= (1 + 0.7 (N - 1)) x one evaluation (the mean of 1).
It also prints the part of one evaluation that a release after the first did not repeat (``shared_share``): the
target needs at least 30%.
The script also checks that every release's numbers (value, interval, level of every metric, and the verdict) are
those of its stand-alone evaluation, and prints the searches each side ran.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from synthpriv_report import Comparison, Evaluation

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "adult"
RELEASES = {"independent marginals": "independent_marginals", "gaussian copula": "gaussian_copula",
            "noisy copy": "noisy_copy", "exact copy": "exact_copy", "gaussian copula (again)": "gaussian_copula"}
SETTINGS = {"sensitive_fields": ["income"], "progress": False, "random_state": 0}


def cpu(fn):
    c0, w0 = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.process_time() - c0, time.perf_counter() - w0


def same(a, b) -> bool:
    if a is None or b is None:
        return a is b
    return bool(np.array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float), equal_nan=True))


def _more_rounds(rounds: int, real: pd.DataFrame, syn: dict[str, pd.DataFrame], holdout: pd.DataFrame,
                 one_eval: float, privacy: float) -> None:
    """Rounds 2 to ``rounds`` of the ratio (results and adjusted verdicts only), the comparison first in even
    rounds; prints every round's figures and the median ratio."""
    n = len(syn)
    found = [(one_eval, privacy)]
    for r in range(2, rounds + 1):
        def alone_mean() -> float:
            spent = [cpu(lambda s=s: Evaluation(real, s, holdout, **SETTINGS).results())[1] for s in syn.values()]
            return float(np.mean(spent))

        def compared() -> float:
            cmp, c_init, _ = cpu(lambda: Comparison(real, syn, holdout, **SETTINGS))
            _, c_res, _ = cpu(cmp.results)
            _, c_adj, _ = cpu(lambda: cmp.adjusted_verdicts)
            return c_init + c_res + c_adj

        if r % 2 == 0:
            c = compared()
            a = alone_mean()
        else:
            a = alone_mean()
            c = compared()
        found.append((a, c))
        print(f"round {r}: one evaluation {a:.1f}, comparison {c:.1f}, ratio {c / a:.2f}, shared "
              f"{shared_share(a, c, n):.0%} of an evaluation", flush=True)
    ratios = [c / a for a, c in found]
    shares = [shared_share(a, c, n) for a, c in found]
    print(f"\nratios of {rounds} rounds: {', '.join(f'{x:.2f}' for x in ratios)}; median {np.median(ratios):.2f} "
          f"(target {1 + 0.7 * (n - 1):.2f}); comparison CPU {', '.join(f'{c:.1f}' for _, c in found)}; shared "
          f"part {', '.join(f'{x:.0%}' for x in shares)} of an evaluation (the target needs at least 30%)")


def shared_share(one_eval: float, compared: float, n: int) -> float:
    """The part of one evaluation that a release after the first did not repeat, as a share of it:
    ``(n * one_eval - compared) / (n - 1) / one_eval``. The ratio is ``1 + (n - 1) (1 - share)`` plus the adjusted
    verdicts' and the preparation's share, so the target ``1 + 0.7 (n - 1)`` needs a share of at least 0.3."""
    return (n * one_eval - compared) / (n - 1) / one_eval


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=None, help="only the first ROWS rows of every set")
    ap.add_argument("--data", type=Path, default=SHARED)
    ap.add_argument("--rounds", type=int, default=1,
                    help="measure the ratio this many times, the comparison first in every second round (the "
                         "machine's speed drifts between the two phases of one round); prints each round's ratio "
                         "and their median")
    args = ap.parse_args()
    take = (lambda f: f.head(args.rows)) if args.rows else (lambda f: f)
    real = take(pd.read_csv(args.data / "adult_train.csv"))
    holdout = take(pd.read_csv(args.data / "adult_test.csv"))
    syn = {name: take(pd.read_csv(args.data / "synthetic" / f"{file}.csv.gz")) for name, file in RELEASES.items()}
    n = len(syn)
    print(f"real {len(real)} rows, holdout {len(holdout)} rows, {n} releases of {len(real)} rows", flush=True)

    t = real.sample(400, random_state=0)
    _, warm, _ = cpu(lambda: Evaluation(t, syn["noisy copy"].head(400), holdout.head(400), **SETTINGS).results())
    print(f"compiling the kernels (a 400-row evaluation): {warm:.1f} s CPU", flush=True)

    alone, alone_cpu, alone_wall, alone_searches = {}, {}, {}, {}
    for name, s in syn.items():
        def one(s=s):
            ev = Evaluation(real, s, holdout, **SETTINGS)
            return ev, ev.results()
        (ev, rs), alone_cpu[name], alone_wall[name] = cpu(one)
        alone[name], alone_searches[name] = rs, ev.search_count
        print(f"  alone: {name}: {alone_cpu[name]:.1f} s CPU, verdict {rs.verdict.level}", flush=True)
        del ev

    cmp, c_init, _ = cpu(lambda: Comparison(real, syn, holdout, target="income", **SETTINGS))
    res, c_res, c_res_wall = cpu(cmp.results)
    adj, c_adj, _ = cpu(lambda: cmp.adjusted_verdicts)
    util, c_util, _ = cpu(cmp.utility)

    one_eval = float(np.mean(list(alone_cpu.values())))
    privacy = c_init + c_res + c_adj
    target = (1 + 0.7 * (n - 1)) * one_eval
    rows = [("one evaluation (mean of the releases alone)", one_eval),
            (f"{n} separate evaluations", sum(alone_cpu.values())),
            ("comparison: preparing the releases", c_init),
            ("comparison: every release's results", c_res),
            (f"comparison: adjusted verdicts (alpha / {n})", c_adj),
            ("comparison, privacy (the three above)", privacy),
            (f"target (1 + 0.7 x {n - 1}) x one evaluation", target),
            ("comparison: utility (marginals, pairs, 2 x 5 + 1 models)", c_util)]
    print(f"\n{'step':58s} {'CPU s':>9s}")
    for label, v in rows:
        print(f"{label:58s} {v:9.1f}")
    print(f"\ncomparison / one evaluation: {privacy / one_eval:.2f} (target {1 + 0.7 * (n - 1):.2f}); "
          f"comparison / {n} separate: {privacy / sum(alone_cpu.values()):.2f}; "
          f"{'meets' if privacy <= target else 'misses'} the target; the part of an evaluation a later release "
          f"did not repeat: {shared_share(one_eval, privacy, n):.0%} (the target needs at least 30%)")
    print(f"searches: {sum(alone_searches.values())} alone, {cmp.search_count} in the comparison; "
          f"real-side steps borrowed per release: {cmp.shared}; trees and projection fits lent: {cmp.trees_lent}")
    if args.rounds > 1:
        _more_rounds(args.rounds, real, syn, holdout, one_eval, privacy)

    diffs = []
    for name in syn:
        a, b = alone[name], res[name]
        for m in a:
            ra, rb = a[m], b[m]
            if not (same(ra.value, rb.value) and same(ra.interval, rb.interval) and ra.level == rb.level
                    and same(ra.calibration, rb.calibration)):
                diffs.append((name, m))
        if a.verdict != b.verdict:
            diffs.append((name, "verdict"))
    verdict = "yes, every metric of every release" if not diffs else diffs
    print(f"numbers equal to the stand-alone evaluations: {verdict}")
    print("\nrelease                      verdict       adjusted      marginal  pairs   TSTR (real)")
    for name in syn:
        u = util[name]
        ts = u["tstr"] or {}
        acc, acc_real = ts.get("synthetic", float("nan")), ts.get("real", float("nan"))
        print(f"{name:28s} {res[name].verdict.level:13s} {adj[name].level:13s} {u['marginal_distance']:.3f}     "
              f"{u['association_difference']:.3f}   {acc:.3f} ({acc_real:.3f})")


if __name__ == "__main__":
    main()
