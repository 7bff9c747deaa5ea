"""The README's metric table is generated from the declarations and is current."""

from __future__ import annotations

from _support.paths import ROOT

from synthpriv_report.core.registry import metric_names
from synthpriv_report.tools.catalogue import BEGIN, END, metrics_table

README = ROOT / "README.md"


def test_readme_table_is_current():
    text = README.read_text(encoding="utf-8")
    table = text.split(BEGIN, 1)[1].split(END, 1)[0].strip()
    assert table == metrics_table(), "run: python -m synthpriv_report.tools.catalogue --write README.md"


def test_every_metric_has_a_row_with_its_rule():
    table = metrics_table()
    for name in metric_names():
        row = next(line for line in table.splitlines() if line.startswith(f"| `{name}`"))
        assert "higher is" in row and ("high" in row or "no level" in row)
