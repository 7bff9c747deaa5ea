"""Tests of synthpriv_report.core.validation and of the declarations built on it: the Evaluation's settings
(evaluation.SETTINGS), the reduction parameters of results() (params.result_params) and prepare's row_order.

The invalid values are derived from the declarations themselves: for every declared setting or parameter, the
values just outside each bound, the wrong types and the unknown options or names; an independent reading of the
constraints (``accepts`` below) keeps only the candidates that no alternative of the declaration allows. Each
must be refused by an error naming the setting; the defaults and the closed bounds must be accepted.
"""

from __future__ import annotations

import ast
import inspect
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import pytest
from _support.paths import ROOT

from synthpriv_report import Evaluation
from synthpriv_report.core.params import STRUCTURAL, merge_params, result_params, validate_params
from synthpriv_report.core.registry import Param, declared_params, metric_names
from synthpriv_report.core.validation import (
    NONE,
    AnyOf,
    Boolean,
    Check,
    Constraint,
    InstanceOf,
    Interval,
    MappingOf,
    Name,
    Names,
    NoneValue,
    Options,
    Setting,
    Text,
    check,
    quote,
    validate_all,
)
from synthpriv_report.data.preparation import ROW_ORDER
from synthpriv_report.evaluation.evaluation import SETTINGS

PACKAGE = ROOT / "synthpriv_report"
KNOWN = {"metric": metric_names(), "column": ["a", "k", "s"], "analysed column": ["a", "k", "s"]}


# ---------------------------------------------------------------------------------------------------------------
# an independent reading of the constraints, and the candidates derived from them


def accepts(c: Constraint, v: Any) -> bool | None:
    """Whether ``c`` allows ``v``, read from the constraint's fields (None: a rule of its own, not judged here)."""
    if isinstance(c, NoneValue):
        return v is None
    if isinstance(c, Boolean):
        return isinstance(v, (bool, np.bool_))
    if isinstance(c, Interval):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
            return False
        if c.kind == "int" and not isinstance(v, (int, np.integer)):
            if not (c.whole_floats and math.isfinite(v) and float(v).is_integer()):
                return False
        if not math.isfinite(float(v)):
            return False
        lo_ok = c.low is None or (v > c.low if c.low_open else v >= c.low)
        hi_ok = c.high is None or (v < c.high if c.high_open else v <= c.high)
        return lo_ok and hi_ok
    if isinstance(c, Options):
        return isinstance(v, str) and v in c.values
    if isinstance(c, Text):
        return isinstance(v, str) and bool(v.strip())
    if isinstance(c, InstanceOf):
        return isinstance(v, c.cls)
    if isinstance(c, Name):
        return isinstance(v, str) and (c.what not in KNOWN or v in KNOWN[c.what])
    if isinstance(c, Names):
        if isinstance(v, (str, bytes, Mapping)) or not isinstance(v, (list, tuple)):
            return False
        return (all(isinstance(x, str) for x in v) and len(set(v)) == len(v) and (bool(v) or not c.nonempty)
                and all(x in KNOWN.get(c.what, [x]) for x in v))
    if isinstance(c, MappingOf):
        if not isinstance(v, Mapping):
            return False
        parts = [accepts(c.keys, k) for k in v] + [accepts(c.values, x) for x in v.values()]
        return None if None in parts else all(parts)
    if isinstance(c, AnyOf):
        votes = [accepts(o, v) for o in c.options]
        return True if True in votes else (None if None in votes else False)
    return None


class Unrelated:
    """A value of no kind any constraint allows (with a stable repr, so that test ids are the same everywhere)."""

    def __repr__(self) -> str:
        return "<Unrelated>"


def candidates(c: Constraint) -> list[Any]:
    """Values just outside the constraint: beyond each bound, of the wrong type, unknown options and names."""
    out: list[Any] = [Unrelated(), "not-a-valid-value"]
    if isinstance(c, Interval):
        for bound, is_open, step in ((c.low, c.low_open, -1), (c.high, c.high_open, 1)):
            if bound is None:
                continue
            if is_open:
                out.append(type(bound)(bound) if c.kind == "real" else int(bound))
            elif c.kind == "int":
                out.append(int(bound) + step)
            else:
                out.append(float(np.nextafter(bound, step * np.inf)))
        out += [str(c.low if c.low is not None else 1), True, None, float("nan"), float("inf"), -float("inf")]
        if c.kind == "int":
            out += [1.5, (c.low or 0) + 0.5, np.float64(2.5)]
    elif isinstance(c, Options):
        out += [3, None, c.values[0].upper() if c.values[0].upper() != c.values[0] else c.values[0] + "x",
                " " + c.values[0], list(c.values)]
    elif isinstance(c, Boolean):
        out += [1, 0, "True", None, np.int64(1)]
    elif isinstance(c, Text):
        out += ["", "   ", 3, None]
    elif isinstance(c, (Names, Name)):
        known = KNOWN.get(c.what, ["x"])
        out += [3, None, [3], ["no-such-name"], "single", [known[0], known[0]] if isinstance(c, Names) else 3]
        if isinstance(c, Names) and c.nonempty:
            out.append([])
    elif isinstance(c, MappingOf):
        key = next(iter(candidates_valid(c.keys)), None)
        val = next(iter(candidates_valid(c.values)), None)
        out += [3, [("a", "b")], {"no-such-key": val}]
        out += [{key: bad} for bad in candidates(c.values)]
    elif isinstance(c, AnyOf):
        for o in c.options:
            out += candidates(o)
    elif isinstance(c, InstanceOf):
        out += [3, "x"]
    return out


def candidates_valid(c: Constraint) -> list[Any]:
    """Values the constraint allows: each closed bound and a point inside, each option, known names."""
    if isinstance(c, Interval):
        lo = c.low if c.low is not None else (c.high - 10 if c.high is not None else 0)
        hi = c.high if c.high is not None else lo + 10
        mid = (lo + hi) / 2
        out = [int(mid) if c.kind == "int" else mid]
        if c.low is not None and not c.low_open:
            out.append(int(c.low) if c.kind == "int" else float(c.low))
        if c.high is not None and not c.high_open:
            out.append(int(c.high) if c.kind == "int" else float(c.high))
        return [v for v in out if accepts(c, v)]
    if isinstance(c, Options):
        return list(c.values)
    if isinstance(c, Boolean):
        return [True, False, np.bool_(True)]
    if isinstance(c, NoneValue):
        return [None]
    if isinstance(c, Text):
        return ["a name"]
    if isinstance(c, Names):
        return [KNOWN.get(c.what, ["x"])[:2]] + ([] if c.nonempty else [[]])
    if isinstance(c, Name):
        return [KNOWN.get(c.what, ["x"])[0]]
    if isinstance(c, AnyOf):
        return [v for o in c.options for v in candidates_valid(o)]
    return []


def declarations() -> list[tuple[str, Setting | Param, Mapping[str, Any]]]:
    out: list[tuple[str, Setting | Param, Mapping[str, Any]]] = [
        ("settings", s, KNOWN) for s in SETTINGS.values()]
    out += [("params", p, {}) for p in declared_params().values()]
    out += [("prepare", ROW_ORDER, {})]
    return out


def _constraint(d: Setting | Param) -> Constraint:
    return d.constraint


INVALID = [(where, d, v) for where, d, known in declarations() for v in candidates(_constraint(d))
           if accepts(_constraint(d), v) is False]


def _id(case: tuple[str, Any, Any]) -> str:
    return f"{case[0]}:{case[1].name}={quote(case[2])[:30]}"


# ---------------------------------------------------------------------------------------------------------------
# the derived values


@pytest.mark.parametrize("case", INVALID, ids=[_id(c) for c in INVALID])
def test_every_value_outside_a_declaration_is_refused_naming_it(case) -> None:
    where, d, v = case
    with pytest.raises((TypeError, ValueError)) as info:
        check(d.name, v, d.constraint, KNOWN if where == "settings" else None)
    msg = str(info.value)
    assert msg.startswith(f"{d.name} must be ") or msg.startswith(f"{d.name}[")
    assert ", got " in msg
    c = d.constraint
    if isinstance(c, (Interval, Options, Boolean)):  # one alternative: the words and the exact kind of error
        assert msg.startswith(f"{d.name} must be {c.words()}, got ")
        wrong_type = isinstance(c, Boolean) or (isinstance(c, Interval) and (
            isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating))
            or c.kind == "int" and not isinstance(v, (int, np.integer)) and not (
                c.whole_floats and math.isfinite(v) and float(v).is_integer())))
        assert info.type is (TypeError if wrong_type else ValueError), msg


def test_there_are_values_derived_for_every_declaration() -> None:
    counts = {(w, d.name): 0 for w, d, _ in declarations()}
    for w, d, _ in INVALID:
        counts[(w, d.name)] += 1
    # pairing's, client's and context's rules are their own (Check, tested below and in test_dossier); every other
    # declaration has several
    assert all(n >= 3 for (w, name), n in counts.items() if name not in ("pairing", "client", "context")), counts
    bounds = [(d.name, v) for w, d, v in INVALID if isinstance(d.constraint, Interval) and d.constraint.low
              is not None and isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
              and v <= d.constraint.low]
    assert {"alpha", "n_bootstrap", "nndr_threshold", "risk_percentile", "nndr_k", "max_rows"} <= {n for n, _ in bounds}


@pytest.mark.parametrize("where, d, known", declarations(), ids=[f"{w}:{d.name}" for w, d, _ in declarations()])
def test_defaults_and_closed_bounds_are_accepted(where, d, known) -> None:
    assert check(d.name, d.default, d.constraint, known) == d.default or isinstance(d.default, np.random.Generator)
    for v in candidates_valid(d.constraint):
        got = check(d.name, v, d.constraint, known)
        assert got == v or (isinstance(v, (list, tuple)) and list(got) == list(v)), (v, got)


@pytest.mark.parametrize("name", list(declared_params()))
def test_results_parameters_are_refused_by_validate_params_with_the_same_message(name) -> None:
    p = declared_params()[name]
    bad = [v for v in candidates(p.constraint) if accepts(p.constraint, v) is False]
    for v in bad:
        with pytest.raises((TypeError, ValueError)) as direct:
            p.validate(v)
        with pytest.raises(direct.type, match=f"^{name} must be "):
            validate_params({name: v})
        with pytest.raises(direct.type):
            merge_params({name: v})
    assert validate_params({name: p.default}) == {name: p.default}


def test_param_words_and_types_are_as_declared() -> None:
    a = Param("a", 0.1, low=0.0, high=1.0, low_open=True, high_open=True)
    assert a.allowed() == "a number in (0, 1)" and a.validate(np.float32(0.5)) == 0.5
    assert type(a.validate(np.float64(0.25))) is float and type(Param("x", 1.0).validate(np.int64(2))) is float
    n = Param("n", 10, kind="int", low=10, high=100_000)
    assert n.validate(100.0) == 100 and type(n.validate(100.0)) is int  # a whole float, from a slider or JSON
    assert n.allowed() == "an integer in [10, 100000]"
    with pytest.raises(TypeError, match=r"^n must be an integer in \[10, 100000\], got 10.5 \(float\)$"):
        n.validate(10.5)
    c = Param("c", "mean", kind="choice", choices=("mean", "median"))
    assert c.allowed() == "one of 'mean', 'median'"
    with pytest.raises(ValueError, match=r"^c must be one of 'mean', 'median', got 'mode'$"):
        c.validate("mode")


# ---------------------------------------------------------------------------------------------------------------
# the constraints' own behaviour


def test_message_shape_for_each_constraint() -> None:
    cases = [
        (Interval("int", 1), "x", TypeError, "k must be an integer in [1, inf), got 'x' (str)"),
        (Interval("real", 0, 1, low_open=True), 0, ValueError, "k must be a number in (0, 1], got 0"),
        (Interval("real", None, 1), float("nan"), ValueError, "k must be a number in (-inf, 1], got nan"),
        (Boolean(), 1, TypeError, "k must be True or False, got 1 (int)"),
        (Options(("a", "b")), "c", ValueError, "k must be one of 'a', 'b', got 'c'"),
        (Text(), " ", ValueError, "k must be a non-empty string, got ' '"),
        (Names("metric"), ["dcr", 3], TypeError, "k must be a list of metric names, got an item 3 (int)"),
        (Names("metric"), ["dcr", "dcr"], ValueError, "k must be a list of metric names, got 'dcr' more than once"),
        (Names("metric", nonempty=True), [], ValueError,
         "k must be a list of metric names, got an empty list (name at least one metric)"),
        (MappingOf(Options(("real",)), Text(), "a dict {set: name}"), {"reel": "x"}, ValueError,
         "k must be a dict {set: name}, got the key 'reel'"),
        (MappingOf(Options(("real",)), Text(), "a dict {set: name}"), {"real": 3}, TypeError,
         "k['real'] must be a non-empty string, got 3 (int)"),
        (AnyOf((NONE, Interval("int", 0))), -1, ValueError, "k must be None or an integer in [0, inf), got -1"),
        (AnyOf((NONE, Interval("int", 0))), "x", TypeError, "k must be None or an integer in [0, inf), got 'x' (str)"),
        (AnyOf((NONE, Names("metric"))), "dcr", TypeError,
         "k must be a list of metric names, got the string 'dcr' (write ['dcr'])"),
    ]
    for c, v, exc, msg in cases:
        with pytest.raises(exc) as info:
            check("k", v, c, {"metric": ["dcr", "nndr"]})
        assert str(info.value) == msg


def test_unknown_names_are_told_with_a_close_match_and_the_known_ones() -> None:
    with pytest.raises(ValueError) as info:
        check("metrics", ["dcr", "nndrr"], Names("metric"), {"metric": ["dcr", "nndr"]})
    assert str(info.value) == ("metrics must be a list of metric names, got an unknown metric 'nndrr' (did you mean "
                               "'nndr'?); known metrics: 'dcr', 'nndr'")
    # without the known names only the form is checked (columns are known once the data are read)
    assert check("key_fields", ["anything"], Names("analysed column")) == ["anything"]


def test_a_long_value_is_quoted_cut() -> None:
    with pytest.raises(ValueError) as info:
        check("engine", "x" * 500, Options(("auto",)))
    assert len(str(info.value)) < 150 and str(info.value).endswith("...")


def test_conversions() -> None:
    assert check("n", np.int64(3), Interval("int", 1)) == 3 and type(check("n", np.int64(3), Interval("int", 1))) is int
    assert type(check("x", 1, Interval("real"))) is float
    assert check("b", np.bool_(True), Boolean()) is True
    seed = check("r", np.random.default_rng(5), SETTINGS["random_state"].constraint)
    assert isinstance(seed, int) and seed == check("r", np.random.default_rng(5), SETTINGS["random_state"].constraint)
    pairs = check("pairing", [[0, 1], [2, 3]], SETTINGS["pairing"].constraint)
    assert pairs.dtype == np.int64 and pairs.shape == (2, 2)
    with pytest.raises(ValueError, match=r"^pairing must be an integer array of \(real position, synthetic position\) "
                                         r"pairs, got an array of shape \(2,\) and dtype float64$"):
        check("pairing", [0.5, 1.0], SETTINGS["pairing"].constraint)


@pytest.mark.slow  # about half a second
def test_client_must_be_a_dask_client() -> None:
    pytest.importorskip("distributed")
    assert check("client", None, SETTINGS["client"].constraint) is None
    with pytest.raises(TypeError, match=r"^client must be a dask.distributed.Client, got str$"):
        check("client", "tcp://127.0.0.1:8786", SETTINGS["client"].constraint)


def test_check_passes_a_rule_s_own_errors_through() -> None:
    def rule(v: Any) -> Any:
        raise ValueError(f"levels['x'] is wrong: {v!r}")

    with pytest.raises(ValueError, match=r"^levels\['x'\] is wrong: 1$"):
        check("levels", 1, Check(rule, "a dict"))


def test_validate_all_fills_defaults_and_refuses_undeclared_names() -> None:
    decl = {"a": Setting("a", 1, Interval("int", 0)), "b": Setting("b", True, Boolean())}
    assert validate_all(decl, {"a": 4}) == {"a": 4, "b": True}
    with pytest.raises(ValueError, match=r"^unknown setting 'bb' \(did you mean 'b'\?\); known settings: a, b$"):
        validate_all(decl, {"bb": False})


# ---------------------------------------------------------------------------------------------------------------
# the declarations against the objects they declare


def test_settings_table_declares_every_keyword_of_evaluation_with_its_default() -> None:
    sig = inspect.signature(Evaluation.__init__)
    # ``reference`` is a data set, like ``holdout``: checked with the other sets, not as a setting
    keywords = {n: p.default for n, p in sig.parameters.items()
                if p.kind is inspect.Parameter.KEYWORD_ONLY and n != "reference"}
    assert list(keywords) == list(SETTINGS)
    assert {n: s.default for n, s in SETTINGS.items()} == keywords
    assert set(STRUCTURAL) <= set(SETTINGS)
    assert not set(SETTINGS) & set(result_params())  # a name is a setting or a parameter of results(), not both


def test_every_space_name_is_a_space() -> None:
    from synthpriv_report.spaces import as_space

    space = SETTINGS["spaces"].constraint.options[1]
    for name in space.options[0].values:
        assert as_space(name).kind == name


@pytest.fixture(scope="module")
def frames() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(1)

    def make(m: int) -> pd.DataFrame:
        return pd.DataFrame({"a": rng.normal(size=m), "k": rng.choice(list("xyz"), m), "s": rng.choice(list("pq"), m)})

    return make(30), make(30), make(20)


FIRST_BAD = {}
for _w, _d, _v in INVALID:
    if _w == "settings" and _d.name not in FIRST_BAD and _d.name not in ("client",):
        FIRST_BAD[_d.name] = _v


@pytest.mark.parametrize("name", list(FIRST_BAD))
def test_evaluation_refuses_a_derived_bad_setting_before_reading_the_data(frames, name, monkeypatch) -> None:
    import synthpriv_report.evaluation.evaluation as ev_module

    def never(*a: Any, **k: Any) -> None:
        raise AssertionError("the data were read before the settings were checked")

    monkeypatch.setattr(ev_module, "read_inputs", never)
    T, S, H = frames
    with pytest.raises((TypeError, ValueError), match=f"^{name}"):
        Evaluation(T, S, H, **{"progress": False, name: FIRST_BAD[name]})


def test_column_settings_are_checked_against_the_analysed_columns(frames) -> None:
    T, S, H = frames
    with pytest.raises(ValueError, match=r"^sensitive_fields must be a list of analysed column names, got an "
                                         r"unknown analysed column 'a'.*known analysed columns: 'k', 's'$"):
        Evaluation(T, S, H, progress=False, exclude=["a"], sensitive_fields=["a"])


# ---------------------------------------------------------------------------------------------------------------
# the layers of the base modules


def _package_imports(where: str) -> set[str]:
    """The last names of the package modules that ``where`` (a module file or a subpackage folder, relative to
    the package) imports, at the top or inside a function; a folder's imports of its own modules are left out."""
    path = PACKAGE / where
    files = sorted(path.glob("*.py")) if path.is_dir() else [path]
    own = path.relative_to(PACKAGE).parts if path.is_dir() else None
    out = set()
    for file in files:
        here = list(file.relative_to(PACKAGE).with_suffix("").parts)[:-1]  # the module's subpackage
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = here[: len(here) - (node.level - 1)]
                targets = [base + node.module.split(".")] if node.module else [base + [a.name] for a in node.names]
            elif (node.module or "").startswith("synthpriv_report."):
                targets = [node.module.split(".")[1:]]
            else:
                continue
            out |= {t[-1] for t in targets if own is None or tuple(t[: len(own)]) != own}
    return out


def test_base_modules_import_only_downward() -> None:
    assert _package_imports("core/validation.py") == set()
    assert _package_imports("core/protocols.py") == set()  # the context's typed face stands on nothing of the package
    assert _package_imports("core/registry.py") <= {"results", "validation", "evidence", "formats", "protocols"}
    assert _package_imports("core/params.py") <= {"evidence", "registry", "results", "validation"}
    assert "levels" not in _package_imports("core/params.py") and "params" not in _package_imports("core/registry.py")
    assert _package_imports("data") <= {"validation", "identity", "formats"}
