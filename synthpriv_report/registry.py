"""The metric registry: every metric registered once with its needs, direction, range and spec section.

The evaluation plans the union of the neighbour searches that the selected metrics need, runs each search once,
then calls each metric's ``compute``. The report, the JSON export and the tests iterate over :data:`REGISTRY`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from .results import Direction, MetricResult

if TYPE_CHECKING:  # pragma: no cover
    from .evaluation import Context

Group = Literal["closeness", "holdout", "attack", "distinguishability"]
Need = Literal["holdout", "sensitive_fields", "pairing"]

#: Groups in report order with their display titles.
GROUP_TITLES: dict[str, str] = {
    "closeness": "Closeness to real records",
    "holdout": "Holdout comparisons",
    "attack": "Attack simulations",
    "distinguishability": "Distinguishability",
}


@dataclass(frozen=True)
class MetricSpec:
    """Registration record of one metric.

    Parameters
    ----------
    name : str
        Registry name (also the JSON and command-line name).
    title : str
        Short human title.
    section : str
        Spec section, e.g. ``"2.2"``.
    group : str
        Report group, a key of :data:`GROUP_TITLES`.
    direction : {"higher_is_riskier", "higher_is_safer"}
        Which way risk grows.
    value_range : tuple of float
        Declared range of the headline value.
    compute : callable
        ``compute(ctx, params) -> MetricResult``; reads cached arrays from the context.
    plan : callable or None
        ``plan(ctx, params) -> list[SearchRequest]``: the neighbour searches ``compute`` will ask for, so the
        evaluation can run each (space, query, reference) search once with the largest ``k``.
    needs : tuple of str
        Inputs besides T and S: ``"holdout"``, ``"sensitive_fields"``, ``"pairing"``.
    default_space : str or None
        Default distance space; ``None`` when the metric uses no space or a fixed one.
    space_choosable : bool
        Whether the caller may choose another space (spec section 1, last bullet).
    params : tuple of str
        Names of the reduction parameters the metric reads (sliders).
    summary : str
        One plain-language line for the report.
    definition : str
        Two sentences defining the metric.
    copy_sensitive : bool
        An exact copy of T scores at the risky end (used by the registry-driven tests).
    calibratable : bool
        The metric compares S with T, so it can be recomputed with H in the role of S (spec section 4).
    """

    name: str
    title: str
    section: str
    group: Group
    direction: Direction
    value_range: tuple[float, float]
    compute: Callable[[Context, dict[str, Any]], MetricResult]
    plan: Callable[[Context, dict[str, Any]], Sequence[Any]] | None = None
    needs: tuple[Need, ...] = ()
    default_space: str | None = None
    space_choosable: bool = False
    params: tuple[str, ...] = ()
    summary: str = ""
    definition: str = ""
    copy_sensitive: bool = False
    calibratable: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


REGISTRY: dict[str, MetricSpec] = {}


def register(spec: MetricSpec) -> MetricSpec:
    """Add a metric to :data:`REGISTRY`; registering a name twice is an error."""
    if spec.name in REGISTRY:
        raise ValueError(f"metric {spec.name!r} is registered twice")
    REGISTRY[spec.name] = spec
    return spec


def metric_names() -> list[str]:
    """Registered metric names in registration (report) order."""
    _load_all()
    return list(REGISTRY)


def get_spec(name: str) -> MetricSpec:
    """The registration record of ``name``; a clear error for an unknown name."""
    _load_all()
    try:
        return REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown metric {name!r}; known metrics: {', '.join(REGISTRY)}") from None


def _load_all() -> None:
    """Import the metric modules so that their registrations run."""
    from . import metrics  # noqa: F401  (registration side effect of the package's own modules)
