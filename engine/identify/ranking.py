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
  every jazz pianist's voicing; without the key it is ``Bm7b5``). A known bass decides first:
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

from functools import lru_cache
from types import MappingProxyType
from typing import NamedTuple

import numpy as np

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
    ("major", 7): frozenset({"9", "13"}),
})
KEY_ROOTLESS_BONUS = 5.0
SIXTHS = frozenset({"6", "m6"})
SIXTH_OFF_TONIC_COST = 2.5
NO_BASS = 12                # the bass index of a set heard without a bass

# One reading of a row packed in an integer, so that sorting the integers sorts the readings
# by (cost, order): twice the cost, the order, slash, rootless, root, quality index.
_ENTRY_BITS, ROOT_SHIFT, ROOTLESS_SHIFT, SLASH_SHIFT, _ORDER_SHIFT, _COST_SHIFT = (
    13, 13, 17, 18, 19, 24)
ENTRY_BITS = (1 << _ENTRY_BITS) - 1
NONE = int(np.iinfo(np.int64).max)     # past the last reading of a row


class Ranked(NamedTuple):
    cost: float
    order: int          # the place before the bass moved the costs, for equal costs
    root: int           # pitch class
    entry: int          # index into VOCABULARY
    slash: bool         # written over the bass
    rootless: bool
    omitted: int        # 12-bit mask of the chord tones left out (or, nearest, missing)


def _pack(cost: Ints, order: Ints, slash: Ints, rootless: Ints, root: Ints,
          entry: Ints) -> Ints:
    return ((cost << _COST_SHIFT) | (order << _ORDER_SHIFT) | (slash << SLASH_SHIFT)
            | (rootless << ROOTLESS_SHIFT) | (root << ROOT_SHIFT) | entry)


def _build() -> Ints:
    """(4096 * 13, 2 * KEEP) packed readings, sorted, ``NONE`` after the last."""
    masks = np.arange(4096, dtype=np.int64)[:, None, None]
    bass = np.arange(NO_BASS + 1, dtype=np.int64)[None, :, None]
    place = np.arange(KEEP, dtype=np.int64)[None, None, :]
    # the set's own readings: a slash chord when the bass is not the root
    root = np.broadcast_to(SET_ROOT[:, None, :], (4096, NO_BASS + 1, KEEP))
    entry = np.broadcast_to(SET_ENTRY[:, None, :], root.shape)
    safe = np.maximum(root, 0)
    rootless = ((masks >> safe) & 1) ^ 1
    slash = ((bass < NO_BASS) & (bass != root) & (rootless == 0)).astype(np.int64)
    cost2 = (2 * np.where(np.isfinite(SET_COST), SET_COST, 0)).astype(np.int64)[:, None, :] \
        + int(2 * SLASH_COST) * slash
    own = np.where(place < SET_COUNT[:, None, None],
                   _pack(cost2, np.broadcast_to(place, root.shape), slash, rootless, safe,
                         np.maximum(entry, 0)), NONE)
    # a chord over a bass outside it: the set without the bass, read exactly, on a root of it
    pcs = np.arange(NO_BASS, dtype=np.int64)
    rest = (masks[:, :, 0] & ~(1 << pcs)[None, :])                # (4096, 12)
    f_root, f_entry = SET_ROOT[rest], SET_ENTRY[rest]              # (4096, 12, KEEP)
    f_safe = np.maximum(f_root, 0)
    chord = chord_masks(f_safe, np.maximum(f_entry, 0))
    usable = ((place < EXACT_COUNT[rest][:, :, None]) & ((chord >> pcs[None, :, None]) & 1 == 0)
              & ((rest[:, :, None] >> f_safe) & 1 == 1))
    f_cost2 = (2 * np.where(usable, SET_COST[rest], 0)).astype(np.int64) \
        + int(2 * FOREIGN_BASS_COST)
    order = SET_COUNT[:, None, None] + place
    foreign = np.where(usable, _pack(f_cost2, np.broadcast_to(order, f_root.shape),
                                     np.ones_like(f_root), np.zeros_like(f_root), f_safe,
                                     np.maximum(f_entry, 0)), NONE)
    foreign = np.concatenate([foreign, np.full((4096, 1, KEEP), NONE)], axis=1)
    table = np.sort(np.concatenate([own, foreign], axis=2), axis=2)
    table = np.ascontiguousarray(table.reshape(4096 * (NO_BASS + 1), 2 * KEEP))
    table.flags.writeable = False
    return table


RANKED = _build()
"""Row ``mask * 13 + bass`` (bass 12: none): the readings packed, cheapest first."""
_CHORD: tuple[int, ...] = tuple(
    ((m << r) | (m >> (12 - r))) & 0xFFF for r in range(12) for m in ENTRY_MASK.tolist())


def row(mask: int, bass: int | None) -> list[int]:
    """The packed readings of ``mask`` over ``bass`` (None: no bass), cheapest first."""
    values: list[int] = RANKED[mask * 13 + (NO_BASS if bass is None else bass)].tolist()
    return values


def decode(value: int, mask: int) -> Ranked:
    """One packed reading of ``mask``'s row."""
    root = value >> ROOT_SHIFT & 15
    entry = value & ENTRY_BITS
    return Ranked((value >> _COST_SHIFT) / 2, value >> _ORDER_SHIFT & 31, root, entry,
                  bool(value >> SLASH_SHIFT & 1), bool(value >> ROOTLESS_SHIFT & 1),
                  _CHORD[root * len(VOCABULARY) + entry] & ~mask)


def top(mask: int, bass: int | None, n: int) -> list[Ranked]:
    """The ``n`` best readings without a key (fewer when the set has fewer)."""
    out = []
    for value in row(mask, bass)[:n]:
        if value == NONE:
            break
        out.append(decode(value, mask))
    return out


def rank(mask: int, bass: int | None, key: Key | None) -> list[Ranked]:
    """The readings of ``mask`` (every sounding pitch class, the bass's too), best first, by
    the bass and the key (``engine.identify.answer`` adds the spelling's cost). Shared: do not
    change the list."""
    return _ranked(mask, bass, key)


@lru_cache(maxsize=4096)
def _ranked(mask: int, bass: int | None, key: Key | None) -> list[Ranked]:
    out = [decode(v, mask) for v in row(mask, bass) if v != NONE]
    if key is None:
        return out
    tonic, own = key.tonic.pc, int(SET_COUNT[mask])
    moved = []
    for r in out:
        suffix = VOCABULARY[r.entry].suffix
        cost = r.cost
        if r.order < own and r.root != tonic and suffix in SIXTHS:  # not over a foreign bass
            cost += SIXTH_OFF_TONIC_COST
        if r.rootless and bass is None and suffix in KEY_ROOTLESS.get(
                (key.mode, (r.root - tonic) % 12), ()):
            cost -= KEY_ROOTLESS_BONUS
        moved.append(r if cost == r.cost else r._replace(cost=cost))
    moved.sort()
    return moved


__all__ = ["ENTRY_BITS", "NONE", "NO_BASS", "RANKED", "ROOTLESS_SHIFT", "ROOT_SHIFT",
           "SLASH_SHIFT", "Ranked", "decode", "rank", "row", "top"]
