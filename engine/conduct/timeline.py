"""The chart on the arrangement's clock (480 ticks per quarter note): each chord's stretch of
a bar (``segments``), where a swung tick sounds (``Timing``), and the hits a lane's step string
strikes (``step_hits``; a comping lane's, pushes read ahead, ``comp_hits``).

A bar holds ``numerator`` units of ``4/denominator`` quarters; a step string of length n divides
the bar in n equal steps; swing moves every off-beat eighth to ``swing`` of the beat (only in
meters counted in quarters or halves: compound meters carry their own lilt).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.chords import Chord
from engine.conduct import styles
from engine.conduct.styles import MIN_ENERGY

PPQ = 480
# How far ahead of a chord change a comping hit voices the coming chord: an eighth note (the
# swung "and" before the beat, a sixteenth before it in a straight-sixteenth groove).
ANTICIPATION = PPQ // 2


@dataclass(frozen=True, slots=True)
class Segment:
    """One chord's stretch inside one bar: ticks are absolute, ``beat`` 1-based."""

    bar: int
    beat: int
    start: int
    end: int
    chord: Chord | None


@dataclass(frozen=True, slots=True)
class Timing:
    meter: tuple[int, int]
    swing: float

    @property
    def unit(self) -> int:
        return PPQ * 4 // self.meter[1]

    @property
    def bar_ticks(self) -> int:
        return self.unit * self.meter[0]

    def at(self, tick: int) -> int:
        """Where a grid tick sounds once swung."""
        if self.swing == 0.5 or self.meter[1] == 8 or tick % (PPQ // 2) or not tick % PPQ:
            return tick
        return tick - PPQ // 2 + round(PPQ * self.swing)


def segments(bars: list[list[tuple[int, Chord | None]]], timing: Timing) -> list[Segment]:
    """Bars of (beat index from 0, chord) -> segments, each chord cut at the bar line."""
    out = []
    for b, bar in enumerate(bars):
        origin = b * timing.bar_ticks
        for i, (beat, chord) in enumerate(bar):
            stop = bar[i + 1][0] if i + 1 < len(bar) else timing.meter[0]
            out.append(Segment(b, beat + 1, origin + beat * timing.unit,
                               origin + stop * timing.unit, chord))
    return out


def step_hits(rhythm: str, origin: int, bar_ticks: int) -> list[tuple[int, int, str]]:
    """(start, end, char) of every note a step string starts in one bar (ticks unswung)."""
    n = len(rhythm)
    out = []
    for i, ch in enumerate(rhythm):
        if ch in "-.":
            continue
        j = i + 1
        while j < n and rhythm[j] == "-":
            j += 1
        out.append((origin + i * bar_ticks // n, origin + j * bar_ticks // n, ch))
    return out


def segment_at(segs: list[Segment], first: int, tick: int) -> int:
    i = first
    while i + 1 < len(segs) and segs[i + 1].start <= tick:
        i += 1
    return i


def comp_hits(segs: list[Segment], bar_segs: list[int], rhythms: tuple[str, ...],
              nudges: list[int], energy: list[float], timing: Timing, phase: int = 0,
              every_chord: bool = True) -> list[tuple[int, int, str, int]]:
    """(start, end, level char, segment index) of every hit of a comping lane, unswung.

    Each bar plays its rhythm (``styles.pick`` by energy); a comper reads ahead, so a hit that
    starts off a chord change less than ``ANTICIPATION`` before the next one (the swung "and
    of 2" before a chord on 3, the "and of 4" before the bar line) is a push: it voices the
    coming chord and is held into it until the next hit. Any other hit sounds the chord under
    it, cut at the change (a bar of no chord stays silent: no push out of it). A chord that no hit sounds (a whole-bar rhythm over two chords, a
    rest where the change falls) is struck where it starts: every chord of the lead sheet is
    heard from the harmony (``every_chord``; the pattern lane keeps its rests). The last bar
    holds one chord per segment."""
    last_bar = len(energy) - 1
    raw: list[tuple[int, int, str]] = []
    for b, first in enumerate(bar_segs):
        e = energy[b]
        if b == last_bar:
            raw += [(s.start, s.end, "X") for s in segs[first:] if s.bar == b]
        else:
            rhythm = styles.part(styles.pick(rhythms, e, nudges[b]), b + phase)
            raw += [h for h in step_hits(rhythm, b * timing.bar_ticks, timing.bar_ticks)
                    if e >= MIN_ENERGY[h[2]]]
    out: list[tuple[int, int, str, int]] = []
    si = 0
    for k, (start, end, ch) in enumerate(raw):
        si = segment_at(segs, si, start)
        seg = segs[si]
        following = raw[k + 1][0] if k + 1 < len(raw) else segs[-1].end
        nxt = si + 1
        if (start != seg.start and seg.chord is not None and nxt < len(segs)
                and segs[nxt].chord is not None
                and segs[nxt].start - start <= ANTICIPATION):
            held = end if end > segs[nxt].start else following
            out.append((start, min(held, following, segs[nxt].end), ch, nxt))
        elif seg.chord is not None:
            out.append((start, min(end, seg.end), ch, si))
    sounded = {si for *_, si in out}
    for si, seg in enumerate(segs):
        if every_chord and seg.chord is not None and si not in sounded:
            after = [h[0] for h in out if h[0] > seg.start]
            out.append((seg.start, min([seg.end, *after]), "x", si))
    out.sort()
    return out
