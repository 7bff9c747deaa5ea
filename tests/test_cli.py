"""Tests of the command line (synthpriv_report/cli.py): success and one-line errors for user mistakes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from synthpriv_report.cli import EXIT_USER_ERROR, main, read_table
from synthpriv_report.datasets import load_demo

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
    assert "exact_copies" in html.read_text()


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
    run = subprocess.run([sys.executable, "-m", "synthpriv_report", "--help"], capture_output=True, text=True, check=False,
                         timeout=60)
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
