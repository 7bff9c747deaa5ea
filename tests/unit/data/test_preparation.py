"""Tests of synthpriv_report.data.preparation.prepare (docs/metrics.md, "Sets and columns")."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest

from synthpriv_report import Evaluation
from synthpriv_report.data.containers import MISSING
from synthpriv_report.data.preparation import prepare


def _every_kind():
    T = pd.DataFrame({
        "i": [1, 2, 3, 4],
        "f": [0.5, 1.5, np.nan, 2.5],
        "d": pd.to_datetime(["2020-01-01", "2020-01-02", "2020-01-03", None]),
        "o": ["a", "b", None, "a"],
        "s": pd.array(["x", "y", "x", None], dtype="string"),
        "c": pd.Categorical(["u", "v", "u", "v"]),
        "b": [True, False, True, False],
    })
    return T, T.copy(deep=True), T.copy(deep=True)


# ----------------------------------------------------------------------------------------------------------------
# kinds and conversion


def test_kinds_inferred_from_dtype() -> None:
    T, S, H = _every_kind()
    d = prepare(T, S, H)
    assert d.kinds == {"i": "numeric", "f": "numeric", "d": "numeric", "o": "categorical", "s": "categorical",
                       "c": "categorical", "b": "categorical"}
    assert d.columns == tuple(T.columns)
    assert d.numeric_columns == ("i", "f", "d")
    assert d.categorical_columns == ("o", "s", "c", "b")
    assert d.sizes == {"T": 4, "H": 4, "S": 4}


def test_datetime_becomes_seconds_and_nat_missing() -> None:
    T, S, _ = _every_kind()
    d = prepare(T, S)
    v = d.column_values("T", "d")
    # 2020-01-01 00:00 UTC = 1577836800 s since the epoch; +1 day = +86400 s
    assert v[:3].tolist() == [1577836800.0, 1577836800.0 + 86400, 1577836800.0 + 2 * 86400]
    assert np.isnan(v[3])


def test_missing_categorical_is_its_own_category_and_numeric_missing_is_nan() -> None:
    T, S, _ = _every_kind()
    d = prepare(T, S)
    assert d.column_values("T", "o").tolist() == ["a", "b", MISSING, "a"]
    assert d.column_values("T", "s").tolist() == ["x", "y", "x", MISSING]
    assert d.column_values("T", "b").tolist() == ["True", "False", "True", "False"]
    f = d.column_values("T", "f")
    assert f[[0, 1, 3]].tolist() == [0.5, 1.5, 2.5] and np.isnan(f[2])


def test_overrides_numeric_categorical_exclude() -> None:
    T = pd.DataFrame({"id": [10, 11, 12], "code": [1, 2, 3], "txt": ["1", "2", "3"], "x": [0.0, 1.0, 2.0]})
    d = prepare(T, T.copy(), numeric=["txt"], categorical=["code"], exclude=["id"])
    assert d.columns == ("code", "txt", "x")
    assert d.kinds == {"code": "categorical", "txt": "numeric", "x": "numeric"}
    assert d.excluded == ("id",)
    assert d.column_values("T", "txt").tolist() == [1.0, 2.0, 3.0]
    assert d.column_values("T", "code").tolist() == ["1", "2", "3"]


def test_unseen_categories_in_synthetic_are_fine() -> None:
    T = pd.DataFrame({"c": ["a", "b", "a"], "x": [1, 2, 3]})
    S = pd.DataFrame({"c": ["zzz", "b", None], "x": [1, 2, 3]})
    d = prepare(T, S)
    assert d.column_values("S", "c").tolist() == ["zzz", "b", MISSING]


def test_synthetic_numeric_strings_are_converted() -> None:
    T = pd.DataFrame({"x": [1.0, 2.0, 3.0]})
    S = pd.DataFrame({"x": ["1", "2.5", None]})
    v = prepare(T, S).column_values("S", "x")
    assert v[:2].tolist() == [1.0, 2.5] and np.isnan(v[2])


def test_categorical_override_int_column_matches_float_with_nan_in_synthetic() -> None:
    """Regression: T's int column declared categorical, S's copy of it became float because of one missing
    value (what read_csv does). 1 and 1.0 are the same category; as strings '1' != '1.0', which made every
    record of S differ from T (exact copies missed)."""
    T = pd.DataFrame({"zip": [1, 2, 3, 4], "x": [1.0, 2.0, 3.0, 4.0]})
    S = pd.DataFrame({"zip": [1.0, 2.0, np.nan, 4.0], "x": [1.0, 2.0, 3.0, 4.0]})
    d = prepare(T, S, categorical=["zip"])
    t = d.column_values("T", "zip").tolist()
    s = d.column_values("S", "zip").tolist()
    assert s[0] == t[0] and s[1] == t[1] and s[3] == t[3]
    assert s[2] == MISSING


def test_datetime_column_given_as_strings_in_synthetic_is_converted() -> None:
    """Regression: H and S values are converted to the column's kind. A datetime column of T
    arrives as ISO strings in a synthetic CSV; the strings are valid dates and must convert, not raise."""
    T = pd.DataFrame({"d": pd.to_datetime(["2020-01-01", "2020-01-02", "2020-01-03"]), "x": [1, 2, 3]})
    S = pd.DataFrame({"d": ["2020-01-01", "2020-01-02", "2020-01-03"], "x": [1, 2, 3]})
    d = prepare(T, S)
    assert d.column_values("S", "d").tolist() == d.column_values("T", "d").tolist()


# ----------------------------------------------------------------------------------------------------------------
# fingerprints


def test_fingerprints_stable_and_sensitive() -> None:
    T = pd.DataFrame({"x": [1.0, 2.0, np.nan], "c": ["a", "b", None]})
    S = pd.DataFrame({"x": [1.0, 5.0, 3.0], "c": ["a", "a", "b"]})
    f1 = prepare(T, S).fingerprints
    f2 = prepare(T.copy(), S.copy()).fingerprints
    assert f1 == f2
    assert len(f1["T"]) == 64 and set(f1) == {"T", "S"}
    # a changed value in S changes S's fingerprint and nothing else
    S2 = S.copy()
    S2.loc[1, "x"] = 5.000001
    f3 = prepare(T, S2).fingerprints
    assert f3["S"] != f1["S"] and f3["T"] == f1["T"]
    # a changed category in T changes T's only
    T2 = T.copy()
    T2.loc[0, "c"] = "z"
    f4 = prepare(T2, S).fingerprints
    assert f4["T"] != f1["T"] and f4["S"] == f1["S"]
    # adding a holdout does not change T's or S's fingerprint
    f5 = prepare(T, S, T.copy()).fingerprints
    assert f5["T"] == f1["T"] and f5["S"] == f1["S"] and f5["H"] == f1["T"]
    # the DataFrame index is not part of the data
    f6 = prepare(T.set_axis([7, 8, 9]), S).fingerprints
    assert f6["T"] == f1["T"]


def test_fingerprint_equals_the_documented_canonical_form() -> None:
    """SHA-256 written out by hand from the docstring's canonical form: "name:kind" joined by 0x1f, numeric values
    as little-endian float64 row by row, each category as an 8-byte little-endian length plus its UTF-8 bytes,
    row by row, then the row count."""
    import hashlib

    T = pd.DataFrame({"x": [1.5, -2.0, 7.0], "c": ["a", "bé", "a"], "d": ["u", "v", "w"]})
    rows = [(1.5, "a", "u"), (-2.0, "bé", "v"), (7.0, "a", "w")]

    def by_hand(order) -> str:
        h = hashlib.sha256()
        h.update(b"x:numeric\x1fc:categorical\x1fd:categorical")
        h.update(np.array([[rows[i][0]] for i in order], dtype="<f8").tobytes())
        for i in order:
            for v in rows[i][1:]:
                b = v.encode("utf-8")
                h.update(len(b).to_bytes(8, "little") + b)
        h.update(b"3")
        return h.hexdigest()

    # rows kept as given: the digest of the rows in the given order
    assert prepare(T, T.copy(), row_order="as_given").fingerprints["T"] == by_hand([0, 1, 2])
    # in the canonical order (an evaluation's default), whatever order the rows came in
    d = prepare(T, T.copy(), row_order="canonical")
    assert d.fingerprints["T"] == by_hand(list(d.order["T"]))
    assert list(d.order["T"]) != [0, 1, 2]  # else this would not tell the two orders apart
    for perm in ([2, 0, 1], [1, 2, 0], [2, 1, 0]):
        assert prepare(T.iloc[perm], T.copy(), row_order="canonical").fingerprints["T"] == d.fingerprints["T"]


def test_an_evaluations_fingerprints_do_not_depend_on_the_order_of_the_rows() -> None:
    from synthpriv_report import Evaluation

    rng = np.random.default_rng(4)
    T = pd.DataFrame({"x": rng.normal(size=30), "c": rng.choice(list("abc"), size=30)})
    S = pd.DataFrame({"x": rng.normal(size=30), "c": rng.choice(list("abc"), size=30)})
    first = Evaluation(T, S, random_state=0).fingerprints
    again = Evaluation(T.sample(frac=1.0, random_state=1), S.iloc[::-1], random_state=0).fingerprints
    assert first == again
    kept = Evaluation(T.sample(frac=1.0, random_state=1), S, random_state=0, row_order="as_given").fingerprints
    as_given = Evaluation(T, S, random_state=0, row_order="as_given").fingerprints
    assert kept["T"] != first["T"] and kept["S"] == as_given["S"]


def test_fingerprint_of_numbers_read_in_blocks_is_that_of_the_whole_array() -> None:
    """More numbers than one block (a million values): hashed a block of rows at a time, the digest is that of
    the whole array's bytes (NaN payloads made one), written out here independently."""
    import hashlib

    from synthpriv_report.data.fingerprints import fingerprint

    rng = np.random.default_rng(3)
    num = rng.normal(size=(700_001, 3))
    num[rng.random(num.shape) < 0.01] = np.nan
    num[5, 1] = np.frombuffer(np.uint64(0x7FF8000000000123).tobytes(), dtype=np.float64)[0]  # another NaN payload
    h = hashlib.sha256(b"a:numeric\x1fb:numeric\x1fc:numeric")
    canon = num.copy()
    canon[np.isnan(canon)] = np.nan
    h.update(canon.astype("<f8").tobytes())
    h.update(str(num.shape[0]).encode())
    kinds = {c: "numeric" for c in "abc"}
    assert fingerprint(num, np.empty((num.shape[0], 0), dtype=object), list("abc"), kinds) == h.hexdigest()


def test_fingerprint_missing_differs_from_value() -> None:
    T = pd.DataFrame({"x": [1.0, 2.0], "c": ["a", "b"]})
    a = prepare(T, pd.DataFrame({"x": [1.0, 2.0], "c": ["a", None]})).fingerprints["S"]
    b = prepare(T, pd.DataFrame({"x": [1.0, 2.0], "c": ["a", "None"]})).fingerprints["S"]
    c = prepare(T, pd.DataFrame({"x": [1.0, np.nan], "c": ["a", "b"]})).fingerprints["S"]
    assert len({a, b, c}) == 3


# ----------------------------------------------------------------------------------------------------------------
# validation: every bad input is a clear error naming the column and the set


def _T():
    return pd.DataFrame({"age": [30, 40, 50], "sex": ["F", "M", "F"]})


@pytest.mark.parametrize(
    "kwargs, exc, words",
    [
        ({"synthetic": pd.DataFrame({"age": [1, 2]})}, ValueError, ["'sex'", "synthetic"]),
        ({"holdout": pd.DataFrame({"age": [1, 2]})}, ValueError, ["'sex'", "holdout"]),
        ({"synthetic": pd.DataFrame({"age": [1], "sex": ["F"], "extra": [0]})}, ValueError, ["'extra'", "synthetic"]),
        ({"synthetic": pd.DataFrame({"age": [], "sex": []})}, ValueError, ["synthetic", "empty"]),
        ({"holdout": pd.DataFrame({"age": [], "sex": []})}, ValueError, ["holdout", "empty"]),
        ({"synthetic": [[1, "F"]]}, TypeError, ["synthetic", "DataFrame"]),
        ({"holdout": np.zeros((2, 2))}, TypeError, ["holdout", "DataFrame"]),
        ({"synthetic": pd.DataFrame({"age": ["30", "forty"], "sex": ["F", "M"]})}, ValueError,
         ["'age'", "synthetic", "'forty'"]),
        # a holdout value is real: the message names the row, not the value (reveal_real_values=True quotes it)
        ({"holdout": pd.DataFrame({"age": ["30", "forty"], "sex": ["F", "M"]})}, ValueError,
         ["'age'", "holdout", "row 1", "withheld"]),
        ({"synthetic": pd.DataFrame({"age": [30.0, np.inf], "sex": ["F", "M"]})}, ValueError,
         ["'age'", "synthetic", "infinite"]),
        ({"holdout": pd.DataFrame({"age": [-np.inf, 1.0], "sex": ["F", "M"]})}, ValueError,
         ["'age'", "holdout", "infinite"]),
        ({"exclude": ["nope"]}, ValueError, ["exclude", "'nope'"]),
        ({"numeric": ["nope"]}, ValueError, ["numeric", "'nope'"]),
        ({"categorical": ["nope"]}, ValueError, ["categorical", "'nope'"]),
        ({"numeric": ["age"], "categorical": ["age"]}, ValueError, ["age", "both"]),
        ({"exclude": ["age", "sex"]}, ValueError, ["excluded"]),
    ],
)
def test_bad_inputs_raise_clear_errors(kwargs, exc, words) -> None:
    args = {"real": _T(), "synthetic": _T()}
    args.update(kwargs)
    with pytest.raises(exc) as info:
        prepare(args.pop("real"), args.pop("synthetic"), args.pop("holdout", None), **args)
    msg = str(info.value)
    for w in words:
        assert w in msg, (w, msg)


def test_real_data_errors() -> None:
    with pytest.raises(TypeError, match="real"):
        prepare({"age": [1, 2]}, _T())
    with pytest.raises(ValueError, match="real.*empty"):
        prepare(_T().iloc[:0], _T())
    with pytest.raises(ValueError, match="at least 2"):
        prepare(_T().iloc[:1], _T())
    T = _T().astype({"age": float})
    T.loc[1, "age"] = np.inf
    with pytest.raises(ValueError, match=r"'age'.*infinite.*real"):
        prepare(T, _T())
    with pytest.raises(ValueError, match=r"'age'.*real"):
        prepare(_T().assign(age=["1", "x", "2"]), _T(), numeric=["age"])


def test_entirely_missing_column_is_an_error_naming_it() -> None:
    T = _T().assign(empty=[np.nan] * 3)
    with pytest.raises(ValueError, match=r"'empty'.*entirely missing.*exclude"):
        prepare(T, T.copy())
    # a column missing in T but present in H is not entirely missing in the real data
    H = T.copy()
    H.loc[0, "empty"] = 1.0
    assert prepare(T, T.copy(), H).kinds["empty"] == "numeric"
    # excluded, it is fine
    assert prepare(T, T.copy(), exclude=["empty"]).columns == ("age", "sex")


def test_duplicate_column_names_are_an_error() -> None:
    T = pd.DataFrame([[1, 2], [3, 4]], columns=["a", "a"])
    with pytest.raises(ValueError, match=r"duplicate.*'a'"):
        prepare(T, T.copy())
    good = pd.DataFrame({"a": [1, 3]})
    with pytest.raises(ValueError, match=r"synthetic.*duplicate"):
        prepare(good, T)


def test_non_string_column_names_are_an_error() -> None:
    T = pd.DataFrame({0: [1, 2], 1: [3, 4]})
    with pytest.raises(TypeError, match="column names"):
        prepare(T, T.copy())


def test_column_order_of_other_sets_does_not_matter() -> None:
    T = _T()
    S = T[["sex", "age"]].copy()
    d = prepare(T, S)
    assert d.column_values("S", "age").tolist() == [30.0, 40.0, 50.0]
    assert d.fingerprints["S"] == d.fingerprints["T"]


# ----------------------------------------------------------------------------------------------------------------
# the caller's DataFrames are never modified


@pytest.mark.slow  # every metric on every input kind: about 20 s
def test_caller_frames_not_modified(tiny_mixed) -> None:
    T, S, H = tiny_mixed
    T = T.assign(when=pd.to_datetime(["2020-01-01", None, "2021-05-05", "2019-02-02", "2018-01-01"]),
                 cat=pd.Categorical(list("abcab")))
    H = H.assign(when=pd.to_datetime(["2020-01-01", "2020-01-02", None, "2019-02-02"]),
                 cat=pd.Categorical(list("abca")))
    S = S.assign(when=pd.to_datetime(["2020-01-01", "2020-01-02", "2020-01-03", None]),
                 cat=pd.Categorical(list("zbca")))
    before = [copy.deepcopy(x) for x in (T, H, S)]
    prepare(T, S, H, categorical=["n"])
    for a, b in zip((T, H, S), before):
        pd.testing.assert_frame_equal(a, b)
    ev = Evaluation(T, S, H, progress=False, n_bootstrap=50, sensitive_fields=["sex"])
    ev.results()
    for a, b in zip((T, H, S), before):
        pd.testing.assert_frame_equal(a, b)
        assert list(a.columns) == list(b.columns) and a.index.equals(b.index)


def test_fingerprint_distinguishes_values_containing_the_separator() -> None:
    """Regression: categorical values were joined with '\\x1f' without escaping or length prefixes, so the rows
    ('a\\x1fb', 'c') and ('a', 'b\\x1fc') hashed to the same bytes: two different data sets, one fingerprint."""
    t1 = pd.DataFrame({"u": ["a\x1fb", "z"], "v": ["c", "z"]})
    t2 = pd.DataFrame({"u": ["a", "z"], "v": ["b\x1fc", "z"]})
    assert prepare(t1, t1.copy()).fingerprints["T"] != prepare(t2, t2.copy()).fingerprints["T"]


def test_category_text_conversion_is_per_value_for_every_column_type() -> None:
    """The one-conversion-per-distinct-value path gives what converting every value does, missing values and
    integral floats included; an object column mixing True and 1 keeps them apart."""
    from synthpriv_report.data.containers import MISSING
    from synthpriv_report.data.convert import _as_text, _to_strings

    cases = [
        pd.Series([1.0, 2.5, np.nan, 13.0, 1.0]),
        pd.Series([True, False, True]),
        pd.Series(["a", None, "b", "a"]),
        pd.Series(["a", 1, 1.0, True, None, 2.5]),
        pd.Series(pd.Categorical(["x", "y", None, "x"])),
        pd.Series(["a", "b", pd.NA], dtype="string"),
        pd.Series(pd.array([1, None, 3], dtype="Int64")),
        pd.Series([], dtype=float),
    ]
    for series in cases:
        expected = [MISSING if pd.isna(v) else _as_text(v) for v in series.to_numpy(dtype=object)]
        assert _to_strings(series).tolist() == expected, series.tolist()
    assert _to_strings(pd.Series([True, 1, "1"], dtype=object)).tolist() == ["True", "1", "1"]
    assert _to_strings(pd.Series([13.0, 2.5, np.nan])).tolist() == ["13", "2.5", MISSING]


def test_reveal_real_values_quotes_a_real_value_in_errors() -> None:
    """Errors name the column, the set and the row; a real (or holdout) value is quoted only when revealed."""
    T = _T().assign(age=["30", "x-secret", "50"])
    with pytest.raises(ValueError) as info:
        prepare(T, _T(), numeric=["age"])
    assert "row 1" in str(info.value) and "secret" not in str(info.value)
    with pytest.raises(ValueError, match="x-secret"):
        prepare(T, _T(), numeric=["age"], reveal_real_values=True)


def test_boolean_spellings_are_unified_across_sets() -> None:
    T = pd.DataFrame({"b": [True, False, True]})
    d = prepare(T, pd.DataFrame({"b": ["yes", "no", None]}))
    assert d.column_values("S", "b").tolist() == ["True", "False", MISSING]
    assert any("'b'" in n for n in d.notes)


# ----------------------------------------------------------------------------------------------------------------
# identifier-like columns (left out by Evaluation by default; the rule is data.identifier_reason)


def _people(n: int) -> pd.DataFrame:
    """n records with an age and a sex that repeat (never identifier-like) and a float measurement."""
    rng = np.random.default_rng(0)
    return pd.DataFrame({"age": rng.integers(20, 60, n), "sex": rng.choice(["F", "M"], n),
                         "weight": np.round(rng.normal(70, 10, n), 1)})


@pytest.mark.parametrize("values, name, expected", [
    (list(range(1, 101)), "n", "running count"),                        # 1..100, a record count
    (list(range(5000, 5100))[::-1], "rank", "running count"),           # dense, in any order
    ([3 * i * i + 7 for i in range(100)], "seq", "in order down the file"),  # sparse but increasing
    ([(i * 7919) % 100_003 * 11 for i in range(100)], "patient_id", "name that reads like an identifier"),
    ([(i * 7919) % 100_003 * 11 for i in range(100)], "recordNo", "name that reads like an identifier"),
    ([float(i) for i in range(1, 31)] + [np.nan] * 5, "n", "running count"),  # whole numbers as floats with NaN
    ([f"ID-{i:06d}" for i in range(40)], "ref", "code"),
    ([f"{i:08x}-1234-5678-9abc-{i:012x}" for i in range(40)], "u", "code"),  # UUIDs
    ([f"{i:06d}" for i in range(40)], "zip", "code"),                   # digits as text (leading zeros)
])
def test_identifier_like_columns_are_recognised(values: list, name: str, expected: str) -> None:
    from synthpriv_report.data.identifiers import identifier_reason

    reason = identifier_reason(pd.Series(values), name)
    assert reason is not None and expected in reason


@pytest.mark.parametrize("values, name", [
    (list(range(1, 20)), "n"),                                            # 19 values: too few to tell
    (list(range(1, 99)) + [5, 6], "n"),                                   # 100 values, 2 repeats: too many
    ([round(0.37 * i * i, 3) + 0.5 for i in range(100)], "id"),           # fractions: a measurement
    ([(i * 7919) % 100_003 * 11 for i in range(100)], "fnlwgt"),          # sparse, unordered, plain name
    ([f"Person {i}" for i in range(40)], "name"),                         # text with spaces: not code-like
    ([f"{0.5 + i:.2f}" for i in range(40)], "x"),                         # decimals written as text
    ([f"2020-01-{1 + i % 28:02d}T{i % 24:02d}:00" for i in range(40)], "when"),  # dates written as text
    (pd.date_range("2020-01-01", periods=40), "day"),                     # datetimes
    ([True, False] * 20, "flag"),
])
def test_measurements_and_short_columns_are_not_identifiers(values: object, name: str) -> None:
    from synthpriv_report.data.identifiers import identifier_reason

    assert identifier_reason(pd.Series(values), name) is None


def test_one_repeat_in_a_hundred_is_nearly_all_distinct() -> None:
    """The documented rule counted by hand: 100 values with one repeat pass, with two repeats fail."""
    from synthpriv_report.data.identifiers import identifier_reason

    one = list(range(1, 100)) + [5]  # 99 distinct of 100: 1 repeat <= 100 // 100
    assert identifier_reason(pd.Series(one), "record") is not None
    assert identifier_reason(pd.Series(list(range(1, 99)) + [5, 6]), "record") is None


def test_no_column_of_the_real_adult_data_or_the_demo_is_taken_for_an_identifier() -> None:
    """fnlwgt (a sampling weight: whole numbers, 66% distinct in Adult, all distinct in small samples) and the
    other columns are measurements or categories, at every size."""
    from _support.paths import shared_data

    from synthpriv_report.data.identifiers import identifier_columns
    from synthpriv_report.datasets import load_demo

    adult = pd.read_csv(shared_data("adult", "adult_train.csv"))
    demo = load_demo().real
    assert demo["fnlwgt"].iloc[:200].nunique() == 200  # all distinct in a small sample: the trap
    for frame in (adult, demo, demo.iloc[:200], demo.iloc[:50], adult.sample(500, random_state=1)):
        assert identifier_columns(frame, list(frame.columns)) == {}


def test_evaluation_leaves_an_identifier_out_with_a_warning_and_a_note() -> None:
    T, S, H = _people(60), _people(60).iloc[::-1].reset_index(drop=True), _people(40)
    T = T.assign(record=np.arange(1000, 1060))
    S = S.assign(record=np.arange(5000, 5060))
    H = H.assign(record=np.arange(2000, 2040))
    before = T.copy(deep=True)
    with pytest.warns(UserWarning, match=r"'record' looks like an identifier.*include=\['record'\]"):
        ev = Evaluation(T, S, H, progress=False, metrics=["exact_copies"])
    pd.testing.assert_frame_equal(T, before)  # the caller's frame is untouched
    assert "record" not in ev.data.columns and ev.data.excluded == ("record",)
    assert ev.data.sizes == {"T": 60, "H": 40, "S": 60}  # no row dropped
    meta = ev.meta()
    assert meta["excluded_columns"] == ["record"]
    assert meta["excluded"][0].startswith("record: looks like an identifier (")
    assert any("'record' was left out" in n and "identifier" in n for n in meta["data_notes"])
    assert ev.settings_dict()["excluded"] == ["record"]
    # with the identifier left out, S holds the records of T (reversed): every synthetic record is a copy
    assert ev.results()["exact_copies"].value == 1.0


def test_include_keeps_an_identifier_like_column_and_exclude_still_wins_for_others() -> None:
    import warnings

    T = _people(60).assign(record=np.arange(60), code=[f"C{i:04d}" for i in range(60)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing left out: no warning
        ev = Evaluation(T, T.copy(), progress=False, include=["record"], exclude=["code"])
    assert "record" in ev.data.columns and ev.data.excluded == ("code",)
    assert ev.meta()["excluded"] == ["code: left out on request (exclude=)"]
    assert any("'record' looks like an identifier" in n and "kept because include=" in n for n in ev.data.notes)


def test_columns_named_as_key_or_sensitive_fields_are_never_left_out() -> None:
    T = _people(60).assign(record=np.arange(60))
    ev = Evaluation(T, T.copy(), progress=False, key_fields=["record"], sensitive_fields=["sex"])
    assert "record" in ev.data.columns and ev.data.excluded == ()


@pytest.mark.parametrize("kwargs, error, fragment", [
    ({"include": "record"}, TypeError, r"include must be a list of column names, got the string 'record'"),
    ({"include": ["nope"]}, ValueError, "nope"),
    ({"include": ["record"], "exclude": ["record"]}, ValueError, "both exclude= and include="),
])
def test_bad_include_is_refused_naming_it(kwargs: dict, error: type, fragment: str) -> None:
    T = _people(30).assign(record=np.arange(30))
    with pytest.raises(error, match=fragment):
        Evaluation(T, T.copy(), progress=False, **kwargs)


def test_a_frame_of_identifiers_only_is_refused_with_a_hint() -> None:
    T = pd.DataFrame({"id": np.arange(30), "code": [f"X{i}" for i in range(30)]})
    with pytest.raises(ValueError, match="include="):
        Evaluation(T, T.copy(), progress=False)


def test_key_fields_chosen_says_how_in_plain_words() -> None:
    T = _people(30)
    given = Evaluation(T, T.copy(), progress=False, key_fields=["age"], sensitive_fields=["sex"]).meta()
    assert given["key_fields_chosen"] == "given by the user" and given["key_fields"] == ["age"]
    default = Evaluation(T, T.copy(), progress=False, sensitive_fields=["sex"]).meta()
    assert default["key_fields"] == ["age", "weight"]
    assert "every analysed column that is not sensitive" in default["key_fields_chosen"]
    none = Evaluation(T, T.copy(), progress=False).meta()
    assert "did not run" in none["key_fields_chosen"]


# ----------------------------------------------------------------------------------------------------------------
# the phases of prepare(), one by one


def test_phases_compose_to_prepare() -> None:
    """prepare() is its phases in order: the frames checked, columns aligned, kinds, values, boolean spellings,
    fingerprints and notes; each phase's output is what prepare returns."""
    from synthpriv_report.data import preparation as dm

    T, S, H = _every_kind()
    S = S.assign(b=S["b"].map({True: "yes", False: "no"}))
    frames = dm._checked_frames(T, S, H)
    assert list(frames) == ["T", "S", "H"]
    dm._check_same_columns(frames)
    exclude, numeric, categorical = dm._checked_column_lists(list(T.columns), exclude=["s"], numeric=None,
                                                             categorical=["i"])
    assert (exclude, numeric, categorical) == (["s"], [], ["i"])
    columns = [c for c in T.columns if c not in exclude]
    kinds = dm._column_kinds(frames, columns, numeric=numeric, categorical=categorical)
    assert kinds == {"i": "categorical", "f": "numeric", "d": "numeric", "o": "categorical", "c": "categorical",
                     "b": "categorical"}
    num_cols = [c for c in columns if kinds[c] == "numeric"]
    cat_cols = [c for c in columns if kinds[c] == "categorical"]
    num, cat, fac = dm._encode(frames, num_cols, cat_cols, reveal=False)
    assert num["S"].shape == (4, 2) and cat["H"].shape == (4, 4) and cat["T"][2, cat_cols.index("o")] == MISSING
    assert cat["S"][:, cat_cols.index("b")].tolist() == ["yes", "no", "yes", "no"]
    notes = dm._unify_boolean_columns(list(frames), cat_cols, cat, fac)
    assert len(notes) == 1 and "'b'" in notes[0]
    assert cat["S"][:, cat_cols.index("b")].tolist() == ["True", "False", "True", "False"]
    assert fac["S"][cat_cols.index("b")][1].tolist() == ["True", "False"]
    d = prepare(T, S, H, exclude=["s"], categorical=["i"])
    assert d.columns == tuple(columns) and d.kinds == kinds and d.notes[:1] == tuple(notes)
    for s in frames:
        np.testing.assert_array_equal(d.numeric[s], num[s])
        assert d.categorical[s].tolist() == cat[s].tolist()
        assert d.fingerprints[s] == dm.fingerprint(num[s], cat[s], num_cols + cat_cols, kinds, factorized=fac[s])


def test_column_notes_phase_names_constant_identifier_and_missing_columns() -> None:
    from synthpriv_report.data import preparation as dm

    n = 25
    T = pd.DataFrame({"k": [1.0] * n, "id": [f"r{i}" for i in range(n)], "m": ["a", "b"] * 12 + ["a"]})
    S = T.assign(m=[None] * n)
    frames = dm._checked_frames(T, S, None)
    num, cat, fac = dm._encode(frames, ["k"], ["id", "m"], reveal=False)
    sizes = {s: len(df) for s, df in frames.items()}
    notes = dm._column_notes(sizes, ["k"], ["id", "m"], num, fac, kept=[])
    assert [n.split(":")[0] for n in notes] == [
        "column 'k' is constant in the real data",
        "column 'id' has a different value in every real record",
        "column 'm' is entirely missing in the synthetic data"]
    assert not any("'id'" in n for n in dm._column_notes(sizes, ["k"], ["id", "m"], num, fac, kept=["id"]))


def test_a_bad_row_order_is_refused_before_the_data_are_examined() -> None:
    with pytest.raises(ValueError, match=r"^row_order must be one of 'canonical', 'as_given', got 'sorted'$"):
        prepare("not a frame", None, row_order="sorted")  # type: ignore[arg-type]


def test_column_kinds_phase_reads_the_holdout_for_an_entirely_missing_column() -> None:
    from synthpriv_report.data import preparation as dm

    T = pd.DataFrame({"a": [np.nan, np.nan], "b": ["x", "y"]})
    H = pd.DataFrame({"a": [1.0, np.nan], "b": ["x", "y"]})
    assert dm._column_kinds({"T": T, "H": H}, ["a", "b"], numeric=[], categorical=[])["a"] == "numeric"
    with pytest.raises(ValueError, match=r"column 'a' is entirely missing in the real data; exclude it"):
        dm._column_kinds({"T": T}, ["a", "b"], numeric=[], categorical=[])


# ---------------------------------------------------------------------------------------------------------------
# the prepared numbers, held packed


def _bits(a):
    return np.ascontiguousarray(a, dtype=np.float64).view(np.uint64)


def test_a_numeric_set_gives_back_every_float64_bit_for_bit_in_each_of_its_forms():
    from synthpriv_report.data.containers import PACKED_MAX_DISTINCT, NumericSet

    rng = np.random.default_rng(5)
    n = 3 * PACKED_MAX_DISTINCT
    odd_nan = np.array([0x7FF8000000000123], dtype=np.uint64).view(np.float64)[0]  # a NaN with a payload
    few = rng.choice([0.0, -0.0, 1.5, np.inf, -np.inf, np.nan, odd_nan], n)  # codes, one byte
    some = rng.integers(0, 1000, n).astype(float)  # codes, two bytes
    wide_ints = rng.integers(0, 2**23, n).astype(float)  # too many values: float32 holds them exactly
    real = rng.random(n)  # float64
    # distinct values only after the rows the first look reads: still at most PACKED_MAX_DISTINCT in all
    late = np.concatenate([np.zeros(2 * PACKED_MAX_DISTINCT),
                           np.arange(PACKED_MAX_DISTINCT) % (PACKED_MAX_DISTINCT - 1) + 0.1])
    x = np.column_stack([few, some, wide_ints, real, late])
    p = NumericSet.packed(x)
    held = [(a.dtype.name, t is not None) for a, t in p._columns]
    assert held == [("uint8", True), ("uint16", True), ("float32", False), ("float64", False), ("uint16", True)]
    assert p.nbytes < x.nbytes / 2
    assert p.shape == x.shape and len(p) == n
    assert np.array_equal(_bits(np.asarray(p)), _bits(x))  # odd NaN payloads and -0.0 included
    rows = rng.permutation(n)[:500]
    mask = rng.random(n) < 0.01
    for key in (rows, mask, slice(10, 400, 3), slice(None)):
        assert np.array_equal(_bits(p[key]), _bits(x[key])), key
        assert np.array_equal(_bits(p[key, 2]), _bits(x[key, 2]))
        assert np.array_equal(_bits(p[key, [4, 0]]), _bits(x[key][:, [4, 0]]))
        assert np.array_equal(_bits(p[key, 1:3]), _bits(x[key][:, 1:3]))
    assert np.array_equal(_bits(p[7]), _bits(x[7]))
    assert np.array_equal(_bits(p.take(rows).rows()), _bits(x[rows]))
    assert np.array_equal(_bits(p.select([3, 1]).rows()), _bits(x[:, [3, 1]]))
    out = p[rows]
    out[:] = 0.0  # a read is a new array: the set is unchanged
    assert np.array_equal(_bits(p[rows]), _bits(x[rows]))
    assert NumericSet.packed(p) is p
    empty = NumericSet.packed(np.zeros((0, 2)))
    assert empty.shape == (0, 2) and empty.rows().shape == (0, 2)


def test_prepared_numbers_are_held_packed_and_read_as_the_frames_values():
    rng = np.random.default_rng(2)
    T = pd.DataFrame({"age": rng.integers(17, 90, 300).astype(float), "w": rng.random(300),
                      "c": rng.choice(["a", "b"], 300)})
    T.loc[3, "age"] = np.nan
    d = prepare(T, T.iloc[::-1].reset_index(drop=True))
    assert d.numeric_columns == ("age", "w")
    nums = d.numeric["T"]
    assert [a.dtype.name for a, _ in nums._columns] == ["uint8", "uint16"]  # 74 ages; 300 distinct fractions
    caller = d.caller_rows("T", np.arange(300))
    assert caller.dtype == np.int64
    assert np.array_equal(_bits(np.asarray(nums)), _bits(T[["age", "w"]].to_numpy()[caller]))
    assert np.array_equal(d.prepared_rows("T", caller), np.arange(300))


@pytest.mark.parametrize("block", [1, 2, 3, 8, 12, 1 << 20])
def test_numeric_checks_read_a_block_at_a_time_with_the_whole_columns_conclusions(monkeypatch, block) -> None:
    """The constant-column and entirely-missing notes and the synthetic precision, read a block of records (every
    column at once, at most ``block`` numbers: one record, two, three, all four) at a time: the conclusions of the
    whole columns, whatever the block (missing values and infinities in any block)."""
    from synthpriv_report.data import containers
    from synthpriv_report.data import preparation as dm

    monkeypatch.setattr(containers, "CHECK_BLOCK", block)
    nan, inf = np.nan, np.inf
    cols = ["k", "f", "g", "m"]
    num = {  # k: 2 wherever present in T and H; f: S's fractions are float32 numbers, T's are not;
        # g: S's too, but every real value is a float32 number; m: missing in every synthetic record
        "T": np.array([[2.0, 0.1, 1.0, 1.0], [nan, 0.2, 2.0, nan], [2.0, 0.3, 3.0, 2.0], [2.0, 0.4, 4.0, nan]]),
        "H": np.array([[nan, 0.5, 1.0, 1.0], [2.0, 0.5, 2.0, nan], [nan, 0.5, 3.0, 1.0], [nan, 0.5, 4.0, nan]]),
        "S": np.array([[1.0, 0.5, 0.5, nan], [2.0, 0.25, inf, nan], [3.0, nan, 1.5, nan], [4.0, 1.75, nan, nan]]),
    }
    packed = {s: dm.NumericSet.packed(a) for s, a in num.items()}
    sizes = {s: 4 for s in num}
    fac = {s: [] for s in num}
    notes = dm._column_notes(sizes, cols, [], packed, fac, kept=[])
    assert [n.split(":")[0] for n in notes] == ["column 'k' is constant in the real data",
                                                "column 'm' is entirely missing in the synthetic data"]
    dtypes = pd.Series({c: np.dtype("float64") for c in cols})
    assert dm._synthetic_precision(dtypes, list(num), cols, packed) == {"f": "float32"}
