"""Outputs that are not regular files, and signals.

Regressions (issue 23): ``--json /dev/stdout`` or ``--json /dev/null`` wrote a temporary file and renamed it over
the target, so a root process (a Docker CI job) replaced the container's ``/dev/null`` or the ``/dev/stdout`` link
with a plain file, and a FIFO became a regular file; SIGTERM (``docker stop``, ``timeout``) left a hidden
``.part`` file beside the report; a Ctrl-C surfacing through compiled code as a ``SystemError`` ended in exit 1
("a bug").

These tests never aim the code under test at the real ``/dev/null`` or ``/dev/stdout`` (the suite may run as
root): they use links to ``/dev/null`` and FIFOs in a temporary folder, and ``/dev/fd/1`` of a child process.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from _support.paths import ROOT

from synthpriv_report.datasets import load_demo
from synthpriv_report.export import write_atomic
from synthpriv_report.tools.cli import EXIT_INTERRUPTED, EXIT_OK, EXIT_TERMINATED, EXIT_USER_ERROR, main

METRICS = "exact_copies"


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    demo = load_demo()
    demo.real.iloc[:100].to_csv(tmp_path / "real.csv", index=False)
    demo.synthetic.iloc[:100].to_csv(tmp_path / "synth.csv", index=False)
    return tmp_path


def _args(folder: Path, *extra: str) -> list[str]:
    return ["evaluate", "--real", str(folder / "real.csv"), "--synthetic", str(folder / "synth.csv"),
            "--metrics", METRICS, "--no-progress", *extra]


def _leftovers(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.startswith(".") or p.name.endswith(".part")]


def test_link_to_dev_null_is_written_through_not_replaced(folder: Path) -> None:
    link = folder / "discard.json"
    link.symlink_to(os.devnull)
    assert main(_args(folder, "--json", str(link), "--html", str(folder / "r.html"))) == EXIT_OK
    assert link.is_symlink() and os.readlink(link) == os.devnull
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    assert (folder / "r.html").is_file()
    assert not _leftovers(folder)


def test_two_outputs_on_one_link_to_dev_null_are_both_written_through(folder: Path) -> None:
    link = folder / "sink"
    link.symlink_to(os.devnull)
    assert main(_args(folder, "--json", str(link), "--html", str(link))) == EXIT_OK
    assert link.is_symlink()


def _read_fifo(path: Path, into: list[bytes]) -> threading.Thread:
    def reader() -> None:
        with open(path, "rb") as fh:
            into.append(fh.read())

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    return t


def test_fifo_output_is_written_through_and_stays_a_fifo(folder: Path) -> None:
    fifo = folder / "report.json"
    os.mkfifo(fifo)
    got: list[bytes] = []
    t = _read_fifo(fifo, got)
    assert main(_args(folder, "--json", str(fifo))) == EXIT_OK
    t.join(timeout=60)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced by a regular file"
    assert got and json.loads(got[0])["schema"] == "synthpriv_report/1"
    assert not _leftovers(folder)


def test_library_writer_keeps_a_fifo() -> None:
    import tempfile

    d = Path(tempfile.mkdtemp())
    fifo = d / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    t = _read_fifo(fifo, got)
    write_atomic(fifo, "through the pipe")
    t.join(timeout=60)
    assert got == [b"through the pipe"] and stat.S_ISFIFO(os.lstat(fifo).st_mode)


@pytest.mark.skipif(not hasattr(socket_mod := __import__("socket"), "AF_UNIX"), reason="no unix sockets")
def test_socket_output_is_refused_naming_it(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sock_path = folder / "s.sock"
    s = socket_mod.socket(socket_mod.AF_UNIX)
    try:
        s.bind(str(sock_path))
        assert main(_args(folder, "--json", str(sock_path))) == EXIT_USER_ERROR
        err = capsys.readouterr().err
        assert "s.sock" in err and "socket" in err
        assert stat.S_ISSOCK(os.lstat(sock_path).st_mode)
    finally:
        s.close()


def _child(code: str, *args: str, **kw: object) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code), *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, **kw)  # type: ignore[call-overload]


def test_json_to_the_standard_output_pipes_a_document_alone(folder: Path) -> None:
    """``--json /dev/fd/1 | jq``: stdout holds the document only (the verdict lines go to stderr)."""
    p = _child("import sys; from synthpriv_report.tools.cli import main; sys.exit(main(sys.argv[1:]))",
               *_args(folder, "--json", "/dev/fd/1"))
    out, err = p.communicate(timeout=600)
    assert p.returncode == EXIT_OK, err.decode()
    assert json.loads(out.decode())["schema"] == "synthpriv_report/1"
    assert b"verdict:" in err


_SLOW_PDF = """
import sys, time
import numba
from synthpriv_report.tools import cli
from synthpriv_report.export import render

@numba.njit(cache=False)
def spin(n):
    s = 0.0
    for i in range(n):
        s += (i % 7) * 1e-9
    return s

spin(10)  # compiled before the run starts

def slow_pdf(html, **kw):
    print("staged", flush=True)  # the HTML is staged (a .part file exists) and a compiled kernel runs
    while True:
        spin(50_000_000)

render.html_to_pdf = slow_pdf
sys.exit(cli.main(sys.argv[1:]))
"""


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, EXIT_TERMINATED), (signal.SIGINT, EXIT_INTERRUPTED)])
def test_signal_while_a_kernel_runs_removes_temporaries_and_keeps_earlier_reports(folder: Path, sig: int,
                                                                                  code: int) -> None:
    out = {"html": folder / "report.html", "pdf": folder / "report.pdf"}
    for kind, path in out.items():
        path.write_text(f"previous {kind} report")
    # the child takes the signal's default disposition: a shell starts a background job (``pytest ... &``) with
    # SIGINT ignored, which the command line keeps ignored by design, and the child would then never stop
    p = _child(_SLOW_PDF, *_args(folder, "--html", str(out["html"]), "--pdf", str(out["pdf"])),
               preexec_fn=lambda: signal.signal(sig, signal.SIG_DFL))
    try:
        assert p.stdout is not None
        assert p.stdout.readline().strip() == b"staged"
        assert any(n.endswith(".part") for n in os.listdir(folder))  # the situation the test is about
        p.send_signal(sig)
        _, err = p.communicate(timeout=600)
    finally:
        if p.poll() is None:  # a child that did not stop is not left spinning after the test
            p.kill()
            p.communicate()
    assert p.returncode == code, err.decode()
    assert b"Traceback" not in err and b"bug" not in err
    for kind, path in out.items():
        assert path.read_text() == f"previous {kind} report"
    assert not _leftovers(folder)


def test_interrupt_surfacing_as_a_system_error_is_an_interruption(folder: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """numba's dispatcher can turn a KeyboardInterrupt into ``SystemError: ... returned a result with an
    exception set`` (the interrupt as its context)."""
    from synthpriv_report.tools import cli

    def dispatcher(*a: object, **kw: object) -> None:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise SystemError("<numba.core.dispatcher> returned a result with an exception set")  # noqa: B904

    monkeypatch.setattr(cli, "_build", dispatcher)
    assert main(_args(folder, "--json", str(folder / "r.json"))) == EXIT_INTERRUPTED
    err = capsys.readouterr().err
    assert "interrupted" in err and "bug" not in err
    assert not (folder / "r.json").exists()
