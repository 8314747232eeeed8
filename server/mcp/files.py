"""Files the stdio servers write on this machine: the cache folders (rendered audio, kept
compositions), each bounded in count and bytes with the oldest files deleted first, and writing
a user's path without ever replacing an existing file unless asked (``overwrite``).

Folders: ``$XDG_CACHE_HOME/harmony/<name>`` (``~/.cache/harmony/<name>`` without it), or the
folder an environment variable names (``HARMONY_RENDERS``, ``HARMONY_COMPOSITIONS``).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from engine.errors import InvalidRequest


@dataclass(frozen=True)
class CacheFolder:
    """A folder of files the server wrote for itself, at most ``max_files`` files and
    ``max_bytes`` bytes: ``prune`` deletes the least recently used first (a file read is
    touched, so the one in use is the last to go)."""

    path: Path
    max_files: int
    max_bytes: int

    def ensure(self) -> Path:
        self.path.mkdir(parents=True, exist_ok=True)
        return self.path

    def prune(self, keep: Path | None = None) -> list[Path]:
        """Delete the oldest files until the bounds hold; ``keep`` is never deleted."""
        entries = []
        for entry in self.path.iterdir() if self.path.is_dir() else ():
            if entry.name.startswith(".") or not entry.is_file():
                continue
            try:
                stat = entry.stat()
            except OSError:
                continue
            entries.append((stat.st_mtime_ns, entry.name, stat.st_size, entry))
        entries.sort()
        count = len(entries)
        total = sum(e[2] for e in entries)
        deleted = []
        for _, _, size, entry in entries:
            if count <= self.max_files and total <= self.max_bytes:
                break
            if keep is not None and entry == keep:
                continue
            with contextlib.suppress(OSError):
                entry.unlink()
                deleted.append(entry)
            count -= 1
            total -= size
        return deleted


def cache_root(env: Mapping[str, str]) -> Path:
    base = (env.get("XDG_CACHE_HOME") or "").strip()
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".cache"
    return root / "harmony"


def cache_folder(env: Mapping[str, str], name: str, variable: str, max_files: int,
                 max_bytes: int) -> CacheFolder:
    """The folder ``variable`` names, else ``<cache root>/<name>``; the bounds can be set with
    ``<variable>_MAX_FILES`` and ``<variable>_MAX_MB``."""
    chosen = (env.get(variable) or "").strip()
    path = Path(chosen).expanduser() if chosen else cache_root(env) / name
    return CacheFolder(path, _bound(env, f"{variable}_MAX_FILES", max_files),
                       _bound(env, f"{variable}_MAX_MB", max_bytes >> 20) << 20)


def _bound(env: Mapping[str, str], variable: str, default: int) -> int:
    text = (env.get(variable) or "").strip()
    return int(text) if text.isdigit() and int(text) > 0 else default


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder, so no reader
    ever sees half a file."""
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=".harmony-", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise


def write_user_file(target: str, data: bytes, overwrite: bool, field: str = "path") -> Path:
    """Write ``data`` to the user's ``target`` (its folder must exist). An existing file is
    refused unless ``overwrite``; every refusal is ``invalid_request`` on ``field``."""
    path = Path(target).expanduser()
    if path.is_dir():
        raise InvalidRequest(f"{str(path)!r} is a folder: give a file name in it", field=field)
    if not path.parent.is_dir():
        raise InvalidRequest(f"cannot write {str(path)!r}: its folder does not exist",
                             field=field)
    if not overwrite:
        try:
            with path.open("xb") as f:  # exclusive: never replaces a file made meanwhile
                f.write(data)
        except FileExistsError:
            raise InvalidRequest(f"{str(path)!r} exists; pass overwrite: true to replace it, "
                                 "or choose another path", field=field) from None
        except OSError as e:
            raise InvalidRequest(f"cannot write {str(path)!r}: {e.strerror}",
                                 field=field) from None
        return path.resolve()
    try:
        write_atomic(path, data)
    except OSError as e:
        raise InvalidRequest(f"cannot write {str(path)!r}: {e.strerror}", field=field) from None
    return path.resolve()
