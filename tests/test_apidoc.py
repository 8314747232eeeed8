"""``docs/api.md`` is what the schema table generates (rewrite it with ``python -m
server.http.apidoc write``), and it covers every route the service answers."""

from __future__ import annotations

from server.api.schemas import OPERATIONS
from server.http.apidoc import PAGE, api_markdown
from server.http.routes import build_routes


def test_the_page_is_current() -> None:
    assert PAGE.read_text() == api_markdown(), "run: python -m server.http.apidoc write"


def test_every_route_is_documented() -> None:
    page = PAGE.read_text()
    for path, route in build_routes(OPERATIONS, 64 * 1024).items():
        for method in route.methods - {"HEAD"}:
            assert f"`{method} {path}`" in page, (method, path)
    for op in OPERATIONS.values():
        for field in op.request_schema["properties"]:
            assert f"| `{field}` |" in page, (op.name, field)
