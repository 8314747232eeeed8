"""Spelling a reading: its root's name, its symbol in our grammar and its notes.

A named note names itself: the root is spelled as the notes given spell it, or, for a rootless
reading, counted down from a tone given (B as the third of G). Unnamed notes (MIDI numbers,
pitch classes) take the key's spelling when the root is in its scale, else ``DEFAULT_ROOTS``,
the roots jazz charts write (Bb7, Eb, F#m7, Ab).
"""

from __future__ import annotations

from functools import lru_cache

from engine.chords import Chord, Key, Spelled, degree_number, on_letter, parse, parse_spelled
from engine.identify.ranking import Ranked
from engine.identify.vocabulary import VOCABULARY

DEFAULT_ROOTS = tuple(Spelled(letter, alter) for letter, alter in (
    (0, 0), (1, -1), (1, 0), (2, -1), (2, 0), (3, 0), (3, 1), (4, 0), (5, -1), (5, 0),
    (6, -1), (6, 0)))


def root_of(r: Ranked, spelling: dict[int, Spelled] | None, key: Key | None) -> Spelled:
    root = r.reading.root
    if spelling:
        if root in spelling:
            return spelling[root]
        entry = VOCABULARY[r.reading.entry]
        for label, semis in zip(entry.labels, entry.semitones, strict=True):
            tone = spelling.get((root + semis) % 12)
            if tone is not None:
                sp = on_letter(root, (tone.letter - degree_number(label) + 1) % 7)
                if abs(sp.alter) <= 1:
                    return sp
    if key is not None:
        for sp in key.scale:
            if sp.pc == root:
                return sp
    return DEFAULT_ROOTS[root]


def chord_of(r: Ranked, spelling: dict[int, Spelled] | None, key: Key | None,
             bass: Spelled | None) -> Chord:
    """The reading as a parsed chord of our grammar (cached by ``parse``)."""
    root = root_of(r, spelling, key)
    symbol = root.name + VOCABULARY[r.reading.entry].suffix
    if r.slash and bass is not None:
        symbol += "/" + bass.name
    return parse(symbol)


def chord_spelling(r: Ranked, spelling: dict[int, Spelled] | None,
                   key: Key | None) -> dict[int, Spelled]:
    """pitch class -> its name in the reading, for every tone of the chord."""
    return tones_of(r.reading.entry, root_of(r, spelling, key))


@lru_cache(maxsize=8192)
def tones_of(entry: int, root: Spelled) -> dict[int, Spelled]:
    """pitch class -> name of every tone of quality ``entry`` on ``root`` (do not change it:
    it is shared)."""
    chord = parse(root.name + VOCABULARY[entry].suffix)
    return {pc: parse_spelled(name) for pc, name in zip(chord.pcs, chord.notes, strict=True)}
