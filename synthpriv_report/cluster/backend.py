"""The Dask backend of an evaluation (:class:`DaskBackend`): the engine's questions of
:class:`synthpriv_report.engine.backend.Backend` answered on a Dask cluster's workers.

Searches run in blocks on the workers (:class:`~synthpriv_report.cluster.distributed.DaskSearcher`); the sets'
numbers and codes are handed to the workers as soon as they are made (:mod:`.held`), so that the calling process
keeps handles, not arrays; joins of records are hash-partitioned joins on the workers (:mod:`.joins`); a memoised
result of :data:`MEMO_KEPT_BYTES` or more is kept on a worker. Between steps the calling process gives its free
heap back to the system and stops the client's log of sent messages. The numbers are those of the local backend,
bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ..data.containers import CodedSet
from .distributed import DaskSearcher, DistributedSearchError, give_back_free_heap, stop_message_log
from .held import ClusterBlocks, HeldArray, HeldNumericSet, HeldSet, Parking
from .partitioned import partitioned_inputs, prepare_partitioned

if TYPE_CHECKING:
    from ..data.containers import PreparedData
    from ..neighbors import RefTree, SearchChoice
    from ..neighbors.shards import ShardParams

#: A memoised result holding at least this many bytes of arrays is kept on a worker (:meth:`DaskBackend.keep`):
#: per-record arrays of a few hundred thousand records and more.
MEMO_KEPT_BYTES = 4 * 2**20


@dataclass(frozen=True)
class _OnWorker:
    """A memoised result kept on the Dask workers: the handle it is read from
    (:class:`~synthpriv_report.cluster.held.HeldValue`)."""

    kept: Any


class DaskBackend:
    """An evaluation's work on the workers of ``client`` (a running ``dask.distributed.Client``).

    Parameters
    ----------
    client : distributed.Client
        The caller's client; it stays open (:meth:`close` releases only what this backend kept there).
    shard_rows : int, optional
        Reference sets of more records than this are cut into shards, each with its own tree on one worker
        (:meth:`~synthpriv_report.cluster.distributed.DaskSearcher.search_sharded`).
    """

    where = "dask"
    remote = True
    keeps_encodings = False
    lost: type[Exception] = DistributedSearchError

    def __init__(self, client: Any, *, shard_rows: int | None = None):
        self.client = client
        self.searcher = DaskSearcher(client, shard_rows=shard_rows)
        self._blocks: ClusterBlocks | None = None  # where the sets' blocks are kept, made on first use

    @property
    def retries(self) -> int:
        """How many times a search or a join lost with a worker is run again (the searcher's)."""
        return self.searcher.retries

    # the sets ---------------------------------------------------------------------------------------------
    def partitioned_inputs(self, real: Any, synthetic: Any, holdout: Any = None, *,
                           exclude: Sequence[str] | None = None, reference: Any = None
                           ) -> Callable[..., tuple[PreparedData, dict[str, str], dict[str, str]]] | None:
        """Parquet paths and Dask DataFrames as partitions read on the workers
        (:func:`synthpriv_report.cluster.partitioned.partitioned_inputs`): their preparation, or None where no
        set is one."""
        inputs = partitioned_inputs(real, synthetic, holdout, exclude=exclude, reference=reference)
        if inputs is None:
            return None

        def prepare(**settings: Any) -> tuple[PreparedData, dict[str, str], dict[str, str]]:
            """Each partition read, checked and encoded on a worker, the sets' numbers kept there as they arrive
            (:func:`synthpriv_report.cluster.partitioned.prepare_partitioned`)."""
            park = Parking(ClusterBlocks(self.client))
            data, auto_excluded, kept, _ = prepare_partitioned(self.client, inputs, park=park, **settings)
            return data, auto_excluded, kept

        return prepare

    def blocks(self) -> ClusterBlocks:
        """Where the sets' blocks are kept (:class:`~synthpriv_report.cluster.held.ClusterBlocks`)."""
        if self._blocks is None:
            self._blocks = ClusterBlocks(self.client)
        return self._blocks

    def fit_hooks(self, data: PreparedData) -> tuple[Callable[..., HeldArray], Callable[[], None]]:
        def each_set(s: str, codes: NDArray[np.signedinteger[Any]], levels: tuple[NDArray[np.object_], ...]
                     ) -> HeldArray:
            return self.hold_codes(data, s, codes, levels)

        return each_set, lambda: self.hold_numbers(data)

    def hold_numbers(self, data: PreparedData) -> None:
        """Hand every set's packed numbers (and its canonical order, where the sets are held in one) to the
        workers (:mod:`synthpriv_report.cluster.held`), set after set, in blocks of a few megabytes with two copies
        each; :func:`~synthpriv_report.spaces.fit` calls this once it has read them, before it makes any category
        codes. ``data.numeric[s]`` and ``data.order[s]`` then read the rows they are asked for from the workers,
        the same values; this process keeps the handles and each packed column's table of distinct values, and
        lets a set's numbers go before the next set's are handed over. A set the preparation has already kept on
        the workers (:class:`~synthpriv_report.cluster.held.Parking`, partitioned inputs) stays there."""
        d = data
        park = Parking(self.blocks())
        for s in d.sets:
            if isinstance(d.numeric[s], HeldNumericSet):
                continue  # kept on the workers since the preparation (held.Parking), with its order
            d.numeric[s], _, order = park(d.numeric[s], [], None if d.order is None else d.order[s])
            if d.order is not None:
                d.order[s] = order  # type: ignore[assignment]
            del order
            self.settle()

    def hold_codes(self, data: PreparedData, s: str, codes: NDArray[np.signedinteger[Any]],
                   levels: tuple[NDArray[np.object_], ...]) -> HeldArray:
        """Hand set ``s``'s fitted category ``codes`` to the workers as soon as
        :func:`~synthpriv_report.spaces.fit` has made them (set after set), as :meth:`hold_numbers` hands the
        numbers. ``data.categorical[s]`` and the fitted codes (what this returns) then read the rows they are asked
        for from the workers; this process keeps the handles and each column's texts, and lets the set's codes go
        before the next set's are made."""
        held = HeldArray(HeldSet(self.blocks(), {"codes": codes}), "codes")
        del codes
        data.categorical[s] = CodedSet(held, levels)  # type: ignore[arg-type]
        if data.factorized is not None:
            data.factorized[s] = ()  # its codes are the fitted codes' now (fit has read them)
        self.settle()
        return held

    def settle(self) -> None:
        """Give the heap's free pages back to the system
        (:func:`synthpriv_report.cluster.distributed.give_back_free_heap`): between steps, the calling process
        holds what it keeps, not the holes its freed arrays left, nor the client's copies of the messages it sent
        (:func:`~synthpriv_report.cluster.distributed.stop_message_log`)."""
        stop_message_log(self.client)  # a client that reconnected has a new log
        give_back_free_heap()

    # searches ---------------------------------------------------------------------------------------------
    def shards(self, n_ref: int, *, tree_read_here: bool
               ) -> Callable[..., tuple[Any, SearchChoice, dict[str, Any]]] | None:
        """:meth:`search_sharded` for a reference set cut into shards, each with its own tree on one worker, or one
        shard where the set is no larger than a shard and no metric reads its tree here; None otherwise."""
        return self.search_sharded if self.searcher.shard_size(n_ref) is not None or not tree_read_here else None

    def search_sharded(self, key: Hashable, params: ShardParams, rnum: Any, rcat: Any, qnum: Any, qcat: Any, *,
                       k: int, exclude_self: bool, engine: str, desc: str) -> tuple[Any, SearchChoice, dict]:
        remote, choice, placed = self.searcher.search_sharded(key, params, rnum, rcat, qnum, qcat, k=k,
                                                              exclude_self=exclude_self, engine=engine, desc=desc)
        return remote, choice, {"where": "dask", "blocks": placed.blocks, "workers": placed.workers}

    def search(self, key: Hashable, tree: RefTree, qnum: NDArray[np.float64], qcat: NDArray[np.int64], *, k: int,
               exclude_self: bool, engine: str, device: str, progress: bool, desc: str,
               order: Callable[[], NDArray[np.int64]]
               ) -> tuple[NDArray[np.float64], NDArray[np.int64], SearchChoice, dict]:
        # the blocks are cut from the queries in the tree walk's visiting order, found once per query set as in a
        # local search: each block holds neighbouring queries and no worker orders its block again
        dist, idx, choice, placed = self.searcher.knn(key, tree, qnum, qcat, k=k, exclude_self=exclude_self,
                                                      engine=engine, progress=progress, desc=desc, order=order)
        return dist, idx, choice, {"where": "dask", "blocks": placed.blocks, "workers": placed.workers}

    def release(self, key: Hashable) -> None:
        """The workers' copies of the tree (or shards) of ``key`` go."""
        self.searcher.release(key)

    # joins of records -------------------------------------------------------------------------------------
    def one_column_matches(self, q_words: Callable[[int, int], NDArray[np.uint64]], n_q: int,
                           r_words: Callable[[int, int], NDArray[np.uint64]] | None, n_r: int, p: int
                           ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        return self.searcher.one_column_matches(q_words, n_q, r_words, n_r, p)

    def record_ids(self, words: Callable[[int, int], NDArray[np.uint64]], sizes: Sequence[int], p: int, *,
                   desc: str = "identical records") -> NDArray[np.int64] | None:
        return self.searcher.record_ids(words, sizes, p, desc=desc)

    # memoised results -------------------------------------------------------------------------------------
    def keep(self, value: Any, size: int | None) -> Any:
        """``value`` kept on a worker where it holds at least :data:`MEMO_KEPT_BYTES` of arrays in plain
        containers (``size``, None for anything else), this process keeping only the handle; an array that is a
        view of a larger one is kept here as a copy of its own, so that it does not keep the larger one alive."""
        if size is not None and size >= MEMO_KEPT_BYTES:
            return _OnWorker(self.searcher.hold(value))
        if isinstance(value, np.ndarray) and value.base is not None:
            return value.copy()  # a view kept here would keep the whole array it is cut from (every set's ids)
        return value

    def recall(self, kept: Any) -> Any:
        if not isinstance(kept, _OnWorker):
            return kept
        try:
            return self.searcher.held(kept.kept)
        except DistributedSearchError as exc:
            raise LookupError(str(exc)) from exc

    def dashboard(self) -> str | None:
        return self.searcher.dashboard_link

    def close(self) -> None:
        self.searcher.close()
