"""Runs the CUDA C kernels of :mod:`synthpriv_report.neighbors.gpu` on the CPU, so their logic is tested where no
GPU exists (the project's CI).

The kernel source is compiled by the host's C++ compiler (g++, C++20) with a small header that gives CUDA's
names their meaning on the CPU: each block of a launch runs as ``blockDim.x`` real threads that meet at a real
barrier in ``__syncthreads()`` (the cooperative staging of reference tiles in shared memory is exercised as
written), ``threadIdx`` is per thread, blocks run one after another over one shared-memory buffer, and a
launch refuses more dynamic shared memory than a CUDA device grants without opting in (48 KB). Arguments are
passed as CUDA's launch API takes them: an array of pointers to the values (NumPy arrays by their data
address, ``numpy.int32``/``int64``/``float32`` scalars by value), so the package's own host code
(:class:`synthpriv_report.neighbors.gpu.DeviceKernels`) drives the kernels unchanged.

What it cannot show: the speed, the device's own compiler (NVRTC, tested where a device is found), and
races between warps that a barrier-faithful emulation hides only if the code relies on warp-synchronous
execution (these kernels do not).
"""

from __future__ import annotations

import ctypes
import hashlib
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

#: Dynamic shared memory a CUDA kernel may use without cudaFuncSetAttribute.
SHARED_LIMIT = 48 * 1024

_HEADER = r"""
#include <barrier>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

struct _dim3 { unsigned x = 0, y = 0, z = 0; };
static _dim3 blockIdx, blockDim, gridDim;
static thread_local _dim3 threadIdx;
static std::barrier<>* _block_barrier = nullptr;
struct float4 { float x, y, z, w; };
struct int4 { int x, y, z, w; };
inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__
#define __restrict__
inline void __syncthreads() { _block_barrier->arrive_and_wait(); }
inline float __int_as_float(int x) { float f; std::memcpy(&f, &x, sizeof f); return f; }
extern "C" { alignas(16) float shared[%(shared_floats)d]; }
"""

_LAUNCHER = r"""
template <class... A, std::size_t... I>
static void _call(void (*f)(A...), void** args, std::index_sequence<I...>) {
    f(*static_cast<std::remove_cv_t<std::remove_reference_t<A>>*>(args[I])...);
}

template <class... A>
static void _launch(void (*f)(A...), unsigned grid, unsigned block, void** args) {
    blockDim.x = block; blockDim.y = blockDim.z = 1;
    gridDim.x = grid; gridDim.y = gridDim.z = 1;
    for (unsigned b = 0; b < grid; ++b) {
        blockIdx.x = b;
        std::memset(shared, 0xff, sizeof shared);  // shared memory starts undefined: never zero by luck
        std::barrier<> bar(block);
        _block_barrier = &bar;
        std::vector<std::thread> threads;
        threads.reserve(block);
        for (unsigned t = 0; t < block; ++t)
            threads.emplace_back([=] { threadIdx.x = t; _call(f, args, std::index_sequence_for<A...>{}); });
        for (auto& th : threads) th.join();
    }
}

extern "C" int launch(const char* name, unsigned grid, unsigned block, void** args) {
%(dispatch)s
    return 1;
}
"""


def compiler() -> str | None:
    """The C++ compiler used, or None where there is none."""
    return shutil.which("g++")


class HostModule:
    """A CUDA C source compiled for the CPU; :meth:`launch` runs one of its ``__global__`` functions."""

    def __init__(self, source: str, build_dir: Path) -> None:
        names = re.findall(r"__global__\s+void\s+(\w+)\s*\(", source)
        if not names:
            raise ValueError("no __global__ function in the source")
        dispatch = "\n".join(f'    if (!std::strcmp(name, "{n}")) {{ _launch({n}, grid, block, args); return 0; }}'
                             for n in names)
        code = (_HEADER % {"shared_floats": SHARED_LIMIT // 4} + source
                + _LAUNCHER % {"dispatch": dispatch})
        tag = hashlib.sha256(code.encode()).hexdigest()[:16]
        lib = build_dir / f"kernels_{tag}.so"
        if not lib.exists():
            src = build_dir / f"kernels_{tag}.cpp"
            src.write_text(code)
            tmp = build_dir / f"kernels_{tag}.so.part"
            res = subprocess.run([compiler() or "g++", "-std=c++20", "-O1", "-g", "-fPIC", "-shared", "-pthread",
                                  "-Wall", "-Wno-unknown-pragmas", "-Wno-unused-function", "-o", str(tmp), str(src)],
                                 capture_output=True, text=True)
            if res.returncode:
                raise RuntimeError(f"the kernel source did not compile for the host:\n{res.stderr}")
            tmp.replace(lib)
        self._lib = ctypes.CDLL(str(lib))
        self._lib.launch.argtypes = [ctypes.c_char_p, ctypes.c_uint, ctypes.c_uint, ctypes.POINTER(ctypes.c_void_p)]
        self.names = names

    def launch(self, name: str, grid: int, block: int, args: tuple, shared_mem: int) -> None:
        if shared_mem > SHARED_LIMIT:
            raise RuntimeError(f"{name}: {shared_mem} bytes of dynamic shared memory (a device grants "
                               f"{SHARED_LIMIT} without opting in)")
        holders = []
        for a in args:
            if isinstance(a, np.ndarray):
                if not a.flags.c_contiguous:
                    raise TypeError(f"{name}: a non-contiguous array argument")
                holders.append(ctypes.c_void_p(a.ctypes.data))
            elif isinstance(a, np.int64):
                holders.append(ctypes.c_longlong(int(a)))
            elif isinstance(a, np.int32):
                holders.append(ctypes.c_int(int(a)))
            elif isinstance(a, np.float32):
                holders.append(ctypes.c_float(float(a)))
            else:
                raise TypeError(f"{name}: argument of type {type(a).__name__} (CUDA needs a sized NumPy scalar)")
        ptrs = (ctypes.c_void_p * len(holders))(*[ctypes.cast(ctypes.pointer(h), ctypes.c_void_p) for h in holders])
        if self._lib.launch(name.encode(), grid, block, ptrs):
            raise RuntimeError(f"no kernel {name!r}")


class HostDevice:
    """The device interface of :class:`synthpriv_report.neighbors.gpu.DeviceKernels`, on the CPU: arrays stay
    NumPy arrays (copied on the way in and out, as a transfer would), kernels run through :class:`HostModule`."""

    name = "host emulation"

    def __init__(self, build_dir: Path | None = None) -> None:
        self._dir = Path(build_dir or tempfile.mkdtemp(prefix="cuda_host_"))
        self._modules: dict[str, HostModule] = {}
        self.launches: list[tuple[str, int, int, int]] = []

    def asarray(self, a):
        return np.array(a, copy=True, order="C")

    def asnumpy(self, a):
        return np.array(a, copy=True)

    def empty(self, shape, dtype):
        # undefined contents, as on a device: a kernel that reads before writing is caught
        out = np.empty(shape, dtype=dtype)
        out.view(np.uint8)[...] = 0xA5
        return out

    def zeros(self, shape, dtype):
        return np.zeros(shape, dtype=dtype)

    def launch(self, source: str, name: str, grid: int, block: int, args: tuple, shared_mem: int) -> None:
        mod = self._modules.get(source)
        if mod is None:
            mod = self._modules[source] = HostModule(source, self._dir)
        self.launches.append((name, grid, block, shared_mem))
        mod.launch(name, grid, block, args, shared_mem)
