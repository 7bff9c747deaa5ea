"""Linear cost on odd shapes: long names and values are shortened for display, so that the layout of the HTML
and PDF does not grow with their length (the full text stays in ``title`` attributes and in the JSON report).

Regression: a 3,000-character column name made the PDF export take 144 s, 14.7 times the same report with a
short name. The test checks the structural cause instead of wall-clock time: the laid-out text of the document
does not grow with the name.
"""

from __future__ import annotations

import html.parser
import io

import numpy as np
import pandas as pd
import pytest
from _support.pdf import pdf_text

from synthpriv_report import Evaluation
from synthpriv_report.export import html_to_pdf, render_html
from synthpriv_report.export.templating import NAME_WIDTH, TEXT_WIDTH, shorten, shorten_text

LONG = 10_000


class _Text(html.parser.HTMLParser):
    """Text nodes of <body> (what a layout engine lays out) and the values of title attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.body = False
        self.skip = 0
        self.text: list[str] = []
        self.titles: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.body = self.body or tag == "body"
        self.skip += tag in ("style", "script")
        self.titles += [v for k, v in attrs if k == "title" and v]

    def handle_endtag(self, tag: str) -> None:
        self.skip -= tag in ("style", "script")

    def handle_data(self, data: str) -> None:
        if self.body and not self.skip:
            self.text.append(data)


def _parse(page: str) -> _Text:
    p = _Text()
    p.feed(page)
    p.close()
    return p


def _report(name: str, value: str) -> str:
    rng = np.random.default_rng(0)

    def frame(n: int) -> pd.DataFrame:
        return pd.DataFrame({name: rng.choice([value, "b", "c"], n), "sex": rng.choice(["F", "M"], n),
                             "age": rng.integers(18, 90, n).astype(float)})

    real = frame(150)
    ev = Evaluation(real, real.copy(), frame(80), key_fields=[name, "sex"], sensitive_fields=["age"],
                    metrics=["dcr", "exact_copies", "holdout_dcr_share", "gcap"], random_state=0, progress=False)
    return render_html(ev, title=name)


@pytest.fixture(scope="module")
def pages() -> dict[str, str]:
    return {"short": _report("c" * 10, "v" * 10), "long": _report("C" * LONG, "V" * LONG),
            "spaced": _report("word " * (LONG // 5), "value " * (LONG // 6))}


@pytest.mark.parametrize("kind", ["long", "spaced"])
def test_laid_out_text_does_not_grow_with_the_name(kind: str, pages: dict[str, str]) -> None:
    short, long = _parse(pages["short"]), _parse(pages[kind])
    n_short, n_long = sum(map(len, short.text)), sum(map(len, long.text))
    # each occurrence grows by at most the display width, whatever the length of the name
    occurrences = pages[kind].count('class="spr-short"')
    assert occurrences >= 3
    assert n_long - n_short <= occurrences * TEXT_WIDTH
    assert n_long < n_short + 0.2 * LONG * occurrences
    assert max(map(len, long.text)) <= TEXT_WIDTH + 10


def test_long_name_is_shown_shortened_and_kept_whole_in_title(pages: dict[str, str]) -> None:
    parsed = _parse(pages["long"])
    body = "".join(parsed.text)
    assert "C" * LONG not in body
    assert "C" * (NAME_WIDTH - 1) + "…" in body
    assert "C" * LONG in parsed.titles
    assert "V" * LONG not in body


def test_pdf_text_holds_the_shortened_name_only(pages: dict[str, str]) -> None:
    from pypdf import PdfReader

    long_pdf = html_to_pdf(pages["long"])
    long = PdfReader(io.BytesIO(long_pdf))
    short = PdfReader(io.BytesIO(html_to_pdf(pages["short"])))
    text = "".join(pdf_text(long_pdf).split())
    assert "C" * 60 in text and "C" * (NAME_WIDTH + 1) not in text
    # the same layout: the long name adds no pages
    assert abs(len(long.pages) - len(short.pages)) <= 1


def test_shorten_cuts_long_words_inside_sentences() -> None:
    sentence = "column " + "x" * 5000 + " is constant"
    out = shorten_text(sentence, TEXT_WIDTH)
    assert out.startswith("column ") and out.endswith(" is constant") and len(out) < 100
    assert 'title="column xxx' in str(shorten(sentence, TEXT_WIDTH))
    assert len(shorten_text("y " * 10_000, TEXT_WIDTH)) == TEXT_WIDTH
