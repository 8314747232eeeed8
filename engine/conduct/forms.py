"""Song forms written by this project as roman numerals, realised in a key.

A form is a string of bars separated by ``|``; a bar holds one or more numerals separated by
spaces. A numeral is an optional ``b``/``#``, a degree ``I``..``VII`` (upper case: major or
dominant family, lower case: minor family), an optional quality mark and an optional ``/``
numeral for a bass note: ``ii7``, ``V7``, ``bIImaj7``, ``iiø7``, ``#ivo7``, ``I/V``.

Degrees count from the tonic of the *major* scale (``bIII`` is a minor third up), so one table
realises every mode; the letter of each root is the degree's letter above the tonic, which
spells ``bII`` in F as Gb and ``bVII`` in D as C. Double accidentals (and a chromatic root on
B#, E#, Cb or Fb) are respelled plainly: ``bII`` in Db is D, ``#iv`` in F# is C.
"""

from __future__ import annotations

import re

from engine.chords import AWKWARD_SPELLINGS, SCALE_STEPS, Spelled, parse_spelled, transpose_spelled

_MAJOR = SCALE_STEPS["major"]
_ROMAN = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7}
_FLAT_NAMES = ("C", "Db", "D", "Eb", "E", "F", "Gb", "G", "Ab", "A", "Bb", "B")
_SHARP_NAMES = ("C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B")
_NUMERAL_RE = re.compile(r"^(b|#)?(vii|iii|iv|vi|ii|v|i)(.*)$", re.I)

# Quality mark -> chord-symbol suffix, for an upper-case and a lower-case degree.
SUFFIX_UPPER: dict[str, str] = {
    "": "", "7": "7", "maj7": "maj7", "6": "6", "9": "9", "13": "13", "7b9": "7b9",
    "7#9": "7#9", "7#11": "7#11", "maj7#11": "maj7#11", "maj9": "maj9", "69": "6/9",
    "7sus4": "7sus4", "sus4": "sus4", "+": "aug", "5": "5",
}
SUFFIX_LOWER: dict[str, str] = {
    "": "m", "7": "m7", "6": "m6", "9": "m9", "11": "m11", "maj7": "m(maj7)",
    "ø7": "m7b5", "ø": "m7b5", "o": "dim", "o7": "dim7",
}

# name -> (form for a major key, form for a minor key).
FORMS: dict[str, tuple[str, str]] = {
    "blues": (
        "I7 | IV7 | I7 | v7 I7 | IV7 | #ivo7 | I7 | VI7 | ii7 | V7 | I7 VI7 | ii7 V7",
        "i7 | iv7 | i7 | i7 | iv7 | iv7 | i7 | i7 | bVI7 | V7 | i7 | iiø7 V7",
    ),
    "basic_blues": (
        "I7 | IV7 | I7 | I7 | IV7 | IV7 | I7 | I7 | V7 | IV7 | I7 | V7",
        "i7 | iv7 | i7 | i7 | iv7 | iv7 | i7 | i7 | bVI7 | V7 | i7 | V7",
    ),
    "minor_blues": (
        "i7 | iv7 | i7 | i7 | iv7 | iv7 | i7 | i7 | bVI7 | V7 | i7 | iiø7 V7",
        "i7 | iv7 | i7 | i7 | iv7 | iv7 | i7 | i7 | bVI7 | V7 | i7 | iiø7 V7",
    ),
    "rhythm_changes": (
        "I6 vi7 | ii7 V7 | iii7 VI7 | ii7 V7 | I I7 | IV7 #ivo7 | iii7 VI7 | ii7 V7 | "
        "I6 vi7 | ii7 V7 | iii7 VI7 | ii7 V7 | I I7 | IV7 #ivo7 | ii7 V7 | I6 | "
        "III7 | III7 | VI7 | VI7 | II7 | II7 | V7 | V7 | "
        "I6 vi7 | ii7 V7 | iii7 VI7 | ii7 V7 | I I7 | IV7 #ivo7 | ii7 V7 | I6",
        "i6 bVI7 | iiø7 V7 | i6 bVI7 | iiø7 V7 | i7 I7 | iv7 bVII7 | iiø7 V7 | i6 | "
        "i6 bVI7 | iiø7 V7 | i6 bVI7 | iiø7 V7 | i7 I7 | iv7 bVII7 | iiø7 V7 | i6 | "
        "bVI7 | bVI7 | bII7 | bII7 | bVImaj7 | bVImaj7 | iiø7 | V7 | "
        "i6 bVI7 | iiø7 V7 | i6 bVI7 | iiø7 V7 | i7 I7 | iv7 bVII7 | iiø7 V7 | i6",
    ),
    "aaba": (
        "Imaj7 | vi7 | ii7 | V7 | iii7 | VI7 | ii7 | V7 | "
        "Imaj7 | vi7 | ii7 | V7 | iii7 VI7 | ii7 V7 | I6 | I6 | "
        "IVmaj7 | iv7 bVII7 | iii7 | VI7 | ii7 | II7 | ii7 | V7 | "
        "Imaj7 | vi7 | ii7 | V7 | iii7 VI7 | ii7 V7 | I6 | I6",
        "i7 | iv7 | bVII7 | bIIImaj7 | bVImaj7 | iiø7 | V7 | i6 | "
        "i7 | iv7 | bVII7 | bIIImaj7 | bVImaj7 | iiø7 V7 | i6 | i6 | "
        "iiø7 | V7 | i7 | i7 | iv7 | bVII7 | bIIImaj7 | V7 | "
        "i7 | iv7 | bVII7 | bIIImaj7 | bVImaj7 | iiø7 V7 | i6 | i6",
    ),
    "ii_v_i": ("ii7 | V7 | Imaj7 | Imaj7", "iiø7 | V7b9 | i6 | i6"),
    "turnaround": ("Imaj7 vi7 | ii7 V7 | iii7 VI7 | ii7 V7", "i7 bVI7 | iiø7 V7 | i7 bVI7 | iiø7 V7"),
    "bossa": (
        "Imaj7 | Imaj7 | II7 | II7 | ii7 | bII7 | Imaj7 | bII7 | "
        "Imaj7 | Imaj7 | II7 | II7 | ii7 | bII7 | Imaj7 | Imaj7",
        "i7 | i7 | iv7 | iv7 | iiø7 | V7b9 | i7 | i7 | "
        "iv7 | bVII7 | bIIImaj7 | bVImaj7 | iiø7 | V7b9 | i6 | i6",
    ),
    "ballad": (
        "Imaj7 vi7 | ii7 V7 | iii7 VI7 | ii7 V7 | IVmaj7 iv7 | iii7 VI7 | ii7 V7 | I6",
        "i7 | iv7 | iiø7 | V7b9 | i7 | bVImaj7 | iiø7 V7b9 | i6",
    ),
    "waltz": (
        "Imaj7 | vi7 | ii7 | V7 | iii7 | VI7 | ii7 | V7 | "
        "IVmaj7 | iv7 | iii7 | VI7 | ii7 | V7 | Imaj7 | Imaj7",
        "i7 | i7 | iv7 | iv7 | bVII7 | bIIImaj7 | iiø7 | V7 | "
        "i7 | i7 | iv7 | bVII7 | bVImaj7 | iiø7 | V7 | i7",
    ),
    "funk": ("I9 | I9 | I9 | I9 | IV9 | IV9 | I9 | I9", "i7 | i7 | i7 | i7 | iv7 | iv7 | i7 | i7"),
    "samba": (
        "Imaj7 | vi7 | ii7 | V7 | iii7 | VI7 | ii7 | V7 | "
        "Imaj7 | I7 | IVmaj7 | iv7 | iii7 VI7 | ii7 V7 | Imaj7 | Imaj7",
        "i7 | iv7 | iiø7 | V7 | i7 | iv7 | bVI7 | V7 | "
        "i7 | iv7 | bVII7 | bIIImaj7 | bVImaj7 | iiø7 | V7 | i7",
    ),
    "pop": ("I | V | vi | IV | I | V | IV | IV", "i | bVI | bIII | bVII | i | bVI | bVII | bVII"),
    # The son montuno's vamp (I IV V IV, as in "Guantanamera"), the minor one's i iv V iv.
    "montuno": ("I | IV | V7 | IV | I | IV | V7 | IV", "i7 | iv7 | V7 | iv7 | i7 | iv7 | V7 | iv7"),
    # Bembé over a bluesy I7 IV7 (Mongo Santamaría's "Afro Blue" is a minor one).
    "afro_6_8": ("I7 | I7 | IV7 | IV7 | I7 | I7 | V7 | V7", "i7 | i7 | iv7 | iv7 | i7 | i7 | V7 | V7"),
    "reggae": ("I | IV | I | V | I | IV | V | IV", "i7 | iv7 | i7 | v7 | i7 | iv7 | bVII | v7"),
    # A jazz hip-hop loop: ii V I vi in major, i iv bVI V in minor.
    "hip_hop": ("ii9 | V13 | Imaj7 | vi9", "i9 | iv9 | bVImaj7 | V7#9"),
    # The two-chord New Orleans tune ("Iko Iko", "Jambalaya" is I-V7 too).
    "second_line": ("I | I | I | V7 | V7 | V7 | V7 | I", "i | i | i | V7 | V7 | V7 | V7 | i"),
    "gospel": (
        "I IV/I | I I7 | IV #ivo7 | I/V VI7 | ii7 V7 | I vi7 | ii7 V7sus4 | I",
        "i iv/i | i I7 | iv7 bVII7 | bIIImaj7 bVImaj7 | iiø7 V7 | i iv7 | iiø7 V7 | i",
    ),
    # Modal vamps: the chords that carry each mode's colour (dorian's major IV, phrygian's bII,
    # lydian's major II, mixolydian's bVII, aeolian's bVI, locrian's bV).
    "vamp_dorian": ("i7 | i7 | IV7 | IV7", ""),
    "vamp_phrygian": ("i7 | bIImaj7 | i7 | bIImaj7", ""),
    "vamp_lydian": ("Imaj7 | II | Imaj7 | II", ""),
    "vamp_mixolydian": ("I7 | bVII | I7 | bVII", ""),
    "vamp_aeolian": ("i7 | bVImaj7 | bVII | i7", ""),
    "vamp_locrian": ("iø7 | bIImaj7 | iø7 | bVmaj7", ""),
    "vamp_major": ("Imaj7 | IVmaj7 | Imaj7 | IVmaj7", "i7 | iv7 | i7 | iv7"),
}
# A piece ends on the tonic in its last bar, approached by its dominant: the bar before keeps
# its chords when it already ends on the approach's last chord, else it becomes the approach
# below (a mode without a dominant has none: a modal vamp falls back to its tonic as it does
# all along).
APPROACH: dict[str, str] = {"major": "ii7 V7", "minor": "iiø7 V7"}
# Forms that approach their last tonic their own way, (major, minor): the plain blues by its
# V7, a pop song by its own plagal IV (its V is already in bars 2 and 6: an approach by V read
# I-V-V-I) or minor bVII, the major modal vamp by none (no functional ii-V in a vamp).
FORM_APPROACH: dict[str, tuple[str, str]] = {
    "basic_blues": ("V7", "V7"),
    "pop": ("IV", "bVII"),
    "vamp_major": ("", ""),
}
# The last bars of a piece that ends where a chorus of these forms ends, replacing the form's
# own: the jazz blues's bar 10 V7 resolves on bar 11's tonic (its own "I7 VI7 | ii7 V7" is a
# turnaround into the next chorus). Cut elsewhere (only with "N bars") these forms never end
# on a bar of their own: their I7 in bars 4 and 8 leads on to IV.
ENDINGS: dict[str, tuple[str, str]] = {
    "blues": ("I7 | I7", "i7 | i7"),
    "basic_blues": ("I7 | I7", "i7 | i7"),
    "minor_blues": ("i7 | i7", "i7 | i7"),
}
# One form a style plays when the direction names none.
STYLE_FORM: dict[str, str] = {
    "swing": "blues", "bossa_nova": "bossa", "ballad": "ballad", "jazz_waltz": "waltz",
    "funk": "funk", "samba": "samba", "shuffle_blues": "basic_blues", "rock_pop": "pop",
    "gospel": "gospel", "modal_vamp": "vamp_major", "son_montuno": "montuno",
    "rumba": "montuno", "afro_cuban_6_8": "afro_6_8", "reggae": "reggae", "hip_hop": "hip_hop",
    "second_line": "second_line", "stride": "aaba",
}
# Styles that play the plain three-chord blues when asked for "blues".
PLAIN_BLUES_STYLES = frozenset({"shuffle_blues", "rock_pop", "funk", "gospel", "reggae",
                                "hip_hop", "second_line"})
MODES = ("dorian", "phrygian", "lydian", "mixolydian", "aeolian", "locrian")


def choose_form(form: str | None, style: str, mode: str) -> str:
    """The name of the form to play: the mode's vamp for a modal mode, else the asked form."""
    if mode in MODES:
        return f"vamp_{mode}"
    if form == "vamp" or form is None:
        return "vamp_major" if form == "vamp" else STYLE_FORM[style]
    if form == "blues" and style in PLAIN_BLUES_STYLES:
        return "basic_blues"
    return form


def form_text(name: str, mode: str) -> str:
    major, minor = FORMS[name]
    return minor if mode == "minor" and minor else major


def realise(numeral: str, tonic: Spelled) -> str:
    """One numeral as a chord symbol in the key of ``tonic``: ``("bIImaj7", F) -> "Gbmaj7"``."""
    head, _, bass = numeral.partition("/")
    symbol = _root_and_suffix(head, tonic)
    if bass:
        symbol += "/" + _root(bass, tonic)[0].name
    return symbol


def _root(numeral: str, tonic: Spelled) -> tuple[Spelled, bool, str]:
    m = _NUMERAL_RE.match(numeral)
    if not m:
        raise ValueError(f"not a roman numeral: {numeral!r}")
    acc, roman, mark = m.groups()
    degree = _ROMAN[roman.lower()]
    shift = {"b": -1, "#": 1}.get(acc or "", 0)
    root = transpose_spelled(tonic, degree, _MAJOR[degree - 1] + shift)
    if abs(root.alter) == 2 or (shift and root.name in AWKWARD_SPELLINGS):
        root = _plain(root.pc, flats=tonic.alter < 0 or tonic.name == "F")
    return root, roman.isupper(), mark


def _plain(pc: int, *, flats: bool) -> Spelled:
    """The usual name of a pitch class: with flats in flat keys, sharps elsewhere."""
    return parse_spelled((_FLAT_NAMES if flats else _SHARP_NAMES)[pc])


def _root_and_suffix(numeral: str, tonic: Spelled) -> str:
    root, upper, mark = _root(numeral, tonic)
    table = SUFFIX_UPPER if upper else SUFFIX_LOWER
    if mark not in table:
        raise ValueError(f"no quality for {numeral!r}")
    return root.name + table[mark]


def bars_of(text: str) -> list[list[str]]:
    """``"I7 | IV7 V7"`` -> ``[["I7"], ["IV7", "V7"]]`` (empty bars dropped)."""
    return [bar.split() for bar in text.split("|") if bar.strip()]


def realise_form(name: str, mode: str, tonic: Spelled) -> list[list[str]]:
    """The form's bars as chord symbols in the key."""
    return [[realise(n, tonic) for n in bar] for bar in bars_of(form_text(name, mode))]


PHRASE_BARS = 4                      # the shortest phrase a piece may be cut after
# Where a piece played from a form may stop inside a chorus (bars into it; every form may stop
# after a whole chorus, and after one the same points come again): a blues only after whole
# choruses, an AABA (and rhythm changes) after an A section, never after the bridge, a form in
# two halves after a half. Any other form (the 8-bar songs, the vamps) after any 4-bar phrase.
STOPS: dict[str, tuple[int, ...]] = {
    "blues": (), "basic_blues": (), "minor_blues": (),
    "aaba": (8, 16), "rhythm_changes": (8, 16),
    "bossa": (8,), "waltz": (8,), "samba": (8,),
}
# Where a section of a form starts inside its chorus (bars into it), besides the chorus's first
# bar: an AABA's and rhythm changes's A A B A, the two halves of the 16-bar songs; the other
# forms are one section (a blues is one 12-bar chorus). The voicing moves its register freely
# there (engine.voicing: a phrase starts on a section's first chord).
SECTIONS: dict[str, tuple[int, ...]] = {
    "aaba": (8, 16, 24), "rhythm_changes": (8, 16, 24),
    "bossa": (8,), "waltz": (8,), "samba": (8,),
}


def sections(name: str) -> tuple[int, ...]:
    """The bars into a chorus of the form where its sections start, besides bar 0."""
    return SECTIONS.get(name, ())


# How far a duration may move the asked (or the style's) tempo to reach a stop before the
# nearest one is taken whatever its tempo: a blues plays faster or slower rather than be cut.
TEMPO_FACTOR = 1.25
FORM_TEMPO_FACTOR: dict[str, float] = {"blues": 1.5, "basic_blues": 1.5, "minor_blues": 1.5}


def stops(name: str, mode: str) -> tuple[int, ...]:
    """Where a piece may stop inside a chorus of the form, in bars, the whole chorus last:
    ``(8, 16, 32)`` for an AABA, ``(12,)`` for a blues, ``(4, 8)`` for an 8-bar song."""
    n = len(bars_of(form_text(name, mode)))
    return (*STOPS.get(name, range(PHRASE_BARS, n, PHRASE_BARS)), n)


def tempo_factor(name: str) -> float:
    return FORM_TEMPO_FACTOR.get(name, TEMPO_FACTOR)


def _is_tonic(numeral: str) -> bool:
    m = _NUMERAL_RE.match(numeral)
    return m is not None and not m.group(1) and m.group(2).lower() == "i" and "/" not in numeral


def tonic_numeral(name: str, mode: str) -> str:
    """The form's own tonic chord: its first numeral on an unaltered I, without a slash
    (``I7`` in the blues, ``Imaj7`` in a standard, ``i7`` in the minor blues)."""
    for bar in bars_of(form_text(name, mode)):
        for numeral in bar:
            if _is_tonic(numeral):
                return numeral
    return "i" if mode == "minor" else "I"


# Quality marks that make an upper-case numeral a dominant seventh: I7 ends a piece only in a
# form whose tonic is one (the blues); elsewhere it leads on (gospel's and rhythm changes's
# "I I7" heads for IV).
DOMINANT_MARKS = frozenset({"7", "9", "13", "7b9", "7#9", "7#11", "7sus4"})


def _is_final(numeral: str, tonic: str) -> bool:
    """Whether a chord may end a piece whose form's tonic chord is ``tonic``: on the tonic,
    with its third, a dominant seventh only if the tonic is one (``I6`` ends an ``Imaj7``
    form, ``I7`` does not)."""
    def kind(n: str) -> tuple[bool, bool]:
        m = _NUMERAL_RE.match(n)
        assert m is not None
        upper = m.group(2).isupper()
        return upper, upper and m.group(3) in DOMINANT_MARKS

    return _is_tonic(numeral) and kind(numeral) == kind(tonic)


def _degree(numeral: str) -> tuple[str, str] | None:
    """A numeral's accidental and degree, upper case (``"bVII7"`` -> ``("b", "VII")``);
    None for a chord over another bass or a minor-family degree."""
    m = _NUMERAL_RE.match(numeral)
    if m is None or "/" in numeral or not m.group(2).isupper():
        return None
    return m.group(1) or "", m.group(2)


def ending(name: str, mode: str, tonic: Spelled, bars: int) -> list[list[str]]:
    """The last bars of a piece of ``bars`` bars played from this form, to replace its own.

    After a whole chorus: the form's own ending (``ENDINGS``). A piece whose last bar ends on
    the form's tonic (``_is_final``) ends there, on the form's own cadence (``ii7 V7 | I6`` of
    a standard, AA of an AABA), except in the ``ENDINGS`` forms, which end their own way only
    after a whole chorus. Otherwise the last bar becomes the form's tonic chord, and the bar
    before it the approach (``FORM_APPROACH``, ``APPROACH``) unless it already ends on the
    approach's last chord: ``| Fm7 | Ebmaj7 |`` ends ``| Fm7 Bb7 | Ebmaj7 |``, ``| iii7 VI7
    | Imaj7 |`` ends ``| ii7 V7 | Imaj7 |``, gospel's ``| I IV/I | I I7 |`` ends ``| I IV/I
    | ii7 V7 | I |``."""
    form = bars_of(form_text(name, mode))
    minor = mode == "minor"
    last = form[(bars - 1) % len(form)]
    tonic_chord = tonic_numeral(name, mode)
    text = ENDINGS.get(name, ("", ""))[minor] if bars % len(form) == 0 else ""
    if not text and name not in ENDINGS and _is_final(last[-1], tonic_chord):
        text = " ".join(last)
    if not text:
        text = tonic_chord
        approach = FORM_APPROACH[name][minor] if name in FORM_APPROACH else APPROACH.get(mode)
        before = form[(bars - 2) % len(form)]
        if bars > 1 and approach and _degree(before[-1]) != _degree(approach.split()[-1]):
            text = f"{approach} | {text}"
    return [[realise(n, tonic) for n in bar] for bar in bars_of(text)]
