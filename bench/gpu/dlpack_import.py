"""What ember.from_dlpack of a PyTorch CUDA tensor costs (issue 48): the import is a borrow,
so its time should not grow with the tensor, where a copy's does. Per size: the median host
time of ember.from_dlpack(x) (the capsule, ember's stream handed to PyTorch, the Init queued),
of the same followed by the tensor's drop, and of x.clone() with a synchronize, PyTorch's
cheapest copy on the device; then one reduction over the borrowed memory, ember against torch.

    LD_LIBRARY_PATH=build-gpu/python-module/lib PYTHONPATH=build-gpu/python-module \
        python3 bench/gpu/dlpack_import.py            (on the GPU machine: python-module.sh)

Prints a Markdown table; DLPACK_SIZES=20,26 picks the sizes (log2 of float32 elements)."""

import os
import statistics
import time

import torch

import ember


def median_us(fn, repeats=50):
    for _ in range(5):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def main():
    sizes = [int(s) for s in os.environ.get("DLPACK_SIZES", "20,24,28").split(",")]
    print(f"PyTorch {torch.__version__} on {torch.cuda.get_device_name(0)}; ember on cuda:0\n")
    print("| n | from_dlpack µs | import + drop + sync µs | x.clone() + sync µs | "
          "ember sum ms | torch sum ms |")
    print("|---|---|---|---|---|---|")
    for log2 in sizes:
        x = torch.rand(1 << log2, device="cuda")
        torch.cuda.synchronize()
        imported = median_us(lambda: ember.from_dlpack(x))

        def import_drop():
            t = ember.from_dlpack(x)
            del t
            ember.sync("cuda:0")

        cycle = median_us(import_drop)

        def clone():
            x.clone()
            torch.cuda.synchronize()

        copied = median_us(clone)
        t = ember.from_dlpack(x)
        ours = median_us(lambda: float(ember.sum(t)), repeats=20) / 1e3
        theirs = median_us(lambda: float(torch.sum(x)), repeats=20) / 1e3
        del t
        ember.sync("cuda:0")
        print(f"| 2^{log2} | {imported:.1f} | {cycle:.1f} | {copied:.1f} | {ours:.3f} | "
              f"{theirs:.3f} |")


if __name__ == "__main__":
    main()
