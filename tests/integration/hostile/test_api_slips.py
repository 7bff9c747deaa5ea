"""Small slips of the Python API: a wrong type is an error naming the parameter, never read as something else.

Regressions (issue 23): ``records_at_risk(risk_percentile="5")`` was read as 5 and ``explain(True)`` as record 1.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthpriv_report import Evaluation


@pytest.fixture(scope="module")
def ev() -> Evaluation:
    rng = np.random.default_rng(11)

    def make(m: int) -> pd.DataFrame:
        return pd.DataFrame({"a": rng.normal(size=m), "c": rng.choice(list("xyz"), m)})

    T = make(80)
    e = Evaluation(T, pd.concat([T.iloc[:20], make(60)], ignore_index=True), make(80), metrics=["dcr", "nndr"],
                   progress=False, n_bootstrap=20, random_state=0)
    e.results()
    return e


@pytest.mark.parametrize("value, exc", [("5", TypeError), (True, TypeError), ([5], TypeError), (None, None),
                                        (0, ValueError), (100, ValueError), (float("nan"), ValueError)])
def test_records_at_risk_percentile_is_checked(ev: Evaluation, value: object, exc: type | None) -> None:
    if exc is None:
        assert isinstance(ev.records_at_risk(risk_percentile=value), pd.DataFrame)
        return
    with pytest.raises(exc, match="risk_percentile"):
        ev.records_at_risk(risk_percentile=value)


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_records_at_risk_reveal_is_a_boolean(ev: Evaluation, value: object) -> None:
    if value is None:
        ev.records_at_risk(reveal_real_values=value)
        return
    with pytest.raises(TypeError, match="reveal_real_values"):
        ev.records_at_risk(reveal_real_values=value)


@pytest.mark.parametrize("value, exc", [(True, TypeError), (False, TypeError), (np.bool_(True), TypeError),
                                        ("3", TypeError), (1.0, TypeError), (-1, ValueError), (80, ValueError)])
def test_explain_takes_an_integer_position(ev: Evaluation, value: object, exc: type) -> None:
    with pytest.raises(exc, match="real_index"):
        ev.explain(value)  # type: ignore[arg-type]


def test_explain_accepts_numpy_integers(ev: Evaluation) -> None:
    assert ev.explain(np.int64(3)).to_dict()
