"""A JupyterLite site for teaching: the notebooks and their sliders in a browser, with nothing installed.

JupyterLite (https://jupyterlite.readthedocs.io) runs notebooks in the browser on Pyodide, CPython compiled to
WebAssembly, with no server: the site is a folder of static files that any web host serves. :func:`build_site`
puts in one such folder

- the teaching notebooks, their kernel set to JupyterLite's Python kernel (``python``; desktop notebooks name
  ``python3``) and a first cell that installs the package from the site itself;
- the package as a pure-Python wheel (:func:`build_wheel`) that declares only what Pyodide provides (no numba:
  the package takes its NumPy path there, see :mod:`synthpriv_report._compiled`), with the demo data also in
  gzip (Pyodide's Python has no ``lzma``);
- by default nothing of Pyodide itself: the kernel loads the official Pyodide release from its CDN on the first
  visit. ``offline_pyodide`` bundles a local Pyodide distribution instead, every file of which is checked
  against the SHA-256 digests of its ``pyodide-lock.json`` (and that lock against a digest given by the caller),
  for classrooms or tests without internet access.

It needs the ``lite`` extra (``jupyterlite-core`` and ``jupyterlite-pyodide-kernel``) on the machine that
builds, not on the students'.

The builder deletes only what it wrote: the site's folder must be new, empty, or a site it built before, whose
every file it recorded with its SHA-256 digest in :data:`MANIFEST` at the folder's root; a folder that holds any
other file, a file changed since, or one of the builder's inputs (a notebook, the Pyodide folder, a wheel) is
refused before anything is built (:func:`check_site_folder`).
"""

from __future__ import annotations

import base64
import copy
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from .. import __version__

__all__ = ["LITE_REQUIREMENTS", "KERNEL", "MANIFEST", "build_wheel", "build_site", "check_pyodide", "check_site_folder",
           "prepare_notebook"]

#: What the in-browser wheel declares: the package's dependencies that Pyodide's distribution carries or that
#: are pure Python (installed from the index the kernel uses). numba, nbconvert and the PDF and Dask extras are
#: left out: the teaching views do not import them. tqdm draws the progress bars of a long evaluation.
LITE_REQUIREMENTS: tuple[str, ...] = (
    "numpy", "pandas", "scipy", "scikit-learn", "matplotlib", "jinja2", "markupsafe", "ipywidgets", "tqdm",
)

#: JupyterLite's Pyodide kernel.
KERNEL = {"name": "python", "display_name": "Python (Pyodide)", "language": "python"}

#: Teaching notebooks bundled by default (from the source tree's ``notebooks`` folder).
DEFAULT_NOTEBOOKS: tuple[str, ...] = ("02_teaching_the_metrics.ipynb",)

_FIXED_TIME = (2020, 1, 1, 0, 0, 0)  # zip entries' time: the same files give the same wheel bytes

#: The file at a built site's root that lists what the builder wrote there (each file's SHA-256, each folder):
#: a later build replaces the folder only when it holds nothing else.
MANIFEST = ".synthpriv-lite-site.json"


def _digest(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _package_files(root: Path) -> list[tuple[str, bytes]]:
    """(path in the wheel, bytes) of every package file, bytecode and numba caches left out, plus a gzip copy of
    every xz-compressed demo file."""
    import lzma

    from ..datasets import gzip_name

    out = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root.parent).as_posix()
        if not path.is_file() or "__pycache__" in path.parts or path.suffix in (".pyc", ".nbi", ".nbc"):
            continue
        data = path.read_bytes()
        out.append((rel, data))
        if rel.endswith(".csv.xz") and "/datasets/data/" in rel:
            text = lzma.decompress(data)
            out.append((gzip_name(rel), gzip.compress(text, compresslevel=9, mtime=0)))
    return out


def build_wheel(out_dir: str | os.PathLike[str]) -> Path:
    """Write the package as a pure-Python wheel for Pyodide into ``out_dir``; returns its path.

    Built from the installed package's own files (no build backend, no network): the modules and package data,
    gzip copies of the demo data, and metadata whose ``Requires-Dist`` is :data:`LITE_REQUIREMENTS`.
    """
    root = Path(__file__).resolve().parents[1]  # the package, not this tools/ folder
    name, ver = "synthpriv_report", __version__
    info = f"{name}-{ver}.dist-info"
    files = _package_files(root)
    meta = "\n".join(["Metadata-Version: 2.1", f"Name: {name}", f"Version: {ver}",
                      "Summary: Privacy metrics for synthetic data (in-browser build: no numba)"]
                     + [f"Requires-Dist: {r}" for r in LITE_REQUIREMENTS]) + "\n"
    wheel = "Wheel-Version: 1.0\nGenerator: synthpriv_report.tools.lite\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files += [(f"{info}/METADATA", meta.encode()), (f"{info}/WHEEL", wheel.encode())]
    record = "".join(f"{p},{_digest(d)},{len(d)}\n" for p, d in files) + f"{info}/RECORD,,\n"
    files.append((f"{info}/RECORD", record.encode()))
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"{name}-{ver}-py3-none-any.whl"
    tmp = target.with_suffix(".tmp")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for path, data in files:
            entry = zipfile.ZipInfo(path, date_time=_FIXED_TIME)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            zf.writestr(entry, data)
    os.replace(tmp, target)
    return target


def _link_or_copy(src: str, dst: str) -> None:
    try:
        os.link(src, dst)
    except OSError:  # another file system
        shutil.copy2(src, dst)


def _project(wheel_name: str) -> str:
    """The normalised project name of a wheel file (PEP 503: lower case, runs of ``-_.`` as ``-``)."""
    return re.sub(r"[-_.]+", "-", wheel_name.split("-")[0]).lower()


#: What a first visit downloads into the browser (Pyodide, NumPy, pandas, SciPy, matplotlib, scikit-learn and the
#: widgets), in megabytes, as the site's test in Chromium measured it.
DOWNLOAD_MB = 75
#: Markers around text of a notebook's Markdown that is about a local installation only (compiling the kernels,
#: say): the browser's copy leaves it out. HTML comments, so a notebook shows nothing of them.
LOCAL_ONLY = ("<!-- local only -->", "<!-- /local only -->")


def _without_local_only(text: str) -> str:
    """``text`` less every span between :data:`LOCAL_ONLY` markers (markers included).

    >>> _without_local_only("a <!-- local only -->b <!-- /local only -->c")
    'a c'
    """
    start, end = LOCAL_ONLY
    while start in text and end in text[text.index(start):]:
        i = text.index(start)
        j = text.index(end, i) + len(end)
        text = text[:i] + text[j:]
    return text


def _install_source(site_first: Sequence[str]) -> list[str]:
    lines = ["# In the browser: install the package from this site (the first run downloads Python's\n",
             f"# scientific libraries, about {DOWNLOAD_MB} MB, which the browser then keeps)\n"]
    if site_first:
        # index_urls given: micropip asks the package indexes (this site's own first) before Pyodide's lock
        lines += ["import piplite\n",
                  f"await piplite.install({sorted(site_first)!r}, index_urls=[])  # carried by this site\n"]
    return lines + ["%pip install -q synthpriv-report"]


def prepare_notebook(nb: dict, *, site_first: Sequence[str] = ()) -> dict:
    """A copy of notebook ``nb`` (nbformat 4 JSON) for JupyterLite: JupyterLite's kernel, outputs cleared, Markdown
    about a local installation left out (between :data:`LOCAL_ONLY` markers), and a cell that installs the package
    (and its dependencies) from the site's own package index: the first code cell, below the notebook's title.

    ``site_first`` names packages that the site's index carries in place of a Pyodide distribution that lists
    them but lacks their files (an offline bundle): the install cell installs those from the site before the
    package, so that the kernel never asks for the missing files.
    """
    nb = copy.deepcopy(nb)
    nb.setdefault("metadata", {})["kernelspec"] = dict(KERNEL)
    nb["metadata"]["language_info"] = {"name": "python"}
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
        elif cell.get("cell_type") == "markdown":
            text = "".join(cell.get("source", ""))
            if LOCAL_ONLY[0] in text:
                cell["source"] = _without_local_only(text)
    install = {
        "cell_type": "code", "execution_count": None, "id": "synthpriv-lite-install", "metadata": {},
        "outputs": [],
        "source": _install_source(site_first),
    }
    cells = nb.get("cells", [])
    # below the notebook's title, where it opens with one (a Markdown cell starting with a level-1 heading)
    at = 1 if cells and cells[0].get("cell_type") == "markdown" and "".join(
        cells[0].get("source", "")).lstrip().startswith("# ") else 0
    nb["cells"] = cells[:at] + [install] + cells[at:]
    return nb


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def check_pyodide(folder: str | os.PathLike[str], *, lock_sha256: str | None = None) -> dict[str, int]:
    """Check a local Pyodide distribution: every package file its ``pyodide-lock.json`` lists is present with
    the SHA-256 digest the lock gives, and (``lock_sha256``) the lock itself is the expected one.

    Returns ``{"files": n_checked, "bytes": total_size, "missing": names}`` (``missing``: the packages the lock
    lists whose files the folder does not carry, which a kernel cannot load from it); raises ``ValueError``
    naming the first core file that is missing or package file that differs.
    """
    root = Path(folder)
    lock_path = root / "pyodide-lock.json"
    if not lock_path.is_file():
        raise ValueError(f"{root} holds no pyodide-lock.json: not a Pyodide distribution folder")
    if lock_sha256 is not None and _sha256_file(lock_path) != lock_sha256.lower():
        raise ValueError(f"{lock_path} is not the expected lock (its SHA-256 is {_sha256_file(lock_path)})")
    lock = json.loads(lock_path.read_text())
    for core in ("pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip"):
        if not (root / core).is_file():
            raise ValueError(f"{root} lacks {core}, a file of Pyodide's core")
    n, size, missing = 0, 0, []
    for name, pkg in sorted(lock.get("packages", {}).items()):
        path = root / pkg["file_name"]
        if not path.is_file():
            missing.append(name)  # a package the distribution does not carry: the kernel cannot load it offline
            continue
        if _sha256_file(path) != pkg["sha256"]:
            raise ValueError(f"{path.name} (package {name}) does not match the SHA-256 of pyodide-lock.json")
        n += 1
        size += path.stat().st_size
    return {"files": n, "bytes": size, "missing": missing}


def _manifest_of(folder: Path) -> dict[str, object]:
    """What a build writes into the site's folder: each file's SHA-256 and each folder, by path from its root."""
    files: dict[str, str] = {}
    folders: list[str] = []
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if path.is_dir():
            folders.append(rel)
        else:
            files[rel] = _sha256_file(path)
    return {"written_by": "synthpriv_report.tools.lite", "version": __version__, "folders": folders, "files": files}


def _read_manifest(folder: Path) -> tuple[dict[str, str], set[str]] | None:
    """The files (path -> SHA-256) and folders a build recorded in ``folder``; None where it recorded none."""
    path = folder / MANIFEST
    if path.is_symlink() or not path.is_file():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        files, folders = doc["files"], doc["folders"]
    except (OSError, ValueError, TypeError, KeyError):
        return None
    if (not isinstance(files, dict) or not isinstance(folders, list)
            or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items())
            or not all(isinstance(f, str) for f in folders)):
        return None
    return files, set(folders)


def _foreign_entry(folder: Path) -> tuple[str, str] | None:
    """The first entry of ``folder`` that a build did not write, and why; None when every entry is one it wrote
    (an empty folder included). Links are never followed (a build writes none)."""
    manifest = _read_manifest(folder)
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames.sort()
        here = Path(dirpath)
        for name in [*dirnames, *sorted(filenames)]:
            path = here / name
            rel = path.relative_to(folder).as_posix()
            if rel == MANIFEST and manifest is not None:
                continue
            if manifest is None:
                return rel, "the folder holds no record of a site this builder wrote"
            files, folders = manifest
            if path.is_symlink():
                return rel, "a link, which this builder never writes"
            if name in dirnames:
                if rel not in folders:
                    return rel, "not written by this builder"
            elif rel not in files or not path.is_file():
                return rel, "not written by this builder"
            elif _sha256_file(path) != files[rel]:
                return rel, "changed since the site was built, or left half-written by an interrupted build"
    return None


def check_site_folder(out: str | os.PathLike[str],
                      inputs: Mapping[str, Sequence[str | os.PathLike[str]]] | None = None, *,
                      label: str = "out") -> None:
    """Refuse ``out`` as the site's folder when building the site there would delete anything but a site this
    builder wrote: the folder must not exist, be empty, or hold only what an earlier build wrote (the files
    listed in its :data:`MANIFEST`, unchanged), and hold none of the inputs nor lie inside one.

    Parameters
    ----------
    out : path
        The site's folder.
    inputs : mapping of label -> paths, optional
        What the build reads (``{"notebooks": [...], "offline_pyodide": [...], "wheels": [...]}``); labels name
        the setting or option in the message.
    label : str
        What ``out`` is called in the message (``"out"``, ``"--out"``).

    Raises
    ------
    ValueError
        Naming ``out`` and, where one is in the way, the input, or the first file the builder did not write.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     check_site_folder(d)  # an empty folder: nothing to lose
    ...     _ = (Path(d) / "notes.txt").write_text("mine")
    ...     try:
    ...         check_site_folder(d)
    ...     except ValueError as err:
    ...         print(str(err).split(": ", 1)[0].replace(d, "DIR"))
    out DIR holds 'notes.txt' (the folder holds no record of a site this builder wrote)
    """
    target = Path(out)
    places = {Path(os.path.abspath(target)), target.resolve()}
    for name, paths in (inputs or {}).items():
        for given in paths:
            for where in {Path(os.path.abspath(given)), Path(given).resolve()}:
                if where in places:
                    raise ValueError(f"{label} {target} is the input {name} {given}: choose another output folder")
                if any(o in where.parents for o in places):
                    raise ValueError(f"{label} {target} holds the input {name} {given}: building the site replaces "
                                     f"that folder, which would delete it; choose an output folder that holds none "
                                     f"of the inputs")
                if any(where in o.parents for o in places):
                    raise ValueError(f"{label} {target} lies inside the input {name} {given}: building the site "
                                     f"there would change that input; choose an output folder outside it")
    folder = target.resolve()
    if not os.path.lexists(folder):
        return
    if not folder.is_dir():
        raise ValueError(f"{label} {target} is a file, not a folder: give a new or empty folder for the site")
    foreign = _foreign_entry(folder)
    if foreign is not None:
        rel, why = foreign
        raise ValueError(f"{label} {target} holds {rel!r} ({why}): building the site deletes what the folder holds; "
                         f"give a new or empty folder, or one a build wrote before (e.g. {target / 'site'})")


def _replace_site(built: Path, out: Path, inputs: Mapping[str, Sequence[Path]]) -> None:
    """Put the site built in ``built`` into ``out``: checked again (:func:`check_site_folder`), the earlier
    build's files removed (its record last), the new record written, then the new files. The folder itself is
    kept (a shell standing in it stays there)."""
    check_site_folder(out, inputs)
    manifest = _manifest_of(built)
    if out.is_dir():
        for entry in sorted(out.iterdir()):
            if entry.name == MANIFEST:
                continue
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
        (out / MANIFEST).unlink(missing_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    # the record first: a build interrupted while copying leaves only files the record names
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    shutil.copytree(built, out, dirs_exist_ok=True)


def _default_notebooks() -> list[Path]:
    folder = Path(__file__).resolve().parents[2] / "notebooks"
    found = [folder / f for f in DEFAULT_NOTEBOOKS if (folder / f).is_file()]
    if not found:
        raise ValueError("no teaching notebook found next to the package (a source checkout has them in "
                         "notebooks/): name the notebooks to bundle")
    return found


def build_site(out: str | os.PathLike[str], *, notebooks: Sequence[str | os.PathLike[str]] | None = None,
               offline_pyodide: str | os.PathLike[str] | None = None, pyodide_lock_sha256: str | None = None,
               wheels: Sequence[str | os.PathLike[str]] = (), quiet: bool = True) -> dict[str, object]:
    """Build the JupyterLite teaching site into the folder ``out``.

    Parameters
    ----------
    out : path
        The site's folder: serve it with any static web server (``index.html`` at its root). It must be new,
        empty, or a site this builder wrote before (then replaced); a folder that holds any other file, or any
        of the inputs, is refused before anything is built (:func:`check_site_folder`).
    notebooks : paths, optional
        Notebooks to bundle (default: the teaching notebook of the source tree).
    offline_pyodide : path, optional
        A local Pyodide distribution folder (``pyodide.js``, ``pyodide-lock.json`` and package wheels), checked by
        :func:`check_pyodide` and bundled, so the site needs no CDN. Default: the official Pyodide from its CDN.
    pyodide_lock_sha256 : str, optional
        The expected SHA-256 of that distribution's ``pyodide-lock.json`` (the official release's).
    wheels : paths, optional
        More pure-Python wheels for the site's package index, which the kernel installs from before PyPI (for a
        site without internet access: ipywidgets and the like, where the Pyodide distribution lacks
        them).
    quiet : bool
        Hide the JupyterLite build's log.

    Returns
    -------
    dict
        ``site`` (the folder), ``wheel`` (the package wheel's name), ``notebooks`` (their names), ``bytes`` (the
        site's size) and ``pyodide`` (``"cdn"`` or the check's counts).

    Raises
    ------
    ValueError
        ``out`` holds an input or a file this builder did not write (:func:`check_site_folder`), a wheel is not
        a pure-Python wheel file, or the Pyodide folder fails its check (:func:`check_pyodide`).
    RuntimeError
        The ``lite`` extra is not installed, or the JupyterLite build failed.
    """
    nb_paths = [Path(p) for p in notebooks] if notebooks else _default_notebooks()
    inputs = {"notebooks": nb_paths, "wheels": [Path(w) for w in wheels],
              "offline_pyodide": [Path(offline_pyodide)] if offline_pyodide is not None else []}
    check_site_folder(out, inputs)  # before anything is built, and again before the folder is replaced
    try:
        import jupyterlite_core  # noqa: F401
        import jupyterlite_pyodide_kernel  # noqa: F401
    except ImportError as err:
        raise RuntimeError("building the site needs the 'lite' extra: pip install 'synthpriv_report[lite]'") from err
    out = Path(out).resolve()
    report: dict[str, object] = {"site": str(out), "pyodide": "cdn"}
    extra_wheels = []
    for extra in wheels:
        if not str(extra).endswith("-none-any.whl") or not Path(extra).is_file():
            raise ValueError(f"{extra}: not a pure-Python wheel file (name ending in -none-any.whl)")
        extra_wheels.append(Path(extra).resolve())
    site_first: list[str] = []
    if offline_pyodide is not None:
        checked = check_pyodide(offline_pyodide, lock_sha256=pyodide_lock_sha256)
        report["pyodide"] = checked
        carried = {_project(w.name): w for w in extra_wheels}
        site_first = sorted(name for name in checked["missing"] if name in carried)
    with tempfile.TemporaryDirectory(prefix="synthpriv-lite-") as tmp:
        work = Path(tmp)
        contents = work / "contents"
        contents.mkdir()
        for p in nb_paths:
            nb = prepare_notebook(json.loads(p.read_text(encoding="utf-8")), site_first=site_first)
            (contents / p.name).write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        # every cell laid out at once (JupyterLab otherwise renders only the cells in view): a class's "Run All"
        # shows each output as it arrives, and the browser's find-in-page searches the whole notebook
        overrides = {"@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"}}
        (work / "overrides.json").write_text(json.dumps(overrides, indent=1) + "\n", encoding="utf-8")
        wheel = build_wheel(work / "wheels")
        report["wheel"] = wheel.name
        report["notebooks"] = [p.name for p in nb_paths]
        cmd = [sys.executable, "-m", "jupyter", "lite", "build", "--contents", str(contents),
               "--output-dir", str(work / "site"), "--piplite-wheels", str(wheel), "--lite-dir", str(work)]
        for extra in extra_wheels:
            cmd += ["--piplite-wheels", str(extra)]
        if offline_pyodide is not None:
            # a folder named pyodide holding the distribution as pyodide/: the layout of the release tarball,
            # which jupyter lite copies as it is (linked where it can: no compression, no second copy)
            staged = work / "pyodide"
            shutil.copytree(Path(offline_pyodide), staged / "pyodide", copy_function=_link_or_copy)
            cmd += ["--pyodide", str(staged)]
            # no network to fall back on: a package neither bundled nor carried fails at once, naming itself
            settings = {"jupyter-lite-schema-version": 0, "jupyter-config-data": {"litePluginSettings": {
                "@jupyterlite/pyodide-kernel-extension:kernel": {"disablePyPIFallback": True}}}}
            (work / "jupyter-lite.json").write_text(json.dumps(settings, indent=1) + "\n", encoding="utf-8")
        proc = subprocess.run(cmd, cwd=work, capture_output=quiet, text=True)
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout or "")[-2000:] if quiet else ""
            raise RuntimeError(f"jupyter lite build failed (exit {proc.returncode}) {tail}")
        for source_map in (work / "site").rglob("*.map"):
            source_map.unlink()  # JavaScript source maps: read by a browser's developer tools only (about 40 MB)
        _replace_site(work / "site", out, inputs)
    report["bytes"] = sum(f.stat().st_size for f in out.rglob("*") if f.is_file() and f.name != MANIFEST)
    return report


def _size_mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


def _summary(report: dict[str, object]) -> str:
    buf = io.StringIO()
    buf.write(f"site: {report['site']} ({_size_mb(int(report['bytes']))})\n")
    buf.write(f"package wheel: {report['wheel']}; notebooks: {', '.join(report['notebooks'])}\n")
    py = report["pyodide"]
    if py == "cdn":
        buf.write("Pyodide: loaded from its CDN on a student's first visit\n")
    else:
        buf.write(f"Pyodide: bundled, {py['files']} package files checked against pyodide-lock.json "
                  f"({_size_mb(int(py['bytes']))})\n")
        if py["missing"]:
            buf.write(f"  {len(py['missing'])} packages of its lock are not in the folder (the kernel cannot load "
                      f"them offline): {', '.join(py['missing'][:12])}{', ...' if len(py['missing']) > 12 else ''}\n")
    buf.write("serve the folder with any static web server, e.g. python -m http.server -d SITE\n")
    return buf.getvalue()
