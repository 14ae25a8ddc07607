"""Atomic file writing: outputs appear complete or not at all.

Every writer writes to a temporary file in the destination directory and renames it into
place with :func:`os.replace`, which is atomic on POSIX file systems, so an interrupted run
never leaves a truncated output behind.

Temporary files are named ``.<name>.<host>-<pid>.<random><suffix>.tmp`` and removed when the
block fails (exception, KeyboardInterrupt, and SIGTERM: :func:`atomic_path` makes SIGTERM raise
SystemExit in the main thread while the default handler is installed, so cleanup code runs).
SIGKILL cannot be caught: the temporaries of processes that no longer exist on this host are
removed the next time a file is written in the same directory, or by
:func:`remove_stale_temporaries` (which the workflow calls on ``data/`` and ``results/`` at
start-up).
"""

from __future__ import annotations

import json
import math
import os
import re
import signal
import socket
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: importing pandas costs 0.3 s per job, NumPy 0.13 s
    import pandas as pd

__all__ = [
    "atomic_path",
    "pid_alive",
    "remove_stale_temporaries",
    "to_json_compatible",
    "write_atomic",
    "write_csv",
    "write_json",
    "write_text",
]

_HOST = re.sub(r"[^A-Za-z0-9_-]", "_", socket.gethostname())[:40] or "host"
_TMP_NAME = re.compile(r"^\..+\.(?P<host>[A-Za-z0-9_-]+)-(?P<pid>\d+)\.[^.]+.*\.tmp$")


def _sigterm_to_exit(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)


def _install_sigterm_cleanup() -> None:
    """Make SIGTERM raise SystemExit (exit status 143) so ``finally`` blocks remove temporaries;
    only in the main thread and only while Python's default (terminate) handler is in place."""
    if threading.current_thread() is not threading.main_thread():
        return
    with suppress(ValueError, OSError):
        if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
            signal.signal(signal.SIGTERM, _sigterm_to_exit)


def pid_alive(pid: int) -> bool:
    """Whether a process with this id exists (a temporary file's writer may still run)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_stale_in(directory: Path) -> list[Path]:
    removed = []
    with suppress(OSError):
        for entry in os.scandir(directory):
            m = _TMP_NAME.match(entry.name)
            if not m or m["host"] != _HOST or not entry.is_file(follow_symlinks=False):
                continue
            if int(m["pid"]) != os.getpid() and not pid_alive(int(m["pid"])):
                with suppress(OSError):
                    os.unlink(entry.path)
                    removed.append(Path(entry.path))
    return removed


def remove_stale_temporaries(root: str | Path) -> list[Path]:
    """Remove the temporaries left under ``root`` by killed writers of this host; return them.

    A temporary is stale when the process id in its name no longer exists on this host; files
    of running processes and of other hosts (shared file systems) are left alone.
    """
    root = Path(root)
    removed: list[Path] = []
    if root.is_dir():
        for directory, _, _ in os.walk(root):
            removed += _remove_stale_in(Path(directory))
    return removed


@contextmanager
def atomic_path(dest: str | Path, suffix: str = "") -> Iterator[Path]:
    """Yield a temporary path beside ``dest``; rename it to ``dest`` if the block succeeds.

    ``suffix`` keeps the extension for writers that infer the format from it (matplotlib).
    The file gets the permissions of a normally created one (0666 minus the umask), not the
    private 0600 of a temporary file, so results can be shared or served. The temporary is
    removed if the block fails, including on SIGTERM (see the module docstring).
    """
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    _install_sigterm_cleanup()
    _remove_stale_in(dest.parent)
    fd, tmp = tempfile.mkstemp(
        prefix=f".{dest.name}.{_HOST}-{os.getpid()}.", suffix=suffix + ".tmp", dir=dest.parent
    )
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.chmod(tmp_path, 0o666 & ~_umask())
        os.replace(tmp_path, dest)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomic(dest: str | Path, writer: Callable[[IO[str]], object]) -> None:
    """Call ``writer`` on a text handle of a temporary file, then move it to ``dest``."""
    with atomic_path(dest) as tmp, tmp.open("w", newline="") as fh:
        writer(fh)


def write_text(dest: str | Path, text: str) -> Path:
    """Write ``text`` as UTF-8 to ``dest`` atomically (parent folders created); returns the path."""
    path = Path(dest)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path, suffix=path.suffix) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return path


def write_csv(df: pd.DataFrame, dest: str | Path, **kwargs: Any) -> None:
    """Write a DataFrame as CSV atomically (no index unless asked)."""
    kwargs.setdefault("index", False)
    write_atomic(dest, lambda fh: df.to_csv(fh, **kwargs))


def to_json_compatible(obj: Any) -> Any:
    """Copy of ``obj`` that strict JSON can hold: NaN and ±Infinity become None (null).

    Dicts, lists and tuples are converted recursively; NumPy scalars and arrays become Python
    numbers and lists.
    """
    if isinstance(obj, dict):
        return {k: to_json_compatible(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [to_json_compatible(v) for v in obj]
    np = sys.modules.get("numpy")  # no NumPy object exists before NumPy is imported
    if np is not None and isinstance(obj, np.ndarray):
        return to_json_compatible(obj.tolist())
    if np is not None and isinstance(obj, np.generic):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def write_json(obj: Any, dest: str | Path) -> None:
    """Write an object as indented JSON atomically.

    The output is strict JSON (RFC 8259): non-finite numbers (NaN, ±Infinity), which JSON
    cannot represent, are written as ``null`` (:func:`to_json_compatible`); readers see None.
    """
    text = json.dumps(to_json_compatible(obj), indent=2, sort_keys=False, allow_nan=False) + "\n"

    def writer(fh: IO[str]) -> None:
        fh.write(text)

    write_atomic(dest, writer)
