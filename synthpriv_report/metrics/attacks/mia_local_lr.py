"""``mia_local_lr``: the local likelihood-ratio membership attack in the spirit of Gen-LRA (Ward, Lin, Wang, Cheng,
"Privacy Auditing Synthetic Data Release through Local Likelihood Attacks", 2025). The attacker asks how much
better the synthetic records *near a target* are explained when the target is added to the reference data: a
model of the population that includes a training member explains what the generator learned from them.

Definition (``docs/metrics.md``, section ``mia_local_lr``). The reference density is a Gaussian kernel density
``p_R(s) = (1 / |R|) sum_r K((s - r) / h)`` with ``K(u) = exp(-u^2 / 2)`` on the gower distance. Adding the target
``x`` gives ``p_{R+x}(s) = (|R| p_R(s) + K((s - x) / h)) / (|R| + 1)``, and the local log likelihood ratio over the
``k_S = 5`` synthetic records nearest to ``x`` is, up to a constant that does not change the ranking,

    score(x) = sum over those s of log(1 + K(d(s, x) / h) / sum_{r in N_R(s)} K(d(s, r) / h)),

each kernel sum over the ``k_R = 10`` reference records nearest to ``s`` (farther ones add less than any of those;
the sums are made in log space, so nothing underflows). The bandwidth ``h`` is the median of the positive distances
from the synthetic records to their nearest reference record (1 when there is none), a scale of the local spacing of
the population; the kernel's normalising constant cancels in the ratio, so no dimension is needed. Gen-LRA fits a
kernel density to the whole reference set; the truncation to the nearest reference records is this package's
choice, to reuse exact neighbour searches (one new search: the synthetic records against the reference).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...core.registry import FigureSpec, MetricSpec, Presentation, Words, register
from ...core.results import MetricResult
from .mia_common import (
    K_LOCAL_REF,
    K_LOCAL_SYN,
    SOURCE_CARLINI,
    AttackDetails,
    attack_finding,
    attack_graded,
    attack_grading,
    attack_plan,
    attack_residual,
    attack_result,
    attack_space,
    attack_split,
    plot_attack_roc,
    reference_attack_computation,
    scores_memo,
    target_rows,
)

NAME = "mia_local_lr"
#: The quantile of the positive synthetic-to-reference distances that sets the kernel's bandwidth.
BANDWIDTH_QUANTILE = 0.5
SOURCE_GEN_LRA = ('J. Ward, X. Lin, C.-H. Wang, G. Cheng, "Privacy Auditing Synthetic Data Release through Local '
                  'Likelihood Attacks", 2025')
HOW = ("asks how much better the synthetic records near a person are explained once that person is added to other "
       "real people's records")


def bandwidth(d_syn_ref: NDArray[np.float64]) -> float:
    """The kernel's bandwidth: the median of the positive finite distances from synthetic records to their
    nearest reference record, 1 when there is none.

    >>> bandwidth(np.array([0.0, 0.2, 0.4, 0.1])), bandwidth(np.zeros(3))
    (0.2, 1.0)
    """
    d = np.asarray(d_syn_ref, dtype=np.float64)
    d = d[np.isfinite(d) & (d > 0)]
    return float(np.quantile(d, BANDWIDTH_QUANTILE)) if d.size else 1.0


def log_kernel_sums(d_syn_ref: NDArray[np.float64], h: float) -> NDArray[np.float64]:
    """Per synthetic record, ``log sum_r K(d(s, r) / h)`` over the given reference distances (rows; ``inf``
    where a reference is missing adds nothing).

    >>> log_kernel_sums(np.array([[0.0, 0.0], [1.0, np.inf]]), 1.0).round(4).tolist()
    [0.6931, -0.5]
    """
    e = -0.5 * (np.asarray(d_syn_ref, dtype=np.float64) / h) ** 2
    top = np.max(e, axis=1)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(invalid="ignore"):
        sums: NDArray[np.float64] = safe + np.log(np.sum(np.exp(e - safe[:, None]), axis=1))
        return sums


def local_lr_scores(d_target_syn: NDArray[np.float64], idx_target_syn: NDArray[np.integer],
                    log_sums: NDArray[np.float64], h: float) -> NDArray[np.float64]:
    """``sum_j log(1 + K(d_j / h) / A_j)`` over each target's synthetic neighbours ``j`` (``A_j`` the kernel sum
    of neighbour ``j``, given as its log); a missing neighbour (``inf``, index -1) adds 0.

    Examples
    --------
    One target at distance 0 from synthetic record 0, whose kernel sum over the reference is 1 (one reference
    record at distance 0): ``log(1 + 1 / 1) = log 2``.

    >>> local_lr_scores(np.array([[0.0]]), np.array([[0]]), np.array([0.0]), 1.0).round(4).tolist()
    [0.6931]
    """
    d = np.asarray(d_target_syn, dtype=np.float64)
    idx = np.asarray(idx_target_syn)
    a = np.asarray(log_sums, dtype=np.float64)[np.where(idx < 0, 0, idx)]
    with np.errstate(invalid="ignore"):
        terms = np.logaddexp(0.0, -0.5 * (d / h) ** 2 - a)
    terms[~np.isfinite(d)] = 0.0
    out: NDArray[np.float64] = terms.sum(axis=1)
    return out


def scores(ctx: Any) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The (member, non-member target) scores, once per evaluation."""

    def make() -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        sp = attack_space(ctx)
        targets, reference = attack_split(ctx)
        sr = ctx.knn(sp, ctx.S, reference, K_LOCAL_REF)
        h = bandwidth(sr.dist[:, 0])
        sums = log_kernel_sums(sr.dist, h)
        del sr
        ts = ctx.knn(sp, ctx.T, ctx.S, K_LOCAL_SYN)
        members = local_lr_scores(ts.dist[:, :K_LOCAL_SYN], ts.idx[:, :K_LOCAL_SYN], sums, h)
        del ts
        hs = ctx.knn(sp, ctx.H, ctx.S, K_LOCAL_SYN)
        rows = target_rows(targets)
        nonmembers = local_lr_scores(hs.dist[rows, :K_LOCAL_SYN], hs.idx[rows, :K_LOCAL_SYN], sums, h)
        return members, nonmembers

    return scores_memo(ctx, NAME, make)


def _bandwidth_of(ctx: Any) -> float:
    _, reference = attack_split(ctx)
    return bandwidth(ctx.knn(attack_space(ctx), ctx.S, reference, K_LOCAL_REF).dist[:, 0])


def plan(ctx: Any, params: dict[str, Any]) -> list[Any]:
    return attack_plan(ctx, syn_k=K_LOCAL_SYN, ref_k=0, syn_ref_k=K_LOCAL_REF)


def _compute(ctx: Any, params: dict[str, Any]) -> MetricResult:
    return attack_result(ctx, NAME, lambda: scores(ctx), attack="local likelihood ratio",
                         score="log likelihood ratio of the synthetic records near the record under a kernel density "
                               "of the reference data with and without the record (higher: more likely a member)",
                         sources=[SOURCE_GEN_LRA, SOURCE_CARLINI],
                         extra=lambda: {"k_synthetic": K_LOCAL_SYN, "k_reference": K_LOCAL_REF,
                                                "bandwidth": _bandwidth_of(ctx)})


class MiaLocalLrDetails(AttackDetails):
    """The details of ``mia_local_lr``: the keys every membership attack's result has (:class:`AttackDetails`),
    and its own."""

    k_synthetic: int
    k_reference: int
    bandwidth: float


register(MetricSpec(
    name=NAME,
    computation=reference_attack_computation(_compute, plan, MiaLocalLrDetails),
    grading=attack_grading("the local likelihood-ratio attack"),
    presentation=Presentation(
        title="Membership attack: local likelihood ratio (after Gen-LRA)", section="mia_local_lr", group="attack",
        summary="Whether an attacker with some real reference data finds training members: each person scored by how "
                "much better the synthetic records near them are explained once they are added to the reference data "
                "(Gen-LRA); the share of members found while wrongly accusing 1% of non-members.",
        definition="Each training record (member) and each holdout target (non-member) is scored by the log "
                   "likelihood ratio, under a kernel density of the reference data with and without the record, of "
                   "its five nearest synthetic records; the value is the true-positive rate at a 1% false-positive "
                   "rate.",
        words=Words(measures="whether an attacker holding the synthetic data and other real records can tell that a "
                             "person was in the training data, from the synthetic records around them",
                    high_means="many members found at few false accusations means the synthetic records around the "
                               "people the generator was trained on are explained by those people",
                    ideal="about 1% of members found at a 1% false-positive rate (chance)"),
        interval_kind="Clopper-Pearson 95% (exact)",
        figures=(FigureSpec(lambda r, a: plot_attack_roc(r, ax=a, label="Local likelihood ratio"),
                            "ROC curve of the local likelihood-ratio attack on log-log axes: training members found "
                            "against real non-members wrongly accused; the dotted line is chance", size=(4.6, 3.4)),),
        finding=attack_finding(HOW), graded_note=attack_graded, residual_risk=attack_residual(HOW),
        limitation="its reference density is a kernel sum over the ten reference records nearest to each synthetic "
                   "record, with one bandwidth for all of the data; attacks with the trained generator or shadow "
                   "models (not run here) can be stronger"),
))

__all__ = ["bandwidth", "log_kernel_sums", "local_lr_scores", "scores"]
