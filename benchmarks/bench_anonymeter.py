"""Side by side with anonymeter 1.1.0: the three anonymisation criteria on full UCI Adult.

T = the 32,561 training records, H = the 16,281 test records (control), S = one of the synthetic sets in
``<data>/synthetic`` (gaussian_copula, noisy_copy, exact_copy). For each criterion and set the script prints the
risk with its 95% interval, the attack / control / baseline rates and the CPU seconds (``time.process_time`` of
the process, one core: anonymeter's joblib searches run with ``n_jobs=1``) of

- ours: ``Evaluation(T, S, H, sensitive_fields=["income"], metrics=[criterion])``, timed from the evaluation's
  construction (data preparation, encodings and searches included) to the result, numba kernels compiled
  beforehand;
- anonymeter 1.1.0 (optional: ``pip install anonymeter==1.1.0``, in this environment or in another one given with
  ``--anonymeter-python``, since it pins its own polars): ``SinglingOutEvaluator(n_cols=3, seed=0)`` in
  multivariate mode, ``LinkabilityEvaluator(aux_cols=<our two halves>, n_neighbors=1)`` and
  ``InferenceEvaluator(aux_cols=<the 14 other columns>, secret="income")``, each with ``control=H`` and
  ``numpy.random.seed(0)``.

The definitions coincide for inference and linkability up to the tie rule and the numeric scaling (see the
modules' docstrings); singling out differs by design (equal-sized populations, no deduplication, a denominator
of the predicates found), so its risks are compared for direction, not agreement.

Usage::

    python benchmarks/bench_anonymeter.py                      # ours, and anonymeter if importable
    python benchmarks/bench_anonymeter.py --anonymeter-python /path/to/venv/bin/python
    python benchmarks/bench_anonymeter.py --part anonymeter --sets gaussian_copula --json out.json
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "adult"
SETS = ("gaussian_copula", "noisy_copy", "exact_copy")
CRITERIA = ("singling_out_risk", "linkability_risk", "inference_risk")
SECRET = "income"


def _frames(data: Path, name: str):
    import pandas as pd

    T = pd.read_csv(data / "adult_train.csv")
    H = pd.read_csv(data / "adult_test.csv")
    S = pd.read_csv(data / "synthetic" / f"{name}.csv.gz")
    return T, H, S


def _halves(columns: list[str]) -> tuple[list[str], list[str]]:
    keys = [c for c in columns if c != SECRET]
    mid = (len(keys) + 1) // 2
    return keys[:mid], keys[mid:]


def run_ours(data: Path, sets: tuple[str, ...], n_attacks: int, engine: str) -> list[dict[str, Any]]:
    """Our three criteria on each set; one fresh evaluation per criterion so that each is timed alone."""
    from synthpriv_report import Evaluation

    out = []
    warm = True
    for name in sets:
        T, H, S = _frames(data, name)
        if warm:  # compile the numba kernels once, outside the timings
            small = {k: v.head(300) for k, v in (("T", T), ("H", H), ("S", S))}
            Evaluation(small["T"], small["S"], small["H"], sensitive_fields=[SECRET], progress=False,
                       metrics=list(CRITERIA), n_attacks=50, engine=engine).results()
            warm = False
        for crit in CRITERIA:
            t0, w0 = time.process_time(), time.perf_counter()
            ev = Evaluation(T, S, H, sensitive_fields=[SECRET], progress=False, metrics=[crit],
                            n_attacks=n_attacks, random_state=0, engine=engine)
            r = ev.results()[crit]
            cpu, wall = time.process_time() - t0, time.perf_counter() - w0
            rates = r.details.get("rates", {})
            out.append({"who": "ours", "set": name, "criterion": crit, "risk": r.value,
                        "ci": list(r.interval) if r.interval else None, "cpu_s": cpu, "wall_s": wall,
                        "attack": rates.get("attack", {}).get("value"),
                        "control": rates.get("control", {}).get("value"),
                        "baseline": rates.get("baseline", {}).get("value"),
                        "tied_share": r.details.get("tied_share")})
    return out


def run_anonymeter(data: Path, sets: tuple[str, ...], n_attacks: int) -> list[dict[str, Any]]:
    """anonymeter 1.1.0's three evaluators on each set, one core."""
    from anonymeter.evaluators import InferenceEvaluator, LinkabilityEvaluator, SinglingOutEvaluator

    out = []
    for name in sets:
        T, H, S = _frames(data, name)
        cols = list(T.columns)
        a, b = _halves(cols)
        aux = [c for c in cols if c != SECRET]
        for crit in CRITERIA:
            np.random.seed(0)
            t0, w0 = time.process_time(), time.perf_counter()
            if crit == "singling_out_risk":
                ev = SinglingOutEvaluator(T, S, n_attacks=n_attacks, n_cols=3, control=H, seed=0)
                ev.evaluate(mode="multivariate")
            elif crit == "linkability_risk":
                ev = LinkabilityEvaluator(T, S, aux_cols=(a, b), n_attacks=n_attacks, control=H, n_neighbors=1)
                ev.evaluate(n_jobs=1)
            else:
                ev = InferenceEvaluator(T, S, aux_cols=aux, secret=SECRET, n_attacks=n_attacks, control=H)
                ev.evaluate(n_jobs=1)
            res = ev.results()
            risk = res.risk()
            cpu, wall = time.process_time() - t0, time.perf_counter() - w0
            out.append({"who": "anonymeter", "set": name, "criterion": crit, "risk": float(risk.value),
                        "ci": [float(risk.ci[0]), float(risk.ci[1])], "cpu_s": cpu, "wall_s": wall,
                        "attack": float(res.attack_rate.value), "control": float(res.control_rate.value),
                        "baseline": float(res.baseline_rate.value), "tied_share": None})
    return out


def _fmt(v: Any) -> str:
    return "   -  " if v is None else f"{v:6.3f}"


def report(rows: list[dict[str, Any]]) -> str:
    """The side-by-side table: risks with intervals, rates, CPU seconds and the ratio of CPU seconds."""
    lines = [f"{'set':16} {'criterion':18} {'who':10} {'risk':>6} {'95% interval':>17} {'attack':>6} "
             f"{'control':>7} {'baseline':>8} {'CPU s':>7} {'ties':>6}"]
    by = {(r["set"], r["criterion"], r["who"]): r for r in rows}
    for (s, c, w), r in sorted(by.items(), key=lambda kv: (SETS.index(kv[0][0]) if kv[0][0] in SETS else 9,
                                                           CRITERIA.index(kv[0][1]), kv[0][2] != "ours")):
        ci = f"[{r['ci'][0]:.3f}, {r['ci'][1]:.3f}]" if r["ci"] else "-"
        lines.append(f"{s:16} {c:18} {w:10} {_fmt(r['risk'])} {ci:>17} {_fmt(r['attack'])} {_fmt(r['control']):>7} "
                     f"{_fmt(r['baseline']):>8} {r['cpu_s']:7.2f} {_fmt(r['tied_share'])}")
    lines.append("")
    for s in SETS:
        for c in CRITERIA:
            o, a = by.get((s, c, "ours")), by.get((s, c, "anonymeter"))
            if o and a:
                overlap = o["ci"] and a["ci"] and o["ci"][0] <= a["ci"][1] and a["ci"][0] <= o["ci"][1]
                lines.append(f"{s:16} {c:18} CPU ratio ours/anonymeter = {o['cpu_s'] / a['cpu_s']:.3f} "
                             f"({a['cpu_s'] / max(o['cpu_s'], 1e-9):.0f}x faster); intervals "
                             f"{'overlap' if overlap else 'do NOT overlap'}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", type=Path, default=DATA, help="folder with adult_train.csv, adult_test.csv, synthetic/")
    p.add_argument("--sets", default=",".join(SETS), help="comma-separated synthetic sets")
    p.add_argument("--n-attacks", type=int, default=2000)
    p.add_argument("--part", choices=("both", "ours", "anonymeter"), default="both")
    p.add_argument("--anonymeter-python", default=None,
                   help="a Python with anonymeter 1.1.0 installed (default: this one, if it can import it)")
    p.add_argument("--engine", default="auto", choices=("auto", "tree", "tiled"), help="our search engine")
    p.add_argument("--json", default=None, help="also write the rows to this JSON file")
    args = p.parse_args(argv)
    sets = tuple(s for s in args.sets.split(",") if s)
    rows: list[dict[str, Any]] = []
    if args.part in ("both", "anonymeter"):
        if args.anonymeter_python and Path(args.anonymeter_python).resolve() != Path(sys.executable).resolve():
            cmd = [args.anonymeter_python, __file__, "--part", "anonymeter", "--data", str(args.data), "--sets",
                   ",".join(sets), "--n-attacks", str(args.n_attacks), "--json", "/dev/stdout"]
            done = subprocess.run(cmd, check=True, capture_output=True, text=True)
            rows += json.loads(done.stdout.strip().splitlines()[-1])
        else:
            try:
                rows += run_anonymeter(args.data, sets, args.n_attacks)
            except ImportError:
                print("anonymeter is not installed here: pip install anonymeter==1.1.0, or give "
                      "--anonymeter-python", file=sys.stderr)
    if args.part in ("both", "ours"):
        rows += run_ours(args.data, sets, args.n_attacks, args.engine)
    if args.json == "/dev/stdout":
        print(json.dumps(rows))
        return 0
    print(report(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
