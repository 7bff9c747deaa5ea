"""Hostile column names in what the command line prints about its inputs (identifier warnings, key fields): no
control character reaches the terminal, and the --include hint is one shell word."""

from __future__ import annotations

import shlex
from pathlib import Path

import numpy as np
import pytest

from synthpriv_report.datasets import load_demo
from synthpriv_report.tools.cli import EXIT_OK, main

ESCAPE = "\x1b[2J\x1b[31mrecord id"  # clear the screen, turn red; and a space


def test_hostile_identifier_and_key_names_print_without_control_characters(tmp_path: Path,
                                                                           capsys: pytest.CaptureFixture[str]
                                                                           ) -> None:
    demo = load_demo()
    real = demo.real.iloc[:80].assign(**{ESCAPE: np.arange(80), "my id": np.arange(80) * 3 + 1})
    real.to_csv(tmp_path / "real.csv", index=False)
    real.assign(**{ESCAPE: np.arange(900, 980)}).to_csv(tmp_path / "synth.csv", index=False)
    code = main(["evaluate", "--real", str(tmp_path / "real.csv"), "--synthetic", str(tmp_path / "synth.csv"),
                 "--sensitive", "income", "--metrics", "exact_copies", "--json", str(tmp_path / "r.json"),
                 "--no-progress"])
    assert code == EXIT_OK
    err = capsys.readouterr().err
    assert "\x1b" not in err
    assert "looks like an identifier" in err and "--include 'my id'" in err
    assert shlex.split("--include 'my id'") == ["--include", "my id"]
