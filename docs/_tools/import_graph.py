"""The package's import graph, drawn from the code at every build of the site: one row per tier of the layers
contract in ``pyproject.toml`` (top: what a user calls; bottom: what everything stands on), one box per
subpackage or module of the tier, one arrow per pair of them where one imports the other.

Solid grey arrows point down the tiers. The documented ways up (lazy imports inside one method each, the layers
contract's ``ignore_imports``) are drawn dashed; any other arrow pointing up would be drawn red, and the
contract (``lint-imports``, run by the tests) would fail on it.

    python docs/_tools/import_graph.py out.svg     # also .png
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import tomllib

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "synthpriv_report"


def contract() -> tuple[list[list[str]], set[tuple[str, str]]]:
    """The tiers (top first; each a list of its members' dotted names) and the documented ways up."""
    with open(ROOT / "pyproject.toml", "rb") as fh:
        conf = tomllib.load(fh)["tool"]["importlinter"]["contracts"]
    layers = next(c for c in conf if c["id"] == "layers")
    tiers = [[m.strip() for m in re.split(r"[|:]", t)] for t in layers["layers"]]
    ups = {tuple(s.strip() for s in i.split("->")) for i in layers.get("ignore_imports", [])}
    return tiers, ups  # type: ignore[return-value]


def edges(members: list[str]) -> dict[tuple[str, str], bool]:
    """Each pair (importer, imported) of contract members with at least one import between their modules; the value
    says whether every such import is a documented way up."""
    import grimp

    graph = grimp.build_graph(PACKAGE)
    _, ups = contract()

    def owner(module: str) -> str | None:
        best = None
        for m in members:
            if module == m or module.startswith(m + "."):
                if best is None or len(m) > len(best):
                    best = m
        return best

    out: dict[tuple[str, str], bool] = {}
    for module in graph.modules:
        a = owner(module)
        if a is None:
            continue
        for imported in graph.find_modules_directly_imported_by(module):
            b = owner(imported)
            if b is None or b == a:
                continue
            documented = any((module == x or module.startswith(x + "."))
                             and (imported == y or imported.startswith(y + ".")) for x, y in ups)
            out[(a, b)] = out.get((a, b), True) and documented
    return out


def draw(path: Path | Any, fmt: str | None = None) -> None:
    """Write the picture to ``path`` (a path, SVG or PNG by its suffix, or a binary file with ``fmt``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    tiers, _ = contract()
    members = [m for t in tiers for m in t]
    tier_of = {m: i for i, t in enumerate(tiers) for m in t}
    width = max(len(t) for t in tiers)
    pos: dict[str, tuple[float, float]] = {}
    for i, t in enumerate(tiers):
        for j, m in enumerate(t):
            pos[m] = ((j + 0.5) * width / len(t), -i)
    fig, ax = plt.subplots(figsize=(9, 0.55 * len(tiers) + 0.6))
    ax.set_xlim(-0.2, width + 0.2)
    ax.set_ylim(-len(tiers) + 0.4, 0.6)
    ax.axis("off")
    up = 0
    found = sorted(edges(members).items())
    half_w, half_h = 0.40, 0.16
    # each box's arrows leave (and arrive) at their own point of its edge, ordered by the other end's position
    outs: dict[str, list[str]] = {}
    ins: dict[str, list[str]] = {}
    for (a, b), _ in found:
        outs.setdefault(a, []).append(b)
        ins.setdefault(b, []).append(a)

    def port(box: str, other: str, group: dict[str, list[str]]) -> float:
        peers = sorted(group[box], key=lambda m: (pos[m][0], -pos[m][1]))
        k = peers.index(other)
        return pos[box][0] - half_w + 2 * half_w * (k + 1) / (len(peers) + 1)

    for (a, b), documented in found:
        ya, yb = pos[a][1], pos[b][1]
        xa, xb = port(a, b, outs), port(b, a, ins)
        if tier_of[b] == tier_of[a]:
            style = {"color": "#9aa3ad", "lw": 0.7}
            start, end = (pos[a][0] + half_w, ya), (pos[b][0] - half_w, yb)
        else:
            downward = tier_of[b] > tier_of[a]
            if downward:
                style = {"color": "#8d97a2", "lw": 0.55, "alpha": 0.6}
            elif documented:
                style = {"color": "#3566a8", "lw": 1.1, "linestyle": (0, (3, 2))}
            else:
                style = {"color": "#c0392b", "lw": 1.6}
                up += 1
            start = (xa, ya - half_h if downward else ya + half_h)
            end = (xb, yb + half_h if downward else yb - half_h)
        ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=6, shrinkA=0, shrinkB=0,
                                     zorder=2, **style))
    for m, (x, y) in pos.items():
        label = m.removeprefix(PACKAGE + ".")
        ax.add_patch(FancyBboxPatch((x - half_w, y - half_h), 2 * half_w, 2 * half_h, boxstyle="round,pad=0.02",
                                    fc="#f4f6f8", ec="#4a5561", lw=0.8, zorder=3))
        ax.text(x, y, label, ha="center", va="center", fontsize=7.5, zorder=4, family="DejaVu Sans")
    for i in range(len(tiers)):
        ax.text(-0.15, -i, f"{i + 1}", ha="right", va="center", fontsize=7, color="#6b7580")
    ax.set_title(f"{PACKAGE}: imports between the {len(tiers)} tiers (grey: down; dashed blue: a documented way "
                 f"up; red: a break of the contract: {up})", fontsize=8.5, loc="left")
    fig.tight_layout()
    fmt = fmt or Path(path).suffix.lstrip(".")
    fig.savefig(path, format=fmt, metadata={"Date": None} if fmt == "svg" else None)
    plt.close(fig)


if __name__ == "__main__":
    draw(Path(sys.argv[1] if len(sys.argv) > 1 else "import-graph.svg"))
