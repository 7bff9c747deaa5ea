"""Data notes quote a value of the real data only with ``reveal_real_values=True``; otherwise they count and
describe (issue 55). A synthetic category that differs from a real one only by case or spaces spells that real
value out, so it is withheld too."""

from __future__ import annotations

import numpy as np
import pandas as pd

from synthpriv_report import Evaluation
from synthpriv_report.data.preparation import prepare

#: A value only one training record holds.
RARE = "Vaduz"


def _sets() -> tuple[pd.DataFrame, pd.DataFrame]:
    n = 30
    rng = np.random.default_rng(0)
    real = pd.DataFrame({"x": rng.normal(size=n).round(2), "city": ["Oslo"] * (n - 1) + [RARE]})
    synthetic = pd.DataFrame({"x": rng.normal(size=n).round(2), "city": ["Oslo"] * (n - 2) + [" vaduz", "Bern"]})
    return real, synthetic


def _note(notes: list[str] | tuple[str, ...], column: str) -> str:
    found = [n for n in notes if n.startswith(f"column {column!r}")]
    assert len(found) == 1, notes
    return found[0]


def test_the_respelled_category_note_withholds_the_real_value() -> None:
    """It used to quote " vaduz", which spells out the one training record's city."""
    real, synthetic = _sets()
    ev = Evaluation(real, synthetic, metrics=["exact_copies"], progress=False)
    note = _note(ev.data_notes(), "city")
    assert "vaduz" not in note.casefold()
    assert "1 synthetic value(s) differ from a real value only by case" in note and "withheld" in note
    assert "vaduz" not in " ".join(ev.data_notes()).casefold()
    shown = _note(prepare(real, synthetic, reveal_real_values=True).notes, "city")  # real values may be shown
    assert "(for example ' vaduz')" in shown


def test_a_column_sharing_no_value_quotes_no_respelled_real_value() -> None:
    real = pd.DataFrame({"x": [1.0, 2.0, 3.0], "city": ["Oslo", "Oslo", RARE]})
    respelled = pd.DataFrame({"x": [1.0, 2.0, 3.0], "city": ["OSLO", "OSLO", "vaduz"]})
    note = _note(prepare(real, respelled).notes, "city")
    assert "shares no value" in note and "oslo" not in note.casefold() and "vaduz" not in note.casefold()
    assert "its 2 value(s) differ from real values only by case" in note
    other = pd.DataFrame({"x": [1.0, 2.0, 3.0], "city": ["OSLO", "Bern", "Bern"]})
    note = _note(prepare(real, other).notes, "city")  # a synthetic value that spells out no real one
    assert "(for example 'Bern')" in note and "oslo" not in note.casefold()


def test_the_boolean_spellings_note_counts_the_real_spellings() -> None:
    real = pd.DataFrame({"x": np.arange(6.0), "ok": ["True", "False", "True", "False", "True", "TRUE"]})
    synthetic = pd.DataFrame({"x": np.arange(6.0), "ok": ["yes", "no"] * 3})
    note = _note(prepare(real, synthetic).notes, "ok")
    assert "'TRUE'" not in note and "'True'" not in note
    assert "real (training): 3 spelling(s), withheld" in note and "synthetic: 'no', 'yes'" in note
    shown = _note(prepare(real, synthetic, reveal_real_values=True).notes, "ok")
    assert "'False', 'TRUE', 'True'" in shown
