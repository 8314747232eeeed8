"""The client side of a Redis limit check on an event loop, as an RSGI worker makes it (issue
40): uvloop, a task a request, the limiter's ``admit_soon``, one suspension (the request's
body) before the admission is awaited, 16 requests a tick; this process's CPU a check
(user + system: the packing, the future, the write, the reply's parse, the loop's wake-ups)
against a Redis the script starts. With ``--compare CHECKOUT`` the same run is made on
another checkout's code (e.g. main before a change), alternated round by round; each run is
a process of its own. Medians of the rounds.

    .venv/bin/python bench/run_loop_checks.py [--rounds 7] [--checks 32000] [--compare DIR]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path
from statistics import median

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.load import free_port  # noqa: E402
from tests.redis_server import redis_binary, redis_server  # noqa: E402

ONE_RUN = r'''
import asyncio, sys, tempfile, time
from pathlib import Path

import uvloop

from server.accounts import RedisCounters, SharedCounters, Store
from server.accounts.limits import Admission, Limiter
from server.accounts.plans import PLANS
from server.accounts.store import KeyRecord

url, checks = sys.argv[1], int(sys.argv[2])
counters = RedisCounters(url, SharedCounters(Store(str(Path(tempfile.mkdtemp()) / "h.db"))))
month = time.gmtime().tm_year * 12 + time.gmtime().tm_mon - 1
plan = next(iter(PLANS.values()))
keys = [KeyRecord(f"key_{n}", n, "bench", plan, 10**9, 10**12, False) for n in range(16)]
limiter = Limiter(counters)
for key in keys:   # the months exist (seeded), as on a running service
    limiter.admit(key)


async def request(key):
    admission = limiter.admit_soon(key)
    await asyncio.sleep(0)                      # the request's body
    return admission if isinstance(admission, Admission) else await admission


async def run(n):
    loop = asyncio.get_running_loop()
    for _ in range(n // len(keys)):
        await asyncio.gather(*[loop.create_task(request(key)) for key in keys])
    await counters.aclose()


uvloop.run(run(checks // 10))                   # warm
start = time.process_time()
uvloop.run(run(checks))
print((time.process_time() - start) / checks * 1e6)
'''


def one_run(code: Path, url: str, checks: int) -> float:
    out = subprocess.run([sys.executable, "-c", ONE_RUN, url, str(checks)], cwd=code,
                         capture_output=True, text=True, timeout=600,
                         env={"PYTHONPATH": str(code), "PATH": "/usr/bin:/bin"})
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-2000:])
    return float(out.stdout.strip())


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--checks", type=int, default=32_000)
    parser.add_argument("--compare", type=Path, metavar="CHECKOUT")
    args = parser.parse_args()
    if redis_binary() is None:
        print("skipped: redis-server is not installed (Debian's redis-server)")
        return 0
    codes = {"this checkout": REPO, **({str(args.compare): args.compare} if args.compare
                                        else {})}
    figures: dict[str, list[float]] = {name: [] for name in codes}
    with redis_server(free_port()) as redis:
        for n in range(args.rounds):
            for name, code in list(codes.items())[:: 1 if n % 2 == 0 else -1]:
                figures[name].append(one_run(code, redis.url, args.checks))
    for name, values in figures.items():
        print(f"client CPU a check on a loop, {name}: {median(values):.2f} µs (rounds "
              + ", ".join(f"{v:.2f}" for v in values) + ")")
    return 0


if __name__ == "__main__":
    sys.exit(main())
