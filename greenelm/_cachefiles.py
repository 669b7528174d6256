"""Files in greenelm's caches: safe entry names, atomic writes, and clean-up after killed writers.

Every cache writer (the book's results cache, the embedding cache, the CIFAR-10 unpacking) writes
a temporary file or folder next to the final name and renames it into place. Temporaries are named

    .{final name}.{writer}-{pid}-{random}.tmp

where ``writer`` (12 hex digits) identifies this machine and PID namespace (SHA-256 of the host
name, ``/etc/machine-id`` and ``/proc/self/ns/pid``) and ``pid`` is the writing process.
:func:`remove_stale_temporaries` removes such a temporary only when

* it was written on this machine and PID namespace and process ``pid`` no longer exists, or
* it has not been modified for :data:`STALE_AFTER_SECONDS` (a day) — a writer keeps its
  temporary's modification time fresh while it writes, and no cache write takes a day.

A live writer on this machine therefore never loses its temporary; a temporary written on another
machine sharing the folder (whose pids mean nothing here) is only removed after a day without a
write. Names that do not match the pattern are never touched.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pathlib
import re
import shutil
import socket
import tempfile
import time
from collections.abc import Callable

__all__ = ["STALE_AFTER_SECONDS", "atomic_write", "check_entry_name", "entry_path",
           "remove_stale_temporaries", "temp_prefix", "writer_id"]

STALE_AFTER_SECONDS = 24 * 3600
_TEMP = re.compile(r"^\.(?P<final>.+)\.(?P<writer>[0-9a-f]{12})-(?P<pid>[0-9]+)-[a-z0-9_]+\.tmp$")
_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")
MAX_NAME_LENGTH = 120


@functools.lru_cache(maxsize=1)
def writer_id() -> str:
    """12 hex digits naming this machine and PID namespace (see the module docstring)."""
    parts = [socket.gethostname()]
    for source in ("/etc/machine-id", "/proc/self/ns/pid"):
        try:
            parts.append(os.readlink(source) if source.startswith("/proc") else
                         pathlib.Path(source).read_text().strip())
        except OSError:
            parts.append("")
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:12]


def temp_prefix(final_name: str) -> str:
    """Prefix for ``tempfile.mkstemp``/``mkdtemp`` (with ``suffix=".tmp"``) of a temporary for ``final_name``."""
    return f".{final_name}.{writer_id()}-{os.getpid()}-"


def check_entry_name(name, what: str = "name") -> str:
    """``name`` if it is a safe file name in a cache folder, else ValueError (TypeError if not a str).

    Safe: 1 to 120 characters among letters, digits, ``-``, ``_`` and ``.``; not starting with ``.``
    (no hidden files, no ``.``/``..``) and without ``..`` anywhere.
    """
    if not isinstance(name, str):
        raise TypeError(f"{what} must be a str, got {type(name).__name__}")
    if not name:
        raise ValueError(f"{what} must not be empty")
    if len(name) > MAX_NAME_LENGTH:
        raise ValueError(f"{what} is {len(name)} characters long; at most {MAX_NAME_LENGTH} are allowed")
    if not _NAME.match(name):
        bad = sorted({c for c in name if not re.match(r"[A-Za-z0-9_.-]", c)})
        raise ValueError(f"{what} {name!r} contains {''.join(bad)!r}: only letters, digits, '-', '_' and '.' "
                         f"are allowed (no path separators)")
    if name.startswith(".") or ".." in name:
        raise ValueError(f"{what} {name!r} must not start with '.' or contain '..'")
    return name


def entry_path(folder, filename: str) -> pathlib.Path:
    """``folder / filename`` after checking that it names a file directly inside ``folder``."""
    folder = pathlib.Path(folder)
    path = folder / filename
    if path.resolve().parent != folder.resolve():
        raise ValueError(f"cache file name {filename!r} would leave the cache folder {folder}")
    return path


def atomic_write(path: pathlib.Path, write: Callable) -> None:
    """Create or replace ``path`` atomically: ``write(binary file)`` fills a temporary, which is
    flushed to disk and renamed onto ``path``. On any error the temporary is removed."""
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=temp_prefix(path.name), suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)        # mkstemp's 0o600 would hide a shared cache from others
        os.replace(tmp, path)
    except BaseException:
        pathlib.Path(tmp).unlink(missing_ok=True)
        raise


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)                      # signal 0: existence check, nothing is sent
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True                          # exists (another user's) or cannot tell: keep
    return True


def remove_stale_temporaries(folder, now: float | None = None) -> list[pathlib.Path]:
    """Remove the temporaries in ``folder`` that no live writer owns (rule: module docstring).

    Returns the paths removed. A missing folder is fine (nothing to remove).
    """
    folder = pathlib.Path(folder)
    try:
        entries = list(os.scandir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return []
    now = time.time() if now is None else now
    removed = []
    for entry in entries:
        match = _TEMP.match(entry.name)
        if not match:
            continue
        try:
            age = now - entry.stat(follow_symlinks=False).st_mtime
        except FileNotFoundError:
            continue                         # its writer renamed or removed it meanwhile
        dead = (os.name == "posix" and match["writer"] == writer_id() and not _running(int(match["pid"])))
        if not (dead or age > STALE_AFTER_SECONDS):
            continue
        path = pathlib.Path(entry.path)
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
        if not os.path.lexists(path):
            removed.append(path)
    return removed
