"""Slow pure-Python twins of the numba kernels in ``engine/kernels.py``: written for obviousness,
not speed, by exhaustive enumeration. Tests compare the kernels against these.
"""

from __future__ import annotations

from itertools import product

from engine.kernels import KEY_GUIDE, KEY_MOTION

Voicing = list[int]


def motion(a: Voicing, b: Voicing) -> int:
    """Least total motion over every map of the larger voicing onto the smaller that uses each
    note of the smaller at least once (a one-to-one pairing when the sizes are equal)."""
    if not a or not b:
        return 0
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    best = None
    for image in product(range(len(small)), repeat=len(large)):
        if len(set(image)) < len(small):
            continue
        cost = sum(abs(large[j] - small[i]) for j, i in enumerate(image))
        best = cost if best is None else min(best, cost)
    assert best is not None
    return best


def guides_near(prev: Voicing, row: Voicing, guide: list[int], step: int) -> int:
    return sum(1 for v, g in zip(row, guide, strict=True)
               if g and any(abs(v - p) <= step for p in prev))


def _edge(prev: Voicing, row: Voicing, guide: list[int], step: int) -> int:
    key = sum(row)
    if prev:
        key += motion(prev, row) * int(KEY_MOTION) - guides_near(prev, row, guide, step) * \
            int(KEY_GUIDE)
    return key


def search(prev: Voicing, chords: list[list[Voicing]], guides: list[list[list[int]]],
           step: int) -> list[int]:
    """Brute force over every path: least (motion, -guide tones kept, register); among equal
    paths the one whose indices, read from the last chord backwards, are smallest."""
    best: tuple[int, tuple[int, ...]] | None = None
    for path in product(*(range(len(c)) for c in chords)):
        key = 0
        before = prev
        for t, k in enumerate(path):
            key += _edge(before, chords[t][k], guides[t][k], step)
            before = chords[t][k]
        rank = (key, tuple(reversed(path)))
        if best is None or rank < best:
            best = rank
    assert best is not None
    return list(reversed(best[1]))


def greedy(prev: Voicing, chords: list[list[Voicing]], guides: list[list[list[int]]],
           step: int) -> list[int]:
    """Chord by chord, the locally best candidate: what the search must never be worse than."""
    path = []
    before = prev
    for t, rows in enumerate(chords):
        keys = [_edge(before, r, guides[t][k], step) for k, r in enumerate(rows)]
        k = keys.index(min(keys))
        path.append(k)
        before = rows[k]
    return path


def total_motion(prev: Voicing, chords: list[list[Voicing]], path: list[int]) -> int:
    total = 0
    before = prev
    for t, k in enumerate(path):
        total += motion(before, chords[t][k])
        before = chords[t][k]
    return total
