"""Shared parameters and level rules, and the checks of the reduction parameters of ``results()``.

Each metric declares its own reduction parameters (:class:`~synthpriv_report.core.registry.Param`) in its module;
this module holds the few that several metrics share, the shared level-rule families (both registered with
:func:`~synthpriv_report.core.registry.register_shared`), the names of the structural settings of
:class:`~synthpriv_report.evaluation.evaluation.Evaluation`, and the per-call checks: every declared parameter and
``levels=``, each through its constraint (:mod:`synthpriv_report.core.validation`). Every error names the parameter,
what it allows and what was given.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping
from typing import Any

from .registry import (
    LevelSpec,
    Param,
    declared_params,
    get_spec,
    graded_direction,
    level_families,
    metric_names,
    register_shared,
)
from .results import Direction
from .validation import Boolean, Check, Setting, check

#: Parameters shared by several metrics.
N_BOOTSTRAP = Param("n_bootstrap", 1000, kind="int", low=10, high=100_000, label="bootstrap resamples",
                    doc="Resamples of the percentile bootstrap behind the intervals of means and medians.")
RISK_PERCENTILE = Param("risk_percentile", 1.0, low=0.0, high=100.0, low_open=True, high_open=True,
                        label="per-record risk percentile",
                        doc="Share (in percent) of the holdout records that the per-record risk rule may flag: its "
                            "cut-offs are set on the holdout, so an honest generator has about this share flagged.")
COMMON_PARAMS: tuple[Param, ...] = (N_BOOTSTRAP, RISK_PERCENTILE)

#: The public documents the metrics and their rules come from (cited in reports).
SOURCES: dict[str, str] = {
    "aindo": 'Aindo documentation, "Privacy score" (train-to-train and train-to-synthetic proximity ratios)',
    "apx": 'ApX Machine Learning, "Distance-based privacy metrics" (DCR and NNDR)',
    "review": "F. M. Trudslev, M. Lissandrini, J. M. Rodriguez, M. Bøgsted, D. Dell'Aglio, \"A Review of Privacy "
              "Metrics for Privacy-Preserving Synthetic Data Generation\" (PrivEval)",
    "clearbox": 'A. Minieri, "Synthetic data for privacy preservation - Part 2", Clearbox AI blog, 2022',
    "betterdata": 'Betterdata documentation, "Distance based metrics" (DCR and NNDR tests, Diff-% bands)',
}

_REVIEW_SOURCE = ("package default; the metric comes from " + SOURCES["review"] + ", which gives no risk bands")

#: Shared level rules of the review-paper metrics: graded on the value itself when no holdout is available, and
#: on the value's excess over its calibration (the holdout in the role of the synthetic data) when one is.
LEVEL_FAMILIES: dict[str, LevelSpec] = {
    "review_absolute": LevelSpec(
        medium=0.5, high=0.8, inclusive=True, family="review_absolute", source=_REVIEW_SOURCE,
        description="high from {high}, medium from {medium} (no holdout to compare with)"),
    "review_excess": LevelSpec(
        medium=0.05, high=0.2, family="review_excess", source=_REVIEW_SOURCE, difference=True,
        scale="the value minus the same metric computed on the holdout",
        of=lambda r: None if r.calibration is None or r.value is None else float(r.value) - float(r.calibration),
        description="high when the value exceeds what fresh real records (the holdout) reach by more than {high}, "
                    "medium by more than {medium}"),
}


def review_level(result: Any) -> LevelSpec:
    """The review-paper metrics' rule: on the excess over the calibration when there is one, else absolute."""
    return LEVEL_FAMILIES["review_excess" if result.calibration is not None else "review_absolute"]


# ---------------------------------------------------------------------------------------------------------------
# level overrides (``levels=``)

_KEYS = ("medium", "high")
#: The optional key of a metric's override saying what its thresholds are on: ``"value"`` or ``"rule"``.
_ON = "on"


def _number(metric: str, key: str, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) and not hasattr(v, "__float__"):
        raise ValueError(f"levels[{metric!r}][{key!r}] must be a number, got {v!r} ({type(v).__name__})")
    try:
        f = float(v)
    except (TypeError, ValueError):
        raise ValueError(f"levels[{metric!r}][{key!r}] must be a number, got {v!r}") from None
    if not math.isfinite(f):
        raise ValueError(f"levels[{metric!r}][{key!r}] must be a finite number, got {v!r}")
    return f


def _direction_of(name: str, on: str = "value") -> Direction:
    """The direction ``levels[name]``'s thresholds are read in: a family's rule's, else the metric's, or with
    ``on="rule"`` the direction of the quantity the metric's rule grades."""
    fam = level_families()
    if name in fam:
        return fam[name].direction or "higher_is_riskier"
    spec = get_spec(name)
    return graded_direction(spec) if on == "rule" else spec.direction


def _on(name: str, on: Any, families: Mapping[str, LevelSpec]) -> str:
    """The checked ``"on"`` of ``levels[name]`` (None: not given): ``"value"`` (a metric's default) or ``"rule"``,
    the latter only for a metric whose declared rule is a pair of thresholds; a family's thresholds are always its
    rule's (``"rule"``, given or not)."""
    if name in families and on is None:
        return "rule"
    on = "value" if on is None else on
    if on not in ("value", "rule"):
        raise ValueError(f"levels[{name!r}]['on'] must be 'value' or 'rule', got {on!r}")
    if name in families:
        if on != "rule":
            raise ValueError(f"levels[{name!r}]: a rule family's thresholds are always on its rule's quantity; "
                             f"'on' may only be 'rule', got {on!r}")
        return str(on)
    ls = get_spec(name).level
    if on == "rule" and not (isinstance(ls, LevelSpec) and ls.rule is None):
        raise ValueError(f"levels[{name!r}]: 'on': 'rule' moves the thresholds of a metric's declared rule, but "
                         f"the rule of {name!r} is not one pair of thresholds; give thresholds on its value")
    return str(on)


def validate_levels(levels: Any) -> dict[str, dict[str, Any]] | None:
    """Checked ``levels=`` overrides: known metric (with a level) or rule family, numeric thresholds in the order
    of the direction they are read in. A ``ValueError`` naming the metric otherwise.

    A metric's thresholds are on its value, in the metric's direction; with ``"on": "rule"`` they move its
    declared rule's thresholds instead, on the quantity that rule grades and in that quantity's direction
    (:func:`~synthpriv_report.core.registry.graded_direction`; D for the holdout tests, where higher is riskier). A
    family's thresholds are always its rule's.

    >>> validate_levels({"privacy_score": {"medium": 10, "high": 90}})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: levels['privacy_score']: for a metric where higher is safer the high-risk threshold ...
    >>> validate_levels({"dcr_test": {"medium": 10, "high": 50, "on": "rule"}})
    {'dcr_test': {'medium': 10.0, 'high': 50.0, 'on': 'rule'}}
    """
    if levels is None:
        return None
    if not isinstance(levels, Mapping):
        raise TypeError(f"levels= must be a dict {{metric: {{'medium': m, 'high': h}}}}, got {levels!r}")
    names = metric_names()
    fam = level_families()
    out: dict[str, dict[str, Any]] = {}
    for name, rule in levels.items():
        if name in fam:
            pass
        elif name in names:
            if get_spec(name).level is None:
                raise ValueError(f"levels[{name!r}]: metric {name!r} has no level to override")
        else:
            close = difflib.get_close_matches(str(name), names + list(fam), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ValueError(f"levels= names an unknown metric {name!r}{hint}; known: "
                             f"{', '.join(names + list(fam))}")
        if not isinstance(rule, Mapping) or set(rule) - {_ON} != set(_KEYS):
            missing = [k for k in _KEYS if not isinstance(rule, Mapping) or k not in rule]
            hint = (f" (missing {' and '.join(map(repr, missing))}: give both, None to switch a level off; the "
                    f"default rule may grade another quantity than the value, so a threshold is never taken from "
                    f"it)" if missing and isinstance(rule, Mapping) and not set(rule) - set(_KEYS) - {_ON} else "")
            raise ValueError(f"levels[{name!r}] must be a dict with the keys 'medium' and 'high' (and optionally "
                             f"'on': 'value' or 'rule'), got {rule!r}{hint}")
        on = _on(name, rule.get(_ON), fam)
        user: dict[str, Any] = {k: None if rule[k] is None else _number(name, k, rule[k]) for k in _KEYS}
        m, h = user["medium"], user["high"]
        if m is not None and h is not None:
            d = _direction_of(name, on)
            what = "the quantity its rule grades" if on == "rule" and name not in fam else "a metric"
            if d == "higher_is_riskier" and h < m:
                raise ValueError(f"levels[{name!r}]: for {what} where higher is riskier the high-risk threshold "
                                 f"must not be below the medium one (got medium {m:g}, high {h:g})")
            if d == "higher_is_safer" and h > m:
                raise ValueError(f"levels[{name!r}]: for {what} where higher is safer the high-risk threshold "
                                 f"must not be above the medium one (got medium {m:g}, high {h:g})")
        if _ON in rule:
            user[_ON] = on
        out[str(name)] = user
    return out


#: ``levels=`` of ``results()``: threshold overrides, checked by :func:`validate_levels`.
LEVELS = Setting("levels", None, Check(validate_levels, "a dict {metric or rule family: {'medium': m, 'high': h}}, "
                                             "optionally with 'on': 'rule' for a metric"),
                 doc="Threshold overrides of the level rules, per metric or per shared rule family.")


# ---------------------------------------------------------------------------------------------------------------
# the reduction parameters of results()

#: Settings that live on the Evaluation, not on ``results()`` (they change what is searched or fitted).
STRUCTURAL = ("nndr_k", "n_components", "max_rows", "random_state", "key_fields", "sensitive_fields",
              "verdict_metrics", "metrics", "spaces")


def result_params() -> dict[str, Param | Setting]:
    """The declarations of ``results()``'s keyword parameters: every declared reduction parameter and
    ``levels``."""
    out: dict[str, Param | Setting] = dict(declared_params())
    out["levels"] = LEVELS
    return out


def default_params() -> dict[str, Any]:
    """Every declared reduction parameter with its default, and ``levels=None``."""
    return {name: p.default for name, p in result_params().items()}


def validate_params(overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Checked reduction parameters; an unknown name or a bad value is an error naming it.

    >>> validate_params({"alpha": 0.2})["alpha"]
    0.2
    >>> validate_params({"alhpa": 0.2})
    Traceback (most recent call last):
    ...
    ValueError: unknown parameter 'alhpa' (did you mean 'alpha'?); known parameters: ...
    """
    decl = result_params()
    out: dict[str, Any] = {}
    for name, value in overrides.items():
        if name not in decl:
            if name in STRUCTURAL:
                raise ValueError(f"unknown parameter {name!r} for results(): it is a structural setting (it changes "
                                 f"what is searched or fitted), so set it on Evaluation(...)")
            close = difflib.get_close_matches(str(name), list(decl) + list(STRUCTURAL), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ValueError(f"unknown parameter {name!r}{hint}; known parameters: {', '.join(decl)}")
        out[name] = decl[name].validate(value)
    return out


def merge_params(overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Defaults with validated ``overrides`` applied."""
    out = default_params()
    out.update(validate_params(overrides))
    return out


def check_bool(name: str, value: Any) -> bool:
    """A boolean setting (``True``/``False``; numbers and strings are refused).

    >>> check_bool("reveal_real_values", 1)
    Traceback (most recent call last):
    ...
    TypeError: reveal_real_values must be True or False, got 1 (int)
    """
    return bool(check(name, value, Boolean()))


# the shared declarations join the registry's (which, below this module in the layers, never imports it)
register_shared(COMMON_PARAMS, LEVEL_FAMILIES)
