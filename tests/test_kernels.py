"""The numba kernels against their slow twins in tests/naive.py, on random inputs."""

from __future__ import annotations

import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.voicing import kernels
from engine.voicing.styles import ARRIVAL_UNIT, LEAP_UNIT
from tests import naive

STEP = 2
CENTRE2 = 48 + 84                 # low + high of the default range
JIT_OFF = os.environ.get("NUMBA_DISABLE_JIT") == "1"

voicing = st.lists(st.integers(0, 127), min_size=1, max_size=5).map(sorted)
centre2 = st.integers(0, 254)
chord = st.lists(voicing, min_size=1, max_size=4)
guides = st.lists(st.integers(0, 1), min_size=5, max_size=5)


def _pack(chords: list[list[list[int]]], flags: list[list[list[int]]]
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rows = [r for c in chords for r in c]
    notes = np.zeros((len(rows), 8), dtype=np.int64)
    guide = np.zeros((len(rows), 8), dtype=np.int8)
    for k, (r, g) in enumerate(zip(rows, [g for f in flags for g in f], strict=True)):
        notes[k, :len(r)] = r
        guide[k, :len(r)] = g
    counts = np.array([len(r) for r in rows], dtype=np.int64)
    offsets = np.cumsum([0] + [len(c) for c in chords]).astype(np.int64)
    return notes, counts, guide, offsets


def _prev(prev: list[int], dtype: type = np.int64) -> np.ndarray:
    out = np.zeros(8, dtype=dtype)
    out[:len(prev)] = prev
    return out


def _run(prev: list[int], chords: list[list[list[int]]], flags: list[list[list[int]]],
         centre2: int = CENTRE2, prev_flags: list[int] | None = None,
         registers: list[list[int]] | None = None, split: bool = False, leap: int = 0,
         units: list[int] | None = None, leaps: list[int] | None = None
         ) -> tuple[list[int], list[int]]:
    """The kernel's path and motions; ``prev_flags`` default: every previous note a guide;
    ``registers`` default: every candidate's register cost 0."""
    notes, counts, guide, offsets = _pack(chords, flags)
    line = [1] * len(prev) if prev_flags is None else prev_flags
    regs = registers or [[0] * len(c) for c in chords]
    register = np.array([r for c in regs for r in c], dtype=np.int64)
    choice, moved = kernels._search(_prev(prev), len(prev), _prev(line, np.int8), notes, counts,
                                    guide, register, offsets, STEP, centre2, split,
                                    np.array(leaps or [leap] * len(chords), dtype=np.int64),
                                    np.array(units or [LEAP_UNIT] * len(chords),
                                             dtype=np.int64),
                                    np.full(len(chords), kernels.STEP_LEAP_UNIT, dtype=np.int64))
    return [int(c - offsets[t]) for t, c in enumerate(choice)], [int(m) for m in moved]


def _flags(chords: list[list[list[int]]], bits: list[int]) -> list[list[list[int]]]:
    return [[[bits[(i + j + v) % len(bits)] for v in range(len(r))]
             for j, r in enumerate(c)] for i, c in enumerate(chords)]


wide = st.lists(st.integers(0, 127), min_size=1, max_size=8).map(sorted)   # previous: up to 8


@settings(max_examples=150)
@given(wide, wide)
def test_motion_is_the_least_pairing(a: list[int], b: list[int]) -> None:
    got = kernels._motion(np.array(a, dtype=np.int64), len(a), np.array(b, dtype=np.int64),
                          len(b))
    assert got == naive.motion(a, b)
    assert got == kernels._motion(np.array(b, dtype=np.int64), len(b),
                                  np.array(a, dtype=np.int64), len(a))


def test_motion_examples() -> None:
    def m(a: list[int], b: list[int]) -> int:
        return int(kernels._motion(np.array(a, dtype=np.int64), len(a),
                                   np.array(b, dtype=np.int64), len(b)))
    # Dm7 -> G7 rootless: C moves down to B, E down to D.
    assert m([53, 57, 60, 64], [53, 57, 59, 62]) == 3
    # one voice splits in two: 60 feeds both 59 and 62.
    assert m([60], [59, 62]) == 3
    assert m([], [60, 64]) == 0


@given(voicing, voicing, guides, guides)
def test_guides_near(prev: list[int], row: list[int], bits: list[int], line: list[int]
                     ) -> None:
    flags, prev_flags = bits[:len(row)], line[:len(prev)]
    got = kernels._guides_near(np.array(prev, dtype=np.int64), len(prev),
                               np.array(prev_flags, dtype=np.int8),
                               np.array(row, dtype=np.int64), len(row),
                               np.array(flags, dtype=np.int8), STEP)
    assert got == naive.guides_near(prev, prev_flags, row, flags, STEP)


def test_guides_near_counts_only_guide_tones_before() -> None:
    # E4 (a guide tone) is a step from the D4 before, but D4 was no guide tone there: not kept
    def near(prev_flags: list[int]) -> int:
        return int(kernels._guides_near(np.array([62, 67], dtype=np.int64), 2,
                                         np.array(prev_flags, dtype=np.int8),
                                         np.array([64, 70], dtype=np.int64), 2,
                                         np.array([1, 0], dtype=np.int8), STEP))
    assert near([0, 1]) == 0
    assert near([1, 0]) == 1


@given(voicing, voicing, centre2)
def test_register_prefers_the_mean_nearest_the_centre_then_the_lower(
        a: list[int], b: list[int], c2: int) -> None:
    b = (b * len(a))[:len(a)]      # same voice count, like two placements of one chord

    def free(row: list[int]) -> int:
        return int(kernels._register(np.array(row, dtype=np.int64), len(row), c2, False))

    def expected(row: list[int]) -> tuple[Fraction, bool]:
        mean = Fraction(sum(row), len(row))
        return abs(mean - Fraction(c2, 2)), mean > Fraction(c2, 2)

    assert (free(a) < free(b)) == (expected(a) < expected(b))
    assert (free(a) == free(b)) == (expected(a) == expected(b))
    anchored = kernels._register(np.array(a, dtype=np.int64), len(a), c2, True)
    assert anchored == sum(a)


def _registers(chords: list[list[list[int]]], costs: list[int]) -> list[list[int]]:
    return [[costs[(i + 3 * j) % len(costs)] for j in range(len(c))]
            for i, c in enumerate(chords)]


register_costs = st.lists(st.integers(0, 400), min_size=1, max_size=7)


@given(st.lists(st.integers(0, 127), max_size=4).map(sorted),
       st.lists(chord, min_size=1, max_size=4), guides, centre2, guides, register_costs,
       st.booleans(), st.sampled_from([0, 0, 2, 6]))
def test_search_matches_brute_force(prev: list[int], chords: list[list[list[int]]],
                                   bits: list[int], c2: int, line: list[int], costs: list[int],
                                   split: bool, leap: int) -> None:
    flags = _flags(chords, bits)
    prev_flags = line[:len(prev)]
    regs = _registers(chords, costs)
    path, moved = _run(prev, chords, flags, c2, prev_flags, regs, split, leap)
    assert path == naive.search(prev, prev_flags, chords, flags, STEP, c2, regs, split, leap)
    before = prev
    for t, k in enumerate(path):
        assert moved[t] == naive.motion(before, chords[t][k])
        before = chords[t][k]


@given(st.lists(st.integers(40, 90), max_size=4).map(sorted),
       st.lists(chord, min_size=1, max_size=6), guides, register_costs, st.booleans())
def test_search_never_worse_than_greedy(prev: list[int], chords: list[list[list[int]]],
                                        bits: list[int], costs: list[int], split: bool) -> None:
    flags = _flags(chords, bits)
    regs = _registers(chords, costs)
    path, moved = _run(prev, chords, flags, registers=regs, split=split)
    greedy = naive.greedy(prev, [1] * len(prev), chords, flags, STEP, CENTRE2, regs, split)
    assert sum(moved) == naive.total_motion(prev, chords, path)
    assert naive.total_cost(prev, chords, path, regs, split) <= \
        naive.total_cost(prev, chords, greedy, regs, split)


def test_register_cost_outweighs_a_little_motion() -> None:
    # from 60: 61 costs one semitone (16) but lies far off its window (register 40); 58 costs
    # two (32) and sits at the centre: the register tips the balance
    path, moved = _run([60], [[[61], [58]]], [[[1], [1]]], registers=[[40, 0]])
    assert path == [1] and moved == [2]
    # a cheaper register never buys a leap: 12 semitones cost 192
    assert _run([60], [[[60], [72]]], [[[1], [1]]], registers=[[150, 0]])[0] == [0]


def test_split_styles_weigh_the_bass_lightly() -> None:
    # Dm7 pad (D3 | C4 F4 A4) to G7: the bass leaps a fourth up (G3) or a fifth down (G2);
    # the upper voices either move in parallel or by step (D4 F4 B4). Split: upper motion
    # 16/semitone and the bass 4/semitone, so the upper voices decide.
    prev = [50, 60, 65, 69]
    parallel = [55, 65, 70, 74]          # everything a fourth up: 20 semitones in all
    stepwise = [55, 62, 65, 71]          # the bass leaps, the upper voices 2 + 0 + 2
    chords = [[parallel, stepwise]]
    flags = [[[0, 1, 1, 0], [0, 0, 1, 1]]]
    assert _run(prev, chords, flags, split=True)[0] == [1]
    assert naive.step_cost(prev, stepwise, True) == 16 * 4 + 4 * 5
    assert naive.step_cost(prev, parallel, True) == 16 * 15 + 4 * 5


def test_fascinating_rhythm_a_stepwise_bass_turns_cheaper_where_the_root_leaps() -> None:
    # Cm -> Cm/Bb, C3 to Bb3 (the bass line steps, the bass leaps 10): 2048 a semitone beyond
    # the step over a held chord, 1024 (TURN_UNIT) where the root leaps; kernel and twin agree
    a = np.array([48, 60, 63, 67], dtype=np.int64)
    b = np.array([58, 60, 63, 67], dtype=np.int64)
    for turn in (kernels.STEP_LEAP_UNIT, kernels.TURN_UNIT):
        got = kernels._step(a, 4, b, 4, True, 0, LEAP_UNIT, turn)
        assert got == naive.step_cost(a.tolist(), b.tolist(), True, turn=turn)
        assert got == 4 * 10 + 256 * 3 + turn * 8


def test_a_leap_costs_more_than_the_same_motion_in_steps() -> None:
    # from 60 to 72 in two chords: 66 on the way (6 + 6) or 61 (1 + 11). Least motion alone
    # ties them (12 each; the lower index wins); with leap 6 the 11-semitone jump costs 5 * 32
    # more, so the path of two equal steps wins
    chords = [[[61], [66]], [[72]]]
    flags = [[[1], [1]], [[1]]]
    assert _run([60], chords, flags)[0] == [0, 0]
    assert _run([60], chords, flags, leap=6)[0] == [1, 0]
    assert naive.step_cost([60], [72], False, 6) == 16 * 12 + 32 * 6


def test_all_the_things_you_are_moves_its_register_before_the_arrival_not_on_it() -> None:
    # ATTYA's Bb7 -> Ebmaj7 (bill_evans): the leap is barred on the arrival (chord 2, units
    # ARRIVAL_UNIT beyond 7) and taken into the chord before it instead, as the naive twin says
    chords = [[[50], [62]], [[51], [63]], [[52], [64]]]
    flags = [[[1], [1]], [[1], [1]], [[1], [1]]]
    regs = [[100, 0], [100, 0], [0, 400]]       # high before the arrival, low on it
    units = [LEAP_UNIT, LEAP_UNIT, ARRIVAL_UNIT]
    leaps = [0, 0, 7]
    path, _ = _run([61], chords, flags, registers=regs, units=units, leaps=leaps)
    assert path == naive.search([61], [1], chords, flags, STEP, CENTRE2, regs, False, leaps,
                                units)
    assert path == [1, 0, 0]                    # the leap into the chord before the arrival
    free, _ = _run([61], chords, flags, registers=regs)
    assert free == [1, 1, 0]                    # without the bar: the leap on the arrival


def test_search_stays_exact_over_long_progressions() -> None:
    # Two lanes an octave and more apart: the high lane costs 1 semitone less to enter, the low
    # one keeps all 8 guide tones on every chord after. Least motion must win however many
    # guide tones the other lane keeps (packed in one int64 with motion, 1024 chords of 8 kept
    # guide tones outweighed a semitone of motion).
    low_lane = list(range(32, 40))
    high_lane = [79, 81, 82, 83, 84, 85, 86, 87]
    prev = list(range(56, 64))
    assert naive.motion(prev, low_lane) == naive.motion(prev, high_lane) + 1
    chords = [[low_lane, high_lane]] * 1024
    flags = [[[1] * 8, [0] * 8]] * 1024
    path, moved = _run(prev, chords, flags)
    assert path == [1] * 1024
    assert sum(moved) == naive.motion(prev, high_lane)


def test_search_beats_greedy_when_the_nearest_step_leads_away() -> None:
    # From 60, greedy takes 61 (1 semitone) and then must fall 11 to 50; the search goes to 58
    # first (2) and then falls only 8.
    chords = [[[61], [58]], [[50]]]
    flags = [[[1], [1]], [[1]]]
    path, moved = _run([60], chords, flags)
    assert path == [1, 0]
    assert moved == [2, 8]
    assert naive.greedy([60], [1], chords, flags, STEP, CENTRE2) == [0, 0]


def test_without_previous_the_first_chord_sits_nearest_the_centre() -> None:
    # one chord: of C major triads at 48, 60 and 72 (means 51.7, 63.7, 75.7) the middle one is
    # nearest 66, the centre of 48..84; the lowest wins only when asked for range 36..72
    rows = [[[48, 52, 55], [60, 64, 67], [72, 76, 79]]]
    flags = [[[0, 1, 0]] * 3]
    assert _run([], rows, flags)[0] == [1]
    assert _run([], rows, flags, 36 + 60)[0] == [0]
    # equally far from the centre (62 and 70 around 66): the lower
    assert _run([], [[[70], [62]]], [[[1], [1]]])[0] == [1]
    # motion still comes first: starting at 60 would cost a jump of 12 into the only voicing of
    # the second chord, so the search starts at 48 although 60 is nearer the centre
    chords = [[[48], [60]], [[48]]]
    assert _run([], chords, [[[1], [1]], [[1]]]) == ([0, 0], [0, 0])
    # with a previous voicing the centre plays no part: least motion, then the lower register
    assert _run([66], [[[60], [72]]], [[[1], [1]]])[0] == [0]


def test_kernels_are_private_and_cached() -> None:
    for name in ("_motion", "_step", "_guides_near", "_register", "_search"):
        kernel = getattr(kernels, name)
        if not JIT_OFF:
            assert kernel._cache.__class__.__name__ == "FunctionCache", name
            assert kernel.targetoptions.get("fastmath", False) is False, name
    public = [n for n, v in vars(kernels).items() if callable(v) and not n.startswith("_")
              and getattr(v, "__module__", None) == kernels.__name__]
    assert public == []


@pytest.mark.skipif(JIT_OFF, reason="this is the run without the JIT")
def test_kernels_pass_as_plain_python() -> None:
    # The same tests with NUMBA_DISABLE_JIT=1: the kernels' source runs as Python (coverage).
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1", "HYPOTHESIS_PROFILE": "ci"}
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                           "tests/test_kernels.py"], cwd=root, env=env, capture_output=True,
                          text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
