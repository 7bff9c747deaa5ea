"""Registry-driven invariants of every registered metric (style guide, habit 10), through the package's own
checker (:mod:`synthpriv_report.testing`, which any metric author can run on their metric).

Each (metric, check) pair is one test, parametrized by ``metric_names()``, so every metric registered by any module
shows up separately. The data: a few hundred rows of UCI Adult (mixed numeric and categorical columns), key fields
age, sex, race, marital-status, sensitive field income, and a holdout. T, S and H have the same size, so no metric
draws a size-equalising subsample (docs/metrics.md, sections holdout_dcr_share, privacy_score, nnaa); only metrics
that declare why (``MetricSpec.row_order``) depend on the row order. The evaluations are made once and shared.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from _support.paths import ADULT as ADULT_DIR

from synthpriv_report.core.registry import get_spec
from synthpriv_report.testing import CHECKS, CheckData, MetricCheckError, metric_check_cases, run_check

ADULT = str(ADULT_DIR) + "/"
N = 200
KEYS = ("age", "sex", "race", "marital-status")
SENSITIVE = ("income",)


@pytest.fixture(scope="module")
def data() -> CheckData:
    if not Path(ADULT, "adult_train.csv").exists():
        pytest.skip(f"Adult data not available at {ADULT} (tests read ../shared/data beside the repository)")
    train = pd.read_csv(ADULT + "adult_train.csv").drop_duplicates()
    test = pd.read_csv(ADULT + "adult_test.csv").drop_duplicates()
    T = train.sample(N, random_state=11).reset_index(drop=True)
    H = test.sample(N, random_state=12).reset_index(drop=True)
    S = pd.read_csv(ADULT + "synthetic/gaussian_copula.csv.gz").sample(N, random_state=13).reset_index(drop=True)
    return CheckData(T, S, H, KEYS, SENSITIVE, random_state=0)


@pytest.mark.parametrize(("name", "check"), metric_check_cases())
def test_metric_invariant(data, name, check):
    skipped = run_check(name, check, data)
    if skipped is not None:
        pytest.skip(skipped)


def test_the_order_dependent_metrics_say_why():
    """Exactly these metrics are exempt from the row-order check, each with its reason (docs/metrics.md)."""
    exempt = {n for n, _ in metric_check_cases(checks=("row_order",)) if get_spec(n).row_order}
    assert exempt == {"detection_mlp", "mir", "privacy_score"}


def test_a_metric_that_breaks_an_invariant_is_named(data):
    """The checker fails a metric that breaks an invariant: a toy metric whose value leaves its declared range."""
    from synthpriv_report.core.registry import Computation, Grading, MetricSpec, Presentation, register, unregister
    from synthpriv_report.core.results import MetricResult

    register(MetricSpec(
        name="out_of_range",
        computation=Computation(compute=lambda ctx, params: MetricResult("out_of_range", 1.5)),
        grading=Grading(direction="higher_is_riskier", value_range=(0.0, 1.0)),
        presentation=Presentation(title="Out of range", section="test", group="closeness"),
    ))
    try:
        with pytest.raises(MetricCheckError, match="'out_of_range' fails the check 'range': value 1.5"):
            run_check("out_of_range", "range", data)
        assert run_check("out_of_range", "copy", data) == "copy_sensitive=False in its MetricSpec"
        with pytest.raises(ValueError, match="unknown check 'nope'"):
            run_check("out_of_range", "nope", data)
    finally:
        unregister("out_of_range")
    assert CHECKS[0] == "range"


def test_a_metric_whose_details_break_their_declaration_is_named(data):
    """The ``details`` check fails a metric whose results lack a required key or carry one it does not declare,
    and passes the same metric once its declaration lists them."""
    from synthpriv_report.core.registry import (
        Computation,
        Grading,
        MetricSpec,
        NotRequired,
        Presentation,
        TypedDict,
        register,
        unregister,
    )
    from synthpriv_report.core.results import MetricResult

    class Declared(TypedDict):
        n: int

    class Complete(TypedDict):
        size: int
        note: NotRequired[str]

    def compute(ctx, params):
        return MetricResult("toy", 0.5, details={"size": ctx.size(ctx.T)})

    cases = {"lacking": (Declared, r"lacks the required key\(s\) n; carries the undeclared key\(s\) size "
                                   r"\(declared: Declared\)"),
             "undeclared": (None, r"carries the undeclared key\(s\) size \(declared: no details type\)"),
             "complete": (Complete, None)}
    for case, (details, error) in cases.items():
        name = f"details_{case}"
        register(MetricSpec(
            name=name,
            computation=Computation(compute=compute, details=details),
            grading=Grading(direction="higher_is_riskier", value_range=(0.0, 1.0)),
            presentation=Presentation(title="Toy details", section="test", group="closeness"),
        ))
        try:
            if error is None:
                assert run_check(name, "details", data) is None
            else:
                with pytest.raises(MetricCheckError, match=f"'{name}' fails the check 'details': its details "
                                                           r"\(main evaluation\) " + error):
                    run_check(name, "details", data)
        finally:
            unregister(name)
