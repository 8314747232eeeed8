"""Reading songs from files, every chord through the engine's own parser (``engine.chords``):

- chart text (``.txt``, the layout of jazz-ccp and of the shipped corpus): ``Name = value``
  header lines (``Title``, ``ComposedBy``, ``Key`` or ``DBKeySig``, ``TimeSig``, ``Source``),
  optional ``[A]`` section lines, then bars ended by ``|``, chords separated by spaces, the
  bar's beats shared equally among its chords;
- JSON charts (``.json``, the layout of jazzstandards-ireal): songs with ``Title``,
  ``Composer``, ``Key`` (``Dmin`` is minor), ``TimeSignature`` and ``Sections`` of
  ``MainSegment.Chords`` and ``Endings`` (the main segment played once per ending), or
  ``Repeats`` (a section without endings played ``1 + Repeats`` times): ``|`` bars, ``,``
  slots, an empty slot holds the chord before, ``X(Y)`` is X with an alternate;
- iReal Pro links (``irealb://`` with its obfuscated music string, ``irealbook://``), in a
  text file or in the HTML page of an exported playlist (``ireal``);
- ChordPro (``.cho``, ``.chopro``, ``.chordpro``): ``{title}``, ``{composer}``, ``{key}``,
  ``{time}``, a ``{start_of_grid}`` grid of ``|`` bars, or chords in brackets in lyric lines.

A bad file, song or chord is reported (file, song, bar, symbol) and skipped; the rest loads.
Every reader is linear in its input (no backtracking regular expression meets a line of the
user's whole; ids are numbered with a counter per title), and a file that cannot be read
whatever the reason (JSON nested 100,000 deep, a song longer than the index can number) is
skipped with that reason: an import, and a worker reading ``HARMONY_CORPUS``, never aborts.
"""

from __future__ import annotations

import html
import json
import re
import unicodedata
import urllib.parse
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from engine.corpus.ireal import ireal_songs
from engine.corpus.songs import Chords, Problems, Section, Song
from engine.errors import HarmonyError

NO_CHORD = frozenset({"NC", "N.C.", "N.C", "n.c.", "nc"})
# The index numbers a song's bars and sections in 16 bits (``tokens.Stream``).
MAX_BARS = MAX_SECTIONS = (1 << 15) - 1
MAX_REPEATS = 8          # a JSON chart's "Repeats": more is a hostile file, not a form
SUFFIXES = {".txt": "chart", ".json": "json", ".cho": "chordpro", ".chopro": "chordpro",
            ".chordpro": "chordpro", ".crd": "chordpro", ".html": "ireal", ".htm": "ireal",
            ".ireal": "ireal", ".url": "ireal"}


def load_paths(paths: Iterable[str | Path], table: Chords | None = None
               ) -> tuple[list[Song], Problems]:
    """Every song of the files and folders (searched recursively, by suffix) in ``paths``, their
    chords numbered in ``table`` (a new one when None: one a load, shared by its songs)."""
    table = Chords() if table is None else table
    songs: list[Song] = []
    problems = Problems()
    for path in _files(paths, problems):
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            text = path.read_text(encoding="latin-1")
        except OSError as e:
            problems.add(str(path), f"cannot read: {e.strerror}")
            continue
        kind = SUFFIXES.get(path.suffix.lower(), "chart")
        if "irealb://" in text or "irealbook://" in text:
            kind = "ireal"
        found = len(problems.items)
        try:
            songs.extend(load_text(text, kind, str(path), problems, table))
        except (RecursionError, MemoryError, ValueError, TypeError, KeyError, IndexError,
                AttributeError, OverflowError) as e:
            # whatever a hostile file does to a reader, the import goes on without it
            del problems.items[found:]
            problems.add(str(path), f"cannot read this file ({type(e).__name__}: "
                                    f"{' '.join(str(e).split())[:120]}); skipped")
    return songs, problems


def _files(paths: Iterable[str | Path], problems: Problems) -> Iterator[Path]:
    for given in paths:
        path = Path(given).expanduser()
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*")
                              if p.is_file() and p.suffix.lower() in SUFFIXES)
        elif path.is_file():
            yield path
        else:
            problems.add(str(path), "no such file or folder")


def load_text(text: str, kind: str, name: str, problems: Problems,
              table: Chords | None = None) -> list[Song]:
    reader = {"chart": _chart, "json": _json, "ireal": _ireal, "chordpro": _chordpro}[kind]
    return reader(text, name, problems, Chords() if table is None else table)


class _Builder:
    """Collects one song's chords as columns (numbers in the load's ``Chords``, bars, beats),
    reporting the ones that do not parse."""

    def __init__(self, file: str, title: str, problems: Problems, table: Chords) -> None:
        self.file, self.title, self.problems, self.table = file, title, problems, table
        self.sections: list[Section] = []
        self.name = "A"
        self.numbers: list[int] = []
        self.bars: list[int] = []
        self.beats: list[float] = []

    def section(self, name: str) -> None:
        self.close()
        self.name = name or f"{len(self.sections) + 1}"

    def add(self, symbol: str, bar: int, beat: float) -> None:
        symbol = symbol.strip()
        if not symbol or symbol in NO_CHORD:
            return
        try:
            number = self.table.number(symbol)
        except HarmonyError as e:
            self.problems.add(self.file, e.message, self.title, bar, symbol)
            return
        self.numbers.append(number)
        self.bars.append(bar)
        self.beats.append(round(beat, 3))

    def close(self) -> None:
        if self.numbers:
            self.sections.append(Section.of(self.name, self.table, self.numbers, self.bars,
                                            self.beats))
        self.numbers, self.bars, self.beats = [], [], []

    def song(self, id_: str, composer: str, key: object, source: str,
             note: str = "") -> Song | None:
        self.close()
        if not self.sections:
            self.problems.add(self.file, "no chords", self.title)
            return None
        bars = max(int(s.columns[1].max()) for s in self.sections)
        if bars > MAX_BARS or len(self.sections) > MAX_SECTIONS:
            self.problems.add(self.file, f"{bars:,} bars in {len(self.sections):,} sections; a "
                                         f"song has at most {MAX_BARS:,} of each", self.title)
            return None
        if key is not None and not isinstance(key, str):
            self.problems.add(self.file, f"the key {key!r} is not text (e.g. 'F', 'Dmin'); "
                                         "the song is read without one", self.title)
            key = None
        return Song(id_, self.title, composer, key, source, tuple(self.sections), note)


def _slots(bar: str, sep: str | None) -> list[str]:
    return [s for s in bar.split(sep)] if sep else bar.split()


class _Taken:
    """The song ids given in one file, and per id the last number given to it: numbering
    goes on from there, not from 2 again (30,000 songs of one title were quadratic: 89 s)."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.last: dict[str, int] = {}


def _song_id(file: str, title: str, taken: _Taken) -> str:
    """``file-stem:title-slug``, numbered from 2 when a file holds the title twice."""
    slug = re.sub(r"[^a-z0-9]+", "-", fold_title(title)).strip("-") or "song"
    base = f"{Path(file).stem}:{slug}"
    n = taken.last.get(base, 1)
    name = base if n == 1 else f"{base}-{n}"
    while name in taken.names:
        n += 1
        name = f"{base}-{n}"
    taken.last[base] = n
    taken.names.add(name)
    return name


def fold_title(text: str) -> str:
    if text.isascii():     # nothing to decompose: the same string, without a pass a letter
        return text.casefold()
    return "".join(c for c in unicodedata.normalize("NFKD", text.casefold())
                   if not unicodedata.combining(c))


# ------------------------------------------------------------------ chart text


def _chart(text: str, name: str, problems: Problems, table: Chords) -> list[Song]:
    header: dict[str, str] = {}
    title = Path(name).stem
    beats = 4
    builder: _Builder | None = None
    bar = 0
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if "=" in stripped and "|" not in stripped:
            field, _, value = stripped.partition("=")
            header[field.replace(" ", "").lower()] = value.strip()
            continue
        if builder is None:
            title = header.get("title") or header.get("mptitle") or title
            time = header.get("timesig", "4 4").split()
            beats = int(time[0]) if time and time[0].isdigit() and int(time[0]) > 0 else 4
            builder = _Builder(name, title, problems, table)
        if stripped.startswith("[") and stripped.endswith("]"):
            builder.section(stripped[1:-1].strip())
            continue
        for cell in stripped.split("|")[:-1] if stripped.endswith("|") else stripped.split("|"):
            if not cell.strip():
                continue
            bar += 1
            slots = cell.split()
            for i, symbol in enumerate(slots):
                builder.add(symbol, bar, 1 + i * beats / len(slots))
    if builder is None:
        problems.add(name, "no bars", title)
        return []
    key = header.get("key") or header.get("dbkeysig")
    song = builder.song(Path(name).stem, header.get("composedby", ""), key,
                        header.get("source", Path(name).name), header.get("note", ""))
    return [song] if song else []


# ------------------------------------------------------------------ JSON charts

_ITEM = re.compile(r"([^()]*)(?:\(([^()]*)\))?")


def _json(text: str, name: str, problems: Problems, table: Chords) -> list[Song]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        problems.add(name, f"not JSON: {e.msg} at line {e.lineno}")
        return []
    items = data if isinstance(data, list) else [data]
    songs: list[Song] = []
    taken = _Taken()
    for index, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("Sections"), list):
            problems.add(name, "not a chart (needs Title and Sections)",
                         str(item.get("Title")) if isinstance(item, dict) else None)
            continue
        song = _json_song(item, name, index, problems, taken, table)
        if song is not None:
            songs.append(song)
    return songs


def _json_song(item: dict[str, Any], name: str, index: int, problems: Problems,
               taken: _Taken, table: Chords) -> Song | None:
    title = str(item.get("Title") or f"song {index + 1}")
    builder = _Builder(name, title, problems, table)
    time = str(item.get("TimeSignature") or "4/4").partition("/")[0]
    beats = int(time) if time.isdigit() and int(time) > 0 else 4
    bar = 0
    try:
        for section in item["Sections"]:
            builder.section(str(section.get("Label") or ""))
            main = section["MainSegment"]["Chords"]
            endings = [e["Chords"] for e in section.get("Endings") or []]
            for part in ([main + "|" + e for e in endings] if endings
                         else [main] * (1 + _repeats(section.get("Repeats")))):
                for cell in part.split("|"):
                    bar += 1
                    slots = cell.split(",")
                    for i, slot in enumerate(slots):
                        m = _ITEM.fullmatch(slot.strip())
                        chord = m.group(1) if m else slot
                        builder.add(chord, bar, 1 + i * beats / len(slots))
    except (KeyError, TypeError, AttributeError):
        problems.add(name, "a section without MainSegment.Chords", title)
        return None
    return builder.song(_song_id(name, title, taken), str(item.get("Composer") or ""),
                        item.get("Key"), Path(name).name)


def _repeats(value: object) -> int:
    """How many more times a section without endings is played (``"Repeats": 1``: twice, as
    the iReal reader plays a ``{ }`` repeat); at most a few, whatever the file says."""
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        return 0
    return min(value, MAX_REPEATS)


# ------------------------------------------------------------------ iReal Pro

_LINK = re.compile(r"irealb(?:ook)?://[^\s\"'<>]+")


def _ireal(text: str, name: str, problems: Problems, table: Chords) -> list[Song]:
    songs: list[Song] = []
    taken = _Taken()
    links = _LINK.findall(html.unescape(text))
    if not links:
        problems.add(name, "no irealb:// or irealbook:// link")
    for link in links:
        for tune in ireal_songs(urllib.parse.unquote(link), name, problems):
            builder = _Builder(name, tune.title, problems, table)
            for section, bars in tune.sections:
                builder.section(section)
                for bar, slots in bars:
                    for symbol, beat in slots:
                        if symbol:
                            builder.add(symbol, bar, beat)
            song = builder.song(_song_id(name, tune.title, taken),
                                tune.composer, tune.key, Path(name).name)
            if song:
                songs.append(song)
    return songs


# ------------------------------------------------------------------ ChordPro

_NAME = re.compile(r"[a-z_]+", re.IGNORECASE)
_ALIASES = {"t": "title", "st": "subtitle", "sog": "start_of_grid", "eog": "end_of_grid",
            "soc": "start_of_chorus", "eoc": "end_of_chorus", "sov": "start_of_verse",
            "eov": "end_of_verse", "c": "comment"}


def _chordpro(text: str, name: str, problems: Problems, table: Chords) -> list[Song]:
    meta: dict[str, str] = {}
    builder = _Builder(name, Path(name).stem, problems, table)
    grid, bar, beats = False, 0, 4
    for line in text.splitlines():
        stripped = line.strip()
        m = _directive(stripped)
        if m:
            directive = _ALIASES.get(m[0].lower(), m[0].lower())
            value = m[1]
            if directive in ("title", "composer", "key", "artist"):
                meta.setdefault(directive, value)
                if directive == "title":
                    builder.title = value
            elif directive == "time":
                top = value.partition("/")[0].strip()
                beats = int(top) if top.isdigit() and int(top) > 0 else 4
            elif directive.startswith("start_of_"):
                grid = directive == "start_of_grid"
                builder.section(value or directive[len("start_of_"):])
            elif directive.startswith("end_of_"):
                grid = False
            continue
        if grid:
            for cell in stripped.split("|"):
                slots = [s for s in cell.split() if s]
                if not slots:
                    continue
                bar += 1
                for i, symbol in enumerate(slots):
                    if symbol not in (".", "/", "%"):
                        builder.add(symbol, bar, 1 + i * beats / len(slots))
        elif "[" in stripped:
            chords = _inline(stripped)
            if chords:
                bar += 1
                for i, symbol in enumerate(chords):
                    builder.add(symbol, bar, 1 + i * beats / len(chords))
    song = builder.song(_song_id(name, builder.title, _Taken()),
                        meta.get("composer") or meta.get("artist", ""), meta.get("key"),
                        Path(name).name)
    return [song] if song else []


def _directive(line: str) -> tuple[str, str] | None:
    """``{name}`` or ``{name: value}`` -> (name, value stripped), else None. Read by hand: the
    regular expression it replaces (``\\{\\s*([a-z_]+)\\s*(?::\\s*(.*?))?\\s*\\}$``)
    backtracked cubically on ``{title:`` and spaces without a closing brace (4 KB: 32 s)."""
    if len(line) < 2 or line[0] != "{" or line[-1] != "}":
        return None
    name, colon, value = line[1:-1].partition(":")
    name = name.strip()
    if not _NAME.fullmatch(name):
        return None
    return name, value.strip() if colon else ""


def _inline(line: str) -> list[str]:
    """The chords in brackets of a lyric line (``[C]la [G7]la``): what ``\\[([^\\]]+)\\]``
    finds, found with ``str.find``: that expression tried every ``[`` against the rest of the
    line, quadratic in a line of unclosed brackets."""
    found: list[str] = []
    at = line.find("[")
    while at >= 0:
        close = line.find("]", at + 1)
        if close < 0:
            break
        if close > at + 1:
            found.append(line[at + 1:close])
            at = line.find("[", close + 1)
        else:
            at = line.find("[", at + 1)
    return found
