"""``holdout_dcr_share``: the share of synthetic records closer to a training record than to any record of an
equal-sized holdout; about 50% for a generator that learned the population and not the individuals.

Definition, source and choices: ``docs/metrics.md``, section "holdout_dcr_share".
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ... import stats
from ...core import plotting as plot
from ...core.formats import fmt_share
from ...core.params import SOURCES
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
    verdict_alpha,
)
from ...core.results import InconsistentReportError, MetricResult, not_computed, stored_count, stored_number
from ...data.containers import position_dtype
from ...stats import evidence
from .._shared.arrays import SmallResult, groups_too_small, space_for
from .._shared.shift import holdout_shift_notes, holdout_shift_requests


@dataclass(frozen=True)
class HoldoutShare(SmallResult):
    """What :func:`holdout_dcr_share` finds.

    Attributes
    ----------
    share : float
        Share of synthetic records closer to the training set than to the holdout, ties counted one half.
    wins : int
        Synthetic records strictly closer to the training set (beyond the tie tolerance).
    ties : int
        Synthetic records at a tied distance from both.
    n : int
        Synthetic records.
    interval : tuple of (float, float)
        Wilson 95% interval of ``share``.
    k : int
        ``wins + ties / 2`` rounded half up: the successes of the binomial test.
    p_value : float
        Exact one-sided binomial test of ``k`` successes in ``n`` trials against 0.5.
    """

    share: float
    wins: int
    ties: int
    n: int
    interval: tuple[float, float]
    k: int
    p_value: float


def holdout_dcr_share(dcr_train: ArrayLike, dcr_holdout: ArrayLike) -> HoldoutShare:
    """Share of synthetic records closer to train than to holdout, ties counted one half (``docs/metrics.md``,
    section "holdout_dcr_share").

    Parameters
    ----------
    dcr_train, dcr_holdout : array of shape (n_synthetic,)
        DCR(s, T) and DCR(s, H) (on equal-sized real sets).

    Returns
    -------
    HoldoutShare
        ``share``, ``wins``, ``ties``, ``n``, ``interval`` (Wilson), ``k`` = round-half-up(wins + ties/2) and
        ``p_value`` (exact one-sided binomial test of k successes in n trials against 0.5).

    Examples
    --------
    >>> r = holdout_dcr_share([0.1, 0.2, 0.3, 0.4], [0.2, 0.2, 0.1, 0.5])
    >>> r.share, r.wins, r.ties, r.k
    (0.625, 2, 1, 3)
    """
    share, wins, nties, n = stats.win_share(dcr_train, dcr_holdout)
    k = stats.round_half_up(wins + 0.5 * nties)
    return HoldoutShare(share=share, wins=wins, ties=nties, n=n, interval=stats.wilson(share, n), k=k,
                        p_value=stats.binomial_p_greater(k, n, 0.5))


def _holdout_share_sets(ctx: Any) -> tuple[Any, Any]:
    """Equal-sized real sets for the share (``docs/metrics.md``, section "holdout_dcr_share"): a random
    subsample of the larger one (default_rng(random_state))."""

    def make() -> tuple[Any, Any]:
        n_t, n_h = ctx.size(ctx.T), ctx.size(ctx.H)
        t_ref, h_ref = ctx.full(ctx.T), ctx.full(ctx.H)
        if n_t != n_h:
            rng = np.random.default_rng(ctx.random_state)
            if n_t > n_h:
                t_ref = ctx.subset(ctx.T, stats.subsample(n_t, n_h, rng), "holdout_dcr_share.T")
            else:
                h_ref = ctx.subset(ctx.H, stats.subsample(n_h, n_t, rng), "holdout_dcr_share.H")
        return t_ref, h_ref

    sets: tuple[Any, Any] = ctx.memo(("holdout_dcr_share.sets", ctx.random_state), make)
    return sets


def _too_small(ctx: Any) -> str | None:
    """Why the share is not assessed on these sets: the two equal-sized real sets it compares (the larger drawn
    down to the smaller's size) need :data:`~synthpriv_report.metrics._shared.arrays.MIN_GROUP_RECORDS` records each
    (with
    one record each, every synthetic record is only closer to one of two real records, and the share says nothing
    of the generator)."""
    return groups_too_small({"training": ctx.size(ctx.T), "holdout": ctx.size(ctx.H)})


def _share_plan(ctx: Any, params: dict[str, Any]) -> list[Any]:
    if _too_small(ctx) is not None:
        return [*holdout_shift_requests(ctx)]
    sp = space_for(ctx, "holdout_dcr_share", "gower")
    t_ref, h_ref = _holdout_share_sets(ctx)
    return [ctx.request(sp, ctx.S, t_ref, 1), ctx.request(sp, ctx.S, h_ref, 1), *holdout_shift_requests(ctx)]


@dataclass(frozen=True)
class ShareLevelBound(SmallResult):
    """What :func:`share_level_bounds` finds: the bound the level of ``holdout_dcr_share`` is read from.

    Attributes
    ----------
    lower_bound_for_level : float
        Lower confidence bound of the share at the verdict's per-check level.
    design_effect : float
        Variance inflation from synthetic records that share their nearest real record.
    check_alpha : float
        The verdict's per-check level the bound is taken at.
    """

    lower_bound_for_level: float
    design_effect: float
    check_alpha: float


def share_level_bounds(d_t: ArrayLike, d_h: ArrayLike, near_t: ArrayLike, near_h: ArrayLike) -> ShareLevelBound:
    """The bound the level of ``holdout_dcr_share`` rests on: the lower confidence bound of the share at the
    verdict's per-check level, Wilson's at the effective number of synthetic records.

    Synthetic records whose nearest real record (among training and holdout) is the same one win or lose
    together, so they are one group for the design effect; the per-record outcomes are 1 (closer to the training
    record), 1/2 (a tie) and 0.
    """
    y, closer_h = share_outcomes(d_t, d_h)
    return share_bound(y, share_groups(near_t, near_h, closer_h))


def share_outcomes(d_t: ArrayLike, d_h: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Per synthetic record: its outcome (1 closer to the training record, 1/2 a tie, 0 closer to the holdout
    record) and whether its holdout record is strictly closer (its group is then that record's)."""
    dt = np.asarray(d_t, dtype=np.float64)
    dh = np.asarray(d_h, dtype=np.float64)
    tie = stats.ties(dt, dh)
    win = (dt < dh) & ~tie
    y = np.where(tie, 0.5, win.astype(np.float64))
    del tie, win
    return y, dh < dt


def share_groups(near_t: ArrayLike, near_h: ArrayLike, closer_h: NDArray[np.bool_]) -> NDArray[np.integer]:
    """Per synthetic record, the group of its nearest real record: its training record's position, or where the
    holdout record is closer (``closer_h``) that record's position after every training group's number, in the
    narrowest type that holds them (4 bytes a record below 2**31 real records)."""
    nt = np.asarray(near_t)
    nh = np.asarray(near_h)
    offset = int(nt.max(initial=0)) + 1  # the first holdout group's number
    held = position_dtype(offset + int(nh.max(initial=0)) + 1)
    groups = nt.astype(held)
    groups[closer_h] = nh[closer_h].astype(held) + held.type(offset)
    return groups


def share_bound(y: NDArray[np.float64], groups: NDArray[np.integer]) -> ShareLevelBound:
    """:func:`share_level_bounds` from the outcomes and groups (:func:`share_outcomes`, :func:`share_groups`)."""
    b = evidence.share_bounds(y, groups, alpha=verdict_alpha())
    return ShareLevelBound(lower_bound_for_level=b["lower"], design_effect=b["deff"], check_alpha=verdict_alpha())


def share_again(r: MetricResult) -> dict[tuple[Any, ...], float]:
    """``holdout_dcr_share`` computed again from its stored counts (its ``LevelSpec.rederive``, for a report read
    back from JSON): the share ``(wins + ties / 2) / n`` with its Wilson interval, the binomial test, and the lower
    bound its level reads, Wilson's at the effective number of records (``n`` over the stored design effect, which
    rests on per-record groups a report does not store: it must lie between 1 and ``n``)."""
    d = r.details
    n = stored_count(d, "n")
    if n == 0:
        raise InconsistentReportError("is 0: a share of no records cannot be graded", ("details", "n"))
    wins = stored_count(d, "wins", high=n)
    ties = stored_count(d, "ties", high=n - wins)
    share = (wins + 0.5 * ties) / n
    k = stats.round_half_up(wins + 0.5 * ties)
    deff = stored_number(d, "design_effect", low=1.0, high=float(n))
    alpha = verdict_alpha()
    lo, hi = stats.wilson(share, n)
    return {("value",): share, ("interval", 0): lo, ("interval", 1): hi, ("details", "k"): k,
            ("details", "p_value"): stats.binomial_p_greater(k, n, 0.5), ("details", "check_alpha"): alpha,
            ("details", "lower_bound_for_level"): evidence.wilson_bounds(share, n / deff, evidence.z_of(alpha))[0]}


#: The low band of ``holdout_dcr_share``: a risk is ruled out when at most 60% of the synthetic records are closer to
#: the training data than to the holdout, at the upper end of the share's interval at the check's level (an
#: honest generator gives 50%; 60% means a fifth of the synthetic records drawn towards the training records).
SHARE_NEGLIGIBLE = 0.6


def share_upper(r: MetricResult) -> float | None:
    """The upper end of the share's Wilson interval at the effective number of records (``n`` over the stored
    design effect) and the verdict's per-check level: the risky end "ruled out" reads.

    >>> share_upper(MetricResult("holdout_dcr_share", 0.5, details={"wins": 500, "ties": 0, "n": 1000,
    ...                                                              "design_effect": 1.0})) < 0.6
    True
    """
    d = r.details
    n, wins, ties, deff = d.get("n"), d.get("wins"), d.get("ties", 0), d.get("design_effect", 1.0)
    if not all(isinstance(v, (int, float)) and math.isfinite(v) for v in (n, wins, ties, deff)) or not n:
        return None
    share = (wins + 0.5 * ties) / n
    return evidence.wilson_bounds(share, n / max(float(deff), 1.0), evidence.z_of(verdict_alpha()))[1]


def _share_compute(ctx: Any, params: dict[str, Any]) -> MetricResult:
    sp = space_for(ctx, "holdout_dcr_share", "gower")
    reason = _too_small(ctx)
    if reason is not None:
        return not_computed("holdout_dcr_share", reason, space=sp.label)
    t_ref, h_ref = _holdout_share_sets(ctx)
    d_t, d_h = ctx.knn(sp, ctx.S, t_ref, 1).dist[:, 0], ctx.knn(sp, ctx.S, h_ref, 1).dist[:, 0]
    r = holdout_dcr_share(d_t, d_h)
    details: dict[str, Any] = {"wins": r.wins, "ties": r.ties, "n": r.n, "k": r.k, "p_value": r.p_value}
    # share_level_bounds step by step, each array let go once read: the distances before the nearest positions
    # are read, those before the design effect is found
    y, closer_h = share_outcomes(d_t, d_h)
    del d_t, d_h
    # the nearest positions read one table at a time, each narrowed as it comes and its 8-byte column let go (a
    # table handed out keeps what it reads, so each is asked for here and not kept)
    narrow = position_dtype(max(ctx.size(t_ref), ctx.size(h_ref)))
    near_t = ctx.knn(sp, ctx.S, t_ref, 1).idx[:, 0].astype(narrow)
    near_h = ctx.knn(sp, ctx.S, h_ref, 1).idx[:, 0].astype(narrow)
    groups = share_groups(near_t, near_h, closer_h)
    del near_t, near_h, closer_h
    details.update(share_bound(y, groups).to_dict())
    details["real_sizes_used"] = {"training": ctx.size(t_ref), "holdout": ctx.size(h_ref)}
    details["subsampled"] = ("training" if t_ref.rows is not None
                             else "holdout" if h_ref.rows is not None else None)
    return MetricResult(name="holdout_dcr_share", value=r.share, interval=r.interval, details=details,
                        space=sp.label, notes=holdout_shift_notes(ctx))


def plot_holdout_share(result: Any, *, ax: Any = None) -> Any:
    """The holdout DCR share with its Wilson interval, the 50% line and the level thresholds.

    Parameters
    ----------
    result : MetricResult
        The ``holdout_dcr_share`` result.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
        Above 50%: synthetic records sit closer to training records than to holdout records (riskier).
    """
    ax = plot.new_ax(ax)
    if result is None or not result.computed:
        why = result.reason_not_computed if result is not None else "no result"
        return plot.empty(ax, f"holdout share not computed: {why}")
    v = float(result.value)
    refs = [(0.5, "50%: no closer to train than to holdout", "--")]
    rule = result.level_rule
    if rule is not None and rule.high is not None:
        refs.append((float(rule.high), f"high-risk threshold ({rule.high:g}, on {rule.scale})", ":"))
    label = f"share = {v:.1%}"
    if result.interval is not None:
        label += f" (Wilson 95% {result.interval[0]:.1%}–{result.interval[1]:.1%})"
    # the x axis spans the share, its interval, the lines and the holdout's own share, not the whole [0, 1]
    plot.interval_strip(ax, v, result.interval, result.level, label=label, refs=refs,
                        marks=() if result.calibration is None else (float(result.calibration),))
    if result.calibration is not None:
        ax.plot([result.calibration], [0.0], "|", color=plot.COLORS["H"], ms=18, mew=2,
                label=f"holdout in place of the synthetic data: {result.calibration:.1%}")
    ax.set_xlabel("share of synthetic records closer to train than to holdout")
    ax.set_title("Holdout DCR share")
    ax.legend(fontsize=8, loc="upper left")
    return ax


def holdout_share_finding(m: ResultJSON) -> str:
    """What the holdout share found, in one sentence.

    >>> holdout_share_finding({"value": 0.5})[:40]
    '50% of the synthetic records are closer '
    """
    return (f"{fmt_share(m.get('value'))} of the synthetic records are closer to a training record than to any "
            f"real record the generator never saw; about 50% is expected when the generator did not memorise its "
            f"training records.")


def share_sample_note(m: ResultJSON) -> str | None:
    """The subsample behind the share, when the two real sets were of different sizes.

    >>> share_sample_note({"details": {"subsampled": "training", "real_sizes_used": {"training": 5}}})[:34]
    'the training records were subsampl'
    """
    d = m.get("details") or {}
    if not d.get("subsampled"):
        return None
    sizes = d.get("real_sizes_used") or {}
    return (f"the {d['subsampled']} records were subsampled at random to equal sizes ("
            + ", ".join(f"{k} {v:,}" for k, v in sizes.items()) + ") with the evaluation's random state")


class HoldoutDcrShareDetails(TypedDict):
    """The details of ``holdout_dcr_share``: the keys its compute function sets."""

    wins: int
    ties: int
    n: int
    k: int
    p_value: float
    lower_bound_for_level: float
    design_effect: float
    check_alpha: float
    real_sizes_used: dict[str, int]
    subsampled: str | None


register(MetricSpec(
    name="holdout_dcr_share",
    computation=Computation(
        compute=_share_compute, plan=_share_plan, needs=("holdout",), default_space="gower", space_choosable=True,
        copy_sensitive=True, details=HoldoutDcrShareDetails),
    grading=Grading(
        direction="higher_is_riskier", value_range=(0.0, 1.0), value_kind="share",
        level=LevelSpec(
            medium=0.5, high=0.55, same_scale=True, rederive=share_again,
            of=lambda r: r.details.get("lower_bound_for_level", r.interval[0] if r.interval is not None else r.value),
            risky_end=share_upper, negligible=SHARE_NEGLIGIBLE,
            risky_scale="the upper confidence bound of the share",
            scale="the lower confidence bound of the share",
            source="package default, after " + SOURCES["clearbox"],
            description="high when the share is above {high} beyond chance, medium when above {medium} beyond chance: "
                        "the lower end of its confidence interval (at the level that keeps the verdict's false alarms "
                        "near 5%; synthetic records that share their nearest real record count as one group) is above "
                        "the threshold; an honest generator gives about 50%"),
        drives_verdict=True),
    presentation=Presentation(
        title="Closer to the training data than to the holdout", section="2.2", group="holdout",
        summary="Share of synthetic records closer to a training record than to any holdout record; 50% is ideal.",
        definition="For each synthetic record, is its nearest training record closer than its nearest holdout "
                   "record (ties count one half)? A generator that learned the population and not the individuals "
                   "gives about 50% on equal-sized real sets.",
        words=Words(measures="whether synthetic records sit nearer the training records than real records the "
                             "generator never saw",
                    high_means="a value well above 50% is risky: the generator memorised training records",
                    ideal="50%"),
        interval_kind="Wilson 95%",
        figures=(FigureSpec(lambda r, a: plot_holdout_share(r, ax=a),
                            "Share of synthetic records closer to the training data than to the holdout, with its "
                            "interval, the 50% line and the high-risk threshold", size=(6.0, 2.2),
                            needs_evidence=False),),
        finding=holdout_share_finding,
        limitation=("it compares where synthetic records sit as a whole: a small share of copied records among many "
                    "honest ones may not move the share beyond chance (the copy checks look for those)"),
        sample_note=share_sample_note),
))
