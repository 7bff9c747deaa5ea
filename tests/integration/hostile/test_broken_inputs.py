"""Broken input files are input errors, spaced headers can be named, and the command line's small slips.

Regressions (issue 23): a truncated ``.csv.gz``, a corrupt ``.csv.xz`` or ``.csv.zip`` and a ``.csv.zst`` without
zstandard ended in exit 1 with "this is a bug in synthpriv-report" and did not name the file; a header written
``age, workclass, ..., income`` left no way to name a column ("unknown column 'income'; known: ..., income");
``--metrics ',,,'`` ran every metric; a multi-character ``--sep`` printed pandas' raw ParserWarning with its
source line; control characters of a file name reached the terminal raw.
"""

from __future__ import annotations

import bz2
import gzip
import importlib.util
import lzma
import warnings
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from synthpriv_report.datasets import load_demo
from synthpriv_report.tools.cli import EXIT_OK, EXIT_USER_ERROR, main


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    demo = load_demo()
    demo.real.iloc[:100].to_csv(tmp_path / "real.csv", index=False)
    demo.synthetic.iloc[:100].to_csv(tmp_path / "synth.csv", index=False)
    return tmp_path


def _run(folder: Path, real: Path | str, *extra: str) -> list[str]:
    return ["evaluate", "--real", str(real), "--synthetic", str(folder / "synth.csv"), "--metrics", "exact_copies",
            "--no-progress", "--json", str(folder / "r.json"), *extra]


def _one_line_input_error(capsys: pytest.CaptureFixture[str], name: str) -> str:
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0, err
    assert name in err and "bug" not in err and "Traceback" not in err and "internal error" not in err
    return err


def _csv_bytes(folder: Path) -> bytes:
    return (folder / "real.csv").read_bytes()


def _truncated_gz(folder: Path) -> Path:
    data = gzip.compress(_csv_bytes(folder))
    p = folder / "cut.csv.gz"
    p.write_bytes(data[: len(data) // 2])
    return p


def _truncated_bz2(folder: Path) -> Path:
    data = bz2.compress(_csv_bytes(folder))
    p = folder / "cut.csv.bz2"
    p.write_bytes(data[: len(data) // 2])
    return p


def _truncated_xz(folder: Path) -> Path:
    data = lzma.compress(_csv_bytes(folder))
    p = folder / "cut.csv.xz"
    p.write_bytes(data[: len(data) // 2])
    return p


def _corrupt_xz(folder: Path) -> Path:
    data = bytearray(lzma.compress(_csv_bytes(folder)))
    data[len(data) // 2: len(data) // 2 + 64] = b"\x00" * 64
    p = folder / "bad.csv.xz"
    p.write_bytes(bytes(data))
    return p


def _corrupt_zip(folder: Path) -> Path:
    p = folder / "bad.csv.zip"
    p.write_bytes(b"PK\x03\x04" + b"not really a zip archive" * 20)
    return p


def _gz_that_is_not_gzip(folder: Path) -> Path:
    p = folder / "plain.csv.gz"
    p.write_bytes(_csv_bytes(folder))
    return p


def _zip_of_two(folder: Path) -> Path:
    p = folder / "two.csv.zip"
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("a.csv", _csv_bytes(folder))
        z.writestr("b.csv", _csv_bytes(folder))
    return p


@pytest.mark.parametrize("make, words", [
    (_truncated_gz, "truncated"), (_truncated_bz2, ""), (_truncated_xz, "truncated"), (_corrupt_xz, "corrupt"),
    (_corrupt_zip, "corrupt"), (_gz_that_is_not_gzip, "corrupt"), (_zip_of_two, "several files"),
], ids=lambda v: getattr(v, "__name__", str(v)).strip("_"))
def test_broken_compressed_input_is_an_input_error_naming_the_file(make, words: str, folder: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = make(folder)
    assert main(_run(folder, path)) == EXIT_USER_ERROR
    err = _one_line_input_error(capsys, path.name)
    assert words in err
    assert not (folder / "r.json").exists()


@pytest.mark.skipif(importlib.util.find_spec("zstandard") is not None, reason="zstandard is installed here")
def test_zst_without_zstandard_names_the_package_to_install(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = folder / "real.csv.zst"
    p.write_bytes(b"(\xb5/\xfd" + b"\x00" * 40)
    assert main(_run(folder, p)) == EXIT_USER_ERROR
    err = _one_line_input_error(capsys, p.name)
    assert "pip install zstandard" in err


def test_corrupt_parquet_is_an_input_error(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = folder / "real.parquet"
    p.write_bytes(b"PAR1" + b"\x00" * 100)
    assert main(_run(folder, p)) == EXIT_USER_ERROR
    _one_line_input_error(capsys, p.name)


def test_encoding_error_inside_a_compressed_file_names_the_file(folder: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    p = folder / "latin.csv.gz"
    p.write_bytes(gzip.compress(_csv_bytes(folder).replace(b"Private", "Privé".encode("latin-1"))))
    assert main(_run(folder, p)) == EXIT_USER_ERROR
    err = _one_line_input_error(capsys, p.name)
    assert "--encoding latin-1" in err


def _spaced(folder: Path, name: str) -> Path:
    head, rest = (folder / name).read_text().split("\n", 1)
    p = folder / f"spaced_{name}"
    p.write_text(", ".join(head.split(",")) + "\n" + rest)
    return p


def test_spaces_around_header_names_are_removed_so_every_column_can_be_named(
        folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    real, syn = _spaced(folder, "real.csv"), _spaced(folder, "synth.csv")
    code = main(["evaluate", "--real", str(real), "--synthetic", str(syn), "--key", "age,sex,race",
                 "--sensitive", "income", "--exclude", "fnlwgt", "--metrics", "exact_copies", "--no-progress",
                 "--json", str(folder / "r.json")])
    err = capsys.readouterr().err
    assert code == EXIT_OK, err
    assert "spaces around 14 column name(s)" in err and "' workclass' -> 'workclass'" in err


def test_spaced_header_against_a_plain_one_matches(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    real = _spaced(folder, "real.csv")
    assert main(_run(folder, real, "--sensitive", "income")) == EXIT_OK


def test_names_in_errors_are_quoted_as_they_are(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_run(folder, folder / "real.csv", "--key", "age,nope")) == EXIT_USER_ERROR
    err = capsys.readouterr().err
    assert "'nope'" in err and "'income'" in err and "'marital-status'" in err


def test_two_headers_equal_once_stripped_are_refused_naming_both(folder: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    p = folder / "dup.csv"
    p.write_text("age,age ,sex\n1,2,a\n3,4,b\n5,6,a\n")
    assert main(_run(folder, p)) == EXIT_USER_ERROR
    err = capsys.readouterr().err
    assert "'age'" in err and "'age '" in err


@pytest.mark.parametrize("option", ["--metrics", "--key", "--sensitive", "--exclude", "--include"])
@pytest.mark.parametrize("value", [",,,", " ", ", ,"])
def test_a_list_option_naming_nothing_is_refused(option: str, value: str, folder: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    args = _run(folder, folder / "real.csv")
    if option == "--metrics":
        args[args.index("--metrics") + 1] = value
    else:
        args += [option, value]
    assert main(args) == EXIT_USER_ERROR
    err = capsys.readouterr().err
    assert option in err and "names nothing" in err
    assert not (folder / "r.json").exists()


def test_multi_character_separator_is_literal_and_prints_no_raw_warning(folder: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("real.csv", "synth.csv"):
        text = (folder / name).read_text()
        (folder / name).write_text(text.replace(",", "::"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert main(_run(folder, folder / "real.csv", "--sep", "::")) == EXIT_OK
    err = capsys.readouterr().err
    assert not [w for w in caught if issubclass(w.category, pd.errors.ParserWarning)]
    assert "ParserWarning" not in err and "warnings.warn" not in err


def test_control_characters_of_a_file_name_never_reach_the_terminal(folder: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    missing = folder / "gone\x1b[2J\x1b[31m\r.csv"
    assert main(_run(folder, missing)) == EXIT_USER_ERROR
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\r" not in err and "\\x1b" in err
