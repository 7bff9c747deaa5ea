"""Small statistical helpers shared by the metrics, in five parts.

:mod:`~synthpriv_report.stats.comparisons`
    tie-aware comparisons of distances (``ties``, ``less``, ``leq``, ``win_share``);
:mod:`~synthpriv_report.stats.intervals`
    intervals and tests on proportions (``wilson``, ``clopper_pearson``, ``binomial_p_greater``, the
    exceedance test of an attack's threshold, ``epsilon_lower_bound``, ``percentile_interval``, ``round_half_up``);
:mod:`~synthpriv_report.stats.bootstrap`
    resampling over records (``bootstrap_stats``, ``bootstrap_replicates``, ``bootstrap_ratio``,
    ``paired_median_bootstrap`` and their large-n schemes; ``subsample``);
:mod:`~synthpriv_report.stats.summaries`
    bounded summaries of a distribution (``summary``, ``quantile_summary``, ``histogram``, and the helpers
    ``finite_values`` and ``clipped_histogram``);
:mod:`~synthpriv_report.stats.one_run`
    the arithmetic of one-run privacy auditing (``one_run_p_value``, ``one_run_epsilon``,
    ``one_run_precision_needed``, ``one_run_guess_counts``, ``one_run_audit`` and its ``OneRunOutcome``).

Every name is importable from ``synthpriv_report.stats`` itself. All functions are pure; every random draw takes
``random_state`` (or a ``numpy.random.Generator``).
"""

from __future__ import annotations

from .bootstrap import (
    GROUPED_MIN_N,
    GROUPS,
    WINDOW_SDS,
    bootstrap_ratio,
    bootstrap_replicates,
    bootstrap_stats,
    grouped_resamples,
    grouped_sums,
    paired_median_bootstrap,
    paired_median_replicates,
    resample_stats,
    subsample,
)
from .comparisons import ABS_TOL, REL_TOL, leq, less, ties, win_share
from .intervals import (
    WILSON_Z,
    binomial_p_greater,
    clopper_pearson,
    epsilon_lower_bound,
    exceedance_p_value,
    exceedance_quantile,
    percentile_interval,
    round_half_up,
    wilson,
    wilson_centre_half,
    wilson_score_counts,
)
from .one_run import (
    OneRunOutcome,
    OneRunRow,
    one_run_audit,
    one_run_epsilon,
    one_run_guess_counts,
    one_run_p_value,
    one_run_precision_needed,
)
from .summaries import clipped_histogram, finite_values, histogram, quantile_summary, summary

__all__ = [
    "ABS_TOL", "GROUPED_MIN_N", "GROUPS", "REL_TOL", "WILSON_Z", "WINDOW_SDS",
    "binomial_p_greater", "bootstrap_ratio", "clopper_pearson", "epsilon_lower_bound", "exceedance_p_value",
    "exceedance_quantile", "bootstrap_replicates", "bootstrap_stats", "clipped_histogram",
    "finite_values", "grouped_resamples", "grouped_sums", "histogram", "leq", "less", "paired_median_bootstrap",
    "OneRunOutcome", "OneRunRow", "one_run_audit", "one_run_epsilon", "one_run_guess_counts", "one_run_p_value",
    "one_run_precision_needed",
    "paired_median_replicates",
    "percentile_interval", "quantile_summary", "resample_stats", "round_half_up", "subsample", "summary", "ties",
    "wilson", "wilson_centre_half", "wilson_score_counts", "win_share",
]
