"""The metric tables of the README and the report's appendix, generated from the metric declarations.

``python -m synthpriv_report.tools.catalogue`` prints them; ``python -m synthpriv_report.tools.catalogue --write
README.md``
replaces the text between the ``<!-- metrics-table -->`` and ``<!-- /metrics-table -->`` markers. A test checks
that the README is up to date, so a new metric appears there as soon as it is registered.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..core.params import LEVEL_FAMILIES
from ..core.registry import GROUP_TITLES, LevelSpec, get_spec, metric_names
from ..grading.levels import rule_text

BEGIN, END = "<!-- metrics-table -->", "<!-- /metrics-table -->"
_DIRECTION = {"higher_is_riskier": "higher is riskier", "higher_is_safer": "higher is safer"}


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _range(lo: float, hi: float) -> str:
    return f"[{lo:g}, ∞)" if hi == float("inf") else f"[{lo:g}, {hi:g}]"


def _level_text(name: str) -> tuple[str, str]:
    spec = get_spec(name)
    ls = spec.level
    if ls is None:
        return "no level", ""
    if not isinstance(ls, LevelSpec):  # a rule chosen per result (e.g. with or without a holdout)
        if getattr(ls, "__name__", "") == "review_level":
            a, e = LEVEL_FAMILIES["review_absolute"], LEVEL_FAMILIES["review_excess"]
            text = f"with a holdout: on {e.scale}, {rule_text(spec, e)}; without: {rule_text(spec, a)}"
            return text, "package default"
        return (ls.__doc__ or "chosen per result").strip().splitlines()[0], "package default"
    scale = "" if ls.scale == "the value" else f"on {ls.scale}: "
    source = ls.source.split(",")[0] if ls.source.startswith("package default") else ls.source
    return scale + rule_text(spec, ls), source


def metrics_table() -> str:
    """Markdown table: every registered metric with its group, direction, range, interval, level rule and
    parameters."""
    lines = ["| metric | what it measures | direction, range | interval | level rule | parameters |",
             "|---|---|---|---|---|---|"]
    for group in GROUP_TITLES:
        for name in metric_names():
            spec = get_spec(name)
            if spec.group != group:
                continue
            rule, _ = _level_text(name)
            drives = " **Drives the verdict.**" if spec.drives_verdict else ""
            params = ", ".join(f"`{p.name}` ({p.allowed()}, default {p.default!r})" for p in spec.params
                               if p.name != "n_bootstrap")
            what = spec.words.measures if spec.words else spec.summary
            lines.append(f"| `{name}` ({_cell(spec.title)}) | {_cell(what)} | {_DIRECTION[spec.direction]}, "
                         f"{_range(*spec.value_range)} | {_cell(spec.interval_kind or '—')} | "
                         f"{_cell(rule)}{drives} | {_cell(params or '—')} |")
    return "\n".join(lines)


def update_readme(path: str | Path) -> bool:
    """Replace the table between the markers of ``path``; True when the file changed."""
    p = Path(path)
    text = p.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        raise ValueError(f"{p} has no {BEGIN} ... {END} markers")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    new = f"{head}{BEGIN}\n{metrics_table()}\n{END}{tail}"
    if new != text:
        tmp = p.with_name(p.name + ".tmp")
        tmp.write_text(new, encoding="utf-8")
        tmp.replace(p)
        return True
    return False


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--write"] and len(args) == 2:
        update_readme(args[1])
        return 0
    sys.stdout.write(metrics_table() + "\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
