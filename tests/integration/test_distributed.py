"""Neighbour searches on Dask workers (synthpriv_report.cluster.distributed): the numbers of the local run, tasks on the
cluster's workers, a worker killed during a search, and the tree lost with the worker that held its only copy.

One LocalCluster of 2 worker processes (1 thread each) serves the module; each worker compiles or loads the numba
kernels once.
"""

from __future__ import annotations

import gc
import os
import sys
import time

import numpy as np
import pandas as pd
import pytest

distributed = pytest.importorskip(
    "distributed", reason="Dask's distributed package is not installed (pip install \"synthpriv_report[dask]\")")

import cloudpickle  # noqa: E402  (a dependency of distributed)
from distributed import Client, LocalCluster, get_task_stream  # noqa: E402
from distributed.diagnostics.plugin import WorkerPlugin  # noqa: E402

from synthpriv_report import Evaluation  # noqa: E402
from synthpriv_report.cluster.distributed import (  # noqa: E402
    TASK_PREFIX,
    DaskSearcher,
    DistributedSearchError,
    _forget_worker_tree,
    resolve_client,
)
from synthpriv_report.data.preparation import prepare
from synthpriv_report.datasets import load_demo  # noqa: E402
from synthpriv_report.neighbors import build_tree, knn, query_order  # noqa: E402
from synthpriv_report.spaces import SpaceSpec, encode, fit  # noqa: E402

pytestmark = pytest.mark.slow

# the worker plugin below is defined here: workers receive it by value (they need not import this module)
cloudpickle.register_pickle_by_value(sys.modules[__name__])

#: Metrics whose searches cover every CPU engine (tree, tiled, dense), within-set searches and subsets; the
#: classifier metrics (no neighbour search, the longest fits) are left to the other test modules.
SEARCH_METRICS = ["dcr", "holdout_dcr_share", "privacy_score", "nndr", "nndr_review", "dcr_review", "nnaa",
                  "exact_copies"]
#: Metrics of the fault tests (searches in three spaces, one within-set, with a bootstrap).
FAULT_METRICS = ["dcr", "holdout_dcr_share", "nndr"]


@pytest.fixture(scope="module")
def sets():
    d = load_demo()
    return (d.real.iloc[:3000].reset_index(drop=True), d.synthetic.iloc[:3000].reset_index(drop=True),
            d.holdout.iloc[:1500].reset_index(drop=True), list(d.sensitive_fields))


@pytest.fixture(scope="module")
def cluster():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cl:
        with Client(cl, set_as_default=False) as client:
            client.wait_for_workers(2)
            yield cl, client


def _evaluation(sets, **kw):
    T, S, H, sensitive = sets
    kw.setdefault("metrics", SEARCH_METRICS)
    return Evaluation(T, S, H, sensitive_fields=sensitive, progress=False, random_state=7, **kw)


def _flat(obj, path=""):
    """Every leaf of a JSON-like structure as ``{path: repr}`` (NaN-safe: bit-identical floats, equal reprs)."""
    if isinstance(obj, dict):
        return {k: v for key, val in obj.items() for k, v in _flat(val, f"{path}.{key}").items()}
    if isinstance(obj, (list, tuple)):
        return {k: v for i, val in enumerate(obj) for k, v in _flat(val, f"{path}[{i}]").items()}
    return {path: repr(obj)}


def _canonical(result_set) -> dict:
    """The results' leaves, less what differs by design: where the searches ran, and the record of how and when
    the evaluation was called (its time, the Python call naming the client)."""
    d = result_set.to_dict()
    d["meta"]["settings"].pop("backend")
    for key in ("evaluated_at", "provenance"):
        d["meta"].pop(key, None)
    return _flat(d)


def _differences(a: dict, b: dict) -> list:
    return [(k, a.get(k), b.get(k)) for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]


@pytest.fixture(scope="module")
def local_run(sets):
    ev = _evaluation(sets)
    return ev, _canonical(ev.results())


def _two_random(n_t: int, n_s: int, *, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    return tuple(pd.DataFrame({"a": rng.integers(0, 50, n).astype(float), "b": rng.choice(list("pqrs"), n)})
                 for n in (n_t, n_s))


def _search_case(n_t: int, n_s: int, *, seed: int) -> tuple:
    """The gower tree of a small T and the queries of S (:func:`_two_random`)."""
    T, S = _two_random(n_t, n_s, seed=seed)
    d = prepare(T, S)
    enc = encode(d, fit(d), SpaceSpec("gower"))
    return build_tree(enc, "T"), np.ascontiguousarray(enc.num["S"]), np.ascontiguousarray(enc.cat["S"])


def _workers(client) -> set[str]:
    return set(client.nthreads())  # asked of the scheduler (scheduler_info() may be a cached copy)


def test_results_and_tables_identical_to_the_local_run_and_tasks_ran_on_the_workers(sets, cluster, local_run):
    cl, client = cluster
    local_ev, local_text = local_run
    ev = _evaluation(sets, client=client)
    with get_task_stream(client) as ts:
        text = _canonical(ev.results())
    assert _differences(text, local_text) == []

    # the raw neighbour tables, bit for bit, and the same engine per search
    local_tables, tables = local_ev._engine.tables, ev._engine.tables
    assert set(tables) == set(local_tables) and len(tables) >= 10
    for key, tab in tables.items():
        ref = local_tables[key]
        assert tab.dist.shape == ref.dist.shape
        assert np.array_equal(tab.dist.view(np.int64), ref.dist.view(np.int64)), key
        assert np.array_equal(tab.idx, ref.idx), key
    assert [(s.space, s.query, s.ref, s.k, s.engine) for s in ev.searches] == \
        [(s.space, s.query, s.ref, s.k, s.engine) for s in local_ev.searches]
    assert {s.engine for s in ev.searches} >= {"tree", "tiled", "dense"}  # every CPU engine ran in blocks

    # the search log says where each search ran; the task stream shows the blocks on the cluster's workers
    addresses = _workers(client)
    assert all(s.where == "dask" and s.blocks >= 1 and set(s.workers) <= addresses for s in ev.searches)
    assert all(s.where == "local" and s.workers == () for s in local_ev.searches)
    ours = [t for t in ts.data if str(t["key"]).startswith(TASK_PREFIX)]
    assert len(ours) == sum(s.blocks for s in ev.searches)
    assert {t["worker"] for t in ours} == addresses  # both workers searched
    assert ev.settings_dict()["backend"] == "dask"

    # with a client, an encoding whose planned searches have all run leaves the calling process; asked for again
    # it is rebuilt, the same arrays, and nothing is searched again
    released = set(local_ev._engine.encodings) - set(ev._engine.encodings)
    assert released
    count = ev.search_count
    for spec in released:
        again, ref = ev.context.encoding(spec), local_ev._engine.encodings[spec]
        for s in ref.num:
            assert np.array_equal(again.num[s].view(np.int64), ref.num[s].view(np.int64)), (spec, s)
            assert np.array_equal(again.cat[s], ref.cat[s]), (spec, s)
    assert ev.search_count == count


def test_scattered_trees_leave_the_workers_with_the_evaluations_own(sets, cluster):
    """A tree scattered for a search (a reference set whose tree a metric also reads in the calling process: the
    attribute inference risk reads the synthetic set's) is released on the workers once the evaluation has no
    planned use for it: after the results, the workers hold none of this evaluation's trees."""
    _, client = cluster

    def held(dask_worker):
        from synthpriv_report.cluster.distributed import _WORKER_TREES

        return sorted(str(k) for k in dask_worker.data.keys()) + [f"own:{k}" for k in _WORKER_TREES]

    before = {w: set(keys) for w, keys in client.run(held).items()}
    ev = _evaluation(sets, client=client, metrics=["air"])
    scattered = []
    original = ev._engine.backend.searcher.scattered_tree

    def spy(key, tree):
        fut = original(key, tree)
        scattered.append(fut.key)
        return fut

    ev._engine.backend.searcher.scattered_tree = spy
    ev.results()
    assert scattered and ev._engine.backend.searcher._trees == {}
    for _ in range(50):  # the scheduler tells the workers to forget released data a moment later
        now = client.run(held)
        if all(str(k) not in now[w] for w in now for k in scattered):
            break
        time.sleep(0.1)
    blocks = _held_block_keys(ev)  # the prepared records, kept on the workers while the evaluation lives
    assert blocks
    for w, keys in now.items():
        assert not {str(k) for k in scattered} & set(keys), w
        assert not any(k.startswith("own:") for k in keys), w  # the workers' own references went too
        assert set(keys) <= before.get(w, set()) | {str(k) for k in scattered} | blocks
    assert not client.list_datasets()
    del ev
    gc.collect()
    for _ in range(50):  # ... and leave with it
        now = client.run(held)
        if not any(blocks & set(keys) for keys in now.values()):
            break
        time.sleep(0.1)
    assert not any(blocks & set(keys) for keys in now.values())


def _held_block_keys(ev) -> set[str]:
    """Keys of the blocks of ``ev``'s prepared records kept on the workers (:mod:`synthpriv_report.cluster.held`): the
    numbers' (with the order) and the fitted codes'."""
    held = list(ev._engine.data.numeric.values()) + list(ev._engine.fitted.codes.values())
    stores = {id(h._store): h._store for h in held}
    return {str(f.key) for st in stores.values() for copies in st._blocks for f in copies}


def test_a_tree_dask_kept_one_copy_of_is_not_fetched_again_by_each_search(cluster):
    """Dask's memory manager keeps one copy of scattered data no waiting task needs; the workers that searched
    the tree before keep their own reference, so a later search runs on every worker without Dask copying the
    tree to them again."""
    _, client = cluster
    tree, qn, qc = _search_case(6000, 8000, seed=5)
    searcher = DaskSearcher(client)
    try:
        first = _search_on(searcher, _workers(client), tree, qn, qc)
        fut = searcher._trees["key"]
        client.amm.run_once()
        for _ in range(100):
            if len(client.who_has([fut])[fut.key]) == 1:
                break
            time.sleep(0.05)
        assert len(client.who_has([fut])[fut.key]) == 1  # Dask dropped all copies but one
        second = _search_on(searcher, _workers(client), tree, qn, qc)  # both workers searched again ...
        assert len(client.who_has([fut])[fut.key]) == 1  # ... without Dask copying the tree to the other one
        assert second[3].rescattered == 0
        assert np.array_equal(second[0].view(np.int64), first[0].view(np.int64))
        assert np.array_equal(second[1], first[1])

        # a worker with neither Dask's copy nor its own reference (a new worker) fetches the published tree
        (holder,) = client.who_has([fut])[fut.key]
        (other,) = _workers(client) - {holder}
        assert client.run(_forget_worker_tree, fut.key, workers=[other]) == {other: True}
        third = _search_on(searcher, {other}, tree, qn, qc)
        assert third[3].rescattered == 0
        assert client.run(_holds_own_reference, fut.key, workers=[other]) == {other: True}
        assert np.array_equal(third[0].view(np.int64), first[0].view(np.int64))
        assert np.array_equal(third[1], first[1])
    finally:
        searcher.close()


def test_blocks_cut_from_the_queries_in_visiting_order_give_the_rows_of_the_caller_order(cluster):
    """With the tree walk's visiting order, blocks hold neighbouring queries and go back to the caller's order:
    the same rows, bit for bit, as a local search and as blocks cut in the caller's order."""
    _, client = cluster
    tree, qn, qc = _search_case(5000, 9000, seed=11)
    want_d, want_i = knn(tree, qn, qc, k=3)
    searcher = DaskSearcher(client)
    asked = []

    def order():
        asked.append(True)
        return query_order(tree, qn, qc)

    try:
        for given in (order, None):
            dist, idx, choice, placed = searcher.knn("key", tree, qn, qc, k=3, exclude_self=False, engine="tree",
                                                     order=given)
            assert choice.engine == "tree" and placed.blocks > 1
            assert np.array_equal(dist.view(np.int64), want_d.view(np.int64))
            assert np.array_equal(idx, want_i)
    finally:
        searcher.close()
    assert asked == [True]  # asked once, where the tree engine ran


def _search_on(searcher, workers: set[str], tree, qn, qc, tries: int = 5) -> tuple:
    """The search of the tree-reuse tests, repeated (the same rows each time) until blocks ran on ``workers``:
    where blocks run is Dask's choice."""
    for _ in range(tries):
        out = searcher.knn("key", tree, qn, qc, k=2, exclude_self=False)
        if workers <= set(out[3].workers):
            return out
    raise AssertionError(f"no search of {tries} ran blocks on every worker of {sorted(workers)}")


def _holds_own_reference(tree_key: str) -> bool:
    from synthpriv_report.cluster.distributed import _WORKER_TREES

    return tree_key in _WORKER_TREES


def test_backend_dask_uses_the_current_client(sets, cluster, local_run):
    _, client = cluster
    with client.as_current():
        ev = _evaluation(sets, backend="dask", metrics=["dcr"])
        res = ev.results()
    assert all(s.where == "dask" for s in ev.searches) and ev.searches
    local = _evaluation(sets, metrics=["dcr"])
    assert _differences(_canonical(res), _canonical(local.results())) == []


def test_backend_dask_without_a_client_is_a_clear_error(sets, cluster):
    # the module's client is not the default one, and no client is current here
    with pytest.raises(ValueError, match="backend='dask' needs a running Dask client"):
        _evaluation(sets, backend="dask")


def test_bad_client_and_backend_settings_are_refused(sets, cluster):
    cl, _ = cluster
    with pytest.raises(ValueError, match="backend must be one of 'local', 'dask', got 'spark'"):
        _evaluation(sets, backend="spark")
    with pytest.raises(TypeError, match="client must be a dask.distributed.Client, got str"):
        _evaluation(sets, client="tcp://127.0.0.1:8786")
    closed = Client(cl, set_as_default=False)
    closed.close()
    with pytest.raises(ValueError, match="client is not connected"):
        _evaluation(sets, client=closed)
    with cluster[1].as_current():
        assert resolve_client(None, "dask") is cluster[1]
        with pytest.raises(ValueError, match="device='cuda' cannot be combined with a Dask client"):
            _evaluation(sets, backend="dask", device="cuda")


# ---------------------------------------------------------------------------------------------------------------
# faults: a worker process dies while it runs a search block


class KillOnce(WorkerPlugin):
    """Kills the worker process that starts the first search block after ``marker`` is armed (once: the marker
    file is created atomically, so only one worker of the cluster dies)."""

    name = "synthpriv-test-kill-once"

    def __init__(self, marker: str):
        self.marker = marker

    def transition(self, key, start, finish, **kwargs):
        if finish == "executing" and str(key).startswith(TASK_PREFIX) and self.targeted():
            try:
                fd = os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                return
            os.close(fd)
            os._exit(1)

    def targeted(self) -> bool:
        return True


@pytest.fixture
def kill_once(cluster, tmp_path):
    cl, client = cluster
    marker = str(tmp_path / "killed")
    register = getattr(client, "register_plugin", None) or client.register_worker_plugin
    register(KillOnce(marker))
    yield marker
    client.unregister_worker_plugin(KillOnce.name)
    client.wait_for_workers(2, timeout=600)  # the nanny restarts the worker for the next tests


def test_a_worker_killed_during_a_search_gives_the_same_numbers(sets, cluster, kill_once):
    _, client = cluster
    ev = _evaluation(sets, client=client, metrics=FAULT_METRICS)
    text = _canonical(ev.results())
    assert os.path.exists(kill_once)  # a worker really died during a search
    assert _differences(text, _canonical(_evaluation(sets, metrics=FAULT_METRICS).results())) == []
    assert all(s.where == "dask" for s in ev.searches)


def test_a_search_that_cannot_complete_is_a_clear_error_never_a_number(sets, cluster, kill_once):
    cl, client = cluster
    allowed = cl.scheduler.allowed_failures
    cl.scheduler.allowed_failures = 0  # the first death of a block's worker fails the block
    try:
        ev = _evaluation(sets, client=client, metrics=FAULT_METRICS)
        ev._engine.backend.searcher.retries = 0  # one try: a search whose shard was lost is not run again on new shards
        with pytest.raises(DistributedSearchError, match=r"could not be completed on the Dask cluster.*"
                                                         r"No result of this search was used"):
            ev.results()
        assert os.path.exists(kill_once)
        assert len(ev._engine.tables) == len(ev.searches)  # the failed search left no table behind
        failed = len(ev.searches)
    finally:
        cl.scheduler.allowed_failures = allowed
    # the evaluation is still usable: the failed search runs again, with the numbers of the local run
    client.wait_for_workers(2, timeout=600)
    text = _canonical(ev.results())
    assert len(ev.searches) > failed
    assert _differences(text, _canonical(_evaluation(sets, metrics=FAULT_METRICS).results())) == []


# ---------------------------------------------------------------------------------------------------------------
# faults: the worker holding the only copy of the scattered tree dies during a search


class KillHolder(KillOnce):
    """Kills the worker at ``address`` when it starts a search block (once, as :class:`KillOnce`)."""

    name = "synthpriv-test-kill-holder"

    def __init__(self, address: str, marker: str):
        super().__init__(marker)
        self.address = address

    def setup(self, worker):
        self.worker = worker

    def targeted(self) -> bool:
        return self.worker.address == self.address


def _set_status(status: str, dask_worker=None) -> None:
    """Pause or resume a worker; a paused worker gets no task (and its memory monitor, which would resume it, is
    stopped until it runs again)."""
    from distributed.core import Status

    monitor = dask_worker.periodic_callbacks.get("memory_monitor")
    if monitor is not None:
        (monitor.stop if status == "paused" else monitor.start)()
    dask_worker.status = Status[status]


def test_a_tree_lost_with_the_worker_that_held_its_only_copy_is_scattered_again(cluster, tmp_path):
    # Dask's active memory manager keeps one copy of scattered data that no waiting task needs, so the death of
    # one worker can take the tree with it (when blocks depended on the tree, Dask cancelled them all: the CI
    # failure of "cancelled for reason: already forgotten"; now a block that finds no tree says so). Here the tree
    # is put on one worker only and the other worker is paused, so the holder's death surely loses the tree while
    # blocks are still to run.
    _, client = cluster
    tree, qn, qc = _search_case(6000, 8000, seed=3)
    want_d, want_i = knn(tree, qn, qc, k=3)

    holder, other = sorted(_workers(client))
    marker = str(tmp_path / "killed")
    searcher = DaskSearcher(client)
    searcher._trees["key"] = client.scatter([tree], workers=[holder], hash=False)[0]  # the one copy
    register = getattr(client, "register_plugin", None) or client.register_worker_plugin
    register(KillHolder(holder, marker))
    client.run(_set_status, "paused", workers=[other])
    try:
        dist, idx, _, placed = searcher.knn("key", tree, qn, qc, k=3, exclude_self=False)
    finally:
        client.run(_set_status, "running", workers=[other])
        client.unregister_worker_plugin(KillHolder.name)
        searcher.close()
        client.wait_for_workers(2, timeout=600)
    assert os.path.exists(marker)  # the holder really died during the search
    assert placed.rescattered == 1  # the tree was lost once, and scattered again once for all its blocks
    assert holder not in placed.workers and other not in placed.workers  # the holder's replacement ran them
    assert np.array_equal(dist.view(np.int64), want_d.view(np.int64))
    assert np.array_equal(idx, want_i)


# ---------------------------------------------------------------------------------------------------------------
# sharded references: each shard's tree on one worker, the k best merged by the tie rule

#: Records per shard in the sharded tests: every whole set of the module's data (3,000 and 1,500 records) is cut
#: into three to five shards.
SHARD_ROWS = 700


def test_sharded_references_give_the_numbers_and_tables_of_the_local_run(sets, cluster, local_run):
    _, client = cluster
    local_ev, local_text = local_run
    ev = _evaluation(sets, client=client, shard_rows=SHARD_ROWS)
    with get_task_stream(client) as ts:
        text = _canonical(ev.results())
    assert _differences(text, local_text) == []
    local_tables, tables = local_ev._engine.tables, ev._engine.tables
    assert set(tables) == set(local_tables)
    for key, tab in tables.items():
        ref = local_tables[key]
        assert np.array_equal(tab.dist.view(np.int64), ref.dist.view(np.int64)), key
        assert np.array_equal(tab.idx, ref.idx), key
    sharded = [s for s in ev.searches if s.n_ref > SHARD_ROWS]
    assert len(sharded) >= 6 and all(s.where == "dask" for s in sharded)
    builds = {str(t["key"]) for t in ts.data if str(t["key"]).startswith("synthpriv-shard")}
    assert len(builds) >= 3  # trees built on the workers, one task per shard
    assert {t["worker"] for t in ts.data if str(t["key"]).startswith("synthpriv-shard")} == _workers(client)
    assert ev._engine.backend.searcher._shards == {}  # every shard released after its last planned search


def test_sharded_search_with_ties_across_shard_borders_equals_one_tree(cluster, monkeypatch):
    """Exact copies and near-tie chains (distances a tolerance apart, unequal bits) spread over every shard:
    neighbours and distances bit for bit those of one tree, within a set and across sets; some rows were decided
    again, on the workers, from every shard's candidates (the data reach the tie rule). Blocks of 50 queries, more
    than are in flight at once (two per Dask thread), so that blocks are submitted as others finish, each block's
    and each shard's rows sent in pieces of 60; and the same with the whole set as one shard, searched by both
    workers."""
    from _support.frames import near_tie_chains

    from synthpriv_report.cluster import distributed as distributed_module
    from synthpriv_report.neighbors.shards import ShardParams

    monkeypatch.setattr(distributed_module, "MIN_BLOCK_ROWS", 50)
    monkeypatch.setattr(distributed_module, "SCATTER_ROWS", 60)
    pieces: list[int] = []
    scatter_rows = DaskSearcher._scatter_rows

    def spy(self, arrays, a, b, worker):
        out = scatter_rows(self, arrays, a, b, worker)
        pieces.append(len(out))
        assert len(out) == -(-(b - a) // 60)
        return out

    monkeypatch.setattr(DaskSearcher, "_scatter_rows", spy)
    _, client = cluster
    decided: list[int] = []
    T = pd.concat([near_tie_chains(900, 1, 4e-10, 0.0, ["a", "b"])] * 2, ignore_index=True)  # every record twice
    S = near_tie_chains(400, 2, 4e-10, 0.0, ["a", "q"])
    d = prepare(T, S)
    enc = encode(d, fit(d), SpaceSpec("gower"))
    tree = build_tree(enc, "T")
    searcher = DaskSearcher(client)
    try:
        for q, within in (("S", False), ("T", True)):
            for k, rows in ((1, 257), (4, 257), (4, None)):
                one_d, one_i = knn(tree, enc.num[q], enc.cat[q], k=k, exclude_self=within)
                with get_task_stream(client) as ts:
                    dist, idx, _, placed = searcher.knn_sharded(
                        ("T", q, k), ShardParams.from_encoding(enc), enc.num["T"], enc.cat["T"], enc.num[q],
                        enc.cat[q], k=k, exclude_self=within, shard_rows=rows)
                assert np.array_equal(dist.view(np.int64), one_d.view(np.int64)), (q, k, rows)
                np.testing.assert_array_equal(idx, one_i, err_msg=f"{q} k={k} shard_rows={rows}")
                assert len(searcher.blocks(enc.num[q].shape[0])) > 2 * 2  # more blocks than are in flight at once
                searches = [t for t in ts.data if str(t["key"]).startswith(TASK_PREFIX) and "-s" in str(t["key"])]
                assert {t["worker"] for t in searches} == _workers(client), rows  # both workers searched
                if rows:
                    decided.append(placed.decided)
                searcher.release(("T", q, k))
    finally:
        searcher.close()
    assert sum(decided) > 0
    assert max(pieces) > 1  # rows went in pieces, and the numbers are those of one tree


def test_the_calling_process_builds_no_tree_of_a_sharded_reference_set(sets, cluster, monkeypatch):
    """The spy: with a client, no search tree is built where the evaluation runs (nor a query-ordering tree) when
    no metric reads a tree there: a reference set larger than a shard is cut into shards, a smaller one is one
    shard, and the trees exist only on the workers."""
    from synthpriv_report import neighbors as nb_package
    from synthpriv_report.neighbors import tree as tree_module

    _, client = cluster
    built: list[int] = []
    original_build, original_assemble = nb_package.build_tree, tree_module._assemble

    def spy_build(enc, set_name, rows=None):
        built.append(enc.num[set_name].shape[0] if rows is None else len(rows))
        return original_build(enc, set_name, rows)

    def spy_assemble(mode, num, *args, **kwargs):
        built.append(num.shape[0])
        return original_assemble(mode, num, *args, **kwargs)

    monkeypatch.setattr(nb_package, "build_tree", spy_build)
    monkeypatch.setattr(tree_module, "_assemble", spy_assemble)
    ev = _evaluation(sets, client=client, shard_rows=SHARD_ROWS,
                     metrics=["dcr", "holdout_dcr_share", "nndr", "privacy_score", "exact_copies", "nnaa"])
    ev.results()
    assert [s for s in ev.searches if s.n_ref > SHARD_ROWS]
    assert built == []
    # without shard_rows every set here is smaller than a shard: one shard each, still no tree here
    ev = _evaluation(sets, client=client, metrics=["dcr", "privacy_score", "nndr"])
    ev.results()
    assert ev.searches and all(s.where == "dask" for s in ev.searches)
    assert built == []


def _spy_whole_encodings(monkeypatch) -> list[str]:
    """The kinds of the spaces the calling process encodes whole sets in from now on (a spy on the engine's
    ``encode``), in order."""
    from synthpriv_report.engine import cache as engine_module

    made: list[str] = []
    original = engine_module.encode

    def spy(data, fitted, spec):
        made.append(spec.kind)
        return original(data, fitted, spec)

    monkeypatch.setattr(engine_module, "encode", spy)
    return made


def test_the_calling_process_makes_no_whole_sets_coordinates_for_a_sharded_search(sets, cluster, monkeypatch):
    """The spy: with a client, the gower and euclidean searches (sharded, and one-shard) read their records a block
    at a time, made as sent; no whole set is encoded in the calling process. The neighbour tables are bit for bit
    those of the local run, which encodes whole sets."""
    from synthpriv_report import spaces
    from synthpriv_report.engine import cache as engine_module

    metrics = ["dcr", "holdout_dcr_share", "nndr", "privacy_score", "dcr_test"]
    local = _evaluation(sets, metrics=metrics)
    local.results()
    made = _spy_whole_encodings(monkeypatch)
    blocks: list[int] = []
    original_numbers = spaces.encoded_numbers

    def spy_numbers(data, fitted, header, set_name, rows=slice(None)):
        out = original_numbers(data, fitted, header, set_name, rows)
        blocks.append(out.shape[0])
        return out

    monkeypatch.setattr(engine_module, "encoded_numbers", spy_numbers)
    _, client = cluster
    ev = _evaluation(sets, client=client, shard_rows=SHARD_ROWS, metrics=metrics)
    ev.results()
    assert {s.space.split(" ")[0] for s in ev.searches} >= {"gower", "euclidean"}
    assert made == []  # no whole-set encoding of any space
    # shards of at most 700 records, query blocks of at most 1,000 (3 blocks of the 3,000 synthetic records, 2 of
    # the 1,500 holdout ones); the smallest whole set holds 1,500 records
    assert blocks and max(blocks) <= 1000
    assert set(ev._engine.tables) == set(local._engine.tables)
    for key, tab in ev._engine.tables.items():
        ref = local._engine.tables[key]
        assert np.array_equal(tab.dist.view(np.int64), ref.dist.view(np.int64)), key
        assert np.array_equal(tab.idx, ref.idx), key
    assert _canonical(ev.results()) == _canonical(local.results())


def test_sharded_tables_stay_on_the_workers_and_a_metric_reads_only_the_columns_it_uses(sets, cluster, local_run,
                                                                                          monkeypatch):
    """The lists of a sharded search stay on the workers: the evaluation keeps a handle holding no array, each
    metric reads the columns it uses (the first column of a table searched for more), every read equals the local
    table's columns, and reading again searches nothing."""
    from synthpriv_report.cluster.distributed import RemoteTable

    _, client = cluster
    local_ev, local_text = local_run
    reads: list[tuple[tuple, str, int, int]] = []
    original = RemoteTable.columns

    def spy(self, which, k):
        out = original(self, which, k)
        key = next(key for key, held in ev._engine.remote.items() if held[0] is self)
        reads.append((key, which, k, self.k))
        ref = local_ev._engine.tables[key]
        if which == "mean":  # made on the workers, block by block: the bits of the local table's row means
            want = ref.head(k).row_means()
        else:
            want = (ref.dist if which == "dist" else ref.idx)[:, :k]
        assert out.shape == want.shape and np.array_equal(out.view(np.int64), want.view(np.int64)), (key, which, k)
        return out

    monkeypatch.setattr(RemoteTable, "columns", spy)
    ev = _evaluation(sets, client=client, shard_rows=SHARD_ROWS)
    assert _differences(_canonical(ev.results()), local_text) == []
    remote = ev._engine.remote
    assert len(remote) >= 6 and set(remote) <= set(ev._engine.tables)
    addresses = _workers(client)
    for key, (table, *_) in remote.items():
        handle = ev._engine.tables[key]
        assert handle.is_deferred and handle._dist is None and handle._idx is None, key  # nothing held here
        assert table.blocks and set(table.workers) <= addresses, key
    assert reads and {key for key, *_ in reads} <= set(remote)
    assert any(k < k_table for _, _, k, k_table in reads)  # a column of a wider table, not the table
    assert any(which == "mean" and k > 1 for _, which, k, _ in reads)  # NNDR's row means, not its k columns
    assert all(k <= k_table for _, _, k, k_table in reads)
    # a second report re-reduces: columns are read again, nothing is searched again
    count = ev.search_count
    assert _differences(_canonical(ev.results()), local_text) == []
    assert ev.search_count == count


def test_a_sharded_table_the_cluster_lost_is_searched_again_with_the_same_lists(sets, cluster, local_run):
    _, client = cluster
    local_ev, _ = local_run
    ev = _evaluation(sets, client=client, shard_rows=SHARD_ROWS, metrics=["dcr"])
    ev.results()
    key, (table, *_) = next(iter(ev._engine.remote.items()))
    count = ev.search_count
    client.cancel([fut for _, _, fut in table.blocks])  # the workers' copies are gone
    got = ev._engine.tables[key].head(1)
    ref = local_ev._engine.tables[key]
    assert np.array_equal(got.dist.view(np.int64), ref.dist[:, :1].view(np.int64))
    assert np.array_equal(got.idx, ref.idx[:, :1])
    assert ev.search_count == count + 1  # that one search, once
    assert ev._engine.remote[key][0] is not table


def test_free_heap_given_back_after_each_metric_with_a_client(sets, cluster, monkeypatch):
    """With a client the calling process hands its free heap pages back after the preparation and after each
    metric (the numbers are the same: the other tests compare them); without one it is never asked to."""
    from synthpriv_report.cluster import backend as backend_module
    from synthpriv_report.cluster import distributed as distributed_module

    _, client = cluster
    calls = []
    monkeypatch.setattr(backend_module, "give_back_free_heap", lambda: calls.append(1) or True)
    ev = _evaluation(sets, client=client, shard_rows=SHARD_ROWS, metrics=["dcr", "exact_copies"])
    after_preparation = len(calls)
    ev.results()
    assert after_preparation >= 1 and len(calls) >= after_preparation + 2
    calls.clear()
    _evaluation(sets, metrics=["dcr", "exact_copies"]).results()
    assert calls == []
    monkeypatch.undo()
    assert isinstance(distributed_module.give_back_free_heap(), bool)


def test_the_clients_log_of_sent_messages_keeps_no_block_task(sets, cluster):
    """distributed's client keeps its last messages to the scheduler (a developer's log), each submitted task's
    arguments with them: the evaluation empties that log, so that its block tasks' rows are not kept alive."""
    from collections import deque

    from synthpriv_report.cluster import distributed as distributed_module

    _, client = cluster
    comm = client.scheduler_comm
    comm.recent_message_log = deque(maxlen=1000)  # as a fresh client has it
    ev = _evaluation(sets, client=client, shard_rows=SHARD_ROWS, metrics=["dcr", "exact_copies"])
    assert comm.recent_message_log.maxlen == 0
    comm.recent_message_log = deque(maxlen=1000)  # a client that reconnected: a new log, emptied after a step
    ev.results()
    assert comm.recent_message_log.maxlen == 0 and len(comm.recent_message_log) == 0
    assert client.submit(sum, [1, 2], pure=False).result() == 3  # the client works as before
    assert distributed_module.stop_message_log(object()) is False  # no such log: nothing to do


def test_memoised_arrays_kept_on_the_workers_give_the_numbers_of_the_local_run(sets, cluster, local_run,
                                                                                monkeypatch):
    from synthpriv_report.cluster import backend as backend_module
    from synthpriv_report.cluster import held as held_module
    from synthpriv_report.engine import cache as engine_module

    _, client = cluster
    _, local_text = local_run
    monkeypatch.setattr(backend_module, "MEMO_KEPT_BYTES", 1)  # every memoised result with an array goes
    monkeypatch.setattr(held_module, "HELD_PIECE_MIN_BYTES", 1)  # and every array of it, in pieces of 512 bytes
    monkeypatch.setattr(held_module, "HELD_BLOCK_BYTES", 512)
    ev = _evaluation(sets, client=client, shard_rows=SHARD_ROWS)
    assert _differences(_canonical(ev.results()), local_text) == []
    memo = ev._engine.memo
    kept = {k: v for k, v in memo.items() if isinstance(v, backend_module._OnWorker)}
    assert kept and any(k[0] == "nndr.values" for k in kept) and any(k[0] == "near_copies.columns" for k in kept)
    # the identical-record ids too, set by set; one the cluster lost is found again, every set's the same ids
    assert {k for k in kept if k[0] == "identical records"} == {("identical records", s) for s in ("T", "S", "H")}
    ids = {s: ev._engine.record_ids(s) for s in ("T", "S", "H")}
    assert len(kept[("identical records", "S")].kept.futures()) > 1  # in pieces
    client.cancel(kept[("identical records", "S")].kept.futures()[1:2])
    assert np.array_equal(ev._engine.record_ids("S"), ids["S"]) and ("identical records", "S") in memo
    assert all(np.array_equal(ev._engine.record_ids(s), ids[s]) for s in ("T", "H"))
    kept = {k: v for k, v in memo.items() if isinstance(v, backend_module._OnWorker)}
    assert all(f.status == "finished" for v in kept.values() for f in v.kept.futures())
    # nothing kept on a worker is an array here; what stays here holds no array, or is not plain data
    for key, value in memo.items():
        if key not in kept:
            assert engine_module._plain_bytes(value) in (None, 0), key
    # read back: an equal copy each time; the numbers of a second report are the same, nothing searched again
    key = next(k for k in kept if k[0] == "nndr.values")
    a, b = ev.context.peek(key), ev.context.peek(key)
    assert a is not b and np.array_equal(a.view(np.int64), b.view(np.int64))
    count = ev.search_count
    assert _differences(_canonical(ev.results()), local_text) == []
    assert ev.search_count == count
    # a kept result the cluster lost is made again, the same numbers (peek reads it as not made)
    client.cancel(kept[key].kept.futures()[-1:])
    assert ev.context.peek(key) is None and key not in memo
    again = ev.context.memo(key, lambda: b.copy())
    assert np.array_equal(again.view(np.int64), a.view(np.int64))


def test_a_value_kept_in_pieces_reads_back_equal_its_arrays_made_whole_from_their_pieces(cluster, monkeypatch):
    """:class:`~synthpriv_report.cluster.held.HeldValue`: every array of at least the minimum size is cut into pieces of
    the block size, one future each, and read back whole (shape, type and every bit: -0.0 and NaN too); smaller
    arrays and anything not an array stay in this process; the containers come back as they went."""
    from synthpriv_report.cluster import held as held_module

    _, client = cluster
    monkeypatch.setattr(held_module, "HELD_PIECE_MIN_BYTES", 64)
    monkeypatch.setattr(held_module, "HELD_BLOCK_BYTES", 80)  # ten float64 a piece
    rng = np.random.default_rng(3)
    big = rng.normal(size=(13, 3))
    big[0, 0], big[1, 1] = -0.0, np.nan
    strided = np.arange(40, dtype=np.int32)[::2]  # not contiguous: 20 values, 80 bytes
    small = np.array([1.5, 2.5])
    value = {"big": big, "parts": [strided, (small, "x", None)], "n": 7}
    kept = held_module.HeldValue(client, value)
    assert len(kept.futures()) == 4 + 1  # 39 values in pieces of 10, 20 values of 4 bytes in one piece of 20
    got = kept.read()
    assert got["big"].shape == (13, 3) and got["big"].dtype == np.float64
    assert np.array_equal(got["big"].view(np.int64), big.view(np.int64))
    assert got["parts"][0].dtype == np.int32 and got["parts"][0].tolist() == strided.tolist()
    assert got["parts"][1][0] is small and got["parts"][1][1:] == ("x", None) and got["n"] == 7
    assert isinstance(got["parts"], list) and isinstance(got["parts"][1], tuple)
    again = kept.read()
    assert again["big"] is not got["big"] and np.array_equal(again["big"].view(np.int64), big.view(np.int64))
    client.cancel(kept.futures()[2:3])  # a piece the cluster lost: reading it fails, never a wrong array
    with pytest.raises(Exception):  # noqa: B017 - Dask's own error for a cancelled future
        kept.read()


def test_plain_results_are_told_from_the_rest():
    from synthpriv_report.engine.cache import _plain_bytes
    from synthpriv_report.engine.requests import SetRef
    from synthpriv_report.spaces import SpaceSpec as Spec

    assert _plain_bytes((SetRef("T", np.arange(3, dtype=np.int32), "x"), Spec("gower"), {"k": 1.5})) == 12
    assert _plain_bytes({"a": [np.zeros((2, 2)), b"x", None, np.float64(1.0)]}) == 32
    assert _plain_bytes(np.array(["a"], dtype=object)) is None  # an object array may hold anything
    assert _plain_bytes({"f": print}) is None and _plain_bytes(object()) is None
    assert _plain_bytes(SetRef("T")) == 0


def test_shard_rows_without_a_client_is_a_clear_error(sets):
    with pytest.raises(ValueError, match="shard_rows=700 needs a Dask client"):
        _evaluation(sets, shard_rows=SHARD_ROWS)


# ---------------------------------------------------------------------------------------------------------------
# the near-copy check as a hash-partitioned join on the workers


def _near_copy_case(seed: int) -> tuple:
    """Query and reference cell words with exact duplicates, one-column variants and unrelated records."""
    from synthpriv_report.matching.identity import cell_words

    rng = np.random.default_rng(seed)
    p_num, p_cat = int(rng.integers(0, 3)), int(rng.integers(1, 3))
    n_base = int(rng.integers(5, 60))
    num = rng.integers(0, 3, (n_base, p_num)).astype(float)
    num[rng.random(num.shape) < 0.1] = np.nan
    cat = rng.integers(0, 3, (n_base, p_cat))

    def draw(n: int) -> np.ndarray:
        pick = rng.integers(0, n_base, n)
        a, c = num[pick].copy(), cat[pick].copy()
        if p_num:  # some records changed in one number, some in one category
            a[rng.random(n) < 0.2, int(rng.integers(0, p_num))] = 7.0
        c[rng.random(n) < 0.2, int(rng.integers(0, p_cat))] = 9
        return cell_words(a, c)

    return draw(int(rng.integers(1, 400))), draw(int(rng.integers(1, 400)))


@pytest.mark.parametrize("seed", range(6))
def test_the_near_copy_join_on_the_workers_gives_the_one_process_arrays(cluster, seed):
    """Small blocks and partitions (a few dozen records each), so that matches cross blocks and partitions; both
    with two sets and within one set (a record never its own partner, exact duplicates not counted)."""
    from synthpriv_report.cluster.joins import JOIN_PREFIX
    from synthpriv_report.cluster.joins import one_column_matches as on_cluster
    from synthpriv_report.matching.identity import one_column_matches

    _, client = cluster
    q, r = _near_copy_case(seed)
    with get_task_stream(client) as ts:
        for same in (False, True):
            ref = q if same else r
            column, partner = one_column_matches(q, ref, same=same)
            got = on_cluster(client, lambda a, b: q[a:b], len(q), None if same else (lambda a, b: r[a:b]), len(ref),
                             q.shape[1], block_rows=37, partition_keys=60)
            assert np.array_equal(got[0], column) and np.array_equal(got[1], partner), same
            assert (got[0].dtype, got[1].dtype) == (np.int16, np.int32)  # the narrowest types that hold them
            assert (column >= 0).any() or q.shape[1] < 2
    ours = [t for t in ts.data if str(t["key"]).startswith(JOIN_PREFIX)]
    assert {t["worker"] for t in ours} == _workers(client)


def test_the_near_copy_join_by_hand(cluster):
    """Five records by hand: the second equals the first but in column 1, the fourth equals the third but in column
    0, and the fifth is an exact duplicate of the first."""
    from synthpriv_report.cluster.joins import one_column_matches as on_cluster
    from synthpriv_report.matching.identity import cell_words

    _, client = cluster
    w = cell_words(np.array([[1.0, 2.0], [1.0, 5.0], [7.0, 8.0], [6.0, 8.0], [1.0, 2.0]]),
                   np.zeros((5, 0), dtype=np.int64))
    column, partner = on_cluster(client, lambda a, b: w[a:b], 5, None, 5, 2, block_rows=2, partition_keys=3)
    # column 0 left out: record 0's lowest partner is its duplicate 4 (equal in column 0 too: no match), records 2
    # and 3 match; column 1 left out: records 0 and 1 match each other, record 4's lowest partner is record 0, its
    # duplicate (no match: the one-process rule takes the lowest partner only; record 4 is an exact copy)
    assert column.tolist() == [1, 1, 0, 0, -1] and partner.tolist() == [1, 0, 3, 2, -1]
    column, partner = on_cluster(client, lambda a, b: w[a:b], 5, lambda a, b: w[:2][a:b], 2, 2, block_rows=1)
    # against records 0 and 1 only: record 0 itself (same key, equal in column 1 too: column 0 checked first)
    assert column.tolist() == [0, 0, -1, -1, 0] and partner.tolist() == [0, 1, -1, -1, 0]


def _spy_cell_word_blocks(monkeypatch, block_rows: int) -> list[int]:
    """The joins cut their records into blocks of ``block_rows``; the returned list receives the number of records
    of every block of cell words the calling process makes from now on (a spy on ``identity.cell_words``)."""
    from synthpriv_report.matching import identity

    made: list[int] = []
    original = identity.cell_words

    def spy(numbers, codes):
        made.append(len(numbers))
        return original(numbers, codes)

    monkeypatch.setattr(identity, "cell_words", spy)
    monkeypatch.setattr("synthpriv_report.engine.cache.cell_words", spy)  # the engine's own reference to it
    monkeypatch.setattr("synthpriv_report.cluster.joins.BLOCK_ROWS", block_rows)
    return made


def test_the_calling_process_never_makes_a_whole_sets_cell_words(sets, cluster, monkeypatch):
    """The spy: with a client, the near-copy check's cell words are made in blocks and sent to the workers; the
    calling process never holds those of a whole set. Its numbers are those of the local run."""
    _, client = cluster
    made = _spy_cell_word_blocks(monkeypatch, 400)
    metrics = ["exact_copies", "near_copies"]
    local = _canonical(_evaluation(sets, metrics=metrics).results())
    whole = list(made)
    made.clear()
    text = _canonical(_evaluation(sets, client=client, metrics=metrics).results())
    assert _differences(text, local) == []
    T, S, H, _ = sets
    assert sorted(set(whole)) == sorted({len(T), len(S), len(H)})  # one process: each set's words at once
    assert made and max(made) <= 400


@pytest.mark.parametrize("seed", range(4))
def test_identical_record_ids_by_a_join_on_the_workers_are_those_of_one_process(cluster, seed):
    """Three sets with duplicates within and across them, missing numbers and -0.0: the ids of the join equal
    those of :func:`synthpriv_report.matching.identity.record_ids` (dense, in order of first appearance)."""
    from synthpriv_report.cluster.joins import record_ids as on_cluster
    from synthpriv_report.matching.identity import cell_words, record_ids

    _, client = cluster
    rng = np.random.default_rng(seed)
    base_num = rng.choice([0.0, -0.0, 1.5, np.nan], (30, 2))
    base_cat = rng.integers(0, 3, (30, 2))
    sizes = [int(rng.integers(1, 200)) for _ in range(3)]
    num, cat = {}, {}
    for s, n in zip("TSH", sizes):
        pick = rng.integers(0, 30, n)
        num[s], cat[s] = base_num[pick], base_cat[pick]
    expected = record_ids(num, cat, list("TSH"))
    stacked_num = np.concatenate([num[s] for s in "TSH"])
    stacked_cat = np.concatenate([cat[s] for s in "TSH"])
    ids = on_cluster(client, lambda a, b: cell_words(stacked_num[a:b], stacked_cat[a:b]), sizes, 4, block_rows=23,
                     partition_keys=40)
    assert ids is not None and ids.dtype == np.int32  # 4 bytes a record in the calling process
    assert np.array_equal(ids, np.concatenate([expected[s] for s in "TSH"]))


def test_a_collision_of_keys_in_the_record_id_join_is_reported_never_a_wrong_id(cluster):
    """Two different records whose cell words sum to one key: the join finds that the second's first key-mate
    differs from it and returns None (the evaluation then numbers the records in one process, exactly)."""
    from synthpriv_report.cluster.joins import record_ids as on_cluster

    _, client = cluster
    words = np.array([[1, 2], [2, 1], [1, 2], [5, 5]], dtype=np.uint64)
    assert on_cluster(client, lambda a, b: words[a:b], [4], 2, block_rows=1) is None
    ids = on_cluster(client, lambda a, b: words[[0, 2, 3]][a:b], [2, 1], 2, block_rows=1)
    assert ids is not None and ids.tolist() == [0, 0, 1]


def _key_case(seed: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Three small sets whose key columns (a number with -0.0 and missing values, a category with a level one set
    lacks) repeat combinations within and across sets."""
    rng = np.random.default_rng(seed)

    def frame(n: int, levels: list[str]) -> pd.DataFrame:
        return pd.DataFrame({"a": rng.choice([0.0, -0.0, 1.5, 2.0, np.nan], n), "b": rng.choice(levels, n),
                             "x": rng.normal(size=n), "y": rng.choice(list("uv"), n)})

    return frame(int(rng.integers(60, 160)), list("pqr")), frame(int(rng.integers(60, 160)), list("pqs")), \
        frame(40, list("pq"))


@pytest.mark.parametrize("seed", range(3))
def test_cap_key_groupings_by_a_join_on_the_workers_are_those_of_one_process(cluster, monkeypatch, seed):
    """With a client, the CAP family's key groupings are a hash-partitioned join on the workers: the ids are those
    of the one-process grouping (equal exactly when the key values are, -0.0 equal to 0.0, missing equal to
    missing; dense, in order of first appearance), the calling process makes no ``hamming`` encoding and no
    whole set's cell words for them, and ZCAP's result is the local run's. Where the join reports a collision,
    the grouping is made in one process, with the same ids."""

    _, client = cluster
    T, S, H = _key_case(seed)
    kw = dict(key_fields=["a", "b"], sensitive_fields=["y"], metrics=["zcap"], progress=False, random_state=3)
    local = Evaluation(T, S, H, **kw)
    ids_t, ids_s, n_groups = local.context.key_groups(["a", "b"], "T", "S")

    # independently: one id per distinct (a, b), -0.0 read as 0.0 and every missing a as one value, numbered in
    # order of first appearance over T then S as the evaluation holds them (its canonical order of the records)
    def combo(frame: pd.DataFrame, set_name: str) -> list[tuple]:
        rows = local.data.caller_rows(set_name, np.arange(len(frame)))
        return [("nan" if np.isnan(a) else a + 0.0, b) for a, b in zip(frame["a"].iloc[rows], frame["b"].iloc[rows])]

    first: dict[tuple, int] = {}
    expected = [first.setdefault(c, len(first)) for c in combo(T, "T") + combo(S, "S")]
    assert ids_t.tolist() + ids_s.tolist() == expected and n_groups == len(first)

    made = _spy_whole_encodings(monkeypatch)
    blocks = _spy_cell_word_blocks(monkeypatch, 25)
    ev = Evaluation(T, S, H, client=client, **kw)
    got = ev.context.key_groups(["a", "b"], "T", "S")
    assert got[0].tolist() == ids_t.tolist() and got[1].tolist() == ids_s.tolist() and got[2] == n_groups
    assert "hamming" not in made and blocks and max(blocks) <= 25
    assert _canonical(ev.results()) == _canonical(local.results())
    assert "hamming" not in made

    # a collision reported by the join: the grouping is made here, from the hamming encoding, with the same ids
    monkeypatch.setattr(ev._engine.backend.searcher, "record_ids", lambda *a, **k: None)
    again = ev.context.key_groups(["a", "b"], "T", "S")
    assert again[0].tolist() == ids_t.tolist() and again[1].tolist() == ids_s.tolist() and again[2] == n_groups
    assert "hamming" in made


def test_the_prepared_records_are_held_on_the_workers_two_copies_each_and_read_back_the_same(sets, cluster,
                                                                                              local_run, monkeypatch):
    """With a client, each set's prepared records (packed numbers and canonical order, then the fitted codes) go to
    the workers while the encoders are fitted, in blocks with a copy on each of two workers; the calling process
    holds none of them, and reads back the same values. A block whose first copy is lost is read from the second,
    with the numbers of the local run; a block with no copy left is a clear error, never a number."""
    from synthpriv_report.cluster import held as held_module
    from synthpriv_report.cluster.held import HeldArray, HeldDataLost, HeldNumericSet

    _, client = cluster
    local_ev, local_text = local_run
    monkeypatch.setattr(held_module, "HELD_BLOCK_BYTES", 8 * 1024)  # a few blocks per set and field group
    ev = _evaluation(sets, client=client, shard_rows=SHARD_ROWS)
    d, fitted, ld, lfitted = ev._engine.data, ev._engine.fitted, local_ev._engine.data, local_ev._engine.fitted
    stores = []
    for s in ("T", "S", "H"):
        num, codes, order = d.numeric[s], fitted.codes[s], d.order[s]
        assert isinstance(num, HeldNumericSet) and isinstance(codes, HeldArray) and isinstance(order, HeldArray)
        assert np.array_equal(np.asarray(num).view(np.int64), np.asarray(ld.numeric[s]).view(np.int64)), s
        assert np.array_equal(np.asarray(codes), lfitted.codes[s]) and codes.dtype == lfitted.codes[s].dtype
        assert np.array_equal(np.asarray(order), np.asarray(ld.order[s]))
        assert np.array_equal(d.categorical[s][:, 2], ld.categorical[s][:, 2])
        assert order._store is num._store  # the order goes with the numbers, the codes on their own
        for store in (num._store, codes._store):
            assert store.n == ld.sizes[s] and len(store._blocks) >= 2 and store._cache  # the last blocks read stay
            where = [[next(iter(client.who_has([f])[f.key])) for f in copies] for copies in store._blocks]
            assert all(len(set(w)) == 2 for w in where), s  # two copies, on two workers
            assert {w for ws in where for w in ws} == _workers(client)
            stores.append(store)
    # nothing of a set's records is held here: only the blocks read last (at most two a set)
    assert all(len(st._cache) <= held_module.HELD_CACHE_BLOCKS for st in stores)

    # every block's first copy lost (as when its worker dies): the results of the local run
    for st in stores:
        client.cancel([copies[0] for copies in st._blocks])
        st._cache.clear()
    assert _differences(_canonical(ev.results()), local_text) == []

    # a block with no copy left: reading it is a clear error
    st = stores[2]  # S's numbers
    client.cancel(list(st._blocks[1]))
    st._cache.clear()
    with pytest.raises(HeldDataLost, match="every copy is gone.*Run the evaluation again"):
        ev._engine.data.numeric["S"].columns([0], slice(0, st.n))
