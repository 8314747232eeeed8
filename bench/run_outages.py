"""Outages, measured (issue 35's figures, ``docs/outages.md``): a PostgreSQL stopped while the
service answers, then started again; a revocation made on one worker seen by another; a
Redis that lost its data; a sign-in link fetched by a link scanner; ``nosniff``; a POST that
is not JSON. Each prints what a client sees: statuses, and seconds measured here.

The service is the app itself called as granian's WSGI threads call it (``HarmonyApp.wsgi``),
``--threads`` of them (granian's default here: two a core and one), with the tests' fake
``analyze`` (the engine is not what is measured). PostgreSQL and Redis are started here from
Debian's packages, as the tests start them.

    .venv/bin/python bench/run_outages.py                      # this tree's code
    .venv/bin/python bench/run_outages.py --code /tmp/before    # another tree's (git archive)

``--code`` puts that tree first on the import path, so the same measures run on the code
before a change (the servers' helpers always come from this tree's ``tests/``).
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent.parent
MADE_UP = "Bearer hk_live_"


def helper(name: str) -> ModuleType:
    """This tree's ``tests/<name>.py``, whatever tree the service's code comes from."""
    spec = importlib.util.spec_from_file_location(f"outage_{name}", HERE / "tests" /
                                                  f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Service:
    """An app served on a pool of threads, as granian's WSGI worker serves it."""

    def __init__(self, app: Any, threads: int) -> None:
        self.app = app
        self.pool = ThreadPoolExecutor(threads)
        app.start_wsgi()

    def call(self, path: str, authorization: str | None = None, body: bytes = b"{}",
             method: str = "POST", content_type: str = "application/json",
             query: str = "", cookie: str = "") -> tuple[int, dict[str, str], bytes, float]:
        environ: dict[str, Any] = {
            "REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": query,
            "REMOTE_ADDR": "203.0.113.9", "wsgi.input": io.BytesIO(body),
            "CONTENT_LENGTH": str(len(body)), "HTTP_USER_AGENT": "outage-bench/1"}
        if content_type:
            environ["CONTENT_TYPE"] = content_type
        if authorization:
            environ["HTTP_AUTHORIZATION"] = authorization
        if cookie:
            environ["HTTP_COOKIE"] = cookie
        answer: dict[str, Any] = {}

        def start_response(status: str, headers: list[tuple[str, str]]) -> None:
            answer["status"], answer["headers"] = int(status.split()[0]), headers

        start = time.perf_counter()
        try:
            chunks = self.app.wsgi(environ, start_response)
        except Exception:  # what granian answers then: a bare 500, no body
            chunks, answer["status"], answer["headers"] = [], 500, []
        elapsed = time.perf_counter() - start
        headers: dict[str, str] = {}
        for k, v in answer["headers"]:
            headers[k.lower()] = headers[k.lower()] + ", " + v if k.lower() in headers else v
        return answer["status"], headers, b"".join(chunks), elapsed

    def submit(self, *args: Any, **kwargs: Any) -> Any:
        """A call queued for the pool's threads; its result includes the time it waited."""
        queued = time.perf_counter()

        def run() -> tuple[int, float]:
            status, _, _, _ = self.call(*args, **kwargs)
            return status, time.perf_counter() - queued
        return self.pool.submit(run)

    def close(self) -> None:
        self.pool.shutdown()
        self.app.stop_wsgi()


def analyze(authorization: str) -> dict[str, Any]:
    return {"path": "/v2/analyze", "authorization": authorization, "body": b'{"chord": "C7"}'}


def made_up(n: int) -> str:
    return MADE_UP + f"{n:043d}"


def postgres_outage(tmp: Path, threads: int, outage: float) -> None:
    from server.accounts import open_store
    from server.http.app import build_app
    from server.http.settings import Settings
    from tests.server_fixtures import FAKE_OPERATIONS

    pg = helper("pg_server")
    os.environ["HARMONY_STATE_DIR"] = str(tmp)
    with pg.restartable_server() as server:
        address = pg.database(str(server.root))
        store = open_store(address)
        store.create_account("acme", "developer")
        store.create_account("other", "developer")
        _, cached = store.create_key("acme")
        _, uncached = store.create_key("other")
        service = Service(build_app(Settings(db_path=address), store, FAKE_OPERATIONS),
                          threads)
        assert service.call(**analyze(f"Bearer {cached}"))[0] == 200
        server.stop()
        down = time.perf_counter()
        print(f"PostgreSQL stopped (fast shutdown); {threads} request threads")
        # eight made-up keys arrive at once, then a cached key's call
        flood = [service.submit(**analyze(made_up(i))) for i in range(8)]
        cached_call = service.submit(**analyze(f"Bearer {cached}"))
        answers = [f.result() for f in flood]
        status, waited = cached_call.result()
        print(f"  8 made-up keys at once: statuses {dict(Counter(s for s, _ in answers))}, "
              f"slowest answered in {max(t for _, t in answers):.2f} s")
        print(f"  a cached key's call behind them: {status} in {waited:.2f} s")
        status, _, body, elapsed = service.call(**analyze(f"Bearer {uncached}"))
        print(f"  a real key not in the cache: {status} in {elapsed:.2f} s, body "
              f"{body[:80]!r}")
        statuses: Counter[int] = Counter()
        slowest, started = 0.0, time.perf_counter()
        for _ in range(20):   # (or fewer: no more once 30 s have passed)
            status, _, _, elapsed = service.call(**analyze(f"Bearer {cached}"))
            statuses[status] += 1
            slowest = max(slowest, elapsed)
            if time.perf_counter() - started > 30:
                break
            time.sleep(0.1)
        print(f"  the cached key's next calls (10 a second, for 2 s or 30 s at most): "
              f"{dict(statuses)}, slowest {slowest:.2f} s")
        time.sleep(max(0.0, outage - (time.perf_counter() - down)))
        server.start()
        back = time.perf_counter()
        print(f"PostgreSQL started again after {back - down:.0f} s")
        statuses = Counter()
        first: dict[str, float] = {}
        n = 100
        while len(first) < 2 and time.perf_counter() - back < 120:
            n += 1
            for name, key in (("a made-up key's 401", made_up(n)),
                              ("the uncached key's 200", f"Bearer {uncached}")):
                status = service.call(**analyze(key))[0]
                statuses[status] += 1
                if status in (200, 401) and name not in first:
                    first[name] = time.perf_counter() - back
            time.sleep(0.1)
        for name, seconds in first.items():
            print(f"  {name} after {seconds:.1f} s")
        print(f"  answers while it came back (10 pairs a second): {dict(statuses)}")
        after = Counter(service.call(**analyze(key))[0] for _ in range(20)
                        for key in (f"Bearer {cached}", f"Bearer {uncached}"))
        print(f"  the next 40 calls of both keys: {dict(after)}")
        service.close()
        store.close()


def revocation(tmp: Path) -> None:
    from server.accounts import Store
    from server.http.app import build_app
    from server.http.settings import Settings
    from tests.server_fixtures import FAKE_OPERATIONS

    db = str(tmp / "revoke.db")
    store = Store(db)
    store.create_account("acme", "developer")
    store.set_limits("acme", 10**6, 10**6)       # no limit in the way of 20 calls a second
    key_id, secret = store.create_key("acme")
    a, b = (Service(build_app(Settings(db_path=db), Store(db), FAKE_OPERATIONS), 2)
            for _ in range(2))
    for worker in (a, b):
        assert worker.call(**analyze(f"Bearer {secret}"))[0] == 200
    store.revoke_key(key_id)         # as worker a's account page does (and forgets the key)
    a.app.auth.forget(key_id)
    revoked = time.perf_counter()
    accepted = 0
    while time.perf_counter() - revoked < 90:
        status = b.call(**analyze(f"Bearer {secret}"))[0]
        if status != 200:
            break
        accepted += 1
        time.sleep(0.05)
    print(f"A key revoked on worker a (keys cached {b.app.settings.key_cache_seconds:.0f} s): "
          f"worker b refused it after {time.perf_counter() - revoked:.2f} s with {status}, "
          f"having accepted {accepted} calls (20 a second)")
    a.close()
    b.close()


def redis_reset(tmp: Path) -> None:
    import redis

    from server.accounts import RedisCounters, SharedCounters, Store

    month, minute = 2027 * 12, 30_000_000
    with helper("redis_server").redis_server() as server:
        store = Store(str(tmp / "redis.db"))
        counters = RedisCounters(server.url, SharedCounters(store))
        for _ in range(100):
            counters.take("key_a", minute, 10**6, 7, month, 10**6)
        counters.flush()
        redis.Redis.from_url(server.url).flushall()
        used = counters.take("key_a", minute, 10**6, 7, month, 10**6).month_used
        for _ in range(49):
            counters.take("key_a", minute, 10**6, 7, month, 10**6)
        counters.flush()
        (_, _, stored, _), = store.month_usage()
        print(f"Redis lost its data after 100 calls: the 101st call's month used {used}; "
              f"after 150 calls in all the store's month shows {stored}")
        counters.close()


def sign_in_link(tmp: Path, threads: int) -> None:
    from server.accounts import SignIn, Store
    from server.http.app import build_app
    from server.http.settings import Settings
    from tests.server_fixtures import FAKE_OPERATIONS

    db = str(tmp / "signin.db")
    store = Store(db)
    store.create_account("acme", "developer")
    service = Service(build_app(Settings(db_path=db), store, FAKE_OPERATIONS), threads)
    link = SignIn(store).issue_link("acme")
    query = f"token={link}"
    scanner = [service.call("/account/login", method="GET", content_type="", query=query)[0]
               for _ in range(2)]
    status, headers, page, _ = service.call("/account/login", method="GET", content_type="",
                                            query=query)
    user = [status]
    if status == 200 and b"sign-in-button" in page:   # press the page's button
        import html
        import re

        fields = dict(re.findall(rb'name="(token|csrf)" value="([^"]*)"', page))
        cookie = headers["set-cookie"].split(";")[0]
        form = f"token={html.unescape(fields[b'token'].decode())}&csrf=" \
               f"{fields[b'csrf'].decode()}".encode()
        user.append(service.call("/account/login", body=form, cookie=cookie,
                                 content_type="application/x-www-form-urlencoded")[0])
    print(f"A sign-in link fetched twice by a link scanner: {scanner}; then the user: {user}")
    nosniff_and_types(service, store)
    service.close()


def nosniff_and_types(service: Service, store: Any) -> None:
    _, secret = store.create_key("acme")
    answers: dict[str, tuple[int, dict[str, str]]] = {}
    for name, call in {
        "/health": lambda: service.call("/health", method="GET", content_type=""),
        "/openapi.json": lambda: service.call("/openapi.json", method="GET", content_type=""),
        "404": lambda: service.call("/no/such/<b>route</b>", method="GET", content_type=""),
        "405": lambda: service.call("/v2/analyze", method="GET", content_type=""),
        "401": lambda: service.call(**analyze("")),
        "400": lambda: service.call("/v2/analyze", f"Bearer {secret}", b"{"),
        "200": lambda: service.call(**analyze(f"Bearer {secret}")),
        "/account": lambda: service.call("/account", method="GET", content_type=""),
    }.items():
        status, headers, _, _ = call()
        answers[name] = (status, headers)
    missing = [name for name, (_, headers) in answers.items()
               if headers.get("x-content-type-options") != "nosniff"]
    print(f"nosniff missing on {len(missing)} of {len(answers)} kinds of answer: "
          f"{', '.join(missing) or 'none'}")
    plain = service.call("/v2/analyze", f"Bearer {secret}", b'{"chord": "C7"}',
                         content_type="text/plain")
    form = service.call("/v2/analyze", f"Bearer {secret}", b'{"chord": "C7"}',
                        content_type="application/x-www-form-urlencoded")
    print(f"A JSON body sent as text/plain: {plain[0]}; as a form: {form[0]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--code", help="the tree whose server code is measured")
    parser.add_argument("--threads", type=int, default=2 * (os.cpu_count() or 1) + 1)
    parser.add_argument("--outage", type=float, default=20.0,
                        help="seconds PostgreSQL stays stopped")
    args = parser.parse_args()
    sys.path.insert(0, str(Path(args.code).resolve() if args.code else HERE))
    with tempfile.TemporaryDirectory(prefix="harmony-outages-") as folder:
        tmp = Path(folder)
        steps: list[Callable[[], None]] = [
            lambda: sign_in_link(tmp, args.threads), lambda: redis_reset(tmp),
            lambda: revocation(tmp), lambda: postgres_outage(tmp, args.threads, args.outage)]
        for step in steps:
            step()
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
