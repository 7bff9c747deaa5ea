"""The engine's backend interface (synthpriv_report.engine.backend): the engine asks a backend, never whether
there is a cluster; the local backend does everything in this process."""

from __future__ import annotations

import io
import tokenize
from pathlib import Path

import numpy as np
import pytest

import synthpriv_report
from synthpriv_report.engine.backend import Backend, LocalBackend, backend_for
from synthpriv_report.matching.identity import cell_words, one_column_matches

PACKAGE = Path(synthpriv_report.__file__).parent


def _names(path: Path) -> set[str]:
    """The identifiers of a module's code (not its docstrings or comments)."""
    toks = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
    return {t.string for t in toks if t.type == tokenize.NAME}


@pytest.mark.parametrize("folder", ["engine", "evaluation", "metrics", "data", "analysis", "grading"])
def test_no_layer_above_the_cluster_names_dask_outside_its_settings(folder):
    """Outside ``cluster/`` (and the display's notice), no module's code names Dask or branches on it: the engine's
    work goes through a backend, chosen in one place (:func:`backend_for`). A user's Dask objects are named only
    where they are accepted: the evaluation's settings (``client=``, ``backend=``) and the sources that read a Dask
    DataFrame given as a set."""
    allowed = {"evaluation/evaluation.py": {"_dask_client", "_dask_notice", "dask"},
               "engine/backend.py": {"DaskBackend"},
               "data/sources.py": {"_is_dask_frame", "dask"}}
    for path in sorted((PACKAGE / folder).rglob("*.py")):
        rel = str(path.relative_to(PACKAGE))
        names = {n for n in _names(path) if "dask" in n.lower()} - allowed.get(rel, set())
        assert not names, f"{rel} names {sorted(names)}"


def test_local_backend_keeps_everything_here():
    b = backend_for(None)
    assert isinstance(b, LocalBackend) and isinstance(b, Backend)
    assert (b.where, b.remote, b.keeps_encodings, b.retries) == ("local", False, True, 0)
    assert b.partitioned_inputs(None, None) is None and b.fit_hooks(None) == (None, None)
    assert not b.shards(10**9, tree_read_here=False)
    value = {"a": np.arange(3)}
    assert b.recall(b.keep(value, 24)) is value  # cached as it is
    assert b.record_ids(lambda a, c: np.zeros((c - a, 1), np.uint64), [3], 1) is None  # numbered by the engine
    assert b.dashboard() is None


def test_local_one_column_matches_is_the_in_memory_join():
    """The local backend's join of records equal on all columns but one is
    :func:`synthpriv_report.matching.identity.one_column_matches` on the whole sets."""
    num = np.array([[1.0, 2.0], [1.0, 3.0], [5.0, 2.0], [1.0, 2.0]])
    cat = np.array([[0], [0], [1], [1]], dtype=np.int64)
    w = cell_words(num, cat)
    b = LocalBackend()
    got = b.one_column_matches(lambda a, c: w[a:c], 4, None, 4, 3)
    want = one_column_matches(w, w, same=True)
    assert all(np.array_equal(g, x) for g, x in zip(got, want))
    r = w[:2]
    got = b.one_column_matches(lambda a, c: w[a:c], 4, lambda a, c: r[a:c], 2, 3)
    want = one_column_matches(w, r, same=False)
    assert all(np.array_equal(g, x) for g, x in zip(got, want))


def test_an_evaluation_without_a_client_runs_on_the_local_backend():
    from synthpriv_report.datasets import load_demo

    demo = load_demo()
    ev = synthpriv_report.Evaluation(demo.real.head(60), demo.synthetic.head(60), holdout=demo.holdout.head(30),
                                     metrics=["dcr"], progress=False, random_state=0)
    assert isinstance(ev._engine.backend, LocalBackend) and ev.settings["backend"] == "local"
    assert not hasattr(ev._engine, "dask")
