"""identify's figures (issue 39), side by side in one run:

- round trip: every distinct symbol of the two jazz corpora, ``identify(resolve(s))`` answers
  ``s`` or a symbol with the same notes and bass first;
- roman numerals from pitches: the rows of ``dcml-abc/derived_pairs.tsv`` without ``changes``,
  their notes (bass first) identified in their local key: root, inversion, and the numeral's
  degree and quality against DCML's label (the mapping of DCML's minor-key numerals is in
  docs/identify.md); music21's ``romanNumeralFromChord`` on the same rows as the peer;
- speed, cold: in a fresh process (``--cold``, started by this script), every one of the 4,095
  pitch-class sets with no bass and on each of its notes as the bass (28,671 requests
  ``{"pcs": [...], "bass": b}``), each asked once: the first call of the process and the
  mean, median and 99th percentile of all, and the median by the number of notes sounding
  (3 to 8: the uniform draw of every set weighs 6 and 7 most, chords are mostly 3 to 5); then
  the same as MIDI numbers and as note names (their spelling is weighed), and with a key;
  then every request again with the answers kept forgotten (new: a set not asked before in a
  process whose tables are filled, what a request costs a running service), then the last
  2,000 again (warm: answers kept);
- the table (``engine.identify.ranking``) against the search it replaced
  (``tests/naive_identify.py``) on every set and bass, without a key and in four keys;
- speed on the corpus' note sets, first call and again, beside pychord's ``note_to_chord`` and
  music21's ``pitchedCommonName`` on the same sets.

    .venv/bin/python bench/run_identify.py        (music21 and pychord: make bench installs them)
    .venv/bin/python bench/run_identify.py --cold (only the cold and warm figures, 5 processes)
    .venv/bin/python bench/run_identify.py --cold --against DIR (the same, alternated with the
        engine of another checkout DIR: before and after side by side)
    .venv/bin/python bench/run_identify.py --check (only the table against the search it replaced)
    .venv/bin/python bench/run_identify.py --instructions [KIND ...] [--against DIR]
        (instructions a new request with the tables filled, counted by callgrind: deterministic
        where a timer on 2 shared cores is not; a third of each kind's requests)
"""

from __future__ import annotations

import csv
import os
import shutil
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.identify_speed import cold, instructions
from bench.shared import CORPORA, REPO
from engine import identify, resolve
from engine.chords import parse, parse_spelled
from tests.corpus_tokens import keyed_tokens

ROMAN = {"i": 0, "ii": 1, "iii": 2, "iv": 3, "v": 4, "vi": 5, "vii": 6}
MAJOR = (0, 2, 4, 5, 7, 9, 11)
NATURAL_MINOR = (0, 2, 3, 5, 7, 8, 10)
# DCML's figures -> inversion; triads and sevenths alike
FIGURES = {"": 0, "5": 0, "53": 0, "7": 0, "6": 1, "65": 1, "64": 2, "43": 2, "2": 3, "42": 3}
# our quality -> DCML's chord_type
CHORD_TYPE = {"": "M", "m": "m", "dim": "o", "aug": "+", "7": "Mm7", "m7": "mm7",
              "m7b5": "%7", "dim7": "o7", "maj7": "MM7", "aug7": "+7", "maj7#5": "+M7",
              "m(maj7)": "mM7"}


def notes_and_bass(symbol: str) -> tuple[frozenset[int], int]:
    chord = parse(symbol)
    bass = chord.root_pc if chord.bass_pc is None else chord.bass_pc
    return frozenset(chord.pcs) | {bass}, bass


def round_trip() -> list[list[str]]:
    distinct = sorted({s for s, _ in keyed_tokens(CORPORA)})
    wrong, sets = [], []
    for symbol in distinct:
        notes = resolve({"chord": symbol})["notes"]
        sets.append(notes)
        top = identify({"notes": notes})["readings"][0]
        if top["omitted"] or top["added"] or notes_and_bass(top["symbol"]) != notes_and_bass(symbol):
            wrong.append(f"{symbol} -> {top['symbol']}")
    print(f"round trip: {len(distinct) - len(wrong)} / {len(distinct)} distinct corpus symbols "
          f"read back first ({100 * (len(distinct) - len(wrong)) / len(distinct):.2f} %)")
    for line in wrong[:10]:
        print("  ", line)
    return sets


def dcml_offset(numeral: str, scale: tuple[int, ...]) -> int | None:
    """A DCML numeral ('#vii', 'bVI', 'V') -> semitones above the tonic of ``scale``."""
    acc = 0
    while numeral[:1] in ("#", "b"):
        acc += 1 if numeral[0] == "#" else -1
        numeral = numeral[1:]
    degree = ROMAN.get(numeral.lower())
    return None if degree is None else (scale[degree] + acc) % 12


def dcml_root(row: dict[str, str]) -> tuple[int, str] | None:
    """DCML's root above the local tonic, through its applied chord's key, and its chord type."""
    scale = MAJOR if row["local_mode"] == "major" else NATURAL_MINOR
    base = 0
    if row["relativeroot"]:
        target = row["relativeroot"].split("/")[0]
        offset = dcml_offset(target, scale)
        if offset is None:
            return None
        base = offset
        scale = NATURAL_MINOR if target.lstrip("#b").islower() else MAJOR
    offset = dcml_offset(row["numeral"], scale)
    return None if offset is None else ((base + offset) % 12, row["chord_type"])


def our_numeral(numeral: str) -> int | None:
    """Our numeral ('bVImaj7', 'V7/V', '#ivø7', 'subV7') -> its root above the tonic: our
    degrees count on the major scale in every key (jazz practice: bIII, bVI, bVII in minor)."""
    head, _, target = numeral.partition("/")
    base = 0
    if target:
        t = our_numeral(target)
        if t is None:
            return None
        base = t
    if head.startswith("sub"):
        head = head[3:]
        base += 6
    acc = 0
    while head[:1] in ("#", "b"):
        acc += 1 if head[0] == "#" else -1
        head = head[1:]
    letters = "".join(ch for ch in head.lower() if ch in "iv")
    roman = next((r for r in sorted(ROMAN, key=len, reverse=True) if letters.startswith(r)), None)
    if roman is None:
        return None
    return (base + MAJOR[ROMAN[roman]] + acc) % 12


def dcml() -> None:
    path = CORPORA / "dcml-abc" / "derived_pairs.tsv"
    rows = [r for r in csv.DictReader(path.open(), delimiter="\t") if not r["changes"]]
    root_ok = inv_ok = both = numeral_ok = 0
    misses: Counter[str] = Counter()
    started = time.perf_counter()
    answers = []
    for row in rows:
        notes = row["pitches_bass_first"].split()
        key = row["local_tonic"] + ("m" if row["local_mode"] == "minor" else "")
        answers.append(identify({"notes": notes, "bass": notes[0], "key": key})["readings"][0])
    elapsed = time.perf_counter() - started
    for row, top in zip(rows, answers, strict=True):
        tonic = parse_spelled(row["local_tonic"]).pc
        r_ok = parse_spelled(top["root"]).pc == parse_spelled(row["root"]).pc
        i_ok = top["inversion"] == FIGURES.get(row["figbass"], -1)
        root_ok += r_ok
        inv_ok += i_ok
        both += r_ok and i_ok
        truth = dcml_root(row)
        ours = our_numeral(top["numeral"])
        n_ok = truth is not None and ours is not None and ours == truth[0] and \
            CHORD_TYPE.get(top["quality"]) == truth[1] and (truth[0] - tonic) is not None
        numeral_ok += n_ok
        if not (r_ok and i_ok and n_ok):
            misses[f"{row['chord_type']} {row['figbass'] or '-'} -> {top['quality'] or 'M'}"
                   f"{' (rootless)' if top['rootless'] else ''}"] += 1
    n = len(rows)
    print(f"DCML ABC rows without changes: {n}; identified in {elapsed:.2f} s "
          f"({1e6 * elapsed / n:.1f} µs a row, with key)")
    print(f"  root {100 * root_ok / n:.2f} %, inversion {100 * inv_ok / n:.2f} %, root and "
          f"inversion {100 * both / n:.2f} %, numeral degree and quality "
          f"{100 * numeral_ok / n:.2f} %")
    print("  most frequent misses:", ", ".join(f"{k} x{v}" for k, v in misses.most_common(8)))
    music21_dcml(rows)


def music21_dcml(rows: list[dict[str, str]]) -> None:
    try:
        from music21 import chord, key, roman
    except ImportError:
        print("  music21: not installed (make bench installs it): no peer figure")
        return
    sample = rows
    root_ok = inv_ok = 0
    started = time.perf_counter()
    for row in sample:
        names = row["pitches_bass_first"].split()
        pitches = [names[0].replace("b", "-") + "3"] + [n.replace("b", "-") + "4" for n in names[1:]]
        tonic = row["local_tonic"].replace("b", "-")
        k = key.Key(tonic if row["local_mode"] == "major" else tonic.lower())
        rn = roman.romanNumeralFromChord(chord.Chord(pitches), k)
        root_ok += rn.root().pitchClass == parse_spelled(row["root"]).pc
        inv_ok += rn.inversion() == FIGURES.get(row["figbass"], -1)
    elapsed = time.perf_counter() - started
    n = len(sample)
    print(f"  music21 romanNumeralFromChord: root {100 * root_ok / n:.2f} %, inversion "
          f"{100 * inv_ok / n:.2f} %, {1e6 * elapsed / n:.0f} µs a row")


def speed(sets: list[list[str]]) -> None:
    from engine.identify import notes as note_reader
    from engine.identify import roles
    note_reader._known.cache_clear()
    roles._KEPT.clear()   # the numerals and functions kept per key and chord
    roles._BY_TEXT.clear()
    roles.ROLES[:] = [None] * len(roles.ROLES)   # ... and per mode, interval and quality
    roles._FRAMES.clear()
    started = time.perf_counter()
    for notes in sets:
        identify({"notes": notes})
    cold = (time.perf_counter() - started) / len(sets)
    runs = 5
    started = time.perf_counter()
    for _ in range(runs):
        for notes in sets:
            identify({"notes": notes})
    warm = (time.perf_counter() - started) / len(sets) / runs
    one = sets[0]
    started = time.perf_counter()
    for _ in range(20000):
        identify({"notes": one})
    single = (time.perf_counter() - started) / 20000
    print(f"identify in process, {len(sets)} corpus note sets: first call {1e6 * cold:.1f} µs, "
          f"again {1e6 * warm:.1f} µs a call; one set repeated {1e6 * single:.1f} µs "
          f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    names = [[n.rstrip("-0123456789") for n in notes] for notes in sets]
    try:
        from pychord import find_chords_from_notes as note_to_chord
        started = time.perf_counter()
        found = sum(1 for ns in names if note_to_chord(ns))
        took = (time.perf_counter() - started) / len(names)
        print(f"pychord find_chords_from_notes (note_to_chord in pychord < 1): {1e6 * took:.1f} µs a call, names {found} / {len(names)} "
              "sets")
    except ImportError:
        print("pychord: not installed (make bench installs it)")
    try:
        from music21 import chord
        pitched = [[n.replace("b", "-") for n in notes] for notes in sets]
        started = time.perf_counter()
        for ps in pitched:
            chord.Chord(ps).pitchedCommonName  # noqa: B018
        took = (time.perf_counter() - started) / len(pitched)
        print(f"music21 Chord(...).pitchedCommonName: {1e6 * took:.0f} µs a call")
    except ImportError:
        print("music21: not installed (make bench installs it)")


def table_check() -> None:
    """The table against the search it replaced (tests/naive_identify.py): every set on every
    bass and on none, without a key and in four keys."""
    from engine.chords import parse_key
    from engine.identify.ranking import rank
    from tests import naive_identify
    started = time.perf_counter()
    same = total = 0
    for key in (None, *map(parse_key, ("C", "Am", "Eb", "F#"))):
        for mask in range(1, 4096):
            for bass in (None, *(pc for pc in range(12) if mask >> pc & 1)):
                total += 1
                same += rank(mask, bass, key) == naive_identify.rank(mask, bass, key)
    print(f"table against the search it replaced: {same} / {total} rankings (every set, every "
          f"bass and none, no key and 4 keys) identical ({time.perf_counter() - started:.0f} s)")


def main() -> None:
    if "--check" in sys.argv:
        table_check()
        return
    if "--instructions" in sys.argv:
        if not (shutil.which("valgrind") and shutil.which("callgrind_control")):
            print("valgrind is not installed (Debian's valgrind): no instruction counts")
            return
        trees = [REPO]
        if "--against" in sys.argv:
            trees.append(Path(sys.argv[sys.argv.index("--against") + 1]).resolve())
        kinds = [k for k in ("pcs", "midi", "names", "key") if k in sys.argv] or \
            ["pcs", "midi", "names", "key"]
        for kind in kinds:
            print(f"{kind:5s} " + "  ".join(
                f"{tree.name}: {instructions(tree, kind):,.0f}" for tree in trees)
                + " instructions a new request, tables filled (callgrind)", flush=True)
        return
    against = None
    if "--against" in sys.argv:
        against = Path(sys.argv[sys.argv.index("--against") + 1]).resolve()
    cold(against=against)
    if "--cold" in sys.argv:
        return
    table_check()
    if not CORPORA.is_dir():
        print(f"no corpora at {CORPORA}: nothing measured")
        return
    sets = round_trip()
    speed(sets)
    dcml()


if __name__ == "__main__":
    main()
