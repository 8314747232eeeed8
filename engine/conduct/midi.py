"""The arrangement as a Standard MIDI File (format 1): mido's encoding, laid out by hand.

Track 0 is the conductor (name, tempo, time signature, key signature); then one track per
lane, named, with its General MIDI program, its fader (CC7) and its pan (CC10); drums on
channel 10 (9 counted from 0), whose program is the kit.
Every value was range-checked when the lanes were made.
"""

from __future__ import annotations

import base64
import struct
from collections.abc import Sequence

import mido
import numpy as np

from engine.chords import Spelled

LANES = ("harmony", "pattern", "bass", "drums")
CHANNELS = {"harmony": 0, "pattern": 1, "bass": 2, "drums": 9}
# The mixer, as a band is heard from the front (API.md 7): bass and drums in the centre, the
# harmony lane (piano) left, the pattern lane (guitar, vibes) right, a melody right of centre.
# CC10 pan 0 left .. 64 centre .. 127 right; CC7 each channel's fader (100 is General MIDI's
# default): the dynamics are the velocities, the balance of the lanes these faders.
PAN = {"harmony": 40, "pattern": 88, "bass": 64, "drums": 64, "melody": 76}
VOLUME = {"harmony": 100, "pattern": 92, "bass": 104, "drums": 100, "melody": 108}
CC_VOLUME, CC_PAN = 7, 10

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
               meter: tuple[int, int], key: str, programs: tuple[int, int, int, int],
               names: tuple[str, str, str, str], ppq: int, end: int) -> bytes:
    """SMF bytes for four lanes of (tick, duration, pitch, velocity): the bytes mido's
    ``MidiFile.save`` writes for the same messages (running status included), which
    ``tests/test_conduct_sound.py`` checks against mido itself. The meta events are mido's own
    encodings; the note events, thousands per track, are laid out with numpy (``_notes``):
    mido took 9.0 ms for the 8,000 messages of a 32-bar funk arrangement, this 0.4 ms."""
    meta = mido.MetaMessage
    conductor = b"".join([
        _event(0, meta("track_name", name="Conductor").bytes()),
        _event(0, meta("set_tempo", tempo=mido.bpm2tempo(tempo)).bytes()),
        _event(0, meta("time_signature", numerator=meter[0], denominator=meter[1],
                       clocks_per_click=clocks_per_click(meter)).bytes()),
        _event(0, meta("key_signature", key=key).bytes()),
        _event(end, _END_OF_TRACK),
    ])
    tracks = [conductor]
    for lane, name in zip(LANES, names, strict=True):
        channel = CHANNELS[lane]
        # the program (on channel 10 the drum kit: 0 standard, 40 brushes), fader and pan,
        # the two controllers under one running status as mido writes them
        control = 0xB0 | channel
        head = [_event(0, meta("track_name", name=name).bytes()),
                _event(0, [0xC0 | channel, programs[LANES.index(lane)]]),
                _event(0, [control, CC_VOLUME, VOLUME[lane]]),
                _event(0, [CC_PAN, PAN[lane]])]
        running = control
        tracks.append(b"".join([*head, _notes(lanes[lane], channel, running),
                                _event(0, _END_OF_TRACK)]))
    header = b"MThd" + struct.pack(">IHHH", 6, 1, len(tracks), ppq)
    return header + b"".join(b"MTrk" + struct.pack(">I", len(t)) + t for t in tracks)


_END_OF_TRACK = (0xFF, 0x2F, 0x00)


def _event(delta: int, data: Sequence[int]) -> bytes:
    return _varlen(delta) + bytes(data)


def _varlen(value: int) -> bytes:
    """A MIDI variable-length quantity: 7 bits a byte, most significant first, the high bit
    set on every byte but the last."""
    out = [value & 0x7F]
    value >>= 7
    while value:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    return bytes(reversed(out))


def _notes(notes: list[tuple[int, int, int, int]], channel: int, running: int | None) -> bytes:
    """The note-on and note-off events of one track, in time order (at one tick: offs before
    ons, then by pitch and velocity, as sorting the tuples would), each a variable-length delta
    then its status byte (left out while it repeats: running status) and two data bytes."""
    if not notes:
        return b""
    raw = np.asarray(notes, dtype=np.int64).reshape(-1, 4)
    n = len(raw)
    tick = np.concatenate([raw[:, 0], raw[:, 0] + raw[:, 1]])
    on = np.concatenate([np.ones(n, np.int64), np.zeros(n, np.int64)])
    pitch = np.concatenate([raw[:, 2], raw[:, 2]])
    velocity = np.concatenate([raw[:, 3], np.zeros(n, np.int64)])
    order = np.lexsort((velocity, pitch, on, tick))
    tick, on, pitch, velocity = tick[order], on[order], pitch[order], velocity[order]
    delta = np.diff(tick, prepend=0)
    status = np.where(on == 1, 0x90 | channel, 0x80 | channel)
    before = np.concatenate([[-1 if running is None else running], status[:-1]])
    keeps_status = status != before
    # variable-length deltas: 7 bits a byte, the high bit set on all but the last
    width = 1 + (delta >= 1 << 7) + (delta >= 1 << 14) + (delta >= 1 << 21)
    size = width + keeps_status + 2
    start = np.concatenate([[0], np.cumsum(size)[:-1]])
    out = np.zeros(int(size.sum()), dtype=np.uint8)
    for k in range(4):  # byte k of each delta, counted from its last
        has = width > k
        out[(start + width - 1 - k)[has]] = ((delta[has] >> (7 * k)) & 0x7F) | (0x80 if k else 0)
    at = start + width
    out[at[keeps_status]] = status[keeps_status]
    at = at + keeps_status
    out[at] = pitch
    out[at + 1] = velocity
    return out.tobytes()


def encode(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
