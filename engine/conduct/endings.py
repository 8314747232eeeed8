"""How an arrangement of the user's own progression ends (API.md §7; grid 4).

A progression that stops on its turnaround (Blue Bossa's ``Dm7b5 G7alt``) would otherwise end
the piece on the dominant. Unless the prompt asks for a vamp or a loop (``Plan.loop``), the
arrangement ends on the home tonic: after the last pass of the progression come the bars of
``ending_bars``, chosen by where the last chord stands against the tonic (``AFTER``):

- already on the tonic: nothing is added (``ending`` "tonic");
- on a chord that resolves there by itself (V, the tritone substitute bII, vii, the plagal IV):
  one bar of the tonic chord (``ending`` "added");
- on the ii: its V, then the tonic;
- anywhere else: the mode's approach (``forms.APPROACH``: ii7 V7, iiø7 V7 in minor), then the
  tonic.

When ``durationSec`` holds whole passes but not the added bars as well (no tempo within
bounds fits them), the piece ends open rather than being refused (``engine.conduct``).

The tonic chord is the progression's own (its first chord on the tonic's root, ``Cm6`` stays
``Cm6``), else the mode's (``TONIC_CHORD``).
"""

from __future__ import annotations

from engine.chords import NO_CHORD, Spelled, parse
from engine.conduct.forms import APPROACH, realise

# Semitones from the tonic up to the root of the progression's last chord -> the numerals that
# lead home before the tonic bar ("" adds the tonic bar alone). Missing: the mode's APPROACH.
AFTER: dict[int, str] = {7: "", 1: "", 11: "", 5: "", 2: "V7"}

TONIC_CHORD: dict[str, str] = {
    "major": "Imaj7", "minor": "i7", "dorian": "i7", "phrygian": "i7", "aeolian": "i7",
    "lydian": "Imaj7", "mixolydian": "I7", "locrian": "iø7",
}

ENDINGS = ("tonic", "added", "open")   # the values of ``conductor.ending`` for a progression


def ending_bars(bars: list[list[str]], tonic: Spelled, mode: str, loop: bool
                ) -> tuple[list[list[str]], str]:
    """The bars to play after the last pass of ``bars`` (symbols per bar), and the
    ``conductor.ending`` that says what was done: "open" when a loop was asked for, "tonic"
    when the progression already ends home, "added" when bars were added."""
    if loop:
        return [], "open"
    sounding = [s for bar in bars for s in bar if s not in NO_CHORD]
    if not sounding:
        return [], "open"
    last = parse(sounding[-1])
    step = (last.root.pc - tonic.pc) % 12
    if step == 0:
        return [], "tonic"
    home = next((s for s, c in zip(sounding, map(parse, sounding), strict=True)
                 if c.root.pc == tonic.pc and c.bass is None),
                realise(TONIC_CHORD.get(mode, "I"), tonic))
    lead = AFTER.get(step, APPROACH.get(mode, ""))
    approach = [realise(n, tonic) for n in lead.split()]
    return ([approach] if approach else []) + [[home]], "added"
