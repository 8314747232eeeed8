"""Every chord token of two real jazz corpora parses: 189,564 tokens outside NC."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from engine.chords.symbols import parse
from engine.errors import InvalidChord
from tests.corpus_tokens import chord_tokens

CORPUS_TOKENS = 189_564
DISTINCT_SYMBOLS = 1_895


def test_every_corpus_token_parses(corpora: Path) -> None:
    tokens = chord_tokens(corpora)
    assert len(tokens) == CORPUS_TOKENS
    counts = Counter(tokens)
    assert len(counts) == DISTINCT_SYMBOLS
    failures = {}
    for symbol in counts:
        try:
            parse(symbol)
        except InvalidChord as exc:
            failures[symbol] = exc.reason
    assert failures == {}


def test_canonical_suffixes_read_back(corpora: Path) -> None:
    """The canonical suffix of every corpus chord parses back to itself, same tones."""
    for symbol in set(chord_tokens(corpora)):
        chord = parse(symbol)
        again = parse(chord.root_name + chord.quality)
        assert (again.quality, again.intervals, again.notes) == \
            (chord.quality, chord.intervals, chord.notes), symbol


def test_corpus_chords_have_expected_readings(corpora: Path) -> None:
    tokens = set(chord_tokens(corpora))
    expected = {  # spellings specific to each corpus, as their READMEs describe them
        "E07": "dim7", "F#0": "dim", "CM7": "maj7", "Bbm/maj7": "m(maj7)", "Amb6": "mb6",
        "Cmaug": "m#5", "G7sus": "7sus4", "C69": "6/9", "D7alt": "7alt", "E4": "sus4",
        "Dh7": "m7b5", "Emi": "m",
    }
    for symbol, quality in expected.items():
        assert symbol in tokens, symbol
        assert parse(symbol).quality == quality
