"""A notebook line that links to the Dask dashboard while an evaluation's searches run on a cluster.

:func:`notice` returns a small object whose display bundle says what is running and links to the dashboard
(``text/html`` through the package's autoescaping Jinja environment, no script; ``text/plain`` beside it). Only
``http``/``https`` addresses become links; any other address is shown as text. :func:`live_notice` is the one
place of the package that calls ``display()`` itself, as a progress bar does: it shows the line in a notebook
and updates it when the computation ends.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ..text import templating

__all__ = ["DaskNotice", "notice", "live_notice"]


def _safe_href(link: str | None) -> str | None:
    if not link:
        return None
    try:
        parts = urlsplit(link)
    except ValueError:
        return None
    return link if parts.scheme in ("http", "https") and parts.netloc else None


@dataclass(frozen=True)
class DaskNotice:
    """What a notebook shows about an evaluation on a Dask cluster.

    Attributes
    ----------
    text : str
        One sentence: running, or what ran where.
    link : str or None
        The dashboard address as the client gave it.
    id : str
        Element id of this render.
    """

    text: str
    link: str | None
    id: str = field(default="", compare=False)

    @property
    def href(self) -> str | None:
        """The link target, only for an http(s) address."""
        return _safe_href(self.link)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        html = templating.environment(__package__).get_template("dask.html.j2").render(x=self)
        plain = self.text + (f" Dask dashboard: {self.link}" if self.link else "")
        return {"text/plain": plain, "text/html": html}


def notice(link: str | None, *, running: bool, searches: Sequence[Any] = ()) -> DaskNotice:
    """The notice for a computation that is ``running``, or that ran ``searches`` (search-log records).

    Examples
    --------
    >>> n = notice("http://127.0.0.1:8787/status", running=True)
    >>> n._repr_mimebundle_()["text/plain"]
    'Neighbour searches are running on the Dask cluster. Dask dashboard: http://127.0.0.1:8787/status'
    """
    from .views import new_id

    if running:
        text = "Neighbour searches are running on the Dask cluster."
    else:
        on_dask = [s for s in searches if getattr(s, "where", "local") == "dask"]
        workers = sorted({w for s in on_dask for w in s.workers})
        tasks = sum(s.blocks for s in on_dask)
        if on_dask:
            text = (f"Done: {len(on_dask)} neighbour search{'es' if len(on_dask) != 1 else ''} ran as {tasks} "
                    f"task{'s' if tasks != 1 else ''} on {len(workers)} Dask worker{'s' if len(workers) != 1 else ''}.")
        else:
            text = "Done: no new neighbour search was needed."
    return DaskNotice(text, link, new_id("spr-dask"))


class _Live:
    def __init__(self, handle: Any, link: str | None, log: list, start: int):
        self._handle, self._link, self._log, self._start = handle, link, log, start

    def finish(self) -> None:
        """Replace the running line by what ran (the searches logged since it was shown)."""
        self._handle.update(notice(self._link, running=False, searches=self._log[self._start:]))


def _in_notebook() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def live_notice(link: str | None, log: list) -> _Live | None:
    """Show the running notice in a notebook (a display handle) and return what updates it; None outside a
    notebook kernel (a terminal sees the progress bars' descriptions instead)."""
    if not _in_notebook():
        return None
    from IPython.display import display

    handle = display(notice(link, running=True), display_id=True)
    return None if handle is None else _Live(handle, link, log, len(log))
