"""The iReal standards of ``../shared/corpora`` as compositions (API.md 13), for the export and
transpose tests and ``bench/run_compose_exports.py``: each song's sections in order, its form
as written, its time signature and key (the chart's, else the key finder's), its chords at
their bars and beats; and a song or an export read back as each chord's change (a chord equal
to the one sounding is not a change) with the count of bars."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine.corpus.loaders import load_text
from engine.corpus.songs import Problems, Song, reading_key

Change = tuple[int, float, int, str, int | None]   # bar, beat, root pc, quality, bass pc


def standards(corpora: Path) -> list[tuple[dict[str, Any], Song]]:
    """(the JSON chart, the song read from it) of every standard that loads."""
    items = json.loads((corpora / "jazzstandards-ireal" / "JazzStandards.json").read_bytes())
    out = []
    for item in items:
        songs = load_text(json.dumps([item]), "json", "JazzStandards.json", Problems())
        if songs:
            out.append((item, songs[0]))
    return out


def composition(item: dict[str, Any], song: Song) -> dict[str, Any]:
    """``song`` as a composition: a section a chart section (``S1``, ``S2``.. named by its
    label), the bars before a section's first chord held from the section before (before the
    first section's: bars of no chord)."""
    signature = str(item.get("TimeSignature") or "4/4")
    key = reading_key(song)
    starts = [1, *(min(p.bar for p in s.chords) for s in song.sections[1:])]
    last = max(p.bar for s in song.sections for p in s.chords)
    ends = [*(b - 1 for b in starts[1:]), last]
    sections = []
    for n, (section, start, end) in enumerate(zip(song.sections, starts, ends, strict=True)):
        sections.append({
            "id": f"S{n + 1}", "name": section.name, "bars": end - start + 1,
            "chords": [{"bar": p.bar - start + 1, "beat": p.beat, "symbol": p.chord.symbol}
                       for p in section.chords]})
    return {"version": 1,
            "meta": {"title": song.title, "composer": song.composer,
                     "key": key.name if key else "C", "mode": key.mode if key else "major",
                     "tempo": 120.0, "timeSignature": signature, "ppq": 480, "style": "swing",
                     "swing": 0.5},
            "sections": sections, "form": [s["id"] for s in sections], "tracks": []}


def changes(song: Song) -> tuple[list[Change], int]:
    """The chord changes of ``song`` (bar, beat, root, quality, bass) and its bars."""
    out: list[Change] = []
    for section in song.sections:
        for p in section.chords:
            c = p.chord
            change = (p.bar, p.beat, c.root.pc, c.quality, c.bass.pc if c.bass else None)
            if not out or out[-1][2:] != change[2:]:
                out.append(change)
    return out, max((p.bar for s in song.sections for p in s.chords), default=0)


def read_ireal(url: str) -> Song:
    problems = Problems()
    songs = load_text(url, "ireal", "export.html", problems)
    assert not problems.items and len(songs) == 1, problems.items
    return songs[0]
