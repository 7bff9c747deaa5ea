"""The headline verdict: the highest level among the driving checks that ran, or "not assessed".

Levels are ordered low < inconclusive < medium < high, so the verdict is low only when every driving check that ran
ruled its risk out, inconclusive when none showed a risk but at least one could not rule it out, and medium or
high when a check showed a risk."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..core.results import MetricResult, Verdict, max_level
from ..text.wording import check_sentence


def compute_verdict(results: Mapping[str, MetricResult], driving: Sequence[str]) -> Verdict:
    """Highest level among the driving metrics that ran; every firing check is a reason (one plain sentence with
    its number, from :func:`synthpriv_report.text.wording.check_sentence`), and every inconclusive one says what it
    could not rule out.

    A metric that did not run (not requested, not applicable, failed) never drives the verdict; it is listed in
    ``not_run``. When none of the driving checks ran the verdict is ``"not_assessed"``, never "low".

    >>> from synthpriv_report.core.results import MetricResult
    >>> compute_verdict({}, ["exact_copies"]).level
    'not_assessed'
    >>> compute_verdict({"exact_copies": MetricResult("exact_copies", 0.0, level="low")}, ["exact_copies"]).level
    'low'
    """
    checks, reasons, unsure, not_run = [], [], [], []
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
        elif r.level == "inconclusive":
            why = r.level_rule.inconclusive_because if r.level_rule is not None else None
            unsure.append(f"Inconclusive: {r.title or name} showed no risk but could not rule one out"
                          + (f": it {why}." if why and why.startswith("cannot") else f" ({why})." if why else "."))
    ran = [lv for _, lv in checks if lv is not None]
    level = max_level(ran) if ran else "not_assessed"
    return Verdict(level=level, reasons=tuple(reasons + unsure), checks=tuple(checks), not_run=tuple(not_run))
