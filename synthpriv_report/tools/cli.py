"""Command line: ``synthpriv-report evaluate`` and ``synthpriv-report demo``.

Examples
--------
::

    synthpriv-report evaluate --real train.csv --synthetic synth.csv --holdout holdout.csv \\
        --key age,sex --sensitive income --html report.html --pdf report.pdf --json report.json
    synthpriv-report demo --out reports/      # embedded demo data -> reports/demo.html, demo.pdf, demo.json

``--reference FILE`` gives the membership attacks a reference set of its own (real records of the same population,
neither training nor holdout records; it needs ``--holdout``, whose records are then all attacked); like every
input it is never written over.

Inputs are CSV (any compression pandas infers from the extension, e.g. ``.csv.gz``; text in ``--encoding``,
UTF-8 by default) or Parquet (``.parquet``/``.pq``). A CSV file that reads as one column while its header holds
another separator (``;``, ``,``, tab or ``|``) is refused with the ``--sep`` to use.

Columns that look like identifiers (a running record number, codes such as ``ID-000123``, UUIDs) are left out
with a warning on stderr and a note in the report; ``--include`` keeps them, ``--exclude`` leaves out more.
Without ``--key`` the attack metrics assume an attacker who knows every analysed column that is not sensitive;
the command prints those columns. Without ``--sensitive`` the attack metrics do not run (they need the attribute
an attacker wants to learn) and the command says so.

The verdict is printed in words on stdout (``verdict: low risk (...)``), then each written file.

Exit status:

===  ===========================================================================================================
0    success (the reports were written)
1    internal error: a bug in synthpriv-report (a short message; ``--debug`` shows the traceback)
2    usage or input error: a bad option, a missing or unreadable file, mismatched columns, an output path that
     is also an input (any file a command reads, ``--context`` included) or another output, a ``lite`` output
     folder that holds an input or files the builder did not write, a file that does not decode or reads as one
     column (one line on stderr, naming both options where two clash)
3    ``--fail-on`` was given and the verdict reached that level or is "not assessed" (the reports are written)
130  interrupted (Ctrl-C, SIGINT): no half-written or temporary file is left
143  terminated (SIGTERM: ``docker stop``, ``timeout``, a cancelled CI job): the same
===  ===========================================================================================================

Outputs are written whole or not at all: every document is rendered into a temporary file beside its target,
and the files are moved into place only when all of them are complete, so an interrupted run leaves the
previous reports as they were and nothing half-written behind. An output that exists and is not a regular file
(``/dev/null``, ``/dev/stdout``, a terminal, a FIFO, or a link to one) is written through, never replaced; when
an output is the standard output, the verdict lines go to stderr so that the document can be piped (``--json
/dev/stdout | jq .``).
"""

from __future__ import annotations

import argparse
import codecs
import contextlib
import os
import re
import shlex
import signal
import sys
import threading
import time
import traceback
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ..core import progress

EXIT_OK = 0
EXIT_INTERNAL_ERROR = 1
EXIT_USER_ERROR = 2
EXIT_FAIL_ON = 3
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143

#: Verdict levels in order; ``--fail-on LEVEL`` fails on LEVEL and above, and on "not_assessed". An inconclusive
#: verdict (no check showed a risk, at least one could not rule its risk out) lies between low and medium: it fails
#: ``--fail-on inconclusive`` and passes ``--fail-on medium``.
_ORDER = {"low": 0, "inconclusive": 1, "medium": 2, "high": 3}

#: Separators looked for in the header of a file that reads as one column, and how to write them on a command line.
_SEPARATORS = {";": "';'", ",": "','", "\t": "tab", "|": "'|'"}
#: What each separator is called in a message (plural, adjective).
_SEPARATOR_WORDS = {";": ("semicolons", "semicolon"), ",": ("commas", "comma"), "\t": ("tabs", "tab"),
                    "|": ("vertical bars", "pipe")}
#: Spellings of the tab accepted by ``--sep``.
_TAB_SPELLINGS = ("tab", "\\t", "\t")


class _UserError(Exception):
    """An error caused by the command line or the input files (reported in one line, no traceback)."""


class _InputError(ValueError):
    """A file that cannot be read as a table (raised by :func:`read_table`; a user error on the command line)."""


class _Terminated(BaseException):
    """SIGTERM arrived (raised by the command line's handler, like ``KeyboardInterrupt`` for SIGINT)."""


class _Parser(argparse.ArgumentParser):
    """The command line's parser: one-line errors, and the options that name what a command reads declared as
    such (:meth:`add_input`), so that no command ever writes over one of them."""

    def error(self, message: str) -> None:  # one line, exit 2, no usage dump
        raise _UserError(message)

    def add_input(self, *flags: str, **kwargs: Any) -> argparse.Action:
        """An option whose value names a file or folder the command reads (``add_argument``'s arguments).

        Every such option is listed in the parsed arguments' ``reads`` (``(flag, dest)`` pairs), which
        :func:`_inputs_read` reads: a command refuses an output that is any of them (exit status 2). An option
        that reads a file is declared with this method, never with ``add_argument``.
        """
        action = self.add_argument(*flags, **kwargs)
        declared = tuple(self.get_default("reads") or ())
        self.set_defaults(reads=declared + ((action.option_strings[0], action.dest),))
        return action


def _split(text: str | None, option: str = "--metrics") -> list[str] | None:
    """The names of a comma-separated option; ``None`` when the option was not given.

    An option that was given but names nothing (``--metrics ',,,'``, ``--key ' '``) is a user error naming the
    option, never read as "not given" (which would run every metric, or choose the key fields).

    >>> _split("age, sex,,income", "--key")
    ['age', 'sex', 'income']
    >>> _split(",,,", "--metrics")
    Traceback (most recent call last):
    ...
    synthpriv_report.tools.cli._UserError: --metrics ',,,' names nothing: give comma-separated names, e.g. --metrics a,b
    """
    if text is None:
        return None
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise _UserError(f"{option} {text!r} names nothing: give comma-separated names, e.g. {option} a,b")
    return items


def read_table(path: str | Path, *, sep: str = ",", encoding: str = "utf-8") -> pd.DataFrame:
    """Read a CSV or Parquet file chosen by its extension.

    Parameters
    ----------
    path : path-like
    sep : str
        CSV field separator (``.tsv`` files default to a tab; ``"tab"`` and ``"\\t"`` mean a tab). A separator of
        several characters is taken literally (not as a regular expression).
    encoding : str
        Text encoding of CSV files (default UTF-8). A file that does not decode is a ``ValueError`` naming the
        file, the byte and its position, and suggesting ``--encoding latin-1``.

    Returns
    -------
    DataFrame

    Raises
    ------
    FileNotFoundError, IsADirectoryError
        The path does not exist or is a folder.
    ValueError
        An unsupported extension, an unknown encoding, a file that does not decode or parse, a compressed file
        that is truncated or corrupt, a compression whose library is not installed, or a CSV file that reads as
        one column while its header line holds another separator (``;``, ``,``, tab or ``|``): the message names
        the file, the cause in one line and the fix where there is one.
    """
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"file not found: {p}")
    if p.is_dir():
        raise IsADirectoryError(f"expected a file, got a folder: {p}")
    try:
        codecs.lookup(encoding)
    except LookupError:
        raise ValueError(f"unknown text encoding {encoding!r} (--encoding); e.g. utf-8, latin-1, cp1252") from None
    suffixes = [s.lower() for s in p.suffixes]
    if suffixes and suffixes[-1] in (".parquet", ".pq"):
        try:
            return pd.read_parquet(p)
        except MemoryError:
            raise
        except Exception as exc:  # noqa: BLE001 - any failure to read a user's file is an input error
            raise _InputError(_read_failure(p, exc, "Parquet")) from None
    if suffixes and suffixes[-1] in (".xlsx", ".xls", ".ods"):
        raise _InputError(f"unsupported file type {p.name!r}: save the sheet as .csv (or .parquet) first")
    if any(s in (".csv", ".tsv", ".txt") for s in suffixes):
        if sep.lower() in _TAB_SPELLINGS:
            sep = "\t"
        if sep == "":
            raise _InputError("the separator is empty (--sep); give one character, e.g. --sep ';'")
        sep = "\t" if ".tsv" in suffixes and sep == "," else sep
        options: dict[str, Any] = {"sep": sep, "encoding": encoding}
        if len(sep) > 1:  # literal, through the python engine (pandas would read it as a regular expression)
            options.update(sep=re.escape(sep), engine="python")
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                df = pd.read_csv(p, **options)
        except UnicodeDecodeError as exc:
            byte = exc.object[exc.start:exc.start + 1].hex() if exc.object else "?"
            hint = ("; if it was saved by a spreadsheet or an older tool, try --encoding latin-1 (or cp1252)"
                    if codecs.lookup(encoding).name != "latin-1" else "")
            raise _InputError(f"{p}: cannot decode the file as {encoding} (byte 0x{byte} at position {exc.start})"
                              f"{hint}") from None
        except pd.errors.EmptyDataError:
            raise _InputError(f"{p}: the file is empty (no header line)") from None
        except pd.errors.ParserError as exc:
            raise _InputError(f"{p}: not a readable CSV table with the separator {_shown_sep(sep)} "
                              f"({' '.join(str(exc).split())[:200]}); check --sep") from None
        except MemoryError:
            raise
        except Exception as exc:  # noqa: BLE001 - truncated or corrupt compressed data, a missing library, ...
            raise _InputError(_read_failure(p, exc, "CSV")) from None
        for w in caught:  # pandas' warnings, as one line naming the file (never its source line)
            warnings.warn(f"{p}: {' '.join(str(w.message).split())}", UserWarning, stacklevel=2)
        _check_separator(df, p, sep)
        return df
    raise _InputError(f"unsupported file type {p.name!r}: use .csv (optionally compressed, e.g. .csv.gz), .tsv or "
                      ".parquet")


#: Compression suffixes pandas infers, their format's name and the package that reads them (None: the standard
#: library).
_COMPRESSIONS = {".gz": ("gzip", None), ".bz2": ("bzip2", None), ".xz": ("xz", None), ".zip": ("zip", None),
                 ".zst": ("zstandard", "zstandard"), ".tar": ("tar", None), ".tgz": ("tar.gz", None)}


def _read_failure(p: Path, exc: BaseException, what: str) -> str:
    """One line saying why ``p`` could not be read: the file, the cause and the fix where there is one."""
    cause = " ".join(str(exc).split())[:200] or type(exc).__name__
    suffix = p.suffix.lower()
    fmt, package = _COMPRESSIONS.get(suffix, (None, None))
    if isinstance(exc, ImportError):
        module = package or exc.name or "pyarrow"
        kind = f"{suffix} files" if fmt else f"{what} files"
        return (f"{p}: reading {kind} needs the Python package {module!r}, which is not installed: "
                f"pip install {module}" + (" (or give the file uncompressed)" if fmt else ""))
    if isinstance(exc, EOFError) and fmt:
        return (f"{p}: the {fmt} file ends early: it is truncated (incomplete download or copy?); copy it again "
                f"whole ({cause})")
    names = {type(e).__name__ for e in (exc, exc.__cause__, exc.__context__) if e is not None}
    corrupt = {"BadGzipFile", "LZMAError", "BadZipFile", "error", "ZstdError", "ReadError", "ArrowInvalid",
               "ArrowIOError", "OSError"}
    if fmt and names & corrupt:
        return (f"{p}: not valid {fmt} data: the file is corrupt or not compressed as its name says ({cause}); "
                f"check the file, or rename it to match its format")
    if isinstance(exc, PermissionError):
        return f"{p}: permission denied: the file cannot be read by this user"
    if isinstance(exc, ValueError) and "Multiple files" in cause:
        return f"{p}: the archive holds several files ({cause}); extract the one to read and give it instead"
    return f"{p}: cannot read the file as {what} ({type(exc).__name__}: {cause})"


def _shown_sep(sep: str) -> str:
    return _SEPARATORS.get(sep, repr(sep))


def _check_separator(df: pd.DataFrame, path: Path, sep: str) -> None:
    """Refuse a table that reads as one column while its header holds another separator.

    The header (the one column's name) is searched for ``;``, ``,``, tab and ``|`` other than ``sep``; the one
    found most often is suggested. A genuine one-column file (a header without any of them) passes.
    """
    if df.shape[1] != 1:
        return
    header = str(df.columns[0])
    counts = {c: header.count(c) for c in _SEPARATORS if c != sep}
    best = max(counts, key=lambda c: counts[c])
    if counts[best] == 0:
        return
    raise _InputError(
        f"{path}: the file reads as a single column with the separator {_shown_sep(sep)}, but its header line "
        f"holds {counts[best]} {_SEPARATOR_WORDS[best][0]}: it looks {_SEPARATOR_WORDS[best][1]}-separated; run "
        f"again with --sep {_shown_sep(best)}")


def _parser() -> argparse.ArgumentParser:
    from .. import __version__

    parser = _Parser(prog="synthpriv-report",
                     description="Does this synthetic dataset leak the real records it was trained on?",
                     epilog="exit status: 0 success; 1 internal error (a bug: run with --debug and report it); "
                            "2 usage or input error; 3 the verdict reached --fail-on (or is not assessed); "
                            "130 interrupted (SIGINT); 143 terminated (SIGTERM)")
    parser.add_argument("--version", action="version", version=f"synthpriv-report {__version__}",
                        help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="{evaluate,compare,audit,demo,lite}",
                                help="evaluate: your files; compare: several releases of the same real data; "
                                     "audit: a generator, trained several times and with canaries; "
                                     "demo: the embedded demo data; lite: the in-browser teaching site")
    sub.required = True

    from ..core.registry import verdict_metric_names

    def common(p: _Parser) -> None:
        p.add_argument("--metrics", help="comma-separated metric names (default: all registered); the verdict rests "
                                         f"on the checks among them ({', '.join(verdict_metric_names())}) and is "
                                         "'not assessed' when none of these ran")
        p.add_argument("--random-state", type=int, default=0, help="seed of every random step (default 0)")
        p.add_argument("--pdf-engine", choices=("weasyprint", "chromium"), default="weasyprint",
                       help="program that prints the PDF: weasyprint (default, pure Python) or chromium (the "
                            "system Chromium browser through playwright, JavaScript disabled)")
        p.add_argument("--reveal-real-values", action="store_true",
                       help="allow raw real record values in the reports (default: withheld)")
        p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
        p.add_argument("--fail-on", choices=("inconclusive", "medium", "high"),
                       help="exit with status 3 when the verdict is this level or higher, or 'not assessed' "
                            "(for CI pipelines; the reports are still written). Levels in order: low (every "
                            "check ruled its risk out), inconclusive (no risk shown, not every risk ruled out), "
                            "medium, high: --fail-on inconclusive passes only a verdict of low, --fail-on medium "
                            "also passes an inconclusive one")
        p.add_argument("--debug", action="store_true", help="show the full traceback of an error")
        p.add_input("--context", metavar="FILE.json",
                    help="the release context, a JSON file: purpose, recipients, release_mode (public, "
                         "restricted or internal), operator, organisation, generator (name, version, settings, "
                         "epsilon, delta, post_filters, model_released), levels_reason and a prefilled "
                         "decision; printed on the report's cover and kept in the JSON report")

    def data_options(p: _Parser, synthetic: dict[str, Any] | None) -> None:
        p.add_input("--real", required=True, help="real training data (CSV or Parquet)")
        if synthetic is not None:
            p.add_input("--synthetic", required=True, **synthetic)
        p.add_input("--holdout", required=synthetic is None,
                    help="real holdout data the generator did not see (CSV or Parquet)")
        p.add_input("--reference", metavar="FILE",
                    help="the membership attacks' reference data (CSV or Parquet): real records of the same "
                         "population, neither training nor holdout records; needs --holdout, whose records are then "
                         "all attacked (default: the attacks split the holdout in two)")
        p.add_argument("--sep", default=",", help="CSV field separator (default ','; e.g. ';', '|', or tab for a "
                                                  "tab); a file that reads as one column is refused with a hint")
        p.add_argument("--encoding", default="utf-8",
                       help="text encoding of the CSV inputs (default utf-8; e.g. latin-1 for older files)")
        p.add_argument("--key", help="comma-separated key attributes: what an attacker knows about a person "
                                     "(quasi-identifiers such as age,sex,zip); default: every analysed column that "
                                     "is not sensitive (an attacker who knows everything else), printed on stderr")
        p.add_argument("--sensitive", help="comma-separated sensitive attributes: what an attacker wants to learn; "
                                           "without it the attack metrics do not run")
        p.add_argument("--exclude", help="comma-separated columns to leave out of every metric")
        p.add_argument("--include", help="comma-separated columns to keep even though they look like identifiers "
                                         "(by default such columns are left out, with a warning)")

    ev = sub.add_parser("evaluate", help="evaluate a synthetic data file against the real data")
    data_options(ev, {"help": "synthetic data (CSV or Parquet)"})
    ev.add_argument("--html", help="write the HTML report here")
    ev.add_argument("--pdf", help="write the PDF report here")
    ev.add_argument("--pdf-dossier", help="also write the data protection officer's dossier alone here (four "
                                          "pages, the same digest in every footer), to be signed apart from the "
                                          "annex")
    ev.add_argument("--json", help="write the JSON report here")
    common(ev)

    demo = sub.add_parser("demo", help="evaluate the embedded demo data and write demo.html, demo.pdf, demo.json")
    demo.add_argument("--out", default="reports", help="output folder (default reports/)")
    demo.add_argument("--leaky", action="store_true", help="use the leaky synthetic demo set")
    demo.add_argument("--no-pdf", action="store_true", help="skip the PDF")
    common(demo)

    compare = sub.add_parser("compare", help="evaluate several synthetic data files (candidate releases) against "
                                             "the same real data, to keep one")
    data_options(compare, {"nargs": "+", "metavar": "FILE",
                           "help": "the candidate releases (CSV or Parquet), at least two"})
    compare.add_argument("--names", help="comma-separated names of the releases, in the order of --synthetic "
                                         "(default: the files' names without their extension)")
    compare.add_argument("--target", help="a column to predict for the utility's train-on-synthetic, test-on-real "
                                          "accuracy (needs --holdout)")
    compare.add_input("--release-contexts", metavar="FILE.json",
                      help="each release's own release context, a JSON object {release name: context} (the "
                           "fields of --context); one generator at several privacy budgets declares each epsilon "
                           "here, and the documents draw the risk against it")
    compare.add_argument("--choose", metavar="NAME",
                         help="the release the documents are written for (default: the first of the ranking, from "
                              "the least to the most risky)")
    compare.add_argument("--fail-on-release", metavar="NAME", default="all",
                         help="the release --fail-on looks at: a name, or 'all' (default: any release)")
    compare.add_argument("--html", help="write the HTML report here: the chosen release's report, with a page on "
                                        "choosing among the releases after the dossier")
    compare.add_argument("--pdf", help="write the PDF report here (as the HTML, the comparison's JSON attached)")
    compare.add_argument("--json", help="write the comparison's JSON document here")
    common(compare)

    aud = sub.add_parser("audit", help="audit a generator: train it several times on the real data and evaluate "
                                       "every release, and train it once more with canaries to bound its epsilon")
    data_options(aud, None)
    aud.add_argument("--generator", required=True, metavar="MODULE:NAME",
                     help="the generator: MODULE:NAME, a class or function of an importable module that returns an "
                          "object with fit(frame) and sample(n), called once per training run (e.g. "
                          "synthpriv_report.evaluation.generators:SequentialCART), or an adapter: sdv:SYNTHESIZER, "
                          "synthcity:PLUGIN, smartnoise:SYNTHESIZER")
    aud.add_argument("--generator-settings", metavar="JSON",
                     help="keyword settings for the generator, a JSON object (e.g. '{\"epsilon\": 1.0}')")
    aud.add_argument("--runs", type=int, default=5, help="training runs to evaluate (default 5; 0: canaries only)")
    aud.add_argument("--canaries", type=int, default=0,
                     help="canaries of the one-run audit (default 0: none; at least 20; e.g. 200)")
    aud.add_argument("--shadow-targets", type=int, default=0,
                     help="people of the shadow-model attack (default 0: none): the training records ranked most "
                          "exposed, each put into or left out of the training data over --shadow-trainings runs")
    aud.add_argument("--shadow-trainings", type=int, default=20,
                     help="training runs per shadow target (default 20; targets x trainings at most 400)")
    aud.add_argument("--resample", choices=("same", "subsample"), default="same",
                     help="each run trains on all the real training data (same, default) or on a random subsample")
    aud.add_argument("--fraction", type=float, default=0.5, help="the subsample's share (default 0.5)")
    aud.add_argument("--html", help="write the HTML report here: the first run's report, with the generator audit "
                                    "after the dossier")
    aud.add_argument("--pdf", help="write the PDF report here (as the HTML, the audit's JSON attached)")
    aud.add_argument("--json", help="write the audit's JSON document here")
    common(aud)

    lite = sub.add_parser("lite", help="build a JupyterLite site: the teaching notebooks run in a browser with "
                                       "nothing installed (needs the 'lite' extra)")
    lite.add_argument("--out", default="site",
                      help="the site's folder (default site/): new, empty, or a site built before (replaced); a "
                           "folder holding any other file or an input is refused")
    lite.add_input("--notebook", action="append", dest="notebooks",
                   help="a notebook to bundle (repeatable; default: the teaching notebook)")
    lite.add_input("--offline-pyodide", metavar="DIR",
                   help="bundle this local Pyodide distribution (checked against its pyodide-lock.json) "
                        "instead of loading the official one from its CDN")
    lite.add_argument("--pyodide-lock-sha256", help="the expected SHA-256 of DIR's pyodide-lock.json")
    lite.add_input("--wheel", action="append", dest="wheels", default=[],
                   help="a pure-Python wheel to add to the site's package index (repeatable; for sites without "
                        "internet access)")
    lite.add_argument("--debug", action="store_true", help="show the full traceback of an error")
    return parser


def _inputs_read(args: argparse.Namespace) -> list[tuple[str, str]]:
    """``(option, path)`` for every path the command reads, from the options declared with
    :meth:`_Parser.add_input` (an option given several times gives one pair each)."""
    pairs = []
    for flag, dest in getattr(args, "reads", ()):
        value = getattr(args, dest, None)
        for path in value if isinstance(value, list) else [value]:
            if isinstance(path, str):
                pairs.append((flag, path))
    return pairs


def _refuse_writing_inputs(args: argparse.Namespace, outputs: dict[str, str | None]) -> None:
    """A user error naming both options when an output is one of the files the command reads (``--json`` over
    ``--context``, say), another output, or a folder."""
    from ..export import check_distinct

    try:
        check_distinct({}, outputs)
        for flag, path in _inputs_read(args):
            check_distinct({flag: path}, outputs)
    except ValueError as exc:
        raise _UserError(str(exc)) from exc


def _lite(args: argparse.Namespace) -> int:
    """``synthpriv-report lite``: build the in-browser teaching site (:mod:`synthpriv_report.tools.lite`)."""
    from . import lite

    read: dict[str, list[str]] = {}
    for flag, path in _inputs_read(args):
        read.setdefault(flag, []).append(path)
    try:
        # before anything is built: a folder that holds an input or anything the builder did not write is refused
        lite.check_site_folder(args.out, read, label="--out")
        report = lite.build_site(args.out, notebooks=args.notebooks, offline_pyodide=args.offline_pyodide,
                                 pyodide_lock_sha256=args.pyodide_lock_sha256, wheels=args.wheels)
    except (ValueError, OSError, RuntimeError) as exc:
        raise _UserError(str(exc)) from exc
    print(lite._summary(report), end="", file=sys.stderr)
    return 0


_CONTROL = re.compile(r"[^\S ]|[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069]")


def printable(text: str) -> str:
    r"""``text`` safe for a terminal: every control or layout character (escape sequences, carriage returns,
    tabs, bidirectional overrides) written as its escape, so a file or column name cannot move the cursor,
    clear the screen or hide part of a message.

    >>> printable("real\x1b[2J.csv"), printable("tab\there")
    ('real\\x1b[2J.csv', 'tab\\there')
    """
    return _CONTROL.sub(lambda m: m.group(0).encode("unicode_escape").decode("ascii"), str(text))


def _say(message: str) -> None:
    """A note or warning for the person running the command (stderr, one line)."""
    print(f"synthpriv-report: {printable(message)}", file=sys.stderr)


def _shown(name: str) -> str:
    """A column name as printed on a terminal: itself when printable, else its repr (no control characters)."""
    return name if name.isprintable() else repr(name)


def _arg(name: str) -> str:
    """A column name as one shell word (quoted when needed; repr when it holds control characters)."""
    return shlex.quote(name) if name.isprintable() else repr(name)


def _build(real: pd.DataFrame, synthetic: pd.DataFrame, holdout: pd.DataFrame | None, **kwargs: Any) -> Any:
    """The Evaluation, with its validation errors as user errors and its identifier warnings on stderr."""
    from ..evaluation.evaluation import Evaluation

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UserWarning)
        try:
            ev = Evaluation(real, synthetic, holdout, **kwargs)
        except (ValueError, TypeError) as exc:  # the data or a setting was refused at the boundary
            raise _UserError(str(exc)) from exc
    for c, why in ev.excluded_reasons.items():
        if why.startswith("looks like an identifier"):
            _say(f"warning: column {c!r} {why}: it is left out of every metric (keep it with --include {_arg(c)})")
    for w in caught:  # any other warning raised while the data were read
        if not str(w.message).startswith("column ") or "looks like an identifier" not in str(w.message):
            _say(f"warning: {w.message}")
    return ev


def _key_fields_notice(ev: Any, key_given: bool) -> None:
    """Say how the key fields were chosen when ``--key`` was not given (never "all columns" silently)."""
    if key_given:
        return
    sensitive = list(ev.settings["sensitive_fields"])
    if not sensitive:
        _say("note: no --sensitive given: the attack metrics, which need the attribute an attacker wants to learn, "
             "are not run")
        return
    keys = ", ".join(_shown(c) for c in ev.settings["key_fields"])
    _say(f"note: no --key given: the attack metrics assume an attacker who knows every analysed column that is not "
         f"sensitive ({keys}); give --key to choose what an attacker knows")


def _not_run_text(not_run: Sequence[tuple[str, str]]) -> str:
    """The checks that did not run, grouped by reason: ``"a, b: reason; c: other reason"``."""
    by_reason: dict[str, list[str]] = {}
    for name, reason in not_run:
        by_reason.setdefault(reason, []).append(name)
    return "; ".join(f"{', '.join(names)}: {reason}" for reason, names in by_reason.items())


def verdict_line(verdict: Any) -> str:
    """The verdict in plain words, one line (what the command prints on stdout).

    >>> from synthpriv_report.core.results import Verdict
    >>> verdict_line(Verdict("low", (), (("exact_copies", "low"), ("dcr_test", None)),
    ...                      (("dcr_test", "needs a holdout set"),)))
    'verdict: low risk (based on 1 of the 2 checks behind the verdict; not run: dcr_test: needs a holdout set)'
    >>> v = Verdict("not_assessed", (), (("exact_copies", None),),
    ...             (("exact_copies", "not requested in this evaluation"),))
    >>> print(verdict_line(v))  # doctest: +NORMALIZE_WHITESPACE
    verdict: not assessed: none of the checks behind the verdict ran (exact_copies: not requested in this
    evaluation; name them in --metrics, or leave --metrics out)
    """
    checks = list(verdict.checks)
    not_run = _not_run_text(verdict.not_run)
    if any(reason == "not requested in this evaluation" for _, reason in verdict.not_run):
        not_run += "; name them in --metrics, or leave --metrics out"
    if verdict.level == "not_assessed":
        return f"verdict: not assessed: none of the checks behind the verdict ran ({not_run})"
    ran = sum(1 for _, lv in checks if lv is not None)
    found = sum(1 for _, lv in checks if lv in ("medium", "high"))
    unsure = sum(1 for _, lv in checks if lv == "inconclusive")
    level = "inconclusive" if verdict.level == "inconclusive" else f"{verdict.level} risk"
    text = f"verdict: {level} (based on {ran} of the {len(checks)} checks behind the verdict"
    if found:
        text += f"; {found} found a risk"
    if unsure:
        text += f"; {unsure} could not rule a risk out"
    if not_run:
        text += f"; not run: {not_run}"
    return text + ")"


def _fails(level: str, fail_on: str | None) -> bool:
    """Whether ``--fail-on`` turns this verdict into exit status 3 (its level or higher, or not assessed).

    >>> _fails("medium", "medium"), _fails("medium", "high"), _fails("not_assessed", "high"), _fails("high", None)
    (True, False, True, False)
    >>> _fails("inconclusive", "inconclusive"), _fails("inconclusive", "medium"), _fails("low", "inconclusive")
    (True, False, False)
    """
    if fail_on is None:
        return False
    return level == "not_assessed" or _ORDER.get(level, 0) >= _ORDER[fail_on]


def _is_stdout(path: str | None) -> bool:
    """Whether an output path is this process's standard output (``/dev/stdout``, ``/dev/fd/1``, or a link to
    the same file or pipe)."""
    if path is None:
        return False
    if os.path.abspath(path) in ("/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"):
        return True
    try:
        return os.path.samestat(os.stat(path), os.fstat(1)) and not Path(path).is_file()
    except (OSError, ValueError):
        return False


def command_without_folders(argv: Sequence[str]) -> list[str]:
    """A command line's words with every path shortened to its file name
    (:func:`synthpriv_report.evaluation.evaluation.file_name`), ``--opt=PATH`` included: what a report records of the
    command,
    so that it never carries a folder of the operator's machine; words without a folder separator are kept.

    >>> command_without_folders(["evaluate", "--real", "/srv/data/real.csv", "--json=/tmp/out/r.json", "--alpha",
    ...                          "0.05"])
    ['evaluate', '--real', 'real.csv', '--json=r.json', '--alpha', '0.05']
    """
    from ..evaluation.evaluation import file_name

    out = []
    for word in argv:
        opt, eq, value = word.partition("=") if word.startswith("--") else ("", "", word)
        if (eq or not opt) and ("/" in value or "\\" in value):  # an option's name alone is kept
            value = file_name(value)
        out.append(f"{opt}{eq}{value}")
    return out


def _run(real: pd.DataFrame, synthetic: pd.DataFrame, holdout: pd.DataFrame | None, *, key: Any, sensitive: Any,
         exclude: Any, args: argparse.Namespace, html: str | None, pdf: str | None, js: str | None,
         inputs: dict[str, str], include: Any = None, reference: pd.DataFrame | None = None,
         pdf_dossier: str | None = None) -> int:
    from ..export import report_data, write_reports

    stages = ["evaluate"] + [n for n, p in (("html", html), ("pdf", pdf), ("json", js),
                                            ("pdf_dossier", pdf_dossier)) if p]
    bar = progress.bar(len(stages), "synthpriv-report", enabled=not args.no_progress, unit="stage")
    # a document piped out on stdout (--json /dev/stdout | jq) must not be mixed with the verdict lines
    out = sys.stderr if any(_is_stdout(p) for p in (html, pdf, js, pdf_dossier)) else sys.stdout

    def step(name: str, done: bool) -> None:
        bar.update(1) if done else bar.note(name)

    context = _context(args)
    try:
        bar.note("evaluate")
        ev = _build(real, synthetic, holdout, reference=reference, key_fields=key, sensitive_fields=sensitive,
                    exclude=exclude, include=include, metrics=_split(args.metrics, "--metrics"),
                    random_state=args.random_state, progress=not args.no_progress,
                    reveal_real_values=args.reveal_real_values, names=inputs, context=context)
        files = {role: getattr(args, role) for role in ("real", "synthetic", "holdout", "reference")
                 if isinstance(getattr(args, role, None), str)}
        words = command_without_folders(getattr(args, "argv", []))  # file names only: no folder of this machine
        ev.record_provenance(command=shlex.join(["synthpriv-report", *words]), files=files)
        _key_fields_notice(ev, key is not None)
        data = report_data(ev, inputs=inputs)
        bar.update(1)
        # every document is complete before any file is replaced
        with _writing(args):
            written = write_reports(data, html=html, pdf=pdf, json=js, pdf_dossier=pdf_dossier,
                                    engine=args.pdf_engine, on_stage=step)
    finally:
        bar.close()
    verdict = data.results.verdict
    print(printable(verdict_line(verdict)), file=out)
    for reason in verdict.reasons:
        print(f"  - {printable(reason)}", file=out)
    for path in written:
        print(f"wrote {printable(str(path))}", file=out)
    if _fails(verdict.level, args.fail_on):
        shown = "not assessed" if verdict.level == "not_assessed" else f"{verdict.level} risk"
        _say(f"the verdict ({shown}) reaches --fail-on {args.fail_on}: exit status {EXIT_FAIL_ON}")
        return EXIT_FAIL_ON
    return EXIT_OK


@contextlib.contextmanager
def _writing(args: argparse.Namespace) -> Iterator[None]:
    """Around writing the documents: an output that cannot be written (or a PDF program not found), and a PDF
    engine that is not installed, become one-line user errors."""
    try:
        yield
    except OSError as exc:
        raise _UserError(f"cannot write the reports: {exc}") from exc
    except ImportError as exc:
        raise _UserError(f"the PDF engine {args.pdf_engine!r} is not installed ({exc}); install the package "
                         "with its extras (pip install \"synthpriv_report[all]\") or leave out the PDF") from exc


def _context(args: argparse.Namespace) -> dict[str, Any] | None:
    """The release context of ``--context``, validated (a user error names the file and the field)."""
    from ..core.release import load_context

    if getattr(args, "context", None) is None:
        return None
    try:
        return load_context(args.context, option="--context")
    except (OSError, ValueError) as exc:  # each message names --context, the file and what was expected
        raise _UserError(str(exc)) from exc


def _strip_header_spaces(df: pd.DataFrame, path: str) -> pd.DataFrame:
    """The table with spaces around its column names removed (``age, workclass`` headers), with a note.

    A header written with a space after each comma gives columns named ``' workclass'``, which no ``--key`` or
    ``--exclude`` could name. Names are stripped of surrounding whitespace; two columns that would then share a
    name are refused, naming both as they are.
    """
    names = list(df.columns)
    if not all(isinstance(c, str) for c in names):
        return df
    stripped = [c.strip() for c in names]
    changed = [(a, b) for a, b in zip(names, stripped) if a != b]
    if not changed:
        return df
    seen: dict[str, str] = {}
    for a, b in zip(names, stripped):
        if b in seen:
            raise _UserError(f"{path}: columns {seen[b]!r} and {a!r} have the same name once the spaces around "
                             f"them are removed; rename one of them")
        seen[b] = a
    if any(b == "" for b in stripped):
        raise _UserError(f"{path}: a column name is only spaces ({next(a for a, b in changed if b == '')!r}); "
                         "give every column a name")
    shown = ", ".join(f"{a!r} -> {b!r}" for a, b in changed[:3]) + (f" and {len(changed) - 3} more"
                                                                       if len(changed) > 3 else "")
    _say(f"note: {path}: spaces around {len(changed)} column name(s) removed ({shown}); name them without the "
         "spaces in --key, --sensitive, --exclude and --include")
    return df.set_axis(stripped, axis=1)


def _read_input(path: str, args: argparse.Namespace) -> pd.DataFrame:
    """One input file, its pandas warnings as one-line notes and spaces around its column names removed."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        df = read_table(path, sep=args.sep, encoding=args.encoding)
    for w in caught:
        _say(f"warning: {w.message}")
    return _strip_header_spaces(df, path)


def _checked_options(args: argparse.Namespace, outputs: dict[str, str | None]) -> dict[str, list[str] | None]:
    """The column lists of ``--key``, ``--sensitive``, ``--exclude`` and ``--include``, once every option that can
    be checked before the data are read has been: ``--metrics``, the outputs against the inputs, ``--context``
    and ``--reference`` without ``--holdout``."""
    lists = {opt: _split(getattr(args, attr), opt) for opt, attr in (("--key", "key"), ("--sensitive", "sensitive"),
                                                                    ("--exclude", "exclude"),
                                                                    ("--include", "include"))}
    _split(args.metrics, "--metrics")
    _refuse_writing_inputs(args, outputs)
    _context(args)  # a bad context is refused before the data are read
    if args.reference and not args.holdout:
        raise _UserError("--reference needs --holdout: the membership attacks take their non-member targets from "
                         "the holdout and only their reference data from --reference")
    return lists


def _real_inputs(args: argparse.Namespace) -> tuple[pd.DataFrame, pd.DataFrame | None, pd.DataFrame | None,
                                                     dict[str, str]]:
    """The real training, holdout and reference tables, and the input files' names by role."""
    try:
        real = _read_input(args.real, args)
        holdout = _read_input(args.holdout, args) if args.holdout else None
        reference = _read_input(args.reference, args) if args.reference else None
    except (ValueError, OSError) as exc:  # a missing, unreadable or malformed input file
        raise _UserError(str(exc)) from exc
    inputs = {"real": Path(args.real).name}
    if args.holdout:
        inputs["holdout"] = Path(args.holdout).name
    if args.reference:
        inputs["reference"] = Path(args.reference).name
    return real, holdout, reference, inputs


def _evaluate(args: argparse.Namespace) -> int:
    if not (args.html or args.pdf or args.json or args.pdf_dossier):
        raise _UserError("nothing to write: give at least one of --html, --pdf, --json, --pdf-dossier")
    lists = _checked_options(args, {"--html": args.html, "--pdf": args.pdf, "--json": args.json,
                                    "--pdf-dossier": args.pdf_dossier})
    real, holdout, reference, inputs = _real_inputs(args)
    try:
        synthetic = _read_input(args.synthetic, args)
    except (ValueError, OSError) as exc:
        raise _UserError(str(exc)) from exc
    inputs["synthetic"] = Path(args.synthetic).name
    return _run(real, synthetic, holdout, key=lists["--key"], sensitive=lists["--sensitive"],
                exclude=lists["--exclude"], include=lists["--include"], args=args, html=args.html, pdf=args.pdf,
                js=args.json, inputs=inputs, reference=reference, pdf_dossier=args.pdf_dossier)


def _release_name(path: str) -> str:
    """A release's default name: its file's name without the table and compression extensions.

    >>> _release_name("/data/ctgan_300.csv.gz"), _release_name("copula.parquet"), _release_name("plain")
    ('ctgan_300', 'copula', 'plain')
    """
    name = Path(path).name
    for ext in (".gz", ".bz2", ".xz", ".zip", ".zst"):
        name = name.removesuffix(ext)
    for ext in (".csv", ".tsv", ".txt", ".parquet", ".pq"):
        name = name.removesuffix(ext)
    return name or Path(path).name


def _compare(args: argparse.Namespace) -> int:
    """``synthpriv-report compare``: several releases of the same real data, one document for the chosen one."""
    from ..evaluation.comparison import Comparison
    from ..export.comparison import write_comparison_reports

    if not (args.html or args.pdf or args.json):
        raise _UserError("nothing to write: give at least one of --html, --pdf, --json")
    lists = _checked_options(args, {"--html": args.html, "--pdf": args.pdf, "--json": args.json})
    files = list(args.synthetic)
    if len(files) < 2:
        raise _UserError("compare needs at least two --synthetic files (use evaluate for one release)")
    names = _split(args.names, "--names") or [_release_name(p) for p in files]
    if len(names) != len(files):
        raise _UserError(f"--names gives {len(names)} names for {len(files)} --synthetic files; give one name per "
                         "file, in the same order")
    for option, value in (("--choose", args.choose), ("--fail-on-release", args.fail_on_release)):
        if value is not None and value != "all" and value not in names:
            raise _UserError(f"{option} {value!r} is not one of the releases ({', '.join(map(repr, names))})")
    contexts = _release_contexts(args, names)
    real, holdout, reference, inputs = _real_inputs(args)
    releases = {}
    for name, path in zip(names, files):
        try:
            releases[name] = _read_input(path, args)
        except (ValueError, OSError) as exc:
            raise _UserError(str(exc)) from exc
    bar = progress.bar(2 + sum(1 for p in (args.html, args.pdf, args.json) if p), "synthpriv-report",
                       enabled=not args.no_progress, unit="stage")
    out = sys.stderr if any(_is_stdout(p) for p in (args.html, args.pdf, args.json)) else sys.stdout
    try:
        bar.note("evaluate")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", UserWarning)
            try:
                cmp = Comparison(real, releases, holdout, reference=reference, key_fields=lists["--key"],
                                 sensitive_fields=lists["--sensitive"], exclude=lists["--exclude"],
                                 include=lists["--include"], metrics=_split(args.metrics, "--metrics"),
                                 random_state=args.random_state, progress=not args.no_progress,
                                 reveal_real_values=args.reveal_real_values, names=inputs, context=_context(args),
                                 target=args.target, contexts=contexts)
            except (ValueError, TypeError) as exc:
                raise _UserError(str(exc)) from exc
        for message in dict.fromkeys(str(w.message) for w in caught):  # each release's evaluation warns alike
            _say(f"warning: {message}")
        words = command_without_folders(getattr(args, "argv", []))
        for ev, path in zip(cmp.evaluations.values(), files):
            roles = {role: getattr(args, role) for role in ("real", "holdout", "reference")
                     if isinstance(getattr(args, role, None), str)}
            ev.record_provenance(command=shlex.join(["synthpriv-report", *words]), files={**roles, "synthetic": path})
        _key_fields_notice(next(iter(cmp.evaluations.values())), lists["--key"] is not None)
        ranking = cmp.ranking()
        chosen = cmp.chosen(args.choose)
        bar.update(1)
        with _writing(args):
            written = write_comparison_reports(cmp, chosen=chosen, html=args.html, pdf=args.pdf, json=args.json,
                                               engine=args.pdf_engine, reveal_real_values=args.reveal_real_values,
                                               inputs=inputs,
                                               on_stage=lambda name, done: bar.update(1) if done else bar.note(name))
        bar.update(1)
    finally:
        bar.close()
    alone, adjusted = cmp.verdicts, cmp.adjusted_verdicts
    n = cmp.n_compared
    print(f"{n} releases compared, from the least to the most risky (allowing for the choice among {n}: each "
          f"check graded for a false-alarm rate of {100 * cmp.adjusted_alpha:.3g}% instead of "
          f"{100 * cmp.alpha:g}%):", file=out)
    for i, name in enumerate(ranking, 1):
        print(printable(f"  {i}. {name}{' (the documents are about this one)' if name == chosen else ''}: "
                        f"{verdict_line(alone[name])}; allowing for the choice: "
                        f"{_level_words(adjusted[name].level)}"), file=out)
    for path in written:
        print(f"wrote {printable(str(path))}", file=out)
    watched = names if args.fail_on_release == "all" else [args.fail_on_release]
    failing = [name for name in watched
               if _fails(alone[name].level, args.fail_on) or _fails(adjusted[name].level, args.fail_on)]
    if failing:
        _say(f"the verdict of {', '.join(map(repr, failing))} (alone or allowing for the choice) reaches --fail-on "
             f"{args.fail_on}: exit status {EXIT_FAIL_ON}")
        return EXIT_FAIL_ON
    return EXIT_OK


def _generator(spec: str, settings: str | None) -> tuple[Any, dict[str, Any] | None]:
    """The generator of ``--generator`` and its ``--generator-settings`` (a user error names the option)."""
    import importlib
    import json

    kwargs = None
    if settings is not None:
        try:
            kwargs = json.loads(settings)
        except ValueError as exc:
            raise _UserError(f"--generator-settings: not JSON ({exc})") from exc
        if not isinstance(kwargs, dict):
            raise _UserError("--generator-settings: expected a JSON object of keyword settings")
    prefix = spec.split(":", 1)[0]
    if prefix in ("sdv", "synthcity", "smartnoise"):
        return spec, kwargs
    module, sep, name = spec.partition(":")
    if not sep or not module or not name:
        raise _UserError(f"--generator {spec!r}: expected MODULE:NAME (or sdv:, synthcity:, smartnoise:)")
    obj: Any
    try:
        obj = importlib.import_module(module)
    except ImportError as exc:
        raise _UserError(f"--generator {spec!r}: cannot import {module!r} ({exc})") from exc
    for part in name.split("."):
        if not hasattr(obj, part):
            raise _UserError(f"--generator {spec!r}: {module!r} has no {name!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise _UserError(f"--generator {spec!r}: {name!r} is not a class or function")
    if kwargs:
        import functools

        obj = functools.partial(obj, **kwargs)
    return obj, None


def _audit(args: argparse.Namespace) -> int:
    """``synthpriv-report audit``: a generator trained several times, and once with canaries."""
    from ..evaluation.audit import audit
    from ..export.audit import write_audit_reports

    if not (args.html or args.pdf or args.json):
        raise _UserError("nothing to write: give at least one of --html, --pdf, --json")
    lists = _checked_options(args, {"--html": args.html, "--pdf": args.pdf, "--json": args.json})
    if (args.html or args.pdf) and args.runs < 1:
        raise _UserError("--html and --pdf report on the first training run's release: give --runs 1 or more "
                         "(or write --json alone)")
    generator, settings = _generator(args.generator, args.generator_settings)
    real, holdout, reference, inputs = _real_inputs(args)
    out = sys.stderr if any(_is_stdout(p) for p in (args.html, args.pdf, args.json)) else sys.stdout
    bar = progress.bar(1 + sum(1 for p in (args.html, args.pdf, args.json) if p), "synthpriv-report",
                       enabled=not args.no_progress, unit="stage")
    try:
        bar.note("audit")
        try:
            au = audit(generator, real, holdout, runs=args.runs, canaries=args.canaries, resample=args.resample,
                       fraction=args.fraction, reference=reference, key_fields=lists["--key"],
                       sensitive_fields=lists["--sensitive"], exclude=lists["--exclude"], include=lists["--include"],
                       metrics=_split(args.metrics, "--metrics"), random_state=args.random_state,
                       progress_bars=not args.no_progress, reveal_real_values=args.reveal_real_values,
                       names=inputs, context=_context(args), settings=settings,
                       shadow_targets=args.shadow_targets, shadow_trainings=args.shadow_trainings)
        except (ValueError, TypeError, ImportError) as exc:
            raise _UserError(str(exc)) from exc
        words = command_without_folders(getattr(args, "argv", []))
        for run in au.runs:
            roles = {role: getattr(args, role) for role in ("real", "holdout", "reference")
                     if isinstance(getattr(args, role, None), str)}
            run.evaluation.record_provenance(command=shlex.join(["synthpriv-report", *words]), files=roles)
        bar.update(1)
        with _writing(args):
            written = write_audit_reports(au, html=args.html, pdf=args.pdf, json=args.json, engine=args.pdf_engine,
                                          reveal_real_values=args.reveal_real_values, inputs=inputs,
                                          on_stage=lambda name, done: bar.update(1) if done else bar.note(name))
        bar.update(1)
    finally:
        bar.close()
    v = au.verdict()
    print(printable(f"generator audit of {au.generator.get('name', args.generator)}: {_level_words(v['level'])} "
                    f"({len(au.runs)} training runs; their verdicts: {', '.join(v['run_levels']) or 'none'})"),
          file=out)
    for reason in v["reasons"]:
        print(f"  - {printable(reason)}", file=out)
    eps = au.declared_epsilon
    if au.canary is not None:
        print(f"  canaries: {au.canary.included.size}; epsilon >= {au.canary.outcome.epsilon_bound:.3f} at 95% "
              "confidence" + ("" if eps is None else f" (declared epsilon {eps:g})"), file=out)
    if au.shadow is not None:
        sh = au.shadow
        print(f"  shadow-model attack: {sh.n_targets} targets x {sh.trainings_per_target} trainings; true-positive "
              f"rate {sh.tpr:.0%}, false-positive rate {sh.fpr:.0%}; pooled epsilon >= {sh.epsilon:.3f} at 95% "
              "confidence" + ("" if eps is None or au.canary is not None else f" (declared epsilon {eps:g})"),
              file=out)
    for path in written:
        print(f"wrote {printable(str(path))}", file=out)
    if _fails(v["level"], args.fail_on):
        _say(f"the generator's verdict ({_level_words(v['level'])}) reaches --fail-on {args.fail_on}: exit status "
             f"{EXIT_FAIL_ON}")
        return EXIT_FAIL_ON
    return EXIT_OK


def _release_contexts(args: argparse.Namespace, names: Sequence[str]) -> dict[str, Any]:
    """The contexts of ``--release-contexts``, each validated (a user error names the file, the release and the
    field)."""
    import json

    from ..core.release import validate_context

    path = getattr(args, "release_contexts", None)
    if path is None:
        return {}
    try:
        with open(path, encoding="utf-8") as f:
            given = json.load(f)
    except (OSError, ValueError) as exc:
        raise _UserError(f"--release-contexts {path}: cannot read it as UTF-8 JSON ({exc})") from exc
    if not isinstance(given, dict):
        raise _UserError(f"--release-contexts {path}: expected a JSON object {{release name: context}}")
    unknown = [name for name in given if name not in names]
    if unknown:
        raise _UserError(f"--release-contexts {path}: {', '.join(map(repr, unknown))} is not a release "
                         f"({', '.join(map(repr, names))})")
    out = {}
    for name, context in given.items():
        try:
            out[name] = validate_context(context)
        except (TypeError, ValueError) as exc:
            raise _UserError(f"--release-contexts {path}: release {name!r}: {exc}") from exc
    return out


def _level_words(level: str) -> str:
    """A verdict's level as the command line prints it.

    >>> _level_words("not_assessed"), _level_words("inconclusive"), _level_words("high")
    ('not assessed', 'inconclusive', 'high risk')
    """
    return {"not_assessed": "not assessed", "inconclusive": "inconclusive"}.get(level, f"{level} risk")


def _demo(args: argparse.Namespace) -> int:
    from ..datasets import load_demo

    demo = load_demo()
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise _UserError(f"--out {out} is a file; give a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _UserError(f"cannot create the output folder --out {out}: {exc}") from exc
    html, pdf, js = str(out / "demo.html"), None if args.no_pdf else str(out / "demo.pdf"), str(out / "demo.json")
    for path in (html, pdf, js):  # three distinct files of --out
        _refuse_writing_inputs(args, {"--out": path})
    synthetic = demo.synthetic_leaky if args.leaky else demo.synthetic
    return _run(demo.real, synthetic, demo.holdout, key=list(demo.key_fields),
                sensitive=list(demo.sensitive_fields), exclude=None, args=args, html=html, pdf=pdf, js=js,
                inputs={"real": "demo real training data (embedded)",
                        "synthetic": "demo leaky synthetic data (embedded)" if args.leaky
                        else "demo synthetic data (embedded)",
                        "holdout": "demo holdout data (embedded)"})


def _interruption(exc: BaseException) -> BaseException | None:
    """The ``KeyboardInterrupt`` or SIGTERM behind an error, if any.

    A signal that arrives while compiled code runs can surface as another error (numba's dispatcher, for one,
    raises ``SystemError: ... returned a result with an exception set`` with the ``KeyboardInterrupt`` as its
    context): the chain of causes and contexts is searched.
    """
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        if isinstance(e, (KeyboardInterrupt, _Terminated)):
            return e
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return None


def _install_signal_handlers() -> dict[int, Any] | None:
    """SIGINT raises ``KeyboardInterrupt`` and SIGTERM :class:`_Terminated`, each after removing the temporary
    files this process staged, so whatever runs ends with no ``.part`` file left. Python runs a handler between
    two bytecodes of the main thread: a compiled (numba) kernel that holds the interpreter finishes first, then
    the handler runs (no temporary file exists while the kernels run: documents are staged after the metrics).
    A signal the parent process ignores stays ignored. Returns the previous handlers (None outside the main
    thread, where handlers cannot be set)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    from ..export.files import remove_temporaries

    def on_interrupt(signum: int, frame: Any) -> None:
        remove_temporaries()
        raise KeyboardInterrupt

    def on_terminate(signum: int, frame: Any) -> None:
        remove_temporaries()
        raise _Terminated

    previous = {}
    for sig, handler in ((signal.SIGINT, on_interrupt), (signal.SIGTERM, on_terminate)):
        try:
            if signal.getsignal(sig) == signal.SIG_IGN:  # ignored by the parent (a background job, nohup): kept
                continue
            previous[sig] = signal.signal(sig, handler)
        except (ValueError, OSError):  # pragma: no cover - an embedded interpreter without signals
            pass
    return previous


def _restore_signal_handlers(previous: dict[int, Any] | None) -> None:
    for sig, handler in (previous or {}).items():
        try:
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
        except (ValueError, OSError, TypeError):  # pragma: no cover
            pass


def _interrupted(exc: BaseException) -> int:
    from ..export.files import remove_temporaries

    remove_temporaries()
    if isinstance(exc, _Terminated):
        print("synthpriv-report: terminated (SIGTERM): no half-written or temporary file was left; earlier reports "
              "are whole", file=sys.stderr)
        return EXIT_TERMINATED
    print("synthpriv-report: interrupted: no half-written or temporary file was left; earlier reports are whole",
          file=sys.stderr)
    return EXIT_INTERRUPTED


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return its exit status.

    0 success; 1 internal error (a bug: a short message and a hint, the traceback with ``--debug``); 2 usage or
    input error (one line on stderr); 3 the verdict reached ``--fail-on`` (or is not assessed); 130 interrupted
    (SIGINT); 143 terminated (SIGTERM). On 130 and 143 no temporary file is left and earlier reports are whole.
    """
    t0 = time.perf_counter()
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    previous = _install_signal_handlers()
    try:
        try:
            args = _parser().parse_args(argv)
            args.argv = list(argv)
            code = {"evaluate": _evaluate, "compare": _compare, "audit": _audit,
                    "lite": _lite}.get(args.command, _demo)(args)
        except SystemExit as exc:  # --help, --version
            return int(exc.code or 0)
        except (KeyboardInterrupt, _Terminated) as exc:
            return _interrupted(exc)
        except _UserError as exc:
            if debug:
                traceback.print_exc()
            msg = " ".join(str(exc).split()) or type(exc).__name__
            print(f"synthpriv-report: error: {printable(msg)}", file=sys.stderr)
            return EXIT_USER_ERROR
        except Exception as exc:  # anything else is a bug, not the user's mistake
            signalled = _interruption(exc)
            if signalled is not None:  # a signal surfacing through compiled code as another error
                return _interrupted(signalled)
            if debug:
                traceback.print_exc()
            msg = " ".join(str(exc).split())[:300]
            print(f"synthpriv-report: internal error: {type(exc).__name__}{': ' + printable(msg) if msg else ''}",
                  file=sys.stderr)
            if not debug:
                print("synthpriv-report: this is a bug in synthpriv-report, not a problem with your input: run again "
                      "with --debug for the traceback and please report it", file=sys.stderr)
            return EXIT_INTERNAL_ERROR
        print(f"done in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
        return code
    except (KeyboardInterrupt, _Terminated) as exc:  # a signal while an error above was being reported
        return _interrupted(exc)
    finally:
        _restore_signal_handlers(previous)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
