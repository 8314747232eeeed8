"""The compose exports opened by the programs musicians use (issue 38):

- MuseScore 3 (Debian ``musescore3``, headless with ``QT_QPA_PLATFORM=offscreen``; ``.ci/run``
  installs it): ``mscore3 -o out.musicxml ours.musicxml`` (and ``-o out.mid``) reads every
  MusicXML export without an error, and its own export carries the same chord symbols (root,
  kind, degrees, bass, at the same bar and beat), bars and barlines.
- ireal-musicxml (iReal Pro's open reader, pinned in ``tests/clients``, installed with the
  TypeScript clients by ``tests/ts_clients.py``) reads every iReal export with no warning and
  gives back the chords our own iReal loader reads from it (root, bass, pitch classes, bar and
  beat) and its bars: the crafted charts here and a quarter of the 1,382 iReal standards.

A program that cannot be installed here skips its tests with the reason (``HARMONY_PROGRAMS_
REQUIRED`` makes that a failure, as CI may)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from engine.chords import parse
from engine.chords.tables import QUALITIES
from engine.compose.export import unrolled
from tests import ts_clients
from tests.compose_tunes import composition, read_ireal, standards
from tests.musicxml_read import Symbol, read
from tests.test_compose import run

ROOTS = ("C", "Db", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B")
# What MuseScore prints when it reads something it does not accept ("Error at line 17 col 16:
# no instrument found for part 'P1'", "calculated duration invalid", "TDuration::setType():
# unknown").
TROUBLE = re.compile(r"error|warning|unknown|invalid|no instrument", re.IGNORECASE)
# Where ireal-musicxml reads a quality otherwise than a jazz chart means it, by its own
# chord-symbol rules, each checked as written (the rest of the chord must be ours): a 13th kind
# carries the natural 11 and dominant-11th the third (as MusicXML defines those kinds; a jazz
# 13 or 11 chord leaves them out); 7alt is its b5 and b9 only (a subset of ours); and iReal's
# minor-major ninth ``-^9`` comes back as major-ninth (its third lost: their reader's slip).
EXTRA_IN_KIND = {"dominant-13th": frozenset({5}), "major-13th": frozenset({5}),
                 "minor-13th": frozenset({5}), "dominant-11th": frozenset({4})}
THIRDS = frozenset({3, 4})


def read_elsewise(quality: str, kind: str, got: frozenset[int], want: frozenset[int]) -> bool:
    if kind in EXTRA_IN_KIND:
        return got - EXTRA_IN_KIND[kind] == want - EXTRA_IN_KIND[kind]
    if quality == "7alt":
        return got <= want and {0, 4, 10} <= got
    if quality.startswith("m(maj") and kind == "major-ninth":
        return got - THIRDS == want - THIRDS
    return False


def required(reason: str) -> None:
    if os.environ.get("HARMONY_PROGRAMS_REQUIRED"):
        pytest.fail(reason)
    pytest.skip(reason)


# ------------------------------------------------------------------ MuseScore 3


@pytest.fixture(scope="module")
def mscore() -> str:
    path = shutil.which("mscore3") or shutil.which("musescore3")
    if path is None:
        required("MuseScore 3 is not installed (Debian package musescore3, which .ci/run "
                 "installs as root)")
    return str(path)


def musescore(mscore: str, xml: str, folder: Path, suffix: str = ".musicxml"
              ) -> tuple[Path, list[str]]:
    """MuseScore's conversion of ``xml`` to ``suffix``, and the lines it printed about
    trouble."""
    folder.mkdir(parents=True, exist_ok=True)
    source, target = folder / "ours.musicxml", folder / f"out{suffix}"
    source.write_text(xml, encoding="utf-8")
    runtime = folder / "runtime"
    runtime.mkdir(mode=0o700, exist_ok=True)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "HOME": str(folder),
           "XDG_RUNTIME_DIR": str(runtime), "XDG_CONFIG_HOME": str(folder / "config")}
    done = subprocess.run([mscore, "-o", str(target), str(source)], capture_output=True,
                          text=True, env=env, timeout=300, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-2000:]
    assert target.is_file() and target.stat().st_size > 0
    trouble = [line for line in (done.stdout + done.stderr).splitlines() if TROUBLE.search(line)]
    return target, trouble


def same_symbols(ours: list[Symbol], theirs: list[Symbol]) -> list[tuple[Symbol, Symbol]]:
    """The pairs that differ in bar, beat, root, kind, the pitch classes kind and degrees make,
    or bass."""
    assert len(ours) == len(theirs)
    return [(a, b) for a, b in zip(ours, theirs, strict=True)
            if (a.bar, a.beat, a.root, a.kind, a.pcs, a.bass)
            != (b.bar, b.beat, b.root, b.kind, b.pcs, b.bass)]


def every_quality() -> dict[str, Any]:
    bars = [f"{root}{q.canonical}" for q in QUALITIES for root in ROOTS]
    bars += ["C7(b9,#11)", "G7alt/Db", "Dm7/C", "Bbmaj7#11", "F#m11b5", "Ebadd9", "E7#5b9",
             "D7alt", "Bb13sus4", "A7b9#11", "C7sus4b9", "F13b9"]
    return run({"op": "create", "title": "Every Quality", "key": "Eb",
                "progression": "A: " + " | ".join(bars)})["composition"]


def blue_monday() -> dict[str, Any]:
    """The guide's Blue Monday with a melody (dotted, triplet and tied values, a rest), a
    bridge in 3/4 and a coda in 12/8, transposed to Eb."""
    return run(
        {"op": "create", "title": "Blue Monday", "composer": "Jo Smith", "key": "F",
         "tempo": 160, "progression": "A: Gm7 C7 | Fmaj7 | Am7b5 D7alt | Gm7 C7 || B: Cm7 F7 | "
         "Bbmaj7 | Bbm6 Eb7 | Am7 D7 || Coda: Gm7 | C7sus4 C7b9 | F6/9 | F6/9",
         "form": ["A", "A", "B", "A", "Coda"]},
        {"op": "reharmonize", "section": "B", "technique": "backdoor"},
        {"op": "add_notes", "section": "A", "notes": [
            [0, 720, 72, 90], [720, 240, 74, 90], [960, 160, 76, 90], [1120, 160, 77, 90],
            [1280, 160, 79, 90], [1920, 1200, 81, 90], [3840, 480, 77, 80]]},
        {"op": "set_form", "from": "B", "timeSignature": "3/4"},
        {"op": "set_form", "from": "Coda", "timeSignature": "12/8"},
        {"op": "transpose", "key": "Eb"})["composition"]


def musicxml_of(comp: dict[str, Any]) -> str:
    answer = run({"op": "export", "formats": ["musicxml"]}, composition=comp)
    return str(answer["results"][0]["musicxml"])


def test_every_quality_on_every_root_reads_back_from_musescore(mscore: str,
                                                               tmp_path: Path) -> None:
    xml = musicxml_of(every_quality())
    out, trouble = musescore(mscore, xml, tmp_path)
    assert trouble == []
    ours, bars, _ = read(xml)
    theirs, their_bars, _ = read(out.read_text(encoding="utf-8"))
    assert len(ours) == bars == len(QUALITIES) * 12 + 12
    assert their_bars == bars
    assert same_symbols(ours, theirs) == []


def test_blue_monday_opens_in_musescore_as_written(mscore: str, tmp_path: Path) -> None:
    comp = blue_monday()
    xml = musicxml_of(comp)
    out, trouble = musescore(mscore, xml, tmp_path)
    assert trouble == []
    ours, bars, barlines = read(xml)
    theirs, their_bars, their_barlines = read(out.read_text(encoding="utf-8"))
    assert bars == their_bars == sum(s["bars"] for s, _ in unrolled(comp))
    assert same_symbols(ours, theirs) == []
    ends = [i for i, style in enumerate(barlines) if style]
    assert [their_barlines[i] for i in ends] == [barlines[i] for i in ends]
    assert barlines[-1] == "light-heavy" and barlines.count("light-light") == 4
    # the melody's notes as MuseScore wrote them back: same pitches, same written values
    from lxml import etree
    mine = etree.fromstring(xml.encode("utf-8"))
    back = etree.fromstring(out.read_bytes())

    def notes(document: Any) -> list[tuple[str, str, str]]:
        return [(n.findtext("pitch/step") or "", n.findtext("pitch/octave") or "",
                 n.findtext("type") or "") for n in document.iter("note")
                if n.find("pitch") is not None]

    assert notes(back) == notes(mine) and len(notes(mine)) == 3 * 8   # 7 notes, one tied


def test_blue_monday_renders_to_midi_in_musescore(mscore: str, tmp_path: Path) -> None:
    import mido

    xml = musicxml_of(blue_monday())
    out, trouble = musescore(mscore, xml, tmp_path, ".mid")
    assert trouble == []
    played = [m.note for track in mido.MidiFile(str(out)).tracks for m in track
              if m.type == "note_on" and m.velocity > 0]
    assert len(played) == 3 * 7   # a tied note sounds once: 7 notes in each of three A's


# ------------------------------------------------------------------ ireal-musicxml


@pytest.fixture(scope="module")
def ireal_reader() -> ts_clients.Clients:
    try:
        return ts_clients.install()
    except ts_clients.Unavailable as e:
        required(f"ireal-musicxml cannot be installed: {e}")
        raise


def ireal_read(clients: ts_clients.Clients, links: list[str], scratch: Path
               ) -> list[dict[str, Any]]:
    """ireal-musicxml's reading of each link (``tests/clients/ireal.mjs``)."""
    scratch.mkdir(parents=True, exist_ok=True)
    driver = clients.home / "ireal.mjs"
    source = (ts_clients.SOURCE / "ireal.mjs").read_bytes()
    if not driver.exists() or driver.read_bytes() != source:
        driver.write_bytes(source)   # beside node_modules, where its import resolves
    given, answer = scratch / "links.json", scratch / "read.json"
    given.write_text(json.dumps(links))
    done = subprocess.run([str(clients.node), str(driver), str(given), str(answer)],
                          capture_output=True, text=True, timeout=900,
                          env=clients.env(scratch / "home"), stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-2000:]
    out: list[dict[str, Any]] = json.loads(answer.read_text())
    return out


def chord_pcs(symbol: str) -> frozenset[int]:
    return frozenset(s % 12 for s in parse(symbol).semitones)


def differences(link: str, reading: dict[str, Any]) -> list[str]:
    """How ireal-musicxml's reading of ``link`` differs from our loader's: warnings, bars,
    chords (bar, beat, root, bass, pitch classes)."""
    problems = list(reading["logs"])
    if len(reading["songs"]) != 1:
        return [*problems, f"{len(reading['songs'])} songs"]
    song = read_ireal(link)
    ours = [(p.bar, p.beat, p.chord) for s in song.sections for p in s.chords]
    theirs, bars, _ = read(reading["songs"][0]["musicXml"])
    if bars != max(bar for bar, _, _ in ours):
        problems.append(f"{bars} bars, ours {max(bar for bar, _, _ in ours)}")
    if len(theirs) != len(ours):
        return [*problems, f"{len(theirs)} chords, ours {len(ours)}"]
    for (bar, beat, chord), symbol in zip(ours, theirs, strict=True):
        where = f"bar {bar} beat {beat} {chord.symbol}"
        if (symbol.bar, symbol.beat, symbol.root, symbol.bass) != (
                bar, beat, chord.root.pc, chord.bass.pc if chord.bass else None):
            problems.append(f"{where}: read at bar {symbol.bar} beat {symbol.beat}, root "
                            f"{symbol.root}, bass {symbol.bass}")
            continue
        want = chord_pcs(chord.symbol)
        got = symbol.pcs
        if got == want or (got is not None and read_elsewise(chord.quality, symbol.kind, got,
                                                            want)):
            continue
        problems.append(f"{where}: {symbol.kind} {symbol.degrees} is {sorted(got or ())}, "
                        f"ours {sorted(want)}")
    return problems


def test_blue_monday_and_every_quality_read_by_ireal_musicxml(
        ireal_reader: ts_clients.Clients, tmp_path: Path) -> None:
    minor = run({"op": "create", "title": "Blue Bossa", "key": "Cm", "style": "bossa_nova",
                 "progression": "Intro: Cm7 | Cm7 || A: Cm7 | Fm7 | Dm7b5 | G7alt | Cm7 | "
                 "Ebm7 Ab7 | Dbmaj7 | Dm7b5 G7b9"},
                {"op": "set_form", "form": ["Intro", "A", "A"]})["composition"]
    waltz = run({"op": "create", "title": "Footprints", "key": "Cm", "timeSignature": "12/8",
                 "progression": "A: Cm7 | Fm7 | Cm7 | F#m7b5 B7#9 | E7#9 A7#9 | Cm7"}
                )["composition"]
    beat_four = run({"op": "create", "title": "Beat Four", "key": "F",
                     "progression": "A: Gm7 | Fmaj7"},
                    {"op": "set_chords", "section": "A", "chords": [
                        {"bar": 1, "beat": 1, "symbol": "Gm7"},
                        {"bar": 1, "beat": 4, "symbol": "C7"},
                        {"bar": 2, "beat": 1, "symbol": "Fmaj7"}]})["composition"]
    comps = [every_quality(), blue_monday(), minor, waltz, beat_four]
    links = [run({"op": "export", "formats": ["ireal"]}, composition=c)["results"][0]["ireal"]
             for c in comps]
    readings = ireal_read(ireal_reader, links, tmp_path)
    assert {link: differences(link, r) for link, r in zip(links, readings, strict=True)} == \
        {link: [] for link in links}
    assert [r["songs"][0]["key"] for r in readings[2:4]] == ["C-", "C-"]
    first, _, _ = read(readings[4]["songs"][0]["musicXml"])
    assert [(s.bar, s.beat) for s in first] == [(1, 1.0), (1, 4.0), (2, 1.0)]


def test_a_quarter_of_the_ireal_standards_read_by_ireal_musicxml(
        ireal_reader: ts_clients.Clients, corpora: Path, tmp_path: Path) -> None:
    """Every fourth of the 1,382 standards exported and read by ireal-musicxml, and the two
    whose bars hold more chords than beats (Conference of the Birds, Walk Tall: such a bar
    takes a meter of its own, as their iReal charts have it): no warning, our loader's chords
    and bars (bench/run_compose_exports.py reads all 1,382)."""
    from engine.compose.ireal import ireal

    tunes = standards(corpora)
    crowded = [t for t in tunes if t[1].title in ("Conference Of The Birds", "Walk Tall")]
    exports = [ireal(composition(item, song)) for item, song in tunes[::4] + crowded]
    readings = ireal_read(ireal_reader, [url for url, _ in exports], tmp_path)
    failing = {url[:80]: differences(url, reading)[:3]
               for (url, _), reading in zip(exports, readings, strict=True)
               if differences(url, reading)}
    assert failing == {}
    assert len(readings) == 346 + 2
