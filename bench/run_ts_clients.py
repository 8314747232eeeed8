"""Calls per second of the official TypeScript SDK's client (tests/clients/drive.mjs, the client
of Claude Desktop, Claude Code, Cursor, VS Code and the MCP Inspector) against harmony-mcp over
stdio (engine in-process) and against /mcp over streamable HTTP (a real ``harmony serve`` with
one worker on loopback, a throw-away database and a key): ``analyze_chord`` called COUNT times in
a row, each call awaited before the next (what an assistant does), after 50 untimed calls, in
ROUNDS rounds; the median round, the range and the best round are printed (on a shared
machine the best round is the nearest to an idle one). The same arguments every call, so
the server's kept answers serve them: the figure is the protocol's and the transports' cost.

Installs the pinned clients (tests/ts_clients.py) on first use.
Run: .venv/bin/python bench/run_ts_clients.py [COUNT [ROUNDS]]    (defaults 500 and 3)
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests import ts_clients  # noqa: E402
from tests.mcp_live import running_server  # noqa: E402

ARGS = {"chord": "Dm7", "key": "C"}


def main() -> int:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    try:
        clients = ts_clients.install()
    except ts_clients.Unavailable as e:
        print(f"skipped: {e}")
        return 0
    bench = {"tool": "analyze_chord", "arguments": ARGS, "count": count, "warmup": 50}
    env = {k: v for k, v in os.environ.items() if k not in ("HARMONY_BASE_URL", "SERVICE_API_KEY")}
    node = ".".join(map(str, ts_clients.node_version(clients.node) or ()))
    print(f"TypeScript SDK {clients.version('@modelcontextprotocol/sdk')} on Node {node}, "
          f"{os.cpu_count()} cores ({platform.machine()}), analyze_chord {ARGS}, {count} "
          f"sequential calls per round, {rounds} rounds")
    with tempfile.TemporaryDirectory() as tmp, \
            running_server(Path(tmp), per_minute=10**6, per_month=10**6) as live:
        servers: list[dict[str, Any]] = [
            {"name": "stdio (harmony-mcp, in-process)",
             "stdio": {"command": str(Path(sys.executable).parent / "harmony-mcp"), "env": env},
             "bench": bench},
            {"name": "HTTP (/mcp, harmony serve --workers 1)",
             "http": {"url": live.url + "/mcp",
                      "headers": {"Authorization": f"Bearer {live.key}"}},
             "bench": bench}]
        rates: dict[str, list[float]] = {s["name"]: [] for s in servers}
        for _ in range(rounds):
            report = clients.drive({"servers": servers}, Path(tmp) / "drive")
            for name, got in report["servers"].items():
                if "error" in got or got["bench"]["errors"]:
                    print(f"{name}: failed: {got.get('error') or got['bench']}")
                    return 1
                rates[name].append(got["bench"]["perSecond"])
    for name, per_second in rates.items():
        median = statistics.median(per_second)
        print(f"{name}: {median:,.0f} calls/s, {1000 / median:.2f} ms a call (median round; "
              f"rounds {min(per_second):,.0f}-{max(per_second):,.0f}, best "
              f"{1000 / max(per_second):.2f} ms a call)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
