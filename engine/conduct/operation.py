"""The ``conduct`` operation's entry point (API.md §7): a plain-English direction becomes a
four-lane band arrangement, a lead sheet and a multi-track MIDI file.

prompt (English -> Plan) -> forms (numerals -> symbols) or the user's progression -> fit bars
and tempo to ``durationSec`` -> voicing search over the whole progression -> arrange (lanes)
-> midi (SMF bytes).
"""

from __future__ import annotations

import dataclasses
import math
import random
from typing import Any

from engine.analysis import key_of_symbols
from engine.chords import NO_CHORD, Chord, Spelled, parse, parse_progression
from engine.conduct import endings, forms, midi
from engine.conduct.arrange import Arranger, energy_curve
from engine.conduct.prompt import MAX_TEMPO, MIN_TEMPO, Plan, read_prompt
from engine.conduct.styles import BRUSH_DRUMS, BRUSH_KIT, BRUSH_TAP, GROOVES, Groove, meter_key
from engine.conduct.timeline import PPQ, Segment, Timing, segments
from engine.errors import InvalidRequest
from engine.requests import MAX_PROMPT, get_number, get_str, require_object
from engine.voicing import voice_progression

MIN_DURATION, MAX_DURATION = 5, 900
CONDUCT_FIELDS = ("prompt", "durationSec", "progression", "seed", "detail")
# "summary": the result without ``lanes`` and ``midi`` (API.md 7), for assistants that read
# the whole answer: a 2-minute piece is ~2-3 KB instead of ~160 KB.
DETAILS = ("full", "summary")
DEFAULT_MIN_BARS = 16          # without a duration or a bar count, forms repeat to this length
MAX_FIT_BARS = 2048
Bars = list[list[tuple[int, Chord | None]]]


def conduct(request: Any) -> dict[str, Any]:
    req = require_object(request, CONDUCT_FIELDS)
    detail = get_str(req, "detail", default="full")
    if detail not in DETAILS:
        raise InvalidRequest(f"field 'detail' must be one of {', '.join(DETAILS)}; got "
                             f"{detail!r}", field="detail")
    prompt = get_str(req, "prompt", required=True, max_len=MAX_PROMPT) or ""
    duration = get_number(req, "durationSec", low=MIN_DURATION, high=MAX_DURATION)
    seed = int(get_number(req, "seed", default=0, low=-(2**63), high=2**63 - 1, integer=True)
               or 0)
    plan = read_prompt(prompt)
    progression = req.get("progression")

    meter = plan.meter
    quarters = meter[0] * 4 / meter[1]
    if progression is not None:
        symbol_bars = _user_bars(progression, meter[0])
        tonic, mode = _key_of(plan, symbol_bars, meter[0])
        form_len = len(symbol_bars)
        # whole passes of the progression, then the bars that bring it home (endings)
        tail, ending = endings.ending_bars(symbol_bars, tonic, mode, plan.loop)
        try:
            bars, tempo = _fit_user(plan, form_len, quarters, duration, len(tail))
        except InvalidRequest:
            if not tail:
                raise
            # durationSec holds the passes but not the ending too: the piece ends open
            tail, ending = [], "open"
            bars, tempo = _fit_user(plan, form_len, quarters, duration)
        piece = [symbol_bars[b % form_len] for b in range(bars - len(tail))] + tail
        inner: tuple[int, ...] = ()
    else:
        form = forms.choose_form(plan.form, plan.style, plan.mode)
        tonic, mode = plan.tonic, plan.mode
        symbol_bars = forms.realise_form(form, mode, tonic)
        form_len = len(symbol_bars)
        bars, tempo = _fit(plan, forms.stops(form, mode), forms.tempo_factor(form), quarters,
                           duration)
        piece = [symbol_bars[b % form_len] for b in range(bars)]
        # The piece ends on the tonic, approached by its dominant, the final crash under it.
        tail = forms.ending(form, mode, tonic, bars)
        piece[bars - len(tail):] = tail
        ending = "tonic"
        inner = forms.sections(form)
    chord_bars = _place(piece, meter[0])

    groove = _groove(plan)
    approximated = list(plan.approximated)
    if meter_key(meter) not in groove.drums:
        approximated.append((f"{meter[0]}/{meter[1]}", f"{plan.style} has no {meter[0]}/"
                             f"{meter[1]} groove of its own: one built from the meter"))
    played = round(bars * quarters * 60 / tempo, 3)
    if duration is not None and abs(played - duration) > 0.01 * duration:
        approximated.append((f"durationSec {duration:g}", f"{played:g} s: no whole number of "
                             "choruses lasts it within the tempo word's range; the tempo "
                             "word wins"))
    if plan.tempo_range and not plan.tempo_range[0] <= tempo <= plan.tempo_range[1]:
        word = next(w for w, chose in plan.understood if chose.startswith("tempo"))
        approximated.append((word, f"tempo {tempo:g} bpm: the bar count and durationSec "
                             "set it"))
    swing = groove.swing if meter[1] != 8 else 0.5
    timing = Timing(meter, swing)
    segs = segments(chord_bars, timing)
    energy = energy_curve(bars, form_len, plan.energy, plan.builds)
    starts = _section_starts(bars, form_len, inner, len(tail))
    voiced = _voice(segs, groove.voicing, starts)
    lanes = Arranger(segs, voiced, groove, timing, energy, form_len, plan.bass, tonic.pc,
                     random.Random(seed), plan.clave).lanes()

    result: dict[str, Any] = {
        "conductor": {
            "tempo": tempo,
            "key": tonic.name,
            "mode": mode,
            "timeSignature": f"{meter[0]}/{meter[1]}",
            "bars": bars,
            "style": plan.style,
            "swing": swing,
            "durationSec": played,
            "energy": energy,
            "ending": ending,
            "understood": [{"words": w, "chose": c} for w, c in plan.understood],
            "approximated": [{"words": w, "instead": i} for w, i in approximated],
        },
        "chords": [{"bar": s.bar + 1, "beat": s.beat, "symbol": _name(s.chord)} for s in segs],
        "leadSheet": _lead_sheet(segs, bars),
    }
    if detail == "summary":
        result["ppq"] = PPQ
        return result
    end = bars * timing.bar_ticks
    data = midi.write_midi(
        lanes, tempo=tempo, meter=meter, key=midi.key_signature(tonic, mode),
        programs=(*groove.programs, groove.kit), names=(*groove.names, "Bass", "Drums"), ppq=PPQ, end=end)
    result["lanes"] = {name: [{"tick": t, "duration": d, "pitch": p, "velocity": v}
                              for t, d, p, v in notes] for name, notes in lanes.items()}
    result["ppq"] = PPQ
    result["midi"] = midi.encode(data)
    return result


# Which of a groove's programs each lane's instrument word replaces.
_PROGRAM_INDEX = {"harmony": 0, "pattern": 1, "bass": 2}


def _groove(plan: Plan) -> Groove:
    """The style's groove with the instruments the words named: a program per lane, the brush
    kit with its brush pattern (``BRUSH_DRUMS``; in another meter the style's own pattern,
    played on the brush kit, the brush taps keeping time)."""
    groove = GROOVES[plan.style]
    programs = list(groove.programs)
    names = list(groove.names)
    for lane, program, name in plan.instruments:
        if lane == "drums" and program == BRUSH_KIT:
            groove = dataclasses.replace(groove, kit=BRUSH_KIT, cymbal=BRUSH_TAP,
                                         drums={**groove.drums, **BRUSH_DRUMS})
        elif lane in _PROGRAM_INDEX:
            programs[_PROGRAM_INDEX[lane]] = program
            if lane != "bass":
                names[_PROGRAM_INDEX[lane]] = name
    return dataclasses.replace(groove, programs=(programs[0], programs[1], programs[2]),
                               names=(names[0], names[1]))


def _user_bars(progression: Any, beats: int) -> list[list[str]]:
    """The user's changes as bars of symbols (``|`` marks bars; without any, a chord a bar);
    every symbol is checked by the parser, errors carry the chord's index, and every bar is
    checked against the meter before any fitting, so the whole progression is always valid."""
    if isinstance(progression, str):
        tokens = progression.replace("|", " | ").split()
    elif isinstance(progression, list) and all(isinstance(t, str) for t in progression):
        tokens = [p for t in progression for p in t.replace("|", " | ").split()]
    else:
        raise InvalidRequest("field 'progression' must be a string or a list of strings",
                             field="progression")
    chords = [t for t in tokens if t != "|"]
    parse_progression(chords, field="progression", allow_nc=True)  # count, symbols, indices
    if "|" not in tokens:
        return [[c] for c in chords]
    bars: list[list[str]] = [[]]
    for t in tokens:
        if t == "|":
            bars.append([])
        else:
            bars[-1].append(t)
    bars = [b for b in bars if b]
    for i, bar in enumerate(bars):
        if len(bar) > beats:
            raise InvalidRequest(f"bar {i + 1} has {len(bar)} chords but only {beats} beats",
                                 field="progression")
    return bars


def _key_of(plan: Plan, bars: list[list[str]], beats: int) -> tuple[Spelled, str]:
    """The prompt's key, else the key of the user's chart as a musician reads it
    (``engine.analysis.keyfind``): in the mode the prompt named (a mode word without a
    tonic), else major or minor. A bar's chords share it equally."""
    if plan.key_given:
        return plan.tonic, plan.mode
    modes = (plan.mode,) if plan.mode_given else ("major", "minor")
    found = key_of_symbols(((b + 1, 1 + i * beats / len(bar), s) for b, bar in enumerate(bars)
                            for i, s in enumerate(bar)), beats, modes)
    return (found.tonic, found.mode) if found else (plan.tonic, plan.mode)


def _fit(plan: Plan, stops: tuple[int, ...], factor: float, quarters: float,
         duration: float | None) -> tuple[int, float]:
    """Bars and tempo (quarter notes per minute, 2 decimals) for a form whose chorus may stop
    at ``stops`` (``forms.stops``: bars into a chorus, the whole chorus last).

    With a duration: the asked bar count if its tempo is within bounds; else, among the bar
    counts where the form may stop, a whole number of choruses if one plays within ``factor``
    of the asked (or the style's) tempo, else the stop nearest that tempo within ``factor``;
    when no stop is that near and a clip shorter than the form's first section is (a blues in
    10 s would be a chorus at 288 bpm: it plays 4 bars at 96), that clip, which gets the form's
    ending; else the stop or clip nearest the tempo (a slow ballad in 6 s: 4 bars at 160, not
    8 at 320), else the nearest 4-bar phrase, whatever its tempo (a blues in 5 s). Always
    within bounds."""
    chorus = stops[-1]
    if duration is None:
        bars = plan.bars or chorus * math.ceil(DEFAULT_MIN_BARS / chorus)
        return bars, _bpm(plan.tempo)

    def tempo_for(n: int) -> float:
        return n * quarters * 60 / duration

    def ratio(n: int) -> float:
        return abs(math.log(tempo_for(n) / plan.tempo))

    def playable(counts: range | list[int]) -> list[int]:
        return [n for n in counts if MIN_TEMPO <= tempo_for(n) <= MAX_TEMPO]

    if plan.bars and MIN_TEMPO <= tempo_for(plan.bars) <= MAX_TEMPO:
        return plan.bars, _bpm(tempo_for(plan.bars))
    cands = playable([k + s for k in range(0, MAX_FIT_BARS, chorus) for s in stops])
    phrases = playable(range(forms.PHRASE_BARS, MAX_FIT_BARS, forms.PHRASE_BARS))
    clips = [n for n in phrases if n < stops[0]]  # shorter than the form's first section

    def near(counts: list[int]) -> list[int]:
        return [n for n in counts if ratio(n) <= math.log(factor) + 1e-9]

    if plan.tempo_range:
        return _fit_word(plan, [k + s for k in range(0, MAX_FIT_BARS, chorus) for s in stops]
                         + [n for n in range(forms.PHRASE_BARS, stops[0], forms.PHRASE_BARS)],
                         chorus, quarters, duration)
    within = near(cands)
    pool = ([n for n in within if n % chorus == 0] or within or near(clips) or cands + clips
            or phrases or [1, 2, 3])
    bars = min(pool, key=lambda n: (ratio(n), n))
    return bars, _bpm(tempo_for(bars))


def _fit_word(plan: Plan, counts: list[int], chorus: int, quarters: float,
              duration: float) -> tuple[int, float]:
    """Bars and tempo when a tempo word gives a range (``Plan.tempo_range``): among the bar
    counts the piece may stop at, those whose tempo for ``duration`` is inside the range,
    whole choruses first, nearest the word's tempo; when none is, the word wins: the tempo
    stays in its range and the duration is the nearest those counts reach (the caller says
    so in ``approximated``)."""
    assert plan.tempo_range is not None
    lo, hi = plan.tempo_range

    def tempo_for(n: int) -> float:
        return n * quarters * 60 / duration

    inside = [n for n in counts if lo <= tempo_for(n) <= hi]
    if inside:
        pool = [n for n in inside if n % chorus == 0] or inside
        bars = min(pool, key=lambda n: (abs(math.log(tempo_for(n) / plan.tempo)), n))
        return bars, _bpm(tempo_for(bars))

    def clamped(n: int) -> float:
        return min(hi, max(lo, tempo_for(n)))

    bars = min(counts, key=lambda n: (abs(math.log(n * quarters * 60 / clamped(n) / duration)),
                                      n % chorus != 0, n))
    return bars, _bpm(clamped(bars))


def _fit_user(plan: Plan, form_len: int, quarters: float, duration: float | None,
              extra: int = 0) -> tuple[int, float]:
    """Bars and tempo for a user progression: always whole passes of it, never cut, then
    ``extra`` ending bars. Without a duration: the asked bar count rounded up to whole passes
    (else passes up to 16 bars); with one: the number of passes whose tempo is nearest the
    asked one within bounds, or ``invalid_request`` on ``durationSec`` when no whole number of
    passes fits."""
    asked = plan.bars or DEFAULT_MIN_BARS
    passes = max(1, math.ceil(asked / form_len))
    if duration is None:
        return passes * form_len + extra, _bpm(plan.tempo)

    def tempo_for(n: int) -> float:
        return n * quarters * 60 / duration

    if plan.tempo_range and not plan.bars:
        counts = [n + extra for n in range(form_len, MAX_FIT_BARS + form_len, form_len)]
        return _fit_word(plan, counts, 1, quarters, duration)
    cands = [n + extra for n in range(form_len, MAX_FIT_BARS + form_len, form_len)
             if MIN_TEMPO <= tempo_for(n + extra) <= MAX_TEMPO]
    if not cands:
        raise InvalidRequest(
            f"durationSec {duration:g} cannot hold the {form_len}-bar progression played "
            f"whole: one pass lasts {form_len * quarters * 60 / MAX_TEMPO:.3g}..."
            f"{form_len * quarters * 60 / MIN_TEMPO:.3g} s at {MIN_TEMPO:g}..{MAX_TEMPO:g} bpm",
            field="durationSec")
    if plan.bars and passes * form_len + extra in cands:
        bars = passes * form_len + extra
    else:
        bars = min(cands, key=lambda n: (abs(math.log(tempo_for(n) / plan.tempo)), n))
    return bars, _bpm(tempo_for(bars))


def _bpm(tempo: float) -> float:
    """``conductor.tempo``: always a float, rounded to 2 decimals (140.0, 139.35)."""
    return float(round(tempo, 2))


def _place(piece: list[list[str]], beats: int) -> Bars:
    """Bars of symbols as bars of (beat index, chord); chords in a bar split its beats, the
    first ones longer (three chords in 4/4 last 2 + 1 + 1 beats)."""
    return [[(math.ceil(i * beats / len(symbols)), None if s in NO_CHORD else parse(s))
             for i, s in enumerate(symbols)] for symbols in piece]


def _section_starts(bars: int, form_len: int, inner: tuple[int, ...], tail: int
                    ) -> frozenset[int]:
    """The bars (0-based) where a section of the piece starts: each chorus, each section
    inside a chorus of the form (``forms.sections``), and the ending's bars."""
    starts = {b for b in range(bars) if b % form_len == 0 or b % form_len in inner}
    return frozenset(starts | ({bars - tail} if 0 < tail < bars else set()))


def _voice(segs: list[Segment], style: str, starts: frozenset[int] = frozenset()
           ) -> dict[int, list[int]]:
    """Voicings of every sounding segment, searched over the whole piece at once; the first
    segment of each bar of ``starts`` starts a section of the chart (a phrase, where the
    voicing may move its register: ``voice_progression``)."""
    firsts = [i for i, s in enumerate(segs) if s.bar in starts
              and (i == 0 or segs[i - 1].bar != s.bar)]
    voiced = voice_progression([s.chord for s in segs], style, 48, 84, starts=firsts)
    return {i: notes for i, notes in enumerate(voiced) if segs[i].chord is not None}


def _name(chord: Chord | None) -> str:
    """A chord as the lead sheet writes it: canonical spelling, whatever the user typed."""
    return "NC" if chord is None else chord.canonical


def _lead_sheet(segs: list[Segment], bars: int) -> str:
    cells: list[list[str]] = [[] for _ in range(bars)]
    for s in segs:
        cells[s.bar].append(_name(s.chord))
    lines = []
    for i in range(0, bars, 4):
        lines.append("| " + " | ".join(" ".join(c) for c in cells[i:i + 4]) + " |")
    return "\n".join(lines)
