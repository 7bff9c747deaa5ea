"""Hostile input at the data layer (issue 16): every bad input gets a clear error naming the column (and the set and
row), or a documented handling; numbers stay numbers; no real value leaks into a message unless revealed.

One test per case, named after what broke or what could break.
"""

from __future__ import annotations

import copy
import time

import numpy as np
import pandas as pd
import pytest

from synthpriv_report import Evaluation
from synthpriv_report import spaces as sp
from synthpriv_report.data.containers import MISSING
from synthpriv_report.data.preparation import prepare
from synthpriv_report.spaces import SCALED_LIMIT, SpaceSpec, embed, encode, fit, project


def _T() -> pd.DataFrame:
    return pd.DataFrame({"age": [30.0, 40.0, 50.0, 60.0], "sex": ["F", "M", "F", "M"]})


def _all_encodings(d):
    f = fit(d)
    encs = [encode(d, f, SpaceSpec(k)) for k in ("gower", "euclidean", "hamming")]
    encs.append(project(d, encs[1], SpaceSpec("projected"))[0])
    return f, encs


def _assert_finite_encodings(d) -> None:
    f, encs = _all_encodings(d)
    assert np.isfinite(f.num_half_range).all()
    for enc in encs:
        for s in d.sets:
            num = enc.num[s]
            if enc.mode == sp.MODE_GOWER:
                num = num[~np.isnan(num)]  # gower keeps NaN for a missing value
            assert np.isfinite(num).all(), (enc.spec.label, s)


# ----------------------------------------------------------------------------------------------------------------
# 1. numbers stay numbers


def test_synthetic_rows_at_1e300_give_a_finite_nndr_review() -> None:
    """Found on main: ten synthetic rows at ±1e300 gave nndr_review = NaN, graded "low" (the squared scaled
    distance overflowed to inf, inf - inf = NaN)."""
    rng = np.random.default_rng(0)
    T = pd.DataFrame({"x": rng.normal(size=40), "c": rng.choice(list("ab"), 40)})
    H = pd.DataFrame({"x": rng.normal(size=20), "c": rng.choice(list("ab"), 20)})
    S = pd.DataFrame({"x": np.r_[np.full(5, 1e300), np.full(5, -1e300)], "c": list("ababababab")})
    d = prepare(T, S, H)
    _assert_finite_encodings(d)
    ev = Evaluation(T, S, holdout=H, progress=False, random_state=0, calibrate=False)
    r = ev.results(metrics=["nndr_review", "dcr_review", "dcr"])
    for name in ("nndr_review", "dcr_review", "dcr"):
        assert r[name].value is not None and np.isfinite(r[name].value), (name, r[name].value)


def test_real_values_at_plus_minus_1e300_have_a_finite_range() -> None:
    """max - min of real values at ±1e300... ±1.7e308 overflows to inf; the scale must stay finite and the scaled
    values exact (the extremes scale to 0 and 1, the middle to 0.5)."""
    big = np.finfo(np.float64).max
    T = pd.DataFrame({"x": [-big, big, 0.0, 1e300]})
    S = pd.DataFrame({"x": [big, -big, 0.0, np.nan]})
    d = prepare(T, S)
    f = fit(d)
    assert np.isinf(f.num_range[0]) and np.isfinite(f.num_half_range[0])
    g = encode(d, f, SpaceSpec("gower"))
    assert g.num["T"][:3, 0].tolist() == [0.0, 1.0, 0.5]
    _assert_finite_encodings(d)


def test_far_synthetic_value_over_a_tiny_real_range_is_clipped_not_infinite() -> None:
    """A real range of 1e-300 and a synthetic value of 1e300: (x - min) / range is 1e600, beyond float64."""
    T = pd.DataFrame({"x": [0.0, 1e-300, 5e-301]})
    S = pd.DataFrame({"x": [1e300, -1e300, 0.0]})
    d = prepare(T, S)
    f = fit(d)
    g = encode(d, f, SpaceSpec("gower"))
    assert g.num["S"][:, 0].tolist() == [SCALED_LIMIT, -SCALED_LIMIT, 0.0]
    e = encode(d, f, SpaceSpec("euclidean"))
    d2 = (e.num["S"] ** 2).sum(axis=1)
    assert np.isfinite(d2).all() and np.isfinite(d2.astype(np.float32)).all()


def test_scaling_is_unchanged_for_ordinary_values() -> None:
    """The overflow-safe path gives exactly (x - min) / range where that does not overflow."""
    rng = np.random.default_rng(3)
    x = rng.normal(scale=1e3, size=200)
    T, S = pd.DataFrame({"x": x[:100]}), pd.DataFrame({"x": x[100:]})
    d = prepare(T, S)
    f = fit(d)
    lo, hi = x[:100].min(), x[:100].max()
    np.testing.assert_array_equal(encode(d, f, SpaceSpec("gower")).num["S"][:, 0], (x[100:] - lo) / (hi - lo))


def test_integer_beyond_the_float_range_is_an_error_naming_the_column() -> None:
    """Found: a Python int of 10**400 in an object column raised a bare OverflowError naming nothing."""
    T = pd.DataFrame({"x": [1.0, 2.0, 3.0]})
    S = pd.DataFrame({"x": [1, 10 ** 400, 2]}, dtype=object)
    with pytest.raises(ValueError, match=r"'x'.*too large.*synthetic.*row 1"):
        prepare(T, S)


def test_complex_numbers_are_an_error_not_silently_truncated() -> None:
    """Found: a complex column lost its imaginary part silently (numpy's ComplexWarning only)."""
    T = pd.DataFrame({"z": [1.0, 2.0, 3.0]})
    with pytest.raises(ValueError, match=r"'z'.*complex.*synthetic"):
        prepare(T, pd.DataFrame({"z": np.array([1 + 2j, 1, 2])}))
    with pytest.raises(ValueError, match=r"'z'.*not a real number.*synthetic.*row 0"):
        prepare(T, pd.DataFrame({"z": [1 + 2j, 1, 2]}, dtype=object))
    with pytest.raises(ValueError, match=r"'z'.*complex.*real"):
        prepare(pd.DataFrame({"z": np.array([1 + 2j, 1, 2])}), T.rename(columns={"x": "z"}))


def test_infinity_in_a_numeric_column_names_column_set_and_row() -> None:
    T = _T()
    S = T.assign(age=[1.0, 2.0, np.inf, -np.inf])
    with pytest.raises(ValueError, match=r"'age'.*infinite.*synthetic.*row 2 .*and 1 other"):
        prepare(T, S)
    T2 = T.assign(age=[1.0, -np.inf, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"'age'.*infinite.*real.*row 1") as info:
        prepare(T2, S.assign(age=1.0))
    assert "inf" not in str(info.value).split("row 1")[1].split(";")[0]  # the real value is withheld


def test_text_nan_and_empty_text_in_a_numeric_synthetic_column_are_missing() -> None:
    S = pd.DataFrame({"age": ["31", "nan", "", "NaN"], "sex": ["F", "M", "F", "M"]})
    v = prepare(_T(), S).column_values("S", "age")
    assert v[0] == 31.0 and np.isnan(v[1:]).all()


# ----------------------------------------------------------------------------------------------------------------
# 2. high-cardinality categories


def test_identifier_like_column_of_50000_values_prepares_and_encodes_in_linear_time() -> None:
    """Found: a 50,000-value identifier column took 190 s end to end. The data layer (prepare, fit, encode) is
    hash-based: a second or two at 50,000 + 50,000 + 25,000 records; the column is noted as identifier-like."""
    n = 50_000
    T = pd.DataFrame({"id": [f"id{i}" for i in range(n)], "x": np.arange(n, dtype=float)})
    S = pd.DataFrame({"id": [f"id{i + n // 2}" for i in range(n)], "x": np.arange(n, dtype=float)})
    H = pd.DataFrame({"id": [f"h{i}" for i in range(n // 2)], "x": np.arange(n // 2, dtype=float)})
    t0 = time.perf_counter()
    d = prepare(T, S, H)
    f = fit(d)
    enc = encode(d, f, SpaceSpec("gower"))
    took = time.perf_counter() - t0
    assert took < 15, took
    assert len(f.levels[0]) == n + n // 2 + n // 2
    assert enc.n_codes.tolist() == [len(f.levels[0])]
    assert any("'id'" in note and "identifier" in note for note in d.notes)


def test_one_very_long_category_value_does_not_widen_every_level() -> None:
    """Found: levels were found with np.unique(values.astype(str)), a fixed-width array as wide as the longest
    value for every value: one 200,000-character value among 2,000 rows needed 1.6 GB."""
    T = pd.DataFrame({"c": ["x" * 200_000] + [f"v{i}" for i in range(1999)]})
    d = prepare(T, T.copy())
    t0 = time.perf_counter()
    f = fit(d)
    assert time.perf_counter() - t0 < 5
    assert len(f.levels[0]) == 2000 and f.levels[0][-1] == "x" * 200_000


def test_categories_differing_by_a_trailing_nul_stay_distinct() -> None:
    """Found: numpy's fixed-width strings drop trailing NUL characters, so 'a' and 'a\\x00' became one level."""
    T = pd.DataFrame({"c": ["a", "a\x00", "b"]})
    S = pd.DataFrame({"c": ["a\x00", "a\x00", "a"]})
    d = prepare(T, S)
    f = fit(d)
    assert len(f.levels[0]) == 3
    assert f.codes["S"][:, 0].tolist() == [f.codes["T"][1, 0], f.codes["T"][1, 0], f.codes["T"][0, 0]]


def test_levels_are_sorted_by_code_point_as_before() -> None:
    T = pd.DataFrame({"c": ["b", "B", "é", "a", "Z", "\x01"]})
    f = fit(prepare(T, T.copy()))
    assert f.levels[0].tolist() == sorted(T["c"].tolist())


def test_one_hot_embedding_too_large_is_a_clear_error_naming_the_column(monkeypatch) -> None:
    """The dense embedding of an identifier column (rows x categories) would not fit in memory: a clear error
    naming the column, not a MemoryError or the machine swapping."""
    T = pd.DataFrame({"user id": [f"u{i}" for i in range(50)], "x": np.arange(50.0)})
    d = prepare(T, T.copy())
    enc = encode(d, fit(d), SpaceSpec("euclidean"))
    monkeypatch.setattr(sp, "MAX_EMBEDDING_VALUES", 1000)
    with pytest.raises(ValueError, match=r"'user id'.*50 categories.*exclude"):
        embed(enc, "T")


# ----------------------------------------------------------------------------------------------------------------
# 3. errors name the column and the row, not the real value


def test_holdout_conversion_error_names_row_and_withholds_the_value() -> None:
    """Found: converting a column quoted the offending real value, which ends up in logs."""
    H = pd.DataFrame({"age": ["30", "Jane Doe, 12 Main St"], "sex": ["F", "M"]})
    with pytest.raises(ValueError) as info:
        prepare(_T(), _T(), H)
    msg = str(info.value)
    assert "'age'" in msg and "holdout" in msg and "row 1" in msg and "reveal_real_values=True" in msg
    assert "Jane" not in msg
    with pytest.raises(ValueError, match="Jane Doe"):
        prepare(_T(), _T(), H, reveal_real_values=True)


def test_real_conversion_error_withholds_the_value() -> None:
    T = _T().assign(age=["30", "40", "secret-7", "50"])
    with pytest.raises(ValueError) as info:
        prepare(T, _T(), numeric=["age"])
    assert "'age'" in str(info.value) and "real" in str(info.value) and "row 2" in str(info.value)
    assert "secret" not in str(info.value)


def test_real_datetime_parse_error_withholds_the_value() -> None:
    T = pd.DataFrame({"d": pd.to_datetime(["2020-01-01", "2020-01-02"]), "x": [1, 2]})
    H = pd.DataFrame({"d": ["2020-01-01", "born in Paris"], "x": [1, 2]})
    with pytest.raises(ValueError) as info:
        prepare(T, T.copy(), H)
    msg = str(info.value)
    assert "'d'" in msg and "holdout" in msg and "row 1" in msg and "Paris" not in msg


def test_synthetic_value_is_quoted_but_cut_short() -> None:
    S = pd.DataFrame({"age": ["30", "y" * 500, "1", "2"], "sex": ["F", "M", "F", "M"]})
    with pytest.raises(ValueError) as info:
        prepare(_T(), S)
    msg = str(info.value)
    assert "'age'" in msg and "synthetic" in msg and "row 1" in msg and "yyyy" in msg and "y" * 100 not in msg


def test_error_position_is_the_row_position_not_the_index_label() -> None:
    S = pd.DataFrame({"age": ["1", "2", "x", "3"], "sex": list("FMFM")}, index=["alice", "bob", "carol", "dave"])
    with pytest.raises(ValueError) as info:
        prepare(_T(), S)
    assert "row 2" in str(info.value) and "carol" not in str(info.value)


# ----------------------------------------------------------------------------------------------------------------
# 4. boolean spellings


def test_real_true_false_against_synthetic_yes_no_is_one_boolean() -> None:
    """Found: real True/False against synthetic yes/no made the categories disjoint, so every synthetic record
    differed from every real one and exact copies went unseen."""
    T = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "ok": [True, False, True, False]})
    S = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "ok": ["yes", "no", "YES", "No"]})
    d = prepare(T, S)
    assert d.column_values("S", "ok").tolist() == ["True", "False", "True", "False"]
    assert d.column_values("T", "ok").tolist() == ["True", "False", "True", "False"]
    assert any("'ok'" in n and "true/false" in n for n in d.notes)
    ev = Evaluation(T, S, progress=False, random_state=0, calibrate=False)
    assert ev.results(metrics=["exact_copies"])["exact_copies"].value == 1.0


@pytest.mark.parametrize("real, syn", [
    (["1", "0", "1"], ["y", "n", "y"]),
    (["t", "f", "t"], ["True", "False", "True"]),
    ([1, 0, 1], ["true", "false", "false"]),
    (["Yes", "No", None], ["yes", None, "no"]),
])
def test_boolean_spellings_that_differ_between_sets_are_unified(real, syn) -> None:
    T = pd.DataFrame({"b": real})
    d = prepare(T, pd.DataFrame({"b": syn}), categorical=["b"])
    allowed = {"True", "False", MISSING}
    assert set(d.column_values("T", "b").tolist()) <= allowed
    assert set(d.column_values("S", "b").tolist()) <= allowed


def test_boolean_column_with_one_spelling_per_value_is_left_as_it_is() -> None:
    T = pd.DataFrame({"b": ["yes", "no", "yes"]})
    d = prepare(T, pd.DataFrame({"b": ["no", "no", "yes"]}))
    assert d.column_values("S", "b").tolist() == ["no", "no", "yes"] and not d.notes


def test_column_with_a_non_boolean_value_is_not_read_as_boolean() -> None:
    T = pd.DataFrame({"b": ["yes", "no", "maybe"]})
    d = prepare(T, pd.DataFrame({"b": ["True", "no", "maybe"]}))
    assert d.column_values("S", "b").tolist() == ["True", "no", "maybe"]


# ----------------------------------------------------------------------------------------------------------------
# 5. each class of bad input


def test_mismatched_columns_name_the_column_and_suggest_a_near_miss() -> None:
    S = _T().rename(columns={"age": "Age "})
    with pytest.raises(ValueError, match=r"'age'.*missing from the synthetic.*did you mean 'Age '"):
        prepare(_T(), S)
    with pytest.raises(ValueError, match=r"'extra'.*holdout.*not in the real"):
        prepare(_T(), _T(), _T().assign(extra=1))


@pytest.mark.parametrize("which", ["real", "synthetic", "holdout"])
def test_empty_frames_are_an_error_naming_the_set(which) -> None:
    frames = {"real": _T(), "synthetic": _T(), "holdout": _T()}
    frames[which] = frames[which].iloc[:0]
    with pytest.raises(ValueError, match=f"{which}.*empty"):
        prepare(frames["real"], frames["synthetic"], frames["holdout"])
    frames[which] = pd.DataFrame(index=range(3))
    with pytest.raises(ValueError, match=f"{which}.*no columns"):
        prepare(frames["real"], frames["synthetic"], frames["holdout"])


def test_all_missing_columns_are_an_error_in_real_data_and_a_note_in_synthetic() -> None:
    T = _T().assign(gone=np.nan)
    with pytest.raises(ValueError, match=r"'gone'.*entirely missing.*exclude"):
        prepare(T, T.copy())
    S = _T().assign(age=np.nan, sex=None)
    d = prepare(_T(), S)
    assert np.isnan(d.column_values("S", "age")).all()
    assert (d.column_values("S", "sex") == MISSING).all()
    assert any("'age'" in n and "entirely missing in the synthetic" in n for n in d.notes)
    _assert_finite_encodings(d)


def test_constant_columns_are_noted_and_encode_finitely() -> None:
    T = pd.DataFrame({"k": [7.0] * 4, "c": ["z"] * 4})
    S = pd.DataFrame({"k": [7.0, 8.0, 1e300, np.nan], "c": ["z", "y", "z", None]})
    d = prepare(T, S)
    assert sum("constant" in n for n in d.notes) == 2
    _assert_finite_encodings(d)


def test_unseen_categories_are_their_own_level() -> None:
    S = _T().assign(sex=["F", "X", "?", None])
    d = prepare(_T(), S)
    f = fit(d)
    assert set(f.levels[0].tolist()) == {"F", "M", "X", "?", MISSING}


def test_mixed_types_in_an_object_column_are_categorical_text() -> None:
    T = pd.DataFrame({"m": [1, "1", 1.0, None, True, b"x"]}, dtype=object)
    d = prepare(T, T.copy())
    assert d.kinds["m"] == "categorical"
    assert d.column_values("T", "m").tolist() == ["1", "1", "1", MISSING, "True", "b'x'"]
    with pytest.raises(ValueError, match=r"'age'.*numeric in the real data.*synthetic"):
        prepare(_T(), _T().assign(age=[1, "two", 3, 4]))


def test_missing_marker_text_in_the_data_is_an_error() -> None:
    """A value equal to the internal missing marker would silently become a missing value."""
    S = _T().assign(sex=["F", MISSING, "M", "F"])
    with pytest.raises(ValueError, match=r"'sex'.*reserved.*synthetic.*row 1"):
        prepare(_T(), S)


@pytest.mark.parametrize("which", ["real", "synthetic", "holdout"])
def test_duplicate_column_names_are_an_error_naming_set_and_column(which) -> None:
    frames = {"real": _T(), "synthetic": _T(), "holdout": _T()}
    frames[which] = pd.concat([frames[which], frames[which][["age"]]], axis=1)
    with pytest.raises(ValueError, match=f"{which}.*duplicate.*'age'"):
        prepare(frames["real"], frames["synthetic"], frames["holdout"])


@pytest.mark.parametrize("columns", [[0, 1], ["a", 2], [("a", "x"), ("a", "y")], [None, "b"]])
def test_non_string_column_names_are_a_type_error(columns) -> None:
    T = pd.DataFrame([[1, 2], [3, 4]], columns=pd.MultiIndex.from_tuples(columns)
                     if isinstance(columns[0], tuple) else columns)
    with pytest.raises(TypeError, match="real.*non-string column names"):
        prepare(T, T.copy())


def test_unicode_and_control_characters_in_names_and_values_are_kept() -> None:
    names = ["naïve", "a\nb", "\x1b[31mred", "", " ", "\u202eevil", "日本"]
    vals = ["\x00a", "zero\u200bwidth", "\ud83d\ude00"[:0] + "😀", "\t", "\u202e", "<b>", "a\x1fb"]
    T = pd.DataFrame({n: [v, vals[(i + 1) % len(vals)], v] for i, (n, v) in enumerate(zip(names, vals))})
    d = prepare(T, T.copy())
    assert d.columns == tuple(names)
    for n in names:
        assert d.column_values("T", n).tolist() == T[n].tolist()
    _assert_finite_encodings(d)
    with pytest.raises(ValueError) as info:
        prepare(T, T.drop(columns=["a\nb"]))
    assert "'a\\nb'" in str(info.value) and "\n" not in str(info.value)  # quoted with repr: no raw newline


def test_lone_surrogates_in_values_do_not_break_fingerprints() -> None:
    T = pd.DataFrame({"c": ["\ud800", "a", "\udfff"]}, dtype=object)
    d = prepare(T, T.copy())
    assert d.fingerprints["T"] == d.fingerprints["S"] and len(fit(d).levels[0]) == 3


def test_single_rows_are_accepted_for_synthetic_and_holdout_and_refused_for_real() -> None:
    one = _T().iloc[:1]
    d = prepare(_T(), one, one)
    assert d.sizes == {"T": 4, "H": 1, "S": 1}
    _assert_finite_encodings(d)
    with pytest.raises(ValueError, match="at least 2"):
        prepare(one, _T())


def test_a_string_given_for_a_column_list_is_a_type_error() -> None:
    """exclude="age" used to be read as the columns 'a', 'g', 'e'."""
    with pytest.raises(TypeError, match=r"exclude=.*'age'"):
        prepare(_T(), _T(), exclude="age")


def test_no_row_is_dropped_and_duplicate_index_labels_are_fine() -> None:
    T = pd.DataFrame({"x": [1.0, np.nan, 1.0, 2.0], "c": [None, None, "a", "a"]}, index=[0, 0, 0, 0])
    S = T.iloc[[0, 0, 1, 1, 2]]
    d = prepare(T, S, T)
    assert d.sizes == {"T": 4, "H": 4, "S": 5}
    assert d.numeric["S"].shape == (5, 1) and d.categorical["S"].shape == (5, 1)


def test_hostile_inputs_never_modify_the_callers_frames() -> None:
    T = pd.DataFrame({"b": [True, False, True], "n": ["1", "2", "3"], "x": [1e300, -1e300, 0.0],
                      "d": pd.to_datetime(["2020-01-01", None, "2021-01-01"])})
    S = pd.DataFrame({"b": ["yes", "no", None], "n": ["1", "nan", ""], "x": [np.nan, 1.0, 2.0],
                      "d": ["2020-01-01", "2020-01-02", None]})
    bad = S.assign(n=["1", "x", "2"])
    before = [copy.deepcopy(f) for f in (T, S, bad)]
    prepare(T, S, T, numeric=["n"])
    with pytest.raises(ValueError):
        prepare(T, bad, numeric=["n"])
    for a, b in zip((T, S, bad), before):
        pd.testing.assert_frame_equal(a, b)
