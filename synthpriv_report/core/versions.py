"""The installed versions a report records, in one table: the packages that compute the numbers and the tools that
write the documents, read once per process (reading package metadata takes about 25 ms, and a slider move asks for
them with every result set)."""

from __future__ import annotations

import functools
import importlib.metadata as md
import platform

#: The packages whose versions decide the numbers (with the Python version).
CORE_PACKAGES: tuple[str, ...] = ("synthpriv_report", "numpy", "pandas", "scipy", "scikit-learn", "numba",
                                  "matplotlib")
#: The tools that write and check the documents.
TOOL_PACKAGES: tuple[str, ...] = ("nbconvert", "nbformat", "jinja2", "weasyprint", "pydyf", "jsonschema", "pyarrow",
                                  "ipywidgets", "playwright", "pypdf")
#: What a package that is not installed reads as.
NOT_INSTALLED = "not installed"


@functools.cache
def _table(names: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    out = []
    for name in names:
        try:
            out.append((name, md.version(name)))
        except md.PackageNotFoundError:
            out.append((name, NOT_INSTALLED))
    return tuple(out)


def core_versions() -> dict[str, str]:
    """Package name -> installed version for :data:`CORE_PACKAGES`, and ``"python"``: a fresh dict each call.

    >>> v = core_versions(); list(v)[0], "python" in v
    ('synthpriv_report', True)
    """
    return {**dict(_table(CORE_PACKAGES)), "python": platform.python_version()}


def tool_versions() -> dict[str, str]:
    """Package name -> installed version (or ``"not installed"``) for :data:`TOOL_PACKAGES`: a fresh dict."""
    return dict(_table(TOOL_PACKAGES))


__all__ = ["CORE_PACKAGES", "NOT_INSTALLED", "TOOL_PACKAGES", "core_versions", "tool_versions"]
