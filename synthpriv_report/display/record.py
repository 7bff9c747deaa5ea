"""The notebook view of one real record's explanation (:class:`synthpriv_report.analysis.record.RecordExplanation`):
a scoped HTML table from a Jinja template, with the plain-text form beside it. Nothing here computes."""

from __future__ import annotations

from typing import Any

from ..core.formats import fmt_cell
from ..text import templating
from .views import new_id


def record_bundle(x: Any) -> dict[str, str]:
    """The MIME bundle (``text/plain`` and ``text/html``) of a record explanation."""
    view = {k: getattr(x, k) for k in ("real_index", "space", "nearest_synthetic", "nearest_real", "conclusions",
                                       "values", "columns", "revealed")}
    view["id"] = new_id("spr-x")
    view["value_rows"] = x.values
    view["distance_text"] = {k: fmt_cell(view[k]["distance"]) for k in ("nearest_synthetic", "nearest_real")}
    html = templating.environment(__package__).get_template("explain.html.j2").render(x=view)
    return {"text/plain": x._text(), "text/html": html}
