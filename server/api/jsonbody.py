"""A request body read as JSON (API.md 9): what orjson refuses, and what it accepts but the
contract does not - nesting deeper than ``MAX_DEPTH`` levels - as ``invalid_request`` with a
reason a client can act on, never a 500 further on (``copy.deepcopy`` and ``orjson.dumps``,
whose own limit is 254 levels, raised on a composition holding a deeply nested field).

The depth is read from the bytes, in C and numpy speed: a body of at most ``SHALLOW`` bytes, or
with at most ``MAX_DEPTH`` brackets, cannot be too deep (nothing more is done); otherwise its
strings are cut out and the running count of its brackets gives the depth (2 ms for a 1 MiB
composition, 10 ms for 1 MiB of brackets; a walk of the decoded value took 150 ms for the
former).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import orjson

from engine.errors import InvalidRequest

MAX_DEPTH = 64
# Valid JSON nested n deep holds 2n brackets: a body this short cannot be too deep, and most
# requests are (an analyze body is ~40 bytes): one comparison, no scan.
SHALLOW = 2 * MAX_DEPTH + 1
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')   # alternatives disjoint: linear, no backtracking
_OPEN, _CLOSE = (ord("["), ord("{")), (ord("]"), ord("}"))


def depth(body: bytes) -> int:
    """How deep the arrays and objects of a valid JSON text nest (0 for a scalar); only
    counted exactly up to ``MAX_DEPTH`` brackets (a body with fewer gives its bracket count)."""
    brackets = body.count(b"[") + body.count(b"{")
    if brackets <= MAX_DEPTH:
        return brackets
    codes = np.frombuffer(_STRING.sub(b"", body), dtype=np.uint8)
    step = np.zeros(len(codes), dtype=np.int32)
    step[np.isin(codes, _OPEN)] = 1
    step[np.isin(codes, _CLOSE)] = -1
    return int(np.cumsum(step).max()) if len(step) else 0


def decode(body: bytes) -> Any:
    """The body's JSON value; ``invalid_request`` saying why when it is none, or nests deeper
    than ``MAX_DEPTH``."""
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError as e:
        raise InvalidRequest(_reason(e)) from None
    if len(body) > SHALLOW and depth(body) > MAX_DEPTH:
        raise InvalidRequest(f"the request body nests arrays and objects deeper than "
                             f"{MAX_DEPTH} levels")
    if _LONG_DIGITS.search(body) and _outside_64_bits(body):
        raise InvalidRequest("a number in the request body is too large: integers must fit "
                             "in 64 bits and other numbers in a double")
    return value


# orjson reads an integer below -2**63 or above 2**64 - 1 as the nearest double, without a
# word: -9223372036854775809 became -2**63 and passed as a 64-bit seed (schemathesis, ST201).
# Such a literal has at least 19 digits: one C-speed search of the bytes, then the exact check.
_LONG_DIGITS = re.compile(rb"\d{19}")
_INTEGER = re.compile(rb"-?\d{19,}(?![\d.eE])")
INT_RANGE = (-(2**63), 2**64 - 1)   # what orjson keeps as an integer


def _outside_64_bits(body: bytes) -> bool:
    return any(not INT_RANGE[0] <= int(m.group()) <= INT_RANGE[1]
               for m in _INTEGER.finditer(_STRING.sub(b"", body)))


def _reason(error: orjson.JSONDecodeError) -> str:
    where = f"line {error.lineno} column {error.colno}"
    if error.msg.startswith("depth limit exceeded"):
        return f"the request body nests arrays and objects deeper than {MAX_DEPTH} levels"
    if "infinity" in error.msg:
        return (f"a number in the request body is too large ({where}): integers must fit in "
                "64 bits and other numbers in a double")
    return "the request body is not valid JSON"
