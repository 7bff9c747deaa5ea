"""Tests of the copy checks' rules for tables with few columns (synthpriv_report.metrics.closeness.copies): the
one-column
rule's closeness of the differing number, and the copies of training records unique on the analysed columns
against the holdout's rate of matching them. Hand-computed on frames of 4 to 8 records.

The one-column frames (x' = x / 100: the real range of x over T is [0, 100]):

    T: (a,0) (a,40) (b,10) (b,100) (c,20) (d,70)       positions T0..T5

Each training record's smallest range-scaled difference in x to another training record equal on c: T0 and T1
0.40 (to each other), T2 and T3 0.90, T4 and T5 none (counted as 2). Sorted: .4 .4 .9 .9 2 2; their 1% quantile
(linear interpolation, position 0.01 * 5 = 0.05 between the first two) is 0.4: a synthetic record equal to a
training record on c is a near copy when its x is within 40 of that record's x.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _support.evaluation import evaluation

from synthpriv_report.core.registry import verdict_alpha
from synthpriv_report.matching.identity import cell_words
from synthpriv_report.metrics.closeness.copies import COPY_STATISTICS, one_column_gaps, statistic_alpha

T = pd.DataFrame({"x": [0.0, 40.0, 10.0, 100.0, 20.0, 70.0], "c": list("aabbcd")})


def _near(t: pd.DataFrame, s: pd.DataFrame, h: pd.DataFrame | None = None, **kw):
    kw.setdefault("row_order", "as_given")
    return evaluation(t, s, h, metrics=["near_copies"], **kw).results()["near_copies"]


def _copies(t: pd.DataFrame, s: pd.DataFrame, h: pd.DataFrame | None = None, **kw):
    kw.setdefault("row_order", "as_given")
    return evaluation(t, s, h, metrics=["exact_copies"], **kw).results()["exact_copies"]


def test_one_column_gaps_by_hand() -> None:
    # S0 (a, 30): equal on c to T0 (gap .30) and T1 (gap .10): the nearer, T1, at .10
    # S1 (b, 55): T2 and T3 both .45 away (in exact arithmetic; rounding picks one)
    # S2 (e, 40): no training record has c = e; equal on x to T1 but c differs: a categorical one-column match
    # S3 (a, 40): identical to T1; T0 differs in x by .40, the only record of c = a with another x
    s = pd.DataFrame({"x": [30.0, 55.0, 40.0, 40.0], "c": list("abea")})
    codes = {v: i for i, v in enumerate("abcde")}
    ct = np.array([[codes[v]] for v in T["c"]])
    cs = np.array([[codes[v]] for v in s["c"]])
    xt, xs = T[["x"]].to_numpy(), s[["x"]].to_numpy()
    g = one_column_gaps(cell_words(xs, cs), cell_words(xt, ct), xs, xt, xs / 100, xt / 100, 1)
    assert g["gap"].round(12).tolist() == [0.1, 0.45, np.inf, 0.4]
    assert g["gap_partner"][[0, 2, 3]].tolist() == [1, -1, 0] and g["gap_partner"][1] in (2, 3)
    assert g["gap_column"].tolist() == [0, 0, -1, 0]
    assert g["category_column"].tolist() == [-1, -1, 1, -1] and g["category_partner"].tolist() == [-1, -1, 1, -1]
    # within one set a record never matches itself or an identical record: T0 and T1 find each other at .40
    w = cell_words(xt, ct)
    g = one_column_gaps(w, w, xt, xt, xt / 100, xt / 100, 1)
    assert g["gap"].round(12).tolist() == [0.4, 0.4, 0.9, 0.9, np.inf, np.inf]
    assert g["gap_partner"].tolist() == [1, 0, 3, 2, -1, -1]


def test_near_copy_with_a_far_number_is_not_counted_and_a_close_one_is() -> None:
    # S0 (a, 30): equal on c to T1, x 10 away (.10 <= .40): a near copy by the one-column rule
    # S1 (b, 55): equal on c to T2 and T3, x 45 away from both (.45 > .40): not a near copy by that rule. Its Gower
    #   distance to them, .45 / 2 = .225, is not below the distance cut-off either: the training records' nearest
    #   distances are .2 .2 .45 .45 .55 .65 (T0-T1 .40 / 2; T2-T3 .90 / 2; T4 to T2 (.1 + 1) / 2; T5 to T1 and T3
    #   (.3 + 1) / 2), whose 1% quantile is .2, and .225 is not below it
    # S2 (d, 95): equal on c to T5, x 25 away (.25 <= .40): a near copy
    # S3 (e, 50): no training record within reach
    s = pd.DataFrame({"x": [30.0, 55.0, 95.0, 50.0], "c": list("abde")})
    r = _near(T, s)
    d = r.details
    assert d["number_cutoff"] == pytest.approx(0.4)
    assert d["distance_cutoff"] == pytest.approx(0.2)
    assert d["n_one_column"] == 2 and d["n_closer_than_real"] == 0 and d["n_exact"] == 0
    assert d["one_column_by_column"] == {"x": 2}
    assert d["n_near_copies"] == 2 and r.value == 0.5
    # the same record with x 5 nearer (a 40-unit difference, at the cut-off): counted
    r = _near(T, s.assign(x=[30.0, 50.0, 95.0, 50.0]))
    assert r.details["n_one_column"] == 3


def test_a_category_changed_counts_whatever_the_new_value() -> None:
    # S0 equals T5 on x with another category (an existing one, b); S1 equals T3 on x with a value no real record
    # has (redacted): both one-column near copies, a category having no nearer or farther value (Gower: 1 apart)
    s = pd.DataFrame({"x": [70.0, 100.0, 50.0, 50.0], "c": ["b", "REDACTED", "e", "e"]})
    d = _near(T, s).details
    assert d["n_one_column"] == 2 and d["one_column_by_column"] == {"c": 2}


# ----------------------------------------------------------------------------------------------------------------
# copies of training uniques

#: T: (a,1) three times, (b,2) twice, (c,3), (d,4): two training records are unique, (c,3) and (d,4).
TU = pd.DataFrame({"x": [1.0, 1.0, 1.0, 2.0, 2.0, 3.0, 4.0], "c": list("aaabbcd")})


@pytest.mark.slow  # about half a second
def test_copy_of_a_training_unique_against_a_copy_of_a_shared_record() -> None:
    # S: a copy of (a,1) (shared by three training records), a copy of (c,3) (unique), (g,5) (a holdout record no
    # training record equals), and a fresh record
    s = pd.DataFrame({"x": [1.0, 3.0, 5.0, 8.0], "c": list("acgf")})
    # H: (d,4) and (b,2) equal training records; (g,5) and (h,6) equal none: unseen in training
    h = pd.DataFrame({"x": [4.0, 2.0, 5.0, 6.0], "c": list("dbgh")})
    r = _copies(TU, s, h)
    d = r.details
    assert d["n_copies"] == 2 and d["baseline_share"] == 0.5  # all copies: 2 of 4, against 2 of 4 holdout records
    u = d["unique_copies"]
    # the training uniques (c,3) and (d,4): the synthetic data contain one, (c,3); the copy of (a,1) copies no
    # unique record. The holdout records unseen in training, (g,5) and (h,6): the synthetic data contain one
    assert (u["n_copies"], u["n"]) == (1, 2)
    assert u["baseline"] == "holdout_unseen" and (u["baseline_share"], u["n_baseline"]) == (0.5, 2)
    assert u["excess"] == 0.0 and u["baseline_design_effect"] == 1.0
    assert d["copy_check_lower_bound"] == max(d["excess_lower_bound"], u["excess_lower_bound"],
                                              d["near_copies"]["excess_lower_bound"])
    # a generator that favours rare records contains rare holdout records as often as rare training records: with
    # (h,6) in the synthetic data too, its share of unseen holdout records (2 of 2) is above the training uniques'
    r = _copies(TU, s.assign(x=[1.0, 3.0, 5.0, 6.0], c=list("acgh")), h)
    assert r.details["unique_copies"]["excess"] == -0.5


def test_identical_unseen_holdout_records_count_as_one_group() -> None:
    # H: (g,5) three times and (h,6) once, none in T; S contains (g,5): 3 of 4 unseen holdout records, decided by
    # the same synthetic record. Kish's design effect over the groups {g x3, h}: the cluster-robust variance of the
    # mean of (1, 1, 1, 0) over those groups, (3 * .25)^2 + (.75)^2 = 1.125 over 16, against the plain .1875 / 4
    s = pd.DataFrame({"x": [5.0, 8.0], "c": list("gf")})
    h = pd.DataFrame({"x": [5.0, 5.0, 5.0, 6.0], "c": list("gggh")})
    u = _copies(TU, s, h).details["unique_copies"]
    assert (u["baseline_share"], u["n_baseline"]) == (0.75, 4)
    assert u["baseline_design_effect"] == pytest.approx((1.125 / 16) / (0.1875 / 4))


def test_unique_baseline_without_a_holdout_leaves_each_record_out() -> None:
    # Leave one out: a training record against the six others. Each (a,1) has two identical others: a copy, but of
    # a record shared by two, not unique. Each (b,2) has one identical other, unique among the six: a copy of a
    # unique. (c,3), (d,4): no copy. All copies 5 of 7; copies of uniques 2 of 7.
    s = pd.DataFrame({"x": [1.0, 3.0, 9.0, 8.0], "c": list("acef")})
    d = _copies(TU, s).details
    assert d["baseline"] == "training" and d["baseline_share"] == pytest.approx(5 / 7)
    u = d["unique_copies"]
    assert u["baseline"] == "training" and u["baseline_share"] == pytest.approx(2 / 7) and u["n_baseline"] == 7
    assert u["n_copies"] == 1


def test_each_statistic_at_half_the_check_level() -> None:
    # exact_copies grades two statistics (all copies, copies of training uniques), each at half its level;
    # near_copies one, at the whole level
    assert COPY_STATISTICS == 2 and statistic_alpha() == pytest.approx(verdict_alpha() / 2)
    s = pd.DataFrame({"x": [1.0, 3.0, 9.0, 8.0], "c": list("acef")})
    d = _copies(TU, s).details
    assert d["check_alpha"] == verdict_alpha() and d["statistic_alpha"] == statistic_alpha()
    d = _near(TU, s).details
    assert d["check_alpha"] == verdict_alpha() and d["statistic_alpha"] == verdict_alpha()
    assert "unique_copies" not in d


@pytest.mark.slow  # about a second
def test_copy_checks_do_not_depend_on_the_row_order() -> None:
    rng = np.random.default_rng(5)
    s = pd.DataFrame({"x": [1.0, 3.0, 9.0, 30.0, 55.0, 70.0], "c": list("aceabb")})
    h = pd.DataFrame({"x": [4.0, 2.0, 5.0, 6.0, 41.0], "c": list("dbgha")})
    t = pd.concat([TU, T], ignore_index=True)

    def both(tt: pd.DataFrame, ss: pd.DataFrame, hh: pd.DataFrame | None) -> dict:
        ev = evaluation(tt, ss, hh, metrics=["exact_copies", "near_copies"])
        res = ev.results()
        return {m: (res[m].value, res[m].details) for m in ("exact_copies", "near_copies")}

    def shuffled(df: pd.DataFrame) -> pd.DataFrame:
        return df.iloc[rng.permutation(len(df))].reset_index(drop=True)

    for hh in (h, None):
        first = both(t, s, hh)
        again = both(shuffled(t), shuffled(s), None if hh is None else shuffled(hh))
        assert again == first


@pytest.mark.slow  # about half a second
def test_the_exact_copy_check_says_when_its_measured_power_is_low() -> None:
    # T: ten records, eight unique and one identical pair: 80% unique, and without a holdout 2 of 10 training
    # records equal another one (20%, above the 5% from which the check's power is low): the note quotes the
    # power measured on such tables without a holdout
    t = pd.DataFrame({"x": [float(v) for v in range(9)] + [0.0], "c": list("abcdefghia")})
    s = pd.DataFrame({"x": [50.0, 60.0], "c": list("yz")})
    r = _copies(t, s)
    assert r.details["unique_training_share"] == pytest.approx(0.8) and r.details["baseline_share"] == 0.2
    assert any("little power here" in n and "6 of 20" in n and "without a holdout" in n for n in r.notes)
    # with a holdout that equals no training record: no such note
    r = _copies(t, s, pd.DataFrame({"x": [70.0, 80.0], "c": list("uv")}))
    assert r.details["baseline_share"] == 0.0 and not any("little power" in n for n in r.notes)
    # under half unique: the uniqueness note alone says so, with the figure measured on such tables
    r = _copies(TU, s)
    assert [n for n in r.notes if "little power" in n] == [r.notes[0]] and "none of 5" in r.notes[0]


def test_the_copies_of_training_uniques_are_computed_again_when_a_report_is_read_back() -> None:
    import copy

    from synthpriv_report import InconsistentReportError
    from synthpriv_report.export import from_json
    from synthpriv_report.export.document import with_digest

    s = pd.DataFrame({"x": [5.0, 8.0, 3.0], "c": list("gfc")})
    h = pd.DataFrame({"x": [5.0, 5.0, 5.0, 6.0], "c": list("gggh")})
    doc = evaluation(TU, s, h, metrics=["exact_copies", "near_copies"]).to_json()
    assert from_json(copy.deepcopy(doc)).verdict.level == doc["verdict"]["level"]  # a genuine report loads
    u = doc["metrics"]["exact_copies"]["details"]["unique_copies"]
    assert u["baseline_design_effect"] > 1  # stored, checked within [1, n_baseline], and the bound made from it
    for key, value in (("excess_lower_bound", 0.5), ("n_copies", 0), ("baseline_design_effect", 1.0)):
        forged = copy.deepcopy(doc)
        forged["metrics"]["exact_copies"]["details"]["unique_copies"][key] = value
        with pytest.raises(InconsistentReportError):
            from_json(with_digest(forged))
