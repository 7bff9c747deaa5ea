"""Tests of the path without numba (synthpriv_report._compiled, neighbors/vectorised.py and the NumPy kernels):
the same numbers as the compiled kernels, searched in-process against the compiled engines and, for every
registered metric, in a subprocess with ``SYNTHPRIV_NO_NUMBA=1`` against the compiled run; and index arrays of
32-bit integers (what NumPy gives on a 32-bit platform such as Pyodide's WebAssembly)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synthpriv_report.data import prepare
from synthpriv_report.neighbors import build_tree, knn, knn_brute, pair_distances, ties_at_min
from synthpriv_report.neighbors.vectorised import accumulate, knn_numpy, ties_numpy, to_dist
from synthpriv_report.spaces import SpaceSpec, encode, fit

ROOT = Path(__file__).resolve().parents[1]


def _chains(n: int, seed: int, step: float, categories: list[str]) -> pd.DataFrame:
    """Values a few tie tolerances apart around a handful of levels, missing values, duplicates: distances
    that are equal, tied by the tolerance or chained by it."""
    rng = np.random.default_rng(seed)
    cols = {f"x{j}": rng.choice([0.1, 0.3, 0.5, 0.9], n) + rng.integers(0, 4, n) * step for j in range(3)}
    cols["c"] = rng.choice(categories, n)
    df = pd.DataFrame(cols)
    df.loc[rng.choice(n, n // 10, replace=False), "x1"] = np.nan
    df.iloc[: n // 10] = df.iloc[n // 10: 2 * (n // 10)].to_numpy()
    return df


@pytest.mark.parametrize("kind,step", [("gower", 4e-10), ("euclidean", 4e-9), ("hamming", 0.0), ("gower", 0.25)])
def test_numpy_search_equals_every_compiled_engine(kind: str, step: float) -> None:
    """Distances bit for bit and indices equal to the tree, the tiled kernel and brute force, S -> T and T -> T
    (self excluded), on data full of exact and near ties, k = 1, 3 and more than the references."""
    T, S = _chains(300, 1, step, ["a", "b", "c"]), _chains(90, 2, step, ["a", "q"])
    d = prepare(T, S)
    enc = encode(d, fit(d), SpaceSpec(kind))
    tree = build_tree(enc, "T")
    for q in ("S", "T"):
        within = q == "T"
        qn, qc = np.ascontiguousarray(enc.num[q]), np.ascontiguousarray(enc.cat[q])
        self_pos = np.arange(len(qn)) if within else np.full(len(qn), -1)
        for k in (1, 3, 305):
            dist, idx = knn_numpy(tree, qn, qc, self_pos.astype(np.int64), k)
            d_b, i_b = knn_brute(enc, q, "T", k=k, exclude_self=within)
            np.testing.assert_array_equal(dist, d_b, err_msg=f"{q} k={k}")
            np.testing.assert_array_equal(idx, i_b, err_msg=f"{q} k={k}")
            for engine in ("tree", "tiled"):
                d_e, i_e = knn(tree, qn, qc, k=k, engine=engine, exclude_self=within)
                np.testing.assert_array_equal(dist, d_e, err_msg=f"{engine} {q} k={k}")
                np.testing.assert_array_equal(idx, i_e, err_msg=f"{engine} {q} k={k}")
        if within:
            assert (idx[:, 0] != np.arange(len(qn))).all()  # never its own neighbour
            assert (idx[:, -5:] == -1).all() and np.isinf(dist[:, -5:]).all()  # 299 others for 305 slots


def test_numpy_search_block_boundaries(monkeypatch) -> None:
    """Blocks of 7 queries give the rows of one block (no state carried between blocks)."""
    from synthpriv_report.neighbors import vectorised

    T, S = _chains(120, 3, 4e-10, ["a", "b"]), _chains(50, 4, 4e-10, ["a"])
    d = prepare(T, S)
    enc = encode(d, fit(d), SpaceSpec("gower"))
    tree = build_tree(enc, "T")
    qn, qc = np.ascontiguousarray(enc.num["S"]), np.ascontiguousarray(enc.cat["S"])
    whole = knn_numpy(tree, qn, qc, np.full(50, -1, dtype=np.int64), 4)
    monkeypatch.setattr(vectorised, "BLOCK_PAIRS", 7 * 120)
    blocked = knn_numpy(tree, qn, qc, np.full(50, -1, dtype=np.int64), 4)
    np.testing.assert_array_equal(whole[0], blocked[0])
    np.testing.assert_array_equal(whole[1], blocked[1])


def test_accumulate_by_hand() -> None:
    """Gower: per numeric column min(|a - b|, 1), 1 where one side is missing, 0 where both are; plus the cost
    of each differing category. (0.25, nan) vs (0.75, nan): 0.5 + 0; vs (1.9, 0.1): 1 + 1; category a vs b: + 2."""
    q = np.array([[0.25, np.nan]])
    r = np.array([[0.75, np.nan], [1.9, 0.1]])
    acc = accumulate(0, q, np.array([[0]]), r, np.array([[0], [1]]), np.ones(2), np.array([2.0]))
    assert acc.tolist() == [[0.5, 4.0]]
    acc_l2 = accumulate(1, np.array([[1.0, 2.0]]), np.zeros((1, 0), dtype=np.int64), np.array([[4.0, 0.0]]),
                        np.zeros((1, 0), dtype=np.int64), np.array([0.5, 2.0]), np.zeros(0))
    assert acc_l2.tolist() == [[0.5 * 9 + 2.0 * 4]]  # 12.5
    assert to_dist(1, acc_l2, 1.0).tolist() == [[np.sqrt(12.5)]]


def test_numpy_ties_and_pairs_equal_compiled() -> None:
    """ties_at_min (categorical and numeric labels) and pair_distances, NumPy against the compiled kernels."""
    T, S = _chains(200, 5, 4e-10, ["a", "b"]), _chains(80, 6, 4e-10, ["a", "b"])
    d = prepare(T, S)
    enc = encode(d, fit(d), SpaceSpec("euclidean"))
    tree = build_tree(enc, "T")
    qn, qc = np.ascontiguousarray(enc.num["S"]), np.ascontiguousarray(enc.cat["S"])
    dmin = knn(tree, qn, qc, k=1)[0][:, 0]
    rng = np.random.default_rng(0)
    qlab = np.column_stack([rng.integers(0, 3, 80), rng.normal(size=80)]).astype(float)
    rlab = np.column_stack([rng.integers(0, 3, 200), rng.normal(size=200)]).astype(float)
    rlab[::7, 1] = np.nan
    qlab[::9, 1] = np.nan
    args = (tree, qn, qc, dmin, qlab, rlab, np.array([0, 1]), np.array([0.0, 0.5]))
    n_min, n_ok = ties_at_min(*args)
    v_min, v_ok = ties_numpy(*args)
    assert (n_min >= 1).all()
    np.testing.assert_array_equal(n_min, v_min)
    np.testing.assert_array_equal(n_ok, v_ok)
    a, b = np.arange(80), rng.integers(0, 200, 80)
    from synthpriv_report.neighbors.pairs import _pair_dist_compiled
    from synthpriv_report.neighbors.kernels import _query_arrays

    an, ac = _query_arrays(enc, "S", a)
    bn, bc = _query_arrays(enc, "T", b)
    compiled = _pair_dist_compiled(enc.mode, an, ac, bn, bc, enc.num_weight, enc.cat_cost, enc.scale)
    vector = to_dist(enc.mode, accumulate(enc.mode, an, ac, bn, bc, enc.num_weight, enc.cat_cost, paired=True),
                     enc.scale)
    np.testing.assert_array_equal(compiled, vector)
    np.testing.assert_array_equal(pair_distances(enc, "S", a, "T", b), compiled)


# ---------------------------------------------------------------------------------------------------------------
# every registered metric, with and without the compiled kernels

_RUN = textwrap.dedent("""
    import json, sys
    import pandas as pd
    from synthpriv_report import Evaluation, _compiled
    from synthpriv_report.datasets import load_demo

    d = load_demo()
    n = 240
    syn = pd.concat([d.synthetic.iloc[:n // 2], d.real.iloc[:n // 4], d.synthetic_leaky.iloc[1500:1500 + n // 4]],
                    ignore_index=True)
    ev = Evaluation(d.real.iloc[:n], syn, d.holdout.iloc[:n // 2], key_fields=d.key_fields,
                    sensitive_fields=d.sensitive_fields, progress=False)
    out = ev.to_dict()
    out.pop("versions")
    json.dump({"compiled": _compiled.COMPILED, "report": out}, sys.stdout, sort_keys=True)
""")


def _run(no_numba: bool) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "SYNTHPRIV_NO_NUMBA"}
    if no_numba:
        env["SYNTHPRIV_NO_NUMBA"] = "1"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    proc = subprocess.run([sys.executable, "-W", "ignore", "-c", _RUN], env=env, capture_output=True, text=True,
                          timeout=900, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout)


def _differences(a, b, path="") -> list[str]:
    if type(a) is not type(b):
        return [f"{path}: {a!r} != {b!r}"]
    if isinstance(a, dict):
        out = [f"{path}/{k}: missing on one side" for k in set(a) ^ set(b)]
        for k in sorted(set(a) & set(b)):
            out += _differences(a[k], b[k], f"{path}/{k}")
        return out
    if isinstance(a, list):
        if len(a) != len(b):
            return [f"{path}: lengths {len(a)} and {len(b)}"]
        return [x for i, (u, v) in enumerate(zip(a, b)) for x in _differences(u, v, f"{path}[{i}]")]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"]


def test_every_metric_gives_the_same_json_without_numba() -> None:
    """The whole JSON result (every registered metric's value, interval, level and details, the settings and
    the data notes) of an evaluation of 240 demo records with the compiled kernels equals, bit for bit, the one
    computed with ``SYNTHPRIV_NO_NUMBA=1`` (NumPy searches and trainer, the other kernels as plain Python)."""
    compiled, plain = _run(False), _run(True)
    assert compiled["compiled"] is True and plain["compiled"] is False
    metrics = compiled["report"]["results"]["metrics"]
    assert len(metrics) >= 20
    diffs = _differences(compiled["report"], plain["report"])
    assert not diffs, "\n".join(diffs[:30])
