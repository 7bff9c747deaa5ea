"""The training records most exposed to the membership attacks, one row each (docs/metrics.md, ``mia_worst_case``).

M. Meeus, F. Guépin, A.-M. Creţu, Y.-A. de Montjoye, "Achilles' Heels: Vulnerable Record Identification in
Synthetic Data Publishing", ESORICS 2023: the risk of a release concentrates on a few atypical records, so the
records are ranked by how vulnerable they are. The table ranks the *training* records by the score of the
strongest membership attack (the one ``mia_worst_case`` reports), with each record's atypicality (its distance to
the nearest other training record, in the attacks' space) and whether the attack flags it at false-positive rates
of 0.1% and 1% (the thresholds of :func:`~synthpriv_report.metrics.mia_common.attack_roc`).

Searches. It reads the attack's scores and the training records' search against themselves that
``mia_worst_case`` computed (memoised on the evaluation): once that metric ran, the table starts no search.

Masking. Rows are the caller's row positions in the training frame; no value of a training record is in the table
unless ``reveal_real_values=True`` (or the evaluation was created with it). The reports carry only the counts.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..metrics.mia_common import attack_space, atypicality, member_flags, member_ranks
from ..metrics.mia_worst_case import ATTACKS, NAME, worst_case_records
from ..params import check_bool
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


__all__ = ["FLAG_COLUMNS", "vulnerable_records"]
