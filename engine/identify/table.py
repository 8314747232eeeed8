"""The readings of every pitch-class set, built once with numpy: ``SET_ROOT[mask]``,
``SET_ENTRY[mask]``, ``SET_COST[mask]`` list the chords (root, quality) that name the set,
cheapest first, without a bass or a key; ``SET_COUNT[mask]`` says how many.

A reading names every tone of the set (nothing added) and may leave out tones a player
leaves out: the perfect fifth, the root of a rootless voicing (a chord with a sixth or a
seventh, four tones or more), the ninth or eleventh under a thirteenth. What leaving each out
costs is ``OMISSION_COST``. The tones a reading leaves out are its chord less the set, so they
are not stored. A set no reading names without adding a tone (a cluster) gets instead its
``NEAREST`` nearest readings, each standing on a note of the set, with each tone it adds
(``ADDED_COST``) and each it needs that is not there (``MISSING_COST``, or what leaving that
tone out costs) counted; ``EXACT_COUNT`` is 0 for such a set. The bass and the key move these
costs in ``engine.identify.ranking``, which reads one row, never searches.

Costs are multiples of a half, exact in floating point; ties are broken as the tuple
(cost, root, quality index) orders them. ``tests/naive_identify.py`` is the slow twin (the
search per set this table replaced); the tests compare the two.
"""

from __future__ import annotations

from itertools import combinations
from types import MappingProxyType
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.identify.vocabulary import VOCABULARY, Entry

# fmt: off
OMISSION_COST: MappingProxyType[str, float] = MappingProxyType({
    "5": 2.0,    # the perfect fifth: the first tone any voicing drops (C E Bb is C7)
    "1": 3.0,    # the root: a rootless voicing, the bass player's note (B D F A under G9)
    "9": 1.0,    # under a thirteenth, the ninth is often left out (3-7-13: E Bb A for C13)
    "11": 1.0,   # under a minor thirteenth, the eleventh likewise
})
# fmt: on
# What leaving a tone out costs under one quality, where it differs from ``OMISSION_COST``.
# ``7add13`` is the name of a dominant whose fifth sounds with its thirteenth (the charts'
# F7add13: F A C Eb D, no ninth); without the fifth, root, third, seventh and thirteenth are
# the shell every jazz pianist voices as the thirteenth chord (Levine's G13: F B E over G),
# which ``13`` names, its ninth left out as a thirteenth's often is: without the fifth the two
# cost the same (4.5) and the tie goes to ``13``, the cheaper quality (a tie on one root
# breaks by quality index, and ``VOCABULARY`` is sorted by cost), so ``C E Bb A`` over C is
# C13, C7add13, then Amaddb9/C; with the fifth ``7add13`` is exact and first (2 against 2.5).
# The Lydian dominant's voicing, b7 3 #11 13 over the root (Levine's C13#11: Bb E F# A over
# C), leaves out the fifth the sharp eleventh stands beside, as its ninth: 1 each.
QUALITY_OMISSION_COST: MappingProxyType[tuple[str, str], float] = MappingProxyType({
    ("7add13", "5"): 2.5,
    ("13#11", "5"): 1.0,
})
ROOTLESS_NEEDS = frozenset({"b7", "7", "bb7", "6"})   # a rootless reading keeps its colour tone
# ... and is a sixth, seventh, ninth or thirteenth chord's, never an added tone's: a pianist's
# rootless voicing puts 9 and 13 over 3 and 7 (Bill Evans' A and B forms); E G B F is not a
# rootless Cmaj7add11
KEEP = 10                 # readings kept per set
ADDED_COST = 4.0          # a set no reading names: each tone a reading leaves unexplained
MISSING_COST = 5.0        # ... and each tone it needs that is not there (a fifth or root: as omitted)
NEAREST = 3               # readings given for a set no reading names

Ints = npt.NDArray[np.signedinteger[Any]]   # int64, or int32 in the packed rows
Floats = npt.NDArray[np.float64]


def omittable(entry: Entry) -> list[tuple[int, float]]:
    """(semitones above the root, cost) of the tones ``entry`` may leave out."""
    labels = entry.labels
    out: list[tuple[int, float]] = []
    for label, semis in zip(labels, entry.semitones, strict=True):
        if label == "5" or (label in ("9", "11") and "13" in labels and len(labels) > 5):
            out.append((semis % 12, QUALITY_OMISSION_COST.get((entry.suffix, label),
                                                              OMISSION_COST[label])))
        elif label == "1" and len(labels) >= 4 and ROOTLESS_NEEDS.intersection(labels) \
                and "add" not in entry.suffix:
            out.append((0, OMISSION_COST["1"]))
    return out


def rotate(masks: Ints, roots: Ints) -> Ints:
    """12-bit sets moved up by ``roots`` semitones (element by element)."""
    return ((masks << roots) | (masks >> (12 - roots))) & 0xFFF


assert len(VOCABULARY) < 512, "the packed tables give a quality 9 bits"
ENTRY_MASK: Ints = np.array([e.mask for e in VOCABULARY], dtype=np.int64)
"""Quality index -> its 12-bit set, root on bit 0."""
POPCOUNT: Ints = np.array([m.bit_count() for m in range(4096)], dtype=np.int64)


def chord_masks(roots: Ints, entries: Ints) -> Ints:
    """The absolute set of each (root, quality) pair."""
    return rotate(ENTRY_MASK[entries], roots)


def _patterns() -> tuple[Ints, Ints, Floats]:
    """(quality index, set sounded above the root, cost) of every quality with every subset
    of the tones it may leave out."""
    entries, sounded, costs = [], [], []
    for index, entry in enumerate(VOCABULARY):
        drops = omittable(entry)
        for n in range(len(drops) + 1):
            for subset in combinations(drops, n):
                rest = entry.mask & ~sum(1 << semis for semis, _ in subset)
                if rest.bit_count() < 2 or (n and rest.bit_count() < 3):
                    continue
                entries.append(index)
                sounded.append(rest)
                costs.append(entry.cost + sum(c for _, c in subset))
    return (np.array(entries, dtype=np.int64), np.array(sounded, dtype=np.int64),
            np.array(costs, dtype=np.float64))


def _exact() -> tuple[Ints, Ints, Floats, Ints]:
    """Every pattern on every root, grouped by the set it sounds, cheapest first: (roots,
    quality indices, costs) of shape (4096, KEEP), -1 / inf past each set's count."""
    entries, sounded, costs = _patterns()
    roots = np.repeat(np.arange(12, dtype=np.int64), len(entries))
    entries, costs = np.tile(entries, 12), np.tile(costs, 12)
    sets = rotate(np.tile(sounded, 12), roots)
    order = np.lexsort((entries, roots, costs, sets))
    sets, roots, entries, costs = sets[order], roots[order], entries[order], costs[order]
    first = np.searchsorted(sets, sets, side="left")
    place = np.arange(len(sets)) - first
    keep = place < KEEP
    out_root = np.full((4096, KEEP), -1, dtype=np.int64)
    out_entry = np.full((4096, KEEP), -1, dtype=np.int64)
    out_cost = np.full((4096, KEEP), np.inf)
    out_root[sets[keep], place[keep]] = roots[keep]
    out_entry[sets[keep], place[keep]] = entries[keep]
    out_cost[sets[keep], place[keep]] = costs[keep]
    count = np.bincount(sets[keep], minlength=4096).astype(np.int64)
    return out_root, out_entry, out_cost, count


def _nearest(masks: Ints) -> tuple[Ints, Ints, Floats]:
    """The ``NEAREST`` cheapest readings of each set of ``masks`` that adds or misses tones:
    every quality on every note of the set, priced by what it adds and misses. Priced once per
    set above its root (``_NEAREST_ABOVE``), so a set reads the best few of each of its notes."""
    above = _nearest_above()
    roots = np.arange(12, dtype=np.int64)
    relative = rotate(masks[:, None], (12 - roots[None, :]) % 12)            # (sets, 12)
    cost2 = above[0][relative]                                               # (sets, 12, N)
    entry = above[1][relative]
    key = (cost2 << 13) | (roots[None, :, None] << 9) | entry                # cost, root, quality
    key[((masks[:, None] >> roots) & 1) == 0] = np.iinfo(np.int64).max     # on a note given
    best = np.sort(key.reshape(len(masks), -1), axis=1)[:, :NEAREST]
    return best >> 9 & 15, best & 511, (best >> 13) / 2


def _nearest_above() -> tuple[Ints, Ints]:
    """Set above its root (bit 0 on) -> the ``NEAREST`` cheapest qualities on that root, as
    (twice the cost, quality index), each of shape (4096, NEAREST) (rows of sets without bit 0
    unused). In half units, integers: each tone added ``ADDED_COST``, each missing
    ``MISSING_COST`` less what leaving it out saves when the quality may leave it out."""
    i32 = np.int32
    sets = np.arange(1, 4096, 2, dtype=i32)[:, None]                         # bit 0 on
    quality = ENTRY_MASK.astype(i32)[None, :]
    popcount = POPCOUNT.astype(i32)
    missing = quality & ~sets
    cost2 = (np.array([int(2 * e.cost) for e in VOCABULARY], dtype=i32)[None, :]
             + int(2 * ADDED_COST) * popcount[sets & ~quality]
             + int(2 * MISSING_COST) * popcount[missing])
    drops = [list(dict(omittable(e)).items()) for e in VOCABULARY]
    for slot in range(max(map(len, drops))):
        bit = np.array([1 << d[slot][0] if slot < len(d) else 0 for d in drops], dtype=i32)
        saved = np.array([int(2 * (MISSING_COST - d[slot][1])) if slot < len(d) else 0
                          for d in drops], dtype=i32)
        cost2 -= saved[None, :] * ((missing & bit[None, :]) != 0)
    key = cost2 * 512 + np.arange(len(VOCABULARY), dtype=i32)                # cost, quality
    best = np.zeros((4096, NEAREST), dtype=np.int64)
    best[1::2] = np.sort(np.partition(key, NEAREST, axis=1)[:, :NEAREST], axis=1)
    return best // 512, best % 512


def _build() -> tuple[Ints, Ints, Floats, Ints, Ints]:
    roots, entries, costs, count = _exact()
    exact = count.copy()
    empty = np.flatnonzero(count == 0)[1:]                       # not the empty set
    if len(empty):
        r, e, c = _nearest(empty)
        roots[empty, :NEAREST], entries[empty, :NEAREST], costs[empty, :NEAREST] = r, e, c
        count[empty] = NEAREST
    for a in (roots, entries, costs, count, exact):
        a.flags.writeable = False
    return roots, entries, costs, count, exact


SET_ROOT, SET_ENTRY, SET_COST, SET_COUNT, EXACT_COUNT = _build()
"""Pitch-class mask -> its readings' roots, quality indices and costs, cheapest first
(shape (4096, KEEP), -1 / inf past ``SET_COUNT[mask]``); ``EXACT_COUNT[mask]`` is
``SET_COUNT[mask]`` for a set its readings name exactly, 0 for one given its nearest."""
