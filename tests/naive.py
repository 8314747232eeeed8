"""Slow pure-Python twins of the numba kernels in ``engine/voicing/kernels.py``: written for obviousness,
not speed, by exhaustive enumeration. Tests compare the kernels against these.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import permutations, product
from typing import Any

Voicing = list[int]


def motion(a: Voicing, b: Voicing) -> int:
    """Least total motion over every map of the larger voicing onto the smaller that uses each
    note of the smaller at least once (a one-to-one pairing when the sizes are equal).

    Enumerated as: each note of the smaller takes one note of the larger as its own (every
    injective choice), and every note of the larger left over goes to its nearest note of the
    smaller; any valid map is one of these or costs more. At most 8!/0! = 40320 choices."""
    if not a or not b:
        return 0
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    best = None
    for own in permutations(range(len(large)), len(small)):
        cost = sum(abs(large[j] - small[i]) for i, j in enumerate(own))
        cost += sum(min(abs(x - s) for s in small) for j, x in enumerate(large) if j not in own)
        best = cost if best is None else min(best, cost)
    assert best is not None
    return best


def guides_near(prev: Voicing, prev_guide: list[int], row: Voicing, guide: list[int],
                step: int) -> int:
    """Guide tones of ``row`` within ``step`` of a guide tone of ``prev`` (flags 1)."""
    line = [p for p, g in zip(prev, prev_guide, strict=True) if g]
    return sum(1 for v, g in zip(row, guide, strict=True)
               if g and any(abs(v - p) <= step for p in line))


Cost = tuple[int, int, int, int]

MOTION_UNIT = 16      # the search's units (engine.voicing.kernels), written out again here
BASS_UNIT = 4
LEAP_UNIT = 32


Leap = int | Sequence[int]       # one motion bound for every chord, or one per chord


def _at(value: Leap, t: int) -> int:
    return value if isinstance(value, int) else value[t]


def step_cost(a: Voicing, b: Voicing, split: bool, leap: int = 0, unit: int = LEAP_UNIT,
              turn: int = 2048) -> int:
    """The search's cost of moving from ``a`` to ``b``: 16 per semitone of motion; with ``split``
    (the lowest note of each is a bass) 16 per semitone of the upper voices' motion and 4 per
    semitone the bass moves (256 more a semitone beyond a fifth, and ``turn`` more a semitone
    beyond the step where the bass moves a step or less as pitch classes but leaps beyond a
    fifth);
    with ``leap`` ``unit`` (32)
    more per semitone of that motion beyond it."""
    if split and len(a) > 1 and len(b) > 1:
        jump = abs(a[0] - b[0])
        moved, bass = motion(a[1:], b[1:]), BASS_UNIT * jump + 256 * max(0, jump - 7)
        line = min(jump % 12, 12 - jump % 12)    # a stepwise bass line that leaps
        bass += turn * (jump - line) if jump > 7 and line <= 2 else 0
    else:
        moved, bass = motion(a, b), 0
    return MOTION_UNIT * moved + unit * max(0, moved - leap if leap else 0) + bass


def _edge(prev: Voicing, prev_guide: list[int], row: Voicing, guide: list[int], register: int,
          step: int, centre2: int, anchored: bool, split: bool, leap: int, unit: int) -> Cost:
    """The cost of one step, compared as a tuple: the step's cost plus the row's register cost,
    and -guide tones kept from ``prev``; then the tie-break register: anchored (the search
    began from a previous voicing) the sum of the notes; free, the distance of the mean from
    ``centre2 / 2`` (scaled by ``2 * len(row)``), then 1 when the voicing lies above it."""
    cost = register + (step_cost(prev, row, split, leap, unit) if prev else 0)
    kept = guides_near(prev, prev_guide, row, guide, step) if prev else 0
    if anchored:
        return cost, -kept, sum(row), 0
    off = 2 * sum(row) - len(row) * centre2
    return cost, -kept, abs(off), int(off > 0)


def _add(a: Cost, b: Cost) -> Cost:
    return a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]


def search(prev: Voicing, prev_guide: list[int], chords: list[list[Voicing]],
           guides: list[list[list[int]]], step: int, centre2: int,
           registers: list[list[int]] | None = None, split: bool = False, leap: Leap = 0,
           unit: Leap = LEAP_UNIT) -> list[int]:
    """Brute force over every path: least (step costs + register costs, -guide tones kept,
    tie-break register), each summed over the path; among equal paths the one whose indices,
    read from the last chord backwards, are smallest. ``registers`` default: all 0."""
    regs = registers or [[0] * len(c) for c in chords]
    best: tuple[Cost, tuple[int, ...]] | None = None
    for path in product(*(range(len(c)) for c in chords)):
        key: Cost = (0, 0, 0, 0)
        before, before_guide = prev, prev_guide
        for t, k in enumerate(path):
            key = _add(key, _edge(before, before_guide, chords[t][k], guides[t][k], regs[t][k],
                                  step, centre2, bool(prev), split, _at(leap, t),
                                  _at(unit, t)))
            before, before_guide = chords[t][k], guides[t][k]
        rank = (key, tuple(reversed(path)))
        if best is None or rank < best:
            best = rank
    assert best is not None
    return list(reversed(best[1]))


def greedy(prev: Voicing, prev_guide: list[int], chords: list[list[Voicing]],
           guides: list[list[list[int]]], step: int, centre2: int,
           registers: list[list[int]] | None = None, split: bool = False, leap: Leap = 0,
           unit: Leap = LEAP_UNIT) -> list[int]:
    """Chord by chord, the locally best candidate: what the search must never be worse than."""
    regs = registers or [[0] * len(c) for c in chords]
    path = []
    before, before_guide = prev, prev_guide
    for t, rows in enumerate(chords):
        keys = [_edge(before, before_guide, r, guides[t][k], regs[t][k], step, centre2,
                      bool(prev), split, _at(leap, t), _at(unit, t))
                for k, r in enumerate(rows)]
        k = keys.index(min(keys))
        path.append(k)
        before, before_guide = rows[k], guides[t][k]
    return path


def total_cost(prev: Voicing, chords: list[list[Voicing]], path: list[int],
               registers: list[list[int]] | None = None, split: bool = False, leap: Leap = 0,
               unit: Leap = LEAP_UNIT) -> int:
    """The search's first key of a path: step costs plus register costs."""
    regs = registers or [[0] * len(c) for c in chords]
    total, before = 0, prev
    for t, k in enumerate(path):
        total += regs[t][k] + (step_cost(before, chords[t][k], split, _at(leap, t), _at(unit, t))
                               if before else 0)
        before = chords[t][k]
    return total


def total_motion(prev: Voicing, chords: list[list[Voicing]], path: list[int]) -> int:
    total = 0
    before = prev
    for t, k in enumerate(path):
        total += motion(before, chords[t][k])
        before = chords[t][k]
    return total


def mix_pitched(frames: int, start: Any, held: Any, release: Any, increment: Any, timbre: Any,
                waves: Any, envelopes: Any, gain: Any, left: Any, right: Any) -> Any:
    """engine.render.basic's pitched notes written plainly, mix (2, frames): per sample, the
    envelope of the block of 64 it falls in (a linear release after ``held``), the wave at the
    32-bit phase, their product rounded to a voice's scale (>> 15), then times the note's gain
    and pan rounded (>> 24) into each row."""
    import numpy as np

    mix = np.zeros((2, frames), dtype=np.int64)
    steps = envelopes.shape[1]
    for n in range(len(start)):
        phase = 0
        for t in range(int(held[n] + release[n])):
            i = int(start[n]) + t
            if i >= frames:
                break
            block = t - t % 64
            e = int(envelopes[timbre[n], min(block // 64, steps - 1)])
            if block >= held[n]:
                e = e * int(release[n] - (block - held[n])) // int(release[n])
            phase = (phase + int(increment[n])) % 2**32
            sound = int(waves[timbre[n], phase >> 20]) * e + (1 << 14) >> 15
            mix[0, i] += sound * int(gain[n]) * int(left[n]) + (1 << 23) >> 24
            mix[1, i] += sound * int(gain[n]) * int(right[n]) + (1 << 23) >> 24
    return mix


def smith_waterman(a: list[int], b: list[int], families: int) -> int:
    """engine.corpus.align's local alignment, the whole table kept: +2 the same token, +1 the
    same family (token - 1 modulo ``families``), -1 otherwise or a gap; separators (0) never
    match."""
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    best = 0
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            x, y = int(a[i - 1]), int(b[j - 1])
            if x == 0 or y == 0:
                s = -1
            elif x == y:
                s = 2
            elif (x - 1) % families == (y - 1) % families:
                s = 1
            else:
                s = -1
            table[i][j] = max(0, table[i - 1][j - 1] + s, table[i - 1][j] - 1,
                              table[i][j - 1] - 1)
            best = max(best, table[i][j])
    return best


def stream_piece(first: int, table: Any, tonics: Any, offsets: Any, ids: Any, sections: Any,
                 bars: Any, beats: Any) -> dict[str, Any]:
    """``engine.corpus.tokens.stream_piece`` as array operations (its kernel's slow twin)."""
    import numpy as np

    from engine.corpus.tokens import DTYPES, FAMILIES, NO_MOTION, SEPARATOR

    k = len(offsets) - 1
    n = len(ids)
    counts = np.diff(offsets)
    owner = np.repeat(np.arange(k, dtype=np.int64), counts)
    at = np.arange(n, dtype=np.int64) + owner + 1          # after the song's separator
    columns = table.columns[ids]
    root = columns[:, 0]
    family = columns[:, 1]
    previous = np.empty(n, dtype=np.int64)
    previous[1:] = root[:-1]
    motion = (root - previous) % 12
    motion[offsets[:-1][counts > 0]] = NO_MOTION
    tonic = tonics[owner]
    out: dict[str, Any] = {}
    for name, fill, values in (
            ("tokens", SEPARATOR, 1 + motion * len(FAMILIES) + family),
            ("song", 0, owner + first), ("section", 0, sections), ("bar", 0, bars),
            ("beat", 0, beats), ("root", -1, root), ("family", -1, family),
            ("quality", -1, columns[:, 2]),
            ("degree", -1, np.where(tonic >= 0, (root - tonic) % 12, -1)),
            ("symbol", -1, columns[:, 3])):
        column = np.full(n + k, fill, dtype=DTYPES[name])
        column[at] = values
        out[name] = column
    out["song"][offsets[:-1] + np.arange(k)] = np.arange(first, first + k)
    return out


def song_families(song: Any, family: Any, first: int, songs: int) -> Any:
    """Each song's count of chords of each family, flat (songs * families,), from the stream
    columns of songs ``first`` to ``first + songs - 1`` (separators, family -1, left out):
    the slow twin of the counts ``stream_piece``'s kernel makes."""
    import numpy as np

    from engine.corpus.tokens import FAMILIES

    chord = np.asarray(family) >= 0
    cells = (np.asarray(song)[chord].astype(np.int64) - first) * len(FAMILIES) + \
        np.asarray(family)[chord]
    return np.bincount(cells, minlength=songs * len(FAMILIES)).astype(np.int32)
