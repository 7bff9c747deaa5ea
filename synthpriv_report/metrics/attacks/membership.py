"""``membership_inference``: can an attacker who holds the synthetic data tell whether a person was in the
training data? Training records (members) against holdout records (non-members), each scored by its distance to
the nearest synthetic record: the closer a real record lies to the synthetic data, the more likely it was trained
on.

This is the membership-inference attack of the literature on synthetic data (Stadler, Oprisanu, Troncoso,
"Synthetic Data - Anonymisation Groundhog Day", USENIX Security 2022; the distance-to-closest-synthetic-record
attack of Chen, Yu, Zhang, Fritz, "GAN-Leaks", ACM CCS 2020), reported as Carlini et al., "Membership Inference
Attacks From First Principles" (IEEE S&P 2022) ask: the area under the ROC curve (AUC, 0.5 = the attacker does no
better than a coin) and the true-positive rate at a 1% false-positive rate (how many training members the attacker
finds while wrongly accusing at most 1 in 100 non-members).

Choices, stated so that two runs and two readers agree:

* **Score.** The distance of a real record to its nearest synthetic record in the Gower space of the analysed
  columns (the package's exact neighbour search): smaller means "member".
* **Ties.** Distances within the package's tie tolerance (:mod:`synthpriv_report.stats.comparisons`) of the
  smallest distance of their group count as one value; a member tied with a non-member counts one half in the AUC
  (the Mann-Whitney convention).
* **TPR at 1% FPR.** The attacker flags every record whose distance is below a threshold; the threshold is the
  largest one that flags at most ``floor(0.01 * n_holdout)`` holdout records, i.e. a record is flagged when its
  distance is strictly below the tie group of the ``(floor(0.01 * n_holdout) + 1)``-th smallest holdout distance.
  A member tied with that holdout record is not flagged: flagging it would flag the holdout record too. With fewer
  than 100 holdout records, only members strictly closer than every holdout record are flagged.
* **Interval.** DeLong's variance of the AUC (normal approximation, 95%), clipped to [0, 1]: one term from the
  members' spread and one from the non-members', each estimated from its own group's records, so both sizes
  count; with one record on a side that side's term cannot be estimated and the interval is all of [0, 1]. The
  TPR carries a Wilson 95% interval in the details.
* **Sizes.** With fewer than 10 training or 10 holdout records the attack is not assessed (reported not
  computed, with both sizes): one group's spread cannot be estimated from so few records, and a holdout of one
  record would otherwise grade fresh real records as a leak.
* **Reproducibility.** Every training and every holdout record is scored (no sample), so the numbers depend on
  the data alone and not on the row order or a random state.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ... import stats
from ...core import plotting as plot
from ...core.formats import fmt_number, fmt_share
from ...core.registry import (
    Computation,
    FigureSpec,
    Grading,
    LevelSpec,
    MetricSpec,
    Presentation,
    ResultJSON,
    TypedDict,
    Words,
    register,
)
from ...core.results import MetricResult, not_computed
from ...stats.comparisons import ABS_TOL, REL_TOL
from .._shared.arrays import SmallResult, groups_too_small, space_for

#: The false-positive rate at which the true-positive rate is reported.
TARGET_FPR = 0.01
#: Two-sided 95% normal quantile of the AUC's interval.
_Z95 = 1.959963984540054

SOURCE_STADLER = ('T. Stadler, B. Oprisanu, C. Troncoso, "Synthetic Data - Anonymisation Groundhog Day", USENIX '
                  'Security 2022')
SOURCE_CARLINI = ('N. Carlini, S. Chien, M. Nasr, S. Song, A. Terzis, F. Tramèr, "Membership Inference Attacks From '
                  'First Principles", IEEE Symposium on Security and Privacy 2022')


@dataclass(frozen=True)
class MembershipScores(SmallResult):
    """What :func:`membership_auc` finds.

    Attributes
    ----------
    auc : float
        Probability that a random member lies closer to the synthetic data than a random non-member, ties one half.
    interval : tuple of (float, float)
        DeLong 95% interval of ``auc``, clipped to [0, 1]; [0, 1] when a side has one record.
    tpr : float
        Share of members flagged at the threshold that flags at most ``floor(fpr * n_nonmembers)`` non-members.
    fpr : float
        Share of non-members flagged at that threshold (at most the target).
    tpr_interval : tuple of (float, float)
        Wilson 95% interval of ``tpr``.
    n_members, n_nonmembers : int
        Records scored on each side.
    flagged_members, flagged_nonmembers : int
        Records flagged on each side.
    tied_pairs_share : float
        Share of (member, non-member) pairs at tied distances.
    """

    auc: float
    interval: tuple[float, float]
    tpr: float
    fpr: float
    tpr_interval: tuple[float, float]
    n_members: int
    n_nonmembers: int
    flagged_members: int
    flagged_nonmembers: int
    tied_pairs_share: float


def _tie_groups(values: NDArray[np.float64]) -> NDArray[np.int64]:
    """Group numbers of sorted ``values``: a new group starts at the first value not tied with the smallest value
    of the current group (the package's tie rule, chained from the group's start so that groups never drift)."""
    groups = np.empty(values.size, dtype=np.int64)
    g, start = -1, math.nan
    for i, v in enumerate(values.tolist()):
        if g < 0 or not (v == start or abs(v - start) <= REL_TOL * max(abs(v), abs(start)) + ABS_TOL):
            g += 1
            start = v
        groups[i] = g
    return groups


def membership_auc(d_members: ArrayLike, d_nonmembers: ArrayLike, *, fpr: float = TARGET_FPR) -> MembershipScores:
    """AUC and TPR at ``fpr`` of the distance-to-synthetic membership attack.

    Parameters
    ----------
    d_members : array of shape (n_members,)
        Distance of each training record (member) to its nearest synthetic record.
    d_nonmembers : array of shape (n_nonmembers,)
        Distance of each holdout record (non-member) to its nearest synthetic record.
    fpr : float, default 0.01
        Largest share of non-members the attacker may flag.

    Returns
    -------
    MembershipScores
        Higher ``auc`` and ``tpr`` are riskier; 0.5 and ``fpr`` are what an attacker gets from a generator that
        learned no individual.

    Examples
    --------
    Members at distances 0, 0, 1, 3, non-members at 1, 2, 4, 5: of the 16 pairs the member is closer in 13, tied
    in 1 (1 against 1), so the AUC is 13.5 / 16. With 4 non-members no holdout record may be flagged: members
    strictly closer than the closest non-member (distance 1) are flagged, 2 of 4.

    >>> r = membership_auc([0.0, 0.0, 1.0, 3.0], [1.0, 2.0, 4.0, 5.0])
    >>> r.auc, r.tpr, r.fpr, r.flagged_members
    (0.84375, 0.5, 0.0, 2)
    """
    dm = np.asarray(d_members, dtype=np.float64).ravel()
    dn = np.asarray(d_nonmembers, dtype=np.float64).ravel()
    n_m, n_n = dm.size, dn.size
    if n_m == 0 or n_n == 0:
        raise ValueError("membership inference needs at least one training and one holdout record")
    if not (np.all(np.isfinite(dm)) and np.all(np.isfinite(dn))):
        raise ValueError("membership inference needs finite distances")
    pooled = np.concatenate([dm, dn])
    is_member = np.concatenate([np.ones(n_m, dtype=bool), np.zeros(n_n, dtype=bool)])
    order = np.argsort(pooled, kind="stable")
    groups_sorted = _tie_groups(pooled[order])
    group = np.empty_like(groups_sorted)
    group[order] = groups_sorted
    n_groups = int(groups_sorted[-1]) + 1
    m_count = np.bincount(group[is_member], minlength=n_groups).astype(np.float64)
    n_count = np.bincount(group[~is_member], minlength=n_groups).astype(np.float64)
    # non-members strictly farther than each group, members strictly closer than each group
    n_farther = n_count[::-1].cumsum()[::-1] - n_count
    m_closer = m_count.cumsum() - m_count
    v10 = (n_farther + 0.5 * n_count) / n_n   # per member of the group: share of non-members it beats
    v01 = (m_closer + 0.5 * m_count) / n_m    # per non-member of the group: share of members that beat it
    auc = float((m_count * v10).sum() / n_m)
    var = 0.0
    if n_m > 1:
        mean10 = auc
        var += float((m_count * (v10 - mean10) ** 2).sum() / (n_m - 1)) / n_m
    if n_n > 1:
        mean01 = float((n_count * v01).sum() / n_n)
        var += float((n_count * (v01 - mean01) ** 2).sum() / (n_n - 1)) / n_n
    if n_m > 1 and n_n > 1:
        half = _Z95 * math.sqrt(max(var, 0.0))
        interval = (max(0.0, auc - half), min(1.0, auc + half))
    else:  # one side's spread cannot be estimated from one record: the AUC could be anything
        interval = (0.0, 1.0)
    tied = float((m_count * n_count).sum() / (n_m * n_n))
    # the threshold: strictly below the tie group of the (k+1)-th smallest non-member distance
    k = int(math.floor(fpr * n_n + 1e-9))
    if k >= n_n:
        flag_groups = n_groups
    else:
        kth = np.sort(group[~is_member], kind="stable")[k]
        flag_groups = int(kth)
    flagged_m = int(m_count[:flag_groups].sum())
    flagged_n = int(n_count[:flag_groups].sum())
    tpr = flagged_m / n_m
    return MembershipScores(auc=auc, interval=interval, tpr=tpr, fpr=flagged_n / n_n,
                            tpr_interval=stats.wilson(tpr, n_m), n_members=n_m, n_nonmembers=n_n,
                            flagged_members=flagged_m, flagged_nonmembers=flagged_n, tied_pairs_share=tied)


def _too_small(ctx: Any) -> str | None:
    """Why the attack is not assessed on these sets (each side of the AUC needs
    :data:`~synthpriv_report.metrics._shared.arrays.MIN_GROUP_RECORDS` records)."""
    return groups_too_small({"training": ctx.size(ctx.T), "holdout": ctx.size(ctx.H)})


def _plan(ctx: Any, params: dict[str, Any]) -> list[Any]:
    if _too_small(ctx) is not None:
        return []
    sp = space_for(ctx, "membership_inference", "gower")
    return [ctx.request(sp, ctx.T, ctx.S, 1), ctx.request(sp, ctx.H, ctx.S, 1)]


def _compute(ctx: Any, params: dict[str, Any]) -> MetricResult:
    sp = space_for(ctx, "membership_inference", "gower")
    reason = _too_small(ctx)
    if reason is not None:
        return not_computed("membership_inference", reason, space=sp.label)
    d_t = ctx.knn(sp, ctx.T, ctx.S, 1).dist[:, 0]
    d_h = ctx.knn(sp, ctx.H, ctx.S, 1).dist[:, 0]
    r = membership_auc(d_t, d_h)
    details: dict[str, Any] = {
        "tpr_at_1pct_fpr": r.tpr, "tpr_interval": list(r.tpr_interval), "fpr_achieved": r.fpr,
        "target_fpr": TARGET_FPR, "n_members": r.n_members, "n_nonmembers": r.n_nonmembers,
        "flagged_members": r.flagged_members, "flagged_nonmembers": r.flagged_nonmembers,
        "tied_pairs_share": r.tied_pairs_share, "interval_kind": "DeLong 95% (normal approximation)",
        "score": "distance of each real record to its nearest synthetic record (smaller: more likely a member)",
        "sources": [SOURCE_STADLER, SOURCE_CARLINI],
    }
    evidence = {"members": stats.quantile_summary(d_t), "nonmembers": stats.quantile_summary(d_h)}
    return MetricResult(name="membership_inference", value=r.auc, interval=r.interval, details=details,
                        space=sp.label, evidence=evidence)


def plot_membership(result: Any, *, ax: Any = None) -> Any:
    """Quantiles of the distance to the nearest synthetic record, members (training) against non-members.

    Parameters
    ----------
    result : MetricResult
        The ``membership_inference`` result (its evidence holds the two quantile summaries).
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
        Two curves that lie on each other mean the attacker cannot tell members from non-members. The x axis
        runs from 0 to where the distances end (:func:`~synthpriv_report.core.plotting.quantile_top`).
    """
    ax = plot.new_ax(ax)
    if result is None or not result.computed or not result.evidence:
        return plot.empty(ax, "membership inference not computed")
    tops = []
    for key, label, colour in (("members", "training records (members)", plot.COLORS["T"]),
                               ("nonmembers", "holdout records (non-members)", plot.COLORS["H"])):
        q = result.evidence.get(key) or {}
        xs, ps = q.get("values") or [], q.get("probs") or []
        if xs and ps:
            ax.plot(xs, ps, color=colour, label=label)
            tops.append(plot.quantile_top({"values": xs, "probs": ps, "n": len(xs)}))
    # x: from 0 to where the distances end (95% of each group), not to the furthest record; y: a share
    plot.fit_axis(ax, [0.0, *tops], low=0.0)
    plot.fit_axis(ax, [0.0, 1.0], axis="y")
    ax.set_xlabel("distance to the nearest synthetic record")
    ax.set_ylabel("share of records at most this far")
    ax.set_title(f"Membership inference: AUC {fmt_number(result.value)}")
    ax.legend(fontsize=8, loc="lower right")
    return ax


def membership_finding(m: ResultJSON) -> str:
    """What the membership attack found, in one sentence.

    >>> print(membership_finding({"value": 0.5, "details": {"tpr_at_1pct_fpr": 0.01, "n_members": 100,
    ...       "flagged_members": 1}}))  # doctest: +NORMALIZE_WHITESPACE
    An attacker who scores each real person by how close the synthetic data come to their record tells training
    members from non-members with an AUC of 0.5 (0.5: no better than a coin); wrongly accusing at most 1% of
    non-members, they find 1% of the members (1 of 100).
    """
    d = m.get("details") or {}
    return (f"An attacker who scores each real person by how close the synthetic data come to their record tells "
            f"training members from non-members with an AUC of {fmt_number(m.get('value'))} (0.5: no better than "
            f"a coin); wrongly accusing at most 1% of non-members, they find {fmt_share(d.get('tpr_at_1pct_fpr'))} "
            f"of the members ({d.get('flagged_members')} of {d.get('n_members')}).")


def membership_residual(m: ResultJSON) -> str | None:
    """The membership attack's result in a regulator's terms (upper ends of the intervals).

    >>> print(membership_residual({"value": 0.51, "interval": [0.49, 0.53], "details": {"tpr_at_1pct_fpr": 0.011,
    ...       "tpr_interval": [0.008, 0.015]}}))  # doctest: +NORMALIZE_WHITESPACE
    An attacker who knows a person's values in every analysed column and holds the synthetic data tells whether
    they were in the training data with an AUC of at most 0.53 (95% upper bound; estimate 0.51; 0.5 is a coin
    toss), and, accusing at most 1% of people not in the training data, identifies at most 1.5% of the people in
    it (95% upper bound; estimate 1.1%).
    """
    iv = m.get("interval")
    d = m.get("details") or {}
    tiv = d.get("tpr_interval") or [None, None]
    if not iv or iv[1] is None:
        return None
    return (f"An attacker who knows a person's values in every analysed column and holds the synthetic data tells "
            f"whether they were in the training data with an AUC of at most {fmt_number(iv[1])} (95% upper bound; "
            f"estimate {fmt_number(m.get('value'))}; 0.5 is a coin toss), and, accusing at most 1% of people not "
            f"in the training data, identifies at most {fmt_share(tiv[1])} of the people in it (95% upper bound; "
            f"estimate {fmt_share(d.get('tpr_at_1pct_fpr'))}).")


def membership_graded(m: ResultJSON) -> str | None:
    """The level is graded on the lower end of the AUC's interval."""
    rule = m.get("level_rule") or {}
    iv = m.get("interval") or [None, None]
    if iv[0] is None:
        return None
    return (f"Graded on {rule.get('scale') or 'the lower end of the AUC interval'}: {fmt_number(iv[0])} (the AUC "
            f"is {fmt_number(m.get('value'))}).")


class MembershipInferenceDetails(TypedDict):
    """The details of ``membership_inference``: the keys its compute function sets."""

    tpr_at_1pct_fpr: float
    tpr_interval: list[float]
    fpr_achieved: float
    target_fpr: float
    n_members: int
    n_nonmembers: int
    flagged_members: int
    flagged_nonmembers: int
    tied_pairs_share: float
    interval_kind: str
    score: str
    sources: list[str]


register(MetricSpec(
    name="membership_inference",
    computation=Computation(
        compute=_compute, plan=_plan, needs=("holdout",), default_space="gower", space_choosable=True,
        calibratable=False, copy_sensitive=True, details=MembershipInferenceDetails),
    grading=Grading(
        direction="higher_is_riskier", value_range=(0.0, 1.0), value_kind="auc",
        level=LevelSpec(
            medium=0.55, high=0.65, same_scale=True,
            of=lambda r: r.interval[0] if r.interval is not None else r.value,
            risky_end=lambda r: r.interval[1] if r.interval is not None else None,
            risky_scale="the upper end of the AUC's DeLong interval",
            scale="the lower end of the AUC's DeLong interval",
            source="package default (no regulator publishes membership-inference thresholds); the attack and its "
                   "reporting follow " + SOURCE_STADLER + " and " + SOURCE_CARLINI,
            description="high when the lower end of the AUC's interval is above {high}, medium when above {medium}: "
                        "the attacker tells training members from real people not in the training data better than a "
                        "coin (0.5), beyond chance")),
    presentation=Presentation(
        title="Membership inference (training members against holdout non-members)", section="membership",
        group="attack",
        summary="Whether an attacker holding the synthetic data can tell that a person was in the training data: "
                "AUC of members against non-members scored by distance to the synthetic data, and the share of members "
                "found at 1% false accusations.",
        definition="Each training record (member) and each holdout record (non-member) is scored by its distance to "
                   "the nearest synthetic record; the AUC is the probability that a member lies closer than a "
                   "non-member (ties one half), and the true-positive rate is read at a 1% false-positive rate.",
        words=Words(measures="whether an attacker holding the synthetic data can tell that a person was in the "
                             "training data",
                    high_means="an AUC well above 0.5, or many members found at 1% false accusations, means the "
                               "synthetic data sit closer to the people they were trained on than to other people",
                    ideal="an AUC of 0.5 and a true-positive rate of about 1% at a 1% false-positive rate"),
        interval_kind="DeLong 95% (normal approximation)",
        figures=(FigureSpec(lambda r, a: plot_membership(r, ax=a),
                            "Distance to the nearest synthetic record of training records (members) and of holdout "
                            "records (non-members); curves that coincide mean membership cannot be told",
                            size=(6.0, 2.8)),),
        finding=membership_finding, graded_note=membership_graded, residual_risk=lambda m: membership_residual(m),
        limitation="the attacker scores people by their distance to the nearest synthetic record only; attacks that "
                   "use the trained generator or shadow models (not run here) can be stronger, above all when the "
                   "model is released too"),
))

__all__ = ["MembershipScores", "membership_auc", "membership_finding", "plot_membership", "TARGET_FPR"]
