"""The job pool behind ``/v2/render`` (``server.http.jobs``)."""

from __future__ import annotations

import asyncio
import os
import pickle
import time

import pytest

from engine.errors import Busy, InvalidChord, InvalidRequest
from server.http.jobs import JobPool
from server.http.render import preferred_audio


def test_a_job_runs_in_another_process_and_returns_its_result() -> None:
    pool = JobPool(1, 0)
    try:
        pid = asyncio.run(pool.run(os.getpid))
    finally:
        pool.close()
    assert pid != os.getpid()


def _sleep_then(seconds: float) -> float:
    time.sleep(seconds)
    return seconds


def _fail(field: str) -> None:
    raise InvalidRequest("no such thing", field=field)


def test_beyond_workers_and_queue_a_job_is_refused_busy_with_retry_after() -> None:
    pool = JobPool(1, 1)

    async def scenario() -> list[object]:
        jobs = [asyncio.ensure_future(pool.run(_sleep_then, 0.5)) for _ in range(2)]
        await asyncio.sleep(0)  # both admitted: one running, one waiting
        with pytest.raises(Busy) as refused:
            await pool.run(_sleep_then, 0.0)
        done = await asyncio.gather(*jobs)
        after = await pool.run(_sleep_then, 0.0)  # slots free again
        return [refused.value, *done, after]

    try:
        busy, *results = asyncio.run(scenario())
    finally:
        pool.close()
    assert isinstance(busy, Busy) and busy.to_dict()["error"]["code"] == "busy"
    assert busy.details["retryAfter"] >= 1
    assert results == [0.5, 0.5, 0.0]
    assert pool.in_flight == 0


def test_an_engine_error_crosses_the_process_boundary_whole() -> None:
    pool = JobPool(1, 0)
    try:
        with pytest.raises(InvalidRequest) as refused:
            asyncio.run(pool.run(_fail, "midi"))
    finally:
        pool.close()
    assert refused.value.to_dict() == {"error": {"code": "invalid_request",
                                                 "message": "no such thing", "field": "midi"}}


def test_errors_pickle_with_their_details() -> None:
    error = InvalidChord("Cmaj7#", "a trailing '#'", index=2)
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is InvalidChord and again.to_dict() == error.to_dict()
    assert again.symbol == "Cmaj7#" and again.reason == error.reason


@pytest.mark.parametrize(("accept", "expected"), [
    (None, None),
    ("application/json", None),
    ("*/*", None),
    ("audio/wav", "wav"),
    ("audio/flac", "flac"),
    ("audio/mpeg", "mp3"),
    ("audio/*", ""),
    ("application/json;q=0.5, audio/flac", "flac"),
    ("audio/wav;q=0.4, application/json;q=0.9", None),
    ("audio/wav;q=0, application/json", None),
    ("text/html", None),
])
def test_accept_chooses_raw_audio_only_when_it_prefers_an_audio_type(
        accept: str | None, expected: str | None) -> None:
    assert preferred_audio(accept) == expected
