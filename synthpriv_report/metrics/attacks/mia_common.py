"""What the reference-calibrated membership attacks share: the split of the holdout, the ROC of an attack's scores,
its true-positive rates at fixed false-positive rates with exact intervals, the exact test of "better than
chance", the empirical ε lower bound, the level rule, the figure and the reader's sentences.

**The threat model.** The attacker holds the synthetic data and a *reference* set: real records of the same
population that the generator never saw. For a target person they score how much better the synthetic data
explain the target than the reference does; a high score says "member". Each attack is one module
(``mia_distance_ratio``, ``mia_density_ratio``, ``mia_local_lr``); ``mia_worst_case`` takes the strongest of them
and of the uncalibrated distance attack (``membership_inference``'s score) with a bound that pays for having
looked at several.

**Sets.** Members: every training record. Without a reference set of the user's, the holdout is split once per
evaluation by a seeded rule over the evaluation's canonical order of its records (:func:`attack_split`): half of
it, rounded up, are the *non-member targets*, the other half the *reference*. Neither depends on the synthetic
data, so two releases evaluated with the same real data and ``random_state`` meet the same split. With a
reference set given (``Evaluation(reference=...)``, the set ``R``: real records of the same population, neither
training nor holdout records) nothing is split: the whole holdout are the non-member targets and ``R`` is the
reference. Every search is an exact neighbour search of the evaluation
(:class:`synthpriv_report.engine.context.Context`),
shared with the other metrics: the targets' neighbours among the synthetic records are rows of the holdout's own
table, so only searches against the reference are new.

**Reporting** (N. Carlini et al., "Membership Inference Attacks From First Principles", IEEE S&P 2022): the ROC
curve on log-log axes, the AUC with DeLong's interval, the true-positive rate (TPR) at false-positive rates (FPR) of
0.1%, 1% and 10% with Clopper-Pearson intervals, and the membership advantage ``max(TPR - FPR)`` over thresholds
(S. Yeom, I. Giacomelli, M. Fredrikson, S. Jha, "Privacy Risk in Machine Learning", IEEE CSF 2018).

**Thresholds and ties.** At a target rate ``f`` the attacker may flag ``k = floor(f n)`` of the ``n`` non-member
targets: a record is flagged when its score is strictly above the tie group of the ``(k + 1)``-th highest
non-member score (the package's tie tolerance, ``docs/metrics.md``, "Ties, self-matches and nearest records");
records tied with that non-member are not flagged. The share of members in that tie group is reported. A rate
below ``1 / n`` cannot be read from ``n`` non-members: its row says so (``reportable``), and its threshold is the
one above every non-member.

**Beyond chance.** If the attack were no better than chance, members and non-members would be exchangeable and the
number of members above the threshold would follow the beta-binomial law of
:func:`synthpriv_report.stats.exceedance_quantile` (both groups' sizes counted). The attack is shown to find
members when, at one of the three rates, more members are flagged than chance allows at the per-check level
divided by three (Bonferroni over the rates); ``excess_lower_bound`` is the largest number of members flagged
beyond that allowance, as a share of the members. It is the graded quantity: high above 0.

**ε.** At each rate the pair (TPR, FPR) at its conservative ends (one-sided Clopper-Pearson bounds, the overall
confidence 95% split over the three rates and the two ends) gives a lower bound on the ε of any (ε, δ)-DP
generator that could have produced this release (:func:`synthpriv_report.stats.epsilon_lower_bound`; δ is the
release context's ``generator.delta``, else 0). It is a lower bound from one release under this threat model,
never a guarantee: a small one is no evidence of privacy.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ... import stats
from ..._compiled import njit
from ...core import plotting as plot
from ...core.formats import fmt_count, fmt_number, fmt_share
from ...core.formats import is_finite_number as finite
from ...core.registry import Computation, Grading, LevelSpec, NotRequired, ResultJSON, TypedDict, verdict_alpha
from ...core.results import InconsistentReportError, MetricResult, not_computed, stored_count, stored_number
from ...stats.comparisons import ABS_TOL, REL_TOL
from .._shared.arrays import SmallResult, eps_ratio

#: The false-positive rates at which every attack reports its true-positive rate.
FPR_TARGETS: tuple[float, ...] = (0.001, 0.01, 0.1)
#: The headline rate (the value of every attack).
HEADLINE_FPR = 0.01
#: Neighbours of the density-ratio attack (synthetic and reference).
K_DENSITY = 5
#: Synthetic neighbours of a target in the local likelihood-ratio attack.
K_LOCAL_SYN = 5
#: Reference neighbours of each synthetic record in the local likelihood-ratio attack's kernel sums.
K_LOCAL_REF = 10
#: Fewest records each side of an attack (members, non-member targets, reference) needs to be computed: a holdout
#: of at least ``2 * MIN_RECORDS`` records when it is split, at least ``MIN_RECORDS`` each of the holdout and of a
#: reference set given by the user.
MIN_RECORDS = 10
#: Overall confidence of the ε lower bound and of the reported intervals.
CONFIDENCE = 0.95
#: Points of the ROC curve kept in a result's evidence (a bounded summary, never per-record values).
CURVE_POINTS = 160
#: Share of the holdout (rounded up) that plays the non-member targets; the rest is the reference.
TARGET_SHARE = 0.5
#: Salt of the seeded split of the holdout (so that it is not the stream other metrics draw from).
_SPLIT_STREAM = 0x6D6961

_Z95 = 1.959963984540054

SOURCE_CARLINI = ('N. Carlini, S. Chien, M. Nasr, S. Song, A. Terzis, F. Tramèr, "Membership Inference Attacks From '
                  'First Principles", IEEE Symposium on Security and Privacy 2022')
SOURCE_DCR_DELUSION = ('Z. Yao, N. Krčo, G. Ganev, Y.-A. de Montjoye, "The DCR Delusion: Measuring the Privacy Risk '
                       'of Synthetic Data", ESORICS 2025')
SOURCE_GANEV = ('G. Ganev, E. De Cristofaro, "On the Inadequacy of Similarity-based Privacy Metrics: Reconstruction '
                'Attacks against \'Truly Anonymous Synthetic Data\'", IEEE Symposium on Security and Privacy 2025')
SOURCE_JAGIELSKI = ('M. Jagielski, J. Ullman, A. Oprea, "Auditing Differentially Private Machine Learning: How '
                    'Private is Private SGD?", NeurIPS 2020')


# ---------------------------------------------------------------------------------------------------------------
# the sets


def _rng(random_state: Any) -> np.random.Generator:
    """The split's generator: a stream of its own for an integer seed, else ``default_rng`` of it."""
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        return np.random.default_rng(np.random.SeedSequence([int(random_state), _SPLIT_STREAM]))
    return np.random.default_rng(random_state)


def split_positions(n: int, random_state: Any) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The non-member targets and the reference of a holdout of ``n`` records: a seeded permutation of the
    positions, the first ``ceil(n / 2)`` targets, the rest the reference, each sorted.

    >>> t, r = split_positions(5, 0); sorted(t.tolist() + r.tolist()), len(t), len(r)
    ([0, 1, 2, 3, 4], 3, 2)
    """
    perm = _rng(random_state).permutation(int(n))
    half = int(math.ceil(TARGET_SHARE * int(n)))
    return np.sort(perm[:half]), np.sort(perm[half:])


def attack_split(ctx: Any) -> tuple[Any, Any]:
    """The non-member targets and the reference (:class:`~synthpriv_report.engine.requests.SetRef`).

    Without a reference set of the user's (``ctx.R`` None): subsets of the holdout, drawn once per evaluation
    (:func:`split_positions` over its canonical order). With one: the whole holdout and the whole reference set,
    no split (nothing random).
    """
    if ctx.R is not None:
        return ctx.full(ctx.H), ctx.full(ctx.R)

    def make() -> tuple[Any, Any]:
        targets, reference = split_positions(ctx.size(ctx.H), ctx.random_state)
        return ctx.subset(ctx.H, targets, "mia.targets"), ctx.subset(ctx.H, reference, "mia.reference")

    split: tuple[Any, Any] = ctx.memo(("mia.split", ctx.H, ctx.random_state), make)
    return split


def target_rows(targets: Any) -> Any:
    """The rows of the holdout's tables that are the non-member targets: their positions, or every row
    (``slice(None)``) where the whole holdout is the targets (a reference set given by the user)."""
    return slice(None) if targets.rows is None else targets.rows


def missing_sets(ctx: Any) -> str | None:
    """Why the attacks cannot run on these data (``None`` when they can).

    Sizes: at least :data:`MIN_RECORDS` training records and one synthetic record; without a reference set of the
    user's, a holdout of at least ``2 * MIN_RECORDS`` records (half targets, half reference); with one, at least
    :data:`MIN_RECORDS` records in each of the holdout (every one a target) and the reference set.
    """
    if ctx.H is None:
        return "needs a holdout: part of it plays the non-members, the rest the attacker's reference data"
    n_h, n_t = ctx.size(ctx.H), ctx.size(ctx.T)
    if ctx.R is not None:
        n_r = ctx.size(ctx.R)
        if n_t < MIN_RECORDS or n_h < MIN_RECORDS or n_r < MIN_RECORDS:
            return (f"needs at least {MIN_RECORDS} training records, a holdout of at least {MIN_RECORDS} records "
                    f"(the non-members to attack) and a reference set (reference=) of at least {MIN_RECORDS} "
                    f"records; got {n_t}, {n_h} and {n_r}")
    elif n_t < MIN_RECORDS or n_h // 2 < MIN_RECORDS:
        return (f"needs at least {MIN_RECORDS} training records and a holdout of at least {2 * MIN_RECORDS} records "
                f"(half non-members to attack, half reference data); got {n_t} and {n_h}")
    if ctx.size(ctx.S) < 1:
        return "needs at least one synthetic record"
    return None


#: ``details["reference_set"]`` of an attack: where its reference data came from.
REFERENCE_GIVEN = "given by the user"
REFERENCE_HALF = "half of the holdout"


def reference_details(ctx: Any) -> dict[str, Any]:
    """What an attack's details say of its reference data: ``reference_set`` (:data:`REFERENCE_GIVEN` or
    :data:`REFERENCE_HALF`) and ``n_reference``, its number of records."""
    _, reference = attack_split(ctx)
    return {"reference_set": REFERENCE_GIVEN if ctx.R is not None else REFERENCE_HALF,
            "n_reference": int(ctx.size(reference))}


def reference_clause(details: Mapping[str, Any]) -> str:
    """Which reference data the attacker held, in a reader's words: a clause that the attacks' sentences end with
    (empty for a report that does not say).

    >>> print(reference_clause({"reference_set": "given by the user", "n_reference": 40, "n_nonmembers": 50}))
    ... # doctest: +NORMALIZE_WHITESPACE
    the attacker's reference data were a reference set of 40 records given by the user (real people of the same
    population in neither the training data nor the holdout, whose 50 people are all attacked as non-members)
    >>> print(reference_clause({"reference_set": "half of the holdout", "n_reference": 25, "n_nonmembers": 25}))
    ... # doctest: +NORMALIZE_WHITESPACE
    the attacker's reference data were half of the holdout (25 records, real people the generator never saw; the
    other 25 are attacked as non-members)
    """
    n_ref, n_n = fmt_count(details.get("n_reference")), fmt_count(details.get("n_nonmembers"))
    which = details.get("reference_set")
    if which == REFERENCE_GIVEN:
        return (f"the attacker's reference data were a reference set of {n_ref} records given by the user (real "
                f"people of the same population in neither the training data nor the holdout, whose {n_n} people "
                f"are all attacked as non-members)")
    if which == REFERENCE_HALF:
        return (f"the attacker's reference data were half of the holdout ({n_ref} records, real people the "
                f"generator never saw; the other {n_n} are attacked as non-members)")
    return ""


def attack_plan(ctx: Any, *, syn_k: int, ref_k: int, syn_ref_k: int = 0, space: str = "mia") -> list[Any]:
    """The searches of an attack: members and the holdout against the synthetic data (``syn_k`` neighbours),
    members and the non-member targets against the reference (``ref_k``), and, for ``syn_ref_k``, the synthetic
    records against the reference."""
    if missing_sets(ctx) is not None:
        return []
    sp = attack_space(ctx)
    targets, reference = attack_split(ctx)
    reqs = [ctx.request(sp, ctx.T, ctx.S, syn_k), ctx.request(sp, ctx.H, ctx.S, syn_k)]
    if ref_k:
        reqs += [ctx.request(sp, ctx.T, reference, ref_k), ctx.request(sp, targets, reference, ref_k)]
    if syn_ref_k:
        reqs.append(ctx.request(sp, ctx.S, reference, syn_ref_k))
    return reqs


def attack_space(ctx: Any) -> Any:
    """The space every attack runs in: the caller's choice for ``membership_inference`` (``spaces=``), else gower,
    so that the attacks and the uncalibrated distance attack read the same searches."""
    return ctx.metric_space("membership_inference", "gower")


def syn_distances(ctx: Any, k: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The ``k`` nearest synthetic distances of the members and of the non-member targets (rows of the
    holdout's table: no search of their own)."""
    sp = attack_space(ctx)
    targets, _ = attack_split(ctx)
    return ctx.knn(sp, ctx.T, ctx.S, k).dist[:, :k], ctx.knn(sp, ctx.H, ctx.S, k).dist[target_rows(targets), :k]


def ref_distances(ctx: Any, k: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The ``k`` nearest reference distances of the members and of the non-member targets."""
    sp = attack_space(ctx)
    targets, reference = attack_split(ctx)
    return ctx.knn(sp, ctx.T, reference, k).dist[:, :k], ctx.knn(sp, targets, reference, k).dist[:, :k]


def atypicality(ctx: Any) -> NDArray[np.float64]:
    """How atypical each training record is: its distance to the nearest *other* training record, in the attacks'
    space (:func:`attack_space`), shape (n_members,). It reads the training records' search against themselves,
    the one the distance metrics read when they share the space (gower by default); plan it with
    :func:`atypicality_plan`."""
    return np.asarray(ctx.knn(attack_space(ctx), ctx.T, ctx.T, 1).dist[:, 0], dtype=np.float64)


def atypicality_plan(ctx: Any) -> list[Any]:
    """The search :func:`atypicality` reads: the training records against themselves, one neighbour, in the attacks'
    space (none when the attacks cannot run)."""
    if missing_sets(ctx) is not None:
        return []
    return [ctx.request(attack_space(ctx), ctx.T, ctx.T, 1)]


def log_ratio(num: ArrayLike, den: ArrayLike, floor: float = 0.0) -> NDArray[np.float64]:
    """``log((num + floor + EPS) / (den + floor + EPS))``: the score of a distance-ratio attack (the ratio
    convention of every distance ratio of the package, so that 0 / 0 is 1 and a score is always finite).

    >>> log_ratio([1.0, 0.0], [1.0, 0.0]).tolist()
    [0.0, 0.0]
    >>> log_ratio([0.3], [0.0], floor=0.1).round(4).tolist()  # log(0.4 / 0.1)
    [1.3863]
    """
    f = float(floor)
    return np.log(eps_ratio(np.asarray(num, dtype=np.float64) + f, np.asarray(den, dtype=np.float64) + f))


#: The quantile of the attack's reference distances below which two distances are not told apart (:func:`floor`).
FLOOR_QUANTILE = 0.001


def distance_floor(*ref_distances: NDArray[np.float64]) -> float:
    """The resolution of a distance-ratio score: the :data:`FLOOR_QUANTILE` quantile of the positive finite
    distances from the members and the targets to the reference (the same law for both, so the floor says nothing
    of membership); 0 when there is none.

    Without it a target that happens to equal a synthetic record (real data hold duplicates) would score an infinite
    ratio, above a memorised person moved by a little noise; with it every distance below the floor counts as the
    floor, the spacing below which real people are not told apart.

    >>> round(distance_floor(np.array([0.0, 0.1, 0.2]), np.array([0.3])), 6)  # 0.1% of the way from 0.1 to 0.2
    0.1002
    """
    d = np.concatenate([np.asarray(a, dtype=np.float64).ravel() for a in ref_distances])
    d = d[np.isfinite(d) & (d > 0)]
    return float(np.quantile(d, FLOOR_QUANTILE)) if d.size else 0.0


# ---------------------------------------------------------------------------------------------------------------
# the ROC of an attack


@njit(cache=True)  # type: ignore[untyped-decorator]  # numba has no type hints: its njit is Any
def _tie_groups(values: NDArray[np.float64]) -> NDArray[np.int64]:  # pragma: no cover - compiled
    """Group numbers of sorted ``values``: a new group starts at the first value not tied with the first value of
    the current group (the package's tie rule, chained from the group's start so that groups never drift)."""
    n = values.shape[0]
    groups = np.empty(n, dtype=np.int64)
    g = -1
    start = 0.0
    for i in range(n):
        v = values[i]
        if g < 0 or not (v == start or abs(v - start) <= REL_TOL * max(abs(v), abs(start)) + ABS_TOL):
            g += 1
            start = v
        groups[i] = g
    return groups


@dataclass(frozen=True)
class RatePoint(SmallResult):
    """An attack's outcome at one target false-positive rate.

    Attributes
    ----------
    target : float
        The false-positive rate the attacker allows.
    allowed : int
        Non-member targets the attacker may flag: ``floor(target * n_nonmembers)``.
    flagged_members, flagged_nonmembers : int
        Records flagged on each side.
    tpr, fpr : float
        ``flagged_members / n_members`` and ``flagged_nonmembers / n_nonmembers``.
    tpr_interval, fpr_interval : (float, float)
        Two-sided Clopper-Pearson 95% intervals.
    reportable : bool
        ``target >= 1 / n_nonmembers``: the rate can be read from this many non-members.
    tied_members : int
        Members tied with the non-member that sets the threshold (not flagged).
    chance_allows : int
        Members chance alone flags at the test level (:func:`synthpriv_report.stats.exceedance_quantile`).
    p_value : float
        Exact one-sided p-value of "more members flagged than chance".
    epsilon_lower_bound : float
        ε proven by (TPR, FPR) at their conservative ends.
    """

    target: float
    allowed: int
    flagged_members: int
    flagged_nonmembers: int
    tpr: float
    fpr: float
    tpr_interval: tuple[float, float]
    fpr_interval: tuple[float, float]
    reportable: bool
    tied_members: int
    chance_allows: int
    p_value: float
    epsilon_lower_bound: float


@dataclass(frozen=True)
class AttackROC(SmallResult):
    """What :func:`attack_roc` finds.

    Attributes
    ----------
    auc : float
        Probability that a random member scores above a random non-member, ties one half.
    auc_interval : (float, float)
        DeLong 95% interval, clipped to [0, 1].
    advantage : float
        ``max(TPR - FPR)`` over the attack's thresholds (0 for the threshold that flags nobody).
    rates : tuple of RatePoint
        One per target false-positive rate, in the order given.
    n_members, n_nonmembers : int
    tied_pairs_share : float
        Share of (member, non-member) pairs with tied scores.
    curve_fpr, curve_tpr : tuple of float
        At most :data:`CURVE_POINTS` points of the ROC curve (thresholds between tie groups, kept on a log grid
        of the false-positive rate), from (0, 0) to (1, 1).
    excess_lower_bound : float
        The largest ``(flagged_members - chance_allows) / n_members`` over the rates: above 0 when the attack
        finds members beyond chance at one of them.
    epsilon_lower_bound : float
        The largest ε over the rates.
    """

    auc: float
    auc_interval: tuple[float, float]
    advantage: float
    rates: tuple[RatePoint, ...]
    n_members: int
    n_nonmembers: int
    tied_pairs_share: float
    curve_fpr: tuple[float, ...]
    curve_tpr: tuple[float, ...]
    excess_lower_bound: float
    epsilon_lower_bound: float

    def at(self, target: float) -> RatePoint:
        """The point at target rate ``target``."""
        for r in self.rates:
            if math.isclose(r.target, target):
                return r
        raise KeyError(target)


def attack_roc(member_scores: ArrayLike, nonmember_scores: ArrayLike, *, fprs: Sequence[float] = FPR_TARGETS,
               alpha: float = 0.05, epsilon_alpha: float = 1.0 - CONFIDENCE, delta: float = 0.0) -> AttackROC:
    """The ROC of a membership attack, its rates at ``fprs``, the exact test and the ε bound.

    Parameters
    ----------
    member_scores : array of shape (n_members,)
        The attack's score of each training record (higher: more likely a member).
    nonmember_scores : array of shape (n_nonmembers,)
        The score of each non-member target.
    fprs : sequence of float, default (0.001, 0.01, 0.1)
        Target false-positive rates.
    alpha : float, default 0.05
        Level of the test "better than chance", shared by the rates (each at ``alpha / len(fprs)``).
    epsilon_alpha : float, default 0.05
        One minus the confidence of the ε bound, shared by the rates and the two ends of each.
    delta : float, default 0
        The δ of (ε, δ)-differential privacy the ε bound assumes.

    Returns
    -------
    AttackROC

    Examples
    --------
    Members scored 5, 4, 4, 1, non-members 4, 3, 2, 0. Of the 16 pairs the member is higher in 11 and tied in 2
    (4 against 4), so the AUC is 12 / 16. With 4 non-members no rate below 25% is readable and no non-member may
    be flagged: only the member strictly above the highest non-member score (4) is, 1 of 4.

    >>> r = attack_roc([5.0, 4.0, 4.0, 1.0], [4.0, 3.0, 2.0, 0.0])
    >>> r.auc, r.at(0.01).flagged_members, r.at(0.01).tied_members, r.at(0.01).reportable
    (0.75, 1, 2, False)
    >>> r.advantage  # flag the scores of 4 and above: 3 of 4 members and 1 of 4 non-members
    0.5
    """
    sm = np.asarray(member_scores, dtype=np.float64).ravel()
    sn = np.asarray(nonmember_scores, dtype=np.float64).ravel()
    n_m, n_n = sm.size, sn.size
    if n_m == 0 or n_n == 0:
        raise ValueError("a membership attack needs at least one member and one non-member")
    if not (np.all(np.isfinite(sm)) and np.all(np.isfinite(sn))):
        raise ValueError("a membership attack needs finite scores")
    # sorted from the most member-like score down: ascending in -score
    pooled = -np.concatenate([sm, sn])
    is_member = np.zeros(n_m + n_n, dtype=bool)
    is_member[:n_m] = True
    order = np.argsort(pooled, kind="stable")
    groups_sorted = _tie_groups(np.ascontiguousarray(pooled[order])).astype(np.intp, copy=False)  # 32-bit: intp
    member_sorted = is_member[order]
    n_groups = int(groups_sorted[-1]) + 1
    m_count = np.bincount(groups_sorted[member_sorted], minlength=n_groups).astype(np.float64)
    n_count = np.bincount(groups_sorted[~member_sorted], minlength=n_groups).astype(np.float64)
    # AUC and DeLong's variance from the group counts (a member beats the non-members of later groups)
    n_after = n_count[::-1].cumsum()[::-1] - n_count
    m_before = m_count.cumsum() - m_count
    v10 = (n_after + 0.5 * n_count) / n_n
    v01 = (m_before + 0.5 * m_count) / n_m
    auc = float((m_count * v10).sum() / n_m)
    var = 0.0
    if n_m > 1:
        var += float((m_count * (v10 - auc) ** 2).sum() / (n_m - 1)) / n_m
    if n_n > 1:
        mean01 = float((n_count * v01).sum() / n_n)
        var += float((n_count * (v01 - mean01) ** 2).sum() / (n_n - 1)) / n_n
    half = _Z95 * math.sqrt(max(var, 0.0))
    auc_interval = (max(0.0, auc - half), min(1.0, auc + half))
    tied = float((m_count * n_count).sum() / (n_m * n_n))
    cum_m = np.concatenate([[0.0], m_count.cumsum()])  # flagged when the threshold lies after group g - 1
    cum_n = np.concatenate([[0.0], n_count.cumsum()])
    advantage = float(np.max(cum_m / n_m - cum_n / n_n))
    nonmember_groups = groups_sorted[~member_sorted]  # ascending: the i-th most member-like non-member's group
    fprs = tuple(float(f) for f in fprs)
    a_test = float(alpha) / len(fprs)
    a_end = float(epsilon_alpha) / (2 * len(fprs))
    rates = []
    for f in fprs:
        k = int(math.floor(f * n_n + 1e-9))
        if k >= n_n:
            cut, tied_m = n_groups, 0
        else:
            cut = int(nonmember_groups[k])  # groups before it are flagged
            tied_m = int(m_count[cut])
        fm, fn = int(cum_m[cut]), int(cum_n[cut])
        allows = stats.exceedance_quantile(n_m, n_n, k, a_test)
        tpr_lo = stats.clopper_pearson(fm, n_m, confidence=1.0 - a_end, sided="one")[0]
        fpr_hi = stats.clopper_pearson(fn, n_n, confidence=1.0 - a_end, sided="one")[1]
        rates.append(RatePoint(
            target=f, allowed=k, flagged_members=fm, flagged_nonmembers=fn, tpr=fm / n_m, fpr=fn / n_n,
            tpr_interval=stats.clopper_pearson(fm, n_m), fpr_interval=stats.clopper_pearson(fn, n_n),
            reportable=f * n_n >= 1.0 - 1e-9, tied_members=tied_m, chance_allows=allows,
            p_value=stats.exceedance_p_value(fm, n_m, n_n, k),
            epsilon_lower_bound=stats.epsilon_lower_bound(tpr_lo, fpr_hi, delta=delta)))
    curve_fpr, curve_tpr = _curve(cum_n / n_n, cum_m / n_m, 1.0 / n_n)
    return AttackROC(
        auc=auc, auc_interval=auc_interval, advantage=max(advantage, 0.0), rates=tuple(rates), n_members=n_m,
        n_nonmembers=n_n, tied_pairs_share=tied, curve_fpr=curve_fpr, curve_tpr=curve_tpr,
        excess_lower_bound=max((r.flagged_members - r.chance_allows) / n_m for r in rates),
        epsilon_lower_bound=max(r.epsilon_lower_bound for r in rates))


def _curve(fpr: NDArray[np.float64], tpr: NDArray[np.float64], smallest: float
           ) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """At most :data:`CURVE_POINTS` points of a ROC curve: for each rate of a log grid from ``smallest`` to 1, the
    last threshold at or below it, with (0, 0) and (1, 1)."""
    grid = np.geomspace(max(smallest, 1e-6), 1.0, CURVE_POINTS - 2)
    pos = np.unique(np.clip(np.searchsorted(fpr, grid, side="right") - 1, 0, fpr.size - 1))
    xs = np.concatenate([[0.0], fpr[pos], [1.0]])
    ys = np.concatenate([[0.0], tpr[pos], [1.0]])
    return tuple(float(v) for v in xs), tuple(float(v) for v in ys)


def _pooled_groups(sm: NDArray[np.float64], sn: NDArray[np.float64]
                   ) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.bool_]]:
    """The tie groups of an attack's pooled scores as :func:`attack_roc` forms them: each record's group (members
    first, then non-members; group 0 the most member-like), the groups in that sorted order, and which of the
    sorted records are members."""
    n_m = sm.size
    pooled = -np.concatenate([sm, sn])
    is_member = np.zeros(pooled.size, dtype=bool)
    is_member[:n_m] = True
    order = np.argsort(pooled, kind="stable")
    groups_sorted = _tie_groups(np.ascontiguousarray(pooled[order])).astype(np.intp, copy=False)
    groups = np.empty(pooled.size, dtype=np.intp)
    groups[order] = groups_sorted
    return groups, groups_sorted, is_member[order]


def member_flags(member_scores: ArrayLike, nonmember_scores: ArrayLike, *, fprs: Sequence[float] = FPR_TARGETS
                 ) -> dict[float, NDArray[np.bool_]]:
    """Which members an attack flags at each target false-positive rate, by :func:`attack_roc`'s threshold (a
    member is flagged when its score is strictly above the tie group of the ``(k + 1)``-th highest non-member
    score, ``k = floor(f n_nonmembers)``): the per-record form of its ``flagged_members``.

    Parameters
    ----------
    member_scores : array of shape (n_members,)
    nonmember_scores : array of shape (n_nonmembers,)
    fprs : sequence of float, default (0.001, 0.01, 0.1)

    Returns
    -------
    dict of float to bool array of shape (n_members,)

    Examples
    --------
    With 4 non-members no non-member may be flagged at 1%: only the member above the highest non-member (4) is.

    >>> member_flags([5.0, 4.0, 4.0, 1.0], [4.0, 3.0, 2.0, 0.0], fprs=(0.01, 0.5))[0.01].tolist()
    [True, False, False, False]
    """
    sm = np.asarray(member_scores, dtype=np.float64).ravel()
    sn = np.asarray(nonmember_scores, dtype=np.float64).ravel()
    groups, groups_sorted, member_sorted = _pooled_groups(sm, sn)
    nonmember_groups = groups_sorted[~member_sorted]
    n_groups = int(groups_sorted[-1]) + 1
    out = {}
    for f in fprs:
        k = int(math.floor(float(f) * sn.size + 1e-9))
        cut = n_groups if k >= sn.size else int(nonmember_groups[k])
        out[float(f)] = groups[:sm.size] < cut
    return out


def member_ranks(member_scores: ArrayLike, nonmember_scores: ArrayLike = ()) -> NDArray[np.int64]:
    """Each member's rank by the attack's score among the members, 1 for the highest; tied scores (the package's
    tie rule, as :func:`attack_roc` groups them) share the best rank of their group.

    >>> member_ranks([0.2, 0.9, 0.2, 0.5]).tolist()
    [3, 1, 3, 2]
    """
    sm = np.asarray(member_scores, dtype=np.float64).ravel()
    sn = np.asarray(nonmember_scores, dtype=np.float64).ravel()
    groups, _, _ = _pooled_groups(sm, sn)
    mg = groups[:sm.size]
    count = np.bincount(mg, minlength=int(groups.max(initial=0)) + 1)
    before = count.cumsum() - count
    return (before[mg] + 1).astype(np.int64)


#: The most atypical shares of the training records that the worst case counts the flagged members of: the 1%
#: and the 5% most atypical (each rounded up to a whole record), and the rest beyond the 5%.
ATYPICAL_SHARES: tuple[float, ...] = (0.01, 0.05)
#: The rate at which the atypical records' flags are counted.
ATYPICAL_FPR = HEADLINE_FPR
#: Numbers of the highest attack scores (members and non-member targets together) whose members are counted.
TOP_SCORES: tuple[int, ...] = (10, 100)


def atypical_sizes(n_members: int) -> tuple[int, ...]:
    """How many records each share of :data:`ATYPICAL_SHARES` holds: ``ceil(share * n)``, at least 1.

    >>> atypical_sizes(1000), atypical_sizes(30)
    ((10, 50), (1, 2))
    """
    return tuple(max(1, int(math.ceil(s * int(n_members) - 1e-9))) for s in ATYPICAL_SHARES)


def atypical_order(atypicality: ArrayLike) -> NDArray[np.int64]:
    """Positions of the members from the most atypical (largest distance to the nearest other training record)
    down; equal distances keep the evaluation's order of the records (its canonical order by default, which
    depends on the records' values alone).

    >>> atypical_order([0.1, 0.4, 0.0, 0.4]).tolist()
    [1, 3, 0, 2]
    """
    d = np.asarray(atypicality, dtype=np.float64).ravel()
    return np.argsort(-d, kind="stable").astype(np.int64)


def atypical_breakdown(atypicality: ArrayLike, flagged: ArrayLike, fpr: float) -> dict[str, dict[str, Any]]:
    """Where an attack's flagged members sit: for the most atypical 1% and 5% of the training records
    (:data:`ATYPICAL_SHARES`) and for the rest beyond the 5%, how many there are (``n``), how many the attack
    flags (``n_flagged``) and how many chance would flag (``chance``: ``fpr`` times ``n``, the attack's
    false-positive rate applied to them). Counts only, no record.

    Parameters
    ----------
    atypicality : array of shape (n_members,)
        Each training record's distance to its nearest other training record.
    flagged : bool array of shape (n_members,)
        Whether the attack flags each one.
    fpr : float
        The attack's false-positive rate at that threshold.

    Returns
    -------
    dict
        ``{"0.01": {...}, "0.05": {...}, "rest": {...}}``, the first two nested (the 1% lie in the 5%).

    Examples
    --------
    Twenty records, the two most atypical (distances 20 and 19) flagged and one typical one: the 1% is 1 record,
    the 5% 1 record, the rest 19 records.

    >>> d = np.arange(1.0, 21.0); f = np.zeros(20, dtype=bool); f[[19, 18, 0]] = True
    >>> b = atypical_breakdown(d, f, 0.1)
    >>> b["0.01"]["n_flagged"], b["rest"]["n"], b["rest"]["n_flagged"], round(b["rest"]["chance"], 2)
    (1, 19, 2, 1.9)
    """
    order = atypical_order(atypicality)
    fl = np.asarray(flagged, dtype=bool).ravel()[order]
    n = int(fl.size)
    out: dict[str, dict[str, Any]] = {}
    for share, size in zip(ATYPICAL_SHARES, atypical_sizes(n)):
        size = min(size, n)
        out[f"{share:g}"] = {"n": size, "n_flagged": int(fl[:size].sum()), "chance": float(fpr) * size}
    widest = min(atypical_sizes(n)[-1], n)
    out["rest"] = {"n": n - widest, "n_flagged": int(fl[widest:].sum()), "chance": float(fpr) * (n - widest)}
    return out


def top_scores(member_scores: ArrayLike, nonmember_scores: ArrayLike, *, ks: Sequence[int] = TOP_SCORES
               ) -> dict[str, dict[str, Any]]:
    """How many of the records with the ``k`` highest attack scores (members and non-member targets together) are
    training members: ``n`` records (the ``k`` highest and every record tied with the ``k``-th, so ``n >= k``;
    all of them when there are fewer), ``n_members`` of them members, against ``chance``, the members a score that
    knows nothing would put there (``n`` times the members' share of all the records scored).

    >>> t = top_scores([5.0, 4.0, 4.0, 1.0], [4.0, 3.0, 2.0, 0.0], ks=(1, 2))
    >>> t["1"], t["2"]["n"], t["2"]["n_members"]
    ({'n': 1, 'n_members': 1, 'chance': 0.5}, 4, 3)
    """
    sm = np.asarray(member_scores, dtype=np.float64).ravel()
    sn = np.asarray(nonmember_scores, dtype=np.float64).ravel()
    _, groups_sorted, member_sorted = _pooled_groups(sm, sn)
    pool = int(groups_sorted.size)
    rate = sm.size / pool
    out = {}
    for k in ks:
        if k >= pool:
            n_top, members = pool, int(sm.size)
        else:
            inside = groups_sorted <= groups_sorted[int(k) - 1]
            n_top, members = int(inside.sum()), int(member_sorted[inside].sum())
        out[f"{int(k)}"] = {"n": n_top, "n_members": members, "chance": n_top * rate}
    return out


def delta_of(ctx: Any) -> float:
    """The δ the ε bound assumes: the release context's ``generator.delta``, else 0."""
    gen = (ctx.settings.get("context") or {}).get("generator") or {}
    d = gen.get("delta") if isinstance(gen, Mapping) else None
    return float(d) if isinstance(d, (int, float)) and finite(d) else 0.0


def declared_epsilon(ctx: Any) -> float | None:
    """The release context's ``generator.epsilon``, when it states one."""
    gen = (ctx.settings.get("context") or {}).get("generator") or {}
    e = gen.get("epsilon") if isinstance(gen, Mapping) else None
    return float(e) if isinstance(e, (int, float)) and finite(e) else None


# ---------------------------------------------------------------------------------------------------------------
# the result of an attack


class AttackDetails(TypedDict):
    """The keys of a membership attack's result details (:func:`attack_result`), which each attack extends with
    its own."""

    attack: str
    score: str
    auc: float
    auc_interval: list[float]
    advantage: float
    tpr_at: dict[str, dict[str, Any]]
    n_members: int
    n_nonmembers: int
    n_reference: int
    tied_pairs_share: float
    excess_lower_bound: float
    epsilon_lower_bound: float
    epsilon_confidence: float
    check_alpha: float
    interval_kind: str
    sources: list[str]
    reference_set: str
    declared_epsilon: NotRequired[float]


def roc_details(roc: AttackROC, *, attack: str, score: str, n_reference: int, alpha: float,
                sources: Sequence[str], extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The JSON-safe details of an attack's result (the keys every attack shares)."""
    tpr_at = {}
    for r in roc.rates:
        tpr_at[f"{r.target:g}"] = {
            "tpr": r.tpr, "tpr_interval": list(r.tpr_interval), "fpr": r.fpr, "fpr_interval": list(r.fpr_interval),
            "flagged_members": r.flagged_members, "flagged_nonmembers": r.flagged_nonmembers,
            "allowed_nonmembers": r.allowed, "reportable": r.reportable, "tied_members": r.tied_members,
            "chance_allows": r.chance_allows, "p_value": r.p_value,
            "epsilon_lower_bound": r.epsilon_lower_bound}
    out: dict[str, Any] = {
        "attack": attack, "score": score, "auc": roc.auc, "auc_interval": list(roc.auc_interval),
        "advantage": roc.advantage, "tpr_at": tpr_at, "n_members": roc.n_members,
        "n_nonmembers": roc.n_nonmembers, "n_reference": int(n_reference), "tied_pairs_share": roc.tied_pairs_share,
        "excess_lower_bound": roc.excess_lower_bound, "epsilon_lower_bound": roc.epsilon_lower_bound,
        "epsilon_confidence": CONFIDENCE, "check_alpha": alpha, "interval_kind": "Clopper-Pearson 95% (exact)",
        "sources": list(sources)}
    out.update(extra or {})
    return out


def attack_result(ctx: Any, name: str, scores: Callable[[], tuple[NDArray[np.float64], NDArray[np.float64]]], *,
                  attack: str, score: str, sources: Sequence[str],
                  extra: Callable[[], Mapping[str, Any]] | None = None) -> MetricResult:
    """An attack's :class:`~synthpriv_report.core.results.MetricResult`: the TPR at 1% FPR as the value, with its
    Clopper-Pearson interval, the ROC's numbers in the details and its curve in the evidence (``extra()``: the
    attack's own settings, added to the details once the sets are known to exist)."""
    why = missing_sets(ctx)
    if why is not None:
        return not_computed(name, why)
    members, nonmembers = scores()
    alpha = verdict_alpha()
    roc = attack_roc(members, nonmembers, alpha=alpha, delta=delta_of(ctx))
    where = reference_details(ctx)
    details = roc_details(roc, attack=attack, score=score, n_reference=where["n_reference"], alpha=alpha,
                          sources=sources, extra=extra() if extra is not None else None)
    details["reference_set"] = where["reference_set"]
    eps = declared_epsilon(ctx)
    if eps is not None:
        details["declared_epsilon"] = eps
    head = roc.at(HEADLINE_FPR)
    evidence = {"curve": {"fpr": list(roc.curve_fpr), "tpr": list(roc.curve_tpr)},
                "n_members": roc.n_members, "n_nonmembers": roc.n_nonmembers}
    return MetricResult(name=name, value=head.tpr, interval=head.tpr_interval, details=details,
                        space=attack_space(ctx).label, evidence=evidence)


def scores_memo(ctx: Any, attack: str, make: Callable[[], tuple[NDArray[np.float64], NDArray[np.float64]]]
                ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """An attack's (member, non-member) scores, computed once per evaluation (``mia_worst_case`` reads them
    too)."""
    scores: tuple[NDArray[np.float64], NDArray[np.float64]] = ctx.memo(
        ("mia.scores", attack, ctx.S, ctx.H, ctx.R, ctx.random_state, attack_space(ctx)), make)
    return scores


def roc_again(r: MetricResult, *, n_attacks: int = 1) -> dict[tuple[Any, ...], Any]:
    """An attack's result computed again from its stored counts (its ``LevelSpec.rederive``, for a report read back
    from JSON), by the functions that computed them (:func:`attack_roc`'s): at each target rate the members and
    non-members flagged give the rates, their Clopper-Pearson intervals, what chance allows (the exact
    beta-binomial test at the per-check level shared by the rates), the p-value and the share of members found
    beyond chance the level grades; the headline is the rate at 1% with its interval.

    For the worst case of ``n_attacks`` attacks (tested at the per-check level over ``n_attacks``) the reported
    attack's rows give its own bound; each other attack's stored bound must not exceed it (the reported attack is
    the one that finds the most), and the graded bound is the largest. The AUC, the advantage and the ε bounds rest
    on the per-record scores (and ε on the release context's δ), which a report does not store: only their ranges
    and intervals are checked.
    """
    d = r.details
    n_m = stored_count(d, "n_members")
    n_n = stored_count(d, "n_nonmembers")
    if n_m == 0 or n_n == 0:
        raise InconsistentReportError("is 0: an attack needs members and non-members",
                                      ("details", "n_members" if n_m == 0 else "n_nonmembers"))
    alpha = verdict_alpha() / n_attacks
    out: dict[tuple[Any, ...], Any] = {("details", "check_alpha"): alpha}
    rows = d.get("tpr_at")
    flagged: dict[float, int] = {}
    flagged_non: dict[float, int] = {}
    excess = []
    for f in FPR_TARGETS:
        where = ("details", "tpr_at", f"{f:g}")
        row = rows.get(f"{f:g}") if isinstance(rows, Mapping) else None
        if not isinstance(row, Mapping):
            raise InconsistentReportError(f"is missing: every attack reports its rate at a false-positive rate of "
                                          f"{f:g}", where)
        k = int(math.floor(f * n_n + 1e-9))  # attack_roc's allowance
        fm = flagged[f] = stored_count(row, "flagged_members", high=n_m, where=where)
        fn = flagged_non[f] = stored_count(row, "flagged_nonmembers", high=k, where=where)
        stored_count(row, "tied_members", high=n_m - fm, where=where)
        allows = stats.exceedance_quantile(n_m, n_n, k, alpha / len(FPR_TARGETS))
        out.update({(*where, "allowed_nonmembers"): k, (*where, "tpr"): fm / n_m, (*where, "fpr"): fn / n_n,
                    (*where, "reportable"): f * n_n >= 1.0 - 1e-9, (*where, "chance_allows"): allows,
                    (*where, "p_value"): stats.exceedance_p_value(fm, n_m, n_n, k)})
        for key, (lo, hi) in (("tpr_interval", stats.clopper_pearson(fm, n_m)),
                              ("fpr_interval", stats.clopper_pearson(fn, n_n))):
            out[where + (key, 0)], out[where + (key, 1)] = lo, hi
        excess.append((fm - allows) / n_m)
    own = max(excess)
    head = flagged[HEADLINE_FPR]
    out[("value",)] = head / n_m
    confidence = CONFIDENCE if n_attacks == 1 else 1.0 - (1.0 - CONFIDENCE) / n_attacks  # as the attacks make it
    out[("interval", 0)], out[("interval", 1)] = stats.clopper_pearson(head, n_m, confidence=confidence)
    graded = own
    if n_attacks > 1:
        out[("details", "n_attacks")] = n_attacks
        attacks = d.get("attacks")
        worst = d.get("worst_attack")
        if not isinstance(attacks, Mapping) or worst not in attacks or not isinstance(attacks[worst], Mapping):
            raise InconsistentReportError(f"is {_shorten(worst)}, not one of the attacks listed in details.attacks",
                                          ("details", "worst_attack"))
        here = ("details", "attacks", worst)
        out.update({(*here, "excess_lower_bound"): own, (*here, "tpr_at_1pct_fpr"): head / n_m,
                    (*here, "flagged_members_at_0.1pct"): flagged[0.001]})
        for label, a in attacks.items():
            other = stored_number(a if isinstance(a, Mapping) else {}, "excess_lower_bound",
                                  where=("details", "attacks", label))
            if label != worst and other > own + 1e-12:
                raise InconsistentReportError(f"is {other!r}, above the reported attack's {own!r}, whose rows the "
                                              f"report draws: the worst case reports the attack that finds the most",
                                              ("details", "attacks", label, "excess_lower_bound"))
            graded = max(graded, other)
    out[("details", "excess_lower_bound")] = graded
    out.update(_concentration_again(d, n_m, n_n, flagged[ATYPICAL_FPR], flagged_non[ATYPICAL_FPR]))
    return out


def _concentration_again(d: Mapping[str, Any], n_m: int, n_n: int, flagged_members: int, flagged_nonmembers: int
                         ) -> dict[tuple[Any, ...], Any]:
    """The worst case's atypicality breakdown and top scores (``details["atypical"]``, ``details["top_scores"]``,
    when a report stores them) checked against the counts they rest on: each group's size is its share of the
    members rounded up, its flagged members whole and at most its size, the 1% within the 5%, the 5% and the rest
    together the members flagged at 1% (the rest's count is computed again as the difference), and chance the
    attack's false-positive rate there times the size; each top-``k`` count at least ``k`` records (all of them
    when fewer), its members at most the members, and its chance the members' share of all the records scored
    times its size."""
    out: dict[tuple[Any, ...], Any] = {}
    at = d.get("atypical")
    if at is not None:
        where = ("details", "atypical")
        if not isinstance(at, Mapping):
            raise InconsistentReportError("is not a table of counts", where)
        fpr = flagged_nonmembers / n_n
        out[where + ("fpr",)] = fpr
        sizes = [min(s, n_m) for s in atypical_sizes(n_m)]
        groups = [(f"{share:g}", size) for share, size in zip(ATYPICAL_SHARES, sizes)] + [("rest", n_m - sizes[-1])]
        counts = []
        for key, size in groups:
            row = at.get(key)
            if not isinstance(row, Mapping):
                raise InconsistentReportError("is missing from the atypicality breakdown", (*where, key))
            out[where + (key, "n")] = size
            counts.append(stored_count(row, "n_flagged", high=size, where=(*where, key)))
            out[where + (key, "chance")] = fpr * size
        for (key, size), (_, wider), inner, outer in zip(groups, groups[1:-1], counts, counts[1:-1]):
            if not inner <= outer <= inner + wider - size:
                raise InconsistentReportError(f"is {outer}, but the {wider} records it counts hold the {size} "
                                              f"records of the {key} share, {inner} of them flagged",
                                              (*where, f"{ATYPICAL_SHARES[-1]:g}", "n_flagged"))
        # the rest: the members flagged at that rate less those among the most atypical (checked after the rates,
        # so that a forged rate is named before the breakdown that no longer adds up to it)
        out[where + ("rest", "n_flagged")] = flagged_members - counts[-2]
    tops = d.get("top_scores")
    if tops is not None:
        where = ("details", "top_scores")
        if not isinstance(tops, Mapping):
            raise InconsistentReportError("is not a table of counts", where)
        pool = n_m + n_n
        for k in TOP_SCORES:
            row = tops.get(f"{k}")
            if not isinstance(row, Mapping):
                raise InconsistentReportError("is missing from the top scores", (*where, f"{k}"))
            n_top = stored_count(row, "n", high=pool, where=(*where, f"{k}"))
            if n_top < min(k, pool):
                raise InconsistentReportError(f"is {n_top}, fewer than the {min(k, pool)} highest scores it counts",
                                              (*where, f"{k}", "n"))
            members = stored_count(row, "n_members", high=min(n_top, n_m), where=(*where, f"{k}"))
            if n_top - members > n_n:
                raise InconsistentReportError(f"is {members}, leaving more non-members than the {n_n} attacked",
                                              (*where, f"{k}", "n_members"))
            out[where + (f"{k}", "chance")] = n_top * n_m / pool
    return out


def _shorten(value: Any) -> str:
    """``repr(value)``, at most 60 characters."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


#: The false-positive rates at which an attack must be ruled out (the low rates Carlini et al. ask to report).
RULE_OUT_FPRS = (0.001, 0.01)

#: The low band of an attack: its risk is ruled out when, at each rate of :data:`RULE_OUT_FPRS`, the upper
#: confidence bound of its true-positive rate exceeds the lower bound of its false-positive rate by at most 8
#: percentage points (at most 8% of the training members found beyond its false accusations). With 500 non-member
#: targets the threshold at 1% rests on 5 of them, so an honest attack's true-positive rate there wanders up to
#: about 3.5%, and its upper bound at the worst case's level to about 6 points: 5 points left a fifth of honest
#: releases of 1,000 records inconclusive.
ATTACK_NEGLIGIBLE = 0.08

#: An attack whose member and non-member scores tie in at least this share of pairs decides mostly by ties, and
#: rules nothing out.
TIED_PAIRS_WEAK = 0.5


def advantage_upper(tpr_counts: Mapping[str, Any], n_m: int, n_n: int, alpha: float) -> float | None:
    """The largest ``upper(TPR) - lower(FPR)`` over :data:`RULE_OUT_FPRS` from the members and non-members an
    attack flags there (``tpr_counts``: rate key to ``(flagged_members, flagged_nonmembers)``), each end a
    one-sided Clopper-Pearson bound at ``alpha`` shared by the rates and the two ends. ``None`` when a count is
    missing.

    >>> round(advantage_upper({"0.001": (0, 0), "0.01": (10, 5)}, 1000, 500, 0.05), 4)
    0.0169
    """
    if n_m <= 0 or n_n <= 0:
        return None
    a_end = float(alpha) / (2 * len(RULE_OUT_FPRS))
    best = -1.0
    for f in RULE_OUT_FPRS:
        row = tpr_counts.get(f"{f:g}")
        if row is None or len(row) != 2 or not all(isinstance(v, (int, float)) for v in row):
            return None
        fm, fn = int(row[0]), int(row[1])
        hi = stats.clopper_pearson(fm, n_m, confidence=1.0 - a_end, sided="one")[1]
        lo = stats.clopper_pearson(fn, n_n, confidence=1.0 - a_end, sided="one")[0]
        best = max(best, hi - lo)
    return best


def attack_risky_end(r: MetricResult) -> float | None:
    """An attack's risky end (:func:`advantage_upper` at the attack's per-check level); for the worst case, the
    largest over its attacks (each attack's flagged counts are stored with it)."""
    d = r.details
    n_m, n_n, alpha = d.get("n_members"), d.get("n_nonmembers"), d.get("check_alpha")
    if not (isinstance(n_m, (int, float)) and isinstance(n_n, (int, float)) and isinstance(alpha, (int, float))):
        return None
    attacks = d.get("attacks")
    if isinstance(attacks, Mapping) and attacks:
        bounds = [advantage_upper(a.get("flagged_at") or {}, int(n_m), int(n_n), float(alpha))
                  if isinstance(a, Mapping) else None for a in attacks.values()]
        return None if any(b is None for b in bounds) else max(bounds)  # type: ignore[type-var]
    rows = d.get("tpr_at") or {}
    counts = {k: (v.get("flagged_members"), v.get("flagged_nonmembers")) for k, v in rows.items()
              if isinstance(v, Mapping)}
    return advantage_upper(counts, int(n_m), int(n_n), float(alpha))


def attack_weak(r: MetricResult) -> str | None:
    """Why an attack rules nothing out on these data: its scores tie for most member/non-member pairs."""
    tied = r.details.get("tied_pairs_share")
    if isinstance(tied, (int, float)) and tied >= TIED_PAIRS_WEAK:
        return (f"the attack's scores tie for {tied:.0%} of member/non-member pairs, so it decides mostly by ties and "
                f"rules nothing out")
    return None


def reference_attack_computation(compute: Callable[..., MetricResult], plan: Callable[..., Any],
                                 details: type) -> Computation:
    """What the reference-calibrated attacks (distance ratio, density ratio, local likelihood ratio) declare about
    their computation: a holdout is needed, distances in the Gower space, no calibration against the holdout, and
    no copy-sensitivity: a person with a natural twin among the synthetic records scores as a copy does."""
    return Computation(compute=compute, plan=plan, needs=("holdout",), default_space="gower", calibratable=False,
                       copy_sensitive=False, details=details)


def attack_grading(what: str, *, n_attacks: int = 1, drives_verdict: bool = False) -> Grading:
    """How a membership attack's true-positive rate is graded: a share, riskier when higher, at the level rule of
    :func:`attack_level`."""
    return Grading(direction="higher_is_riskier", value_range=(0.0, 1.0), value_kind="share",
                   level=attack_level(what, n_attacks=n_attacks), drives_verdict=drives_verdict)


def attack_level(what: str, *, n_attacks: int = 1) -> LevelSpec:
    """The level rule of an attack: high when it finds members beyond chance (``excess_lower_bound > 0``); a report
    read back is checked by :func:`roc_again` (``n_attacks``: how many attacks the worst case took the strongest
    of)."""
    return LevelSpec(
        medium=None, high=0.0, difference=True, direction="higher_is_riskier",
        rederive=lambda r: roc_again(r, n_attacks=n_attacks),
        of=lambda r: r.details.get("excess_lower_bound"),
        risky_end=attack_risky_end, negligible=ATTACK_NEGLIGIBLE, weak=attack_weak,
        risky_scale="the upper bound of the share of members found beyond false accusations, at 0.1% and 1% false "
                    "positives",
        scale="the share of training members the attack flags beyond what chance allows, at the best of the "
              "false-positive rates 0.1%, 1% and 10%",
        source="package default: an exact test of the attack against chance, both groups' sizes counted; the "
               "attack and its reporting follow " + SOURCE_CARLINI,
        description=f"high when {what} flags more training members than chance would at one of the false-positive "
                    "rates 0.1%, 1% or 10% (an exact test at a level that keeps the verdict's false alarms near "
                    "5%, shared by the three rates): the graded share of members found beyond chance is above "
                    "{high}")


# ---------------------------------------------------------------------------------------------------------------
# the figure


def plot_attack_roc(result: Any, *, ax: Any = None, curves: Mapping[str, Mapping[str, Any]] | None = None,
                    label: str = "Membership attack") -> Any:
    """The ROC curve of an attack on log-log axes (Carlini et al.), with the chance line and the three target
    rates marked with their Clopper-Pearson intervals.

    Parameters
    ----------
    result : MetricResult
        An attack's result (its evidence holds the curve; its details the rates).
    ax : matplotlib Axes, optional
    curves : mapping, optional
        Several named curves (``{"label": {"fpr": [...], "tpr": [...]}}``) drawn instead of the result's own.
    label : str
        The attack's short name, for the title.

    Returns
    -------
    matplotlib Axes
        A curve on the chance line means the attack cannot tell members from non-members. Both axes are the
        whole range of a rate, from below one record's share to 100% (the chance line spans it); a marked rate
        at an end is drawn whole.
    """
    ax = plot.new_ax(ax)
    if result is None or not result.computed or not result.evidence:
        return plot.empty(ax, "membership attack not computed")
    n_n = int(result.evidence.get("n_nonmembers") or result.details.get("n_nonmembers") or 1)
    n_m = int(result.evidence.get("n_members") or result.details.get("n_members") or 1)
    lo = 1.0 / max(n_n, 1)
    floor = min(lo, 1.0 / max(n_m, 1)) / 2.0
    named = curves if curves else {"attack": result.evidence.get("curve") or {}}
    palette = ("#D55E00", "#0072B2", "#009E73", "#CC79A7", "#7f7f7f")
    for i, (name, c) in enumerate(named.items()):
        xs = np.asarray(c.get("fpr") or [], dtype=float)
        ys = np.asarray(c.get("tpr") or [], dtype=float)
        keep = ys > 0  # the origin and the thresholds that flag no member lie off the log axes
        xs, ys = np.maximum(xs[keep], floor), ys[keep]
        if xs.size:
            ax.step(xs, ys, where="post", color=palette[i % len(palette)], label=name if curves else None)
    ax.plot([floor, 1.0], [floor, 1.0], color=plot.COLORS["line"], linestyle=":", linewidth=1,
            label="chance (TPR = FPR)")
    for key, point in (result.details.get("tpr_at") or {}).items():
        if not point.get("reportable"):
            continue
        tpr, (t_lo, t_hi) = point["tpr"], point["tpr_interval"]
        x = max(float(key), floor)
        bar = ax.errorbar([x], [max(tpr, floor)], yerr=[[max(tpr, floor) - max(t_lo, floor)],
                                                        [max(t_hi, floor) - max(tpr, floor)]],
                          fmt="o", color=plot.COLORS["line"], markersize=3, capsize=2)
        for part in bar.get_children():  # a rate of 100% sits on the top edge: drawn whole, not cut in half
            part.set_clip_on(False)
    plot.log_rate_axes(ax, floor)
    ax.axvline(lo, color=plot.COLORS["T"], linewidth=0.8, linestyle="--")
    ax.text(lo * 1.1, 0.5, f"1 / {fmt_count(n_n)} non-members", fontsize=8, color=plot.COLORS["T"], rotation=90,
            va="top")
    ax.set_xlabel("false-positive rate (non-members wrongly flagged)")
    ax.set_ylabel("true-positive rate (members found)")
    ax.set_title(f"{label}: TPR {fmt_share(result.value)} at 1% FPR")
    ax.legend(fontsize=7, loc="lower right")
    return ax


# ---------------------------------------------------------------------------------------------------------------
# the reader's sentences (from the JSON form of a result)


def _rate(details: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    return ((details.get("tpr_at") or {}).get(key)) or {}


def attack_finding(how: str) -> Callable[[ResultJSON], str]:
    """The cover's sentence of an attack whose attacker ``how`` ("compares ... with ...")."""

    def finding(m: ResultJSON) -> str:
        d = m.get("details") or {}
        one = _rate(d, "0.01")
        tenth = _rate(d, "0.001")
        text = (f"An attacker who {how} finds {fmt_share(one.get('tpr'))} of the training members "
                f"({fmt_count(one.get('flagged_members'))} of {fmt_count(d.get('n_members'))}) while wrongly "
                f"accusing {fmt_share(one.get('fpr'))} of real people not in the training data (at most 1% allowed;"
                f" chance alone finds about as many members as it accuses non-members)")
        if tenth.get("reportable"):
            text += f"; at 0.1% false accusations they find {fmt_share(tenth.get('tpr'))}"
        else:
            text += (f"; with {fmt_count(d.get('n_nonmembers'))} non-members a 0.1% false-accusation rate cannot be "
                     f"read, and above every non-member's score they find {fmt_count(tenth.get('flagged_members'))}"
                     f" members")
        ref = reference_clause(d)
        if ref:
            text += f"; {ref}"
        return text + f". AUC {fmt_number(d.get('auc'))} (0.5: a coin)."

    return finding


def attack_residual(how: str) -> Callable[[ResultJSON], str | None]:
    """The attack's result in a regulator's terms: upper ends of its intervals, and the ε bound."""

    def residual(m: ResultJSON) -> str | None:
        d = m.get("details") or {}
        one = _rate(d, "0.01")
        iv = one.get("tpr_interval") or [None, None]
        if not finite(iv[1]):
            return None
        eps = d.get("epsilon_lower_bound")
        text = (f"An attacker who {how}, accusing at most 1% of people not in the training data, identifies at most "
                f"{fmt_share(iv[1])} of the people in it (95% upper bound; estimate {fmt_share(one.get('tpr'))})")
        if isinstance(eps, (int, float)) and finite(eps) and eps > 0:
            text += (f"; the release is not differentially private with any ε below {fmt_number(eps)} (a lower "
                     f"bound from this attack alone, 95% confidence)")
        return text + "."

    return residual


def attack_graded(m: ResultJSON) -> str | None:
    """Which rate decided the level, and the members found there beyond chance."""
    d = m.get("details") or {}
    points = d.get("tpr_at") or {}
    if not points:
        return None
    key, best = max(points.items(), key=lambda kv: (kv[1].get("flagged_members", 0) - kv[1].get("chance_allows", 0)))
    beyond = best.get("flagged_members", 0) - best.get("chance_allows", 0)
    target = fmt_share(float(key))
    if beyond > 0:
        return (f"Graded on the exact test against chance: at {target} false accusations the attack flags "
                f"{fmt_count(best.get('flagged_members'))} training members where chance allows at most "
                f"{fmt_count(best.get('chance_allows'))} (p = {fmt_number(best.get('p_value'))}).")
    text = (f"Graded on the exact test against chance: at no rate does the attack flag more members than chance "
            f"allows (at {target}: {fmt_count(best.get('flagged_members'))} flagged, chance allows "
            f"{fmt_count(best.get('chance_allows'))}).")
    # what a low level cannot rule out: the fewest members that must stand out before the test can show a leak
    floor = min(int(p.get("chance_allows", 0)) for p in points.values())
    n_m = d.get("n_members")
    if isinstance(n_m, (int, float)) and n_m > 0:
        text += (f" At these sizes a leak shows only when more than {fmt_count(floor)} of the {fmt_count(n_m)} "
                 f"training members ({fmt_share(floor / n_m)}) score above the threshold; a leak of fewer people can "
                 f"go unseen.")
    return text


def worst_attack(results: Mapping[str, MetricResult]) -> tuple[str, MetricResult] | None:
    """The computed attack with the highest TPR at 1% FPR, ties to the first."""
    best: tuple[str, MetricResult] | None = None
    for name, r in results.items():
        if r.computed and r.value is not None and (best is None or best[1].value is None or r.value > best[1].value):
            best = (name, r)
    return best


__all__ = [
    "AttackROC", "RatePoint", "attack_roc", "attack_split", "split_positions", "attack_plan", "attack_result",
    "attack_level", "attack_finding", "attack_residual", "attack_graded", "plot_attack_roc", "FPR_TARGETS",
    "HEADLINE_FPR", "K_DENSITY", "K_LOCAL_SYN", "K_LOCAL_REF", "MIN_RECORDS", "log_ratio", "scores_memo",
    "syn_distances", "ref_distances", "missing_sets", "attack_space", "delta_of", "declared_epsilon",
    "target_rows", "reference_details", "reference_clause", "REFERENCE_GIVEN", "REFERENCE_HALF",
    "member_flags", "member_ranks", "atypicality", "atypicality_plan", "atypical_breakdown", "atypical_order",
    "atypical_sizes", "top_scores", "ATYPICAL_SHARES", "ATYPICAL_FPR", "TOP_SCORES",
]
