"""Where the tests find the repository and the shared data folder beside it."""

from __future__ import annotations

from pathlib import Path

import pytest

#: The repository root (the folder holding ``README.md`` and ``pyproject.toml``).
ROOT = Path(__file__).resolve().parents[2]
#: The shared data folder beside the repository (``../shared/data``); tests that read it skip when it is absent.
SHARED_DATA = ROOT.parent / "shared" / "data"
#: The Adult census files of the shared data folder.
ADULT = SHARED_DATA / "adult"


def shared_data(*parts: str) -> Path:
    """A path under the shared data folder; the calling test skips with the reason when it does not exist."""
    p = SHARED_DATA.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"shared data not available: {p} (tests read ../shared/data beside the repository)")
    return p
