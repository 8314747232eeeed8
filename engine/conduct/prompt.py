"""Reading a plain-English direction into a plan.

The vocabulary is a set of tables: each entry is a regular expression and what it means.
Every word that chose something is listed in ``Plan.understood`` (word, what it chose); a word
the tables know but the band cannot play as asked (a style without a groove of its own, an
instrument without a lane) is listed in ``Plan.approximated`` with what is played instead.
Other words are ignored.

Defaults (documented in the README):
- style ``swing``; a meter of 3/4 with no style word gives ``jazz_waltz``; a mode word with no
  style word gives ``modal_vamp``;
- tempo: the style's own tempo (``STYLE_TEMPO``), or a tempo word, or ``N bpm`` (quarter notes
  per minute, clamped to 30..320);
- key: ``in X`` / ``key of X`` (any case), else a capital tonic followed by a mode word, a glued
  ``m``/``-``, or a style or form word (a bare ``A`` before a style word is the article);
  C major when none; a mode word without a tonic takes the mode's white-key tonic (D dorian,
  E phrygian, F lydian, G mixolydian, A aeolian, B locrian); ``minor blues`` without a key is in
  C minor;
- meter: the style's own (3/4 for a jazz waltz, 4/4 otherwise); ``3/4`` ``6/8`` ``waltz`` win;
- form: the style's own form for the mode (``forms.DEFAULT_FORM``); ``N bars`` sets the length;
- energy: ``medium``; bass: the style's own approach unless ``walking``/``two-feel``/``pedal``;
- ending: a user's progression ends on the home tonic (``engine.conduct.endings``) unless the
  words ask for a vamp or a loop (``LOOP_WORDS``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.chords import Spelled, parse_spelled

MIN_TEMPO = 30.0
MAX_TEMPO = 320.0
MAX_BARS = 512

# (pattern, style id) — the phrase that starts first wins (a tie: the earlier row), so
# longer phrases come first.
STYLE_WORDS: tuple[tuple[str, str], ...] = (
    (r"jazz[ -]?waltz", "jazz_waltz"),
    (r"bossa(?:[ -]?nova)?", "bossa_nova"),
    (r"afro[ -]?cuban (?:in )?(?:6/8|12/8)|(?:6/8|12/8) afro[ -]?cuban|bemb[eé]", "afro_cuban_6_8"),
    (r"rumba(?: clave)?|guaguanc[oó]", "rumba"),
    (r"son[ -]montuno|(?:piano )?montuno|salsa|mambo|guaracha|son clave|clave|"
     r"afro[ -]?cuban|cuban", "son_montuno"),
    (r"reggae|one[ -]drop", "reggae"),
    (r"hip[ -]?hop|boom[ -]?bap", "hip_hop"),
    (r"second[ -]line|new orleans|street beat|brass band", "second_line"),
    (r"stride(?: piano)?", "stride"),
    (r"shuffle", "shuffle_blues"),
    (r"modal(?:[ -]?vamp)?", "modal_vamp"),
    (r"samba", "samba"),
    (r"funk(?:y)?", "funk"),
    (r"gospel|church", "gospel"),
    (r"rock|pop|straight[ -]?eights?", "rock_pop"),
    (r"ballad", "ballad"),
    (r"swing(?:ing)?|bebop|bop|hard[ -]?bop", "swing"),
    (r"waltz", "jazz_waltz"),
)
# A word that names a family, read only when no style word above is there ("latin montuno"
# is a son montuno, "latin" alone a samba).
FAMILY_WORDS: tuple[tuple[str, str], ...] = ((r"latin", "samba"),)
# Styles the band knows by name but has no groove of its own for: (pattern, the style played
# instead, why) — said in ``approximated``.
APPROXIMATE_STYLES: tuple[tuple[str, str, str], ...] = (
    (r"ska|rocksteady", "reggae", "played as reggae one-drop (no ska groove)"),
    (r"ragtime", "stride", "played as stride piano (no ragtime groove)"),
    (r"cha[ -]?cha(?:[ -]?cha)?", "son_montuno", "played as son montuno (no cha-cha-chá)"),
    (r"bolero", "ballad", "played as a ballad (no bolero groove)"),
    (r"dixieland|trad(?:itional)? jazz|march", "second_line",
     "played as a New Orleans second line"),
    (r"trap|drill|lo[ -]?fi", "hip_hop", "played as hip-hop (boom bap)"),
    (r"disco|house|techno|drum (?:and|n|&) bass|edm", "funk", "played as funk"),
    (r"calypso|soca|baião|baiao", "samba", "played as samba"),
    (r"tango|country|bluegrass|metal|punk|polka", "rock_pop", "played as straight rock/pop"),
)
# Instruments the direction may name: (pattern, lane, GM program, name). ``drums`` with
# program 40 is the brush kit (and its brush pattern).
INSTRUMENT_WORDS: tuple[tuple[str, str, int, str], ...] = (
    (r"brush(?:es)?", "drums", 40, "Brush kit"),
    (r"slap(?:[ -]?bass)?|slapped bass", "bass", 36, "Slap Bass"),
    (r"fretless(?: bass)?", "bass", 35, "Fretless Bass"),
    (r"synth(?:esizer)?[ -]?bass|808", "bass", 38, "Synth Bass"),
    (r"upright bass|acoustic bass|double bass", "bass", 32, "Acoustic Bass"),
    (r"electric bass|bass guitar", "bass", 33, "Electric Bass"),
    (r"organ|hammond|b-?3", "harmony", 16, "Organ"),
    (r"rhodes|electric piano|wurlitzer", "harmony", 4, "Electric Piano"),
    (r"vibes|vibraphone", "pattern", 11, "Vibraphone"),
    (r"nylon(?:[ -]string)? guitar|classical guitar", "pattern", 24, "Nylon Guitar"),
)
# Instruments the band has no lane for: said in ``approximated``.
MISSING_INSTRUMENTS = (r"trumpets?|sax(?:ophone)?s?|horns?|flutes?|clarinets?|vocals?|"
                       r"singers?|strings|violins?|cellos?|melody|lead line")
CLAVE_WORDS: tuple[tuple[str, int], ...] = ((r"2[ -:]3", 1), (r"3[ -:]2", 0))

# The style's own tempo, quarter notes per minute.
STYLE_TEMPO: dict[str, float] = {
    "swing": 140, "bossa_nova": 132, "ballad": 66, "jazz_waltz": 150, "funk": 100,
    "samba": 104, "shuffle_blues": 112, "rock_pop": 116, "gospel": 84, "modal_vamp": 132,
    "son_montuno": 184, "rumba": 112, "afro_cuban_6_8": 112, "reggae": 76, "hip_hop": 90,
    "second_line": 104, "stride": 168,
}

# Tempo words: (pattern, tempo, (slowest, fastest)) in quarter notes a minute, the range as
# musicians use the word; a duration may move the tempo within 10 % of the range
# (``TEMPO_SLACK``), never outside it.
TEMPO_WORDS: tuple[tuple[str, float, tuple[float, float]], ...] = (
    (r"very slow", 54, (40, 60)), (r"medium[ -]slow", 96, (80, 108)),
    (r"medium[ -]up", 172, (152, 200)), (r"up[ -]?tempo|burning|very fast", 232, (200, 300)),
    (r"slow", 66, (50, 80)), (r"fast|quick|bright", 208, (180, 250)),
    (r"medium|moderate", 126, (100, 150)),
)
TEMPO_SLACK = 0.10

# Energy words: (pattern, base level 0..1, builds towards the end).
ENERGY_WORDS: tuple[tuple[str, float | None, bool], ...] = (
    (r"build(?:s|ing)?|crescendo|grow(?:s|ing)?", None, True),
    (r"intense|driving|energetic|hot|aggressive|loud", 0.85, False),
    (r"sparse|minimal|quiet|soft|gentle|delicate", 0.3, False),
    (r"laid[ -]?back|relaxed|mellow|easy|chill", 0.45, False),
)
DEFAULT_ENERGY = 0.6
# Styles in a meter of their own when the words name none, and those played in clave.
STYLE_METER: dict[str, tuple[int, int]] = {"afro_cuban_6_8": (12, 8)}
CLAVE_STYLES = frozenset({"son_montuno", "rumba", "second_line"})

BASS_WORDS: tuple[tuple[str, str], ...] = (
    (r"walking|walks?", "walk"), (r"two[ -]?feel|in two|half[ -]notes?", "two"),
    (r"pedal|drone", "pedal"),
)

MODE_WORDS: tuple[tuple[str, str], ...] = (
    (r"dorian", "dorian"), (r"phrygian", "phrygian"), (r"lydian", "lydian"),
    (r"mixolydian", "mixolydian"), (r"aeolian", "aeolian"), (r"locrian", "locrian"),
)
MODE_TONIC: dict[str, str] = {"dorian": "D", "phrygian": "E", "lydian": "F",
                              "mixolydian": "G", "aeolian": "A", "locrian": "B"}

FORM_WORDS: tuple[tuple[str, str], ...] = (
    (r"minor blues", "minor_blues"), (r"rhythm changes", "rhythm_changes"),
    (r"aaba|32[ -]bar (?:song )?form|song form|standard", "aaba"),
    (r"ii[ -]v[ -]i|2[ -]5[ -]1|two[ -]five[ -]one", "ii_v_i"),
    (r"turnaround", "turnaround"), (r"vamp", "vamp"), (r"blues", "blues"),
)

# Words that ask for an open end: the progression plays on as written, with no added ending.
LOOP_WORDS = r"vamps?|vamping|loops?|looped|looping|on repeat|no ending|open[ -]ended"

_ACC = r"(#|♯|b|♭|-flat| flat|-sharp| sharp)?"
_MODE_WORD = r"(?i:major|minor|min|maj|" + "|".join(MODE_TONIC) + r")"
# A mode after a tonic: a word (any case, a space allowed), or a glued mark as in key names:
# "Cm", "C-" minor, "CM" major (one-letter marks are case sensitive, as in engine.chords.keys).
_MODE_NAMES = r"(?:\s*(" + _MODE_WORD + r")|(m|M|-))"
_MODE_AFTER_IN = r"(?:\s*(" + _MODE_WORD + r")|\s*(m|M|-))"    # "in the key of C m"
_END = r"(?![\w#♯♭])"
_TONIC = r"([A-G])" + _ACC
# "in F", "In Bb minor", "in E-flat", "in Bb-", "key of F#": the tonic letter is a capital (so
# "in a minute" is no key) unless it follows "key of".
_KEY_RE = re.compile(r"(?i:\bin|\bkey of)\s+" + _TONIC + _MODE_AFTER_IN + "?" + _END)
_KEY_OF_RE = re.compile(r"\bkey of\s+([a-gA-G])" + _ACC + _MODE_AFTER_IN + "?" + _END, re.I)
# Anywhere: a capital tonic with a mode ("D minor ballad", "Ab major", "E Phrygian", "Bb-"),
# or directly followed by a style or form word ("F blues", "Eb bossa"). A bare capital "A"
# before a style word is the article ("A ballad in F") and "Am" a verb: there "A" needs an
# accidental or a mode word ("A minor blues", "Ab blues").
_TONIC_MODE_RE = re.compile(r"(?<![\w#♯♭-])" + _TONIC + _MODE_NAMES + _END)
_TONIC_STYLE_RE = re.compile(
    r"(?<![\w#♯♭-])" + _TONIC + r"\s+(?i:" + "|".join(p for p, _ in STYLE_WORDS + FORM_WORDS)
    + r")\b")
_BPM_RE = re.compile(r"(\d{2,3}(?:\.\d+)?)\s*(?:bpm|beats per minute)\b|"
                     r"\b(?:tempo|at)\s*(?:=|of)?\s*(\d{2,3})\b(?!\s*bars?)", re.I)
_METER_RE = re.compile(r"\b(\d{1,2})/(2|4|8)\b")
_BARS_RE = re.compile(r"\b(\d{1,3})[ -]?(?:bars?|measures?)\b", re.I)
_ACC_VALUE = {"#": 1, "♯": 1, "-sharp": 1, " sharp": 1, "b": -1, "♭": -1, "-flat": -1,
              " flat": -1}


@dataclass(frozen=True, slots=True)
class Plan:
    """What the direction asks for; None where the words said nothing."""

    style: str
    style_given: bool
    tempo: float
    tempo_given: bool
    tonic: Spelled
    mode: str                      # major, minor, dorian, phrygian, lydian, mixolydian, ...
    key_given: bool
    mode_given: bool               # a mode word was read (with or without a tonic)
    meter: tuple[int, int]
    form: str | None
    bars: int | None
    energy: float
    builds: bool
    bass: str | None               # walk, two, pedal or None for the style's own
    loop: bool = False             # a vamp or a loop was asked for: no added ending
    tempo_range: tuple[float, float] | None = None   # a tempo word's, widened by TEMPO_SLACK
    clave: int = 0                 # bars the clave patterns are turned: 1 for 2-3
    instruments: tuple[tuple[str, int, str], ...] = ()   # (lane, GM program, name)
    understood: tuple[tuple[str, str], ...] = ()     # (the words, what they chose)
    approximated: tuple[tuple[str, str], ...] = ()   # (the words, what was done instead)


def _word(pattern: str, text: str) -> re.Match[str] | None:
    """Search ``pattern`` as whole words."""
    return re.search(r"\b(?:" + pattern + r")\b", text)


def _first(text: str, table: tuple[tuple[str, str], ...]) -> str | None:
    """The value of the phrase that starts earliest in ``text`` (a tie: the earlier row)."""
    found = _find(text, table)
    return None if found is None else found[0]


def _find(text: str, table: tuple[tuple[str, str], ...]) -> tuple[str, str] | None:
    """(value, the words matched) of the phrase that starts earliest in ``text``."""
    best: tuple[int, str, str] | None = None
    for pattern, value in table:
        m = _word(pattern, text)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), value, m.group(0))
    return None if best is None else (best[1], best[2])


def _spelled(letter: str, acc: str | None) -> Spelled:
    base = parse_spelled(letter.upper())
    return Spelled(base.letter, _ACC_VALUE.get(acc or "", 0))


def _mode_of(word: str | None) -> str | None:
    if not word:
        return None
    if word == "M":  # "C M": a capital M is major in chord and key names, as in engine.chords.keys
        return "major"
    w = word.lower()
    if w in ("minor", "min", "m", "-"):
        return "minor"
    if w in ("major", "maj"):
        return "major"
    return w


def _key_words(text: str) -> tuple[Spelled | None, str | None]:
    """The tonic and mode the words name: "in X" / "key of X" first, else the earliest
    capital tonic followed by a mode, a glued mark or a style word."""
    km = _KEY_RE.search(text) or _KEY_OF_RE.search(text)
    # A bare capital A is the article before a style word, and "Am" the verb.
    tm = next((m for m in _TONIC_MODE_RE.finditer(text)
               if m.group(1) != "A" or m.group(2) or m.group(4) != "m"), None)
    if km:
        tonic = _spelled(km.group(1), km.group(2))
        mode = _mode_of(km.group(3) or km.group(4))
        # "Bb minor ballad in Bb" names the mode; "D minor ballad in F" names another key.
        if mode is None and tm and _spelled(tm.group(1), tm.group(2)) == tonic:
            mode = _mode_of(tm.group(3) or tm.group(4))
        return tonic, mode
    found = [tm] if tm else []
    found += [m for m in _TONIC_STYLE_RE.finditer(text) if m.group(1) != "A" or m.group(2)][:1]
    if not found:
        return None, None
    first = min(found, key=lambda m: m.start())
    mode = _mode_of(first.group(3) or first.group(4)) if first is tm else None
    return _spelled(first.group(1), first.group(2)), mode


def read_prompt(prompt: str) -> Plan:
    text = " ".join(prompt.split())
    low = text.lower()
    understood: list[tuple[str, str]] = []
    approximated: list[tuple[str, str]] = []

    found = _find(low, STYLE_WORDS)
    rough = next(((m.group(0), style_, why) for pattern, style_, why in APPROXIMATE_STYLES
                  if (m := _word(pattern, low))), None)
    if found is None and rough is not None:
        found = (rough[1], rough[0])
        approximated.append((rough[0], rough[2]))
    found = found or _find(low, FAMILY_WORDS)
    style = found[0] if found else None
    if found:
        understood.append((found[1], f"style {found[0]}"))

    meter: tuple[int, int] | None = None
    m = _METER_RE.search(low)
    if m and 2 <= int(m.group(1)) <= 12:
        meter = (int(m.group(1)), int(m.group(2)))
        understood.append((m.group(0), f"time signature {m.group(0)}"))
    elif "waltz" in low:
        meter = (3, 4)

    # Key and mode.
    tonic, mode = _key_words(text)
    # Mode words on their own ("minor ballad in F", "Phrygian vamp"), not those that belong
    # to a tonic ("D minor ballad in F" is in F major).
    bare = _TONIC_MODE_RE.sub(" ", text).lower()
    if mode in (None, "major"):
        word_mode = _first(bare, MODE_WORDS)
        if word_mode:
            mode = word_mode
    form = _first(low, FORM_WORDS)
    if form == "minor_blues" or (mode is None and re.search(r"\bminor\b", bare)):
        mode = mode if mode not in (None, "major") else "minor"
    key_given, mode_given = tonic is not None, mode is not None
    if mode is None:
        mode = "major"
    if tonic is None:
        tonic = parse_spelled(MODE_TONIC.get(mode, "C"))

    if style is None:
        if mode in MODE_TONIC:
            style = "modal_vamp"
        elif meter == (3, 4):
            style = "jazz_waltz"
    style_given = style is not None
    style = style or "swing"
    if meter is None:
        meter = (3, 4) if style == "jazz_waltz" else STYLE_METER.get(style, (4, 4))

    tempo = STYLE_TEMPO[style]
    tempo_given = False
    tempo_range: tuple[float, float] | None = None
    bm = _BPM_RE.search(low)
    if bm:
        tempo, tempo_given = float(bm.group(1) or bm.group(2)), True
        if not MIN_TEMPO <= tempo <= MAX_TEMPO:
            approximated.append((bm.group(0), f"tempo clamped to {MIN_TEMPO:g}..{MAX_TEMPO:g} "
                                              "bpm"))
        else:
            understood.append((bm.group(0), f"tempo {tempo:g} bpm"))
    else:
        for pattern, value, (lo, hi) in TEMPO_WORDS:
            if tm := _word(pattern, low):
                tempo, tempo_given = value, True
                tempo_range = (max(MIN_TEMPO, lo * (1 - TEMPO_SLACK)),
                               min(MAX_TEMPO, hi * (1 + TEMPO_SLACK)))
                understood.append((tm.group(0), f"tempo {value:g} bpm (the word's range "
                                                f"{lo:g}-{hi:g})"))
                break
    tempo = min(MAX_TEMPO, max(MIN_TEMPO, tempo))

    bars = None
    for bmatch in _BARS_RE.finditer(low):
        n = int(bmatch.group(1))
        # "12-bar blues" names the form's length, not the piece's.
        if 1 <= n <= MAX_BARS and not re.match(r"\s*(?:minor\s+)?blues", low[bmatch.end():]):
            bars = n
    energy, builds = DEFAULT_ENERGY, False
    for pattern, level, grows in ENERGY_WORDS:
        if em := _word(pattern, low):
            builds = builds or grows
            if level is not None:
                energy = level
            understood.append((em.group(0), "a build through the piece" if grows
                               else f"energy {level:g}"))
    bass = _find(low, BASS_WORDS)
    loop = _word(LOOP_WORDS, low)
    instruments: list[tuple[str, int, str]] = []
    for pattern, lane, program, name in INSTRUMENT_WORDS:
        if im := _word(pattern, low):
            if lane in {lane_ for lane_, _, _ in instruments}:
                continue
            instruments.append((lane, program, name))
            understood.append((im.group(0), f"{lane}: {name} (GM program {program})"))
    missing = _word(MISSING_INSTRUMENTS, low)
    if missing:
        approximated.append((missing.group(0), "no lane for it: the band is a rhythm section "
                                               "(harmony, pattern, bass, drums)"))
    clave = _find(low, tuple((p, str(v)) for p, v in CLAVE_WORDS))
    if clave and style in CLAVE_STYLES:
        understood.append((clave[1], f"clave {'2-3' if clave[0] == '1' else '3-2'}"))
    elif clave:
        approximated.append((clave[1], f"no clave in {style}: played without one"))
    if key_given:
        understood.append((_key_text(text), f"key {tonic.name} {mode}"))
    elif mode_given:
        understood.append((mode, f"mode {mode} on {tonic.name}"))
    if form:
        understood.append((form.replace("_", " "), f"form {form}"))
    if bars:
        understood.append((f"{bars} bars", f"{bars} bars"))
    if bass:
        understood.append((bass[1], f"bass {bass[0]}"))
    if loop:
        understood.append((loop.group(0), "an open end (no added ending)"))
    return Plan(style=style, style_given=style_given, tempo=tempo, tempo_given=tempo_given,
                tonic=tonic, mode=mode, key_given=key_given, mode_given=mode_given,
                meter=meter, form=form, bars=bars,
                energy=energy, builds=builds, bass=bass[0] if bass else None,
                loop=loop is not None, tempo_range=tempo_range,
                clave=int(clave[0]) if clave and style in CLAVE_STYLES else 0,
                instruments=tuple(instruments), understood=tuple(understood),
                approximated=tuple(approximated))


def _key_text(text: str) -> str:
    """The words that named the key, as written."""
    m = _KEY_RE.search(text) or _KEY_OF_RE.search(text) or _TONIC_MODE_RE.search(text) \
        or _TONIC_STYLE_RE.search(text)
    return m.group(0).strip() if m else ""
