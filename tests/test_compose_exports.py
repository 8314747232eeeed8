"""The ``export`` formats read back by independent readers: every MusicXML export valid against
the MusicXML 4.0 XSD (every canonical quality on all 12 roots), every MIDI export read back with
symusic, the iReal Pro link and the ChordPro grid read back by the corpus loaders to the same
chords."""

from __future__ import annotations

import base64
import urllib.parse
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


# ------------------------------------------------------------------ issue 38: by the formats


def test_blue_monday_session_of_the_guide_runs_its_three_calls() -> None:
    """docs/guide.md's compose session, all three calls, in process."""
    made = run({"op": "create", "title": "Blue Monday", "key": "F", "tempo": 160,
                "progression": "A: Gm7 C7 | Fmaj7 | Am7b5 D7 | Gm7 C7 || B: Cm7 F7 | Bbmaj7 | "
                               "Bbm6 Eb7 | Am7 D7", "form": ["A", "A", "B", "A"]})
    done = run({"op": "reharmonize", "section": "B", "technique": "backdoor"},
               {"op": "voice", "style": "drop2"}, {"op": "arrange", "style": "bossa_nova"},
               composition=made["composition"])
    last = run({"op": "transpose", "key": "Eb"},
               {"op": "export", "formats": ["musicxml", "ireal", "midi"]},
               composition=done["composition"])
    assert last["results"][0] == {"key": "Eb", "semitones": -2}
    assert last["results"][1]["ireal"].startswith("irealbook://Blue%20Monday%3D")
    valid(last["results"][1]["musicxml"])
    assert base64.b64decode(last["results"][1]["midi"])[:4] == b"MThd"


def progression(comp: dict[str, Any], sid: str) -> str:
    section = next(s for s in comp["sections"] if s["id"] == sid)
    return " ".join(c["symbol"] for c in
                    sorted(section["chords"], key=lambda c: (c["bar"], c["beat"])))


@pytest.fixture(scope="module")
def tunes(corpora: Path) -> dict[str, tuple[dict[str, Any], Any]]:
    from tests.compose_tunes import standards
    return {song.title: (item, song) for item, song in standards(corpora)}


def test_all_the_things_you_are_in_c_has_its_bridge_in_b_and_a_flat(tunes: Any) -> None:
    from tests.compose_tunes import composition
    comp = composition(*tunes["All The Things You Are"])
    assert comp["meta"]["key"] == "Ab"
    moved = run({"op": "transpose", "key": "C"}, composition=comp)["composition"]
    bridge = progression(moved, "S3")
    assert bridge == "C#m7 F#7 Bmaj7 Bmaj7 Bbm7b5 Eb7b9 Abmaj7 E7b13"   # never A#m7b5 D#7b9
    assert progression(moved, "S4").split()[:7] == ["Am7", "Dm7", "G7", "Cmaj7", "Fmaj7",
                                                    "Fm/maj7", "Em7"]


def test_a_backdoor_transposed_comes_out_with_flats() -> None:
    # Blue Monday's backdoor (iv-bVII into I) moved from F to C: Fm7 Bb7, not Fm7 A#7.
    comp = run({"op": "create", "key": "F", "progression": "A: Gm7 | Bbm7 Eb7 | Fmaj7 | "
                "Gb7 | Fmaj7 | Ab7 | Gm7 C7 | F#dim7 | Gm7 | Dbmaj7 | C7 | Fmaj7"})["composition"]
    moved = run({"op": "transpose", "key": "C"}, composition=comp)["composition"]
    assert progression(moved, "A") == ("Dm7 Fm7 Bb7 Cmaj7 Db7 Cmaj7 Eb7 Dm7 G7 C#dim7 Dm7 "
                                       "Abmaj7 G7 Cmaj7")
    up = run({"op": "transpose", "semitones": 1}, composition=comp)["composition"]
    assert progression(up, "A").split()[1:3] == ["Bm7", "E7"]     # in F#: iv-bVII is Bm7 E7


def test_autumn_leaves_transposed_keeps_its_slash_basses_and_minor_key(tunes: Any) -> None:
    from tests.compose_tunes import composition
    comp = composition(*tunes["Autumn Leaves"])
    comp["sections"][0]["chords"][2]["symbol"] = "Cm7/Bb"
    moved = run({"op": "transpose", "key": "Em"}, composition=comp)["composition"]
    assert moved["meta"]["key"] == "Em"
    # the chart's A is played twice, as its repeat says; the slash bass was set on the first
    assert progression(moved, "S1").split() == ["Am7", "D7", "Am7/G", "Cmaj7", "F#m7b5",
                                                "B7b13", "Em6", "Em6",
                                                "Am7", "D7", "Gmaj7", "Cmaj7", "F#m7b5",
                                                "B7b13", "Em6", "Em6"]


def test_the_standards_in_flat_keys_have_no_sharp_root_on_a_lowered_degree(
        tunes: Any) -> None:
    """The measure of issue 38 over every standard in C and Eb (Am and Cm): no sharp root on
    bII, bIII, bVI, bVII where a flat is written, but the V and ii right before a target on
    the sharp side; no held chord renamed; a V or ii falling a fifth spelled apart from its
    target only where a chain of them meets such a target across one seam; a line of ii's and
    V's that meets no target in one piece, with no sharp on a lowered degree (Aisha)."""
    from tests.compose_tunes import composition
    from tests.transpose_spelling import mistakes
    sharps = apart = held = loose = chords = 0
    for item, song in tunes.values():
        comp = composition(item, song)
        for key in (("Am", "Cm") if comp["meta"]["mode"] == "minor" else ("C", "Eb")):
            if key == comp["meta"]["key"]:
                continue      # its own key: the chart as its writer spelled it (Daahoud)
            moved = run({"op": "transpose", "key": key}, composition=comp)["composition"]
            s, a, h, lo, n = mistakes(moved)
            sharps, apart, held, chords = sharps + s, apart + a, held + h, chords + n
            loose += lo
    assert chords > 100_000
    assert sharps == 0 and held == 0 and loose == 0
    assert apart <= chords // 1_000     # 82 of 105,463: one seam a long chain


def test_jordu_keeps_its_flats_and_meets_b_major_with_one_sharp(tunes: Any) -> None:
    # The bridge's cycle Bb7 Eb7 Ab7 Db7 Gb7 into Bmaj7 (Cb, awkward): in C minor, its own
    # key, the chain keeps its numerals' flats and only the V takes the target's side (never
    # A#7 D#7 G#7 C#7 F#7); in A minor the target is the VII, G#, and again only its V is
    # sharp.
    from tests.compose_tunes import composition
    comp = composition(*tunes["Jordu"])
    away = run({"op": "transpose", "key": "Fm"}, composition=comp)["composition"]
    own = run({"op": "transpose", "key": "Cm"}, composition=away)["composition"]
    assert progression(own, "S2").split()[-6:] == ["Bb7", "Eb7", "Ab7", "Db7", "F#7", "Bmaj7"]
    down = run({"op": "transpose", "key": "Am"}, composition=comp)["composition"]
    assert progression(down, "S2").split()[-6:] == ["G7", "C7", "F7", "Bb7", "D#7",
                                                     "G#maj7"]


def test_aisha_s_last_chain_of_ii_vs_keeps_its_flats_back_to_the_top(tunes: Any) -> None:
    # The last section, Gm7 C7 | Fm7 Bb7 | Ebm7 Ab7 | Gb13, goes back to Am9: no chord of the
    # chain resolves, so it is spelled as one line from its start, falling in fifths, and Gb13
    # is the next V of the sequence (its ii left out), a whole step below Ab7. Moved away and
    # back to A minor it is written as McCoy Tyner's chart has it (it was Fm7 A#7 D#m7 G#7
    # F#13); in C minor the line turns to the sharps between two ii-V's, where a flat name
    # would be Cb (Db7 | F#m7 B7).
    from tests.compose_tunes import composition
    from tests.transpose_spelling import mistakes
    comp = composition(*tunes["Aisha"])
    assert comp["meta"]["key"] == "Am"
    away = run({"op": "transpose", "key": "Em"}, composition=comp)["composition"]
    assert progression(away, "S4").split() == ["Dm7", "G7", "Cm7", "F7", "Bbm7", "Eb7", "Db13"]
    back = run({"op": "transpose", "key": "Am"}, composition=away)["composition"]
    assert progression(back, "S4") == "Gm7 C7 Fm7 Bb7 Ebm7 Ab7 Gb13"
    in_c = run({"op": "transpose", "key": "Cm"}, composition=comp)["composition"]
    assert progression(in_c, "S4") == "Bbm7 Eb7 Abm7 Db7 F#m7 B7 A13"
    for key in ("Dm", "Gm", "Cm", "Fm", "Bbm"):
        moved = run({"op": "transpose", "key": key}, composition=comp)["composition"]
        sharps, _, held, loose, _ = mistakes(moved)
        assert (sharps, held, loose) == (0, 0, 0), key


def test_daahoud_transposed_to_its_own_key_keeps_its_spelling(tunes: Any) -> None:
    # Clifford Brown's Ebm7 Ab7 | Dbm7 Gb7 | Bmaj7: the chart to its own key, or an octave up,
    # is the chart as written (the rules alone would spell the ii-V into Cb as C#m7 F#7); a
    # new key, or a new name of the same one, is spelled by function (in F: Ebm7 Ab7 | Dbmaj7).
    from tests.compose_tunes import composition
    comp = composition(*tunes["Daahoud"])
    assert comp["meta"]["key"] == "Eb"
    written = [progression(comp, s["id"]) for s in comp["sections"]]
    assert written[0].split()[:5] == ["Ebm7", "Ab7", "Dbm7", "Gb7", "Bmaj7"]
    for request in ({"key": "Eb"}, {"semitones": 12}, {"semitones": 0}):
        moved = run({"op": "transpose", **request}, composition=comp)["composition"]
        assert [progression(moved, s["id"]) for s in moved["sections"]] == written, request
        assert moved["meta"]["key"] == "Eb"
    in_f = run({"op": "transpose", "key": "F"}, composition=comp)["composition"]
    assert progression(in_f, "S1").split()[:5] == ["Fm7", "Bb7", "Ebm7", "Ab7", "Dbmaj7"]
    minor = run({"op": "create", "key": "Ebm", "progression": "A: Ebm7 | Ab7 | Dbm7 Gb7 | "
                 "Bmaj7"})["composition"]
    octave = run({"op": "transpose", "semitones": -12}, composition=minor)["composition"]
    assert octave["meta"]["key"] == "Ebm"      # by octaves the key keeps its name (not D#m)
    assert progression(octave, "A") == "Ebm7 Ab7 Dbm7 Gb7 Bmaj7"
    enharmonic = run({"op": "transpose", "key": "D#"}, composition=comp)["composition"]
    assert enharmonic["meta"]["key"] == "D#"     # a new name is a new key: spelled by it
    assert progression(enharmonic, "S1").split()[0] == "D#m7"


def test_body_and_soul_in_b_flat_ends_its_a_with_the_ii_v_of_the_bridge(tunes: Any) -> None:
    # The A's last bar leads to the bridge a half step up: C#m7 F#7 | Bmaj7 (the bridge's
    # key, Cb, is written B), read across the section boundary.
    from tests.compose_tunes import composition
    comp = composition(*tunes["Body And Soul"])
    moved = run({"op": "transpose", "key": "Bb"}, composition=comp)["composition"]
    assert progression(moved, "S1").split()[-3:] == ["Bb6", "C#m7", "F#7"]
    assert progression(moved, "S2").split()[0] == "Bmaj7"


def test_swinging_at_the_haven_holds_one_name_for_a_held_chord(tunes: Any) -> None:
    # Four bars of Ab13sus in F, falling to Dbmaj7: in Eb they are four bars of one chord
    # leading to Bmaj7, all F#13sus (never Gb13sus Gb13sus Gb13sus F#13sus).
    from tests.compose_tunes import composition
    comp = composition(*tunes["Swinging At The Haven"])
    moved = run({"op": "transpose", "key": "Eb"}, composition=comp)["composition"]
    assert progression(moved, "S1").split()[-4:] == ["F#13sus"] * 4
    assert progression(moved, "S2").split()[0] == "Bmaj7"


def test_blood_count_keeps_its_tonic_pedal_under_the_chords(tunes: Any) -> None:
    # The coda's D pedal under Dmaj7 F/D E/D Eb/D: in Bb the pedal is Bb under every chord
    # (B/Bb, not B/A#); a bass that is a tone of its chord keeps its interval (Db/F).
    from tests.compose_tunes import composition
    comp = composition(*tunes["Blood Count"])
    moved = run({"op": "transpose", "key": "Bb"}, composition=comp)["composition"]
    assert progression(moved, "S6").split()[:4] == ["Bbmaj7", "Db/Bb", "C/Bb", "B/Bb"]
    assert "Db/F" in progression(moved, "S5").split()


def test_ireal_writes_keys_times_marks_and_cells_by_the_format() -> None:
    comp = run({"op": "create", "title": "Footprints", "key": "Cm", "timeSignature": "12/8",
                "progression": "Intro: Cm7 | Cm7 || A: Cm7 | Fm7 | Cm7 | Cm7 || B: Cm7 | F9sus4"
                               " Cmaj7sus4 | Csus2 | C7#5b9 C13sus4"},
               {"op": "set_chords", "section": "A", "chords": [
                   {"bar": 1, "beat": 1, "symbol": "Cm7"}, {"bar": 1, "beat": 10,
                                                           "symbol": "G7alt"},
                   {"bar": 2, "beat": 1, "symbol": "Fm7"}, {"bar": 4, "beat": 1,
                                                           "symbol": "Cm7"}]},
               {"op": "set_form", "form": ["Intro", "A", "A", "B"]})["composition"]
    answer = run({"op": "export", "formats": ["ireal"]}, composition=comp)["results"][0]
    music = urllib.parse.unquote(answer["ireal"]).split("=")
    assert music[3] == "C-" and music[4] == "n"
    assert music[5].startswith("[*iT12C-7" + " " * 11 + "|")
    assert "{*AC-7" + " " * 8 + "G7alt  |F-7" in music[5]     # G7alt on the 10th eighth
    assert "|x|" in music[5] and music[5].endswith("Z")
    assert "[*B" in music[5] and "C9sus" not in music[5]
    # iReal has no maj7sus4 and no sus2: the nearest, reported; 7#5b9 is its 7b9#5 (no change)
    assert answer["irealChanges"] == [{"from": "Cmaj7sus4", "to": "Csus"},
                                      {"from": "Csus2", "to": "C5"}]
    assert "C7b9#5     C13sus     Z" in music[5]
    def heard(chords: list[tuple[int, str]]) -> list[tuple[int, str]]:
        return [c for i, c in enumerate(chords) if i == 0 or chords[i - 1] != c]

    mapped = {"maj7sus4": "sus4", "sus2": "5"}
    assert heard(read(answer["ireal"], "ireal")) == heard(
        [(pc, mapped.get(q, q)) for pc, q in lead_chords(comp)])


def test_the_1382_ireal_standards_round_trip_through_our_loader(tunes: Any) -> None:
    """Every standard exported to iReal Pro and read back by our iReal loader: the same
    chord changes (root, bass) at the same bars, and the same beats wherever the chart's
    beats are whole."""
    from engine.compose.ireal import ireal
    from tests.compose_tunes import changes, composition, read_ireal
    same = on_beats = whole = 0
    for item, song in tunes.values():
        url, _ = ireal(composition(item, song))
        a, bars_a = changes(song)
        b, bars_b = changes(read_ireal(url))
        same += [(x[0], x[2], x[4]) for x in a] == [(x[0], x[2], x[4]) for x in b] \
            and bars_a == bars_b
        if all(x[1] == int(x[1]) for x in a):
            whole += 1
            on_beats += [(x[0], x[1]) for x in a] == [(x[0], x[1]) for x in b]
    assert same == len(tunes) == 1382
    assert on_beats == whole == 1321


def test_conference_of_the_birds_and_walk_tall_write_their_crowded_bars_as_ireal_does(
        tunes: Any) -> None:
    """Bars of 3 chords in 2/4 (the corpus gives these charts the meter of their last bar; their
    iReal charts are in 5/4 and 4/4): iReal Pro plays at most a chord a beat, so the bar takes
    the meter whose beats put each chord at its share of the bar, as the iReal charts write
    them: Dm for two beats, Dm/C for one, G/B for two; Am7 Bm7 a beat each, Cmaj7 two. Our
    loader reads back the same chords at the same bars, and the next bar is in 2/4 again."""
    from engine.compose.ireal import ireal
    from tests.compose_tunes import changes, composition, read_ireal
    expected = {"Conference Of The Birds": ("T54D- D-/C,G/B |T24G/B ",
                                            [{"from": "S2 bar 7: 3 chords in 2/4",
                                              "to": "a bar of 5/4, a chord a beat"}]),
                "Walk Tall": ("|T44A-7,B-7,C^7 |T24B-7 |", [
                    {"from": "S1 bar 12: 3 chords in 2/4", "to": "a bar of 4/4, a chord a beat"},
                    {"from": "S1 bar 30: 3 chords in 2/4", "to": "a bar of 4/4, a chord a beat"}])}
    for title, (cells, reported) in expected.items():
        item, song = tunes[title]
        url, irreal = ireal(composition(item, song))
        assert cells in urllib.parse.unquote(url), title
        assert irreal == reported
        back = read_ireal(url)
        (a, bars_a), (b, bars_b) = changes(song), changes(back)
        assert [(x[0], x[2], x[4]) for x in a] == [(x[0], x[2], x[4]) for x in b]
        assert bars_a == bars_b
    crowded = read_ireal(ireal(composition(*tunes["Conference Of The Birds"]))[0])
    bar = [(p.beat, p.chord.symbol) for p in crowded.sections[-1].chords if p.bar == 11]
    assert bar == [(1.0, "Dm"), (3.0, "Dm/C"), (4.0, "G/B")]


def test_chordpro_and_the_lead_sheet_keep_a_chord_on_beat_four() -> None:
    comp = run({"op": "create", "key": "F", "progression": "A: Gm7 | Fmaj7"},
               {"op": "set_chords", "section": "A", "chords": [
                   {"bar": 1, "beat": 1, "symbol": "Gm7"}, {"bar": 1, "beat": 4,
                                                           "symbol": "C7"},
                   {"bar": 2, "beat": 1, "symbol": "Fmaj7"}, {"bar": 2, "beat": 3,
                                                             "symbol": "D7"}]})["composition"]
    assert exported(comp, "leadsheet") == "| Gm7 . . C7 | Fmaj7 D7 |"
    grid = exported(comp, "chordpro")
    assert "| Gm7 . . C7 | Fmaj7 . D7 . |" in grid
    assert [(p.bar, p.beat) for s in load_text(grid, "chordpro", "x.cho", Problems())[0].sections
            for p in s.chords] == [(1, 1.0), (1, 4.0), (2, 1.0), (2, 3.0)]


def pushed(comp: dict[str, Any], early: float) -> dict[str, Any]:
    """``comp`` (in 4/4) with every chord played ``early`` beats before its beat, as a swing
    comper anticipates the changes (a downbeat's chord in the bar before), but where that
    leaves the section."""
    out = {**comp, "sections": []}
    for section in comp["sections"]:
        chords = []
        for c in section["chords"]:
            bar, beat = c["bar"], c["beat"] - early
            if beat < 1:
                bar, beat = bar - 1, beat + 4
            elif beat >= 5:
                bar, beat = bar + 1, beat - 4
            if not 1 <= bar <= section["bars"]:    # a section's first or last: kept
                bar, beat = c["bar"], c["beat"]
            chords.append({**c, "bar": bar, "beat": round(beat, 3)})
        out["sections"].append({**section, "chords": chords})
    return out


@pytest.mark.parametrize("fmt", ["ireal", "chordpro", "leadsheet"])
def test_autumn_leaves_pushed_an_eighth_early_is_written_on_its_beats(tunes: Any,
                                                                       fmt: str) -> None:
    # Every change on the "and" before its beat (4.5 of the bar before for a downbeat): each
    # is halfway between two cells and goes to the later, the beat it anticipates, in the next
    # bar for the "and" of 4. The chart comes out as written, in iReal Pro, ChordPro and the
    # lead sheet alike.
    from tests.compose_tunes import composition
    comp = composition(*tunes["Autumn Leaves"])
    assert any(c["beat"] != 1 for s in comp["sections"] for c in s["chords"])
    assert exported(pushed(comp, 0.5), fmt) == exported(comp, fmt)


def test_autumn_leaves_an_eighth_late_is_written_on_the_beat_after(tunes: Any) -> None:
    # An eighth late is as near its beat as the next: the tie goes to the later beat, so a
    # dragged downbeat is written on 2 (and the bar opens on the chord still sounding).
    from tests.compose_tunes import composition
    late = pushed(composition(*tunes["Autumn Leaves"]), -0.5)
    assert exported(late, "leadsheet").splitlines()[1] == \
        "| . Am7b5 . . | . D7b13 . . | . Gm6 . . | . Gm6 . . |"
    music = urllib.parse.unquote(exported(late, "ireal")).split("=")[5]
    assert music.startswith("[*AT44n,C-7  |C-7,F7  |F7,Bb^7  |")   # n: no chord before it


def test_giant_steps_from_midi_keeps_its_triplet_changes_one_a_cell() -> None:
    # A MIDI-derived chart: Bmaj7 D7 with D7 a triplet eighth before beat 3 (2.667), Gmaj7
    # Bb7 with Bb7 a triplet eighth after it (3.333), a bar of three chords on the triplet eighths
    # of beat 1 (a fill), Am7 D7 with D7 on the "and" of 2 and Gmaj7 right on 3 after it (the
    # tie goes to beat 2, the later cell being Gmaj7's), and an "and" of 4 pushing into a bar
    # whose first beat has its own chord (it stays on 4).
    chords = [(1, 1, "Bmaj7"), (1, 2.667, "D7"), (2, 1, "Gmaj7"), (2, 3.333, "Bb7"),
              (3, 1, "Ebmaj7"), (3, 1.333, "F#7"), (3, 1.667, "Bmaj7"), (4, 1, "Am7"),
              (4, 2.5, "D7"), (4, 3, "Gmaj7"), (4, 4.5, "Bb7"), (5, 1, "Ebmaj7")]
    comp = run({"op": "create", "title": "Giant Steps", "key": "B",
                "progression": "A: Bmaj7 | Gmaj7 | Ebmaj7 | Am7 | Ebmaj7"},
               {"op": "set_chords", "section": "A", "chords": [
                   {"bar": b, "beat": t, "symbol": s} for b, t, s in chords]})["composition"]
    assert exported(comp, "leadsheet") == ("| Bmaj7 D7 | Gmaj7 Bb7 | Ebmaj7 F#7 Bmaj7 . | "
                                           "Am7 D7 Gmaj7 Bb7 |\n| Ebmaj7 |")
    grid = exported(comp, "chordpro")
    assert "| Bmaj7 . D7 . | Gmaj7 . Bb7 . | Ebmaj7 F#7 Bmaj7 . | Am7 D7 Gmaj7 Bb7 |" in grid
    music = urllib.parse.unquote(exported(comp, "ireal")).split("=")[5]
    assert "B^7 D7 |G^7 Bb7 |Eb^7,F#7,B^7 |A-7,D7,G^7,Bb7|Eb^7   Z" in music
    back = load_text(grid, "chordpro", "x.cho", Problems())[0].sections[0].chords
    assert [(p.bar, p.beat, p.chord.symbol) for p in back] == [
        (1, 1.0, "Bmaj7"), (1, 3.0, "D7"), (2, 1.0, "Gmaj7"), (2, 3.0, "Bb7"),
        (3, 1.0, "Ebmaj7"), (3, 2.0, "F#7"), (3, 3.0, "Bmaj7"), (4, 1.0, "Am7"),
        (4, 2.0, "D7"), (4, 3.0, "Gmaj7"), (4, 4.0, "Bb7"), (5, 1.0, "Ebmaj7")]


def test_every_quality_spells_its_pitch_classes_by_kind_and_degrees() -> None:
    """The MusicXML figure of issue 38: every canonical quality on all 12 roots, and the
    altered dominants, as kind + <degree> elements give the chord's own pitch classes."""
    from engine.compose.musicxml import degrees, kind_of, spelled_pcs
    symbols = [f"{r}{q.canonical}" for q in QUALITIES for r in ROOTS]
    symbols += [f"{r}{q}" for r in ROOTS for q in ("7b9", "7#9", "7#11", "7b13", "7#5b9",
                                                   "13b9", "7sus4b9", "maj7#11", "m11b5")]
    wrong = [s for s in symbols if spelled_pcs(kind_of(parse(s))[0], degrees(parse(s)))
             != frozenset(t % 12 for t in parse(s).semitones)]
    assert wrong == []
    assert kind_of(parse("Bb13sus4"))[0] == "suspended-fourth"
    assert kind_of(parse("Csus2"))[0] == "suspended-second"


def test_blue_monday_musicxml_has_note_types_rests_and_barlines() -> None:
    comp = run({"op": "create", "title": "Blue Monday", "key": "F", "progression":
                "A: Gm7 C7 | Fmaj7 | Am7b5 D7 | Gm7 C7 || B: Cm7 F7 | Bb13sus4 | Bbm6 Eb7 | "
                "Am7 D7", "form": ["A", "B", "A"]},
               {"op": "add_notes", "section": "A", "notes": [
                   [0, 720, 72, 90], [720, 240, 74, 90], [960, 160, 76, 90],
                   [1120, 160, 77, 90], [1280, 160, 79, 90], [1920, 1200, 81, 90]]}
               )["composition"]
    xml = exported(comp, "musicxml")
    valid(xml)
    document = etree.fromstring(xml.encode("utf-8"))
    notes = document.findall(".//note")
    assert all(n.find("type") is not None or n.find("rest[@measure='yes']") is not None
               for n in notes)
    first = document.findall(".//measure")[0].findall("note")
    assert [(n.findtext("type"), len(n.findall("dot")), n.find("time-modification") is not None)
            for n in first] == [("quarter", 1, False), ("eighth", 0, False),
                                ("eighth", 0, True), ("eighth", 0, True), ("eighth", 0, True),
                                ("quarter", 0, False)]
    assert first[-1].find("rest") is not None
    tied = document.findall(".//measure")[1].findall("note")     # 1200 = half + eighth, tied
    assert [(n.findtext("type"), [t.get("type") for t in n.findall("tie")]) for n in tied] == [
        ("half", ["start"]), ("eighth", ["stop"]), ("quarter", [])]
    assert len(document.findall(".//measure")[4].findall("note/rest[@measure='yes']")) == 1
    styles = [(m.get("number"), m.findtext("barline/bar-style"))
              for m in document.findall(".//measure") if m.find("barline") is not None]
    assert styles == [("4", "light-light"), ("8", "light-light"), ("12", "light-heavy")]
    sus = next(h for h in document.findall(".//harmony") if h.findtext("kind") ==
               "suspended-fourth")
    assert [(d.findtext("degree-value"), d.findtext("degree-alter"), d.findtext("degree-type"))
            for d in sus.findall("degree")] == [("7", "-1", "add"), ("9", "0", "add"),
                                                ("13", "0", "add")]
    assert document.findtext(".//score-part/score-instrument/instrument-name") == "Piano"


@pytest.mark.parametrize("fmt", ["chordpro", "leadsheet"])
def test_eye_of_the_hurricane_a_bar_holding_the_last_of_two_chords_names_it(tunes: Any,
                                                                            fmt: str) -> None:
    # Bar 3 is Dbmaj7 C7 and bar 4 holds the C7: "%" would repeat both chords, so the held
    # bar is written C7; a bar holding a bar of one chord is still "%".
    from tests.compose_tunes import composition
    text = exported(composition(*tunes["Eye of the Hurricane"]), fmt)
    first = next(line for line in text.splitlines() if line.startswith("| Fm6"))
    bars = [b.split() for b in first.strip("| ").split(" | ")]
    assert [c for c in bars[2] if c != "."] == ["Dbmaj7", "C7"]
    assert [c for c in bars[3] if c != "."] == ["C7"]
    assert "| % |" in text or "| % " in text
