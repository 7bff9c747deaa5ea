"""Tests of synthpriv_report.metrics.distinguishability.mlp: the compiled D-MLP network reproduces
scikit-learn's MLPClassifier."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from synthpriv_report.metrics.distinguishability.mlp import MLP_SETTINGS, fit_mlp, sparse_rows


def _problem(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Mixed features like the embedding: 3 numeric columns and a one-hot block of 4 levels."""
    rng = np.random.default_rng(seed)
    X = np.c_[rng.normal(size=(n, 3)), np.eye(4)[rng.integers(0, 4, n)]]
    y = (X[:, 0] + 0.5 * X[:, 3] + rng.normal(scale=1.0, size=n) > 0).astype(np.int64)
    return X, y


def _sklearn(X: np.ndarray, y: np.ndarray, seed: int):
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPClassifier

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return MLPClassifier(hidden_layer_sizes=(100, 50), max_iter=300, early_stopping=True,
                             validation_fraction=0.1, random_state=seed).fit(X, y)


@pytest.mark.slow  # trains scikit-learn's MLP beside ours
@pytest.mark.parametrize("seed", [0, 3])
def test_float64_run_is_scikit_learns(seed):
    # same random draws, same steps: in float64 the probabilities agree to rounding error and training stops at
    # the same epoch with the same best validation accuracy
    X, y = _problem(400, seed)
    net = fit_mlp(sparse_rows(X, dtype=np.float64), y, random_state=seed)
    clf = _sklearn(X, y, seed)
    assert net.n_iter == clf.n_iter_
    assert net.best_validation_score == clf.best_validation_score_
    np.testing.assert_allclose(net.predict_proba(sparse_rows(X, dtype=np.float64)), clf.predict_proba(X)[:, 1],
                               rtol=0, atol=1e-9)


@pytest.mark.slow  # about half a second
def test_training_rows_subset_equals_fitting_the_subset():
    # fitting on rows of a larger matrix is fitting those rows alone (what each fold does)
    X, y = _problem(300, 5)
    rows = np.flatnonzero(np.arange(300) % 3 != 0)
    a = fit_mlp(sparse_rows(X, dtype=np.float64), y, rows, random_state=1)
    b = fit_mlp(sparse_rows(X[rows], dtype=np.float64), y[rows], random_state=1)
    np.testing.assert_array_equal(a.theta, b.theta)


@pytest.mark.slow  # about 2 s
def test_float32_close_to_scikit_learn():
    X, y = _problem(400, 0)
    net = fit_mlp(sparse_rows(X), y, random_state=0)
    assert net.theta.dtype == np.float32
    p = net.predict_proba(sparse_rows(X))
    q = _sklearn(X, y, 0).predict_proba(X)[:, 1]
    # float32 rounding only (the run stops at the same epoch here); far below any difference an AUC would show
    assert np.abs(p - q).max() < 1e-3


def test_settings_are_the_spec_and_scikit_learn_defaults():
    from sklearn.neural_network import MLPClassifier

    d = MLPClassifier().get_params()
    for key in ("alpha", "learning_rate_init", "beta_1", "beta_2", "epsilon", "tol", "n_iter_no_change"):
        assert MLP_SETTINGS[key] == d[key], key
    assert d["batch_size"] == "auto" and MLP_SETTINGS["batch_size"] == 200  # 'auto' is min(200, n)
    assert d["activation"] == "relu" and d["solver"] == "adam" and d["shuffle"] is True
    assert MLP_SETTINGS["hidden_layer_sizes"] == (100, 50) and MLP_SETTINGS["max_iter"] == 300
    assert MLP_SETTINGS["early_stopping"] is True and MLP_SETTINGS["validation_fraction"] == 0.1


def test_bad_input():
    X, y = _problem(50, 0)
    with pytest.raises(ValueError, match="non-finite"):
        sparse_rows(np.array([[0.0, np.inf]]))
    with pytest.raises(ValueError, match="2-D"):
        sparse_rows(np.zeros(3))
    with pytest.raises(ValueError, match="both classes"):
        fit_mlp(sparse_rows(X), np.ones(50, dtype=np.int64), random_state=0)
    net = fit_mlp(sparse_rows(X), y, random_state=0)
    with pytest.raises(ValueError, match="features"):
        net.predict_proba(sparse_rows(X[:, :3]))
