"""No string runs: script payloads as column names, category values, key and sensitive fields, title and every
string field of a JSON report are shown as text in the HTML export (checked in headless Chromium) and in both PDF
engines, and cannot change the printed verdict.

Regression: a CSV header ``<img src="x" onerror=...>`` used as a key field ran in the browser through the Methods
section's Markdown, and with ``--pdf-engine chromium`` rewrote a HIGH RISK PDF to say LOW RISK.
"""

from __future__ import annotations

import copy
import itertools
import re
from pathlib import Path
from typing import Any

import pytest
from _support.hostile import PAYLOADS, compact, open_page
from _support.pdf import pdf_text

from synthpriv_report.export import CSP, build_notebook, from_json, html_to_pdf, render_html, report_data, to_html
from synthpriv_report.export.templating import NAME_WIDTH, shorten_text

# fields whose values are fixed words of the schema (levels, directions, a level rule's unit, the schema id): not
# free text
_FIXED = {"schema", "level", "direction", "unit"}


def visible(payload: str, width: int = NAME_WIDTH) -> str:
    """What a page must show of a payload: all of it, or the beginning of a shortened one."""
    short = shorten_text(payload, width)
    return short.rstrip("…") if short != payload else payload


def poison(doc: dict[str, Any], *, checkable: bool = True) -> dict[str, Any]:
    """Every free string of a report document, and every key of its free-form mappings, replaced by a payload.

    Fixed words of the schema (levels, directions, units, the schema id) and the figures' evidence keep their values.
    A loaded report is checked, not trusted (its levels and verdict are derived again from the stored numbers and
    details), so by default (``checkable``) the metric names, their details and the verdict's metric names keep
    their values too and the document still draws its HIGH RISK verdict; with ``checkable=False`` the metrics are
    renamed to payloads and their details' keys too, which a report may only hold for metrics without a level (an
    unknown metric's level cannot be checked), so levels are cleared and the verdict is "not assessed". The
    digest is dropped: the edit is deliberate (a document without a digest is accepted).
    """
    cycle = itertools.cycle(PAYLOADS)
    fixed = _FIXED | ({"metric"} if checkable else set())

    def values(v: Any, key: str | None = None) -> Any:
        if isinstance(v, str):
            return v if key in fixed else next(cycle)
        if isinstance(v, list):
            return [values(x, key) for x in v]
        if isinstance(v, dict):
            return {k: values(x, k) for k, x in v.items()}
        return v

    def everything(v: Any) -> Any:
        if isinstance(v, str):
            return next(cycle)
        if isinstance(v, list):
            return [everything(x) for x in v]
        if isinstance(v, dict):
            return {next(cycle): everything(x) for x in v.values()}
        return v

    metrics = {}
    for key, m in copy.deepcopy(doc["metrics"]).items():
        name = key if checkable else next(cycle)
        keep = ("evidence", "details") if checkable else ("evidence",)
        m = {k: x if k in keep else everything(x) if k == "details" else values(x, k) for k, x in m.items()}
        m["name"] = name
        if not checkable:
            m["level"] = None
        metrics[name] = m
    out = {k: everything(v) if k in ("params", "settings", "fingerprints", "versions", "inputs") else values(v, k)
           for k, v in copy.deepcopy(doc).items() if k not in ("metrics", "digest")}
    out["metrics"] = metrics
    if not checkable:
        v = out["verdict"]
        v["level"] = "not_assessed"
        v["checks"] = [{**c, "level": None} for c in v["checks"]]
    # the sentences under the verdict are derived again from the metrics (with their payload titles) and checked,
    # so the document carries the ones its poisoned metrics give
    from synthpriv_report.export.document import results_from_document
    from synthpriv_report.grading.verdict import compute_verdict

    res = results_from_document(out)
    driving = [c["metric"] if isinstance(c, dict) else c[0] for c in out["verdict"]["checks"]]
    out["verdict"]["reasons"] = list(compute_verdict({n: res[n] for n in res.keys()}, driving).reasons)
    return out


@pytest.fixture(scope="module")
def pages(hostile_ev: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("xss")
    live = to_html(hostile_ev, d / "live.html", title=PAYLOADS[0])
    doc = poison(hostile_ev.to_json())
    again = from_json(doc).to_html(d / "from_json.html", title=PAYLOADS[1])
    renamed = from_json(poison(hostile_ev.to_json(), checkable=False)).to_html(d / "from_json_renamed.html",
                                                                               title=PAYLOADS[2])
    # the same pages without their Content-Security-Policy: escaping alone must hold
    for p in (live, again, renamed):
        text = p.read_text(encoding="utf-8")
        bare = re.sub(r'<meta[^>]*Content-Security-Policy[^>]*>', "", text)
        assert bare != text
        (d / f"bare_{p.name}").write_text(bare, encoding="utf-8")
    return {"live": live, "from_json": again, "from_json_renamed": renamed, "bare_live": d / "bare_live.html",
            "bare_from_json": d / "bare_from_json.html", "bare_from_json_renamed": d / "bare_from_json_renamed.html"}


def test_poisoned_document_is_valid_and_full_of_payloads(hostile_ev: Any) -> None:
    loaded = from_json(poison(hostile_ev.to_json()))
    assert loaded.verdict.level == "high"
    assert all(r.title in PAYLOADS for r in loaded.results.values())
    renamed = from_json(poison(hostile_ev.to_json(), checkable=False))
    names = list(renamed.results)
    assert all(n in PAYLOADS for n in names)
    assert all(renamed[n].reason_not_computed is None or renamed[n].reason_not_computed in PAYLOADS for n in names)


@pytest.mark.browser
@pytest.mark.parametrize("page", ["live", "from_json", "from_json_renamed", "bare_live", "bare_from_json",
                                  "bare_from_json_renamed"])
def test_no_payload_runs_and_each_shows_as_text(page: str, pages: dict[str, Path], browser: Any) -> None:
    seen = open_page(browser, pages[page])
    assert seen["pwned"] == "", f"a payload ran in {page}"
    assert seen["scripts"] == 0 and seen["handlers"] == [] and seen["links"] == [], seen
    text = seen["text"]
    missing = [p for p in PAYLOADS if visible(p) not in text]
    assert not missing, f"payloads not shown as text in {page}: {missing}"
    if not page.startswith("bare"):
        assert seen["csp"] == CSP and seen["cspFirst"], seen["csp"]
    if page.endswith("live"):
        assert "Verdict: HIGH RISK" in text and "LOW RISK" not in text


def test_csp_meta_is_first_in_head(pages: dict[str, Path]) -> None:
    text = pages["live"].read_text(encoding="utf-8")
    head = text[text.index("<head>"):text.index("</head>")]
    metas = re.findall(r"<meta[^>]*>", head)
    assert "charset" in metas[0]
    assert 'http-equiv="Content-Security-Policy"' in metas[1] and f'content="{CSP}"' in metas[1]
    assert "<script" not in head and "<link" not in head
    assert "default-src 'none'" in CSP and "script-src" not in CSP


def test_no_user_string_in_a_markdown_cell(hostile_ev: Any) -> None:
    nb = build_notebook(report_data(hostile_ev), title=PAYLOADS[0])
    assert all(c.cell_type == "code" for c in nb.cells)
    for c in nb.cells:
        assert not any(p in c.source for p in PAYLOADS)
        for out in c.outputs:
            assert set(out.data) == {"text/plain", "text/html"}
            raw = [p for p in PAYLOADS if set("<>&\"'") & set(p) and p in out.data["text/html"]]
            assert not raw, f"unescaped in {c.source}: {raw}"


@pytest.fixture(scope="module")
def live_html(hostile_ev: Any) -> str:
    return render_html(hostile_ev, title=PAYLOADS[0])


@pytest.mark.parametrize("engine", ["weasyprint", "chromium"])
def test_pdf_prints_the_true_verdict_and_payloads_as_text(engine: str, live_html: str) -> None:
    if engine == "chromium":
        if not Path("/usr/bin/chromium").exists():
            pytest.skip("chromium not installed at /usr/bin/chromium")
        pytest.importorskip("playwright", reason="playwright not installed (the Chromium PDF engine uses it)")
    text = pdf_text(html_to_pdf(live_html, engine=engine))
    flat = compact(text)
    assert "Verdict:HIGHRISK" in flat
    assert "LOWRISK" not in flat and "MEDIUMRISK" not in flat
    # short payloads print whole, as text (whitespace moves with line wrapping)
    shown = [p for p in PAYLOADS if len(p) <= 60]
    assert shown
    missing = [p for p in shown if compact(p) not in flat]
    assert not missing, f"{engine}: payloads not printed as text: {missing}"


def test_chromium_prints_with_javascript_disabled(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Chromium engine opens its page in a context with JavaScript off and the network closed."""
    pytest.importorskip("playwright")
    from synthpriv_report.export import render

    seen: dict[str, Any] = {}

    class Page:
        def route(self, *a: Any) -> None:
            pass

        def set_content(self, html: str, **kw: Any) -> None:
            seen["html"] = html

        def pdf(self, **kw: Any) -> bytes:
            return b"%PDF-fake"

    class Context:
        def new_page(self) -> Page:
            return Page()

    class Browser:
        def new_context(self, **kw: Any) -> Context:
            seen["context"] = kw
            return Context()

        def new_page(self, **kw: Any) -> Page:  # pragma: no cover - would bypass the context
            raise AssertionError("a page must be opened in a context with JavaScript disabled")

        def close(self) -> None:
            pass

    class Chromium:
        def launch(self, **kw: Any) -> Browser:
            seen["args"] = kw["args"]
            return Browser()

    class PW:
        chromium = Chromium()

        def __enter__(self) -> PW:
            return self

        def __exit__(self, *a: Any) -> None:
            pass

    import playwright.sync_api

    monkeypatch.setattr(playwright.sync_api, "sync_playwright", lambda: PW())
    assert render._chromium_pdf("<html><head></head><body>x</body></html>", "/bin/true") == b"%PDF-fake"
    assert seen["context"]["java_script_enabled"] is False
    assert "--disable-quic" in seen["args"]
