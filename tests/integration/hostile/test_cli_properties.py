"""Property-based test of the command line's argument and file handling (issue 23).

Random combinations of input files (valid, spaced headers, compressed, truncated, corrupt, wrongly encoded,
empty, missing, a folder), separators, list options (empty, spaced, control characters, unknown names) and
output targets (new, existing, onto an input, a folder, a link to ``/dev/null``, two outputs on one path). Every
example must end in exit 0 or 3 with whole outputs, or in exit 2 with one line on stderr that holds no control
character and no traceback: never exit 1 ("a bug"), never a temporary file left, never an input changed, never
an existing output half-replaced. Runs are derandomized (fixed seed).
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import lzma
import os
import shutil
import tempfile
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, event, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from synthpriv_report.datasets import load_demo  # noqa: E402
from synthpriv_report.tools.cli import EXIT_FAIL_ON, EXIT_OK, EXIT_USER_ERROR, main  # noqa: E402

PROFILE = settings(derandomize=True, max_examples=120, deadline=None, database=None,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                          HealthCheck.function_scoped_fixture])

_DEMO = load_demo()
_REAL = _DEMO.real.iloc[:60].to_csv(index=False).encode("utf-8")
_SYN = _DEMO.synthetic.iloc[:60].to_csv(index=False).encode("utf-8")
_COLUMNS = list(_DEMO.real.columns)


def _spaced(data: bytes) -> bytes:
    head, rest = data.split(b"\n", 1)
    return b", ".join(head.split(b",")) + b"\n" + rest


#: name -> (file name, bytes) of an input file; bytes None: a folder; "missing": no file at all.
_KINDS = {
    "csv": lambda d: ("x.csv", d),
    "spaced": lambda d: ("x.csv", _spaced(d)),
    "gz": lambda d: ("x.csv.gz", gzip.compress(d)),
    "bz2": lambda d: ("x.csv.bz2", bz2.compress(d)),
    "truncated gz": lambda d: ("x.csv.gz", gzip.compress(d)[:40]),
    "truncated xz": lambda d: ("x.csv.xz", lzma.compress(d)[:60]),
    "corrupt xz": lambda d: ("x.csv.xz", b"\xfd7zXZ\x00" + d[:100]),
    "corrupt zip": lambda d: ("x.csv.zip", b"PK\x03\x04" + d[:100]),
    "zst": lambda d: ("x.csv.zst", b"(\xb5/\xfd" + d[:50]),
    "latin-1": lambda d: ("x.csv", d.replace(b"Private", "Privé".encode("latin-1"))),
    "semicolons": lambda d: ("x.csv", d.replace(b",", b";")),
    "empty": lambda d: ("x.csv", b""),
    "binary": lambda d: ("x.csv", bytes(range(256)) * 4),
    "header only": lambda d: ("x.csv", d.split(b"\n", 1)[0] + b"\n"),
    "xlsx": lambda d: ("x.xlsx", d),
    "folder": lambda d: ("x.csv", None),
    "missing": lambda d: ("x.csv", "missing"),
}

_WORD = st.one_of(st.sampled_from(_COLUMNS), st.sampled_from(["nope", " age ", "\x1b[2J", "a\tb", "<b>", "é", ""]))
_GOOD_LIST = st.lists(st.sampled_from(_COLUMNS), min_size=1, max_size=3, unique=True).map(",".join)
_LIST = st.one_of(st.none(), st.none(), st.none(), _GOOD_LIST, st.lists(_WORD, max_size=3).map(",".join),
                  st.sampled_from([",,,", " ", ", ,", "age,,sex", "age, sex"]))
_METRICS = st.sampled_from(["exact_copies"] * 6 + ["exact_copies,dcr", ",,", "nope", "exact_copies,", " exact_copies ",
                                                   "EXACT_COPIES"])
_TARGETS = st.sampled_from(["new"] * 4 + ["existing"] * 2 + ["nested/new", "onto real", "folder", "devnull link",
                                                             "same twice"])


@st.composite
def _cases(draw: st.DrawFn) -> dict:
    """One command line; most examples are runs that should succeed, with one or two things off."""
    return {
        "real": draw(st.sampled_from(["csv"] * 8 + ["spaced"] * 3 + sorted(_KINDS))),
        "synthetic": draw(st.sampled_from(["csv"] * 6 + ["spaced", "gz", "truncated gz", "latin-1"])),
        "sep": draw(st.sampled_from([None] * 8 + [",", ";", "::", "tab", "", "|"])),
        "encoding": draw(st.sampled_from([None] * 8 + ["latin-1", "klingon"])),
        "key": draw(_LIST), "sensitive": draw(_LIST), "exclude": draw(_LIST), "include": draw(_LIST),
        "metrics": draw(_METRICS),
        "target": draw(_TARGETS),
        "fail_on": draw(st.sampled_from([None, None, "medium", "high"])),
    }


def _write_input(folder: Path, role: str, kind: str, data: bytes) -> Path:
    name, content = _KINDS[kind](data)
    path = folder / f"{role}_{name}"
    if content is None:
        path.mkdir()
    elif content != "missing":
        path.write_bytes(content)
    return path


def _state(folder: Path) -> dict[str, str]:
    out = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file() and not p.is_symlink():
            out[str(p.relative_to(folder))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


@PROFILE
@given(_cases())
def test_command_line_ends_in_a_clear_status_and_leaves_files_whole(case: dict) -> None:
    folder = Path(tempfile.mkdtemp(prefix="spr-cli-prop-"))
    try:
        real = _write_input(folder, "real", case["real"], _REAL)
        syn = _write_input(folder, "syn", case["synthetic"], _SYN)
        args = ["evaluate", "--real", str(real), "--synthetic", str(syn), "--no-progress"]
        args += ["--metrics", case["metrics"] if case["metrics"] is not None else "exact_copies"]
        for opt in ("key", "sensitive", "exclude", "include"):
            if case[opt] is not None:
                args += [f"--{opt}", case[opt]]
        if case["sep"] is not None:
            args += ["--sep", case["sep"]]
        if case["encoding"] is not None:
            args += ["--encoding", case["encoding"]]
        if case["fail_on"] is not None:
            args += ["--fail-on", case["fail_on"]]
        target = case["target"]
        out = folder / "out" / "r.json"
        out.parent.mkdir()
        if target == "existing":
            out.write_text("previous report")
        elif target == "nested/new":
            out = folder / "out" / "a" / "b" / "r.json"
        elif target == "onto real":
            out = real
        elif target == "folder":
            out = folder / "out"
        elif target == "devnull link":
            out.symlink_to(os.devnull)
        args += ["--json", str(out)]
        if target == "same twice":
            args += ["--html", str(out)]
        before = _state(folder)
        import io
        from contextlib import redirect_stderr, redirect_stdout

        err, std = io.StringIO(), io.StringIO()
        with redirect_stderr(err), redirect_stdout(std):
            code = main(args)
        stderr = err.getvalue()
        event(f"exit {code}")
        assert code in (EXIT_OK, EXIT_USER_ERROR, EXIT_FAIL_ON), (case, stderr)
        # the folder's random name may hold any letters ("...-1i2wbugw"): the words are looked for beside it
        said = stderr.replace(str(folder), "<folder>")
        assert "Traceback" not in said and "bug" not in said, stderr
        assert not any(ord(ch) < 32 and ch != "\n" for ch in stderr + std.getvalue()), stderr
        left = [p.name for p in folder.rglob("*") if p.name.endswith(".part")]
        assert not left, left
        after = _state(folder)
        changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
        if code == EXIT_USER_ERROR:
            errors = [line for line in stderr.splitlines() if line.startswith("synthpriv-report: error:")]
            assert len(errors) == 1, stderr
            assert not changed, (case, changed)  # nothing written, nothing replaced
        else:
            assert changed <= {str(out.relative_to(folder))} if target not in ("devnull link",) else not changed
            if target == "devnull link":
                assert out.is_symlink()
            else:
                assert out.read_text(encoding="utf-8").startswith("{")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
