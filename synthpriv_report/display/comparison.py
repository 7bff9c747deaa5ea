"""The notebook view of a comparison of releases (:class:`synthpriv_report.evaluation.comparison.Comparison`).

Drawn from the comparison's JSON-ready dictionary alone
(:meth:`~synthpriv_report.evaluation.comparison.Comparison.to_dict`):
nothing here computes a number. One row per release: its verdict, its verdict adjusted for the number of releases
compared, each check behind the verdict with its value and level, the membership attacks' true-positive rate at a
1% false-positive rate, and the utility measures, apart from the privacy columns.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.formats import fmt_number, fmt_value
from ..core.registry import REGISTRY
from ..text import templating

__all__ = ["comparison_view", "epsilon_sweep_figure", "render_comparison", "worst_attack"]


def _level(level: Any) -> dict[str, str]:
    """A level as the badge shows it: its CSS class and its words."""
    if not level:
        return {"cls": "none", "text": "not run"}
    words = {"not_assessed": "not assessed", "inconclusive": "inconclusive"}
    return {"cls": str(level), "text": words.get(str(level), f"{level} risk")}


def _value(metric: str, v: Any) -> str:
    spec = REGISTRY.get(metric)
    return fmt_value(v, spec.kind()) if spec is not None else fmt_number(v)


def _percent(v: Any) -> str:
    return "—" if v is None else f"{100.0 * float(v):.1f}%"


def worst_attack(row: Mapping[str, Any]) -> float | None:
    """The largest true-positive rate at a 1% false-positive rate among a release's membership attacks (a row of
    :meth:`Comparison.to_dict`'s ``per_release``); None when no attack ran."""
    rates = [a["tpr"] for a in row["membership_attacks"] if a.get("tpr") is not None]
    return max(rates) if rates else None


def epsilon_sweep_figure(d: Mapping[str, Any], *, fmt: str = "png") -> dict[str, str] | None:
    """The releases that declare their privacy budget ε, drawn against it: the strongest membership attack's
    true-positive rate at a 1% false-positive rate, and the lower bound on ε that attack shows beside the line
    where it would equal the declared ε (a bound above the line is evidence against the declared guarantee).
    None when fewer than two releases declare ε.

    Returns
    -------
    dict or None
        ``{"src": data URL, "alt": text}``.
    """
    from .figures import data_uri, render_figure

    rows = [r for r in d["per_release"] if r.get("declared_epsilon") is not None]
    if len(rows) < 2:
        return None
    rows.sort(key=lambda r: float(r["declared_epsilon"]))
    eps = [float(r["declared_epsilon"]) for r in rows]
    tpr = [worst_attack(r) for r in rows]
    bound = [r.get("epsilon_lower_bound") for r in rows]

    def draw(ax1: Any, ax2: Any) -> None:
        from ..core.plotting import COLORS

        xs = [e for e, t in zip(eps, tpr) if t is not None]
        ax1.plot(xs, [100.0 * t for t in tpr if t is not None], marker="o", color=COLORS["S"])
        ax1.axhline(1.0, color=COLORS["line"], linestyle=":", linewidth=1)
        ax1.set_xscale("log")
        from matplotlib.ticker import FuncFormatter, NullLocator

        ax1.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))  # 1, 10, not 10 to the power 0
        ax1.xaxis.set_minor_locator(NullLocator())
        ax1.set_xticks(eps)
        ax1.set_xlabel("declared ε (log scale)")
        ax1.set_ylabel("strongest attack's TPR at 1% FPR (%)")
        ax1.set_title("Membership risk against the declared ε (dotted: chance)")
        pairs = [(e, float(b)) for e, b in zip(eps, bound) if b is not None]
        if pairs:
            ax2.plot([p[0] for p in pairs], [p[1] for p in pairs], marker="o", linestyle="", color=COLORS["S"],
                     label="lower bound the attacks show")
        top = max([*eps, *(p[1] for p in pairs)])
        ax2.plot([0.0, top], [0.0, top], color=COLORS["line"], linestyle="--", linewidth=1,
                 label="measured = declared")
        ax2.set_xlabel("declared ε")
        ax2.set_ylabel("ε lower bound (95% confidence)")
        ax2.set_title("Measured against declared ε")
        ax2.legend(loc="upper left")

    data = render_figure(draw, ncols=2, size=(3.4, 3.0), fmt=fmt)
    alt = "; ".join(f"{r['name']}: declared ε {float(r['declared_epsilon']):g}, strongest attack "
                    f"{_percent(t)} at 1% FPR, ε lower bound {'—' if b is None else f'{float(b):.2g}'}"
                    for r, t, b in zip(rows, tpr, bound))
    return {"src": data_uri(data, fmt), "alt": f"Risk against the declared privacy budget. {alt}"}


def comparison_view(d: Mapping[str, Any]) -> dict[str, Any]:
    """The plain dictionary the template reads, from :meth:`Comparison.to_dict`'s ``d``: every number already
    formatted, every level a badge."""
    per = list(d["per_release"])
    checks = [(c["metric"], c["title"]) for c in per[0]["checks"]] if per else []
    attacks = list(dict.fromkeys((a["metric"], a["title"]) for r in per for a in r["membership_attacks"]))
    tstr = any(r["utility"].get("tstr") for r in per)
    rows = []
    for r in per:
        by_check = {c["metric"]: c for c in r["checks"]}
        by_attack = {a["metric"]: a for a in r["membership_attacks"]}
        u = r["utility"]
        t = u.get("tstr") or {}
        rows.append({
            "name": r["name"],
            "verdict": _level(r["verdict"]["level"]),
            "adjusted": _level(r["adjusted_verdict"]["level"]),
            "checks": [{"value": _value(m, by_check[m]["value"]) if m in by_check and by_check[m]["computed"]
                        else "—",
                        "level": _level(by_check.get(m, {}).get("level")),
                        "adjusted": _level(by_check.get(m, {}).get("adjusted_level"))} for m, _ in checks],
            "attacks": [_percent(by_attack[m]["tpr"]) if m in by_attack else "—" for m, _ in attacks],
            "marginal": fmt_number(u.get("marginal_distance")),
            "association": fmt_number(u.get("association_difference")),
            "tstr": _percent(t.get("synthetic")) if t else "—",
            "tstr_real": _percent(t.get("real")) if t else "—",
            "worst": _percent(worst_attack(r)),
        })
    rank = {name: i + 1 for i, name in enumerate(d.get("ranking") or [r["name"] for r in per])}
    for row in rows:
        row["rank"] = rank[row["name"]]
    rows.sort(key=lambda row: row["rank"])
    sweep = [{"name": r["name"], "declared": fmt_number(r.get("declared_epsilon")),
              "measured": fmt_number(r.get("epsilon_lower_bound")),
              "above": r.get("epsilon_lower_bound") is not None
              and float(r["epsilon_lower_bound"]) > float(r["declared_epsilon"])}
             for r in per if r.get("declared_epsilon") is not None]
    return {"sweep": sweep, "rows": rows, "checks": [t for _, t in checks], "attacks": [t for _, t in attacks],
            "tstr": tstr,
            "n": d["n_compared"], "alpha": f"{100.0 * d['alpha']:g}%",
            "adjusted_alpha": f"{100.0 * d['adjusted_alpha']:.3g}%", "target": d.get("target")}


def render_comparison(d: Mapping[str, Any]) -> str:
    """The comparison's HTML (a ``<div class="spr-report">`` with its own scoped style), from
    :meth:`Comparison.to_dict`'s ``d``; every name and text escaped."""
    env = templating.environment(__package__)
    return env.get_template("comparison.html.j2").render(v=comparison_view(d), sweep=epsilon_sweep_figure(d))
