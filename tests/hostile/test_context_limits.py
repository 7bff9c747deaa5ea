"""The release context is checked for size and range when it is validated, before any data is read: numbers
finite and at most 2**53 in magnitude, names and texts within their lengths; a path that is empty, missing or a
folder is refused naming ``context=`` (or ``--context``) and what it expects: a dict, or the path of a UTF-8
JSON file (issue 55)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _support.frames import mixed

from synthpriv_report import Evaluation
from synthpriv_report.core.release import validate_context
from synthpriv_report.tools.cli import EXIT_USER_ERROR, main

LIMIT = 9007199254740992  # 2**53, the documented bound


#: Contexts with a number beyond the documented range, and the field each message names.
BEYOND = [
    ({"generator": {"settings": {"n": 10**400}}}, "context.generator.settings.n"),
    ({"generator": {"settings": {"n": LIMIT + 1}}}, "context.generator.settings.n"),
    ({"generator": {"settings": {"n": -(LIMIT + 1)}}}, "context.generator.settings.n"),
    ({"generator": {"epsilon": 1e300}}, "context.generator.epsilon"),
    ({"generator": {"delta": 10**400}}, "context.generator.delta"),
]


def test_numbers_beyond_the_documented_range_are_refused_naming_the_field_and_the_bound_is_accepted() -> None:
    ok = validate_context({"generator": {"settings": {"a": LIMIT, "b": -LIMIT, "c": 0.5}, "epsilon": LIMIT}})
    assert ok["generator"]["settings"] == {"a": LIMIT, "b": -LIMIT, "c": 0.5}
    for context, field in BEYOND:
        with pytest.raises(ValueError, match=f"^{field.replace('.', '[.]')} .*out of range.*2\\*\\*53"):
            validate_context(context)


def test_a_number_json_cannot_hold_is_refused_naming_the_field() -> None:
    with pytest.raises(ValueError, match="context.generator.settings.z is a complex, not a JSON number"):
        validate_context({"generator": {"settings": {"z": 1 + 2j}}})


def test_a_setting_name_longer_than_400_characters_is_refused() -> None:
    validate_context({"generator": {"settings": {"k" * 400: 1}}})
    with pytest.raises(ValueError, match="context.generator.settings: a name is longer than 400 characters"):
        validate_context({"generator": {"settings": {"k" * 401: 1}}})


def test_the_command_refuses_a_400_digit_integer_at_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """It used to pass validation; the whole evaluation ran, then the command exited 1 with "this is a bug"."""
    real, synthetic, _ = mixed(40, seed=3)
    real.to_csv(tmp_path / "real.csv", index=False)
    synthetic.to_csv(tmp_path / "syn.csv", index=False)
    context = tmp_path / "ctx.json"
    context.write_text('{"generator": {"settings": {"n": ' + "9" * 400 + "}}}", encoding="utf-8")
    out = tmp_path / "report.json"
    code = main(["evaluate", "--real", str(tmp_path / "real.csv"), "--synthetic", str(tmp_path / "syn.csv"),
                 "--metrics", "exact_copies", "--no-progress", "--json", str(out), "--context", str(context)])
    err = capsys.readouterr().err
    assert code == EXIT_USER_ERROR, err
    assert f"--context {context}" in err and "context.generator.settings.n" in err and "400 digits" in err
    assert "this is a bug" not in err and "verdict" not in err
    assert not out.exists()


def _sets() -> tuple:
    real, synthetic, _ = mixed(30, seed=1)
    return real, synthetic


@pytest.mark.parametrize("given, error, problem", [
    ("", ValueError, "the path is empty"),
    ("no-such-context.json", FileNotFoundError, "no such file"),
    (".", IsADirectoryError, "a folder, not a file"),
])
def test_a_bad_context_path_names_the_setting_and_what_it_expects(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 given: str, error: type, problem: str) -> None:
    """``context=""`` used to give "Is a directory: '.'", a missing file a bare FileNotFoundError."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(error) as caught:
        Evaluation(*_sets(), context=given, progress=False)
    text = str(caught.value)
    assert text.startswith(f"context={given!r}: {problem}")
    assert "JSON file" in text and "dict" in text


@pytest.mark.parametrize("given, problem", [("", "the path is empty"), ("missing.json", "no such file")])
def test_the_command_names_context_and_the_file_it_expects(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          given: str, problem: str) -> None:
    """``--context ''`` used to be taken for no context at all, and the reports were written without one."""
    real, synthetic = _sets()
    real.to_csv(tmp_path / "real.csv", index=False)
    synthetic.to_csv(tmp_path / "syn.csv", index=False)
    out = tmp_path / "report.json"
    code = main(["evaluate", "--real", str(tmp_path / "real.csv"), "--synthetic", str(tmp_path / "syn.csv"),
                 "--metrics", "exact_copies", "--no-progress", "--json", str(out), "--context",
                 str(tmp_path / given) if given else ""])
    err = capsys.readouterr().err
    assert code == EXIT_USER_ERROR
    assert "--context" in err and problem in err and "JSON file" in err
    assert not out.exists()


def test_a_context_file_with_a_huge_number_is_refused_through_the_api(tmp_path: Path) -> None:
    path = tmp_path / "ctx.json"
    path.write_text(json.dumps({"generator": {"epsilon": 1e20}}), encoding="utf-8")
    with pytest.raises(ValueError, match=r"^context='.*ctx\.json': context\.generator\.epsilon is 1e\+20, out of "):
        Evaluation(*_sets(), context=str(path), progress=False)
    # more digits than Python reads as an integer at all (4300 by default)
    path.write_text('{"generator": {"settings": {"n": ' + "7" * 5000 + "}}}", encoding="utf-8")
    with pytest.raises(ValueError, match=r"^context='.*ctx\.json': a number is out of range: .* at most 2\*\*53"):
        Evaluation(*_sets(), context=str(path), progress=False)
