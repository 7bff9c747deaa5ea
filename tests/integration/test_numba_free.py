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

from synthpriv_report.data.preparation import prepare
from synthpriv_report.neighbors import build_tree, knn, knn_brute, pair_distances, ties_at_min
from synthpriv_report.neighbors.vectorised import accumulate, knn_numpy, ties_numpy, to_dist
from synthpriv_report.spaces import SpaceSpec, encode, fit
from synthpriv_report.stats.bootstrap import _records_resamples

ROOT = Path(__file__).resolve().parents[2]


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


def _categorical_heavy(n: int, seed: int) -> pd.DataFrame:
    """Five categorical and three numeric columns with missing values and repeated records."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({f"c{j}": rng.choice(list("abcd"[: 2 + j % 3]), n) for j in range(5)})
    for j in range(3):
        df[f"x{j}"] = rng.integers(0, 6, n) * 0.5 + (rng.normal(size=n) * 1e-9 if j == 2 else 0.0)
    df.loc[rng.choice(n, n // 8, replace=False), "x1"] = np.nan
    df.iloc[: n // 6] = df.iloc[n // 6: 2 * (n // 6)].to_numpy()
    return df


@pytest.mark.parametrize("kind", ["gower", "euclidean"])
@pytest.mark.parametrize("max_kept", [0.0, 0.25, 1.0])
def test_pruned_numpy_search_equals_the_whole_one(kind: str, max_kept: float, monkeypatch) -> None:
    """The column-wise pruning leaves every neighbour and distance as the search that sums every column of every
    pair: categorical-heavy data (the categorical part bounds), S -> T and T -> T, k = 1, 2 and 6, whether the
    block's other columns are summed for the kept pairs only (max_kept 1) or for all (max_kept 0)."""
    from synthpriv_report.neighbors import vectorised

    monkeypatch.setattr(vectorised, "PRUNE_MAX_KEPT", max_kept)
    T, S = _categorical_heavy(700, 1), _categorical_heavy(260, 2)
    d = prepare(T, S)
    enc = encode(d, fit(d), SpaceSpec(kind))
    tree = build_tree(enc, "T")
    for q in ("S", "T"):
        qn, qc = np.ascontiguousarray(enc.num[q]), np.ascontiguousarray(enc.cat[q])
        self_pos = (np.arange(len(qn)) if q == "T" else np.full(len(qn), -1)).astype(np.int64)
        for k in (1, 2, 6):
            whole = knn_numpy(tree, qn, qc, self_pos, k, prune=False)
            pruned = knn_numpy(tree, qn, qc, self_pos, k)
            np.testing.assert_array_equal(pruned[0], whole[0], err_msg=f"{q} k={k}")
            np.testing.assert_array_equal(pruned[1], whole[1], err_msg=f"{q} k={k}")
    assert tree.num.shape[0] >= vectorised.PRUNE_MIN_REFS  # the pruned path did run


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
    from synthpriv_report.neighbors.kernels import _query_arrays
    from synthpriv_report.neighbors.pairs import _pair_dist_compiled

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
    computed with ``SYNTHPRIV_NO_NUMBA=1`` (NumPy searches and trainer, the other kernels as plain Python).

    Every kernel but one does the same arithmetic in the same order. The exception is the D-MLP trainer: the
    compiled one lets LLVM reorder its float32 sums (fastmath) and the NumPy one sums through matrix products, so
    the weights differ in their last bits; detection_mlp's fold AUCs are read from the ranks of the predicted
    probabilities, and at this size those ranks and the early-stopping epochs agree, so its result is equal too.
    Should a platform's BLAS ever change a rank, only detection_mlp's fold AUCs would differ."""
    compiled, plain = _run(False), _run(True)
    assert compiled["compiled"] is True and plain["compiled"] is False
    metrics = compiled["report"]["results"]["metrics"]
    assert len(metrics) >= 20
    diffs = _differences(compiled["report"], plain["report"])
    assert not diffs, "\n".join(diffs[:30])


def test_numpy_boxes_equal_compiled() -> None:
    """The node boxes (numeric ranges, missing flags, category bitmasks and code ranges beyond 256 codes) built
    in NumPy from the leaves upwards equal the compiled kernel's, in every space."""
    from synthpriv_report.neighbors import tree as tree_module

    T = _chains(1500, 1, 4e-10, [f"c{i}" for i in range(400)])
    d = prepare(T, _chains(40, 2, 4e-10, ["a"]))
    for kind in ("gower", "euclidean", "hamming"):
        t = build_tree(encode(d, fit(d), SpaceSpec(kind)), "T")
        n_words = t.mask.shape[1] - 2
        assert t.left.shape[0] > 50 and t.cat.max() > 64 * n_words  # many nodes; codes beyond the bitmasks
        compiled = tree_module._boxes(t.num, t.cat, t.start, t.end, n_words)
        numpy_ = tree_module._boxes_numpy(t.num, t.cat, t.start, t.end, t.left, t.right, n_words)
        for name, a, b in zip(("nmin", "nmax", "nnan", "mask"), compiled, numpy_):
            np.testing.assert_array_equal(a, b, err_msg=f"{kind} {name}")


def test_split_tree_rebuilds_the_compiled_tree() -> None:
    """A one-leaf tree (what build_tree gives without numba) split again has the compiled tree's nodes."""
    from synthpriv_report.neighbors.tree import RefTree, _assemble, split_tree

    d = prepare(_chains(200, 7, 4e-10, ["a", "b", "c"]), _chains(10, 8, 4e-10, ["a"]))
    enc = encode(d, fit(d), SpaceSpec("gower"))
    full = build_tree(enc, "T")
    flat = _assemble(int(enc.mode), enc.num["T"], enc.cat["T"], enc.num_weight, enc.cat_cost,
                     enc.n_codes.astype(np.int64), float(enc.scale), bool(enc.integer_valued), split=False)
    assert flat.left.shape == (1,) and flat.perm.tolist() == list(range(200))
    again = split_tree(flat)
    for name in ("perm", "start", "end", "left", "right", "num", "cat", "nmin", "nmax", "nnan"):
        np.testing.assert_array_equal(getattr(again, name), getattr(full, name), err_msg=name)
    assert isinstance(again, RefTree)


def test_paired_median_kernel_same_draws_without_numba() -> None:
    """The windowed paired-median kernel run as plain Python (NumPy's legacy generator) gives the compiled
    kernel's replicates, also where resamples leave a narrow window (the record-by-record branch), and leaves
    NumPy's global generator where it was."""
    from synthpriv_report.stats import _paired_medians as pm

    rng = np.random.default_rng(3)
    a, b = np.sort(rng.normal(size=400)), rng.normal(size=400)
    rank_b = np.empty(400, dtype=np.int64)
    order_b = np.argsort(b, kind="stable")
    rank_b[order_b] = np.arange(400)
    seeds = np.random.default_rng(1).integers(0, 2**63 - 1, size=30, dtype=np.int64)
    args = (a, b[order_b], rank_b, seeds & np.int64(0xFFFFFFFF), 199, 200, 0.5, 6)
    compiled = pm._windowed(*args)
    np.random.seed(12)
    before = np.random.random()
    np.random.seed(12)
    plain = pm._windowed.py_func(*args) if hasattr(pm._windowed, "py_func") else pm._windowed(*args)
    np.testing.assert_array_equal(compiled[0], plain[0])
    np.testing.assert_array_equal(compiled[1], plain[1])
    state = np.random.get_state()
    np.random.seed(12)
    pm.COMPILED, saved = False, pm.COMPILED
    try:
        again = pm.windowed(a, b[order_b], rank_b, seeds, 199, 200, 0.5, 6)  # seeds taken modulo 2**32
    finally:
        pm.COMPILED = saved
    assert np.random.random() == before  # the global generator is restored
    np.random.set_state(state)
    np.testing.assert_array_equal(again[0], compiled[0])


# ---------------------------------------------------------------------------------------------------------------
# 32-bit integers (Pyodide is wasm32: NumPy's intp is int32 there)


def _strict_bincount(monkeypatch) -> None:
    """np.bincount as on a 32-bit platform: its input must cast safely to int32 (int64 raises TypeError); and
    ``np.intp``, the type code should cast to, is int32 there."""
    real = np.bincount
    monkeypatch.setattr(np, "intp", np.int32)

    def bincount(x, weights=None, minlength=0):
        x = np.asarray(x)
        if not np.can_cast(x.dtype, np.int32, "safe"):
            raise TypeError(f"Cannot cast array data from dtype({str(x.dtype)!r}) to dtype('int32') "
                            "according to the rule 'safe'")
        return real(x, weights, minlength)

    monkeypatch.setattr(np, "bincount", bincount)


def test_strict_bincount_emulates_a_32_bit_platform(monkeypatch) -> None:
    _strict_bincount(monkeypatch)
    with pytest.raises(TypeError, match="int32"):
        np.bincount(np.array([1, 2], dtype=np.int64))
    assert np.bincount(np.array([1, 1], dtype=np.int32)).tolist() == [0, 2]


def test_bootstrap_resamples_count_draws_on_32_bit(monkeypatch) -> None:
    """stats' record resamples count int64 draws through np.bincount: cast to intp first (regression: int64
    draws fail on 32-bit platforms)."""

    v = np.arange(10.0)
    expected = _records_resamples(v, (0.5,), n_resamples=20, rng=np.random.default_rng(0))
    _strict_bincount(monkeypatch)
    got = _records_resamples(v, (0.5,), n_resamples=20, rng=np.random.default_rng(0))
    for x, y in zip(expected, got):
        np.testing.assert_array_equal(x, y)


def test_int32_index_arrays_give_the_same_numbers() -> None:
    """Index arrays of int32 (NumPy's default integer on a 32-bit platform) in the NumPy search, the tie counts,
    the identical-record checks and the HitR windows give the int64 results."""
    from synthpriv_report.matching import identity, joins

    d = prepare(_chains(150, 9, 4e-10, ["a", "b"]), _chains(60, 10, 4e-10, ["a", "b"]))
    enc = encode(d, fit(d), SpaceSpec("gower"))
    tree = build_tree(enc, "T")
    qn, qc = np.ascontiguousarray(enc.num["T"]), np.ascontiguousarray(enc.cat["T"])
    d64 = knn_numpy(tree, qn, qc, np.arange(150, dtype=np.int64), 3)
    d32 = knn_numpy(tree._replace(perm=tree.perm.astype(np.int32)), qn, qc.astype(np.int32),
                    np.arange(150, dtype=np.int32), 3)
    np.testing.assert_array_equal(d64[0], d32[0])
    np.testing.assert_array_equal(d64[1], d32[1])
    ra, rb = np.arange(150), np.arange(150)[::-1].copy()
    bits = np.ascontiguousarray(enc.num["T"]).view(np.int64)
    same64 = identity._same_rows(bits, qc, ra.astype(np.int64), bits, qc, rb.astype(np.int64))
    saved = identity.COMPILED
    identity.COMPILED = False
    try:
        same32 = identity._same_rows(bits, qc, ra.astype(np.int32), bits, qc, rb.astype(np.int32))
        hashes32 = identity._row_hashes(bits, qc.astype(np.int32))
    finally:
        identity.COMPILED = saved
    np.testing.assert_array_equal(same64, same32)
    np.testing.assert_array_equal(identity._row_hashes(bits, qc), hashes32)
    uniq = np.array([0.0, 1.0, 2.0, 5.0])
    key_sorted = np.array([1, 2, 2, 7, 11, 13], dtype=np.int64)
    for dt in (np.int64, np.int32):
        joins.COMPILED, saved = False, joins.COMPILED
        try:
            a, b = joins._window_bounds(np.array([1.0, 4.0]), 1.0, uniq, np.array([0, 2], dtype=dt), 5, key_sorted)
        finally:
            joins.COMPILED = saved
        # group 0, values 0..2 -> ranks [0, 3) -> keys [0, 3): positions 0..3; group 2 (base 10), value 4 +- 1 ->
        # ranks [3, 4) -> keys [13, 14): position 5 to 6
        assert a.tolist() == [0, 5] and b.tolist() == [3, 6]
        ca, cb = joins._window_bounds_compiled(np.array([1.0, 4.0]), 1.0, uniq, np.array([0, 2], dtype=np.int64), 5,
                                               key_sorted)
        assert ca.tolist() == a.tolist() and cb.tolist() == b.tolist()


def test_the_numpy_path_warns_nothing_in_the_teaching_views() -> None:
    """Without numba, an evaluation, a slider's re-reduction, a record's explanation and the widgets run with
    every warning an error (a notebook in the browser would show each one as an output)."""
    code = textwrap.dedent("""
        from synthpriv_report import Evaluation, _compiled
        from synthpriv_report.datasets import load_demo

        d = load_demo()
        ev = Evaluation(d.real.iloc[:300], d.synthetic_leaky.iloc[:300], d.holdout.iloc[:150],
                        key_fields=d.key_fields, sensitive_fields=d.sensitive_fields,
                        metrics=["dcr", "exact_copies", "privacy_score", "nndr", "hitting_rate"], progress=False)
        ev.results()
        ev.results(alpha=0.2, nndr_threshold=0.3)
        ev.explain(0)
        ev.explore()
        print(_compiled.COMPILED)
    """)
    env = {**os.environ, "SYNTHPRIV_NO_NUMBA": "1", "PYTHONPATH": os.pathsep.join(
        [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])}
    proc = subprocess.run([sys.executable, "-W", "error", "-c", code], env=env, capture_output=True, text=True,
                          timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "False"
