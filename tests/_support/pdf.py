"""The text of a PDF as poppler's ``pdftotext -layout`` reads it: words in reading order, lines as laid out, pages
separated by a form feed. Every PDF check in the suite reads text through :func:`pdf_text`. The PDF/A-3 checks the
suite runs itself (:func:`pdfa_problems`, :func:`xmp_properties`) and qpdf's (:func:`qpdf_check`) are here too."""

from __future__ import annotations

import datetime as _dt
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest


def pdf_text(pdf: str | Path | bytes, *, flat: bool = False) -> str:
    """Text of a PDF given as a path or as its bytes, pages separated by ``"\\f"``.

    With ``flat=True`` every run of whitespace (line ends and page breaks included) becomes one space, for
    checks on phrases that a line or a page break may cut. The calling test skips when ``pdftotext`` is not
    installed (Debian/Ubuntu package ``poppler-utils``, which ``setup.sh`` installs).
    """
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext not installed (poppler-utils)")
    data = bytes(pdf) if isinstance(pdf, (bytes, bytearray)) else None
    source = "-" if data is not None else str(pdf)
    out = subprocess.run(["pdftotext", "-layout", source, "-"], input=data, check=True,
                         capture_output=True).stdout.decode("utf-8")
    return " ".join(out.split()) if flat else out


# ---------------------------------------------------------------------------------------------------------------
# PDF/A-3: what the suite checks itself (no full validator: veraPDF is not installed, see README "A file a data
# protection officer can sign")

#: Actions a link may carry in an archival report (internal jumps and web links); ISO 19005-3 (actions) forbids
#: Launch, Sound, Movie, ResetForm, ImportData, Hide, SetOCGState, Rendition, Trans, GoTo3DView and JavaScript.
ALLOWED_ACTIONS = ("/GoTo", "/URI")
#: The standard structure types of ISO 32000-1 14.8.4; PDF/A-3a (ISO 19005-3 6.7, logical structure) maps any
#: other to one through the structure tree's /RoleMap.
STANDARD_STRUCTURE_TYPES = frozenset(
    "Document Part Art Sect Div BlockQuote Caption TOC TOCI Index NonStruct Private P H H1 H2 H3 H4 H5 H6 L LI Lbl "
    "LBody Table TR TH TD THead TBody TFoot Span Quote Note Reference BibEntry Code Link Annot Ruby RB RT RP Warichu "
    "WT WP Figure Formula Form".split())
_PDF_DATE = re.compile(r"^D:(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(?:(Z)|([+-])(\d{2})'(\d{2})'?)$")


def pikepdf_or_skip() -> Any:
    """The ``pikepdf`` module; the calling test skips when it is not installed (it is in the ``test`` extra)."""
    return pytest.importorskip("pikepdf", reason="pikepdf not installed (pip install -e '.[test]')")


def pdf_date(value: str) -> _dt.datetime:
    """A full PDF date with its zone (``D:20261206204419+00'00`` or ``...Z``) as an aware datetime."""
    m = _PDF_DATE.match(value)
    if m is None:
        raise ValueError(f"not a full PDF date with a time zone: {value!r}")
    y, mo, d, h, mi, s, z, sign, tzh, tzm = m.groups()
    offset = _dt.timedelta(0) if z else (1 if sign == "+" else -1) * _dt.timedelta(hours=int(tzh), minutes=int(tzm))
    return _dt.datetime(int(y), int(mo), int(d), int(h), int(mi), int(s), tzinfo=_dt.timezone(offset))


def xmp_properties(pdf: Any) -> dict[str, str]:
    """The XMP packet of an open ``pikepdf.Pdf`` as ``{"prefix:Name": text}`` (``dc:title``'s default text),
    parsed as RDF by pikepdf (an XMP packet it cannot parse fails the test)."""
    prefixes = {"http://ns.adobe.com/xap/1.0/": "xmp", "http://purl.org/dc/elements/1.1/": "dc",
                "http://ns.adobe.com/pdf/1.3/": "pdf", "http://www.aiim.org/pdfa/ns/id/": "pdfaid"}
    out = {}
    meta = pdf.open_metadata(set_pikepdf_as_editor=False, update_docinfo=False, strict=True)  # read, not opened
    for key, value in meta.items():
        ns, _, name = key[1:].partition("}")
        out[f"{prefixes.get(ns, ns)}:{name}"] = str(value)
    return out


def _font_problem(font: Any) -> str | None:
    subtype = str(font.get("/Subtype"))
    if subtype == "/Type3":  # glyphs drawn by content streams inside the font
        return None
    described = font.get("/DescendantFonts", [font])[0] if subtype == "/Type0" else font
    desc = described.get("/FontDescriptor")
    if desc is None or not any(k in desc for k in ("/FontFile", "/FontFile2", "/FontFile3")):
        return f"font {font.get('/BaseFont')} ({subtype}) is not embedded"
    return None


def pdfa_problems(pdf: Any) -> list[str]:
    """What an open ``pikepdf.Pdf`` breaks of the PDF/A-3a rules this suite checks itself (empty when none):
    PDF 1.7, not encrypted, a file identifier, every font embedded, one sRGB output intent (GTS_PDFA1) with an ICC
    profile, tagged (``/MarkInfo /Marked true``, a structure tree with content, every structure type standard or
    mapped to one, every figure with alternative text), ``/Lang`` set, no JavaScript, no
    document or page actions (``/OpenAction``, ``/AA``), links jumping only (GoTo, URI), no interpolated image,
    an XMP packet identifying PDF/A-3 level A."""
    pikepdf = pikepdf_or_skip()
    root = pdf.Root
    problems = []
    if str(pdf.pdf_version) != "1.7":
        problems.append(f"PDF version {pdf.pdf_version}, not 1.7 (PDF/A-3)")
    if pdf.is_encrypted or "/Encrypt" in pdf.trailer:
        problems.append("encrypted")
    if len(pdf.trailer.get("/ID", [])) != 2:
        problems.append("no file identifier (/ID) in the trailer")
    intents = list(root.get("/OutputIntents", []))
    if len(intents) != 1:
        problems.append(f"{len(intents)} output intents, not one")
    for intent in intents:
        profile = intent.get("/DestOutputProfile")
        icc = profile.read_bytes() if profile is not None else b""
        if str(intent.get("/S")) != "/GTS_PDFA1":
            problems.append(f"output intent of subtype {intent.get('/S')}, not /GTS_PDFA1")
        if icc[36:40] != b"acsp" or icc[16:20] != b"RGB " or int(profile.get("/N", 0)) != 3:
            problems.append("the output intent has no RGB ICC profile")
    mark = root.get("/MarkInfo")
    if mark is None or not bool(mark.get("/Marked", False)):
        problems.append("not tagged (/MarkInfo /Marked true)")
    tree = root.get("/StructTreeRoot")
    if tree is None or tree.get("/K") is None:
        problems.append("no structure tree")
    role_map = (tree.get("/RoleMap") if tree is not None else None) or {}
    if not str(root.get("/Lang", "")).strip():
        problems.append("no /Lang")
    if "/OpenAction" in root or "/AA" in root:
        problems.append("the document runs an action when opened")
    if "/JavaScript" in root.get("/Names", {}):
        problems.append("a JavaScript name tree")
    meta = xmp_properties(pdf)
    if (meta.get("pdfaid:part"), meta.get("pdfaid:conformance")) != ("3", "A"):
        problems.append(f"XMP identification {meta.get('pdfaid:part')}{meta.get('pdfaid:conformance')}, not 3A")
    for obj in pdf.objects:
        if not isinstance(obj, (pikepdf.Dictionary, pikepdf.Stream)):
            continue
        kind = str(obj.get("/Type", ""))
        if kind == "/Font":
            problem = _font_problem(obj)
            if problem:
                problems.append(problem)
        if "/JS" in obj or str(obj.get("/S", "")) == "/JavaScript":
            problems.append(f"JavaScript in object {obj.objgen}")
        if "/AA" in obj:
            problems.append(f"additional actions (/AA) in object {obj.objgen}")
        if kind == "/Annot" and "/A" in obj and str(obj.A.get("/S")) not in ALLOWED_ACTIONS:
            problems.append(f"annotation {obj.objgen} runs a {obj.A.get('/S')} action")
        if kind == "/StructElem":
            role = str(obj.get("/S", ""))[1:]
            mapped = str(role_map.get("/" + role, "/" + role))[1:]
            if mapped not in STANDARD_STRUCTURE_TYPES:
                problems.append(f"structure type {role} is neither standard nor mapped to one")
            if mapped == "Figure" and not str(obj.get("/Alt", "")).strip():
                problems.append(f"figure {obj.objgen} has no alternative text")
        if str(obj.get("/Subtype", "")) == "/Image" and bool(obj.get("/Interpolate", False)):
            problems.append(f"image {obj.objgen} is interpolated")
    return problems


def qpdf_check(path: str | Path) -> str:
    """``qpdf --check``'s report on a PDF file; the calling test skips when ``qpdf`` is not installed (Debian
    package ``qpdf``, which ``setup.sh`` installs) and fails on any error or warning qpdf reports."""
    if shutil.which("qpdf") is None:
        pytest.skip("qpdf not installed (Debian package qpdf; setup.sh installs it)")
    done = subprocess.run(["qpdf", "--check", str(path)], capture_output=True, text=True)
    report = done.stdout + done.stderr
    # exit status 0: no problem; 2: errors; 3: warnings only
    assert done.returncode == 0, report
    return report
