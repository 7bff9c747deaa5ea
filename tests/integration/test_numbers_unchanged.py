"""Every number of two reference evaluations is unchanged (a refactoring moves no number): integers, levels and
verdicts exactly, floats to within :data:`ULPS` units in the last place.

The reference numbers were written by ``python -m tests._support.golden.numbers`` before the metrics were split into one
module each; see that module for the two evaluations (the embedded demo, and full Adult with the Gaussian-copula
synthetic set). A change meant to move a number regenerates them and says so in its commit message.

Why a few units in the last place: the same code gives slightly different last bits with other releases of the
libraries it calls. SciPy 1.17's ``betaln`` moved the exact beta-binomial p-value of one attack by 2 units
(``0x1.4f520c165d2eep-2`` to ``...2ecp-2``), the value SciPy's own ``betabinom.sf`` gives there. A change in
this package moves a number by far more than that, or moves an integer or a level.
"""

from __future__ import annotations

import json
import math

import pytest
from _support.golden import numbers as golden

#: How many units in the last place a float may move (the module docstring says why).
ULPS = 4


def _moved(before: object, now: object) -> bool:
    """Whether a number moved: any change of an integer, level, verdict or None, and a float by more than
    :data:`ULPS` units in the last place (floats are spelled in hexadecimal)."""
    if before == now:
        return False
    if not (isinstance(before, str) and isinstance(now, str) and before.startswith(("0x", "-0x"))
            and now.startswith(("0x", "-0x"))):
        return True
    a, b = float.fromhex(before), float.fromhex(now)
    return abs(a - b) > ULPS * math.ulp(max(abs(a), abs(b)))


def _compare(name: str, now: dict) -> None:
    before = json.loads((golden.HERE / f"{name}.json").read_text())
    # a metric registered after the reference was written adds numbers of its own: only those may be new
    known = {k.split("/")[1] for k in before if k.startswith("metrics/")}
    now = {k: v for k, v in now.items() if not k.startswith("metrics/") or k.split("/")[1] in known}
    missing = sorted(set(before) - set(now))
    added = sorted(set(now) - set(before))
    changed = sorted(k for k in set(before) & set(now) if _moved(before[k], now[k]))
    assert not missing and not added and not changed, (
        f"{name}: {len(changed)} numbers changed (first: "
        f"{[(k, before[k], now[k]) for k in changed[:5]]}), missing {missing[:5]}, added {added[:5]}")


def test_demo_numbers_unchanged() -> None:
    _compare("demo", golden.demo_numbers())


@pytest.mark.slow
@pytest.mark.skipif(not (golden.ADULT / "adult_train.csv").exists(), reason="Adult data not available")
def test_full_adult_numbers_unchanged() -> None:
    _compare("adult", golden.adult_numbers())


def test_the_comparison_sees_a_few_ulps_and_nothing_less_exact() -> None:
    """Floats are spelled exactly and compared to within :data:`ULPS` units in the last place; any other change
    counts."""
    x = 0.1 + 0.2
    y = 0.30000000000000004 - 2 ** -54
    assert x != y and golden.numbers({"v": x}) != golden.numbers({"v": y})
    spell = golden.numbers
    assert not _moved(spell({"v": x})["v"], spell({"v": y})["v"])  # one unit
    assert _moved(spell({"v": x})["v"], spell({"v": x + 5 * math.ulp(x)})["v"])
    assert _moved(spell({"v": -x})["v"], spell({"v": x})["v"])
    assert _moved(1, 2) and _moved("low", "medium") and _moved(None, "0x0.0p+0") and not _moved(3, 3)
