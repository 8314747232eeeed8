"""The readings of every pitch-class set, built once: ``READINGS[mask]`` lists the chords
(root, quality, tones left out) that name the set, cheapest first, without a bass or a key.

A reading names every tone of the set (nothing added) and may leave out tones a player
leaves out: the perfect fifth, the root of a rootless voicing (a chord with a sixth or a
seventh, four tones or more), the ninth or eleventh under a thirteenth. What leaving each out
costs is ``OMISSION_COST``; the bass and the key move these costs at the call
(``engine.identify.ranking``), which reads one list, never searches.
"""

from __future__ import annotations

from itertools import combinations
from types import MappingProxyType
from typing import NamedTuple

from engine.chords import transpose_mask
from engine.identify.vocabulary import VOCABULARY, Entry

# fmt: off
OMISSION_COST: MappingProxyType[str, float] = MappingProxyType({
    "5": 2.0,    # the perfect fifth: the first tone any voicing drops (C E Bb is C7)
    "1": 3.0,    # the root: a rootless voicing, the bass player's note (B D F A under G9)
    "9": 1.0,    # under a thirteenth, the ninth is often left out (3-7-13: E Bb A for C13)
    "11": 1.0,   # under a minor thirteenth, the eleventh likewise
})
# fmt: on
ROOTLESS_NEEDS = frozenset({"b7", "7", "bb7", "6"})   # a rootless reading keeps its colour tone
KEEP = 10                                              # readings kept per set


class Reading(NamedTuple):
    cost: float
    root: int          # pitch class
    entry: int         # index into VOCABULARY
    chord: int         # 12-bit mask of the whole chord (absolute)
    omitted: int       # 12-bit mask of the chord tones left out (absolute)


def omittable(entry: Entry) -> list[tuple[int, float]]:
    """(semitones above the root, cost) of the tones ``entry`` may leave out."""
    labels = entry.labels
    out: list[tuple[int, float]] = []
    for label, semis in zip(labels, entry.semitones, strict=True):
        if label == "5" or (label in ("9", "11") and "13" in labels and len(labels) > 5):
            out.append((semis % 12, OMISSION_COST[label]))
        elif label == "1" and len(labels) >= 4 and ROOTLESS_NEEDS.intersection(labels):
            out.append((0, OMISSION_COST["1"]))
    return out


def _build() -> tuple[tuple[Reading, ...], ...]:
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


READINGS: tuple[tuple[Reading, ...], ...] = _build()
"""Pitch-class mask -> its readings, cheapest first (ties: lower root, then the vocabulary's
order), at most ``KEEP``; empty for a set that no reading names without adding a tone."""
