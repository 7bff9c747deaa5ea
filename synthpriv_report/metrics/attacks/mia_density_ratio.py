"""``mia_density_ratio``: the density-ratio membership attack in the spirit of DOMIAS (van Breugel, Sun, Qian,
van der Schaar, "Membership Inference Attacks against Synthetic Data through Overfitting Detection", AISTATS 2023).
A generator that overfits puts more synthetic mass around its training records than the population holds there;
DOMIAS scores a target by the density of the synthetic data at it over the density of the reference data.

Definition (``docs/metrics.md``, section ``mia_density_ratio``). The densities are k-nearest-neighbour estimates
(E. Fix, J. L. Hodges, 1951; D. O. Loftsgaarden, C. P. Quesenberry, "A nonparametric estimate of a multivariate
density function", Ann. Math. Statist. 36, 1965): ``p_A(x) = k / (|A| V r_A(x)^D)`` with ``r_A(x)`` the distance
from ``x`` to its k-th nearest record of ``A``, so that ``log(p_S(x) / p_R(x)) = D log(r_R(x) / r_S(x)) + log(|R| /
|S|)``. The constant and the dimension ``D`` do not change which records rank above which, so the score is
``log((r_R(x) + EPS) / (r_S(x) + EPS))`` with ``k = 5`` (fewer where the synthetic or reference data hold fewer
records): the same exact searches as the rest of the package, no density model to fit, no bandwidth. DOMIAS
fits a flow or a kernel density; with ``k = 1`` this score is the distance ratio of ``mia_distance_ratio``, and a
larger ``k`` sees a generator that puts several records around a person where the nearest record alone may not.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...core.registry import FigureSpec, MetricSpec, Presentation, Words, register
from ...core.results import MetricResult
from .mia_common import (
    K_DENSITY,
    SOURCE_CARLINI,
    AttackDetails,
    attack_finding,
    attack_graded,
    attack_grading,
    attack_plan,
    attack_residual,
    attack_result,
    attack_split,
    distance_floor,
    log_ratio,
    plot_attack_roc,
    ref_distances,
    reference_attack_computation,
    scores_memo,
    syn_distances,
)

NAME = "mia_density_ratio"
SOURCE_DOMIAS = ('B. van Breugel, H. Sun, Z. Qian, M. van der Schaar, "Membership Inference Attacks against Synthetic '
                 'Data through Overfitting Detection", AISTATS 2023')
HOW = ("compares how densely the synthetic data cluster around a person with how densely other real people's "
       "records do")


def density_k(n_syn: int, n_ref: int, k: int = K_DENSITY) -> int:
    """The neighbours of the density estimates: ``k``, or fewer where a set holds fewer records.

    >>> density_k(100, 3), density_k(100, 100)
    (3, 5)
    """
    return max(1, min(int(k), int(n_syn), int(n_ref)))


def density_ratio_scores(r_syn: NDArray[np.float64], r_ref: NDArray[np.float64], floor: float = 0.0
                         ) -> NDArray[np.float64]:
    """The mean over the neighbour orders ``j = 1..k`` (the columns) of ``log((r_ref_j + floor + EPS) / (r_syn_j +
    floor + EPS))``: the log density ratio, up to the dimension and a constant, averaged over the k-nearest-neighbour
    estimates of orders 1 to k.

    >>> bool(abs(density_ratio_scores(np.array([[0.1, 0.4]]), np.array([[0.2, 0.2]]))[0]) < 1e-9)  # (log 2 - log 2) / 2
    True
    >>> density_ratio_scores(np.array([[0.1, 0.1]]), np.array([[0.2, 0.4]])).round(4).tolist()  # (log 2 + log 4) / 2
    [1.0397]
    """
    out: NDArray[np.float64] = log_ratio(r_ref, r_syn, floor).mean(axis=1)
    return out


def _k(ctx: Any) -> int:
    _, reference = attack_split(ctx)
    return density_k(ctx.size(ctx.S), ctx.size(reference))


def scores(ctx: Any) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The (member, non-member target) scores, once per evaluation."""

    def make() -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        k = _k(ctx)
        s_m, s_n = syn_distances(ctx, k)
        r_m, r_n = ref_distances(ctx, k)
        f = distance_floor(r_m[:, 0], r_n[:, 0])
        return density_ratio_scores(s_m, r_m, f), density_ratio_scores(s_n, r_n, f)

    return scores_memo(ctx, NAME, make)


def plan(ctx: Any, params: dict[str, Any]) -> list[Any]:
    return attack_plan(ctx, syn_k=K_DENSITY, ref_k=K_DENSITY)


def _compute(ctx: Any, params: dict[str, Any]) -> MetricResult:
    return attack_result(ctx, NAME, lambda: scores(ctx), attack="density ratio",
                         score="log of the synthetic data's k-nearest-neighbour density at the record over the "
                               "reference data's (higher: more likely a member)",
                         sources=[SOURCE_DOMIAS, SOURCE_CARLINI], extra=lambda: {"k": _k(ctx)})


class MiaDensityRatioDetails(AttackDetails):
    """The details of ``mia_density_ratio``: the keys every membership attack's result has (:class:`AttackDetails`),
    and its own."""

    k: int


register(MetricSpec(
    name=NAME,
    computation=reference_attack_computation(_compute, plan, MiaDensityRatioDetails),
    grading=attack_grading("the density-ratio attack"),
    presentation=Presentation(
        title="Membership attack: density ratio (synthetic over reference density, after DOMIAS)",
        section="mia_density_ratio", group="attack",
        summary="Whether an attacker with some real reference data finds training members: each person scored by the "
                "density of the synthetic data around them over the density of the reference data (DOMIAS); the "
                "share of members found while wrongly accusing 1% of non-members.",
        definition="Each training record (member) and each holdout target (non-member) is scored by the log of its "
                   "5th-nearest reference distance over its 5th-nearest synthetic distance, the log ratio of the two "
                   "k-nearest-neighbour densities up to a constant; the value is the true-positive rate at a 1% "
                   "false-positive rate.",
        words=Words(measures="whether an attacker holding the synthetic data and other real records can tell that a "
                             "person was in the training data, from where the synthetic data are denser than the "
                             "population",
                    high_means="many members found at few false accusations means the generator overfitted: it put "
                               "synthetic records around the people it was trained on",
                    ideal="about 1% of members found at a 1% false-positive rate (chance)"),
        interval_kind="Clopper-Pearson 95% (exact)",
        figures=(FigureSpec(lambda r, a: plot_attack_roc(r, ax=a, label="Density ratio"),
                            "ROC curve of the density-ratio attack on log-log axes: training members found against "
                            "real non-members wrongly accused; the dotted line is chance", size=(4.6, 3.4)),),
        finding=attack_finding(HOW), graded_note=attack_graded, residual_risk=attack_residual(HOW),
        limitation="its densities are nearest-neighbour estimates from five records; a density model fitted to the "
                   "reference data, or the generator itself, can see overfitting that five neighbours do not"),
))

__all__ = ["density_ratio_scores", "density_k", "scores"]
