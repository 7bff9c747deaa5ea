"""A shadow-model membership attack on chosen target records, with the generator in the loop.

The attacks of :mod:`synthpriv_report.metrics` see one release; this one trains the generator again and again on
data with and without a target record and asks whether the releases tell the two worlds apart (T. Stadler,
B. Oprisanu, C. Troncoso, "Synthetic Data - Anonymisation Groundhog Day", USENIX Security 2022; F. Houssiau et al.,
"TAPAS: a Toolbox for Adversarial Privacy Auditing of Synthetic Data", NeurIPS 2022 workshop SyntheticData4ML).

**The game and the threat model.** The attacker knows every training record but one (``base``: their auxiliary
knowledge, the rest of the data) and a target record ``t`` (a row of ``targets``, a real record not in ``base``),
and can train the generator themselves. For each target there are ``trainings`` training runs; in each the
training set is either ``base`` plus ``t`` (the world *with* the target; ``t`` is put at a seeded random position,
so that a generator sensitive to row order cannot be read off the last row) or ``base`` alone (the world
*without*). The generator is trained afresh and ``n_synthetic`` records are sampled (default ``len(base)``, the same
in both worlds, so the size of the release says nothing). The worlds are neighbouring data sets under adding or
removing one record, so the ε bounded below is that of add/remove differential privacy.

**Which runs hold the target.** The first half of a target's runs (``trainings // 2``, in the order of their seeded
streams) are the attacker's *shadow* runs, the rest the *evaluation* runs. Within each half a seeded random choice
puts the target into exactly half of the runs (``h // 2`` of ``h``; the odd one out is a run without it): a balanced
coin toss. Balanced, not independent coins, for two reasons. The shadow half then always holds runs of both worlds,
so a threshold can be chosen. And every target has the same numbers of evaluation runs with and without it, so the
pooled true- and false-positive rates are the plain means of the targets' own rates, with the same weights on both
sides, and the per-target inequality ``TPR_i <= e^ε FPR_i + δ`` of an (ε, δ)-DP generator averages into the pooled
one. With independent coins the weights differ from target to target and pooling can show a "leak" where there is
none: a target whose guesses are mostly "in" that happens to get more runs with it, and one whose guesses are
mostly "out" that happens to get more runs without it, make a coin look like an attack.

**The statistic** is fixed, simple and target-specific; no classifier is learned. The Gower distance between the
target and a record is the mean over the columns of: for a numeric column (a numeric, non-boolean dtype in
``base``) the absolute difference divided by the column's range in ``base`` and capped at 1 (a column with a
single value in ``base``: 0 if equal, else 1; a non-finite value: 0 if equal, else 1); for any other column 0 if
the values are equal, else 1. A missing value is a value of its own: 0 against another missing value, 1 against
anything else. The encoding is fitted on ``base`` alone (the attacker's knowledge), the same for every run. From a
release the attack reads ``statistic="distance"``: the distance from the target to its nearest synthetic record,
small saying "in"; or ``statistic="count"``: the number of synthetic records within ``radius`` of the target
(distance <= radius, with the package's tie tolerance), large saying "in".

**The threshold** is chosen per target on its shadow runs alone: the one that maximises ``TPR - FPR`` there,
guessing "in" when the distance is at most the threshold (the count at least the threshold). The candidates are
the shadow runs' own values and "never in"; ties go to the smaller distance (the larger count), that is to fewer
"in" guesses, so a statistic that does not separate the shadow runs gives a threshold that guesses "out" always.

**The counts and what they prove.** The threshold is then applied to the evaluation runs: per target, true
positives and false negatives among the runs with the target, false positives and true negatives among those
without. Pooled over targets: the run's membership was fixed in advance by the seed, independently of the
generator, and each run trains a fresh generator with its own seed, so given the assignment and the shadow-run
thresholds every evaluation run's guess is an independent Bernoulli trial. Runs of different targets have
different success probabilities, so the pooled count is a sum of independent, not identically distributed,
trials: the Clopper-Pearson interval is then one for the mean rate over the targets, and stays valid because such
a count's tails are no heavier than a binomial's with the same mean (W. Hoeffding, "On the distribution of the
number of successes in independent trials", Ann. Math. Statist. 27, 1956, beyond one count from the mean). Reported:
TPR and FPR with two-sided 95% Clopper-Pearson intervals, the advantage ``TPR - FPR``, and the ε lower bound
:func:`synthpriv_report.stats.epsilon_lower_bound` at the conservative ends of one-sided Clopper-Pearson bounds,
the confidence 95% split over the two ends (each at 97.5%), as :mod:`synthpriv_report.metrics.attacks.mia_common` does.
Per target: its own bound from its own counts at 95%, which holds for that target alone; the largest of those
over several targets is not a 95% bound. The *family-wise* bound is: each target's bound at ``1 - 0.05 / m`` for
``m`` targets (Bonferroni), split over the two ends, and the largest of those. Each bound holds for this attack and
this threat model only: a small one is no evidence of privacy.

>>> import pandas as pd
>>> from synthpriv_report.evaluation.generators import SequentialCART
>>> base = pd.DataFrame({"x": range(12), "c": list("abcdefabcdef")})
>>> out = shadow_attack(SequentialCART(min_samples_leaf=1), base, pd.DataFrame({"x": [99], "c": ["z"]}),
...                     trainings=4, n_synthetic=24)
>>> out.total_trainings, out.n_evaluation, sum(out.counts)
(4, 2, 2)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from ..core import progress
from ..core.results import to_jsonable
from ..core.validation import Interval, check
from ..stats import clopper_pearson, epsilon_lower_bound, leq
from .generators import SEED_LIMIT, as_generator

__all__ = ["SHADOW_SCHEMA", "ShadowOutcome", "gower_distances", "shadow_attack", "shadow_epsilon", "shadow_threshold"]

#: The identifier of a shadow attack's JSON layout.
SHADOW_SCHEMA = "synthpriv_report.evaluation.shadow/1"
#: Salt of the attack's seeded streams, apart from a generator spec's own run seeds and the audit's streams.
_STREAM_SHADOW = 0x5AD0
#: The confidence of every bound.
CONFIDENCE = 0.95

Statistic = Literal["distance", "count"]


# ---------------------------------------------------------------------------------------------------------------
# the statistic


class _Encoding:
    """The Gower encoding fitted on ``base``: the columns in order, which are numeric, and their ranges."""

    def __init__(self, base: pd.DataFrame) -> None:
        self.columns = list(base.columns)
        self.numeric: list[bool] = []
        self.ranges: list[float] = []
        for c in self.columns:
            s = base[c]
            num = bool(pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype))
            self.numeric.append(num)
            span = 0.0
            if num:
                x = pd.to_numeric(s, errors="coerce").to_numpy(dtype=np.float64)
                x = x[np.isfinite(x)]
                span = float(x.max() - x.min()) if x.size else 0.0
            self.ranges.append(span)

    def distances(self, target: pd.Series, records: pd.DataFrame) -> NDArray[np.float64]:
        """The Gower distance from ``target`` to each of ``records``."""
        total = np.zeros(len(records), dtype=np.float64)
        for c, num, span in zip(self.columns, self.numeric, self.ranges):
            value = target[c]
            if num:
                x = pd.to_numeric(records[c], errors="coerce").to_numpy(dtype=np.float64)
                tv = _as_float(value)
                if math.isnan(tv):
                    d = np.where(np.isnan(x), 0.0, 1.0)
                else:
                    with np.errstate(invalid="ignore"):
                        diff = np.abs(x - tv)
                    both = np.isfinite(x) & math.isfinite(tv)
                    scaled = np.minimum(diff / span, 1.0) if span > 0 else np.where(diff == 0, 0.0, 1.0)
                    d = np.where(both, scaled, np.where(x == tv, 0.0, 1.0))
            else:
                raw = records[c].to_numpy(dtype=object)
                missing = np.asarray(pd.isna(raw), dtype=bool)
                if _is_missing(value):
                    d = np.where(missing, 0.0, 1.0)
                else:
                    present = raw.copy()
                    present[missing] = _MISSING
                    same = np.fromiter((v == value for v in present), dtype=bool, count=len(present))
                    d = np.where(same & ~missing, 0.0, 1.0)
            total += d
        return total / max(len(self.columns), 1)


class _Missing:
    """A marker that equals nothing but itself, standing in for a missing value in comparisons."""

    def __eq__(self, other: object) -> bool:
        return other is self

    def __hash__(self) -> int:
        return 0


_MISSING = _Missing()


def _is_missing(value: Any) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):  # a list-like value is a value
        return False


def _as_float(value: Any) -> float:
    if _is_missing(value):
        return math.nan
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def gower_distances(target: pd.Series | pd.DataFrame, records: pd.DataFrame, *, base: pd.DataFrame
                    ) -> NDArray[np.float64]:
    """The Gower distance from one target record to each of ``records``, encoded on ``base``.

    The encoding (the module's description): numeric columns of ``base`` range-scaled by ``base``'s range and capped
    at 1, other columns 0 when equal and 1 otherwise, a missing value a value of its own; the mean over the columns.

    Parameters
    ----------
    target : Series or one-row DataFrame
        The target record, with ``base``'s columns.
    records : DataFrame
        Shape ``(n, d)``: the records to measure (``base``'s columns, any order).
    base : DataFrame
        The records that fix the encoding (the attacker's knowledge).

    Returns
    -------
    ndarray of float, shape (n,)
        In ``[0, 1]``; 0 for a copy of the target. Lower is closer.

    Examples
    --------
    ``x`` ranges over 10 in ``base``: 5 apart is half the range; a missing ``x`` is 1 from 2; 28 apart is capped at 1.

    >>> base = pd.DataFrame({"x": [0.0, 10.0], "c": ["a", "b"]})
    >>> records = pd.DataFrame({"x": [2.0, 7.0, None, 30.0], "c": ["a", "a", "a", "b"]})
    >>> gower_distances(pd.Series({"x": 2.0, "c": "a"}), records, base=base).tolist()
    [0.0, 0.25, 0.5, 1.0]
    """
    row = target.iloc[0] if isinstance(target, pd.DataFrame) else target
    return _Encoding(base).distances(row, records)


def _scores(distances: NDArray[np.float64], statistic: Statistic, radius: float) -> tuple[float, int, float]:
    """``(nearest distance, count within radius, score)``; the score is small for "in" either way."""
    nearest = float(distances.min()) if distances.size else math.inf
    count = int(np.count_nonzero(leq(distances, radius))) if distances.size else 0
    return nearest, count, (nearest if statistic == "distance" else -float(count))


def shadow_threshold(scores_in: ArrayLike, scores_out: ArrayLike, *, exact: bool = False) -> float:
    """The threshold that best separates the runs with the target from those without, guessing "in" for a score
    at most the threshold (with the package's tie tolerance; plain comparisons with ``exact``).

    It maximises ``TPR - FPR`` over the candidates: the runs' own scores and ``-inf`` ("never in"); ties go to the
    smaller threshold (fewer "in" guesses). An empty side has rate 0 at every threshold.

    Parameters
    ----------
    scores_in, scores_out : array-like of float
        The statistic in the shadow runs with and without the target (small says "in").
    exact : bool
        Integer-valued scores (counts): compare exactly.

    Returns
    -------
    float
        The threshold, or ``-inf`` where no candidate beats guessing "out" always.

    Examples
    --------
    >>> shadow_threshold([0.0, 0.0, 0.3], [0.2, 0.4, 0.5])
    0.0
    >>> shadow_threshold([0.1, 0.3], [0.2, 0.4]), shadow_threshold([0.5], [0.5])
    (0.1, -inf)
    """
    s_in = np.asarray(scores_in, dtype=np.float64).ravel()
    s_out = np.asarray(scores_out, dtype=np.float64).ravel()
    best, best_gap = -math.inf, Fraction(0)
    for thr in np.unique(np.concatenate([s_in, s_out])):  # ascending: a tie keeps the smaller threshold
        # exact fractions: 2/3 - 0 and 1 - 1/3 tie, as they do on paper
        tpr = Fraction(int(np.count_nonzero(leq(s_in, thr, exact=exact))), max(s_in.size, 1))
        fpr = Fraction(int(np.count_nonzero(leq(s_out, thr, exact=exact))), max(s_out.size, 1))
        if tpr - fpr > best_gap:
            best, best_gap = float(thr), tpr - fpr
    return best


def shadow_epsilon(tp: int, fn: int, fp: int, tn: int, *, alpha: float, delta: float) -> float:
    """The ε lower bound at the conservative ends of one-sided Clopper-Pearson bounds, ``alpha`` split over the two
    ends (0 where a side has no run)."""
    if tp + fn == 0 or fp + tn == 0:
        return 0.0
    end = 1.0 - alpha / 2.0
    tpr_low = clopper_pearson(tp, tp + fn, confidence=end, sided="one")[0]
    fpr_high = clopper_pearson(fp, fp + tn, confidence=end, sided="one")[1]
    return epsilon_lower_bound(tpr_low, fpr_high, delta=delta)


# ---------------------------------------------------------------------------------------------------------------
# the outcome


Counts = tuple[int, int, int, int]


@dataclass(frozen=True)
class ShadowOutcome:
    """What a shadow attack found, with how many trainings each figure rests on (:func:`shadow_attack`).

    Attributes
    ----------
    statistic : {"distance", "count"}
        The attack's statistic; ``radius`` the count's radius (Gower distance).
    n_base, n_synthetic : int
        Records in ``base`` (the training set without the target) and in each release.
    n_targets, trainings_per_target, total_trainings : int
        The product ``n_targets * trainings_per_target`` is how often the generator was trained.
    n_shadow, n_evaluation : int
        Per target, the shadow runs (that chose its threshold) and the evaluation runs (that were counted).
    shadow_in, evaluation_in : int
        Per target, how many of the shadow / evaluation runs held the target (the others did not).
    included, seeds, distances, counts_within : ndarray, shape (n_targets, trainings_per_target)
        Per run: whether the target was in, the generator's seed, the nearest synthetic record's distance and the
        number of synthetic records within ``radius``. Columns ``0 .. n_shadow - 1`` are the shadow runs.
    thresholds : tuple of float or None
        Per target, in the statistic's units: "in" when the distance is at most it, or when the count is at least
        it; ``None``: the attack guesses "out" always for that target.
    target_counts : tuple of (tp, fn, fp, tn)
        Per target, on its evaluation runs.
    counts : (tp, fn, fp, tn)
        Pooled over the targets.
    tpr, fpr, advantage : float
        Pooled rates and ``tpr - fpr``; ``tpr_interval``, ``fpr_interval`` two-sided Clopper-Pearson at 95%.
    epsilon : float
        The pooled ε lower bound at 95% confidence.
    target_epsilon : tuple of float
        Each target's own bound at 95%: it holds per target, not for the largest of several.
    target_epsilon_familywise : tuple of float
        Each target's bound at ``1 - 0.05 / n_targets`` (Bonferroni); ``epsilon_familywise`` is their largest, a
        95% bound on the worst target.
    delta : float
        The δ of the bounds.
    generator : str
        The generator's description; ``seeded`` whether every run's seed reached it through its own interface,
        ``seeding`` how (the first run's sentence).
    generator_seconds, package_seconds : float
        Time in training and sampling, and the rest (the statistic, the bookkeeping).
    random_state : int
    """

    statistic: Statistic
    radius: float
    n_base: int
    n_synthetic: int
    n_targets: int
    trainings_per_target: int
    total_trainings: int
    n_shadow: int
    n_evaluation: int
    shadow_in: int
    evaluation_in: int
    included: NDArray[np.bool_]
    seeds: NDArray[np.int64]
    distances: NDArray[np.float64]
    counts_within: NDArray[np.int64]
    thresholds: tuple[float | None, ...]
    target_counts: tuple[Counts, ...]
    counts: Counts
    tpr: float
    tpr_interval: tuple[float, float]
    fpr: float
    fpr_interval: tuple[float, float]
    advantage: float
    epsilon: float
    target_epsilon: tuple[float, ...]
    target_epsilon_familywise: tuple[float, ...]
    epsilon_familywise: float
    delta: float
    generator: str
    seeded: bool
    seeding: str
    generator_seconds: float
    package_seconds: float
    random_state: int

    @property
    def evaluation_runs(self) -> tuple[int, int]:
        """Pooled evaluation runs ``(with the target, without it)``: the trials behind the TPR and the FPR."""
        return (self.n_targets * self.evaluation_in, self.n_targets * (self.n_evaluation - self.evaluation_in))

    def summary(self) -> str:
        """Plain-text lines for a reader, each figure with the number of trainings it rests on."""
        n_in, n_out = self.evaluation_runs
        tp, fn, fp, tn = self.counts
        lines = [
            f"Shadow-model membership attack on {self.n_targets} target record(s): {self.trainings_per_target} "
            f"trainings each, {self.total_trainings} in all ({self.n_shadow} shadow runs per target chose the "
            f"threshold, {self.n_evaluation} evaluation runs per target were counted); generator {self.generator}.",
            f"True-positive rate {self.tpr:.3f} (95% CI {self.tpr_interval[0]:.3f} to {self.tpr_interval[1]:.3f}), "
            f"{tp} of {n_in} evaluation runs with the target.",
            f"False-positive rate {self.fpr:.3f} (95% CI {self.fpr_interval[0]:.3f} to {self.fpr_interval[1]:.3f}), "
            f"{fp} of {n_out} evaluation runs without the target.",
            f"Advantage {self.advantage:.3f}; ε ≥ {self.epsilon:.3f} at 95% confidence from the pooled "
            f"{n_in + n_out} evaluation runs (this attack and threat model only: a small bound is no evidence of "
            "privacy).",
        ]
        if self.n_targets > 1:
            lines.append(f"Worst target: ε ≥ {self.epsilon_familywise:.3f} at 95% confidence over all "
                         f"{self.n_targets} targets (Bonferroni); per target, each at 95% on its own "
                         f"{self.n_evaluation} evaluation runs: "
                         + ", ".join(f"#{i}: {e:.3f}" for i, e in enumerate(self.target_epsilon)) + ".")
        lines.append(f"Time: {self.generator_seconds:.2f} s training and sampling, {self.package_seconds:.2f} s "
                     "the attack itself.")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict. Targets are identified by their position in ``targets`` only; no record value is in it.

        Keys: ``schema``, ``settings``, ``trainings`` (how many runs, of which kind), ``generator``, ``pooled``
        (counts, rates with intervals, advantage, ε), ``familywise`` (the worst target's bound), ``targets`` (per
        target: position, threshold, counts, ε at 95% and at the Bonferroni level, and per run its role, whether
        the target was in, its seed, distance and count), ``seconds``.
        """
        n_in, n_out = self.evaluation_runs
        tp, fn, fp, tn = self.counts
        per_target = []
        for i in range(self.n_targets):
            runs = [{"role": "shadow" if j < self.n_shadow else "evaluation", "included": bool(self.included[i, j]),
                     "seed": int(self.seeds[i, j]), "distance": float(self.distances[i, j]),
                     "count": int(self.counts_within[i, j])} for j in range(self.trainings_per_target)]
            t = self.target_counts[i]
            per_target.append({"position": i, "threshold": self.thresholds[i],
                               "counts": {"tp": t[0], "fn": t[1], "fp": t[2], "tn": t[3]},
                               "epsilon_95": self.target_epsilon[i],
                               "epsilon_familywise": self.target_epsilon_familywise[i], "runs": runs})
        return to_jsonable({
            "schema": SHADOW_SCHEMA,
            "settings": {"statistic": self.statistic, "radius": self.radius, "n_base": self.n_base,
                         "n_synthetic": self.n_synthetic, "random_state": self.random_state,
                         "confidence": CONFIDENCE, "delta": self.delta},
            "trainings": {"targets": self.n_targets, "per_target": self.trainings_per_target,
                          "total": self.total_trainings, "shadow_per_target": self.n_shadow,
                          "evaluation_per_target": self.n_evaluation, "shadow_with_target": self.shadow_in,
                          "evaluation_with_target": self.evaluation_in, "evaluation_runs_with_target": n_in,
                          "evaluation_runs_without_target": n_out},
            "generator": {"description": self.generator, "seeded": self.seeded, "seeding": self.seeding},
            "pooled": {"counts": {"tp": tp, "fn": fn, "fp": fp, "tn": tn}, "tpr": self.tpr,
                       "tpr_interval": list(self.tpr_interval), "fpr": self.fpr,
                       "fpr_interval": list(self.fpr_interval), "advantage": self.advantage,
                       "epsilon_lower_bound": self.epsilon,
                       "epsilon_rests_on": f"{n_in} evaluation runs with the target and {n_out} without"},
            "familywise": {"epsilon_lower_bound": self.epsilon_familywise,
                           "per_target_confidence": 1.0 - (1.0 - CONFIDENCE) / self.n_targets,
                           "note": "the largest per-target bound, each at the Bonferroni level, so 95% jointly"},
            "targets": per_target,
            "seconds": {"generator": self.generator_seconds, "package": self.package_seconds},
        })


# ---------------------------------------------------------------------------------------------------------------
# the attack


def _row_keys(frame: pd.DataFrame) -> list[tuple[Any, ...]]:
    """Each row as a hashable tuple, missing values as one marker."""
    return [tuple(_MISSING if _is_missing(v) else v for v in row)
            for row in frame.astype(object).itertuples(index=False, name=None)]


def _assignment(rng: np.random.Generator, size: int) -> NDArray[np.bool_]:
    """``size`` runs, ``size // 2`` of them (a seeded random choice) with the target."""
    out = np.zeros(size, dtype=bool)
    out[rng.permutation(size)[: size // 2]] = True
    return out


def shadow_attack(recipe: Any, base: pd.DataFrame, targets: pd.DataFrame, *, trainings: int = 20,
                  n_synthetic: int | None = None, statistic: Statistic = "distance", radius: float = 0.05,
                  delta: float = 0.0, max_trainings: int = 400, random_state: int = 0,
                  progress_bars: bool = False) -> ShadowOutcome:
    """Train the generator on ``base`` with and without each target and count how often a fixed statistic of the
    release tells the two worlds apart (the module's description has the design and the statistics).

    Parameters
    ----------
    recipe : GeneratorSpec or anything :func:`synthpriv_report.evaluation.generators.as_generator` takes
        The generator, trained afresh in every run.
    base : DataFrame
        The training records other than the target, ``(n, d)``: the attacker's auxiliary knowledge. Not modified.
    targets : DataFrame
        ``(m, d)``: the target records, real records not in ``base`` (same columns, any order). Not modified.
    trainings : int, default 20
        Training runs per target, at least 4: the first ``trainings // 2`` are shadow runs, the rest evaluation
        runs; in each half, half the runs (rounded down) hold the target.
    n_synthetic : int, optional
        Records sampled per run (default ``len(base)``, the same in both worlds).
    statistic : {"distance", "count"}
        The nearest synthetic record's Gower distance (small says "in"), or the number of synthetic records
        within ``radius`` (large says "in").
    radius : float, default 0.05
        The count's radius, a Gower distance in ``[0, 1]``.
    delta : float, default 0.0
        The δ of the ε bounds.
    max_trainings : int, default 400
        Refuse to train the generator more than this many times (``m * trainings``).
    random_state : int, default 0
        Root of the seeded streams: which runs hold the target, where it is put, each run's generator seed. The
        same value gives the same outcome.
    progress_bars : bool, default False

    Returns
    -------
    ShadowOutcome

    Raises
    ------
    ValueError
        A bad setting; frames that do not match; a target found in ``base``; more than ``max_trainings``
        trainings (the message names the product).
    GeneratorError
        A training run failed (:meth:`synthpriv_report.evaluation.generators.GeneratorSpec.train_and_sample`).
    """
    start = time.perf_counter()
    if not isinstance(base, pd.DataFrame) or not isinstance(targets, pd.DataFrame):
        raise TypeError("shadow_attack() needs base and targets as pandas DataFrames")
    if isinstance(random_state, (bool, np.bool_)) or not isinstance(random_state, (int, np.integer)):
        raise ValueError(f"random_state must be a whole number, got {random_state!r}")
    trainings = int(check("trainings", trainings, Interval("int", 4)))
    max_trainings = int(check("max_trainings", max_trainings, Interval("int", 1)))
    radius = float(check("radius", radius, Interval("real", 0.0, 1.0)))
    delta = float(check("delta", delta, Interval("real", 0.0, 1.0, high_open=True)))
    if statistic not in ("distance", "count"):
        raise ValueError(f"statistic must be 'distance' or 'count', got {statistic!r}")
    if len(base) == 0 or base.shape[1] == 0:
        raise ValueError(f"base must have at least one row and one column, got shape {base.shape}")
    if len(targets) == 0:
        raise ValueError("targets holds no record")
    if set(targets.columns) != set(base.columns) or targets.columns.duplicated().any():
        missing = [c for c in base.columns if c not in set(targets.columns)]
        extra = [c for c in targets.columns if c not in set(base.columns)]
        raise ValueError(f"targets must have base's columns: missing {missing!r}, extra {extra!r}")
    m = len(targets)
    total = m * trainings
    if total > max_trainings:
        raise ValueError(f"{m} targets x {trainings} trainings = {total} training runs of the generator, above "
                         f"max_trainings={max_trainings}; choose fewer targets or fewer trainings (or raise "
                         "max_trainings)")
    n = len(base) if n_synthetic is None else int(check("n_synthetic", n_synthetic, Interval("int", 1)))
    cols = list(base.columns)
    targets = targets.loc[:, cols]  # a new frame: the caller's is never changed
    in_base = set(_row_keys(base))
    for i, key in enumerate(_row_keys(targets)):
        if key in in_base:
            raise ValueError(f"target {i} (position in targets) is also a record of base: the world without it "
                             "would still hold it; give targets that are not in base")
    spec = as_generator(recipe, random_state=int(random_state))
    enc = _Encoding(base)
    n_shadow = trainings // 2
    n_eval = trainings - n_shadow
    exact = statistic == "count"

    included = np.zeros((m, trainings), dtype=bool)
    seeds = np.zeros((m, trainings), dtype=np.int64)
    dist = np.zeros((m, trainings), dtype=np.float64)
    within = np.zeros((m, trainings), dtype=np.int64)
    score = np.zeros((m, trainings), dtype=np.float64)
    gen_seconds = 0.0
    seeded = True
    seeding = ""
    bar = progress.bar(total, "shadow training runs", enabled=progress_bars, unit="run")
    try:
        for i in range(m):
            ss = np.random.SeedSequence(int(random_state), spawn_key=(_STREAM_SHADOW, i))
            s_assign, s_place, s_seed = ss.spawn(3)
            rng = np.random.default_rng(s_assign)
            included[i] = np.concatenate([_assignment(rng, n_shadow), _assignment(rng, n_eval)])
            places = np.random.default_rng(s_place).integers(0, len(base) + 1, size=trainings)
            seeds[i] = s_seed.generate_state(trainings, dtype=np.uint64) % SEED_LIMIT
            t_row = targets.iloc[[i]]
            t = targets.iloc[i]
            for j in range(trainings):
                if included[i, j]:
                    p = int(places[j])
                    train = pd.concat([base.iloc[:p], t_row, base.iloc[p:]], ignore_index=True)
                else:
                    train = base
                t0 = time.perf_counter()
                frame, info = spec.train_and_sample(train, n, int(seeds[i, j]), run=f"{j + 1} of target {i}")
                gen_seconds += time.perf_counter() - t0
                seeded = seeded and info.seeded
                seeding = seeding or info.how
                dist[i, j], within[i, j], score[i, j] = _scores(enc.distances(t, frame), statistic, radius)
                bar.update(1)
    finally:
        bar.close()

    thresholds: list[float | None] = []
    target_counts: list[Counts] = []
    for i in range(m):
        sh_in, sh = included[i, :n_shadow], score[i, :n_shadow]
        thr = shadow_threshold(sh[sh_in], sh[~sh_in], exact=exact)
        ev_in, ev = included[i, n_shadow:], score[i, n_shadow:]
        guess = leq(ev, thr, exact=exact) if math.isfinite(thr) else np.zeros(n_eval, dtype=bool)
        tp = int(np.count_nonzero(guess & ev_in))
        fp = int(np.count_nonzero(guess & ~ev_in))
        target_counts.append((tp, int(np.count_nonzero(ev_in)) - tp, fp, int(np.count_nonzero(~ev_in)) - fp))
        thresholds.append(None if not math.isfinite(thr) else (thr if statistic == "distance" else -thr))
    tp, fn, fp, tn = (int(sum(c[k] for c in target_counts)) for k in range(4))
    alpha = 1.0 - CONFIDENCE
    tpr_iv = clopper_pearson(tp, tp + fn, confidence=CONFIDENCE)
    fpr_iv = clopper_pearson(fp, fp + tn, confidence=CONFIDENCE)
    tpr = tp / (tp + fn)
    fpr = fp / (fp + tn)
    per_target = tuple(shadow_epsilon(*c, alpha=alpha, delta=delta) for c in target_counts)
    familywise = tuple(shadow_epsilon(*c, alpha=alpha / m, delta=delta) for c in target_counts)
    elapsed = time.perf_counter() - start
    return ShadowOutcome(
        statistic=statistic, radius=radius, n_base=len(base), n_synthetic=n, n_targets=m,
        trainings_per_target=trainings, total_trainings=total, n_shadow=n_shadow, n_evaluation=n_eval,
        shadow_in=n_shadow // 2, evaluation_in=n_eval // 2, included=included, seeds=seeds, distances=dist,
        counts_within=within, thresholds=tuple(thresholds), target_counts=tuple(target_counts),
        counts=(tp, fn, fp, tn), tpr=tpr, tpr_interval=tpr_iv, fpr=fpr, fpr_interval=fpr_iv, advantage=tpr - fpr,
        epsilon=shadow_epsilon(tp, fn, fp, tn, alpha=alpha, delta=delta), target_epsilon=per_target,
        target_epsilon_familywise=familywise, epsilon_familywise=max(familywise), delta=delta,
        generator=spec.description, seeded=seeded, seeding=seeding, generator_seconds=gen_seconds,
        package_seconds=max(elapsed - gen_seconds, 0.0), random_state=int(random_state))
