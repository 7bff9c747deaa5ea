"""The PDF report read back by a PDF reader (pdfplumber), for both engines (WeasyPrint and Chromium).

Checks: no two words overprint each other; no page more than half empty unless a new section starts on the next
page (or it is the last page); no heading is the last line of a page; no text of the page body, figures
included (SVG, text kept as text), is smaller than 8 pt; the running title with the verdict and the page number
on every page; the table of contents gives the page each section heading is on. The first two pages are written as
PNG to the screenshot folder (``$SYNTHPRIV_SCREENSHOTS`` or ``reports/screenshots``).
"""

from __future__ import annotations

import html as html_lib
import re
import shutil
import subprocess
from typing import Any

import pytest
from _support import layout as ls

pytestmark = pytest.mark.browser
pdfplumber = pytest.importorskip("pdfplumber", reason="pdfplumber not installed (pip install pdfplumber)")

#: Running header and footer sit in the page margins (20 mm = 56.7 pt at top and bottom).
MARGIN_PT = 56.0
#: The left and right page margins are 14 mm (39.7 pt): the body's text stays between them.
SIDE_MARGIN_PT = 39.0
ENGINES = ["weasyprint", "chromium"]


def _rows(words: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Words grouped into the lines they sit on, from top to bottom."""
    rows: list[list[dict[str, Any]]] = []
    for w in sorted(words, key=lambda w: (round(w["top"]), w["x0"])):
        if rows and abs(rows[-1][0]["top"] - w["top"]) < 2.5:
            rows[-1].append(w)
        else:
            rows.append([w])
    return rows


def _lines(words: list[dict[str, Any]]) -> list[tuple[float, float, str]]:
    """Words grouped into lines: ``(top, bottom, text)`` from top to bottom."""
    return [(min(w["top"] for w in r), max(w["bottom"] for w in r),
             " ".join(w["text"] for w in sorted(r, key=lambda w: w["x0"]))) for r in _rows(words)]


@pytest.fixture(scope="module", params=ENGINES)
def pdf(request: pytest.FixtureRequest) -> dict[str, Any]:
    """The PDF of the session's report read back page by page: body words (margins left out) and lines."""
    path = ls.pdf_report(request.param)
    pages = []
    with pdfplumber.open(path) as doc:
        for page in doc.pages:
            words = page.extract_words(keep_blank_chars=False, use_text_flow=False, extra_attrs=["size"])
            body = [w for w in words if MARGIN_PT <= w["top"] and w["bottom"] <= page.height - MARGIN_PT]
            chars = [c for c in page.chars if MARGIN_PT <= c["top"] and c["bottom"] <= page.height - MARGIN_PT
                     and c["text"].strip()]
            rules = [(float(e["top"]), float(e["x0"]), float(e["x1"])) for e in page.horizontal_edges]
            pages.append({"height": float(page.height), "width": float(page.width), "words": body, "chars": chars,
                          "lines": _lines(body), "text": page.extract_text() or "", "rules": rules})
    if shutil.which("pdftoppm"):
        out = ls.screenshot_dir() / f"pdf-{request.param}-page"
        subprocess.run(["pdftoppm", "-r", "80", "-png", "-f", "1", "-l", "2", str(path), str(out)], check=True)
    return {"engine": request.param, "path": path, "pages": pages}


def _sections() -> list[str]:
    from synthpriv_report.export.render import sections

    return [s["title"] for s in sections(ls.html_report())[1]]


def _headings() -> list[str]:
    found = re.findall(r"<h[1-4][^>]*>(.*?)</h[1-4]>", ls.html_report(), flags=re.S)
    return [" ".join(html_lib.unescape(re.sub(r"<[^>]+>", "", h)).split()) for h in found]


def _starts(page: dict[str, Any], title: str) -> bool:
    return bool(page["lines"]) and page["lines"][0][2].startswith(title)


def test_no_words_overprint(pdf: dict[str, Any]) -> None:
    bad = []
    for n, page in enumerate(pdf["pages"], 1):
        words = sorted(page["words"], key=lambda w: w["x0"])
        for i, a in enumerate(words):
            for b in words[i + 1:]:
                if b["x0"] >= a["x1"] - 0.5:
                    break
                dx = min(a["x1"], b["x1"]) - max(a["x0"], b["x0"])
                dy = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
                if dx > 0.5 and dy > 0.5:
                    bad.append((n, a["text"], b["text"]))
    assert bad == [], f"{pdf['engine']}: words printed over each other: {bad[:10]}"


def test_no_text_runs_past_the_right_margin(pdf: dict[str, Any]) -> None:
    # a table wider than the page is cut at the paper's edge: a number there is shown cut short (0.0365 as 0.03)
    # or not at all, and the PDF still holds it, outside what a reader sees
    for n, page in enumerate(pdf["pages"], 1):
        limit = page["width"] - SIDE_MARGIN_PT + 1.0
        past = [w["text"] for w in page["words"] if w["x1"] > limit or w["x0"] < SIDE_MARGIN_PT - 1.0]
        assert not past, f"{pdf['engine']} page {n}: text outside the side margins: {past[:8]}"


def test_no_half_empty_page_inside_a_section(pdf: dict[str, Any]) -> None:
    # the contents start a page of their own when they do not fit under the cover's end
    titles = [*_sections(), "Contents"]
    assert len(titles) >= 5
    pages = pdf["pages"]
    bad = []
    for n, page in enumerate(pages[:-1], 1):
        usable = page["height"] - 2 * MARGIN_PT
        used = (max(b for _, b, _ in page["lines"]) - MARGIN_PT) if page["lines"] else 0.0
        next_starts_section = any(_starts(pages[n], t) for t in titles)
        if used < 0.5 * usable and not next_starts_section:
            bad.append((n, round(used / usable, 2)))
    assert bad == [], f"{pdf['engine']}: pages more than half empty inside a section (page, share used): {bad}"


def test_no_heading_is_the_last_line_of_a_page(pdf: dict[str, Any]) -> None:
    headings = {h for h in _headings() if len(h) > 3}
    bad = [(n, p["lines"][-1][2]) for n, p in enumerate(pdf["pages"][:-1], 1)
           if p["lines"] and p["lines"][-1][2] in headings]
    assert bad == [], f"{pdf['engine']}: headings left alone at the foot of a page: {bad}"


def test_no_text_smaller_than_8pt_figures_included(pdf: dict[str, Any]) -> None:
    # a glyph's size is the height of its box across the line: for a rotated axis label that is the box's width
    sizes = [(round(c["size"] if c["upright"] else c["x1"] - c["x0"], 2), c["text"], n)
             for n, p in enumerate(pdf["pages"], 1) for c in p["chars"]]
    small = [s for s in sizes if s[0] < 7.95]
    assert small == [], f"{pdf['engine']}: text below 8 pt: {small[:10]}"
    # the figures are vector graphics with their text kept as text: their axis labels are found, at >= 8 pt
    text = " ".join(p["text"] for p in pdf["pages"])
    assert "share of records per bin" in text or "proximity ratio" in text, "figure text not found in the PDF"


def test_running_title_with_verdict_and_page_number_on_every_page(pdf: dict[str, Any]) -> None:
    from synthpriv_report.export.render import running_title

    running = running_title(ls.html_report())
    assert "Verdict: HIGH RISK" in running
    n = len(pdf["pages"])
    for i, page in enumerate(pdf["pages"], 1):
        flat = " ".join(page["text"].split())
        assert "Verdict: HIGH RISK" in flat, (pdf["engine"], i)
        assert f"Page {i} of {n}" in flat, (pdf["engine"], i)


def test_contents_give_the_page_of_each_section(pdf: dict[str, Any]) -> None:
    titles = _sections()
    pages = pdf["pages"]
    toc_page = next(p for p in pages if any(line[2] == "Contents" for line in p["lines"]))
    entries = {}
    for _, _, text in toc_page["lines"]:
        m = re.match(r"(.+?)[ .…]*\s(\d+)$", text)
        if m:
            entries[m.group(1).strip()] = int(m.group(2))
    for title in titles:
        assert title in entries, (pdf["engine"], title, entries)
        lines = [line[2] for line in pages[entries[title] - 1]["lines"]]
        assert any(line.startswith(title) for line in lines), (pdf["engine"], title, entries[title], lines[:5])


def _segments(words: list[dict[str, Any]], gap: float = 9.0) -> list[tuple[float, float, float, int]]:
    """The words of one line split where a column gap separates them: ``(x0, x1, top, number of words)``."""
    out: list[tuple[float, float, float, int]] = []
    for w in sorted(words, key=lambda w: w["x0"]):
        if out and w["x0"] - out[-1][1] <= gap:
            x0, _, top, k = out[-1]
            out[-1] = (x0, w["x1"], top, k + 1)
        else:
            out.append((w["x0"], w["x1"], w["top"], 1))
    return out


def test_no_table_column_is_squeezed_to_a_word_or_two_per_line(pdf: dict[str, Any]) -> None:
    # a sentence in a column too narrow for it reads one or two words per line down the page (a level's rule beside
    # a long interval text did); a run of six such lines, one under the other at the same left edge and line
    # spacing with no table rule between them (one cell), fails
    bad = []
    for n, page in enumerate(pdf["pages"], 1):
        upright = [w for w in page["words"] if w.get("upright", True)]  # a figure's turned axis label is not a column
        runs: dict[int, list[float]] = {}  # left edge -> tops of the consecutive short lines there

        def close(x0: int) -> None:
            if len(runs.get(x0, [])) >= 6:
                bad.append((n, x0, len(runs[x0])))
            runs[x0] = []

        for row in _rows(upright):
            for x0, _x1, top, k in _segments(row):
                edge = round(x0)
                run = runs.setdefault(edge, [])
                if run and (top - run[-1] > 13.5 or any(run[-1] < y < top and a - 1 <= x0 <= b
                                                          for y, a, b in page["rules"])):
                    close(edge)  # a new cell (a table's rule between the two lines), or a new paragraph
                if k <= 2:
                    runs[edge].append(top)
                else:
                    close(edge)
        for edge in list(runs):
            close(edge)
    assert bad == [], f"{pdf['engine']}: columns squeezed to a word or two a line (page, left edge, lines): {bad[:10]}"
