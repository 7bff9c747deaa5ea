"""Every number of two reference evaluations is unchanged to the last bit (a refactoring moves no number).

The reference numbers were written by ``python -m tests._support.golden.numbers`` before the metrics were split into one
module each; see that module for the two evaluations (the embedded demo, and full Adult with the Gaussian-copula
synthetic set). A change meant to move a number regenerates them and says so in its commit message.
"""

from __future__ import annotations

import json

import pytest
from _support.golden import numbers as golden


def _compare(name: str, now: dict) -> None:
    before = json.loads((golden.HERE / f"{name}.json").read_text())
    # a metric registered after the reference was written adds numbers of its own: only those may be new
    known = {k.split("/")[1] for k in before if k.startswith("metrics/")}
    now = {k: v for k, v in now.items() if not k.startswith("metrics/") or k.split("/")[1] in known}
    missing = sorted(set(before) - set(now))
    added = sorted(set(now) - set(before))
    changed = sorted(k for k in set(before) & set(now) if before[k] != now[k])
    assert not missing and not added and not changed, (
        f"{name}: {len(changed)} numbers changed (first: "
        f"{[(k, before[k], now[k]) for k in changed[:5]]}), missing {missing[:5]}, added {added[:5]}")


def test_demo_numbers_unchanged() -> None:
    _compare("demo", golden.demo_numbers())


@pytest.mark.slow
@pytest.mark.skipif(not (golden.ADULT / "adult_train.csv").exists(), reason="Adult data not available")
def test_full_adult_numbers_unchanged() -> None:
    _compare("adult", golden.adult_numbers())


def test_the_comparison_sees_the_last_bit() -> None:
    """The numbers are compared by their exact spelling: a change in the last bit of a float is a change."""
    x = 0.1 + 0.2
    y = 0.30000000000000004 - 2 ** -54
    assert x != y and golden.numbers({"v": x}) != golden.numbers({"v": y})
