"""Parquet paths and Dask DataFrames as inputs (synthpriv_report.data.sources): the results of the same data given as
pandas DataFrames, and only the analysed columns read."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from synthpriv_report import Evaluation
from synthpriv_report.data.sources import read_inputs
from synthpriv_report.datasets import load_demo

pytest.importorskip("pyarrow", reason="Parquet inputs need pyarrow (the parquet extra)")

#: Searches in two spaces, a within-set search and exact copies: enough to tell two inputs apart.
METRICS = ["dcr", "holdout_dcr_share", "exact_copies"]


@pytest.fixture(scope="module")
def demo():
    d = load_demo()
    # an identifier column the evaluations exclude
    T = d.real.iloc[:600].reset_index(drop=True).assign(record_id=np.arange(600))
    S = d.synthetic.iloc[:600].reset_index(drop=True).assign(record_id=np.arange(600))
    H = d.holdout.iloc[:300].reset_index(drop=True).assign(record_id=np.arange(300))
    return T, S, H


def _results(real, synthetic, holdout, **kw):
    ev = Evaluation(real, synthetic, holdout, exclude=["record_id"], metrics=METRICS, progress=False,
                    calibrate=False, **kw)
    d = ev.results().to_dict()
    for key in ("evaluated_at", "provenance"):  # when and how it was called (a file's input carries its hash)
        d["meta"].pop(key, None)
    return json.dumps(d, sort_keys=True, default=str), ev


@pytest.fixture(scope="module")
def pandas_run(demo):
    return _results(*demo)


def test_parquet_paths_give_the_pandas_results_and_read_only_the_analysed_columns(demo, pandas_run, tmp_path,
                                                                                  monkeypatch):
    paths = []
    for name, df in zip(("real.parquet", "synthetic.PQ", "holdout.parquet"), demo):
        df.to_parquet(tmp_path / name)  # pandas stores its index too: it must not become a column
        paths.append(tmp_path / name)
    read_columns = []
    original = pd.read_parquet

    def spy(path, columns=None, **kw):
        read_columns.append(list(columns))
        return original(path, columns=columns, **kw)

    monkeypatch.setattr("synthpriv_report.data.sources.pd.read_parquet", spy)
    text, ev = _results(str(paths[0]), paths[1], paths[2])
    assert text == pandas_run[0]
    assert len(read_columns) == 3 and all("record_id" not in cols for cols in read_columns)
    assert read_columns[0] == [c for c in demo[0].columns if c != "record_id"]
    assert ev.data.excluded == ("record_id",) and ev.settings_dict()["excluded"] == ["record_id"]


def test_a_parquet_dataset_folder_and_a_mix_with_pandas(demo, pandas_run, tmp_path):
    folder = tmp_path / "synthetic.parquet"
    folder.mkdir()
    S = demo[1]
    S.iloc[:250].to_parquet(folder / "part-0.parquet", index=False)
    S.iloc[250:].to_parquet(folder / "part-1.parquet", index=False)
    text, _ = _results(demo[0], folder, demo[2])
    assert text == pandas_run[0]


def test_dask_dataframes_give_the_pandas_results_and_only_analysed_columns_are_computed(demo, pandas_run,
                                                                                       monkeypatch):
    dd = pytest.importorskip("dask.dataframe", reason="Dask DataFrame inputs need dask (the dask extra)")
    import dask

    frames = [dd.from_pandas(df, npartitions=3) for df in demo]
    computed = []
    original = type(frames[0]).compute

    def spy(self, **kw):
        computed.append(list(self.columns))
        return original(self, **kw)

    monkeypatch.setattr(type(frames[0]), "compute", spy)
    with dask.config.set(scheduler="synchronous"):
        text, ev = _results(*frames)
    assert text == pandas_run[0]
    analysed = [c for c in demo[0].columns if c != "record_id"]
    assert computed == [analysed] * 3  # the excluded column is never part of what is computed
    assert ev.data.sizes == {"T": 600, "S": 600, "H": 300}


def test_bad_paths_and_exclusions_are_named(demo, tmp_path):
    T, S, H = demo
    with pytest.raises(TypeError, match=r"the real \(training\) data is a path without a Parquet suffix"):
        Evaluation(str(tmp_path / "real.csv"), S)
    with pytest.raises(FileNotFoundError, match=r"the synthetic data: no such Parquet file"):
        Evaluation(T, tmp_path / "missing.parquet")
    T.to_parquet(tmp_path / "t.parquet")
    S.drop(columns="age").to_parquet(tmp_path / "s.parquet")
    with pytest.raises(ValueError, match=r"column\(s\) 'age' of the real data are missing from the synthetic data"):
        Evaluation(tmp_path / "t.parquet", tmp_path / "s.parquet")
    with pytest.raises(ValueError, match=r"exclude= names column\(s\) not in the data: 'nope'"):
        Evaluation(tmp_path / "t.parquet", S, exclude=["nope"])
    with pytest.raises(TypeError, match="exclude must be a list of column names, got the string 'record_id'"):
        Evaluation(tmp_path / "t.parquet", S, exclude="record_id")


def test_pandas_inputs_pass_through_untouched(demo):
    T, S, H = demo
    before = T.copy()
    inputs = read_inputs(T, S, H, exclude=["record_id"])
    assert inputs.real is T and inputs.synthetic is S and inputs.holdout is H
    assert inputs.exclude == ["record_id"] and inputs.excluded == ()
    pd.testing.assert_frame_equal(T, before)
