"""Chord tokens of the two jazz corpora in ``../shared/corpora``, with each song's key.

Shared by the batch tests and ``bench/run_batch.py``. ``NC`` is left out; an iReal ``X(Y)``
(chord X with alternate Y) gives both symbols, an empty iReal slot (a held chord) none.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

_NO_CHORD = {"NC", "N.C.", "N.C", "n.c."}
_ALTERNATE = re.compile(r"^([^()]*)\(([^()]*)\)$")


def ccp_tokens(corpora: Path) -> Iterator[tuple[str, str | None]]:
    """(symbol, key) for jazz-ccp: the key is the song's ``DBKeySig`` (a major key name)."""
    for path in sorted((corpora / "jazz-ccp" / "songs").glob("*.txt")):
        key: str | None = None
        for line in path.read_text(encoding="latin-1").splitlines():
            if "=" in line:
                name, _, value = line.partition("=")
                if name.strip().replace(" ", "") == "DBKeySig":
                    key = value.strip()
                continue
            for bar in line.split("|"):
                for tok in bar.split():
                    if tok not in _NO_CHORD:
                        yield tok, key


def ireal_tokens(corpora: Path) -> Iterator[tuple[str, str | None]]:
    """(symbol, key) for the iReal export: the key is the song's ``Key`` (``Dmin`` is minor)."""
    songs = json.loads((corpora / "jazzstandards-ireal" / "JazzStandards.json").read_text())
    for song in songs:
        key = song.get("Key")
        for section in song["Sections"]:
            texts = [section["MainSegment"]["Chords"]]
            texts += [e["Chords"] for e in section.get("Endings", [])]
            for text in texts:
                for bar in text.split("|"):
                    for item in bar.split(","):
                        yield from ((s, key) for s in _symbols_of(item.strip()))


def _symbols_of(item: str) -> list[str]:
    if not item:
        return []
    m = _ALTERNATE.match(item)
    parts = [m.group(1), m.group(2)] if m else [item]
    return [p for p in (x.strip() for x in parts) if p and p not in _NO_CHORD]


def jazz_tokens(corpora: Path) -> list[tuple[str, str | None]]:
    return [*ccp_tokens(corpora), *ireal_tokens(corpora)]
