"""The granian floor for ``bench/load.py``: an RSGI app that does no work at all.

``GET`` answers ``/health``'s bytes; ``POST`` reads the body (one ``await protocol()``, as
``server.http.rsgi.read_body`` does) and answers a constant. Run on the same granian settings as
``harmony serve``, it shows what a POST costs granian before any app code runs: the ceiling of
the analyze/health ratio on this machine.
"""

from __future__ import annotations

from typing import Any

_HEADERS = [("content-type", "application/json")]
_HEALTH = b'{"status":"ok","version":"0.4.0","grid":"2"}'
_POSTED = b'{"ok":true}'


class FloorApp:
    async def __rsgi__(self, scope: Any, protocol: Any) -> None:
        if scope.method == "POST":
            await protocol()
            protocol.response_bytes(200, _HEADERS, _POSTED)
        else:
            protocol.response_bytes(200, _HEADERS, _HEALTH)


app = FloorApp()
