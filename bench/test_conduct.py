"""Cost of one arrangement: a 32-bar swing tune (AABA) with its four lanes and the MIDI file,
warm (voicing kernels compiled, chord parses cached). Aim: at most 15 ms.
Run: .venv/bin/python -m pytest bench/test_conduct.py --benchmark-enable"""

from __future__ import annotations

from typing import Any

import pytest

from engine.conduct import conduct

REQUESTS = {
    "swing_aaba_32": {"prompt": "medium swing AABA in Bb, 32 bars, walking bass",
                      "durationSec": 60},
    "funk_32": {"prompt": "funk in E, 32 bars, intense", "durationSec": 60},
}


@pytest.mark.parametrize("name", list(REQUESTS))
def test_conduct_32_bars(benchmark: Any, name: str) -> None:
    request = REQUESTS[name]
    conduct(request)                       # warm: compile and cache
    result = benchmark(conduct, request)
    assert result["conductor"]["bars"] == 32 and result["midi"]
