"""``harmony-compose``: the ten composition operations as MCP tools over stdio (API.md 8.3, 13),
``compose_<op>`` each taking ``compositionId`` (a composition kept in the local store,
``server.mcp.store``) or the whole ``composition`` plus the operation's arguments, and answering
the new composition's id, a compact summary and the operation's result - the whole composition
only when asked (``includeComposition``); and ``play_composition`` (export MIDI, render, play
here). An export's contents are written to ``path`` when given, else returned while the answer
stays within 8 KB (the others named with their size and how to get them). Schemas come from the
engine's operation table (``engine.compose.OPERATIONS``).

In-process by default; with ``HARMONY_BASE_URL`` the operations go to ``/v2/compose`` and the
render to ``/v2/render`` of that service. The store, files and playback are always local.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import httpx
import orjson

from engine.compose import OPERATIONS, compose
from engine.errors import HarmonyError, InternalError, InvalidRequest
from server.mcp.conductor import (
    ENV_HELP,
    RemoteError,
    Renderer,
    flag,
    local_renderer,
    remote_renderer,
    write_audio_file,
)
from server.mcp.files import write_user_file
from server.mcp.player import play
from server.mcp.progress import Call
from server.mcp.results import Outcome
from server.mcp.stdio import (
    USER_AGENT,
    StdioTool,
    ToolHandler,
    build_stdio_server,
    preamble,
    run_stdio,
)
from server.mcp.store import (
    MAX_BYTES,
    MAX_FILES,
    CompositionStore,
    compositions_folder,
    summary,
)
from server.mcp.tools import TEXT_BUDGET

COMPOSITION = {"type": "object", "description": "The whole composition (API.md 13: version, "
               "meta, sections, form, tracks), instead of compositionId."}
COMPOSITION_ID = {"type": "string", "description": "The id a compose tool answered (e.g. "
                  "'autumn-3f9a2c1b5d7e'): the composition this call starts from."}
INCLUDE = {"type": "boolean", "description": "Also answer the whole composition (large: "
           "~10 KB for 32 bars with an arrangement). Default false."}
_HINTS = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True,
          "openWorldHint": False}
SUFFIX = {"midi": ".mid", "musicxml": ".musicxml", "ireal": ".ireal.txt", "chordpro": ".cho",
          "leadsheet": ".txt", "analysis": ".json"}
COMMON = (" Takes compositionId (from the previous compose answer) or the whole composition; "
          "answers the new compositionId (earlier ids still name earlier versions), a summary "
          "(title, key, form, bars, chords per section, tracks) and what the operation did.")
# What each tool is for beside its neighbours, and one example call.
GUIDE: dict[str, tuple[str, str]] = {
    "create": ("Start here: every other compose tool needs the compositionId it answers. "
               "Answers an id and a summary (title, key, form, bars, chords per section, "
               "tracks).",
               '{"title": "Blue Dusk", "key": "F", "tempo": 140, "progression": '
               '"A: Gm7 C7 | Fmaj7 || B: Am7b5 D7 | Gm7 C7", "form": ["A", "A", "B", "A"]}'),
    "add_section": ("Use it for a new section; compose_set_chords changes an existing one.",
                    '{"compositionId": "blue-dusk-3f9a2c1b5d7e", "id": "C", "progression": '
                    '"Dm7 | G7 | Cmaj7 | C7", "after": "B"}'),
    "set_chords": ("Use it to rewrite one section's changes; compose_reharmonize applies a "
                   "named technique instead.",
                   '{"compositionId": "blue-dusk-3f9a2c1b5d7e", "section": "B", '
                   '"progression": "Cm7 | F7 | Bbmaj7 | Eb7"}'),
    "set_form": ("Use it for the order of sections or the tempo, metre or key; "
                 "compose_transpose moves every chord and note instead.",
                 '{"compositionId": "blue-dusk-3f9a2c1b5d7e", "form": ["A", "B", "A"], '
                 '"tempo": 120}'),
    "reharmonize": ("Use it to apply one jazz technique to a section; compose_set_chords when "
                    "you know the new chords.",
                    '{"compositionId": "blue-dusk-3f9a2c1b5d7e", "section": "B", '
                    '"technique": "tritone_sub"}'),
    "voice": ("Use it for the harmony track (the comping chords); compose_arrange writes "
              "pattern, bass and drums.",
              '{"compositionId": "blue-dusk-3f9a2c1b5d7e", "style": "drop2"}'),
    "arrange": ("Use it for the band (pattern, bass, drums) over the form; compose_voice for "
                "the harmony track.",
                '{"compositionId": "blue-dusk-3f9a2c1b5d7e", "style": "bossa_nova"}'),
    "add_notes": ("Use it to write a melody or a fill note by note.",
                  '{"compositionId": "blue-dusk-3f9a2c1b5d7e", "section": "A", "notes": '
                  '[{"bar": 1, "beat": 1, "duration": 2, "pitch": 72}]}'),
    "transpose": ("Use it to move the whole piece to another key; compose_set_form with key "
                  "only changes the key signature of a part.",
                  '{"compositionId": "blue-dusk-3f9a2c1b5d7e", "key": "Bb"}'),
    "export": ("Use it to get the piece out: path writes the files (one format: that file; "
               "several: the path with each format's suffix); without path the contents come "
               "back while the answer stays under 8 KB, the others named with their size; "
               "an iReal export adds irealChanges, the chords and key iReal Pro cannot write "
               "and what it wrote instead. play_composition renders and plays instead.",
               '{"compositionId": "blue-dusk-3f9a2c1b5d7e", "formats": ["musicxml", "midi"], '
               '"path": "blue-dusk.musicxml"}'),
}
EXPORT_OPTIONS = {
    "path": {"type": "string", "description": "Write the exports to files here (the folder "
             "must exist): with one format this file, with several this path with each "
             "format's suffix (.mid, .musicxml, .ireal.txt, .cho, .txt, .json)."},
    "overwrite": {"type": "boolean", "description": "Replace existing files. Default false: "
                  "an existing file is an error."},
}
Composer = Callable[[dict[str, Any], Call], Awaitable[dict[str, Any]]]


def descriptors() -> list[dict[str, Any]]:
    out = []
    for name, op in OPERATIONS.items():
        title = f"Compose: {name.replace('_', ' ')}"
        when, example = GUIDE[name]
        properties = {**({} if name == "create" else {
            "compositionId": COMPOSITION_ID, "composition": COMPOSITION}), **op.arguments,
            **(EXPORT_OPTIONS if name == "export" else {}), "includeComposition": INCLUDE}
        out.append({
            "name": f"compose_{name}", "title": title,
            "description": f"{op.description} {when}"
                           + ("" if name == "create" else COMMON) + f" Example: {example}",
            "inputSchema": {"type": "object", "properties": properties,
                            **({"required": list(op.required)} if op.required else {})},
            "outputSchema": {"type": "object", "properties": {
                "compositionId": {"type": "string", "description": "The new composition's id: "
                                  "pass it to the next compose tool."},
                "summary": {"type": "object", "description": "Title, key, tempo, form, bars, "
                            "each section's chords and the tracks."},
                "result": {"description": "What the operation did (an export: its contents, "
                           "the files written or why a format was left out)."},
                "composition": {"type": "object", "description": "The whole composition, "
                                "when includeComposition was true."}},
                "required": ["compositionId", "summary", "result"]},
            "annotations": {"title": title, **_HINTS,
                            **({"readOnlyHint": False} if name == "export" else {})}})
    out.append({
        "name": "play_composition", "title": "Play composition",
        "description": (
            "Hear a composition: exports it as MIDI, renders it to audio (as render_audio) and "
            "plays it on this machine. Takes compositionId or the whole composition; format, "
            "path (default: the renders cache folder; an existing file is an error unless "
            "overwrite is true) and wait (return when playback ends). Pick compose_export for "
            "files without playing. Example: {\"compositionId\": \"blue-dusk-3f9a2c1b5d7e\"}"),
        "inputSchema": {"type": "object", "properties": {
            "compositionId": COMPOSITION_ID, "composition": COMPOSITION,
            "format": {"type": "string", "enum": ["wav", "flac", "mp3"],
                       "description": "Audio format of the file written. Default wav."},
            "path": {"type": "string", "description": "The audio file to write (its folder "
                     "must exist). Default: the renders cache folder."},
            "overwrite": {"type": "boolean", "description": "Replace an existing file at "
                          "path. Default false."},
            "wait": {"type": "boolean",
                     "description": "Return when playback has finished. Default false."}}},
        "outputSchema": {"type": "object", "properties": {
            "path": {"type": "string", "description": "The audio file written."},
            "durationSec": {"type": "number", "description": "Its length in seconds."},
            "engine": {"type": "string", "description": "The synthesiser."},
            "player": {"type": "string", "description": "What played it."},
            "waited": {"type": "boolean", "description": "True: playback has finished."}},
            "required": ["path", "player"]},
        "annotations": {"title": "Play composition", **_HINTS, "readOnlyHint": False,
                        "idempotentHint": False}})
    return out


def in_process(request: dict[str, Any], call: Call) -> Awaitable[dict[str, Any]]:
    return call.work(lambda: compose(request), message="composing")


def remote_composer(base_url: str, api_key: str | None,
                    client: httpx.AsyncClient) -> Composer:
    headers = {"user-agent": USER_AGENT, "content-type": "application/json"}
    if api_key:
        headers["authorization"] = f"Bearer {api_key}"
    url = base_url.rstrip("/") + "/v2/compose"

    async def call(request: dict[str, Any], progress: Call) -> dict[str, Any]:
        try:
            response = await progress.during(
                lambda: client.post(url, content=orjson.dumps(request), headers=headers),
                message=f"composing at {base_url}")
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
        if inner["field"] is None:
            del inner["field"]
        inner.pop("operation", None)
    return error


def starting_point(store: CompositionStore, arguments: dict[str, Any]) -> dict[str, Any]:
    """The composition a call works on: ``compositionId`` from the store or ``composition``
    inline, exactly one of them."""
    key, inline = arguments.pop("compositionId", None), arguments.pop("composition", None)
    if key is not None and inline is not None:
        raise InvalidRequest("give compositionId or composition, not both",
                             field="composition")
    if key is not None:
        return store.get(key)
    if inline is None:
        raise InvalidRequest("give compositionId (from compose_create or the last compose "
                             "answer) or the whole composition", field="compositionId")
    if not isinstance(inline, dict):
        raise InvalidRequest("'composition' must be a composition object",
                             field="composition")
    return inline


def op_handler(name: str, composer: Composer, store: CompositionStore) -> ToolHandler:
    async def call(arguments: dict[str, Any], progress: Call) -> Outcome:
        args = dict(arguments)
        include = flag(args, "includeComposition")
        args.pop("includeComposition", None)
        target, overwrite = args.pop("path", None), flag(args, "overwrite")
        args.pop("overwrite", None)
        if target is not None and (not isinstance(target, str) or not target.strip()):
            raise InvalidRequest("'path' must be a file name", field="path")
        start = None if name == "create" else starting_point(store, args)
        request: dict[str, Any] = {"operations": [{"op": name, **args}]}
        if start is not None:
            request["composition"] = start
        try:
            answer = await composer(request, progress)
        except HarmonyError as e:
            return Outcome(_tool_field(e.to_dict()), True)
        except _Passed as e:
            return Outcome(_tool_field(e.body), True)
        composition = answer["composition"]
        key = await anyio.to_thread.run_sync(lambda: store.put(composition))
        out: dict[str, Any] = {"compositionId": key, "summary": summary(composition),
                               "result": answer["results"][0]}
        if name == "export":
            out["result"] = await anyio.to_thread.run_sync(
                lambda: exported(out, target, overwrite))
        if include:
            out["composition"] = composition
        return Outcome(out)
    return call


def exported(answer: dict[str, Any], target: str | None, overwrite: bool) -> dict[str, Any]:
    """An export's result: with ``target``, the files written by format; else each format's
    contents while the answer stays within ``TEXT_BUDGET``, and for the others their size and
    how to get them."""
    contents: dict[str, Any] = {f: v for f, v in answer["result"].items() if f in SUFFIX}
    notes = {k: v for k, v in answer["result"].items() if k not in SUFFIX}  # irealChanges
    if target is not None:
        paths = {fmt: target if len(contents) == 1 else
                 str(Path(target).with_suffix("")) + SUFFIX[fmt] for fmt in contents}
        taken = [p for p in paths.values() if Path(p).expanduser().exists()]
        if taken and not overwrite:  # refused before any file is written
            raise InvalidRequest(f"{taken[0]!r} exists; pass overwrite: true to replace it, or "
                                 "choose another path", field="path")
        return {"written": {fmt: str(write_user_file(paths[fmt], _bytes(fmt, value), overwrite))
                            for fmt, value in contents.items()}, **notes}
    result: dict[str, Any] = dict(notes)
    left: dict[str, str] = {}
    used = len(orjson.dumps({**answer, "result": None})) + 200  # the answer's rest, and notes
    for fmt, value in contents.items():
        size = len(orjson.dumps(value))
        if used + size <= TEXT_BUDGET:
            result[fmt] = value
            used += size + len(fmt) + 4
        else:
            left[fmt] = (f"{size:,} bytes: too large to return here; call compose_export "
                         "again with path to write it to a file")
    if left:
        result["omitted"] = left
    return result


def _bytes(fmt: str, value: Any) -> bytes:
    if fmt == "midi":
        return base64.b64decode(value)
    if isinstance(value, str):
        return value.encode()
    return orjson.dumps(value, option=orjson.OPT_INDENT_2)


def composition_summary(answer: dict[str, Any]) -> dict[str, Any]:
    """A compose answer's text when over the budget (includeComposition): the composition left
    to the structured content."""
    if "composition" in answer:
        return {**answer, "composition": "(the whole composition is in structuredContent)"}
    return answer


def play_handler(render: Renderer, store: CompositionStore, env: Mapping[str, str]
                 ) -> ToolHandler:
    async def call(arguments: dict[str, Any], progress: Call) -> Outcome:
        args = dict(arguments)
        composition = starting_point(store, args)
        fmt = args.get("format") or "wav"
        wait, overwrite = flag(args, "wait"), flag(args, "overwrite")
        target = args.get("path")
        if target is not None and (not isinstance(target, str) or not target.strip()):
            raise InvalidRequest("'path' must be a file name", field="path")
        if target is not None and not overwrite and Path(target).expanduser().exists():
            raise InvalidRequest(f"{target!r} exists; pass overwrite: true to replace it, or "
                                 "choose another path", field="path")
        try:
            exported = await anyio.to_thread.run_sync(lambda: compose({
                "composition": composition,
                "operations": [{"op": "export", "formats": ["midi"]}]}))
        except HarmonyError as e:
            return Outcome(_tool_field(e.to_dict()), True)
        try:
            audio, facts = await render({"midi": exported["results"][0]["midi"],
                                         "format": fmt}, progress)
        except RemoteError as e:
            return Outcome(e.body, True)
        await progress.progress(1, 2, "writing the file")
        path = await anyio.to_thread.run_sync(
            lambda: write_audio_file(audio, facts, target, overwrite, env))
        played = await anyio.to_thread.run_sync(lambda: play(path, wait=wait, env=env))
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
    store = CompositionStore(compositions_folder(env))
    listed = {d["name"]: d for d in descriptors()}
    tools = [StdioTool(listed[f"compose_{name}"], op_handler(name, composer, store),
                       composition_summary) for name in OPERATIONS]
    tools.append(StdioTool(listed["play_composition"], play_handler(render, store, env)))
    return build_stdio_server(
        "harmony-compose", "Harmony composer: build a composition (sections, form, chords, "
        "reharmonisation, voicings, an arrangement, melody), transpose it, export it as MIDI, "
        "MusicXML, iReal Pro or ChordPro, and play it here. Start with compose_create; every "
        "answer gives a compositionId (pass it to the next call) and a short summary, never "
        "the whole composition unless includeComposition is true. Compositions are kept in a "
        f"local store ({compositions_folder(env).path}).", tools)


async def serve(env: Mapping[str, str]) -> None:
    async with httpx.AsyncClient(timeout=600.0) as client:
        await run_stdio(build(env, client))


def main() -> None:
    preamble("harmony-compose", "The composition tools: compose_create, compose_add_section, "
             "compose_set_chords, compose_set_form, compose_reharmonize, compose_voice, "
             "compose_arrange, compose_add_notes, compose_transpose, compose_export, "
             "play_composition.", env_help=ENV_HELP + (
                 ";\n  HARMONY_COMPOSITIONS (the store of compositions; default "
                 "$XDG_CACHE_HOME/harmony/compositions), HARMONY_COMPOSITIONS_MAX_FILES "
                 f"(default {MAX_FILES}) and HARMONY_COMPOSITIONS_MAX_MB (default "
                 f"{MAX_BYTES >> 20})"))
    anyio.run(serve, dict(os.environ))
