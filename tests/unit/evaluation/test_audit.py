"""The generator audit (synthpriv_report.evaluation.audit): the arithmetic by hand, an audit of generators whose
memorisation
is known by construction, reproducibility, the protocol's errors, and the JSON document read back and checked."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest
from _support.generators import CopyTraining, Ignores
from scipy.stats import t as student

from synthpriv_report.datasets import load_demo
from synthpriv_report.evaluation.audit import (
    Audit,
    audit,
    crafted_canaries,
    generator_level,
    grade_generator,
    rubin_interval,
)
from synthpriv_report.evaluation.generators import GeneratorError
from synthpriv_report.stats import one_run_epsilon


@pytest.fixture(scope="module")
def small():
    demo = load_demo()
    return demo.real.iloc[:240].reset_index(drop=True), demo.holdout.iloc[:200].reset_index(drop=True), demo


# ------------------------------------------------------------------------------------------------------------------
# the arithmetic, by hand


def test_rubin_interval_by_hand():
    # values 1 and 3, each with a 95% half-width of 1.96 (a within-run variance of 1):
    # U = 1, B = 2, T = U + (1 + 1/2) B = 4, nu = (2 - 1) (1 + U / (1.5 B))^2 = (4/3)^2
    lo, hi = rubin_interval([1.0, 3.0], [1.959963984540054, 1.959963984540054])
    half = student.ppf(0.975, (4 / 3) ** 2) * 2.0
    assert lo == pytest.approx(2.0 - half, rel=1e-12) and hi == pytest.approx(2.0 + half, rel=1e-12)
    assert rubin_interval([1.0], [None]) is None
    # equal values and no run uncertainty: a point
    assert rubin_interval([0.5, 0.5, 0.5], [None, None, None]) == (0.5, 0.5)


@pytest.mark.parametrize(("levels", "expected"), [
    (["high"], "high"),
    (["high", "low"], "low"),                       # two runs: both must reach a level
    (["high", "high"], "high"),
    (["medium", "high", "low"], "medium"),          # two of three reach medium or higher
    (["high", "medium", "low", "low"], "low"),      # two of four is not a strict majority
    (["high", "medium", "medium", "low"], "medium"),
    (["inconclusive", "low", "low"], "low"),
    ([None, None, "high"], None),                    # most runs could not run the check
])
def test_generator_level_is_what_a_strict_majority_reaches(levels, expected):
    assert generator_level(levels) == expected


def test_grade_generator_rules():
    checks = [{"metric": "a", "title": "A", "run_levels": ["low", "low", "low"]},
              {"metric": "b", "title": "B", "run_levels": ["medium", "medium", "low"]}]
    v = grade_generator(checks, ["medium", "medium", "low"], declared=None, measured=None)
    assert v["level"] == "medium" and [c["level"] for c in v["checks"]] == ["low", "medium"]
    assert v["flagged"]["flagged"] == 2 and v["flagged"]["runs"] == 3
    lo, hi = v["flagged"]["interval"]
    assert 0 < lo < 2 / 3 < hi < 1
    # a measured bound above the declared epsilon: high, whatever the runs say
    low_checks = [{"metric": "a", "title": "A", "run_levels": ["low", "low"]}]
    assert grade_generator(low_checks, ["low", "low"], declared=1.0, measured=1.2)["level"] == "high"
    assert grade_generator(low_checks, ["low", "low"], declared=1.0, measured=0.9)["level"] == "low"
    # membership shown by the canaries without any declared epsilon: at least medium
    assert grade_generator(low_checks, ["low", "low"], declared=None, measured=0.3)["level"] == "medium"
    assert grade_generator(low_checks, ["low", "low"], declared=None, measured=0.0)["level"] == "low"


def test_crafted_canaries_are_new_records_with_extreme_values():
    T = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6], "c": list("aaaabb"), "z": [0.5, 0.1, 0.2, 0.3, 0.4, 0.9]})
    C = crafted_canaries(T, 5, random_state=3)
    assert list(C.columns) == list(T.columns) and len(C) == 5
    assert C.dtypes.to_dict() == T.dtypes.to_dict()
    real_rows = set(map(tuple, T.itertuples(index=False, name=None)))
    assert not set(map(tuple, C.itertuples(index=False, name=None))) & real_rows
    for _, row in C.iterrows():  # every value is a training value; at least one is an extreme
        assert row.x in set(T.x) and row.c in {"a", "b"} and row.z in set(T.z)
        assert row.x in (1, 6) or row.c == "b" or row.z in (0.1, 0.9)
    pd.testing.assert_frame_equal(C, crafted_canaries(T, 5, random_state=3))
    assert not C.equals(crafted_canaries(T, 5, random_state=4))


# ------------------------------------------------------------------------------------------------------------------
# audits of generators whose memorisation is known


@pytest.fixture(scope="module")
def copy_audit(small):
    T, H, _ = small
    return audit(CopyTraining, T, H, runs=2, canaries=40, random_state=1, progress_bars=False)


@pytest.mark.slow  # two audit runs of a copying generator: about 15 s
def test_a_copying_generator_is_high_and_its_canaries_prove_epsilon(copy_audit):
    au = copy_audit
    v = au.verdict()
    assert v["level"] == "high" and v["run_levels"] == ["high", "high"]
    exact = next(m for m in au.metric_summary() if m["metric"] == "exact_copies")
    assert exact["values"] == [1.0, 1.0]
    # both runs alike (B = 0): the interval is the runs' own, 1 minus its half-width, clipped at 1
    lo, hi = au.runs[0].evaluation["exact_copies"].interval
    assert exact["interval"] == pytest.approx((1.0 - (hi - lo) / 2, 1.0), abs=1e-12)
    out = au.canary.outcome
    n_in = int(au.canary.included.sum())
    assert out.included == n_in and out.canaries == 40 and 0 < n_in < 40
    # included canaries are in the release (distance 0), left-out ones are not: every guess is right as long as
    # there are enough of each kind for the "in" and the "out" guesses
    for row in out.rows:
        if row.k_plus <= n_in and row.k_minus <= 40 - n_in:
            assert row.correct == row.guesses
        assert row.epsilon_bound == pytest.approx(
            one_run_epsilon(row.guesses, row.correct, confidence=out.row_confidence), abs=1e-9)
    assert au.epsilon_lower_bound == max(r.epsilon_bound for r in out.rows) > 1.0
    assert au.declared_epsilon is None and not au.contradicts_declared


@pytest.mark.slow  # about half a second
def test_a_generator_that_ignores_its_training_data_proves_little(small):
    T, H, demo = small
    pool = demo.holdout.iloc[800:1400]
    au = audit(lambda random_state: Ignores(pool, random_state), T, H, runs=0, canaries=60, random_state=2,
               progress_bars=False, context={"generator": {"name": "ignores", "epsilon": 1.0}})
    assert au.runs == [] and au.epsilon_lower_bound < 1.0
    assert not au.contradicts_declared and au.declared_epsilon == 1.0


@pytest.mark.slow  # about 3 s
def test_an_audit_without_runs_is_written_as_json_alone(small, tmp_path):
    from synthpriv_report.export.audit import load_audit

    T, H, _ = small
    au = audit(CopyTraining, T, H, runs=0, canaries=20, random_state=0, progress_bars=False)
    with pytest.raises(ValueError, match="need runs >= 1"):
        au.write_reports(html=str(tmp_path / "a.html"))
    assert not (tmp_path / "a.html").exists()
    au.write_reports(json=str(tmp_path / "a.json"))
    doc, data = load_audit(tmp_path / "a.json")
    assert data is None and doc["first_run_report"] is None and doc["audit"]["runs"] == []
    assert doc["audit"]["epsilon"]["measured"] == au.epsilon_lower_bound


@pytest.mark.slow  # audits the copying generator again on shuffled rows
def test_the_audit_is_reproducible_and_ignores_row_order(small, copy_audit):
    T, H, _ = small

    def numbers(au: Audit) -> dict:
        d = json.loads(json.dumps(au.to_dict()))
        d.pop("seconds")
        for r in d["runs"]:
            r.pop("generator_seconds")
        for k in ("generator_seconds", "package_seconds"):
            d["canaries"].pop(k)
        return d

    shuffled = audit(CopyTraining, T.sample(frac=1.0, random_state=9), H.sample(frac=1.0, random_state=8), runs=2,
                     canaries=40, random_state=1, progress_bars=False)
    assert numbers(shuffled) == numbers(copy_audit)


@pytest.mark.slow  # about a second
def test_the_callers_frames_are_not_modified(small):
    T, H, _ = small
    T0, H0 = T.copy(deep=True), H.copy(deep=True)
    audit(CopyTraining, T, H, runs=1, canaries=20, random_state=0, progress_bars=False, metrics=["exact_copies"])
    pd.testing.assert_frame_equal(T, T0)
    pd.testing.assert_frame_equal(H, H0)


def test_bad_settings_and_bad_generators_are_named(small):
    T, H, _ = small
    with pytest.raises(ValueError, match="nothing to audit"):
        audit(CopyTraining, T, H, runs=0, canaries=0)
    with pytest.raises(ValueError, match="canaries must be 0 or at least 20"):
        audit(CopyTraining, T, H, runs=1, canaries=5)
    with pytest.raises(ValueError, match="runs must be a whole number"):
        audit(CopyTraining, T, H, runs=-1)
    with pytest.raises(ValueError, match="resample"):
        audit(CopyTraining, T, H, runs=1, resample="bootstrap")

    class Drops(CopyTraining):
        def sample(self, n: int) -> pd.DataFrame:
            return super().sample(n).drop(columns=["age"])

    with pytest.raises(GeneratorError, match="age") as err:
        audit(Drops, T, H, runs=1, progress_bars=False)
    assert "run 1" in str(err.value)


@pytest.mark.slow  # about a second
def test_subsampled_runs_train_on_their_own_records(small):
    T, H, _ = small
    au = audit(CopyTraining, T, H, runs=2, resample="subsample", fraction=0.5, random_state=0, progress_bars=False,
               metrics=["exact_copies"], verdict_metrics=["exact_copies"])
    assert [r.n_training for r in au.runs] == [120, 120]
    fps = [r.evaluation.data.fingerprints["T"] for r in au.runs]
    assert fps[0] != fps[1]  # each run its own subsample
    assert au.to_dict()["settings"]["fraction"] == 0.5


# ------------------------------------------------------------------------------------------------------------------
# the documents


@pytest.mark.slow  # about 5 s
def test_the_audit_document_is_read_back_checked(copy_audit, tmp_path):
    from synthpriv_report.export.audit import load_audit
    from synthpriv_report.export.document import dumps, with_digest

    path = tmp_path / "audit.json"
    copy_audit.write_reports(json=str(path))
    doc, data = load_audit(path)
    assert doc["audit"]["verdict"]["level"] == "high" and data.document["verdict"]["level"] == "high"
    assert "first_run_report" in doc and doc["audit"]["canaries"]["outcome"]["rows"]
    # a number changed and the digest made again: the derivation refuses it, naming the field
    for field, change in (("bound", lambda d: d["audit"]["canaries"]["outcome"]["rows"][0].update(epsilon_bound=9.0)),
                          ("level", lambda d: d["audit"]["verdict"].update(level="low")),
                          ("interval", lambda d: d["audit"]["metrics"][0].update(
                              interval=[0.0, 0.0], values=[0.1, 0.9]))):
        body = json.loads(path.read_text(encoding="utf-8"))
        body.pop("digest")
        change(body)
        bad = tmp_path / f"bad_{field}.json"
        bad.write_text(dumps(with_digest(body)), encoding="utf-8")
        with pytest.raises(ValueError, match="field"):
            load_audit(bad)
    body = json.loads(path.read_text(encoding="utf-8"))
    body["audit"]["runs"][0]["seed"] += 1
    bad = tmp_path / "bad_digest.json"
    bad.write_text(json.dumps(body), encoding="utf-8")
    with pytest.raises(ValueError, match="digest"):
        load_audit(bad)


@pytest.mark.slow  # about 2 s
def test_the_audit_page_and_view_escape_the_generators_name(copy_audit):
    from synthpriv_report.display.audit import render_audit
    from synthpriv_report.export.audit import audit_page

    d = json.loads(json.dumps(copy_audit.to_dict()))
    d["generator"]["name"] = "<script>alert(1)</script>"
    html = render_audit(d)
    assert "<script>alert" not in html and "&lt;script&gt;" in html
    page, text = audit_page({"audit": d})
    assert "<script>alert" not in page and "Generator audit" in page and "high risk" in text
    assert math.isfinite(d["epsilon"]["measured"])


@pytest.mark.slow  # about a second
def test_a_shadow_attack_on_a_copying_generator_is_counted_and_read_back(small, tmp_path):
    """Without canaries the shadow attack's pooled bound is the measured epsilon; the copying generator puts each
    target in its release exactly when it was trained on it, so every evaluation guess is right; the bound is the
    one its counts give, read back from the JSON document."""
    from synthpriv_report.evaluation.shadow import shadow_epsilon
    from synthpriv_report.export.audit import load_audit

    T, H, _ = small
    au = audit(CopyTraining, T.iloc[:60], H.iloc[:60], runs=1, shadow_targets=2, shadow_trainings=8,
               random_state=3, progress_bars=False, metrics=["exact_copies"], verdict_metrics=["exact_copies"],
               context={"generator": {"name": "copies", "epsilon": 0.1}})
    sh = au.shadow
    assert sh is not None and sh.total_trainings == 16
    tp, fn, fp, tn = sh.counts
    assert fn == 0 and fp == 0 and tp + fn == tn + fp == 4  # 2 targets x 4 evaluation runs, half with the target
    assert au.epsilon_lower_bound == sh.epsilon == shadow_epsilon(tp, fn, fp, tn, alpha=0.05, delta=0.0)
    assert au.measured_by == "shadow" and au.contradicts_declared == (sh.epsilon > 0.1)
    d = au.to_dict()
    assert all(set(r) == {"role", "included", "seed"} for t in d["shadow"]["targets"] for r in t["runs"])
    path = tmp_path / "s.json"
    au.write_reports(json=str(path))
    doc, _ = load_audit(path)
    assert doc["audit"]["epsilon"]["measured_from"] == "shadow"
    with pytest.raises(ValueError, match="more than 400"):
        audit(CopyTraining, T, H, runs=0, shadow_targets=30, shadow_trainings=20)


def test_nothing_to_write_is_refused_before_any_work():
    """The documents' writers refuse a call with no target before they read the audit or comparison at all."""
    from synthpriv_report.export.audit import write_audit_reports
    from synthpriv_report.export.comparison import write_comparison_reports

    for writer in (write_audit_reports, write_comparison_reports):
        with pytest.raises(ValueError, match="nothing to write: give at least one of html=, pdf=, json="):
            writer(object())
