"""Benchmark of the in-browser teaching site (run by hand; prints figures, asserts nothing about time).

    python benchmarks/bench_lite.py [--out /tmp/bench-lite] [--sliders 6]

Builds the JupyterLite site with the checked offline Pyodide (``tests/_support/lite_offline.py``: the same
files the official CDN serves), serves it on this machine inside a network namespace with only the loopback
device, and runs the teaching notebook in headless Chromium as a student would (``tests/_support/lite_browser.py``):
every cell with Shift+Enter, then the first sliders dragged with the mouse. Prints the site's size, the bytes the
browser downloaded on this first visit, the time until the kernel is ready, each code cell's time (from the key
press to its execution count), and each slider's update time (from the mouse button's release to the last change
of its output). Needs root or user namespaces (``unshare -n``), Chromium and the ``lite`` and ``test`` extras.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _support import lite_offline  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("/tmp/bench-lite"))
    ap.add_argument("--sliders", type=int, default=6)
    args = ap.parse_args()
    reason = lite_offline.can_isolate()
    if reason:
        sys.exit(f"cannot isolate the browser from the network: {reason}")
    load = os.getloadavg()[0]
    report = lite_offline.build_offline_site(args.out / "site")
    r = lite_offline.run_in_browser(args.out / "site", args.out / "browser", sliders=args.sliders)
    print(f"{os.cpu_count()} CPUs, load average {load:.1f} before the run")
    print(f"site {report['bytes'] / 1e6:.1f} MB; first visit downloaded {r['served_bytes'] / 1e6:.1f} MB")
    print(f"kernel ready after {r['kernel_ready_s']:.1f} s")
    print(f"{'cell':>5} {'seconds':>8}  source")
    for c in r["cells"]:
        if c["code"]:
            print(f"{c['index']:>5} {c['seconds']:>8.2f}  {c['source'].splitlines()[0][:70] if c['source'] else ''}")
    print(f"{'slider':<34}{'update ms':>10}{'tables':>8}{'figures':>8}  changed")
    for s in r["sliders"]:
        changed = ", ".join(k for k in ("table", "figure") if s.get(f"{k}_changed")) or "nothing"
        print(f"{s.get('label', '')[:33]:<34}{s.get('update_ms')!s:>10}{s.get('tables', 0):>8}"
              f"{s.get('figures', 0):>8}  {changed}")
    if r["errors"]:
        print("ERRORS:", *r["errors"], sep="\n")
    print(f"screenshots and result.json in {args.out / 'browser'}")


if __name__ == "__main__":
    main()
