"""Script payloads for the hostile-input tests, frames whose every string is one, and the page reader the browser
checks use.

The payload corpus is ``../shared/data/hostile/xss_payloads.txt`` beside the checkout when present, else the copy
below. Each payload, if it ever runs in a page, sets ``document.body.dataset.pwned``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from _support.paths import SHARED_DATA

CORPUS = SHARED_DATA / "hostile" / "xss_payloads.txt"
_BUILTIN = r"""<img src="x" onerror="document.body.dataset.pwned=1">
<img src=x onerror=document.body.dataset.pwned=1>
"><img src="x" onerror="document.body.dataset.pwned=1">
'><img src='x' onerror='document.body.dataset.pwned=1'>
<svg onload="document.body.dataset.pwned=1"></svg>
<svg><script>document.body.dataset.pwned=1</script></svg>
<script>document.body.dataset.pwned=1</script>
</script><script>document.body.dataset.pwned=1</script>
<iframe srcdoc='<script>parent.document.body.dataset.pwned=1</script>'></iframe>
<details open ontoggle="document.body.dataset.pwned=1"><summary>x</summary></details>
<body onload="document.body.dataset.pwned=1">
<style onload="document.body.dataset.pwned=1"></style>
<a href="javascript:document.body.dataset.pwned=1">click</a>
[click](javascript:document.body.dataset.pwned=1)
![x](x"onerror="document.body.dataset.pwned=1)
<math><mtext><img src="x" onerror="document.body.dataset.pwned=1"></mtext></math>
<object data="javascript:document.body.dataset.pwned=1"></object>
<input autofocus onfocus="document.body.dataset.pwned=1">
<video><source onerror="document.body.dataset.pwned=1"></video>
{{ 7*7 }}<img src="x" onerror="document.body.dataset.pwned=1">
`<img src="x" onerror="document.body.dataset.pwned=1">`
<!--<img src="--><img src="x" onerror="document.body.dataset.pwned=1">">"""


def load_payloads() -> list[str]:
    """The payload corpus (shared file when present, else the built-in copy), each once, in order."""
    lines = _BUILTIN.splitlines()
    if CORPUS.is_file():
        lines = CORPUS.read_text(encoding="utf-8").splitlines() + lines
    return list(dict.fromkeys(line for line in lines if line.strip()))


PAYLOADS = load_payloads()
#: Quick metrics of the hostile evaluation: distance, copies, holdout share, and a key/sensitive attack metric.
METRICS = ["dcr", "exact_copies", "holdout_dcr_share", "gcap"]
KEY_FIELDS = PAYLOADS[:3]
SENSITIVE_FIELDS = [PAYLOADS[3]]


def hostile_frame(n: int, seed: int) -> pd.DataFrame:
    """Every payload as a categorical column whose values are payloads too, and two numeric columns."""
    rng = np.random.default_rng(seed)
    k = len(PAYLOADS)
    data: dict[str, object] = {p: rng.choice([PAYLOADS[(i + j + 1) % k] for j in range(3)], n)
                               for i, p in enumerate(PAYLOADS)}
    data["num_a"] = rng.normal(size=n)
    data["num_b"] = rng.integers(0, 50, n)
    return pd.DataFrame(data)


def open_page(driver: object, path: Path) -> dict[str, object]:
    """Load ``path`` and read back what the tests check: pwned flag, body text, CSP meta, script-ish elements."""
    driver.get(path.resolve().as_uri())  # type: ignore[attr-defined]
    return driver.execute_script(  # type: ignore[attr-defined]
        """
        const csp = document.querySelector('meta[http-equiv="Content-Security-Policy"]');
        const handlers = [];
        for (const el of document.body.querySelectorAll('*')) {
          for (const a of el.attributes) {
            if (a.name.startsWith('on')) handlers.push(el.tagName + ' ' + a.name);
          }
        }
        // the contents' links to the report's own sections (href="#spr-sec-N") are the only links a page may hold
        const links = [...document.querySelectorAll('a[href], iframe, object, embed')]
          .filter(e => !(e.tagName === 'A' && /^#spr-sec-[0-9]+$/.test(e.getAttribute('href'))))
          .map(e => e.outerHTML.slice(0, 80));
        return {pwned: document.body.dataset.pwned || '', text: document.body.innerText,
                csp: csp ? csp.getAttribute('content') : null,
                cspFirst: csp !== null && document.head.firstElementChild !== null &&
                          [...document.head.children].indexOf(csp) <= 1,
                scripts: document.querySelectorAll('body script').length, handlers: handlers, links: links};
        """)


def compact(text: str) -> str:
    """Text without whitespace (PDF extraction and line wrapping move spaces and line breaks)."""
    return "".join(text.split())
