"""Bytes of each stdio tool's default answer on its largest ordinary request (issue 34): the text
content, the structuredContent (as JSON) and any other content (attached audio), per call of the
three stdio servers driven by the SDK's client over stdio, as a client would see them.

Requests: a 2-minute ``conduct_band`` (and a 900-second one, the longest it makes); ``render_audio`` of a 2-minute prompt and of a 3-second
MIDI file (small enough for its audio to be attached); a 32-bar ``compose_*`` session with a
voicing, an arrangement, a melody and exports; the five ``harmony-mcp`` tools on a 32-bar tune.

Run: .venv/bin/python bench/run_mcp_stdio_answers.py   (--json prints the figures as JSON)
"""

from __future__ import annotations

import base64
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
import orjson
from mcp import Client, StdioServerParameters

BIN = Path(sys.executable).parent
TUNE = ("A: Gm7 C7 | Fmaj7 | Am7b5 D7 | Gm7 | Bbmaj7 | Bbm6 Eb7 | Am7 D7 Gm7 C7 | F6 || "
        "B: Cm7 | F7 | Bbmaj7 | Bbm6 | Am7 | D7 | Gm7 | C7")
CHANGES = ("Gm7 C7 Fmaj7 Am7b5 D7 Gm7 Bbmaj7 Bbm6 Eb7 Am7 D7 Gm7 C7 " * 2 +
           "Cm7 F7 Bbmaj7 Bbm6 Am7 D7 Gm7 C7 Gm7 C7 Fmaj7 Am7b5 D7 Gm7 Bbmaj7 Bbm6")
PROMPT = "medium swing blues in F, walking bass"
SESSION: list[tuple[str, dict[str, Any]]] = [
    ("compose_create", {"title": "Bench", "key": "F", "tempo": 160, "progression": TUNE,
                        "form": ["A", "A", "B", "A"]}),
    ("compose_voice", {"style": "drop2"}),
    ("compose_arrange", {"style": "swing"}),
    ("compose_add_notes", {"section": "A", "notes": [
        {"bar": b, "beat": 1, "duration": 2, "pitch": 67 + b % 5} for b in range(1, 9)]}),
    ("compose_reharmonize", {"section": "B", "technique": "tritone_sub"}),
    ("compose_transpose", {"key": "Bb"}),
    ("compose_export", {"formats": ["leadsheet", "ireal", "chordpro"]}),
]


def sizes(answer: Any, arguments: int = 0) -> dict[str, int]:
    text = sum(len(c.text.encode()) for c in answer.content if c.type == "text")
    other = sum(len(orjson.dumps(c.model_dump(mode="json", by_alias=True, exclude_none=True)))
                for c in answer.content if c.type != "text")
    structured = (len(orjson.dumps(answer.structured_content))
                  if answer.structured_content is not None else 0)
    return {"arguments": arguments, "text": text,
            "structured": structured, "other": other, "error": int(bool(answer.is_error))}


def midi_seconds(seconds: int) -> str:
    import mido

    smf = mido.MidiFile(type=0, ticks_per_beat=480)
    track = mido.MidiTrack()
    for _ in range(seconds):  # 120 bpm: a quarter note a half second, two a second
        for pitch in (60, 64):
            track.append(mido.Message("note_on", note=pitch, velocity=90, time=0))
            track.append(mido.Message("note_off", note=pitch, velocity=0, time=480))
    smf.tracks.append(track)
    path = Path(tempfile.mkstemp(suffix=".mid")[1])
    smf.save(str(path))
    data = base64.b64encode(path.read_bytes()).decode()
    path.unlink()
    return data


async def session(command: str, env: dict[str, str], calls: Any) -> list[tuple[str, Any]]:
    params = StdioServerParameters(command=str(BIN / command), env={**os.environ, **env})
    async with Client(params) as client:
        return [(call[0], sizes(*call[1:])) for call in await calls(client)]


async def mcp_calls(client: Client) -> list[tuple[str, Any]]:
    return [
        ("analyze_chord", await client.call_tool("analyze_chord", {"chord": "Bb7",
                                                                   "key": "F"})),
        ("resolve_chord", await client.call_tool("resolve_chord", {"chord": "G7(b9,#11)"})),
        ("generate_voicing", await client.call_tool("generate_voicing",
                                                    {"progression": CHANGES})),
        ("reharmonize", await client.call_tool("reharmonize", {"progression": CHANGES,
                                                               "key": "F"})),
        ("conduct_band", await client.call_tool("conduct_band", {"prompt": PROMPT,
                                                                 "durationSec": 120})),
    ]


async def conductor_calls(client: Client) -> list[tuple[str, Any]]:
    out = [("conduct_band", await client.call_tool("conduct_band", {"prompt": PROMPT,
                                                                    "durationSec": 120})),
           ("conduct_band (900 s)", await client.call_tool("conduct_band", {
               "prompt": PROMPT, "durationSec": 900})),
           ("search_corpus", await client.call_tool("search_corpus",
                                                    {"pattern": "ii7 V7 Imaj7"}))]
    long = await client.call_tool("render_audio", {"prompt": PROMPT, "durationSec": 120,
                                                   "engine": "basic"})
    short = await client.call_tool("render_audio", {"midi": midi_seconds(3),
                                                    "engine": "basic"})
    for answer in (long, short):
        path = (answer.structured_content or {}).get("path")
        if path and Path(path).parent == Path(tempfile.gettempdir()):
            Path(path).unlink()  # the old servers' temporary files
    return [*out, ("render_audio (120 s prompt)", long), ("render_audio (3 s MIDI)", short)]


async def compose_calls(client: Client) -> list[tuple[str, Any]]:
    out = []
    state: dict[str, Any] = {}
    for name, args in SESSION:
        answer = await client.call_tool(name, {**args, **state})
        out.append((name, answer, len(orjson.dumps({**args, **state}))))
        data = answer.structured_content or {}
        if "compositionId" in data:
            state = {"compositionId": data["compositionId"]}
        else:
            state = {"composition": data["composition"]}
    return out


async def main() -> dict[str, list[tuple[str, Any]]]:
    cache = tempfile.mkdtemp(prefix="harmony-bench-cache-")
    env = {"XDG_CACHE_HOME": cache}
    return {"harmony-mcp": await session("harmony-mcp", env, mcp_calls),
            "harmony-conductor": await session("harmony-conductor", env, conductor_calls),
            "harmony-compose": await session("harmony-compose", env, compose_calls)}


if __name__ == "__main__":
    figures = anyio.run(main)
    if "--json" in sys.argv:
        print(orjson.dumps(figures, option=orjson.OPT_INDENT_2).decode())
        raise SystemExit(0)
    for server, rows in figures.items():
        print(server)
        total = 0
        for name, s in rows:
            total += s["text"] + s["structured"] + s["other"]
            print(f"  {name:28}" + (f" arguments {s['arguments']:>7,} B" if s["arguments"]
                                     else "") + f" text {s['text']:>9,} B  structured {s['structured']:>9,} B"
                  + (f"  other content {s['other']:>9,} B" if s["other"] else "")
                  + ("  (error)" if s["error"] else ""))
        print(f"  {'all calls':28} {total:,} B")
