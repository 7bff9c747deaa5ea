"""``mia_worst_case``: the strongest of the membership attacks, with bounds that pay for having tried several.

An auditor who runs several attacks and reports the best one has looked more than once: the best of four
true-positive rates is biased upwards, and four tests at 5% raise a false alarm more often than 5%. The worst case
therefore tests each attack at the per-check level divided by the number of attacks (Bonferroni), computes each
ε bound at the confidence 95% split over the attacks, and gives the headline's interval at the same adjusted
confidence (``docs/metrics.md``, section ``mia_worst_case``).

The attacks: the three reference-calibrated ones (``mia_distance_ratio``, ``mia_density_ratio``,
``mia_local_lr``) and the uncalibrated distance attack (a record scored by its distance to the nearest synthetic
record alone, as ``membership_inference`` scores it), all on the same members and non-member targets. Each
attack's scores are computed once per evaluation and shared with its own metric.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ... import stats
from ...core.formats import fmt_count, fmt_number, fmt_share
from ...core.registry import Computation, FigureSpec, MetricSpec, Presentation, Words, register, verdict_alpha
from ...core.results import MetricResult, not_computed
from . import mia_density_ratio, mia_distance_ratio, mia_local_lr
from .mia_common import (
    ATYPICAL_FPR,
    ATYPICAL_SHARES,
    CONFIDENCE,
    HEADLINE_FPR,
    RULE_OUT_FPRS,
    SOURCE_CARLINI,
    SOURCE_JAGIELSKI,
    AttackDetails,
    attack_graded,
    attack_grading,
    attack_roc,
    attack_space,
    atypical_breakdown,
    atypicality,
    atypicality_plan,
    declared_epsilon,
    delta_of,
    member_flags,
    missing_sets,
    plot_attack_roc,
    reference_clause,
    reference_details,
    roc_details,
    scores_memo,
    syn_distances,
    top_scores,
)

NAME = "mia_worst_case"


def distance_scores(ctx: Any) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The uncalibrated distance attack on the attacks' members and targets: minus the distance to the nearest
    synthetic record (higher: more likely a member)."""

    def make() -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        s_m, s_n = syn_distances(ctx, 1)
        return -s_m[:, 0], -s_n[:, 0]

    return scores_memo(ctx, "distance", make)


#: The attacks of the worst case: label, scores.
ATTACKS: dict[str, Callable[[Any], tuple[NDArray[np.float64], NDArray[np.float64]]]] = {
    "distance to the synthetic data (uncalibrated)": distance_scores,
    "distance ratio": mia_distance_ratio.scores,
    "density ratio": mia_density_ratio.scores,
    "local likelihood ratio": mia_local_lr.scores,
}


def _plan(ctx: Any, params: dict[str, Any]) -> list[Any]:
    # the training records against themselves (the atypicality breakdown): the distance metrics' own search when
    # they share the attacks' space (gower by default), else the one search the worst case adds
    return [*mia_distance_ratio.plan(ctx, params), *mia_density_ratio.plan(ctx, params),
            *mia_local_lr.plan(ctx, params), *atypicality_plan(ctx)]


def concentration(ctx: Any, worst: str, fpr: float) -> dict[str, Any]:
    """Where the strongest attack's flags fall: :func:`~synthpriv_report.metrics.attacks.mia_common.atypical_breakdown`
    of
    the members it flags at :data:`~synthpriv_report.metrics.attacks.mia_common.ATYPICAL_FPR` (``fpr``: its
    false-positive
    rate there), and :func:`~synthpriv_report.metrics.attacks.mia_common.top_scores` of its scores. Counts only."""
    members, nonmembers = ATTACKS[worst](ctx)
    flagged = member_flags(members, nonmembers, fprs=(ATYPICAL_FPR,))[ATYPICAL_FPR]
    return {"atypical": {"fpr": fpr, **atypical_breakdown(atypicality(ctx), flagged, fpr)},
            "top_scores": top_scores(members, nonmembers)}


def _compute(ctx: Any, params: dict[str, Any]) -> MetricResult:
    why = missing_sets(ctx)
    if why is not None:
        return not_computed(NAME, why)
    n_attacks = len(ATTACKS)
    alpha = verdict_alpha() / n_attacks
    e_alpha = (1.0 - CONFIDENCE) / n_attacks
    rocs = {label: attack_roc(*fn(ctx), alpha=alpha, epsilon_alpha=e_alpha, delta=delta_of(ctx))
            for label, fn in ATTACKS.items()}
    # the attack that shows the most beyond chance (ties: the first in ATTACKS) decides the level and is reported
    worst = max(rocs, key=lambda k: rocs[k].excess_lower_bound)
    roc = rocs[worst]
    head = roc.at(HEADLINE_FPR)
    where = reference_details(ctx)
    details = roc_details(roc, attack=worst, score=f"the scores of the attack that finds the most members beyond "
                                                   f"chance ({worst})", n_reference=where["n_reference"],
                          alpha=alpha, sources=[SOURCE_CARLINI, SOURCE_JAGIELSKI])
    details.update({
        "reference_set": where["reference_set"],
        "worst_attack": worst, "n_attacks": n_attacks,
        "excess_lower_bound": max(r.excess_lower_bound for r in rocs.values()),
        "epsilon_lower_bound": max(r.epsilon_lower_bound for r in rocs.values()),
        "epsilon_attack": max(rocs, key=lambda k: rocs[k].epsilon_lower_bound),
        "attacks": {label: {"tpr_at_1pct_fpr": r.at(HEADLINE_FPR).tpr, "auc": r.auc,
                            "excess_lower_bound": r.excess_lower_bound, "epsilon_lower_bound": r.epsilon_lower_bound,
                            "flagged_members_at_0.1pct": r.at(0.001).flagged_members,
                            "flagged_at": {f"{f:g}": [r.at(f).flagged_members, r.at(f).flagged_nonmembers]
                                           for f in RULE_OUT_FPRS}}
                    for label, r in rocs.items()},
        "interval_kind": f"Clopper-Pearson at {1 - (1 - CONFIDENCE) / n_attacks:.4g} (95% over {n_attacks} attacks)",
    })
    details.update(concentration(ctx, worst, roc.at(ATYPICAL_FPR).fpr))
    eps = declared_epsilon(ctx)
    if eps is not None:
        details["declared_epsilon"] = eps
    interval = stats.clopper_pearson(head.flagged_members, roc.n_members,
                                     confidence=1.0 - (1.0 - CONFIDENCE) / n_attacks)
    evidence = {"curves": {label: {"fpr": list(r.curve_fpr), "tpr": list(r.curve_tpr)} for label, r in rocs.items()},
                "curve": {"fpr": list(roc.curve_fpr), "tpr": list(roc.curve_tpr)},
                "n_members": roc.n_members, "n_nonmembers": roc.n_nonmembers}
    return MetricResult(name=NAME, value=head.tpr, interval=interval, details=details,
                        space=attack_space(ctx).label, evidence=evidence)


def worst_case_finding(m: Any) -> str:
    """The cover's sentence: the strongest attack, what it finds, and the ε bound.

    >>> print(worst_case_finding({"value": 0.3, "details": {"worst_attack": "distance ratio", "n_attacks": 4,
    ...     "n_members": 100, "epsilon_lower_bound": 1.2,
    ...     "tpr_at": {"0.01": {"flagged_members": 30, "fpr": 0.0}}}}))  # doctest: +NORMALIZE_WHITESPACE
    The strongest of 4 membership attacks (distance ratio) finds 30% of the training members (30 of 100) while
    wrongly accusing 0% of real people not in the training data (at most 1% allowed); this release cannot be
    differentially private with ε below 1.2 (a lower bound from these attacks alone, 95% confidence).
    """
    d = m.get("details") or {}
    one = (d.get("tpr_at") or {}).get("0.01") or {}
    text = (f"The strongest of {d.get('n_attacks')} membership attacks ({d.get('worst_attack')}) finds "
            f"{fmt_share(m.get('value'))} of the training members ({fmt_count(one.get('flagged_members'))} of "
            f"{fmt_count(d.get('n_members'))}) while wrongly accusing {fmt_share(one.get('fpr'))} of real people not "
            f"in the training data (at most 1% allowed)")
    eps = d.get("epsilon_lower_bound")
    if isinstance(eps, (int, float)) and eps > 0:
        text += (f"; this release cannot be differentially private with ε below {fmt_number(eps)} (a lower bound "
                 f"from these attacks alone, 95% confidence)")
    else:
        text += "; the attacks prove no ε above 0 (which is no evidence that the release is private)"
    ref = reference_clause(d)
    return text + (f"; {ref}." if ref else ".")


def worst_case_residual(m: Any) -> str | None:
    """The worst case in a regulator's terms (the adjusted upper bound)."""
    iv = m.get("interval") or [None, None]
    if iv[1] is None:
        return None
    d = m.get("details") or {}
    return (f"The strongest of {d.get('n_attacks')} attacks, accusing at most 1% of people not in the training data, "
            f"identifies at most {fmt_share(iv[1])} of the people in it (upper bound at 95% confidence over all the "
            f"attacks tried; estimate {fmt_share(m.get('value'))}).")


def _share_words(share: float) -> str:
    return f"{share * 100:g}%"


def worst_case_records(m: Any) -> str | None:
    """Where the risk concentrates, in plain words: how many of the most atypical training records the strongest
    attack flags at a 1% false-positive rate, against what chance would flag (counts only; ``None`` for a report
    without them).

    >>> print(worst_case_records({"details": {"atypical": {"fpr": 0.01,
    ...     "0.01": {"n": 10, "n_flagged": 9, "chance": 0.1}, "0.05": {"n": 50, "n_flagged": 12, "chance": 0.5},
    ...     "rest": {"n": 950, "n_flagged": 3, "chance": 9.5}}}}))  # doctest: +NORMALIZE_WHITESPACE
    Where the risk concentrates: of the 10 most atypical training records (1%, those farthest from any other
    training record), the strongest attack flags 9 at a 1% false-positive rate, where chance would flag 0.1; of
    the 50 most atypical (5%), 12 (chance 0.5); of the other 950, 3 (chance 9.5).
    """
    d = m.get("details") or {}
    at = d.get("atypical")
    if not isinstance(at, dict):
        return None
    found = [at.get(f"{s:g}") for s in ATYPICAL_SHARES] + [at.get("rest")]
    rows: list[dict[str, Any]] = [r for r in found if isinstance(r, dict)]
    if len(rows) != len(found):
        return None
    first, second, rest = rows
    text = (f"Where the risk concentrates: of the {fmt_count(first.get('n'))} most atypical training records "
            f"({_share_words(ATYPICAL_SHARES[0])}, those farthest from any other training record), the strongest "
            f"attack flags {fmt_count(first.get('n_flagged'))} at a {_share_words(ATYPICAL_FPR)} false-positive "
            f"rate, where chance would flag {fmt_number(first.get('chance'))}")
    if second.get("n") != first.get("n"):
        text += (f"; of the {fmt_count(second.get('n'))} most atypical ({_share_words(ATYPICAL_SHARES[1])}), "
                 f"{fmt_count(second.get('n_flagged'))} (chance {fmt_number(second.get('chance'))})")
    return text + (f"; of the other {fmt_count(rest.get('n'))}, {fmt_count(rest.get('n_flagged'))} (chance "
                   f"{fmt_number(rest.get('chance'))}).")


class MiaWorstCaseDetails(AttackDetails):
    """The details of ``mia_worst_case``: the keys every membership attack's result has (:class:`AttackDetails`),
    and its own."""

    worst_attack: str
    n_attacks: int
    epsilon_attack: str
    attacks: dict[str, Any]
    atypical: dict[str, Any]
    top_scores: dict[str, Any]


register(MetricSpec(
    name=NAME,
    computation=Computation(
        compute=_compute, plan=_plan, needs=("holdout",), default_space="gower", calibratable=False,
        copy_sensitive=True, details=MiaWorstCaseDetails),
    grading=attack_grading("one of the attacks", n_attacks=len(ATTACKS), drives_verdict=True),
    presentation=Presentation(
        title="Membership attacks: the worst case", section="mia_worst_case", group="attack",
        summary="The strongest of the membership attacks (the three reference-calibrated ones and the plain distance "
                "attack), with its test and its ε lower bound adjusted for having tried several.",
        definition="Each attack scores the training records (members) and the holdout's targets (non-members); the "
                   "strongest is the one that finds the most members beyond chance, and the value is its true-positive "
                   "rate at a 1% false-positive rate, its interval and tests at a confidence shared by the attacks "
                   "(Bonferroni).",
        words=Words(measures="how many training members the best of several membership attacks finds",
                    high_means="a high rate at few false accusations means some people's presence in the training data "
                               "can be told from the release",
                    ideal="about 1% of members found at a 1% false-positive rate (chance), for every attack"),
        interval_kind="Clopper-Pearson, 95% over the attacks (Bonferroni)",
        figures=(FigureSpec(lambda r, a: plot_attack_roc(r, ax=a, curves=(r.evidence or {}).get("curves"),
                                                            label="Strongest attack"),
                            "ROC curves of every membership attack on log-log axes: training members found against "
                            "real non-members wrongly accused; the dotted line is chance", size=(5.2, 3.6)),),
        finding=worst_case_finding, graded_note=attack_graded, residual_risk=worst_case_residual,
        limitation="it is the best of four attacks that see only the released data and some real reference records; "
                   "attacks with the trained generator, shadow models or knowledge of the training procedure can be "
                   "stronger, and its ε is a lower bound from one release, never a guarantee",
        records_note=worst_case_records),
))

__all__ = ["ATTACKS", "concentration", "distance_scores", "worst_case_finding", "worst_case_records"]
