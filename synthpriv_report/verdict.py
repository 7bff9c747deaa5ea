"""The headline verdict: the highest level among the driving checks that ran, or "not assessed"."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .results import MetricResult, Verdict, max_level

#: One sentence per default driving check, for a reader who does not know the metrics.
CHECK_TEXT = {
    "exact_copies": "the synthetic data contains copies of real training records more often than fresh real "
                    "records coincide with them",
    "holdout_dcr_share": "synthetic records lie closer to the training records than to real records the generator "
                         "never saw",
    "privacy_score": "synthetic records fall unusually close to training records more often than real records "
                     "fall close to each other",
    "dcr_test": "synthetic records are clearly closer to their nearest training record than unseen real records are",
    "nndr_test": "synthetic records sit distinctly close to one single training record more often than unseen real "
                 "records do",
}


def compute_verdict(results: Mapping[str, MetricResult], driving: Sequence[str]) -> Verdict:
    """Highest level among the driving metrics that ran; every firing check is a reason.

    A metric that did not run (not requested, not applicable, failed) never drives the verdict; it is listed in
    ``not_run``. When none of the driving checks ran the verdict is ``"not_assessed"``, never "low".

    >>> from synthpriv_report.results import MetricResult
    >>> compute_verdict({}, ["exact_copies"]).level
    'not_assessed'
    >>> compute_verdict({"exact_copies": MetricResult("exact_copies", 0.0, level="low")}, ["exact_copies"]).level
    'low'
    """
    checks, reasons, not_run = [], [], []
    for name in driving:
        r = results.get(name)
        if r is None:
            checks.append((name, None))
            not_run.append((name, "not requested in this evaluation"))
            continue
        if not r.computed or r.level is None:
            checks.append((name, None))
            not_run.append((name, r.reason_not_computed or "no level could be given"))
            continue
        checks.append((name, r.level))
        if r.level in ("medium", "high"):
            text = CHECK_TEXT.get(name, r.title or name)
            reasons.append(f"{r.level} risk: {text} ({r.title or name} [{name}]: {r.value:.3g})")
    ran = [lv for _, lv in checks if lv is not None]
    level = max_level(ran) if ran else "not_assessed"
    return Verdict(level=level, reasons=tuple(reasons), checks=tuple(checks), not_run=tuple(not_run))
