"""HTML and PDF: the report notebook through nbconvert and the ``synthpriv`` template; PDF by WeasyPrint or Chromium.

The HTML carries a Content-Security-Policy without script (``default-src 'none'``), so that even a string that
escaped the templates could not run; Chromium prints with JavaScript disabled and every network request refused.
Every file is written whole or not at all (:mod:`synthpriv_report.export.files`).
"""

from __future__ import annotations

import concurrent.futures
import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from nbconvert import HTMLExporter

from .document import dumps, report_data
from .files import AtomicFiles, write_atomic
from .notebook import DEFAULT_TITLE, build_notebook
from .templating import render

__all__ = ["CHROMIUM_ARGS", "CHROMIUM_PATH", "CSP", "TEMPLATE_NAME", "SynthprivChromiumPDFExporter",
           "SynthprivHTMLExporter", "SynthprivPDFExporter", "html_to_pdf", "render_html", "template_basedirs",
           "to_html", "to_pdf", "write_reports"]

TEMPLATE_NAME = "synthpriv"
CHROMIUM_PATH = "/usr/bin/chromium"
CHROMIUM_ARGS = ("--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic")
#: The policy of every exported page (also in the template's ``<head>``): no script, no network, inline styles.
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src data:; base-uri 'none'; form-action 'none'"
PdfEngine = Literal["weasyprint", "chromium"]


# ---------------------------------------------------------------------------------------------------------------
# nbconvert


def template_basedirs() -> list[str]:
    """Folders holding the ``synthpriv`` nbconvert template: inside the installed package and in a checkout.

    An installed wheel ships the template as ``synthpriv_report/_templates/synthpriv`` (and as shared data under
    ``share/jupyter/nbconvert/templates/synthpriv`` for ``jupyter nbconvert --template synthpriv``); a source
    checkout (editable install) has it in the top-level ``templates/synthpriv``.
    """
    package = Path(__file__).resolve().parent.parent
    candidates = (package / "_templates", package.parent / "templates")
    found = [str(p) for p in candidates if (p / TEMPLATE_NAME / "conf.json").is_file()]
    if not found:
        raise FileNotFoundError(
            f"the {TEMPLATE_NAME!r} nbconvert template was not found in {', '.join(map(str, candidates))}")
    return found


def _exporter_kwargs(kwargs: dict[str, Any]) -> dict[str, Any]:
    """Constructor arguments selecting the synthpriv template (template paths are resolved at construction)."""
    out = dict(kwargs)
    out["extra_template_basedirs"] = list(out.get("extra_template_basedirs") or []) + template_basedirs()
    out.setdefault("template_name", TEMPLATE_NAME)
    out.setdefault("exclude_input", True)
    out.setdefault("exclude_input_prompt", True)
    out.setdefault("exclude_output_prompt", True)
    out.setdefault("embed_images", True)
    return out


class SynthprivHTMLExporter(HTMLExporter):
    """nbconvert exporter ``synthpriv_html``: the lab exporter with the ``synthpriv`` template, code hidden."""

    export_from_notebook = "synthpriv report (HTML)"

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **_exporter_kwargs(kwargs))

    def from_notebook_node(self, nb: Any, resources: dict | None = None, **kw: Any) -> tuple[str, dict]:
        html, resources = super().from_notebook_node(nb, resources=resources, **kw)
        # nbconvert re-serialises the page with BeautifulSoup, which sorts attributes; put the policy's own
        # http-equiv first again, so that the first thing a reader (or a checker) meets in <head> is the policy
        html = html.replace(f'<meta content="{CSP}" http-equiv="Content-Security-Policy"/>',
                            f'<meta http-equiv="Content-Security-Policy" content="{CSP}"/>', 1)
        return html, resources


class SynthprivPDFExporter(SynthprivHTMLExporter):
    """nbconvert exporter ``synthpriv_pdf``: the synthpriv HTML printed to an A4 PDF by WeasyPrint.

    ``jupyter nbconvert --to synthpriv_pdf analysis.ipynb`` writes ``analysis.pdf``.
    """

    # like nbconvert's WebPDFExporter: the template renders text/html; the written file gets the .pdf extension
    export_from_notebook = "synthpriv report (PDF, WeasyPrint)"
    engine: PdfEngine = "weasyprint"

    def from_notebook_node(self, nb: Any, resources: dict | None = None, **kw: Any) -> tuple[bytes, dict]:
        html, resources = super().from_notebook_node(nb, resources=resources, **kw)
        pdf = html_to_pdf(html, engine=self.engine)
        resources["output_extension"] = ".pdf"
        return pdf, resources


class SynthprivChromiumPDFExporter(SynthprivPDFExporter):
    """nbconvert exporter ``synthpriv_chromium_pdf``: the synthpriv HTML printed by the system Chromium."""

    export_from_notebook = "synthpriv report (PDF, Chromium)"
    engine: PdfEngine = "chromium"


# ---------------------------------------------------------------------------------------------------------------
# HTML


def render_html(source: Any, *, title: str = DEFAULT_TITLE, reveal_real_values: bool | None = None,
                **params: Any) -> str:
    """The self-contained HTML report as a string (see :func:`to_html`)."""
    data = report_data(source, reveal_real_values=reveal_real_values, **params)
    nb = build_notebook(data, title=title)
    html, _ = SynthprivHTMLExporter().from_notebook_node(nb)
    return html


def to_html(source: Any, path: str | os.PathLike[str], *, title: str = DEFAULT_TITLE,
            reveal_real_values: bool | None = None, **params: Any) -> Path:
    """Write the self-contained HTML report (opens offline: no script, remote style sheet or font).

    Parameters
    ----------
    source : Evaluation, ResultSet or LoadedReport
        The evaluation (results computed once, then only read), its results, or a report loaded by
        :func:`from_json`.
    path : path-like
        Output file, written whole or not at all.
    title : str
        Document title.
    reveal_real_values : bool, optional
        Record that raw real values were allowed (default: the evaluation's ``reveal_real_values`` setting).
    **params
        Reduction parameters for :meth:`Evaluation.results` (``alpha``, thresholds, ``levels``).

    Returns
    -------
    Path
        The written file.
    """
    return write_atomic(path, render_html(source, title=title, reveal_real_values=reveal_real_values, **params))


# ---------------------------------------------------------------------------------------------------------------
# PDF


@contextmanager
def _quiet_weasyprint() -> Iterator[None]:
    loggers = [logging.getLogger(n) for n in ("weasyprint", "fontTools")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.ERROR)
    try:
        yield
    finally:
        for lg, lv in zip(loggers, levels):
            lg.setLevel(lv)


def _url_fetcher() -> Any:
    """A WeasyPrint URL fetcher that loads ``data:`` URLs only (a report never needs anything else)."""
    from weasyprint import urls

    if hasattr(urls, "URLFetcher"):  # WeasyPrint >= 66
        return urls.URLFetcher(allowed_protocols=("data",))

    def fetch(url: str, *args: Any, **kwargs: Any) -> Any:  # pragma: no cover - older WeasyPrint
        if not url.startswith("data:"):
            raise ValueError(f"the report refers to {url[:80]!r}; exported reports load nothing from outside")
        return urls.default_url_fetcher(url, *args, **kwargs)

    return fetch


def _chromium_pdf(html: str, executable_path: str) -> bytes:
    from playwright.sync_api import sync_playwright

    html = html.replace("</head>", render("chromium_head.html.j2") + "</head>", 1)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable_path, args=list(CHROMIUM_ARGS), headless=True)
        try:
            context = browser.new_context(java_script_enabled=False, offline=True)
            page = context.new_page()
            page.route("**/*", lambda route: route.abort() if not route.request.url.startswith(("data:", "about:"))
                       else route.continue_())
            page.set_content(html, wait_until="load")
            pdf = page.pdf(format="A4", print_background=True, prefer_css_page_size=True,
                           display_header_footer=True, header_template="<span></span>",
                           footer_template=render("chromium_footer.html.j2"))
        finally:
            browser.close()
    return pdf


def html_to_pdf(html: str, *, engine: PdfEngine = "weasyprint", executable_path: str = CHROMIUM_PATH) -> bytes:
    """Print report HTML to PDF bytes with WeasyPrint or the system Chromium (never downloads a browser).

    Chromium prints with JavaScript disabled and every request other than ``data:`` refused.
    """
    if engine == "weasyprint":
        import weasyprint

        with _quiet_weasyprint():
            return weasyprint.HTML(string=html, base_url=None, url_fetcher=_url_fetcher()).write_pdf()
    if engine == "chromium":
        if not Path(executable_path).exists():
            raise FileNotFoundError(f"Chromium not found at {executable_path!r}; pass executable_path= or use "
                                    "engine='weasyprint'")
        import asyncio

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return _chromium_pdf(html, executable_path)
        # playwright's sync API refuses to run inside a running event loop (a Jupyter kernel): use a thread
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(_chromium_pdf, html, executable_path).result()
    raise ValueError(f"unknown PDF engine {engine!r}; choose 'weasyprint' or 'chromium'")


def _check_engine(engine: str) -> None:
    if engine not in ("weasyprint", "chromium"):
        raise ValueError(f"unknown PDF engine {engine!r}; choose 'weasyprint' or 'chromium'")


def to_pdf(source: Any, path: str | os.PathLike[str], engine: PdfEngine = "weasyprint", *,
           title: str = DEFAULT_TITLE, reveal_real_values: bool | None = None,
           executable_path: str = CHROMIUM_PATH, progress: bool = True, **params: Any) -> Path:
    """Write the paginated A4 PDF report (cover, summary, methods, one section per group, appendix).

    Parameters
    ----------
    source : Evaluation, ResultSet or LoadedReport
    path : path-like
        Output file, written whole or not at all.
    engine : {"weasyprint", "chromium"}
        WeasyPrint (default) or the system Chromium through playwright (``executable_path``).
    title, reveal_real_values, **params
        As in :func:`to_html`.
    executable_path : str
        Chromium binary for ``engine="chromium"``.
    progress : bool, default True
        A progress bar while the PDF renders (shown when it takes more than two seconds).
    """
    from ..progress import stage

    _check_engine(engine)
    html = render_html(source, title=title, reveal_real_values=reveal_real_values, **params)
    with stage("rendering the PDF", enabled=progress):
        pdf = html_to_pdf(html, engine=engine, executable_path=executable_path)
    return write_atomic(path, pdf)


def write_reports(source: Any, *, html: str | os.PathLike[str] | None = None,
                  pdf: str | os.PathLike[str] | None = None, json: str | os.PathLike[str] | None = None,
                  engine: PdfEngine = "weasyprint", title: str = DEFAULT_TITLE,
                  executable_path: str = CHROMIUM_PATH, on_stage: Any = None) -> list[Path]:
    """Write several documents of one report all together: each is staged in a temporary file beside its target
    and moved into place only when every one is complete, so an interruption leaves the previous files whole.

    Parameters
    ----------
    source : Evaluation, ResultSet, LoadedReport or ReportData
    html, pdf, json : path-like, optional
        Targets (at least one).
    engine, title, executable_path
        As in :func:`to_pdf` and :func:`to_html`.
    on_stage : callable, optional
        Called with ``("html" | "pdf" | "json", done: bool)`` around each document (progress display).

    Returns
    -------
    list of Path
        The written files, in the order html, pdf, json.
    """
    _check_engine(engine)
    data = report_data(source)
    step = on_stage or (lambda name, done: None)
    with AtomicFiles() as out:
        page = None
        if html is not None or pdf is not None:
            page = render_html(data, title=title)
        if html is not None:
            step("html", False)
            out.stage(html, page)
            step("html", True)
        if pdf is not None:
            step("pdf", False)
            out.stage(pdf, html_to_pdf(page, engine=engine, executable_path=executable_path))
            step("pdf", True)
        if json is not None:
            step("json", False)
            out.stage(json, dumps(data.to_dict()))
            step("json", True)
        targets = [Path(p) for p in (html, pdf, json) if p is not None]
    return targets


