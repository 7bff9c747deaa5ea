"""A report names its input files by file name and SHA-256 only (issue 56): the folders of the operator's machine
appear nowhere in the JSON, the HTML or the PDFs read back, neither in the inputs, the command line nor the Python
call; no range of a real column appears either."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from _support.pdf import pdf_text
from pypdf import PdfReader

from synthpriv_report import Evaluation
from synthpriv_report.datasets import load_demo
from synthpriv_report.tools.cli import EXIT_OK, main


def test_the_command_line_reports_show_no_folder(tmp_path: Path) -> None:
    demo = load_demo()
    where = tmp_path / "home" / "ana" / "case-4711"  # a folder name that says something of its owner
    where.mkdir(parents=True)
    real, syn, hold = where / "train.csv", where / "synth.csv", where / "holdout.csv"
    demo.real.iloc[:150].to_csv(real, index=False)
    demo.synthetic.iloc[:150].to_csv(syn, index=False)
    demo.holdout.iloc[:100].to_csv(hold, index=False)
    js, page = tmp_path / "out" / "r.json", tmp_path / "out" / "r.html"
    pdf, dossier = tmp_path / "out" / "r.pdf", tmp_path / "out" / "d.pdf"
    js.parent.mkdir()
    assert main(["evaluate", "--real", str(real), "--synthetic", str(syn), f"--holdout={hold}",
                 "--metrics", "exact_copies,hitting_rate", "--no-progress", "--json", str(js), "--html", str(page),
                 "--pdf", str(pdf), "--pdf-dossier", str(dossier)]) == EXIT_OK
    # the PDFs read back, and the JSON each carries: no folder, and no range of a real column (the hitting rate's
    # tolerances, a column's range over 30, are kept only when real values are revealed)
    texts = [js.read_text(encoding="utf-8"), page.read_text(encoding="utf-8"), pdf_text(pdf), pdf_text(dossier)]
    texts += [b.decode("utf-8") for p in (pdf, dossier) for b in PdfReader(str(p)).attachments["report.json"]]
    for text in texts:
        assert "case-4711" not in text and str(tmp_path) not in text
        assert "tolerances" not in text.lower()
    assert "tolerances" not in json.loads(texts[-1])["metrics"]["hitting_rate"]["details"]
    doc = json.loads(js.read_text(encoding="utf-8"))
    prov = doc["provenance"]
    assert [(r["role"], r["file"]) for r in prov["inputs"]] == [
        ("real", "train.csv"), ("synthetic", "synth.csv"), ("holdout", "holdout.csv")]
    assert all(r["sha256"] == hashlib.sha256((where / r["file"]).read_bytes()).hexdigest() for r in prov["inputs"])
    assert "--real train.csv --synthetic synth.csv --holdout=holdout.csv" in prov["command"]
    assert "--json r.json --html r.html --pdf r.pdf --pdf-dossier d.pdf" in prov["command"]


def test_the_python_call_names_a_file_without_its_folders(tmp_path: Path) -> None:
    demo = load_demo()
    p = tmp_path / "private-folder" / "real.parquet"
    p.parent.mkdir()
    demo.real.iloc[:100].to_parquet(p)
    ev = Evaluation(str(p), demo.synthetic.iloc[:100], progress=False, metrics=["exact_copies"])
    assert ev.provenance["python_call"].startswith("Evaluation('real.parquet', synthetic, ")
    assert ev.provenance["inputs"][0]["file"] == "real.parquet"
    assert "private-folder" not in json.dumps(ev.results().to_dict(), default=str)
