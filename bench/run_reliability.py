"""The hostile inputs of issue 35, each timed in a process of its own (wall and CPU seconds,
stopped at ``--timeout``), with what it answered and what it left behind (stderr, disk): the
figures of the reliability table in ``docs/reliability.md``.

Run: .venv/bin/python bench/run_reliability.py [--timeout 60] [--only NAME ...]
The figures before the fixes: the same script over the earlier code, e.g.
    git archive fa782f4 | tar -x -C /tmp/base
    HARMONY_CODE=/tmp/base .venv/bin/python bench/run_reliability.py
(only public entry points are used, so the script runs on both).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import io
import json
import multiprocessing
import os
import random
import resource
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

CODE = Path(os.environ.get("HARMONY_CODE", Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(CODE))

Case = Callable[[Path], str]


# ------------------------------------------------------------------ inputs


def _smf(track: Any) -> bytes:
    import mido

    midi = mido.MidiFile(type=0, ticks_per_beat=480)
    midi.tracks.append(track)
    out = io.BytesIO()
    midi.save(file=out)
    return out.getvalue()


def endless_notes(count: int = 200_000, seconds: float = 299.0) -> bytes:
    """``count`` notes one a tick, never released (the issue: 200,000 in < 800 KB)."""
    import mido

    track = mido.MidiTrack(mido.Message("note_on", channel=n % 9, note=24 + n % 96,
                                        velocity=80, time=0 if n == 0 else 1)
                           for n in range(count))
    track.append(mido.MetaMessage("end_of_track", time=round(seconds * 960) - count))
    return _smf(track)


def chord_notes(count: int = 100_000, seconds: float = 299.0) -> bytes:
    """``count`` notes struck at once and held ``seconds``."""
    import mido

    track = mido.MidiTrack(mido.Message("note_on", channel=n % 9, note=24 + n % 96,
                                        velocity=80, time=0) for n in range(count))
    track.append(mido.Message("note_off", channel=0, note=24, velocity=0,
                              time=round(seconds * 960)))
    return _smf(track)


def big_composition() -> dict[str, Any]:
    """One 64-bar section played 16 times (1,024 bars), 39,000 melody notes (~670 KB)."""
    from engine.compose import compose

    comp = compose({"operations": [{"op": "create", "title": "Bomb", "key": "C",
                                    "progression": "A: " + " | ".join(["Dm7 G7", "Cmaj7"] * 32),
                                    "form": ["A"] * 16}]})["composition"]
    comp["tracks"].append({"id": "melody", "role": "melody", "program": 65, "channel": 3,
                           "events": {"A": [[i * 3, 24, 60 + i % 24, 80]
                                            for i in range(39_000)]}})
    return comp


# ------------------------------------------------------------------ cases


def _render(request: dict[str, Any]) -> str:
    from engine.errors import HarmonyError
    from engine.render import render_bytes

    try:
        _, facts = render_bytes(request)
    except HarmonyError as e:
        return f"{e.code} {e.details.get('field')}: {e.message[:90]}"
    return f"rendered {facts['durationSec']} s"


def render_endless(_: Path) -> str:
    return _render({"midi": base64.b64encode(endless_notes()).decode(), "engine": "basic",
                    "sampleRate": 48000})


def render_chord(_: Path) -> str:
    return _render({"midi": base64.b64encode(chord_notes()).decode(), "engine": "basic",
                    "sampleRate": 48000})


def render_300_seconds(_: Path) -> str:
    return _render({"prompt": "bossa nova in F, 97 bpm", "durationSec": 300, "engine": "basic",
                    "sampleRate": 22050, "channels": 1, "format": "flac"})


def _service(tmp: Path, calls: list[tuple[str, bytes]], **settings: Any) -> list[str]:
    """``calls`` through the app in-process (a developer key): each answer's status and code,
    with the seconds it took."""
    from server.api.schemas import OPERATIONS
    from tests.server_fixtures import bearer, make, new_key, running

    app, store = make(tmp, operations=OPERATIONS, **settings)
    _, secret = new_key(store, plan="developer")

    async def scenario() -> list[str]:
        said = []
        async with running(app, headers=bearer(secret)) as http:
            for path, body in calls:
                started = time.perf_counter()
                r = await http.post(path, content=body,
                                    headers={"content-type": "application/json"})
                code = r.json().get("error", {}).get("code", "") if r.status_code >= 400 else ""
                said.append(f"{r.status_code} {code} in {time.perf_counter() - started:.2f} s "
                            f"({len(r.content):,} bytes)")
        return said

    return asyncio.run(scenario())


def random_midi(tmp: Path) -> str:
    junk = base64.b64encode(random.Random(35).randbytes(200)).decode()
    return "; ".join(_service(tmp, [("/v2/render", json.dumps({"midi": junk}).encode())]))


def _stderr_of(fn: Callable[[], list[str]]) -> str:
    """``fn``'s answers and the bytes it wrote to stderr (the server's log)."""
    with contextlib.redirect_stderr(io.StringIO()) as err:
        answers = fn()
    return f"{answers[0]} (x{len(answers)}); stderr {len(err.getvalue().encode()):,} bytes"


def deep_json(tmp: Path) -> str:
    nested = b"[" * 254 + b"]" * 254
    comp = json.dumps(big_composition()["meta"]).encode()
    body = (b'{"composition": {"version": 1, "meta": ' + comp + b', "sections": [], "form": [], '
            b'"tracks": [], "extra": ' + nested + b'}, "operations": [{"op": "set_form", '
            b'"tempo": 120}]}')
    return _stderr_of(lambda: _service(tmp, [("/v2/compose", body)] * 10))


def _compose(request: dict[str, Any]) -> str:
    from engine.compose import compose
    from engine.errors import HarmonyError

    try:
        answer = compose(request)
    except HarmonyError as e:
        return f"{e.code} {e.details.get('field')}: {e.message[:80]}"
    return f"answered {len(json.dumps(answer)):,} bytes"


def compose_64_exports(_: Path) -> str:
    from engine.compose.operation import FORMATS

    return _compose({"composition": big_composition(),
                     "operations": [{"op": "export", "formats": list(FORMATS)}] * 64})


def compose_8_musicxml(_: Path) -> str:
    return _compose({"composition": big_composition(),
                     "operations": [{"op": "export", "formats": ["musicxml"]}] * 8})


def compose_every_format_once(_: Path) -> str:
    from engine.compose.operation import FORMATS

    return _compose({"composition": big_composition(),
                     "operations": [{"op": "export", "formats": list(FORMATS)}]})


def compose_64_operations(_: Path) -> str:
    return _compose({"composition": big_composition(),
                     "operations": [{"op": "set_form", "form": ["A"] * 16}] * 64})


def _db_bytes(path: Path) -> int:
    with sqlite3.connect(path) as c:
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path.stat().st_size


def log_failed_uploads(tmp: Path) -> str:
    """30 invalid 1 MiB compose calls: what they add to the database."""
    body = b'{"operations": "' + b"z" * ((1 << 20) - 40) + b'"}'
    db = tmp / "h.db"
    answers = _service(tmp, [("/v2/compose", body)] * 30, db_path=str(db))
    return f"{answers[0]}; database {_db_bytes(db) / 1e6:.2f} MB after 30 calls"


def log_retention(tmp: Path) -> str:
    """100,000 rows of 100 days ago (1 KiB bodies), then a pass of the writer's retention."""
    from server.accounts.requestlog import RequestLog
    from server.accounts.store import LogRow, Store

    db = tmp / "h.db"
    store = Store(str(db))
    old = time.time() - 100 * 86400
    for start in range(0, 100_000, 10_000):
        store.write_log([LogRow(old + n, None, "rest", "analyze", 400, "invalid_chord", 50,
                                b"b" * 1024) for n in range(start, start + 10_000)], 365)
    filled = _db_bytes(db)
    log = RequestLog(store, retention_days=30)
    if hasattr(log, "prune"):
        log.prune(force=True)
    else:  # the earlier code: its retention ran with every written batch
        store.write_log([LogRow(time.time(), None, "rest", "analyze", 200, None, 50, None)], 30)
    rows = store.conn.execute("SELECT count(*) FROM request_log").fetchone()[0]
    return f"database {filled / 1e6:.1f} MB -> {_db_bytes(db) / 1e6:.1f} MB, {rows:,} rows left"


def _corpus(tmp: Path, name: str, text: str) -> str:
    from engine.corpus import build_index, load_paths

    path = tmp / name
    path.write_text(text, encoding="utf-8")
    try:
        songs, problems = load_paths([path])
        build_index(songs)
    except Exception as e:
        return f"import aborted: {type(e).__name__}: {str(e)[:60]}"
    said = f"{len(songs):,} songs"
    if problems.items:
        said += f"; skipped: {problems.items[0].message[:70]}"
    return said


def corpus_title_4k(tmp: Path) -> str:
    return _corpus(tmp, "t.cho", "{title:" + " " * 4_000 + "x\n[C]la\n")


def corpus_title_20k(tmp: Path) -> str:
    return _corpus(tmp, "t.cho", "{title:" + " " * 20_000 + "x\n[C]la\n")


def corpus_brackets(tmp: Path) -> str:
    return _corpus(tmp, "b.cho", "{title: B}\n" + "[" * 200_000 + "\n[C]la\n")


def corpus_one_title(tmp: Path) -> str:
    chart = {"Title": "Same", "Sections": [{"MainSegment": {"Chords": "C|F"}}]}
    return _corpus(tmp, "same.json", json.dumps([chart] * 30_000))


def corpus_deep(tmp: Path) -> str:
    return _corpus(tmp, "deep.json", "[" * 100_000 + "]" * 100_000)


def corpus_key(tmp: Path) -> str:
    return _corpus(tmp, "k.json", json.dumps([{"Title": "K", "Key": 7, "Sections": [
        {"MainSegment": {"Chords": "C|F"}}]}]))


def corpus_sections(tmp: Path) -> str:
    return _corpus(tmp, "s.txt", "irealbook://Many=Comp=Style=C=n=" + "*A[C|F]" * 100_000)


def corpus_bars(tmp: Path) -> str:
    return _corpus(tmp, "b.txt", "Title = Long\n" + "| C " * 50_000 + "|\n")


CASES: dict[str, Case] = {f.__name__: f for f in (
    render_endless, render_chord, render_300_seconds, random_midi, deep_json,
    compose_64_exports, compose_8_musicxml, compose_every_format_once, compose_64_operations,
    log_failed_uploads, log_retention, corpus_title_4k, corpus_title_20k, corpus_brackets,
    corpus_one_title, corpus_deep, corpus_key, corpus_sections, corpus_bars)}


# ------------------------------------------------------------------ the runner


def _child(name: str, out: Any) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        try:
            said = CASES[name](Path(tmp))
        except Exception as e:
            said = f"raised {type(e).__name__}: {str(e)[:80]}"
        wall = time.perf_counter() - started
    usage = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime + children.ru_utime + children.ru_stime
    out.put((said, wall, cpu, usage.ru_maxrss / 1024))


def run(name: str, timeout: float) -> str:
    context = multiprocessing.get_context("spawn")
    out = context.Queue()
    process = context.Process(target=_child, args=(name, out))
    started = time.perf_counter()
    process.start()
    process.join(timeout)
    if process.is_alive():
        process.kill()
        process.join()
        return f"stopped after {time.perf_counter() - started:.0f} s (still running)"
    if out.empty():
        return f"the process died (exit {process.exitcode})"
    said, wall, cpu, rss = out.get()
    return f"{said} | {wall:.2f} s wall, {cpu:.2f} s CPU (with imports), {rss:.0f} MB peak"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--only", nargs="*", choices=list(CASES))
    ns = parser.parse_args()
    print(f"code: {CODE}")
    for name in ns.only or CASES:
        print(f"{name:<26} {run(name, ns.timeout)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
