"""Tests of synthpriv_report.analysis.utility: each expectation derived by hand on frames of 4 to 10 rows."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from synthpriv_report.analysis.utility import (
    association_difference,
    association_matrix,
    correlation_ratio,
    cramers_v,
    marginal_distance,
    marginal_distances,
    model_accuracy,
    quantile_bins,
    total_variation,
    tstr_accuracy,
)


def test_total_variation_by_hand() -> None:
    # shares (1/2, 1/2, 0) against (1/4, 1/4, 1/2): 1/2 (1/4 + 1/4 + 1/2) = 1/2
    assert total_variation(pd.Series({"a": 2, "b": 2}), pd.Series({"a": 1, "b": 1, "c": 2})) == 0.5
    assert total_variation(pd.Series({"a": 3}), pd.Series({"b": 5})) == 1.0


def test_numeric_columns_are_binned_on_the_real_quantiles() -> None:
    real = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]})
    # two bins: the real median 4.5 is the one edge; the real data put 4 and 4 records in them
    assert quantile_bins(real["x"], n_bins=2).tolist() == [4.5]
    # 7 synthetic records below 4.5, one (above the real range) in the last bin: 1/2 (|4/8 - 7/8| + |4/8 - 1/8|)
    syn = pd.DataFrame({"x": [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 99.0]})
    assert marginal_distances(real, syn, n_bins=2) == {"x": pytest.approx(0.375)}
    # a missing number is a bin of its own: real (4/8, 4/8, 0), synthetic (3/8, 4/8, 1/8) -> 1/2 (1/8 + 1/8)
    syn = pd.DataFrame({"x": [np.nan, 1.0, 1.0, 1.0, 5.0, 6.0, 7.0, 8.0]})
    assert marginal_distances(real, syn, n_bins=2)["x"] == pytest.approx(0.125)


def test_marginal_distance_averages_the_columns() -> None:
    real = pd.DataFrame({"c": ["a", "a", "b", "b"], "d": ["u", "v", "u", None]})
    syn = pd.DataFrame({"c": ["a", "b", "b", "b"], "d": ["u", "v", "u", None]})
    # c: (1/2, 1/2) against (1/4, 3/4): 1/4; d identical (the missing value a category): 0
    assert marginal_distance(real, syn) == pytest.approx(0.125)
    assert marginal_distances(real, syn.assign(d=["u", "v", "u", "v"]))["d"] == pytest.approx(0.25)


def test_cramers_v_by_hand() -> None:
    # table [[2, 0], [1, 1]] (rows a, b; columns u, v), n = 4, expected [[1.5, 0.5], [1.5, 0.5]]:
    # chi2 = 0.25/1.5 + 0.25/0.5 + 0.25/1.5 + 0.25/0.5 = 4/3; V = sqrt(4/3 / 4) = sqrt(1/3)
    assert cramers_v(["a", "a", "b", "b"], ["u", "u", "u", "v"]) == pytest.approx(math.sqrt(1 / 3))
    assert cramers_v(["a", "a", "a"], ["u", "v", "u"]) == 0.0


def test_correlation_ratio_by_hand() -> None:
    # values 1, 3 | 2, 6 (means 2 and 4, overall 3): between 2 (2-3)^2 + 2 (4-3)^2 = 4; total 4 + 0 + 1 + 9 = 14
    assert correlation_ratio(["a", "a", "b", "b"], [1.0, 3.0, 2.0, 6.0]) == pytest.approx(math.sqrt(4 / 14))
    # a missing number leaves its record out
    assert correlation_ratio(["a", "a", "b", "b", "b"], [1.0, 3.0, 2.0, 6.0, np.nan]) == pytest.approx(
        math.sqrt(4 / 14))


def test_association_matrix_uses_each_pair_kind() -> None:
    f = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": [1.0, 3.0, 2.0, 4.0], "c": ["a", "a", "b", "b"]})
    m = association_matrix(f)
    # Pearson: deviations (-1.5, -0.5, 0.5, 1.5) and (-1.5, 0.5, -0.5, 1.5): 4 / 5
    assert m.loc["x", "y"] == pytest.approx(0.8) and m.loc["y", "x"] == pytest.approx(0.8)
    # eta of x on c: means 1.5 and 3.5 around 2.5: between 4 x 1 = 4 of total 5
    assert m.loc["x", "c"] == pytest.approx(math.sqrt(4 / 5))
    assert m.loc["c", "c"] == 1.0


def test_association_difference_by_hand() -> None:
    real = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": [1.0, 3.0, 2.0, 4.0], "c": ["a", "a", "b", "b"]})
    syn = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": [4.0, 2.0, 3.0, 1.0], "c": ["a", "a", "b", "b"]})
    # pairs (x, y): 0.8 against -0.8; (x, c): the same; (y, c): eta of y on c, real means 2 and 3 around 2.5:
    # 4 x 0.25 = 1 of 5; synthetic means 3 and 2: the same 1 of 5. Mean |difference| = (1.6 + 0 + 0) / 3
    assert association_difference(real, syn) == pytest.approx(1.6 / 3)
    assert association_difference(real, real) == 0.0


def test_a_missing_column_is_named() -> None:
    real = pd.DataFrame({"x": [1.0, 2.0], "age": [3.0, 4.0]})
    with pytest.raises(ValueError, match="column 'age' is in the real data but not in the synthetic data"):
        marginal_distance(real, real[["x"]])
    with pytest.raises(ValueError, match="column 'z' is in the synthetic data but not in the real data"):
        association_difference(real, real.assign(z=1.0))


def _labelled(labels: list[str]) -> pd.DataFrame:
    n = len(labels)
    return pd.DataFrame({"x": np.arange(n, dtype=float), "c": ["u", "v"] * (n // 2) + ["u"] * (n % 2),
                         "y": labels})


@pytest.mark.slow  # about a second
def test_model_accuracy_by_hand() -> None:
    # fewer than 40 records: the model's leaves need 20 records each, so it cannot split and predicts the training
    # data's most frequent class ("a": 6 of 10) for every test record; 3 of the 4 test records are "a"
    train = _labelled(["a"] * 6 + ["b"] * 4)
    test = _labelled(["a", "a", "a", "b"])
    assert model_accuracy(train, test, target="y") == 0.75


def test_tstr_accuracy_by_hand() -> None:
    real = _labelled(["a"] * 6 + ["b"] * 4)  # predicts "a": 3 of 4 holdout records right
    syn = _labelled(["b"] * 7 + ["a"] * 3)  # predicts "b": 1 of 4
    holdout = _labelled(["a", "a", "a", "b"])
    assert tstr_accuracy(real, syn, holdout, target="y") == {"synthetic": 0.25, "real": 0.75, "gap": 0.5}
    with pytest.raises(ValueError, match="target column 'income' is not in the training data"):
        model_accuracy(real, holdout, target="income")
    with pytest.raises(ValueError, match="one value only"):
        model_accuracy(_labelled(["a"] * 4), holdout, target="y")
