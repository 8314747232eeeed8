"""``harmony-mcp`` as a subprocess, driven by the SDK's stdio client: in-process (the default,
offline) and as a proxy to a running ``harmony serve`` (``HARMONY_BASE_URL``); what the three
stdio servers share (``server.mcp.stdio``, ``results``, ``progress``): errors as one readable
text without structured content, unknown arguments refused, texts within 8 KB, schemas every
major client accepts, ``conduct_band``'s summary and ``midiPath``, progress notifications, and
``ping`` answered while a long call runs."""

from __future__ import annotations

import base64
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import orjson
import pytest
from mcp import Client, StdioServerParameters

import engine
from server.api.schemas import OPERATIONS
from tests.mcp_live import LiveServer, running_server
from tests.tool_results import tool_error

HARMONY_MCP = str(Path(sys.executable).parent / "harmony-mcp")
# The tools of API.md §8.3, named here so that one that stopped being served fails a test.
TOOLS = ["analyze_chord", "conduct_band", "generate_voicing", "identify_chord", "reharmonize",
         "resolve_chord"]


def error_of(answer: Any) -> dict[str, Any]:
    """The error of a failed tool call as a TypeScript client shows it (``tests.tool_results``),
    its field named in the first line."""
    error = tool_error(answer)
    if "field" in error:
        assert f"field {error['field']!r}" in answer.content[0].text.partition("\n")[0]
    return error


def stdio(env: dict[str, str], script: Any, mode: str = "auto") -> Any:
    clean = {k: v for k, v in os.environ.items()
             if k not in ("HARMONY_BASE_URL", "SERVICE_API_KEY")}
    params = StdioServerParameters(command=HARMONY_MCP, env={**clean, **env})

    async def run() -> Any:
        with anyio.fail_after(60):
            async with Client(params, mode=mode) as client:
                return await script(client)
    return anyio.run(run)


async def analyze_twice(client: Client) -> Any:
    listing = await client.list_tools()
    good = await client.call_tool("analyze_chord", {"chord": "Bb7", "keyContext": "F"})
    bad = await client.call_tool("analyze_chord", {"chord": "Bb7", "key": "F lydian"})
    return listing, good, bad


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_in_process_serves_the_tools_offline(mode: str) -> None:
    listing, good, bad = stdio({}, analyze_twice, mode)
    assert sorted(t.name for t in listing.tools) == TOOLS
    assert all(t.output_schema and t.annotations for t in listing.tools)
    expected = engine.analyze({"chord": "Bb7", "keyContext": "F"})
    assert not good.is_error
    assert good.structured_content == orjson.loads(orjson.dumps(expected))
    assert good.content[0].text.encode() == orjson.dumps(expected)
    error = error_of(bad)
    assert error["code"] == "invalid_key" and "use key C" in error["message"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with running_server(tmp_path_factory.mktemp("stdio-proxy")) as live:
        yield live


def test_proxy_mode_calls_the_service_with_the_key(server: LiveServer) -> None:
    env = {"HARMONY_BASE_URL": server.url, "SERVICE_API_KEY": server.key or ""}
    listing, good, bad = stdio(env, analyze_twice)
    assert sorted(t.name for t in listing.tools) == TOOLS
    assert good.structured_content == orjson.loads(orjson.dumps(
        engine.analyze({"chord": "Bb7", "keyContext": "F"})))
    assert error_of(bad)["code"] == "invalid_key"
    # the proxied success spent one call of the key's monthly quota, the error none
    rest = httpx.post(server.url + "/v2/resolve", json={"chord": "C"}, timeout=30,
                      headers={"authorization": f"Bearer {server.key}"})
    assert rest.headers["x-quota-used"] == "2"


def test_proxy_mode_passes_service_errors_through(server: LiveServer) -> None:
    env = {"HARMONY_BASE_URL": server.url, "SERVICE_API_KEY": "hk_live_" + "x" * 40}

    async def script(client: Client) -> Any:
        return await client.call_tool("resolve_chord", {"chord": "C"})

    refused = stdio(env, script)
    assert error_of(refused)["code"] == "unauthorized"


def test_proxy_mode_reports_an_unreachable_service() -> None:
    from tests.mcp_live import free_port

    env = {"HARMONY_BASE_URL": f"http://127.0.0.1:{free_port()}", "SERVICE_API_KEY": "k"}

    async def script(client: Client) -> Any:
        return await client.call_tool("resolve_chord", {"chord": "C"})

    failed = stdio(env, script)
    error = error_of(failed)
    assert error["code"] == "internal_error" and "cannot reach" in error["message"]


def test_proxy_requests_carry_the_key_and_an_explicit_user_agent() -> None:
    from server.mcp.stdio import USER_AGENT, remote_caller
    from server.mcp.tools import McpTool

    seen: list[httpx.Request] = []

    def service(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.path == "/v2/analyze":
            return httpx.Response(400, json={"error": {"code": "invalid_chord",
                                                       "message": "no", "symbol": "H"}})
        return httpx.Response(200, json={"chord": "C"})

    tools = [McpTool(name, op, path, lambda args: {}, {})
             for name, op, path in (("analyze_chord", "analyze", "/v2/analyze"),
                                    ("resolve_chord", "resolve", "/v2/resolve"))]

    async def run() -> Any:
        async with httpx.AsyncClient(transport=httpx.MockTransport(service)) as client:
            call = remote_caller("http://svc.test/", "hk_live_k", client)
            return [await call(tool, {"chord": "H"}) for tool in tools]

    (error, failed), (result, ok) = anyio.run(run)
    assert failed and error == {"error": {"code": "invalid_chord", "message": "no",
                                          "symbol": "H"}}
    assert not ok and result == {"chord": "C"}
    assert [str(r.url) for r in seen] == ["http://svc.test/v2/analyze",
                                          "http://svc.test/v2/resolve"]
    assert all(r.headers["user-agent"] == USER_AGENT and
               r.headers["authorization"] == "Bearer hk_live_k" for r in seen)
    assert orjson.loads(seen[0].content) == {"chord": "H"}


def test_in_process_reports_a_bug_as_an_internal_error_result(monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]
                                                              ) -> None:
    import dataclasses

    from server.mcp.stdio import call_in_process
    from server.mcp.tools import tool_table

    def broken(request: Any) -> dict[str, Any]:
        raise RuntimeError("a bug at /srv/secret")

    monkeypatch.setitem(OPERATIONS, "resolve",
                        dataclasses.replace(OPERATIONS["resolve"], impl=broken))
    tool = tool_table()["resolve_chord"]
    error, failed = anyio.run(call_in_process, tool, {"chord": "C"})
    request_id = error["error"].pop("requestId")
    assert failed and error == {"error": {"code": "internal_error", "message": "internal error"}}
    logged = capsys.readouterr().err  # one line on the server's stderr, never to the client
    assert "/srv/secret" in logged and f"internal error {request_id}" in logged
    # an engine error is still passed as it is
    error, failed = anyio.run(call_in_process, tool_table()["analyze_chord"], {"chord": "H7"})
    assert failed and error["error"]["code"] == "invalid_chord"


# ---------------------------------------------------------------- what the three servers share

def servers(env: dict[str, str]) -> dict[str, Any]:
    """The three stdio servers, built in-process (their tools listed as over stdio)."""
    from server.mcp import composer, conductor
    from server.mcp.stdio import build_server, call_in_process
    from server.mcp.tools import tool_table

    client = httpx.AsyncClient()
    return {"harmony-mcp": build_server(tool_table(), call_in_process),
            "harmony-conductor": conductor.build(env, client),
            "harmony-compose": composer.build(env, client)}


def in_process(server: Any, script: Any, mode: str = "auto") -> Any:
    async def run() -> Any:
        with anyio.fail_after(60):
            async with Client(server, mode=mode) as client:
                return await script(client)
    return anyio.run(run)


def test_every_tool_schema_is_one_every_major_client_accepts(tmp_path: Path) -> None:
    import jsonschema

    from server.mcp.portable import TOP_LEVEL_FORBIDDEN as TOP_LEVEL_REFUSED

    async def listing(client: Client) -> Any:
        return (await client.list_tools()).tools

    for name, server in servers({"XDG_CACHE_HOME": str(tmp_path)}).items():
        for tool in in_process(server, listing):
            schema = tool.input_schema
            assert schema["type"] == "object", tool.name
            assert not set(schema) & set(TOP_LEVEL_REFUSED), (name, tool.name)
            jsonschema.Draft202012Validator.check_schema(schema)
            jsonschema.Draft202012Validator.check_schema(tool.output_schema)
            if name == "harmony-mcp" and tool.name != "conduct_band":
                continue  # the shared table's descriptions: tests/test_server_schemas.py
            assert all(p.get("description") for p in schema["properties"].values()), tool.name
            # what it is for, when to pick it, and one example call
            assert len(tool.description) > 200 and "Example: {" in tool.description, tool.name
            example = orjson.loads(tool.description.rsplit("Example: ", 1)[1])
            assert set(example) <= set(schema["properties"]), tool.name


def test_unknown_arguments_and_tools_are_refused_by_name() -> None:
    async def script(client: Client) -> Any:
        misspelt = await client.call_tool("analyze_chord", {"chord": "Bb7", "Key": "F"})
        nameless = await client.call_tool("analyse_chord", {"chord": "Bb7"})
        return misspelt, nameless

    misspelt, nameless = stdio({}, script)
    error = error_of(misspelt)
    assert (error["code"], error["field"]) == ("invalid_request", "Key")
    assert "did you mean 'key'?" in error["message"]
    assert error["message"].endswith(
        "analyze_chord takes chord, progression, key, keyContext, detail")
    assert error_of(nameless)["field"] == "name"


def test_conduct_band_answers_a_summary_and_writes_the_midi(tmp_path: Path) -> None:
    request = {"prompt": "medium swing blues in F, walking bass", "durationSec": 120}
    target = tmp_path / "blues.mid"

    async def script(client: Client) -> Any:
        return [await client.call_tool("conduct_band", request),
                await client.call_tool("conduct_band", {**request, "detail": "full"}),
                await client.call_tool("conduct_band", {**request, "midiPath": str(target)}),
                await client.call_tool("conduct_band", {**request, "midiPath": str(target)}),
                await client.call_tool("conduct_band", {**request, "midiPath": str(target),
                                                        "overwrite": True}),
                await client.call_tool("conduct_band", {**request, "detail": "all"})]

    summary, full, written, again, replaced, bad = stdio({}, script)
    whole = orjson.loads(orjson.dumps(engine.conduct(request)))
    shown = {k: v for k, v in whole.items() if k not in ("lanes", "midi")}
    assert summary.structured_content == shown
    assert summary.content[0].text.encode() == orjson.dumps(shown)
    assert len(orjson.dumps(shown)) < 8192  # a 2-minute piece: text and structured both
    assert full.structured_content == whole and len(orjson.dumps(whole)) > 100_000
    text = full.content[0].text
    assert len(text.encode()) <= 8192 and text.startswith("The result is")
    assert "(in structuredContent" in text
    assert orjson.dumps(whole["leadSheet"]).decode()[:40] in text
    assert written.structured_content == {**shown, "midiPath": str(target)}
    assert target.read_bytes() == base64.b64decode(whole["midi"])
    error = error_of(again)
    assert error["field"] == "midiPath" and "overwrite: true" in error["message"]
    assert not replaced.is_error and target.read_bytes() == base64.b64decode(whole["midi"])
    assert error_of(bad)["field"] == "detail"


def test_a_long_text_is_abbreviated_within_the_budget() -> None:
    from server.mcp.tools import TEXT_BUDGET, answer_text

    small = {"chord": "C", "notes": ["C", "E", "G"]}
    assert answer_text(small) == orjson.dumps(small).decode()
    big = {"title": "x" * 20_000, "rows": [{"n": i, "name": f"row {i}"} for i in range(5000)]}
    text = answer_text(big)
    assert len(text.encode()) <= TEXT_BUDGET
    note, _, shown = text.partition("\n")
    assert note.startswith(f"The result is {len(orjson.dumps(big)):,} bytes")
    cut = orjson.loads(shown)
    assert cut["rows"][0] == {"n": 0, "name": "row 0"} and cut["rows"][-1].endswith(" more")


def test_a_long_call_reports_progress_and_never_stops_ping(monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """The engine runs on a worker thread: while a conduct call is held inside the engine, a
    ping is answered; then the call ends, its progress notifications rising to the total."""
    import dataclasses
    import threading

    from server.mcp.stdio import build_server, call_in_process
    from server.mcp.tools import tool_table

    request = {"prompt": "medium swing blues in F", "durationSec": 30}
    result = engine.conduct(request)
    entered, release = threading.Event(), threading.Event()
    released: list[bool] = []

    def held(req: Any) -> dict[str, Any]:
        entered.set()
        # released by the test once its ping is answered; on the event loop, that could not
        # happen and this would time out
        released.append(release.wait(20))
        return result

    monkeypatch.setitem(OPERATIONS, "conduct",
                        dataclasses.replace(OPERATIONS["conduct"], impl=held))
    server = build_server(tool_table(), call_in_process)
    order: list[str] = []
    progress: list[tuple[float, float | None, str | None]] = []

    async def noted(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    async def script(client: Client) -> Any:
        answer: list[Any] = []

        async def long_call() -> None:
            answer.append(await client.call_tool("conduct_band", request,
                                                 progress_callback=noted))
            order.append("result")

        async with anyio.create_task_group() as group:
            group.start_soon(long_call)
            await anyio.to_thread.run_sync(entered.wait)
            await client.session.send_ping()  # the session's: not marked deprecated
            order.append("pong")
            release.set()
        return answer[0]

    answer = in_process(server, script, "legacy")  # ping is a method of the handshake era
    assert released == [True] and order == ["pong", "result"]
    assert not answer.is_error and "lanes" not in answer.structured_content
    assert progress[0] == (0, 1, "conduct_band: computing") and progress[-1] == (1, 1, "done")
    assert [p[0] for p in progress] == sorted({p[0] for p in progress})  # always rising


def test_progress_rises_while_a_call_waits_and_never_fails_it(monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    from server.mcp import progress as module
    from server.mcp.progress import Call

    monkeypatch.setattr(module, "HEARTBEAT", 0.01)
    seen: list[tuple[float, float | None, str | None]] = []
    beaten = anyio.Event()

    async def report(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))
        if len(seen) == 3:
            beaten.set()

    async def refuse(done: float, total: float | None, message: str | None) -> None:
        raise BrokenPipeError("the client went away")

    async def until_beaten() -> str:
        await beaten.wait()
        return "rendered"

    async def broken() -> str:
        raise ValueError("no")

    async def run() -> Any:
        with anyio.fail_after(30):
            call = Call(report)
            value = await call.during(until_beaten, step=1, total=3, message="rendering")
            await call.finish()
            with pytest.raises(ValueError):
                await Call(report).during(broken)
            quiet = Call(refuse)
            assert await quiet.work(lambda: 42) == 42  # notifications that fail are dropped
            return value

    assert anyio.run(run) == "rendered"
    assert seen[:4] == [(1, 3, "rendering"), (1.5, 3, "rendering (0.01 s)"),
                        (1.75, 3, "rendering (0.02 s)"), (3, 3, "done")]


def test_identify_chord_reads_notes_and_a_file_path_over_stdio(tmp_path: Path) -> None:
    from tests.test_identify_files import PIANO, mxl

    score = tmp_path / "ii-v-i.musicxml"
    score.write_text(PIANO)
    packed = tmp_path / "ii-v-i.mxl"
    packed.write_bytes(mxl(PIANO))

    async def script(client: Client) -> Any:
        return (await client.call_tool("identify_chord", {"notes": ["B", "D", "F", "A"],
                                                          "key": "C"}),
                await client.call_tool("identify_chord", {"path": str(score)}),
                await client.call_tool("identify_chord", {"notes": ["C", "H"]}),
                await client.call_tool("identify_chord", {"path": str(tmp_path / "none.mid")}),
                await client.call_tool("identify_chord", {"path": str(packed)}))

    notes, by_path, bad_note, no_file, compressed = stdio({}, script)
    assert notes.structured_content["readings"][0]["symbol"] == "G9"
    assert by_path.structured_content["leadSheet"] == "| Dm7 | G7 | Cmaj7 |"
    assert error_of(bad_note)["field"] == "notes" and "'H'" in error_of(bad_note)["message"]
    assert error_of(no_file)["field"] == "path"
    assert compressed.structured_content["leadSheet"] == "| Dm7 | G7 | Cmaj7 |"
