"""Chord-symbol tokens of the two jazz corpora in ``../shared/corpora`` (read-only; never
copied into the project), each with its song's key. Shared by the corpus and batch tests and
``bench/run_corpus_parse.py`` / ``bench/run_batch.py``.

- jazz-ccp: ``Name = value`` header lines (the key is ``DBKeySig``, a major key name), then
  bars: ``|`` ends a bar, chords separated by spaces.
- jazzstandards-ireal: the key is the song's ``Key`` (``Dmin`` is minor); ``|`` separates bars
  and ``,`` chords; an empty item holds the previous chord; ``X(Y)`` is chord X with alternate
  Y (two symbols), ``(Y)`` alone an alternate-only slot.

``NC`` (no chord) is left out everywhere.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

_NO_CHORD = {"NC", "N.C.", "N.C", "n.c."}
_IREAL_ITEM = re.compile(r"([^()]*)(?:\(([^()]*)\))?")

KeyedToken = tuple[str, str | None]


def ccp_tokens(corpora: Path) -> Iterator[KeyedToken]:
    for path in sorted((corpora / "jazz-ccp" / "songs").glob("*.txt")):
        yield from ccp_song(path)


def ccp_song(path: Path) -> Iterator[KeyedToken]:
    """One jazz-ccp chart's tokens, each with the chart's key."""
    key: str | None = None
    for line in path.read_text(encoding="latin-1").splitlines():
        if "=" in line:  # header: Title = ..., DBKeySig = ... (one file writes "DB KeySig")
            name, _, value = line.partition("=")
            if name.replace(" ", "") == "DBKeySig":
                key = value.strip()
            continue
        yield from ((t, key) for t in line.split() if t != "|" and t not in _NO_CHORD)


def ireal_tokens(corpora: Path) -> Iterator[KeyedToken]:
    songs = json.loads((corpora / "jazzstandards-ireal" / "JazzStandards.json").read_bytes())
    for song in songs:
        key = song.get("Key")
        for section in song["Sections"]:
            for segment in [section["MainSegment"], *(section.get("Endings") or [])]:
                for bar in segment["Chords"].split("|"):
                    for item in bar.split(","):
                        if not item.strip():
                            continue  # the previous chord is held
                        m = _IREAL_ITEM.fullmatch(item.strip())
                        if m is None:
                            raise ValueError(f"unexpected iReal item {item!r}")
                        yield from ((g.strip(), key) for g in m.groups()
                                    if g and g.strip() and g.strip() not in _NO_CHORD)


def keyed_tokens(corpora: Path) -> list[KeyedToken]:
    """(symbol, key) for every chord token of both corpora, in file order."""
    return [*ccp_tokens(corpora), *ireal_tokens(corpora)]


def chord_tokens(corpora: Path) -> list[str]:
    """Every chord-symbol token of both corpora, in file order."""
    return [symbol for symbol, _ in keyed_tokens(corpora)]
