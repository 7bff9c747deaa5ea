"""Files written whole or not at all: a temporary file beside each target, moved into place with ``os.replace``.

:class:`AtomicFiles` stages several outputs and moves them into place only when every one of them is complete;
an exception (``KeyboardInterrupt`` included) removes the temporary files and leaves the previous files as they
were. :func:`check_distinct` refuses an output path that is also an input or another output.

A target that exists and is not a regular file is never replaced: a character device (``/dev/null``, a
terminal) or a FIFO (a named pipe), or a link to one, is *written through* (opened and written, no temporary
file, no rename) once every output is complete; ``/dev/stdout``, ``/dev/stderr`` and ``/dev/fd/N`` are written
to the process's own descriptor (so a shell's ``>>`` keeps appending). A block device, a socket or a folder is
refused with an ``OSError`` naming it. :func:`remove_temporaries` removes every temporary file still staged in
this process (the command line calls it from its SIGTERM and SIGINT handlers).
"""

from __future__ import annotations

import errno
import os
import re
import stat
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType

__all__ = ["AtomicFiles", "check_distinct", "output_kind", "remove_temporaries", "write_atomic"]

#: Every temporary file staged and not yet moved or removed, in this process (for the signal handlers).
_LIVE: set[str] = set()
_LIVE_LOCK = threading.Lock()

#: Paths naming one of this process's own descriptors.
_FD_PATH = re.compile(r"^/(?:dev/fd|proc/self/fd|proc/thread-self/fd)/(\d+)$")
_STD_PATHS = {"/dev/stdout": 1, "/dev/stderr": 2}


def _umask_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def remove_temporaries() -> int:
    """Remove every temporary file this process staged and has not yet moved into place; returns how many.

    Safe to call from a signal handler: it only unlinks the files it registered (targets are never touched).
    """
    with _LIVE_LOCK:
        names = list(_LIVE)
        _LIVE.clear()
    removed = 0
    for name in names:
        try:
            os.unlink(name)
            removed += 1
        except OSError:
            pass
    return removed


def _own_descriptor(target: Path) -> int | None:
    """The descriptor a path such as ``/dev/stdout`` or ``/dev/fd/3`` names in this process, else None."""
    text = os.path.abspath(str(target))
    if text in _STD_PATHS:
        return _STD_PATHS[text]
    m = _FD_PATH.match(text)
    return int(m.group(1)) if m else None


def output_kind(path: str | os.PathLike[str]) -> str:
    """How an output path is written: ``"replace"`` (a new or regular file: temporary file, then ``os.replace``),
    ``"descriptor"`` (``/dev/stdout``, ``/dev/fd/N``: this process's own descriptor) or ``"through"`` (an existing
    character device or FIFO, or a link to one: opened and written).

    Raises
    ------
    IsADirectoryError
        The path is a folder.
    OSError
        The path is a block device, a socket or another special file that a report must never be written onto.

    >>> output_kind("/dev/null"), output_kind("/dev/stdout")
    ('through', 'descriptor')
    """
    target = Path(path)
    if _own_descriptor(target) is not None:
        return "descriptor"
    try:
        st = os.stat(target)
    except OSError:  # a new file (or a link to nothing: the link is replaced); a path that cannot be written
        return "replace"  # fails when it is, with the reason
    mode = st.st_mode
    if stat.S_ISREG(mode):
        return "replace"
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, f"output path is a folder: {target}")
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return "through"
    what = "a block device" if stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else "a special file"
    raise OSError(errno.EINVAL, f"output path {target} is {what}; refusing to write a report onto it: give a "
                                "regular file path")


def _write_all(fd: int, payload: bytes) -> None:
    view = memoryview(payload)
    while view:
        n = os.write(fd, view)
        view = view[n:]


class AtomicFiles:
    """Stage outputs in temporary files beside their targets; move them all into place on :meth:`commit`.

    Use it as a context manager: a clean exit commits, an exception discards. Targets that are character
    devices, FIFOs or this process's own descriptors (see :func:`output_kind`) are held in memory and written
    through on :meth:`commit`, never replaced.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> with AtomicFiles() as out:
    ...     _ = out.stage(d / "a.txt", "whole")
    ...     _ = out.stage("/dev/null", "discarded")
    >>> (d / "a.txt").read_text(), sorted(p.name for p in d.iterdir())
    ('whole', ['a.txt'])
    """

    def __init__(self) -> None:
        self._pending: list[tuple[Path | None, Path, bytes | None]] = []

    def stage(self, path: str | os.PathLike[str], data: str | bytes) -> Path:
        """Write ``data`` (text as UTF-8) to a temporary file in the folder of ``path`` (or hold it, for a target
        written through); returns the target."""
        target = Path(path)
        kind = output_kind(target)
        payload = data.encode("utf-8") if isinstance(data, str) else bytes(data)
        if kind != "replace":
            self._pending.append((None, target, payload))
            return target
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name[:40]}.", suffix=".part")
        with _LIVE_LOCK:
            _LIVE.add(tmp_name)
        tmp = Path(tmp_name)
        self._pending.append((tmp, target, None))  # registered first, so that a failure below still removes it
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        try:
            mode = target.stat().st_mode & 0o7777 if target.exists() else _umask_mode()
            os.chmod(tmp, mode)
        except OSError:  # pragma: no cover - a file system without permissions
            pass
        return target

    def commit(self) -> list[Path]:
        """Move every staged file into place (each move is atomic) and write the targets written through;
        returns the targets."""
        done = []
        while self._pending:
            tmp, target, payload = self._pending[0]
            if tmp is None:
                _write_through(target, payload or b"")
            else:
                os.replace(tmp, target)
                with _LIVE_LOCK:
                    _LIVE.discard(str(tmp))
            self._pending.pop(0)
            done.append(target)
        return done

    def discard(self) -> None:
        """Remove every staged temporary file; the targets are left untouched."""
        while self._pending:
            tmp, _, _ = self._pending.pop()
            if tmp is None:
                continue
            with _LIVE_LOCK:
                _LIVE.discard(str(tmp))
            try:
                tmp.unlink()
            except FileNotFoundError:
                pass

    def __enter__(self) -> AtomicFiles:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if exc_type is None:
            try:
                self.commit()
            finally:
                self.discard()
        else:
            self.discard()


def _write_through(target: Path, payload: bytes) -> None:
    """Write ``payload`` to a target that is not a regular file, without replacing it."""
    own = _own_descriptor(target)
    if own is not None:
        import sys

        for stream in (sys.stdout, sys.stderr):  # text written before must come first
            try:
                stream.flush()
            except (AttributeError, ValueError, OSError):
                pass
        _write_all(own, payload)
        return
    if output_kind(target) == "replace":  # it changed since it was staged: write it whole anyway
        write_atomic(target, payload)
        return
    fd = os.open(target, os.O_WRONLY | getattr(os, "O_NOCTTY", 0))
    try:
        _write_all(fd, payload)
    finally:
        os.close(fd)


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> Path:
    """Write one file whole or not at all (temporary file beside it, then ``os.replace``); a device or FIFO is
    written through (see :func:`output_kind`)."""
    with AtomicFiles() as out:
        out.stage(path, data)
    return Path(path)


def _same(a: Path, b: Path) -> bool:
    if a.resolve() == b.resolve():
        return True
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)  # hard links, bind mounts
    except OSError:
        return False


def _is_sink(path: Path) -> bool:
    """A character device such as /dev/null: writing to it twice is harmless."""
    try:
        return stat.S_ISCHR(os.stat(path).st_mode)
    except OSError:
        return False


def check_distinct(inputs: Mapping[str, str | os.PathLike[str] | None],
                   outputs: Mapping[str, str | os.PathLike[str] | None]) -> None:
    """Refuse an output path that is one of the inputs or another output (``ValueError`` naming both), and an
    output that is a folder, a block device or a socket.

    Paths are compared resolved (symbolic links followed) and, where both exist, with ``os.path.samefile`` (hard
    links). Two outputs on one character device (``/dev/null``) are allowed: both are written through.

    Parameters
    ----------
    inputs, outputs : mapping of label -> path
        Labels name the option in the message (``"--real"``); ``None`` paths are skipped.
    """
    ins = [(k, Path(v)) for k, v in inputs.items() if v is not None]
    outs = [(k, Path(v)) for k, v in outputs.items() if v is not None]
    for i, (label, path) in enumerate(outs):
        if path.is_dir():
            raise ValueError(f"{label} {path} is a folder; give a file path")
        try:
            output_kind(path)
        except OSError as exc:
            raise ValueError(f"{label}: {exc.strerror or exc}") from None
        for in_label, in_path in ins:
            if _same(path, in_path):
                raise ValueError(f"{label} {path} is the input file {in_label} {in_path}; refusing to write over "
                                 "an input: choose another output path")
        for other_label, other in outs[:i]:
            if _same(path, other) and not (_is_sink(path) or _own_descriptor(path) is not None):
                raise ValueError(f"{label} {path} is the same file as {other_label} {other}; give each output its "
                                 "own path")
