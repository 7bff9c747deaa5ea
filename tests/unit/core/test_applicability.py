"""The continuous-column note of the metrics that match on every analysed column names those columns as columns,
not as key fields (issue 28: a "continuous key field" warning about a column that is not a key field)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from synthpriv_report import Evaluation


def test_a_column_that_is_not_a_key_field_is_not_called_one() -> None:
    rng = np.random.default_rng(0)
    n = 300
    frame = pd.DataFrame({"income": rng.normal(50_000, 9_000, n).round(2), "sex": rng.choice(["F", "M"], n),
                          "job": rng.choice(list("abcd"), n)})
    ev = Evaluation(frame, frame.sample(frac=1.0, random_state=1).reset_index(drop=True), key_fields=["sex"],
                    sensitive_fields=["job"], metrics=["crp"], progress=False, calibrate=False)
    notes = " ".join(ev.results()["crp"].notes)
    assert "continuous column(s) income" in notes and "every analysed column" in notes
    assert "key field" not in notes
