"""The WSGI entry (``harmony serve``'s interface in the local profile) gives the same answers as
the ASGI and RSGI ones: driven here in-process with an environ and a body stream shaped like
granian's (``HTTP_*`` headers, ``wsgi.input`` read on demand)."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import threading
from pathlib import Path
from typing import Any

import orjson
import pytest

from server.http.app import HarmonyApp
from server.http.context import Context
from server.http.settings import Settings
from server.http.wsgi import Headers, LoopThread, run
from tests.server_fixtures import make, new_key


class Stream:
    """granian's ``wsgi.input``: reads what is asked, up to what the client sent."""

    def __init__(self, body: bytes = b"") -> None:
        self.body = body
        self.asked: list[int] = []

    def read(self, size: int = -1) -> bytes:
        self.asked.append(size)
        return self.body if size < 0 else self.body[:size]


class Answer:
    """``start_response``: records the status line and headers."""

    def __init__(self) -> None:
        self.status, self.headers = "", dict[str, str]()

    def __call__(self, status: str, headers: list[tuple[str, str]]) -> None:
        self.status, self.headers = status, dict(headers)


def environ(method: str, path: str, headers: dict[str, str], stream: Stream) -> dict[str, Any]:
    env: dict[str, Any] = {"REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": "",
                           "REMOTE_ADDR": "203.0.113.7", "wsgi.input": stream}
    for name, value in headers.items():
        key = name.upper().replace("-", "_")
        env[key if key in ("CONTENT_LENGTH", "CONTENT_TYPE") else "HTTP_" + key] = value
    return env


def call(app: HarmonyApp, method: str, path: str, headers: dict[str, str],
         stream: Stream | None = None) -> tuple[str, dict[str, str], bytes]:
    answer = Answer()
    body = b"".join(app.wsgi(environ(method, path, headers, stream or Stream()), answer))
    return answer.status, answer.headers, body


@pytest.fixture
def served(tmp_path: Path) -> Any:
    app, store = make(tmp_path)
    app.start_wsgi()
    yield app, store
    app.stop_wsgi()


def test_operation_health_and_head(served: Any) -> None:
    app, store = served
    _, secret = new_key(store)
    body = b'{"chord":"Dm7","key":"C"}'
    status, headers, content = call(app, "POST", "/v2/analyze",
                                    {"authorization": f"Bearer {secret}",
                                     "content-length": str(len(body))}, Stream(body))
    assert (status, orjson.loads(content)) == ("200 OK", {"chord": "Dm7", "key": "C"})
    assert headers["content-type"] == "application/json"
    assert (headers["x-quota-used"], headers["ratelimit-remaining"]) == ("1", "29")
    status, headers, content = call(app, "HEAD", "/health", {})
    assert (status, content) == ("200 OK", b"")
    assert int(headers["content-length"]) == len(app.health_body)


def test_errors_keep_their_status_and_headers(served: Any) -> None:
    app, _ = served
    stream = Stream(b"{}")
    status, headers, content = call(app, "POST", "/v2/analyze", {"content-length": "2"}, stream)
    assert (status, orjson.loads(content)["error"]["code"]) == ("401 Unauthorized",
                                                                "unauthorized")
    assert headers["www-authenticate"].startswith("Bearer") and stream.asked == []
    status, headers, _ = call(app, "PUT", "/health", {})
    assert (status, headers["allow"]) == ("405 Method Not Allowed", "GET, HEAD")


def test_a_body_is_read_within_the_cap_and_only_after_the_key(served: Any) -> None:
    app, store = served
    _, secret = new_key(store)
    # Declared over the cap: refused unread.
    stream = Stream(b"x" * 70_000)
    status, headers, content = call(app, "POST", "/v2/analyze",
                                    {"content-length": "70000",
                                     "authorization": f"Bearer {secret}"}, stream)
    assert (status, orjson.loads(content)["error"]["code"]) == ("413 Request Entity Too Large",
                                                                "payload_too_large")
    assert stream.asked == []
    # No declared length: read to one byte past the cap at most, then refused; the month's
    # unit goes back.
    stream = Stream(b"x" * 120_000)
    status, headers, content = call(app, "POST", "/v2/analyze",
                                    {"authorization": f"Bearer {secret}"}, stream)
    assert orjson.loads(content)["error"]["code"] == "payload_too_large"
    assert stream.asked == [64 * 1024 + 1] and headers["x-quota-used"] == "0"


def test_a_client_gone_before_its_body_gets_no_answer_and_spends_no_quota(
        served: Any) -> None:
    app, store = served
    _, secret = new_key(store)
    auth = {"authorization": f"Bearer {secret}"}
    status, _, content = call(app, "POST", "/v2/analyze", {**auth, "content-length": "20"},
                              Stream(b'{"chord":'))   # 9 of the 20 bytes declared
    assert (status, content) == ("499 Client Closed Request", b"")
    body = b'{"chord":"C"}'
    status, headers, _ = call(app, "POST", "/v2/analyze",
                              {**auth, "content-length": str(len(body))}, Stream(body))
    # The minute counted both calls; the month only the one that was answered.
    assert (status, headers["x-quota-used"], headers["ratelimit-remaining"]) == \
        ("200 OK", "1", "28")


def test_an_mcp_batch_is_answered_on_the_request_thread(served: Any) -> None:
    app, store = served
    _, secret = new_key(store)
    batch = orjson.dumps([
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
         "params": {"name": "analyze_chord", "arguments": {"chord": "Dm7", "key": "C"}}},
        {"jsonrpc": "2.0", "id": 2, "method": "ping"}])
    status, _, content = call(app, "POST", "/mcp",
                              {"authorization": f"Bearer {secret}",
                               "accept": "application/json, text/event-stream",
                               "content-length": str(len(batch))}, Stream(batch))
    replies = {r["id"]: r for r in orjson.loads(content)}
    assert status == "200 OK" and replies[2]["result"] == {}
    assert replies[1]["result"]["structuredContent"] == {"chord": "Dm7", "key": "C"}


def test_a_route_that_waits_runs_on_the_loop_thread(served: Any) -> None:
    # A render waits for its process pool on an event loop: over WSGI its route runs whole
    # on the worker's loop thread. A handler that waited on a route not marked so would
    # find no loop on the request's thread: an internal error, not a hang.
    app, store = served
    _, secret = new_key(store)
    threads: list[str] = []

    async def waiting(service: Any, ctx: Context, body: bytes) -> Any:
        await asyncio.sleep(0.001)
        threads.append(threading.current_thread().name)
        return app.routes["/health"].handler(service, ctx, body)

    route = app.routes["/v2/analyze"]
    auth = {"authorization": f"Bearer {secret}", "content-length": "2"}
    app.routes["/v2/analyze"] = dataclasses.replace(route, handler=waiting, waits=True)
    status, _, content = call(app, "POST", "/v2/analyze", auth, Stream(b"{}"))
    assert (status, content, threads) == ("200 OK", app.health_body, ["harmony-loop"])
    app.routes["/v2/analyze"] = dataclasses.replace(route, handler=waiting)
    status, _, content = call(app, "POST", "/v2/analyze", auth, Stream(b"{}"))
    assert (status, orjson.loads(content)["error"]["code"]) == \
        ("500 Internal Server Error", "internal_error")


def test_the_log_is_complete_when_the_worker_stops(tmp_path: Path) -> None:
    app, store = make(tmp_path)
    _, secret = new_key(store, plan="developer")
    app.start_wsgi()
    body = b'{"chord":"C"}'
    for _ in range(25):
        call(app, "POST", "/v2/analyze", {"authorization": f"Bearer {secret}",
                                          "content-length": str(len(body))}, Stream(body))
    app.stop_wsgi()   # as the worker's finalizer does when granian has answered its last
    assert store.conn.execute("SELECT count(*) FROM request_log").fetchone()[0] == 25
    assert not app.loop_thread.loop.is_running()


def test_run_steps_a_coroutine_and_refuses_one_that_waits_on_a_loop() -> None:
    async def batch() -> int:
        for _ in range(3):
            await asyncio.sleep(0)   # a bare yield: resumed at once
        return 7

    assert run(batch()) == 7

    async def waits() -> None:
        await asyncio.get_running_loop().create_future()

    loop = LoopThread()
    try:
        with pytest.raises(RuntimeError, match="waits=True"):
            loop.run(_step_on_this_thread(waits()))
    finally:
        loop.stop()


async def _step_on_this_thread(coroutine: Any) -> None:
    """``run`` called where a loop exists, so the coroutine can make its future: what a
    waiting handler on an unmarked route would do."""
    run(coroutine)


def test_headers_by_lower_case_name() -> None:
    headers = Headers({"HTTP_USER_AGENT": "curl/8", "CONTENT_LENGTH": "12",
                       "HTTP_MCP_PROTOCOL_VERSION": "2025-06-18"})
    assert headers.get("user-agent") == "curl/8" and headers.get("content-length") == "12"
    assert headers.get("mcp-protocol-version") == "2025-06-18"
    assert headers.get("origin") is None and "origin" not in headers
    assert "user-agent" in headers


def test_the_interface_follows_the_profile_unless_set() -> None:
    assert Settings().served_interface == "wsgi"
    assert Settings(profile="hosted").served_interface == "rsgi"
    assert Settings(profile="hosted", interface="wsgi").served_interface == "wsgi"
    env = Settings.from_env({"HARMONY_INTERFACE": "rsgi", "HARMONY_THREADS": "4"})
    assert (env.served_interface, env.threads) == ("rsgi", 4)
    assert Settings(interface="wsgi").to_env()["HARMONY_INTERFACE"] == "wsgi"
    with pytest.raises(ValueError, match="unknown interface"):
        Settings(interface="asgi")
    assert Settings().request_threads == 2 * (os.cpu_count() or 1) + 1
    assert Settings(threads=3).request_threads == 3
    with pytest.raises(ValueError, match="request threads"):
        Settings(threads=-1)
