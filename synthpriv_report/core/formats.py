"""How numbers, levels and data sets read: the one home of the package's number formats and reader-facing names.

Every view (the notebook display, the widgets, the HTML and PDF exports, the terminal summary) formats its numbers
with these functions and names levels and data sets from these tables, so one value reads the same everywhere.
Nothing here imports from the rest of the package.

Number formats
--------------
* plain numbers: 3 significant digits (``0.136``, ``1,650``), thousands separated; ``—`` for a missing value;
* counts: whole numbers with thousands separators (``3,000``);
* shares (proportions in [0, 1]): percentages with 3 significant digits (``9.5%``, ``0.333%``);
* a level threshold or graded number in its unit (percent, percentage points or a plain number).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["DEFAULT_SET_NAMES", "LEVEL_WORDS", "MISSING", "SETS", "SET_LABELS", "SET_ROLES", "SEARCH_NAMES",
           "SetNames", "ValueKind", "fmt_cell", "fmt_count", "fmt_interval", "fmt_number", "fmt_on_unit",
           "fmt_share", "fmt_value", "is_finite_number", "level_text"]

#: What kind of number a metric's headline value is; shares are shown as percentages.
ValueKind = Literal["share", "score", "auc", "distance", "number"]

#: The text shown for a missing number.
MISSING = "—"


# ---------------------------------------------------------------------------------------------------------------
# numbers


def is_finite_number(v: Any) -> bool:
    """Whether ``v`` is a finite Python ``int`` or ``float`` (booleans are not numbers here).

    >>> is_finite_number(3), is_finite_number(0.5), is_finite_number(float("nan")), is_finite_number(True)
    (True, True, False, False)
    """
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(float(v))


def fmt_number(v: Any, digits: int = 3) -> str:
    """A number in ``digits`` significant digits with thousands separators; ``—`` for missing.

    Parameters
    ----------
    v : int, float, bool, None or anything ``float()`` accepts
        The number. Integers below 10**15 are shown whole; booleans as ``yes``/``no``; ``None`` and NaN as ``—``;
        infinities as ``∞``/``−∞``; a value ``float()`` rejects as its text.
    digits : int, default 3
        Significant digits. Magnitudes of 10**15 and more are written in scientific notation with ``digits``
        significant digits, magnitudes below 1e-4 with ``digits - 1`` (at least 1).

    Returns
    -------
    str

    >>> fmt_number(0.15000000000000002), fmt_number(1650.2), fmt_number(3), fmt_number(None)
    ('0.15', '1,650', '3', '—')
    >>> fmt_number(float("inf")), fmt_number(True), fmt_number(2.5e-7)
    ('∞', 'yes', '2.5e-07')
    """
    if v is None:
        return MISSING
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}" if abs(v) < 10**15 else f"{float(v):.{digits}g}"
    if not isinstance(v, float):
        try:
            v = float(v)
        except (TypeError, ValueError):
            return str(v)
    if math.isnan(v):
        return MISSING
    if math.isinf(v):
        return "∞" if v > 0 else "−∞"
    if v == 0:
        return "0"
    mag = math.floor(math.log10(abs(v)))
    if mag >= digits - 1:
        if abs(v) >= 1e15:
            return f"{v:.{digits}g}"
        return f"{round(v, digits - 1 - mag):,.0f}"
    if mag < -4:
        return f"{v:.{digits - 1}g}" if digits > 1 else f"{v:.0e}"
    return f"{round(v, digits - 1 - mag):.{max(digits - 1 - mag, 0)}f}".rstrip("0").rstrip(".")


def fmt_count(n: Any) -> str:
    """A count with thousands separators (rounded to a whole number); ``—`` when not a finite number.

    >>> fmt_count(3000), fmt_count(12.0), fmt_count(None)
    ('3,000', '12', '—')
    """
    if not is_finite_number(n):
        return MISSING
    return f"{int(round(float(n))):,}"


def fmt_share(p: Any) -> str:
    """A proportion in [0, 1] as a percentage with 3 significant digits; ``—`` when not a finite number.

    A share below 1 never reads "100%": it takes the digits that tell it from all (a reader told that 100% of the
    records are unique would conclude that every one is).

    >>> fmt_share(0.095), fmt_share(0.5133333), fmt_share(0.0), fmt_share(1.0), fmt_share(0.0033333)
    ('9.5%', '51.3%', '0%', '100%', '0.333%')
    >>> fmt_share(0.99996), fmt_share(0.9999999999)
    ('99.996%', '> 99.9999%')
    """
    if not is_finite_number(p):
        return MISSING
    for digits in (3, 4, 5, 6):
        text = fmt_number(float(p) * 100.0, digits) + "%"
        if text != "100%" or float(p) >= 1.0:
            return text
    return "> 99.9999%"


def fmt_on_unit(v: Any, unit: str | None) -> str:
    """A level threshold or graded number (a fraction for shares) as it reads in its unit.

    ``unit`` is ``"percent"`` (a share, shown as a percentage), ``"points"`` (a difference of shares, in
    percentage points) or anything else (a plain number).

    >>> fmt_on_unit(0.55, "percent"), fmt_on_unit(-0.314, "points"), fmt_on_unit(0.05, "points")
    ('55%', '-31.4 percentage points', '5 percentage points')
    >>> fmt_on_unit(2.72, "number"), fmt_on_unit(None, "percent")
    ('2.72', '—')
    """
    if not is_finite_number(v):
        return MISSING
    if unit == "percent":
        return fmt_share(v)
    if unit == "points":
        return fmt_number(float(v) * 100.0) + " percentage points"
    return fmt_number(v)


def fmt_value(v: Any, kind: ValueKind) -> str:
    """``v`` formatted by its kind (shares as percentages, everything else with 3 significant digits).

    >>> fmt_value(0.095, "share"), fmt_value(47.619, "score"), fmt_value(0.7906, "auc")
    ('9.5%', '47.6', '0.791')
    """
    return fmt_share(v) if kind == "share" else fmt_number(v)


def fmt_interval(iv: Any, kind: ValueKind) -> str:
    """An interval ``[low, high]`` formatted by the value's kind; ``—`` when there is none.

    >>> fmt_interval([0.074, 0.121], "share"), fmt_interval(None, "share")
    ('7.4% to 12.1%', '—')
    """
    if iv is None:
        return MISSING
    lo, hi = iv
    return f"{fmt_value(lo, kind)} to {fmt_value(hi, kind)}"


def fmt_cell(v: Any, text: Callable[[Any], str] = str) -> str:
    """A table cell: a Python number (or ``None``, or a boolean) by :func:`fmt_number`, anything else by ``text``.

    Unlike :func:`fmt_number`, a string that looks like a number stays as written (a category ``"1234"`` is not
    a number ``1,234``).

    >>> fmt_cell(0.123456), fmt_cell(87.5), fmt_cell(None), fmt_cell(3000), fmt_cell(True), fmt_cell("1234")
    ('0.123', '87.5', '—', '3,000', 'yes', '1234')
    """
    if v is None or isinstance(v, (bool, int, float)):
        return fmt_number(v)
    return text(v)


# ---------------------------------------------------------------------------------------------------------------
# levels

#: A level (or a verdict) in words; ``None``: a measure without a level.
LEVEL_WORDS: dict[str | None, str] = {"low": "low risk", "inconclusive": "inconclusive", "medium": "medium risk",
                                      "high": "high risk",
                                      "not_assessed": "not assessed", None: "no level"}


def level_text(level: str | None) -> str:
    """A level in words; an unknown level as its own text. Headlines take ``level_text(level).upper()``.

    >>> level_text("medium"), level_text("not_assessed").upper(), level_text(None), level_text("odd")
    ('medium risk', 'NOT ASSESSED', 'no level', 'odd')
    """
    return LEVEL_WORDS.get(level, str(level))


# ---------------------------------------------------------------------------------------------------------------
# data sets


@dataclass(frozen=True)
class SetNames:
    """What one data set is called, by the place it is named.

    Attributes
    ----------
    role : str
        Its key in results and reports (``"real"``, ``"synthetic"``, ``"holdout"``, ``"reference"``).
    label : str
        Its name in sentences and error messages ("the real (training) data").
    default_name : str
        What reports call it when the user gave it no name.
    search : str
        Its records' nearest-neighbour search among the training records, as a figure legend reads.
    """

    role: str
    label: str
    default_name: str
    search: str


#: The data sets by letter, in the order an evaluation takes them: T the real records the generator learned from,
#: S the synthetic records, H real records of the same population the generator never saw, and R (optional, with a
#: holdout only) real records of that population that are neither training records nor holdout records, given as
#: the membership attacks' reference set (``Evaluation(reference=...)``, on the command line ``--reference``).
SETS: dict[str, SetNames] = {
    "T": SetNames("real", "real (training)", "real training data", "train → train (within real)"),
    "S": SetNames("synthetic", "synthetic", "synthetic data", "synthetic → train"),
    "H": SetNames("holdout", "holdout", "holdout data", "holdout → train"),
    "R": SetNames("reference", "reference (reference=)", "reference data", "reference → train"),
}
#: Letter -> role key (``{"T": "real", "S": "synthetic", "H": "holdout", "R": "reference"}``).
SET_ROLES: dict[str, str] = {k: s.role for k, s in SETS.items()}
#: Letter -> name in sentences and error messages.
SET_LABELS: dict[str, str] = {k: s.label for k, s in SETS.items()}
#: Role key -> what reports call the set unless the user named it.
DEFAULT_SET_NAMES: dict[str, str] = {s.role: s.default_name for s in SETS.values()}
#: Letter -> the legend of its records' search among the training records.
SEARCH_NAMES: dict[str, str] = {k: s.search for k, s in SETS.items()}
