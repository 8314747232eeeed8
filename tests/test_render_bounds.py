"""A render's work bounded before it starts (issue 35): the polyphony cap and the cost model
(notes x seconds x rate), hostile MIDI files refused with the field and the bound, bytes that
are no MIDI file refused before a render slot is taken, and jobs stopped at their deadline or
when their client goes (their process recycled, the queue not counting them). The full-size
cases and their times are in ``bench/run_reliability.py``; these are sized to run fast."""

from __future__ import annotations

import asyncio
import base64
import io
import os
import random
import time
from pathlib import Path
from typing import Any

import mido
import pytest

from engine.errors import Busy, InvalidRequest
from engine.render import check_render, prepare
from engine.render.basic import MAX_VOICES, voices
from engine.render.events import read_midi
from engine.render.operation import MAX_VOICE_SAMPLES
from server.api import ClientDisconnected
from server.api.schemas import OPERATIONS
from server.http.jobs import JobPool
from tests.server_fixtures import bearer, error_of, make, new_key, run, running
from tests.test_render import b64, midi_of


def endless_notes(count: int, seconds: float = 299.0) -> bytes:
    """``count`` notes, one a tick, none ever released, the file lasting ``seconds``: the
    'time bomb' of the issue (200,000 of them there)."""
    ppq, bpm = 480, 120.0
    track = mido.MidiTrack()
    for n in range(count):
        track.append(mido.Message("note_on", channel=n % 9, note=24 + n % 96, velocity=80,
                                  time=0 if n == 0 else 1))
    end = round(seconds * ppq * bpm / 60)
    track.append(mido.MetaMessage("end_of_track", time=max(0, end - count)))
    midi = mido.MidiFile(type=0, ticks_per_beat=ppq)
    midi.tracks.append(track)
    out = io.BytesIO()
    midi.save(file=out)
    return out.getvalue()


def chord_of(count: int, seconds: float) -> bytes:
    """``count`` notes struck together and held ``seconds``."""
    return midi_of([(0.0, seconds, 24 + n % 96, 80) for n in range(count)])


# ------------------------------------------------------------------ the cost model


def test_the_polyphony_cap_keeps_at_most_max_voices_sounding() -> None:
    notes = read_midi(chord_of(1000, 2.0))
    keep, work = voices(notes, 22050)
    assert len(notes) == 1000 and int(keep.sum()) == MAX_VOICES
    frames = (notes.length + 1.5) * 22050
    assert work <= MAX_VOICES * frames


def test_notes_that_end_free_their_voices_for_later_ones() -> None:
    # 600 short notes, 300 at a time, one after the other: each group fits under the cap
    # once the last one's release is over.
    first = [(0.0, 0.1, 30 + n % 60, 80) for n in range(MAX_VOICES)]
    later = [(2.0, 0.1, 30 + n % 60, 80) for n in range(MAX_VOICES)]
    keep, _ = voices(read_midi(midi_of(first + later)), 22050)
    assert int(keep.sum()) == 2 * MAX_VOICES


@pytest.mark.parametrize(("midi", "rate"), [
    (endless_notes(3000), 48000),          # notes that never end, one a tick
    (chord_of(2000, 299.0), 44100),        # thousands struck at once and held
])
def test_a_render_over_the_work_budget_is_refused_naming_the_field_and_the_bound(
        midi: bytes, rate: int) -> None:
    with pytest.raises(InvalidRequest) as refused:
        prepare({"midi": b64(midi), "engine": "basic", "sampleRate": rate})
    assert refused.value.field == "midi"
    assert f"{MAX_VOICE_SAMPLES:,}" in refused.value.message
    assert "voice-samples" in refused.value.message


def test_the_densest_conducted_arrangement_is_within_the_budget() -> None:
    *_, notes, keep, _ = prepare({"prompt": "samba in D, fast", "durationSec": 300,
                                  "engine": "basic", "sampleRate": 48000})
    _, work = voices(notes, 48000)
    assert bool(keep.all()) and work < MAX_VOICE_SAMPLES


def test_the_documented_maximum_duration_renders() -> None:
    # 97 bpm: tempos in whole microseconds make the arrangement end 0.26 ms past 300 s
    fmt, *_, notes, _, _ = prepare({"prompt": "bossa nova in F, 97 bpm", "durationSec": 300,
                                    "engine": "basic"})
    assert notes.length > 300 and fmt == "wav"


def test_base64_with_line_breaks_is_read_as_mime_writes_it() -> None:
    text = b64(midi_of([(0.0, 0.5, 60, 90)]))
    wrapped = "\r\n".join(text[i:i + 16] for i in range(0, len(text), 16)) + "\n"
    assert "\n" in wrapped
    plain = prepare({"midi": text, "engine": "basic"})[3]
    broken = prepare({"midi": wrapped, "engine": "basic"})[3]
    assert list(plain.pitch) == list(broken.pitch) == [60]


@pytest.mark.parametrize(("data", "said"), [
    (random.Random(35).randbytes(200), "MThd"),
    (b"MThd\x00\x00\x00\x06\x00\x01\x00\x02\x01\xe0MTrk\x00\x00\x00\x04\x00\xff\x2f\x00",
     "declares 2 tracks and holds 1"),
    (b"MThd\x00\x00\x00\x06\x00\x00\x00\x01\x01\xe0MTrk\x00\x01\x00\x00\x00", "cut short"),
    (b"MThd\x00\x00\x00\x06\x00\x02\x00\x01\x01\xe0", "format 2"),
    (b"MThd\x00\x00\x00\x06\x00\x00\x00\x01\xe7\x28", "SMPTE"),
])
def test_bytes_that_are_no_midi_file_are_refused_on_the_request_path(data: bytes,
                                                                     said: str) -> None:
    with pytest.raises(InvalidRequest) as refused:
        check_render({"midi": b64(data)})
    assert refused.value.field == "midi" and said in refused.value.message


def test_random_bytes_get_400_without_taking_a_render_slot(tmp_path: Path) -> None:
    app, store = make(tmp_path, operations=OPERATIONS)
    _, secret = new_key(store, plan="developer")
    junk = b64(random.Random(7).randbytes(200))

    async def scenario() -> None:
        async with running(app, headers=bearer(secret)) as http:
            r = await http.post("/v2/render", json={"midi": junk})
            assert (r.status_code, error_of(r)) == (400, "invalid_request")
            assert r.json()["error"]["field"] == "midi"
            assert app.jobs.processes() == [] and app.jobs.in_flight == 0

    run(scenario())


# ------------------------------------------------------------------ deadline and cancellation


def _sleep(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a killed child not yet reaped is a zombie: it does no work
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().split(") ", 1)[1][0] != "Z"


def test_a_job_past_its_deadline_is_stopped_and_its_process_recycled() -> None:
    pool = JobPool(1, 1, deadline=1.0)

    async def scenario() -> tuple[list[int], Any, int]:
        first = await pool.run(os.getpid)          # the slot's process, started
        with pytest.raises(Busy) as late:
            await pool.run(_sleep, 600.0)
        after = await pool.run(os.getpid)          # the slot works again, in a new process
        return [first, after], late.value, pool.in_flight

    try:
        (first, after), late, in_flight = asyncio.run(scenario())
    finally:
        pool.close()
    assert late.details["retryAfter"] >= 1 and "deadline of 1 s" in late.message
    assert first != after and not _alive(first)
    assert in_flight == 0 and pool.stopped == 1


def test_a_job_whose_client_goes_is_stopped_and_a_waiting_one_leaves_the_queue() -> None:
    pool = JobPool(1, 1, deadline=600.0)

    async def scenario() -> tuple[int, int, int]:
        running_gone, waiting_gone = asyncio.Event(), asyncio.Event()
        pid = await pool.run(os.getpid)
        job = asyncio.ensure_future(pool.run(_sleep, 600.0, gone=running_gone.wait))
        queued = asyncio.ensure_future(pool.run(_sleep, 0.0, gone=waiting_gone.wait))
        while pool.in_flight < 2:
            await asyncio.sleep(0.01)
        waiting_gone.set()                       # the queued client leaves first
        with pytest.raises(ClientDisconnected):
            await queued
        counted = pool.in_flight                 # the abandoned job is not counted
        running_gone.set()
        with pytest.raises(ClientDisconnected):
            await job
        return pid, counted, pool.in_flight

    try:
        pid, counted, in_flight = asyncio.run(scenario())
    finally:
        pool.close()
    assert counted == 1 and in_flight == 0 and pool.stopped == 1
    assert not _alive(pid)


def test_a_render_whose_client_goes_is_stopped(tmp_path: Path) -> None:
    """Through the ASGI app: the client disconnects once its body is sent; the render's
    process is killed and nothing is answered."""
    app, store = make(tmp_path, operations=OPERATIONS)
    _, secret = new_key(store, plan="developer")
    body = (b'{"prompt": "up-tempo funk in E minor", "durationSec": 240, "engine": "basic", '
            b'"sampleRate": 48000}')
    sent: list[dict[str, Any]] = []
    messages = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive() -> dict[str, Any]:
        if messages:
            return messages.pop(0)
        await asyncio.sleep(0.5)                 # the render has started by now
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/v2/render", "query_string": b"",
             "client": ("203.0.113.7", 4711),
             "headers": [(b"authorization", f"Bearer {secret}".encode()),
                         (b"content-type", b"application/json"),
                         (b"content-length", str(len(body)).encode())]}

    async def scenario() -> None:
        await app.startup()
        try:
            await app(scope, receive, send)
        finally:
            await app.shutdown()

    run(scenario())
    assert sent == []
    assert app.jobs.stopped == 1 and app.jobs.in_flight == 0


def test_the_deadline_is_a_setting() -> None:
    from server.http.settings import Settings

    assert Settings.from_env({"HARMONY_RENDER_DEADLINE": "2.5"}).render_deadline == 2.5
    with pytest.raises(ValueError, match="HARMONY_RENDER_DEADLINE"):
        Settings(render_deadline=0)


def test_check_render_decodes_base64_once() -> None:
    data = midi_of([(0.0, 0.5, 60, 90)])
    check_render({"midi": base64.b64encode(data).decode()})  # a valid file passes
