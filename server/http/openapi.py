"""``GET /openapi.json``: OpenAPI 3.1, generated from the schema table (no second copy)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.version import PACKAGE_VERSION
from server.api import ERROR, STATUS, Operation, size_text

_ERROR_REF = {"$ref": "#/components/schemas/Error"}
_COMMON = {401: "No, malformed or unknown key (unauthorized); revoked key (key_revoked).",
           403: "Origin not allowed (forbidden_origin) or blocked User-Agent.",
           413: "Body over 64 KiB (payload_too_large).",
           429: "Per-minute limit (rate_limited) or monthly quota (quota_exceeded).",
           500: "A bug (internal_error)."}


def openapi_document(operations: Iterable[Operation], auth: bool = True) -> dict[str, Any]:
    """The document of these operations; ``auth`` False (``harmony serve --no-auth``): no
    security scheme and no 401, as that server answers (a schema-driven client sends no key)."""
    paths: dict[str, Any] = {
        "/health": {"get": {
            "summary": "Service status, package and grid versions.", "security": [],
            "responses": {"200": {"description": "OK", "content": {"application/json": {
                "schema": {"type": "object", "properties": {
                    "status": {"type": "string"}, "version": {"type": "string"},
                    "grid": {"type": "string"}}}}}}}}},
    }
    for op in operations:
        responses: dict[str, Any] = {
            "200": {"description": "The result.",
                    "content": {"application/json": {"schema": op.result_schema}}},
            "400": {"description": "invalid_chord, invalid_key or invalid_request.",
                    "content": {"application/json": {"schema": _ERROR_REF}}},
        }
        for status, text in _COMMON.items():
            if status == 401 and not auth:
                continue
            responses[str(status)] = {"description": text,
                                      "content": {"application/json": {"schema": _ERROR_REF}}}
        if op.max_body is not None:
            responses["413"] = {"description": f"Body over {size_text(op.max_body)} "
                                               "(payload_too_large).",
                                "content": {"application/json": {"schema": _ERROR_REF}}}
        paths[op.path] = {"post": {
            "operationId": op.name,
            **({"x-unstable": True} if op.unstable else {}),
            "summary": op.description,
            "x-mcp-tool": op.tool,
            "requestBody": {"required": True,
                            "content": {"application/json": {"schema": op.request_schema}}},
            "responses": responses,
        }}
    document: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {"title": "Harmony engine", "version": PACKAGE_VERSION,
                 "description": "Chords, keys, voicings, reharmonization and band arrangements "
                                "by computation. Error codes and statuses: "
                                + ", ".join(f"{c} {s}" for c, s in STATUS.items()) + "."},
        "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
        "security": [{"bearer": []}],
        "paths": paths,
        "components": {
            "schemas": {"Error": ERROR},
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer",
                                           "description": "An API key: hk_live_…"}},
        },
    }
    if not auth:
        del document["security"], document["components"]["securitySchemes"]
    return document
