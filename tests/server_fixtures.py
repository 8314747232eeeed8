"""Helpers for the server tests: a fake engine operation, an injectable clock, and an app
driven in-process through httpx.ASGITransport with its lifespan run by hand."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import signal
import subprocess
from collections.abc import AsyncIterator, Coroutine
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, cast

import httpx

from engine.errors import InvalidChord, InvalidKey
from engine.requests import MAX_SYMBOL, get_str, require_object
from server.accounts.store import Store
from server.api.schemas import OPERATIONS, Operation
from server.http.app import HarmonyApp, build_app
from server.http.settings import Settings


def fake_analyze(request: Any) -> dict[str, Any]:
    """Stands in for engine.analyze: validates like it, answers a fixed shape."""
    req = require_object(request)
    chord = get_str(req, "chord", required=True, max_len=MAX_SYMBOL)
    key = get_str(req, "key", default="C", aliases=("keyContext",))
    assert chord is not None
    if chord.startswith("H"):
        raise InvalidChord(chord, "unknown root letter 'H'", position=0)
    if chord == "boom":
        raise RuntimeError("a bug with a secret path /srv/secret")
    if key == "F lydian":
        raise InvalidKey("'F lydian' is a mode: use key C")
    return {"chord": chord, "key": key}


FAKE_OPERATIONS: dict[str, Operation] = {
    # The fake validates less than the schema, so the schema must check first.
    "analyze": dataclasses.replace(OPERATIONS["analyze"], impl=fake_analyze,
                                   engine_checks=False),
}


class Clock:
    """A settable clock for time.time and time.monotonic alike."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@asynccontextmanager
async def running(app: HarmonyApp, **client: Any) -> AsyncIterator[httpx.AsyncClient]:
    await app.startup()
    transport = httpx.ASGITransport(app=cast(Any, app), client=("203.0.113.7", 4711))
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver",
                                     **client) as http:
            yield http
    finally:
        await app.shutdown()


def make(tmp_path: Path, clock: Clock | None = None, operations: Any = None,
         **settings: Any) -> tuple[HarmonyApp, Store]:
    settings.setdefault("db_path", str(tmp_path / "harmony.db"))
    # a key lookup may wait 2 s (the service's 0.1 s is for a database that stopped
    # answering; a loaded test machine can be slower than that with an answering one)
    settings.setdefault("store_timeout", 2.0)
    store = Store(settings["db_path"])
    clock = clock or Clock()
    app = build_app(Settings(**settings), store,
                    FAKE_OPERATIONS if operations is None else operations,
                    clock=clock, monotonic=clock)
    return app, store


def new_key(store: Store, account: str = "acme", plan: str = "free") -> tuple[str, str]:
    if account not in {name for name, _ in store.accounts()}:
        store.create_account(account, plan)
    return store.create_key(account)


def bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


def run(coro: Coroutine[Any, Any, Any]) -> Any:
    """Drive one test scenario to completion on a fresh event loop."""
    return asyncio.run(coro)


def error_of(response: httpx.Response) -> str:
    """The contract's error code of a REST error body."""
    return str(response.json()["error"]["code"])


def make_counting(tmp_path: Path) -> tuple[HarmonyApp, Store, list[Any]]:
    """An app whose fake analyze records every request it computes (to tell kept answers from
    computed ones)."""
    calls: list[Any] = []

    def counting(request: Any) -> dict[str, Any]:
        calls.append(request)
        return fake_analyze(request)

    ops = {"analyze": dataclasses.replace(FAKE_OPERATIONS["analyze"], impl=counting)}
    app, store = make(tmp_path, operations=ops)
    return app, store, calls


def stop_server(process: subprocess.Popen[Any]) -> None:
    """Stop a ``harmony serve`` the test started in its own session (``start_new_session``):
    SIGTERM (granian stops its workers and the log is written), SIGKILL after a minute, then
    the whole group, so no worker outlives a test that failed half way."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(30)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
