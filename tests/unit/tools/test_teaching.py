"""For the lecturer (synthpriv_report.tools.teaching): slides, the worksheet, the quiz and the Colab copy."""

from __future__ import annotations

import copy
import html as html_lib
import io
import json
import math
import re
from pathlib import Path

import pytest
from _support.paths import ROOT

from synthpriv_report import Evaluation
from synthpriv_report.datasets import load_demo
from synthpriv_report.export.render import CSP
from synthpriv_report.tools import teaching

LAB = ROOT / "notebooks" / "02_teaching_the_metrics.ipynb"
METRICS = ["dcr", "holdout_dcr_share"]
HOSTILE = "../x<y>"


@pytest.fixture(scope="module")
def evaluations() -> dict[str, Evaluation]:
    demo = load_demo()
    out = {label: Evaluation(demo.real.head(300), S.head(300), demo.holdout.head(300), metrics=METRICS,
                             progress=False, n_bootstrap=20, random_state=0)
           for label, S in (("honest", demo.synthetic), (HOSTILE, demo.synthetic_leaky))}
    for ev in out.values():
        ev.results()
    return out


@pytest.fixture(scope="module")
def png_slides(evaluations, tmp_path_factory) -> list[Path]:
    return teaching.slides(evaluations, tmp_path_factory.mktemp("slides"))


# ---------------------------------------------------------------------------------------------------------------
# slides


@pytest.mark.slow  # about 3 s
def test_png_slides_are_16_9_at_200_dpi_one_per_figure_with_generators_side_by_side(png_slides) -> None:
    from PIL import Image

    assert [p.name for p in png_slides] == ["01-dcr.png", "02-holdout_dcr_share.png"]
    for p in png_slides:
        with Image.open(p) as im:
            w, h = im.size
            assert im.info.get("dpi", (200, 200))[0] == pytest.approx(200, abs=0.5)
        assert h == 1500 and abs(w - 13.333 * 200) < 1
        assert w / h == pytest.approx(16 / 9, rel=1e-3)


@pytest.mark.slow  # about half a second
def test_svg_slides_declare_16_9_and_each_generator_has_its_file_inside_the_folder(evaluations, tmp_path) -> None:
    out = tmp_path / "svg"
    paths = teaching.slides(evaluations, out, fmt="svg", layout="each", metrics=["holdout_dcr_share"])
    assert [p.name for p in paths] == ["01-holdout_dcr_share--honest.svg", "02-holdout_dcr_share--x-y.svg"]
    assert sorted(x.name for x in tmp_path.rglob("*") if x.is_file()) == sorted(p.name for p in paths)
    for p in paths:
        assert p.resolve().parent == out.resolve()
        head = p.read_text()[:600]
        width = float(re.search(r'width="([\d.]+)pt"', head).group(1))
        height = float(re.search(r'height="([\d.]+)pt"', head).group(1))
        assert width == pytest.approx(13.333 * 72, abs=0.1) and height == pytest.approx(7.5 * 72)
    # the label is drawn as text in the panel's title (escaped by the SVG writer, never markup)
    assert "../x&lt;y&gt;: " in paths[1].read_text()


@pytest.mark.slow  # about a second
def test_slide_fonts_are_raised_for_a_projector(evaluations) -> None:
    results = {label: ev.results()["dcr"] for label, ev in evaluations.items()}
    fig = teaching.slide_figure(results)
    fig.canvas.draw()
    assert fig.get_size_inches() == pytest.approx((13.333, 7.5))
    titles = [ax.title for ax in fig.axes if ax.get_title()]
    assert titles and all(t.get_fontsize() >= 20 for t in titles)
    assert titles[0].get_text().startswith("honest: ") and "../x<y>: " in titles[2].get_text()
    ticks = [t for ax in fig.axes for t in (*ax.get_xticklabels(), *ax.get_yticklabels()) if t.get_text()]
    assert ticks and all(t.get_fontsize() >= 14 for t in ticks)
    others = [t for ax in fig.axes for t in (ax.xaxis.label, ax.yaxis.label) if t.get_text()]
    others += [t for ax in fig.axes if ax.get_legend() for t in ax.get_legend().get_texts()]
    assert others and all(t.get_fontsize() >= 14 for t in others)


@pytest.mark.slow  # about 4 s
def test_slides_are_the_same_bytes_every_time(evaluations, png_slides, tmp_path) -> None:
    again = teaching.slides(evaluations, tmp_path)
    assert [p.read_bytes() for p in again] == [p.read_bytes() for p in png_slides]
    one_metric = {label: ev.results()["holdout_dcr_share"] for label, ev in evaluations.items()}  # side_by_side's
    same = teaching.slides(one_metric, tmp_path / "one")
    assert [p.read_bytes() for p in same] == [png_slides[1].read_bytes()]
    svg = [teaching.slides(evaluations, tmp_path / f"s{i}", fmt="svg", metrics=["holdout_dcr_share"])[0]
           for i in range(2)]
    assert svg[0].read_bytes() == svg[1].read_bytes()


@pytest.mark.slow  # about a second
def test_unsafe_labels_become_safe_names_and_a_folder_that_is_a_file_is_refused(evaluations, tmp_path) -> None:
    assert teaching.safe_name("../x<y>") == "x-y"
    assert teaching.safe_name("..") == "figure" and teaching.safe_name("a/b\\c:d") == "a-b-c-d"
    assert "/" not in teaching.safe_name("/etc/passwd") and "." not in teaching.safe_name("x.png")
    rs = evaluations["honest"].results()
    clash = teaching.slides({"a/b": rs, "a<b": rs}, tmp_path / "c", layout="each", metrics=["holdout_dcr_share"])
    assert [p.name for p in clash] == ["01-holdout_dcr_share--a-b.png", "02-holdout_dcr_share--a-b-2.png"]
    target = tmp_path / "a-file"
    target.write_text("keep")
    with pytest.raises(ValueError, match="is a file"):
        teaching.slides(rs, target)
    assert target.read_text() == "keep"
    with pytest.raises(ValueError, match="not among the results"):
        teaching.slides(rs, tmp_path / "d", metrics=["no_such_metric"])
    assert not list(tmp_path.parent.glob("*.png"))  # nothing written beside the folder


# ---------------------------------------------------------------------------------------------------------------
# the worksheet


def _pdf_text(path: Path) -> str:
    from pypdf import PdfReader

    return "\n".join(page.extract_text() or "" for page in PdfReader(str(path)).pages)


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _exercise_questions(nb: dict) -> list[str]:
    """The opening words of each exercise's question (Markdown markers dropped)."""
    out = []
    for cell in nb["cells"]:
        src = "".join(cell["source"])
        for m in re.finditer(r"\*\*Exercise (\d+)[^*]*\*\*\s*(.{0,60})", src, re.S):
            out.append(_squash(re.sub(r"[*`]", "", m.group(2)))[:40])
    return out


@pytest.fixture(scope="module")
def lab_worksheet(tmp_path_factory) -> Path:
    return teaching.worksheet(LAB, tmp_path_factory.mktemp("ws") / "lab.pdf")


@pytest.mark.slow  # about 1 s
def test_the_lab_worksheet_keeps_every_exercise_and_no_solution(lab_worksheet) -> None:
    nb = json.loads(LAB.read_text(encoding="utf-8"))
    text = _squash(_pdf_text(lab_worksheet))
    questions = _exercise_questions(nb)
    assert len(questions) == 8
    for i, q in enumerate(questions, 1):
        assert f"Exercise {i}" in text
        assert _squash(q) in text, q
    # no solution's summary line: the one "Solution" left is the lab's own "how to use it" prose
    assert text.count("Solution") == 1 and "(click Solution)" in text
    # known solution sentences (from the <details> blocks) and the hidden solution cells' code
    assert "a 17-year-old widow" not in text and "Far is safe" not in text
    assert "The leaky score rises" not in text and "honest_ratio" not in text
    assert text.count("Your answer") == len(questions)
    assert "Does this synthetic data leak its training records?" in text
    assert "<!--" not in text and "local only" not in text


@pytest.mark.slow  # over half a second
def test_the_worksheet_page_forbids_script_and_shows_markdown_as_text(tmp_path) -> None:
    nb = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": "# A lab\n\nIntro with **bold**, *italic* and `code`."},
        {"cell_type": "markdown", "metadata": {}, "source": [
            "**Exercise 1.** Why <script>alert('x')</script> and <img src=x onerror=alert(1)>?\n",
            "\n", "<details><summary>Solution</summary>\n\nBecause SECRET ANSWER.\n</details>\n"]},
        {"cell_type": "code", "metadata": {"tags": ["solution"]}, "source": "print('SECRET CODE')",
         "outputs": [], "execution_count": None},
        {"cell_type": "code", "metadata": {"jupyter": {"source_hidden": True}}, "source": "HIDDEN = 1",
         "outputs": [], "execution_count": None},
        {"cell_type": "markdown", "metadata": {}, "source": "## Next\n\n- a [link](javascript:alert(1))\n- b"},
    ]}
    page = teaching.worksheet_html(nb)
    assert f'<meta http-equiv="Content-Security-Policy" content="{CSP}">' in html_lib.unescape(page)
    assert "default-src 'none'" in CSP and "script-src" not in CSP
    assert "<script" not in page and "<img" not in page
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "<strong>bold</strong>" in page and "<em>italic</em>" in page and "<code>code</code>" in page
    assert "<a " not in page and "SECRET" not in page and "HIDDEN" not in page
    assert page.count('class="spr-answer"') == 1
    pdf = teaching.worksheet(nb, tmp_path / "w.pdf", title="Worksheet <1>")
    text = _squash(_pdf_text(pdf))
    assert "<script>alert('x')</script>" in text and "<img src=x onerror=alert(1)>" in text
    assert "Worksheet <1>" in text and "SECRET" not in text and "Solution" not in text


@pytest.mark.slow  # renders a PDF worksheet: about a second
def test_a_worksheet_paragraph_is_not_broken_after_its_first_word(tmp_path) -> None:
    """With kerning on, or code spans much smaller than the text, WeasyPrint broke these lines after their first
    words, leaving most of the line empty."""
    nb = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": [
        "A number computed from 3,000 records would come out a little different from another 3,000. A **95% "
        "confidence interval** gives the range.\n\n",
        "- Wilson, E. B. (1927). Probable inference, the law of succession, and statistical inference. *JASA* 22, "
        "209–212\n  (the intervals of the shares).\n",
        "- **Membership** (`mia_distance_ratio`, `mia_worst_case`): whether the synthetic data give away *who was "
        "in* the training set. The attacker holds the synthetic data and other real records of the same population "
        "(half of the holdout, the *reference*)."]}]}
    lines = [line.strip() for line in _pdf_text(teaching.worksheet(nb, tmp_path / "w.pdf")).splitlines()]
    assert not {"A", "• Wilson,", "Wilson,"} & set(lines), lines
    assert not any(line.endswith("mia_worst_case):") for line in lines), lines


def test_the_worksheet_refuses_to_write_over_its_notebook(tmp_path) -> None:
    nb = tmp_path / "lab.ipynb"
    nb.write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    with pytest.raises(ValueError, match="input"):
        teaching.worksheet(nb, nb)


def test_markdown_blocks_read_only_a_small_safe_subset() -> None:
    blocks = teaching.markdown_blocks("### H *i*\n\npara\nline two\n\n- one\n  more\n- two\n\n| a | b |\n|---|---|\n"
                                      "| 1 | 2 |\n\n#### deep\n\nx\\*y")
    assert [b["kind"] for b in blocks] == ["heading", "paragraph", "list", "table", "paragraph", "paragraph"]
    assert blocks[0]["level"] == 3 and blocks[0]["spans"] == [("text", "H "), ("em", [("text", "i")])]
    assert blocks[1]["spans"] == [("text", "para line two")]
    assert [it["spans"] for it in blocks[2]["items"]] == [[("text", "one more")], [("text", "two")]]
    assert blocks[3]["text"] == "a  b\n1  2"
    assert blocks[4]["spans"] == [("text", "#### deep")] and blocks[5]["spans"] == [("text", "x*y")]
    assert teaching.inline_spans("**`<b>`**") == [("strong", [("code", "<b>")])]


# ---------------------------------------------------------------------------------------------------------------
# the quiz


def test_quiz_checks_answers_in_the_kernel_gives_feedback_and_a_score() -> None:
    q = teaching.quiz([{"prompt": "Pick b", "options": ["a", "b"], "answer": 1, "hint": "it is the second"},
                       {"prompt": "e to 2 decimals", "answer": 2.72, "tolerance": 0.01, "hint": "e ≈ 2.718"}])
    assert q.check(0, 0) == "not quite: it is the second" and q.right == 0
    assert "not quite: it is the second" in q.feedbacks[0].value and "Score: 0 / 2" in q.score.value
    q.inputs[0].value = 1
    q.buttons[0].click()  # the button checks what the control holds
    assert "right" in q.feedbacks[0].value and q.right == 1
    assert q.check(1, 2.7183) == "right" and q.right == 2 and "Score: 2 / 2" in q.score.value
    assert q.check(1, 3.0) == "not quite: e ≈ 2.718" and q.right == 1
    assert teaching.Quiz([teaching.Question("x?", ("y", "z"), 0)]).check(0) == "choose an answer first"
    with pytest.raises(ValueError, match="index"):
        teaching.Question("x?", ("y",), answer=3)


def test_quiz_strings_are_shown_as_text() -> None:
    evil = "<img src=x onerror=alert(1)>"
    q = teaching.quiz([{"prompt": evil, "options": [evil, "b"], "answer": 1, "hint": evil}])
    html = q.widget.children[0].children[0].value
    assert "<img" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert q.inputs[0]._options_labels[0] == evil  # a radio button's label is plain text, never markup
    q.check(0, 0)
    assert "<img" not in q.feedbacks[0].value and "&lt;img" in q.feedbacks[0].value


def test_the_lab_quiz_asks_five_questions_whose_answers_the_lab_gives() -> None:
    text = " ".join("".join(c["source"]) for c in json.loads(LAB.read_text(encoding="utf-8"))["cells"])
    quiz = teaching.LAB_QUIZ
    assert len(quiz) == 5 and all(q.hint for q in quiz)
    # the right options say what the lab says
    assert "yardstick" in text and "never saw" in quiz[0].options[quiz[0].answer]
    assert "one-sided and stricter" in text and "stricter one-sided" in quiz[1].options[quiz[1].answer]
    assert "0% exact copies and still leave" in text and "near" in quiz[2].options[quiz[2].answer]
    assert "wrongly accusing 1% of real people" in text
    assert "wrongly accusing 1%" in quiz[3].options[quiz[3].answer]
    assert "e^1 ≈ 2.7" in text and quiz[4].numeric and quiz[4].is_right(math.e) and quiz[4].is_right(2.7)
    assert not quiz[4].is_right(1.0) and not quiz[4].is_right(100 / math.e)
    w = teaching.quiz(teaching.LAB_QUIZ)
    for i, q in enumerate(quiz):
        assert w.check(i, q.answer if not q.numeric else 2.72) == "right"
    assert w.right == 5
    assert w.check(4, "2,7 %") == "right" and w.check(4, "") == "choose an answer first"
    assert w.check(4, "many").startswith("not quite: ") and w.right == 4


# ---------------------------------------------------------------------------------------------------------------
# Colab


def test_colab_copy_installs_from_the_index_below_the_title_with_outputs_cleared(tmp_path) -> None:
    nb = {"cells": [{"cell_type": "markdown", "source": "# The lab\n\nIntro.", "metadata": {}},
                    {"cell_type": "code", "source": "x = 1", "outputs": [{"output_type": "stream", "name": "stdout",
                                                                          "text": "1"}],
                     "execution_count": 3, "metadata": {}}],
          "metadata": {"kernelspec": {"name": "python", "display_name": "Python (Pyodide)", "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    src = tmp_path / "lab.ipynb"
    src.write_text(json.dumps(nb))
    before = src.read_bytes()
    out = json.loads(teaching.colab_notebook(src, tmp_path / "colab.ipynb").read_text(encoding="utf-8"))
    assert src.read_bytes() == before  # the input is left alone
    assert out["metadata"]["kernelspec"]["name"] == "python3"
    assert out["cells"][0]["source"].startswith("# The lab")
    install = out["cells"][1]
    assert install["cell_type"] == "code" and "".join(install["source"]).endswith("%pip install -q synthpriv-report")
    assert install["outputs"] == [] and install["execution_count"] is None
    assert out["cells"][2]["source"] == "x = 1" and out["cells"][2]["outputs"] == []
    assert out["cells"][2]["execution_count"] is None
    with pytest.raises(ValueError, match="input"):
        teaching.colab_notebook(src, src)


def test_colab_copy_of_the_lab(tmp_path) -> None:
    import nbformat

    before = LAB.read_bytes()
    out = teaching.colab_notebook(LAB, tmp_path / "lab_colab.ipynb")
    assert LAB.read_bytes() == before
    nb = nbformat.read(io.StringIO(out.read_text(encoding="utf-8")), as_version=4)
    nbformat.validate(nb)
    first_code = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code")
    assert first_code == 1 and nb.cells[0].source.startswith("# Does this synthetic data leak")
    assert nb.cells[1].source.endswith("%pip install -q synthpriv-report")
    assert all(c.outputs == [] and c.execution_count is None for c in nb.cells if c.cell_type == "code")
    lab = json.loads(before)
    assert len(nb.cells) == len(lab["cells"]) + 1
    assert [c.source for c in nb.cells[2:]] == ["".join(c["source"]) for c in copy.deepcopy(lab["cells"][1:])]


@pytest.mark.slow  # about 2 s
def test_the_quiz_needs_no_export_package() -> None:
    """In the browser (JupyterLite) there is no nbconvert: the lab's quiz cell imports the teaching module and
    builds the quiz all the same; only writing a file needs the export package."""
    import subprocess
    import sys

    code = ("import sys; sys.modules['nbconvert'] = None\n"
            "from synthpriv_report.tools.teaching import LAB_QUIZ, quiz\n"
            "q = quiz(LAB_QUIZ)\n"
            "assert 'synthpriv_report.export' not in sys.modules\n"
            "print('ok')")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr[-2000:]
