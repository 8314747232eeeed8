"""DCML's Annotated Beethoven Corpus: roman numerals of classical labels vs ours.

``derived_pairs.tsv`` gives each chord's pitches (bass first), its local key and the expert's
numeral. We name the pitches as a chord symbol (tertian stacks only: rows we cannot name are
skipped), analyze it in the local key and compare the scale degree of the numeral (resolving
applied chords: V/V is degree II) and the chord quality it shows (case, °, ø, +). Jazz
numerals spell accidentals against the major scale, classical ones against the minor scale, so
the degree is compared by roman number only.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

from engine import analyze
from engine.chords.notes import parse_spelled

# The agreement this engine reaches (printed by the test); it must not fall.
MIN_AGREEMENT = 0.998  # reached: 25,132 of 25,158 (99.90%)

_ROMANS = ("I", "II", "III", "IV", "V", "VI", "VII")
# (third, fifth, seventh) letter-interval semitones above the root -> chord suffix
_SHAPES = {
    (4, 7, None): "", (3, 7, None): "m", (3, 6, None): "dim", (4, 8, None): "aug",
    (4, 7, 10): "7", (4, 7, 11): "maj7", (3, 7, 10): "m7", (3, 6, 10): "m7b5",
    (3, 6, 9): "dim7", (3, 7, 11): "m(maj7)", (4, 8, 11): "maj7#5", (4, 8, 10): "aug7",
    (4, None, 10): "7", (4, None, 11): "maj7", (3, None, 10): "m7",
}
_NUMERAL = re.compile(r"^(b*|#*)(VII|VI|V|IV|III|II|I|vii|vi|v|iv|iii|ii|i)(.*)$")


def name_pitches(pitches: list[str]) -> str | None:
    """A chord symbol for spelled pitches (bass first), or None if not a tertian stack."""
    notes = [parse_spelled(p) for p in pitches]
    for root in dict.fromkeys(notes):
        third = fifth = seventh = None
        ok = True
        for n in notes:
            steps, semis = (n.letter - root.letter) % 7, (n.pc - root.pc) % 12
            if steps == 0 and semis == 0:
                continue
            if steps == 2 and third in (None, semis):
                third = semis
            elif steps == 4 and fifth in (None, semis):
                fifth = semis
            elif steps == 6 and seventh in (None, semis):
                seventh = semis
            else:
                ok = False
                break
        suffix = _SHAPES.get((third, fifth, seventh)) if ok else None  # type: ignore[arg-type]
        if suffix is not None:
            bass = notes[0]
            return root.name + suffix + ("" if bass == root else "/" + bass.name)
    return None


def _family(roman: str, marks: str) -> str:
    if "°" in marks or marks.startswith("o"):
        return "dim"
    if "ø" in marks or marks.startswith("%"):
        return "halfdim"
    if marks.startswith("+"):
        return "aug"
    return "minor" if roman.islower() else "major"


def ours(numeral: str) -> tuple[int, str]:
    """(degree 0..6, quality family) of one of our numerals, applied chords resolved."""
    head, _, target = numeral.partition("/")
    sub = head.startswith("subV")  # subV7/X: the bII7 of X (docs/analysis.md)
    m = _NUMERAL.match("bII" + head[4:] if sub else head)
    assert m, numeral
    degree = _ROMANS.index(m.group(2).upper())
    if target:
        t = _NUMERAL.match(target)
        assert t, numeral
        degree += _ROMANS.index(t.group(2).upper())
    return degree % 7, _family(m.group(2), m.group(3))


def theirs(numeral: str, form: str, relativeroot: str) -> tuple[int, str] | None:
    m = _NUMERAL.match(numeral)
    if not m:
        return None
    degree = _ROMANS.index(m.group(2).upper())
    for r in filter(None, relativeroot.split("/")):
        rm = _NUMERAL.match(r)
        if not rm:
            return None
        degree += _ROMANS.index(rm.group(2).upper())
    return degree % 7, _family(m.group(2), form)


def test_dcml_roman_numerals(corpora: Path) -> None:
    path = corpora / "dcml-abc" / "derived_pairs.tsv"
    agree = total = skipped = 0
    agree_all = total_all = 0
    with path.open(newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if row["special"] or not row["pitches_bass_first"]:
                skipped += 1
                continue
            expected = theirs(row["numeral"], row["form"], row["relativeroot"])
            symbol = name_pitches(row["pitches_bass_first"].split())
            if expected is None or symbol is None:
                skipped += 1
                continue
            key = row["local_tonic"] + ("m" if row["local_mode"] == "minor" else "")
            same = ours(analyze({"chord": symbol, "key": key})["numeral"]) == expected
            total_all += 1
            agree_all += same
            if not row["changes"]:  # no suspension, added or altered tones
                total += 1
                agree += same
    rate = agree / total
    print(f"DCML: {agree}/{total} = {rate:.2%} agree on rows without special or suspension "
          f"chords; {agree_all}/{total_all} = {agree_all / total_all:.2%} on every named row; "
          f"{skipped} rows skipped (special chords or not a tertian stack)")
    assert total > 20_000
    assert rate >= MIN_AGREEMENT
