"""Render figures: real-time factor per engine and SoundFont for a 60 s and a 120 s conduct
arrangement (one core, the render alone: the arrangement is conducted beforehand; the median of
five renders), encode time per format, the memory of the server's render processes (RSS, PSS
and USS from /proc/PID/smaps_rollup: two render processes forked from the fork server that
loaded the SoundFont, beside a process that loads its own, as each render process did before),
and ``GET /health`` p50 on a real ``harmony serve`` while four renders run.

Run: .venv/bin/python bench/run_render.py        (add --quick for the first two parts only)
     .venv/bin/python bench/run_render.py --basic  (the built-in synth alone: its real-time
     factor, wall and CPU, and its time per lane and stage)
"""

from __future__ import annotations

import base64
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.shared import timed  # noqa: E402
from engine import conduct  # noqa: E402
from engine.render.basic import render_basic  # noqa: E402
from engine.render.encode import encode  # noqa: E402
from engine.render.events import read_midi  # noqa: E402
from engine.render.soundfont import find_soundfont, render_soundfont  # noqa: E402
from tests.sf2 import write_tiny_sf2  # noqa: E402

PROMPT = "up-tempo funk in E minor, builds"


def engines(tmp: Path) -> list[tuple[str, object]]:
    found = [("basic", None), ("soundfont tiny.sf2", write_tiny_sf2(tmp))]
    system = find_soundfont(env={})
    if system is not None:
        found.append((f"soundfont {system.resolve().name}", system))
    return found


def realtime(tmp: Path) -> None:
    for seconds in (60, 120):
        arrangement = conduct({"prompt": PROMPT, "durationSec": seconds, "seed": 1})
        notes = read_midi(base64.b64decode(arrangement["midi"]))
        audio_s = notes.length + 1.5
        for name, font in engines(tmp):
            def run(font: object = font, notes: object = notes) -> None:
                if font is None:
                    render_basic(notes, 44100, 2)  # type: ignore[arg-type]
                else:
                    render_soundfont(notes, font, 44100, 2)  # type: ignore[arg-type]
            run()  # load the font / compile the kernels
            t = timed(run, 5)
            print(f"render {seconds:>3} s arrangement ({len(notes)} notes), {name:<28} "
                  f"{t * 1000:7.1f} ms  {audio_s / t:7.0f}x real time", flush=True)
    samples = render_basic(notes, 44100, 2)
    for fmt in ("wav", "flac", "mp3"):
        t = timed(lambda fmt=fmt: encode(samples, 44100, fmt), 3, best=True)
        size = len(encode(samples, 44100, fmt))
        print(f"encode {fmt:<4} {audio_s:.0f} s of stereo 44.1 kHz: {t * 1000:7.1f} ms, "
              f"{size / 1e6:.1f} MB", flush=True)


LANES = {"harmony": 0, "pattern": 1, "bass": 2, "drums": 9}  # conduct's MIDI channels


def basic_synth() -> None:
    """The built-in synth: the 60 s and 120 s arrangements, wall and CPU time (median of five;
    CPU time is the figure a loaded machine moves least), then where the 120 s render's CPU
    goes: each lane's share (the whole render less the render without that lane), the rest
    ('mix and gain': the mix made, its pages touched, scaled to 16 bits; the cost model; the
    sounds made once), and the WAV encode after it."""
    from dataclasses import replace

    for seconds in (60, 120):
        arrangement = conduct({"prompt": PROMPT, "durationSec": seconds, "seed": 1})
        notes = read_midi(base64.b64decode(arrangement["midi"]))
        audio_s = notes.length + 1.5

        def run(notes: object = notes) -> None:
            render_basic(notes, 44100, 2)  # type: ignore[arg-type]
        run()
        wall, cpu = timed(run, 5), timed(run, 5, clock=time.thread_time)
        print(f"basic {seconds:>3} s arrangement ({len(notes)} notes): wall {wall * 1000:6.1f} ms "
              f"{audio_s / wall:6.0f}x real time; CPU {cpu * 1000:6.1f} ms "
              f"{audio_s / cpu:6.0f}x", flush=True)

    def cpu_without(channel: int) -> float:
        keep = notes.channel != channel
        part = replace(notes, start=notes.start[keep], end=notes.end[keep],
                       channel=notes.channel[keep], program=notes.program[keep],
                       pitch=notes.pitch[keep], velocity=notes.velocity[keep])
        return timed(lambda: render_basic(part, 44100, 2), 5, clock=time.thread_time)

    whole = timed(lambda: render_basic(notes, 44100, 2), 5, clock=time.thread_time)
    lanes = {lane: whole - cpu_without(channel) for lane, channel in LANES.items()}
    samples = render_basic(notes, 44100, 2)
    wav = timed(lambda: encode(samples, 44100, "wav"), 5, clock=time.thread_time)
    print("  120 s, CPU ms by stage: "
          + ", ".join(f"{lane} {t * 1000:.1f}" for lane, t in lanes.items())
          + f", mix and gain {(whole - sum(lanes.values())) * 1000:.1f} "
          + f"(whole {whole * 1000:.1f})"
          + f"; WAV encode {wav * 1000:.1f}", flush=True)


def rollup(pid: int | str = "self") -> dict[str, float]:
    """RSS, PSS and USS (private clean + dirty) of a process, MB."""
    kb = {}
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            name, _, rest = line.partition(":")
            if rest.strip().endswith("kB"):
                kb[name] = int(rest.split()[0])
    return {"RSS": kb["Rss"] / 1024, "PSS": kb["Pss"] / 1024,
            "USS": (kb["Private_Clean"] + kb["Private_Dirty"]) / 1024}


def _figures(m: dict[str, float]) -> str:
    return "  ".join(f"{k} {v:4.0f} MB" for k, v in m.items())


# A process that loads its own SoundFont and renders, as each render process did before the
# fork server: its memory after two 120 s renders (soundfont, basic).
ALONE = f"""
import json
from engine import conduct
from engine.render import render_bytes
from bench.run_render import rollup
a = conduct({{'prompt': {PROMPT!r}, 'durationSec': 120, 'seed': 1}})
for engine in ('soundfont', 'basic'):
    render_bytes({{'arrangement': a, 'engine': engine}})
print(json.dumps(rollup()))
"""
FORKED = f"""
import asyncio, json
import multiprocessing.forkserver
from engine import conduct
from bench.run_render import rollup
from server.http.render import render_job, render_pool
from server.http.settings import Settings

if __name__ == '__main__':
    a = conduct({{'prompt': {PROMPT!r}, 'durationSec': 120, 'seed': 1}})
    pool = render_pool(Settings(render_workers=2))

    async def renders():
        for engines in (('soundfont', 'basic'), ('basic', 'soundfont')):
            await asyncio.gather(*(pool.run(render_job, {{'arrangement': a, 'engine': e}},
                                            None, 300) for e in engines))
    try:
        asyncio.run(renders())
        server = multiprocessing.forkserver._forkserver._forkserver_pid  # no public name
        print(json.dumps({{"fork server": rollup(server),
                          **{{f"render process {{i + 1}}": rollup(pid)
                             for i, pid in enumerate(pool.processes())}}}}))
    finally:
        pool.close()
"""


def memory() -> None:
    """Each render process's memory, sharing the fork server's SoundFont, beside a process
    holding its own (the design before): the unique memory (USS) is what each adds."""
    font = find_soundfont(env={})
    print(f"memory of render processes (SoundFont {font.name if font else 'none'}; two 120 s "
          "renders each, one per engine):", flush=True)
    alone = subprocess.run([sys.executable, "-c", ALONE], cwd=REPO, capture_output=True,
                           text=True, check=True)
    print(f"  a process with its own SoundFont (before)  "
          f"{_figures(json.loads(alone.stdout.splitlines()[-1]))}", flush=True)
    forked = subprocess.run([sys.executable, "-c", FORKED], cwd=REPO, capture_output=True,
                            text=True, check=True)
    for name, figures in json.loads(forked.stdout.splitlines()[-1]).items():
        print(f"  {name:<42} {_figures(figures)}", flush=True)


def health_during_renders(tmp: Path) -> None:
    from tests.mcp_live import running_server

    with running_server(tmp) as live:
        def get() -> float:
            start = time.perf_counter()
            with urllib.request.urlopen(live.url + "/health") as r:
                r.read()
            return time.perf_counter() - start

        quiet = []
        for _ in range(200):
            quiet.append(get())
            time.sleep(0.02)
        body = json.dumps({"prompt": PROMPT, "durationSec": 120, "seed": 1}).encode()
        codes: list[int] = []

        def render() -> None:
            request = urllib.request.Request(live.url + "/v2/render", data=body, headers={
                "authorization": f"Bearer {live.key}", "content-type": "application/json"})
            try:
                with urllib.request.urlopen(request, timeout=300) as r:
                    codes.append(r.status)
            except urllib.error.HTTPError as e:
                codes.append(e.code)

        threads = [threading.Thread(target=render) for _ in range(4)]
        for t in threads:
            t.start()
        busy = []
        while any(t.is_alive() for t in threads):
            busy.append(get())
            time.sleep(0.02)  # under the flood throttle's 6,000 a minute
        for t in threads:
            t.join()
        print(f"/health p50 quiet {statistics.median(quiet) * 1000:.2f} ms, during 4 renders "
              f"{statistics.median(busy) * 1000:.2f} ms ({len(busy)} requests); render answers "
              f"{sorted(codes)} (1 process, queue 2: the fourth is 503 busy)", flush=True)


def main() -> int:
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} "
          f"on {os.cpu_count()} cores", flush=True)
    if "--basic" in sys.argv:
        basic_synth()
        return 0
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        realtime(tmp)
        memory()
        if "--quick" not in sys.argv:
            health_during_renders(tmp)
    print(f"this process's peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
