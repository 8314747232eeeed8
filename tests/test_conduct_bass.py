"""conduct's bass lines: every style in every key keeps its leaps within an octave, and a
walking line is chord tones and approach notes, with the root on every chord change."""

from __future__ import annotations

import itertools
import random

import pytest

from engine.chords.symbols import parse
from engine.conduct import conduct, lines

KEYS = ("C", "Db", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B")
STYLE_PROMPTS = ("shuffle blues", "gospel", "latin samba", "straight rock", "funk", "bossa nova",
                 "ballad", "medium swing", "jazz waltz", "modal vamp", "ballad over a pedal")


@pytest.mark.parametrize("style", STYLE_PROMPTS)
def test_no_bass_leap_is_wider_than_an_octave(style: str) -> None:
    for key, seed in itertools.product(KEYS, (0, 1, 2)):
        result = conduct({"prompt": f"{style} in {key}", "durationSec": 30, "seed": seed})
        pitches = [e["pitch"] for e in result["lanes"]["bass"]]
        assert all(28 <= p <= 52 for p in pitches), (key, seed)
        leaps = [(i, b - a) for i, (a, b) in enumerate(itertools.pairwise(pitches))
                 if abs(b - a) > 12]
        assert not leaps, (key, seed, leaps[:3])


def test_an_approach_note_stays_within_an_octave_of_the_note_before() -> None:
    rng = random.Random(0)
    for target, prev in itertools.product(range(28, 44), range(28, 53)):
        if abs(target - prev) > 12:
            continue
        for _ in range(4):
            note = lines.approach(target, prev, rng)
            assert lines.BASS_LOW <= note <= lines.BASS_HIGH
            assert abs(note - prev) <= 12 and (note - target) in (-5, -2, -1, 1, 2, 7)


@pytest.mark.parametrize("style", ["swing", "jazz waltz", "modal vamp"])
@pytest.mark.parametrize("key", ["F", "Db", "F# minor", "E"])
def test_a_walking_line_is_roots_chord_tones_and_approaches(style: str, key: str) -> None:
    result = conduct({"prompt": f"{style} in {key}, walking bass", "durationSec": 40,
                      "seed": 3})
    c = result["conductor"]
    num = int(c["timeSignature"].split("/")[0])
    bass = sorted((e["tick"], e["pitch"]) for e in result["lanes"]["bass"])
    starts = [((ch["bar"] - 1) * num * 480 + (ch["beat"] - 1) * 480, parse(ch["symbol"]))
              for ch in result["chords"]]
    final = starts[-1][0]
    # One note a beat up to the last chord, which is its root held.
    assert [t for t, _ in bass] == list(range(0, final + 1, 480))
    by_tick = dict(bass)
    for k, (tick, chord) in enumerate(starts):
        end = starts[k + 1][0] if k + 1 < len(starts) else final + 480
        nxt = starts[k + 1][1] if k + 1 < len(starts) else None
        assert by_tick[tick] % 12 == chord.root.pc, (chord.symbol, tick)
        for beat in range(tick + 480, end, 480):
            pitch = by_tick[beat] % 12
            if nxt is not None and beat == end - 480:
                # the last beat before a change: a step or half step from the next root, or
                # its dominant (a fifth above, a fourth below)
                assert (pitch - nxt.root.pc) % 12 in (1, 11, 2, 10, 7), (chord.symbol, beat)
            else:
                assert pitch in chord.pcs, (chord.symbol, beat)


WALKING_PROMPTS = ("swing blues", "medium swing, rhythm changes", "jazz waltz", "modal vamp",
                   "ballad AABA, walking bass", "bossa nova, walking bass")


@pytest.mark.parametrize("style", WALKING_PROMPTS)
def test_a_walking_line_never_repeats_a_note(style: str) -> None:
    # A two-beat V -> I walks root, approach: the approach a fifth above or a fourth below the
    # next root is V's own root, which must not be struck twice (Gm7 C7: G2 B2 C3 C3).
    for key, seed in itertools.product(KEYS, range(4)):
        result = conduct({"prompt": f"{style} in {key}", "durationSec": 30, "seed": seed})
        pitches = [p for _, p in sorted((e["tick"], e["pitch"])
                                        for e in result["lanes"]["bass"])]
        repeats = [i for i, (a, b) in enumerate(itertools.pairwise(pitches)) if a == b]
        assert not repeats, (key, seed, repeats[:3])


def test_an_approach_note_is_never_the_note_before_it() -> None:
    rng = random.Random(0)
    for target, prev in itertools.product(range(28, 53), range(28, 53)):
        if abs(target - prev) <= 12:
            assert all(lines.approach(target, prev, rng) != prev for _ in range(8))


def bass_bars(prompt: str) -> tuple[list[dict[int, int]], list[list[int]]]:
    """The bass of every bar as {tick within the bar: pitch}, and the chord start ticks."""
    result = conduct({"prompt": prompt})
    bars = result["conductor"]["bars"]
    notes: list[dict[int, int]] = [{} for _ in range(bars)]
    for e in result["lanes"]["bass"]:
        notes[e["tick"] // 1920][e["tick"] % 1920] = e["pitch"]
    starts: list[list[int]] = [[] for _ in range(bars)]
    for ch in result["chords"]:
        starts[ch["bar"] - 1].append((ch["beat"] - 1) * 480)
    return notes, starts


@pytest.mark.parametrize("key", KEYS)
def test_the_funk_bass_pops_the_octave_above_its_root(key: str) -> None:
    # "R-.R..8.R..5.7.A": the octave is the root an octave up, the fifth and the seventh
    # climb above the root (E2 E2 E3 E2 B2 D3, not E2 E2 E2 E2 B1 D2).
    notes, _ = bass_bars(f"funk in {key}")
    for b, bar in enumerate(notes[:-1]):
        root, pop, fifth, seventh = bar[0], bar[6 * 120], bar[11 * 120], bar[13 * 120]
        assert pop == root + 12 and root < fifth < seventh < root + 12, (b + 1, bar)


@pytest.mark.parametrize("key", KEYS)
def test_the_gospel_bass_pops_the_octave_above_its_root(key: str) -> None:
    # "R-----5--8-A": the 8 on the fourth triplet of beat 3 is the chord's root an octave up.
    notes, starts = bass_bars(f"gospel in {key}")
    for b, bar in enumerate(notes[:-1]):
        root = bar[max(s for s in starts[b] if s <= 9 * 160)]
        assert bar[9 * 160] == root + 12, (b + 1, bar)


def test_the_boogie_bass_climbs_root_third_fifth_sixth() -> None:
    notes, _ = bass_bars("shuffle blues in E")
    assert [notes[0][t] for t in (0, 480, 960, 1440)] == [28, 32, 35, 37]   # E1 G#1 B1 C#2
    climbs = total = 0
    for key in KEYS:
        notes, _ = bass_bars(f"shuffle blues in {key}")
        for b, bar in enumerate(notes[:-1]):
            root, third, fifth, sixth = (bar[t] for t in (0, 480, 960, 1440))
            assert root < third < fifth < root + 12, (key, b + 1, bar)
            # The sixth climbs above the fifth unless, climbed, it would lie more than an
            # octave from the next bar's root: then it alone drops an octave to lead there.
            nxt = notes[b + 1][0]
            assert sixth == root + 9 or (sixth == root - 3 and root + 9 - nxt > 12), \
                (key, b + 1, bar, nxt)
            climbs += sixth == root + 9
            total += 1
    # Within the register (E1..E3) and leaps of an octave at most, a figure spanning a sixth
    # cannot climb in every bar: the roots would have to keep rising.
    assert climbs >= 0.7 * total


@pytest.mark.parametrize("style", STYLE_PROMPTS)
def test_a_pedal_holds_one_pitch_all_piece_long(style: str) -> None:
    # the pedal never follows the roots' octaves (was "ballad, pedal bass, in G": G2 G2 | G1)
    for key in KEYS:
        result = conduct({"prompt": f"{style}, pedal bass, in {key}"})
        pitches = {e["pitch"] for e in result["lanes"]["bass"]}
        assert len(pitches) == 1 and pitches.pop() % 12 == parse(key).root.pc, \
            (key, result["leadSheet"])
