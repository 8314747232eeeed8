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
"""

from __future__ import annotations

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
_CHORD = re.compile(r"([A-GW][b#]?)([^\s,|\[\]{}()<>*/]*)(?:/([A-G][b#]?))?")
_SKIP = set("YUSQfls,")


@dataclass
class Tune:
    title: str
    composer: str
    key: str | None
    beats: int
    sections: list[tuple[str, list[tuple[int, list[str]]]]]


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
    """Each span from ``opening`` to the next ``closing`` replaced by a space: what
    ``re.sub("<[^>]*>", " ", music)`` did, found with ``str.find`` (that expression tried every
    unclosed ``<`` against the rest of the string: quadratic)."""
    out: list[str] = []
    done = 0
    at = music.find(opening)
    while at >= 0:
        end = music.find(closing, at + 1)
        if end < 0:
            break
        out += (music[done:at], " ")
        done = end + 1
        at = music.find(opening, done)
    out.append(music[done:])
    return "".join(out)


def _tune(title: str, composer: str, key: str | None, music: str) -> Tune:
    for a, b in _REPLACE:
        music = music.replace(a, b)
    music = _cut(_cut(music, "<", ">"), "(", ")")
    sections: list[tuple[str, list[tuple[int, list[str]]]]] = [("A", [])]
    beats, bar_number, current, previous_bars = 4, 0, [], []  # type: ignore[var-annotated]
    last_chord: str | None = None
    repeat_from: int | None = None   # bars of the current section where a '{' opened
    endings = False
    i = 0

    def close_bar() -> None:
        nonlocal bar_number, current
        if current:
            bar_number += 1
            sections[-1][1].append((bar_number, current))
            previous_bars.append(current)
        current = []

    while i < len(music):
        c = music[i]
        if c == "*" and i + 1 < len(music):
            close_bar()
            name = music[i + 1]
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
                    current = list(bar)
                    close_bar()
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
                current = list(previous_bars[-1])
            i += 1
        elif c == "r":
            close_bar()
            for repeated in previous_bars[-2:]:
                current = list(repeated)
                close_bar()
            i += 1
        elif c == "n":
            current.append("")
            i += 1
        elif c == "p":
            current.append(last_chord or "")
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
            current.append(symbol)
            last_chord = symbol
            i = m.end()
    close_bar()
    return Tune(title, composer, key, beats, [s for s in sections if s[1]])
