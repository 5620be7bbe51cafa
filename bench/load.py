"""A load of HTTP calls from client threads, shared by the benchmarks that drive a real serve."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import httpx

Call = Callable[[httpx.Client, int], httpx.Response]
"""One request: the call with the thread's client and the request's number."""


def concurrent_calls(
    base: str | list[str], call: Call, count: int, inflight: int
) -> tuple[float, list[float], int]:
    """Throughput of `count` calls with `inflight` threads taking the next index in turn;
    with several base URLs (service instances), thread i calls `base[i % len(base)]`."""
    bases = [base] if isinstance(base, str) else base
    lock = threading.Lock()
    next_index = iter(range(count))
    latencies: list[float] = []
    errors = [0]

    def worker(url: str) -> None:
        with httpx.Client(base_url=url, timeout=120) as client:
            while True:
                with lock:
                    n = next(next_index, None)
                if n is None:
                    return
                started = time.perf_counter()
                failed = call(client, n).status_code != 200
                elapsed = time.perf_counter() - started
                with lock:
                    latencies.append(elapsed)
                    errors[0] += failed

    threads = [
        threading.Thread(target=worker, args=(bases[i % len(bases)],)) for i in range(inflight)
    ]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return count / (time.perf_counter() - started), latencies, errors[0]
