"""Prometheus metrics (``GET /metrics``), in a registry private to the app.

Under ``harmony serve`` (``PROMETHEUS_MULTIPROC_DIR`` set, see ``reset_metrics_dir``) every
granian worker writes its samples to memory-mapped files in that directory and a scrape, which
reaches one worker, adds up the files of all of them: counts and histograms are the service's,
whichever worker answers, and a respawned worker's predecessor still counts. Without the
variable (tests, an app built in-process) the values live in this process's memory.

A request's observation is batched (issue 21): ``observe`` adds it to this worker's pending
counts (0.3 µs) and ``publish`` moves them into the Prometheus values, a file write per route
and status that was seen rather than per request (which cost 2.55 µs a request). The app
publishes every log interval (0.25 s, on the event loop, ``RequestLog``'s ``before``), before
every scrape and at shutdown: a scrape sees the worker it reached exactly and the others as of
their last interval. Over WSGI a worker's requests run on several threads and the publish on
its loop thread (or a scrape's request thread), so ``observe`` only ever adds to running totals
(each addition one statement, which the GIL does not split) and ``publish`` moves what they
gained since it last looked: nothing is swapped away under an observer, and no lock is taken on
the request path (a lock there cost ~1,900 instructions a call). A scrape may see a request's
count before its latency bucket, or the other way round; the next publish evens them.
"""

from __future__ import annotations

import os
import shutil
import threading
from bisect import bisect_left
from pathlib import Path
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest, values
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.multiprocess import MultiProcessCollector

_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 2.0)
_BOUNDS = (*_BUCKETS, float("inf"))
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


def reset_metrics_dir(db_path: str) -> Path:
    """The workers' metrics directory beside the database (``harmony.db.metrics``), emptied:
    call it before the workers start. One ``harmony serve`` per database file is the supported
    set-up (README, configuration): a second one on the same file would empty this folder
    under the first one's workers."""
    path = Path(db_path + ".metrics")
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True, exist_ok=True)
    return path


_NOTHING: tuple[int, float, list[int]] = (0, 0.0, [0] * len(_BOUNDS))  # before a first publish


class Metrics:
    def __init__(self) -> None:
        directory = os.environ.get(MULTIPROC_ENV)
        if directory and not getattr(values.ValueClass, "_multiprocess", False):
            # prometheus_client chose its value class when first imported, which in a worker
            # forked by granian may have been before ``harmony serve`` set the directory.
            values.ValueClass = values.get_value_class()
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter("harmony_requests", "Requests answered, by route and status.",
                                ["route", "status"], registry=self.registry)
        self.latency = Histogram("harmony_request_seconds", "Time to answer, by route.",
                                 ["route"], buckets=_BUCKETS, registry=self.registry)
        self.log_dropped = Counter("harmony_log_rows_dropped",
                                   "Request log rows dropped because the database kept "
                                   "failing and the queue was full.", registry=self.registry)
        # Counted, not logged: a throttle must stay cheap (no key lookup, no log row).
        self.flood_refusals = Counter("harmony_flood_refusals",
                                      "Requests refused by the per-IP flood throttle.",
                                      registry=self.registry)
        # Calls counted by this machine alone because Redis could not be reached.
        self.counter_fallbacks = Counter("harmony_counter_fallbacks",
                                         "Calls whose limits this machine counted alone "
                                         "because Redis could not be reached.",
                                         registry=self.registry)
        self.exposed = self.registry
        if directory:
            self.exposed = CollectorRegistry()
            MultiProcessCollector(self.exposed, directory)

        # The labelled children, looked up once: labels() cost 3 µs a call (cProfile).
        self._children: dict[tuple[str, int], tuple[Counter, Histogram]] = {}
        # (route, status) -> [requests, seconds in all, requests per bucket] since the start:
        # only ever added to by ``observe``
        self._totals: dict[tuple[str, int], list[Any]] = {}
        # the same as ``publish`` last moved them (its own), and its lock: the loop thread and
        # a scrape may publish at once
        self._published: dict[tuple[str, int], tuple[int, float, list[int]]] = {}
        self._publishing = threading.Lock()

    def observe(self, route: str, status: int, seconds: float) -> None:
        totals = self._totals.get((route, status))
        if totals is None:  # setdefault: two threads' first observations share one entry
            totals = self._totals.setdefault((route, status), [0, 0.0, [0] * len(_BOUNDS)])
        totals[0] += 1
        totals[1] += seconds
        totals[2][bisect_left(_BOUNDS, seconds)] += 1   # the first bound >= seconds

    def publish(self) -> None:
        """Move what the totals gained since the last publish into the Prometheus values (as
        ``Histogram.observe`` would have put them, one bucket each, through the histogram
        child's values)."""
        with self._publishing:
            for key, (count, seconds, buckets) in list(self._totals.items()):
                last = self._published.get(key, _NOTHING)
                if count == last[0]:
                    continue
                buckets = buckets[:]   # as they stand now
                children = self._children.get(key)
                if children is None:
                    route, status = key
                    children = (self.requests.labels(route, str(status)),
                                self.latency.labels(route))
                    self._children[key] = children
                children[0].inc(count - last[0])
                histogram = children[1]
                histogram._sum.inc(seconds - last[1])
                for bucket, n, was in zip(histogram._buckets, buckets, last[2], strict=True):
                    if n != was:
                        bucket.inc(n - was)
                self._published[key] = (count, seconds, buckets)

    def render(self) -> tuple[bytes, str]:
        self.publish()
        return generate_latest(self.exposed), CONTENT_TYPE_LATEST
