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

An interrupt (Ctrl-C, "Interrupt kernel" in a notebook) that arrives while a compiled kernel runs can surface as
another error: numba's dispatcher raises ``SystemError: CPUDispatcher(...) returned a result with an exception
set``, the ``KeyboardInterrupt`` as its context. :func:`surfacing_interrupts` wraps each public call so that
it raises ``KeyboardInterrupt`` instead.

:func:`one_blas_thread` runs BLAS on one thread, for the compiled kernels that call it from their own threads and
for the factorisations whose last bits would otherwise depend on the machine's cores.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["COMPILED", "njit", "prange", "interrupt_behind", "surfacing_interrupts", "one_blas_thread"]

F = TypeVar("F", bound=Callable[..., Any])


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


def interrupt_behind(exc: BaseException) -> KeyboardInterrupt | None:
    """The ``KeyboardInterrupt`` behind an error, if any: the error itself, or one in its chain of causes and
    contexts (where numba's dispatcher puts the interrupt that arrived while its kernel ran).

    >>> try:
    ...     try:
    ...         raise KeyboardInterrupt
    ...     except KeyboardInterrupt:
    ...         raise SystemError("returned a result with an exception set")
    ... except SystemError as e:
    ...     type(interrupt_behind(e)).__name__
    'KeyboardInterrupt'
    >>> interrupt_behind(ValueError("bad value")) is None
    True
    """
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        if isinstance(e, KeyboardInterrupt):
            return e
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return None


def surfacing_interrupts(fn: F) -> F:
    """``fn`` raising ``KeyboardInterrupt`` where an interrupt surfaced as another error from a compiled kernel
    (:func:`interrupt_behind`); every other error passes unchanged. The interrupt raised carries the traceback of
    where it arrived, without the dispatcher's error.

    >>> @surfacing_interrupts
    ... def kernel():
    ...     try:
    ...         raise KeyboardInterrupt
    ...     except KeyboardInterrupt:
    ...         raise SystemError("CPUDispatcher(...) returned a result with an exception set")
    >>> try:
    ...     kernel()
    ... except KeyboardInterrupt:
    ...     print("interrupted")
    interrupted
    """

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except Exception as exc:  # KeyboardInterrupt itself is no Exception and passes untouched
            signalled = interrupt_behind(exc)
            if signalled is None:
                raise
            raise KeyboardInterrupt(*signalled.args).with_traceback(signalled.__traceback__) from None

    return call  # type: ignore[return-value]


def one_blas_thread() -> Any:
    """A context in which BLAS and LAPACK run on one thread.

    Used where a result must not depend on the machine's cores, and where BLAS's own threads would compete with the
    package's threads (the dense search's numba threads, the D-MLP's fold threads) and spin between calls.

    A multithreaded BLAS splits some of the work differently with the number of its threads (in the QR
    factorisation of :func:`synthpriv_report.spaces.project`, the updates of the trailing matrix), so the same
    records gave the projected space's coordinates different last bits on machines with different numbers of
    cores (measured on full Adult: 5 numbers of ``dcr_review`` and ``nndr_review`` moved by 5 to 11 units in the
    last place between one and two threads). One thread gives the same bits on every machine with the same BLAS
    build and processor family.
    """
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")
