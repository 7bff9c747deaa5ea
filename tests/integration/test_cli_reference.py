"""``synthpriv-report evaluate --reference FILE`` (issue 54): the membership attacks' reference set from a file,
recorded in the report (its fingerprint, its file's SHA-256, the attacks' words), refused without ``--holdout`` and
never written over (the last is also in tests/hostile/test_cli_never_writes_inputs.py)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from synthpriv_report.datasets import load_demo
from synthpriv_report.tools.cli import EXIT_OK, EXIT_USER_ERROR, main

ATTACKS = "mia_distance_ratio,mia_worst_case"


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    demo = load_demo()
    d = tmp_path_factory.mktemp("cli_reference")
    out = {"real": d / "train.csv", "synthetic": d / "synth.csv", "holdout": d / "holdout.csv",
           "reference": d / "reference.csv", "bad": d / "reference_bad.csv"}
    demo.real.iloc[:200].to_csv(out["real"], index=False)
    demo.synthetic.iloc[:200].to_csv(out["synthetic"], index=False)
    demo.holdout.iloc[:60].to_csv(out["holdout"], index=False)
    demo.holdout.iloc[60:120].to_csv(out["reference"], index=False)
    demo.holdout.iloc[60:120].drop(columns=["race"]).to_csv(out["bad"], index=False)
    return out


def _argv(files: dict[str, Path], *extra: str) -> list[str]:
    return ["evaluate", "--real", str(files["real"]), "--synthetic", str(files["synthetic"]), "--key", "age,sex",
            "--sensitive", "income", "--metrics", ATTACKS, "--no-progress", *extra]


def test_reference_file_is_the_attacks_reference_set(files: dict[str, Path], tmp_path: Path) -> None:
    js = tmp_path / "report.json"
    before = files["reference"].read_bytes()
    code = main(_argv(files, "--holdout", str(files["holdout"]), "--reference", str(files["reference"]),
                      "--json", str(js)))
    assert code == EXIT_OK
    assert files["reference"].read_bytes() == before
    doc = json.loads(js.read_text())
    d = doc["metrics"]["mia_distance_ratio"]["details"]
    assert (d["n_nonmembers"], d["n_reference"], d["reference_set"]) == (60, 60, "given by the user")
    assert doc["fingerprints"]["R"] == next(s["fingerprint"] for s in doc["meta"]["sets"] if s["role"] == "reference")
    rec = next(r for r in doc["provenance"]["inputs"] if r["role"] == "reference")
    assert rec["sha256"] == hashlib.sha256(before).hexdigest() and rec["name"] == "reference.csv"
    assert "--reference" in doc["provenance"]["command"]
    assert doc["inputs"]["reference"] == "reference.csv"


def test_without_reference_the_holdout_is_split(files: dict[str, Path], tmp_path: Path) -> None:
    js = tmp_path / "report.json"
    assert main(_argv(files, "--holdout", str(files["holdout"]), "--json", str(js))) == EXIT_OK
    d = json.loads(js.read_text())["metrics"]["mia_distance_ratio"]["details"]
    assert (d["n_nonmembers"], d["n_reference"], d["reference_set"]) == (30, 30, "half of the holdout")


@pytest.mark.parametrize("extra, fragment", [
    (["--reference", "{reference}"], "--reference needs --holdout"),
    (["--holdout", "{holdout}", "--reference", "{bad}"], "missing from the reference (reference=) data"),
    (["--holdout", "{holdout}", "--reference", "{reference}", "--json", "{reference}"], "--reference"),
])
def test_reference_user_errors(extra: list[str], fragment: str, files: dict[str, Path], tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    before = files["reference"].read_bytes()
    args = [a.format(**{k: str(v) for k, v in files.items()}) for a in extra]
    if "--json" not in args:
        args += ["--json", str(tmp_path / "x.json")]
    assert main(_argv(files, *args)) == EXIT_USER_ERROR
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("synthpriv-report: error: ") and fragment in err, err
    assert files["reference"].read_bytes() == before
    assert not (tmp_path / "x.json").exists()
