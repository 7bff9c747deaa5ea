"""MkDocs hooks of the documentation site (``hooks:`` in ``mkdocs.yml``).

- The metric reference is generated at every build from the metric declarations and ``docs/metrics.md``
  (:func:`synthpriv_report.tools.catalogue.metric_pages`): one page per registered metric, added to the navigation
  under "Metric reference", so nothing about a metric is written twice.
- The in-browser teaching lab is built into the site's ``lite/`` folder by the package's own builder
  (:func:`synthpriv_report.tools.lite.build_site`, the ``synthpriv-report lite`` command), so the Teaching page's "Try
  it
  in your browser" link works wherever the site is served. ``SYNTHPRIV_DOCS_NO_LITE=1`` leaves it out (quicker
  rebuilds while editing).
- The import graph on the Design page is drawn from the code at every build (:mod:`import_graph`).
- Notebook pages (mkdocs-jupyter) lose the script tags that nbconvert's template points at a CDN (MathJax,
  Mermaid; the notebooks use neither): the site loads nothing from another host.
"""

from __future__ import annotations

import io
import os
import re
import sys
from pathlib import Path

from mkdocs.structure.files import File

DOCS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(DOCS.parent))  # the package of this checkout, not an installed copy

from synthpriv_report.tools.catalogue import metric_nav, metric_pages  # noqa: E402

sys.path.insert(0, str(DOCS / "_tools"))
import import_graph  # noqa: E402

#: A script or style sheet loaded from another host (an http(s) or protocol-relative URL).
_EXTERNAL_TAG = re.compile(r"<script[^>]*\ssrc=[\"'](?:https?:)?//[^\"']*[\"'][^>]*>\s*</script>"
                           r"|<link[^>]*\shref=[\"'](?:https?:)?//[^\"']*[\"'][^>]*>", re.I)
#: Inline scripts of nbconvert's template that import a module from a CDN (Mermaid).
_CDN_MODULE = re.compile(r"<script type=\"module\">(?:(?!</script>).)*?https?://(?:(?!</script>).)*?</script>", re.S)


def on_files(files, config):
    picture = io.BytesIO()
    import_graph.draw(picture, "svg")  # the import graph of the code being documented, drawn at every build
    files.append(File.generated(config, "images/import-graph.svg", content=picture.getvalue()))
    pages = metric_pages((DOCS / "metrics.md").read_text(encoding="utf-8"))
    for path, text in pages.items():
        files.append(File.generated(config, path, content=text))
    for i, entry in enumerate(config["nav"]):
        if isinstance(entry, dict) and "Metric reference" in entry:
            entry["Metric reference"] = metric_nav() + [
                {"All metrics in one table": "reference/metrics/table.md"},
                {"Generator audit": "reference/metrics/generator-audit.md"},
                {"References": "reference/metrics/references.md"},
            ]
            config["nav"][i] = entry
    return files


def on_post_page(output, page, config):
    if page.file.src_uri.endswith(".ipynb"):
        output = _CDN_MODULE.sub("", _EXTERNAL_TAG.sub("", output))
    return output


def on_post_build(config):
    if os.environ.get("SYNTHPRIV_DOCS_NO_LITE"):
        return
    from synthpriv_report.tools import lite

    lite.build_site(Path(config["site_dir"]) / "lite")
