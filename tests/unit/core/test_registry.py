"""A metric's declaration: its fields in three groups (computation, grading, presentation), each readable by its
own name on the declaration, the deprecated flat keywords, and the ``TypedDict`` of its details."""

from __future__ import annotations

import warnings
from dataclasses import fields

import pytest

from synthpriv_report.core.registry import (
    FIELD_GROUPS,
    REGISTRY,
    Computation,
    Grading,
    MetricSpec,
    NotRequired,
    Presentation,
    Required,
    TypedDict,
    detail_keys,
)
from synthpriv_report.core.results import MetricResult


def _compute(ctx, params):
    return MetricResult("toy", 0.5)


class ToyDetails(TypedDict):
    n: int
    n_holdout: NotRequired[int]


class OptionalDetails(TypedDict, total=False):
    n: Required[int]
    note: str


class MoreDetails(ToyDetails, total=False):
    extra: float


GROUPED = MetricSpec(
    name="toy",
    computation=Computation(compute=_compute, needs=("holdout",), details=ToyDetails),
    grading=Grading(direction="higher_is_riskier", value_range=(0.0, 1.0), value_kind="share"),
    presentation=Presentation(title="Toy", section="package", group="closeness", interval_kind="Wilson 95%"),
)


def test_every_field_sits_in_one_group_and_reads_by_its_own_name():
    groups = {"computation": Computation, "grading": Grading, "presentation": Presentation}
    assert set(FIELD_GROUPS) == {f.name for cls in groups.values() for f in fields(cls)}
    for name, group in FIELD_GROUPS.items():
        assert getattr(GROUPED, name) is getattr(getattr(GROUPED, group), name), name
    assert GROUPED.direction == "higher_is_riskier" and GROUPED.compute is _compute and GROUPED.title == "Toy"
    assert GROUPED.kind() == "share"


def test_the_flat_names_are_read_only():
    with pytest.raises(AttributeError):
        GROUPED.direction = "higher_is_safer"


def test_flat_keywords_are_deprecated_and_name_their_group():
    with pytest.warns(DeprecationWarning, match=r"grading=Grading\(direction, value_kind, value_range\)"):
        flat = MetricSpec(name="toy", title="Toy", section="package", group="closeness",
                          direction="higher_is_riskier", value_range=(0.0, 1.0), value_kind="share",
                          compute=_compute, needs=("holdout",), details=ToyDetails, interval_kind="Wilson 95%")
    assert flat == GROUPED


def test_the_grouped_form_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        MetricSpec(name="toy", computation=GROUPED.computation, grading=GROUPED.grading,
                   presentation=GROUPED.presentation)


def test_a_group_given_both_ways_an_unknown_field_or_a_missing_group_is_an_error():
    with pytest.raises(TypeError, match="grading given both as a group and as flat fields"):
        MetricSpec(name="toy", computation=GROUPED.computation, grading=GROUPED.grading,
                   presentation=GROUPED.presentation, direction="higher_is_safer")
    with pytest.raises(TypeError, match="unknown field.*'colour'.*Computation: compute"):
        MetricSpec(name="toy", computation=GROUPED.computation, grading=GROUPED.grading,
                   presentation=GROUPED.presentation, colour="red")
    with pytest.raises(TypeError, match=r"presentation must be a Presentation\(...\), got None"):
        MetricSpec(name="toy", computation=GROUPED.computation, grading=GROUPED.grading)
    with pytest.raises(TypeError, match=r"computation must be a Computation\(...\), got 'Toy'"):
        MetricSpec("toy", "Toy", "package", "closeness")


def test_details_must_be_a_typeddict():
    with pytest.raises(TypeError, match="details must be a TypedDict class"):
        Computation(compute=_compute, details=dict)


def test_detail_keys_read_not_required_under_postponed_annotations():
    # this module has ``from __future__ import annotations``: the class's own __required_keys__ counts n_holdout
    assert detail_keys(ToyDetails) == (frozenset({"n"}), frozenset({"n_holdout"}))
    assert detail_keys(OptionalDetails) == (frozenset({"n"}), frozenset({"note"}))
    assert detail_keys(MoreDetails) == (frozenset({"n"}), frozenset({"n_holdout", "extra"}))
    assert detail_keys(None) == (frozenset(), frozenset())
    assert GROUPED.detail_keys() == detail_keys(ToyDetails)


def test_every_registered_metric_declares_its_details():
    assert REGISTRY
    undeclared = [name for name, spec in REGISTRY.items() if spec.details is None]
    assert not undeclared
    for name, spec in REGISTRY.items():
        required, optional = spec.detail_keys()
        assert required and not required & optional, name
