"""Limit counters shared by the granian workers of one machine, in a memory-mapped file.

The file lives next to the database (``harmony.db.counters``) and holds fixed 64-byte slots:
one per key (its minute window and the calls counted in it) and one per account (its month, the
successful calls reserved in it, and a version). Slots are found by a stable hash with linear
probing and never move, so each worker remembers where its names live.

A slot's period and count share one 64-bit word (the period in the top 26 bits, the count in
the low 37), so a call is counted by one compare-and-swap on that word, atomic across the
workers (``server.accounts.atomics``, numba-compiled with the check of both limits in
``_take``): no lock on the request path, nothing a dying worker could leave held. Measured: a
call's ``take`` 0.98 µs against 2.07 µs with the ``flock`` pair this replaced (0.6.0's file,
``HARMCNT1``; a file of that layout is rebuilt from the monthly totals at start). Claiming a
slot for a name not seen before (once per key and account per worker) is the only locked step:
a ``flock`` on a descriptor opened for it, so it excludes other threads as well as processes.

Why not a SQLite write per call: it cost 41-48 µs a call, and its one write lock serialised
both workers under load.

The monthly totals are written to SQLite (``month_usage``) by the background log writer, each
with a version that only grows (a slot's version is raised after every change to it, and a
snapshot reads the version before the value), so several workers writing snapshots can never
roll a total back. When the file is missing, or belongs to another database, it is rebuilt from
those rows.
"""

from __future__ import annotations

import fcntl
import mmap
import os
import struct
import threading
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from numba import njit

from server.accounts import atomics
from server.accounts.limits import Taken
from server.accounts.store import Store, from_values

MAGIC = b"HARMCNT2"
HEADER = struct.Struct("<8sI4x32s")      # magic, slot count, database instance id (< 64 B)
SLOT_SIZE = 64                           # one cache line per slot; the header takes one too
NAME = 32                                # bytes of a slot's name: b"k:<key id>" / b"a:<account>"
# After the name, 64-bit words: the period and count packed, then (accounts) the version.
SHIFT = 37                               # period << SHIFT | count
COUNT_MASK = (1 << SHIFT) - 1            # counts up to 1.4e11; minute periods fit until 2097
DEFAULT_SLOTS = 1 << 16                  # 4 MiB, sparse on disk: keys and accounts of one machine


class CounterTableFull(RuntimeError):
    pass


# The kernels keep the GIL (no ``nogil``): each runs for well under a µs, and giving the GIL up
# around it handed it to another request thread, which this one then waited behind. Served
# over WSGI (5 request threads a worker), two servers side by side, wrk 32 connections, six
# interleaved 5 s rounds each: REST analyze 33.1-33.3k -> 35.5-35.6k req/s (faster in 11 of
# 12 rounds), 43-46 -> 40-41 µs of server CPU a call; MCP 27.9k -> 29.9k (5 of 6).
@njit(cache=True)
def _take(words: np.ndarray, key_at: int, minute: int, minute_limit: int, account_at: int,
          month: int, month_limit: int) -> tuple[int, int, bool, int, int, int]:
    """Count a call in the key's minute and reserve a unit of the account's month if both
    limits allow: (minute count, month used, reserved, and the month this call closed as
    period, final total, version; period 0 when it closed none)."""
    # Periods only move forward: a call that read the clock just before a boundary another
    # worker has already crossed counts in the newer period.
    while True:  # the minute: a new window starts at 1
        old = atomics.load(words, key_at)
        period = old >> SHIFT
        new = old + 1 if period >= minute else (minute << SHIFT) | 1
        if atomics.cas(words, key_at, old, new) == old:
            count = new & COUNT_MASK
            break
    closed, final, version = 0, 0, 0
    while True:
        old = atomics.load(words, account_at)
        period, used = old >> SHIFT, old & COUNT_MASK
        if period < month:  # the month turned: whoever swaps it in keeps the old total
            if atomics.cas(words, account_at, old, month << SHIFT) == old:
                version = atomics.add(words, account_at + 1, 1) + 1
                if period:
                    closed, final = period, used
            continue
        if count > minute_limit or used >= month_limit:
            return count, used, False, closed, final, version
        if atomics.cas(words, account_at, old, old + 1) == old:
            atomics.add(words, account_at + 1, 1)
            return count, used + 1, True, closed, final, version


@njit(cache=True)
def _refund(words: np.ndarray, account_at: int, month: int) -> bool:
    """Give back a unit of ``month`` (not below zero, not once the month has turned)."""
    while True:
        old = atomics.load(words, account_at)
        if old >> SHIFT != month or old & COUNT_MASK == 0:
            return False
        if atomics.cas(words, account_at, old, old - 1) == old:
            atomics.add(words, account_at + 1, 1)
            return True


@njit(cache=True)
def _read(words: np.ndarray, at: int) -> tuple[int, int, int]:
    """(version, period, count) of a slot, the version read first."""
    version = atomics.load(words, at + 1)
    word = atomics.load(words, at)
    return version, word >> SHIFT, word & COUNT_MASK


def _compile() -> None:
    """Compile (or load from numba's cache) the kernels now, on scratch words, so that a
    worker's first call does not wait for it."""
    scratch = np.zeros(8, dtype=np.int64)
    _take(scratch, 0, 1, 1, 2, 1, 1)
    _refund(scratch, 2, 1)
    _read(scratch, 2)


def _entry(kernel: Any) -> Any:
    """The compiled machine code of a kernel that has one signature, called without numba's
    dispatcher (which matches the arguments' types first: a ``take`` cost 8.0k instructions
    through it, 6.5k so; cachegrind). The dispatcher itself if it has several."""
    if len(kernel.signatures) != 1:
        return kernel
    return kernel.overloads[kernel.signatures[0]].entry_point


class SharedCounters:
    """``Counters`` exact across processes on one machine (see the module docstring)."""

    def __init__(self, store: Store, path: str | None = None, slots: int = DEFAULT_SLOTS) -> None:
        self.store = store
        self.path = path or store.local_path + ".counters"
        self.slots = slots
        self._size = (1 + slots) * SLOT_SIZE
        self._thread_lock = threading.Lock()  # the list below, shared with the writer
        self._ended: list[tuple[int, str, int, int]] = []  # months closed since the last flush
        self._flushed: dict[int, int] = {}   # account slot -> version last written (writer)
        self._where: dict[bytes, int] = {}   # name -> word index of its values (never moves)
        self._key_at: dict[str, int] = {}    # the same, by key id and by account id
        self._account_at: dict[int, int] = {}
        with self._claiming() as fd:
            self._map = self._open_or_rebuild(fd)
        # A MAP_SHARED mapping: a worker forked after this counts into the same file.
        self._words = np.frombuffer(self._map, dtype=np.int64)
        _compile()
        self._take = _entry(_take)  # the request path's kernel

    # ------------------------------------------------------------ the Counters interface

    def take(self, key: str, minute: int, minute_limit: int, account: int, month: int,
             month_limit: int) -> Taken:
        # the slots' places, by two dict lookups (a method call each cost more than the lookup)
        account_at = self._account_at.get(account) or self._account_slot(account)
        key_at = self._key_at.get(key) or self._key_slot(key)
        count, used, reserved, closed, final, version = self._take(
            self._words, key_at, minute, minute_limit, account_at, month, month_limit)
        if closed:  # this call turned the month: the old one's final total, for the flush
            with self._thread_lock:
                self._ended.append((account, month_text(closed), final, version))
        return from_values(Taken, (count, used, reserved))

    def refund(self, account: int, month: int) -> None:
        _refund(self._words, self._account_slot(account), month)

    def peek(self, key: str, minute: int, account: int, month: int) -> Taken:
        _, period, count = _read(self._words, self._key_slot(key))
        calls = count if period == minute else 0
        _, period, used = _read(self._words, self._account_slot(account))
        return Taken(calls, used if period == month else 0, False)

    def flush(self) -> int:
        """Write the monthly totals changed since the last flush to SQLite; returns how many.

        A total changed when its slot's version moved since this worker last wrote it (any
        worker's calls move it), so a call marks nothing for the flush: no lock and no shared
        set on the request path (0.2 µs a call). Of the accounts this worker has seen."""
        with self._thread_lock:
            rows, self._ended = self._ended, []
        ended = list(rows)
        written = []
        for account, at in list(self._account_at.items()):  # a copy: requests may add to it
            version, period, used = _read(self._words, at)
            if period and self._flushed.get(at) != version:
                rows.append((account, month_text(period), used, version))
                written.append((at, version))
        if rows:
            try:
                self.store.save_month_usage(rows)
            except Exception:
                with self._thread_lock:  # try again on the next round
                    self._ended[:0] = ended
                raise
        self._flushed.update(written)
        return len(rows)

    def close(self) -> None:
        del self._words  # the array's view of the map must go before the map can close
        self._map.close()

    # ------------------------------------------------------------ claiming slots

    @contextmanager
    def _claiming(self) -> Iterator[int]:
        """The file opened and locked for this step alone: a descriptor of its own, so the
        ``flock`` excludes this process's other threads and a forked parent or child too."""
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)   # released by the kernel if the process dies
            yield fd
        finally:
            # Unlocked explicitly: closing is not enough while ``mmap``'s duplicate of the
            # descriptor (made when the file is mapped) keeps the locked description open.
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def _key_slot(self, key: str) -> int:
        at = self._key_at.get(key)
        if at is None:  # the name encoded (and the slot claimed) once per key
            at = self._key_at[key] = self._slot(b"k:" + key.encode())
        return at

    def _account_slot(self, account: int) -> int:
        at = self._account_at.get(account)
        if at is None:
            at = self._account_at[account] = self._slot(b"a:%d" % account)
        return at

    def _slot(self, name: bytes) -> int:
        """The word index of ``name``'s values, claiming a free slot the first time."""
        at = self._where.get(name)
        if at is None:
            with self._claiming():
                at = self._where[name] = self._claim(name)
        return at

    def _claim(self, name: bytes) -> int:
        """Find or take ``name``'s slot (the file is locked)."""
        if len(name) > NAME:
            raise ValueError(f"counter name too long: {name!r}")
        padded = name.ljust(NAME, b"\0")
        m, first = self._map, zlib.crc32(name) % self.slots
        for probe in range(self.slots):
            start = SLOT_SIZE + ((first + probe) % self.slots) * SLOT_SIZE
            held = m[start:start + NAME]
            if held == padded or held == bytes(NAME):
                if held != padded:
                    m[start:start + NAME] = padded
                return (start + NAME) // 8
        raise CounterTableFull(f"all {self.slots} counter slots of {self.path} are in use")

    def _open_or_rebuild(self, fd: int) -> mmap.mmap:
        instance = self.store.instance_id().encode()
        if os.fstat(fd).st_size == self._size:
            m = mmap.mmap(fd, self._size)
            if HEADER.unpack_from(m, 0) == (MAGIC, self.slots, instance):
                return m
            m.close()
        # New, resized, of an older layout or another database's file: start from the
        # totals SQLite holds.
        os.ftruncate(fd, 0)
        os.ftruncate(fd, self._size)
        m = self._map = mmap.mmap(fd, self._size)
        for account, month, used, version in self.store.month_usage():
            at = self._claim(b"a:%d" % account) * 8
            struct.pack_into("<qq", m, at, _month_index(month) << SHIFT | used, version)
        HEADER.pack_into(m, 0, MAGIC, self.slots, instance)  # valid only once complete
        return m


def _month_index(text: str) -> int:
    """'YYYY-MM' as months since year 0 (the period numbers of ``server.accounts.limits``)."""
    year, month = text.split("-")
    return int(year) * 12 + int(month) - 1


def month_text(index: int) -> str:
    return f"{index // 12:04d}-{index % 12 + 1:02d}"
