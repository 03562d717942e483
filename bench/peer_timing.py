"""Timing shared by the peer scripts of bench/ (cpu_peers.py, matmul_peer.py): the median of
at least `min_reps` calls taking at least `min_time` seconds in all, after one warm-up call
(allocations, numexpr's compilation, BLAS thread start)."""
import time


def median_ms(fn, min_time=0.5, min_reps=5):
    fn()
    times = []
    start = time.perf_counter()
    while len(times) < min_reps or time.perf_counter() - start < min_time:
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    return times[len(times) // 2]
