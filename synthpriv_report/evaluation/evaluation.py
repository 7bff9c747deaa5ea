"""The object users hold: validated data and settings, the search/cache engine, and ``results()``.

Expensive work (encodings, trees, neighbour searches, classifier fits) is cached on the evaluation's engine
(:mod:`synthpriv_report.engine`); every metric reduces cached arrays. ``results(alpha=...)`` with new reduction
parameters never searches again, and a level override only re-grades (levels are applied by
:mod:`synthpriv_report.grading.levels` after the metrics ran). Every setting is validated where it is given.

An interrupt (Ctrl-C, "Interrupt kernel" in a notebook) raises ``KeyboardInterrupt`` from every public call,
also when it arrives while a compiled kernel runs (:func:`synthpriv_report._compiled.surfacing_interrupts`). A
step's result enters the caches only once it is whole, so the next call computes what was interrupted, and gives
what an evaluation never interrupted gives.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
import shlex
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Union, get_args

import numpy as np
import pandas as pd

from .._compiled import surfacing_interrupts
from ..analysis.record import explain_record
from ..analysis.risk import records_at_risk, risk_overview, risk_rule_applies
from ..analysis.vulnerable import vulnerable_records
from ..cluster.distributed import resolve_client
from ..core import applicability
from ..core import progress as pg
from ..core.formats import DEFAULT_SET_NAMES, SET_ROLES
from ..core.params import merge_params, validate_params
from ..core.registry import MetricSpec, get_spec, metric_names, verdict_false_alarm_rate, verdict_metric_names
from ..core.release import load_context, validate_context
from ..core.results import MetricResult, ResultSet, not_computed, to_jsonable
from ..core.validation import (
    NONE,
    AnyOf,
    Boolean,
    Check,
    InstanceOf,
    Interval,
    MappingOf,
    Name,
    Names,
    Options,
    Refused,
    Setting,
    Text,
    validate_all,
)
from ..core.versions import core_versions
from ..data.containers import REAL_SETS, PreparedData, coded_texts
from ..data.identifiers import check_include_exclude, identifier_columns, split_identifiers
from ..data.preparation import prepare, reference_without_holdout
from ..data.sources import read_inputs
from ..engine.backend import Backend, backend_for
from ..engine.cache import _Engine
from ..engine.context import Context
from ..engine.requests import SearchRecord, SearchRequest, TreeRequest
from ..grading.levels import apply_level
from ..grading.verdict import compute_verdict
from ..metrics._shared.shift import holdout_shift_note, holdout_shift_of
from ..spaces import SpaceKind, SpaceSpec

if TYPE_CHECKING:
    import dask.dataframe
    import distributed

#: What a set may be given as: a pandas DataFrame, a Parquet path or a Dask DataFrame.
DataSource = Union[pd.DataFrame, str, "os.PathLike[str]", "dask.dataframe.DataFrame"]

#: How each set is called in reports when ``names=`` does not say.
DEFAULT_NAMES = DEFAULT_SET_NAMES
_ROLE = SET_ROLES


def _versions() -> dict[str, str]:
    """Package name -> installed version, and the Python version (a fresh dict each call)."""
    return core_versions()


def file_sha256(path: str | os.PathLike[str]) -> str:
    """The SHA-256 (hex) of a file's raw bytes, as ``sha256sum FILE`` prints it (read in 1 MiB blocks)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def file_name(path: str | os.PathLike[str]) -> str:
    """The last component of a path, without the folders above it (a Parquet folder's own name): what a report
    shows of an input or output path, so that it never carries the layout of the operator's machine.

    >>> file_name("/home/ana/projects/secret/real.csv"), file_name("data/adult_parquet/"), file_name("real.csv")
    ('real.csv', 'adult_parquet', 'real.csv')
    """
    p = os.fspath(path).rstrip("/\\") or os.fspath(path)
    return os.path.basename(p) or p


def input_record(role: str, name: str, source: Any) -> dict[str, Any]:
    """What the reproducibility block says of one input: its name and, for a file, its file name (never its
    folders), raw SHA-256 and size.

    A DataFrame has no file to hash (the canonical fingerprint of its analysed columns still identifies it); a
    folder (a Parquet dataset) is named, its files are hashed one by one with ``sha256sum``.
    """
    out: dict[str, Any] = {"role": role, "name": str(name), "file": None, "sha256": None, "bytes": None}
    if isinstance(source, (str, os.PathLike)):
        p = os.fspath(source)
        out["file"] = file_name(p)  # the name alone: a report does not show the folders of the operator's machine
        if os.path.isfile(p):
            out["sha256"] = file_sha256(p)
            out["bytes"] = os.path.getsize(p)
            out["note"] = "SHA-256 of the file's raw bytes (sha256sum)"
        else:
            out["note"] = "a folder (a Parquet dataset): hash each of its files with sha256sum"
    else:
        out["note"] = (f"given in memory as a {type(source).__name__}, not as a file: no raw-file SHA-256; the "
                       "canonical fingerprint identifies its analysed columns")
    return out


def _python_call(args: Mapping[str, Any], defaults: Mapping[str, Any], names: Mapping[str, str],
                 sources: Mapping[str, Any]) -> str:
    """The ``Evaluation(...)`` call with the settings that differ from their defaults (data sets by name)."""
    parts = []
    for role in ("real", "synthetic", "holdout", "reference"):
        src = sources.get(role)
        if src is None:
            continue
        shown = repr(file_name(os.fspath(src))) if isinstance(src, (str, os.PathLike)) else role
        parts.append(f"reference={shown}" if role == "reference" else shown)  # the only set passed by keyword
    for k, v in args.items():
        if k in ("client", "progress", "context") or v is None or (k in defaults and _same(v, defaults[k])):
            continue
        if isinstance(v, np.ndarray):
            v = f"<{len(v)} pairs>"
        elif isinstance(v, tuple):
            v = list(v)
        parts.append(f"{k}={v!r}")
    return "Evaluation(" + ", ".join(parts) + ")"


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except (ValueError, TypeError):
        return False


def _platform() -> dict[str, str]:
    import platform

    return {"platform": platform.platform(), "machine": platform.machine(), "python": platform.python_version(),
            "implementation": platform.python_implementation()}


def _identifiers(real: Any, *, exclude: Any, include: Any, named: tuple[Any, ...]
                 ) -> tuple[list[str], dict[str, str], dict[str, str]]:
    """Columns of ``real`` left out because they look like identifiers, with the reason, and those kept by
    ``include=`` although they look like ones.

    Returns ``(exclude, auto_excluded, kept)``: the caller's exclusions as a list, ``{column: reason}`` for the
    columns left out here (each announced with a ``UserWarning``), ``{column: reason}`` for identifier-like columns
    kept by ``include=``. Columns named in ``key_fields`` or ``sensitive_fields`` (``named``) are never left out. A
    frame that :func:`~synthpriv_report.data.preparation.prepare` will refuse is not examined here (it gives the error).
    ``exclude``, ``include`` and ``named`` are settings already checked (:data:`SETTINGS`): lists or None.
    """
    if not isinstance(real, pd.DataFrame) or real.columns.duplicated().any() \
            or not all(isinstance(c, str) for c in real.columns) or len(real) == 0:
        return exclude, {}, {}
    excl = list(exclude or [])
    incl = SETTINGS["include"].validate(include, {"column": list(real.columns)}) or []
    check_include_exclude(incl, excl)
    requested = {c for group in named if group is not None for c in group}
    candidates = [c for c in real.columns if c not in excl and c not in requested]
    auto, kept = split_identifiers(identifier_columns(real, candidates), candidates, incl, requested, stacklevel=4)
    return excl, auto, kept


def _with_identifier_notes(data: Any, auto: Mapping[str, str], kept: Mapping[str, str]) -> Any:
    """The prepared data with a note per identifier-like column (left out, or kept by ``include=``)."""
    if not auto and not kept:
        return data
    notes = [f"column {c!r} was left out of every metric because it looks like an identifier ({r}); an "
             "identifier sets every record apart from every other and would hide copied records (keep it with "
             f"include=[{c!r}], on the command line --include {shlex.quote(c)})" for c, r in auto.items()]
    notes += [f"column {c!r} looks like an identifier ({r}) but was kept because include= names it" for c, r
              in kept.items()]
    return replace(data, notes=tuple(notes) + tuple(data.notes))


def _seed_from(generator: np.random.Generator) -> int:
    """One integer seed drawn from a Generator, once: every random step is then reproducible from the settings."""
    return int(generator.integers(0, 2**32 - 1))


def _position_pairs(value: Any) -> np.ndarray:
    """``pairing=`` as an ``(n_pairs, 2)`` int64 array (the positions are checked against the data later)."""
    pairs = np.asarray(value)
    if pairs.ndim != 2 or pairs.shape[1] != 2 or not np.issubdtype(pairs.dtype, np.integer):
        raise Refused(ValueError, f"an array of shape {pairs.shape} and dtype {pairs.dtype}")
    return pairs.astype(np.int64)


def _release_context(value: Any) -> dict[str, Any] | None:
    """``context=``: None, a dict of release-context fields or the path of a JSON file of one, validated
    (:mod:`synthpriv_report.core.release`)."""
    if value is None:
        return None
    if isinstance(value, (str, os.PathLike)):
        return load_context(value)
    return validate_context(value)


def _dask_client(value: Any) -> Any:
    """``client=``: None or a ``dask.distributed.Client`` (whether it is connected is checked when it is used)."""
    if value is None:
        return None
    try:
        import distributed
    except ImportError:  # pragma: no cover - the dask extra is installed in the test environment
        raise Refused(TypeError, f"{type(value).__name__} (and Dask's distributed package is not installed: "
                                 f"pip install \"synthpriv_report[dask]\")") from None
    if not isinstance(value, distributed.Client):
        raise Refused(TypeError, type(value).__name__)
    return value


_COLUMNS = AnyOf((NONE, Names("column")))
_SPACE = AnyOf((Options(get_args(SpaceKind)), InstanceOf(SpaceSpec, "a SpaceSpec")))

#: The settings of :class:`Evaluation` (its keyword arguments), declared once: name, default, constraint. They are
#: checked together before any data is read (:func:`synthpriv_report.core.validation.validate_all`); lists of names are
#: checked against the metrics then, and against the columns once the data are read.
SETTINGS: dict[str, Setting] = {s.name: s for s in (
    Setting("key_fields", None, AnyOf((NONE, Names("analysed column"))),
            doc="Key attributes of the attack metrics: what an attacker knows."),
    Setting("sensitive_fields", None, AnyOf((NONE, Names("analysed column"))),
            doc="Sensitive attributes of the attack metrics: what an attacker wants to learn."),
    Setting("pairing", None,
            AnyOf((NONE, Check(_position_pairs, "an integer array of (real position, synthetic position) pairs"))),
            doc="The generator's pairs of real and synthetic records."),
    Setting("numeric", None, _COLUMNS, doc="Columns read as numbers whatever their type."),
    Setting("categorical", None, _COLUMNS, doc="Columns read as categories whatever their type."),
    Setting("exclude", None, _COLUMNS, doc="Columns left out of every metric."),
    Setting("include", None, _COLUMNS, doc="Columns kept although they look like identifiers."),
    Setting("spaces", None, AnyOf((NONE, _SPACE, MappingOf(Name("metric"), _SPACE, "a dict {metric: space}"))),
            doc="Distance space of the distance-based metrics: one for all, or one per metric."),
    Setting("nndr_k", 5, Interval("int", 1), doc="Neighbours of t* in the NNDR denominator."),
    Setting("n_components", None, AnyOf((NONE, Interval("int", 1), Interval("real", 0.0, 1.0, low_open=True))),
            doc="Components of the projected space: a number of them, or a share of explained variance."),
    Setting("max_rows", 20_000, Interval("int", 1), doc="Per-class cap of the classifier metrics."),
    Setting("metrics", None, AnyOf((NONE, Names("metric", nonempty=True))), doc="Metrics computed."),
    Setting("verdict_metrics", None, AnyOf((NONE, Names("metric"))), doc="Metrics that drive the verdict."),
    Setting("calibrate", True, Boolean(), doc="Also compute each comparable metric with H in the role of S."),
    Setting("random_state", 0,
            AnyOf((NONE, Interval("int", 0), InstanceOf(np.random.Generator, "a numpy.random.Generator", _seed_from)),
                  description="a non-negative integer, a numpy.random.Generator or None"),
            doc="Seed of every random step (a Generator is turned into one seed, once)."),
    Setting("progress", True, Boolean(), doc="Progress bars for long searches."),
    Setting("reveal_real_values", False, Boolean(), doc="Whether views, messages and exports may show real values."),
    Setting("names", None, AnyOf((NONE, MappingOf(Options(tuple(DEFAULT_NAMES)), Text(),
                                                  "a dict {'real' | 'synthetic' | 'holdout' | 'reference': name}"))),
            doc="What the sets are called in reports."),
    Setting("engine", "auto", Options(("auto", "tree", "tiled")), doc="Exact neighbour search engine."),
    Setting("device", "cpu", Options(("cpu", "cuda", "auto")), doc="Where the tiled kernel runs."),
    Setting("client", None, Check(_dask_client, "a dask.distributed.Client"),
            doc="Run the neighbour searches on this Dask client's workers."),
    Setting("backend", "local", Options(("local", "dask")), doc="'dask': Dask's current default client."),
    Setting("shard_rows", None, AnyOf((NONE, Interval("int", 1))),
            doc="With a Dask client: references per shard of a reference set cut into shards."),
    Setting("row_order", "canonical", Options(("canonical", "as_given")),
            doc="Hold each set in an order of its values alone, or in the rows' own order."),
    Setting("context", None, Check(lambda v: _release_context(v), "a dict of release-context fields, or the path "
                                   "of a JSON file of one"),
            doc="The release context stated by the user: purpose, recipients, release mode, generator."),
)}


def _check_combinations(s: Mapping[str, Any], client: Any) -> None:
    """Rules between checked settings, before any data is read: a device with a Dask client, a space chosen for
    a metric whose space is fixed."""
    if client is not None and s["device"] != "cpu":
        raise ValueError(f"device={s['device']!r} cannot be combined with a Dask client: searches on Dask workers "
                         f"run on the workers' CPUs; leave device='cpu'")
    if client is None and s["shard_rows"] is not None:
        raise ValueError(f"shard_rows={s['shard_rows']} needs a Dask client: shards are searched on its workers "
                         f"(pass client=, or leave shard_rows=None)")
    for m in s["spaces"] if isinstance(s["spaces"], Mapping) else ():
        if not get_spec(m).space_choosable:
            raise ValueError(f"spaces[{m!r}]: metric {m!r} has a fixed space; its space cannot be chosen")


def _prepared(real: DataSource, synthetic: DataSource, holdout: DataSource | None, s: Mapping[str, Any],
              backend: Backend, reference: DataSource | None = None) -> tuple[PreparedData, dict[str, str]]:
    """The sets read (:mod:`synthpriv_report.data.sources`), identifier-like columns set aside, and prepared
    (:func:`synthpriv_report.data.preparation.prepare`); with the reason each left-out column was left out. Inputs
    the backend reads in partitions where they are (Parquet and Dask inputs with a Dask client,
    :meth:`~synthpriv_report.engine.backend.Backend.partitioned_inputs`) are prepared there, each partition read,
    checked and encoded on a worker (:mod:`synthpriv_report.cluster.partitioned`; a reference set is refused there,
    naming ``reference=``)."""
    prepare_parts = backend.partitioned_inputs(real, synthetic, holdout, exclude=s["exclude"], reference=reference)
    backend.settle()  # the preparation's tasks too: a client's log of sent messages would keep their arguments
    with pg.stage("preparing the data", enabled=s["progress"]):
        if prepare_parts is not None:
            data, auto_excluded, kept = prepare_parts(
                numeric=s["numeric"], categorical=s["categorical"], include=s["include"],
                named=(s["key_fields"], s["sensitive_fields"]), reveal_real_values=s["reveal_real_values"],
                row_order=s["row_order"])
        else:
            inputs = read_inputs(real, synthetic, holdout, exclude=s["exclude"], reference=reference)
            exclude, auto_excluded, kept = _identifiers(inputs.real, exclude=inputs.exclude, include=s["include"],
                                                        named=(s["key_fields"], s["sensitive_fields"]))
            data = prepare(inputs.real, inputs.synthetic, inputs.holdout, reference=inputs.reference,
                           numeric=s["numeric"], categorical=s["categorical"],
                           exclude=list(exclude or []) + list(auto_excluded),
                           reveal_real_values=s["reveal_real_values"], kept=list(kept), row_order=s["row_order"])
            if inputs.excluded:  # left out while reading: recorded as if prepare() had left them out
                data = replace(data, excluded=tuple(dict.fromkeys(list(inputs.excluded) + list(data.excluded))))
        data = _with_identifier_notes(data, auto_excluded, kept)
    reasons = {c: (f"looks like an identifier ({auto_excluded[c]})" if c in auto_excluded
                   else "left out on request (exclude=)") for c in data.excluded}
    return data, reasons


def _fields_and_pairs(s: Mapping[str, Any], data: PreparedData) -> dict[str, Any]:
    """The settings that name analysed columns or rows, checked against the prepared data: ``key_fields``,
    ``key_fields_chosen`` (how they were chosen, in words), ``sensitive_fields`` and ``pairing`` (as positions
    of the prepared records)."""
    cols = {"analysed column": list(data.columns)}
    sensitive = SETTINGS["sensitive_fields"].validate(s["sensitive_fields"], cols) or []
    keys_given = SETTINGS["key_fields"].validate(s["key_fields"], cols) or []
    both = [c for c in keys_given if c in sensitive]
    if both:
        raise ValueError(f"column(s) {', '.join(map(repr, both))} are both key_fields and sensitive_fields; "
                         f"a column is either what an attacker knows or what they want to learn")
    keys = keys_given or [c for c in data.columns if c not in sensitive]
    if not keys:
        raise ValueError("no key fields: every analysed column is sensitive; pass key_fields=")
    pairs = s["pairing"]
    if pairs is not None:
        if pairs.size and (pairs[:, 0].min() < 0 or pairs[:, 0].max() >= data.sizes["T"]
                           or pairs[:, 1].min() < 0 or pairs[:, 1].max() >= data.sizes["S"]):
            raise ValueError("pairing holds positions outside the real or synthetic data")
        # the caller's row positions, held as positions of the prepared (canonically ordered) records
        pairs = np.stack([data.prepared_rows("T", pairs[:, 0]), data.prepared_rows("S", pairs[:, 1])],
                         axis=1) if pairs.size else pairs
    if keys_given:
        chosen = "given by the user"
    elif sensitive:
        chosen = ("not given, so every analysed column that is not sensitive: the attack metrics assume an "
                  "attacker who knows all of a person's other values")
    else:
        chosen = ("not given, and no sensitive fields were given either: the attack metrics that use key "
                  "fields did not run")
    return {"key_fields": tuple(keys), "key_fields_chosen": chosen, "sensitive_fields": tuple(sensitive),
            "pairing": pairs}


class Evaluation:
    """Privacy evaluation of a synthetic dataset against the real data it was trained on.

    Parameters
    ----------
    real : DataFrame, Parquet path or Dask DataFrame
        Real training records T (the data the generator saw). A ``str`` or path ending in ``.parquet`` or
        ``.pq`` (a file or a dataset folder) and a Dask DataFrame are read for the analysed columns only (every
        column less ``exclude=``); a pandas DataFrame is used as it is (:mod:`synthpriv_report.data.sources`).
    synthetic : DataFrame, Parquet path or Dask DataFrame
        Synthetic records S.
    holdout : DataFrame, Parquet path or Dask DataFrame, optional
        Real records the generator did not see (H); enables holdout comparisons and calibration.
    reference : DataFrame, Parquet path or Dask DataFrame, optional
        The membership attacks' reference set (R): real records of the same population that are neither training
        records nor holdout records (the attacker's own real data). Needs ``holdout``. When given, every holdout
        record is a non-member target of the attacks and ``reference`` is their reference data; without it the
        holdout is split by a seeded rule into targets (half, rounded up) and reference data (the rest), and
        every number is as it was before this option existed. Sizes: the attacks need at least 10 holdout and 10
        reference records (without ``reference``, a holdout of at least 20). It is checked as the holdout is (the
        real data's columns and kinds; an error names the column and ``reference=``), held in a canonical order
        (no number depends on the order of its rows), fingerprinted, and counts as real data wherever the
        holdout does: it joins the training and holdout records that fix the numeric ranges of the distance
        spaces, so a reference set that widens a range moves the other distance metrics slightly too. Only the
        membership attacks (``mia_*``) read its records. Not supported with partitioned inputs on a Dask
        cluster (a Parquet path or a Dask DataFrame with ``client=``): an error names ``reference=``.
    key_fields, sensitive_fields : sequence of str, optional
        Key attributes (what an attacker knows) and sensitive attributes (what they want to learn) of the attack
        metrics (the CAP family and their kin), which run only when sensitive fields are given. A column cannot
        be both. Without ``key_fields`` the attack metrics assume an attacker who knows every analysed column
        that is not sensitive; ``meta()["key_fields_chosen"]`` and the report say so in words,
        and the command line prints the columns. Give ``key_fields`` for a realistic attacker (e.g. age, sex,
        postcode: what could be looked up about a person).
    pairing : array-like of shape (n_pairs, 2), optional
        The generator's (real position, synthetic position) pairs, for ``hidden_rate``.
    numeric, categorical : sequence of str, optional
        Column kind overrides.
    exclude : sequence of str, optional
        Columns left out of every metric.
    include : sequence of str, optional
        Columns kept even though they look like identifiers. By default a column of the real training data
        that looks like an identifier (nearly all values distinct, and whole numbers numbered like a record
        count or named like an id, or code-like text such as ``ID-000123`` or UUIDs; the rule is
        :func:`synthpriv_report.data.identifiers.identifier_reason`) is left out of every metric with a ``UserWarning``
        naming it and a note in the report: an identifier sets every record apart from every other and would
        hide copies. Columns named in ``key_fields`` or ``sensitive_fields`` are never left out this way.
        No row is ever dropped and the caller's frames are not modified.
        An excluded column of a Parquet input is never read from disk; of a Dask DataFrame only the other
        columns are computed.
    spaces : str or dict, optional
        Distance space for the distance-based metrics: one name for all, or ``{metric: space}``.
    nndr_k : int, default 5
        Neighbours of t* in the NNDR denominator.
    n_components : int or float, optional
        Projected space components (default 0.95 of explained variance).
    max_rows : int, default 20000
        Per-class cap of the classifier metrics (D-MLP, MIR); larger classes are reduced by a random subsample
        drawn from ``random_state``, and the sizes used are in the details. (GCAP samples its real records on
        its own rule, above ``metrics.cap.GCAP_MAX_PAIRS`` real-synthetic pairs.)
    metrics : sequence of str, optional
        Metrics this evaluation computes (default all registered).
    verdict_metrics : sequence of str, optional
        Metrics that drive the headline verdict (default: exact copies, holdout DCR share, privacy score and the
        two holdout tests).
    calibrate : bool, default True
        Also compute each comparable metric with H in the role of S.
    random_state : int, numpy.random.Generator or None, default 0
        Seed of every random step (a Generator is turned into one seed, once).
    row_order : {"canonical", "as_given"}, default "canonical"
        ``"canonical"``: each set is held in an order that depends on its records' values alone, so that every
        number, interval and level is the same whatever the order of the rows (halves, subsamples, bootstrap
        resamples and the lowest position among tied nearest records follow that order). ``"as_given"``: the
        rows' own order, as the metric definitions write positions (to reproduce a computation made on that
        order). Per-record tables and ``pairing=`` always use the caller's row positions.
    progress : bool, default True
        Progress bars for long searches.
    reveal_real_values : bool, default False
        Whether per-record views, error messages and exports may show raw real values.
    names : dict, optional
        What the sets are called in reports: ``{"real": ..., "synthetic": ..., "holdout": ..., "reference": ...}``
        (file or frame names).
    engine : {"auto", "tree", "tiled"}, default "auto"
        Exact neighbour search engine: the pruning tree, the tiled brute-force kernel, or a per-search choice
        from a sample of queries (the search log, :attr:`searches`, says which ran and why). Same numbers.
    device : {"cpu", "cuda", "auto"}, default "cpu"
        Where the tiled kernel runs; "cuda" needs CuPy and a CUDA device (``pip install
        "synthpriv_report[gpu]"``), "auto" uses one when found. Same numbers.
    client : dask.distributed.Client, optional
        Run the neighbour searches as tasks on this client's workers (``pip install "synthpriv_report[dask]"``):
        each reference tree is scattered once to every worker, query blocks are searched there and put back in
        order; the numbers are identical to a run without a client. Encodings, trees and every metric's
        reduction stay in this process. The search log (:attr:`searches`) says where each search ran.
    backend : {"local", "dask"}, default "local"
        ``"dask"``: use Dask's current default client (an error if none is running); ``"local"``: this
        process, unless ``client=`` is given.
    context : dict or path, optional
        The release context, stated by the user (:mod:`synthpriv_report.core.release`): ``purpose``, ``recipients``,
        ``release_mode`` ("public", "restricted" or "internal"), ``operator``, ``organisation``, ``generator``
        (``name``, ``version``, ``settings``, ``epsilon``, ``delta``, ``post_filters``, ``model_released``),
        ``levels_reason`` (why user-set thresholds were chosen) and a prefilled ``decision``; a path is read as a
        UTF-8 JSON file of these fields. Validated field by field before any data is read (numbers finite and at
        most 2**53 in magnitude, texts at most 4000 or 400 characters: :mod:`synthpriv_report.core.release`); printed
        on the report's cover and kept in the JSON report. It changes no number.
    shard_rows : int, optional
        With a Dask client: a reference set of more records than this is cut into shards of at most this many,
        each with its own tree on one worker, every query searched against every shard and the k best merged by
        the tie rule (the same numbers as one tree); default 2,000,000 (``distributed.SHARD_AUTO_ROWS``). Smaller
        reference sets are scattered whole to every worker. An error without a client.
    **params
        Default reduction parameters (``alpha``, ``nndr_threshold``, ...; every metric declares its own).

    Examples
    --------
    >>> import pandas as pd
    >>> T = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0], "c": list("abab")})
    >>> ev = Evaluation(T, T.copy(), progress=False, calibrate=False)
    >>> ev.results(metrics=["exact_copies"])["exact_copies"].value
    1.0
    """

    @surfacing_interrupts
    def __init__(
        self,
        real: DataSource,
        synthetic: DataSource,
        holdout: DataSource | None = None,
        *,
        reference: DataSource | None = None,
        key_fields: Sequence[str] | None = None,
        sensitive_fields: Sequence[str] | None = None,
        pairing: Any = None,
        numeric: Sequence[str] | None = None,
        categorical: Sequence[str] | None = None,
        exclude: Sequence[str] | None = None,
        include: Sequence[str] | None = None,
        spaces: str | Mapping[str, str] | None = None,
        nndr_k: int = 5,
        n_components: int | float | None = None,
        max_rows: int = 20_000,
        metrics: Sequence[str] | None = None,
        verdict_metrics: Sequence[str] | None = None,
        calibrate: bool = True,
        random_state: int | np.random.Generator | None = 0,
        progress: bool = True,
        reveal_real_values: bool = False,
        names: Mapping[str, str] | None = None,
        engine: str = "auto",
        device: str = "cpu",
        client: distributed.Client | None = None,
        backend: str = "local",
        shard_rows: int | None = None,
        row_order: str = "canonical",
        context: Mapping[str, Any] | str | os.PathLike[str] | None = None,
        **params: Any,
    ):
        # settings first (cheap), data second: a bad setting is refused before any work
        given = {k: v for k, v in locals().items() if k in SETTINGS}
        s = validate_all(SETTINGS, given, {"metric": metric_names()})
        self.release_context: dict[str, Any] | None = s["context"]
        self.default_params = merge_params(params)
        if reference is not None and holdout is None:
            raise ValueError(reference_without_holdout())
        client = resolve_client(s["client"], s["backend"])
        _check_combinations(s, client)
        backend = backend_for(client, shard_rows=s["shard_rows"])
        self.data, self.excluded_reasons = _prepared(real, synthetic, holdout, s, backend, reference=reference)
        self.metric_names = s["metrics"] or metric_names()
        self.verdict_metrics = (tuple(verdict_metric_names()) if s["verdict_metrics"] is None
                                else tuple(s["verdict_metrics"]))
        self.names = {**DEFAULT_NAMES, **(s["names"] or {})}
        if reference is None:  # the reports name the reference set only where one was given
            self.names.pop("reference", None)
        sources = {"real": real, "synthetic": synthetic, "holdout": holdout, "reference": reference}
        self.provenance: dict[str, Any] = {
            "python_call": _python_call({**given, **params}, {k: st.default for k, st in SETTINGS.items()},
                                        self.names, sources),
            "command": None,
            "inputs": [input_record(r, self.names[r], src) for r, src in sources.items() if src is not None],
            "platform": _platform(),
        }
        fields = _fields_and_pairs(s, self.data)
        self.settings: dict[str, Any] = {
            "key_fields": fields["key_fields"],
            "key_fields_chosen": fields["key_fields_chosen"],
            "include": tuple(s["include"] or ()),
            "sensitive_fields": fields["sensitive_fields"],
            "pairing": fields["pairing"],
            **{k: s[k] for k in ("spaces", "nndr_k", "n_components", "max_rows", "random_state", "row_order",
                                 "calibrate", "reveal_real_values", "engine", "device")},
            "backend": backend.where,
        }
        self._engine = _Engine(self.data, progress=s["progress"], search_engine=s["engine"], device=s["device"],
                               backend=backend)
        # the per-column numbering prepare found has served the fit: its codes (8 bytes per cell) need not stay;
        # the texts are read from the fitted codes from now on instead of an array of object pointers per set
        fitted = self._engine.fitted
        self.data = self._engine.data = replace(self.data, factorized=None,
                                                categorical=coded_texts(fitted.codes, fitted.levels))
        self._engine.settle()  # the preparation's temporaries leave no resident holes
        self._ctx = Context(self._engine, self.settings)
        self._raw: dict[tuple, MetricResult] = {}
        self._calibrated: dict[tuple, MetricResult] = {}  # each metric with the holdout as the synthetic set
        self._graded: dict[tuple, MetricResult] = {}
        self._planned: set[str] = set()
        self._metric_seconds: dict[str, float] = {}
        self._risk: dict[float, dict[str, Any]] = {}
        self._evaluated_at = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()

    # ---------------------------------------------------------------------------------------------------------
    @property
    def context(self) -> Context:
        """The context metrics read from (cached spaces and searches)."""
        return self._ctx

    @property
    def searches(self) -> list[SearchRecord]:
        """Every neighbour search executed so far (each (space, query, reference) at most once)."""
        return list(self._engine.searches)

    @property
    def timings(self) -> dict[str, dict[str, float]]:
        """Seconds spent so far: ``{"stages": {...}, "metrics": {...}}``.

        ``stages`` holds the engine's stages (fitting the encoders, each encoding and search tree, identical
        records); ``metrics`` each metric's first computation, its searches and the stages it started included
        (a search or tree shared by several metrics counts for the first that needed it). Each search's seconds
        are in :attr:`searches`.
        """
        return {"stages": dict(self._engine.stage_seconds), "metrics": dict(self._metric_seconds)}

    @property
    def search_count(self) -> int:
        return len(self._engine.searches)

    def computed_metrics(self) -> frozenset[str]:
        """Names of the metrics computed so far (with any settings), whose tables are therefore cached."""
        return frozenset(r.name for r in self._raw.values() if r.computed)

    @property
    def fingerprints(self) -> dict[str, str]:
        return dict(self.data.fingerprints)

    def _missing_needs(self, spec: MetricSpec) -> str | None:
        if "holdout" in spec.needs and not self.data.has_holdout:
            return ("needs a holdout set (holdout=, on the command line --holdout): real records the generator did "
                    "not see")
        if "sensitive_fields" in spec.needs and not self.settings["sensitive_fields"]:
            return ("needs sensitive attributes, what an attacker wants to learn (sensitive_fields=, on the command "
                    "line --sensitive)")
        if "pairing" in spec.needs and self.settings["pairing"] is None:
            return "needs the generator's pairing of real and synthetic records (pairing=)"
        return None

    @staticmethod
    def _cache_key(spec: MetricSpec, params: Mapping[str, Any]) -> tuple:
        # a result depends on the metric's own reduction parameters, the bootstrap size and the verdict's
        # false-alarm rate in force (the level bounds of the verdict's checks), never on levels
        used = spec.param_names + ("n_bootstrap",)
        return (spec.name, tuple((p, repr(params.get(p))) for p in used), verdict_false_alarm_rate())

    def _plan(self, names: Sequence[str], params: Mapping[str, Any], calib: Context | None) -> None:
        """Plan the union of the searches of every metric this evaluation may compute, once, so that each
        (space, query, ref) is searched once with the largest k any metric needs, whatever order metrics are
        asked in; planning records k only, searches still run when a metric needs them."""
        unplanned = [get_spec(n) for n in dict.fromkeys(list(self.metric_names) + list(names))
                     if n not in self._planned]
        for s in unplanned:
            self._planned.add(s.name)
            if s.plan is None or self._missing_needs(s) is not None:
                continue
            requests: list[SearchRequest | TreeRequest] = list(s.plan(self._ctx, dict(params)))
            if calib is not None and s.calibratable:
                requests.extend(s.plan(calib, dict(params)))
            self._engine.plan(requests, owner=s.name)

    def _raw_result(self, spec: MetricSpec, params: dict[str, Any], calib: Context | None) -> MetricResult:
        """The metric's result without a level (cached per reduction parameters)."""
        key = self._cache_key(spec, params)
        res = self._raw.get(key)
        if res is not None:
            return res
        reason = self._missing_needs(spec)
        if reason is not None:
            res = not_computed(spec.name, reason)
        else:
            try:
                res = spec.compute(self._ctx, params)
            except ValueError as exc:  # the data do not allow this metric (e.g. an encoding too large to build)
                res = not_computed(spec.name, f"cannot be computed on these data: {exc}")
            cres = None
            if calib is not None and spec.calibratable and res.computed:
                cres = self._calibrated.get(key)
                if cres is None:
                    try:
                        cres = spec.compute(calib, params)
                    except ValueError as exc:
                        cres = not_computed(spec.name, str(exc))
                    self._calibrated[key] = cres
            self._engine.done(spec.name)  # the trees this metric planned to read may go
            if cres is not None:
                if cres.computed and cres.value is not None and np.isfinite(cres.value):
                    res = replace(res, calibration=float(cres.value))
                    if res.value is not None:
                        res = replace(res, details={**res.details,
                                                    "excess_over_calibration": float(res.value) - float(cres.value)})
        res = replace(res, name=spec.name, title=spec.title, section=spec.section, direction=spec.direction,
                      value_range=spec.value_range, level=None, level_rule=None)
        if res.computed:
            notes = applicability.notes_for(self._ctx, spec, res)
            if notes:
                res = replace(res, notes=tuple(res.notes) + tuple(notes))
        self._raw[key] = res
        return res

    def _graded_result(self, spec: MetricSpec, params: dict[str, Any], calib: Context | None,
                       levels: Mapping[str, Any] | None) -> MetricResult:
        """The result with its level (cached: the same settings give the same object)."""
        raw = self._raw_result(spec, params, calib)
        relevant = tuple(sorted((k, repr(v)) for k, v in (levels or {}).items()
                                if k == spec.name or k in ("review_absolute", "review_excess")))
        key = (self._cache_key(spec, params), relevant)
        if key not in self._graded:
            self._graded[key] = apply_level(spec, raw, levels)
        return self._graded[key]

    @surfacing_interrupts
    def results(self, metrics: Sequence[str] | None = None, **params: Any) -> ResultSet:
        """Compute (or re-reduce) the metrics, grade them and give the verdict.

        Parameters
        ----------
        metrics : sequence of str, optional
            Only these metrics, and only the searches they need (default: every metric of this evaluation).
        **params
            Reduction parameters (``alpha``, ``nndr_threshold``, ``cvp_threshold``, ``levels``, ...). Changing
            them re-reduces cached arrays; no neighbour search runs again. Unknown names and bad values are
            refused with an error naming them.

        Returns
        -------
        ResultSet
        """
        merged = dict(self.default_params)
        merged.update(validate_params(params))
        known = metric_names()
        names = (SETTINGS["metrics"].validate(metrics, {"metric": known}) if metrics is not None
                 else list(self.metric_names))
        specs = [get_spec(n) for n in names]
        calib = self._ctx.calibration() if (self.settings["calibrate"] and self.data.has_holdout) else None
        self._plan(names, merged, calib)
        levels = merged.get("levels")
        pending = any(self._cache_key(s, merged) not in self._raw for s in specs)
        notice = self._dask_notice() if pending else None
        try:
            out = {}
            todo = [s for s in specs if self._cache_key(s, merged) not in self._raw]
            with pg.bar(len(todo), "metrics", enabled=self._engine.progress, unit="metric") as bar:
                for s in specs:
                    fresh = self._cache_key(s, merged) not in self._raw
                    if fresh:
                        bar.note(s.name)
                    t0 = time.perf_counter()
                    out[s.name] = self._graded_result(s, merged, calib, levels)
                    if fresh:
                        self._metric_seconds[s.name] = time.perf_counter() - t0
                        bar.update(1)
        finally:
            if notice is not None:
                notice.finish()
        verdict = compute_verdict(out, self.verdict_metrics)
        meta = self.meta()
        if risk_rule_applies(out):
            meta["records_at_risk"] = self._risk_overview(float(merged["risk_percentile"]))
        return ResultSet(out, verdict, merged, meta)

    def _risk_overview(self, percentile: float) -> dict[str, Any]:
        """The per-record rule's counts for the reports (no record in it), once per ``risk_percentile``; it reads
        the DCR and NNDR metrics' cached arrays. A rule that cannot be set says why (``reason``)."""
        if percentile not in self._risk:
            try:
                self._risk[percentile] = to_jsonable(risk_overview(self, risk_percentile=percentile))
            except ValueError as exc:
                self._risk[percentile] = {"reason": str(exc)}
            self._engine.settle()
        return dict(self._risk[percentile])

    def _dask_notice(self) -> Any:
        """In a notebook, while searches run on a Dask client: a line linking to its dashboard (a display
        handle, updated when the computation ends); None elsewhere."""
        backend = self._engine.backend
        if not backend.remote or not self._engine.progress:
            return None
        from ..display.dask import live_notice

        return live_notice(backend.dashboard(), self._engine.searches)

    # ---------------------------------------------------------------------------------------------------------
    # the real side: what depends on the real sets alone, shared between evaluations of several releases

    def _real_side_key(self) -> tuple | None:
        """What every computation on the real sets alone depends on, or None where it cannot be stated (searches
        on Dask workers, whose tables stay there).

        Two evaluations with equal keys hold the same real records in the same order (the sets' fingerprints and
        orders), the same fitted encoders (numeric ranges, category levels, missing-value columns: the levels and
        the missing-value columns are fitted over every set, the synthetic one included, so a synthetic category
        the real data lack changes them) and the same settings and default parameters: every encoding of a real
        set, every search between real sets and every metric computed with the holdout in the synthetic role is
        then the same, bit for bit.
        """
        if self._engine.backend.remote:
            return None
        d, f = self.data, self._engine.fitted
        real = [s for s in REAL_SETS if s in d.sizes]
        h = hashlib.sha256()
        for s in real:
            h.update(s.encode())
            h.update(d.fingerprints[s].encode())
            h.update(np.ascontiguousarray(d.caller_rows(s, np.arange(d.sizes[s]))).tobytes())
            h.update(np.ascontiguousarray(f.codes[s]).tobytes())
        for a in (f.num_min, f.num_range, f.num_half_range, f.has_missing):
            h.update(b"-" if a is None else np.ascontiguousarray(a).tobytes())
        for lv in f.levels:
            h.update(repr(lv.tolist()).encode())
        settings = {k: v for k, v in self.settings_dict().items() if k != "sizes"}
        settings["real_sizes"] = {s: d.sizes[s] for s in real}
        h.update(repr(sorted(to_jsonable(settings).items())).encode())
        return (tuple(real), h.hexdigest())

    def _adopt_real_side(self, donor: Evaluation) -> int:
        """Take over what ``donor`` has computed on the real sets alone, where both have the same real side
        (:meth:`_real_side_key`): its searches between real sets and its metrics computed with the holdout in the
        synthetic role. Returns how many were taken (0 where the real sides differ); no number changes, since
        each is what this evaluation would compute itself."""
        key = self._real_side_key()
        if key is None or key != donor._real_side_key():
            return 0
        tables = {k: t for k, t in donor._engine.tables.items()
                  if k[1][0] in REAL_SETS and k[2][0] in REAL_SETS and k not in self._engine.tables
                  and k not in donor._engine.remote}
        self._engine.tables.update(tables)
        calibrated = {k: r for k, r in donor._calibrated.items() if k not in self._calibrated}
        self._calibrated.update(calibrated)
        return len(tables) + len(calibrated)

    # ---------------------------------------------------------------------------------------------------------
    def record_provenance(self, *, command: str | None = None,
                          files: Mapping[str, str | os.PathLike[str]] | None = None) -> None:
        """Record how this evaluation was asked for, for the report's reproducibility block.

        Parameters
        ----------
        command : str, optional
            The command line that ran it (the command-line tool records its own).
        files : dict, optional
            ``{"real" | "synthetic" | "holdout" | "reference": path}``: the files the sets were read from, hashed
            here (raw SHA-256 of their bytes) when the sets were given as DataFrames read from them.
        """
        if command is not None:
            self.provenance["command"] = str(command)
        for role, path in (files or {}).items():
            rec = input_record(role, self.names.get(role, role), path)
            self.provenance["inputs"] = [r for r in self.provenance["inputs"] if r["role"] != role] + [rec]
        order = {"real": 0, "synthetic": 1, "holdout": 2, "reference": 3}
        self.provenance["inputs"].sort(key=lambda r: order.get(r["role"], 4))

    def settings_dict(self) -> dict[str, Any]:
        """JSON-safe settings needed to reproduce the evaluation."""
        s = dict(self.settings)
        s["pairing"] = None if s["pairing"] is None else f"{len(s['pairing'])} pairs"
        s["columns"] = {c: self.data.kinds[c] for c in self.data.columns}
        s["excluded"] = list(self.data.excluded)
        s["sizes"] = dict(self.data.sizes)
        s["metrics"] = list(self.metric_names)
        s["verdict_metrics"] = list(self.verdict_metrics)
        s["default_params"] = self.default_params
        return to_jsonable(s)

    def meta(self) -> dict[str, Any]:
        """The evaluation's context for reports: set names and sizes, columns, settings, fingerprints, versions."""
        d = self.data
        sets = [{"role": _ROLE[s], "name": self.names[_ROLE[s]], "rows": int(d.sizes[s]),
                 "columns": len(d.columns), "fingerprint": d.fingerprints.get(s)} for s in ("T", "S", "H", "R")
                if s in d.sizes]
        return to_jsonable({
            "sets": sets,
            "fingerprint_algorithm": "SHA-256 of the analysed columns in a canonical text form",
            "columns": [{"name": c, "kind": d.kinds[c]} for c in d.columns],
            "excluded": [f"{c}: {self.excluded_reasons[c]}" for c in d.excluded],
            "excluded_columns": list(d.excluded),
            "key_fields": list(self.settings["key_fields"]),
            "key_fields_chosen": self.settings["key_fields_chosen"],
            "sensitive_fields": list(self.settings["sensitive_fields"]),
            "settings": self.settings_dict(),
            "fingerprints": self.fingerprints,
            "versions": _versions(),
            "data_notes": self.data_notes(),
            "searches": self.search_count,
            "revealed_real_values": bool(self.settings["reveal_real_values"]),
            "registered_metrics": metric_names(),
            "evaluated_at": self._evaluated_at,
            "context": self.release_context,
            "provenance": self.provenance,
        })

    def data_notes(self) -> list[str]:
        """Notes on the data for the reader: those of the data preparation (identifier columns, spellings), and
        whether the holdout looks like a random sample of the training data's records where a metric compared
        with it (:func:`synthpriv_report.metrics._shared.shift.holdout_shift`; no search of its own)."""
        shift = holdout_shift_note(holdout_shift_of(self._ctx, compute=False))
        return list(self.data.notes) + ([shift] if shift else [])

    @surfacing_interrupts
    def to_dict(self, **params: Any) -> dict[str, Any]:
        """JSON-safe dictionary: results, settings, data fingerprints, package versions."""
        res = self.results(**params)
        body = res.to_dict()
        body["meta"].pop("evaluated_at", None)  # the time of the evaluation is not part of what reproduces it
        return to_jsonable(
            {
                "results": body,
                "settings": self.settings_dict(),
                "fingerprints": self.fingerprints,
                "versions": _versions(),
                "data_notes": self.data_notes(),
            }
        )

    def __repr__(self) -> str:
        sizes = ", ".join(f"{k}={v}" for k, v in self.data.sizes.items())
        return f"Evaluation({sizes}, columns={len(self.data.columns)}, searches={self.search_count})"

    # ---------------------------------------------------------------------------------------------------------
    # presentation and export: the result set draws itself; only the live views need the evaluation

    @surfacing_interrupts
    def __getitem__(self, name: str) -> MetricResult:
        """One metric's result with the default parameters (``ev["privacy_score"]``)."""
        get_spec(name)
        return self.results(metrics=[name])[name]

    @surfacing_interrupts
    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return self.results()._repr_mimebundle_(include=include, exclude=exclude)

    @surfacing_interrupts
    def explore(self, **params: Any) -> Any:
        """Interactive widgets: sliders move alpha and thresholds; cached arrays are re-reduced live."""
        from ..display import explore

        return explore(self, **params)

    @surfacing_interrupts
    def explain(self, real_index: int) -> Any:
        """One real record's view: its nearest synthetic and real neighbours and what each metric concluded."""
        return explain_record(self, real_index)

    @surfacing_interrupts
    def records_at_risk(self, **params: Any) -> pd.DataFrame:
        """The per-record risk table (real values masked unless revealed)."""
        return records_at_risk(self, **params)

    @surfacing_interrupts
    def vulnerable_records(self, k: int = 20, **params: Any) -> pd.DataFrame:
        """The ``k`` training records the strongest membership attack scores highest, with their atypicality and
        whether it flags them (real values masked unless revealed;
        :func:`~synthpriv_report.analysis.vulnerable.vulnerable_records`)."""
        return vulnerable_records(self, k=k, **params)

    @surfacing_interrupts
    def to_html(self, path: Any, *, title: str | None = None, **params: Any) -> Any:
        """Write the self-contained HTML report."""
        return self.results(**params).to_html(path, **({} if title is None else {"title": title}))

    @surfacing_interrupts
    def to_pdf(self, path: Any, engine: str = "weasyprint", *, title: str | None = None, **params: Any) -> Any:
        """Write the paginated A4 PDF report."""
        return self.results(**params).to_pdf(path, engine=engine, **({} if title is None else {"title": title}))

    @surfacing_interrupts
    def to_json(self, path: Any = None, **params: Any) -> Any:
        """Write (or return) the versioned JSON report."""
        return self.results(**params).to_json(path)

    @staticmethod
    def from_json(path: Any) -> ResultSet:
        """Load a JSON report to re-render HTML/PDF without the raw data."""
        return ResultSet.from_json(path)
