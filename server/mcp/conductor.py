"""``harmony-conductor``: the conductor's tools over stdio (API.md 8.3, 12): ``conduct_band``,
``render_audio`` (writes the audio file, returns its path and facts, the audio attached when
small), ``play_audio`` (plays a file here, ``server.mcp.player``) and ``search_corpus`` (the
project's corpus, or ``HARMONY_CORPUS``: an index folder or the user's chart files).

The engine runs in-process by default; with ``HARMONY_BASE_URL`` the calls go to that service
(``/v2/conduct``, ``/v2/render``, ``/v2/search``) with ``SERVICE_API_KEY``. Files and playback are always local.
"""

from __future__ import annotations

import base64
import os
import tempfile
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import httpx
import mcp_types as types
import orjson

from engine.errors import InternalError, InvalidRequest
from engine.render import render_bytes
from server.api import OPERATIONS, with_corpus
from server.mcp.player import play
from server.mcp.stdio import (
    Outcome,
    ToolHandler,
    build_stdio_server,
    call_in_process,
    preamble,
    remote_caller,
    run_stdio,
    table_handlers,
)
from server.mcp.tools import tool_table

ATTACH_LIMIT = 1 << 20   # audio up to 1 MiB is attached to the result as MCP audio content
MIME = {"wav": "audio/wav", "flac": "audio/flac", "mp3": "audio/mpeg"}
DEFAULT_MAX_SECONDS = 300

_RENDER = OPERATIONS["render"]
_FILE = {"type": "object", "properties": {
    "path": {"type": "string", "description": "The audio file written."},
    "format": {"type": "string"}, "sampleRate": {"type": "integer"},
    "channels": {"type": "integer"}, "durationSec": {"type": "number"},
    "engine": {"type": "string"}, "soundfont": {"type": ["string", "null"]},
    "sha256": {"type": "string"},
    "played": {"type": ["string", "null"], "description": "The player, when play was asked."},
}, "required": ["path", "format", "durationSec", "engine", "sha256"]}
_READ_ONLY = {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": True,
              "openWorldHint": False}

RENDER_AUDIO = {
    "name": "render_audio", "title": "Render audio",
    "description": "Render an arrangement (a prompt, a conduct result or a MIDI file) to an "
                   "audio file on this machine, and play it if asked.",
    "inputSchema": {**_RENDER.request_schema, "properties": {
        **_RENDER.request_schema["properties"],
        "path": {"type": ["string", "null"], "description": "Where to write the file "
                 "(default: a new file in the temporary folder)."},
        "play": {"type": ["boolean", "null"], "description": "Also play it. Default false."},
    }},
    "outputSchema": _FILE,
    "annotations": {"title": "Render audio", **_READ_ONLY},
}
PLAY_AUDIO = {
    "name": "play_audio", "title": "Play audio",
    "description": "Play an audio file on this machine's speakers.",
    "inputSchema": {"type": "object", "properties": {
        "path": {"type": "string", "description": "The audio file to play.", "minLength": 1},
        "wait": {"type": ["boolean", "null"],
                 "description": "Return when playback has finished. Default false."},
    }, "required": ["path"]},
    "outputSchema": {"type": "object", "properties": {
        "path": {"type": "string"}, "player": {"type": "string"},
        "waited": {"type": "boolean"}}, "required": ["path", "player", "waited"]},
    "annotations": {"title": "Play audio", **_READ_ONLY},
}

Renderer = Callable[[dict[str, Any]], Awaitable[tuple[bytes, dict[str, Any]]]]


def local_renderer(env: Mapping[str, str]) -> Renderer:
    soundfont = (env.get("HARMONY_SOUNDFONT") or "").strip() or None
    max_seconds = int(env.get("HARMONY_RENDER_MAX_SECONDS") or DEFAULT_MAX_SECONDS)

    async def render(request: dict[str, Any]) -> tuple[bytes, dict[str, Any]]:
        return await anyio.to_thread.run_sync(
            lambda: render_bytes(request, soundfont=soundfont, max_seconds=max_seconds))
    return render


def remote_renderer(base_url: str, api_key: str | None, client: httpx.AsyncClient,
                    user_agent: str) -> Renderer:
    headers = {"user-agent": user_agent, "content-type": "application/json",
               "accept": "application/json"}
    if api_key:
        headers["authorization"] = f"Bearer {api_key}"
    url = base_url.rstrip("/") + _RENDER.path

    async def render(request: dict[str, Any]) -> tuple[bytes, dict[str, Any]]:
        try:
            response = await client.post(url, content=orjson.dumps(request), headers=headers)
            body = orjson.loads(response.content)
        except (httpx.HTTPError, orjson.JSONDecodeError) as e:
            raise InternalError(f"cannot render at {base_url}: {type(e).__name__}") from None
        if not response.is_success or not isinstance(body, dict) or "audio" not in body:
            raise RemoteError(body if isinstance(body, dict) and "error" in body else
                               InternalError(f"{base_url} answered HTTP "
                                             f"{response.status_code}").to_dict())
        audio = base64.b64decode(body.pop("audio"))
        return audio, body
    return render


class RemoteError(Exception):
    """The service's own error object, passed through as the tool's error."""

    def __init__(self, body: dict[str, Any]) -> None:
        super().__init__(body)
        self.body = body


def render_handler(render: Renderer, env: Mapping[str, str]) -> ToolHandler:
    async def call(arguments: dict[str, Any]) -> Outcome:
        request = {k: v for k, v in arguments.items() if k not in ("path", "play")}
        target = arguments.get("path")
        if target is not None and (not isinstance(target, str) or not target.strip()):
            raise InvalidRequest("path must be a file name", field="path")
        want_play = arguments.get("play")
        if want_play is not None and not isinstance(want_play, bool):
            raise InvalidRequest("play must be true or false", field="play")
        try:
            audio, facts = await render(request)
        except RemoteError as e:
            return Outcome(e.body, True)
        path = write_audio_file(audio, facts["format"], target)
        result = {"path": str(path), **{k: facts[k] for k in (
            "format", "sampleRate", "channels", "durationSec", "engine", "soundfont", "sha256")}}
        if want_play:
            result["played"] = (await anyio.to_thread.run_sync(
                lambda: play(path, wait=False, env=env))).player
        extra: tuple[types.ContentBlock, ...] = ()
        if len(audio) <= ATTACH_LIMIT:
            extra = (types.AudioContent(type="audio", mime_type=MIME[facts["format"]],
                                        data=base64.b64encode(audio).decode("ascii")),)
        return Outcome(result, False, extra)
    return call


def play_handler(env: Mapping[str, str]) -> ToolHandler:
    async def call(arguments: dict[str, Any]) -> Outcome:
        path = arguments.get("path")
        if not isinstance(path, str) or not path.strip():
            raise InvalidRequest("path must name an audio file", field="path")
        wait = arguments.get("wait")
        if wait is not None and not isinstance(wait, bool):
            raise InvalidRequest("wait must be true or false", field="wait")
        played = await anyio.to_thread.run_sync(lambda: play(path, wait=bool(wait), env=env))
        return Outcome({"path": played.path, "player": played.player, "waited": played.waited})
    return call


def write_audio_file(audio: bytes, fmt: str, target: str | None) -> Path:
    """Write the audio to ``target`` (its folder must exist) or to a new temporary file."""
    if target is None:
        fd, name = tempfile.mkstemp(prefix="harmony-", suffix=f".{fmt}")
        with os.fdopen(fd, "wb") as f:
            f.write(audio)
        return Path(name)
    path = Path(target).expanduser()
    try:
        path.write_bytes(audio)
    except OSError as e:
        raise InvalidRequest(f"cannot write {str(path)!r}: {e.strerror}", field="path") from None
    return path.resolve()


def build(env: Mapping[str, str], client: httpx.AsyncClient) -> Any:
    from server.mcp.stdio import USER_AGENT

    base_url = env.get("HARMONY_BASE_URL")
    key = env.get("SERVICE_API_KEY")
    operations = {name: OPERATIONS[name] for name in ("conduct", "search")}
    if not base_url:
        operations = with_corpus(operations, env.get("HARMONY_CORPUS", ""))
    table = tool_table(operations.values())
    caller = remote_caller(base_url, key, client) if base_url else call_in_process
    render = remote_renderer(base_url, key, client, USER_AGENT) if base_url \
        else local_renderer(env)
    handlers: dict[str, ToolHandler] = {**table_handlers(table, caller),
                                        "render_audio": render_handler(render, env),
                                        "play_audio": play_handler(env)}
    descriptors = [table["conduct_band"].descriptor, RENDER_AUDIO, PLAY_AUDIO,
                   table["search_corpus"].descriptor]
    return build_stdio_server(
        "harmony-conductor", "Harmony conductor: arrange a direction for a jazz band, render "
        "it to audio, play it on this machine, and search a corpus of songs by their chords.", descriptors, handlers)


async def serve(env: Mapping[str, str]) -> None:
    async with httpx.AsyncClient(timeout=600.0) as client:
        await run_stdio(build(env, client))


def main() -> None:
    preamble("harmony-conductor", "The conductor's tools: conduct_band, render_audio, "
             "play_audio, search_corpus.")
    anyio.run(serve, dict(os.environ))
