"""What the three anonymisation criteria share: the risk formula, its interval, the parameters and the words.

The Article 29 Working Party's Opinion 05/2014 on anonymisation techniques asks three questions of a released
dataset: can a person be *singled out*, can records be *linked* to a person, can something about a person be
*inferred*? Giomi et al., "A Unified Framework for Quantifying Privacy Risk in Synthetic Data" (PoPETs 2023)
turn each into an attack run three times: on training records using the synthetic data (the attack), the same
attack on holdout records the generator never saw (the control), and a random guess (the baseline). The risk is
the attack's success rate in excess of the control's, normalised:

    risk = (r_att - r_ctl) / (1 - r_ctl),

where each rate is the centre of a Wilson score interval, not the raw share, and the risk's error is the
first-order propagation of the two Wilson half-widths. Value and interval are clipped to [0, 1]. The baseline
never enters the risk: an attack that does no better than random guessing is flagged in a note.

This module holds that arithmetic (:func:`wilson_rate`, :func:`residual_risk`), the reduction shared by the
three metrics (:func:`criterion_result`), their common parameters, level rule, words and figure. The attacks
themselves are in :mod:`.singling_out`, :mod:`.linkability` and :mod:`.inference`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from ...core import plotting as plot
from ...core.formats import fmt_number, fmt_share
from ...core.registry import LevelSpec, Param, ResultJSON, TypedDict
from ...core.results import MetricResult
from ...stats import wilson_score_counts
from .._shared.arrays import SmallResult

#: The two public sources every report of these metrics cites.
OPINION = "Article 29 Working Party, Opinion 05/2014 on anonymisation techniques (WP216)"
PAPER = ('M. Giomi, F. Boenisch, C. Wehmeyer, B. Tasnádi, "A Unified Framework for Quantifying Privacy Risk in '
         'Synthetic Data", Proceedings on Privacy Enhancing Technologies (PoPETs) 2023')

#: The plain caveat every criterion's report carries.
CAVEAT = ("This is evidence for an anonymisation assessment under the Article 29 Working Party's Opinion 05/2014, "
          "not a legal opinion: the risks measure what these particular attacks achieve on these data.")

N_ATTACKS = Param("n_attacks", 2000, kind="int", low=10, high=1_000_000, label="attacks", reduces_only=False,
                  doc="Attacks per criterion (targets for linkability and inference, predicates for singling out); "
                      "a change runs the attacks again.")
CONFIDENCE_LEVEL = Param("confidence_level", 0.95, low=0.5, high=1.0, high_open=True, slider=(0.8, 0.99, 0.01),
                         label="confidence level",
                         doc="Confidence level of the Wilson intervals of the three criteria; a change re-reduces "
                             "the cached attack outcomes without attacking again.")


@dataclass(frozen=True)
class Rate(SmallResult):
    """A success rate as the unified framework reports it.

    Attributes
    ----------
    value : float
        Centre of the Wilson score interval, ``(k + z^2/2) / (n + z^2)``.
    error : float
        Half-width of the Wilson interval, ``z / (n + z^2) * sqrt(k (n - k) / n + z^2 / 4)``.
    successes : float
        ``k`` (a number of attacks; the size-corrected control count need not be whole).
    n : int
        Attacks.
    """

    value: float
    error: float
    successes: float
    n: int


def wilson_rate(successes: float, n: int, *, confidence_level: float = 0.95) -> Rate:
    """The Wilson score rate of ``successes`` in ``n`` attacks: its centre and half-width.

    Parameters
    ----------
    successes : float
        Successful attacks, ``0 <= successes <= n``.
    n : int
        Attacks, at least 1.
    confidence_level : float, default 0.95
        In (0, 1); ``z`` is the ``(1 + confidence_level) / 2`` quantile of the standard normal.

    Returns
    -------
    Rate
        The centre, not ``k / n``: with no success in 500 attacks the rate is about 0.0038.

    Examples
    --------
    >>> r = wilson_rate(0, 500)
    >>> round(r.value, 4), round(r.error, 4)
    (0.0038, 0.0038)
    >>> round(wilson_rate(50, 100).value, 12)
    0.5
    """
    if n <= 0:
        raise ValueError(f"a success rate needs at least one attack, got n={n}")
    k = float(successes)
    if not 0.0 <= k <= n:
        raise ValueError(f"successes must be in [0, {n}], got {successes}")
    z = NormalDist().inv_cdf((1.0 + confidence_level) / 2.0)
    centre, half = wilson_score_counts(k, n, z)
    return Rate(value=centre, error=half, successes=k, n=int(n))


@dataclass(frozen=True)
class Risk(SmallResult):
    """The risk of one criterion.

    Attributes
    ----------
    value : float
        The residual risk clipped to [0, 1].
    interval : tuple of (float, float)
        ``value ± error`` with the unclipped residual as centre, each end clipped to [0, 1].
    residual : float
        The unclipped residual ``(r_att - r_ctl) / (1 - r_ctl)``: negative when the control records were easier
        to attack than the training records (the clipped value hides this; the report shows it).
    error : float
        Its propagated half-width.
    """

    value: float
    interval: tuple[float, float]
    residual: float
    error: float


def residual_risk(attack: Rate, control: Rate) -> Risk:
    """The attack's success in excess of the control's, normalised, with its propagated error.

    ``residual = (r_att - r_ctl) / (1 - r_ctl)`` and ``error = sqrt((e_att / (1 - r_ctl))^2 +
    (e_ctl (r_att - 1) / (1 - r_ctl)^2)^2)`` (first-order propagation of the two Wilson half-widths); the value
    and both ends of ``residual ± error`` are clipped to [0, 1].

    Parameters
    ----------
    attack, control : Rate
        The Wilson rates of the attack on training records and of the same attack on holdout records.

    Returns
    -------
    Risk

    Examples
    --------
    >>> r = residual_risk(Rate(0.6, 0.0, 60, 100), Rate(0.2, 0.0, 20, 100))
    >>> round(r.value, 12), [round(x, 12) for x in r.interval]
    (0.5, [0.5, 0.5])
    >>> residual_risk(Rate(0.2, 0.01, 20, 100), Rate(0.5, 0.01, 50, 100)).value
    0.0
    """
    r_att, e_att = attack.value, attack.error
    r_ctl, e_ctl = control.value, control.error
    res = (r_att - r_ctl) / (1.0 - r_ctl)
    err = math.sqrt((e_att / (1.0 - r_ctl)) ** 2 + (e_ctl * (r_att - 1.0) / (1.0 - r_ctl) ** 2) ** 2)

    def clip(x: float) -> float:
        return min(1.0, max(0.0, x))

    return Risk(value=clip(res), interval=(clip(res - err), clip(res + err)), residual=res, error=err)


def criterion_rng(random_state: int | None, salt: int) -> np.random.Generator:
    """The generator one criterion draws from: ``default_rng([random_state, salt])``, a stream of its own for
    each criterion (``salt``) so that adding or removing one criterion moves no other's draws; unseeded when the
    evaluation's ``random_state`` is None."""
    return np.random.default_rng(None if random_state is None else [int(random_state), int(salt)])


def draw_rows(rng: np.random.Generator, n_rows: int, n: int) -> np.ndarray:
    """``n`` distinct positions of ``n_rows`` drawn from ``rng`` (sorted; all positions when ``n >= n_rows``)."""
    if n >= n_rows:
        return np.arange(n_rows, dtype=np.int64)
    return np.sort(rng.choice(n_rows, size=n, replace=False)).astype(np.int64)


def tie_note(share: float) -> tuple[str, ...]:
    """The report's note on tied nearest synthetic records (none when no target had a tie).

    >>> tie_note(0.0), tie_note(0.25)[0][:38]
    ((), '25% of the targets had several equally')
    """
    if not share > 0:
        return ()
    return (f"{fmt_share(share)} of the targets had several equally near synthetic records; the one listed first "
            "in the evaluation's row order was taken (the package's tie rule, the same in every run)",)


class CriterionDetails(TypedDict):
    """The keys :func:`criterion_result` adds to a criterion's own details: the three success rates with their
    Wilson intervals, the residual risk, its error, the sources and the caveat."""

    rates: dict[str, dict[str, Any]]
    confidence_level: float
    residual: float
    risk_error: float
    sources: list[str]
    caveat: str


def criterion_result(name: str, *, k_attack: float, n_attack: int, k_control: float, n_control: int,
                     k_baseline: float, n_baseline: int, confidence_level: float, details: dict[str, Any],
                     notes: tuple[str, ...] = (), space: str | None = None) -> MetricResult:
    """The result of one criterion from its success counts: the risk, its interval, the three rates.

    Parameters
    ----------
    name : str
        The metric.
    k_attack, n_attack, k_control, n_control, k_baseline, n_baseline : number
        Successes and attacks of the attack on training records, of the control (holdout records) and of the
        random-guess baseline; each has its own denominator.
    confidence_level : float
        Of the Wilson intervals.
    details : dict
        The criterion's own details (columns used, ties, sizes); the rates and counts are added.
    notes : tuple of str
        Report notes; one is added when the attack does no better than the baseline.
    space : str, optional
        The distance space the attack searched in.

    Returns
    -------
    MetricResult
        Value: the clipped risk; interval: its clipped ``value ± error`` at ``confidence_level``.
    """
    cl = float(confidence_level)
    att = wilson_rate(k_attack, n_attack, confidence_level=cl)
    ctl = wilson_rate(k_control, n_control, confidence_level=cl)
    base = wilson_rate(k_baseline, n_baseline, confidence_level=cl)
    risk = residual_risk(att, ctl)
    out_notes = tuple(notes)
    if base.value >= att.value:
        out_notes += ("the attack did no better than random guessing (its success rate is not above the "
                      "baseline's): the attack is too weak on these data for its risk to be evidence either way",)
    rates = {"attack": att.to_dict(), "control": ctl.to_dict(), "baseline": base.to_dict()}
    det = {**details, "rates": rates, "confidence_level": cl, "residual": risk.residual,
           "risk_error": risk.error, "sources": [OPINION, PAPER], "caveat": CAVEAT}
    return MetricResult(name=name, value=risk.value, interval=risk.interval, details=det, notes=out_notes,
                        space=space)


#: The level rule shared by the three criteria (they do not drive the verdict; see the module docstring of
#: each criterion and the report's appendix).
def _weak(r: MetricResult) -> str | None:
    """Why a criterion rules nothing out: its attack did no better than a random guess."""
    rates = r.details.get("rates") or {}
    att, base = (rates.get("attack") or {}).get("value"), (rates.get("baseline") or {}).get("value")
    if isinstance(att, (int, float)) and isinstance(base, (int, float)) and base >= att:
        return ("the attack did no better than a random guess, so its risk is no evidence either way; an attack "
                "too weak to succeed does not show that a stronger one would fail")
    return None


LEVEL = LevelSpec(
    medium=0.05, high=0.2, same_scale=True,
    of=lambda r: r.interval[0] if r.interval is not None else r.value,
    risky_end=lambda r: r.interval[1] if r.interval is not None else None, weak=_weak,
    risky_scale="the upper end of the risk's confidence interval",
    scale="the lower end of the risk's confidence interval",
    source="package default; the risk is that of " + PAPER + ", which gives no risk bands",
    description="high when the lower end of the risk's confidence interval is above {high}, medium when above "
                "{medium}: the attack succeeds on training records beyond what the same attack achieves on real "
                "records the generator never saw")


def rates_sentence(m: ResultJSON) -> str:
    """The three success rates of a result in words.

    >>> rates_sentence({"details": {"rates": {"attack": {"value": 0.5}, "control": {"value": 0.25},
    ...                                          "baseline": {"value": 0.01}}}})[-67:]
    'the same attack on 25% of the holdout records, a random guess on 1%'
    """
    r = (m.get("details") or {}).get("rates") or {}

    def v(key: str) -> Any:
        return (r.get(key) or {}).get("value")

    return (f"the attack succeeded on {fmt_share(v('attack'))} of the training records, the same attack on "
            f"{fmt_share(v('control'))} of the holdout records, a random guess on {fmt_share(v('baseline'))}")


def risk_words(m: ResultJSON) -> str:
    """The risk and its interval in words (``"0.12 (0.08 to 0.16 at 95% confidence)"``)."""
    iv = m.get("interval")
    cl = (m.get("details") or {}).get("confidence_level", 0.95)
    if not iv:
        return fmt_number(m.get("value"))
    return f"{fmt_number(m.get('value'))} ({fmt_number(iv[0])} to {fmt_number(iv[1])} at {cl:.0%} confidence)"


def residual_sentence(m: ResultJSON, knows: str, succeeds: str, tries: str = "attempts") -> str | None:
    """The residual risk of a criterion in a regulator's terms: the absolute success rates and the upper end of
    the risk's interval, read as what it is.

    The risk is Giomi et al.'s normalised excess ``(r_att - r_ctl) / (1 - r_ctl)``: the share of the success still
    open against records the generator never saw that membership of the training data adds. It is not a share of
    people, and a singling-out attempt is a rule, not a person: ``tries`` names what the rates count.

    >>> m = {"value": 0.01, "interval": [0.0, 0.02], "details": {"confidence_level": 0.95, "rates": {
    ...      "attack": {"value": 0.3}, "control": {"value": 0.29}, "baseline": {"value": 0.1}}}}
    >>> print(residual_sentence(m, "age and sex", "infers the income"))  # doctest: +NORMALIZE_WHITESPACE
    An attacker who knows age and sex infers the income in 30% of attempts on the training records and in 29% on
    real records the generator never saw (random guessing: 10%); being in the training data adds at most 2% of
    the success still open on those other records (95% upper bound; estimate 1%).
    """
    iv = m.get("interval")
    if not iv or iv[1] is None:
        return None
    d = m.get("details") or {}
    cl = float(d.get("confidence_level", 0.95))
    rates = d.get("rates") or {}

    def rate(key: str) -> str:
        return fmt_share((rates.get(key) or {}).get("value"))

    return (f"An attacker who knows {knows} {succeeds} in {rate('attack')} of {tries} on the training records and "
            f"in {rate('control')} on real records the generator never saw (random guessing: {rate('baseline')}); "
            f"being in the training data adds at most {fmt_share(iv[1])} of the success still open on those other "
            f"records ({cl:.0%} upper bound; estimate {fmt_share(m.get('value'))}).")


def attacks_note(m: ResultJSON) -> str | None:
    """The sample a criterion rests on: its attacks, drawn at random from the evaluation's random state."""
    d = m.get("details") or {}
    n = d.get("n_attacks", d.get("n_queries"))
    if n is None:
        return None
    return (f"{fmt_number(n)} attacks (of {fmt_number(d.get('n_attacks_asked', n))} asked) on records drawn at "
            f"random with the evaluation's random state {d.get('random_state')}; the same settings give the same "
            f"draws")


#: What every criterion cannot see.
LIMITATION = ("it measures what this one attack achieves; a stronger attacker (with access to the generator, "
              "outside registers to link with, or several releases from the same training data) may do better")


def plot_rates(result: Any, ax: Any) -> Any:
    """The attack, control and baseline success rates with their Wilson intervals, drawn from the result alone.

    Parameters
    ----------
    result : MetricResult
        A criterion's result (``details["rates"]``).
    ax : matplotlib Axes

    Returns
    -------
    matplotlib Axes
    """
    ax = plot.new_ax(ax)
    if result is None or not result.computed:
        return plot.empty(ax, "not computed")
    rates = result.details["rates"]
    labels = ["attack\n(training)", "control\n(holdout)", "baseline\n(random)"]
    keys = ["attack", "control", "baseline"]
    colours = [plot.COLORS["S"], plot.COLORS["H"], plot.COLORS["T"]]
    vals = [float(rates[k]["value"]) for k in keys]
    errs = [float(rates[k]["error"]) for k in keys]
    ypos = np.arange(3)[::-1]
    ax.barh(ypos, vals, xerr=errs, color=colours, capsize=4, height=0.6)
    ax.set_yticks(ypos)
    ax.set_yticklabels(labels)
    # from 0 to the furthest interval end (rates of a few percent are not drawn on the whole [0, 1])
    plot.fit_axis(ax, [0.0, *(v - e for v, e in zip(vals, errs)), *(v + e for v, e in zip(vals, errs))],
                  low=0.0, high=1.0)
    cl = float(result.details.get("confidence_level", 0.95))
    ax.set_xlabel(f"success rate (Wilson centre, {cl:.0%} interval)")
    ax.set_title(f"{result.title or result.name}: risk {fmt_number(result.value)}")
    return ax


__all__ = ["Rate", "Risk", "wilson_rate", "residual_risk", "criterion_result", "criterion_rng", "draw_rows",
           "N_ATTACKS", "CONFIDENCE_LEVEL", "LEVEL", "OPINION", "PAPER", "CAVEAT", "plot_rates", "rates_sentence",
           "risk_words", "tie_note", "residual_sentence", "attacks_note", "LIMITATION"]
