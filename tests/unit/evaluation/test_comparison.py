"""Tests of synthpriv_report.evaluation.comparison: several releases of the same real data side by side."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from _support.frames import mixed

from synthpriv_report import Comparison, Evaluation
from synthpriv_report.core.registry import verdict_false_alarm, verdict_metric_names
from synthpriv_report.stats.evidence import wilson_bounds, z_of

SETTINGS = {"progress": False, "calibrate": True, "sensitive_fields": ["c"], "random_state": 0}
REAL_BASES = {"T", "H", "R"}


def _base(label: str) -> str:
    return label.split("[", 1)[0]


def _releases() -> tuple[pd.DataFrame, dict[str, pd.DataFrame], pd.DataFrame]:
    """Three releases of one real set: a fresh draw, one with 10 copied records, and one with a category ("z")
    the real data never have (its encodings of the real records differ, so it borrows nothing)."""
    real, fresh, holdout = mixed(60, 0)
    copied = mixed(60, 0, copied=10).synthetic
    odd = mixed(60, 0, categories=("a", "b", "c", "z")).synthetic
    return real, {"fresh": fresh, "copied": copied, "new category": odd}, holdout


@pytest.fixture(scope="module")
def made():
    real, releases, holdout = _releases()
    cmp = Comparison(real, releases, holdout, **SETTINGS)
    cmp.to_dict()
    return real, releases, holdout, cmp


def _numbers(rs) -> dict:
    return {m: (r.computed, r.value, r.interval, r.level, r.calibration, json.dumps(r.to_dict()["details"],
                                                                                   sort_keys=True))
            for m, r in rs.items()}


@pytest.mark.slow  # about 131 s
def test_each_release_has_exactly_the_numbers_of_its_own_evaluation(made) -> None:
    real, releases, holdout, cmp = made
    for name, synthetic in releases.items():
        alone = Evaluation(real, synthetic, holdout, **SETTINGS).results()
        got = cmp.results()[name]
        assert list(got) == list(alone)
        assert _numbers(got) == _numbers(alone), name
        assert got.verdict == alone.verdict


@pytest.mark.slow  # reads the module's made fixture, an evaluation on demo data
def test_adjusted_verdicts_are_those_of_a_fresh_evaluation_at_alpha_over_n(made) -> None:
    real, releases, holdout, cmp = made
    n = len(releases)
    for name, synthetic in releases.items():
        with verdict_false_alarm(0.05 / n):
            alone = Evaluation(real, synthetic, holdout, **SETTINGS).results(metrics=verdict_metric_names())
        got = cmp.adjusted_results()[name]
        assert _numbers(got) == _numbers(alone), name
        assert cmp.adjusted_verdicts[name] == alone.verdict
    # the unadjusted results are not disturbed by the adjusted ones
    assert cmp.results()["copied"]["holdout_dcr_share"].details["check_alpha"] == pytest.approx(
        0.05 / len(verdict_metric_names()))


@pytest.mark.slow  # about 11 s
def test_real_side_searches_run_once_across_the_releases(made) -> None:
    real, releases, holdout, cmp = made
    searches = cmp.searches
    real_side = {name: [(s.space, s.query, s.ref) for s in found
                        if _base(s.query) in REAL_BASES and _base(s.ref) in REAL_BASES]
                 for name, found in searches.items()}
    assert real_side["fresh"], "the first release runs the searches between real sets"
    assert real_side["copied"] == [], "the second release borrows every one of them"
    assert cmp.shared["copied"] > 0
    # the release with a category the real data lack encodes the real records otherwise: it searches for itself
    assert cmp.shared["new category"] == 0
    assert sorted(real_side["new category"]) == sorted(real_side["fresh"])
    alone = Evaluation(real, releases["copied"], holdout, **SETTINGS)
    alone.results()
    own = [s for s in alone.searches if _base(s.query) in REAL_BASES and _base(s.ref) in REAL_BASES]
    assert len(own) == len(real_side["fresh"])
    assert len(searches["copied"]) == len(alone.searches) - len(own)
    assert cmp.search_count == sum(len(v) for v in searches.values())


@pytest.mark.slow  # reads the module's made fixture, an evaluation on demo data
def test_real_sets_search_trees_are_lent_only_where_built_from_the_same_arrays(made) -> None:
    """The second release takes the first one's trees of real sets instead of building them (its numbers are
    its own evaluation's: the test above); the release whose encoding of the real records differs (a category
    the real data lack) builds its own where the arrays differ; a tree is kept only until every release has been
    evaluated."""
    real, releases, holdout, cmp = made
    assert cmp.trees_lent["fresh"] == 0
    assert cmp.trees_lent["copied"] > 0
    # a category the real data lack changes the encodings with category codes; a tree of another space (built
    # from the same bytes) may still be lent
    assert cmp.trees_lent["new category"] < cmp.trees_lent["copied"]
    built = {name: {k for k in ev.timings["stages"] if k.startswith("search tree:") and k.split()[-1][0] in "THR"}
             for name, ev in cmp.evaluations.items()}
    assert len(built["copied"]) < len(built["fresh"])
    assert all(ev._engine.lender is None for ev in cmp.evaluations.values())


def test_a_tree_is_not_lent_to_an_encoding_that_differs() -> None:
    from synthpriv_report.engine.requests import SetRef
    from synthpriv_report.evaluation.comparison import _RealTrees

    real, fresh, holdout = mixed(40, 1)
    ev = Evaluation(real, fresh, holdout, **SETTINGS)
    engine, spec = ev._engine, ev.context.space("euclidean")
    enc = engine.encoding(spec)
    trees = _RealTrees()
    engine.lender = trees
    tree = engine.tree(spec, SetRef("T"))
    assert trees.lend(spec, SetRef("T"), enc) is tree
    engine.tree(spec, SetRef("S"))
    assert trees.lend(spec, SetRef("S"), enc) is None, "the synthetic set's trees are never kept"
    other = type(enc)(**{**{f: getattr(enc, f) for f in enc.__dataclass_fields__},
                         "num": {**enc.num, "T": enc.num["T"] + 1e-9}})
    assert trees.lend(spec, SetRef("T"), other) is None
    assert trees.lend(spec, SetRef("T", np.arange(5), "half"), enc) is None
    small = _RealTrees(max_bytes=1)
    small.keep(spec, SetRef("T"), enc, tree)
    assert small.lend(spec, SetRef("T"), enc) is None


def test_a_projection_fitted_for_one_release_is_lent_to_the_next_and_gives_the_same_coordinates() -> None:
    """The projected space's fit reads the real sets alone: a release encoded like the first borrows it, and its
    coordinates are bit for bit those of fitting it itself; a release that encodes the real records otherwise (a
    category the real data lack) fits its own."""
    from synthpriv_report.evaluation.comparison import _RealTrees

    real, fresh, holdout = mixed(60, 2)
    copied = mixed(60, 2, copied=10).synthetic
    odd = mixed(60, 2, categories=("a", "b", "c", "z")).synthetic
    trees = _RealTrees()
    first, second, third, alone = (Evaluation(real, s, holdout, **SETTINGS) for s in (fresh, copied, odd, copied))
    spec = first.context.space("projected")
    for ev in (first, second, third):
        ev._engine.lender = trees
    first._engine.encoding(spec)
    assert trees.lent == 0
    borrowed = second._engine.encoding(spec)
    assert trees.lent == 1
    assert second._engine.projections[spec].components is first._engine.projections[spec].components
    own = alone._engine.encoding(spec)
    assert all(np.array_equal(borrowed.num[s].view(np.uint8), own.num[s].view(np.uint8)) for s in own.num)
    third._engine.encoding(spec)
    assert trees.lent == 1
    assert third._engine.projections[spec].components is not first._engine.projections[spec].components


@pytest.mark.slow  # about 18 s
def test_bonferroni_by_hand_a_check_that_fires_at_alpha_but_not_at_alpha_over_n() -> None:
    real, leaky, holdout = mixed(100, 3, copied=21)
    fresh = mixed(100, 3).synthetic
    cmp = Comparison(real, {"leaky": leaky, "fresh": fresh}, holdout, progress=False, calibrate=False)
    m = len(verdict_metric_names())
    assert cmp.n_compared == 2 and cmp.alpha == 0.05 and cmp.adjusted_alpha == 0.025
    r = cmp.results()["leaky"]["holdout_dcr_share"]
    a = cmp.adjusted_results()["leaky"]["holdout_dcr_share"]
    d = r.details
    share = (d["wins"] + 0.5 * d["ties"]) / d["n"]
    n_eff = d["n"] / d["design_effect"]
    lower_alpha = wilson_bounds(share, n_eff, z_of(0.05 / m))[0]
    lower_adjusted = wilson_bounds(share, n_eff, z_of(0.05 / 2 / m))[0]
    assert d["lower_bound_for_level"] == pytest.approx(lower_alpha, abs=1e-12)
    assert a.details["lower_bound_for_level"] == pytest.approx(lower_adjusted, abs=1e-12)
    assert a.details["check_alpha"] == pytest.approx(0.05 / 2 / m)
    # medium when the lower bound is above 50%: crossed at alpha, not at alpha / 2
    assert lower_alpha > 0.5 > lower_adjusted
    assert r.level == "medium" and a.level != "medium"
    out = cmp.to_dict()
    row = next(c for c in out["per_release"][0]["checks"] if c["metric"] == "holdout_dcr_share")
    assert (row["level"], row["adjusted_level"]) == ("medium", a.level)
    assert out["adjusted_check_alpha"] == pytest.approx(0.05 / 2 / m)


@pytest.mark.slow  # about 44 s
def test_shuffled_rows_give_the_same_comparison(made) -> None:
    real, releases, holdout, cmp = made
    rng = np.random.default_rng(7)

    def shuffled(f: pd.DataFrame) -> pd.DataFrame:
        return f.iloc[rng.permutation(len(f))].reset_index(drop=True)

    other = Comparison(shuffled(real), {k: shuffled(v) for k, v in releases.items()}, shuffled(holdout), **SETTINGS)
    assert other.to_dict() == cmp.to_dict()


@pytest.mark.slow  # reads the module's made fixture, an evaluation on demo data
def test_to_dict_is_json_ready_and_complete(made) -> None:
    *_, cmp = made
    d = json.loads(json.dumps(cmp.to_dict()))
    assert d["releases"] == ["fresh", "copied", "new category"]
    assert d["n_compared"] == 3 and d["alpha"] == 0.05 and d["adjusted_alpha"] == pytest.approx(0.05 / 3)
    row = d["per_release"][1]
    assert row["name"] == "copied" and row["verdict"]["level"] == cmp.verdicts["copied"].level
    assert row["adjusted_verdict"]["level"] == cmp.adjusted_verdicts["copied"].level
    assert [c["metric"] for c in row["checks"]] == list(cmp.evaluations["copied"].verdict_metrics)
    assert {"marginal_distance", "association_difference", "tstr"} <= set(row["utility"])
    attacks = {a["metric"]: a["tpr"] for a in row["membership_attacks"]}
    for metric, tpr in attacks.items():
        assert tpr == cmp.results()["copied"][metric].details["tpr_at"]["0.01"]["tpr"]


@pytest.mark.slow  # about a second
def test_a_release_name_arrives_escaped_in_the_notebook_view() -> None:
    real, fresh, holdout = mixed(40, 1)
    name = "<script>alert(1)</script>"
    cmp = Comparison(real, {name: fresh, "b & c": fresh.copy()}, holdout, progress=False, calibrate=False,
                     metrics=["exact_copies", "holdout_dcr_share"])
    page = cmp._repr_html_()
    assert "<script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "b &amp; c" in page
    assert "2 releases compared" in page


def test_fewer_than_two_releases_are_refused() -> None:
    real, fresh, holdout = mixed(20, 0)
    with pytest.raises(ValueError, match="at least 2 releases"):
        Comparison(real, {"only": fresh}, holdout, progress=False)
    with pytest.raises(TypeError, match="dict"):
        Comparison(real, fresh, holdout, progress=False)


@pytest.mark.parametrize("releases, message", [
    ([("a", 0), ("a", 1)], "named 'a' twice"),
    ({"copula": 0, " Copula": 1}, "the same name in a report"),
    ({"a": 0, "  ": 1}, "must not be blank"),
    ({"a": 0, 3: 1}, "must be a string"),
])
def test_release_names_must_be_told_apart(releases, message) -> None:
    real, fresh, holdout = mixed(20, 0)
    given = ([(k, fresh) for k, _ in releases] if isinstance(releases, list)
             else {k: fresh for k in releases})
    with pytest.raises((ValueError, TypeError), match=message):
        Comparison(real, given, holdout, progress=False)


def test_a_release_with_other_columns_is_refused_naming_the_column_and_release() -> None:
    real, fresh, holdout = mixed(20, 0)
    with pytest.raises(ValueError, match="release 'short': column 'y' is in the real data but not in this release"):
        Comparison(real, {"ok": fresh, "short": fresh.drop(columns="y")}, holdout, progress=False)
    with pytest.raises(ValueError, match="release 'wide': column 'extra'"):
        Comparison(real, {"ok": fresh, "wide": fresh.assign(extra=1.0)}, holdout, progress=False)


@pytest.mark.slow  # about 40 s
def test_from_evaluations_gives_the_same_numbers(made) -> None:
    real, releases, holdout, cmp = made
    evs = {k: Evaluation(real, v, holdout, **SETTINGS) for k, v in releases.items()}
    other = Comparison.from_evaluations(evs)
    assert {k: _numbers(v) for k, v in other.results().items()} == {k: _numbers(v) for k, v in cmp.results().items()}
    assert other.shared["copied"] > 0


def test_from_evaluations_refuses_other_real_data_or_settings() -> None:
    real, fresh, holdout = mixed(30, 0)
    other_holdout = mixed(30, 5).holdout
    a = Evaluation(real, fresh, holdout, progress=False, calibrate=False)
    b = Evaluation(real, fresh, other_holdout, progress=False, calibrate=False)
    with pytest.raises(ValueError, match="evaluation 'b' was given other holdout data than 'a'"):
        Comparison.from_evaluations({"a": a, "b": b})
    c = Evaluation(real, fresh, holdout, progress=False, calibrate=False, nndr_k=3)
    with pytest.raises(ValueError, match="evaluation 'c' differs from 'a' in its setting 'nndr_k': 3 instead of 5"):
        Comparison.from_evaluations({"a": a, "c": c})
    d = Evaluation(real, fresh, progress=False, calibrate=False)
    with pytest.raises(ValueError, match="'a' has holdout data and 'd' has none"):
        Comparison.from_evaluations({"a": a, "d": d})
    with pytest.raises(TypeError, match="not an Evaluation"):
        Comparison.from_evaluations({"a": a, "e": fresh})


def test_a_target_that_is_not_a_column_is_refused() -> None:
    real, fresh, holdout = mixed(20, 0)
    with pytest.raises(ValueError, match="target='income' is not an analysed column"):
        Comparison(real, {"a": fresh, "b": fresh}, holdout, progress=False, target="income")


@pytest.mark.slow  # about 1 s
def test_utility_is_reported_apart_with_a_target(made) -> None:
    real, releases, holdout, _ = made
    cmp = Comparison(real, releases, holdout, progress=False, calibrate=False, metrics=["exact_copies"],
                     target="c")
    u = cmp.utility()
    assert list(u) == list(releases)
    for v in u.values():
        assert 0.0 <= v["marginal_distance"] <= 1.0 and v["association_difference"] >= 0.0
        assert v["tstr"]["gap"] == pytest.approx(v["tstr"]["real"] - v["tstr"]["synthetic"])
    assert len({v["tstr"]["real"] for v in u.values()}) == 1  # the model trained on the real data, once


def test_compare_widget_takes_a_comparison() -> None:
    pytest.importorskip("ipywidgets")
    from synthpriv_report.display.widgets import compare

    real, fresh, holdout = mixed(40, 1)
    cmp = Comparison(real, {"fresh": fresh, "copy": real.copy()}, holdout, progress=False, calibrate=False,
                     metrics=["exact_copies"])
    box = compare(cmp, "exact_copies", "n_bootstrap", min=100, max=1000, step=100, value=1000, figure=False)
    table = box.children[1].value
    assert "fresh" in table and "copy" in table


@pytest.mark.slow  # about 1 s
def test_an_epsilon_sweep_declared_per_release() -> None:
    """Releases declaring their privacy budget in their own context (``contexts=``) carry it beside the lower
    bound the attacks show, and the view draws them against it; a context for no release is refused."""
    from synthpriv_report.datasets import load_demo

    d = load_demo()
    real, holdout = d.real.iloc[:300], d.holdout.iloc[:200]
    ctx = {e: {"purpose": "teaching", "generator": {"name": "g", "epsilon": e}} for e in (1.0, 8.0)}
    cmp = Comparison(real, {"e1": d.synthetic.iloc[:300], "e8": real.iloc[::-1]}, holdout, progress=False,
                     calibrate=False, metrics=["exact_copies", "mia_worst_case"],
                     contexts={"e1": ctx[1.0], "e8": ctx[8.0]})
    rows = {r["name"]: r for r in cmp.to_dict()["per_release"]}
    assert rows["e1"]["declared_epsilon"] == 1.0 and rows["e8"]["declared_epsilon"] == 8.0
    assert rows["e8"]["epsilon_lower_bound"] >= rows["e1"]["epsilon_lower_bound"] >= 0.0
    html = cmp._repr_html_()
    assert "Declared ε" in html and 'alt="Risk against the declared privacy budget.' in html
    with pytest.raises(ValueError, match="'nobody', which is not a release"):
        Comparison(real, {"a": real, "b": real}, contexts={"nobody": ctx[1.0]}, progress=False)


@pytest.mark.slow  # reads the module's made fixture, an evaluation on demo data
def test_releases_share_their_bootstrap_draws(made) -> None:
    """The bootstraps' draws depend on the number of values and the seed only: every release reads the one set
    of kept draws (the test above checks that each release's numbers are still its own evaluation's), and a
    later release draws nothing a release of the same size drew before."""
    real, releases, holdout, cmp = made
    plans = {id(ev._engine.resample_plans) for ev in cmp.evaluations.values()}
    assert len(plans) == 1
    shared = cmp.evaluations["fresh"]._engine.resample_plans
    alone = Evaluation(real, releases["fresh"], holdout, **SETTINGS)
    alone.results()
    own = alone._engine.resample_plans
    assert 0 < len(own) <= len(shared)
    assert shared.reused > own.reused  # the later releases took the first one's draws
