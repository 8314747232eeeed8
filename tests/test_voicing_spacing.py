"""Spacing guards for the colour styles over the whole vocabulary on all twelve roots: no minor
9th between upper voices, no natural 11 a half step over a major 3rd, no cluster pads."""

from __future__ import annotations

from itertools import pairwise

import pytest

from engine.chords.chord import Chord
from engine.chords.symbols import parse
from engine.voicing.operation import voicing
from tests.test_voicing_styles import ROOTS
from tests.vocabulary import vocabulary

COLOUR_STYLES = ("rootless", "bill_evans", "drop2", "drop3", "pad")
CHORDS = [parse(root + chord.quality) for chord in vocabulary() for root in ROOTS]


def _labels(chord: Chord, pc: int) -> set[str]:
    return {label for label, p in zip(chord.intervals, chord.pcs, strict=True) if p == pc}


def _upper(chord: Chord, style: str) -> list[int]:
    """The voices that must not clash: all of them, or those above the pad's bass."""
    midi = voicing({"chord": chord.symbol, "style": style})["midi"]
    return midi[1:] if style == "pad" else midi


def _minor_ninths(chord: Chord, upper: list[int]) -> list[tuple[int, int]]:
    """Pairs of voices a minor 9th apart, except the chord's own root under its b9 (a 7b9
    chord is built on that interval; no style here sounds it, but a slash pad may)."""
    return [(a, b) for i, a in enumerate(upper) for b in upper[i + 1:]
            if b - a == 13 and not (a % 12 == chord.root.pc and "b9" in _labels(chord, b % 12))]


def _eleven_over_third(chord: Chord, midi: list[int]) -> list[tuple[int, int]]:
    """A natural 11 (or 4) a minor 2nd or minor 9th above a major 3rd."""
    return [(a, b) for a in midi for b in midi
            if b - a in (1, 13) and "3" in _labels(chord, a % 12)
            and _labels(chord, b % 12) & {"11", "4"}]


@pytest.mark.parametrize("style", COLOUR_STYLES)
def test_no_minor_ninth_between_upper_voices(style: str) -> None:
    for chord in CHORDS:
        upper = _upper(chord, style)
        assert not _minor_ninths(chord, upper), (chord.symbol, style, upper)


@pytest.mark.parametrize("style", COLOUR_STYLES)
def test_no_natural_eleven_a_half_step_over_a_major_third(style: str) -> None:
    symbols = [c.symbol for c in CHORDS] + [r + q for r in ROOTS
                                            for q in ("add11", "7add11", "9add11", "maj9add11",
                                                      "6add11", "add4")]
    for symbol in symbols:
        chord = parse(symbol)
        midi = voicing({"chord": symbol, "style": style})["midi"]
        assert not _eleven_over_third(chord, midi), (symbol, style, midi)


def test_an_eleven_over_a_major_third_never_puts_out_the_fifth() -> None:
    # jazz practice (API.md §1 leaves the 11 out of a 13 chord for this clash): the 5 stays
    assert voicing({"chord": "Cmaj11", "style": "drop2"})["notes"] == ["B3", "E4", "G4", "D5"]
    # (a named maj11 only: a written add11 always sounds, see test_a_written_added_eleven_sounds)
    for symbol in ("Cmaj11", "Cmaj11/G"):
        for style in COLOUR_STYLES:
            result = voicing({"chord": symbol, "style": style})
            assert "F" in result["omitted"], (symbol, style, result["notes"])
            if style != "bill_evans":         # bill_evans plays 13 for 5 on a dominant
                assert "G" not in result["omitted"], (symbol, style, result["notes"])
    # Cadd11 in four voices: the 11 takes the doubled root's voice (not the 5's)
    for style in ("drop2", "drop3"):
        add11 = voicing({"chord": "Cadd11", "style": style})
        assert sorted(n[:-1] for n in add11["notes"]) == ["C", "E", "F", "G"], add11
    # over a minor or sus 3rd the 11 still claims its voice
    assert voicing({"chord": "Cm11", "style": "drop2"})["notes"] == ["Bb3", "Eb4", "F4", "D5"]


def test_bill_evans_alterations_take_their_own_family_slot() -> None:
    # the b5/#11 where the 5 goes (3-5-7-9 / 7-9-3-5), the 13 in the 9's place
    # (a left hand's register: the lowest note E3, inside bill_evans' D3-G4 window)
    assert voicing({"chord": "C13b5", "style": "bill_evans"})["notes"] == \
        ["E3", "Gb3", "Bb3", "A4"]
    assert voicing({"chord": "C13#11", "style": "bill_evans"})["notes"] == \
        ["E3", "F#3", "Bb3", "A4"]
    assert voicing({"chord": "Cm11b5", "style": "bill_evans"})["notes"] == \
        ["Eb3", "Gb3", "Bb3", "F4"]


def test_a_written_b13_puts_out_the_natural_fifth() -> None:
    for root in ROOTS:
        for quality in ("7b13", "9b13", "m7b13"):
            chord = parse(root + quality)
            fifth = chord.notes[chord.intervals.index("5")]
            for style in COLOUR_STYLES:
                assert fifth in voicing({"chord": chord.symbol, "style": style})["omitted"], \
                    (chord.symbol, style)


def test_eleven_chord_pads_are_no_clusters() -> None:
    # at most one second between neighbouring upper voices (the 11 beside the 3rd or 5)
    for root in ROOTS:
        for quality in ("m11", "m(maj11)", "11", "maj11", "m9", "13", "maj13", "m13"):
            upper = _upper(parse(root + quality), "pad")
            seconds = sum(b - a <= 2 for a, b in pairwise(upper))
            assert seconds <= 1, (root + quality, upper)
    # (the root in octave 3, the upper structure above it)
    assert voicing({"chord": "Cm11", "style": "pad"})["notes"] == ["C3", "Eb4", "G4", "Bb4", "F5"]
    assert voicing({"chord": "C13", "style": "pad"})["notes"] == ["C3", "E4", "G4", "Bb4", "A5"]


ADDED_ELEVENS = ("add11", "add4", "7add11", "7add4", "6add11", "9add11", "maj7add11",
                 "maj9add11", "6/9add11", "add9add11", "13add11")


def test_a_written_added_eleven_sounds() -> None:
    # an arranger writes add11/add4 to hear that tone: it sounds in every colour style, never a
    # minor 2nd/9th above the major 3rd, the written 3 and 7 sound, and no unwritten 9 or 13
    # sounds in its place
    for quality in ADDED_ELEVENS:
        for root in ROOTS:
            chord = parse(root + quality)
            eleven = next(pc for label, pc in zip(chord.intervals, chord.pcs, strict=True)
                          if label in ("11", "4"))
            guides = {pc for label, pc in zip(chord.intervals, chord.pcs, strict=True)
                      if label in ("3", "b7", "7", "6")}
            for style in COLOUR_STYLES:
                midi = voicing({"chord": chord.symbol, "style": style})["midi"]
                pcs = {m % 12 for m in midi}
                where = (chord.symbol, style, midi)
                assert eleven in pcs, where
                assert guides <= pcs, where
                # nothing unwritten instead of the 11 (bill_evans keeps its own 13 for 5)
                thirteen = {(chord.root.pc + 9) % 12} if style == "bill_evans" else set()
                assert pcs <= set(chord.pcs) | thirteen, where
                assert not _eleven_over_third(chord, midi), where


def test_added_eleven_voicings() -> None:
    notes = {(symbol, style): voicing({"chord": symbol, "style": style})["notes"]
             for symbol in ("Cadd11", "Cadd4", "C7add11") for style in COLOUR_STYLES}
    assert notes["Cadd11", "rootless"] == notes["Cadd4", "rootless"] == ["F3", "G3", "E4"]
    assert notes["Cadd11", "pad"] == ["C3", "F4", "E5", "G5"]     # four voices, not a triad
    assert notes["C7add11", "rootless"] == ["F3", "G3", "Bb3", "E4"]
    assert notes["C7add11", "drop2"] == ["C4", "F4", "Bb4", "E5"]
    assert len(notes["C7add11", "pad"]) == 5
