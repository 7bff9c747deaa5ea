"""Reading the text of rendered pages in tests."""

from __future__ import annotations

import re

_WBR = re.compile(r"<wbr\s*/?>")


def no_wbr(html: str) -> str:
    """The page without the line-break opportunities placed after underscores in names (``<wbr>``; ``<wbr/>``
    once nbconvert has re-serialised it), so that names read whole."""
    return _WBR.sub("", html)
