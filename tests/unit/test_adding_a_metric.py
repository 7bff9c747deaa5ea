"""The documentation's "Adding a metric" (docs/contributing.md): the one file it shows, run from that page itself,
registers a metric that
appears in ``results()`` with its level, the cover's sentence, the notebook HTML, the JSON, the sliders (for its
parameter) and the HTML export, and no other module needed a change."""

from __future__ import annotations

import json
import re
import types

import numpy as np
import pandas as pd
import pytest
from _support.page_text import no_wbr
from _support.paths import ROOT

from synthpriv_report import Evaluation
from synthpriv_report.core.registry import get_spec, unregister
from synthpriv_report.core.results import ResultSet
from synthpriv_report.display import bundle
from synthpriv_report.text.wording import check_sentence

GUIDE = ROOT / "docs" / "contributing.md"


def readme_metric_module() -> str:
    """The code block under the ``<!-- adding-a-metric -->`` marker of docs/contributing.md."""
    text = GUIDE.read_text(encoding="utf-8")
    m = re.search(r"<!-- adding-a-metric -->\s*```python\n(.*?)```", text, re.S)
    assert m, "docs/contributing.md's 'Adding a metric' section lost its code block"
    return m.group(1)


@pytest.fixture(scope="module")
def ev():
    module = types.ModuleType("close_share")
    exec(compile(readme_metric_module(), "docs/contributing.md (Adding a metric)", "exec"), module.__dict__)
    rng = np.random.default_rng(1)
    T = pd.DataFrame({"a": rng.normal(size=80), "c": rng.choice(list("xyz"), 80)})
    S = pd.concat([T.iloc[:30], pd.DataFrame({"a": rng.normal(size=50), "c": rng.choice(list("xyz"), 50)})],
                  ignore_index=True)
    e = Evaluation(T, S, progress=False, metrics=["exact_copies", "close_share"])
    yield e
    unregister("close_share")


def test_the_readme_metric_is_declared_whole(ev):
    spec = get_spec("close_share")
    assert spec.kind() == "share" and spec.finding is not None and not spec.drives_verdict
    m = ev.results()["close_share"].to_dict()
    assert check_sentence(m) == spec.finding(m) and "of the synthetic records lie within 0.25" in check_sentence(m)


def test_readme_metric_in_results_with_its_level(ev):
    r = ev.results()["close_share"]
    assert r.computed and 30 / 80 <= r.value <= 1.0 and r.level in ("medium", "high")
    assert r.level_rule.source == "package default (example)"
    lower = ev.results(close_cut=0.0)["close_share"]
    assert lower.value == pytest.approx(30 / 80)  # only the copies are at distance 0
    assert ev.results(levels={"close_share": {"medium": 1.0, "high": 1.0}})["close_share"].level == "low"


def test_readme_metric_in_notebook_html_with_its_figure(ev):
    html = no_wbr(bundle(ev)["text/html"])
    assert "close_share" in html and "Close share" in html
    assert "Distances of synthetic records to the training data, with the close cut" in html


def test_readme_metric_in_json_and_back(ev, tmp_path):
    doc = ev.to_dict()
    assert "close_share" in doc["results"]["metrics"]
    path = tmp_path / "r.json"
    ev.to_json(path)
    assert "close_share" in json.loads(path.read_text())["metrics"]
    back = ResultSet.from_json(path)
    assert back["close_share"].value == ev.results()["close_share"].value


@pytest.mark.slow  # about a second
def test_readme_parameter_has_a_slider(ev):
    x = ev.explore()
    assert "close_cut" in x.sliders and "close_share" in x.images
    n = ev.search_count
    x.sliders["close_cut"].value = 0.0
    assert ev.search_count == n


def test_readme_metric_in_html_export(ev, tmp_path):
    out = tmp_path / "r.html"
    ev.to_html(out)
    page = no_wbr(out.read_text(encoding="utf-8"))
    assert "close_share" in page and "Distances of synthetic records to the training data, with the close cut" in page


@pytest.mark.slow  # about 1 s
def test_the_readme_metric_holds_the_invariants(ev):
    """The guide's `check_metric` line: the example metric passes every check that applies to it (it is not
    declared copy-sensitive, so the copy check is left out)."""
    from synthpriv_report.extend import check_metric

    assert check_metric("close_share") == ["range", "row_order", "reproducible", "json", "details", "not_computed",
                                           "no_search_on_move"]


def test_the_readme_metric_imports_only_from_extend():
    imports = [ln for ln in readme_metric_module().splitlines() if ln.startswith(("import ", "from "))]
    assert imports[0] == "import numpy as np"
    assert all(ln.startswith("from synthpriv_report.extend import") for ln in imports[1:]), imports
