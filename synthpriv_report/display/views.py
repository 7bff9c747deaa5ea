"""View models: plain dictionaries built from computed results, handed to the templates.

Building a view only reads results (and, for figures, cached per-record arrays); it never computes a metric or
starts a neighbour search. Every string is passed to Jinja as data, so autoescaping covers column names and
category values.
"""

from __future__ import annotations

import base64
import itertools
import math
import re
from collections.abc import Mapping
from typing import Any

from markupsafe import Markup, escape

from ..registry import GROUP_TITLES, get_spec
from ..results import MetricResult, ResultSet, to_jsonable

DIRECTION_HINTS = {"higher_is_riskier": "higher is riskier", "higher_is_safer": "higher is safer"}
LEVEL_WORDS = {"low": "low risk", "medium": "medium risk", "high": "high risk", "not_assessed": "not assessed",
               None: "no level"}

_IDS = itertools.count(1)
_BREAK_AFTER = re.compile(r"(_+|\.(?=[^\W\d]))")


def wbr(text: Any) -> Markup:
    """Escaped text with a line-break opportunity (``<wbr>``) after each underscore and each dot
    before a letter, so that long names (``holdout_dcr_share``, ``native-country.Holand``) wrap at their own
    boundaries instead of overflowing their column or being split inside a word.

    >>> str(wbr("holdout_dcr_share")), str(wbr("<b>_")), str(wbr("0.5"))
    ('holdout_<wbr>dcr_<wbr>share', '&lt;b&gt;_', '0.5')
    """
    if isinstance(text, Markup):
        return text
    parts = _BREAK_AFTER.split(str(text))
    out = Markup("")
    for i, part in enumerate(parts):
        out += escape(part)
        if i % 2 == 1 and i < len(parts) - 1 and parts[i + 1]:
            out += Markup("<wbr>")
    return out


def new_id(prefix: str = "spr") -> str:
    """An element id unique within this process (one per render)."""
    return f"{prefix}-{next(_IDS)}"


# ---------------------------------------------------------------------------------------------------------------
# formatting


def fmt(v: Any) -> str:
    """Short human text for a number (4 significant digits), or the value as text.

    >>> fmt(0.123456), fmt(87.5), fmt(None), fmt(3)
    ('0.1235', '87.5', '—', '3')
    """
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            return str(v)
        return f"{v:.4g}"
    return str(v)


def fmt_interval(iv: Any) -> str:
    if iv is None:
        return "—"
    lo, hi = iv
    return f"[{fmt(float(lo))}, {fmt(float(hi))}]"


def _detail_rows(details: Mapping[str, Any], limit: int = 40) -> list[tuple[str, str]]:
    rows = []
    for k, v in to_jsonable(dict(details)).items():
        if isinstance(v, list):
            text = ", ".join(fmt(x) for x in v[:12]) + (f", … ({len(v)} values)" if len(v) > 12 else "")
            text = f"[{text}]"
        elif isinstance(v, dict):
            text = "; ".join(f"{kk}: {fmt(vv)}" for kk, vv in list(v.items())[:12])
        else:
            text = fmt(v)
        rows.append((str(k), text))
        if len(rows) >= limit:
            break
    return rows


def png_data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


# ---------------------------------------------------------------------------------------------------------------
# view models


def metric_view(r: MetricResult, *, figures: bool = False, params: Mapping[str, Any] | None = None) -> dict:
    """The view of one metric: value, interval, direction hint, level with its rule, calibration, notes."""
    try:
        spec = get_spec(r.name)
        summary, definition, group = spec.summary, spec.definition, spec.group
        words, interval_kind = spec.words, spec.interval_kind
    except ValueError:
        summary, definition, group, words, interval_kind = "", "", "closeness", None, ""
    figs: list[dict[str, str]] = []
    if figures and r.computed:
        from .figures import figure_entries

        figs = figure_entries(r, params)
    rule = r.level_rule
    return {
        "id": new_id("spr-m"),
        "name": r.name,
        "title": r.title or r.name,
        "section": r.section,
        "group": group,
        "computed": r.computed,
        "value": fmt(None if r.value is None else float(r.value)),
        "interval": fmt_interval(r.interval),
        "direction": DIRECTION_HINTS.get(r.direction, r.direction),
        "range": fmt_interval(r.value_range),
        "level": r.level,
        "level_text": LEVEL_WORDS.get(r.level, str(r.level)),
        "rule": rule.description if rule else "",
        "rule_source": rule.source if rule else "",
        "calibration": None if r.calibration is None else fmt(float(r.calibration)),
        "summary": summary,
        "definition": definition,
        "measures": words.measures if words else "",
        "high_means": words.high_means if words else "",
        "ideal": words.ideal if words else "",
        "interval_kind": interval_kind or "95% interval",
        "notes": list(r.notes),
        "reason": r.reason_not_computed,
        "space": r.space,
        "details": _detail_rows(r.details),
        "figures": figs,
    }


def resultset_view(rs: ResultSet, *, figures: bool = False, overview: bool = True,
                   per_metric_figures: bool | None = None) -> dict:
    """Verdict first, then the groups in :data:`GROUP_TITLES` order, each metric with its view."""
    per_metric = figures if per_metric_figures is None else per_metric_figures
    metrics = [metric_view(r, params=rs.params, figures=per_metric) for r in rs.values()]
    groups = []
    for key, title in GROUP_TITLES.items():
        members = [m for m in metrics if m["group"] == key]
        if members:
            groups.append({"key": key, "title": title,
                           "computed": [m for m in members if m["computed"]],
                           "not_computed": [m for m in members if not m["computed"]]})
    v = rs.verdict
    overview_fig = None
    if figures and overview:
        from .figures import overview_entry

        overview_fig = overview_entry(rs)
    return {
        "id": new_id("spr-r"),
        "verdict": {
            "level": v.level,
            "level_text": LEVEL_WORDS[v.level],
            "reasons": list(v.reasons),
            "checks": [{"name": n, "level": lv, "level_text": LEVEL_WORDS.get(lv, "not run")} for n, lv in v.checks],
            "not_run": [{"name": n, "reason": why} for n, why in v.not_run],
        },
        "groups": groups,
        "n_computed": sum(1 for m in metrics if m["computed"]),
        "n_metrics": len(metrics),
        "overview": overview_fig,
        "data": data_view(rs.meta),
        "params": [(k, fmt(v)) for k, v in rs.params.items() if k != "levels"]
        + [("levels", fmt(rs.params.get("levels")))],
    }


def data_view(meta: Mapping[str, Any]) -> dict | None:
    """What was evaluated, from a result set's ``meta`` (None when the results carry no context)."""
    if not meta:
        return None
    settings = meta.get("settings") or {}
    return {
        "sizes": [(f"{s.get('name')} ({s.get('role')})", s.get("rows")) for s in meta.get("sets") or []],
        "n_columns": len(meta.get("columns") or []),
        "columns": [(c.get("name"), c.get("kind")) for c in meta.get("columns") or []],
        "excluded": list(meta.get("excluded") or []),
        "notes": list(meta.get("data_notes") or []),
        "key_fields": list(meta.get("key_fields") or []),
        "sensitive_fields": list(meta.get("sensitive_fields") or []),
        "reveal": bool(settings.get("reveal_real_values", meta.get("revealed_real_values", False))),
        "searches": meta.get("searches", 0),
    }


def text_summary(view: dict, *, header: str = "") -> str:
    """The text/plain rendering of a result-set view (what a terminal shows)."""
    v = view["verdict"]
    lines = []
    if header:
        lines.append(header)
    lines.append(f"Verdict: {v['level_text'].upper()}")
    for reason in v["reasons"]:
        lines.append(f"  - {reason}")
    if not v["reasons"] and v["level"] != "not_assessed":
        lines.append("  - none of the checks behind the verdict found a risk")
    if v["level"] == "not_assessed":
        lines.append("  - none of the checks behind the verdict could run")
    for nr in v["not_run"]:
        lines.append(f"  - could not run {nr['name']}: {nr['reason']}")
    for g in view["groups"]:
        lines.append("")
        lines.append(g["title"])
        for m in g["computed"]:
            cal = f"; holdout as synthetic {m['calibration']}" if m["calibration"] is not None else ""
            lines.append(f"  {m['name']:<20} {m['value']:>9} {m['interval']:<22} [{m['level_text']}] "
                         f"({m['direction']}{cal})")
            for note in m["notes"]:
                lines.append(f"      note: {note}")
        for m in g["not_computed"]:
            lines.append(f"  {m['name']:<20} not computed: {m['reason']}")
    return "\n".join(lines)


def text_metric(m: dict) -> str:
    """The text/plain rendering of one metric view."""
    lines = [f"{m['title']} ({m['name']}, spec {m['section']})"]
    if m["definition"]:
        lines.append(m["definition"])
    if not m["computed"]:
        lines.append(f"not computed: {m['reason']}")
        return "\n".join(lines)
    lines.append(f"value {m['value']}  interval {m['interval']} ({m['interval_kind']})  ({m['direction']}; "
                 f"range {m['range']})")
    lines.append(f"level: {m['level_text']} — {m['rule']} [{m['rule_source']}]")
    if m["calibration"] is not None:
        lines.append(f"holdout as synthetic (best case): {m['calibration']}")
    if m["space"]:
        lines.append(f"space: {m['space']}")
    for note in m["notes"]:
        lines.append(f"note: {note}")
    for k, val in m["details"]:
        lines.append(f"  {k}: {val}")
    return "\n".join(lines)
