"""Grooves as data.

Every rhythm is a step string over one bar: its length sets the grid (8 steps in 4/4 are
eighths, 16 are sixteenths, 12 are triplet eighths). A character starts a note or not:

- drums, comping and pattern: ``X`` accent, ``x`` normal, ``o`` ghost (played from energy
  0.4), ``+`` extra (played from energy 0.7); ``-`` holds the previous note, ``.`` is silence;
- bass: a chord role — ``R`` root (the slash bass if any), ``3`` ``5`` ``6`` ``7`` the chord's
  third/fifth/sixth/seventh, ``8`` the root an octave up, ``A`` an approach note into the next
  chord's root, ``N`` the next chord's root itself, anticipated and held over the bar line (the
  tumbao's "ponche"), ``T`` the key's tonic (a pedal) — with ``-`` and ``.`` as above. ``walk``
  instead of a table walks one note per pulse through chord tones and approach notes.

A step string may hold several bars separated by ``|``: bar ``b`` of the piece plays part
``b % parts`` (shifted by one bar for a clave turned round, ``2-3`` instead of the written
``3-2``). The clave, the cascara, the montuno and the second line's bass drum are two-bar
patterns.

Comping and pattern rhythms are listed sparse to dense; the energy of the bar picks one.
A style without a table for the requested meter gets one built from the meter (``generic``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

# General MIDI percussion (channel 10).
KICK, SIDE_STICK, SNARE, CLAP = 36, 37, 38, 39
CLOSED_HAT, PEDAL_HAT, OPEN_HAT = 42, 44, 46
CRASH, RIDE, TAMBOURINE, COWBELL = 49, 51, 54, 56
SHAKER, HI_CONGA, LOW_CONGA = 70, 63, 64
MUTE_CONGA, HIGH_TIMBALE, LOW_TIMBALE, CLAVES = 62, 65, 66, 75
HIGH_TOM, MID_TOM, LOW_TOM = 50, 47, 43
# The GM brush kit (program 40 on channel 10) plays brushes on the snare's keys.
BRUSH_TAP, BRUSH_SWIRL = 38, 40
BRUSH_KIT = 40

# Drum fills over the last pulse of a chorus's last bar, in equal steps.
FILL_SWING = (SNARE, SNARE, HIGH_TOM, MID_TOM, LOW_TOM, LOW_TOM)
FILL_STRAIGHT = (SNARE, SNARE, HIGH_TOM, HIGH_TOM, MID_TOM, MID_TOM, LOW_TOM, LOW_TOM)

LEVEL = {"X": 1.0, "x": 0.8, "o": 0.5, "+": 0.75}
MIN_ENERGY = {"X": 0.0, "x": 0.0, "o": 0.4, "+": 0.7}

Rhythms = dict[str, tuple[str, ...]]


@dataclass(frozen=True, slots=True)
class Groove:
    """One style: feel, drum kit, comping, pattern lane, bass approach and sounds."""

    swing: float                         # share of the beat taken by the first eighth
    drums: dict[str, dict[int, str]]     # meter -> GM drum note -> step string
    comping: Rhythms                     # meter -> rhythms of the harmony lane, sparse first
    pattern: Rhythms                     # meter -> rhythms of the pattern lane, sparse first
    figure: str                          # arpeggio | strum | riff | boogie
    bass: dict[str, str] | str           # meter -> bass role string, or "walk"
    cymbal: int                          # the time-keeping cymbal for meters without a table
    voicing: str                         # voicing style of the harmony lane
    programs: tuple[int, int, int]       # GM programs: harmony, pattern, bass
    names: tuple[str, str] = ("Piano", "Guitar")
    two_feel: dict[str, str] = field(default_factory=dict)
    kit: int = 0                         # GM drum kit (program on channel 10): 0 standard
    harmony_figure: str | None = None    # the harmony lane plays this figure, not voicings
    meter: tuple[int, int] = (4, 4)      # the style's own meter
    clave: bool = False                  # its two-bar patterns follow a clave (3-2 written)


TWO_FEEL = {"4/4": "R---A---", "3/4": "R-----", "2/4": "R-A-", "2/2": "R---A---"}
PEDAL = {"4/4": "T---T---", "3/4": "T-----"}

# Jazz ride: "ding, ding-a, ding, ding-a" accented on 2 and 4, with the hi-hat foot there.
GROOVES: dict[str, Groove] = {
    "swing": Groove(
        swing=0.64,
        drums={"4/4": {RIDE: "x.Xxx.Xx", PEDAL_HAT: "..x...x.", KICK: "o.o.o.o.",
                       SNARE: "...+..o+"},
               "3/4": {RIDE: "X.xxx.", PEDAL_HAT: "..x.x.", KICK: "o.....", SNARE: "...+.o"}},
        comping={"4/4": ("x-------", "...x-...", "x--x----", "..x-..x-", "x-.x..x-"),
                 "3/4": ("x-----", "..x-..", "x-..x-", ".x.x-.")},
        pattern={"4/4": ("x...x...", "x.x.x.x."), "3/4": ("x.....", "x.x.x.")},
        figure="strum", bass="walk", cymbal=RIDE, voicing="drop2",
        programs=(0, 26, 32), names=("Piano", "Jazz Guitar")),
    "bossa_nova": Groove(
        swing=0.5,
        drums={"4/4": {SIDE_STICK: "x..x..x.", CLOSED_HAT: "xoxoxoxo", KICK: "x..xx..x",
                       SHAKER: "+.+.+.+."}},
        comping={"4/4": ("x-------", "x--x----", "x-.x-.x-", ".x-x-.x-")},
        pattern={"4/4": ("x..x..x.", "x.xx.xx.", "xxxxxxxx")},
        figure="strum", bass={"4/4": "R--55--R", "3/4": "R--5-5"}, cymbal=CLOSED_HAT,
        voicing="drop2", programs=(4, 24, 32), names=("Electric Piano", "Nylon Guitar")),
    "ballad": Groove(
        swing=0.6,
        drums={"4/4": {SNARE: "o.o.o.o.", RIDE: "x.x+x.x+", PEDAL_HAT: "..x...x.",
                       KICK: "o......."}},
        comping={"4/4": ("x-------", "x---x---", "x---x-.x")},
        pattern={"4/4": ("x...x...", "x.x.x.x.", "x.xxx.xx")},
        figure="arpeggio", bass={"4/4": "R---5---", "3/4": "R-----"}, cymbal=RIDE,
        voicing="drop2", programs=(0, 11, 32), names=("Piano", "Vibraphone")),
    "jazz_waltz": Groove(
        swing=0.62,
        drums={"3/4": {RIDE: "X.xxx.", PEDAL_HAT: "..x.x.", KICK: "x.....", SNARE: "...+.o"}},
        comping={"3/4": ("x-----", "x-..x-", ".x..x-", "x-.xx-")},
        pattern={"3/4": ("x.....", "x.x.x.", "x.xxx.")},
        figure="arpeggio", bass="walk", cymbal=RIDE, voicing="drop2",
        programs=(0, 11, 32), names=("Piano", "Vibraphone")),
    "funk": Groove(
        swing=0.5,
        drums={"4/4": {CLOSED_HAT: "XoxoXoxoXoxoXoxo", SNARE: "....X..o.o..X..+",
                       KICK: "X.x...x...X..x..", OPEN_HAT: "..............+."}},
        comping={"4/4": ("....x-......x-..", "x-..x-..x.....x-", "x..x..x.x-.x..x.")},
        pattern={"4/4": ("x.x...x.x.x...x.", "x.xx..x.x.xx..x.", "xxx.x.xxx.xxx.x.")},
        figure="riff", bass={"4/4": "R-.R..8.R..5.7.A", "3/4": "R-.R..8.5.7A"},
        cymbal=CLOSED_HAT, voicing="drop2", programs=(4, 7, 33),
        names=("Electric Piano", "Clavinet")),
    "samba": Groove(
        swing=0.5,
        drums={"4/4": {KICK: "x..Xx..Xx..Xx..X", SHAKER: "XooxXooxXooxXoox",
                       SIDE_STICK: "x..x..x...x..x..", HI_CONGA: "+.+.....+.+....."}},
        comping={"4/4": ("x-------x-------", "x--x--x---x--x--", "x-.x-.x-.x-.x-x-")},
        pattern={"4/4": ("x..x..x...x..x..", "x.xx.x.xx.xx.x.x")},
        figure="strum", bass={"4/4": "R--5R---R--5A---", "3/4": "R--5R---A---"},
        cymbal=SHAKER, voicing="drop2", programs=(0, 24, 33), names=("Piano", "Nylon Guitar")),
    "shuffle_blues": Groove(
        swing=0.67,
        drums={"4/4": {CLOSED_HAT: "XxXxXxXx", SNARE: "..X...X.", KICK: "x...x..."}},
        comping={"4/4": ("..x-..x-", "x-x-x-x-", "x-xxx-xx")},
        pattern={"4/4": ("xxxxxxxx",)},
        figure="boogie", bass={"4/4": "R-3-5-6-", "3/4": "R-3-5-"}, cymbal=CLOSED_HAT,
        voicing="shell", programs=(0, 27, 33), names=("Piano", "Electric Guitar")),
    "rock_pop": Groove(
        swing=0.5,
        drums={"4/4": {CLOSED_HAT: "XxXxXxXx", SNARE: "..X...X.", KICK: "X...X.x.",
                       CRASH: "+......."}},
        comping={"4/4": ("x-------", "x---x---", "x-x-x-x-")},
        pattern={"4/4": ("x..x..x.", "x.xx.xx.", "xxxxxxxx")},
        figure="strum", bass={"4/4": "RRRRRR5A", "3/4": "RRRR5A"}, cymbal=CLOSED_HAT,
        voicing="triad", programs=(0, 27, 33), names=("Piano", "Electric Guitar")),
    "gospel": Groove(
        swing=0.67,
        drums={"4/4": {CLOSED_HAT: "XxxXxxXxxXxx", SNARE: "...X.....X..",
                       KICK: "X.....X.x...", TAMBOURINE: "...+.....+.."}},
        comping={"4/4": ("x-----------", "x-----x-----", "x--x--x--x--")},
        pattern={"4/4": ("x..x..x..x..", "x.xx.xx.xx.x", "xxxxxxxxxxxx")},
        figure="arpeggio", bass={"4/4": "R-----5--8-A", "3/4": "R-----5--A--"},
        cymbal=CLOSED_HAT, voicing="drop2", programs=(16, 0, 33), names=("Organ", "Piano")),
    "modal_vamp": Groove(
        swing=0.6,
        drums={"4/4": {RIDE: "x.Xxx.Xx", PEDAL_HAT: "..x...x.", KICK: "o..+..o.",
                       SNARE: "..o..+.o"}},
        comping={"4/4": ("x-------", "x--x----", ".x..x-..", "x-.x.xx-")},
        pattern={"4/4": ("x.......", "x..x..x.", "x.xx.xx.")},
        figure="riff", bass="walk", cymbal=RIDE, voicing="drop2",
        programs=(0, 11, 32), names=("Piano", "Vibraphone")),
}


# The Afro-Cuban family, written in 3-2 (the clave's three-side first); ``2-3`` turns every
# two-bar pattern round by one bar, so the lanes keep their place against the clave.
SON_CLAVE = "x..x..x.|..x.x..."          # 1, 2&, 4 | 2, 3
RUMBA_CLAVE = "x..x...x|..x.x..."        # the third stroke an eighth later: on 4&
# Cascara on the timbale's shell (GM has no shell: the high timbale), the bongo bell on the
# beats, the conga's tumbao: slap on 2, open tones on 4 and 4&.
AFRO_CUBAN_DRUMS = {CLAVES: SON_CLAVE, HIGH_TIMBALE: "x.xx.x.x|x.x.xx.x",
                    COWBELL: "X.x.X.x.|X.x.X.x.", MUTE_CONGA: "o.X.o...", HI_CONGA: "......xx",
                    KICK: "......o.|......o."}
# The piano montuno: the three-side bar on the off-beats and 4, the two-side bar on 1, 2, 3
# and the "and of 4" pushed into the next bar (Salsa Piano, Hal Leonard: only the last note
# differs between the two bars).
MONTUNO = ".x.x.xx.|x.x.x..x"
# Tumbao bass: the tresillo's two off-beats, the "and of 2" (bombo) and 4 (ponche), the
# second the next chord's root held over the bar line; beat 1 is silent.
TUMBAO = "...5-.N-"

GROOVES["son_montuno"] = Groove(
    swing=0.5, drums={"4/4": AFRO_CUBAN_DRUMS},
    comping={"4/4": (MONTUNO,)}, pattern={"4/4": ("..x...x.", "..x.x.x.")},
    figure="strum", bass={"4/4": TUMBAO}, cymbal=COWBELL, voicing="drop2",
    programs=(0, 24, 33), names=("Piano", "Tres"), harmony_figure="montuno", clave=True)
GROOVES["rumba"] = Groove(
    swing=0.5, drums={"4/4": {**AFRO_CUBAN_DRUMS, CLAVES: RUMBA_CLAVE,
                              LOW_CONGA: "...x..x.|.x....x.", COWBELL: "........"}},
    comping={"4/4": (MONTUNO,)}, pattern={"4/4": ("..x...x.",)},
    figure="strum", bass={"4/4": TUMBAO}, cymbal=HI_CONGA, voicing="drop2",
    programs=(0, 24, 32), names=("Piano", "Tres"), harmony_figure="montuno", clave=True)
# Afro-Cuban 6/8 (bembé): the bell's seven strokes over twelve eighths, the congas and the
# kick on the dotted-quarter pulse.
GROOVES["afro_cuban_6_8"] = Groove(
    swing=0.5,
    drums={"12/8": {COWBELL: "x.x.xx.x.x.x", LOW_CONGA: "x..x..x..x..",
                    HI_CONGA: "..x..x..x..x", SHAKER: "oxxoxxoxxoxx", KICK: "X.....o....."},
           "6/8": {COWBELL: "x.x.xx|.x.x.x", LOW_CONGA: "x..x..", HI_CONGA: "..x..x",
                   KICK: "X....."}},
    comping={"12/8": ("x-----x-----", "x--x--x--x-."), "6/8": ("x-----", "x--x--")},
    pattern={"12/8": ("..x..x..x..x",), "6/8": ("..x..x",)},
    figure="strum", bass={"12/8": "R-----5--A--", "6/8": "R--5--"}, cymbal=COWBELL,
    voicing="drop2", programs=(0, 24, 32), names=("Piano", "Nylon Guitar"), meter=(12, 8))
# Reggae one-drop: the kick and the rim together on 3 alone (nothing on 1), the skank on 2
# and 4, the organ's bubble between.
GROOVES["reggae"] = Groove(
    swing=0.55,
    drums={"4/4": {KICK: "....X...", SIDE_STICK: "....X...", CLOSED_HAT: "xoxoxoxo",
                   OPEN_HAT: ".......+"}},
    comping={"4/4": (".x-..x-.", ".xx..xx.")}, pattern={"4/4": ("..x...x.",)},
    figure="strum", bass={"4/4": "R--5..R.", "3/4": "R--5.."}, cymbal=CLOSED_HAT,
    voicing="triad", programs=(17, 27, 33), names=("Organ", "Electric Guitar"))
# Hip-hop (boom bap): kick on 1, the "a" of 2 and the "and" of 3, snare on 2 and 4, swung
# hats; a Rhodes, a synth bass on the kick.
GROOVES["hip_hop"] = Groove(
    swing=0.58,
    drums={"4/4": {KICK: "X......x..x.....", SNARE: "....X.......X...",
                   CLOSED_HAT: "x.x.x.x.x.x.x.x.", OPEN_HAT: "..............+."}},
    comping={"4/4": ("x-------........", "x-------..x-----")},
    pattern={"4/4": ("x...............", "x.......x.......")},
    figure="arpeggio", bass={"4/4": "R-----.R..R-----", "3/4": "R-----.R..R-"},
    cymbal=CLOSED_HAT, voicing="drop2", programs=(4, 11, 38),
    names=("Electric Piano", "Vibraphone"))
# New Orleans second line: the snare's running eighths accented on the 3-2 son clave, the
# bass drum's two-bar figure ending on the "Big Four" (beat 4 of the second bar), the hi-hat
# foot on 2 and 4; tuba on the bass, a trombone riff.
GROOVES["second_line"] = Groove(
    swing=0.6,
    drums={"4/4": {KICK: "X..x....|..x...X.", SNARE: "XoxXoxXo|oxXoXoxo",
                   PEDAL_HAT: "..x...x.", CRASH: "........|......+."}},
    comping={"4/4": ("x-..x-..", "x-.xx-.x")}, pattern={"4/4": ("x..x..x.|..x.x...",)},
    figure="riff", bass={"4/4": "R---5---|R---5-A-", "3/4": "R--5--"}, cymbal=SNARE,
    voicing="triad", programs=(0, 57, 58), names=("Piano", "Trombone"))
# Stride piano: the left hand on 1 and 3 (root, then the fifth), chords on 2 and 4 in the
# middle of the keyboard; the drummer stays out of the way (hi-hat foot, a soft ride).
GROOVES["stride"] = Groove(
    swing=0.62,
    drums={"4/4": {PEDAL_HAT: "..x...x.", RIDE: "o.o.o.o."}, "3/4": {PEDAL_HAT: "..x.x."}},
    comping={"4/4": ("..x-..x-",), "3/4": ("..x-x-",)}, pattern={"4/4": ("........",),
                                                                 "3/4": ("......",)},
    figure="arpeggio", bass={"4/4": "R---5---", "3/4": "R-----"}, cymbal=RIDE,
    voicing="shell", programs=(0, 0, 0), names=("Piano (right hand)", "Piano"))

# Brushes, for any style: the GM brush kit, a swirl through each half bar, taps on the
# ride's rhythm and the hi-hat foot on 2 and 4.
BRUSH_DRUMS: dict[str, dict[int, str]] = {
    "4/4": {BRUSH_SWIRL: "x---x---", BRUSH_TAP: "x.Xxx.Xx", PEDAL_HAT: "..x...x.",
            KICK: "o......."},
    "3/4": {BRUSH_SWIRL: "x-----", BRUSH_TAP: "X.xxx.", PEDAL_HAT: "..x.x."},
}


def part(rhythm: str, bar: int) -> str:
    """The bar's part of a step string of one or more bars separated by ``|``."""
    if "|" not in rhythm:
        return rhythm
    parts = rhythm.split("|")
    return parts[bar % len(parts)]


def meter_key(meter: tuple[int, int]) -> str:
    return f"{meter[0]}/{meter[1]}"


def groups(meter: tuple[int, int]) -> list[int]:
    """Beat units per pulse group: 6/8 -> [3, 3], 5/4 -> [1]*5, 7/8 -> [2, 2, 3]."""
    n, d = meter
    if d == 8 and n % 3 == 0 and n > 3:
        return [3] * (n // 3)
    if d == 8 and n > 4:
        return [2] * ((n - 3) // 2) + [3] if n % 2 else [2] * (n // 2)
    return [1] * n


def generic_drums(groove: Groove, meter: tuple[int, int]) -> dict[int, str]:
    """A kit for any meter: the style's cymbal on every beat unit, kick on the first pulse,
    snare on the other pulses."""
    g = groups(meter)
    steps = sum(g)
    starts = [sum(g[:i]) for i in range(len(g))]
    cym = "".join("X" if i == 0 else "x" for i in range(steps))
    kick = "".join("X" if i == 0 else "." for i in range(steps))
    snare = "".join(("x" if len(g) > 1 else "o") if i in starts[1:] else "." for i in range(steps))
    if len(g) == 1 or snare.strip(".") == "":
        snare = "." * (steps - 1) + "o"
    return {groove.cymbal: cym, KICK: kick, SNARE: snare}


def generic_rhythms(meter: tuple[int, int]) -> tuple[str, ...]:
    """Comping or pattern rhythms for any meter: one hit per pulse group, then every unit."""
    g = groups(meter)
    per_group = "".join("x" + "-" * (n - 1) for n in g)
    return ("x" + "-" * (sum(g) - 1), per_group, "x" * sum(g))


def generic_bass(meter: tuple[int, int]) -> str:
    g = groups(meter)
    roles = ["R"] + ["5"] * max(0, len(g) - 2) + (["A"] if len(g) > 1 else [])
    return "".join(r + "-" * (n - 1) for r, n in zip(roles, g, strict=True))


def drums_for(groove: Groove, meter: tuple[int, int]) -> dict[int, str]:
    return groove.drums.get(meter_key(meter)) or generic_drums(groove, meter)


def comping_for(groove: Groove, meter: tuple[int, int]) -> tuple[str, ...]:
    return groove.comping.get(meter_key(meter)) or generic_rhythms(meter)


def pattern_for(groove: Groove, meter: tuple[int, int]) -> tuple[str, ...]:
    return groove.pattern.get(meter_key(meter)) or generic_rhythms(meter)


def bass_for(groove: Groove, meter: tuple[int, int], approach: str | None) -> str:
    """The bass role string, or ``"walk"``; ``approach`` is the direction's bass word."""
    key = meter_key(meter)
    if approach == "walk" or (approach is None and groove.bass == "walk"):
        return "walk"
    if approach == "two":
        return TWO_FEEL.get(key) or generic_bass(meter)
    if approach == "pedal":
        return PEDAL.get(key) or "T" + "-" * (sum(groups(meter)) - 1)
    if isinstance(groove.bass, dict) and key in groove.bass:
        return groove.bass[key]
    return generic_bass(meter)


def pick(rhythms: tuple[str, ...], energy: float, nudge: int) -> str:
    """The rhythm for a bar of this energy: denser as energy grows; ``nudge`` (-1, 0, 1, from
    the seed) moves one step sparser or denser for variety."""
    i = min(len(rhythms) - 1, int(energy * len(rhythms)))
    return rhythms[max(0, min(len(rhythms) - 1, i + nudge))]
