"""The band as musicians hear it (issue 38): comping that voices every chord of real charts
(``../shared/corpora``), the bass under altered dominants."""

from __future__ import annotations

from functools import lru_cache
from itertools import groupby
from typing import Any

import pytest

from engine.chords.symbols import parse
from engine.conduct import conduct
from tests.conftest import CORPORA
from tests.test_conduct import check_midi, chord_spans, harmony_fits_the_chords, unvoiced_chords

TUNES = CORPORA / "jazzstandards-ireal" / "JazzStandards.json"
needs_corpus = pytest.mark.skipif(not TUNES.is_file(), reason=f"{TUNES} is absent")

# Twenty standards, each in the style a band would play it.
CHARTS = {
    "Autumn Leaves": "medium swing", "All The Things You Are": "medium swing",
    "Blue Bossa": "bossa nova", "Girl From Ipanema, The": "bossa nova",
    "Stella By Starlight": "medium swing", "Giant Steps": "fast swing",
    "Body And Soul": "ballad", "Confirmation": "bebop", "Footprints": "jazz waltz",
    "Solar": "medium swing", "Someday My Prince Will Come": "jazz waltz",
    "Corcovado": "bossa nova", "Cantaloupe Island": "funk", "Chameleon": "funk",
    "Misty": "ballad", "Round Midnight": "ballad", "Oleo": "rhythm changes up-tempo",
    "Satin Doll": "medium swing", "Song For My Father": "latin samba",
    "My Funny Valentine": "ballad",
}


@lru_cache(maxsize=1)
def progressions() -> dict[str, str]:
    """Title -> the chart as conduct takes it: its bars joined by ``|``."""
    from engine.corpus.loaders import load_paths

    songs, _ = load_paths([TUNES])
    out = {}
    for song in songs:
        if song.title in CHARTS:
            bars = [" ".join(p.chord.symbol for p in group)
                    for section in song.sections
                    for _, group in groupby(section.chords, key=lambda p: p.bar)]
            out[song.title] = " | ".join(bars)
    return out


@needs_corpus
@pytest.mark.parametrize("title", list(CHARTS))
def test_every_chord_of_the_standard_is_voiced_by_the_harmony(title: str) -> None:
    result = conduct({"prompt": CHARTS[title], "progression": progressions()[title],
                      "durationSec": 150})
    check_midi(result)
    assert unvoiced_chords(result) == []
    harmony_fits_the_chords(result)


def pushes(result: dict[str, Any]) -> list[tuple[int, str]]:
    """(tick, symbol) of the harmony hits that start before the chord they voice."""
    spans = chord_spans(result)
    onsets = sorted({e["tick"] for e in result["lanes"]["harmony"]})
    out = []
    for tick in onsets:
        nxt = next((s for s in spans if tick < s[0] <= tick + 240), None)
        notes = {e["pitch"] % 12 for e in result["lanes"]["harmony"] if e["tick"] == tick}
        if nxt and nxt[2] != "NC" and notes <= set(parse(nxt[2]).pcs):
            out.append((tick, nxt[2]))
    return out


def test_the_swing_blues_push_on_the_and_of_2_voices_the_v7_of_the_ii_v() -> None:
    # Bar 9 of the jazz blues in F, "Gm7 C7": the comp's swung "and of 2" anticipates C7.
    result = conduct({"prompt": "medium swing blues in F", "progression":
                      "F7 | Bb7 | F7 | Cm7 F7 | Bb7 | Bdim7 | F7 | D7 | Gm7 C7 | Gm7 C7 "
                      "| F7 D7 | Gm7 C7", "seed": 3})
    assert unvoiced_chords(result) == []
    found = pushes(result)
    assert found, "no push anticipates a chord"
    swung_and = 480 - round(480 * result["conductor"]["swing"])
    for tick, symbol in found:
        start = next(s for s in chord_spans(result) if tick < s[0] <= tick + 240)
        assert start[0] - tick in (swung_and, 120, 240), (tick, symbol)
        # the push is held into the chord it anticipates, never cut before it
        held = [e for e in result["lanes"]["harmony"] if e["tick"] == tick]
        assert all(e["tick"] + e["duration"] > start[0] for e in held)


@pytest.mark.parametrize("symbol", ["G7alt", "G7#5", "G7b13", "G7b5", "G7b9b13", "G7#5#9"])
@pytest.mark.parametrize("prompt", ["bossa nova", "medium swing, walking bass", "funk",
                                    "latin samba", "ballad", "shuffle blues"])
def test_the_bass_under_an_altered_dominant_avoids_the_natural_fifth(symbol: str,
                                                                    prompt: str) -> None:
    # Dm7b5 G7alt | Cm6: the altered V of a minor ii-V-i, as in Blue Bossa's last bars.
    result = conduct({"prompt": prompt + " in C minor",
                      "progression": f"Dm7b5 | {symbol} | Cm6 | Cm6", "durationSec": 30})
    g_bars = [s for s in chord_spans(result) if s[2] == parse(symbol).canonical]
    assert g_bars
    for start, end, _ in g_bars:
        under = [e["pitch"] % 12 for e in result["lanes"]["bass"] if start <= e["tick"] < end]
        assert under and 2 not in under, under           # no D natural under G7alt
    # and the chord's own altered fifth is what the bass plays for its "fifth"
    if prompt == "bossa nova":
        altered = {"G7b5": 1}.get(symbol, 3)
        assert any(e["pitch"] % 12 == altered for e in result["lanes"]["bass"]
                   if any(s <= e["tick"] < t for s, t, _ in g_bars))


def test_the_bass_keeps_the_natural_fifth_where_the_chord_has_it() -> None:
    result = conduct({"prompt": "bossa nova in C", "progression": "Dm7 | G7#11 | Cmaj7 | Cmaj7",
                      "durationSec": 30})
    g7 = [s for s in chord_spans(result) if s[2] == parse("G7#11").canonical]
    assert g7
    assert any(e["pitch"] % 12 == 2 for e in result["lanes"]["bass"]
               if any(s <= e["tick"] < t for s, t, _ in g7))
