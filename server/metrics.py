"""Prometheus metrics of one worker (``GET /metrics``), in a registry private to the app."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 2.0)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter("harmony_requests", "Requests answered, by route and status.",
                                ["route", "status"], registry=self.registry)
        self.latency = Histogram("harmony_request_seconds", "Time to answer, by route.",
                                 ["route"], buckets=_BUCKETS, registry=self.registry)
        self.log_dropped = Counter("harmony_log_rows_dropped",
                                   "Request log rows dropped because the database kept "
                                   "failing and the queue was full.", registry=self.registry)

        # The labelled children, looked up once: labels() cost 3 µs a call (cProfile).
        self._children: dict[tuple[str, int], tuple[Counter, Histogram]] = {}

    def observe(self, route: str, status: int, seconds: float) -> None:
        children = self._children.get((route, status))
        if children is None:
            children = (self.requests.labels(route, str(status)), self.latency.labels(route))
            self._children[(route, status)] = children
        children[0].inc()
        children[1].observe(seconds)

    def render(self) -> tuple[bytes, bytes]:
        return generate_latest(self.registry), CONTENT_TYPE_LATEST.encode()
