"""Voicing styles as data: which chord tones each style holds, in which order of priority,
which extensions substitute, and how the chosen tones are laid out.

A chord's tones are first sorted into *roles* (``ROLE_KEYS``):

- ``R`` the root; ``R2`` the root once more an octave up (four-way stacks of triads);
- ``3`` the third, or on a chord without one the sus tone (4/11, else 2/9);
- ``7`` the seventh, or on a chord without one the sixth (``C6``: the 6 acts as the seventh);
- ``5`` ``9`` ``11`` ``13`` the families of those degrees (altered forms first, see
  ``FAMILY_ORDER``);
- ``+9`` an added natural ninth, allowed when the chord has no ninth of its own: the ninth that
  replaces the root in rootless and drop voicings;
- ``+13`` an added thirteenth in place of a natural fifth on a dominant (Bill Evans' "13 for 5");
- ``b5`` the diminished fifth, when the chord's fifth is one (the shell's fourth voice);
- ``+11`` an added 11 on a chord with a minor third (the So What voicing's fourth above the
  root); ``+6`` an added 13 on any chord with a major third and a plain 5 (quartal);
- ``+6triad`` an added 6 on a triad (no 7th or 6th; bill_evans plays D as D6/9, F# A B E, in
  four voices, not three);
- ``+dim7`` / ``+dimb7`` the seventh a diminished triad takes from its scale in context: the bb7
  of the whole-half diminished scale (``B°`` played as the ``B°7`` a jazz pianist reads it as:
  And The Angels Sing's ``C7 B° Cm``), else the b7 of locrian (a ``C°`` read as iiø: Cø7,
  Toy Tune); each only where the scale holds it (``engine.voicing.colour.ADDED_NEEDS``).

A style is a tuple of *slots*, highest priority first; each slot lists roles as alternatives and
takes the first one the chord can fill with a tone not used yet. Tones no slot takes are the
ones the style drops (they are reported as ``omitted``). The *layout* says how the chosen
tones are stacked (see ``engine.voicing``):

- ``close``: every close-position stack within an octave (all inversions);
- ``drop2`` / ``drop3``: a close stack with its 2nd / 3rd voice from the top an octave lower;
- ``forms``: fixed orders of slots bottom-up (``orders``), each tone the nearest above the last;
- ``spread``: slot 0 in the bass, the others in any order above it, open (``SPREAD``);
- ``line``: one note, any one of the slots' tones (a line chooses the one nearest the note
  before), the first chord of a line the tone of slot ``start``;
- ``fourths``: the stacks, each tone the nearest above the last, whose neighbours all lie a
  third to a tritone apart (``FOURTHS_GAPS``), with the most perfect fourths (quartal); with
  the ``minor`` slots, those slots bottom-up as they stand (the So What voicing).

A style may voice chords with a minor third, or with none, from other slots (``minor``,
``sus``): quartal plays the So What voicing on minor chords (1-4-b7-b3-5, D G C F A on Dm7:
three fourths and a major third), stacks of fourths from the 7th or the 3rd on dominants and
majors (C7 Bb E A D, Cmaj7 B E A D) and on sus chords (D7sus4 E A D G C).

Slash chords: ``bass`` styles (shell, pad) add the slash bass as one more voice *below* their
slots, and the slots are filled as usual above it, so the chord's root still sounds (a slot whose
tone the bass already sounds falls to its next alternative: ``Cm7/Bb`` shell is Bb C Eb G, the
5 standing in for the 7th in the bass; ``C/E`` shell is E C G). Shell over a bass is therefore
bass + 1-3-7 (bass, then root, then the 3/7 in either order); pad is the bass, then its open
structure of root, 3, 7 and colour above. The other styles leave the bass to the bass player;
triad and drop2/drop3 keep the root in their own slots (drop voicings swap it for the 9 when the
chord has one, slash or not).

Written alterations (``ALTERATIONS``: b5 #5 #11 b9 #9 b13) define a chord's sound. In styles with
``alterations`` set (those with room for colour: rootless, bill_evans, pad, drop2, drop3), an
alteration that no slot took displaces a voice holding a natural colour tone, in the one order
of ``GIVE_UP_ORDER`` whatever the style's slot order: a doubled root first, then the natural 5,
then an added 9 or 13, then the 9, then the 11, the 13 last; so a chord's highest named
extension (the 13 of a 13 chord, the 11 of an m11, the 9 of a 9 chord) outlasts the lesser
colour tones. After the alterations that extension, when no slot took it, claims a voice the
same way from a tone the order gives up before it (``Cm11`` drop2 is Eb F Bb D, not Eb G Bb D).
The root, the slash bass and the guide tones are never displaced (the root is absent only where
the style already drops it). So ``C7#11`` drop2 is E F# Bb C, ``C9#11`` drop2 E Bb D F# (the 5
gives way, not the 9) and ``C13b5`` rootless E Gb Bb A (the 9 gives way, not the 13). When every
colour voice already holds an alteration (``7alt`` in four voices) the rest stay out. Shell,
triad and the guide-tone styles hold no colour voices.

A tone that claims a voice sounds in the slot of its own family (``FAMILY_OF_DEGREE``: b5 #5 #11
b13 in the 5/11/13 slot, b9 #9 in the 9 slot), whichever voice gave way; the tone that held that
slot moves to the freed one. It matters only for the fixed ``forms``: ``C13b5`` bill_evans gives
up its 9 but puts the b5 where a 5 goes and the 13 in the 9's place (A form E4 Gb4 Bb4 A5), not
the b5 on top in the 9's place (E4 A4 Bb4 Gb5; ``Cm11b5`` Eb4 F4 Bb4 Gb5, a minor 9th).

Tones that give way (``GIVES_WAY``), in the colour styles: over a major 3rd the natural 11 (or 4)
lies a half step above the 3rd, the clash for which API.md §1 leaves the 11 out of a 13 chord;
jazz practice plays such a chord's 11 only where nothing else would sound, so no slot holds it
and it claims only a voice that would otherwise double a tone (``REDUNDANT_ROLES``), never the 5
or another colour tone: ``Cmaj11`` drop2 is B E G D (the 11 omitted). Where it does sound
(``CLASH_INTERVALS``) it is never a minor 2nd or minor 9th above the 3rd (``F3 C4 E4 G4``, not
``G3 E4 F4 C5``).
Likewise a written b13 puts out the natural 5 a half step below it (``C7b13`` pad is C E Bb Ab,
not C G Bb E Ab). Written alterations never give way.

An *added* 11 (or 4) is different: an arranger writes ``Cadd11``, ``Cadd4``, ``C7add11``,
``C6add11``, ``C9add11``, ``Cmaj9add11`` exactly to hear that tone, so in a style with at least
``WRITTEN_MIN_UPPER`` voices besides the root (every colour style) it always sounds
(``WRITTEN_STAYS``): in an empty slot of its family if the style has one (``Cadd11`` pad
C4 F4 E5 G5), else in the voice of a doubled root, an unwritten added 9 or 13, the 5, or (in a
``13add11``) the 9 (``WRITTEN_TAKES``), never a guide tone's. ``Cadd11`` drop2 is C F G E,
``C7add11`` rootless F G Bb E (not the C9 D E G Bb), ``Cadd11`` rootless F G E (not the Cadd9
D E G). It keeps the slot of the voice it took, and where no fixed form keeps it clear of the
3rd a close stack does (``C9add11`` bill_evans F Bb D E). The guard above still holds: never a
minor 2nd or 9th above the 3rd, so it lies below the 3rd (a major 7th under it) or well above.
Only the ``maj11``/``11``-named chords over a major 3rd (``Cmaj11``) keep the jazz rule that
the 11 gives way: there the 11 is the top of a stack of thirds, not a tone asked for.

``avoid`` lists intervals (in semitones) no two voices of a shape may form, when the style has
another shape without them: drop2/drop3, bill_evans and pad avoid the minor ninth (13), so a
major-seventh chord never puts its root a minor ninth above its 7th (``Bbmaj7`` drop2 is not A D
F Bb) and ``C13`` pad never puts its 13 a minor ninth under the b7. A bass voice (pad, shell) is
left out of that check: a 7b9 pad's root may lie a minor ninth under its b9. The pad (``open``)
keeps, of the shapes of the first tier that has any without a clash, those with the fewest
seconds between neighbouring upper voices, so an 11 chord's pad is no cluster (its colour slot
takes the 11 before the 9: ``Cm11`` pad is C4 G4 Bb4 Eb5 F5, not C3 D4 Eb4 F4 Bb4).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engine.errors import InvalidRequest

Layout = Literal["close", "drop2", "drop3", "forms", "spread", "line", "fourths"]

ROLE_KEYS = ("R", "R2", "3", "7", "5", "9", "11", "13", "+9", "+13", "b5", "+11", "+6",
             "+6triad", "+dim7", "+dimb7")

# Degree number of an interval label -> role family. 2 and 4 fold into 9 and 11; 6 into 13
# (a 6 without a seventh is promoted to the "7" role by engine.voicing).
FAMILY_OF_DEGREE = {1: "R", 2: "9", 3: "3", 4: "11", 5: "5", 6: "13", 7: "7", 9: "9",
                    11: "11", 13: "13"}

# Inside a family, the tone a slot takes first: altered tones define the sound of a chord
# (the #9 and b13 of an altered dominant, the b5 of a half-diminished chord), so they win.
FAMILY_ORDER = {
    "9": ("#9", "b9", "9", "2"),
    "11": ("#11", "11", "4"),
    "13": ("b13", "13", "6"),
    "5": ("b5", "#5", "5"),
    "7": ("bb7", "b7", "7"),
    "3": ("b3", "3"),
}

# Written alterations, in the order they claim a colour voice (#9 before b9, as in FAMILY_ORDER).
ALTERATIONS = ("#9", "b9", "b13", "#11", "b5", "#5")

# Roles that only double a tone already sounding (the root of a four-way triad): the first to
# give way, and the only voices a tone that gives way (GIVES_WAY) may claim.
REDUNDANT_ROLES = ("R2",)

# Roles whose voice a missing written alteration may take (when it holds no alteration itself),
# the first given up first: a doubled root, the plain 5, the added tones, then the extensions
# from the 9 up, so the highest named one (13; the 11 of an 11 chord; the 9 of a 9 chord) goes
# last. One order for every style: a style's slot order says what it holds, not what it can
# best spare.
GIVE_UP_ORDER = (*REDUNDANT_ROLES, "5", "+9", "+13", "9", "11", "13")

# Tone label -> the chord tone (label) a half step away that it gives way to when the chord has
# both, in the colour styles: the natural 11 (or 4) a half step above a major 3rd, the natural 5
# a half step below a written b13. Such a tone fills no slot and claims only a REDUNDANT_ROLES
# voice; where it sounds, it and its partner never lie a minor 2nd or minor 9th apart.
GIVES_WAY = {"11": "3", "4": "3", "5": "b13"}
CLASH_INTERVALS = (1, 13)

# Tones of GIVES_WAY that do not give way when the symbol adds them (``add11``, ``add4``: the
# additions of engine.chords.tables that bring them), in a style with at least WRITTEN_MIN_UPPER voices
# besides its root: such a tone fills the first empty slot that lists its family, else takes
# the voice of the first role of WRITTEN_TAKES the chord has (a doubled root, an unwritten
# added 9 or 13, the 5, then a 9 under a named 13; never a guide tone or the top extension).
WRITTEN_STAYS = ("11", "4")
WRITTEN_MIN_UPPER = 3
WRITTEN_TAKES = (*REDUNDANT_ROLES, "+9", "+13", "5", "9")

# The natural extensions a symbol names, lowest first: the highest one a chord has (not standing
# in for a 3rd) claims a colour voice like an alteration, from a tone GIVE_UP_ORDER gives up
# before it (``Cm11`` drop2 sounds its 11 rather than its 5).
NAMED_EXTENSIONS = ("9", "11", "13")

# Sus tones stand in for a missing third, the 4th before the 2nd.
SUS_LABELS = ("4", "11", "2", "9")

# The added tones of "+9" and "+13": (label, semitones above the root).
ADDED_TONES = {"+9": ("9", 14), "+13": ("13", 21), "+11": ("11", 17), "+6": ("13", 21),
               "+6triad": ("6", 9), "+dim7": ("bb7", 9), "+dimb7": ("b7", 10)}
# The added roles that fill only on a diminished triad (b3, b5, no 6th or 7th): its seventh.
DIM_SEVENTHS = ("+dim7", "+dimb7")

# Pad spacing, tried tier by tier until one gives a shape: (lowest upper voice at least this
# far above the bass, upper voices at least this far apart, upper structure at least this wide
# when it has three or more voices, whole pad at most this wide). The first tier is the open
# sound: no seconds anywhere, the upper voices in every order (grid 4: until grid 3 a fifth
# under uppers spanning more than an octave, which left one shape per chord, so the upper
# voices could only move in parallel with the bass). The search places the upper structure and
# the bass by octaves apart (``REGISTERS``: the pad is split); a bass below LOW_BASS keeps at
# least LOW_BASS_GAP under the upper voices (no thirds in the mud). The later tiers are the
# fallbacks for chords with too many tones for the first.
SPREAD_TIERS = ((3, 3, 0, 24), (3, 1, 0, 24), (1, 1, 0, 36))
LOW_BASS = 48
LOW_BASS_GAP = 7
# Low-interval limits (jazz arranging practice): the lowest MIDI note at which each interval
# between adjacent voices, by size in semitones, still sounds clear (E3 for a minor second,
# Eb3 a major second, C3 a minor third, Bb2 thirds to tritone, F2 a sixth or seventh). The
# split styles' placements keep them (a shell's root with its 7th right above it lies on F2 or
# higher; a slash bass a step under the chord's root on Eb3 or higher).
LOW_INTERVAL_LIMITS = {1: 52, 2: 51, 3: 48, 4: 46, 5: 46, 6: 46, 7: 34, 8: 43, 9: 41, 10: 41,
                       11: 41}

# Two notes within this many semitones count as a guide tone "kept" (common tone or a step).
GUIDE_STEP = 2

# A raw ``previous`` of at most this many notes is read as a guide-tone line (every note a
# guide tone) for ``guideTonesKept``; a denser one is not (see engine.voicing).
GUIDE_LINE_MAX = 4


@dataclass(frozen=True, slots=True)
class Style:
    name: str
    slots: tuple[tuple[str, ...], ...]
    layout: Layout
    bass: bool = False                              # a slash bass sounds below the slots
    orders: tuple[tuple[int, ...], ...] = ()        # "forms": slot indices bottom-up
    alterations: bool = False                       # written alterations displace colour tones
    avoid: tuple[int, ...] = ()                     # intervals between voices avoided if possible
    open: bool = False                              # fewest seconds between upper voices
    start: int = 0                                  # "line": the slot a line starts on
    minor: tuple[tuple[str, ...], ...] = ()         # slots of a chord with a minor third
    sus: tuple[tuple[str, ...], ...] = ()           # slots of a chord with no third
    inversions: tuple[tuple[int, ...], ...] = ()    # "forms" over a slash bass, besides orders


_UPPER4 = (("3",), ("7",), ("9", "+9"), ("13", "11", "5"))
_DROP = (("3",), ("7", "R2"), ("13", "5", "11"), ("9", "R"))

STYLES: dict[str, Style] = {s.name: s for s in (
    # 3 7 + ninth (the 9 replaces the root) + 13/11/5; any close inversion.
    Style("rootless", _UPPER4, "close", alterations=True),
    # A form 3-5-7-9, B form 7-9-3-5; 13 for 5 on dominants (a chord's own 13 or #11 first).
    Style("bill_evans", (("3",), ("7", "+dim7", "+dimb7", "+6triad"), ("9", "+9"),
                         ("13", "11", "+13", "5")),
          "forms",
          orders=((0, 3, 1, 2), (1, 2, 0, 3)), alterations=True, avoid=(13,)),
    # a left-hand shell (API.md 5): 1-3-7 or 1-7-3 within a tenth, root lowest (a slash bass
    # below it); a triad's 5 stands in for the 7; a half-diminished or diminished chord keeps
    # its b5 (1-3-b5-7 or 1-b5-7-3: without it F#m7b5 is an F#m7), and where its root lies
    # too low for the third or the tritone right above it (A2: under their low-interval
    # limits) the 1-7-10 shell with the b5 on top, 1-7-3-b5 (A2 G3 C4 Eb4, Register.reach).
    # Over a slash bass also the chord's inversion, its 3rd right above the bass and its root
    # on top (Cm7/Bb: Bb2 Eb3 G3 C4, a left hand, where the root right above the bass is a
    # muddy second, Bb2 C3, or a ninth out of the hand, Bb2 C4).
    Style("shell", (("R",), ("3", "R"), ("7", "5"), ("b5",)), "forms", bass=True,
          orders=((0, 1, 3, 2), (0, 3, 2, 1), (0, 2, 1, 3)), inversions=((1, 3, 2, 0),)),
    Style("triad", (("R",), ("3",), ("5", "13", "7", "11", "9")), "close"),
    # root in the bass (a slash bass below it), 3 and 7, the colour tone (an 11 before the 9:
    # the two with the 3rd make a cluster), the 5; spread open.
    Style("pad", (("R",), ("3", "R"), ("7", "R"), ("13", "11", "9", "5"), ("5", "9", "11")),
          "spread", bass=True, alterations=True, avoid=(13,), open=True),
    Style("guide_tones", (("3", "R"), ("7", "5")), "close"),
    # one-note guide-tone lines (API.md 5): each chord's 3rd or 7th, whichever lies nearer, so
    # the line moves by step (Dm7 G7 Cmaj7: F F E); the first chord sounds its 3rd / its 7th.
    Style("guide_third", (("3", "R"), ("7", "5")), "line", start=0),
    Style("guide_seventh", (("3", "R"), ("7", "5")), "line", start=1),
    # four-way close of 1 3 5 7 (9 for 1, 13 for 5 when the chord has them; a triad doubles
    # its root), then the 2nd / 3rd voice from the top an octave down.
    Style("drop2", _DROP, "drop2", alterations=True, avoid=(13,)),
    Style("drop3", _DROP, "drop3", alterations=True, avoid=(13,)),
    # So What on minor chords (1 11 b7 b3 5: Dm11 D G C F A; a m9, whose 9 will not fit in
    # that stack, takes the stack of fourths its tones allow), fourths from 7 or 3 on
    # dominants and majors
    # (7 3 13 9), fourths of root, sus 4th, 7, 9 and 5 on sus chords (Maiden Voyage's D7sus4
    # E A D G C).
    Style("quartal", (("7",), ("3",), ("13", "+6", "5"), ("9", "+9")), "fourths",
          alterations=True, minor=(("R",), ("11", "+11"), ("7",), ("3",), ("5",)),
          sus=(("R",), ("3",), ("7",), ("9", "+9"), ("5",))),
)}

STYLE_NAMES: tuple[str, ...] = tuple(STYLES)
"""The voicing styles, in the table's order (rootless first: the default)."""

DEFAULT_STYLE = "rootless"

# The gaps (semitones) between neighbours a quartal stack allows, and the one it seeks.
FOURTHS_GAPS = (3, 4, 5, 6)
FOURTH = 5
SO_WHAT_SPAN = 24

# Tones that may lie on top of a shell beyond its tenth, by how far: the b5 of a
# half-diminished chord (1-7-3-b5, A2 G3 C4 Eb4: the 1-7-10 shell with the b5 above it, an
# augmented 11th over the root) and the sus 4th that stands in for the 3rd (1-b7-11, A2 G3 D4:
# the 1-7-10 shell with its 10th raised to the 11th). Both are the shapes a pianist plays where
# the root lies under the low-interval limit of the 3rd, the tritone or the fourth right above
# it (a half-diminished chord or a sus chord on A2: under C3, Bb2, Bb2).
SHELL_REACH = (("b5", 2), ("4", 1), ("11", 1))
# The register cost of such a shape (search units: 4 semitones of motion): the hand stretches
# only where the line gains by it, not where the shell within a tenth does as well.
REACH_COST = 64

# A chord's place in its progression, as the progression analysis reads it
# (engine.analysis.in_context), first match first: an arrival (the chord a dominant resolves
# to), a phrase start (a section's first chord; the first chord after a cadence home, once its
# arrival is held), else inside a phrase. A style's ``Register.places`` prices its register
# moves by place.
PLACES = ("arrival", "phrase", "inside")
# Costs per semitone beyond a chord's leap, in the search's units (``kernels``: MOTION_UNIT 16
# a semitone of motion): the styles that move by step, and bill_evans on an arrival, where a
# register move is all but barred.
LEAP_UNIT = 32
ARRIVAL_UNIT = 1024
# bill_evans (the "cost of register moves at phrase starts, not on arrivals"): into an
# arrival every semitone beyond 7 all but barred (ARRIVAL_UNIT: the register never moves on a
# resolution); where a phrase starts, free (the pianist resets his hand there); inside a phrase
# each semitone beyond 7 costs twice the motion itself (LEAP_UNIT, as the styles that move by
# step pay), so a move the register needs waits for the next phrase where it can.
BILL_EVANS_PLACES = (("arrival", 7, ARRIVAL_UNIT), ("phrase", 0, 0), ("inside", 7, LEAP_UNIT))

# The tone a four-voice shape leaves out to play three (Register.thin), first found first:
# the natural 5 (the tone a pianist drops first: it says nothing of the chord), else a colour
# tone the style added (Bill Evans' 13 for 5, a triad's 6, the 9 for the root); never a tone
# the symbol writes as a tension, nor a guide tone.
THIN_FROM = 4
THIN_LEAVES = ("5", "13", "b13", "6", "9", "b9", "#9")

# With the default range, the lowest note of a shell or pad bass (C2): API.md 5. The bass's
# window still starts at E2 (``Register.bass``); a stepwise bass line may go on under it, each
# semitone under the window costing DEEP_UNIT (``Register.deep``), so it does so only where the
# line would otherwise leap back an octave in the middle of a run (Goodbye's line cliche C3
# down to D2, The Duke's Bb2 down to C2).
BASS_FLOOR = 36
DEEP_UNIT = 16
# Under F2 no seventh (nor sixth) sounds clear right above the bass (LOW_INTERVAL_LIMITS): there
# the bass lies an octave under the shape it would carry higher up, the root alone in the left
# hand, the shell's 3rd a tenth above it (D2 F#3 C4: 1-10-7), ``DEEP_SPAN`` more than
# ``Register.max_span`` (a pad's span holds it already).
DEEP_BELOW = LOW_INTERVAL_LIMITS[10]
DEEP_SPAN = 12
# A bass under its window carries its upper voices at their lowest: the voice above it lies
# less than DEEP_REACH above the bottom of the style's ``low`` window (the placements a run
# needs; the higher ones would only slow the search).
DEEP_REACH = 12
# A stepwise bass line spanning at most this many semitones always fits E2-B3 above F2 (the
# lowest root under a 7th): only a longer run may take the bass under E2.
DEEP_RUN = 7


@dataclass(frozen=True, slots=True)
class Register:
    """Where a style's voicings sit, as MIDI windows ``(lowest, highest)`` a note must lie in:
    ``low`` for the lowest voice above the bass (the lowest voice where there is no bass), ``top``
    for the highest, ``bass`` for the bass voice of the styles that have one (``split``: the
    bass is placed on its own octave below the upper structure, and the search weighs its motion
    lightly, so the upper voices keep common tones while the bass follows the roots).

    The search keeps a voicing inside every window that ``range`` lets it reach, and adds the
    distance of each windowed note from its window's centre (``engine.voicing.candidates``):
    it starts near the middle of the windows and never drifts out over a long tune.
    ``max_span`` is the widest a split voicing may be from bass to top; ``leap`` the (upper
    voices') motion per change beyond which each semitone costs the search three times as much
    (0: none), so that the style moves by step and spreads a long way over several changes;
    ``places`` (PLACES) per place of a chord in its progression the motion into it beyond
    which each semitone costs the search more, and that cost (search units); a place not
    listed keeps ``leap`` (``LEAP_UNIT``): bill_evans moves its register where a
    phrase starts, never on the resolution of a ii-V (ATTYA's Bb7 -> Ebmaj7 moved every voice
    up a fourth), and inside a phrase only at a cost. A bass under LOW_BASS keeps ``bass_gap`` or more under the next voice (a
    pad's fifth: no thirds in the mud; a shell, 0, keeps only the low-interval limits, so a
    ii-V chain walks down Bb2 D3 Ab3 rather than leaping back up an octave). ``off_form``
    (0: none) lets a ``forms`` style play the close stacks of its tones too, each costing that
    much more (search units: 96 is 6 semitones of motion), so bill_evans keeps its A and B
    forms but reaches an arrival by step where no form does (E7#9 -> Am7). ``pull`` weighs
    the distance from the windows' centres (1; 0 for the one-note lines, which keep inside
    their window and otherwise only move by step: a line pulled to the centre leapt there).
    ``reach``: (tone label, semitones) - how far beyond ``max_span`` that tone may lie on top
    of a shape (``SHELL_REACH``). ``thin`` (0: none; a style without a bass) lets a ``forms``
    style of four voices play the close stacks of three of them (``THIN_LEAVES``) on an
    arrival and the dominant before it, at that cost: bill_evans (512, 32 semitones of motion: only where a move of 8 into an arrival is
    the other choice) leaves out the 5 where no four-voice shape reaches an arrival in 7
    (Airegin's C7b5#9 E4 Gb4 Bb4 Eb5 -> Fm G4 Ab4 D5, not D4 G4 Ab4 C5). ``deep``: how many
    semitones a bass may lie under its window (each costing DEEP_UNIT; shell and pad: 4, from
    E2 down to C2 = BASS_FLOOR), so a stepwise bass line walks on rather than leap back."""

    low: tuple[int, int]
    top: tuple[int, int]
    bass: tuple[int, int] | None = None
    max_span: int = 127
    leap: int = 0
    places: tuple[tuple[str, int, int], ...] = ()
    bass_gap: int = LOW_BASS_GAP
    off_form: int = 0
    pull: int = 1
    reach: tuple[tuple[str, int], ...] = ()
    thin: int = 0
    deep: int = 0

    @property
    def split(self) -> bool:
        return self.bass is not None


# Measured on the JazzStandards tunes and set from how pianists place each style (C4 = 60):
# left-hand rootless voicings (bill_evans too) have their lowest note about D3-G4 and their top
# at most about G5; drop2/drop3 lead with the top voice, G4-G5; a triad and the guide tones
# sit around the middle; shell and pad roots lie in E2-B3 (the default range lets them go under
# its lowest note, to E2 = 40 and in a stepwise run on to C2: ``BASS_FLOOR``, ``Register.deep``),
# so that root motion moves by step, not by a seventh (C7 B7 Bb7: C3 B2 Bb2, not C3 B3 Bb3);
# the shell's 3rd and 7th lie within a tenth of its root (a left hand; under F2 the root alone,
# an octave under them), a pad's upper structure above its root.
REGISTERS: dict[str, Register] = {
    "rootless": Register(low=(50, 67), top=(58, 79)),
    "bill_evans": Register(low=(50, 67), top=(58, 79), places=BILL_EVANS_PLACES, off_form=96,
                           thin=512),
    "shell": Register(low=(48, 70), top=(55, 81), bass=(40, 59), max_span=16, leap=4,
                      bass_gap=0, reach=SHELL_REACH, deep=4),
    "triad": Register(low=(53, 67), top=(60, 79)),
    "pad": Register(low=(53, 74), top=(64, 86), bass=(40, 59), max_span=36, leap=6, deep=4),
    "guide_tones": Register(low=(52, 64), top=(55, 72)),
    "guide_third": Register(low=(52, 67), top=(52, 67), pull=0),
    "guide_seventh": Register(low=(52, 67), top=(52, 67), pull=0),
    "drop2": Register(low=(43, 67), top=(66, 81)),
    "drop3": Register(low=(40, 64), top=(66, 81)),
    "quartal": Register(low=(48, 67), top=(60, 84)),
}


def style_named(name: str | None) -> Style:
    """The style called exactly ``name`` (absent: the default). Any other name is
    ``invalid_request`` listing the styles (API.md 5: identifiers exact): it used to become
    rootless without a word, so a typo such as ``"bill evans"`` went unnoticed."""
    if name is None:
        return STYLES[DEFAULT_STYLE]
    style = STYLES.get(name)
    if style is None:
        raise InvalidRequest(f"unknown voicing style {name!r}; the styles are "
                             + ", ".join(STYLES), field="style")
    return style
