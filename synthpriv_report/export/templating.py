"""The export documents' templates (``synthpriv_report/export/templates``), rendered by the package's one Jinja
environment factory (:func:`synthpriv_report.text.templating.environment`): autoescaping on, undefined names are errors,
the filters ``num``, ``shorten`` and ``value`` (see :mod:`synthpriv_report.text.templating`, which also holds the
display widths and the shortening functions named here).
"""

from __future__ import annotations

from typing import Any

import jinja2

from ..text import templating
from ..text.templating import (
    MAX_DEPTH,
    MAX_ITEMS,
    NAME_WIDTH,
    TEXT_WIDTH,
    shorten,
    shorten_text,
    value_html,
    value_text,
)

__all__ = ["MAX_DEPTH", "MAX_ITEMS", "NAME_WIDTH", "TEXT_WIDTH", "environment", "render", "shorten", "shorten_text",
           "value_html", "value_text"]


def environment() -> jinja2.Environment:
    """The environment of the export templates (cached by the factory: templates are compiled once)."""
    return templating.environment(__package__)


def render(template: str, **context: Any) -> str:
    """Render one template of ``synthpriv_report/export/templates`` with ``context``.

    >>> render("chromium_footer.html.j2").startswith("<")
    True
    """
    return environment().get_template(template).render(**context)
