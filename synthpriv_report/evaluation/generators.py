"""Synthetic-data generators as the generator audit trains them: a protocol, one recipe per generator, checked
outputs, adapters for SDV, synthcity and smartnoise-synth, and two reference generators.

A generator audit trains a generator many times, on training sets with some canary records in or out, and looks
for the canaries in what it samples. Every training run must start from a fresh, untrained generator, take its
own seed, and hand back a frame shaped like the real one. This module turns whatever a user has into that:

- :class:`Generator` is the protocol: ``fit(frame)`` and ``sample(n) -> DataFrame``;
- :func:`as_generator` accepts a generator instance (deep-copied for each run), a zero-argument factory (called
  for each run), a pair of functions ``(fit_fn, sample_fn)``, or an adapter name such as
  ``"sdv:GaussianCopulaSynthesizer"``, and returns a :class:`GeneratorSpec`;
- :meth:`GeneratorSpec.train_and_sample` builds a fresh generator, seeds it where it takes a seed, trains it on
  a copy of the training frame, samples, checks the sample (:func:`check_sample`) and reports how the seed was
  applied (:class:`SeedInfo`);
- :class:`SDVGenerator`, :class:`SynthcityGenerator` and :class:`SmartNoiseGenerator` adapt the three libraries;
  each is imported only when its adapter is built, and a missing one is an ``ImportError`` naming the extra to
  install (``pip install 'synthpriv-report[sdv]'``);
- :class:`NoisyMarginals` (epsilon-differentially private one-way marginals) and :class:`SequentialCART`
  (synthpop-style sequential trees, which memorise with a leaf size of one) are the reference generators the
  tests and the benchmark use: NumPy, pandas and scikit-learn only, deterministic given ``random_state``.

Errors a generator causes (``fit`` or ``sample`` raising, a sample of the wrong shape or kind) are a
:class:`GeneratorError`, which names the training run and what was returned.

>>> import pandas as pd
>>> real = pd.DataFrame({"age": [23, 35, 47, 51], "job": ["a", "b", "a", "c"]})
>>> spec = as_generator(SequentialCART(min_samples_leaf=1))
>>> synthetic, seed_info = spec.train_and_sample(real, 3, seed=7)
>>> synthetic.shape, list(synthetic.columns), seed_info.seeded
((3, 2), ['age', 'job'], True)
>>> seed_info.how
'set the attribute random_state= on a deep copy of the instance'
"""

from __future__ import annotations

import contextlib
import copy
import functools
import importlib
import importlib.metadata
import inspect
import math
import random
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from synthpriv_report.core.validation import Interval, check

__all__ = [
    "ADAPTERS",
    "Generator",
    "GeneratorError",
    "GeneratorSpec",
    "NoisyMarginals",
    "SDVGenerator",
    "SeedInfo",
    "SequentialCART",
    "SmartNoiseGenerator",
    "SynthcityGenerator",
    "as_generator",
    "check_sample",
    "laplace_counts",
]

#: Seeds are integers in [0, 2**32): what NumPy's global seed (``numpy.random.seed``) accepts.
SEED_LIMIT = 2**32

RandomState = int | np.random.Generator | None


class GeneratorError(RuntimeError):
    """A generator failed in a training run: ``fit`` or ``sample`` raised (the cause is chained), or the sample
    is not a frame shaped like the real one (the message names what was returned)."""


@runtime_checkable
class Generator(Protocol):
    """What a synthetic-data generator offers: train on a frame, then sample a frame.

    ``fit`` may return anything (often ``self``); ``sample(n)`` must return a ``pandas.DataFrame`` of ``n`` rows
    with the training frame's columns. A generator that takes a seed shows it as a ``random_state`` or ``seed``
    attribute or constructor argument, or a ``set_random_state(seed)`` method (see
    :meth:`GeneratorSpec.train_and_sample`).
    """

    def fit(self, frame: pd.DataFrame) -> Any:
        """Train on ``frame`` (which the generator must not keep a reference to if it changes it)."""

    def sample(self, n: int) -> pd.DataFrame:
        """``n`` synthetic records."""


@dataclass(frozen=True)
class SeedInfo:
    """How one training run's seed reached the generator.

    Parameters
    ----------
    seed : int
        The run's seed, in ``[0, 2**32)``.
    seeded : bool
        Whether the seed reached the generator through its own interface (a constructor argument, a method, an
        attribute, the functions' ``seed`` argument). ``False`` when only the global seeds of NumPy, Python's
        ``random`` and (when loaded) PyTorch were set around the run: the run is then reproducible only if the
        generator draws from those global generators.
    how : str
        The sentence the report prints, e.g. ``"passed random_state= to the constructor"``.
    """

    seed: int
    seeded: bool
    how: str

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict (``seed``, ``seeded``, ``how``).

        >>> SeedInfo(3, True, "passed random_state= to the constructor").to_dict()["seeded"]
        True
        """
        return {"seed": int(self.seed), "seeded": bool(self.seeded), "how": self.how}


# ---------------------------------------------------------------------------------------------------------------
# descriptions: class, module, the version of its package, settings


@lru_cache(maxsize=1)
def _distributions() -> Mapping[str, list[str]]:
    try:
        return importlib.metadata.packages_distributions()
    except Exception:  # pragma: no cover - broken metadata never stops a report
        return {}


def package_version(module: str) -> str | None:
    """The version of ``module``'s top-level package: its ``__version__`` when loaded, else that of the installed
    distribution that provides it, if known.

    >>> package_version("numpy") is not None
    True
    >>> package_version("no_such_package_here") is None
    True
    """
    top = module.split(".")[0]
    loaded = getattr(sys.modules.get(top), "__version__", None)  # what runs, if it says
    if isinstance(loaded, str):
        return loaded
    for dist in [*_distributions().get(top, []), top]:
        with contextlib.suppress(Exception):
            return importlib.metadata.version(dist)
    return None


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _settings_of(obj: Any) -> dict[str, Any]:
    """The settings an object shows: ``get_params()`` where it has one, else its public, simple attributes."""
    get_params = getattr(obj, "get_params", None)
    if callable(get_params):
        with contextlib.suppress(Exception):
            params = get_params()
            if isinstance(params, Mapping):
                return dict(params)
    simple = (str, int, float, bool, type(None), np.integer, np.floating)
    return {k: v for k, v in sorted(getattr(obj, "__dict__", {}).items())
            if not k.startswith("_") and not k.endswith("_") and isinstance(v, simple)}


def _settings_text(settings: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={_short(v)}" for k, v in settings.items()) or "none"


def describe_class(cls: type, settings: Mapping[str, Any]) -> str:
    """``"Name (module, package version), settings: a=1, b=2"``, the line a report prints for a generator.

    >>> describe_class(SequentialCART, {"min_samples_leaf": 5})  # doctest: +ELLIPSIS
    'SequentialCART (synthpriv_report.evaluation.generators, synthpriv_report ...), settings: min_samples_leaf=5'
    """
    module = cls.__module__
    version = package_version(module)
    top = module.split(".")[0]
    where = module if version is None else f"{module}, {top} {version}"
    return f"{cls.__qualname__} ({where}), settings: {_settings_text(settings)}"


# ---------------------------------------------------------------------------------------------------------------
# seeds


@contextlib.contextmanager
def global_seeds(seed: int) -> Iterator[None]:
    """Set the global seeds of NumPy, Python's ``random`` and PyTorch (only if already imported) to ``seed`` for
    the block, and put their previous states back afterwards, so that a run seeds without leaving a trace.

    >>> with global_seeds(3):
    ...     a = np.random.random()
    >>> with global_seeds(3):
    ...     b = np.random.random()
    >>> a == b
    True
    """
    np_state = np.random.get_state()
    py_state = random.getstate()
    torch = sys.modules.get("torch")
    torch_state = None
    if torch is not None:
        with contextlib.suppress(Exception):
            torch_state = torch.random.get_rng_state()
    np.random.seed(seed % SEED_LIMIT)
    random.seed(seed)
    if torch is not None:
        with contextlib.suppress(Exception):
            torch.manual_seed(seed)
    try:
        yield
    finally:
        np.random.set_state(np_state)
        random.setstate(py_state)
        if torch is not None and torch_state is not None:
            with contextlib.suppress(Exception):
                torch.random.set_rng_state(torch_state)


_GLOBAL_ONLY = ("not seeded through the generator: only the global seeds of NumPy, Python's random and PyTorch "
                "(when loaded) were set, so the run repeats only if the generator draws from them")


def _seed_instance(gen: Any, seed: int, *, fresh: str) -> tuple[bool, str]:
    """Seed an already built generator by the first means it offers; ``fresh`` says where it came from."""
    method = getattr(gen, "set_random_state", None)
    if callable(method):
        method(seed)
        return True, f"called set_random_state({seed}) on {fresh}"
    for name in ("random_state", "seed"):
        if hasattr(gen, name) and not callable(getattr(gen, name)):
            try:
                setattr(gen, name, seed)
            except (AttributeError, TypeError):
                continue
            return True, f"set the attribute {name}= on {fresh}"
    return False, _GLOBAL_ONLY


def _seed_keyword(factory: Callable[..., Any]) -> str | None:
    """``"random_state"`` or ``"seed"`` when ``factory`` accepts that keyword, else ``None``."""
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return None
    for name in ("random_state", "seed"):
        p = params.get(name)
        if p is not None and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            return name
    return None


def _required_parameters(factory: Callable[..., Any]) -> list[str]:
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return []
    return [n for n, p in params.items() if p.default is p.empty
            and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def _rng(random_state: RandomState) -> np.random.Generator:
    if isinstance(random_state, np.random.Generator):
        return random_state
    return np.random.default_rng(random_state)


def _check_random_state(random_state: Any) -> RandomState:
    if random_state is None or isinstance(random_state, np.random.Generator):
        return random_state
    return int(check("random_state", random_state, Interval("int", 0)))


# ---------------------------------------------------------------------------------------------------------------
# output checks


def _what(obj: Any) -> str:
    if isinstance(obj, pd.DataFrame):
        return f"a DataFrame of shape {obj.shape}"
    return f"{type(obj).__module__}.{type(obj).__qualname__}: {_short(obj)}"


def _names(cols: Sequence[Any]) -> str:
    return ", ".join(repr(c) for c in cols)


def _align_column(values: pd.Series, real: pd.Series, column: Any, where: str) -> pd.Series:
    """``values`` in the dtype of ``real`` where that loses nothing; an error naming the column otherwise."""
    dtype = real.dtype
    if values.dtype == dtype:
        return values
    if pd.api.types.is_bool_dtype(dtype):
        if pd.api.types.is_bool_dtype(values.dtype):
            return values.astype(dtype)
        mapped = values.map(lambda v: v if isinstance(v, (bool, np.bool_)) else
                            {0: False, 1: True, "True": True, "False": False, "true": True, "false": False}.get(v, v)
                            if isinstance(v, (int, float, str, np.integer, np.floating)) else v)
        bad = [v for v in mapped if not (isinstance(v, (bool, np.bool_)) or pd.isna(v))]
        if bad:
            raise GeneratorError(f"{where}: column {column!r} is boolean in the real data but the sample holds "
                                 f"{_short(bad[0])}")
        return mapped if mapped.isna().any() else mapped.astype(dtype)
    if pd.api.types.is_numeric_dtype(dtype):
        if pd.api.types.is_bool_dtype(values.dtype):
            raise GeneratorError(f"{where}: column {column!r} is numeric in the real data but boolean in the sample")
        numbers = pd.to_numeric(values, errors="coerce")
        bad = values[numbers.isna() & values.notna()]
        if len(bad):
            raise GeneratorError(f"{where}: column {column!r} is numeric in the real data but the sample holds "
                                 f"non-numeric values: {_short(bad.iloc[0])}")
        if pd.api.types.is_integer_dtype(dtype):
            arr = numbers.to_numpy(dtype=float, na_value=np.nan)
            whole = np.isfinite(arr) & (arr == np.round(arr))
            if whole.all():
                return numbers.astype(dtype)
            if isinstance(dtype, pd.api.extensions.ExtensionDtype) and (whole | np.isnan(arr)).all():
                return numbers.astype(dtype)  # a nullable integer holds the missing values
            return numbers.astype(float)
        return numbers.astype(dtype)
    if pd.api.types.is_datetime64_any_dtype(dtype):
        try:
            stamps = pd.to_datetime(values, errors="coerce")
        except (TypeError, ValueError) as exc:
            raise GeneratorError(f"{where}: column {column!r} holds dates in the real data but the sample's values "
                                 f"cannot be read as dates ({exc})") from exc
        bad = values[stamps.isna() & values.notna()]
        if len(bad):
            raise GeneratorError(f"{where}: column {column!r} holds dates in the real data but the sample holds "
                                 f"{_short(bad.iloc[0])}")
        try:
            return stamps.astype(dtype)
        except (TypeError, ValueError) as exc:
            raise GeneratorError(f"{where}: column {column!r}: the sample's dates cannot take the real dtype "
                                 f"{dtype} ({exc})") from exc
    if isinstance(dtype, pd.CategoricalDtype):
        known = set(dtype.categories)
        if all(v in known for v in values.dropna()):
            return values.astype(dtype)
        return values.astype(object)  # a category the real data lack is kept, as a plain value
    try:
        return values.astype(dtype)
    except (TypeError, ValueError) as exc:
        raise GeneratorError(f"{where}: column {column!r} cannot take the real data's dtype {dtype}: "
                             f"{exc}") from exc


def check_sample(sample: Any, real: pd.DataFrame, n: int, *, where: str = "the sample") -> pd.DataFrame:
    """A generator's sample checked against the real frame and aligned to it.

    Parameters
    ----------
    sample : object
        What ``sample(n)`` returned.
    real : pandas.DataFrame
        The training frame (its columns, their order and dtypes are the reference; it is not changed).
    n : int
        The number of rows asked for.
    where : str
        Who returned ``sample`` (the training run), for the messages.

    Returns
    -------
    pandas.DataFrame
        ``n`` rows, the real columns in the real order, each column in the real dtype where the values allow it
        (an integer column with fractions stays float; a categorical column with a category the real data lack
        becomes ``object``), a fresh ``RangeIndex``. A sample whose columns only differ in order is reordered.

    Raises
    ------
    GeneratorError
        ``sample`` is not a DataFrame, lacks real columns or has others (both named), has another number of rows
        (asked and got both said), or a column whose values cannot be read in the real column's kind (named).

    >>> real = pd.DataFrame({"a": [1, 2], "b": ["x", "y"]})
    >>> check_sample(pd.DataFrame({"b": ["y", "x"], "a": [2.0, 1.0]}), real, 2).dtypes.astype(str).tolist()
    ['int64', 'str']
    >>> try:
    ...     check_sample(pd.DataFrame({"a": [1, 2], "c": [0, 0]}), real, 2)
    ... except GeneratorError as exc:
    ...     print(exc)
    the sample lacks the real column 'b' and has the column 'c' the real data lack
    """
    if not isinstance(sample, pd.DataFrame):
        raise GeneratorError(f"{where}: sample() must return a pandas DataFrame, it returned {_what(sample)}")
    real_cols = list(real.columns)
    got_cols = list(sample.columns)
    if len(set(got_cols)) != len(got_cols):
        twice = sorted({repr(c) for c in got_cols if got_cols.count(c) > 1})
        raise GeneratorError(f"{where} has duplicated column names: {', '.join(twice)}")
    missing = [c for c in real_cols if c not in set(got_cols)]
    extra = [c for c in got_cols if c not in set(real_cols)]
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"lacks the real column{'s' if len(missing) > 1 else ''} {_names(missing)}")
        if extra:
            parts.append(f"has the column{'s' if len(extra) > 1 else ''} {_names(extra)} the real data lack")
        raise GeneratorError(f"{where} " + " and ".join(parts))
    if len(sample) != n:
        raise GeneratorError(f"{where}: {n} rows were asked for, the sample has {len(sample)}")
    out = sample[real_cols].reset_index(drop=True) if got_cols != real_cols else sample.reset_index(drop=True)
    aligned = {c: _align_column(out[c], real[c], c, where) for c in real_cols}
    return pd.DataFrame(aligned, columns=real_cols)


# ---------------------------------------------------------------------------------------------------------------
# the recipe: a fresh, seeded generator per training run


Kind = Literal["instance", "factory", "functions", "adapter"]


@dataclass(frozen=True)
class GeneratorSpec:
    """How to train one generator afresh for each run of an audit; made by :func:`as_generator`.

    Parameters
    ----------
    kind : {"instance", "factory", "functions", "adapter"}
        What was given: a generator instance (deep-copied for each run), a zero-argument factory (called for
        each run), a pair ``(fit_fn, sample_fn)``, or an adapter name (an adapter class built for each run).
    source : object
        The instance, the factory, the pair of functions, or the adapter class.
    settings : dict
        The adapter's settings (empty for the other kinds).
    random_state : int
        The root of the runs' seeds (:meth:`run_seed`).
    description : str
        One line for the report: class, module, version of its package where known, settings.
    """

    kind: Kind
    source: Any
    settings: Mapping[str, Any] = field(default_factory=dict)
    random_state: int = 0
    description: str = ""

    def run_seed(self, run: int) -> int:
        """The seed of training run ``run`` (0, 1, ...), derived from :attr:`random_state` so that an audit
        repeats exactly; different runs get independent seeds.

        >>> spec = as_generator(SequentialCART(), random_state=5)
        >>> spec.run_seed(0) == as_generator(SequentialCART(), random_state=5).run_seed(0) != spec.run_seed(1)
        True
        """
        run = int(check("run", run, Interval("int", 0)))
        state = np.random.SeedSequence(self.random_state, spawn_key=(run,)).generate_state(1, dtype=np.uint32)
        return int(state[0])

    def build(self, seed: int) -> tuple[Any, SeedInfo]:
        """A fresh, untrained generator seeded with ``seed`` where it takes a seed (not for ``kind="functions"``,
        which has no object: the functions take the seed as an argument)."""
        if self.kind == "instance":
            gen = copy.deepcopy(self.source)
            seeded, how = _seed_instance(gen, seed, fresh="a deep copy of the instance")
        elif self.kind == "adapter":
            gen = self.source(random_state=seed, **self.settings)
            # how the adapter hands the seed to its library is known once it has fitted (train_and_sample)
            seeded, how = True, "passed random_state= to the adapter"
        elif self.kind == "factory":
            keyword = _seed_keyword(self.source)
            if keyword is not None:
                gen = self.source(**{keyword: seed})
                seeded, how = True, f"passed {keyword}= to the factory"
            else:
                gen = self.source()
                seeded, how = _seed_instance(gen, seed, fresh="the factory's new instance")
            if not (callable(getattr(gen, "fit", None)) and callable(getattr(gen, "sample", None))):
                raise GeneratorError(f"the factory {_short(self.source)} returned {_what(gen)}, which has no "
                                     "fit() and sample() methods")
        else:
            raise ValueError("a pair of functions builds no generator object; use train_and_sample()")
        return gen, SeedInfo(seed, seeded, how)

    def train_and_sample(self, train: pd.DataFrame, n: int, seed: int, *, run: int | str | None = None
                         ) -> tuple[pd.DataFrame, SeedInfo]:
        """Train a fresh generator on a copy of ``train`` and sample ``n`` records from it.

        Parameters
        ----------
        train : pandas.DataFrame
            The training frame; the generator gets a deep copy, so ``train`` is never changed.
        n : int
            How many records to sample (at least 1).
        seed : int
            The run's seed, in ``[0, 2**32)`` (:meth:`run_seed` gives one per run). It reaches the generator by
            the first means it offers: a ``random_state`` or ``seed`` keyword of the factory or the adapter, a
            ``set_random_state(seed)`` method, a ``random_state`` or ``seed`` attribute (set on the fresh copy),
            the ``seed`` argument of the two functions (the same seed for both). The global seeds of NumPy,
            Python's ``random`` and PyTorch (when loaded) are set around the run in every case, and restored
            afterwards.
        run : int or str, optional
            The run's name in error messages (default: named by its seed).

        Returns
        -------
        sample : pandas.DataFrame
            ``n`` rows with the training columns, in their order and (where the values allow) their dtypes.
        seed_info : SeedInfo
            Whether and how the seed reached the generator.

        Raises
        ------
        GeneratorError
            Building, ``fit`` or ``sample`` raised (the cause is chained), or the sample is not what
            :func:`check_sample` requires; the message names the training run.
        """
        if not isinstance(train, pd.DataFrame):
            raise TypeError(f"train must be a pandas DataFrame, got {type(train).__name__}")
        if train.shape[1] == 0 or len(train) == 0:
            raise ValueError(f"train must have at least one row and one column, got shape {train.shape}")
        n = int(check("n", n, Interval("int", 1)))
        seed = int(check("seed", seed, Interval("int", 0, SEED_LIMIT, high_open=True)))
        where = f"training run {run} (seed {seed})" if run is not None else f"the training run with seed {seed}"
        frame = train.copy(deep=True)
        with global_seeds(seed):
            if self.kind == "functions":
                fit_fn, sample_fn = self.source
                try:
                    model = fit_fn(frame, seed)
                except Exception as exc:
                    raise GeneratorError(f"{where}: fit_fn raised {type(exc).__name__}: {exc}") from exc
                try:
                    out = sample_fn(model, n, seed)
                except Exception as exc:
                    raise GeneratorError(f"{where}: sample_fn raised {type(exc).__name__}: {exc}") from exc
                info = SeedInfo(seed, True, "passed the seed to fit_fn(frame, seed) and sample_fn(model, n, seed)")
            else:
                try:
                    gen, info = self.build(seed)
                except GeneratorError as exc:
                    raise GeneratorError(f"{where}: {exc}") from exc
                except ImportError:
                    raise
                except Exception as exc:
                    raise GeneratorError(f"{where}: building the generator raised {type(exc).__name__}: "
                                         f"{exc}") from exc
                try:
                    gen.fit(frame)
                except Exception as exc:
                    raise GeneratorError(f"{where}: fit raised {type(exc).__name__}: {exc}") from exc
                try:
                    out = gen.sample(n)
                except Exception as exc:
                    raise GeneratorError(f"{where}: sample raised {type(exc).__name__}: {exc}") from exc
                if self.kind == "adapter":
                    info = SeedInfo(seed, bool(gen.seeded), "passed random_state= to the adapter, which "
                                    + gen.seeding)
        return check_sample(out, train, n, where=where), info

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe summary for the report (``kind``, ``description``, ``random_state``, ``settings``)."""
        return {"kind": self.kind, "description": self.description, "random_state": int(self.random_state),
                "settings": {str(k): _short(v) for k, v in self.settings.items()}}


def as_generator(obj: Any, *, settings: Mapping[str, Any] | None = None, random_state: int | None = None
                 ) -> GeneratorSpec:
    """What a user has, turned into a :class:`GeneratorSpec` that trains a fresh generator for every run.

    Parameters
    ----------
    obj : object
        One of:

        - an object with ``fit(frame)`` and ``sample(n)`` methods (a :class:`Generator`): deep-copied
          (``copy.deepcopy``) for each run, so no run sees another's training;
        - a zero-argument factory (a class or a function) returning such an object, called for each run; a
          ``random_state`` or ``seed`` keyword it accepts receives the run's seed;
        - a pair ``(fit_fn, sample_fn)`` with ``fit_fn(frame, seed) -> model`` and
          ``sample_fn(model, n, seed) -> DataFrame``;
        - an adapter name ``"library:name"``: ``"sdv:GaussianCopulaSynthesizer"`` (a class of
          ``sdv.single_table``), ``"synthcity:ctgan"`` (a synthcity plugin), ``"smartnoise:mst"`` (a
          smartnoise-synth synthesizer, which needs ``settings={"epsilon": ...}``);
        - a :class:`GeneratorSpec`, returned as it is (with ``random_state`` replaced when given).
    settings : mapping, optional
        The adapter's keyword settings (only with an adapter name): passed to the synthesizer's constructor, the
        plugin or ``Synthesizer.create``.
    random_state : int, optional
        The root of the runs' seeds (:meth:`GeneratorSpec.run_seed`). ``None`` draws one, which the spec records.

    Returns
    -------
    GeneratorSpec

    Raises
    ------
    TypeError
        ``obj`` is none of the above, or a factory needs arguments.
    ValueError
        An unknown adapter library, or ``settings`` without an adapter name.
    ImportError
        The adapter's library is not installed (the message names the pip extra).

    >>> spec = as_generator(SequentialCART, random_state=1)
    >>> spec.kind, spec.description.split(", settings: ")[1]
    ('factory', 'min_samples_leaf=1, random_state=None')
    >>> try:
    ...     as_generator(NoisyMarginals)
    ... except TypeError as exc:
    ...     print(exc)  # doctest: +NORMALIZE_WHITESPACE
    a generator factory must be callable without arguments, but NoisyMarginals needs epsilon; pass an instance
    or functools.partial(NoisyMarginals, epsilon=...)
    """
    if random_state is None:
        root = int(np.random.SeedSequence().generate_state(1, dtype=np.uint32)[0])
    else:
        root = int(check("random_state", random_state, Interval("int", 0)))
    if isinstance(obj, GeneratorSpec):
        if settings:
            raise ValueError("settings= goes with an adapter name, not with a GeneratorSpec")
        return obj if random_state is None else GeneratorSpec(obj.kind, obj.source, obj.settings, root,
                                                              obj.description)
    if settings is not None and not isinstance(obj, str):
        raise ValueError("settings= goes with an adapter name such as 'sdv:GaussianCopulaSynthesizer'; a "
                         f"generator given as {type(obj).__name__} carries its own settings")
    if isinstance(obj, str):
        library, _, name = obj.partition(":")
        if library not in ADAPTERS or not name:
            raise ValueError(f"an adapter name must be 'library:name' with library one of "
                             f"{', '.join(repr(k) for k in ADAPTERS)}, e.g. 'sdv:GaussianCopulaSynthesizer'; "
                             f"got {obj!r}")
        adapter = ADAPTERS[library]
        given = dict(settings or {})
        if "random_state" in given:
            raise ValueError("settings= must not hold random_state: each run gets its own seed "
                             "(as_generator(random_state=...) sets their root)")
        probe = adapter(name, **given)  # fails now, not in the first run, when the library is missing
        return GeneratorSpec("adapter", _bind(adapter, name), given, root, probe.description)
    if isinstance(obj, (tuple, list)):
        if len(obj) != 2 or not all(callable(f) for f in obj):
            raise TypeError(f"a generator given as a {type(obj).__name__} must be a pair of functions "
                            f"(fit_fn, sample_fn), got {_short(obj)}")
        names = " and ".join(getattr(f, "__qualname__", type(f).__name__) for f in obj)
        return GeneratorSpec("functions", tuple(obj), {}, root, f"functions {names} (fit_fn(frame, seed), "
                             "sample_fn(model, n, seed))")
    if not isinstance(obj, type) and callable(getattr(obj, "fit", None)) and callable(getattr(obj, "sample", None)):
        own = getattr(obj, "description", None)
        text = own if isinstance(own, str) else describe_class(type(obj), _settings_of(obj))
        return GeneratorSpec("instance", obj, {}, root, text)
    if callable(obj):
        required = [p for p in _required_parameters(obj) if p not in ("random_state", "seed")]
        label = getattr(obj, "__qualname__", _short(obj))
        if required:
            raise TypeError(f"a generator factory must be callable without arguments, but {label} needs "
                            f"{', '.join(required)}; pass an instance or functools.partial({label}, "
                            f"{', '.join(p + '=...' for p in required)})")
        if isinstance(obj, type):
            defaults = {n: p.default for n, p in inspect.signature(obj).parameters.items()
                        if p.default is not p.empty}
            text = describe_class(obj, defaults)
        elif isinstance(obj, functools.partial) and isinstance(obj.func, type) and not obj.args:
            # a class with some settings fixed: named as the class, with every setting it will be built with
            defaults = {n: p.default for n, p in inspect.signature(obj.func).parameters.items()
                        if p.default is not p.empty}
            text = describe_class(obj.func, {**defaults, **obj.keywords})
        else:
            text = f"factory {label} (a fresh generator per run)"
        return GeneratorSpec("factory", obj, {}, root, text)
    raise TypeError("a generator must be an object with fit() and sample(), a zero-argument factory, a pair of "
                    f"functions (fit_fn, sample_fn) or an adapter name such as 'sdv:GaussianCopulaSynthesizer'; "
                    f"got {_what(obj)}")


def _bind(adapter: type[_Adapter], name: str) -> Callable[..., _Adapter]:
    def make(*, random_state: int, **settings: Any) -> _Adapter:
        return adapter(name, random_state=random_state, **settings)

    make.__qualname__ = f"{adapter.__qualname__}({name!r})"
    return make


# ---------------------------------------------------------------------------------------------------------------
# adapters


def _require(module: str, extra: str, label: str) -> Any:
    """``module`` imported, or an ``ImportError`` naming the pip extra that installs it."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        top = module.split(".")[0]
        if exc.name is not None and exc.name.split(".")[0] != top:
            raise ImportError(f"the '{extra}' generator adapter needs {label}, which is installed but failed to "
                              f"import ({exc}); reinstall it: pip install 'synthpriv-report[{extra}]'") from exc
        raise ImportError(f"the '{extra}' generator adapter needs {label}: "
                          f"pip install 'synthpriv-report[{extra}]'") from exc


class _Adapter:
    """What the three adapters share: a name, settings, a seed, the sentence on how the seed was used."""

    library = ""
    extra = ""
    label = ""

    def __init__(self, name: str, *, random_state: int | None = None, **settings: Any) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError(f"the {self.extra} adapter needs a generator name, got {name!r}")
        self.name = name
        self.random_state = None if random_state is None else int(check("random_state", random_state,
                                                                         Interval("int", 0)))
        self.settings = dict(settings)
        self.seeded = False
        self.seeding = "was not yet trained"
        self._model: Any = None
        self._module = _require(self.library, self.extra, self.label)

    @property
    def description(self) -> str:
        top = self.library.split(".")[0]
        version = package_version(top)
        return (f"{self.label} {self.name} ({self.extra} adapter, {top} {version or 'version unknown'}), "
                f"settings: {_settings_text(self.settings)}")

    def _fitted(self) -> Any:
        if self._model is None:
            raise RuntimeError(f"{type(self).__name__}.sample() was called before fit()")
        return self._model


class SDVGenerator(_Adapter):
    """An SDV single-table synthesizer (``sdv>=1.10``) as a :class:`Generator`.

    Parameters
    ----------
    name : str
        A class of ``sdv.single_table``, e.g. ``"GaussianCopulaSynthesizer"``, ``"CTGANSynthesizer"``.
    metadata : object, optional
        SDV metadata for the table; by default detected from the training frame at ``fit``, by what the
        installed SDV offers: ``Metadata.detect_from_dataframe`` (SDV 1.15 to 1.x),
        ``Metadata.detect_from_dataframes({"table": frame})`` (SDV 2) or
        ``SingleTableMetadata().detect_from_dataframe`` (SDV 1.0 to 1.14). Detection may mark a column as an
        identifier or as personal data (an e-mail, a name), which SDV then replaces by made-up values: pass
        metadata to decide that yourself.
    random_state : int, optional
        Passed to the synthesizer's ``set_random_state(seed)`` (or SDV 2.0's ``_set_random_state``) after
        fitting; the global seeds of NumPy, Python's ``random`` and PyTorch are set around fitting and sampling
        (:attr:`seeding` says what was done; see :meth:`fit`).
    **settings
        The synthesizer's constructor arguments (``epochs=``, ``enforce_min_max_values=``...).

    Raises
    ------
    ImportError
        SDV is not installed (``pip install 'synthpriv-report[sdv]'``).
    ValueError
        ``name`` is not a class of ``sdv.single_table``.
    """

    library = "sdv"
    extra = "sdv"
    label = "SDV"

    def __init__(self, name: str, *, metadata: Any = None, random_state: int | None = None,
                 **settings: Any) -> None:
        super().__init__(name, random_state=random_state, **settings)
        self.metadata = metadata
        single_table = _require("sdv.single_table", self.extra, self.label)
        self._cls: Any = getattr(single_table, name, None)
        if not isinstance(self._cls, type):
            known = sorted(n for n in dir(single_table) if n.endswith("Synthesizer") and not n.startswith("_"))
            raise ValueError(f"sdv.single_table has no synthesizer {name!r}; it has {', '.join(known)}")

    def _metadata(self, frame: pd.DataFrame) -> Any:
        if self.metadata is not None:
            return self.metadata
        meta = _require("sdv.metadata", self.extra, self.label)
        found: Any = getattr(meta, "Metadata", None)
        if callable(getattr(found, "detect_from_dataframe", None)):  # SDV 1.15 to 1.x
            return found.detect_from_dataframe(data=frame, table_name="table")
        if callable(getattr(found, "detect_from_dataframes", None)):  # SDV 2
            return found.detect_from_dataframes({"table": frame})
        single = meta.SingleTableMetadata()  # SDV 1.0 to 1.14
        single.detect_from_dataframe(frame)
        return single

    def fit(self, frame: pd.DataFrame) -> SDVGenerator:
        """Detect the metadata (unless given), build the synthesizer, fit it on ``frame``, then seed its sampling.

        SDV forgets a random state at ``fit`` and, unless one is set after fitting, samples with its own fixed
        seed (``FIXED_RNG_SEED`` in SDV 1 and 2), so the seed is set after ``fit``: with
        ``set_random_state(seed)`` where the synthesizer has it, else with ``_set_random_state(seed)`` (what SDV
        2.0 offers), else not at all (:attr:`seeding` says which). Fitting runs under the global seeds of NumPy,
        Python's ``random`` and PyTorch.
        """
        metadata = self._metadata(frame)
        synth = self._cls(metadata, **self.settings)
        tables = getattr(metadata, "tables", None)
        self._table = next(iter(tables)) if isinstance(tables, Mapping) and len(tables) == 1 else "table"
        # SDV 2 takes and returns {table name: frame}; SDV 1 a frame
        data: Any = {self._table: frame} if self._dict_api() else frame
        with global_seeds(self.random_state) if self.random_state is not None else contextlib.nullcontext():
            synth.fit(data)
        if self.random_state is None:
            self.seeded, self.seeding = False, "was given no seed"
        elif callable(getattr(synth, "set_random_state", None)):
            synth.set_random_state(self.random_state)
            self.seeded = True
            self.seeding = (f"called the synthesizer's set_random_state({self.random_state}) after fitting, which "
                            "ran under the global seeds")
        elif callable(getattr(synth, "_set_random_state", None)):
            synth._set_random_state(self.random_state)
            self.seeded = True
            self.seeding = (f"called the synthesizer's _set_random_state({self.random_state}) after fitting (this "
                            "SDV has no public set_random_state), and fitting ran under the global seeds")
        else:
            self.seeded = False
            self.seeding = ("set the global seeds of NumPy, Python's random and PyTorch only (this SDV synthesizer "
                            "has no set_random_state)")
        self._model = synth
        return self

    def _dict_api(self) -> bool:
        version = package_version("sdv") or "1"
        major = version.split(".")[0]
        return major.isdigit() and int(major) >= 2

    def sample(self, n: int) -> pd.DataFrame:
        """``synthesizer.sample(num_rows=n)`` (the table's frame, from SDV 2's ``{table name: frame}``)."""
        synth = self._fitted()
        with global_seeds(self.random_state + 1) if self.random_state is not None else contextlib.nullcontext():
            out = synth.sample(num_rows=int(n))
        if isinstance(out, Mapping) and len(out) == 1:
            return next(iter(out.values()))
        return out


class SynthcityGenerator(_Adapter):
    """A synthcity plugin (``synthcity>=0.2.10``) as a :class:`Generator`.

    Parameters
    ----------
    name : str
        A plugin name, e.g. ``"ctgan"``, ``"marginal_distributions"``, ``"dpgan"``.
    random_state : int, optional
        Passed to ``Plugins().get(name, random_state=seed, **settings)``.
    **settings
        The plugin's settings.

    Raises
    ------
    ImportError
        synthcity is not installed (``pip install 'synthpriv-report[synthcity]'``).
    """

    library = "synthcity.plugins"
    extra = "synthcity"
    label = "synthcity"

    def fit(self, frame: pd.DataFrame) -> SynthcityGenerator:
        """``Plugins().get(name, random_state=seed, **settings).fit(frame)``."""
        kwargs = dict(self.settings)
        if self.random_state is not None:
            kwargs["random_state"] = self.random_state
            self.seeded, self.seeding = True, f"passed random_state={self.random_state} to Plugins().get"
        else:
            self.seeded, self.seeding = False, "was given no seed"
        plugin = self._module.Plugins().get(self.name, **kwargs)
        plugin.fit(frame)
        self._model = plugin
        return self

    def sample(self, n: int) -> pd.DataFrame:
        """``plugin.generate(count=n).dataframe()``."""
        return self._fitted().generate(count=int(n)).dataframe()


class SmartNoiseGenerator(_Adapter):
    """A smartnoise-synth synthesizer (``smartnoise-synth>=1.0``) as a :class:`Generator`.

    Parameters
    ----------
    name : str
        A synthesizer name for ``Synthesizer.create``, e.g. ``"mst"``, ``"aim"``, ``"patectgan"``.
    epsilon : float
        The privacy budget of the synthesizer (required).
    preprocessor_eps : float, optional
        Budget for the preprocessor to learn the bounds of continuous columns, passed to ``fit`` when given; the
        total spent is ``epsilon + preprocessor_eps``.
    fit_settings : mapping, optional
        Further ``fit`` keywords (``categorical_columns=``, ``continuous_columns=``...).
    random_state : int, optional
        smartnoise-synth takes no seed: the global seeds of NumPy, Python's ``random`` and PyTorch are set
        around fitting and sampling, so :attr:`seeded` is ``False``.
    **settings
        Further ``Synthesizer.create`` keywords.

    Raises
    ------
    ImportError
        smartnoise-synth is not installed (``pip install 'synthpriv-report[smartnoise]'``).
    """

    library = "snsynth"
    extra = "smartnoise"
    label = "smartnoise-synth"

    def __init__(self, name: str, *, epsilon: float | None = None, preprocessor_eps: float | None = None,
                 fit_settings: Mapping[str, Any] | None = None, random_state: int | None = None,
                 **settings: Any) -> None:
        if epsilon is None:
            raise ValueError("the smartnoise adapter needs epsilon=, the synthesizer's privacy budget "
                             "(settings={'epsilon': 1.0})")
        epsilon = check("epsilon", epsilon, Interval("real", 0.0, low_open=True))
        super().__init__(name, random_state=random_state, epsilon=epsilon, **settings)
        self.preprocessor_eps = (None if preprocessor_eps is None
                                 else check("preprocessor_eps", preprocessor_eps, Interval("real", 0.0)))
        self.fit_settings = dict(fit_settings or {})

    def fit(self, frame: pd.DataFrame) -> SmartNoiseGenerator:
        """``Synthesizer.create(name, epsilon=..., **settings).fit(frame, preprocessor_eps=...)``."""
        synth = self._module.Synthesizer.create(self.name, **self.settings)
        kwargs = dict(self.fit_settings)
        if self.preprocessor_eps is not None:
            kwargs["preprocessor_eps"] = self.preprocessor_eps
        self.seeded = False
        self.seeding = ("set the global seeds of NumPy, Python's random and PyTorch only (smartnoise-synth takes "
                        "no seed)" if self.random_state is not None else "was given no seed")
        with global_seeds(self.random_state) if self.random_state is not None else contextlib.nullcontext():
            synth.fit(frame, **kwargs)
        self._model = synth
        return self

    def sample(self, n: int) -> pd.DataFrame:
        """``synthesizer.sample(n)``."""
        synth = self._fitted()
        with global_seeds(self.random_state + 1) if self.random_state is not None else contextlib.nullcontext():
            return synth.sample(int(n))


#: The adapter libraries :func:`as_generator` knows, by the prefix of an adapter name.
ADAPTERS: dict[str, type[_Adapter]] = {"sdv": SDVGenerator, "synthcity": SynthcityGenerator,
                                       "smartnoise": SmartNoiseGenerator}


# ---------------------------------------------------------------------------------------------------------------
# the reference generators


def _check_frame(frame: Any, who: str) -> pd.DataFrame:
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{who}.fit() needs a pandas DataFrame, got {type(frame).__name__}")
    if len(frame) == 0 or frame.shape[1] == 0:
        raise ValueError(f"{who}.fit() needs at least one row and one column, got shape {frame.shape}")
    if len(set(frame.columns)) != frame.shape[1]:
        raise ValueError(f"{who}.fit() needs distinct column names, got {list(frame.columns)}")
    return frame


def _is_numeric(series: pd.Series) -> bool:
    return bool(pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_bool_dtype(series.dtype))


def _as_floats(series: pd.Series) -> NDArray[np.float64]:
    return np.array(series.to_numpy(dtype=float, na_value=np.nan), dtype=np.float64)  # a copy, writable


def _typed(values: pd.Series, like: pd.Series, column: Any) -> pd.Series:
    """Sampled values in the training column's dtype where they fit it (see :func:`check_sample`)."""
    return _align_column(values, like, column, "the sample")


def laplace_counts(counts: NDArray[np.float64], scale: float, rng: np.random.Generator) -> NDArray[np.float64]:
    """``counts`` plus independent Laplace noise of scale ``scale`` in each cell (the Laplace mechanism).

    Parameters
    ----------
    counts : ndarray of shape (k,)
        A histogram's true counts.
    scale : float
        The noise scale ``b`` (the noise has variance ``2 b**2``); ``sensitivity / epsilon`` for epsilon-DP.
    rng : numpy.random.Generator
        The source of the noise.

    Returns
    -------
    ndarray of shape (k,)
        The noisy counts (they may be negative or fractional; clipping is left to the caller).

    >>> laplace_counts(np.array([3.0, 1.0]), 1e-12, np.random.default_rng(0)).round(6).tolist()
    [3.0, 1.0]
    """
    scale = check("scale", scale, Interval("real", 0.0, low_open=True))
    return np.asarray(counts, dtype=np.float64) + rng.laplace(0.0, scale, size=np.shape(counts))


@dataclass(frozen=True)
class _Cells:
    """One column's histogram cells: numeric bins over ``(low, high)`` or a list of categories, and whether a
    cell for missing values ends the list."""

    numeric: bool
    low: float = 0.0
    high: float = 0.0
    bins: int = 1
    integer: bool = False
    categories: tuple[Any, ...] = ()
    missing: bool = False

    @property
    def size(self) -> int:
        return (self.bins if self.numeric else len(self.categories)) + int(self.missing)

    def counts(self, series: pd.Series) -> NDArray[np.float64]:
        """The column's histogram; values outside the domain are clipped (numbers) or left out (categories)."""
        out = np.zeros(self.size)
        if self.numeric:
            x = _as_floats(series)
            na = np.isnan(x)
            v = np.clip(x[~na], self.low, self.high)
            width = self.high - self.low
            idx = (np.zeros(len(v), dtype=np.intp) if width == 0
                   else np.minimum(((v - self.low) / width * self.bins).astype(np.intp), self.bins - 1))
            out[: self.bins] = np.bincount(idx, minlength=self.bins)
            n_missing = int(na.sum())
        else:
            codes = pd.Index(list(self.categories), dtype=object).get_indexer(series.astype(object))
            np.add.at(out, codes[codes >= 0], 1.0)
            n_missing = int(series.isna().sum())
        if self.missing:
            out[-1] = n_missing
        return out

    def draw(self, probs: NDArray[np.float64], n: int, rng: np.random.Generator) -> pd.Series:
        cell = rng.choice(self.size, size=n, p=probs)
        is_missing = cell == self.size - 1 if self.missing else np.zeros(n, dtype=bool)
        if self.numeric:
            width = (self.high - self.low) / self.bins
            x = self.low + (cell + rng.random(n)) * width
            if self.integer:
                x = np.clip(np.round(x), math.ceil(self.low), math.floor(self.high))
            x = np.clip(x, self.low, self.high)
            x[is_missing] = np.nan
            return pd.Series(x)
        values = np.empty(n, dtype=object)
        values[~is_missing] = np.asarray(self.categories, dtype=object)[cell[~is_missing]]
        values[is_missing] = np.nan
        return pd.Series(values, dtype=object)


def _is_range(spec: Any) -> bool:
    return (isinstance(spec, tuple) and len(spec) == 2
            and all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))
                    for v in spec))


class NoisyMarginals:
    r"""An epsilon-differentially private generator: noisy one-way marginals, columns drawn independently.

    For each of the ``d`` columns the generator counts the training records in each cell of a histogram over
    the column's *public* domain, adds Laplace noise of scale ``d / epsilon`` to every count, clips negative
    counts to 0 and normalises; it then draws each column of each synthetic record independently from its
    noisy histogram (a numeric value uniformly within its bin, rounded for an integer column).

    **Why it is epsilon-DP (add/remove-one-record neighbours).** With the domain fixed in advance, adding or
    removing one record changes exactly one cell of each of the ``d`` histograms by 1 (or none, for a value
    outside a categorical domain), so the vector of all counts has L1 sensitivity at most ``d``. The Laplace
    mechanism with scale ``d / epsilon`` is then epsilon-DP with delta = 0 (Dwork, McSherry, Nissim and Smith,
    "Calibrating Noise to Sensitivity in Private Data Analysis", TCC 2006). Clipping, normalising and sampling
    use only the noisy counts and the public domain, so they are post-processing and keep the guarantee
    (Dwork and Roth, "The Algorithmic Foundations of Differential Privacy", 2014, Prop. 2.1).

    **The domain must be public.** Pass ``domain={column: (low, high)}`` for a numeric column and
    ``domain={column: [category, ...]}`` for a categorical one, chosen without looking at the training data
    (a codebook, a census table, common sense). With ``domain=None`` the ranges and category lists are read
    from the training data: the minimum, maximum and the set of categories present then leak into the output,
    and the generator is **not** differentially private: :attr:`dp_holds` is ``False`` and the description
    says so. Use that only as a quick baseline.

    Parameters
    ----------
    epsilon : float
        The privacy budget, > 0.
    domain : mapping, optional
        ``{column: (low, high)}`` (a tuple of two numbers: ``bins`` equal-width bins over ``[low, high]``) or
        ``{column: categories}`` (any other sequence; a numeric column may be given categories too). Every
        training column must be listed, and nothing else. Numbers outside ``[low, high]`` are clipped into it;
        a value not in a column's categories counts in no cell. A missing value (NaN/None) is a cell of its
        own where the categories list ``None`` or NaN; in a numeric column with a given range, missing values
        count in no cell (the sample has none there). With ``domain=None``: numeric columns (not boolean)
        get their observed range, the others their observed values, and a column with missing values a
        missing cell.
    bins : int
        Number of equal-width bins of a numeric column (default 20).
    random_state : int or numpy.random.Generator, optional
        Seed of the noise and the sampling; the same seed gives the same fit and the same samples.

    Attributes
    ----------
    epsilon : float
    delta : float
        Always 0.0 (pure DP).
    dp_holds : bool
        Whether the guarantee holds: ``True`` only with a given ``domain``.
    noise_scale_ : float
        ``d / epsilon``, set by :meth:`fit`.
    noisy_counts_ : dict
        ``{column: noisy counts}`` before clipping (the released statistic; set by :meth:`fit`).
    marginals_ : dict
        ``{column: probabilities}`` the sample is drawn from.

    >>> real = pd.DataFrame({"age": [23, 35, 47, 51], "job": ["a", "b", "a", "c"]})
    >>> gen = NoisyMarginals(1.0, domain={"age": (0, 100), "job": ["a", "b", "c"]}, random_state=0).fit(real)
    >>> gen.noise_scale_, gen.dp_holds
    (2.0, True)
    >>> s = gen.sample(5)
    >>> bool(s["age"].between(0, 100).all()), bool(s["job"].isin(["a", "b", "c"]).all()), str(s["age"].dtype)
    (True, True, 'int64')
    """

    def __init__(self, epsilon: float, *, domain: Mapping[str, Sequence[Any]] | None = None, bins: int = 20,
                 random_state: RandomState = None) -> None:
        self.epsilon = check("epsilon", epsilon, Interval("real", 0.0, low_open=True))
        self.delta = 0.0
        if domain is not None and not isinstance(domain, Mapping):
            raise TypeError(f"domain must be a mapping {{column: (low, high) or categories}} or None, got "
                            f"{type(domain).__name__}")
        self.domain = None if domain is None else dict(domain)
        self.bins = check("bins", bins, Interval("int", 1))
        self.random_state = _check_random_state(random_state)

    @property
    def dp_holds(self) -> bool:
        """Whether the output is epsilon-DP: only with a public ``domain`` given."""
        return self.domain is not None

    def get_params(self) -> dict[str, Any]:
        """The constructor's settings."""
        return {"epsilon": self.epsilon, "domain": self.domain, "bins": self.bins, "random_state": self.random_state}

    @property
    def description(self) -> str:
        """One line for the report: the class, its settings and whether the DP guarantee holds."""
        head = describe_class(type(self), {"epsilon": self.epsilon, "delta": self.delta, "bins": self.bins,
                                           "random_state": self.random_state})
        if self.dp_holds:
            return head + f"; epsilon-DP (delta = 0) over the public domain given for {len(self.domain or {})} columns"
        return head + ("; NOT differentially private: no public domain was given, so the ranges and categories "
                       "are read from the training data and leak (dp_holds=False)")

    def _cells(self, frame: pd.DataFrame) -> dict[Any, _Cells]:
        cols = list(frame.columns)
        if self.domain is not None:
            missing = [c for c in cols if c not in self.domain]
            extra = [c for c in self.domain if c not in set(cols)]
            if missing or extra:
                words = []
                if missing:
                    words.append(f"lacks the training column{'s' if len(missing) > 1 else ''} {_names(missing)}")
                if extra:
                    words.append(f"names column{'s' if len(extra) > 1 else ''} {_names(extra)} the training data "
                                 "lack")
                raise ValueError("domain " + " and ".join(words) + "; it must list every training column")
        out: dict[Any, _Cells] = {}
        for c in cols:
            s = frame[c]
            integer = bool(pd.api.types.is_integer_dtype(s.dtype))
            if self.domain is None:
                if _is_numeric(s):
                    x = _as_floats(s)
                    ok = x[~np.isnan(x)]
                    low, high = (float(ok.min()), float(ok.max())) if len(ok) else (0.0, 0.0)
                    out[c] = _Cells(True, low, high, self.bins, integer, missing=bool(np.isnan(x).any()))
                elif pd.api.types.is_datetime64_any_dtype(s.dtype):
                    raise TypeError(f"NoisyMarginals cannot model the date column {c!r}; convert it to numbers")
                else:
                    seen = pd.unique(s.dropna())
                    out[c] = _Cells(False, categories=tuple(seen), missing=bool(s.isna().any()))
                continue
            spec = self.domain[c]
            if _is_range(spec):
                low, high = float(spec[0]), float(spec[1])
                if not (math.isfinite(low) and math.isfinite(high) and low <= high):
                    raise ValueError(f"domain[{c!r}] must be a range (low, high) of finite numbers with low <= high, "
                                     f"got {spec!r}")
                if not _is_numeric(s):
                    raise ValueError(f"domain[{c!r}] is a numeric range {spec!r} but column {c!r} holds "
                                     f"{s.dtype} values; give it a list of categories")
                out[c] = _Cells(True, low, high, self.bins, integer)
            elif isinstance(spec, (str, bytes)) or not isinstance(spec, (Sequence, np.ndarray, pd.Index)):
                raise TypeError(f"domain[{c!r}] must be a tuple (low, high) or a list of categories, got {spec!r}")
            else:
                values = list(spec)
                present = [v for v in values if not (v is None or (isinstance(v, float) and math.isnan(v)))]
                if not values:
                    raise ValueError(f"domain[{c!r}] lists no category")
                if len(set(present)) != len(present):
                    raise ValueError(f"domain[{c!r}] lists a category twice: {_short(values)}")
                out[c] = _Cells(False, categories=tuple(present), missing=len(present) < len(values))
        return out

    def fit(self, frame: pd.DataFrame) -> NoisyMarginals:
        """Count, add the noise, clip and normalise each column's histogram.

        Parameters
        ----------
        frame : pandas.DataFrame
            The training records (not changed).

        Returns
        -------
        NoisyMarginals
            ``self``.
        """
        frame = _check_frame(frame, "NoisyMarginals")
        self._rng = _rng(self.random_state)
        self.cells_ = self._cells(frame)
        self.noise_scale_ = frame.shape[1] / self.epsilon
        self.noisy_counts_: dict[Any, NDArray[np.float64]] = {}
        self.marginals_: dict[Any, NDArray[np.float64]] = {}
        for c, cells in self.cells_.items():
            noisy = laplace_counts(cells.counts(frame[c]), self.noise_scale_, self._rng)
            clipped = np.clip(noisy, 0.0, None)
            total = clipped.sum()
            self.noisy_counts_[c] = noisy
            self.marginals_[c] = clipped / total if total > 0 else np.full(cells.size, 1.0 / cells.size)
        self.dtypes_ = frame.iloc[:0].copy()
        return self

    def sample(self, n: int) -> pd.DataFrame:
        """``n`` synthetic records, each column drawn independently from its noisy marginal.

        Returns
        -------
        pandas.DataFrame
            The training columns, in the training dtypes where the values fit them (an integer column with a
            missing cell becomes float).
        """
        if not hasattr(self, "marginals_"):
            raise RuntimeError("NoisyMarginals.sample() was called before fit()")
        n = int(check("n", n, Interval("int", 0)))
        out = {c: _typed(cells.draw(self.marginals_[c], n, self._rng), self.dtypes_[c], c)
               for c, cells in self.cells_.items()}
        return pd.DataFrame(out, columns=list(self.cells_))


class SequentialCART:
    """Sequential CART, as synthpop makes it: each column drawn from a tree on the columns before it.

    The first column is drawn from its empirical distribution (a bootstrap of the training values). Each next
    column ``j`` has a decision tree (scikit-learn's ``DecisionTreeClassifier`` for a categorical column,
    ``DecisionTreeRegressor`` for a numeric one, ``min_samples_leaf`` as given) fitted on columns ``0..j-1``
    of the training data; a synthetic record falls into one leaf of that tree by its already drawn values, and
    takes column ``j`` from a training record drawn uniformly among those in that leaf (not the leaf's mean or
    mode). Every value in the output is a training value (Reiter, "Using CART to generate partially synthetic
    public use microdata", J. Official Statistics 2005; Nowok, Raab and Dibben, "synthpop: Bespoke Creation of
    Synthetic Data in R", J. Statistical Software 74(11), 2016).

    With ``min_samples_leaf=1`` the trees grow until their leaves are pure, so a synthetic record usually
    continues the training record its first value came from: the generator memorises and copies training
    records, which is what makes it a useful leaky reference. A larger leaf mixes records.

    Encoding, stated: a categorical (non-numeric, or boolean) predictor enters the trees as ordinal codes in
    order of first appearance; a numeric predictor as its value. A missing value is a value of its own: in a
    categorical column it is one more code (and one more class as a target); in a numeric column it is set
    below the column's minimum (``min - 1``), so one split separates it from the rest, both as a predictor
    and, for the regressor's splits, as a target. The output holds the original values, NaN included.

    Parameters
    ----------
    min_samples_leaf : int
        The trees' smallest leaf (default 1: memorisation).
    random_state : int or numpy.random.Generator, optional
        Seed of the bootstrap, the trees' tie-breaking and the draws within leaves.

    >>> real = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6], "c": list("abcabc"), "y": [0.5, 1.5, 2.5, 3.5, 4.5, 5.5]})
    >>> s = SequentialCART(min_samples_leaf=1, random_state=0).fit(real).sample(20)
    >>> bool(s.merge(real, how="left", indicator=True)["_merge"].eq("both").all())
    True
    """

    def __init__(self, min_samples_leaf: int = 1, *, random_state: RandomState = None) -> None:
        self.min_samples_leaf = check("min_samples_leaf", min_samples_leaf, Interval("int", 1))
        self.random_state = _check_random_state(random_state)

    def get_params(self) -> dict[str, Any]:
        """The constructor's settings."""
        return {"min_samples_leaf": self.min_samples_leaf, "random_state": self.random_state}

    @property
    def description(self) -> str:
        """One line for the report: the class and its settings."""
        return describe_class(type(self), self.get_params())

    def fit(self, frame: pd.DataFrame) -> SequentialCART:
        """Encode the columns and fit one tree per column after the first.

        Parameters
        ----------
        frame : pandas.DataFrame
            The training records (not changed; a copy is kept to draw values from).

        Returns
        -------
        SequentialCART
            ``self``.
        """
        from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

        frame = _check_frame(frame, "SequentialCART")
        self._rng = _rng(self.random_state)
        self._train = frame.reset_index(drop=True).copy(deep=True)
        n, d = frame.shape
        encoded = np.empty((n, d), dtype=np.float64)
        numeric = []
        for j, c in enumerate(frame.columns):
            s = self._train[c]
            if _is_numeric(s):
                x = _as_floats(s)
                na = np.isnan(x)
                if na.any():
                    x[na] = (float(x[~na].min()) - 1.0) if (~na).any() else 0.0
                encoded[:, j] = x
                numeric.append(True)
            else:
                encoded[:, j] = pd.factorize(s, use_na_sentinel=False)[0]
                numeric.append(False)
        self._encoded = encoded
        # per column j >= 1: (tree, training rows sorted by leaf, each node's first position and count there)
        self._steps: list[tuple[Any, NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]] = []
        for j in range(1, d):
            seed = int(self._rng.integers(SEED_LIMIT))
            tree = (DecisionTreeRegressor(min_samples_leaf=self.min_samples_leaf, random_state=seed) if numeric[j]
                    else DecisionTreeClassifier(min_samples_leaf=self.min_samples_leaf, random_state=seed))
            X = encoded[:, :j]
            tree.fit(X, encoded[:, j] if numeric[j] else encoded[:, j].astype(np.int64))
            leaves = tree.apply(X)
            order = np.argsort(leaves, kind="stable").astype(np.int64)
            nodes = tree.tree_.node_count
            count = np.bincount(leaves, minlength=nodes).astype(np.int64)
            start = (np.cumsum(count) - count).astype(np.int64)
            self._steps.append((tree, order, start, count))
        return self

    def sample(self, n: int) -> pd.DataFrame:
        """``n`` synthetic records, column after column.

        Returns
        -------
        pandas.DataFrame
            The training columns in the training dtypes; every value is a training value of that column.
        """
        if not hasattr(self, "_steps"):
            raise RuntimeError("SequentialCART.sample() was called before fit()")
        n = int(check("n", n, Interval("int", 0)))
        n_train, d = self._encoded.shape
        donors = np.empty((n, d), dtype=np.int64)
        donors[:, 0] = self._rng.integers(0, n_train, size=n)
        X = np.empty((n, d), dtype=np.float64)
        X[:, 0] = self._encoded[donors[:, 0], 0]
        for j, (tree, order, start, count) in enumerate(self._steps, start=1):
            leaf = tree.apply(X[:, :j]) if n else np.empty(0, dtype=np.int64)
            offset = np.minimum((self._rng.random(n) * count[leaf]).astype(np.int64), count[leaf] - 1)
            donors[:, j] = order[start[leaf] + offset]
            X[:, j] = self._encoded[donors[:, j], j]
        cols = list(self._train.columns)
        return pd.DataFrame({c: self._train[c].take(donors[:, j]).reset_index(drop=True) for j, c in enumerate(cols)},
                            columns=cols)
