"""``harmony-conductor``: the conductor's tools over stdio (API.md 8.3, 12): ``conduct_band``
(a summary by default, the MIDI written to ``midiPath`` when asked), ``render_audio`` (writes
the audio file, returns its path and facts, the audio attached when small), ``play_audio``
(plays a file here, ``server.mcp.player``) and ``search_corpus`` (the project's corpus, or
``HARMONY_CORPUS``: an index folder or the user's chart files).

A render without ``path`` goes to one cache folder (``HARMONY_RENDERS``, else
``$XDG_CACHE_HOME/harmony/renders``), named by the audio's hash and bounded in files and bytes
(oldest deleted); a ``path`` that exists is refused unless ``overwrite``. Renders report
progress when the client gives a ``progressToken`` and run off the event loop.

The engine runs in-process by default; with ``HARMONY_BASE_URL`` the calls go to that service
(``/v2/conduct``, ``/v2/render``, ``/v2/search``) with ``SERVICE_API_KEY``. Files and playback
are always local.
"""

from __future__ import annotations

import base64
import copy
import os
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
from server.mcp.files import CacheFolder, cache_folder, write_atomic, write_user_file
from server.mcp.player import play
from server.mcp.progress import Call
from server.mcp.results import Outcome
from server.mcp.stdio import (
    StdioTool,
    ToolHandler,
    build_stdio_server,
    call_in_process,
    preamble,
    remote_caller,
    run_stdio,
    table_tools,
)
from server.mcp.tools import tool_table

ATTACH_LIMIT = 1 << 20   # audio up to 1 MiB is attached to the result as MCP audio content
MIME = {"wav": "audio/wav", "flac": "audio/flac", "mp3": "audio/mpeg"}
DEFAULT_MAX_SECONDS = 300
RENDERS_MAX_FILES = 64
RENDERS_MAX_BYTES = 512 << 20
SOURCES = ("prompt", "arrangement", "midi")

_RENDER = OPERATIONS["render"]
_FILE = {"type": "object", "properties": {
    "path": {"type": "string", "description": "The audio file written."},
    "format": {"type": "string", "description": "wav, flac or mp3."},
    "sampleRate": {"type": "integer", "description": "Samples per second."},
    "channels": {"type": "integer", "description": "1 or 2."},
    "durationSec": {"type": "number", "description": "Length of the audio in seconds."},
    "engine": {"type": "string", "description": "The synthesiser: soundfont or basic."},
    "soundfont": {"type": ["string", "null"], "description": "The SoundFont's file name."},
    "sha256": {"type": "string", "description": "SHA-256 of the audio bytes, hex."},
    "played": {"type": ["string", "null"], "description": "The player, when play was asked."},
}, "required": ["path", "format", "durationSec", "engine", "sha256"]}
_LOCAL = {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False,
          "openWorldHint": False}
_RENDER_PROPERTIES = {k: v for k, v in _RENDER.request_schema["properties"].items()}
_RENDER_PROPERTIES["prompt"] = {**_RENDER_PROPERTIES["prompt"], "description": (
    "What to play, in English (style, tempo, key, form, feel): conducted as conduct_band does, "
    "then rendered. Give exactly one of prompt, arrangement or midi.")}
_RENDER_PROPERTIES["arrangement"] = {**_RENDER_PROPERTIES["arrangement"], "description": (
    "A conduct_band result with detail 'full' (its midi is rendered). Exactly one of prompt, "
    "arrangement or midi.")}
_RENDER_PROPERTIES["midi"] = {**_RENDER_PROPERTIES["midi"], "description": (
    "Base64 of a Standard MIDI File (format 0 or 1), e.g. a compose_export. Exactly one of "
    "prompt, arrangement or midi.")}

RENDER_AUDIO = {
    "name": "render_audio", "title": "Render audio",
    "description": (
        "Make an audio file (wav, flac or mp3) of an arrangement on this machine and answer its "
        "path, length and hash; pick it when the user wants to hear or keep the music as "
        "audio. Give exactly one source: prompt (a direction in English, conducted as "
        "conduct_band does, with durationSec, progression and seed), arrangement (a full "
        "conduct_band result) or midi (base64 MIDI). path chooses the file (an existing file is "
        "an error unless overwrite is true); without it the file goes to the renders cache "
        "folder. play: true also plays it (play_audio plays a file already written). Audio up "
        "to 1 MiB is attached to the answer. Example: {\"prompt\": \"bossa nova in D, 32 "
        "bars\", \"durationSec\": 60, \"path\": \"bossa.wav\", \"play\": true}"),
    "inputSchema": {"type": "object", "properties": {
        **_RENDER_PROPERTIES,
        "path": {"type": "string", "description": "The file to write (its folder must "
                 "exist). Default: a file named by the audio's hash in the renders cache "
                 "folder."},
        "overwrite": {"type": "boolean", "description": "Replace an existing file at path. "
                      "Default false: an existing file is an error."},
        "play": {"type": "boolean", "description": "Also play it here. Default false."},
    }},
    "outputSchema": _FILE,
    "annotations": {"title": "Render audio", **_LOCAL},
}
PLAY_AUDIO = {
    "name": "play_audio", "title": "Play audio",
    "description": (
        "Play an audio file (wav, flac, mp3) on this machine's speakers, e.g. one render_audio "
        "wrote; pick render_audio with play: true to make and play new audio in one call. Main "
        "arguments: path (the file) and wait (return when playback ends; default false: it "
        "plays on in the background). A player that fails at once is reported as an error "
        "naming what was tried. Example: {\"path\": \"bossa.wav\"}"),
    "inputSchema": {"type": "object", "properties": {
        "path": {"type": "string", "description": "The audio file to play.", "minLength": 1},
        "wait": {"type": "boolean",
                 "description": "Return when playback has finished. Default false."},
    }, "required": ["path"]},
    "outputSchema": {"type": "object", "properties": {
        "path": {"type": "string", "description": "The file played."},
        "player": {"type": "string", "description": "What played it."},
        "waited": {"type": "boolean", "description": "True: playback has finished."}},
        "required": ["path", "player", "waited"]},
    "annotations": {"title": "Play audio", **_LOCAL},
}
SEARCH_DESCRIPTION = (
    "Search a corpus of songs (jazz forms, blues and rhythm changes, public-domain charts, and "
    "the user's own charts when HARMONY_CORPUS is set) by their chords: pattern (chord symbols "
    "matched in every key, or roman numerals; '?' any one chord), title, key, or similarTo (a "
    "progression or a song id: songs ranked by likeness). Pick it to find tunes that use a "
    "progression or resemble one; to analyse your own changes use reharmonize or "
    "conduct_band. Answers up to limit songs (default 10) with where each match is. Example: "
    "{\"pattern\": \"ii7 V7 Imaj7\", \"limit\": 5}")

ENV_HELP = (
    ";\n  HARMONY_RENDERS (folder of renders without a path; default "
    "$XDG_CACHE_HOME/harmony/renders, ~/.cache/harmony/renders), HARMONY_RENDERS_MAX_FILES "
    f"(default {RENDERS_MAX_FILES}) and HARMONY_RENDERS_MAX_MB (default {RENDERS_MAX_BYTES >> 20});"
    "\n  HARMONY_AUDIO_PLAYER (player command), HARMONY_PLAYER_GRACE (seconds a player has to "
    "fail at once, default 0.5), HARMONY_SOUNDFONT")
Renderer = Callable[[dict[str, Any], Call], Awaitable[tuple[bytes, dict[str, Any]]]]


def renders_folder(env: Mapping[str, str]) -> CacheFolder:
    return cache_folder(env, "renders", "HARMONY_RENDERS", RENDERS_MAX_FILES, RENDERS_MAX_BYTES)


def local_renderer(env: Mapping[str, str]) -> Renderer:
    soundfont = (env.get("HARMONY_SOUNDFONT") or "").strip() or None
    max_seconds = int(env.get("HARMONY_RENDER_MAX_SECONDS") or DEFAULT_MAX_SECONDS)

    async def render(request: dict[str, Any], call: Call) -> tuple[bytes, dict[str, Any]]:
        return await call.work(
            lambda: render_bytes(request, soundfont=soundfont, max_seconds=max_seconds),
            step=0, total=2, message="rendering")
    return render


def remote_renderer(base_url: str, api_key: str | None, client: httpx.AsyncClient,
                    user_agent: str) -> Renderer:
    headers = {"user-agent": user_agent, "content-type": "application/json",
               "accept": "application/json"}
    if api_key:
        headers["authorization"] = f"Bearer {api_key}"
    url = base_url.rstrip("/") + _RENDER.path

    async def render(request: dict[str, Any], call: Call) -> tuple[bytes, dict[str, Any]]:
        try:
            response = await call.during(
                lambda: client.post(url, content=orjson.dumps(request), headers=headers),
                step=0, total=2, message=f"rendering at {base_url}")
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


def one_source(arguments: Mapping[str, Any]) -> str:
    """The one of prompt, arrangement or midi given (null is absent), else ``invalid_request``
    naming the sources."""
    given = [s for s in SOURCES if arguments.get(s) is not None]
    if len(given) != 1:
        raise InvalidRequest(
            "give exactly one of 'prompt' (a direction in English), 'arrangement' (a "
            "conduct_band result with detail 'full') or 'midi' (a base64 Standard MIDI File)"
            + (f"; got {' and '.join(given)}" if given else ""),
            field=given[1] if len(given) > 1 else "prompt")
    return given[0]


def flag(arguments: Mapping[str, Any], name: str) -> bool:
    value = arguments.get(name)
    if value is not None and not isinstance(value, bool):
        raise InvalidRequest(f"'{name}' must be true or false", field=name)
    return bool(value)


def render_handler(render: Renderer, env: Mapping[str, str]) -> ToolHandler:
    async def call(arguments: dict[str, Any], progress: Call) -> Outcome:
        request = {k: v for k, v in arguments.items() if k not in ("path", "play", "overwrite")}
        one_source(arguments)
        target = arguments.get("path")
        if target is not None and (not isinstance(target, str) or not target.strip()):
            raise InvalidRequest("'path' must be a file name", field="path")
        want_play, overwrite = flag(arguments, "play"), flag(arguments, "overwrite")
        if target is not None and not overwrite and Path(target).expanduser().exists():
            # refused before the render, not after it (write_user_file checks again)
            raise InvalidRequest(f"{target!r} exists; pass overwrite: true to replace it, or "
                                 "choose another path", field="path")
        try:
            audio, facts = await render(request, progress)
        except RemoteError as e:
            return Outcome(e.body, True)
        await progress.progress(1, 2, "writing the file")
        path = await anyio.to_thread.run_sync(
            lambda: write_audio_file(audio, facts, target, overwrite, env))
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
    async def call(arguments: dict[str, Any], progress: Call) -> Outcome:
        path = arguments.get("path")
        if not isinstance(path, str) or not path.strip():
            raise InvalidRequest("'path' must name an audio file", field="path")
        wait = flag(arguments, "wait")
        played = await anyio.to_thread.run_sync(lambda: play(path, wait=wait, env=env))
        return Outcome({"path": played.path, "player": played.player, "waited": played.waited})
    return call


def write_audio_file(audio: bytes, facts: Mapping[str, Any], target: str | None,
                     overwrite: bool, env: Mapping[str, str]) -> Path:
    """Write the audio to ``target`` (never over an existing file unless ``overwrite``), or to
    the renders cache folder under its hash, the folder then pruned to its bounds."""
    if target is not None:
        return write_user_file(target, audio, overwrite)
    folder = renders_folder(env)
    try:
        folder.ensure()
        path = folder.path / f"harmony-{facts['sha256'][:16]}.{facts['format']}"
        if path.is_file() and path.stat().st_size == len(audio):
            os.utime(path)  # the same audio as before: kept, and now the newest
        else:
            write_atomic(path, audio)
    except OSError as e:
        raise InvalidRequest(f"cannot write in the renders folder {str(folder.path)!r} "
                             f"({e.strerror}); pass a path, or set HARMONY_RENDERS",
                             field="path") from None
    folder.prune(keep=path)
    return path.resolve()


def build(env: Mapping[str, str], client: httpx.AsyncClient) -> Any:
    from server.mcp.stdio import USER_AGENT

    base_url = env.get("HARMONY_BASE_URL")
    key = env.get("SERVICE_API_KEY")
    operations = {name: OPERATIONS[name] for name in ("conduct", "search")}
    if not base_url:
        operations = with_corpus(operations, env.get("HARMONY_CORPUS", ""))
    table = table_tools(tool_table(operations.values()),
                        remote_caller(base_url, key, client) if base_url else call_in_process)
    render = remote_renderer(base_url, key, client, USER_AGENT) if base_url \
        else local_renderer(env)
    search = table["search_corpus"]
    search_descriptor = copy.deepcopy(search.descriptor)
    search_descriptor["description"] = SEARCH_DESCRIPTION
    tools = [table["conduct_band"], StdioTool(RENDER_AUDIO, render_handler(render, env)),
             StdioTool(PLAY_AUDIO, play_handler(env)),
             StdioTool(search_descriptor, search.handler)]
    return build_stdio_server(
        "harmony-conductor", "Harmony conductor: arrange a direction for a jazz band "
        "(conduct_band), render it to an audio file (render_audio), play a file on this "
        "machine (play_audio), and search a corpus of songs by their chords (search_corpus). "
        "Errors say what to fix: the code, the message and the argument at fault.", tools)


async def serve(env: Mapping[str, str]) -> None:
    async with httpx.AsyncClient(timeout=600.0) as client:
        await run_stdio(build(env, client))


def main() -> None:
    preamble("harmony-conductor", "The conductor's tools: conduct_band, render_audio, "
             "play_audio, search_corpus.", env_help=ENV_HELP + ", HARMONY_CORPUS")
    anyio.run(serve, dict(os.environ))
