"""Neighbour searches on a Dask LocalCluster against the same searches in this process.

Prints, for a LocalCluster of ``--workers`` processes (one Dask thread each):

- the cost of a worker's first search (numba compiles the kernels in each new worker process, or loads them from
  its on-disk cache): with an empty cache (``--cold``) and with the cache the package's own runs leave;
- for the section-2 metrics on N Adult-like records (the demo data resampled with noise, seeded): wall and
  CPU seconds of the local run and of the run on the cluster (this process; the workers' CPU time besides), the
  seconds spent in searches by each, and whether every result and neighbour table is identical.

    python benchmarks/bench_dask.py --n 20000 --workers 2
    python benchmarks/bench_dask.py --n 20000 --workers 2 --cold
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time

import numpy as np

SECTION2 = ["exact_copies", "dcr", "holdout_dcr_share", "privacy_score", "nndr", "dcr_test", "nndr_test"]


def _data(n: int, seed: int):
    from synthpriv_report.datasets import load_demo

    d = load_demo()
    rng = np.random.default_rng(seed)

    def grow(df, m):
        out = df.iloc[rng.integers(0, len(df), m)].reset_index(drop=True)
        for c in out.columns:
            if out[c].dtype.kind in "if" and c != "income":
                out[c] = out[c] + rng.normal(0, max(1e-9, float(out[c].std())) * 0.05, m)
        return out

    return grow(d.real, n), grow(d.synthetic, n), grow(d.holdout, n), list(d.sensitive_fields)


def _run(sets, client=None):
    from synthpriv_report import Evaluation

    T, S, H, sensitive = sets
    t0, c0 = time.perf_counter(), time.process_time()
    ev = Evaluation(T, S, H, sensitive_fields=sensitive, metrics=SECTION2, progress=False, random_state=0,
                    client=client)
    res = ev.results().to_dict()
    res["meta"]["settings"].pop("backend")
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return ev, json.dumps(res, sort_keys=True, default=str), wall, cpu


def _kernels_once() -> float:
    """Seconds to run each engine (tree, tiled, dense) once on a tiny search in this process: numba compiles
    the kernels on a process's first call, or loads them from its on-disk cache."""
    import pandas as pd

    from synthpriv_report.data.preparation import prepare
    from synthpriv_report.neighbors import build_tree
    from synthpriv_report.neighbors.search import SearchChoice, run_engine
    from synthpriv_report.spaces import SpaceSpec, encode, fit

    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    for dims, ncat in ((3, 2), (16, 0)):
        T = pd.DataFrame(rng.normal(size=(64, dims)), columns=[f"x{j}" for j in range(dims)])
        for j in range(ncat):
            T[f"c{j}"] = rng.choice(list("abc"), 64)
        d = prepare(T, T.copy())
        enc = encode(d, fit(d), SpaceSpec("gower" if ncat else "euclidean"))
        tree = build_tree(enc, "T", None)
        self_pos = np.full(64, -1, dtype=np.int64)
        for engine in (("tree", "tiled") if ncat else ("dense",)):
            run_engine(SearchChoice(engine, "cpu", "benchmark"), tree, enc.num["S"], enc.cat["S"], self_pos, 2)
    return time.perf_counter() - t0


def _first_search(client) -> tuple[list[float], list[float]]:
    """Per worker: seconds of the first run of every engine (compile or cache load), then of a second run."""
    first = list(client.run(_kernels_once).values())
    second = list(client.run(_kernels_once).values())
    return first, second


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=20_000, help="records per set")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--cold", action="store_true", help="workers start with an empty numba cache")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    from distributed import Client, LocalCluster

    sets = _data(args.n, args.seed)
    local_ev, local_text, lw, lc = _run(sets)
    env = {"NUMBA_CACHE_DIR": tempfile.mkdtemp(prefix="numba-cold-")} if args.cold else {}
    t0 = time.perf_counter()
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=":0",
                      env=env) as cl, Client(cl) as client:
        start = time.perf_counter() - t0
        first, second = _first_search(client)
        ev, text, dw, dc = _run(sets, client)
        worker_cpu = sum(client.run(lambda: time.process_time()).values())
    same_tables = all(np.array_equal(t.dist, local_ev._engine.tables[k].dist)
                      and np.array_equal(t.idx, local_ev._engine.tables[k].idx) for k, t in ev._engine.tables.items())
    print(f"N = {args.n} per set, {args.workers} worker processes x 1 thread, numba cache "
          f"{'empty' if args.cold else 'warm'}")
    print(f"cluster start {start:.1f} s; per worker, first run of the tree, tiled and dense kernels "
          f"{', '.join(f'{x:.1f}' for x in first)} s (compile or cache load), again "
          f"{', '.join(f'{x:.2f}' for x in second)} s")
    print(f"local:  wall {lw:.1f} s, CPU {lc:.1f} s, searches {sum(s.seconds for s in local_ev.searches):.1f} s "
          f"({len(local_ev.searches)})")
    print(f"dask:   wall {dw:.1f} s, CPU here {dc:.1f} s + workers {worker_cpu:.1f} s (their whole life), "
          f"searches {sum(s.seconds for s in ev.searches):.1f} s ({sum(s.blocks for s in ev.searches)} tasks)")
    print(f"identical results: {text == local_text}; identical neighbour tables: {same_tables}")


if __name__ == "__main__":
    main()
