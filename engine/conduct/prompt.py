"""Reading a plain-English direction into a plan.

The vocabulary is a set of tables: each entry is a regular expression and what it means.
Words the tables do not know are ignored; what was understood ends up in ``conductor``.

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

# (pattern, style id) — the first match in this order wins, so longer phrases come first.
STYLE_WORDS: tuple[tuple[str, str], ...] = (
    (r"jazz[ -]?waltz", "jazz_waltz"),
    (r"bossa(?:[ -]?nova)?", "bossa_nova"),
    (r"shuffle", "shuffle_blues"),
    (r"modal(?:[ -]?vamp)?", "modal_vamp"),
    (r"samba|latin|salsa|afro[ -]?cuban", "samba"),
    (r"funk(?:y)?", "funk"),
    (r"gospel|church", "gospel"),
    (r"rock|pop|straight[ -]?eights?", "rock_pop"),
    (r"ballad", "ballad"),
    (r"swing(?:ing)?|bebop|bop|hard[ -]?bop", "swing"),
    (r"waltz", "jazz_waltz"),
)

# The style's own tempo, quarter notes per minute.
STYLE_TEMPO: dict[str, float] = {
    "swing": 140, "bossa_nova": 132, "ballad": 66, "jazz_waltz": 150, "funk": 100,
    "samba": 104, "shuffle_blues": 112, "rock_pop": 116, "gospel": 84, "modal_vamp": 132,
}

TEMPO_WORDS: tuple[tuple[str, float], ...] = (
    (r"very slow", 54), (r"medium[ -]slow", 96), (r"medium[ -]up", 172),
    (r"up[ -]?tempo|burning|very fast", 232), (r"slow", 66), (r"fast|quick|bright", 208),
    (r"medium|moderate", 126),
)

# Energy words: (pattern, base level 0..1, builds towards the end).
ENERGY_WORDS: tuple[tuple[str, float | None, bool], ...] = (
    (r"build(?:s|ing)?|crescendo|grow(?:s|ing)?", None, True),
    (r"intense|driving|energetic|hot|aggressive|loud", 0.85, False),
    (r"sparse|minimal|quiet|soft|gentle|delicate", 0.3, False),
    (r"laid[ -]?back|relaxed|mellow|easy|chill", 0.45, False),
)
DEFAULT_ENERGY = 0.6

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


def _word(pattern: str, text: str) -> re.Match[str] | None:
    """Search ``pattern`` as whole words."""
    return re.search(r"\b(?:" + pattern + r")\b", text)


def _first(text: str, table: tuple[tuple[str, str], ...]) -> str | None:
    """The value of the phrase that starts earliest in ``text`` (a tie: the earlier row)."""
    best: tuple[int, str] | None = None
    for pattern, value in table:
        m = _word(pattern, text)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), value)
    return None if best is None else best[1]


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

    style = _first(low, STYLE_WORDS)

    meter: tuple[int, int] | None = None
    m = _METER_RE.search(low)
    if m and 2 <= int(m.group(1)) <= 12:
        meter = (int(m.group(1)), int(m.group(2)))
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
        meter = (3, 4) if style == "jazz_waltz" else (4, 4)

    tempo = STYLE_TEMPO[style]
    tempo_given = False
    bm = _BPM_RE.search(low)
    if bm:
        tempo, tempo_given = float(bm.group(1) or bm.group(2)), True
    else:
        for pattern, value in TEMPO_WORDS:
            if _word(pattern, low):
                tempo, tempo_given = value, True
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
        if _word(pattern, low):
            builds = builds or grows
            if level is not None:
                energy = level
    return Plan(style=style, style_given=style_given, tempo=tempo, tempo_given=tempo_given,
                tonic=tonic, mode=mode, key_given=key_given, mode_given=mode_given,
                meter=meter, form=form, bars=bars,
                energy=energy, builds=builds, bass=_first(low, BASS_WORDS),
                loop=_word(LOOP_WORDS, low) is not None)
