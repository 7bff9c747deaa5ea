"""Draw ``docs/images/report.png``: the top of the HTML report of the embedded demo data, in headless Chromium.

    python docs/_tools/report_picture.py

The report is written by the package itself (``Evaluation.to_html``) for the demo data with the settings of the
README's notebook example; the picture is the first 1200 x 900 pixels of its first page.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "docs" / "images" / "report.png"


def main() -> int:
    from playwright.sync_api import sync_playwright

    from synthpriv_report import Evaluation
    from synthpriv_report.datasets import load_demo

    demo = load_demo()
    ev = Evaluation(demo.real, demo.synthetic, holdout=demo.holdout,
                    key_fields=["age", "sex", "race", "marital-status"], sensitive_fields=["income"],
                    random_state=0, progress=False)
    with tempfile.TemporaryDirectory(prefix="synthpriv-picture-") as tmp:
        page_path = Path(tmp) / "report.html"
        ev.to_html(page_path)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1200, "height": 900}, device_scale_factor=1)
            page.goto(page_path.as_uri())
            OUT.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(OUT))
            browser.close()
    print(f"wrote {OUT.relative_to(ROOT)} ({OUT.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
