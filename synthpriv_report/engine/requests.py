"""Set references and search requests: what a metric asks of the engine before anything is computed.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ..spaces import (
    SpaceSpec,
)

if TYPE_CHECKING:
    pass




# ---------------------------------------------------------------------------------------------------------------
# set references and search requests


@dataclass(frozen=True, eq=False)
class SetRef:
    """A record set: a whole set (``rows is None``) or a subset of one, identified by a tag.

    Made by :meth:`Context.full` and :meth:`Context.subset`; everywhere a :class:`Context` method takes a set, a
    plain set name (``"T"``) means the whole set.

    Parameters
    ----------
    base : {"T", "S", "H", "R"}
        The set the records come from: training (real), synthetic, holdout (real, not seen by the generator),
        reference (real, neither training nor holdout: the membership attacks' reference data, when given).
    rows : ndarray of int, shape (n_rows,), optional
        Positions in ``base`` (the evaluation's row order, see :class:`Context`), in the order the subset lists
        them (int32 from :meth:`Context.subset` where the set has fewer than 2**31 records, else int64);
        ``None``: the whole set.
    tag : str
        Name of the subset, shown in the search log (``"T[privacy_score.R1]"``). Part of the identity: two subsets
        of the same rows under different tags are searched separately.

    Notes
    -----
    Two references are equal, and share cached searches, when their :attr:`key` is: the same base, tag, number of
    rows and rows. Neighbour positions returned for a subset are positions *within the subset*; ``rows`` maps them
    back to the base set (``ref.rows[table.idx]``). A query subset's rows of a table follow ``rows``.

    Examples
    --------
    >>> import numpy as np
    >>> SetRef("T").label, SetRef("T", np.array([0, 2]), "half").label
    ('T', 'T[half]')
    >>> SetRef("T", np.array([0, 2]), "half") == SetRef("T", np.array([0, 2]), "half")
    True
    """

    base: str
    rows: NDArray[np.integer] | None = None
    tag: str = ""

    @functools.cached_property
    def key(self) -> tuple[str, str, int, str]:
        """What identifies the set in the caches: ``(base, tag, number of rows, digest of the rows)``; a whole set
        is ``(base, "", 0, "")``. Found once per reference (every lookup of a cache reads it); the digest is of
        the rows as int64, whatever type holds them, read a block at a time."""
        if self.rows is None:
            return (self.base, "", 0, "")
        h = hashlib.sha1()
        step = 1 << 16
        for a in range(0, self.rows.shape[0], step):
            h.update(np.ascontiguousarray(self.rows[a:a + step], dtype=np.int64).tobytes())
        return (self.base, self.tag, int(self.rows.shape[0]), h.hexdigest()[:16])

    @property
    def label(self) -> str:
        """``base`` for a whole set, ``base[tag]`` for a subset (the search log's name for it)."""
        return self.base if self.rows is None else f"{self.base}[{self.tag}]"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SetRef) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)


@dataclass(frozen=True)
class SearchRequest:
    """A neighbour search a metric will ask for: ``k`` nearest records of ``ref`` for each record of ``query``.

    Made by :meth:`Context.request` and returned by a metric's ``plan``. The evaluation plans the requests of all
    its metrics before any searches, and each (space, query, ref) then runs once with the largest ``k`` asked for.
    """

    space: SpaceSpec
    query: SetRef
    ref: SetRef
    k: int


@dataclass(frozen=True)
class TreeRequest:
    """A metric will read the search tree of ``ref`` itself (:meth:`Context.tree`, :meth:`Context.farthest`), not
    only through a neighbour search: the tree is kept until that metric has been computed."""

    space: SpaceSpec
    ref: SetRef


@dataclass
class SearchRecord:
    """One executed search (for the search counter and the benchmark).

    ``where`` is ``"local"`` (this process) or ``"dask"`` (``blocks`` tasks that ran on ``workers``, their
    addresses).
    """

    space: str
    query: str
    ref: str
    k: int
    n_query: int
    n_ref: int
    seconds: float
    engine: str = ""
    reason: str = ""
    where: str = "local"
    blocks: int = 1
    workers: tuple[str, ...] = ()
