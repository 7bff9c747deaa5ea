"""The distance-ratio membership attack worked out by hand on one numeric column, for the tests of the attack with
the holdout split in two and with a reference set given by the user."""

from __future__ import annotations

import numpy as np


def distance_ratio_flagged_above_every_nonmember(t: np.ndarray, s: np.ndarray, h: np.ndarray,
                                                 ref: np.ndarray) -> int:
    """How many members (``t``) the distance-ratio attack scores above every non-member target (``h``), with
    synthetic records ``s`` and reference records ``ref``, all one numeric column (the gower distance is
    ``|a - b|`` over the real range, a constant factor that the ratio cancels).

    Each score is log((d_ref + floor) / (d_syn + floor)), the floor the 0.1% quantile of the positive distances
    to the reference; a member counts when its score is above the highest non-member's (ties not flagged).
    """

    def nearest(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.abs(a[:, None] - b[None, :]).min(axis=1)

    d_sm, d_rm, d_sn, d_rn = nearest(t, s), nearest(t, ref), nearest(h, s), nearest(h, ref)
    pos = np.concatenate([d_rm, d_rn])
    floor = np.quantile(pos[pos > 0], 0.001)
    score_m = np.log((d_rm + floor) / (d_sm + floor))
    score_n = np.log((d_rn + floor) / (d_sn + floor))
    return int((score_m > score_n.max() * (1 + 1e-9) + 1e-12).sum())
