"""Corpus-scale analysis: many (symbol, key) rows at once, never raising mid-corpus.

Real corpora repeat themselves (189,564 jazz tokens use 1,895 symbols), so each distinct
symbol and key is parsed once; everything per row is then integer arithmetic and table lookups
over numpy arrays (the rule grid of ``engine.analysis.grid``). Rows that do not parse carry an error
code instead of a result, whatever the row holds: a symbol or key that is not a string, or
a ``BadRow`` a reader put in place of a line it could not read. Texts (numeral, function, source) are built once per distinct
(symbol, key) pair when rows are read out, with the same functions ``analyze`` uses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from engine.analysis.grid import (
    GRID,
    INTERPRETATIONS,
    MODES,
    SCALE_MASK,
    TENSION_SOURCE,
    quality_class,
)
from engine.analysis.operations import function_text, numeral_text, source_text
from engine.analysis.readings import heard_as
from engine.chords import SCALE_STEPS, Chord, Key, parse, parse_key
from engine.errors import HarmonyError, InvalidChord, InvalidKey, InvalidRequest

T = TypeVar("T")

OK, INVALID_CHORD, INVALID_KEY, INVALID_REQUEST = 0, 1, 2, 3
ERROR_CODES = ("", "invalid_chord", "invalid_key", "invalid_request")
_ERROR_INDEX = {code: i for i, code in enumerate(ERROR_CODES)}
_MAJOR = np.array(SCALE_STEPS["major"], dtype=np.int16)

ROW_FIELDS = ("chord", "key", "root", "quality", "bass", "degree", "numeral", "inversion",
              "function", "diatonic", "borrowed", "source")
"""Fields of a batch row: those of analyze (API.md §3) that do not list notes or scales."""


@dataclass(frozen=True)
class BadRow:
    """Stands in a chord column for a row a reader could not read (a line of JSONL that is
    not JSON): the row becomes an ``invalid_request`` error with this message."""

    message: str


@dataclass(frozen=True)
class _NotText:
    """A chord or key that is not a string (a number, a list), kept hashable so that it
    factorizes like any other value; its row becomes an error."""

    type_name: str
    text: str


Cell = str | None | BadRow | _NotText


def _cell(value: Any) -> Cell:
    if value is None or isinstance(value, str | BadRow):
        return value
    return _NotText(type(value).__name__, str(value)[:64])


def _shown(value: Cell) -> str | None:
    """What a row echoes as its chord or key: the text given, else null."""
    return value if isinstance(value, str) else None


def _factorize(values: Sequence[Cell]) -> tuple[np.ndarray, list[Cell]]:
    """Codes per value and the distinct values in order of first appearance."""
    index: dict[Cell, int] = {}
    codes = np.fromiter((index.setdefault(v, len(index)) for v in values), dtype=np.int32,
                        count=len(values))
    return codes, list(index)


@dataclass(frozen=True)
class SymbolTable:
    """Distinct symbols parsed once; columns are per distinct symbol."""

    chords: list[Chord | None]
    errors: list[HarmonyError | None]
    root_pc: np.ndarray
    root_letter: np.ndarray
    cls: np.ndarray
    mask: np.ndarray           # pitch classes of the chord tones (a slash bass is not one)


@dataclass(frozen=True)
class KeyTable:
    keys: list[Key | None]
    errors: list[HarmonyError | None]
    tonic_pc: np.ndarray
    tonic_letter: np.ndarray
    mode: np.ndarray


def _parse_each(distinct: Sequence[Cell], parse: Callable[[Cell], T]
                ) -> tuple[list[T | None], list[HarmonyError | None]]:
    """``parse`` over the distinct texts: the value or None, and the error or None."""
    values: list[T | None] = []
    errors: list[HarmonyError | None] = []
    for text in distinct:
        try:
            values.append(parse(text))
            errors.append(None)
        except HarmonyError as exc:
            values.append(None)
            # Without its traceback: its frames would hold the caller's whole chunk (through
            # f_back) in a reference cycle, freed only by a rare full collection (a streamed
            # batch grew by 8 MB a chunk).
            errors.append(exc.with_traceback(None))
    return values, errors


def _parse_symbol(text: Cell) -> Chord:
    if text is None:
        raise InvalidChord("", "no chord symbol")
    if isinstance(text, BadRow):
        raise InvalidRequest(text.message)
    if isinstance(text, _NotText):
        raise InvalidChord(text.text, f"a chord symbol must be a string, not {text.type_name}")
    return parse(text)


def _parse_key(text: Cell) -> Key:
    if isinstance(text, BadRow):
        raise InvalidRequest(text.message)
    if isinstance(text, _NotText):
        raise InvalidKey(f"a key must be a string such as C, F#, Bb or Cm "
                         f"(got {text.type_name} {text.text})")
    return parse_key(text)


def _error_codes(errors: list[HarmonyError | None]) -> np.ndarray:
    return np.array([OK if e is None else _ERROR_INDEX.get(e.code, INVALID_REQUEST)
                     for e in errors], dtype=np.int8)


def parse_symbols(distinct: Sequence[Cell]) -> SymbolTable:
    chords, errors = _parse_each(distinct, _parse_symbol)
    # the grid reads each chord as heard (``heard_as``: F/G is G9sus4), as analyze does
    heard = [None if c is None else heard_as(c) for c in chords]

    def col(get: Any, dtype: Any) -> np.ndarray:
        return np.array([get(c) if c is not None else 0 for c in heard], dtype=dtype)

    return SymbolTable(chords, errors, col(lambda c: c.root.pc, np.int16),
                       col(lambda c: c.root.letter, np.int16), col(quality_class, np.int16),
                       col(lambda c: c.mask, np.int32))


def parse_keys(distinct: Sequence[Cell]) -> KeyTable:
    keys, errors = _parse_each(distinct, _parse_key)

    def col(get: Any) -> np.ndarray:
        return np.array([get(k) if k is not None else 0 for k in keys], dtype=np.int16)

    return KeyTable(keys, errors, col(lambda k: k.tonic.pc), col(lambda k: k.tonic.letter),
                    col(lambda k: k.mode_index))


def lookup(sym: np.ndarray, key: np.ndarray, st: SymbolTable,
           kt: KeyTable) -> dict[str, np.ndarray]:
    """The vectorised core: per-row codes from per-row indices into the two tables.

    Returns int arrays of shape (rows,): ``interp`` (index into INTERPRETATIONS), ``degree``
    (0..6), ``accidental``, ``tension`` (TENSION_SOURCE code) and bool ``diatonic``.
    """
    root_pc = st.root_pc[sym]
    tonic_pc = kt.tonic_pc[key]
    mode = kt.mode[key]
    diff = root_pc - tonic_pc
    interp = GRID[mode, diff % 12, st.cls[sym]]
    degree = (st.root_letter[sym] - kt.tonic_letter[key]) % 7
    accidental = (diff - _MAJOR[degree] + 6) % 12 - 6
    mask = st.mask[sym]
    rel = ((mask >> tonic_pc) | (mask << (12 - tonic_pc))) & 0xFFF
    diatonic = (rel & ~SCALE_MASK[mode].astype(np.int32)) == 0
    return {"interp": interp, "degree": degree, "accidental": accidental,
            "diatonic": diatonic, "tension": TENSION_SOURCE[mode, rel]}


@dataclass
class BatchResult:
    """Per-row analysis codes; ``row(i)`` / ``rows()`` give dicts (``ROW_FIELDS``), or for a
    row that failed ``{"chord", "key", "error": {"code", "message", ...}}``."""

    symbols: list[Cell]
    keys: list[Cell]
    sym: np.ndarray
    key: np.ndarray
    error: np.ndarray          # per row: OK, INVALID_CHORD, INVALID_KEY or INVALID_REQUEST
    codes: dict[str, np.ndarray]
    symbol_table: SymbolTable
    key_table: KeyTable
    _memo: dict[tuple[int, int], dict[str, Any]] = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.sym)

    def row(self, i: int) -> dict[str, Any]:
        """The result of row ``i`` (shared between rows of the same symbol and key: do not
        mutate it)."""
        pair = (int(self.sym[i]), int(self.key[i]))
        cached = self._memo.get(pair)
        if cached is None:
            cached = self._memo[pair] = self._build(i)
        return cached

    def rows(self) -> Iterator[dict[str, Any]]:
        for i in range(len(self.sym)):
            yield self.row(i)

    def take(self, rows: np.ndarray) -> BatchResult:
        """The result of ``rows`` only, in that order (its codes index the same tables)."""
        at = rows.tolist()
        return BatchResult([self.symbols[i] for i in at], [self.keys[i] for i in at],
                           self.sym[rows], self.key[rows], self.error[rows],
                           {name: codes[rows] for name, codes in self.codes.items()},
                           self.symbol_table, self.key_table)

    def _build(self, i: int) -> dict[str, Any]:
        s, k = int(self.sym[i]), int(self.key[i])
        chord, key = self.symbol_table.chords[s], self.key_table.keys[k]
        if chord is None or key is None:
            exc = self.symbol_table.errors[s] or self.key_table.errors[k]
            assert exc is not None
            return {"chord": _shown(self.symbols[i]), "key": _shown(self.keys[i]),
                    **exc.to_dict()}
        it = INTERPRETATIONS[int(self.codes["interp"][i])]
        diatonic = bool(self.codes["diatonic"][i])
        mode, tension = MODES[int(self.key_table.mode[k])], int(self.codes["tension"][i])
        return {
            "chord": chord.symbol,
            "key": key.name,
            "root": chord.root.name,
            "quality": chord.quality,
            "bass": chord.bass_name,
            "degree": int(self.codes["degree"][i]) + 1,
            "numeral": numeral_text(it, int(self.symbol_table.cls[s]),
                                    int(self.codes["degree"][i]),
                                    int(self.codes["accidental"][i]),
                                    heard_as(chord).quality),
            "inversion": chord.inversion,
            "function": function_text(it, key.tonic.name, diatonic, mode, tension),
            "diatonic": diatonic,
            "borrowed": it.borrowed,
            "source": source_text(it, diatonic, mode, tension),
        }


def analyze_batch(chords: Sequence[Any], keys: Iterable[Any] | str | None = None
                  ) -> BatchResult:
    """Analyse ``chords[i]`` in ``keys[i]`` (or in one key for all; None means C).

    Every row gets a result or an error code, whatever it holds: a chord that is not a
    string is ``invalid_chord``, a key that is not a string ``invalid_key``, a ``BadRow``
    ``invalid_request``. Only a call that is not a batch raises (``ValueError``): chords not
    a sequence of rows, or keys of another length."""
    if isinstance(chords, str | bytes) or not isinstance(chords, Iterable):
        raise ValueError("chords must be a sequence of chord symbols, one per row")
    chord_list = [_cell(c) for c in chords]
    n = len(chord_list)
    key_list: list[Cell] = [_cell(keys)] * n if isinstance(keys, str) or \
        not isinstance(keys, Iterable) else [_cell(k) for k in keys]
    if len(key_list) != n:
        raise ValueError(f"{n} chords but {len(key_list)} keys")
    sym, distinct_symbols = _factorize(chord_list)
    key, distinct_keys = _factorize(key_list)
    st, kt = parse_symbols(distinct_symbols), parse_keys(distinct_keys)
    codes = lookup(sym, key, st, kt)
    sym_code, key_code = _error_codes(st.errors), _error_codes(kt.errors)
    error = np.where(sym_code[sym] != OK, sym_code[sym], key_code[key]).astype(np.int8)
    return BatchResult(chord_list, key_list, sym, key, error, codes, st, kt)
