"""``inference_risk``: can a person's sensitive value be inferred from the synthetic data?

The attack of Giomi et al. (PoPETs 2023) for the inference criterion of the Article 29 Working Party's Opinion
05/2014: the attacker knows a target's key fields (the auxiliary columns) and guesses the secret, a sensitive
field, as the secret of the synthetic record nearest to the target on those columns. It is run on ``n_attacks``
training records (the attack) and on as many holdout records (the control); a random guess, the secret of a
synthetic record drawn at random, is the baseline. One risk per sensitive field; the headline is the worst.

**On the package's engine.** The nearest synthetic record is found by the evaluation's exact neighbour search in
the Gower space restricted to the key fields (:class:`~synthpriv_report.spaces.SpaceSpec`), so it is searched once
and shared. Differences from anonymeter 1.1.0's distance (sum over columns of |a - b| / range for numbers, 0/1
for categories), each of which can only matter where two candidates are nearly tied:

- numbers are scaled by the range of the *real* records (training and holdout), as every other Gower metric of
  the package does; anonymeter scales by the range of the synthetic records plus the targets of one call, so its
  training and holdout attacks use slightly different scales;
- a scaled numeric difference is capped at 1 (only a synthetic value outside the real range reaches the cap);
- the distance is the mean over columns, anonymeter's the sum: the same ranking;
- a missing number is 0 from a missing number and 1 from any value; anonymeter adds 1 for two missing numbers and
  never picks a candidate with one missing number. Missing categories are a level of their own in both.

**Exact and reproducible.** Targets are drawn without replacement from ``default_rng([random_state, 3])`` in the
evaluation's canonical row order (training targets, then holdout targets, then the baseline's synthetic
records), so the same ``random_state`` gives the same numbers whatever the order of the rows. Among tied nearest
synthetic records the lowest position wins (the package's tie rule); the share of targets whose nearest record
is tied is reported.

**Fixes of anonymeter 1.1.0's behaviour.**

- The baseline guesses are the secrets of synthetic records drawn at random, matched to targets by position;
  anonymeter 1.1.0 aligns them on index labels, so most baseline guesses are missing and the baseline rate is
  far too low (1.0.0 matched by position).
- A numeric secret is guessed correctly when ``|guess - secret| <= inference_tolerance * |secret|`` (default 5%);
  anonymeter 1.1.0 compares numbers exactly by default and, when asked for a tolerance, takes it relative to the
  guess, so that any negative guess counts as correct.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ... import stats
from ...core.registry import (
    Computation,
    FigureSpec,
    Grading,
    MetricSpec,
    Param,
    Presentation,
    ResultJSON,
    Words,
    register,
)
from ...core.results import MetricResult, not_computed
from ...spaces import SpaceSpec
from ._common import (
    CAVEAT,
    CONFIDENCE_LEVEL,
    LEVEL,
    LIMITATION,
    N_ATTACKS,
    CriterionDetails,
    attacks_note,
    criterion_result,
    criterion_rng,
    draw_rows,
    plot_rates,
    rates_sentence,
    residual_sentence,
    risk_words,
    tie_note,
)

INFERENCE_TOLERANCE = Param("inference_tolerance", 0.05, low=0.0, high=1.0, slider=(0.0, 0.2, 0.01),
                            label="numeric secret tolerance",
                            doc="A guess of a numeric secret is correct within this share of the secret's "
                                "magnitude (0: exact); categorical secrets must match exactly.")

_SALT = 3


def correct_guesses(guess: ArrayLike, secret: ArrayLike, *, numeric: bool, tolerance: float = 0.05
                    ) -> NDArray[np.bool_]:
    """Whether each guess of a secret is correct.

    Parameters
    ----------
    guess, secret : array-like, shape (n,)
        Category codes (``numeric=False``) or numbers with NaN for missing (``numeric=True``).
    numeric : bool
        How to compare.
    tolerance : float, default 0.05
        Numbers: correct when ``|guess - secret| <= tolerance * |secret|``; two missing values are a correct
        guess, one missing value a wrong one. Categories: equal codes.

    Returns
    -------
    ndarray of bool, shape (n,)

    Examples
    --------
    >>> correct_guesses([100.0, -5.0, np.nan, 96.0], [100.0, 100.0, np.nan, 100.0], numeric=True).tolist()
    [True, False, True, True]
    >>> correct_guesses([1, 2], [1, 1], numeric=False).tolist()
    [True, False]
    """
    if not numeric:
        equal: NDArray[np.bool_] = np.asarray(guess) == np.asarray(secret)
        return equal
    g = np.asarray(guess, dtype=np.float64)
    s = np.asarray(secret, dtype=np.float64)
    both = np.isnan(g) & np.isnan(s)
    with np.errstate(invalid="ignore"):
        ok = np.abs(g - s) <= tolerance * np.abs(s) + stats.ABS_TOL
    correct: NDArray[np.bool_] = both | (ok & ~np.isnan(g) & ~np.isnan(s))
    return correct


def _aux_space(ctx: Any) -> SpaceSpec:
    return SpaceSpec("gower", columns=tuple(ctx.settings["key_fields"]))


def _targets(ctx: Any, n_attacks: int) -> tuple[Any, Any, NDArray[np.int64]]:
    """The training and holdout targets (subset references) and the baseline's synthetic positions."""

    def make() -> tuple[Any, Any, NDArray[np.int64]]:
        rng = criterion_rng(ctx.random_state, _SALT)
        n = min(int(n_attacks), ctx.size(ctx.T), ctx.size(ctx.H))
        t_rows = draw_rows(rng, ctx.size(ctx.T), n)
        h_rows = draw_rows(rng, ctx.size(ctx.H), n)
        base = rng.integers(0, ctx.size(ctx.S), size=n).astype(np.int64)
        return (ctx.subset(ctx.T, t_rows, f"inference_risk.targets{n}"),
                ctx.subset(ctx.H, h_rows, f"inference_risk.control{n}"), base)

    targets: tuple[Any, Any, NDArray[np.int64]] = ctx.memo(
        ("inference_risk.targets", ctx.T, ctx.H, ctx.S, ctx.random_state, int(n_attacks)), make)
    return targets


def _plan(ctx: Any, params: dict[str, Any]) -> list[Any]:
    if ctx.H is None or not ctx.settings["sensitive_fields"]:
        return []
    sp = _aux_space(ctx)
    t_ref, h_ref, _ = _targets(ctx, params["n_attacks"])
    return [ctx.request(sp, t_ref, ctx.S, 2), ctx.request(sp, h_ref, ctx.S, 2)]


def _values(ctx: Any, set_name: str, column: str) -> tuple[NDArray[Any], bool]:
    if ctx.data.kinds[column] == "numeric":
        return ctx.data.numeric[set_name][:, ctx.data.numeric_columns.index(column)], True
    return ctx.fitted.codes[set_name][:, ctx.data.categorical_columns.index(column)].astype(np.int64), False


def _outcomes(ctx: Any, n_attacks: int) -> dict[str, Any]:
    """The raw outcomes of the attack (cached): per target, the guessed and true secrets of each sensitive field,
    for the training targets, the holdout targets and the baseline."""
    sp = _aux_space(ctx)

    def build() -> dict[str, Any]:
        t_ref, h_ref, base = _targets(ctx, n_attacks)
        tab_t, tab_h = ctx.knn(sp, t_ref, ctx.S, 2), ctx.knn(sp, h_ref, ctx.S, 2)
        out: dict[str, Any] = {"n": int(t_ref.rows.shape[0]), "secrets": {}}
        tied = np.zeros(0, dtype=bool)
        for tab in (tab_t, tab_h):
            tied = np.concatenate([tied, stats.ties(tab.dist[:, 0], tab.dist[:, 1])])
        out["tied_share"] = float(tied.mean()) if tied.size else 0.0
        out["tied_share_training"] = float(stats.ties(tab_t.dist[:, 0], tab_t.dist[:, 1]).mean())
        for col in ctx.settings["sensitive_fields"]:
            syn, numeric = _values(ctx, ctx.S, col)
            tv, _ = _values(ctx, ctx.T, col)
            hv, _ = _values(ctx, ctx.H, col)
            out["secrets"][col] = {
                "numeric": numeric,
                "attack": (syn[tab_t.idx[:, 0]], tv[t_ref.rows]),
                "control": (syn[tab_h.idx[:, 0]], hv[h_ref.rows]),
                "baseline": (syn[base], tv[t_ref.rows]),
            }
        return out

    outcomes: dict[str, Any] = ctx.memo(
        ("inference_risk.outcomes", sp, ctx.T, ctx.H, ctx.S, ctx.random_state, int(n_attacks)), build)
    return outcomes


def _compute(ctx: Any, params: dict[str, Any]) -> MetricResult:
    if ctx.H is None:
        return not_computed("inference_risk", "needs a holdout set: the control attack runs on it")
    raw = _outcomes(ctx, params["n_attacks"])
    n = raw["n"]
    if n == 0:
        return not_computed("inference_risk", "no record to attack")
    tol = float(params["inference_tolerance"])
    per: dict[str, MetricResult] = {}
    for col, o in raw["secrets"].items():
        k = {part: int(correct_guesses(*o[part], numeric=o["numeric"], tolerance=tol).sum())
             for part in ("attack", "control", "baseline")}
        per[col] = criterion_result("inference_risk", k_attack=k["attack"], n_attack=n, k_control=k["control"],
                                    n_control=n, k_baseline=k["baseline"], n_baseline=n,
                                    confidence_level=params["confidence_level"], details={})
    worst = max(per, key=lambda c: (per[c].value, per[c].details["residual"]))
    head = per[worst]
    details = {
        **head.details,
        "secret": worst,
        # criterion_result always sets the interval (Risk.interval is a tuple)
        "per_secret": {c: {"risk": r.value, "interval": list(cast("tuple[float, float]", r.interval)),
                           "residual": r.details["residual"],
                           "rates": r.details["rates"]} for c, r in per.items()},
        "aux_columns": list(ctx.settings["key_fields"]),
        "aux_columns_chosen": ctx.settings.get("key_fields_chosen", ""),
        "n_attacks": n,
        "n_attacks_asked": int(params["n_attacks"]),
        "tied_share": raw["tied_share"],
        "inference_tolerance": tol,
        "random_state": ctx.random_state,
    }
    notes = tuple(dict.fromkeys(n_ for r in per.values() for n_ in r.notes)) + tie_note(raw["tied_share"])
    return MetricResult(name="inference_risk", value=head.value, interval=head.interval, details=details,
                        notes=notes, space=_aux_space(ctx).label)


def inference_finding(m: ResultJSON) -> str:
    """The cover's sentence.

    >>> m = {"value": 0.1, "interval": [0.05, 0.15], "details": {"secret": "income", "confidence_level": 0.95,
    ...      "rates": {"attack": {"value": 0.8}, "control": {"value": 0.78}, "baseline": {"value": 0.6}}}}
    >>> inference_finding(m)[:60]
    "Inference risk for 'income' (the worst sensitive field): 0.1"
    """
    d = m.get("details") or {}
    return (f"Inference risk for {d.get('secret')!r} (the worst sensitive field): {risk_words(m)}; guessing it "
            f"from the nearest synthetic record on the key fields, {rates_sentence(m)}.")


class InferenceRiskDetails(CriterionDetails):
    """The details of ``inference_risk``: the keys every criterion's result has (:class:`CriterionDetails`),
    and its own."""

    secret: str
    per_secret: dict[str, Any]
    aux_columns: list[str]
    aux_columns_chosen: str
    n_attacks: int
    n_attacks_asked: int
    tied_share: float
    inference_tolerance: float
    random_state: int


register(MetricSpec(
    name="inference_risk",
    computation=Computation(
        compute=_compute, plan=_plan, needs=("holdout", "sensitive_fields"), default_space="gower",
        params=(N_ATTACKS, CONFIDENCE_LEVEL, INFERENCE_TOLERANCE), copy_sensitive=True, details=InferenceRiskDetails),
    grading=Grading(
        direction="higher_is_riskier", value_range=(0.0, 1.0), value_kind="number", level=LEVEL, drives_verdict=False),
    presentation=Presentation(
        title="Inference risk (anonymisation criterion)", section="package", group="criteria",
        summary="How much better an attacker who knows a person's key fields guesses their sensitive value from the "
                "synthetic data for training records than for real records the generator never saw.",
        definition="For each target, the secret of the synthetic record nearest on the key fields is the guess. The "
                   "risk is the success rate on training targets in excess of that on holdout targets, normalised "
                   "(Giomi et al. 2023), one per sensitive field; the worst is shown. " + CAVEAT,
        words=Words(measures="whether something about a person (a sensitive value) can be inferred from the synthetic "
                             "data: an attacker who knows a person's key fields takes the sensitive value of the "
                             "nearest synthetic record as the guess",
                    high_means="a high value is risky: the guesses are right more often for the people in the "
                               "training data than for people the generator never saw",
                    ideal="0 (the attack works no better on training records than on fresh real records)"),
        interval_kind="Wilson, propagated to the risk (confidence_level, default 95%)",
        figures=(FigureSpec(plot_rates, "Success of the inference attack on training records, of the same attack on "
                            "holdout records and of a random guess, with their Wilson intervals", size=(6.0, 2.2),
                            needs_evidence=False),),
        finding=inference_finding,
        residual_risk=lambda m: residual_sentence(
            m, ", ".join((m.get("details") or {}).get("aux_columns", [])) or "the key fields",
            f"infers the {(m.get('details') or {}).get('secret')} (the sensitive field with the highest risk)"),
        limitation=LIMITATION + "; what is true of the population (a sensitive value common among people like the "
                   "target) is inferred for training and fresh records alike and is not counted as a leak",
        sample_note=attacks_note),
))
