"""The notebook view of a generator audit (:class:`synthpriv_report.evaluation.audit.Audit`).

Drawn from the audit's JSON-ready dictionary alone (:meth:`~synthpriv_report.evaluation.audit.Audit.to_dict`): nothing
here
computes a number. The generator's verdict and its reasons; the declared ε beside the lower bound the canaries
show; the canary audit's guesses; each metric's spread over the training runs and the interval one more release is
expected in; each run's verdict and times; and a figure of the checks behind the verdict, run by run.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..core.formats import fmt_number, fmt_value
from ..core.registry import REGISTRY
from ..text import templating
from .comparison import _level

__all__ = ["audit_view", "render_audit", "runs_figure"]


def _value(metric: str, v: Any) -> str:
    spec = REGISTRY.get(metric)
    return fmt_value(v, spec.kind()) if spec is not None else fmt_number(v)


def _seconds(v: Any) -> str:
    if v is None:
        return "—"
    return f"{float(v):.2f} s" if float(v) < 10 else f"{float(v):.0f} s"


def epsilon_reading(eps: Mapping[str, Any]) -> str:
    """One sentence on the declared ε against the measured lower bound, for a reader who knows neither."""
    declared, measured = eps.get("declared"), eps.get("measured")
    if measured is None:
        return ("No canary audit or shadow-model attack was run, so no lower bound on ε was measured."
                if declared is None else
                f"The generator declares ε = {float(declared):g}; no canary audit or shadow-model attack was run to "
                "test it.")
    m = f"{float(measured):.2f}"
    who = "The shadow-model attack shows" if eps.get("measured_from") == "shadow" else "The canaries show"
    if declared is None:
        return (f"{who} ε ≥ {m} at 95% confidence: no differentially private generator with a smaller ε "
                "could have produced these guesses. The generator declares no ε. A small bound is not evidence of "
                "privacy: it is what this attack could show.")
    d = f"{float(declared):g}"
    if eps.get("contradicts_declared"):
        return (f"The measured lower bound, ε ≥ {m} (95% confidence), is above the declared ε = {d}: evidence that "
                "the generator does not deliver the guarantee it declares (an implementation or accounting error).")
    return (f"The measured lower bound, ε ≥ {m} (95% confidence), does not exceed the declared ε = {d}: no "
            "contradiction was found. The declared ε is the generator's claim; the bound is what this audit could "
            "prove, and a small bound is not evidence that the claim holds.")


def runs_figure(d: Mapping[str, Any], *, fmt: str = "png") -> dict[str, str] | None:
    """The checks behind the verdict, one panel row: each run's value as a dot and the interval one more release
    is expected in as a bar. None with fewer than two runs.

    Returns
    -------
    dict or None
        ``{"src": data URL, "alt": text}``.
    """
    rows = [m for m in d["metrics"] if m.get("drives_verdict") and len(m.get("values") or ()) >= 2]
    if len(d["runs"]) < 2 or not rows:
        return None
    from .figures import data_uri, render_figure

    def draw(*axes: Any) -> None:
        from ..core.plotting import COLORS

        for ax in axes[len(rows):]:
            ax.set_axis_off()
        for ax, m in zip(axes, rows):
            vals = [float(v) for v in m["values"]]
            ax.plot(range(1, len(vals) + 1), vals, marker="o", linestyle="", color=COLORS["S"])
            iv = m.get("interval")
            spec = REGISTRY.get(m["metric"])
            width = math.inf
            if spec is not None and spec.value_range is not None:
                width = float(spec.value_range[1]) - float(spec.value_range[0])
            scale = width if math.isfinite(width) else max(1.0, abs(vals[0]))
            if iv and float(iv[1]) - float(iv[0]) > 1e-9 * scale:
                ax.axhspan(float(iv[0]), float(iv[1]), color=COLORS["S"], alpha=0.12, linewidth=0)
            if max(vals) - min(vals) <= 1e-9 * scale and (not iv or float(iv[1]) - float(iv[0]) <= 1e-9 * scale):
                ax.set_ylim(vals[0] - 0.05 * scale, vals[0] + 0.05 * scale)  # all runs alike: a flat line
            ax.set_xticks(range(1, len(vals) + 1))
            from matplotlib.ticker import FuncFormatter

            ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _pos, name=m["metric"]: _value(name, y)))
            ax.set_xlabel("training run")
            ax.set_title(templating.shorten_text(m["title"], 40), fontsize=9)

    ncols = min(len(rows), 4)
    data = render_figure(draw, ncols=ncols, nrows=(len(rows) + ncols - 1) // ncols, size=(2.6, 2.2), fmt=fmt)
    alt = "; ".join(f"{m['title']}: from {_value(m['metric'], m.get('min'))} to {_value(m['metric'], m.get('max'))}"
                    for m in rows)
    return {"src": data_uri(data, fmt), "alt": f"Each check's value in each training run. {alt}"}


def audit_view(d: Mapping[str, Any]) -> dict[str, Any]:
    """The plain dictionary the template reads, from :meth:`Audit.to_dict`'s ``d``: every number formatted."""
    v = d["verdict"]
    checks = {c["metric"]: c for c in v["checks"]}
    metrics = []
    for m in d["metrics"]:
        iv = m.get("interval")
        metrics.append({
            "title": m["title"], "verdict": m.get("drives_verdict", False),
            "mean": _value(m["metric"], m.get("mean")),
            "spread": ("—" if m.get("min") is None else
                       f"{_value(m['metric'], m['min'])} – {_value(m['metric'], m['max'])}"),
            "sd": fmt_number(m.get("sd")),
            "interval": "—" if not iv else f"{_value(m['metric'], iv[0])} – {_value(m['metric'], iv[1])}",
            "levels": ", ".join(f"{n} {lv}" for lv, n in m.get("levels", {}).items()) or "—",
            "level": _level(checks[m["metric"]]["level"]) if m["metric"] in checks else None,
        })
    canary = d.get("canaries")
    grid = []
    if canary:
        best = canary["outcome"].get("best") or {}
        for row in canary["outcome"].get("rows", []):
            grid.append({"guesses": row["guesses"], "in": row["k_plus"], "out": row["k_minus"],
                         "correct": row["correct"], "bound": fmt_number(row["epsilon_bound"]),
                         "best": row == best and float(best.get("epsilon_bound") or 0.0) > 0})
    runs = [{"run": r["run"], "seed": r["seed"], "verdict": _level(r["verdict"]),
             "generator": _seconds(r["generator_seconds"]),
             "bound": fmt_number(r.get("epsilon_lower_bound")), "n": f"{r['n_training']:,}"} for r in d["runs"]]
    flagged = v.get("flagged")
    share = None
    if flagged:
        lo, hi = flagged["interval"]
        share = {"k": flagged["flagged"], "n": flagged["runs"], "lo": f"{100 * lo:.0f}%", "hi": f"{100 * hi:.0f}%"}
    shadow = None
    sh = d.get("shadow")
    if sh:
        p = sh["pooled"]
        c = p["counts"]
        tr = sh["trainings"]

        def pct(x: Any) -> str:
            return f"{100 * float(x):.0f}%"

        shadow = {"targets": tr["targets"], "per_target": tr["per_target"], "total": tr["total"],
                  "shadow_runs": tr["shadow_per_target"], "evaluation_runs": tr["evaluation_per_target"],
                  "with": tr["evaluation_runs_with_target"], "without": tr["evaluation_runs_without_target"],
                  "tp": c["tp"], "fp": c["fp"], "tpr": pct(p["tpr"]),
                  "tpr_interval": f"{pct(p['tpr_interval'][0])} – {pct(p['tpr_interval'][1])}",
                  "fpr": pct(p["fpr"]), "fpr_interval": f"{pct(p['fpr_interval'][0])} – {pct(p['fpr_interval'][1])}",
                  "epsilon": fmt_number(p["epsilon_lower_bound"]),
                  "familywise": fmt_number(sh["familywise"]["epsilon_lower_bound"]),
                  "selected_by": sh.get("selected_by") or "",
                  "generator_seconds": _seconds(sh["seconds"]["generator"]),
                  "package_seconds": _seconds(sh["seconds"]["package"])}
    gen = d["generator"]
    s = d["settings"]
    return {"level": _level(v["level"]), "reasons": v["reasons"], "metrics": metrics, "runs": runs, "grid": grid,
            "canary": canary, "shadow": shadow, "epsilon": d["epsilon"],
            "epsilon_reading": epsilon_reading(d["epsilon"]),
            "share": share, "generator": gen, "seeded": gen.get("seeded"), "seeding": gen.get("seeding", ""),
            "resample": s["resample"], "fraction": s.get("fraction"), "n_runs": s["runs"],
            "n_training": f"{s['n_training']:,}", "seconds": _seconds(d.get("seconds"))}


def render_audit(d: Mapping[str, Any]) -> str:
    """The audit's HTML (a ``<div class="spr-report">`` with its own scoped style), from :meth:`Audit.to_dict`'s
    ``d``; every name and text escaped."""
    env = templating.environment(__package__)
    return env.get_template("audit.html.j2").render(v=audit_view(d), figure=runs_figure(d))
