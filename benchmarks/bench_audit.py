"""Benchmark of the generator audit (run by hand; prints its tables).

    nice python benchmarks/bench_audit.py                  # all four parts (about 15 minutes on 2 cores)
    nice python benchmarks/bench_audit.py --part dp        # one part: dp, memoriser, timing or verdict

Data: ``../shared/data/adult`` (``adult_train.csv`` the training pool, ``adult_test.csv`` the holdout pool). Each
audit draws its training and holdout records from them by its own seed.

1. **dp**: a differentially private generator with a declared ε: ``NoisyMarginals(epsilon)``, one-way marginals
   with Laplace noise, on a public domain (each numeric column's range and each column's categories, read from
   both files together: the schema, taken as public, as DP generators do). For ε = 1 and ε = 4, 20 one-run canary
   audits, each of 5,000 training records, 2,500 holdout records and 500 canaries, seeds 0-19. The target: the
   canaries' ε lower bound never exceeds the declared ε (20 of 20 at each ε).
2. **memoriser**: a non-private generator that memorises: ``SequentialCART(min_samples_leaf=1)`` (synthpop-style
   CART, every leaf one record) on 500 training records, 5 training runs and 200 canaries. The target: the ε lower
   bound is at least 2 and the generator's verdict is high. Then a shadow-model attack on the 5 most atypical
   training records, 40 trainings each (200 in all).
3. **timing**: a one-run canary audit of a CPU generator on 5,000 Adult records (500 canaries): the generator is
   ``SequentialCART(min_samples_leaf=5)``, and, where SDV is installed (``pip install 'synthpriv-report[sdv]'``),
   SDV's ``GaussianCopulaSynthesizer`` and ``CTGANSynthesizer`` (30 epochs, on the CPU) too. Targets: the audit
   within 5 minutes; the package's own share of it (everything but the generator's fit and sample) under 20%.
   Kernels are compiled first (a small evaluation), and wall time is measured (``time.perf_counter``).
4. **verdict**: how often the generator's verdict is wrong, on 20 audits (``--audits``) of an honest generator
   (``NoisyMarginals``, ε = 1, public domain, declared in the context) and of a memorising one
   (``SequentialCART``, leaf size 1), each of 2,000 training and 1,000 holdout records, 3 runs and 200 canaries,
   ``sensitive_fields=["income"]``: the count of audits at each level, and of audits whose canary bound is above 0.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from synthpriv_report.evaluation.evaluation.audit import audit
from synthpriv_report.evaluation.evaluation.generators import NoisyMarginals, SequentialCART

from synthpriv_report import Evaluation

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "adult"


def pools(data: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    return pd.read_csv(data / "adult_train.csv"), pd.read_csv(data / "adult_test.csv")


def draw(pool: pd.DataFrame, n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pool.iloc[np.sort(rng.choice(len(pool), size=n, replace=False))].reset_index(drop=True)


def public_domain(*frames: pd.DataFrame) -> dict[str, object]:
    both = pd.concat(frames, ignore_index=True)
    domain: dict[str, object] = {}
    for c in both.columns:
        s = both[c]
        if pd.api.types.is_numeric_dtype(s):
            domain[c] = (float(s.min()), float(s.max()))
        else:
            domain[c] = sorted(s.dropna().astype(str).unique().tolist()) + [None]
    return domain


def warm_up(train: pd.DataFrame, holdout: pd.DataFrame) -> None:
    Evaluation(train.head(300), train.head(300), holdout.head(300), progress=False).results()


def part_dp(train_pool: pd.DataFrame, holdout_pool: pd.DataFrame, audits: int) -> None:
    domain = public_domain(train_pool, holdout_pool)
    print("\n1. A differentially private generator (NoisyMarginals, public domain), one-run canary audits of "
          "5,000 training records, 500 canaries each")
    print(f"{'declared ε':>10} {'audits':>6} {'bound > ε':>9} {'max bound':>9} {'median':>7} {'bounds > 0':>10} "
          f"{'s/audit':>7}")
    for eps in (1.0, 4.0):
        bounds, t0 = [], time.perf_counter()
        for seed in range(audits):
            train, holdout = draw(train_pool, 5000, seed), draw(holdout_pool, 2500, 1000 + seed)

            def make(random_state: int, eps: float = eps) -> NoisyMarginals:
                return NoisyMarginals(eps, domain=domain, random_state=random_state)

            au = audit(make, train, holdout, runs=0, canaries=500, random_state=seed, progress_bars=False,
                       context={"generator": {"name": "NoisyMarginals", "epsilon": eps, "delta": 0}})
            bounds.append(au.epsilon_lower_bound)
        b = np.asarray(bounds)
        print(f"{eps:>10g} {audits:>6} {int((b > eps).sum()):>9} {b.max():>9.3f} {np.median(b):>7.3f} "
              f"{int((b > 0).sum()):>10} {(time.perf_counter() - t0) / audits:>7.1f}", flush=True)


def part_memoriser(train_pool: pd.DataFrame, holdout_pool: pd.DataFrame) -> None:
    print("\n2. A generator that memorises (SequentialCART, leaf size 1) on 500 training records: 5 runs, 200 "
          "canaries")
    train, holdout = draw(train_pool, 500, 7), draw(holdout_pool, 1000, 8)
    t0 = time.perf_counter()
    au = audit(SequentialCART, train, holdout, runs=5, canaries=200, random_state=0, progress_bars=False,
               sensitive_fields=["income"])
    v = au.verdict()
    best = au.canary.outcome.best
    print(f"verdict {v['level']}; runs' verdicts {', '.join(v['run_levels'])}; ε ≥ {au.epsilon_lower_bound:.3f} "
          f"(95%; {best.correct} of {best.guesses} guesses right, {best.k_plus} 'in' and {best.k_minus} 'out'); "
          f"{time.perf_counter() - t0:.1f} s", flush=True)
    for m in au.metric_summary():
        if m["drives_verdict"] and m.get("mean") is not None:
            lo, hi = m["interval"]
            print(f"   {m['metric']:<20} mean {m['mean']:.4g}  range {m['min']:.4g} - {m['max']:.4g}  "
                  f"one more release {lo:.4g} - {hi:.4g}  levels {m['levels']}")
    t0 = time.perf_counter()
    au = audit(SequentialCART, train, holdout, runs=0, shadow_targets=5, shadow_trainings=40, random_state=0,
               progress_bars=False)
    sh = au.shadow
    tp, fn, fp, tn = sh.counts
    print(f"   shadow-model attack, 5 targets x 40 trainings: TPR {sh.tpr:.2f} ({tp} of {tp + fn}), FPR {sh.fpr:.2f} "
          f"({fp} of {fp + tn}), pooled ε ≥ {sh.epsilon:.3f}, most exposed target ε ≥ {sh.epsilon_familywise:.3f}; "
          f"{time.perf_counter() - t0:.1f} s (generator {sh.generator_seconds:.1f} s)", flush=True)


def part_verdict(train_pool: pd.DataFrame, holdout_pool: pd.DataFrame, audits: int) -> None:
    domain = public_domain(train_pool, holdout_pool)
    print(f"\n4. How often the generator's verdict is wrong: {audits} audits each (2,000 training records, 1,000 "
          "holdout records, 3 runs, 200 canaries; seeds 0-...)")
    print(f"   {'generator':<44} {'low':>4} {'inconcl.':>8} {'medium':>6} {'high':>5} {'ε bound > 0':>11}")
    cases = {"NoisyMarginals(ε = 1), public domain (honest)":
             (lambda random_state: NoisyMarginals(1.0, domain=domain, random_state=random_state),
              {"generator": {"name": "NoisyMarginals", "epsilon": 1.0, "delta": 0}}),
             "SequentialCART(leaf 1) (memorises)": (SequentialCART, None)}
    for name, (gen, ctx) in cases.items():
        levels, positive = [], 0
        for seed in range(audits):
            train, holdout = draw(train_pool, 2000, 500 + seed), draw(holdout_pool, 1000, 1500 + seed)
            au = audit(gen, train, holdout, runs=3, canaries=200, random_state=seed, progress_bars=False,
                       sensitive_fields=["income"], context=ctx)
            levels.append(au.verdict()["level"])
            positive += int(au.epsilon_lower_bound > 0)
        count = {lv: levels.count(lv) for lv in ("low", "inconclusive", "medium", "high")}
        print(f"   {name:<44} {count['low']:>4} {count['inconclusive']:>8} {count['medium']:>6} {count['high']:>5} "
              f"{positive:>11}", flush=True)


def part_timing(train_pool: pd.DataFrame, holdout_pool: pd.DataFrame) -> None:
    print("\n3. One-run canary audit of a CPU generator on 5,000 Adult records, 500 canaries (wall seconds)")
    train, holdout = draw(train_pool, 5000, 11), draw(holdout_pool, 2500, 12)
    warm_up(train, holdout)
    gens: dict[str, tuple[object, dict | None]] = {
        "SequentialCART(min_samples_leaf=5)": (lambda random_state: SequentialCART(5, random_state=random_state), None)}
    try:
        import sdv  # noqa: F401

        gens["SDV GaussianCopulaSynthesizer"] = ("sdv:GaussianCopulaSynthesizer", None)
        gens["SDV CTGANSynthesizer, 30 epochs"] = ("sdv:CTGANSynthesizer", {"epochs": 30})
    except ImportError:
        print("   (SDV is not installed: pip install 'synthpriv-report[sdv]' to time its GaussianCopula too)")
    print(f"   {'generator':<36} {'total':>7} {'fit+sample':>10} {'package':>8} {'share':>6} {'ε bound':>7}")
    for name, (gen, settings) in gens.items():
        t0 = time.perf_counter()
        au = audit(gen, train, holdout, runs=0, canaries=500, random_state=0, progress_bars=False, settings=settings)
        total = time.perf_counter() - t0
        g = au.canary.generator_seconds
        print(f"   {name:<36} {total:>7.2f} {g:>10.2f} {total - g:>8.2f} {100 * (total - g) / total:>5.1f}% "
              f"{au.epsilon_lower_bound:>7.3f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=("dp", "memoriser", "timing", "verdict", "all"), default="all")
    ap.add_argument("--audits", type=int, default=20, help="audits per declared ε in part 1 (default 20)")
    ap.add_argument("--data", type=Path, default=SHARED)
    args = ap.parse_args()
    train_pool, holdout_pool = pools(args.data)
    if args.part in ("dp", "all"):
        part_dp(train_pool, holdout_pool, args.audits)
    if args.part in ("memoriser", "all"):
        part_memoriser(train_pool, holdout_pool)
    if args.part in ("timing", "all"):
        part_timing(train_pool, holdout_pool)
    if args.part in ("verdict", "all"):
        part_verdict(train_pool, holdout_pool, args.audits)


if __name__ == "__main__":
    main()
