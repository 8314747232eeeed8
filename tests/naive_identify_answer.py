"""The slow twin of ``engine.identify.answer``: the answer built as identify built it before
the heads and packed readings (grid 9), one ``Ranked`` reading at a time from the search of
``tests/naive_identify.py``, each spelled by ``root_of`` and, with a key, analysed by
``role_of`` over its parsed symbol. The tests compare the two on every form of request.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.analysis import role_of
from engine.chords import Key, Spelled, on_letter, parse
from engine.identify.naming import (
    DEFAULT_ROOTS,
    SHARP_NINE_AS_THIRD,
    Spelt,
    spelled_at,
    spelt,
)
from engine.identify.notes import Sounding
from engine.identify.ranking import SPELLING_COST, Ranked
from engine.identify.vocabulary import VOCABULARY
from tests import naive_identify

MAX_READINGS = 5


def answer(notes: Sequence[Sounding], bass: Sounding | None, key: Key | None) -> dict[str, Any]:
    sounding = [*notes, bass] if bass is not None else notes
    mask = 0
    spelling: dict[int, Spelled] = {}
    for n in sounding:
        mask |= 1 << n.pc
        if n.spelled is not None:
            spelling.setdefault(n.pc, n.spelled)
    bass_pc = None if bass is None else bass.pc
    ranked = naive_identify.rank(mask, bass_pc, key)
    if spelling:
        chosen = _respelled(ranked, spelling, key)
    else:
        chosen = [(r, _spelt(r, None, key)) for r in ranked[:MAX_READINGS]]
    heard: list[tuple[int, str | None]] = []
    seen = 0
    for n in sounding:
        if not seen >> n.pc & 1:
            seen |= 1 << n.pc
            heard.append((n.pc, None if n.spelled is None else n.spelled.name))
    given = None if bass is None or bass.spelled is None else bass.spelled.name
    keyed = None if key is None else tuple(
        next((sp for sp in key.scale if sp.pc == pc), DEFAULT_ROOTS[pc]).name for pc in range(12))
    return {"notes": [n.text for n in notes],
            "bass": None if bass is None else given or (
                chosen[0][1].names[bass.pc] if chosen else DEFAULT_ROOTS[bass.pc].name),
            "readings": [_reading(r, chord, heard, (bass_pc, given) if r.slash else None, key,
                                  keyed) for r, chord in chosen]}


def root_of(r: Ranked, spelling: dict[int, Spelled] | None, key: Key | None) -> Spelled:
    root = r.root
    if spelling:
        if root in spelling:
            return spelling[root]
        q = VOCABULARY[r.entry].quality
        for number, semis in zip(q.numbers, q.semitones, strict=True):
            tone = spelling.get((root + semis) % 12)
            if tone is not None:
                sp = on_letter(root, (tone.letter - number + 1) % 7)
                if abs(sp.alter) <= 1:
                    return sp
    if key is not None:
        for sp in key.scale:
            if sp.pc == root:
                return sp
    return DEFAULT_ROOTS[root]


def _spelt(r: Ranked, spelling: dict[int, Spelled] | None, key: Key | None) -> Spelt:
    return spelt(spelled_at(root_of(r, spelling, key)), r.entry)


def _respelled(ranked: list[Ranked], spelling: dict[int, Spelled],
               key: Key | None) -> list[tuple[Ranked, Spelt]]:
    kept = []
    for r in ranked:
        chord = _spelt(r, spelling, key)
        wrong = sum(_spelled_otherwise(r, chord, pc, sp) for pc, sp in spelling.items())
        kept.append((Ranked(r.cost + SPELLING_COST * wrong, *r[1:]) if wrong else r, chord))
    kept.sort(key=lambda pair: (pair[0].cost, pair[0].order))
    return kept[:MAX_READINGS]


def _spelled_otherwise(r: Ranked, chord: Spelt, pc: int, named: Spelled) -> bool:
    """A named note the reading spells otherwise: a chord tone on another letter, but a
    dominant's sharp ninth on the minor third's letter when the root sounds."""
    if chord.tones.get(pc, named) == named:
        return False
    root = chord.spelled
    return not (not r.rootless and set(VOCABULARY[r.entry].labels) >= SHARP_NINE_AS_THIRD
                and pc == (root.pc + 3) % 12 and named.letter == (root.letter + 2) % 7)


def _reading(r: Ranked, chord: Spelt, heard: list[tuple[int, str | None]],
             slash: tuple[int | None, str | None] | None, key: Key | None,
             keyed: tuple[str, ...] | None) -> dict[str, Any]:
    names, tones = chord.names, chord.mask
    if keyed is not None:
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
        (explains if pc == bass_pc or tones >> pc & 1 else added).append(name or names[pc])
    out: dict[str, Any] = {
        "symbol": symbol, "root": chord.root, "quality": chord.quality, "bass": bass_name,
        "inversion": inversion, "rootless": r.rootless, "explains": explains,
        "omitted": [names[pc] for pc in chord.pcs if r.omitted >> pc & 1], "added": added}
    if key is not None:
        role = role_of(parse(symbol), key)
        out["numeral"], out["function"] = role.numeral, role.function
    return out
