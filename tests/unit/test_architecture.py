"""The package's architecture, checked: layers point down (import-linter's contract in pyproject.toml), the
package is imported lazily only along the contract's documented ways up, the only import circle is the
documented facade, and no words, policy, display, export or command-line module names a shipped metric."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _support.paths import ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from synthpriv_report.core.registry import metric_names

PACKAGE = ROOT / "synthpriv_report"
CONTRACT = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"][0]

#: Modules that read declarations and must never branch on (or spell) a shipped metric's name.
NAME_FREE = ("wording.py", "params.py", "levels.py", "applicability.py", "verdict.py", "catalogue.py", "cli.py",
             "formats.py", "templating.py", "display", "export")


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _lazy_package_imports() -> list[tuple[str, str, int]]:
    """(importer, imported, line) of every import of the package inside a function."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module_name(path)
        tree = ast.parse(path.read_text())
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.ImportFrom):
                    target = _resolve(module, node, path.name == "__init__.py")
                    names = [target] + [f"{target}.{a.name}" for a in node.names]
                elif isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                else:
                    continue
                for name in names:
                    if name.split(".")[0] == "synthpriv_report":
                        out.append((module, name, node.lineno))
    return out


def _allowed_ways_up() -> list[tuple[str, str]]:
    return [tuple(s.strip() for s in rule.split("->")) for rule in CONTRACT["ignore_imports"]]


@pytest.mark.skipif(shutil.which("lint-imports") is None,
                    reason="import-linter is not installed (pip install -e .[test])")
def test_layers_contract_is_kept() -> None:
    run = subprocess.run(["lint-imports"], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]


def _is_way_up(importer: str, imported: str) -> bool:
    return any((importer == a or importer.startswith(a + ".")) and (imported == b or imported.startswith(b + "."))
               for a, b in _allowed_ways_up())


@pytest.mark.slow  # about 2 s
def test_the_ways_up_are_lazy_imports() -> None:
    """Each documented way up is an import inside one method, never at module level (importing the lower module
    never loads the upper one), and each is used."""
    lazy = [(a, b) for a, b, _ in _lazy_package_imports()]
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module_name(path)
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ImportFrom):
                target = _resolve(module, node, path.name == "__init__.py")
                assert not _is_way_up(module, target), f"{module} imports {target} at module level"
    for a, b in _allowed_ways_up():
        assert any(x.startswith(a) and y.startswith(b) for x, y in lazy), f"unused exception {a} -> {b}"


def _sccs(edges: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    comps: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on.discard(w)
                comp.add(w)
                if w == v:
                    break
            comps.append(comp)

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return comps


def test_no_import_circle_but_through_the_documented_ways_up() -> None:
    """Counting every import between modules (in functions too), the package has no import circle once the
    documented ways up (a result set writing its own documents, ...) are set aside."""
    import grimp

    graph = grimp.build_graph("synthpriv_report")
    edges: dict[str, set[str]] = {}
    for m in graph.modules:
        for i in graph.find_modules_directly_imported_by(m):
            if m != i and not _is_way_up(m, i) and "synthpriv_report" not in (m, i):
                edges.setdefault(m, set()).add(i)
    circles = [sorted(c) for c in _sccs(edges) if len(c) > 1]
    assert not circles, circles


def _name_free_files() -> list[Path]:
    out = []
    for entry in NAME_FREE:
        found = [p for p in PACKAGE.rglob(entry) if p.is_file()] or \
            [p for d in PACKAGE.rglob(entry) if d.is_dir() for p in d.rglob("*.py")]
        out += found
    return sorted(set(out))


def _string_constants(tree: ast.AST) -> list[ast.Constant]:
    """String constants that are code (docstrings, whose examples run against the registry, are left out)."""
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = getattr(node, "body", [])
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
    return [n for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and id(n) not in docstrings]


def test_words_policy_display_export_and_cli_name_no_shipped_metric() -> None:
    names = set(metric_names())
    files = _name_free_files()
    assert len(files) > 15, files
    hits = []
    for path in files:
        for node in _string_constants(ast.parse(path.read_text())):
            if node.value in names:
                hits.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value!r}")
    assert not hits, "a metric's facts belong in its declaration; found names in: " + "; ".join(hits)


def test_the_name_check_sees_a_name() -> None:
    tree = ast.parse('"""Docstring dcr."""\nx = 1 if name == "dcr" else 2\n')
    assert [n.value for n in _string_constants(tree)] == ["dcr"]


def test_every_module_has_a_layer() -> None:
    """A new top-level module or package must be placed in the contract, or import-linter would not see it."""
    import grimp

    listed = {m.strip() for layer in CONTRACT["layers"] for m in layer.replace(":", "|").split("|")}
    graph = grimp.build_graph("synthpriv_report")
    tops = {".".join(m.split(".")[:2]) for m in graph.modules if m != "synthpriv_report"}
    assert not tops - listed, f"modules in no layer of pyproject.toml's contract: {sorted(tops - listed)}"


def test_report_order_of_the_shipped_metrics() -> None:
    """Report order is registration order, the import order of ``synthpriv_report/metrics/__init__.py`` (kept by
    hand: an import sorter once reordered it)."""
    shipped = ["dcr", "exact_copies", "near_copies", "holdout_dcr_share", "privacy_score", "nndr", "dcr_test",
               "nndr_test", "zcap", "gcap", "air", "crp", "hitting_rate", "cvp", "dvp", "nsnd", "authenticity",
               "identifiability", "nndr_review", "dcr_review", "mdcr", "nnaa", "hidden_rate", "detection_mlp", "mir"]
    assert [n for n in metric_names() if n in shipped] == shipped


@pytest.mark.slow  # about a second
def test_only_the_compiled_switch_imports_numba_at_module_level() -> None:
    """Every kernel takes ``njit``/``prange`` from :mod:`synthpriv_report._compiled`, so the package imports where
    numba does not exist (Pyodide) and ``SYNTHPRIV_NO_NUMBA=1`` switches every kernel at once."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "_compiled.py":
            continue
        for node in ast.parse(path.read_text()).body:
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(n.split(".")[0] == "numba" for n in names):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, found
