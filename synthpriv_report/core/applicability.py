"""Applicability notes: where a metric's assumptions do not hold on these data (shown beside its value).

Called by :meth:`Evaluation.results` for every computed result: each metric's declared checks, then the general
ones. Each check is cheap (column
counts, set sizes, distinct-value counts cached per evaluation); none searches.

Rules (package defaults):

- exact-match metrics (those that declare :func:`continuous_keys`) on a
  numeric key column with many distinct
  values (more than :data:`CONTINUOUS_DISTINCT` distinct values and more than :data:`CONTINUOUS_SHARE` of the real
  records): exact matches on a continuous value are rare by construction, so the metric says little;
- distance metrics with more than :data:`MANY_COLUMNS` analysed columns: nearest and farthest distances lose
  contrast (concentration of distances);
- holdout metrics when the holdout is smaller than :data:`SMALL_HOLDOUT` of the training set: wide intervals;
- a tiny data set (fewer than :data:`TINY` records in T, H or S): every estimate is noisy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .formats import SET_ROLES
from .registry import MetricSpec
from .results import MetricResult

#: An applicability check: ``check(ctx, spec, result)`` returns a note, or None when the assumption holds.
Check = Callable[[Any, MetricSpec, MetricResult], "str | None"]

CONTINUOUS_DISTINCT = 50
CONTINUOUS_SHARE = 0.05
MANY_COLUMNS = 30
SMALL_HOLDOUT = 0.25
TINY = 100


def continuous_columns(ctx: Any, columns: Any) -> list[str]:
    """Numeric columns among ``columns`` with many distinct real values (cached on the evaluation)."""
    data = ctx.data

    def count() -> dict[str, int]:
        return {c: int(np.unique(data.column_values("T", c)).size) for c in data.numeric_columns}

    distinct = ctx.memo(("applicability", "distinct"), count)
    n_t = data.sizes["T"]
    return [c for c in columns if c in distinct
            and distinct[c] > CONTINUOUS_DISTINCT and distinct[c] > CONTINUOUS_SHARE * n_t]


def continuous_keys(*, all_columns: bool = False, match: str = "exact match") -> Check:
    """The check declared by the exact-match metrics: continuous key fields rarely match exactly.

    Parameters
    ----------
    all_columns : bool
        The metric matches on every analysed column (not only the key fields).
    match : str
        How the metric matches values, in words ("exact match", "tolerance match").

    Returns
    -------
    callable
        ``check(ctx, spec, result) -> str or None``, for a declaration's ``checks``.
    """

    def check(ctx: Any, spec: MetricSpec, result: MetricResult) -> str | None:
        cols = list(ctx.data.columns) if all_columns else list(ctx.settings["key_fields"])
        cont = continuous_columns(ctx, cols)
        if not cont:
            return None
        if all_columns:  # the metric matches on every analysed column, key field or not
            return (f"continuous column(s) {', '.join(cont)}: this metric matches on every analysed column, and a "
                    f"numeric column with many distinct values rarely matches by {match}, so it is close to "
                    f"meaningless here; consider binning them or leaving them out of the analysis (exclude=)")
        return (f"continuous key field(s) {', '.join(cont)}: a numeric column with many distinct values rarely "
                f"matches by {match}, so this metric is close to meaningless here; consider binning them or "
                f"leaving them out of the key fields")

    return check


def many_columns(ctx: Any, spec: MetricSpec, result: MetricResult) -> str | None:
    """Every distance-based metric: distances lose contrast in many dimensions."""
    n = len(ctx.data.columns)
    if (spec.default_space is not None or result.space is not None) and n > MANY_COLUMNS:
        return (f"{n} analysed columns: with more than {MANY_COLUMNS} columns distances lose contrast (nearest "
                f"and typical distances converge), which blunts distance-based metrics")
    return None


def small_holdout(ctx: Any, spec: MetricSpec, result: MetricResult) -> str | None:
    """Every metric that uses the holdout: a small holdout gives imprecise comparisons."""
    data = ctx.data
    if data.has_holdout and ("holdout" in spec.needs or result.calibration is not None):
        n_h, n_t = data.sizes["H"], data.sizes["T"]
        if n_h < SMALL_HOLDOUT * n_t:
            return (f"the holdout ({n_h} records) is under {SMALL_HOLDOUT:.0%} of the training set ({n_t}): "
                    f"holdout comparisons and the value computed on the holdout are imprecise")
    return None


def tiny_data(ctx: Any, spec: MetricSpec, result: MetricResult) -> str | None:
    """Every metric: estimates on fewer than :data:`TINY` records are noisy."""
    names = SET_ROLES
    small = {s: n for s, n in ctx.data.sizes.items() if n < TINY}
    if small:
        sizes = ", ".join(f"{names.get(s, s)} {n}" for s, n in small.items())
        return f"tiny data set ({sizes} records): every estimate is noisy; read the intervals"
    return None


#: Checks every metric gets besides its declared ones.
GENERAL_CHECKS = (many_columns, small_holdout, tiny_data)


def notes_for(ctx: Any, spec: MetricSpec, result: MetricResult) -> list[str]:
    """Notes on assumptions of ``spec`` that do not hold on the evaluation's data.

    Parameters
    ----------
    ctx : Context
        The evaluation's context (data and settings; cheap cached counts).
    spec : MetricSpec
        The declaration; its ``checks`` run first, then :data:`GENERAL_CHECKS`.
    result : MetricResult
        The metric's result; a metric not computed gets no note (its reason says why).

    Returns
    -------
    list of str
        Plain-language sentences, empty when every assumption holds.
    """
    if not result.computed:
        return []
    notes = [check(ctx, spec, result) for check in tuple(spec.checks) + GENERAL_CHECKS]
    return [n for n in notes if n]
