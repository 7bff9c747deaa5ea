"""Scale benchmark: the evaluation at N = 100k, 300k, 1M (3M) records per set, one process or a Dask cluster.

Real, holdout and synthetic sets of N Adult-like records each come from ``make_scaled.py`` (the shared tools
folder; made once per N under ``--data``). Every N runs in a fresh process, so the peak RSS printed is that run's
own. Printed per N: wall seconds, CPU seconds (all threads of the process), peak RSS, the seconds of the data
preparation, of every engine stage (encoder fits, encodings, search trees, identical-record ids), of every
neighbour search and of every metric (a metric's seconds include the searches it was first to need), then a
table ready for the documentation's benchmarks page (docs/benchmarks.md).

    python benchmarks/bench_scale.py                          # section 2 at 100k, 300k, 1M
    python benchmarks/bench_scale.py --sizes 1M --metrics all --sensitive income --pairing identity
                                                              # every registered metric at 1M, all 24 computed
    python benchmarks/bench_scale.py --sizes 1M --workers 2   # searches on a LocalCluster of 2 workers
    python benchmarks/bench_scale.py --sizes 1M,5M --workers 2 --shard-rows 500k --memory-limit 4GB --compare
                                      # sharded references, each worker capped; --compare also runs one process
                                      # at each N up to --compare-max and checks that the results are identical

The timings depend on the machine and on what else runs on it: the script prints the load average before and
after each run.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

SECTION_2 = ["dcr", "exact_copies", "holdout_dcr_share", "privacy_score", "nndr", "dcr_test", "nndr_test"]
ROOT = Path(__file__).resolve().parents[1]
MAKE_SCALED = ROOT.parent / "shared" / "tools" / "make_scaled.py"


def parse_n(s: str) -> int:
    s = s.strip().lower().replace("_", "")
    mult = {"k": 10**3, "m": 10**6}.get(s[-1:], 1)
    return int(round(float(s.rstrip("km")) * mult))


def label(n: int) -> str:
    return f"{n // 10**6}M" if n % 10**6 == 0 else (f"{n // 1000}k" if n % 1000 == 0 else str(n))


def ensure_data(n: int, base: Path, make_scaled: Path) -> Path:
    d = base / f"adult_scaled_{label(n)}"
    if not all((d / f).exists() for f in ("real.csv", "holdout.csv", "synthetic.csv")):
        if not make_scaled.exists():
            sys.exit(f"bench_scale: no data in {d} and no generator at {make_scaled} (give --make-scaled)")
        print(f"making {label(n)} records per set in {d} ...", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, str(make_scaled), str(n), "--out", str(d)], check=True,
                       stdout=subprocess.DEVNULL)
    return d


def ensure_parquet(d: Path, set_name: str, files: int) -> Path:
    """The set's CSV as a Parquet dataset folder of ``files`` files (made once, beside the CSV)."""
    import numpy as np
    import pandas as pd

    folder = d / f"{set_name}.{files}files.parquet"
    if not folder.exists():
        df = pd.read_csv(d / f"{set_name}.csv")
        tmp = folder.with_suffix(".tmp")
        tmp.mkdir(parents=True, exist_ok=True)
        for i, rows in enumerate(np.array_split(np.arange(len(df)), files)):
            df.iloc[rows].to_parquet(tmp / f"part-{i:03d}.parquet", index=False)
        tmp.rename(folder)
    return folder


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux


#: The child process of ``--cluster-process``: a LocalCluster whose scheduler (and nannies) live there; it prints
#: the scheduler's address, then waits until its standard input closes.
_CLUSTER_CHILD = """
import json, sys
from dask.distributed import LocalCluster
if __name__ == "__main__":
    cluster = LocalCluster(**json.loads(sys.argv[1]))
    print(cluster.scheduler_address, flush=True)
    sys.stdin.read()
    cluster.close()
"""


class ClusterProcess:
    """A LocalCluster started in a child process, so that the scheduler has a process of its own, as on a real
    cluster (where it runs on a machine of its own); this process then holds only the client."""

    def __init__(self, **kwargs: object):
        self.proc = subprocess.Popen([sys.executable, "-c", _CLUSTER_CHILD, json.dumps(kwargs)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        self.scheduler_address = self.proc.stdout.readline().strip()
        if not self.scheduler_address:
            raise RuntimeError("bench_scale: the cluster's process did not start")

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(120)


def run_one(args: argparse.Namespace) -> dict:
    """One evaluation in this process; returns its figures."""
    import numpy as np
    import pandas as pd

    n = parse_n(args.one)
    d = Path(args.data_dir)
    t0 = time.perf_counter()
    if args.inputs == "parquet":  # paths: with --workers each file is read, checked and encoded on a worker
        frames = {s: str(ensure_parquet(d, s, args.files)) for s in ("real", "holdout", "synthetic")}
    else:
        frames = {s: pd.read_csv(d / f"{s}.csv") for s in ("real", "holdout", "synthetic")}
    read_s = time.perf_counter() - t0
    with open("/proc/self/statm") as f:  # resident pages now: the interpreter, the libraries and the frames
        rss_read_mb = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    from synthpriv_report.evaluation.evaluation import Evaluation

    metrics = None if args.metrics == "all" else (SECTION_2 if args.metrics == "section2"
                                                     else args.metrics.split(","))
    kwargs = {}
    if args.sensitive:
        kwargs["sensitive_fields"] = args.sensitive.split(",")
    # a stand-in of the generator's pairing, for timing hidden_rate: real i <-> synthetic i
    if args.pairing == "identity":
        m = n
        kwargs["pairing"] = np.column_stack([np.arange(m), np.arange(m)])
    cluster = client = None
    if args.workers:
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            sys.exit("bench_scale: --workers needs dask.distributed: pip install \"synthpriv_report[dask]\"")
        cluster_kwargs = dict(n_workers=args.workers, threads_per_worker=1, processes=True,
                              dashboard_address=None, memory_limit=args.memory_limit or "auto")
        if args.cluster_process:
            cluster = ClusterProcess(**cluster_kwargs)
            client = Client(cluster.scheduler_address)
        else:
            cluster = LocalCluster(**cluster_kwargs)
            client = Client(cluster)
        kwargs["client"] = client
        if args.shard_rows:
            kwargs["shard_rows"] = parse_n(args.shard_rows)
    wall0, cpu0 = time.perf_counter(), time.process_time()
    try:
        ev = Evaluation(frames["real"], frames["synthetic"], frames["holdout"], metrics=metrics,
                        progress=not args.no_progress, random_state=0, **kwargs)
    except TypeError as exc:
        if "client" in str(exc):
            sys.exit("bench_scale: this version of synthpriv_report has no Evaluation(client=...): "
                     "run without --workers, or with a version that dispatches searches to Dask")
        raise
    prepare_s = time.perf_counter() - wall0
    res = None if args.prepare_only else ev.results()
    wall = time.perf_counter() - wall0
    cpu = time.process_time() - cpu0
    import hashlib

    # with --prepare-only, what the preparation decided: the sets' fingerprints, the notes, the columns left out
    doc = res.to_dict() if res is not None else {
        "meta": {}, "fingerprints": ev.data.fingerprints, "notes": list(ev.data.notes),
        "excluded": list(ev.data.excluded), "sizes": ev.data.sizes}
    doc["meta"].get("settings", {}).pop("backend", None)  # where the searches ran: differs by design
    for key in ("evaluated_at", "provenance"):  # when and how the evaluation was called
        doc["meta"].pop(key, None)
    digest = hashlib.sha256(json.dumps(doc, sort_keys=True, default=repr).encode()).hexdigest()
    out = {
        "n": n, "metrics": args.metrics, "workers": args.workers, "sensitive": args.sensitive,
        "pairing": args.pairing, "inputs": args.inputs, "read_s": read_s, "prepare_s": prepare_s,
        "wall_s": wall, "cpu_s": cpu, "peak_rss_mb": _rss_mb(), "rss_after_read_mb": rss_read_mb,
        "stages": ev.timings["stages"], "metric_s": ev.timings["metrics"],
        "searches": [{"what": f"{s.space}: {s.query} -> {s.ref} (k={s.k})", "engine": s.engine,
                      "seconds": s.seconds} for s in ev.searches],
        "values": {} if res is None else {k: (r.value if r.computed else None) for k, r in res.items()},
        "results_sha256": digest, "shard_rows": args.shard_rows, "memory_limit": args.memory_limit,
        "searches_where": sorted({f"{s.where}:{s.blocks}" for s in ev.searches}),
    }
    if client is not None:
        worker_rss = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0)
        worker_cpu = client.run(lambda: time.process_time())
        limits = {w: info.get("memory_limit") for w, info in client.scheduler_info()["workers"].items()}
        out["worker_peak_rss_mb"] = list(worker_rss.values())
        out["worker_cpu_s"] = list(worker_cpu.values())
        out["worker_memory_limit_mb"] = [(limits.get(w) or 0) / 2**20 for w in worker_rss]
        out["worker_processes_seen"] = len(worker_rss)  # a worker the nanny restarted (over its limit) shows here
        out["worker_peak_over_limit"] = [r > (limits.get(w) or float("inf")) / 2**20 for w, r in worker_rss.items()]
        out["cluster_process"] = bool(args.cluster_process)
        if args.cluster_process:  # the scheduler's own process (with it in this one, its memory is in peak_rss_mb)
            out["scheduler_peak_rss_mb"] = client.run_on_scheduler(
                lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0)
        client.close()
        cluster.close()
    return out


def _load() -> str:
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "?"


def show(r: dict) -> None:
    search_s = sum(s["seconds"] for s in r["searches"])
    print(f"\n== N = {label(r['n'])} per set, metrics: {r['metrics']}, workers: {r['workers'] or 'none'}"
          + (f", sensitive: {r['sensitive']}" if r.get("sensitive") else "")
          + (f", pairing: {r['pairing']}" if r.get("pairing", "none") != "none" else ""))
    before = ("Parquet paths given, nothing read before the evaluation" if r.get("inputs") == "parquet"
              else f"CSV reading {r['read_s']:.1f} s, not counted; RSS with the three DataFrames read")
    print(f"wall {r['wall_s']:.1f} s   CPU {r['cpu_s']:.1f} s   peak RSS {r['peak_rss_mb'] / 1024:.2f} GB   "
          f"({before}; RSS before the evaluation: {r.get('rss_after_read_mb', 0) / 1024:.2f} GB)")
    if r.get("scheduler_peak_rss_mb") is not None:
        print(f"scheduler (a process of its own, --cluster-process): peak RSS "
              f"{r['scheduler_peak_rss_mb'] / 1024:.2f} GB")
    if "worker_peak_rss_mb" in r:
        print("workers: peak RSS " + ", ".join(f"{m / 1024:.2f} GB" for m in r["worker_peak_rss_mb"])
              + ";  CPU " + ", ".join(f"{c:.1f} s" for c in r["worker_cpu_s"])
              + ";  memory limit " + ", ".join(f"{m / 1024:.2f} GB" for m in r.get("worker_memory_limit_mb", []))
              + f";  over the limit: {r.get('worker_peak_over_limit')}")
        print(f"shard_rows {r.get('shard_rows') or 'auto'};  searches (where:tasks) {r.get('searches_where')}")
    print(f"results sha256 {r.get('results_sha256')}")
    print(f"  prepare (validation, kinds, fingerprints)  {r['prepare_s']:8.1f} s")
    for name, s in sorted(r["stages"].items(), key=lambda kv: -kv[1]):
        print(f"  stage   {name:<50s} {s:8.1f} s")
    for s in r["searches"]:
        print(f"  search  {s['what']:<50s} {s['seconds']:8.1f} s  [{s['engine']}]")
    print(f"  all searches{'':<44s} {search_s:8.1f} s  ({100 * search_s / r['wall_s']:.0f}% of wall)")
    for name, s in sorted(r["metric_s"].items(), key=lambda kv: -kv[1]):
        note = "" if r["values"].get(name) is not None else "  (not computed)"
        print(f"  metric  {name:<50s} {s:8.1f} s{note}")
    print(f"  all metrics{'':<45s} {sum(r['metric_s'].values()):8.1f} s")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="100k,300k,1M", help="records per set, comma-separated (default "
                   "100k,300k,1M; 3M needs about 8 GB)")
    p.add_argument("--metrics", default="section2",
                   help="'section2' (default: the seven headline distance metrics), 'all', or names")
    p.add_argument("--sensitive", default="",
                   help="sensitive fields, comma-separated (the attack metrics zcap, gcap and air run only with some; "
                        "e.g. income)")
    p.add_argument("--pairing", choices=("none", "identity"), default="none",
                   help="'identity': pass the pairing real i <-> synthetic i, a stand-in that lets hidden_rate run "
                        "(its value means nothing on these data; its time does)")
    p.add_argument("--workers", type=int, default=0,
                   help="start a dask.distributed LocalCluster of this many worker processes and pass "
                        "client=Client(cluster) to the evaluation (default 0: one process)")
    p.add_argument("--shard-rows", default="",
                   help="with --workers: references per shard (e.g. 500k; default: the package's automatic size)")
    p.add_argument("--memory-limit", default="",
                   help="with --workers: memory limit of each worker process (e.g. 4GB; default Dask's 'auto')")
    p.add_argument("--cluster-process", action="store_true",
                   help="with --workers: start the LocalCluster in a child process, so that its scheduler has a "
                        "process of its own as on a real cluster: the calling process's peak is then the client's "
                        "alone, and the scheduler's is reported apart (default: the scheduler runs in the calling "
                        "process, as LocalCluster puts it)")
    p.add_argument("--compare", action="store_true",
                   help="with --workers: also run one process at each N up to --compare-max and check that the "
                        "results (every metric's JSON) are identical")
    p.add_argument("--compare-max", default="1M", help="largest N of --compare (default 1M)")
    p.add_argument("--data", default=os.environ.get("SCALE_DATA", "/tmp"),
                   help="folder of the adult_scaled_<N> data sets (made there when missing; default /tmp)")
    p.add_argument("--make-scaled", default=str(MAKE_SCALED), help="path of make_scaled.py")
    p.add_argument("--inputs", choices=("frames", "parquet"), default="frames",
                   help="frames: the CSVs read into pandas first (default); parquet: each set a Parquet dataset "
                        "folder of --files files, passed as a path (with --workers: read on the workers)")
    p.add_argument("--files", type=int, default=8, help="files per Parquet dataset (default 8)")
    p.add_argument("--prepare-only", action="store_true",
                   help="only read and prepare the data (no metric): the preparation's time and memory")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument("--json", help="also write every run's figures to this JSON file")
    p.add_argument("--one", help=argparse.SUPPRESS)
    p.add_argument("--data-dir", help=argparse.SUPPRESS)
    args = p.parse_args(argv)

    if args.one:  # child process: one N
        print("RESULT " + json.dumps(run_one(args)), flush=True)
        return 0

    results = []
    runs = []
    for n in [parse_n(s) for s in args.sizes.split(",")]:
        if args.compare and args.workers and n <= parse_n(args.compare_max):
            runs.append((n, 0))
        runs.append((n, args.workers))
    for n, workers in runs:
        d = ensure_data(n, Path(args.data), Path(args.make_scaled))
        cmd = [sys.executable, __file__, "--one", str(n), "--data-dir", str(d), "--metrics", args.metrics,
               "--workers", str(workers), "--sensitive", args.sensitive, "--pairing", args.pairing,
               "--shard-rows", args.shard_rows, "--memory-limit", args.memory_limit, "--inputs", args.inputs,
               "--files", str(args.files)] + (["--no-progress"] if args.no_progress else []) + (
            ["--cluster-process"] if args.cluster_process else []) + (
            ["--prepare-only"] if args.prepare_only else [])
        load_before = _load()
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, env={**os.environ})
        line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
        if proc.returncode != 0 or not line:
            print(proc.stdout, file=sys.stderr)
            return proc.returncode or 1
        r = json.loads(line[-1][len("RESULT "):])
        r["load_before"], r["load_after"] = load_before, _load()
        results.append(r)
        show(r)
        print(f"  load average (1, 5, 15 min) before: {r['load_before']}   after: {r['load_after']}")

    for r in results:
        if r["workers"]:
            local = [x for x in results if x["n"] == r["n"] and not x["workers"]]
            if local:
                same = local[0]["results_sha256"] == r["results_sha256"]
                print(f"{label(r['n'])}: results with {r['workers']} workers "
                      f"{'IDENTICAL to' if same else 'DIFFERENT from'} one process (sha256 of every metric's JSON)")
    print("\n| N per set | metrics | workers | wall | CPU-s | of which searches | peak RSS |")
    print("|---|---|---|---|---|---|---|")
    for r in results:
        search_s = sum(s["seconds"] for s in r["searches"])
        print(f"| {label(r['n'])} | {r['metrics']} | {r['workers'] or 1 if r['workers'] else 'one process'} | "
              f"{r['wall_s']:.0f} s | {r['cpu_s']:.0f} | {search_s:.0f} s ({len(r['searches'])} searches) | "
              f"{r['peak_rss_mb'] / 1024:.2f} GB |")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
