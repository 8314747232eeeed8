"""Golden files replayed through REST give the same bytes as the Python functions and as the
committed response files, with the status of the error table; a second replay (answered from
the worker's kept answers where the operation keeps them) gives the same bytes again."""

from __future__ import annotations

import asyncio
from pathlib import Path

import orjson

from server.api.responses import STATUS
from server.api.schemas import OPERATIONS
from tests.golden import answer, cases, operations
from tests.server_fixtures import make, running

CASES = [c for c in cases() if c[0] in operations()]


def test_every_landed_operation_has_golden_cases() -> None:
    assert {"analyze", "resolve"} <= set(operations())
    assert {op for op, _, _ in CASES} == set(operations())


def test_golden_replay_through_rest(tmp_path: Path) -> None:
    app, _ = make(tmp_path, operations=OPERATIONS, auth=False)

    async def replay() -> list[tuple[str, int, bytes, int, bytes]]:
        out = []
        async with running(app) as http:
            for _ in range(2):
                for operation, request_file, _ in CASES:
                    r = await http.post(f"/v2/{operation}", content=request_file.read_bytes())
                    out.append((f"{operation}/{request_file.name}", r.status_code, r.content))
        return [(name, status, body, *_expected(name)) for name, status, body in out]

    mismatches = [name for name, status, body, want_status, want in asyncio.run(replay())
                  if (status, body) != (want_status, want)]
    assert mismatches == []


def _expected(name: str) -> tuple[int, bytes]:
    operation, request_name = name.split("/")
    request_file = next(r for op, r, _ in CASES if op == operation and r.name == request_name)
    response_file = request_file.with_name(request_name.replace(".request.", ".response."))
    expected = answer(operation, orjson.loads(request_file.read_bytes()))
    assert response_file.read_bytes() == expected, f"{name}: the Python bytes changed"
    if expected.startswith(b'{"error"'):
        return STATUS[orjson.loads(expected)["error"]["code"]], expected
    return 200, expected
