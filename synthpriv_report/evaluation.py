"""The object users hold: validated data, lazy caches of encodings and neighbour tables, and ``results()``.

Expensive work (encodings, trees, neighbour searches, classifier fits) is cached on the evaluation; every
metric reduces cached arrays. ``results(alpha=...)`` with new reduction parameters never searches again.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from . import neighbors as nb
from .data import PreparedData, prepare
from .params import DEFAULT_VERDICT_METRICS, grade, level_rule, merge_params, thresholds
from .registry import MetricSpec, get_spec, metric_names
from .results import MetricResult, ResultSet, not_computed, to_jsonable
from .spaces import Encoding, Fitted, Projection, SpaceSpec, as_space, encode, fit, project
from .verdict import compute_verdict


# ---------------------------------------------------------------------------------------------------------------
# set references and search requests


@dataclass(frozen=True, eq=False)
class SetRef:
    """A record set: a whole set (``rows is None``) or a subset of one, identified by a tag.

    Neighbour positions returned for a subset are positions *within the subset*; ``rows`` maps them back to the
    base set.
    """

    base: str
    rows: NDArray[np.int64] | None = None
    tag: str = ""

    @property
    def key(self) -> tuple:
        if self.rows is None:
            return (self.base, "", 0, "")
        digest = hashlib.sha1(np.ascontiguousarray(self.rows, dtype=np.int64).tobytes()).hexdigest()[:16]
        return (self.base, self.tag, int(self.rows.shape[0]), digest)

    @property
    def label(self) -> str:
        return self.base if self.rows is None else f"{self.base}[{self.tag}]"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SetRef) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)


@dataclass(frozen=True)
class SearchRequest:
    """A neighbour search a metric will ask for: ``k`` nearest records of ``ref`` for each record of ``query``."""

    space: SpaceSpec
    query: SetRef
    ref: SetRef
    k: int


@dataclass
class SearchRecord:
    """One executed search (for the search counter and the benchmark)."""

    space: str
    query: str
    ref: str
    k: int
    n_query: int
    n_ref: int
    seconds: float


# ---------------------------------------------------------------------------------------------------------------
# engine: caches shared by every context of one evaluation


class _Engine:
    def __init__(self, data: PreparedData, *, progress: bool):
        self.data = data
        self.fitted: Fitted = fit(data)
        self.progress = progress
        self.encodings: dict[SpaceSpec, Encoding] = {}
        self.projections: dict[SpaceSpec, Projection] = {}
        self.trees: dict[tuple, nb.RefTree] = {}
        self.tables: dict[tuple, nb.NeighborTable] = {}
        self.planned_k: dict[tuple, int] = {}
        self.searches: list[SearchRecord] = []
        self.memo: dict[Any, Any] = {}
        self._record_ids: dict[str, NDArray[np.int64]] | None = None

    # encodings ----------------------------------------------------------------------------------------------
    def encoding(self, spec: SpaceSpec) -> Encoding:
        if spec not in self.encodings:
            if spec.kind == "projected":
                base = SpaceSpec("euclidean", columns=spec.columns, weights=spec.weights)
                enc, proj = project(self.data, self.encoding(base), spec)
                self.projections[spec] = proj
            else:
                enc = encode(self.data, self.fitted, spec)
            self.encodings[spec] = enc
        return self.encodings[spec]

    def tree(self, spec: SpaceSpec, ref: SetRef) -> nb.RefTree:
        key = (spec, ref.key)
        if key not in self.trees:
            self.trees[key] = nb.build_tree(self.encoding(spec), ref.base, ref.rows)
        return self.trees[key]

    # searches -----------------------------------------------------------------------------------------------
    def plan(self, requests: Iterable[SearchRequest]) -> None:
        for r in requests:
            key = (r.space, r.query.key, r.ref.key)
            self.planned_k[key] = max(self.planned_k.get(key, 0), r.k)

    def knn(self, spec: SpaceSpec, query: SetRef, ref: SetRef, k: int) -> nb.NeighborTable:
        key = (spec, query.key, ref.key)
        table = self.tables.get(key)
        if table is not None and table.k >= k:
            return table.head(k)
        k_search = max(k, self.planned_k.get(key, 0))
        enc = self.encoding(spec)
        tree = self.tree(spec, ref)
        qn = enc.num[query.base] if query.rows is None else enc.num[query.base][query.rows]
        qc = enc.cat[query.base] if query.rows is None else enc.cat[query.base][query.rows]
        t0 = time.perf_counter()
        dist, idx = nb.knn(tree, np.ascontiguousarray(qn), np.ascontiguousarray(qc), k=k_search,
                           exclude_self=(query.key == ref.key), progress=self.progress,
                           desc=f"{spec.label}: {query.label} -> {ref.label}")
        self.searches.append(SearchRecord(spec.label, query.label, ref.label, k_search, len(qn), tree.size,
                                          time.perf_counter() - t0))
        table = nb.NeighborTable(dist, idx, spec.label, query.label, ref.label)
        self.tables[key] = table
        return table.head(k)

    # identity of records --------------------------------------------------------------------------------------
    def record_ids(self) -> dict[str, NDArray[np.int64]]:
        """An id per record of every set; equal ids exactly when the records are identical (spec section 0)."""
        if self._record_ids is None:
            d = self.data
            parts = []
            for s in d.sets:
                num = d.numeric[s] + 0.0  # -0.0 == 0.0
                bits = num.view(np.int64).copy()
                bits[np.isnan(num)] = np.int64(0x7FF8000000000000)
                parts.append(np.concatenate([bits, self.fitted.codes[s]], axis=1))
            allrows = np.concatenate(parts, axis=0)
            if allrows.shape[1] == 0:
                inv = np.zeros(allrows.shape[0], dtype=np.int64)
            else:
                _, inv = np.unique(allrows, axis=0, return_inverse=True)
            inv = inv.reshape(-1).astype(np.int64)
            ids, start = {}, 0
            for s in d.sets:
                ids[s] = inv[start:start + d.sizes[s]]
                start += d.sizes[s]
            self._record_ids = ids
        return self._record_ids


class Context:
    """What a metric's ``compute`` and ``plan`` see: the data, cached spaces and searches, and the roles.

    In the calibration context (spec section 4) the holdout plays the synthetic role: ``ctx.S == "H"`` and no
    holdout is available.
    """

    def __init__(self, engine: _Engine, settings: Mapping[str, Any], *, syn: str = "S",
                 holdout: str | None = "H", calibration: bool = False):
        self._engine = engine
        self.settings = dict(settings)
        self.T = "T"
        self.S = syn
        self.H = holdout if holdout in engine.data.sizes else None
        self.is_calibration = calibration

    # data ---------------------------------------------------------------------------------------------------
    @property
    def data(self) -> PreparedData:
        return self._engine.data

    @property
    def fitted(self) -> Fitted:
        return self._engine.fitted

    @property
    def random_state(self) -> int | None:
        return self.settings["random_state"]

    def size(self, s: str | SetRef) -> int:
        if isinstance(s, SetRef):
            return self.data.sizes[s.base] if s.rows is None else int(s.rows.shape[0])
        return self.data.sizes[s]

    def full(self, base: str) -> SetRef:
        return SetRef(base)

    def subset(self, base: str, rows: NDArray[np.int64], tag: str) -> SetRef:
        return SetRef(base, np.asarray(rows, dtype=np.int64), tag)

    def calibration(self) -> "Context":
        """The same caches with H in the role of S (only when a holdout exists)."""
        return Context(self._engine, self.settings, syn="H", holdout=None, calibration=True)

    # spaces -------------------------------------------------------------------------------------------------
    def space(self, name: str | SpaceSpec) -> SpaceSpec:
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
        return self._engine.encoding(self.space(space))

    def projection(self, space: str | SpaceSpec = "projected") -> Projection:
        spec = self.space(space)
        self._engine.encoding(spec)
        return self._engine.projections[spec]

    def embedding(self, set_name: str, space: str | SpaceSpec = "euclidean") -> NDArray[np.float64]:
        """Dense one-hot euclidean embedding (classifier features), cached."""
        from .spaces import embed

        spec = self.space(space)
        return self.memo(("embedding", spec, set_name), lambda: embed(self.encoding(spec), set_name))

    # searches -----------------------------------------------------------------------------------------------
    def _ref(self, s: str | SetRef) -> SetRef:
        return s if isinstance(s, SetRef) else SetRef(s)

    def request(self, space: str | SpaceSpec, query: str | SetRef, ref: str | SetRef, k: int) -> SearchRequest:
        return SearchRequest(self.space(space), self._ref(query), self._ref(ref), int(k))

    def knn(self, space: str | SpaceSpec, query: str | SetRef, ref: str | SetRef, k: int) -> nb.NeighborTable:
        """k nearest records of ``ref`` for every record of ``query`` (cached; a within-set search excludes each
        record itself by position)."""
        return self._engine.knn(self.space(space), self._ref(query), self._ref(ref), int(k))

    def cached_table(self, space: str | SpaceSpec, query: str | SetRef,
                     ref: str | SetRef) -> nb.NeighborTable | None:
        """The neighbour table of ``(space, query, ref)`` if a metric already searched it, else None.

        Never searches: presentation code reads tables through this.
        """
        return self._engine.tables.get((self.space(space), self._ref(query).key, self._ref(ref).key))

    def tree(self, space: str | SpaceSpec, ref: str | SetRef) -> nb.RefTree:
        return self._engine.tree(self.space(space), self._ref(ref))

    def query_arrays(self, space: str | SpaceSpec, query: str | SetRef):
        enc = self.encoding(space)
        q = self._ref(query)
        qn = enc.num[q.base] if q.rows is None else enc.num[q.base][q.rows]
        qc = enc.cat[q.base] if q.rows is None else enc.cat[q.base][q.rows]
        return np.ascontiguousarray(qn), np.ascontiguousarray(qc)

    def farthest(self, space: str | SpaceSpec, a: str, b: str) -> tuple[float, int, int]:
        """Exact farthest pair between sets ``a`` and ``b`` (cached)."""
        spec = self.space(space)
        return self.memo(("farthest", spec, a, b),
                         lambda: nb.farthest_pair(self.encoding(spec), self.tree(spec, a), self.tree(spec, b)))

    # identity -----------------------------------------------------------------------------------------------
    def record_ids(self, s: str | SetRef) -> NDArray[np.int64]:
        ref = self._ref(s)
        ids = self._engine.record_ids()[ref.base]
        return ids if ref.rows is None else ids[ref.rows]

    def identical_in(self, query: str | SetRef, ref: str | SetRef) -> NDArray[np.bool_]:
        """For each query record: has ``ref`` an identical record (spec section 0)? Within one set the record
        itself does not count, an exact duplicate elsewhere does."""
        q, r = self._ref(query), self._ref(ref)
        qi, ri = self.record_ids(q), self.record_ids(r)
        if q.key == r.key:
            counts = np.bincount(ri)
            return counts[qi] >= 2
        return np.isin(qi, ri)

    # generic memo -------------------------------------------------------------------------------------------
    def memo(self, key: Any, fn: Callable[[], Any]) -> Any:
        """Cache the result of an expensive step (a fit, a subsample) on the evaluation."""
        store = self._engine.memo
        if key not in store:
            store[key] = fn()
        return store[key]


# ---------------------------------------------------------------------------------------------------------------


def _versions() -> dict[str, str]:
    import importlib.metadata as md

    out = {}
    for name in ("synthpriv_report", "numpy", "pandas", "scipy", "scikit-learn", "numba", "matplotlib"):
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            out[name] = "not installed"
    import platform

    out["python"] = platform.python_version()
    return out


class Evaluation:
    """Privacy evaluation of a synthetic dataset against the real data it was trained on.

    Parameters
    ----------
    real : DataFrame
        Real training records T (the data the generator saw).
    synthetic : DataFrame
        Synthetic records S.
    holdout : DataFrame, optional
        Real records the generator did not see (H); enables holdout comparisons and calibration.
    key_fields, sensitive_fields : sequence of str, optional
        Key attributes A_K and sensitive attributes A_S of the review-paper metrics (spec section 3); default
        A_K = every column not in A_S.
    pairing : array-like of shape (n_pairs, 2), optional
        The generator's (real position, synthetic position) pairs, for ``hidden_rate``.
    numeric, categorical, exclude : sequence of str, optional
        Column kind overrides and columns left out (spec section 0).
    spaces : str or dict, optional
        Distance space for the distance-based metrics: one name for all, or ``{metric: space}``.
    nndr_k : int, default 5
        Neighbours of t* in the NNDR denominator (spec 2.4).
    n_components : int or float, optional
        Projected space components (default 0.95 of explained variance).
    max_rows : int, default 20000
        Per-class cap of the classifier metrics.
    metrics : sequence of str, optional
        Metrics this evaluation computes (default all registered).
    verdict_metrics : sequence of str, optional
        Metrics that drive the headline verdict (default spec section 5).
    calibrate : bool, default True
        Also compute each comparable metric with H in the role of S (spec section 4).
    random_state : int, default 0
        Seed of every random step.
    progress : bool, default True
        Progress bars for long searches.
    reveal_real_values : bool, default False
        Whether per-record views and exports may show raw real values.
    **params
        Default reduction parameters (``alpha``, ``nndr_threshold``, ...; see :data:`params.DEFAULT_PARAMS`).

    Examples
    --------
    >>> import pandas as pd
    >>> T = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0], "c": list("abab")})
    >>> ev = Evaluation(T, T.copy(), progress=False, calibrate=False)
    >>> ev.results(metrics=["exact_copies"])["exact_copies"].value
    1.0
    """

    def __init__(
        self,
        real: pd.DataFrame,
        synthetic: pd.DataFrame,
        holdout: pd.DataFrame | None = None,
        *,
        key_fields: Sequence[str] | None = None,
        sensitive_fields: Sequence[str] | None = None,
        pairing: Any = None,
        numeric: Sequence[str] | None = None,
        categorical: Sequence[str] | None = None,
        exclude: Sequence[str] | None = None,
        spaces: str | Mapping[str, str] | None = None,
        nndr_k: int = 5,
        n_components: int | float | None = None,
        max_rows: int = 20_000,
        metrics: Sequence[str] | None = None,
        verdict_metrics: Sequence[str] | None = None,
        calibrate: bool = True,
        random_state: int | None = 0,
        progress: bool = True,
        reveal_real_values: bool = False,
        **params: Any,
    ):
        self.data = prepare(real, synthetic, holdout, numeric=numeric, categorical=categorical, exclude=exclude)
        cols = set(self.data.columns)
        sensitive = list(sensitive_fields or [])
        for arg, fields in (("sensitive_fields", sensitive), ("key_fields", list(key_fields or []))):
            bad = [c for c in fields if c not in cols]
            if bad:
                raise ValueError(f"{arg} names column(s) not analysed: {', '.join(map(repr, bad))}")
        keys = list(key_fields) if key_fields else [c for c in self.data.columns if c not in sensitive]
        if not keys:
            raise ValueError("no key fields: every analysed column is sensitive; pass key_fields=")
        if not isinstance(nndr_k, (int, np.integer)) or nndr_k < 1:
            raise ValueError(f"nndr_k must be a positive integer, got {nndr_k!r}")
        if isinstance(spaces, Mapping):
            for m, sp in spaces.items():
                spec = get_spec(m)
                if not spec.space_choosable:
                    raise ValueError(f"metric {m!r} has a fixed space; its space cannot be chosen")
                as_space(sp)
        elif spaces is not None:
            as_space(spaces)
        pairs = None
        if pairing is not None:
            pairs = np.asarray(pairing, dtype=np.int64)
            if pairs.ndim != 2 or pairs.shape[1] != 2:
                raise ValueError("pairing must be an array of (real position, synthetic position) pairs")
            if pairs.size and (pairs[:, 0].min() < 0 or pairs[:, 0].max() >= self.data.sizes["T"]
                               or pairs[:, 1].min() < 0 or pairs[:, 1].max() >= self.data.sizes["S"]):
                raise ValueError("pairing holds positions outside the real or synthetic data")
        self.metric_names = list(metrics) if metrics is not None else metric_names()
        for m in self.metric_names:
            get_spec(m)
        self.verdict_metrics = tuple(verdict_metrics) if verdict_metrics is not None else DEFAULT_VERDICT_METRICS
        self.default_params = merge_params(params)
        self.settings: dict[str, Any] = {
            "key_fields": tuple(keys),
            "sensitive_fields": tuple(sensitive),
            "pairing": pairs,
            "spaces": dict(spaces) if isinstance(spaces, Mapping) else spaces,
            "nndr_k": int(nndr_k),
            "n_components": n_components,
            "max_rows": int(max_rows),
            "random_state": random_state,
            "calibrate": bool(calibrate),
            "reveal_real_values": bool(reveal_real_values),
        }
        self._engine = _Engine(self.data, progress=progress)
        self._ctx = Context(self._engine, self.settings)
        self._result_cache: dict[tuple, MetricResult] = {}
        self._planned: set[str] = set()

    # ---------------------------------------------------------------------------------------------------------
    @property
    def context(self) -> Context:
        """The context metrics read from (cached spaces and searches)."""
        return self._ctx

    @property
    def searches(self) -> list[SearchRecord]:
        """Every neighbour search executed so far (each (space, query, reference) at most once)."""
        return list(self._engine.searches)

    @property
    def search_count(self) -> int:
        return len(self._engine.searches)

    def computed_metrics(self) -> frozenset[str]:
        """Names of the metrics computed so far (with any settings), whose tables are therefore cached."""
        return frozenset(r.name for r in self._result_cache.values() if r.computed)

    @property
    def fingerprints(self) -> dict[str, str]:
        return dict(self.data.fingerprints)

    def _missing_needs(self, spec: MetricSpec) -> str | None:
        if "holdout" in spec.needs and not self.data.has_holdout:
            return "needs a holdout set (holdout=): real records the generator did not see"
        if "sensitive_fields" in spec.needs and not self.settings["sensitive_fields"]:
            return "needs sensitive attributes (sensitive_fields=)"
        if "pairing" in spec.needs and self.settings["pairing"] is None:
            return "needs the generator's pairing of real and synthetic records (pairing=)"
        return None

    def _cache_key(self, spec: MetricSpec, params: Mapping[str, Any]) -> tuple:
        # a level override only concerns the metric it names (and the shared section-3 rules), so moving one
        # threshold re-reduces one metric, not all of them
        levels = params.get("levels") or {}
        own = tuple(sorted((k, repr(v)) for k, v in levels.items()
                           if k in (spec.name, "review_excess", "review_absolute")))
        used = tuple(spec.params) + ("n_bootstrap",)
        return (spec.name, tuple((p, repr(params.get(p))) for p in used), own)

    def results(self, metrics: Sequence[str] | None = None, **params: Any) -> ResultSet:
        """Compute (or re-reduce) the metrics.

        Parameters
        ----------
        metrics : sequence of str, optional
            Only these metrics, and only the searches they need (default: every metric of this evaluation).
        **params
            Reduction parameters (``alpha``, ``nndr_threshold``, ``cvp_threshold``, ``levels``, ...). Changing
            them re-reduces cached arrays; no neighbour search runs again.

        Returns
        -------
        ResultSet
        """
        merged = dict(self.default_params)
        if params:
            merge_params(params)  # validates the names
            merged.update(params)
        names = list(metrics) if metrics is not None else list(self.metric_names)
        specs = [get_spec(n) for n in names]
        todo = [s for s in specs if self._cache_key(s, merged) not in self._result_cache]
        calib = self._ctx.calibration() if (self.settings["calibrate"] and self.data.has_holdout) else None
        # plan the union of the searches of every metric this evaluation may compute, once, so that each
        # (space, query, ref) is searched once with the largest k any metric needs, whatever order metrics are
        # asked in; planning records k only, searches still run when a metric needs them
        unplanned = [get_spec(n) for n in dict.fromkeys(list(self.metric_names) + names)
                     if n not in self._planned]
        requests: list[SearchRequest] = []
        for s in unplanned:
            self._planned.add(s.name)
            if s.plan is None or self._missing_needs(s) is not None:
                continue
            requests.extend(s.plan(self._ctx, merged))
            if calib is not None and s.calibratable:
                requests.extend(s.plan(calib, merged))
        self._engine.plan(requests)
        for s in todo:
            reason = self._missing_needs(s)
            if reason is not None:
                res = not_computed(s.name, reason)
            else:
                res = s.compute(self._ctx, merged)
                if calib is not None and s.calibratable and res.computed:
                    cres = s.compute(calib, merged)
                    if cres.computed:
                        res = replace(res, calibration=cres.value)
                res = _regrade_on_calibration(s, res, merged)
            res = replace(res, name=s.name, title=s.title, section=s.section, direction=s.direction,
                          value_range=s.value_range)
            res = _attach_notes(self, s, res)
            self._result_cache[self._cache_key(s, merged)] = res
        out = {s.name: self._result_cache[self._cache_key(s, merged)] for s in specs}
        verdict = compute_verdict(out, self.verdict_metrics)
        return ResultSet(out, verdict, {k: v for k, v in merged.items()})

    # ---------------------------------------------------------------------------------------------------------
    def settings_dict(self) -> dict[str, Any]:
        """JSON-safe settings needed to reproduce the evaluation."""
        s = dict(self.settings)
        s["pairing"] = None if s["pairing"] is None else f"{len(s['pairing'])} pairs"
        s["columns"] = {c: self.data.kinds[c] for c in self.data.columns}
        s["excluded"] = list(self.data.excluded)
        s["sizes"] = dict(self.data.sizes)
        s["verdict_metrics"] = list(self.verdict_metrics)
        s["default_params"] = self.default_params
        return to_jsonable(s)

    def to_dict(self, **params: Any) -> dict[str, Any]:
        """JSON-safe dictionary: results, settings, data fingerprints, package versions."""
        res = self.results(**params)
        return to_jsonable(
            {
                "results": res.to_dict(),
                "settings": self.settings_dict(),
                "fingerprints": self.fingerprints,
                "versions": _versions(),
                "data_notes": list(self.data.notes),
            }
        )

    def __repr__(self) -> str:
        sizes = ", ".join(f"{k}={v}" for k, v in self.data.sizes.items())
        return f"Evaluation({sizes}, columns={len(self.data.columns)}, searches={self.search_count})"

    # ---------------------------------------------------------------------------------------------------------
    # presentation and export: thin delegations; the modules they call only read results

    def __getitem__(self, name: str) -> MetricResult:
        """One metric's result with the default parameters (``ev["privacy_score"]``)."""
        get_spec(name)
        return self.results(metrics=[name])[name]

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        from .display import bundle

        return bundle(self, include=include, exclude=exclude)

    def explore(self, **params: Any) -> Any:
        """Interactive widgets: sliders move alpha and thresholds; cached arrays are re-reduced live."""
        from .display import explore

        return explore(self, **params)

    def explain(self, real_index: int) -> Any:
        """One real record's view: its nearest synthetic and real neighbours and what each metric concluded."""
        from .display import explain

        return explain(self, real_index)

    def records_at_risk(self, **params: Any) -> pd.DataFrame:
        """The per-record risk table of spec section 4 (real values masked unless revealed)."""
        from .risk import records_at_risk

        return records_at_risk(self, **params)

    def to_html(self, path: Any, **kwargs: Any) -> Any:
        """Write the self-contained HTML report."""
        from .export import to_html

        return to_html(self, path, **kwargs)

    def to_pdf(self, path: Any, **kwargs: Any) -> Any:
        """Write the paginated A4 PDF report."""
        from .export import to_pdf

        return to_pdf(self, path, **kwargs)

    def to_json(self, path: Any = None, **kwargs: Any) -> Any:
        """Write (or return) the versioned JSON report."""
        from .export import to_json

        return to_json(self, path, **kwargs)

    @staticmethod
    def from_json(path: Any) -> Any:
        """Load a JSON report to re-render HTML/PDF without the raw data."""
        from .export import from_json

        return from_json(path)


def _regrade_on_calibration(spec: MetricSpec, res: MetricResult, params: Mapping[str, Any]) -> MetricResult:
    """Section 3 metrics are not zero at an ideal generator (spec section 0, Direction): with a calibration value
    (H in the role of S), their level is set on the excess over it (``review_excess`` thresholds), unless the
    caller set thresholds for this metric by name."""
    levels = params.get("levels") or {}
    if (not spec.section.startswith("3") or res.calibration is None or res.value is None
            or spec.direction != "higher_is_riskier" or spec.name in levels):
        return res
    t = thresholds("review_excess", levels)
    excess = float(res.value) - float(res.calibration)
    level = grade(excess, "higher_is_riskier", medium=t["medium"], high=t["high"])
    details = dict(res.details)
    details["excess_over_calibration"] = excess
    details["level_without_calibration"] = res.level
    return replace(res, level=level, level_rule=level_rule("review_excess", levels), details=details)


def _attach_notes(ev: Evaluation, spec: MetricSpec, res: MetricResult) -> MetricResult:
    """Add applicability notes (hook filled by :mod:`synthpriv_report.applicability` when present)."""
    try:
        from .applicability import notes_for
    except ImportError:
        return res
    extra = tuple(notes_for(ev, spec, res))
    return replace(res, notes=tuple(res.notes) + extra) if extra else res
