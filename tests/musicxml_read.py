"""MusicXML as notation programs write it back, read for the tests: each measure's chord
symbols at their beats (root, kind, degrees, bass, and the pitch classes that kind and degrees
make) and its barline."""

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
    """(every chord symbol, the number of measures, each measure's right barline style or
    '') of the first part."""
    root = ET.fromstring(xml.encode("utf-8"))
    part = root.find("part")
    assert part is not None
    symbols: list[Symbol] = []
    barlines: list[str] = []
    divisions, beat_type = 1, 4
    for number, measure in enumerate(part.findall("measure"), start=1):
        position = 0
        style = ""
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
                symbols.append(Symbol(number, round(1 + beats, 3), root_pc, kind, degrees,
                                      _pc(element.find("bass"), "bass")))
            elif element.tag == "note" and element.find("chord") is None:
                position += int(element.findtext("duration") or 0)
            elif element.tag == "backup":
                position -= int(element.findtext("duration") or 0)
            elif element.tag == "forward":
                position += int(element.findtext("duration") or 0)
            elif element.tag == "barline" and element.get("location", "right") == "right":
                style = (element.findtext("bar-style") or "").strip()
        barlines.append(style)
    return symbols, len(barlines), barlines
