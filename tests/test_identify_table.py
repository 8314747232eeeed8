"""The table identify reads (engine.identify.table, engine.identify.ranking) against the search
it replaced (tests/naive_identify.py), and the answer for unnamed notes read from the tables
alone against the general one."""

from __future__ import annotations

import pytest

from engine.chords import parse, parse_key, parse_spelled
from engine.errors import InvalidRequest
from engine.identify.answer import answer_of, copy_answer, plain_answer
from engine.identify.naming import DEFAULT_ROOTS, UNNAMED
from engine.identify.notes import Sounding
from engine.identify.ranking import rank
from tests import naive_identify

# every 41st set (a spread of sizes and of clusters no chord names), every bass and none
SETS = range(1, 4096, 41)
KEYS = ("C", "Am", "Eb", "F#")


@pytest.mark.parametrize("key", [None, *KEYS])
def test_the_table_ranks_every_bass_as_the_search_did(key: str | None) -> None:
    k = None if key is None else parse_key(key)
    for mask in SETS:
        for bass in [None, *range(12)]:
            if bass is not None and not mask >> bass & 1:
                continue
            assert rank(mask, bass, k) == naive_identify.rank(mask, bass, k), (mask, bass)


def test_b_d_f_a_the_cluster_c_db_d_and_c_e_g_a_rank_as_the_search_did() -> None:
    c = parse_key("C")
    for mask, bass in ((0b101000100100, None), (0b101000100100, 7), (0b111, 0), (0b1010010001, 9)):
        for key in (None, c):
            assert rank(mask | (0 if bass is None else 1 << bass), bass, key) == \
                naive_identify.rank(mask | (0 if bass is None else 1 << bass), bass, key)


def test_unnamed_notes_from_the_tables_answer_as_the_general_path() -> None:
    """Every third set, with no bass and over its lowest and its highest pitch class, as MIDI
    numbers: the answer read from the tables alone is the general path's."""
    for mask in range(1, 4096, 3):
        pcs = [pc for pc in range(12) if mask >> pc & 1]
        notes = tuple(Sounding(pc, None, 60 + pc, str(60 + pc)) for pc in pcs)
        for bass in (None, notes[0], Sounding(pcs[-1], None, 40 + pcs[-1], str(40 + pcs[-1]))):
            assert plain_answer(notes, bass) == copy_answer(answer_of(notes, bass, None))


def test_every_quality_on_every_default_root_is_spelled_as_parse_spells_it() -> None:
    """naming.UNNAMED (built from the quality tables without parsing) against ``parse``: the
    symbol, tones, their names (b5 and #11 share a pitch class in C11b5#11), the set, and the
    inversion over every bass."""
    for root, chords in enumerate(UNNAMED):
        for chord in chords:
            parsed = parse(chord.symbol)
            assert (parsed.canonical, parsed.root.name, parsed.quality) == \
                (chord.symbol, chord.root, chord.quality)
            assert parsed.pcs == chord.pcs and parsed.mask == chord.mask
            assert chord.tones == {pc: parse_spelled(n)
                                   for pc, n in zip(parsed.pcs, parsed.notes, strict=True)}
            assert all(chord.names[pc] == (chord.tones[pc].name if pc in chord.tones
                                           else DEFAULT_ROOTS[pc].name) for pc in range(12))
            assert parsed.root.pc == root
            for bass in (0, 4, 7, 10, (root + 6) % 12):
                slash = parse(f"{chord.symbol}/{DEFAULT_ROOTS[bass].name}")
                assert slash.inversion == chord.inversions[bass]


def test_numbers_read_by_the_plain_path_answer_as_the_full_request() -> None:
    # identify()'s short path for {"pcs"/"notes": [numbers], "bass": n} answers as the full one,
    # in the order the pitch classes are given, with a bass in or out of the set or a MIDI
    # number; anything else (a bool, 12, a string) takes the full path and its error
    from engine.identify.operation import _identify, identify
    for mask in range(1, 4096, 7):
        pcs = [p for p in range(12) if mask >> p & 1]
        midi = [48 + p + 12 * (i % 3) for i, p in enumerate(pcs)]
        for request in ({"pcs": pcs}, {"pcs": pcs[::-1], "bass": pcs[-1]},
                        {"pcs": pcs, "bass": (pcs[0] + 5) % 12}, {"pcs": pcs, "bass": 60},
                        {"notes": midi}, {"notes": midi[::-1], "bass": 40}):
            assert identify(request) == _identify(request)
    for bad in ({"pcs": [0, 4, 12]}, {"pcs": [0, True]}, {"pcs": [0, 4], "bass": 128},
                {"pcs": []}, {"notes": [60, 128]}, {"notes": [60, 64], "bass": -1}):
        with pytest.raises(InvalidRequest) as raised:
            identify(bad)
        assert raised.value.field in ("pcs", "notes", "bass")
