"""Exact k-NN on a CUDA device (CuPy raw kernels; the optional ``gpu`` extra, imported only when asked for).

The device filters, the CPU decides, so the numbers are the CPU engines' to the bit:

1. pass 1, one GPU thread per query: the single-precision accumulator of every reference (the tiled kernel's
   encoding and arithmetic, :mod:`.tiled`: float32 values, int32 codes, the Gower sentinel for missing values;
   references staged through shared memory in tiles) and the k-th smallest of them, A_k (the query itself
   excluded by position);
2. on the CPU: the threshold T = slack(dist(A_k + margin)) + margin. The exact k-th accumulator is at most
   A_k + margin (the k references at A_k are within the margin of their float64 values), so every reference
   that can be among the exact k nearest or tie with the k-th has a single-precision accumulator <= T;
3. pass 2 on the GPU: the references with accumulator <= T, up to :data:`CAP` per query;
4. on the CPU: the float64 accumulator of every candidate by :func:`.kernels._acc` and the k-best insertion with
   the tie rule (:func:`.kernels._offer`). Queries with more than :data:`CAP` candidates (heavy ties) are searched
   again by the CPU tiled kernel.

No float64 arithmetic runs on the device (consumer GPUs are slow at it, and its contraction into fused
multiply-adds would change the last bit). Untested on real hardware in the project's CI (no CUDA device there):
``tests/test_neighbors_gpu.py`` runs the same pipeline with a NumPy stand-in for the two kernels everywhere, and
the CuPy kernels where a device is found.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange
from numpy.typing import NDArray

from .kernels import _acc, _offer, _slack, _to_dist
from .tiled import (
    _SENTINEL_SAFE,
    _prepare_queries,
    _prepare_refs,
    approx_margin,
    knn_tiled,
)
from .tree import RefTree

#: Candidates kept per query by pass 2 (more: the query is searched again on the CPU).
CAP = 64
#: Largest k the device's per-thread k-best list holds (larger k: the CPU tiled kernel runs).
MAX_K = 64
#: Queries per device call (bounds the candidate buffer: QUERY_CHUNK x CAP int32).
QUERY_CHUNK = 1 << 16
_THREADS = 128

_SOURCE = r"""
#define MAX_K %(max_k)d
extern "C" {

__device__ __forceinline__ float approx(const float* Qt, const int* Qct, const float* sR, const int* sC,
                                        const float* cost, long long n, int i, int tl, int tile, int q, int c,
                                        int mode) {
    float acc = 0.0f;
    if (mode == 0) {
        for (int j = 0; j < q; j++) acc += fminf(fabsf(Qt[j * n + i] - sR[j * tile + tl]), 1.0f);
    } else {
        for (int j = 0; j < q; j++) { float d = Qt[j * n + i] - sR[j * tile + tl]; acc += d * d; }
    }
    for (int j = 0; j < c; j++) acc += (Qct[j * n + i] != sC[j * tile + tl]) ? cost[j] : 0.0f;
    return acc;
}

// Stage references t0 .. t0 + tile - 1 (columns of Rt / Rct) in shared memory.
__device__ __forceinline__ void stage(const float* Rt, const int* Rct, float* sR, int* sC, long long m, int t0,
                                      int tile, int q, int c) {
    for (int x = threadIdx.x; x < tile * q; x += blockDim.x) {
        int j = x / tile, tl = x %% tile;
        sR[x] = (t0 + tl < m) ? Rt[j * m + t0 + tl] : 0.0f;
    }
    for (int x = threadIdx.x; x < tile * c; x += blockDim.x) {
        int j = x / tile, tl = x %% tile;
        sC[x] = (t0 + tl < m) ? Rct[j * m + t0 + tl] : 0;
    }
}

// Pass 1: the k-th smallest single-precision accumulator of each query (self excluded by tree position).
__global__ void kth_approx(const float* Qt, const int* Qct, const float* Rt, const int* Rct, const float* cost,
                           const long long* self_t, long long n, long long m, int q, int c, int mode, int k,
                           int tile, float* kth) {
    extern __shared__ float shared[];
    float* sR = shared;
    int* sC = (int*)(shared + tile * q);
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    bool active = i < n;
    float best[MAX_K];
    for (int x = 0; x < k; x++) best[x] = __int_as_float(0x7f800000);  // +inf
    long long st = active ? self_t[i] : -1;
    for (long long t0 = 0; t0 < m; t0 += tile) {
        __syncthreads();
        stage(Rt, Rct, sR, sC, m, (int)t0, tile, q, c);
        __syncthreads();
        if (!active) continue;
        int nt = (m - t0 < tile) ? (int)(m - t0) : tile;
        for (int tl = 0; tl < nt; tl++) {
            if (t0 + tl == st) continue;
            float a = approx(Qt, Qct, sR, sC, cost, n, (int)i, tl, tile, q, c, mode);
            if (a < best[k - 1]) {
                int p = k - 1;
                while (p > 0 && a < best[p - 1]) { best[p] = best[p - 1]; p--; }
                best[p] = a;
            }
        }
    }
    if (active) kth[i] = best[k - 1];
}

// Pass 2: the references whose single-precision accumulator is <= thr[i] (self excluded), up to cap per query.
__global__ void collect(const float* Qt, const int* Qct, const float* Rt, const int* Rct, const float* cost,
                        const long long* self_t, long long n, long long m, int q, int c, int mode, int tile,
                        const float* thr, int cap, int* count, int* cand) {
    extern __shared__ float shared[];
    float* sR = shared;
    int* sC = (int*)(shared + tile * q);
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    bool active = i < n;
    long long st = active ? self_t[i] : -1;
    float T = active ? thr[i] : 0.0f;
    int cnt = 0;
    for (long long t0 = 0; t0 < m; t0 += tile) {
        __syncthreads();
        stage(Rt, Rct, sR, sC, m, (int)t0, tile, q, c);
        __syncthreads();
        if (!active) continue;
        int nt = (m - t0 < tile) ? (int)(m - t0) : tile;
        for (int tl = 0; tl < nt; tl++) {
            if (t0 + tl == st) continue;
            float a = approx(Qt, Qct, sR, sC, cost, n, (int)i, tl, tile, q, c, mode);
            if (a <= T) {
                if (cnt < cap) cand[i * cap + cnt] = (int)(t0 + tl);
                cnt++;
            }
        }
    }
    if (active) count[i] = cnt;
}

}
"""


def available() -> bool:
    """Whether CuPy is installed and sees a CUDA device (never raises)."""
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


_MODULE = None


def _module():
    global _MODULE
    if _MODULE is None:
        import cupy

        _MODULE = cupy.RawModule(code=_SOURCE % {"max_k": MAX_K}, options=("--std=c++11",))
    return _MODULE


@njit(cache=True, parallel=True)
def _refine(qnum, qcat, self_pos, k, tr, count, cand, cap, out_d, out_i):
    """Exact k best of each query among its candidates (tree positions), by :func:`_acc` and :func:`_offer`;
    queries with more than ``cap`` candidates are left for the CPU tiled kernel."""
    mode, rnum, rcat, perm, w, cost, scale, exact = tr.mode, tr.num, tr.cat, tr.perm, tr.w, tr.cost, tr.scale, tr.exact
    n = qnum.shape[0]
    for qi in prange(n):
        if count[qi] > cap:
            continue
        out_t = np.full(k, -1, dtype=np.int64)
        c = 0
        bound = np.inf
        for x in range(count[qi]):
            t = cand[qi, x]
            ridx = perm[t]
            if ridx == self_pos[qi]:
                continue
            a = _acc(mode, qnum[qi], qcat[qi], rnum, rcat, t, w, cost)
            c, bound = _offer(qi, t, ridx, a, c, k, bound, mode, scale, exact, out_d, out_i, out_t)


@njit(cache=True)
def _thresholds(kth, margin, mode, scale, exact):
    """T = slack(dist(A_k + margin)) + margin per query, nudged up to a float32 value (see the module docstring)."""
    n = kth.shape[0]
    out = np.empty(n, dtype=np.float32)
    for i in range(n):
        a = np.float64(kth[i])
        if not np.isfinite(a) or not np.isfinite(margin[i]):
            out[i] = np.float32(np.inf)
            continue
        x = (a + margin[i]) * (1.0 + 2.0 ** -40)
        t = _slack(mode, _to_dist(mode, x, scale), scale, exact) + margin[i]
        out[i] = np.float32(t * (1.0 + 2.0 ** -21) + 1e-38)
    return out


class _NumpyKernels:
    """NumPy stand-in for the two device kernels (the same float32 arithmetic, in any order): lets the pipeline
    be tested where no CUDA device exists."""

    def __init__(self, Rt, Rct, cost32, mode):
        self.Rt, self.Rct, self.cost32, self.mode = Rt, Rct, cost32, mode

    def _acc32(self, Q, Qc):
        a = np.zeros((Q.shape[0], self.Rt.shape[1]), dtype=np.float32)
        for j in range(self.Rt.shape[0]):
            d = Q[:, j:j + 1] - self.Rt[j][None, :]
            a += np.minimum(np.abs(d), np.float32(1.0)) if self.mode == 0 else d * d
        for j in range(self.Rct.shape[0]):
            a += np.where(Qc[:, j:j + 1] != self.Rct[j][None, :], self.cost32[j], np.float32(0.0))
        return a

    def kth(self, Q, Qc, self_t, k):
        a = self._acc32(Q, Qc)
        rows = np.nonzero(self_t >= 0)[0]
        a[rows, self_t[rows]] = np.inf
        kk = min(k, a.shape[1])
        kth = np.partition(a, kk - 1, axis=1)[:, kk - 1] if kk > 0 else np.full(a.shape[0], np.inf)
        return kth.astype(np.float32) if kk == k else np.full(a.shape[0], np.inf, dtype=np.float32)

    def collect(self, Q, Qc, self_t, thr, cap):
        a = self._acc32(Q, Qc)
        rows = np.nonzero(self_t >= 0)[0]
        a[rows, self_t[rows]] = np.inf
        ok = a <= thr[:, None]
        count = ok.sum(axis=1).astype(np.int32)
        cand = np.zeros((Q.shape[0], cap), dtype=np.int32)
        for i in range(Q.shape[0]):
            c = np.nonzero(ok[i])[0][:cap]
            cand[i, :len(c)] = c
        return count, cand


class _CupyKernels:
    def __init__(self, Rt, Rct, cost32, mode):
        import cupy as cp

        self.cp = cp
        self.mode = mode
        self.q, self.m = Rt.shape
        self.c = Rct.shape[0]
        self.Rt = cp.asarray(Rt)
        self.Rct = cp.asarray(Rct)
        self.cost = cp.asarray(cost32)
        cols = max(1, self.q + self.c)
        self.tile = int(max(1, min(256, (40 * 1024) // (4 * cols))))
        self.shared = 4 * self.tile * cols
        mod = _module()
        self.k_kth = mod.get_function("kth_approx")
        self.k_collect = mod.get_function("collect")

    def _args(self, Q, Qc, self_t):
        cp = self.cp
        return (cp.asarray(np.ascontiguousarray(Q.T)), cp.asarray(np.ascontiguousarray(Qc.T)),
                cp.asarray(self_t.astype(np.int64)))

    def kth(self, Q, Qc, self_t, k):
        cp = self.cp
        n = Q.shape[0]
        Qt, Qct, st = self._args(Q, Qc, self_t)
        out = cp.empty(n, dtype=cp.float32)
        grid = ((n + _THREADS - 1) // _THREADS,)
        self.k_kth(grid, (_THREADS,), (Qt, Qct, self.Rt, self.Rct, self.cost, st, np.int64(n), np.int64(self.m),
                                       np.int32(self.q), np.int32(self.c), np.int32(self.mode), np.int32(k),
                                       np.int32(self.tile), out), shared_mem=self.shared)
        return cp.asnumpy(out)

    def collect(self, Q, Qc, self_t, thr, cap):
        cp = self.cp
        n = Q.shape[0]
        Qt, Qct, st = self._args(Q, Qc, self_t)
        count = cp.zeros(n, dtype=cp.int32)
        cand = cp.zeros((n, cap), dtype=cp.int32)
        grid = ((n + _THREADS - 1) // _THREADS,)
        self.k_collect(grid, (_THREADS,), (Qt, Qct, self.Rt, self.Rct, self.cost, st, np.int64(n),
                                           np.int64(self.m), np.int32(self.q), np.int32(self.c),
                                           np.int32(self.mode), np.int32(self.tile), cp.asarray(thr), np.int32(cap),
                                           count, cand), shared_mem=self.shared)
        return cp.asnumpy(count), cp.asnumpy(cand)


def knn_cuda(tree: RefTree, qnum: NDArray[np.float64], qcat: NDArray[np.int64], self_pos: NDArray[np.int64],
             k: int, *, backend: str = "cupy") -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Exact k nearest references of each query, filtered on the GPU and decided on the CPU (module docstring).

    ``backend="numpy"`` runs the two kernels' NumPy stand-in (tests).
    """
    n = qnum.shape[0]
    m = tree.size
    out_d = np.full((n, k), np.inf)
    out_i = np.full((n, k), -1, dtype=np.int64)
    if backend == "cupy" and not available():
        raise RuntimeError("device='cuda' needs CuPy and a CUDA device (pip install 'synthpriv_report[gpu]'); "
                           "none was found")
    if n == 0 or k == 0 or m == 0:
        return out_d, out_i
    if k > MAX_K:
        return knn_tiled(tree, qnum, qcat, self_pos, k)
    Rt, Rct, cost32, absmax = _prepare_refs(tree)
    sentinel_ok = absmax <= _SENTINEL_SAFE
    kernels = (_CupyKernels if backend == "cupy" else _NumpyKernels)(Rt, Rct, cost32, tree.mode)
    inv = np.empty(m, dtype=np.int64)
    inv[tree.perm] = np.arange(m)
    self_t = np.where(self_pos >= 0, inv[np.maximum(self_pos, 0)], -1).astype(np.int64)
    for s in range(0, n, QUERY_CHUNK):
        e = min(n, s + QUERY_CHUNK)
        Q, Qc, absq = _prepare_queries(tree, qnum[s:e], qcat[s:e])
        Q, Qc = Q[:e - s], Qc[:e - s]
        ok = (sentinel_ok & (absq <= _SENTINEL_SAFE)) if tree.mode == 0 else None
        margin = approx_margin(tree, absq, absmax, ok)
        kth = kernels.kth(Q, Qc, self_t[s:e], k)
        thr = _thresholds(kth.astype(np.float32), margin, tree.mode, tree.scale, tree.exact)
        count, cand = kernels.collect(Q, Qc, self_t[s:e], thr, CAP)
        d = np.full((e - s, k), np.inf)
        i = np.full((e - s, k), -1, dtype=np.int64)
        _refine(qnum[s:e], qcat[s:e], self_pos[s:e], k, tree, count.astype(np.int64), cand.astype(np.int64), CAP,
                d, i)
        over = np.nonzero(count > CAP)[0]
        if len(over):
            d[over], i[over] = knn_tiled(tree, qnum[s:e][over], qcat[s:e][over], self_pos[s:e][over], k)
        out_d[s:e] = d
        out_i[s:e] = i
    return out_d, out_i
