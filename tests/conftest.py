"""Small shared fixtures for the test suite (keep additive: other test modules define their own helpers)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest


@pytest.fixture
def tiny_mixed() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """A 5-row T, 4-row H and 4-row S with a numeric, a categorical (with a missing value) and an int column."""
    T = pd.DataFrame({"age": [20.0, 30.0, 40.0, 50.0, 60.0], "sex": ["F", "M", None, "F", "M"],
                      "n": [1, 2, 3, 4, 5]})
    H = pd.DataFrame({"age": [25.0, 35.0, np.nan, 55.0], "sex": ["M", "F", "F", "M"], "n": [2, 3, 4, 5]})
    S = pd.DataFrame({"age": [20.0, 31.0, 90.0, 50.0], "sex": ["F", "M", "X", None], "n": [1, 2, 9, 4]})
    return T, H, S


#: The shared data folder beside the repository (``../shared/data``); tests that read it skip when it is absent.
SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def shared_data(*parts: str) -> Path:
    """A path under the shared data folder; the calling test skips with the reason when it does not exist."""
    p = SHARED_DATA.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"shared data not available: {p} (tests read ../shared/data beside the repository)")
    return p
