"""ember beside PyTorch: tensors go both ways through DLPack without copies, on the GPU when
both libraries can use one and on the CPU otherwise.

    PYTHONPATH=build/python python3 examples/python/torch_interop.py
    PYTHONPATH=build/python python3 examples/python/torch_interop.py --device cpu

PyTorch makes the activations, ember runs a fused layer norm and GELU over them (one queued
program, fused when read), and PyTorch takes the result back. ember borrows PyTorch's memory
(it never writes it, and gives it back once its last reader is done) and PyTorch reads ember's
output in place: the addresses printed match. On a GPU, PyTorch's queued work is ordered before
ember's reads through ember's stream, with no host wait (docs/API.md, "Python").
"""

import argparse
import math

import torch

import ember


def layer_norm_gelu(x, gamma, beta, eps=1e-5):
    mu = ember.mean(x, axis=-1, keepdims=True)
    d = x - mu
    var = ember.mean(d * d, axis=-1, keepdims=True)
    y = d / ember.sqrt(var + eps) * gamma + beta
    return 0.5 * y * (1.0 + ember.erf(y * (1.0 / math.sqrt(2.0))))


def pick_device(asked):
    if asked == "cpu":
        return "cpu"
    gpu = torch.cuda.is_available() and "cuda:0" in ember.__array_namespace_info__().devices()
    if asked == "cuda" and not gpu:
        raise SystemExit("torch_interop: --device cuda, but PyTorch and ember do not both see a "
                         "GPU here")
    return "cuda:0" if gpu else "cpu"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    device = pick_device(parser.parse_args().device)

    torch.manual_seed(0)
    x = torch.randn(256, 512, device=device) * 2 + 1  # PyTorch's work, maybe still queued
    gamma = torch.rand(512, device=device) + 0.5
    beta = torch.randn(512, device=device) * 0.1

    ex, eg, eb = (ember.from_dlpack(t) for t in (x, gamma, beta))  # borrowed: no copies
    y = layer_norm_gelu(ex, eg, eb)
    out = torch.from_dlpack(y)  # runs ember's queued program; PyTorch reads ember's memory

    want = torch.nn.functional.gelu(
        torch.nn.functional.layer_norm(x, (512,), gamma, beta, eps=1e-5))
    worst = float((out - want).abs().max())
    borrowed = torch.from_dlpack(ex).data_ptr() == x.data_ptr()
    shared = torch.from_dlpack(y).data_ptr() == out.data_ptr()
    print(f"torch_interop: layer norm + GELU of a 256x512 PyTorch tensor on ember ({device})")
    print(f"  ember read PyTorch's memory in place   {borrowed}")
    print(f"  PyTorch read ember's output in place   {shared}")
    print(f"  max |ember - torch|                    {worst:.2e}")
    if not (borrowed and shared and worst < 1e-4):
        raise SystemExit("torch_interop: the exchange copied, or the results differ")


if __name__ == "__main__":
    main()
