"""Classifier-based metrics of the review paper (Trudslev et al., sections 2.2.3 and 2.2.11): D-MLP and MIR.

Both train a classifier to tell real training records (label 1) from synthetic records (label 0) on the dense
one-hot euclidean embedding (docs/metrics.md, "Distance spaces"). They measure *distinguishability*: an exact copy of
T cannot be told
apart from T, so it scores like an ideal generator (D-MLP ≈ 0.5). They are a fidelity signal with a privacy
reading, not copy detectors; the report says so.

Shared steps (docs/metrics.md, "detection_mlp" and "mir"): each class is first reduced to at most
``ctx.settings["max_rows"]`` records by random subsamples drawn from ``rng = default_rng(random_state)``, T first,
then S (:func:`synthpriv_report.stats.subsample`); the sizes used are in the details. Neither metric searches
neighbours (``plan`` returns ``[]``). Fitted scores are cached with ``ctx.memo`` so a re-reduction (new levels,
sliders of other metrics) never refits.

Choices this package makes (documented here and in the details):

* **Calibration** (docs/metrics.md, "Baselines: the holdout and the calibration") is *not* run for either metric
(``calibratable=False``): the ideal value is
  known without a fit (AUC 0.5; MIR already compares against H through the membership advantage), while a
  calibration fit of T against H costs as much again as the metric itself (``benchmarks/bench_metrics.py --dmlp``
  prints the classifier's time).
* **How D-MLP is run**: :func:`detection_auc` trains scikit-learn's ``MLPClassifier`` algorithm, with its
  defaults and on its random draws, through the compiled :mod:`synthpriv_report.metrics.distinguishability.mlp` in
  float32 with the
  five folds in parallel threads; the definition (architecture, folds, early stopping) is unchanged, and
  :func:`sklearn_detection_auc` runs scikit-learn itself for comparison (about 4.5 times the CPU time on the 3k
  demo, with fold AUCs that agree within their fold-to-fold range).
* **D-MLP interval**: the min-max range of the five fold AUCs (``interval_kind`` in the details). Fold AUCs share
  most of their training data, so a normal or t interval over five correlated values would claim a precision it
  does not have; the range is what was observed.
* **MIR interval**: Wilson on the recall over the number of real records in the test part.
* **Levels**: params.py's ``review_absolute`` (medium from 0.5) would mark every D-MLP value at or above the
  ideal 0.5 as medium, so this module keeps its own package defaults in :data:`LEVELS`:
  D-MLP on the AUC (medium from 0.6, high from 0.8, i.e. advantage 2·AUC − 1 from 0.2 and 0.6); MIR with a
  holdout on the membership advantage (medium from 0.05, high from 0.2, the ``review_excess`` values, since the
  advantage is the recall's excess over fresh real records); MIR without a holdout on the recall (medium from
  0.6, high from 0.8). ``levels={"detection_mlp": {"medium": .., "high": ..}}`` (or ``"mir"``) overrides them.
* **Minimum sizes**: each class needs at least :data:`MIN_PER_CLASS` records (after the cap), otherwise the
  metric is *not computed* with that reason: 5 stratified folds need 5 per class, and the MLP's stratified
  early-stopping split needs at least 2 validation records of a 4/5 training part.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..._compiled import one_blas_thread
from ...core.formats import fmt_on_unit, fmt_share
from ...core.formats import is_finite_number as finite
from ...core.params import SOURCES
from ...core.progress import threads_available
from ...core.registry import (
    Computation,
    Grading,
    LevelSpec,
    MetricSpec,
    NotRequired,
    Presentation,
    ResultJSON,
    TypedDict,
    Words,
    register,
)
from ...core.results import MetricResult, not_computed
from ...stats import subsample, wilson
from .._shared.arrays import SmallResult
from .mlp import fit_mlp, sparse_rows

#: Fewest records per class (after the ``max_rows`` cap) for either classifier metric to run.
MIN_PER_CLASS = 10

#: Number of stratified folds of D-MLP (docs/metrics.md).
N_FOLDS = 5

#: Share of the labelled records held out by MIR (docs/metrics.md).
MIR_TEST_SIZE = 0.3

#: Level thresholds of this module (package defaults; see the module docstring for why not ``review_absolute``).
LEVELS: dict[str, dict[str, Any]] = {
    "detection_mlp": {
        "medium": 0.6,
        "high": 0.8,
        "source": "package default; the metric comes from " + SOURCES["review"],
        "description": "on the mean fold ROC AUC (0.5 = indistinguishable): high from 0.8, medium from 0.6 "
        "(advantage 2·AUC − 1 from 0.6 and 0.2)",
    },
    "mir_advantage": {
        "medium": 0.05,
        "high": 0.2,
        "source": "package default; the metric comes from " + SOURCES["review"],
        "description": "on the membership advantage (recall on real test records minus the share of holdout "
        "records predicted real): high from {high}, medium from {medium}",
    },
    "mir_recall": {
        "medium": 0.6,
        "high": 0.8,
        "source": "package default; the metric comes from " + SOURCES["review"],
        "description": "on the recall of the real class (no holdout to compare with): high from {high}, medium "
        "from {medium}; about 50% at indistinguishable, balanced classes",
    },
}

_DMLP_NOTE = ("a distinguishability signal, not a copy detector: an exact copy of the training data scores "
              "about 0.5, like an ideal generator")
_MIR_NOTE = ("a distinguishability signal: the classifier separates real from synthetic records; the membership "
             "advantage (with a holdout) is the privacy-relevant number")


# ---------------------------------------------------------------------------------------------------------------
# pure array functions


def cap_rows(n_real: int, n_syn: int, max_rows: int, *, random_state: int | None
             ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Positions kept of each class: at most ``max_rows`` each, T drawn first, then S (docs/metrics.md).

    A class at or under the cap keeps every record and draws nothing.

    Parameters
    ----------
    n_real, n_syn : int
        Sizes of T and S.
    max_rows : int
        Per-class cap.
    random_state : int or None
        Seed of ``default_rng``.

    Returns
    -------
    (rows_real, rows_syn) : tuple of int64 arrays, sorted

    >>> r, s = cap_rows(5, 3, 4, random_state=0)
    >>> len(r), s.tolist()
    (4, [0, 1, 2])
    """
    rng = np.random.default_rng(random_state)
    rows_t = subsample(n_real, max_rows, rng) if n_real > max_rows else np.arange(n_real, dtype=np.int64)
    rows_s = subsample(n_syn, max_rows, rng) if n_syn > max_rows else np.arange(n_syn, dtype=np.int64)
    return rows_t, rows_s


def detection_auc(X: ArrayLike, y: ArrayLike, *, random_state: int | None = None,
                  n_splits: int = N_FOLDS, n_threads: int | None = None) -> NDArray[np.float64]:
    """Fold ROC AUCs of the D-MLP classifier (D-MLP; Trudslev et al., section 2.2.3).

    ``StratifiedKFold(n_splits, shuffle=True, random_state)``; per fold the network of ``MLPClassifier(
    hidden_layer_sizes=(100, 50), max_iter=300, early_stopping=True, validation_fraction=0.1, random_state)``
    (every other setting scikit-learn's default) scored by the ROC AUC of its predicted real-class probability on
    the held-out fold. The network is trained by :func:`synthpriv_report.metrics.distinguishability.mlp.fit_mlp`,
    scikit-learn's
    algorithm on the same random draws in float32 and compiled (its docstring lists what is kept and what
    changes); :func:`sklearn_detection_auc` is the scikit-learn run, kept for comparison.

    Parameters
    ----------
    X : array of shape (n, p)
        Features (the euclidean embedding); finite.
    y : array of shape (n,)
        1 for real, 0 for synthetic; each class needs at least ``n_splits`` records.
    random_state : int or None
        Seed of the splitter and of each fold's network (a fresh generator per fold, as in scikit-learn).
    n_splits : int
        Number of folds (5 by default).
    n_threads : int, optional
        Folds trained at once, in threads (the compiled training releases the GIL). Default: every fold at once,
        whatever the number of cores: a fold cannot be split, so with fewer threads than folds the last fold runs
        alone while the other cores wait (5 folds on 2 cores: 7.1-7.5 s with 2 threads, 5.5-6.1 s with 5 on full
        Adult), whereas the system shares the cores among all of them. The result does not depend on it: each fold
        has its own generator and single-threaded BLAS.

    Returns
    -------
    ndarray of shape (n_splits,)
        Fold AUCs in [0, 1]; their mean is D-MLP (higher is riskier, 0.5 = indistinguishable).
    """
    from concurrent.futures import ThreadPoolExecutor

    import scipy.linalg  # noqa: F401  load the BLAS the compiled kernels call before limiting its threads
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold

    y = np.asarray(y)
    Xs = sparse_rows(X, dtype=np.float32)
    folds = list(StratifiedKFold(n_splits, shuffle=True, random_state=random_state).split(np.zeros(len(y)), y))

    def one_fold(fold: tuple[NDArray[np.int64], NDArray[np.int64]]) -> float:
        train, test = fold
        net = fit_mlp(Xs, y, train, random_state=random_state)
        return float(roc_auc_score(y[test], net.predict_proba(Xs, test)))

    workers = _n_threads(n_threads, n_splits)
    # one BLAS thread per fold: the small matrix products gain nothing from more, and BLAS threads competing with
    # the fold threads (or a loaded machine) make them many times slower
    with one_blas_thread():
        if workers == 1:
            aucs = [one_fold(f) for f in folds]
        else:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                aucs = list(pool.map(one_fold, folds))
    return np.asarray(aucs, dtype=np.float64)


def _n_threads(n_threads: int | None, n_splits: int) -> int:
    """Fold threads: the caller's number (at most the number of folds), else one per fold; one where Python
    cannot start threads (Pyodide in a browser)."""
    if not threads_available():
        return 1
    if n_threads is None:
        return n_splits
    if int(n_threads) < 1:
        raise ValueError(f"n_threads must be at least 1, got {n_threads}")
    return min(int(n_threads), n_splits)


def sklearn_detection_auc(X: ArrayLike, y: ArrayLike, *, random_state: int | None = None,
                          n_splits: int = N_FOLDS) -> NDArray[np.float64]:
    """The fold AUCs of :func:`detection_auc` computed with scikit-learn's ``MLPClassifier`` itself (float64).

    Slow (about ten times :func:`detection_auc`); kept so that the benchmark and the tests can show that the
    compiled run reproduces it. Same parameters and return value as :func:`detection_auc`.
    """
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import StratifiedKFold
    from sklearn.neural_network import MLPClassifier

    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    aucs = []
    for train, test in StratifiedKFold(n_splits, shuffle=True, random_state=random_state).split(X, y):
        clf = MLPClassifier(hidden_layer_sizes=(100, 50), max_iter=300, early_stopping=True,
                            validation_fraction=0.1, random_state=random_state)
        with warnings.catch_warnings(), one_blas_thread():
            warnings.simplefilter("ignore", ConvergenceWarning)
            clf.fit(X[train], y[train])
            real_col = int(np.flatnonzero(clf.classes_ == 1)[0])
            aucs.append(roc_auc_score(y[test], clf.predict_proba(X[test])[:, real_col]))
    return np.asarray(aucs, dtype=np.float64)


def mir_predictions(X: ArrayLike, y: ArrayLike, X_holdout: ArrayLike | Iterator[ArrayLike] | None = None, *,
                    random_state: int | None = None, test_size: float = MIR_TEST_SIZE
                    ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64] | None]:
    """Fit MIR's classifier and predict (MIR; Trudslev et al., section 2.2.11).

    ``train_test_split(test_size, stratify=y, random_state)``, then ``HistGradientBoostingClassifier(
    random_state=random_state)`` with default settings (in place of LightGBM) fitted on the training part.

    ``X_holdout`` is an array of shape (m, p), or an iterator of such arrays (blocks of holdout rows, predicted
    one after the other in order, so that a large holdout is never embedded whole; a row's prediction does not
    depend on the others).

    Returns
    -------
    y_test : int array
        Labels of the test part.
    pred_test : int array
        ``predict()`` on the test part.
    pred_holdout : int array or None
        ``predict()`` on the holdout records (never seen in training), when ``X_holdout`` is given.
    """
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.model_selection import train_test_split
    from threadpoolctl import threadpool_limits

    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=test_size, stratify=y, random_state=random_state)
    # one OpenMP thread (the estimator's module, imported above, has loaded its OpenMP runtime, so the limit
    # reaches it): the predictions are the same, and OpenMP threads spinning against other busy threads made the
    # fit 20 times slower in CPU time on a loaded 2-core machine (3k demo: 32 CPU s against 1.3)
    with threadpool_limits(limits=1, user_api="openmp"):
        clf = HistGradientBoostingClassifier(random_state=random_state).fit(X_tr, y_tr)
        pred_h = None
        if X_holdout is not None:
            blocks = X_holdout if isinstance(X_holdout, Iterator) else [X_holdout]
            pred_h = np.concatenate([np.asarray(clf.predict(np.asarray(b, dtype=np.float64)), dtype=np.int64)
                                     for b in blocks] or [np.zeros(0, dtype=np.int64)])
        pred_te = np.asarray(clf.predict(X_te), dtype=np.int64)
    return np.asarray(y_te, dtype=np.int64), pred_te, pred_h


@dataclass(frozen=True)
class MirScores(SmallResult):
    """What :func:`mir_scores` finds.

    Attributes
    ----------
    recall : float
        Share of the real test records the classifier predicts real.
    n_real_test : int
        Real test records.
    membership_advantage : float or None
        ``recall`` minus the share of holdout records predicted real; None without holdout predictions.
    holdout_predicted_real : float or None
        Share of holdout records predicted real; None without holdout predictions.
    n_holdout : int or None
        Holdout records predicted; None without holdout predictions.
    """

    recall: float
    n_real_test: int
    membership_advantage: float | None = None
    holdout_predicted_real: float | None = None
    n_holdout: int | None = None


def mir_scores(y_test: ArrayLike, pred_test: ArrayLike, pred_holdout: ArrayLike | None = None) -> MirScores:
    """MIR and the membership advantage from predictions (``docs/metrics.md``, section "mir").

    recall = (real test records predicted real) / (real test records); membership advantage = recall − (holdout
    records predicted real) / (holdout records). Higher is riskier; recall in [0, 1], advantage in [−1, 1].

    Parameters
    ----------
    y_test : array of shape (n_test,)
        True classes of the test records, 1 for real and 0 for synthetic.
    pred_test : array of shape (n_test,)
        Predicted classes of the test records.
    pred_holdout : array of shape (n_holdout,), optional
        Predicted classes of the holdout records (all real); without them the advantage is not computed.

    Returns
    -------
    MirScores

    Examples
    --------
    >>> mir_scores([1, 1, 1, 1, 0], [1, 1, 1, 0, 1], [1, 0, 0, 0])
    MirScores(recall=0.75, n_real_test=4, membership_advantage=0.5, holdout_predicted_real=0.25, n_holdout=4)
    """
    y_test = np.asarray(y_test)
    pred_test = np.asarray(pred_test)
    real = y_test == 1
    n_real = int(real.sum())
    recall = float((pred_test[real] == 1).sum() / n_real)
    if pred_holdout is None:
        return MirScores(recall=recall, n_real_test=n_real)
    ph = np.asarray(pred_holdout)
    share_h = float((ph == 1).mean())
    return MirScores(recall=recall, n_real_test=n_real, membership_advantage=recall - share_h,
                     holdout_predicted_real=share_h, n_holdout=int(ph.shape[0]))


# ---------------------------------------------------------------------------------------------------------------
# adapters


def _level_spec(key: str, **kw: Any) -> LevelSpec:
    """One of :data:`LEVELS` as a rule (``kw``: what it grades, when not the value itself)."""
    base = LEVELS[key]
    return LevelSpec(medium=base["medium"], high=base["high"], source=base["source"],
                     description=base["description"], inclusive=True, **kw)


DMLP_LEVEL = _level_spec("detection_mlp")
MIR_ADVANTAGE_LEVEL = _level_spec("mir_advantage", of=lambda r: r.details.get("membership_advantage"),
                                  difference=True,
                                  scale="the membership advantage (recall on real test records minus the share of "
                                        "holdout records predicted real)")
MIR_RECALL_LEVEL = _level_spec("mir_recall")


def _mir_level(result: MetricResult) -> LevelSpec:
    """With a holdout MIR is graded on the membership advantage, without one on the recall itself."""
    return MIR_ADVANTAGE_LEVEL if "membership_advantage" in result.details else MIR_RECALL_LEVEL


def _labelled(ctx: Any) -> dict[str, Any]:
    """Capped positions, features and labels of T (1) and S (0); cached per role and settings."""
    max_rows = int(ctx.settings["max_rows"])
    key = ("review_classifier.labelled", ctx.T, ctx.S, max_rows, ctx.random_state)

    def build() -> dict[str, Any]:
        n_t, n_s = ctx.size(ctx.T), ctx.size(ctx.S)
        rows_t, rows_s = cap_rows(n_t, n_s, max_rows, random_state=ctx.random_state)
        # only the kept rows are embedded (the same numbers as rows of the whole embedding)
        X = np.concatenate([ctx.embedding(ctx.subset(ctx.T, rows_t, "classifier.T")),
                            ctx.embedding(ctx.subset(ctx.S, rows_s, "classifier.S"))], axis=0)
        y = np.concatenate([np.ones(len(rows_t), dtype=np.int64), np.zeros(len(rows_s), dtype=np.int64)])
        return {"X": X, "y": y, "n_real": len(rows_t), "n_syn": len(rows_s), "n_real_total": n_t,
                "n_syn_total": n_s, "max_rows": max_rows}

    labelled: dict[str, Any] = ctx.memo(key, build)
    return labelled


def _sizes(lab: dict[str, Any]) -> dict[str, int]:
    return {"n_real_used": lab["n_real"], "n_synthetic_used": lab["n_syn"], "n_real_total": lab["n_real_total"],
            "n_synthetic_total": lab["n_syn_total"], "max_rows": lab["max_rows"]}


def _too_few(name: str, lab: dict[str, Any]) -> MetricResult | None:
    small = min(lab["n_real"], lab["n_syn"])
    if small < MIN_PER_CLASS:
        which = "real" if lab["n_real"] < MIN_PER_CLASS else "synthetic"
        return not_computed(name, f"needs at least {MIN_PER_CLASS} records per class for the classifier; the "
                                  f"{which} class has {small}", details=_sizes(lab))
    return None


def _plan(ctx: Any, params: dict[str, Any]) -> list[Any]:
    """No neighbour searches."""
    return []


def _compute_dmlp(ctx: Any, params: dict[str, Any]) -> MetricResult:
    """D-MLP (Trudslev et al., section 2.2.3): mean fold ROC AUC, higher is riskier, range [0, 1]."""
    lab = _labelled(ctx)
    bad = _too_few("detection_mlp", lab)
    if bad is not None:
        return bad
    key = ("review_classifier.dmlp", ctx.T, ctx.S, lab["max_rows"], ctx.random_state)
    aucs = ctx.memo(key, lambda: detection_auc(lab["X"], lab["y"], random_state=ctx.random_state))
    auc = float(aucs.mean())
    details = {"advantage": max(0.0, 2.0 * auc - 1.0), "fold_aucs": aucs, "interval_kind":
               f"min-max of the {N_FOLDS} fold AUCs", **_sizes(lab), "note": _DMLP_NOTE}
    return MetricResult(name="detection_mlp", value=auc, interval=(float(aucs.min()), float(aucs.max())),
                        details=details, space="euclidean")


def _compute_mir(ctx: Any, params: dict[str, Any]) -> MetricResult:
    """MIR (Trudslev et al., section 2.2.11): recall of the real class, higher is riskier, range [0, 1]."""
    lab = _labelled(ctx)
    bad = _too_few("mir", lab)
    if bad is not None:
        return bad
    key = ("review_classifier.mir", ctx.T, ctx.S, ctx.H, lab["max_rows"], ctx.random_state)
    X_h = ctx.embedding_blocks(ctx.H) if ctx.H is not None else None  # every holdout record, block by block
    y_te, pred_te, pred_h = ctx.memo(
        key, lambda: mir_predictions(lab["X"], lab["y"], X_h, random_state=ctx.random_state))
    sc = mir_scores(y_te, pred_te, pred_h)
    recall = float(sc.recall)
    details: dict[str, Any] = {}
    if sc.membership_advantage is not None:
        details["membership_advantage"] = float(sc.membership_advantage)
        details["holdout_predicted_real"] = sc.holdout_predicted_real
        details["n_holdout"] = sc.n_holdout
    n_real_test = int(sc.n_real_test)
    details.update({"recall": recall, "n_real_test": n_real_test, "n_test": len(y_te),
                    "real_share_test": n_real_test / len(y_te), "interval_kind": "Wilson on the recall",
                    **_sizes(lab), "note": _MIR_NOTE})
    return MetricResult(name="mir", value=recall, interval=wilson(recall, n_real_test),
                        details=details, space="euclidean")


def mir_graded(m: ResultJSON) -> str | None:
    """With a holdout the level of ``mir`` is graded on the membership advantage, not on the recall shown.

    >>> print(mir_graded({"value": 0.99, "level_rule": {"scale": "the membership advantage", "graded": 0.003},
    ...             "details": {"holdout_predicted_real": 0.987}}))  # doctest: +NORMALIZE_WHITESPACE
    Graded on the membership advantage: 0.003, not on the value shown (99% of real test records were labelled
    real, and 98.7% of the holdout records too).
    """
    rule = m.get("level_rule") or {}
    details = m.get("details") or {}
    graded, scale = rule.get("graded"), str(rule.get("scale") or "the value")
    if not (finite(graded) and finite(details.get("holdout_predicted_real"))):
        return None
    return (f"Graded on {scale}: {fmt_on_unit(graded, rule.get('unit'))}, not on the value shown "
            f"({fmt_share(m.get('value'))} of real test records were labelled real, and "
            f"{fmt_share(details['holdout_predicted_real'])} of the holdout records too).")


def classifier_sample_note(m: ResultJSON) -> str | None:
    """The records a classifier was trained and tested on, when the per-class cap reduced them.

    >>> classifier_sample_note({"details": {"n_real_used": 10, "n_real_total": 20, "n_synthetic_used": 10,
    ...                                     "n_synthetic_total": 10, "max_rows": 10}})[:40]
    'the classifier used 10 of 20 real and 10'
    """
    d = m.get("details") or {}
    keys = ("n_real_used", "n_real_total", "n_synthetic_used", "n_synthetic_total", "max_rows")
    if not all(isinstance(d.get(k), int) for k in keys):
        return None
    return (f"the classifier used {d['n_real_used']:,} of {d['n_real_total']:,} real and "
            f"{d['n_synthetic_used']:,} of {d['n_synthetic_total']:,} synthetic records (at most "
            f"{d['max_rows']:,} per class, drawn with the evaluation's random state)")


class DetectionMlpDetails(TypedDict):
    """The details of ``detection_mlp``: the keys its compute function sets."""

    advantage: float
    fold_aucs: NDArray[np.float64]
    interval_kind: str
    n_real_used: int
    n_synthetic_used: int
    n_real_total: int
    n_synthetic_total: int
    max_rows: int
    note: str


class MirDetails(TypedDict):
    """The details of ``mir``: the keys its compute function sets."""

    membership_advantage: NotRequired[float]
    holdout_predicted_real: NotRequired[float]
    n_holdout: NotRequired[int]
    recall: float
    n_real_test: int
    n_test: int
    real_share_test: float
    interval_kind: str
    n_real_used: int
    n_synthetic_used: int
    n_real_total: int
    n_synthetic_total: int
    max_rows: int
    note: str


register(MetricSpec(
    name="detection_mlp",
    computation=Computation(
        compute=_compute_dmlp, plan=_plan, default_space="euclidean", calibratable=False, copy_sensitive=False,
        row_order="StratifiedKFold(shuffle=True) assigns the folds by position and the network's minibatches "
                  "follow the row order (docs/metrics.md, detection_mlp)",
        details=DetectionMlpDetails),
    grading=Grading(
        direction="higher_is_riskier", value_range=(0.0, 1.0), value_kind="auc", level=DMLP_LEVEL),
    presentation=Presentation(
        title="D-MLP (detection classifier AUC)", section="3", group="distinguishability",
        summary="How well a small neural network tells real training records from synthetic ones (0.5 = not at "
                "all); a distinguishability signal, not a copy detector.",
        definition="Mean ROC AUC over 5 stratified folds of an MLP trained to label real records 1 and synthetic "
                   "records 0 on the one-hot euclidean embedding. An exact copy of the real data scores about 0.5.",
        words=Words(measures="how easily a classifier tells synthetic records from real ones",
                    high_means="a high AUC means the synthetic data looks different from the real data; this is "
                               "about fidelity, not leakage: a perfect copy of the real data scores 0.5",
                    ideal="0.5"),
        interval_kind="min-max over the 5 fold AUCs",
        limitation=("it measures how easily real and synthetic records are told apart, not leakage: an exact copy of "
                    "the training data cannot be told apart at all, so it does not see copying"),
        sample_note=classifier_sample_note),
))

register(MetricSpec(
    name="mir",
    computation=Computation(
        compute=_compute_mir, plan=_plan, default_space="euclidean", calibratable=False, copy_sensitive=False,
        row_order="train_test_split draws the test part by position (docs/metrics.md, mir)",
        details=MirDetails),
    grading=Grading(
        direction="higher_is_riskier", value_range=(0.0, 1.0), value_kind="share", level=_mir_level),
    presentation=Presentation(
        title="Real-vs-synthetic classifier recall (called MIR by Trudslev et al.; not a membership-inference test)",
        section="3", group="distinguishability",
        summary="Share of held-out real training records a gradient-boosting classifier labels real; with a "
                "holdout, the excess over fresh real records (membership advantage) is the privacy number.",
        definition="A HistGradientBoosting classifier is trained on 70% of real (1) and synthetic (0) records; MIR is "
                   "its recall of the real class on the other 30%. The membership advantage subtracts the share of "
                   "holdout records it labels real.",
        words=Words(measures="how often a classifier trained to tell real from synthetic records labels unseen "
                             "training records as real: a measure of how easily the two can be told apart (Trudslev et "
                             "al. call it MIR; it is not the membership-inference attack regulators mean, which is "
                             "the separate membership-inference test of this report)",
                    high_means="a high value alone shows the synthetic data differs from the real data; with a "
                               "holdout, the membership advantage (training records minus unseen real records labelled "
                               "real) is the privacy signal",
                    ideal="a membership advantage of 0"),
        interval_kind="Wilson 95% on the recall", graded_note=mir_graded,
        limitation=("it measures how easily real and synthetic records are told apart, not leakage: an exact copy of "
                    "the training data cannot be told apart at all, so it does not see copying"),
        sample_note=classifier_sample_note),
))
