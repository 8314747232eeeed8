"""The ``conduct`` operation (API.md §7): a plain-English direction becomes a four-lane band
arrangement, a lead sheet and a multi-track MIDI file.

prompt (English -> Plan) -> forms (numerals -> symbols) or the user's progression -> fit bars
and tempo to ``durationSec`` -> voicing search over the whole progression -> arrange (lanes)
-> midi (SMF bytes).
"""

from __future__ import annotations

import math
import random
from typing import Any

from engine.chord import Chord
from engine.conduct import forms, midi
from engine.conduct.arrange import PPQ, Arranger, Segment, Timing, energy_curve, segments
from engine.conduct.prompt import MAX_TEMPO, MIN_TEMPO, Plan, read_prompt
from engine.conduct.styles import GROOVES
from engine.errors import InvalidRequest
from engine.notes import Spelled
from engine.requests import MAX_PROGRESSION, MAX_PROMPT, get_number, get_str, require_object
from engine.symbols import parse, parse_progression
from engine.voicing import voice_progression

__all__ = ["conduct"]

MIN_DURATION, MAX_DURATION = 5, 900
DEFAULT_MIN_BARS = 16          # without a duration or a bar count, forms repeat to this length
MAX_FIT_BARS = 2048
NC = ("NC", "N.C.")
Bars = list[list[tuple[int, Chord | None]]]


def conduct(request: Any) -> dict[str, Any]:
    req = require_object(request)
    prompt = get_str(req, "prompt", required=True, max_len=MAX_PROMPT) or ""
    duration = get_number(req, "durationSec", low=MIN_DURATION, high=MAX_DURATION)
    seed = int(get_number(req, "seed", default=0, low=-(2**63), high=2**63 - 1, integer=True)
               or 0)
    plan = read_prompt(prompt)
    progression = req.get("progression")

    if progression is not None:
        symbol_bars = _user_bars(progression)
        tonic, mode = _key_of(plan, symbol_bars)
    else:
        form = forms.choose_form(plan.form, plan.style, plan.mode)
        tonic, mode = plan.tonic, plan.mode
        symbol_bars = forms.realise_form(form, mode, tonic)

    meter = plan.meter
    form_len = len(symbol_bars)
    quarters = meter[0] * 4 / meter[1]
    bars, tempo = _fit(plan, form_len, quarters, duration)
    chord_bars = _place(symbol_bars, bars, meter[0])

    groove = GROOVES[plan.style]
    swing = groove.swing if meter[1] != 8 else 0.5
    timing = Timing(meter, swing)
    segs = segments(chord_bars, timing)
    energy = energy_curve(bars, form_len, plan.energy, plan.builds)
    voiced = _voice(segs, groove.voicing)
    lanes = Arranger(segs, voiced, groove, timing, energy, form_len, plan.bass, tonic.pc,
                     random.Random(seed)).lanes()

    end = bars * timing.bar_ticks
    data = midi.write_midi(
        lanes, tempo=tempo, meter=meter, key=midi.key_signature(tonic, mode),
        programs=groove.programs, names=(*groove.names, "Bass", "Drums"), ppq=PPQ, end=end)
    return {
        "conductor": {
            "tempo": tempo,
            "key": tonic.name,
            "mode": mode,
            "timeSignature": f"{meter[0]}/{meter[1]}",
            "bars": bars,
            "style": plan.style,
            "swing": swing,
            "durationSec": round(bars * quarters * 60 / tempo, 3),
            "energy": energy,
        },
        "chords": [{"bar": s.bar + 1, "beat": s.beat, "symbol": _name(s.chord)} for s in segs],
        "leadSheet": _lead_sheet(segs, bars),
        "lanes": {name: [{"tick": t, "duration": d, "pitch": p, "velocity": v}
                         for t, d, p, v in notes] for name, notes in lanes.items()},
        "ppq": PPQ,
        "midi": midi.encode(data),
    }


def _user_bars(progression: Any) -> list[list[str]]:
    """The user's changes as bars of symbols (``|`` marks bars; without any, a chord a bar);
    every symbol is checked by the parser, errors carry the chord's index."""
    if isinstance(progression, str):
        tokens = progression.replace("|", " | ").split()
    elif isinstance(progression, list) and all(isinstance(t, str) for t in progression):
        tokens = [p for t in progression for p in t.replace("|", " | ").split()]
    else:
        raise InvalidRequest("field 'progression' must be a string or a list of strings",
                             field="progression")
    chords = [t for t in tokens if t != "|"]
    if len(chords) > MAX_PROGRESSION:
        raise InvalidRequest(f"field 'progression' has more than {MAX_PROGRESSION} chords",
                             field="progression")
    parse_progression(chords, field="progression", allow_nc=True)
    if "|" not in tokens:
        return [[c] for c in chords]
    bars: list[list[str]] = [[]]
    for t in tokens:
        if t == "|":
            bars.append([])
        else:
            bars[-1].append(t)
    return [b for b in bars if b]


def _key_of(plan: Plan, bars: list[list[str]]) -> tuple[Spelled, str]:
    """The prompt's key, else the first chord's root (minor when its third is minor)."""
    if plan.key_given:
        return plan.tonic, plan.mode
    for bar in bars:
        for symbol in bar:
            if symbol not in NC:
                chord = parse(symbol)
                return chord.root, "minor" if "b3" in chord.intervals else "major"
    return plan.tonic, plan.mode


def _fit(plan: Plan, form_len: int, quarters: float, duration: float | None) -> tuple[int, float]:
    """Bars and tempo (quarter notes per minute, 2 decimals)."""
    if duration is None:
        bars = plan.bars or form_len * math.ceil(DEFAULT_MIN_BARS / form_len)
        return bars, round(plan.tempo, 2)

    def tempo_for(n: int) -> float:
        return n * quarters * 60 / duration

    if plan.bars and MIN_TEMPO <= tempo_for(plan.bars) <= MAX_TEMPO:
        return plan.bars, round(tempo_for(plan.bars), 2)
    # Whole choruses of the form, or, when one chorus is too long, its first 4, 8, ... bars;
    # the count whose tempo is nearest (by ratio) the asked tempo wins.
    cands = [n for n in range(4, form_len, 4)] + list(range(form_len, MAX_FIT_BARS, form_len))
    cands = [n for n in cands if MIN_TEMPO <= tempo_for(n) <= MAX_TEMPO] or [1, 2, 3]
    bars = min(cands, key=lambda n: (abs(math.log(tempo_for(n) / plan.tempo)), n))
    return bars, round(tempo_for(bars), 2)


def _place(symbol_bars: list[list[str]], bars: int, beats: int) -> Bars:
    """The form repeated over ``bars`` bars; chords in a bar split its beats, the first ones
    longer (three chords in 4/4 last 2 + 1 + 1 beats)."""
    out: Bars = []
    for b in range(bars):
        symbols = symbol_bars[b % len(symbol_bars)]
        if len(symbols) > beats:
            raise InvalidRequest(f"bar {b % len(symbol_bars) + 1} has {len(symbols)} chords but "
                                 f"only {beats} beats", field="progression")
        out.append([(math.ceil(i * beats / len(symbols)), None if s in NC else parse(s))
                    for i, s in enumerate(symbols)])
    return out


def _voice(segs: list[Segment], style: str) -> dict[int, list[int]]:
    """Voicings of every sounding segment, searched over the whole piece at once."""
    voiced = voice_progression([s.chord for s in segs], style, 48, 84)
    return {i: notes for i, notes in enumerate(voiced) if segs[i].chord is not None}


def _name(chord: Chord | None) -> str:
    return "NC" if chord is None else chord.symbol


def _lead_sheet(segs: list[Segment], bars: int) -> str:
    cells: list[list[str]] = [[] for _ in range(bars)]
    for s in segs:
        cells[s.bar].append(_name(s.chord))
    lines = []
    for i in range(0, bars, 4):
        lines.append("| " + " | ".join(" ".join(c) for c in cells[i:i + 4]) + " |")
    return "\n".join(lines)
