"""Tests of synthpriv_report.neighbors: the exact tree search against brute force, ties, self-exclusion,
ties_at_min, farthest_pair and pair_distances (docs/metrics.md, "Ties, self-matches and nearest records")."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _support.frames import near_tie_chains

from synthpriv_report.data.preparation import prepare
from synthpriv_report.neighbors import (
    DENSE_MIN_DIMS,
    MODE_L2,
    NeighborTable,
    build_tree,
    farthest_pair,
    knn,
    knn_brute,
    pair_distances,
    ties_at_min,
)
from synthpriv_report.spaces import Encoding, SpaceSpec, encode, fit, project
from synthpriv_report.stats import ties as tie


def _mixed(n: int, seed: int, *, nan: bool = True) -> pd.DataFrame:
    """Mixed data with many ties and duplicates: small integer ranges, few categories, repeated rows."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "a": rng.integers(0, 4, n).astype(float),
        "b": rng.integers(0, 3, n).astype(float) * 2.5,
        "c": rng.choice(list("xyz"), n),
        "d": rng.choice(list("pq"), n, p=[0.8, 0.2]),
        "e": rng.normal(size=n).round(1),
    })
    if nan and n > 3:
        df.loc[rng.choice(n, max(1, n // 10), replace=False), "a"] = np.nan
        df.loc[rng.choice(n, max(1, n // 20), replace=False), "c"] = None
    if n > 4:  # exact duplicates elsewhere in the set
        dup = rng.choice(n, n // 5, replace=False)
        df.iloc[dup[: len(dup) // 2]] = df.iloc[dup[len(dup) // 2: 2 * (len(dup) // 2)]].to_numpy()
    return df


def _encodings(T: pd.DataFrame, S: pd.DataFrame):
    d = prepare(T, S)
    f = fit(d)
    out = {k: encode(d, f, SpaceSpec(k)) for k in ("gower", "euclidean", "hamming")}
    out["projected"] = project(d, out["euclidean"], SpaceSpec("projected", n_components=min(3, len(T))))[0]
    return out


def _tree_knn(enc, query, ref, k, exclude_self=False):
    tree = build_tree(enc, ref)
    return knn(tree, np.ascontiguousarray(enc.num[query]), np.ascontiguousarray(enc.cat[query]), k=k,
               exclude_self=exclude_self)


@pytest.mark.parametrize("seed, n_t, n_s", [(0, 1, 1), (1, 2, 3), (2, 7, 5), (3, 60, 40),
                                            pytest.param(4, 400, 250, marks=pytest.mark.slow),  # about 3 s
                                            pytest.param(5, 2500, 1200, marks=pytest.mark.slow)])
def test_tree_equals_brute_force(seed: int, n_t: int, n_s: int) -> None:
    T = _mixed(n_t, seed)
    S = _mixed(n_s, seed + 100)
    if n_t == 1:  # prepare needs two real records; use two identical ones
        T = pd.concat([T, T], ignore_index=True)
    encs = _encodings(T, S)
    ks = range(1, 7) if n_t <= 100 else (1, 2, 6)
    for kind, enc in encs.items():
        for q, r in (("S", "T"), ("T", "T"), ("T", "S")):
            within = q == r
            tree = build_tree(enc, r)
            qn, qc = np.ascontiguousarray(enc.num[q]), np.ascontiguousarray(enc.cat[q])
            # the brute-force order is a total order (distance with tolerance, then position), so its first k
            # columns at k = 6 are its answer at k
            d_b, i_b = knn_brute(enc, q, r, k=6, exclude_self=within)
            for k in ks:
                d_t, i_t = knn(tree, qn, qc, k=k, exclude_self=within)
                np.testing.assert_array_equal(i_t, i_b[:, :k], err_msg=f"{kind} {q}->{r} k={k}")
                np.testing.assert_array_equal(d_t, d_b[:, :k], err_msg=f"{kind} {q}->{r} k={k}")


@pytest.mark.slow  # about 14 s
@pytest.mark.parametrize("n_levels", [70, 200, 900])
def test_tree_equals_brute_force_high_cardinality(n_levels: int) -> None:
    """Category columns beyond one bitmask word (70, 200 codes) and beyond the bitmasks (900 codes: the node's
    code range bounds them), with a common low-cardinality column and ties, in every space."""
    rng = np.random.default_rng(n_levels)

    def frame(n: int) -> pd.DataFrame:
        # skewed codes so that nodes hold both bitmask-covered and uncovered codes
        code = np.minimum(rng.geometric(3.0 / n_levels, n) - 1, n_levels - 1)
        return pd.DataFrame({"id": [f"L{c:04d}" for c in code], "c": rng.choice(list("ab"), n),
                             "x": rng.integers(0, 5, n).astype(float)})

    T, S = frame(900), frame(400)
    encs = _encodings(T, S)
    assert int(encs["gower"].n_codes.max()) > 64
    for kind, enc in encs.items():
        for q, r in (("S", "T"), ("T", "T")):
            within = q == r
            d_b, i_b = knn_brute(enc, q, r, k=3, exclude_self=within)
            d_t, i_t = _tree_knn(enc, q, r, 3, exclude_self=within)
            np.testing.assert_array_equal(i_t, i_b, err_msg=f"{kind} {q}->{r}")
            np.testing.assert_array_equal(d_t, d_b, err_msg=f"{kind} {q}->{r}")


def _dense_encoding(ref: np.ndarray, query: np.ndarray) -> Encoding:
    q = ref.shape[1]
    return Encoding(spec=SpaceSpec("projected"), mode=MODE_L2, num={"T": ref, "S": query},
                    cat={"T": np.zeros((len(ref), 0), dtype=np.int64), "S": np.zeros((len(query), 0), dtype=np.int64)},
                    num_weight=np.ones(q), cat_cost=np.zeros(0), scale=1.0, n_codes=np.zeros(0, dtype=np.int64))


@pytest.mark.slow  # about 3 s
@pytest.mark.parametrize("dims, scale", [(DENSE_MIN_DIMS, 1.0), (40, 1e3), (25, 1e-3)])
def test_dense_filter_and_refine_equals_brute_force(dims: int, scale: float) -> None:
    """The projected space's matrix-product search (>= DENSE_MIN_DIMS coordinates, no category): duplicates,
    distances that differ below single precision, queries equal to references, self-exclusion, k up to 6, and
    more queries than one chunk of 64 per task, at several coordinate scales."""
    rng = np.random.default_rng(dims)
    ref = rng.normal(size=(700, dims)) * scale
    ref[350:450] = ref[:100]  # exact duplicates
    ref[450:500] = ref[100:150] + rng.normal(size=(50, dims)) * 1e-9 * scale  # single precision cannot see these
    query = np.concatenate([rng.normal(size=(300, dims)) * scale, ref[:60], ref[460:480] + 1e-12 * scale])
    enc = _dense_encoding(np.ascontiguousarray(ref), np.ascontiguousarray(query))
    assert enc.num["T"].shape[1] >= DENSE_MIN_DIMS
    for q, r in (("S", "T"), ("T", "T")):
        within = q == r
        d_b, i_b = knn_brute(enc, q, r, k=6, exclude_self=within)
        for k in (1, 2, 6):
            d_t, i_t = _tree_knn(enc, q, r, k, exclude_self=within)
            np.testing.assert_array_equal(i_t, i_b[:, :k], err_msg=f"{q}->{r} k={k}")
            np.testing.assert_array_equal(d_t, d_b[:, :k], err_msg=f"{q}->{r} k={k}")


def test_dense_search_on_a_projected_space_equals_brute_force() -> None:
    rng = np.random.default_rng(5)
    n = 400
    cols = {f"c{j}": rng.choice(list("abcd"), n) for j in range(6)}
    cols.update({f"x{j}": rng.integers(0, 6, n).astype(float) for j in range(4)})
    T = pd.DataFrame(cols)
    S = pd.concat([T.sample(100, random_state=1), T.sample(100, random_state=2).assign(x0=0.0)],
                  ignore_index=True)
    d = prepare(T, S)
    enc, _ = project(d, encode(d, fit(d), SpaceSpec("euclidean")), SpaceSpec("projected", n_components=20))
    assert enc.num["T"].shape[1] >= DENSE_MIN_DIMS
    for q, r in (("S", "T"), ("T", "T")):
        d_b, i_b = knn_brute(enc, q, r, k=3, exclude_self=q == r)
        d_t, i_t = _tree_knn(enc, q, r, 3, exclude_self=q == r)
        np.testing.assert_array_equal(i_t, i_b)
        np.testing.assert_array_equal(d_t, d_b)


def test_brute_force_prefix_property() -> None:
    T = _mixed(80, 7)
    S = _mixed(50, 8)
    enc = _encodings(T, S)["gower"]
    d6, i6 = knn_brute(enc, "S", "T", k=6)
    for k in (1, 3):
        d, i = knn_brute(enc, "S", "T", k=k)
        np.testing.assert_array_equal(i, i6[:, :k])
        np.testing.assert_array_equal(d, d6[:, :k])


def test_brute_force_is_a_true_knn_with_lowest_position_ties() -> None:
    """knn_brute itself checked against a full numpy distance matrix and a stable sort."""
    T = _mixed(50, 9)
    S = _mixed(30, 10)
    for kind, enc in _encodings(T, S).items():
        nq, nr = 30, 50
        ii, jj = np.meshgrid(np.arange(nq), np.arange(nr), indexing="ij")
        D = pair_distances(enc, "S", ii.ravel(), "T", jj.ravel()).reshape(nq, nr)
        dist, idx = knn_brute(enc, "S", "T", k=4)
        for q in range(nq):
            # expected: stable sort by distance after snapping tied distances together
            row = D[q].copy()
            order = np.lexsort((np.arange(nr), np.round(row, 9)))
            assert idx[q].tolist() == order[:4].tolist(), kind
            np.testing.assert_allclose(dist[q], row[order[:4]], rtol=0, atol=1e-12)


def test_ties_broken_by_lowest_reference_position_and_self_excluded_by_position() -> None:
    # T x = 5, 1, 1, 1, 9: T1, T2, T3 are identical
    T = pd.DataFrame({"x": [5.0, 1.0, 1.0, 1.0, 9.0]})
    S = pd.DataFrame({"x": [1.0, 3.0]})
    d = prepare(T, S)
    enc = encode(d, fit(d), SpaceSpec("gower"))  # range 8: x' = (x - 1) / 8
    dist, idx = _tree_knn(enc, "S", "T", 4)
    # S0 = 1: T1, T2, T3 at 0 (lowest position first), then T0 at 4/8 = 0.5
    assert idx[0].tolist() == [1, 2, 3, 0]
    np.testing.assert_allclose(dist[0], [0.0, 0.0, 0.0, 0.5])
    # S1 = 3: T1, T2, T3 at 2/8 = 0.25 and T0 at 2/8 = 0.25: all tied, so positions 0, 1, 2, 3
    assert idx[1].tolist() == [0, 1, 2, 3]
    np.testing.assert_allclose(dist[1], [0.25] * 4)
    # within T: T2 excludes itself by position; its duplicates T1 and T3 are neighbours at distance 0
    dist, idx = _tree_knn(enc, "T", "T", 3, exclude_self=True)
    assert idx[2].tolist() == [1, 3, 0] and dist[2, :2].tolist() == [0.0, 0.0]
    assert idx[1].tolist() == [2, 3, 0]
    # T4 = 9: T0 at 0.5, then T1..T3 at 1.0
    assert idx[4].tolist() == [0, 1, 2]
    np.testing.assert_allclose(dist[4], [0.5, 1.0, 1.0])


def test_more_neighbours_than_references() -> None:
    T = pd.DataFrame({"x": [0.0, 1.0]})
    d = prepare(T, T.iloc[[0]])
    enc = encode(d, fit(d), SpaceSpec("euclidean"))
    dist, idx = _tree_knn(enc, "T", "T", 3, exclude_self=True)
    assert idx.tolist() == [[1, -1, -1], [0, -1, -1]]
    assert dist[0, 0] == 1.0 and np.isinf(dist[:, 1:]).all()
    dist, idx = _tree_knn(enc, "S", "T", 3)
    assert idx.tolist() == [[0, 1, -1]]


def _distances(enc, q: int) -> np.ndarray:
    """Every distance of query row ``q`` of S to T, by the shared expression."""
    from synthpriv_report.neighbors.kernels import _acc, _to_dist

    rn, rc = np.ascontiguousarray(enc.num["T"]), np.ascontiguousarray(enc.cat["T"])
    return np.array([_to_dist(enc.mode, _acc(enc.mode, enc.num["S"][q], enc.cat["S"][q], rn, rc, t, enc.num_weight,
                                             enc.cat_cost), enc.scale) for t in range(rn.shape[0])])


def test_tie_tolerance_groups_near_equal_distances() -> None:
    # x' = x / 10 (real range [0, 10]); S0 = 0.5 -> 0.05.
    # d(S0, T0) = 0.05; d(S0, T1) = 0.05 - 2e-11 (relative difference 4e-10 <= 1e-9: a tie);
    # d(S0, T3) = 0.05 - 2e-9 (relative difference 4e-8: strictly closer); d(S0, T2) = 0.95.
    T = pd.DataFrame({"x": [0.0, 1.0 - 2e-10, 10.0, 1.0 - 2e-8]})
    S = pd.DataFrame({"x": [0.5]})
    d = prepare(T, S)
    for kind in ("gower", "euclidean"):
        enc = encode(d, fit(d), SpaceSpec(kind))
        dist, idx = _tree_knn(enc, "S", "T", 4)
        # T3 first; then the tie T0, T1 by lowest position although T1 is numerically closer
        assert idx[0].tolist() == [3, 0, 1, 2], kind
        # the distances are the four smallest in ascending order (the order statistics), whatever the tie order
        row = np.sort(_distances(enc, 0))
        assert dist[0].tolist() == row.tolist() and dist[0, 1] < dist[0, 2]
        assert knn_brute(enc, "S", "T", k=4)[1][0].tolist() == [3, 0, 1, 2]


@pytest.mark.slow  # about a second
@pytest.mark.parametrize("engine", ["tree", "tiled"])
def test_ties_at_min_matches_brute_count(engine: str) -> None:
    T = _mixed(300, 21)
    S = _mixed(120, 22)
    d = prepare(T, S)
    f = fit(d)
    for kind in ("gower", "euclidean", "hamming"):
        enc = encode(d, f, SpaceSpec(kind))
        tree = build_tree(enc, "S")
        qn, qc = np.ascontiguousarray(enc.num["T"]), np.ascontiguousarray(enc.cat["T"])
        dmin = knn(tree, qn, qc, k=1)[0][:, 0]
        lab_t = f.codes["T"][:, :1].astype(float)  # column c's codes as the label
        lab_s = f.codes["S"][:, :1].astype(float)
        info: dict = {}
        n_min, n_ok = ties_at_min(tree, qn, qc, dmin, lab_t, lab_s, np.array([0]), np.array([0.0]), engine=engine,
                                  info=info)
        assert info["engine"] == engine
        nq, nr = 300, 120
        ii, jj = np.meshgrid(np.arange(nq), np.arange(nr), indexing="ij")
        D = pair_distances(enc, "T", ii.ravel(), "S", jj.ravel()).reshape(nq, nr)
        exact = kind == "hamming"
        for q in range(nq):
            at_min = tie(D[q], D[q].min(), exact=exact)
            assert n_min[q] == at_min.sum(), (kind, q)
            assert n_ok[q, 0] == (lab_s[at_min, 0] == lab_t[q, 0]).sum(), (kind, q)
        assert (n_min >= 1).all()


@pytest.mark.parametrize("step", [1e-9, 3e-10])
def test_ties_at_min_tiled_equals_tree_on_near_ties(step: float) -> None:
    # distances a tie tolerance apart, missing values, and a numeric label with a tolerance: the tiled kernel's
    # single-precision filter must pass every reference the tree walk counts, and its float64 test decide alike
    T = near_tie_chains(700, 3, step, 0.0, ["a", "b"])
    S = near_tie_chains(260, 4, step, 2 * step, ["a", "q"])
    T.loc[::17, "x1"] = np.nan
    S.loc[::13, "x1"] = np.nan
    d = prepare(T, S)
    f = fit(d)
    lab_t = np.column_stack([f.codes["T"][:, 0].astype(float), T["x2"].to_numpy()])
    lab_s = np.column_stack([f.codes["S"][:, 0].astype(float), S["x2"].to_numpy()])
    kinds, tol = np.array([0, 1]), np.array([0.0, 0.2])
    for kind in ("gower", "euclidean", "hamming"):
        enc = encode(d, f, SpaceSpec(kind))
        tree = build_tree(enc, "S")
        qn, qc = np.ascontiguousarray(enc.num["T"]), np.ascontiguousarray(enc.cat["T"])
        dmin = knn(tree, qn, qc, k=1)[0][:, 0]
        by_tree = ties_at_min(tree, qn, qc, dmin, lab_t, lab_s, kinds, tol, engine="tree")
        by_tiles = ties_at_min(tree, qn, qc, dmin, lab_t, lab_s, kinds, tol, engine="tiled")
        assert np.array_equal(by_tree[0], by_tiles[0]) and np.array_equal(by_tree[1], by_tiles[1]), kind
        assert (by_tree[0] >= 1).all() and (by_tree[0] > 1).any(), kind  # ties do occur


def test_ties_at_min_refuses_an_unknown_engine() -> None:
    T = pd.DataFrame({"k": ["a", "b"]})
    d = prepare(T, T)
    enc = encode(d, fit(d), SpaceSpec("hamming"))
    with pytest.raises(ValueError, match="engine='gpu'"):
        ties_at_min(build_tree(enc, "S"), enc.num["T"], enc.cat["T"], np.zeros(2), np.zeros((2, 1)),
                    np.zeros((2, 1)), np.array([0]), np.array([0.0]), engine="gpu")


def test_ties_at_min_numeric_label_tolerance_by_hand() -> None:
    # one reference set of 3 identical key records with sensitive values z = 10, 11.5, NaN; query y = 11
    # |11 - 10| = 1 <= 0.1 * 10 = 1 (boundary, correct); |11 - 11.5| = 0.5 <= 1.15 (correct); NaN (wrong)
    T = pd.DataFrame({"k": ["a", "b"]})
    S = pd.DataFrame({"k": ["a", "a", "a", "b"]})
    d = prepare(T, S)
    enc = encode(d, fit(d), SpaceSpec("hamming"))
    tree = build_tree(enc, "S")
    qn, qc = np.ascontiguousarray(enc.num["T"]), np.ascontiguousarray(enc.cat["T"])
    dmin = np.array([0.0, 0.0])
    n_min, n_ok = ties_at_min(tree, qn, qc, dmin, np.array([[11.0], [np.nan]]),
                              np.array([[10.0], [11.5], [np.nan], [np.nan]]), np.array([1]), np.array([0.1]))
    assert n_min.tolist() == [3, 1]
    # query 1 (missing) vs S3 (missing): both missing is correct
    assert n_ok[:, 0].tolist() == [2, 1]


@pytest.mark.slow  # about 3 s
@pytest.mark.parametrize("kind", ["gower", "euclidean", "projected", "hamming"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_farthest_pair_equals_brute_maximum(kind: str, seed: int) -> None:
    T = _mixed(150, 30 + seed)
    S = _mixed(90, 40 + seed)
    enc = _encodings(T, S)[kind]
    ii, jj = np.meshgrid(np.arange(150), np.arange(90), indexing="ij")
    D = pair_distances(enc, "T", ii.ravel(), "S", jj.ravel())
    best, i, j = farthest_pair(enc, build_tree(enc, "T"), build_tree(enc, "S"))
    assert best == pytest.approx(D.max(), rel=1e-12, abs=1e-12)
    assert float(pair_distances(enc, "T", np.array([i]), "S", np.array([j]))[0]) == pytest.approx(best)


def test_farthest_pair_by_hand() -> None:
    T = pd.DataFrame({"x": [0.0, 4.0, 10.0]})
    S = pd.DataFrame({"x": [3.0, 12.0, -2.0]})
    d = prepare(T, S)
    enc = encode(d, fit(d), SpaceSpec("euclidean"))  # x' = x / 10
    # farthest: T2 = 1.0 and S2 = -0.2 -> 1.2, tied with T0 = 0.0 and S1 = 1.2 -> 1.2; either pair may be returned
    best, i, j = farthest_pair(enc, build_tree(enc, "T"), build_tree(enc, "S"))
    assert (i, j) in {(2, 2), (0, 1)} and best == pytest.approx(1.2)


def test_pair_distances_by_hand() -> None:
    T = pd.DataFrame({"x": [0.0, 10.0], "c": ["a", "b"]})
    S = pd.DataFrame({"x": [5.0, 10.0], "c": ["b", "b"]})
    d = prepare(T, S)
    f = fit(d)
    g = encode(d, f, SpaceSpec("gower"))
    e = encode(d, f, SpaceSpec("euclidean"))
    # gower: (T0, S0) = (0.5 + 1) / 2 = 0.75; (T1, S1) = 0; (T0, S1) = (1 + 1) / 2 = 1
    np.testing.assert_allclose(pair_distances(g, "T", np.array([0, 1, 0]), "S", np.array([0, 1, 1])),
                               [0.75, 0.0, 1.0])
    # euclidean: (T0, S0) = sqrt(0.25 + 2) = 1.5; (T1, S1) = 0; (T0, S1) = sqrt(1 + 2)
    np.testing.assert_allclose(pair_distances(e, "T", np.array([0, 1, 0]), "S", np.array([0, 1, 1])),
                               [1.5, 0.0, np.sqrt(3.0)])


def test_subset_reference_rows() -> None:
    T = _mixed(200, 50)
    S = _mixed(60, 51)
    enc = _encodings(T, S)["gower"]
    rows = np.sort(np.random.default_rng(0).choice(200, 70, replace=False))
    tree = build_tree(enc, "T", rows)
    d1, i1 = knn(tree, np.ascontiguousarray(enc.num["S"]), np.ascontiguousarray(enc.cat["S"]), k=3)
    d2, i2 = knn_brute(enc, "S", "T", k=3, r_rows=rows)
    np.testing.assert_array_equal(i1, i2)
    np.testing.assert_array_equal(d1, d2)
    assert i1.max() < 70  # positions within the subset


@pytest.mark.slow  # about a second
def test_dense_space_at_scale_samples_the_tree_and_gives_the_same_numbers(monkeypatch) -> None:
    """Above DENSE_AUTO_MIN_PAIRS the automatic choice estimates the tree's pruning in a dense space too (the
    matrix-product filter scores every pair, which grows with n x m); where it prunes the tree runs, elsewhere
    the filter; either gives the exact neighbours."""
    from synthpriv_report.neighbors import search

    monkeypatch.setattr(search, "DENSE_AUTO_MIN_PAIRS", 1000)
    rng = np.random.default_rng(11)
    # records on a plane inside 16 coordinates (as one-hot projections hold few degrees of freedom): the tree
    # prunes; independent coordinates: it cannot
    planar = rng.uniform(size=(4000, 2)) @ rng.normal(size=(2, 16))
    scattered = rng.normal(size=(600, 16))
    for data, engine in ((planar, "tree"), (scattered, "dense")):
        half = len(data) // 2
        enc = _dense_encoding(np.ascontiguousarray(data[:half]), np.ascontiguousarray(data[half:]))
        info: dict = {}
        d, i = knn(build_tree(enc, "T"), enc.num["S"], enc.cat["S"], k=2, info=info)
        assert info["choice"].engine == engine and info["choice"].visited_share is not None
        d_b, i_b = knn_brute(enc, "S", "T", k=2)
        np.testing.assert_array_equal(i, i_b)
        np.testing.assert_array_equal(d, d_b)


def test_a_chain_of_near_ties_has_one_answer_in_every_engine() -> None:
    """References at distances 0.25 + 3e-10 (position 0), 0.25 + 1.5e-10 (101) and 0.25 (302) from the query:
    neighbours in the chain are tied (6e-10 relative), its ends are not (1.2e-9). Compared pair by pair in the
    order met, position order keeps 302 and tree order (by value) keeps 0. The rule: the row minimum is the
    distance, and of the records tied with it (101 and 302; 0 is not) the lowest position, 101, is the nearest."""
    rng = np.random.default_rng(0)
    far = np.concatenate([rng.uniform(0.0, 0.05, 150), rng.uniform(0.95, 1.0, 150)])
    step = 1.5e-10
    values = np.concatenate([[0.6 + 2 * step], far[:100], [0.6 + step], far[100:], [0.6], [0.0, 1.0]])
    d = prepare(pd.DataFrame({"x": values}), pd.DataFrame({"x": [0.35]}))
    enc = encode(d, fit(d), SpaceSpec("gower"))
    row = _distances(enc, 0)
    assert row.argmin() == 302 and not tie(row[0], row[302]) and tie(row[0], row[101]) and tie(row[101], row[302])
    tree = build_tree(enc, "T")
    found = {"brute": knn_brute(enc, "S", "T", k=3)}
    for engine in ("tree", "tiled"):
        found[engine] = knn(tree, enc.num["S"], enc.cat["S"], k=3, engine=engine)
    for engine, (dist, idx) in found.items():
        assert idx[0].tolist() == [101, 302, 0], engine  # then 302 (0 is not tied with 0.25), then 0
        assert dist[0].tolist() == np.sort(row)[:3].tolist(), engine
        assert dist[0, 0] == row.min()


def _pairwise_in_position_order(row: np.ndarray) -> int:
    """The nearest record by the tie rule applied pair by pair in position order (the rule the engines replace)."""
    best = 0
    for r in range(1, len(row)):
        if not tie(row[r], row[best]) and row[r] < row[best]:
            best = r
    return best


@pytest.mark.slow  # about 3 s
@pytest.mark.parametrize("kind,step,offset", [("gower", 4e-10, 0.0), ("euclidean", 4e-9, 0.05)])
def test_engines_agree_with_the_definition_where_near_ties_chain(kind: str, step: float, offset: float,
                                                                 monkeypatch) -> None:
    """On data full of near-tie chains every engine, whatever its visiting order (tree leaves of 8 or of 2
    records, the tiled kernel), gives brute force's answer by the definition, S -> T and T -> T; the pairwise
    rule in position order would differ on some queries (the data do exercise the rule)."""
    from synthpriv_report.neighbors import tree as tree_module

    T, S = near_tie_chains(600, 1, step, 0.0, ["a", "b"]), near_tie_chains(150, 2, step, offset, ["q"])
    d = prepare(T, S)
    enc = encode(d, fit(d), SpaceSpec(kind))
    nearest = knn_brute(enc, "S", "T", k=1)[1][:, 0]
    differs = sum(_pairwise_in_position_order(_distances(enc, q)) != nearest[q] for q in range(60))
    assert differs > 0
    for q, r in (("S", "T"), ("T", "T")):
        within = q == r
        d_b, i_b = knn_brute(enc, q, r, k=3, exclude_self=within)
        for leaf in (tree_module.LEAF_SIZE, 2):
            monkeypatch.setattr(tree_module, "LEAF_SIZE", leaf)
            tree = build_tree(enc, r)
            for engine in ("tree", "tiled"):
                dist, idx = knn(tree, enc.num[q], enc.cat[q], k=3, engine=engine, exclude_self=within)
                np.testing.assert_array_equal(idx, i_b, err_msg=f"{q}->{r} leaf {leaf} {engine}")
                np.testing.assert_array_equal(dist, d_b, err_msg=f"{q}->{r} leaf {leaf} {engine}")


def test_the_dense_engine_agrees_with_the_definition_where_near_ties_chain() -> None:
    """The projected space's filter and refine, on 12 numeric columns with near-tie chains."""
    rng = np.random.default_rng(5)

    def frame(n, offset):
        return pd.DataFrame({f"x{j}": rng.choice([0.1, 0.5, 0.9], n) + offset + rng.integers(0, 4, n) * 4e-9
                             for j in range(DENSE_MIN_DIMS)})

    d = prepare(frame(500, 0.0), frame(120, 0.05))
    enc = encode(d, fit(d), SpaceSpec("euclidean"))
    assert enc.cat["T"].shape[1] == 0 and enc.num["T"].shape[1] >= DENSE_MIN_DIMS
    tree = build_tree(enc, "T")
    for q, within in (("S", False), ("T", True)):
        info: dict = {}
        dist, idx = knn(tree, enc.num[q], enc.cat[q], k=3, engine="tree", exclude_self=within, info=info)
        assert info["choice"].engine == "dense"
        d_b, i_b = knn_brute(enc, q, "T", k=3, exclude_self=within)
        np.testing.assert_array_equal(idx, i_b)
        np.testing.assert_array_equal(dist, d_b)


@pytest.mark.slow  # about half a second
@pytest.mark.parametrize("max_k", [1024, 10])
def test_a_near_tie_behind_many_equal_distances_is_found(max_k: int, monkeypatch) -> None:
    """Forty references at one distance (0.25) and, at position 0, one at 0.25 + 1.5e-10 (tied): the nearest is
    position 0. The lists searched again must grow past the forty (k + 8, then four times longer), or, with a
    cap of 10 on their length, every reference is scanned; both give the same answer."""
    from synthpriv_report.neighbors import kernels

    monkeypatch.setattr(kernels, "RESEARCH_MAX_K", max_k)
    rng = np.random.default_rng(2)
    far = rng.uniform(0.95, 1.0, 60)
    values = np.concatenate([[0.6 + 1.5e-10], far[:10], [0.6] * 40, far[10:], [0.0]])
    d = prepare(pd.DataFrame({"x": values}), pd.DataFrame({"x": [0.35, 0.36]}))
    enc = encode(d, fit(d), SpaceSpec("gower"))
    tree = build_tree(enc, "T")
    d_b, i_b = knn_brute(enc, "S", "T", k=2)
    assert i_b[0].tolist() == [0, 11] and i_b[1].tolist() == [0, 11]
    for engine in ("tree", "tiled"):
        dist, idx = knn(tree, enc.num["S"], enc.cat["S"], k=2, engine=engine)
        np.testing.assert_array_equal(idx, i_b, err_msg=engine)
        np.testing.assert_array_equal(dist, d_b, err_msg=engine)


def test_a_deferred_table_reads_only_the_columns_asked_for_and_keeps_what_a_head_read():
    dist = np.array([[0.0, 1.0, 2.0], [0.5, 0.5, 3.0]])
    idx = np.array([[3, 1, 0], [2, 0, 1]], dtype=np.int64)
    reads = []

    def load(which, k):
        reads.append((which, k))
        return (dist if which == "dist" else idx)[:, :k].copy()

    handle = NeighborTable.deferred(3, load, "gower", "S", "T", keep=False)
    assert handle.is_deferred and handle.k == 3 and reads == []
    one = handle.head(1)
    assert reads == [] and one.k == 1  # nothing read until used
    assert one.dist.tolist() == [[0.0], [0.5]] and reads == [("dist", 1)]
    assert one.dist.tolist() == [[0.0], [0.5]] and reads == [("dist", 1)]  # a head keeps what it read
    assert one.idx.tolist() == [[3], [2]] and reads == [("dist", 1), ("idx", 1)]
    reads.clear()
    assert handle.dist.shape == (2, 3) and handle.dist.shape == (2, 3)
    assert reads == [("dist", 3), ("dist", 3)]  # the cache's handle keeps nothing: each use reads again
    with pytest.raises(ValueError, match="4 neighbours requested but only 3 were searched"):
        handle.head(4)
    # a table in memory slices its arrays; a load of the wrong width is an error, not a silent reshape
    full = NeighborTable(dist, idx, "gower", "S", "T")
    assert not full.is_deferred and full.head(2).idx.tolist() == [[3, 1], [2, 0]]
    bad = NeighborTable.deferred(2, lambda which, k: dist, "gower", "S", "T")
    with pytest.raises(ValueError, match="expected 2 columns"):
        _ = bad.dist


def test_row_means_are_the_tables_row_means_bit_for_bit_whether_read_or_made_where_the_lists_are():
    """NNDR divides by each real record's mean distance to its k neighbours. A kept table makes those means where
    its lists are, a block of rows at a time (``distributed._block_columns``); the bits must be those of the
    whole table's ``dist.mean(axis=1)``, for any k (numpy sums 8 or more values pairwise) and any block cut."""
    from synthpriv_report.cluster.distributed import _block_columns

    rng = np.random.default_rng(3)
    for k in (1, 2, 5, 8, 9, 17):
        dist = np.sort(rng.random((101, k + 2)) ** 3, axis=1)  # a table searched for more than k
        idx = np.argsort(rng.random((101, k + 2)), axis=1)
        whole = NeighborTable(dist, idx, "gower", "T", "T").head(k)
        want = dist[:, :k].copy().mean(axis=1)
        assert np.array_equal(whole.row_means().view(np.int64), want.view(np.int64)), k
        for cut in (1, 7, 50):
            got = np.concatenate([_block_columns((dist[a:a + cut], idx[a:a + cut], None, None), "mean", k)
                                  for a in range(0, 101, cut)])
            assert np.array_equal(got.view(np.int64), want.view(np.int64)), (k, cut)
        reads = []

        def load(which, kk, d=dist):
            reads.append((which, kk))
            return _block_columns((d, None, None, None), which, kk)

        deferred = NeighborTable.deferred(k + 2, load, "gower", "T", "T", keep=False).head(k)
        assert np.array_equal(deferred.row_means().view(np.int64), want.view(np.int64))
        assert reads == [("mean", k)]  # one float a row came back, not k


def test_a_deferred_load_of_row_means_of_the_wrong_shape_is_an_error():
    bad = NeighborTable.deferred(2, lambda which, k: np.zeros((3, 2)), "gower", "S", "T")
    with pytest.raises(ValueError, match="one value a row"):
        bad.row_means()
