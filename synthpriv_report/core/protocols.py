"""The typed face of what a metric receives: :class:`MetricContext`, the members of the evaluation's context that a
metric's ``plan`` and ``compute`` may use.

The evaluation's own context (:class:`synthpriv_report.engine.context.Context`) satisfies it; the declarations
(:mod:`synthpriv_report.core.registry`) type ``compute`` and ``plan`` with it, so a type checker reads a metric
against this contract without the declarations importing the engine (which sits above them). Types that live
above this layer (a set reference, a search request, a neighbour table, a space) are named in the docstrings and
typed ``Any`` here.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import Any, Protocol, TypeVar, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike, NDArray

_Memo = TypeVar("_Memo")


@runtime_checkable
class MetricContext(Protocol):
    """What a metric's ``plan(ctx, params)`` and ``compute(ctx, params)`` may use.

    Attributes
    ----------
    T : str
        The training set (always ``"T"``).
    S : str
        The set in the synthetic role (``"S"``, or the holdout in the calibration context).
    H : str or None
        The holdout, when the evaluation has one (never in the calibration context).
    R : str or None
        The reference set the user gave, if any.
    settings : dict
        The evaluation's settings (``random_state``, ``key_fields``, ``sensitive_fields``, ...).
    is_calibration : bool
        Whether this is the calibration context (the holdout in the synthetic role).
    """

    T: str
    S: str
    H: str | None
    R: str | None
    settings: dict[str, Any]
    is_calibration: bool

    @property
    def random_state(self) -> int | None:
        """The evaluation's seed: every random step draws from ``numpy.random.default_rng`` of it."""

    @property
    def resample_plans(self) -> Any:
        """Where bootstraps keep their random draws for reuse (``plans=`` of ``stats.bootstrap_stats``)."""

    @property
    def data(self) -> Any:
        """The prepared data (:class:`synthpriv_report.data.containers.PreparedData`): every set's numbers and codes."""

    def size(self, s: Any) -> int:
        """Number of records of a set (``"T"``, ``ctx.S``, ...) or of a subset."""

    def full(self, base: str) -> Any:
        """The whole set ``base`` as a set reference."""

    def subset(self, base: str, rows: ArrayLike, tag: str) -> Any:
        """The rows ``rows`` of ``base`` as a set reference; ``tag`` names the subset in caches and logs."""

    def request(self, space: Any, query: Any, ref: Any, k: int) -> Any:
        """A search a metric will read (returned by its ``plan``): ``k`` nearest ``ref`` records of every ``query``
        record, in ``space`` (a name such as ``"gower"``, or a space)."""

    def tree_request(self, space: Any, ref: Any) -> Any:
        """A search tree a metric will read itself (returned by its ``plan``)."""

    def knn(self, space: Any, query: Any, ref: Any, k: int) -> Any:
        """The ``k`` nearest ``ref`` records of every ``query`` record (a neighbour table: ``dist`` and ``idx`` of
        shape (n_query, k)), searched once per evaluation and cached."""

    def encoding(self, space: Any) -> Any:
        """The encoding of a space (fitted on the real records)."""

    def embedding(self, s: Any, space: Any = "euclidean") -> NDArray[np.float64]:
        """A set's records embedded as numbers in ``space``, one row per record."""

    def record_ids(self, s: Any) -> NDArray[np.integer[Any]]:
        """Each record's id: equal records of any set share an id."""

    def identical_in(self, query: Any, ref: Any) -> NDArray[np.bool_]:
        """For each ``query`` record, whether ``ref`` holds an identical record."""

    def key_groups(self, columns: Iterable[str], a: str, b: str) -> tuple[NDArray[np.int64], NDArray[np.int64], int]:
        """The records of ``a`` and ``b`` numbered by their values on ``columns`` (equal values, equal numbers), and
        how many numbers there are."""

    def memo(self, key: Hashable, fn: Callable[[], _Memo]) -> _Memo:
        """``fn()``, computed once per evaluation and ``key`` and shared by every metric."""

    def peek(self, key: Hashable) -> Any:
        """What :meth:`memo` holds under ``key``, or None (nothing is computed)."""


__all__ = ["MetricContext"]
