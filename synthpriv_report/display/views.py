"""View models: plain dictionaries built from computed results, handed to the templates.

Building a view only reads results (and, for figures, cached per-record arrays); it never computes a metric or
starts a neighbour search. Every string is passed to Jinja as data, so autoescaping covers column names and
category values.
"""

from __future__ import annotations

import base64
import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from ..core.formats import LEVEL_WORDS, fmt_cell, fmt_count, level_text
from ..core.registry import get_spec
from ..core.results import MetricResult, ResultSet, Verdict, to_jsonable
from ..text import templating, wording

DIRECTION_HINTS = {"higher_is_riskier": "higher is riskier", "higher_is_safer": "higher is safer"}

_IDS = itertools.count(1)


def new_id(prefix: str = "spr") -> str:
    """An element id unique within this process (one per render)."""
    return f"{prefix}-{next(_IDS)}"


def _detail_text(v: Any, depth: int = 0) -> str:
    """A detail value as text, every number in it rounded (lists and mappings at any depth: a histogram's
    ``{"edges": [0.0, 0.05, 0.1, 0.15000000000000002, ...]}`` shows ``0.15``).

    >>> _detail_text({"edges": [0.1, 0.15000000000000002], "n": 3000})
    'edges: [0.1, 0.15]; n: 3,000'
    """
    if isinstance(v, list):
        text = ", ".join(_detail_text(x, depth + 1) for x in v[:12]) + (
            f", … ({len(v)} values)" if len(v) > 12 else "")
        return f"[{text}]"
    if isinstance(v, dict):
        sep = "; " if depth == 0 else ", "
        body = sep.join(f"{kk}: {_detail_text(vv, depth + 1)}" for kk, vv in list(v.items())[:12])
        return body if depth == 0 else "{" + body + "}"
    return fmt_cell(v)


def _detail_rows(details: Mapping[str, Any], limit: int = 40) -> list[tuple[str, str]]:
    rows = []
    for k, v in to_jsonable(dict(details)).items():
        rows.append((str(k), _detail_text(v)))
        if len(rows) >= limit:
            break
    return rows


def png_data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


# ---------------------------------------------------------------------------------------------------------------
# view models


def metric_view(r: MetricResult, *, figures: bool = False, params: Mapping[str, Any] | None = None,
                driving: Sequence[str] = (), compact: bool = False) -> dict:
    """The view of one metric: value, interval, direction hint, level with its rule, calibration, notes.

    Numbers are formatted by kind (shares as percentages, 3 significant digits), the interval is labelled by how
    it was made, and a level graded on another quantity than the value shows that quantity beside it.

    Parameters
    ----------
    r : MetricResult
    figures : bool
        Draw the metric's declared figures (SVG).
    params : mapping, optional
        The reduction parameters the result was computed with.
    driving : sequence of str
        The checks behind the verdict (the view says whether this metric is one of them).
    compact : bool
        The notebook's short form: the level rule's source goes to an appendix, details stay collapsed.
    """
    try:
        spec = get_spec(r.name)
        summary, definition, group = spec.summary, spec.definition, spec.group
        words = spec.words
    except ValueError:
        summary, definition, group, words = "", "", "closeness", None
    figs: list[dict[str, str]] = []
    if figures and r.computed:
        from .figures import figure_entries

        figs = figure_entries(r, params)
    rule = r.level_rule
    row = wording.metric_row(r.to_dict(), driving)
    return {
        "id": new_id("spr-m"),
        "name": r.name,
        "title": r.title or r.name,
        "group": group,
        "computed": r.computed,
        "value": row["value"],
        "interval": row["interval"],
        "direction": row["direction"],
        "range": row["range"],
        # a distinguishability measure is not a risk: "easy / hard to tell apart" in a neutral badge
        "level": row["level"],
        "level_text": row["level_text"],
        "rule": rule.description if rule else "",
        "rule_source": rule.source if rule else "",
        "graded": row["graded"],
        "records": row["records"],
        "drives": row["drives"],
        "is_driving": r.name in driving,
        "calibration": None if r.calibration is None else row["calibration"],
        "summary": summary,
        "definition": definition,
        "measures": words.measures if words else "",
        "high_means": words.high_means if words else "",
        "ideal": words.ideal if words else "",
        "interval_kind": row["interval_label"],
        "notes": list(r.notes),
        "reason": r.reason_not_computed,
        "space": r.space,
        "details": _detail_rows({k: v for k, v in r.details.items()
                                 if k not in ("interval_kind", "interval_method")}),
        "figures": figs,
        "compact": compact,
    }


SECTION_INTROS = {"checks": wording.CHECKS_INTRO, "distinguishability": wording.DISTINGUISHABILITY_INTRO,
                  "others": wording.OTHERS_INTRO}


def resultset_view(rs: ResultSet, *, figures: bool = False, overview: bool = True,
                   per_metric_figures: bool | None = None, compact: bool = False) -> dict:
    """Verdict first, then three sections: the checks behind the verdict, how distinguishable the synthetic data
    is, and the other measures (each metric with its view).

    With ``compact`` (the notebook's default) each row keeps its value, interval, level and one sentence; the
    level rules with their sources are listed once in an appendix, and the figures of each measure sit in a
    collapsed block under the risk overview.
    """
    per_metric = figures if per_metric_figures is None else per_metric_figures
    v = rs.verdict
    driving = [n for n, _ in v.checks]
    metrics = [metric_view(r, params=rs.params, figures=per_metric, driving=driving, compact=compact)
               for r in rs.values()]
    by_name = {m["name"]: m for m in metrics}
    # a note on the data that also bears on a check behind the verdict (the holdout unlike the training data) is
    # shown once, under the verdict; the measures it bears on point to it
    cautions = wording.verdict_cautions((rs.meta or {}).get("data_notes") or [],
                                        {n: m["notes"] for n, m in by_name.items()}, driving)
    for m in metrics:
        m["notes"] = [wording.SEE_VERDICT_NOTE if n in cautions else n for n in m["notes"]]
    parts = {
        "checks": [by_name[n] for n in driving if n in by_name],
        "distinguishability": [m for m in metrics if m["name"] not in driving
                               and m["group"] == "distinguishability"],
        "others": [m for m in metrics if m["name"] not in driving and m["group"] != "distinguishability"],
    }
    titles = {"checks": wording.CHECKS_TITLE, "distinguishability": wording.DISTINGUISHABILITY_TITLE,
              "others": wording.OTHERS_TITLE}
    groups = []
    for key, members in parts.items():
        if members:
            groups.append({"key": key, "title": titles[key], "intro": SECTION_INTROS[key],
                           "computed": [m for m in members if m["computed"]],
                           "not_computed": [m for m in members if not m["computed"]]})
    overview_fig = None
    if figures and overview:
        from .figures import overview_entry

        overview_fig = overview_entry(rs)
    return {
        "id": new_id("spr-r"),
        "verdict": verdict_view(v, rs, cautions),
        "compact": compact,
        "sources": [{"title": m["title"], "name": m["name"], "rule": m["rule"], "source": m["rule_source"]}
                    for m in metrics if m["computed"] and m["rule"]],
        "groups": groups,
        "risk": wording.risk_text((rs.meta or {}).get("records_at_risk")),
        "risk_title": wording.RISK_TITLE,
        "n_computed": sum(1 for m in metrics if m["computed"]),
        "n_metrics": len(metrics),
        "overview": overview_fig,
        "data": data_view(rs.meta),
        "params": [(r["words"], r["code"], r["value"]) for r in wording.setting_rows({}, rs.params)],
    }


def verdict_view(v: Verdict, rs: ResultSet | None = None, cautions: Sequence[str] = ()) -> dict:
    """The verdict's view: its level, how many checks it rests on, each check with its level and, where the
    results are at hand, the sentence with its number (without them, the sentences of the checks that fired)."""
    titles_of = {n: (rs[n].title if rs is not None and n in rs else _registered_title(n)) or n for n, _ in v.checks}
    titles_of.update({n: titles_of.get(n) or _registered_title(n) for n, _ in v.not_run})

    def sentence(n: str, lv: str | None) -> str:
        if lv is None:
            return ""
        if rs is not None and n in rs:
            text = wording.check_sentence(rs[n].to_dict())
            rule = rs[n].level_rule
            if lv == "inconclusive" and rule is not None and rule.inconclusive_because:
                text += f" Inconclusive: {rule.inconclusive_because}."
            return text
        # a verdict shown alone: a check that fired has its sentence among the reasons ("... from <title>: ..."),
        # an inconclusive one its own ("Inconclusive: <title> showed no risk ...")
        marker = f" from {titles_of[n]}: "
        unsure = f"Inconclusive: {titles_of[n]} "
        return next((r.split(marker, 1)[1] if marker in r else r for r in v.reasons
                     if marker in r or r.startswith(unsure)), "")

    return {
        "level": v.level,
        "level_text": level_text(v.level),
        "reasons": list(v.reasons),
        "n_ran": v.n_ran,
        "n_checks": len(v.checks),
        "checks": [{"name": n, "title": titles_of[n], "level": lv,
                    "level_text": LEVEL_WORDS.get(lv, "did not run") if lv is not None else "did not run",
                    "sentence": sentence(n, lv)}
                   for n, lv in v.checks],
        "not_run": [{"name": n, "title": titles_of.get(n, n), "reason": why} for n, why in v.not_run],
        "cautions": list(cautions),
    }


def _registered_title(name: str) -> str:
    """A metric's title from the registry (a check that did not run has no result to give it)."""
    try:
        return get_spec(name).title
    except (ValueError, TypeError):
        return name


def data_view(meta: Mapping[str, Any]) -> dict | None:
    """What was evaluated, from a result set's ``meta`` (None when the results carry no context)."""
    if not meta:
        return None
    settings = meta.get("settings") or {}
    return {
        "sets": wording.set_rows(meta, meta.get("fingerprints"), settings.get("sizes")),
        "sizes": [(f"{s.get('name')} ({s.get('role')})", fmt_count(s.get("rows")))
                  for s in meta.get("sets") or []],
        "fingerprint_algorithm": str(meta.get("fingerprint_algorithm") or ""),
        "n_columns": len(meta.get("columns") or []),
        "columns": [(c.get("name"), c.get("kind")) for c in meta.get("columns") or []],
        "excluded": list(meta.get("excluded") or []),
        "notes": list(meta.get("data_notes") or []),
        "key_fields": list(meta.get("key_fields") or []),
        "key_fields_chosen": wording.chosen_text(meta.get("key_fields_chosen")),
        "sensitive_fields": list(meta.get("sensitive_fields") or []),
        "reveal": bool(settings.get("reveal_real_values", meta.get("revealed_real_values", False))),
        "searches": meta.get("searches", 0),
        "settings": [(r["words"], r["code"], r["value"]) for r in wording.setting_rows(
            {k: x for k, x in settings.items() if k not in ("key_fields", "sensitive_fields", "excluded")})],
    }


def render_view(kind: str, view: dict, heading: str, fmt: str) -> str:
    """A view (``kind`` "resultset" or "metric") rendered as ``fmt``: "text" (the plain-text form), "html" or
    "markdown" (the display templates; ``heading`` titles a result set).
    """
    if fmt == "text" and kind != "verdict":
        if kind == "metric":
            return text_metric(view)
        return text_summary(view, header=heading)
    if fmt == "text" and kind == "verdict":
        return text_verdict(view)
    ext = "html" if fmt == "html" else "md"
    env = templating.environment(__package__, markdown=ext == "md")  # compiled templates are cached
    if kind == "verdict":
        if ext == "md":
            return text_verdict(view).replace("\n", "  \n")
        return env.get_template("verdict.html.j2").render(v=view)
    if kind == "metric":
        return env.get_template(f"metric.{ext}.j2").render(m=view)
    return env.get_template(f"resultset.{ext}.j2").render(view=view, heading=heading)


def text_verdict(v: dict) -> str:
    """The text/plain rendering of a verdict view: the level, what it rests on, one line per check."""
    lines = [f"Verdict: {v['level_text'].upper()}"]
    if v["level"] == "not_assessed":
        lines.append("  none of the checks behind the verdict could run, so the data were not assessed")
    else:
        lines.append(f"  resting on {v['n_ran']} of the {v['n_checks']} checks behind the verdict:")
    for c in v["checks"]:
        if c["level"] is not None:
            lines.append(f"  - {c['title']} [{c['level_text']}]" + (f": {c['sentence']}" if c["sentence"] else ""))
    for nr in v["not_run"]:
        lines.append(f"  - did not run: {nr['title']}: {nr['reason']}")
    return "\n".join(lines)


def text_summary(view: dict, *, header: str = "") -> str:
    """The text/plain rendering of a result-set view (what a terminal shows)."""
    v = view["verdict"]
    lines = []
    if header:
        lines.append(header)
    lines += text_verdict(v).splitlines()
    for c in v.get("cautions") or []:
        lines.append(f"  note on the data: {c}")
    if view.get("risk"):
        lines += ["", view["risk_title"], "  " + view["risk"]["summary"]]
    for g in view["groups"]:
        lines.append("")
        lines.append(g["title"])
        for m in g["computed"]:
            cal = f"; with the holdout in place of the synthetic data {m['calibration']}" \
                if m["calibration"] is not None else ""
            lines.append(f"  {m['name']:<20} {m['value']:>9} {m['interval']:<22} [{m['level_text']}] "
                         f"({m['direction']}{cal})")
            if m["graded"]:
                lines.append(f"      {m['graded']}")
            if m["records"]:
                lines.append(f"      {m['records']}")
            for note in m["notes"]:
                lines.append(f"      note: {note}")
        for m in g["not_computed"]:
            lines.append(f"  {m['name']:<20} not computed: {m['reason']}")
    return "\n".join(lines)


def text_metric(m: dict) -> str:
    """The text/plain rendering of one metric view."""
    lines = [f"{m['title']} ({m['name']})"]
    if m["definition"]:
        lines.append(m["definition"])
    if not m["computed"]:
        lines.append(f"not computed: {m['reason']}")
        return "\n".join(lines)
    lines.append(f"value {m['value']}  interval {m['interval']} ({m['interval_kind']})  ({m['direction']}; "
                 f"range {m['range']})")
    lines.append(f"level: {m['level_text']} — {m['rule']} [{m['rule_source']}]")
    if m["graded"]:
        lines.append(m["graded"])
    if m["records"]:
        lines.append(m["records"])
    lines.append(m["drives"])
    if m["calibration"] is not None:
        lines.append("with the holdout in place of the synthetic data (a reference, itself an estimate): "
                     f"{m['calibration']}")
    if m["space"]:
        lines.append(f"space: {m['space']}")
    for note in m["notes"]:
        lines.append(f"note: {note}")
    for k, val in m["details"]:
        lines.append(f"  {k}: {val}")
    return "\n".join(lines)
