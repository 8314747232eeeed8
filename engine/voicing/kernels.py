"""Private numba kernels of the voicing engine: loops over integer arrays only.

``engine.voicing`` validates requests, builds the candidate tables and calls these; every kernel
has a slow pure-Python twin in ``tests/naive.py``. No ``fastmath`` and integer arithmetic
throughout, and ties always go to the lowest index, so results are identical on every machine.

Arrays: MIDI notes are ``int64``; a voicing is a row sorted ascending whose first ``count``
entries are used (the rest is padding).
"""

from __future__ import annotations

import numpy as np
from numba import njit

# The search minimises, per path, the pair (cost, rest) lexicographically. ``cost`` is one int64:
# the weighted motion of each step (``_step``: MOTION_UNIT per semitone, the bass of a split style
# BASS_UNIT (+ BASS_LEAP_UNIT + STEP_LEAP_UNIT < 2**12 a semitone), up to ARRIVAL_UNIT more per
# semitone beyond the chord's leap (that unit and LEAP_UNIT are the styles' data, in
# ``engine.voicing.styles``, and come in as arguments); < 1040*127*8 + 2**12*127 < 2**21)
# plus each chord's register cost (``engine.voicing.register.register_cost``: < 2**15 per chord
# even outside every window); < 2**22 per chord, < 2**38 < _INF over a path of at most
# MAX_CHORDS = 2**16 chords. ``rest`` packs the two lesser criteria into another int64, (negated)
# guide tones kept times KEY_GUIDE plus the tie-break register (``_register`` summed over the
# chords). Bounds, for <= 8 voices inside MIDI 0..127: a free tie-break is d * KEY_ABOVE + 1 with
# d = |2*sum - count*(low+high)| <= 8*127 < 2**10, so < 2**19 per chord and < 2**35 over the path
# (anchored: a sum of notes < 2**10 per chord); KEY_GUIDE = 2**36 lies above that whole range,
# and the guide count <= 8 * 2**16 = 2**19 keeps |rest| < 2**56. Nothing can overflow, and each
# criterion only decides among paths equal in the ones before it. ``engine.voicing`` refuses
# longer progressions (conduct voices at most MAX_FIT_BARS * beats per bar segments, far below).
MAX_CHORDS = 1 << 16
KEY_ABOVE = 1 << 9          # d counts in these units; the +1 (above the centre) breaks ties
KEY_GUIDE = np.int64(1 << 36)
MOTION_UNIT = 16            # engine.voicing.register sets the register costs in these units
BASS_UNIT = 4
BASS_LEAP = 7               # a split style's bass moves at most a fifth before it costs more
BASS_LEAP_UNIT = 256        # (each semitone beyond: a leap only where no fifth will do)
BASS_STEP = 2               # a bass line moving by this much or less (as pitch classes) is a
STEP_LEAP_UNIT = 2048       # step: each semitone it leaps beyond it (C3 Bb3) costs this more,
TURN_UNIT = 1024            # or this where the chord's root leaps (``turns``: a new harmony)
_INF = np.int64(1 << 40)


@njit(cache=True)
def _motion(a: np.ndarray, na: int, b: np.ndarray, nb: int) -> int:
    """Least total semitones moved between voicings ``a[:na]`` and ``b[:nb]`` (both sorted).

    Every note of the larger voicing is paired with exactly one note of the smaller, and every
    note of the smaller with at least one (voices split or merge when the counts differ; with
    equal counts this is a one-to-one pairing). In one dimension an optimal pairing never
    crosses, so a DP over the two sorted voicings finds it in O(na * nb). 0 if either is empty.
    """
    if na == 0 or nb == 0:
        return 0
    if na <= nb:
        small, ns, large, nl = a, na, b, nb
    else:
        small, ns, large, nl = b, nb, a, na
    if ns == nl:
        total = 0
        for i in range(ns):
            total += abs(large[i] - small[i])
        return total
    # dp[i]: least cost with large[:j+1] paired and large[j] paired to small[i], small[:i+1] used
    dp = np.full(ns, _INF, dtype=np.int64)
    for j in range(nl):
        for i in range(ns - 1, -1, -1):
            if i > 0:
                best = min(dp[i], dp[i - 1])
            elif j == 0:
                best = 0
            else:
                best = dp[0]
            dp[i] = best + abs(large[j] - small[i])
    return dp[ns - 1]


@njit(cache=True)
def _step(a: np.ndarray, na: int, b: np.ndarray, nb: int, split: bool, leap: int,
          unit: int, turn: int) -> int:
    """The search's cost of moving from ``a[:na]`` to ``b[:nb]``: MOTION_UNIT per semitone of
    ``_motion``; with ``split`` (voice 0 of each is a bass, and both have upper voices) the upper
    voices' motion at MOTION_UNIT and the bass's at BASS_UNIT per semitone, BASS_LEAP_UNIT
    more per semitone beyond BASS_LEAP (any root motion fits in a fifth: C7 B7 is C3 B2, not
    C3 B3), and where the bass line moves by a step or less (BASS_STEP, as pitch classes) but
    the bass leaps beyond a fifth, ``turn`` more per semitone beyond the step (STEP_LEAP_UNIT;
    TURN_UNIT where the chord's root leaps beyond a step): a stepwise line that must turn back
    into its register (a run longer than E2-B3 and the two semitones under it hold) turns
    where the harmony moves, not over a chord held above its moving bass (Cm Cm/Bb). With ``leap > 0``
    every semitone of (upper) motion beyond ``leap`` costs ``unit`` more: a style whose
    voices move by step spreads a long way over several changes rather than leaping once
    (LEAP_UNIT), and bill_evans moves its register anywhere but on an arrival (ARRIVAL_UNIT)."""
    bass = 0
    if split and na > 1 and nb > 1:
        moved = _motion(a[1:], na - 1, b[1:], nb - 1)
        jump = abs(a[0] - b[0])
        bass = BASS_UNIT * jump
        if jump > BASS_LEAP:
            bass += BASS_LEAP_UNIT * (jump - BASS_LEAP)
            line = min(jump % 12, 12 - jump % 12)
            if line <= BASS_STEP:
                bass += turn * (jump - line)
    else:
        moved = _motion(a, na, b, nb)
    over = moved - leap if leap > 0 and moved > leap else 0
    return MOTION_UNIT * moved + unit * over + bass


@njit(cache=True)
def _guides_near(prev: np.ndarray, n_prev: int, prev_guide: np.ndarray, row: np.ndarray,
                 n_row: int, guide: np.ndarray, step: int) -> int:
    """How many guide-tone voices of ``row[:n_row]`` (``guide[v] == 1``) lie within ``step``
    semitones of a guide-tone note of ``prev[:n_prev]`` (``prev_guide[u] == 1``): the rule of
    the reported ``guideTonesKept``, counted voice by voice."""
    kept = 0
    for v in range(n_row):
        if guide[v] == 1:
            for u in range(n_prev):
                if prev_guide[u] == 1 and abs(row[v] - prev[u]) <= step:
                    kept += 1
                    break
    return kept


@njit(cache=True)
def _register(row: np.ndarray, n_row: int, centre2: int, anchored: bool) -> int:
    """The register cost of voicing ``row[:n_row]`` (smaller is preferred).

    Anchored (the search starts from a previous voicing): the sum of its notes, i.e. the lower
    register. Free: how far its mean pitch lies from the range centre ``centre2 / 2`` (integers
    only: ``d = |2 * sum - n_row * centre2|``) in units of ``KEY_ABOVE``, plus 1 when it lies
    above the centre, so that equal distances go to the lower voicing."""
    total = 0
    for v in range(n_row):
        total += row[v]
    if anchored:
        return total
    off = 2 * total - n_row * centre2
    return off * KEY_ABOVE + 1 if off > 0 else -off * KEY_ABOVE


@njit(cache=True)
def _search(prev: np.ndarray, n_prev: int, prev_guide: np.ndarray, notes: np.ndarray,
            counts: np.ndarray, guide: np.ndarray, register: np.ndarray, offsets: np.ndarray,
            step: int, centre2: int, split: bool, leaps: np.ndarray, units: np.ndarray,
            turns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Choose one candidate voicing per chord so that the motion plus the register cost is
    least over the whole progression (dynamic programming, not greedy).

    Shapes: ``prev`` int64[P] sorted, first ``n_prev`` used (0: no previous voicing);
    ``prev_guide`` int8[P] (1 = that note of ``prev`` counts as a guide tone); ``notes``
    int64[C, V] all candidates of all chords, rows sorted; ``counts`` int64[C]; ``guide``
    int8[C, V] (1 = the voice is a guide tone, the chord's 3rd or 7th); ``register`` int64[C]
    (each candidate's register cost); ``offsets`` int64[T+1], chord t owning rows
    ``offsets[t]:offsets[t+1]`` (none empty); ``split``: voice 0 is a bass; ``leaps`` int64[T]
    and ``units`` int64[T]: the motion into chord t beyond which each semitone costs
    ``units[t]`` more (``_step``; a leap of 0: none); ``turns`` int64[T]: per semitone a split
    style's stepwise bass line leaps beyond the step into chord t, the cost (``_step``).

    Objective, lexicographic over the whole path: least cost (``_step`` from the voicing
    before, chord 0 from ``prev`` when there is one, plus ``register``); then most guide tones
    kept (within ``step`` semitones of a guide tone of the voicing before, ``_guides_near``);
    then the tie-break register (``_register`` summed over the chords): from a previous voicing
    (``n_prev > 0``) the lower register, without one the voicings nearest the range centre
    ``centre2 / 2`` (``centre2 = low + high``), ties to the lower; then the lowest candidate
    index, scanning from the last chord backwards. Each criterion is a sum over the path's
    chords, so one key pair per candidate keeps the DP exact for up to ``MAX_CHORDS`` chords
    (see the bounds above).

    Returns ``choice`` int64[T] (global row per chord) and ``moved`` int64[T] (semitones moved
    into chord t from the voicing before it, every voice counted; chord 0 from ``prev``, 0
    without one).
    """
    n_chords = offsets.shape[0] - 1
    n_cand = notes.shape[0]
    best_cost = np.zeros(n_cand, dtype=np.int64)
    best_rest = np.empty(n_cand, dtype=np.int64)
    pred = np.full(n_cand, -1, dtype=np.int64)
    anchored = n_prev > 0
    for j in range(offsets[0], offsets[1]):
        rest = np.int64(_register(notes[j], counts[j], centre2, anchored))
        best_cost[j] = register[j]
        if anchored:
            best_cost[j] += _step(prev, n_prev, notes[j], counts[j], split, leaps[0],
                                  units[0], turns[0])
            rest -= _guides_near(prev, n_prev, prev_guide, notes[j], counts[j], guide[j],
                                 step) * KEY_GUIDE
        best_rest[j] = rest
    for t in range(1, n_chords):
        for j in range(offsets[t], offsets[t + 1]):
            tie = _register(notes[j], counts[j], centre2, anchored)
            top_cost = _INF
            top_rest = _INF
            arg = -1
            for i in range(offsets[t - 1], offsets[t]):
                cost = best_cost[i] + _step(notes[i], counts[i], notes[j], counts[j], split,
                                            leaps[t], units[t], turns[t])
                if cost > top_cost:
                    continue
                rest = best_rest[i] + tie - _guides_near(
                    notes[i], counts[i], guide[i], notes[j], counts[j], guide[j], step
                ) * KEY_GUIDE
                if cost < top_cost or rest < top_rest:
                    top_cost = cost
                    top_rest = rest
                    arg = i
            best_cost[j] = top_cost + register[j]
            best_rest[j] = top_rest
            pred[j] = arg
    choice = np.empty(n_chords, dtype=np.int64)
    last = offsets[n_chords - 1]
    for j in range(offsets[n_chords - 1] + 1, offsets[n_chords]):
        if best_cost[j] < best_cost[last] or (best_cost[j] == best_cost[last]
                                              and best_rest[j] < best_rest[last]):
            last = j
    choice[n_chords - 1] = last
    for t in range(n_chords - 1, 0, -1):
        choice[t - 1] = pred[choice[t]]
    moved = np.zeros(n_chords, dtype=np.int64)
    if n_prev > 0:
        moved[0] = _motion(prev, n_prev, notes[choice[0]], counts[choice[0]])
    for t in range(1, n_chords):
        a, b = choice[t - 1], choice[t]
        moved[t] = _motion(notes[a], counts[a], notes[b], counts[b])
    return choice, moved
