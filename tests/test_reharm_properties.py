"""reharmonize over random diatonic progressions: the changes describe the alternative
exactly, every chord written parses, and the same request gives the same bytes."""

from __future__ import annotations

import orjson
from hypothesis import given
from hypothesis import strategies as st

from engine import reharmonize
from engine.keys import parse_key
from engine.reharm_rules import TECHNIQUES
from engine.symbols import parse

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


@given(requests())
def test_same_request_same_bytes(request: dict[str, object]) -> None:
    assert orjson.dumps(reharmonize(request)) == orjson.dumps(reharmonize(dict(request)))
