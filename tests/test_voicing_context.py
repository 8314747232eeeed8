"""Voicing in context (issue 37, API.md 5), each rule on the tune it was found in: the real
charts of the JazzStandards corpus (``../shared/corpora``, read, never copied; those tests
skip when it is absent), the changes quoted where a short progression says it.
"""

from __future__ import annotations

from functools import cache
from itertools import pairwise

import pytest

from engine.analysis.chart import Chart, Placed, Section
from engine.analysis.context import analyze_chart, in_context
from engine.chords import Chord, parse, parse_key, parse_spelled
from engine.corpus.loaders import load_paths
from engine.voicing.context import progression_context
from engine.voicing.operation import _place, voicing
from tests.conftest import CORPORA

TUNES = CORPORA / "jazzstandards-ireal" / "JazzStandards.json"
needs_corpus = pytest.mark.skipif(not TUNES.is_file(), reason=f"{TUNES} is absent")


@cache
def _songs() -> dict[str, list[Chord]]:
    songs, _ = load_paths([TUNES])
    return {s.title: [p.chord for sec in s.sections for p in sec.chords] for s in songs}


def tune(title: str) -> list[Chord]:
    return _songs()[title]


def voiced(chords: list[Chord], style: str) -> list[dict]:
    return voicing({"progression": [c.symbol for c in chords], "style": style})["voicings"]


def names(entry: dict) -> set[str]:
    return {n.rstrip("0123456789") for n in entry["notes"]}


def primary_scales(chords: list[Chord]) -> list[int]:
    """analyze's primary scale in context of each chord (a chord a bar), as a pc mask."""
    n = len(chords)
    chart = Chart((Section("A", 1, n),),
                  tuple(Placed(i + 1, 1.0, c.symbol, c) for i, c in enumerate(chords)), n, False)
    masks = []
    for entry in analyze_chart(chart, None)["chords"]:
        masks.append(sum(1 << parse_spelled(x).pc
                         for x in set(entry["contextScales"][0]["notes"])))
    return masks


# 1. colour tones from the context --------------------------------------------------------

@needs_corpus
@pytest.mark.parametrize("style", ["rootless", "bill_evans", "quartal"])
def test_autumn_leaves_colour_tones_agree_with_the_scale_in_context(style: str) -> None:
    # every tone the style adds to a chord (not in its symbol) lies in analyze's primary
    # scale for that chord where it stands: the D7b13 into Gm6 takes no natural 9 or 13
    chords = tune("Autumn Leaves")
    for chord, entry, scale in zip(chords, voiced(chords, style), primary_scales(chords),
                                   strict=True):
        added = {m % 12 for m in entry["midi"]} - set(chord.pcs)
        assert all(scale >> pc & 1 for pc in added), (chord.symbol, entry["notes"])


def test_the_opener_keeps_the_13_the_symbol_writes_before_dm7() -> None:
    # The Opener's Em7 A13 Dm7: into the minor target a pianist adds b9/b13 to a plain A7, but
    # a 13 the symbol writes is played
    for style in ("rootless", "bill_evans"):
        a13 = voicing({"progression": "Em7 A13 Dm7", "style": style})["voicings"][1]
        assert "F#" in names(a13), (style, a13["notes"])
        plain = voicing({"progression": "Em7 A7 Dm7", "style": style})["voicings"][1]
        assert {"Bb", "F"} <= names(plain) and not {"B", "F#"} & names(plain), plain["notes"]


# 2. shell and pad roots from E2 ------------------------------------------------------------

@needs_corpus
def test_nine_twenty_special_shell_and_pad_roots_walk_down_by_step() -> None:
    # 9.20 Special's C C7 B7 Bb7 A7: with range [48, 84] the roots were pinned to C3-B3 and
    # B7 jumped up a major seventh; the default range lets them use E2-B3
    chords = tune("9.20 Special")[4:9]
    assert [c.symbol for c in chords] == ["C", "C7", "B7", "Bb7", "A7"]
    for style in ("shell", "pad"):
        roots = [v["midi"][0] for v in voiced(chords, style)]
        assert all(abs(b - a) <= 2 for a, b in pairwise(roots)), (style, roots)
        assert min(roots) >= 40
    explicit = voicing({"progression": "C7 B7 Bb7", "style": "shell", "range": [48, 84]})
    assert min(v["midi"][0] for v in explicit["voicings"]) >= 48   # a given range binds all


def _bass_pc(chord: Chord) -> int:
    return (chord.bass or chord.root).pc


@needs_corpus
@pytest.mark.parametrize("title", ["Whisper Not", "I Remember Clifford",
                                   "Night We Called It A Day, The"])
def test_whisper_not_bass_line_walks_by_step_under_shell_and_pad(title: str) -> None:
    # Whisper Not's Cm7 Cm7/Bb Am7b5 D7b9 (the line cliche C Bb A): the shell's bass leapt
    # C3 Bb3 (a seventh up), the Am7b5 having no shell on A2 (a minor 3rd or a tritone right
    # above A2 lies under its low-interval limit). Now the inversion Bb2 Eb3 G3 C4 or the
    # 1-7-3-b5 shell A2 G3 C4 Eb4 let it walk C3 Bb2 A2; a line moving by step never leaps
    # beyond a fifth where a placement lets it step (kernels.STEP_LEAP_UNIT)
    chords = tune(title)
    for style in ("shell", "pad"):
        bass = [v["midi"][0] for v in voiced(chords, style)]
        leaps = [(chords[i].symbol, bass[i - 1], bass[i]) for i in range(1, len(chords))
                 if min((d := (_bass_pc(chords[i]) - _bass_pc(chords[i - 1])) % 12), 12 - d) <= 2
                 and abs(bass[i] - bass[i - 1]) > 9]
        assert not leaps, (style, leaps)
    whisper = voicing({"progression": "Cm7 Cm7/Bb Am7b5 D7b9", "style": "shell"})["voicings"]
    assert [v["notes"][0] for v in whisper] == ["C3", "Bb2", "A2", "D3"], whisper


# 3. slash chords ---------------------------------------------------------------------------

@needs_corpus
def test_bright_size_life_f_over_g_keeps_its_f_triad() -> None:
    # Bright Size Life's G/A F/G: rootless F/G was C G A, no F (the 9 put in the root's place)
    chords = tune("Bright Size Life")
    at = next(i for i, c in enumerate(chords) if c.symbol == "F/G")
    for style in ("rootless", "bill_evans"):
        entry = voiced(chords, style)[at]
        assert {"F", "A", "C"} <= names(entry), (style, entry["notes"])


@needs_corpus
def test_april_in_paris_c_over_e_keeps_its_c() -> None:
    chords = tune("April In Paris")
    at = next(i for i, c in enumerate(chords) if c.symbol == "C/E")
    for style in ("rootless", "bill_evans"):
        entry = voiced(chords, style)[at]
        assert {"C", "E", "G"} <= names(entry), (style, entry["notes"])


# 4. bill_evans keeps its register on a resolution -------------------------------------------

@needs_corpus
def test_all_the_things_you_are_bill_evans_resolves_by_step() -> None:
    # Bb7 -> Ebmaj7 moved every voice up a fourth (19 semitones); every V-I of the tune now
    # moves at most 7 semitones in all
    chords = tune("All The Things You Are")
    entries = voiced(chords, "bill_evans")
    moves = [entries[i]["voiceLeading"] for i in range(1, len(chords))
             if "b7" in chords[i - 1].intervals and "3" in chords[i - 1].intervals
             and (chords[i].root.pc - chords[i - 1].root.pc) % 12 in (5, 11)]
    assert moves and max(moves) <= 7, moves


@needs_corpus
def test_airegin_bill_evans_reaches_fm_from_its_altered_dominant_by_step() -> None:
    # Airegin's C7b5#9 -> Fm: E Gb Bb Eb to the four tones of Fm6/9 (Ab C D G) moves 8
    # semitones however they are stacked; bill_evans leaves out the 5 there (three voices,
    # G4 Ab4 D5: styles.THIN_LEAVES, Register.thin) and moves 7 at most into every arrival
    chords = tune("Airegin")
    entries = voiced(chords, "bill_evans")
    moves = [(chords[i].symbol, entries[i]["voiceLeading"]) for i in range(1, len(chords))
             if "b7" in chords[i - 1].intervals and "3" in chords[i - 1].intervals
             and (chords[i].root.pc - chords[i - 1].root.pc) % 12 in (5, 11)]
    assert moves and max(m for _, m in moves) <= 7, moves
    thin = [e for c, e in zip(chords, entries, strict=True) if c.symbol == "Fm"]
    assert any(len(e["notes"]) == 3 and "C" in e["omitted"] for e in thin), thin

@needs_corpus
def test_misty_bill_evans_moves_its_register_where_a_phrase_starts() -> None:
    # Misty's Abm7 Db7 | Ebmaj7 | Cm7: the cadence home (the backdoor to Ebmaj7) ends a
    # phrase, the Cm7 after it starts one (engine.analysis.context.phrase_starts); bill_evans
    # moves its register there and never on an arrival, and moves of more than 9 semitones
    # happen only where a phrase starts (styles.BILL_EVANS_PLACES)
    chords = tune("Misty")
    places = [_place(reading) for reading in progression_context(chords)]
    assert places[7] == "phrase" and chords[7].symbol == "Cm7"
    entries = voiced(chords, "bill_evans")
    moves = [(i, places[i], entries[i]["voiceLeading"]) for i in range(1, len(chords))]
    assert all(m <= 7 for _, place, m in moves if place == "arrival"), moves
    big = [(i, place) for i, place, m in moves if m > 9]
    assert big and all(place == "phrase" for _, place in big), big


@needs_corpus
def test_stella_by_starlight_bill_evans_keeps_its_register_inside_its_phrases() -> None:
    # Stella moved bill_evans's register five times inside a phrase (Cm7 by 11, Bbmaj7 by 10);
    # priced there, every move of more than 7 waits for a phrase start (or is not needed)
    chords = tune("Stella By Starlight")
    places = [_place(reading) for reading in progression_context(chords)]
    entries = voiced(chords, "bill_evans")
    inside = [(chords[i].symbol, entries[i]["voiceLeading"]) for i in range(1, len(chords))
              if places[i] == "inside" and entries[i]["voiceLeading"] > 7]
    assert not inside, inside


# 5. shell as API.md 5 defines it ------------------------------------------------------------

@needs_corpus
def test_autumn_leaves_shells_are_root_third_seventh_within_a_tenth() -> None:
    chords = tune("Autumn Leaves")
    for chord, entry in zip(chords, voiced(chords, "shell"), strict=True):
        midi = entry["midi"]
        guides = {pc for label, pc in zip(chord.intervals, chord.pcs, strict=True)
                  if label in ("3", "b3", "7", "b7", "6")}
        assert guides <= {m % 12 for m in midi}, (chord.symbol, entry["notes"])
        # the 3rd and 7th within a tenth of the root; a b5 on top (1-7-3-b5, the 1-7-10
        # shell of a low half-diminished root) an augmented 11th at most
        top_guide = max(m for m in midi if m % 12 in guides)
        assert midi[0] % 12 == chord.root.pc and top_guide - midi[0] <= 16, entry["notes"]
        assert midi[-1] - midi[0] <= 18, entry["notes"]
        if "b5" in chord.intervals:                        # Am7b5 keeps its Eb
            assert chord.pcs[chord.intervals.index("b5")] in {m % 12 for m in midi}


def test_shell_keeps_the_b5_of_f_sharp_half_diminished_all_the_things_you_are() -> None:
    # ATTYA's bridge F#m7b5 B7b9 Emaj7: without its b5 the shell was an F#m7
    shell = voicing({"progression": "F#m7b5 B7b9 Emaj7", "style": "shell"})["voicings"][0]
    assert shell["notes"] in (["F#3", "A3", "C4", "E4"], ["F#3", "C4", "E4", "A4"])


# 6. quartal ---------------------------------------------------------------------------------

@needs_corpus
def test_so_what_quartal_plays_the_so_what_voicing() -> None:
    chords = tune("So What")
    entries = voiced(chords, "quartal")
    dm, ebm = entries[0], entries[16]
    assert [n.rstrip("0123456789") for n in dm["notes"]] == ["D", "G", "C", "F", "A"]
    steps = [b - a for a, b in pairwise(dm["midi"])]
    assert steps.count(5) >= 3                                   # three fourths, a third
    assert [b - a for a, b in pairwise(ebm["midi"])] == steps    # the shape moves in parallel


@needs_corpus
def test_maiden_voyage_quartal_stacks_fourths_on_sus_chords() -> None:
    chords = tune("Maiden Voyage")
    for chord, entry in zip(chords, voiced(chords, "quartal"), strict=True):
        gaps = [b - a for a, b in pairwise(entry["midi"])]
        if "sus" in chord.quality:
            assert gaps.count(5) >= 3, (chord.symbol, entry["notes"])


def test_quartal_is_a_style_with_fourths_on_dominants_and_majors_impressions() -> None:
    # Impressions/So What's changes aside, the fourths stacks elsewhere: C7 Bb E A D
    assert [n[:-1] for n in voicing({"chord": "C7", "style": "quartal"})["notes"]] == \
        ["Bb", "E", "A", "D"]
    assert [n[:-1] for n in voicing({"chord": "Cmaj7", "style": "quartal"})["notes"]] == \
        ["B", "E", "A", "D"]


# 7. spelling as a pianist reads ---------------------------------------------------------------

@needs_corpus
def test_five_hundred_miles_high_e7_sharp9_has_no_double_sharp() -> None:
    chords = tune("500 Miles High")
    at = next(i for i, c in enumerate(chords) if c.symbol == "E7#9")
    for style in ("rootless", "bill_evans", "drop2", "pad", "quartal"):
        entry = voiced(chords, style)[at]
        assert not any("##" in n or "bb" in n for n in entry["notes"]), entry["notes"]
        assert 67 % 12 in {m % 12 for m in entry["midi"]}      # the #9 sounds, as G


@needs_corpus
def test_black_coffee_g7alt_alterations_spelled_alike() -> None:
    chords = tune("Black Coffee")
    at = next(i for i, c in enumerate(chords) if c.symbol == "G7alt")
    for style in ("rootless", "drop2", "pad"):
        notes = voiced(chords, style)[at]["notes"]
        assert not any("#" in n for n in notes), notes      # Ab Bb Db Eb, never A# or C#


# 8. guide-tone lines ---------------------------------------------------------------------------

@needs_corpus
@pytest.mark.parametrize(("style", "first"), [("guide_third", "3"), ("guide_seventh", "7")])
def test_autumn_leaves_guide_tone_lines_move_by_step(style: str, first: str) -> None:
    chords = tune("Autumn Leaves")
    entries = voiced(chords, style)
    assert all(len(e["midi"]) == 1 for e in entries)
    cm7 = chords[0]
    label = "b3" if first == "3" else "b7"
    assert entries[0]["midi"][0] % 12 == cm7.pcs[cm7.intervals.index(label)]
    # by step (the 3rd of one chord to the 7th of the next, or held); the tune falls by step
    # through its cycle of fifths, so the line leaps back into its register, by a major third
    # at most and at most once a pass through the cycle, eight chords (it jumped a fourth or
    # fifth at every change); the chart's A is played twice, as its repeat says
    line = [e["midi"][0] for e in entries]
    moves = [abs(b - a) for a, b in pairwise(line)]
    assert sum(m > 2 for m in moves) <= len(line) // 8 and max(moves) <= 4, line


def test_autumn_leaves_phrases_start_at_its_sections_and_after_each_cadence_home() -> None:
    # Autumn Leaves' A: Cm7 F7 | Bbmaj7 | Ebmaj7 | Am7b5 D7 | Gm6 | Gm6 || B: Am7b5 ...:
    # a phrase starts on the first chord, on the B section's first chord, and after the
    # cadence home to Gm6 once it is held (engine.analysis.context.phrase_starts); the
    # Ebmaj7 after the ii-V-I in Bb is inside the phrase (Bb is not home)
    a = ["Cm7", "F7", "Bbmaj7", "Ebmaj7", "Am7b5", "D7", "Gm6", "Gm6"]
    b = ["Am7b5", "D7", "Gm6", "Cm7"]
    symbols = a + b
    chart = Chart((Section("A", 1, len(a)), Section("B", len(a) + 1, len(b))),
                  tuple(Placed(i + 1, 1.0, s, parse(s)) for i, s in enumerate(symbols)),
                  len(symbols), True)
    assert [i for i, r in enumerate(in_context(chart, parse_key("Gm"))) if r.phrase] == [0, 8, 11]


# issue 37, the last figures: resolutions of 8, forced bass leaps, sections in conduct --------

def _resolutions(chords: list[Chord], entries: list[dict]) -> list[tuple[str, int]]:
    """(chord, motion into it) of every chord a dominant resolves to (down a fifth, or down a
    half step from its subV), as bench/run_voicing_context.py counts them."""
    return [(chords[i].symbol, entries[i]["voiceLeading"]) for i in range(1, len(chords))
            if "b7" in chords[i - 1].intervals and "3" in chords[i - 1].intervals
            and (chords[i].root.pc - chords[i - 1].root.pc) % 12 in (5, 11)]


@needs_corpus
def test_and_the_angels_sing_bill_evans_plays_b_diminished_as_b_dim7() -> None:
    # And The Angels Sing's C7 | B0 | Cm: the diminished triad a jazz pianist reads as B°7, its
    # bb7 (Ab) in the whole-half diminished scale analyze gives it there; three voices (D C# F)
    # moved 8 from C7b9b13, four (Ab C# D F) move 7 at most
    chords = tune("And The Angels Sing")
    entries = voiced(chords, "bill_evans")
    at = next(i for i, c in enumerate(chords) if c.symbol == "B0")
    assert chords[at - 1].symbol == "C7"
    assert len(entries[at]["notes"]) == 4 and "Ab" in names(entries[at]), entries[at]["notes"]
    moves = _resolutions(chords, entries)
    assert moves and max(m for _, m in moves) <= 7, moves


@needs_corpus
def test_toy_tune_bill_evans_plays_c_diminished_read_as_a_ii_with_its_b7() -> None:
    # Toy Tune's G7#5#9 | C0 | B7alt: analyze reads the C° as locrian (a iiø), whose 7th is Bb,
    # not the A of C°7; the four tones of G7#5#9 are all written, so the C° takes its Bb and
    # the resolution moves 5, not 8 into three voices (Eb F Gb)
    chords = tune("Toy Tune")
    entries = voiced(chords, "bill_evans")
    at = next(i for i, c in enumerate(chords) if c.symbol == "C0")
    assert "Bb" in names(entries[at]) and "A" not in names(entries[at]), entries[at]["notes"]
    moves = _resolutions(chords, entries)
    assert moves and max(m for _, m in moves) <= 7, moves


def test_a_diminished_triad_takes_only_the_seventh_its_scale_holds() -> None:
    # the added seventh is a colour tone: it agrees with analyze's scale in context (no A on a
    # C° read as locrian, no Bb on a B° read as whole-half diminished), and rootless (no 7th
    # slot of its own for a triad) adds none
    for progression in ("C7 B0 Cm", "Dm7b9 G7#5#9 C0 B7alt Bbm9"):
        chords = [parse(s) for s in progression.split()]
        entries = voiced(chords, "bill_evans")
        for chord, entry, scale in zip(chords, entries, primary_scales(chords), strict=True):
            added = {m % 12 for m in entry["midi"]} - set(chord.pcs)
            assert all(scale >> pc & 1 for pc in added), (chord.symbol, entry["notes"])
    assert len(voicing({"chord": "B0", "style": "rootless"})["notes"]) == 3


def _root_step_leaps(chords: list[Chord], bass: list[int]) -> list[tuple[str, int, int]]:
    """The issue's figure: the bass leaps over a sixth where the roots move a step or less."""
    return [(chords[i].symbol, bass[i - 1], bass[i]) for i in range(1, len(chords))
            if min((d := (chords[i].root.pc - chords[i - 1].root.pc) % 12), 12 - d) <= 2
            and abs(bass[i] - bass[i - 1]) > 9]


@needs_corpus
@pytest.mark.parametrize("title", ["Goodbye", "Duke, The", "Harlem Nocturne",
                                   "On A Misty Night", "Punjab", "Here's To My Lady",
                                   "How My Heart Sings", "I'll Be Around"])
def test_goodbye_stepwise_bass_runs_walk_on_below_e2(title: str) -> None:
    # Goodbye's Cm7 Cm7/Bb Am7b5 Ab7#11 Cm7/G Ab7/Gb G7b9/F Cm7/Eb Dm7b5 (C3 down to D2), The
    # Duke's Bbm7 Ab6 Gm7b5 Fm7 Ebsus Db7#11 Cmaj7 (to C2), Harlem Nocturne's Eb9 Db9 B9 A9 G9
    # F9 Eb9 Db9: runs longer than E2-B3 leapt back an octave in the middle; the bass walks on
    # to C2 (styles.BASS_FLOOR), the shell's 3rd a tenth above a root under F2
    chords = tune(title)
    for style in ("shell", "pad"):
        entries = voiced(chords, style)
        bass = [v["midi"][0] for v in entries]
        assert not _root_step_leaps(chords, bass), (style, _root_step_leaps(chords, bass))
        assert min(bass) >= 36
        for entry in entries:
            low, above = entry["midi"][0], entry["midi"][1]
            assert low >= 41 or above - low >= 12 or above - low == 7, (style, entry["notes"])


def test_goodbye_line_cliche_reaches_d2_with_a_tenth_above_it() -> None:
    line = "Cm7 Cm7/Bb Am7b5 Ab7#11 Cm7/G Ab7/Gb G7b9/F Cm7/Eb Dm7b5"
    entries = voicing({"progression": line, "style": "shell"})["voicings"]
    assert [e["notes"][0] for e in entries] == ["C3", "Bb2", "A2", "Ab2", "G2", "Gb2", "F2",
                                                "Eb2", "D2"], [e["notes"] for e in entries]
    # over D2 nothing within an octave (D2 C3 would be a muddy 7th): D2 Ab3 C4 F4
    low, above = entries[-1]["midi"][:2]
    assert above - low > 12, entries[-1]["notes"]


@needs_corpus
def test_fascinating_rhythm_turns_its_long_bass_run_where_the_harmony_moves() -> None:
    # Fascinating Rhythm's Cm Cm/Bb Am7b5 Ab7 Cm/G F#07 F7 Cm/Eb G7/D Cm Cm/Bb Am7b5 Fm/Ab G7:
    # a bass line 17 semitones long from C3, more than C2-B3 holds; it must turn back once, and
    # turns where the root moves (kernels.TURN_UNIT), never over the Cm held above its bass
    chords = tune("Fascinating Rhythm")
    for style in ("shell", "pad"):
        bass = [v["midi"][0] for v in voiced(chords, style)]
        assert not _root_step_leaps(chords, bass), (style, _root_step_leaps(chords, bass))


def test_conduct_sections_reach_the_voicing_as_phrase_starts() -> None:
    # conduct voices the whole piece in one search; each chorus and each A/B section of an AABA
    # starts a phrase there (engine.analysis.context.phrase_starts), as in analyze's chart
    from engine.conduct import forms
    from engine.conduct.operation import _section_starts
    assert _section_starts(64, 32, forms.sections("aaba"), 0) == {0, 8, 16, 24, 32, 40, 48, 56}
    assert _section_starts(26, 12, forms.sections("blues"), 2) == {0, 12, 24}
    chords = [parse(s) for s in ["Cmaj7", "Am7", "Dm7", "G7"] * 4]
    plain = [r.phrase for r in progression_context(chords)]
    sectioned = [r.phrase for r in progression_context(chords, (8,))]
    assert not plain[8] and sectioned[8]
