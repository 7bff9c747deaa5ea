"""The calibration harness's cells file (``benchmarks/bench_calibration.py --write-cells PATH``): its writer on a
tiny hand-made result, in the format of the package's ``calibration_cells.json``, read back by ``error_rates``.
The harness itself is not run."""

from __future__ import annotations

import json
import sys

import pytest
from _support.paths import ROOT

from synthpriv_report.export.error_rates import CELLS_FORMAT, error_rates, load_cells

sys.path.insert(0, str(ROOT / "benchmarks"))
bench = pytest.importorskip("bench_calibration")

SHAPES = {"adult": {"description": "UCI Adult, all columns", "numeric_columns": 6, "categorical_columns": 9,
                    "pooled_records": 48842}}


def _hand_made() -> dict:
    """Two honest cells, one leak cell and one smallest-share row, as a run of a few draws would give them."""
    honest = [
        bench.honest_entry("adult", 1000, True, "ideal", bench.level_counts(["low", "low", "inconclusive"]),
                           unique_share=1.0),
        bench.honest_entry("adult", 1000, True, "marginals", bench.level_counts(["low", "high", "medium"])),
    ]
    leaks = [bench.leak_entry("adult", 1000, True, "exact", 0.03, 3, 2),
             bench.leak_entry("adult", 1000, True, "verbatim_redacted", 0.1, 3, 3)]
    found = {c: None for c in (*bench.CHECKS, "verdict")}
    found.update(exact_copies=0.01, verdict=0.01)
    smallest = [bench.smallest_entry("exact", 1000, True, 3, found, 0.01),
                bench.smallest_entry("exact", 1000, False, 3, {**found, "holdout_dcr_share": None}, 0.01)]
    return bench.cells_document(honest, leaks, smallest, shapes=SHAPES, date="2026-12-06", commit="0" * 40,
                                machine="2-core machine", command="python benchmarks/bench_calibration.py --quick")


def test_the_writer_writes_the_hand_made_cells(tmp_path):
    path = tmp_path / "cells.json"
    bench.write_cells(path, _hand_made())
    cells = json.loads(path.read_text(encoding="utf-8"))
    assert cells["format"] == CELLS_FORMAT and cells["date"] == "2026-12-06" and cells["commit"] == "0" * 40
    assert cells["shapes"] == SHAPES
    ideal, marginals = cells["honest"]
    assert ideal == {"shape": "adult", "records": {"training": 1000, "synthetic": 1000, "holdout": 1000},
                     "holdout": True, "generator": "ideal", "unique_training_share": 1.0, "draws": 3,
                     "counts": {"low": 2, "inconclusive": 1, "medium": 0, "high": 0}}
    assert marginals["counts"] == {"low": 1, "inconclusive": 0, "medium": 1, "high": 1}
    assert [(c["leak"], c["share_leaked"], c["high"], c["draws"]) for c in cells["leaks"]] == [
        ("exact", 0.03, 2, 3), ("verbatim_redacted", 1.0, 3, 3)]
    with_h, without = cells["smallest_share"]
    assert with_h["verdict_smallest_share"] == 0.01
    assert with_h["checks"]["exact_copies"] == {"smallest": 0.01}
    assert with_h["checks"]["near_copies"] == {"above": 0.01}
    assert with_h["checks"]["dcr_test"] == {"above": 0.01}
    assert without["checks"]["dcr_test"] is None and without["records"]["holdout"] is None
    assert not list(tmp_path.glob(".cells.json.*"))  # no temporary file left beside it


def test_the_written_cells_have_the_packaged_files_format_and_read_back():
    written, packaged = _hand_made(), load_cells()
    assert set(packaged) - {"transcribed_from"} == set(written)
    for table in ("honest", "leaks", "smallest_share"):
        assert set(written[table][0]) == set(packaged[table][0]), table
    e = error_rates({"meta": {"sets": [{"role": "real", "rows": 1000}, {"role": "holdout", "rows": 1000}],
                              "columns": [{"name": "a", "kind": "numeric"}, {"name": "b", "kind": "categorical"}]},
                     "verdict": {"level": "low"}}, cells=written)
    assert e["false_alarms"]["of"] == "2 of 6" and e["inconclusive"]["of"] == "1 of 6"
    assert [d["of"] for d in e["detection"]] == ["2 of 3", "3 of 3"]
    assert e["smallest_share"] == [{"leak": "exact", "share": 0.01, "draws": 3,
                                    "words": "exact copies of 1% of the training records",
                                    "text": "exact copies of 1% of the training records"}]


def test_a_cell_of_a_shape_without_a_description_is_refused():
    with pytest.raises(ValueError, match="bank"):
        bench.cells_document([bench.honest_entry("bank", 100, False, "ideal", {"low": 1})], [], [], shapes=SHAPES,
                             date="2026-12-06", commit="x", machine="m", command="c")


def test_write_cells_is_refused_for_parts_without_cells(capsys):
    with pytest.raises(SystemExit) as exc:
        bench.main(["--part", "few", "--write-cells", "cells.json"])
    assert exc.value.code == 2
    assert "--write-cells" in capsys.readouterr().err
