"""identify on files (API.md 17): our own conduct MIDI and compose MusicXML read back as chord
charts; a MusicXML file by its notes; bad files; harmony analyze-file."""

from __future__ import annotations

import base64
import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from engine import compose, conduct, identify
from engine.analysis.grid import quality_class
from engine.chords import parse
from engine.errors import InvalidRequest
from engine.identify import music_request
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


CONTAINER = """<?xml version="1.0" encoding="UTF-8"?>
<container><rootfiles><rootfile full-path="score/ii-v-i.musicxml"
media-type="application/vnd.recordare.musicxml+xml"/></rootfiles></container>"""


def mxl(score: str, container: str | None = CONTAINER, name: str = "score/ii-v-i.musicxml"
        ) -> bytes:
    """A compressed MusicXML file as MuseScore writes one: a zip whose container names the
    score."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zipped:
        zipped.writestr("mimetype", "application/vnd.recordare.musicxml")
        if container is not None:
            zipped.writestr("META-INF/container.xml", container)
        zipped.writestr(name, score)
    return out.getvalue()


def test_a_compressed_musicxml_file_reads_as_its_score() -> None:
    # .mxl is what MuseScore, Finale, Sibelius and Dorico export by default
    packed = music_request(mxl(PIANO), "ii-v-i.mxl")
    assert packed == {"musicxml": PIANO}
    assert identify(packed)["leadSheet"] == "| Dm7 | G7 | Cmaj7 |"
    # told by its bytes, not its name; without a container, its one score
    assert music_request(mxl(PIANO), "ii-v-i.mid") == packed
    assert music_request(mxl(PIANO, None), "x.mxl") == packed
    midi = b"MThd\x00\x00\x00\x06"
    assert music_request(midi, "song.MID") == {"midi": base64.b64encode(midi).decode()}
    assert music_request(PIANO.encode(), "song.xml") == {"musicxml": PIANO}


@pytest.mark.parametrize(("data", "says"), [
    (b"PK\x03\x04 not a zip at all", "not a readable"),
    (mxl(PIANO, CONTAINER.replace("score/ii-v-i", "elsewhere/x")), "names no score"),
    (mxl(PIANO, "<container><rootfiles>"), "not a readable"),
    (mxl(" " * (1 << 20) + PIANO), "larger than 1 MiB"),   # deflates to ~1 KiB
])
def test_a_broken_compressed_musicxml_file_is_an_invalid_request(data: bytes, says: str
                                                                  ) -> None:
    with pytest.raises(InvalidRequest) as info:
        music_request(data, "broken.mxl", field="path")
    assert info.value.field == "path" and says in info.value.message


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
    (tmp_path / "piano.mxl").write_bytes(mxl(PIANO))
    for name in ("piano.musicxml", "piano.mxl"):
        harmony(["--db", str(tmp_path / "h.db"), "analyze-file", str(tmp_path / name),
                 "--json"])
        assert json.loads(capsys.readouterr().out)["leadSheet"] == "| Dm7 | G7 | Cmaj7 |"
    (tmp_path / "broken.mxl").write_bytes(b"PK\x03\x04 truncated")
    assert harmony(["--db", str(tmp_path / "h.db"), "analyze-file",
                    str(tmp_path / "broken.mxl")]) == 1
    assert json.loads(capsys.readouterr().out)["error"]["code"] == "invalid_request"


def test_harmony_analyze_file_on_a_folder_writes_a_row_a_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    midi, _ = _session_export("midi")
    (tmp_path / "songs").mkdir()
    (tmp_path / "songs" / "golden.mid").write_bytes(base64.b64decode(midi))
    (tmp_path / "songs" / "piano.musicxml").write_text(PIANO)
    (tmp_path / "songs" / "piano.mxl").write_bytes(mxl(PIANO))
    (tmp_path / "songs" / "broken.mid").write_bytes(b"not midi")
    code = harmony(["--db", str(tmp_path / "h.db"), "analyze-file", str(tmp_path / "songs")])
    captured = capsys.readouterr()
    rows = [json.loads(line) for line in captured.out.splitlines()]
    assert code == 1 and [Path(r["path"]).name for r in rows] == \
        ["broken.mid", "golden.mid", "piano.musicxml", "piano.mxl"]
    assert rows[0]["error"] and rows[1]["key"] == "Eb" and rows[2]["chords"] == 3
    assert rows[3]["leadSheet"] == rows[2]["leadSheet"] == "| Dm7 | G7 | Cmaj7 |"
    assert "[4/4]" in captured.err
    harmony(["--db", str(tmp_path / "h.db"), "analyze-file", str(tmp_path / "songs"),
             "--format", "csv"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "path,key,bars,chords,leadSheet,error"
