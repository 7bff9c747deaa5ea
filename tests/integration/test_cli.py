"""Tests of the command line (synthpriv_report/cli.py): success, one-line errors for user mistakes, input sanity
(separators, identifier-like columns, key fields) and the exit codes a pipeline acts on (0, 1, 2, 3; 130 is in
tests/integration/hostile/test_cli_files.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from _support.page_text import no_wbr

from synthpriv_report.datasets import load_demo
from synthpriv_report.tools.cli import (
    EXIT_FAIL_ON,
    EXIT_INTERNAL_ERROR,
    EXIT_OK,
    EXIT_USER_ERROR,
    _parser,
    main,
    read_table,
)

METRICS = "exact_copies,holdout_dcr_share,dcr_test"


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    demo = load_demo()
    d = tmp_path_factory.mktemp("cli")
    out = {"real": d / "train.csv", "synthetic": d / "synth.csv.gz", "holdout": d / "holdout.parquet",
           "semi": d / "train_semicolon.csv", "bad": d / "bad_columns.csv", "xlsx": d / "train.xlsx"}
    demo.real.iloc[:200].to_csv(out["real"], index=False)
    demo.synthetic.iloc[:200].to_csv(out["synthetic"], index=False)
    demo.holdout.iloc[:100].to_parquet(out["holdout"], index=False)
    demo.real.iloc[:200].to_csv(out["semi"], index=False, sep=";")
    demo.synthetic.iloc[:200].drop(columns=["race"]).to_csv(out["bad"], index=False)
    out["xlsx"].write_text("not a table")
    return out


def test_evaluate_writes_the_dossier_alone(files: dict[str, Path], tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """``--pdf-dossier`` writes the data protection officer's pages as a PDF of their own, the JSON report
    attached and its digest at the foot of every page; it alone is enough to write; it may not name an input."""
    from pypdf import PdfReader

    dossier, js = tmp_path / "dossier.pdf", tmp_path / "report.json"
    args = ["evaluate", "--real", str(files["real"]), "--synthetic", str(files["synthetic"]),
            "--holdout", str(files["holdout"]), "--metrics", METRICS, "--no-progress"]
    assert main([*args, "--pdf-dossier", str(dossier), "--json", str(js)]) == 0
    assert str(dossier) in capsys.readouterr().out
    reader = PdfReader(str(dossier))
    digest = json.loads(js.read_text(encoding="utf-8"))["digest"]["value"]
    assert 1 <= len(reader.pages) <= 4
    assert all(digest[:8] in (p.extract_text() or "") for p in reader.pages)
    assert reader.attachments["report.json"] == [js.read_bytes()]
    assert main([*args, "--pdf-dossier", str(tmp_path / "only.pdf")]) == 0
    assert (tmp_path / "only.pdf").read_bytes().startswith(b"%PDF")
    capsys.readouterr()
    assert main([*args, "--pdf-dossier", str(files["real"])]) == EXIT_USER_ERROR
    assert "--pdf-dossier" in _err_line(capsys)


def _err_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert err, "expected an error message on stderr"
    line = err[-1]
    assert line.startswith("synthpriv-report: error: ")
    assert "Traceback" not in "\n".join(err)
    return line


def test_evaluate_writes_html_and_json(files: dict[str, Path], tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    html, js = tmp_path / "report.html", tmp_path / "report.json"
    code = main(["evaluate", "--real", str(files["real"]), "--synthetic", str(files["synthetic"]),
                 "--holdout", str(files["holdout"]), "--key", "age,sex", "--sensitive", "income",
                 "--metrics", METRICS, "--html", str(html), "--json", str(js), "--random-state", "3"])
    assert code == 0
    out = capsys.readouterr().out
    assert "verdict:" in out and str(html) in out
    doc = json.loads(js.read_text())
    assert doc["settings"]["key_fields"] == ["age", "sex"]
    assert doc["settings"]["sensitive_fields"] == ["income"]
    assert doc["settings"]["random_state"] == 3
    assert set(doc["metrics"]) == set(METRICS.split(","))
    assert "exact_copies" in no_wbr(html.read_text())  # names may break after underscores


def test_evaluate_with_separator_and_exclude(files: dict[str, Path], tmp_path: Path) -> None:
    js = tmp_path / "r.json"
    code = main(["evaluate", "--real", str(files["semi"]), "--synthetic", str(files["semi"]), "--sep", ";",
                 "--exclude", "fnlwgt", "--metrics", "exact_copies", "--json", str(js), "--no-progress"])
    assert code == 0
    doc = json.loads(js.read_text())
    assert doc["settings"]["excluded"] == ["fnlwgt"]
    assert doc["metrics"]["exact_copies"]["value"] == 1.0


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["evaluate", "--real", "missing.csv", "--synthetic", "{synthetic}", "--json", "x.json"], "not found"),
        (["evaluate", "--real", "{real}", "--synthetic", "{bad}", "--json", "x.json"], "race"),
        (["evaluate", "--real", "{real}", "--synthetic", "{synthetic}", "--metrics", "no_such_metric",
          "--json", "x.json"], "no_such_metric"),
        (["evaluate", "--real", "{real}", "--synthetic", "{synthetic}", "--key", "no_such_column",
          "--json", "x.json"], "no_such_column"),
        (["evaluate", "--real", "{real}", "--synthetic", "{synthetic}", "--frobnicate", "--json", "x.json"],
         "frobnicate"),
        (["evaluate", "--real", "{real}", "--synthetic", "{synthetic}"], "nothing to write"),
        (["evaluate", "--real", "{xlsx}", "--synthetic", "{synthetic}", "--json", "x.json"], "unsupported"),
        (["evaluate", "--real", "{real}", "--synthetic", "{synthetic}", "--pdf-engine", "latex", "--pdf", "x.pdf"],
         "latex"),
        (["evaluate", "--synthetic", "{synthetic}", "--json", "x.json"], "--real"),
        (["nonsense"], "invalid choice"),
        ([], "required"),
    ],
)
def test_user_errors_are_one_line(args: list[str], fragment: str, files: dict[str, Path], tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    argv = [a.format(**{k: str(v) for k, v in files.items()}) for a in args]
    assert main(argv) == EXIT_USER_ERROR
    line = _err_line(capsys)
    assert fragment in line
    assert not (tmp_path / "x.json").exists()


def test_read_table_by_extension(files: dict[str, Path]) -> None:
    assert read_table(files["holdout"]).shape == (100, 15)
    assert read_table(files["synthetic"]).shape == (200, 15)
    with pytest.raises(FileNotFoundError):
        read_table(files["real"].with_name("nope.csv"))


def test_console_script_help_and_module_entry() -> None:
    run = subprocess.run([sys.executable, "-m", "synthpriv_report", "--help"], capture_output=True, text=True,
                         check=False, timeout=60)
    assert run.returncode == 0 and "evaluate" in run.stdout and "demo" in run.stdout


def test_module_entry_reports_user_error_without_traceback(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-m", "synthpriv_report", "evaluate", "--real", "nope.csv",
                          "--synthetic", "nope.csv", "--json", "x.json"], capture_output=True, text=True, check=False,
                         timeout=60, cwd=tmp_path)
    assert run.returncode == EXIT_USER_ERROR
    assert run.stderr.strip().count("\n") == 0 and "Traceback" not in run.stderr


def test_demo_writes_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "reports"
    code = main(["demo", "--out", str(out), "--metrics", METRICS, "--no-pdf", "--no-progress"])
    assert code == 0
    assert (out / "demo.html").is_file() and (out / "demo.json").is_file()
    doc = json.loads((out / "demo.json").read_text())
    assert doc["settings"]["sizes"] == {"T": 3000, "H": 1500, "S": 3000}
    assert doc["settings"]["sensitive_fields"] == ["income"]


# ----------------------------------------------------------------------------------------------------------------
# input sanity: a file read with the wrong separator


@pytest.mark.parametrize("sep_written, sep_given, suggested", [
    (";", None, "--sep ';'"),        # a ;-separated file read with the default ','
    (",", ";", "--sep ','"),         # a ,-separated file read with --sep ';'
    ("\t", None, "--sep tab"),       # a tab-separated .csv
    ("|", None, "--sep '|'"),
])
def test_a_file_read_with_the_wrong_separator_is_refused(sep_written: str, sep_given: str | None, suggested: str,
                                                         tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: the file became one column, was evaluated and scored "low risk", exit 0."""
    demo = load_demo()
    path = tmp_path / "people.csv"
    demo.real.iloc[:50].to_csv(path, index=False, sep=sep_written)
    argv = ["evaluate", "--real", str(path), "--synthetic", str(path), "--json", str(tmp_path / "r.json"),
            "--no-progress"] + (["--sep", sep_given] if sep_given else [])
    assert main(argv) == EXIT_USER_ERROR
    line = _err_line(capsys)
    assert str(path) in line and suggested in line and "single column" in line
    assert not (tmp_path / "r.json").exists()
    with pytest.raises(ValueError, match="--sep"):
        read_table(path, sep=sep_given or ",")
    # with the separator it suggests, the file reads as the 15 columns it holds
    right = {"\t": "tab"}.get(sep_written, sep_written)
    assert read_table(path, sep=right).shape == (50, 15)


def test_the_semicolon_separated_uci_bank_file_is_refused_with_the_right_hint() -> None:
    """The original UCI Bank Marketing file is ;-separated: read with the default it would be one column."""
    from _support.paths import shared_data

    path = shared_data("bank", "bank_full.csv")
    with pytest.raises(ValueError, match=r"holds 16 semicolons.*--sep ';'"):
        read_table(path)
    assert read_table(path, sep=";").shape == (45_211, 17)


def test_a_genuine_one_column_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "one.csv"
    path.write_text("age\n30\n40\n")
    assert read_table(path).columns.tolist() == ["age"]


def test_a_malformed_csv_is_a_user_error_naming_the_file(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "ragged.csv"
    path.write_text("a,b\n1,2\n3,4,5,6\n")
    assert main(["evaluate", "--real", str(path), "--synthetic", str(path), "--json", str(tmp_path / "r.json")]) \
        == EXIT_USER_ERROR
    line = _err_line(capsys)
    assert str(path) in line and "--sep" in line


# ----------------------------------------------------------------------------------------------------------------
# input sanity: identifier-like columns and key fields


@pytest.fixture(scope="module")
def with_ids(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Demo records with a running record number: 0..199 in the real data, 10,000.. in the synthetic data (a
    generator invents new numbers), so that every synthetic record differs from every real one through it."""
    demo = load_demo()
    d = tmp_path_factory.mktemp("ids")
    real = demo.real.iloc[:200].assign(record=range(200))
    out = {"real": d / "real.csv", "synthetic": d / "synth.csv"}
    real.to_csv(out["real"], index=False)
    real.assign(record=range(10_000, 10_200)).to_csv(out["synthetic"], index=False)  # copies, renumbered
    return out


def test_an_identifier_column_is_left_out_with_a_warning_on_stderr_and_in_the_report(
        with_ids: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: a running record number was used as a distance column without a word, which hid 200 copies."""
    js = tmp_path / "r.json"
    code = main(["evaluate", "--real", str(with_ids["real"]), "--synthetic", str(with_ids["synthetic"]),
                 "--metrics", "exact_copies", "--json", str(js), "--no-progress"])
    assert code == EXIT_OK
    err = capsys.readouterr().err
    assert "warning: column 'record' looks like an identifier" in err and "--include record" in err
    doc = json.loads(js.read_text())
    assert doc["settings"]["excluded"] == ["record"] and "record" not in doc["settings"]["columns"]
    assert any("'record'" in n and "identifier" in n for n in doc["data_notes"])
    assert doc["metrics"]["exact_copies"]["value"] == 1.0  # the copies are found


def test_include_keeps_the_identifier_column(with_ids: dict[str, Path], tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    js = tmp_path / "r.json"
    code = main(["evaluate", "--real", str(with_ids["real"]), "--synthetic", str(with_ids["synthetic"]),
                 "--include", "record", "--metrics", "exact_copies", "--json", str(js), "--no-progress"])
    assert code == EXIT_OK
    assert "looks like an identifier" not in capsys.readouterr().err
    doc = json.loads(js.read_text())
    assert doc["settings"]["excluded"] == [] and "record" in doc["settings"]["columns"]
    assert doc["metrics"]["exact_copies"]["value"] == 0.0  # renumbered copies are no longer equal


def test_without_key_the_default_key_fields_are_printed(files: dict[str, Path], tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: without --key every column became a key field without a word."""
    js = tmp_path / "r.json"
    assert main(["evaluate", "--real", str(files["real"]), "--synthetic", str(files["synthetic"]),
                 "--sensitive", "income", "--metrics", "exact_copies", "--json", str(js), "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "no --key given" in err and "age, workclass, fnlwgt" in err and "income" not in err.split("(")[1]
    doc = json.loads(js.read_text())
    assert "income" not in doc["settings"]["key_fields"] and len(doc["settings"]["key_fields"]) == 14
    assert "every analysed column that is not sensitive" in doc["settings"]["key_fields_chosen"]


def test_without_sensitive_the_attack_metrics_are_said_not_to_run(files: dict[str, Path], tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    js = tmp_path / "r.json"
    assert main(["evaluate", "--real", str(files["real"]), "--synthetic", str(files["synthetic"]),
                 "--metrics", "exact_copies,zcap", "--json", str(js), "--no-progress"]) == 0
    assert "no --sensitive given: the attack metrics" in capsys.readouterr().err
    doc = json.loads(js.read_text())
    assert doc["metrics"]["zcap"]["computed"] is False
    assert "--sensitive" in doc["metrics"]["zcap"]["reason_not_computed"]
    assert "did not run" in doc["settings"]["key_fields_chosen"]


# ----------------------------------------------------------------------------------------------------------------
# the command line for pipelines: version, help, verdict line, exit codes


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    from synthpriv_report import __version__

    assert main(["--version"]) == EXIT_OK
    assert capsys.readouterr().out.strip() == f"synthpriv-report {__version__}"


def test_every_option_has_help() -> None:
    parser = _parser()
    subparsers = next(a for a in parser._actions if a.choices and "evaluate" in a.choices).choices
    for p in (parser, subparsers["evaluate"], subparsers["demo"]):
        for action in p._actions:
            assert action.help and action.help.strip(), f"{p.prog}: {action.option_strings} has no help"
    assert "weasyprint" in subparsers["evaluate"].format_help() and "--fail-on" in parser.format_help() + \
        subparsers["evaluate"].format_help()


def test_the_help_names_every_check_behind_the_verdict() -> None:
    from synthpriv_report.core.registry import verdict_metric_names

    parser = _parser()
    subparsers = next(a for a in parser._actions if a.choices and "evaluate" in a.choices).choices
    metrics_help = next(a.help for a in subparsers["evaluate"]._actions if "--metrics" in a.option_strings)
    checks = verdict_metric_names()
    assert len(checks) >= 7 and all(name in metrics_help for name in checks), metrics_help


@pytest.fixture(scope="module")
def verdict_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A real set, a synthetic set that copies it (exact copies: high) and one that copies none (low)."""
    demo = load_demo()
    d = tmp_path_factory.mktemp("verdict")
    real = demo.real.iloc[:150]
    out = {"real": d / "real.csv", "copy": d / "copy.csv", "fresh": d / "fresh.csv", "holdout": d / "holdout.csv"}
    real.to_csv(out["real"], index=False)
    real.to_csv(out["copy"], index=False)
    # fresh real records the generator never saw (the training records with one number moved by 1 are near copies,
    # graded high since near copies count as copies)
    demo.holdout.iloc[100:250].to_csv(out["fresh"], index=False)
    demo.holdout.iloc[:100].to_csv(out["holdout"], index=False)
    return out


@pytest.mark.parametrize("synthetic, fail_on, level, code", [
    ("copy", None, "high", EXIT_OK),
    ("copy", "high", "high", EXIT_FAIL_ON),
    ("copy", "medium", "high", EXIT_FAIL_ON),
    # 150 fresh records against a holdout of 100, no copy on either side: no risk shown, but so few records cannot
    # rule out a copy share of 3 points (the Wilson upper bound of 0 of 150 is 3.9%): inconclusive, which passes
    # --fail-on medium and fails --fail-on inconclusive
    ("fresh", "medium", "inconclusive", EXIT_OK),
    ("fresh", "high", "inconclusive", EXIT_OK),
    ("fresh", "inconclusive", "inconclusive", EXIT_FAIL_ON),
])
def test_fail_on_exits_3_when_the_verdict_reaches_the_level(synthetic: str, fail_on: str | None, level: str,
                                                            code: int, verdict_files: dict[str, Path],
                                                            tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    js = tmp_path / "r.json"
    argv = ["evaluate", "--real", str(verdict_files["real"]), "--synthetic", str(verdict_files[synthetic]),
            "--holdout", str(verdict_files["holdout"]), "--metrics", "exact_copies", "--json", str(js),
            "--no-progress"] + (["--fail-on", fail_on] if fail_on else [])
    assert main(argv) == code
    out, err = capsys.readouterr()
    word = level if level == "inconclusive" else f"{level} risk"
    assert out.splitlines()[0].startswith(f"verdict: {word} (based on 1 of the 7 checks")
    assert js.is_file()  # the reports are written whatever the verdict
    assert json.loads(js.read_text())["verdict"]["level"] == level
    assert ("reaches --fail-on" in err) == (code == EXIT_FAIL_ON)


def test_demo_leaky_with_only_dcr_and_nndr_is_not_assessed(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: none of the checks behind the verdict ran, yet it printed "verdict: low risk" and exited 0."""
    out = tmp_path / "reports"
    code = main(["demo", "--leaky", "--metrics", "dcr,nndr", "--out", str(out), "--no-pdf", "--no-progress",
                 "--fail-on", "high"])
    assert code == EXIT_FAIL_ON
    stdout, stderr = capsys.readouterr()
    line = stdout.splitlines()[0]
    assert line.startswith("verdict: not assessed: none of the checks behind the verdict ran")
    assert "exact_copies" in line and "not requested" in line and "--metrics" in line
    assert "low risk" not in stdout
    assert "not assessed" in stderr and "--fail-on high" in stderr
    assert json.loads((out / "demo.json").read_text())["verdict"]["level"] == "not_assessed"


@pytest.mark.parametrize("target, error", [
    ("synthpriv_report.export.report_data", ValueError),                  # after the inputs were accepted
    ("synthpriv_report.metrics.closeness.copies.exact_copy_share", KeyError),     # inside a metric
    ("synthpriv_report.grading.verdict.max_level", TypeError),                     # inside the verdict
])
def test_an_internal_failure_exits_1_with_a_hint_not_as_a_user_error(target: str, error: type,
                                                                     files: dict[str, Path], tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: a ValueError, TypeError or KeyError from anywhere was reported as the user's mistake (exit 2)."""
    def boom(*args: object, **kwargs: object) -> None:
        raise error("an internal step failed")

    monkeypatch.setattr(target, boom)
    argv = ["evaluate", "--real", str(files["real"]), "--synthetic", str(files["synthetic"]),
            "--metrics", "exact_copies", "--json", str(tmp_path / "r.json"), "--no-progress"]
    assert main(argv) == EXIT_INTERNAL_ERROR
    err = capsys.readouterr().err
    assert f"internal error: {error.__name__}: " in err and "an internal step failed" in err
    assert "--debug" in err and "report" in err and "Traceback" not in err
    assert not (tmp_path / "r.json").exists()
    assert main(argv + ["--debug"]) == EXIT_INTERNAL_ERROR
    assert "Traceback" in capsys.readouterr().err


def test_an_output_that_cannot_be_written_is_a_user_error(files: dict[str, Path], tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    assert main(["evaluate", "--real", str(files["real"]), "--synthetic", str(files["synthetic"]),
                 "--metrics", "exact_copies", "--json", str(blocker / "r.json"), "--no-progress"]) == EXIT_USER_ERROR
    assert "cannot write" in _err_line(capsys)
