"""The generator protocol (synthpriv_report/generators.py): each way of giving a generator, the seeds, the checks
on what a generator returns, the adapters (against small stand-in modules that follow each library's documented
API), and the two reference generators."""

from __future__ import annotations

import functools
import importlib.util
import math
import re
import sys
import time
import types

import numpy as np
import pandas as pd
import pytest

from synthpriv_report.evaluation.generators import (
    Generator,
    GeneratorError,
    GeneratorSpec,
    NoisyMarginals,
    SDVGenerator,
    SeedInfo,
    SequentialCART,
    SmartNoiseGenerator,
    SynthcityGenerator,
    as_generator,
    check_sample,
    global_seeds,
    laplace_counts,
)


def _frame() -> pd.DataFrame:
    return pd.DataFrame({"age": [23, 35, 47, 51, 62, 29], "job": ["a", "b", "a", "c", "b", "c"],
                         "score": [0.5, 1.5, 2.5, 3.5, 4.5, 5.5]})


class Returns:
    """A generator whose sample is whatever it is told to return (to exercise the output checks)."""

    def __init__(self, out: object) -> None:
        self.out = out

    def fit(self, frame: pd.DataFrame) -> Returns:
        return self

    def sample(self, n: int) -> object:
        return self.out


def _run(out: object, n: int = 6) -> pd.DataFrame:
    return as_generator(Returns(out), random_state=0).train_and_sample(_frame(), n, seed=1, run=3)[0]


# ---------------------------------------------------------------------------------------------------------------
# output checks


def test_a_sample_that_is_no_frame_is_named() -> None:
    with pytest.raises(GeneratorError, match=r"training run 3 \(seed 1\): sample\(\) must return a pandas "
                                             r"DataFrame, it returned builtins.list: \[1, 2\]"):
        _run([1, 2])


def test_missing_and_extra_columns_are_named() -> None:
    out = _frame().drop(columns=["job", "score"]).assign(salary=1, city="x")
    with pytest.raises(GeneratorError) as err:
        _run(out)
    assert str(err.value) == ("training run 3 (seed 1) lacks the real columns 'job', 'score' and has the columns "
                              "'salary', 'city' the real data lack")


def test_another_number_of_rows_says_asked_and_got() -> None:
    with pytest.raises(GeneratorError, match="6 rows were asked for, the sample has 4"):
        _run(_frame().head(4))


def test_a_non_numeric_value_in_a_numeric_column_names_the_column_and_value() -> None:
    out = _frame().astype({"age": object})
    out.loc[2, "age"] = "forty"
    with pytest.raises(GeneratorError, match="column 'age' is numeric in the real data but the sample holds "
                                             "non-numeric values: 'forty'"):
        _run(out)


def test_a_boolean_column_with_another_value_is_named() -> None:
    real = pd.DataFrame({"flag": [True, False]})
    with pytest.raises(GeneratorError, match="column 'flag' is boolean in the real data but the sample holds "
                                             "'maybe'"):
        check_sample(pd.DataFrame({"flag": ["maybe", True]}), real, 2)
    assert check_sample(pd.DataFrame({"flag": [1, 0]}), real, 2)["flag"].dtype == bool


def test_a_date_column_with_another_value_is_named() -> None:
    real = pd.DataFrame({"d": pd.to_datetime(["2020-01-01", "2021-01-01"])})
    with pytest.raises(GeneratorError, match="column 'd' holds dates in the real data but the sample holds 'soon'"):
        check_sample(pd.DataFrame({"d": ["2020-02-02", "soon"]}), real, 2)


def test_duplicated_sample_columns_are_named() -> None:
    out = pd.DataFrame([[1, 2]], columns=["a", "a"])
    with pytest.raises(GeneratorError, match="duplicated column names: 'a'"):
        check_sample(out, pd.DataFrame({"a": [1]}), 1)


@pytest.mark.slow  # about a second
def test_columns_in_another_order_are_reordered_and_dtypes_aligned() -> None:
    real = _frame()
    out = real[["score", "job", "age"]].astype({"age": float}).iloc[::-1]
    got = _run(out)
    assert list(got.columns) == list(real.columns)
    assert got["age"].dtype == real["age"].dtype
    assert got["age"].tolist() == real["age"].tolist()[::-1]
    assert isinstance(got.index, pd.RangeIndex)


def test_an_integer_column_with_fractions_stays_float() -> None:
    real = pd.DataFrame({"a": [1, 2]})
    assert check_sample(pd.DataFrame({"a": [1.5, 2.0]}), real, 2)["a"].tolist() == [1.5, 2.0]


def test_a_category_the_real_data_lack_is_kept() -> None:
    real = pd.DataFrame({"c": pd.Categorical(["x", "y"])})
    assert check_sample(pd.DataFrame({"c": ["x", "y"]}), real, 2)["c"].dtype == real["c"].dtype
    assert check_sample(pd.DataFrame({"c": ["x", "z"]}), real, 2)["c"].tolist() == ["x", "z"]


class FailsToFit:
    def fit(self, frame: pd.DataFrame) -> None:
        raise ValueError("cannot learn this")

    def sample(self, n: int) -> pd.DataFrame:  # pragma: no cover - never reached
        return pd.DataFrame()


def test_fit_raising_names_the_run_and_chains_the_cause() -> None:
    spec = as_generator(FailsToFit(), random_state=0)
    with pytest.raises(GeneratorError, match=r"^training run 7 \(seed 11\): fit raised ValueError: cannot learn "
                                             r"this$") as err:
        spec.train_and_sample(_frame(), 3, seed=11, run=7)
    assert isinstance(err.value, RuntimeError)
    assert isinstance(err.value.__cause__, ValueError)
    with pytest.raises(GeneratorError, match=r"^the training run with seed 11: fit raised"):
        spec.train_and_sample(_frame(), 3, seed=11)


def test_sample_raising_and_fit_fn_raising_are_generator_errors() -> None:
    class FailsToSample(Returns):
        def sample(self, n: int) -> object:
            raise KeyError("boom")

    with pytest.raises(GeneratorError, match="sample raised KeyError") as err:
        as_generator(FailsToSample(None)).train_and_sample(_frame(), 2, seed=0, run=0)
    assert isinstance(err.value.__cause__, KeyError)

    def fit_fn(frame: pd.DataFrame, seed: int) -> None:
        raise ZeroDivisionError("x")

    with pytest.raises(GeneratorError, match=r"training run 2 \(seed 0\): fit_fn raised ZeroDivisionError"):
        as_generator((fit_fn, lambda m, n, s: None)).train_and_sample(_frame(), 2, seed=0, run=2)


def test_a_factory_that_returns_no_generator_is_named() -> None:
    with pytest.raises(GeneratorError, match="returned builtins.int: 5, which has no fit"):
        as_generator(lambda: 5).train_and_sample(_frame(), 2, seed=0)


def test_train_and_sample_checks_its_arguments() -> None:
    spec = as_generator(SequentialCART())
    with pytest.raises(TypeError, match="train must be a pandas DataFrame, got list"):
        spec.train_and_sample([1], 2, seed=0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="n must be an integer in \\[1, inf\\), got 0"):
        spec.train_and_sample(_frame(), 0, seed=0)
    with pytest.raises(ValueError, match="seed must be an integer in \\[0, 4.29497e\\+09\\), got -1"):
        spec.train_and_sample(_frame(), 2, seed=-1)


# ---------------------------------------------------------------------------------------------------------------
# no mutation


class Vandal:
    """Changes the frame it is given, in place, in every way it can."""

    random_state = None

    def fit(self, frame: pd.DataFrame) -> Vandal:
        self.frame = frame
        frame["age"] = -1
        frame.loc[0, "job"] = "vandal"
        frame.iloc[-1, 2] = 99.0
        frame.index = frame.index[::-1]
        frame["new"] = 0
        return self

    def sample(self, n: int) -> pd.DataFrame:
        return self.frame.drop(columns="new").head(n)


@pytest.mark.parametrize("make", [
    lambda: Vandal(),
    lambda: Vandal,
    lambda: (lambda frame, seed: Vandal().fit(frame), lambda model, n, seed: model.sample(n)),
], ids=["instance", "factory", "functions"])
def test_the_training_frame_is_never_changed(make) -> None:
    train = _frame()
    before = train.copy(deep=True)
    out, _ = as_generator(make()).train_and_sample(train, 3, seed=0)
    pd.testing.assert_frame_equal(train, before)
    assert (out["age"] == -1).all()  # the generator did change its own copy


@pytest.mark.parametrize("gen", [SequentialCART(random_state=0), NoisyMarginals(1.0, random_state=0)],
                         ids=["cart", "marginals"])
def test_the_reference_generators_change_nothing_they_are_given(gen) -> None:
    train = _frame().assign(job=lambda d: d["job"].astype("category"))
    train.loc[1, "score"] = np.nan
    before = train.copy(deep=True)
    gen.fit(train)
    gen.sample(10)
    pd.testing.assert_frame_equal(train, before)


# ---------------------------------------------------------------------------------------------------------------
# seeds


def _twice_and_other(spec: GeneratorSpec, n: int = 40) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, SeedInfo]:
    train = _frame()
    a, info = spec.train_and_sample(train, n, seed=5)
    b, _ = spec.train_and_sample(train, n, seed=5)
    c, _ = spec.train_and_sample(train, n, seed=6)
    return a, b, c, info


class GlobalOnly:
    """Takes no seed; draws from NumPy's global generator."""

    def fit(self, frame: pd.DataFrame) -> GlobalOnly:
        self.frame = frame
        return self

    def sample(self, n: int) -> pd.DataFrame:
        return self.frame.iloc[np.random.randint(0, len(self.frame), n)].reset_index(drop=True)


class WithSetter(GlobalOnly):
    """Takes its seed through set_random_state, as SDV-like libraries do."""

    def set_random_state(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def sample(self, n: int) -> pd.DataFrame:
        return self.frame.iloc[self.rng.integers(0, len(self.frame), n)].reset_index(drop=True)


def _fit_fn(frame: pd.DataFrame, seed: int) -> pd.DataFrame:
    return frame


def _sample_fn(model: pd.DataFrame, n: int, seed: int) -> pd.DataFrame:
    return model.sample(n, replace=True, random_state=seed).reset_index(drop=True)


@pytest.mark.parametrize("given, seeded, how", [
    (SequentialCART(min_samples_leaf=2), True, "set the attribute random_state= on a deep copy of the instance"),
    (SequentialCART, True, "passed random_state= to the factory"),
    (lambda: NoisyMarginals(5.0), True, "set the attribute random_state= on the factory's new instance"),
    (functools.partial(NoisyMarginals, 5.0), True, "passed random_state= to the factory"),
    (WithSetter(), True, "called set_random_state(5) on a deep copy of the instance"),
    ((_fit_fn, _sample_fn), True, "passed the seed to fit_fn(frame, seed) and sample_fn(model, n, seed)"),
    (GlobalOnly(), False, "not seeded through the generator: only the global seeds"),
], ids=["instance", "class", "lambda", "partial", "set_random_state", "functions", "global-only"])
def test_same_seed_same_frame_other_seed_other_frame(given, seeded, how) -> None:
    a, b, c, info = _twice_and_other(as_generator(given, random_state=0))
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)
    assert info.seed == 5 and info.seeded is seeded and info.how.startswith(how)
    assert info.to_dict() == {"seed": 5, "seeded": seeded, "how": info.how}


def test_a_run_leaves_the_global_seeds_as_they_were() -> None:
    np.random.seed(123)
    expected = np.random.random()
    np.random.seed(123)
    as_generator(GlobalOnly()).train_and_sample(_frame(), 3, seed=9)
    assert np.random.random() == expected
    with global_seeds(4):
        a = np.random.random()
    with global_seeds(4):
        assert np.random.random() == a


def test_run_seeds_repeat_with_the_root_and_differ_between_runs() -> None:
    spec = as_generator(SequentialCART(), random_state=42)
    seeds = [spec.run_seed(i) for i in range(50)]
    assert seeds == [as_generator(SequentialCART(), random_state=42).run_seed(i) for i in range(50)]
    assert len(set(seeds)) == 50 and all(0 <= s < 2**32 for s in seeds)
    assert seeds != [as_generator(SequentialCART(), random_state=43).run_seed(i) for i in range(50)]
    assert isinstance(as_generator(SequentialCART()).random_state, int)  # drawn and recorded


def test_a_factory_gives_a_fresh_instance_per_run() -> None:
    made: list[SequentialCART] = []

    def factory() -> SequentialCART:
        made.append(SequentialCART())
        return made[-1]

    spec = as_generator(factory)
    for seed in range(3):
        spec.train_and_sample(_frame(), 2, seed=seed)
    assert len(made) == 3 and len({id(g) for g in made}) == 3
    assert [g.random_state for g in made] == [0, 1, 2]


def test_an_instance_is_deep_copied_for_each_run_and_left_untrained() -> None:
    given = SequentialCART(random_state=99)
    spec = as_generator(given)
    built = [spec.build(seed)[0] for seed in (1, 2)]
    assert built[0] is not given and built[0] is not built[1]
    spec.train_and_sample(_frame(), 2, seed=1)
    assert given.random_state == 99 and not hasattr(given, "_steps")


# ---------------------------------------------------------------------------------------------------------------
# what as_generator accepts


def test_as_generator_kinds_and_descriptions() -> None:
    assert as_generator(SequentialCART()).kind == "instance"
    assert as_generator(SequentialCART).kind == "factory"
    assert as_generator((_fit_fn, _sample_fn)).kind == "functions"
    spec = as_generator(SequentialCART(min_samples_leaf=3))
    assert spec.description.startswith("SequentialCART (synthpriv_report.evaluation.generators, synthpriv_report ")
    assert "min_samples_leaf=3" in spec.description
    assert "_fit_fn and _sample_fn" in as_generator((_fit_fn, _sample_fn)).description
    # the module the class was defined in, as this file was imported (unit.evaluation.test_generators)
    assert as_generator(GlobalOnly()).description.startswith(f"GlobalOnly ({GlobalOnly.__module__})")
    assert GlobalOnly.__module__.endswith("test_generators")
    assert as_generator(spec) is spec
    assert as_generator(spec, random_state=3).random_state == 3
    assert isinstance(SequentialCART(), Generator) and not isinstance(object(), Generator)
    assert spec.to_dict()["kind"] == "instance"


@pytest.mark.parametrize("given, error, words", [
    (42, TypeError, "a generator must be an object with fit() and sample()"),
    ((_fit_fn,), TypeError, "must be a pair of functions (fit_fn, sample_fn)"),
    ((_fit_fn, 3), TypeError, "must be a pair of functions"),
    ("sdv", ValueError, "an adapter name must be 'library:name'"),
    ("torch:gan", ValueError, "with library one of 'sdv', 'synthcity', 'smartnoise'"),
    (NoisyMarginals, TypeError, "NoisyMarginals needs epsilon; pass an instance or functools.partial("),
])
def test_as_generator_refuses_what_it_cannot_use(given, error, words) -> None:
    with pytest.raises(error, match=re.escape(words)):
        as_generator(given)


def test_settings_go_with_adapter_names_only() -> None:
    with pytest.raises(ValueError, match="settings= goes with an adapter name"):
        as_generator(SequentialCART(), settings={"a": 1})


# ---------------------------------------------------------------------------------------------------------------
# adapters, against stand-ins that follow each library's documented API


def _module(name: str, **attrs: object) -> types.ModuleType:
    mod = types.ModuleType(name)
    for k, v in attrs.items():
        setattr(mod, k, v)
    return mod


def _fake_sdv(monkeypatch, *, version: str) -> list[tuple]:
    """SDV 1.x (``SingleTableMetadata``, frames in and out, a public ``set_random_state``) or SDV 2.0
    (``Metadata.detect_from_dataframes``, ``{table: frame}`` in and out, ``_set_random_state`` that ``fit``
    forgets and, unset, a fixed sampling seed), as their documentation and source show."""
    calls: list[tuple] = []

    class SingleTableMetadata:
        def detect_from_dataframe(self, data: pd.DataFrame) -> None:
            calls.append(("detect_from_dataframe", list(data.columns)))

    class Metadata:
        def __init__(self, tables: dict) -> None:
            self.tables = tables

        @classmethod
        def detect_from_dataframes(cls, data: dict) -> Metadata:
            calls.append(("detect_from_dataframes", list(data)))
            return cls({name: object() for name in data})

    class GaussianCopulaSynthesizer:
        def __init__(self, metadata: object, **settings: object) -> None:
            calls.append(("init", type(metadata).__name__, settings))
            self.seed: int | None = None

        def fit(self, data: object) -> None:
            if version.startswith("2"):
                assert isinstance(data, dict) and len(data) == 1
                (self.table, data), = data.items()
            assert isinstance(data, pd.DataFrame)
            calls.append(("fit", len(data)))
            self.data = data
            self.seed = None  # SDV forgets a random state at fit

        def _draw(self, num_rows: int) -> pd.DataFrame:
            rng = np.random.default_rng(73251 if self.seed is None else self.seed)
            return self.data.sample(num_rows, replace=True, random_state=rng).reset_index(drop=True)

        def sample(self, num_rows: int) -> object:
            calls.append(("sample", num_rows))
            out = self._draw(num_rows)
            return {self.table: out} if version.startswith("2") else out

    if version.startswith("1"):
        GaussianCopulaSynthesizer.set_random_state = lambda self, seed: (  # type: ignore[attr-defined]
            calls.append(("set_random_state", seed)), setattr(self, "seed", seed))
        metadata = _module("sdv.metadata", SingleTableMetadata=SingleTableMetadata)
    else:
        GaussianCopulaSynthesizer._set_random_state = lambda self, seed: (  # type: ignore[attr-defined]
            calls.append(("_set_random_state", seed)), setattr(self, "seed", seed))
        metadata = _module("sdv.metadata", Metadata=Metadata)
    single_table = _module("sdv.single_table", GaussianCopulaSynthesizer=GaussianCopulaSynthesizer)
    sdv = _module("sdv", __version__=version, single_table=single_table, metadata=metadata)
    monkeypatch.setitem(sys.modules, "sdv", sdv)
    monkeypatch.setitem(sys.modules, "sdv.single_table", single_table)
    monkeypatch.setitem(sys.modules, "sdv.metadata", metadata)
    return calls


def test_sdv_1_adapter(monkeypatch) -> None:
    calls = _fake_sdv(monkeypatch, version="1.12.0")
    spec = as_generator("sdv:GaussianCopulaSynthesizer", settings={"enforce_min_max_values": False},
                        random_state=0)
    assert spec.description == ("SDV GaussianCopulaSynthesizer (sdv adapter, sdv 1.12.0), settings: "
                                "enforce_min_max_values=False")
    calls.clear()
    out, info = spec.train_and_sample(_frame(), 5, seed=3)
    assert [c[0] for c in calls] == ["detect_from_dataframe", "init", "fit", "set_random_state", "sample"]
    assert calls[1] == ("init", "SingleTableMetadata", {"enforce_min_max_values": False})
    assert calls[3] == ("set_random_state", 3) and calls[4] == ("sample", 5)
    assert info.seeded and "called the synthesizer's set_random_state(3) after fitting" in info.how
    assert out.shape == (5, 3)
    again, _ = spec.train_and_sample(_frame(), 5, seed=3)
    other, _ = spec.train_and_sample(_frame(), 5, seed=4)
    pd.testing.assert_frame_equal(out, again)
    assert not out.equals(other)


def test_sdv_2_adapter_sets_the_seed_after_fit_and_unwraps_the_table(monkeypatch) -> None:
    calls = _fake_sdv(monkeypatch, version="2.0.0")
    spec = as_generator("sdv:GaussianCopulaSynthesizer", random_state=0)
    calls.clear()
    a, info = spec.train_and_sample(_frame(), 6, seed=3)
    b, _ = spec.train_and_sample(_frame(), 6, seed=4)
    assert [c[0] for c in calls[:5]] == ["detect_from_dataframes", "init", "fit", "_set_random_state", "sample"]
    assert "_set_random_state(3) after fitting (this SDV has no public set_random_state)" in info.how
    assert isinstance(a, pd.DataFrame) and not a.equals(b)  # unseeded, SDV would sample both with one fixed seed


def test_sdv_adapter_names_an_unknown_synthesizer(monkeypatch) -> None:
    _fake_sdv(monkeypatch, version="1.12.0")
    with pytest.raises(ValueError, match="sdv.single_table has no synthesizer 'Nope'; it has "
                                         "GaussianCopulaSynthesizer"):
        as_generator("sdv:Nope")
    with pytest.raises(ValueError, match="must not hold random_state"):
        as_generator("sdv:GaussianCopulaSynthesizer", settings={"random_state": 1})


def test_synthcity_adapter(monkeypatch) -> None:
    calls: list[tuple] = []

    class GenericDataLoader:
        def __init__(self, frame: pd.DataFrame) -> None:
            self.frame = frame

        def dataframe(self) -> pd.DataFrame:
            return self.frame

    class Plugin:
        def __init__(self, random_state: int, **settings: object) -> None:
            self.rng = np.random.default_rng(random_state)

        def fit(self, frame: pd.DataFrame) -> Plugin:
            calls.append(("fit", len(frame)))
            self.frame = frame
            return self

        def generate(self, count: int) -> GenericDataLoader:
            calls.append(("generate", count))
            return GenericDataLoader(self.frame.sample(count, replace=True, random_state=self.rng)
                                     .reset_index(drop=True))

    class Plugins:
        def get(self, name: str, **kwargs: object) -> Plugin:
            calls.append(("get", name, kwargs))
            return Plugin(**kwargs)  # type: ignore[arg-type]

    plugins = _module("synthcity.plugins", Plugins=Plugins)
    monkeypatch.setitem(sys.modules, "synthcity", _module("synthcity", __version__="0.2.11", plugins=plugins))
    monkeypatch.setitem(sys.modules, "synthcity.plugins", plugins)
    spec = as_generator("synthcity:ctgan", settings={"n_iter": 10}, random_state=0)
    assert spec.description.startswith("synthcity ctgan (synthcity adapter, synthcity 0.2.11)")
    out, info = spec.train_and_sample(_frame(), 4, seed=8)
    assert calls == [("get", "ctgan", {"n_iter": 10, "random_state": 8}), ("fit", 6), ("generate", 4)]
    assert info.seeded and info.how.endswith("passed random_state=8 to Plugins().get")
    assert out.shape == (4, 3)


def test_smartnoise_adapter(monkeypatch) -> None:
    calls: list[tuple] = []

    class MST:
        def fit(self, data: pd.DataFrame, *, preprocessor_eps: float = 0.0, categorical_columns=()) -> None:
            calls.append(("fit", len(data), preprocessor_eps, tuple(categorical_columns)))
            self.data = data

        def sample(self, samples: int) -> pd.DataFrame:
            calls.append(("sample", samples))
            rows = np.random.randint(0, len(self.data), samples)  # smartnoise draws from the global generators
            return self.data.iloc[rows].reset_index(drop=True)

    class Synthesizer:
        @classmethod
        def create(cls, synth: str, epsilon: float, **kwargs: object) -> MST:
            calls.append(("create", synth, epsilon, kwargs))
            return MST()

    monkeypatch.setitem(sys.modules, "snsynth", _module("snsynth", __version__="1.0.4", Synthesizer=Synthesizer))
    with pytest.raises(ValueError, match="the smartnoise adapter needs epsilon="):
        as_generator("smartnoise:mst")
    spec = as_generator("smartnoise:mst", settings={"epsilon": 1.0, "preprocessor_eps": 0.5,
                                                    "fit_settings": {"categorical_columns": ["job"]}},
                        random_state=0)
    calls.clear()
    a, info = spec.train_and_sample(_frame(), 4, seed=2)
    assert calls == [("create", "mst", 1.0, {}), ("fit", 6, 0.5, ("job",)), ("sample", 4)]
    assert info.seeded is False and "smartnoise-synth takes no seed" in info.how
    b, _ = spec.train_and_sample(_frame(), 4, seed=2)
    pd.testing.assert_frame_equal(a, b)  # the global seeds make it repeat


@pytest.mark.parametrize("name, module, extra, label", [
    ("sdv:GaussianCopulaSynthesizer", "sdv", "sdv", "SDV"),
    ("synthcity:ctgan", "synthcity", "synthcity", "synthcity"),
    ("smartnoise:mst", "snsynth", "smartnoise", "smartnoise-synth"),
])
def test_a_missing_library_names_the_extra(monkeypatch, name, module, extra, label) -> None:
    if importlib.util.find_spec(module) is not None:  # installed here: hide it
        monkeypatch.setitem(sys.modules, module, None)
    settings = {"epsilon": 1.0} if extra == "smartnoise" else None
    with pytest.raises(ImportError) as err:
        as_generator(name, settings=settings)
    assert str(err.value) == (f"the '{extra}' generator adapter needs {label}: "
                              f"pip install 'synthpriv-report[{extra}]'")


def test_the_adapters_are_generators(monkeypatch) -> None:
    _fake_sdv(monkeypatch, version="1.12.0")
    assert isinstance(SDVGenerator("GaussianCopulaSynthesizer"), Generator)
    assert {SynthcityGenerator.extra, SmartNoiseGenerator.extra} == {"synthcity", "smartnoise"}
    with pytest.raises(RuntimeError, match="sample\\(\\) was called before fit\\(\\)"):
        SDVGenerator("GaussianCopulaSynthesizer").sample(2)


# ---------------------------------------------------------------------------------------------------------------
# NoisyMarginals


def _census(n: int = 3000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.integers(18, 90, n), "income": rng.gamma(2.0, 20_000.0, n),
                         "job": rng.choice(["clerk", "farmer", "nurse", "pilot"], n, p=[0.5, 0.3, 0.15, 0.05])})


def test_with_a_huge_epsilon_the_marginals_are_the_training_marginals() -> None:
    train = _census()
    gen = NoisyMarginals(1e9, bins=10, random_state=0).fit(train)
    cells = gen.cells_["job"]
    expected = train["job"].value_counts(normalize=True).reindex(list(cells.categories)).to_numpy()
    np.testing.assert_allclose(gen.marginals_["job"], expected, atol=1e-6)
    edges = np.linspace(train["income"].min(), train["income"].max(), 11)
    binned = np.histogram(train["income"], bins=edges)[0] / len(train)
    np.testing.assert_allclose(gen.marginals_["income"], binned, atol=1e-6)
    sample = gen.sample(20_000)
    shares = sample["job"].value_counts(normalize=True).reindex(list(cells.categories)).to_numpy()
    np.testing.assert_allclose(shares, expected, atol=0.02)
    np.testing.assert_allclose(np.histogram(sample["income"], bins=edges)[0] / 20_000, binned, atol=0.02)
    assert sample.dtypes.equals(train.dtypes)
    assert sample["age"].between(train["age"].min(), train["age"].max()).all()


def test_with_a_domain_every_value_lies_in_it_and_outliers_are_clipped() -> None:
    train = _census()
    train.loc[0, "age"] = 150  # outside the public range: clipped into it
    train.loc[1, "job"] = "astronaut"  # outside the public list: counted nowhere
    domain = {"age": (0, 100), "income": (0.0, 200_000.0), "job": ["clerk", "farmer", "nurse", "pilot", "vet"]}
    gen = NoisyMarginals(0.5, domain=domain, random_state=1).fit(train)
    sample = gen.sample(5000)
    assert sample["age"].between(0, 100).all() and sample["age"].dtype == train["age"].dtype
    assert sample["income"].between(0.0, 200_000.0).all()
    assert set(sample["job"]) <= set(domain["job"])
    assert gen.dp_holds and gen.delta == 0.0 and gen.epsilon == 0.5
    assert "epsilon-DP (delta = 0)" in gen.description
    counts = gen.cells_["age"].counts(train["age"])
    assert counts[-1] == (train["age"] >= 95).sum()  # 150 fell in the top bin


def test_without_a_domain_the_guarantee_does_not_hold_and_says_so() -> None:
    gen = NoisyMarginals(1.0).fit(_census(100))
    assert gen.dp_holds is False
    assert "NOT differentially private" in gen.description and "dp_holds=False" in gen.description
    assert "NOT differentially private" in as_generator(NoisyMarginals(1.0)).description


def test_the_noise_has_scale_d_over_epsilon() -> None:
    # one fit, 3 columns, 4000 categories in one of them: 4000 draws of the noise, scale 3 / 0.5 = 6
    rng = np.random.default_rng(0)
    k = 4000
    train = pd.DataFrame({"c": rng.integers(0, k, 10_000), "x": rng.random(10_000), "y": rng.random(10_000)})
    domain = {"c": list(range(k)), "x": (0.0, 1.0), "y": (0.0, 1.0)}
    gen = NoisyMarginals(0.5, domain=domain, random_state=3).fit(train)
    assert gen.noise_scale_ == 6.0
    noise = gen.noisy_counts_["c"] - np.bincount(train["c"], minlength=k)
    assert abs(noise.mean()) < 0.5
    assert noise.var() == pytest.approx(2 * 6.0**2, rel=0.1)  # Laplace(b) has variance 2 b^2
    assert np.median(np.abs(noise)) == pytest.approx(6.0 * math.log(2), rel=0.1)  # and median |noise| b ln 2


def test_laplace_counts_variance() -> None:
    noise = laplace_counts(np.zeros(50_000), 2.0, np.random.default_rng(1))
    assert noise.var() == pytest.approx(8.0, rel=0.05)
    with pytest.raises(ValueError, match="scale must be a number in \\(0, inf\\)"):
        laplace_counts(np.zeros(2), 0.0, np.random.default_rng(1))


def test_noisy_marginals_missing_values_and_categories() -> None:
    train = pd.DataFrame({"x": [1.0, np.nan, 3.0, np.nan], "c": ["a", None, "b", "a"]})
    gen = NoisyMarginals(1e9, random_state=0).fit(train)
    sample = gen.sample(4000)
    assert 0.4 < sample["x"].isna().mean() < 0.6 and 0.15 < sample["c"].isna().mean() < 0.35
    listed = NoisyMarginals(1e9, domain={"x": (0.0, 5.0), "c": ["a", "b", None]}, random_state=0).fit(train)
    s = listed.sample(4000)
    assert s["x"].notna().all() and s["c"].isna().any()


def test_noisy_marginals_names_a_wrong_domain() -> None:
    train = _census(50)
    with pytest.raises(ValueError, match="domain lacks the training column 'job' and names column 'city' the "
                                         "training data lack"):
        NoisyMarginals(1.0, domain={"age": (0, 100), "income": (0, 1), "city": ["x"]}).fit(train)
    with pytest.raises(ValueError, match="domain\\['job'\\] is a numeric range \\(0, 1\\) but column 'job'"):
        NoisyMarginals(1.0, domain={"age": (0, 100), "income": (0, 1), "job": (0, 1)}).fit(train)
    with pytest.raises(ValueError, match="domain\\['age'\\] must be a range \\(low, high\\) of finite numbers"):
        NoisyMarginals(1.0, domain={"age": (100, 0), "income": (0, 1), "job": ["x"]}).fit(train)
    with pytest.raises(ValueError, match="epsilon must be a number in \\(0, inf\\), got 0"):
        NoisyMarginals(0)


def test_noisy_marginals_same_seed_same_output() -> None:
    train = _census(200)
    a = NoisyMarginals(1.0, random_state=4).fit(train).sample(100)
    b = NoisyMarginals(1.0, random_state=4).fit(train).sample(100)
    c = NoisyMarginals(1.0, random_state=5).fit(train).sample(100)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)


# ---------------------------------------------------------------------------------------------------------------
# SequentialCART


def _rows(frame: pd.DataFrame) -> set[tuple]:
    return set(frame.itertuples(index=False, name=None))


def test_a_leaf_of_one_reproduces_training_records() -> None:
    train = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6], "c": ["a", "b", "c", "a", "b", "c"],
                          "y": [0.1, 0.2, 0.2, 0.4, 0.1, 0.6], "d": ["u", "u", "v", "v", "w", "w"]})
    sample = SequentialCART(min_samples_leaf=1, random_state=0).fit(train).sample(300)
    assert _rows(sample) <= _rows(train)
    assert len(_rows(sample)) == 6  # and all of them, in 300 draws


def test_a_large_leaf_mixes_records() -> None:
    train = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6], "c": ["a", "b", "c", "d", "e", "f"]})
    sample = SequentialCART(min_samples_leaf=6, random_state=0).fit(train).sample(300)
    assert not _rows(sample) <= _rows(train)
    for col in train:  # every value is still a training value of its column
        assert set(sample[col]) <= set(train[col])


def test_sequential_cart_keeps_missing_values_and_dtypes() -> None:
    train = pd.DataFrame({"x": [1.0, np.nan, 3.0, 4.0, np.nan, 6.0],
                          "c": pd.Categorical(["a", None, "b", "a", None, "b"]),
                          "n": pd.array([1, 2, None, 4, 5, 6], dtype="Int64"),
                          "flag": [True, False, True, False, True, False]})
    sample = SequentialCART(min_samples_leaf=1, random_state=0).fit(train).sample(200)
    assert sample.dtypes.equals(train.dtypes)
    assert sample["x"].isna().any() and sample["c"].isna().any() and sample["n"].isna().any()
    # a missing value is a value of its own, so with a leaf of one whole records come back, missing parts included
    as_text = lambda f: {tuple(str(v) for v in r) for r in f.itertuples(index=False, name=None)}  # noqa: E731
    assert as_text(sample) <= as_text(train)


def test_sequential_cart_same_seed_same_output() -> None:
    train = _census(300)
    a = SequentialCART(5, random_state=1).fit(train).sample(200)
    b = SequentialCART(5, random_state=1).fit(train).sample(200)
    c = SequentialCART(5, random_state=2).fit(train).sample(200)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)
    assert SequentialCART().fit(train).sample(0).shape == (0, 3)


@pytest.mark.slow  # about a second
def test_sequential_cart_is_fast_enough() -> None:
    rng = np.random.default_rng(0)
    n = 5000
    cols = {f"num{i}": rng.normal(size=n).round(1) for i in range(7)}
    cols |= {f"cat{i}": rng.choice([f"v{j}" for j in range(2 + 3 * i)], n) for i in range(8)}
    train = pd.DataFrame(cols)
    start = time.perf_counter()
    out = SequentialCART(min_samples_leaf=1, random_state=0).fit(train).sample(n)
    assert time.perf_counter() - start < 15  # about 1 s for 5,000 Adult rows on one core
    assert out.shape == (n, 15)
