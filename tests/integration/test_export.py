"""Tests of the compliance export (synthpriv_report/export/) and the synthpriv nbconvert template.

PDF checks use poppler (pdftotext, pdfinfo, pdftoppm) and skip with a message when a binary is missing. The
template check runs ``jupyter nbconvert --template synthpriv`` with the checkout's ``templates/`` folder passed as
``--TemplateExporter.extra_template_basedirs`` (an editable install also copies it to
``share/jupyter/nbconvert/templates/synthpriv``, but that copy can be stale while developing).
"""

from __future__ import annotations

import html.parser
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest
from _support.page_text import no_wbr
from _support.paths import ROOT
from _support.pdf import pdf_text

from synthpriv_report import Evaluation
from synthpriv_report.core.registry import metric_names
from synthpriv_report.datasets import load_demo
from synthpriv_report.export import (
    SCHEMA,
    LoadedReport,
    build_notebook,
    from_json,
    render_html,
    report_data,
    template_basedirs,
    to_json,
)

SECRET_CAT = "ZZ_PLANTED_SECRET"
SECRET_NUM = 987654321
# cheap metrics of every group; the appendix lists the other registered metrics as "not selected"
FAST_METRICS = ["dcr", "exact_copies", "holdout_dcr_share", "privacy_score", "nndr", "dcr_test", "nndr_test",
                "zcap", "crp", "hidden_rate"]


def _need(binary: str) -> None:
    if shutil.which(binary) is None:
        pytest.skip(f"{binary} not installed (poppler-utils / chromium needed for this check)")


@pytest.fixture(scope="module")
def ev() -> Evaluation:
    """Small demo evaluation with a planted category and a planted number that occur only in the real data."""
    demo = load_demo()
    real = demo.real.iloc[:300].copy()
    real.loc[5, "native-country"] = SECRET_CAT
    real.loc[7, "fnlwgt"] = SECRET_NUM
    e = Evaluation(real, demo.synthetic_leaky.iloc[:300], demo.holdout.iloc[:150], key_fields=demo.key_fields,
                   sensitive_fields=demo.sensitive_fields, metrics=[m for m in FAST_METRICS if m in metric_names()],
                   progress=False)
    e.results()
    return e


@pytest.fixture(scope="module")
def html_text(ev: Evaluation, tmp_path_factory: pytest.TempPathFactory) -> str:
    path = ev.to_html(tmp_path_factory.mktemp("html") / "report.html")
    return Path(path).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def pdf_path(ev: Evaluation, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return Path(ev.to_pdf(tmp_path_factory.mktemp("pdf") / "report.pdf"))


class _Collector(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_html_parses_and_names_every_registered_metric(html_text: str) -> None:
    parser = _Collector()
    parser.feed(no_wbr(html_text))  # names carry line-break opportunities after their underscores
    parser.close()
    text = " ".join(parser.text)
    assert any(tag == "html" for tag, _ in parser.tags)
    for name in metric_names():
        assert name in text, name
    for word in ("Verdict", "Methods", "Annex", "Fingerprint", "Settings"):
        assert word in text


def test_html_is_self_contained(html_text: str) -> None:
    parser = _Collector()
    parser.feed(html_text)
    for tag, attrs in parser.tags:
        if tag == "script":
            assert "src" not in attrs, attrs
        if tag == "link":
            assert not str(attrs.get("href", "")).startswith(("http", "//")), attrs
        if tag == "img":
            assert str(attrs.get("src", "")).startswith("data:image/"), attrs
    assert "@import" not in html_text
    assert "cdnjs" not in html_text and "cdn.jsdelivr" not in html_text and "unpkg.com" not in html_text
    assert "fonts.googleapis" not in html_text
    # code cells and prompts are hidden
    assert 'ev["dcr"]' not in html_text and "In&nbsp;[" not in html_text


def test_html_has_print_css_a4_and_page_numbers(html_text: str) -> None:
    assert "size: A4" in html_text
    assert 'counter(page)' in html_text and 'counter(pages)' in html_text


def test_pdf_pages_metric_names_page_numbers(pdf_path: Path) -> None:
    text = pdf_text(pdf_path)
    from pypdf import PdfReader

    reader = PdfReader(str(pdf_path))
    n_pages = len(reader.pages)
    assert n_pages >= 4
    box = reader.pages[0].mediabox  # A4 = 595 x 842 points
    assert abs(float(box.width) - 595.3) < 2 and abs(float(box.height) - 841.9) < 2
    flat = " ".join(text.split())
    joined = flat.replace("_ ", "_")  # a name may wrap at the line-break opportunity after an underscore
    for name in metric_names():
        assert name in joined, name
    assert f"Page 1 of {n_pages}" in flat and f"Page {n_pages} of {n_pages}" in flat


def test_pdf_no_page_holds_only_a_heading(pdf_path: Path) -> None:
    """Every page has a body, and the summary table starts on the page of its heading (JupyterLab lays an output
    out as an unbreakable one-row table; a summary longer than the rest of a page left "Summary" alone on a page)."""
    pages = pdf_text(pdf_path).split("\f")
    pages = [p for p in pages if p.strip()]
    for i, page in enumerate(pages, start=1):
        body = [line for line in page.splitlines() if line.strip() and "privacy report" not in line]
        assert len(body) >= 3, f"page {i} holds only {body!r}"
    # the page whose line is the heading "Summary" alone (the contents and the running title come first)
    summary = next(p for p in pages if re.search(r"^\s*Summary\s*$", p, flags=re.M))
    assert "Wilson 95%" in summary and "dcr" in summary


def test_pdf_page_is_not_blank(pdf_path: Path, tmp_path: Path) -> None:
    _need("pdftoppm")
    from PIL import Image

    subprocess.run(["pdftoppm", "-png", "-r", "40", "-f", "1", "-l", "1", str(pdf_path), str(tmp_path / "p")],
                   check=True)
    png = next(tmp_path.glob("p*.png"))
    pixels = np.asarray(Image.open(png).convert("L"), dtype=float)
    assert pixels.std() > 5.0


def test_no_real_value_leaks_into_html_pdf_json(ev: Evaluation, html_text: str, pdf_path: Path,
                                                tmp_path: Path) -> None:
    js = Path(ev.to_json(tmp_path / "r.json")).read_text(encoding="utf-8")
    pdf = pdf_text(pdf_path)
    for doc in (html_text, js, pdf):
        assert SECRET_CAT not in doc
        assert str(SECRET_NUM) not in doc and f"{SECRET_NUM:,}" not in doc and "9.877e+08" not in doc


def test_report_sentences_are_not_rewritten(tmp_path: Path) -> None:
    """Regression: a real-only category "train" turned "holdout to train" into "holdout to [real value withheld]".

    Masking happens where the metrics produce their results; the export never rewrites a finished sentence.
    """
    import pandas as pd

    from synthpriv_report.core.results import ResultSet

    real = pd.DataFrame({"split": ["train"] * 20 + ["a"] * 20, "x": np.arange(40.0)})
    syn = pd.DataFrame({"split": ["a"] * 40, "x": np.arange(40.0) + 0.5})
    e = Evaluation(real, syn, progress=False, metrics=["exact_copies", "dcr"], calibrate=False)
    rs = e.results()
    doc = report_data(e).document
    assert doc["verdict"]["reasons"] == list(rs.verdict.reasons)
    for name, r in rs.items():
        assert doc["metrics"][name]["notes"] == list(r.notes)
    from dataclasses import replace

    sentence = "distances from holdout to train records"
    edited = ResultSet({**dict(rs), "dcr": replace(rs["dcr"], notes=(sentence,))}, rs.verdict, rs.params)
    assert to_json(edited)["metrics"]["dcr"]["notes"] == [sentence]
    assert sentence in render_html(edited)


def test_html_has_a_script_free_csp_and_no_markdown_cells(ev: Evaluation, html_text: str) -> None:
    head = html_text[:html_text.index("</head>")]
    assert "Content-Security-Policy" in head[:300] and "default-src 'none'" in head
    assert "<script" not in html_text
    nb = build_notebook(report_data(ev))
    assert all(c.cell_type == "code" for c in nb.cells)


def test_library_writers_are_atomic(ev: Evaluation, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from synthpriv_report.export import render

    target = tmp_path / "r.html"
    target.write_text("previous")

    def boom(*a: object, **k: object) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(render, "render_html", boom)
    with pytest.raises(KeyboardInterrupt):
        render.to_html(ev, target)
    with pytest.raises(KeyboardInterrupt):
        render.to_pdf(ev, tmp_path / "r.pdf")
    assert target.read_text() == "previous" and sorted(p.name for p in tmp_path.iterdir()) == ["r.html"]


def test_reveal_real_values_keeps_levels(ev: Evaluation) -> None:
    data = report_data(ev, reveal_real_values=True)
    assert data.revealed
    assert report_data(ev).revealed is False


def test_json_schema_and_round_trip(ev: Evaluation, tmp_path: Path) -> None:
    path = ev.to_json(tmp_path / "r.json")
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    assert doc["schema"] == SCHEMA
    for key in ("created", "generator", "verdict", "params", "metrics", "settings", "fingerprints", "versions",
                "registered_metrics"):
        assert key in doc
    assert doc["fingerprints"] == ev.fingerprints
    assert doc["versions"]["numpy"] == np.__version__
    m = doc["metrics"]["exact_copies"]
    for key in ("value", "interval", "direction", "level", "details"):
        assert key in m
    loaded = from_json(path)
    assert isinstance(loaded, LoadedReport)
    rs = ev.results()
    assert loaded.verdict.level == rs.verdict.level
    for name, r in rs.items():
        assert loaded[name].computed == r.computed
        if r.computed:
            assert loaded[name].value == pytest.approx(r.value)
            assert loaded[name].level == r.level
    # a re-export of the loaded report is the same document
    assert loaded.to_json()["metrics"] == doc["metrics"]
    assert ev.to_json()["schema"] == SCHEMA  # no path: returns the dict


def test_loaded_report_rerenders_without_data(ev: Evaluation, tmp_path: Path) -> None:
    loaded = from_json(ev.to_json(tmp_path / "r.json"))
    html_path = loaded.to_html(tmp_path / "again.html")
    text = no_wbr(Path(html_path).read_text(encoding="utf-8"))
    assert "drawn again from a saved JSON report" in text
    for name in metric_names():
        assert name in text
    assert SECRET_CAT not in text


def test_from_json_rejects_other_documents(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text(json.dumps({"schema": "other/9"}))
    with pytest.raises(ValueError, match="schema"):
        from_json(path)


def test_notebook_outputs_are_display_bundles(ev: Evaluation) -> None:
    nb = build_notebook(report_data(ev))
    nbformat.validate(nb)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert outputs and all(o.output_type == "display_data" for o in outputs)
    assert all("text/plain" in o.data and "text/html" in o.data for o in outputs)
    assert all(c.get("execution_count") is None for c in nb.cells if c.cell_type == "code")


def test_export_does_not_search_again(ev: Evaluation) -> None:
    before = ev.search_count
    render_html(ev)
    assert ev.search_count == before


def test_template_found_in_checkout() -> None:
    dirs = template_basedirs()
    assert any((Path(d) / "synthpriv" / "index.html.j2").is_file() for d in dirs)


def test_nbconvert_cli_with_synthpriv_template(ev: Evaluation, tmp_path: Path) -> None:
    nb = build_notebook(report_data(ev))
    nb.cells.insert(0, nbformat.v4.new_code_cell("print('hidden code')"))
    src = tmp_path / "my_analysis.ipynb"
    nbformat.write(nb, src)
    cmd = [sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", "--template", "synthpriv",
           f"--TemplateExporter.extra_template_basedirs={ROOT / 'templates'}", str(src)]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr
    out = no_wbr((tmp_path / "my_analysis.html").read_text(encoding="utf-8"))
    assert "<script src=" not in out and "size: A4" in out and "print(&#39;hidden code&#39;)" not in out
    assert "exact_copies" in out


def test_chromium_engine(ev: Evaluation, tmp_path: Path) -> None:
    _need("chromium")
    pytest.importorskip("playwright")
    path = ev.to_pdf(tmp_path / "c.pdf", engine="chromium")
    flat = pdf_text(path, flat=True)
    assert "exact_copies" in flat and "Page 1 of" in flat


def test_unknown_engine(ev: Evaluation, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="engine"):
        ev.to_pdf(tmp_path / "x.pdf", engine="latex")


def test_measures_sharing_a_rule_share_one_appendix_row(ev: Evaluation, html_text: str) -> None:
    """The appendix prints each rule once: the Closest-record and Distance-ratio tests (one rule, one source)
    share a row; every measure with a level appears in exactly one row."""
    page = no_wbr(html_text)
    table = re.search(r'<table class="spr-summary-table spr-rules">(.*?)</table>', page, re.S).group(1)
    body = table.split("<tbody>", 1)[1]
    rows = [re.findall(r"<code>([^<]+)</code>", row) for row in body.split("<tr>")[1:]]
    rated = [m for m, r in ev.results().items() if r.computed and r.level is not None]
    listed = [name for row in rows for name in row]
    assert sorted(listed) == sorted(rated) and len(set(listed)) == len(listed)
    assert ["dcr_test", "nndr_test"] in rows
    assert len(rows) < len(rated)


def test_no_declared_title_is_cut_in_a_report() -> None:
    """A metric's title is shown whole: every declared title fits the titles' display width, and the longest ones
    (the classifier recall's disclaimer "not a membership-inference test", the attacks') reach the page whole."""
    from synthpriv_report.core.registry import REGISTRY
    from synthpriv_report.text.templating import TITLE_WIDTH

    assert all(len(spec.title) <= TITLE_WIDTH for spec in REGISTRY.values())
    longest = sorted(REGISTRY.values(), key=lambda s: len(s.title))[-3:]
    assert max(len(s.title) for s in longest) > 80  # wider than a name: the case that was cut
    demo = load_demo()
    e = Evaluation(demo.real.iloc[:120], demo.synthetic.iloc[:120], demo.holdout.iloc[:100], progress=False,
                   metrics=[s.name for s in longest])
    text = no_wbr(render_html(e.results()))
    for spec in longest:
        assert html.escape(spec.title, quote=False) in text, spec.title
