"""The numbers of two reference evaluations, for the test that a refactoring changes no number.

``python -m tests._support.golden.numbers`` (from the repository root) writes ``demo.json`` and ``adult.json``
beside this file: every number, level and verdict of

- the embedded demo (:func:`synthpriv_report.datasets.load_demo`, its key and sensitive fields), and
- full Adult: the 32,561 training records as T, the 16,281 test records as H and the Gaussian-copula synthetic set
  (32,561 records) as S,

each evaluated with every registered metric and ``random_state=0``. ``tests/integration/test_numbers_unchanged.py``
recomputes them and compares them to the last bit. Regenerate only for a change that is meant to move a number,
and say so in the commit message.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import pandas as pd

HERE = Path(__file__).resolve().parent
ADULT = HERE.parents[3] / "shared" / "data" / "adult"
KEY = ["age", "sex", "race", "marital-status"]
SENSITIVE = ["income"]


def numbers(obj: Any, path: str = "") -> dict[str, Any]:
    """Every number, boolean, ``None`` and level word of a JSON-safe result, keyed by its path.

    Prose (titles, sentences, rule descriptions) is left out: its wording may change; a number may not. Floats are
    kept as their exact hexadecimal spelling, so the comparison is to the last bit.

    >>> numbers({"a": [1.5, "text"], "level": "high", "b": None})
    {'a/0': '0x1.8000000000000p+0', 'level': 'high', 'b': None}
    """
    out: dict[str, Any] = {}
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.update(numbers(v, f"{path}/{k}" if path else str(k)))
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            out.update(numbers(v, f"{path}/{i}" if path else str(i)))
    elif isinstance(obj, bool) or obj is None:
        out[path] = obj
    elif isinstance(obj, int):
        out[path] = obj
    elif isinstance(obj, float):
        out[path] = obj.hex() if math.isfinite(obj) else repr(obj)
    elif isinstance(obj, str) and path.rsplit("/", 1)[-1] in ("level", "verdict"):
        out[path] = obj
    return out


def demo_numbers() -> dict[str, Any]:
    """The numbers of the demo evaluation."""
    from synthpriv_report import Evaluation
    from synthpriv_report.datasets import load_demo

    d = load_demo()
    ev = Evaluation(d.real, d.synthetic, d.holdout, key_fields=list(d.key_fields),
                    sensitive_fields=list(d.sensitive_fields), random_state=0, progress=False)
    res = ev.results()
    return numbers({"verdict": res.verdict.to_dict(), "metrics": {n: r.to_dict() for n, r in res.items()}})


def adult_numbers() -> dict[str, Any]:
    """The numbers of the full-Adult evaluation."""
    from synthpriv_report import Evaluation

    T = pd.read_csv(ADULT / "adult_train.csv")
    H = pd.read_csv(ADULT / "adult_test.csv")
    S = pd.read_csv(ADULT / "synthetic" / "gaussian_copula.csv.gz")
    ev = Evaluation(T, S, H, key_fields=KEY, sensitive_fields=SENSITIVE, random_state=0, progress=False)
    res = ev.results()
    return numbers({"verdict": res.verdict.to_dict(), "metrics": {n: r.to_dict() for n, r in res.items()}})


def main(argv: list[str]) -> None:
    which = argv or ["demo", "adult"]
    for name in which:
        data = demo_numbers() if name == "demo" else adult_numbers()
        (HERE / f"{name}.json").write_text(json.dumps(data, indent=0, sort_keys=True) + "\n")
        print(f"{name}: {len(data)} numbers")


if __name__ == "__main__":
    main(sys.argv[1:])
