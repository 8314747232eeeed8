"""``POST /v2/render`` (API.md 12): validate on the event loop, render in the job pool, answer
JSON (the audio in base64) or, when ``Accept`` prefers an audio type, the audio bytes with the
facts in ``X-Render-*`` headers.

What can be refused cheaply is refused here, before the request takes a render slot
(``engine.render.check_render``: the options, the source, a MIDI file's base64 and chunk
structure). The render itself runs in a worker process (``server.http.jobs``), which checks
the events and the work (notes x seconds x rate) before it makes a sample; a job whose client
goes away, or that passes the pool's deadline, is stopped. ``render_job`` and ``check_job`` are
what the pool pickles by name, so they stay module-level functions of plain arguments.

``render_pool(settings)`` is that pool: its processes are forked from a fork server that has
imported ``PRELOAD_MODULE`` (the SoundFont, the kernels: loaded once, shared by every render
process; docs/reliability.md, "Render processes").
"""

from __future__ import annotations

import base64
from typing import Any

import orjson

from engine.render import check_render
from server.api import Response, decode, schema_error
from server.http.context import Context, Service
from server.http.jobs import JobPool
from server.http.settings import Settings

# Accept media types -> format; the answer's content type per format.
AUDIO_TYPES = {"audio/wav": "wav", "audio/x-wav": "wav", "audio/wave": "wav",
               "audio/vnd.wave": "wav", "audio/flac": "flac", "audio/x-flac": "flac",
               "audio/mpeg": "mp3", "audio/mp3": "mp3"}
CONTENT_TYPES = {"wav": "audio/wav", "flac": "audio/flac", "mp3": "audio/mpeg"}
# The facts of a raw answer, in the JSON answer's order.
HEADERS = (("format", "x-render-format"), ("sampleRate", "x-render-sample-rate"),
           ("channels", "x-render-channels"), ("durationSec", "x-render-duration-sec"),
           ("engine", "x-render-engine"), ("soundfont", "x-render-soundfont"),
           ("sha256", "x-render-sha256"))
PRELOAD_MODULE = "server.http.render_preload"
SOUNDFONT_VARIABLE = "HARMONY_RENDER_PRELOAD_SOUNDFONT"  # the service's SoundFont, for it


def render_pool(settings: Settings) -> JobPool:
    """The render processes: ``render_workers`` at once, ``render_queue`` waiting, each job
    stopped at ``render_deadline``; forked with the SoundFont loaded."""
    return JobPool(settings.render_workers, settings.render_queue,
                   deadline=settings.render_deadline, preload=[PRELOAD_MODULE],
                   environ={SOUNDFONT_VARIABLE: settings.soundfont})


def render_job(request: dict[str, Any], soundfont: str | None,
               max_seconds: float) -> tuple[bytes, dict[str, Any]]:
    """In the worker process: the audio bytes and their facts (engine errors propagate)."""
    from engine.render import render_bytes

    return render_bytes(request, soundfont=soundfont, max_seconds=max_seconds)


def check_job(request: dict[str, Any], soundfont: str | None, max_seconds: float) -> None:
    """In the worker process: every check of a render, and no sample made (the engine's own
    error of a request the schema refuses)."""
    from engine.render import prepare

    prepare(request, soundfont=soundfont, max_seconds=max_seconds)


def preferred_audio(accept: str | None) -> str | None:
    """The audio format ``accept`` prefers to JSON, or None for a JSON answer.

    The media range with the highest q wins, the first listed among equals; ``audio/*``
    names no format, so it means the request's own (``""`` is returned)."""
    best: tuple[float, str] | None = None
    for item in (accept or "").split(","):
        media, *params = (part.strip() for part in item.split(";"))
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if media and q > 0 and (best is None or q > best[0]):
            best = (q, media.lower())
    if best is None:
        return None
    if best[1] == "audio/*":
        return ""
    return AUDIO_TYPES.get(best[1])


async def render_handler(app: Service, ctx: Context, body: bytes) -> Response:
    assert ctx.route is not None and ctx.route.operation is not None
    op = ctx.route.operation
    request = decode(body)
    soundfont, limit = app.settings.soundfont or None, app.settings.render_max_seconds
    check_render(request, limit)  # on the request path: no slot for what is refused here
    gone = ctx.reader.gone
    if not op.validator.is_valid(request):
        # As every route: the engine's error is the precise one (the same bytes as Python);
        # the schema's finding only if the engine accepts what the schema refuses.
        await app.jobs.run(check_job, request, soundfont, limit, gone=gone)
        raise schema_error(op, request)
    raw = preferred_audio(ctx.headers.get("accept"))
    if raw and request.get("format") is None:
        request = {**request, "format": raw}
    audio, facts = await app.jobs.run(render_job, request, soundfont, limit, gone=gone)
    if raw is None:
        answer = {**facts, "audio": base64.b64encode(audio).decode("ascii")}
        return Response(200, orjson.dumps(answer))
    # UTF-8 on the wire (a header value's characters are its bytes): a SoundFont's name may
    # not be ASCII. No SoundFont: no x-render-soundfont.
    headers = [(name, str(facts[key]).encode("utf-8").decode("latin-1"))
               for key, name in HEADERS if facts[key] is not None]
    return Response(200, audio, headers, content_type=CONTENT_TYPES[facts["format"]])
