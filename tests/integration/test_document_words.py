"""The document a reader signs: an honest verdict, levels that never contradict, plain words, named inputs.

Each test is a failure a new user met in the report (issue "A compliance document a reader can trust"), checked
in every output where it appeared: the notebook view, the HTML export, the PDF (WeasyPrint, and Chromium where
installed) and the report drawn again from its JSON.
"""

from __future__ import annotations

import html as _html
import re
import shutil

import pytest
from _support.page_text import no_wbr
from _support.pdf import pdf_text

from synthpriv_report import Evaluation, __version__
from synthpriv_report.core.results import ResultSet
from synthpriv_report.datasets import load_demo
from synthpriv_report.display import bundle
from synthpriv_report.export.document import report_data
from synthpriv_report.export.notebook import cover_context
from synthpriv_report.text.wording import DISTINGUISHABILITY_TITLE, SETTING_WORDS

NAMES = {"real": "adult_sample.csv", "synthetic": "generator_output.csv", "holdout": "unseen_people.csv"}

#: Internal references and Python reprs that must never reach a reader.
FORBIDDEN = {
    "section sign": r"§",
    "spec reference": r"(?i)\bspec\b",
    "internal source document": r"(?i)\bseeds?\b",
    "internal rule family": r"review_excess|review_absolute",
    "internal verdict jargon": r"(?i)driving check",
    "unnamed paper": r"(?i)\b(?:review paper|the paper)\b",
    "float repr": r"\b\d+\.0*[1-9]\d{3,}",
    "dict repr": r"\{'|'\}|\{\"",
    "list repr": r"\[\s*'",
    "Python constant": r"\b(?:True|False|None)\b",
    "non-number": r"\b(?:nan|NaN|inf)\b",
}


def _reader_text(page: str) -> str:
    """What a reader sees: the text of the page without styles, scripts, tags and image data."""
    page = re.sub(r"<style.*?</style>|<script.*?</script>", " ", page, flags=re.S)
    page = no_wbr(page)  # a line-break opportunity inside a name, not a space
    return " ".join(_html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def _bad(text: str) -> list[str]:
    return [f"{what}: …{text[max(m.start() - 60, 0):m.end() + 40]}…" for what, pat in FORBIDDEN.items()
            for m in re.finditer(pat, text)]


def _block(page: str, cls: str) -> str:
    """The HTML of the export block ``<div class="spr-export {cls}">`` (up to the next export block)."""
    start = page.index(f'class="spr-export {cls}"')
    nxt = page.find('class="spr-export ', start + 10)
    return page[start:nxt if nxt > 0 else len(page)]


@pytest.fixture(scope="module")
def demo():
    d = load_demo()
    return {"real": d.real.head(300), "holdout": d.holdout.head(150), "synthetic": d.synthetic.head(300),
            "leaky": d.synthetic_leaky.head(300), "keys": list(d.key_fields), "sensitive": list(d.sensitive_fields)}


@pytest.fixture(scope="module")
def leaky_unassessed(demo) -> Evaluation:
    """The issue's case: a leaky generator evaluated with dcr and nndr only (none of the verdict's checks)."""
    return Evaluation(demo["real"], demo["leaky"], demo["holdout"], metrics=["dcr", "nndr"], progress=False,
                      n_bootstrap=50, names=NAMES)


@pytest.fixture(scope="module")
def honest(demo) -> ResultSet:
    """Every metric on the honest demo; D-MLP's thresholds moved so that it is graded high."""
    ev = Evaluation(demo["real"], demo["synthetic"], demo["holdout"], key_fields=demo["keys"],
                    sensitive_fields=demo["sensitive"], progress=False, n_bootstrap=50, names=NAMES)
    return ev.results(levels={"detection_mlp": {"medium": 0.5, "high": 0.52}})


@pytest.fixture(scope="module")
def honest_pages(honest, tmp_path_factory) -> dict[str, str]:
    d = tmp_path_factory.mktemp("honest")
    honest.to_html(d / "r.html")
    honest.to_json(d / "r.json")
    ResultSet.from_json(d / "r.json").to_html(d / "again.html")
    return {"html": (d / "r.html").read_text(encoding="utf-8"),
            "json_html": (d / "again.html").read_text(encoding="utf-8"),
            "view": bundle(honest)["text/html"], "plain": bundle(honest)["text/plain"], "dir": str(d)}


def test_leaky_demo_without_the_verdict_checks_is_not_assessed_in_every_output(leaky_unassessed, tmp_path):
    rs = leaky_unassessed.results()
    assert rs.verdict.level == "not_assessed" and rs.verdict.n_ran == 0
    b = bundle(rs)
    assert "Verdict: NOT ASSESSED" in b["text/plain"] and "not assessed" in b["text/html"]
    rs.to_html(tmp_path / "r.html")
    rs.to_json(tmp_path / "r.json")
    again = ResultSet.from_json(tmp_path / "r.json")
    assert again.verdict.level == "not_assessed"
    again.to_html(tmp_path / "again.html")
    rs.to_pdf(tmp_path / "r.pdf")
    texts = {"html": _reader_text((tmp_path / "r.html").read_text(encoding="utf-8")),
             "json": _reader_text((tmp_path / "again.html").read_text(encoding="utf-8")),
             "pdf": pdf_text(tmp_path / "r.pdf", flat=True)}
    if shutil.which("chromium") is not None:
        rs.to_pdf(tmp_path / "c.pdf", engine="chromium")
        texts["chromium pdf"] = pdf_text(tmp_path / "c.pdf", flat=True)
    for where, text in texts.items():
        assert "Verdict: NOT ASSESSED" in text, where
        assert "LOW RISK" not in text and "HIGH RISK" not in text, where
        assert "this is not a finding of low risk" in text, where
        # every check behind the verdict is listed with the reason it did not run
        titles = ("Exact copies", "Closer to the training data than to the holdout", "Proximity-ratio privacy score")
        for title in titles:
            assert f"{title}: not requested in this evaluation" in text, (where, title)


def _without_code(page: str) -> str:
    """The page without the reproducibility block's command and Python call, which are code on purpose."""
    return re.sub(r'<code class="spr-cmd">.*?</code>', " ", page, flags=re.S)


def test_no_internal_reference_or_python_repr_reaches_a_reader(honest_pages, honest, tmp_path):
    honest.to_pdf(tmp_path / "r.pdf")
    texts = {"html export": _reader_text(_without_code(honest_pages["html"])),
             "html from json": _reader_text(_without_code(honest_pages["json_html"])),
             "notebook view": _reader_text(honest_pages["view"]),
             "notebook text": honest_pages["plain"],
             # the Python call of the reproducibility block is code on purpose (up to the next row, "Made")
             "pdf": re.sub(r"Python call Evaluation\(.*? Made ", " ", pdf_text(tmp_path / "r.pdf", flat=True))}
    for where, text in texts.items():
        assert not _bad(text), (where, _bad(text)[:5])


def test_first_page_names_the_inputs_and_states_every_setting_in_words(honest, honest_pages):
    # issue 28: the data sets and the settings table moved from the first page to the labelled technical annex
    cover = _reader_text(_block(honest_pages["html"], "spr-annex"))
    for name in NAMES.values():
        assert name in cover
    for s in honest.meta["sets"]:
        assert s["fingerprint"] in cover and f"{s['rows']:,}" in cover
    assert "SHA-256" in cover and "fingerprint" in cover.lower()
    assert "age, sex, race, marital-status; given by the user" in cover and "income" in cover
    assert f"synthpriv_report {__version__}" in cover
    for key in honest.meta["settings"]:
        if key in SETTING_WORDS and key not in ("key_fields", "sensitive_fields", "key_fields_chosen", "excluded"):
            assert SETTING_WORDS[key] in cover, key
    # the same from the JSON report
    # (the fingerprint's algorithm once; the cover also shows the JSON report's own SHA-256 digest)
    assert _reader_text(_block(honest_pages["json_html"], "spr-annex")).count("Fingerprint: SHA-256") == 1


def test_first_page_says_what_each_check_found_in_one_sentence(honest):
    ctx = cover_context(report_data(honest))
    v = ctx["verdict"]
    assert v["lead"].startswith("The verdict rests on all 7 checks behind it")
    # how often the verdict is wrong, from the calibration harness's figures, on the first page
    assert "graded medium or high in 9 of 860 draws" in v["reliability"]
    assert "graded high in all 480 draws" in v["reliability"]
    assert [c["name"] for c in v["checks"]] == [n for n, _ in honest.verdict.checks]
    for c in v["checks"]:
        assert c["sentence"].count(". ") == 0 and c["sentence"].endswith(".")  # one sentence
        assert re.search(r"\d", c["sentence"]), c  # with its number


def test_dmlp_graded_high_appears_only_among_the_distinguishability_measures(honest, honest_pages):
    assert honest["detection_mlp"].level == "high" and honest.verdict.level != "high"
    for page in (honest_pages["html"], honest_pages["json_html"]):
        summary = no_wbr(_block(page, "spr-summary"))  # names break after underscores
        checks = summary[:summary.index(DISTINGUISHABILITY_TITLE)]
        assert "detection_mlp" not in checks and "D-MLP" not in _block(page, "spr-cover")
        dist = summary[summary.index(DISTINGUISHABILITY_TITLE):]
        row = dist[dist.index("detection_mlp"):]
        row = row[:row.index("</tr>")]
        # issue 28: a distinguishability measure reads as how easily the sets are told apart, never as a risk
        assert "easy to tell apart" in row and "high risk" not in row and "Does not drive the verdict" in row
        assert "Distinguishability is not leakage" in dist and "0.5" in row  # ideal value beside it
    # the tables of the view (the overview figure's alt text lists every measure, in the figure's own order)
    view = re.sub(r"<img[^>]*>", "", no_wbr(honest_pages["view"]))
    dist = view[view.index(DISTINGUISHABILITY_TITLE):]
    assert "detection_mlp" in dist and "Does not drive the verdict" in dist
    assert "detection_mlp" not in view[:view.index(DISTINGUISHABILITY_TITLE)]


def test_a_level_graded_on_another_quantity_shows_it_beside_the_value(honest, honest_pages):
    mir = honest["mir"]
    assert mir.level_rule.scale.startswith("the membership advantage") and mir.level_rule.graded is not None
    assert abs(mir.level_rule.graded - mir.details["membership_advantage"]) < 1e-12
    for page in (honest_pages["html"], honest_pages["json_html"], honest_pages["view"]):
        text = _reader_text(page)
        assert "Graded on the membership advantage" in text
        for name in ("dcr_test", "nndr_test"):
            assert "Graded on the lower confidence bound of D, the drop from the holdout" in text, name
        assert "(D itself is " in text  # the bound and D are never both called D


def test_intervals_are_labelled_by_kind_in_the_summary(honest_pages):
    summary = _reader_text(_block(honest_pages["html"], "spr-summary"))
    assert "Wilson 95%" in summary and "min-max over the 5 fold AUCs" in summary and "bootstrap 95%" in summary
    assert "95% interval" not in summary


#: The set letters of the metric definitions' formulas (training, synthetic, holdout data, the halves of the real
#: data): a reader who never saw those formulas does not know them, so a measure's own words use none of them.
SET_NOTATION = r"\b(?:T|S|H|R1|R2|t\*)(?![\w'])|\bS'"


def test_every_measure_is_described_in_words_without_set_notation_or_an_unnamed_paper():
    from dataclasses import asdict

    from synthpriv_report.core.registry import get_spec, metric_names

    for name in metric_names():
        spec = get_spec(name)
        texts = {"title": spec.title, "summary": spec.summary, "definition": spec.definition,
                 **({f"words.{k}": v for k, v in asdict(spec.words).items()} if spec.words else {})}
        for field, text in texts.items():
            assert not re.search(SET_NOTATION, text or ""), (name, field, text)
            assert not _bad(text or ""), (name, field, _bad(text or ""))
