"""The granian floor for ``bench/load.py``: an app that does no work at all, over RSGI
(``app``, ``sized``) and over WSGI (``wsgi_app``, ``wsgi_sized``).

``GET`` answers ``/health``'s bytes; ``POST`` reads the body (one ``await protocol()`` as
``server.http.rsgi.Body`` does, or one ``wsgi.input.read`` of the declared length as
``server.http.wsgi.Body`` does) and answers a constant. Run on the same granian settings as
``harmony serve``, it shows what a POST costs granian before any app code runs: the ceiling of
the analyze/health ratio on this machine.
"""

from __future__ import annotations

from typing import Any

_HEADERS = [("content-type", "application/json")]
_HEALTH = b'{"status":"ok","version":"0.4.0","grid":"2"}'
_POSTED = b'{"ok":true}'
# bench/load.py's bodies: one analysis, and the same as an MCP tool call
ANALYZE_BODY = b'{"chord":"Dm7b5","key":"C"}'
MCP_BODY = (b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"analyze_chord",'
            b'"arguments":' + ANALYZE_BODY + b'}}')


class FloorApp:
    async def __rsgi__(self, scope: Any, protocol: Any) -> None:
        if scope.method == "POST":
            await protocol()
            protocol.response_bytes(200, _HEADERS, _POSTED)
        else:
            protocol.response_bytes(200, _HEADERS, _HEALTH)


app = FloorApp()


class SizedFloorApp:
    """The floor answering a POST with what the service answers ``bench/load.py``'s bodies:
    ``/mcp`` (``MCP_BODY``, a ``tools/call analyze_chord``) with the tool call's JSON-RPC answer,
    any other path (``ANALYZE_BODY``) with ``POST /v2/analyze``'s; the same bytes (computed
    once, at import) and the same eight headers (content type, content length aside, and the
    five quota and rate-limit headers). What granian and the kernel charge for a real answer's
    size, still with no app work per request: MCP's answer carries the analysis twice (as
    structured content and as the text block's JSON string), ~2.3 times REST's bytes."""

    def __init__(self) -> None:
        import orjson

        from engine import analyze
        from server.mcp import McpEndpoint
        from server.mcp.jsonrpc import Reply

        self.body = orjson.dumps(analyze(orjson.loads(ANALYZE_BODY)))
        reply = McpEndpoint().answer("POST", {}, MCP_BODY)
        assert isinstance(reply, Reply) and reply.status == 200
        self.mcp_body = reply.body
        self.headers = [("content-type", "application/json"), ("x-quota-limit", "1000000000"),
                        ("x-quota-used", "123456"), ("ratelimit-limit", "100000000"),
                        ("ratelimit-remaining", "99999999"), ("ratelimit-reset", "42")]

    async def __rsgi__(self, scope: Any, protocol: Any) -> None:
        if scope.method == "POST":
            await protocol()
            protocol.response_bytes(200, self.headers,
                                    self.mcp_body if scope.path == "/mcp" else self.body)
        else:
            protocol.response_bytes(200, _HEADERS, _HEALTH)


sized = SizedFloorApp()


def _wsgi(body: bytes, headers: list[tuple[str, str]], mcp_body: bytes | None = None) -> Any:
    mcp = body if mcp_body is None else mcp_body

    def wsgi_app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        if environ["REQUEST_METHOD"] == "POST":
            environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
            start_response("200 OK", headers)
            return [mcp if environ["PATH_INFO"] == "/mcp" else body]
        start_response("200 OK", _HEADERS)
        return [_HEALTH]
    return wsgi_app


wsgi_app = _wsgi(_POSTED, _HEADERS)
wsgi_sized = _wsgi(sized.body, sized.headers, sized.mcp_body)
