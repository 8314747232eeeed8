"""Limit counters shared by the granian workers of one machine, in a memory-mapped file.

The file lives next to the database (``harmony.db.counters``) and holds fixed 64-byte slots:
one per key (its minute window and the calls counted in it) and one per account (its month and
the successful calls reserved in it). Slots are found by a stable hash with linear probing and
never move, so each worker remembers where its names live.

Why this and not a SQLite write per call: the SQLite version cost 41-48 µs a call, and its one
write lock serialised both workers under load. Here a call costs one ``flock`` pair around a
few ``struct`` reads and writes of the shared page: about 2 µs measured (flock 1.0 µs,
per-slot ``lockf`` ranges 1.8 µs, so one whole-file flock). ``flock`` is released by the kernel
when a worker dies, so a crash never leaves the counters locked. ``flock`` does not exclude
threads of one process sharing the descriptor, hence the ``threading.Lock`` as well (the log
writer's thread flushes).

The monthly totals are written to SQLite (``month_usage``) by the background log writer, each
with a version that only grows, so several workers writing snapshots can never roll a total
back. When the file is missing, or belongs to another database, it is rebuilt from those rows.
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

from server.accounts.limits import Taken
from server.accounts.store import Store

MAGIC = b"HARMCNT1"
HEADER = struct.Struct("<8sI4x32s")      # magic, slot count, database instance id (< 64 B)
SLOT_SIZE = 64                           # one cache line per slot; the header takes one too
NAME = 32                                # bytes of a slot's name: b"k:<key id>" / b"a:<account>"
VALUES = struct.Struct("<qqq")           # period (minute or month index), count, version
DEFAULT_SLOTS = 1 << 16                  # 4 MiB, sparse on disk: keys and accounts of one machine


class CounterTableFull(RuntimeError):
    pass


class SharedCounters:
    """``Counters`` exact across processes on one machine (see the module docstring)."""

    _map: mmap.mmap

    def __init__(self, store: Store, path: str | None = None, slots: int = DEFAULT_SLOTS) -> None:
        self.store = store
        self.path = path or store.local_path + ".counters"
        self.slots = slots
        self._size = (1 + slots) * SLOT_SIZE
        self._thread_lock = threading.Lock()
        self._touched: set[int] = set()      # account slots changed since the last flush
        self._ended: list[tuple[int, str, int, int]] = []  # months closed since then
        self._pid = -1
        self._fd = -1                        # the file, opened per process by _open
        self._open()

    def _open(self) -> None:
        # Per process: a descriptor inherited through fork would share its flock with the
        # parent, which would then exclude nothing.
        if self._fd != -1:  # a forked child lets go of its parent's copies
            self._map.close()
            os.close(self._fd)
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        self._pid = os.getpid()
        self._where: dict[bytes, int] = {}   # name -> offset of its values (slots never move)
        self._key_at: dict[str, int] = {}    # the same, by key id and by account id
        self._account_at: dict[int, int] = {}
        with self._locked():
            self._map = self._open_or_rebuild()

    # ------------------------------------------------------------ the Counters interface

    def take(self, key: str, minute: int, minute_limit: int, account: int, month: int,
             month_limit: int) -> Taken:
        # The lock is taken inline, not through _locked(): this runs on every call and the
        # context manager's generator cost 1 µs of its 3 (cProfile).
        if self._pid != os.getpid():
            self._open()
        with self._thread_lock:
            fcntl.flock(self._fd, fcntl.LOCK_EX)
            try:
                m = self._map
                at = self._key_at.get(key)
                if at is None:  # names encoded once per key and account (0.4 µs a call)
                    at = self._key_at[key] = self._slot(b"k:" + key.encode())
                period, count, version = VALUES.unpack_from(m, at)
                count = count + 1 if period == minute else 1
                VALUES.pack_into(m, at, minute, count, version + 1)
                at = self._account_at.get(account)
                if at is None:
                    at = self._account_at[account] = self._slot(b"a:%d" % account)
                period, used, version = VALUES.unpack_from(m, at)
                if period != month:
                    if period:  # the month turned: keep its final total for the next flush
                        self._ended.append((account, month_text(period), used, version))
                    used, version = 0, version + 1
                    VALUES.pack_into(m, at, month, used, version)
                if count <= minute_limit and used < month_limit:
                    used += 1
                    VALUES.pack_into(m, at, month, used, version + 1)
                    self._touched.add(at)
                    return Taken(count, used, True)
                return Taken(count, used, False)
            finally:
                fcntl.flock(self._fd, fcntl.LOCK_UN)

    def refund(self, account: int, month: int) -> None:
        with self._locked():
            at = self._slot(b"a:%d" % account)
            period, used, version = VALUES.unpack_from(self._map, at)
            if period == month and used > 0:
                VALUES.pack_into(self._map, at, month, used - 1, version + 1)
                self._touched.add(at)

    def peek(self, key: str, minute: int, account: int, month: int) -> Taken:
        with self._locked():
            m = self._map
            period, count, _ = VALUES.unpack_from(m, self._slot(b"k:" + key.encode()))
            calls = count if period == minute else 0
            period, used, _ = VALUES.unpack_from(m, self._slot(b"a:%d" % account))
            return Taken(calls, used if period == month else 0, False)

    def flush(self) -> int:
        """Write the monthly totals changed since the last flush to SQLite; returns how many."""
        with self._locked():
            touched, self._touched = self._touched, set()
            rows, self._ended = self._ended, []
            ended = list(rows)
            for at in touched:
                name = bytes(self._map[at - NAME:at]).rstrip(b"\0")
                period, used, version = VALUES.unpack_from(self._map, at)
                rows.append((int(name[2:]), month_text(period), used, version))
        if rows:
            try:
                self.store.save_month_usage(rows)
            except Exception:
                with self._thread_lock:  # try again on the next round
                    self._touched |= touched
                    self._ended[:0] = ended
                raise
        return len(rows)

    def close(self) -> None:
        if self._pid == os.getpid():
            self._map.close()
            os.close(self._fd)

    # ------------------------------------------------------------ inside the lock

    @contextmanager
    def _locked(self) -> Iterator[None]:
        if self._pid != os.getpid():
            self._open()
        with self._thread_lock:
            fcntl.flock(self._fd, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(self._fd, fcntl.LOCK_UN)

    def _slot(self, name: bytes) -> int:
        """The offset of ``name``'s values, claiming a free slot the first time (locked)."""
        at = self._where.get(name)
        if at is not None:
            return at
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
                self._where[name] = start + NAME
                return start + NAME
        raise CounterTableFull(f"all {self.slots} counter slots of {self.path} are in use")

    def _open_or_rebuild(self) -> mmap.mmap:
        instance = self.store.instance_id().encode()
        size = os.fstat(self._fd).st_size
        if size == self._size:
            m = mmap.mmap(self._fd, self._size)
            if HEADER.unpack_from(m, 0) == (MAGIC, self.slots, instance):
                return m
            m.close()
        # New, resized or another database's file: start from the totals SQLite holds.
        os.ftruncate(self._fd, 0)
        os.ftruncate(self._fd, self._size)
        m = mmap.mmap(self._fd, self._size)
        self._map = m
        for account, month, used, version in self.store.month_usage():
            at = self._slot(b"a:%d" % account)
            VALUES.pack_into(m, at, _month_index(month), used, version)
        HEADER.pack_into(m, 0, MAGIC, self.slots, instance)  # valid only once complete
        return m


def _month_index(text: str) -> int:
    """'YYYY-MM' as months since year 0 (the period numbers of ``server.accounts.limits``)."""
    year, month = text.split("-")
    return int(year) * 12 + int(month) - 1


def month_text(index: int) -> str:
    return f"{index // 12:04d}-{index % 12 + 1:02d}"
