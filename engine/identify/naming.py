"""Spelling a reading: its root's name, its symbol in our grammar and its notes.

A named note names itself: the root is spelled as the notes given spell it, or, for a rootless
reading, counted down from a tone given (B as the third of G: ``TONE_STEPS``). Unnamed notes
(MIDI numbers, pitch classes) take the key's spelling when the root is in its scale, else
``DEFAULT_ROOTS``, the roots jazz charts write (Bb7, Eb, F#m7, Ab).

``spelt(entry, root)`` is a quality on a spelled root with everything an answer writes of it
(symbol, tones, inversion over a bass), built once from the quality tables without parsing
a symbol: on the roots of ``DEFAULT_ROOTS`` for every quality at import, so that the first
call for a set of pitch classes or MIDI numbers reads tables only.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter
from typing import Any

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


@dataclass(slots=True, eq=False)
class Spelt:
    """A quality of the vocabulary on a spelled root. Fields in slots, not a named tuple: a
    slot is read in a third of the instructions of a named tuple's field (Python 3.11,
    counted with valgrind), and an answer reads a dozen a reading."""

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
    head: dict[str, Any]                 # a reading of it in root position, to copy (below;
                                         # in a key ``roles.role_head``)
    respell: int                         # each tone's other letters (``letter_bit``): a
                                         # named note on one is spelled otherwise
    respell_rootless: int                # ... when read without its root (differs from
                                         # ``respell`` by ``SHARP_NINE_AS_THIRD`` alone)
    at: int                              # the root as ``spelled_at``
    place: int                           # ``at * QUALITIES + entry``: its place in ``SPELT``
    tone_names: tuple[str, ...]          # the tones' names, in interval order (as ``pcs``)
    tone_pick: itemgetter                # a 12-tuple -> its items at ``pcs``, in their order


def spelled_at(sp: Spelled) -> int:
    """A spelled root's index (0..34: letter * 5 + alteration + 2) into the chords kept."""
    return sp.letter * 5 + sp.alter + 2


def letter_bit(pc: int, letter: int) -> int:
    """A pitch class spelled on a letter, as one bit of three at 3 * ``pc``: a pitch class is
    spelled on at most three letters with at most two accidentals (B#, C, Dbb), the bit says
    which (``_LOWEST_LETTER``). A letter past those is 0: no bit. A set of named notes is the
    sum of their bits, and ``Spelt.respell`` a chord's tones' other letters, so that the notes
    a chord spells otherwise are the bits of one ``&``, and their number its ``bit_count``."""
    step = (letter - _LOWEST_LETTER[pc]) % 7
    return 1 << 3 * pc + step if step < 3 else 0


@lru_cache(maxsize=64)
def key_spelling(key: Key | None) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """Pitch class -> its note in ``key``'s scale, else the default root (None: no key), as
    ``spelled_at``; and their names."""
    roots = tuple(next((sp for sp in key.scale if sp.pc == pc), DEFAULT_ROOTS[pc])
                  for pc in range(12)) if key is not None else DEFAULT_ROOTS
    return tuple(map(spelled_at, roots)), tuple(sp.name for sp in roots)


def spelt(at: int, entry: int) -> Spelt:
    """Quality ``entry`` on the root ``at`` (``spelled_at``), kept: do not change it."""
    found = SPELT[at * QUALITIES + entry]
    if found is None:
        found = SPELT[at * QUALITIES + entry] = _spell(entry, _ROOT_AT[at])
    return found


def _spell(entry: int, root: Spelled) -> Spelt:
    q = VOCABULARY[entry].quality
    degrees = SPELLED_DEGREE[root]
    spelled = [degrees[label] for label in q.labels]
    pcs = tuple(pc for _, pc in spelled)
    names = [*_DEFAULT_NAMES]
    tones: dict[int, Spelled] = {}
    for name, pc in spelled:   # b5 and #11 share one: the later named
        names[pc] = name
        tones[pc] = _SPELLED[name]
    mask = respell = 0
    for pc, tone in tones.items():
        mask |= 1 << pc
        respell |= 7 << 3 * pc ^ letter_bit(pc, tone.letter)
    rootless = respell
    if SHARP_NINE_AS_THIRD.issubset(q.labels):   # C7#9b13 voiced C E Bb Eb Ab
        respell &= ~letter_bit((root.pc + 3) % 12, (root.letter + 2) % 7)
    root_name, quality = root.name, q.canonical
    symbol = root_name + quality
    head = reading_head(symbol, root_name, quality)
    at = spelled_at(root)
    return Spelt(symbol, root_name, quality, tones, pcs, inversions(q, pcs), mask, tuple(names),
                 root, entry, head, respell, rootless, at,
                 at * QUALITIES + entry, tuple(names[pc] for pc in pcs), itemgetter(*pcs))


def reading_head(symbol: str, root: str, quality: str) -> dict[str, Any]:
    """A reading's fields in the answer's order, those of a chord in root position filled:
    ``engine.identify.answer`` copies it and sets the rest (a copy of a small dict is faster
    than building one). Never handed out: do not change it. In a key, each key keeps a head
    with the chord's ``numeral`` and ``function`` (``engine.identify.roles.role_head``)."""
    return {"symbol": symbol, "root": root, "quality": quality, "bass": None, "inversion": 0,
            "rootless": False, "explains": None, "omitted": None, "added": None}


SHARP_NINE_AS_THIRD = frozenset({"3", "b7", "#9"})
"""A dominant's sharp ninth is written on the minor third's letter as often as on the ninth's
(C7#9 voiced C E Bb Eb, Hendrix's E7#9 with a G; docs/identify.md): a chord holding these
labels spells the note either way at no cost, when its root sounds. Read without its root
the minor third's letter costs as any other (``Gb Eb E Bb`` stays ``Gb13``, not a rootless
``C7b5#9`` over Gb)."""
_DEFAULT_NAMES = tuple(sp.name for sp in DEFAULT_ROOTS)
TONE_STEPS = tuple(tuple((semis % 12, number - 1) for number, semis in zip(
    e.quality.numbers, e.quality.semitones, strict=True) if semis % 12)
    for e in VOCABULARY)
"""Quality index -> (semitones above the root, letter steps) of its tones but the root, in
the quality's order: a root not named is counted down from the first tone named (B as the
third of G, ``ON_LETTER``; ``engine.identify.answer``)."""
ON_LETTER = tuple(spelled_at(sp) if abs(sp.alter) <= 1 else -1
                  for sp in (on_letter(pc, letter) for pc in range(12) for letter in range(7)))
"""Pitch class * 7 + letter -> that pitch class spelled on that letter (``spelled_at``), -1
past one accidental."""
# pitch class -> the lowest (cyclically) of the letters it is spelled on with at most two
# accidentals (B for C: B#, C, Dbb)
_LOWEST_LETTER = tuple(next(
    letter for letter in range(7)
    if abs(on_letter(pc, letter).alter) <= 2 and abs(on_letter(pc, (letter - 1) % 7).alter) > 2)
    for pc in range(12))
_SPELLED = {name: parse_spelled(name) for degrees in SPELLED_DEGREE.values()
            for name, _ in degrees.values()}
QUALITIES = len(VOCABULARY)
_ROOT_AT = tuple(Spelled(at // 5, at % 5 - 2) for at in range(35))
SPELT: list[Spelt | None] = [None] * (len(_ROOT_AT) * QUALITIES)
"""Root (``spelled_at``) * ``QUALITIES`` + quality index -> the chord, once spelt (``spelt``)."""
UNNAMED: tuple[tuple[Spelt, ...], ...] = tuple(
    tuple(spelt(spelled_at(root), entry) for entry in range(QUALITIES)) for root in DEFAULT_ROOTS)
"""Root pitch class -> quality index -> the chord unnamed notes read as without a key."""
