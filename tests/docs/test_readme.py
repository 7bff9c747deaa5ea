"""The README is short, keeps the test command CI runs byte for byte, and its code is checked: the Python block
runs, the command lines parse with the package's own parser, and every link and picture it names exists."""

from __future__ import annotations

import re
import shlex
import subprocess

import pytest
from _support.paths import ROOT

README = ROOT / "README.md"
TEST_COMMAND = "./setup.sh && python -m pytest -n 2 -q -p no:cacheprovider"
DEMO_COMMAND = "./setup.sh && synthpriv-report demo --out reports/"


def _text() -> str:
    return README.read_text(encoding="utf-8")


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", _text(), re.S | re.M)


def test_the_readme_fits_on_a_few_screens():
    assert len(_text().encode("utf-8")) <= 12 * 1024


def test_the_test_command_is_the_one_ci_runs():
    text = _text()
    assert f"<!-- test-command -->\n```bash\n{TEST_COMMAND}\n```\n" in text
    awk = "awk '/<!-- test-command -->/{getline; getline; print; exit}' README.md"
    assert awk in (ROOT / ".ci" / "run").read_text(encoding="utf-8")  # how CI reads it
    extracted = subprocess.run(["bash", "-c", awk], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert extracted.strip() == TEST_COMMAND


def test_the_command_lines_parse():
    from synthpriv_report.tools.cli import _parser

    bash = _blocks("bash")
    assert DEMO_COMMAND in bash[0] and TEST_COMMAND in bash[1]
    commands = [b.replace("\\\n", " ") for b in bash[2:]]
    assert commands, "the README lost its command-line example"
    for command in commands:
        argv = shlex.split(command)
        assert argv[0] == "synthpriv-report"
        args = _parser().parse_args(argv[1:])
        assert args.command == "evaluate" and args.fail_on == "medium" and args.sensitive == "income"
    demo = shlex.split(DEMO_COMMAND.split("&& ", 1)[1])
    assert _parser().parse_args(demo[1:]).command == "demo"


@pytest.mark.slow
def test_the_python_block_runs(tmp_path, monkeypatch):
    (block,) = _blocks("python")
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {}
    exec(compile(block, "README.md (In a notebook)", "exec"), namespace)
    assert namespace["res"].verdict is not None
    assert (tmp_path / "report.html").stat().st_size > 10_000


def test_every_link_and_picture_exists():
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", _text())
    assert "docs/images/report.png" in targets
    missing = [t for t in targets if not t.startswith(("http://", "https://")) and not (ROOT / t).exists()]
    assert not missing, missing


def test_the_headline_figures_carry_their_provenance():
    text = _text()
    for heading in ("**How often the verdict is wrong**", "**Speed**", "**Against peers**"):
        i = text.index(heading)
        table = text[i:text.index("\n\n", text.index("|---", i))]
        assert table.count("\n|") >= 3, heading
    assert "2026-12-06" in text and "186ecee" in text
