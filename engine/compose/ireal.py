"""The ``ireal`` export: an ``irealbook://`` URL in iReal Pro's own format, as its developers
document it and its open readers (ireal-musicxml) read it.

- Fields: title = composer (surname first) = style = key = n = music.
- Keys from iReal's list only: majors C Db D Eb E F Gb G Ab A Bb B, minors with ``-`` (``D-``);
  another spelling of one of them is written as iReal's (``F#`` -> ``Gb``) and reported.
- Time signatures as iReal writes them (``T44``, ``T34``, ``T68``, ``T12`` for 12/8), at the
  start and where a section changes the meter.
- Sections marked ``*A``..``*D``, ``*i`` (an intro), ``*v`` (a verse); a section played twice in
  a row written once in repeat braces ``{ }``; double bars ``[ ]`` around the others and the
  final ``Z``.
- Chords in the bar's cells by beat: a bar has one cell a beat of its meter (4 in 4/4, 12 in
  12/8), a chord fills its cell and the blank cells (spaces) up to the next chord, so ``C7  G7``
  is C7 for three beats and G7 on beat 4. A chord between beats goes to the nearest cell, a tie
  to the later, a push on the last "and" into the next bar's first (``engine.compose.cells``,
  the rule of ChordPro and the lead sheet too). iReal Pro plays at most a chord a beat: in a
  bar of more chords than beats a chord repeating the one before takes no cell, and if they
  still do not fit the bar takes a meter of its own with beats enough, its chords at the same
  shares of the bar (``T54`` for Conference of the Birds' ``Dm Dm/C G/B`` in 2/4, as its
  iReal chart writes it; reported); only more chords than 7 beats are written comma-parted,
  in equal parts, and reported.
  A bar with no chord of its own repeats the bar before (``x``) when that one is a single chord,
  else names the chord still sounding; a bar whose first chord comes after its first beat opens
  on the chord still sounding (``n``, no chord, at a section's start).
- Qualities from iReal's list only (``IREAL_QUALITIES``); a quality that is not in it is written
  as the nearest one (``nearest``: the fewest chord tones left out or added, a third or seventh
  weighing three, a tone added twice a tone left out), and each such change is reported.
"""

from __future__ import annotations

import urllib.parse
from functools import lru_cache
from typing import Any

from engine.chords import parse, parse_key
from engine.compose.cells import place
from engine.compose.ir import Composition, by_id, meter
from engine.errors import InvalidRequest

# iReal Pro's chord qualities (its file-format page), each with the engine's spelling of it
# (what our own iReal reader turns it into), in order of preference for one chord.
IREAL_QUALITIES: tuple[tuple[str, str], ...] = (
    ("", ""), ("-", "m"), ("o", "dim"), ("+", "aug"), ("5", "5"), ("sus", "sus4"),
    ("^7", "maj7"), ("-7", "m7"), ("7", "7"), ("7sus", "7sus4"), ("h7", "m7b5"),
    ("o7", "dim7"), ("^9", "maj9"), ("^13", "maj13"), ("6", "6"), ("69", "6/9"),
    ("^7#11", "maj7#11"), ("^9#11", "maj9#11"), ("^7#5", "maj7#5"), ("-6", "m6"),
    ("-69", "m6/9"), ("-^7", "m(maj7)"), ("-^9", "m(maj9)"), ("-9", "m9"), ("-11", "m11"),
    ("h9", "m9b5"), ("-b6", "mb6"), ("-#5", "m#5"), ("add9", "add9"), ("9", "9"),
    ("7b9", "7b9"), ("7#9", "7#9"), ("7#11", "7#11"), ("7b5", "7b5"), ("7#5", "aug7"),
    ("9#11", "9#11"), ("9b5", "9b5"), ("9#5", "9#5"), ("7b13", "7b13"), ("7#9#5", "7#5#9"),
    ("7#9b5", "7b5#9"), ("7#9#11", "7#9#11"), ("7b9#11", "7b9#11"), ("7b9b5", "7b5b9"),
    ("7b9#5", "7#5b9"), ("7b9#9", "7b9#9"), ("7b9b13", "7b9b13"), ("7alt", "7alt"),
    ("13", "13"), ("13#11", "13#11"), ("13#9", "13#9"), ("13b9", "13b9"), ("11", "11"),
    ("7b9sus", "7sus4b9"), ("9sus", "9sus4"), ("13sus", "13sus4"), ("7b13sus", "7sus4b13"),
)
MAJOR_KEYS = ("C", "Db", "D", "Eb", "E", "F", "Gb", "G", "Ab", "A", "Bb", "B")
MINOR_KEYS = ("C", "C#", "D", "Eb", "E", "F", "F#", "G", "G#", "A", "Bb", "B")
TIMES = {(2, 4): "T24", (3, 4): "T34", (4, 4): "T44", (5, 4): "T54", (6, 4): "T64",
         (7, 4): "T74", (2, 2): "T22", (3, 2): "T32", (3, 8): "T38", (5, 8): "T58",
         (6, 8): "T68", (7, 8): "T78", (9, 8): "T98", (12, 8): "T12"}
# Section names that have their own mark; other sections take the first letter A-D of their id.
MARKS = {"intro": "i", "verse": "v"}
STYLES = {"swing": "Medium Swing", "bossa_nova": "Bossa Nova", "ballad": "Ballad",
          "jazz_waltz": "Waltz", "funk": "Funk", "samba": "Samba", "shuffle_blues": "Shuffle",
          "rock_pop": "Rock Pop", "gospel": "RnB", "modal_vamp": "Medium Up Swing"}
# The weight of a chord tone (semitones above the root) left out or added: thirds, sevenths.
WEIGHTS = {3: 3, 4: 3, 10: 3, 11: 3}
ADDED = 2


def _tones(quality: str) -> frozenset[int]:
    return frozenset(s % 12 for s in parse("C" + quality).semitones)


@lru_cache(maxsize=512)
def nearest(quality: str) -> tuple[str, bool]:
    """(iReal's quality text for the engine's canonical ``quality``, True if it is another
    chord): the same chord when iReal has it, else the nearest by chord tones."""
    wanted = parse("C" + quality)
    for theirs, ours in IREAL_QUALITIES:
        if parse("C" + ours).quality == wanted.quality:
            return theirs, False
    have = frozenset(s % 12 for s in wanted.semitones)

    def cost(row: tuple[str, str]) -> int:
        tones = _tones(row[1])
        return (sum(WEIGHTS.get(t, 1) for t in have - tones)
                + ADDED * sum(WEIGHTS.get(t, 1) for t in tones - have))

    return min(IREAL_QUALITIES, key=cost)[0], True


def ireal_key(name: str) -> str:
    """A key in iReal's list: ``Dm`` -> ``D-``, ``F#`` -> ``Gb``."""
    key = parse_key(name)
    names = MINOR_KEYS if key.mode == "minor" else MAJOR_KEYS
    return names[key.tonic.pc] + ("-" if key.mode == "minor" else "")


def ireal_symbol(symbol: str) -> tuple[str, bool]:
    """(the chord in iReal's spelling, True when its quality had to change)."""
    chord = parse(symbol)
    quality, changed = nearest(chord.quality)
    bass = "" if chord.bass is None else "/" + chord.bass.name
    return chord.root.name + quality + bass, changed


def ireal(comp: Composition) -> tuple[str, list[dict[str, str]]]:
    """The ``irealbook://`` URL and the changes it had to make (``{"from", "to"}``: a key or a
    chord iReal Pro cannot write, and what it wrote instead)."""
    meta = comp["meta"]
    changes: dict[tuple[str, str], None] = {}
    key = ireal_key(meta["key"])
    if parse_key(meta["key"]).tonic.name != key.rstrip("-"):
        changes[(meta["key"], key)] = None
    sections = by_id(comp)
    form = comp["form"]
    music: list[str] = []
    signature = None
    i = 0
    while i < len(form):
        section = sections[form[i]]
        repeat = i + 1 < len(form) and form[i + 1] == form[i]
        last = i + (2 if repeat else 1) >= len(form)
        top_bottom = meter(section.get("timeSignature") or meta["timeSignature"],
                           "timeSignature")
        opening, closing = ("{", "}") if repeat else ("[", "Z" if last else "]")
        head = opening + _mark(section)
        bars, signature_at_end, own = _bars(section, top_bottom, changes)
        # the meter at the start: where it changes, and where a bar of the section takes
        # another (a repeat comes back to the first bar in the section's own)
        if top_bottom != signature or own:
            head += _time(top_bottom)
        signature = signature_at_end
        music.append(head + "|".join(bars) + closing)
        i += 2 if repeat else 1
    composer = " ".join(reversed(meta["composer"].split(" ", 1))) if meta["composer"] else ""
    fields = [meta["title"], composer, STYLES.get(meta["style"], "Medium Swing"), key, "n",
              "".join(music)]
    url = "irealbook://" + urllib.parse.quote("=".join(fields), safe="")
    return url, [{"from": a, "to": b} for a, b in changes]


def _time(top_bottom: tuple[int, int]) -> str:
    if top_bottom not in TIMES:
        raise InvalidRequest(f"iReal Pro has no {top_bottom[0]}/{top_bottom[1]} time signature "
                             f"(it has {', '.join(f'{a}/{b}' for a, b in TIMES)})",
                             field="formats")
    return TIMES[top_bottom]


def _mark(section: dict[str, Any]) -> str:
    """iReal's rehearsal mark: ``*i`` and ``*v`` by the section's name; ``*A``-``*D`` by its
    name when the name is a letter (a corpus chart's sections: ids ``S1``, names ``A``, ``B``),
    else by its id's first letter."""
    name = str(section.get("name") or "").strip().lower()
    for word, mark in MARKS.items():
        if name.startswith(word):
            return "*" + mark
    letter = name[:1].upper() if name.rstrip("0123456789'") in ("a", "b", "c", "d") else \
        str(section["id"])[0].upper()
    return "*" + letter if letter in ("A", "B", "C", "D") else ""


def _bars(section: dict[str, Any], top_bottom: tuple[int, int],
          changes: dict[tuple[str, str], None]
          ) -> tuple[list[str], tuple[int, int], bool]:
    """Each bar's cells: a chord in the cell of its beat (``engine.compose.cells``), blanks
    after it; the meter of the last bar; and whether a bar takes a meter of its own
    (``_crowded``)."""
    cells = top_bottom[0]
    per_bar: list[list[tuple[float, str]]] = [[] for _ in range(section["bars"])]
    for chord in sorted(section["chords"], key=lambda c: (c["bar"], c["beat"])):
        text, changed = ireal_symbol(chord["symbol"])
        if changed:
            changes[(parse(chord["symbol"]).canonical, text)] = None
        per_bar[chord["bar"] - 1].append((float(chord["beat"]), text))
    out: list[str] = []
    sounding: str | None = None
    single = False   # the bar before holds one chord for the whole bar
    own: tuple[int, int] | None = None   # the meter of the bar before, when its own
    any_own = False
    for bar, (chords, placed) in enumerate(zip(per_bar, place(per_bar, [(cells, 1)] * len(
            per_bar)), strict=True), start=1):
        previous = sounding
        width, prefix = cells, ""
        if own is not None:   # back to the section's meter
            prefix, own = _time(top_bottom), None
        if placed is None:
            width, placed = _crowded(chords, top_bottom)
            if placed is None:   # iReal cannot place them: written in equal parts
                changes[(f"{section['id']} bar {bar}: {len(chords)} chords",
                         f"{cells} cells, the chords in equal parts")] = None
                out.append(prefix + ",".join(text for _, text in chords))
                sounding, single = chords[-1][1], False
                continue
            if width != cells:
                own, any_own = (width, top_bottom[1]), True
                prefix = _time(own)
                changes[(f"{section['id']} bar {bar}: {len(placed)} chords in "
                         f"{cells}/{top_bottom[1]}",
                         f"a bar of {width}/{top_bottom[1]}, a chord a beat")] = None
        if not placed:
            out.append(prefix + ("x" if single else (sounding or "n") + " " * (width - 1)))
            continue
        row = [" "] * width
        for cell, text in placed:
            row[cell] = text
        sounding = placed[-1][1]
        single = len(placed) == 1 and row[0] != " "
        if row[0] == " ":   # the bar opens on the chord still sounding (none: N.C.)
            row[0] = previous or "n"
        # A chord right after a chord is parted by a comma (a separator, not a cell).
        out.append(prefix + "".join(
            c + ("," if c != " " and k + 1 < width and row[k + 1] != " " else "")
            for k, c in enumerate(row)))
    return out, own or top_bottom, any_own


def _crowded(chords: list[tuple[float, str]], top_bottom: tuple[int, int]
             ) -> tuple[int, list[tuple[int, str]] | None]:
    """A bar of more chords than its meter has beats, as iReal Pro's own charts write one
    (it plays at most a chord a beat): a chord that repeats the one before it takes no cell;
    if they still do not fit, the bar takes the meter of the same beat with the fewest beats
    that puts every chord on a beat of its own at the same share of the bar (Conference of the
    Birds' ``Dm Dm/C G/B`` at 1, 1.8, 2.2 of a 2/4 bar: a bar of 5/4, on 1, 3 and 4, as its
    iReal chart has it), else the most beats. (The cells, the chords' cells), or (the cells,
    None) when no meter of iReal's has beats enough."""
    beats, bottom = top_bottom
    kept = [c for k, c in enumerate(chords) if k == 0 or c[1] != chords[k - 1][1]]
    if len(kept) <= beats:
        return beats, place([kept], [(beats, 1)])[0]
    tops = sorted(top for top, low in TIMES if low == bottom and top >= len(kept))
    if not tops:
        return beats, None
    for top in tops:
        at = [(b - 1) * top / beats for b, _ in kept]
        if all(abs(a - round(a)) < 0.02 for a in at) and len({round(a) for a in at}) == len(at):
            break
    scaled = [(1 + (b - 1) * top / beats, text) for b, text in kept]
    return top, place([scaled], [(top, 1)])[0]
