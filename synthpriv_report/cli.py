"""Command line: ``synthpriv-report evaluate`` and ``synthpriv-report demo``.

Examples
--------
::

    synthpriv-report evaluate --real train.csv --synthetic synth.csv --holdout holdout.csv \\
        --key age,sex --sensitive income --html report.html --pdf report.pdf --json report.json
    synthpriv-report demo --out reports/      # embedded demo data -> reports/demo.html, demo.pdf, demo.json

Inputs are CSV (any compression pandas infers from the extension, e.g. ``.csv.gz``; text in ``--encoding``,
UTF-8 by default) or Parquet (``.parquet``/``.pq``). A user error (missing file, mismatched columns, unknown
metric or option, an output path that is also an input or another output, a file that does not decode) ends
with a one-line message on stderr and exit status 2; success exits 0; an interruption (Ctrl-C) exits 130.

Outputs are written whole or not at all: every document is rendered into a temporary file beside its target,
and the files are moved into place only when all of them are complete, so an interrupted run leaves the
previous reports as they were and nothing half-written behind.
"""

from __future__ import annotations

import argparse
import codecs
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

EXIT_USER_ERROR = 2
EXIT_INTERRUPTED = 130


class _UserError(Exception):
    """An error caused by the command line or the input files (reported in one line, no traceback)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2, no usage dump
        raise _UserError(message)


def _split(text: str | None) -> list[str] | None:
    if text is None:
        return None
    items = [t.strip() for t in text.split(",") if t.strip()]
    return items or None


def read_table(path: str | Path, *, sep: str = ",", encoding: str = "utf-8") -> pd.DataFrame:
    """Read a CSV or Parquet file chosen by its extension.

    Parameters
    ----------
    path : path-like
    sep : str
        CSV field separator (``.tsv`` files default to a tab).
    encoding : str
        Text encoding of CSV files (default UTF-8). A file that does not decode is a ``ValueError`` naming the
        file, the byte and its position, and suggesting ``--encoding latin-1``.
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
        return pd.read_parquet(p)
    if any(s in (".csv", ".tsv", ".txt") for s in suffixes):
        try:
            return pd.read_csv(p, sep="\t" if ".tsv" in suffixes and sep == "," else sep, encoding=encoding)
        except UnicodeDecodeError as exc:
            byte = exc.object[exc.start:exc.start + 1].hex() if exc.object else "?"
            hint = ("; if it was saved by a spreadsheet or an older tool, try --encoding latin-1 (or cp1252)"
                    if codecs.lookup(encoding).name != "latin-1" else "")
            raise ValueError(f"{p}: cannot decode the file as {encoding} (byte 0x{byte} at position {exc.start})"
                             f"{hint}") from None
    raise ValueError(f"unsupported file type {p.name!r}: use .csv (optionally compressed, e.g. .csv.gz), .tsv or "
                     ".parquet")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="synthpriv-report",
                     description="Does this synthetic dataset leak the real records it was trained on?")
    sub = parser.add_subparsers(dest="command", metavar="{evaluate,demo}")
    sub.required = True

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--metrics", help="comma-separated metric names (default: all registered)")
        p.add_argument("--random-state", type=int, default=0, help="seed of every random step (default 0)")
        p.add_argument("--pdf-engine", choices=("weasyprint", "chromium"), default="weasyprint")
        p.add_argument("--reveal-real-values", action="store_true",
                       help="allow raw real record values in the reports (default: withheld)")
        p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")

    ev = sub.add_parser("evaluate", help="evaluate a synthetic data file against the real data")
    ev.add_argument("--real", required=True, help="real training data (CSV or Parquet)")
    ev.add_argument("--synthetic", required=True, help="synthetic data (CSV or Parquet)")
    ev.add_argument("--holdout", help="real holdout data the generator did not see (CSV or Parquet)")
    ev.add_argument("--sep", default=",", help="CSV field separator (default ',')")
    ev.add_argument("--encoding", default="utf-8",
                    help="text encoding of the CSV inputs (default utf-8; e.g. latin-1 for older files)")
    ev.add_argument("--key", help="comma-separated key attributes (quasi-identifiers)")
    ev.add_argument("--sensitive", help="comma-separated sensitive attributes")
    ev.add_argument("--exclude", help="comma-separated columns to leave out (identifiers)")
    ev.add_argument("--html", help="write the HTML report here")
    ev.add_argument("--pdf", help="write the PDF report here")
    ev.add_argument("--json", help="write the JSON report here")
    common(ev)

    demo = sub.add_parser("demo", help="evaluate the embedded demo data and write demo.html, demo.pdf, demo.json")
    demo.add_argument("--out", default="reports", help="output folder (default reports/)")
    demo.add_argument("--leaky", action="store_true", help="use the leaky synthetic demo set")
    demo.add_argument("--no-pdf", action="store_true", help="skip the PDF")
    common(demo)
    return parser


class _Stages:
    """A tqdm progress bar over the stages of a run, on stderr."""

    def __init__(self, names: Sequence[str], enabled: bool):
        from tqdm.auto import tqdm

        self._bar = tqdm(total=len(names), desc="synthpriv-report", file=sys.stderr, disable=not enabled,
                         bar_format="{desc}: {n}/{total} {bar} [{elapsed}] {postfix}")
        self._names = list(names)

    def start(self, name: str) -> None:
        self._bar.set_postfix_str(name)

    def done(self) -> None:
        self._bar.update(1)

    def close(self) -> None:
        self._bar.close()


def _run(real: pd.DataFrame, synthetic: pd.DataFrame, holdout: pd.DataFrame | None, *, key: Any, sensitive: Any,
         exclude: Any, args: argparse.Namespace, html: str | None, pdf: str | None, js: str | None,
         inputs: dict[str, str]) -> None:
    from .evaluation import Evaluation
    from .export import report_data, write_reports

    stages = ["evaluate"] + [n for n, p in (("html", html), ("pdf", pdf), ("json", js)) if p]
    bar = _Stages(stages, enabled=not args.no_progress)

    def step(name: str, done: bool) -> None:
        bar.done() if done else bar.start(name)

    try:
        bar.start("evaluate")
        ev = Evaluation(real, synthetic, holdout, key_fields=key, sensitive_fields=sensitive, exclude=exclude,
                        metrics=_split(args.metrics), random_state=args.random_state,
                        progress=not args.no_progress,
                        reveal_real_values=args.reveal_real_values)
        data = report_data(ev, inputs=inputs)
        bar.done()
        # every document is complete before any file is replaced
        written = write_reports(data, html=html, pdf=pdf, json=js, engine=args.pdf_engine, on_stage=step)
    finally:
        bar.close()
    level = data.results.verdict.level
    print(f"verdict: {level} risk")
    for path in written:
        print(f"wrote {path}")


def _evaluate(args: argparse.Namespace) -> None:
    from .export import check_distinct

    if not (args.html or args.pdf or args.json):
        raise _UserError("nothing to write: give at least one of --html, --pdf, --json")
    check_distinct({"--real": args.real, "--synthetic": args.synthetic, "--holdout": args.holdout},
                   {"--html": args.html, "--pdf": args.pdf, "--json": args.json})
    real = read_table(args.real, sep=args.sep, encoding=args.encoding)
    synthetic = read_table(args.synthetic, sep=args.sep, encoding=args.encoding)
    holdout = read_table(args.holdout, sep=args.sep, encoding=args.encoding) if args.holdout else None
    inputs = {"real": Path(args.real).name, "synthetic": Path(args.synthetic).name}
    if args.holdout:
        inputs["holdout"] = Path(args.holdout).name
    _run(real, synthetic, holdout, key=_split(args.key), sensitive=_split(args.sensitive),
         exclude=_split(args.exclude), args=args, html=args.html, pdf=args.pdf, js=args.json, inputs=inputs)


def _demo(args: argparse.Namespace) -> None:
    from .datasets import load_demo

    demo = load_demo()
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise _UserError(f"--out {out} is a file; give a folder")
    out.mkdir(parents=True, exist_ok=True)
    synthetic = demo.synthetic_leaky if args.leaky else demo.synthetic
    _run(demo.real, synthetic, demo.holdout, key=list(demo.key_fields), sensitive=list(demo.sensitive_fields),
         exclude=None, args=args, html=str(out / "demo.html"), pdf=None if args.no_pdf else str(out / "demo.pdf"),
         js=str(out / "demo.json"),
         inputs={"real": "demo (embedded)", "synthetic": "demo leaky (embedded)" if args.leaky else "demo (embedded)",
                 "holdout": "demo (embedded)"})


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 success, 2 user error)."""
    t0 = time.perf_counter()
    try:
        args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
        if args.command == "evaluate":
            _evaluate(args)
        else:
            _demo(args)
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    except KeyboardInterrupt:
        print("synthpriv-report: interrupted: no half-written or temporary file was left; earlier reports are whole", file=sys.stderr)
        return EXIT_INTERRUPTED
    except (_UserError, ValueError, TypeError, KeyError, FileNotFoundError, OSError) as exc:
        msg = " ".join(str(exc).split()) or type(exc).__name__
        print(f"synthpriv-report: error: {msg}", file=sys.stderr)
        return EXIT_USER_ERROR
    print(f"done in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
