"""Atomic operations on the 64-bit words of a shared array, for numba-compiled code.

numba compiles Python to LLVM but offers no atomics on the CPU; these intrinsics emit LLVM's
own (``load atomic``, ``cmpxchg``, ``atomicrmw add``, all sequentially consistent) on an
element of a one-dimensional int64 array. Over an array viewing a ``MAP_SHARED`` memory map
they are atomic across processes as well as threads, which is what the limit counters of one
machine need (``server.accounts.counters``): exact counts without a lock on the request path.

    load(words, i) -> int              the word, read atomically
    cas(words, i, expected, new) -> int   store ``new`` if the word is ``expected``; the word
                                          as it was (equal to ``expected`` on success)
    add(words, i, delta) -> int        add atomically; the word as it was
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


def _pointer(context: Any, builder: Any, array_type: Any, array: Any, index: Any) -> Any:
    view = context.make_array(array_type)(context, builder, array)
    return cgutils.get_item_pointer(context, builder, array_type, view, [index])


@intrinsic
def _load(typingctx: Any, words: Any, index: Any) -> Any:
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        pointer = _pointer(context, builder, signature.args[0], args[0], args[1])
        return builder.load_atomic(pointer, "seq_cst", 8)
    return types.int64(words, index), codegen


@intrinsic
def _cas(typingctx: Any, words: Any, index: Any, expected: Any, new: Any) -> Any:
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        pointer = _pointer(context, builder, signature.args[0], args[0], args[1])
        exchanged = builder.cmpxchg(pointer, args[2], args[3], "seq_cst", "seq_cst")
        return builder.extract_value(exchanged, 0)
    return types.int64(words, index, types.int64, types.int64), codegen


@intrinsic
def _add(typingctx: Any, words: Any, index: Any, delta: Any) -> Any:
    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        pointer = _pointer(context, builder, signature.args[0], args[0], args[1])
        return builder.atomic_rmw("add", pointer, args[2], "seq_cst")
    return types.int64(words, index, types.int64), codegen


# As the compiled code calls them (``typingctx`` is numba's own argument).
load = cast(Callable[[Any, int], int], _load)
cas = cast(Callable[[Any, int, int, int], int], _cas)
add = cast(Callable[[Any, int, int], int], _add)
