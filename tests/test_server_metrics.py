"""The batched metrics (issue 21): what ``observe`` gathers and ``publish`` moves into the
Prometheus values is exactly what observing each request on its own would have recorded."""

from __future__ import annotations

import sys
import threading

import pytest
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

from server.accounts.metrics import _BUCKETS, Metrics

SECONDS = [0.00005, 0.0001, 0.00011, 0.0003, 0.0009, 0.001, 0.004, 0.02, 0.3, 1.5, 2.0, 7.0,
           0.0, 0.00025]


def _one_by_one() -> bytes:
    registry = CollectorRegistry(auto_describe=True)
    requests = Counter("harmony_requests", "Requests answered, by route and status.",
                       ["route", "status"], registry=registry)
    latency = Histogram("harmony_request_seconds", "Time to answer, by route.", ["route"],
                        buckets=_BUCKETS, registry=registry)
    for route, status, seconds in _calls():
        requests.labels(route, str(status)).inc()
        latency.labels(route).observe(seconds)
    return generate_latest(registry)


def _calls() -> list[tuple[str, int, float]]:
    return [(route, status, s) for route in ("/v2/analyze", "/mcp") for status in (200, 429)
            for s in SECONDS]


def _samples(text: bytes) -> dict[bytes, float]:
    """Sample -> value; a sum of seconds may differ in its last bits (added in another
    order), hence compared with ``approx``."""
    return {name: float(value) for name, _, value in
            (line.rpartition(b" ") for line in text.splitlines())
            if name.startswith((b"harmony_requests_total", b"harmony_request_seconds_"))
            and b"_created" not in name}


def test_published_batches_equal_one_observation_at_a_time() -> None:
    metrics = Metrics()
    half = len(_calls()) // 2
    for route, status, seconds in _calls()[:half]:
        metrics.observe(route, status, seconds)
    metrics.publish()                       # a log interval falls between the two halves
    for route, status, seconds in _calls()[half:]:
        metrics.observe(route, status, seconds)
    text, _ = metrics.render()               # a scrape publishes what is pending first
    assert _samples(text) == pytest.approx(_samples(_one_by_one()), rel=1e-12)
    assert b'harmony_requests_total{route="/mcp",status="429"} 14.0' in text


def test_nothing_is_published_twice() -> None:
    metrics = Metrics()
    metrics.observe("/health", 200, 0.001)
    metrics.publish()
    metrics.publish()
    text, _ = metrics.render()
    assert b'harmony_requests_total{route="/health",status="200"} 1.0' in text
    assert b'harmony_request_seconds_count{route="/health"} 1.0' in text


def test_threads_observing_while_others_publish_lose_nothing() -> None:
    # Over WSGI a worker's requests observe on several threads while its loop thread (and a
    # scrape) publish: every observation is published once, whatever the interleaving (the
    # switch interval is made tiny so the threads interleave all the time).
    metrics = Metrics()
    per_thread, observers = 20_000, 4
    stop = threading.Event()

    def observe() -> None:
        for n in range(per_thread):
            metrics.observe("/v2/analyze", 200, SECONDS[n % len(SECONDS)])

    def publish() -> None:
        while not stop.is_set():
            metrics.publish()

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        publishers = [threading.Thread(target=publish) for _ in range(2)]
        workers = [threading.Thread(target=observe) for _ in range(observers)]
        for thread in publishers + workers:
            thread.start()
        for thread in workers:
            thread.join()
        stop.set()
        for thread in publishers:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    text, _ = metrics.render()
    total = per_thread * observers
    assert f'harmony_requests_total{{route="/v2/analyze",status="200"}} {total}.0'.encode() \
        in text
    assert f'harmony_request_seconds_count{{route="/v2/analyze"}} {total}.0'.encode() in text
    expected = sum(SECONDS[n % len(SECONDS)] for n in range(per_thread)) * observers
    assert _samples(text)[b'harmony_request_seconds_sum{route="/v2/analyze"}'] == \
        pytest.approx(expected, rel=1e-9)
