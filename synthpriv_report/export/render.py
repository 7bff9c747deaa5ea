"""HTML and PDF: the report notebook through nbconvert and the ``synthpriv`` template; PDF by WeasyPrint or Chromium.

The HTML carries a Content-Security-Policy without script (``default-src 'none'``), so that even a string that
escaped the templates could not run; Chromium prints with JavaScript disabled and every network request refused.
Every file is written whole or not at all (:mod:`synthpriv_report.export.files`).
"""

from __future__ import annotations

import concurrent.futures
import gc
import html as html_lib
import io
import logging
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from nbconvert import HTMLExporter

from ..core.formats import level_text
from .document import dumps, report_data
from .files import AtomicFiles, write_atomic
from .notebook import DEFAULT_TITLE, build_notebook
from .templating import render

__all__ = ["ATTACHMENT_NAME", "PDF_VARIANT",
           "CHROMIUM_ARGS", "CHROMIUM_PATH", "CSP", "TEMPLATE_NAME", "SynthprivChromiumPDFExporter",
           "SynthprivHTMLExporter", "SynthprivPDFExporter", "add_navigation", "html_to_pdf", "render_html",
           "running_title", "sections", "template_basedirs", "to_html", "to_pdf", "write_documents", "write_reports"]

TEMPLATE_NAME = "synthpriv"
CHROMIUM_PATH = "/usr/bin/chromium"
CHROMIUM_ARGS = ("--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic")
#: The policy of every exported page (also in the template's ``<head>``): no script, no network, inline styles.
CSP = ("default-src 'none'; img-src data:; style-src 'unsafe-inline'; font-src data:; base-uri 'none'; "
       "form-action 'none'")
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
        super().__init__(*args, **_exporter_kwargs(kwargs))  # type: ignore[no-untyped-call]

    # nbconvert's own annotations of this method disagree between its classes (text, a notebook node): the page
    # is text here, and bytes for the PDF exporter below
    def from_notebook_node(  # type: ignore[override]
            self, nb: Any, resources: dict[str, Any] | None = None, **kw: Any) -> tuple[str, dict[str, Any]]:
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

    def from_notebook_node(  # type: ignore[override]
            self, nb: Any, resources: dict[str, Any] | None = None, **kw: Any) -> tuple[bytes, dict[str, Any]]:
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
                dossier_only: bool = False, after_dossier: Sequence[tuple[str, str]] = (), **params: Any) -> str:
    """The self-contained HTML report as a string (see :func:`to_html`).

    The page carries a running title with the verdict (printed at the top of every PDF page) and a table of
    contents after the cover (:func:`add_navigation`). With ``dossier_only`` it holds the data protection
    officer's four pages alone. ``after_dossier`` pages (``(html, text)`` pairs) come between the dossier and the
    annex (:func:`~synthpriv_report.export.notebook.build_notebook`).
    """
    data = report_data(source, reveal_real_values=reveal_real_values, **params)
    with few_collections():
        nb = build_notebook(data, title=title, dossier_only=dossier_only, after_dossier=after_dossier)
        html, _ = SynthprivHTMLExporter().from_notebook_node(nb)
    level = data.document["verdict"]["level"]
    return add_navigation(html, title=title, verdict=level_text(level).upper())


# ---------------------------------------------------------------------------------------------------------------
# navigation: running title and table of contents

_FIRST_SECTION_CELL = re.compile(r'<div[^>]*\bclass="[^"]*\bcelltag_spr-page-break\b[^"]*"')
_H2 = re.compile(r"<h2(?P<attrs>\s[^>]*)?>(?P<inner>.*?)</h2>", re.S)
_ID = re.compile(r'\bid="([^"]*)"')
_TAG = re.compile(r"<[^>]+>")
_BODY = re.compile(r"<body[^>]*>")
_RUNNING = re.compile(r'<div class="spr-running"[^>]*>(.*?)</div>', re.S)
_DOSSIER_FOOT = re.compile(r'<div class="spr-dossier-foot">(.*?)</div>', re.S)


def sections(html: str) -> tuple[str, list[dict[str, Any]]]:
    """The major sections of a report page: every ``<h2>`` from the first cell that starts a new page on.

    Returns the page with an ``id`` on each such heading (``spr-sec-N`` unless it had one) and the sections as
    ``[{"id", "title"}]`` with plain-text titles (markup removed, entities decoded: they are escaped again when a
    template writes them).
    """
    start = _FIRST_SECTION_CELL.search(html)
    if start is None:
        return html, []
    found: list[dict[str, Any]] = []

    def name(m: re.Match[str]) -> str:
        attrs = m.group("attrs") or ""
        have = _ID.search(attrs)
        ident = have.group(1) if have else f"spr-sec-{len(found) + 1}"
        title = " ".join(html_lib.unescape(_TAG.sub("", m.group("inner"))).split())
        found.append({"id": ident, "title": title})
        return m.group(0) if have else f'<h2 id="{ident}"{attrs}>{m.group("inner")}</h2>'

    tail = _H2.sub(name, html[start.start():])
    return html[:start.start()] + tail, found


def add_navigation(html: str, *, title: str, verdict: str, pages: list[int | None] | None = None) -> str:
    """The report page with a running title (``title · Verdict: verdict``, shown in print only, at the top of
    every page) and a table of contents inserted before the first section.

    Parameters
    ----------
    html : str
        A page written by :class:`SynthprivHTMLExporter`.
    title, verdict : str
        Document title and the verdict's words (escaped by the templates).
    pages : list of int or None, optional
        Page number of each section, written into the contents (Chromium, which cannot count pages itself); by
        default the numbers are left to the print engine (WeasyPrint's ``target-counter``).
    """
    html, found = sections(html)
    if pages is not None:
        for s, n in zip(found, pages):
            s["page"] = n
    for s in found:
        s.setdefault("page", None)
    if found:
        at = _FIRST_SECTION_CELL.search(html)
        assert at is not None  # sections() found one
        html = html[:at.start()] + render("toc.html.j2", sections=found) + html[at.start():]
    body = _BODY.search(html)
    if body is not None:
        html = html[:body.end()] + render("running.html.j2", title=title, verdict=verdict) + html[body.end():]
    return html


def running_title(html: str) -> str:
    """The plain text of a page's running title ("" when it has none)."""
    m = _RUNNING.search(html)
    return " ".join(html_lib.unescape(_TAG.sub("", m.group(1))).split()) if m else ""


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


#: Allocations between two of Python's youngest-generation garbage collections while a document is built
#: (Python's default is 700). Laying out a report makes millions of objects that live until the document is
#: written; each collection of the older generations walks all of them again, which cost a fifth of the PDF's time
#: (demo: 9.7 CPU-s with the default, 8.3 with this; the peak memory is the same).
DOCUMENT_GC_THRESHOLD = 50_000


@contextmanager
def few_collections(threshold: int = DOCUMENT_GC_THRESHOLD) -> Iterator[None]:
    """Collect cyclic garbage less often while a document is built; the previous settings are restored on exit.

    Nothing is left uncollected: the garbage made meanwhile is collected as usual afterwards.
    """
    old = gc.get_threshold()
    gc.set_threshold(max(threshold, old[0]), *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)


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


_TOC_PAGE = re.compile(r'(<a class="spr-toc-page" href="#)([^"]*)("[^>]*>)([^<]*)(</a>)')


def _section_pages(pdf: bytes) -> dict[str, int]:
    """Page (1-based) of each section of a Chromium PDF, read from the contents' links: Chromium turns each
    ``<a href="#id">`` into a link annotation whose destination is the page of the element ``id``."""
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(pdf))
    named = {}
    for name, dest in reader.named_destinations.items():
        try:
            page = reader.get_destination_page_number(dest)
            if page is None:
                continue
            named[str(name).lstrip("/")] = page + 1
        except Exception:  # noqa: BLE001 - a destination without a page
            continue
    return named


def _fill_toc(html: str, pages: Mapping[str, int]) -> str:
    """The contents' page numbers written in (ids missing from ``pages`` are left blank)."""
    def fill(m: re.Match[str]) -> str:
        n = pages.get(m.group(2))
        return m.group(1) + m.group(2) + m.group(3) + ("" if n is None else str(n)) + m.group(5)
    return _TOC_PAGE.sub(fill, html)


def _chromium_pdf(html: str, executable_path: str) -> bytes:
    """Print with Chromium (JavaScript off, no network). Chromium cannot count pages in CSS (no
    ``target-counter``), so a page with contents is printed twice: the first print, with two-digit placeholders
    of the same width, tells on which page each section starts (from the link destinations of the contents); the
    second has the numbers written in. The placeholders keep the layout of both prints the same."""
    from playwright.sync_api import sync_playwright

    html = html.replace("</head>", render("chromium_head.html.j2") + "</head>", 1)
    header = render("chromium_header.html.j2", running=running_title(html))
    # Chromium has no running elements: the dossier's foot (the report's digest, the data's fingerprints) goes into
    # the footer of every page instead
    foot = _DOSSIER_FOOT.search(html)
    footer = render("chromium_footer.html.j2",
                    foot=" ".join(html_lib.unescape(_TAG.sub("", foot.group(1))).split()) if foot else "")
    has_toc = _TOC_PAGE.search(html) is not None
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable_path, args=list(CHROMIUM_ARGS), headless=True)
        try:
            context = browser.new_context(java_script_enabled=False, offline=True)
            page = context.new_page()
            page.route("**/*", lambda route: route.abort() if not route.request.url.startswith(("data:", "about:"))
                       else route.continue_())

            def print_pdf(doc: str) -> bytes:
                page.set_content(doc, wait_until="load")
                return page.pdf(format="A4", print_background=True, prefer_css_page_size=True,
                                display_header_footer=True, header_template=header,
                                footer_template=footer, outline=False, tagged=True)

            if has_toc:
                first = print_pdf(_TOC_PAGE.sub(lambda m: m.group(1) + m.group(2) + m.group(3) + "00" + m.group(5),
                                                html))
                html = _fill_toc(html, _section_pages(first))
            pdf = print_pdf(html)
        finally:
            browser.close()
    return pdf


#: The archival profile of WeasyPrint's PDFs: PDF/A-3 level A (accessible: tagged structure, reading order, Unicode
#: text), which also allows the JSON report to travel inside the file as an embedded attachment.
PDF_VARIANT = "pdf/a-3a"
#: The name of the JSON report embedded in every PDF written with one.
ATTACHMENT_NAME = "report.json"
ATTACHMENT_DESCRIPTION = ("The JSON report (machine-readable record) this document was drawn from; its SHA-256 is "
                          "printed on the Reproducibility page")


_XMP_NS = "http://ns.adobe.com/xap/1.0/"


def _finish_pdfa(document: Any, pdf: Any) -> None:
    """WeasyPrint's ``finisher`` hook for the archival PDF: runs on WeasyPrint's own PDF objects after it has built
    the document and before it writes the file (no second library rewrites the PDF).

    - The catalog's associated files (``/AF``) list each attachment once: WeasyPrint 70 adds every embedded file
      to ``/AF`` twice, once from the ``/EmbeddedFiles`` name tree and once from its file specification (WeasyPrint
      issue 2917).
    - The XMP metadata states when it was written (``xmp:MetadataDate``), the same time as ``xmp:ModifyDate``
      (the report's creation time, from the page's ``<meta name="dcterms.modified">``). WeasyPrint writes the
      creation and modification dates but not this one.
    """
    catalog = pdf.catalog
    if "AF" in catalog:
        seen: list[Any] = []
        for ref in catalog["AF"]:
            if ref not in seen:
                seen.append(ref)
        catalog["AF"][:] = seen
    modified = getattr(document.metadata, "modified", None)
    if not modified or "Metadata" not in catalog:
        return
    ref = catalog["Metadata"]  # an indirect reference, b"N 0 R"
    stream = pdf.objects[int((ref.decode("ascii") if isinstance(ref, bytes) else str(ref)).split()[0])]
    xmp = b"".join(part if isinstance(part, bytes) else str(part).encode("utf-8") for part in stream.stream)
    end = b"</rdf:RDF>"
    if end not in xmp or b"MetadataDate" in xmp:
        return
    entry = (f'<rdf:Description xmlns:xmp="{_XMP_NS}" rdf:about=""><xmp:MetadataDate>'
             f"{html_lib.escape(str(modified))}</xmp:MetadataDate></rdf:Description>").encode()
    at = xmp.rindex(end)
    stream.stream = [xmp[:at] + entry + xmp[at:]]


def _attach_with_pypdf(pdf: bytes, attachment: str) -> bytes:
    """``pdf`` with the JSON report embedded as a file attachment (for Chromium's PDFs, which WeasyPrint's
    archival profile does not reach)."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf)))
    writer.add_attachment(ATTACHMENT_NAME, attachment.encode("utf-8"))
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


#: The decision record's blanks in a report page: a box or an empty field, with the form field's name and label
#: (written by the package's own template, attributes in the alphabetical order the page's sanitiser writes them
#: in; names are ``[a-z_]`` words, labels escaped text).
_BOX = re.compile(r'<span aria-hidden="true" class="spr-box" data-spr-field="([a-z_]+)" data-spr-label="([^"<>]*)">'
                  r'(☒|☐)</span>')
_BLANK = re.compile(r'<span class="spr-field" data-spr-field="([a-z_]+)" data-spr-label="([^"<>]*)"></span>')
#: Fields written on several lines.
_LONG_FIELDS = ("rationale", "conditions", "departure_reason", "dpo_opinion")


def form_fields(html: str) -> str:
    """The page with the decision record's boxes and blanks as form controls, which WeasyPrint writes as fillable
    PDF fields (check boxes, one-line and several-line text), each named and labelled for a screen reader.

    Only the PDF gets them: the HTML report holds no form control.
    """
    def box(m: re.Match[str]) -> str:
        checked = " checked" if m.group(3) == "☒" else ""
        return f'<input type="checkbox" class="spr-field-check" name="{m.group(1)}" title="{m.group(2)}"{checked}>'

    def blank(m: re.Match[str]) -> str:
        name, label = m.group(1), m.group(2)
        if name in _LONG_FIELDS:
            return f'<textarea class="spr-field-input" name="{name}" title="{label}"></textarea>'
        return f'<input type="text" class="spr-field-input" name="{name}" title="{label}">'

    return _BLANK.sub(blank, _BOX.sub(box, html))


def _archival_fields(document: Any, pdf: Any) -> None:
    """WeasyPrint's finishing step for a PDF with form fields, kept PDF/A: the form asks no viewer to draw its
    fields (PDF/A forbids ``NeedAppearances``), and every field has an appearance of its own (an empty one for a
    blank text field, an empty "off" state for a check box)."""
    import pydyf

    form = pdf.catalog.get("AcroForm")
    if form is None:
        return
    form.pop("NeedAppearances", None)
    for obj in list(pdf.objects):
        if not isinstance(obj, pydyf.Dictionary) or obj.get("Subtype") != "/Widget":
            continue
        rect = [float(x) for x in obj["Rect"]]
        width, height = abs(rect[2] - rect[0]), abs(rect[3] - rect[1])

        def empty() -> Any:
            stream = pydyf.Stream([], extra={"Type": "/XObject", "Subtype": "/Form",
                                             "BBox": pydyf.Array([0, 0, width, height])})
            pdf.add_object(stream)
            return stream.reference

        appearance = obj.get("AP")
        if appearance is None:
            obj["AP"] = pydyf.Dictionary({"N": empty()})
        elif isinstance(appearance.get("N"), pydyf.Dictionary) and "Off" not in appearance["N"]:
            appearance["N"]["Off"] = empty()


def _finish_archival(document: Any, pdf: Any) -> None:
    """WeasyPrint's ``finisher`` for the report: the archival metadata and attachment (:func:`_finish_pdfa`) and
    the form fields kept PDF/A (:func:`_archival_fields`)."""
    _finish_pdfa(document, pdf)
    _archival_fields(document, pdf)


def html_to_pdf(html: str, *, engine: PdfEngine = "weasyprint", executable_path: str = CHROMIUM_PATH,
                attachment: str | None = None) -> bytes:
    """Print report HTML to PDF bytes with WeasyPrint or the system Chromium (never downloads a browser).

    WeasyPrint writes PDF/A-3a (:data:`PDF_VARIANT`: archival, tagged for accessibility, fonts embedded, an sRGB
    output intent, XMP metadata) with ``attachment`` (the JSON report's text) embedded as ``report.json``, its
    relationship to the document "Source", listed once in the catalog's associated files, and the decision
    record's blanks as fillable form fields (:func:`form_fields`). The page's ``<title>``,
    ``<meta name="generator">`` and ``<meta name="dcterms.created">``/``dcterms.modified`` (written by the
    template) become the title, creator tool and dates of both the information dictionary and the XMP metadata
    (which also gets ``xmp:MetadataDate``, :func:`_finish_pdfa`). Chromium prints a tagged PDF (not PDF/A) with
    JavaScript disabled and every request other than ``data:`` refused; the attachment is then added with pypdf.
    """
    if engine == "weasyprint":
        import weasyprint

        options: dict[str, Any] = {"pdf_variant": PDF_VARIANT, "pdf_forms": True}
        html = form_fields(html)
        if attachment is not None:
            options["attachments"] = [weasyprint.Attachment(string=attachment, name=ATTACHMENT_NAME,
                                                            description=ATTACHMENT_DESCRIPTION,
                                                            relationship="Source")]
        with _quiet_weasyprint(), few_collections():
            pdf: bytes = weasyprint.HTML(string=html, base_url=None, url_fetcher=_url_fetcher()).write_pdf(
                finisher=_finish_archival, **options)
            return pdf
    if engine == "chromium":
        if not Path(executable_path).exists():
            raise FileNotFoundError(f"Chromium not found at {executable_path!r}; pass executable_path= or use "
                                    "engine='weasyprint'")
        import asyncio

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pdf = _chromium_pdf(html, executable_path)
        else:
            # playwright's sync API refuses to run inside a running event loop (a Jupyter kernel): use a thread
            with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
                pdf = pool.submit(_chromium_pdf, html, executable_path).result()
        return pdf if attachment is None else _attach_with_pypdf(pdf, attachment)
    raise ValueError(f"unknown PDF engine {engine!r}; choose 'weasyprint' or 'chromium'")


def _check_engine(engine: str) -> None:
    if engine not in ("weasyprint", "chromium"):
        raise ValueError(f"unknown PDF engine {engine!r}; choose 'weasyprint' or 'chromium'")


def to_pdf(source: Any, path: str | os.PathLike[str], engine: PdfEngine = "weasyprint", *,
           title: str = DEFAULT_TITLE, reveal_real_values: bool | None = None,
           executable_path: str = CHROMIUM_PATH, progress: bool = True, dossier_only: bool = False,
           **params: Any) -> Path:
    """Write the paginated A4 PDF report: the data protection officer's dossier (four pages, each with the report's
    digest and the data's fingerprints at its foot; the decision record as fillable form fields), then the
    technical annex (cover, summary, methods, one section per group, appendix).

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
    dossier_only : bool, default False
        The dossier alone, to be printed and signed apart from the annex.
    """
    from ..core.progress import stage

    _check_engine(engine)
    data = report_data(source, reveal_real_values=reveal_real_values, **params)
    html = render_html(data, title=title, dossier_only=dossier_only)
    with stage("rendering the PDF", enabled=progress):
        pdf = html_to_pdf(html, engine=engine, executable_path=executable_path, attachment=dumps(data.to_dict()))
    return write_atomic(path, pdf)


def write_reports(source: Any, *, html: str | os.PathLike[str] | None = None,
                  pdf: str | os.PathLike[str] | None = None, json: str | os.PathLike[str] | None = None,
                  pdf_dossier: str | os.PathLike[str] | None = None,
                  engine: PdfEngine = "weasyprint", title: str = DEFAULT_TITLE,
                  executable_path: str = CHROMIUM_PATH, on_stage: Any = None) -> list[Path]:
    """Write several documents of one report all together: each is staged in a temporary file beside its target
    and moved into place only when every one is complete, so an interruption leaves the previous files whole.

    Parameters
    ----------
    source : Evaluation, ResultSet, LoadedReport or ReportData
    html, pdf, json : path-like, optional
        Targets (at least one).
    pdf_dossier : path-like, optional
        The data protection officer's dossier alone, as a PDF of its own (the same digest and fingerprints in
        every page's footer, the JSON report attached), to be printed and signed apart from the annex.
    engine, title, executable_path
        As in :func:`to_pdf` and :func:`to_html`.
    on_stage : callable, optional
        Called with ``("html" | "pdf" | "json", done: bool)`` around each document (progress display).

    Returns
    -------
    list of Path
        The written files, in the order html, pdf, json, pdf_dossier.
    """
    _check_engine(engine)
    data = report_data(source)
    attachment = dumps(data.to_dict())
    dossier = [] if pdf_dossier is None else [
        ("pdf_dossier", pdf_dossier,
         lambda: html_to_pdf(render_html(data, title=title, dossier_only=True), engine=engine,
                             executable_path=executable_path, attachment=attachment))]
    return write_documents(lambda: render_html(data, title=title), attachment, html=html, pdf=pdf, json=json,
                           more=dossier, engine=engine, executable_path=executable_path, on_stage=on_stage)


def write_documents(page: Callable[[], str], document: str, *, html: str | os.PathLike[str] | None = None,
                    pdf: str | os.PathLike[str] | None = None, json: str | os.PathLike[str] | None = None,
                    more: Sequence[tuple[str, str | os.PathLike[str], Callable[[], bytes]]] = (),
                    engine: PdfEngine = "weasyprint", executable_path: str = CHROMIUM_PATH,
                    on_stage: Any = None) -> list[Path]:
    """Write the HTML page, its PDF and the JSON document all together, each staged beside its target and moved
    into place only when every one is complete (:class:`~synthpriv_report.export.files.AtomicFiles`).

    Parameters
    ----------
    page : callable
        Makes the HTML page (called once, only when an HTML or a PDF is asked for).
    document : str
        The JSON document's text: written as ``json`` and attached to the PDF.
    html, pdf, json : path-like, optional
        Targets.
    more : sequence of (stage, path, callable)
        Further files, each made by its callable (bytes or text) after the others.
    engine, executable_path
        As in :func:`html_to_pdf`.
    on_stage : callable, optional
        Called with ``(stage, done: bool)`` around each file (progress display).

    Returns
    -------
    list of Path
        The written files, in the order html, pdf, json, then ``more``.
    """
    step = on_stage or (lambda name, done: None)
    made = page() if html is not None or pdf is not None else ""  # the page, made once for both files
    files: list[tuple[str, Any, Callable[[], Any]]] = [
        ("html", html, lambda: made),
        ("pdf", pdf, lambda: html_to_pdf(made, engine=engine, executable_path=executable_path,
                                         attachment=document)),
        ("json", json, lambda: document),
        *more]
    with AtomicFiles() as out:
        for stage, path, make in files:
            if path is None:
                continue
            step(stage, False)
            out.stage(path, make())
            step(stage, True)
    return [Path(path) for _, path, _ in files if path is not None]


