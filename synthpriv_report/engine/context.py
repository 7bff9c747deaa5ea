"""The :class:`Context`: what a metric's ``plan`` and ``compute`` see.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .. import neighbors as nb
from ..data.containers import PreparedData, position_dtype
from ..spaces import (
    Encoding,
    Fitted,
    Projection,
    SpaceSpec,
    as_space,
)
from .cache import _Engine
from .requests import SearchRequest, SetRef, TreeRequest

if TYPE_CHECKING:
    pass


class Context:
    """What a metric's ``plan`` and ``compute`` see: the data, cached encodings and searches, and the roles.

    An evaluation makes one context (:attr:`synthpriv_report.Evaluation.context`) and, when it calibrates, a
    second one from :meth:`calibration`; both read the same caches, so a search or a memoised step is shared by
    every metric and by both contexts.

    Parameters
    ----------
    engine : _Engine
        The evaluation's caches (encodings, trees, neighbour tables, memoised steps, the search log).
    settings : mapping of str to object
        The evaluation's settings (``random_state``, ``spaces``, ``n_components``, ``nndr_k``, ``key_fields``,
        ...; :meth:`synthpriv_report.Evaluation.settings_dict` lists them). Copied.
    syn : str, default "S"
        The set in the synthetic role.
    holdout : str or None, default "H"
        The set in the holdout role; ``None``, or a set the data do not hold, leaves :attr:`H` None.
    calibration : bool, default False
        Whether this is the calibration context (:attr:`is_calibration`).

    Attributes
    ----------
    T : str
        The training (real) set: always ``"T"``.
    S : str
        The set in the synthetic role: ``"S"``, or ``"H"`` in the calibration context.
    H : str or None
        The holdout: ``"H"`` when the evaluation has one, else None; always None in the calibration context,
        whose holdout is playing ``S``.
    R : str or None
        The reference set the user gave (``Evaluation(reference=...)``): ``"R"`` when there is one and :attr:`H`
        is not None, else None (the membership attacks then split the holdout,
        :func:`synthpriv_report.metrics.attacks.mia_common.attack_split`).
    settings : dict of str to object
        The evaluation's settings.
    is_calibration : bool
        True in the context made by :meth:`calibration`.

    Notes
    -----
    **Roles.** A metric names sets through :attr:`T`, :attr:`S` and :attr:`H`, never by their letters, so that the
    same code computes it with the holdout in the synthetic role: the calibration value, what the metric gives
    for fresh real records the generator never saw (``docs/metrics.md``, section "Baselines: the holdout and the
    calibration"). Anything a metric memoises that depends on the roles has ``ctx.S`` (and ``ctx.H``) in its key.

    **Positions.** Every row position (a :class:`SetRef`'s rows, a neighbour table's ``idx``, a record id) is a
    position in the evaluation's own order of the set: by default the canonical order, which depends on the
    records' values alone (``row_order="canonical"`` of :class:`synthpriv_report.Evaluation`), otherwise the
    caller's order (``row_order="as_given"``).

    **Searches.** :meth:`knn` returns the ``k`` nearest records of a reference set for every record of a query set,
    exactly, as a :class:`synthpriv_report.neighbors.NeighborTable`: ``dist`` of shape (n_query, k), float64,
    ascending along each row, and ``idx`` of shape (n_query, k), int64, positions in the reference set. A metric
    lists the searches it will ask for in ``plan`` (:meth:`request`); the evaluation plans every metric before it
    computes any, and then runs each (space, query, ref) once, at the first :meth:`knn` that needs it, with the
    largest ``k`` planned for it. Later calls with that ``k`` or less are slices of the cached table and never
    search again. A call for more neighbours than are cached is searched again at the larger ``k`` (a second
    entry in the search log, :attr:`synthpriv_report.Evaluation.searches`), so a metric that plans what it reads
    causes no second search.

    **Self-exclusion.** When the query and the reference set are the same (equal :attr:`SetRef.key`: the same
    whole set, or the same subset), each query record is left out of its own neighbours by position, as
    scikit-learn's ``NearestNeighbors.kneighbors()`` does without ``X``. Another record identical to it is still a
    neighbour, at distance 0 (``docs/metrics.md``, section "Ties, self-matches and nearest records"). A subset
    searched against its whole base set is not a within-set search: each record then finds itself.

    **Ties and missing neighbours.** Distances within the package's tolerance (``|a - b| <= 1e-9 max(|a|, |b|) +
    1e-12``, :mod:`synthpriv_report.neighbors`) are ties, and among tied references the lowest position comes
    first, whichever engine ran. Where the reference set has fewer than ``k`` records (after self-exclusion), the
    missing slots hold ``dist = inf`` and ``idx = -1``.

    **Memoised steps.** :meth:`memo` runs an expensive step once per evaluation and key (a fit, a subsample, an
    array several metrics read); :meth:`peek` and :meth:`cached_table` read the caches without computing, for
    presentation code.

    Examples
    --------
    How a metric uses it: ``plan`` lists the searches, ``compute`` reads them (registered with
    :class:`synthpriv_report.core.registry.MetricSpec`, the evaluation calls both with its context; here ``compute``
    is called directly, unplanned, so its search runs with the ``k`` it asks for).

    >>> import pandas as pd
    >>> from synthpriv_report import Evaluation
    >>> T = pd.DataFrame({"x": [0.0, 1.0, 2.0, 4.0]})
    >>> S = pd.DataFrame({"x": [0.9, 4.0]})
    >>> ev = Evaluation(T, S, progress=False, calibrate=False, row_order="as_given")
    >>> def plan(ctx, params):
    ...     return [ctx.request("gower", ctx.S, ctx.T, 2)]
    >>> def compute(ctx, params):
    ...     table = ctx.knn("gower", ctx.S, ctx.T, 1)  # once planned, the first column of the k=2 table
    ...     return table.idx[:, 0].tolist(), table.dist.shape, table.dist.dtype.name, table.idx.dtype.name
    >>> compute(ev.context, {})
    ([1, 3], (2, 1), 'float64', 'int64')
    >>> _ = compute(ev.context, {}); ev.search_count  # the second call reads the cached table
    1
    >>> within = ev.context.knn("gower", "T", "T", 1)  # a set against itself: no record is its own neighbour
    >>> within.idx[:, 0].tolist()
    [1, 0, 1, 2]
    """

    def __init__(self, engine: _Engine, settings: Mapping[str, Any], *, syn: str = "S",
                 holdout: str | None = "H", calibration: bool = False):
        self._engine = engine
        self.settings: dict[str, Any] = dict(settings)
        self.T = "T"
        self.S = syn
        self.H = holdout if holdout in engine.data.sizes else None
        self.R = "R" if self.H is not None and "R" in engine.data.sizes else None
        self.is_calibration = calibration

    # data ---------------------------------------------------------------------------------------------------
    @property
    def data(self) -> PreparedData:
        """The prepared data: every set's numbers and category codes, in the evaluation's row order."""
        return self._engine.data

    @property
    def fitted(self) -> Fitted:
        """The encoders, fitted on the real records only (ranges, scales, category codes)."""
        return self._engine.fitted

    @property
    def resample_plans(self) -> Any:
        """Where the bootstraps of this evaluation keep their random draws for reuse
        (:class:`~synthpriv_report.stats.bootstrap.ResamplePlans`): pass it as ``plans=`` with the evaluation's
        seed, and a bootstrap over as many values as an earlier one reads only the values again."""
        return self._engine.resample_plans

    @property
    def random_state(self) -> int | None:
        """The evaluation's seed: every random step of a metric draws from ``numpy.random.default_rng`` of it (or
        of a number derived from it), so that the same evaluation gives the same numbers."""
        seed: int | None = self.settings["random_state"]
        return seed

    def size(self, s: str | SetRef) -> int:
        """Number of records of a set, or of a subset's rows.

        Parameters
        ----------
        s : str or SetRef
            A set name (``ctx.T``, ``ctx.S``, ``ctx.H``) or a reference.

        Returns
        -------
        int
        """
        if isinstance(s, SetRef):
            return self.data.sizes[s.base] if s.rows is None else int(s.rows.shape[0])
        return self.data.sizes[s]

    def full(self, base: str) -> SetRef:
        """A reference to the whole set ``base`` (what a plain set name stands for)."""
        return SetRef(base)

    def subset(self, base: str, rows: ArrayLike, tag: str) -> SetRef:
        """A reference to some records of ``base``, to search from or against.

        Parameters
        ----------
        base : str
            The set (``ctx.T``, ``ctx.S``, ``ctx.H``).
        rows : array of int, shape (n_rows,)
            Positions in ``base``, in the order the subset's tables list them; held as int32 where ``base`` has
            fewer than 2**31 records (4 bytes a row: the evaluation keeps its subsets), else int64.
        tag : str
            The subset's name: it appears in the search log and is part of its identity (:class:`SetRef`).

        Returns
        -------
        SetRef
            Searches against it return positions within ``rows``; a search of it against itself leaves each
            record out of its own neighbours.
        """
        return SetRef(base, np.asarray(rows, dtype=position_dtype(self.size(base))), tag)

    def calibration(self) -> Context:
        """The calibration context: the same caches with the holdout in the role of the synthetic set.

        Returns
        -------
        Context
            ``S == "H"``, ``H is None`` and ``is_calibration`` true. Call it only when the evaluation has a holdout.
        """
        return Context(self._engine, self.settings, syn="H", holdout=None, calibration=True)

    # spaces -------------------------------------------------------------------------------------------------
    def space(self, name: str | SpaceSpec) -> SpaceSpec:
        """The space of a name (``"gower"``, ``"euclidean"``, ``"hamming"``, ``"projected"``) or a spec, with the
        evaluation's number of projected components filled in (``n_components``, default 0.95 of the variance)."""
        spec = as_space(name)
        if spec.kind == "projected" and spec.n_components is None:
            spec = replace(spec, n_components=self.settings.get("n_components") or 0.95)
        return spec

    def metric_space(self, metric: str, default: str) -> SpaceSpec:
        """The space a distance metric uses: the caller's choice (``spaces=``) or the metric's default."""
        choice = self.settings.get("spaces") or {}
        if isinstance(choice, str):
            return self.space(choice)
        return self.space(choice.get(metric, default))

    def encoding(self, space: str | SpaceSpec) -> Encoding:
        """The compact encoding of every set in ``space`` (built on first use, then cached): per set, numeric
        coordinates (n, q) float64 and category codes (n, c) int64."""
        return self._engine.encoding(self.space(space))

    def projection(self, space: str | SpaceSpec = "projected") -> Projection:
        """The PCA behind a projected space (fitted on the real records; built with its encoding)."""
        spec = self.space(space)
        self._engine.encoding(spec)
        return self._engine.projections[spec]

    def embedding(self, s: str | SetRef, space: str | SpaceSpec = "euclidean") -> NDArray[np.float64]:
        """Dense one-hot euclidean embedding (classifier features) of a set or of a subset's rows (in the
        subset's order).

        Not cached: a whole set's embedding is large (a million records by about a hundred coordinates: 0.9 GB),
        so callers embed the rows they use, or a set in :meth:`embedding_blocks`.

        Returns
        -------
        ndarray of float64, shape (n_rows, n_features)
            Squared euclidean distances between rows equal the space's own.
        """
        from ..spaces import embed

        ref = self._ref(s)
        return embed(self.encoding(space), ref.base, ref.rows)

    def embedding_blocks(self, s: str | SetRef, space: str | SpaceSpec = "euclidean", *,
                         rows_per_block: int = 1 << 16) -> Iterator[NDArray[np.float64]]:
        """The dense embedding of a set (or subset) in consecutive blocks of rows, in order; a row's embedding
        does not depend on the block it is in.

        Yields
        ------
        ndarray of float64, shape (at most rows_per_block, n_features)
        """
        from ..spaces import embed

        ref = self._ref(s)
        enc = self.encoding(space)
        rows = np.arange(self.size(ref), dtype=np.int64) if ref.rows is None else ref.rows
        for a in range(0, rows.shape[0], rows_per_block):
            yield embed(enc, ref.base, rows[a:a + rows_per_block])

    # searches -----------------------------------------------------------------------------------------------
    def _ref(self, s: str | SetRef) -> SetRef:
        return s if isinstance(s, SetRef) else SetRef(s)

    def request(self, space: str | SpaceSpec, query: str | SetRef, ref: str | SetRef, k: int) -> SearchRequest:
        """For a plan: ``compute`` will call :meth:`knn` with these arguments (and at most this ``k``).

        Returns
        -------
        SearchRequest
            Nothing is searched; the evaluation runs each planned (space, query, ref) once, with the largest ``k``
            any of its metrics requested.
        """
        return SearchRequest(self.space(space), self._ref(query), self._ref(ref), int(k))

    def tree_request(self, space: str | SpaceSpec, ref: str | SetRef) -> TreeRequest:
        """For a plan: ``compute`` will read the tree of ``ref`` itself (:meth:`tree`, :meth:`farthest`)."""
        return TreeRequest(self.space(space), self._ref(ref))

    def knn(self, space: str | SpaceSpec, query: str | SetRef, ref: str | SetRef, k: int) -> nb.NeighborTable:
        """The ``k`` nearest records of ``ref`` for every record of ``query``, exact.

        Parameters
        ----------
        space : str or SpaceSpec
            The distance space (``"gower"``, ``"euclidean"``, ``"hamming"``, ``"projected"`` or a spec).
        query : str or SetRef
            The records whose neighbours are sought (n_query of them).
        ref : str or SetRef
            The records searched.
        k : int
            Number of neighbours.

        Returns
        -------
        NeighborTable
            ``dist``: ndarray of float64, shape (n_query, k), ascending along each row; ``idx``: ndarray of int64,
            shape (n_query, k), positions in ``ref`` (within the subset for a subset). Slots beyond the number
            of references hold ``inf`` and ``-1``.

        Notes
        -----
        Searched at the first call only, with the largest ``k`` planned for (space, query, ref), and cached; a
        call with that ``k`` or less returns the first ``k`` columns of the cached table without searching. A
        call with a larger ``k`` than is cached searches again at that ``k``. When ``query`` and ``ref`` are the
        same set or subset, each record is left out of its own neighbours (by position; identical records
        elsewhere in the set remain). Ties, within the package's tolerance, go to the lowest reference position.
        With a Dask client, a search against a sharded reference set keeps its table on the workers: the table
        returned reads ``dist`` and ``idx`` (its ``k`` columns only) when they are first used, and holds them as
        long as it is held. See :class:`Context`.
        """
        return self._engine.knn(self.space(space), self._ref(query), self._ref(ref), int(k))

    def cached_table(self, space: str | SpaceSpec, query: str | SetRef,
                     ref: str | SetRef) -> nb.NeighborTable | None:
        """The neighbour table of ``(space, query, ref)`` if a metric already searched it, else None.

        Never searches: presentation code reads tables through this. The table has every column searched (the
        largest ``k`` planned), not only those one metric read. A table kept on a Dask cluster's workers (a
        sharded search) is read when its arrays are used, every column of them: ``head(k)`` reads only the first
        ``k``.
        """
        return self._engine.tables.get((self.space(space), self._ref(query).key, self._ref(ref).key))

    def tree(self, space: str | SpaceSpec, ref: str | SetRef) -> nb.RefTree:
        """The search tree of ``ref`` (cached; a metric that reads it declares a :meth:`tree_request` in its plan,
        so that the tree is kept until the metric has been computed)."""
        return self._engine.tree(self.space(space), self._ref(ref))

    def query_arrays(self, space: str | SpaceSpec,
                     query: str | SetRef) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
        """The encoded rows of ``query`` in ``space``: numeric coordinates, shape (n_query, q), float64, and
        category codes, shape (n_query, c), int64, both C-contiguous (what the search kernels take)."""
        enc = self.encoding(space)
        q = self._ref(query)
        qn = enc.num[q.base] if q.rows is None else enc.num[q.base][q.rows]
        qc = enc.cat[q.base] if q.rows is None else enc.cat[q.base][q.rows]
        return np.ascontiguousarray(qn), np.ascontiguousarray(qc)

    def farthest(self, space: str | SpaceSpec, a: str | SetRef, b: str | SetRef) -> tuple[float, int, int]:
        """Exact farthest pair between sets ``a`` and ``b`` (memoised).

        Returns
        -------
        (d_max, i, j) : tuple of (float, int, int)
            The largest distance between a record of ``a`` and one of ``b``, at positions ``i`` in ``a`` and ``j``
            in ``b``. Reads the two sets' trees: plan a :meth:`tree_request` for each.
        """
        spec = self.space(space)
        return self.memo(("farthest", spec, a, b),
                         lambda: nb.farthest_pair(self.encoding(spec), self.tree(spec, a), self.tree(spec, b)))

    # identity -----------------------------------------------------------------------------------------------
    def record_ids(self, s: str | SetRef) -> NDArray[np.integer]:
        """An id per record of a set (or of a subset's rows, in their order), shape (n,), integer (int32 where a
        Dask join made them, int64 otherwise): two records have equal ids exactly when they are identical, across
        all sets (``docs/metrics.md``, section "Shared machinery")."""
        ref = self._ref(s)
        ids = self._engine.record_ids(ref.base)
        return ids if ref.rows is None else ids[ref.rows]

    def one_column_matches(self, query: str, ref: str) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """For each record of set ``query``: the first column on which alone a record of set ``ref`` differs from
        it (within one set, the record itself left out and exact duplicates not counted), and that record's
        position; -1 where none (:func:`synthpriv_report.matching.identity.one_column_matches`). Not cached here: a
        metric
        memoises what it keeps.

        Returns
        -------
        column, partner : int arrays, shape (n_query,)
        """
        return self._engine.one_column_matches(query, ref)

    @property
    def on_cluster(self) -> bool:
        """Whether the evaluation runs its searches and joins on a Dask cluster."""
        return self._engine.backend.remote

    def other_column_ids(self, query: str, ref: str, j: int) -> tuple[NDArray[np.integer], NDArray[np.integer]] | None:
        """With a Dask client, shared ids of the records of sets ``query`` and ``ref`` by every column but column
        ``j`` (numeric columns first, then categorical, as :func:`synthpriv_report.matching.identity.cell_words` orders
        them; numbers at the synthetic columns' precision): equal ids exactly when the records are equal on
        those columns, by a hash-partitioned join on the workers whose blocks' cell words the calling process
        makes from each block's rows alone. ``None`` without a client, or where the join met a collision of
        64-bit keys: the caller then compares the records in this process. Not cached here."""
        return self._engine.other_column_ids(query, ref, j)

    def key_groups(self, columns: Iterable[str], a: str, b: str) -> tuple[NDArray[np.int64], NDArray[np.int64], int]:
        """Shared ids of the records of sets ``a`` and ``b`` by their values in ``columns`` (exact values,
        missing equal to missing), dense from 0, and the number of distinct combinations; on the workers with a
        Dask client (:meth:`_Engine.key_groups`). Not cached here: a metric memoises what it keeps.

        Returns
        -------
        ids_a, ids_b : int arrays, shapes (n_a,), (n_b,)
        n_groups : int
        """
        return self._engine.key_groups(tuple(columns), a, b)

    def identical_in(self, query: str | SetRef, ref: str | SetRef) -> NDArray[np.bool_]:
        """For each query record: has ``ref`` an identical record?

        Returns
        -------
        ndarray of bool, shape (n_query,)
            Within one set (equal keys) the record itself does not count, an exact duplicate elsewhere does.
        """
        q, r = self._ref(query), self._ref(ref)
        if q.key == r.key:  # the set's ids read once; a record repeated in it (one byte per id, no count)
            from ..matching.identity import repeated_ids

            return repeated_ids(self.record_ids(q))
        qi, ri = self.record_ids(q), self.record_ids(r)
        # ids are small non-negative integers: a flag per id, not a sort of both sets' ids (np.isin)
        present = np.zeros(int(max(qi.max(initial=-1), ri.max(initial=-1))) + 1, dtype=bool)
        present[ri] = True
        found: NDArray[np.bool_] = present[qi]
        return found

    # generic memo -------------------------------------------------------------------------------------------
    def memo(self, key: Hashable, fn: Callable[[], R]) -> R:
        """Cache the result of an expensive step (a fit, a subsample, arrays several metrics read) on the
        evaluation.

        Parameters
        ----------
        key : hashable
            Names the step and everything its result depends on: the roles (``ctx.S``, ``ctx.H``), the space,
            ``random_state``. The cache is shared by every metric and by the calibration context.
        fn : callable
            Computes the result; called only when ``key`` is not cached.

        Returns
        -------
        object
            ``fn()``'s result: the same object at every later call with ``key``; with a Dask client, a result that
            holds :data:`MEMO_KEPT_BYTES` or more of arrays is kept on a worker, and every later call reads a copy
            of it (equal, not the same object), so that the calling process does not hold every step's per-record
            arrays at once. Callers never change a result in place.

        Examples
        --------
        >>> import pandas as pd
        >>> from synthpriv_report import Evaluation
        >>> ctx = Evaluation(pd.DataFrame({"x": [0.0, 1.0]}), pd.DataFrame({"x": [0.5]}), progress=False).context
        >>> ctx.peek(("doc", "answer")) is None
        True
        >>> ctx.memo(("doc", "answer"), lambda: 42), ctx.memo(("doc", "answer"), lambda: 0)
        (42, 42)
        >>> ctx.peek(("doc", "answer"))
        42
        """
        engine = self._engine
        if key in engine.memo:
            try:
                return engine.recall(key)  # type: ignore[no-any-return]
            except LookupError:  # kept on a worker that is gone: computed again
                pass
        value = fn()
        engine.keep(key, value)
        return value

    def peek(self, key: Hashable) -> Any:
        """What :meth:`memo` cached under ``key``, or None (never computes; a step whose result is None reads the
        same as one not run, and so does one kept on a Dask worker that has gone since)."""
        try:
            return self._engine.recall(key) if key in self._engine.memo else None
        except LookupError:
            return None


#: What a memoised step returns (:meth:`Context.memo`).
R = TypeVar("R")
