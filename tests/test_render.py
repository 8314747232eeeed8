"""``engine.render``, listened to the way a program can: the length of the audio, each lane
audible where it plays and silence where nothing does, the pitch of an A4, no clipping, the
same bytes for the same request, and the errors of bad requests. The SoundFont cases run on
a tiny SoundFont written by ``tests/sf2.py`` and, where Debian's is installed, the real one."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import math
import os
import subprocess
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

import mido
import numpy as np
import pytest
import soundfile

from engine import conduct, render
from engine.errors import InvalidRequest
from engine.render import basic, basic_kernels, render_bytes
from engine.render.basic import TAIL
from engine.render.encode import encode
from engine.render.events import read_midi
from engine.render.soundfont import find_soundfont
from tests.naive import mix_pitched
from tests.sf2 import write_tiny_sf2

ROOT = Path(__file__).resolve().parent.parent
SYSTEM_FONT = find_soundfont(env={})
LANE_TRACKS = {"harmony": 1, "pattern": 2, "bass": 3, "drums": 4}
# The basic synthesiser's bytes for BLUES (below), WAV 44.1 kHz stereo: changes only with the
# synthesiser's tables or conduct's output, on purpose (a CHANGELOG entry).
GOLDEN_BASIC_SHA256 = "19cc43b19543fb74190d53f837f5928eddac8d951cf597a965775cb020234693"


@lru_cache(maxsize=1)
def blues() -> dict[str, Any]:
    return conduct({"prompt": "medium swing blues in F", "durationSec": 20, "seed": 1})


@pytest.fixture(scope="module")
def tiny_font(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tiny_sf2(tmp_path_factory.mktemp("sf2"))


def decode(audio: bytes) -> tuple[np.ndarray, int]:
    data, rate = soundfile.read(io.BytesIO(audio), dtype="int16", always_2d=True)
    return data, rate


def midi_of(notes: list[tuple[float, float, int, int]], program: int = 0, channel: int = 0,
            bpm: float = 120.0, end: float | None = None) -> bytes:
    """A format-0 file of (start s, length s, pitch, velocity) notes at ``bpm``."""
    ppq = 480
    per_second = ppq * bpm / 60
    track = mido.MidiTrack([mido.MetaMessage("set_tempo", tempo=mido.bpm2tempo(bpm), time=0),
                            mido.Message("program_change", channel=channel, program=program,
                                         time=0)])
    events = sorted([(round(s * per_second), 1, p, v) for s, _, p, v in notes]
                    + [(round((s + d) * per_second), 0, p, 0) for s, d, p, _ in notes])
    now = 0
    for tick, on, pitch, velocity in events:
        kind = "note_on" if on else "note_off"
        track.append(mido.Message(kind, channel=channel, note=pitch, velocity=velocity,
                                  time=tick - now))
        now = tick
    if end is not None:
        track.append(mido.MetaMessage("end_of_track", time=round(end * per_second) - now))
    midi = mido.MidiFile(type=0, ticks_per_beat=ppq)
    midi.tracks.append(track)
    out = io.BytesIO()
    midi.save(file=out)
    return out.getvalue()


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


# ------------------------------------------------------------------ length, silence, pitch


@pytest.mark.parametrize("engine", ["basic", "soundfont"])
def test_audio_lasts_the_midi_plus_the_tail(engine: str, tiny_font: Path) -> None:
    arrangement = blues()
    midi = base64.b64decode(arrangement["midi"])
    length = read_midi(midi).length
    audio, facts = render_bytes({"arrangement": arrangement, "engine": engine},
                                soundfont=str(tiny_font))
    samples, rate = decode(audio)
    assert rate == facts["sampleRate"] == 44100 and samples.shape[1] == 2
    assert samples.shape[0] == math.ceil((length + TAIL) * rate)
    assert facts["durationSec"] == round(samples.shape[0] / rate, 3)
    assert facts["engine"] == engine
    assert facts["soundfont"] == (None if engine == "basic" else "tiny.sf2")


def _lane_midi(arrangement: dict[str, Any], lane: str) -> bytes:
    """The arrangement with the conductor track and one lane's track only."""
    midi = mido.MidiFile(file=io.BytesIO(base64.b64decode(arrangement["midi"])))
    alone = mido.MidiFile(type=1, ticks_per_beat=midi.ticks_per_beat)
    alone.tracks.extend([midi.tracks[0], midi.tracks[LANE_TRACKS[lane]]])
    out = io.BytesIO()
    alone.save(file=out)
    return out.getvalue()


@pytest.mark.parametrize("engine", ["basic", "soundfont"])
@pytest.mark.parametrize("lane", list(LANE_TRACKS))
def test_each_lane_is_audible_where_it_plays(lane: str, engine: str, tiny_font: Path) -> None:
    arrangement = blues()
    seconds_per_tick = 60 / arrangement["conductor"]["tempo"] / arrangement["ppq"]
    audio, _ = render_bytes({"midi": b64(_lane_midi(arrangement, lane)), "engine": engine},
                            soundfont=str(tiny_font))
    samples, rate = decode(audio)
    # a lane alone is as loud as it is in the band (one fixed gain): audible is within
    # 39 dB of its own peak (0.01 of a peak at 0.9)
    mono = samples.astype(np.float64).mean(axis=1)
    mono = 0.9 * mono / np.abs(mono).max()
    notes = arrangement["lanes"][lane]
    assert notes
    quiet = 0
    for note in notes:
        a = round(note["tick"] * seconds_per_tick * rate)
        b = a + max(round(note["duration"] * seconds_per_tick * rate), rate // 50)
        rms = float(np.sqrt(np.mean(mono[a:b] ** 2)))
        quiet += rms < 0.01
    assert quiet <= len(notes) // 50, f"{quiet} of {len(notes)} {lane} notes inaudible"
    assert np.all(samples[-rate // 10:] == 0) or engine == "soundfont"


def test_silence_before_the_first_note_and_after_the_last_release() -> None:
    midi = midi_of([(1.0, 0.5, 60, 100)], end=2.0)
    samples, rate = decode(render_bytes({"midi": b64(midi), "engine": "basic"})[0])
    assert samples.shape[0] == math.ceil((2.0 + TAIL) * rate)
    assert np.all(samples[: rate - 1] == 0)          # before 1.0 s
    assert np.abs(samples[rate: rate + rate // 2]).max() > 1000
    release = basic.TIMBRES["piano"].release
    assert np.all(samples[round((1.5 + release) * rate) + 64:] == 0)


@pytest.mark.parametrize("rate", [22050, 44100, 48000])
def test_a4_sounds_at_440_hz(rate: int) -> None:
    midi = midi_of([(0.0, 2.0, 69, 100)])
    audio, facts = render_bytes({"midi": b64(midi), "engine": "basic", "sampleRate": rate,
                                 "channels": 1})
    samples, got = decode(audio)
    assert got == rate == facts["sampleRate"] and samples.shape[1] == 1
    window = samples[rate // 10: rate // 10 + rate, 0].astype(np.float64)
    spectrum = np.abs(np.fft.rfft(window * np.hanning(len(window))))
    peak = np.fft.rfftfreq(len(window), 1 / rate)[int(np.argmax(spectrum))]
    assert abs(peak - 440) <= 4.4, peak


@pytest.mark.parametrize("engine", ["basic", "soundfont"])
def test_no_sample_reaches_full_scale(engine: str, tiny_font: Path) -> None:
    # A loud cluster: forty notes at full velocity at once.
    midi = midi_of([(0.0, 1.0, 40 + i, 127) for i in range(40)])
    samples, _ = decode(render_bytes({"midi": b64(midi), "engine": engine},
                                     soundfont=str(tiny_font))[0])
    peak = int(np.abs(samples.astype(np.int32)).max())
    assert 0.8 * 32767 < peak < 32767


# ------------------------------------------------------------------ the same bytes


def test_basic_bytes_are_golden() -> None:
    _, facts = render_bytes({"arrangement": blues(), "engine": "basic"})
    assert facts["sha256"] == GOLDEN_BASIC_SHA256


@pytest.mark.parametrize("engine", ["basic", "soundfont"])
def test_same_request_same_bytes_in_another_process(engine: str, tiny_font: Path) -> None:
    request = {"arrangement": blues(), "engine": engine, "format": "flac"}
    here = render_bytes(request, soundfont=str(tiny_font))[1]["sha256"]
    other = {"prompt": "medium swing blues in F", "durationSec": 20, "seed": 1,
             "engine": engine, "format": "flac"}
    probe = ("import sys, json; from engine.render import render_bytes; "
             "print(render_bytes(json.loads(sys.argv[1]), soundfont=sys.argv[2])[1]['sha256'])")
    done = subprocess.run([sys.executable, "-c", probe, json.dumps(other),
                           str(tiny_font)], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, check=True, env=os.environ.copy())
    assert done.stdout.strip() == here


def test_soundfont_renders_do_not_depend_on_the_one_before(tiny_font: Path) -> None:
    funk = conduct({"prompt": "fast funk in E minor", "durationSec": 10, "seed": 2})
    first = render_bytes({"arrangement": blues(), "engine": "soundfont"},
                         soundfont=str(tiny_font))[1]["sha256"]
    render_bytes({"arrangement": funk, "engine": "soundfont"}, soundfont=str(tiny_font))
    again = render_bytes({"arrangement": blues(), "engine": "soundfont"},
                         soundfont=str(tiny_font))[1]["sha256"]
    assert first == again


# ------------------------------------------------------------------ formats and answer


@pytest.mark.parametrize(("fmt", "exact"), [("wav", True), ("flac", True), ("mp3", False)])
@pytest.mark.parametrize("channels", [1, 2])
def test_each_format_decodes_back(fmt: str, exact: bool, channels: int) -> None:
    midi = midi_of([(0.0, 0.5, 60, 90), (0.5, 0.5, 64, 90)])
    wav = decode(render_bytes({"midi": b64(midi), "engine": "basic", "channels": channels,
                               "sampleRate": 22050})[0])[0]
    audio, facts = render_bytes({"midi": b64(midi), "engine": "basic", "format": fmt,
                                 "channels": channels, "sampleRate": 22050})
    samples, rate = decode(audio)
    assert facts["format"] == fmt and rate == 22050 and samples.shape[1] == channels
    if exact:
        assert np.array_equal(samples, wav)
    else:  # MP3 pads the start and end by whole frames
        assert abs(samples.shape[0] - wav.shape[0]) <= 4 * 1152
    assert render_bytes({"midi": b64(midi), "engine": "basic", "format": fmt, "channels":
                         channels, "sampleRate": 22050})[0] == audio


@pytest.mark.parametrize(("rate", "channels"), [(22050, 1), (44100, 2), (48000, 2)])
def test_wav_is_the_file_libsndfile_writes(rate: int, channels: int) -> None:
    notes = read_midi(midi_of([(0.0, 0.5, 60, 90), (0.25, 0.5, 67, 70)]))
    samples = basic.render_basic(notes, rate, channels)
    reference = io.BytesIO()
    with soundfile.SoundFile(reference, "w", samplerate=rate, channels=channels, format="WAV",
                             subtype="PCM_16") as out:
        out.write(samples)
    assert encode(samples, rate, "wav") == reference.getvalue()


def test_render_answers_json_with_base64_audio() -> None:
    midi = midi_of([(0.0, 0.5, 60, 90)])
    answer = render({"midi": b64(midi), "engine": "basic"})
    assert list(answer) == ["format", "sampleRate", "channels", "durationSec", "engine",
                            "soundfont", "sha256", "audio"]
    audio = base64.b64decode(answer["audio"])
    assert hashlib.sha256(audio).hexdigest() == answer["sha256"]


def test_a_prompt_is_conducted_then_rendered() -> None:
    audio, facts = render_bytes({"prompt": "slow blues in G", "durationSec": 10, "seed": 3,
                                 "engine": "basic"})
    arrangement = conduct({"prompt": "slow blues in G", "durationSec": 10, "seed": 3})
    assert facts == render_bytes({"arrangement": arrangement, "engine": "basic"})[1]
    assert decode(audio)[0].shape[0] > 10 * 44100


@pytest.mark.skipif(SYSTEM_FONT is None, reason="no system General MIDI SoundFont (Debian's "
                                                "fluid-soundfont-gm): .ci/run installs it")
def test_the_system_soundfont_renders_every_lane() -> None:
    audio, facts = render_bytes({"arrangement": blues(), "engine": "auto"})
    assert SYSTEM_FONT is not None
    assert facts["engine"] == "soundfont" and facts["soundfont"] == SYSTEM_FONT.name
    samples, rate = decode(audio)
    assert samples.shape[0] == math.ceil((read_midi(base64.b64decode(blues()["midi"])).length
                                          + TAIL) * rate)
    seconds_per_tick = 60 / blues()["conductor"]["tempo"] / blues()["ppq"]
    for lane in LANE_TRACKS:
        lane_audio = decode(render_bytes({"midi": b64(_lane_midi(blues(), lane))})[0])[0]
        first = blues()["lanes"][lane][0]
        a = round(first["tick"] * seconds_per_tick * rate)
        window = lane_audio[a: a + rate // 4].astype(np.float64) / 32768
        assert float(np.sqrt(np.mean(window ** 2))) > 0.005, lane
    assert render_bytes({"arrangement": blues()})[1]["sha256"] == facts["sha256"]


# ------------------------------------------------------------------ errors


@pytest.mark.parametrize(("request_", "field"), [
    ({"midi": "not base64!"}, "midi"),
    ({"midi": b64(b"MThd but not really")}, "midi"),
    ({"midi": ""}, "midi"),
    ({"arrangement": {"conductor": {}}}, "arrangement"),
    ({"arrangement": b64(b"x")}, "arrangement"),
    ({}, "prompt"),
    ({"prompt": "blues in F", "midi": b64(b"x")}, "midi"),
    ({"midi": "AAAA", "format": "ogg"}, "format"),
    ({"midi": "AAAA", "sampleRate": 8000}, "sampleRate"),
    ({"midi": "AAAA", "channels": 3}, "channels"),
    ({"midi": "AAAA", "engine": "fluid"}, "engine"),
    ({"prompt": "blues in F", "durationSec": 600}, "durationSec"),
])
def test_bad_requests_name_their_field(request_: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidRequest) as refused:
        render_bytes(request_)
    assert refused.value.field == field, refused.value.message


def test_audio_longer_than_the_limit_is_refused_on_midi() -> None:
    midi = midi_of([(0.0, 1.0, 60, 90)], end=40.0)
    with pytest.raises(InvalidRequest) as refused:
        render_bytes({"midi": b64(midi), "engine": "basic"}, max_seconds=30)
    assert refused.value.field == "midi" and "30 s" in refused.value.message


def test_soundfont_asked_where_none_is_configured(tmp_path: Path) -> None:
    with pytest.raises(InvalidRequest) as refused:
        render_bytes({"midi": b64(midi_of([(0.0, 1.0, 60, 90)])), "engine": "soundfont"},
                     soundfont=str(tmp_path / "missing.sf2"))
    assert refused.value.field == "engine" and "missing.sf2" in refused.value.message


# ------------------------------------------------------------------ the kernel's twin


@pytest.mark.parametrize("kept", [True, False])
def test_the_pitched_kernel_equals_its_slow_twin(kept: bool) -> None:
    waves, envelopes, _, increments = basic.tables(22050)
    frames = 4000
    start = np.array([0, 100, 2500], dtype=np.int64)
    held = np.array([1500, 63, 900], dtype=np.int64)
    release = np.array([700, 300, 2000], dtype=np.int64)
    inc = increments[np.array([60, 69, 30])]
    timbre = np.array([0, 4, 7], dtype=np.int64)
    gain = np.array([65536, 25600, 51200], dtype=np.int64)
    left = np.array([128, 256, 30], dtype=np.int64)
    right = 256 - left
    length = held + release
    # kept: each sound made once (``make_pitched``) and added; else made where it plays
    offset = np.cumsum(length) - length if kept else np.full(3, -1, dtype=np.int64)
    sounds = np.zeros(int(length.sum()), dtype=np.int32)
    if kept:
        basic_kernels.make_pitched(sounds, offset, length, held, release, inc, timbre, waves,
                            envelopes)
    fast = np.empty((frames, 2), dtype=np.int16)
    # mixed 100 frames at a time: chunks end inside the envelope's blocks of 64
    peak = basic_kernels.mix_into(fast, 100, 0, np.arange(3), start, offset, length, gain * left,
                         gain * right, sounds, held, release, inc, timbre, waves, envelopes)
    mix = mix_pitched(frames, start, held, release, inc, timbre, waves, envelopes, gain, left,
                      right)
    slow = mix.T * basic_kernels.GAIN + 128 >> 8
    assert 0 < peak == np.abs(slow).max() <= basic_kernels.PEAK
    assert np.array_equal(fast, slow)


def test_a_sound_made_once_equals_one_made_where_it_plays(
        monkeypatch: pytest.MonkeyPatch) -> None:
    notes = read_midi(base64.b64decode(blues()["midi"]))
    kept = basic.render_basic(notes, 22050, 2)
    monkeypatch.setattr(basic, "SOUNDS_MAX", 0)
    assert np.array_equal(basic.render_basic(notes, 22050, 2), kept)


def test_drum_hits_alternate_takes_of_one_sound() -> None:
    # Eight closed hats at one velocity, a side stick between each two: the hats play takes
    # 0-3, then the same four again, whatever is played between them.
    hats = [(i * 0.5, 0.1, 42, 100) for i in range(8)]
    sticks = [(i * 0.5 + 0.25, 0.05, 37, 90) for i in range(8)]
    midi = midi_of(hats + sticks, channel=9, end=4.5)
    samples, rate = decode(render_bytes({"midi": b64(midi), "engine": "basic",
                                         "sampleRate": 22050})[0])
    hits = [samples[round(i * 0.5 * rate):][:rate // 10] for i in range(8)]
    assert all(np.array_equal(hits[i], hits[i + 4]) for i in range(4))
    assert not any(np.array_equal(hits[i], hits[j]) for i in range(4) for j in range(i))
    level = [float(np.sqrt(np.mean(h.astype(np.float64) ** 2))) for h in hits[:4]]
    assert max(level) / min(level) < 1.2  # the takes: one hat, as loud
