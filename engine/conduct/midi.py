"""The arrangement as a Standard MIDI File (format 1) written with mido.

Track 0 is the conductor (name, tempo, time signature, key signature); then one track per
lane, named, with its General MIDI program; drums on channel 10 (9 counted from 0).
Messages are built with ``skip_checks``: every value was range-checked when the lanes were
made, and mido's per-message validation would otherwise be most of the cost.
"""

from __future__ import annotations

import base64
import io

import mido

from engine.chords import Spelled

LANES = ("harmony", "pattern", "bass", "drums")
CHANNELS = {"harmony": 0, "pattern": 1, "bass": 2, "drums": 9}

# Sharps (+) or flats (-) of the key signature a mode shares with its parent major scale,
# relative to the mode's tonic: D dorian has C major's signature, two fifths below D.
MODE_FIFTHS = {"major": 0, "lydian": 1, "mixolydian": -1, "dorian": -2, "minor": -3,
               "aeolian": -3, "phrygian": -4, "locrian": -5}
_MAJOR_BY_FIFTHS = {-7: "Cb", -6: "Gb", -5: "Db", -4: "Ab", -3: "Eb", -2: "Bb", -1: "F", 0: "C",
                    1: "G", 2: "D", 3: "A", 4: "E", 5: "B", 6: "F#", 7: "C#"}
_MINOR_BY_FIFTHS = {-7: "Abm", -6: "Ebm", -5: "Bbm", -4: "Fm", -3: "Cm", -2: "Gm", -1: "Dm",
                    0: "Am", 1: "Em", 2: "Bm", 3: "F#m", 4: "C#m", 5: "G#m", 6: "D#m",
                    7: "A#m"}
_LETTER_FIFTHS = (0, 2, 4, -1, 1, 3, 5)   # C D E F G A B on the line of fifths


def key_signature(tonic: Spelled, mode: str) -> str:
    """The key signature as mido names it: ``(Bb, "minor") -> "Bbm"``; beyond seven
    accidentals the enharmonic signature (G# major is written as Ab major)."""
    fifths = _LETTER_FIFTHS[tonic.letter] + 7 * tonic.alter + MODE_FIFTHS.get(mode, 0)
    while fifths > 7:
        fifths -= 12
    while fifths < -7:
        fifths += 12
    return (_MINOR_BY_FIFTHS if mode in ("minor", "aeolian") else _MAJOR_BY_FIFTHS)[fifths]


def clocks_per_click(meter: tuple[int, int]) -> int:
    """MIDI clocks (24 a quarter note) per metronome click: the pulse of the meter, a dotted
    quarter (36) in 6/8, 9/8, 12/8, else one beat unit (a quarter 24, a half 48, an eighth 12)."""
    num, den = meter
    unit = 96 // den
    return 3 * unit if den == 8 and num % 3 == 0 and num > 3 else unit


def write_midi(lanes: dict[str, list[tuple[int, int, int, int]]], *, tempo: float,
               meter: tuple[int, int], key: str, programs: tuple[int, int, int],
               names: tuple[str, str, str, str], ppq: int, end: int) -> bytes:
    """SMF bytes for four lanes of (tick, duration, pitch, velocity)."""
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
        if lane != "drums":
            program = programs[LANES.index(lane)]
            track.append(mido.Message("program_change", channel=channel, program=program))
        track.extend(_note_messages(lanes[lane], channel))
        mf.tracks.append(track)
    buf = io.BytesIO()
    mf.save(file=buf)
    return buf.getvalue()


def _note_messages(notes: list[tuple[int, int, int, int]], channel: int) -> list[mido.Message]:
    # (tick, 0 = off before 1 = on at the same tick, pitch, velocity)
    events = [(t, 1, p, v) for t, _d, p, v in notes] + [(t + d, 0, p, 0) for t, d, p, _v in notes]
    events.sort()
    msgs = []
    now = 0
    # Bars repeat: the same message (kind, pitch, velocity, delta) recurs, and one mido
    # message object may stand at many places of a track.
    made: dict[tuple[int, int, int, int], mido.Message] = {}
    for tick, on, pitch, vel in events:
        k = (on, pitch, vel, tick - now)
        msg = made.get(k)
        if msg is None:
            msg = made[k] = mido.Message("note_on" if on else "note_off", skip_checks=True,
                                         channel=channel, note=pitch, velocity=vel,
                                         time=tick - now)
        msgs.append(msg)
        now = tick
    return msgs


def encode(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
