"""The D-MLP classifier, run fast: scikit-learn's ``MLPClassifier`` training algorithm, compiled with numba.

D-MLP (docs/metrics.md) is defined by ``MLPClassifier(hidden_layer_sizes=(100, 50), max_iter=300,
early_stopping=True, validation_fraction=0.1, random_state)`` with every other setting at scikit-learn's default.
This module runs *that* algorithm, step for step, on the same random draws; only how it is executed changes:

* **Same random draws.** ``check_random_state(random_state)`` gives one ``RandomState`` per fit; it draws the
  Glorot-uniform weights layer by layer (coefficients, then intercepts, bound ``sqrt(6 / (fan_in + fan_out))``),
  then the stratified 10% validation split (scikit-learn's own ``train_test_split`` on the same labels), then one
  shuffle of the training positions per epoch (scikit-learn's own ``shuffle``), exactly as ``MLPClassifier``
  does.
* **Same optimisation.** ReLU hidden layers, logistic output, binary log loss with L2 penalty ``alpha = 1e-4``
  divided by the batch size, mini-batches of ``min(200, n)`` in shuffled order (the last one smaller), Adam with
  ``learning_rate_init = 1e-3``, ``beta_1 = 0.9``, ``beta_2 = 0.999``, ``epsilon = 1e-8`` and the bias-corrected
  step size. After each epoch the accuracy on the validation part (class 1 when the probability exceeds 0.5) is
  compared with the best so far: an epoch counts as *no improvement* when it does not beat the best by
  ``tol = 1e-4``; training stops when more than ``n_iter_no_change = 10`` epochs in a row count so, or after
  ``max_iter = 300`` epochs, and the weights of the best validation accuracy are restored.
* **How it runs** (the speed): float32 arithmetic (what scikit-learn itself does with float32 input), the first
  layer and its gradient computed from the nonzero entries of each row only (the one-hot embedding is mostly
  zeros; the products skipped are exact zeros), four entries per pass over a row of activations or gradients, one
  compiled function per epoch instead of some fifty NumPy calls per mini-batch, no buffer allocated per
  mini-batch, the gradient's penalty and mean taken inside the Adam pass, the training loss (which early stopping
  on the validation score never reads) not computed, and the folds of
  :func:`~synthpriv_report.metrics.distinguishability.review_classifier.detection_auc` trained in parallel threads.

With ``dtype=numpy.float64`` the fitted probabilities equal scikit-learn's to rounding error (the tests compare
them); float32 changes the last digits of the weights, which may move an early-stopping decision by an epoch, so
fold AUCs agree with scikit-learn's to well within their fold-to-fold spread (``benchmarks/bench_metrics.py``
prints both).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..._compiled import COMPILED, njit

#: scikit-learn's ``MLPClassifier`` settings that D-MLP uses (docs/metrics.md, "detection_mlp", plus scikit-learn's
#: defaults).
MLP_SETTINGS: dict[str, Any] = {
    "hidden_layer_sizes": (100, 50),
    "max_iter": 300,
    "early_stopping": True,
    "validation_fraction": 0.1,
    "alpha": 1e-4,
    "batch_size": 200,
    "learning_rate_init": 1e-3,
    "beta_1": 0.9,
    "beta_2": 0.999,
    "epsilon": 1e-8,
    "tol": 1e-4,
    "n_iter_no_change": 10,
}


#: LLVM may reorder sums and contract multiply-adds (so loops vectorise); no assumption about NaN or infinity.
_FASTMATH = {"reassoc", "contract", "arcp", "nsz"}

# ---------------------------------------------------------------------------------------------------------------
# compiled kernels (the parameters live in one flat vector; views give the layers)


@njit(cache=True, nogil=True, error_model="numpy", fastmath=_FASTMATH)
def _views(theta, p, h1, h2):  # pragma: no cover - compiled
    o = 0
    W1 = theta[o:o + p * h1].reshape((p, h1))
    o += p * h1
    b1 = theta[o:o + h1]
    o += h1
    W2 = theta[o:o + h1 * h2].reshape((h1, h2))
    o += h1 * h2
    b2 = theta[o:o + h2]
    o += h2
    W3 = theta[o:o + h2]
    o += h2
    b3 = theta[o:o + 1]
    return W1, b1, W2, b2, W3, b3


@njit(cache=True, nogil=True, error_model="numpy", fastmath=_FASTMATH)
def _cast(theta, x):  # pragma: no cover - compiled
    """``x`` as a scalar of the parameters' dtype (keeps float32 arithmetic in float32)."""
    tmp = np.empty(1, dtype=theta.dtype)
    tmp[0] = x
    return tmp[0]


@njit(cache=True, nogil=True, error_model="numpy", fastmath=_FASTMATH, inline="always")
def _add_rows(dst, d, src, idx, val, q, end):  # pragma: no cover - compiled
    """``dst[d] += val[t] * src[idx[t]]`` for t in ``[q, end)``, four rows of ``src`` per pass over ``dst[d]`` (so
    ``dst[d]`` is read and written a quarter as often; the sum's order is a rounding matter, as in any product)."""
    width = dst.shape[1]
    while q + 4 <= end:
        s0, s1, s2, s3 = idx[q], idx[q + 1], idx[q + 2], idx[q + 3]
        v0, v1, v2, v3 = val[q], val[q + 1], val[q + 2], val[q + 3]
        for a in range(width):
            dst[d, a] += (v0 * src[s0, a] + v1 * src[s1, a]) + (v2 * src[s2, a] + v3 * src[s3, a])
        q += 4
    while q < end:
        s0 = idx[q]
        v0 = val[q]
        for a in range(width):
            dst[d, a] += v0 * src[s0, a]
        q += 1


@njit(cache=True, nogil=True, error_model="numpy", fastmath=_FASTMATH)
def _layer1(rows, indptr, indices, vals, W1, b1, A1):  # pragma: no cover - compiled
    """ReLU(X[rows] @ W1 + b1) into A1, from the nonzero entries of each row (:func:`_add_rows`)."""
    h1 = b1.size
    for i in range(rows.size):
        r = rows[i]
        for a in range(h1):
            A1[i, a] = b1[a]
        _add_rows(A1, i, W1, indices, vals, indptr[r], indptr[r + 1])
        for a in range(h1):
            if A1[i, a] < 0:
                A1[i, a] = 0


@njit(cache=True, nogil=True, error_model="numpy", fastmath=_FASTMATH)
def _head(A1, W2, b2, W3, b3, A2, out):  # pragma: no cover - compiled
    """Second hidden layer (into ``A2``) and the logistic output (into ``out``)."""
    np.dot(A1, W2, A2)
    n, h2 = A2.shape
    for i in range(n):
        z = b3[0]
        for j in range(h2):
            v = A2[i, j] + b2[j]
            v = v if v > 0 else 0
            A2[i, j] = v
            z += v * W3[j]
        out[i] = 1.0 / (1.0 + math.exp(-z))


@njit(cache=True, nogil=True, error_model="numpy", fastmath=_FASTMATH)
def _layer1_grad(rows, indptr, indices, vals, D1, gW1, start, pos, brow, bval):  # pragma: no cover - compiled
    """Add ``X[rows].T @ D1`` to ``gW1`` from the nonzero entries of the rows.

    The batch's entries are first grouped by feature (a counting sort into ``brow``/``bval``, with ``start`` and
    ``pos`` as work space of ``p + 1`` integers), then each feature's gradient row takes its records
    (:func:`_add_rows`).
    """
    p = gW1.shape[0]
    start[:] = 0
    for i in range(rows.size):
        r = rows[i]
        for q in range(indptr[r], indptr[r + 1]):
            start[indices[q] + 1] += 1
    for c in range(p):
        start[c + 1] += start[c]
    pos[:] = start
    for i in range(rows.size):
        r = rows[i]
        for q in range(indptr[r], indptr[r + 1]):
            c = indices[q]
            brow[pos[c]] = i
            bval[pos[c]] = vals[q]
            pos[c] += 1
    for c in range(p):
        _add_rows(gW1, c, D1, brow, bval, start[c], start[c + 1])


@njit(cache=True, nogil=True, error_model="numpy", fastmath=_FASTMATH)
def _epoch(indptr, indices, vals, y, order, theta, grad, decay, m, v, t, p, h1, h2, batch, lr0, beta1, beta2,
           eps):  # pragma: no cover - compiled
    """One epoch of mini-batch Adam over the rows ``order`` (already shuffled); returns the new step count.

    ``grad`` holds zeros on entry and on return: each mini-batch sums its raw gradients into it, and the Adam pass
    turns them into the penalised mean gradient (``(sum + decay * theta) / batch``, ``decay`` being ``alpha`` on
    the weights and 0 on the intercepts, as scikit-learn's ``_compute_loss_grad``), steps, and clears them.
    """
    n = order.size
    one = _cast(theta, 1.0)
    W1, b1, W2, b2, W3, b3 = _views(theta, p, h1, h2)
    gW1, gb1, gW2, gb2, gW3, gb3 = _views(grad, p, h1, h2)
    A1full = np.empty((batch, h1), dtype=theta.dtype)
    A2full = np.empty((batch, h2), dtype=theta.dtype)
    outfull = np.empty(batch, dtype=theta.dtype)
    D2full = np.empty((batch, h2), dtype=theta.dtype)
    D1full = np.empty((batch, h1), dtype=theta.dtype)
    D3 = np.empty(batch, dtype=theta.dtype)
    nnz = 0
    for i in range(n):
        nnz = max(nnz, indptr[order[i] + 1] - indptr[order[i]])
    start = np.empty(p + 1, dtype=np.int64)
    pos = np.empty(p + 1, dtype=np.int64)
    brow = np.empty(nnz * batch, dtype=np.int64)
    bval = np.empty(nnz * batch, dtype=theta.dtype)
    c1 = _cast(theta, beta1)
    c2 = _cast(theta, beta2)
    e = _cast(theta, eps)
    for begin in range(0, n, batch):
        stop = min(begin + batch, n)
        nb = stop - begin
        rows = order[begin:stop]
        A1 = A1full[:nb]
        A2 = A2full[:nb]
        out = outfull[:nb]
        _layer1(rows, indptr, indices, vals, W1, b1, A1)
        _head(A1, W2, b2, W3, b3, A2, out)
        # output layer: delta = p - y (logistic output with binary log loss)
        for i in range(nb):
            d = out[i] - y[rows[i]]
            D3[i] = d
            gb3[0] += d
            for j in range(h2):
                gW3[j] += A2[i, j] * d
        # second hidden layer (ReLU derivative: zero where the activation is zero)
        D2 = D2full[:nb]
        for i in range(nb):
            for j in range(h2):
                d2 = D3[i] * W3[j]
                if A2[i, j] == 0:
                    d2 = 0
                D2[i, j] = d2
                gb2[j] += d2
        np.dot(A1.T, D2, gW2)
        # first hidden layer
        D1 = D1full[:nb]
        np.dot(D2, W2.T, D1)
        for i in range(nb):
            for a in range(h1):
                if A1[i, a] == 0:
                    D1[i, a] = 0
                gb1[a] += D1[i, a]
        _layer1_grad(rows, indptr, indices, vals, D1, gW1, start, pos, brow, bval)
        # Adam (scikit-learn's AdamOptimizer: moments, then the bias-corrected step), with the gradient's penalty
        # and mean taken on the way and the sums cleared for the next mini-batch
        t += 1
        lr = _cast(theta, lr0 * math.sqrt(1.0 - beta2 ** t) / (1.0 - beta1 ** t))
        inv = _cast(theta, 1.0 / nb)
        for k in range(theta.size):
            th = theta[k]
            g = (grad[k] + decay[k] * th) * inv
            grad[k] = 0
            mk = c1 * m[k] + (one - c1) * g
            vk = c2 * v[k] + (one - c2) * (g * g)
            m[k] = mk
            v[k] = vk
            theta[k] = th - lr * mk / (np.sqrt(vk) + e)
    return t


@njit(cache=True, nogil=True, error_model="numpy", fastmath=_FASTMATH)
def _proba(indptr, indices, vals, rows, theta, p, h1, h2):  # pragma: no cover - compiled
    W1, b1, W2, b2, W3, b3 = _views(theta, p, h1, h2)
    A1 = np.empty((rows.size, h1), dtype=theta.dtype)
    A2 = np.empty((rows.size, h2), dtype=theta.dtype)
    out = np.empty(rows.size, dtype=theta.dtype)
    _layer1(rows, indptr, indices, vals, W1, b1, A1)
    _head(A1, W2, b2, W3, b3, A2, out)
    return out


# ---------------------------------------------------------------------------------------------------------------
# the same training in NumPy, where numba is absent (:mod:`synthpriv_report._compiled`)


def _dense_rows(indptr: NDArray[np.int64], indices: NDArray[np.int64], vals: NDArray[Any], p: int) -> NDArray[Any]:
    """The dense matrix of sparse rows (the NumPy path multiplies whole mini-batches)."""
    n = indptr.size - 1
    X = np.zeros((n, p), dtype=vals.dtype)
    X[np.repeat(np.arange(n), np.diff(indptr)), indices] = vals
    return X


def _logistic(z: NDArray[Any]) -> NDArray[Any]:
    """``1 / (1 + exp(-z))`` in float64 (as the compiled kernel's ``math.exp``), stored in ``z``'s dtype."""
    return (1.0 / (1.0 + np.exp(-z.astype(np.float64)))).astype(z.dtype)


def _forward_numpy(X: NDArray[Any], theta: NDArray[Any], p: int, h1: int,
                   h2: int) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
    W1, b1, W2, b2, W3, b3 = _views(theta, p, h1, h2)
    A1 = np.maximum(X @ W1 + b1, 0)
    A2 = np.maximum(A1 @ W2 + b2, 0)
    return A1, A2, _logistic(A2 @ W3 + b3[0])


def _epoch_numpy(X: NDArray[Any], y: NDArray[Any], order: NDArray[np.int64], theta: NDArray[Any],
                 decay: NDArray[Any], m: NDArray[Any], v: NDArray[Any], t: int, p: int, h1: int, h2: int, batch: int,
                 lr0: float, beta1: float, beta2: float, eps: float) -> int:
    """:func:`_epoch` by whole-batch NumPy products on the dense rows ``X``: the same algorithm and Adam steps;
    the sums run in another order than the compiled kernel's, so the float32 weights differ in their last bits."""
    W1, b1, W2, b2, W3, b3 = _views(theta, p, h1, h2)
    dt = theta.dtype.type
    c1, c2, e = dt(beta1), dt(beta2), dt(eps)
    one = dt(1.0)
    for begin in range(0, order.size, batch):
        rows = order[begin:begin + batch]
        nb = rows.size
        Xb = X[rows]
        A1, A2, out = _forward_numpy(Xb, theta, p, h1, h2)
        D3 = out - y[rows]
        D2 = np.where(A2 == 0, dt(0), np.outer(D3, W3))
        D1 = D2 @ W2.T
        D1[A1 == 0] = 0
        grad = np.concatenate([(Xb.T @ D1).ravel(), D1.sum(axis=0), (A1.T @ D2).ravel(), D2.sum(axis=0),
                               A2.T @ D3, np.array([D3.sum()], dtype=theta.dtype)])
        t += 1
        lr = dt(lr0 * math.sqrt(1.0 - beta2 ** t) / (1.0 - beta1 ** t))
        g = (grad + decay * theta) * dt(1.0 / nb)
        m[:] = c1 * m + (one - c1) * g
        v[:] = c2 * v + (one - c2) * (g * g)
        theta -= lr * m / (np.sqrt(v) + e)
    return t


# ---------------------------------------------------------------------------------------------------------------
# Python side


@dataclass(frozen=True)
class SparseRows:
    """Rows of a dense matrix stored by their nonzero entries (CSR); built once and shared by every fold."""

    indptr: NDArray[np.int64]
    indices: NDArray[np.int64]
    values: NDArray[Any]
    n_features: int

    @property
    def n_rows(self) -> int:
        return int(self.indptr.size - 1)


def sparse_rows(X: ArrayLike, *, dtype: Any = np.float32) -> SparseRows:
    """The nonzero entries of each row of ``X`` (shape ``(n, p)``) in ``dtype``.

    >>> s = sparse_rows(np.array([[0.0, 2.0], [1.0, 0.0]]))
    >>> s.indptr.tolist(), s.indices.tolist(), s.values.tolist()
    ([0, 1, 2], [1, 0], [2.0, 1.0])
    """
    X = np.asarray(X, dtype=dtype)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-D array, got shape {X.shape}")
    if not np.isfinite(X).all():
        raise ValueError("X holds a non-finite value; the classifier needs finite features")
    nz = X != 0
    indptr = np.zeros(X.shape[0] + 1, dtype=np.int64)
    np.cumsum(nz.sum(axis=1), out=indptr[1:])
    rr, cc = np.nonzero(nz)
    return SparseRows(indptr, cc.astype(np.int64), np.ascontiguousarray(X[rr, cc]), int(X.shape[1]))


@dataclass(frozen=True)
class FittedMLP:
    """Weights of a fitted network (one flat vector) and how its training went."""

    theta: NDArray[Any]
    n_features: int
    hidden: tuple[int, int]
    n_iter: int
    best_validation_score: float

    def predict_proba(self, X: SparseRows, rows: NDArray[np.int64] | None = None) -> NDArray[np.float64]:
        """Probability of class 1 for ``rows`` of ``X`` (default all rows)."""
        if X.n_features != self.n_features:
            raise ValueError(f"X has {X.n_features} features, the network was fitted on {self.n_features}")
        r = np.arange(X.n_rows, dtype=np.int64) if rows is None else np.asarray(rows, dtype=np.int64)
        vals = X.values.astype(self.theta.dtype, copy=False)
        if not COMPILED:
            dense = _dense_rows(X.indptr, X.indices, vals, X.n_features)[r]
            return _forward_numpy(dense, self.theta, self.n_features, *self.hidden)[2].astype(np.float64)
        out: NDArray[Any] = _proba(X.indptr, X.indices, vals, r, self.theta, self.n_features, *self.hidden)
        return out.astype(np.float64)


def fit_mlp(X: SparseRows, y: ArrayLike, rows: NDArray[np.int64] | None = None, *,
            random_state: int | None = None) -> FittedMLP:
    """Fit D-MLP's network on ``rows`` of ``X`` with labels ``y[rows]`` (see the module docstring).

    Parameters
    ----------
    X : SparseRows
        Features (:func:`sparse_rows`); their dtype (float32 or float64) is the arithmetic's.
    y : array of shape (n,)
        Labels of every row of ``X``: 1 (real) or 0 (synthetic); both classes must occur among ``rows``.
    rows : int array, optional
        Positions used for training (a fold's training part); default every row.
    random_state : int or None
        Seed of ``check_random_state`` (None: NumPy's global generator, as scikit-learn).

    Returns
    -------
    FittedMLP
    """
    from sklearn.model_selection import train_test_split
    from sklearn.utils import check_random_state, shuffle

    s = MLP_SETTINGS
    h1, h2 = s["hidden_layer_sizes"]
    dtype = X.values.dtype
    y = np.asarray(y)
    rows = np.arange(X.n_rows, dtype=np.int64) if rows is None else np.asarray(rows, dtype=np.int64)
    yb = y[rows] == 1
    if yb.all() or not yb.any():
        raise ValueError("the classifier needs records of both classes (real and synthetic)")
    p = X.n_features
    rs = check_random_state(random_state)
    parts: list[NDArray[np.float64]] = []
    decays: list[NDArray[np.float64]] = []
    for fan_in, fan_out in ((p, h1), (h1, h2), (h2, 1)):
        bound = np.sqrt(6.0 / (fan_in + fan_out))
        coef = rs.uniform(-bound, bound, (fan_in, fan_out))
        intercept = rs.uniform(-bound, bound, fan_out)
        parts += [coef.ravel(), intercept]
        decays += [np.full(coef.size, s["alpha"]), np.zeros(fan_out)]  # the L2 penalty: weights, not intercepts
    theta = np.concatenate(parts).astype(dtype)
    decay = np.concatenate(decays).astype(dtype)
    # the same call MLPClassifier makes: positions and labels split by the same generator, stratified on y
    pos_tr, pos_va = train_test_split(np.arange(rows.size), random_state=rs,
                                      test_size=s["validation_fraction"], stratify=yb.reshape(-1, 1))
    rows_tr, rows_va = rows[pos_tr], rows[pos_va]
    y_all = (y == 1).astype(dtype)
    y_va = y[rows_va] == 1
    n_tr = rows_tr.size
    batch = min(s["batch_size"], n_tr)
    grad = np.zeros_like(theta)
    m = np.zeros_like(theta)
    v = np.zeros_like(theta)
    best, best_theta, no_improvement, t, n_iter = -np.inf, theta.copy(), 0, 0, 0
    sample_idx = np.arange(n_tr)
    dense = None if COMPILED else _dense_rows(X.indptr, X.indices, X.values, p)
    for _ in range(s["max_iter"]):
        sample_idx = shuffle(sample_idx, random_state=rs)
        adam = (s["learning_rate_init"], s["beta_1"], s["beta_2"], s["epsilon"])
        if dense is None:
            t = _epoch(X.indptr, X.indices, X.values, y_all, rows_tr[sample_idx], theta, grad, decay, m, v, t, p,
                       h1, h2, batch, *adam)
            proba = _proba(X.indptr, X.indices, X.values, rows_va, theta, p, h1, h2)
        else:
            t = _epoch_numpy(dense, y_all, rows_tr[sample_idx], theta, decay, m, v, t, p, h1, h2, batch, *adam)
            proba = _forward_numpy(dense[rows_va], theta, p, h1, h2)[2]
        n_iter += 1
        score = float(np.mean((proba > 0.5) == y_va))
        if score < best + s["tol"]:
            no_improvement += 1
        else:
            no_improvement = 0
        if score > best:
            best, best_theta = score, theta.copy()
        if no_improvement > s["n_iter_no_change"]:
            break
    return FittedMLP(theta=best_theta, n_features=p, hidden=(h1, h2), n_iter=n_iter, best_validation_score=best)
