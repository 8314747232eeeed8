"""A Standard MIDI File (format 0 or 1) read into what a synthesiser plays: notes with their
start and end in seconds (the tempo map honoured, the sustain pedal holding released notes),
the program of their channel when they start, and the channel's pan and volume (CC10, CC7).

``Notes`` holds parallel arrays, one entry per note, sorted by start time then channel then
pitch, so every synthesiser sees the same order.
"""

from __future__ import annotations

import io
import struct
from collections import deque
from dataclasses import dataclass

import mido
import numpy as np
import numpy.typing as npt

from engine.errors import InvalidRequest

DRUM_CHANNEL = 9          # channel 10 of the MIDI standard, counted from 0
SUSTAIN = 64
PAN = 10
VOLUME = 7
DEFAULT_VOLUME = 100      # General MIDI's channel volume until a CC7 says otherwise
DEFAULT_TEMPO = 500_000   # µs per quarter (120 bpm) until a set_tempo says otherwise


@dataclass(frozen=True)
class Notes:
    start: npt.NDArray[np.float64]     # seconds
    end: npt.NDArray[np.float64]       # seconds (after the sustain pedal's hold)
    channel: npt.NDArray[np.int64]     # 0..15; 9 is the drum kit
    program: npt.NDArray[np.int64]     # 0..127, General MIDI
    pitch: npt.NDArray[np.int64]       # MIDI note number
    velocity: npt.NDArray[np.int64]    # 1..127
    pan: npt.NDArray[np.int64]         # 16 entries, one per channel: 0 left .. 64 centre .. 127 right
    volume: npt.NDArray[np.int64]      # 16 entries, one per channel: CC7, 0..127
    length: float                      # seconds from the start to the last event of the file

    def __len__(self) -> int:
        return len(self.start)


def check_smf(data: bytes, field: str = "midi") -> None:
    """Refuse, in microseconds, what is not a Standard MIDI File of format 0 or 1: the header
    chunk and the chunk lengths (every track whole), not the events inside. The request path
    calls it, so that bytes which are no MIDI file never take a render slot."""
    def refuse(why: str) -> InvalidRequest:
        return InvalidRequest(f"not a Standard MIDI File: {why}", field=field)

    if len(data) < 14 or data[:4] != b"MThd":
        raise refuse("it does not start with an MThd header")
    size, kind, tracks, division = struct.unpack(">IHHH", data[4:14])
    if size < 6:
        raise refuse("its header chunk is too short")
    if kind not in (0, 1):
        raise InvalidRequest(f"MIDI format {kind} is not supported (use format 0 or 1)",
                             field=field)
    if division & 0x8000 or division == 0:
        raise InvalidRequest("the MIDI file's time division is not in ticks per beat "
                             "(SMPTE time is not supported)", field=field)
    at, found = 8 + size, 0
    while found < tracks:
        if at + 8 > len(data):
            raise refuse(f"it declares {tracks} tracks and holds {found}")
        length = struct.unpack(">I", data[at + 4:at + 8])[0]
        if at + 8 + length > len(data):
            raise refuse(f"chunk {found + 1} is cut short")
        found += data[at:at + 4] == b"MTrk"
        at += 8 + length


def read_midi(data: bytes, field: str = "midi") -> Notes:
    """The notes of a Standard MIDI File; ``InvalidRequest(field)`` when it is not one."""
    try:
        midi = mido.MidiFile(file=io.BytesIO(data))
    except Exception as e:  # mido raises OSError, EOFError, ValueError, KeyError, IndexError
        raise InvalidRequest(f"not a Standard MIDI File: {e}", field=field) from None
    if midi.type not in (0, 1):
        raise InvalidRequest(f"MIDI format {midi.type} is not supported (use format 0 or 1)",
                             field=field)
    if midi.ticks_per_beat <= 0:
        raise InvalidRequest("the MIDI file's time division is not in ticks per beat "
                             "(SMPTE time is not supported)", field=field)
    return _notes(midi)


def _notes(midi: mido.MidiFile) -> Notes:
    # Merge the tracks by absolute tick (a stable sort keeps each track's own order, and
    # track order breaks ties), then walk them once with the tempo map.
    timeline: list[tuple[int, int, int, mido.Message]] = []
    for t, track in enumerate(midi.tracks):
        tick = 0
        for i, message in enumerate(track):
            tick += message.time
            timeline.append((tick, t, i, message))
    timeline.sort(key=lambda e: (e[0], e[1], e[2]))

    tempo, seconds, last_tick = DEFAULT_TEMPO, 0.0, 0
    per_tick = tempo / 1e6 / midi.ticks_per_beat
    program = [0] * 16
    pan = [64] * 16
    volume = [DEFAULT_VOLUME] * 16
    pedal = [False] * 16
    # first on, first off: a deque each, as 100,000 ons of one key before their offs (a hostile
    # file) made a list's pop(0) quadratic
    sounding: dict[tuple[int, int], deque[tuple[float, int, int]]] = {}
    held: dict[int, list[tuple[tuple[float, int, int], int, int]]] = {c: [] for c in range(16)}
    rows: list[tuple[float, float, int, int, int, int]] = []

    def finish(start: tuple[float, int, int], channel: int, pitch: int, end: float) -> None:
        begin, prog, velocity = start
        rows.append((begin, max(end, begin), channel, prog, pitch, velocity))

    for tick, _, _, message in timeline:
        seconds += (tick - last_tick) * per_tick
        last_tick = tick
        kind = message.type
        if kind == "set_tempo":
            tempo = message.tempo
            per_tick = tempo / 1e6 / midi.ticks_per_beat
        elif kind == "program_change":
            program[message.channel] = message.program
        elif kind == "control_change":
            c = message.channel
            if message.control == PAN:
                pan[c] = message.value
            elif message.control == VOLUME:
                volume[c] = message.value
            elif message.control == SUSTAIN:
                down = message.value >= 64
                if pedal[c] and not down:
                    for start, ch, pitch in held[c]:
                        finish(start, ch, pitch, seconds)
                    held[c] = []
                pedal[c] = down
        elif kind == "note_on" and message.velocity > 0:
            key = (message.channel, message.note)
            sounding.setdefault(key, deque()).append((seconds, program[message.channel],
                                                 message.velocity))
        elif kind in ("note_off", "note_on"):
            key = (message.channel, message.note)
            starts = sounding.get(key)
            if starts:
                start = starts.popleft()
                if pedal[message.channel]:
                    held[message.channel].append((start, *key))
                else:
                    finish(start, *key, seconds)
    for (channel, pitch), starts in sounding.items():  # never released: to the end
        for start in starts:
            finish(start, channel, pitch, seconds)
    for notes in held.values():
        for start, ch, pitch in notes:
            finish(start, ch, pitch, seconds)
    rows.sort(key=lambda r: (r[0], r[2], r[4], r[1]))
    columns = list(zip(*rows, strict=True)) if rows else [(), (), (), (), (), ()]
    return Notes(start=np.array(columns[0], dtype=np.float64),
                 end=np.array(columns[1], dtype=np.float64),
                 channel=np.array(columns[2], dtype=np.int64),
                 program=np.array(columns[3], dtype=np.int64),
                 pitch=np.array(columns[4], dtype=np.int64),
                 velocity=np.array(columns[5], dtype=np.int64),
                 pan=np.array(pan, dtype=np.int64), volume=np.array(volume, dtype=np.int64),
                 length=seconds)
