"""``engine.corpus``: the index answers exactly what a brute-force scan over the songs finds
(random patterns over the shared corpora), in every key, never across a song or section; the
loaders read every format and report what they skip; the shipped corpus answers useful
questions; the same request gives the same answer, from memory or from the mapped folder."""

from __future__ import annotations

import json
import random
import urllib.parse
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine import search
from engine.corpus import build_index, corpus_index, load_paths, open_index, save_index
from engine.corpus.align import align
from engine.corpus.index import Index
from engine.corpus.ireal import MUSIC_PREFIX, to_symbol
from engine.corpus.operation import _count_songs, _plan, _song_starts, shipped_index
from engine.corpus.pattern import read_pattern
from engine.corpus.songs import Song
from engine.corpus.tokens import FAMILIES, family_of
from engine.errors import InvalidChord, InvalidRequest
from tests.naive import smith_waterman

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
NAMES = ("C", "Db", "D", "Eb", "E", "F", "Gb", "G", "Ab", "A", "Bb", "B")
needs_corpora = pytest.mark.skipif(not (CORPORA / "jazz-ccp").is_dir(),
                                   reason="../shared/corpora is absent")


@lru_cache(maxsize=1)
def shared() -> tuple[list[Song], Index]:
    songs, problems = load_paths([CORPORA / "jazz-ccp" / "songs",
                                  CORPORA / "jazzstandards-ireal" / "JazzStandards.json"])
    assert not problems.items
    return songs, build_index(songs)


def played(song: Song) -> list[tuple[int, Any]]:
    """(section number, placed chord) of every chord of a song's form, in the order it is
    played: each section followed by the next (the loaders write repeats and endings out)."""
    return [(k, placed) for k, section in enumerate(song.sections) for placed in section.chords]


def naive(songs: list[Song], slots: list[Any], exact: bool = False) -> set[tuple[int, int, int, float]]:
    """(song, section, bar, beat) of every window of the played form where the pattern holds:
    a plain scan."""
    found = set()
    for s, song in enumerate(songs):
        form = played(song)
        for i in range(len(form) - len(slots) + 1):
            shift = None
            for p, slot in enumerate(slots):
                if slot is None:
                    continue
                chord = form[i + p][1].chord
                if family_of(chord) != slot.family or (exact and chord.quality != slot.quality):
                    break
                here = (chord.root_pc - slot.pc) % 12
                if shift is None:
                    shift = here
                elif here != shift:
                    break
            else:
                found.add((s, form[i][0], form[i][1].bar, form[i][1].beat))
    return found


def occurrences(idx: Index, text: str, exact: bool) -> dict[int, list[int]]:
    """Song -> the start of every occurrence of the pattern, by the search's own plan."""
    plan = _plan(idx, text, exact)
    counts = _count_songs(idx, plan)
    return {int(s): _song_starts(idx, plan, int(s), int(counts[s]))
            for s in np.flatnonzero(counts)}


def indexed(idx: Index, text: str, exact: bool = False) -> set[tuple[int, int, int, float]]:
    st = idx.stream
    return {(song, int(st.section[s]), int(st.bar[s]), round(float(st.beat[s]), 3))
            for song, starts in occurrences(idx, text, exact).items() for s in starts}


@needs_corpora
def test_random_patterns_agree_with_a_brute_force_scan() -> None:
    songs, idx = shared()
    rng = random.Random(20261125)
    for _ in range(60):
        song = rng.choice(songs)
        section = rng.choice(song.sections)
        n = rng.randint(1, min(5, len(section.chords)))
        i = rng.randint(0, len(section.chords) - n)
        words = [c.chord.symbol for c in section.chords[i:i + n]]
        if n > 2 and rng.random() < 0.4:
            words[rng.randint(1, n - 2)] = "?"
        text = " ".join(words)
        exact = rng.random() < 0.3
        slots, _ = read_pattern(text)
        assert indexed(idx, text, exact) == naive(songs, slots, exact), text


@needs_corpora
def test_known_answer_dm7_g7_cmaj7_on_jazz_ccp() -> None:
    songs, _ = load_paths([CORPORA / "jazz-ccp" / "songs"])
    idx = build_index(songs)
    slots, _ = read_pattern("Dm7 G7 Cmaj7")
    expected = {s for s, *_ in naive(songs, slots)}
    answer = search({"pattern": "Dm7 G7 Cmaj7", "limit": 100}, idx)
    assert answer["total"] == len(expected) > 500
    assert {r["id"] for r in search({"pattern": "Dm7 G7 Cmaj7", "limit": 100, "offset": 100},
                                    idx)["results"]}.isdisjoint(r["id"] for r in answer["results"])


def chart(title: str, bars: str, key: str = "C", sections: str = "") -> str:
    return f"Title = {title}\nComposedBy = Test\nKey = {key}\n{sections}\n{bars}\n"


def transpose(bars: str, k: int) -> str:
    out = []
    for word in bars.split():
        if word == "|":
            out.append(word)
            continue
        root = word[:2] if len(word) > 1 and word[1] in "b#" else word[:1]
        out.append(NAMES[(NAMES.index(root) + k) % 12] + word[len(root):])
    return " ".join(out)


def folder(tmp_path: Path, charts: dict[str, str]) -> Path:
    for name, text in charts.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def test_transposed_songs_are_found_by_the_same_pattern(tmp_path: Path) -> None:
    bars = "Cmaj7 | Am7 | Dm7 G7 | Cmaj7 |"
    charts = {f"t{k}.txt": chart(f"In {NAMES[k]}", transpose(bars, k), NAMES[k])
              for k in range(12)}
    idx = corpus_index([str(folder(tmp_path, charts))], shipped=False)
    answer = search({"pattern": "Am7 Dm7 G7", "limit": 100}, idx)
    assert answer["total"] == 12
    assert {r["matches"][0]["bar"] for r in answer["results"]} == {2}
    numerals = search({"pattern": "vi7 ii7 V7 Imaj7", "limit": 100}, idx)
    assert numerals["total"] == 12
    assert numerals["results"][0]["matches"][0]["numerals"] == ["vi7", "ii7", "V7", "Imaj7"]


def test_a_match_crosses_a_section_boundary_but_never_a_song(tmp_path: Path) -> None:
    charts = {"a.txt": chart("A", "Cmaj7 | Dm7 G7 |"), "b.txt": chart("B", "Cmaj7 | Fmaj7 |"),
              "c.txt": "Title = C\nKey = C\n[A]\nDm7 | G7 |\n[B]\nCmaj7 | Cmaj7 |\n"}
    idx = corpus_index([str(folder(tmp_path, charts))], shipped=False)
    across = search({"pattern": "Dm7 G7 Cmaj7"}, idx)
    assert [r["title"] for r in across["results"]] == ["C"]   # a.txt's G7 ends its song
    assert across["results"][0]["matches"] == [
        {"section": "A", "bar": 1, "beat": 1.0, "chords": ["Dm7", "G7", "Cmaj7"],
         "numerals": ["ii7", "V7", "Imaj7"]}]
    assert search({"pattern": "Dm7 G7"}, idx)["total"] == 2
    assert search({"pattern": "G7 ?"}, idx)["total"] == 1
    assert search({"pattern": "Dm7 G7 ?"}, idx)["total"] == 1   # not into song B


def test_a_json_section_with_repeats_is_played_again(tmp_path: Path) -> None:
    song = {"Title": "Repeated", "Key": "C", "Sections": [
        {"Label": "A", "Repeats": 1, "MainSegment": {"Chords": "Cmaj7|Dm7,G7"}},
        {"Label": "B", "MainSegment": {"Chords": "Fmaj7|Fmaj7"}}]}
    (tmp_path / "r.json").write_text(json.dumps([song]))
    songs, problems = load_paths([tmp_path / "r.json"])
    assert not problems.items
    assert [(p.bar, p.chord.symbol) for p in songs[0].sections[0].chords] == [
        (1, "Cmaj7"), (2, "Dm7"), (2, "G7"), (3, "Cmaj7"), (4, "Dm7"), (4, "G7")]
    idx = build_index(songs)
    assert search({"pattern": "Dm7 G7 Cmaj7"}, idx)["results"][0]["score"] == 1
    assert search({"pattern": "G7 Cmaj7"}, idx)["results"][0]["score"] == 1   # G7 -> Fmaj7: no


IREAL = CORPORA / "jazzstandards-ireal" / "JazzStandards.json"


@pytest.mark.skipif(not IREAL.is_file(), reason="../shared/corpora is absent")
@pytest.mark.parametrize("exact", [True, False])
def test_every_ii_v_i_of_the_ireal_standards_played_form_is_found(exact: bool) -> None:
    """A brute-force scan of each standard's form as played (sections in order, repeats
    written out) for ii-V-I (m7 7 maj7 with ``exact``; else a minor, dominant, major chord
    each a fourth up); search finds every one: the same songs, each scored by all its
    occurrences, and the same places in the songs whose matches are all listed."""
    songs, problems = load_paths([IREAL])
    assert not problems.items
    idx = build_index(songs)
    slots, _ = read_pattern("Dm7 G7 Cmaj7")
    expected: dict[int, set[tuple[int, int, float]]] = {}
    for s, k, bar, beat in naive(songs, slots, exact):
        expected.setdefault(s, set()).add((k, bar, beat))
    assert sum(len(v) for v in expected.values()) > (2_300 if exact else 4_000)
    found: dict[str, list[dict[str, Any]]] = {}
    scores: dict[str, float] = {}
    offset = 0
    while True:
        page = search({"pattern": "Dm7 G7 Cmaj7", "exact": exact, "limit": 100,
                       "offset": offset}, idx)
        for r in page["results"]:
            found[r["id"]], scores[r["id"]] = r["matches"], r["score"]
        offset += 100
        if offset >= page["total"]:
            break
    assert set(found) == {songs[s].id for s in expected}
    for s, places in expected.items():
        song = songs[s]
        assert scores[song.id] == len(places), song.title
        if len(places) <= 20:
            names = [sec.name for sec in song.sections]
            listed = {(m["section"], m["bar"], m["beat"]) for m in found[song.id]}
            assert listed == {(names[k], bar, beat) for k, bar, beat in places}, song.title


def test_exact_and_wildcards(tmp_path: Path) -> None:
    charts = {"a.txt": chart("Seventh", "Dm7 | G7 | Cmaj7 |"),
              "b.txt": chart("Ninth", "Dm9 | G13 | C6 |")}
    idx = corpus_index([str(folder(tmp_path, charts))], shipped=False)
    assert search({"pattern": "Dm7 G7 Cmaj7"}, idx)["total"] == 2
    assert search({"pattern": "Dm7 G7 Cmaj7", "exact": True}, idx)["total"] == 1
    assert search({"pattern": "Dm7 ? Cmaj7"}, idx)["total"] == 2
    assert search({"pattern": "? ? C6", "exact": True}, idx)["total"] == 1


def test_title_is_case_and_accent_insensitive_and_key_filters(tmp_path: Path) -> None:
    charts = {"a.txt": chart("Café Society", "Cmaj7 | G7 |"),
              "b.txt": chart("Other", "Fmaj7 | C7 |", key="F")}
    idx = corpus_index([str(folder(tmp_path, charts))], shipped=False)
    assert [r["title"] for r in search({"title": "CAFE"}, idx)["results"]] == ["Café Society"]
    assert search({"title": "society", "key": "F"}, idx)["total"] == 0
    assert search({"pattern": "C7", "key": "F"}, idx)["total"] == 1


# ------------------------------------------------------------------ loaders


def scramble(music: str) -> str:
    """The inverse of iReal's unscrambling, written from the format's description: each full
    50-character block but the last has characters 0-4 and 10-23 swapped with their mirror."""
    out, rest = [], music
    while len(rest) > 50:
        block, rest = rest[:50], rest[50:]
        if len(rest) < 2:
            out.append(block)
            continue
        chars = list(block)
        for i in [*range(5), *range(10, 24)]:
            chars[i], chars[49 - i] = block[49 - i], block[i]
        out.append("".join(chars))
    return "".join(out) + rest


def test_ireal_links_round_trip(tmp_path: Path) -> None:
    music = ("{*AT44D-7XyQ|G7XyQ|C^7XyQ|Ch7 F7b9LZBb-7 Eb7|Ab^7XyQ|Do7XyQ|x|G7sus G7}"
             "[*BC-^7XyQ|F-7 Bb7|Eb^7 (C7)|p|Z")
    link = ("irealb://" + urllib.parse.quote(
        f"My Tune=Doe John==Medium Swing=C=={MUSIC_PREFIX}{scramble(music)}==0=0") +
        "===" + urllib.parse.quote(
        "Plain One=Roe Ann==Ballad=F=n=[T44F^7 | G-7 C7 |F^7 |]") + "===My List")
    page = f'<html><body><a href="{link}">My List</a></body></html>'
    (tmp_path / "list.html").write_text(page)
    songs, problems = load_paths([tmp_path / "list.html"])
    assert not problems.items
    first = songs[0]
    assert (first.title, first.composer, first.key) == ("My Tune", "John Doe", "C")
    symbols = [p.chord.symbol for s in first.sections for p in s.chords]
    a_section = ["Dm7", "G7", "Cmaj7", "Cm7b5", "F7b9", "Bbm7", "Eb7", "Abmaj7", "Ddim7",
                 "Ddim7", "G7sus", "G7"]
    # the braces repeat the A section (no endings); B as written
    assert symbols == [*a_section, *a_section, "Cmmaj7", "Fm7", "Bb7", "Ebmaj7", "Ebmaj7"]
    assert [s.name for s in first.sections] == ["A", "B"]
    assert [p.chord.symbol for p in songs[1].sections[0].chords] == ["Fmaj7", "Gm7", "C7",
                                                                       "Fmaj7"]
    assert to_symbol("B", "h7", "F") == "Bm7b5/F"


def test_bad_files_and_chords_are_reported_and_the_rest_loads(tmp_path: Path) -> None:
    (tmp_path / "good.txt").write_text(chart("Good", "Cmaj7 | Dm7 G7 |"))
    (tmp_path / "badchord.txt").write_text(chart("Half Bad", "Cmaj7 | Hm7 G7 | Cmaj7 |"))
    (tmp_path / "broken.json").write_text("{not json")
    (tmp_path / "charts.json").write_text(json.dumps([
        {"Title": "Json One", "Key": "Dmin", "Sections": [
            {"Label": "A", "MainSegment": {"Chords": "Dm7,|Em7b5,A7(E7)|Dm7,,G7,"}}]},
        {"Title": "No Sections"}]))
    (tmp_path / "song.cho").write_text(
        "{title: Pro Song}\n{key: G}\n{start_of_grid}\n| G . . . | Em7 . A7 . |\n{end_of_grid}\n"
        "{start_of_verse}\n[G]Words and [D7]more [Zz9]words\n{end_of_verse}\n")
    (tmp_path / "nothing.ireal").write_text("no link here")
    songs, problems = load_paths([tmp_path, tmp_path / "missing.txt"])
    titles = sorted(s.title for s in songs)
    assert titles == ["Good", "Half Bad", "Json One", "Pro Song"]
    reported = {(Path(p.file).name, p.song, p.bar, p.symbol) for p in problems.items}
    assert ("badchord.txt", "Half Bad", 2, "Hm7") in reported
    assert ("song.cho", "Pro Song", 3, "Zz9") in reported
    assert any(p.file.endswith("broken.json") and "not JSON" in p.message
               for p in problems.items)
    assert any(p.song == "No Sections" for p in problems.items)
    assert any(p.file.endswith("missing.txt") for p in problems.items)
    assert any(p.file.endswith("nothing.ireal") for p in problems.items)
    json_one = next(s for s in songs if s.title == "Json One")
    assert json_one.key == "Dmin"
    placed = [(p.bar, p.beat, p.chord.symbol) for p in json_one.sections[0].chords]
    assert placed == [(1, 1.0, "Dm7"), (2, 1.0, "Em7b5"), (2, 3.0, "A7"), (3, 1.0, "Dm7"),
                      (3, 3.0, "G7")]
    pro = next(s for s in songs if s.title == "Pro Song")
    assert [p.chord.symbol for p in pro.sections[0].chords] == ["G", "Em7", "A7"]


# ------------------------------------------------------------------ the shipped corpus


def test_shipped_corpus_answers_useful_questions() -> None:
    backdoor = search({"pattern": "iv7 bVII7 Imaj7"})
    assert any(r["id"] == "form-backdoor" for r in backdoor["results"])
    blues = search({"similarTo": "F7 Bb7 F7 F7 Bb7 Bb7 F7 D7 Gm7 C7 F7 D7 Gm7 C7", "limit": 3})
    assert all("Blues" in r["title"] for r in blues["results"])
    like = search({"similarTo": "form-rhythm-changes", "limit": 100})
    assert "form-rhythm-changes" not in {r["id"] for r in like["results"]}
    assert search({"title": "georgia"})["results"][0]["id"] == "sweet-georgia-brown"
    minor_ii_v = search({"pattern": "iiø7 V7", "key": "Cm", "limit": 100})
    assert [r["id"] for r in minor_ii_v["results"]] == ["form-blues-minor"]


def test_same_request_same_answer_from_memory_and_from_the_mapped_folder(tmp_path: Path) -> None:
    save_index(shipped_index(), tmp_path / "index")
    mapped = open_index(tmp_path / "index")
    assert isinstance(mapped.stream.tokens, np.memmap)
    for request in ({"pattern": "Dm7 G7 Cmaj7"}, {"pattern": "ii7 V7", "limit": 50},
                    {"similarTo": "Cm7 F7 Bb6", "limit": 5}, {"title": "blues"}):
        assert search(request, mapped) == search(request) == search(request)


@pytest.mark.parametrize(("request_", "code", "field"), [
    ({}, "invalid_request", "pattern"),
    ({"pattern": "? ?"}, "invalid_request", "pattern"),
    ({"pattern": "Dm7 Hm7"}, "invalid_chord", None),
    ({"pattern": "Dm7", "limit": 0}, "invalid_request", "limit"),
    ({"pattern": "Dm7", "limit": 101}, "invalid_request", "limit"),
    ({"pattern": "Dm7", "exact": "yes"}, "invalid_request", "exact"),
    ({"similarTo": "ii7 V7"}, "invalid_request", "similarTo"),
    ({"pattern": 7}, "invalid_request", "pattern"),
])
def test_bad_requests(request_: dict[str, Any], code: str, field: str | None) -> None:
    with pytest.raises((InvalidRequest, InvalidChord)) as refused:
        search(request_)
    error = refused.value.to_dict()["error"]
    assert error["code"] == code
    assert error.get("field") == field
    if code == "invalid_chord":
        assert error["symbol"] == "Hm7" and error["index"] == 1


# ------------------------------------------------------------------ the alignment kernel


def test_alignment_kernel_equals_its_slow_twin() -> None:
    rng = random.Random(7)
    top = 1 + 13 * len(FAMILIES)
    for _ in range(40):
        a = np.array([rng.randrange(top) for _ in range(rng.randint(1, 12))], dtype=np.uint8)
        b = np.array([rng.randrange(top) for _ in range(rng.randint(1, 40))], dtype=np.uint8)
        if rng.random() < 0.5:  # plant a copy so high scores are exercised
            b = np.concatenate([b, a])
        assert align(a, b) == smith_waterman(list(a), list(b), len(FAMILIES))


def test_numerals_find_songs_whose_chart_gives_no_key(tmp_path: Path) -> None:
    # issue 36: a chart without a key is read in the key found from the whole chart (here
    # Eb: it starts and ends there), so a numeral query finds it and names its numerals.
    charts = {"keyless.txt": "Title = No Key Given\n[A]\nEbmaj7 | Cm7 | Fm7 Bb7 | Ebmaj7 |\n"}
    idx = corpus_index([str(folder(tmp_path, charts))], shipped=False)
    assert idx.songs[0].key is None and idx.songs[0].reading == "Eb"
    found = search({"pattern": "ii7 V7 Imaj7"}, idx)
    assert found["total"] == 1 and found["results"][0]["key"] is None
    assert found["results"][0]["matches"][0]["numerals"] == ["ii7", "V7", "Imaj7"]


def test_a_pattern_past_the_work_budget_is_refused_naming_the_field(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # issue 40: the work (places, and the checks at each until one fails) is counted as the
    # scan goes; past the budget the search stops and is refused with invalid_request on
    # 'pattern', naming the bound. Places alone over the budget are refused before any check.
    import engine.corpus.operation as query

    idx = query.shipped_index()
    monkeypatch.setattr(query, "MAX_SEARCH_WORK", 300)
    for text in ("C7 ? G7", "G7 ? C"):   # 358 places; 200 places, 452 checks
        with pytest.raises(InvalidRequest) as refused:
            search({"pattern": text}, idx)
        assert refused.value.code == "invalid_request"
        assert refused.value.details["field"] == "pattern"
        assert "more than the 300 checks" in refused.value.message
    # a rare run of named neighbours (74 places, 182 checks) is answered
    assert search({"pattern": "Dm7b5 G7 Cm"}, idx)["total"] > 0


def test_a_long_similar_to_past_the_alignment_budget_is_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import engine.corpus.similar as similar

    idx = shipped_index()
    blues = "F7 Bb7 F7 F7 Bb7 Bb7 F7 D7 Gm7 C7 F7 D7 Gm7 C7"
    assert search({"similarTo": blues}, idx)["total"] > 0
    monkeypatch.setattr(similar, "MAX_ALIGN_CELLS", 1_000)
    with pytest.raises(InvalidRequest) as refused:
        search({"similarTo": blues}, idx)
    assert refused.value.details["field"] == "similarTo"
    assert "at most 1,000" in refused.value.message


@needs_corpora
@pytest.mark.parametrize("text", [" ".join(["? C7 ? G7 ?"] * 51), "C7 " + " ".join(["?"] * 255),
                                  " ".join(["? ? Dm7 G7 ?"] * 51), "? " * 200 + "Dm7 G7 Cmaj7"])
def test_hostile_patterns_of_255_chords_agree_with_a_brute_force_scan(text: str) -> None:
    # issue 40's hostile queries (2.5 s and 0.73 s on 100,000 songs before): each '?' costs
    # nothing now (a window's song is one comparison), and the answer is still every window
    # of the jazz-ccp charts' played form where the pattern holds
    songs, _ = load_paths([CORPORA / "jazz-ccp" / "songs"])
    idx = build_index(songs)
    slots, _ = read_pattern(text)
    assert indexed(idx, text) == naive(songs, slots)


def test_the_rarest_named_chord_picks_the_places_to_check() -> None:
    # with no two named chords side by side, the places checked are those of the rarest named
    # chord's family (a dominant is common, a half-diminished rare), wherever it stands
    from engine.corpus.pattern import _counts

    idx = shipped_index()
    counts = _counts(idx)[1]
    for text in ("G7 ? ? Dm7b5", "Dm7b5 ? ? G7"):
        slots, _ = read_pattern(text)
        named = [s.family for s in slots if s is not None]
        assert _plan(idx, text, False).count == min(int(counts[f]) for f in named)


@needs_corpora
def test_every_standard_without_its_key_is_read_in_the_key_chart_key_finds() -> None:
    # the index finds the keys of keyless charts in one kernel pass over the corpus
    # (keyfind_batch); it must name chart_key's key for every chart, the iReal standards and
    # jazz-ccp read without the keys they give
    from engine.analysis import chart_key, chart_key_names
    from engine.corpus.build import columns_of
    from engine.corpus.tokens import ChordTable

    songs, _ = shared()
    read = columns_of(songs)
    table = ChordTable()
    ids = table.numbers(read.loads, read.numbers, read.which)
    names = chart_key_names(table.chords, ids, read.bars, read.beats, read.offsets)
    assert names == [chart_key([p for sec in s.sections for p in sec.chords]).name
                     for s in songs]


def test_an_index_written_piece_by_piece_is_the_saved_index_byte_for_byte(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import engine.corpus.build as build
    from engine.corpus import write_index

    songs, _ = load_paths([build.__file__.rsplit("/", 1)[0] + "/data"])
    save_index(build_index(songs), tmp_path / "saved")
    monkeypatch.setattr(build, "PIECE", 7)      # several pieces, the last one short
    assert write_index(iter(songs), tmp_path / "written") == {
        "songs": len(songs), "chords": sum(s.chords for s in songs)}
    for path in sorted((tmp_path / "saved").iterdir()):
        assert path.read_bytes() == (tmp_path / "written" / path.name).read_bytes(), path.name


def test_the_shipped_songs_read_file_by_file_index_as_read_in_one_load(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # issue 40: a song's chords are numbers in the table of the load that read them; the index
    # numbers symbols in the order the stream meets them, whatever the loads' numbers: songs
    # indexed in reverse order of reading, a third of them from loads of their own (a table a
    # file, in pieces of five songs), must index byte for byte as the same songs read in that
    # order by one load
    import engine.corpus.build as build
    from engine.corpus import write_index
    from engine.corpus.loaders import load_text
    from engine.corpus.songs import Chords, Problems

    files = sorted((Path(build.__file__).parent / "data").iterdir())
    once, _ = load_paths(files)
    apart = [song for path in files
             for song in load_text(path.read_text(), "chart", str(path), Problems())]
    table = Chords()
    backwards = [song for path in reversed(files)
                 for song in load_text(path.read_text(), "chart", str(path), Problems(), table)]
    mixed = [apart[i] if i % 3 == 0 else once[i] for i in reversed(range(len(once)))]
    assert [s.id for s in mixed] == [s.id for s in backwards] == [s.id for s in once][::-1]
    assert len({id(sec.table) for s in mixed for sec in s.sections}) > 5
    save_index(build_index(backwards), tmp_path / "one")
    monkeypatch.setattr(build, "PIECE", 5)
    write_index(mixed, tmp_path / "many")
    for path in sorted((tmp_path / "one").iterdir()):
        assert path.read_bytes() == (tmp_path / "many" / path.name).read_bytes(), path.name


def test_a_load_parses_each_symbol_of_the_shipped_charts_once() -> None:
    # the songs of a load share one table of distinct chords: a symbol written a hundred times
    # is parsed once, and a section gives back the chords, bars and beats it was read with
    from engine.corpus.songs import Chords

    table = Chords()
    songs, _ = load_paths([Path(build_index.__code__.co_filename).parent / "data"], table)
    written = [p.chord.symbol for s in songs for sec in s.sections for p in sec.chords]
    assert sorted(c.symbol for c in table.chords) == sorted(set(written))
    assert len(written) > 5 * len(table)
    blues = next(s for s in songs if s.id == "form-blues-basic")
    assert [(p.bar, p.beat, p.chord.symbol) for p in blues.sections[0].chords][:3] == [
        (1, 1.0, "F7"), (2, 1.0, "Bb7"), (3, 1.0, "F7")]
    assert blues.chords == sum(sec.size for sec in blues.sections) == \
        sum(len(sec.chords) for sec in blues.sections)


def whole_column_counts(idx: Index, text: str, exact: bool) -> np.ndarray:
    """How often a pattern starts in each song by the scan before issue 40's per-song one:
    every place of the plan's column in the whole stream, each window checked by ``_holds``
    (a separator inside it refuses it)."""
    from engine.corpus.scan import _count

    plan = _plan(idx, text, exact)
    column = np.asarray(getattr(idx.stream, plan.column or "family"))
    value = plan.value if plan.column else int(plan.named[1][0])
    offset = plan.offset if plan.column else int(plan.named[0][0])
    counts = np.zeros(len(idx.songs) + 1, dtype=np.int32)
    args = (np.zeros(0, dtype=np.int32), column, value, offset, plan.n, *plan.arrays(idx),
            counts, 1 << 60)
    assert _count(*args) >= 0
    return counts[:-1]


@needs_corpora
def test_the_per_song_scan_counts_what_the_whole_column_scan_counted() -> None:
    # issue 40: a pattern's places are read song by song where its window fits whole (a song
    # shorter than it skipped); every song's count must be the one the scan of the whole
    # column gave, for runs, wildcards, numerals, exact, across sections, and hostile lengths

    songs, idx = shared()
    rng = random.Random(40)
    texts = ["G7", "C", "C7 ? G7", "C ? C ? C ? C ? C", "? C ?", "V7 ? I", "ii7 V7 Imaj7",
             "Dm7 G7 Cmaj7", "G7 ? ? Dm7b5", "I vi ii V", " ".join(["? C7 ? G7 ?"] * 51),
             "C7 " + " ".join(["?"] * 255), "? " * 255 + "C", " ".join(["G7 ?"] * 128)]
    for _ in range(40):
        song = rng.choice(songs)
        form = [p.chord.symbol for _, p in played(song)]
        n = rng.randint(1, min(8, len(form)))
        i = rng.randint(0, len(form) - n)
        words = form[i:i + n]
        for k in range(1, n - 1):
            if rng.random() < 0.4:
                words[k] = "?"
        texts.append(" ".join(words))
    for text in texts:
        for exact in (False, True):
            counts = _count_songs(idx, _plan(idx, text, exact))
            assert np.array_equal(counts, whole_column_counts(idx, text, exact)), (text, exact)


def test_the_stream_kernel_writes_what_the_array_operations_wrote() -> None:
    # the index build writes a piece's columns by one kernel pass; its slow twin is the array
    # version it replaced (songs without chords, keys unknown and known, every song numbered
    # from a piece's first); the symbols are numbered in order of first appearance
    from engine.corpus.build import columns_of
    from engine.corpus.tokens import ChordTable, stream_piece
    from tests import naive

    songs, _ = load_paths([Path(build_index.__code__.co_filename).parent / "data"])
    placed = [p for s in songs for sec in s.sections for p in sec.chords]
    read = columns_of(songs)
    table = ChordTable()
    ids = table.numbers(read.loads, read.numbers, read.which)
    assert [table.chords[i] for i in ids] == [p.chord for p in placed]
    assert list(table.symbols) == list(dict.fromkeys(p.chord.symbol for p in placed))
    counts = np.array([s.chords for s in songs] + [0, 0])
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    rng = np.random.default_rng(40)
    tonics = rng.integers(-1, 12, len(counts))
    sections = rng.integers(0, 6, len(ids))
    bars = rng.integers(1, 200, len(ids))
    beats = rng.integers(1, 9, len(ids)) / 2
    fast = stream_piece(5, table, tonics, offsets, ids, sections, bars, beats)
    slow = naive.stream_piece(5, table, tonics, offsets, ids, sections, bars, beats)
    slow["families"] = naive.song_families(slow["song"], slow["family"], 5, len(counts))
    assert fast.keys() == slow.keys()
    for name in fast:
        assert fast[name].dtype == slow[name].dtype and np.array_equal(fast[name], slow[name])
