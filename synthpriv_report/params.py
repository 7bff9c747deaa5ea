"""Shared parameters, shared level rules and the validation of settings, done where they are given.

Each metric declares its own reduction parameters (:class:`~synthpriv_report.registry.Param`) in its module;
this module holds the few that several metrics share, the shared level-rule families, and the checks of the
:class:`~synthpriv_report.evaluation.Evaluation` settings. Every error names the setting, what it allows and what
was given.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .evidence import check_alpha
from .registry import LevelSpec, Param

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


def default_params() -> dict[str, Any]:
    """Every declared reduction parameter with its default, and ``levels=None``."""
    from .registry import declared_params

    out = {name: p.default for name, p in declared_params().items()}
    out["levels"] = None
    return out


def validate_params(overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Checked reduction parameters; an unknown name or a bad value is an error naming it.

    >>> validate_params({"alpha": 0.2})["alpha"]
    0.2
    >>> validate_params({"alhpa": 0.2})
    Traceback (most recent call last):
    ...
    ValueError: unknown parameter 'alhpa' (did you mean 'alpha'?); known parameters: ...
    """
    from .registry import declared_params

    decl = declared_params()
    out: dict[str, Any] = {}
    for name, value in overrides.items():
        if name == "levels":
            from .levels import validate_levels

            out[name] = validate_levels(value)
            continue
        if name not in decl:
            if name in STRUCTURAL:
                raise ValueError(f"unknown parameter {name!r} for results(): it is a structural setting (it changes "
                                 f"what is searched or fitted), so set it on Evaluation(...)")
            import difflib

            close = difflib.get_close_matches(str(name), list(decl) + ["levels"] + list(STRUCTURAL), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ValueError(f"unknown parameter {name!r}{hint}; known parameters: "
                             f"{', '.join(list(decl) + ['levels'])}")
        out[name] = decl[name].validate(value)
    return out


def merge_params(overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Defaults with validated ``overrides`` applied."""
    out = default_params()
    out.update(validate_params(overrides))
    return out


# ---------------------------------------------------------------------------------------------------------------
# settings of the Evaluation (structural: they change what is searched or fitted)

#: Settings that live on the Evaluation, not on ``results()``.
STRUCTURAL = ("nndr_k", "n_components", "max_rows", "random_state", "key_fields", "sensitive_fields",
              "verdict_metrics", "metrics", "spaces")


def check_int(name: str, value: Any, *, low: int = 1, high: int | None = None) -> int:
    """An integer setting in [low, high]; a ``TypeError``/``ValueError`` naming it otherwise.

    >>> check_int("max_rows", 5)
    5
    >>> check_int("max_rows", -3)
    Traceback (most recent call last):
    ...
    ValueError: max_rows must be an integer >= 1, got -3
    """
    rng = f">= {low}" if high is None else f"in [{low}, {high}]"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer {rng}, got {value!r} ({type(value).__name__})")
    v = int(value)
    if v < low or (high is not None and v > high):
        raise ValueError(f"{name} must be an integer {rng}, got {value!r}")
    return v


def check_random_state(value: Any) -> int | np.random.Generator | None:
    """``random_state``: a non-negative integer, a ``numpy.random.Generator`` or None.

    A Generator is turned into one integer seed drawn from it, once, so that every random step of the evaluation
    is reproducible from the evaluation's own settings.

    >>> check_random_state(0), check_random_state(None)
    (0, None)
    """
    if value is None:
        return None
    if isinstance(value, np.random.Generator):
        return int(value.integers(0, 2**32 - 1))
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"random_state must be a non-negative integer, a numpy.random.Generator or None, got "
                        f"{value!r} ({type(value).__name__})")
    if int(value) < 0:
        raise ValueError(f"random_state must be a non-negative integer, a numpy.random.Generator or None, got "
                         f"{value!r}")
    return int(value)


def check_n_components(value: Any) -> int | float | None:
    """``n_components`` of the projected space: None, an integer >= 1, or a share of variance in (0, 1]."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"n_components must be None, an integer >= 1 or a share of explained variance in (0, 1], "
                        f"got {value!r} ({type(value).__name__})")
    if isinstance(value, (int, np.integer)):
        if value < 1:
            raise ValueError(f"n_components must be None, an integer >= 1 or a share of explained variance in "
                             f"(0, 1], got {value!r}")
        return int(value)
    v = float(value)
    if not (math.isfinite(v) and 0.0 < v <= 1.0):
        raise ValueError(f"n_components must be None, an integer >= 1 or a share of explained variance in (0, 1], "
                         f"got {value!r}")
    return v


def check_names(name: str, value: Any, known: Sequence[str], *, what: str = "column") -> list[str]:
    """A list of known names (a single string is refused: ``metrics="dcr"`` would read as 'd', 'c', 'r')."""
    if value is None:
        return []
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be a list of {what} names, got the string {value!r} (write [{value!r}])")
    try:
        items = list(value)
    except TypeError:
        raise TypeError(f"{name} must be a list of {what} names, got {value!r} ({type(value).__name__})") from None
    for v in items:
        if not isinstance(v, str):
            raise TypeError(f"{name} must be a list of {what} names, got an item {v!r} ({type(v).__name__})")
    bad = [v for v in items if v not in known]
    if bad:
        raise ValueError(f"{name} names an unknown {what} {', '.join(map(repr, bad))}; known {what}s: "
                         f"{', '.join(map(repr, known))}")
    dup = sorted({v for v in items if items.count(v) > 1})
    if dup:
        raise ValueError(f"{name} names {', '.join(map(repr, dup))} more than once")
    return items


def check_bool(name: str, value: Any) -> bool:
    """A boolean setting (``True``/``False``; numbers and strings are refused)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r} ({type(value).__name__})")
    return bool(value)
