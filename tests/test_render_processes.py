"""The render processes share one SoundFont (``server.http.render.render_pool``): it is loaded
once, in the fork server, before any render process is forked, and each render process plays
it without loading its own; the audio is the same bytes as a render in this process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from engine.render import render_bytes
from tests.sf2 import write_tiny_sf2
from tests.test_render import b64, midi_of

REPO = Path(__file__).resolve().parent.parent
MIDI = b64(midi_of([(0.0, 0.5, 60, 90), (0.5, 0.5, 67, 90), (0.0, 1.0, 48, 70)]))

# A fresh interpreter: the fork server is one per process, started by the first pool.
SCENARIO = """
import asyncio, json, sys
from server.http.render import render_pool
from server.http.settings import Settings
from tests.test_render_processes import render_and_report

font = sys.argv[1]
pool = render_pool(Settings(render_workers=2, soundfont=font))

async def both():
    return await asyncio.gather(*(pool.run(render_and_report, font) for _ in range(2)))

try:
    print(json.dumps(asyncio.run(both())))
finally:
    pool.close()
"""


def render_and_report(font: str) -> tuple[int, list[tuple[str, int]], str]:
    """In a render process: its id, the SoundFont loads it has seen (inherited from the
    process it was forked from, or its own) and the audio's digest."""
    import time

    from engine.render import soundfont

    time.sleep(0.3)  # both slots busy at once: two processes
    _, facts = render_bytes({"midi": MIDI, "engine": "soundfont"}, soundfont=font)
    return os.getpid(), soundfont.LOADS, facts["sha256"]


def test_render_processes_share_one_soundfont_load_and_make_the_same_audio(
        tmp_path: Path) -> None:
    font = str(write_tiny_sf2(tmp_path))
    done = subprocess.run([sys.executable, "-c", SCENARIO, font], cwd=REPO, capture_output=True,
                          text=True, timeout=120, check=True)
    reports: list[Any] = json.loads(done.stdout.splitlines()[-1])
    pids = {pid for pid, _, _ in reports}
    assert len(pids) == 2  # two render processes
    loads = [loads for _, loads, _ in reports]
    # one load each has seen, the same one, made in neither of them (the fork server)
    assert loads[0] == loads[1] and len(loads[0]) == 1
    (path, loader), = loads[0]
    assert path == font and loader not in pids
    expected = render_bytes({"midi": MIDI, "engine": "soundfont"}, soundfont=font)[1]["sha256"]
    assert {sha for _, _, sha in reports} == {expected}
