"""Tests of synthpriv_report.neighbors.tiled and the automatic engine choice: the tiled kernel equals the tree and
brute force to the bit (distances) and the index (ties by lowest position, self excluded by position) in every
space, its rounding margin holds and is needed, and ``engine="auto"`` picks the tiled kernel where the tree
cannot prune and the tree where it can (docs/metrics.md, "Ties, self-matches and nearest records")."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthpriv_report.data.preparation import prepare
from synthpriv_report.neighbors import (
    NeighborTable,
    SearchChoice,
    build_tree,
    knn,
    knn_brute,
)
from synthpriv_report.neighbors.tiled import (
    REF_TILE,
    _prepare_queries,
    _prepare_refs,
    _tile_acc,
    approx_margin,
    knn_tiled,
)
from synthpriv_report.spaces import SpaceSpec, encode, fit, project


def _mixed(n: int, seed: int) -> pd.DataFrame:
    """Many ties and duplicates: small integer ranges, few categories, missing values, repeated rows."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "a": rng.integers(0, 4, n).astype(float),
        "b": rng.integers(0, 3, n).astype(float) * 2.5,
        "c": rng.choice(list("xyz"), n),
        "d": rng.choice(list("pq"), n, p=[0.8, 0.2]),
        "e": rng.normal(size=n).round(1),
        "f": rng.normal(size=n),
    })
    df.loc[rng.choice(n, n // 10, replace=False), "a"] = np.nan
    df.loc[rng.choice(n, n // 10, replace=False), "f"] = np.nan
    df.loc[rng.choice(n, n // 20, replace=False), "c"] = None
    dup = rng.choice(n, n // 5, replace=False)
    df.iloc[dup[: len(dup) // 2]] = df.iloc[dup[len(dup) // 2: 2 * (len(dup) // 2)]].to_numpy()
    return df


@pytest.fixture(scope="module")
def encodings():
    T = _mixed(1100, 1)  # more than two reference tiles
    S = _mixed(301, 2)  # not a multiple of the query group
    S.loc[5, "e"] = 4e6  # far outside the real range: the Gower sentinel is not exact for this column
    S.loc[7, "a"] = np.nan
    d = prepare(T, S)
    f = fit(d)
    out = {k: encode(d, f, SpaceSpec(k)) for k in ("gower", "euclidean", "hamming")}
    out["projected"] = project(d, out["euclidean"], SpaceSpec("projected", n_components=4))[0]
    out["weighted"] = encode(d, f, SpaceSpec("euclidean", weights=(("a", 2.0), ("c", 0.5), ("f", 3.0))))
    return out


def _rows(enc, name, rows):
    num, cat = enc.num[name], enc.cat[name]
    if rows is not None:
        num, cat = num[rows], cat[rows]
    return np.ascontiguousarray(num), np.ascontiguousarray(cat)


@pytest.mark.slow  # about 8 s
@pytest.mark.parametrize("kind", ["gower", "euclidean", "hamming", "projected", "weighted"])
def test_tiled_equals_tree_and_brute_force(encodings, kind: str) -> None:
    enc = encodings[kind]
    sub_t = np.sort(np.random.default_rng(3).choice(1100, 700, replace=False))
    sub_s = np.arange(0, 301, 2)
    cases = [("S", "T", None, None), ("T", "T", None, None), ("S", "T", sub_s, sub_t), ("T", "T", sub_t, sub_t)]
    for q, r, q_rows, r_rows in cases:
        within = q == r
        tree = build_tree(enc, r, r_rows)
        qn, qc = _rows(enc, q, q_rows)
        d_b, i_b = knn_brute(enc, q, r, k=5, exclude_self=within, q_rows=q_rows, r_rows=r_rows)
        for k in (1, 2, 5):
            info: dict = {}
            d_t, i_t = knn(tree, qn, qc, k=k, exclude_self=within, engine="tiled", info=info)
            d_r, i_r = knn(tree, qn, qc, k=k, exclude_self=within, engine="tree")
            assert info["choice"].engine == "tiled"
            msg = f"{kind} {q}->{r} subset={q_rows is not None} k={k}"
            np.testing.assert_array_equal(i_t, i_b[:, :k], err_msg=msg)
            np.testing.assert_array_equal(d_t, d_b[:, :k], err_msg=msg)
            np.testing.assert_array_equal(i_t, i_r, err_msg=msg)
            np.testing.assert_array_equal(d_t, d_r, err_msg=msg)


def test_tiled_more_neighbours_than_references() -> None:
    T = pd.DataFrame({"x": [0.0, 1.0, 1.0]})
    d = prepare(T, T.iloc[[0]])
    enc = encode(d, fit(d), SpaceSpec("gower"))
    tree = build_tree(enc, "T")
    dist, idx = knn(tree, enc.num["T"], enc.cat["T"], k=4, exclude_self=True, engine="tiled")
    assert idx.tolist() == [[1, 2, -1, -1], [2, 0, -1, -1], [1, 0, -1, -1]]
    assert dist[1].tolist()[:2] == [0.0, 1.0] and np.isinf(dist[:, 2:]).all()


@pytest.mark.slow  # about 3 s
@pytest.mark.parametrize("kind", ["gower", "euclidean", "hamming", "weighted"])
def test_single_precision_margin_holds(encodings, kind: str) -> None:
    """|float32 accumulator of the compiled kernel - float64 accumulator| <= margin for every pair."""
    enc = encodings[kind]
    tree = build_tree(enc, "T")
    qn, qc = _rows(enc, "S", None)
    Rt, Rct, cost32, absmax = _prepare_refs(tree)
    Q, Qc, absq = _prepare_queries(tree, qn, qc)
    ok = (absmax <= 2.0 ** 19 - 2) & (absq <= 2.0 ** 19 - 2) if tree.mode == 0 else None
    margin = approx_margin(tree, absq, absmax, ok)
    n, m = qn.shape[0], tree.size
    a32 = np.empty((Q.shape[0], m), dtype=np.float32)
    acc = np.empty((4, REF_TILE), dtype=np.float32)
    for g in range(0, Q.shape[0], 4):
        for lo in range(0, m, REF_TILE):
            hi = min(m, lo + REF_TILE)
            _tile_acc(tree.mode, Q, Qc, g, Rt, Rct, cost32, lo, hi, acc)
            a32[g:g + 4, lo:hi] = acc[:, :hi - lo]
    # float64 accumulators by brute force (distance -> accumulator is exact enough at this tolerance)
    d_all, i_all = knn_brute(enc, "S", "T", k=m)
    acc64 = np.empty((n, m))
    inv = np.empty(m, dtype=np.int64)
    inv[tree.perm] = np.arange(m)
    dd = np.take_along_axis(d_all, np.argsort(i_all, axis=1), axis=1)[:, tree.perm]  # tree order
    acc64[:] = dd ** 2 if tree.mode == 1 else (dd / tree.scale if tree.mode == 0 else dd)
    err = np.abs(a32[:n].astype(np.float64) - acc64)
    assert (err <= margin[:, None] * (1 + 1e-6) + 1e-12).all()
    if kind != "hamming":  # hamming sums are exact in single precision
        assert err.max() > 0


@pytest.mark.parametrize("kind", ["gower", "euclidean"])
def test_zero_margin_would_miss_the_nearest(kind: str) -> None:
    """Distances that differ below single precision: Y (position 2) is seen first, X (position 3) is closer by
    3% but rounds farther in single precision; without the margin the filter drops X."""
    T = pd.DataFrame({"x": [0.0, 1.0, 0.100000003, 0.0999999971]})
    S = pd.DataFrame({"x": [0.1]})
    d = prepare(T, S)
    enc = encode(d, fit(d), SpaceSpec(kind))
    tree = build_tree(enc, "T")
    no_self = np.full(1, -1, dtype=np.int64)
    assert knn_brute(enc, "S", "T", k=1)[1][0, 0] == 3
    assert knn_tiled(tree, enc.num["S"], enc.cat["S"], no_self, 1)[1][0, 0] == 3
    assert knn_tiled(tree, enc.num["S"], enc.cat["S"], no_self, 1, margin_scale=0.0)[1][0, 0] == 2


def _wide(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    cols = {f"x{j}": rng.normal(size=n) for j in range(30)}
    cols.update({f"c{j}": rng.choice(list("abcde"), n) for j in range(10)})
    return pd.DataFrame(cols)


def _clustered(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    centre = rng.integers(0, 400, n)
    cols = {f"x{j}": np.random.default_rng(j).normal(size=400)[centre] * 10 + rng.normal(size=n) * 0.01
            for j in range(6)}
    cols.update({f"c{j}": np.array(list("abcdefgh"))[np.random.default_rng(50 + j).integers(0, 8, 400)][centre]
                 for j in range(3)})
    return pd.DataFrame(cols)


@pytest.mark.slow  # about a second
def test_auto_picks_tiled_on_wide_unstructured_data() -> None:
    T, S = _wide(2500, 1), _wide(2000, 2)
    d = prepare(T, S)
    enc = encode(d, fit(d), SpaceSpec("gower"))
    tree = build_tree(enc, "T")
    info: dict = {}
    dist, idx = knn(tree, enc.num["S"], enc.cat["S"], k=1, info=info)
    choice = info["choice"]
    assert isinstance(choice, SearchChoice)
    assert choice.engine == "tiled" and choice.device == "cpu", choice
    assert choice.visited_share > 0.5
    d_r, i_r = knn(tree, enc.num["S"], enc.cat["S"], k=1, engine="tree")
    np.testing.assert_array_equal(idx, i_r)
    np.testing.assert_array_equal(dist, d_r)


def test_auto_picks_tree_on_clustered_data() -> None:
    T, S = _clustered(6000, 3), _clustered(1000, 4)
    d = prepare(T, S)
    enc = encode(d, fit(d), SpaceSpec("gower"))
    tree = build_tree(enc, "T")
    info: dict = {}
    knn(tree, enc.num["S"], enc.cat["S"], k=2, info=info)
    assert info["choice"].engine == "tree", info["choice"]
    assert info["choice"].visited_share < 0.025


def test_choice_is_recorded_and_options_validated() -> None:
    T = _mixed(40, 5)
    d = prepare(T, T.copy())
    enc = encode(d, fit(d), SpaceSpec("gower"))
    tree = build_tree(enc, "T")
    info: dict = {}
    knn(tree, enc.num["S"], enc.cat["S"], k=1, info=info)
    assert info["choice"].engine == "tree" and "small search" in info["choice"].reason
    assert info["choice"].to_dict()["device"] == "cpu"
    table = NeighborTable(np.zeros((1, 2)), np.zeros((1, 2), dtype=np.int64), "gower", "S", "T", info["choice"])
    assert table.head(1).choice is info["choice"]
    with pytest.raises(ValueError, match="engine"):
        knn(tree, enc.num["S"], enc.cat["S"], k=1, engine="fast")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="device"):
        knn(tree, enc.num["S"], enc.cat["S"], k=1, device="tpu")  # type: ignore[arg-type]
