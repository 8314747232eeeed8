"""What the commands of ``harmony`` share: JSON on stdout, an ``OSError`` said in one line,
whole numbers within bounds as an argparse type."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

import orjson


def print_json(data: Any) -> int:
    sys.stdout.buffer.write(orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n")
    sys.stdout.flush()
    return 0


def os_error(exc: OSError) -> str:
    where = f": {exc.filename}" if exc.filename is not None else ""
    return f"{exc.strerror or exc}{where}"


def bounded(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: a whole number within [low, high] (a clean usage error otherwise)."""
    def read(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is not within {low}..{high}")
        return value
    read.__name__ = "number"
    return read
