"""What each run wrote to an output folder, so that a reused ``--out`` holds no stale file.

After its files are in place (:func:`uqval.report.files.write_outputs` moves them there from
its staging folder), a run lists their names in ``.uqval-manifest`` (one per line) and
removes the files that the previous run listed but this one did not write (a figure of a
feature no longer given, ``dominant_rows.csv`` of an earlier run, ...). Only plain file
names listed by uqval in that folder are ever removed: never a file uqval did not write,
never a path with a separator, a hidden name (``.``...), a symbolic link or a folder.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from uqval._internal.atomic import write_text

__all__ = ["MANIFEST", "replace_previous_outputs"]

MANIFEST = ".uqval-manifest"
"""Name of the list of files the last run wrote, in the output folder."""
_MAX_MANIFEST_BYTES = 1 << 20  # a larger manifest was not written by uqval: ignored


def _listed(directory: Path) -> set[str]:
    path = directory / MANIFEST
    if not path.is_file() or path.stat().st_size > _MAX_MANIFEST_BYTES:
        return set()
    names = path.read_text(encoding="utf-8", errors="replace").splitlines()
    return {n for n in names if n and "/" not in n and "\\" not in n and not n.startswith(".")}


def replace_previous_outputs(directory: Path, written: Iterable[Path]) -> list[Path]:
    """Remove the previous run's files that this run did not write; record this run's.

    Returns the removed paths.

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / "a.png").write_text("1"); _ = (d / "b.png").write_text("2")
    >>> replace_previous_outputs(d, [d / "a.png", d / "b.png"])
    []
    >>> [p.name for p in replace_previous_outputs(d, [d / "a.png"])]
    ['b.png']
    """
    directory = Path(directory)
    now = {Path(p).name for p in written}
    removed = []
    for name in sorted(_listed(directory) - now):
        path = directory / name
        if path.is_file() and not path.is_symlink():
            path.unlink()
            removed.append(path)
    write_text(directory / MANIFEST, "".join(f"{n}\n" for n in sorted(now)))
    return removed
