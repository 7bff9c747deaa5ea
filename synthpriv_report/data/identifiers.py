"""Identifier-like columns (record numbers, codes, UUIDs), which an evaluation leaves out by default.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from .convert import _is_datetime

# ---------------------------------------------------------------------------------------------------------------
# identifier-like columns (used by Evaluation to leave them out by default)

#: Fewer non-missing real values than this and no column is taken for an identifier: too few to tell.
IDENTIFIER_MIN_VALUES = 20
#: "Nearly all distinct": at most one value in this many may repeat an earlier one (below this many values,
#: every value must be distinct).
IDENTIFIER_REPEAT_ONE_IN = 100
#: A whole-number column counts as numbered like a running count when its span (max - min + 1) is at most this
#: many times its number of distinct values: near-consecutive (a running count, or what is left of it after a
#: split that keeps four records in five) ...
IDENTIFIER_SPAN_FACTOR = 1.25
#: ... or, with at least this many distinct values, at most :data:`IDENTIFIER_WIDE_SPAN_FACTOR` times (a split that
#: keeps half the records): so many distinct whole numbers packed so tightly are no measurement. Below it, 30
#: distinct ages among 53 possible values are a small sample of ages, not record numbers.
IDENTIFIER_WIDE_MIN_DISTINCT = 100
IDENTIFIER_WIDE_SPAN_FACTOR = 2
#: Distinct values checked against the code-like pattern (a sample; the share below must match).
_CODE_SAMPLE = 2000
_CODE_SHARE = 0.95

_IDENTIFIER_NAME = re.compile(
    r"(?:^|[^a-z0-9])(?:id|ids|uuid|guid|key|record|rec|row|index|idx|nr|no|num|number|serial|code)(?:$|[^a-z0-9])"
    r"|[a-z0-9](?:Id|ID|Uuid|UUID|Nr|No|Num|Number|Key|Code)$"
)
_UUID = re.compile(r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$")
_CODE = re.compile(r"^[^\s]{1,64}$")
_DIGIT = re.compile(r"[0-9]")
_DECIMAL_OR_DATE = re.compile(r"^[+-]?(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?$"
                              r"|^\d{4}-\d{2}-\d{2}|^\d{1,2}[/.]\d{1,2}[/.]\d{2,4}")


def _name_says_identifier(column: str) -> bool:
    """Whether a column's name reads like an identifier's (``id``, ``patient_id``, ``recordNo``, ``uuid``...)."""
    return bool(_IDENTIFIER_NAME.search(column.lower()) or _IDENTIFIER_NAME.search(column))


def _nearly_all_distinct(n_values: int, n_distinct: int) -> bool:
    """The "nearly all distinct" rule: at least :data:`IDENTIFIER_MIN_VALUES` values, and at most one in
    :data:`IDENTIFIER_REPEAT_ONE_IN` repeating an earlier one (so, below 100 values, every value distinct).

    >>> _nearly_all_distinct(20, 20), _nearly_all_distinct(99, 98), _nearly_all_distinct(1000, 990)
    (True, False, True)
    >>> _nearly_all_distinct(19, 19), _nearly_all_distinct(1000, 989)
    (False, False)
    """
    if n_values < IDENTIFIER_MIN_VALUES:
        return False
    return n_values - n_distinct <= n_values // IDENTIFIER_REPEAT_ONE_IN


def _is_code(value: str) -> bool:
    return bool(_UUID.match(value) or (_CODE.match(value) and _DIGIT.search(value)
                                       and not _DECIMAL_OR_DATE.match(value)))


def identifier_reason(series: pd.Series, column: str) -> str | None:
    """Why a real column looks like an identifier, in plain words, or None when it does not.

    The rule, applied to the non-missing values of the real training data:

    1. *Nearly all distinct*: at least 20 values, and at most one in 100 repeats an earlier value (with fewer
       than 100 values, all distinct). Fewer than 20 values are too few to tell: never an identifier.
    2. And one of:

       - *whole numbers numbered like a record count*: every value is a whole number (an integer column, or a
         float column without fractions) and the values are packed like a running number, or they run in
         increasing or decreasing order down the file, or the column's
         name reads like an identifier's (``id``, ``patient_id``, ``recordNo``, ``uuid``, ...). Packed means
         near-consecutive: the span from the smallest to the largest value is at most 1.25 times the number of
         distinct values (1, 2, 3, ... or what is left of it after a split keeping four records in five), or at
         most twice that number when there are at least 100 distinct values. A small sample of a measurement
         (30 distinct ages between 17 and 69) is not packed enough;
       - *code-like text*: at least 95% of the distinct texts (a sample of 2,000) are UUIDs or single tokens
         with a digit and no spaces (``ID-000123``, ``A77F3``, ``000123``), excluding decimal numbers and
         dates written as text.

    A measurement is never taken for an identifier: numbers with fractions, dates, booleans and times are
    skipped, and whole numbers spread far apart in no order (Adult's ``fnlwgt``: 21,648 distinct values in
    32,561 records, all distinct in small samples) do not pass step 2 unless their name says "id".

    Parameters
    ----------
    series : Series
        The column of the real training data, as given.
    column : str
        Its name.

    Returns
    -------
    str or None
        The reason (e.g. ``"a different whole number in every real record, numbered like a running count"``).

    >>> identifier_reason(pd.Series(range(1, 31)), "n")
    'a different whole number in every real record, numbered like a running count'
    >>> identifier_reason(pd.Series([f"ID-{i:06d}" for i in range(30)]), "ref")
    'a different code (such as ID-000123 or a UUID) in every real record'
    >>> identifier_reason(pd.Series(np.arange(30) * 1000.5), "weight") is None
    True
    """
    dtype = series.dtype
    if (pd.api.types.is_bool_dtype(dtype) or _is_datetime(series) or pd.api.types.is_timedelta64_dtype(dtype)
            or pd.api.types.is_complex_dtype(dtype)):
        return None
    n = int(series.count())
    if n < IDENTIFIER_MIN_VALUES:
        return None
    allowed = n // IDENTIFIER_REPEAT_ONE_IN  # repeats the rule tolerates
    # a sound shortcut: repeats among the first values are repeats of the whole column, so a column of few
    # distinct values is refused after reading a prefix
    head = series.iloc[:3 * allowed + 1000].dropna()
    if len(head) - head.nunique() > allowed:
        return None
    values = series.dropna()
    if pd.api.types.is_numeric_dtype(dtype):
        with np.errstate(invalid="ignore", over="ignore"):
            arr = values.to_numpy(dtype=np.float64, na_value=np.nan)
        return numeric_identifier_reason(arr, column, integer=pd.api.types.is_integer_dtype(dtype))
    # text (object, string or categorical columns)
    return text_identifier_reason(pd.unique(values.to_numpy(dtype=object)), n)


def numeric_identifier_reason(arr: NDArray[np.float64], column: str, *, integer: bool) -> str | None:
    """:func:`identifier_reason` for the non-missing values of a numeric column, in the order of the rows
    (``integer``: the column's dtype is an integer one)."""
    n = int(arr.shape[0])
    if n < IDENTIFIER_MIN_VALUES:
        return None
    if not np.isfinite(arr).all() or not (integer or (arr == np.round(arr)).all()):
        return None
    n_distinct = int(pd.unique(arr).size)
    if not _nearly_all_distinct(n, n_distinct):
        return None
    every = "every" if n_distinct == n else "nearly every"
    span = float(arr.max() - arr.min()) + 1.0
    if span <= IDENTIFIER_SPAN_FACTOR * n_distinct or (
            n_distinct >= IDENTIFIER_WIDE_MIN_DISTINCT and span <= IDENTIFIER_WIDE_SPAN_FACTOR * n_distinct):
        return f"a different whole number in {every} real record, numbered like a running count"
    step = np.diff(arr)
    if (step >= 0).all() or (step <= 0).all():
        return f"a different whole number in {every} real record, in order down the file like a record number"
    if _name_says_identifier(column):
        return f"a different whole number in {every} real record, and a name that reads like an identifier"
    return None


def text_identifier_reason(uniq: NDArray[np.object_], n: int) -> str | None:
    """:func:`identifier_reason` for a text column from its distinct non-missing values (in order of first
    appearance) and its number ``n`` of non-missing values."""
    if n < IDENTIFIER_MIN_VALUES or not _nearly_all_distinct(n, len(uniq)):
        return None
    sample = uniq[:_CODE_SAMPLE]
    share = sum(isinstance(v, str) and _is_code(v) for v in sample) / len(sample)
    if share < _CODE_SHARE:
        return None
    every = "every" if len(uniq) == n else "nearly every"
    return f"a different code (such as ID-000123 or a UUID) in {every} real record"


def check_include_exclude(include: Sequence[str], exclude: Sequence[str]) -> None:
    """A column is either left out (``exclude=``) or kept (``include=``), never both."""
    both = [c for c in include if c in exclude]
    if both:
        raise ValueError(f"column(s) {', '.join(map(repr, both))} are named by both exclude= and include=; "
                         "a column is either left out or kept")


def split_identifiers(found: dict[str, str], candidates: Sequence[str], include: Sequence[str],
                      requested: set[str], *, stacklevel: int) -> tuple[dict[str, str], dict[str, str]]:
    """Identifier-like columns (``found``: column -> reason) left out, and those kept because ``include`` names
    them: ``(auto, kept)``. Each column left out is announced with a ``UserWarning`` (at ``stacklevel``); every
    candidate column looking like an identifier, none named by the caller (``requested``), is an error."""
    kept = {c: r for c, r in found.items() if c in include}
    auto = {c: r for c, r in found.items() if c not in include}
    if auto and len(auto) == len(candidates) and not requested:
        raise ValueError(f"every column looks like an identifier ({', '.join(map(repr, auto))}); keep the ones "
                         f"to analyse with include=[...]")
    for c, reason in auto.items():
        warnings.warn(f"column {c!r} looks like an identifier ({reason}) and is left out of every metric; keep it "
                      f"with include=[{c!r}]", UserWarning, stacklevel=stacklevel + 1)
    return auto, kept


def identifier_columns(real: pd.DataFrame, columns: Sequence[str]) -> dict[str, str]:
    """The columns among ``columns`` of the real training data that look like identifiers, with the reason.

    See :func:`identifier_reason` for the rule. The frame is only read.

    >>> T = pd.DataFrame({"row": range(50), "age": [30, 40] * 25})
    >>> identifier_columns(T, ["row", "age"])
    {'row': 'a different whole number in every real record, numbered like a running count'}
    """
    out = {}
    for c in columns:
        reason = identifier_reason(real[c], c)
        if reason is not None:
            out[c] = reason
    return out
