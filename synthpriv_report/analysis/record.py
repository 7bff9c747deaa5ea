"""One real record, explained: its nearest synthetic and real neighbours and what the per-record checks conclude.

Searches. The view reads the neighbour tables the metrics already cached (T→T in the DCR space, S→T) when
present. The record's own nearest synthetic record is found with a *single-record* query against the cached
reference tree of S (and likewise for its nearest real neighbour when the T→T table is not cached): one query
row, not a search over a whole set, so it is not recorded in ``ev.search_count``. The first call may build the
tree of S in that space (once per evaluation).

Masking. Unless ``ev.settings["reveal_real_values"]`` is true, no value of the real record is shown, and neither
are the neighbours' values (a neighbour's value in a column that does not differ *is* the real value): the view
then lists which columns differ, not the values.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from .. import neighbors as nb
from .. import stats
from ..core.formats import fmt_number
from ..core.results import to_jsonable
from .risk import record_values


def differing_columns(data: Any, a: tuple[str, int], b: tuple[str, int]) -> list[str]:
    """Columns whose values differ between record ``a`` and record ``b`` (the package's equality of values:
    docs/metrics.md, "Sets and columns")."""
    out = []
    for c in data.columns:
        va = data.column_values(a[0], c)[a[1]]
        vb = data.column_values(b[0], c)[b[1]]
        if data.kinds[c] == "numeric":
            same = (np.isnan(va) and np.isnan(vb)) or float(va) == float(vb)
        else:
            same = str(va) == str(vb)
        if not same:
            out.append(c)
    return out


def _nearest_one(ctx: Any, space: Any, row: int, ref: str, *, exclude: int | None = None) -> tuple[float, int]:
    """Nearest record of ``ref`` to real record ``row`` (single-record query on the cached tree)."""
    tree = ctx.tree(space, ref)
    qn, qc = ctx.query_arrays(space, "T")
    k = 2 if exclude is not None else 1
    k = min(k, ctx.size(ref))
    dist, idx = nb.knn(tree, np.ascontiguousarray(qn[row:row + 1]), np.ascontiguousarray(qc[row:row + 1]), k=k)
    for d, j in zip(dist[0], idx[0]):
        if j >= 0 and j != exclude:
            return float(d), int(j)
    return float("inf"), -1


@dataclass(frozen=True)
class RecordExplanation:
    """The explanation of one real record (returned by ``Evaluation.explain``); shown richly in a notebook.

    Attributes
    ----------
    real_index : int
        Position of the record in the caller's real training data.
    space : str
        The distance space (the DCR metric's).
    nearest_synthetic, nearest_real : dict
        ``{"index", "distance", "differing_columns"}`` of the nearest synthetic record and nearest other real
        record (indices are the caller's row positions).
    conclusions : list of (check, verdict text)
        What each per-record check concludes for this record.
    values : list of dict or None
        Column values (real, nearest synthetic, nearest real) when ``reveal_real_values`` is on, else None.
    columns : list of str
        The analysed columns.
    revealed : bool
        Whether real values are shown.
    """

    real_index: int
    space: str
    nearest_synthetic: dict[str, Any]
    nearest_real: dict[str, Any]
    conclusions: list[tuple[str, str]]
    values: list[dict[str, Any]] | None
    columns: list[str]
    revealed: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dictionary of every field."""
        return to_jsonable(asdict(self))

    def _text(self) -> str:
        lines = [f"Real record {self.real_index} (space {self.space})"]
        for label, nbr in (("nearest synthetic", self.nearest_synthetic), ("nearest real", self.nearest_real)):
            lines.append(f"  {label}: #{nbr['index']} at distance {fmt_number(nbr['distance'])}; columns that "
                         f"differ: {', '.join(nbr['differing_columns']) or 'none'}")
        for check, text in self.conclusions:
            lines.append(f"  - {check}: {text}")
        if self.values is None:
            lines.append("  (real values masked; pass reveal_real_values=True to the Evaluation to show them)")
        return "\n".join(lines)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, str]:
        # the one way up from analysis to presentation, for the object's own notebook view (as pandas' to_html):
        # named in the import-linter contract's exceptions
        from ..display.record import record_bundle

        return record_bundle(self)

    def __repr__(self) -> str:
        return self._text()


def explain_record(ev: Any, real_index: int) -> RecordExplanation:
    """Explain one real training record (see the module docstring for searches and masking).

    Parameters
    ----------
    ev : Evaluation
    real_index : int
        Position in the real training data, ``0 <= real_index < |T|``.

    Returns
    -------
    RecordExplanation
    """
    ctx = ev.context
    n_t = ev.data.sizes["T"]
    if isinstance(real_index, (bool, np.bool_)) or not isinstance(real_index, (int, np.integer)):
        raise TypeError(f"real_index must be an integer position in the real data, 0 to {n_t - 1}; got "
                        f"{real_index!r} ({type(real_index).__name__})")
    if not 0 <= int(real_index) < n_t:
        raise ValueError(f"real_index must be a position in the real data, 0 to {n_t - 1}; got {real_index!r}")
    # the caller's row position, held at another position when the evaluation keeps its records in canonical order
    i = int(ev.data.prepared_rows("T", np.array([int(real_index)]))[0])
    space = ctx.metric_space("dcr", "gower")
    d_s, j_s = _nearest_one(ctx, space, i, ctx.S)
    tt = ctx.cached_table(space, "T", "T")
    if tt is not None:
        tt = tt.head(1)  # the nearest only (a table kept on a cluster's workers sends that column alone)
        d_t, j_t = float(tt.dist[i, 0]), int(tt.idx[i, 0])
    else:
        d_t, j_t = _nearest_one(ctx, space, i, "T", exclude=i)
    data = ev.data
    diff_s = differing_columns(data, ("T", i), ("S", j_s)) if j_s >= 0 else []
    diff_t = differing_columns(data, ("T", i), ("T", j_t)) if j_t >= 0 else []
    exact = space.kind in ("hamming",)
    conclusions: list[tuple[str, str]] = []
    copy = bool(np.isin(ctx.record_ids("T")[i], ctx.record_ids("S")))
    n_copies = int(np.sum(ctx.record_ids("S") == ctx.record_ids("T")[i]))
    conclusions.append(("exact copy", f"yes: {n_copies} synthetic record(s) identical to it" if copy else
                        "no synthetic record is identical to it"))
    if stats.less(d_s, d_t, exact=exact):
        closer = "yes: its nearest synthetic record is closer than its nearest real neighbour"
    elif stats.ties(d_s, d_t, exact=exact):
        closer = "tie: its nearest synthetic record is as close as its nearest real neighbour"
    else:
        closer = "no: its nearest real neighbour is closer than any synthetic record"
    conclusions.append(("closer to a synthetic record than to its real neighbour", closer))
    st = ctx.cached_table(space, ctx.S, "T")
    if st is not None:
        st = st.head(1)
        pointing = np.flatnonzero(st.idx[:, 0] == i)
        if pointing.size:
            conclusions.append(("synthetic records whose nearest real record is this one",
                                f"{pointing.size} (closest at distance "
                                f"{fmt_number(float(st.dist[pointing, 0].min()))})"))
        else:
            conclusions.append(("synthetic records whose nearest real record is this one", "none"))
    sensitive = list(ev.settings["sensitive_fields"])
    tol = float(ev.default_params.get("air_tolerance", 0.1))
    if not sensitive:
        conclusions.append(("attribute inferred", "no sensitive fields given (sensitive_fields=)"))
    elif j_s >= 0:
        for c in sensitive:
            y = data.column_values("T", c)[i]
            z = data.column_values("S", c)[j_s]
            if data.kinds[c] == "numeric":
                ok = (np.isnan(y) and np.isnan(z)) or (not np.isnan(y) and not np.isnan(z)
                                                       and abs(y - z) <= tol * abs(z))
            else:
                ok = str(y) == str(z)
            conclusions.append((f"attribute inferred ({c})",
                                "yes: the nearest synthetic record carries the same value" if ok else
                                "no: the nearest synthetic record carries a different value"))
    reveal = bool(ev.settings["reveal_real_values"])
    values = None
    if reveal:
        real = record_values(data, "T", i)
        syn = record_values(data, "S", j_s) if j_s >= 0 else {}
        rnb = record_values(data, "T", j_t) if j_t >= 0 else {}
        values = [{"column": c, "real": real[c], "synthetic": syn.get(c), "real_neighbour": rnb.get(c)}
                  for c in data.columns]
    caller = ev.data.caller_rows
    return RecordExplanation(
        real_index=int(real_index),
        space=space.label,
        nearest_synthetic={"index": int(caller("S", np.array([j_s]))[0]) if j_s >= 0 else j_s, "distance": d_s,
                           "differing_columns": diff_s},
        nearest_real={"index": int(caller("T", np.array([j_t]))[0]) if j_t >= 0 else j_t, "distance": d_t,
                      "differing_columns": diff_t},
        conclusions=conclusions,
        values=values,
        columns=list(data.columns),
        revealed=reveal,
    )
