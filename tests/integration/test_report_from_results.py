"""Reports are drawn from results alone: JSON round trip with the same figures; masking withholds data, not words."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from synthpriv_report import Evaluation
from synthpriv_report.core.results import ResultSet

SECTION2 = ["dcr", "exact_copies", "holdout_dcr_share", "privacy_score", "nndr", "dcr_test", "nndr_test"]


def _real_only_value(word: str, seed: int = 0):
    rng = np.random.default_rng(seed)

    def make(m, cats):
        return pd.DataFrame({"x": rng.normal(size=m), "c": rng.choice(cats, m)})

    T = make(120, [word, "b", "c"])  # the real-only value `word` never occurs in the synthetic data
    H = make(80, [word, "b", "c"])
    S = make(120, ["b", "c"])
    return T, S, H


def _images(page: str) -> int:
    return len(re.findall(r"<img\b", page))


@pytest.fixture(scope="module")
def ev():
    T, S, H = _real_only_value("zq")
    e = Evaluation(T, S, H, progress=False, metrics=SECTION2, n_bootstrap=50)
    e.results()
    return e


def test_json_report_draws_the_same_figures(ev, tmp_path):
    first, again = tmp_path / "a.html", tmp_path / "b.html"
    ev.to_html(first)
    ev.to_json(tmp_path / "r.json")
    rs = ResultSet.from_json(tmp_path / "r.json")
    assert rs.meta.get("fingerprints") == ev.fingerprints
    rs.to_html(again)
    n = _images(first.read_text(encoding="utf-8"))
    assert n >= 5 and _images(again.read_text(encoding="utf-8")) == n
    assert rs["dcr"].evidence and rs["privacy_score"].value == ev.results()["privacy_score"].value


def test_no_live_evaluation_is_needed_for_figures(ev):
    import dataclasses

    from synthpriv_report.display.figures import figures_for

    for name in ("dcr", "privacy_score", "nndr", "holdout_dcr_share", "exact_copies"):
        clone = dataclasses.replace(ev.results()[name])  # a copy, known to no evaluation
        assert figures_for(clone), name


@pytest.mark.parametrize("word", ["train", "holdout", "synthetic", "risk"])
def test_a_real_value_equal_to_the_reports_words_changes_nothing_but_itself(word, tmp_path):
    pages = {}
    for w in (word, "zq"):
        T, S, H = _real_only_value(w)
        e = Evaluation(T, S, H, progress=False, metrics=SECTION2, n_bootstrap=50)
        out = tmp_path / f"{w}.html"
        e.to_html(out)
        pages[w] = out.read_text(encoding="utf-8")
    page = pages[word]
    assert "[real value withheld]" not in page
    assert _images(page) == _images(pages["zq"])  # no figure disappears
    # the report's own sentences are intact: each of its words occurs exactly as often as in the same report whose
    # real-only category is called "zq" (the data are otherwise identical)
    for phrase in ("holdout to train", word):
        assert page.count(phrase) == pages["zq"].count(phrase) > 0, phrase


def test_a_report_drawn_again_from_json_keeps_its_time_and_says_where_it_comes_from(tmp_path):
    # the cover's "Made with ..." line dates the computation, not the re-rendering of a saved report
    from synthpriv_report.datasets import load_demo

    d = load_demo()
    ev = Evaluation(d.real.iloc[:200], d.synthetic.iloc[:200], d.holdout.iloc[:100], metrics=["exact_copies"],
                    progress=False, random_state=0)
    path = tmp_path / "r.json"
    ev.to_json(path)
    saved = json.loads(path.read_text(encoding="utf-8"))
    saved["created"] = "2020-01-02T03:04:05+00:00"
    del saved["digest"]  # a deliberate edit (a document without a digest is accepted)
    path.write_text(json.dumps(saved), encoding="utf-8")
    again = ResultSet.from_json(path).to_json()
    assert again["created"] == "2020-01-02T03:04:05+00:00"
    ResultSet.from_json(path).to_html(tmp_path / "r.html")
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "2020-01-02T03:04:05+00:00" in page and "drawn again from a saved JSON report" in page
    assert "computed from the data" not in page
