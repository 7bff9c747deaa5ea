"""Partitioned inputs on a Dask cluster (synthpriv_report.cluster.partitioned): Parquet datasets and Dask DataFrames
are read,
checked and encoded partition by partition on the workers, and give the prepared data, the fitted encoders and the
numbers of the whole frames read in one process; the calling process never reads a whole input.

One LocalCluster of 2 worker processes (1 thread each) serves the module.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

distributed = pytest.importorskip(
    "distributed", reason="Dask's distributed package is not installed (pip install \"synthpriv_report[dask]\")")

import dask.dataframe as dd  # noqa: E402
from distributed import Client, LocalCluster, get_task_stream  # noqa: E402

from synthpriv_report import Evaluation  # noqa: E402
from synthpriv_report.cluster.partitioned import (  # noqa: E402
    merge_tables,
    number_merge,
    partitioned_inputs,  # noqa: E402
    prepare_partitioned,
)
from synthpriv_report.data import containers as dm  # noqa: E402
from synthpriv_report.data.containers import CodedSet
from synthpriv_report.data.preparation import prepare
from synthpriv_report.datasets import load_demo  # noqa: E402
from synthpriv_report.spaces import fit  # noqa: E402

pytestmark = pytest.mark.slow

METRICS = ["dcr", "exact_copies", "holdout_dcr_share", "privacy_score", "nndr", "zcap"]


@pytest.fixture(scope="module")
def cluster():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cl:
        with Client(cl) as client:
            yield client


def _frames() -> dict[str, pd.DataFrame]:
    """Demo sets cut small, with what partitions must agree on: an identifier column, a category that appears in
    the last rows only, a boolean real column spelled yes/no in the synthetic data, missing values."""
    d = load_demo()
    out = {"T": d.real.iloc[:600], "S": d.synthetic.iloc[:500], "H": d.holdout.iloc[:300]}
    out = {s: df.reset_index(drop=True).copy() for s, df in out.items()}
    for s, df in out.items():
        df.insert(0, "record_id", [f"{s}-{i:06d}" for i in range(len(df))])
        df["flag"] = (np.arange(len(df)) % 3 == 0)
        if s == "S":
            df["flag"] = np.where(df["flag"], "yes", "no")
        df.loc[len(df) - 5:, "occupation"] = "only-in-the-last-rows"
        df["hours-per-week"] = df["hours-per-week"].astype("float64")
        df.loc[7, "hours-per-week"] = np.nan
        df.loc[11, "workclass"] = None
    return out


def _write(frames: dict[str, pd.DataFrame], root: Path, parts: int = 3) -> dict[str, Path]:
    """Each set as a Parquet dataset folder of ``parts`` files."""
    out = {}
    for s, df in frames.items():
        folder = root / f"{s}.parquet"
        folder.mkdir(parents=True)
        for i, rows in enumerate(np.array_split(np.arange(len(df)), parts)):
            df.iloc[rows].to_parquet(folder / f"part-{i:02d}.parquet")
        out[s] = folder
    return out


def _same(a, b) -> None:
    assert a.columns == b.columns and a.kinds == b.kinds and a.sizes == b.sizes and a.excluded == b.excluded
    assert a.fingerprints == b.fingerprints and a.notes == b.notes and a.precision == b.precision
    for s in a.sizes:
        np.testing.assert_array_equal(a.numeric[s], b.numeric[s])
        assert a.categorical[s].tolist() == b.categorical[s].tolist()
        assert (a.order is None) == (b.order is None)
        if a.order is not None:
            np.testing.assert_array_equal(a.order[s], b.order[s])


def _partitioned(client, sources, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the identifier column's warning
        return prepare_partitioned(client, partitioned_inputs(sources["T"], sources["S"], sources["H"]),
                                   numeric=None, categorical=None, include=None, named=(None, None),
                                   reveal_real_values=False, **kw)


@pytest.mark.parametrize("row_order", ["canonical", "as_given"])
def test_parquet_and_dask_partitions_prepare_to_the_whole_frames_data(cluster, tmp_path, row_order):
    frames = _frames()
    paths = _write(frames, tmp_path)
    whole = {s: pd.read_parquet(p) for s, p in paths.items()}
    for sources in (paths, {s: dd.from_pandas(df, npartitions=4) for s, df in frames.items()}):
        data, auto, kept, _ = _partitioned(cluster, sources, row_order=row_order)
        assert list(auto) == ["record_id"] and not kept
        ref = prepare(whole["T"], whole["S"], whole["H"], exclude=["record_id"], row_order=row_order)
        _same(data, ref)
        # the calling process read the texts from the partitions' codes: no object pointer per cell was made
        assert all(isinstance(data.categorical[s], CodedSet) for s in data.sizes)
        # the encoders fitted from the merged partitions: the whole frames' ranges and category levels
        a, b = fit(data), fit(ref)
        np.testing.assert_array_equal(a.num_min, b.num_min)
        np.testing.assert_array_equal(a.num_range, b.num_range)
        assert [lv.tolist() for lv in a.levels] == [lv.tolist() for lv in b.levels]
        assert any("only-in-the-last-rows" in lv.tolist() for lv in a.levels)
        assert any("spells true/false differently" in n for n in data.notes)


@pytest.mark.parametrize("row_order", ["canonical", "as_given"])
@pytest.mark.parametrize("where", ["cluster", "here"])
def test_sets_parked_one_at_a_time_prepare_to_the_whole_frames_data(cluster, tmp_path, monkeypatch, row_order,
                                                                       where):
    """Each set handed to ``park`` as soon as its partitions are merged, before the next set's are fetched, and
    again once in its canonical order: the same prepared data (with the identifier column left out and the
    boolean spellings unified, both of which read parked sets), every set then read from where it is kept."""
    import synthpriv_report.cluster.partitioned as pm
    from synthpriv_report.cluster.held import ClusterBlocks, HeldArray, HeldNumericSet, LocalBlocks, Parking

    events: list[tuple[str, int]] = []
    real_encode = pm._encode_parts

    def spied(client, jobs, settings):
        summaries, fetch = real_encode(client, jobs, settings)

        def counted(i):
            events.append(("fetch", i))
            return fetch(i)

        return summaries, counted

    monkeypatch.setattr(pm, "_encode_parts", spied)
    parking = Parking(ClusterBlocks(cluster) if where == "cluster" else LocalBlocks())

    def park(numbers, codes, order):
        events.append(("park", numbers.shape[0] if order is None else -1))
        return parking(numbers, codes, order)

    frames = _frames()
    paths = _write(frames, tmp_path)
    data, auto, _, _ = _partitioned(cluster, paths, row_order=row_order, park=park)
    assert list(auto) == ["record_id"]
    whole = {s: pd.read_parquet(p) for s, p in paths.items()}
    _same(data, prepare(whole["T"], whole["S"], whole["H"], exclude=["record_id"], row_order=row_order))
    # the partitions are encoded T, H, S (3 each: jobs 0-2, 3-5, 6-8) and merged T, S, H: each set is parked before
    # the next set's first partition is fetched, then again in its canonical order
    merging = [("fetch", 0), ("fetch", 1), ("fetch", 2), ("park", 600), ("fetch", 6), ("fetch", 7), ("fetch", 8),
               ("park", 500), ("fetch", 3), ("fetch", 4), ("fetch", 5), ("park", 300)]
    assert events == merging + [("park", -1)] * (3 if row_order == "canonical" else 0)
    for s in data.sizes:
        assert isinstance(data.numeric[s], HeldNumericSet)
        # in the caller's order, a column whose boolean spellings were unified holds its new codes here
        assert all(isinstance(c, HeldArray) for c, _ in data.factorized[s]) == (row_order == "canonical")
        assert (data.order is None) == (row_order == "as_given")
        if data.order is not None:
            assert isinstance(data.order[s], HeldArray)


def test_an_evaluation_of_partitioned_inputs_gives_the_numbers_of_the_in_memory_run(cluster, tmp_path):
    frames = _frames()
    paths = _write(frames, tmp_path)
    kw = dict(metrics=METRICS, progress=False, n_bootstrap=30, random_state=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        local = Evaluation(frames["T"], frames["S"], frames["H"], **kw)
        remote = Evaluation(str(paths["T"]), dd.from_pandas(frames["S"], npartitions=3), str(paths["H"]),
                            client=cluster, **kw)
    assert remote.data.excluded == local.data.excluded == ("record_id",)

    def everything(ev):
        """Every metric's numbers, levels and words, the verdict and the data's description (fingerprints,
        notes, excluded columns); less where the searches ran and when and how the evaluation was called."""
        d = ev.results().to_dict()
        d["meta"]["settings"].pop("backend")
        for key in ("evaluated_at", "provenance"):
            d["meta"].pop(key, None)
        return json.dumps(d, sort_keys=True, default=repr)

    assert everything(remote) == everything(local)


def test_the_calling_process_never_reads_a_whole_input(cluster, tmp_path, monkeypatch):
    """The spy: in the calling process no Parquet file is read (only the datasets' schemas), no Dask DataFrame is
    computed, and the encoding runs as tasks on the workers."""
    frames = _frames()
    paths = _write(frames, tmp_path)
    import pyarrow.parquet as pq

    calls: list[str] = []

    def refuse(name):
        def spy(*args, **kwargs):
            calls.append(name)
            raise AssertionError(f"{name} called in the calling process")
        return spy

    monkeypatch.setattr(pd, "read_parquet", refuse("pandas.read_parquet"))
    monkeypatch.setattr(pq, "read_table", refuse("pyarrow.parquet.read_table"))
    monkeypatch.setattr(dd.DataFrame, "compute", refuse("dask DataFrame.compute"))
    monkeypatch.setattr(dd.DataFrame, "__array__", refuse("dask DataFrame.__array__"), raising=False)
    with get_task_stream(client=cluster) as stream:
        data, _, _, _ = _partitioned(cluster, {"T": paths["T"], "S": dd.from_pandas(frames["S"], npartitions=3),
                                               "H": paths["H"]}, row_order="canonical")
    assert not calls
    assert data.sizes == {"T": 600, "S": 500, "H": 300}
    encoded = [t for t in stream.data if str(t["key"]).startswith("encode_part")]
    assert len(encoded) == 3 + 3 + 3  # one task per file or partition, each on a worker
    assert {t["worker"] for t in encoded} <= set(cluster.scheduler_info()["workers"])


def test_a_bad_value_in_a_later_partition_names_its_row_in_the_whole_set(cluster, tmp_path):
    frames = _frames()
    num = "hours-per-week"
    S = frames["S"].copy()
    S[num] = ["" if np.isnan(v) else f"{v:g}" for v in S[num]]  # numbers written as text ("": missing)
    S.loc[431, num] = "not a number"
    frames["S"] = S
    paths = _write(frames, tmp_path, parts=4)  # row 431 lies in the fourth file (rows 375-499)
    with pytest.raises(ValueError, match=rf"column '{num}' is numeric in the real data but has non-numeric values "
                                         r"in the synthetic data at row 431 \(0-based position\): 'not a number'"):
        _partitioned(cluster, paths, row_order="canonical")
    whole = {s: pd.read_parquet(p) for s, p in paths.items()}
    with pytest.raises(ValueError, match=r"at row 431 \(0-based position\)"):
        prepare(whole["T"], whole["S"], whole["H"], exclude=["record_id"])


def test_a_column_missing_in_every_real_partition_is_the_whole_frames_error(cluster, tmp_path):
    frames = _frames()
    for s in ("T", "H"):
        frames[s]["empty"] = np.nan
    frames["S"]["empty"] = 1.0
    paths = _write(frames, tmp_path)
    with pytest.raises(ValueError, match=r"^column 'empty' is entirely missing in the real data; exclude it with "
                                         r"exclude=\['empty'\]$"):
        _partitioned(cluster, paths, row_order="canonical")


def test_a_dataset_with_columns_in_its_folder_names_is_refused_with_a_reason(cluster, tmp_path):
    frames = _frames()
    paths = _write(frames, tmp_path)
    hive = tmp_path / "hive.parquet"
    for i, (_, part) in enumerate(frames["T"].groupby(np.arange(600) % 2)):
        (hive / f"half={i}").mkdir(parents=True)
        part.to_parquet(hive / f"half={i}" / "part.parquet")
    with pytest.raises(ValueError, match=r"takes column\(s\) 'half' from its folder names"):
        _partitioned(cluster, {"T": hive, "S": paths["S"], "H": paths["H"]}, row_order="canonical")


def test_merged_code_tables_number_texts_in_order_of_first_appearance():
    """Each partition numbers its texts in order of first appearance; merged, they are numbered as the whole
    column would be."""
    column = pd.Series(["y", "x", None, "z", "z", "x", "y"])
    parts = [column.iloc[:3], column.iloc[3:5], column.iloc[5:]]
    factorized = [pd.factorize(p) for p in parts]
    codes, table = merge_tables([(c.astype(np.int64), np.asarray(u, dtype=object)) for c, u in factorized])
    whole_codes, whole_table = pd.factorize(column)
    assert table.tolist() == list(whole_table) == ["y", "x", "z"]
    assert codes.tolist() == whole_codes.tolist() == [0, 1, -1, 2, 2, 1, 0]


def test_merged_codes_take_the_narrowest_type_that_holds_the_merged_table():
    """160 texts over two partitions of 120 and 80 distinct ones: no partition needs more than a byte, the merged
    column does (int16); the codes are those of numbering the whole column."""
    column = pd.Series([f"t{i}" for i in range(120)] + [None] + [f"t{i}" for i in range(40, 200, 2)])
    parts = [column.iloc[:121], column.iloc[121:]]
    given = []
    for p in parts:
        c, u = pd.factorize(p)
        given.append((c.astype(np.int8), np.asarray(u, dtype=object)))
    codes, table = merge_tables(given)
    whole_codes, whole_table = pd.factorize(column)
    assert codes.dtype == np.int16 and len(table) == 160
    assert table.tolist() == list(whole_table) and codes.tolist() == whole_codes.tolist()


def _packed_whole(column: np.ndarray, cuts: list[int]):
    """The column packed from its partitions' packings (each partition packed on its own, as a worker does),
    and packed whole."""
    bounds = [0, *cuts, column.size]
    parts = [dm.packed_column(column[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
    m = number_merge([(held[:0], table) for held, table in parts])  # decided from tables and dtypes alone
    held = np.concatenate([m.part(h, t, k) for k, (h, t) in enumerate(parts)])
    return (held, m.table), dm.packed_column(column)


@pytest.mark.parametrize("case", ["few", "past-a-byte", "too-many-merged", "too-many-in-a-part", "floats",
                                  "float32-in-every-part"])
def test_numbers_packed_per_partition_merge_to_the_whole_columns_packing(case, monkeypatch):
    """A worker packs each partition's numbers on its own (codes into its distinct values, or float32 or float64
    values); merged, the set's column is held exactly as packing the whole column holds it: the same form, dtype,
    table (in order of first appearance) and codes, bit for bit. The limit on distinct values is lowered to 300 so
    that every branch is reached on a few hundred values."""
    monkeypatch.setattr(dm, "PACKED_MAX_DISTINCT", 300)
    rng = np.random.default_rng(5)
    if case == "few":  # ages with a missing value, and 0.0 and -0.0 (two bit patterns)
        column = np.concatenate([rng.integers(17, 90, 400).astype(float), [np.nan, 0.0, -0.0, 17.0]])
    elif case == "past-a-byte":  # 200 distinct in each part, 280 merged: uint16 codes, though no part needs them
        column = np.concatenate([np.arange(200.0), np.arange(80.0, 280.0)])
    elif case == "too-many-merged":  # 250 in each part, 500 merged: float32 values
        column = np.concatenate([np.arange(250.0), np.arange(250.0, 500.0)])
    elif case == "too-many-in-a-part":  # one part of 400 distinct, one of 3 with a value float32 cannot hold
        column = np.concatenate([np.arange(400.0), [0.1, 0.1, 2.0]])
    elif case == "floats":  # one part coded and float32-exact, another past the limit and not
        column = np.concatenate([np.arange(10.0), rng.normal(size=500)])
    else:  # every part float32-exact, one coded, one past the limit
        column = np.concatenate([np.arange(10.0) / 4, rng.normal(size=500).astype(np.float32).astype(float)])
    for cuts in ([], [column.size // 2], [0, 7, column.size // 2, column.size]):  # empty partitions too
        (held, table), (w_held, w_table) = _packed_whole(column, cuts)
        assert held.dtype == w_held.dtype
        assert (table is None) == (w_table is None)
        if table is not None:
            np.testing.assert_array_equal(table.view(np.uint64), w_table.view(np.uint64))
            np.testing.assert_array_equal(held, w_held)
        else:
            np.testing.assert_array_equal(held.view(np.uint8), w_held.view(np.uint8))
    expected = {"few": np.uint8, "past-a-byte": np.uint16, "too-many-merged": np.float32,
                "too-many-in-a-part": np.float64, "floats": np.float64, "float32-in-every-part": np.float32}[case]
    assert held.dtype == expected
