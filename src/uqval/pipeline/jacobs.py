"""The Jacobs et al. (2024) sets in one command: ``python -m uqval.pipeline.jacobs ARCHIVE``.

The 33 materials datasets of the heavy-tails paper (family ``JAC2024``,
``config/literature/JAC2024.yaml``) are published as one FigShare deposit: a folder per dataset
holding ``residuals_leaveout.csv`` (errors) and ``model_errors_leaveout_calibrated.csv``
(uncertainties). Download the deposit (a zip file, or unpack it into a folder) and run::

    python -m uqval.pipeline.jacobs ~/Downloads/JAC2024.zip

The command

1. checks the layout against the family file: every folder the family lists (33) with its
   two files, under one common prefix of the archive (a wrapping top folder is allowed);
   missing folders or files are listed and nothing is written;
2. copies the 66 files to a mirror folder (default ``data/archives``, laid out like the data
   root: ``data/archives/JAC2024/<folder>/<file>``), each written atomically;
3. records their SHA-256 digests in a lock file beside the family file
   (``config/literature/JAC2024.lock``), with the mirror folder and ``enabled: true``.

From then on the registry takes the pins of the lock file (:func:`apply_lock`; a digest that
contradicts one pinned in the YAML is an error) and enables the family; the workflow copies
each file from the mirror into ``data/raw/`` verifying its digest, and every preparation
verifies it again, so a file changed later is refused.

The archive is untrusted input: zip member names must be relative paths without ``..``,
backslashes or drive letters (the files are written under names taken from the family file,
never from the archive), symbolic links are refused, only the 66 expected members are read,
and each may hold at most :data:`MAX_FILE_BYTES` (counted while copying, whatever size the
archive declares), :data:`MAX_TOTAL_BYTES` in all; an archive listing more than
:data:`MAX_MEMBERS` entries is refused. In a folder, symbolic links are refused too.

All or nothing: the files are copied into a hidden staging folder inside the mirror
(``.jacobs-import-<pid>-<random>``) and moved into place only when every one was read whole;
a member that cannot be read (a bad CRC, a truncated or corrupt archive, an unknown
compression method, an encrypted member) stops the import with one line naming it (exit code
2), and the staging folder, with every file copied before it, is removed (folders the import
created are removed too). The archive's own SHA-256 in the lock is that of the bytes read:
it is hashed through the handle the members are then read from, and an archive that changes
meanwhile is refused.
"""

from __future__ import annotations

import argparse
import hashlib
import lzma
import os
import re
import shutil
import stat
import sys
import tempfile
import zipfile
import zlib
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Any

import yaml

from uqval._internal.atomic import pid_alive, write_text
from uqval._internal.errors import ConfigError, DataError
from uqval._internal.tables import FileBytes, printable
from uqval.pipeline.registry import LOCK_SUFFIX, apply_lock, load_yaml, lock_path

__all__ = [
    "FAMILY",
    "LOCK_SUFFIX",
    "MAX_FILE_BYTES",
    "MAX_MEMBERS",
    "MAX_TOTAL_BYTES",
    "ArchiveLayout",
    "apply_lock",
    "expected_layout",
    "install_archive",
    "lock_path",
    "main",
]

FAMILY = "JAC2024"
MAX_FILE_BYTES = 512 << 20
"""Largest file copied from the archive (the largest Jacobs file is a few MB)."""
MAX_TOTAL_BYTES = 4 << 30
"""Largest total copied from the archive."""
MAX_MEMBERS = 100_000
"""Most entries an archive may list."""
_CHUNK = 1 << 20
STAGING_PREFIX = ".jacobs-import-"
"""Prefix of the hidden folder inside the mirror that an import copies into first."""
# what reading a zip member raises on a bad CRC, a truncation, a corrupt stream, an unknown
# method (NotImplementedError) or an encrypted member (RuntimeError)
_MEMBER_ERRORS = (zipfile.BadZipFile, EOFError, zlib.error, lzma.LZMAError,
                  NotImplementedError, RuntimeError, ValueError)


@dataclass(frozen=True)
class ArchiveLayout:
    """What the family file expects: ``files`` maps each registered path
    (``JAC2024/<folder>/<file>``) to its path inside a dataset folder (``<folder>/<file>``);
    ``folders`` lists the dataset folders."""

    family_file: Path
    files: dict[str, str]
    folders: tuple[str, ...]


def expected_layout(family_file: str | Path, family: str = FAMILY) -> ArchiveLayout:
    """The :class:`ArchiveLayout` of the family file (its ``files[].path`` entries)."""
    doc = load_yaml(family_file)
    if not isinstance(doc, dict) or doc.get("family") != family:
        raise ConfigError(f"{family_file}: not the {family} family file")
    files = {}
    for f in doc.get("files", []):
        rel = PurePosixPath(str(f.get("path", "")))
        if len(rel.parts) != 3 or rel.parts[0] != family:
            raise ConfigError(f"{family_file}: files[].path '{printable(rel)}' is not "
                              f"{family}/<folder>/<file>")
        files[str(rel)] = "/".join(rel.parts[1:])
    folders = tuple(sorted({inner.split("/")[0] for inner in files.values()}))
    return ArchiveLayout(Path(family_file), files, folders)


def _safe_member(name: str) -> str | None:
    """A zip member name as a relative POSIX path, or None when it is unsafe (absolute, with
    ``..``, backslashes, a drive letter or control characters) or a folder."""
    if (not name or name.startswith("/") or "\\" in name or re.match(r"^[A-Za-z]:", name)
            or any(ord(c) < 32 for c in name)):
        return None
    parts = [p for p in name.split("/") if p]
    if any(p in (".", "..") for p in parts) or name.endswith("/"):
        return None
    return "/".join(parts)


class _Source:
    """The archive: a zip file or a folder, listed once, read member by member."""

    def __init__(self, archive: Path) -> None:
        self.archive = archive
        self.zip: zipfile.ZipFile | None = None
        self.members: dict[str, Any] = {}
        self.unsafe = 0
        self.sha256: str | None = None
        """The zip file's SHA-256, of the bytes the members are read from."""
        self._raw: FileBytes | None = None
        self._stack: Any = None
        if archive.is_dir():
            self._list_folder()
        elif archive.is_file():
            from contextlib import ExitStack

            self._raw = FileBytes(archive)
            self._stack = ExitStack()
            try:  # hashed whole, then read (by seeking) through the same unchanged handle
                handle = self._stack.enter_context(self._raw.open(whole_first=True))
                self.sha256 = self._raw.sha256
                self.zip = zipfile.ZipFile(handle)
            except (zipfile.BadZipFile, OSError, EOFError) as exc:
                self._stack.close()
                raise DataError(f"{printable(archive, None)}: not a zip archive nor a folder "
                                f"({printable(exc, 120)})") from None
            infos = self.zip.infolist()
            if len(infos) > MAX_MEMBERS:
                raise DataError(f"{printable(archive, None)}: lists {len(infos)} entries, more "
                                f"than {MAX_MEMBERS}; not the FigShare deposit")
            for info in infos:
                name = _safe_member(info.filename)
                if name is None:
                    self.unsafe += not info.filename.endswith("/")
                    continue
                self.members[name] = info
        else:
            raise DataError(f"{printable(archive, None)}: not found (give the downloaded zip "
                            "file or the folder it unpacks to)")

    def _list_folder(self) -> None:
        root = self.archive
        count = 0
        for folder, dirs, names in os.walk(root):  # symbolic links to folders are not entered
            for name in names:
                count += 1
                if count > MAX_MEMBERS:
                    raise DataError(f"{printable(root, None)}: holds more than {MAX_MEMBERS} "
                                    "files; not the FigShare deposit")
                path = Path(folder) / name
                self.members[path.relative_to(root).as_posix()] = path
            dirs.sort()

    def check_member(self, name: str) -> None:
        """Refuse a symbolic link or an oversized member before reading it."""
        member = self.members[name]
        where = f"{printable(self.archive, None)}: {printable(name, None)}"
        if self.zip is None:
            info = os.lstat(member)
            if stat.S_ISLNK(info.st_mode) or not stat.S_ISREG(info.st_mode):
                raise DataError(f"{where}: a symbolic link or not a regular file; refused")
            size = info.st_size
        else:
            if stat.S_ISLNK(member.external_attr >> 16):
                raise DataError(f"{where}: a symbolic link inside the zip file; refused")
            size = member.file_size
        if size > MAX_FILE_BYTES:
            raise DataError(f"{where}: {size} bytes, more than the {MAX_FILE_BYTES} allowed for "
                            "one file; not the FigShare deposit")

    @contextmanager
    def open(self, name: str) -> Iterator[IO[bytes]]:
        member = self.members[name]
        if self.zip is None:
            with open(member, "rb") as handle:
                yield handle
        else:
            with self.zip.open(member) as handle:
                yield handle

    def close_quietly(self) -> None:
        """Close the archive after a failure (whose error is the one to report)."""
        try:
            self.close()
        except (DataError, OSError):
            pass

    def close(self) -> None:
        """Close the archive; DataError when the zip file changed while it was read."""
        if self.zip is not None:
            self.zip.close()
        if self._stack is not None:
            self._stack.close()
            self._stack = None


def _find_prefix(source: _Source, layout: ArchiveLayout) -> tuple[str, list[str]]:
    """The common prefix under which the most expected files are found, and those missing."""
    wanted = list(layout.files.values())
    names = source.members
    prefixes: set[str] = set()
    for name in names:
        for inner in wanted:
            if name == inner or name.endswith("/" + inner):
                prefixes.add(name[: len(name) - len(inner)])
    if not prefixes:
        prefixes.add("")
    best = max(sorted(prefixes, key=len),
               key=lambda p: sum(p + inner in names for inner in wanted))
    missing = [inner for inner in wanted if best + inner not in names]
    return best, missing


def _missing_text(missing: list[str], layout: ArchiveLayout, source: _Source) -> str:
    by_folder: dict[str, list[str]] = {}
    for inner in missing:
        folder, _, file = inner.partition("/")
        by_folder.setdefault(folder, []).append(file)
    whole = [f for f, files in by_folder.items()
             if len(files) == sum(1 for i in layout.files.values() if i.startswith(f + "/"))]
    parts = []
    if whole:
        parts.append(f"{len(whole)} folder(s) missing: {', '.join(whole[:8])}"
                     + (", ..." if len(whole) > 8 else ""))
    partial = [f"{f}/{', '.join(files)}" for f, files in by_folder.items() if f not in whole]
    if partial:
        parts.append("file(s) missing: " + "; ".join(partial[:8])
                     + ("; ..." if len(partial) > 8 else ""))
    folded = {n.casefold(): n for n in source.members}
    hints = [folded[i.casefold()] for i in missing if i.casefold() in folded][:1]
    hint = (f" (names differ in case, e.g. '{printable(hints[0])}': the archive is not the "
            "published one)") if hints else ""
    unsafe = (f"; {source.unsafe} entries with unsafe names (absolute, '..', backslashes) "
              "were ignored") if source.unsafe else ""
    return "; ".join(parts) + hint + unsafe


def _copy(source: _Source, name: str, dest: Path, budget: list[int]) -> str:
    """Copy one member to ``dest`` (in the staging folder), counting bytes; its SHA-256. A
    member that cannot be read whole raises a one-line DataError naming it."""
    where = f"{printable(source.archive, None)}: {printable(name, None)}"
    digest = hashlib.sha256()
    copied = 0
    try:
        with source.open(name) as handle, open(dest, "xb") as out:
            while block := handle.read(_CHUNK):
                copied += len(block)
                budget[0] -= len(block)
                if copied > MAX_FILE_BYTES:
                    raise DataError(f"{where}: expands beyond {MAX_FILE_BYTES} bytes; refused")
                if budget[0] < 0:
                    raise DataError(f"{where}: the files copied exceed {MAX_TOTAL_BYTES} bytes "
                                    "in all; refused")
                digest.update(block)
                out.write(block)
    except _MEMBER_ERRORS as exc:
        reason = printable(str(exc).strip() or type(exc).__name__, 160)
        raise DataError(f"{where}: cannot be read from the archive ({reason}): a corrupt or "
                        "truncated download? Download the deposit again; nothing was "
                        "written") from None
    return digest.hexdigest()


def _remove_stale_staging(mirror: Path) -> None:
    """Remove the staging folders of imports whose process no longer runs (killed)."""
    try:
        entries = list(os.scandir(mirror))
    except OSError:
        return
    for entry in entries:
        found = re.match(re.escape(STAGING_PREFIX) + r"(\d+)-", entry.name)
        if found and entry.is_dir(follow_symlinks=False) and not pid_alive(int(found[1])):
            shutil.rmtree(entry.path, ignore_errors=True)


def _created_folders(folder: Path) -> list[Path]:
    """``folder`` and its parents that do not exist yet, deepest first."""
    missing = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing


def install_archive(archive: str | Path, family_file: str | Path,
                    mirror: str | Path = "data/archives") -> Path:
    """Check the archive's layout, copy its files under ``mirror`` and write the lock file
    beside ``family_file`` (module docstring); return the lock file's path.

    Raises DataError naming what is missing, unsafe or unreadable; nothing is written unless
    every file was read whole (module docstring, "All or nothing").
    """
    layout = expected_layout(family_file)
    mirror = Path(mirror).resolve()
    source = _Source(Path(archive).expanduser())
    created = _created_folders(mirror)
    staging: Path | None = None
    try:
        prefix, missing = _find_prefix(source, layout)
        n_files, n_folders = len(layout.files), len(layout.folders)
        if missing:
            raise DataError(
                f"{printable(archive, None)}: not the layout of {layout.family_file.name} "
                f"({n_folders} folders, {n_files} files; {len(missing)} not found under "
                f"'{printable(prefix) or '(top level)'}'): "
                f"{_missing_text(missing, layout, source)}; nothing was written")
        for inner in layout.files.values():
            source.check_member(prefix + inner)
        mirror.mkdir(parents=True, exist_ok=True)
        _remove_stale_staging(mirror)
        staging = Path(tempfile.mkdtemp(prefix=f"{STAGING_PREFIX}{os.getpid()}-", dir=mirror))
        budget = [MAX_TOTAL_BYTES]
        digests = {}
        for rel, inner in layout.files.items():
            staged = staging / PurePosixPath(rel)
            staged.parent.mkdir(parents=True, exist_ok=True)
            digests[rel] = _copy(source, prefix + inner, staged, budget)
        source.close()  # the zip file must not have changed while it was read
        for rel in layout.files:  # every file read whole: move them into place
            dest = mirror / PurePosixPath(rel)
            dest.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staging / PurePosixPath(rel), dest)
    except BaseException:
        source.close_quietly()
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
        for folder in created:  # deepest first; only if still empty
            try:
                folder.rmdir()
            except OSError:
                break
        raise
    shutil.rmtree(staging, ignore_errors=True)
    lock = {
        "family": FAMILY, "enabled": True, "mirror": str(mirror),
        "archive": {"name": Path(archive).name, "sha256": source.sha256},
        "files": digests,
    }
    text = ("# Written by `python -m uqval.pipeline.jacobs`: the SHA-256 of each file of the\n"
            "# Jacobs et al. (2024) archive and the folder they were copied to. Every run\n"
            "# verifies the files against these digests. Delete this file to disable the family.\n"
            + yaml.safe_dump(lock, sort_keys=False))
    return write_text(lock_path(family_file), text)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m uqval.pipeline.jacobs ARCHIVE [--family-file F] [--mirror DIR]``."""
    parser = argparse.ArgumentParser(
        prog="python -m uqval.pipeline.jacobs",
        description="Install the downloaded FigShare archive of the Jacobs et al. (2024) sets: "
        "check its layout, copy the files to a mirror folder, pin their SHA-256 in a lock file "
        "beside the family file and enable the family.")
    parser.add_argument("archive", type=Path, help="the downloaded zip file, or its folder")
    parser.add_argument("--family-file", type=Path,
                        default=Path(__file__).resolve().parents[3] / "config" / "literature"
                        / f"{FAMILY}.yaml",
                        help="the family file (default: config/literature/JAC2024.yaml of uqval)")
    parser.add_argument("--mirror", type=Path, default=Path("data/archives"),
                        help="folder the files are copied to (default: data/archives)")
    args = parser.parse_args(argv)
    try:
        lock = install_archive(args.archive, args.family_file, args.mirror)
    except (DataError, ConfigError, OSError, *_MEMBER_ERRORS) as exc:
        if isinstance(exc, (DataError, ConfigError)):
            text = str(exc)
        elif isinstance(exc, OSError):
            text = f"{exc.filename}: {exc.strerror}"
        else:  # a reading error outside a member's copy: still one line
            text = f"{args.archive}: cannot be read ({type(exc).__name__}: {exc})"
        print(f"uqval: error: {printable(text.replace(chr(10), ' '), None)}", file=sys.stderr)
        return 2
    layout = expected_layout(args.family_file)
    print(f"{len(layout.folders)} Jacobs sets ({len(layout.files)} files) verified and copied "
          f"to {args.mirror.resolve()}; SHA-256 pinned in {lock}; family {FAMILY} enabled.")
    print("Every run verifies the files against the lock file; e.g. "
          "`snakemake --cores 2 all`.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
