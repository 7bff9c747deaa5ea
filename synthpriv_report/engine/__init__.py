"""The search and cache engine behind an evaluation: encodings, trees, neighbour tables, memoised steps.

Every (space, query set, reference set) is searched once per evaluation with the largest ``k`` any planned metric
needs; metrics read the cached tables through a :class:`Context`, the one object a metric's ``plan`` and
``compute`` receive. Nothing here knows about metrics, levels or presentation.

:mod:`.requests` (set references and search requests), :mod:`.cache` (what one evaluation computes once) and
:mod:`.context` (what a metric sees).
"""

from .context import Context
from .requests import SearchRecord, SearchRequest, SetRef, TreeRequest

__all__ = ["Context", "SearchRecord", "SearchRequest", "SetRef", "TreeRequest"]
