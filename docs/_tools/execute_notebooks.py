"""Run the notebooks of ``notebooks/`` and store their executed copies under ``docs/notebooks/`` for the site.

The site shows the notebooks with their outputs without running them at every build (the teaching notebook takes
minutes). Each stored copy records, in its metadata under ``synthpriv_docs``, the SHA-256 of its source
notebook's cells, the package version, the commit, the date and the machine; a test
(``tests/docs/test_notebook_pages.py``) fails when a source notebook changed since its copy was stored. Run
again with::

    python docs/_tools/execute_notebooks.py            # every notebook
    python docs/_tools/execute_notebooks.py 01_quickstart.ipynb

Widget state is not stored: a widget's output keeps the static copy (``text/html``) that the package's views put
beside every live view, so the page needs no widget JavaScript from a CDN.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "notebooks"
TARGET = ROOT / "docs" / "notebooks"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
sys.path.insert(0, str(ROOT))  # this checkout's package, in this process and (PYTHONPATH below) in the kernel


def source_digest(nb: dict) -> str:
    """SHA-256 of a notebook's cells (type and source): what its stored execution must have been made from."""
    cells = [[c["cell_type"], "".join(c["source"]) if isinstance(c["source"], list) else c["source"]]
             for c in nb["cells"]]
    return hashlib.sha256(json.dumps(cells, ensure_ascii=False).encode("utf-8")).hexdigest()


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _strip_widgets(nb) -> None:
    """Drop widget views and state: the static copy beside each one stays."""
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        kept = []
        for out in cell.get("outputs", []):
            data = out.get("data")
            if data is not None and WIDGET_VIEW in data:
                data.pop(WIDGET_VIEW)
                if not data:
                    continue
            kept.append(out)
        cell.outputs = kept


def execute(name: str) -> float:
    import nbformat
    from nbclient import NotebookClient

    import synthpriv_report

    src = SOURCE / name
    raw = json.loads(src.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="synthpriv-docs-nb-") as tmp:
        work = Path(tmp)
        shutil.copy(src, work / name)
        nb = nbformat.read(work / name, as_version=4)
        os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])
        t0 = time.perf_counter()
        NotebookClient(nb, timeout=900, kernel_name="python3",
                       resources={"metadata": {"path": str(work)}}).execute()
        seconds = time.perf_counter() - t0
    _strip_widgets(nb)
    nb.metadata["synthpriv_docs"] = {
        "source": f"notebooks/{name}",
        "source_sha256": source_digest(raw),
        "package_version": synthpriv_report.__version__,
        "commit": _commit(),
        "date": datetime.date.today().isoformat(),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "seconds": round(seconds, 1),
    }
    TARGET.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, TARGET / name)
    return seconds


def main(argv: list[str]) -> int:
    names = argv or sorted(p.name for p in SOURCE.glob("*.ipynb"))
    for name in names:
        seconds = execute(name)
        print(f"{name}: executed in {seconds:.1f} s -> docs/notebooks/{name}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
