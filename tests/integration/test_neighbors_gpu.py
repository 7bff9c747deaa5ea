"""Tests of synthpriv_report.neighbors.gpu: the GPU pipeline (device filter, CPU float64 decision) equals brute
force to the bit in every space.

The kernels' CUDA C source runs everywhere: compiled for the CPU by the host's C++ compiler and launched block by
block with real threads and barriers (``tests/_support/cuda_host.py``), driven by the package's own host code.
Where NVRTC is installed the same sources are compiled for the H100 (sm_90) and checked for spills; where a CUDA
device is
found they run on it through CuPy."""

from __future__ import annotations

import ctypes
import ctypes.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _support.cuda_host import SHARED_LIMIT, HostDevice, compiler
from _support.frames import near_tie_chains

from synthpriv_report.data.preparation import prepare
from synthpriv_report.neighbors import build_tree, gpu, knn, knn_brute
from synthpriv_report.spaces import SpaceSpec, encode, fit, project

HAS_CUDA = gpu.available()
needs_cuda = pytest.mark.skipif(not HAS_CUDA, reason="no CUDA device (or CuPy not installed: the 'gpu' extra)")
needs_cxx = pytest.mark.skipif(compiler() is None, reason="no C++ compiler (g++) to run the kernels on the CPU; "
                               "setup.sh installs one")


def _mixed(n: int, seed: int, wide: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "a": rng.integers(0, 4, n).astype(float),
        "c": rng.choice(list("xyz"), n),
        "d": rng.choice(list("pq"), n, p=[0.8, 0.2]),
        "e": rng.normal(size=n).round(1),
        "f": rng.normal(size=n),
    })
    for j in range(wide):
        df[f"w{j}"] = rng.normal(size=n).round(2) if j % 3 else rng.choice(list("uvw"), n)
    df.loc[rng.choice(n, n // 10, replace=False), "a"] = np.nan
    df.loc[rng.choice(n, n // 20, replace=False), "c"] = None
    dup = rng.choice(n, n // 5, replace=False)
    df.iloc[dup[: len(dup) // 2]] = df.iloc[dup[len(dup) // 2: 2 * (len(dup) // 2)]].to_numpy()
    return df


def _encodings(n_t: int, n_s: int, wide: int = 0) -> dict:
    T, S = _mixed(n_t, 11, wide), _mixed(n_s, 12, wide)
    S.loc[3, "e"] = 4e6  # far outside the real range: the Gower sentinel is not exact for this column
    d = prepare(T, S)
    f = fit(d)
    out = {k: encode(d, f, SpaceSpec(k)) for k in ("gower", "euclidean", "hamming")}
    out["projected"] = project(d, out["euclidean"], SpaceSpec("projected", n_components=3))[0]
    out["weighted"] = encode(d, f, SpaceSpec("euclidean", weights=(("a", 2.0), ("c", 0.5), ("f", 3.0))))
    return out


@pytest.fixture(scope="module")
def encodings():
    # 301 references: two tiles of 256 at these widths, the second a partial one whose length is not a multiple
    # of four; 130 queries: a partial block of 128 threads
    return _encodings(301, 130)


@pytest.fixture(scope="module")
def host(tmp_path_factory) -> HostDevice:
    if compiler() is None:
        pytest.skip("no C++ compiler (g++) to run the kernels on the CPU; setup.sh installs one")
    return HostDevice(tmp_path_factory.mktemp("cuda_host"))


def _check(enc, device, ks=(1, 2, 5)) -> None:
    for q, r in (("S", "T"), ("T", "T")):
        within = q == r
        tree = build_tree(enc, r)
        n = enc.num[q].shape[0]
        self_pos = np.arange(n, dtype=np.int64) if within else np.full(n, -1, dtype=np.int64)
        d_b, i_b = knn_brute(enc, q, r, k=max(ks), exclude_self=within)
        for k in ks:
            d_g, i_g = gpu.knn_cuda(tree, enc.num[q], enc.cat[q], self_pos, k, device=device)
            np.testing.assert_array_equal(i_g, i_b[:, :k], err_msg=f"{q}->{r} k={k}")
            np.testing.assert_array_equal(d_g, d_b[:, :k], err_msg=f"{q}->{r} k={k}")


@pytest.mark.parametrize("kind", ["gower", "euclidean", "hamming", "projected", "weighted"])
def test_kernels_run_on_the_cpu_equal_brute_force(encodings, host, kind: str) -> None:
    before = len(host.launches)
    _check(encodings[kind], host)
    launched = host.launches[before:]
    assert {name for name, *_ in launched} == {"kth_approx", "collect"}
    assert all(block == gpu.THREADS and 0 < shared <= SHARED_LIMIT for _, _, block, shared in launched)


@pytest.mark.parametrize("kind,step,offset", [("gower", 4e-10, 0.0), ("euclidean", 4e-9, 0.05)])
def test_near_tie_chains_are_decided_as_on_the_cpu(host, kind: str, step: float, offset: float) -> None:
    """Distances a tie tolerance apart (tests/unit/neighbors/test_neighbors.py): the GPU path gives brute force's
    answer."""

    d = prepare(near_tie_chains(300, 1, step, 0.0, ["a", "b"]), near_tie_chains(130, 2, step, offset, ["q"]))
    _check(encode(d, fit(d), SpaceSpec(kind)), host, ks=(1, 3))


def test_wide_data_with_a_small_tile_and_many_query_chunks(host, monkeypatch) -> None:
    """40 columns: a tile of 76 references (not a power of two), and chunks of 50 queries."""
    enc = _encodings(400, 170, wide=35)["gower"]
    assert enc.num["T"].shape[1] + enc.cat["T"].shape[1] >= 40
    assert gpu.tile_size(enc.num["T"].shape[1], enc.cat["T"].shape[1]) < 256
    monkeypatch.setattr(gpu, "QUERY_CHUNK", 50)
    _check(enc, host, ks=(1, 3))


def test_each_kernel_result_alone(encodings, host) -> None:
    """Pass 1 gives the k-th smallest single-precision accumulator and pass 2 every reference within the
    threshold, in tree order, self excluded: checked against float32 sums of the same encoding, within the
    rounding of a different summation order."""
    from synthpriv_report.neighbors.tiled import _prepare_queries, _prepare_refs

    enc = encodings["gower"]
    tree = build_tree(enc, "T")
    Rt, Rct, cost32, _ = _prepare_refs(tree)
    Q, Qc, _ = _prepare_queries(tree, enc.num["T"], enc.cat["T"])
    n = enc.num["T"].shape[0]
    Q, Qc = Q[:n], Qc[:n]
    inv = np.empty(tree.size, dtype=np.int64)
    inv[tree.perm] = np.arange(tree.size)
    self_t = inv[np.arange(n)]
    acc = np.zeros((n, tree.size), dtype=np.float64)
    for j in range(Rt.shape[0]):
        acc += np.minimum(np.abs(Q[:, j:j + 1].astype(np.float64) - Rt[j][None, :]), 1.0)
    for j in range(Rct.shape[0]):
        acc += np.where(Qc[:, j:j + 1] != Rct[j][None, :], float(cost32[j]), 0.0)
    acc[np.arange(n), self_t] = np.inf
    kernels = gpu.DeviceKernels(host, Rt, Rct, cost32, tree.mode)
    dq = kernels.queries(Q, Qc, self_t)
    for k in (1, 4):
        kth = kernels.kth(dq, k)
        np.testing.assert_allclose(kth, np.sort(acc, axis=1)[:, k - 1], rtol=1e-5, atol=1e-5)
    thr = np.quantile(acc[np.isfinite(acc)], 0.05) * np.ones(n, dtype=np.float32)
    count, cand = kernels.collect(dq, thr, 8)
    clear = np.abs(acc - thr[:, None]) > 1e-4  # away from the threshold, summation order cannot matter
    for i in range(n):
        want = np.nonzero((acc[i] <= thr[i]) & np.isfinite(acc[i]))[0]
        if clear[i].all():
            assert count[i] == len(want)
            assert cand[i, :min(8, len(want))].tolist() == want[:8].tolist()


def test_heavy_ties_beyond_the_candidate_cap_fall_back_exactly(host) -> None:
    """Every reference identical: all are candidates (more than CAP); the CPU decides by lowest position."""
    T = pd.DataFrame({"x": [1.0] * (gpu.CAP + 40), "c": ["a"] * (gpu.CAP + 40)})
    d = prepare(T, T.iloc[:3])
    enc = encode(d, fit(d), SpaceSpec("gower"))
    tree = build_tree(enc, "T")
    dist, idx = gpu.knn_cuda(tree, enc.num["S"], enc.cat["S"], np.arange(3, dtype=np.int64), 2, device=host)
    assert idx.tolist() == [[1, 2], [0, 2], [0, 1]] and (dist == 0).all()


def test_tile_sizes_fit_shared_memory() -> None:
    for q in range(0, 300, 7):
        for c in range(0, 300, 11):
            tile = gpu.tile_size(q, c)
            assert tile is not None and tile % 4 == 0 and 4 <= tile <= 256
            assert 4 * tile * max(1, q + c) <= SHARED_LIMIT
    assert gpu.tile_size(5000, 0) is None


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


# ---------------------------------------------------------------------------------------------------------------
# the device's compiler, where NVRTC is installed (the CUDA toolkit, or the nvidia-cuda-nvrtc-cu12 wheel)


def _nvrtc():
    candidates = []
    try:
        import nvidia.cuda_nvrtc as pkg  # the pip wheel

        candidates += sorted(Path(list(pkg.__path__)[0], "lib").glob("libnvrtc.so*"))
    except ImportError:
        pass
    found = ctypes.util.find_library("nvrtc")
    if found:
        candidates.append(found)
    for c in candidates:
        try:
            return ctypes.CDLL(str(c))
        except OSError:
            continue
    return None


def _nvrtc_compile(lib, source: str, arch: str) -> tuple[int, str]:
    prog = ctypes.c_void_p()
    assert lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), b"kernels.cu", 0, None, None) == 0
    opts = [b"--std=c++14", f"--gpu-architecture={arch}".encode(), b"--ptxas-options=-v"]
    status = lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    buf = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(prog, buf)
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    return status, buf.value.decode(errors="replace")


@pytest.mark.parametrize("q,c,mode", [(3, 2, 0), (30, 10, 0), (40, 0, 1), (6, 3, 2), (100, 20, 0)])
def test_kernel_source_compiles_for_the_h100_without_spills(q: int, c: int, mode: int) -> None:
    lib = _nvrtc()
    if lib is None:
        pytest.skip("NVRTC not installed (the nvidia-cuda-nvrtc-cu12 wheel or a CUDA toolkit)")
    status, log = _nvrtc_compile(lib, gpu.kernel_source(q, c, mode, gpu.tile_size(q, c)), "sm_90")
    assert status == 0, log
    assert "0 bytes spill stores" in log and "bytes spill stores" in log
    spills = [line for line in log.splitlines() if "spill" in line and not line.strip().endswith("0 bytes spill loads")]
    assert not spills, log


# ---------------------------------------------------------------------------------------------------------------
# a real device


@needs_cuda
@pytest.mark.parametrize("kind", ["gower", "euclidean", "hamming", "projected", "weighted"])
def test_gpu_kernels_equal_brute_force(encodings, kind: str) -> None:
    _check(encodings[kind], gpu.CupyDevice())


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
