"""The four lanes of an arrangement, as note events at 480 ticks per quarter note (the clock,
the segments and a lane's hits: ``engine.conduct.timeline``)."""

from __future__ import annotations

import bisect
import random
from collections.abc import Callable
from dataclasses import dataclass

from engine.chords import Chord
from engine.conduct import lines, styles
from engine.conduct.styles import LEVEL, MIN_ENERGY, Groove
from engine.conduct.timeline import PPQ, Segment, Timing, comp_hits, step_hits

Note = tuple[int, int, int, int]          # tick, duration, pitch, velocity
DRUM_LENGTH = 60
FILL_ENERGY = 0.6
VOLUME = {"harmony": 0.8, "pattern": 0.75, "bass": 0.95, "drums": 1.0}


def energy_curve(bars: int, form_len: int, base: float, builds: bool) -> list[float]:
    """One level 0..1 per bar: a rise through each chorus and across the piece; with
    ``builds`` a climb from well below ``base`` to well above it."""
    lo, hi = (max(0.15, base - 0.35), min(1.0, base + 0.35)) if builds else (base - 0.05,
                                                                               base + 0.1)
    curve = []
    for b in range(bars):
        whole = b / (bars - 1) if bars > 1 else 1.0
        chorus = (b % form_len) / (form_len - 1) if form_len > 1 else 0.0
        curve.append(round(min(1.0, max(0.0, lo + (hi - lo) * whole + 0.06 * chorus)), 3))
    return curve


def _velocity(level: float, energy: float, lane: str) -> int:
    return max(1, min(127, round(level * VOLUME[lane] * (62 + 62 * energy))))


@dataclass
class Arranger:
    """Builds the lanes for segments already cut into bars."""

    segs: list[Segment]
    voicings: dict[int, list[int]]       # segment index -> voiced MIDI notes
    groove: Groove
    timing: Timing
    energy: list[float]
    form_len: int
    bass_approach: str | None
    tonic_pc: int
    rng: random.Random
    phase: int = 0                       # bars the two-bar patterns are turned (2-3 clave: 1)

    def lanes(self) -> dict[str, list[Note]]:
        bars = len(self.energy)
        bar_segs: list[int] = []
        for i, s in enumerate(self.segs):
            if not bar_segs or self.segs[bar_segs[-1]].bar != s.bar:
                bar_segs.append(i)
        nudges = [self.rng.choice((-1, 0, 0, 1)) for _ in range(bars)]
        comping = styles.comping_for(self.groove, self.timing.meter)
        pattern = styles.pattern_for(self.groove, self.timing.meter)
        pat_state = {"near": lines.PATTERN_LOW[self.groove.figure] + 4, "i": 0}
        harm_figure = self.groove.harmony_figure
        harm_state = {"near": lines.PATTERN_LOW[harm_figure or "strum"] + 4, "i": 0}

        def figure(si: int, _tick: int) -> list[int]:
            chord = self.segs[si].chord
            assert chord is not None
            notes = lines.figure_pitches(self.groove.figure, chord, pat_state["i"],
                                         pat_state["near"])
            pat_state["i"] += 1
            if harm_figure is None and self.groove.figure == "strum":
                # two compers split: the guitar's grip under the piano's voicing
                notes = lines.beside(notes, self.voicings[si])
            return notes

        def harmony_figure(si: int, _tick: int) -> list[int]:
            chord = self.segs[si].chord
            assert chord is not None and harm_figure is not None
            notes = lines.figure_pitches(harm_figure, chord, harm_state["i"],
                                         harm_state["near"])
            harm_state["i"] += 1
            return notes

        harmony = self._chordal(bar_segs, comping, nudges,
                                self._voiced if harm_figure is None else harmony_figure,
                                "harmony")
        patt = self._chordal(bar_segs, pattern, [-n for n in nudges], figure, "pattern")
        harmony = _tidy(harmony)
        return {"harmony": harmony, "pattern": _tidy(_apart(patt, harmony)),
                "bass": _tidy(self._bass()), "drums": _tidy(self._drums())}

    def _voiced(self, si: int, _tick: int) -> list[int]:
        return self.voicings[si]

    def _chordal(self, bar_segs: list[int], rhythms: tuple[str, ...], nudges: list[int],
                 pitches: Callable[[int, int], list[int]], lane: str) -> list[Note]:
        """A lane of chords or figures (``comp_hits``): each hit sounds the chord it belongs
        to, the pushes the chord they anticipate; the last bar holds one chord per segment."""
        out: list[Note] = []
        t = self.timing
        hits = comp_hits(self.segs, bar_segs, rhythms, nudges, self.energy, t, self.phase,
                         every_chord=lane == "harmony")
        bar_ticks = t.bar_ticks
        for start, end, ch, si in hits:
            on, off = t.at(start), t.at(end)
            vel = _velocity(LEVEL[ch], self.energy[start // bar_ticks], lane)
            notes = pitches(si, start)
            # A strum rolls its strings: a few ticks between them.
            roll = 8 if lane == "pattern" and len(notes) > 1 else 0
            for k, p in enumerate(notes):
                out.append((on + k * roll, max(1, off - on - k * roll - 10), p, vel))
        return out

    def _bass(self) -> list[Note]:
        plan = styles.bass_for(self.groove, self.timing.meter, self.bass_approach)
        sounding = [i for i, s in enumerate(self.segs) if s.chord is not None]
        if plan == "walk":
            return self._walking(sounding)
        return self._pattern(plan, sounding)

    def _walking(self, sounding: list[int]) -> list[Note]:
        """One note a pulse: each chord's root, chord tones, an approach into the next root;
        the last chord's root held."""
        t = self.timing
        pulses = styles.groups(t.meter)
        roots = self._walk_roots(sounding)
        out: list[Note] = []
        for k, si in enumerate(sounding):
            seg, chord = self.segs[si], self._sounding(si)
            e = self.energy[seg.bar]
            nxt = roots[k + 1] if si + 1 < len(self.segs) and self.segs[si + 1].chord else None
            if k + 1 == len(sounding):
                starts, line = [seg.start], [roots[k]]
            else:
                starts = self._pulse_ticks(seg, pulses)
                line = lines.walk(chord, len(starts), roots[k], nxt, self.rng)
            for j, (tick, p) in enumerate(zip(starts, line, strict=True)):
                end = starts[j + 1] if j + 1 < len(starts) else seg.end
                vel = _velocity(0.9 if j == 0 else 0.8, e, "bass")
                out.append((t.at(tick), max(1, t.at(end) - t.at(tick) - 20), p, vel))
        return out

    def _walk_roots(self, sounding: list[int]) -> list[int]:
        """The root pitch of each sounding segment, fixed before any line is drawn so that
        approach notes aim where the next root will sound: each within 11 semitones of the one
        before, heading up or down a fourth."""
        pitches: list[int] = []
        near = lines.START
        for i in sounding:
            chord = self._sounding(i)
            aim = near + self.rng.choice((-5, 5)) if pitches else near
            near = lines.place(lines.bass_pc(chord), aim, lines.BASS_LOW, lines.BASS_HIGH)
            pitches.append(near)
        return pitches

    def _pattern(self, plan: str, sounding: list[int]) -> list[Note]:
        """A bass figure from the style's role string over every chord: the chord change marked
        by its root (a pedal's tonic), the final chord's root held. Without a sounding chord
        (a progression all ``NC``) the bass rests."""
        if not sounding:
            return []
        t = self.timing
        first_role = "T" if plan.startswith("T") else "R"
        figures: list[list[tuple[int, int, str]]] = []
        for k, si in enumerate(sounding):
            seg = self.segs[si]
            if k + 1 == len(sounding):
                figures.append([(seg.start, seg.end, first_role)])
                continue
            hits = [h for h in step_hits(styles.part(plan, seg.bar + self.phase),
                                     seg.bar * t.bar_ticks, t.bar_ticks)
                    if seg.start <= h[0] < seg.end]
            # Every chord change is marked by its root, whatever the pattern says, unless the
            # figure before sounded it already, anticipated (``N``, the tumbao's ponche).
            anticipated = bool(figures) and figures[-1][-1][2] == "N"
            if hits and hits[0][0] == seg.start:
                hits[0] = (seg.start, hits[0][1], first_role)
            elif not anticipated or not hits:
                hits.insert(0, (seg.start, hits[0][0] if hits else seg.end, first_role))
            # Into silence there is nothing to approach: the fifth instead.
            if self.segs[si + 1].chord is None:
                hits = [(a, b, "5" if r == "A" else r) for a, b, r in hits]
            figures.append(hits)
        chords = [self._sounding(si) for si in sounding]
        roots = lines.pattern_roots([(c, tuple(r for _, _, r in hits))
                                     for c, hits in zip(chords, figures, strict=True)])
        out: list[Note] = []
        prev = lines.START
        for k, (si, hits) in enumerate(zip(sounding, figures, strict=True)):
            seg, chord = self.segs[si], self._sounding(si)
            e = self.energy[seg.bar]
            ahead = roots[k + 1] if k + 1 < len(roots) else None
            for j, (start, end, role) in enumerate(hits):
                leads = j + 1 == len(hits)
                prev = self._role_pitch(chord, role, prev, roots[k],
                                        ahead if leads or role == "N" else None)
                vel = _velocity(0.9 if start == seg.start or role == "N" else 0.8, e, "bass")
                off = t.at(min(end, seg.end))
                if role == "N" and k + 1 < len(sounding):
                    # held over the bar line, to the next figure's first note
                    nxt = figures[k + 1][0][0] if figures[k + 1] else end
                    off = t.at(max(end, nxt))
                out.append((t.at(start), max(1, off - t.at(start) - 20), prev, vel))
        return out

    def _sounding(self, si: int) -> Chord:
        """The chord of a segment known to sound."""
        chord = self.segs[si].chord
        assert chord is not None
        return chord

    def _pulse_ticks(self, seg: Segment, pulses: list[int]) -> list[int]:
        origin = seg.bar * self.timing.bar_ticks
        ticks, acc = [], 0
        for n in pulses:
            tick = origin + acc * self.timing.unit
            if seg.start <= tick < seg.end:
                ticks.append(tick)
            acc += n
        return ticks or [seg.start]

    def _role_pitch(self, chord: Chord, role: str, prev: int, root: int,
                    ahead: int | None) -> int:
        """A pattern bass note: the root low, the other chord tones in their place above it
        (``lines.figure_shape``), within an octave of the note before and of the root. The
        note that leads into the next chord (``ahead``, its root's pitch) is an approach into
        it, or stays within an octave of it: the roots were chosen so that it rarely moves.
        A pedal's tonic (``T``) keeps the pitch of the one before."""
        if role == "R" or (role == "N" and ahead is None):
            return root
        if role == "N" and ahead is not None:
            return ahead
        if role == "A" and ahead is not None:
            return lines.approach(ahead, prev, self.rng, lines.avoided_pcs(chord))
        if role == "T":
            # A pedal never plays the next root: it holds its own pitch (within an octave of
            # the root's would move it when the roots change octave).
            return lines.fit(self.tonic_pc, prev, (prev,))
        shape = lines.figure_shape(chord, ("5" if role == "A" else role,), root)[0]
        assert shape is not None
        return lines.fit(shape % 12, shape, (prev, root, ahead))

    def _drums(self) -> list[Note]:
        t = self.timing
        bar_ticks = t.bar_ticks
        kit = styles.drums_for(self.groove, t.meter)
        pulses = styles.groups(t.meter)
        fill_len = t.unit * sum(pulses[-2:] if len(pulses) >= 3 else pulses[-1:])
        # Triplets under a swing feel, sixteenths when straight; from the snare down the toms.
        fill = styles.FILL_SWING if self.groove.swing > 0.55 else styles.FILL_STRAIGHT
        out: list[Note] = []
        bars = len(self.energy)
        for b in range(bars):
            e = self.energy[b]
            origin = b * bar_ticks
            if b == bars - 1:
                # The final bar: one hit with the band, ringing.
                out += [(origin, PPQ, styles.CRASH, _velocity(1.0, e, "drums")),
                        (origin, PPQ, styles.KICK, _velocity(0.9, e, "drums"))]
                continue
            if b and b % self.form_len == 0 and e >= 0.5:
                out.append((origin, PPQ, styles.CRASH, _velocity(0.9, e, "drums")))
            # The last bar of a chorus ends with a fill into the next one.
            fill_from = origin + bar_ticks - fill_len \
                if (b + 1) % self.form_len == 0 and e >= FILL_ENERGY else origin + bar_ticks
            for drum, rhythm in kit.items():
                for start, _end, ch in step_hits(styles.part(rhythm, b + self.phase), origin,
                                             bar_ticks):
                    if e >= MIN_ENERGY[ch] and (start < fill_from or drum == styles.KICK):
                        out.append((t.at(start), DRUM_LENGTH, drum,
                                    _velocity(LEVEL[ch], e, "drums")))
            if fill_from < origin + bar_ticks:
                for k, drum in enumerate(fill):
                    tick = fill_from + k * fill_len // len(fill)
                    out.append((tick, DRUM_LENGTH, drum,
                                _velocity(0.7 + 0.3 * k / len(fill), e, "drums")))
        return out


def _apart(pattern: list[Note], harmony: list[Note]) -> list[Note]:
    """The pattern lane with no note doubling a harmony note that sounds at the same moment
    (two compers never play one pitch together): such a note moves an octave down when that
    is free and above ``lines.GUITAR_LOW``, else it is left out. ``harmony`` is tidied: the
    notes of one pitch never overlap, so their ends are in order too."""
    sounding: dict[int, list[tuple[int, int]]] = {}
    for tick, dur, pitch, _vel in harmony:
        sounding.setdefault(pitch, []).append((tick, tick + dur))
    for spans in sounding.values():
        spans.sort()

    def clash(pitch: int, start: int, end: int) -> bool:
        spans = sounding.get(pitch)
        if not spans:
            return False
        k = bisect.bisect_left(spans, (end, end)) - 1
        return k >= 0 and spans[k][1] > start

    out: list[Note] = []
    for note in pattern:
        tick, dur, pitch, vel = note
        if not clash(pitch, tick, tick + dur):
            out.append(note)
        elif pitch - 12 >= lines.GUITAR_LOW and not clash(pitch - 12, tick, tick + dur):
            out.append((tick, dur, pitch - 12, vel))
    return out


def _tidy(notes: list[Note]) -> list[Note]:
    """Sorted by time then pitch; a note is cut where the same pitch sounds again, so the
    lane reads the same as the MIDI file it becomes (one channel cannot overlap a pitch)."""
    notes.sort(key=lambda n: (n[0], n[2], -n[1]))
    out: list[Note] = []
    last: dict[int, int] = {}
    for n in notes:
        tick, dur, pitch, vel = n
        k = last.get(pitch)
        if k is not None:
            prev = out[k]
            if prev[0] == tick:
                continue                       # the same pitch struck twice at once
            if prev[0] + prev[1] > tick:
                out[k] = (prev[0], tick - prev[0], pitch, prev[3])
        last[pitch] = len(out)
        out.append((tick, dur, pitch, vel))
    return out
