"""The file a data protection officer can sign: every element in the HTML, the PDF and the JSON, drawn again from
the JSON, hostile context strings escaped, the PDF archival with the JSON inside, no misleading phrase left."""

from __future__ import annotations

import datetime as _dt
import hashlib
import html as html_lib
import io
import json
from pathlib import Path

import pytest
from _support.hostile import PAYLOADS
from _support.page_text import PageParser, no_wbr
from _support.pdf import pdf_date, pdf_text, pdfa_problems, pikepdf_or_skip, qpdf_check, xmp_properties

from synthpriv_report import Evaluation
from synthpriv_report.core.formats import fmt_share
from synthpriv_report.core.release import CONTEXT_SCHEMA_ID, validate_context
from synthpriv_report.datasets import load_demo
from synthpriv_report.export import from_json, render_html, write_reports
from synthpriv_report.export.document import load_document
from synthpriv_report.export.dossier import decision_context, recommended_action
from synthpriv_report.tools.cli import main

METRICS = ["exact_copies", "near_copies", "holdout_dcr_share", "privacy_score", "dcr_test", "nndr_test",
           "detection_mlp", "singling_out_risk", "linkability_risk", "inference_risk", "membership_inference"]

CONTEXT = {
    "purpose": "Teaching statistics " + PAYLOADS[0],
    "recipients": PAYLOADS[1],
    "release_mode": "public",
    "operator": PAYLOADS[2],
    "organisation": "Example University",
    "levels_reason": PAYLOADS[3],
    "generator": {"name": "Gaussian copula " + PAYLOADS[4], "version": "SDV 1.2", "epsilon": 2.5,
                  "settings": {"default_distribution": "beta", PAYLOADS[5]: PAYLOADS[6]},
                  "post_filters": ["exact copies removed", PAYLOADS[7]], "model_released": False},
    "decision": {"outcome": "release_with_conditions", "rationale": PAYLOADS[8], "dpo": "D. P. Officer",
                 "next_review": "2027-06-01", "triggers": ["a second release " + PAYLOADS[9]]},
}

#: Every element the issue asks for, as the reader sees it (HTML and PDF text).
ELEMENTS = ("Threat model", "What they know (key fields)", "Not modelled", "Checks that simulate this attacker",
            "Release context", "Purpose of the release", "Release mode", "public (anyone may obtain the data)",
            "Differential privacy", "epsilon = 2.5", "Trained model released too",
            "Residual risk, in the regulator's terms", "Recommended action", "motivated intruder",
            "means reasonably likely to be used", "sufficiently remote", "insignificant", "Beyond chance?",
            "Residual risk in the regulator's terms", "95% upper bound",
            "not a legal determination", "Limitations and assumptions", "The holdout assumption",
            "What each check cannot see", "Samples used", "Inference about groups", "Decision record",
            "Release with conditions", "Do not release", "Signature of the data protection officer",
            "Date of the decision", "Next review date", "2027-06-01", "Triggers for a new assessment",
            "Reproducibility", "Python call", "Raw-file SHA-256", "Canonical fingerprint",
            "How to recompute the canonical fingerprint", "SHA-256 of the JSON report file", "Library versions",
            "Technical annex", "Membership inference", "to tell apart")

#: Phrases a regulator would read against the report (issue 28, "Wording").
MISLEADING = ("public source", "best case", "MIR (membership inference risk)", "membership inference risk",
              "computed exactly", "100 to 100", "continuous key field")


def _text(page: str) -> str:
    p = PageParser()
    p.feed(no_wbr(page))
    return " ".join(" ".join(p.text).split())


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = load_demo()
    ev = Evaluation(d.real.iloc[:400], d.synthetic.iloc[:400], d.holdout.iloc[:300], key_fields=d.key_fields,
                    sensitive_fields=d.sensitive_fields, metrics=METRICS, progress=False, random_state=0,
                    context=CONTEXT, n_attacks=200)
    out = tmp_path_factory.mktemp("dossier")
    paths = {"html": out / "r.html", "pdf": out / "r.pdf", "json": out / "r.json", "pdf_dossier": out / "d.pdf"}
    write_reports(ev.results(), **paths)
    return paths


def test_json_carries_the_context_and_the_reproducibility_record(written: dict[str, Path]) -> None:
    doc = json.loads(written["json"].read_text(encoding="utf-8"))
    assert doc["context"] == validate_context(CONTEXT) and doc["context"]["schema"] == CONTEXT_SCHEMA_ID
    prov = doc["provenance"]
    assert prov["python_call"].startswith("Evaluation(real, synthetic, holdout, ")
    assert "key_fields=" in prov["python_call"] and "n_attacks=200" in prov["python_call"]
    assert [i["role"] for i in prov["inputs"]] == ["real", "synthetic", "holdout"]
    assert all(i["sha256"] is None and "DataFrame" in i["note"] for i in prov["inputs"])  # frames: no file
    assert prov["platform"]["python"] and "fingerprint_recompute" in prov
    for key in ("numpy", "pandas", "scipy", "scikit-learn", "weasyprint", "jinja2", "jsonschema"):
        assert key in doc["versions"], key
    m = doc["metrics"]["membership_inference"]
    assert m["computed"] and 0 <= m["value"] <= 1 and "tpr_at_1pct_fpr" in m["details"]


def test_html_carries_every_element_and_the_sha256_of_the_json_file(written: dict[str, Path]) -> None:
    page = written["html"].read_text(encoding="utf-8")
    text = _text(page)
    for element in ELEMENTS:
        assert element in text, element
    sha = hashlib.sha256(written["json"].read_bytes()).hexdigest()
    assert sha in text
    doc = json.loads(written["json"].read_text(encoding="utf-8"))
    assert doc["digest"]["value"] in text


def test_each_criterion_states_its_upper_bound(written: dict[str, Path]) -> None:
    """The residual-risk sentence carries the upper end of the risk's interval, as the JSON holds it, and reads it
    as what it is: not a share of people."""
    doc = json.loads(written["json"].read_text(encoding="utf-8"))
    text = _text(written["html"].read_text(encoding="utf-8"))
    for name in ("singling_out_risk", "linkability_risk", "inference_risk"):
        m = doc["metrics"][name]
        upper = fmt_share(m["interval"][1])
        attack = fmt_share(m["details"]["rates"]["attack"]["value"])
        assert f"adds at most {upper} of the success still open" in text, (name, upper)
        assert f"in {attack} of " in text, (name, attack)
    assert "of the rules tried on the training records" in text
    assert "of people (95% upper bound" not in text


def _pages(path: Path) -> list[str]:
    from pypdf import PdfReader

    return [" ".join((p.extract_text() or "").split()) for p in PdfReader(str(path)).pages]


def test_the_dossier_is_four_pages_each_tied_to_the_report(written: dict[str, Path]) -> None:
    """The verdict, each criterion's residual risk, the recommendation and the decision fields lie in the first
    four pages; each of them carries the report's digest and the data's fingerprints at its foot; the annex starts
    on page five."""
    doc = json.loads(written["json"].read_text(encoding="utf-8"))
    digest = doc["digest"]["value"]
    grouped = " ".join(digest[i:i + 8] for i in range(0, 64, 8))
    prints = [s["fingerprint"][:16] for s in doc["meta"]["sets"]]
    pages = _pages(written["pdf"])
    for n, page in enumerate(pages[:4], start=1):
        assert grouped in page, n
        assert all(fp in page for fp in prints), n
    assert grouped not in pages[4] and "Synthetic data privacy report Verdict:" in pages[4]
    first = " ".join(pages[:4])
    for element in ("Verdict:", "What the verdict rests on", "Recommended action", "Singling-out risk",
                    "Linkability risk", "Inference risk", "Residual risk, in the regulator's terms",
                    "Data assessment", "Decision record", "Signature of the data protection officer",
                    "Next review date"):
        assert element in first, element
    for name in ("singling_out_risk", "linkability_risk", "inference_risk"):
        attack = doc["metrics"][name]["details"]["rates"]["attack"]["value"]
        assert fmt_share(attack) in first, name
    alone = _pages(written["pdf_dossier"])
    assert len(alone) <= 4 and all(grouped in page for page in alone)
    assert "Decision record" in alone[-1] and "the technical annex is a document of its own" in alone[0].lower()


def test_chromium_prints_the_digest_at_the_foot_of_every_page(written: dict[str, Path]) -> None:
    """Chromium has no running elements: its page footer carries the dossier's foot instead, on every page."""
    import shutil

    from synthpriv_report.export import html_to_pdf

    if shutil.which("chromium") is None:
        pytest.skip("chromium not installed (setup.sh installs it)")
    doc = json.loads(written["json"].read_text(encoding="utf-8"))
    grouped = " ".join(doc["digest"]["value"][i:i + 8] for i in range(0, 64, 8))
    pdf = html_to_pdf(render_html(from_json(written["json"]), dossier_only=True), engine="chromium")
    pages = [" ".join(p.split()) for p in pdf_text(pdf).split("\f") if p.strip()]
    assert pages and all(grouped in p for p in pages)
    assert all(s["fingerprint"][:16] in pages[0] for s in doc["meta"]["sets"])


def test_the_decision_record_is_a_pdf_form(written: dict[str, Path]) -> None:
    """Fillable fields for the outcome, names, roles, dates and conditions; the recorded outcome ticked; every field
    drawn by the file itself (PDF/A forbids asking the viewer to draw them)."""
    from pypdf import PdfReader

    for path in (written["pdf"], written["pdf_dossier"]):
        reader = PdfReader(str(path))
        fields = reader.get_fields() or {}
        for name in ("outcome_release", "outcome_release_with_conditions", "outcome_do_not_release", "conditions",
                     "departure_reason", "assessor", "decided_by", "decision_date", "dpo_opinion"):
            assert name in fields, name
        # filled from the context: printed as text, not left as a blank
        assert "dpo" not in fields and "next_review" not in fields
        assert fields["outcome_release_with_conditions"].get("/V") == "/on"
        assert fields["outcome_release"].get("/V") in (None, "/Off")
        form = reader.trailer["/Root"]["/AcroForm"]
        assert "/NeedAppearances" not in form
        for page in reader.pages:
            for annot in page.get("/Annots") or []:
                a = annot.get_object()
                if a.get("/Subtype") == "/Widget":
                    assert "/AP" in a and "/N" in a["/AP"], a.get("/T")
        # the JSON travels in the dossier too
        assert reader.attachments["report.json"] == [written["json"].read_bytes()]


def test_a_decision_less_strict_than_the_recommendation_is_warned(written: dict[str, Path]) -> None:
    """The context records "release with conditions" for a public release this report does not recommend
    releasing: the decision page warns and asks for the reason."""
    doc = json.loads(written["json"].read_text(encoding="utf-8"))
    rec = recommended_action(doc)
    d = decision_context(doc)
    assert rec["action"] == "do_not_release" and d["departs"]
    assert "less strict than this report's recommendation" in d["warning"]
    decision = next(p for p in _pages(written["pdf"])[:4] if "Decision record" in p)
    assert "less strict than this report's recommendation" in decision
    assert "Reason, where the decision departs from the recommendation" in decision
    same = {**doc, "context": {**doc["context"], "decision": {"outcome": "do_not_release"}}}
    assert not decision_context(same)["departs"] and decision_context(same)["warning"] == ""


def test_the_threat_model_is_in_the_annex_cover_and_the_decision_page_is_whole(written: dict[str, Path]) -> None:
    pages = _pages(written["pdf"])
    cover = pages[4]
    for element in ("Verdict", "Threat model", "What they know", "Checks that simulate this attacker",
                    "not a legal determination"):
        assert element in cover, element
    decision = next(p for p in pages if "Decision record" in p and "Signature of the data protection officer" in p)
    for element in ("Release with conditions", "Do not release", "Next review date", "Triggers for a new assessment"):
        assert element in decision, element


def test_pdf_carries_every_element(written: dict[str, Path]) -> None:
    from pypdf import PdfReader

    # in reading order (the tagged structure), so that a table's heading cell reads as one phrase
    reader = PdfReader(str(written["pdf"]))
    text = " ".join(" ".join((p.extract_text() or "") for p in reader.pages).split()).replace("_ ", "_")
    for element in ELEMENTS:
        assert element in text, element


def test_pdf_is_archival_tagged_and_carries_the_json(written: dict[str, Path]) -> None:
    """The PDF/A-3a rules the suite checks itself (tests/_support/pdf.py: fonts embedded, one sRGB output intent
    with its ICC profile, not encrypted, no JavaScript or actions, tagged, /Lang, the XMP identification)."""
    pikepdf = pikepdf_or_skip()
    with pikepdf.open(written["pdf"]) as pdf:
        assert pdfa_problems(pdf) == []
        root = pdf.Root
        assert str(root.Lang) == "en"
        # the structure tree holds the figures with their alternative text
        assert root.StructTreeRoot.get("/K") is not None


def test_pdf_metadata_names_the_report_its_time_and_its_maker(written: dict[str, Path]) -> None:
    """XMP and the information dictionary agree, and carry the JSON report's own creation time, the package that
    wrote the document and the engine that printed it."""
    pikepdf = pikepdf_or_skip()
    doc = json.loads(written["json"].read_text(encoding="utf-8"))
    created = _dt.datetime.fromisoformat(doc["created"])
    with pikepdf.open(written["pdf"]) as pdf:
        info = {str(k): str(v) for k, v in pdf.docinfo.items()}
        xmp = xmp_properties(pdf)
    assert (xmp["pdfaid:part"], xmp["pdfaid:conformance"]) == ("3", "A")
    for info_key, xmp_key in (("/CreationDate", "xmp:CreateDate"), ("/ModDate", "xmp:ModifyDate")):
        assert pdf_date(info[info_key]) == _dt.datetime.fromisoformat(xmp[xmp_key]) == created, info_key
    assert _dt.datetime.fromisoformat(xmp["xmp:MetadataDate"]) == created
    tool = f"synthpriv_report {doc['generator']['version']}"
    assert info["/Creator"] == xmp["xmp:CreatorTool"] == tool
    assert info["/Producer"] == xmp["pdf:Producer"] and xmp["pdf:Producer"].startswith("WeasyPrint ")
    assert info["/Title"] == xmp["dc:title"] == "Synthetic data privacy report"


def test_pdf_lists_the_json_once_as_its_source(written: dict[str, Path]) -> None:
    """Regression: WeasyPrint 70 put every attachment twice in the catalog's /AF (associated files)."""
    pikepdf = pikepdf_or_skip()
    with pikepdf.open(written["pdf"]) as pdf:
        root = pdf.Root
        names = list(root.Names.EmbeddedFiles.Names)
        assert "/Kids" not in root.Names.EmbeddedFiles  # one leaf: the whole name tree is this array
        assert [str(n) for n in names[0::2]] == ["report.json"]
        spec = names[1]
        assert [f.objgen for f in root.AF] == [spec.objgen]
        assert str(spec.AFRelationship) == "/Source"
        assert str(spec.F) == str(spec.UF) == "report.json"
        stream = spec.EF.F
        assert str(stream.Subtype) == "/application/json" and "/ModDate" in stream.Params
        assert stream.read_bytes() == written["json"].read_bytes()  # byte for byte
    from pypdf import PdfReader

    assert PdfReader(str(written["pdf"])).attachments == {"report.json": [written["json"].read_bytes()]}


def test_pdf_passes_qpdf_check(written: dict[str, Path]) -> None:
    report = qpdf_check(written["pdf"])
    assert "No syntax or stream encoding errors found" in report and "File is not encrypted" in report


def test_the_pdfa_checks_see_what_a_plain_pdf_lacks() -> None:
    """The suite's own PDF/A checks are not vacuous: a plain PDF with a JavaScript open action, a font that is not
    embedded, an unmapped structure type and a figure without alternative text fails each of them."""
    pikepdf = pikepdf_or_skip()
    pdf = pikepdf.new()
    pdf.add_blank_page()
    font = pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1,
                                                BaseFont=pikepdf.Name.Helvetica))
    pdf.pages[0].Resources = pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=font))
    pdf.Root.OpenAction = pdf.make_indirect(pikepdf.Dictionary(S=pikepdf.Name.JavaScript, JS="app.alert(1)"))
    elements = [pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.StructElem, S=pikepdf.Name(role)))
                for role in ("/Gadget", "/Figure")]
    pdf.Root.StructTreeRoot = pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.StructTreeRoot,
                                                                   K=pikepdf.Array(elements)))
    problems = " | ".join(pdfa_problems(pdf))
    for expected in ("not 1.7", "no file identifier", "0 output intents", "not tagged", "no /Lang",
                     "action when opened", "JavaScript in object", "Helvetica (/Type1) is not embedded",
                     "structure type Gadget", "has no alternative text", "not 3A"):
        assert expected in problems, (expected, problems)


def test_no_misleading_phrase_remains(written: dict[str, Path]) -> None:
    html_text = _text(written["html"].read_text(encoding="utf-8")).lower()
    pdf = " ".join(pdf_text(written["pdf"]).split()).lower()
    js = written["json"].read_text(encoding="utf-8").lower()
    for phrase in MISLEADING:
        for where, text in (("html", html_text), ("pdf", pdf), ("json", js)):
            assert phrase.lower() not in text, (phrase, where)


def test_distinguishability_never_wears_a_risk_badge(written: dict[str, Path]) -> None:
    page = written["html"].read_text(encoding="utf-8")
    table = page.split('class="spr-summary-table spr-dist-table"', 1)[1].split("</table>", 1)[0]
    assert "spr-level-dist" in table
    assert not any(f"spr-level-{lv}" in table for lv in ("low", "medium", "high"))
    assert "risk" not in _text(table).lower().replace("drive the verdict", "")


def test_hostile_context_strings_are_escaped(written: dict[str, Path]) -> None:
    page = written["html"].read_text(encoding="utf-8")
    assert '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'' in page
    parser = PageParser()
    parser.feed(page)
    assert not any(tag == "script" for tag, _ in parser.tags)
    assert not any(k.startswith("on") for _, attrs in parser.tags for k in attrs)
    assert not any(tag in ("iframe", "object", "svg", "math", "video", "input", "details") for tag, _ in parser.tags)
    # the words are there, as text
    assert html_lib.escape("D. P. Officer") in page and "Example University" in page
    assert "exact copies removed" in _text(page)


def test_the_report_drawn_again_from_the_json_carries_every_element(written: dict[str, Path]) -> None:
    loaded = from_json(written["json"])
    page = render_html(loaded)
    text = _text(page)
    for element in ELEMENTS:
        assert element in text, element
    assert hashlib.sha256(written["json"].read_bytes()).hexdigest() in text
    doc = load_document(written["json"])
    assert doc["context"]["decision"]["outcome"] == "release_with_conditions"


def _doc(level: str, mode: str | None, attack_level: str = "low", generator: dict | None = None) -> dict:
    context = {"release_mode": mode, **({"generator": generator} if generator is not None else {})}
    return {"verdict": {"level": level, "checks": []}, "context": context if mode else None,
            "metrics": {"membership_inference": {"name": "membership_inference", "computed": True,
                                                 "level": attack_level, "title": "Membership inference"}}}


_STATED = {"epsilon": None, "post_filters": [], "model_released": False}


def test_no_release_is_recommended_while_a_fact_it_depends_on_is_not_stated() -> None:
    """A low verdict with the model release, differential privacy and filters not stated: "release with
    conditions", naming each missing fact; once they are stated (even as "none"), "release"."""
    for generator, missing in ((None, 3), ({"model_released": False}, 2), ({"epsilon": None, "post_filters": []}, 1),
                               (_STATED, 0)):
        rec = recommended_action(_doc("low", "restricted", generator=generator))
        assert len(rec["missing"]) == missing, generator
        assert rec["action"] == ("release" if missing == 0 else "release_with_conditions"), generator
        if missing:
            assert all(f in rec["why"] for f in rec["missing"])
    rec = recommended_action(_doc("low", None))
    assert len(rec["missing"]) == 4 and "the release mode (public, restricted or internal)" in rec["missing"]


def test_a_public_release_is_held_to_the_stricter_rule() -> None:
    assert recommended_action(_doc("medium", "restricted"))["action"] == "release_with_conditions"
    assert recommended_action(_doc("medium", "public"))["action"] == "do_not_release"
    assert recommended_action(_doc("low", "restricted", "high", _STATED))["action"] == "release"
    assert recommended_action(_doc("low", "public", "high", _STATED))["action"] == "release_with_conditions"
    assert recommended_action(_doc("low", "public", generator=_STATED))["action"] == "release"
    assert recommended_action(_doc("not_assessed", None))["action"] == "do_not_release"
    assert "stricter" in recommended_action(_doc("low", None))["rule"]


@pytest.mark.parametrize(("context", "message"), [
    ({"purpose": 3}, "context.purpose must be a string"),
    ({"purpse": "x"}, 'unknown field "purpse"'),
    ({"release_mode": "open"}, "context.release_mode must be one of"),
    ({"generator": {"epsilon": 0}}, "context.generator.epsilon is out of range"),
    ({"generator": {"model_released": "no"}}, "context.generator.model_released must be true or false"),
    ({"decision": {"outcome": "maybe"}}, "context.decision.outcome must be one of"),
    ({"purpose": "\ud800"}, "unpaired surrogate"),
    ({"generator": {"epsilon": float("nan")}}, "not a JSON number"),
    ({"schema": "synthpriv_report.context/9"}, "context.schema must be one of"),
])
def test_a_bad_context_is_refused_naming_the_field(context: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace(".", r"\.").replace("(", r"\(")):
        validate_context(context)


def test_command_line_context_and_raw_file_digests(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = load_demo()
    real, syn, hold = tmp_path / "real.csv", tmp_path / "syn.csv", tmp_path / "hold.csv"
    d.real.iloc[:200].to_csv(real, index=False)
    d.synthetic.iloc[:200].to_csv(syn, index=False)
    d.holdout.iloc[:150].to_csv(hold, index=False)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"release_mode": "everyone"}), encoding="utf-8")
    args = ["evaluate", "--real", str(real), "--synthetic", str(syn), "--holdout", str(hold),
            "--metrics", "exact_copies", "--no-progress"]
    assert main([*args, "--json", str(tmp_path / "x.json"), "--context", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "context.release_mode must be one of" in err and str(bad) in err
    good = tmp_path / "context.json"
    good.write_text(json.dumps({"purpose": "test", "release_mode": "restricted"}), encoding="utf-8")
    out = tmp_path / "r.json"
    assert main([*args, "--json", str(out), "--context", str(good)]) == 0
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["context"]["release_mode"] == "restricted"
    assert doc["provenance"]["command"].startswith("synthpriv-report evaluate --real ")
    assert "--context" in doc["provenance"]["command"]
    got = {i["role"]: i["sha256"] for i in doc["provenance"]["inputs"]}
    for role, path in (("real", real), ("synthetic", syn), ("holdout", hold)):
        assert got[role] == hashlib.sha256(path.read_bytes()).hexdigest()


def test_python_call_names_path_inputs_and_hashes_them(tmp_path: Path) -> None:
    d = load_demo()
    p = tmp_path / "real.parquet"
    d.real.iloc[:100].to_parquet(p)
    ev = Evaluation(str(p), d.synthetic.iloc[:100], progress=False, metrics=["exact_copies"])
    rec = ev.provenance["inputs"][0]
    assert rec["sha256"] == hashlib.sha256(p.read_bytes()).hexdigest() and rec["bytes"] == p.stat().st_size
    assert ev.provenance["python_call"].startswith(f"Evaluation({p.name!r}, synthetic, ")
    assert io is not None


def test_user_set_thresholds_are_printed_with_the_stated_reason() -> None:
    d = load_demo()
    reason = "our ethics board asks for a stricter copy limit " + PAYLOADS[0]
    ev = Evaluation(d.real.iloc[:200], d.synthetic.iloc[:200], d.holdout.iloc[:150], metrics=["dcr"],
                    progress=False, calibrate=False, context={"levels_reason": reason})
    page = render_html(ev.results(levels={"dcr": {"medium": 0.9, "high": 0.5}}))
    text = _text(page)
    assert "set for this report, for the reason the user stated" in text
    assert "our ethics board asks for a stricter copy limit" in text
    assert html_lib.escape(PAYLOADS[0], quote=False) in page or "&lt;" in page
    assert not any(k.startswith("on") for _, attrs in _parse(page) for k in attrs)


def _parse(page: str) -> list[tuple[str, dict[str, str | None]]]:
    p = PageParser()
    p.feed(page)
    return p.tags


def test_every_figure_has_alternative_text(written: dict[str, Path]) -> None:
    imgs = [attrs for tag, attrs in _parse(written["html"].read_text(encoding="utf-8")) if tag == "img"]
    assert imgs and all((a.get("alt") or "").strip() for a in imgs)
