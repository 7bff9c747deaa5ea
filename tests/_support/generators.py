"""Generators whose memorisation is known by construction, for the generator audit's and the shadow attack's
tests."""

from __future__ import annotations

import numpy as np
import pandas as pd


class CopyTraining:
    """Memorises by construction: its sample is its training records, in their order, cycled."""

    def fit(self, frame: pd.DataFrame) -> CopyTraining:
        self.frame = frame.reset_index(drop=True)
        return self

    def sample(self, n: int) -> pd.DataFrame:
        return self.frame.iloc[np.arange(n) % len(self.frame)].reset_index(drop=True)


class Ignores:
    """Never looks at its training records: samples (seeded) from a fixed pool of other real records."""

    def __init__(self, pool: pd.DataFrame, random_state: int = 0) -> None:
        self.pool = pool
        self.random_state = random_state

    def fit(self, frame: pd.DataFrame) -> Ignores:
        return self

    def sample(self, n: int) -> pd.DataFrame:
        rng = np.random.default_rng(self.random_state)
        return self.pool.iloc[rng.integers(0, len(self.pool), size=n)].reset_index(drop=True)
