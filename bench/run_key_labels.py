"""How far two human sources agree on a standard's key: the ceiling a key finder scored against
one of them can reach. The iReal charts (``../shared/corpora/jazzstandards-ireal``, ``Key`` with
its mode) against the jazz-ccp charts of the same titles (``../shared/corpora/jazz-ccp``,
``DBKeySig``: a key signature written as a major key, so compared as signatures: a minor key as
its relative major's). Only pairs whose charts are written in the same key are compared (the
same roots, chord after chord, for at least half of their first 32 chord changes), and
jazz-ccp's ``C`` is left out (its README: many songs default to it). For the same pairs, the
key ``chart_key`` reads from the iReal chart, no key given, against both sources.

    .venv/bin/python bench/run_key_labels.py
"""

from __future__ import annotations

from pathlib import Path

from engine.analysis.keyfind import ChartChord, chart_key
from engine.chords import Key, parse_key
from engine.corpus.loaders import fold_title, load_paths
from engine.corpus.songs import Song

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
IREAL = CORPORA / "jazzstandards-ireal" / "JazzStandards.json"
CCP = CORPORA / "jazz-ccp" / "songs"
CHANGES = 32            # the first chord changes (a held chord once) compared for the key


def roots(song: Song) -> list[int]:
    out: list[int] = []
    for section in song.sections:
        for placed in section.chords:
            if not out or out[-1] != placed.chord.root.pc:
                out.append(placed.chord.root.pc)
    return out[:CHANGES]


def signature(key: Key) -> int:
    """The key signature as its major key's tonic (a minor key's relative major)."""
    return (key.tonic.pc + (3 if key.mode == "minor" else 0)) % 12


def main() -> None:
    ireal = [s for s in load_paths([IREAL])[0] if s.key]
    ccp = {fold_title(s.title): s for s in reversed(load_paths([CCP])[0]) if s.key}
    pairs = agree = found_ireal = found_ccp = 0
    disagree: list[str] = []
    for song in ireal:
        other = ccp.get(fold_title(song.title))
        if other is None or other.key is None or parse_key(other.key).tonic.pc == 0:
            continue
        a, b = roots(song), roots(other)
        n = min(len(a), len(b))
        if n < 8 or sum(x == y for x, y in zip(a, b, strict=False)) < n / 2:
            continue
        label, theirs = parse_key(song.key or ""), parse_key(other.key)
        found = chart_key([ChartChord(p.bar, p.beat, p.chord)
                           for s in song.sections for p in s.chords])
        pairs += 1
        same = signature(label) == signature(theirs)
        agree += same
        found_ireal += found.tonic.pc == label.tonic.pc and found.mode == label.mode
        found_ccp += signature(parse_key(found.name)) == signature(theirs)
        if not same:
            disagree.append(f"{song.title}: iReal {song.key}, jazz-ccp {other.key}, "
                            f"read {found.name}")
    print(f"titles in both, written in the same key, jazz-ccp's key not C: {pairs}")
    print(f"key signatures the two sources agree on: {agree} ({100 * agree / pairs:.1f} %)")
    print(f"chart_key on the iReal chart: the iReal key (tonic and mode) {found_ireal} "
          f"({100 * found_ireal / pairs:.1f} %); jazz-ccp's signature {found_ccp} "
          f"({100 * found_ccp / pairs:.1f} %)")
    print("the sources disagree:", *disagree, sep="\n  ")


if __name__ == "__main__":
    main()
