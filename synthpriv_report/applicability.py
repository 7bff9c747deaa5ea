"""Applicability notes: where a metric's assumptions do not hold on these data (shown beside its value).

Called by :meth:`Evaluation.results` for every computed result (``_attach_notes``). Each check is cheap (column
counts, set sizes, distinct-value counts cached per evaluation); none searches.

Rules (package defaults):

- exact-match metrics (``zcap``, ``gcap``, ``crp``, ``hitting_rate``) on a numeric key column with many distinct
  values (more than :data:`CONTINUOUS_DISTINCT` distinct values and more than :data:`CONTINUOUS_SHARE` of the real
  records): exact matches on a continuous value are rare by construction, so the metric says little;
- distance metrics with more than :data:`MANY_COLUMNS` analysed columns: nearest and farthest distances lose
  contrast (concentration of distances);
- holdout metrics when the holdout is smaller than :data:`SMALL_HOLDOUT` of the training set: wide intervals;
- a tiny data set (fewer than :data:`TINY` records in T, H or S): every estimate is noisy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .registry import MetricSpec
from .results import MetricResult

EXACT_MATCH_METRICS = ("zcap", "gcap", "crp", "hitting_rate")
CONTINUOUS_DISTINCT = 50
CONTINUOUS_SHARE = 0.05
MANY_COLUMNS = 30
SMALL_HOLDOUT = 0.25
TINY = 100


def continuous_columns(ev: Any, columns: Any) -> list[str]:
    """Numeric columns among ``columns`` with many distinct real values (cached on the evaluation)."""
    data = ev.data

    def count() -> dict[str, int]:
        return {c: int(np.unique(data.column_values("T", c)).size) for c in data.numeric_columns}

    distinct = ev.context.memo(("applicability", "distinct"), count)
    n_t = data.sizes["T"]
    return [c for c in columns if c in distinct
            and distinct[c] > CONTINUOUS_DISTINCT and distinct[c] > CONTINUOUS_SHARE * n_t]


def notes_for(ev: Any, spec: MetricSpec, result: MetricResult) -> list[str]:
    """Notes on assumptions of ``spec`` that do not hold on the evaluation's data.

    Parameters
    ----------
    ev : Evaluation
    spec : MetricSpec
    result : MetricResult
        The metric's result; a metric not computed gets no note (its reason says why).

    Returns
    -------
    list of str
        Plain-language sentences, empty when every assumption holds.
    """
    from .display.views import remember

    remember(ev)  # lets ev["name"] find its evaluation when displayed (figures read its cached arrays)
    if not result.computed:
        return []
    data = ev.data
    notes: list[str] = []
    if spec.name in EXACT_MATCH_METRICS:
        cols = list(data.columns) if spec.name in ("crp", "hitting_rate") else list(ev.settings["key_fields"])
        cont = continuous_columns(ev, cols)
        if cont:
            kind = "tolerance match" if spec.name == "hitting_rate" else "exact match"
            notes.append(f"continuous key field(s) {', '.join(cont)}: a numeric column with many distinct values "
                         f"rarely matches by {kind}, so this metric is close to meaningless here; consider "
                         f"binning them or leaving them out of the key fields")
    uses_distance = spec.default_space is not None or result.space is not None
    if uses_distance and len(data.columns) > MANY_COLUMNS:
        notes.append(f"{len(data.columns)} analysed columns: with more than {MANY_COLUMNS} columns distances lose "
                     f"contrast (nearest and typical distances converge), which blunts distance-based metrics")
    if data.has_holdout and ("holdout" in spec.needs or result.calibration is not None):
        n_h, n_t = data.sizes["H"], data.sizes["T"]
        if n_h < SMALL_HOLDOUT * n_t:
            notes.append(f"the holdout ({n_h} records) is under {SMALL_HOLDOUT:.0%} of the training set ({n_t}): "
                         f"holdout comparisons and the calibration value are imprecise")
    small = {s: n for s, n in data.sizes.items() if n < TINY}
    if small:
        sizes = ", ".join(f"{s}={n}" for s, n in small.items())
        notes.append(f"tiny data set ({sizes} records): every estimate is noisy; read the intervals")
    return notes
