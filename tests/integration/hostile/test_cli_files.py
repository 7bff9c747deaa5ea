"""Files are safe: the command line never writes over one of its inputs or writes one output onto another, writes
every output whole (temporary file beside it, ``os.replace`` only when all are complete), leaves the previous
reports whole when interrupted, and names the file and a way out when a CSV does not decode.

Regressions: ``evaluate --real real.csv ... --json real.csv`` replaced the real data with the JSON report (exit 0);
a latin-1 file failed with a bare codec error.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pandas as pd
import pytest

from synthpriv_report.datasets import load_demo
from synthpriv_report.tools.cli import EXIT_INTERRUPTED, EXIT_USER_ERROR, main

METRICS = "exact_copies,dcr"


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    demo = load_demo()
    demo.real.iloc[:120].to_csv(tmp_path / "real.csv", index=False)
    demo.synthetic.iloc[:120].to_csv(tmp_path / "synth.csv", index=False)
    demo.holdout.iloc[:60].to_csv(tmp_path / "holdout.csv", index=False)
    return tmp_path


def _args(folder: Path, *extra: str) -> list[str]:
    return ["evaluate", "--real", str(folder / "real.csv"), "--synthetic", str(folder / "synth.csv"),
            "--metrics", METRICS, "--no-progress", *extra]


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


@pytest.mark.parametrize("option, target", [
    ("--json", "real.csv"), ("--html", "synth.csv"), ("--pdf", "real.csv"), ("--json", "holdout.csv"),
    ("--html", "./sub/../real.csv"),
])
def test_output_onto_an_input_is_refused(option: str, target: str, folder: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    (folder / "sub").mkdir()
    before = _snapshot(folder)
    code = main(_args(folder, "--holdout", str(folder / "holdout.csv"), option, str(folder / target)))
    assert code == EXIT_USER_ERROR
    err = capsys.readouterr().err
    assert "input" in err and option in err and "Traceback" not in err
    assert _snapshot(folder) == before


def test_hard_link_and_symlink_to_an_input_are_refused(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    os.link(folder / "real.csv", folder / "alias.json")
    os.symlink(folder / "synth.csv", folder / "link.html")
    before = _snapshot(folder)
    assert main(_args(folder, "--json", str(folder / "alias.json"))) == EXIT_USER_ERROR
    assert "--real" in capsys.readouterr().err
    assert main(_args(folder, "--html", str(folder / "link.html"))) == EXIT_USER_ERROR
    assert "--synthetic" in capsys.readouterr().err
    assert _snapshot(folder) == before


def test_two_outputs_on_one_path_are_refused(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(_args(folder, "--html", str(folder / "r.out"), "--json", str(folder / "r.out")))
    assert code == EXIT_USER_ERROR
    assert "same file" in capsys.readouterr().err
    assert not (folder / "r.out").exists()


def _no_temporaries(folder: Path) -> None:
    left = [p.name for p in folder.iterdir() if p.name.startswith(".") or p.suffix == ".part"]
    assert not left, f"temporary files left behind: {left}"


def test_interrupt_midway_leaves_previous_reports_whole(folder: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    out = {"html": folder / "report.html", "pdf": folder / "report.pdf", "json": folder / "report.json"}
    for kind, path in out.items():
        path.write_text(f"previous {kind} report")
    from synthpriv_report.export import render

    def interrupted(html: str, **kw: object) -> bytes:
        raise KeyboardInterrupt  # Ctrl-C while the PDF prints: the HTML is already rendered and staged

    monkeypatch.setattr(render, "html_to_pdf", interrupted)
    code = main(_args(folder, "--html", str(out["html"]), "--pdf", str(out["pdf"]), "--json", str(out["json"])))
    assert code == EXIT_INTERRUPTED
    assert "interrupted" in capsys.readouterr().err
    for kind, path in out.items():
        assert path.read_text() == f"previous {kind} report"
    _no_temporaries(folder)


def test_library_writer_failure_leaves_previous_file(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from synthpriv_report.export import files, write_atomic

    target = folder / "r.html"
    target.write_text("previous")

    def broken_fsync(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(files.os, "fsync", broken_fsync)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(target, "new " * 1000)
    assert target.read_text() == "previous"
    _no_temporaries(folder)


def test_outputs_are_written_whole_and_replace_old_ones(folder: Path) -> None:
    html, js = folder / "r.html", folder / "r.json"
    html.write_text("old")
    assert main(_args(folder, "--html", str(html), "--json", str(js))) == 0
    assert html.read_text(encoding="utf-8").rstrip().endswith("</html>")
    assert js.read_text(encoding="utf-8").startswith("{")
    _no_temporaries(folder)


def _latin1(folder: Path) -> Path:
    frame = pd.read_csv(folder / "real.csv")
    frame.loc[0, "native-country"] = "España"
    frame.loc[1, "native-country"] = "Côte d'Ivoire"
    path = folder / "real_latin1.csv"
    frame.to_csv(path, index=False, encoding="latin-1")
    return path


def test_latin1_file_error_names_file_and_encoding_option(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _latin1(folder)
    args = _args(folder, "--json", str(folder / "r.json"))
    args[2] = str(path)
    assert main(args) == EXIT_USER_ERROR
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "Traceback" not in err
    assert str(path) in err and "--encoding latin-1" in err
    assert not (folder / "r.json").exists()


def test_encoding_option_reads_latin1(folder: Path) -> None:
    path = _latin1(folder)
    args = _args(folder, "--json", str(folder / "r.json"), "--encoding", "latin-1")
    args[2] = str(path)
    assert main(args) == 0
    assert (folder / "r.json").is_file()


def test_unknown_encoding_is_a_user_error(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_args(folder, "--json", str(folder / "r.json"), "--encoding", "klingon")) == EXIT_USER_ERROR
    assert "klingon" in capsys.readouterr().err


def test_input_file_names_are_shown_escaped(folder: Path) -> None:
    hostile = folder / '<img src=x onerror=alert(1)>.csv'
    (folder / "real.csv").rename(hostile)
    args = _args(folder, "--html", str(folder / "r.html"))
    args[2] = str(hostile)
    assert main(args) == 0
    text = re.sub(r"<wbr\s*/?>", "", (folder / "r.html").read_text(encoding="utf-8"))  # line-break opportunities
    assert "&lt;img src=x onerror=alert(1)&gt;.csv" in text and "<img src=x" not in text
