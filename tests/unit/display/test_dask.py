"""The notebook line that links to the Dask dashboard (synthpriv_report.display.dask)."""

from __future__ import annotations

from types import SimpleNamespace

from synthpriv_report.display.dask import live_notice, notice


def test_running_notice_links_to_the_dashboard_without_script():
    b = notice("http://127.0.0.1:8787/status", running=True)._repr_mimebundle_()
    assert '<a href="http://127.0.0.1:8787/status"' in b["text/html"]
    assert "<script" not in b["text/html"].lower()
    assert b["text/plain"] == ("Neighbour searches are running on the Dask cluster. "
                               "Dask dashboard: http://127.0.0.1:8787/status")


def test_a_hostile_link_is_escaped_and_only_http_becomes_a_link():
    html = notice('http://h/"><script>alert(1)</script>', running=True)._repr_mimebundle_()["text/html"]
    assert "<script>" not in html and "&lt;script&gt;" in html and "&#34;&gt;" in html
    html = notice("javascript:alert(1)", running=True)._repr_mimebundle_()["text/html"]
    assert "href" not in html and "javascript:alert(1)" in html  # shown as text, never a link
    html = notice(None, running=True)._repr_mimebundle_()["text/html"]
    assert "dashboard" not in html.lower()


def test_finished_notice_counts_searches_tasks_and_workers():
    log = [SimpleNamespace(where="dask", blocks=3, workers=("tcp://a:1", "tcp://b:2")),
           SimpleNamespace(where="dask", blocks=2, workers=("tcp://a:1",)),
           SimpleNamespace(where="local", blocks=1, workers=())]
    text = notice("http://x:8787/status", running=False, searches=log).text
    assert text == "Done: 2 neighbour searches ran as 5 tasks on 2 Dask workers."
    assert notice(None, running=False, searches=[]).text == "Done: no new neighbour search was needed."


def test_no_notice_outside_a_notebook_kernel():
    assert live_notice("http://127.0.0.1:8787/status", []) is None
