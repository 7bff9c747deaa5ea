"""``synthpriv-report lite`` (:func:`synthpriv_report.tools.lite.build_site`) deletes only what it wrote: an output
folder that holds an input, or any file it did not write, is refused with exit status 2 before anything is
built; a site it built before is replaced (issue 55)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from synthpriv_report.tools import lite
from synthpriv_report.tools.cli import EXIT_USER_ERROR, main

NOTEBOOK = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def _notebook(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(NOTEBOOK), encoding="utf-8")
    return path


def test_lite_refuses_an_output_folder_that_holds_its_notebook(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """``lite --out DIR --notebook DIR/nb.ipynb`` used to build the site, then delete DIR with the notebook and
    every other file in it, and exit 0."""
    nb = _notebook(tmp_path / "nb.ipynb")
    (tmp_path / "thesis.tex").write_text("years of work", encoding="utf-8")
    assert main(["lite", "--out", str(tmp_path), "--notebook", str(nb)]) == EXIT_USER_ERROR
    err = capsys.readouterr().err
    assert f"--out {tmp_path}" in err and f"--notebook {nb}" in err
    assert json.loads(nb.read_text(encoding="utf-8")) == NOTEBOOK
    assert (tmp_path / "thesis.tex").read_text(encoding="utf-8") == "years of work"


def test_lite_refuses_the_working_folder_when_it_holds_other_files(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """``lite --out .`` used to empty the working folder."""
    nb = _notebook(tmp_path / "elsewhere" / "nb.ipynb")
    work = tmp_path / "work"
    work.mkdir()
    (work / "keep.csv").write_text("a\n1\n", encoding="utf-8")
    monkeypatch.chdir(work)
    assert main(["lite", "--out", ".", "--notebook", str(nb)]) == EXIT_USER_ERROR
    err = capsys.readouterr().err
    assert "--out ." in err and "'keep.csv'" in err
    assert sorted(os.listdir(work)) == ["keep.csv"]


def test_lite_refuses_an_output_folder_inside_the_pyodide_folder(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    pyodide = tmp_path / "pyodide"
    pyodide.mkdir()
    nb = _notebook(tmp_path / "nb.ipynb")
    assert main(["lite", "--out", str(pyodide / "site"), "--notebook", str(nb), "--offline-pyodide",
                 str(pyodide)]) == EXIT_USER_ERROR
    assert f"--offline-pyodide {pyodide}" in capsys.readouterr().err
    assert os.listdir(pyodide) == []


def test_the_api_refuses_a_folder_with_a_file_it_did_not_write(tmp_path: Path) -> None:
    nb = _notebook(tmp_path / "in" / "nb.ipynb")
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(ValueError, match="out .* holds 'notes.txt'"):
        lite.build_site(out, notebooks=[nb])
    assert (out / "notes.txt").read_text(encoding="utf-8") == "mine"


def _fake_site(folder: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")
    return folder


def test_a_site_it_built_is_replaced_and_anything_added_or_changed_is_kept(tmp_path: Path) -> None:
    """The record of what a build wrote: a second build replaces the first one's files; a file added to the
    site, or one changed since, makes the folder refused."""
    out = tmp_path / "site"
    first = _fake_site(tmp_path / "first", {"index.html": "one", "build/app.js": "1", "files/nb.ipynb": "{}"})
    lite._replace_site(first, out, {})
    assert (out / "build" / "app.js").read_text(encoding="utf-8") == "1" and (out / lite.MANIFEST).is_file()
    lite.check_site_folder(out)  # only what the build wrote: accepted

    second = _fake_site(tmp_path / "second", {"index.html": "two", "lab/index.html": "2"})
    lite._replace_site(second, out, {})
    written = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert written == sorted([lite.MANIFEST, "index.html", "lab/index.html"])

    (out / "lab" / "mine.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(ValueError, match="holds 'lab/mine.txt' \\(not written by this builder\\)"):
        lite.check_site_folder(out)
    (out / "lab" / "mine.txt").unlink()
    (out / "index.html").write_text("edited by hand", encoding="utf-8")
    with pytest.raises(ValueError, match="holds 'index.html' \\(changed since the site was built"):
        lite._replace_site(second, out, {})
    assert (out / "index.html").read_text(encoding="utf-8") == "edited by hand"
