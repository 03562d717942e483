"""numpy's matmul on the sizes of ember-bench-ops' BM_Matmul_Ember (n x n by n x n, f32), on
EMBER_BENCH_THREADS threads (numpy's BLAS reads OPENBLAS_NUM_THREADS, set before the import).
Prints one JSON line per size: {"n", "ms", "gflops"}, the median of >= 5 runs of >= 0.5 s.
Run with Debian's /usr/bin/python3 (python3-numpy), as bench/run_matmul.sh does."""
import json
import os
import sys

threads = os.environ.get("EMBER_BENCH_THREADS", "2")
os.environ["OPENBLAS_NUM_THREADS"] = threads
os.environ["OMP_NUM_THREADS"] = threads

import numpy as np  # noqa: E402  (after the thread variables)

from peer_timing import median_ms  # noqa: E402


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [256, 512, 1024, 2048]
    rng = np.random.default_rng(1)
    for n in sizes:
        a = rng.uniform(-1, 1, (n, n)).astype(np.float32)
        b = rng.uniform(-1, 1, (n, n)).astype(np.float32)
        ms = median_ms(lambda: a @ b)
        print(json.dumps({"n": n, "ms": ms, "gflops": 2 * n ** 3 / ms / 1e6}))


if __name__ == "__main__":
    main()
