"""How often is the verdict wrong? False alarms on honest releases and power on leaky ones, by simulation.

Honest releases are made so by construction: an *ideal generator* whose "synthetic" records are fresh real records
of the same population (three disjoint draws from the pooled real records: training, holdout, synthetic), and the
repository's independent-marginals and Gaussian-copula sets of Adult (or, for Bank, columns drawn independently
from the training draw, which copies each training value of every column; ``marginals_fresh``, in part ``few``,
draws each column independently from the pooled records outside the training draw: an honest generator of
independent marginals). Leaky releases inject copies into an ideal draw: exact copies of a share of training
records, near copies (one number moved by one unit, one category changed, redacted or re-spelled, whole records
at float32 precision) and the whole training set released with one column redacted or re-spelled.

Every draw runs the checks behind the verdict and the verdict itself; a cell prints the share of draws graded low /
medium / high with the Wilson 95% interval of the alarm rate. Splits are drawn from a generator seeded per draw over
a canonical order of the pooled records (sorted by a hash of each record), never over the files' row order.

Run by hand (it prints its tables; nothing is asserted)::

    python benchmarks/bench_calibration.py                 # the full tables of docs/calibration.md (see that page
    for its run time)
    python benchmarks/bench_calibration.py --quick         # a few draws per cell
    python benchmarks/bench_calibration.py --power         # smallest leak share detected with 95% power
    python benchmarks/bench_calibration.py --part attacks  # the membership attacks: honest and atypical-leak cells
    python benchmarks/bench_calibration.py --part few      # four categorical columns and one number (Adult, Bank)
    python benchmarks/bench_calibration.py --part small-holdout  # honest releases with holdouts of 1 to 50 records
    python benchmarks/bench_calibration.py --part outcomes  # ideal releases: how often each check rules its risk out
    python benchmarks/bench_calibration.py --part honest --write-cells cells.json  # ...and the cells as JSON

``--write-cells PATH`` writes the measured cells of the parts run (honest, leaks, ``--power``) in the format of the
package's ``synthpriv_report/export/calibration_cells.json`` (see :func:`cells_document`), which the reports'
"how often this verdict would be wrong" section reads.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data"

from synthpriv_report import Evaluation  # noqa: E402
from synthpriv_report.core.registry import verdict_metric_names  # noqa: E402
from synthpriv_report.datasets import memorised_atypical  # noqa: E402
from synthpriv_report.stats import wilson  # noqa: E402

CHECKS = tuple(verdict_metric_names())
ADULT_NUMERIC = ["age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"]
ADULT_CATEGORICAL = ["workclass", "marital-status", "race", "sex"]
#: Few-column shapes: four categorical columns and one weight-like or income-like number, so that most records are
#: unique and many are one value away from another (where the copy checks' baseline of fresh records is high).
FEW_COLUMNS = {"adult_few": ["workclass", "marital-status", "race", "sex", "fnlwgt"],
               "bank_few": ["job", "marital", "education", "housing", "balance"]}


# ---------------------------------------------------------------------------------------------------------------
# data shapes


def _canonical(df: pd.DataFrame) -> pd.DataFrame:
    """The records in an order that depends on their values alone (sorted by a hash of each record)."""
    h = pd.util.hash_pandas_object(df, index=False).to_numpy()
    return df.iloc[np.argsort(h, kind="stable")].reset_index(drop=True)


def _adult_frames() -> tuple[pd.DataFrame, pd.DataFrame]:
    tr = pd.read_csv(DATA / "adult" / "adult_train.csv")
    te = pd.read_csv(DATA / "adult" / "adult_test.csv")
    te["income"] = te["income"].str.rstrip(".")  # the test file writes '<=50K.'
    return tr, te


_CACHE: dict[str, pd.DataFrame] = {}


def pool(shape: str) -> pd.DataFrame:
    """The pooled real records of a shape, in canonical order."""
    if shape not in _CACHE:
        if shape.startswith("adult") or shape == "small":
            tr, te = _adult_frames()
            df = pd.concat([tr, te], ignore_index=True)
        elif shape.startswith("bank"):
            df = pd.concat([pd.read_csv(DATA / "bank" / "bank_train.csv"),
                            pd.read_csv(DATA / "bank" / "bank_holdout.csv")], ignore_index=True)
        else:
            raise ValueError(shape)
        _CACHE[shape] = _canonical(shape_columns(df, shape))
    return _CACHE[shape]


def shape_columns(df: pd.DataFrame, shape: str) -> pd.DataFrame:
    """A shape's columns: Adult numeric-only in standard units (numbers with fractions, so that float32 output
    differs from the real values), Adult with four categorical columns (most records not unique), or all."""
    if shape == "adult_numeric":
        out = df[ADULT_NUMERIC].astype(np.float64)
        return (out - out.mean()) / out.std()
    if shape == "adult_categorical":
        return df[ADULT_CATEGORICAL].copy()
    if shape in FEW_COLUMNS:
        return df[FEW_COLUMNS[shape]].copy()
    return df.copy()


# ---------------------------------------------------------------------------------------------------------------
# generators and leaks


def _marginals(t: pd.DataFrame, n: int, rng: np.random.Generator) -> pd.DataFrame:
    return pd.DataFrame({c: t[c].to_numpy()[rng.integers(0, len(t), n)] for c in t.columns})


def _file_generator(name: str, shape: str) -> pd.DataFrame:
    key = f"file:{name}:{shape}"
    if key not in _CACHE:
        df = pd.read_csv(DATA / "adult" / "synthetic" / f"{name}.csv.gz")
        tr, _ = _adult_frames()
        if shape == "adult_numeric":  # the same standard units as the real records
            full = pd.concat(_adult_frames(), ignore_index=True)[ADULT_NUMERIC].astype(np.float64)
            _CACHE[key] = (df[ADULT_NUMERIC].astype(np.float64) - full.mean()) / full.std()
        else:
            _CACHE[key] = _canonical(shape_columns(df, shape))
    return _CACHE[key]


def _respell(v: object) -> object:
    if not isinstance(v, str):
        return v
    s = v.swapcase()
    return s if s != v else v + "."


def _near(rec: pd.DataFrame, kind: str, rng: np.random.Generator, real: pd.DataFrame) -> pd.DataFrame:
    """Each record with one value changed as ``kind`` says."""
    rec = rec.copy()
    num = [c for c in rec.columns if pd.api.types.is_numeric_dtype(rec[c])]
    cat = [c for c in rec.columns if c not in num]
    for i in range(len(rec)):
        if kind == "near_number":
            c = num[rng.integers(len(num))]
            v = rec.iat[i, rec.columns.get_loc(c)]
            whole = float(v) == round(float(v))
            rec.iat[i, rec.columns.get_loc(c)] = v + (1 if whole else 1e-6 * max(abs(v), 1.0))
            continue
        c = cat[rng.integers(len(cat))]
        j = rec.columns.get_loc(c)
        v = rec.iat[i, j]
        if kind == "near_category":
            others = [x for x in real[c].dropna().unique() if x != v]
            rec.iat[i, j] = others[rng.integers(len(others))] if others else v
        elif kind == "near_redacted":
            rec.iat[i, j] = "REDACTED"
        elif kind == "near_respelled":
            rec.iat[i, j] = _respell(v)
    return rec


LEAKS = ("exact", "near_number", "near_category", "near_redacted", "near_respelled", "float32")
VERBATIM = ("verbatim_redacted", "verbatim_respelled")


def applicable(kind: str, shape: str) -> bool:
    if shape == "adult_numeric":
        return kind in ("ideal", "marginals", "copula", "exact", "near_number", "float32")
    if shape == "adult_categorical":
        return kind not in ("near_number", "float32", "copula")
    return not (shape.startswith("bank") and kind == "copula")


@dataclass
class Draw:
    T: pd.DataFrame
    S: pd.DataFrame
    H: pd.DataFrame | None


def draw(shape: str, n: int, holdout: bool, kind: str, frac: float, seed: int) -> Draw:
    """One release: disjoint training / holdout / synthetic draws, then the generator or the leak."""
    rng = np.random.default_rng(seed)
    p = pool(shape)
    n_t, n_s, n_h = (tuple(n) + (0,))[:3] if isinstance(n, tuple) else (n, n, n)  # (T, S[, H]) or one size
    if not holdout:
        n_h = 0
    perm = rng.permutation(len(p))
    if n_t + n_s + n_h > len(p):
        raise ValueError(f"{shape}: {n_t + n_s + n_h} records needed, {len(p)} pooled")
    T = p.iloc[perm[:n_t]].reset_index(drop=True)
    H = p.iloc[perm[n_t:n_t + n_h]].reset_index(drop=True) if holdout else None
    S = p.iloc[perm[n_t + n_h:n_t + n_h + n_s]].reset_index(drop=True)
    if kind == "marginals":
        S = (_marginals(T, n_s, rng) if shape.startswith("bank")
             else _sample(_file_generator("independent_marginals", shape), n_s, rng))
    elif kind == "marginals_fresh":  # each column drawn on its own from records outside the training draw
        S = _marginals(p.iloc[perm[n_t:]].reset_index(drop=True), n_s, rng)
    elif kind == "copula":
        S = _sample(_file_generator("gaussian_copula", shape), n_s, rng)
    elif kind in LEAKS:
        k = int(round(frac * n_s))
        src = T.iloc[np.sort(rng.choice(n_t, k, replace=False))].reset_index(drop=True)
        if kind.startswith("near_"):
            src = _near(src, kind, rng, T)
        where = np.sort(rng.choice(n_s, k, replace=False))
        S = S.copy()
        if kind == "float32":
            num = [c for c in S.columns if pd.api.types.is_numeric_dtype(S[c])]
            S[num] = S[num].astype(np.float32)
            src[num] = src[num].astype(np.float32)
        S.iloc[where] = src.to_numpy()
        if kind == "float32":
            S[num] = S[num].astype(np.float32)
        else:
            S = S.astype(T.dtypes.to_dict())
    elif kind == "atypical":  # the most atypical training records memorised, every number moved by 1% of its range
        S = memorised_atypical(T, S, share=frac, noise=0.01, random_state=seed)
    elif kind in VERBATIM:
        S = T.copy()
        cat = [c for c in S.columns if not pd.api.types.is_numeric_dtype(S[c])]
        c = cat[rng.integers(len(cat))]
        S[c] = "REDACTED" if kind == "verbatim_redacted" else S[c].map(_respell)
    return Draw(T, S, H)


def _sample(df: pd.DataFrame, n: int, rng: np.random.Generator) -> pd.DataFrame:
    return df.iloc[np.sort(rng.choice(len(df), n, replace=False))].reset_index(drop=True)


# ---------------------------------------------------------------------------------------------------------------
# running cells


def grade(d: Draw, seed: int) -> dict[str, str]:
    """The level of every check behind the verdict, and the verdict."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = Evaluation(d.T, d.S, holdout=d.H, metrics=list(CHECKS), random_state=seed, progress=False)
        res = ev.results()
    out = {m: (res[m].level or "n/a") if m in res else "n/a" for m in CHECKS}
    out["verdict"] = res.verdict.level
    return out


def run_cell(shape: str, n, holdout: bool, kind: str, frac: float, draws: int, seed0: int = 0
             ) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {m: [] for m in (*CHECKS, "verdict")}
    for i in range(draws):
        seed = seed0 + 1000 * i + 17
        g = grade(draw(shape, n, holdout, kind, frac, seed), seed)
        for m, lv in g.items():
            out[m].append(lv)
    return out


def _rate(levels: list[str], which: tuple[str, ...]) -> tuple[int, int, float, float]:
    ran = [lv for lv in levels if lv not in ("n/a", "not_assessed")]
    k = sum(lv in which for lv in ran)
    n = len(ran)
    lo, hi = wilson(k / n, n) if n else (float("nan"), float("nan"))
    return k, n, lo, hi


def _size_label(n) -> str:
    if isinstance(n, tuple):
        return "/".join(f"{v:,}" for v in n)
    return f"{n:,}"


def false_alarm_table(cells: list[tuple], draws: int) -> list[dict[str, Any]]:
    """Print the false-alarm table of ``cells`` (shape, records, holdout, generator); return its cells as
    :func:`honest_entry` writes them."""
    entries = []
    print("\n## False alarms: honest releases graded medium or high\n")
    print("| shape | records per set (T/S/H) | holdout | generator | verdict low / inconclusive / medium / high | "
          "alarm rate [Wilson 95%] | alarms by check | inconclusive share | inconclusive by check |")
    print("|---|---|---|---|---|---|---|---|---|")
    for shape, n, holdout, kind in cells:
        t0 = time.perf_counter()
        r = run_cell(shape, n, holdout, kind, 0.0, draws(n))
        v = r["verdict"]
        k, m, lo, hi = _rate(v, ("medium", "high"))
        by = ", ".join(f"{c} {_rate(r[c], ('medium', 'high'))[0]}" for c in CHECKS
                       if _rate(r[c], ("medium", "high"))[0])
        counts = " / ".join(str(sum(x == lv for x in v)) for lv in ("low", "inconclusive", "medium", "high"))
        entries.append(honest_entry(shape, n, holdout, kind, level_counts(v), unique_share=unique_share(shape, n)))
        ki, mi, _, _ = _rate(v, ("inconclusive",))
        unsure = ", ".join(f"{c} {_rate(r[c], ('inconclusive',))[0]}" for c in CHECKS
                           if _rate(r[c], ("inconclusive",))[0])
        print(f"| {shape} | {_size_label(n)} | {'yes' if holdout else 'no'} | {kind} | {counts} | "
              f"{k}/{m} = {k / max(m, 1):.1%} [{lo:.1%}, {hi:.1%}] | {by or 'none'} | "
              f"{ki}/{mi} = {ki / max(mi, 1):.0%} | {unsure or 'none'} |"
              f"  <!-- {time.perf_counter() - t0:.0f} s -->", flush=True)
    return entries


def power_table(cells: list[tuple], draws: int) -> list[dict[str, Any]]:
    """Print the power table of ``cells`` (shape, records, holdout, leak, share); return its cells as
    :func:`leak_entry` writes them."""
    entries = []
    print(f"\n## Power: leaky releases graded high ({draws} draws per cell)\n")
    print("| shape | records per set | holdout | leak | share leaked | verdict high [Wilson 95%] | high by check |")
    print("|---|---|---|---|---|---|---|")
    for shape, n, holdout, kind, frac in cells:
        t0 = time.perf_counter()
        r = run_cell(shape, n, holdout, kind, frac, draws)
        k, m, lo, hi = _rate(r["verdict"], ("high",))
        by = ", ".join(f"{c} {_rate(r[c], ('high',))[0]}" for c in CHECKS if _rate(r[c], ("high",))[0])
        share = "all (one column changed)" if kind in VERBATIM else f"{frac:.0%}"
        entries.append(leak_entry(shape, n, holdout, kind, frac, m, k, unique_share=unique_share(shape, n)))
        print(f"| {shape} | {_size_label(n)} | {'yes' if holdout else 'no'} | {kind} | {share} | "
              f"{k}/{m} = {k / max(m, 1):.1%} [{lo:.1%}, {hi:.1%}] | {by or 'none'} |"
              f"  <!-- {time.perf_counter() - t0:.0f} s -->", flush=True)
    return entries


def smallest_fraction_table(sizes: list[int], draws: int, kinds: tuple[str, ...]) -> list[dict[str, Any]]:
    """Per leak kind, size and holdout setting, the smallest share of the grid that each check (and the verdict)
    grades high in at least 95% of draws. The scan stops once the verdict and both copy checks have reached it;
    a check that has not by then shows "> x", x the last share tried. Returns the rows as :func:`smallest_entry`
    writes them."""
    entries = []
    print("\n## Smallest leaked share graded high in at least 95% of draws (Adult)\n")
    grid = (0.002, 0.005, 0.01, 0.02, 0.03, 0.05, 0.1, 0.2)
    print("| leak | records per set | holdout | " + " | ".join(CHECKS) + " | verdict |")
    print("|---|---|---|" + "---|" * (len(CHECKS) + 1))
    for kind in kinds:
        for n in sizes:
            for holdout in (True, False):
                found: dict[str, float | None] = {c: None for c in (*CHECKS, "verdict")}
                last = None
                for frac in grid:
                    if int(round(frac * n)) < 1:
                        continue
                    last = frac
                    r = run_cell("adult", n, holdout, kind, frac, draws)
                    for c in found:
                        k, m, _, _ = _rate(r[c], ("high",))
                        if found[c] is None and m and k / m >= 0.95:
                            found[c] = frac
                    if all(found[c] is not None for c in ("verdict", "exact_copies" if kind == "exact"
                                                          else "near_copies")):
                        break
                cells = " | ".join(f"{found[c]:.1%}" if found[c] is not None else
                                   ("n/a" if c in ("holdout_dcr_share", "dcr_test", "nndr_test") and not holdout
                                    else f"> {last:.1%}") for c in (*CHECKS, "verdict"))
                print(f"| {kind} | {n:,} | {'yes' if holdout else 'no'} | {cells} |", flush=True)
                entries.append(smallest_entry(kind, n, holdout, draws, found, last,
                                              unique_share=unique_share("adult", n)))
    return entries


# ---------------------------------------------------------------------------------------------------------------
# the measured cells as JSON (the package's synthpriv_report/export/calibration_cells.json)

#: The format of the cells file; the package's reader checks it.
CELLS_FORMAT = "synthpriv_report/calibration_cells/1"
#: Where the cells come from, for a reader: the data sets and what the draws are.
CELLS_SOURCE = ("benchmarks/bench_calibration.py: honest releases (fresh real records, independent marginals, a "
                "Gaussian copula) and leaky ones (copies of training records injected into fresh real records) drawn "
                "from the public UCI Adult and Bank Marketing data sets")
#: The share of unique training records, as the cells give it.
UNIQUE_SHARE_NOTE = ("unique_training_share: the share of training records no other training record equals, in the "
                     "first draw (seed 17) of the cell's size")
_SHAPE_WORDS = {
    "adult": "UCI Adult, all columns",
    "bank": "UCI Bank Marketing, all columns",
    "adult_numeric": "UCI Adult, its six numeric columns in standard units",
    "adult_categorical": "UCI Adult, four categorical columns (workclass, marital-status, race, sex)",
    "small": "UCI Adult, all columns, in sets of a few dozen records",
}


def records_of(n: int | tuple[int, ...], holdout: bool) -> dict[str, int | None]:
    """A cell's records per set, as the cells file writes them (``holdout`` ``None`` without one).

    >>> records_of(1000, True), records_of((30000, 9000), False)
    ({'training': 1000, 'synthetic': 1000, 'holdout': 1000}, {'training': 30000, 'synthetic': 9000, 'holdout': None})
    """
    n_t, n_s, n_h = (tuple(n) + (0,))[:3] if isinstance(n, tuple) else (n, n, n)
    return {"training": int(n_t), "synthetic": int(n_s), "holdout": int(n_h) if holdout else None}


def level_counts(levels: Sequence[str]) -> dict[str, int]:
    """The verdicts of a cell's draws counted by level (low / inconclusive / medium / high).

    >>> level_counts(["low", "low", "high"])
    {'low': 2, 'inconclusive': 0, 'medium': 0, 'high': 1}
    """
    return {lv: sum(x == lv for x in levels) for lv in ("low", "inconclusive", "medium", "high")}


def describe_shape(shape: str) -> dict[str, Any]:
    """A shape in numbers: its data set and its numeric and categorical columns (reads the pooled records)."""
    p = pool(shape)
    numeric = sum(pd.api.types.is_numeric_dtype(p[c]) for c in p.columns)
    return {"description": _SHAPE_WORDS.get(shape, shape), "numeric_columns": int(numeric),
            "categorical_columns": int(p.shape[1] - numeric), "pooled_records": int(len(p))}


def unique_share(shape: str, n: int | tuple[int, ...]) -> float:
    """The share of unique training records in the first draw (seed 17) of ``n`` records of ``shape``."""
    t = draw(shape, n, False, "ideal", 0.0, 17).T
    return round(float(1.0 - t.duplicated(keep=False).mean()), 4)


def honest_entry(shape: str, n: int | tuple[int, ...], holdout: bool, generator: str, counts: Mapping[str, int],
                 *, unique_share: float | None = None) -> dict[str, Any]:
    """One honest cell of the cells file: its verdicts counted by level over its draws.

    >>> e = honest_entry("adult", 100, False, "ideal", {"low": 0, "inconclusive": 39, "medium": 0, "high": 1})
    >>> e["draws"], e["counts"]["high"], e["records"]["holdout"]
    (40, 1, None)
    """
    counts = {lv: int(counts.get(lv, 0)) for lv in ("low", "inconclusive", "medium", "high")}
    return {"shape": shape, "records": records_of(n, holdout), "holdout": bool(holdout), "generator": generator,
            "unique_training_share": unique_share, "draws": sum(counts.values()), "counts": counts}


def leak_entry(shape: str, n: int | tuple[int, ...], holdout: bool, leak: str, frac: float, draws: int, high: int,
               *, unique_share: float | None = None) -> dict[str, Any]:
    """One leaky cell of the cells file: the draws whose verdict was high. A leak of the whole training set
    (``verbatim_*``) has ``share_leaked`` 1.

    >>> leak_entry("adult", 1000, True, "exact", 0.03, 10, 10)["share_leaked"]
    0.03
    """
    return {"shape": shape, "records": records_of(n, holdout), "holdout": bool(holdout), "leak": leak,
            "share_leaked": 1.0 if leak in VERBATIM else round(float(frac), 6),
            "unique_training_share": unique_share, "draws": int(draws), "high": int(high)}


def smallest_entry(leak: str, n: int, holdout: bool, draws: int, found: Mapping[str, float | None],
                   last: float | None, *, shape: str = "adult", unique_share: float | None = None
                   ) -> dict[str, Any]:
    """One row of the smallest-share table: per check (and the verdict) the smallest leaked share graded high in
    every draw, ``{"smallest": x}``; ``{"above": x}`` where the scan stopped at ``x`` before the check reached it;
    ``None`` where the check needs a holdout and there was none.

    >>> smallest_entry("exact", 1000, False, 10, {"dcr_test": None, "verdict": 0.01}, 0.01)["checks"]
    {'dcr_test': None, 'verdict': {'smallest': 0.01}}
    """
    checks: dict[str, dict[str, float] | None] = {}
    for c, v in found.items():
        if v is not None:
            checks[c] = {"smallest": round(float(v), 6)}
        elif c in ("holdout_dcr_share", "dcr_test", "nndr_test") and not holdout:
            checks[c] = None
        else:
            checks[c] = {"above": round(float(last), 6)} if last is not None else None
    verdict = checks.get("verdict")
    return {"shape": shape, "leak": leak, "records": records_of(n, holdout), "holdout": bool(holdout),
            "unique_training_share": unique_share, "draws": int(draws),
            "verdict_smallest_share": verdict.get("smallest") if verdict else None, "checks": checks}


def cells_document(honest: Sequence[Mapping[str, Any]], leaks: Sequence[Mapping[str, Any]],
                   smallest: Sequence[Mapping[str, Any]], *, shapes: Mapping[str, Mapping[str, Any]], date: str,
                   commit: str, machine: str, command: str,
                   tables: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """The cells file: metadata, the shapes in numbers and the three tables' cells.

    Parameters
    ----------
    honest, leaks, smallest : sequences of dict
        The cells as :func:`honest_entry`, :func:`leak_entry` and :func:`smallest_entry` make them.
    shapes : mapping
        Per shape named by a cell, :func:`describe_shape`'s description.
    date, commit, machine, command : str
        When, on which commit of the package, where and by which command the cells were measured.
    tables : mapping, optional
        Per table (``honest``, ``leaks``, ``smallest_share``) its own ``command`` and ``commit`` where they differ
        from the file's.

    Returns
    -------
    dict
        JSON-safe; :func:`write_cells` writes it.
    """
    used = {c["shape"] for c in (*honest, *leaks, *smallest)}
    missing = sorted(used - set(shapes))
    if missing:
        raise ValueError(f"no description of the shape(s) {', '.join(missing)}")
    return {"format": CELLS_FORMAT, "date": date, "commit": commit, "machine": machine, "command": command,
            "source": CELLS_SOURCE, "notes": [UNIQUE_SHARE_NOTE],
            "tables": {k: dict(v) for k, v in (tables or {}).items()},
            "shapes": {k: dict(shapes[k]) for k in sorted(used)},
            "honest": [dict(c) for c in honest], "leaks": [dict(c) for c in leaks],
            "smallest_share": [dict(c) for c in smallest]}


def write_cells(path: str | os.PathLike[str], document: Mapping[str, Any]) -> None:
    """Write the cells file whole or not at all (a temporary file beside ``path``, then ``os.replace``)."""
    path = Path(path)
    text = json.dumps(document, indent=1, ensure_ascii=False) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


#: The checks that compare the holdout with another group of records, and the holdout sizes of the small-holdout part.
SMALL_HOLDOUT_CHECKS = ("membership_inference", "holdout_dcr_share", "dcr_test", "nndr_test", "mia_worst_case")
SMALL_HOLDOUTS = (1, 2, 5, 10, 20, 50)


def small_holdout_table(draws: int, *, n: int = 1000, holdouts: tuple[int, ...] = SMALL_HOLDOUTS) -> None:
    """Honest releases (fresh Adult records as the synthetic set, ``n`` training and ``n`` synthetic records) with
    holdouts of a few records: per holdout size and check, the draws graded medium or high among those assessed,
    and the draws not assessed (a group too small to grade). An honest release should raise no alarm beyond the
    per-check rate, however small its holdout."""
    print(f"\n## Small holdouts: honest releases ({n:,} training and synthetic records, {draws} draws per cell)\n")
    print("| holdout records | " + " | ".join(SMALL_HOLDOUT_CHECKS) + " | verdict |")
    print("|---|" + "---|" * (len(SMALL_HOLDOUT_CHECKS) + 1))
    for n_h in holdouts:
        t0 = time.perf_counter()
        levels: dict[str, list[str]] = {c: [] for c in (*SMALL_HOLDOUT_CHECKS, "verdict")}
        for i in range(draws):
            seed = 1000 * i + 17
            d = draw("adult", (n, n, n_h), True, "ideal", 0.0, seed)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ev = Evaluation(d.T, d.S, holdout=d.H, metrics=sorted(set(CHECKS) | set(SMALL_HOLDOUT_CHECKS)),
                                random_state=seed, progress=False)
                res = ev.results()
            for c in SMALL_HOLDOUT_CHECKS:
                levels[c].append(res[c].level or "n/a")
            levels["verdict"].append(res.verdict.level)
        cells = []
        for c in (*SMALL_HOLDOUT_CHECKS, "verdict"):
            k, m, lo, hi = _rate(levels[c], ("medium", "high"))
            skipped = len(levels[c]) - m
            cells.append((f"{k}/{m} alarms [{lo:.0%}, {hi:.0%}]" if m else "no draw assessed")
                         + (f", {skipped} not assessed" if skipped else ""))
        print(f"| {n_h} | " + " | ".join(cells) + f" |  <!-- {time.perf_counter() - t0:.0f} s -->", flush=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="a few draws per cell (a smoke run)")
    ap.add_argument("--power", action="store_true", help="only the smallest-detected-share table")
    ap.add_argument("--part", choices=("all", "honest", "leaks", "attacks", "few", "small-holdout", "outcomes"),
                    default="all",
                    help="only the honest cells, only the leaky ones, or the membership attacks' cells (honest "
                         "releases and the most atypical records memorised, with a holdout)")
    ap.add_argument("--draws", type=int, default=None, help="draws per cell (default: 40 up to 1,000 records, "
                                                            "10 above; 10 for leaks)")
    ap.add_argument("--write-cells", metavar="PATH", default=None,
                    help="also write the measured cells as JSON (the format of the package's "
                         "synthpriv_report/export/calibration_cells.json); with --part all, honest or leaks, or "
                         "--power")
    ap.add_argument("--machine", default=f"{os.cpu_count()}-core machine",
                    help="the machine the cells file names (default: the number of CPU cores)")
    args = ap.parse_args(argv)
    if args.write_cells and not (args.power or args.part in ("all", "honest", "leaks")):
        ap.error("--write-cells writes the cells of --part all, honest or leaks, or of --power")
    t0 = time.perf_counter()
    cells: dict[str, list[dict[str, Any]]] = {"honest": [], "leaks": [], "smallest_share": []}

    def finish() -> None:
        print(f"\n(total {time.perf_counter() - t0:.0f} s)")
        if args.write_cells:
            used = {c["shape"] for rows in cells.values() for c in rows}
            write_cells(args.write_cells, cells_document(
                cells["honest"], cells["leaks"], cells["smallest_share"],
                shapes={s: describe_shape(s) for s in sorted(used)},
                date=dt.datetime.now(dt.timezone.utc).date().isoformat(), commit=_commit(), machine=args.machine,
                command=" ".join(["python", "benchmarks/bench_calibration.py", *sys.argv[1:]])))
            print(f"cells written to {args.write_cells}")
    if args.part == "small-holdout":
        small_holdout_table(args.draws or (5 if args.quick else 40))
        print(f"\n(total {time.perf_counter() - t0:.0f} s)")
        return
    if args.part == "few":  # tables with few columns: most records unique, many one value away from another
        few = tuple(FEW_COLUMNS)
        false_alarm_table([(shape, 1000, holdout, kind) for shape in few for holdout in (True, False)
                           for kind in ("ideal", "marginals", "marginals_fresh")],
                          lambda n: args.draws or (5 if args.quick else 20))
        power_table([(shape, 1000, holdout, kind, frac) for shape in few for holdout in (True, False)
                     for kind, frac in (("exact", 0.03), ("near_number", 0.1), ("near_category", 0.1),
                                        ("atypical", 0.02))
                     if holdout or kind != "atypical"], args.draws or (5 if args.quick else 10))
        print(f"\n(total {time.perf_counter() - t0:.0f} s)")
        return
    if args.part == "outcomes":  # the three outcomes: how often an ideal generator is graded low (ruled out)
        false_alarm_table([(shape, n, holdout, "ideal") for shape in ("adult", "bank") for n in (1000, 10000)
                           for holdout in (True, False)],
                          lambda n: args.draws or (5 if args.quick else (40 if n <= 1000 else 10)))
        print(f"\n(total {time.perf_counter() - t0:.0f} s)")
        return
    if args.part == "attacks":
        shapes = ("adult", "bank", "adult_numeric", "adult_categorical")
        false_alarm_table([(shape, 1000, True, "ideal") for shape in shapes] + [("adult", 10000, True, "ideal")]
                          + [(shape, (1000, 1000, 4000), True, "ideal") for shape in ("adult", "bank")],
                          lambda n: args.draws or (5 if args.quick else 40))
        # and 1% at 1,000 training records with a holdout four times as large (2,000 non-member targets): the
        # attacks' detection floor is set by the number of non-member targets, not by the attacks
        power_table([(shape, n, True, "atypical", frac) for shape, n in [(s, 1000) for s in shapes] + [("adult", 10000)]
                     for frac in (0.02, 0.01)]
                    + [(shape, (1000, 1000, 4000), True, "atypical", 0.01) for shape in ("adult", "bank")],
                    args.draws or (5 if args.quick else 20))
        print(f"\n(total {time.perf_counter() - t0:.0f} s)")
        return
    if args.power:
        cells["smallest_share"] = smallest_fraction_table(
            [1000, 10000], args.draws or (5 if args.quick else 20),
            ("exact", "near_number", "near_category", "near_redacted", "near_respelled"))
        finish()
        return

    def draws(n) -> int:
        if args.draws:
            return args.draws
        big = max(n) if isinstance(n, tuple) else n
        return 5 if args.quick else (40 if big <= 1000 else 10)

    honest = []
    for shape, sizes in (("adult", (100, 1000, 10000)), ("bank", (100, 1000, 10000)),
                         ("adult_numeric", (100, 1000)), ("adult_categorical", (100, 1000)),
                         ("small", (20, 50))):
        for n in sizes:
            for holdout in (True, False):
                for kind in ("ideal", "marginals", "copula"):
                    if applicable(kind, shape) and not (kind != "ideal" and shape == "small"):
                        honest.append((shape, n, holdout, kind))
    honest += [("adult", (30000, 9000, 9000), True, "ideal"), ("adult", (30000, 9000), False, "ideal")]
    if args.part != "leaks":
        cells["honest"] = false_alarm_table(honest, draws)
    if args.part == "honest":
        finish()
        return
    leak_draws = args.draws or (5 if args.quick else 10)
    leaks = []
    for shape, n in (("adult", 1000), ("bank", 1000), ("adult_numeric", 1000), ("adult_categorical", 1000),
                     ("adult", 10000), ("bank", 10000)):
        for holdout in (True, False):
            for kind in (*LEAKS, *VERBATIM):
                if applicable(kind, shape):
                    leaks.append((shape, n, holdout, kind, 0.03 if kind == "exact" else 0.1))
    cells["leaks"] = (power_table([c for c in leaks if c[1] <= 1000], leak_draws)
                      + power_table([c for c in leaks if c[1] > 1000], args.draws or 5))
    finish()


if __name__ == "__main__":
    main()
