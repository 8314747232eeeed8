"""reharmonize over random diatonic progressions: the changes describe the alternative
exactly, every chord written parses, and the same request gives the same bytes."""

from __future__ import annotations

import re
from itertools import pairwise

import orjson
from hypothesis import example, given
from hypothesis import strategies as st

from engine import reharmonize
from engine.chords import by_function
from engine.chords.keys import parse_key
from engine.chords.notes import AWKWARD_SPELLINGS
from engine.chords.symbols import parse
from engine.reharm.rules import TECHNIQUES

TONICS = ("C", "G", "D", "A", "E", "B", "F#", "C#", "F", "Bb", "Eb", "Ab", "Db", "Gb", "Cb")
MINOR_TONICS = ("A", "E", "B", "F#", "C#", "G#", "D#", "D", "G", "C", "F", "Bb", "Eb", "Ab")

# Stacked thirds (semitones of third, fifth, seventh above the root) -> quality.
SEVENTHS = {(4, 7, 11): "maj7", (3, 7, 10): "m7", (4, 7, 10): "7", (3, 6, 10): "m7b5"}
TRIADS = {(4, 7): "", (3, 7): "m", (3, 6): "dim"}


def diatonic_chord(key_name: str, degree: int, seventh: bool) -> str:
    """The chord built in thirds on ``degree`` (0..6) of the key's own scale."""
    scale = parse_key(key_name).scale
    root = scale[degree]
    stack = tuple((scale[(degree + k) % 7].pc - root.pc) % 12 for k in (2, 4, 6))
    quality = SEVENTHS[stack] if seventh else TRIADS[stack[:2]]
    return root.name + quality


@st.composite
def requests(draw: st.DrawFn) -> dict[str, object]:
    minor = draw(st.booleans())
    key = draw(st.sampled_from(MINOR_TONICS)) + "m" if minor else draw(st.sampled_from(TONICS))
    spots = draw(st.lists(st.tuples(st.integers(0, 6), st.booleans(), st.booleans()),
                          min_size=1, max_size=12))
    chords = []
    for degree, seventh, dominant in spots:
        chord = diatonic_chord(key, degree, seventh)
        # Some dominants on scale roots (the minor key's V7, secondary dominants) so that
        # every technique gets a chance to apply.
        chords.append(parse_key(key).scale[degree].name + "7" if dominant and seventh else chord)
    return {"progression": " ".join(chords), "key": key}


@given(requests())
def test_changes_rebuild_each_alternative(request: dict[str, object]) -> None:
    result = reharmonize(request)
    source = result["progression"]
    assert source == str(request["progression"]).split()
    names = [a["technique"] for a in result["alternatives"]]
    assert names == [t for t in TECHNIQUES if t in names]
    for alt in result["alternatives"]:
        indexes = [c["index"] for c in alt["changes"]]
        assert indexes == sorted(set(indexes)) and indexes
        replaced = {c["index"]: c for c in alt["changes"]}
        rebuilt: list[str] = []
        for i, symbol in enumerate(source):
            if i in replaced:
                assert replaced[i]["from"] == symbol
                assert replaced[i]["to"]
                rebuilt.extend(replaced[i]["to"])
            else:
                rebuilt.append(symbol)
        assert rebuilt == alt["progression"]
        assert rebuilt != source
        for symbol in alt["progression"]:
            parse(symbol)  # raises if a written chord does not parse
        new = {s for c in alt["changes"] for s in c["to"]} - set(source)
        assert all(s in alt["explanation"] for s in new)
        assert alt["explanation"].endswith(".") and alt["explanation"].count(". ") == 0


# Roots as a chart would write them, for chords from outside the key.
PLAIN_ROOTS = ("C", "C#", "Db", "D", "D#", "Eb", "E", "F", "F#", "Gb", "G", "G#", "Ab", "A",
               "A#", "Bb", "B")
QUALITIES = ("", "m", "7", "maj7", "m7", "m7b5", "6", "m6", "m(maj7)", "dim7", "9", "13")


@st.composite
def chromatic_requests(draw: st.DrawFn) -> dict[str, object]:
    """Diatonic chords mixed with chords on any plainly spelled root, in any key."""
    request = draw(requests())
    chords = str(request["progression"]).split()
    for _ in range(draw(st.integers(0, 4))):
        chord = draw(st.sampled_from(PLAIN_ROOTS)) + draw(st.sampled_from(QUALITIES))
        chords.insert(draw(st.integers(0, len(chords))), chord)
    return {"progression": " ".join(chords), "key": request["key"]}


@example({"progression": "C#maj7 E#m7 A#m7", "key": "C#"})
@example({"progression": "F#maj7 G#m7 E#7 A#m7", "key": "F#"})
@given(st.one_of(requests(), chromatic_requests()))
def test_new_chords_have_readable_roots(request: dict[str, object]) -> None:
    # No key or input chord here has a double accidental, so no new chord may have one; and
    # a chromatic root is never spelled Fb, Cb, E# or B# unless the key or the user did, or
    # the key's numeral for it names that letter (Cbmaj7 is the bVI of Eb).
    result = reharmonize(request)
    source = result["progression"]
    written = {parse(s).root for s in source}
    key = parse_key(str(request["key"]))
    scale = set(key.scale)
    for alt in result["alternatives"]:
        for change in alt["changes"]:
            for symbol in change["to"]:
                root = parse(symbol).root
                assert abs(root.alter) < 2, (alt["technique"], symbol)
                if root not in scale and root not in written and not by_function(root, key):
                    assert root.name not in AWKWARD_SPELLINGS, (alt["technique"], symbol)


# Keys whose own scale has double accidentals (F## in G#, Bbb in Fb), and chords on their
# singly-spelled degrees: a new chord still never has a double accidental.
DOUBLE_KEYS = ("G#", "D#", "A#", "E#", "Fb", "D#m", "A#m", "Dbm")


@st.composite
def double_key_requests(draw: st.DrawFn) -> dict[str, object]:
    key = draw(st.sampled_from(DOUBLE_KEYS))
    plain = [d for d in range(7) if abs(parse_key(key).scale[d].alter) < 2]
    chords = [diatonic_chord(key, d, s) if not dom else parse_key(key).scale[d].name + "7"
              for d, s, dom in draw(st.lists(st.tuples(st.sampled_from(plain), st.booleans(),
                                                       st.booleans()), min_size=1, max_size=8))]
    chords = [c for c in chords if abs(parse(c).root.alter) < 2] or ["C"]
    for _ in range(draw(st.integers(0, 3))):
        chord = draw(st.sampled_from(PLAIN_ROOTS)) + draw(st.sampled_from(QUALITIES))
        chords.insert(draw(st.integers(0, len(chords))), chord)
    return {"progression": " ".join(chords), "key": key}


@example({"progression": "A#m7 D#7 G#maj7", "key": "G#"})
@given(double_key_requests())
def test_no_new_chord_has_a_double_accidental_even_in_keys_that_have_them(
        request: dict[str, object]) -> None:
    result = reharmonize(request)
    for alt in result["alternatives"]:
        for change in alt["changes"]:
            for symbol in change["to"]:
                assert abs(parse(symbol).root.alter) < 2, (alt["technique"], symbol)


CHAIN = re.compile(r"the dominants (.+) fall by fifths into (\S+)$")


@example({"progression": "Cmaj7 A7 Dm7 G7 Cmaj7", "key": "C"})
@example({"progression": "Cmaj7 Em7 A7 Dm7 G7 Cmaj7", "key": "C"})
@given(st.one_of(requests(), chromatic_requests()))
def test_dominant_chains_are_in_the_result_and_repeat_nothing(
        request: dict[str, object]) -> None:
    result = reharmonize({**request, "techniques": ["dominant_chain"]})
    if not result["alternatives"]:
        return
    source, alt = result["progression"], result["alternatives"][0]
    chords = alt["progression"]
    source_pairs = set(pairwise(source))
    for pair in pairwise(chords):
        assert pair[0] != pair[1] or pair in source_pairs, chords  # no A7 A7 made up
    for clause in alt["explanation"].rstrip(".").split("; "):
        m = CHAIN.search(clause)
        assert m is not None, clause
        chain, target = m.group(1).split(), m.group(2)
        # The chain is written as named, and falls into the target named (the top of the
        # progression for a final turnaround).
        starts = [i for i in range(len(chords)) if chords[i:i + len(chain)] == chain]
        assert starts, (chain, chords)
        after = [chords[(i + len(chain)) % len(chords)] for i in starts]
        assert target in after, (target, chords)


@given(requests())
def test_same_request_same_bytes(request: dict[str, object]) -> None:
    assert orjson.dumps(reharmonize(request)) == orjson.dumps(reharmonize(dict(request)))
