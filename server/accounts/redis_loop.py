"""A limit check on an event loop (RSGI, ASGI), answered where its reply is read: the
other side of ``RedisCounters.take_soon``. The check is one future; ``LoopPipeliner`` calls
``answer`` with TAKE's reply in ``data_received``, and the admission is decided there (the
limiter's ``then``), so the request awaits that one future, not a chain of coroutines."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Protocol

from server.accounts.limits import Taken
from server.accounts.redis_pipeline import LoopPipeliner


class Owner(Protocol):
    """What a check needs of its ``RedisCounters`` (a protocol: the counters import this
    module)."""

    @property
    def loop_pipeliner(self) -> LoopPipeliner: ...
    @property
    def _touched(self) -> set[tuple[int, int]]: ...
    @property
    def _no_script(self) -> type[Exception]: ...
    @property
    def _errors(self) -> tuple[type[BaseException], ...]: ...

    def refund(self, account: int, month: int) -> None: ...
    def _load_scripts(self) -> None: ...
    def _went_down(self) -> None: ...
    def _seed_month(self, account: int, month: int) -> bool: ...
    def _fallback_take(self, key: str, minute: int, minute_limit: int, account: int,
                       month: int, month_limit: int) -> Taken: ...


class LoopCheck:
    """One check on a loop, answered where its reply is read (``LoopPipeliner``): TAKE's
    reply becomes ``then(taken)``, the future's result. The rare replies are handled here
    too, as ``take`` does on a thread: NOSCRIPT (Redis restarted empty) loads the script and
    sends the check again, a month Redis does not hold is seeded from the store and the check
    sent again, a connection lost or timed out falls back to this machine's share."""

    __slots__ = ("args", "counters", "loaded", "packed", "seeded", "then")

    def __init__(self, counters: Owner, then: Callable[[Taken], Any], packed: bytes,
                 args: tuple[str, int, int, int, int, int]) -> None:
        self.counters = counters
        self.then = then
        self.packed = packed
        self.args = args
        self.loaded = self.seeded = False

    def answer(self, future: asyncio.Future[Any], reply: Any) -> None:
        if future.done():            # the request went (cancelled): nothing to answer,
            if reply.__class__ is list and reply[2] == 1:   # and its unit is given back
                self.counters.refund(self.args[3], self.args[4])
            return
        try:
            if reply.__class__ is list and reply[2] != -1:    # the common case: taken
                counters, args = self.counters, self.args
                counters._touched.add((args[3], args[4]))
                future.set_result(self.then(Taken(reply[0], reply[1], reply[2] == 1)))
                return
            self._rare(future, reply)
        except BaseException as error:  # the request's to see, not the loop's
            if not future.done():
                future.set_exception(error)

    def _rare(self, future: asyncio.Future[Any], reply: Any) -> None:
        counters = self.counters
        if isinstance(reply, counters._no_script) and not self.loaded:
            self.loaded = True
            counters._load_scripts()  # once after a restart of Redis: blocking
            counters.loop_pipeliner.send(self.packed, self.answer, future)
            return
        if isinstance(reply, counters._errors):
            counters._went_down()
        elif isinstance(reply, BaseException):
            raise reply
        elif not self.seeded:           # the month is absent: seeded once (blocking)
            self.seeded = True
            if counters._seed_month(self.args[3], self.args[4]):
                counters.loop_pipeliner.send(self.packed, self.answer, future)
                return
        future.set_result(self.then(counters._fallback_take(*self.args)))
