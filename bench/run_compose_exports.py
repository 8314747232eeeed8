"""Figures of the compose exports (issue 38) over the 1,382 iReal standards of
``../shared/corpora``:

- transpose: every chart (major and minor) to each flat-side key of its mode (C F Bb Eb Ab
  Db; Am Dm Gm Cm Fm Bbm): sharp roots on lowered degrees and V/ii spelled apart from their
  target (``tests/transpose_spelling.py``), before -> after is this script on the two trees;
- iReal: every chart exported, read back by our iReal loader: the same chord changes and bars,
  and the same beats where the chart's beats are whole;
- MusicXML: the share of chord symbols, every quality on all 12 roots, whose ``kind`` and
  ``<degree>`` elements make the chord's pitch classes;
- MusicXML read back by music21 (the bench extras: ``make bench``, or ``.venv/bin/python -m
  pip install -r requirements-bench.lock``): every standard's export valid against the
  MusicXML 4.0 XSD (``tests/schemas``), parsed by music21, each chord symbol read back with the
  root, kind, bass and ``<degree>`` elements (type, value, alteration) that we wrote and the
  chord's own pitch classes (music21 builds them from kind and degrees). About half a second a
  chart is music21's parse; ``--every N`` reads every Nth chart only.

Run: ``.venv/bin/python bench/run_compose_exports.py`` (``--every 10`` for a quick look).
"""

from __future__ import annotations

import argparse
import copy
import importlib
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.shared import CORPORA
from engine import compose
from engine.chords import parse, parse_key
from engine.chords.tables import QUALITIES
from engine.compose.export import unrolled
from engine.compose.ir import chord_spans
from tests.compose_tunes import changes, composition, read_ireal, standards
from tests.transpose_spelling import FLAT_SIDE_MAJOR, FLAT_SIDE_MINOR, mistakes

ROOTS = ("C", "Db", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B")


def by_function(comp: dict, key: str) -> dict:
    """``comp`` in ``key``, every chord spelled by its function there (``transpose``'s
    spelling; a chart moved to its own key keeps its writer's spelling instead)."""
    ops = importlib.import_module("engine.compose.chords_ops")
    respell = getattr(ops, "respell", None) or ops._respell   # before: a private name
    moved = copy.deepcopy(comp)
    old, new = parse_key(comp["meta"]["key"]), parse_key(key)
    respell(moved, (new.tonic.pc - old.tonic.pc) % 12, new)
    moved["meta"]["key"] = new.name
    return moved


def transpose_figures(tunes: list) -> None:
    pairs = sharps = apart = held = loose = chords = with_sharps = 0
    start = time.perf_counter()
    for item, song in tunes:
        comp = composition(item, song)
        keys = FLAT_SIDE_MINOR if comp["meta"]["mode"] == "minor" else FLAT_SIDE_MAJOR
        for key in keys:
            moved = by_function(comp, key)
            s, a, h, lo, n = mistakes(moved)
            pairs += 1
            loose += lo
            sharps += s
            apart += a
            held += h
            chords += n
            with_sharps += s > 0
    print(f"transpose: {pairs:,} tune/key pairs, {chords:,} chords: {sharps:,} sharp roots on "
          f"lowered degrees ({with_sharps:,} pairs with one), {apart:,} V/ii spelled apart "
          f"from their target, {held:,} held roots renamed, {loose:,} sharps or seams in a "
          f"line of ii's and V's that meets no target "
          f"({time.perf_counter() - start:.1f} s)")
    # each chart to the key it is written in: by transpose (its spelling kept), and by function
    own = respelled = by_rules = total = 0
    apart_from: Counter[str] = Counter()
    for item, song in tunes:
        comp = composition(item, song)
        moved = compose({"composition": comp, "operations": [
            {"op": "transpose", "key": comp["meta"]["key"]}]})["composition"]
        ruled = by_function(comp, comp["meta"]["key"])
        own += 1
        for a, b, c in zip(comp["sections"], moved["sections"], ruled["sections"], strict=True):
            for x, y, z in zip(a["chords"], b["chords"], c["chords"], strict=True):
                total += 1
                respelled += x["symbol"] != y["symbol"]
                if x["symbol"] != z["symbol"]:
                    by_rules += 1
                    apart_from[f"{x['symbol']} -> {z['symbol']}"] += 1
    print(f"transpose to its own key: {own:,} charts, {total:,} chords: {respelled:,} respelled "
          f"by transpose; by the function rules alone {by_rules:,} spelled otherwise than the "
          f"chart writes them (most: {', '.join(f'{k} {n}' for k, n in apart_from.most_common(6))})")


def ireal_figures(tunes: list) -> None:
    try:
        from engine.compose.ireal import ireal
    except ImportError:
        print("iReal: this tree has no engine.compose.ireal")
        return
    same = whole = same_beats = 0
    for item, song in tunes:
        url, _ = ireal(composition(item, song))
        back = read_ireal(url)
        a, bars_a = changes(song)
        b, bars_b = changes(back)
        if [(x[0], x[2], x[4]) for x in a] == \
                [(x[0], x[2], x[4]) for x in b] and bars_a == bars_b:
            same += 1
        if all(x[1] == int(x[1]) for x in a):
            whole += 1
            same_beats += [(x[0], x[1]) for x in a] == [(x[0], x[1]) for x in b]
    print(f"iReal: {same:,} of {len(tunes):,} standards read back with the same chords (root, "
          f"bass) and bars; {same_beats:,} of the {whole:,} on whole beats at the same beats")


def ireal_musicxml_figures(tunes: list) -> None:
    """Every standard's iReal export read by ireal-musicxml (iReal Pro's open reader, the
    TypeScript clients of ``tests/clients``): no warning, and our loader's chords and bars."""
    import tempfile

    from engine.compose.ireal import ireal
    from tests import ts_clients
    from tests.test_compose_programs import differences, ireal_read
    try:
        clients = ts_clients.install()
    except ts_clients.Unavailable as e:
        print(f"ireal-musicxml: not installed ({e}): nothing measured")
        return
    links = [ireal(composition(item, song))[0] for item, song in tunes]
    with tempfile.TemporaryDirectory() as scratch:
        readings = ireal_read(clients, links, Path(scratch))
    quiet = sum(not r["logs"] for r in readings)
    same = sum(not differences(url, r) for url, r in zip(links, readings, strict=True))
    print(f"ireal-musicxml: {quiet:,} of {len(links):,} exports read with no warning, {same:,} "
          "with our loader's chords (bar, beat, root, bass, pitch classes) and bars")


def musicxml_figures() -> None:
    try:
        from engine.compose.musicxml import degrees, kind_of, spelled_pcs
    except ImportError:
        print("MusicXML: this tree has no spelled_pcs")
        return
    same = total = 0
    for quality in QUALITIES:
        for root in ROOTS:
            chord = parse(root + quality.canonical)
            total += 1
            same += spelled_pcs(kind_of(chord)[0], degrees(chord)) == frozenset(
                s % 12 for s in chord.semitones)
    print(f"MusicXML: {same} of {total} chord symbols ({100 * same / total:.1f} %) spell "
          "their pitch classes with kind and degrees")


def music21_figures(tunes: list, every: int) -> None:
    try:
        import music21
        from lxml import etree
    except ImportError:
        print("music21: not installed (the bench extras, make bench): nothing measured")
        return
    from engine.compose.musicxml import degrees, kind_of, musicxml
    schema = etree.XMLSchema(etree.parse(str(Path(__file__).resolve().parent.parent
                                             / "tests" / "schemas" / "musicxml.xsd")))
    charts = valid = read = same_count = symbols = same = same_pcs = 0
    apart: Counter[str] = Counter()
    start = time.perf_counter()
    # first a chart of every quality on all 12 roots (and slash chords), then the standards
    bars = [f"{root}{q.canonical}" for q in QUALITIES for root in ROOTS] + [
        f"{root}7/{bass}" for root, bass in zip(ROOTS, ROOTS[4:] + ROOTS[:4], strict=True)]
    every_quality = compose({"operations": [{"op": "create", "key": "C",
                                             "progression": "A: " + " | ".join(bars)}]})
    compositions = [every_quality["composition"]] + [composition(item, song)
                                                      for item, song in tunes[::every]]
    for comp in compositions:
        xml = musicxml(comp)
        charts += 1
        valid += schema.validate(etree.fromstring(xml.encode("utf-8")))
        try:
            score = music21.converter.parseData(xml, format="musicxml")
        except Exception as exc:   # music21 raises its own exception classes
            apart[f"parse: {type(exc).__name__}"] += 1
            continue
        read += 1
        theirs = list(score.recurse().getElementsByClass("ChordSymbol"))
        ours = [parse(symbol) for section, _ in unrolled(comp)
                for _, _, symbol in chord_spans(comp, section)]
        same_count += len(theirs) == len(ours)
        for chord, symbol in zip(ours, theirs, strict=False):
            symbols += 1
            # music21 names three MusicXML kinds its own way (dominant: dominant-seventh)
            kind = music21.harmony.CHORD_ALIASES.get(kind_of(chord)[0], kind_of(chord)[0])
            wrote = (chord.root.name, kind, (chord.bass or chord.root).name,
                     [(change, value, alter) for value, alter, change in degrees(chord)])
            got = (symbol.root().name.replace("-", "b"), symbol.chordKind,
                   symbol.bass().name.replace("-", "b"),
                   [(m.modType, m.degree, m.interval.semitones if m.modType != "subtract"
                     else 0) for m in symbol.chordStepModifications])
            if wrote == got:
                same += 1
            else:
                field = next(name for name, a, b in zip(("root", "kind", "bass", "degrees"),
                                                        wrote, got, strict=True) if a != b)
                apart[f"{field}: {chord.canonical}"] += 1
            pcs = {(chord.root.pc + s) % 12 for s in chord.semitones}
            if chord.bass is not None:
                pcs.add(chord.bass.pc)
            same_pcs += pcs == {p.pitchClass for p in symbol.pitches}
    print(f"music21 {music21.__version__}: {charts:,} MusicXML exports (a chart of every "
          f"quality on all 12 roots, then the standards, {every=}): {valid:,} "
          f"valid against the 4.0 XSD, {read:,} parsed, {same_count:,} with as many chord "
          f"symbols as written; {same:,} of {symbols:,} symbols read back with our root, kind, "
          f"bass and degrees, {same_pcs:,} with the chord's pitch classes "
          f"({time.perf_counter() - start:.0f} s)")
    for what, n in apart.most_common(12):
        print(f"  apart: {what} ({n})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--every", type=int, default=1, help="music21 reads every Nth standard")
    args = ap.parse_args()
    tunes = standards(CORPORA)
    transpose_figures(tunes)
    ireal_figures(tunes)
    ireal_musicxml_figures(tunes)
    musicxml_figures()
    music21_figures(tunes, max(1, args.every))


if __name__ == "__main__":
    main()
