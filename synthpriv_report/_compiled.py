"""The switch between the compiled kernels (numba) and the plain-Python path used where numba is absent.

numba does not exist for every platform the package runs on (Pyodide, the WebAssembly Python of JupyterLite,
has none). Every module with a compiled kernel imports :func:`njit` and :func:`prange` from here instead of from
numba: with numba they are numba's own, and without it :func:`njit` returns the Python function unchanged and
:data:`prange` is :func:`range`, so the same source runs, in the same order of operations, as plain Python.
The hot paths (the neighbour searches, the identical-record hashes, the tree boxes, the hitting-rate windows and
the D-MLP trainer) have vectorised NumPy versions that the callers choose when :data:`COMPILED` is false. They do
the compiled kernels' arithmetic in the same order and give the same numbers, except the D-MLP trainer, whose
float32 sums run in another order (the compiled one lets LLVM reorder them): its weights differ in the last bits,
which can move detection_mlp's fold AUCs only where a predicted rank or an early-stopping epoch changes. The tests
compare every registered metric's result both ways.

The compiled path is switched off when numba cannot be imported, or when the environment variable
``SYNTHPRIV_NO_NUMBA`` is set to anything but ``""`` or ``"0"`` when the package is first imported (what the
tests use to run the NumPy path on a machine that has numba).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

__all__ = ["COMPILED", "njit", "prange"]


def _wanted() -> bool:
    return os.environ.get("SYNTHPRIV_NO_NUMBA", "") in ("", "0")


def _numba() -> Any:
    if not _wanted():
        return None
    try:
        import numba
    except ImportError:  # no numba for this platform (Pyodide) or not installed
        return None
    return numba


_NUMBA = _numba()

#: True when the kernels are compiled by numba; False on the NumPy / plain-Python path.
COMPILED: bool = _NUMBA is not None

if _NUMBA is not None:
    njit = _NUMBA.njit
    prange = _NUMBA.prange
else:
    def njit(*args: Any, **kwargs: Any) -> Any:
        """numba's decorator without numba: the function itself, used bare (``@njit``) or with options
        (``@njit(cache=True)``), which are ignored."""
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]

        def keep(fn: Callable[..., Any]) -> Callable[..., Any]:
            return fn

        return keep

    prange = range
