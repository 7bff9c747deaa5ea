"""The package's one home of number formats, level words and set names (``synthpriv_report/formats.py``).

Every expected text is worked out by hand from the rules the module states: 3 significant digits with thousands
separators, shares as percentages, ``—`` for a missing value, ``∞`` for an infinity; not copied from the code's
output.
"""

from __future__ import annotations

import ast
import math
from pathlib import Path

import numpy as np
import pytest

from synthpriv_report.core import formats
from synthpriv_report.core.formats import (
    DEFAULT_SET_NAMES,
    LEVEL_WORDS,
    SEARCH_NAMES,
    SET_LABELS,
    SET_ROLES,
    SETS,
    fmt_cell,
    fmt_count,
    fmt_interval,
    fmt_number,
    fmt_on_unit,
    fmt_share,
    fmt_value,
    is_finite_number,
    level_text,
)


@pytest.mark.parametrize("value, text", [
    # 3 significant digits; trailing zeros dropped
    (0.123456, "0.123"), (0.15000000000000002, "0.15"), (12.5, "12.5"), (0.0001, "0.0001"), (-32.61479, "-32.6"),
    # at 3 digits and more: whole, thousands separated, rounded to 3 significant digits
    (1650.2, "1,650"), (123456789.0, "123,000,000"), (-1650.2, "-1,650"),
    # rounding that carries into the next power of ten
    (999.5, "1,000"), (0.99996, "1"),
    # zero, either sign
    (0.0, "0"), (-0.0, "0"), (0, "0"),
    # integers stay whole below 10**15
    (3, "3"), (3000, "3,000"), (10**15 - 1, "999,999,999,999,999"), (-7, "-7"),
    # huge: scientific with 3 significant digits
    (1e15, "1e+15"), (2.5e20, "2.5e+20"), (10**15, "1e+15"), (-(10**20), "-1e+20"),
    # tiny (below 1e-4): scientific, one significant digit fewer (shorter where such values show)
    (0.00001234, "1.2e-05"), (2.5e-7, "2.5e-07"), (1e-300, "1e-300"), (-0.00009876, "-9.9e-05"),
    # missing, not a number, infinities, booleans
    (None, "—"), (float("nan"), "—"), (float("inf"), "∞"), (float("-inf"), "−∞"), (True, "yes"), (False, "no"),
])
def test_numbers(value, text):
    assert fmt_number(value) == text


def test_numbers_of_other_types_and_digits():
    assert fmt_number(np.float64(0.5)) == "0.5"
    assert fmt_number(np.int64(3000)) == "3,000"       # converted through float
    assert fmt_number(np.float32(0.1)) == "0.1"         # 0.100000001... to 3 digits
    assert fmt_number("2.5") == "2.5" and fmt_number("abc") == "abc"
    assert fmt_number(0.15, digits=2) == "0.15" and fmt_number(1234.0, digits=2) == "1,200"
    assert fmt_number(0.00002, digits=1) == "2e-05" and fmt_number(0.00002, digits=2) == "2e-05"
    assert fmt_number(math.pi, digits=5) == "3.1416"


@pytest.mark.parametrize("share, text", [
    (0.0, "0%"), (1.0, "100%"), (-0.0, "0%"), (0.5, "50%"), (0.095, "9.5%"), (0.0033333, "0.333%"),
    (0.999999, "99.9999%"),                 # below 1: never "100%", the digits that tell it from all
    (1e-9, "1e-07%"),                       # 0.0000001%: tiny, so scientific
    (None, "—"), (float("nan"), "—"), (float("inf"), "—"), (True, "—"), ("0.5", "—"),
])
def test_shares(share, text):
    assert fmt_share(share) == text


@pytest.mark.parametrize("n, text", [
    (0, "0"), (1234567, "1,234,567"), (12.0, "12"), (-3, "-3"),
    (2.5, "2"), (3.5, "4"),                 # Python's round: half to even
    (None, "—"), (float("nan"), "—"), (float("inf"), "—"), (True, "—"),
])
def test_counts(n, text):
    assert fmt_count(n) == text


@pytest.mark.parametrize("v, unit, text", [
    (0.55, "percent", "55%"), (1.0, "percent", "100%"), (0.0, "percent", "0%"),
    (-0.314, "points", "-31.4 percentage points"), (0.0, "points", "0 percentage points"),
    (-0.0, "points", "0 percentage points"), (1.0, "points", "100 percentage points"),
    (2.72, "number", "2.72"), (3, None, "3"),
    (None, "percent", "—"), (float("nan"), "points", "—"), (float("-inf"), None, "—"),
])
def test_numbers_on_their_unit(v, unit, text):
    assert fmt_on_unit(v, unit) == text


def test_values_and_intervals_by_kind():
    assert fmt_value(0.5, "share") == "50%" and fmt_value(0.5, "auc") == "0.5"
    assert fmt_value(47.619, "score") == "47.6" and fmt_value(None, "distance") == "—"
    assert fmt_interval([0.0, 1.0], "share") == "0% to 100%"
    assert fmt_interval((float("nan"), 0.2), "share") == "— to 20%"
    assert fmt_interval([12.34, 56.78], "score") == "12.3 to 56.8"
    assert fmt_interval(None, "number") == "—"


def test_table_cells_keep_text_as_written():
    assert fmt_cell(0.123456) == "0.123" and fmt_cell(3000) == "3,000" and fmt_cell(None) == "—"
    assert fmt_cell(False) == "no"
    assert fmt_cell("1234") == "1234"       # a category that looks like a number is not reformatted
    assert fmt_cell("<b>", text=lambda s: s.upper()) == "<B>"
    assert fmt_cell(1234.0, text=lambda s: "unused") == "1,230"


def test_finite_numbers():
    assert is_finite_number(0) and is_finite_number(-0.0) and is_finite_number(1e308)
    assert not any(is_finite_number(v) for v in (None, True, float("nan"), float("inf"), "1", [1]))


def test_level_words():
    assert [level_text(lv) for lv in ("low", "inconclusive", "medium", "high", "not_assessed", None)] == [
        "low risk", "inconclusive", "medium risk", "high risk", "not assessed", "no level"]
    assert level_text("unheard_of") == "unheard_of"
    # headlines (the export's cover and running title) are the same words in capitals
    assert level_text("not_assessed").upper() == "NOT ASSESSED" and level_text("high").upper() == "HIGH RISK"
    assert set(LEVEL_WORDS) == {"low", "inconclusive", "medium", "high", "not_assessed", None}


def test_set_names_come_from_one_table():
    assert list(SETS) == ["T", "S", "H", "R"]    # the order an evaluation takes them
    assert SET_ROLES == {"T": "real", "S": "synthetic", "H": "holdout", "R": "reference"}
    # the reference set's label names the option that gives it, so that every message about it does
    assert SET_LABELS == {"T": "real (training)", "S": "synthetic", "H": "holdout", "R": "reference (reference=)"}
    assert list(DEFAULT_SET_NAMES.items()) == [("real", "real training data"), ("synthetic", "synthetic data"),
                                               ("holdout", "holdout data"), ("reference", "reference data")]
    assert SEARCH_NAMES == {"S": "synthetic → train", "H": "holdout → train", "T": "train → train (within real)",
                            "R": "reference → train"}
    for letter, names in SETS.items():
        assert (SET_ROLES[letter], SET_LABELS[letter], SEARCH_NAMES[letter]) == (names.role, names.label,
                                                                                 names.search)
        assert DEFAULT_SET_NAMES[names.role] == names.default_name


def test_formats_is_a_base_module():
    """formats.py imports nothing from the package, so every layer may import it."""
    tree = ast.parse(Path(formats.__file__).read_text(encoding="utf-8"))
    relative = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and (n.level or 0) > 0]
    absolute = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    absolute += [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and not n.level and n.module]
    assert not relative and not [m for m in absolute if m.startswith("synthpriv_report")]
