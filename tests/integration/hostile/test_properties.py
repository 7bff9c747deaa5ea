"""Property-based hostile input (issue 16): small random frames with mixed types, missing values, infinities,
extreme numbers, Unicode and control characters, boolean spellings, duplicate and constant columns, single rows.

Every example ends either in a clear ``ValueError``/``TypeError`` that names a column, a set or an argument, or
in a report whose graded values are finite and inside their declared range; the caller's frames are unchanged
and a second evaluation gives the same numbers. Runs are derandomized (a fixed seed per test) through the
``synthpriv-hostile`` profile, about a minute in all on 2 cores.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import pandas as pd
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from synthpriv_report import Evaluation
from synthpriv_report.data.preparation import prepare

settings.register_profile(
    "synthpriv-hostile",
    derandomize=True,
    max_examples=120,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
HOSTILE = settings.get_profile("synthpriv-hostile")

#: The quick metrics every example is reported on.
METRICS = ["dcr", "exact_copies", "holdout_dcr_share", "privacy_score", "nndr", "dcr_test", "nndr_test"]

# ----------------------------------------------------------------------------------------------------------------
# strategies

_TEXT = st.text(
    alphabet=st.sampled_from(["a", "b", "é", "😀", "\x00", "\x1f", "\n", "\u202e", "\u200b", "<", "'", " ", "日"]),
    max_size=4,
)
_NAME = st.one_of(_TEXT, st.sampled_from(["age", "Age", "age ", "x", "\x1b[31m", "", "a\nb", "naïve"]))
_BOOL_SPELLINGS = [("True", "False"), ("yes", "no"), ("1", "0"), ("t", "f"), ("Y", "N"), ("TRUE", "false")]


@st.composite
def _numbers(draw, n: int) -> list[float]:
    """Floats with missing values, the odd infinity and extreme but finite magnitudes."""
    pool = draw(st.lists(
        st.one_of(
            st.floats(-1e3, 1e3, allow_nan=False),
            st.sampled_from([0.0, -0.0, 1e300, -1e300, 1.7e308, -1.7e308, 5e-324, 1e-300]),
            st.just(math.nan),
        ),
        min_size=1, max_size=4,
    ))
    vals = [draw(st.sampled_from(pool)) for _ in range(n)]
    if draw(st.integers(0, 19)) == 0:  # now and then an infinity (a clear error)
        vals[draw(st.integers(0, n - 1))] = draw(st.sampled_from([math.inf, -math.inf]))
    return vals


@st.composite
def _column(draw, kind: str, n: int, spelling: int) -> pd.Series:
    if kind == "float":
        return pd.Series(draw(_numbers(n)), dtype=float)
    if kind == "int":
        return pd.Series(draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n)), dtype="int64")
    if kind == "text":
        pool = draw(st.lists(st.one_of(_TEXT, st.none()), min_size=1, max_size=4))
        return pd.Series([draw(st.sampled_from(pool)) for _ in range(n)], dtype=object)
    if kind == "bool":
        t, f = _BOOL_SPELLINGS[spelling]
        return pd.Series([draw(st.sampled_from([t, f, None])) for _ in range(n)], dtype=object)
    if kind == "realbool":
        return pd.Series(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    if kind == "mixed":
        pool = [1, "1", 1.5, None, True, "x", -0.0]
        return pd.Series([draw(st.sampled_from(pool)) for _ in range(n)], dtype=object)
    if kind == "numtext":
        return pd.Series([draw(st.sampled_from(["1", "2.5", "", "nan", None, "-3"])) for _ in range(n)],
                         dtype=object)
    if kind == "date":
        days = draw(st.lists(st.one_of(st.integers(0, 20000), st.none()), min_size=n, max_size=n))
        return pd.Series(pd.to_datetime([None if d is None else d for d in days], unit="D"))
    if kind == "constant":
        return pd.Series([7.0] * n)
    if kind == "missing":
        return pd.Series([None] * n, dtype=object)
    raise AssertionError(kind)


_KINDS = ["float", "float", "int", "text", "text", "bool", "realbool", "mixed", "numtext", "date", "constant",
          "missing"]


@st.composite
def _frame_sets(draw):
    """(real, synthetic, holdout or None): 2-30 real rows, 1-30 synthetic and holdout rows, 1-5 columns."""
    p = draw(st.integers(1, 5))
    names: list[object] = []
    for raw in draw(st.lists(_NAME, min_size=p, max_size=p)):
        names.append(raw if raw not in names else f"{raw}_{len(names)}")
    if draw(st.integers(0, 14)) == 0 and p > 1:
        names[1] = names[0]  # a duplicate column name
    if draw(st.integers(0, 14)) == 0:
        names[0] = draw(st.sampled_from([0, 1.5, None, ("a", "b")]))  # a non-string column name
    kinds = [draw(st.sampled_from(_KINDS)) for _ in range(p)]
    # each set spells a boolean column its own way (sometimes the same way)
    spell = {s: [draw(st.integers(0, len(_BOOL_SPELLINGS) - 1)) for _ in range(p)] for s in "THS"}
    sizes = {"T": draw(st.integers(2, 30)), "S": draw(st.integers(1, 30)),
             "H": draw(st.one_of(st.none(), st.integers(1, 30)))}

    def frame(s: str) -> pd.DataFrame | None:
        n = sizes[s]
        if n is None:
            return None
        cols = [draw(_column(kinds[j], n, spell[s][j])) for j in range(p)]
        if s == "S" and draw(st.integers(0, 9)) == 0:
            cols = [c.sample(frac=1.0, random_state=0).reset_index(drop=True) for c in cols]
        df = pd.concat(cols, axis=1, ignore_index=True)
        df.columns = pd.Index(names, dtype=object, tupleize_cols=False)
        return df

    real, syn, hold = frame("T"), frame("S"), frame("H")
    if draw(st.integers(0, 4)) == 0:  # a synthetic set that copies some real rows
        k = draw(st.integers(1, len(real)))
        syn = pd.concat([real.iloc[:k], syn], ignore_index=True)
    return real, syn, hold


# ----------------------------------------------------------------------------------------------------------------
# checks


def _names_something(msg: str, frames: tuple) -> bool:
    """A clear error names a column (quoted), a set or an argument."""
    columns = {c for f in frames if f is not None for c in f.columns}
    if any(repr(c) in msg for c in columns):
        return True
    words = ("real", "synthetic", "holdout", "column", "exclude", "numeric", "categorical")
    return any(w in msg for w in words)


def _evaluate(real, syn, hold):
    ev = Evaluation(real, syn, holdout=hold, random_state=0, progress=False, calibrate=False)
    return ev.results(metrics=METRICS)


def _check_report(rs) -> None:
    for name in METRICS:
        r = rs[name]
        if r.level is None:
            continue
        assert r.value is not None and math.isfinite(r.value), (name, r.value, r.level)
        lo, hi = r.value_range
        assert lo - 1e-9 <= r.value <= hi + 1e-9, (name, r.value, r.value_range)
        if r.interval is not None:
            assert all(math.isfinite(v) for v in r.interval), (name, r.interval)


def _timeless(report: dict) -> dict:
    """A report's dictionary without the time it was computed at (two runs a second apart differ only there)."""
    out = copy.deepcopy(report)
    out["meta"].pop("evaluated_at", None)
    return out


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@HOSTILE
@given(_frame_sets())
def test_hostile_frames_end_in_a_clear_error_or_a_finite_report(frames) -> None:
    before = [copy.deepcopy(f) for f in frames]
    try:
        try:
            rs = _evaluate(*frames)
        except (ValueError, TypeError) as exc:
            assert _names_something(str(exc), frames), str(exc)
            event(f"{type(exc).__name__}: {' '.join(str(exc).split()[2:6])}")
            return
        event("report")
        _check_report(rs)
        again = _evaluate(*frames)
        assert _timeless(again.to_dict()) == _timeless(rs.to_dict())
    finally:
        for a, b in zip(frames, before):
            if a is not None:
                pd.testing.assert_frame_equal(a, b)


@settings(HOSTILE, max_examples=200)
@given(_frame_sets())
def test_prepared_data_keeps_every_row_and_never_makes_nan_from_finite_input(frames) -> None:
    """At the data layer alone (fast, so more examples): no row dropped, numbers only NaN where missing, every
    categorical value a string, encodings finite for finite input."""
    from synthpriv_report.spaces import SpaceSpec, encode, fit, project

    real, syn, hold = frames
    try:
        d = prepare(real, syn, hold)
    except (ValueError, TypeError) as exc:
        assert _names_something(str(exc), frames), str(exc)
        return
    given_sizes = {"T": len(real), "S": len(syn)} | ({"H": len(hold)} if hold is not None else {})
    assert d.sizes == given_sizes
    for s in d.sets:
        assert d.numeric[s].shape == (d.sizes[s], len(d.numeric_columns))
        assert not np.isinf(d.numeric[s]).any()
        assert all(isinstance(v, str) for v in d.categorical[s].ravel())
    f = fit(d)
    euclid = encode(d, f, SpaceSpec("euclidean"))
    encs = [encode(d, f, SpaceSpec("gower")), euclid, encode(d, f, SpaceSpec("hamming")),
            project(d, euclid, SpaceSpec("projected"))[0]]
    for enc in encs:
        for s in d.sets:
            num = enc.num[s]
            if enc.spec.kind == "gower":
                assert (np.isnan(num) == np.isnan(d.numeric[s][:, :num.shape[1]])).all()
                num = num[~np.isnan(num)]
            assert np.isfinite(num).all(), enc.spec.label
            # a missing categorical value has a code of its own
            assert enc.cat[s].min(initial=0) >= 0
