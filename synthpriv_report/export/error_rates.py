"""How often a report's verdict is wrong, for data of its size and shape: the nearest measured cell of the
calibration harness.

The verdict's error rates were measured by simulation (``benchmarks/bench_calibration.py``) on the public UCI Adult
and Bank Marketing data sets: honest releases (fresh real records of the same population, independent marginals, a
Gaussian copula) to count false alarms, and leaky ones (copies of training records, exact or with one value
changed) to count the leaks found. The measured cells ship with the package (``calibration_cells.json``,
transcribed from the README's tables and written again by the harness's ``--write-cells PATH``).
:func:`error_rates` reads a validated report document, picks the measured cell nearest to it (the same holdout
setting; the table's shape from its columns; the size of the training data on a log scale) and returns the rates
of that cell with their Wilson 95% intervals, a table for :file:`templates/error_rates.html.j2` and sentences for
the reader. It reads the document only, as the rest of the export does, and computes nothing from the data.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any, Literal

from ..stats import wilson

__all__ = ["CELLS_FILE", "CELLS_FORMAT", "MAX_SIZE_RATIO", "error_rates", "load_cells"]

#: The package data file of the measured cells, beside this module.
CELLS_FILE = "calibration_cells.json"
#: The format the cells file must declare.
CELLS_FORMAT = "synthpriv_report/calibration_cells/1"
#: A measured cell is near a report only when their training sizes are within this factor of each other.
MAX_SIZE_RATIO = 3.0
#: The words naming the harness for a reader.
HARNESS_WORDS = "a simulation on the public UCI Adult and Bank Marketing data sets"

ShapeKind = Literal["numeric", "categorical", "mixed"]

#: How far apart two shapes are: a different kind of table (numbers only, categories only, mixed) weighs more
#: than any size difference within :data:`MAX_SIZE_RATIO`; then the log ratio of the column counts and the
#: difference of the unique shares (where both are known).
_KIND_PENALTY = 3.0
_UNIQUE_WEIGHT = 2.0
#: A shape is "far" from every measured one when its kind differs, its column count differs by more than this
#: factor, or its share of unique training records by more than :data:`_FAR_UNIQUE`.
_FAR_COLUMNS = 3.0
_FAR_UNIQUE = 0.3

_SHAPE_WORDS = {
    "adult": "Adult-like mixed table",
    "bank": "Bank-Marketing-like mixed table",
    "adult_numeric": "Table of numbers only",
    "adult_categorical": "Table of a few categorical columns, most records shared by several people",
    "small": "Adult-like mixed table",
}
_KIND_WORDS = {"numeric": "numbers only", "categorical": "categories only", "mixed": "numbers and categories"}
_GENERATOR_WORDS = {
    "ideal": "fresh real records of the same population",
    "marginals": "columns drawn independently of each other",
    "marginals_fresh": "columns drawn independently from records outside the training data",
    "copula": "a Gaussian copula model",
}
_LEVEL_WORDS = {"low": "low risk", "medium": "medium risk", "high": "high risk", "inconclusive": "inconclusive"}


# ---------------------------------------------------------------------------------------------------------------
# the measured cells


@cache
def _cells_text() -> str:
    return resources.files(__package__).joinpath(CELLS_FILE).read_text(encoding="utf-8")


def load_cells() -> dict[str, Any]:
    """The measured cells shipped with the package (a fresh copy per call).

    Returns
    -------
    dict
        ``format``, ``date``, ``commit``, ``machine``, ``command``, ``tables`` (per table its command and commit),
        ``shapes`` (per shape its numeric and categorical columns), ``honest``, ``leaks`` and ``smallest_share``
        (the cells of the three tables; see ``benchmarks/bench_calibration.py``'s ``cells_document``).

    >>> cells = load_cells()
    >>> cells["format"], cells["date"], len(cells["honest"]) > 0
    ('synthpriv_report/calibration_cells/1', '2026-12-06', True)
    """
    cells: dict[str, Any] = json.loads(_cells_text())
    if cells.get("format") != CELLS_FORMAT:
        raise ValueError(f"the calibration cells file declares format {cells.get('format')!r}, not {CELLS_FORMAT!r}")
    return cells


# ---------------------------------------------------------------------------------------------------------------
# formatting


def _pct(x: float) -> str:
    """A rate in percent, one decimal; none and all without one: '0%', '8.8%', '100%'."""
    return "0%" if x == 0.0 else "100%" if x == 1.0 else f"{100.0 * x:.1f}%"


def _rate(k: int, n: int) -> dict[str, Any]:
    """``k`` of ``n`` with its Wilson 95% interval, as numbers and as text."""
    lo, hi = wilson(k / n, n) if n else (float("nan"), float("nan"))
    rate = k / n if n else float("nan")
    text = f"{_pct(rate)} [{_pct(lo)}, {_pct(hi)}]" if n else "—"
    return {"count": int(k), "draws": int(n), "of": f"{k:,} of {n:,}", "rate": rate, "interval": [lo, hi],
            "rate_text": text, "interval_text": f"{_pct(lo)} to {_pct(hi)}" if n else "—"}


def _share_words(share: float) -> str:
    """A leaked share as a reader's percentage: 0.03 -> '3%', 0.002 -> '0.2%'."""
    pct = 100.0 * share
    return f"{pct:.0f}%" if abs(pct - round(pct)) < 1e-9 else f"{pct:g}%"


#: Each leak kind of the harness in words: a sentence's words, a table row's label and a list's few words
#: (``None``: the kind reads the same in a list as in a sentence). ``{s}`` is the leaked share, ``{moved}`` how far
#: the copied number moved.
_LEAKS: dict[str, tuple[str, str | None, str | None]] = {
    "exact": ("exact copies of {s} of the training records", "Exact copies of {s} of training records",
              "exact copies"),
    "near_number": ("{s} of records copied with one number moved {moved}", "{s} copied, one number moved {moved}",
                    "one number moved"),
    "near_category": ("{s} of records copied with one category changed", "{s} copied, one category changed",
                      "one category changed"),
    "near_redacted": ("{s} of records copied with one category redacted", "{s} copied, one category redacted",
                      "one category redacted"),
    "near_respelled": ("{s} of records copied with one category re-spelled", "{s} copied, one category re-spelled",
                       "one category re-spelled"),
    "float32": ("{s} of records copied with numbers rounded to 7 digits", "{s} copied, numbers rounded to 7 digits",
                "numbers rounded"),
    "verbatim_redacted": ("the whole training data with one column redacted",
                          "All training data, one column redacted", None),
    "verbatim_respelled": ("the whole training data with one column re-spelled",
                           "All training data, one column re-spelled", None),
    "atypical": ("the {s} most unusual training records copied with every number moved slightly", None, None),
}


def _leak_words(leak: str, share: float, shape: str) -> str:
    """A leak kind in plain words ('exact copies of 3% of the training records')."""
    words = _LEAKS.get(leak, ("{s} of records leaked (" + leak + ")", None, None))[0]
    moved = "by a millionth of its value" if shape == "adult_numeric" else "by one unit"
    return words.format(s=_share_words(share), moved=moved)


def _leak_label(leak: str, share: float, shape: str) -> str:
    """A leak in a table row's few words ('10% copied, one category changed')."""
    label = _LEAKS.get(leak, ("", None, None))[1]
    if label is None:
        return _leak_words(leak, share, shape)
    return label.format(s=_share_words(share), moved="by a millionth" if shape == "adult_numeric" else "by one unit")


def _list_words(leak: str) -> str:
    """A leak kind in a list's few words ('one number moved'); an unknown kind as its name."""
    entry = _LEAKS.get(leak)
    return entry[2] or leak if entry is not None else leak


def _records_words(records: Mapping[str, Any]) -> str:
    t, s, h = records["training"], records["synthetic"], records.get("holdout")
    if s == t and h in (None, t):
        return f"{t:,} records per set"
    parts = [f"{t:,} training", f"{s:,} synthetic"] + ([f"{h:,} holdout"] if h else [])
    return (", ".join(parts[:-1]) + " and " + parts[-1]) + " records"


def _cell_words(shape: str, records: Mapping[str, Any], holdout: bool) -> str:
    """A measured cell in words: 'Adult-like mixed table, 1,000 records per set, with a holdout'."""
    return (f"{_SHAPE_WORDS.get(shape, 'Table')}, {_records_words(records)}, "
            f"{'with' if holdout else 'without'} a holdout")


# ---------------------------------------------------------------------------------------------------------------
# the report's situation


def _situation(doc: Mapping[str, Any]) -> dict[str, Any]:
    """Training rows, holdout, column kinds and (where the report has it) the unique share, read from ``doc``."""
    meta = doc.get("meta")
    if not isinstance(meta, Mapping) or not isinstance(meta.get("sets"), Sequence) \
            or not isinstance(meta.get("columns"), Sequence):
        raise ValueError("the report document has no meta.sets or meta.columns: error rates need the sizes of the "
                         "data sets and the kinds of their columns")
    rows = {str(s.get("role")): s.get("rows") for s in meta["sets"] if isinstance(s, Mapping)}
    training = rows.get("real", rows.get("training"))
    if not isinstance(training, (int, float)) or isinstance(training, bool) or training < 1:
        raise ValueError(f"the report document gives no number of training rows (meta.sets, role 'real'): "
                         f"{training!r}")
    holdout_rows = rows.get("holdout")
    kinds = [str(c.get("kind")) for c in meta["columns"] if isinstance(c, Mapping)]
    numeric, categorical = kinds.count("numeric"), kinds.count("categorical")
    kind: ShapeKind = "categorical" if numeric == 0 else "numeric" if categorical == 0 else "mixed"
    unique = None
    for m in (doc.get("metrics") or {}).values():  # the first metric that reports the share (the copy check)
        details = m.get("details") if isinstance(m, Mapping) else None
        u = details.get("unique_training_share") if isinstance(details, Mapping) else None
        if isinstance(u, (int, float)) and not isinstance(u, bool) and math.isfinite(u):
            unique = float(u)
            break
    return {"training_rows": int(training), "holdout": bool(holdout_rows), "holdout_rows": holdout_rows or None,
            "numeric_columns": numeric, "categorical_columns": categorical, "kind": kind,
            "unique_training_share": unique, "verdict": (doc.get("verdict") or {}).get("level")}


def _shape_kind(shape: Mapping[str, Any]) -> ShapeKind:
    n, c = shape["numeric_columns"], shape["categorical_columns"]
    return "categorical" if n == 0 else "numeric" if c == 0 else "mixed"


def _shape_distance(report: Mapping[str, Any], shape: Mapping[str, Any], unique: float | None
                    ) -> tuple[float, bool]:
    """How far a measured shape is from the report's, and whether it is far from it."""
    cols = max(report["numeric_columns"] + report["categorical_columns"], 1)
    cols_c = max(shape["numeric_columns"] + shape["categorical_columns"], 1)
    same_kind = _shape_kind(shape) == report["kind"]
    d = (0.0 if same_kind else _KIND_PENALTY) + abs(math.log(cols / cols_c))
    far = not same_kind or max(cols / cols_c, cols_c / cols) > _FAR_COLUMNS
    u = report["unique_training_share"]
    if u is not None and unique is not None:
        d += _UNIQUE_WEIGHT * abs(u - unique)
        far = far or abs(u - unique) > _FAR_UNIQUE
    return d, far


# ---------------------------------------------------------------------------------------------------------------
# the public function


def error_rates(doc: Mapping[str, Any], *, cells: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """How often a verdict like this report's was wrong in the measured situation nearest to it.

    The nearest cell has the report's holdout setting (with or without one), a training size within a factor of
    :data:`MAX_SIZE_RATIO` (3) of the report's, and among those the nearest shape (the same kind of table: numbers
    only, categories only or both; then the number of columns and, where the report gives it, the share of unique
    training records) and then the nearest size on a log scale. Where no cell lies within a factor of 3 in size,
    the rates are not measured and the result says so.

    Parameters
    ----------
    doc : mapping
        A validated report document (schema ``synthpriv_report/1``): ``doc["meta"]["sets"]`` (role, rows),
        ``doc["meta"]["columns"]`` (name, kind) and ``doc["verdict"]`` are read; a metric's detail
        ``unique_training_share`` (the copy check reports it) too, where present.
    cells : mapping, optional
        The measured cells (default: :func:`load_cells`, the package's own).

    Returns
    -------
    dict
        JSON-safe, for :file:`templates/error_rates.html.j2` (as ``e``):

        ``measured`` (bool), ``report`` (the report's training rows, holdout, column counts, kind, unique share,
        verdict), ``cell`` (``shape``, ``records``, ``holdout``, ``words``, ``numeric_columns``,
        ``categorical_columns``; ``None`` when not measured), ``shape_far`` (bool) and ``shape_note``,
        ``size_note`` (str or ``None``), ``honest`` (per honest generator its counts and alarm rate),
        ``false_alarms`` and ``inconclusive`` (over the cell's honest releases: ``count``, ``draws``, ``of``
        ("2 of 120"), ``rate``, ``interval`` [Wilson 95%], ``rate_text``, ``interval_text``; ``None`` when not
        measured), ``detection`` (per leak kind simulated at this size: ``leak``, ``words``, ``label`` (a table
        row's few words), ``share_leaked`` and the rate of draws graded high), ``smallest_share`` (per leak kind
        of the smallest-share table: ``leak``, ``share`` (or ``None``), ``draws``, ``words`` and ``text``), ``rows``
        (the table: ``kind`` (honest, inconclusive or leak), ``what``, ``draws``, ``result`` (the count graded
        wrongly or found), ``rate_text``), ``sentences`` (plain English) and ``source`` (date, commit, machine,
        harness words).

    Notes
    -----
    The intervals are Wilson 95% score intervals (:func:`synthpriv_report.stats.wilson`): no alarm in 10 draws
    still allows a rate up to 27.8%, and the sentences say so. The cells are measurements on public data of a
    known shape, not on this report's data: they say how the checks behave on data like these.

    Examples
    --------
    >>> doc = {"meta": {"sets": [{"role": "real", "rows": 1000}, {"role": "synthetic", "rows": 1000},
    ...                          {"role": "holdout", "rows": 1000}],
    ...                 "columns": [{"name": "age", "kind": "numeric"}, {"name": "job", "kind": "categorical"},
    ...                             {"name": "hours", "kind": "numeric"}, {"name": "sex", "kind": "categorical"}]},
    ...        "verdict": {"level": "low"}}
    >>> e = error_rates(doc)
    >>> e["cell"]["words"]
    'Adult-like mixed table, 1,000 records per set, with a holdout'
    >>> e["false_alarms"]["of"], e["false_alarms"]["interval_text"]
    ('2 of 120', '0.5% to 5.9%')
    """
    cells = load_cells() if cells is None else cells
    report = _situation(doc)
    source = {"date": cells.get("date"), "commit": cells.get("commit"), "machine": cells.get("machine"),
              "harness": HARNESS_WORDS}
    t = report["training_rows"]
    honest = [c for c in cells["honest"] if bool(c["holdout"]) == report["holdout"]]
    groups: dict[tuple[str, int, int, int | None], list[Mapping[str, Any]]] = {}
    for c in honest:
        r = c["records"]
        groups.setdefault((c["shape"], r["training"], r["synthetic"], r.get("holdout")), []).append(c)

    def size_distance(key: tuple[str, int, int, int | None]) -> float:
        return abs(math.log(t / key[1]))

    near = [k for k in groups if size_distance(k) <= math.log(MAX_SIZE_RATIO) + 1e-9]
    if not near:
        return _not_measured(report, [k[1] for k in groups], source)

    def score(key: tuple[str, int, int, int | None]) -> tuple[float, float]:
        unique = groups[key][0].get("unique_training_share")
        d, _ = _shape_distance(report, cells["shapes"][key[0]], unique)
        return (d + size_distance(key), size_distance(key))

    key = min(near, key=score)
    shape, chosen = key[0], groups[key]
    records = dict(chosen[0]["records"])
    shape_desc = cells["shapes"][shape]
    _, far = _shape_distance(report, shape_desc, chosen[0].get("unique_training_share"))
    words = _cell_words(shape, records, report["holdout"])
    cell = {"shape": shape, "records": records, "holdout": report["holdout"], "words": words,
            "numeric_columns": shape_desc["numeric_columns"],
            "categorical_columns": shape_desc["categorical_columns"],
            "unique_training_share": chosen[0].get("unique_training_share")}

    per_generator = []
    alarms = draws = unsure = 0
    for c in chosen:
        k = c["counts"]["medium"] + c["counts"]["high"]
        alarms, draws, unsure = alarms + k, draws + c["draws"], unsure + c["counts"]["inconclusive"]
        per_generator.append({"generator": c["generator"], "words": _GENERATOR_WORDS.get(c["generator"],
                                                                                         c["generator"]),
                              "counts": dict(c["counts"]), **_rate(k, c["draws"])})
    false_alarms, inconclusive = _rate(alarms, draws), _rate(unsure, draws)

    detection = []
    for c in cells["leaks"]:
        if c["shape"] == shape and dict(c["records"]) == records and bool(c["holdout"]) == report["holdout"]:
            detection.append({"leak": c["leak"], "share_leaked": c["share_leaked"],
                              "words": _leak_words(c["leak"], c["share_leaked"], shape),
                              "label": _leak_label(c["leak"], c["share_leaked"], shape),
                              **_rate(c["high"], c["draws"])})

    smallest = _smallest(cells, shape, records["training"], report["holdout"])
    shape_note = None
    if far:
        shape_note = (f"No measured table is much like this one: it has {report['numeric_columns']} numeric and "
                      f"{report['categorical_columns']} categorical columns ({_KIND_WORDS[report['kind']]}"
                      + (f", {_pct(report['unique_training_share'])} of training records unique"
                         if report["unique_training_share"] is not None else "")
                      + f"); the nearest measured has {shape_desc['numeric_columns']} numeric and "
                        f"{shape_desc['categorical_columns']} categorical columns. Read these rates as a rough guide "
                        "only.")
    size_note = None
    if records["training"] != t:
        size_note = (f"This report has {t:,} training records; the nearest measured size is "
                     f"{records['training']:,}.")

    rows = [{"kind": "honest", "what": g["words"][0].upper() + g["words"][1:], "draws": g["draws"],
             "result": f"{g['count']:,}", "rate_text": g["rate_text"]}
            for g in per_generator]
    rows.append({"kind": "inconclusive", "what": "All of these: inconclusive (risk not ruled out)",
                 "draws": draws, "result": f"{unsure:,}", "rate_text": inconclusive["rate_text"]})
    rows += [{"kind": "leak", "what": d["label"], "draws": d["draws"],
              "result": f"{d['count']:,}",
              "rate_text": d["rate_text"]} for d in detection]

    out = {"measured": True, "report": report, "cell": cell, "shape_far": far, "shape_note": shape_note,
           "size_note": size_note, "honest": per_generator, "false_alarms": false_alarms,
           "inconclusive": inconclusive, "detection": detection, "smallest_share": smallest, "rows": rows,
           "source": source}
    out["sentences"] = _sentences(out)
    return out


def _smallest(cells: Mapping[str, Any], shape: str, training: int, holdout: bool) -> list[dict[str, Any]]:
    """Per leak kind of the smallest-share table, the smallest share graded high in every draw at this size."""
    kinds = list(dict.fromkeys(c["leak"] for c in cells["smallest_share"]))
    out = []
    for leak in kinds:
        rows = [c for c in cells["smallest_share"] if c["leak"] == leak and c["records"]["training"] == training
                and bool(c["holdout"]) == holdout]
        row = next((c for c in rows if c["shape"] == shape), None)
        if row is None:
            text = ("not measured for tables like these at this size" if rows else "not measured at this size")
            out.append({"leak": leak, "share": None, "draws": None, "words": None, "text": text})
            continue
        share = row["verdict_smallest_share"]
        text = (_leak_words(leak, share, shape) if share is not None
                else "not graded high in every draw at any share tried")
        out.append({"leak": leak, "share": share, "draws": row["draws"], "words": text, "text": text})
    return out


def _not_measured(report: Mapping[str, Any], sizes: Sequence[int], source: Mapping[str, Any]) -> dict[str, Any]:
    t = report["training_rows"]
    with_h = "with" if report["holdout"] else "without"
    if sizes:
        largest, smallest = max(sizes), min(sizes)
        beyond = (f"the largest measured is {largest:,}" if t > largest else f"the smallest measured is {smallest:,}")
        note = f"No measurement near {t:,} records {with_h} a holdout; {beyond}."
    else:
        note = f"No measurement {with_h} a holdout."
    sentences = [note, f"How often the verdict is wrong for data of this size was not measured ({HARNESS_WORDS} "
                       f"covers training sets within a factor of {MAX_SIZE_RATIO:g} of the measured sizes only)."]
    return {"measured": False, "report": dict(report), "cell": None, "shape_far": False, "shape_note": None,
            "size_note": note, "honest": [], "false_alarms": None, "inconclusive": None, "detection": [],
            "smallest_share": [], "rows": [], "sentences": sentences, "source": dict(source)}


def _short_leak(leak: str, share: float) -> str:
    """A leak in a few words, for a list in one sentence ('exact copies of 3% of records')."""
    s = _share_words(share)
    if leak.startswith("verbatim_"):
        return _leak_words(leak, share, "")
    if leak == "exact":
        return f"exact copies of {s} of records"
    return f"{_list_words(leak)} in {s} of records"


def _sentences(e: Mapping[str, Any]) -> list[str]:
    """The reader's sentences: where the rates come from, the rates and their limits, what this verdict risks."""
    cell, fa, inc = e["cell"], e["false_alarms"], e["inconclusive"]
    out = [f"Measured by {HARNESS_WORDS} ({e['source']['date']}), in the situation nearest to this report: "
           f"{cell['words']}."]
    out += [n for n in (e["size_note"], e["shape_note"]) if n]
    safe = (f"Safe releases were wrongly graded medium or high risk in {fa['of']} simulated releases "
            f"({_pct(fa['rate'])}; 95% interval {fa['interval_text']})")
    if fa["count"] == 0:
        safe += f": none was, but with {fa['draws']:,} releases the true rate could still be as high as " \
                f"{_pct(fa['interval'][1])}"
    out.append(safe + ".")
    if inc["count"]:  # none inconclusive: the table's row says so
        out.append(f"{inc['of']} safe releases were graded inconclusive, the risk not ruled out "
                   f"({_pct(inc['rate'])}; 95% interval {inc['interval_text']}).")
    detection = e["detection"]
    missed = [d for d in detection if d["count"] < d["draws"]]
    if detection and not missed and len({d["draws"] for d in detection}) == 1:
        d0 = detection[0]
        out.append(f"Every kind of leak in the table was graded high risk in all {d0['draws']:,} of its simulated "
                   f"releases (95% interval {d0['interval_text']}).")
    elif detection:
        worst = min(missed, key=lambda d: d["rate"])
        out.append(f"{len(missed)} of the {len(detection)} kinds of leak simulated at this size were not graded high "
                   f"risk in every simulated release; the least often found, "
                   f"{_short_leak(worst['leak'], worst['share_leaked'])}, was found in {worst['of']} (95% interval "
                   f"{worst['interval_text']}).")
        if any(d["rate"] < 0.5 for d in detection):
            out.append("Some of these leaks went unseen in most simulated releases: on data like these a verdict "
                       "that is not high does not show that no records were copied.")
    else:
        out.append("Leaky releases were not simulated at this size.")
    measured = [s for s in e["smallest_share"] if s["share"] is not None]
    if measured:
        out.append(f"The smallest share of copied records graded high risk in all {measured[0]['draws']} simulated "
                   "releases at this size: "
                   + "; ".join(f"{_list_words(s['leak'])} {_share_words(s['share'])}"
                               for s in measured) + ".")
    level = e["report"]["verdict"]
    if level in ("medium", "high"):
        out.append(f"This report's verdict is {_LEVEL_WORDS[level]}: it would be wrong if the release were in fact "
                   f"safe, which happened in {fa['of']} simulated safe releases.")
    elif level == "low":
        out.append("This report's verdict is low risk: it would be wrong if the release leaked in a way the checks "
                   + ("miss; the leak rows say how often each kind was missed." if detection else
                      "miss; leaks were not simulated at this size, so how often they are missed is not known."))
    elif level == "inconclusive":
        out.append("This report's verdict is inconclusive: the checks could not rule the risk out, which happened "
                   f"in {inc['of']} simulated safe releases.")
    return out
