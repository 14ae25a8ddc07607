"""Verified retrieval of raw data files.

Sources are tried in order: each mirror directory (a local copy laid out like the data root,
e.g. ``../shared/data``), then the upstream URL (streamed, with retries and a timeout). The
SHA-256 is verified whichever way the file came, and the destination is written atomically, so
a failed or corrupted transfer never leaves a file under ``data/``.
"""

from __future__ import annotations

import hashlib
import shutil
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from uqval.atomic import atomic_path
from uqval.errors import FetchError
from uqval.pipeline.registry import RegisteredFile

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


def _download(url: str, dest: Path, timeout: float) -> None:
    with urllib.request.urlopen(url, timeout=timeout) as resp, dest.open("wb") as out:
        shutil.copyfileobj(resp, out, _CHUNK)


def fetch_file(
    entry: RegisteredFile,
    dest: str | Path,
    mirrors: Sequence[str | Path] = (),
    timeout: float = 60.0,
    attempts: int = 3,
    backoff: float = 2.0,
) -> FetchResult:
    """Obtain ``entry`` at ``dest`` from a mirror or its URL and verify its SHA-256.

    Raises FetchError naming the file, every source tried and the reason each failed, and the
    options that provide a mirror, when no source yields a file with the pinned checksum.
    """
    if entry.sha256 is None:
        raise FetchError(
            f"{entry.family}: file '{entry.path}' has no pinned SHA-256 in config/datasets/. "
            f"Obtain the file, compute its digest with `python -m uqval.pipeline.fetch <file>` and add it as "
            f"sha256: before fetching."
        )
    dest = Path(dest)
    tried: list[str] = []
    for mirror in mirrors:
        candidate = Path(mirror) / entry.path
        if not candidate.is_file():
            tried.append(f"mirror {mirror}: no file {entry.path}")
            continue
        with atomic_path(dest) as tmp:
            shutil.copyfile(candidate, tmp)
            digest = sha256_file(tmp)
            if digest != entry.sha256:
                raise FetchError(
                    f"{entry.family}: checksum mismatch for '{entry.path}' from mirror {mirror}: "
                    f"expected sha256 {entry.sha256}, got {digest}. The mirror copy is corrupt or a "
                    f"different version; nothing was written to {dest}."
                )
        return FetchResult(source=f"mirror:{mirror}", sha256=digest)

    if entry.url:
        last_error = ""
        for attempt in range(1, attempts + 1):
            try:
                with atomic_path(dest) as tmp:
                    _download(entry.url, tmp, timeout)
                    digest = sha256_file(tmp)
                    if digest != entry.sha256:
                        raise FetchError(
                            f"{entry.family}: checksum mismatch for '{entry.path}' downloaded from "
                            f"{entry.url}: expected sha256 {entry.sha256}, got {digest}; nothing was "
                            f"written to {dest}."
                        )
                return FetchResult(source=entry.url, sha256=digest)
            except (urllib.error.URLError, TimeoutError, OSError) as exc:
                last_error = str(exc)
                if attempt < attempts:
                    time.sleep(backoff * attempt)
        tried.append(f"download {entry.url}: {last_error} (after {attempts} attempts)")
    else:
        tried.append("no upstream URL is registered for this file")

    raise FetchError(
        f"{entry.family}: cannot obtain '{entry.path}'. Tried: " + "; ".join(tried) + ". "
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
