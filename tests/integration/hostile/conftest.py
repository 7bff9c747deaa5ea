"""Shared fixtures of the hostile-input tests: one evaluation whose every string is a script payload, and a
headless Chromium driven by Selenium (the payloads and frames are in ``tests/_support/hostile.py``).

Chromium runs with ``--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
--disable-background-networking --disable-component-update --disable-sync`` and a fresh user-data-dir; the browser
tests skip, with the reason, when chromium, chromedriver or selenium is missing.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from _support.hostile import KEY_FIELDS, METRICS, PAYLOADS, SENSITIVE_FIELDS, hostile_frame

from synthpriv_report import Evaluation


@pytest.fixture(scope="session")
def hostile_ev() -> Evaluation:
    """A full copy of the real data (so the true verdict is HIGH RISK) with payloads for every string, the release
    context's included."""
    real = hostile_frame(300, 1)
    n = len(PAYLOADS)
    context = {"purpose": PAYLOADS[0], "recipients": PAYLOADS[1 % n], "operator": PAYLOADS[2 % n],
               "organisation": PAYLOADS[3 % n], "levels_reason": PAYLOADS[4 % n],
               "generator": {"name": PAYLOADS[5 % n], "version": PAYLOADS[6 % n],
                             "settings": {PAYLOADS[7 % n]: PAYLOADS[8 % n]}, "post_filters": PAYLOADS[9 % n:]},
               "decision": {"rationale": PAYLOADS[10 % n], "dpo": PAYLOADS[11 % n], "triggers": PAYLOADS[12 % n:]}}
    ev = Evaluation(real, real.copy(), hostile_frame(200, 2), key_fields=KEY_FIELDS,
                    sensitive_fields=SENSITIVE_FIELDS, metrics=METRICS, random_state=0, progress=False,
                    context=context)
    ev.results()
    return ev


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    """One headless Chromium per test module (Selenium WebDriver)."""
    from _support.layout import chrome, quit_chrome  # one way to start the browser

    driver = chrome(width=1200, height=900)
    try:
        yield driver
    finally:
        quit_chrome(driver)
