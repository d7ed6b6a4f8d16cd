"""Development probe: the slow stretch after memory is given back, sample by sample.

    PYTHONPATH=build/release/python python3 bench/probe/python_timing.py

A float32 array of 2^28 values from torch.rand. torch.count_nonzero (which allocates a
temporary the size of its input) is timed, then cured.any, each sample cold as
python -m cured.bench takes it (the L2 flushed by writing twice its size, CUDA events around
the call), in four ways: straight after, after torch.cuda.empty_cache() (what the benchmark
does at the end of each workload), after cured.bench's release(), and after release() and the
benchmark's 20 ms of warm-up calls. Prints each way's 20 samples in the order taken, and the
host's microseconds to queue a cured.any call.
"""
import time

import torch

import cured
import cured.bench as cb

bench = cb.Bench(20, 3, False)
x = bench.input((1 << 28,))


def samples(fn):
    for _ in range(3):
        fn()
    return bench.cold_samples(fn)


def settle(fn):
    bench.release()
    bench.settle(fn)


def any_call():
    return cured.any(x)


def queued(fn, calls=200):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    return (t1 - t0) / calls * 1e6


ways = (("straight after", lambda: None), ("after empty_cache()", torch.cuda.empty_cache),
        ("after release()", bench.release), ("after release() and warm-up", lambda: settle(any_call)))
for label, between in ways:
    samples(lambda: torch.count_nonzero(x))
    between()
    times = samples(any_call)
    print(f"{label:28s} median {cb.median(times):6.1f} us: " + " ".join(f"{t:.0f}" for t in times), flush=True)
print(f"the host queues a cured.any call in {queued(any_call):.1f} us")
