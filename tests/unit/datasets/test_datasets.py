"""Tests of the embedded demo data (synthpriv_report/datasets)."""

from __future__ import annotations

import importlib.util
import inspect
from pathlib import Path

import pandas as pd
import pytest
from _support.paths import ADULT, ROOT

from synthpriv_report import datasets
from synthpriv_report.datasets import DEMO_FILES, DemoData, load_demo

DATA_DIR = Path(datasets.__file__).parent / "data"
SOURCE = ADULT / "adult_train.csv"


@pytest.fixture(scope="module")
def demo() -> DemoData:
    return load_demo()


def _shared_rows(a: pd.DataFrame, b: pd.DataFrame) -> int:
    """Number of rows of ``a`` that have an identical row in ``b`` (NaN equals NaN)."""
    keys_b = set(map(tuple, b.astype(str).to_numpy()))
    return sum(tuple(r) in keys_b for r in a.astype(str).to_numpy())


def test_shapes_and_columns(demo: DemoData) -> None:
    assert demo.real.shape == (3000, 15)
    assert demo.holdout.shape == (1500, 15)
    assert demo.synthetic.shape == (3000, 15)
    assert demo.synthetic_leaky.shape == (3000, 15)
    for name in DEMO_FILES:
        frame = getattr(demo, name)
        assert list(frame.columns) == list(demo.real.columns)
        assert frame.dtypes.equals(demo.real.dtypes), name


def test_roles_are_columns(demo: DemoData) -> None:
    assert demo.key_fields == ("age", "sex", "race", "marital-status")
    assert demo.sensitive_fields == ("income",)
    assert set(demo.key_fields + demo.sensitive_fields) <= set(demo.real.columns)
    assert "Adult" in demo.description


def test_mapping_access(demo: DemoData) -> None:
    assert demo["real"] is demo.real
    assert set(demo) == set(DEMO_FILES) | {"key_fields", "sensitive_fields", "description"}
    with pytest.raises(KeyError, match="available"):
        demo["nope"]


def test_frozen_and_fresh_copies(demo: DemoData) -> None:
    with pytest.raises(AttributeError):
        demo.real = demo.holdout  # type: ignore[misc]
    again = load_demo()
    again.real.loc[0, "age"] = -1
    assert load_demo().real.loc[0, "age"] != -1


def test_honest_synthetic_copies_nothing_and_leaky_copies_half(demo: DemoData) -> None:
    assert _shared_rows(demo.synthetic, demo.real) == 0
    # 1,500 exact copies by construction; the perturbed half could coincide with a real row only by chance
    copies = _shared_rows(demo.synthetic_leaky, demo.real)
    assert 1500 <= copies <= 1600


def test_holdout_is_disjoint_sample_of_same_population(demo: DemoData) -> None:
    # Adult itself holds a few duplicate records, so a handful of holdout rows may equal a train row
    assert _shared_rows(demo.holdout, demo.real) <= 15
    share_t = (demo.real["income"] == ">50K").mean()
    share_h = (demo.holdout["income"] == ">50K").mean()
    assert abs(share_t - share_h) < 0.05


def test_shipped_files_are_small() -> None:
    sizes = [(DATA_DIR / f).stat().st_size for f in DEMO_FILES.values()]
    assert sum(sizes) < 300 * 1024


def test_package_never_reads_shared_folder() -> None:
    source = inspect.getsource(datasets)
    assert "/shared" not in source and "../" not in source


@pytest.mark.slow  # about half a second
@pytest.mark.skipif(not SOURCE.exists(), reason=f"source data {SOURCE} not present (only needed to rebuild)")
def test_script_reproduces_shipped_files(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("make_demo_data", ROOT / "scripts" / "make_demo_data.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    module.main(["--source", str(SOURCE), "--out", str(tmp_path)])
    for filename in DEMO_FILES.values():
        assert (tmp_path / filename).read_bytes() == (DATA_DIR / filename).read_bytes(), filename
