"""``mia_distance_ratio``: the distance-ratio membership attack (the "DCR difference" of the literature). A target
is scored by how much closer the synthetic data come to it than the attacker's reference data do: the distance to
its nearest synthetic record over the distance to its nearest reference record. A generator that memorised a
person puts a synthetic record unusually close to them *for where they lie*, which the plain distance to the
synthetic data cannot see for an atypical person, far from everyone.

Definition (``docs/metrics.md``, section ``mia_distance_ratio``): ``score(x) = log((d_R(x) + EPS) / (d_S(x) +
EPS))`` with ``d_S``, ``d_R`` the distances to the nearest synthetic and the nearest reference record in the gower
space (``EPS = 1e-12``, the package's ratio convention); higher is "member". Members: the training records;
non-members: the holdout's targets (:mod:`synthpriv_report.metrics.attacks.mia_common` has the split, the rates, the
test
and the ε bound).

Sources: the distance-to-closest-record attacks calibrated by a reference set of Chen, Yu, Zhang, Fritz, "GAN-Leaks:
A Taxonomy of Membership Inference Attacks against Generative Models" (ACM CCS 2020); Yao, Krčo, Ganev, de
Montjoye, "The DCR Delusion" (ESORICS 2025).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...core.registry import FigureSpec, MetricSpec, Presentation, Words, register
from ...core.results import MetricResult
from .mia_common import (
    SOURCE_CARLINI,
    SOURCE_DCR_DELUSION,
    AttackDetails,
    attack_finding,
    attack_graded,
    attack_grading,
    attack_plan,
    attack_residual,
    attack_result,
    distance_floor,
    log_ratio,
    plot_attack_roc,
    ref_distances,
    reference_attack_computation,
    scores_memo,
    syn_distances,
)

NAME = "mia_distance_ratio"
SOURCE_GAN_LEAKS = ('D. Chen, N. Yu, Y. Zhang, M. Fritz, "GAN-Leaks: A Taxonomy of Membership Inference Attacks '
                    'against Generative Models", ACM CCS 2020')
HOW = "compares how close the synthetic data come to a person with how close other real people's records come"


def distance_ratio_scores(d_syn: NDArray[np.float64], d_ref: NDArray[np.float64], floor: float = 0.0
                          ) -> NDArray[np.float64]:
    """``log((d_ref + floor + EPS) / (d_syn + floor + EPS))``: higher when the synthetic data lie closer than the
    reference does.

    >>> distance_ratio_scores(np.array([0.0, 0.2]), np.array([0.1, 0.2])).round(3).tolist()
    [25.328, 0.0]
    >>> distance_ratio_scores(np.array([0.0]), np.array([0.1]), floor=0.1).round(4).tolist()  # log(0.2 / 0.1)
    [0.6931]
    """
    return log_ratio(d_ref, d_syn, floor)


def scores(ctx: Any) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The (member, non-member target) scores, once per evaluation."""

    def make() -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        s_m, s_n = syn_distances(ctx, 1)
        r_m, r_n = ref_distances(ctx, 1)
        f = distance_floor(r_m[:, 0], r_n[:, 0])
        return distance_ratio_scores(s_m[:, 0], r_m[:, 0], f), distance_ratio_scores(s_n[:, 0], r_n[:, 0], f)

    return scores_memo(ctx, NAME, make)


def plan(ctx: Any, params: dict[str, Any]) -> list[Any]:
    return attack_plan(ctx, syn_k=1, ref_k=1)


def _compute(ctx: Any, params: dict[str, Any]) -> MetricResult:
    return attack_result(ctx, NAME, lambda: scores(ctx), attack="distance ratio",
                         score="log of the distance to the nearest reference record over the distance to the "
                               "nearest synthetic record (higher: more likely a member)",
                         sources=[SOURCE_GAN_LEAKS, SOURCE_DCR_DELUSION, SOURCE_CARLINI])


class MiaDistanceRatioDetails(AttackDetails):
    """The details of ``mia_distance_ratio``: the keys every membership attack's result has (:class:`AttackDetails`),
    and its own."""


register(MetricSpec(
    name=NAME,
    computation=reference_attack_computation(_compute, plan, MiaDistanceRatioDetails),
    grading=attack_grading("the distance-ratio attack"),
    presentation=Presentation(
        title="Membership attack: distance ratio (nearest synthetic over nearest reference record)",
        section="mia_distance_ratio", group="attack",
        summary="Whether an attacker with some real reference data finds training members: each person scored by how "
                "much closer the synthetic data come to them than the reference data do; the share of members found "
                "while wrongly accusing 1% of non-members.",
        definition="Each training record (member) and each holdout target (non-member) is scored by the log of its "
                   "distance to the nearest reference record over its distance to the nearest synthetic record; the "
                   "value is the true-positive rate at a 1% false-positive rate.",
        words=Words(measures="whether an attacker holding the synthetic data and other real records can tell that a "
                             "person was in the training data",
                    high_means="many members found at few false accusations means the generator reproduced the "
                               "people it was trained on, atypical people above all",
                    ideal="about 1% of members found at a 1% false-positive rate (chance)"),
        interval_kind="Clopper-Pearson 95% (exact)",
        figures=(FigureSpec(lambda r, a: plot_attack_roc(r, ax=a, label="Distance ratio"),
                            "ROC curve of the distance-ratio attack on log-log axes: training members found against "
                            "real non-members wrongly accused; the dotted line is chance", size=(4.6, 3.4)),),
        finding=attack_finding(HOW), graded_note=attack_graded, residual_risk=attack_residual(HOW),
        limitation="it uses only the nearest synthetic and the nearest reference record; attacks with the trained "
                   "generator or shadow models (not run here) can be stronger"),
))

__all__ = ["distance_ratio_scores", "scores"]
