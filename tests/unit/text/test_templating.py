"""The one Jinja environment factory (``synthpriv_report/templating.py``): every HTML view and the export documents
render through it, with autoescaping on and the same filters."""

from __future__ import annotations

import pytest

from synthpriv_report import display
from synthpriv_report.export import templating as export_templating
from synthpriv_report.text import templating

DISPLAY, EXPORT = "synthpriv_report.display", "synthpriv_report.export"


def test_one_cached_environment_per_package_and_flavour():
    assert templating.environment(DISPLAY) is templating.environment(DISPLAY)
    assert display.environment() is templating.environment(DISPLAY)
    assert export_templating.environment() is templating.environment(EXPORT)
    assert templating.environment(DISPLAY, markdown=True) is not templating.environment(DISPLAY)


@pytest.mark.parametrize("package", [DISPLAY, EXPORT])
def test_html_environments_escape_and_share_the_filters(package):
    env = templating.environment(package)
    assert env.autoescape is True
    assert {"wbr", "num", "shorten", "value"} <= set(env.filters)
    assert env.from_string("{{ x }}").render(x="<script>") == "&lt;script&gt;"
    assert env.from_string("{{ x|num }} {{ y|num }}").render(x=1650.2, y=None) == "1,650 —"
    with pytest.raises(Exception, match="undefined"):
        env.from_string("{{ missing }}").render()


def test_markdown_environment_escapes_markdown_not_html():
    env = templating.environment(DISPLAY, markdown=True)
    assert env.from_string("{{ x }}").render(x="[a](javascript:x)") == r"\[a\]\(javascript:x\)"
    assert env.from_string("{{ x }}").render(x="<b>") == r"\<b\>"


def test_shortened_text_keeps_the_full_text_in_a_title():
    long = "a" * 20
    assert str(templating.shorten(long, 10)) == f'<span class="spr-short" title="{long}">{"a" * 9}…</span>'
    assert templating.value_text({"n": 1234.5, "s": "x" * 700})[:12] == "n: 1,230; s:"
