"""A Griffe extension of the documentation build: the package's docstrings, written for Python's help and for
doctest, read well as Markdown.

- Interactive examples (``>>>`` lines and their output) in a docstring's prose are shown as Python console code
  blocks: outside an "Examples" section, Markdown would read ``>>>`` as nested quotes and a list printed by an
  example as a link reference.
- Sphinx roles (``:func:`name```, ``:class:`~module.Name```) are shown as code (``name``, ``Name``).
"""

from __future__ import annotations

import re
from typing import Any

import griffe


def fence_doctests(text: str) -> str:
    """``text`` with every run of ``>>>``/``...`` lines and the output that follows them (up to a blank line)
    fenced as ``pycon``; text already inside a fence is left alone."""
    out: list[str] = []
    lines = text.split("\n")
    i, fenced = 0, False
    while i < len(lines):
        line = lines[i]
        stripped = line.lstrip()
        if stripped.startswith("```"):
            fenced = not fenced
        if not fenced and stripped.startswith(">>>"):
            indent = line[: len(line) - len(stripped)]
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i].strip())
                i += 1
            out += [f"{indent}```pycon", *(indent + b for b in block), f"{indent}```"]
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


_ROLE = re.compile(r":(?:py:)?(?:func|meth|class|mod|data|attr|obj|exc|const):`(~?)([^`]+)`")


def plain_roles(text: str) -> str:
    """Sphinx cross-reference roles as inline code; ``~`` keeps the last name only, as Sphinx shows it."""
    return _ROLE.sub(lambda m: f"`{m.group(2).rsplit('.', 1)[-1] if m.group(1) else m.group(2)}`", text)


class FenceDoctests(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is None:
            return
        text = obj.docstring.value
        if ">>>" in text:
            text = fence_doctests(text)
        obj.docstring.value = plain_roles(text)
