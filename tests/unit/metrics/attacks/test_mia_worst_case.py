"""The worst case per record (docs/metrics.md, section mia_worst_case): where the strongest attack's flags fall
among the most atypical training records, the highest scores' members, and the table of the most vulnerable
training records; derived by hand on tiny frames."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from synthpriv_report import Evaluation
from synthpriv_report.metrics.attacks.mia_common import (
    attack_roc,
    atypical_breakdown,
    atypical_order,
    atypical_sizes,
    member_flags,
    member_ranks,
    top_scores,
)
from synthpriv_report.metrics.attacks.mia_worst_case import worst_case_records

# ---------------------------------------------------------------------------------------------------------------
# the pure functions


def test_member_flags_agree_with_the_roc_counts() -> None:
    rng = np.random.default_rng(3)
    members = rng.normal(0.3, 1.0, 400).round(1)  # rounded: many ties, some at the thresholds
    nonmembers = rng.normal(0.0, 1.0, 1500).round(1)
    roc = attack_roc(members, nonmembers)
    flags = member_flags(members, nonmembers)
    for point in roc.rates:
        assert int(flags[point.target].sum()) == point.flagged_members


def test_member_flags_by_hand_with_a_tie_at_the_threshold() -> None:
    # 100 non-members, 1% lets one be flagged: the threshold lies above the tie group of the second highest (5)
    non = np.array([0.0] * 98 + [5.0, 7.0])
    flags = member_flags([10.0, 9.0, 5.0, 5.0], non, fprs=(0.01, 0.1))
    assert flags[0.01].tolist() == [True, True, False, False]
    assert flags[0.1].tolist() == [True, True, True, True]


def test_ranks_share_the_best_rank_of_a_tie() -> None:
    assert member_ranks([1.0, 3.0, 3.0, 2.0, 1.0 + 1e-13]).tolist() == [4, 1, 1, 3, 4]


def test_breakdown_by_hand() -> None:
    # 200 records: the 1% is 2 records, the 5% 10; the atypicality is the position itself, so the most atypical
    # are positions 199, 198, ...
    d = np.arange(200.0)
    flagged = np.zeros(200, dtype=bool)
    flagged[[199, 195, 150, 3]] = True  # one of the 2 most atypical, two of the 10, two more elsewhere
    b = atypical_breakdown(d, flagged, 0.02)
    assert b["0.01"] == {"n": 2, "n_flagged": 1, "chance": pytest.approx(0.04)}
    assert b["0.05"] == {"n": 10, "n_flagged": 2, "chance": pytest.approx(0.2)}
    assert b["rest"] == {"n": 190, "n_flagged": 2, "chance": pytest.approx(3.8)}
    assert atypical_sizes(200) == (2, 10) and atypical_sizes(10) == (1, 1)


def test_equal_distances_keep_the_records_order() -> None:
    assert atypical_order([0.5, 0.9, 0.5, 0.9, 0.0]).tolist() == [1, 3, 0, 2, 4]


def test_top_scores_by_hand() -> None:
    # pooled from the highest: 9 (member), 8 (non-member), 7, 7 (members), 6 (non-member), 1 (member)
    t = top_scores([9.0, 7.0, 7.0, 1.0], [8.0, 6.0], ks=(1, 3, 10))
    assert t["1"] == {"n": 1, "n_members": 1, "chance": pytest.approx(4 / 6)}
    assert t["3"] == {"n": 4, "n_members": 3, "chance": pytest.approx(4 * 4 / 6)}  # the tie at 7 is counted whole
    assert t["10"] == {"n": 6, "n_members": 4, "chance": pytest.approx(4.0)}


def test_the_sentence_counts_in_plain_words() -> None:
    text = worst_case_records({"details": {"atypical": {
        "fpr": 0.01, "0.01": {"n": 10, "n_flagged": 9, "chance": 0.1}, "0.05": {"n": 50, "n_flagged": 12,
                                                                              "chance": 0.5},
        "rest": {"n": 950, "n_flagged": 3, "chance": 9.5}}}})
    assert "of the 10 most atypical training records (1%" in text
    assert "flags 9 at a 1% false-positive rate, where chance would flag 0.1" in text
    assert worst_case_records({"details": {}}) is None
    assert worst_case_records({"details": {"atypical": {"0.01": 3}}}) is None


# ---------------------------------------------------------------------------------------------------------------
# on an evaluation

#: Two atypical training records (far from the 38 others on one column) and a holdout spread a little wider than
#: the typical training records: a release that copies the two atypical ones.
TYPICAL = np.linspace(-1.0, 1.0, 38)
OUTLIERS = np.array([8.123457, -8.765431])


def _tiny(copy_all: bool = False) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    T = pd.DataFrame({"x": np.concatenate([TYPICAL, OUTLIERS])})
    H = pd.DataFrame({"x": np.linspace(-1.5, 1.5, 20)})
    S = T.copy() if copy_all else pd.DataFrame({"x": np.concatenate([OUTLIERS, np.linspace(-0.9, 0.9, 10) + 0.01])})
    return T, H, S


def _worst(T: pd.DataFrame, S: pd.DataFrame, H: pd.DataFrame) -> tuple[Evaluation, dict]:
    ev = Evaluation(T, S, holdout=H, progress=False, calibrate=False, random_state=0)
    return ev, ev.results(metrics=["mia_worst_case"])["mia_worst_case"].details


@pytest.mark.slow  # about half a second
def test_the_two_copied_outliers_are_the_most_atypical_and_flagged() -> None:
    T, H, S = _tiny()
    ev, d = _worst(T, S, H)
    # 40 members: the 1% and the 5% are 1 and 2 records, the rest 38
    at = d["atypical"]
    one = d["tpr_at"]["0.01"]
    assert (at["0.01"]["n"], at["0.05"]["n"], at["rest"]["n"]) == (1, 2, 38)
    # by hand: each outlier's nearest other training record is an end of the typical ones (distances 7.12 and
    # 7.77 against at most 0.054 for a typical record): the 1% is -8.77, the 5% both outliers
    x = T.x.to_numpy()
    gap = np.abs(x[:, None] - x[None, :]) + np.diag(np.full(40, np.inf))
    assert np.argsort(-gap.min(axis=1))[:2].tolist() == [39, 38]
    assert at["0.01"]["n_flagged"] == 1 and at["0.05"]["n_flagged"] == 2
    assert at["0.05"]["n_flagged"] + at["rest"]["n_flagged"] == one["flagged_members"]
    assert at["fpr"] == one["flagged_nonmembers"] / d["n_nonmembers"]
    assert at["0.01"]["chance"] == pytest.approx(at["fpr"])
    # the table: the two copies on top, the caller's rows 39 (-8.77, the most atypical) and 38, flagged
    table = ev.vulnerable_records(k=3)
    assert table.index[:2].tolist() == [39, 38] or table.index[:2].tolist() == [38, 39]
    assert table["atypicality_rank"].loc[[39, 38]].tolist() == [1, 2]
    assert table["flagged_at_1pct"].iloc[:2].all() and table["score_rank"].iloc[:2].tolist() == [1, 1]
    assert table["atypicality"].loc[39] == pytest.approx(gap.min(axis=1)[39] / (x.max() - x.min()))
    assert "values" not in table.columns and not table.attrs["revealed"]
    assert table.attrs["n_flagged_at_1pct"] == one["flagged_members"]
    assert table.attrs["summary"] == worst_case_records({"details": d})


@pytest.mark.slow  # about a second
def test_shuffled_rows_give_the_same_numbers_and_the_same_records() -> None:
    T, H, S = _tiny()
    rng = np.random.default_rng(11)
    shuffled = [f.iloc[rng.permutation(len(f))].reset_index(drop=True) for f in (T, S, H)]
    ev_a, a = _worst(T, S, H)
    ev_b, b = _worst(*shuffled)
    assert a["atypical"] == b["atypical"] and a["top_scores"] == b["top_scores"]
    ta, tb = ev_a.vulnerable_records(k=40), ev_b.vulnerable_records(k=40)
    cols = ["score_rank", "attack_score", "atypicality", "atypicality_rank", "flagged_at_0.1pct", "flagged_at_1pct"]
    key = ["score_rank", "atypicality"]
    sa = ta.assign(x=T.x.to_numpy()[ta.index]).sort_values([*key, "x"]).reset_index(drop=True)
    sb = tb.assign(x=shuffled[0].x.to_numpy()[tb.index]).sort_values([*key, "x"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(sa[[*cols, "x"]], sb[[*cols, "x"]])


@pytest.mark.slow  # about half a second
def test_an_exact_copy_flags_the_most_atypical_records() -> None:
    T, H, S = _tiny(copy_all=True)
    ev, d = _worst(T, S, H)
    at = d["atypical"]
    assert at["0.01"]["n_flagged"] == at["0.01"]["n"] and at["0.05"]["n_flagged"] == at["0.05"]["n"]
    assert at["0.05"]["n_flagged"] + at["rest"]["n_flagged"] == d["tpr_at"]["0.01"]["flagged_members"]
    assert d["top_scores"]["10"]["n_members"] == d["top_scores"]["10"]["n"]
    assert ev.vulnerable_records(k=5)["flagged_at_1pct"].all()


@pytest.mark.slow  # about half a second
def test_the_table_shows_values_only_when_asked_and_refuses_bad_k() -> None:
    T, H, S = _tiny()
    ev, _ = _worst(T, S, H)
    shown = ev.vulnerable_records(k=2, reveal_real_values=True)
    assert shown.attrs["revealed"] and {shown["values"].loc[39]["x"]} == {float(OUTLIERS[1])}
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="k must be"):
            ev.vulnerable_records(k=bad)
    with pytest.raises(TypeError, match="reveal_real_values"):
        ev.vulnerable_records(k=2, reveal_real_values=1)


def test_without_a_holdout_the_table_says_why() -> None:
    T, _, S = _tiny()
    ev = Evaluation(T, S, progress=False, calibrate=False)
    with pytest.raises(ValueError, match="needs a holdout"):
        ev.vulnerable_records()


@pytest.mark.slow  # about 1 s
def test_the_reports_count_and_never_show_a_real_value(tmp_path) -> None:
    T, H, S = _tiny()
    ev = Evaluation(T, S, holdout=H, progress=False, calibrate=False, random_state=0)
    res = ev.results(metrics=["mia_worst_case", "dcr"])
    sentence = worst_case_records(res["mia_worst_case"].to_dict())
    path = res.to_html(tmp_path / "report.html")
    html = path.read_text(encoding="utf-8")
    assert "most atypical training records" in html
    # the outliers' values (and the typical ones', at their printed precision) are nowhere in the report
    for v in (*OUTLIERS, *TYPICAL[[1, 2, 17]]):
        for shown in (repr(float(v)), f"{v:.4f}", f"{v:.3f}"):
            assert shown not in html, shown
    text = res._repr_mimebundle_()["text/plain"]
    assert sentence in text


# ---------------------------------------------------------------------------------------------------------------
# one attack read at a rate of the caller's (the teaching slider)


def test_the_operating_point_equals_the_report_at_its_three_rates() -> None:
    from synthpriv_report.analysis.vulnerable import operating_point

    T, H, S = _tiny()
    ev, d = _worst(T, S, H)
    n = ev.search_count
    for f in (0.001, 0.01, 0.1):
        p = operating_point(ev, f)
        r = d["tpr_at"][f"{f:g}"]
        assert p.attack == d["worst_attack"]
        assert (p.flagged_members, p.flagged_nonmembers, p.readable) == (r["flagged_members"],
                                                                         r["flagged_nonmembers"], r["reportable"])
        assert p.epsilon_lower_bound == pytest.approx(r["epsilon_lower_bound"])
        assert p.tpr_interval == pytest.approx(tuple(r["tpr_interval"]))
    assert ev.search_count == n  # read from the cached scores


def test_the_operating_point_by_hand_at_the_ends() -> None:
    from synthpriv_report.analysis.vulnerable import operating_point

    T, H, S = _tiny()
    ev, d = _worst(T, S, H)
    n_m, n_n = d["n_members"], d["n_nonmembers"]
    # at 0.1% no outsider may be accused (0.001 * n_n < 1): the rate is not readable, and only members scored above
    # every outsider are flagged, the two copied outliers among them (the most atypical 1% is one record: flagged)
    low = operating_point(ev, 0.001)
    assert not low.readable and low.flagged_nonmembers == 0 and low.fpr == 0.0 and low.chance == 0.0
    assert low.flagged_members >= 2 and (low.atypical_n, low.atypical_flagged) == (1, 1)
    # at 100% everyone is accused: TPR = FPR = 1, chance finds every member, nothing is proven
    top = operating_point(ev, 1.0)
    assert (top.flagged_members, top.flagged_nonmembers) == (n_m, n_n)
    assert top.tpr == top.fpr == 1.0 and top.chance == n_m and top.epsilon_lower_bound == 0.0
    assert top.atypical_chance == pytest.approx(top.atypical_n)


def test_the_operating_point_of_a_named_attack_and_the_refusals() -> None:
    from synthpriv_report.analysis.vulnerable import operating_point
    from synthpriv_report.metrics.attacks.mia_common import attack_roc
    from synthpriv_report.metrics.attacks.mia_worst_case import ATTACKS

    T, H, S = _tiny()
    ev, _ = _worst(T, S, H)
    name = "density ratio"
    p = operating_point(ev, 0.2, attack=name)
    own = attack_roc(*ATTACKS[name](ev.context), fprs=(0.2,)).rates[0]
    assert p.attack == name and (p.flagged_members, p.flagged_nonmembers) == (own.flagged_members,
                                                                             own.flagged_nonmembers)
    for bad in (0, 0.0, -0.1, 1.5, float("nan"), True, "0.01"):
        with pytest.raises(ValueError, match="fpr must be"):
            operating_point(ev, bad)
    with pytest.raises(ValueError, match="unknown attack 'nope'; choose one of 'distance"):
        operating_point(ev, 0.01, attack="nope")
    ev_none = Evaluation(T, S, progress=False, calibrate=False)
    with pytest.raises(ValueError, match="needs a holdout"):
        operating_point(ev_none, 0.01)


@pytest.mark.slow  # about a second
def test_the_operating_point_does_not_depend_on_the_row_order() -> None:
    from synthpriv_report.analysis.vulnerable import operating_point

    T, H, S = _tiny()
    rng = np.random.default_rng(5)
    shuffled = [f.iloc[rng.permutation(len(f))].reset_index(drop=True) for f in (T, S, H)]
    a = operating_point(_worst(T, S, H)[0], 0.05)
    b = operating_point(_worst(*shuffled)[0], 0.05)
    assert a == b
