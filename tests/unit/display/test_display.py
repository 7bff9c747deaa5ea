"""Rich display bundles (synthpriv_report.display): HTML, markdown, text; escaping; no search while rendering."""

from __future__ import annotations

import re

import markupsafe
import numpy as np
import pandas as pd
import pytest
from _support.frames import Sets, mixed

from synthpriv_report import Evaluation
from synthpriv_report.core.applicability import notes_for
from synthpriv_report.core.registry import get_spec
from synthpriv_report.core.results import MetricResult
from synthpriv_report.display import bundle, environment
from synthpriv_report.text.wording import check_sentence, fmt_value

EVIL_COL = "<script>alert(1)</script>"
EVIL_VAL = "<img src=x onerror=alert(2)>"
SECTION2 = ["dcr", "exact_copies", "holdout_dcr_share", "privacy_score", "nndr", "dcr_test", "nndr_test"]


def frames(n: int = 120, seed: int = 0) -> Sets:
    """Two numeric columns and a categorical one named by a script tag, with a script payload among its values;
    a quarter of the synthetic records are exact copies of real ones."""
    return mixed(n, seed, n_synthetic=n, copied=n // 4, category=EVIL_COL, categories=(EVIL_VAL, "plain", "other"))


@pytest.fixture(scope="module")
def ev() -> Evaluation:
    T, S, H = frames()
    e = Evaluation(T, S, H, metrics=SECTION2, progress=False, n_bootstrap=50)
    e.results()
    return e


@pytest.fixture(scope="module")
def b(ev) -> dict:
    return bundle(ev)


@pytest.mark.slow  # about 2 s
def test_bundle_has_plain_and_html_but_no_markdown(ev, b):
    # no text/markdown: a column name must never reach a Markdown renderer
    assert set(b) == {"text/plain", "text/html"}
    assert b["text/plain"].startswith("Synthetic data privacy evaluation")
    assert "Verdict:" in b["text/plain"]
    assert ev._repr_mimebundle_()["text/plain"] == b["text/plain"]


def test_include_exclude_keep_plain_fallback(ev):
    b = bundle(ev, exclude={"text/html"})
    assert "text/html" not in b and "text/plain" in b
    assert set(bundle(ev, include={"text/markdown"})) == {"text/plain"}


@pytest.mark.slow  # about 1 s
def test_rendering_never_searches(ev):
    before = ev.search_count
    bundle(ev.results())
    for name in ("dcr", "privacy_score", "nndr", "holdout_dcr_share"):
        bundle(ev[name])
    assert ev.search_count == before


def test_malicious_column_name_is_escaped(b):
    html = b["text/html"]
    assert EVIL_COL not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script src=" not in html
    assert "<script" not in html  # no script at all: the views are static


def test_html_is_self_contained_and_scoped(b):
    html = b["text/html"]
    assert "http://" not in html and "https://" not in html  # no external fonts, scripts or images
    assert "@import" not in html
    assert html.count("data:image/svg+xml;base64,") >= 3  # overview, DCR, privacy score, NNDR, holdout share
    css = re.search(r"<style>(.*?)</style>", html, re.S).group(1)
    selectors = [s.strip() for block in css.split("}") if "{" in block for s in block.split("{")[0].split(",")]
    # every rule is scoped under the root class ("html .spr-report.spr-report ..." outweighs JupyterLab's rules)
    # (or under it on JupyterLab's dark theme, which JupyterLab marks on the page's body)
    dark = 'body[data-jp-theme-light="false"] '
    assert selectors and all(s.removeprefix("html ").removeprefix(dark).startswith(".spr-report")
                             for s in selectors), selectors


@pytest.mark.slow  # about a second
def test_unique_ids_per_render(ev, b):
    ids1 = re.findall(r'id="([^"]+)"', b["text/html"])
    ids2 = re.findall(r'id="([^"]+)"', bundle(ev.results())["text/html"])
    assert len(ids1) == len(set(ids1))
    assert not set(ids1) & set(ids2)


def test_summary_layout_for_non_specialist(ev, b):
    rs = ev.results()
    html = b["text/html"]
    # verdict first, then the checks behind it, then the other sections in order
    titles = ["The checks behind the verdict", "How distinguishable is the synthetic data?",
              "Other measures (not behind the verdict)"]
    pos = [html.index(t) for t in titles if t in html]
    assert html.index("Verdict") < pos[0] and pos == sorted(pos)
    for name, level in rs.verdict.checks:  # one plain sentence per check that ran, with its number
        if level is not None:
            assert environment().from_string("{{ r }}").render(r=check_sentence(rs[name].to_dict())) in html
    assert "higher is riskier" in html and "higher is safer" in html
    r = rs["privacy_score"]
    import html as _html

    assert r.level_rule.description in _html.unescape(html) and r.level_rule.source in _html.unescape(html)
    assert get_spec("privacy_score").summary.split(";")[0] in html
    assert "With the holdout in place of the synthetic data" in html


@pytest.mark.slow  # about a second
def test_not_computed_listed_with_reason():
    T, S, _ = frames(60)
    e = Evaluation(T, S, metrics=SECTION2, progress=False, n_bootstrap=20)
    b = bundle(e)
    assert "needs a holdout set" in b["text/html"]
    assert "holdout_dcr_share" in b["text/plain"] and "not computed" in b["text/plain"]


def test_metric_result_view_has_definition_value_figure_details(ev):
    r = ev["privacy_score"]
    b = r._repr_mimebundle_()
    html = b["text/html"]
    assert get_spec("privacy_score").definition.split(".")[0] in html
    assert "data:image/svg+xml;base64," in html
    assert "f_<wbr>ts" in html and "Details" in html  # names may break after their underscores
    assert fmt_value(r.value, "score") in b["text/plain"]


def test_standalone_result_renders_without_figure():
    r = MetricResult("privacy_score", 42.0, interval=(40.0, 44.0), direction="higher_is_safer", level="high",
                     title="Proximity-ratio privacy score", section="2.3", value_range=(0.0, 100.0))
    b = bundle(r)
    assert "42" in b["text/plain"] and "<img" not in b["text/html"]
    nc = bundle(MetricResult("mir", None, reason_not_computed="needs <b>stuff</b>"))
    assert "needs &lt;b&gt;stuff&lt;/b&gt;" in nc["text/html"]


def test_markdown_lists_groups_and_escapes_every_string(ev):
    from synthpriv_report.display import render_markdown

    md = render_markdown(ev)
    assert "**Verdict:" in md and "### The checks behind the verdict" in md and "| Measure |" in md
    assert re.search(r"(?<!\\)[<\[]", md) is None  # every '<' and '[' is escaped: no markup, no link
    hostile = render_markdown(MetricResult("mir", None, reason_not_computed="<script>x</script> [a](javascript:b)"))
    assert "\\<script\\>x\\</script\\> \\[a\\]\\(javascript:b\\)" in hostile


def test_explain_masks_real_values_by_default(ev):
    x = ev.explain(0)
    b = x._repr_mimebundle_()
    assert x.values is None and "masked" in b["text/plain"]
    assert x.nearest_synthetic["distance"] == 0.0  # record 0 was copied into S
    assert "exact copy" in b["text/html"]
    assert set(x.nearest_real["differing_columns"]) <= set(ev.data.columns)
    with pytest.raises(ValueError, match="real_index"):
        ev.explain(10_000)


def test_explain_reveals_and_escapes_values():
    T, S, H = frames(60)
    T.loc[0, EVIL_COL] = EVIL_VAL
    e = Evaluation(T, S, H, metrics=["dcr"], progress=False, reveal_real_values=True, n_bootstrap=20)
    e.results()
    x = e.explain(0)
    assert x.values is not None and x.values[2]["real"] == EVIL_VAL
    html = x._repr_mimebundle_()["text/html"]
    assert EVIL_VAL not in html and "&lt;img src=x onerror=alert(2)&gt;" in html


def _note_ev(n_t: int, n_h: int, n_cols: int = 3, continuous: bool = False) -> Evaluation:
    rng = np.random.default_rng(1)

    def make(m):
        d = {f"c{j}": rng.choice(list("ab"), m) for j in range(n_cols - 1)}
        d["num"] = rng.normal(size=m) if continuous else rng.integers(0, 3, m).astype(float)
        return pd.DataFrame(d)

    return Evaluation(make(n_t), make(n_t), make(n_h), metrics=["dcr"], progress=False)


def test_applicability_notes():
    e = _note_ev(400, 50, continuous=True)
    crp = MetricResult("crp", 0.1)
    notes = notes_for(e.context, get_spec("crp"), crp)
    # 'num' has ~400 distinct values > 50 and > 5% of 400 = 20 -> continuous; holdout 50 < 25% of 400;
    # H = 50 < 100 -> tiny
    # crp matches on every analysed column: 'num' is not a key field and the note must not call it one
    # (regression: the warning named a column that was not a key field a "key field")
    assert any("continuous column(s) num" in s for s in notes)
    assert not any("key field" in s for s in notes)
    assert any("under 25%" in s for s in notes) is False  # crp is not a holdout metric and has no calibration
    assert any("tiny data set (holdout 50" in s for s in notes)
    share = MetricResult("holdout_dcr_share", 0.5, space="gower")
    assert any("under 25%" in s for s in notes_for(e.context, get_spec("holdout_dcr_share"), share))
    wide = _note_ev(150, 150, n_cols=35)
    assert any("35 analysed columns" in s for s in notes_for(wide.context, get_spec("dcr"), MetricResult("dcr", 0.1)))
    assert notes_for(wide.context, get_spec("dcr"), MetricResult("dcr", None, reason_not_computed="x")) == []
    ok = _note_ev(200, 200)
    assert notes_for(ok.context, get_spec("zcap"), MetricResult("zcap", 0.1)) == []


# ---------------------------------------------------------------------------------------------------------------
# issue 29: views that fit a screen


@pytest.mark.slow  # about 1 s
def test_a_check_shown_alone_says_it_drives_the_verdict(ev):
    """Regression: the cards of privacy_score and holdout_dcr_share said they did not drive the verdict (the view
    was given no list of driving checks); a card takes it from the registry declaration."""
    rs = ev.results()
    for name in ("privacy_score", "holdout_dcr_share"):
        assert get_spec(name).drives_verdict
        html = bundle(rs[name])["text/html"]
        assert "Drives the verdict." in html and "Does not drive the verdict" not in html, name
        assert "Drives the verdict." in bundle(rs[name])["text/plain"]
    assert "Does not drive the verdict" in bundle(rs["dcr"])["text/html"]  # dcr is shown for context


def test_the_verdict_displays_in_words_not_as_a_dataclass(ev):
    v = ev.results().verdict
    out = v._repr_mimebundle_()
    assert set(out) == {"text/plain", "text/html"}
    assert "Verdict(" not in out["text/html"] and "Verdict(" not in out["text/plain"]
    assert out["text/plain"].startswith(f"Verdict: {v.level.replace('_', ' ').upper()}")
    assert 'class="spr-verdict spr-' in out["text/html"]
    for name, level in v.checks:  # every check behind it, by its title, with its level in words
        if level is not None:
            assert get_spec(name).title in out["text/html"]


@pytest.mark.slow  # about 3 s
def test_the_notebook_summary_is_compact_and_the_full_one_is_not(ev):
    """In a notebook (the bundle) the level rules with their sources appear once, in an appendix, and the figures
    and details are folded; render_html(compact=False) keeps every rule in its row."""
    from synthpriv_report.display import render_html

    rs = ev.results()
    compact, full = bundle(rs)["text/html"], render_html(rs, compact=False)
    source = str(markupsafe.escape(rs["privacy_score"].level_rule.source))
    assert source and compact.count(source) == 1 and full.count(source) >= 1
    assert "Appendix: level rules and their sources" in compact and "Appendix" not in full
    def shown(html: str) -> str:  # what is on screen before anything is unfolded
        return re.sub(r"<details>.*?</details>", "", html, flags=re.S)

    assert len(shown(compact)) < len(shown(full)) / 2
    before_appendix = compact.split("Appendix: level rules")[0]
    assert "<details><summary>Figures of these measures" in before_appendix  # figures folded
    card = bundle(rs["privacy_score"])["text/html"]
    assert "<details open" not in card and "<details><summary>Details (" in card


@pytest.mark.slow  # about 3 s
def test_numbers_in_the_views_are_rounded(ev):
    """No raw float such as 0.15000000000000002 in a view (details and settings included)."""
    rs = ev.results(alpha=0.15000000000000002)
    for obj in (rs, rs["privacy_score"], rs["dcr"], rs["nndr"]):
        html = re.sub(r'src="data:[^"]*"', "", bundle(obj)["text/html"])
        assert not re.findall(r"\d\.\d{7,}", html), re.findall(r".{40}\d\.\d{7,}.{10}", html)[:3]


def test_figures_turn_dark_on_a_dark_theme_only(b):
    css = re.search(r"<style>(.*?)</style>", b["text/html"], re.S).group(1)
    rule = re.search(r'body\[data-jp-theme-light="false"\] \.spr-report\.spr-report figure img,[^{]*\{([^}]*)\}',
                     css)
    assert rule and "invert(" in rule.group(1) and "hue-rotate(180deg)" in rule.group(1)
