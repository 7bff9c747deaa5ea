"""Tests of synthpriv_report.neighbors.gpu: the GPU pipeline (device filter, CPU float64 decision) equals brute
force to the bit in every space. Its logic runs everywhere with a NumPy stand-in for the two device kernels; the
CuPy kernels run only where a CUDA device is found."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthpriv_report.data import prepare
from synthpriv_report.neighbors import build_tree, gpu, knn, knn_brute
from synthpriv_report.spaces import SpaceSpec, encode, fit, project

HAS_CUDA = gpu.available()
needs_cuda = pytest.mark.skipif(not HAS_CUDA, reason="no CUDA device (or CuPy not installed: the 'gpu' extra)")


def _mixed(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "a": rng.integers(0, 4, n).astype(float),
        "c": rng.choice(list("xyz"), n),
        "d": rng.choice(list("pq"), n, p=[0.8, 0.2]),
        "e": rng.normal(size=n).round(1),
    })
    df.loc[rng.choice(n, n // 10, replace=False), "a"] = np.nan
    df.loc[rng.choice(n, n // 20, replace=False), "c"] = None
    dup = rng.choice(n, n // 5, replace=False)
    df.iloc[dup[: len(dup) // 2]] = df.iloc[dup[len(dup) // 2: 2 * (len(dup) // 2)]].to_numpy()
    return df


@pytest.fixture(scope="module")
def encodings():
    T, S = _mixed(300, 11), _mixed(130, 12)
    d = prepare(T, S)
    f = fit(d)
    out = {k: encode(d, f, SpaceSpec(k)) for k in ("gower", "euclidean", "hamming")}
    out["projected"] = project(d, out["euclidean"], SpaceSpec("projected", n_components=3))[0]
    return out


def _check(enc, backend: str) -> None:
    for q, r in (("S", "T"), ("T", "T")):
        within = q == r
        tree = build_tree(enc, r)
        n = enc.num[q].shape[0]
        self_pos = np.arange(n, dtype=np.int64) if within else np.full(n, -1, dtype=np.int64)
        d_b, i_b = knn_brute(enc, q, r, k=5, exclude_self=within)
        for k in (1, 2, 5):
            d_g, i_g = gpu.knn_cuda(tree, np.ascontiguousarray(enc.num[q]), np.ascontiguousarray(enc.cat[q]),
                                    self_pos, k, backend=backend)
            np.testing.assert_array_equal(i_g, i_b[:, :k], err_msg=f"{q}->{r} k={k}")
            np.testing.assert_array_equal(d_g, d_b[:, :k], err_msg=f"{q}->{r} k={k}")


@pytest.mark.parametrize("kind", ["gower", "euclidean", "hamming", "projected"])
def test_gpu_pipeline_with_numpy_kernels_equals_brute_force(encodings, kind: str) -> None:
    _check(encodings[kind], "numpy")


def test_heavy_ties_beyond_the_candidate_cap_fall_back_exactly() -> None:
    """Every reference identical: all are candidates (more than CAP); the CPU decides by lowest position."""
    T = pd.DataFrame({"x": [1.0] * (gpu.CAP + 40), "c": ["a"] * (gpu.CAP + 40)})
    d = prepare(T, T.iloc[:3])
    enc = encode(d, fit(d), SpaceSpec("gower"))
    tree = build_tree(enc, "T")
    dist, idx = gpu.knn_cuda(tree, enc.num["S"], enc.cat["S"], np.arange(3, dtype=np.int64), 2, backend="numpy")
    assert idx.tolist() == [[1, 2], [0, 2], [0, 1]] and (dist == 0).all()


def test_device_auto_falls_back_to_cpu_without_cuda(encodings) -> None:
    if HAS_CUDA:
        pytest.skip("a CUDA device is present")
    enc = encodings["gower"]
    tree = build_tree(enc, "T")
    info: dict = {}
    d_a, i_a = knn(tree, enc.num["S"], enc.cat["S"], k=2, device="auto", info=info)
    assert info["choice"].device == "cpu"
    d_b, i_b = knn_brute(enc, "S", "T", k=2)
    np.testing.assert_array_equal(i_a, i_b)
    np.testing.assert_array_equal(d_a, d_b)
    with pytest.raises(RuntimeError, match="CUDA"):
        knn(tree, enc.num["S"], enc.cat["S"], k=2, device="cuda")


@needs_cuda
@pytest.mark.parametrize("kind", ["gower", "euclidean", "hamming", "projected"])
def test_gpu_kernels_equal_brute_force(encodings, kind: str) -> None:
    _check(encodings[kind], "cupy")


@needs_cuda
def test_knn_device_cuda_records_the_choice(encodings) -> None:
    enc = encodings["euclidean"]
    tree = build_tree(enc, "T")
    info: dict = {}
    d_g, i_g = knn(tree, enc.num["S"], enc.cat["S"], k=3, device="cuda", info=info)
    assert info["choice"].device == "cuda"
    d_c, i_c = knn(tree, enc.num["S"], enc.cat["S"], k=3, engine="tree")
    np.testing.assert_array_equal(i_g, i_c)
    np.testing.assert_array_equal(d_g, d_c)
