"""Several candidate releases of the same real data, evaluated side by side, to keep one.

A data owner often has several synthetic datasets to choose from: several generators, or one generator at several
settings. :class:`Comparison` evaluates each of them exactly as a stand-alone
:class:`~synthpriv_report.evaluation.evaluation.Evaluation` would, gives each its verdict, prices the choice itself
(picking
the best of N releases makes a lucky-looking one more likely, so each verdict is also given at the level that
allows for N tries) and shows how useful each release is beside how much it leaks
(:mod:`synthpriv_report.analysis.utility`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..analysis.utility import association_difference, association_matrix, marginal_distance, model_accuracy
from ..core.formats import SET_LABELS
from ..core.registry import get_spec, verdict_alpha, verdict_false_alarm, verdict_false_alarm_rate
from ..core.results import ResultSet, Verdict, to_jsonable
from ..data.containers import MISSING, PreparedData
from .evaluation import DataSource, Evaluation

__all__ = ["Comparison"]

#: The false-positive rate at which the membership attacks' true-positive rate is shown.
ATTACK_FPR = "0.01"

_REAL_ROLES = {"T": "real training", "H": "holdout", "R": "reference"}

#: Verdict levels from the least to the most risky (a verdict not assessed ranks last).
LEVEL_RANK = {"low": 0, "inconclusive": 1, "medium": 2, "high": 3, "not_assessed": 4}


def _release_pairs(releases: Any) -> list[tuple[str, Any]]:
    """``releases`` as a list of (name, data) pairs, the names checked: text, not blank, and no two alike once
    spaces around them and letter case are set aside (they would look the same in a report)."""
    if isinstance(releases, Mapping):
        pairs = list(releases.items())
    elif isinstance(releases, Sequence) and not isinstance(releases, (str, bytes)) and all(
            isinstance(p, tuple) and len(p) == 2 for p in releases):
        pairs = list(releases)
    else:
        raise TypeError("the releases must be a dict {name: synthetic data} (or a list of (name, synthetic data) "
                        f"pairs), got {type(releases).__name__}")
    if len(pairs) < 2:
        raise ValueError(f"a comparison needs at least 2 releases to compare, got {len(pairs)}; evaluate a single "
                         "release with Evaluation(real, synthetic, holdout)")
    seen: dict[str, str] = {}
    for name, _ in pairs:
        if not isinstance(name, str):
            raise TypeError(f"each release's name must be a string, got {name!r} ({type(name).__name__})")
        if not name.strip():
            raise ValueError(f"a release's name must not be blank, got {name!r}")
        folded = name.strip().casefold()
        if folded in seen:
            same = "twice" if seen[folded] == name else f"and {seen[folded]!r} (the same name in a report)"
            raise ValueError(f"two releases are named {name!r} {same}: give each release its own name")
        seen[folded] = name
    return pairs


def _check_columns(real: Any, name: str, synthetic: Any, exclude: Sequence[str] | None) -> None:
    """For frames: the synthetic data have the real data's columns (less ``exclude``), naming the first that
    differs and the release."""
    if not isinstance(real, pd.DataFrame) or not isinstance(synthetic, pd.DataFrame):
        return
    left_out = set(exclude or ())
    want = [c for c in real.columns if c not in left_out]
    have = [c for c in synthetic.columns if c not in left_out]
    missing = [c for c in want if c not in set(have)]
    if missing:
        raise ValueError(f"release {name!r}: column {missing[0]!r} is in the real data but not in this release")
    extra = [c for c in have if c not in set(want)]
    if extra:
        raise ValueError(f"release {name!r}: column {extra[0]!r} is in this release but not in the real data")


def _frame(data: PreparedData, s: str) -> pd.DataFrame:
    """Set ``s`` of the prepared data as a frame of its analysed columns, in the evaluation's row order (a missing
    value as NaN or None)."""
    num, cat = data.numeric_columns, data.categorical_columns
    cols: dict[str, Any] = {}
    if num:
        values = data.numeric[s].columns(list(range(len(num))))
        for j, c in enumerate(num):
            cols[c] = values[:, j]
    for j, c in enumerate(cat):
        v = np.asarray(data.categorical[s][:, j], dtype=object)
        cols[c] = np.where(v == MISSING, None, v)
    return pd.DataFrame(cols, columns=list(data.columns))


def _same_real_data(evaluations: Mapping[str, Evaluation]) -> None:
    """Refuse evaluations of different real data or settings: each must have been given the same training,
    holdout and reference records (fingerprints) and the same settings as the first. The error names the
    difference."""
    (name0, ev0), *rest = evaluations.items()
    settings0 = {k: v for k, v in ev0.settings_dict().items() if k != "sizes"}
    for name, ev in rest:
        for s, role in _REAL_ROLES.items():
            a, b = ev0.data.fingerprints.get(s), ev.data.fingerprints.get(s)
            if a != b:
                if a is None or b is None:
                    has, lacks = (name0, name) if a is not None else (name, name0)
                    raise ValueError(f"evaluation {has!r} has {role} data and {lacks!r} has none: releases are "
                                     "compared against the same real data only")
                raise ValueError(f"evaluation {name!r} was given other {role} data than {name0!r} (their "
                                 f"fingerprints differ: {b[:12]}… against {a[:12]}…): releases are compared against "
                                 "the same real data only")
        settings = {k: v for k, v in ev.settings_dict().items() if k != "sizes"}
        for key in dict.fromkeys(list(settings0) + list(settings)):
            if settings0.get(key) != settings.get(key):
                raise ValueError(f"evaluation {name!r} differs from {name0!r} in its setting {key!r}: "
                                 f"{settings.get(key)!r} instead of {settings0.get(key)!r}; releases are compared "
                                 "with the same settings only")


def _same_array(a: Any, b: Any) -> bool:
    """``a`` and ``b`` hold the same bytes (the same array, or equal shape, type and content)."""
    if a is b:
        return True
    a, b = np.asarray(a), np.asarray(b)
    return (a.shape == b.shape and a.dtype == b.dtype
            and np.array_equal(np.ascontiguousarray(a).view(np.uint8), np.ascontiguousarray(b).view(np.uint8)))


class _RealTrees:
    """The search trees of real sets that one release's evaluation built, and its fits of the projected space
    (a PCA of the real sets' embedding), lent to the next releases' (an evaluation's engine asks its ``lender``
    before it builds a tree or fits a projection, and offers it those it makes).

    A tree is lent only where the borrower would build it from the same arrays: the same space, the same
    records of the same real set (a subset's rows are part of its key), and an encoding whose coordinates of that
    set, weights, costs, scale and category counts are bit for bit those the tree was built from
    (:func:`synthpriv_report.neighbors.build_tree` reads nothing else), so the tree, and every search through it,
    is the one the borrower would have had. Trees of the synthetic set are never kept. Kept trees stay in memory
    until the comparison has evaluated every release (:meth:`clear`), at most :attr:`max_bytes` of them; an
    evaluation frees its own trees after use, at a million records a few hundred megabytes each. A projection's
    fit is lent where the real sets' encoding it was fitted on is bit for bit the borrower's
    (:func:`synthpriv_report.spaces.project` fits on the real sets alone); each set's coordinates are still
    computed by the borrower.

    Parameters
    ----------
    max_bytes : int, default 2 GiB
        The most memory the kept trees may hold; a tree that would go beyond it is not kept.
    """

    def __init__(self, max_bytes: int = 2 << 30):
        self.max_bytes = max_bytes
        self.lent = 0
        self._trees: dict[tuple, tuple[Any, Any]] = {}
        self._projections: dict[Any, tuple[Any, Any]] = {}
        self._bytes = 0

    @staticmethod
    def _inputs_equal(enc: Any, donor: Any, *bases: str) -> bool:
        return (enc.mode == donor.mode and enc.scale == donor.scale
                and enc.integer_valued == donor.integer_valued
                and all(_same_array(getattr(enc, f), getattr(donor, f)) for f in ("num_weight", "cat_cost", "n_codes"))
                and all(_same_array(enc.num[b], donor.num[b]) and _same_array(enc.cat[b], donor.cat[b])
                        for b in bases))

    @staticmethod
    def _real(enc: Any) -> tuple[str, ...]:
        return tuple(s for s in _REAL_ROLES if s in enc.num)

    def projection(self, spec: Any, base_enc: Any) -> Any:
        """The kept fit of the projected space ``spec`` (:class:`~synthpriv_report.spaces.Projection`), where it
        was fitted on the same real sets' encoding as ``base_enc`` holds (the fit reads the real sets alone); else
        None."""
        got = self._projections.get(spec)
        if got is None or self._real(base_enc) != self._real(got[1]) or not self._inputs_equal(
                base_enc, got[1], *self._real(base_enc)):
            return None
        self.lent += 1
        return got[0]

    def keep_projection(self, spec: Any, base_enc: Any, projection: Any) -> None:
        """Keep the fit of a projected space (with the encoding it was fitted on)."""
        self._projections.setdefault(spec, (projection, base_enc))

    def lend(self, spec: Any, ref: Any, enc: Any) -> Any:
        """The kept tree of ``ref`` in ``spec``, where it was built from what ``enc`` holds; else None."""
        got = self._trees.get((spec, ref.key))
        if got is None or not self._inputs_equal(enc, got[1], ref.base):
            return None
        self.lent += 1
        return got[0]

    def keep(self, spec: Any, ref: Any, enc: Any, tree: Any) -> None:
        """Keep a tree of a real set (with the encoding it was built from), within :attr:`max_bytes`."""
        if ref.base not in _REAL_ROLES or (spec, ref.key) in self._trees:
            return
        size = sum(a.nbytes for a in tree if isinstance(a, np.ndarray))
        if self._bytes + size <= self.max_bytes:
            self._trees[(spec, ref.key)] = (tree, enc)
            self._bytes += size

    def clear(self) -> None:
        """Let the kept trees and fits go."""
        self._trees.clear()
        self._projections.clear()
        self._bytes = 0


class Comparison:
    """Candidate releases of the same real data, each evaluated for privacy, with the price of choosing among
    them and how useful each one is.

    Every release is evaluated as :class:`~synthpriv_report.evaluation.evaluation.Evaluation` evaluates it alone, with
    the
    same real data and settings: its results and verdict are exactly those of ``Evaluation(real, synthetic_i,
    holdout, same settings)``, number for number.

    What is done once for all releases. The work that looks at the real records alone (the training, holdout and
    reference sets) is shared: the nearest-neighbour searches between real sets, and each check computed with the
    holdout in the place of the synthetic data (the baseline of what fresh real records score, "calibration").
    It is shared between two releases only where it is provably the same: the same real records in the same
    order, the same settings, and the same fitted encodings of the real records. The last condition can fail:
    the category lists and the columns with missing numbers are gathered over every set, the synthetic one
    included, so a release with a category the real data never have (or a missing number where the real data
    have none) encodes the real records slightly differently, and its real-side work is then done again for it
    rather than borrowed. :attr:`shared` says how much each release borrowed. The bootstraps' random draws, which
    depend only on the number of values resampled and the seed, are drawn once for every release of a size.

    The cost of choosing. Each verdict is built so that an honest release is wrongly flagged at most 5% of the
    time. Comparing N releases and keeping the best-looking gives chance N tries; the adjusted verdict therefore
    grades each release's checks for a false-alarm rate of 5% / N instead (Bonferroni over the releases), the
    same checks at a stricter confidence. A release whose verdict is medium or high only before the adjustment
    showed a risk that choosing among N could explain by chance; one that is medium or high after it showed a
    risk that choosing cannot explain.

    Utility beside privacy. How close each release is to the real data (columns one at a time, pairs of
    columns, and, given ``target=``, a model trained on it and tested on the holdout) is reported apart from the
    verdict and never changes it (:mod:`synthpriv_report.analysis.utility`).

    Parameters
    ----------
    real : DataFrame, Parquet path or Dask DataFrame
        The real records the generators were trained on.
    releases : dict of str -> DataFrame, Parquet path or Dask DataFrame
        ``{name: synthetic data}``, at least two; a list of ``(name, synthetic data)`` pairs is taken too. Names
        are shown in the views; no two may be equal once spaces around them and letter case are set aside.
    holdout : DataFrame, Parquet path or Dask DataFrame, optional
        Real records no generator saw (strongly advised: most checks and the utility model need them).
    key_fields, sensitive_fields : sequence of str, optional
        What an attacker knows and wants to learn (as in :class:`~synthpriv_report.evaluation.evaluation.Evaluation`).
    random_state : int, default 0
        The seed of every random step, the same for every release.
    progress : bool, default True
        Progress bars while the releases are evaluated.
    target : str, optional
        A column to predict for the utility's train-on-synthetic, test-on-real accuracy.
    contexts : dict of str -> release context, optional
        A release context (a mapping or a JSON file, as ``context=`` of
        :class:`~synthpriv_report.evaluation.evaluation.Evaluation`) for some releases, in place of ``context=``: one
        generator at several settings declares each setting here, and releases that declare their privacy budget
        (``generator.epsilon``) are drawn against it (an ε sweep).
    **options
        Any other setting of :class:`~synthpriv_report.evaluation.evaluation.Evaluation` (``calibrate``, ``metrics``,
        ``spaces``, ...), the same for every release.

    Examples
    --------
    >>> import pandas as pd
    >>> T = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0, 4.0, 5.0], "c": list("ababab")})
    >>> cmp = Comparison(T, {"copy": T.copy(), "shifted": T.assign(x=T.x + 0.5)}, progress=False,
    ...                  calibrate=False, metrics=["exact_copies"])
    >>> cmp.n_compared, cmp.results()["copy"]["exact_copies"].value, cmp.results()["shifted"]["exact_copies"].value
    (2, 1.0, 0.0)
    >>> round(cmp.adjusted_alpha, 3)
    0.025
    """

    def __init__(self, real: DataSource, releases: Mapping[str, DataSource] | Sequence[tuple[str, DataSource]],
                 holdout: DataSource | None = None, *, key_fields: Sequence[str] | None = None,
                 sensitive_fields: Sequence[str] | None = None, random_state: int = 0, progress: bool = True,
                 target: str | None = None, contexts: Mapping[str, Any] | None = None, **options: Any):
        pairs = _release_pairs(releases)
        contexts = dict(contexts or {})
        unknown = [name for name in contexts if name not in dict(pairs)]
        if unknown:
            raise ValueError(f"contexts= names {', '.join(map(repr, unknown))}, which is not a release; the "
                             f"releases are {', '.join(repr(name) for name, _ in pairs)}")
        for name, synthetic in pairs:
            _check_columns(real, name, synthetic, options.get("exclude"))
        names = dict(options.pop("names", None) or {})
        evaluations = {}
        for name, synthetic in pairs:
            try:
                own = {**options, "context": contexts[name]} if name in contexts else options
                evaluations[name] = Evaluation(
                    real, synthetic, holdout, key_fields=key_fields, sensitive_fields=sensitive_fields,
                    random_state=random_state, progress=progress, names={"synthetic": name, **names}, **own)
            except (ValueError, TypeError) as exc:
                if not evaluations:  # the first release: a bad setting or real data, not the release
                    raise
                raise type(exc)(f"release {name!r}: {exc}") from exc
        self._setup(evaluations, target)

    @classmethod
    def from_evaluations(cls, evaluations: Mapping[str, Evaluation] | Sequence[tuple[str, Evaluation]], *,
                         target: str | None = None) -> Comparison:
        """A comparison of evaluations already made, one per release.

        Parameters
        ----------
        evaluations : dict of str -> Evaluation
            ``{name: evaluation}``, at least two, made with the same real data (training, holdout, reference:
            their fingerprints must match) and the same settings.
        target : str, optional
            As in :class:`Comparison`.

        Returns
        -------
        Comparison

        Raises
        ------
        ValueError
            Naming the evaluation and what differs (which real set, or which setting) where they were not made
            alike.
        """
        pairs = _release_pairs(evaluations)
        for name, ev in pairs:
            if not isinstance(ev, Evaluation):
                raise TypeError(f"release {name!r} is a {type(ev).__name__}, not an Evaluation")
        self = cls.__new__(cls)
        self._setup(dict(pairs), target)
        return self

    @staticmethod
    def from_json(source: Any) -> Any:
        """A comparison read back from its JSON document (a path, or the parsed document), checked, that writes its
        HTML, PDF and JSON again without the data
        (:func:`synthpriv_report.export.comparison.comparison_from_json`).

        Returns
        -------
        synthpriv_report.export.comparison.LoadedComparison
        """
        from ..export.comparison import comparison_from_json

        return comparison_from_json(source)

    def _setup(self, evaluations: dict[str, Evaluation], target: str | None) -> None:
        _same_real_data(evaluations)
        first = next(iter(evaluations.values()))
        if target is not None:
            if not isinstance(target, str) or target not in first.data.columns:
                raise ValueError(f"target={target!r} is not an analysed column; analysed columns: "
                                 f"{', '.join(map(repr, first.data.columns))}")
        self.evaluations: dict[str, Evaluation] = evaluations
        self.target = target
        self.alpha = verdict_false_alarm_rate()
        self.shared: dict[str, int] = {}
        #: How many search trees of real sets, and fits of the projected space, each release took from an earlier
        #: one instead of making them.
        self.trees_lent: dict[str, int] = {}
        self._results: dict[str, ResultSet] = {}
        self._adjusted: dict[str, ResultSet] = {}
        self._utility: dict[str, dict[str, Any]] | None = None

    # -------------------------------------------------------------------------------------------------------------
    @property
    def names(self) -> list[str]:
        """The releases' names, in the order given."""
        return list(self.evaluations)

    @property
    def n_compared(self) -> int:
        """How many releases are compared: the N the adjusted verdict pays for."""
        return len(self.evaluations)

    @property
    def adjusted_alpha(self) -> float:
        """The false-alarm rate each release's adjusted verdict is built for: the verdict's rate divided by the
        number of releases (Bonferroni)."""
        return self.alpha / self.n_compared

    def _borrow(self, name: str) -> None:
        """Give release ``name`` what the releases before it computed on the real sets alone."""
        ev = self.evaluations[name]
        for other, donor in self.evaluations.items():
            if other == name:
                break
            self.shared[name] = self.shared.get(name, 0) + ev._adopt_real_side(donor)

    def _compute(self) -> None:
        if len(self._results) == self.n_compared:
            return
        trees = _RealTrees()
        local = [ev for ev in self.evaluations.values() if not ev._engine.backend.remote and ev._engine.lender is None]
        for ev in local:
            ev._engine.lender = trees
        # a bootstrap's draws depend only on the number of values and the seed: releases of one size share them
        plans = next(iter(self.evaluations.values()))._engine.resample_plans
        for ev in self.evaluations.values():
            ev._engine.resample_plans = plans
        try:
            for name, ev in self.evaluations.items():
                if name not in self._results:
                    self._borrow(name)
                    before = trees.lent
                    self._results[name] = ev.results()
                    self.trees_lent[name] = trees.lent - before
        finally:
            for ev in local:
                ev._engine.lender = None
            trees.clear()

    def _compute_adjusted(self) -> None:
        self._compute()
        if len(self._adjusted) == self.n_compared:
            return
        with verdict_false_alarm(self.adjusted_alpha):
            for name, ev in self.evaluations.items():
                if name not in self._adjusted:
                    self._borrow(name)
                    self._adjusted[name] = ev.results(metrics=list(ev.verdict_metrics))

    # -------------------------------------------------------------------------------------------------------------
    def results(self) -> dict[str, ResultSet]:
        """Each release's results (every metric, the default settings), as its own evaluation gives them.

        Returns
        -------
        dict of str -> ResultSet
        """
        self._compute()
        return {name: self._results[name] for name in self.evaluations}

    @property
    def verdicts(self) -> dict[str, Verdict]:
        """Each release's verdict, as it would get it alone (a false-alarm rate of :attr:`alpha`)."""
        return {name: rs.verdict for name, rs in self.results().items()}

    @property
    def adjusted_verdicts(self) -> dict[str, Verdict]:
        """Each release's verdict with its checks graded for a false-alarm rate of :attr:`adjusted_alpha` (the
        verdict's rate divided by the number of releases): what it shows beyond the luck of choosing among them."""
        self._compute_adjusted()
        return {name: self._adjusted[name].verdict for name in self.evaluations}

    def adjusted_results(self) -> dict[str, ResultSet]:
        """The verdict's checks of each release graded at the adjusted level (:attr:`adjusted_verdicts`)."""
        self._compute_adjusted()
        return {name: self._adjusted[name] for name in self.evaluations}

    @property
    def searches(self) -> dict[str, list[Any]]:
        """The nearest-neighbour searches each release's evaluation ran itself (those it borrowed are not
        listed)."""
        return {name: ev.searches for name, ev in self.evaluations.items()}

    @property
    def search_count(self) -> int:
        """How many searches the whole comparison ran."""
        return sum(len(s) for s in self.searches.values())

    def utility(self) -> dict[str, dict[str, Any]]:
        """How close each release is to the real data, apart from the verdict
        (:mod:`synthpriv_report.analysis.utility`).

        Returns
        -------
        dict of str -> dict
            Per release: ``marginal_distance`` (total variation distance per column, averaged; numeric columns cut
            at the real data's deciles; 0 is best), ``association_difference`` (mean absolute difference of the
            pairwise association matrices: Pearson's r, Cramér's V, correlation ratio; 0 is best) and, with
            ``target=`` and a holdout, ``tstr`` (accuracy on the holdout of a model trained on the release, of the
            same model trained on the real data, and their gap; higher accuracy and a smaller gap are better).
            The measures read the analysed columns (identifier-like and excluded columns left out).
        """
        if self._utility is None:
            first = next(iter(self.evaluations.values()))
            d = first.data
            real = _frame(d, "T")
            holdout = _frame(d, "H") if d.has_holdout else None
            numeric = list(d.numeric_columns)
            seed = first.settings["random_state"]
            seed = seed if isinstance(seed, int) else 0
            real_associations = association_matrix(real, numeric=numeric)
            on_real = None
            if self.target is not None and holdout is not None:
                on_real = model_accuracy(real, holdout, target=self.target, numeric=numeric, random_state=seed)
            out = {}
            for name, ev in self.evaluations.items():
                syn = _frame(ev.data, "S")
                u: dict[str, Any] = {"marginal_distance": marginal_distance(real, syn, numeric=numeric),
                                     "association_difference": association_difference(
                                         real, syn, numeric=numeric, real_associations=real_associations),
                                     "tstr": None}
                if on_real is not None:
                    on_syn = model_accuracy(syn, holdout, target=self.target, numeric=numeric, random_state=seed)
                    u["tstr"] = {"synthetic": on_syn, "real": on_real, "gap": on_real - on_syn}
                elif self.target is None:
                    u["tstr_reason"] = "no target column was named (target=)"
                else:
                    u["tstr_reason"] = "no holdout to test the models on"
                out[name] = u
            self._utility = out
        return self._utility

    # -------------------------------------------------------------------------------------------------------------
    def _release_dict(self, name: str) -> dict[str, Any]:
        rs, adj = self._results[name], self._adjusted[name]
        checks = []
        for metric in self.evaluations[name].verdict_metrics:
            r = rs.get(metric)
            a = adj.get(metric)
            checks.append({"metric": metric, "title": get_spec(metric).title,
                           "value": None if r is None else r.value, "level": None if r is None else r.level,
                           "adjusted_level": None if a is None else a.level,
                           "computed": bool(r is not None and r.computed)})
        attacks = []
        for metric, r in rs.items():
            row = (r.details or {}).get("tpr_at", {}).get(ATTACK_FPR) if r.computed else None
            if isinstance(row, Mapping):
                attacks.append({"metric": metric, "title": r.title or metric, "tpr": row.get("tpr"),
                                "fpr": float(ATTACK_FPR)})
        v, va = rs.verdict, adj.verdict
        declared = ((self.evaluations[name].release_context or {}).get("generator") or {}).get("epsilon")
        worst = rs.get("mia_worst_case")
        measured = (worst.details or {}).get("epsilon_lower_bound") if worst is not None and worst.computed else None
        return {"name": name,
                "declared_epsilon": declared, "epsilon_lower_bound": measured,
                "verdict": {"level": v.level, "reasons": list(v.reasons)},
                "adjusted_verdict": {"level": va.level, "reasons": list(va.reasons)},
                "checks": checks, "membership_attacks": attacks,
                "fingerprint": self.evaluations[name].data.fingerprints.get("S"),
                "searches": len(self.evaluations[name].searches), "shared_steps": self.shared.get(name, 0)}

    def to_dict(self) -> dict[str, Any]:
        """The comparison as a JSON-ready dictionary.

        Returns
        -------
        dict
            ``releases`` (the names, in order), ``n_compared``, ``alpha`` (the verdict's false-alarm rate),
            ``adjusted_alpha`` (divided by ``n_compared``), ``check_alpha`` and ``adjusted_check_alpha`` (each
            check's one-sided level before and after), ``target``, and ``per_release``: for each release its
            verdict and adjusted verdict (level and reasons), each driving check's value and levels, the membership
            attacks' true-positive rate at a 1% false-positive rate, its ``utility``, the searches it ran and the
            real-side steps it borrowed, the privacy budget its context declares (``declared_epsilon``) and the
            lower bound on ε that the strongest membership attack shows (``epsilon_lower_bound``); ``ranking``,
            the releases from the least to the most risky (:meth:`ranking`).
        """
        self._compute_adjusted()
        utility = self.utility()
        per = []
        for name in self.evaluations:
            d = self._release_dict(name)
            d["utility"] = utility[name]
            per.append(d)
        return to_jsonable({
            "releases": self.names, "n_compared": self.n_compared, "alpha": self.alpha,
            "adjusted_alpha": self.adjusted_alpha, "check_alpha": verdict_alpha(self.alpha),
            "adjusted_check_alpha": verdict_alpha(self.adjusted_alpha), "target": self.target,
            "real_sets": {SET_LABELS.get(s, s): fp for s, fp in
                          next(iter(self.evaluations.values())).data.fingerprints.items() if s != "S"},
            "ranking": self.ranking(), "per_release": per,
        })

    def ranking(self) -> list[str]:
        """The releases from the least to the most risky, as a reader would rank them.

        First by the verdict adjusted for choosing among them (low, inconclusive, medium, high, then not
        assessed), then by the verdict alone, then by how many checks behind the verdict showed a risk (medium
        or high) and how many of the people in the training data the strongest membership attack finds at a 1%
        false-positive rate (fewer first), then by how far each release is from the real data column by column
        (the marginal distance: the more faithful first), then in the order given.

        Returns
        -------
        list of str
        """
        adjusted, alone = self.adjusted_verdicts, self.verdicts
        utility = self.utility()
        order = {name: i for i, name in enumerate(self.evaluations)}

        def key(name: str) -> tuple:
            distance = utility[name].get("marginal_distance")
            shown = sum(1 for _, level in alone[name].checks if level in ("medium", "high"))
            attacks = [r["tpr"] for r in self._release_dict(name)["membership_attacks"] if r["tpr"] is not None]
            return (LEVEL_RANK.get(adjusted[name].level, len(LEVEL_RANK)),
                    LEVEL_RANK.get(alone[name].level, len(LEVEL_RANK)), shown, max(attacks, default=0.0),
                    float("inf") if distance is None else float(distance), order[name])

        return sorted(self.evaluations, key=key)

    def chosen(self, name: str | None = None) -> str:
        """The release a document is written for: ``name`` when given (it must be one of the releases), else the
        first of :meth:`ranking`.

        Raises
        ------
        ValueError
            Naming the releases, when ``name`` is not one of them.
        """
        if name is None:
            return self.ranking()[0]
        if name not in self.evaluations:
            raise ValueError(f"no release is named {name!r}; the releases are {', '.join(map(repr, self.names))}")
        return name

    def figure(self, metric: str, index: int = 0) -> Any:
        """One metric's figure for every release, panels side by side on shared axis ranges, in the ranking's order
        (a notebook widget: :func:`~synthpriv_report.display.widgets.side_by_side`).

        Parameters
        ----------
        metric : str
            A metric every release computed (its name, e.g. ``"dcr"``).
        index : int, default 0
            Which of the metric's declared figures.

        Raises
        ------
        ValueError
            When a release has no result for ``metric``.
        """
        from ..display.widgets import side_by_side

        results = self.results()
        missing = [name for name in self.evaluations if metric not in results[name]]
        if missing:
            raise ValueError(f"no result for {metric!r} in {', '.join(map(repr, missing))}; the metrics computed "
                             f"are {', '.join(results[self.names[0]])}")
        return side_by_side({name: results[name][metric] for name in self.ranking()}, index=index)

    def write_reports(self, *, html: str | None = None, pdf: str | None = None, json: str | None = None,
                      chosen: str | None = None, **options: Any) -> list[Any]:
        """Write the comparison's documents, each whole or not at all: the chosen release's report (``chosen``, or
        the first of :meth:`ranking`) with a page on choosing among the releases after its dossier, as HTML and
        PDF, and the comparison's JSON document (:func:`synthpriv_report.export.comparison.write_comparison_reports`,
        whose ``engine``, ``title``, ``reveal_real_values`` and ``inputs`` ``options`` takes).

        Returns
        -------
        list of pathlib.Path
            The written files, in the order html, pdf, json.
        """
        from ..export.comparison import write_comparison_reports

        return write_comparison_reports(self, chosen=chosen, html=html, pdf=pdf, json=json, **options)

    def _repr_html_(self) -> str:
        from ..display.comparison import render_comparison

        return render_comparison(self.to_dict())

    def __repr__(self) -> str:
        done = len(self._results) == self.n_compared
        if not done:
            return f"Comparison({self.n_compared} releases: {', '.join(map(repr, self.names))}; not yet evaluated)"
        lines = [f"Comparison of {self.n_compared} releases (verdicts; adjusted for choosing among "
                 f"{self.n_compared}: false-alarm rate {self.alpha:g} / {self.n_compared})"]
        adjusted = self._adjusted if len(self._adjusted) == self.n_compared else {}
        for name, rs in self._results.items():
            adj = adjusted.get(name)
            lines.append(f"  {name}: {rs.verdict.level}" + (f" (adjusted: {adj.verdict.level})" if adj else ""))
        return "\n".join(lines)
