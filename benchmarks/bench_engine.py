"""Benchmark of the neighbour engines: tree, tiled kernel, automatic choice (and the GPU where one is found) on
wide unstructured data and on Adult-like data (run by hand; prints figures, asserts nothing about time).

    python benchmarks/bench_engine.py                 # 20k x 20k
    python benchmarks/bench_engine.py --rows 100k     # also 100k (the tree is skipped above --tree-max-rows)
    python benchmarks/bench_engine.py --rows 1M --device cuda   # bigger machines / a GPU
    python benchmarks/bench_engine.py --rows 1M --data wide --spaces gower --engines cuda   # the GPU target

Data:
- ``wide``: 30 standard normal + 10 five-level categorical columns, independent (no structure to prune on);
- ``adult``: Adult-like rows made by ``../shared/tools/make_scaled.py`` (real and a noisy-copy synthetic set);
  skipped with a message when the shared folder is absent.

For each data set, space (gower, euclidean) and engine, an S -> T search with k=1: wall seconds, CPU seconds
(all threads), ns of CPU per column-pair (CPU / (n_query * n_ref * columns); the GPU: wall time), peak memory above
the start of the
search (process RSS sampled every 5 ms), the speed-up in CPU over the tree and in wall time over scikit-learn's
``NearestNeighbors(algorithm="brute")`` on the one-hot embedding (euclidean), and whether the results are
identical to the tree's (distances bit-identical, same indices), or where the tree did not run, to the CPU tiled
kernel's on the first ``--check-queries`` queries. The GPU's first call per shape compiles its kernels and is
made before the timed run.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


def parse_n(s: str) -> int:
    m = re.fullmatch(r"([0-9]*\.?[0-9]+)([kKmM]?)", s.strip())
    if not m:
        raise argparse.ArgumentTypeError(f"not a row count: {s!r}")
    return int(float(m.group(1)) * {"": 1, "k": 10**3, "m": 10**6}[m.group(2).lower()])


def current_rss() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class PeakMemory:
    """Peak process RSS above the level at entry, sampled every 5 ms by a thread."""

    def __enter__(self):
        self.base = current_rss()
        self.peak = self.base
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)
        self._t.start()
        return self

    def _run(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, current_rss())
            time.sleep(0.005)

    def __exit__(self, *exc):
        self._stop.set()
        self._t.join()
        self.peak = max(self.peak, current_rss())

    @property
    def mb(self) -> float:
        return (self.peak - self.base) / 2**20


def timed(fn):
    time.sleep(0.3)  # idle BLAS / OpenMP threads of the previous library spin for a while
    with PeakMemory() as mem:
        c0, w0 = time.process_time(), time.perf_counter()
        out = fn()
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    return out, wall, cpu, mem.mb


def wide(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    cols = {f"x{j}": rng.normal(size=n) for j in range(30)}
    cols.update({f"c{j}": rng.choice(list("abcde"), n) for j in range(10)})
    return pd.DataFrame(cols)


def adult_like(n: int, workdir: Path) -> tuple[pd.DataFrame, pd.DataFrame] | None:
    tool = SHARED / "tools" / "make_scaled.py"
    if not tool.exists() or not (SHARED / "data" / "adult" / "adult_train.csv").exists():
        print(f"adult: skipped ({tool} or the Adult data not found)")
        return None
    out = workdir / f"adult_{n}"
    if not (out / "real.csv").exists():
        subprocess.run([sys.executable, str(tool), str(n), "--out", str(out), "--holdout-rows", "1000"],
                       check=True, stdout=subprocess.DEVNULL)
    return pd.read_csv(out / "real.csv"), pd.read_csv(out / "synthetic.csv")


def run(name: str, T: pd.DataFrame, S: pd.DataFrame, args) -> None:
    from synthpriv_report import neighbors as nb
    from synthpriv_report import spaces
    from synthpriv_report.data.preparation import prepare

    d = prepare(T, S)
    f = spaces.fit(d)
    n, m = len(S), len(T)
    for kind in args.spaces:
        enc = spaces.encode(d, f, spaces.SpaceSpec(kind))
        cols = enc.num["T"].shape[1] + enc.cat["T"].shape[1]
        pairs = n * m * cols
        qn, qc = np.ascontiguousarray(enc.num["S"]), np.ascontiguousarray(enc.cat["S"])
        print(f"\n{name} {kind}: S {n:,} -> T {m:,}, {cols} columns ({enc.num['T'].shape[1]} numeric, "
              f"{enc.cat['T'].shape[1]} categorical), k={args.k}")
        print(f"  {'engine':<28}{'wall s':>8}{'CPU s':>8}{'ns/col-pair':>13}{'peak MB':>9}{'vs tree':>9}"
              f"{'identical':>11}")
        tree, wall_b, cpu_b, mem_b = timed(lambda: nb.build_tree(enc, "T"))
        print(f"  {'(tree build)':<28}{wall_b:8.2f}{cpu_b:8.2f}{'':>13}{mem_b:9.0f}")
        nb.knn(tree, qn[:8], qc[:8], k=args.k, engine="tiled")  # compile (numba caches on disk)
        nb.knn(tree, qn[:8], qc[:8], k=args.k, engine="tree")
        results = {}
        engines = args.engines or (["tree", "tiled", "auto"] + (["cuda"] if args.device == "cuda" else []))
        if "cuda" in engines:
            nb.knn(tree, qn[:8], qc[:8], k=args.k, device="cuda")  # compile the kernels for this shape (NVRTC)
        check = None  # the CPU tiled kernel on the first --check-queries queries, where the tree did not run
        for eng in engines:
            if eng == "tree" and max(n, m) > args.tree_max_rows:
                print(f"  {'tree':<28}skipped (more than --tree-max-rows={args.tree_max_rows:,} rows)")
                continue
            info: dict = {}
            kw = {"device": "cuda"} if eng == "cuda" else {"engine": eng}
            (dist, idx), wall, cpu, mb = timed(lambda: nb.knn(tree, qn, qc, k=args.k, info=info, **kw))
            results[eng] = (dist, idx, cpu)
            label = eng if eng != "auto" else f"auto -> {info['choice'].engine}"
            if info["choice"].visited_share is not None:
                label += f" ({info['choice'].visited_share:.1%})"
            ref = results.get("tree")
            speed = f"{ref[2] / cpu:8.1f}x" if ref is not None and eng != "tree" else f"{'':>9}"
            if ref is not None:
                same = "" if eng == "tree" else str(bool(np.array_equal(dist, ref[0]) and np.array_equal(idx, ref[1])))
            else:
                c = min(n, args.check_queries)
                if check is None:
                    check = nb.knn(tree, qn[:c], qc[:c], k=args.k, engine="tiled")
                ok = np.array_equal(dist[:c], check[0]) and np.array_equal(idx[:c], check[1])
                same = f"{ok} ({c:,} q)"
            # a GPU search spends device time, not CPU time: its figure per column-pair is wall time
            per_pair = (wall if eng == "cuda" else cpu) * 1e9 / pairs
            print(f"  {label:<28}{wall:8.2f}{cpu:8.2f}{per_pair:13.3g}{mb:9.0f}{speed}{same:>11}")
        if kind == "euclidean" and not args.no_sklearn and n * m <= args.sklearn_max_pairs:
            from sklearn.neighbors import NearestNeighbors

            XT, XS = spaces.embed(enc, "T"), spaces.embed(enc, "S")

            def sk():
                return NearestNeighbors(n_neighbors=args.k, algorithm="brute").fit(XT).kneighbors(XS)

            (d_sk, _), wall, cpu, mb = timed(sk)
            best = min(results[e][2] for e in results)
            ours = results.get("auto", results.get("tiled"))
            print(f"  {'scikit-learn brute (one-hot)':<28}{wall:8.2f}{cpu:8.2f}{1e9 * cpu / pairs:13.3f}{mb:9.0f}"
                  f"   {XT.shape[1]} one-hot dims; auto is {cpu / ours[2]:.1f}x less CPU "
                  f"(best engine {cpu / best:.1f}x); max |d - d_sklearn| "
                  f"{np.abs(ours[0][:, 0] - d_sk[:, 0]).max():.1e}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=parse_n, nargs="+", default=[20_000],
                    help="rows of each set (S and T), e.g. 20k 100k; 1M only on a bigger machine or a GPU")
    ap.add_argument("--data", nargs="+", default=["wide", "adult"], choices=["wide", "adult"])
    ap.add_argument("--spaces", nargs="+", default=["gower", "euclidean"],
                    choices=["gower", "euclidean", "hamming"])
    ap.add_argument("--k", type=int, default=1)
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"], help="cuda: add the GPU engine")
    ap.add_argument("--engines", nargs="+", choices=["tree", "tiled", "auto", "cuda"],
                    help="engines to run (default: tree, tiled, auto, and cuda with --device cuda); e.g. "
                         "--engines cuda at 1M, where the CPU engines take long")
    ap.add_argument("--check-queries", type=parse_n, default=2000,
                    help="where the tree did not run, each engine's first N rows are checked against the CPU "
                         "tiled kernel (distances bit-identical, same indices)")
    ap.add_argument("--tree-max-rows", type=parse_n, default=30_000,
                    help="skip the tree above this many rows (it costs ~2 ns per column-pair on wide data)")
    ap.add_argument("--sklearn-max-pairs", type=float, default=5e8,
                    help="skip scikit-learn above this many query x reference pairs (its n x m blocks)")
    ap.add_argument("--no-sklearn", action="store_true")
    args = ap.parse_args()

    import numba

    print(f"{os.cpu_count()} CPUs, numba threads {numba.get_num_threads()}")
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.rows:
            if "wide" in args.data:
                run(f"wide[{n:,}]", wide(n, 1), wide(n, 2), args)
            if "adult" in args.data:
                pair = adult_like(n, Path(tmp))
                if pair is not None:
                    run(f"adult[{n:,}]", pair[0], pair[1], args)


if __name__ == "__main__":
    main()
