"""The servers as the assistants people use see them: the official TypeScript SDK's ``Client``
(what Claude Desktop, Claude Code, Cursor, VS Code and the MCP Inspector are built on) and the
MCP Inspector's CLI, pinned in ``tests/clients/`` and installed by ``tests/ts_clients.py``, drive
``/mcp`` on a real ``harmony serve`` (streamable HTTP, loopback) and the three stdio servers
(engine in-process). One Node process per server runs all of that server's calls; what each call
gave the TypeScript client (its CallToolResult, or the error the SDK raised, such as its check
of ``structuredContent`` against the tool's ``outputSchema``) is what the tests read.

Written against API.md section 8: schemas every client accepts, a valid call of every tool, the
8 KB budget of a default call, errors whose text carries the code and message, unknown
arguments refused by name, and a key-less ``tools/call`` told that an API key is needed."""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.compose import compose
from tests import ts_clients
from tests.mcp_live import LiveServer, free_port, running_server

BIN = Path(sys.executable).parent
HTTP = "/mcp"
NO_KEY = "/mcp without a key"
STDIO = ("harmony-mcp", "harmony-conductor", "harmony-compose")
SERVERS = (HTTP, *STDIO)
# The tools each server must list (API.md 8.1, 8.3, 12, 13, 14): one that stopped being served
# fails here instead of dropping out of the tests. A server may list more (identify_chord, when
# it lands): every listed tool needs a valid call below.
CORE = {HTTP: {"analyze_chord", "resolve_chord", "generate_voicing", "reharmonize",
               "conduct_band"},
        "harmony-mcp": {"analyze_chord", "resolve_chord", "generate_voicing", "reharmonize",
                        "conduct_band"},
        "harmony-conductor": {"conduct_band", "render_audio", "play_audio", "search_corpus"},
        "harmony-compose": {"compose_create", "compose_add_section", "compose_set_chords",
                            "compose_set_form", "compose_reharmonize", "compose_voice",
                            "compose_arrange", "compose_add_notes", "compose_transpose",
                            "compose_export", "play_composition"}}
BUDGET = 8192          # bytes of a default call's text, and of its structuredContent
# How long a client waits for a server to start and answer initialize and tools/list: a stdio
# server imports the engine first (about 2 s on a quiet machine, 10 s and more when the test
# machine is loaded, with the other servers and clients of these tests starting at the same
# time), longer than the Inspector's own 15 s connect timeout. Generous, and only an upper
# bound: a server that answers sooner is not waited for.
STARTUP_MS = 240_000
TOP_LEVEL_FORBIDDEN = ("oneOf", "anyOf", "allOf", "not", "if", "then", "else")


def latest(call_id: str) -> dict[str, Any]:
    """The compositionId that the call ``call_id`` answered (each compose call answers the id of
    the new version, as an assistant passes it on)."""
    return {"$ref": [call_id, "compositionId"]}


def valid_calls(scratch: Path) -> dict[str, dict[str, Any]]:
    """One ordinary call of each tool (small arguments, each tool's defaults otherwise), in the
    order they run: the render writes the file that play_audio plays, and each compose tool works
    on the composition the one before it answered, by its id."""
    take = str(scratch / "take.wav")
    return {
        "analyze_chord": {"chord": "Dm7b5", "keyContext": "Cm"},
        "resolve_chord": {"chord": "G13", "octave": 3},
        "generate_voicing": {"chord": "Cmaj7", "style": "drop2"},
        "reharmonize": {"progression": "Dm7 G7 Cmaj7", "key": "C"},
        "conduct_band": {"prompt": "medium swing blues in F, 12 bars"},
        "identify_chord": {"notes": ["E3", "G3", "B3", "D4"]},
        "render_audio": {"prompt": "bossa nova in D minor", "durationSec": 5, "engine": "basic",
                         "sampleRate": 22050, "channels": 1, "path": take},
        "play_audio": {"path": take, "wait": True},
        "search_corpus": {"pattern": "Dm7 G7 Cmaj7", "limit": 3},
        "compose_create": {"title": "Test tune", "key": "C", "tempo": 120,
                           "progression": "A: Dm7 G7 | Cmaj7 | Dm7 G7 | Cmaj7", "form": ["A"]},
        "compose_add_section": {"compositionId": latest("compose_create"), "id": "B",
                                "progression": "Em7 A7 | Dm7 G7", "after": "A"},
        "compose_set_chords": {"compositionId": latest("compose_add_section"), "section": "B",
                               "progression": "Em7b5 A7 | Dm7 G7"},
        "compose_set_form": {"compositionId": latest("compose_set_chords"),
                             "form": ["A", "B", "A"]},
        "compose_reharmonize": {"compositionId": latest("compose_set_form"), "section": "A",
                                "technique": "tritone_sub"},
        "compose_voice": {"compositionId": latest("compose_reharmonize"), "style": "drop2"},
        "compose_arrange": {"compositionId": latest("compose_voice"), "style": "swing",
                            "seed": 1},
        "compose_add_notes": {"compositionId": latest("compose_arrange"), "section": "A",
                              "notes": [{"bar": 1, "beat": 1, "duration": 1, "pitch": 72,
                                         "velocity": 90}]},
        "compose_transpose": {"compositionId": latest("compose_add_notes"), "key": "F"},
        "compose_export": {"compositionId": latest("compose_transpose"),
                           "formats": ["leadsheet"]},
        "play_composition": {"compositionId": latest("compose_transpose"), "wait": True},
    }


INLINE_COMPOSITION = compose({"operations": [
    {"op": "create", "title": "Inline", "key": "F", "progression": "A: Gm7 C7 | Fmaj7"}]}
)["composition"]

# Per server: a call whose chord symbol does not parse, and one with a misspelt argument.
INVALID = {"analyze_chord": {"chord": "Cmaj7#"},
           "conduct_band": {"prompt": "medium swing", "progression": "Cmaj7# G7"},
           "compose_create": {"title": "Test tune", "progression": "Cmaj7# G7"}}
UNKNOWN = {"analyze_chord": ({"chord": "C7", "Key": "F"}, "Key"),
           "conduct_band": ({"prompt": "medium swing in F", "Seed": 3}, "Seed"),
           "compose_create": ({"title": "Test tune", "Tempo": 100}, "Tempo")}
PROBE_TOOL = {HTTP: "analyze_chord", "harmony-mcp": "analyze_chord",
              "harmony-conductor": "conduct_band", "harmony-compose": "compose_create"}


@pytest.fixture(scope="module")
def clients() -> ts_clients.Clients:
    try:
        return ts_clients.install()
    except ts_clients.Unavailable as e:
        if os.environ.get("HARMONY_TS_CLIENTS_REQUIRED"):
            pytest.fail(f"the TypeScript clients cannot be installed: {e}")
        pytest.skip(f"the TypeScript clients cannot be installed: {e}")


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with running_server(tmp_path_factory.mktemp("ts-http"), per_month=10_000) as server:
        yield server


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("ts-clients")


def stdio_env(scratch: Path) -> dict[str, str]:
    """A stdio server's environment: in-process engine (no proxy settings inherited), its files
    (temporary files, the renders and compositions cache folders) in ``scratch``, and a player that plays nothing (a Python that exits at once), so play_audio
    and play_composition run everywhere without a sound device (tests/test_player.py plays into
    an ALSA null device)."""
    for folder in ("server-tmp", "server-cache"):
        (scratch / folder).mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items()
           if k not in ("HARMONY_BASE_URL", "SERVICE_API_KEY", "HARMONY_AUDIO_PLAYER",
                        "HARMONY_RENDERS", "HARMONY_COMPOSITIONS")}
    return {**env, "TMPDIR": str(scratch / "server-tmp"),
            "XDG_CACHE_HOME": str(scratch / "server-cache"),   # renders, compositions
            "HARMONY_AUDIO_PLAYER": f"{sys.executable} -c pass"}


def plan_for(name: str, live: LiveServer, scratch: Path) -> dict[str, Any]:
    valid = valid_calls(scratch)
    tools = CORE[name] | ({"identify_chord"} if name in (HTTP, "harmony-mcp") else set())
    calls: list[dict[str, Any]] = [{"id": tool, "tool": tool, "arguments": args}
                                   for tool, args in valid.items() if tool in tools]
    if name == "harmony-compose":   # a composition passed inline (the client kept it)
        calls.append({"id": "inline", "tool": "compose_export", "arguments": {
            "composition": INLINE_COMPOSITION, "formats": ["leadsheet", "ireal"]}})
    probe = PROBE_TOOL[name]
    calls.append({"id": "invalid", "tool": probe, "arguments": INVALID[probe]})
    calls.append({"id": "unknown", "tool": probe, "arguments": UNKNOWN[probe][0]})
    server: dict[str, Any] = {"name": name, "calls": calls, "timeoutMs": STARTUP_MS}
    if name == HTTP:
        server["http"] = {"url": live.url + "/mcp",
                          "headers": {"Authorization": f"Bearer {live.key}"}}
        return {"servers": [server, {"name": NO_KEY, "http": {"url": live.url + "/mcp"},
                                     "timeoutMs": STARTUP_MS,
                                     "calls": [{"id": "analyze_chord", "tool": "analyze_chord",
                                                "arguments": {"chord": "C7"}}]}]}
    server["stdio"] = {"command": str(BIN / name), "env": stdio_env(scratch), "cwd": str(scratch)}
    return {"servers": [server]}


@pytest.fixture(scope="module")
def reports(clients: ts_clients.Clients, live: LiveServer, scratch: Path) -> dict[str, Any]:
    """What the TypeScript client saw of each server: one Node process per server, all four
    started at once."""
    started = {name: clients.start_drive(plan_for(name, live, scratch),
                                         scratch / name.strip("/").replace(" ", "-"))
               for name in SERVERS}
    out: dict[str, Any] = {}
    for got in ts_clients.finish_all(started).values():
        out.update(got["servers"])
    return out


def report(reports: dict[str, Any], name: str) -> dict[str, Any]:
    got: dict[str, Any] = reports[name]
    assert "error" not in got, f"{name}: the TypeScript client failed: {got['error']} " \
                               f"{got.get('stderr', '')[-2000:]}"
    return got


def call(reports: dict[str, Any], name: str, call_id: str) -> dict[str, Any]:
    entries = [c for c in report(reports, name)["calls"] if c["id"] == call_id]
    assert len(entries) == 1, (name, call_id)
    entry: dict[str, Any] = entries[0]
    return entry


def texts(result: dict[str, Any]) -> list[str]:
    return [block["text"] for block in result.get("content", []) if block.get("type") == "text"]


def listed(reports: dict[str, Any], name: str) -> dict[str, dict[str, Any]]:
    return {tool["name"]: tool for tool in report(reports, name)["tools"]}


def test_the_pinned_clients_are_the_ones_running(clients: ts_clients.Clients,
                                                  reports: dict[str, Any]) -> None:
    pinned = json.loads((ts_clients.SOURCE / "package.json").read_text())
    wanted = {**pinned["dependencies"], **pinned["optionalDependencies"]}
    for package in ("@modelcontextprotocol/sdk", "@modelcontextprotocol/inspector"):
        assert clients.version(package) == wanted[package]
    node = ts_clients.node_version(clients.node)
    assert node is not None and node[:2] >= ts_clients.NODE_MIN
    if clients.node.is_relative_to(clients.home):   # the pinned binary, where it installs
        assert ".".join(map(str, node)) == wanted[clients.node.parent.parent.name]


@pytest.mark.parametrize("name", SERVERS)
def test_every_tool_is_listed_with_a_schema_every_client_accepts(reports: dict[str, Any],
                                                                  name: str) -> None:
    tools = listed(reports, name)
    assert CORE[name] <= set(tools), f"{name} no longer lists {CORE[name] - set(tools)}"
    problems = []
    for tool in tools.values():
        schema = tool["inputSchema"]
        if schema.get("type") != "object":
            problems.append(f"{tool['name']}: type {schema.get('type')!r} at the top")
        problems += [f"{tool['name']}: top-level {word}" for word in TOP_LEVEL_FORBIDDEN
                     if word in schema]
        problems += [f"{tool['name']}.{prop}: no description"
                     for prop, spec in schema.get("properties", {}).items()
                     if not (isinstance(spec, dict) and spec.get("description"))]
        if not tool.get("description"):
            problems.append(f"{tool['name']}: no description")
    assert not problems, f"{name}: " + "; ".join(problems)


def valid_call_problems(reports: dict[str, Any], name: str, tool: str) -> list[str]:
    """What is wrong with the valid call of ``tool`` on ``name``: an SDK error (the client
    checks structuredContent against the outputSchema), an error result, no text, or a text or
    structuredContent over the 8 KB budget."""
    entry = call(reports, name, tool)
    if "error" in entry:
        return [f"{tool}: the TS client raised {entry['error']['message'][:400]}"]
    result = entry["result"]
    if result.get("isError"):
        return [f"{tool}: error result {' '.join(texts(result))[:400]}"]
    problems = [] if texts(result) else [f"{tool}: no text content"]
    text = sum(len(t.encode()) for t in texts(result))
    structured = len(json.dumps(result.get("structuredContent"), ensure_ascii=False,
                                separators=(",", ":")).encode())
    if text > BUDGET or structured > BUDGET:
        problems.append(f"{tool}: {text} bytes of text, {structured} bytes of "
                        f"structuredContent (budget {BUDGET})")
    return problems


@pytest.mark.parametrize(("name", "tool"), [(name, tool) for name in SERVERS
                                            for tool in sorted(CORE[name])])
def test_a_valid_call_succeeds_within_the_budget(reports: dict[str, Any], name: str,
                                                 tool: str) -> None:
    """The tool called with ordinary arguments and its defaults (its default call)."""
    problems = valid_call_problems(reports, name, tool)
    assert not problems, f"{name}: " + "; ".join(problems)


@pytest.mark.parametrize("name", SERVERS)
def test_every_other_listed_tool_has_a_valid_call_too(reports: dict[str, Any],
                                                      name: str) -> None:
    """A tool a server lists beyond CORE (identify_chord, once it lands) is called too."""
    extra = set(listed(reports, name)) - CORE[name]
    missing = extra - set(valid_calls(Path("unused")))
    assert not missing, f"{name}: no valid call written for {missing}"
    problems = [p for tool in sorted(extra) for p in valid_call_problems(reports, name, tool)]
    assert not problems, f"{name}: " + "; ".join(problems)


def test_a_compose_tool_takes_a_composition_inline(reports: dict[str, Any]) -> None:
    problems = valid_call_problems(reports, "harmony-compose", "inline")
    assert not problems, problems
    exported = call(reports, "harmony-compose", "inline")["result"]["structuredContent"]
    assert "Gm7" in json.dumps(exported) and "irealbook://" in json.dumps(exported)


def test_what_the_valid_calls_did(reports: dict[str, Any], scratch: Path) -> None:
    """A few results read as a user would: the numbers and files the calls promised."""
    analysis = call(reports, HTTP, "analyze_chord")["result"]["structuredContent"]
    assert (analysis["chord"], analysis["key"], analysis["numeral"]) == ("Dm7b5", "Cm", "iiø7")
    render = call(reports, "harmony-conductor", "render_audio")["result"]
    assert render["structuredContent"]["path"] == str(scratch / "take.wav")
    assert (scratch / "take.wav").stat().st_size > 44
    assert any(block["type"] == "audio" and block["mimeType"] == "audio/wav"
               for block in render["content"])
    played = call(reports, "harmony-conductor", "play_audio")["result"]["structuredContent"]
    assert played["path"] == str(scratch / "take.wav") and played["waited"] is True


@pytest.mark.parametrize("name", SERVERS)
def test_an_engine_error_reaches_the_client_as_text(reports: dict[str, Any], name: str) -> None:
    """The chord that does not parse: an error result whose text carries the code and the
    message, and no structuredContent the client would reject ("Structured content does not
    match the tool's output schema" hid the message from every TypeScript client)."""
    entry = call(reports, name, "invalid")
    assert "error" not in entry, f"the TS client raised: {entry['error']['message'][:500]}"
    result = entry["result"]
    assert result.get("isError") is True
    text = " ".join(texts(result))
    assert "invalid_chord" in text and "Cmaj7#" in text, text
    assert "structuredContent" not in result, result["structuredContent"]


@pytest.mark.parametrize("name", SERVERS)
def test_an_unknown_argument_is_an_error_naming_it(reports: dict[str, Any], name: str) -> None:
    entry = call(reports, name, "unknown")
    assert "error" not in entry, f"the TS client raised: {entry['error']['message'][:500]}"
    result = entry["result"]
    text = " ".join(texts(result))
    assert result.get("isError") is True, f"a misspelt argument was taken: {text[:300]}"
    assert UNKNOWN[PROBE_TOOL[name]][1] in text, text


def test_a_call_without_a_key_is_told_an_api_key_is_needed(reports: dict[str, Any]) -> None:
    got = reports[NO_KEY]
    assert "error" not in got, got["error"]
    assert CORE[HTTP] <= {tool["name"] for tool in got["tools"]}   # listing needs no key
    entry = call(reports, NO_KEY, "analyze_chord")
    assert "error" in entry, f"a call without a key succeeded: {entry.get('result')}"
    assert "API key" in entry["error"]["message"], entry["error"]["message"]


# The MCP Inspector's CLI: the same servers, listed and called as its users do.

@pytest.fixture(scope="module")
def inspector(clients: ts_clients.Clients, live: LiveServer, scratch: Path) -> dict[str, Any]:
    stdio = [str(BIN / "harmony-mcp")]
    http = [live.url + "/mcp", "--transport", "http", "--header",
            f"Authorization: Bearer {live.key}", "--stored-auth-only"]
    dm7 = ["--method", "tools/call", "--tool-name", "analyze_chord", "--tool-arg", "chord=Dm7"]
    runs = {"stdio list": [*stdio, "--method", "tools/list"],
            "http list": [*http, "--method", "tools/list"],
            "stdio call": [*stdio, *dm7],
            "http call": [*http, *dm7],
            "stdio invalid": [*stdio, "--method", "tools/call", "--tool-name", "analyze_chord",
                              "--tool-arg", "chord=Cmaj7#"],
            "http no key": [live.url + "/mcp", "--transport", "http", "--stored-auth-only",
                            *dm7]}
    work = scratch / "inspector"
    work.mkdir()
    connect = ["--connect-timeout", str(STARTUP_MS)]
    started = {what: clients.start_inspector([*args, *connect, "--format", "json"], work)
               for what, args in runs.items()}
    if shutil.which("script"):   # util-linux, on every Debian
        callback = f"http://127.0.0.1:{free_port()}/oauth/callback"
        started["terminal no key"] = clients.start_inspector(
            [live.url + "/mcp", "--transport", "http", "--callback-url", callback, *dm7,
             *connect], work, terminal=True)
    out: dict[str, dict[str, Any]] = {}
    for what, proc in started.items():
        try:
            code, stdout, stderr = ts_clients.collect(proc, timeout=300)
        except AssertionError as e:   # killed: the other runs are still waited for
            code, stdout, stderr = -1, "", str(e)
        if what.startswith("terminal"):
            out[what] = {"exit": code, "screen": stdout[-5000:] + stderr[-3000:]}
            continue
        out[what] = {"exit": code, "stderr": stderr[-8000:],
                     "json": json.loads(stdout) if stdout.strip() else None}
    # an error (exit status not 0) is one JSON object on stderr
    for run in out.values():
        lines = [line for line in run.get("stderr", "").splitlines() if line.startswith("{")]
        if "json" in run and run["json"] is None and lines:
            run["error"] = json.loads(lines[-1])["error"]
    return out


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_inspector_lists_the_tools(inspector: dict[str, Any], transport: str) -> None:
    run = inspector[f"{transport} list"]
    assert run["exit"] == 0, run
    names = {tool["name"] for tool in run["json"]["result"]["tools"]}
    assert CORE["harmony-mcp"] <= names


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_inspector_calls_a_tool(inspector: dict[str, Any], transport: str) -> None:
    run = inspector[f"{transport} call"]
    assert run["exit"] == 0, run
    result = run["json"]["result"]
    assert not result.get("isError")
    assert result["structuredContent"]["numeral"] == "ii7"
    assert json.loads(result["content"][0]["text"])["chord"] == "Dm7"


def test_inspector_shows_an_engine_error(inspector: dict[str, Any]) -> None:
    run = inspector["stdio invalid"]
    assert run["json"] is not None, run
    assert "error" not in run["json"], run["json"]["error"]     # not the outputSchema complaint
    result = run["json"]["result"]
    text = " ".join(texts(result))
    assert result.get("isError") is True and "invalid_chord" in text and "Cmaj7#" in text


def test_inspector_without_a_key_is_told_an_api_key_is_needed(inspector: dict[str, Any]) -> None:
    """Any 401 makes Inspector 2.12's CLI start its OAuth flow for an HTTP server (it asks for a
    TTY when it has none); with ``--stored-auth-only`` it shows the server's own message."""
    run = inspector["http no key"]
    assert run["exit"] != 0 and run["json"] is None, run
    assert run["error"]["code"] == "auth_required"
    assert "API key" in run["error"]["message"], run["error"]


def test_inspector_in_a_terminal_without_a_key_is_told_an_api_key_is_needed(
        inspector: dict[str, Any]) -> None:
    """At a shell (a TTY), the Inspector answers the 401 with its OAuth flow; what the user
    reads is then our answer on the discovery path (docs/mcp-clients.md), which must say that
    an API key is needed."""
    if "terminal no key" not in inspector:
        pytest.skip("util-linux's script is not installed: no pseudo-terminal to run it in")
    run = inspector["terminal no key"]
    assert run["exit"] != 0, run
    assert "API key" in run["screen"], run["screen"]
