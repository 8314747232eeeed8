"""resolve (API.md §4): names with octave, MIDI, frequencies, slash basses below, bounds."""

from __future__ import annotations

import pytest

from engine import resolve
from engine.errors import InvalidChord, InvalidRequest


def test_g13_default_octave_and_tuning() -> None:
    r = resolve({"chord": "G13"})
    assert r["notes"] == ["G4", "B4", "D5", "F5", "A5", "E6"]
    assert r["midi"] == [67, 71, 74, 77, 81, 88]
    assert r["frequencies"] == [391.995, 493.883, 587.33, 698.456, 880.0, 1318.51]
    assert r["semitones"] == [0, 4, 7, 10, 14, 21]
    assert list(r) == ["chord", "root", "quality", "name", "bass", "intervals", "semitones",
                       "notes", "midi", "frequencies", "scales"]
    assert r["scales"][0]["name"] == "mixolydian" and r["scales"][0]["priority"] == "primary"


def test_spelling_follows_intervals_and_letters_keep_their_octave() -> None:
    assert resolve({"chord": "Cdim7"})["notes"] == ["C4", "Eb4", "Gb4", "Bbb4"]
    assert resolve({"chord": "F#7#9"})["notes"] == ["F#4", "A#4", "C#5", "E5", "G##5"]
    r = resolve({"chord": "Cb"})  # Cb4 is MIDI 59, below C4
    assert (r["notes"][0], r["midi"][0]) == ("Cb4", 59)
    r = resolve({"chord": "B#", "octave": 3})  # B#3 sounds as C4
    assert (r["notes"][0], r["midi"][0]) == ("B#3", 60)


@pytest.mark.parametrize(("symbol", "bass", "bass_midi"), [
    ("C/E", "E3", 52), ("C/G", "G3", 55), ("C/D", "D3", 50), ("C7/Bb", "Bb3", 58),
    ("D/C", "C4", 60), ("C/B", "B3", 59),
])
def test_slash_bass_is_the_nearest_below_the_root(symbol: str, bass: str, bass_midi: int) -> None:
    r = resolve({"chord": symbol})
    assert (r["notes"][0], r["midi"][0]) == (bass, bass_midi)
    assert r["midi"][0] < r["midi"][1]
    assert r["midi"][1] - r["midi"][0] <= 12
    assert len(r["notes"]) == len(r["intervals"]) + 1 == len(r["frequencies"])


def test_tuning_moves_every_frequency() -> None:
    r = resolve({"chord": "A", "tuning": 432})
    assert r["frequencies"][0] == 432.0
    assert resolve({"chord": "A", "tuning": 415.3})["frequencies"][0] == 415.3
    assert resolve({"chord": "A", "octave": 3})["frequencies"][0] == 220.0


def test_octave_bounds() -> None:
    assert resolve({"chord": "C", "octave": -1})["midi"] == [0, 4, 7]
    assert resolve({"chord": "C", "octave": 9})["midi"] == [120, 124, 127]
    for request in ({"chord": "G13", "octave": 9}, {"chord": "Cb", "octave": -1},
                    {"chord": "C/E", "octave": -1}, {"chord": "C", "octave": 10**9}):
        with pytest.raises(InvalidRequest) as err:
            resolve(request)
        assert err.value.field == "octave"


@pytest.mark.parametrize("request_", [
    {"chord": "C", "octave": 4.5}, {"chord": "C", "octave": "4"}, {"chord": "C", "tuning": 0},
    {"chord": "C", "tuning": "440"}, {"chord": "C", "tuning": 5000}, {"chord": 7}, {},
    {"chord": "C" * 33},
])
def test_bad_requests(request_: dict[str, object]) -> None:
    with pytest.raises(InvalidRequest):
        resolve(request_)


def test_bad_symbol() -> None:
    with pytest.raises(InvalidChord):
        resolve({"chord": "Cmaj8"})
