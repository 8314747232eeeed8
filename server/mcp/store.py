"""``harmony-compose``'s local store of compositions (API.md 13), so an assistant passes a short
``compositionId`` instead of carrying a whole composition through its context; and the compact
summary each compose tool answers instead of the composition.

Each composition is one JSON file ``<id>.json`` in ``HARMONY_COMPOSITIONS`` (else
``$XDG_CACHE_HOME/harmony/compositions``, ``~/.cache/harmony/compositions`` without it). The id
is the title's slug and the first 12 hex digits of the SHA-256 of the composition's bytes: the
same composition always has the same id, and every change gives a new one, so an earlier id
still names the version before (until evicted). At most 256 files and 256 MiB
(``HARMONY_COMPOSITIONS_MAX_FILES``, ``HARMONY_COMPOSITIONS_MAX_MB``): the least recently used
are deleted first.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from typing import Any

import orjson

from engine.errors import InvalidRequest
from server.mcp.files import CacheFolder, cache_folder, write_atomic

MAX_FILES = 256
MAX_BYTES = 256 << 20
ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
CHART_CHARS = 240   # characters of a section's chords in a summary


def compositions_folder(env: Mapping[str, str]) -> CacheFolder:
    return cache_folder(env, "compositions", "HARMONY_COMPOSITIONS", MAX_FILES, MAX_BYTES)


class CompositionStore:
    def __init__(self, folder: CacheFolder) -> None:
        self.folder = folder

    def put(self, composition: dict[str, Any]) -> str:
        """Keep ``composition``; its id."""
        data = orjson.dumps(composition)
        title = str(composition.get("meta", {}).get("title") or "composition")
        slug = "-".join(re.findall(r"[a-z0-9]+", title.lower()))[:32].strip("-")
        key = f"{slug or 'composition'}-{hashlib.sha256(data).hexdigest()[:12]}"
        path = self.folder.path / f"{key}.json"
        try:
            self.folder.ensure()
            if path.is_file() and path.stat().st_size == len(data):
                os.utime(path)
            else:
                write_atomic(path, data)
        except OSError as e:
            raise InvalidRequest(
                f"cannot keep the composition in {str(self.folder.path)!r} ({e.strerror}); set "
                "HARMONY_COMPOSITIONS to a folder this server may write", field="composition"
            ) from None
        self.folder.prune(keep=path)
        return key

    def get(self, key: Any) -> dict[str, Any]:
        """The composition kept as ``key``; ``invalid_request`` on ``compositionId`` when there
        is none."""
        if not isinstance(key, str) or len(key) > 64 or not ID.match(key):
            raise InvalidRequest("'compositionId' must be an id a compose tool answered, e.g. "
                                 "'my-tune-3f9a2c1b5d7e'", field="compositionId")
        path = self.folder.path / f"{key}.json"
        try:
            data = path.read_bytes()
            os.utime(path)  # in use: the last to be evicted
        except OSError:
            raise InvalidRequest(
                f"no composition {key!r} in the store ({self.folder.path}; the least recently "
                f"used are deleted beyond {self.folder.max_files} compositions): pass the whole "
                "composition instead, or start again with compose_create",
                field="compositionId") from None
        try:
            composition = orjson.loads(data)
        except orjson.JSONDecodeError:
            raise InvalidRequest(f"the stored composition {key!r} is damaged; pass the whole "
                                 "composition instead", field="compositionId") from None
        if not isinstance(composition, dict):
            raise InvalidRequest(f"the stored composition {key!r} is damaged",
                                 field="compositionId")
        return composition


def chart(section: dict[str, Any]) -> str:
    """A section's chords bar by bar as written, ``| Gm7 C7 | Fmaj7 |`` (``%``: the bar holds
    the chord before), cut at a bar line after ``CHART_CHARS`` characters."""
    cells: list[list[str]] = [[] for _ in range(int(section.get("bars") or 0))]
    for chord in sorted(section.get("chords", []), key=lambda c: (c["bar"], c["beat"])):
        if 1 <= chord["bar"] <= len(cells):
            cells[chord["bar"] - 1].append(str(chord["symbol"]))
    text = "|"
    for i, cell in enumerate(cells):
        piece = f" {' '.join(cell) or '%'} |"
        if len(text) + len(piece) > CHART_CHARS:
            return text + f" ... ({len(cells) - i} more bars)"
        text += piece
    return text


def summary(composition: dict[str, Any]) -> dict[str, Any]:
    """Title, key, tempo, metre, style, form, bars in form order, each section's chords
    (abbreviated) and the tracks with their event counts."""
    meta = composition.get("meta", {})
    sections = {s["id"]: s for s in composition.get("sections", [])}
    out: dict[str, Any] = {k: meta.get(k) for k in (
        "title", "composer", "key", "mode", "tempo", "timeSignature", "style")}
    out["form"] = composition.get("form", [])
    out["bars"] = sum(sections[s]["bars"] for s in out["form"] if s in sections)
    out["sections"] = [
        {"id": s["id"], "bars": s["bars"],
         **{k: s[k] for k in ("timeSignature", "tempo", "key") if s.get(k) is not None},
         "chords": chart(s)}
        for s in composition.get("sections", [])]
    out["tracks"] = [
        {"id": t["id"], "role": t["role"],
         "events": sum(len(e) for e in t.get("events", {}).values())}
        for t in composition.get("tracks", [])]
    return out
