"""Auditing a generator rather than one release: repeated training runs, canaries in one run, an empirical ε.

Everything an :class:`~synthpriv_report.evaluation.evaluation.Evaluation` measures comes from one synthetic sample
drawn after
one training run on one split: it cannot tell how much of a number is the generator and how much the luck of that
sample (G. Ganev, E. De Cristofaro, "On the Inadequacy of Similarity-based Privacy Metrics", IEEE S&P 2025), and it
cannot run the attacks that need the generator itself. :func:`audit` takes the generator (anything with ``fit`` and
``sample``: :mod:`synthpriv_report.evaluation.generators`) and does two things with it.

**Repeated draws.** The generator is trained ``runs`` times, each run seeded from the audit's ``random_state``, on
the same training records (``resample="same"``) or on a fresh random subsample of them (``resample="subsample"``:
each run's members are then the records it was trained on), and each release is evaluated by the one evaluation
engine, exactly as a stand-alone :class:`~synthpriv_report.evaluation.evaluation.Evaluation` would. Work on the real
records
alone (searches between real sets, the holdout's calibration) is done once and shared by every run whose real side
is provably the same. Each metric is reported with its spread over the runs and with the interval a new release of
this generator is expected to fall in: the runs' mean plus or minus Student's t times the square root of the total
variance of D. B. Rubin's combining rules ("Multiple Imputation for Nonresponse in Surveys", Wiley 1987; for
synthetic data T. E. Raghunathan, J. P. Reiter, D. B. Rubin, "Multiple Imputation for Statistical Disclosure
Limitation", J. Official Statistics 2003), ``T = U + (1 + 1/R) B``: the mean within-run variance ``U`` (from each
run's own 95% interval) plus the between-run variance ``B`` inflated for estimating the mean from ``R`` runs. That
is the prediction variance of one more release's value, so the interval includes the generator's randomness.

**The generator's verdict** is graded on the runs, check by check: each check behind the verdict takes the highest
level that a strict majority of the runs reach (with 5 runs, the level at least 3 of them reach or exceed), and the
verdict is the highest of those levels, as a single release's verdict is the highest level of its checks. A strict
majority keeps the false-alarm rate of each check at or below its single-release rate (two runs must both flag it;
three of four; three of five), and describes the release this generator typically makes; how many runs reached
each level is reported beside it, with an exact (Clopper-Pearson) interval for the share of releases that would be
graded medium or high.

**Canaries in one training run** (T. Steinke, M. Nasr, M. Jagielski, "Privacy Auditing with One (1) Training Run",
NeurIPS 2023). ``m = canaries`` records are chosen: half of them the training records that the membership attacks
find most exposed (the strongest attack's highest-scored members in the first run, or, without runs, the most
atypical training records: farthest from any other, after M. Meeus, F. Guépin, A.-M. Creţu, Y.-A. de Montjoye,
"Achilles' Heels: Vulnerable Record Identification in Synthetic Data Publishing", ESORICS 2023), half crafted
outliers (a training record with about half of its values moved to the rarest category or to the column's minimum or
maximum). Each canary is included in the training data independently with probability 1/2 (seeded); the training
records that are not canaries are always included. The generator is trained once, one release drawn, and the
distance-ratio membership attack (the distance to the nearest reference record over the distance to the nearest
synthetic record) scores every canary. The auditor guesses "in" for the highest-scored and "out" for the
lowest-scored canaries (or "in" only, abstaining on every low score: a generator that reproduces some of its
training records gives sure "in" guesses but no sure "out" ones), at several numbers of guesses fixed in advance,
and the number of correct guesses gives a lower bound on ε at 95% confidence, the Bonferroni correction paying for
the best of those tries (:func:`synthpriv_report.stats.one_run_audit`). A small bound is no evidence of privacy; a
bound above the ε the generator declares (the release context's ``generator.epsilon``) is evidence that it does not
deliver its declared guarantee, an implementation or accounting error (M. S. M. S. Annamalai, G. Ganev, E. De
Cristofaro, "'What do you want from theory alone?' Experimenting with Tight Auditing of Differentially Private
Synthetic Data Generation", USENIX Security 2024). Such a contradiction makes the generator's verdict high.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from ..core import progress
from ..core.registry import get_spec
from ..core.results import to_jsonable
from ..stats import clopper_pearson, one_run_audit
from .evaluation import Evaluation, _release_context
from .generators import as_generator
from .shadow import ShadowOutcome, shadow_attack

__all__ = ["AUDIT_SCHEMA", "Audit", "audit", "crafted_canaries", "generator_level", "grade_generator", "rubin_interval"]

#: The identifier of an audit's JSON layout.
AUDIT_SCHEMA = "synthpriv_report.evaluation.audit/1"

#: Verdict levels from the least to the most risky (a check that could not run ranks below every level).
_LEVEL_ORDER = {None: -1, "low": 0, "inconclusive": 1, "medium": 2, "high": 3}
_Z975 = 1.959963984540054
#: The membership attack that scores the canaries (a module of the membership family).
CANARY_ATTACK = "mia_distance_ratio"
#: The numbers of guesses the canary audit tries, as shares of the canaries (``ceil(m / share)``), fixed before any
#: score is seen; each is tried balanced ("in" and "out" guesses) and "in" only.
CANARY_GUESS_SHARES = (50, 20, 10, 5, 4, 3, 2, 1)
#: The most training runs a shadow-model attack may cost (targets times trainings per target).
SHADOW_MAX_TRAININGS = 400
#: Salt of the canaries' seeded streams, apart from the evaluations' own streams.
_STREAM_CANARY = 0xCA7A


# ---------------------------------------------------------------------------------------------------------------
# the arithmetic


def rubin_interval(values: Sequence[float], halfwidths: Sequence[float | None], *, confidence: float = 0.95
                   ) -> tuple[float, float] | None:
    """The interval in which one more run's value is expected: ``mean ± t_ν sqrt(U + (1 + 1/R) B)``.

    ``U`` is the mean within-run variance, each run's taken from its own two-sided 95% interval as
    ``(half-width / 1.96)²`` (0 where a run has no interval), ``B`` the sample variance of the ``R`` values, and
    ``ν`` Rubin's degrees of freedom ``(R - 1) (1 + U / ((1 + 1/R) B))²`` (infinite where ``B = 0``).

    Parameters
    ----------
    values : sequence of float
        The metric's value in each run (at least two).
    halfwidths : sequence of float or None
        Each run's 95% interval half-width, or None.
    confidence : float, default 0.95

    Returns
    -------
    (float, float) or None
        None with fewer than two values.

    Examples
    --------
    Two runs at 0.2 and 0.4 with no interval of their own: ``B = 0.02``, ``T = 1.5 B = 0.03``, ``ν = 1``, and
    ``t_{1, 0.975} = 12.706``:

    >>> lo, hi = rubin_interval([0.2, 0.4], [None, None]); round(hi - 0.3, 4), round(12.7062 * 0.03 ** 0.5, 4)
    (2.2008, 2.2008)
    """
    from scipy.stats import t as student

    v = np.asarray(values, dtype=float)
    r = v.size
    if r < 2:
        return None
    u = float(np.mean([(h / _Z975) ** 2 if h is not None and math.isfinite(h) else 0.0 for h in halfwidths]))
    b = float(np.var(v, ddof=1))
    total = u + (1.0 + 1.0 / r) * b
    q = 0.5 + confidence / 2
    if b > 0:
        nu = (r - 1) * (1.0 + u / ((1.0 + 1.0 / r) * b)) ** 2
        mult = float(student.ppf(q, nu))
    else:
        mult = float(_Z975 if confidence == 0.95 else student.ppf(q, 1e12))
    half = mult * math.sqrt(total)
    mean = float(np.mean(v))
    if half <= 1e-12 * max(1.0, abs(mean)):  # rounding noise in the runs' own intervals, not a spread
        half = 0.0
    return mean - half, mean + half


def generator_level(levels: Sequence[str | None]) -> str | None:
    """The level a strict majority of runs reach or exceed: the runs' levels sorted from the most to the least
    risky, the one at position ``floor(R / 2)`` (counting from 0). None where a majority could not run the check.

    >>> generator_level(["high", "medium", "low", "low", "low"]), generator_level(["high", "medium", "medium", "low"])
    ('low', 'medium')
    >>> generator_level(["high", "low"]), generator_level(["high", "high"])
    ('low', 'high')
    """
    if not levels:
        return None
    ordered = sorted(levels, key=lambda lv: _LEVEL_ORDER.get(lv, -1), reverse=True)
    return ordered[len(ordered) // 2]


def grade_generator(checks: Sequence[Mapping[str, Any]], run_levels: Sequence[str], *, declared: float | None,
                    measured: float | None) -> dict[str, Any]:
    """The generator's verdict, from the runs' levels and the ε pair (the module's description has the rule).

    Parameters
    ----------
    checks : sequence of dict
        Per check behind the verdict: ``metric``, ``title`` and ``run_levels`` (each run's level, None where it
        could not run).
    run_levels : sequence of str
        Each run's own verdict.
    declared, measured : float or None
        The declared ε and the canary audit's lower bound (None: not declared, not measured).

    Returns
    -------
    dict
        ``level``, ``reasons`` (sentences for the reader), ``checks`` (each with the generator's ``level``),
        ``run_levels``, ``flagged`` (runs graded medium or high, with a 95% Clopper-Pearson interval of the share
        of releases that would be) and ``contradicts_declared``.

    Examples
    --------
    >>> c = [{"metric": "m", "title": "A check", "run_levels": ["high", "high", "low"]}]
    >>> v = grade_generator(c, ["high", "high", "low"], declared=None, measured=None)
    >>> v["level"], v["flagged"]["flagged"], v["checks"][0]["level"]
    ('high', 2, 'high')
    >>> grade_generator(c[:0], [], declared=1.0, measured=1.5)["level"]
    'high'
    """
    reasons: list[str] = []
    out_checks = []
    level: str | None = None
    n_runs = len(run_levels)
    shown: dict[str, list[str]] = {"high": [], "medium": []}
    for c in checks:
        g = generator_level(list(c["run_levels"]))
        out_checks.append({"metric": c["metric"], "title": c["title"], "run_levels": list(c["run_levels"]),
                           "level": g})
        if _LEVEL_ORDER.get(g, -1) > _LEVEL_ORDER.get(level, -1):
            level = g
        if g in ("medium", "high"):
            n = sum(1 for lv in c["run_levels"] if lv in ("medium", "high"))
            shown[g].append(f"{c['title']} ({n} of {n_runs})")
    for g, titles in shown.items():
        if titles:
            which = "this check" if len(titles) == 1 else "these checks"
            reasons.append(f"{g.capitalize()} risk in the typical release, on {which} (in brackets, how many "
                           f"releases showed a risk on it): {'; '.join(titles)}.")
    flagged = sum(1 for lv in run_levels if lv in ("medium", "high"))
    share = None
    if n_runs:
        lo, hi = clopper_pearson(flagged, n_runs)
        share = {"flagged": flagged, "runs": n_runs, "share": flagged / n_runs, "interval": [lo, hi]}
    contradicts = declared is not None and measured is not None and measured > declared
    if contradicts:
        level = "high"
        reasons.append(f"The canaries show ε ≥ {measured:.2f} at 95% confidence, above the declared ε = "
                       f"{declared:g}: the generator does not deliver the privacy guarantee it declares.")
    elif measured is not None and measured > 0 and declared is None:
        if _LEVEL_ORDER.get(level, -1) < _LEVEL_ORDER["medium"]:
            level = "medium"
        reasons.append(f"The canary audit tells included from left-out canaries beyond chance (ε ≥ {measured:.2f} "
                       "at 95% confidence): whether a person was in the training data shows in what the generator "
                       "produces.")
    if level is None:
        level = "not_assessed"
    if level == "low" and not reasons:
        reasons.append("Every check behind the verdict ruled its risk out in the typical release.")
    return {"level": level, "reasons": reasons, "checks": out_checks, "run_levels": list(run_levels),
            "flagged": share, "contradicts_declared": contradicts}


def crafted_canaries(train: pd.DataFrame, m: int, *, random_state: int = 0) -> pd.DataFrame:
    """``m`` crafted outliers made from training records: each is a training record (drawn at random) with about
    half of its columns (at least one, drawn at random) moved to an extreme: a numeric column to its minimum or
    maximum in the training data (one of the two at random), a categorical one to its rarest value. A record equal
    to a training record or to an earlier canary is drawn again (up to 50 times, then kept). Missing values are
    never chosen as an extreme.

    Parameters
    ----------
    train : DataFrame
        The training records (not modified).
    m : int
    random_state : int

    Returns
    -------
    DataFrame
        ``m`` rows, the training columns and dtypes, a fresh index.

    Examples
    --------
    >>> T = pd.DataFrame({"x": [1, 2, 3, 4], "c": ["a", "a", "a", "b"]})
    >>> C = crafted_canaries(T, 3, random_state=0)
    >>> len(C), set(C.x) <= {1, 2, 3, 4}, set(C.c) <= {"a", "b"}
    (3, True, True)
    """
    rng = np.random.default_rng(np.random.SeedSequence([int(random_state), _STREAM_CANARY, 1]))
    cols = list(train.columns)
    extremes: dict[str, list[Any]] = {}
    for c in cols:
        s = train[c]
        if pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s):
            finite = s[np.isfinite(s.astype(float))] if s.notna().any() else s
            extremes[c] = [finite.min(), finite.max()] if len(finite) else [s.iloc[0]]
        else:
            counts = s.dropna().value_counts(sort=False)
            extremes[c] = [counts.idxmin()] if len(counts) else [s.iloc[0]]
    seen = set(map(tuple, train.astype(object).itertuples(index=False, name=None)))
    rows: list[list[Any]] = []
    for _ in range(int(m)):
        for _attempt in range(50):
            base = list(train.iloc[int(rng.integers(len(train)))])
            moved = rng.random(len(cols)) < 0.5
            if not moved.any():
                moved[int(rng.integers(len(cols)))] = True
            for j in np.flatnonzero(moved):
                options = extremes[cols[j]]
                base[j] = options[int(rng.integers(len(options)))]
            key = tuple(base)
            if key not in seen:
                break
        seen.add(tuple(base))
        rows.append(base)
    out = pd.DataFrame(rows, columns=cols)
    for c in cols:
        try:
            out[c] = out[c].astype(train[c].dtype)
        except (TypeError, ValueError):
            pass
    return out


# ---------------------------------------------------------------------------------------------------------------
# the audit


@dataclass
class Run:
    """One training run: its seed, how the generator took it, its times and its evaluation."""

    index: int
    seed: int
    seeded: bool
    seeding: str
    generator_seconds: float
    evaluation: Evaluation
    n_training: int
    shared_steps: int = 0


@dataclass
class CanaryRun:
    """The one training run with canaries, and what the attack made of it."""

    n_vulnerable: int
    n_crafted: int
    selected_by: str
    included: np.ndarray
    scores: np.ndarray
    outcome: Any
    seed: int
    seeded: bool
    seeding: str
    generator_seconds: float
    package_seconds: float
    n_training: int
    extra: dict[str, Any] = field(default_factory=dict)


def _training(real: pd.DataFrame, resample: str, fraction: float, seed: int) -> pd.DataFrame:
    if resample == "same":
        return real
    rng = np.random.default_rng(seed)
    n = max(2, int(round(fraction * len(real))))
    rows = np.sort(rng.choice(len(real), size=n, replace=False))
    return real.iloc[rows]


def _canonical(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame``'s rows in an order of their values alone (by a 64-bit hash of each row; equal rows are alike
    whatever their order), with a fresh index: the generator, the subsamples and the canaries then see the same
    records in the same order whatever the order of the caller's rows. The caller's frame is not modified."""
    h = pd.util.hash_pandas_object(frame, index=False).to_numpy()
    return frame.iloc[np.argsort(h, kind="stable")].reset_index(drop=True)


def _check_int(name: str, value: Any, low: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} must be a whole number of at least {low}, got {value!r}")
    return int(value)


class Audit:
    """The outcome of :func:`audit`: the runs, the canary run and the generator's verdict.

    Attributes
    ----------
    runs : list of Run
        Each training run with its evaluation (``run.evaluation``).
    canary : CanaryRun or None
        The one-run canary audit, where ``canaries > 0``.
    shadow : ShadowOutcome or None
        The shadow-model attack, where ``shadow_targets > 0``.
    generator : dict
        What was audited (class, package, version, settings) and how each run was seeded.
    """

    def __init__(self, *, runs: list[Run], canary: CanaryRun | None, generator: Mapping[str, Any],
                 settings: Mapping[str, Any], context: Mapping[str, Any] | None, seconds: float,
                 shadow: ShadowOutcome | None = None, shadow_selected_by: str | None = None):
        self.runs = runs
        self.canary = canary
        self.shadow = shadow
        self.shadow_selected_by = shadow_selected_by
        self.generator = dict(generator)
        self.settings = dict(settings)
        self.release_context = context
        self.seconds = seconds
        self._dict: dict[str, Any] | None = None

    # -----------------------------------------------------------------------------------------------------------
    @property
    def declared_epsilon(self) -> float | None:
        """The ε the release context declares for the generator (``generator.epsilon``), or None."""
        gen = (self.release_context or {}).get("generator") or {}
        eps = gen.get("epsilon")
        return None if eps is None else float(eps)

    @property
    def declared_delta(self) -> float:
        gen = (self.release_context or {}).get("generator") or {}
        return float(gen.get("delta") or 0.0)

    @property
    def epsilon_lower_bound(self) -> float | None:
        """The measured ε lower bound at 95% confidence: the canary audit's, or, without canaries, the shadow-model
        attack's pooled bound; None with neither. (Each is a 95% bound alone: the larger of the two would not be,
        so the shadow attack's bound is the measured one only where no canary audit ran.)"""
        if self.canary is not None:
            return float(self.canary.outcome.epsilon_bound)
        return None if self.shadow is None else float(self.shadow.epsilon)

    @property
    def measured_by(self) -> str | None:
        """What the measured ε comes from."""
        if self.canary is not None:
            return "canaries"
        return None if self.shadow is None else "shadow"

    @property
    def contradicts_declared(self) -> bool:
        """Whether the measured lower bound exceeds the declared ε (evidence the guarantee is not delivered)."""
        eps, lb = self.declared_epsilon, self.epsilon_lower_bound
        return eps is not None and lb is not None and lb > eps

    def metric_summary(self) -> list[dict[str, Any]]:
        """Each metric's values over the runs: mean, standard deviation, minimum, median, maximum and the interval
        one more release is expected in (:func:`rubin_interval`), clipped to the metric's declared range; the count
        of runs at each level."""
        if not self.runs:
            return []
        results = [r.evaluation.results() for r in self.runs]
        out = []
        for name in results[0]:
            vals, halves, levels = [], [], []
            for rs in results:
                res = rs.get(name)
                levels.append(None if res is None or not res.computed else res.level)
                if res is None or not res.computed or res.value is None or not math.isfinite(float(res.value)):
                    continue
                vals.append(float(res.value))
                iv = res.interval
                halves.append(None if iv is None or iv[0] is None or iv[1] is None
                              or not (math.isfinite(iv[0]) and math.isfinite(iv[1])) else (iv[1] - iv[0]) / 2)
            spec = get_spec(name)
            row: dict[str, Any] = {"metric": name, "title": spec.title, "direction": spec.direction,
                                   "values": vals, "halfwidths": halves, "n_runs": len(vals),
                                   "levels": {lv: levels.count(lv) for lv in ("low", "inconclusive", "medium", "high")
                                              if levels.count(lv)},
                                   "drives_verdict": name in self.runs[0].evaluation.verdict_metrics}
            if vals:
                a = np.asarray(vals)
                row.update(mean=float(a.mean()), sd=float(a.std(ddof=1)) if a.size > 1 else 0.0, min=float(a.min()),
                           median=float(np.median(a)), max=float(a.max()))
                iv = rubin_interval(vals, halves)
                if iv is not None:
                    lo, hi = spec.value_range if spec.value_range is not None else (-math.inf, math.inf)
                    iv = (max(iv[0], lo), min(iv[1], hi))
                row["interval"] = iv
            out.append(row)
        return out

    def verdict(self) -> dict[str, Any]:
        """The generator's verdict (:func:`grade_generator` on the runs' levels and the ε pair)."""
        checks = []
        if self.runs:
            for metric in self.runs[0].evaluation.verdict_metrics:
                per = []
                for r in self.runs:
                    res = r.evaluation.results().get(metric)
                    per.append(None if res is None or not res.computed else res.level)
                checks.append({"metric": metric, "title": get_spec(metric).title, "run_levels": per})
        run_levels = [r.evaluation.results().verdict.level for r in self.runs]
        return grade_generator(checks, run_levels, declared=self.declared_epsilon, measured=self.epsilon_lower_bound)

    def to_dict(self) -> dict[str, Any]:
        """The audit as a JSON-ready dictionary (layout :data:`AUDIT_SCHEMA`): the generator, the settings, each
        run (seed, times, verdict, synthetic fingerprint, the strongest attack's ε lower bound), each metric's
        summary over the runs, the verdict, the canary audit (counts, the guesses and correct guesses at each
        number of guesses, the ε bound) and ``epsilon`` (declared against measured). No record and no per-record
        score is included."""
        if self._dict is None:
            runs = []
            for r in self.runs:
                rs = r.evaluation.results()
                worst = rs.get("mia_worst_case")
                runs.append({"run": r.index + 1, "seed": r.seed, "seeded": r.seeded,
                             "generator_seconds": r.generator_seconds,
                             "n_training": r.n_training, "verdict": rs.verdict.level,
                             "fingerprint": r.evaluation.data.fingerprints.get("S"),
                             "searches": len(r.evaluation.searches), "shared_steps": r.shared_steps,
                             "epsilon_lower_bound": (worst.details or {}).get("epsilon_lower_bound")
                             if worst is not None and worst.computed else None})
            canary = None
            if self.canary is not None:
                c = self.canary
                canary = {"canaries": int(c.included.size), "included": int(c.included.sum()),
                          "vulnerable": c.n_vulnerable, "crafted": c.n_crafted, "selected_by": c.selected_by,
                          "attack": CANARY_ATTACK, "seed": c.seed, "seeded": c.seeded, "seeding": c.seeding,
                          "generator_seconds": c.generator_seconds,
                          "package_seconds": c.package_seconds, "n_training": c.n_training,
                          "outcome": c.outcome.to_dict()}
            shadow = None
            if self.shadow is not None:
                shadow = self.shadow.to_dict()
                for t in shadow["targets"]:  # no per-record number of a real person: counts and thresholds only
                    t["runs"] = [{k: r[k] for k in ("role", "included", "seed")} for r in t["runs"]]
                shadow["selected_by"] = self.shadow_selected_by
            first = self.runs[0].evaluation if self.runs else None
            self._dict = to_jsonable({
                "schema": AUDIT_SCHEMA,
                "generator": self.generator,
                "settings": self.settings,
                "real_sets": {} if first is None else {k: v for k, v in first.data.fingerprints.items() if k != "S"},
                "runs": runs,
                "metrics": self.metric_summary(),
                "verdict": self.verdict(),
                "canaries": canary,
                "shadow": shadow,
                "epsilon": {"declared": self.declared_epsilon, "delta": self.declared_delta,
                            "measured": self.epsilon_lower_bound, "measured_from": self.measured_by,
                            "measured_by": {"canaries": "one-run canary audit, 95% confidence",
                                            "shadow": "shadow-model attack, pooled over its targets, 95% confidence",
                                            None: None}[self.measured_by],
                            "contradicts_declared": self.contradicts_declared},
                "seconds": self.seconds,
            })
        return self._dict

    def write_reports(self, *, html: str | None = None, pdf: str | None = None, json: str | None = None,
                      **options: Any) -> list[Any]:
        """Write the audit's documents, each whole or not at all: the first run's report with a "Generator audit"
        page after its dossier, as HTML and PDF, and the audit's JSON document
        (:func:`synthpriv_report.export.audit.write_audit_reports`, whose ``engine``, ``title``,
        ``reveal_real_values`` and ``inputs`` ``options`` takes).

        Returns
        -------
        list of pathlib.Path
            The written files, in the order html, pdf, json.
        """
        from ..export.audit import write_audit_reports

        return write_audit_reports(self, html=html, pdf=pdf, json=json, **options)

    def _repr_html_(self) -> str:
        from ..display.audit import render_audit

        return render_audit(self.to_dict())

    def __repr__(self) -> str:
        v = self.verdict()
        parts = [f"Audit of {self.generator.get('name', 'a generator')}: verdict {v['level']}",
                 f"  {len(self.runs)} training run(s); runs' verdicts: {', '.join(v['run_levels']) or 'none'}"]
        eps = self.declared_epsilon
        if self.canary is not None:
            parts.append(f"  canaries: {self.canary.included.size}, ε ≥ {self.canary.outcome.epsilon_bound:.3f} (95%)"
                         + ("" if eps is None else f"; declared ε = {eps:g}"))
        if self.shadow is not None:
            sh = self.shadow
            parts.append(f"  shadow-model attack: {sh.n_targets} targets x {sh.trainings_per_target} trainings, TPR "
                         f"{sh.tpr:.2f}, FPR {sh.fpr:.2f}, pooled ε ≥ {sh.epsilon:.3f} (95%)"
                         + ("" if eps is None or self.canary is not None else f"; declared ε = {eps:g}"))
        return "\n".join(parts)


def _exposed(train: pd.DataFrame, k: int, first: Evaluation | None, seed: int) -> tuple[np.ndarray, str]:
    """Positions in ``train`` of the ``k`` training records ranked most exposed, and how they were ranked: the
    strongest membership attack's highest scores on ``first``'s release, or, without it (or where its attacks could
    not run), the most atypical records."""
    if first is not None:
        try:
            table = first.vulnerable_records(k=k, reveal_real_values=False)
            return (np.asarray(table.index, dtype=np.int64)[:k],
                    "the highest scores of the strongest membership attack on the first run's release")
        except ValueError:
            pass
    return _most_atypical(train, k, seed), "the most atypical training records (farthest from any other)"


def _canary_set(train: pd.DataFrame, m: int, first: Evaluation | None, seed: int
                ) -> tuple[pd.DataFrame, np.ndarray, int, int, str]:
    """The canaries: (canary frame, positions in ``train`` of the exposed ones, counts, how chosen)."""
    n_vul = m - m // 2
    n_craft = m // 2
    rows, how = _exposed(train, n_vul, first, seed)
    vul = train.iloc[rows]
    rest = train.iloc[np.setdiff1d(np.arange(len(train)), rows)]
    craft = crafted_canaries(rest, n_craft, random_state=seed)
    canaries = pd.concat([vul, craft], ignore_index=True)
    return canaries, rows, len(rows), n_craft, how


def _most_atypical(train: pd.DataFrame, k: int, seed: int) -> np.ndarray:
    """Positions of the ``k`` training records farthest (Gower) from their nearest other training record, by an
    evaluation of the training data against itself."""
    ev = Evaluation(train, train, None, metrics=["dcr"], calibrate=False, progress=False, random_state=seed,
                    row_order="as_given")
    from ..metrics.attacks.mia_common import atypicality

    ev.results(metrics=["dcr"])
    a = np.asarray(atypicality(ev.context), dtype=float)
    order = np.lexsort((np.arange(a.size), -a))
    return np.sort(order[:k])


def audit(generator: Any, real: pd.DataFrame, holdout: pd.DataFrame, *, runs: int = 5, canaries: int = 0,
          resample: Literal["same", "subsample"] = "same", fraction: float = 0.5, n_synthetic: int | None = None,
          reference: pd.DataFrame | None = None, key_fields: Sequence[str] | None = None,
          sensitive_fields: Sequence[str] | None = None, random_state: int = 0, progress_bars: bool = True,
          context: Mapping[str, Any] | str | None = None, settings: Mapping[str, Any] | None = None,
          shadow_targets: int = 0, shadow_trainings: int = 20, **options: Any) -> Audit:
    """Audit a generator: train it ``runs`` times and evaluate every release, and (``canaries > 0``) train it once
    more with canaries and bound ε from the guesses of a membership attack (the module's docstring has the
    method and its sources).

    Parameters
    ----------
    generator : generator, factory, (fit, sample) pair or adapter name
        Anything :func:`synthpriv_report.evaluation.generators.as_generator` takes: an object with ``fit(frame)`` and
        ``sample(n)``, a factory returning one, a pair of callables, or ``"sdv:GaussianCopulaSynthesizer"``.
    real : DataFrame
        The training records (never modified).
    holdout : DataFrame
        Real records of the same population the generator never sees: the evaluations' holdout and the attack's
        reference and non-member targets.
    runs : int, default 5
        Training runs to evaluate (0: canaries only).
    canaries : int, default 0
        Canaries of the one-run audit (0: none; at least 20 otherwise).
    resample : {"same", "subsample"}, default "same"
        Each run trains on all of ``real``, or on a random subsample of ``fraction`` of it (its own per run).
    fraction : float, default 0.5
    n_synthetic : int, optional
        Records drawn per release; default as many as the run's training records.
    reference, key_fields, sensitive_fields, **options
        As in :class:`~synthpriv_report.evaluation.evaluation.Evaluation`, for every run's evaluation.
    random_state : int, default 0
        Seeds the training runs, the subsamples, the canaries and every evaluation.
    progress_bars : bool, default True
        A bar over the training runs, with ETA.
    context : release context, optional
        As ``Evaluation(context=)``; its ``generator.epsilon`` is the declared ε the audit checks.
    settings : dict, optional
        Keyword settings of an adapter named by string.
    shadow_targets : int, default 0
        Targets of the shadow-model attack (:func:`synthpriv_report.evaluation.shadow.shadow_attack`): the training
        records
        ranked most exposed, as the canaries' first half; 0: no shadow attack.
    shadow_trainings : int, default 20
        Training runs per shadow target (half shadow runs, half evaluation runs; at least 4). The attack costs
        ``shadow_targets * shadow_trainings`` trainings, at most 400.

    Returns
    -------
    Audit

    Raises
    ------
    ValueError
        A bad setting (naming it), or real data the generator's output does not match
        (:class:`synthpriv_report.evaluation.generators.GeneratorError` names the run and what was returned).
    """
    start = time.perf_counter()
    runs = _check_int("runs", runs, 0)
    canaries = _check_int("canaries", canaries, 0)
    if canaries and canaries < 20:
        raise ValueError(f"canaries must be 0 or at least 20 (fewer cannot bound ε usefully), got {canaries}")
    shadow_targets = _check_int("shadow_targets", shadow_targets, 0)
    shadow_trainings = _check_int("shadow_trainings", shadow_trainings, 4)
    if runs == 0 and canaries == 0 and shadow_targets == 0:
        raise ValueError("nothing to audit: give runs >= 1, canaries >= 20 or shadow_targets >= 1")
    if shadow_targets * shadow_trainings > SHADOW_MAX_TRAININGS:
        raise ValueError(f"shadow_targets x shadow_trainings = {shadow_targets} x {shadow_trainings} = "
                         f"{shadow_targets * shadow_trainings} training runs, more than {SHADOW_MAX_TRAININGS}; "
                         "choose fewer targets or fewer trainings")
    if resample not in ("same", "subsample"):
        raise ValueError(f"resample must be 'same' or 'subsample', got {resample!r}")
    if not (0.0 < float(fraction) < 1.0):
        raise ValueError(f"fraction must lie strictly between 0 and 1, got {fraction!r}")
    if not isinstance(real, pd.DataFrame) or not isinstance(holdout, pd.DataFrame):
        raise TypeError("audit() needs the training records and the holdout as pandas DataFrames (it hands the "
                        "training records to the generator)")
    if isinstance(random_state, (bool, np.bool_)) or not isinstance(random_state, (int, np.integer)):
        raise ValueError(f"random_state must be a whole number, got {random_state!r}")
    if canaries and canaries > len(real) // 2:
        raise ValueError(f"canaries={canaries} is more than half of the {len(real)} training records")
    context = _release_context(context)  # a bad context is refused before any training run
    real, holdout = _canonical(real), _canonical(holdout)
    recipe = as_generator(generator, settings=settings, random_state=int(random_state))
    names = dict(options.pop("names", None) or {})
    seeds = [recipe.run_seed(i) for i in range(runs + 1)]
    ev_options = dict(options, reference=reference, key_fields=key_fields, sensitive_fields=sensitive_fields,
                      random_state=int(random_state), progress=False, context=context)
    done: list[Run] = []
    bar = progress.bar(runs + (1 if canaries else 0), "training runs", enabled=progress_bars, unit="run")
    try:
        for i in range(runs):
            train = _training(real, resample, float(fraction), seeds[i] ^ 0x5EED)
            n = len(train) if n_synthetic is None else int(n_synthetic)
            t0 = time.perf_counter()
            frame, info = recipe.train_and_sample(train, n, seeds[i], run=i + 1)
            generator_seconds = time.perf_counter() - t0
            ev = Evaluation(train, frame, holdout, names={**names, "synthetic": f"training run {i + 1}"},
                            **ev_options)
            shared = 0
            for other in done:
                shared += ev._adopt_real_side(other.evaluation)
            ev.results()
            done.append(Run(index=i, seed=seeds[i], seeded=info.seeded, seeding=info.how,
                            generator_seconds=generator_seconds, evaluation=ev, n_training=len(train),
                            shared_steps=shared))
            bar.update(1)
        canary = None
        if canaries:
            # the first run's attack scores rank the training records only where it was trained on all of them
            ranked = done[0].evaluation if done and resample == "same" else None
            canary = _canary_run(recipe, real, holdout, canaries, ranked,
                                 seeds[runs], int(random_state), n_synthetic, reference, context)
            bar.update(1)
        shadow, shadow_how = None, None
        if shadow_targets:
            ranked = done[0].evaluation if done and resample == "same" else None
            positions, how = _exposed(real, shadow_targets, ranked, recipe.run_seed(runs + 1))
            rest = real.iloc[np.setdiff1d(np.arange(len(real)), positions)]
            shadow = shadow_attack(recipe, rest, real.iloc[positions], trainings=shadow_trainings,
                                   n_synthetic=n_synthetic, random_state=int(random_state), max_trainings=
                                   SHADOW_MAX_TRAININGS, delta=float(((context or {}).get("generator") or {}).get(
                                       "delta") or 0.0), progress_bars=progress_bars)  # its own bar, with ETA
            shadow_how = how
    finally:
        bar.close()
    settings_out = {"runs": runs, "canaries": canaries, "shadow_targets": shadow_targets,
                    "shadow_trainings": shadow_trainings if shadow_targets else None, "resample": resample,
                    "fraction": float(fraction) if resample == "subsample" else None,
                    "n_synthetic": n_synthetic, "random_state": int(random_state),
                    "n_training": len(real), "n_holdout": len(holdout),
                    "evaluation": done[0].evaluation.settings_dict() if done else None}
    gen = {"name": recipe.description, **recipe.to_dict()}
    gen["seeded"] = all(r.seeded for r in done) and (canary is None or canary.seeded)
    gen["seeding"] = (done[0].seeding if done else canary.seeding if canary is not None else "")
    return Audit(runs=done, canary=canary, generator=gen, settings=settings_out, context=context,
                 seconds=time.perf_counter() - start, shadow=shadow,
                 shadow_selected_by=shadow_how)


def _canary_run(recipe: Any, real: pd.DataFrame, holdout: pd.DataFrame, m: int, first: Evaluation | None,
                seed: int, random_state: int, n_synthetic: int | None, reference: pd.DataFrame | None,
                context: Any) -> CanaryRun:
    t0 = time.perf_counter()
    canaries, rows, n_vul, n_craft, how = _canary_set(real, m, first, seed)
    rng = np.random.default_rng(np.random.SeedSequence([seed, _STREAM_CANARY, 2]))
    order = rng.permutation(m)  # the canaries' order, itself random: ties among scores fall by it
    canaries = canaries.iloc[order].reset_index(drop=True)
    included = rng.random(m) < 0.5
    base = real.iloc[np.setdiff1d(np.arange(len(real)), rows)]
    train = pd.concat([base, canaries[included]], ignore_index=True)
    train = train.iloc[rng.permutation(len(train))].reset_index(drop=True)
    n = len(train) if n_synthetic is None else int(n_synthetic)
    t_prep = time.perf_counter() - t0
    t_gen = time.perf_counter()
    frame, info = recipe.train_and_sample(train, n, seed, run="with canaries")
    t1 = time.perf_counter()
    ev = Evaluation(canaries, frame, holdout, reference=reference, metrics=[CANARY_ATTACK], calibrate=False,
                    progress=False, random_state=random_state, row_order="as_given",
                    names={"real": "canaries", "synthetic": "canary run"})
    res = ev.results(metrics=[CANARY_ATTACK])[CANARY_ATTACK]
    if not res.computed:
        raise ValueError(f"the canary attack could not run: {res.reason_not_computed}")
    from ..metrics.attacks.mia_distance_ratio import scores as distance_ratio_scores

    member_scores, _ = distance_ratio_scores(ev.context)
    delta = float(((context or {}).get("generator") or {}).get("delta") or 0.0)
    grid = sorted({max(1, -(-m // share)) for share in CANARY_GUESS_SHARES})
    outcome = one_run_audit(np.asarray(member_scores, dtype=float), included, confidence=0.95, delta=delta,
                            grid=grid, sides=("balanced", "in"))
    package = t_prep + (time.perf_counter() - t1)
    return CanaryRun(n_vulnerable=n_vul, n_crafted=n_craft, selected_by=how, included=included,
                     scores=np.asarray(member_scores, dtype=float), outcome=outcome, seed=seed, seeded=info.seeded,
                     seeding=info.how, generator_seconds=t1 - t_gen, package_seconds=package,
                     n_training=len(train))
