"""The reader's words: numbers by kind, interval labels, value ranges, one sentence per check, settings in words.

Expected texts are written by hand from the formats the documents promise (3 significant digits, percentages for
shares, counts with thousands separators), not from the code under test.
"""

from __future__ import annotations

import math

import pytest

from synthpriv_report.core.registry import REGISTRY, LevelSpec
from synthpriv_report.core.results import MetricResult
from synthpriv_report.grading import levels
from synthpriv_report.text import wording


@pytest.mark.parametrize("value, text", [
    (0.15000000000000002, "0.15"), (0.123456, "0.123"), (1650.2, "1,650"), (123456.0, "123,000"), (3, "3"),
    (3000, "3,000"), (-32.61479, "-32.6"), (0.000695, "0.000695"), (100.0, "100"), (0.0, "0"), (None, "—"),
    (float("nan"), "—"), (float("inf"), "∞"), (True, "yes"), (False, "no"),
])
def test_numbers_have_three_significant_digits(value, text):
    assert wording.fmt_number(value) == text


@pytest.mark.parametrize("share, text", [(0.095, "9.5%"), (0.5133333, "51.3%"), (0.0, "0%"), (1.0, "100%"),
                                         (0.0033333, "0.333%"), (0.96666, "96.7%"), (None, "—")])
def test_shares_are_percentages(share, text):
    assert wording.fmt_share(share) == text


def test_counts_have_thousands_separators():
    assert wording.fmt_count(32561) == "32,561" and wording.fmt_count(600) == "600"


def test_value_kinds_of_the_verdict_checks():
    kinds = {n: wording.value_kind({"name": n, "value_range": list(REGISTRY[n].value_range)}) for n in
             ("exact_copies", "holdout_dcr_share", "privacy_score", "dcr_test", "nndr_test", "detection_mlp", "mir")}
    assert kinds == {"exact_copies": "share", "holdout_dcr_share": "share", "privacy_score": "score",
                     "dcr_test": "score", "nndr_test": "score", "detection_mlp": "auc", "mir": "share"}
    assert wording.fmt_interval([0.074048, 0.1211], "share") == "7.4% to 12.1%"


def test_intervals_are_labelled_by_how_they_were_made():
    assert wording.interval_label({"name": "exact_copies"}) == "Wilson 95%"
    assert wording.interval_label({"name": "detection_mlp"}) == "min-max over the 5 fold AUCs"
    assert wording.interval_label({"name": "dcr_test"}).startswith("bootstrap 95%")
    for name, spec in REGISTRY.items():  # every metric states its interval's kind
        assert spec.interval_kind and "95% interval" != spec.interval_kind, name


def test_gower_distances_range_from_0_to_1():
    gower = wording.range_text({"name": "dcr", "value_range": [0.0, None], "space": "gower"})
    assert gower.startswith("from 0 to 1") and "inf" not in gower and "∞" not in gower
    assert wording.range_text({"name": "dcr", "value_range": [0.0, None], "space": "euclidean"}) == "0 or more"
    assert wording.range_text({"name": "privacy_score", "value_range": [0.0, 100.0]}) == "from 0 to 100"


def test_check_sentences_carry_the_formatted_number():
    copies = wording.check_sentence({"name": "exact_copies", "computed": True, "value": 57 / 600,
                                     "details": {"n_copies": 57, "n": 600, "holdout_copy_share": 1 / 300}})
    assert copies == ("9.5% of the synthetic records (57 of 600) are exact copies of a real training record; among "
                      "real records the generator never saw, 0.333% equal a training record.")
    share = wording.check_sentence({"name": "holdout_dcr_share", "computed": True, "value": 0.575, "details": {}})
    assert share.startswith("57.5% of the synthetic records are closer to a training record")
    test = wording.check_sentence({"name": "dcr_test", "computed": True, "value": 100 - 28.9107,
                                   "details": {"D": 28.9107, "statistic": "mean"}})
    assert test == ("On average, the synthetic records' distance to their closest training record is 28.9% lower than "
                    "for real records the generator never saw, so they sit closer to real people: score 71.1 out of "
                    "100 (100: no closer than unseen real records).")
    farther = wording.check_sentence({"name": "nndr_test", "computed": True, "value": 100.0,
                                      "details": {"D": -10.918, "statistic": "median"}})
    assert farther.startswith("Typically (median), the synthetic records' ratio")
    assert "is not lower" in farther and "(10.9% higher)" in farther and "score 100 out of 100" in farther
    score = wording.check_sentence({"name": "privacy_score", "computed": True, "value": 47.619,
                                    "details": {"f_ts": 0.21, "f_tt": 0.1}})
    assert "47.6 out of 100" in score and "21%" in score and "10%" in score


def test_mir_level_shows_the_membership_advantage_beside_it():
    """MIR 0.991 graded low is not a contradiction: the level is graded on the membership advantage (the recall on
    training records minus the share of holdout records also labelled real), which the document shows."""
    m = {"name": "mir", "value": 0.991, "level": "low",
         "level_rule": {"scale": "the membership advantage", "graded": 0.991 - 0.988},
         "details": {"holdout_predicted_real": 0.988}}
    text = wording.graded_text(m)
    assert "0.003" in text and "99.1%" in text and "98.8%" in text


def test_settings_are_in_words_with_the_identifier_beside():
    rows = wording.setting_rows({"calibrate": True, "max_rows": 20000, "spaces": None, "random_state": 0,
                                 "engine": "auto"}, {"alpha": 0.1, "levels": None})
    by_code = {r["code"]: r for r in rows}
    assert by_code["calibrate"]["value"] == "yes" and by_code["max_rows"]["value"] == "20,000"
    assert by_code["spaces"]["value"] == "the default of each measure"
    assert by_code["levels"]["value"] == "none: the package defaults"
    for r in rows:
        assert r["words"] != r["code"] and "_" not in r["words"], r
        assert r["value"] not in ("True", "False", "None"), r


def _grades(spec, value):
    r = MetricResult(spec.name, value, direction=spec.direction, value_range=spec.value_range)
    return levels.apply_level(spec, r, None)


@pytest.mark.parametrize("name", sorted(n for n, s in REGISTRY.items() if s.level is not None))
def test_level_agrees_with_the_direction_of_the_value_or_says_what_it_grades(name):
    """Over the registry: a level graded on the value itself moves with the value's direction (the risky end is
    at least as risky as the safe end); a level graded on another quantity says so, with that quantity."""
    spec = REGISTRY[name]
    lo, hi = spec.value_range
    hi = hi if math.isfinite(hi) else 10.0
    risky, safe = (hi, lo) if spec.direction == "higher_is_riskier" else (lo, hi)
    order = {None: -1, "low": 0, "medium": 1, "high": 2}
    ls = spec.level if isinstance(spec.level, LevelSpec) else None
    if ls is not None and ls.rule is None and ls.of is None:
        a, b = _grades(spec, risky), _grades(spec, safe)
        assert order[a.level] >= order[b.level] and a.level == "high" and b.level == "low", name
        assert wording.graded_text(a.to_dict()) == ""
    else:
        # graded on another quantity: whatever level comes out, the document names that quantity
        for v in (risky, safe):
            r = _grades(spec, v)
            if r.level is not None and r.level_rule is not None and r.level_rule.scale != "the value":
                assert wording.graded_text(r.to_dict()).startswith("Graded on "), name
