"""The file a data protection officer can sign: every element in the HTML, the PDF and the JSON, drawn again from
the JSON, hostile context strings escaped, the PDF archival with the JSON inside, no misleading phrase left."""

from __future__ import annotations

import hashlib
import html as html_lib
import io
import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from _support.hostile import PAYLOADS
from _support.page_text import no_wbr
from _support.pdf import pdf_text

from synthpriv_report import Evaluation
from synthpriv_report.cli import main
from synthpriv_report.datasets import load_demo
from synthpriv_report.export import from_json, render_html, write_reports
from synthpriv_report.export.document import load_document
from synthpriv_report.export.dossier import recommended_action
from synthpriv_report.formats import fmt_share
from synthpriv_report.release import CONTEXT_SCHEMA_ID, validate_context

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
            "Plain-language summary", "What was tested", "What was found", "What it does not cover",
            "Recommended action", "Residual risk in the regulator's terms", "95% upper bound",
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


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _text(page: str) -> str:
    p = _Tags()
    p.feed(no_wbr(page))
    return " ".join(" ".join(p.text).split())


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = load_demo()
    ev = Evaluation(d.real.iloc[:400], d.synthetic.iloc[:400], d.holdout.iloc[:300], key_fields=d.key_fields,
                    sensitive_fields=d.sensitive_fields, metrics=METRICS, progress=False, random_state=0,
                    context=CONTEXT, n_attacks=200)
    out = tmp_path_factory.mktemp("dossier")
    paths = {"html": out / "r.html", "pdf": out / "r.pdf", "json": out / "r.json"}
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
    """The residual-risk sentence carries the upper end of the risk's interval, as the JSON holds it."""
    doc = json.loads(written["json"].read_text(encoding="utf-8"))
    text = _text(written["html"].read_text(encoding="utf-8"))
    for name in ("singling_out_risk", "linkability_risk", "inference_risk"):
        m = doc["metrics"][name]
        upper = fmt_share(m["interval"][1])
        assert f"of at most {upper} of people (95% upper bound" in text, (name, upper)
    assert "more often than of people not in the training data" in text


def test_the_threat_model_is_on_page_one_and_the_decision_page_is_whole(written: dict[str, Path]) -> None:
    from pypdf import PdfReader

    reader = PdfReader(str(written["pdf"]))
    first = " ".join((reader.pages[0].extract_text() or "").split())
    for element in ("Verdict", "Threat model", "What they know", "Checks that simulate this attacker",
                    "not a legal determination"):
        assert element in first, element
    pages = [" ".join((p.extract_text() or "").split()) for p in reader.pages]
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
    from pypdf import PdfReader

    reader = PdfReader(str(written["pdf"]))
    root = reader.trailer["/Root"]
    assert "/StructTreeRoot" in root and bool(root["/MarkInfo"]["/Marked"])
    assert root.get("/Lang") == "en"
    xmp = root["/Metadata"].get_object().get_data().decode("utf-8")
    assert 'pdfaid:part="3"' in xmp and 'pdfaid:conformance="A"' in xmp
    assert "/OutputIntents" in root and "/AF" in root
    attached = reader.attachments["report.json"]
    assert attached == [written["json"].read_bytes()]
    # the structure tree holds the figures with their alternative text
    tree = root["/StructTreeRoot"].get_object()
    assert tree.get("/K") is not None


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
    parser = _Tags()
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


def _doc(level: str, mode: str | None, attack_level: str = "low") -> dict:
    return {"verdict": {"level": level, "checks": []}, "context": {"release_mode": mode} if mode else None,
            "metrics": {"membership_inference": {"name": "membership_inference", "computed": True,
                                                 "level": attack_level, "title": "Membership inference"}}}


def test_a_public_release_is_held_to_the_stricter_rule() -> None:
    assert recommended_action(_doc("medium", "restricted"))["action"] == "release_with_conditions"
    assert recommended_action(_doc("medium", "public"))["action"] == "do_not_release"
    assert recommended_action(_doc("low", "restricted", "high"))["action"] == "release"
    assert recommended_action(_doc("low", "public", "high"))["action"] == "release_with_conditions"
    assert recommended_action(_doc("low", "public"))["action"] == "release"
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
    p = _Tags()
    p.feed(page)
    return p.tags


def test_every_figure_has_alternative_text(written: dict[str, Path]) -> None:
    imgs = [attrs for tag, attrs in _parse(written["html"].read_text(encoding="utf-8")) if tag == "img"]
    assert imgs and all((a.get("alt") or "").strip() for a in imgs)
