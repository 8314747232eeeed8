"""Stereo and loudness of a render (API.md 7 and 12): each lane where conduct pans it (CC10),
each channel's fader (CC7) honoured, and one fixed gain per engine, so that a soft ballad is
quieter than an intense funk, in both synthesisers."""

from __future__ import annotations

import base64
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import mido
import numpy as np
import pytest

from engine import conduct
from engine.conduct.midi import CHANNELS, PAN
from engine.render import basic
from engine.render.events import Notes, read_midi
from engine.render.soundfont import find_soundfont, render_soundfont
from tests.sf2 import write_tiny_sf2

RATE = 22050
SYSTEM_FONT = find_soundfont(env={})


@pytest.fixture(scope="module")
def tiny_font(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_sf2(tmp_path_factory.mktemp("sf2"))


@lru_cache(maxsize=8)
def arrangement(prompt: str) -> dict[str, Any]:
    return conduct({"prompt": prompt, "durationSec": 20, "seed": 4})


def notes_of(prompt: str) -> Notes:
    return read_midi(base64.b64decode(arrangement(prompt)["midi"]))


def only(notes: Notes, channel: int) -> Notes:
    keep = notes.channel == channel
    return replace(notes, start=notes.start[keep], end=notes.end[keep],
                   channel=notes.channel[keep], program=notes.program[keep],
                   pitch=notes.pitch[keep], velocity=notes.velocity[keep])


def render(engine: str, notes: Notes, font: Path) -> np.ndarray:
    if engine == "basic":
        return basic.render_basic(notes, RATE, 2).astype(np.float64)
    return render_soundfont(notes, font, RATE, 2).astype(np.float64)


def rms_db(x: np.ndarray) -> float:
    return float(20 * np.log10(np.sqrt((x ** 2).mean()) / 32768))


def test_every_lane_is_panned_in_the_midi_file() -> None:
    midi = mido.MidiFile(file=__import__("io").BytesIO(
        base64.b64decode(arrangement("medium swing blues in F")["midi"])))
    pans = {m.channel: m.value for track in midi.tracks for m in track
            if m.type == "control_change" and m.control == 10}
    volumes = {m.channel: m.value for track in midi.tracks for m in track
               if m.type == "control_change" and m.control == 7}
    assert pans == {CHANNELS[lane]: PAN[lane] for lane in CHANNELS}
    assert pans[CHANNELS["bass"]] == pans[CHANNELS["drums"]] == 64
    assert pans[CHANNELS["harmony"]] < 64 < pans[CHANNELS["pattern"]]
    assert 64 < PAN["melody"] < PAN["pattern"]
    assert set(volumes) == set(pans) and all(80 <= v <= 127 for v in volumes.values())


@pytest.mark.parametrize("engine", ["basic", "soundfont"])
def test_the_piano_sounds_left_the_guitar_right_the_bass_in_the_middle(engine: str,
                                                                      tiny_font: Path) -> None:
    notes = notes_of("bossa nova in F")
    sides = {}
    for lane in ("harmony", "pattern", "bass"):
        x = render(engine, only(notes, CHANNELS[lane]), SYSTEM_FONT or tiny_font)
        sides[lane] = rms_db(x[:, 0]) - rms_db(x[:, 1])
    assert sides["harmony"] > 3 and sides["pattern"] < -3, sides
    assert abs(sides["bass"]) < 0.5, sides


@pytest.mark.parametrize("engine", ["basic", "soundfont"])
def test_a_soft_ballad_is_quieter_than_an_intense_funk(engine: str, tiny_font: Path) -> None:
    font = SYSTEM_FONT or tiny_font
    ballad = render(engine, notes_of("soft ballad in Eb"), font)
    funk = render(engine, notes_of("intense funk in E"), font)
    assert rms_db(funk) - rms_db(ballad) > 4
    for x in (ballad, funk):
        assert np.abs(x).max() < 0.95 * 32768           # the loudest arrangement does not clip


def test_the_fader_cc7_sets_the_level() -> None:
    notes = only(notes_of("medium swing blues in F"), CHANNELS["harmony"])
    loud = basic.render_basic(notes, RATE, 2).astype(np.float64)
    volume = notes.volume.copy()
    volume[CHANNELS["harmony"]] = 50
    soft = basic.render_basic(replace(notes, volume=volume), RATE, 2).astype(np.float64)
    # 40 log10(50 / 100): 12 dB down
    assert rms_db(loud) - rms_db(soft) == pytest.approx(12.0, abs=0.6)
