"""A report read back from JSON: each metric's stored numbers are checked against one another before it is graded.

A level graded from a stored bound is only as true as the bound. A report whose counts say "200 of 200 are exact
copies" but whose lower bound was edited to a negative number would be graded, and drawn, as low risk, so the
numbers a level rests on are computed again from the counts the report stores, by the functions that computed
them in the evaluation: each metric's level rule says how (``LevelSpec.rederive``, declared beside the rule in the
metric's module), and nothing here knows any metric's rule.

Every metric, whatever its rule, is also checked for numbers that cannot be true: a value outside the metric's
declared range, an interval that is inverted, leaves its range or does not hold its value, a share, rate, AUC or
p-value in the details outside [0, 1], an interval in the details that is inverted or does not hold the share it
belongs to, a count of records that is not a whole number, an excess over the calibration that is not the value
minus the calibration. A metric whose level rests on per-record arrays a report does not store (a bootstrap bound,
an AUC's variance) gets these checks only.

The first disagreement or impossible value is refused with an
:class:`~synthpriv_report.core.results.InconsistentReportError` that names the field (``metrics.exact_copies.details.
excess_lower_bound``), the stored number and the one its counts give.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..core.registry import MetricSpec, resolve_level
from ..core.results import InconsistentReportError, MetricResult
from ..text.templating import shorten_text

__all__ = ["check_stored_numbers", "field_name", "same_number"]

#: Relative and absolute tolerance of "the same number" (JSON keeps a float's 17 digits; the same functions on the
#: same counts may differ only in the last bits where an argument is a quotient made again).
REL_TOL = 1e-9
ABS_TOL = 1e-12

#: Names of details whose value is a share, a rate, a probability or an AUC: in [0, 1] when they are numbers.
_UNIT_NAMES = frozenset({"share", "tpr", "fpr", "p_value", "check_alpha", "auc", "recall", "precision"})


def field_name(parts: tuple[Any, ...]) -> str:
    """A field's path as the document's other messages write it: ``metrics.x.details.tpr_at.'0.01'.tpr``,
    ``metrics.x.interval[0]``.

    >>> field_name(("metrics", "exact_copies", "details", "tpr_at", "0.01", "tpr_interval", 1))
    "metrics.exact_copies.details.tpr_at.'0.01'.tpr_interval[1]"
    """
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        else:
            key = shorten_text(str(p), 40)
            out += ("." if out else "") + (key if key.replace("_", "").isalnum() else repr(key))
    return out or "(top level)"


def same_number(stored: Any, again: Any) -> bool:
    """Whether a stored field holds the number computed again (within :data:`REL_TOL`); a missing number (JSON
    null) matches a number that is not finite, a flag matches only the same flag.

    >>> same_number(0.1 + 0.2, 0.3), same_number(None, float("nan")), same_number(True, 1), same_number(0.5, 0.6)
    (True, True, False, False)
    """
    if isinstance(again, bool) or isinstance(stored, bool):
        return isinstance(again, bool) and isinstance(stored, bool) and stored == again
    if again is None or (isinstance(again, float) and not math.isfinite(again)):
        return stored is None or (isinstance(stored, float) and not math.isfinite(stored))
    if not _is_number(stored):
        return False
    return math.isclose(float(stored), float(again), rel_tol=REL_TOL, abs_tol=ABS_TOL)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _finite(v: Any) -> bool:
    return _is_number(v) and math.isfinite(float(v))


def _shown(v: Any) -> str:
    return "null" if v is None else shorten_text(repr(v), 60)


def _lookup(document_metric: Mapping[str, Any], path: tuple[Any, ...]) -> tuple[bool, Any]:
    """The stored value at ``path`` inside a metric's JSON form: (found, value)."""
    node: Any = document_metric
    for p in path:
        if isinstance(p, int):
            if not isinstance(node, list) or not -len(node) <= p < len(node):
                return False, None
            node = node[p]
        else:
            if not isinstance(node, Mapping) or p not in node:
                return False, None
            node = node[p]
    return True, node


def check_stored_numbers(spec: MetricSpec, stored: Mapping[str, Any], result: MetricResult, *,
                         columns: frozenset[str] | None = None) -> None:
    """Refuse a computed metric of a report read back whose stored numbers cannot be true together.

    Parameters
    ----------
    spec : MetricSpec
        The metric's declaration in this version of the package (its range and its level rule).
    stored : mapping
        The metric's JSON form as stored in the document (``document["metrics"][name]``).
    result : MetricResult
        The same result rebuilt from it (the object a level rule reads).
    columns : frozenset of str, optional
        The names of the data's columns (the document's ``meta.columns``). Details keyed by column (a tolerance
        per column, a risk per sensitive field) may use any name, so below the top level of the details a key
        that is a column's name is not read as a share or a count; without the names, only the top level is
        checked by name (the re-derivation still reads what it reads).

    Raises
    ------
    InconsistentReportError
        At the first impossible value or disagreement, in this order: the declared range, the value, the
        interval, the details' shares, intervals and counts, the excess over the calibration, and the numbers
        the level rule computes again from the stored counts (``LevelSpec.rederive``); ``field`` is the path
        from the document's top (``("metrics", name, "details", "excess_lower_bound")``).
    """
    top = ("metrics", spec.name)
    try:
        _check_range(spec, result)
        _check_details(result.details, ("details",), columns)
        _check_calibration(result)
        _check_again(spec, stored, result)
    except InconsistentReportError as exc:
        path = (*top, *exc.field)
        raise InconsistentReportError(f"field {field_name(path)} {exc}", path) from None


def _check_range(spec: MetricSpec, r: MetricResult) -> None:
    lo, hi = (float(v) for v in spec.value_range)
    if tuple(float(v) for v in r.value_range) != (lo, hi):
        raise InconsistentReportError(f"is [{_bound(r.value_range[0])}, {_bound(r.value_range[1])}] but "
                                      f"{spec.name!r} takes values in [{_bound(lo)}, {_bound(hi)}]",
                                      ("value_range",))
    v = float(r.value) if r.value is not None else float("nan")
    if not lo <= v <= hi:
        raise InconsistentReportError(f"is {_shown(r.value)}, outside the metric's range [{_bound(lo)}, "
                                      f"{_bound(hi)}]", ("value",))
    if r.interval is None:
        return
    a, b = r.interval
    for i, end in enumerate((a, b)):
        if not math.isfinite(end):
            raise InconsistentReportError(f"is {_shown(None if math.isnan(end) else end)}, not a finite number",
                                          ("interval", i))
        if not lo <= end <= hi:
            raise InconsistentReportError(f"is {end!r}, outside the metric's range [{_bound(lo)}, {_bound(hi)}]",
                                          ("interval", i))
    if a > b:
        raise InconsistentReportError(f"is [{a!r}, {b!r}]: an interval whose lower end is above its upper end",
                                      ("interval",))
    if not (_at_most(a, v) and _at_most(v, b)):
        raise InconsistentReportError(f"is [{a!r}, {b!r}], which does not contain the value {v!r}", ("interval",))


def _bound(v: float) -> str:
    return "-inf" if v == -math.inf else "inf" if v == math.inf else f"{v:g}"


def _at_most(a: float, b: float) -> bool:
    """``a <= b`` up to the tolerance of :func:`same_number`."""
    return a <= b or math.isclose(a, b, rel_tol=REL_TOL, abs_tol=ABS_TOL)


def _check_details(node: Mapping[str, Any], where: tuple[Any, ...], columns: frozenset[str] | None) -> None:
    """Shares in [0, 1], counts whole and not negative, intervals ordered and holding their share, recursively
    (below the top level of the details, a key that names a column is not read by its name)."""
    nested = len(where) > 1
    for key, v in node.items():
        path = (*where, key)
        if isinstance(v, Mapping):
            if columns is not None:
                _check_details(v, path, columns)
            continue
        if nested and (columns is None or key in columns):
            continue
        if _is_interval_name(key) and isinstance(v, list) and len(v) == 2 and all(_finite(e) for e in v):
            a, b = float(v[0]), float(v[1])
            if a > b:
                raise InconsistentReportError(f"is [{a!r}, {b!r}]: an interval whose lower end is above its upper "
                                              f"end", path)
            if _is_unit_name(key) and not (0.0 <= a and b <= 1.0):
                raise InconsistentReportError(f"is [{a!r}, {b!r}], outside [0, 1]", path)
            of = _interval_of(node, key)
            if of is not None and _finite(node[of]) and not (_at_most(a, node[of]) and _at_most(node[of], b)):
                raise InconsistentReportError(f"is [{a!r}, {b!r}], which does not contain {of} = {node[of]!r}",
                                              path)
            continue
        if not _finite(v):
            continue
        if _is_unit_name(key) and not 0.0 <= float(v) <= 1.0:
            raise InconsistentReportError(f"is {v!r}, outside [0, 1]", path)
        if _is_count_name(key) and (float(v) < 0 or float(v) != math.floor(float(v))):
            raise InconsistentReportError(f"is {v!r}, not a whole number of records", path)


def _is_interval_name(key: str) -> bool:
    return key.endswith("_interval") or key.endswith("_ci")


def _is_unit_name(key: str) -> bool:
    """A share, rate or probability by its name: ``share``, ``*_share``, ``tpr``, ``p_value``, ... (and their
    intervals, ``*_share_interval``, ``tpr_interval``)."""
    stem = key.removesuffix("_interval")
    return stem in _UNIT_NAMES or stem.endswith("_share")


def _is_count_name(key: str) -> bool:
    """A count of records by its name: ``n`` or ``n_*`` (an effective number of records excepted)."""
    return (key == "n" or key.startswith("n_")) and "effective" not in key


def _interval_of(node: Mapping[str, Any], key: str) -> str | None:
    """The share an interval of the details belongs to (``tpr_interval``: ``tpr``; ``baseline_interval``:
    ``baseline_share``), when it is one of the details beside it; bootstrap intervals (``*_ci``) need not hold
    their statistic and have none."""
    if not key.endswith("_interval"):
        return None
    stem = key.removesuffix("_interval")
    for candidate in (stem, f"{stem}_share"):
        if candidate in node and _is_unit_name(candidate):
            return candidate
    return None


def _check_calibration(r: MetricResult) -> None:
    """The excess over the calibration (the same metric with fresh real records in place of the synthetic ones)
    is the value minus the calibration's value."""
    excess = r.details.get("excess_over_calibration")
    if r.calibration is None or not _finite(excess) or r.value is None:
        return
    again = float(r.value) - float(r.calibration)
    if not same_number(excess, again):
        raise InconsistentReportError(f"is {excess!r} but the value minus the calibration is {again!r}",
                                      ("details", "excess_over_calibration"))


def _check_again(spec: MetricSpec, stored: Mapping[str, Any], r: MetricResult) -> None:
    """The numbers the metric's level rule computes again from the stored counts, each against its field."""
    rule = resolve_level(spec, r)
    if rule is None or rule.rederive is None:
        return
    try:
        again = rule.rederive(r)
    except InconsistentReportError:
        raise
    except (TypeError, ValueError, KeyError, ArithmeticError) as exc:
        raise InconsistentReportError(f"cannot be computed again from its stored counts and statistics "
                                      f"({type(exc).__name__}: {shorten_text(str(exc), 120)})", ("details",)) from None
    for path, value in again.items():
        found, have = _lookup(stored, path)
        if not found:
            raise InconsistentReportError(f"is missing; its stored counts and statistics give {_shown(value)}",
                                          path)
        if not same_number(have, value):
            raise InconsistentReportError(f"is {_shown(have)} but its stored counts and statistics give "
                                          f"{_shown(value)}", path)
