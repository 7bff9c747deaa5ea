"""Issue 55, partitioned inputs: the files of one Parquet dataset that disagree on a column's type or on their
columns.

A column stored as float32 in one file and float64 in another takes the wider type, the one ``pandas.concat`` of
the files gives, and every number is the same with and without a Dask client; a file that lacks a column or holds
one twice is refused on both paths, with an error that names the file and the column (before: the folder read at
once took the first file's float32 and cut the later file's float64 values, so the two paths gave two answers;
on a cluster the bad file ended in pyarrow's raw ``ArrowInvalid`` while the local path read it, filling the
missing column with missing values).

One in-process Dask cluster of one worker serves the module (the encoding of each file runs as one task on it,
the same code whether the worker is a thread or a process).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from synthpriv_report import Evaluation

distributed = pytest.importorskip(
    "distributed", reason="Dask's distributed package is not installed (pip install \"synthpriv_report[dask]\")")

pytestmark = pytest.mark.slow

METRICS = ["holdout_dcr_share", "dcr", "exact_copies", "nndr"]


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=":0") as cluster:
        with distributed.Client(cluster) as c:
            yield c


def _frames(seed: int = 3) -> dict[str, pd.DataFrame]:
    """Real, synthetic and holdout records whose number ``y`` has fractions float32 cannot hold."""
    rng = np.random.default_rng(seed)

    def one(n: int) -> pd.DataFrame:
        return pd.DataFrame({"x": rng.integers(0, 20, n).astype(np.float64), "y": rng.normal(0.0, 1.0, n),
                             "c": rng.choice(["a", "b", "c"], n)})

    return {"T": one(200), "S": one(200), "H": one(200)}


def _folder(df: pd.DataFrame, folder: Path, *, first_float32: bool = False) -> Path:
    """``df`` as a folder of two Parquet files (its first and second halves); with ``first_float32`` the first
    file stores ``y`` as float32, the second as float64."""
    folder.mkdir(parents=True)
    first, second = df.iloc[:len(df) // 2].copy(), df.iloc[len(df) // 2:]
    if first_float32:
        first["y"] = first["y"].astype(np.float32)
    first.to_parquet(folder / "part-0.parquet", index=False)
    second.to_parquet(folder / "part-1.parquet", index=False)
    return folder


def _numbers(ev: Evaluation) -> dict[str, tuple]:
    res = ev.results()
    return {m: (res[m].value, res[m].interval) for m in METRICS}


def _evaluate(sets, client=None) -> Evaluation:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return Evaluation(sets["T"], sets["S"], sets["H"], metrics=METRICS, progress=False, client=client)


def test_a_column_float32_in_one_file_and_float64_in_another_gives_one_answer(tmp_path, client):
    frames = _frames()
    paths = {s: _folder(df, tmp_path / f"{s}.parquet", first_float32=(s == "S")) for s, df in frames.items()}
    # what pandas gives reading the files one by one and joining them: y as float64, the second file's values
    # kept to the last bit, the first file's the float32 numbers widened
    joined = {s: pd.concat([pd.read_parquet(f) for f in sorted(p.iterdir())], ignore_index=True)
              for s, p in paths.items()}
    assert joined["S"]["y"].dtype == np.float64
    assert joined["S"]["y"].iloc[100:].tolist() == frames["S"]["y"].iloc[100:].tolist()
    expected = _numbers(_evaluate(joined))

    local = _evaluate(paths)
    on_cluster = _evaluate(paths, client)
    assert _numbers(local) == expected
    assert _numbers(on_cluster) == expected
    assert local.fingerprints == on_cluster.fingerprints == _evaluate(joined).fingerprints


def _broken(tmp_path: Path, how: str) -> dict[str, Path]:
    frames = _frames(5)
    paths = {s: _folder(df, tmp_path / f"{s}.parquet") for s, df in frames.items()}
    second = paths["S"] / "part-1.parquet"
    table = pa.Table.from_pandas(frames["S"].iloc[100:], preserve_index=False)
    if how == "lacks":
        table = table.drop_columns(["y"])
    else:  # the column y twice
        table = pa.Table.from_arrays(table.columns + [table.column("y")], names=table.column_names + ["y"])
    pq.write_table(table, second)
    return paths


@pytest.mark.parametrize("with_client", [False, True], ids=["local", "dask"])
def test_a_later_file_that_lacks_a_column_is_refused_naming_the_file_and_the_column(tmp_path, client,
                                                                                   with_client):
    paths = _broken(tmp_path, "lacks")
    with pytest.raises(ValueError, match=r"the file 'part-1\.parquet' of the synthetic data .* lacks the column "
                                         r"'y', which the file 'part-0\.parquet' holds"):
        _evaluate(paths, client if with_client else None)


@pytest.mark.parametrize("with_client", [False, True], ids=["local", "dask"])
def test_a_later_file_that_holds_a_column_twice_is_refused_naming_the_file_and_the_column(tmp_path, client,
                                                                                         with_client):
    paths = _broken(tmp_path, "twice")
    with pytest.raises(ValueError, match=r"the file 'part-1\.parquet' of the synthetic data .* holds the column "
                                         r"'y' 2 times"):
        _evaluate(paths, client if with_client else None)
