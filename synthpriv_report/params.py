"""Every default parameter and level threshold of the package, in one place (spec section 5).

Reduction parameters (``alpha``, thresholds, ...) can be passed to :meth:`Evaluation.results` and move without a
new neighbour search. Level thresholds are documented here and in the README; the report shows each beside the
value together with its source.
"""

from __future__ import annotations

from typing import Any

from .results import Direction, Level, LevelRule

#: Reduction parameters and their defaults. Changing one never triggers a neighbour search.
DEFAULT_PARAMS: dict[str, Any] = {
    # 2.3 proximity-ratio privacy score
    "alpha": 0.1,
    # 2.4 NNDR
    "nndr_threshold": 0.5,
    # 2.5 statistic of the holdout-referenced tests: "mean" or "median"
    "test_statistic": "mean",
    # 3: CVP / DVP' thresholds on the rescaled distance u
    "cvp_threshold": 0.2,
    "dvp_threshold": 0.8,
    # 3: HitR tolerance h(a) = range_T(a) / hitr_divisor
    "hitr_divisor": 30.0,
    # 3: AIR numeric tolerance |y - z| <= air_tolerance * |z|
    "air_tolerance": 0.1,
    # 4: bootstrap resamples for intervals of means/medians of per-record distances
    "n_bootstrap": 1000,
    # 4: per-record risk table, holdout DCR percentile
    "risk_percentile": 1.0,
    # 5: level thresholds, see LEVEL_THRESHOLDS (a dict of overrides may be passed as ``levels=``)
    "levels": None,
}

#: Parameters that are structural: changing them changes what is searched (they live on the Evaluation).
STRUCTURAL_PARAMS = ("nndr_k", "n_components", "max_rows", "random_state")

#: Level thresholds: name -> (medium, high, source, description). Values are on the metric's headline scale;
#: for ``higher_is_safer`` metrics a level fires *below* the threshold.
LEVEL_THRESHOLDS: dict[str, dict[str, Any]] = {
    "exact_copies": {
        "medium": None,
        "high": None,
        "source": "spec section 5",
        "description": "high when the Wilson lower bound of the copy share exceeds the holdout's own copy share "
        "in T (without a holdout: when any copy exists); medium when the share exceeds that baseline",
    },
    "holdout_dcr_share": {
        "medium": 0.5,
        "high": 0.55,
        "source": "spec section 5",
        "description": "high when the Wilson lower bound exceeds 0.55, medium when it exceeds 0.5",
    },
    "privacy_score": {
        "medium": 90.0,
        "high": 50.0,
        "source": "spec section 5",
        "description": "high below 50, medium below 90",
    },
    "dcr_test": {
        "medium": 10.0,
        "high": 50.0,
        "source": "seed 004",
        "description": "on D: D > 50 Low privacy (high risk), 10 <= D <= 50 Medium privacy, D < 10 High privacy",
    },
    "nndr_test": {
        "medium": 10.0,
        "high": 50.0,
        "source": "seed 004",
        "description": "on D: D > 50 Low privacy (high risk), 10 <= D <= 50 Medium privacy, D < 10 High privacy",
    },
    "dcr": {
        "medium": 0.9,
        "high": 0.5,
        "source": "package default",
        "description": "on median DCR(S,T) / median baseline DCR (holdout to train, else within-real): "
        "high below 0.5, medium below 0.9",
    },
    "nndr": {
        "medium": 0.05,
        "high": 0.2,
        "source": "package default",
        "description": "on the share below the threshold minus the holdout's share (without a holdout: the share "
        "itself): high above 0.2, medium above 0.05",
    },
    # Section 3 metrics: risk-oriented values in [0, 1]. With a holdout the level is set on the excess over the
    # calibration value (H in the role of S); without one on the value itself.
    "review_excess": {
        "medium": 0.05,
        "high": 0.2,
        "source": "package default",
        "description": "on value minus its calibration (holdout as synthetic): high above 0.2, medium above 0.05",
    },
    "review_absolute": {
        "medium": 0.5,
        "high": 0.8,
        "source": "package default",
        "description": "on the value (no holdout to calibrate): high from 0.8, medium from 0.5",
    },
}

#: Metrics that drive the headline verdict by default (spec section 5).
DEFAULT_VERDICT_METRICS: tuple[str, ...] = (
    "exact_copies",
    "holdout_dcr_share",
    "privacy_score",
    "dcr_test",
    "nndr_test",
)


def thresholds(name: str, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """Level thresholds of ``name`` with user overrides applied (``overrides[name]`` may set medium/high)."""
    base = dict(LEVEL_THRESHOLDS[name])
    if overrides and name in overrides:
        user = overrides[name]
        for key in ("medium", "high"):
            if key in user:
                base[key] = user[key]
        base["source"] = "user"
    return base


def level_rule(name: str, overrides: dict[str, Any] | None = None) -> LevelRule:
    """The :class:`LevelRule` shown beside a value."""
    t = thresholds(name, overrides)
    return LevelRule(medium=t["medium"], high=t["high"], source=t["source"], description=t["description"])


def grade(value: float, direction: Direction, *, medium: float | None, high: float | None,
          inclusive: bool = False) -> Level:
    """Level of ``value`` against thresholds.

    For ``higher_is_riskier``: high when ``value > high``, medium when ``value > medium`` (``>=`` with
    ``inclusive``). For ``higher_is_safer``: high when ``value < high``, medium when ``value < medium``.

    >>> grade(0.56, "higher_is_riskier", medium=0.5, high=0.55)
    'high'
    >>> grade(70.0, "higher_is_safer", medium=90, high=50)
    'medium'
    """
    if direction == "higher_is_riskier":
        def beyond(t: float) -> bool:
            return value >= t if inclusive else value > t
    else:
        def beyond(t: float) -> bool:
            return value <= t if inclusive else value < t
    if high is not None and beyond(high):
        return "high"
    if medium is not None and beyond(medium):
        return "medium"
    return "low"


def merge_params(overrides: dict[str, Any]) -> dict[str, Any]:
    """Defaults with ``overrides`` applied; an unknown name is an error listing the known ones."""
    unknown = set(overrides) - set(DEFAULT_PARAMS)
    if unknown:
        raise ValueError(
            f"unknown parameter(s) {sorted(unknown)}; known: {', '.join(DEFAULT_PARAMS)}"
            f" (structural settings {', '.join(STRUCTURAL_PARAMS)} are set on Evaluation)"
        )
    levels = overrides.get("levels")
    if levels is not None:
        if not isinstance(levels, dict):
            raise TypeError("levels= must be a dict {metric or rule name: {'medium': x, 'high': y}}")
        from .registry import metric_names

        known = set(LEVEL_THRESHOLDS) | set(metric_names())
        for name, rule in levels.items():
            if name not in known:
                raise ValueError(f"levels= names an unknown metric or rule {name!r}; known: {', '.join(sorted(known))}")
            if not isinstance(rule, dict) or set(rule) - {"medium", "high"}:
                raise ValueError(f"levels[{name!r}] must be a dict with keys 'medium' and/or 'high', got {rule!r}")
    out = dict(DEFAULT_PARAMS)
    out.update(overrides)
    return out
