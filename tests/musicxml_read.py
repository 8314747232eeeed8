"""MusicXML as notation programs write it back, read for the tests: each measure's chord
symbols at their beats (root, kind, degrees, bass, and the pitch classes that kind and degrees
make) and its barline, the measures in the order they are played (a repeat's measures twice,
as ireal-musicxml writes an iReal repeat)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass

from engine.compose.musicxml import KIND_TONES, spelled_pcs

STEPS = {"C": 0, "D": 2, "E": 4, "F": 5, "G": 7, "A": 9, "B": 11}


@dataclass(frozen=True)
class Symbol:
    bar: int
    beat: float
    root: int
    kind: str
    degrees: tuple[tuple[int, int, str], ...]
    bass: int | None

    @property
    def pcs(self) -> frozenset[int] | None:
        """Pitch classes above the root, None for a kind we do not know."""
        if self.kind not in KIND_TONES:
            return None
        return spelled_pcs(self.kind, list(self.degrees))


def _pc(element: ET.Element | None, prefix: str) -> int | None:
    if element is None:
        return None
    step = element.findtext(f"{prefix}-step")
    alter = float(element.findtext(f"{prefix}-alter") or 0)
    return None if step is None else (STEPS[step.strip()] + round(alter)) % 12


def read(xml: str) -> tuple[list[Symbol], int, list[str]]:
    """(every chord symbol, the number of measures played, each played measure's right
    barline style or '') of the first part; bars numbered as played."""
    root = ET.fromstring(xml.encode("utf-8"))
    part = root.find("part")
    assert part is not None
    measures: list[tuple[list[Symbol], str, bool, bool]] = []   # symbols, style, |: , :|
    divisions, beat_type = 1, 4
    for measure in part.findall("measure"):
        position = 0
        style = ""
        forward = backward = False
        symbols: list[Symbol] = []
        for element in measure:
            if element.tag == "attributes":
                divisions = int(element.findtext("divisions") or divisions)
                beat_type = int(element.findtext("time/beat-type") or beat_type)
            elif element.tag == "harmony":
                offset = int(element.findtext("offset") or 0)
                kind = (element.findtext("kind") or "").strip()
                degrees = tuple(
                    (int(d.findtext("degree-value") or 0),
                     round(float(d.findtext("degree-alter") or 0)),
                     (d.findtext("degree-type") or "").strip())
                    for d in element.findall("degree"))
                root_pc = _pc(element.find("root"), "root")
                if root_pc is None or kind == "none":
                    continue   # N.C.
                beats = (position + offset) / divisions * beat_type / 4
                symbols.append(Symbol(0, round(1 + beats, 3), root_pc, kind, degrees,
                                      _pc(element.find("bass"), "bass")))
            elif element.tag == "note" and element.find("chord") is None:
                position += int(element.findtext("duration") or 0)
            elif element.tag == "backup":
                position -= int(element.findtext("duration") or 0)
            elif element.tag == "forward":
                position += int(element.findtext("duration") or 0)
            elif element.tag == "barline":
                repeat = element.find("repeat")
                if repeat is not None:
                    forward |= repeat.get("direction") == "forward"
                    backward |= repeat.get("direction") == "backward"
                if element.get("location", "right") == "right":
                    style = (element.findtext("bar-style") or "").strip()
        measures.append((symbols, style, forward, backward))
    order: list[int] = []
    start, repeated, i = 0, set(), 0
    while i < len(measures):
        _, _, forward, backward = measures[i]
        if forward:
            start = i
        order.append(i)
        if backward and i not in repeated:
            repeated.add(i)
            i = start
            continue
        i += 1
    played: list[Symbol] = []
    for bar, index in enumerate(order, start=1):
        played += [Symbol(bar, s.beat, s.root, s.kind, s.degrees, s.bass)
                   for s in measures[index][0]]
    return played, len(order), [measures[index][1] for index in order]
