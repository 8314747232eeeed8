"""One answer of ``identify`` for notes already read: the readings of their set ranked
(``engine.identify.ranking``), each spelled (``engine.identify.naming``) with the notes it
explains, leaves out and adds, and with a key its numeral and function as analyze gives them.
Kept per (notes, bass, key); every caller gets a fresh copy.

Without a key and without named notes the first ``MAX_READINGS`` of the set's row are the
answer; named notes add the cost of their spelling, read down the row only as far as a reading
can still come among the first (the spelling only adds to a cost).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from engine.analysis import role_of
from engine.chords import Key, Spelled, parse
from engine.identify.naming import DEFAULT_ROOTS, UNNAMED, Spelt, root_of, spelt
from engine.identify.notes import Sounding
from engine.identify.ranking import (
    ENTRY_BITS,
    NONE,
    ROOT_SHIFT,
    ROOTLESS_SHIFT,
    SLASH_SHIFT,
    SPELLING_COST,
    Ranked,
    decode,
    rank,
    row,
    top,
)

MAX_READINGS = 5


def identify_notes(notes: Sequence[Sounding], bass: Sounding | None, key: Key | None,
                   fresh: bool = True) -> dict[str, Any]:
    """The answer for notes already read (the file readers call this per segment). Unnamed
    notes without a key are answered from the tables alone (``plain_answer``); others from
    the one answer kept per (notes, bass, key), copied when ``fresh`` so a caller may change
    it."""
    if key is None and (bass is None or bass.spelled is None) and all(
            n.spelled is None for n in notes):
        return plain_answer(notes, bass)
    kept = answer_of(tuple(notes), bass, key)
    return copy_answer(kept) if fresh else kept


def plain_answer(notes: Sequence[Sounding], bass: Sounding | None) -> dict[str, Any]:
    """``answer_of`` for unnamed notes (pitch classes, MIDI numbers) without a key: the
    first readings of the set's row, named from ``naming.UNNAMED``. Built fresh at each call:
    it costs what copying a kept answer would."""
    mask, heard = 0, []
    for n in notes:
        if not mask >> n.pc & 1:
            mask |= 1 << n.pc
            heard.append(n.pc)
    b = -1 if bass is None else bass.pc
    if b >= 0 and not mask >> b & 1:
        mask |= 1 << b
        heard.append(b)
    readings = []
    first = None
    for v in row(mask, None if bass is None else b, MAX_READINGS):
        if v == NONE:
            break
        chord = UNNAMED[v >> ROOT_SHIFT & 15][v & ENTRY_BITS]
        if first is None:
            first = chord
        names, tones = chord.names, chord.mask
        left_out = tones & ~mask
        if v >> SLASH_SHIFT & 1:
            symbol, bass_name, inversion = f"{chord.symbol}/{names[b]}", names[b], \
                chord.inversions[b]
            explains = [names[pc] for pc in heard if tones >> pc & 1 or pc == b]
            added = [names[pc] for pc in heard if not (tones >> pc & 1 or pc == b)]
        elif mask & ~tones:
            symbol, bass_name, inversion = chord.symbol, None, 0
            explains = [names[pc] for pc in heard if tones >> pc & 1]
            added = [names[pc] for pc in heard if not tones >> pc & 1]
        else:       # the chord explains every note heard
            symbol, bass_name, inversion = chord.symbol, None, 0
            explains, added = [names[pc] for pc in heard], []
        readings.append({
            "symbol": symbol, "root": chord.root, "quality": chord.quality,
            "bass": bass_name, "inversion": inversion,
            "rootless": bool(v >> ROOTLESS_SHIFT & 1), "explains": explains,
            "omitted": [names[pc] for pc in chord.pcs if left_out >> pc & 1] if left_out else [],
            "added": added})
    return {"notes": [n.text for n in notes],
            "bass": None if b < 0 else (first.names[b] if first is not None
                                       else DEFAULT_ROOTS[b].name),
            "readings": readings}


def copy_answer(kept: dict[str, Any]) -> dict[str, Any]:
    return {"notes": [*kept["notes"]], "bass": kept["bass"], "readings": [
        {**r, "explains": [*r["explains"]], "omitted": [*r["omitted"]], "added": [*r["added"]]}
        for r in kept["readings"]]}


@lru_cache(maxsize=4096)
def answer_of(notes: tuple[Sounding, ...], bass: Sounding | None,
              key: Key | None) -> dict[str, Any]:
    sounding = [*notes, bass] if bass is not None else notes
    mask = 0
    spelling: dict[int, Spelled] = {}
    for n in sounding:
        mask |= 1 << n.pc
        if n.spelled is not None:
            spelling.setdefault(n.pc, n.spelled)
    bass_pc = None if bass is None else bass.pc
    if spelling:
        chosen = _respelled(rank(mask, bass_pc, key) if key is not None else (
            decode(v, mask) for v in row(mask, bass_pc) if v != NONE), spelling, key)
    else:
        chosen = [(r, _spelt(r, None, key)) for r in (
            rank(mask, bass_pc, key)[:MAX_READINGS] if key is not None
            else top(mask, bass_pc, MAX_READINGS))]
    # each note once, in the order given (the bass last when it is not among them), with the
    # name it was given (None: the reading names it)
    heard: list[tuple[int, str | None]] = []
    seen = 0
    for n in (notes if bass is None or bass in notes else sounding):
        if not seen >> n.pc & 1:
            seen |= 1 << n.pc
            heard.append((n.pc, None if n.spelled is None else n.spelled.name))
    given = None if bass is None or bass.spelled is None else bass.spelled.name
    keyed = None if key is None else _scale_names(key)
    readings = [_reading(r, chord, heard, (bass_pc, given) if r.slash else None, key, keyed)
                for r, chord in chosen]
    return {"notes": [n.text for n in notes],
            "bass": None if bass is None else given or (
                chosen[0][1].names[bass.pc] if chosen else DEFAULT_ROOTS[bass.pc].name),
            "readings": readings}


def _spelt(r: Ranked, spelling: dict[int, Spelled] | None, key: Key | None) -> Spelt:
    return spelt(r.entry, root_of(r, spelling, key)) if spelling or key is not None \
        else UNNAMED[r.root][r.entry]


def _respelled(ranked: Iterable[Ranked], spelling: dict[int, Spelled],
               key: Key | None) -> list[tuple[Ranked, Spelt]]:
    """The first ``MAX_READINGS`` once each named note the reading spells otherwise costs
    ``SPELLING_COST``, each with its spelling: ``ranked`` is cheapest first and the spelling
    only adds, so the readings after one costing more than the last kept cannot come among
    the first."""
    kept: list[tuple[Ranked, Spelt]] = []
    for r in ranked:
        if len(kept) >= MAX_READINGS and r.cost > kept[MAX_READINGS - 1][0].cost:
            break
        chord = _spelt(r, spelling, key)
        tones = chord.tones
        wrong = sum(tones.get(pc, sp) != sp for pc, sp in spelling.items())
        kept.append((Ranked(r.cost + SPELLING_COST * wrong, *r[1:]) if wrong else r, chord))
        kept.sort(key=_cost_and_order)
    return kept[:MAX_READINGS]


def _cost_and_order(pair: tuple[Ranked, Spelt]) -> tuple[float, int]:
    return pair[0].cost, pair[0].order


def _reading(r: Ranked, chord: Spelt, heard: list[tuple[int, str | None]],
             slash: tuple[int | None, str | None] | None, key: Key | None,
             keyed: tuple[str, ...] | None) -> dict[str, Any]:
    """One reading spelled as ``chord``; ``slash`` is the bass it is written over and its
    name as given (None: not a slash chord); ``keyed`` names notes outside the chord."""
    names, tones = chord.names, chord.mask
    if keyed is not None:  # a note outside the chord is named as the key spells it
        names = tuple(name if tones >> pc & 1 else keyed[pc] for pc, name in enumerate(names))
    symbol, bass_name, bass_pc = chord.symbol, None, None
    inversion: int | None = 0
    if slash is not None:
        bass_pc, given = slash
        assert bass_pc is not None
        bass_name = given or names[bass_pc]
        symbol = f"{symbol}/{bass_name}"
        inversion = chord.inversions[bass_pc]
    explains, added = [], []
    for pc, name in heard:
        if pc == bass_pc or tones >> pc & 1:
            explains.append(name or names[pc])
        else:
            added.append(name or names[pc])
    omitted = [names[pc] for pc in chord.pcs if r.omitted >> pc & 1]
    out: dict[str, Any] = {
        "symbol": symbol, "root": chord.root, "quality": chord.quality,
        "bass": bass_name, "inversion": inversion, "rootless": r.rootless,
        "explains": explains, "omitted": omitted, "added": added,
    }
    if key is not None:
        role = role_of(parse(symbol), key)
        out["numeral"] = role.numeral
        out["function"] = role.function
    return out


@lru_cache(maxsize=64)
def _scale_names(key: Key) -> tuple[str, ...]:
    """Pitch class -> its name in ``key``'s scale, else the default root's."""
    return tuple(next((sp for sp in key.scale if sp.pc == pc), DEFAULT_ROOTS[pc]).name
                 for pc in range(12))
