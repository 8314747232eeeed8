"""The colour tones a chord takes from where it goes (API.md 5; docs/voicing.md, "Colour in
context"): the colour styles (``COLOUR_STYLES``) add tensions the symbol does not write (the
added 9 of a rootless voicing, Bill Evans' 13 for 5), and those agree with analyze's primary
scale for the chord in context (``engine.analysis.context.primary_scales``, the
``contextScales[0]`` of analyze):

- a chord that has no ninth takes the scale's: a natural 9 where the scale has one (the style
  adds it); else, over a major third or a sus 4th (a dominant), the scale's b9 or #9
  (``G7`` -> ``Cm7``: phrygian dominant, b9); over a minor third never a b9 (a minor 9th
  above the root is an avoid note on a minor chord, and a iiø7's 9 lies outside its minor key):
  the 11 instead (``Em7`` as iii in C, phrygian: E G B D with A, not F#), else the b13;
- a dominant with a plain 5 and no thirteenth takes the scale's b13 where the scale has no
  natural 13 (phrygian dominant, mixolydian b6): ``G7`` -> ``Cm7`` plays B Eb F Ab, not B E F A;
- a half-diminished seventh always takes its 11 (``ALWAYS``), never the natural 9, whatever
  scale analyze prefers for it (locrian natural 2 too);
- where the scale has no natural 9, the voice a style gives an added 9 plays the 5 instead
  (``within_scale``: the 11, else the 5; ``Cm7`` as iii, phrygian, rootless Eb F G Bb); so
  every tone a style adds (``ADDED_NEEDS``: the 9, the 13 for 5, the 6 of a triad, quartal's
  11) sounds only where the scale holds it.

A tension the symbol writes is always played (``A13`` before ``Dm7`` keeps its 13, ``G9``
its 9): only families the symbol leaves empty are filled. The chord is voiced as the symbol
with those tensions added (``G7`` as ``G7b9b13``), unless one would put out a tension the symbol
writes; the result still names the chord as written.
The styles that voice only the chord's own tones (shell, triad, pad, guide tones, drop 2 and
drop 3) take nothing from here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

from engine.chords import Chord, parse, transpose_mask
from engine.errors import HarmonyError
from engine.voicing.selection import select
from engine.voicing.styles import Style

# the styles whose shapes add tensions (9ths, 13ths) beyond the chord's own
COLOUR_STYLES = frozenset({"rootless", "bill_evans", "quartal"})
# written quality -> the additions always played, whatever the scale
ALWAYS: dict[str, str] = {"m7b5": "add11"}
# Semitones above the root -> the addition that brings that tone, tried in order: the ninth of
# a chord with a major third or a sus tone, of one with a minor third, and the thirteenth of
# a dominant with a plain 5. A natural 9 (2) and a natural 13 (9) need no addition: the
# styles add them.
NINTH_MAJOR = ((2, ""), (1, "b9"), (3, "#9"))
NINTH_MINOR = ((2, ""), (5, "add11"), (8, "b13"))
THIRTEENTH = ((9, ""), (8, "b13"))
NINTH_LABELS = frozenset({"b9", "9", "#9", "2"})
ELEVENTH_LABELS = frozenset({"11", "#11", "4"})
THIRTEENTH_LABELS = frozenset({"b13", "13", "6", "#5"})
# The roles by which styles add tones the symbol lacks (engine.voicing.styles), the semitones
# above the root each sounds, and the role that takes its slot where the scale lacks that tone
# ("": none).
ADDED_NEEDS: dict[str, tuple[int, str]] = {"+9": (2, "11"), "+13": (9, ""), "+6": (9, ""),
                                            "+6triad": (9, "+11"), "+11": (5, ""),
                                            "+dim7": (9, ""), "+dimb7": (10, "")}
# the labels of a chord's plain tones, not tensions (a tension may not be put out)
PLAIN = frozenset({"1", "3", "b3", "5", "b7", "7", "bb7", "6", "4", "2", "bass"})


def coloured(chords: Sequence[Chord], style: Style,
             scales: Sequence[int | None] | None = None) -> list[tuple[Chord, Style]]:
    """Each chord with the tensions its primary scale in context gives it (``scales``: the
    absolute pitch-class mask of that scale per chord, None where unknown), and the style to
    voice it in: in a colour style, without the added tones the scale lacks
    (``within_scale``); the chords and the style as they are in any other style."""
    if style.name not in COLOUR_STYLES:
        return [(chord, style) for chord in chords]
    masks = scales if scales is not None else [None] * len(chords)
    return [_played(chord, mask, style) for chord, mask in zip(chords, masks, strict=True)]


@lru_cache(maxsize=8192)
def _played(chord: Chord, scale: int | None, style: Style) -> tuple[Chord, Style]:
    """``in_scale`` in ``style`` (without the added tones the scale lacks), unless an
    added tension would put out a tension the symbol writes (a written alteration outranks an
    added one: ``C7sus4#11b13`` keeps its #11)."""
    style = within_scale(style, outside_scale(chord, scale))
    played = in_scale(chord, scale)
    if played is chord:
        return chord, style
    written = {t.pc for t in select(chord, style).tones
               if t.index >= 0 and t.label not in PLAIN}
    heard = {t.pc for t in select(played, style).tones}
    return (played if written <= heard else chord), style


def outside_scale(chord: Chord, scale: int | None) -> frozenset[str]:
    """The added roles of the styles (``ADDED_NEEDS``) whose tone the chord's scale lacks
    (phrygian's or locrian's natural 9, aeolian's 13); a half-diminished chord never takes
    the added 9 (``ALWAYS``)."""
    out = {"+9"} if chord.quality in ALWAYS else set()
    if scale is not None:
        rel = transpose_mask(scale, -chord.root.pc)
        out |= {role for role, (semitones, _) in ADDED_NEEDS.items() if not rel >> semitones & 1}
    if chord.bass is not None and chord.bass.pc != chord.root.pc:
        out.discard("+9")       # a slash chord's root stands in the added 9's place
    return frozenset(out)


@lru_cache(maxsize=256)
def within_scale(style: Style, outside: frozenset[str]) -> Style:
    """``style`` whose added roles in ``outside`` give their slot to another role
    (``ADDED_NEEDS``: the 9's to the 11, the 5 in a later slot taking its voice where the chord
    has no 11) or leave it."""
    def swap(slots: tuple[tuple[str, ...], ...]) -> tuple[tuple[str, ...], ...]:
        return tuple(tuple(ADDED_NEEDS[role][1] if role in outside else role
                           for role in alternatives if role not in outside
                           or ADDED_NEEDS[role][1]) for alternatives in slots)
    if not outside:
        return style
    return replace(style, slots=swap(style.slots), minor=swap(style.minor), sus=swap(style.sus))


@lru_cache(maxsize=8192)
def in_scale(chord: Chord, scale: int | None) -> Chord:
    """``chord`` with the tensions ``scale`` (absolute mask, None: none known) gives it."""
    additions = additions_for(chord, scale)
    if not additions:
        return chord
    bass = f"/{chord.bass.name}" if chord.bass is not None else ""
    # ``G`` + ``b9`` is no Gb9: the additions in brackets where the plain text reads otherwise
    for text in (additions, f"({additions})"):
        try:
            played = parse(f"{chord.root.name}{chord.quality}{text}{bass}")
        except HarmonyError:
            continue
        if played.root == chord.root and set(chord.intervals) <= set(played.intervals):
            return played
    return chord   # a quality that takes no further addition: played as written


def additions_for(chord: Chord, scale: int | None) -> str:
    """The text added to ``chord``'s quality (``"b9b13"``, ``"add11"``, ``""``)."""
    rel = transpose_mask(scale, -chord.root.pc) if scale is not None else None
    if chord.quality in ALWAYS:   # unless the scale in context lacks the 11 (a rare reading)
        return ALWAYS[chord.quality] if rel is None or rel >> 5 & 1 else ""
    if rel is None:
        return ""
    labels = set(chord.intervals)
    out = []
    if not labels & NINTH_LABELS:
        minor = "b3" in labels
        if minor and labels & ELEVENTH_LABELS:
            options: tuple[tuple[int, str], ...] = ((2, ""), (8, "b13"))
        else:
            options = NINTH_MINOR if minor else NINTH_MAJOR
        out.append(_first(options, rel))
    dominant = "b7" in labels and ("3" in labels or "4" in labels)
    if dominant and "5" in labels and not labels & THIRTEENTH_LABELS and "b13" not in out:
        out.append(_first(THIRTEENTH, rel))
    return "".join(out)


def _first(options: tuple[tuple[int, str], ...], rel: int) -> str:
    """The addition of the first option whose tone the scale (root-relative mask) holds."""
    return next((text for semitones, text in options if rel >> semitones & 1), "")
