"""The one level policy: every level shown anywhere comes from :func:`apply_level`.

A metric's default rule is its declaration's :class:`~synthpriv_report.core.registry.LevelSpec` (thresholds on a
stated scale, or a rule such as "copies beyond the holdout's own share"). ``levels={name: {"medium": m,
"high": h}}`` replaces it for any metric that has a level, with thresholds on the metric's headline value in the
metric's direction (both keys, every metric alike: ``None`` switches a level off; a default rule may grade another
quantity, such as a confidence bound, so a missing threshold is never borrowed from it). With ``"on": "rule"`` the
two numbers move the default rule's own thresholds instead: the rule grades the same quantity, in that quantity's
direction (D for the holdout tests, where higher is riskier, while their value is a score where higher is safer),
with the same interval test (what the level sliders of ``explore()`` set). ``levels={family: {...}}`` moves a
shared rule (``review_absolute``, ``review_excess``).

Comparisons use the tie tolerance of :func:`synthpriv_report.stats.ties`, so rounding can never move a value
across a threshold, and a value that is not a finite number is never graded: the metric is reported as not
computed, with the reason.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace

from .. import stats
from ..core.formats import fmt_on_unit
from ..core.params import validate_levels  # noqa: F401  (the checks of levels= live with the parameters)
from ..core.registry import LevelSpec, MetricSpec, resolve_level
from ..core.results import Direction, Level, LevelRule, MetricResult, RuleUnit, not_computed


def beyond(value: float, threshold: float, direction: Direction, *, inclusive: bool = False) -> bool:
    """Whether ``value`` is on the risky side of ``threshold``; a tie (within rounding) counts only when
    ``inclusive``.

    >>> beyond(0.55 + 1e-17, 0.55, "higher_is_riskier"), beyond(0.56, 0.55, "higher_is_riskier")
    (False, True)
    >>> beyond(50.0, 50.0, "higher_is_safer", inclusive=True)
    True
    """
    v, t = float(value), float(threshold)
    tie = bool(stats.ties([v], [t])[0])
    if tie:
        return inclusive
    return v > t if direction == "higher_is_riskier" else v < t


def grade(value: float, direction: Direction, *, medium: float | None, high: float | None,
          inclusive: bool | tuple[bool, bool] = False) -> Level:
    """Level of ``value`` against thresholds (with the tie tolerance).

    For ``higher_is_riskier``: high above ``high``, medium above ``medium``; for ``higher_is_safer`` below them.

    >>> grade(0.56, "higher_is_riskier", medium=0.5, high=0.55)
    'high'
    >>> grade(70.0, "higher_is_safer", medium=90, high=50)
    'medium'
    """
    inc_m, inc_h = inclusive if isinstance(inclusive, tuple) else (inclusive, inclusive)
    if high is not None and beyond(value, high, direction, inclusive=inc_h):
        return "high"
    if medium is not None and beyond(value, medium, direction, inclusive=inc_m):
        return "medium"
    return "low"


def on_headline(ls: LevelSpec | None, spec: MetricSpec) -> bool:
    """Whether a rule's thresholds are numbers on the metric's headline scale (the value itself, or a bound of
    it), in the metric's direction; user thresholds are then merged with them and compared the same way."""
    return (ls is not None and ls.rule is None and (ls.of is None or ls.same_scale)
            and ls.direction in (None, spec.direction))


def _unit(spec: MetricSpec, ls: LevelSpec | None) -> RuleUnit:
    """How a rule's thresholds read (``LevelRule.unit``): in percent or percentage points when the metric's value
    is a share and the rule (``None``: thresholds on the value itself) grades that share, a bound of it or a
    difference of shares; else as numbers."""
    if spec.kind() != "share":
        return "number"
    if ls is None:
        return "percent"
    if ls.difference:
        return "points"
    return "percent" if ls.of is None or ls.same_scale else "number"


def _fmt(v: float | None, unit: RuleUnit) -> str:
    return fmt_on_unit(v, unit)


def _rule_text(ls: LevelSpec, medium: float | None, high: float | None, unit: RuleUnit,
               margin: float | None = None, direction: Direction = "higher_is_riskier") -> str:
    text = ls.description.format(medium=_fmt(medium, unit), high=_fmt(high, unit))
    if ls.risky_end is None:
        return text
    margin = ls.low_band if margin is None else margin
    side = "at most" if (ls.direction or direction) == "higher_is_riskier" else "at least"
    return f"{text}. Low only when {ls.risky_scale} is {side} {_fmt(margin, unit)}"


def rule_text(spec: MetricSpec, ls: LevelSpec) -> str:
    """A metric's default rule ``ls`` in words, its thresholds in the unit they read in (as in the report).

    >>> from synthpriv_report.core.registry import get_spec
    >>> spec = get_spec("holdout_dcr_share")
    >>> rule_text(spec, spec.level)[:84]
    'high when the share is above 55% beyond chance, medium when above 50% beyond chance:'
    """
    return _rule_text(ls, ls.medium, ls.high, _unit(spec, ls), ls.low_band, spec.direction)


def ruled_out(spec: MetricSpec, ls: LevelSpec, result: MetricResult, level: Level | None, margin: float | None,
              unit: RuleUnit) -> tuple[Level | None, float | None, str | None]:
    """A level of "low" kept only when the check rules the risk out: ``(level, risky_end, why_inconclusive)``.

    A rule that declares ``risky_end`` (:class:`~synthpriv_report.core.registry.LevelSpec`) grades three outcomes: a
    risk shown (medium, high: left as they are), ruled out (low: the risky end of the check's interval at its test
    level lies inside the low band, at ``margin`` or on its safe side) or neither (inconclusive, naming the bound
    it could not rule out). A check the rule calls weak on these data (``LevelSpec.weak``: an attack no better
    than its baseline) is inconclusive whatever its bound. A rule without ``risky_end`` keeps its level.

    >>> from synthpriv_report.core.registry import get_spec
    >>> spec = get_spec("holdout_dcr_share")
    >>> r = MetricResult("holdout_dcr_share", 0.5, details={"wins": 50, "ties": 0, "n": 100, "design_effect": 1.0})
    >>> ruled_out(spec, spec.level, r, "low", 0.6, "percent")[0]  # 100 records: the share may be up to 62%
    'inconclusive'
    """
    if level != "low" or ls.risky_end is None:
        return level, None, None
    direction = ls.direction or spec.direction
    raw = ls.risky_end(result)
    bound = float(raw) if raw is not None and math.isfinite(float(raw)) else None
    weak = ls.weak(result) if ls.weak is not None else None
    if weak:
        return "inconclusive", bound, weak
    if bound is None:
        return "inconclusive", None, f"{ls.risky_scale} could not be computed on these data, so no risk is ruled out"
    b = bound
    if margin is None or not beyond(b, margin, direction):
        return "low", b, None
    riskier = direction == "higher_is_riskier"
    what = f"a risk up to {_fmt(b, unit)}" if riskier else f"a value as low as {_fmt(b, unit)}"
    return "inconclusive", b, (f"cannot rule out {what} ({ls.risky_scale}); the risk is ruled out only "
                               f"{'at or below' if riskier else 'at or above'} {_fmt(margin, unit)}")


def apply_level(spec: MetricSpec, result: MetricResult, levels: Mapping[str, Mapping[str, float]] | None
                ) -> MetricResult:
    """``result`` with its level and the rule that produced it.

    A result that was not computed gets no level; a computed value that is not a finite number turns the result
    into "not computed" with the reason (it is never graded).
    """
    if not result.computed:
        return replace(result, level=None, level_rule=None)
    v = result.value
    if v is None or not isinstance(v, (int, float)) or not math.isfinite(float(v)):
        return not_computed(result.name, f"the value came out as {v!r}, not a finite number, so it is not "
                                         f"graded (extreme or degenerate input)",
                            details=result.details, space=result.space)
    if spec.level is None:
        return replace(result, level=None, level_rule=None)
    levels = levels or {}
    user = levels.get(spec.name)
    ls = resolve_level(spec, result)
    on_rule = user is not None and str(user.get("on")) == "rule"  # the rule's own thresholds moved (below)
    if user and ls is not None and not on_rule:
        headline = on_headline(ls, spec)
        m, h = user.get("medium"), user.get("high")
        basis = ls.of(result) if headline and ls.of is not None else float(v)
        if basis is None or math.isnan(float(basis)):
            basis = float(v)
        user_level = grade(float(basis), spec.direction, medium=m, high=h,
                           inclusive=ls.inclusive if headline else False)
        side = "above" if spec.direction == "higher_is_riskier" else "below"
        unit = _unit(spec, ls if headline else None)
        parts = []
        if h is not None:
            parts.append(f"high when {side} {_fmt(h, unit)}")
        if m is not None:
            parts.append(f"medium when {side} {_fmt(m, unit)}")
        scale = ls.scale if headline else "the value"
        margin = None
        if headline:
            margin = ls.negligible if ls.negligible is not None else (m if m is not None else h)
        out_level, risky, why = ruled_out(spec, ls, result, user_level, margin, unit) if headline else \
            (user_level, None, None)
        if headline and ls.risky_end is not None and margin is not None:
            parts.append(f"low only when the risk is ruled out at {_fmt(margin, unit)}")
        rule = LevelRule(medium=m, high=h, source="user",
                         description=f"set by the user for this report, on {scale}: "
                                     + ("; ".join(parts) or "no threshold"), scale=scale, graded=float(basis),
                         unit=unit, negligible=margin if ls.risky_end is not None else None, risky_end=risky,
                         inconclusive_because=why)
        return replace(result, level=out_level, level_rule=rule)
    if ls is None:
        return replace(result, level=None, level_rule=None)
    medium, high, source = ls.medium, ls.high, ls.source
    if on_rule and user is not None:
        medium, high, source = user.get("medium"), user.get("high"), "user"
    elif ls.family and ls.family in levels:
        fam_user = levels[ls.family]
        medium = fam_user.get("medium", medium)
        high = fam_user.get("high", high)
        source = "user"
    basis = None
    if ls.rule is not None:
        level: Level | None = ls.rule(result)
    else:
        basis = float(v) if ls.of is None else ls.of(result)
        if basis is None or math.isnan(float(basis)):
            level = None
        else:
            level = grade(float(basis), ls.direction or spec.direction, medium=medium, high=high,
                          inclusive=ls.inclusive)
    graded = None if basis is None or math.isnan(float(basis)) else float(basis)
    unit = _unit(spec, ls)
    margin = ls.negligible if ls.negligible is not None else (medium if medium is not None else high)
    level, risky, why = ruled_out(spec, ls, result, level, margin, unit)
    text = _rule_text(ls, medium, high, unit, margin, spec.direction)
    rule = LevelRule(medium=medium, high=high, source=source, description=text, scale=ls.scale, graded=graded,
                     unit=unit, negligible=margin if ls.risky_end is not None else None, risky_end=risky,
                     inconclusive_because=why)
    return replace(result, level=level, level_rule=rule)
