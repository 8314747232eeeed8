"""Whatever text arrives, parse() answers a Chord or raises InvalidChord, nothing else."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine.chords.chord import Chord
from engine.chords.symbols import parse, parse_progression
from engine.chords.tables import (
    ADDITION_BY_SPELLING,
    ALTERATION_BY_SPELLING,
    CANONICAL_BY_ALIAS,
    OMISSION_BY_SPELLING,
    SUSPENSIONS,
)
from engine.errors import InvalidChord

# Text made of the pieces chord symbols are built from, so the search reaches deep.
_PIECES = ["C", "F#", "Bb", "E", "m", "maj", "M", "7", "9", "11", "13", "6", "b", "#", "+",
           "-", "sus", "add", "no", "omit", "alt", "dim", "aug", "ø", "Δ", "°", "(", ")",
           ",", "/", " ", "5", "2", "4", "h", "0", "o", "♭", "♯", "x", "N.C."]


def _check(text: str) -> None:
    try:
        chord = parse(text)
    except InvalidChord as exc:
        assert exc.to_dict()["error"]["code"] == "invalid_chord"
        assert exc.to_dict()["error"]["symbol"] == text
        return
    assert isinstance(chord, Chord)
    assert len(text.strip()) <= 32 and chord.notes and chord.name


@given(st.text(max_size=40))
def test_random_text(text: str) -> None:
    _check(text)


@given(st.lists(st.sampled_from(_PIECES), max_size=10).map("".join))
def test_random_chord_like_text(text: str) -> None:
    _check(text)


@given(st.lists(st.sampled_from(_PIECES), max_size=12).map("".join))
def test_random_progressions(text: str) -> None:
    try:
        chords = parse_progression(text, allow_nc=True)
    except InvalidChord as exc:
        assert "index" in exc.to_dict()["error"]
        return
    except Exception as exc:  # the only other outcome allowed: an invalid_request
        assert getattr(exc, "code", None) == "invalid_request", exc
        return
    assert chords


_MODIFIERS = sorted([*ALTERATION_BY_SPELLING, *ADDITION_BY_SPELLING, *OMISSION_BY_SPELLING,
                     *SUSPENSIONS, "(", ")", ",", "9", "13"])


@given(st.sampled_from(["C", "F#", "Bb", "Cbb", "B##"]), st.sampled_from(sorted(CANONICAL_BY_ALIAS)),
       st.lists(st.sampled_from(_MODIFIERS), max_size=4).map("".join),
       st.sampled_from(["", "/E", "/Gb"]))
def test_composed_symbols_read_back_canonically(root: str, head: str, mods: str,
                                                bass: str) -> None:
    """Any head + modifiers either fails cleanly or has a canonical suffix that reads back
    as itself with the same tones."""
    try:
        chord = parse(root + head + mods + bass)
    except InvalidChord:
        return
    again = parse(chord.root_name + chord.quality + bass)
    assert (again.quality, again.intervals, again.notes, again.bass) == \
        (chord.quality, chord.intervals, chord.notes, chord.bass)
