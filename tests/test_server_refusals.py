"""Refusals in-process (httpx.ASGITransport): every refused call is logged with its error
code, and refusals made before the key check still carry a valid key's quota headers and count
nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx

from tests.server_fixtures import Clock, bearer, error_of, make, new_key, run, running

QUOTA_HEADERS = ("x-quota-limit", "x-quota-used", "ratelimit-limit", "ratelimit-remaining",
                 "ratelimit-reset")

BIG = b'{"chord": "' + b"x" * (64 * 1024) + b'"}'   # over the 64 KiB limit
PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


def test_every_refused_call_is_logged_with_its_error_code(tmp_path: Path) -> None:
    clock = Clock(1_800_000_010.0)
    app, store = make(tmp_path, clock, profile="hosted", cors_origins=("https://app.example",),
                      flood_per_minute=12)
    key_id, secret = new_key(store)

    async def scenario() -> None:
        async with running(app, headers={"User-Agent": "my-app/1.0"}) as http:
            async def streamed() -> AsyncIterator[bytes]:
                yield BIG

            assert (await http.get("/v2/analyze", headers=bearer(secret))).status_code == 405
            assert (await http.get("/mcp")).status_code == 405
            assert (await http.get("/mcp", headers=bearer(secret))).status_code == 405
            assert (await http.get("/nowhere")).status_code == 404  # no route: no log row
            r = await http.post("/v2/analyze", json={"chord": "C"},
                                headers={**bearer(secret), "User-Agent": "curl/8.5.0"})
            assert r.status_code == 403
            r = await http.post("/v2/analyze", json={"chord": "C"},
                                headers={**bearer(secret), "Origin": "https://evil.example"})
            assert r.status_code == 403
            r = await http.post("/mcp", json=PING,
                                headers={**bearer(secret), "User-Agent": "curl/8.5.0"})
            assert r.status_code == 403
            assert (await http.post("/mcp", content=BIG,
                                    headers=bearer(secret))).status_code == 413
            assert (await http.post("/v2/analyze", content=BIG,
                                    headers=bearer(secret))).status_code == 413
            assert (await http.post("/v2/analyze", content=streamed(),
                                    headers=bearer(secret))).status_code == 413
            assert (await http.post("/v2/analyze", json={"chord": "C"})).status_code == 401
            assert (await http.post("/v2/analyze", json={"chord": "C"},
                                    headers=bearer(secret))).status_code == 200
            for path in ("/v2/analyze", "/mcp", "/health"):  # the IP's 13th to 15th: flood
                r = await http.post(path, json={"chord": "C"}, headers=bearer(secret))
                assert (r.status_code, error_of(r)) == (429, "rate_limited")

    run(scenario())
    assert b"harmony_flood_refusals_total 3.0" in app.metrics.render()[0]
    # Flood refusals are counted in the metrics, not logged: a flood writes no rows.
    assert [(r[1], r[2], r[4], r[5]) for r in store.log_rows()] == [
        (key_id, "rest", 405, "method_not_allowed"),
        (None, "mcp", 405, "method_not_allowed"),
        (key_id, "mcp", 405, "method_not_allowed"),
        (key_id, "rest", 403, "blocked_user_agent"),
        (key_id, "rest", 403, "forbidden_origin"),
        (key_id, "mcp", 403, "blocked_user_agent"),
        (key_id, "mcp", 413, "payload_too_large"),
        (key_id, "rest", 413, "payload_too_large"),
        (key_id, "rest", 413, "payload_too_large"),
        (None, "rest", 401, "unauthorized"),
        (key_id, "rest", 200, None),
    ]


def test_refusals_before_the_key_check_carry_the_quota_headers_and_count_nothing(
        tmp_path: Path) -> None:
    clock = Clock(1_800_000_010.0)
    app, store = make(tmp_path, clock, profile="hosted", cors_origins=("https://app.example",),
                      flood_per_minute=10)
    _, secret = new_key(store)

    async def scenario() -> list[httpx.Response]:
        async with running(app, headers={**bearer(secret), "User-Agent": "my-app/1.0"}) as http:
            return [
                await http.post("/v2/analyze", json={"chord": "C"}),
                await http.get("/v2/analyze"),
                await http.post("/v2/analyze", json={"chord": "C"},
                                headers={"User-Agent": "python-requests/2.32"}),
                await http.post("/v2/analyze", json={"chord": "C"},
                                headers={"Origin": "https://evil.example"}),
                await http.post("/v2/analyze", content=BIG),
                await http.post("/mcp", json=PING, headers={"User-Agent": "curl/8.5.0"}),
                await http.post("/mcp", content=BIG),
                await http.post("/v2/analyze", json={"chord": "C"}),
                await http.get("/v2/analyze", headers=bearer("hk_live_" + "A" * 43)),
                await http.get("/v2/analyze", headers={"Authorization": ""}),
                await http.post("/v2/analyze", json={"chord": "C"}),  # the IP's 11th: flood
            ]

    answers = run(scenario())
    assert [r.status_code for r in answers] == [200, 405, 403, 403, 413, 403, 413, 200, 405, 405,
                                                429]
    assert answers[1].headers["allow"] == "POST"
    # /mcp refuses in JSON-RPC, the error object in ``data``, like its key refusals
    assert answers[5].json()["error"]["data"]["code"] == "blocked_user_agent"
    assert answers[6].json()["jsonrpc"] == "2.0"
    assert answers[6].json()["error"]["data"]["code"] == "payload_too_large"
    for r in answers[:8]:  # REST and /mcp alike
        assert all(h in r.headers for h in QUOTA_HEADERS), r.status_code
    for r in answers[8:10]:  # no valid key: nothing to report
        assert not any(h in r.headers for h in QUOTA_HEADERS)
    # The refusals counted towards neither the minute nor the month.
    assert [r.headers["ratelimit-remaining"] for r in answers[:8]] == ["29"] * 7 + ["28"]
    assert [r.headers["x-quota-used"] for r in answers[:8]] == ["1"] * 7 + ["2"]
    # The flood throttle's refusal stays cheap: no key lookup, so no quota headers.
    assert answers[10].json()["error"]["code"] == "rate_limited"
    assert "retry-after" in answers[10].headers
    assert not any(h in answers[10].headers for h in QUOTA_HEADERS)
