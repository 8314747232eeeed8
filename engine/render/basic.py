"""The built-in synthesiser: no files, a timbre per General MIDI family, a drum kit from noise
and pitch sweeps; the same bytes on every CPU.

Why integers: numpy's sin and exp take different SIMD paths on different CPUs and differ in the
last bits. So the tables (one cycle of each timbre's wave, each envelope at a control rate of
64 samples) are built once per sample rate with Python's scalar ``math`` and rounded to
integers, and the private numba kernels render with integer phase accumulators (32-bit phase,
the top 12 bits index a 4,096-entry wave) and integer ``+``, ``*`` and shifts only.

Loudness follows the music (API.md 12): each note's gain is its velocity and its channel's
volume (CC7), each squared (the General MIDI curves), placed by its channel's pan (CC10), and
the mix is scaled by one fixed ``GAIN``, so a soft ballad comes out quieter than an intense
funk. Only a mix that would pass ``PEAK`` even so (a file of the user's, forty notes at full
velocity at once) is scaled down to it, by integer division: nothing ever clips.

Why it is fast (issue 40): a sound is made once and added wherever it plays. A drum kind has
``VARIANTS`` takes made once per sample rate (a sampler's round robin: every fourth hit of a
kind is the same take, as every hit of a SoundFont's drum is its one recording); a pitched
note's sound is its timbre, pitch and length, whatever its velocity and pan, made once a render
when played twice or more (a conducted 60 s funk: 1,901 pitched notes, 63 sounds). Adding a
kept sound is a load, two multiplies and two adds a sample, SIMD-wide; the rest is made where it
plays. The mix is built 16,384 frames at a time in cache and written to 16 bits chunk by chunk:
no int32 mix the length of the audio (42 MB for 2 minutes at 44.1 kHz) is allocated, faulted in
and read again.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from engine.render.basic_kernels import PEAK, make_drums, make_pitched, mix_into
from engine.render.events import DRUM_CHANNEL, Notes

WAVE_BITS = 12                   # 4,096 entries a cycle
PHASE_SHIFT = 32 - WAVE_BITS
STEP_SHIFT = 6                   # envelopes at one value per 64 samples
ENVELOPE_SECONDS = 24.0          # held envelopes are tabulated this long, then hold their value
ONE = 1 << 15                    # full scale of waves and envelopes


@dataclass(frozen=True)
class Timbre:
    """A pitched timbre: harmonic amplitudes of its wave; an envelope (attack, then a decay
    with time constant ``decay`` towards ``sustain``, and a linear ``release``); a level."""

    harmonics: tuple[float, ...]
    attack: float      # s
    decay: float       # s (time constant)
    sustain: float     # 0..1
    release: float     # s
    level: float       # 0..1, the family's loudness in the mix


TIMBRES: dict[str, Timbre] = {
    "piano":   Timbre((1.0, 0.45, 0.25, 0.12, 0.08, 0.04), 0.004, 1.1, 0.0, 0.30, 0.80),
    "keys":    Timbre((1.0, 0.0, 0.30, 0.0, 0.10), 0.003, 0.7, 0.05, 0.25, 0.70),
    "organ":   Timbre((1.0, 0.8, 0.6, 0.0, 0.4, 0.0, 0.0, 0.3), 0.015, 0.5, 0.85, 0.08, 0.55),
    "guitar":  Timbre((1.0, 0.6, 0.35, 0.25, 0.12, 0.06), 0.003, 0.6, 0.0, 0.15, 0.75),
    "bass":    Timbre((1.0, 0.5, 0.18, 0.08), 0.006, 0.9, 0.25, 0.10, 1.00),
    "strings": Timbre((1.0, 0.5, 0.33, 0.25, 0.2, 0.16, 0.14, 0.12), 0.12, 1.5, 0.8, 0.40, 0.55),
    "brass":   Timbre((1.0, 0.7, 0.5, 0.35, 0.25, 0.18), 0.04, 0.8, 0.7, 0.15, 0.65),
    "reed":    Timbre((1.0, 0.1, 0.55, 0.08, 0.35, 0.05, 0.2), 0.03, 0.9, 0.75, 0.12, 0.65),
    "pad":     Timbre((1.0, 0.3, 0.15, 0.08), 0.35, 2.0, 0.8, 0.80, 0.50),
}
# General MIDI program // 8 -> timbre: piano, chromatic percussion, organ, guitar, bass,
# strings, ensemble, brass, reed, pipe, synth lead, synth pad, synth effects, ethnic,
# percussive, sound effects.
FAMILY_TIMBRE = ("piano", "keys", "organ", "guitar", "bass", "strings", "strings", "brass",
                 "reed", "reed", "brass", "pad", "pad", "guitar", "keys", "pad")
TIMBRE_NAMES = tuple(TIMBRES)


@dataclass(frozen=True)
class Drum:
    """A drum sound: a sine swept from ``tone_hz`` to ``tone_end_hz`` over ``sweep`` s and/or
    noise (high-passed for cymbals), both under one decay of time constant ``decay``."""

    tone_hz: float
    tone_end_hz: float
    sweep: float
    tone: float        # 0..1
    noise: float       # 0..1
    bright: bool       # noise high-passed (first difference): cymbals and hats
    decay: float       # s
    length: float      # s the sound lasts, whatever the note's own length
    level: float


DRUMS: dict[str, Drum] = {
    "kick":   Drum(150.0, 48.0, 0.07, 1.0, 0.05, False, 0.16, 0.5, 1.00),
    "snare":  Drum(190.0, 170.0, 0.03, 0.45, 0.8, False, 0.09, 0.35, 0.80),
    "hat":    Drum(0.0, 0.0, 0.01, 0.0, 1.0, True, 0.025, 0.12, 0.35),
    "open":   Drum(0.0, 0.0, 0.01, 0.0, 1.0, True, 0.18, 0.6, 0.35),
    "ride":   Drum(520.0, 520.0, 0.01, 0.12, 0.7, True, 0.35, 0.9, 0.30),
    "crash":  Drum(0.0, 0.0, 0.01, 0.0, 1.0, True, 0.6, 1.5, 0.40),
    "tom":    Drum(140.0, 95.0, 0.12, 1.0, 0.15, False, 0.18, 0.5, 0.75),
    "clap":   Drum(0.0, 0.0, 0.01, 0.0, 1.0, False, 0.07, 0.3, 0.60),
    "click":  Drum(1200.0, 900.0, 0.01, 0.6, 0.4, True, 0.02, 0.08, 0.40),
}
DRUM_NAMES = tuple(DRUMS)
# General MIDI percussion key -> drum (keys not listed: the click).
DRUM_KEYS: dict[int, str] = {
    35: "kick", 36: "kick", 37: "click", 38: "snare", 39: "clap", 40: "snare",
    41: "tom", 43: "tom", 45: "tom", 47: "tom", 48: "tom", 50: "tom",
    42: "hat", 44: "hat", 46: "open", 49: "crash", 52: "crash", 55: "crash", 57: "crash",
    51: "ride", 53: "ride", 59: "ride",
}
RELEASE_MAX = max(t.release for t in TIMBRES.values())
TAIL = 1.5   # s of audio after the MIDI's end: the longest release and the cymbals' ring
MAX_VOICES = 256   # notes sounding at once, held or releasing: the SoundFont path's voice count


@lru_cache(maxsize=8)
def tables(rate: int) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32],
                               npt.NDArray[np.int32], npt.NDArray[np.int64]]:
    """(waves[timbre, 4096], envelopes[timbre, steps], drum envelopes[drum, steps], phase
    increments[128]) at ``rate``, integers, built with scalar ``math`` only."""
    size = 1 << WAVE_BITS
    waves = np.zeros((len(TIMBRES), size), dtype=np.int32)
    for i, timbre in enumerate(TIMBRES.values()):
        total = sum(timbre.harmonics)
        waves[i] = [round(ONE * 0.999 * sum(a * math.sin(2 * math.pi * (h + 1) * k / size)
                                            for h, a in enumerate(timbre.harmonics)) / total)
                    for k in range(size)]
    steps = int(ENVELOPE_SECONDS * rate) >> STEP_SHIFT
    step_s = (1 << STEP_SHIFT) / rate
    envelopes = np.zeros((len(TIMBRES), steps), dtype=np.int32)
    for i, timbre in enumerate(TIMBRES.values()):
        envelopes[i] = [round(ONE * _held(timbre, k * step_s)) for k in range(steps)]
    drums = np.zeros((len(DRUMS), steps), dtype=np.int32)
    for i, drum in enumerate(DRUMS.values()):
        drums[i] = [round(ONE * _struck(drum, k * step_s)) for k in range(steps)]
    increments = np.array([round(440.0 * 2 ** ((n - 69) / 12) * 2**32 / rate)
                           for n in range(128)], dtype=np.int64)
    for array in (waves, envelopes, drums, increments):
        array.flags.writeable = False
    return waves, envelopes, drums, increments


def _held(timbre: Timbre, t: float) -> float:
    if t < timbre.attack:
        return t / timbre.attack
    return timbre.sustain + (1 - timbre.sustain) * math.exp(-(t - timbre.attack) / timbre.decay)


def _struck(drum: Drum, t: float) -> float:
    if t >= drum.length:
        return 0.0
    attack = 0.001
    rise = min(1.0, t / attack)
    fade = min(1.0, (drum.length - t) / 0.02)  # no click where the table ends
    return rise * fade * math.exp(-t / drum.decay)


def voices(notes: Notes, rate: int) -> tuple[npt.NDArray[np.bool_], int]:
    """The render's cost model, known before a sample is made: which notes sound under the
    polyphony cap (a note that finds ``MAX_VOICES`` others sounding, held or in their release,
    is left out, as a synthesiser with a fixed voice count leaves it), and the work of those
    that do in voice-samples (each one's samples from its start to the end of its release, or
    its drum's length, within the audio): notes x seconds x rate, which the synthesiser's time
    follows (at most ~1.3 ns a voice-sample here, when no sound repeats; ~0.3 ns on a
    conducted arrangement: ``docs/reliability.md``)."""
    frames = math.ceil((notes.length + TAIL) * rate)
    if not len(notes):
        return np.ones(0, dtype=np.bool_), 0
    start = np.minimum(np.round(notes.start * rate).astype(np.int64), frames)
    held = np.maximum(np.round((notes.end - notes.start) * rate).astype(np.int64), 1)
    release = np.array([round(TIMBRES[FAMILY_TIMBRE[p // 8]].release * rate) for p in range(128)],
                       dtype=np.int64)[np.clip(notes.program, 0, 127)]
    drum_length = np.array([round(DRUMS[DRUM_KEYS.get(k, "click")].length * rate)
                            for k in range(128)], dtype=np.int64)[np.clip(notes.pitch, 0, 127)]
    stop = np.minimum(start + np.where(notes.channel == DRUM_CHANNEL, drum_length,
                                       held + np.maximum(release, 1)), frames)
    keep = np.ones(len(notes), dtype=np.bool_)
    # The notes sounding when note n starts are at most the n before it less those stopped
    # before it starts (notes are in start order): when that bound stays under the cap, none
    # is left out and the heap below is not needed.
    if int((np.arange(len(notes)) - np.searchsorted(np.sort(stop), start)).max()) < MAX_VOICES:
        return keep, int((stop - start).sum())
    sounding: list[int] = []  # the stops of the notes sounding, a heap
    for n, (first, last) in enumerate(zip(start.tolist(), stop.tolist(), strict=True)):
        while sounding and sounding[0] <= first:
            heapq.heappop(sounding)
        if len(sounding) >= MAX_VOICES:
            keep[n] = False
        else:
            heapq.heappush(sounding, last)
    return keep, int((stop - start)[keep].sum())


def playable(notes: Notes, keep: npt.NDArray[np.bool_]) -> Notes:
    """The notes ``voices`` keeps (the same object when it keeps them all)."""
    if keep.all():
        return notes
    return replace(notes, start=notes.start[keep], end=notes.end[keep],
                   channel=notes.channel[keep], program=notes.program[keep],
                   pitch=notes.pitch[keep], velocity=notes.velocity[keep])


def render_basic(notes: Notes, rate: int, channels: int,
                 keep: npt.NDArray[np.bool_] | None = None) -> npt.NDArray[np.int16]:
    """The notes as 16-bit samples, shape (frames, channels): the MIDI's length plus ``TAIL``;
    at most ``MAX_VOICES`` notes sound at once (``keep``: ``voices``'s choice, when the caller
    has it already).

    Each sound is made once and added where it plays: a drum kind's hit (``VARIANTS`` takes
    of it, as a sampler alternates its recordings), a pitched note of one timbre, pitch and
    length (however many times it is played, at whatever velocity and pan); a note whose sound
    is not kept (``SOUNDS_MAX``) is made where it plays, with the same arithmetic."""
    waves, envelopes, _, increments = tables(rate)
    frames = math.ceil((notes.length + TAIL) * rate)
    notes = playable(notes, voices(notes, rate)[0] if keep is None else keep)
    if not len(notes):
        return np.zeros((frames, channels), dtype=np.int16)
    start = np.minimum(np.round(notes.start * rate).astype(np.int64), frames)
    held = np.maximum(np.round((notes.end - notes.start) * rate).astype(np.int64), 1)
    left, right = _pan_gains(notes.pan[notes.channel])
    fader = notes.volume[notes.channel]
    # velocity and fader, each squared, in 1/65,536 steps: the quietest note keeps its
    # level (in 1/256 steps a velocity of 20 under a fader of 50 was 0)
    velocity = (notes.velocity ** 2 * fader ** 2 << 16) // 127 ** 4
    drum = notes.channel == DRUM_CHANNEL
    family = _PROGRAM_TIMBRE[np.clip(notes.program, 0, 127)]
    gain = np.where(drum, velocity, velocity * _TIMBRE_LEVEL[family] // 256)
    release = _TIMBRE_RELEASE[rate][family]
    increment = increments[np.clip(notes.pitch, 0, 127)]
    sounds, source, length = _sounds(notes, drum, family, held, release, increment, frames,
                                     rate, waves, envelopes)
    out = np.empty((frames, channels), dtype=np.int16)
    order = np.argsort(start, kind="stable")
    played = (order, start, source, length, gain * left, gain * right, sounds, held,
               release, increment, family, waves, envelopes)
    peak = int(mix_into(out, CHUNK, 0, *played))
    if peak > PEAK:  # a file of the user's too loud for GAIN: all again, scaled down
        mix_into(out, CHUNK, peak, *played)
    return out


VARIANTS = 4         # takes of each drum kind's hit, played in turn
SOUNDS_MAX = 1 << 22  # samples of pitched sounds kept a render (16 MB); the rest made in place
CHUNK = 1 << 14       # frames mixed at a time (128 KB of int32 left and right: in cache)
_PROGRAM_TIMBRE = np.array([TIMBRE_NAMES.index(FAMILY_TIMBRE[p // 8]) for p in range(128)],
                           dtype=np.int64)
_TIMBRE_LEVEL = np.array([round(256 * t.level) for t in TIMBRES.values()], dtype=np.int64)


class _Releases(dict[int, npt.NDArray[np.int64]]):
    """rate -> each timbre's release in samples (at least 1)."""

    def __missing__(self, rate: int) -> npt.NDArray[np.int64]:
        self[rate] = np.array([max(1, round(t.release * rate)) for t in TIMBRES.values()],
                              dtype=np.int64)
        return self[rate]


_TIMBRE_RELEASE = _Releases()


def _sounds(notes: Notes, drum: npt.NDArray[np.bool_], family: npt.NDArray[np.int64],
            held: npt.NDArray[np.int64], release: npt.NDArray[np.int64],
            increment: npt.NDArray[np.int64], frames: int, rate: int,
            waves: npt.NDArray[np.int32], envelopes: npt.NDArray[np.int32],
            ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """(sounds, source, length): the sounds made once, end to end in one array (mono, before
    each note's gain); each note's offset into it (-1: made in place) and its length."""
    drums, drum_offset, drum_length = drum_sounds(rate)
    # a drum hit plays its kind's takes in turn: the kind's hit number i plays take i mod 4
    kind = _DRUM_KIND[np.clip(notes.pitch, 0, 127)]
    by_kind = np.argsort(np.where(drum, kind, -1), kind="stable")
    grouped = np.where(drum, kind, -1)[by_kind]
    hit = np.empty(len(notes), dtype=np.int64)
    hit[by_kind] = np.arange(len(notes)) - np.searchsorted(grouped, grouped)
    take = kind * VARIANTS + hit % VARIANTS
    source = np.where(drum, drum_offset[take], -1)
    length = np.where(drum, drum_length[take], held + release)
    pitched = np.flatnonzero(~drum)
    # A pitched sound is its timbre, pitch and length: one key. Those played twice or more
    # are made once, the most played first, while they fit in SOUNDS_MAX.
    key = family[pitched] << 47 | np.clip(notes.pitch[pitched], 0, 127) << 40 | held[pitched]
    keys, first, inverse, count = np.unique(key, return_index=True, return_inverse=True,
                                            return_counts=True)
    size = np.minimum(held[pitched][first] + release[pitched][first], frames)
    order = np.argsort(-count, kind="stable")
    order = order[count[order] > 1]
    order = order[np.cumsum(size[order]) <= SOUNDS_MAX]
    offset = np.full(len(keys), -1, dtype=np.int64)
    offset[order] = len(drums) + np.cumsum(size[order]) - size[order]
    sounds = np.empty(len(drums) + int(size[order].sum()), dtype=np.int32)
    sounds[:len(drums)] = drums
    note = pitched[first[order]]
    make_pitched(sounds, offset[order], size[order], held[note], release[note],
                  increment[note], family[note], waves, envelopes)
    source[pitched] = offset[inverse]
    return sounds, source, length


_DRUM_KIND = np.array([DRUM_NAMES.index(DRUM_KEYS.get(k, "click")) for k in range(128)],
                      dtype=np.int64)


@lru_cache(maxsize=8)
def drum_sounds(rate: int) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64],
                                    npt.NDArray[np.int64]]:
    """(sounds, offset, length): each drum kind's ``VARIANTS`` takes (kind * VARIANTS + take),
    mono, at full velocity and before its pan, end to end in one array; made once per rate."""
    _, _, envelopes, _ = tables(rate)
    inc0, inc1, sweep, tone, noise, bright, length, level, sine = _drum_params(rate)
    lengths = np.repeat(length, VARIANTS)
    offset = np.cumsum(lengths) - lengths
    sounds = np.zeros(int(lengths.sum()), dtype=np.int32)
    make_drums(sounds, offset, envelopes, inc0, inc1, sweep, tone, noise, bright, length,
                level, sine)
    for array in (sounds, offset, lengths):
        array.flags.writeable = False
    return sounds, offset, lengths


def _pan_gains(pan: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int64],
                                                    npt.NDArray[np.int64]]:
    """Linear pan law in 1/256 steps: centre (64) gives 128 + 128."""
    right = (np.clip(pan, 0, 127) * 256) // 127
    right = np.where(pan == 64, 128, right)
    return 256 - right, right


@lru_cache(maxsize=8)
def _drum_params(rate: int) -> tuple[npt.NDArray[np.int64], ...]:
    drums = list(DRUMS.values())
    inc0 = np.array([round(d.tone_hz * 2**32 / rate) for d in drums], dtype=np.int64)
    inc1 = np.array([round(d.tone_end_hz * 2**32 / rate) for d in drums], dtype=np.int64)
    sweep = np.array([max(1, round(d.sweep * rate)) for d in drums], dtype=np.int64)
    tone = np.array([round(256 * d.tone) for d in drums], dtype=np.int64)
    noise = np.array([round(256 * d.noise) for d in drums], dtype=np.int64)
    bright = np.array([int(d.bright) for d in drums], dtype=np.int64)
    length = np.array([round(d.length * rate) for d in drums], dtype=np.int64)
    level = np.array([round(256 * d.level) for d in drums], dtype=np.int64)
    return inc0, inc1, sweep, tone, noise, bright, length, level, _sine_table()


@lru_cache(maxsize=1)
def _sine_table() -> npt.NDArray[np.int64]:
    size = 1 << WAVE_BITS
    return np.array([round(ONE * 0.999 * math.sin(2 * math.pi * k / size)) for k in range(size)],
                    dtype=np.int64)
