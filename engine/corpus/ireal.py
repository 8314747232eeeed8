"""iReal Pro links: ``irealbook://`` (plain) and ``irealb://`` (the music string obfuscated),
decoded as the format is documented by iReal Pro's developers and the open readers of it.

A link holds songs separated by ``===`` (the last item of a playlist is its name); a song's
fields are separated by ``=``: title, composer, (unused), style, key, (transpose), music, ...
In ``irealb://`` the music string starts with ``1r34LbKcu7`` and every 50-character block but
the last is scrambled (``unscramble``). Its tokens: ``*A`` section marks, ``T44`` time
signatures, bar lines ``| [ ] { } Z``, chords (iReal spelling, ``QUALITIES``), ``x`` repeat the
bar, ``r`` the two bars, ``n`` no chord, ``p`` repeat the chord, ``(...)`` alternates,
``<...>`` staff text, ``{ }`` a repeat (its bars played twice; with ``N1``/``N2`` endings they
are read as written), and layout marks that carry no harmony.

A bar is a row of cells: a chord, ``n`` or ``W`` takes one, and each blank (a space; ``XyQ`` is
three) after it lengthens it by one; a comma parts two chords without a cell. A chord lasts
1 + its blanks, the lengths then fitted to the bar's beats as iReal's open reader
(ireal-musicxml) does: blanks taken off the chords in turn from the first while the bar is too
long, added to them in turn while it is too short. So ``C7  G7`` in 4/4 is C7 on beat 1 and G7
on beat 4, and ``C7 G7`` two beats each.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from engine.corpus.songs import Problems

MUSIC_PREFIX = "1r34LbKcu7"
# iReal's quality spellings -> the engine's, longest first (the rest of the text is kept).
QUALITIES = (("-^7", "mmaj7"), ("-^9", "mmaj9"), ("-^", "mmaj7"), ("^13", "maj13"),
             ("^9", "maj9"), ("^7#11", "maj7#11"), ("^7", "maj7"), ("^", "maj7"),
             ("h7", "m7b5"), ("h9", "m9b5"), ("h", "m7b5"), ("o7", "dim7"), ("o", "dim"),
             ("-", "m"))
_REPLACE = (("XyQ", "   "), ("LZ", " |"), ("Kcl", "| x"))
_CHORD = re.compile(r"([A-GW][b#]?)([^\s,|\[\]{}()<>*/Z]*)(?:/([A-G][b#]?))?")
_SKIP = set("YUSQfls,")


@dataclass
class Tune:
    """``sections``: (name, [(bar, [(symbol, beat)])]), a symbol "" for no chord, beats
    1-based."""

    title: str
    composer: str
    key: str | None
    beats: int
    sections: list[tuple[str, list[tuple[int, list[tuple[str, float]]]]]]


def fit(lengths: list[int], beats: int) -> list[float]:
    """The beats (1-based) of chords taking ``lengths`` cells in a bar of ``beats``: the
    lengths fitted to the bar as ireal-musicxml fits them (blanks taken off, or added, one
    chord at a time from the first); more chords than beats share the bar equally."""
    if not lengths:
        return []
    if len(lengths) > beats:
        return [1 + i * beats / len(lengths) for i in range(len(lengths))]
    lengths = list(lengths)
    total, i = sum(lengths), 0
    while total > beats:
        if lengths[i] > 1:
            lengths[i] -= 1
            total -= 1
        i = (i + 1) % len(lengths)
    while total < beats:
        lengths[i] += 1
        total += 1
        i = (i + 1) % len(lengths)
    out, at = [], 1.0
    for length in lengths:
        out.append(at)
        at += length
    return out


def unscramble(music: str) -> str:
    """Undo ``irealb://``'s scrambling of each full 50-character block (not the last one)."""
    out = []
    while len(music) > 50:
        block, music = music[:50], music[50:]
        out.append(block if len(music) < 2 else _obfusc50(block))
    out.append(music)
    return "".join(out)


def _obfusc50(block: str) -> str:
    chars = list(block)
    for i in range(5):
        chars[49 - i], chars[i] = block[i], block[49 - i]
    for i in range(10, 24):
        chars[49 - i], chars[i] = block[i], block[49 - i]
    return "".join(chars)


def to_symbol(root: str, quality: str, bass: str | None) -> str:
    """An iReal chord as the engine's symbol (``C^7`` -> ``Cmaj7``, ``Bh7/F`` -> ``Bm7b5/F``)."""
    for theirs, ours in QUALITIES:
        if quality.startswith(theirs):
            quality = ours + quality[len(theirs):]
            break
    return root + quality + (f"/{bass}" if bass else "")


def ireal_songs(link: str, file: str, problems: Problems) -> Iterator[Tune]:
    scheme, _, body = link.partition("://")
    items = body.split("===")
    if scheme == "irealb" and len(items) > 1 and "=" not in items[-1]:
        items = items[:-1]  # the playlist's name
    for item in items:
        if not item.strip():
            continue
        fields = item.split("=")
        title = fields[0] or "untitled"
        music = next((f for f in fields if f.startswith(MUSIC_PREFIX)), None)
        if music is not None:
            music = unscramble(music[len(MUSIC_PREFIX):])
        elif len(fields) > 5:
            music = max(fields[5:], key=lambda f: f.count("|"))
        if not music:
            problems.add(file, "no music string in the iReal link", title)
            continue
        key = fields[4] if len(fields) > 4 and scheme == "irealb" else (
            fields[3] if len(fields) > 3 else None)
        composer = " ".join(reversed(fields[1].split(" ", 1))) if len(fields) > 1 else ""
        yield _tune(title, composer, key or None, music)


def _cut(music: str, opening: str, closing: str) -> str:
    """Each span from ``opening`` to the next ``closing`` replaced by a comma (it parts what
    is either side of it without taking a cell of the bar), found with ``str.find`` (as
    ``re.sub("<[^>]*>", ",", music)`` would: that expression tried every
    unclosed ``<`` against the rest of the string: quadratic)."""
    out: list[str] = []
    done = 0
    at = music.find(opening)
    while at >= 0:
        end = music.find(closing, at + 1)
        if end < 0:
            break
        out += (music[done:at], ",")
        done = end + 1
        at = music.find(opening, done)
    out.append(music[done:])
    return "".join(out)


def _tune(title: str, composer: str, key: str | None, music: str) -> Tune:
    for a, b in _REPLACE:
        music = music.replace(a, b)
    music = _cut(_cut(music, "<", ">"), "(", ")")
    sections: list[tuple[str, list[tuple[int, list[tuple[str, float]]]]]] = [("A", [])]
    beats, bar_number = 4, 0
    current: list[str] = []          # the bar's chords ("" for no chord)
    cells: list[int] = []            # the cells each takes
    previous_bars: list[list[tuple[str, float]]] = []
    last_chord: str | None = None
    repeat_from: int | None = None   # bars of the current section where a '{' opened
    endings = False
    i = 0

    def close_bar() -> None:
        nonlocal bar_number, current, cells
        if current:
            bar_number += 1
            placed = list(zip(current, fit(cells, beats), strict=True))
            sections[-1][1].append((bar_number, placed))
            previous_bars.append(placed)
        current, cells = [], []

    def repeat(bar: list[tuple[str, float]]) -> None:
        nonlocal current, cells
        current = [symbol for symbol, _ in bar]
        starts = [beat for _, beat in bar] + [beats + 1.0]
        cells = [max(1, round(b - a)) for a, b in itertools.pairwise(starts)]
        close_bar()

    def chord(symbol: str) -> None:
        current.append(symbol)
        cells.append(1)

    while i < len(music):
        c = music[i]
        if c == "*" and i + 1 < len(music):
            close_bar()
            name = music[i + 1]
            if repeat_from is not None and repeat_from == len(sections[-1][1]):
                repeat_from = 0   # "{*A": the repeat opens with the new section
            sections.append(({"i": "Intro", "v": "Verse"}.get(name, name), []))
            i += 2
        elif c == "T" and music[i + 1: i + 3].isdigit():
            top = int(music[i + 1])
            beats = 12 if music[i + 1: i + 3] == "12" else top
            i += 3
        elif c == "{":
            close_bar()
            repeat_from, endings = len(sections[-1][1]), False
            i += 1
        elif c == "}":
            close_bar()
            if repeat_from is not None and not endings:  # a plain repeat: play it again
                for _, bar in list(sections[-1][1][repeat_from:]):
                    repeat(bar)
            repeat_from = None
            i += 1
        elif c in "|[]Z":
            close_bar()
            i += 1
        elif c == "N" and music[i + 1: i + 2].isdigit():
            endings = True  # first and second endings: the bars are read as written
            i += 2
        elif c == "x":
            close_bar()
            if previous_bars:
                repeat(previous_bars[-1])
            i += 1
        elif c == "r":
            close_bar()
            for repeated in previous_bars[-2:]:
                repeat(repeated)
            i += 1
        elif c == "n":
            chord("")
            i += 1
        elif c == "p":   # a slash: the chord before goes on (a new bar: it is played again)
            if cells:
                cells[-1] += 1
            else:
                chord(last_chord or "")
            i += 1
        elif c == " ":
            if cells:
                cells[-1] += 1
            i += 1
        elif c in _SKIP or c.isspace():
            i += 1
        else:
            m = _CHORD.match(music, i)
            if m is None:
                i += 1
                continue
            root, quality, bass = m.groups()
            if root == "W":  # an invisible root: the chord before, with a new bass
                symbol = (last_chord or "").split("/")[0] + (f"/{bass}" if bass else "")
            else:
                symbol = to_symbol(root, quality, bass)
            chord(symbol)
            last_chord = symbol
            i = m.end()
    close_bar()
    return Tune(title, composer, key, beats, [s for s in sections if s[1]])
