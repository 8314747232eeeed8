"""identify on files (API.md 17): our own conduct MIDI and compose MusicXML read back as chord
charts; a MusicXML file by its notes; bad files; harmony analyze-file."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from engine import compose, conduct, identify
from engine.analysis.grid import quality_class
from engine.chords import parse
from engine.errors import InvalidRequest
from server.cli.main import main as harmony

GOLDEN = Path(__file__).resolve().parent.parent / "golden"


def chord_at(chart: list[list[dict[str, Any]]], bar: int, beat: int) -> str | None:
    found = None
    for cell in chart[bar - 1] if bar <= len(chart) else []:
        if cell["beat"] <= beat:
            found = cell["symbol"]
    return found


def test_f_blues_from_conduct_midi_reads_back_its_changes() -> None:
    arranged = conduct({"prompt": "medium swing blues in F, 12 bars", "durationSec": 30,
                        "seed": 1, "detail": "full"})
    found = identify({"midi": arranged["midi"]})
    right = 0
    for cell in arranged["chords"]:
        ours = chord_at(found["chart"], cell["bar"], cell["beat"])
        lead, read = parse(cell["symbol"]), parse(ours or "C")
        right += ours is not None and lead.root.pc == read.root.pc and \
            quality_class(lead) == quality_class(read)
    assert right >= 0.9 * len(arranged["chords"])
    assert found["analysis"]["key"] == "F"
    assert found["leadSheet"].startswith("| F7 | Bb7 | F7 |")


def _session_export(fmt: str) -> str:
    request = json.loads((GOLDEN / "compose" / "session.request.json").read_text())
    for op in request["operations"]:
        if op.get("op") == "export":
            op["formats"] = [fmt, "leadsheet"]
    result = compose(request)["results"][-1]
    return str(result[fmt]), str(result["leadsheet"])


def test_golden_lead_sheet_musicxml_is_read_by_its_harmony_symbols() -> None:
    xml, lead_sheet = _session_export("musicxml")
    found = identify({"musicxml": xml})
    assert found["leadSheet"] == lead_sheet
    assert found["analysis"]["key"] == "Eb"


def test_golden_midi_export_reads_back_as_its_lead_sheet() -> None:
    midi, lead_sheet = _session_export("midi")
    found = identify({"midi": midi})
    assert [[parse(c["symbol"]).pcs for c in bar] for bar in found["chart"]] == \
        [[parse(s).pcs for s in bar.split()] for line in lead_sheet.splitlines()
         for bar in line.strip("| ").split(" | ")]


PIANO = """<?xml version="1.0"?><score-partwise version="4.0"><part-list><score-part id="P1">
<part-name>Piano</part-name></score-part></part-list><part id="P1">
<measure number="1"><attributes><divisions>1</divisions><time><beats>4</beats>
<beat-type>4</beat-type></time></attributes>
<note><pitch><step>D</step><octave>3</octave></pitch><duration>4</duration></note>
<note><chord/><pitch><step>F</step><octave>3</octave></pitch><duration>4</duration></note>
<note><chord/><pitch><step>A</step><octave>3</octave></pitch><duration>4</duration></note>
<note><chord/><pitch><step>C</step><octave>4</octave></pitch><duration>4</duration></note>
</measure><measure number="2">
<note><pitch><step>G</step><octave>2</octave></pitch><duration>4</duration></note>
<note><chord/><pitch><step>B</step><octave>3</octave></pitch><duration>4</duration></note>
<note><chord/><pitch><step>F</step><octave>4</octave></pitch><duration>4</duration></note>
<note><chord/><pitch><step>D</step><octave>4</octave></pitch><duration>4</duration></note>
</measure><measure number="3">
<note><pitch><step>C</step><octave>3</octave></pitch><duration>4</duration></note>
<note><chord/><pitch><step>E</step><octave>3</octave></pitch><duration>4</duration></note>
<note><chord/><pitch><step>G</step><octave>3</octave></pitch><duration>4</duration></note>
<note><chord/><pitch><step>B</step><octave>3</octave></pitch><duration>4</duration></note>
</measure></part></score-partwise>"""


def test_a_piano_ii_v_i_in_musicxml_is_read_by_its_notes() -> None:
    found = identify({"musicxml": PIANO})
    assert found["leadSheet"] == "| Dm7 | G7 | Cmaj7 |"
    assert found["analysis"]["key"] == "C"


@pytest.mark.parametrize(("request_", "field"), [
    ({"midi": "not base64!"}, "midi"),
    ({"midi": base64.b64encode(b"RIFF not a midi file").decode()}, "midi"),
    ({"midi": 5}, "midi"),
    ({"musicxml": "<html>"}, "musicxml"),
    ({"musicxml": "<opus/>"}, "musicxml"),
    ({"musicxml": PIANO, "midi": "TVRoZA=="}, "musicxml"),
    ({"musicxml": PIANO, "notes": ["C"]}, "notes"),
    ({"musicxml": " " * (1 << 20) + "x"}, "musicxml"),
])
def test_bad_files_are_invalid_requests(request_: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidRequest) as info:
        identify(request_)
    assert info.value.field == field


def test_harmony_analyze_file_prints_the_key_and_lead_sheet(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    midi, _ = _session_export("midi")
    song = tmp_path / "golden.mid"
    song.write_bytes(base64.b64decode(midi))
    code = harmony(["--db", str(tmp_path / "h.db"), "analyze-file", str(song)])
    out = capsys.readouterr().out
    assert code in (0, None)
    assert out.startswith("key: Eb") and "| Fm7 Bb7 | Ebmaj7 |" in out
    (tmp_path / "piano.musicxml").write_text(PIANO)
    harmony(["--db", str(tmp_path / "h.db"), "analyze-file", str(tmp_path / "piano.musicxml"),
             "--json"])
    assert json.loads(capsys.readouterr().out)["leadSheet"] == "| Dm7 | G7 | Cmaj7 |"


def test_harmony_analyze_file_on_a_folder_writes_a_row_a_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    midi, _ = _session_export("midi")
    (tmp_path / "songs").mkdir()
    (tmp_path / "songs" / "golden.mid").write_bytes(base64.b64decode(midi))
    (tmp_path / "songs" / "piano.musicxml").write_text(PIANO)
    (tmp_path / "songs" / "broken.mid").write_bytes(b"not midi")
    code = harmony(["--db", str(tmp_path / "h.db"), "analyze-file", str(tmp_path / "songs")])
    captured = capsys.readouterr()
    rows = [json.loads(line) for line in captured.out.splitlines()]
    assert code == 1 and [Path(r["path"]).name for r in rows] == \
        ["broken.mid", "golden.mid", "piano.musicxml"]
    assert rows[0]["error"] and rows[1]["key"] == "Eb" and rows[2]["chords"] == 3
    assert "[3/3]" in captured.err
    harmony(["--db", str(tmp_path / "h.db"), "analyze-file", str(tmp_path / "songs"),
             "--format", "csv"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "path,key,bars,chords,leadSheet,error"
