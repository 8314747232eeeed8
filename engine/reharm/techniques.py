"""reharmonize (API.md §6): nine reharmonisation techniques over an analysed progression.

The request's chords are read against the key once (``engine.reharm.context.analyse``,
through analyze's rule grid and its ii-V brackets); each technique is then one small function
that finds where its rule (``engine.reharm.rules``) applies and returns the changes. A
technique applies everywhere it can in its single alternative, never touching one input chord
twice, so applying ``changes`` to the input gives the alternative; ``engine.reharm.bars`` lays
it back on the input's bars.

A dominant at the very end whose root lies a fifth above the first chord is read as a
turnaround that resolves to the top of the progression (``Cmaj7 Am7 Dm7 G7`` repeats).
Chords with a slash bass are kept as the user wrote them (the bass line is theirs); they still
serve as targets. ``NC`` is never changed. Every new root is spelled by interval and made
readable in ``_sym`` (no double accidentals; Fb, Cb, E#, B# only where the key's numeral for
the root names that letter, as Cbmaj7, bVI in Eb); a chord whose root stays keeps the user's
spelling of it (``_requality``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from engine.chords import (
    AWKWARD_SPELLINGS,
    LETTER_PC,
    Key,
    Spelled,
    by_function,
    on_letter,
    transpose_spelled,
)
from engine.reharm import rules
from engine.reharm.context import (
    Context,
    Slot,
    chain_start,
    fifth_above,
    ii_of,
    resolution,
    tonicised,
)


@dataclass(frozen=True, slots=True)
class Change:
    index: int
    to: tuple[str, ...]
    clause: str                # part of the explanation sentence naming the chords
    first: int | None = None   # an earlier input chord whose time ``to`` shares too (and
                               # which stays first): the ii of a Coltrane cycle's ii-V


Technique = Callable[[Context], list[Change]]


# --- spelling -----------------------------------------------------------------------------

@lru_cache(maxsize=1024)
def _above(root: Spelled, interval: rules.Interval) -> Spelled:
    return transpose_spelled(root, *interval)


def _readable(sp: Spelled, key: Key) -> Spelled:
    """A root with a double accidental, or a chromatic root spelled Fb, Cb, E# or B# off its
    function in the key, as its plain enharmonic: the natural if there is one (Abb -> G, F## ->
    G even in G#, whose scale has it), else the single accidental in the same direction (E## ->
    F#). Notes of the key's scale with at most one accidental keep their spelling (Cb in Gb,
    B# in G#), and so does a root on the letter of its numeral in the key (Cbmaj7, the bVI of
    Eb; Cb7, the bII7 of Bb): every chord is spelled as analyze names its function."""
    if abs(sp.alter) < 2 and (sp in key.scale or sp.name not in AWKWARD_SPELLINGS
                              or by_function(sp, key)):
        return sp
    if sp.pc in LETTER_PC:
        return on_letter(sp.pc, LETTER_PC.index(sp.pc))
    plain = _enharmonic(sp)
    assert plain is not None          # a natural is returned above
    return plain


def _plain(sp: Spelled) -> Spelled:
    """Fb, Cb, E#, B# as E, B, F, C; any other root as it is."""
    return on_letter(sp.pc, LETTER_PC.index(sp.pc)) if sp.name in AWKWARD_SPELLINGS else sp


def _enharmonic(sp: Spelled) -> Spelled | None:
    """The same pitch on the neighbouring letter (Cb -> B, Db -> C#, E# -> F, Ebb -> D);
    None for a natural, whose enharmonics are all double accidentals."""
    if sp.alter == 0:
        return None
    return on_letter(sp.pc, (sp.letter + (1 if sp.alter > 0 else -1)) % 7)


def _flat_side(sp: Spelled, key: Key) -> Spelled:
    """A sharp root as its flat or natural enharmonic when that reads well (D# -> Eb, B# ->
    C): tonal centres reached by major thirds read best on the flat side."""
    other = _enharmonic(sp) if sp.alter > 0 else None
    return other if other is not None and _readable(other, key) == other else sp


def _spell(base: Spelled, intervals: tuple[rules.Interval, ...], key: Key) -> tuple[Spelled, ...]:
    """New roots at ``intervals`` above ``base``, spelled as one group so that chords that
    belong together read in one family: by interval from ``base`` when every root reads well,
    else from ``base``'s enharmonic (the backdoor pair of Cbmaj7 is Em7 A7, not Fbm7 A7 or
    Fbm7 Bbb7; the ii-V of E#m7 in C# is Gm7b5 C7b9, not F##m7b5 B#7b9), else each root made
    readable on its own."""
    for start in (base, _enharmonic(base)):
        if start is not None:
            roots = tuple(_above(start, interval) for interval in intervals)
            if all(_readable(r, key) == r for r in roots):
                return roots
    return tuple(_readable(_above(base, interval), key) for interval in intervals)


def _sym(root: Spelled, quality: str, key: Key) -> str:
    """A new chord on a new root. Every new root is made readable here (``_readable``),
    whichever technique computed it, so no technique can write F##m7b5 or Bbb7."""
    return _readable(root, key).name + quality


def _requality(s: Slot, quality: str) -> str:
    """The user's chord with a new quality: its root stays as they spelled it (Emaj7 in Cb
    becomes Em7, not Fbm7)."""
    return s.root.name + quality


def _repeats(ctx: Context, i: int, pc: int) -> bool:
    """A new dominant on ``pc`` at ``i`` would only repeat the dominant written before it (Oleo's
    bridge C7 | C7 | F7 would become C7 | C7 | C7)."""
    return i > 0 and ctx.slots[i - 1].family == "dominant" and ctx.slots[i - 1].pc == pc


# --- the nine techniques --------------------------------------------------------------------

def tritone_sub(ctx: Context) -> list[Change]:
    # Right to left, and never both a dominant and the chord it resolves to: each substitute
    # must still slide down a half step onto the chord written after it (A7 D7 G7 C becomes
    # Eb7 D7 Db7 C, a chromatic line).
    out: list[Change] = []
    taken: set[int] = set()
    fed: set[int] = set()
    for i in reversed(range(len(ctx.slots))):
        s, j = ctx.slots[i], resolution(ctx, i)
        if j is None or not s.replaceable or j in taken or i in fed:
            continue
        assert s.chord is not None
        sub = _above(s.root, rules.TRITONE)
        if _repeats(ctx, i, sub.pc):
            continue
        new = _sym(sub, rules.TRITONE_QUALITY.get(s.chord.quality, "7"), ctx.key)
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
    # A modal vamp gets no functional cadence (So What), and a passing diminished chord keeps
    # its chromatic line into the chord after it (Body and Soul's Fm7 Edim7 Ebm7).
    out: list[Change] = []
    if ctx.modal:
        return out
    for i in range(1, len(ctx.slots)):
        prev, t = ctx.slots[i - 1], ctx.slots[i]
        if not t.target or prev.chord is None or fifth_above(prev, t) \
                or prev.pc == t.pc or prev.family == "diminished":
            continue
        ii_q, v_q = rules.APPROACH_QUALITIES[_approach_mode(ctx, t)]
        ii_root, v_root = _spell(t.root, (rules.SECOND_UP, rules.FIFTH_UP), ctx.key)
        ii, v = _sym(ii_root, ii_q, ctx.key), _sym(v_root, v_q, ctx.key)
        out.append(Change(i - 1, (prev.symbol, ii, v),
                          f"{t.symbol} is approached by its own ii-V, {ii} {v}"))
    return out


def _borrowed_ii(ctx: Context, i: int) -> Change | None:
    """The ii of a ii-V keeps its function: it is never swapped for another degree's chord
    (ATTYA's Fm7 Bb7, Solar's Fm7 Bb7, Autumn Leaves' Cm7 F7), but it may borrow the
    half-diminished ii of the parallel minor ii-V (Fm7b5 Bb7 Ebmaj7)."""
    s = ctx.slots[i]
    assert s.chord is not None
    quality = rules.TO_HALF_DIMINISHED.get(s.chord.quality)
    if quality is None:
        return None
    new = _requality(s, quality)
    target = _spell(s.root, (rules.FIFTH_UP_FROM_II,), ctx.key)[0].name
    return Change(i, (new,), f"{s.symbol} becomes {new}, the half-diminished ii of the "
                             f"ii-V into {target}, borrowed from {target} minor")


def modal_interchange(ctx: Context) -> list[Change]:
    # A chord a secondary dominant resolves to keeps its quality: E7 asks for Am7, and
    # Bm7b5 E7 Abmaj7 would swap the chord the ii-V leads to. The picardy third is the one
    # borrowing made on a resolution, that of the key's own V7 to its tonic, and a modal vamp
    # has none.
    out = []
    last = len(ctx.slots) - 1
    tonic = ctx.key.tonic.name
    for i, s in enumerate(ctx.slots):
        if not (s.replaceable and s.diatonic and s.degree is not None):
            continue
        assert s.chord is not None
        if i in ctx.iis and not (tonicised(ctx, i) or i in ctx.arrivals):
            change = _borrowed_ii(ctx, i)
            if change is not None:
                out.append(change)
            continue
        rule = rules.BORROWED.get((ctx.key.mode, s.degree))
        if rule is None:
            continue
        shift, qualities, final_only = rule
        if s.chord.quality not in qualities or (final_only and (i != last or ctx.modal)) \
                or (s.degree != 1 and (tonicised(ctx, i) or i in ctx.arrivals)):
            continue
        new = _requality(s, qualities[s.chord.quality]) if shift == rules.SAME_ROOT \
            else _sym(_above(s.root, shift), qualities[s.chord.quality], ctx.key)
        if any(0 <= j < len(ctx.slots) and ctx.slots[j].pc == s.pc
               and ctx.slots[j].symbol != s.symbol for j in (i - 1, i + 1)):
            continue  # a line on one root (Gm Gm(maj7) Gm7 Gm6, E9 Em9) keeps its moving voice
        source = f"{tonic} {rules.BORROWED_FROM[(ctx.key.mode, s.degree)]}"
        out.append(Change(i, (new,), f"{s.symbol} becomes {new}, borrowed from {source}"))
    return out


def secondary_dominants(ctx: Context) -> list[Change]:
    # Right to left: a chord whose root moves cannot also be the target of the chord before it
    # (Dm7 Em7 Fmaj7 G7 gives B7 Em7 D7 G7), while a same-root change keeps the chain of
    # fifths intact (Am7 Dm7 G7 gives A7 D7 G7).
    # A chord whose root would move is kept when it is an arrival (Stella's Cm7 after G7), the
    # ii of a ii-V (or ii-subV), or the first bar of a held chord (where that chord arrives);
    # and no chord becomes the dominant already before it (Oleo's bridge C7 | C7 | F7 | F7
    # keeps its F7).
    out: list[Change] = []
    moved: set[int] = set()
    for i in reversed(range(len(ctx.slots) - 1)):
        s, t = ctx.slots[i], ctx.slots[i + 1]
        if not (t.target and t.degree not in (None, 1) and s.replaceable and s.diatonic) \
                or i + 1 in moved:
            continue
        if fifth_above(s, t):
            if s.family == "dominant":
                continue  # already the V7 of its target
            root = s.root
            new = _requality(s, rules.DOMINANT_QUALITY)  # same root: Am7 -> A7 before Dm7
        elif s.degree != 1:
            root = _above(t.root, rules.FIFTH_UP)
            if i in ctx.arrivals or i in ctx.iis or s.pc == t.pc:
                continue
            new = _sym(root, rules.DOMINANT_QUALITY, ctx.key)
        else:
            continue  # the tonic only turns into its own dominant seventh (I7 -> IV)
        if _repeats(ctx, i, root.pc):
            continue  # D7 | Dm7 G7 keeps its Dm7: D7 D7 G7 would only repeat the D7
        if root.pc != s.pc:
            moved.add(i)
        out.append(Change(i, (new,), f"{s.symbol} becomes {new}, the V7 of {t.symbol}"))
    return out


def dominant_chain(ctx: Context) -> list[Change]:
    # The chord before the dominants that resolve into a target (the head) becomes the
    # dominants a fifth and two fifths above them. A chain adds CHAIN_LENGTH dominants or does
    # not apply: with one of them already written before the head (A7 Dm7 G7 C) it would only
    # turn the head into its same-root V7, secondary_dominants' change (A7 D7 G7 C).
    # Right to left, as tritone_sub: a chain never resolves into a chord another chain
    # replaced, and never replaces a chord another chain runs through or resolves to, nor one
    # a written dominant resolves to (B7 Emaj7 in All the Things You Are keeps its arrival).
    out: list[Change] = []
    taken: set[int] = set()
    fed: set[int] = set()
    slots = ctx.slots
    for d in reversed(range(len(slots))):
        t = resolution(ctx, d)
        if t is None or not slots[t].target:
            continue
        k = chain_start(ctx, d)
        s = k - 1  # the head: not the tonic, not the target, not the goal of a dominant,
        # not a passing diminished chord
        if s < 0 or s == t or s in fed or not slots[s].replaceable or slots[s].degree == 1 \
                or tonicised(ctx, s) or slots[s].family == "diminished":
            continue
        roots = _spell(slots[k].root, rules.CHAIN_STEPS, ctx.key)
        written = s > 0 and slots[s - 1].family == "dominant" \
            and any(r.pc == slots[s - 1].pc for r in roots)
        chain_indexes = {*range(s, d + 1), t}
        if written or chain_indexes & taken:
            continue
        new = tuple(_sym(r, rules.DOMINANT_QUALITY, ctx.key) for r in roots)
        chain = " ".join((*new, *(x.symbol for x in slots[k:d + 1])))
        out.append(Change(s, new, f"{slots[s].symbol} becomes {' '.join(new)}, so the "
                                  f"dominants {chain} fall by fifths into {slots[t].symbol}"))
        taken.add(s)
        fed |= chain_indexes - {s}
    return out


def coltrane_changes(ctx: Context) -> list[Change]:
    out = []
    for d, v in enumerate(ctx.slots):
        t = resolution(ctx, d)
        if t is None or ctx.slots[t].family != "major" or not ctx.slots[t].target \
                or ii_of(ctx, d) is None or not v.replaceable:
            continue
        # The centres spelled as a group, then on the flat side (Giant Steps in B: Bb7
        # Ebmaj7, not A#7 D#maj7); each dominant spelled from its centre (F#7 Bmaj7).
        # The centres are keys of their own, not functions of this one: written as Coltrane
        # wrote them (B, not Cb, in Eb).
        centres = [_flat_side(_plain(c), ctx.key)
                   for c in _spell(ctx.slots[t].root, rules.COLTRANE_CENTRES, ctx.key)]
        dom_q, tonic_q = rules.COLTRANE_QUALITIES
        new = tuple(sym for c in centres
                    for sym in (_sym(_spell(c, (rules.FIFTH_UP,), ctx.key)[0], dom_q, ctx.key),
                                _sym(c, tonic_q, ctx.key)))
        new = (*new, v.symbol)
        names = ", ".join(c.name for c in centres)
        # The cycle takes the ii-V's time, the ii first (Countdown: Em7 F7 | Bbmaj7 ...).
        out.append(Change(d, new, f"{v.symbol} becomes {' '.join(new)}, Coltrane's cycle of "
                                  f"major thirds through {names} and back to "
                                  f"{ctx.slots[t].symbol}", first=ii_of(ctx, d)))
    return out


def backdoor(ctx: Context) -> list[Change]:
    out: list[Change] = []
    for d, v in enumerate(ctx.slots):
        t = resolution(ctx, d)
        if t is None or ctx.slots[t].family != "major" or not ctx.slots[t].target \
                or not v.replaceable:
            continue
        target = ctx.slots[t]
        (iv_interval, iv_quality), (bvii_interval, bvii_quality) = \
            rules.BACKDOOR_PREDOMINANT, rules.BACKDOOR_DOMINANT
        iv_root, bvii_root = _spell(target.root, (iv_interval, bvii_interval), ctx.key)
        bvii = _sym(bvii_root, bvii_quality, ctx.key)
        s = ii_of(ctx, d)
        if s is not None and ctx.slots[s].replaceable and all(c.index != s for c in out):
            iv = _sym(iv_root, iv_quality, ctx.key)
            out.append(Change(s, (iv,), f"{ctx.slots[s].symbol} {v.symbol} become {iv} {bvii}, "
                                        f"the backdoor iv7-bVII7 that resolves up a whole "
                                        f"step to {target.symbol}"))
            out.append(Change(d, (bvii,), ""))
        elif not _repeats(ctx, d, bvii_root.pc):
            out.append(Change(d, (bvii,), f"{v.symbol} becomes {bvii}, the backdoor dominant "
                                          f"that resolves up a whole step to {target.symbol}"))
    return out


def diminished_passing(ctx: Context) -> list[Change]:
    out = []
    for i in range(len(ctx.slots) - 1):
        a, b = ctx.slots[i], ctx.slots[i + 1]
        if a.chord is None or not b.target or a.family == "diminished":
            continue
        # The line is the bass's: C/E Dm7 passes through Ebdim7 (E Eb D), not C#dim7.
        step = rules.PASSING_STEPS.get((b.bass.pc - a.bass.pc) % 12)
        if step is None:
            continue
        anchor, interval = step
        dim = _sym(_above(b.bass if anchor == "target" else a.bass, interval),
                   rules.PASSING_QUALITY, ctx.key)
        direction = "up" if anchor == "target" else "down"
        out.append(Change(i, (a.symbol, dim), f"{dim} passes chromatically from {a.symbol} "
                                              f"{direction} to {b.symbol}"))
    return out


def related_ii(ctx: Context) -> list[Change]:
    # Each dominant that arrives (the first of a held one) gets the ii a fifth above it,
    # sharing its time: D7 | G7 becomes Am7 D7 | Dm7 G7. Not a dominant already after its
    # ii (or after the ii of its substitute's ii-V), nor the I7 of the key (the blues's tonic),
    # nor a tritone substitute (its ii-V is the ii of the dominant it stands for).
    out = []
    slots = ctx.slots
    for d, v in enumerate(slots):
        if v.family != "dominant" or not v.replaceable or v.pc == ctx.key.tonic.pc:
            continue
        before = slots[d - 1] if d > 0 else None
        if before is not None and (before.pc == v.pc or d - 1 in ctx.iis):
            continue
        # where the dominant goes, past the bars it is held for (G7 | G7 | Cm7)
        t = next((x for x in (*slots[d + 1:], *slots[:d]) if x.pc != v.pc), v)
        if t.pc >= 0 and (v.pc - t.pc) % 12 == 1:
            continue
        mode = "minor" if fifth_above(v, t) and t.family == "minor" else "major"
        ii = _sym(_spell(v.root, (rules.RELATED_II,), ctx.key)[0],
                  rules.RELATED_II_QUALITY[mode], ctx.key)
        out.append(Change(d, (ii, v.symbol), f"{v.symbol} is preceded by its related ii, {ii}"))
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
    "related_ii": related_ii,
}
assert tuple(TECHNIQUE_FUNCTIONS) == rules.TECHNIQUES
