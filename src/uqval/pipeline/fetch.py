"""Verified retrieval of raw data files.

Sources are tried in order: each mirror directory (a local copy laid out like the data root,
e.g. ``../shared/data``), then the upstream URL (streamed, with retries and a timeout). The
SHA-256 is verified whichever way the file came, and the destination is written atomically, so
a failed or corrupted transfer never leaves a file under ``data/``. A mirror copy with the wrong
digest is skipped (and reported) and the next mirror, then the URL, is tried.

The registered path is checked again here (no ``..``, absolute path or backslash) and the
joined paths must stay inside the mirror root and, when given, the data root.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from uqval._internal.atomic import atomic_path
from uqval._internal.errors import ConfigError, FetchError
from uqval.pipeline.registry import RegisteredFile, resolve_under

__all__ = ["MIRROR_ENV_VAR", "FetchResult", "configured_mirrors", "fetch_file", "sha256_file"]

MIRROR_ENV_VAR = "UQVAL_DATA_MIRROR"
_CHUNK = 1 << 20


def sha256_file(path: str | Path) -> str:
    """Hex SHA-256 digest of a file, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for block in iter(lambda: fh.read(_CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


@dataclass(frozen=True)
class FetchResult:
    """Where a file came from (``mirror:DIR`` or the URL) and its verified digest."""

    source: str
    sha256: str


def _copy_file(source: Path, dest: Path) -> None:
    shutil.copyfile(source, dest)


def _download_to(url: str, timeout: float, dest: Path) -> None:
    with urllib.request.urlopen(url, timeout=timeout) as resp, dest.open("wb") as out:
        shutil.copyfileobj(resp, out, _CHUNK)


def configured_mirrors(config_value: str | None) -> list[Path]:
    """Mirror directories from the ``data_mirror`` setting and the UQVAL_DATA_MIRROR variable,
    as absolute normalised paths without duplicates."""
    out: list[Path] = []
    for m in (config_value, os.environ.get(MIRROR_ENV_VAR)):
        if m:
            path = Path(os.path.expanduser(m)).resolve()
            if path not in out:
                out.append(path)
    return out


class _Mismatch(Exception):
    """Internal: a copy has the wrong digest (aborts the atomic write)."""


def _copy_verified(entry: RegisteredFile, copy: Callable[[Path], None], dest: Path) -> str:
    """Write ``dest`` through ``copy(tmp)`` if the copy has the pinned digest; else raise
    _Mismatch with the digest found (nothing is written)."""
    with atomic_path(dest) as tmp:
        copy(tmp)
        digest = sha256_file(tmp)
        if digest != entry.sha256:
            raise _Mismatch(digest)
    return digest


def fetch_file(
    entry: RegisteredFile,
    dest: str | Path,
    mirrors: Sequence[str | Path] = (),
    timeout: float = 60.0,
    attempts: int = 3,
    backoff: float = 2.0,
    data_root: str | Path | None = None,
) -> FetchResult:
    """Obtain ``entry`` at ``dest`` from a mirror or its URL and verify its SHA-256.

    Mirrors are tried in order (a missing or corrupt copy moves on to the next one), then the
    URL. When ``data_root`` is given, ``dest`` must be ``data_root / entry.path``, inside it.
    Raises FetchError naming the file, every source tried and the reason each failed, and the
    options that provide a mirror, when no source yields a file with the pinned checksum;
    ConfigError for an unsafe registered path.
    """
    if entry.sha256 is None:
        raise FetchError(
            f"{entry.family}: file '{entry.path}' has no pinned SHA-256 in its dataset file. "
            f"Obtain the file, compute its digest with `python -m uqval.pipeline.fetch <file>` and add it as "
            f"sha256: before fetching."
        )
    where = f"{entry.family}: files[].path"
    dest = Path(dest)
    if data_root is not None:
        expected = resolve_under(data_root, entry.path, where)
        if expected.resolve() != dest.resolve():
            raise ConfigError(f"{where}: destination {dest} is not {expected}; refused")
    tried: list[str] = []
    if entry.mirror is not None:  # the folder the family's lock file names, first
        mirrors = [entry.mirror, *(m for m in mirrors if Path(m) != Path(entry.mirror))]
    for mirror in mirrors:
        candidate = resolve_under(mirror, entry.path, where)
        if not candidate.is_file():
            tried.append(f"mirror {mirror}: no file {entry.path}")
            continue
        try:
            digest = _copy_verified(entry, partial(_copy_file, candidate), dest)
        except _Mismatch as bad:
            tried.append(
                f"mirror {mirror}: checksum mismatch for '{entry.path}', expected sha256 "
                f"{entry.sha256}, got {bad} (corrupt copy or a different version; skipped)"
            )
            continue
        except OSError as exc:
            tried.append(f"mirror {mirror}: cannot copy {entry.path}: {exc}")
            continue
        return FetchResult(source=f"mirror:{mirror}", sha256=digest)

    if entry.url:
        url = entry.url
        last_error = ""
        for attempt in range(1, attempts + 1):
            try:
                digest = _copy_verified(entry, partial(_download_to, url, timeout), dest)
                return FetchResult(source=url, sha256=digest)
            except _Mismatch as bad:
                last_error = (
                    f"checksum mismatch for '{entry.path}', expected sha256 {entry.sha256}, "
                    f"got {bad}"
                )
                break
            except (urllib.error.URLError, TimeoutError, OSError, ValueError) as exc:
                last_error = str(exc)
                if attempt < attempts:
                    time.sleep(backoff * attempt)
        tried.append(f"download {url}: {last_error} (after {attempt} attempt{'s' if attempt > 1 else ''})")
    else:
        tried.append("no upstream URL is registered for this file")

    raise FetchError(
        f"{entry.family}: cannot obtain '{entry.path}'; nothing was written to {dest}. Tried: "
        + "; ".join(tried) + ". "
        f"On a machine without internet, point uqval at a local copy of the data laid out like "
        f"the data root: `snakemake --config data_mirror=/path/to/data`, the `data_mirror` key of "
        f"config/config.yaml, or the environment variable {MIRROR_ENV_VAR}."
    )


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m uqval.pipeline.fetch FILE...`` prints the SHA-256 of each file (to pin new datasets)."""
    import sys

    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print("usage: python -m uqval.pipeline.fetch FILE [FILE...]", file=sys.stderr)
        return 2
    for name in args:
        print(f"{sha256_file(name)}  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
