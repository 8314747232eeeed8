"""A tiny valid SoundFont 2 file, written from the specification (SoundFont 2.04, section 7):
one looped sample (4 cycles of a sine at A4 = 440 Hz), one instrument playing it over the whole
keyboard, presets 0-127 of bank 0 and a bank-128 kit, so SoundFont tests need no system
package. About 5 KB."""

from __future__ import annotations

import math
import struct
from pathlib import Path

RATE = 44_000          # 100 samples a cycle at 440 Hz: an exact loop
CYCLE = 100
SAMPLE_INSTRUMENT, KEY_RANGE, SAMPLE_ID, SAMPLE_MODES = 41, 43, 53, 54  # generator operators


def _chunk(tag: bytes, data: bytes) -> bytes:
    pad = b"\x00" if len(data) % 2 else b""
    return tag + struct.pack("<I", len(data)) + data + pad


def _list(tag: bytes, *chunks: bytes) -> bytes:
    return _chunk(b"LIST", tag + b"".join(chunks))


def _name(text: str) -> bytes:
    return text.encode("ascii")[:19].ljust(20, b"\x00")


def tiny_sf2() -> bytes:
    cycles = 4
    wave = [round(12_000 * math.sin(2 * math.pi * i / CYCLE)) for i in range(CYCLE * cycles)]
    samples = struct.pack(f"<{len(wave) + 46}h", *wave, *([0] * 46))  # 46 zeros after a sample
    info = _list(b"INFO", _chunk(b"ifil", struct.pack("<HH", 2, 1)),
                 _chunk(b"isng", b"EMU8000\x00"), _chunk(b"INAM", b"harmony test font\x00"))
    sdta = _list(b"sdta", _chunk(b"smpl", samples))

    presets = [(p, 0) for p in range(128)] + [(0, 128)]
    phdr = b"".join(struct.pack("<20sHHHIII", _name(f"P{bank}-{p}"), p, bank, i, 0, 0, 0)
                    for i, (p, bank) in enumerate(presets))
    phdr += struct.pack("<20sHHHIII", _name("EOP"), 0, 0, len(presets), 0, 0, 0)
    pbag = b"".join(struct.pack("<HH", i, 0) for i in range(len(presets) + 1))
    pmod = struct.pack("<HHhHH", 0, 0, 0, 0, 0)
    pgen = b"".join(struct.pack("<HH", SAMPLE_INSTRUMENT, 0) for _ in presets)
    pgen += struct.pack("<HH", 0, 0)
    inst = struct.pack("<20sH", _name("sine"), 0) + struct.pack("<20sH", _name("EOI"), 1)
    ibag = struct.pack("<HH", 0, 0) + struct.pack("<HH", 3, 0)
    imod = struct.pack("<HHhHH", 0, 0, 0, 0, 0)
    igen = (struct.pack("<HBB", KEY_RANGE, 0, 127) + struct.pack("<HH", SAMPLE_MODES, 1)
            + struct.pack("<HH", SAMPLE_ID, 0) + struct.pack("<HH", 0, 0))
    shdr = struct.pack("<20sIIIIIBbHH", _name("sine"), 0, len(wave), CYCLE, CYCLE * 3, RATE,
                       69, 0, 0, 1)
    shdr += struct.pack("<20sIIIIIBbHH", _name("EOS"), 0, 0, 0, 0, 0, 0, 0, 0, 0)
    pdta = _list(b"pdta", _chunk(b"phdr", phdr), _chunk(b"pbag", pbag), _chunk(b"pmod", pmod),
                 _chunk(b"pgen", pgen), _chunk(b"inst", inst), _chunk(b"ibag", ibag),
                 _chunk(b"imod", imod), _chunk(b"igen", igen), _chunk(b"shdr", shdr))
    body = b"sfbk" + info + sdta + pdta
    return b"RIFF" + struct.pack("<I", len(body)) + body


def write_tiny_sf2(folder: Path) -> Path:
    path = folder / "tiny.sf2"
    path.write_bytes(tiny_sf2())
    return path
