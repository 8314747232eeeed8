"""Ranking the readings of one set of notes, as musicians name chords.

``RANKED[mask, bass]`` (built once with numpy from ``engine.identify.table``, for every one of
the 4,096 sets on each of the 12 basses and on none) gives the readings of the set over that
bass, cheapest first: one row, never a search. The bass moves their costs by the first rule
below; the key and the spelling of named notes move them at the call (a few readings to
re-sort: the rules over ``KEY_ROOTLESS`` and ``SIXTHS``, and ``SPELLING_COST`` in
``engine.identify.answer``, which spells the readings):

- the bass: a reading on the bass is in root position (no cost); another reading is a slash
  chord, an inversion when the bass is one of its tones (``SLASH_COST``), a chord over a bass
  outside it otherwise (``FOREIGN_BASS_COST``, read from the set without the bass). So ``C E G
  A`` over C is ``C6`` and over A ``Am7``. A rootless reading takes no slash: its root is the
  bass player's note, so the lowest note of the voicing is not its bass.
- the key, where no bass is known: ``KEY_ROOTLESS`` lists the rootless readings a key makes
  the first name (``B D F A`` in C is the dominant ``G9`` without its root, Bill Evans' and
  every jazz pianist's voicing; without the key it is ``Bm7b5``; ``F B E Ab`` in C minor is
  ``G13b9``, Bill Evans' voicing of V). A known bass decides first:
  ``B3 D4 F4 A4`` stands on B, ``Bm7b5``; over G it is ``G9`` with its root.
- the key and a sixth chord: in a key, a sixth chord off the tonic reads as the seventh chord
  it inverts (``F A C D`` in C is ``Dm7/F``, the ii65 of every harmony text, before ``F6``;
  ``D F Ab C`` in C minor ``Dm7b5/F`` before ``Fm6``); on the tonic it stays (``C6`` in C,
  the tonic of countless standards). ``SIXTH_OFF_TONIC_COST``.
- the spelling: each named note spelled otherwise by the reading costs ``SPELLING_COST``.

Equal costs keep the order the readings had before the bass moved them (the set's own
readings, then those over a foreign bass): ``Ranked.order``.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import NamedTuple

import numpy as np

from engine.analysis import SLASH_SUS
from engine.chords import Key
from engine.identify.table import (
    ENTRY_MASK,
    EXACT_COUNT,
    KEEP,
    SET_COST,
    SET_COUNT,
    SET_ENTRY,
    SET_ROOT,
    Ints,
    chord_masks,
)
from engine.identify.vocabulary import VOCABULARY

SLASH_COST = 2.0
FOREIGN_BASS_COST = 3.0
SPELLING_COST = 2.5
# (mode, root above the tonic) -> rootless qualities promoted, and by how much.
KEY_ROOTLESS: MappingProxyType[tuple[str, int], frozenset[str]] = MappingProxyType({
    ("major", 7): frozenset({"9", "13", "13b9"}),
    ("minor", 7): frozenset({"13b9"}),
})
KEY_ROOTLESS_BONUS = 5.0
SIXTHS = frozenset({"6", "m6"})
SIXTH_OFF_TONIC_COST = 2.5
NO_BASS = 12                # the bass index of a set heard without a bass

# One reading of a row packed in a 32-bit integer, so that sorting the integers sorts the
# readings by (cost, order): twice the cost, the order, sus, slash, rootless, root, quality
# index. Sus: a slash chord heard as a sus dominant (``F/G``: G9sus4), whose role is that
# chord's (``engine.identify.roles.sus_role``).
ROOT_SHIFT, ROOTLESS_SHIFT, SLASH_SHIFT, SUS_SHIFT, _ORDER_SHIFT, COST_SHIFT = \
    9, 13, 14, 15, 16, 21
ENTRY_BITS = (1 << ROOT_SHIFT) - 1
NONE = int(np.iinfo(np.int32).max)     # past the last reading of a row


class Ranked(NamedTuple):
    cost: float
    order: int          # the place before the bass moved the costs, for equal costs
    root: int           # pitch class
    entry: int          # index into VOCABULARY
    slash: bool         # written over the bass
    rootless: bool
    omitted: int        # 12-bit mask of the chord tones left out (or, nearest, missing)


def _pack(cost2: Ints, order: Ints, slash: Ints | int, rootless: Ints | int, root: Ints,
          entry: Ints, bass: int | None = None) -> Ints:
    sus = 0 if bass is None else slash * _SUS[entry, (bass - root) % 12]
    return ((cost2 << COST_SHIFT) | (order << _ORDER_SHIFT) | (sus << SUS_SHIFT)
            | (slash << SLASH_SHIFT) | (rootless << ROOTLESS_SHIFT) | (root << ROOT_SHIFT)
            | entry)


def _sus_table() -> Ints:
    """Quality index, the bass's semitones above the root -> 1 where the slash chord is heard
    as a sus chord (analyze's ``SLASH_SUS``: ``F/G`` is G9sus4)."""
    table = np.zeros((len(VOCABULARY), 12), dtype=np.int32)
    for index, entry in enumerate(VOCABULARY):
        for semitones, bass in SLASH_SUS:
            if semitones == entry.semitones:
                table[index, bass] = 1
    return table


_SUS = _sus_table()


def _build() -> Ints:
    """(4096 * 13, 2 * KEEP) packed readings, sorted, ``NONE`` after the last; built a bass
    at a time (arrays of 4096 x KEEP stay in the cache)."""
    i32 = np.int32
    masks = np.arange(4096, dtype=i32)[:, None]
    place = np.arange(KEEP, dtype=i32)[None, :]
    root = np.maximum(SET_ROOT, 0).astype(i32)
    entry = np.maximum(SET_ENTRY, 0).astype(i32)
    cost2 = (2 * np.where(np.isfinite(SET_COST), SET_COST, 0)).astype(i32)
    assert cost2.max() + 2 * (SLASH_COST + FOREIGN_BASS_COST) < 1 << (31 - COST_SHIFT), \
        "a cost past its bits"
    rootless = ((masks >> root) & 1) ^ 1
    listed = place < SET_COUNT[:, None]
    exact = place < EXACT_COUNT[:, None]
    chord = chord_masks(root, entry).astype(i32)
    order = (SET_COUNT[:, None] + place).astype(i32)
    table = np.full((4096, NO_BASS + 1, 2 * KEEP), NONE, dtype=i32)
    # no bass: the set's own readings as they are
    table[:, NO_BASS, :KEEP] = np.where(listed, _pack(cost2, place, 0 * root, rootless, root,
                                                       entry), NONE)
    for bass in range(NO_BASS):
        # the set's own readings: a slash chord when the bass is not the root
        slash = ((root != bass) & (rootless == 0)).astype(i32)
        table[:, bass, :KEEP] = np.where(listed, _pack(
            cost2 + int(2 * SLASH_COST) * slash, place, slash, rootless, root, entry, bass),
            NONE)
        # a chord over a bass outside it: the set without the bass, read exactly, on a root
        # of it
        rest = np.arange(4096, dtype=np.int64) & ~(1 << bass)
        usable = exact[rest] & ((chord[rest] >> bass) & 1 == 0) & \
            ((rest[:, None] >> root[rest]) & 1 == 1)
        table[:, bass, KEEP:] = np.where(usable, _pack(
            cost2[rest] + int(2 * FOREIGN_BASS_COST), order, 1, 0, root[rest], entry[rest],
            bass), NONE)
    table.sort(axis=2)
    rows = table.reshape(4096 * (NO_BASS + 1), 2 * KEEP)
    rows.flags.writeable = False
    return rows


RANKED = _build()
"""Row ``mask * 13 + bass`` (bass 12: none): the readings packed, cheapest first."""
_CHORD: tuple[int, ...] = tuple(
    ((m << r) | (m >> (12 - r))) & 0xFFF for r in range(12) for m in ENTRY_MASK.tolist())
_SIXTH_ENTRIES = frozenset(i for i, e in enumerate(VOCABULARY) if e.suffix in SIXTHS)
# mode -> root above the tonic -> the quality indices a key promotes as rootless readings
_PROMOTED: dict[str, tuple[frozenset[int], ...]] = {mode: tuple(
    frozenset(i for i, e in enumerate(VOCABULARY)
              if e.suffix in KEY_ROOTLESS.get((mode, offset), ())) for offset in range(12))
    for mode in ("major", "minor")}
SPELLING_MOVE = int(2 * SPELLING_COST) << COST_SHIFT   # a packed reading's cost, moved
_SIXTH_MOVE = int(2 * SIXTH_OFF_TONIC_COST) << COST_SHIFT
_ROOTLESS_MOVE = int(2 * KEY_ROOTLESS_BONUS) << COST_SHIFT


def _row_facts() -> tuple[bytes, memoryview]:
    """Per row: how many readings it holds (a byte), and which of them a key can move (a
    sixth chord from the set's own readings, or a rootless reading of a quality some key
    promotes, without a bass): a 32-bit integer with a bit at each such place. Read without
    numpy."""
    count = (RANKED != NONE).sum(axis=1)
    entry = RANKED & ENTRY_BITS
    listed = RANKED != NONE
    promoted = sorted(set().union(*(s for rows in _PROMOTED.values() for s in rows)))
    own = SET_COUNT.repeat(NO_BASS + 1)[:, None]
    no_bass = (np.arange(len(RANKED)) % (NO_BASS + 1) == NO_BASS)[:, None]
    order = RANKED >> _ORDER_SHIFT & 31
    sixth = np.isin(entry, sorted(_SIXTH_ENTRIES)) & (order < own)
    rootless = np.isin(entry, promoted) & (RANKED >> ROOTLESS_SHIFT & 1 == 1) & no_bass
    movable = (sixth | rootless) & listed
    bits = (movable.astype(np.uint32) << np.arange(2 * KEEP, dtype=np.uint32)).sum(
        axis=1, dtype=np.uint32)
    return count.astype(np.uint8).tobytes(), memoryview(bits.tobytes()).cast("I")


_COUNT, _MOVABLE = _row_facts()
_WIDTH = RANKED.shape[1]
_ROWS = memoryview(RANKED.data).cast("B").cast("i")
"""``RANKED``'s memory read without numpy (no copy): a row's slice is
``_ROWS[index * _WIDTH:]`` (``keyed``) (a memoryview's slice to a list: ~0.2 µs against ~0.25 for a
numpy row's)."""


def keyed(mask: int, bass: int | None, key: Key | None) -> list[int]:
    """The packed readings of ``mask`` over ``bass`` (None: no bass), cheapest first, with
    the key's rules applied (None: none): a sixth chord off the tonic (not over a foreign
    bass) costs ``SIXTH_OFF_TONIC_COST`` more, a rootless reading the key promotes (without a
    bass) ``KEY_ROOTLESS_BONUS`` less; re-sorted. Only the places ``_MOVABLE`` flags are read.
    A cost may go below zero: the packed integer still sorts by (cost, order) and its fields
    read as before."""
    index = mask * 13 + (NO_BASS if bass is None else bass)
    start = index * _WIDTH
    values: list[int] = _ROWS[start:start + _COUNT[index]].tolist()
    movable = _MOVABLE[index] if key is not None else 0
    if not movable:
        return values
    tonic = key.tonic.pc   # type: ignore[union-attr]
    promoted = _PROMOTED[key.mode]   # type: ignore[union-attr]
    moved = False
    while movable:
        place = (movable & -movable).bit_length() - 1
        movable &= movable - 1
        v = values[place]
        entry, root = v & ENTRY_BITS, v >> ROOT_SHIFT & 15
        if entry in _SIXTH_ENTRIES:
            if root != tonic:
                values[place] = v + _SIXTH_MOVE
                moved = True
        elif entry in promoted[(root - tonic) % 12]:
            values[place] = v - _ROOTLESS_MOVE
            moved = True
    if moved:
        values.sort()
    return values


def cost_of(value: int) -> float:
    """The cost of a packed reading."""
    return (value >> COST_SHIFT) / 2


def decode(value: int, mask: int) -> Ranked:
    """One packed reading of ``mask``'s row."""
    root = value >> ROOT_SHIFT & 15
    entry = value & ENTRY_BITS
    return Ranked((value >> COST_SHIFT) / 2, value >> _ORDER_SHIFT & 31, root, entry,
                  bool(value >> SLASH_SHIFT & 1), bool(value >> ROOTLESS_SHIFT & 1),
                  _CHORD[root * len(VOCABULARY) + entry] & ~mask)


def rank(mask: int, bass: int | None, key: Key | None) -> list[Ranked]:
    """The readings of ``mask`` (every sounding pitch class, the bass's too), best first, by
    the bass and the key (``engine.identify.answer`` adds the spelling's cost), decoded from
    ``keyed``."""
    return [decode(v, mask) for v in keyed(mask, bass, key)]


__all__ = [
    "COST_SHIFT",
    "ENTRY_BITS",
    "NONE",
    "NO_BASS",
    "RANKED",
    "ROOTLESS_SHIFT",
    "ROOT_SHIFT",
    "SLASH_SHIFT",
    "SPELLING_COST",
    "SPELLING_MOVE",
    "SUS_SHIFT",
    "Ranked",
    "cost_of",
    "decode",
    "keyed",
    "rank",
]
