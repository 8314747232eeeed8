"""Instructions per call of the app's whole ``__rsgi__`` (or WSGI) call, counted under valgrind.

Timings on a shared 2-core VM drift by ±5 % between runs, and the in-process budget
(``run_request_budget.py``) settles only to ±0.3 µs; this count repeats to a few instructions
in 455 million (two runs of 5,000 REST calls: 455,629,719 and 455,629,746), so it shows a 1 %
cut that a timer cannot. For each kind of call (REST analyze, MCP tools/call, GET /health, and
``floor``: ``bench/floor_app.py``'s POST, an app that does no work, through the same driver;
``wsgi-rest``, ``wsgi-mcp`` and ``wsgi-floor``: the same through the WSGI entry) the
driver (``run_request_budget.py --drive KIND --pause``) runs under ``valgrind --tool=callgrind``:
it builds the app, makes one warm-up call and says "ready"; the counters are zeroed
(``callgrind_control -z``), it makes the calls and says "done"; they are dumped
(``callgrind_control -d``). So start-up (imports, numba's cache, the store) is not counted;
the driver's own stand-ins for granian's scope and protocol, its loop and the coroutine's
stepping are: the ``floor`` kind measures them, 15,698 instructions a call (2026-11-26). (Counting the whole process instead, with and without the calls, varied by ±20 million
instructions of start-up from run to run: ±2 % of a call at 20,000 calls.)

    .venv/bin/python bench/run_instructions.py [--calls 5000] [rest mcp health floor]

Needs valgrind (Debian's ``valgrind``); without it, says so and exits 0 (``make bench`` runs
every ``run_*.py``). This VM has no hardware performance counters, so ``perf stat -e
instructions`` is not available here.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.shared import callgrind_between

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "run_request_budget.py"
KINDS = ("rest", "mcp", "health", "floor", "wsgi-rest", "wsgi-mcp", "wsgi-floor")


def instructions(kind: str, calls: int) -> int:
    """The instructions of ``calls`` whole calls of ``kind``, counted by callgrind."""
    total, _ = callgrind_between(
        [sys.executable, str(DRIVER), "--drive", kind, "--calls", str(calls), "--pause"],
        env={**os.environ, "PYTHONHASHSEED": "0"})
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("kinds", nargs="*", help=f"of {', '.join(KINDS)} (default: all)")
    parser.add_argument("--calls", type=int, default=5_000)
    args = parser.parse_args(argv)
    if unknown := set(args.kinds) - set(KINDS):
        parser.error(f"unknown kind {', '.join(sorted(unknown))}: choose from {', '.join(KINDS)}")
    if not (shutil.which("valgrind") and shutil.which("callgrind_control")):
        print("valgrind is not installed (Debian's valgrind): no instruction counts")
        return 0
    print(f"{'call':8}  instructions per call (callgrind, {args.calls:,} calls)")
    for kind in args.kinds or KINDS:
        print(f"{kind:10}  {instructions(kind, args.calls) / args.calls:,.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
