"""conduct's details a musician hears or a sequencer reads: the ride's accents, the funk
voicing, the 6/8 metronome, the tempo's type and the lead sheet's spelling."""

from __future__ import annotations

import base64
import io

import mido
import pytest

from engine.conduct import conduct
from engine.conduct.midi import clocks_per_click
from engine.conduct.styles import RIDE
from tests.test_conduct import check_midi


@pytest.mark.parametrize("prompt", ["medium swing in F", "modal vamp in D"])
def test_the_ride_accents_two_and_four(prompt: str) -> None:
    result = conduct({"prompt": prompt, "durationSec": 30})
    shift = round(480 * result["conductor"]["swing"]) - 240
    by_beat: dict[int, list[int]] = {0: [], 1: [], 2: [], 3: []}
    for e in result["lanes"]["drums"]:
        if e["pitch"] == RIDE and e["tick"] % 480 == 0:
            by_beat[e["tick"] // 480 % 4].append(e["velocity"])
    assert shift > 0 and all(by_beat.values())
    assert min(by_beat[1] + by_beat[3]) > max(by_beat[0] + by_beat[2])


def test_funk_comping_holds_the_ninth_of_a_nine_chord() -> None:
    result = conduct({"prompt": "funk in E", "durationSec": 20})
    assert result["chords"][0]["symbol"] == "E9"
    first = [e["pitch"] for e in result["lanes"]["harmony"] if e["tick"] < 1920]
    assert first and 6 in {p % 12 for p in first}          # F#, the 9 of E9


@pytest.mark.parametrize(("meter", "clocks"), [((6, 8), 36), ((12, 8), 36), ((9, 8), 36),
                                               ((4, 4), 24), ((3, 4), 24), ((2, 2), 48),
                                               ((7, 8), 12)])
def test_the_metronome_clicks_on_the_pulse(meter: tuple[int, int], clocks: int) -> None:
    assert clocks_per_click(meter) == clocks


def test_a_six_eight_file_clicks_on_the_dotted_quarter() -> None:
    result = conduct({"prompt": "6/8 ballad in F", "durationSec": 20})
    check_midi(result)
    mf = mido.MidiFile(file=io.BytesIO(base64.b64decode(result["midi"])))
    sig = next(m for m in mf.tracks[0] if m.type == "time_signature")
    assert (sig.numerator, sig.denominator, sig.clocks_per_click) == (6, 8, 36)


@pytest.mark.parametrize("request_", [
    {"prompt": "swing in F"}, {"prompt": "swing in F", "durationSec": 30},
    {"prompt": "ballad at 72 bpm", "progression": "Cmaj7 | A7"},
    {"prompt": "ballad", "progression": "Cmaj7 | A7", "durationSec": 12.5},
])
def test_the_tempo_is_always_a_float(request_: dict) -> None:
    tempo = conduct(request_)["conductor"]["tempo"]
    assert isinstance(tempo, float) and tempo == round(tempo, 2)


def test_the_lead_sheet_spells_chords_canonically() -> None:
    result = conduct({"prompt": "ballad in B", "progression": "C♯ø | Fmi7 | C-7/B♭ | CΔ7",
                      "durationSec": 20})
    symbols = [c["symbol"] for c in result["chords"]][:4]
    assert symbols == ["C#m7b5", "Fm7", "Cm7/Bb", "Cmaj7"]
    assert result["leadSheet"].splitlines()[0] == "| C#m7b5 | Fm7 | Cm7/Bb | Cmaj7 |"
