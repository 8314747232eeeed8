"""Corpus import on hostile files (issue 35): every reader linear (the inputs that backtracked
or went quadratic are read at once), and every file that cannot be read skipped with its
reason - the import never aborts. Sized to run fast now; the times of the full-size inputs
before and after are in ``bench/run_reliability.py``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.corpus import build_index, load_paths
from engine.corpus.loaders import MAX_BARS
from server.cli.main import main


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_directive_of_20000_spaces_is_read_at_once(tmp_path: Path) -> None:
    unclosed = write(tmp_path, "a.cho", "{title:" + " " * 20_000 + "x\n[C]la [G7]la\n")
    closed = write(tmp_path, "b.cho", "{title: Spaced" + " " * 20_000 + "}\n[Dm7]la\n")
    songs, problems = load_paths([unclosed, closed])
    assert [s.title for s in songs] == ["a", "Spaced"]
    assert [[c.chord.symbol for c in s.sections[0].chords] for s in songs] == [["C", "G7"],
                                                                               ["Dm7"]]
    assert problems.items == []


def test_200000_unclosed_brackets_are_read_at_once(tmp_path: Path) -> None:
    path = write(tmp_path, "b.cho", "{title: B}\n" + "[" * 200_000 + "\n[F]x [" + "[" * 9 + "\n")
    songs, problems = load_paths([path])
    assert [c.chord.symbol for c in songs[0].sections[0].chords] == ["F"]
    assert problems.items == []


def test_unclosed_marks_in_an_ireal_link_are_read_at_once(tmp_path: Path) -> None:
    path = write(tmp_path, "u.txt", "irealbook://U=C=S=C=n=[C|F(" + "<" * 100_000 + "(" * 100_000
                 + "]")
    songs, problems = load_paths([path])
    assert [c.chord.symbol for c in songs[0].sections[0].chords] == ["C", "F"]
    assert problems.items == []


def test_30000_songs_of_one_title_are_numbered_in_linear_time(tmp_path: Path) -> None:
    chart = {"Title": "Same", "Sections": [{"MainSegment": {"Chords": "C|F"}}]}
    path = write(tmp_path, "same.json", json.dumps([chart] * 30_000 + [
        {**chart, "Title": "Same 2"}]))
    songs, problems = load_paths([path])
    ids = [s.id for s in songs]
    assert problems.items == []
    assert len(set(ids)) == len(ids) == 30_001
    assert ids[:3] == ["same:same", "same:same-2", "same:same-3"]
    assert ids[-2:] == ["same:same-30000", "same:same-2-2"]   # 'Same 2' meets a taken id


@pytest.mark.parametrize(("name", "text", "reason"), [
    ("deep.json", "[" * 100_000 + "]" * 100_000, "RecursionError"),
    ("sections.txt", "irealbook://Many=Comp=Style=C=n=" + "*A[C|F]" * 33_000,
     f"at most {MAX_BARS:,}"),
    ("bars.txt", "Title = Long\n" + "| C " * 50_000 + "|\n", f"at most {MAX_BARS:,}"),
])
def test_a_file_that_cannot_be_read_is_skipped_with_its_reason(
        tmp_path: Path, name: str, text: str, reason: str) -> None:
    good = write(tmp_path, "good.txt", "Title = Good\n| Dm7 G7 | Cmaj7 |\n")
    bad = write(tmp_path, name, text)
    songs, problems = load_paths([bad, good])
    assert [s.title for s in songs] == ["Good"]
    assert len(problems.items) == 1 and problems.items[0].file == str(bad)
    assert reason in problems.items[0].message
    build_index(songs)


def test_a_key_that_is_not_text_is_reported_and_the_song_read_without_it(
        tmp_path: Path) -> None:
    path = write(tmp_path, "k.json", json.dumps([{"Title": "K", "Key": 7, "Sections": [
        {"MainSegment": {"Chords": "Dm7,G7|C^7"}}]}]))
    songs, problems = load_paths([path])
    assert [(s.title, s.key) for s in songs] == [("K", None)]
    assert "the key 7 is not text" in problems.items[0].message
    build_index(songs)  # it used to fail here: 'int' object has no attribute 'strip'


def test_the_import_of_every_hostile_file_at_once_goes_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    charts = tmp_path / "charts"
    charts.mkdir()
    write(charts, "deep.json", "[" * 100_000 + "]" * 100_000)
    write(charts, "key.json", json.dumps([{"Title": "K", "Key": 7, "Sections": [
        {"MainSegment": {"Chords": "C|F"}}]}]))
    write(charts, "bars.txt", "Title = Long\n" + "| C " * 40_000 + "|\n")
    write(charts, "title.cho", "{title:" + " " * 20_000 + "x\n[C]la\n")
    write(charts, "good.txt", "Title = Good\n| Dm7 G7 | Cmaj7 |\n")
    code = main(["corpus", "import", str(charts), "--no-shipped", "--out",
                 str(tmp_path / "index")])
    out = capsys.readouterr()
    assert code == 0 and json.loads(out.out)["songs"] == 3
    assert "deep.json" in out.err and "bars.txt" in out.err and "key.json" in out.err
    assert (tmp_path / "index" / "songs.json").is_file()


def test_the_linear_readers_find_what_the_regular_expressions_found() -> None:
    """On short random lines (where the old expressions are quick), the same answers."""
    import random
    import re

    from engine.corpus.ireal import _cut
    from engine.corpus.loaders import _directive, _inline

    directive = re.compile(r"^\{\s*([a-z_]+)\s*(?::\s*(.*?))?\s*\}$", re.IGNORECASE)
    rng = random.Random(35)
    for _ in range(5000):
        line = "".join(rng.choice("{}:tiTle_ a\t") for _ in range(rng.randrange(14)))
        m = directive.match(line)
        assert _directive(line) == ((m.group(1), m.group(2) or "") if m else None), line
        lyric = "".join(rng.choice("ab[]x ") for _ in range(rng.randrange(30)))
        assert _inline(lyric) == re.findall(r"\[([^\]]+)\]", lyric), lyric
        music = "".join(rng.choice("ab<>()x ") for _ in range(rng.randrange(30)))
        assert _cut(_cut(music, "<", ">"), "(", ")") == \
            re.sub(r"\([^)]*\)", ",", re.sub(r"<[^>]*>", ",", music)), music
