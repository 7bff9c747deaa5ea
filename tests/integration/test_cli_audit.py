"""``synthpriv-report audit`` and the audit's documents (synthpriv_report/export/audit.py): a generator named as
MODULE:NAME trained several times and once with canaries, the "Generator audit" page after the dossier, the JSON
document checked on load, the declared epsilon beside the measured bound, ``--fail-on``, and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from synthpriv_report.datasets import load_demo
from synthpriv_report.export.audit import AUDIT_DOCUMENT_SCHEMA, load_audit
from synthpriv_report.tools.cli import EXIT_FAIL_ON, EXIT_OK, EXIT_USER_ERROR, main

METRICS = "exact_copies,near_copies,holdout_dcr_share,dcr_test,mia_worst_case"


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    demo = load_demo()
    d = tmp_path_factory.mktemp("audit")
    out = {"real": d / "train.csv", "holdout": d / "holdout.csv", "context": d / "ctx.json"}
    demo.real.iloc[:400].to_csv(out["real"], index=False)
    demo.holdout.iloc[:300].to_csv(out["holdout"], index=False)
    out["context"].write_text(json.dumps({"generator": {"name": "SequentialCART <i>leaf 1</i>", "epsilon": 0.5}}),
                              encoding="utf-8")
    return out


def _args(files: dict[str, Path], *more: str) -> list[str]:
    return ["audit", "--real", str(files["real"]), "--holdout", str(files["holdout"]), "--generator",
            "synthpriv_report.evaluation.generators:SequentialCART",
            "--runs", "2", "--canaries", "100", "--metrics", METRICS,
            "--no-progress", *more]


def test_audit_of_a_memorising_generator_writes_reads_back_and_fails_on(files: dict[str, Path], tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """SequentialCART with leaf size 1 memorises: every run is high, the canaries prove an epsilon above the
    declared 0.5, the page says so after the dossier, and --fail-on high exits 3 with the documents written."""
    html, js = tmp_path / "a.html", tmp_path / "a.json"
    code = main(_args(files, "--context", str(files["context"]), "--html", str(html), "--json", str(js),
                      "--fail-on", "high"))
    captured = capsys.readouterr()
    assert code == EXIT_FAIL_ON, captured.err
    assert "generator audit of SequentialCART" in captured.out and "high risk" in captured.out
    assert "declared epsilon 0.5" in captured.out
    doc, data = load_audit(js)
    assert doc["schema"] == AUDIT_DOCUMENT_SCHEMA
    au = doc["audit"]
    assert au["verdict"]["level"] == "high" and au["verdict"]["run_levels"] == ["high", "high"]
    assert au["epsilon"]["declared"] == 0.5 and au["epsilon"]["measured"] > 0.5
    assert au["epsilon"]["contradicts_declared"] is True
    assert data.document["verdict"]["level"] == "high"
    page = html.read_text(encoding="utf-8")
    assert "Content-Security-Policy" in page and "<script" not in page
    assert page.index('id="generator-audit"') > page.index("dossier")
    assert "does not deliver the guarantee it declares" in page
    assert "&lt;i&gt;leaf 1&lt;/i&gt;" in page and "<i>leaf 1</i>" not in page
    # the same command gives the same numbers
    js2 = tmp_path / "b.json"
    assert main(_args(files, "--context", str(files["context"]), "--json", str(js2))) == EXIT_OK
    again = json.loads(js2.read_text(encoding="utf-8"))["audit"]
    assert [r["seed"] for r in again["runs"]] == [r["seed"] for r in au["runs"]]
    assert again["canaries"]["outcome"] == au["canaries"]["outcome"]
    assert again["metrics"] == au["metrics"]


@pytest.mark.parametrize(("more", "message"), [
    (["--generator", "no_such_module_xyz:Gen"], "cannot import 'no_such_module_xyz'"),
    (["--generator", "synthpriv_report.evaluation.generators:NoSuch"], "has no 'NoSuch'"),
    (["--generator", "nocolon"], "expected MODULE:NAME"),
    (["--generator-settings", "[1, 2]"], "expected a JSON object"),
    (["--canaries", "5"], "canaries must be 0 or at least 20"),
    (["--runs", "0", "--canaries", "0"], "nothing to audit"),
    (["--shadow-targets", "30", "--shadow-trainings", "20"], "more than 400"),
])
def test_audit_errors_are_one_line(files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   more: list[str], message: str) -> None:
    args = [*_args(files, "--json", str(tmp_path / "x.json")), *more]
    assert main(args) == EXIT_USER_ERROR
    err = capsys.readouterr().err
    assert message in err and "this is a bug" not in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "x.json").exists()


def test_html_needs_a_training_run(files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*_args(files, "--html", str(tmp_path / "x.html")), "--runs", "0"]) == EXIT_USER_ERROR
    assert "give --runs 1 or more" in capsys.readouterr().err


def test_audit_with_a_shadow_attack_says_what_it_rests_on(files: dict[str, Path], tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    js = tmp_path / "s.json"
    args = [a for a in _args(files, "--json", str(js)) if a != "100"]
    args[args.index("--canaries")] = "--shadow-targets"
    args[args.index("--shadow-targets") + 1:args.index("--shadow-targets") + 1] = ["2", "--shadow-trainings", "8"]
    assert main(args) == EXIT_OK, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "shadow-model attack: 2 targets x 8 trainings" in out
    doc, _ = load_audit(js)
    assert doc["audit"]["shadow"]["trainings"]["total"] == 16
