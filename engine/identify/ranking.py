"""Ranking the readings of one set of notes, as musicians name chords.

``READINGS[mask]`` (``engine.identify.table``) gives the readings of the set cheapest first;
here the bass and the key move their costs, by the rules below, and the spelling of named
notes breaks what the pitch classes alone cannot (a diminished seventh, an augmented triad):

- the bass: a reading on the bass is in root position (no cost); another reading is a slash
  chord, an inversion when the bass is one of its tones (``SLASH_COST``), a chord over a bass
  outside it otherwise (``FOREIGN_BASS_COST``, read from the set without the bass). So ``C E G
  A`` over C is ``C6`` and over A ``Am7``. A rootless reading takes no slash: its root is the
  bass player's note, so the lowest note of the voicing is not its bass.
- the key, where no bass is known: ``KEY_ROOTLESS`` lists the rootless readings a key makes
  the first name (``B D F A`` in C is the dominant ``G9`` without its root, Bill Evans' and
  every jazz pianist's voicing; without the key it is ``Bm7b5``). A known bass decides first:
  ``B3 D4 F4 A4`` stands on B, ``Bm7b5``; over G it is ``G9`` with its root.
- the key and a sixth chord: in a key, a sixth chord off the tonic reads as the seventh chord
  it inverts (``F A C D`` in C is ``Dm7/F``, the ii65 of every harmony text, before ``F6``;
  ``D F Ab C`` in C minor ``Dm7b5/F`` before ``Fm6``); on the tonic it stays (``C6`` in C,
  the tonic of countless standards). ``SIXTH_OFF_TONIC_COST``.
- the spelling: each named note spelled otherwise by the reading costs ``SPELLING_COST``
  (added in ``engine.identify.answer``, which spells the readings).
"""

from __future__ import annotations

from functools import lru_cache
from types import MappingProxyType
from typing import NamedTuple

from engine.chords import Key
from engine.identify.table import OMISSION_COST, READINGS, Reading, omittable
from engine.identify.vocabulary import VOCABULARY

SLASH_COST = 2.0
FOREIGN_BASS_COST = 3.0
SPELLING_COST = 2.5
ADDED_COST = 4.0          # a set no reading names: each tone a reading leaves unexplained
MISSING_COST = 5.0        # ... and each tone it needs that is not there (a fifth or root: as omitted)
NEAREST = 3               # readings given for a set no reading names
# (mode, root above the tonic) -> rootless qualities promoted, and by how much.
KEY_ROOTLESS: MappingProxyType[tuple[str, int], frozenset[str]] = MappingProxyType({
    ("major", 7): frozenset({"9", "13"}),
})
KEY_ROOTLESS_BONUS = 5.0
SIXTHS = frozenset({"6", "m6"})
SIXTH_OFF_TONIC_COST = 2.5


class Ranked(NamedTuple):
    cost: float
    order: int          # the table's order, for equal costs
    reading: Reading
    slash: bool         # written over the bass
    rootless: bool


def rank(mask: int, bass: int | None, key: Key | None) -> list[Ranked]:
    """The readings of ``mask`` (every sounding pitch class, the bass's too), best first, by
    the bass and the key (``engine.identify.answer`` adds the spelling's cost). Shared: do not
    change the list."""
    return _candidates(mask, bass, key)


@lru_cache(maxsize=4096)
def _candidates(mask: int, bass: int | None, key: Key | None) -> list[Ranked]:
    out: list[Ranked] = []
    for order, r in enumerate(READINGS[mask] or _nearest(mask)):
        rootless = bool(r.omitted >> r.root & 1)
        cost = r.cost
        slash = bass is not None and bass != r.root and not rootless
        if slash:
            cost += SLASH_COST
        if key is not None and r.root != key.tonic.pc and VOCABULARY[r.entry].suffix in SIXTHS:
            cost += SIXTH_OFF_TONIC_COST
        if rootless and key is not None and bass is None:
            promoted = KEY_ROOTLESS.get((key.mode, (r.root - key.tonic.pc) % 12), frozenset())
            if VOCABULARY[r.entry].suffix in promoted:
                cost -= KEY_ROOTLESS_BONUS
        out.append(Ranked(cost, order, r, slash, rootless))
    if bass is not None and mask & ~(1 << bass):
        # a chord over a bass outside it: C/D is C major over D
        for order, r in enumerate(READINGS[mask & ~(1 << bass)], start=len(out)):
            if r.chord >> bass & 1 or r.omitted >> r.root & 1:
                continue
            out.append(Ranked(r.cost + FOREIGN_BASS_COST, order, r, True, False))
    out.sort()
    return out


@lru_cache(maxsize=1024)
def _nearest(mask: int) -> tuple[Reading, ...]:
    """For a set no reading names: the readings that come nearest, each tone added or
    missing counted, each on a note of the set (a search, done once per such set)."""
    found: list[Reading] = []
    for index, entry in enumerate(VOCABULARY):
        drop = dict(omittable(entry))
        for root in range(12):
            if not mask >> root & 1:
                continue  # a nearest reading stands on a note given
            chord = ((entry.mask << root) | (entry.mask >> (12 - root))) & 0xFFF
            if not chord & mask:
                continue
            missing = chord & ~mask
            cost = entry.cost + ADDED_COST * (mask & ~chord).bit_count()
            for pc in range(12):
                if missing >> pc & 1:
                    cost += drop.get((pc - root) % 12, MISSING_COST)
            found.append(Reading(cost, root, index, chord, missing))
    found.sort()
    return tuple(found[:NEAREST])


__all__ = ["OMISSION_COST", "Ranked", "rank"]
