"""reharmonize (API.md §6): eight reharmonisation techniques over an analysed progression.

The request's chords are read against the key once (``_analyse``, through analyze's rule
grid: ``role_of`` and the quality classes); each technique is then one small function that
finds where its rule (``engine.reharm_rules``) applies and returns the changes. A technique
applies everywhere it can in its single alternative, never touching one input chord twice,
so applying ``changes`` to the input gives the alternative.

A dominant at the very end whose root lies a fifth above the first chord is read as a
turnaround that resolves to the top of the progression (``Cmaj7 Am7 Dm7 G7`` repeats).
Chords with a slash bass are kept as the user wrote them (the bass line is theirs); they still
serve as targets. ``NC`` is never changed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from engine import reharm_rules as rules
from engine.analysis import quality_class, role_of
from engine.chord import Chord
from engine.errors import InvalidRequest
from engine.grid import CLASSES
from engine.keys import Key, parse_key
from engine.notes import LETTER_PC, PitchClass, Spelled, transpose_spelled
from engine.requests import get_list, get_str, require_object
from engine.symbols import NO_CHORD, parse, parse_progression


@dataclass(frozen=True, slots=True)
class Slot:
    """One input chord read against the key."""

    chord: Chord | None        # None for NC
    symbol: str                # as given
    pc: PitchClass             # of the root; -1 for NC
    family: str                # rules.CLASS_FAMILY of its quality class; "other" if none
    degree: int | None         # 1..7 when the root is a note of the key's scale
    diatonic: bool             # every chord tone is in the key's scale (analyze's flag)
    target: bool               # a chord of the key that can be tonicised

    @property
    def root(self) -> Spelled:
        assert self.chord is not None
        return self.chord.root

    @property
    def replaceable(self) -> bool:
        return self.chord is not None and self.chord.bass is None


@dataclass(frozen=True, slots=True)
class Context:
    key: Key
    scale_pcs: frozenset[PitchClass]
    slots: tuple[Slot, ...]


@dataclass(frozen=True, slots=True)
class Change:
    index: int
    to: tuple[str, ...]
    clause: str                # part of the explanation sentence naming the chords


Technique = Callable[[Context], list[Change]]


# --- analysis -----------------------------------------------------------------------------

@lru_cache(maxsize=8192)
def _slot(symbol: str, key_name: str) -> Slot:
    """A chord read against a key; cached by text, as chords and keys are (parse is too)."""
    if symbol in NO_CHORD:
        return Slot(None, symbol, -1, "other", None, False, False)
    chord, key = parse(symbol), parse_key(key_name)
    role = role_of(chord, key)
    family = rules.CLASS_FAMILY.get(CLASSES[quality_class(chord)].name, "other")
    scale_pcs = [sp.pc for sp in key.scale]
    pc = chord.root.pc
    degree = scale_pcs.index(pc) + 1 if pc in scale_pcs else None
    # A target is a chord of the key (the grid's diatonic role), or the dominant a minor key
    # takes from harmonic minor (E7 in A minor: the secondary dominant of i).
    own = role.role == "diatonic" or (role.role == "secondary" and role.target_offset == 0)
    target = own and family in rules.TARGET_FAMILIES
    return Slot(chord, symbol, pc, family, degree, role.diatonic, target)


def _analyse(symbols: list[str], key: Key) -> Context:
    slots = tuple(_slot(symbol, key.name) for symbol in symbols)
    return Context(key, frozenset(sp.pc for sp in key.scale), slots)


def _fifth_above(upper: Slot, lower: Slot) -> bool:
    return upper.pc >= 0 and lower.pc >= 0 and (upper.pc - lower.pc) % 12 == 7


def _resolution(ctx: Context, i: int) -> int | None:
    """Index of the chord that the dominant at ``i`` resolves to (down a fifth), if any."""
    slots = ctx.slots
    if slots[i].family != "dominant":
        return None
    j = i + 1 if i + 1 < len(slots) else 0
    return j if j != i and _fifth_above(slots[i], slots[j]) else None


# --- spelling -----------------------------------------------------------------------------

@lru_cache(maxsize=1024)
def _above(root: Spelled, interval: rules.Interval) -> Spelled:
    return transpose_spelled(root, *interval)


def _readable(sp: Spelled, key: Key) -> Spelled:
    """A chromatic root spelled Fb, Cb, E#, B# or with a double accidental, as its plain
    enharmonic: the natural if there is one (Abb -> G), else the single accidental in the same
    direction (E## -> F#). Notes of the key's scale keep their spelling (Cb in Gb)."""
    if sp in key.scale or (abs(sp.alter) < 2 and sp.name not in rules.AWKWARD_ROOTS):
        return sp
    if sp.pc in LETTER_PC:
        return Spelled(LETTER_PC.index(sp.pc), 0)
    letter = (sp.letter + (1 if sp.alter > 0 else -1)) % 7
    return Spelled(letter, (sp.pc - LETTER_PC[letter] + 6) % 12 - 6)


def _sym(root: Spelled, quality: str) -> str:
    return root.name + quality


# --- the eight techniques -------------------------------------------------------------------

def tritone_sub(ctx: Context) -> list[Change]:
    # Right to left, and never both a dominant and the chord it resolves to: each substitute
    # must still slide down a half step onto the chord written after it (A7 D7 G7 C becomes
    # Eb7 D7 Db7 C, a chromatic line).
    out: list[Change] = []
    taken: set[int] = set()
    fed: set[int] = set()
    for i in reversed(range(len(ctx.slots))):
        s, j = ctx.slots[i], _resolution(ctx, i)
        if j is None or not s.replaceable or j in taken or i in fed:
            continue
        assert s.chord is not None
        new = _sym(_readable(_above(s.root, rules.TRITONE), ctx.key),
                   rules.TRITONE_QUALITY.get(s.chord.quality, "7"))
        tritone = f"{s.chord.tone('3')}–{s.chord.tone('b7')}"
        out.append(Change(i, (new,), f"{new} replaces {s.symbol}, sharing its tritone {tritone} "
                                     f"and resolving down a half step to {ctx.slots[j].symbol}"))
        taken.add(i)
        fed.add(j)
    return out


def _approach_mode(ctx: Context, t: Slot) -> str:
    """A minor target takes the minor ii-V; so does one whose ii would bring in a fifth from
    outside the key (F#m7b5 B7b9, not F#m7 B7, before E7 in A minor)."""
    if t.family == "minor" or _above(t.root, rules.SIXTH_UP).pc not in ctx.scale_pcs:
        return "minor"
    return "major"


def ii_v_insertion(ctx: Context) -> list[Change]:
    out = []
    for i in range(1, len(ctx.slots)):
        prev, t = ctx.slots[i - 1], ctx.slots[i]
        if not t.target or prev.chord is None or _fifth_above(prev, t) \
                or prev.pc == t.pc:
            continue
        ii_q, v_q = rules.APPROACH_QUALITIES[_approach_mode(ctx, t)]
        ii = _sym(_above(t.root, rules.SECOND_UP), ii_q)
        v = _sym(_above(t.root, rules.FIFTH_UP), v_q)
        out.append(Change(i - 1, (prev.symbol, ii, v),
                          f"{t.symbol} is approached by its own ii-V, {ii} {v}"))
    return out


def modal_interchange(ctx: Context) -> list[Change]:
    out = []
    last = len(ctx.slots) - 1
    tonic = ctx.key.tonic.name
    parallel = f"{tonic} minor" if ctx.key.mode == "major" else f"{tonic} major"
    for i, s in enumerate(ctx.slots):
        if not (s.replaceable and s.diatonic and s.degree is not None):
            continue
        assert s.chord is not None
        rule = rules.BORROWED.get((ctx.key.mode, s.degree))
        if rule is None or s.chord.quality not in rule[1] or (rule[2] and i != last):
            continue
        root = _readable(_above(ctx.key.tonic, rule[0]), ctx.key)
        new = _sym(root, rule[1][s.chord.quality])
        out.append(Change(i, (new,), f"{s.symbol} becomes {new}, borrowed from {parallel}"))
    return out


def secondary_dominants(ctx: Context) -> list[Change]:
    # Right to left: a chord whose root moves cannot also be the target of the chord before it
    # (Dm7 Em7 Fmaj7 G7 gives B7 Em7 D7 G7), while a same-root change keeps the chain of
    # fifths intact (Am7 Dm7 G7 gives A7 D7 G7).
    out: list[Change] = []
    moved: set[int] = set()
    for i in reversed(range(len(ctx.slots) - 1)):
        s, t = ctx.slots[i], ctx.slots[i + 1]
        if not (t.target and t.degree not in (None, 1) and s.replaceable and s.diatonic) \
                or i + 1 in moved:
            continue
        if _fifth_above(s, t):
            if s.family == "dominant":
                continue  # already the V7 of its target
            root = s.root  # same root, new quality: Am7 -> A7 before Dm7
        elif s.degree != 1:
            root = _above(t.root, rules.FIFTH_UP)
            moved.add(i)
        else:
            continue  # the tonic only turns into its own dominant seventh (I7 -> IV)
        new = _sym(root, rules.DOMINANT_QUALITY)
        out.append(Change(i, (new,), f"{s.symbol} becomes {new}, the V7 of {t.symbol}"))
    return out


def dominant_chain(ctx: Context) -> list[Change]:
    out: list[Change] = []
    slots = ctx.slots
    for d in range(len(slots)):
        t = _resolution(ctx, d)
        if t is None or not slots[t].target:
            continue
        k = d  # walk back over the dominants that already chain into the target
        while k > 0 and slots[k - 1].family == "dominant" and _fifth_above(slots[k - 1], slots[k]):
            k -= 1
        s = k - 1  # the chord that becomes the head of the chain: not the tonic, not the target
        if s < 0 or s == t or not slots[s].replaceable or slots[s].degree == 1 \
                or any(c.index == s for c in out):
            continue
        roots = [slots[k].root]
        for _ in range(rules.CHAIN_LENGTH):
            roots.insert(0, _above(roots[0], rules.FIFTH_UP))
        new = tuple(_sym(r, rules.DOMINANT_QUALITY) for r in roots[:-1])
        chain = " ".join((*new, *(x.symbol for x in slots[k:d + 1])))
        out.append(Change(s, new, f"{slots[s].symbol} becomes {' '.join(new)}, so the "
                                  f"dominants {chain} fall by fifths into {slots[t].symbol}"))
    return out


def _ii_of(ctx: Context, d: int) -> int | None:
    """Index of the ii before the dominant at ``d`` (a minor-type chord a fifth above it)."""
    s = d - 1
    if s >= 0 and ctx.slots[s].family in ("minor", "half-diminished") \
            and _fifth_above(ctx.slots[s], ctx.slots[d]):
        return s
    return None


def coltrane_changes(ctx: Context) -> list[Change]:
    out = []
    for d, v in enumerate(ctx.slots):
        t = _resolution(ctx, d)
        if t is None or ctx.slots[t].family != "major" or not ctx.slots[t].target \
                or _ii_of(ctx, d) is None or not v.replaceable:
            continue
        target = ctx.slots[t].root
        centres = [_readable(_above(target, c), ctx.key) for c in rules.COLTRANE_CENTRES]
        dom_q, tonic_q = rules.COLTRANE_QUALITIES
        new = tuple(sym for c in centres
                    for sym in (_sym(_above(c, rules.FIFTH_UP), dom_q), _sym(c, tonic_q)))
        new = (*new, v.symbol)
        names = ", ".join(c.name for c in centres)
        out.append(Change(d, new, f"{v.symbol} becomes {' '.join(new)}, Coltrane's cycle of "
                                  f"major thirds through {names} and back to "
                                  f"{ctx.slots[t].symbol}"))
    return out


def backdoor(ctx: Context) -> list[Change]:
    out: list[Change] = []
    for d, v in enumerate(ctx.slots):
        t = _resolution(ctx, d)
        if t is None or ctx.slots[t].family != "major" or not ctx.slots[t].target \
                or not v.replaceable:
            continue
        target = ctx.slots[t]
        interval, quality = rules.BACKDOOR_DOMINANT
        bvii = _sym(_readable(_above(target.root, interval), ctx.key), quality)
        s = _ii_of(ctx, d)
        if s is not None and ctx.slots[s].replaceable and all(c.index != s for c in out):
            interval, quality = rules.BACKDOOR_PREDOMINANT
            iv = _sym(_readable(_above(target.root, interval), ctx.key), quality)
            out.append(Change(s, (iv,), f"{ctx.slots[s].symbol} {v.symbol} become {iv} {bvii}, "
                                        f"the backdoor iv7-bVII7 that resolves up a whole "
                                        f"step to {target.symbol}"))
            out.append(Change(d, (bvii,), ""))
        else:
            out.append(Change(d, (bvii,), f"{v.symbol} becomes {bvii}, the backdoor dominant "
                                          f"that resolves up a whole step to {target.symbol}"))
    return out


def diminished_passing(ctx: Context) -> list[Change]:
    out = []
    for i in range(len(ctx.slots) - 1):
        a, b = ctx.slots[i], ctx.slots[i + 1]
        if a.chord is None or not b.target or a.family == "diminished":
            continue
        step = rules.PASSING_STEPS.get((b.pc - a.pc) % 12)
        if step is None:
            continue
        anchor, interval = step
        root = _readable(_above(b.root if anchor == "target" else a.root, interval), ctx.key)
        dim = _sym(root, rules.PASSING_QUALITY)
        direction = "up" if anchor == "target" else "down"
        out.append(Change(i, (a.symbol, dim), f"{dim} passes chromatically from {a.symbol} "
                                              f"{direction} to {b.symbol}"))
    return out


TECHNIQUE_FUNCTIONS: dict[str, Technique] = {
    "tritone_sub": tritone_sub,
    "ii_v_insertion": ii_v_insertion,
    "modal_interchange": modal_interchange,
    "secondary_dominants": secondary_dominants,
    "dominant_chain": dominant_chain,
    "coltrane_changes": coltrane_changes,
    "backdoor": backdoor,
    "diminished_passing": diminished_passing,
}
assert tuple(TECHNIQUE_FUNCTIONS) == rules.TECHNIQUES


# --- the operation --------------------------------------------------------------------------

def _requested_techniques(req: dict[str, Any]) -> frozenset[str]:
    value = get_list(req, "techniques")
    if value is None:
        return frozenset(rules.TECHNIQUES)
    for name in value:
        if not isinstance(name, str) or name not in TECHNIQUE_FUNCTIONS:
            raise InvalidRequest(f"unknown technique {name!r}; expected some of "
                                 f"{', '.join(rules.TECHNIQUES)}", field="techniques")
    return frozenset(value)


def _alternative(technique: str, symbols: list[str], changes: list[Change]) -> dict[str, Any]:
    changes = sorted(changes, key=lambda c: c.index)
    by_index = {c.index: c.to for c in changes}
    progression = [sym for i, old in enumerate(symbols) for sym in by_index.get(i, (old,))]
    clauses = list(dict.fromkeys(c.clause for c in changes if c.clause))  # each reason once
    return {
        "technique": technique,
        "progression": progression,
        "changes": [{"index": c.index, "from": symbols[c.index], "to": list(c.to)}
                    for c in changes],
        "explanation": "; ".join(clauses) + ".",
    }


def reharmonize(request: dict[str, Any]) -> dict[str, Any]:
    """Alternatives to a progression in a key, one per technique that applies (API.md §6)."""
    req = require_object(request)
    if req.get("progression") is None:
        raise InvalidRequest("field 'progression' is required", field="progression")
    raw = req["progression"]
    parse_progression(raw, field="progression", allow_nc=True)  # validates, or raises
    # The input as written (NC as given); parse_progression has checked its shape.
    symbols = raw.replace("|", " ").split() if isinstance(raw, str) else \
        [v for v in raw if v != "|"]
    key = parse_key(get_str(req, "key", default="C", aliases=("keyContext",)))
    wanted = _requested_techniques(req)
    ctx = _analyse(symbols, key)
    alternatives = []
    for name, technique in TECHNIQUE_FUNCTIONS.items():
        if name in wanted:
            changes = technique(ctx)
            if changes:
                alternatives.append(_alternative(name, symbols, changes))
    return {"key": key.name, "progression": symbols, "alternatives": alternatives}
