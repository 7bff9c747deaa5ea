"""Constraints on settings and parameters, declared as data and checked in one place.

Every value a user gives (an :class:`~synthpriv_report.evaluation.evaluation.Evaluation` setting, a reduction parameter
of
``results()``, an argument of :func:`~synthpriv_report.data.preparation.prepare`) is declared with a
:class:`Constraint`: an
:class:`Interval` of integers or real numbers with open or closed ends, :class:`Options` (a fixed set of strings),
:class:`Boolean`, :class:`Names` (a list of known names: columns, metrics), :class:`Text`, :class:`MappingOf`,
:class:`InstanceOf`, :data:`NONE`, :class:`AnyOf` (one of several) and :class:`Check` (a structure with its own
rule, such as ``levels=``). A constraint only describes what it allows (:meth:`Constraint.words`) and converts an
accepted value; :func:`check` turns a refusal into the one message shape::

    {name} must be {what it allows}, got {the value received}

a ``TypeError`` when the value is of the wrong kind (its type is then named too), a ``ValueError`` when it is of
the right kind but outside what is allowed. The constraints are plain frozen dataclasses, so tests can read their
bounds and options and derive the values just outside them.

This module sits at the base of the package: it imports nothing from it.

>>> check("alpha", 0.2, Interval("real", 0.0, 1.0, low_open=True, high_open=True))
0.2
>>> check("alpha", 1.5, Interval("real", 0.0, 1.0, low_open=True, high_open=True))
Traceback (most recent call last):
...
ValueError: alpha must be a number in (0, 1), got 1.5
"""

from __future__ import annotations

import difflib
import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

#: Longest quoted value in a message (a longer ``repr`` is cut, with an ellipsis).
QUOTE_CHARS = 80

#: What a constraint may look up at validation time: ``{what: known names}`` (e.g. ``{"metric": [...]}``).
Known = Mapping[str, Sequence[str]]


class Refused(Exception):
    """A constraint's refusal of a value, turned into a message by :func:`check`.

    Parameters
    ----------
    kind : type
        ``TypeError`` (the value is of the wrong kind) or ``ValueError`` (right kind, not allowed).
    got : str, optional
        How the value received is told (default: its ``repr``, with the type for a ``TypeError``).
    hint : str
        Text after the value (a close match, the known names).
    where : str
        A part of the value the refusal is about (``"['real']"`` for one entry of a dict).
    words : str, optional
        What that part allows, when it differs from the whole constraint's words.
    """

    def __init__(self, kind: type[Exception], got: str | None = None, *, hint: str = "", where: str = "",
                 words: str | None = None) -> None:
        super().__init__(got)
        self.kind = kind
        self.got = got
        self.hint = hint
        self.where = where
        self.words = words


def quote(value: Any) -> str:
    """``repr(value)``, cut to :data:`QUOTE_CHARS` characters.

    >>> quote("x" * 100)[-4:]
    'x...'
    """
    text = repr(value)
    return text if len(text) <= QUOTE_CHARS else text[:QUOTE_CHARS] + "..."


def _got(value: Any, kind: type[Exception]) -> str:
    return f"{quote(value)} ({type(value).__name__})" if kind is TypeError else quote(value)


class Constraint(ABC):
    """What a setting or parameter allows (the base of the constraints below)."""

    @abstractmethod
    def words(self) -> str:
        """What the constraint allows, in words that follow "must be"."""

    @abstractmethod
    def convert(self, value: Any, known: Known) -> Any:
        """``value`` checked and normalised; a :class:`Refused` when the constraint does not allow it."""


def check(name: str, value: Any, constraint: Constraint, known: Known | None = None) -> Any:
    """``value`` checked against ``constraint`` and normalised; an error naming ``name`` otherwise.

    Parameters
    ----------
    name : str
        The setting or parameter, as the user wrote it.
    value : object
        The value received.
    constraint : Constraint
        What is allowed.
    known : mapping, optional
        Known names for :class:`Names` constraints, ``{what: names}``; a :class:`Names` whose list is not given
        here checks the form of the value only.

    Returns
    -------
    object
        The normalised value (an ``int`` for an integer interval, a ``float`` for a real one, a list of names...).

    Raises
    ------
    TypeError
        The value is of the wrong kind: ``"{name} must be {allowed}, got {value!r} ({type})"``.
    ValueError
        The value is of the right kind but not allowed: ``"{name} must be {allowed}, got {value!r}"``.

    >>> check("nndr_k", 0, Interval("int", 1))
    Traceback (most recent call last):
    ...
    ValueError: nndr_k must be an integer in [1, inf), got 0
    >>> check("engine", 3, Options(("auto", "tree")))
    Traceback (most recent call last):
    ...
    ValueError: engine must be one of 'auto', 'tree', got 3
    """
    try:
        return constraint.convert(value, known or {})
    except Refused as r:
        words = r.words if r.words is not None else constraint.words()
        got = r.got if r.got is not None else _got(value, r.kind)
        raise r.kind(f"{name}{r.where} must be {words}, got {got}{r.hint}") from None


# ---------------------------------------------------------------------------------------------------------------
# the constraints


def _is_number(value: Any) -> bool:
    return (isinstance(value, (int, float, np.integer, np.floating))
            and not isinstance(value, (bool, np.bool_)))


@dataclass(frozen=True)
class Interval(Constraint):
    """A number in a range.

    Parameters
    ----------
    kind : {"int", "real"}
        An integer (converted to ``int``) or a real number (converted to ``float``; it must be finite).
    low, high : float, optional
        The ends of the range (``None``: unbounded on that side).
    low_open, high_open : bool
        Whether the range excludes ``low`` / ``high``.
    whole_floats : bool
        For ``kind="int"``: a float with a whole value (``100.0``) is read as that integer.

    >>> Interval("real", 0.0, 100.0, low_open=True, high_open=True).words()
    'a number in (0, 100)'
    >>> check("n", 100.0, Interval("int", 10, whole_floats=True))
    100
    """

    kind: Literal["int", "real"] = "real"
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    whole_floats: bool = False

    def words(self) -> str:
        what = "an integer" if self.kind == "int" else "a number"
        if self.low is None and self.high is None:
            return what
        lo = "-inf" if self.low is None else f"{self.low:g}"
        hi = "inf" if self.high is None else f"{self.high:g}"
        left = "(" if (self.low_open or self.low is None) else "["
        right = ")" if (self.high_open or self.high is None) else "]"
        return f"{what} in {left}{lo}, {hi}{right}"

    def contains(self, v: float) -> bool:
        """Whether the number ``v`` (already of the right kind) is in the range."""
        if not math.isfinite(v):
            return False
        if self.low is not None and (v <= self.low if self.low_open else v < self.low):
            return False
        return not (self.high is not None and (v >= self.high if self.high_open else v > self.high))

    def convert(self, value: Any, known: Known) -> Any:
        if not _is_number(value):
            raise Refused(TypeError)
        v: int | float
        if self.kind == "int":
            if isinstance(value, (int, np.integer)):
                v = int(value)
            elif self.whole_floats and math.isfinite(float(value)) and float(value).is_integer():
                v = int(value)
            else:
                raise Refused(TypeError)
        else:
            try:
                v = float(value)
            except OverflowError:
                raise Refused(ValueError) from None
        if not self.contains(v):
            raise Refused(ValueError)
        return v


@dataclass(frozen=True)
class Options(Constraint):
    """One of a fixed set of strings (anything else, a string or not, is a ``ValueError``).

    >>> Options(("mean", "median")).words()
    "one of 'mean', 'median'"
    """

    values: tuple[str, ...]

    def words(self) -> str:
        return "one of " + ", ".join(repr(v) for v in self.values)

    def convert(self, value: Any, known: Known) -> Any:
        if not isinstance(value, str) or value not in self.values:
            raise Refused(ValueError)
        return value


@dataclass(frozen=True)
class Boolean(Constraint):
    """``True`` or ``False`` (numbers and strings are refused; a NumPy boolean becomes a ``bool``)."""

    def words(self) -> str:
        return "True or False"

    def convert(self, value: Any, known: Known) -> Any:
        if not isinstance(value, (bool, np.bool_)):
            raise Refused(TypeError)
        return bool(value)


@dataclass(frozen=True)
class NoneValue(Constraint):
    """``None`` (a setting left unset)."""

    def words(self) -> str:
        return "None"

    def convert(self, value: Any, known: Known) -> Any:
        if value is not None:
            raise Refused(TypeError)
        return None


#: The constraint that allows ``None``.
NONE = NoneValue()


@dataclass(frozen=True)
class Text(Constraint):
    """A string with at least one character that is not blank."""

    def words(self) -> str:
        return "a non-empty string"

    def convert(self, value: Any, known: Known) -> Any:
        if not isinstance(value, str):
            raise Refused(TypeError)
        if not value.strip():
            raise Refused(ValueError)
        return value


@dataclass(frozen=True)
class InstanceOf(Constraint):
    """An instance of a class, optionally converted (a ``numpy.random.Generator`` into a seed, say).

    Parameters
    ----------
    cls : type
        The class.
    description : str
        The class in words ("a numpy.random.Generator").
    then : callable, optional
        ``then(value) -> object``: the conversion of an accepted value.
    """

    cls: type
    description: str
    then: Callable[[Any], Any] | None = None

    def words(self) -> str:
        return self.description

    def convert(self, value: Any, known: Known) -> Any:
        if not isinstance(value, self.cls):
            raise Refused(TypeError)
        return value if self.then is None else self.then(value)


@dataclass(frozen=True)
class Names(Constraint):
    """A list of distinct names, each a string; those known are checked when the list is known.

    Parameters
    ----------
    what : str
        What is named, in the singular ("metric", "column", "analysed column"); also the key of the known
        names in :func:`check`'s ``known`` (without it only the list's form is checked).
    nonempty : bool
        An empty list is refused (its message asks for at least one name).

    A single string is refused (``metrics="dcr"`` would read as the names 'd', 'c', 'r').

    >>> check("metrics", ["dcr", "nndr"], Names("metric"), {"metric": ["dcr", "nndr", "exact_copies"]})
    ['dcr', 'nndr']
    >>> check("metrics", "dcr", Names("metric"))
    Traceback (most recent call last):
    ...
    TypeError: metrics must be a list of metric names, got the string 'dcr' (write ['dcr'])
    """

    what: str
    nonempty: bool = False

    def words(self) -> str:
        return f"a list of {self.what} names"

    def convert(self, value: Any, known: Known) -> Any:
        if isinstance(value, (str, bytes)):
            raise Refused(TypeError, f"the string {quote(value)} (write [{quote(value)}])")
        if not isinstance(value, Iterable):
            raise Refused(TypeError)
        items = list(value)
        for v in items:
            if not isinstance(v, str):
                raise Refused(TypeError, f"an item {quote(v)} ({type(v).__name__})")
        if self.nonempty and not items:
            raise Refused(ValueError, f"an empty list (name at least one {self.what})")
        if self.what in known:
            names = list(known[self.what])
            bad = [v for v in items if v not in names]
            if bad:
                close = difflib.get_close_matches(bad[0], names, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise Refused(ValueError, f"an unknown {self.what} {', '.join(map(quote, bad))}",
                              hint=f"{hint}; known {self.what}s: {', '.join(map(quote, names))}")
        dup = sorted({v for v in items if items.count(v) > 1})
        if dup:
            raise Refused(ValueError, f"{', '.join(map(quote, dup))} more than once")
        return items


@dataclass(frozen=True)
class Name(Constraint):
    """One name, a string; checked against the known ones of its kind when they are known (see :class:`Names`).

    >>> check("metric", "dcrr", Name("metric"), {"metric": ["dcr"]})
    Traceback (most recent call last):
    ...
    ValueError: metric must be a metric name, got an unknown metric 'dcrr' (did you mean 'dcr'?); known metrics: 'dcr'
    """

    what: str

    def words(self) -> str:
        return f"a {self.what} name"

    def convert(self, value: Any, known: Known) -> Any:
        if not isinstance(value, str):
            raise Refused(TypeError)
        if self.what in known and value not in known[self.what]:
            names = list(known[self.what])
            close = difflib.get_close_matches(value, names, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise Refused(ValueError, f"an unknown {self.what} {quote(value)}",
                          hint=f"{hint}; known {self.what}s: {', '.join(map(quote, names))}")
        return value


@dataclass(frozen=True)
class MappingOf(Constraint):
    """A dict whose keys and values each meet a constraint; a bad entry's message names the entry.

    Parameters
    ----------
    keys, values : Constraint
        What each key and each value allows.
    description : str
        The dict in words ("a dict {metric: space}").

    >>> check("names", {"real": ""}, MappingOf(Options(("real", "synthetic")), Text(), "a dict {set: name}"))
    Traceback (most recent call last):
    ...
    ValueError: names['real'] must be a non-empty string, got ''
    """

    keys: Constraint
    values: Constraint
    description: str

    def words(self) -> str:
        return self.description

    def convert(self, value: Any, known: Known) -> Any:
        if not isinstance(value, Mapping):
            raise Refused(TypeError)
        out = {}
        for k, v in value.items():
            try:
                k = self.keys.convert(k, known)
            except Refused as r:
                raise Refused(ValueError, r.got or f"the key {quote(k)}", hint=r.hint) from None
            try:
                out[k] = self.values.convert(v, known)
            except Refused as r:
                raise Refused(r.kind, r.got if r.got is not None else _got(v, r.kind), hint=r.hint,
                              where=f"[{k!r}]" + r.where,
                              words=r.words if r.words is not None else self.values.words()) from None
        return out


@dataclass(frozen=True)
class Check(Constraint):
    """A structure with a rule of its own: ``rule(value) -> normalised value``, raising errors that name it.

    Parameters
    ----------
    rule : callable
        Checks and normalises; it raises ``TypeError``/``ValueError`` with its own message, or :class:`Refused`
        for the common message shape.
    description : str
        What the rule allows, in words.
    """

    rule: Callable[[Any], Any]
    description: str

    def words(self) -> str:
        return self.description

    def convert(self, value: Any, known: Known) -> Any:
        return self.rule(value)


@dataclass(frozen=True)
class AnyOf(Constraint):
    """A value meeting one of several constraints (the first that accepts it converts it).

    Parameters
    ----------
    options : tuple of Constraint
        The alternatives, in order.
    description : str, optional
        The alternatives in words (default: each one's words, joined).

    A refusal is a ``ValueError`` when some alternative took the value's kind (a number out of range), else a
    ``TypeError``. When one alternative refused with a message of its own (an unknown name in a list, say), that
    message is given.

    >>> check("n_components", 1.5, AnyOf((NONE, Interval("int", 1), Interval("real", 0, 1, low_open=True))))
    Traceback (most recent call last):
    ...
    ValueError: n_components must be None, an integer in [1, inf) or a number in (0, 1], got 1.5
    """

    options: tuple[Constraint, ...]
    description: str | None = None

    def words(self) -> str:
        if self.description is not None:
            return self.description
        parts = [c.words() for c in self.options]
        return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]

    def convert(self, value: Any, known: Known) -> Any:
        refusals = []
        for c in self.options:
            try:
                return c.convert(value, known)
            except Refused as r:
                refusals.append((c, r))
        detailed = [(c, ref) for c, ref in refusals if ref.got is not None or ref.where]
        if len(detailed) == 1:
            c, ref = detailed[0]
            raise Refused(ref.kind, ref.got, hint=ref.hint, where=ref.where, words=ref.words or c.words())
        kind = ValueError if any(ref.kind is ValueError for _, ref in refusals) else TypeError
        raise Refused(kind)


# ---------------------------------------------------------------------------------------------------------------
# declarations


@dataclass(frozen=True)
class Setting:
    """A declared setting: its name, default, constraint and one sentence on what it does.

    >>> Setting("max_rows", 20_000, Interval("int", 1)).validate(5)
    5
    """

    name: str
    default: Any
    constraint: Constraint
    doc: str = ""

    def validate(self, value: Any, known: Known | None = None) -> Any:
        """``value`` checked and normalised (:func:`check`)."""
        return check(self.name, value, self.constraint, known)


def validate_all(declared: Mapping[str, Setting], given: Mapping[str, Any], known: Known | None = None
                 ) -> dict[str, Any]:
    """Every declared setting, checked: the value given, or the default; an error for an undeclared name.

    Parameters
    ----------
    declared : mapping
        ``{name: Setting}``.
    given : mapping
        The values received (a name left out takes its default, which is checked too).
    known : mapping, optional
        Known names for :class:`Names` constraints.

    Returns
    -------
    dict
        ``{name: normalised value}`` in the declarations' order.
    """
    unknown = [k for k in given if k not in declared]
    if unknown:
        close = difflib.get_close_matches(str(unknown[0]), list(declared), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ValueError(f"unknown setting {unknown[0]!r}{hint}; known settings: {', '.join(declared)}")
    return {name: s.validate(given.get(name, s.default), known) for name, s in declared.items()}


__all__ = [
    "QUOTE_CHARS", "Known", "Refused", "quote", "Constraint", "check", "Interval", "Options", "Boolean",
    "NoneValue", "NONE", "Text", "InstanceOf", "Name", "Names", "MappingOf", "Check", "AnyOf", "Setting",
    "validate_all",
]
