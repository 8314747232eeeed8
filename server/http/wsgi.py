"""The I/O of granian's WSGI interface, for ``HarmonyApp.wsgi``: the headers as the environ
holds them, the request body (never more than the limit), the answer, and the worker's own
event loop for what must wait.

granian calls a WSGI app on one of its blocking threads, which holds the GIL: the request
reaches Python through one thread hand-over, where RSGI takes three threads and, for a POST,
two round trips (the coroutine scheduled on the event loop, then the body's future resolved on
it; ``docs/request-path.md``). Measured on the 2-core VM, two workers, wrk 32
connections (``bench/load.py``, three runs over WSGI and one over RSGI the same hour):
``POST /v2/analyze`` 29.6-40.6k req/s against 21.8k over RSGI, sequential p50 0.13-0.19 ms
against 0.26 ms.

The price: a body is read on the request's thread, which waits while a client holds its body
back (granian has no body timeout), where RSGI waits with a task. So ``harmony serve`` runs
WSGI in the local profile and RSGI in the hosted one, unless ``HARMONY_INTERFACE`` says
otherwise (a hosted service behind a proxy that buffers request bodies may take WSGI).

The pipeline is a coroutine (one pipeline for ASGI, RSGI and WSGI); over WSGI nothing in it
waits on a loop, so ``run`` steps it to its end on the request's thread. A route that must wait
(a render, for its process pool) runs whole on the worker's ``LoopThread`` instead, which also
carries the request log's writer.

A worker's request threads (``HARMONY_THREADS``) run the pipeline under the GIL, which passes
between them at a body read, the answer's hand-back or a switch interval. What they
share: the limit counters (compare-and-swap in shared memory, exact), the log queue (a row is
one ``list.append``, taken by one swap), the metrics' running totals (each addition one
statement; ``publish`` moves what they gained), the key cache and the engine's ``lru_cache``s
(one dict operation each, safe), and the flood throttle's per-address counts (a read and a write: two threads may
count one call less, and a flood guard may let one more through).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from http import HTTPStatus
from typing import Any, TypeVar

from engine.errors import PayloadTooLarge
from server.api import ClientDisconnected, Response, size_text

T = TypeVar("T")
Environ = dict[str, Any]

# "200 OK" for 200: WSGI's status line (granian reads only its number).
STATUS_LINES = {s.value: f"{s.value} {s.phrase}" for s in HTTPStatus}


class EnvironKeys(dict[str, str]):
    """A header's lower-case name -> its environ key: ``user-agent`` -> ``HTTP_USER_AGENT``
    (``content-length`` and ``content-type`` have their own). Made once per name."""

    def __missing__(self, name: str) -> str:
        key = self[name] = "HTTP_" + name.upper().replace("-", "_")
        return key


ENVIRON_KEYS = EnvironKeys({"content-length": "CONTENT_LENGTH", "content-type": "CONTENT_TYPE"})


class Headers:
    """A request's headers read from the environ by lower-case name, as the pipeline reads
    them (``server.api.RequestHeaders``): nothing copied (a call reads about six)."""

    __slots__ = ("environ",)

    def __init__(self, environ: Environ) -> None:
        self.environ = environ

    def get(self, name: str, default: str | None = None) -> str | None:
        value: str | None = self.environ.get(ENVIRON_KEYS[name], default)
        return value

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and ENVIRON_KEYS[name] in self.environ


class Body:
    """The request body from ``wsgi.input`` (``server.http.context.BodyReader``). granian
    reads a WSGI body only when asked, on the calling thread with the GIL released: a declared
    length over the limit is refused unread, and a body of unknown length is read to one byte
    past the limit at most."""

    __slots__ = ("length", "stream")

    def __init__(self, environ: Environ) -> None:
        self.stream = environ["wsgi.input"]
        self.length: str | None = environ.get("CONTENT_LENGTH")

    def start(self) -> None:
        """Nothing to start: the body is read when the pipeline asks for it."""

    def abandon(self) -> None:
        """Nothing to stop: a body never asked for is never read."""

    def gone(self) -> None:
        """WSGI does not tell when a client goes: a render is bounded by its deadline alone."""
        return None

    async def read(self, limit: int) -> bytes:  # never waits: a coroutine for the pipeline
        length = self.length
        if length is not None and length.isdigit():
            size = int(length)
            if size > limit:
                raise PayloadTooLarge(f"the body is over {size_text(limit)}")
            body: bytes = self.stream.read(size)
            if len(body) < size:  # the client went before sending all it declared
                raise ClientDisconnected
            return body
        body = self.stream.read(limit + 1)
        if len(body) > limit:
            raise PayloadTooLarge(f"the body is over {size_text(limit)}")
        return body


def run(pipeline: Coroutine[Any, Any, T]) -> T:
    """Step a pipeline coroutine to its end on this thread. It yields only bare ``None`` (an
    MCP batch between its elements, giving the loop's other requests a turn: here the GIL's
    switching does that), resumed at once; anything else means it waits on an event loop,
    which a route that waits gets from ``LoopThread`` instead (``Route.waits``)."""
    try:
        while True:
            if pipeline.send(None) is not None:
                pipeline.close()
                raise RuntimeError("a request waited on an event loop on a WSGI thread; its "
                                   "route must be marked waits=True")
    except StopIteration as stop:
        result: T = stop.value
        return result


def answer(start_response: Any, method: str, response: Response) -> list[bytes]:
    headers = response.headers  # the response's own list (``_finish`` adds to it too)
    if response.content_type is not None:
        headers.append(("content-type", response.content_type))
    status = STATUS_LINES.get(response.status) or str(response.status)
    if method == "HEAD":  # the length of the body a GET would get, and no body
        headers.append(("content-length", str(len(response.body))))
        start_response(status, headers)
        return []
    start_response(status, headers)  # granian sets content-length from the body
    return [response.body]


class LoopThread:
    """An event loop on its own thread, for a WSGI worker: the request log's writer runs on it,
    and so does a request whose route waits (``run`` blocks the calling thread, the GIL
    released, until the coroutine has finished on the loop)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="harmony-loop",
                                        daemon=True)
        self._thread.start()

    def run(self, coroutine: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join()
        self.loop.close()
