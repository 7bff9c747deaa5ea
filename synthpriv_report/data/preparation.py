"""Preparing the sets once: :func:`prepare` checks, converts and aligns the training, holdout, synthetic and reference
sets,
and :func:`finish` assembles the result; the notes on what was handled rather than refused.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ..core.formats import SET_LABELS
from ..core.validation import Options, Setting
from .containers import (
    MISSING,
    REAL_SETS,
    CodedSet,
    Kind,
    NumericSet,
    PreparedData,
    code_blocks,
    number_blocks,
    position_dtype,
)
from .convert import (
    _as_bool_text,
    _check_frame,
    _factorize_texts,
    _factorized_strings,
    _is_datetime,
    _kind_of,
    _may_be_boolean,
    _near_miss,
    _to_numeric,
    _unify_booleans,
    _where,
)
from .fingerprints import fingerprint
from .order import _canonicalize

#: A categorical column with at least this many records, all of whose real values are distinct, is noted as
#: identifier-like.
IDENTIFIER_MIN_RECORDS = 20


def prepare(
    real: pd.DataFrame,
    synthetic: pd.DataFrame,
    holdout: pd.DataFrame | None = None,
    *,
    reference: pd.DataFrame | None = None,
    numeric: Sequence[str] | None = None,
    categorical: Sequence[str] | None = None,
    exclude: Sequence[str] | None = None,
    reveal_real_values: bool = False,
    kept: Sequence[str] = (),
    row_order: Literal["canonical", "as_given"] = "as_given",
) -> PreparedData:
    """Validate and align T, H and S (docs/metrics.md, "Shared machinery").

    Parameters
    ----------
    real, synthetic : DataFrame
        The real training records T and the synthetic records S.
    holdout : DataFrame, optional
        Real records the generator did not see (H).
    reference : DataFrame, optional
        Real records of the same population that are neither training nor holdout records (R): the membership
        attacks' reference set. Needs a holdout. Checked as the holdout is (the same columns as the real data,
        values of the real data's kinds, no infinity), never modified, no row dropped; it counts as real data
        where the holdout does (numeric ranges, notes).
    numeric, categorical : sequence of str, optional
        Columns whose kind overrides the one inferred from T's dtype.
    exclude : sequence of str, optional
        Columns left out of every metric (identifiers).
    reveal_real_values : bool, default False
        Quote the offending value of the real or holdout data in an error message. By default an error names
        the column, the set and the row position only; synthetic values are always quoted.
    kept : sequence of str, default ()
        Columns kept on purpose although they look like identifiers (``Evaluation(include=...)``): no note
        suggests leaving them out.
    row_order : {"canonical", "as_given"}, default "as_given"
        ``"canonical"`` holds every set in an order that depends on the records' values alone
        (:func:`synthpriv_report.matching.identity.canonical_order`), so that every step that takes records by position
        (the privacy score's halves, subsamples, bootstrap resamples, the lowest position among tied nearest
        records) gives the same numbers whatever the order of the rows; ``"as_given"`` keeps the caller's order
        (positions as the metric definitions write them, to reproduce a computation made on that order).
        :class:`~synthpriv_report.evaluation.evaluation.Evaluation` asks for ``"canonical"`` unless told otherwise.

    Returns
    -------
    PreparedData

    Raises
    ------
    TypeError
        A set is not a DataFrame, or has non-string column names.
    ValueError
        An empty set, fewer than 2 real records, a reference set without a holdout, duplicate column names, a
        column missing from a set, a numeric column holding text, complex numbers, numbers beyond the 64-bit float
        range or infinities, a categorical value equal to the internal missing marker, a column entirely missing
        in the real data. Each message names the column, the set (the reference set as ``reference=``) and (for a
        bad value) its 0-based row position.

    Notes
    -----
    Handled without an error, and documented here: the caller's DataFrames are never modified and no row is ever
    dropped; the index is ignored (rows are matched by position); the other sets' column order may differ; a missing
    categorical value is its own category and a missing number is NaN; text ``""`` or ``"nan"`` in a numeric column
    is a missing value; categories absent from the real data are ordinary categories (those of a reference set that
    no training record holds are counted in a note naming the column); a column constant in the real data, a column
    entirely missing in S, H or R, and an identifier-like categorical column (all real values distinct) are kept,
    with a note in :attr:`PreparedData.notes`; column names and values may hold any Unicode, control characters
    included (messages quote names with ``repr``).

    Boolean spellings: a categorical column whose non-missing values in every set are spellings of booleans
    (true/false, t/f, yes/no, y/n, 1/0, any case) and that writes one boolean in more than one way (real
    ``True``/``False`` against synthetic ``yes``/``no``) is read as the booleans ``"True"``/``"False"`` in
    every set, with a note; otherwise the spellings would be disjoint categories and every synthetic record
    would differ from every real one. A column with one spelling per value is left as it is.

    >>> T = pd.DataFrame({"age": [30, 40], "sex": ["F", "M"]})
    >>> d = prepare(T, T.copy())
    >>> d.kinds
    {'age': 'numeric', 'sex': 'categorical'}
    >>> d = prepare(T.assign(ok=[True, False]), T.assign(ok=["yes", "no"]))
    >>> d.column_values("S", "ok").tolist()
    ['True', 'False']
    """
    ROW_ORDER.validate(row_order)
    frames = _checked_frames(real, synthetic, holdout, reference)
    _check_same_columns(frames)
    exclude, numeric, categorical = _checked_column_lists(list(frames["T"].columns), exclude=exclude,
                                                          numeric=numeric, categorical=categorical)
    columns = tuple(c for c in frames["T"].columns if c not in exclude)
    if not columns:
        raise ValueError("every column is excluded; at least one column must be analysed")
    kinds = _column_kinds(frames, columns, numeric=numeric, categorical=categorical)
    num_cols = [c for c in columns if kinds[c] == "numeric"]
    cat_cols = [c for c in columns if kinds[c] == "categorical"]
    num_arrays, cat_arrays, factorized = _encode(frames, num_cols, cat_cols, reveal=bool(reveal_real_values))
    return finish(sizes={s: len(df) for s, df in frames.items()}, synthetic_dtypes=frames["S"].dtypes,
                  columns=columns, kinds=kinds, num_arrays=num_arrays, cat_arrays=cat_arrays,
                  factorized=factorized, exclude=exclude, kept=kept, row_order=row_order,
                  reveal_real_values=bool(reveal_real_values))


def finish(*, sizes: dict[str, int], synthetic_dtypes: Any, columns: tuple[str, ...], kinds: dict[str, Kind],
           num_arrays: dict[str, NDArray[np.float64] | NumericSet],
           cat_arrays: dict[str, NDArray[np.object_] | CodedSet], factorized: Factorized, exclude: Sequence[str],
           kept: Sequence[str], row_order: Literal["canonical", "as_given"], park: Park | None = None,
           reveal_real_values: bool = False) -> PreparedData:
    """Phases 6 to 9 of :func:`prepare`, on the encoded sets: boolean spellings, fingerprints, notes, precision,
    canonical order. ``synthetic_dtypes``: the synthetic data's dtype per column (a ``DataFrame.dtypes``).
    ``reveal_real_values``: whether the notes may quote a value of the real or holdout data (by default they
    count such values and say what they are, never quote one).

    ``park``, where given, is handed each set as soon as it is in its canonical order, and what it returns is kept
    in its place (:class:`synthpriv_report.cluster.held.Parking`: an evaluation with a Dask client keeps the set on the
    workers, and this process holds one set at a time). The sets may be given parked already (read from where
    they are kept, a block at a time; a set is read whole only to put it in its canonical order).

    The numbers are held as :class:`NumericSet` (each column in the narrowest form that gives back its float64
    values bit for bit), and the canonical order in int32 where a set has fewer than 2**31 records.

    ``num_arrays`` is handed over: it is emptied here, so that each set's numbers in the caller's order are let go
    once the set is held in its canonical order (the caller keeps no second copy of every set meanwhile)."""
    numbers: dict[str, NDArray[np.float64] | NumericSet] = {s: NumericSet.packed(num_arrays.pop(s))
                                                              for s in list(num_arrays)}
    num_cols = [c for c in columns if kinds[c] == "numeric"]
    cat_cols = [c for c in columns if kinds[c] == "categorical"]
    notes = _unify_boolean_columns(list(sizes), cat_cols, cat_arrays, factorized, reveal=reveal_real_values)
    def digest(s: str) -> str:
        return fingerprint(numbers[s], cat_arrays[s], num_cols + cat_cols, kinds, factorized=factorized[s])

    # in the evaluation's row order: with the canonical order (the default), each set's digest is taken once it
    # is in that order (below), so that shuffling a set's rows does not change its fingerprint
    prints = {s: digest(s) for s in sizes} if row_order != "canonical" else {}
    notes += _column_notes(sizes, num_cols, cat_cols, numbers, factorized, kept=kept)
    precision = _synthetic_precision(synthetic_dtypes, list(sizes), num_cols, numbers)
    notes += [f"column {c!r} of the synthetic data is stored at {p} precision: its numbers are compared with the "
              f"real ones at that precision (a real value rounded to {p} is not a new value)"
              for c, p in precision.items()]
    notes += _spelling_notes(cat_cols, factorized, [s for s in REAL_SETS if s in sizes],
                             reveal=reveal_real_values)
    def narrow(o: NDArray[np.integer]) -> NDArray[np.integer]:  # each set's, before the next set's is made
        return o.astype(position_dtype(o.size), copy=False)

    # rows as given: no order is held (None reads as each record at its own position; 4 bytes a record less)
    order: dict[str, Any] | None = None
    if row_order == "canonical":
        order = {}
        for s in sizes:
            order[s] = narrow(_canonicalize(s, numbers, cat_arrays, factorized))
            prints[s] = digest(s)
            if park is not None:  # this set is let go here before the next one is read
                numbers[s], held, order[s] = park(numbers[s], [c for c, _ in factorized[s]],  # type: ignore[arg-type]
                                                  order[s])
                factorized[s] = [(h, t) for h, (_, t) in zip(held, factorized[s])]
                cat_arrays[s] = CodedSet.of_factorized(factorized[s], rows=sizes[s])
                del held
    return PreparedData(
        columns=columns,
        kinds=kinds,
        numeric=numbers,  # type: ignore[arg-type]  # packed above
        categorical=cat_arrays,
        sizes=dict(sizes),
        fingerprints=prints,
        excluded=tuple(exclude),
        notes=tuple(notes),
        factorized={s: tuple(f) for s, f in factorized.items()},
        order=order,
        precision=precision,
    )


# ---------------------------------------------------------------------------------------------------------------
# the phases of prepare()

#: ``row_order=`` of :func:`prepare`.
ROW_ORDER = Setting("row_order", "as_given", Options(("canonical", "as_given")),
                    doc="Hold each set in an order of its values alone, or in the rows' own order.")

#: Per set, per categorical column (in column order): the codes of its values (-1: missing) and its distinct
#: texts, so that later steps read each column's distinct values rather than every string.
Factorized = dict[str, list[tuple[NDArray[np.int64], NDArray[np.object_]]]]

#: What :func:`finish` hands each set to once it is in its canonical order: ``(numbers, codes per categorical
#: column, order) -> (numbers, codes, order)`` read like what was given, kept elsewhere
#: (:class:`synthpriv_report.cluster.held.Parking`).
Park = Callable[[NumericSet, list[Any], Any], tuple[NumericSet, list[Any], Any]]


def _checked_frames(real: object, synthetic: object, holdout: object | None,
                    reference: object | None = None) -> dict[str, pd.DataFrame]:
    """Phase 1, the inputs: each set a DataFrame with rows, columns and distinct string column names, at least 2
    real records, and a reference set only beside a holdout. Returns ``{"T": ..., "S": ...[, "H": ...][, "R":
    ...]}``.

    >>> sorted(_checked_frames(pd.DataFrame({"a": [1, 2]}), pd.DataFrame({"a": [3]}), None))
    ['S', 'T']
    """
    if reference is not None and holdout is None:
        raise ValueError(reference_without_holdout())
    frames: dict[str, pd.DataFrame] = {"T": _check_frame(real, "T"), "S": _check_frame(synthetic, "S")}
    if holdout is not None:
        frames["H"] = _check_frame(holdout, "H")
    if reference is not None:
        frames["R"] = _check_frame(reference, "R")
    if len(frames["T"]) < 2:
        raise ValueError(f"the real data needs at least 2 records, got {len(frames['T'])}")
    return frames


def reference_without_holdout() -> str:
    """The message refusing a reference set given without a holdout: the attacks' targets come from the
    holdout."""
    return ("reference= was given without a holdout: the membership attacks take their non-member targets from the "
            "holdout and only their reference data from reference=; pass holdout= too (on the command line "
            "--holdout with --reference)")


def _check_same_columns(frames: dict[str, pd.DataFrame]) -> None:
    """Phase 2, alignment: every set has the real data's columns and no other (in any order; a hint names a
    column that differs only in case, spaces or Unicode form)."""
    t_cols = list(frames["T"].columns)
    for s, df in frames.items():
        if s == "T":
            continue
        missing = [c for c in t_cols if c not in df.columns]
        extra = [c for c in df.columns if c not in t_cols]
        if missing:
            raise ValueError(
                f"column(s) {', '.join(map(repr, missing))} of the real data are missing from the "
                f"{SET_LABELS[s]} data{_near_miss(missing[0], extra)}"
            )
        if extra:
            raise ValueError(
                f"column(s) {', '.join(map(repr, extra))} of the {SET_LABELS[s]} data are not in the real data"
            )


def _checked_column_lists(t_cols: Sequence[str], *, exclude: Sequence[str] | None,
                          numeric: Sequence[str] | None, categorical: Sequence[str] | None
                          ) -> tuple[list[str], list[str], list[str]]:
    """Phase 3, the column arguments: ``exclude``, ``numeric`` and ``categorical`` as lists of the real data's
    columns, no column both numeric and categorical.

    >>> _checked_column_lists(["a", "b"], exclude=None, numeric=["a"], categorical=None)
    ([], ['a'], [])
    """
    for arg_name, cols in (("exclude", exclude), ("numeric", numeric), ("categorical", categorical)):
        if isinstance(cols, str):
            raise TypeError(f"{arg_name}= must be a list of column names, not the string {cols!r}")
    lists = {"exclude": list(exclude or []), "numeric": list(numeric or []), "categorical": list(categorical or [])}
    for arg_name, cols in lists.items():
        unknown = [c for c in cols if c not in t_cols]
        if unknown:
            raise ValueError(f"{arg_name}= names column(s) not in the data: {', '.join(map(repr, unknown))}")
    both = set(lists["numeric"]) & set(lists["categorical"])
    if both:
        raise ValueError(f"column(s) {sorted(both)} are listed as both numeric and categorical")
    return lists["exclude"], lists["numeric"], lists["categorical"]


def _column_kinds(frames: dict[str, pd.DataFrame], columns: Sequence[str], *, numeric: Sequence[str],
                  categorical: Sequence[str]) -> dict[str, Kind]:
    """Phase 4, column kinds: the caller's ``numeric``/``categorical`` first, else the real data's dtype
    (booleans are categorical; numbers, datetimes and durations numeric). A column entirely missing in the real
    data (T and H together) is refused: it has no kind and no distance.

    >>> _column_kinds({"T": pd.DataFrame({"a": [1, 2], "b": [True, False]})}, ["a", "b"], numeric=[],
    ...               categorical=[])
    {'a': 'numeric', 'b': 'categorical'}
    """
    kinds: dict[str, Kind] = {}
    for c in columns:
        if c in numeric:
            kinds[c] = "numeric"
        elif c in categorical:
            kinds[c] = "categorical"
        else:
            kinds[c] = _kind_of(frames["T"][c])
    for c in columns:
        if all(frames[s][c].isna().all() for s in REAL_SETS if s in frames):
            raise all_missing_error(c)
    return kinds


def all_missing_error(column: str) -> ValueError:
    """The error for a column entirely missing in the real data (T, H and R together): it has no kind and no
    distance."""
    return ValueError(f"column {column!r} is entirely missing in the real data; exclude it with "
                      f"exclude=[{column!r}]")


def _encode(frames: dict[str, pd.DataFrame], num_cols: Sequence[str], cat_cols: Sequence[str], *, reveal: bool
            ) -> tuple[dict[str, NDArray[np.float64]], dict[str, NDArray[np.object_]], Factorized]:
    """Phase 5, values: each set's numeric columns as a float64 ``(n, q)`` array (:func:`_to_numeric`), its
    categorical columns as an object ``(n, c)`` array of strings (missing: :data:`MISSING`) with each column
    factorized (:func:`encode_set`)."""
    num_arrays: dict[str, NDArray[np.float64]] = {}
    cat_arrays: dict[str, NDArray[np.object_]] = {}
    factorized: Factorized = {}
    for s, df in frames.items():
        num_arrays[s], cat_arrays[s], factorized[s] = encode_set(df, s, frames["T"], num_cols, cat_cols,
                                                                 reveal=reveal)
    return num_arrays, cat_arrays, factorized


def encode_set(df: pd.DataFrame, s: str, real: pd.DataFrame, num_cols: Sequence[str], cat_cols: Sequence[str], *,
               reveal: bool) -> tuple[NDArray[np.float64], NDArray[np.object_],
                                      list[tuple[NDArray[np.int64], NDArray[np.object_]]]]:
    """The values of one set (or of one partition of it): numbers converted and checked, categories as strings
    and factorized. ``real`` supplies the real data's dtypes only (an empty frame will do): a datetime real
    column parses text in the other sets as datetimes, a boolean one reads 1/0 and true/false as booleans. A value
    equal to the missing marker is refused (never quoted: it is the marker itself)."""
    n = len(df)
    num = np.empty((n, len(num_cols)), dtype=np.float64)
    for j, c in enumerate(num_cols):
        num[:, j] = _to_numeric(df[c], c, s, datetime_like=_is_datetime(real[c]), reveal=reveal)
    cat = np.empty((n, len(cat_cols)), dtype=object)
    fact = []
    for j, c in enumerate(cat_cols):
        col = df[c]
        if s != "T" and pd.api.types.is_bool_dtype(real[c].dtype):
            col = _as_bool_text(col)
        texts, codes, table = _factorized_strings(col)
        if any(v == MISSING for v in table.tolist()):
            clash = (texts == MISSING) & ~col.isna().to_numpy()
            raise ValueError(
                f"column {c!r} holds the text reserved for missing values ({MISSING!r}) in the "
                f"{SET_LABELS[s]} data {_where(c, s, clash, col, reveal=False)}; rename that value"
            )
        cat[:, j] = texts
        fact.append((codes, table))
    return num, cat, fact


def _unify_boolean_columns(sets: Sequence[str], cat_cols: Sequence[str],
                           cat_arrays: dict[str, NDArray[np.object_] | CodedSet], factorized: Factorized, *,
                           reveal: bool = False) -> list[str]:
    """Phase 6, boolean spellings: each categorical column that spells true/false differently across the sets is
    rewritten as ``"True"``/``"False"`` (:func:`_unify_booleans`) and factorized again; one note each. An object
    array is rewritten in place; a :class:`CodedSet` is read from the new codes (``cat_arrays[s]`` is replaced)."""
    notes = []
    rewritten = False
    for j, c in enumerate(cat_cols):
        tables = {s: factorized[s][j][1] for s in sets}
        if not _may_be_boolean(tables):
            continue
        # a column slice of a C-ordered object array is a view (rewritten in place); a coded set's is a new array
        texts = {s: cat_arrays[s][:, j] for s in sets}
        note = _unify_booleans(c, texts, tables, reveal=reveal)
        if note is not None:
            notes.append(note)
            rewritten = True
            for s in sets:
                col = texts[s]
                factorized[s][j] = _factorize_texts(np.where(col == MISSING, None, col))
    if rewritten:
        for s in sets:
            if isinstance(cat_arrays[s], CodedSet):
                cat_arrays[s] = CodedSet.of_factorized(factorized[s], rows=len(cat_arrays[s]))
    return notes












def _column_notes(sizes: dict[str, int], num_cols: Sequence[str], cat_cols: Sequence[str],
                  num_arrays: Mapping[str, NDArray[np.float64] | NumericSet], factorized: Factorized, *,
                  kept: Sequence[str]) -> list[str]:
    """Phase 7, notes on columns kept as they are: constant in the real data, a different value in every real
    record (unless ``kept``), entirely missing in the synthetic, holdout or reference data, categories of the
    reference set that no training record holds."""
    notes = []
    real_sets = [s for s in REAL_SETS if s in sizes]
    q = len(num_cols)
    lo, hi = [np.inf] * q, [-np.inf] * q
    seen = [False] * q  # a real value (not missing) in the column
    for v in number_blocks(num_arrays, real_sets):
        for j in range(q):
            if not np.isnan(v[:, j]).all():
                seen[j] = True
                lo[j], hi[j] = min(lo[j], float(np.nanmin(v[:, j]))), max(hi[j], float(np.nanmax(v[:, j])))
    for j, c in enumerate(num_cols):
        if seen[j] and lo[j] == hi[j]:
            notes.append(f"column {c!r} is constant in the real data: its range is treated as 1, so a difference in "
                         "it counts in full")
    # each set's category codes read a block of records at a time, every column at once: which columns have a
    # missing value (code -1) somewhere, which have nothing else
    any_missing = {s: np.zeros(len(cat_cols), dtype=bool) for s in sizes}
    all_missing = {s: np.ones(len(cat_cols), dtype=bool) for s in sizes}
    for s in sizes:
        for _, parts in code_blocks([codes for codes, _ in factorized[s]]):
            for j, part in enumerate(parts):
                gone = part < 0
                any_missing[s][j] |= bool(gone.any())
                all_missing[s][j] &= bool(gone.all())
    for j, c in enumerate(cat_cols):
        distinct = set().union(*(factorized[s][j][1].tolist() for s in real_sets))
        if any(any_missing[s][j] for s in real_sets):
            distinct.add(MISSING)
        n_distinct = len(distinct)
        n_real = sum(sizes[s] for s in real_sets)
        if n_distinct == 1:
            notes.append(f"column {c!r} is constant in the real data: it only separates records of S that differ")
        elif n_distinct == n_real >= IDENTIFIER_MIN_RECORDS and c not in kept:
            notes.append(f"column {c!r} has a different value in every real record: it looks like an identifier, "
                         f"which sets every record apart; consider exclude=[{c!r}]")
    for s in sizes:
        if s == "T":
            continue
        missing = np.ones(q, dtype=bool)
        for v in number_blocks(num_arrays, [s]):
            missing &= np.isnan(v).all(axis=0)
        for j, c in enumerate(num_cols):
            if num_arrays[s].shape[0] and missing[j]:
                notes.append(f"column {c!r} is entirely missing in the {SET_LABELS[s]} data")
        for j, c in enumerate(cat_cols):
            if sizes[s] and all_missing[s][j]:
                notes.append(f"column {c!r} is entirely missing in the {SET_LABELS[s]} data")
    if "R" in sizes:  # the reference set's categories that no training record holds (counted, never quoted)
        for j, c in enumerate(cat_cols):
            seen = set(factorized["T"][j][1].tolist())
            unseen = sum(v not in seen for v in factorized["R"][j][1].tolist())
            if unseen:
                notes.append(f"column {c!r}: {unseen} value(s) of the {SET_LABELS['R']} data appear in no training "
                             f"record; each is a category of its own (a reference record that holds one differs "
                             f"from every training record in this column)")
    return notes



def _synthetic_precision(synthetic_dtypes: Any, sets: Sequence[str], num_cols: Sequence[str],
                         num_arrays: Mapping[str, NDArray[np.float64] | NumericSet]) -> dict[str, str]:
    """Numeric columns that the synthetic data holds at a lower precision than float64: stored as float32 or
    float16, or written with float64 values that are all float32 numbers while the real values are not (as a
    generator that computes in float32 writes them). Numbers are then judged equal at that precision."""
    out: dict[str, str] = {}
    real_sets = [s for s in REAL_SETS if s in sets]
    stored = {c: np.dtype(synthetic_dtypes[c]).name for c in num_cols
              if pd.api.types.is_float_dtype(synthetic_dtypes[c]) and np.dtype(synthetic_dtypes[c]).itemsize < 8}
    judged = [j for j, c in enumerate(num_cols) if c not in stored]
    # read a block of records at a time: the finite values of each block, with the whole columns' conclusions
    fraction = dict.fromkeys(judged, False)  # a synthetic value with a fraction
    single = dict.fromkeys(judged, True)  # every synthetic value a float32 number
    real_single = dict.fromkeys(judged, True)  # every real value a float32 number
    with np.errstate(over="ignore"):
        for v in number_blocks(num_arrays, ["S"]):
            for j in judged:
                x = v[:, j][np.isfinite(v[:, j])]
                fraction[j] = fraction[j] or not (x == np.round(x)).all()
                single[j] = single[j] and bool((x.astype(np.float32).astype(np.float64) == x).all())
        # no fractions: whole numbers (below 2**24) are the same at every precision
        asked = [j for j in judged if fraction[j] and single[j]]
        for v in number_blocks(num_arrays, real_sets) if asked else ():
            for j in asked:
                x = v[:, j][np.isfinite(v[:, j])]
                real_single[j] = real_single[j] and bool((x.astype(np.float32).astype(np.float64) == x).all())
    for j, c in enumerate(num_cols):  # in column order
        if c in stored:
            out[c] = stored[c]
        elif j in asked and not real_single[j]:
            out[c] = "float32"  # the real values are not all float32 numbers (a column without any: none)
    return out


def _spelling_key(text: str) -> str:
    return unicodedata.normalize("NFKC", text).strip().rstrip(".").strip().casefold()


def _spelling_notes(cat_cols: Sequence[str], factorized: dict[str, list[tuple[NDArray[np.int64],
                    NDArray[np.object_]]]], real_sets: Sequence[str], *, reveal: bool = False) -> list[str]:
    """Notes on synthetic categorical values that are no real value but differ from one only by case,
    surrounding spaces, Unicode form or a trailing dot, and on synthetic columns that share no value with the
    real column. Such a re-spelled value spells out a real one: it is quoted only with ``reveal`` (else counted
    and described); a synthetic value that re-spells no real value may be quoted."""
    notes = []
    for j, c in enumerate(cat_cols):
        real = set().union(*(factorized[s][j][1].tolist() for s in real_sets))
        syn = [v for v in factorized["S"][j][1].tolist()]
        if not syn or not real:
            continue
        unseen = [v for v in syn if v not in real]
        keys = {_spelling_key(v) for v in real}
        if len(unseen) == len(syn):
            shown = unseen if reveal else [v for v in unseen if _spelling_key(v) not in keys]
            example = (f" (for example {shown[0]!r})" if shown else
                       f" (its {len(unseen)} value(s) differ from real values only by case, surrounding spaces, "
                       f"Unicode form or a trailing dot: withheld, as they spell out real values)")
            notes.append(f"column {c!r}: the synthetic data shares no value with the real data{example}, so every "
                         f"synthetic record differs from every real one in it; check that the column holds the same "
                         f"thing in both")
            continue
        respelled = [v for v in unseen if _spelling_key(v) in keys]
        if respelled:
            example = (f"for example {respelled[0]!r}" if reveal else
                       "values withheld: each spells out a real value; pass reveal_real_values=True to quote one")
            notes.append(f"column {c!r}: {len(respelled)} synthetic value(s) differ from a real value only by "
                         f"case, surrounding spaces, Unicode form or a trailing dot ({example}); they count as "
                         f"different values, so records that carry them are counted as near copies, not exact "
                         f"copies")
    return notes
