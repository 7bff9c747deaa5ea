"""The training records most exposed to the membership attacks, one row each (docs/metrics.md, ``mia_worst_case``).

M. Meeus, F. Guépin, A.-M. Creţu, Y.-A. de Montjoye, "Achilles' Heels: Vulnerable Record Identification in
Synthetic Data Publishing", ESORICS 2023: the risk of a release concentrates on a few atypical records, so the
records are ranked by how vulnerable they are. The table ranks the *training* records by the score of the
strongest membership attack (the one ``mia_worst_case`` reports), with each record's atypicality (its distance to
the nearest other training record, in the attacks' space) and whether the attack flags it at false-positive rates
of 0.1% and 1% (the thresholds of :func:`~synthpriv_report.metrics.attacks.mia_common.attack_roc`).

Searches. It reads the attack's scores and the training records' search against themselves that
``mia_worst_case`` computed (memoised on the evaluation): once that metric ran, the table starts no search.

Masking. Rows are the caller's row positions in the training frame; no value of a training record is in the table
unless ``reveal_real_values=True`` (or the evaluation was created with it). The reports carry only the counts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..core.params import check_bool
from ..metrics.attacks.mia_common import (
    CONFIDENCE,
    FPR_TARGETS,
    attack_roc,
    attack_space,
    atypical_breakdown,
    atypicality,
    delta_of,
    member_flags,
    member_ranks,
)
from ..metrics.attacks.mia_worst_case import ATTACKS, NAME, worst_case_records
from .risk import record_values

#: The false-positive rates at which the table says whether the attack flags a record, and its columns' names.
FLAG_COLUMNS: dict[float, str] = {0.001: "flagged_at_0.1pct", 0.01: "flagged_at_1pct"}


def _descending_ranks(values: Any) -> np.ndarray:
    """1 for the largest value; equal values share the best rank of their group.

    >>> _descending_ranks([0.2, 0.9, 0.2, 0.5]).tolist()
    [3, 1, 3, 2]
    """
    v = -np.asarray(values, dtype=np.float64)
    return (np.searchsorted(np.sort(v), v, side="left") + 1).astype(np.int64)


def vulnerable_records(ev: Any, *, k: int = 20, reveal_real_values: bool | None = None) -> pd.DataFrame:
    """The ``k`` training records the strongest membership attack scores highest, one row each.

    Parameters
    ----------
    ev : Evaluation
        An evaluation with a holdout (the attacks need non-members and reference data).
    k : int, default 20
        How many records (all of them when there are fewer training records).
    reveal_real_values : bool, optional
        Add each record's values (``values``: a dict by column); default ``ev.settings["reveal_real_values"]``.

    Returns
    -------
    DataFrame
        Index ``training_row`` (the caller's row position in the training frame). Columns ``score_rank`` (1 for
        the highest attack score; tied scores share a rank), ``attack_score`` (higher: more likely a member),
        ``atypicality`` (distance to the nearest other training record), ``atypicality_rank`` (1 for the most
        atypical; equal distances share a rank), ``flagged_at_0.1pct`` and ``flagged_at_1pct``; with revealed
        values also ``values``. Sorted by score rank, then the most atypical first, then by row. ``attrs``:
        ``attack``, ``space``, ``n_members``, ``n_nonmembers``, ``n_flagged_at_0.1pct``, ``n_flagged_at_1pct``,
        ``revealed`` and ``summary`` (where the flags fall among the most atypical records, in counts).

    Raises
    ------
    ValueError
        When the attacks cannot run on these data (the reason is the metric's), or ``k`` is not a positive whole
        number.
    """
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive whole number of records, got {k!r}")
    reveal = bool(ev.settings["reveal_real_values"] if reveal_real_values is None
                  else check_bool("reveal_real_values", reveal_real_values))
    result = ev[NAME]
    if not result.computed:
        raise ValueError(f"the membership attacks could not run, so no record can be ranked: "
                         f"{result.reason_not_computed}")
    ctx = ev.context
    worst = str(result.details["worst_attack"])
    members, nonmembers = ATTACKS[worst](ctx)
    flags = member_flags(members, nonmembers, fprs=tuple(FLAG_COLUMNS))
    ranks = member_ranks(members, nonmembers)
    atyp = atypicality(ctx)
    atyp_ranks = _descending_ranks(atyp)
    rows = ev.data.caller_rows("T", np.arange(members.size))
    order = np.lexsort((rows, -atyp, ranks))[:int(k)]
    frame = pd.DataFrame({"score_rank": ranks[order], "attack_score": members[order],
                          "atypicality": atyp[order], "atypicality_rank": atyp_ranks[order],
                          **{col: flags[f][order] for f, col in FLAG_COLUMNS.items()}},
                         index=pd.Index(rows[order], name="training_row"))
    if reveal:
        frame["values"] = [record_values(ev.data, "T", int(i)) for i in order]
    frame.attrs.update({
        "attack": worst, "space": attack_space(ctx).label, "n_members": int(members.size),
        "n_nonmembers": int(nonmembers.size), "revealed": reveal,
        **{f"n_{col}": int(flags[f].sum()) for f, col in FLAG_COLUMNS.items()},
        "summary": worst_case_records(result.to_dict()) or "",
    })
    return frame


@dataclass(frozen=True)
class OperatingPoint:
    """A membership attack read at one false-positive rate: whom it flags there, and what that proves.

    Attributes
    ----------
    attack : str
        The attack (a key of :data:`~synthpriv_report.metrics.attacks.mia_worst_case.ATTACKS`).
    target_fpr : float
        The false-positive rate asked for: at most ``floor(target_fpr * n_nonmembers)`` non-members may be
        flagged.
    n_members, n_nonmembers : int
        The training records attacked, and the real records outside the training data (the targets).
    flagged_members, flagged_nonmembers : int
        How many of each the attack flags at this rate (a tie at the threshold is not flagged).
    tpr, fpr : float
        ``flagged_members / n_members`` and ``flagged_nonmembers / n_nonmembers``.
    tpr_interval : (float, float)
        Clopper-Pearson 95% interval of the TPR.
    readable : bool
        False when the rate lets less than one non-member be flagged (``target_fpr * n_nonmembers < 1``): below
        ``1 / n_nonmembers`` a rate cannot be read from these records.
    chance : float
        How many members an attack that cannot tell them apart would flag at the same false-positive rate
        (``fpr * n_members``).
    epsilon_lower_bound : float
        The ε that this (TPR, FPR) pair proves at its conservative ends (one-sided Clopper-Pearson bounds), at the
        confidence the report gives each rate of each attack (95% shared by the four attacks and the three rates),
        with the release context's δ; 0 when it proves none.
    atypical_n, atypical_flagged : int
        The most atypical 1% of the training records, and how many of them the attack flags at this rate.
    atypical_chance : float
        ``fpr * atypical_n``.
    curve_fpr, curve_tpr : tuple of float
        The attack's whole ROC curve (at most a few hundred points, log-spaced in FPR).
    """

    attack: str
    target_fpr: float
    n_members: int
    n_nonmembers: int
    flagged_members: int
    flagged_nonmembers: int
    tpr: float
    fpr: float
    tpr_interval: tuple[float, float]
    readable: bool
    chance: float
    epsilon_lower_bound: float
    atypical_n: int
    atypical_flagged: int
    atypical_chance: float
    curve_fpr: tuple[float, ...]
    curve_tpr: tuple[float, ...]


def operating_point(ev: Any, fpr: float, *, attack: str | None = None) -> OperatingPoint:
    """A membership attack of ``mia_worst_case`` read at the false-positive rate ``fpr`` (teaching: a slider over
    the rate, :func:`~synthpriv_report.display.widgets.attack_explorer`).

    The reports read every attack at three rates fixed in advance (0.1%, 1% and 10%) and print the largest ε
    bound among them; here the rate is the caller's. At those three rates the counts and the bound equal the
    report's (each rate's bound is at the confidence the report gives it, 95% shared by the attacks and the
    three rates). A rate chosen
    after looking at the curve is a reading, not a test: the largest bound over many rates tried would overstate
    ε, so only the report's bound is a claim.

    Searches: none of its own. It reads the attack's scores and the training records' search against themselves
    that ``mia_worst_case`` computed (memoised on the evaluation).

    Parameters
    ----------
    ev : Evaluation
        An evaluation with a holdout (the attacks need non-members and reference data).
    fpr : float
        The false-positive rate, in (0, 1].
    attack : str, optional
        One of the attacks of ``mia_worst_case`` (its ``ATTACKS``); default the strongest, the one the report
        gives.

    Returns
    -------
    OperatingPoint

    Raises
    ------
    ValueError
        When ``fpr`` is not a rate in (0, 1], the attack is unknown (the known ones are named), or the attacks
        cannot run on these data (the reason is the metric's).
    """
    if isinstance(fpr, (bool, np.bool_)) or not isinstance(fpr, (int, float, np.integer, np.floating)) \
            or not math.isfinite(float(fpr)) or not 0.0 < float(fpr) <= 1.0:
        raise ValueError(f"fpr must be a false-positive rate in (0, 1], got {fpr!r}")
    f = float(fpr)
    result = ev[NAME]
    if not result.computed:
        raise ValueError(f"the membership attacks could not run, so no attack can be read: "
                         f"{result.reason_not_computed}")
    name = str(result.details["worst_attack"]) if attack is None else str(attack)
    if name not in ATTACKS:
        raise ValueError(f"unknown attack {attack!r}; choose one of {', '.join(map(repr, ATTACKS))}")
    ctx = ev.context
    members, nonmembers = ATTACKS[name](ctx)
    # the confidence the worst case gives each rate of each attack: 95% shared by the attacks and the three rates
    share = (1.0 - CONFIDENCE) / (len(ATTACKS) * len(FPR_TARGETS))
    roc = attack_roc(members, nonmembers, fprs=(f,), epsilon_alpha=share, delta=delta_of(ctx))
    point = roc.rates[0]
    flagged = member_flags(members, nonmembers, fprs=(f,))[f]
    top = atypical_breakdown(atypicality(ctx), flagged, point.fpr)["0.01"]
    return OperatingPoint(
        attack=name, target_fpr=f, n_members=roc.n_members, n_nonmembers=roc.n_nonmembers,
        flagged_members=point.flagged_members, flagged_nonmembers=point.flagged_nonmembers, tpr=point.tpr,
        fpr=point.fpr, tpr_interval=point.tpr_interval, readable=point.reportable,
        chance=point.fpr * roc.n_members, epsilon_lower_bound=point.epsilon_lower_bound,
        atypical_n=int(top["n"]), atypical_flagged=int(top["n_flagged"]), atypical_chance=float(top["chance"]),
        curve_fpr=roc.curve_fpr, curve_tpr=roc.curve_tpr)


__all__ = ["FLAG_COLUMNS", "OperatingPoint", "operating_point", "vulnerable_records"]
