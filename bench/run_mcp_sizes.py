"""Bytes a model receives from each hosted MCP tool's default call (API.md 8.1: the text
content and the structuredContent each under 8 KB), on the largest ordinary request of each
tool, through ``/mcp``'s endpoint in process (no key: the route's --no-auth mode).

    .venv/bin/python bench/run_mcp_sizes.py

Prints one row per tool: the text content's bytes, the structuredContent's bytes, and the
whole JSON-RPC reply's bytes.
"""

from __future__ import annotations

import asyncio
from typing import Any

import orjson

from server.mcp import McpEndpoint

# The largest ordinary request of each tool: a 2-minute arrangement, a 32-bar tune's changes.
ATTYA = ("Fm7 Bbm7 Eb7 Abmaj7 Dbmaj7 G7 Cmaj7 Cmaj7 Cm7 Fm7 Bb7 Ebmaj7 Abmaj7 D7 Gmaj7 Gmaj7 "
         "Am7 D7 Gmaj7 Gmaj7 F#m7 B7 Emaj7 C7 Fm7 Bbm7 Eb7 Abmaj7 Dbmaj7 Gb7 Cm7 Bdim7")
REQUESTS: dict[str, dict[str, Any]] = {
    "analyze_chord": {"chord": "F#7(b9,#11,b13)/A#", "key": "G"},
    "resolve_chord": {"chord": "G13(#11)", "octave": 3},
    "generate_voicing": {"progression": ATTYA, "style": "bill_evans"},
    "reharmonize": {"progression": ATTYA, "key": "Ab"},
    "conduct_band": {"prompt": "medium swing blues in F, walking bass", "durationSec": 120},
}
# An error, to show its size too.
ERROR = ("analyze_chord", {"chord": "Cmaj7#"})


def sizes(endpoint: McpEndpoint, name: str, arguments: dict[str, Any]) -> tuple[int, int, int]:
    body = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                         "params": {"name": name, "arguments": arguments}})
    headers = {"content-type": "application/json", "accept": "application/json"}
    reply = asyncio.run(endpoint.handle("POST", headers, body))
    result = orjson.loads(reply.body)["result"]
    text = sum(len(c["text"].encode()) for c in result["content"] if c["type"] == "text")
    structured = len(orjson.dumps(result["structuredContent"])) \
        if "structuredContent" in result else 0
    return text, structured, len(reply.body)


def main() -> None:
    endpoint = McpEndpoint()
    print(f"{'tool':<18} {'text B':>9} {'structured B':>13} {'reply B':>9}")
    for name, arguments in [*REQUESTS.items(), ERROR]:
        text, structured, whole = sizes(endpoint, name, arguments)
        label = name if (name, arguments) != ERROR else name + " (error)"
        print(f"{label:<18} {text:>9,} {structured:>13,} {whole:>9,}")


if __name__ == "__main__":
    main()
