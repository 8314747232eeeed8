"""The ``voicing`` operation (API.md §5): one chord, or a whole progression, voiced in a style
with the least motion in its register, chosen by the numba kernels over precomputed candidate
tables.

``voicing(request)`` validates and builds the result dict; ``voice_progression`` is the plain
function other modules (conduct) call; ``warm_up()`` compiles every kernel once.

Decisions where API.md is silent:

- Motion between voicings of different sizes: every note of the larger voicing pairs with one
  note of the smaller and every note of the smaller with at least one (voices split or merge);
  with equal sizes this is the usual one-to-one pairing. The least total is ``voiceLeading``.
- Register (grid 4): each style has windows for its lowest voice, its top and (shell, pad)
  its bass (``engine.voicing.styles.REGISTERS``). Every placement outside a window that
  ``range`` lets the style reach is dropped, and each candidate carries a register cost, the
  distance of its windowed notes from their windows' centres. The search minimises, over the
  whole progression, the motion (16 units a semitone; in shell and pad the upper voices', the
  bass at 4 units, and 32 more a semitone beyond the style's step-wise ``leap`` per change)
  plus the register cost (1 unit a half semitone off centre). So a voicing without
  ``previous`` sits where a pianist puts it (rootless Cmaj7 B3 D4 E4 G4, a left hand), a
  progression starts near the middle of the windows and never drifts out of them, and with
  ``previous`` the motion leads (one semitone outweighs 8 off centre). ``range`` bounds every
  note: a window is clamped to it. (Until grid 3 least motion alone decided, with the range
  centre only breaking ties: long tunes wandered and climbed.)
- Ties: more guide tones kept (the search counts them by the very rule of the reported
  ``guideTonesKept`` below, a guide tone within a step of a guide tone of the voicing before,
  voice by voice, so a tie never goes to the voicing that breaks the line); then with
  ``previous`` the lower register (smaller sum of MIDI notes), without it the mean nearest the
  range centre, ties to the lower; then the lowest candidate index.
- ``voiceLeading`` and ``totalVoiceLeading`` report the motion of every voice, the bass
  included, under the best pairing, whatever the search weighed.
- ``guideTonesKept`` follows the guide-tone line: true when every voiced guide tone (3rd/sus
  tone, 7th/6th) of the chord holds or moves by step (<= 2 semitones) from a guide tone of the
  chord before (the last sounding one, across an ``NC``), false otherwise. ``previous`` is raw
  notes with no chord: when it holds at most 4 notes (a shell, a rootless or a guide-tone
  voicing) each of them counts as a guide tone; a denser ``previous`` (5 to 8 notes, where
  almost any tone lies a step from one of them) says nothing about a line, and the first chord
  gets null. Null too without a voicing before or without a guide tone on either side.
- ``NC`` / ``N.C.`` in a progression (API.md §1) gives an entry with ``chord`` "NC", empty
  ``notes``, ``midi`` and ``omitted``, ``voiceLeading`` 0 and ``guideTonesKept`` null; the
  chord after it is led (and its motion counted) from the last sounding voicing.
- Slash chords: styles with a bass voice (shell, pad) add the slash bass below the chord, whose
  root still sounds above it (see engine.voicing_styles); the others leave the bass to the bass
  player.
- A range no placement fits is ``invalid_request`` (field ``range``): a shape moves only by
  octaves, so the message gives its span and the width (span + 11) that always holds it.
- ``style`` is matched ignoring case and surrounding spaces; ``chord`` and ``progression``
  together are an ``invalid_request`` (field ``chord``).
- In context (grid 7, issue 37; docs/voicing.md): the progression is read by the progression
  analysis (``engine.voicing.context``) for each chord's primary scale, which the colour
  styles' added tones keep to (``engine.voicing.colour``), and for its arrivals, where
  bill_evans does not move its register (``styles.ARRIVAL_UNIT``); without ``range`` the
  shell and pad bass may go down to E2 (on to C2, ``styles.BASS_FLOOR``, grid 9); notes are named as a pianist
  reads them (``engine.voicing.spelling``); ``omitted`` lists the written chord's tones that do
  not sound.
- Grid 8 (issue 37, docs/voicing.md): a split style's bass line that moves by step never leaps
  beyond a fifth where it can step (``kernels.STEP_LEAP_UNIT``); the shell's slash inversions
  and its 1-7-10 shapes with a b5 or sus 4th on top (``styles.SHELL_REACH``); register moves
  priced by each chord's place (``styles.PLACES``, ``Register.places``: bill_evans free where
  a phrase starts); bill_evans's three-voice shapes on an arrival and the dominant before it
  (``Register.thin``).
- Grid 9 (issue 37's last figures, docs/voicing.md): bill_evans plays a diminished triad with
  the seventh its scale in context holds (``styles.DIM_SEVENTHS``); a shell or pad bass walks
  on under E2 to C2 (``Register.deep``), the root an octave under its shape below F2
  (``styles.DEEP_SPAN``); a run too long for the register turns where the root moves
  (``kernels.TURN_UNIT``); ``voice_progression`` takes the chart's section starts (conduct,
  compose), where a phrase starts.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import accumulate
from typing import Any

import numpy as np

from engine.analysis import InContext
from engine.chords import (
    Chord,
    Spelled,
    note_with_octave,
    parse_note_octave,
    parse_progression,
    read_chord,
)
from engine.errors import InvalidRequest
from engine.requests import MAX_PREVIOUS, as_int, get_list, get_str, require_object
from engine.voicing import kernels
from engine.voicing.candidates import Candidates, Selection, candidates, starting
from engine.voicing.colour import COLOUR_STYLES, coloured
from engine.voicing.context import progression_context
from engine.voicing.spelling import read_as_pianist
from engine.voicing.styles import (
    BASS_FLOOR,
    DEEP_RUN,
    GUIDE_LINE_MAX,
    GUIDE_STEP,
    LEAP_UNIT,
    REGISTERS,
    Style,
    style_named,
)

VOICING_FIELDS = ("chord", "progression", "style", "previous", "range")
DEFAULT_RANGE = (48, 84)
MAX_VOICES = 8           # widest row of the kernel tables: previous may hold 8 notes


def voicing(request: Any) -> dict[str, Any]:
    """API.md §5: ``chord`` (+ ``previous``) -> one voicing; ``progression`` -> ``voicings``
    and ``totalVoiceLeading``."""
    req = require_object(request, VOICING_FIELDS)
    progression = req.get("progression")
    if progression is not None and req.get("chord") is not None:
        raise InvalidRequest("give either 'chord' or 'progression', not both", field="chord")
    if progression is not None:
        chords = parse_progression(progression, field="progression", allow_nc=True)
    else:
        chords = [read_chord(req)]
    style = style_named(get_str(req, "style"))
    previous = _previous(req)
    low, high, bass_low = _range(req)
    played = [c for c in chords if c is not None]
    tables, leaps, units = _prepare(played, style, low, high, bass_low, led=bool(previous))
    rows, moved = _solve(tables, previous, low, high, style, leaps, units,
                          _turns(played, REGISTERS[style.name].split)) \
        if played else ([], [])
    sounding = iter(zip(played, tables, rows, moved, strict=True))
    voicings = []
    # the guide tones of the voicing before (an NC keeps the last sounding ones)
    before = _guide_line(previous) or None
    for symbol in chords:
        if symbol is None:
            voicings.append(_no_chord(style))
            continue
        chord, table, row, motion = next(sounding)
        midi = table.midi[row, :table.count[row]].tolist()
        index = table.tone[row, :table.count[row]].tolist()
        tones = table.selection.tones
        guides = [m for m, i in zip(midi, index, strict=True) if tones[i].guide]
        names = _names(table.selection, tuple(index))
        voicings.append({
            "chord": chord.symbol,
            "style": style.name,
            "notes": [note_with_octave(n, m) for m, n in zip(midi, names, strict=True)],
            "midi": midi,
            "omitted": list(_omitted(chord, frozenset(m % 12 for m in midi))),
            "voiceLeading": int(motion),
            "guideTonesKept": _kept(guides, before),
        })
        before = guides
    if progression is None:
        return voicings[0]
    return {"voicings": voicings, "totalVoiceLeading": int(sum(moved))}


@lru_cache(maxsize=8192)
def _names(selection: Selection, index: tuple[int, ...]) -> tuple[Spelled, ...]:
    """The names a pianist reads for the voices holding tones ``index`` of ``selection``."""
    tones = [selection.tones[i] for i in index]
    return tuple(read_as_pianist([t.spelled for t in tones], [t.label for t in tones]))


@lru_cache(maxsize=8192)
def _omitted(chord: Chord, heard: frozenset[int]) -> tuple[str, ...]:
    """The written chord's tones (spelled, once each) whose pitch class does not sound."""
    return tuple(dict.fromkeys(n for n, pc in zip(chord.notes, chord.pcs, strict=True)
                               if pc not in heard))


def _no_chord(style: Style) -> dict[str, Any]:
    """The entry of an ``NC`` in a progression: nothing sounds and nothing moves."""
    return {"chord": "NC", "style": style.name, "notes": [], "midi": [], "omitted": [],
            "voiceLeading": 0, "guideTonesKept": None}


def voice_progression(chords: Sequence[Chord | None], style: str = "rootless", low: int = 48,
                      high: int = 84, previous: list[int] | None = None,
                      starts: Sequence[int] = ()) -> list[list[int]]:
    """MIDI notes (lowest first) per chord, with the least total motion over the progression.
    A ``None`` (no chord, ``NC``) gets ``[]`` and the voicing before it carries over it.
    ``starts``: the indices of ``chords`` where a section of the chart starts (conduct's
    choruses and form sections, compose's sections), phrase starts for the progression
    analysis (bill_evans moves its register freely there: ``styles.PLACES``); a start on an
    ``NC`` falls on the next sounding chord.
    Raises ``InvalidRequest(field="range")`` when a chord's voicing does not fit, and
    ``InvalidRequest(field="progression")`` beyond ``kernels.MAX_CHORDS`` sounding chords (the
    most the search's keys hold exactly; conduct stays far below it)."""
    played = [c for c in chords if c is not None]
    if not played:
        return [[] for _ in chords]
    sounding = list(accumulate((c is not None for c in chords), initial=0))
    starts = tuple(sorted({sounding[i] for i in starts if 0 < sounding[i] < len(played)}))
    if len(played) > kernels.MAX_CHORDS:
        raise InvalidRequest(f"cannot voice more than {kernels.MAX_CHORDS} chords in one search",
                             field="progression")
    tables, leaps, units = _prepare(played, style_named(style), low, high, led=bool(previous),
                                    starts=starts)
    rows, _ = _solve(tables, sorted(previous or []), low, high, style_named(style), leaps, units,
                     _turns(played, REGISTERS[style].split))
    voiced = iter([int(m) for m in t.midi[r, :t.count[r]]]
                  for t, r in zip(tables, rows, strict=True))
    return [[] if c is None else next(voiced) for c in chords]


def warm_up() -> None:
    """Compile (or load from the numba cache) every kernel once, e.g. at server start-up."""
    a = np.array([60, 64, 67, 71], dtype=np.int64)
    b = np.array([[59, 62, 65, 0], [62, 65, 67, 71]], dtype=np.int64)
    kernels._motion(a, 4, b[0], 3)
    kernels._step(a, 4, b[0], 3, True, 6, LEAP_UNIT, kernels.STEP_LEAP_UNIT)
    flags = np.ones(4, dtype=np.int8)
    kernels._guides_near(a, 4, flags, b[1], 4, flags, GUIDE_STEP)
    for split in (False, True):
        kernels._search(a, 4, flags, b, np.array([3, 4], dtype=np.int64),
                        np.ones((2, 4), dtype=np.int8), np.zeros(2, dtype=np.int64),
                        np.array([0, 1, 2], dtype=np.int64), GUIDE_STEP, 132, split,
                        np.array([6, 6], dtype=np.int64), np.full(2, 32, dtype=np.int64),
                        np.full(2, kernels.STEP_LEAP_UNIT, dtype=np.int64))
    kernels._register(a, 4, 132, False)


def _prepare(chords: list[Chord], style: Style, low: int, high: int,
             bass_low: int | None = None, led: bool = False, starts: tuple[int, ...] = ()
             ) -> tuple[list[Candidates], np.ndarray, np.ndarray]:
    """The search's inputs for ``chords`` (at least one): each chord's candidates, with the
    colour tones of its place (``colour.coloured``; a line not ``led`` from a previous voicing
    starts on its style's tone, ``starting``), and per chord the motion beyond which each
    semitone costs more and that cost (``kernels._search``: the style's leap, or the price of
    the chord's place in the progression, ``Register.places``; ``starts``: the chords a
    section starts on, besides the first)."""
    register = REGISTERS[style.name]
    context = progression_context(chords, starts) \
        if style.name in COLOUR_STYLES or register.places else None
    scales = [c.mask for c in context] if context is not None else None
    leaps = np.full(len(chords), register.leap, dtype=np.int64)
    units = np.full(len(chords), LEAP_UNIT, dtype=np.int64)
    thin = [False] * len(chords)
    if context is not None and register.places:
        priced = {place: (leap, unit) for place, leap, unit in register.places}
        for t, reading in enumerate(context):
            leaps[t], units[t] = priced.get(_place(reading), (register.leap, LEAP_UNIT))
            if register.thin and reading.arrival:   # the arrival and the dominant before it
                thin[t] = thin[t - 1 if t else 0] = True
    deep = _walks(chords) if register.deep else [False] * len(chords)
    return _tables(coloured(chords, style, scales), style, low, high, bass_low, led, thin,
                   deep), \
        leaps, units


def _walks(chords: list[Chord]) -> list[bool]:
    """Per chord, whether it lies on a stepwise bass line (its bass, the slash bass else the
    root, a step or less from the one before, chord after chord) spanning more than
    ``styles.DEEP_RUN`` semitones: only there may the bass go under its window
    (``Register.deep``); a shorter run always fits E2-B3."""
    pcs = [(c.bass or c.root).pc for c in chords]
    out = [False] * len(pcs)
    start, place, low, high = 0, 0, 0, 0
    for t in range(1, len(pcs) + 1):
        d = (pcs[t] - pcs[t - 1]) % 12 if t < len(pcs) else 6
        move = d if d <= 6 else d - 12
        if abs(move) <= kernels.BASS_STEP:
            place += move
            low, high = min(low, place), max(high, place)
            continue
        if high - low > DEEP_RUN:
            out[start:t] = [True] * (t - start)
        start, place, low, high = t, 0, 0, 0
    return out


def _place(reading: InContext) -> str:
    """A chord's place in its progression (``styles.PLACES``, first match first)."""
    return "arrival" if reading.arrival else "phrase" if reading.phrase else "inside"


def _tables(chords: list[tuple[Chord, Style]], style: Style, low: int, high: int,
            bass_low: int | None, led: bool, thin: list[bool], deep: list[bool]
            ) -> list[Candidates]:
    """Each (coloured) chord's candidates in its style (with its three-voice shapes where
    ``thin``: an arrival and the dominant before it); a line not ``led`` starts on its
    style's tone."""
    tables: list[Candidates] = []
    for (chord, played), fewer, under in zip(chords, thin, deep, strict=True):
        table = candidates(chord, played, low, high, bass_low, fewer, under)
        if len(table.midi) == 0:
            raise InvalidRequest(
                f"no placement of the {style.name} voicing of {chord.symbol} fits in range "
                f"[{low}, {high}]: its narrowest shape spans {table.span} semitones and moves "
                f"only by octaves; any range at least {table.span + 11} semitones wide holds it",
                field="range")
        tables.append(table if tables or led else starting(table, style))
    return tables


def _turns(chords: list[Chord], split: bool) -> np.ndarray:
    """Per chord, what each semitone a stepwise bass line leaps beyond the step into it costs
    (``kernels._step``): less where the chord's root leaps from the root before (a new harmony:
    a run too long for the bass's register turns there, never over a chord held above its
    moving bass, Fascinating Rhythm's ``Cm Cm/Bb``); the same everywhere unless ``split``."""
    if not split:
        return np.full(len(chords), kernels.STEP_LEAP_UNIT, dtype=np.int64)
    roots = np.fromiter((c.root.pc for c in chords), dtype=np.int64, count=len(chords))
    d = np.diff(roots, prepend=roots[:1]) % 12
    leaps = np.minimum(d, 12 - d) > kernels.BASS_STEP
    return np.where(leaps, kernels.TURN_UNIT, kernels.STEP_LEAP_UNIT).astype(np.int64)


def _solve(tables: list[Candidates], previous: list[int], low: int, high: int, style: Style,
           leaps: np.ndarray, units: np.ndarray, turns: np.ndarray
           ) -> tuple[list[int], list[int]]:
    """Row per chord (into its table) and semitones moved into each chord."""
    offsets = np.fromiter(accumulate((len(t.midi) for t in tables), initial=0), dtype=np.int64,
                          count=len(tables) + 1)
    n = int(offsets[-1])
    notes = np.zeros((n, MAX_VOICES), dtype=np.int64)
    guide = np.zeros((n, MAX_VOICES), dtype=np.int8)
    counts = np.empty(n, dtype=np.int64)
    register = np.empty(n, dtype=np.int64)
    for t, table in enumerate(tables):
        a, b, v = offsets[t], offsets[t + 1], table.midi.shape[1]
        notes[a:b, :v] = table.midi
        guide[a:b, :v] = table.guide
        counts[a:b] = table.count
        register[a:b] = table.register
    prev = np.zeros(max(MAX_VOICES, len(previous)), dtype=np.int64)
    prev[:len(previous)] = previous
    prev_guide = np.zeros(prev.shape, dtype=np.int8)
    prev_guide[:len(_guide_line(previous))] = 1
    choice, moved = kernels._search(prev, len(previous), prev_guide, notes, counts, guide,
                                    register, offsets, GUIDE_STEP, low + high,
                                    REGISTERS[style.name].split, leaps, units, turns)
    return [int(c - offsets[t]) for t, c in enumerate(choice)], [int(m) for m in moved]


def _guide_line(previous: list[int]) -> list[int]:
    """The notes of a raw ``previous`` that count as guide tones: all of them when it can be a
    guide-tone line (at most GUIDE_LINE_MAX notes), none when it is denser."""
    return previous if len(previous) <= GUIDE_LINE_MAX else []


def _kept(guides: list[int], before: list[int] | None) -> bool | None:
    """Whether every guide tone voiced holds or moves by step (<= GUIDE_STEP semitones) from a
    guide tone of the voicing before; None when there is no guide tone on either side."""
    if not before or not guides:
        return None
    return all(min(abs(g - p) for p in before) <= GUIDE_STEP for g in guides)


def _previous(req: dict[str, Any]) -> list[int]:
    """``previous`` as sorted MIDI numbers (names with octave or integers 0..127)."""
    items = get_list(req, "previous", max_items=MAX_PREVIOUS) or []
    midi = []
    for item in items:
        if not isinstance(item, str):
            item = as_int(item)
        if item is None:
            raise InvalidRequest("'previous' holds note names with octave or MIDI numbers",
                                 field="previous")
        if isinstance(item, str):
            try:
                item = _midi_of(item)
            except ValueError:
                raise InvalidRequest(f"unknown note {item!r} in 'previous'",
                                     field="previous") from None
        if not 0 <= item <= 127:
            raise InvalidRequest(f"note {item} in 'previous' is outside MIDI 0..127",
                                 field="previous")
        midi.append(item)
    return sorted(midi)


@lru_cache(maxsize=1024)
def _midi_of(name: str) -> int:
    return parse_note_octave(name)[1]


def _range(req: dict[str, Any]) -> tuple[int, int, int]:
    """(lowest, highest, lowest bass): without ``range`` the default, whose shell and pad
    roots may go down to E2, and on to C2 in a stepwise run (``BASS_FLOOR``, API.md 5); a
    given range bounds every note."""
    value = req.get("range")
    if value is None:
        return (*DEFAULT_RANGE, BASS_FLOOR)
    bounds = [as_int(v) for v in value] if isinstance(value, list) else []
    if len(bounds) != 2 or None in bounds:
        raise InvalidRequest("'range' must be two MIDI numbers [lowest, highest]", field="range")
    low, high = bounds
    assert low is not None and high is not None
    if not (0 <= low <= high <= 127):
        raise InvalidRequest("'range' must satisfy 0 <= lowest <= highest <= 127", field="range")
    return low, high, low
