"""Files written whole or not at all: a temporary file beside each target, moved into place with ``os.replace``.

:class:`AtomicFiles` stages several outputs and moves them into place only when every one of them is complete;
an exception (``KeyboardInterrupt`` included) removes the temporary files and leaves the previous files as they
were. :func:`check_distinct` refuses an output path that is also an input or another output.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType

__all__ = ["AtomicFiles", "check_distinct", "write_atomic"]


def _umask_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


class AtomicFiles:
    """Stage outputs in temporary files beside their targets; move them all into place on :meth:`commit`.

    Use it as a context manager: a clean exit commits, an exception discards.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> with AtomicFiles() as out:
    ...     _ = out.stage(d / "a.txt", "whole")
    >>> (d / "a.txt").read_text(), sorted(p.name for p in d.iterdir())
    ('whole', ['a.txt'])
    """

    def __init__(self) -> None:
        self._pending: list[tuple[Path, Path]] = []

    def stage(self, path: str | os.PathLike[str], data: str | bytes) -> Path:
        """Write ``data`` (text as UTF-8) to a temporary file in the folder of ``path``; returns the target."""
        target = Path(path)
        if target.is_dir():
            raise IsADirectoryError(f"output path is a folder: {target}")
        target.parent.mkdir(parents=True, exist_ok=True)
        payload = data.encode("utf-8") if isinstance(data, str) else bytes(data)
        fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name[:40]}.", suffix=".part")
        tmp = Path(tmp_name)
        self._pending.append((tmp, target))  # registered first, so that a failure below still removes it
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
        """Move every staged file into place (each move is atomic); returns the targets."""
        done = []
        while self._pending:
            tmp, target = self._pending[0]
            os.replace(tmp, target)
            self._pending.pop(0)
            done.append(target)
        return done

    def discard(self) -> None:
        """Remove every staged temporary file; the targets are left untouched."""
        while self._pending:
            tmp, _ = self._pending.pop()
            try:
                tmp.unlink()
            except FileNotFoundError:
                pass

    def __enter__(self) -> "AtomicFiles":
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


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> Path:
    """Write one file whole or not at all (temporary file beside it, then ``os.replace``)."""
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


def check_distinct(inputs: Mapping[str, str | os.PathLike[str] | None],
                   outputs: Mapping[str, str | os.PathLike[str] | None]) -> None:
    """Refuse an output path that is one of the inputs or another output (``ValueError`` naming both).

    Paths are compared resolved (symbolic links followed) and, where both exist, with ``os.path.samefile`` (hard
    links).

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
        for in_label, in_path in ins:
            if _same(path, in_path):
                raise ValueError(f"{label} {path} is the input file {in_label} {in_path}; refusing to write over "
                                 "an input: choose another output path")
        for other_label, other in outs[:i]:
            if _same(path, other):
                raise ValueError(f"{label} {path} is the same file as {other_label} {other}; give each output its "
                                 "own path")


