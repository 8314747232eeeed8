"""The ASGI app in-process (httpx.ASGITransport): routes, error codes and statuses, headers,
body limits, CORS, User-Agent policy, keys, limits and the request log."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import httpx
import orjson
import pytest

from engine.version import GRID_VERSION, PACKAGE_VERSION
from server.api.responses import STATUS
from tests.server_fixtures import (
    Clock,
    bearer,
    error_of,
    make,
    make_counting,
    new_key,
    run,
    running,
)


def test_health_openapi_and_metrics(tmp_path: Path) -> None:
    app, _ = make(tmp_path)

    async def scenario() -> None:
        async with running(app) as http:
            health = await http.get("/health")
            assert health.status_code == 200
            assert health.json() == {"status": "ok", "version": PACKAGE_VERSION,
                                     "grid": GRID_VERSION}
            head = await http.head("/health")
            assert head.status_code == 200 and head.content == b""
            spec = (await http.get("/openapi.json")).json()
            assert spec["openapi"] == "3.1.0"
            post = spec["paths"]["/v2/analyze"]["post"]
            body = post["requestBody"]["content"]["application/json"]["schema"]
            # one chord, or a whole chart in context (API.md 3.1)
            assert [alt["required"] for alt in body["oneOf"]] == [["chord"], ["progression"]]
            assert set(post["responses"]) >= {"200", "400", "401", "413", "429"}
            metrics = await http.get("/metrics")
            assert metrics.headers["content-type"].startswith("text/plain")
            assert 'harmony_requests_total{route="/health",status="200"} 2.0' in metrics.text

    run(scenario())


def test_the_no_auth_servers_schema_asks_for_no_key(tmp_path: Path) -> None:
    """``harmony serve --no-auth`` answers without a key, and its /openapi.json says so: no
    security scheme, no 401 (schemathesis's auth checks, docs/reliability.md)."""
    app, _ = make(tmp_path, auth=False)

    async def scenario() -> None:
        async with running(app) as http:
            spec = (await http.get("/openapi.json")).json()
            assert "security" not in spec and "securitySchemes" not in spec["components"]
            responses = spec["paths"]["/v2/analyze"]["post"]["responses"]
            assert "401" not in responses and "429" in responses
            r = await http.post("/v2/analyze", json={"chord": "Dm7"})
            assert r.status_code == 200

    run(scenario())


def test_not_found_and_method_not_allowed(tmp_path: Path) -> None:
    app, _ = make(tmp_path)

    async def scenario() -> None:
        async with running(app) as http:
            for path in ("/v2/nothing", "/v1/analyze", "/index.html"):
                r = await http.get(path)
                assert (r.status_code, error_of(r)) == (404, "not_found")
            r = await http.get("/v2/analyze")
            assert (r.status_code, error_of(r)) == (405, "method_not_allowed")
            assert r.headers["allow"] == "POST"
            r = await http.post("/health")
            assert r.status_code == 405 and r.headers["allow"] == "GET, HEAD"
            r = await http.get("/mcp")
            assert r.status_code == 405 and r.headers["allow"] == "POST"

    run(scenario())


def test_operation_success_with_quota_headers(tmp_path: Path) -> None:
    app, store = make(tmp_path)
    _, secret = new_key(store)

    async def scenario() -> None:
        async with running(app, headers=bearer(secret)) as http:
            r = await http.post("/v2/analyze", content=b'{"chord": "Dm7", "keyContext": "F"}',
                                headers={"content-type": "application/json; charset=utf-8"})
            assert r.status_code == 200
            assert r.content == orjson.dumps({"chord": "Dm7", "key": "F"})
            assert r.headers["x-quota-limit"] == "1000"
            assert r.headers["x-quota-used"] == "1"
            assert r.headers["ratelimit-limit"] == "30"
            assert r.headers["ratelimit-remaining"] == "29"
            assert 1 <= int(r.headers["ratelimit-reset"]) <= 60

    run(scenario())


def test_bad_requests_give_the_engine_errors(tmp_path: Path) -> None:
    app, store = make(tmp_path)
    _, secret = new_key(store)

    async def scenario() -> None:
        async with running(app, headers=bearer(secret)) as http:
            cases = [
                (b"{not json", "invalid_request", None),
                (b"[1, 2]", "invalid_request", None),
                (b"{}", "invalid_request", "chord"),
                (b'{"chord": 7}', "invalid_request", "chord"),
                (b'{"chord": "' + b"C" * 40 + b'"}', "invalid_request", "chord"),
                (b'{"chord": "H7"}', "invalid_chord", None),
                (b'{"chord": "C", "key": "F lydian"}', "invalid_key", None),
            ]
            for body, code, field in cases:
                r = await http.post("/v2/analyze", content=body)
                assert r.status_code == STATUS[code] == 400, body
                error = r.json()["error"]
                assert error["code"] == code, body
                assert error.get("field") == field, body
            r = await http.post("/v2/analyze", json={"chord": "H7"})
            assert r.json()["error"]["symbol"] == "H7"

    run(scenario())


def test_schema_refusal_when_the_engine_would_accept(tmp_path: Path) -> None:
    app, store = make(tmp_path)
    _, secret = new_key(store)

    async def scenario() -> None:
        async with running(app, headers=bearer(secret)) as http:
            # The fake engine takes a key of any length; the schema caps it at 32 (MAX_SYMBOL).
            r = await http.post("/v2/analyze", json={"chord": "C", "keyContext": "C" * 33})
            assert r.status_code == 400
            assert r.json()["error"]["field"] == "keyContext"

    run(scenario())


def test_internal_error_leaks_nothing_and_logs_one_line_with_its_id(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    app, store = make(tmp_path)
    _, secret = new_key(store)

    async def scenario() -> list[str]:
        async with running(app, headers=bearer(secret)) as http:
            ids = []
            for _ in range(3):
                r = await http.post("/v2/analyze", json={"chord": "boom"})
                assert r.status_code == 500
                error = r.json()["error"]
                ids.append(error.pop("requestId"))
                assert error == {"code": "internal_error", "message": "internal error"}
                assert b"secret" not in r.content and b"Traceback" not in r.content
            return ids

    ids = run(scenario())
    lines = capsys.readouterr().err.splitlines()
    assert len(set(ids)) == 3 and len(lines) == 3 and "Traceback" not in "".join(lines)
    for request_id, line in zip(ids, lines, strict=True):
        assert line.startswith(f"harmony: internal error {request_id}: POST /v2/analyze: ")


def test_payload_too_large_declared_and_streamed(tmp_path: Path) -> None:
    app, store = make(tmp_path)
    _, secret = new_key(store)
    big = b'{"chord": "' + b"x" * (64 * 1024) + b'"}'

    async def chunks() -> AsyncIterator[bytes]:
        for i in range(0, len(big), 4096):
            yield big[i:i + 4096]

    async def scenario() -> None:
        async with running(app, headers=bearer(secret)) as http:
            r = await http.post("/v2/analyze", content=big)
            assert (r.status_code, error_of(r)) == (413, "payload_too_large")
            r = await http.post("/v2/analyze", content=chunks())  # no content-length
            assert (r.status_code, error_of(r)) == (413, "payload_too_large")
            ok = await http.post("/v2/analyze", json={"chord": "C" + " " * 60_000})
            assert ok.status_code == 400  # under the limit: the engine's bound answers

    run(scenario())


def test_a_client_gone_before_its_body_gets_nothing_and_spends_nothing(tmp_path: Path) -> None:
    """Over ASGI, a client that disconnects while its body is read: no answer is sent and the
    month's unit reserved for the call goes back."""
    app, store = make(tmp_path)
    _, secret = new_key(store)
    sent: list[dict[str, object]] = []
    messages = iter([{"type": "http.request", "body": b'{"chord":', "more_body": True},
                     {"type": "http.disconnect"}])

    async def receive() -> dict[str, object]:
        return next(messages)

    async def send(message: dict[str, object]) -> None:
        sent.append(message)

    async def scenario() -> None:
        scope = {"type": "http", "method": "POST", "path": "/v2/analyze", "query_string": b"",
                 "client": ("203.0.113.7", 4711),
                 "headers": [(b"authorization", f"Bearer {secret}".encode()),
                             (b"content-type", b"application/json")]}
        await app(scope, receive, send)
        assert sent == []
        async with running(app, headers=bearer(secret)) as http:
            ok = await http.post("/v2/analyze", json={"chord": "C"})
            assert (ok.status_code, ok.headers["x-quota-used"]) == (200, "1")

    run(scenario())


def test_keys_missing_malformed_unknown_revoked_rotated(tmp_path: Path) -> None:
    app, store = make(tmp_path)
    key_id, secret = new_key(store, plan="developer")
    other_id, other = store.create_key("acme")

    async def scenario() -> None:
        async with running(app) as http:
            body = {"chord": "C"}
            for headers in ({}, {"Authorization": "Bearer nope"},
                            {"Authorization": f"Basic {secret}"},
                            bearer("hk_live_" + "A" * 43)):
                r = await http.post("/v2/analyze", json=body, headers=headers)
                assert (r.status_code, error_of(r)) == (401, "unauthorized"), headers
                assert r.headers["www-authenticate"].startswith("Bearer")
                assert "x-quota-limit" not in r.headers
            store.revoke_key(other_id)
            r = await http.post("/v2/analyze", json=body, headers=bearer(other))
            assert (r.status_code, error_of(r)) == (401, "key_revoked")
            _, new_secret = store.rotate_key(key_id)
            r = await http.post("/v2/analyze", json=body, headers=bearer(secret))
            assert (r.status_code, error_of(r)) == (401, "key_revoked")
            r = await http.post("/v2/analyze", json=body, headers=bearer(new_secret))
            assert r.status_code == 200

    run(scenario())


def test_monthly_quota_counts_only_successes(tmp_path: Path) -> None:
    app, store = make(tmp_path)
    _, secret = new_key(store)
    store.set_limits("acme", per_minute=100, per_month=3)

    async def scenario() -> None:
        async with running(app, headers=bearer(secret)) as http:
            used = []
            for chord in ("C", "H7", "D", "{bad", "E"):
                r = await http.post("/v2/analyze", content=orjson.dumps({"chord": chord})
                                    if chord != "{bad" else b"{bad")
                used.append(int(r.headers["x-quota-used"]))
            assert used == [1, 1, 2, 2, 3]
            r = await http.post("/v2/analyze", json={"chord": "F"})
            assert (r.status_code, error_of(r)) == (429, "quota_exceeded")
            assert r.headers["x-quota-used"] == "3"
            retry = int(r.headers["retry-after"])
            assert r.json()["error"]["retryAfter"] == retry
            assert 0 < retry <= 31 * 86400

    run(scenario())


def test_per_minute_limit_counts_every_call(tmp_path: Path) -> None:
    clock = Clock(1_800_000_030.0)  # 30 s into a minute
    app, store = make(tmp_path, clock)
    _, secret = new_key(store)

    async def scenario() -> None:
        async with running(app, headers=bearer(secret)) as http:
            for i in range(30):
                r = await http.post("/v2/analyze", json={"chord": "H" if i % 2 else "C"})
                assert r.status_code in (200, 400)
            r = await http.post("/v2/analyze", json={"chord": "C"})
            assert (r.status_code, error_of(r)) == (429, "rate_limited")
            assert r.headers["retry-after"] == r.headers["ratelimit-reset"] == "30"
            assert r.headers["ratelimit-remaining"] == "0"
            assert r.headers["x-quota-used"] == "15"
            clock.advance(30)  # the next minute
            r = await http.post("/v2/analyze", json={"chord": "C"})
            assert r.status_code == 200 and r.headers["ratelimit-remaining"] == "29"

    run(scenario())


def test_plan_change_and_revocation_reach_the_worker_within_a_watch_round(
        tmp_path: Path) -> None:
    # Made in the store as another worker or machine (or the CLI) makes them: the worker's
    # KeyWatch sees the store's key generation move and reads its cached keys again, long
    # before the cache's 60 s. Polled a bounded number of times (10 a second), never timed.
    app, store = make(tmp_path, Clock())
    key_id, secret = new_key(store)

    async def scenario() -> None:
        async with running(app, headers=bearer(secret)) as http:
            async def until(check: Callable[[httpx.Response], bool]) -> int:
                for tries in range(1, 31):
                    if check(await http.post("/v2/analyze", json={"chord": "C"})):
                        return tries
                    await asyncio.sleep(0.1)
                raise AssertionError("the change did not arrive")

            r = await http.post("/v2/analyze", json={"chord": "C"})
            assert r.headers["ratelimit-limit"] == "30"
            store.set_plan("acme", "developer")
            assert await until(lambda r: r.headers.get("ratelimit-limit") == "300") <= 15
            r = await http.post("/v2/analyze", json={"chord": "C"})
            assert r.headers["x-quota-limit"] == "100000"
            store.revoke_key(key_id)
            assert await until(lambda r: r.status_code == 401) <= 15
            r = await http.post("/v2/analyze", json={"chord": "C"})
            assert (r.status_code, error_of(r)) == (401, "key_revoked")

    run(scenario())


def test_cors_allowlist_and_preflight(tmp_path: Path) -> None:
    app, store = make(tmp_path, cors_origins=("https://app.example",))
    _, secret = new_key(store)
    preflight = {"Origin": "https://app.example", "Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "authorization, content-type"}

    async def scenario() -> None:
        async with running(app) as http:
            r = await http.options("/v2/analyze", headers=preflight)
            assert r.status_code == 204
            assert r.headers["access-control-allow-origin"] == "https://app.example"
            assert r.headers["access-control-allow-methods"] == "OPTIONS, POST"
            assert "authorization" in r.headers["access-control-allow-headers"]
            assert int(r.headers["access-control-max-age"]) > 0
            denied = {**preflight, "Origin": "https://evil.example"}
            r = await http.options("/v2/analyze", headers=denied)
            assert (r.status_code, error_of(r)) == (403, "forbidden_origin")
            r = await http.post("/v2/analyze", json={"chord": "C"},
                                headers={**bearer(secret), "Origin": "https://app.example"})
            assert r.status_code == 200
            assert r.headers["access-control-allow-origin"] == "https://app.example"
            assert "x-quota-used" in r.headers["access-control-expose-headers"]
            r = await http.post("/v2/analyze", json={"chord": "C"},
                                headers={**bearer(secret), "Origin": "https://evil.example"})
            assert (r.status_code, error_of(r)) == (403, "forbidden_origin")
            r = await http.options("/v2/analyze")  # not a preflight
            assert r.status_code == 405

    run(scenario())


def test_user_agent_policy_by_profile(tmp_path: Path) -> None:
    async def statuses(profile: str) -> list[int]:
        app, store = make(tmp_path / profile, profile=profile)
        _, secret = new_key(store)
        out = []
        async with running(app, headers=bearer(secret)) as http:
            for agent in ("python-requests/2.32", "Python/3.12 aiohttp/3.9", "curl/8.5.0",
                          "", " ", "my-app/1.0 (ops@example.com)"):
                r = await http.post("/v2/analyze", json={"chord": "C"},
                                    headers={"User-Agent": agent})
                out.append(r.status_code)
                if r.status_code == 403:
                    assert error_of(r) == "blocked_user_agent"
            health = await http.get("/health", headers={"User-Agent": "curl/8.5.0"})
            out.append(health.status_code)
        return out

    (tmp_path / "local").mkdir()
    (tmp_path / "hosted").mkdir()
    assert run(statuses("local")) == [200] * 7
    # No User-Agent (or a blank one) identifies no integration either.
    assert run(statuses("hosted")) == [403, 403, 403, 403, 403, 200, 200]


def test_flood_throttle_per_ip(tmp_path: Path) -> None:
    app, _ = make(tmp_path, flood_per_minute=5)

    async def scenario() -> None:
        async with running(app) as http:
            codes = [(await http.get("/health")).status_code for _ in range(6)]
            assert codes == [200] * 5 + [429]
            r = await http.get("/health")
            assert error_of(r) == "rate_limited" and int(r.headers["retry-after"]) > 0

    run(scenario())


def test_no_auth_mode_counts_nothing(tmp_path: Path) -> None:
    app, _ = make(tmp_path, auth=False)

    async def scenario() -> None:
        async with running(app) as http:
            r = await http.post("/v2/analyze", json={"chord": "C"})
            assert r.status_code == 200 and "x-quota-used" not in r.headers

    run(scenario())


def test_request_log_is_written_in_the_background_and_drained(tmp_path: Path) -> None:
    app, store = make(tmp_path)
    key_id, secret = new_key(store)

    async def scenario() -> None:
        async with running(app, headers=bearer(secret)) as http:
            await http.post("/v2/analyze", json={"chord": "C"})
            await http.post("/v2/analyze", json={"chord": "H7"})
            await http.post("/v2/analyze", json={"chord": "H7"})
            await http.post("/v2/analyze", json={"chord": "C"}, headers={"Authorization": ""})
            await http.get("/health")
            assert app.log.queue  # queued, not yet on disk: the request did not wait

    run(scenario())
    rows = store.log_rows()
    assert [(r[1], r[2], r[3], r[4], r[5]) for r in rows] == [
        (key_id, "rest", "analyze", 200, None),
        (key_id, "rest", "analyze", 400, "invalid_chord"),
        (key_id, "rest", "analyze", 400, "invalid_chord"),
        (None, "rest", "analyze", 401, "unauthorized"),
    ]
    assert rows[0][7] == b'{"chord":"C"}'
    assert all(r[6] >= 0 for r in rows)
    assert store.vocab_gaps() [0] | {"lastSeen": None} == {"symbol": "H7", "count": 2,
                                                          "lastSeen": None}
    usage = {u["key"]: u for u in store.usage()}
    assert usage[key_id]["calls"] == 3 and usage[key_id]["errors"] == 2
    dump = b"".join(str(r).encode() for r in rows)
    assert secret.encode() not in dump


def test_repeated_requests_are_answered_from_the_cache_and_still_counted(tmp_path: Path) -> None:
    app, store, calls = make_counting(tmp_path)
    _, secret = new_key(store)

    async def scenario() -> list[httpx.Response]:
        async with running(app, headers=bearer(secret)) as http:
            return [await http.post("/v2/analyze", content=body) for body in (
                b'{"chord":"Dm7"}', b'{"chord":"Dm7"}', b'{"chord": "Dm7"}', b'{"chord":"H7"}',
                b'{"chord":"H7"}', b'{"chord":"Dm7"}')]

    answers = run(scenario())
    # Computed once per distinct body; errors are computed (and logged as gaps) every time.
    assert calls == [{"chord": "Dm7"}, {"chord": "Dm7"}, {"chord": "H7"}, {"chord": "H7"}]
    assert answers[0].content == answers[1].content == answers[2].content == answers[5].content
    assert [r.status_code for r in answers] == [200, 200, 200, 400, 400, 200]
    # Kept answers still pass the key, the limits, the quota and the log.
    assert [r.headers["x-quota-used"] for r in answers] == ["1", "2", "3", "3", "3", "4"]
    assert len(store.log_rows()) == 6
    assert store.vocab_gaps()[0]["count"] == 2
