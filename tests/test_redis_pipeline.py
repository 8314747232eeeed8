"""The Redis limit checks pipelined (issue 40, ``server.accounts.redis_pipeline``), against a
real server: concurrent checks over a limit never pass it, on a loop (a tick's checks in one
round trip), across threads and across processes that each pipeline; a Redis that forgot its
script, or went away, with checks in flight; and the service over ASGI (its checks awaited)."""

from __future__ import annotations

import asyncio
import multiprocessing
import threading
from pathlib import Path
from typing import Any

from server.accounts import SharedCounters, Store
from server.accounts.limits import Taken
from server.accounts.redis_counters import RedisCounters

MONTH = 2027 * 12
MINUTE = 30_000_000


def _counters(url: str, tmp_path: Path, **given: Any) -> RedisCounters:
    return RedisCounters(url, SharedCounters(Store(str(tmp_path / "harmony.db"))), **given)


async def _soon(counters: RedisCounters, key: str, n: int, minute_limit: int,
                month_limit: int, account: int = 1) -> list[Taken]:
    """``n`` checks started in one tick of the loop, awaited together."""
    async def one() -> Taken:
        taken = counters.take_soon(key, MINUTE, minute_limit, account, MONTH, month_limit)
        return taken if isinstance(taken, Taken) else await taken

    return list(await asyncio.gather(*(one() for _ in range(n))))


def _on_a_loop(counters: RedisCounters, checks: Any) -> Any:
    """Run ``checks`` on a new loop, closing its connection before the loop ends (as the
    app's shutdown does)."""
    async def run() -> Any:
        try:
            return await checks
        finally:
            await counters.aclose()

    return asyncio.run(run())


def test_a_loop_s_checks_over_the_minute_leave_together_and_stop_at_the_limit(
        redis_url: str, tmp_path: Path) -> None:
    counters = _counters(redis_url, tmp_path)
    counters.take("key_free", MINUTE, 30, 1, MONTH, 10**6)   # the month exists (seeded)
    taken = _on_a_loop(counters, _soon(counters, "key_free", 50, 30, 10**6))
    pipe = counters.loop_pipeliner
    assert (pipe.batches, pipe.commands) == (1, 50)          # one round trip for the tick
    # Redis ran them in the order sent: counts 2..51, the first 29 within the minute's 30
    assert [t.minute_count for t in taken] == list(range(2, 52))
    assert sum(t.reserved for t in taken) == 29
    assert [t.month_used for t in taken if t.reserved] == list(range(2, 31))
    assert counters.peek("key_free", MINUTE, 1, MONTH) == Taken(51, 30, False)
    counters.close()


def test_a_loop_s_checks_over_the_month_never_pass_it(redis_url: str, tmp_path: Path) -> None:
    counters = _counters(redis_url, tmp_path)
    counters.take("key_ent", MINUTE, 10**6, 1, MONTH, 40)

    async def rounds() -> list[Taken]:  # ticks after ticks, each a batch, all racing
        batches = await asyncio.gather(*(_soon(counters, "key_ent", 25, 10**6, 40)
                                         for _ in range(4)))
        return [t for batch in batches for t in batch]

    taken = _on_a_loop(counters, rounds())
    assert sum(t.reserved for t in taken) == 39 and len(taken) == 100
    assert max(t.month_used for t in taken) == 40
    assert counters.fallbacks == 0
    counters.close()


def _loop_hammer(url: str, db: str, calls: int, start: Any, out: Any) -> None:
    counters = RedisCounters(url, SharedCounters(Store(db)))
    start.wait()
    taken = _on_a_loop(counters, _soon(counters, "key_race", calls, 10**6, 100))
    counters.close()
    out.put(sum(t.reserved for t in taken))


def test_processes_pipelining_at_once_share_the_month_exactly(redis_url: str,
                                                               tmp_path: Path) -> None:
    # three machines' loops, 60 checks each in flight together, on a month of 100
    db = str(tmp_path / "harmony.db")
    Store(db)
    ctx = multiprocessing.get_context("spawn")
    start, out = ctx.Barrier(3), ctx.Queue()
    workers = [ctx.Process(target=_loop_hammer, args=(redis_url, db, 60, start, out))
               for _ in range(3)]
    for w in workers:
        w.start()
    reserved = sum(out.get(timeout=120) for _ in workers)
    for w in workers:
        w.join(60)
    assert reserved == 100


def test_threads_of_a_worker_share_one_pipelined_connection_exactly(redis_url: str,
                                                                    tmp_path: Path) -> None:
    # a WSGI worker's request threads: 8 at once, 40 calls each, on a minute of 150
    counters = _counters(redis_url, tmp_path)
    counters.take("key_threads", MINUTE, 150, 1, MONTH, 10**6)  # the month: absent, seeded
    reserved = [0] * 8
    start = threading.Barrier(8)

    def hammer(n: int) -> None:
        start.wait()
        for _ in range(40):
            reserved[n] += counters.take("key_threads", MINUTE, 150, 1, MONTH, 10**6).reserved

    threads = [threading.Thread(target=hammer, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(reserved) == 149
    assert counters.pipeliner.commands == 2 + 320             # the first twice (the seed)
    assert counters.peek("key_threads", MINUTE, 1, MONTH) == Taken(321, 150, False)
    counters.close()


def test_a_redis_that_forgot_the_script_answers_the_batch_after_loading_it(
        redis_url: str, tmp_path: Path) -> None:
    import redis

    counters = _counters(redis_url, tmp_path)
    counters.take("key_a", MINUTE, 100, 1, MONTH, 1000)
    admin = redis.Redis.from_url(redis_url)
    admin.script_flush()                                       # as a restart does
    taken = _on_a_loop(counters, _soon(counters, "key_a", 5, 100, 1000))
    assert sorted(t.month_used for t in taken) == [2, 3, 4, 5, 6]
    admin.script_flush()
    admin.close()
    assert counters.take("key_a", MINUTE, 100, 1, MONTH, 1000).month_used == 7
    assert counters.fallbacks == 0
    counters.close()


def test_checks_in_flight_when_redis_goes_fall_back_to_this_machine_s_share(
        redis_service: Any, tmp_path: Path) -> None:
    from tests.redis_server import flushed

    url = flushed(redis_service.url)
    counters = _counters(url, tmp_path, machines=2)
    _on_a_loop(counters, _soon(counters, "key_a", 1, 30, 1000))
    redis_service.stop()
    try:
        # 30 a minute over two machines: this one admits its 15 alone, never unlimited
        taken = _on_a_loop(counters, _soon(counters, "key_a", 20, 30, 1000))
        assert sum(t.reserved for t in taken) == 15
        assert counters.fallbacks == 20
    finally:
        redis_service.start()
    counters.close()


def test_the_service_s_concurrent_calls_over_the_minute_get_429_past_it(
        redis_url: str, tmp_path: Path) -> None:
    from tests.server_fixtures import bearer, make, new_key, running

    app, store = make(tmp_path, redis_url=redis_url)
    _, secret = new_key(store)
    store.set_limits("acme", 12, 1000)

    async def scenario() -> list[int]:
        async with running(app, headers=bearer(secret)) as http:
            # the first call loads the script and seeds the month; then 20 at once
            assert (await http.post("/v2/analyze", json={"chord": "C"})).status_code == 200
            sent = app.counters.loop_pipeliner.commands  # type: ignore[attr-defined]
            answers = await asyncio.gather(*(http.post("/v2/analyze", json={"chord": "C"})
                                             for _ in range(20)))
            assert app.counters.loop_pipeliner.commands == sent + 20  # type: ignore
            return [a.status_code for a in answers]

    statuses = asyncio.run(scenario())
    assert sorted(statuses) == [200] * 11 + [429] * 9
    assert isinstance(app.counters, RedisCounters) and app.counters.fallbacks == 0


def test_mcp_tool_calls_on_a_loop_await_their_checks_and_stop_at_the_minute(
        redis_url: str, tmp_path: Path) -> None:
    # MCP's gate checks as REST's do on a loop: pipelined with the loop's others, none a
    # blocking round trip; numbered ids make kept calls (the plan, then the kept answer), and
    # a batch's calls are awaited one after the other
    import orjson

    from tests.server_fixtures import bearer, make, new_key, running

    app, store = make(tmp_path, redis_url=redis_url)
    _, secret = new_key(store)
    store.set_limits("acme", 14, 1000)

    def call(rid: int) -> bytes:
        return orjson.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                             "params": {"name": "analyze_chord",
                                        "arguments": {"chord": "Dm7b5", "key": "Cm"}}})

    async def scenario() -> tuple[list[Any], Any]:
        async with running(app, headers=bearer(secret)) as http:
            counters = app.counters
            assert isinstance(counters, RedisCounters)
            first = await http.post("/mcp", content=call(1))   # loads the script, seeds
            assert first.status_code == 200 and first.json()["result"]["isError"] is False
            blocking, sent = counters.pipeliner.commands, counters.loop_pipeliner.commands
            answers = await asyncio.gather(*(http.post("/mcp", content=call(rid))
                                             for rid in range(2, 22)))
            batch = await http.post("/mcp", content=b"[" + call(30) + b"," + call(31) + b"]")
            kept = [await http.post("/mcp", content=call(rid)) for rid in (40, 41)]
            assert [k.status_code for k in kept] == [429, 429]   # a kept call's refusal
            assert counters.loop_pipeliner.commands == sent + 24
            assert counters.pipeliner.commands == blocking       # no check blocked the loop
            return list(answers), batch

    answers, batch = asyncio.run(scenario())
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [200] * 13 + [429] * 7                 # the first call and 13: 14
    for answer in answers:
        body = answer.json()
        if answer.status_code == 200:
            assert body["result"]["isError"] is False
        else:
            assert body["error"]["data"]["code"] == "rate_limited"
    assert [element["error"]["data"]["code"] for element in batch.json()] == \
        ["rate_limited"] * 2


def test_replies_cut_anywhere_by_the_socket_reach_their_checks_in_order() -> None:
    # the loop's connection parses what arrives, however the socket cuts it: TAKE's three
    # integers, an error reply (NOSCRIPT: that check's alone), a bulk string, a nil, a status
    from redis.exceptions import NoScriptError

    from server.accounts.redis_pipeline import LoopPipeliner, _Resp, _settle

    stream = (b"*3\r\n:12\r\n:345\r\n:1\r\n-NOSCRIPT No matching script\r\n"
              b"*3\r\n:0\r\n:0\r\n:-1\r\n$5\r\nhello\r\n$-1\r\n+OK\r\n*2\r\n:1\r\n$1\r\nx\r\n")

    async def feed(size: int) -> list[Any]:
        resp = _Resp(LoopPipeliner("unix:///nowhere", 1.0))
        futures = [resp.loop.create_future() for _ in range(7)]
        resp.waiting.extend((future, _settle) for future in futures)
        for at in range(0, len(stream), size):
            resp.data_received(stream[at:at + size])
        return [f.exception() or f.result() for f in futures]

    for size in (1, 2, 3, 5, 7, 11, len(stream)):
        replies = asyncio.run(feed(size))
        assert isinstance(replies[1], NoScriptError)
        assert [replies[0], *replies[2:]] == [[12, 345, 1], [0, 0, -1], b"hello", None, b"OK",
                                              [1, b"x"]]


def test_the_loop_s_connection_signs_in_and_selects_the_url_s_database(tmp_path: Path) -> None:
    # a Redis with a password, the counters in database 2: the loop's own connection sends
    # AUTH and SELECT before its first check, as redis-py's connection does
    import subprocess
    import time

    import pytest
    import redis

    from tests.redis_server import redis_binary

    binary = redis_binary()
    if binary is None:
        pytest.skip("redis-server is not installed")
    socket = tmp_path / "redis.sock"
    server = subprocess.Popen([binary, "--port", "0", "--unixsocket", str(socket),
                               "--unixsocketperm", "700", "--save", "", "--appendonly", "no",
                               "--requirepass", "s3cret", "--dir", str(tmp_path)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not socket.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        url = f"unix://{socket}?db=2&password=s3cret"
        counters = _counters(url, tmp_path)
        counters.take("key_auth", MINUTE, 100, 1, MONTH, 1000)     # seeds the month
        taken = _on_a_loop(counters, _soon(counters, "key_auth", 3, 100, 1000))
        assert [t.month_used for t in taken] == [2, 3, 4] and counters.fallbacks == 0
        admin = redis.Redis(unix_socket_path=str(socket), password="s3cret", db=2)
        assert int(admin.get(f"harmony:{{a:1}}:M:{MONTH}") or 0) == 4
        admin.close()
        wrong = _counters(f"unix://{socket}?db=2&password=nope", tmp_path)
        refused = _on_a_loop(wrong, _soon(wrong, "key_auth", 2, 100, 1000))
        assert wrong.fallbacks == 2 and all(t.reserved for t in refused)  # its own share
        counters.close()
        wrong.close()
    finally:
        server.terminate()
        server.wait(30)


class _NoBlockingRefund:
    """A REFUND script that fails the test if called as a blocking round trip."""

    def __init__(self, sha: str) -> None:
        self.sha = sha

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a blocking refund on the event loop")


def test_a_check_whose_request_went_gives_its_unit_back(redis_url: str,
                                                        tmp_path: Path) -> None:
    # the request is cancelled while its check is out: the unit Redis reserved goes back,
    # sent with the loop's next checks, not as a blocking round trip
    counters = _counters(redis_url, tmp_path)
    counters.take("key_c", MINUTE, 100, 4, MONTH, 1000)        # the month seeded: 1 used
    counters._refund = _NoBlockingRefund(counters._refund.sha)  # type: ignore[assignment]

    async def scenario() -> tuple[Taken, Taken]:
        gone = counters.take_soon("key_c", MINUTE, 100, 4, MONTH, 1000)
        gone.cancel()
        second = await counters.take_soon("key_c", MINUTE, 100, 4, MONTH, 1000)
        third = await counters.take_soon("key_c", MINUTE, 100, 4, MONTH, 1000)
        return second, third

    second, third = _on_a_loop(counters, scenario())
    assert second.month_used == 3                # the gone one's unit was still held
    assert third.month_used == 3                 # given back before the third was taken
    assert counters.peek("key_c", MINUTE, 4, MONTH).month_used == 3
    counters.close()


def test_a_failed_call_on_a_loop_gives_its_unit_back_without_blocking(
        redis_url: str, tmp_path: Path) -> None:
    from tests.server_fixtures import bearer, make, new_key, running

    app, store = make(tmp_path, redis_url=redis_url)
    _, secret = new_key(store)
    counters = app.counters
    assert isinstance(counters, RedisCounters)

    async def scenario() -> list[tuple[int, str]]:
        async with running(app, headers=bearer(secret)) as http:
            assert (await http.post("/v2/analyze", json={"chord": "C"})).status_code == 200
            counters._refund = _NoBlockingRefund(counters._refund.sha)  # type: ignore
            answers = [await http.post("/v2/analyze", json={"chord": chord})
                       for chord in ("H7", "C7", "Xmaj", "G7")]
            return [(a.status_code, a.headers["x-quota-used"]) for a in answers]

    # a 400's unit goes back (its quota header says so), and the next call's count shows
    # Redis had it back first: the refund went with the loop's checks, in order
    assert asyncio.run(scenario()) == [(400, "1"), (200, "2"), (400, "2"), (200, "3")]
    assert counters.fallbacks == 0
