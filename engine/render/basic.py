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
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np
import numpy.typing as npt
from numba import njit

from engine.render.events import DRUM_CHANNEL, Notes

WAVE_BITS = 12                   # 4,096 entries a cycle
PHASE_SHIFT = 32 - WAVE_BITS
STEP_SHIFT = 6                   # envelopes at one value per 64 samples
ENVELOPE_SECONDS = 24.0          # held envelopes are tabulated this long, then hold their value
ONE = 1 << 15                    # full scale of waves and envelopes
PEAK = 29_491                    # 0.9 of 16-bit full scale: no mix is louder
# The one gain of every render (+45 dB): the loudest arrangements conduct writes (an intense
# samba or salsa, -48.5 dBFS before it) peak near -3.5 dBFS with it (bench/run_loudness.py).
GAIN = 180
# Each note adds wave x envelope x gain x pan (2^15 x 2^15 x 2^8 at most) into the mix, kept
# to 2^15 a voice and rounded to nearest (a floor shift added a -1 per note per sample: a DC
# drift as notes pile up); the mix is then times GAIN, 1/256 steps, rounded.
MIX_SHIFT = 23
HALF = 1 << (MIX_SHIFT - 1)


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
    follows (~2.3 ns a voice-sample here, ``docs/reliability.md``)."""
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
    has it already)."""
    waves, envelopes, drum_envelopes, increments = tables(rate)
    frames = math.ceil((notes.length + TAIL) * rate)
    notes = playable(notes, voices(notes, rate)[0] if keep is None else keep)
    # int32 is exact: a voice adds under 2^16 a sample (a drum's tone and noise together) and at
    # most MAX_VOICES (2^8) sound at once: under 2^24; half the memory int64 took to stream
    mix = np.zeros((frames, 2), dtype=np.int32)
    if len(notes):
        start = np.minimum(np.round(notes.start * rate).astype(np.int64), frames)
        held = np.maximum(np.round((notes.end - notes.start) * rate).astype(np.int64), 1)
        left, right = _pan_gains(notes.pan[notes.channel])
        fader = notes.volume[notes.channel]
        # velocity and fader, each squared, in 1/65,536 steps: the quietest note keeps its
        # level (in 1/256 steps a velocity of 20 under a fader of 50 was 0)
        velocity = (notes.velocity ** 2 * fader ** 2 << 16) // 127 ** 4
        drum = notes.channel == DRUM_CHANNEL
        pitched = ~drum
        family = np.array([TIMBRE_NAMES.index(FAMILY_TIMBRE[p // 8]) for p in notes.program],
                          dtype=np.int64)
        level = np.array([round(256 * TIMBRES[TIMBRE_NAMES[f]].level) for f in family],
                         dtype=np.int64)
        release = np.array([max(1, round(TIMBRES[TIMBRE_NAMES[f]].release * rate))
                            for f in family], dtype=np.int64)
        _mix_pitched(mix, start[pitched], held[pitched], release[pitched],
                     increments[notes.pitch[pitched]], family[pitched], waves, envelopes,
                     (velocity * level // 256)[pitched], left[pitched], right[pitched])
        kind = np.array([DRUM_NAMES.index(DRUM_KEYS.get(int(k), "click")) for k in notes.pitch],
                        dtype=np.int64)
        inc0, inc1, sweep, tone, noise, bright, length, drum_level, sine = _drum_params(rate)
        _mix_drums(mix, start[drum], kind[drum], drum_envelopes, inc0, inc1, sweep, tone,
                   noise, bright, length, drum_level, sine, velocity[drum], left[drum],
                   right[drum], np.arange(len(notes), dtype=np.int64)[drum])
    return _to_int16(mix, channels)


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


def _to_int16(mix: npt.NDArray[np.int32], channels: int) -> npt.NDArray[np.int16]:
    """The mix times ``GAIN``; scaled down to ``PEAK`` only if it would pass it (integer
    division: exact everywhere)."""
    out = np.empty((mix.shape[0], channels), dtype=np.int16)
    _scale(mix, out)
    return out


# ------------------------------------------------------------------ private kernels


@njit(cache=True)
def _mix_pitched(mix: npt.NDArray[np.int32], start: npt.NDArray[np.int64],
                 held: npt.NDArray[np.int64], release: npt.NDArray[np.int64],
                 increment: npt.NDArray[np.int64], timbre: npt.NDArray[np.int64],
                 waves: npt.NDArray[np.int32], envelopes: npt.NDArray[np.int32],
                 gain: npt.NDArray[np.int64], left: npt.NDArray[np.int64],
                 right: npt.NDArray[np.int64]) -> None:  # pragma: no cover (jitted)
    """Add each pitched note into ``mix`` (frames, 2): wave[timbre] at ``increment`` per
    sample (32-bit phase), times its envelope (held for ``held`` samples, then a linear
    release over ``release``), times ``gain`` and the pan gains (1/256). The envelope is
    a step of 64 samples: one gain per block, so the inner loop is a table read, two
    multiplies and two adds per sample. ``gain`` is in 1/65,536 steps."""
    frames = mix.shape[0]
    steps = envelopes.shape[1]
    for n in range(start.shape[0]):
        wave = waves[timbre[n]]
        envelope = envelopes[timbre[n]]
        phase = 0
        inc = increment[n]
        total = held[n] + release[n]
        first = start[n]
        for block in range(0, total, 64):
            k = block >> 6
            e = np.int64(envelope[k if k < steps else steps - 1])
            if block >= held[n]:
                e = e * (release[n] - (block - held[n])) // release[n]
            g = e * gain[n] >> 16
            gl = g * left[n]
            gr = g * right[n]
            end = min(block + 64, total, frames - first)
            if end <= block:
                break
            # The block's samples through a view indexed from 0 (no negative-index check a
            # sample), each one's phase from the block's own (no chain from sample to sample).
            out = mix[first + block:first + end]
            for u in range(end - block):
                w = np.int64(wave[((phase + (u + 1) * inc) & 0xFFFFFFFF) >> 20])
                out[u, 0] += w * gl + HALF >> MIX_SHIFT
                out[u, 1] += w * gr + HALF >> MIX_SHIFT
            phase = (phase + (end - block) * inc) & 0xFFFFFFFF
            if end < block + 64 and end < total:
                break


@njit(cache=True)
def _mix_drums(mix: npt.NDArray[np.int32], start: npt.NDArray[np.int64],
               kind: npt.NDArray[np.int64], envelopes: npt.NDArray[np.int32],
               inc0: npt.NDArray[np.int64], inc1: npt.NDArray[np.int64],
               sweep: npt.NDArray[np.int64], tone: npt.NDArray[np.int64],
               noise: npt.NDArray[np.int64], bright: npt.NDArray[np.int64],
               length: npt.NDArray[np.int64], level: npt.NDArray[np.int64],
               sine: npt.NDArray[np.int64], velocity: npt.NDArray[np.int64],
               left: npt.NDArray[np.int64], right: npt.NDArray[np.int64],
               seed: npt.NDArray[np.int64]) -> None:  # pragma: no cover (jitted)
    """Add each drum hit into ``mix``: a sine swept linearly in phase increment from inc0 to
    inc1 over ``sweep`` samples, plus noise from a 32-bit LCG seeded by the note's index
    (high-passed by its first difference for ``bright`` kinds), under the kind's envelope."""
    frames = mix.shape[0]
    steps = envelopes.shape[1]
    for n in range(start.shape[0]):
        d = kind[n]
        phase = 0
        x = (seed[n] * 2654435761 + 12345) & 0xFFFFFFFF
        previous = 0
        first = start[n]
        total = length[d]
        is_bright = bright[d] == 1
        for block in range(0, total, 64):
            k = block >> 6
            e = np.int64(envelopes[d, k if k < steps else steps - 1])
            g = (e * level[d] >> 8) * velocity[n] >> 16
            gl = g * left[n]
            gr = g * right[n]
            s = block if block < sweep[d] else sweep[d]
            inc = inc0[d] + (inc1[d] - inc0[d]) * s // sweep[d]
            end = min(block + 64, total, frames - first)
            if end <= block:
                break
            out = mix[first + block:first + end]  # indexed from 0, as in _mix_pitched
            for u in range(end - block):
                phase = (phase + inc) & 0xFFFFFFFF
                x = (x * 1664525 + 1013904223) & 0xFFFFFFFF
                r = (x >> 16) - 32768
                if is_bright:
                    r, previous = (r - previous) >> 1, r
                v = (sine[phase >> 20] * tone[d] + r * noise[d]) >> 8
                out[u, 0] += v * gl + HALF >> MIX_SHIFT
                out[u, 1] += v * gr + HALF >> MIX_SHIFT
            if end < block + 64 and end < total:
                break


@njit(cache=True)
def _scaled(mix: npt.NDArray[np.int32], i: int, c: int,
            channels: int) -> np.int64:  # pragma: no cover (jitted)
    """Frame ``i``'s sample of channel ``c`` times ``GAIN`` (mono: the mean of the two)."""
    pair = np.int64(mix[i, 0]) + np.int64(mix[i, 1]) >> 1
    v = pair if channels == 1 else np.int64(mix[i, c])
    return v * GAIN + 128 >> 8


@njit(cache=True)
def _scale(mix: npt.NDArray[np.int32],
           out: npt.NDArray[np.int16]) -> None:  # pragma: no cover (jitted)
    """``out`` (frames, channels) = the mix (frames, 2) times ``GAIN``, and, only when that
    would pass ``PEAK``, times ``PEAK / peak`` by floor division. Two passes over the mix
    (the peak, then the samples): no temporary the size of the audio."""
    frames, channels = out.shape
    peak = np.int64(0)
    for i in range(frames):
        for c in range(channels):
            v = _scaled(mix, i, c, channels)
            if abs(v) > peak:
                peak = abs(v)
    for i in range(frames):
        for c in range(channels):
            v = _scaled(mix, i, c, channels)
            out[i, c] = v if peak <= PEAK else v * PEAK // peak
