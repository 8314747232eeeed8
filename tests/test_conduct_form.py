"""conduct: how a piece is cut from a form or a user's progression (endings, bar counts and
tempo for a duration) and which key a progression is in when the direction names none."""

from __future__ import annotations

import math
from typing import Any

import pytest

from engine.chords.symbols import parse
from engine.conduct import conduct
from engine.conduct.prompt import read_prompt
from engine.errors import InvalidRequest
from tests.test_conduct import check_midi

MINOR_THIRD = {"minor": True, "dorian": True, "phrygian": True, "aeolian": True,
               "locrian": True, "major": False, "lydian": False, "mixolydian": False}
PC = {"C": 0, "Db": 1, "D": 2, "Eb": 3, "E": 4, "F": 5, "F#": 6, "Gb": 6, "G": 7, "Ab": 8,
      "A": 9, "Bb": 10, "B": 11, "C#": 1, "Cb": 11}
# Approaches a form makes its own way: the funk vamp's IV, the bossa's bII7, rock's plagal IV
# (minor: bVII), the IV of a vamp in major or minor ("modal vamp", "Dorian vamp in Bb minor":
# no ii-V in a vamp).
OWN_APPROACH = {"funk": (5,), "bossa nova": (1,), "rock": (5, 10), "vamp": (5,)}
# ... and only after a whole chorus: the plain blues's last line, V7 | IV7 | I7 (cut after
# its second line it is approached by its V7, never IV7 -> I7 as in bar 8)
CHORUS_APPROACH = {"shuffle blues": (5,)}
FORM_PROMPTS = ("medium swing blues", "shuffle blues", "minor blues", "bossa nova", "ballad",
                "jazz waltz", "funk", "samba", "rock", "gospel", "modal vamp", "Dorian vamp",
                "Phrygian vamp", "Lydian vamp", "Mixolydian vamp", "Locrian vamp",
                "rhythm changes", "AABA", "ii-V-I", "turnaround", "swing blues, 32 bars",
                "ballad, 10 bars", "shuffle blues, 8 bars", "shuffle blues, 20 bars",
                "gospel, 2 bars", "gospel, 10 bars", "rhythm changes, 5 bars", "rock, 12 bars",
                "modal vamp, 6 bars")


def last_bar(result: dict[str, Any]) -> list[str]:
    bars = result["conductor"]["bars"]
    return [c["symbol"] for c in result["chords"] if c["bar"] == bars]


@pytest.mark.parametrize("prompt", FORM_PROMPTS)
@pytest.mark.parametrize("key", ["F", "Bb minor"])
@pytest.mark.parametrize("duration", [None, 20, 47])
def test_every_form_ends_on_its_tonic(prompt: str, key: str, duration: int | None) -> None:
    request: dict[str, Any] = {"prompt": f"{prompt} in {key}"}
    if duration:
        request["durationSec"] = duration
    result = conduct(request)
    c = result["conductor"]
    final = last_bar(result)
    assert len(final) == 1, final
    chord = parse(final[0])
    assert chord.root.pc == PC[c["key"]] and chord.bass is None, final
    assert ("b3" in chord.intervals) == MINOR_THIRD[c["mode"]], (final, c["mode"])
    # ... approached by its dominant (or a form's own approach: the shuffle blues's and the
    # funk vamp's IV, the bossa's bII7, minor rock's bVII); a mode's vamp has none.
    chords = [parse(ch["symbol"]) for ch in result["chords"]]
    approach = next(ch for ch in reversed(chords) if ch.root.pc != chord.root.pc)
    if c["mode"] in ("major", "minor"):
        interval = (approach.root.pc - chord.root.pc) % 12
        dominant = interval == 7 and "b3" not in approach.intervals
        style = prompt.split(",")[0]
        own = (*OWN_APPROACH.get(style, OWN_APPROACH.get(style.split()[-1], ())),
               *(CHORUS_APPROACH.get(style, ()) if c["bars"] % 12 == 0 else ()))
        assert dominant or interval in own, (result["leadSheet"], approach.symbol)
    # the crash of the final bar sounds under the tonic
    bar_ticks = 480 * 4 * int(c["timeSignature"][0]) // int(c["timeSignature"][2])
    start = (c["bars"] - 1) * bar_ticks
    assert any(e["tick"] == start and e["pitch"] == 49 for e in result["lanes"]["drums"])


@pytest.mark.parametrize(("prompt", "end"), [
    # the blues's V7 in bar 10 resolves on its tonic in bar 11 (was "| Gm7 | C7 | Gm7 C7 | F7 |")
    ("medium swing blues in F", "| Gm7 | C7 | F7 | F7 |"),
    ("minor blues in C", "| Ab7 | G7 | Cm7 | Cm7 |"),
    ("shuffle blues in E", "| B7 | A7 | E7 | E7 |"),
    # a ii-V into the final tonic, not VI7 -> I or ii -> I
    ("turnaround in C", "| Cmaj7 Am7 | Dm7 G7 | Dm7 G7 | Cmaj7 |"),
    ("AABA in Eb, 12 bars", "| Ebmaj7 | Cm7 | Fm7 Bb7 | Ebmaj7 |"),
    # a form that ends on V7 | I keeps it
    ("ballad in Db", "| Ebm7 Ab7 | Gbmaj7 Gbm7 | Fm7 Bb7 | Ebm7 Ab7 | Db6 |"),
    # a bar "I I7" never ends a piece: its I7 leads on to IV (were "| C F/C | C C7 |",
    # "| C C7 |" and "| Bb Bb7 |")
    ("gospel in C, 2 bars", "| Dm7 G7 | C |"),
    ("gospel in C, 10 bars", "| Dm7 G7sus4 | C | Dm7 G7 | C |"),
    ("rhythm changes in Bb, 5 bars", "| Cm7 F7 | Bb6 |"),
    # a blues cut mid-chorus ends on its V7, not on its own IV7 -> I7 of bar 8 or I7 of bar 4
    ("shuffle blues in C, 8 bars", "| F7 | F7 | G7 | C7 |"),
    ("shuffle blues in C, 4 bars", "| C7 | F7 | G7 | C7 |"),
    ("medium swing blues in F, 8 bars", "| Bb7 | Bdim7 | Gm7 C7 | F7 |"),
    # a pop song ends on its own plagal IV -> I (was "| G | D | D | G |": I-V-V-I)
    ("rock in G, 16 bars", "| G | D | C | G |"),
    ("rock in G, 12 bars", "| G | D | C | G |"),
    # a modal vamp falls back to its tonic, no ii-V (was "| Dm7 G7 | Cmaj7 |")
    ("modal vamp in C, 8 bars", "| Cmaj7 | Fmaj7 | Cmaj7 | Cmaj7 |"),
])
def test_a_form_ends_on_its_tonic_after_its_dominant(prompt: str, end: str) -> None:
    sheet = conduct({"prompt": prompt})["leadSheet"]
    cells = [c.strip() for line in sheet.splitlines() for c in line.strip("| ").split("|")]
    want = [c.strip() for c in end.strip("| ").split("|")]
    assert cells[-len(want):] == want, sheet


def test_a_user_progression_ends_on_the_home_tonic() -> None:
    # a turnaround would end the piece on its dominant: the tonic bar is added after it
    given = conduct({"prompt": "swing in C", "progression": "Cmaj7 | A7 | Dm7 | G7"})
    assert last_bar(given) == ["Cmaj7"]
    assert given["conductor"]["ending"] == "added"
    assert given["conductor"]["bars"] == 17          # four passes and the tonic bar
    # Blue Bossa ends on its turnaround Dm7b5 G7alt: home is its own Cm7
    blue_bossa = ("Cm7 | Cm7 | Fm7 | Fm7 | Dm7b5 | G7alt | Cm7 | Cm7 | Ebm7 | Ab7 | Dbmaj7 | "
                  "Dbmaj7 | Dm7b5 | G7alt | Cm7 | Dm7b5 G7alt")
    bossa = conduct({"prompt": "bossa nova", "progression": blue_bossa})
    assert (bossa["conductor"]["key"], bossa["conductor"]["mode"]) == ("C", "minor")
    assert last_bar(bossa) == ["Cm7"] and bossa["conductor"]["ending"] == "added"
    # a chord that does not lead home by itself gets the mode's approach first
    far = conduct({"prompt": "swing in C", "progression": "Cmaj7 | Ebmaj7"})
    assert far["leadSheet"].endswith("| Dm7 G7 | Cmaj7 |")
    # on the ii: its V, then home
    ii = conduct({"prompt": "swing in F, 4 bars", "progression": "Fmaj7 | D7 | Gm7"})
    assert ii["leadSheet"].endswith("| Gm7 | C7 | Fmaj7 |")
    # already home: nothing added
    home = conduct({"prompt": "swing, 4 bars", "progression": "Dm7 | G7 | Cmaj7"})
    assert home["conductor"]["bars"] == 6 and home["conductor"]["ending"] == "tonic"


@pytest.mark.parametrize("prompt", ["bossa nova vamp", "swing, loop it", "funk, looped",
                                    "ballad, no ending"])
def test_a_vamp_or_a_loop_ends_where_the_progression_ends(prompt: str) -> None:
    result = conduct({"prompt": prompt, "progression": "Dm7b5 | G7alt"})
    assert last_bar(result) == ["G7alt"]
    assert result["conductor"]["ending"] == "open"
    assert result["conductor"]["bars"] % 2 == 0       # whole passes only


def test_the_ending_is_voiced_and_played_like_the_rest() -> None:
    result = conduct({"prompt": "bossa nova in C minor", "progression": "Dm7b5 | G7alt"})
    check_midi(result)
    bars = result["conductor"]["bars"]
    start = (bars - 1) * 4 * 480
    for lane in ("harmony", "bass"):
        last = [e for e in result["lanes"][lane] if e["tick"] >= start]
        assert last, lane
    # the harmony of the last bar sounds C minor's tones (C Eb G Bb)
    pcs = {e["pitch"] % 12 for e in result["lanes"]["harmony"] if e["tick"] >= start}
    assert pcs <= {0, 3, 7, 10, 2, 5}, pcs


@pytest.mark.parametrize(("request_", "bars", "tempo"), [
    # whole choruses when their tempo is within 1.25x of the asked (or the style's) one
    ({"prompt": "medium swing blues in F", "durationSec": 62}, 36, 139.35),
    # else an A section of an AABA: a duration never doubles the tempo (were 32 bars at 256
    # and at 128: a ballad played as a swing tune)
    ({"prompt": "rhythm changes", "durationSec": 30}, 16, 128.0),
    ({"prompt": "ballad AABA", "durationSec": 60}, 16, 64.0),
    # ... and never stops after the bridge (were 24 bars, AAB, at 76.8 and at 64)
    ({"prompt": "slow ballad AABA in Eb", "durationSec": 75}, 16, 51.2),
    ({"prompt": "ballad AABA in Eb", "durationSec": 90}, 32, 85.33),
    ({"prompt": "rhythm changes in Bb", "durationSec": 40}, 32, 192.0),    # was 24 at 144
    # a bossa stops after a half, whatever the tempo (was 12 bars at 144)
    ({"prompt": "bossa nova", "durationSec": 20}, 8, 96.0),
    # else the stop or the short clip nearest the tempo (12 bars at 144 cut inside an A)
    ({"prompt": "ballad AABA", "durationSec": 20}, 4, 48.0),
    # "slow" keeps its range (50-80 bpm, 10 % either side): 4 bars at 88 last 10.9 s, and
    # approximated says so (was 4 bars at 160 to last 6 s)
    ({"prompt": "slow ballad in F minor AABA", "durationSec": 6}, 4, 88.0),
    ({"prompt": "medium swing blues in F", "durationSec": 12}, 8, 160.0),     # not 12 at 240
    ({"prompt": "AABA in F", "durationSec": 20}, 16, 192.0),
    # a blues is played in whole choruses, up to twice the tempo (were 20, 16 and 20 bars:
    # cut after the first line of a chorus)
    ({"prompt": "shuffle blues in A", "durationSec": 40}, 24, 144.0),
    ({"prompt": "swing blues in F", "durationSec": 30}, 24, 192.0),
    ({"prompt": "funk blues in E", "durationSec": 45}, 24, 128.0),
    # a clip too short for a chorus near the tempo is a 4-bar phrase with the blues's ending
    # (was one chorus at 288 bpm for a medium swing blues in 10 s)
    ({"prompt": "medium swing blues in F", "durationSec": 10}, 4, 96.0),
    ({"prompt": "bossa nova in Bb minor", "durationSec": 8}, 4, 120.0),
    # a user progression is played whole, then its ending bars, at the tempo that fits
    # (5 s hold the 6 bars at 288 but not a 7th at 336: the piece ends open, not refused)
    ({"prompt": "swing", "progression": "C | D | E | F | G | C D E F", "durationSec": 5},
     6, 288.0),
    # five passes of C D E (in C: its first chord, held as long as the others; grid 4 read A
    # minor, E its V) and the added ii-V-I, Dm7 G7 | C (was 19 at 152 in A minor)
    ({"prompt": "swing", "progression": "C | D | E", "durationSec": 30}, 17, 136.0),
    # two passes and the tonic bar after the plagal F (was 8)
    ({"prompt": "swing in C, 6 bars", "progression": "C | D | E | F"}, 9, 140.0),
])
def test_bars_and_tempo_for_a_duration(request_: dict[str, Any], bars: int,
                                       tempo: float) -> None:
    result = conduct(request_)
    c = result["conductor"]
    assert (c["bars"], c["tempo"]) == (bars, tempo)
    if "durationSec" in request_ and not c["approximated"]:
        assert c["durationSec"] == pytest.approx(request_["durationSec"], rel=0.01)
    elif "durationSec" in request_:
        assert c["approximated"][0]["words"] == f"durationSec {request_['durationSec']:g}"
    check_midi(result)
    if "progression" in request_:
        chords = [ch["symbol"] for ch in result["chords"]]
        one = [s for s in request_["progression"].replace("|", " ").split()]
        # whole passes, then the ending's chords if any (a tonic bar, after an approach of
        # two chords when the last chord does not lead home: the tests below)
        tail = {"added": 1 if (len(chords) - 1) % len(one) == 0 else 3, "open": 0,
                "tonic": 0}[c["ending"]]
        passes = chords[:len(chords) - tail]
        assert passes == one * (len(passes) // len(one)) and len(passes) % len(one) == 0


# Where a piece may stop, as the musicians would: (chorus length, bars into a chorus where it
# may stop besides its end, how far the tempo may move to stop there).
CUTS: dict[str, tuple[int, tuple[int, ...], float]] = {
    "blues": (12, (), 1.5),                    # a blues is never cut
    "aaba": (32, (8, 16), 1.25),               # after an A, never after the bridge
    "halves": (16, (8,), 1.25),
    "song": (8, (4,), 1.25),
}


@pytest.mark.parametrize(("prompt", "form"), [
    ("ballad AABA", "aaba"), ("slow ballad AABA in Eb", "aaba"), ("bossa nova", "halves"),
    ("rhythm changes at 200 bpm", "aaba"), ("rhythm changes in Bb", "aaba"),
    ("medium swing blues", "blues"), ("shuffle blues in A", "blues"), ("minor blues", "blues"),
    ("funk blues in E", "blues"), ("rock blues", "blues"), ("fast samba", "halves"),
    ("jazz waltz", "halves"), ("gospel, 90 bpm", "song")])
@pytest.mark.parametrize("duration", [20, 30, 40, 45, 60, 75, 90, 120, 200])
def test_a_duration_keeps_the_tempo_and_cuts_where_the_form_may_stop(
        prompt: str, form: str, duration: int) -> None:
    chorus, inner, factor = CUTS[form]
    plan = read_prompt(prompt)
    result = conduct({"prompt": prompt, "durationSec": duration})
    c = result["conductor"]
    # ... or, when the duration is too short for a stop near the tempo, a clip shorter than the
    # form's first section (4 bars of a ballad in 20 s, with the form's ending)
    first = min((*inner, chorus))
    assert c["bars"] % chorus in {0, *inner} or c["bars"] < first, (c, result["leadSheet"])
    assert c["durationSec"] == pytest.approx(duration, rel=0.01)
    # the tempo stays within the factor whenever a stop plays there

    def ratio(bars: int) -> float:            # of the tempo that plays ``bars`` in the duration
        return abs(math.log(bars / c["bars"] * c["tempo"] / plan.tempo))

    stops = [k + s for k in range(0, 400, chorus) for s in (*inner, chorus)]
    if any(ratio(n) <= math.log(factor) for n in stops):
        assert ratio(c["bars"]) <= math.log(factor) + 1e-3, c


@pytest.mark.parametrize("duration", [None, 5, 60, 900])
def test_a_progression_is_validated_whole_whatever_the_duration(duration: int | None) -> None:
    request: dict[str, Any] = {"prompt": "swing", "progression": "C | D | E | F | G | C D E F G"}
    if duration:
        request["durationSec"] = duration
    with pytest.raises(InvalidRequest) as err:
        conduct(request)
    assert err.value.field == "progression" and "bar 6 has 5 chords" in str(err.value)


def test_a_progression_that_cannot_fit_the_duration_is_refused_on_durationSec() -> None:
    with pytest.raises(InvalidRequest) as err:
        conduct({"prompt": "swing", "progression": " | ".join(["C"] * 64), "durationSec": 5})
    assert err.value.field == "durationSec"
    assert err.value.to_dict()["error"]["code"] == "invalid_request"


@pytest.mark.parametrize(("prompt", "progression", "key", "mode"), [
    ("ballad over a pedal", "Dm7 G7 | Cmaj7 | Cmaj7 | Cmaj7", "C", "major"),
    # a modulating tune is in the key its final cadence arrives in (All the Things You Are,
    # through C, Eb, G and E: was C minor)
    ("swing", "Am7 | D7 | Gmaj7 | F#m7b5 | B7 | Emaj7 | C7#5 | Fm7 | Bbm7 | Eb7 | Abmaj7 | "
     "Abmaj7", "Ab", "major"),
    ("swing", "Dm7b5 G7b9 | Cm6 | Cm6", "C", "minor"),
    ("swing", "Am7 | D7 | Gmaj7 | Gmaj7", "G", "major"),
    ("bossa", "Ebmaj7 | Cm7 | Fm7 Bb7 | Ebmaj7", "Eb", "major"),
    ("rock", "C | G | Am | F", "C", "major"),
    ("swing", "F#m7 | B7 | Emaj7", "E", "major"),
    ("swing", "Gbmaj7 | Ebm7 | Abm7 Db7 | Gbmaj7", "Gb", "major"),
    ("swing", "C#m7 | G#7 | C#m7 | G#7 C#m7", "C#", "minor"),
    ("funk", "E9 | A9 | E9", "E", "major"),
    # a vamp's tonic heard at both ends outweighs one note outside its key (were Bb major)
    ("ballad, pedal bass", "Dm7 | Dm7 | Ebmaj7 | Dm7", "D", "minor"),
    ("swing", "Cm7 | F7", "C", "minor"),           # dorian's sixth belongs to the minor key
    # a V7 -> I cadence outweighs a final relative minor (was A minor)
    ("swing", "Dm7 G7 C | Am", "C", "major"),
    # a major tune's secondary dominants never tip it into the minor key on its ii or vi
    # (were A minor, D minor, D minor, G minor, C minor, A minor)
    ("swing", "Cmaj7 Cmaj7 D7 D7 Dm7 G7 Cmaj7 Cmaj7", "C", "major"),
    ("swing", "Cmaj7 A7 | Dm7 G7 | Cmaj7", "C", "major"),
    ("swing", "Em7 A7 | Dm7 G7 | Cmaj7", "C", "major"),
    ("swing", "Fmaj7 Fmaj7 Gm7 C7 Am7 D7 Gm7 C7 Fmaj7", "F", "major"),
    ("swing", "Bbmaj7 Gm7 Cm7 F7 Dm7 G7 Cm7 F7 Bbmaj7", "Bb", "major"),
    ("swing", "Bm7 E7 | Am7 D7 | Gmaj7", "G", "major"),
    # a mode named without a tonic keeps the mode; the tonic comes from the chords
    ("Phrygian vamp", "Em7 | Fmaj7", "E", "phrygian"),
    ("Dorian vamp", "Am7 | D7", "A", "dorian"),
    ("minor blues", "Fm7 | Bbm7 | Fm7 | C7", "F", "minor"),
    # a key in the direction wins
    ("swing in Bb", "Dm7 G7 | Cmaj7", "Bb", "major"),
])
def test_the_key_of_a_progression(prompt: str, progression: str, key: str, mode: str) -> None:
    result = conduct({"prompt": prompt, "progression": progression, "durationSec": 20})
    assert (result["conductor"]["key"], result["conductor"]["mode"]) == (key, mode)
    check_midi(result)


@pytest.mark.parametrize(("progression", "pc", "signature"), [
    ("Dm7 G7 | Cmaj7 | Cmaj7 | Cmaj7", 0, (0, 0)),      # C major
    ("Dm7 | Dm7 | Ebmaj7 | Dm7", 2, (-1, 1)),           # D minor (was a Bb pedal under Dm7)
    ("Cmaj7 A7 | Dm7 G7 | Cmaj7 | Cmaj7", 0, (0, 0)),   # C major (was a D pedal under Cmaj7)
])
def test_a_pedal_under_a_user_progression_sits_on_its_tonic(progression: str, pc: int,
                                                            signature: tuple[int, int]) -> None:
    result = conduct({"prompt": "ballad over a pedal", "progression": progression,
                      "durationSec": 30})
    pitches = {e["pitch"] for e in result["lanes"]["bass"]}
    assert len(pitches) == 1 and {p % 12 for p in pitches} == {pc}, sorted(pitches)
    score = check_midi(result)
    assert [(k.key, k.tonality) for k in score.key_signatures] == [signature]


def test_every_generated_chord_bar_is_a_form_bar() -> None:
    # forms cut short still play their bars in order from the top
    result = conduct({"prompt": "rhythm changes in Bb", "durationSec": 12})
    bars = result["conductor"]["bars"]
    assert bars % 4 == 0
    first = [c["symbol"] for c in result["chords"] if c["bar"] == 1]
    assert first == ["Bb6", "Gm7"]
