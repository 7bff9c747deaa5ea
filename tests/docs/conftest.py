"""The documentation site, built once per test session (``python -m mkdocs build --strict``) and shared by the
tests of this folder, across pytest-xdist workers too (the first worker to need it builds it under a lock)."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from _support.paths import ROOT


@dataclass(frozen=True)
class Site:
    path: Path
    seconds: float
    log: str


def _build(out: Path) -> dict[str, object]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    return {"returncode": proc.returncode, "seconds": round(time.perf_counter() - t0, 1),
            "log": (proc.stdout + proc.stderr)[-6000:]}


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """The built site (the build's failure fails every test that needs it, with the build's log)."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # shared by the workers of this session
    out, record = base / "docs-site", base / "docs-site.json"
    with open(base / "docs-site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not record.exists():
            record.write_text(json.dumps(_build(out)), encoding="utf-8")
        result = json.loads(record.read_text(encoding="utf-8"))
    assert result["returncode"] == 0, f"mkdocs build --strict failed:\n{result['log']}"
    return Site(out, float(result["seconds"]), str(result["log"]))
