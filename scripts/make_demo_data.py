"""Build the small demo data shipped in ``synthpriv_report/datasets/data/`` (run once, reproducible).

Usage::

    python scripts/make_demo_data.py [--source /work/shared/data/adult/adult_train.csv]

What it writes (xz-compressed CSV, all seeded with ``SEED``):

``real.csv.xz``
    3,000 rows sampled without replacement from the Adult training file (the "real training" set T).
``holdout.csv.xz``
    1,500 further rows, disjoint from ``real`` (the holdout H: same population, not used to generate).
``synthetic.csv.xz``
    3,000 rows from an honest generator fitted on ``real`` only: within each income class, every column is
    resampled independently from that class's empirical distribution, and numeric columns get a small jitter
    (one tenth of the class's standard deviation, rounded back to integers, clipped to the observed range).
    No row is copied; joint structure beyond "column given income" is lost, which is what a weak but
    non-leaking generator looks like.
``synthetic_leaky.csv.xz``
    3,000 rows: 1,500 exact copies of ``real`` rows plus 1,500 lightly perturbed copies of other ``real`` rows
    (age +-1, hours-per-week +-2, fnlwgt times 1 +- 2 %, capital gain/loss unchanged, categories unchanged),
    shuffled. This is what a memorising generator looks like.

The package itself never reads the source file: only this script does, and its output is committed.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

SEED = 20240611
N_TRAIN = 3000
N_HOLDOUT = 1500
N_SYNTHETIC = 3000
DEFAULT_SOURCE = Path("/work/shared/data/adult/adult_train.csv")
OUT_DIR = Path(__file__).resolve().parents[1] / "synthpriv_report" / "datasets" / "data"
CLASS_COLUMN = "income"


def split(source: pd.DataFrame, rng: np.random.Generator) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Disjoint random train and holdout samples."""
    order = rng.permutation(len(source))
    train = source.iloc[order[:N_TRAIN]].reset_index(drop=True)
    holdout = source.iloc[order[N_TRAIN : N_TRAIN + N_HOLDOUT]].reset_index(drop=True)
    return train, holdout


def honest_synthetic(train: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """Class-conditional independent resampling with a small numeric jitter (copies no row)."""
    class_share = train[CLASS_COLUMN].value_counts(normalize=True, sort=False)
    classes = rng.choice(class_share.index.to_numpy(), size=N_SYNTHETIC, p=class_share.to_numpy())
    out = pd.DataFrame(index=range(N_SYNTHETIC), columns=train.columns, dtype=object)
    for label in class_share.index:
        rows = np.flatnonzero(classes == label)
        part = train[train[CLASS_COLUMN] == label]
        for column in train.columns:
            values = part[column].to_numpy()
            drawn = values[rng.integers(0, len(values), size=len(rows))]
            if pd.api.types.is_numeric_dtype(train[column]):
                scale = 0.1 * float(np.std(values))
                jittered = np.rint(drawn.astype(float) + rng.normal(0.0, scale, size=len(rows)))
                drawn = np.clip(jittered, values.min(), values.max()).astype(np.int64)
            out.loc[rows, column] = drawn
    for column in train.columns:
        if pd.api.types.is_numeric_dtype(train[column]):
            out[column] = out[column].astype(np.int64)
    return out


def leaky_synthetic(train: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """Half exact copies of training rows, half lightly perturbed copies, shuffled."""
    n_copy = N_SYNTHETIC // 2
    picked = rng.choice(len(train), size=N_SYNTHETIC, replace=False)
    copies = train.iloc[picked[:n_copy]].copy()
    noisy = train.iloc[picked[n_copy:]].copy()
    n_noisy = len(noisy)
    noisy["age"] = np.clip(noisy["age"] + rng.integers(-1, 2, size=n_noisy), 17, 90)
    noisy["hours-per-week"] = np.clip(noisy["hours-per-week"] + rng.integers(-2, 3, size=n_noisy), 1, 99)
    noisy["fnlwgt"] = np.rint(noisy["fnlwgt"] * (1.0 + rng.uniform(-0.02, 0.02, size=n_noisy))).astype(np.int64)
    both = pd.concat([copies, noisy], ignore_index=True)
    return both.iloc[rng.permutation(len(both))].reset_index(drop=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(SEED)
    source = pd.read_csv(args.source)
    train, holdout = split(source, rng)
    frames = {
        "real": train,
        "holdout": holdout,
        "synthetic": honest_synthetic(train, rng),
        "synthetic_leaky": leaky_synthetic(train, rng),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    for name, frame in frames.items():
        path = args.out / f"{name}.csv.xz"
        # fixed compression options so the bytes are reproducible
        frame.to_csv(path, index=False, compression={"method": "xz", "preset": 9})
        print(f"{path}: {len(frame)} rows, {path.stat().st_size / 1024:.1f} KiB")


if __name__ == "__main__":
    main()
