"""Reading the text of rendered pages in tests."""

from __future__ import annotations

import re
from html.parser import HTMLParser

_WBR = re.compile(r"<wbr\s*/?>")


def no_wbr(html: str) -> str:
    """The page without the line-break opportunities placed after underscores in names (``<wbr>``; ``<wbr/>``
    once nbconvert has re-serialised it), so that names read whole."""
    return _WBR.sub("", html)


class PageParser(HTMLParser):
    """A page's start tags with their attributes (``tags``) and its text pieces (``text``), in document order."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)
