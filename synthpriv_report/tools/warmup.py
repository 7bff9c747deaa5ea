"""Compile the package's kernels once, at install time, so that a student's first notebook run does not wait.

numba compiles a kernel the first time it is called and, with ``cache=True`` (every kernel of the package), keeps
the machine code on disk beside the module (or in ``NUMBA_CACHE_DIR``); later processes load it in milliseconds.
With the cache empty, the first distance metric of a fresh install waits for the compiler (more than a minute on
two cores). ``python -m synthpriv_report.tools.warmup`` (run by ``setup.sh``) fills the cache by running every metric on
the shipped demo data, the data the teaching notebooks use, so the kernels are compiled for exactly the argument
types and search engines they will meet; in a notebook, :func:`warm_up` does the same with a progress bar.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

from ..datasets import load_demo, synthetic_with_copies
from ..evaluation.evaluation import Evaluation

__all__ = ["warm_up", "main"]


def warm_up(metrics: Sequence[str] | None = None, *, progress: bool = True, random_state: int = 0) -> float:
    """Run ``metrics`` (default: every registered metric) once on the demo data, honest and leaky, so that every
    compiled kernel they call is compiled and written to numba's on-disk cache.

    Parameters
    ----------
    metrics : sequence of str, optional
        The metrics whose kernels to compile (default all).
    progress : bool
        Show a progress bar (one step per metric).
    random_state : int
        Seed of the evaluations (the numbers are thrown away; only the compiled code is kept).

    Returns
    -------
    float
        Seconds taken (minutes with an empty cache, a few seconds when it is already full).
    """
    t0 = time.perf_counter()
    demo = load_demo()
    leaky = synthetic_with_copies(demo, copy_share=0.25, near_share=0.25, random_state=random_state)
    for synthetic in (demo.synthetic, leaky):
        ev = Evaluation(demo.real, synthetic, demo.holdout, key_fields=demo.key_fields,
                        sensitive_fields=demo.sensitive_fields, metrics=metrics, progress=progress,
                        random_state=random_state, n_bootstrap=20)
        ev.results()
        progress = False  # the second pass loads what the first compiled: no bar needed
    return time.perf_counter() - t0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m synthpriv_report.tools.warmup [--quiet]``: fill numba's cache; prints the time taken."""
    parser = argparse.ArgumentParser(prog="python -m synthpriv_report.tools.warmup",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    seconds = warm_up(progress=not args.quiet)
    print(f"compiled kernels cached in {seconds:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":  # pragma: no cover - the command line
    raise SystemExit(main())
