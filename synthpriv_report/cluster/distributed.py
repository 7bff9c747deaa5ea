"""Neighbour searches on Dask workers, with the numbers of the single-process run.

An evaluation given a :class:`distributed.Client` (``Evaluation(..., client=client)``, or ``backend="dask"`` for
Dask's current default client) runs each exact neighbour search as tasks:

1. the reference structure (the tree of :mod:`synthpriv_report.neighbors`, which also carries the tiled and dense
   kernels' reference arrays) is built where the evaluation runs and scattered once to every worker
   (``client.scatter(..., broadcast=True)``), once per (space, reference set). A task names the tree by its key
   instead of depending on it, and each worker process keeps its own reference to a tree once it has used it:
   Dask's active memory manager keeps a single copy of scattered data that no waiting task needs, so a dependency
   would make every later search against the same tree fetch it to every other worker again. Dask's copies and
   the workers' references are released when the evaluation drops its own copy (after the last search and read
   its metrics planned);
2. the engine (tree, tiled, dense) is chosen once for the whole query set, as in a single-process run;
3. the queries are cut into contiguous blocks (for the tree engine, of the queries in the walk's visiting order,
   which the evaluation finds once per query set), each block is searched on a worker by the same compiled
   kernels, and the rows are put back in query order.

The result of one query depends neither on the other queries of its block nor on their order (every engine is
exact, with one tie rule), so the tables are bit-for-bit those of the single-process search.

A reference set of more records than ``shard_rows`` (``Evaluation(shard_rows=...)``, default
:data:`SHARD_AUTO_ROWS`) is not scattered whole: it is cut into shards of contiguous positions, each shard's rows go
to one worker (round robin) which builds and keeps the shard's tree, every query block is searched against every
shard on that shard's worker, a task merges the shards' lists of each block, and the few rows a near tie may touch
are decided by a task from every shard's candidates, each listed on its shard's worker
(:mod:`synthpriv_report.neighbors.shards`: the same neighbours and distances as one tree). A shard's rows and a
query block's are sent in pieces of at most :data:`SCATTER_ROWS` rows. The final lists of each block stay on the
worker that decided them (:class:`RemoteTable`): the evaluation keeps a handle, and a metric reads the columns it
uses (the first of a table searched for more neighbours, say) when it first uses them, holding them only as long
as it does; a table the cluster lost with a worker is searched again when it is next read. No tree of a sharded
set exists in the local process, and no worker holds more than its shards and the tables of its blocks.
Encodings, the trees of smaller sets and every metric's reduction (bootstraps included, with their
``random_state``) stay in the local process; the prepared records themselves are held on the workers once the
encoders are fitted (:mod:`synthpriv_report.cluster.held`), and the local process reads the rows it sends or reduces.

Faults: a block whose worker dies is run again elsewhere by Dask (``retries=`` counts failures of the task
itself; a worker's death is retried up to the scheduler's ``distributed.scheduler.allowed-failures``). A worker's
death can also take the last copy of a tree Dask holds; a block that then finds none raises
:class:`TreeUnavailable`, and the search scatters the tree again from the evaluation's own copy and runs the
blocks that missed it again (up to ``retries + 1`` times per search). A search that cannot be completed raises
:class:`DistributedSearchError` naming the search; no partial or unchecked block is ever used.

Workers compile the numba kernels on their first search (about 30 s per worker process for a cold cache; numba
keeps the machine code on disk next to the package, so later worker processes on the same machine load it in a
second or two). Each task runs the kernels with ``cores of its machine // Dask threads on that machine`` numba
threads (at least 1), so the workers of one machine never oversubscribe it.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from ..neighbors.search import SearchChoice, choose_engine, run_engine
from ..neighbors.shards import (
    Candidates,
    ShardParams,
    decide_rows,
    merge_shards,
    search_shard,
    shard_bounds,
    shard_candidates,
)
from ..neighbors.tree import RefTree
from .held import HeldValue

R = TypeVar("R")

__all__ = ["DaskSearcher", "DistributedSearchError", "RemoteTable", "TreeUnavailable", "resolve_client", "TASK_PREFIX",
           "give_back_free_heap", "stop_message_log", "MIN_BLOCK_ROWS", "BLOCKS_PER_THREAD", "SHARD_AUTO_ROWS",
           "SHARD_PREFIX", "READ_PREFIX"]

#: Prefix of the key of every search task (``synthpriv-knn-<search id>-<block>``), as the task stream and the
#: dashboard show it.
TASK_PREFIX = "synthpriv-knn"
#: Prefix of the key of every task that builds a shard's tree (``synthpriv-shard-<id>-<shard>``).
SHARD_PREFIX = "synthpriv-shard"
#: Prefix of the key of every task that reads columns of a table kept on the workers (:class:`RemoteTable`).
READ_PREFIX = "synthpriv-read"
#: Without ``shard_rows=``, reference sets of more records than this are cut into shards of at most this many
#: (a tree of two million Adult-like records holds about 0.5 GB); smaller ones are scattered whole to every worker.
SHARD_AUTO_ROWS = 2_000_000
#: Fewest queries in one block (smaller blocks cost more in scheduling than they save).
MIN_BLOCK_ROWS = 1_000
#: Blocks per Dask thread of the cluster (a few per thread balance uneven blocks and a slow worker).
BLOCKS_PER_THREAD = 4
#: Most rows of one piece of a shard's or a query block's rows sent to a worker (about 11 MB of Adult-like records
#: in the gower space): the calling process makes and sends the pieces one after another.
SCATTER_ROWS = 100_000
#: Retries of a block whose task raised (a worker's death is retried by the scheduler besides).
RETRIES = 2
#: Most trees one worker process keeps referenced between the searches of evaluations.
WORKER_TREES_MAX = 8
#: Longest wait, in seconds, for a running worker before a lost tree is scattered again.
WORKER_WAIT_S = 300

_INSTALL_HINT = 'pip install "synthpriv_report[dask]"'


class DistributedSearchError(RuntimeError):
    """A neighbour search could not be completed on the Dask cluster (no result of it was used)."""


def resolve_client(client: Any = None, backend: str = "local") -> Any:
    """The Dask client an evaluation runs its searches on, or None for the local process.

    Parameters
    ----------
    client : distributed.Client, optional
        An explicit client (implies the Dask backend).
    backend : {"local", "dask"}, default "local"
        ``"dask"`` without ``client``: Dask's current default client (:func:`distributed.get_client`).

    Returns
    -------
    distributed.Client or None

    Raises
    ------
    ValueError
        An unknown backend, ``backend="dask"`` without a running client, or a closed client.
    TypeError
        ``client`` is not a :class:`distributed.Client`.
    ImportError
        Dask's ``distributed`` package is not installed.

    Examples
    --------
    >>> resolve_client(None, "local") is None
    True
    >>> resolve_client(None, "spark")
    Traceback (most recent call last):
    ...
    ValueError: backend must be 'local' or 'dask', got 'spark'
    """
    if backend not in ("local", "dask"):
        raise ValueError(f"backend must be 'local' or 'dask', got {backend!r}")
    if client is None and backend == "local":
        return None
    try:
        import distributed
    except ImportError as exc:  # pragma: no cover - the dask extra is installed in the test environment
        raise ImportError(f"searches on Dask workers need Dask's distributed package: {_INSTALL_HINT}") from exc
    if client is None:
        try:
            client = distributed.get_client()
        except ValueError as exc:
            raise ValueError("backend='dask' needs a running Dask client: create one first "
                             "(client = distributed.Client('tcp://scheduler:8786'), or Client() for a local "
                             "cluster), or pass client=") from exc
    if not isinstance(client, distributed.Client):
        raise TypeError(f"client must be a dask.distributed.Client, got {type(client).__name__}")
    if client.status != "running":
        raise ValueError(f"client is not connected to a scheduler (its status is {client.status!r}); "
                         f"pass a running dask.distributed.Client")
    return client


def dashboard_link(client: Any) -> str | None:
    """The client's dashboard address, or None where the scheduler serves none."""
    try:
        link = client.dashboard_link
    except Exception:  # noqa: BLE001 - a scheduler without bokeh, or a dropped connection: no link
        return None
    return str(link) if link else None


@dataclass(frozen=True)
class Placement:
    """Where one search ran: ``blocks`` tasks on ``workers`` (addresses, sorted), and how many times its tree was
    scattered again after Dask lost it with a worker."""

    blocks: int
    workers: tuple[str, ...]
    rescattered: int = 0
    #: Rows decided again from every shard's candidates (a sharded search's near ties).
    decided: int = 0


# ---------------------------------------------------------------------------------------------------------------
# what runs on a worker

#: The workqueue threading layer of numba must not be entered by two threads of one process at once.
_KERNEL_LOCK = threading.Lock()


def _numba_threads(threads_on_host: int) -> int:
    import numba

    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return max(1, min(int(numba.config.NUMBA_NUM_THREADS), cores // max(1, threads_on_host)))


def _layer_is_threadsafe() -> bool:
    from .._compiled import COMPILED

    if not COMPILED:
        return True  # NumPy releases the interpreter lock in its loops; no numba threading layer is entered
    import numba

    try:
        return numba.threading_layer() in ("tbb", "omp")
    except ValueError:  # no parallel kernel ran yet in this process
        return False


class TreeUnavailable(RuntimeError):
    """A worker found no copy of a search's tree on the cluster (the last copy was lost with a worker, or the
    tree was released); the search scatters it again."""


#: The trees this worker process holds for searches, by the key of their scattered future, most recently used
#: last. A worker keeps its own reference to a tree once it has used it, so Dask's active memory manager, which
#: keeps a single copy of scattered data no waiting task needs, cannot make every later search against the same
#: tree fetch it again (a million-record tree is about 250 MB). :meth:`DaskSearcher.release` empties the entry on
#: every worker; at most ``WORKER_TREES_MAX`` trees are kept (the least recently used is dropped first, and
#: fetched again if a search needs it).
_WORKER_TREES: OrderedDict[str, RefTree] = OrderedDict()
_WORKER_TREES_LOCK = threading.Lock()
_WORKER_FETCH_LOCK = threading.Lock()
#: Each scattered tree is published under this prefix and its key, so that a worker without a copy can fetch it.
_DATASET_PREFIX = "synthpriv-tree-"


def _tree_on_worker(tree_key: str) -> RefTree:
    """The tree of ``tree_key`` in this worker process: its own reference, else Dask's copy on this worker, else a
    copy fetched from the worker that holds one. Raises :class:`TreeUnavailable` when no worker holds one."""
    from distributed import get_client, get_worker

    with _WORKER_FETCH_LOCK:  # threads of one worker that miss the same tree fetch it once
        with _WORKER_TREES_LOCK:
            tree = _WORKER_TREES.get(tree_key)
            if tree is not None:
                _WORKER_TREES.move_to_end(tree_key)
                return tree
        worker = get_worker()
        try:
            tree = worker.data[tree_key] if tree_key in worker.data else None
        except KeyError:  # dropped from this worker's data meanwhile
            tree = None
        if tree is None:
            client = get_client()
            try:
                fut = client.get_dataset(_DATASET_PREFIX + tree_key)
            except KeyError as exc:
                raise TreeUnavailable(f"the search tree {tree_key!r} was released") from exc
            if not client.who_has([fut]).get(fut.key):
                raise TreeUnavailable(f"no worker holds the search tree {tree_key!r}")
            try:
                tree = fut.result(timeout=WORKER_WAIT_S)
            except Exception as exc:  # noqa: BLE001 - lost or released while it was fetched
                raise TreeUnavailable(f"the search tree {tree_key!r} could not be fetched: {exc}") from exc
        with _WORKER_TREES_LOCK:
            _WORKER_TREES[tree_key] = tree
            while len(_WORKER_TREES) > WORKER_TREES_MAX:
                _WORKER_TREES.popitem(last=False)
        return tree


def _forget_worker_tree(tree_key: str) -> bool:
    """Drop this worker process's reference to a tree (``client.run`` calls it on every worker)."""
    with _WORKER_TREES_LOCK:
        return _WORKER_TREES.pop(tree_key, None) is not None


def _search_block(tree_key: str, queries: tuple, k: int, choice: SearchChoice, threads_by_host: dict[str, int],
                  presorted: bool = False) -> tuple:
    """One block's search on a worker: ``(dist, idx, worker address, seconds)``. ``queries``: the block's
    ``(qnum, qcat, self_pos)``; ``presorted``: they are already in the tree walk's visiting order (a slice of the
    whole set's order), kept as they are."""
    from distributed import get_worker

    qnum, qcat, self_pos = queries
    worker = get_worker()
    tree = _tree_on_worker(tree_key)
    t0 = time.perf_counter()
    order = (lambda: np.arange(qnum.shape[0], dtype=np.int64)) if presorted else None
    dist, idx = _with_kernels(threads_by_host, lambda: run_engine(choice, tree, qnum, qcat, self_pos, k, order=order))
    return dist, idx, worker.address, time.perf_counter() - t0


def _with_kernels(threads_by_host: dict[str, int], fn: Callable[[], Any]) -> Any:
    """``fn()`` on this worker with its share of the machine's cores as numba threads, one kernel at a time where
    numba's threading layer cannot be entered by two threads at once."""
    from distributed import get_worker

    from .._compiled import COMPILED

    worker = get_worker()
    host = worker.address.rsplit(":", 1)[0]
    if COMPILED:  # without numba the NumPy search runs (no numba threads to set)
        import numba

        numba.set_num_threads(_numba_threads(threads_by_host.get(host, worker.state.nthreads)))
    if worker.state.nthreads > 1 and not _layer_is_threadsafe():
        with _KERNEL_LOCK:
            return fn()
    return fn()


def _joined(pieces: Sequence[tuple[NDArray[Any], ...]]) -> tuple[NDArray[Any], ...]:
    """Pieces of consecutive rows (:meth:`DaskSearcher._scatter_rows`) as one array per field."""
    if len(pieces) == 1:
        return pieces[0]
    return tuple(np.concatenate(field) for field in zip(*pieces))


def _build_shard(params: ShardParams, pieces: Sequence[tuple[NDArray[np.float64], NDArray[np.int64]]],
                 threads_by_host: dict[str, int]) -> RefTree:
    """One shard's tree, built on the worker that keeps it from the pieces of its rows."""
    rows = _joined(pieces)
    del pieces
    return _with_kernels(threads_by_host, lambda: params.build(rows[0], rows[1]))


def _choose_on_shard(tree: RefTree, start: int, qnum: NDArray[np.float64], qcat: NDArray[np.int64],
                     self_pos: NDArray[np.int64], k: int, engine: str, n_total: int, m_total: int,
                     threads_by_host: dict[str, int]) -> SearchChoice:
    """The engine of a sharded search, chosen on one shard's tree from a sample of the queries."""
    inside = (self_pos >= start) & (self_pos < start + tree.size)
    local = np.where(inside, self_pos - start, -1).astype(np.int64)
    return _with_kernels(threads_by_host, lambda: choose_engine(tree, qnum, qcat, local, k, engine=engine,  # type: ignore[arg-type]
                                                                device="cpu", n_total=n_total, m_total=m_total))


def _order_block(params: ShardParams, pieces: Sequence[tuple], tree_engine: bool,
                 threads_by_host: dict[str, int]) -> tuple:
    """A query block, joined from the pieces of its rows, in the tree walk's visiting order, with that order
    (found once for all the shards)."""
    qnum, qcat, self_pos = _joined(pieces)
    if not tree_engine:
        return qnum, qcat, self_pos, None
    perm = _with_kernels(threads_by_host, lambda: params.query_order(qnum, qcat))
    return np.ascontiguousarray(qnum[perm]), np.ascontiguousarray(qcat[perm]), self_pos[perm], perm


def _search_shard_block(tree: RefTree, start: int, block: tuple, k: int, choice: SearchChoice,
                        threads_by_host: dict[str, int]) -> tuple:
    """One query block (:func:`_order_block`) against one shard
    (:func:`synthpriv_report.neighbors.shards.search_shard`)."""
    qnum, qcat, self_pos, perm = block
    return _with_kernels(threads_by_host, lambda: search_shard(tree, start, qnum, qcat, self_pos, k, choice,
                                                               presorted=perm is not None))


def _merge_block(parts: list[tuple], k: int, exact: bool, block: tuple) -> tuple:
    """The shards' lists of one query block merged (:func:`synthpriv_report.neighbors.shards.merge_shards`) and
    put back in the block's query order: ``(dist, idx, rows)``, ``rows`` the block's rows to decide again."""
    dist, idx, rows = merge_shards(parts, k, exact)
    perm = block[3]
    if perm is not None:
        back = np.empty_like(perm)
        back[perm] = np.arange(perm.shape[0])
        dist, idx, rows = dist[back], idx[back], np.sort(perm[rows])
    return dist, idx, rows


def _tie_rows(merged: tuple) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """The rows of a merged block to decide again and their k-th distances: all a shard's candidate task needs of
    the merged lists (a few rows, not the block's lists)."""
    dist, _, rows = merged
    return rows, np.ascontiguousarray(dist[rows, dist.shape[1] - 1]) if dist.shape[1] else np.zeros(0)


def _shard_candidates(tree: RefTree, start: int, block: tuple, ties: tuple, k: int, choice: SearchChoice,
                      threads_by_host: dict[str, int]) -> Candidates:
    """One shard's candidates for the rows of one query block decided again
    (:func:`synthpriv_report.neighbors.shards.shard_candidates`), on the shard's worker."""
    qnum, qcat, self_pos, perm = block
    rows, dk = ties
    if perm is not None:  # the block's arrays are in the walk's order: row r sits where perm holds r
        at = np.empty_like(perm)
        at[perm] = np.arange(perm.shape[0])
        rows = at[rows]
    return _with_kernels(threads_by_host, lambda: shard_candidates(tree, start, qnum[rows], qcat[rows],
                                                                   self_pos[rows], dk, k, choice))


def _decide_block(merged: tuple, candidates: list[Candidates], exact: bool) -> tuple:
    """A merged block with its near-tie rows decided from every shard's candidates
    (:func:`synthpriv_report.neighbors.shards.decide_rows`): ``(dist, idx, rows decided, worker address)``."""
    from distributed import get_worker

    dist, idx, rows = merged
    if len(rows):
        idx = idx.copy()
        decide_rows(rows, idx, candidates, exact)
    return dist, idx, int(len(rows)), get_worker().address


def _block_meta(final: tuple) -> tuple:
    """What the calling process reads of a decided block (:func:`_decide_block`) when its lists stay on the
    worker: their shapes, the rows decided again and the worker's address."""
    dist, idx, count, address = final
    return dist.shape, idx.shape, count, address


def _block_columns(final: tuple, which: str, k: int) -> NDArray:
    """The first ``k`` columns of a decided block's distances (``which="dist"``) or positions (``"idx"``), or
    each row's mean of its first ``k`` distances (``"mean"``: as the calling process would compute them from the
    columns it reads, ``dist[:, :k].mean(axis=1)``, so the same bits)."""
    dist, idx, _, _ = final
    if which == "mean":
        return np.ascontiguousarray(dist[:, :k]).mean(axis=1)
    return np.ascontiguousarray((dist if which == "dist" else idx)[:, :k])


# ---------------------------------------------------------------------------------------------------------------
# what runs where the evaluation runs


def _in_turn(count: int, in_flight: int, submit: Callable[[int], Any]) -> Iterator[tuple[int, Any]]:
    """Tasks ``submit(0) .. submit(count - 1)``, at most ``in_flight`` running at once, each next one submitted
    as an earlier one finishes: ``(i, future)`` in the order they finish. Stopped early (the caller raised, or
    broke off), the tasks still running are cancelled."""
    from distributed import as_completed

    running: dict[Any, int] = {}

    def start(i: int) -> Any:
        fut = submit(i)
        running[fut] = i
        return fut

    submitted = min(count, max(1, in_flight))
    try:
        finished = as_completed([start(i) for i in range(submitted)])
        for fut in finished:
            yield running.pop(fut), fut
            if submitted < count:
                finished.add(start(submitted))
                submitted += 1
    finally:
        for fut in running:
            if not fut.done():
                fut.cancel()


class RemoteTable:
    """A neighbour table whose lists stay on the workers: one decided block of query rows per future
    (:meth:`DaskSearcher.search_sharded`). The calling process reads only the columns it asks for
    (:meth:`columns`), a block at a time into one array, and holds nothing of the table between reads.

    Parameters
    ----------
    client : distributed.Client
    n, k : int
        Query records and neighbours per record.
    blocks : list of (start, end, future)
        Contiguous query rows ``start:end`` and the future of their decided lists, in query order.
    """

    def __init__(self, client: Any, n: int, k: int, blocks: list[tuple[int, int, Any]]):
        self.client = client
        self.n, self.k = int(n), int(k)
        self.blocks = blocks

    @property
    def workers(self) -> tuple[str, ...]:
        """Addresses of the workers that hold the blocks now (asked of the scheduler)."""
        keys = [fut.key for _, _, fut in self.blocks]
        where = self.client.who_has(keys) if keys else {}
        return tuple(sorted({w for ws in where.values() for w in ws}))

    def columns(self, which: str, k: int) -> NDArray:
        """The first ``k`` columns of the distances (``which="dist"``, float64) or positions (``"idx"``, int64)
        of every query row, read block by block (a few blocks in flight) into one array; ``which="mean"``: each
        row's mean of its first ``k`` distances, made on the workers (one float64 a row).

        Raises
        ------
        DistributedSearchError
            A block could not be read (its worker died and Dask could not make it again): nothing of the read is
            used; the evaluation searches again (:meth:`synthpriv_report.engine.cache._Engine.knn`).
        """
        if which not in ("dist", "idx", "mean"):
            raise ValueError(f"which must be 'dist', 'idx' or 'mean', not {which!r}")
        if not 0 <= k <= self.k:
            raise ValueError(f"{k} columns asked of a table of {self.k}")
        if which == "mean":
            out = np.full(self.n, np.nan)  # the mean of no column
        else:
            out = (np.full((self.n, k), np.inf) if which == "dist" else np.full((self.n, k), -1, dtype=np.int64))
        if not self.blocks or k == 0:
            return out

        def submit(b: int) -> Any:
            return self.client.submit(_block_columns, self.blocks[b][2], which, k, pure=False,
                                      key=f"{READ_PREFIX}-{uuid.uuid4().hex[:12]}")

        try:
            with self.client.as_current():
                in_flight = 2 * len(self.client.nthreads())
                with closing(_in_turn(len(self.blocks), max(2, in_flight), submit)) as turns:
                    for b, part in turns:
                        s, e, _ = self.blocks[b]
                        got = part.result()
                        if got.shape != out[s:e].shape:
                            raise DistributedSearchError(f"a block of a kept table came back with shape "
                                                         f"{got.shape}, expected {out[s:e].shape}")
                        out[s:e] = got
        except DistributedSearchError:
            raise
        except Exception as exc:  # noqa: BLE001 - the cluster's own errors (a lost block), named as such
            raise DistributedSearchError(
                f"a neighbour table kept on the Dask cluster could not be read: {type(exc).__name__}: {exc}") from exc
        return out

    def release(self) -> None:
        """Let the workers drop the table."""
        for _, _, fut in self.blocks:
            try:
                fut.release()
            except Exception:  # noqa: BLE001 - a closed client's workers have dropped them already
                pass
        self.blocks = []


class DaskSearcher:
    """Runs an evaluation's neighbour searches on the workers of a Dask client.

    Parameters
    ----------
    client : distributed.Client
        A running client (:func:`resolve_client`).
    retries : int, default 2
        Retries of a block whose task raised; also the most times one search scatters its tree again after Dask
        lost it with a worker.
    shard_rows : int, optional
        Reference sets of more records than this are cut into shards of at most this many, each with its own
        tree on one worker (:meth:`search_sharded`); default: :data:`SHARD_AUTO_ROWS`.
    """

    def __init__(self, client: Any, *, retries: int = RETRIES, shard_rows: int | None = None):
        self.client = client
        self.retries = int(retries)
        self.shard_rows = None if shard_rows is None else int(shard_rows)
        stop_message_log(client)  # its log of sent messages would keep every block task's arguments
        self._trees: dict[Hashable, Any] = {}
        self._shards: dict[Hashable, list[tuple[int, int, Any, str]]] = {}

    def shard_size(self, m: int) -> int | None:
        """The most references per shard of a reference set of ``m`` records, or None where the set is small
        enough to be scattered whole to every worker (:meth:`knn`)."""
        rows = SHARD_AUTO_ROWS if self.shard_rows is None else self.shard_rows
        return rows if m > rows else None

    @property
    def dashboard_link(self) -> str | None:
        return dashboard_link(self.client)

    def _cluster(self) -> tuple[int, dict[str, int]]:
        """Dask threads in all, and per machine (host address), asked of the scheduler now."""
        by_host: dict[str, int] = {}
        for addr, nthreads in self.client.nthreads().items():
            host = addr.rsplit(":", 1)[0]
            by_host[host] = by_host.get(host, 0) + int(nthreads)
        return sum(by_host.values()), by_host

    def scattered_tree(self, key: Hashable, tree: RefTree) -> Any:
        """The future of ``tree`` on every worker, scattered on first use and kept until :meth:`release`."""
        fut = self._trees.get(key)
        if fut is None or fut.status != "finished":
            if fut is not None:
                self.release(key)
            # a RefTree is a named tuple: scattered inside a list, or each of its fields would become a future
            fut = self.client.scatter([tree], broadcast=True, hash=False)[0]
            self.client.publish_dataset(fut, name=_DATASET_PREFIX + fut.key)
            self._trees[key] = fut
        return fut

    def blocks(self, n: int) -> list[tuple[int, int]]:
        """Contiguous ``(start, end)`` query blocks: ``BLOCKS_PER_THREAD`` per Dask thread, each at least
        ``MIN_BLOCK_ROWS`` queries (one block for fewer)."""
        threads, _ = self._cluster()
        if threads == 0:
            raise DistributedSearchError("the Dask cluster has no workers: start workers, or run without client=")
        count = max(1, min(-(-n // MIN_BLOCK_ROWS), BLOCKS_PER_THREAD * threads))
        edges = np.linspace(0, n, count + 1).astype(np.int64)
        return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:]) if b > a]

    def knn(self, key: Hashable, tree: RefTree, qnum: NDArray[np.float64], qcat: NDArray[np.int64], *, k: int,
            exclude_self: bool, engine: str = "auto", progress: bool = False, desc: str = "neighbours",
            order: Callable[[], NDArray[np.int64]] | None = None,
            ) -> tuple[NDArray[np.float64], NDArray[np.int64], SearchChoice, Placement]:
        """The search of :func:`synthpriv_report.neighbors.knn` in blocks on the workers.

        Returns ``dist, idx`` (identical to the local search), the engine choice and where the blocks ran.
        ``order``, as in :func:`~synthpriv_report.neighbors.knn`, gives the tree walk's visiting order of the
        queries (an evaluation finds it once per query set); where the tree engine runs, the blocks are cut from
        the queries in that order, so each block holds neighbouring queries and no worker sorts its block again.

        Raises
        ------
        DistributedSearchError
            Any failure on the cluster (a block failed for good, the scheduler went away, no workers): a
            ``RuntimeError``, so that an evaluation never mistakes it for data a metric cannot handle.
        """
        qnum = np.ascontiguousarray(qnum, dtype=np.float64)
        qcat = np.ascontiguousarray(qcat, dtype=np.int64)
        n = qnum.shape[0]
        self_pos = np.arange(n, dtype=np.int64) if exclude_self else np.full(n, -1, dtype=np.int64)
        choice = choose_engine(tree, qnum, qcat, self_pos, k, engine=engine, device="cpu")
        perm = None
        if order is not None and choice.engine == "tree" and n:
            perm = np.asarray(order(), dtype=np.int64)
            if perm.shape != (n,):
                raise ValueError(f"a query order of shape {perm.shape} for {n} queries")
            qnum, qcat, self_pos = qnum[perm], qcat[perm], self_pos[perm]
        dist = np.full((n, k), np.inf)
        idx = np.full((n, k), -1, dtype=np.int64)
        if n == 0:
            return dist, idx, choice, Placement(0, ())
        try:
            with self.client.as_current():
                placed = self._run(key, tree, qnum, qcat, self_pos, k, choice, dist, idx, progress, desc,
                                   presorted=perm is not None)
        except DistributedSearchError:
            raise
        except Exception as exc:  # noqa: BLE001 - the cluster's own errors, named as such
            raise DistributedSearchError(
                f"the neighbour search {desc!r} could not be completed on the Dask cluster: "
                f"{type(exc).__name__}: {exc}. No result of this search was used.") from exc
        if perm is not None:  # back to the caller's query order
            back = np.empty_like(perm)
            back[perm] = np.arange(n)
            dist, idx = dist[back], idx[back]
        return dist, idx, choice, placed

    def _run(self, key, tree, qnum, qcat, self_pos, k, choice, dist, idx, progress, desc, *,
             presorted: bool = False) -> Placement:
        from distributed import as_completed

        n = qnum.shape[0]
        blocks = self.blocks(n)
        threads, by_host = self._cluster()
        search_id = uuid.uuid4().hex[:12]
        futures: dict[Any, int] = {}
        tree_of: dict[Any, Any] = {}  # the scattered tree each block task was given
        rescatters = 0

        def submit(b: int, remote_tree: Any, attempt: int) -> Any:
            s, e = blocks[b]
            name = f"{TASK_PREFIX}-{search_id}-{b}" + (f"-r{attempt}" if attempt else "")
            # the tree goes by its key, not as a dependency: a worker uses its own reference when it has one
            # (see _tree_on_worker), where a dependency would make Dask fetch it again after dropping its copy.
            # The queries travel inside the task (a block scattered first would be lost with a worker's death)
            fut = self.client.submit(_search_block, remote_tree.key, (qnum[s:e], qcat[s:e], self_pos[s:e]), k,
                                     choice, by_host, presorted, key=name, retries=self.retries, pure=False)
            futures[fut] = b
            tree_of[fut] = remote_tree
            return fut

        # blocks are submitted as earlier ones finish, two per Dask thread in flight: each thread has its next block
        # queued, and the calling process holds the serialised queries of a few blocks, not of all of them
        submitted = min(len(blocks), max(2, 2 * threads))
        remote_tree = self.scattered_tree(key, tree)
        pending = as_completed([submit(b, remote_tree, 0) for b in range(submitted)])
        workers: set[str] = set()
        bar = _bar(n, f"{desc} (Dask, {len(blocks)} tasks)", progress)
        try:
            for fut in pending:
                b = futures[fut]
                s, e = blocks[b]
                lost = fut.status == "error" and isinstance(fut.exception(), TreeUnavailable)
                if lost and rescatters <= self.retries:
                    # no worker could find the tree: the worker that held Dask's last copy died. The tree is here:
                    # scatter it again, once for all the blocks that missed it, and run those blocks again.
                    if tree_of[fut] is self._trees.get(key):
                        self.release(key)
                        rescatters += 1
                        # the lost worker may have been the only one running: wait for its replacement
                        self.client.wait_for_workers(1, timeout=WORKER_WAIT_S)
                    pending.add(submit(b, self.scattered_tree(key, tree), rescatters))
                    continue
                try:
                    d, i, address, _ = fut.result()
                except Exception as exc:  # noqa: BLE001 - any failure of a block fails the search, clearly
                    raise DistributedSearchError(
                        f"the neighbour search {desc!r} could not be completed on the Dask cluster: block {b + 1} "
                        f"of {len(blocks)} (queries {s} to {e - 1}) failed with {type(exc).__name__}: {exc}. "
                        f"No result of this search was used.") from exc
                if d.shape != (e - s, k) or i.shape != (e - s, k):
                    raise DistributedSearchError(
                        f"the neighbour search {desc!r}: block {b + 1} came back with shape {d.shape}, expected "
                        f"{(e - s, k)}; no result of this search was used")
                dist[s:e] = d
                idx[s:e] = i
                workers.add(address)
                if bar is not None:
                    bar.update(e - s)
                if submitted < len(blocks):
                    pending.add(submit(submitted, self.scattered_tree(key, tree), 0))
                    submitted += 1
        finally:
            if bar is not None:
                bar.close()
            for fut in futures:
                if not fut.done():
                    fut.cancel()
        return Placement(len(blocks), tuple(sorted(workers)), rescatters)

    # sharded references ------------------------------------------------------------------------------------
    def _build_shards(self, key: Hashable, params: ShardParams, rnum: NDArray[np.float64], rcat: NDArray[np.int64],
                      shard_rows: int) -> list[tuple[int, int, Any, str]]:
        """The shards of ``key``'s reference set: ``(start, end, future of its tree, worker address)``, built on
        first use, one worker after another (in address order), and kept until :meth:`release`. Each shard's rows
        travel to its worker once and its tree never leaves it."""
        shards = self._shards.get(key)
        if shards is not None and all(f.status == "finished" for _, _, f, _ in shards):
            return shards
        if shards is not None:
            self.release(key)
        workers = sorted(self.client.nthreads())  # asked of the scheduler (scheduler_info() may be a cached copy)
        if not workers:
            raise DistributedSearchError("the Dask cluster has no workers: start workers, or run without client=")
        _, by_host = self._cluster()
        build_id = uuid.uuid4().hex[:12]
        shards = []
        for j, (a, b) in enumerate(shard_bounds(rnum.shape[0], shard_rows)):
            w = workers[j % len(workers)]
            pieces = self._scatter_rows((rnum, rcat), a, b, w)
            tree = self.client.submit(_build_shard, params, pieces, by_host, key=f"{SHARD_PREFIX}-{build_id}-{j}",
                                      workers=[w], allow_other_workers=False, pure=False)
            shards.append((a, b, tree, w))
            del pieces  # the task holds its rows until the tree is built
        self._shards[key] = shards
        return shards

    def _scatter_rows(self, arrays: Sequence[Any], a: int, b: int, worker: str) -> list[Any]:
        """Rows ``a:b`` of ``arrays`` (arrays, or rows made when sliced), scattered to ``worker`` in pieces of
        at most :data:`SCATTER_ROWS` rows, made and sent one after another: the calling process holds one piece
        at a time, not a shard's or a block's rows (a task joins them, :func:`_joined`)."""
        futures = []
        for s in range(a, b, SCATTER_ROWS):
            e = min(b, s + SCATTER_ROWS)
            piece = tuple(np.ascontiguousarray(x[s:e]) for x in arrays)
            futures.append(self.client.scatter([piece], workers=[worker], hash=False)[0])
            del piece
        return futures

    def knn_sharded(self, key: Hashable, params: ShardParams, rnum: NDArray[np.float64], rcat: NDArray[np.int64],
                    qnum: NDArray[np.float64], qcat: NDArray[np.int64], *, k: int, exclude_self: bool,
                    engine: str = "auto", desc: str = "neighbours", shard_rows: int | None = None,
                    ) -> tuple[NDArray[np.float64], NDArray[np.int64], SearchChoice, Placement]:
        """The search of :func:`synthpriv_report.neighbors.knn` against a reference set cut into shards, its
        lists brought here: :meth:`search_sharded`, then both arrays read whole and the workers' copies released.

        Returns
        -------
        dist, idx, choice, placement
            As :meth:`knn`.

        Raises
        ------
        DistributedSearchError
            The search could not be completed, or its lists could not be read; no result of it was used.
        """
        table, choice, placed = self.search_sharded(key, params, rnum, rcat, qnum, qcat, k=k,
                                                    exclude_self=exclude_self, engine=engine, desc=desc,
                                                    shard_rows=shard_rows)
        try:
            return table.columns("dist", k), table.columns("idx", k), choice, placed
        finally:
            table.release()

    def search_sharded(self, key: Hashable, params: ShardParams, rnum: NDArray[np.float64],
                       rcat: NDArray[np.int64], qnum: NDArray[np.float64], qcat: NDArray[np.int64], *, k: int,
                       exclude_self: bool, engine: str = "auto", desc: str = "neighbours",
                       shard_rows: int | None = None) -> tuple[RemoteTable, SearchChoice, Placement]:
        """The search of :func:`synthpriv_report.neighbors.knn` against a reference set cut into shards; the
        lists stay on the workers (:class:`RemoteTable`).

        Each shard (contiguous positions, at most ``shard_rows`` of them, default :meth:`shard_size`) gets its own
        tree on one worker; every query block is searched against every shard on the shard's worker, the shards'
        lists of a block are merged by a task (:func:`synthpriv_report.neighbors.shards.merge_shards`), and the
        rare rows a near tie may touch are decided by a task from every shard's candidates (each shard's listed on
        its worker, bounded by :func:`~synthpriv_report.neighbors.shards.pickable`), so that the lists are bit
        for bit those of one tree (:mod:`synthpriv_report.neighbors.shards`). The decided lists of each block stay
        on the worker that decided them; the calling process receives their shapes only. The engine is chosen
        once, on the first shard's tree with 64 of the queries. A search that fails (a worker lost with a shard's
        tree) builds its shards again from ``rnum, rcat`` and runs again, up to ``retries`` times.

        ``rnum, rcat, qnum, qcat`` are arrays, or rows made when sliced
        (:class:`~synthpriv_report.spaces.EncodedRows`): only their ``shape[0]``, contiguous slices and the
        sample of 64 query positions are read, so a whole set's coordinates need never exist here.

        Returns
        -------
        table, choice, placement
            The lists on the workers, the engine that ran and where; ``placement.blocks`` counts the tasks: per
            query block, one that orders it (the tree walk's visiting order, found once for every shard), one
            search per shard, one that merges, one that picks the rows to decide again, one candidate list per
            shard, one that decides and one that reports the decided block's shape; ``placement.decided`` counts
            the rows decided again.

        Raises
        ------
        DistributedSearchError
            The search could not be completed; no result of it was used.
        """
        rows = shard_rows or self.shard_size(rnum.shape[0]) or max(1, rnum.shape[0])
        if isinstance(qnum, np.ndarray):  # rows made a block at a time when sliced (EncodedRows) stay so
            qnum = np.ascontiguousarray(qnum, dtype=np.float64)
            qcat = np.ascontiguousarray(qcat, dtype=np.int64)
        last: Exception | None = None
        for _attempt in range(self.retries + 1):
            try:
                with self.client.as_current():
                    return self._run_sharded(key, params, rnum, rcat, qnum, qcat, k, exclude_self, engine, rows)
            except DistributedSearchError:
                raise
            except Exception as exc:  # noqa: BLE001 - the cluster's own errors: build the shards again, once more
                last = exc
                self.release(key)
        raise DistributedSearchError(
            f"the neighbour search {desc!r} could not be completed on the Dask cluster: {type(last).__name__}: "
            f"{last}. No result of this search was used.") from last

    def _run_sharded(self, key, params, rnum, rcat, qnum, qcat, k, exclude_self, engine, shard_rows):
        n, m = qnum.shape[0], rnum.shape[0]
        self_pos = np.arange(n, dtype=np.int64) if exclude_self else np.full(n, -1, dtype=np.int64)
        shards = self._build_shards(key, params, rnum, rcat, shard_rows)
        _, by_host = self._cluster()
        seq = np.unique(np.linspace(0, n - 1, min(n, 64)).astype(np.int64)) if n else np.zeros(0, dtype=np.int64)
        a0, _, tree0, w0 = shards[0]
        choice = self.client.submit(_choose_on_shard, tree0, a0, qnum[seq], qcat[seq], self_pos[seq], k, engine, n,
                                    m, by_host, workers=[w0], allow_other_workers=False, pure=False).result()
        if n == 0:
            return RemoteTable(self.client, 0, k, []), choice, Placement(0, ())
        search_id = uuid.uuid4().hex[:12]
        blocks = self.blocks(n)
        # one shard (a reference set no larger than a shard): its tree, built on one worker, is copied from worker
        # to worker as the blocks, dealt out in turn, need it, so that every worker searches; shards of a larger
        # set stay where they were built, each worker searching its own
        addresses = sorted(self.client.nthreads())  # the workers now (not a cached list)
        spread = addresses if len(shards) == 1 else []
        finals: list[Any] = [None] * len(blocks)

        def submit(b: int) -> Any:
            s, e = blocks[b]
            name = f"{TASK_PREFIX}-{search_id}-{b}"

            def on(w: str) -> list[str]:  # where a shard's task of this block runs
                return [spread[b % len(spread)]] if spread else [w]

            raw = self._scatter_rows((qnum, qcat, self_pos), s, e, addresses[b % len(addresses)])
            block = self.client.submit(_order_block, params, raw, choice.engine == "tree", by_host,
                                       key=f"{name}-order", retries=self.retries, pure=False)
            parts = [self.client.submit(_search_shard_block, tree, a, block, k, choice, by_host,
                                        key=f"{name}-s{j}", workers=on(w),
                                        allow_other_workers=False, retries=self.retries, pure=False)
                     for j, (a, _, tree, w) in enumerate(shards)]
            merged = self.client.submit(_merge_block, parts, k, params.exact, block, key=f"{name}-merge",
                                        retries=self.retries, pure=False)
            # near ties are decided on the workers, block by block: each shard's worker lists its candidates for
            # the block's few rows to decide again, and a task decides them; nothing of it passes through here
            ties = self.client.submit(_tie_rows, merged, key=f"{name}-ties", retries=self.retries, pure=False)
            cands = [self.client.submit(_shard_candidates, tree, a, block, ties, k, choice, by_host,
                                        key=f"{name}-c{j}", workers=on(w),
                                        allow_other_workers=False, retries=self.retries, pure=False)
                     for j, (a, _, tree, w) in enumerate(shards)]
            final = self.client.submit(_decide_block, merged, cands, params.exact, key=f"{name}-decide",
                                       retries=self.retries, pure=False)
            finals[b] = final
            return self.client.submit(_block_meta, final, key=f"{name}-meta", retries=self.retries, pure=False)

        # blocks are submitted as earlier ones finish, two per Dask thread in flight (as for one tree): the calling
        # process holds the serialised queries of a few blocks, not of all of them
        decided = 0
        workers = {w for _, _, _, w in shards}
        try:
            with closing(_in_turn(len(blocks), max(2, 2 * sum(by_host.values())), submit)) as turns:
                for b, fut in turns:
                    s, e = blocks[b]
                    d_shape, i_shape, count, address = fut.result()
                    if tuple(d_shape) != (e - s, k) or tuple(i_shape) != (e - s, k):
                        raise DistributedSearchError(f"a merged block came back with shape {d_shape}, expected "
                                                     f"{(e - s, k)}; no result of this search was used")
                    decided += count
                    workers.add(address)
        except BaseException:
            for fut in finals:  # the blocks' lists: none is kept from a search that failed
                if fut is not None:
                    fut.cancel()
                    fut.release()
            raise
        table = RemoteTable(self.client, n, k, [(s, e, f) for (s, e), f in zip(blocks, finals)])
        return table, choice, Placement(len(blocks) * (2 * len(shards) + 5), tuple(sorted(workers)),
                                        decided=decided)

    # joins of records ------------------------------------------------------------------------------------------
    def one_column_matches(self, q_words: Callable[[int, int], NDArray[np.uint64]], n_q: int,
                           r_words: Callable[[int, int], NDArray[np.uint64]] | None, n_r: int, p: int
                           ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """The near-copy join on the workers (:func:`synthpriv_report.cluster.joins.one_column_matches`).

        Raises
        ------
        DistributedSearchError
            The join could not be completed on the cluster; no result of it was used.
        """
        from .joins import one_column_matches

        return self._joined("records equal on all columns but one",
                            lambda: one_column_matches(self.client, q_words, n_q, r_words, n_r, p,
                                                       retries=self.retries))

    def record_ids(self, words: Callable[[int, int], NDArray[np.uint64]], sizes: Sequence[int], p: int, *,
                   desc: str = "identical records") -> NDArray[np.int64] | None:
        """Identical-record ids by a join on the workers (:func:`synthpriv_report.cluster.joins.record_ids`);
        the records are those ``words`` makes (whole records, or their key columns for the key groupings), and
        ``desc`` names the join in an error.

        Raises
        ------
        DistributedSearchError
            The join could not be completed on the cluster; no result of it was used.
        """
        from .joins import record_ids

        return self._joined(desc, lambda: record_ids(self.client, words, sizes, p, retries=self.retries))

    def _joined(self, desc: str, run: Callable[[], R]) -> R:
        try:
            with self.client.as_current():
                if not self.client.nthreads():  # a worker restarting after a death: wait for it, as a search does
                    self.client.wait_for_workers(1, timeout=WORKER_WAIT_S)
                return run()
        except Exception as exc:  # noqa: BLE001 - the cluster's own errors, named as such
            raise DistributedSearchError(
                f"the search for {desc} could not be completed on the Dask cluster: {type(exc).__name__}: {exc}. "
                f"No result of it was used.") from exc

    def release(self, key: Hashable) -> None:
        """Let the workers drop the tree of ``key`` (its last planned search has run): Dask's copies and each
        worker's own reference, or its shards' trees; a later search against it scatters or builds it again."""
        for _, _, tree, _ in self._shards.pop(key, []):
            try:
                tree.release()
            except Exception:  # noqa: BLE001 - a closed client's workers have dropped them already
                pass
        fut = self._trees.pop(key, None)
        if fut is None:
            return
        try:
            self.client.unpublish_dataset(_DATASET_PREFIX + fut.key)
        except Exception:  # noqa: BLE001 - unpublished already, or a closed client
            pass
        try:
            self.client.run(_forget_worker_tree, fut.key, on_error="ignore")
            fut.release()
        except Exception:  # noqa: BLE001 - a closed client's workers have dropped them already
            pass

    def close(self) -> None:
        """Release the scattered trees (the client itself stays open: it belongs to the caller)."""
        for key in list(self._trees) + list(self._shards):
            self.release(key)

    # results kept on the workers ----------------------------------------------------------------------------
    def hold(self, value: Any) -> HeldValue:
        """Keep ``value`` (a memoised step's result: plain containers of arrays) on the workers, its arrays in
        pieces (:class:`~synthpriv_report.cluster.held.HeldValue`); returns the handle :meth:`held` reads it from. The
        calling process keeps that handle and the value's small parts."""
        return HeldValue(self.client, value)

    def held(self, kept: HeldValue) -> Any:
        """A fresh copy of what :meth:`hold` kept under ``kept``.

        Raises
        ------
        DistributedSearchError
            The worker that held it is gone (Dask cannot make a scattered value again): the caller computes it
            again.
        """
        try:
            return kept.read()
        except Exception as exc:  # noqa: BLE001 - the cluster's own errors (a lost value), named as such
            raise DistributedSearchError(f"a result kept on the Dask cluster could not be read: "
                                         f"{type(exc).__name__}: {exc}") from exc


def stop_message_log(client: Any) -> bool:
    """Stop ``client`` keeping a copy of each message it sends to the scheduler.

    A ``distributed`` client keeps its last ``distributed.admin.low-level-log-length`` messages of under a
    megabyte to the scheduler (1,000 by default; ``recent_message_log`` of its ``scheduler_comm``), a log for
    developers. A message that submits a task carries the task's arguments, so the log keeps them alive: with an
    evaluation's block tasks (the rows sent to a search, the cell words of a join), the calling process held
    about 0.19 GB more by the end of a run at 5 million records a set (0.86 million more Python memory blocks;
    0.23 million at 1 million), more with more records. The
    evaluation replaces the log with an empty one of length 0 when it is given the client and after each step
    (a client that reconnects makes a new one); nothing else about the client changes, and no message is
    changed or delayed. A client without such a log (another version of ``distributed``) is left as it is.

    Returns
    -------
    bool
        Whether the client had a log that now keeps nothing.
    """
    from collections import deque

    comm = getattr(client, "scheduler_comm", None)
    log = getattr(comm, "recent_message_log", None)
    if not isinstance(log, deque):
        return False
    if log.maxlen != 0:
        comm.recent_message_log = deque(maxlen=0)  # type: ignore[union-attr]
    return True


_LIBC: Any = None


def give_back_free_heap() -> bool:
    """Hand the C heap's free pages back to the operating system (glibc's ``malloc_trim(0)``), as Dask's own
    documentation does for its workers ("Memory not released back to the OS").

    Arrays freed by one metric leave holes in the heap that a later, smaller allocation may not fill; the calling
    process of a cluster run would otherwise keep those pages resident for the rest of the evaluation. The
    evaluation calls this after the preparation and after each metric when it has a Dask client. Nothing is
    moved and no value changes; on a C library without ``malloc_trim`` (macOS, musl) it does nothing.

    Returns
    -------
    bool
        Whether the call could be made here.

    >>> isinstance(give_back_free_heap(), bool)
    True
    """
    global _LIBC
    if _LIBC is None:
        import ctypes
        import ctypes.util

        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            libc.malloc_trim.argtypes = [ctypes.c_size_t]
            libc.malloc_trim.restype = ctypes.c_int
            _LIBC = libc
        except (OSError, AttributeError):
            _LIBC = False
    if _LIBC is False:
        return False
    _LIBC.malloc_trim(0)
    return True


def _bar(total: int, desc: str, enabled: bool):
    if not enabled or total < 20_000:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="rec", leave=False)
