"""Writing a report's files: the one output writer of ``uqval validate`` and ``uqval compare``
(:func:`uqval.report.validation.save_all`, :func:`uqval.report.comparison.save_all`).

* :func:`check_output_folder` refuses, before anything is computed, an output folder that is
  an existing file, that is or contains one of the input files, that cannot be created or
  written (permissions, read-only file system), or whose name is too long.
* :func:`unique_names` gives every variable a distinct file-name stem, even when their
  :func:`safe_name` is equal (``a b`` and ``a_b``) or differs only in case.
* :func:`csv_safe` keeps untrusted text as text in CSV files opened by a spreadsheet.
* :func:`write_outputs` writes every file into a hidden staging folder inside the output
  folder (``.uqval-staging-<host>-<pid>-<random>``) and moves them into place only when all
  are written, ``report.html`` last, then records them in the manifest and removes the previous
  run's files this run did not write (:mod:`uqval.report.manifest`). An interruption before
  the moves (while figures, tables or the page are written) leaves the previous report as it
  was; the staging folder is removed (a SIGKILLed run's is removed by the next save in that
  folder). Only an interruption during the moves themselves (one rename per file, a few
  milliseconds) can leave new files beside old ones; then ``report.html`` is still the old
  page (it is moved last) and the next save replaces everything.

Write failures raise :class:`OutputError` (an :class:`OSError` and a
:class:`uqval._internal.errors.UqvalError`) with one line naming the folder and the reason.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import socket
import tempfile
from collections.abc import Callable, Iterable, Sequence
from contextlib import suppress
from pathlib import Path

import pandas as pd

from uqval._internal.atomic import pid_alive
from uqval._internal.errors import UqvalError
from uqval._internal.tables import printable
from uqval.report.content import FigureSection
from uqval.report.manifest import replace_previous_outputs

__all__ = [
    "PAGE",
    "STAGING_PREFIX",
    "OutputError",
    "check_output_folder",
    "csv_safe",
    "describe_names",
    "safe_name",
    "unique_names",
    "write_outputs",
]

PAGE = "report.html"
"""The report's page, moved into place last."""
STAGING_PREFIX = ".uqval-staging-"
"""Prefix of the hidden folder a save writes into before moving the files into place."""
MAX_STEM = 100
"""Longest file-name stem of a variable (longer names are cut and get a hash suffix)."""

_HOST = re.sub(r"[^A-Za-z0-9_]", "_", socket.gethostname())[:40] or "host"
_STAGING = re.compile(rf"^{re.escape(STAGING_PREFIX)}(?P<host>[A-Za-z0-9_]+)-(?P<pid>\d+)-")
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
_FORMULA_START = ("=", "@", "\t", "\r")


class OutputError(UqvalError, OSError):
    """The report cannot be written where asked (exit code 3 of the command line)."""


# --- the output folder ------------------------------------------------------------------------


def _name_max(folder: Path) -> int:
    try:
        return int(os.pathconf(folder, "PC_NAME_MAX"))
    except (OSError, ValueError, AttributeError):
        return 255


def _nearest_existing(path: Path) -> tuple[Path, list[str]]:
    """The longest existing leading part of ``path`` and the names that follow it."""
    parts = path.absolute().parts
    existing, i = Path(parts[0]), 1
    while i < len(parts):
        candidate = existing / parts[i]
        try:
            if not candidate.exists():
                break
        except OSError:  # e.g. a name too long
            break
        existing, i = candidate, i + 1
    return existing, list(parts[i:])


def check_output_folder(out: str | Path, inputs: Sequence[str | Path] = ()) -> Path:
    """Raise :class:`OutputError` unless the report can be written to the folder ``out``.

    Refused: ``out`` is an existing file or a broken link; ``out`` is, or contains (at any
    depth), one of ``inputs``; a folder name longer than the file system allows; no folder
    can be created or written where ``out`` is (tried by creating and removing a temporary
    folder in ``out`` or its nearest existing parent). Nothing is left behind. Returns ``out``.
    """
    out = Path(out)
    shown = printable(out, None)
    existing, missing = _nearest_existing(out)
    limit = _name_max(existing) if existing.is_dir() else 255
    for name in missing:
        if len(os.fsencode(name)) > limit:
            raise OutputError(f"{shown}: the name '{printable(name)}' is longer than the "
                              f"{limit} bytes the file system allows")
    try:
        if missing and os.path.islink(existing / missing[0]):
            raise OutputError(f"{shown}: {printable(existing / missing[0], None)} is a broken "
                              "symbolic link")
        if not existing.is_dir():
            raise OutputError(f"{shown}: the output folder is an existing file; choose a folder"
                              if not missing else
                              f"{shown}: {printable(existing, None)} is a file, not a folder")
        targets = {out.absolute(), out.resolve()}
        for given in inputs:
            path = Path(given)
            for candidate in {path.absolute(), path.resolve()}:
                if any(candidate == t or t in candidate.parents for t in targets):
                    raise OutputError(
                        f"{shown}: the output folder contains the input file "
                        f"{printable(path, None)}; choose another folder (the report could "
                        "replace or remove files there)")
        os.rmdir(tempfile.mkdtemp(prefix=".uqval-write-test-", dir=existing))
    except OutputError:
        raise
    except OSError as exc:
        where = "" if not missing else f" (in {printable(existing, None)})"
        raise OutputError(f"{shown}: cannot write the report there: "
                          f"{printable(exc.strerror or exc, 200)}{where}") from None
    return out


# --- file names -------------------------------------------------------------------------------


def safe_name(name: str) -> str:
    """A file-name-safe version of a variable name (letters, digits, ``-``, ``_``, ``.``);
    names longer than :data:`MAX_STEM` are cut and end with 8 hex digits of their SHA-256.

    >>> safe_name("a b/c")
    'a_b_c'
    """
    stem = _UNSAFE.sub("_", str(name)).strip("_") or "variable"
    if len(stem) > MAX_STEM:
        digest = hashlib.sha256(str(name).encode("utf-8", "surrogatepass")).hexdigest()[:8]
        stem = f"{stem[: MAX_STEM - 9]}-{digest}"
    return stem


def unique_names(names: Iterable[str], reserved: Iterable[str] = ()) -> dict[str, str]:
    """Distinct file-name stems for ``names`` (compared without case, as on macOS or Windows),
    none equal to a ``reserved`` stem.

    A name keeps its :func:`safe_name` when no other name has the same one; among names that
    share it, the one already equal to it (else the first) keeps it and the others get
    ``-2``, ``-3``, ... (skipping stems taken by other names).

    >>> unique_names(["a b", "a_b", "T"])
    {'a b': 'a_b-2', 'a_b': 'a_b', 'T': 'T'}
    >>> unique_names(["uE"], reserved=["uE"])
    {'uE': 'uE-2'}
    """
    ordered = list(dict.fromkeys(str(n) for n in names))
    stems = {n: safe_name(n) for n in ordered}
    groups: dict[str, list[str]] = {}
    for n in ordered:
        groups.setdefault(stems[n].casefold(), []).append(n)
    taken = {str(r).casefold() for r in reserved}
    chosen: dict[str, str] = {}
    for key, members in groups.items():
        if key not in taken:
            keeper = next((m for m in members if m == stems[m]), members[0])
            chosen[keeper] = stems[keeper]
            taken.add(key)
    for n in ordered:
        if n not in chosen:
            k = 2
            while f"{stems[n]}-{k}".casefold() in taken:
                k += 1
            chosen[n] = f"{stems[n]}-{k}"
            taken.add(chosen[n].casefold())
    return {n: chosen[n] for n in ordered}


def describe_names(mapping: dict[str, str]) -> str:
    """The entries of a :func:`unique_names` mapping whose stem differs from the name, as
    ``name → stem`` text for the report ('' when every name is its own stem)."""
    return "; ".join(f"{printable(name, 60)} → {stem}" for name, stem in mapping.items()
                     if stem != name)


# --- CSV cells --------------------------------------------------------------------------------


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


_CSV_CONTROL = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
"""Control characters removed from CSV cells (a terminal would run an escape sequence); tab,
line feed and carriage return are kept (quoted by the CSV writer)."""


def _safe_cell(value: object) -> object:
    if not isinstance(value, str) or not value:
        return value
    value = _CSV_CONTROL.sub("", value)
    if not value:
        return value
    if value.startswith(_FORMULA_START) or (value[0] in "+-" and not _is_number(value)):
        return "'" + value
    return value


def _safe_index(index: pd.Index) -> pd.Index:
    if isinstance(index, pd.MultiIndex):
        return pd.MultiIndex.from_tuples(
            [tuple(_safe_cell(v) for v in entry) for entry in index],
            names=[_safe_cell(n) for n in index.names])
    name = _safe_cell(index.name)
    if index.dtype == object or pd.api.types.is_string_dtype(index.dtype):
        return pd.Index([_safe_cell(v) for v in index], name=name, dtype=object)
    return index.rename(name)


def csv_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` whose text cells (values, column names, index) cannot be taken for
    a formula by a spreadsheet: text starting with ``=``, ``@``, a tab or a carriage return,
    or with ``+``/``-`` and not a number, gets a leading ``'``; control characters other than
    tab and line breaks (escape sequences of a terminal) are removed. Numbers are untouched.

    >>> table = pd.DataFrame({"name": ["=1+1", "-x", "-1.5", "ok"], "v": [1.0, -2.0, 3, 4]})
    >>> csv_safe(table)["name"].tolist(), csv_safe(table)["v"].tolist()
    (["'=1+1", "'-x", '-1.5', 'ok'], [1.0, -2.0, 3.0, 4.0])
    """
    out = frame.copy()
    for j in range(out.shape[1]):
        column = out.iloc[:, j]
        if column.dtype == object or pd.api.types.is_string_dtype(column.dtype) or isinstance(
                column.dtype, pd.CategoricalDtype):
            out.isetitem(j, column.map(_safe_cell))
    out.columns = _safe_index(out.columns)
    out.index = _safe_index(out.index)
    return out


# --- writing ----------------------------------------------------------------------------------


def _remove_stale_staging(directory: Path) -> None:
    """Remove the staging folders of killed saves of this host in ``directory``."""
    with suppress(OSError):
        for entry in os.scandir(directory):
            m = _STAGING.match(entry.name)
            if (m and m["host"] == _HOST and entry.is_dir(follow_symlinks=False)
                    and int(m["pid"]) != os.getpid() and not pid_alive(int(m["pid"]))):
                shutil.rmtree(entry.path, ignore_errors=True)


def _commit(stage: Path, directory: Path, names: list[str]) -> None:
    for name in names:
        target = directory / name
        if target.is_dir() and not target.is_symlink():
            raise OutputError(f"{printable(directory, None)}: cannot write {printable(name)}: "
                              "a folder of that name is in the way")
    for name in sorted(names, key=lambda n: n == PAGE):  # the page last
        os.replace(stage / name, directory / name)
    replace_previous_outputs(directory, [directory / n for n in names])


def write_outputs(
    directory: str | Path,
    files: Sequence[tuple[str, str]],
    figures: Sequence[tuple[str, FigureSection]],
    write_page: Callable[[Path], Path],
    inputs: Sequence[str | Path] = (),
) -> list[Path]:
    """Write ``files`` (name, text), each figure as ``<stem>.png`` and the page (``write_page``
    called with the path of ``report.html``) to ``directory``, all or nothing (module
    docstring); ``inputs`` are the input files the folder must not contain. Returns the
    paths written."""
    directory = check_output_folder(directory, inputs)
    names = [name for name, _ in files] + [f"{stem}.png" for stem, _ in figures] + [PAGE]
    if len({n.casefold() for n in names}) != len(names):
        raise ValueError(f"two output files share a name: {names}")
    try:
        directory.mkdir(parents=True, exist_ok=True)
        _remove_stale_staging(directory)
        stage = Path(tempfile.mkdtemp(prefix=f"{STAGING_PREFIX}{_HOST}-{os.getpid()}-",
                                      dir=directory))
        try:
            for name, text in files:
                (stage / name).write_text(text, encoding="utf-8")
            for stem, section in figures:
                (stage / f"{stem}.png").write_bytes(section.png)
            write_page(stage / PAGE)
            _commit(stage, directory, names)
        finally:
            shutil.rmtree(stage, ignore_errors=True)
    except OutputError:
        raise
    except OSError as exc:
        what = f" ({printable(exc.filename, 80)})" if exc.filename else ""
        raise OutputError(f"{printable(directory, None)}: cannot write the report: "
                          f"{printable(exc.strerror or exc, 200)}{what}") from None
    return [directory / n for n in names]
