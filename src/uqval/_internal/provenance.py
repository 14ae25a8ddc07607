"""The provenance of an input file's bytes: what uqval records as a file's SHA-256 is the
digest of the bytes it parsed (:class:`FileBytes`), and a file that changes while it is read
is refused with one line (:func:`changed_error`). Used by the table reader
(:mod:`uqval._internal.tables`), the pipeline's preparation and the archive import."""

from __future__ import annotations

import hashlib
import io
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from uqval._internal.errors import DataError
from uqval._internal.terminal import printable

__all__ = ["FileBytes", "changed_error"]

_CHUNK = 1 << 20


def changed_error(path: Path) -> DataError:
    """The one-line refusal of a file that changed while it was read."""
    return DataError(f"{printable(path, None)}: the file changed while it was being read (another "
                     "program is writing it, or it was replaced); nothing was validated. Run "
                     "again once the file is complete")


class _Hashed(io.RawIOBase):
    """The bytes of an open binary file, hashed as they are read; ``complete`` once the end of
    the file was reached (every byte hashed)."""

    def __init__(self, handle: Any) -> None:
        super().__init__()
        self._handle = handle
        self._digest = hashlib.sha256()
        self.complete = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = self._handle.readinto(buffer)
        if n:
            self._digest.update(memoryview(buffer)[:n])
        elif len(buffer):
            self.complete = True
        return n

    def hexdigest(self) -> str:
        return self._digest.hexdigest()


class FileBytes:
    """The bytes of one input file across the passes of one command (module docstring,
    "Provenance"): :attr:`sha256` is the digest of the bytes read, recorded by the first pass
    that read the whole file; a later whole pass with another digest, or a change of the file's
    identity (inode, size, modification or change time) between or during passes,
    raises :func:`changed_error`.

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = path.write_bytes(b"a,b\\n1,2\\n")
    >>> source = FileBytes(path)
    >>> with source.open() as raw:
    ...     data = raw.read()
    >>> source.sha256 == hashlib.sha256(b"a,b\\n1,2\\n").hexdigest()
    True
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.sha256: str | None = None
        self._identity: tuple[int, ...] | None = None

    def _check(self, info: os.stat_result) -> None:
        # not st_dev: stat and fstat may disagree on it on layered file systems
        identity = (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
        if self._identity is None:
            self._identity = identity
        elif identity != self._identity:
            raise changed_error(self.path)

    def _record(self, digest: str) -> None:
        if self.sha256 is None:
            self.sha256 = digest
        elif digest != self.sha256:
            raise changed_error(self.path)

    def changed(self) -> bool:
        """Whether the file at :attr:`path` is no longer the one first opened."""
        try:
            self._check(os.stat(self.path))
        except (DataError, OSError):
            return True
        return False

    def verify(self) -> None:
        """Raise :func:`changed_error` when the file at :attr:`path` is no longer the one
        first opened (checked after a library read it by its path: Parquet)."""
        if self.changed():
            raise changed_error(self.path)

    @contextmanager
    def open(self, *, whole_first: bool = False) -> Iterator[Any]:
        """A binary reader of the file's bytes, hashed as they are read; with ``whole_first``
        a seekable handle hashed by one sequential pass first (zip files)."""
        with self.path.open("rb") as handle:
            self._check(os.fstat(handle.fileno()))
            hashed: _Hashed | None
            if whole_first:
                first = _Hashed(handle)
                while first.read(_CHUNK):
                    pass
                self._record(first.hexdigest())
                handle.seek(0)
                reader: Any = handle
                hashed = None
            else:
                hashed = _Hashed(handle)
                reader = io.BufferedReader(hashed, _CHUNK)
            try:
                yield reader
            except Exception:
                if self.changed():  # a parse error caused by a change: say so instead
                    raise changed_error(self.path) from None
                raise
            self._check(os.fstat(handle.fileno()))
            if hashed is not None and hashed.complete:
                self._record(hashed.hexdigest())

    def hash_whole(self) -> str:
        """Hash the whole file once (a pass of its own): the digest later passes must give."""
        with self.open() as reader:
            while reader.read(_CHUNK):
                pass
        assert self.sha256 is not None
        return self.sha256
