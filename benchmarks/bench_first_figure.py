"""A student's first run of the teaching notebook on a fresh install: time to the first output and the first figure.

A fresh install has an empty numba cache. This benchmark points numba at an empty cache folder
(``NUMBA_CACHE_DIR``), optionally runs the install-time warm-up (``python -m synthpriv_report.tools.warmup``, what
``setup.sh`` runs), then executes ``notebooks/02_teaching_the_metrics.ipynb`` cell by cell in a new kernel and
prints when the first cell showed something and when the first figure appeared, counted from the first cell's
start (the kernel's own start-up is printed apart).

Usage::

    python benchmarks/bench_first_figure.py               # fresh cache, warm-up, then the notebook
    python benchmarks/bench_first_figure.py --no-warmup   # what a student waits for without the warm-up
    python benchmarks/bench_first_figure.py --cache DIR   # reuse a cache folder (a second run: warm)
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "notebooks" / "02_teaching_the_metrics.ipynb"


def _has_figure(outputs: list) -> bool:
    for o in outputs:
        data = o.get("data", {})
        if "image/png" in data or "application/vnd.jupyter.widget-view+json" in data or "<img" in data.get(
                "text/html", ""):
            return True
    return False


def run_notebook(path: Path, env: dict[str, str], upto_figure: bool = True) -> dict[str, float]:
    """Execute ``path`` cell by cell in a new kernel with ``env``; seconds to the kernel, the first output and the
    first figure (the cells after the first figure are not run with ``upto_figure``)."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    work = Path(tempfile.mkdtemp(prefix="spr-first-"))
    old = dict(os.environ)
    os.environ.update(env)
    try:
        client = NotebookClient(nb, timeout=1200, kernel_name="python3", resources={"metadata": {"path": str(work)}})
        t_kernel = time.perf_counter()
        with client.setup_kernel():
            out: dict[str, float] = {"kernel_start_s": time.perf_counter() - t_kernel}
            t0 = time.perf_counter()
            for i, cell in enumerate(nb.cells):
                if cell.cell_type != "code":
                    continue
                client.execute_cell(cell, i)
                if "first_output_s" not in out and cell.outputs:
                    out["first_output_s"] = time.perf_counter() - t0
                if _has_figure(cell.outputs):
                    out["first_figure_s"] = time.perf_counter() - t0
                    if upto_figure:
                        break
    finally:
        os.environ.clear()
        os.environ.update(old)
        shutil.rmtree(work, ignore_errors=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", help="numba cache folder (default: a new empty one, removed afterwards)")
    ap.add_argument("--no-warmup", action="store_true", help="skip the install-time warm-up")
    args = ap.parse_args(argv)
    cache = Path(args.cache) if args.cache else Path(tempfile.mkdtemp(prefix="spr-numba-"))
    cache.mkdir(parents=True, exist_ok=True)
    env = {"NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    print(f"numba cache: {cache} ({sum(1 for _ in cache.rglob('*'))} files); load {os.getloadavg()[0]:.2f} on "
          f"{os.cpu_count()} cores")
    try:
        if not args.no_warmup:
            t0 = time.perf_counter()
            r0 = os.times()
            subprocess.run([sys.executable, "-m", "synthpriv_report.tools.warmup", "--quiet"], check=True,
                           env={**os.environ, **env})
            r1 = os.times()
            cpu = (r1.children_user - r0.children_user) + (r1.children_system - r0.children_system)
            print(f"warm-up: {time.perf_counter() - t0:.1f} s wall, {cpu:.1f} CPU-s; "
                  f"{sum(1 for _ in cache.rglob('*.nbi'))} kernels cached")
        times = run_notebook(NOTEBOOK, env)
        nan = float("nan")
        print(f"kernel start {times['kernel_start_s']:.1f} s; first output {times.get('first_output_s', nan):.1f} s; "
              f"first figure {times.get('first_figure_s', nan):.1f} s (from the first cell's start); "
              f"load {os.getloadavg()[0]:.2f}")
    finally:
        if not args.cache:
            shutil.rmtree(cache, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
