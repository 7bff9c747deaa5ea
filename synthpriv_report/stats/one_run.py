"""The arithmetic of one-run privacy auditing (T. Steinke, M. Nasr, M. Jagielski, "Privacy Auditing with One (1)
Training Run", NeurIPS 2023, arXiv:2305.08846).

The setting: ``m`` canaries, each included in the training data independently with probability 1/2. After the
one training run an auditor makes ``r`` guesses (``k+`` "in", ``k-`` "out", abstaining on the rest), ``v`` of which
are right. If the training is ε-differentially private, the number of right guesses is stochastically dominated
by ``Binomial(r, e^ε / (1 + e^ε))`` (the paper's main theorem, pure case), so ``P[Binomial(r, e^ε/(1+e^ε)) >= v]``
is a p-value for the claim "the training is ε-DP"; every ε it rejects at level ``1 - confidence`` is a lower bound
on the true ε at that confidence. For (ε, δ)-DP the paper's Corollary 5.4 (its Appendix D gives it as the
function ``p_value_DP_audit``) adds a term proportional to ``2 m δ``:

``p(ε, δ) = min(1, P[X >= v] + 2 m δ · max_{1 <= i <= v} P[v - i <= X < v] / i)``, ``X ~ Binomial(r, e^ε/(1+e^ε))``.

Functions
---------
:func:`one_run_p_value`
    the p-value above;
:func:`one_run_epsilon`
    the largest ε that ``v`` right guesses out of ``r`` reject (the ε lower bound);
:func:`one_run_precision_needed`
    the fewest right guesses out of ``r`` that reject a given ε;
:func:`one_run_guess_counts`
    a fixed grid of guess counts for ``m`` canaries;
:func:`one_run_audit`
    the audit of an attack's scores over such a grid, with a Bonferroni correction, as a :class:`OneRunOutcome`.

All functions are pure and deterministic.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

# the bisection on ε stops when its bracket is this narrow (absolute, in units of ε)
EPSILON_TOL = 1e-9

# the shares of m in the default grid of guess counts (one_run_guess_counts)
GUESS_SHARES = (50, 20, 10, 5, 2, 1)


def _count(name: str, value: object) -> int:
    """``value`` as a Python int (NumPy integers accepted); a bool, float or string is refused."""
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an integer, got a bool: {value!r}")
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}: {value!r}") from None


def _level(confidence: float) -> float:
    """The significance level ``1 - confidence``, checked."""
    c = float(confidence)
    if not 0.0 < c < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}")
    return 1.0 - c


def _checked(guesses: object, correct: object, delta: float, canaries: object | None) -> tuple[int, int, float, int]:
    """Validated ``(r, v, δ, m)``; ``m`` is 0 when no canary count is given and δ is 0."""
    r = _count("guesses", guesses)
    v = _count("correct", correct)
    if r < 0:
        raise ValueError(f"guesses must be >= 0, got {r}")
    if not 0 <= v <= r:
        raise ValueError(f"correct must be between 0 and guesses ({r}), got {v}")
    d = float(delta)
    if not (math.isfinite(d) and 0.0 <= d < 1.0):
        raise ValueError(f"delta must be in [0, 1), got {delta!r}")
    m = 0
    if canaries is not None:
        m = _count("canaries", canaries)
        if m < r:
            raise ValueError(f"canaries ({m}) must be at least the number of guesses ({r})")
    elif d > 0.0:
        raise ValueError(
            "delta > 0 needs canaries (the number m of canaries): the (ε, δ) bound of Steinke, Nasr and Jagielski "
            "(Corollary 5.4) grows with 2 m δ"
        )
    return r, v, d, m


def _p_value(r: int, v: int, eps: float, delta: float, m: int) -> float:
    """The p-value of Corollary 5.4 (``delta == 0``: the binomial tail alone), for checked inputs.

    The number of right guesses is ``X = r - W`` with ``W ~ Binomial(r, w)``, ``w = 1 / (1 + e^ε)`` the chance of
    a wrong guess; the tail ``P[X >= v] = P[W <= r - v]`` is computed from ``w``, which keeps its precision when
    ``e^ε / (1 + e^ε)`` rounds to 1.
    """
    from scipy.special import expit
    from scipy.stats import binom

    if v <= 0:
        return 1.0
    w = float(expit(-eps))
    tail = float(binom.cdf(r - v, r, w))
    if delta == 0.0:
        return min(tail, 1.0)
    # P[v - i <= X < v] = P[r - v < W <= r - v + i] for i = 1, ..., v
    i = np.arange(1, v + 1)
    window = np.cumsum(binom.pmf(r - v + i, r, w))
    alpha = float(np.max(window / i))
    return min(tail + alpha * 2.0 * m * delta, 1.0)


def one_run_p_value(
    guesses: int, correct: int, epsilon: float, *, delta: float = 0.0, canaries: int | None = None
) -> float:
    """The p-value of ``correct`` right guesses out of ``guesses`` under the claim "the training is
    (ε, δ)-differentially private", in the one-run audit of Steinke, Nasr and Jagielski (NeurIPS 2023).

    With ``X ~ Binomial(r, e^ε / (1 + e^ε))``, ``r = guesses`` and ``v = correct``, it is ``P[X >= v]`` when
    ``δ = 0`` (the paper's main theorem: ε-DP makes the number of right guesses stochastically dominated by
    ``X``), and ``min(1, P[X >= v] + 2 m δ · max_{1 <= i <= v} P[v - i <= X < v] / i)`` when ``δ > 0``
    (Corollary 5.4; ``p_value_DP_audit`` in the paper's Appendix D), ``m = canaries``.

    Parameters
    ----------
    guesses : int
        ``r``, the number of guesses made (abstentions excluded), ``>= 0``.
    correct : int
        ``v``, the number of right guesses, ``0 <= v <= r``.
    epsilon : float
        ε of the claim under test, ``>= 0`` and finite.
    delta : float, default 0.0
        δ of the claim under test, in ``[0, 1)``.
    canaries : int or None, default None
        ``m``, the number of canaries (``>= guesses``); needed when ``delta > 0``.

    Returns
    -------
    float
        The p-value in ``[0, 1]``; smaller is stronger evidence against the claim. It rises with ε.

    Examples
    --------
    Four right guesses out of four under ε = 0: ``(1/2)^4``.

    >>> one_run_p_value(4, 4, 0.0)
    0.0625
    >>> round(one_run_p_value(4, 4, math.log(3.0)), 6), round(0.75 ** 4, 6)
    (0.316406, 0.316406)
    """
    r, v, d, m = _checked(guesses, correct, delta, canaries)
    eps = float(epsilon)
    if not (math.isfinite(eps) and eps >= 0.0):
        raise ValueError(f"epsilon must be finite and >= 0, got {epsilon!r}")
    return _p_value(r, v, eps, d, m)


def one_run_epsilon(
    guesses: int, correct: int, *, confidence: float = 0.95, delta: float = 0.0, canaries: int | None = None
) -> float:
    """The lower bound on ε that ``correct`` right guesses out of ``guesses`` prove at ``confidence``, in the
    one-run audit of Steinke, Nasr and Jagielski (NeurIPS 2023): the largest ε whose claim ("the training is
    (ε, δ)-DP") the observation rejects at level ``β = 1 - confidence``; every smaller ε is rejected too.

    For ``δ = 0`` the p-value ``P[Binomial(r, e^ε/(1+e^ε)) >= v]`` (:func:`one_run_p_value`) rises with ε, so the
    bound is the ε where it crosses β: ``e^ε / (1 + e^ε)`` is then the one-sided Clopper-Pearson lower end of the
    rate of right guesses. When even ε = 0 is not rejected (``P[Binomial(r, 1/2) >= v] > β``, which is the case
    whenever ``v <= r / 2`` and ``confidence > 1/2``) the bound is 0.0. It is finite for every ``r``: with all
    ``r`` guesses right the crossing solves ``p^r = β``, ``p = β^(1/r) < 1``.

    For ``δ > 0`` the p-value is the paper's Corollary 5.4 (``p_value_DP_audit`` in its Appendix D), which needs
    the number of canaries ``m``, and the bound is found, as the paper's ``get_eps_audit`` finds it, by bisection
    on ε. That bisection presumes the p-value rises with ε; for δ = 0 it does (a binomial tail rises with its
    success rate), for δ > 0 this has been checked numerically (``m`` up to 10,000, δ from 1e-6 to 1e-4), not
    proved.

    Parameters
    ----------
    guesses : int
        ``r``, the number of guesses made (abstentions excluded), ``>= 0``.
    correct : int
        ``v``, the number of right guesses, ``0 <= v <= r``.
    confidence : float, default 0.95
        The confidence of the bound, strictly between 0 and 1.
    delta : float, default 0.0
        δ of the (ε, δ) guarantee audited, in ``[0, 1)``.
    canaries : int or None, default None
        ``m``, the number of canaries (``>= guesses``); needed when ``delta > 0``, only checked otherwise.

    Returns
    -------
    float
        The ε lower bound, ``>= 0`` and finite; higher means more leakage shown. Found by bisection to
        ``EPSILON_TOL`` (1e-9) and reported at the low end of the final bracket, so that its p-value is at most
        β.

    Examples
    --------
    All 10 guesses right proves ε = log(p / (1 - p)) with ``p = 0.05^(1/10)``; half right proves nothing.

    >>> p = 0.05 ** (1 / 10); round(one_run_epsilon(10, 10), 6), round(math.log(p / (1 - p)), 6)
    (1.051873, 1.051873)
    >>> one_run_epsilon(10, 5)
    0.0
    >>> round(one_run_epsilon(1000, 600), 4), round(one_run_epsilon(1000, 600, delta=1e-5, canaries=1000), 4)
    (0.2975, 0.2972)
    """
    r, v, d, m = _checked(guesses, correct, delta, canaries)
    beta = _level(confidence)
    if _p_value(r, v, 0.0, d, m) > beta:
        return 0.0
    lo, hi = 0.0, 1.0  # p(lo) <= β < p(hi)
    while _p_value(r, v, hi, d, m) <= beta:
        lo, hi = hi, 2.0 * hi
    while hi - lo > EPSILON_TOL:
        mid = 0.5 * (lo + hi)
        if _p_value(r, v, mid, d, m) <= beta:
            lo = mid
        else:
            hi = mid
    return lo


def one_run_precision_needed(epsilon: float, guesses: int, *, confidence: float = 0.95) -> int:
    """The fewest right guesses out of ``guesses`` that prove ``epsilon`` (pure ε, δ = 0) at ``confidence``.

    It is the smallest ``v`` with ``P[Binomial(r, e^ε/(1+e^ε)) >= v] <= 1 - confidence``, the sentence "to show
    ε with r guesses, at least v must be right". It agrees with :func:`one_run_epsilon`:
    ``one_run_epsilon(r, v) >= ε`` (to within its tolerance, 1e-9) exactly when ``v`` is at least this count.

    Parameters
    ----------
    epsilon : float
        The ε to prove, ``>= 0`` and finite.
    guesses : int
        ``r``, the number of guesses, ``>= 0``.
    confidence : float, default 0.95
        The confidence, strictly between 0 and 1.

    Returns
    -------
    int
        The count, between 0 and ``guesses``; ``guesses + 1`` when even all ``r`` guesses right would not prove
        ``epsilon``, which happens exactly when ``(e^ε/(1+e^ε))^r > 1 - confidence``.

    Examples
    --------
    >>> one_run_precision_needed(1.0, 100)
    81
    >>> round(one_run_epsilon(100, 80), 3), round(one_run_epsilon(100, 81), 3)
    (0.958, 1.014)
    >>> one_run_precision_needed(1.0, 5)  # 0.731^5 = 0.21 > 0.05: five guesses cannot show ε = 1
    6
    """
    r = _count("guesses", guesses)
    if r < 0:
        raise ValueError(f"guesses must be >= 0, got {r}")
    eps = float(epsilon)
    if not (math.isfinite(eps) and eps >= 0.0):
        raise ValueError(f"epsilon must be finite and >= 0, got {epsilon!r}")
    beta = _level(confidence)
    # the tail falls as v rises: bisection for the first v in [0, r + 1] with tail <= β (v = r + 1: tail 0)
    lo, hi = -1, r + 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _p_value(r, mid, eps, 0.0, 0) <= beta:
            hi = mid
        else:
            lo = mid
    return hi


def one_run_guess_counts(m: int) -> tuple[int, ...]:
    """A fixed grid of guess counts for an audit of ``m`` canaries: ``⌈m/50⌉, ⌈m/20⌉, ⌈m/10⌉, ⌈m/5⌉, ⌈m/2⌉, m``,
    deduplicated, in increasing order, each at least 1.

    The grid depends on ``m`` alone, never on the scores, so that the Bonferroni correction of
    :func:`one_run_audit` over it keeps the best row a valid bound.

    Parameters
    ----------
    m : int
        The number of canaries, ``>= 1``.

    Returns
    -------
    tuple of int
        The guess counts, increasing.

    Examples
    --------
    >>> one_run_guess_counts(1000)
    (20, 50, 100, 200, 500, 1000)
    >>> one_run_guess_counts(8)
    (1, 2, 4, 8)
    """
    n = _count("m", m)
    if n < 1:
        raise ValueError(f"m must be >= 1, got {n}")
    return tuple(sorted({max(1, -(-n // share)) for share in GUESS_SHARES}))


@dataclass(frozen=True)
class OneRunRow:
    """One guess count of a one-run audit.

    Attributes
    ----------
    guesses : int
        ``r = k_plus + k_minus``.
    k_plus, k_minus : int
        The "in" guesses (the highest scores) and the "out" guesses (the lowest).
    correct : int
        ``v``, the right guesses among them.
    epsilon_bound : float
        :func:`one_run_epsilon` of ``(r, v)`` at the outcome's ``row_confidence``.
    """

    guesses: int
    k_plus: int
    k_minus: int
    correct: int
    epsilon_bound: float

    def to_dict(self) -> dict[str, Any]:
        """The row as plain ints and floats."""
        return {
            "guesses": int(self.guesses),
            "k_plus": int(self.k_plus),
            "k_minus": int(self.k_minus),
            "correct": int(self.correct),
            "epsilon_bound": float(self.epsilon_bound),
        }


@dataclass(frozen=True)
class OneRunOutcome:
    """The outcome of :func:`one_run_audit`.

    Attributes
    ----------
    canaries : int
        ``m``.
    included : int
        How many canaries were in the training data.
    rows : tuple of OneRunRow
        One row per guess count of the grid, increasing, for each split of the guesses (``sides``) in turn.
    best : OneRunRow
        The row with the largest bound (the first such when several tie); its bound holds at ``confidence``.
    confidence : float
        The confidence of the best row's bound (the family-wise confidence over the grid).
    row_confidence : float
        ``1 - (1 - confidence) / len(rows)``, the confidence each row's bound is computed at.
    delta : float
        δ of the (ε, δ) guarantee audited.
    """

    canaries: int
    included: int
    rows: tuple[OneRunRow, ...]
    best: OneRunRow
    confidence: float
    row_confidence: float
    delta: float

    @property
    def epsilon_bound(self) -> float:
        """The best row's bound: the ε lower bound the audit shows at ``confidence``."""
        return self.best.epsilon_bound

    def to_dict(self) -> dict[str, Any]:
        """The outcome as plain ints, floats, lists and dicts (JSON-safe; bounds are always finite)."""
        return {
            "canaries": int(self.canaries),
            "included": int(self.included),
            "rows": [row.to_dict() for row in self.rows],
            "best": self.best.to_dict(),
            "confidence": float(self.confidence),
            "row_confidence": float(self.row_confidence),
            "delta": float(self.delta),
        }


def _grid(grid: Iterable[int] | None, m: int) -> tuple[int, ...]:
    """The guess counts to try: the default grid, or ``grid`` checked (each in ``[1, m]``), deduplicated, sorted."""
    if grid is None:
        return one_run_guess_counts(m)
    counts = sorted({_count("grid entry", r) for r in grid})
    if not counts:
        raise ValueError("grid must hold at least one guess count")
    if counts[0] < 1 or counts[-1] > m:
        raise ValueError(f"every guess count in grid must be between 1 and the number of canaries ({m}), got {counts}")
    return tuple(counts)


def one_run_audit(
    scores: ArrayLike,
    included: ArrayLike,
    *,
    confidence: float = 0.95,
    delta: float = 0.0,
    grid: Iterable[int] | None = None,
    sides: Sequence[str] = ("balanced",),
) -> OneRunOutcome:
    """A one-run audit (Steinke, Nasr and Jagielski, NeurIPS 2023) of an attack's membership scores of ``m``
    canaries, each of which was included in training independently with probability 1/2.

    For each guess count ``r`` of the grid the auditor guesses "in" for the ``k+ = ⌈r/2⌉`` highest-scored
    canaries and "out" for the ``k- = ⌊r/2⌋`` lowest-scored (an odd ``r`` has one more "in" guess than "out"),
    abstains on the rest, counts the right guesses ``v`` and computes :func:`one_run_epsilon` of ``(r, v)``.

    Ties: canaries are ranked by score, highest first, equal scores in canary order (the order of ``scores``);
    the first ``k+`` of this ranking are guessed "in", the last ``k-`` "out". The rule looks at the scores and the
    canaries' positions only, never at ``included``, so the guesses are a function of the training's output as
    the paper's theorem requires; and where canary order is drawn at random, so is the resolution of a tie.

    Several guess counts: one-run audits commonly try several numbers of guesses and keep the best, and the best
    of ``len(grid)`` bounds each at 95% is not a 95% bound. Each row's bound is therefore computed at
    ``1 - (1 - confidence) / len(grid)`` (Bonferroni), so that the best row's bound holds at ``confidence``
    whichever row it is. The grid must be fixed before the scores are seen; the default,
    :func:`one_run_guess_counts` of ``m``, is.

    Parameters
    ----------
    scores : array-like of float, shape (m,)
        The attack's membership score of each canary; higher means more likely included. NaN is refused.
    included : array-like of bool, shape (m,)
        Whether each canary was in the training data (bools, or integers 0 and 1).
    confidence : float, default 0.95
        The confidence of the best row's bound, strictly between 0 and 1.
    delta : float, default 0.0
        δ of the (ε, δ) guarantee audited, in ``[0, 1)`` (``m`` canaries enter the bound when ``delta > 0``).
    grid : iterable of int or None, default None
        The guess counts to try, each between 1 and ``m`` (deduplicated); None: :func:`one_run_guess_counts`.
    sides : sequence of {"balanced", "in"}, default ("balanced",)
        How each guess count is split: ``"balanced"`` as above, ``"in"`` all of them "in" guesses on the
        highest-scored canaries (``k- = 0``: the auditor abstains on every low score, which suits an attack that
        is sure only of the canaries it finds, such as an exact match in the output). Every (count, split) pair
        is a row, and the Bonferroni correction counts them all.

    Returns
    -------
    OneRunOutcome
        The rows and the best one; ``outcome.epsilon_bound`` is the ε lower bound (higher: more leakage shown,
        0 when none is shown).

    Examples
    --------
    Four canaries, the two included ones scored highest: every guess is right.

    >>> out = one_run_audit([0.9, 0.1, 0.8, 0.2], [True, False, True, False], grid=[2, 4])
    >>> [(row.guesses, row.k_plus, row.k_minus, row.correct) for row in out.rows]
    [(2, 1, 1, 2), (4, 2, 2, 4)]
    >>> out.row_confidence, out.epsilon_bound  # 4 right of 4 cannot reject ε = 0 at 97.5%: (1/2)^4 > 0.025
    (0.975, 0.0)
    """
    s = np.asarray(scores, dtype=np.float64)
    truth = np.asarray(included)
    if s.ndim != 1:
        raise ValueError(f"scores must be one-dimensional, got shape {s.shape}")
    if truth.shape != s.shape:
        raise ValueError(f"included must have the shape of scores {s.shape}, got {truth.shape}")
    if s.size == 0:
        raise ValueError("at least one canary is needed")
    if np.isnan(s).any():
        raise ValueError(f"scores must not be NaN (canary {int(np.flatnonzero(np.isnan(s))[0])} is)")
    if truth.dtype != np.bool_:
        if not (np.issubdtype(truth.dtype, np.integer) and np.isin(truth, (0, 1)).all()):
            raise ValueError(f"included must hold bools (or 0 and 1), got dtype {truth.dtype}")
        truth = truth.astype(np.bool_)
    level = _level(confidence)
    m = int(s.size)
    counts = _grid(grid, m)
    splits = tuple(dict.fromkeys(sides))
    if not splits or any(side not in ("balanced", "in") for side in splits):
        raise ValueError(f"sides must name 'balanced' and/or 'in', got {tuple(sides)!r}")
    row_confidence = 1.0 - level / (len(counts) * len(splits))

    order = np.argsort(-s, kind="stable")  # highest first, equal scores in canary order
    inside = np.concatenate(([0], np.cumsum(truth[order], dtype=np.int64)))  # included among the first j ranked
    rows = []
    for side in splits:
        for r in counts:
            k_plus, k_minus = ((r + 1) // 2, r // 2) if side == "balanced" else (r, 0)
            right_in = int(inside[k_plus])
            right_out = k_minus - int(inside[m] - inside[m - k_minus])
            v = right_in + right_out
            bound = one_run_epsilon(r, v, confidence=row_confidence, delta=delta, canaries=m)
            rows.append(OneRunRow(r, k_plus, k_minus, v, bound))
    best = rows[int(np.argmax([row.epsilon_bound for row in rows]))]
    return OneRunOutcome(
        canaries=m,
        included=int(inside[m]),
        rows=tuple(rows),
        best=best,
        confidence=float(confidence),
        row_confidence=row_confidence,
        delta=float(delta),
    )

