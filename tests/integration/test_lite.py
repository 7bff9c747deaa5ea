"""Tests of synthpriv_report.tools.lite (``synthpriv-report lite``): the in-browser teaching site, its package wheel
(no numba, demo data readable without lzma) and the notebooks' JupyterLite kernel; the wheel run by a Python
that, like Pyodide's, has neither numba nor lzma."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from synthpriv_report.tools import lite

ROOT = Path(__file__).resolve().parents[2]


def test_prepare_notebook_sets_the_jupyterlite_kernel_and_an_install_cell() -> None:
    nb = {"cells": [{"cell_type": "code", "source": "x = 1", "outputs": [{"output_type": "stream"}],
                     "execution_count": 3, "metadata": {}}],
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    out = lite.prepare_notebook(nb)
    assert out["metadata"]["kernelspec"]["name"] == "python"
    assert nb["metadata"]["kernelspec"]["name"] == "python3"  # the input is left alone
    assert "".join(out["cells"][0]["source"]).endswith("%pip install -q synthpriv-report")
    assert out["cells"][1]["source"] == "x = 1" and out["cells"][1]["outputs"] == []
    assert out["cells"][1]["execution_count"] is None


def test_the_install_cell_goes_below_the_title_and_local_only_text_is_left_out() -> None:
    """The browser's copy opens with the notebook's title, then the install cell; a sentence about compiling the
    kernels on a local installation (between the markers) is not in it."""
    nb = {"cells": [{"cell_type": "markdown", "source": "# The lab\n\nIntro.", "metadata": {}},
                    {"cell_type": "markdown", "metadata": {},
                     "source": "Setup. <!-- local only -->It compiles its kernels. <!-- /local only -->Then go."},
                    {"cell_type": "code", "source": "x = 1", "outputs": [], "execution_count": None, "metadata": {}}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    out = lite.prepare_notebook(nb)
    assert out["cells"][0]["source"].startswith("# The lab")
    assert out["cells"][1]["id"] == "synthpriv-lite-install"
    assert out["cells"][2]["source"] == "Setup. Then go."
    assert "compiles" in nb["cells"][1]["source"]  # the input is left alone
    assert f"about {lite.DOWNLOAD_MB} MB" in "".join(out["cells"][1]["source"])
    lab = json.loads((ROOT / "notebooks" / "02_teaching_the_metrics.ipynb").read_text(encoding="utf-8"))
    text = " ".join("".join(c["source"]) for c in lite.prepare_notebook(lab)["cells"] if c["cell_type"] == "markdown")
    assert "warmup" not in text and "compile" not in text


def test_packages_an_offline_bundle_lacks_are_installed_from_the_site_first() -> None:
    """Named packages (listed by the bundled Pyodide's lock, whose files it lacks) are installed from the site's
    own index before the package, with index_urls given so that micropip asks the index before the lock."""
    nb = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    plain = "".join(lite.prepare_notebook(nb)["cells"][0]["source"])
    assert "piplite" not in plain
    src = "".join(lite.prepare_notebook(nb, site_first=["markupsafe", "jinja2"])["cells"][0]["source"])
    assert "await piplite.install(['jinja2', 'markupsafe'], index_urls=[])" in src
    assert src.index("piplite.install") < src.index("%pip install -q synthpriv-report")
    assert lite._project("MarkupSafe-2.1.5-py3-none-any.whl") == "markupsafe"
    assert lite._project("jupyterlab_widgets-3.0.15-py3-none-any.whl") == "jupyterlab-widgets"


def test_wheel_declares_no_numba_and_carries_gzip_demo_data(tmp_path: Path) -> None:
    """The wheel: every module, gzip copies of the four demo files whose text equals the xz files', a RECORD
    whose digests match, and requirements Pyodide can meet (no numba)."""
    import gzip
    import lzma

    whl = lite.build_wheel(tmp_path)
    assert whl.name == "synthpriv_report-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(whl) as zf:
        names = set(zf.namelist())
        meta = zf.read("synthpriv_report-0.1.0.dist-info/METADATA").decode()
        for xz in [n for n in names if n.endswith(".csv.xz")]:
            assert gzip.decompress(zf.read(xz[:-3] + ".gz")) == lzma.decompress(zf.read(xz))
        record = zf.read("synthpriv_report-0.1.0.dist-info/RECORD").decode().splitlines()
        for line in record:
            path, digest, size = line.rsplit(",", 2)
            if digest:
                data = zf.read(path)
                assert int(size) == len(data)
                import base64
                assert digest == "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(
                    b"=").decode()
    assert len([n for n in names if n.endswith(".csv.gz")]) == 4
    assert "synthpriv_report/_compiled.py" in names and "synthpriv_report/neighbors/vectorised.py" in names
    assert not any("__pycache__" in n for n in names)
    requires = [line.split(": ", 1)[1] for line in meta.splitlines() if line.startswith("Requires-Dist")]
    assert requires == list(lite.LITE_REQUIREMENTS) and "numba" not in requires
    assert lite.build_wheel(tmp_path / "again").read_bytes() == whl.read_bytes()  # same files, same bytes


_PYODIDE_LIKE = textwrap.dedent("""
    import sys
    for name in ("numba", "llvmlite", "lzma", "_lzma", "nbconvert", "weasyprint", "dask", "distributed"):
        sys.modules[name] = None  # as in Pyodide: neither exists, nor what the wheel does not declare
    sys.path.insert(0, sys.argv[1])
    import synthpriv_report
    assert synthpriv_report.__file__.startswith(sys.argv[1]), synthpriv_report.__file__
    from synthpriv_report import Evaluation, _compiled
    from synthpriv_report.datasets import load_demo

    demo = load_demo()
    assert demo.real.shape == (3000, 15) and demo.holdout.shape == (1500, 15)

    import threading

    def no_thread(self):
        raise RuntimeError("can't start new thread")

    threading.Thread.start = no_thread  # as in Pyodide: Python there cannot start a thread
    noisy = Evaluation(demo.real.iloc[:120], demo.synthetic.iloc[:120], demo.holdout.iloc[:60], metrics=["mir"],
                       progress=True)  # progress bars and the classifier's folds without threads
    assert noisy.results()["mir"].computed
    ev = Evaluation(demo.real.iloc[:200], demo.synthetic_leaky.iloc[:200], demo.holdout.iloc[:100],
                    key_fields=demo.key_fields, sensitive_fields=demo.sensitive_fields,
                    metrics=["dcr", "exact_copies", "privacy_score", "hitting_rate"], progress=False)
    r = ev.results()
    for shown in (r, r["dcr"]):  # a notebook's rich display of a result set and of one result
        assert "text/html" in shown._repr_mimebundle_()
    print(_compiled.COMPILED, round(r["exact_copies"].value, 6), ev.results(alpha=0.2)["privacy_score"].value)
""")


def test_the_wheel_runs_without_numba_or_lzma(tmp_path: Path) -> None:
    """Unpacked, the wheel imports, evaluates and shows its results in a Python with neither numba nor lzma (as
    Pyodide), nor the packages the wheel does not declare (nbconvert, Dask, ...): the demo data read from the
    gzip copies, the NumPy path chosen; the same numbers as this Python's compiled run."""
    whl = lite.build_wheel(tmp_path)
    target = tmp_path / "site-packages"
    with zipfile.ZipFile(whl) as zf:
        zf.extractall(target)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SYNTHPRIV_NO_NUMBA")}
    proc = subprocess.run([sys.executable, "-W", "ignore", "-c", _PYODIDE_LIKE, str(target)], capture_output=True,
                          text=True, env=env, timeout=600, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    compiled, copies, score = proc.stdout.split()
    assert compiled == "False"
    from synthpriv_report import Evaluation
    from synthpriv_report.datasets import load_demo

    demo = load_demo()
    ev = Evaluation(demo.real.iloc[:200], demo.synthetic_leaky.iloc[:200], demo.holdout.iloc[:100],
                    key_fields=demo.key_fields, sensitive_fields=demo.sensitive_fields,
                    metrics=["dcr", "exact_copies", "privacy_score", "hitting_rate"], progress=False)
    assert float(copies) == round(ev.results()["exact_copies"].value, 6) and float(copies) > 0  # copies found
    assert float(score) == ev.results(alpha=0.2)["privacy_score"].value


def test_check_pyodide_refuses_a_file_that_differs(tmp_path: Path) -> None:
    """Every file named in pyodide-lock.json must match its SHA-256; a changed byte is named in the error; the
    lock itself is checked against the digest given."""
    for core in ("pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip"):
        (tmp_path / core).write_bytes(b"core")
    wheel = tmp_path / "numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl"
    wheel.write_bytes(b"numpy bytes")
    lock = {"packages": {"numpy": {"file_name": wheel.name, "sha256": hashlib.sha256(b"numpy bytes").hexdigest()},
                         "absent": {"file_name": "absent-1.0-py3-none-any.whl", "sha256": "0" * 64}}}
    (tmp_path / "pyodide-lock.json").write_text(json.dumps(lock))
    assert lite.check_pyodide(tmp_path) == {"files": 1, "bytes": len(b"numpy bytes"), "missing": ["absent"]}
    good = hashlib.sha256((tmp_path / "pyodide-lock.json").read_bytes()).hexdigest()
    assert lite.check_pyodide(tmp_path, lock_sha256=good)["files"] == 1
    with pytest.raises(ValueError, match="not the expected lock"):
        lite.check_pyodide(tmp_path, lock_sha256="1" * 64)
    wheel.write_bytes(b"numpy bytez")
    with pytest.raises(ValueError, match="numpy-2.0.2"):
        lite.check_pyodide(tmp_path)
    (tmp_path / "pyodide.asm.wasm").unlink()
    with pytest.raises(ValueError, match="pyodide.asm.wasm"):
        lite.check_pyodide(tmp_path)


def test_the_lite_command_builds_a_site(tmp_path: Path) -> None:
    """``synthpriv-report lite --out DIR``: a JupyterLite site holding the teaching notebook (kernel ``python``),
    the package wheel and the extra wheel given in its package index, the widgets' front end, and no source
    maps."""
    pytest.importorskip("jupyterlite_core")
    pytest.importorskip("jupyterlite_pyodide_kernel")
    site = tmp_path / "site"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT)] + [p for p in os.environ.get(
        "PYTHONPATH", "").split(os.pathsep) if p])}
    extra = tmp_path / "teaching_extra-1.0-py3-none-any.whl"  # a pure-Python wheel for the site's own index
    with zipfile.ZipFile(extra, "w") as zf:
        zf.writestr("teaching_extra/__init__.py", "")
        zf.writestr("teaching_extra-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: teaching_extra\n"
                                                              "Version: 1.0\n")
        zf.writestr("teaching_extra-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\n"
                                                           "Tag: py3-none-any\n")
        zf.writestr("teaching_extra-1.0.dist-info/RECORD", "")
    proc = subprocess.run([sys.executable, "-m", "synthpriv_report", "lite", "--out", str(site), "--wheel",
                           str(extra)], capture_output=True, text=True, env=env, timeout=600, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Pyodide: loaded from its CDN" in proc.stderr
    assert (site / "index.html").is_file()
    nb = json.loads((site / "files" / "02_teaching_the_metrics.ipynb").read_text())
    assert nb["metadata"]["kernelspec"]["name"] == "python"
    index = json.loads((site / "pypi" / "all.json").read_text())
    assert list(index["synthpriv-report"]["releases"]) == ["0.1.0"]
    assert list(index["teaching-extra"]["releases"]) == ["1.0"]
    assert (site / "pypi" / "synthpriv_report-0.1.0-py3-none-any.whl").is_file()
    config = json.loads((site / "jupyter-lite.json").read_text())["jupyter-config-data"]
    assert config["defaultKernelName"] == "python"
    extensions = {e["name"] for e in config["federated_extensions"]}
    assert "@jupyter-widgets/jupyterlab-manager" in extensions
    assert not list(site.rglob("*.map"))
