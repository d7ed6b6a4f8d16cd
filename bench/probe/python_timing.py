"""Development probe: the GPU time of whole-array calls from Python, with and without the host's
call queued before the GPU reaches the start event.

    PYTHONPATH=build/release/python python3 bench/probe/python_timing.py

A float32 array of 2^28 values from torch.rand; for each call the median of 20 cold samples
(the L2 flushed by writing 480 MiB before each), once as python -m cured.bench times it (start
event, call, stop event) and once with a 0.1 ms spin kernel queued before the start event, so
that the call is queued before the GPU reaches it; and the host's microseconds to queue a call.
"""
import time

import torch

import cured

x = torch.rand(1 << 28, device="cuda")
flush = torch.empty(480 << 20, dtype=torch.uint8, device="cuda")
start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)


def cold(fn, spin, samples=20):
    times = []
    for i in range(samples):
        flush.fill_(i & 255)
        if spin:
            torch.cuda._sleep(200000)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) * 1e3)
    return sorted(times)[samples // 2]


def queued(fn, calls=200):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    return (t1 - t0) / calls * 1e6


calls = [("cured.sum", lambda: cured.sum(x)), ("cured.count_nonzero", lambda: cured.count_nonzero(x)),
         ("cured.any", lambda: cured.any(x)), ("cured.logsumexp", lambda: cured.logsumexp(x)),
         ("torch.any", lambda: torch.any(x))]
for name, fn in calls:
    fn()
    fn()
    print(f"{name:20s} cold {cold(fn, False):8.2f} us  cold after spin {cold(fn, True):8.2f} us  "
          f"host queues a call in {queued(fn):7.2f} us")
