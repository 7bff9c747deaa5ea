"""A fast, quiet evaluation for tests: no progress bars, no calibration run (the holdout in the synthetic
role) unless a test asks for one, every other option at the package's default unless the test names it."""

from __future__ import annotations

from typing import Any

import pandas as pd

from synthpriv_report import Evaluation


def evaluation(real: pd.DataFrame, synthetic: pd.DataFrame, holdout: pd.DataFrame | None = None,
               **options: Any) -> Evaluation:
    """``Evaluation(real, synthetic, holdout, progress=False, calibrate=False, **options)``; ``options`` may
    override both defaults.

    Tests whose expectations name records by their position in the frames pass ``row_order="as_given"``.
    """
    options.setdefault("progress", False)
    options.setdefault("calibrate", False)
    return Evaluation(real, synthetic, holdout, **options)
