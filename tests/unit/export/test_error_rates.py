"""How often a verdict is wrong for data like a report's (``synthpriv_report/export/error_rates.py``): the nearest
measured cell of the calibration harness, Wilson intervals checked against the formula, the partial template, and
the packaged cells checked row by row against the published tables they were transcribed from (docs/calibration.md)."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from _support.paths import ROOT

from synthpriv_report.export.error_rates import error_rates, load_cells
from synthpriv_report.export.templating import render

LEVELS = ("low", "inconclusive", "medium", "high")


def _doc(training: int, holdout: int | None, numeric: int, categorical: int, *, level: str = "low",
         synthetic: int | None = None) -> dict:
    """A hand-made report document with what error_rates reads: the sets, the columns' kinds, the verdict."""
    sets = [{"role": "real", "name": "real training data", "rows": training},
            {"role": "synthetic", "name": "synthetic data", "rows": synthetic or training}]
    if holdout:
        sets.append({"role": "holdout", "name": "holdout data", "rows": holdout})
    cols = ([{"name": f"x{i}", "kind": "numeric"} for i in range(numeric)]
            + [{"name": f"c{i}", "kind": "categorical"} for i in range(categorical)])
    return {"meta": {"sets": sets, "columns": cols}, "verdict": {"level": level, "reasons": []}}


def _wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval from its formula, written out here independently of the package."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


# ---------------------------------------------------------------------------------------------------------------
# the nearest cell


def test_a_thousand_row_mixed_table_with_a_holdout_gets_the_adult_thousand_holdout_cell():
    e = error_rates(_doc(1000, 1000, 6, 8))
    assert e["measured"] and not e["shape_far"] and e["size_note"] is None
    assert (e["cell"]["shape"], e["cell"]["records"]["training"], e["cell"]["holdout"]) == ("adult", 1000, True)
    assert e["cell"]["words"] == "Adult-like mixed table, 1,000 records per set, with a holdout"
    # ideal 0/40, marginals 2/40, copula 0/40 in the published honest table
    assert [(g["generator"], g["count"], g["draws"]) for g in e["honest"]] == [
        ("ideal", 0, 40), ("marginals", 2, 40), ("copula", 0, 40)]
    assert e["false_alarms"]["of"] == "2 of 120" and e["inconclusive"]["of"] == "0 of 120"
    assert {d["leak"] for d in e["detection"]} == {"exact", "near_number", "near_category", "near_redacted",
                                                   "near_respelled", "float32", "verbatim_redacted",
                                                   "verbatim_respelled"}
    assert all(d["of"] == "10 of 10" for d in e["detection"])
    smallest = {s["leak"]: s["share"] for s in e["smallest_share"]}
    assert smallest == {"exact": 0.01, "near_number": 0.03, "near_category": 0.05, "near_redacted": 0.05,
                        "near_respelled": 0.05}
    text = " ".join(e["sentences"])
    assert "a simulation on the public UCI Adult and Bank Marketing data sets" in text
    assert "2 of 120" in text and "exact copies 1%" in text
    rows = [r["what"] for r in e["rows"]]
    assert "Exact copies of 3% of training records" in rows and "10% copied, one number moved by one unit" in rows
    words = [d["words"] for d in e["detection"]]
    assert "exact copies of 3% of the training records" in words
    assert "10% of records copied with one number moved by one unit" in words


def test_thirty_thousand_rows_get_the_thirty_thousand_cell_and_no_leak_rates():
    e = error_rates(_doc(30000, 9000, 6, 8, synthetic=9000))
    assert e["cell"]["records"] == {"training": 30000, "synthetic": 9000, "holdout": 9000}
    assert e["false_alarms"]["of"] == "0 of 10"
    assert e["detection"] == []
    assert {s["text"] for s in e["smallest_share"]} == {"not measured at this size"}
    assert any("not simulated at this size" in s for s in e["sentences"])
    # no alarm in 10 draws still allows 27.8%, and the reader is told so
    assert any("as high as 27.8%" in s for s in e["sentences"])
    assert e["false_alarms"]["rate_text"] == "0% [0%, 27.8%]"


def test_three_hundred_thousand_rows_are_not_measured():
    e = error_rates(_doc(300000, 1000, 6, 8))
    assert not e["measured"] and e["cell"] is None and e["false_alarms"] is None and e["rows"] == []
    assert e["sentences"][0] == "No measurement near 300,000 records with a holdout; the largest measured is 30,000."


def test_a_categorical_only_table_gets_the_categorical_cell_and_its_low_power():
    e = error_rates(_doc(1000, 1000, 0, 4))
    assert e["cell"]["shape"] == "adult_categorical" and not e["shape_far"]
    assert e["inconclusive"]["of"] == "70 of 80"
    assert sum(d["count"] for d in e["detection"]) == 1  # one draw in 60 with a holdout
    assert any("unseen in most simulated releases" in s for s in e["sentences"])
    assert {s["text"] for s in e["smallest_share"]} == {"not measured for tables like these at this size"}


def test_a_shape_far_from_every_measured_one_is_said_so():
    e = error_rates(_doc(1000, 1000, 0, 20))
    assert e["cell"]["shape"] == "adult_categorical" and e["shape_far"]
    assert e["shape_note"].startswith("No measured table is much like this one")


def test_no_holdout_gets_a_cell_without_one():
    e = error_rates(_doc(1000, None, 6, 8, level="high"))
    assert e["cell"]["holdout"] is False and e["cell"]["records"]["holdout"] is None
    assert e["cell"]["words"] == "Adult-like mixed table, 1,000 records per set, without a holdout"
    assert e["inconclusive"]["of"] == "2 of 120"
    assert e["sentences"][-1].startswith("This report's verdict is high risk: it would be wrong if the release")


def test_a_size_between_cells_takes_the_nearest_on_a_log_scale():
    # 2,500 is 2.5 times 1,000 and 4 times less than 10,000: the 1,000 cell, with a note on the size
    e = error_rates(_doc(2500, 2500, 6, 8))
    assert e["cell"]["records"]["training"] == 1000
    assert e["size_note"] == "This report has 2,500 training records; the nearest measured size is 1,000."
    assert error_rates(_doc(4000, 4000, 6, 8))["cell"]["records"]["training"] == 10000


def test_a_real_report_document():
    """A validated document of a small evaluation (60 training records, a holdout): the 50-record cell."""
    from synthpriv_report import Evaluation
    from synthpriv_report.export import report_data

    rng = np.random.default_rng(0)

    def frame(n):
        return pd.DataFrame({"age": rng.integers(18, 90, n), "income": rng.normal(size=n),
                             "job": rng.choice(list("abc"), n)})

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        doc = report_data(Evaluation(frame(60), frame(60), holdout=frame(40), metrics=["exact_copies"],
                                     progress=False)).document
    e = error_rates(doc)
    assert e["report"]["training_rows"] == 60 and e["report"]["holdout"]
    assert e["report"]["unique_training_share"] == pytest.approx(1.0)
    assert e["cell"]["records"]["training"] == 50 and e["report"]["verdict"] == doc["verdict"]["level"]


def test_a_document_without_sizes_is_refused_naming_the_field():
    with pytest.raises(ValueError, match="meta.sets"):
        error_rates({"verdict": {"level": "low"}})


# ---------------------------------------------------------------------------------------------------------------
# Wilson intervals


@pytest.mark.parametrize("training, holdout, numeric, categorical", [
    (1000, 1000, 6, 8), (1000, None, 6, 8), (30000, 9000, 6, 8), (1000, 1000, 0, 4), (100, 100, 6, 0),
    (20, 20, 6, 8)])
def test_every_interval_is_the_wilson_interval_of_its_counts(training, holdout, numeric, categorical):
    e = error_rates(_doc(training, holdout, numeric, categorical))
    rates = [e["false_alarms"], e["inconclusive"], *e["honest"], *e["detection"]]
    for r in rates:
        lo, hi = _wilson(r["count"], r["draws"])
        assert r["interval"] == pytest.approx([lo, hi], abs=1e-6), r
        assert r["rate"] == r["count"] / r["draws"]


def test_wilson_bounds_quoted_by_the_published_tables():
    assert _wilson(0, 10)[1] == pytest.approx(0.2775, abs=5e-5)  # "0 alarms in 10 draws: 27.8%"
    assert _wilson(0, 40)[1] == pytest.approx(0.0876, abs=5e-5)  # "0 alarms in 40 draws bound the rate at 8.8%"
    e = error_rates(_doc(30000, 9000, 6, 8, synthetic=9000))
    assert e["false_alarms"]["interval_text"] == "0% to 27.8%"


# ---------------------------------------------------------------------------------------------------------------
# the template


def test_the_template_renders_a_section_with_the_table_and_sentences():
    e = error_rates(_doc(1000, 1000, 6, 8))
    html = render("error_rates.html.j2", e=e)
    assert html.startswith('<section class="spr-export spr-error-rates">')
    assert "<h3>How often this verdict would be wrong, for data like these</h3>" in html
    assert '<table class="spr-summary-table spr-error-rates-table">' in html
    assert html.count('<tr class="spr-error-rates-group">') == 2
    assert html.count('<tr class="spr-error-rates-') == len(e["rows"]) + 2 == 14
    assert '<td class="spr-num">2</td><td class="spr-num">5.0% [1.4%, 16.5%]</td>' in html
    assert html.count('<span class="spr-error-rates-sentence">') == len(e["sentences"])
    assert "This report&#39;s verdict is low risk" in html  # sentences are escaped, not trusted


def test_the_template_renders_a_cell_not_measured_without_a_table():
    html = render("error_rates.html.j2", e=error_rates(_doc(300000, 1000, 6, 8)))
    assert "<table" not in html and "No measurement near 300,000 records" in html


def test_the_template_escapes_every_string():
    e = error_rates(_doc(1000, 1000, 6, 8))
    e["cell"]["words"] = "<script>alert(1)</script>"
    e["rows"][0]["what"] = "<img src=x onerror=alert(1)>"
    e["rows"][0]["result"] = "<b>0</b>"
    e["sentences"].append('"><svg onload=alert(1)>')
    html = render("error_rates.html.j2", e=e)
    assert "<script>" not in html and "<img" not in html and "<svg" not in html and "<b>0" not in html
    assert "&lt;script&gt;" in html and "&lt;img src=x" in html and "&lt;svg onload" in html


# ---------------------------------------------------------------------------------------------------------------
# the packaged cells against the published tables (docs/calibration.md)


def _published_rows(start: str, stop: str) -> list[list[str]]:
    lines = (ROOT / "docs" / "calibration.md").read_text(encoding="utf-8").splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.startswith(start))
    rows = []
    for ln in lines[i:]:
        if ln.startswith(stop):
            break
        if ln.startswith("| ") and not ln.startswith(("| shape |", "| leak |")):
            rows.append([c.strip() for c in ln.strip().strip("|").split("|")])
    return rows


def _records(label: str, holdout: str) -> dict:
    n = [int(x.replace(",", "")) for x in label.split("/")]
    n = n * 3 if len(n) == 1 else n
    return {"training": n[0], "synthetic": n[1], "holdout": n[2] if holdout == "yes" and len(n) > 2 else None}


def test_the_packaged_cells_carry_the_metadata():
    cells = load_cells()
    assert cells["date"] == "2026-12-06" and cells["machine"] == "2-core machine"
    assert re.fullmatch(r"[0-9a-f]{40}", cells["commit"])
    assert "--part honest" in cells["command"] and "--part leaks" in cells["command"] and "--power" in cells["command"]
    assert cells["shapes"]["adult_numeric"] == {**cells["shapes"]["adult_numeric"], "numeric_columns": 6,
                                                "categorical_columns": 0}
    assert cells["shapes"]["adult_categorical"]["categorical_columns"] == 4


def test_the_packaged_honest_cells_match_every_row_of_the_published_table():
    rows = _published_rows("**False alarms**", "- Over every honest cell")
    cells = load_cells()["honest"]
    assert len(rows) == len(cells) == 56
    for row, cell in zip(rows, cells):
        shape, size, holdout, generator, counts, alarms = row[:6]
        assert (cell["shape"], cell["holdout"], cell["generator"]) == (shape, holdout == "yes", generator), row
        assert cell["records"] == _records(size, holdout), row
        assert [cell["counts"][lv] for lv in LEVELS] == [int(x) for x in counts.split("/")], row
        k, n = (int(x) for x in re.match(r"(\d+)/(\d+) =", alarms).groups())
        assert (cell["counts"]["medium"] + cell["counts"]["high"], cell["draws"]) == (k, n), row
    # the page's sum: 20 alarms in 1,880 draws
    assert sum(c["counts"]["medium"] + c["counts"]["high"] for c in cells) == 20
    assert sum(c["draws"] for c in cells) == 1880


def test_the_packaged_leak_cells_match_every_row_of_the_published_table():
    rows = _published_rows("**Power** (", "- Adult and Bank as they are")
    cells = load_cells()["leaks"]
    assert len(rows) == len(cells) == 82
    for row, cell in zip(rows, cells):
        shape, size, holdout, leak, share, high = row[:6]
        assert (cell["shape"], cell["holdout"], cell["leak"]) == (shape, holdout == "yes", leak), row
        assert cell["records"] == _records(size, holdout), row
        assert cell["share_leaked"] == (1.0 if share.startswith("all") else float(share.rstrip("%")) / 100), row
        k, n = (int(x) for x in re.match(r"(\d+)/(\d+) =", high).groups())
        assert (cell["high"], cell["draws"]) == (k, n), row


def test_the_packaged_smallest_shares_match_every_row_of_the_published_table():
    rows = _published_rows("**Smallest leaked share", "- Exact copies are graded high from")
    cells = load_cells()["smallest_share"]
    assert len(rows) == len(cells) == 20
    for row, cell in zip(rows, cells):
        leak, size, holdout, *values = row
        assert (cell["leak"], cell["holdout"], cell["draws"]) == (leak, holdout == "yes", 10), row
        assert cell["records"] == _records(size, holdout), row
        assert cell["verdict_smallest_share"] == pytest.approx(float(values[-1].rstrip("%")) / 100), row
        for name, v in zip(cell["checks"], values):
            c = cell["checks"][name]
            if v == "n/a":
                assert c is None, (row, name)
            elif v.startswith("> "):
                assert c == {"above": pytest.approx(float(v[2:].rstrip("%")) / 100)}, (row, name)
            else:
                assert c == {"smallest": pytest.approx(float(v.rstrip("%")) / 100)}, (row, name)
