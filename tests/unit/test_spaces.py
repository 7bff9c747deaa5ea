"""Tests of synthpriv_report.spaces: the distance spaces of docs/metrics.md, checked on hand-computed distances."""

from __future__ import annotations

import math
import os

import numpy as np
import pandas as pd
import pytest

from synthpriv_report.data.preparation import prepare
from synthpriv_report.neighbors import knn_brute, pair_distances
from synthpriv_report.spaces import (
    MODE_GOWER,
    MODE_HAMMING,
    MODE_L2,
    SpaceSpec,
    as_space,
    embed,
    encode,
    fit,
    project,
)

# T:  x = 0, 10, 4        c = a, b, a
# H:  x = 2, NaN          c = b, a
# S:  x = 30, NaN         c = c, a
# Real range of x (T ∪ H, finite) = [0, 10] -> x' = x / 10. S's 30 never enters the scale.
T = pd.DataFrame({"x": [0.0, 10.0, 4.0], "c": ["a", "b", "a"]})
H = pd.DataFrame({"x": [2.0, np.nan], "c": ["b", "a"]})
S = pd.DataFrame({"x": [30.0, np.nan], "c": ["c", "a"]})


def _enc(kind: str, t=T, s=S, h=H, **kw):
    d = prepare(t, s, h)
    return d, encode(d, fit(d), SpaceSpec(kind, **kw))


def _d(enc, a, i, b, j) -> float:
    return float(pair_distances(enc, a, np.array([i]), b, np.array([j]))[0])


def test_fit_uses_real_data_only() -> None:
    d = prepare(T, S, H)
    f = fit(d)
    assert f.num_min.tolist() == [0.0] and f.num_range.tolist() == [10.0]
    # levels are the union over every set (S's unseen 'c' included), sorted
    assert f.levels[0].tolist() == ["a", "b", "c"]
    assert f.codes["S"].ravel().tolist() == [2, 0]
    # x has a missing value in some set -> euclidean gets a missing indicator
    assert f.has_missing.tolist() == [True]


def test_fit_reads_the_numbers_in_blocks_and_finds_the_same_ranges(monkeypatch) -> None:
    """The ranges and the columns with missing values are found block by block of each set: with blocks of one,
    two and three records, the same numbers as from whole columns (a block of missing values alone included)."""
    from synthpriv_report import spaces as spaces_module

    t = pd.DataFrame({"x": [np.nan, 4.0, -2.0, 7.5, np.nan], "y": [1.0, 1.0, 3.0, 2.0, 0.5], "c": list("abaab")})
    h = pd.DataFrame({"x": [9.0, np.nan], "y": [-1.0, 0.0], "c": ["a", "c"]})
    s = pd.DataFrame({"x": [1.0, 2.0, 3.0], "y": [np.nan, 2.0, 2.0], "c": list("abc")})
    whole = fit(prepare(t, s, h))
    for block in (1, 4, 6):  # at most this many numbers a block of records: one record, two, three
        monkeypatch.setattr(spaces_module, "FIT_BLOCK_ROWS", block)
        f = fit(prepare(t, s, h))
        assert f.num_min.tolist() == whole.num_min.tolist() == [-2.0, -1.0]
        assert f.num_range.tolist() == whole.num_range.tolist() == [11.0, 4.0]
        assert f.has_missing.tolist() == whole.has_missing.tolist() == [True, True]


def test_far_synthetic_value_does_not_change_scale() -> None:
    S_far = S.assign(x=[3000.0, np.nan])
    _, e1 = _enc("gower")
    _, e2 = _enc("gower", s=S_far)
    for s in ("T", "H"):
        np.testing.assert_array_equal(e1.num[s], e2.num[s])
    assert _d(e1, "T", 0, "T", 2) == _d(e2, "T", 0, "T", 2)


def test_holdout_range_enters_the_scale() -> None:
    # H x = 2, 20 -> real range [0, 20]; gower d(T0, T2) = (|0 - 4| / 20 + 0) / 2 = 0.1
    _, e = _enc("gower", h=pd.DataFrame({"x": [2.0, 20.0], "c": ["b", "a"]}))
    assert _d(e, "T", 0, "T", 2) == pytest.approx(0.1)
    # without H the range is [0, 10]: (0.4 + 0) / 2 = 0.2
    d = prepare(T, S)
    e = encode(d, fit(d), SpaceSpec("gower"))
    assert _d(e, "T", 0, "T", 2) == pytest.approx(0.2)


def test_gower_by_hand() -> None:
    _, e = _enc("gower")
    assert e.mode == MODE_GOWER and e.scale == 0.5
    # d(T0, T1) = (min(1, |0 - 1|) + 1[a != b]) / 2 = (1 + 1) / 2 = 1
    assert _d(e, "T", 0, "T", 1) == pytest.approx(1.0)
    # d(T0, T2) = (0.4 + 0) / 2 = 0.2
    assert _d(e, "T", 0, "T", 2) == pytest.approx(0.2)
    # d(S0, T2): x' = 3 vs 0.4 -> |2.6| capped at 1; c: c != a -> 1; (1 + 1) / 2 = 1
    assert _d(e, "S", 0, "T", 2) == pytest.approx(1.0)
    # d(S1, T2): one missing -> 1; a == a -> 0; 1 / 2 = 0.5
    assert _d(e, "S", 1, "T", 2) == pytest.approx(0.5)
    # d(S1, H1): both missing -> 0; a == a -> 0; 0
    assert _d(e, "S", 1, "H", 1) == 0.0
    # d(H0, T2): |0.2 - 0.4| = 0.2; b != a -> 1; (0.2 + 1) / 2 = 0.6
    assert _d(e, "H", 0, "T", 2) == pytest.approx(0.6)


def test_euclidean_by_hand() -> None:
    _, e = _enc("euclidean")
    assert e.mode == MODE_L2
    # embedding: [x' (missing := 0), missing indicator of x, one-hot c over (a, b, c)]
    np.testing.assert_allclose(embed(e, "S"), [[3.0, 0.0, 0.0, 0.0, 1.0], [0.0, 1.0, 1.0, 0.0, 0.0]])
    np.testing.assert_allclose(embed(e, "T"), [[0.0, 0, 1, 0, 0], [1.0, 0, 0, 1, 0], [0.4, 0, 1, 0, 0]])
    # d(S0, T1): x' 3 vs 1 -> diff 2 (not capped) -> 4; indicators equal; c != b -> +2; d = sqrt(6)
    assert _d(e, "S", 0, "T", 1) == pytest.approx(math.sqrt(6.0))
    # d(S1, T2): 0 vs 0.4 -> 0.16; indicator 1 vs 0 -> 1; a == a; d = sqrt(1.16)
    assert _d(e, "S", 1, "T", 2) == pytest.approx(math.sqrt(1.16))
    # d(T0, T1): 1 + 2 = 3 -> sqrt(3): a category mismatch adds 2 to d^2
    assert _d(e, "T", 0, "T", 1) == pytest.approx(math.sqrt(3.0))
    # the dense embedding's squared distances equal the compact ones
    ES, ET = embed(e, "S"), embed(e, "T")
    assert float(np.sum((ES[0] - ET[1]) ** 2)) == pytest.approx(6.0)


def test_euclidean_without_missing_has_no_indicator() -> None:
    t = pd.DataFrame({"x": [0.0, 5.0, 10.0], "c": ["a", "b", "a"]})
    d = prepare(t, t.copy())
    e = encode(d, fit(d), SpaceSpec("euclidean"))
    assert e.num["T"].shape == (3, 1)
    assert embed(e, "T").shape == (3, 3)


def test_weighted_and_restricted_spaces() -> None:
    # weights (x: 2, c: 1): d^2 = 2^2 (dx')^2 + 2 * 1^2 1[c differs]; d(T0, T2)^2 = 4 * 0.16 = 0.64
    _, e = _enc("euclidean", weights=(("x", 2.0), ("c", 1.0)))
    assert _d(e, "T", 0, "T", 2) == pytest.approx(0.8)
    # d(T0, T1)^2 = 4 * 1 + 2 = 6
    assert _d(e, "T", 0, "T", 1) == pytest.approx(math.sqrt(6.0))
    # restricted to c: gower over one column
    _, e = _enc("gower", columns=("c",))
    assert _d(e, "T", 0, "T", 2) == 0.0 and _d(e, "T", 0, "T", 1) == 1.0
    with pytest.raises(ValueError, match="'nope'"):
        _enc("gower", columns=("nope",))


def test_hamming_by_hand() -> None:
    t = pd.DataFrame({"x": [1.0, 2.0, 2.0, np.nan], "c": ["a", "a", "b", "b"]})
    s = pd.DataFrame({"x": [np.nan, 2.0000001], "c": ["b", "b"]})
    d = prepare(t, s)
    e = encode(d, fit(d), SpaceSpec("hamming"))
    assert e.mode == MODE_HAMMING and e.integer_valued
    assert _d(e, "T", 0, "T", 1) == 1.0  # x differs
    assert _d(e, "T", 0, "T", 2) == 2.0  # both differ
    assert _d(e, "S", 0, "T", 3) == 0.0  # missing equals missing, b == b
    assert _d(e, "S", 1, "T", 2) == 1.0  # 2.0000001 != 2.0 exactly


def test_projected_rank_one_by_hand() -> None:
    # y = 2x, so x' = y' and the embedding lies on one line: one component explains 100%
    t = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0], "y": [0.0, 2.0, 4.0, 6.0]})
    s = t.iloc[[3, 0, 0]].reset_index(drop=True)
    d = prepare(t, s)
    f = fit(d)
    eu = encode(d, f, SpaceSpec("euclidean"))
    enc, proj = project(d, eu, SpaceSpec("projected"))
    assert proj.n_components == 1
    assert proj.explained_variance_ratio[0] == pytest.approx(1.0)
    # d(T0, T3): embeddings (0, 0) and (1, 1); the line holds both, so the projected distance is sqrt(2)
    assert _d(enc, "T", 0, "T", 3) == pytest.approx(math.sqrt(2.0))
    # identical records map to identical coordinates
    np.testing.assert_array_equal(enc.num["S"][0], enc.num["T"][3])
    np.testing.assert_array_equal(enc.num["S"][1], enc.num["T"][0])
    np.testing.assert_array_equal(enc.num["S"][1], enc.num["S"][2])


def test_projected_components_rule_matches_numpy_svd() -> None:
    rng = np.random.default_rng(3)
    n = 60
    z = rng.normal(size=n)
    t = pd.DataFrame({"a": z, "b": z + 0.05 * rng.normal(size=n), "c": rng.normal(size=n) * 0.2,
                      "k": rng.choice(list("pq"), n)})
    d = prepare(t, t.sample(frac=1.0, random_state=0).reset_index(drop=True))
    eu = encode(d, fit(d), SpaceSpec("euclidean"))
    # independent computation: centred embedding of T, exact SVD, smallest k with cumulative ratio >= 0.95
    X = embed(eu, "T")
    sv = np.linalg.svd(X - X.mean(axis=0), compute_uv=False)
    ratio = sv ** 2 / np.sum(sv ** 2)
    k95 = int(np.argmax(np.cumsum(ratio) >= 0.95)) + 1
    enc, proj = project(d, eu, SpaceSpec("projected"))
    assert proj.n_components == k95 and enc.num["T"].shape[1] == k95
    np.testing.assert_allclose(proj.explained_variance_ratio, ratio, atol=1e-12)
    enc2, proj2 = project(d, eu, SpaceSpec("projected", n_components=2))
    assert proj2.n_components == 2 and enc2.num["S"].shape == (n, 2)
    # all components: distances equal the euclidean ones (a rotation)
    full = X.shape[1]
    enc_f, _ = project(d, eu, SpaceSpec("projected", n_components=full))
    i, j = np.arange(10), np.arange(10, 20)
    np.testing.assert_allclose(pair_distances(enc_f, "T", i, "S", j), pair_distances(eu, "T", i, "S", j),
                               atol=1e-9)
    with pytest.raises(ValueError, match="n_components"):
        project(d, eu, SpaceSpec("projected", n_components=full + 5))
    with pytest.raises(ValueError, match="n_components"):
        project(d, eu, SpaceSpec("projected", n_components=1.5))


def test_projected_fitted_without_synthetic() -> None:
    t = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0], "y": [0.0, 2.0, 4.0, 6.0]})
    s1 = pd.DataFrame({"x": [0.0, 3.0], "y": [6.0, 0.0]})
    s2 = pd.DataFrame({"x": [100.0, -50.0], "y": [6.0, 0.0]})
    out = []
    for s in (s1, s2):
        d = prepare(t, s)
        _, proj = project(d, encode(d, fit(d), SpaceSpec("euclidean")), SpaceSpec("projected"))
        out.append(proj)
    np.testing.assert_array_equal(out[0].components, out[1].components)
    np.testing.assert_array_equal(out[0].mean, out[1].mean)


def test_brute_force_agrees_with_hand_gower() -> None:
    _, e = _enc("gower")
    dist, idx = knn_brute(e, "S", "T", k=3)
    # S1 to T: T0 (1 + 0)/2 = 0.5, T1 (1 + 1)/2 = 1, T2 0.5 -> order T0, T2 (tie, lower position first), T1
    assert idx[1].tolist() == [0, 2, 1]
    np.testing.assert_allclose(dist[1], [0.5, 0.5, 1.0])


def test_as_space_names() -> None:
    assert as_space("gower") == SpaceSpec("gower")
    assert as_space(SpaceSpec("hamming")).kind == "hamming"
    with pytest.raises(ValueError, match="unknown space 'manhattan'"):
        as_space("manhattan")
    assert SpaceSpec("euclidean", columns=("a", "b")).label == "euclidean[a,b]"


def test_rescale_is_the_plain_formula_where_it_is_finite_and_never_overflows() -> None:
    """(x - min) / range for ordinary values; the halved form (same number) where x - min or the range exceed the
    float64 range; clipped to SCALED_LIMIT; NaN stays NaN."""
    from synthpriv_report.spaces import SCALED_LIMIT

    d = prepare(T, S, H)
    f = fit(d)
    x = np.array([[0.0], [2.5], [10.0], [np.nan], [1e300], [-1e300]])
    out = f.rescale(x)
    assert out[:3, 0].tolist() == [0.0, 0.25, 1.0] and np.isnan(out[3, 0])
    assert out[4:, 0].tolist() == [SCALED_LIMIT, -SCALED_LIMIT]
    big = np.finfo(np.float64).max
    d = prepare(pd.DataFrame({"x": [-big, big]}), pd.DataFrame({"x": [0.0, big / 2]}))
    f = fit(d)
    assert np.isinf(f.num_range[0]) and f.num_half_range[0] == big
    assert f.rescale(d.numeric["S"]).ravel().tolist() == [0.5, 0.75]


def test_levels_equal_numpy_unique_order_for_ordinary_strings() -> None:
    rng = np.random.default_rng(0)
    vals = rng.choice(["b", "a", "Z", "é", "a b", "10", "9", "\x01"], 200)
    d = prepare(pd.DataFrame({"c": vals}), pd.DataFrame({"c": vals[::-1].copy()}))
    f = fit(d)
    lv, inv = np.unique(np.concatenate([vals, vals[::-1]]), return_inverse=True)
    assert f.levels[0].tolist() == lv.tolist()
    assert f.codes["T"][:, 0].tolist() == inv[:200].tolist()


def test_embedding_of_rows_equals_rows_of_the_embedding() -> None:
    rng = np.random.default_rng(2)
    t = pd.DataFrame({"a": rng.normal(size=30), "k": rng.choice(list("pqr"), 30), "m": rng.choice(list("uv"), 30)})
    d = prepare(t, t.iloc[::-1].reset_index(drop=True))
    eu = encode(d, fit(d), SpaceSpec("euclidean"))
    rows = np.array([5, 0, 29, 5])
    np.testing.assert_array_equal(embed(eu, "S", rows), embed(eu, "S")[rows])


def test_embedding_equals_its_blocks_side_by_side() -> None:
    """The embedding is written in place; it equals, bit for bit, the weighted numbers beside one one-hot block per
    categorical column (sqrt(cost / 2) at each record's code)."""
    rng = np.random.default_rng(3)
    n = 40
    t = pd.DataFrame({"a": rng.normal(size=n), "b": rng.integers(0, 5, n).astype(float),
                      "k": rng.choice(list("pqr"), n), "m": rng.choice(list("uvwxyz"), n)})
    d = prepare(t, t.sample(frac=1.0, random_state=0).reset_index(drop=True))
    eu = encode(d, fit(d), SpaceSpec("euclidean", weights={"a": 2.0, "k": 3.0}))
    for s in ("T", "S"):
        num, codes = eu.num[s], eu.cat[s]
        blocks = [num * np.sqrt(eu.num_weight)]
        for j in range(codes.shape[1]):
            block = np.zeros((n, int(eu.n_codes[j])))
            block[np.arange(n), codes[:, j]] = np.sqrt(eu.cat_cost[j] / 2.0)
            blocks.append(block)
        got = embed(eu, s)
        assert got.flags.c_contiguous
        np.testing.assert_array_equal(got.view(np.int64), np.concatenate(blocks, axis=1).view(np.int64))


def test_projection_in_blocks_equals_the_svd_of_the_whole_embedding(monkeypatch) -> None:
    """The PCA runs block by block (mean, then R of a QR accumulated over blocks): the same explained variance
    and the same distances as the SVD of the whole centred real embedding; identical records, even in different
    sets and blocks, get identical coordinates."""
    import synthpriv_report.spaces as sp

    monkeypatch.setattr(sp, "PROJECT_BLOCK", 7)
    rng = np.random.default_rng(4)
    n = 50
    z = rng.normal(size=n)
    t = pd.DataFrame({"a": z, "b": z + 0.1 * rng.normal(size=n), "k": rng.choice(list("pqrs"), n)})
    h = t.sample(frac=1.0, random_state=1).reset_index(drop=True)
    s = pd.concat([t.iloc[:20], h.iloc[:5]], ignore_index=True)
    d = prepare(t, s, h)
    eu = encode(d, fit(d), SpaceSpec("euclidean"))
    X = np.concatenate([embed(eu, "T"), embed(eu, "H")])
    Xc = X - X.mean(axis=0)
    _, sv, vt = np.linalg.svd(Xc, full_matrices=False)
    enc, proj = project(d, eu, SpaceSpec("projected", n_components=3))
    np.testing.assert_allclose(proj.explained_variance_ratio, sv ** 2 / np.sum(sv ** 2), atol=1e-12)
    np.testing.assert_allclose(proj.mean, X.mean(axis=0), atol=1e-12)
    # the components up to their signs
    np.testing.assert_allclose(np.abs(proj.components), np.abs(vt[:3]), atol=1e-9)
    expected = (embed(eu, "S") - X.mean(axis=0)) @ vt[:3].T
    np.testing.assert_allclose(np.abs(enc.num["S"]), np.abs(expected), atol=1e-9)
    # H is T shuffled and S copies rows of T and H: identical records, identical coordinates, bit for bit
    for i in range(20):
        np.testing.assert_array_equal(enc.num["S"][i], enc.num["T"][i])
    for i in range(5):
        j = int(np.flatnonzero((t == h.iloc[i]).all(axis=1))[0])  # the record of T that H[i] is
        np.testing.assert_array_equal(enc.num["S"][20 + i], enc.num["H"][i])
        np.testing.assert_array_equal(enc.num["H"][i], enc.num["T"][j])


def test_projection_of_an_identifier_like_column_is_a_clear_error(monkeypatch) -> None:
    import synthpriv_report.spaces as sp

    t = pd.DataFrame({"user id": [f"u{i}" for i in range(50)], "x": np.arange(50.0)})
    d = prepare(t, t.copy())
    eu = encode(d, fit(d), SpaceSpec("euclidean"))
    monkeypatch.setattr(sp, "MAX_EMBEDDING_VALUES", 1000)
    with pytest.raises(ValueError, match=r"'user id'.*50 categories.*exclude"):
        project(d, eu, SpaceSpec("projected"))


@pytest.mark.parametrize("spec", [SpaceSpec("gower"), SpaceSpec("euclidean"),
                                  SpaceSpec("euclidean", weights=(("x", 2.0), ("c", 0.5), ("y", 0.0)))])
def test_encoded_rows_are_the_rows_of_the_whole_sets_encoding(spec):
    """Any rows of a set made on their own (a slice, positions in any order, a subset) are bit for bit those of
    the whole set's encoding, missing values and their indicators included; the header holds the same weights."""
    from synthpriv_report.spaces import EncodedRows, encoded_codes, encoded_numbers, encoding_header

    T = pd.DataFrame({"x": [0.0, 10.0, np.nan, 2.5, 7.0, 1.0], "y": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
                      "c": ["a", "b", "a", None, "c", "b"]})
    S = pd.DataFrame({"x": [20.0, -5.0, 3.0, np.nan], "y": [0.5, 9.0, 1.0, 2.0], "c": ["c", "a", "d", "a"]})
    d = prepare(T, S)
    fitted = fit(d)
    whole = encode(d, fitted, spec)
    header = encoding_header(d, fitted, spec)
    for field in ("mode", "scale", "cat_columns"):
        assert getattr(header, field) == getattr(whole, field)
    for field in ("num_weight", "cat_cost", "n_codes"):
        assert np.array_equal(getattr(header, field), getattr(whole, field))
    subset = np.array([3, 0, 5], dtype=np.int64)
    for s in ("T", "S"):
        n = d.sizes[s]
        num = EncodedRows(lambda at, s=s: encoded_numbers(d, fitted, header, s, at), n)
        cat = EncodedRows(lambda at, s=s: encoded_codes(d, fitted, header, s, at), n)
        assert num.shape == (n,) and len(cat) == n
        for at in (slice(None), slice(1, 3), np.array([2, 0, 1]), np.arange(n)[::-1]):
            assert np.array_equal(num[at].view(np.uint8), whole.num[s][at].view(np.uint8))
            assert num[at].flags.c_contiguous and num[at].dtype == np.float64
            assert np.array_equal(cat[at], whole.cat[s][at]) and cat[at].dtype == np.int64
    part = EncodedRows(lambda at: encoded_numbers(d, fitted, header, "T", at), d.sizes["T"], subset)
    assert part.shape == (3,)
    assert np.array_equal(part[1:].view(np.uint8), whole.num["T"][subset[1:]].view(np.uint8))
    assert np.array_equal(part[np.array([2])].view(np.uint8), whole.num["T"][[5]].view(np.uint8))


@pytest.mark.slow
@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="one core: BLAS runs on one thread, nothing to compare")
def test_projection_does_not_depend_on_the_number_of_blas_threads() -> None:
    """The same records give the same projected coordinates, bit for bit, whether the caller's BLAS runs on one
    thread or on two: a multithreaded QR factorisation splits its updates by thread and rounds differently."""
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(7)
    n, m = 40_000, 12_000

    def frame(k: int) -> pd.DataFrame:
        cols = {f"x{j}": rng.normal(size=k) * (j + 1) for j in range(12)}
        cols.update({f"c{j}": rng.choice([f"v{i}" for i in range(8)], k) for j in range(8)})
        return pd.DataFrame(cols)

    t, s, h = frame(n), frame(m), frame(m)
    d = prepare(t, s, h)
    eu = encode(d, fit(d), SpaceSpec("euclidean"))
    out = []
    for threads in (1, 2):
        with threadpool_limits(limits=threads, user_api="blas"):
            enc, proj = project(d, eu, SpaceSpec("projected"))
        out.append((proj.components, enc.num["S"]))
    for a, b in zip(out[0], out[1]):
        assert a.shape == b.shape
        assert np.array_equal(a.view(np.int64), b.view(np.int64))
