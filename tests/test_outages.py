"""Graceful outages (issue 35, API.md sections 9 and 16), in-process: a key store that does not
answer in time gives 503 ``unavailable`` (JSON, ``Retry-After``) while cached keys keep
working, and a flood of made-up keys during the outage does not reach the store each call; a
revocation made by one worker reaches another within a watch round; ``nosniff`` on every
answer; the ``Content-Type`` of a POST checked. Nothing here asserts a time: waits are a
bounded number of polls, and the outage is a store held still by the test."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from server.accounts import KeyRecord, SignIn, Store, open_store
from server.accounts.store import hash_secret
from server.http.app import build_app
from server.http.settings import Settings
from tests.account_fixtures import csrf_of, sign_in
from tests.server_fixtures import (
    FAKE_OPERATIONS,
    Clock,
    bearer,
    error_of,
    make,
    new_key,
    run,
    running,
)

MADE_UP = "Bearer hk_live_" + "m" * 43


class HeldStore(Store):
    """A store whose key lookups can be held (a database that stopped answering) or made to
    fail (one that refuses connections); counts the lookups that reached it."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.lookups = 0
        self.released = threading.Event()
        self.released.set()
        self.failing = False

    def lookup_key(self, secret_hash: str) -> KeyRecord | None:
        self.lookups += 1
        if self.failing:
            raise sqlite3.OperationalError("unable to open database file")
        assert self.released.wait(30), "the test never released the store"
        return super().lookup_key(secret_hash)


def held_app(tmp_path: Path, clock: Clock) -> tuple[Any, HeldStore]:
    # A lookup waits 2 s here, not 0.1 s: a loaded test machine may take that long to run
    # the lookup thread of an answering store, and a held one is held past either.
    store = HeldStore(str(tmp_path / "harmony.db"))
    app = build_app(Settings(db_path=store.path, store_timeout=2.0), store, FAKE_OPERATIONS,
                    clock=clock, monotonic=clock)
    return app, store


def assert_unavailable(r: httpx.Response) -> None:
    assert (r.status_code, error_of(r)) == (503, "unavailable"), r.text
    assert r.headers["content-type"] == "application/json"
    assert r.headers["retry-after"] == "1" and r.json()["error"]["retryAfter"] == 1


def test_a_store_that_does_not_answer_gives_503_and_cached_keys_keep_working(
        tmp_path: Path) -> None:
    clock = Clock()
    app, store = held_app(tmp_path, clock)
    _, cached = new_key(store, "acme", "developer")
    _, uncached = new_key(store, "other", "developer")

    async def scenario() -> None:
        async with running(app) as http:
            async def call(authorization: str) -> httpx.Response:
                return await http.post("/v2/analyze", json={"chord": "C7"},
                                       headers={"Authorization": authorization})

            assert (await call(f"Bearer {cached}")).status_code == 200
            assert store.lookups == 1
            store.released.clear()                      # the database stops answering
            try:
                assert_unavailable(await call(f"Bearer {uncached}"))
                assert store.lookups == 2               # asked once, waited its timeout
                # for the next second, misses are answered at once, the store not asked
                for _ in range(20):
                    assert_unavailable(await call(MADE_UP))
                    assert_unavailable(await call(f"Bearer {uncached}"))
                assert store.lookups == 2
                # the cached key keeps working, with its limits and quota headers
                for _ in range(5):
                    r = await call(f"Bearer {cached}")
                    assert r.status_code == 200 and r.headers["x-quota-used"] != ""
                # even past the cache's 60 s: the store is asked again, cannot say, and the
                # last answer holds
                clock.advance(61)
                assert (await call(f"Bearer {cached}")).status_code == 200
                assert store.lookups == 3
                assert_unavailable(await call(MADE_UP))
                # MCP: the same refusal inside a JSON-RPC error
                r = await http.post("/mcp", headers={"Authorization": MADE_UP}, json={
                    "jsonrpc": "2.0", "id": 7, "method": "tools/call",
                    "params": {"name": "analyze_chord", "arguments": {"chord": "C"}}})
                assert r.status_code == 503 and r.headers["retry-after"] == "1"
                assert r.json()["id"] == 7
                assert r.json()["error"]["data"]["code"] == "unavailable"
            finally:
                store.released.set()                    # the database answers again
            # the late answer of the held lookup is cached when it comes, and closes the gap
            for _ in range(50):
                r = await call(f"Bearer {uncached}")
                if r.status_code != 503:
                    break
                await asyncio.sleep(0.1)
            assert r.status_code == 200
            clock.advance(1.5)                          # past the second without asking
            r = await call(MADE_UP)
            assert (r.status_code, error_of(r)) == (401, "unauthorized")

    run(scenario())


def test_a_failing_store_gives_503_never_a_500(tmp_path: Path) -> None:
    clock = Clock()
    app, store = held_app(tmp_path, clock)
    new_key(store)

    async def scenario() -> None:
        async with running(app) as http:
            store.failing = True
            assert_unavailable(await http.post("/v2/analyze", json={"chord": "C"},
                                               headers={"Authorization": MADE_UP}))
            clock.advance(1.5)
            assert_unavailable(await http.post("/v2/analyze", json={"chord": "C"},
                                               headers={"Authorization": MADE_UP}))
            assert store.lookups == 2                   # once a second while it fails
            store.failing = False
            clock.advance(1.5)
            r = await http.post("/v2/analyze", json={"chord": "C"},
                                headers={"Authorization": MADE_UP})
            assert (r.status_code, error_of(r)) == (401, "unauthorized")
            assert store.lookups == 3
            # unknown keys are cached as unknown: a repeated made-up key is not read again
            for _ in range(10):
                await http.post("/v2/analyze", json={"chord": "C"},
                                headers={"Authorization": MADE_UP})
            assert store.lookups == 3

    run(scenario())


def test_a_page_whose_store_fails_answers_503(tmp_path: Path) -> None:
    class BrokenPages(Store):
        def active_keys(self, account_id: int, since: float) -> list[dict[str, Any]]:
            raise sqlite3.OperationalError("database is locked")

    clock = Clock()
    store = BrokenPages(str(tmp_path / "harmony.db"))
    app = build_app(Settings(db_path=store.path), store, FAKE_OPERATIONS, clock=clock,
                    monotonic=clock)
    new_key(store)

    async def scenario() -> None:
        async with running(app) as http:
            await sign_in(http, store, clock, "acme")
            assert_unavailable(await http.get("/account"))

    run(scenario())


def test_a_revocation_on_one_worker_reaches_another_within_a_watch_round(
        tmp_path: Path) -> None:
    # Two workers of one machine: two apps, each with its own connection to one SQLite file
    # and its own key cache. The key is revoked on worker A's account page; worker B has it
    # cached (for 60 s) and learns of it from the store's key generation.
    db = str(tmp_path / "harmony.db")
    a, store = make(tmp_path)
    b = build_app(Settings(db_path=db, store_timeout=2.0), Store(db), FAKE_OPERATIONS)
    key_id, secret = new_key(store, "acme", "developer")

    async def scenario() -> int:
        async with running(a) as page, running(b, headers=bearer(secret)) as api:
            assert (await api.post("/v2/analyze", json={"chord": "C"})).status_code == 200
            await sign_in(page, store, Clock(), "acme")
            csrf = csrf_of((await page.get("/account")).text)
            r = await page.post("/account/keys/revoke", data={"csrf": csrf, "key_id": key_id})
            assert r.status_code == 303
            for tries in range(1, 31):                 # 10 a second
                r = await api.post("/v2/analyze", json={"chord": "C"})
                if r.status_code != 200:
                    assert (r.status_code, error_of(r)) == (401, "key_revoked")
                    return tries
                await asyncio.sleep(0.1)
            raise AssertionError("worker B never saw the revocation")

    assert run(scenario()) <= 12       # a watch round is 0.5 s; 10 tries a second


def test_nosniff_on_every_answer(tmp_path: Path) -> None:
    app, store = make(tmp_path, cors_origins=("https://app.example",))
    _, secret = new_key(store)

    async def scenario() -> list[httpx.Response]:
        async with running(app) as http:
            link = SignIn(store, Clock()).issue_link("acme")
            return [
                await http.get("/health"), await http.head("/health"),
                await http.get("/openapi.json"), await http.get("/"),
                await http.get("/metrics"),
                await http.get("/no/such/route/<script>"),             # 404 echoes the path
                await http.get("/v2/analyze"),                          # 405
                await http.post("/v2/analyze", json={"chord": "C"}),    # 401
                await http.post("/v2/analyze", json={"chord": "C"}, headers=bearer(secret)),
                await http.post("/v2/analyze", content=b"{", headers=bearer(secret)),
                await http.options("/v2/analyze", headers={
                    "Origin": "https://app.example",
                    "Access-Control-Request-Method": "POST"}),         # preflight 204
                await http.get("/account"), await http.get("/account/style.css"),
                await http.get("/account/login", params={"token": link}),
                await http.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                                headers=bearer(secret)),
            ]

    answers = run(scenario())
    assert {r.status_code for r in answers} >= {200, 204, 400, 401, 404, 405}
    for r in answers:
        assert r.headers.get_list("x-content-type-options") == ["nosniff"], r.request.url


@pytest.mark.parametrize("content_type", [
    "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
    "application/jsonx", "text/json"])
def test_a_post_declared_as_anything_but_json_is_refused(tmp_path: Path,
                                                        content_type: str) -> None:
    app, store = make(tmp_path)
    _, secret = new_key(store)
    body = orjson.dumps({"chord": "C"})

    async def scenario() -> list[httpx.Response]:
        async with running(app, headers=bearer(secret)) as http:
            return [await http.post(path, content=body, headers={"content-type": content_type})
                    for path in ("/v2/analyze", "/mcp")]

    rest, mcp = run(scenario())
    assert (rest.status_code, error_of(rest)) == (400, "invalid_request")
    assert rest.json()["error"]["field"] == "Content-Type"
    assert mcp.status_code == 400
    assert mcp.json()["error"]["data"]["field"] == "Content-Type"


def test_json_content_types_and_none_are_taken(tmp_path: Path) -> None:
    app, store = make(tmp_path)
    _, secret = new_key(store, "acme", "developer")
    body = orjson.dumps({"chord": "C"})

    async def scenario() -> list[int]:
        async with running(app, headers=bearer(secret)) as http:
            return [(await http.post("/v2/analyze", content=body, headers=headers)).status_code
                    for headers in ({}, {"content-type": "application/json"},
                                    {"content-type": "Application/JSON; charset=utf-8"},
                                    {"content-type": "application/vnd.api+json"})]

    assert run(scenario()) == [200] * 4


def test_the_key_generation_and_the_batch_lookup_in_either_store(
        store_address: str, opened: Callable[[str], Store]) -> None:
    store = opened(store_address)
    assert store.keys_generation() == 0
    store.create_account("acme", "builder")
    first, secret = store.create_key("acme")
    second, _ = store.create_key("acme")
    assert store.keys_generation() == 0                 # a new key changes no cached answer
    store.revoke_key(second)
    store.set_plan("acme", "developer")
    store.set_limits("acme", 50, 5000)
    new_id, new_secret = store.rotate_key(first)
    assert store.keys_generation() == 4
    digests = [hash_secret(s) for s in (secret, new_secret, "hk_live_" + "u" * 43)]
    found = store.lookup_keys(digests)
    assert sorted(found) == sorted(digests[:2])
    assert found[digests[0]].revoked and not found[digests[1]].revoked
    assert found[digests[1]].key_id == new_id and found[digests[1]].per_minute == 50


def test_postgresql_stopped_and_started_again(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    # A real PostgreSQL of its own, stopped (fast shutdown: every connection cut) while the
    # app serves, then started again: a cached key works throughout, a key the cache does not
    # hold gets 503 unavailable (never a 500, never a stall past the lookup's 0.1 s), and once
    # the database is back every key is answered again, broken pooled connections replaced.
    from tests.pg_server import database, pg_bin, restartable_server

    if pg_bin() is None:
        pytest.skip("PostgreSQL is not installed (Debian's postgresql package)")
    monkeypatch.setenv("HARMONY_STATE_DIR", str(tmp_path))
    with restartable_server() as server:
        address = database(str(server.root))
        store = open_store(address)
        app = build_app(Settings(db_path=address), store, FAKE_OPERATIONS)
        _, cached = new_key(store, "acme", "developer")
        _, uncached = new_key(store, "other", "developer")
        seen: list[int] = []

        async def scenario() -> None:
            async with running(app) as http:
                async def call(authorization: str) -> httpx.Response:
                    r = await http.post("/v2/analyze", json={"chord": "C7"},
                                        headers={"Authorization": authorization})
                    seen.append(r.status_code)
                    return r

                async def until_answered(authorization: str, status: int) -> int:
                    for tries in range(1, 201):
                        r = await call(authorization)
                        if r.status_code == status:
                            return tries
                        assert_unavailable(r)
                        await asyncio.sleep(0.1)
                    raise AssertionError(f"no {status} after 200 tries")

                assert (await call(f"Bearer {cached}")).status_code == 200
                server.stop()
                for _ in range(5):
                    assert (await call(f"Bearer {cached}")).status_code == 200
                    assert_unavailable(await call(f"Bearer {uncached}"))
                    assert_unavailable(await call(MADE_UP))
                server.start()
                await until_answered(f"Bearer {uncached}", 200)
                await until_answered(MADE_UP, 401)
                for _ in range(5):
                    for key in (f"Bearer {cached}", f"Bearer {uncached}"):
                        assert (await call(key)).status_code == 200
                # a key made now is read through the pool's replaced connections
                _, fresh = new_key(store, "fresh", "developer")
                await until_answered(f"Bearer {fresh}", 200)

        try:
            run(scenario())
        finally:
            store.close()
        assert 500 not in seen and set(seen) == {200, 401, 503}


def test_a_flood_of_made_up_keys_does_not_evict_the_keys_in_use(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from server.accounts import Authenticator, auth

    monkeypatch.setattr(auth, "_MAX_CACHED", 16)
    store = HeldStore(str(tmp_path / "harmony.db"))
    store.create_account("acme", "developer")
    key_id, secret = store.create_key("acme")
    authenticator = Authenticator(store, ttl=60, clock=Clock(), timeout=5.0)
    assert authenticator.authenticate(f"Bearer {secret}").key_id == key_id
    for n in range(100):                                  # each read once, cached unknown
        with pytest.raises(Exception, match="unknown API key"):
            authenticator.authenticate(f"Bearer hk_live_{n:043d}")
    assert store.lookups == 101
    assert authenticator.authenticate(f"Bearer {secret}").key_id == key_id
    assert store.lookups == 101                           # still cached
    authenticator.close()


def test_the_lookup_timeout_is_configured_by_harmony_store_timeout() -> None:
    assert Settings().store_timeout == 0.1
    assert Settings.from_env({"HARMONY_STORE_TIMEOUT": "0.25"}).store_timeout == 0.25
    assert Settings.from_env({"HARMONY_STORE_TIMEOUT": "0.25"}).to_env()[
        "HARMONY_STORE_TIMEOUT"] == "0.25"
    for bad in ("0", "11", "soon"):
        with pytest.raises(ValueError, match="HARMONY_STORE_TIMEOUT"):
            Settings.from_env({"HARMONY_STORE_TIMEOUT": bad})
