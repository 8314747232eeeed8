"""Spelling a reading: its root's name, its symbol in our grammar and its notes.

A named note names itself: the root is spelled as the notes given spell it, or, for a rootless
reading, counted down from a tone given (B as the third of G). Unnamed notes (MIDI numbers,
pitch classes) take the key's spelling when the root is in its scale, else ``DEFAULT_ROOTS``,
the roots jazz charts write (Bb7, Eb, F#m7, Ab).

``spelt(entry, root)`` is a quality on a spelled root with everything an answer writes of it
(symbol, tones, inversion over a bass), built once from the quality tables without parsing
a symbol: on the roots of ``DEFAULT_ROOTS`` for every quality at import, so that the first
call for a set of pitch classes or MIDI numbers reads tables only.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from engine.chords import (
    SPELLED_DEGREE,
    Key,
    Spelled,
    inversions,
    on_letter,
    parse_spelled,
)
from engine.identify.vocabulary import VOCABULARY

DEFAULT_ROOTS = tuple(Spelled(letter, alter) for letter, alter in (
    (0, 0), (1, -1), (1, 0), (2, -1), (2, 0), (3, 0), (3, 1), (4, 0), (5, -1), (5, 0),
    (6, -1), (6, 0)))


class Spelt(NamedTuple):
    """A quality of the vocabulary on a spelled root."""

    symbol: str                          # root and canonical suffix, no bass
    root: str
    quality: str
    tones: dict[int, Spelled]            # pitch class -> its name in the chord (do not change)
    pcs: tuple[int, ...]                 # the tones' pitch classes, in interval order
    inversions: tuple[int | None, ...]   # bass pitch class -> the inversion over it
    mask: int                            # the tones' 12-bit set
    names: tuple[str, ...]               # pitch class -> its name: the tone's, else the default
    spelled: Spelled                     # the root
    entry: int                           # index into VOCABULARY


def named_root(root: int, entry: int, spelling: dict[int, Spelled],
               roots: tuple[Spelled, ...]) -> Spelled:
    """The root of quality ``entry`` on pitch class ``root`` as named notes spell it: the root's
    own name, else counted down from the first tone named (B as the third of G), else
    ``roots`` (the key's spelling or ``DEFAULT_ROOTS``)."""
    sp = spelling.get(root)
    if sp is not None:
        return sp
    for semis, steps in _STEPS[entry]:
        tone = spelling.get((root + semis) % 12)
        if tone is not None:
            found = _ON_LETTER[root * 7 + (tone.letter - steps) % 7]
            if found is not None:
                return found
    return roots[root]


@lru_cache(maxsize=64)
def key_spelling(key: Key) -> tuple[tuple[Spelled, ...], tuple[str, ...]]:
    """Pitch class -> its note in ``key``'s scale, else the default root; and their names."""
    roots = tuple(next((sp for sp in key.scale if sp.pc == pc), DEFAULT_ROOTS[pc])
                  for pc in range(12))
    return roots, tuple(sp.name for sp in roots)


def spelt(entry: int, root: Spelled) -> Spelt:
    """Quality ``entry`` on ``root`` (kept: do not change it)."""
    found = _SPELT.get((entry, root))
    if found is None:
        found = _SPELT[entry, root] = _spell(entry, root)
    return found


def _spell(entry: int, root: Spelled) -> Spelt:
    q = VOCABULARY[entry].quality
    degrees = SPELLED_DEGREE[root]
    spelled = [degrees[label] for label in q.labels]
    pcs = tuple(pc for _, pc in spelled)
    names = [*_DEFAULT_NAMES]
    for name, pc in spelled:
        names[pc] = name
    tones = {pc: _SPELLED[name] for name, pc in spelled}   # b5 and #11 share one
    return Spelt(root.name + q.canonical, root.name, q.canonical, tones, pcs,
                 inversions(q, pcs), sum(1 << pc for pc in tones), tuple(names), root, entry)


_DEFAULT_NAMES = tuple(sp.name for sp in DEFAULT_ROOTS)
DEFAULT_SPELLING = (DEFAULT_ROOTS, _DEFAULT_NAMES)
"""``key_spelling`` without a key."""
# quality index -> (semitones above the root, letter steps) of its tones but the root
_STEPS = tuple(tuple((semis % 12, number - 1) for number, semis in zip(
    e.quality.numbers, e.quality.semitones, strict=True) if semis % 12)
    for e in VOCABULARY)
# pitch class * 7 + letter -> the pitch class on that letter, None past one accidental
_ON_LETTER = tuple(sp if abs(sp.alter) <= 1 else None
                   for sp in (on_letter(pc, letter) for pc in range(12) for letter in range(7)))
_SPELLED = {name: parse_spelled(name) for degrees in SPELLED_DEGREE.values()
            for name, _ in degrees.values()}
_SPELT: dict[tuple[int, Spelled], Spelt] = {
    (entry, root): _spell(entry, root) for entry in range(len(VOCABULARY))
    for root in DEFAULT_ROOTS}
UNNAMED: tuple[tuple[Spelt, ...], ...] = tuple(
    tuple(_SPELT[entry, root] for entry in range(len(VOCABULARY))) for root in DEFAULT_ROOTS)
"""Root pitch class -> quality index -> the chord unnamed notes read as without a key."""
