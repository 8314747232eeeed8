"""The numba cache works from a fresh checkout: the first run compiles and writes the cache
next to engine/voicing/kernels.py, the next run loads every kernel from it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROBE = """
from engine.voicing import kernels
from engine.voicing import warm_up
warm_up()
for name in ("_motion", "_step", "_guides_near", "_register", "_search"):
    stats = getattr(kernels, name).stats
    print(name, sum(stats.cache_hits.values()), sum(stats.cache_misses.values()))
"""


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="needs the JIT")
def test_fresh_checkout_compiles_once_then_loads_from_cache(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "engine", tmp_path / "engine",
                    ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}

    def run() -> dict[str, tuple[int, int]]:
        out = subprocess.run([sys.executable, "-c", PROBE], cwd=tmp_path, env=env, check=True,
                             capture_output=True, text=True, timeout=600).stdout
        return {n: (int(h), int(m)) for n, h, m in (line.split() for line in out.splitlines())}

    first = run()
    assert all(hits == 0 and misses >= 1 for hits, misses in first.values()), first
    cached = list((tmp_path / "engine" / "voicing" / "__pycache__").glob("kernels.*.nbi"))
    assert len(cached) == 5
    second = run()
    assert all(hits >= 1 and misses == 0 for hits, misses in second.values()), second
