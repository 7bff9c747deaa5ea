"""``synthpriv-report compare`` and the comparison's documents (synthpriv_report/export/comparison.py): the
ranking a reader expects, the page on choosing among the releases after the dossier, the JSON document checked
on load, ``--fail-on`` on a named release or on all, and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from synthpriv_report.datasets import load_demo
from synthpriv_report.export.comparison import COMPARISON_SCHEMA, load_comparison
from synthpriv_report.tools.cli import EXIT_FAIL_ON, EXIT_OK, EXIT_USER_ERROR, _release_name, main

METRICS = "exact_copies,near_copies,holdout_dcr_share,dcr_test"
LEAKY = "copy <b>x</b>"


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Real training and holdout records, an honest release (the demo's synthetic records) and a release that
    copies the training records."""
    demo = load_demo()
    d = tmp_path_factory.mktemp("compare")
    out = {"real": d / "train.csv", "holdout": d / "holdout.csv", "honest": d / "honest.csv.gz",
           "copy": d / "copy.csv"}
    real = demo.real.iloc[:300]
    real.to_csv(out["real"], index=False)
    demo.holdout.iloc[:200].to_csv(out["holdout"], index=False)
    demo.synthetic.iloc[:300].to_csv(out["honest"], index=False)
    real.iloc[::-1].to_csv(out["copy"], index=False)
    return out


def _args(files: dict[str, Path], *more: str) -> list[str]:
    return ["compare", "--real", str(files["real"]), "--holdout", str(files["holdout"]), "--synthetic",
            str(files["copy"]), str(files["honest"]), "--names", f"{LEAKY},honest", "--metrics", METRICS,
            "--no-progress", *more]


def test_compare_ranks_writes_and_reads_back(files: dict[str, Path], tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """The copying release ranks last and the honest one is chosen; the HTML opens with the honest release's
    dossier, then the page on choosing (the names escaped); the JSON names both, carries the chosen release's
    report and reads back checked."""
    html, js = tmp_path / "c.html", tmp_path / "c.json"
    assert main(_args(files, "--html", str(html), "--json", str(js))) == EXIT_OK
    out = capsys.readouterr().out
    assert out.index("1. honest (the documents are about this one)") < out.index(f"2. {LEAKY}")
    doc, data = load_comparison(js)
    assert doc["schema"] == COMPARISON_SCHEMA
    assert doc["chosen"] == "honest" and doc["comparison"]["ranking"] == ["honest", LEAKY]
    rows = {r["name"]: r for r in doc["comparison"]["per_release"]}
    assert rows[LEAKY]["verdict"]["level"] == "high"
    assert data.document["verdict"]["level"] == rows["honest"]["verdict"]["level"]
    assert doc["comparison"]["adjusted_alpha"] == pytest.approx(doc["comparison"]["alpha"] / 2)
    page = html.read_text(encoding="utf-8")
    assert "Content-Security-Policy" in page and "<script" not in page
    assert "copy &lt;b&gt;x&lt;/b&gt;" in page and "<b>x</b>" not in page
    body = page.index("<body")
    dossier, choosing, annex = (page.index("celltag_spr-dossier", body), page.index("The cost of choosing", body),
                                page.rindex("celltag_spr-cover"))
    assert dossier < choosing < annex


def test_compare_choose_and_fail_on(files: dict[str, Path], tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    """``--choose`` writes the documents for that release; ``--fail-on`` looks at every release unless
    ``--fail-on-release`` names one."""
    js = tmp_path / "c.json"
    assert main(_args(files, "--json", str(js), "--choose", LEAKY)) == EXIT_OK
    doc, data = load_comparison(js)
    assert doc["chosen"] == LEAKY and data.document["verdict"]["level"] == "high"
    assert main(_args(files, "--json", str(js), "--fail-on", "high")) == EXIT_FAIL_ON
    assert LEAKY in capsys.readouterr().err
    assert main(_args(files, "--json", str(js), "--fail-on", "high", "--fail-on-release", "honest")) == EXIT_OK


def test_tampered_comparison_is_refused(files: dict[str, Path], tmp_path: Path) -> None:
    """A comparison document whose content no longer matches its digest, or whose adjusted rate is not the
    verdict's rate divided by the releases compared, is refused, naming the field."""
    from synthpriv_report.export.document import with_digest

    js = tmp_path / "c.json"
    assert main(_args(files, "--json", str(js))) == EXIT_OK
    doc = json.loads(js.read_text(encoding="utf-8"))
    chosen, doc["chosen"] = doc["chosen"], LEAKY
    js.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ValueError, match="digest"):
        load_comparison(js)
    js.write_text(json.dumps(with_digest(doc)), encoding="utf-8")  # re-digested: the verdicts disagree
    with pytest.raises(ValueError, match="chosen release's verdict"):
        load_comparison(js)
    doc["chosen"] = chosen
    doc["comparison"]["adjusted_alpha"] = doc["comparison"]["alpha"]
    js.write_text(json.dumps(with_digest(doc)), encoding="utf-8")
    with pytest.raises(ValueError, match="adjusted_alpha"):
        load_comparison(js)


@pytest.mark.parametrize("extra, fragment", [
    (["--names", "a", "--json", "x.json"], "--names gives 1 names for 2"),
    (["--choose", "nobody", "--json", "x.json"], "--choose 'nobody' is not one of the releases"),
    (["--fail-on-release", "nobody", "--json", "x.json"], "--fail-on-release 'nobody'"),
    ([], "nothing to write"),
])
def test_compare_user_errors(extra: list[str], fragment: str, files: dict[str, Path],
                             capsys: pytest.CaptureFixture[str]) -> None:
    """Each mistake is one line on stderr, exit status 2, before any evaluation."""
    assert main([*_args(files), *extra]) == EXIT_USER_ERROR
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and fragment in err[0]


def test_compare_refuses_one_release_and_writing_over_an_input(files: dict[str, Path],
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    one = ["compare", "--real", str(files["real"]), "--synthetic", str(files["honest"]), "--json", "x.json"]
    assert main(one) == EXIT_USER_ERROR
    assert "at least two --synthetic files" in capsys.readouterr().err
    assert main([*_args(files), "--json", str(files["honest"])]) == EXIT_USER_ERROR
    assert "refusing to write over an input" in capsys.readouterr().err


def test_release_names_from_files() -> None:
    assert [_release_name(p) for p in ("a/ctgan.csv.gz", "b.parquet", "c.tsv")] == ["ctgan", "b", "c"]


def test_compare_pdf_has_the_choice_after_the_dossier(files: dict[str, Path], tmp_path: Path) -> None:
    """The PDF: the dossier's four pages, the contents, then the page on choosing and the checks' figures with
    the releases side by side; the comparison's JSON is attached; the PDF keeps to the PDF/A rules the suite
    checks (every figure with its alternative text) and passes qpdf's check."""
    from _support.pdf import pdfa_problems, pikepdf_or_skip, qpdf_check
    from pypdf import PdfReader

    pdf, js = tmp_path / "c.pdf", tmp_path / "c.json"
    assert main(_args(files, "--pdf", str(pdf), "--json", str(js))) == EXIT_OK
    reader = PdfReader(str(pdf))
    texts = [p.extract_text() or "" for p in reader.pages]
    first = next(i for i, t in enumerate(texts) if "Choosing among 2 releases" in t and "cost of choosing" in t)
    assert 4 <= first <= 6
    figures = next(i for i, t in enumerate(texts) if "Each check's figures, the releases side by side" in t)
    assert first <= figures <= first + 2
    assert any("honest: Exact copies" in t for t in texts[figures:figures + 4])  # a panel's label, in the figure
    assert reader.attachments["report.json"] == [js.read_bytes()]
    pikepdf = pikepdf_or_skip()
    with pikepdf.open(pdf) as opened:
        assert pdfa_problems(opened) == []
    qpdf_check(pdf)


def test_comparison_figure_and_documents_from_python(files: dict[str, Path], tmp_path: Path) -> None:
    """``Comparison.figure`` draws a metric for every release side by side (PNG, in the ranking's order);
    ``Comparison.write_reports`` writes the same documents as the command line, and refuses to write nothing."""
    import pandas as pd

    from synthpriv_report import Comparison

    real, holdout = pd.read_csv(files["real"]), pd.read_csv(files["holdout"])
    cmp = Comparison(real, {"copy": pd.read_csv(files["copy"]), "honest": pd.read_csv(files["honest"])}, holdout,
                     metrics=METRICS.split(","), progress=False)
    box = cmp.figure("holdout_dcr_share")
    assert bytes(box.children[0].value).startswith(b"\x89PNG")
    with pytest.raises(ValueError, match="no result for 'nndr'"):
        cmp.figure("nndr")
    with pytest.raises(ValueError, match="nothing to write"):
        cmp.write_reports()
    js = tmp_path / "c.json"
    assert cmp.write_reports(json=str(js)) == [js]
    doc, _ = load_comparison(js)
    assert doc["chosen"] == "honest" and doc["comparison"]["ranking"] == ["honest", "copy"]


def test_compare_release_contexts(files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--release-contexts`` gives each release its own context: the declared privacy budgets reach the
    comparison's document beside the bound the attacks show; a release that does not exist, or a bad field, is a
    one-line error naming the file and the release."""
    contexts, js = tmp_path / "contexts.json", tmp_path / "c.json"
    generator = {"name": "a generator", "epsilon": 1.0}
    contexts.write_text(json.dumps({"honest": {"generator": generator},
                                    LEAKY: {"generator": {**generator, "epsilon": 8.0}}}), encoding="utf-8")
    args = _args(files, "--json", str(js), "--release-contexts", str(contexts))
    args[args.index("--metrics") + 1] = METRICS + ",mia_worst_case"
    assert main(args) == EXIT_OK
    rows = {r["name"]: r for r in load_comparison(js)[0]["comparison"]["per_release"]}
    assert rows["honest"]["declared_epsilon"] == 1.0 and rows[LEAKY]["declared_epsilon"] == 8.0
    assert rows[LEAKY]["epsilon_lower_bound"] is not None
    contexts.write_text(json.dumps({"nobody": {}}), encoding="utf-8")
    assert main(args) == EXIT_USER_ERROR
    assert "'nobody' is not a release" in capsys.readouterr().err
    contexts.write_text(json.dumps({"honest": {"generator": {"epsilon": -1}}}), encoding="utf-8")
    assert main(args) == EXIT_USER_ERROR
    err = capsys.readouterr().err
    assert "release 'honest'" in err and "epsilon" in err


@pytest.fixture(scope="module")
def live(files: dict[str, Path]):
    """A comparison of the copying and the honest release, from Python."""
    import pandas as pd

    from synthpriv_report import Comparison

    real, holdout = pd.read_csv(files["real"]), pd.read_csv(files["holdout"])
    return Comparison(real, {LEAKY: pd.read_csv(files["copy"]), "honest": pd.read_csv(files["honest"])}, holdout,
                      metrics=METRICS.split(","), progress=False)


def _figure_ticks(src: str) -> list[str]:
    """The tick labels of an SVG figure (its text elements that are numbers), in drawing order."""
    import base64
    import re

    svg = base64.b64decode(src.split(",", 1)[1]).decode("utf-8")
    return [t for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg) if re.fullmatch(r"[-\u2212]?[\d.]+%?", t)]


def test_the_annex_shows_each_checks_figure_with_the_releases_side_by_side(live, tmp_path: Path) -> None:
    """The page on choosing carries, for each check behind the verdict that declares a figure, one image with a
    panel per release in the ranking's order; every release's name reaches the page escaped, through the
    template only."""
    from synthpriv_report.export.comparison import comparison_document, comparison_page

    doc, _ = comparison_document(live)
    page, _ = comparison_page(doc)
    assert "Each check's figures, the releases side by side" in page
    figures = page.count('<figure class="spr-side-by-side">')
    assert figures == 3  # exact_copies, near_copies, holdout_dcr_share; dcr_test declares none
    for title in ("Exact copies", "Near copies", "Closer to the training data than to the holdout"):
        assert f"<h4>{title}</h4>" in page
    assert "copy &lt;b&gt;x&lt;/b&gt;" in page and "<b>x</b>" not in page
    first = page.index("Each check's figures")
    alt = page[page.index('alt="', first):]
    assert alt.index("honest:") < alt.index("copy &lt;b&gt;x&lt;/b&gt;:")  # the ranking's order


def test_figures_cut_into_several_images_keep_one_scale(live) -> None:
    """Panels that do not fit one image go on to the next, and every image has the axis ranges of all: the
    honest release's holdout share drawn alone would span other ticks than the copying release's."""
    from synthpriv_report.display.figures import side_by_side_entry

    results = live.results()
    shares = {name: results[name]["holdout_dcr_share"] for name in live.ranking()}
    tall = side_by_side_entry(shares, max_height=0.1)
    assert tall is not None and len(tall["parts"]) == 2
    one, two = (_figure_ticks(p["src"]) for p in tall["parts"])
    assert one == two and one
    alone = {name: side_by_side_entry({name: r})["parts"][0]["src"] for name, r in shares.items()}
    assert _figure_ticks(alone["honest"]) != _figure_ticks(alone[LEAKY])
    together = side_by_side_entry(shares)
    assert len(together["parts"]) == 1 and "honest:" in together["parts"][0]["alt"]


def test_documents_written_again_from_the_json_show_the_same_numbers(live, tmp_path: Path) -> None:
    """A comparison read back from its JSON writes the same JSON, byte for byte, and an HTML that differs from
    the live comparison's only where it says that it was drawn again from a saved document (the figures, the
    tables and every number the same)."""
    import difflib
    import re

    from synthpriv_report import Comparison
    from synthpriv_report.export.comparison import LoadedComparison, comparison_from_json

    h1, j1, h2, j2 = (tmp_path / n for n in ("1.html", "1.json", "2.html", "2.json"))
    live.write_reports(html=str(h1), json=str(j1))
    loaded = comparison_from_json(j1)
    assert isinstance(loaded, LoadedComparison) and loaded.chosen == "honest" and loaded.n_compared == 2
    assert loaded.ranking() == live.ranking() and loaded.to_dict() == json.loads(j1.read_text())["comparison"]
    checks = loaded.release_checks()
    assert checks[LEAKY]["exact_copies"].value == live.results()[LEAKY]["exact_copies"].value == 1.0
    assert loaded.write_reports(html=str(h2), json=str(j2)) == [h2, j2]
    assert j2.read_bytes() == j1.read_bytes()

    def lines(path: Path) -> list[str]:
        return re.sub(r'id="cell-id=[0-9a-f]+"', "", path.read_text(encoding="utf-8")).splitlines()

    changed = [line for line in difflib.unified_diff(lines(h1), lines(h2), n=0, lineterm="")
               if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    assert changed and all("drawn" in line or "left out" in line for line in changed), changed[:4]
    page = h2.read_text(encoding="utf-8")
    assert page.count('<figure class="spr-side-by-side">') == 3 and "<b>x</b>" not in page
    assert comparison_from_json(json.loads(j1.read_text())).document == loaded.document
    assert Comparison.from_json(j1).document == loaded.document
    with pytest.raises(ValueError, match="holds the whole report of 'honest' only"):
        loaded.write_reports(html=str(h2), chosen=LEAKY)


def test_tampered_release_checks_are_refused(live, tmp_path: Path) -> None:
    """The stored results the figures are drawn from must show the comparison's numbers, and the chosen
    release's must be those of its own report; a document changed there (and digested again) is refused, naming
    the field."""
    from synthpriv_report.export.comparison import comparison_document, comparison_from_json
    from synthpriv_report.export.document import with_digest

    doc, _ = comparison_document(live)
    changed = json.loads(json.dumps(doc))
    changed["release_checks"][LEAKY]["exact_copies"]["value"] = 0.0
    with pytest.raises(ValueError, match=r"release_checks\.copy <b>x</b>\.exact_copies: its value and level"):
        comparison_from_json(with_digest(changed))
    changed = json.loads(json.dumps(doc))
    changed["release_checks"]["honest"]["holdout_dcr_share"]["interval"] = [0.0, 1.0]
    with pytest.raises(ValueError, match="not the chosen release's result in its own report"):
        comparison_from_json(with_digest(changed))
    changed = json.loads(json.dumps(doc))
    del changed["release_checks"][LEAKY]
    with pytest.raises(ValueError, match="field release_checks: it must hold the releases compared"):
        comparison_from_json(with_digest(changed))
    changed = json.loads(json.dumps(doc))
    changed["release_checks"][LEAKY]["exact_copies"]["value"] = 0.0
    with pytest.raises(ValueError, match="digest"):
        comparison_from_json(changed)
