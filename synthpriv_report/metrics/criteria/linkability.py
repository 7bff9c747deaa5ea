"""``linkability_risk``: can two records about the same person be linked through the synthetic data?

The attack of Giomi et al. (PoPETs 2023) for the linkability criterion of the Article 29 Working Party's Opinion
05/2014: the attacker holds two datasets about the same people that share no column, one with the first half of
the key fields and one with the second half. For each target it looks up the ``link_neighbors`` synthetic
records nearest on each half; when the two lists share a synthetic record, the attacker links the two pieces of
the target's record. It is run on ``n_attacks`` training records (the attack) and as many holdout records (the
control); the baseline links two lists of synthetic records drawn at random.

**Columns.** The key fields (``key_fields=``; without them every analysed column that is not sensitive) in the
evaluation's column order, split in two: ``link_split="halves"`` (default) puts the first ceil(n/2) in one
half and the rest in the other, ``"alternate"`` puts the 1st, 3rd, ... in one and the 2nd, 4th, ... in the
other. The report lists both halves.

**On the package's engine.** Each half's nearest synthetic records come from the evaluation's exact neighbour
search in the Gower space restricted to that half's columns. Differences from anonymeter 1.1.0's distance (sum
over columns of |a - b| / range for numbers, 0/1 for categories), which only matter where candidates are nearly
tied: numbers are scaled by the real records' range (anonymeter: the synthetic records' plus the targets' of
one call), a scaled difference is capped at 1, the mean replaces the sum (same ranking), and a missing number is
0 from a missing number and 1 from a value (anonymeter: 1, and a candidate with one missing number is never
chosen).

**Ties.** With a few mostly categorical columns most targets have many equally near synthetic records (on
UCI Adult, 84-94% of targets). anonymeter keeps whichever an unstable sort puts first, so its link counts move
with the order of the rows; here the lowest position in the evaluation's canonical row order wins (the
package's tie rule), so two runs, and two row orders, give the same links. The share of targets whose
``link_neighbors``-th nearest record is tied with the next is reported.

**Reproducible.** Training targets, holdout targets and the baseline's random lists are drawn, in that order,
from ``default_rng([random_state, 2])``; anonymeter 1.1.0 draws its targets from numpy's global generator and its
baseline from an unseeded one.
"""

from __future__ import annotations

from typing import Any

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

LINK_NEIGHBORS = Param("link_neighbors", 1, kind="int", low=1, high=100, label="link neighbours",
                       reduces_only=False,
                       doc="Synthetic records looked up per half; a target is linked when the two halves' lists "
                           "share one.")
LINK_SPLIT = Param("link_split", "halves", kind="choice", choices=("halves", "alternate"), label="column split",
                   reduces_only=False,
                   doc="How the key fields are split between the attacker's two datasets: first and second half "
                       "of their order, or alternate columns.")

_SALT = 2


def split_columns(columns: tuple[str, ...] | list[str], how: str = "halves") -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The two halves of the key fields the linkability attacker holds.

    Examples
    --------
    >>> split_columns(["a", "b", "c", "d", "e"])
    (('a', 'b', 'c'), ('d', 'e'))
    >>> split_columns(["a", "b", "c", "d", "e"], "alternate")
    (('a', 'c', 'e'), ('b', 'd'))
    """
    cols = tuple(columns)
    if how == "alternate":
        return cols[0::2], cols[1::2]
    mid = (len(cols) + 1) // 2
    return cols[:mid], cols[mid:]


def linked(idx_a: ArrayLike, idx_b: ArrayLike) -> NDArray[np.bool_]:
    """Whether the two neighbour lists of each target share a synthetic record.

    Parameters
    ----------
    idx_a, idx_b : array-like of int, shape (n, k)
        Synthetic positions found on each half (``-1``: no record).

    Returns
    -------
    ndarray of bool, shape (n,)

    Examples
    --------
    >>> linked([[0, 1], [2, 3]], [[1, 5], [4, 5]]).tolist()
    [True, False]
    """
    a = np.asarray(idx_a, dtype=np.int64)
    b = np.asarray(idx_b, dtype=np.int64)
    if a.ndim == 1:
        a, b = a[:, None], b[:, None]
    eq = (a[:, :, None] == b[:, None, :]) & (a[:, :, None] >= 0)
    found: NDArray[np.bool_] = eq.any(axis=(1, 2))
    return found


def _halves(ctx: Any, split: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    keys = [c for c in ctx.data.columns if c in set(ctx.settings["key_fields"])]
    return split_columns(keys, split)


def _spaces(ctx: Any, split: str) -> tuple[SpaceSpec, SpaceSpec]:
    a, b = _halves(ctx, split)
    return SpaceSpec("gower", columns=a), SpaceSpec("gower", columns=b)


def _draws(ctx: Any, n_attacks: int, k: int) -> tuple[Any, Any, NDArray[np.int64], NDArray[np.int64]]:
    """Training and holdout targets (subset references) and the baseline's two random lists per target."""

    def make() -> tuple[Any, Any, NDArray[np.int64], NDArray[np.int64]]:
        rng = criterion_rng(ctx.random_state, _SALT)
        n = min(int(n_attacks), ctx.size(ctx.T), ctx.size(ctx.H))
        t_rows = draw_rows(rng, ctx.size(ctx.T), n)
        h_rows = draw_rows(rng, ctx.size(ctx.H), n)
        n_syn = ctx.size(ctx.S)
        kk = min(k, n_syn)
        # k distinct synthetic records per list, for every target the first list then the second
        lists = np.empty((2, n, kk), dtype=np.int64)
        for i in range(n):
            for j in range(2):
                lists[j, i] = rng.choice(n_syn, size=kk, replace=False)
        base_a, base_b = lists[0], lists[1]
        return (ctx.subset(ctx.T, t_rows, f"linkability_risk.targets{n}"),
                ctx.subset(ctx.H, h_rows, f"linkability_risk.control{n}"),
                base_a.astype(np.int64), base_b.astype(np.int64))

    draws: tuple[Any, Any, NDArray[np.int64], NDArray[np.int64]] = ctx.memo(
        ("linkability_risk.draws", ctx.T, ctx.H, ctx.S, ctx.random_state, int(n_attacks), int(k)), make)
    return draws


def _usable(ctx: Any, params: dict[str, Any]) -> str | None:
    if ctx.H is None:
        return "needs a holdout set: the control attack runs on it"
    a, b = _halves(ctx, params["link_split"])
    if not a or not b:
        return ("needs at least two key fields, one for each of the attacker's two datasets (key_fields=, on the "
                "command line --key)")
    return None


def _plan(ctx: Any, params: dict[str, Any]) -> list[Any]:
    if _usable(ctx, params) is not None:
        return []
    k = int(params["link_neighbors"])
    t_ref, h_ref, _, _ = _draws(ctx, params["n_attacks"], k)
    return [ctx.request(sp, q, ctx.S, k + 1) for sp in _spaces(ctx, params["link_split"]) for q in (t_ref, h_ref)]


def _outcomes(ctx: Any, n_attacks: int, k: int, split: str) -> dict[str, Any]:
    """The raw outcomes (cached): linked or not per target, for training targets, holdout targets, baseline."""
    spaces = _spaces(ctx, split)

    def build() -> dict[str, Any]:
        t_ref, h_ref, base_a, base_b = _draws(ctx, n_attacks, k)
        out: dict[str, Any] = {"n": int(t_ref.rows.shape[0])}
        tied = []
        for part, ref in (("attack", t_ref), ("control", h_ref)):
            tabs = [ctx.knn(sp, ref, ctx.S, k + 1) for sp in spaces]
            out[part] = linked(tabs[0].idx[:, :k], tabs[1].idx[:, :k])
            tie = np.zeros(out["n"], dtype=bool)
            for tab in tabs:
                tie |= stats.ties(tab.dist[:, k - 1], tab.dist[:, k])
            tied.append(tie)
        out["baseline"] = linked(base_a, base_b)
        out["tied_share"] = float(np.concatenate(tied).mean()) if out["n"] else 0.0
        return out

    outcomes: dict[str, Any] = ctx.memo(("linkability_risk.outcomes", spaces, ctx.T, ctx.H, ctx.S, ctx.random_state,
                                         int(n_attacks), int(k)), build)
    return outcomes


def _compute(ctx: Any, params: dict[str, Any]) -> MetricResult:
    why = _usable(ctx, params)
    if why is not None:
        return not_computed("linkability_risk", why)
    k, split = int(params["link_neighbors"]), params["link_split"]
    raw = _outcomes(ctx, params["n_attacks"], k, split)
    n = raw["n"]
    if n == 0:
        return not_computed("linkability_risk", "no record to attack")
    a, b = _halves(ctx, split)
    details = {"columns_a": list(a), "columns_b": list(b), "link_split": split, "link_neighbors": k,
               "key_fields_chosen": ctx.settings.get("key_fields_chosen", ""), "n_attacks": n,
               "n_attacks_asked": int(params["n_attacks"]), "tied_share": raw["tied_share"],
               "random_state": ctx.random_state}
    sa, sb = _spaces(ctx, split)
    return criterion_result("linkability_risk", k_attack=int(raw["attack"].sum()), n_attack=n,
                            k_control=int(raw["control"].sum()), n_control=n,
                            k_baseline=int(raw["baseline"].sum()), n_baseline=n,
                            confidence_level=params["confidence_level"], details=details,
                            notes=tie_note(raw["tied_share"]), space=f"{sa.label} and {sb.label}")


def linkability_finding(m: ResultJSON) -> str:
    """The cover's sentence.

    >>> m = {"value": 0.0, "interval": [0.0, 0.01], "details": {"columns_a": ["age"], "columns_b": ["sex"],
    ...      "rates": {"attack": {"value": 0.01}, "control": {"value": 0.01}, "baseline": {"value": 0.0}}}}
    >>> linkability_finding(m)[:40]
    'Linkability risk: 0 (0 to 0.01 at 95% co'
    """
    d = m.get("details") or {}
    return (f"Linkability risk: {risk_words(m)}; linking a person's {', '.join(d.get('columns_a', []))} to their "
            f"{', '.join(d.get('columns_b', []))} through the nearest synthetic records, {rates_sentence(m)}.")


class LinkabilityRiskDetails(CriterionDetails):
    """The details of ``linkability_risk``: the keys every criterion's result has (:class:`CriterionDetails`),
    and its own."""

    columns_a: list[str]
    columns_b: list[str]
    link_split: str
    link_neighbors: int
    key_fields_chosen: str
    n_attacks: int
    n_attacks_asked: int
    tied_share: float
    random_state: int


register(MetricSpec(
    name="linkability_risk",
    computation=Computation(
        compute=_compute, plan=_plan, needs=("holdout",), default_space="gower",
        params=(N_ATTACKS, CONFIDENCE_LEVEL, LINK_NEIGHBORS, LINK_SPLIT), copy_sensitive=False,
        details=LinkabilityRiskDetails),
    grading=Grading(
        direction="higher_is_riskier", value_range=(0.0, 1.0), value_kind="number", level=LEVEL, drives_verdict=False),
    presentation=Presentation(
        title="Linkability risk (anonymisation criterion)", section="package", group="criteria",
        summary="How much more often the two halves of a person's key fields can be linked through the synthetic data "
                "for training records than for real records the generator never saw.",
        definition="The attacker holds two datasets about the same people, one with each half of the key fields, and "
                   "links a person's two records when their nearest synthetic records on each half coincide. The risk "
                   "is the linkage success on training targets in excess of that on holdout targets, normalised "
                   "(Giomi et al. 2023). " + CAVEAT,
        words=Words(measures="whether records about the same person can be linked through the synthetic data: an "
                             "attacker who holds two datasets with different columns about a person matches each to "
                             "its nearest synthetic records and links them when these coincide",
                    high_means="a high value is risky: the synthetic data link the training records more often than "
                               "records of people the generator never saw",
                    ideal="0 (links succeed no more often for training records than for fresh real records)"),
        interval_kind="Wilson, propagated to the risk (confidence_level, default 95%)",
        figures=(FigureSpec(plot_rates, "Success of the linkage attack on training records, of the same attack on "
                            "holdout records and of random links, with their Wilson intervals", size=(6.0, 2.2),
                            needs_evidence=False),),
        finding=linkability_finding,
        residual_risk=lambda m: residual_sentence(
            m, f"a person's {', '.join((m.get('details') or {}).get('columns_a', []))} in one dataset and their "
               f"{', '.join((m.get('details') or {}).get('columns_b', []))} in another",
            "links the two records"),
        limitation=LIMITATION + "; the attacker links only through the nearest synthetic records on each half of the "
                   "key fields",
        sample_note=attacks_note),
))
