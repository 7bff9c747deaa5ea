"""The headline verdict: the highest level among the driving checks that ran, or "not assessed"."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .results import MetricResult, Verdict, max_level
from .wording import check_sentence


def compute_verdict(results: Mapping[str, MetricResult], driving: Sequence[str]) -> Verdict:
    """Highest level among the driving metrics that ran; every firing check is a reason (one plain sentence with
    its number, from :func:`synthpriv_report.wording.check_sentence`).

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
            reasons.append(f"{r.level.capitalize()} risk from {r.title or name}: {check_sentence(r.to_dict())}")
    ran = [lv for _, lv in checks if lv is not None]
    level = max_level(ran) if ran else "not_assessed"
    return Verdict(level=level, reasons=tuple(reasons), checks=tuple(checks), not_run=tuple(not_run))
