"""Chord-symbol tokens of the two jazz corpora in ``../shared/corpora`` (read-only; never
copied into the project). Used by the corpus test and the corpus benchmark.

- jazz-ccp: ``Name = value`` header lines, then bars: ``|`` ends a bar, chords separated by
  spaces.
- jazzstandards-ireal: ``|`` separates bars and ``,`` chords; an empty item holds the previous
  chord; ``X(Y)`` is chord X with alternate Y (two symbols), ``(Y)`` alone an alternate-only slot.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

NO_CHORD = "NC"
_IREAL_ITEM = re.compile(r"([^()]*)(?:\(([^()]*)\))?")


def ccp_tokens(corpora: Path) -> Iterator[str]:
    for song in sorted((corpora / "jazz-ccp" / "songs").iterdir()):
        for line in song.read_text(encoding="ascii", errors="replace").splitlines():
            if "=" in line:  # header: Title = ..., DBKeySig = ...
                continue
            yield from (t for t in line.split() if t != "|")


def ireal_tokens(corpora: Path) -> Iterator[str]:
    songs = json.loads((corpora / "jazzstandards-ireal" / "JazzStandards.json").read_bytes())
    for song in songs:
        for section in song["Sections"]:
            segments = [section["MainSegment"], *(section.get("Endings") or [])]
            for segment in segments:
                for bar in segment["Chords"].split("|"):
                    for item in bar.split(","):
                        if not item:
                            continue  # the previous chord is held
                        m = _IREAL_ITEM.fullmatch(item)
                        if m is None:
                            raise ValueError(f"unexpected iReal item {item!r}")
                        yield from (g for g in m.groups() if g)


def chord_tokens(corpora: Path) -> list[str]:
    """Every chord-symbol token of both corpora, in file order, without ``NC``."""
    tokens = [*ccp_tokens(corpora), *ireal_tokens(corpora)]
    return [t for t in tokens if t != NO_CHORD]
