"""The basic synthesiser's numba kernels (``engine.render.basic`` prepares their arrays): making
each sound once, mixing the notes chunk by chunk in cache and writing 16-bit frames; integer
arithmetic only, so the same bytes on every CPU.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

# A sound is kept at the scale of one voice (2^15) before its note's gain: a pitched one is
# wave x envelope (2^15 x 2^15) >> 15, a drum tone-and-noise x envelope x level >> 15. A note
# adds sound x gain x pan (2^15 x 2^16 x 2^8 at most) >> 24 into each row of the mix, rounded
# to nearest (a floor shift added a -1 per note per sample: a DC drift as notes pile up).

PEAK = 29_491  # 0.9 of 16-bit full scale: no mix is louder
# The one gain of every render (+45 dB): the loudest arrangements conduct writes (an intense
# samba or salsa, -48.5 dBFS before it) peak near -3.5 dBFS with it (bench/run_loudness.py).
GAIN = 180
SOUND_SHIFT = 15
SOUND_HALF = 1 << (SOUND_SHIFT - 1)
NOTE_SHIFT = 24
NOTE_HALF = 1 << (NOTE_SHIFT - 1)


@njit(cache=True)
def envelope_at(envelope: npt.NDArray[np.int32], block: int, held: int,
                 release: int) -> np.int64:  # pragma: no cover (jitted)
    """A pitched note's envelope over the block of 64 samples from ``block``: the timbre's
    held envelope, then a linear release over ``release`` samples after ``held``."""
    steps = envelope.shape[0]
    k = block >> 6
    e = np.int64(envelope[k if k < steps else steps - 1])
    if block >= held:
        e = e * (release - (block - held)) // release
    return e


@njit(cache=True)
def make_pitched(sounds: npt.NDArray[np.int32], offset: npt.NDArray[np.int64],
                  length: npt.NDArray[np.int64], held: npt.NDArray[np.int64],
                  release: npt.NDArray[np.int64], increment: npt.NDArray[np.int64],
                  timbre: npt.NDArray[np.int64], waves: npt.NDArray[np.int32],
                  envelopes: npt.NDArray[np.int32]) -> None:  # pragma: no cover (jitted)
    """Each pitched sound into ``sounds[offset:offset + length]``: wave[timbre] at
    ``increment`` per sample (32-bit phase from 0), times its envelope (a step of 64
    samples)."""
    for n in range(offset.shape[0]):
        wave = waves[timbre[n]]
        envelope = envelopes[timbre[n]]
        inc = increment[n]
        total = length[n]
        out = sounds[offset[n]:offset[n] + total]
        for block in range(0, total, 64):
            e = envelope_at(envelope, block, held[n], release[n])
            phase = block * inc
            # the block through a view indexed from 0 (no negative-index check a sample),
            # each sample's phase from the block's own (no chain from sample to sample)
            part = out[block:min(block + 64, total)]
            for u in range(part.shape[0]):
                w = np.int64(wave[((phase + (u + 1) * inc) & 0xFFFFFFFF) >> 20])
                part[u] = w * e + SOUND_HALF >> SOUND_SHIFT


@njit(cache=True)
def make_drums(sounds: npt.NDArray[np.int32], offset: npt.NDArray[np.int64],
                envelopes: npt.NDArray[np.int32], inc0: npt.NDArray[np.int64],
                inc1: npt.NDArray[np.int64], sweep: npt.NDArray[np.int64],
                tone: npt.NDArray[np.int64], noise: npt.NDArray[np.int64],
                bright: npt.NDArray[np.int64], length: npt.NDArray[np.int64],
                level: npt.NDArray[np.int64],
                sine: npt.NDArray[np.int64]) -> None:  # pragma: no cover (jitted)
    """Each drum kind's takes (``offset``: kind * VARIANTS + take): a sine swept linearly in
    phase increment from inc0 to inc1 over ``sweep`` samples, plus noise from a 32-bit LCG
    seeded by the take (high-passed by its first difference for ``bright`` kinds), under the
    kind's envelope and level."""
    steps = envelopes.shape[1]
    variants = offset.shape[0] // length.shape[0]
    for n in range(offset.shape[0]):
        d = n // variants
        phase = 0
        x = (n * 2654435761 + 12345) & 0xFFFFFFFF
        previous = 0
        total = length[d]
        out = sounds[offset[n]:offset[n] + total]
        for block in range(0, total, 64):
            k = block >> 6
            g = np.int64(envelopes[d, k if k < steps else steps - 1]) * level[d] >> 8
            s = block if block < sweep[d] else sweep[d]
            inc = inc0[d] + (inc1[d] - inc0[d]) * s // sweep[d]
            part = out[block:min(block + 64, total)]
            for u in range(part.shape[0]):
                phase = (phase + inc) & 0xFFFFFFFF
                x = (x * 1664525 + 1013904223) & 0xFFFFFFFF
                r = (x >> 16) - 32768
                if bright[d] == 1:
                    r, previous = (r - previous) >> 1, r
                v = (sine[phase >> 20] * tone[d] + r * noise[d]) >> 8
                part[u] = v * g + SOUND_HALF >> SOUND_SHIFT


@njit(cache=True)
def mix_into(out: npt.NDArray[np.int16], chunk: int, peak: int, order: npt.NDArray[np.int64],
            start: npt.NDArray[np.int64], source: npt.NDArray[np.int64],
            length: npt.NDArray[np.int64], gain_left: npt.NDArray[np.int64],
            gain_right: npt.NDArray[np.int64], sounds: npt.NDArray[np.int32],
            held: npt.NDArray[np.int64], release: npt.NDArray[np.int64],
            increment: npt.NDArray[np.int64], timbre: npt.NDArray[np.int64],
            waves: npt.NDArray[np.int32],
            envelopes: npt.NDArray[np.int32]) -> np.int64:  # pragma: no cover (jitted)
    """The notes mixed ``chunk`` frames at a time into a left and a right row of int32 (exact:
    a voice adds under 2^16 a sample and at most MAX_VOICES, 2^8, sound at once), each chunk
    then written to ``out`` (frames, channels) times ``GAIN`` (mono: the mean of the rows)
    and, when ``peak`` > 0, times ``PEAK / peak`` by floor division. Answers the peak of the
    mix times ``GAIN``: over ``PEAK``, the caller mixes again with it (a file of the user's,
    forty notes at full velocity at once); nothing ever clips.

    A note adds its sound ``sounds[source:source + length]`` times its gains (1/65,536 x
    1/256); a note with ``source`` -1 makes its pitched sound where it plays, block by
    block, as ``make_pitched`` does. ``order``: the notes by start."""
    frames, channels = out.shape
    flat = out.reshape(-1)  # frame after frame, a channel after the other
    mix = np.zeros((2, chunk), dtype=np.int32)
    active = np.empty(order.shape[0], dtype=np.int64)  # the notes sounding, in start order
    sounding = 0
    admitted = 0
    low = np.int64(0)
    high = np.int64(0)
    for c0 in range(0, frames, chunk):
        c1 = min(c0 + chunk, frames)
        while admitted < order.shape[0] and start[order[admitted]] < c1:
            active[sounding] = order[admitted]
            sounding += 1
            admitted += 1
        left = mix[0, :c1 - c0]
        right = mix[1, :c1 - c0]
        left[:] = 0
        right[:] = 0
        still = 0
        for j in range(sounding):
            n = active[j]
            end = min(start[n] + length[n], frames)
            a = max(start[n], c0)
            b = min(end, c1)
            if a < b:
                add_note(left[a - c0:b - c0], right[a - c0:b - c0], a - start[n], source[n],
                     gain_left[n], gain_right[n], sounds, held[n], release[n], increment[n],
                     waves[timbre[n]], envelopes[timbre[n]])
            if end > c1:
                active[still] = n
                still += 1
        sounding = still
        lo, hi = write_chunk(flat[c0 * channels:c1 * channels], left, right, channels, peak)
        low = min(low, np.int64(lo))
        high = max(high, np.int64(hi))
    # v -> v * GAIN + 128 >> 8 rises with v: the extremes of the mix give the peak
    return max(abs(low * GAIN + 128 >> 8), abs(high * GAIN + 128 >> 8))


@njit(cache=True)
def write_chunk(out: npt.NDArray[np.int16], left: npt.NDArray[np.int32],
           right: npt.NDArray[np.int32], channels: int,
           peak: int) -> tuple[np.int32, np.int32]:  # pragma: no cover (jitted)
    """A chunk of the mix into ``out`` (its frames interleaved, flat): v * GAIN + 128 >> 8 (v:
    each row, or for mono their mean), times PEAK / peak when ``peak`` > 0. Answers the
    lowest and highest v. Without ``peak``, in int32 (SIMD-wide): a v whose product would not
    fit is over the peak, and its chunk is written again with ``peak``."""
    count = left.shape[0]
    low = np.int32(0)
    high = np.int32(0)
    gain = np.int32(GAIN)
    half = np.int32(128)
    if channels == 1:
        for i in range(count):
            v = (left[i] + right[i]) >> 1
            low = min(low, v)
            high = max(high, v)
            if peak == 0:
                out[i] = v * gain + half >> 8
            else:
                out[i] = (np.int64(v) * GAIN + 128 >> 8) * PEAK // peak
    elif peak == 0:
        for i in range(count):
            a = left[i]
            b = right[i]
            low = min(low, min(a, b))
            high = max(high, max(a, b))
            out[2 * i] = a * gain + half >> 8
            out[2 * i + 1] = b * gain + half >> 8
    else:
        for i in range(count):
            out[2 * i] = (np.int64(left[i]) * GAIN + 128 >> 8) * PEAK // peak
            out[2 * i + 1] = (np.int64(right[i]) * GAIN + 128 >> 8) * PEAK // peak
    return low, high


@njit(cache=True)
def add_note(left: npt.NDArray[np.int32], right: npt.NDArray[np.int32], first: int, source: int,
         gl: int, gr: int, sounds: npt.NDArray[np.int32], held: int, release: int, inc: int,
         wave: npt.NDArray[np.int32],
         envelope: npt.NDArray[np.int32]) -> None:  # pragma: no cover (jitted)
    """A note's samples ``first``, ``first`` + 1, ... added into the views ``left`` and
    ``right`` (indexed from 0: no negative-index check a sample)."""
    total = left.shape[0]
    if source >= 0:
        sound = sounds[source + first:source + first + total]
        for u in range(total):
            s = np.int64(sound[u])
            left[u] += s * gl + NOTE_HALF >> NOTE_SHIFT
            right[u] += s * gr + NOTE_HALF >> NOTE_SHIFT
        return
    done = 0
    while done < total:
        at = first + done            # the note's sample
        block = at - (at & 63)       # its block of 64
        e = envelope_at(envelope, block, held, release)
        count = min(block + 64 - at, total - done)
        partl = left[done:done + count]
        partr = right[done:done + count]
        phase = at * inc
        for u in range(count):
            w = np.int64(wave[((phase + (u + 1) * inc) & 0xFFFFFFFF) >> 20])
            s = w * e + SOUND_HALF >> SOUND_SHIFT
            partl[u] += s * gl + NOTE_HALF >> NOTE_SHIFT
            partr[u] += s * gr + NOTE_HALF >> NOTE_SHIFT
        done += count
