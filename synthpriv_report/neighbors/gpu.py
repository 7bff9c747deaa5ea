"""Exact k-NN on a CUDA device (CuPy raw kernels; the optional ``gpu`` extra, imported only when asked for).

The device filters, the CPU decides, so the numbers are the CPU engines' to the bit:

1. pass 1, one GPU thread per query: the single-precision accumulator of every reference (the tiled kernel's
   encoding and arithmetic, :mod:`.tiled`: float32 values, int32 codes, the Gower sentinel for missing values)
   and the k-th smallest of them, A_k (the query itself excluded by position);
2. on the CPU: the threshold T = slack(dist(A_k + margin)) + margin. The exact k-th accumulator is at most
   A_k + margin (the k references at A_k are within the margin of their float64 values), so every reference
   that can be among the exact k nearest or tie with the k-th has a single-precision accumulator <= T;
3. pass 2 on the GPU: the references with accumulator <= T, up to :data:`CAP` per query;
4. on the CPU: the float64 accumulator of every candidate by :func:`.kernels._acc` and the k-best insertion with
   the tie rule (:func:`.kernels._offer`, near ties by :func:`.kernels.resolve_near_ties`). Queries with more
   than :data:`CAP` candidates (heavy ties) are searched again by the CPU tiled kernel.

The kernels are compiled for each shape of the data (numeric and category column counts, the space, the tile
size are constants of the source): the query's values and the category costs then sit in registers, the
column loops unroll, and each thread scores four references of the shared-memory tile per step with one
16-byte load per column (all threads of a block read the same address: a broadcast, no bank conflicts). The
k-th best is held in a register and the k-best list is touched only when a reference beats it. Blocks of
:data:`THREADS` queries stage tiles of :func:`tile_size` references in at most :data:`SHARED_BUDGET` bytes of
shared memory, so many blocks share a multiprocessor.

No float64 arithmetic runs on the device (consumer GPUs are slow at it, and its contraction into fused
multiply-adds would change the last bit); float32 contraction is within the margin, which assumes any order and
rounding of the float32 operations. The project's CI has no CUDA device: ``tests/integration/test_neighbors_gpu.py``
runs these kernels' source on the CPU (compiled by the host's C++ compiler with real threads and barriers,
``tests/cuda_host.py``), compiles it with NVRTC for the H100 where NVRTC is installed, and runs it through CuPy
where a device is found.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from .._compiled import njit, prange
from .kernels import _acc, _offer, _slack, _to_dist, query_chunks, resolve_near_ties
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
#: Queries per device call (bounds the candidate buffer: QUERY_CHUNK x CAP int32, 64 MiB).
QUERY_CHUNK = 1 << 18
#: Threads (queries) per block.
THREADS = 128
#: Bytes of shared memory a block's reference tile may take (small, so that many blocks share a multiprocessor).
SHARED_BUDGET = 12 * 1024
#: Dynamic shared memory a kernel may use without opting in.
SHARED_LIMIT = 48 * 1024
#: Columns up to which a query is held in registers and the column loops are unrolled.
REGISTER_COLUMNS = 64

_SOURCE = r"""
#define Q %(q)d
#define C %(c)d
#define MODE %(mode)d
#define TILE %(tile)d
#define MAX_K %(max_k)d
#define QA (Q > 0 ? Q : 1)
#define CA (C > 0 ? C : 1)
#if Q + C <= %(register_columns)d
#define UNROLL _Pragma("unroll")
#else
#define UNROLL _Pragma("unroll 1")
#endif

// Stage references t0 .. t0 + TILE - 1 (columns of Rt / Rct, one row per column) in shared memory; slots past
// the last reference get 0 and are never offered.
__device__ __forceinline__ void stage(const float* Rt, const int* Rct, float* sR, int* sC, long long m,
                                      long long t0) {
    for (int x = threadIdx.x; x < TILE * Q; x += blockDim.x) {
        const int j = x / TILE, tl = x - j * TILE;
        sR[x] = (t0 + tl < m) ? Rt[j * m + t0 + tl] : 0.0f;
    }
    for (int x = threadIdx.x; x < TILE * C; x += blockDim.x) {
        const int j = x / TILE, tl = x - j * TILE;
        sC[x] = (t0 + tl < m) ? Rct[j * m + t0 + tl] : 0;
    }
}

// The query's values (columns of Qt / Qct) and the category costs, into registers when the loops unroll.
__device__ __forceinline__ void load_query(const float* Qt, const int* Qct, const float* cost, long long n,
                                           long long i, float* qv, int* qc, float* cst) {
    UNROLL for (int j = 0; j < Q; j++) qv[j] = Qt[j * n + i];
    UNROLL for (int j = 0; j < C; j++) { qc[j] = Qct[j * n + i]; cst[j] = cost[j]; }
}

// Single-precision accumulators of staged references tl .. tl + 3.
__device__ __forceinline__ float4 acc4(const float* qv, const int* qc, const float* cst, const float* sR,
                                       const int* sC, int tl) {
    float4 a = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    UNROLL for (int j = 0; j < Q; j++) {
        const float4 r = *reinterpret_cast<const float4*>(sR + j * TILE + tl);
        const float x = qv[j];
#if MODE == 0
        a.x += fminf(fabsf(x - r.x), 1.0f);
        a.y += fminf(fabsf(x - r.y), 1.0f);
        a.z += fminf(fabsf(x - r.z), 1.0f);
        a.w += fminf(fabsf(x - r.w), 1.0f);
#else
        float d;
        d = x - r.x; a.x += d * d;
        d = x - r.y; a.y += d * d;
        d = x - r.z; a.z += d * d;
        d = x - r.w; a.w += d * d;
#endif
    }
    UNROLL for (int j = 0; j < C; j++) {
        const int4 r = *reinterpret_cast<const int4*>(sC + j * TILE + tl);
        const int y = qc[j];
        const float w = cst[j];
        a.x += (r.x != y) ? w : 0.0f;
        a.y += (r.y != y) ? w : 0.0f;
        a.z += (r.z != y) ? w : 0.0f;
        a.w += (r.w != y) ? w : 0.0f;
    }
    return a;
}

// Pass 1: the k best accumulators of a query, the k-th held in `worst` (t: a reference's tree position).
struct KeepBest {
    float* best;
    float worst;
    int k;
    long long m, st;
    __device__ __forceinline__ void operator()(float a, long long t) {
        if (a < worst && t < m && t != st) {
            int p = k - 1;
            while (p > 0 && a < best[p - 1]) { best[p] = best[p - 1]; p--; }
            best[p] = a;
            worst = best[k - 1];
        }
    }
};

// Pass 2: the references within the query's threshold, the first cap of them in tree order, and their count.
struct Collect {
    float thr;
    long long m, st, i;
    int cap, cnt;
    int* cand;
    __device__ __forceinline__ void operator()(float a, long long t) {
        if (a <= thr && t < m && t != st) {
            if (cnt < cap) cand[i * cap + cnt] = (int)t;
            cnt++;
        }
    }
};

// The loop both passes share: query i's accumulator with every reference, four at a time from the tiles staged
// in shared memory (sR, sC), each handed to `visit` with its tree position. Every thread of the block takes part
// in the staging, inactive ones (past the last query) included.
template <class Visit>
__device__ __forceinline__ void scan(const float* Qt, const int* Qct, const float* Rt, const int* Rct,
                                     const float* cost, long long n, long long m, long long i, bool active,
                                     float* sR, int* sC, Visit& visit) {
    float qv[QA], cst[CA];
    int qc[CA];
    if (active) load_query(Qt, Qct, cost, n, i, qv, qc, cst);
    for (long long t0 = 0; t0 < m; t0 += TILE) {
        __syncthreads();
        stage(Rt, Rct, sR, sC, m, t0);
        __syncthreads();
        if (!active) continue;
        for (int tl = 0; tl < TILE; tl += 4) {
            if (t0 + tl >= m) break;
            const float4 a = acc4(qv, qc, cst, sR, sC, tl);
            const long long t = t0 + tl;
            visit(a.x, t);
            visit(a.y, t + 1);
            visit(a.z, t + 2);
            visit(a.w, t + 3);
        }
    }
}

// Pass 1: the k-th smallest single-precision accumulator of each query (self excluded by tree position).
extern "C" __global__ void kth_approx(const float* Qt, const int* Qct, const float* Rt, const int* Rct,
                                      const float* cost, const long long* self_t, long long n, long long m, int k,
                                      float* kth) {
    extern __shared__ float shared[];
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const bool active = i < n;
    float best[MAX_K];
    const float inf = __int_as_float(0x7f800000);
    for (int x = 0; x < k; x++) best[x] = inf;
    KeepBest visit{best, inf, k, m, active ? self_t[i] : -1};
    scan(Qt, Qct, Rt, Rct, cost, n, m, i, active, shared, (int*)(shared + TILE * Q), visit);
    if (active) kth[i] = visit.worst;
}

// Pass 2: the references whose single-precision accumulator is <= thr[i] (self excluded), the first cap of
// them in tree order, and their count.
extern "C" __global__ void collect(const float* Qt, const int* Qct, const float* Rt, const int* Rct,
                                   const float* cost, const long long* self_t, long long n, long long m,
                                   const float* thr, int cap, int* count, int* cand) {
    extern __shared__ float shared[];
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const bool active = i < n;
    Collect visit{active ? thr[i] : 0.0f, m, active ? self_t[i] : -1, i, cap, 0, cand};
    scan(Qt, Qct, Rt, Rct, cost, n, m, i, active, shared, (int*)(shared + TILE * Q), visit);
    if (active) count[i] = visit.cnt;
}
"""


def tile_size(q: int, c: int) -> int | None:
    """References per shared-memory tile for ``q`` numeric and ``c`` category columns: a multiple of 4 (each
    thread scores four at a time) within :data:`SHARED_BUDGET`, at least 4 and at most 256; None where even four
    exceed :data:`SHARED_LIMIT` (thousands of columns: the CPU runs).

    >>> tile_size(30, 10), tile_size(2, 2), tile_size(4000, 0)
    (76, 256, None)
    """
    cols = max(1, q + c)
    tile = max(4, min(256, SHARED_BUDGET // (4 * cols) // 4 * 4))
    return tile if 4 * tile * cols <= SHARED_LIMIT else None


def kernel_source(q: int, c: int, mode: int, tile: int) -> str:
    """The CUDA C source of the two kernels for this shape (its constants are compiled in)."""
    return _SOURCE % {"q": q, "c": c, "mode": mode, "tile": tile, "max_k": MAX_K,
                      "register_columns": REGISTER_COLUMNS}


def available() -> bool:
    """Whether CuPy is installed and sees a CUDA device (never raises)."""
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


class Device(Protocol):
    """What :class:`DeviceKernels` needs of a device: array transfers and kernel launches by source and name
    (CuPy's here; the tests' CPU emulation has the same methods)."""

    def asarray(self, a: NDArray) -> object: ...

    def asnumpy(self, a: object) -> NDArray: ...

    def empty(self, shape: int | tuple[int, ...], dtype: type) -> object: ...

    def zeros(self, shape: int | tuple[int, ...], dtype: type) -> object: ...

    def launch(self, source: str, name: str, grid: int, block: int, args: tuple, shared_mem: int) -> None: ...


class CupyDevice:
    """The current CUDA device through CuPy; each kernel source is compiled once per process (NVRTC)."""

    _modules: dict[str, object] = {}

    def __init__(self) -> None:
        import cupy

        self.cp = cupy

    def asarray(self, a):
        return self.cp.asarray(np.ascontiguousarray(a))

    def asnumpy(self, a):
        return self.cp.asnumpy(a)

    def empty(self, shape, dtype):
        return self.cp.empty(shape, dtype=dtype)

    def zeros(self, shape, dtype):
        return self.cp.zeros(shape, dtype=dtype)

    def launch(self, source, name, grid, block, args, shared_mem):
        mod = CupyDevice._modules.get(source)
        if mod is None:
            mod = CupyDevice._modules[source] = self.cp.RawModule(code=source, options=("--std=c++14",))
        mod.get_function(name)((grid,), (block,), args, shared_mem=shared_mem)


class DeviceKernels:
    """The two device passes over one reference set, held on ``device`` for all query chunks."""

    def __init__(self, device: Device, Rt: NDArray[np.float32], Rct: NDArray[np.int32],
                 cost32: NDArray[np.float32], mode: int) -> None:
        self.dev = device
        self.q, self.m = Rt.shape
        self.c = Rct.shape[0]
        tile = tile_size(self.q, self.c)
        if tile is None:
            raise ValueError(f"{self.q + self.c} columns do not fit a shared-memory tile")
        self.shared = 4 * tile * (self.q + self.c)
        self.source = kernel_source(self.q, self.c, mode, tile)
        self.Rt, self.Rct, self.cost = device.asarray(Rt), device.asarray(Rct), device.asarray(cost32)

    def queries(self, Q: NDArray[np.float32], Qc: NDArray[np.int32], self_t: NDArray[np.int64]) -> tuple:
        """A chunk of queries on the device (columns contiguous, as the kernels read them)."""
        d = self.dev
        return (d.asarray(np.ascontiguousarray(Q.T)), d.asarray(np.ascontiguousarray(Qc.T)),
                d.asarray(self_t.astype(np.int64)), Q.shape[0])

    def _grid(self, n: int) -> int:
        return (n + THREADS - 1) // THREADS

    def kth(self, dq: tuple, k: int) -> NDArray[np.float32]:
        Qt, Qct, st, n = dq
        out = self.dev.empty(n, np.float32)
        self.dev.launch(self.source, "kth_approx", self._grid(n), THREADS,
                        (Qt, Qct, self.Rt, self.Rct, self.cost, st, np.int64(n), np.int64(self.m), np.int32(k), out),
                        self.shared)
        return self.dev.asnumpy(out)

    def collect(self, dq: tuple, thr: NDArray[np.float32], cap: int) -> tuple[NDArray[np.int32], NDArray[np.int32]]:
        Qt, Qct, st, n = dq
        count = self.dev.empty(n, np.int32)
        cand = self.dev.empty((n, cap), np.int32)
        self.dev.launch(self.source, "collect", self._grid(n), THREADS,
                        (Qt, Qct, self.Rt, self.Rct, self.cost, st, np.int64(n), np.int64(self.m),
                         self.dev.asarray(np.ascontiguousarray(thr, dtype=np.float32)), np.int32(cap), count, cand),
                        self.shared)
        return self.dev.asnumpy(count), self.dev.asnumpy(cand)


@njit(cache=True, parallel=True)
def _refine(qnum, qcat, self_pos, k, tr, count, cand, cap, out_d, out_i, near):
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
            c, bound = _offer(qi, t, ridx, a, c, k, bound, mode, scale, exact, out_d, out_i, out_t, near)


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


def knn_cuda(tree: RefTree, qnum: NDArray[np.float64], qcat: NDArray[np.int64], self_pos: NDArray[np.int64],
             k: int, *, device: Device | None = None, progress: bool = False, desc: str = "neighbours",
             resolve: bool = True) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Exact k nearest references of each query, filtered on the GPU and decided on the CPU (module docstring).

    ``device``: where the kernels run (default: the current CUDA device through CuPy; the tests pass a CPU
    emulation). ``k`` above :data:`MAX_K` or more columns than a shared-memory tile holds: the CPU tiled kernel.
    """
    qnum = np.ascontiguousarray(qnum, dtype=np.float64)
    qcat = np.ascontiguousarray(qcat, dtype=np.int64)
    n = qnum.shape[0]
    m = tree.size
    out_d = np.full((n, k), np.inf)
    out_i = np.full((n, k), -1, dtype=np.int64)
    if device is None:
        if not available():
            raise RuntimeError("device='cuda' needs CuPy and a CUDA device (pip install 'synthpriv_report[gpu]'); "
                               "none was found")
        device = CupyDevice()
    if n == 0 or k == 0 or m == 0:
        return out_d, out_i
    if k > MAX_K or tile_size(tree.num.shape[1], tree.cat.shape[1]) is None:
        return knn_tiled(tree, qnum, qcat, self_pos, k, progress=progress, desc=desc, resolve=resolve)
    Rt, Rct, cost32, absmax = _prepare_refs(tree)
    sentinel_ok = absmax <= _SENTINEL_SAFE
    kernels = DeviceKernels(device, Rt, Rct, cost32, tree.mode)
    inv = np.empty(m, dtype=np.int64)
    inv[tree.perm] = np.arange(m)
    self_t = np.where(self_pos >= 0, inv[np.maximum(self_pos, 0)], -1).astype(np.int64)
    for s, e in query_chunks(n, desc, progress, chunk=QUERY_CHUNK):
        Q, Qc, absq = _prepare_queries(tree, qnum[s:e], qcat[s:e])
        Q, Qc = Q[:e - s], Qc[:e - s]
        ok = (sentinel_ok & (absq <= _SENTINEL_SAFE)) if tree.mode == 0 else None
        margin = approx_margin(tree, absq, absmax, ok)
        dq = kernels.queries(Q, Qc, self_t[s:e])
        thr = _thresholds(kernels.kth(dq, k), margin, tree.mode, tree.scale, tree.exact)
        count, cand = kernels.collect(dq, thr, CAP)
        d = out_d[s:e]
        i = out_i[s:e]
        near = np.zeros(e - s, dtype=np.bool_)
        _refine(qnum[s:e], qcat[s:e], self_pos[s:e], k, tree, count.astype(np.int64), cand.astype(np.int64), CAP,
                d, i, near)
        over = np.nonzero(count > CAP)[0]
        if len(over):  # by the CPU tiled kernel; its near ties are marked and decided with the others below
            near_over = np.zeros(len(over), dtype=np.bool_)
            d[over], i[over] = knn_tiled(tree, qnum[s:e][over], qcat[s:e][over], self_pos[s:e][over], k,
                                         resolve=False, near=near_over)
            near[over] = near_over
        if resolve:
            resolve_near_ties(tree, qnum[s:e], qcat[s:e], self_pos[s:e], d, i, near,
                              lambda qn, qc, sp, kk: knn_cuda(tree, qn, qc, sp, kk, device=device, resolve=False))
    return out_d, out_i
