"""The documentation site builds with warnings as errors, loads nothing from another host, documents every
public name, and keeps every section the README used to hold reachable from its navigation."""

from __future__ import annotations

import importlib
import inspect
import re

import pytest
import yaml
from _support.paths import ROOT
from docs_support import PUBLIC_MODULES

pytestmark = pytest.mark.slow

#: Headings of the sections the README held before the site existed: each is now on a page of the navigation.
FORMER_README_SECTIONS = (
    "In a notebook", "On the command line", "Several releases: `compare`", "A generator: `audit`", "Exit codes",
    "In a CI pipeline", "Running on a cluster", "What it computes", "The three anonymisation criteria",
    "Distance spaces", "Levels and the verdict", "Membership attacks", "On releases of real generators, beside DOMIAS",
    "How often is the verdict wrong?", "Three outcomes: how often an honest release is ruled out",
    "A file a data protection officer can sign", "Reports read back from JSON are checked, not trusted",
    "Adding a metric", "Bad input and hostile strings", "How it is built", "A 90-minute lab",
    "In the browser, with nothing installed", "Benchmarks", "At scale: a million records and more", "Development",
)

#: A resource a page would load from another host: a script, a style sheet, an image, a frame or a font.
_EXTERNAL = re.compile(r"<(?:script|img|iframe|source|audio|video)\b[^>]*\ssrc=[\"']?(?:https?:)?//"
                       r"|<link\b[^>]*\shref=[\"']?(?:https?:)?//"
                       r"|@import\s+(?:url\()?[\"']?(?:https?:)?//|url\([\"']?(?:https?:)?//", re.I)


def public_names(module: str) -> list[str]:
    mod = importlib.import_module(module)
    if hasattr(mod, "__all__"):
        return list(mod.__all__)
    return [n for n, obj in vars(mod).items()
            if not n.startswith("_") and getattr(obj, "__module__", None) == module]


def _public_cases() -> list:
    cases = []
    for module in PUBLIC_MODULES:
        for name in public_names(module):
            cases.append(pytest.param(module, name, id=f"{module}.{name}"))
    return cases


def _nav_pages(nav: list) -> list[str]:
    out = []
    for entry in nav:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        if isinstance(value, list):
            out += _nav_pages(value)
        elif isinstance(value, str):
            out.append(value)
    return out


def test_the_site_builds_strictly_and_quickly(site):
    assert (site.path / "index.html").is_file() and (site.path / "search" / "search_index.json").is_file()
    assert (site.path / "lite" / "lab" / "index.html").is_file(), "the teaching lab was not built into lite/"
    assert (site.path / "lite" / "files" / "02_teaching_the_metrics.ipynb").is_file()
    teaching = (site.path / "teaching.html").read_text(encoding="utf-8")
    assert 'href="lite/lab/index.html?path=02_teaching_the_metrics.ipynb"' in teaching
    print(f"mkdocs build --strict: {site.seconds:.1f} s")
    # a small part of the test command: the notebooks are not executed at build time (see test_notebook_pages)
    assert site.seconds < 90, f"the documentation build took {site.seconds:.0f} s"


def test_no_page_loads_anything_from_another_host(site):
    """Every page and style sheet of the site (the in-browser lab under lite/ apart: it loads Pyodide from its
    CDN by design, or from the site when built with --offline-pyodide) names no resource on another host; the
    theme's web fonts are off (theme.font: false)."""
    offenders = []
    for path in site.path.rglob("*"):
        if path.suffix not in (".html", ".css") or "lite" in path.relative_to(site.path).parts[:1]:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for m in _EXTERNAL.finditer(text):
            offenders.append(f"{path.relative_to(site.path)}: {text[m.start():m.start() + 120]!r}")
        if "fonts.googleapis" in text or "fonts.gstatic" in text:
            offenders.append(f"{path.relative_to(site.path)}: Google fonts")
    assert not offenders, "\n".join(offenders[:20])


@pytest.mark.parametrize(("module", "name"), _public_cases())
def test_every_public_name_is_in_the_api_reference(site, module, name):
    obj = getattr(importlib.import_module(module), name)
    anchor = f'id="{module}.{name}"'
    pages = [p for p in (site.path / "api").glob("*.html") if anchor in p.read_text(encoding="utf-8")]
    assert pages, f"{module}.{name} is public but the API reference does not document it (docs/api/*.md)"
    if inspect.isclass(obj) or inspect.isroutine(obj) or inspect.ismodule(obj):
        assert (inspect.getdoc(obj) or "").strip(), f"{module}.{name} has no docstring"


def test_the_api_reference_uses_public_import_paths_only():
    for page in (ROOT / "docs" / "api").glob("*.md"):
        for target in re.findall(r"^::: (\S+)", page.read_text(encoding="utf-8"), re.M):
            module, _, name = target.rpartition(".")
            assert module in PUBLIC_MODULES and name in public_names(module), f"{page.name}: {target}"


def test_every_former_readme_section_is_in_the_navigation():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    pages = [p for p in _nav_pages(config["nav"]) if p.endswith(".md")]
    headings = set()
    for page in pages:
        headings |= {h.strip() for h in re.findall(r"^#{1,4} (.+)$", (ROOT / "docs" / page).read_text("utf-8"), re.M)}
    missing = [h for h in FORMER_README_SECTIONS if h not in headings]
    assert not missing, f"sections no page of the navigation holds: {missing}"


def test_the_metric_reference_has_a_page_per_metric(site):
    from synthpriv_report.core.registry import get_spec, metric_names

    nav = (site.path / "index.html").read_text(encoding="utf-8")
    for name in metric_names():
        page = site.path / "reference" / "metrics" / f"{name}.html"
        assert page.is_file(), name
        assert get_spec(name).title.split(" (")[0] in page.read_text(encoding="utf-8"), name
        assert f"reference/metrics/{name}.html" in nav, f"{name} is not in the navigation"


def test_the_design_page_keeps_how_it_is_built():
    text = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    assert re.search(r"^## How it is built$", text, re.M)


def test_the_design_page_shows_the_import_graph_of_this_code(site):
    """The picture is drawn at the build from the code and the contract: one box per tier member, and no arrow
    that breaks the contract (the title counts them)."""
    import tomllib

    svg = (site.path / "images" / "import-graph.svg").read_text(encoding="utf-8")
    assert "images/import-graph.svg" in (site.path / "design.html").read_text(encoding="utf-8")
    with open(ROOT / "pyproject.toml", "rb") as fh:
        layers = next(c for c in tomllib.load(fh)["tool"]["importlinter"]["contracts"] if c["id"] == "layers")
    assert len(layers["layers"]) <= 16
    members = [m.strip() for tier in layers["layers"] for m in re.split(r"[|:]", tier)]
    for m in members:
        assert m.removeprefix("synthpriv_report.") in svg, m
    assert "a break of the contract: 0)" in svg


def test_the_reader_text_names_no_internal_tracker():
    for page in (ROOT / "docs").rglob("*.md"):
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"\b(?:issue|ticket) #?\d+", text, re.I), page
    assert not re.search(r"\b(?:issue|ticket) #?\d+", (ROOT / "README.md").read_text("utf-8"), re.I)
