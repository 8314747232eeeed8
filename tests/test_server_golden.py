"""Golden files replayed through REST give the same bytes as the Python functions."""

from __future__ import annotations

import asyncio
from pathlib import Path

import orjson
import pytest

from tests.golden import answer, cases, operations
from tests.server_fixtures import make, running

CASES = [c for c in cases() if c[0] in operations()]


@pytest.mark.skipif(not CASES, reason="no engine operation with golden files has landed")
def test_golden_replay_through_rest(tmp_path: Path) -> None:
    from server.schemas import OPERATIONS

    app, _ = make(tmp_path, operations=OPERATIONS, auth=False)

    async def replay() -> list[tuple[str, bytes, bytes]]:
        out = []
        async with running(app) as http:
            for operation, request_file, _ in CASES:
                body = request_file.read_bytes()
                r = await http.post(f"/v2/{operation}", content=body)
                expected = answer(operation, orjson.loads(body))
                out.append((request_file.name, r.content, expected))
                assert (r.status_code == 200) == (not expected.startswith(b'{"error"'))
        return out

    for name, got, expected in asyncio.run(replay()):
        assert got == expected, name
