"""The RSGI entry (``harmony serve``'s interface in the hosted profile) gives the same answers as
the ASGI app: driven here in-process with a scope and protocol shaped like granian's."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from server.api import OPERATIONS
from server.http.app import HarmonyApp
from server.http.rsgi import client_host
from tests.server_fixtures import make, new_key


class Headers(dict[str, str]):
    """Stands in for granian's RSGIHeaders (lower-case names, ``items()``)."""


@dataclass
class Scope:
    method: str
    path: str
    headers: Headers
    client: str = "203.0.113.7:4711"
    query_string: str = ""


@dataclass
class Protocol:
    """Records the answer; serves the body whole or in chunks, or fails as a closed socket.
    Like granian's, ``protocol()`` starts the read and gives a future of the whole body, which
    may be awaited later or never (``asked`` counts the calls)."""

    chunks: list[bytes] = field(default_factory=list)
    closed: bool = False
    held_back: bool = False           # the client declared a body and does not send it
    reads: int = 0
    asked: int = 0
    answer: tuple[str, int, dict[str, str], bytes] | None = None
    body: asyncio.Future[bytes] | None = None

    def __call__(self) -> asyncio.Future[bytes]:
        self.asked += 1
        body: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        self.body = body
        if self.held_back:
            pass
        elif self.closed:
            body.set_exception(RuntimeError("protocol closed"))
        else:
            self.reads += len(self.chunks)
            body.set_result(b"".join(self.chunks))
        return body

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks:
            self.reads += 1
            yield chunk

    def response_bytes(self, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
        self.answer = ("bytes", status, dict(headers), body)

    def response_empty(self, status: int, headers: list[tuple[str, str]]) -> None:
        self.answer = ("empty", status, dict(headers), b"")


def call(app: HarmonyApp, method: str, path: str, headers: dict[str, str],
         protocol: Protocol) -> tuple[str, int, dict[str, str], bytes]:
    async def go() -> None:
        await app.startup()
        try:
            await app.__rsgi__(Scope(method, path, Headers(headers)), protocol)
        finally:
            await app.shutdown()

    asyncio.run(go())
    assert protocol.answer is not None
    return protocol.answer


def test_operation_health_and_head(tmp_path: Path) -> None:
    app, store = make(tmp_path)
    _, secret = new_key(store)
    body = b'{"chord":"Dm7","key":"C"}'
    auth = {"authorization": f"Bearer {secret}", "content-length": str(len(body))}
    kind, status, headers, content = call(app, "POST", "/v2/analyze", auth,
                                          Protocol([body]))
    assert (kind, status, orjson.loads(content)) == ("bytes", 200, {"chord": "Dm7", "key": "C"})
    assert headers["content-type"] == "application/json"
    assert (headers["x-quota-used"], headers["ratelimit-remaining"]) == ("1", "29")
    kind, status, headers, content = call(app, "HEAD", "/health", {}, Protocol())
    assert (kind, status, content) == ("empty", 200, b"")
    assert int(headers["content-length"]) == len(app.health_body)


def test_errors_keep_their_status_and_headers(tmp_path: Path) -> None:
    app, _ = make(tmp_path)
    _, status, headers, content = call(app, "POST", "/v2/analyze", {}, Protocol([b"{}"]))
    assert (status, orjson.loads(content)["error"]["code"]) == (401, "unauthorized")
    assert headers["www-authenticate"].startswith("Bearer")
    _, status, headers, _ = call(app, "PUT", "/health", {}, Protocol())
    assert (status, headers["allow"]) == (405, "GET, HEAD")


def test_a_streamed_body_stops_at_the_limit_and_its_unit_goes_back(tmp_path: Path) -> None:
    app, store = make(tmp_path)
    _, secret = new_key(store)
    protocol = Protocol([b"x" * 40_000] * 3)   # 120 KB, no declared length
    _, status, headers, content = call(app, "POST", "/v2/analyze",
                                       {"authorization": f"Bearer {secret}"}, protocol)
    assert (status, orjson.loads(content)["error"]["code"]) == (413, "payload_too_large")
    assert protocol.reads == 2 and headers["x-quota-used"] == "0"


def test_a_client_gone_before_its_body_gets_no_answer_and_spends_no_quota(
        tmp_path: Path) -> None:
    app, store = make(tmp_path)
    _, secret = new_key(store)
    headers = {"authorization": f"Bearer {secret}", "content-length": "20"}

    async def go() -> Protocol:
        await app.startup()
        gone = Protocol(closed=True)
        try:
            await app.__rsgi__(Scope("POST", "/v2/analyze", Headers(headers)), gone)
        finally:
            await app.shutdown()
        return gone

    assert asyncio.run(go()).answer is None
    body = b'{"chord":"C"}'
    headers["content-length"] = str(len(body))
    _, status, answer_headers, _ = call(app, "POST", "/v2/analyze", headers, Protocol([body]))
    # The minute counted both calls; the month only the one that was answered.
    assert (status, answer_headers["x-quota-used"]) == (200, "1")
    assert answer_headers["ratelimit-remaining"] == "28"


def test_a_body_is_asked_for_once_and_early_only_within_the_service_cap(
        tmp_path: Path) -> None:
    app, store = make(tmp_path)
    _, secret = new_key(store)
    body = b'{"chord":"Dm7","key":"C"}'
    declared = {"content-length": str(len(body))}
    protocol = Protocol([body])
    _, status, _, _ = call(app, "POST", "/v2/analyze",
                           {**declared, "authorization": f"Bearer {secret}"}, protocol)
    assert (status, protocol.asked) == (200, 1)
    # A small body is asked for while the key is checked: a refused call leaves it unread.
    protocol = Protocol([body])
    _, status, _, _ = call(app, "POST", "/v2/analyze",
                           {**declared, "authorization": "Bearer hk_live_nope"}, protocol)
    assert (status, protocol.asked) == (401, 1)
    # Over the route's cap: refused before anything is asked of the protocol.
    protocol = Protocol([b"x" * 70_000])
    _, status, _, content = call(app, "POST", "/v2/analyze",
                                 {"content-length": "70000",
                                  "authorization": f"Bearer {secret}"}, protocol)
    assert (status, orjson.loads(content)["error"]["code"]) == (413, "payload_too_large")
    assert protocol.asked == 0


def test_a_refused_call_stops_the_read_of_a_body_held_back(tmp_path: Path) -> None:
    # Declared, asked for early, never sent: the 401 answers at once and the read is called
    # off, so the worker keeps nothing waiting for that body.
    app, _ = make(tmp_path)
    protocol = Protocol(held_back=True)
    _, status, _, _ = call(app, "POST", "/v2/analyze",
                           {"content-length": "30", "authorization": "Bearer hk_live_nope"},
                           protocol)
    assert status == 401 and protocol.body is not None and protocol.body.cancelled()


def test_a_large_body_waits_for_the_key(tmp_path: Path) -> None:
    # /v2/compose takes 1 MiB, the service 64 KiB: a larger body is read only for a caller
    # whose key and limits passed, so an unknown caller never makes the worker buffer it.
    app, store = make(tmp_path, operations=OPERATIONS)
    _, secret = new_key(store, plan="enterprise")
    big = b'{"operations":"' + b"x" * 100_000 + b'"}'
    protocol = Protocol([big])
    _, status, _, _ = call(app, "POST", "/v2/compose",
                           {"content-length": str(len(big)),
                            "authorization": "Bearer hk_live_nope"}, protocol)
    assert (status, protocol.asked) == (401, 0)
    protocol = Protocol([big])
    _, status, _, content = call(app, "POST", "/v2/compose",
                                 {"content-length": str(len(big)),
                                  "authorization": f"Bearer {secret}"}, protocol)
    # read and judged: the compose request's operations are not a list
    assert (status, orjson.loads(content)["error"]["field"], protocol.asked) == \
        (400, "operations", 1)


def test_a_refused_mcp_call_reads_no_body_over_the_cap_to_echo_its_id(tmp_path: Path) -> None:
    # A forbidden origin on /mcp answers the request's id, read from the body: only from a
    # body within the cap (a declared 70,000 bytes is not read; the error has no id).
    app, store = make(tmp_path, cors_origins=("https://app.example",))
    _, secret = new_key(store)
    headers = {"origin": "https://evil.example", "authorization": f"Bearer {secret}"}
    small = b'{"jsonrpc":"2.0","id":7,"method":"tools/list"}'
    protocol = Protocol([small])
    _, status, _, content = call(app, "POST", "/mcp",
                                 {**headers, "content-length": str(len(small))}, protocol)
    assert (status, orjson.loads(content)["id"], protocol.asked) == (403, 7, 1)
    protocol = Protocol([b" " * 70_000])
    _, status, _, content = call(app, "POST", "/mcp",
                                 {**headers, "content-length": "70000"}, protocol)
    assert (status, orjson.loads(content)["id"], protocol.asked) == (403, None, 0)


def test_client_host() -> None:
    assert client_host("203.0.113.7:4711") == "203.0.113.7"
    assert client_host("[::1]:4711") == "::1"
    assert client_host("") == "unknown"
