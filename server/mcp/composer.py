"""``harmony-compose``: the ten composition operations as MCP tools over stdio (API.md 8.3, 13),
``compose_<op>`` each taking ``composition`` plus the operation's arguments and answering the
new composition and the operation's result, and ``play_composition`` (export MIDI, render,
play here). Schemas come from the engine's operation table (``engine.compose.OPERATIONS``).

In-process by default; with ``HARMONY_BASE_URL`` the operations go to ``/v2/compose`` and the
render to ``/v2/render`` of that service. Files and playback are always local.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio
import anyio.to_thread
import httpx
import orjson

from engine.compose import OPERATIONS, compose
from engine.errors import HarmonyError, InternalError, InvalidRequest
from server.mcp.conductor import (
    RemoteError,
    Renderer,
    local_renderer,
    remote_renderer,
    write_audio_file,
)
from server.mcp.player import play
from server.mcp.stdio import (
    USER_AGENT,
    Outcome,
    ToolHandler,
    build_stdio_server,
    preamble,
    run_stdio,
)

COMPOSITION = {"type": "object", "description": "The composition (API.md 13) this call "
               "changes: version, meta, sections, form, tracks."}
_HINTS = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True,
          "openWorldHint": False}
Composer = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


def descriptors() -> list[dict[str, Any]]:
    out = []
    for name, op in OPERATIONS.items():
        required = [*(["composition"] if name != "create" else []), *op.required]
        title = f"Compose: {name.replace('_', ' ')}"
        out.append({
            "name": f"compose_{name}", "title": title, "description": op.description,
            "inputSchema": {"type": "object", "properties": {
                **({} if name == "create" else {"composition": COMPOSITION}), **op.arguments},
                "required": required},
            "outputSchema": {"type": "object", "properties": {
                "composition": COMPOSITION,
                "result": {"description": "What the operation did (an export: its formats)."}},
                "required": ["composition", "result"]},
            "annotations": {"title": title, **_HINTS}})
    out.append({
        "name": "play_composition", "title": "Play composition",
        "description": "Export the composition as MIDI, render it to audio and play it here.",
        "inputSchema": {"type": "object", "properties": {
            "composition": COMPOSITION,
            "format": {"type": ["string", "null"], "enum": ["wav", "flac", "mp3", None],
                       "description": "Audio format of the file written. Default wav."},
            "wait": {"type": ["boolean", "null"],
                     "description": "Return when playback has finished. Default false."}},
            "required": ["composition"]},
        "outputSchema": {"type": "object", "properties": {
            "path": {"type": "string"}, "durationSec": {"type": "number"},
            "engine": {"type": "string"}, "player": {"type": "string"},
            "waited": {"type": "boolean"}}, "required": ["path", "player"]},
        "annotations": {"title": "Play composition", **_HINTS, "readOnlyHint": False}})
    return out


async def in_process(request: dict[str, Any]) -> dict[str, Any]:
    return await anyio.to_thread.run_sync(lambda: compose(request))


def remote_composer(base_url: str, api_key: str | None,
                    client: httpx.AsyncClient) -> Composer:
    headers = {"user-agent": USER_AGENT, "content-type": "application/json"}
    if api_key:
        headers["authorization"] = f"Bearer {api_key}"
    url = base_url.rstrip("/") + "/v2/compose"

    async def call(request: dict[str, Any]) -> dict[str, Any]:
        try:
            response = await client.post(url, content=orjson.dumps(request), headers=headers)
            body = orjson.loads(response.content)
        except (httpx.HTTPError, orjson.JSONDecodeError) as e:
            raise InternalError(f"cannot reach {base_url}: {type(e).__name__}") from None
        if response.is_success and isinstance(body, dict):
            return body
        raise _Passed(body if isinstance(body, dict) and "error" in body else
                      InternalError(f"{base_url} answered HTTP {response.status_code}").to_dict())
    return call


class _Passed(Exception):
    def __init__(self, body: dict[str, Any]) -> None:
        super().__init__(body)
        self.body = body


def _tool_field(error: dict[str, Any]) -> dict[str, Any]:
    """A tool's arguments are flat: 'operations[0].section' -> 'section'."""
    inner = error.get("error", {})
    field = inner.get("field")
    if isinstance(field, str) and field.startswith("operations[0]"):
        inner["field"] = field[len("operations[0]"):].lstrip(".") or None
        inner.pop("operation", None)
    return error


def op_handler(name: str, composer: Composer) -> ToolHandler:
    async def call(arguments: dict[str, Any]) -> Outcome:
        args = dict(arguments)
        composition = args.pop("composition", None)
        request: dict[str, Any] = {"operations": [{"op": name, **args}]}
        if composition is not None:
            request["composition"] = composition
        try:
            answer = await composer(request)
        except HarmonyError as e:
            return Outcome(_tool_field(e.to_dict()), True)
        except _Passed as e:
            return Outcome(_tool_field(e.body), True)
        return Outcome({"composition": answer["composition"], "result": answer["results"][0]})
    return call


def play_handler(render: Renderer, env: Mapping[str, str]) -> ToolHandler:
    async def call(arguments: dict[str, Any]) -> Outcome:
        composition = arguments.get("composition")
        if not isinstance(composition, dict):
            raise InvalidRequest("'composition' must be a composition", field="composition")
        fmt = arguments.get("format") or "wav"
        wait = arguments.get("wait")
        if wait is not None and not isinstance(wait, bool):
            raise InvalidRequest("'wait' must be true or false", field="wait")
        try:
            exported = await anyio.to_thread.run_sync(lambda: compose({
                "composition": composition,
                "operations": [{"op": "export", "formats": ["midi"]}]}))
        except HarmonyError as e:
            return Outcome(_tool_field(e.to_dict()), True)
        try:
            audio, facts = await render({"midi": exported["results"][0]["midi"], "format": fmt})
        except RemoteError as e:
            return Outcome(e.body, True)
        path = write_audio_file(audio, facts["format"], None)
        played = await anyio.to_thread.run_sync(lambda: play(path, wait=bool(wait), env=env))
        return Outcome({"path": str(path), "durationSec": facts["durationSec"],
                        "engine": facts["engine"], "player": played.player,
                        "waited": played.waited})
    return call


def build(env: Mapping[str, str], client: httpx.AsyncClient) -> Any:
    base_url = env.get("HARMONY_BASE_URL")
    key = env.get("SERVICE_API_KEY")
    composer = remote_composer(base_url, key, client) if base_url else in_process
    render = remote_renderer(base_url, key, client, USER_AGENT) if base_url \
        else local_renderer(env)
    handlers: dict[str, ToolHandler] = {f"compose_{name}": op_handler(name, composer)
                                        for name in OPERATIONS}
    handlers["play_composition"] = play_handler(render, env)
    return build_stdio_server(
        "harmony-compose", "Harmony composer: build a composition (sections, form, chords, "
        "reharmonisation, voicings, an arrangement, melody), transpose it, export it as MIDI, "
        "MusicXML, iReal Pro or ChordPro, and play it here. The client keeps the composition "
        "and passes it to every call.", descriptors(), handlers)


async def serve(env: Mapping[str, str]) -> None:
    async with httpx.AsyncClient(timeout=600.0) as client:
        await run_stdio(build(env, client))


def main() -> None:
    preamble("harmony-compose", "The composition tools: compose_create, compose_add_section, "
             "compose_set_chords, compose_set_form, compose_reharmonize, compose_voice, "
             "compose_arrange, compose_add_notes, compose_transpose, compose_export, "
             "play_composition.")
    anyio.run(serve, dict(os.environ))
