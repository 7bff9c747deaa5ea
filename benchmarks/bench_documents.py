"""Where a report's documents spend their time: CPU and wall time per stage, for the demo and for full Adult.

Stages, in the order a command-line run takes them: the evaluation (every metric), the validated report content,
the notebook of the report with its figures (the figures' own time printed apart), the HTML page built from it,
WeasyPrint's layout of the PDF, the PDF written (fonts, images, the attachment), the JSON written, and the
dossier alone (``--pdf-dossier``) built and printed; and the HTML of the same report made a second time (a
notebook user's ``to_html`` then ``to_pdf``), whose figures are already drawn. It also prints the page count and
each file's size, and the documents' time against the evaluation's.

Usage::

    python benchmarks/bench_documents.py                 # the demo (3,000 records), every metric
    python benchmarks/bench_documents.py --adult         # and full Adult (32,561 / 32,561 / 16,281 records)
    python benchmarks/bench_documents.py --repeat 3      # the least of three runs of each document stage

Run it on an idle machine: a busy one stretches wall times and, through cache pressure, CPU times too.
"""

from __future__ import annotations

import argparse
import io
import os
import platform
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data" / "adult"


def _timed(fn: Callable[[], Any], repeat: int = 1) -> tuple[Any, float, float]:
    """``fn()`` and the least wall and CPU seconds of ``repeat`` calls."""
    best_w = best_c = float("inf")
    out = None
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        best_w, best_c = min(best_w, time.perf_counter() - w0), min(best_c, time.process_time() - c0)
    return out, best_w, best_c


def _few(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` with the package's document-time garbage-collection setting."""
    from synthpriv_report.export.render import few_collections

    with few_collections():
        return fn(*args, **kwargs)


def measure(name: str, real: pd.DataFrame, synthetic: pd.DataFrame, holdout: pd.DataFrame, key: list[str],
            sensitive: list[str], repeat: int) -> list[tuple[str, float, float, str]]:
    """The stages of one report's documents: ``[(stage, wall s, CPU s, note)]``."""
    import weasyprint
    from pypdf import PdfReader

    from synthpriv_report import Evaluation
    from synthpriv_report.core.formats import level_text
    from synthpriv_report.export import notebook as nbmod
    from synthpriv_report.export.document import dumps, report_data
    from synthpriv_report.export.render import (
        ATTACHMENT_NAME,
        PDF_VARIANT,
        SynthprivHTMLExporter,
        _finish_archival,
        _url_fetcher,
        add_navigation,
        form_fields,
        html_to_pdf,
        render_html,
    )

    rows: list[tuple[str, float, float, str]] = []
    ev = Evaluation(real, synthetic, holdout, key_fields=key, sensitive_fields=sensitive, progress=False,
                    random_state=0)
    _, w, c = _timed(ev.results)
    rows.append(("evaluate (every metric)", w, c, f"{len(real):,} / {len(synthetic):,} / {len(holdout):,} records"))
    data, w, c = _timed(lambda: report_data(ev), repeat)
    rows.append(("report content (validated)", w, c, ""))

    spent = {"wall": 0.0, "cpu": 0.0, "n": 0}
    original = nbmod._figures

    def figures(*args: Any, **kwargs: Any) -> Any:
        w0, c0 = time.perf_counter(), time.process_time()
        try:
            return original(*args, **kwargs)
        finally:
            spent["wall"] += time.perf_counter() - w0
            spent["cpu"] += time.process_time() - c0
            spent["n"] += 1

    nbmod._figures = figures
    try:  # each document stage as the package runs it: with fewer garbage collections (render.few_collections)
        nb, w, c = _timed(lambda: _few(nbmod.build_notebook, data), 1)
    finally:
        nbmod._figures = original
    rows.append(("  of which figures drawn", spent["wall"], spent["cpu"], f"{spent['n']} measures"))
    rows.append(("notebook of the report", w, c, "figures included"))

    def page() -> str:
        html, _ = _few(SynthprivHTMLExporter().from_notebook_node, nb)
        return add_navigation(html, title=nbmod.DEFAULT_TITLE, verdict=level_text(data.document["verdict"]["level"]))

    html, w, c = _timed(page, repeat)
    rows.append(("HTML built from the notebook", w, c, f"{len(html.encode()) / 1e6:.2f} MB"))
    _, w, c = _timed(lambda: render_html(data), repeat)
    rows.append(("HTML of the same report again", w, c, "its figures already drawn (to_html, then to_pdf)"))
    attachment = dumps(data.to_dict())
    options = {"pdf_variant": PDF_VARIANT, "pdf_forms": True}
    document, w, c = _timed(lambda: _few(weasyprint.HTML(string=form_fields(html), base_url=None,
                                                         url_fetcher=_url_fetcher()).render, **options), repeat)
    rows.append(("PDF layout (WeasyPrint)", w, c, f"{len(document.pages)} pages"))

    def write() -> bytes:  # an attachment's source is read once: a fresh one for every write
        files = [weasyprint.Attachment(string=attachment, name=ATTACHMENT_NAME, relationship="Source")]
        return _few(document.write_pdf, attachments=files, finisher=_finish_archival, **options)

    pdf, w, c = _timed(write, repeat)
    rows.append(("PDF written", w, c, f"{len(pdf) / 1e6:.2f} MB, {len(PdfReader(io.BytesIO(pdf)).pages)} pages"))
    js, w, c = _timed(lambda: dumps(data.to_dict()), repeat)
    rows.append(("JSON written", w, c, f"{len(js.encode()) / 1e6:.2f} MB"))
    dossier, w, c = _timed(lambda: html_to_pdf(render_html(data, dossier_only=True), attachment=attachment), repeat)
    rows.append(("dossier alone (HTML and PDF)", w, c, f"{len(PdfReader(io.BytesIO(dossier)).pages)} pages"))
    return rows


def _print(name: str, rows: list[tuple[str, float, float, str]]) -> None:
    print(f"\n{name}")
    print("| stage | wall (s) | CPU (s) | note |\n|---|---|---|---|")
    for stage, w, c, note in rows:
        print(f"| {stage} | {w:.2f} | {c:.2f} | {note} |")
    evaluate = rows[0][2]
    html = sum(c for s, _, c, _ in rows if s in ("notebook of the report", "HTML built from the notebook"))
    pdf = sum(c for s, _, c, _ in rows if s in ("PDF layout (WeasyPrint)", "PDF written"))
    docs = html + pdf + next(c for s, _, c, _ in rows if s == "JSON written")
    print(f"HTML after the evaluation: {html:.2f} CPU-s; PDF after the HTML: {pdf:.2f} CPU-s; HTML, PDF and JSON "
          f"together: {docs:.2f} CPU-s = {docs / evaluate:.2f} x the evaluation ({evaluate:.2f} CPU-s)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--adult", action="store_true", help="also full Adult (needs ../shared/data/adult)")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each document stage; the least is printed")
    args = ap.parse_args()
    from synthpriv_report.datasets import load_demo

    print(f"{platform.node()} ({os.cpu_count()} cores), Python {platform.python_version()}, "
          f"{time.strftime('%Y-%m-%d %H:%M')}")
    d = load_demo()
    _print("demo", measure("demo", d.real, d.synthetic, d.holdout, list(d.key_fields), list(d.sensitive_fields),
                           args.repeat))
    if args.adult:
        real = pd.read_csv(SHARED / "adult_train.csv")
        syn = pd.read_csv(SHARED / "synthetic" / "gaussian_copula.csv.gz")
        hold = pd.read_csv(SHARED / "adult_test.csv")
        _print("full Adult (Gaussian copula release)",
               measure("adult", real, syn, hold, ["age", "sex", "race", "marital-status"], ["income"], args.repeat))


if __name__ == "__main__":
    main()
