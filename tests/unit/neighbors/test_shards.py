"""Sharded exact search (synthpriv_report.neighbors.shards): the merged k-best lists are bit for bit those of one
tree over the whole reference set, with exact and near ties across shard borders."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _support.frames import near_tie_chains

from synthpriv_report.data.preparation import prepare
from synthpriv_report.neighbors import build_tree, knn, knn_brute
from synthpriv_report.neighbors.search import SearchChoice
from synthpriv_report.neighbors.shards import (
    ShardParams,
    knn_sharded,
    merge_shards,
    pickable,
    search_shard,
    shard_bounds,
    shard_candidates,
)
from synthpriv_report.spaces import SpaceSpec, encode, fit


def _shards(enc, base: str, shard_rows: int) -> list:
    p = ShardParams.from_encoding(enc)
    num, cat = enc.num[base], enc.cat[base]
    return [(a, p.build(num[a:b], cat[a:b])) for a, b in shard_bounds(num.shape[0], shard_rows)]


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and np.array_equal(a.view(np.int64), b.view(np.int64))


def test_shard_bounds_cover_every_position_once() -> None:
    for m, rows in ((1, 1), (7, 3), (1000, 97), (1000, 1000), (1000, 5000)):
        b = shard_bounds(m, rows)
        assert b[0][0] == 0 and b[-1][1] == m
        assert all(e0 == s1 for (_, e0), (s1, _) in zip(b[:-1], b[1:]))
        assert all(0 < e - s <= rows for s, e in b)
    with pytest.raises(ValueError, match="shard_rows"):
        shard_bounds(10, 0)


@pytest.mark.slow  # about a second
def test_a_near_tie_across_a_shard_border_goes_to_the_lowest_position() -> None:
    """Reference 0 (shard 0) lies 3e-13 farther from the query than reference 5 (shard 1): tied by the tolerance,
    so the lower position is the nearest record, although the order by (distance, position) puts 5 first."""
    T = pd.DataFrame({"x": [0.5 + 3e-13, 0.0, 1.0, 0.9, 0.8, 0.5, 0.05]})
    S = pd.DataFrame({"x": [0.3]})
    d = prepare(T, S)
    enc = encode(d, fit(d), SpaceSpec("gower"))
    one_d, one_i = knn(build_tree(enc, "T"), enc.num["S"], enc.cat["S"], k=2)
    assert one_i[0].tolist() == [0, 5] and one_d[0, 0] < one_d[0, 1]  # the rule, not the order, decided
    for rows in (3, 4, 5):
        shards = _shards(enc, "T", rows)
        choice = SearchChoice("tree", "cpu", "test")
        parts = [search_shard(t, a, enc.num["S"], enc.cat["S"], np.full(1, -1, dtype=np.int64), 2, choice)
                 for a, t in shards]
        _, idx, redo = merge_shards(parts, 2, False)
        assert redo.tolist() == [0]  # the row is decided again, not taken from the merged order
        assert idx[0].tolist() == [5, 0]
        dist, idx = knn_sharded(shards, enc.num["S"], enc.cat["S"], k=2, exclude_self=False, choice=choice)
        assert idx.tolist() == one_i.tolist() and _same(dist, one_d)


def _duplicates(n: int, seed: int) -> pd.DataFrame:
    """Few distinct records, many copies of each: exact ties everywhere, across every shard border."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"a": rng.integers(0, 4, n).astype(float), "c": rng.choice(list("xy"), n)})


@pytest.mark.slow  # a cluster search per case: 15-35 s each on 2 cores
@pytest.mark.parametrize("kind", ["gower", "euclidean", "hamming"])
@pytest.mark.parametrize("engine", ["tree", "tiled"])
def test_sharded_search_equals_one_tree_with_ties_across_borders(kind: str, engine: str) -> None:
    cases = [(_duplicates(500, 1), _duplicates(120, 2)),
             (near_tie_chains(600, 1, 4e-10 if kind == "gower" else 4e-9, 0.0, ["a", "b"]),
              near_tie_chains(150, 2, 4e-10 if kind == "gower" else 4e-9, 0.05, ["a", "q"]))]
    choice = SearchChoice(engine, "cpu", "test")
    decided_again = 0
    for T, S in cases:
        d = prepare(T, S)
        enc = encode(d, fit(d), SpaceSpec(kind))
        for q, r in (("S", "T"), ("T", "T")):
            within = q == r
            tree = build_tree(enc, r)
            for k in (1, 3, 7):
                one_d, one_i = knn(tree, enc.num[q], enc.cat[q], k=k, exclude_self=within, engine=engine)
                for rows in (37, 200, 599):
                    shards = _shards(enc, r, rows)
                    dist, idx = knn_sharded(shards, enc.num[q], enc.cat[q], k=k, exclude_self=within, choice=choice)
                    assert _same(dist, one_d), (kind, q, r, k, rows)
                    np.testing.assert_array_equal(idx, one_i, err_msg=f"{kind} {q}->{r} k={k} shards of {rows}")
                    sp = np.arange(len(enc.num[q])) if within else np.full(len(enc.num[q]), -1)
                    parts = [search_shard(t, a, enc.num[q], enc.cat[q], sp.astype(np.int64), k, choice)
                             for a, t in shards]
                    decided_again += len(merge_shards(parts, k, shards[0][1].exact)[2])
    if kind != "hamming":
        assert decided_again > 0  # the near-tie data did reach the decision from every shard's candidates


def test_a_shard_with_fewer_references_than_k_pads_like_one_tree() -> None:
    T, S = _duplicates(5, 3), _duplicates(4, 4)
    d = prepare(T, S)
    enc = encode(d, fit(d), SpaceSpec("gower"))
    one_d, one_i = knn_brute(enc, "S", "T", k=8)
    dist, idx = knn_sharded(_shards(enc, "T", 2), enc.num["S"], enc.cat["S"], k=8, exclude_self=False,
                            choice=SearchChoice("tree", "cpu", "test"))
    assert _same(dist, one_d) and idx.tolist() == one_i.tolist()
    assert (idx[:, 5:] == -1).all() and np.isinf(dist[:, 5:]).all()


def _picked(d: np.ndarray, i: np.ndarray, k: int) -> list[int]:
    from synthpriv_report.neighbors.kernels import _pick

    out = np.full((1, k), -1, dtype=np.int64)
    _pick(np.ascontiguousarray(d, dtype=np.float64), np.ascontiguousarray(i, dtype=np.int64), len(d), k, 0, out,
          False)
    return out[0].tolist()


def test_pickable_leaves_out_only_what_the_tie_rule_never_picks() -> None:
    """Random candidate lists (copies at one distance, near ties a tolerance apart, positions in any order): the
    tie rule picks the same references from the kept candidates as from all of them, and the kept ones are few."""
    rng = np.random.default_rng(7)
    for trial in range(400):
        n = int(rng.integers(1, 300))
        k = int(rng.integers(1, 8))
        levels = rng.choice([0.25, 0.5, 0.5 + 3e-13, 0.5 + 6e-13, 0.75], size=int(rng.integers(1, 5)), replace=False)
        d = rng.choice(levels, n)
        i = rng.permutation(10 * n)[:n].astype(np.int64)
        keep = pickable(d, i, k)
        assert len(set(keep.tolist())) == len(keep)
        assert _picked(d, i, k) == _picked(d[keep], i[keep], k), trial
        assert len(keep) <= min(n, k * len(levels))  # within one distance positions ascend: one per layer
    d = np.full(10_000, 0.5)
    i = rng.permutation(10_000).astype(np.int64)
    keep = pickable(d, i, 3)
    assert i[keep].tolist() == [0, 1, 2]  # 10,000 copies: the three lowest positions


@pytest.mark.slow  # about 3 s
def test_a_tie_window_of_thousands_of_references_is_decided_from_a_few() -> None:
    """2,400 references tied by the tolerance with one another (two values 3e-13 apart, in random order) fill
    the tie window of every shard beyond the longest candidate walk: each shard's candidates are scanned, kept
    to at most 2k per query, and the sharded search still equals one tree."""
    rng = np.random.default_rng(3)
    x = np.where(rng.random(2_400) < 0.5, 0.5, 0.5 + 3e-13)
    T = pd.DataFrame({"x": np.concatenate([x, [0.0, 1.0, 0.9]])})
    S = pd.DataFrame({"x": [0.3, 0.7, 0.5]})
    d = prepare(T, S)
    enc = encode(d, fit(d), SpaceSpec("gower"))
    tree = build_tree(enc, "T")
    choice = SearchChoice("tree", "cpu", "test")
    for k in (1, 3):
        one_d, one_i = knn(tree, enc.num["S"], enc.cat["S"], k=k)
        shards = _shards(enc, "T", 1_201)
        dist, idx = knn_sharded(shards, enc.num["S"], enc.cat["S"], k=k, exclude_self=False, choice=choice)
        assert _same(dist, one_d) and idx.tolist() == one_i.tolist(), k
        sp = np.full(3, -1, dtype=np.int64)
        for a, t in shards:
            c = shard_candidates(t, a, enc.num["S"], enc.cat["S"], sp, one_d[:, k - 1], k)
            counts = np.diff(c.start)
            assert (counts >= 1).all() and (counts <= 2 * k).all(), counts
            assert ((c.idx >= a) & (c.idx < a + t.size)).all()
