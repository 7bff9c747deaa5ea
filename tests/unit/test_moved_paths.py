"""The modules' paths from before the package was laid out by role still import, for one release: each old path
is the module at its new path (the same object), with a DeprecationWarning naming the new path."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings

import pytest

from synthpriv_report._moved import MOVED

#: A sample across the layers; every entry of MOVED is checked by test_every_old_path_names_an_existing_module.
SAMPLE = ["synthpriv_report.registry", "synthpriv_report.levels", "synthpriv_report.data",
          "synthpriv_report.metrics.dcr", "synthpriv_report.models.mlp", "synthpriv_report.teaching"]


def test_every_old_path_names_an_existing_module():
    for old, new in MOVED.items():
        assert importlib.util.find_spec(new) is not None, f"{old} -> {new}: no such module"
        assert old != new


@pytest.mark.parametrize("old", [p for p in SAMPLE if p in MOVED])
def test_an_old_path_is_the_new_module_with_a_warning(old):
    sys.modules.pop(old, None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = importlib.import_module(old)
    assert module is importlib.import_module(MOVED[old])
    assert any(issubclass(w.category, DeprecationWarning) and MOVED[old] in str(w.message) for w in caught)


def test_the_old_data_and_engine_paths_are_their_packages_now():
    """``synthpriv_report.data`` and ``.engine`` kept their names (packages now), with their public names."""
    from synthpriv_report.data import PreparedData, prepare  # noqa: F401
    from synthpriv_report.engine import Context, SetRef  # noqa: F401

    assert "synthpriv_report.data" not in MOVED and "synthpriv_report.engine" not in MOVED


def test_the_audit_name_stays_the_function():
    """``synthpriv_report.audit`` is the function, as before; its module is at ``evaluation.audit``."""
    import synthpriv_report

    assert "synthpriv_report.audit" not in MOVED and callable(synthpriv_report.audit)
    assert not isinstance(synthpriv_report.audit, type(sys))


def test_the_finder_answers_for_old_paths_only():
    """The finder answers for the paths of MOVED, none of which is a file, and for nothing else."""
    import pathlib

    import synthpriv_report
    from synthpriv_report import _moved

    assert any(isinstance(f, _moved._MovedFinder) for f in sys.meta_path)
    assert _moved._MovedFinder().find_spec("synthpriv_report.spaces") is None
    root = pathlib.Path(synthpriv_report.__file__).parent.parent
    for old in MOVED:
        path = root / old.replace(".", "/")
        assert not path.with_suffix(".py").exists() and not (path / "__init__.py").exists(), old


def test_the_new_program_paths_run():
    out = subprocess.run([sys.executable, "-m", "synthpriv_report.tools.warmup", "--help"], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0 and "warmup" in out.stdout
