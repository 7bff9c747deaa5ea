"""Real generators against the membership attacks, with DOMIAS beside them on the same releases.

Each cell draws a training set T of ``n`` records from a data set's training file and a holdout H of
``max(2 n, 2,000)`` records from its holdout file (seeded; at least 1,000 non-member targets, so that a 0.1%
false-positive rate can be read), fits a generator on T in that generator's own virtual environment, and
samples a release S of ``n`` records. Every release is then

- evaluated by the package: ``Evaluation(T, S, holdout=H, random_state=seed, metrics=[the four attacks])``; for
  ``mia_distance_ratio``, ``mia_density_ratio``, ``mia_local_lr`` and ``mia_worst_case`` the script prints the
  true-positive rate at 0.1% and 1% false-positive rate with their Clopper-Pearson intervals and the AUC with
  DeLong's interval (members: the ``n`` training records; non-member targets: half of H; the attacker's reference:
  the other half, the package's own seeded split, ``mia_common.split_positions``);
- attacked by DOMIAS (B. van Breugel, H. Sun, Z. Qian, M. van der Schaar, "Membership Inference Attacks against
  Synthetic Data through Overfitting Detection", AISTATS 2023; ``pip install domias``, 0.0.5) in its own virtual
  environment, on the *same* members, targets, reference and release: its BNAF density estimator
  (``domias.bnaf.density_estimation.density_estimator_trainer`` with its defaults) fitted once on the release and
  once on the reference, the score ``log p_S(x) - log p_R(x)`` (the log of DOMIAS's ratio), and, where SciPy can
  fit it, its KDE variant (``scipy.stats.gaussian_kde`` on both sets, as ``domias.evaluator`` does). DOMIAS takes
  numbers: each categorical column is coded by its category's position in the sorted categories of both files,
  and every column is standardised by the mean and standard deviation of both files together. Its scores go
  through the package's ``attack_roc``, so both sides are read by the same rules (ties, intervals).

CPU seconds are process CPU time (all threads), the least of ``--repeat`` runs (3) on the same release: ours
``time.process_time`` around the evaluation (data preparation, searches and the four attacks; numba kernels
compiled beforehand, outside the timing); DOMIAS's ``time.process_time`` inside its process around the two density
fits and the scoring (imports excluded), and for BNAF beside it the whole child process
(``resource.getrusage(RUSAGE_CHILDREN)``, imports of torch included). Torch and BLAS run one thread in every child.
Both sides are timed in the same pass, one after the other, so that a busy machine slows both alike.

Generators (each in its own environment, never in the package's; versions are printed):

- ``gaussian_copula``: SDV ``GaussianCopulaSynthesizer`` (defaults);
- ``ctgan``: SDV ``CTGANSynthesizer``, 300 epochs (SDV's default);
- ``tvae``: SDV ``TVAESynthesizer``, 300 epochs (SDV's default);
- ``cart``: synthpop-py's ``Synthesiser`` (sequential CART, the method of the R package synthpop);
- ``mst_e1``: smartnoise-synth's MST, ε = 1 (0.3 of it spent on the bins of the numeric columns);
- ``tvae_overfit`` (positive control): SDV ``TVAESynthesizer`` with 3,000 epochs and no compression of its
  batch (``batch_size`` = the number of records), so that it memorises its few training records.

Categorical missing values are read as the category ``"?"`` everywhere (T, H, S and DOMIAS's coding), so that
every generator sees the same table; the numeric columns have none.

Set up the environments once (outside the repository; SDV needs pandas < 3, synthpop-py pandas >= 3)::

    python -m venv /work/venvs/sdv && /work/venvs/sdv/bin/pip install torch==2.13.0 && \\
        /work/venvs/sdv/bin/pip install sdv "pandas<3" pyarrow
    python -m venv /work/venvs/smartnoise && /work/venvs/smartnoise/bin/pip install torch==2.13.0 && \\
        /work/venvs/smartnoise/bin/pip install smartnoise-synth "pandas<3" pyarrow
    python -m venv /work/venvs/synthpop && /work/venvs/synthpop/bin/pip install synthpop-py pyarrow
    python -m venv /work/venvs/domias && /work/venvs/domias/bin/pip install torch==2.13.0 && \\
        /work/venvs/domias/bin/pip install domias "pandas<3" pyarrow

Usage::

    python benchmarks/bench_generators.py                               # adult and bank, 500 and 1,000 records
    python benchmarks/bench_generators.py --data adult --sizes 500 --generators gaussian_copula tvae_overfit
    python benchmarks/bench_generators.py --venvs /work/venvs --json out.json --no-domias

Releases and DOMIAS's BNAF scores are cached under ``benchmarks/.cache/generators`` (by data set, size, seed and
generator): a second run evaluates every release again, ours and DOMIAS's KDE, without refitting (``--refit`` fits
again). The tables of the documentation's "Membership attacks" page (docs/reference/membership-attacks.md) came
from::

    python benchmarks/bench_generators.py --sizes 500 1000 5000 --bnaf-sizes 500 \\
        --bnaf-generators gaussian_copula tvae_overfit --json generators.json
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
DATA = HERE.parents[2] / "shared" / "data"
CACHE = HERE.parent / ".cache" / "generators"

#: training file, holdout file, numeric columns
DATASETS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "adult": ("adult/adult_train.csv", "adult/adult_test.csv",
              ("age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week")),
    "bank": ("bank/bank_train.csv", "bank/bank_holdout.csv",
             ("age", "balance", "day", "duration", "campaign", "pdays", "previous")),
}
#: generator -> (environment, settings)
GENERATORS: dict[str, tuple[str, dict[str, Any]]] = {
    "gaussian_copula": ("sdv", {"kind": "gaussian_copula"}),
    "ctgan": ("sdv", {"kind": "ctgan", "epochs": 300}),
    "tvae": ("sdv", {"kind": "tvae", "epochs": 300}),
    "cart": ("synthpop", {"kind": "cart"}),
    "mst_e1": ("smartnoise", {"kind": "mst", "epsilon": 1.0, "preprocessor_eps": 0.3}),
    "tvae_overfit": ("sdv", {"kind": "tvae", "epochs": 3000, "full_batch": True}),
}
ATTACKS = ("mia_distance_ratio", "mia_density_ratio", "mia_local_lr", "mia_worst_case")
MISSING = "?"
#: Fewest non-member targets (half the holdout): 1,000, so that a 0.1% false-positive rate can be read.
MIN_TARGETS = 1000
ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
              "NUMEXPR_NUM_THREADS": "1", "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false"}


# ---------------------------------------------------------------------------------------------------------------
# children: run by a generator's or DOMIAS's own python (standard library, numpy and pandas only at module level)


def _seed_everything(seed: int) -> None:
    import random

    import numpy as np

    random.seed(seed)
    np.random.seed(seed)
    try:
        import torch

        torch.manual_seed(seed)
        torch.set_num_threads(1)
    except ImportError:
        pass


def _versions(names: list[str]) -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for n in names:
        try:
            out[n] = version(n)
        except PackageNotFoundError:
            pass
    return out


def child_fit(spec: dict[str, Any]) -> dict[str, Any]:
    """Fit one generator on ``spec["train"]`` and write ``spec["n_out"]`` records to ``spec["out"]`` (CSV)."""
    import pandas as pd

    seed = int(spec["seed"])
    _seed_everything(seed)
    numeric = list(spec["numeric"])
    T = pd.read_csv(spec["train"])
    cat = [c for c in T.columns if c not in numeric]
    T[cat] = T[cat].astype(str)
    s = spec["settings"]
    kind = s["kind"]
    t0 = time.process_time()
    if kind in ("gaussian_copula", "ctgan", "tvae"):
        from sdv.metadata import Metadata
        from sdv.single_table import CTGANSynthesizer, GaussianCopulaSynthesizer, TVAESynthesizer

        cols = {c: ({"sdtype": "numerical"} if c in numeric
                    else {"sdtype": "categorical"}) for c in T.columns}
        md = Metadata.load_from_dict({"tables": {"table": {"columns": cols}}})
        if kind == "gaussian_copula":
            syn = GaussianCopulaSynthesizer(md)
        elif kind == "ctgan":
            syn = CTGANSynthesizer(md, epochs=int(s["epochs"]), enable_gpu=False)
        else:
            extra = {"batch_size": len(T) - len(T) % 2} if s.get("full_batch") else {}  # TVAE: even batches
            syn = TVAESynthesizer(md, epochs=int(s["epochs"]), enable_gpu=False, **extra)
        syn.fit({"table": T})  # SDV 2 takes a table name mapped to the data
        syn._set_random_state(seed)
        S = syn.sample(num_rows=int(spec["n_out"]))
        S = S["table"] if isinstance(S, dict) else S
        lib = ["sdv", "ctgan", "copulas", "rdt", "torch"]
    elif kind == "cart":
        from synthpop import Synthesiser

        syn = Synthesiser(random_seed=seed)
        syn.fit(T)
        S = syn.generate(int(spec["n_out"]), random_seed=seed)
        lib = ["synthpop-py", "scikit-learn"]
    elif kind == "mst":
        from snsynth import Synthesizer

        syn = Synthesizer.create("mst", epsilon=float(s["epsilon"]), verbose=False)
        try:
            syn.fit(T, categorical_columns=cat, continuous_columns=numeric,
                    preprocessor_eps=float(s["preprocessor_eps"]))
            bounds = "found by smartnoise under differential privacy"
        except ValueError as exc:  # "BinTransformer could not find bounds." (Bank): the schema's bounds instead
            if "bounds" not in str(exc):
                raise
            from snsynth.transform import BinTransformer, TableTransformer

            limits = {c: BinTransformer(lower=float(lo), upper=float(hi)) for c, (lo, hi) in spec["bounds"].items()}
            tt = TableTransformer.create(T, style="cube", categorical_columns=cat, continuous_columns=numeric,
                                         constraints=limits)
            syn = Synthesizer.create("mst", epsilon=float(s["epsilon"]), verbose=False)
            syn.fit(T, transformer=tt)
            bounds = f"public (the data files' ranges): smartnoise's search failed ({exc})"
        S = syn.sample(int(spec["n_out"]))
        lib = ["smartnoise-synth", "mbi", "opacus"]
    else:
        raise ValueError(f"unknown generator kind {kind!r}")
    cpu = time.process_time() - t0
    S = S[list(T.columns)]
    for c in numeric:
        S[c] = pd.to_numeric(S[c], errors="coerce").round()
    S[cat] = S[cat].astype(str)
    S.to_csv(spec["out"], index=False)
    out = {"cpu_s": cpu, "versions": _versions(lib + ["pandas", "numpy"])}
    if kind == "mst":
        out["bounds"] = bounds
    return out


def child_domias(spec: dict[str, Any]) -> dict[str, Any]:
    """DOMIAS's scores of the members and the non-member targets (``spec["npz"]``: the coded sets): BNAF where
    ``spec["bnaf"]``, KDE otherwise."""
    import numpy as np

    seed = int(spec["seed"])
    _seed_everything(seed)
    import torch

    # domias 0.0.5 was written for an older torch: it passes ``verbose=`` to ReduceLROnPlateau (refused by torch
    # 2.7 and later) and calls its ``is_better`` (now ``_is_better``); the two names are bridged, nothing else
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau
    base = plateau.__init__

    def init(self, *args, verbose=None, **kwargs):
        base(self, *args, **kwargs)

    plateau.__init__ = init
    if not hasattr(plateau, "is_better"):
        plateau.is_better = plateau._is_better
    from domias.bnaf.density_estimation import compute_log_p_x, density_estimator_trainer

    z = np.load(spec["npz"])
    syn, ref, mem, tgt = (z[k].astype(np.float64) for k in ("synthetic", "reference", "members", "targets"))
    x_test = np.concatenate([mem, tgt])
    out: dict[str, Any] = {"versions": _versions(["domias", "torch", "scipy", "numpy"])}
    t0 = time.process_time()
    _seed_everything(seed)
    if not spec.get("bnaf", True):
        return _domias_kde(out, syn, ref, x_test, len(mem), int(spec.get("repeat", 1)))
    work = Path(spec["npz"]).parent  # its checkpoints go here, not into the current folder
    _, p_g = density_estimator_trainer(syn, workspace=work / "bnaf_synthetic")
    _, p_r = density_estimator_trainer(ref, workspace=work / "bnaf_reference")
    with torch.no_grad():
        xt = torch.as_tensor(x_test).float()
        log_g = compute_log_p_x(p_g, xt).cpu().numpy().astype(np.float64)
        log_r = compute_log_p_x(p_r, xt).cpu().numpy().astype(np.float64)
    score = log_g - log_r
    out["bnaf"] = {"cpu_s": time.process_time() - t0, "members": score[: len(mem)].tolist(),
                   "nonmembers": score[len(mem):].tolist()}
    return out


def _domias_kde(out: dict[str, Any], syn, ref, x_test, n_mem: int, repeat: int = 1) -> dict[str, Any]:
    """DOMIAS's KDE variant: SciPy's Gaussian kernel densities of the release and of the reference (the least
    CPU time of ``repeat`` runs; the scores of the first)."""
    from scipy import stats

    best, score = float("inf"), None
    for _ in range(max(1, repeat)):
        t0 = time.process_time()
        try:
            kde_g = stats.gaussian_kde(syn.T)
            kde_r = stats.gaussian_kde(ref.T)
            s = kde_g.logpdf(x_test.T) - kde_r.logpdf(x_test.T)
        except Exception as exc:  # noqa: BLE001 - reported, not hidden
            out["kde"] = {"cpu_s": time.process_time() - t0, "error": f"{type(exc).__name__}: {exc}"}
            return out
        best = min(best, time.process_time() - t0)
        score = s if score is None else score
    out["kde"] = {"cpu_s": best, "members": score[:n_mem].tolist(), "nonmembers": score[n_mem:].tolist()}
    return out


def _child_main(argv: list[str]) -> None:
    spec = json.loads(Path(argv[1]).read_text())
    res = child_fit(spec) if argv[0] == "_fit" else child_domias(spec)
    Path(spec["result"]).write_text(json.dumps(res))


# ---------------------------------------------------------------------------------------------------------------
# the parent: runs in the package's environment


def _run_child(python: str, mode: str, spec: dict[str, Any], work: Path, tag: str) -> tuple[dict[str, Any], float]:
    """Run this file in ``python`` (another environment) in ``mode``; its result and the child's CPU seconds."""
    spec_path = work / f"{mode}_{tag}_spec.json"
    spec = {**spec, "result": str(work / f"{mode}_{tag}_result.json")}
    spec_path.write_text(json.dumps(spec))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([python, str(HERE), mode, str(spec_path)], env={**os.environ, **ONE_THREAD},
                          capture_output=True, text=True, cwd=work)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    child_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise RuntimeError(f"{mode} in {python} failed:\n{proc.stderr[-3000:]}")
    return json.loads(Path(spec["result"]).read_text()), child_cpu


def _read(name: str):
    import pandas as pd

    train, hold, numeric = DATASETS[name]
    frames = []
    for f in (train, hold):
        df = pd.read_csv(DATA / f)
        cat = [c for c in df.columns if c not in numeric]
        df[cat] = df[cat].fillna(MISSING).astype(str)
        frames.append(df)
    return frames[0], frames[1], list(numeric)


def _draw(name: str, n: int, seed: int):
    T_all, H_all, numeric = _read(name)
    T = T_all.sample(n, random_state=seed).reset_index(drop=True)
    H = H_all.sample(max(2 * n, 2 * MIN_TARGETS), random_state=seed + 1).reset_index(drop=True)
    return T, H, numeric, (T_all, H_all)


def _coder(pools, numeric: list[str]):
    """DOMIAS's numbers: categories coded by their position among both files' sorted categories, every column
    standardised by both files' mean and standard deviation."""
    import numpy as np
    import pandas as pd

    pooled = pd.concat(pools, ignore_index=True)
    cats = {c: sorted(pooled[c].astype(str).unique()) for c in pooled.columns if c not in numeric}

    def raw(df):
        cols = []
        for c in pooled.columns:
            if c in numeric:
                cols.append(pd.to_numeric(df[c], errors="coerce").to_numpy(dtype=np.float64))
            else:
                codes = pd.Categorical(df[c].astype(str), categories=cats[c]).codes.astype(np.float64)
                codes[codes < 0] = np.nan  # a category of neither file (a generator's own)
                cols.append(codes)
        return np.column_stack(cols)

    ref = raw(pooled)
    mean, sd = np.nanmean(ref, axis=0), np.nanstd(ref, axis=0)
    sd[sd == 0] = 1.0

    def code(df):
        x = (raw(df) - mean) / sd
        return np.nan_to_num(x, nan=0.0)

    return code


def _cell_rows(res: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per attack: TPR at 0.1%, 1%, 10% with intervals, AUC with interval (from the results' details)."""
    rows = {}
    for a in ATTACKS:
        d = res[a].details
        label = a + (f" ({d['worst_attack']})" if a == "mia_worst_case" else "")
        rows[label] = {"auc": d["auc"], "auc_interval": d["auc_interval"],
                       **{f: {k: d["tpr_at"][f][k] for k in ("tpr", "tpr_interval", "reportable", "flagged_members",
                                                              "chance_allows")}
                          for f in ("0.001", "0.01", "0.1")},
                       "excess": d["excess_lower_bound"], "n_members": d["n_members"],
                       "n_nonmembers": d["n_nonmembers"], "n_reference": d["n_reference"]}
    return rows


def _roc_rows(members, nonmembers) -> dict[str, Any]:
    from synthpriv_report.metrics.attacks.mia_common import attack_roc

    roc = attack_roc(members, nonmembers)
    out: dict[str, Any] = {"auc": roc.auc, "auc_interval": list(roc.auc_interval), "excess": roc.excess_lower_bound,
                           "n_members": roc.n_members, "n_nonmembers": roc.n_nonmembers}
    for r in roc.rates:
        out[f"{r.target:g}"] = {"tpr": r.tpr, "tpr_interval": list(r.tpr_interval), "reportable": r.reportable,
                                "flagged_members": r.flagged_members, "chance_allows": r.chance_allows}
    return out


def _warm() -> None:
    """Compile the numba kernels once, outside the timings."""
    import numpy as np
    import pandas as pd

    from synthpriv_report import Evaluation

    rng = np.random.default_rng(0)

    def frame(n):
        return pd.DataFrame({"a": rng.normal(size=n), "b": rng.choice(list("xyz"), size=n)})

    Evaluation(frame(60), frame(60), holdout=frame(60), metrics=list(ATTACKS), progress=False).results()


def run_cell(name: str, n: int, seed: int, generators: list[str], venvs: Path, *, domias: bool, refit: bool,
             bnaf: tuple[list[int], list[str]] | None = None, repeat: int = 3, log=print) -> list[dict[str, Any]]:
    import numpy as np
    import pandas as pd

    from synthpriv_report import Evaluation
    from synthpriv_report.metrics.attacks.mia_common import split_positions

    T, H, numeric, pools = _draw(name, n, seed)
    work = CACHE / f"{name}_n{n}_s{seed}"
    work.mkdir(parents=True, exist_ok=True)
    train_csv = work / "train.csv"
    T.to_csv(train_csv, index=False)
    code = _coder(pools, numeric)
    out = []
    for g in generators:
        env, settings = GENERATORS[g]
        release = work / f"{g}.csv"
        meta_path = work / f"{g}.json"
        if refit or not release.exists() or not meta_path.exists():
            log(f"  fitting {g} on {name} n={n} ...")
            spec = {"train": str(train_csv), "out": str(release), "n_out": n, "seed": seed, "numeric": numeric,
                    "settings": settings,
                    "bounds": {c: [float(min(p[c].min() for p in pools)), float(max(p[c].max() for p in pools))]
                               for c in numeric}}
            try:
                meta, child_cpu = _run_child(str(venvs / env / "bin" / "python"), "_fit", spec, work, g)
            except (RuntimeError, OSError) as exc:
                log(f"  {g}: {exc}")
                out.append({"data": name, "n": n, "seed": seed, "generator": g, "error": str(exc)[-600:]})
                continue
            meta["child_cpu_s"] = child_cpu
            meta_path.write_text(json.dumps(meta))
        meta = json.loads(meta_path.read_text())
        S = pd.read_csv(release)
        cat = [c for c in T.columns if c not in numeric]
        S[cat] = S[cat].fillna(MISSING).astype(str)
        ours_cpu = float("inf")
        for i in range(max(1, repeat)):  # the least CPU time of ``repeat`` evaluations (the numbers are identical)
            t0 = time.process_time()
            ev_i = Evaluation(T, S, holdout=H, random_state=seed, metrics=list(ATTACKS), progress=False)
            res_i = ev_i.results()
            ours_cpu = min(ours_cpu, time.process_time() - t0)
            if i == 0:
                ev, res = ev_i, res_i
        rows = _cell_rows(res)
        # the package's own split of the holdout, in the caller's row positions
        t_pos, r_pos = split_positions(len(H), seed)
        t_rows, r_rows = ev.data.caller_rows("H", t_pos), ev.data.caller_rows("H", r_pos)
        first = next(iter(rows.values()))
        assert (len(t_rows), len(r_rows)) == (first["n_nonmembers"], first["n_reference"])
        exact = int(S.merge(T.drop_duplicates(), how="inner").shape[0])
        cell: dict[str, Any] = {"data": name, "n": n, "seed": seed, "generator": g, "env": env, "fit": meta,
                                "ours": rows, "ours_cpu_s": ours_cpu, "exact_copies": exact}
        if domias:
            want_bnaf = bnaf is None or (n in bnaf[0] and g in bnaf[1])
            cached = work / f"{g}_bnaf.json"  # DOMIAS's BNAF scores of this release, kept: its fits are slow
            npz = work / f"{g}_domias.npz"
            try:
                np.savez(npz, synthetic=code(S), reference=code(H.iloc[r_rows]), members=code(T),
                         targets=code(H.iloc[t_rows]))
                # the KDE runs again on every pass, so that its time is read beside ours on the same machine
                dres, _ = _run_child(str(venvs / "domias" / "bin" / "python"), "_domias",
                                     {"npz": str(npz), "seed": seed, "bnaf": False, "repeat": repeat}, work, g)
                if want_bnaf:
                    if refit or not cached.exists():
                        bres, bcpu = _run_child(str(venvs / "domias" / "bin" / "python"), "_domias",
                                                {"npz": str(npz), "seed": seed, "bnaf": True}, work, g)
                        cached.write_text(json.dumps([bres, bcpu]))
                    bres, bcpu = json.loads(cached.read_text())
                    dres["bnaf"] = bres["bnaf"]
                    cell["domias_child_cpu_s"] = bcpu
            except (RuntimeError, OSError) as exc:
                log(f"  DOMIAS on {g}: {exc}")
                cell["domias_error"] = str(exc)[-600:]
            else:
                cell["domias_versions"] = dres["versions"]
                for est in ("bnaf", "kde"):
                    if est not in dres:
                        continue
                    e = dres[est]
                    cell[f"domias_{est}"] = ({"cpu_s": e["cpu_s"], "error": e["error"]} if "error" in e else
                                             {"cpu_s": e["cpu_s"], **_roc_rows(e["members"], e["nonmembers"])})
            npz.unlink(missing_ok=True)
        out.append(cell)
        log(_format_cell(cell))
    return out


# ---------------------------------------------------------------------------------------------------------------
# tables


def _pct(v: float) -> str:
    return f"{100 * v:.1f}%"


def _rate(r: dict[str, Any], f: str) -> str:
    p = r[f]
    lo, hi = p["tpr_interval"]
    text = f"{_pct(p['tpr'])} [{_pct(lo)}, {_pct(hi)}]"
    return text if p["reportable"] else text + "*"


def _auc(r: dict[str, Any]) -> str:
    lo, hi = r["auc_interval"]
    return f"{r['auc']:.3f} [{lo:.3f}, {hi:.3f}]"


def _format_cell(c: dict[str, Any]) -> str:
    lines = []
    for label, r in c["ours"].items():
        lines.append(f"| {c['data']} | {c['n']:,} | {c['generator']} | {label} | {_rate(r, '0.001')} | "
                     f"{_rate(r, '0.01')} | {_auc(r)} | {'yes' if r['excess'] > 0 else 'no'} |")
    for est in ("bnaf", "kde"):
        d = c.get(f"domias_{est}")
        if d is None:
            continue
        if "error" in d:
            lines.append(f"| {c['data']} | {c['n']:,} | {c['generator']} | DOMIAS ({est.upper()}) | failed: "
                         f"{d['error'][:60]} | | | |")
        else:
            lines.append(f"| {c['data']} | {c['n']:,} | {c['generator']} | DOMIAS ({est.upper()}) | "
                         f"{_rate(d, '0.001')} | {_rate(d, '0.01')} | {_auc(d)} | "
                         f"{'yes' if d['excess'] > 0 else 'no'} |")
    return "\n".join(lines)


HEADER = ("| data | n | generator | attack | TPR at 0.1% FPR [95%] | TPR at 1% FPR [95%] | AUC [95%] | "
          "beyond chance |\n|---|---|---|---|---|---|---|---|")


def _best(c: dict[str, Any]) -> tuple[str, float]:
    """Our strongest single attack at 1% FPR (the worst case reports the attack that finds the most beyond
    chance, which may differ)."""
    label, r = max(((k, v) for k, v in c["ours"].items() if not k.startswith("mia_worst_case")),
                   key=lambda kv: kv[1]["0.01"]["tpr"])
    return label, r["0.01"]["tpr"]


def print_tables(cells: list[dict[str, Any]]) -> None:
    ok = [c for c in cells if "ours" in c]
    print("\nAttacks (TPR with Clopper-Pearson 95% intervals, AUC with DeLong's; * = fewer than 1,000 non-member "
          "targets, so 0.1% cannot be read and the rate is that above every non-member):")
    print(HEADER)
    for c in ok:
        print(_format_cell(c))
    print("\nPer release (TPR at 1% FPR with its Clopper-Pearson 95% interval; CPU seconds: ours the evaluation with "
          "the four attacks, DOMIAS its density fits and scoring, in brackets its whole process with imports):")
    print("| data | n | generator | exact copies of T in S | mia_worst_case | strongest calibrated attack | "
          "DOMIAS (BNAF) | DOMIAS (KDE) | ours CPU-s | DOMIAS BNAF CPU-s | DOMIAS KDE CPU-s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for c in ok:
        b = c.get("domias_bnaf") or {}
        k = c.get("domias_kde") or {}
        label, _ = _best(c)
        worst = next(v for key, v in c["ours"].items() if key.startswith("mia_worst_case"))
        bnaf_cpu = f"{b['cpu_s']:.1f} [{c['domias_child_cpu_s']:.1f}]" if "cpu_s" in b else "-"
        kde_cpu = f"{k['cpu_s']:.2f}" if "cpu_s" in k else "-"
        print(f"| {c['data']} | {c['n']:,} | {c['generator']} | {c['exact_copies']} | {_rate(worst, '0.01')} | "
              f"{_rate(c['ours'][label], '0.01')} ({label}) | {_rate(b, '0.01') if '0.01' in b else '-'} | "
              f"{_rate(k, '0.01') if '0.01' in k else 'failed' if 'error' in k else '-'} | {c['ours_cpu_s']:.2f} | "
              f"{bnaf_cpu} | {kde_cpu} |")
    print("\nFit CPU seconds of each generator: " + "; ".join(
        f"{c['data']} {c['n']:,} {c['generator']} {c['fit']['cpu_s']:.0f}" for c in ok))
    for c in ok:
        if "bounds" in c["fit"]:
            print(f"MST bounds on {c['data']} {c['n']:,}: {c['fit']['bounds']}")
    for c in cells:
        if "error" in c:
            print(f"\n{c['data']} n={c['n']} {c['generator']}: could not fit: {c['error']}")
    versions: dict[str, dict[str, str]] = {}
    for c in ok:
        versions.setdefault(c.get("env", c["generator"]), {}).update(c["fit"].get("versions", {}))
        if "domias_versions" in c:
            versions.setdefault("domias", {}).update(c["domias_versions"])
    print("\nVersions, by environment:")
    for env, v in sorted(versions.items()):
        print(f"- {env}: " + ", ".join(f"{k} {x}" for k, x in sorted(v.items())))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in ("_fit", "_domias"):
        _child_main(argv)
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", nargs="+", default=list(DATASETS), choices=list(DATASETS))
    ap.add_argument("--sizes", nargs="+", type=int, default=[500, 1000])
    ap.add_argument("--generators", nargs="+", default=list(GENERATORS), choices=list(GENERATORS))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--venvs", type=Path, default=Path("/work/venvs"),
                    help="folder holding the environments sdv, smartnoise, synthpop and domias")
    ap.add_argument("--no-domias", action="store_true")
    ap.add_argument("--bnaf-sizes", nargs="+", type=int, help="run DOMIAS's BNAF only at these sizes (default: all)")
    ap.add_argument("--bnaf-generators", nargs="+", choices=list(GENERATORS),
                    help="run DOMIAS's BNAF only on these releases (default: all)")
    ap.add_argument("--refit", action="store_true")
    ap.add_argument("--repeat", type=int, default=3,
                    help="time ours and DOMIAS's KDE this many times and keep the least CPU time (default 3)")
    ap.add_argument("--json", type=Path, help="write every cell's numbers here")
    ap.add_argument("--tables", nargs="+", type=Path, help="print the tables of earlier --json files and stop")
    args = ap.parse_args(argv)
    if args.tables:
        print_tables([c for p in args.tables for c in json.loads(p.read_text())])
        return 0
    bnaf = None
    if args.bnaf_sizes or args.bnaf_generators:
        bnaf = (args.bnaf_sizes or args.sizes, args.bnaf_generators or args.generators)
    _warm()
    cells: list[dict[str, Any]] = []
    print(HEADER)
    for name in args.data:
        for n in args.sizes:
            cells += run_cell(name, n, args.seed, args.generators, args.venvs, domias=not args.no_domias,
                              refit=args.refit, bnaf=bnaf, repeat=args.repeat,
                              log=lambda s: print(s, flush=True))
    print_tables(cells)
    if args.json:
        args.json.write_text(json.dumps(cells, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
