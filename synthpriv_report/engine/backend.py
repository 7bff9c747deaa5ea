"""Where an evaluation's heavy work runs: in this process (:class:`LocalBackend`), or on the workers of a Dask
cluster (:class:`synthpriv_report.cluster.backend.DaskBackend`).

The engine's caches (:mod:`.cache`) ask their backend, never whether there is a cluster: to keep a set's numbers
and codes where they will be searched (:meth:`Backend.fit_hooks`), to search against one tree or against a
reference set cut into shards (:meth:`Backend.search`, :meth:`Backend.shards`), to join records on their
values (:meth:`Backend.record_ids`, :meth:`Backend.one_column_matches`), to keep a memoised result
(:meth:`Backend.keep`, :meth:`Backend.recall`) and to give memory back between steps (:meth:`Backend.settle`).
:func:`backend_for` is the one place that chooses: a Dask client gives the Dask backend, no client the local one.
The numbers are the same, bit for bit, whichever backend runs them.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from .. import neighbors as nb
from ..matching.identity import one_column_matches
from ..neighbors.search import Device, Engine

if TYPE_CHECKING:
    from ..data.containers import PreparedData

#: A search against a reference set cut into shards (what :meth:`Backend.shards` gives): called as
#: ``(key, params, rnum, rcat, qnum, qcat, *, k, exclude_self, engine, desc)``, it returns a handle to the lists
#: (kept where they were made, with ``columns(which, k)`` and ``release()``), the engine chosen, and where it ran
#: (for the search log).
ShardedSearch = Callable[..., tuple[Any, "nb.SearchChoice", dict[str, Any]]]
#: What :meth:`Backend.partitioned_inputs` gives: called with the preparation's settings (``numeric``,
#: ``categorical``, ``include``, ``named``, ``reveal_real_values``, ``row_order``), it returns the prepared data,
#: the identifier-like columns left out and those kept.
PartitionedPreparation = Callable[..., tuple["PreparedData", dict[str, str], dict[str, str]]]
#: A function that makes the cell words of records ``a`` to ``b`` (:func:`synthpriv_report.matching.identity.
#: cell_words`), for a join of records on their values.
Words = Callable[[int, int], NDArray[np.uint64]]


@runtime_checkable
class Backend(Protocol):
    """What the engine asks of the place its work runs."""

    #: The evaluation's ``backend`` setting this backend answers to: ``"local"`` or ``"dask"``.
    where: str
    #: Whether the work runs in other processes (its tables may stay there, and what one evaluation computed
    #: cannot be lent to another).
    remote: bool
    #: Whether an encoding stays cached once its searches have run (here: so that a slider never waits for one);
    #: with remote searches the calling process lets it go.
    keeps_encodings: bool
    #: The error of work the backend lost (a table kept on a worker that has gone); never raised locally.
    lost: type[Exception]

    def partitioned_inputs(self, real: Any, synthetic: Any, holdout: Any = None, *,
                           exclude: Sequence[str] | None = None, reference: Any = None
                           ) -> PartitionedPreparation | None:
        """The preparation of sets the backend reads in partitions where they are (:data:`PartitionedPreparation`),
        or None where the sets are read here (:func:`synthpriv_report.data.sources.read_inputs`)."""
        ...

    @property
    def retries(self) -> int:
        """How many times a search or a join lost with a worker is run again."""
        ...

    def fit_hooks(self, data: PreparedData) -> tuple[Callable[..., Any] | None, Callable[[], None] | None]:
        """``each_set`` and ``numbers_read`` for :func:`synthpriv_report.spaces.fit` (where each set's codes and
        numbers go once made); ``(None, None)`` keeps them in this process."""
        ...

    def settle(self) -> None:
        """Between steps: give memory the calling process no longer uses back to the system."""
        ...

    def shards(self, n_ref: int, *, tree_read_here: bool) -> ShardedSearch | None:
        """The search to run where a reference set of ``n_ref`` records is searched on shards kept elsewhere, with
        no tree of it in this process (:data:`ShardedSearch`); None where it is searched against one tree
        (``tree_read_here``: a metric will read that tree itself)."""
        ...

    def search(self, key: Hashable, tree: nb.RefTree, qnum: NDArray[np.float64], qcat: NDArray[np.int64], *, k: int,
               exclude_self: bool, engine: Engine, device: Device, progress: bool, desc: str,
               order: Callable[[], NDArray[np.int64]]
               ) -> tuple[NDArray[np.float64], NDArray[np.int64], nb.SearchChoice | None, dict[str, Any]]:
        """The ``k`` nearest references in ``tree`` of each query (:func:`synthpriv_report.neighbors.knn`): the
        distances, the positions, the engine chosen and where it ran (for the search log)."""
        ...

    def release(self, key: Hashable) -> None:
        """The tree of ``key`` is no longer needed: copies of it kept elsewhere go."""
        ...

    def one_column_matches(self, q_words: Words, n_q: int, r_words: Words | None, n_r: int, p: int
                           ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """:func:`synthpriv_report.matching.identity.one_column_matches` of the records ``q_words`` makes against
        those ``r_words`` makes (None: the query records themselves)."""
        ...

    def record_ids(self, words: Words, sizes: Sequence[int], p: int, *, desc: str = "identical records"
                   ) -> NDArray[np.int64] | None:
        """Identical-record ids by a join of the records ``words`` makes, or None where the engine numbers them
        itself, in this process."""
        ...

    def keep(self, value: Any, size: int | None) -> Any:
        """The form in which the memoised ``value`` is cached (:meth:`recall` reads it back); ``size``: the bytes
        of its arrays where it is made of plain parts a worker can hold, else None."""
        ...

    def recall(self, kept: Any) -> Any:
        """What :meth:`keep` was given.

        Raises
        ------
        LookupError
            It was kept on a worker that has gone (the caller computes it again).
        """
        ...

    def dashboard(self) -> str | None:
        """A link to a dashboard where the remote work can be watched, or None."""
        ...

    def close(self) -> None:
        """Let go of everything kept elsewhere (the caller's own client, if any, stays open)."""
        ...


class _NeverLost(Exception):
    """Local work is never lost to a departed worker."""


class LocalBackend:
    """Everything in this process: searches with :func:`synthpriv_report.neighbors.knn` (on the CPU or the
    chosen device), joins in memory, memoised results cached as they are."""

    where = "local"
    remote = False
    keeps_encodings = True
    retries = 0
    lost: type[Exception] = _NeverLost

    def partitioned_inputs(self, real: Any, synthetic: Any, holdout: Any = None, *,
                           exclude: Sequence[str] | None = None, reference: Any = None) -> None:
        return None  # every set is read here

    def fit_hooks(self, data: PreparedData) -> tuple[None, None]:
        return None, None

    def settle(self) -> None:
        """Nothing to give back: freed arrays return to the allocator as usual."""

    def shards(self, n_ref: int, *, tree_read_here: bool) -> None:
        return None  # every search runs against one tree here

    def search(self, key: Hashable, tree: nb.RefTree, qnum: NDArray[np.float64], qcat: NDArray[np.int64], *, k: int,
               exclude_self: bool, engine: Engine, device: Device, progress: bool, desc: str,
               order: Callable[[], NDArray[np.int64]]
               ) -> tuple[NDArray[np.float64], NDArray[np.int64], nb.SearchChoice | None, dict[str, Any]]:
        info: dict[str, Any] = {}
        dist, idx = nb.knn(tree, qnum, qcat, k=k, exclude_self=exclude_self, progress=progress, desc=desc,
                           engine=engine, device=device, info=info, order=order)
        return dist, idx, info.get("choice"), {}

    def release(self, key: Hashable) -> None:
        """Nothing is kept elsewhere."""

    def one_column_matches(self, q_words: Words, n_q: int, r_words: Words | None, n_r: int, p: int
                           ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        wq = q_words(0, n_q)
        return one_column_matches(wq, wq if r_words is None else r_words(0, n_r), same=r_words is None)

    def record_ids(self, words: Words, sizes: Sequence[int], p: int, *, desc: str = "identical records") -> None:
        return None

    def keep(self, value: Any, size: int | None) -> Any:
        return value

    def recall(self, kept: Any) -> Any:
        return kept

    def dashboard(self) -> None:
        return None

    def close(self) -> None:
        """Nothing is kept elsewhere."""


def backend_for(client: Any = None, *, shard_rows: int | None = None) -> Backend:
    """The backend of an evaluation: on ``client``'s Dask workers where a client is given
    (:class:`synthpriv_report.cluster.backend.DaskBackend`, imported only then), else in this process."""
    if client is None:
        return LocalBackend()
    from ..cluster.backend import DaskBackend

    return DaskBackend(client, shard_rows=shard_rows)
