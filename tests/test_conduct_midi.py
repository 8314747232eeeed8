"""conduct's MIDI writer (``engine.conduct.midi.write_midi``, laid out by hand with numpy for
speed, issue 21) gives exactly the bytes mido's own writer gives for the same messages: mido is
the reference, written out here as the writer was before."""

from __future__ import annotations

import base64
import io
from typing import Any

import mido
import pytest

from engine.conduct import conduct
from engine.conduct.midi import CHANNELS, LANES, PAN, VOLUME, clocks_per_click, write_midi
from engine.conduct.styles import GROOVES

PROMPTS = ["medium swing blues in F", "bossa nova in Bb minor, 32 bars", "ballad in Eb",
           "jazz waltz in D", "funk in E, 32 bars", "samba in G", "shuffle blues in A",
           "rock in C, 6/8", "gospel in Ab", "Dorian vamp in D, intense", "slow 12/8 ballad"]


def mido_reference(lanes: dict[str, list[tuple[int, int, int, int]]], *, tempo: float,
                   meter: tuple[int, int], key: str, programs: tuple[int, int, int, int],
                   names: tuple[str, str, str, str], ppq: int, end: int) -> bytes:
    mf = mido.MidiFile(type=1, ticks_per_beat=ppq)
    meta = mido.MetaMessage
    mf.tracks.append(mido.MidiTrack([
        meta("track_name", name="Conductor", time=0),
        meta("set_tempo", tempo=mido.bpm2tempo(tempo), time=0),
        meta("time_signature", numerator=meter[0], denominator=meter[1],
             clocks_per_click=clocks_per_click(meter), time=0),
        meta("key_signature", key=key, time=0),
        meta("end_of_track", time=end),
    ]))
    for lane, name in zip(LANES, names, strict=True):
        channel = CHANNELS[lane]
        track = mido.MidiTrack([meta("track_name", name=name, time=0)])
        track.append(mido.Message("program_change", channel=channel,
                                  program=programs[LANES.index(lane)]))
        track.append(mido.Message("control_change", channel=channel, control=7,
                                  value=VOLUME[lane]))
        track.append(mido.Message("control_change", channel=channel, control=10,
                                  value=PAN[lane]))
        events = sorted([(t, 1, p, v) for t, _d, p, v in lanes[lane]]
                        + [(t + d, 0, p, 0) for t, d, p, _v in lanes[lane]])
        now = 0
        for tick, on, pitch, velocity in events:
            track.append(mido.Message("note_on" if on else "note_off", channel=channel,
                                      note=pitch, velocity=velocity, time=tick - now))
            now = tick
        mf.tracks.append(track)
    buf = io.BytesIO()
    mf.save(file=buf)
    return buf.getvalue()


def _arguments(result: dict[str, Any]) -> dict[str, Any]:
    c = result["conductor"]
    lanes = {name: [(e["tick"], e["duration"], e["pitch"], e["velocity"]) for e in events]
             for name, events in result["lanes"].items()}
    groove = GROOVES[c["style"]]
    meter = tuple(int(x) for x in c["timeSignature"].split("/"))
    # the key signature mido names: read back from the file conduct wrote
    written = mido.MidiFile(file=io.BytesIO(base64.b64decode(result["midi"])))
    key = next(m.key for m in written.tracks[0] if m.type == "key_signature")
    # the programs as written: the style's, or those the words chose (brushes, slap bass)
    programs = tuple(next(m.program for m in track if m.type == "program_change")
                     for track in written.tracks[1:])
    assert programs[:3] == groove.programs or c["understood"]
    return {"lanes": lanes, "tempo": c["tempo"], "meter": meter, "key": key,
            "programs": programs, "names": (*groove.names, "Bass", "Drums"),
            "ppq": result["ppq"], "end": c["bars"] * meter[0] * 4 * 480 // meter[1]}


@pytest.mark.parametrize("prompt", PROMPTS)
def test_the_writer_gives_mido_s_bytes(prompt: str) -> None:
    result = conduct({"prompt": prompt, "seed": 3})
    arguments = _arguments(result)
    ours = write_midi(**arguments)
    assert ours == mido_reference(**arguments)
    assert base64.b64decode(result["midi"]) == ours


def test_long_deltas_and_empty_lanes() -> None:
    # deltas of 1, 2, 3 and 4 bytes (up to 2**28 - 1), a lane with no notes at all
    lanes = {"harmony": [(0, 127, 60, 90), (128, 16383, 62, 80), (20000, 2097151, 64, 70),
                         (3_000_000, 200_000_000, 65, 1)],
             "pattern": [], "bass": [(0, 1, 40, 100), (0, 1, 40, 100)], "drums": [(5, 1, 36, 127)]}
    arguments: dict[str, Any] = {"lanes": lanes, "tempo": 120.0, "meter": (4, 4), "key": "C",
                                 "programs": (0, 0, 32, 40), "names": ("a", "b", "c", "d"),
                                 "ppq": 480, "end": 300_000_000}
    assert write_midi(**arguments) == mido_reference(**arguments)
