"""The headline verdict of spec section 5: the highest level among the driving checks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .results import MetricResult, Verdict, max_level

_CHECK_TEXT = {
    "exact_copies": "Copies: the synthetic data reproduces real training records more often than fresh real "
    "records coincide with them",
    "holdout_dcr_share": "Closer to train than to holdout: synthetic records sit nearer the training records "
    "than the holdout records",
    "privacy_score": "Proximity-ratio score: synthetic records are closer to training records than training "
    "records are to each other",
    "dcr_test": "Seed 004 DCR test: synthetic-to-train distances are shorter than holdout-to-train distances",
    "nndr_test": "Seed 004 NNDR test: synthetic records are more distinctly close to one training record than "
    "holdout records are",
}


def compute_verdict(results: Mapping[str, MetricResult], driving: Sequence[str]) -> Verdict:
    """Highest level among the driving metrics that were computed; every firing check is a reason.

    A metric not computed never drives the verdict; it is listed in ``not_run``.
    """
    checks, reasons, not_run = [], [], []
    for name in driving:
        r = results.get(name)
        if r is None:
            checks.append((name, None))
            not_run.append((name, "not requested in this call"))
            continue
        if not r.computed:
            checks.append((name, None))
            not_run.append((name, r.reason_not_computed or "not computed"))
            continue
        checks.append((name, r.level))
        if r.level in ("medium", "high"):
            text = _CHECK_TEXT.get(name, r.title or name)
            reasons.append(f"{r.level} risk: {text} ({name} = {r.value:.4g})")
    level = max_level([lv for _, lv in checks])
    return Verdict(level=level, reasons=tuple(reasons), checks=tuple(checks), not_run=tuple(not_run))
