"""The text of a PDF as poppler's ``pdftotext -layout`` reads it: words in reading order, lines as laid out, pages
separated by a form feed. Every PDF check in the suite reads text through :func:`pdf_text`."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

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
