"""The slow twin of ``engine.identify.table`` and ``engine.identify.ranking``: the readings of
a set built by looping over the vocabulary, a set no reading names searched for its nearest
readings, and the bass and the key applied to one set at a time. This is how identify ranked
before the table (grid 8); the tests compare the table against it.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations
from typing import NamedTuple

from engine.chords import Key, transpose_mask
from engine.identify.ranking import (
    FOREIGN_BASS_COST,
    KEY_ROOTLESS,
    KEY_ROOTLESS_BONUS,
    SIXTH_OFF_TONIC_COST,
    SIXTHS,
    SLASH_COST,
    Ranked,
)
from engine.identify.table import ADDED_COST, KEEP, MISSING_COST, NEAREST, omittable
from engine.identify.vocabulary import VOCABULARY


class Reading(NamedTuple):
    cost: float
    root: int
    entry: int
    chord: int
    omitted: int


@cache
def readings() -> tuple[tuple[Reading, ...], ...]:
    """Every set's exact readings, cheapest first, at most ``KEEP``."""
    buckets: list[list[Reading]] = [[] for _ in range(4096)]
    for index, entry in enumerate(VOCABULARY):
        drops = omittable(entry)
        for n in range(len(drops) + 1):
            for subset in combinations(drops, n):
                left_out = sum(1 << semis for semis, _ in subset)
                rest = entry.mask & ~left_out
                if rest.bit_count() < 2 or (n and rest.bit_count() < 3):
                    continue
                cost = entry.cost + sum(c for _, c in subset)
                for root in range(12):
                    buckets[transpose_mask(rest, root)].append(Reading(
                        cost, root, index, transpose_mask(entry.mask, root),
                        transpose_mask(left_out, root)))
    return tuple(tuple(sorted(b)[:KEEP]) for b in buckets)


@cache
def nearest(mask: int) -> tuple[Reading, ...]:
    """For a set no reading names: every quality on every note of the set, priced."""
    found: list[Reading] = []
    for index, entry in enumerate(VOCABULARY):
        drop = dict(omittable(entry))
        for root in range(12):
            if not mask >> root & 1:
                continue
            chord = transpose_mask(entry.mask, root)
            missing = chord & ~mask
            cost = entry.cost + ADDED_COST * (mask & ~chord).bit_count()
            for pc in range(12):
                if missing >> pc & 1:
                    cost += drop.get((pc - root) % 12, MISSING_COST)
            found.append(Reading(cost, root, index, chord, missing))
    found.sort()
    return tuple(found[:NEAREST])


def rank(mask: int, bass: int | None, key: Key | None) -> list[Ranked]:
    out: list[Ranked] = []
    for order, r in enumerate(readings()[mask] or nearest(mask)):
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
        out.append(Ranked(cost, order, r.root, r.entry, slash, rootless, r.omitted))
    if bass is not None and mask & ~(1 << bass):
        for order, r in enumerate(readings()[mask & ~(1 << bass)], start=len(out)):
            if r.chord >> bass & 1 or r.omitted >> r.root & 1:
                continue
            out.append(Ranked(r.cost + FOREIGN_BASS_COST, order, r.root, r.entry, True, False,
                              r.chord & ~mask))
    out.sort()
    return out
