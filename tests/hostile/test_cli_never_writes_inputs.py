"""No command writes over a file it reads: every option that names an input (``--context`` included) is declared
once as such, and an output on one of them is refused with exit status 2, naming both options, before anything
is computed or written (issue 55)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _support.frames import mixed

from synthpriv_report.tools.cli import EXIT_USER_ERROR, _parser, main

#: What each command reads, by option, as its help text says.
READS = {"evaluate": {"--real", "--synthetic", "--holdout", "--reference", "--context"}, "demo": {"--context"},
         "compare": {"--real", "--synthetic", "--holdout", "--reference", "--context", "--release-contexts"},
         "audit": {"--real", "--holdout", "--reference", "--context"},
         "lite": {"--notebook", "--offline-pyodide", "--wheel"}}


def _files(tmp_path: Path) -> dict[str, Path]:
    """Real, synthetic, holdout and reference CSV files and a valid release context, in ``tmp_path``."""
    sets = (*mixed(40, seed=5), mixed(40, seed=6)[2])
    out = {}
    for flag, df in zip(("--real", "--synthetic", "--holdout", "--reference"), sets):
        out[flag] = tmp_path / f"{flag[2:]}.csv"
        df.to_csv(out[flag], index=False)
    out["--context"] = tmp_path / "ctx.json"
    out["--context"].write_text(json.dumps({"purpose": "teaching"}), encoding="utf-8")
    return out


def _evaluate(files: dict[str, Path]) -> list[str]:
    return ["evaluate", *[str(a) for flag, p in files.items() for a in (flag, p)], "--metrics", "exact_copies",
            "--no-progress"]


def _refused(args: list[str], inputs: list[tuple[str, Path]], capsys: pytest.CaptureFixture[str]) -> None:
    """Each of ``--html``, ``--pdf``, ``--json`` onto each ``(option, path)`` input: refused with exit status 2,
    naming both options, the input untouched."""
    for source, target in inputs:
        before = target.read_bytes()
        for output in ("--html", "--pdf", "--json"):
            assert main([*args, output, str(target)]) == EXIT_USER_ERROR, (source, output)
            err = capsys.readouterr().err
            assert f"{output} {target}" in err and f"{source} {target}" in err, err
            assert target.read_bytes() == before


def test_each_command_declares_every_option_that_reads_a_file() -> None:
    parser = _parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    declared = {name: {flag for flag, _ in sub.get_default("reads") or ()} for name, sub in commands.items()}
    assert declared == READS


def test_evaluate_refuses_to_write_the_report_over_the_context_file(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """``--context ctx.json --json ctx.json`` used to write the report over the context file and exit 0."""
    files = _files(tmp_path)
    before = files["--context"].read_bytes()
    assert main([*_evaluate(files), "--json", str(files["--context"])]) == EXIT_USER_ERROR
    err = capsys.readouterr().err
    assert "--json" in err and "--context" in err and "this is a bug" not in err
    assert files["--context"].read_bytes() == before


def test_no_output_of_compare_may_be_any_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``compare`` reads several synthetic files: an output on any of them, or on any other input, is refused,
    naming both options, the input untouched."""
    files = _files(tmp_path)
    second = tmp_path / "second.csv"
    second.write_bytes(files["--synthetic"].read_bytes())
    files["--release-contexts"] = tmp_path / "contexts.json"
    files["--release-contexts"].write_text(json.dumps({"second": {"purpose": "teaching"}}), encoding="utf-8")
    args = ["compare", "--synthetic", str(files["--synthetic"]), str(second),
            *[str(a) for flag, p in files.items() if flag != "--synthetic" for a in (flag, p)],
            "--metrics", "exact_copies", "--no-progress"]
    _refused(args, [*((f, files[f]) for f in sorted(READS["compare"])), ("--synthetic", second)], capsys)


def test_no_output_of_audit_may_be_any_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``audit`` reads no synthetic file but trains a generator: an output on any input is refused before any
    training, naming both options, the input untouched."""
    files = {flag: p for flag, p in _files(tmp_path).items() if flag != "--synthetic"}
    args = ["audit", "--generator", "synthpriv_report.evaluation.generators:SequentialCART", "--runs", "1",
            *[str(a) for flag, p in files.items() for a in (flag, p)], "--metrics", "exact_copies", "--no-progress"]
    _refused(args, [(f, files[f]) for f in sorted(READS["audit"])], capsys)


def test_no_output_of_evaluate_may_be_any_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every declared input against every output: refused, naming both, the input untouched."""
    files = _files(tmp_path)
    for source in sorted(READS["evaluate"]):
        target = files[source]
        before = target.read_bytes()
        for output in ("--html", "--pdf", "--json"):
            assert main([*_evaluate(files), output, str(target)]) == EXIT_USER_ERROR, (source, output)
            err = capsys.readouterr().err
            assert f"{output} {target}" in err and f"{source} {target}" in err, err
            assert target.read_bytes() == before


def test_demo_refuses_to_write_a_report_over_the_context_file(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """``demo --out DIR --context DIR/demo.json`` used to evaluate the demo and write its JSON report over the
    context file."""
    context = tmp_path / "demo.json"
    context.write_text(json.dumps({"purpose": "teaching"}), encoding="utf-8")
    before = context.read_bytes()
    assert main(["demo", "--out", str(tmp_path), "--context", str(context), "--no-pdf", "--no-progress"]) \
        == EXIT_USER_ERROR
    err = capsys.readouterr().err
    assert "--out" in err and "--context" in err
    assert context.read_bytes() == before
    assert not (tmp_path / "demo.html").exists()
