"""The ``export`` formats read back by independent readers: every MusicXML export valid against
the MusicXML 4.0 XSD (every canonical quality on all 12 roots), every MIDI export read back with
symusic, the iReal Pro link and the ChordPro grid read back by the corpus loaders to the same
chords."""

from __future__ import annotations

import base64
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest
import symusic
from lxml import etree

from engine.chords import parse
from engine.chords.tables import QUALITIES
from engine.compose.export import unrolled
from engine.compose.musicxml import KIND_TONES, KINDS
from engine.corpus.loaders import load_text
from engine.corpus.songs import Problems
from tests.test_compose import CREATE, SESSION, run

SCHEMA = Path(__file__).resolve().parent / "schemas" / "musicxml.xsd"
ROOTS = ("C", "Db", "D", "Eb", "E", "F", "F#", "G", "Ab", "A", "Bb", "B")


@lru_cache(maxsize=1)
def schema() -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(SCHEMA)))


def valid(xml: str) -> None:
    document = etree.fromstring(xml.encode("utf-8"))
    assert schema().validate(document), schema().error_log.last_error


def exported(comp: dict[str, Any], fmt: str) -> Any:
    return run({"op": "export", "formats": [fmt]}, composition=comp)["results"][0][fmt]


def test_every_canonical_quality_has_a_kind() -> None:
    assert {q.canonical for q in QUALITIES} == set(KINDS)
    assert {kind for kind, _ in KINDS.values()} <= set(KIND_TONES)


def test_every_quality_on_every_root_is_valid_musicxml() -> None:
    bars = [f"{root}{q.canonical}" for q in QUALITIES for root in ROOTS]
    bars += ["C7(b9,#11)", "G7alt/Db", "Dm7/C", "Bbmaj7#11", "F#m11b5", "Ebadd9"]
    comp = run({"op": "create", "key": "Eb", "progression": "A: " + " | ".join(bars)}
               )["composition"]
    xml = exported(comp, "musicxml")
    valid(xml)
    document = etree.fromstring(xml.encode("utf-8"))
    harmonies = document.findall(".//harmony")
    assert len(harmonies) == len(bars)
    alt = next(h for h in harmonies if h.find("kind").get("text") == "7alt")
    assert all(d.get("print-object") == "no" for d in alt.findall("degree"))
    assert [d.findtext("degree-value") for d in alt.findall("degree")] == ["5", "9", "9", "11",
                                                                          "13"]
    slash = next(h for h in harmonies if h.find("bass") is not None)
    assert slash.findtext("bass/bass-step") in ("D", "C")


def test_a_full_session_exports_valid_musicxml_with_melody_and_changes() -> None:
    comp = run(*SESSION[:-1], {"op": "set_form", "from": "C", "timeSignature": "3/4",
                               "tempo": 120, "key": "G"})["composition"]
    xml = exported(comp, "musicxml")
    valid(xml)
    document = etree.fromstring(xml.encode("utf-8"))
    assert document.findtext(".//work-title") == "Test Tune"
    assert len(document.findall(".//measure")) == sum(s["bars"] for s, _ in unrolled(comp))
    assert document.findall(".//note/pitch")  # the melody
    assert [t.findtext("beats") for t in document.findall(".//time")] == ["4", "3", "4"]


def test_midi_export_reads_back_with_symusic() -> None:
    comp = run(*SESSION[:-1])["composition"]
    data = base64.b64decode(exported(comp, "midi"))
    score = symusic.Score.from_midi(data)
    assert score.ticks_per_quarter == 480
    by_name = {t.name: t for t in score.tracks}
    assert set(by_name) == {t["id"] for t in comp["tracks"]}
    for track in comp["tracks"]:
        expected = sum(len(track["events"].get(s["id"], [])) for s, _ in unrolled(comp))
        assert len(by_name[track["id"]].notes) == expected, track["id"]
    assert by_name["drums"].is_drum
    assert round(60_000_000 / score.tempos[0].mspq) == 150
    end = sum(s["bars"] for s, _ in unrolled(comp)) * 1920
    assert max(n.end for t in score.tracks for n in t.notes) <= end + 1920


def lead_chords(comp: dict[str, Any]) -> list[tuple[int, str]]:
    return [(parse(c["symbol"]).root.pc, parse(c["symbol"]).quality)
            for section, _ in unrolled(comp)
            for c in sorted(section["chords"], key=lambda c: (c["bar"], c["beat"]))]


def read(text: str, kind: str) -> list[tuple[int, str]]:
    problems = Problems()
    songs = load_text(text, kind, f"export.{kind}", problems)
    assert not problems.items, problems.items
    assert len(songs) == 1
    return [(p.chord.root.pc, p.chord.quality) for s in songs[0].sections for p in s.chords]


@pytest.mark.parametrize("fmt,kind", [("ireal", "ireal"), ("chordpro", "chordpro")])
def test_ireal_and_chordpro_read_back_to_the_same_chords(fmt: str, kind: str) -> None:
    comp = run(CREATE, {"op": "set_chords", "section": "B",
                        "progression": "Em7b5 A7b9 | Dm(maj7) | Db13#11 | C6/9"},
               {"op": "reharmonize", "section": "A", "technique": "backdoor"})["composition"]
    text = exported(comp, fmt)
    if fmt == "ireal":
        assert text.startswith("irealbook://Test%20Tune%3DSmith%20Jo%3DMedium%20Swing%3DF")
    assert read(text, kind) == lead_chords(comp)


def test_leadsheet_and_analysis() -> None:
    comp = run(CREATE)["composition"]
    sheet = exported(comp, "leadsheet")
    assert sheet.splitlines()[0] == "| Gm7 C7 | Fmaj7 | Bb7 | Fmaj7 |"
    assert len(sheet.splitlines()) == 4
    # the progression analysis (API.md 3.1) of the form as played, A A B A, bars across it
    analysis = exported(comp, "analysis")
    assert (analysis["key"], analysis["keyFound"], analysis["form"]) == (
        "F", False, {"name": "AABA", "bars": 16})
    first = analysis["chords"][0]
    assert (first["bar"], first["beat"], first["chord"], first["numeral"]) == (1, 1, "Gm7", "ii7")
    # the B section's Am7b5 D7 aims at Gm7: iiø7/ii and V7/ii in context (alone: iiiø7, VI7)
    b = [c for c in analysis["chords"] if c["bar"] == 9]
    assert [(c["numeral"], c["contextNumeral"]) for c in b] == [
        ("iiiø7", "iiø7/ii"), ("V7/ii", "V7/ii")]
    assert [c["bar"] for c in analysis["cadences"]] == [2, 6, 12, 14]
