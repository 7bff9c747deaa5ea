"""How useful a synthetic dataset is, beside how much it leaks: plain functions over data frames.

A privacy verdict says whether a release leaks the real records; it says nothing of whether the release is still
worth publishing. These three measures answer that second question, so that a data owner choosing between
releases sees both sides. None of them takes part in any privacy verdict.

- :func:`marginal_distance`: how far each column's distribution in the synthetic data is from the real one
  (total variation distance, averaged over the columns; 0 is identical, 1 is disjoint).
- :func:`association_difference`: how far the relationships between pairs of columns are from the real ones
  (mean absolute difference of the pairwise association matrices; 0 is identical).
- :func:`tstr_accuracy`: a model trained on the synthetic data and tested on real records it never saw, against
  the same model trained on the real data (higher is better; the gap is what the release costs a model).

Every function takes the two frames with the same columns, and optionally which columns are numeric (default:
the columns with a numeric type in the real frame). Missing values are kept: a missing category is a category of
its own, a missing number falls in a bin of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

__all__ = ["association_difference", "association_matrix", "correlation_ratio", "cramers_v", "marginal_distance",
           "marginal_distances", "model_accuracy", "quantile_bins", "total_variation", "tstr_accuracy",
           "utility_summary"]

#: Bins of a numeric column in :func:`marginal_distance`: the real data's deciles.
N_BINS = 10
_MISSING = "\x00missing"


def _numeric(real: pd.DataFrame, numeric: Sequence[str] | None) -> list[str]:
    if numeric is not None:
        return [c for c in real.columns if c in set(numeric)]
    return [c for c in real.columns if pd.api.types.is_numeric_dtype(real[c]) and not
            pd.api.types.is_bool_dtype(real[c])]


def _check_columns(real: pd.DataFrame, synthetic: pd.DataFrame) -> None:
    missing = [c for c in real.columns if c not in synthetic.columns]
    if missing:
        raise ValueError(f"column {missing[0]!r} is in the real data but not in the synthetic data")
    extra = [c for c in synthetic.columns if c not in real.columns]
    if extra:
        raise ValueError(f"column {extra[0]!r} is in the synthetic data but not in the real data")


def total_variation(p: pd.Series, q: pd.Series) -> float:
    """Total variation distance between two discrete distributions given as value counts (or shares).

    TV = 1/2 sum over values v of |p(v) - q(v)|, each side first divided by its total; a value missing on one
    side counts as 0 there. 0: the same distribution, 1: no value in common.

    Parameters
    ----------
    p, q : pandas.Series
        Counts (or shares) indexed by value.

    Returns
    -------
    float
        In [0, 1]; lower is closer.

    >>> total_variation(pd.Series({"a": 2, "b": 2}), pd.Series({"a": 3, "b": 1}))
    0.25
    """
    a = p.astype(float) / float(p.sum())
    b = q.astype(float) / float(q.sum())
    a, b = a.align(b, fill_value=0.0)
    return float(0.5 * np.abs(a - b).sum())


def quantile_bins(values: Any, n_bins: int = N_BINS) -> NDArray[np.float64]:
    """Inner edges of the real data's quantile bins of a numeric column: the distinct quantiles at 1/n_bins,
    2/n_bins, ..., (n_bins - 1)/n_bins of the non-missing values.

    A value ``x`` falls in bin ``searchsorted(edges, x, side="right")``: bin 0 holds the values up to the first
    edge (excluded), the last bin the values from the last edge on, so values outside the real range go to the end
    bins. Repeated quantiles (a column with many equal values) give one edge.

    >>> quantile_bins([1, 2, 3, 4], n_bins=2).tolist()
    [2.5]
    """
    v = np.asarray(values, dtype=np.float64)
    v = v[~np.isnan(v)]
    if v.size == 0:
        return np.zeros(0)
    return np.unique(np.quantile(v, np.arange(1, n_bins) / n_bins))


def _binned(values: pd.Series, edges: NDArray[np.float64]) -> pd.Series:
    v = values.to_numpy(dtype=np.float64, na_value=np.nan)
    idx = np.searchsorted(edges, v, side="right").astype(object)
    idx[np.isnan(v)] = _MISSING
    return pd.Series(idx)


def _as_category(values: pd.Series) -> pd.Series:
    return values.astype(object).where(values.notna(), _MISSING).astype(str)


def marginal_distances(real: pd.DataFrame, synthetic: pd.DataFrame, *, numeric: Sequence[str] | None = None,
                       n_bins: int = N_BINS) -> dict[str, float]:
    """Total variation distance between the real and the synthetic distribution of each column.

    A categorical column compares category shares (a missing value is a category of its own). A numeric column is
    first cut into the real data's quantile bins (:func:`quantile_bins`, deciles by default; the same edges for
    both sets, a missing value in a bin of its own), then compares bin shares.

    Parameters
    ----------
    real, synthetic : pandas.DataFrame
        The same columns.
    numeric : sequence of str, optional
        The numeric columns (default: those with a numeric type in ``real``).
    n_bins : int, default 10
        Quantile bins of a numeric column.

    Returns
    -------
    dict
        Column -> distance in [0, 1] (0: the same distribution).

    >>> r = pd.DataFrame({"c": ["a", "a", "b", "b"]})
    >>> marginal_distances(r, pd.DataFrame({"c": ["a", "a", "a", "b"]}))
    {'c': 0.25}
    """
    _check_columns(real, synthetic)
    num = set(_numeric(real, numeric))
    out = {}
    for c in real.columns:
        if c in num:
            edges = quantile_bins(real[c], n_bins)
            a, b = _binned(real[c], edges), _binned(synthetic[c], edges)
        else:
            a, b = _as_category(real[c]), _as_category(synthetic[c])
        out[str(c)] = total_variation(a.value_counts(), b.value_counts())
    return out


def marginal_distance(real: pd.DataFrame, synthetic: pd.DataFrame, *, numeric: Sequence[str] | None = None,
                      n_bins: int = N_BINS) -> float:
    """Mean over the columns of :func:`marginal_distances`: how far the synthetic columns' distributions are from
    the real ones, one column at a time.

    Returns
    -------
    float
        In [0, 1]; lower is closer, 0 is best (every column distributed as in the real data).

    >>> r = pd.DataFrame({"c": ["a", "a", "b", "b"], "x": [1.0, 2.0, 3.0, 4.0]})
    >>> s = pd.DataFrame({"c": ["a", "a", "a", "b"], "x": [1.0, 2.0, 3.0, 4.0]})
    >>> marginal_distance(r, s)
    0.125
    """
    d = marginal_distances(real, synthetic, numeric=numeric, n_bins=n_bins)
    return float(np.mean(list(d.values()))) if d else float("nan")


def cramers_v(x: Any, y: Any) -> float:
    """Cramér's V between two categorical columns (without bias correction; a missing value is a category).

    V = sqrt(chi2 / (n (min(r, c) - 1))) from the r x c contingency table; 0 when either column has one category.

    >>> cramers_v(["a", "a", "b", "b"], ["u", "u", "v", "v"]), cramers_v(["a", "a", "b", "b"], ["u", "v", "u", "v"])
    (1.0, 0.0)
    """
    a, b = _as_category(pd.Series(list(x))), _as_category(pd.Series(list(y)))
    table = pd.crosstab(a, b).to_numpy(dtype=np.float64)
    n = table.sum()
    r, c = table.shape
    if n == 0 or min(r, c) < 2:
        return 0.0
    expected = table.sum(axis=1, keepdims=True) * table.sum(axis=0, keepdims=True) / n
    chi2 = float(((table - expected) ** 2 / expected).sum())
    return float(min(1.0, np.sqrt(chi2 / (n * (min(r, c) - 1)))))


def correlation_ratio(categories: Any, values: Any) -> float:
    """Correlation ratio (eta) of a numeric column on a categorical one: how much of the numbers' spread lies
    between the categories' means.

    eta = sqrt(sum over categories of n_c (mean_c - mean)^2 / sum over records of (x - mean)^2), over the records
    whose number is not missing (a missing category is a category); 0 when the numbers are constant.

    >>> correlation_ratio(["a", "a", "b", "b"], [1.0, 1.0, 3.0, 3.0]), correlation_ratio(["a", "b"], [2.0, 2.0])
    (1.0, 0.0)
    """
    v = pd.Series(np.asarray(values, dtype=np.float64))
    g = _as_category(pd.Series(list(categories)))
    keep = v.notna().to_numpy()
    v, g = v[keep], g[keep]
    total = float(((v - v.mean()) ** 2).sum())
    if v.size == 0 or total == 0.0:
        return 0.0
    grouped = v.groupby(g.to_numpy())
    between = float((grouped.count() * (grouped.mean() - v.mean()) ** 2).sum())
    return float(min(1.0, np.sqrt(between / total)))


def _pearson(x: pd.Series, y: pd.Series) -> float:
    a = x.to_numpy(dtype=np.float64, na_value=np.nan)
    b = y.to_numpy(dtype=np.float64, na_value=np.nan)
    keep = ~(np.isnan(a) | np.isnan(b))
    a, b = a[keep], b[keep]
    if a.size < 2:
        return 0.0
    a, b = a - a.mean(), b - b.mean()
    den = float(np.sqrt((a * a).sum() * (b * b).sum()))
    return 0.0 if den == 0.0 else float((a * b).sum() / den)


def association_matrix(frame: pd.DataFrame, *, numeric: Sequence[str] | None = None) -> pd.DataFrame:
    """Association between every pair of columns of one frame: Pearson's r for two numeric columns (over the
    records where both are present), Cramér's V for two categorical ones (:func:`cramers_v`), the correlation
    ratio for a numeric and a categorical one (:func:`correlation_ratio`). An association that cannot be measured
    (a constant column) is 0. The diagonal is 1.

    Returns
    -------
    pandas.DataFrame
        Square, symmetric, indexed by the columns; Pearson's r in [-1, 1], the others in [0, 1].

    >>> m = association_matrix(pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": [2.0, 4.0, 6.0, 8.0]}))
    >>> float(m.loc["x", "y"])
    1.0
    """
    num = set(_numeric(frame, numeric))
    cols = list(frame.columns)
    out = pd.DataFrame(np.eye(len(cols)), index=cols, columns=cols)
    for i, a in enumerate(cols):
        for b in cols[i + 1:]:
            if a in num and b in num:
                v = _pearson(frame[a], frame[b])
            elif a in num:
                v = correlation_ratio(frame[b], frame[a])
            elif b in num:
                v = correlation_ratio(frame[a], frame[b])
            else:
                v = cramers_v(frame[a], frame[b])
            out.loc[a, b] = out.loc[b, a] = v
    return out


def association_difference(real: pd.DataFrame, synthetic: pd.DataFrame, *,
                           numeric: Sequence[str] | None = None,
                           real_associations: pd.DataFrame | None = None) -> float:
    """Mean absolute difference between the real and the synthetic :func:`association_matrix`, over the pairs of
    distinct columns: how far the relationships between columns are from the real ones.

    ``real_associations``, where given, is ``association_matrix(real, numeric=numeric)`` made once beforehand
    (several releases compared with the same real data).

    Returns
    -------
    float
        0 is best (every pair associated as in the real data); at most 2 (Pearson's r turned around), at most 1
        for the other kinds of pair. NaN with fewer than two columns.

    >>> r = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": [1.0, 2.0, 3.0, 4.0]})
    >>> association_difference(r, pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": [4.0, 3.0, 2.0, 1.0]}))
    2.0
    """
    _check_columns(real, synthetic)
    num = _numeric(real, numeric)
    a = (association_matrix(real, numeric=num) if real_associations is None else real_associations).to_numpy()
    b = association_matrix(synthetic[list(real.columns)], numeric=num).to_numpy()
    upper = np.triu_indices(a.shape[0], k=1)
    if upper[0].size == 0:
        return float("nan")
    return float(np.mean(np.abs(a[upper] - b[upper])))


def _features(frames: Sequence[pd.DataFrame], columns: Sequence[str], num: set[str]
              ) -> tuple[list[NDArray[np.float64]], list[bool]]:
    """Each frame's feature matrix: numbers as they are, categories as codes over the union of the frames' values
    (missing: NaN), with the mask of the categorical features."""
    mats = [np.empty((len(f), len(columns))) for f in frames]
    mask = []
    for j, c in enumerate(columns):
        if c in num:
            for m, f in zip(mats, frames):
                m[:, j] = f[c].to_numpy(dtype=np.float64, na_value=np.nan)
            mask.append(False)
            continue
        texts = [f[c].astype(object).where(f[c].notna(), None) for f in frames]
        levels = sorted({str(v) for t in texts for v in t if v is not None})
        lookup = {v: float(i) for i, v in enumerate(levels)}
        for m, t in zip(mats, texts):
            m[:, j] = [np.nan if v is None else lookup[str(v)] for v in t]
        mask.append(len(levels) <= 250)  # the model's categorical features hold at most 255 values
    return mats, mask


def model_accuracy(train: pd.DataFrame, test: pd.DataFrame, *, target: str, numeric: Sequence[str] | None = None,
                   random_state: int = 0) -> float:
    """Accuracy on ``test`` of a classifier of ``target`` trained on ``train``.

    The model is scikit-learn's ``HistGradientBoostingClassifier(random_state=random_state,
    early_stopping=False)`` with its other settings at their defaults; every other column is a feature, numbers as
    they are and categories as categorical features, coded over the categories of both frames (a column of more
    than 250 categories as its codes' order). Records whose ``target`` is missing are left out of both.

    Parameters
    ----------
    train, test : pandas.DataFrame
        The same columns, ``target`` among them.
    target : str
        The column to predict (its values compared as text).
    numeric : sequence of str, optional
        The numeric columns (default: those with a numeric type in ``train``).
    random_state : int, default 0
        The model's seed.

    Returns
    -------
    float
        Share of the test records whose ``target`` is predicted right, in [0, 1]; higher is better.
    """
    from sklearn.ensemble import HistGradientBoostingClassifier

    for name, f in (("training", train), ("test", test)):
        if target not in f.columns:
            raise ValueError(f"the target column {target!r} is not in the {name} data")
    _check_columns(train, test)
    num = set(_numeric(train, numeric)) - {target}
    features = [c for c in train.columns if c != target]
    frames = [f[f[target].notna()] for f in (train, test)]
    (x_train, x_test), mask = _features(frames, features, num)
    y_train, y_test = (f[target].astype(str).to_numpy() for f in frames)
    if np.unique(y_train).size < 2:
        raise ValueError(f"the target column {target!r} has one value only in the training data: no classifier "
                         "can be trained on it")
    model = HistGradientBoostingClassifier(random_state=random_state, early_stopping=False,
                                           categorical_features=np.asarray(mask, dtype=bool) if any(mask) else None)
    model.fit(x_train, y_train)
    return float(np.mean(model.predict(x_test) == y_test))


def tstr_accuracy(real: pd.DataFrame, synthetic: pd.DataFrame, holdout: pd.DataFrame, *, target: str,
                  numeric: Sequence[str] | None = None, random_state: int = 0) -> dict[str, float]:
    """Train on synthetic, test on real: the accuracy on the holdout (real records neither model saw) of a
    classifier of ``target`` trained on the synthetic data, beside the same classifier trained on the real data
    (:func:`model_accuracy` for both).

    Parameters
    ----------
    real, synthetic, holdout : pandas.DataFrame
        The same columns, ``target`` among them.
    target : str
        The column to predict.
    numeric : sequence of str, optional
        The numeric columns (default: those with a numeric type in ``real``).
    random_state : int, default 0
        The models' seed.

    Returns
    -------
    dict
        ``synthetic``: accuracy of the model trained on the synthetic data; ``real``: of the model trained on the
        real data; ``gap``: ``real - synthetic`` (0 is best: the release costs the model nothing). Accuracies are
        in [0, 1], higher is better.
    """
    _check_columns(real, synthetic)
    num = _numeric(real, numeric)
    on_syn = model_accuracy(synthetic[list(real.columns)], holdout, target=target, numeric=num,
                            random_state=random_state)
    on_real = model_accuracy(real, holdout, target=target, numeric=num, random_state=random_state)
    return {"synthetic": on_syn, "real": on_real, "gap": on_real - on_syn}


def utility_summary(real: pd.DataFrame, synthetic: pd.DataFrame, holdout: pd.DataFrame | None = None, *,
                    target: str | None = None, numeric: Sequence[str] | None = None,
                    random_state: int = 0) -> dict[str, Any]:
    """The three utility measures of one release in one JSON-ready dictionary.

    Returns
    -------
    dict
        ``marginal_distance`` and ``association_difference`` (floats, lower is better); with ``target`` and a
        holdout, ``tstr`` (:func:`tstr_accuracy`), else ``tstr`` is None and ``tstr_reason`` says why.
    """
    out: dict[str, Any] = {
        "marginal_distance": marginal_distance(real, synthetic, numeric=numeric),
        "association_difference": association_difference(real, synthetic, numeric=numeric),
        "tstr": None,
    }
    if target is None:
        out["tstr_reason"] = "no target column was named (target=)"
    elif holdout is None:
        out["tstr_reason"] = "no holdout to test the models on"
    else:
        out["tstr"] = tstr_accuracy(real, synthetic, holdout, target=target, numeric=numeric,
                                    random_state=random_state)
    return out
