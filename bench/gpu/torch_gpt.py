#!/usr/bin/env python3
"""PyTorch's peer of ember-bench-gpt (bench/gpt_step.cpp): the same small GPT, weights and
tokens, forward and mean cross-entropy loss, one step per set of new tokens (issue 41).

    python3 bench/gpu/torch_gpt.py MODE STEPS [--device cpu|cuda]

MODE:
    eager            plain PyTorch;
    compile          torch.compile with its default mode;
    reduce-overhead  torch.compile(mode="reduce-overhead"), its CUDA-graph mode (CUDA only);
    graph            one step captured by hand in a torch.cuda.CUDAGraph, after three warm-up
                     steps on a side stream; each step copies its tokens into the captured input
                     tensors and replays: a step's host cost at its floor (CUDA only).
Prints one JSON line: mode, device, steps, first_step_ms, steady_ms_per_step (the median of the
steps after the first), first_loss, last_loss; and the first-result figures named as
torch_first_result.py's, counted from the top of this script: import_ms (import torch), start_ms
(the model on the device, before the first step), first_result_ms (the first step's loss on the
host), total_ms, with main_unix_ns, the system clock at the top, from which
bench/gpu/first-result.sh counts exec -> script.

A step, as ember-bench-gpt's: the step's tokens and targets (CPU tensors, made before the step)
go to the device, the model runs, and the loss comes back to the host (.item(), a sync); the
wall time of that is the step's time.

The model and the formulas must stay those of gpt_step.cpp, which explains them: vocab 96,
width 64, 4 heads of 16, 2 pre-norm blocks (layernorm, causal self-attention, layernorm, MLP
64 -> 256 -> 64 with erf GELU), final layernorm, logits against the tied token embedding, mean
cross-entropy over batch 2 x sequence 32. Weights: tensor number n (in creation order) holds
offset + scale * (2u - 1) at flat index i, u = mix32(n * 2^20 + i) / 2^32, in double, rounded to
f32 once, so both programs hold the same bits. Every op is written as gpt_step.cpp writes it
(softmax as exp(x - max) / sum, log-softmax by hand, erf GELU), in f32 with TF32 off, so the
first losses agree to float rounding (the order of the matmuls' sums differs).
"""

import argparse
import json
import math
import statistics
import sys
import time

# The clocks before `import torch`, as torch_first_result.py's.
T0 = time.perf_counter()
MAIN_UNIX_NS = time.time_ns()

import torch  # noqa: E402

# The same torch.compile modes and hand capture as the ember-lab peers (this directory).
from torch_first_result import captured, compiled  # noqa: E402

T_IMPORT = time.perf_counter()

VOCAB = 96
WIDTH = 64
HEADS = 4
HEAD_WIDTH = WIDTH // HEADS
LAYERS = 2
FF = 256
BATCH = 2
SEQ = 32
TOKENS = BATCH * SEQ
EPS = 1e-5
SCORE_SCALE = 0.25  # 1 / sqrt(HEAD_WIDTH)
MASKED = -1e9
INV_SQRT2 = 0.70710678118654752440
MASK32 = 0xFFFFFFFF


def mix32(x):
    """MurmurHash3's finalizer on uint32, as gpt_step.cpp's Mix32."""
    x ^= x >> 16
    x = (x * 0x85EBCA6B) & MASK32
    x ^= x >> 13
    x = (x * 0xC2B2AE35) & MASK32
    x ^= x >> 16
    return x


class WeightMaker:
    """gpt_step.cpp's WeightMaker: the n-th tensor made holds the n-th formula's values."""

    def __init__(self, device):
        self.device = device
        self.count = 0

    def next(self, shape, scale, offset=0.0):
        self.count += 1
        base = self.count << 20
        n = math.prod(shape)
        values = [offset + scale * (2.0 * (mix32(base + i) / 4294967296.0) - 1.0)
                  for i in range(n)]
        # torch.tensor rounds the Python floats (doubles) to f32 to nearest, as static_cast.
        t = torch.tensor(values, dtype=torch.float32).reshape(shape).to(self.device)
        return torch.nn.Parameter(t, requires_grad=False)

    def layernorm(self):
        return LayerNorm(self.next((WIDTH,), 0.1, 1.0), self.next((WIDTH,), 0.05))

    def linear(self, fan_in, fan_out):
        return Dense(self.next((fan_in, fan_out), 1.0 / math.sqrt(fan_in)),
                     self.next((fan_out,), 0.02))


def step_tokens(step):
    return [(7 * i + 3 * step) % VOCAB for i in range(TOKENS)]


def step_targets(step):
    return [(7 * (i + 1) + 3 * step) % VOCAB for i in range(TOKENS)]


# Modules hold the weights as Parameters (not plain tensors passed in) so that reduce-overhead's
# CUDA graphs treat them as static and do not copy them in at every replay.
class LayerNorm(torch.nn.Module):
    def __init__(self, gamma, beta):
        super().__init__()
        self.gamma, self.beta = gamma, beta

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        centered = x - mean
        var = (centered * centered).mean(-1, keepdim=True)
        return centered / torch.sqrt(var + EPS) * self.gamma + self.beta


class Dense(torch.nn.Module):
    """y = x w + b, w stored [in, out] as in gpt_step.cpp."""

    def __init__(self, w, b):
        super().__init__()
        self.w, self.b = w, b

    def forward(self, x):
        return x @ self.w + self.b


def softmax(x):
    e = torch.exp(x - x.amax(-1, keepdim=True))
    return e / e.sum(-1, keepdim=True)


def gelu(u):
    return (u * 0.5) * (torch.erf(u * INV_SQRT2) + 1.0)


def split_heads(t):  # [batch * seq, width] -> [batch, heads, seq, head width]
    return t.reshape(BATCH, SEQ, HEADS, HEAD_WIDTH).permute(0, 2, 1, 3)


def merge_heads(t):  # [batch, heads, seq, head width] -> [batch * seq, width]
    return t.permute(0, 2, 1, 3).reshape(TOKENS, WIDTH)


class Block(torch.nn.Module):
    def __init__(self, make):
        super().__init__()
        # The creation order is the formula's numbering: as gpt_step.cpp's MakeWeights.
        self.ln1 = make.layernorm()
        self.q = make.linear(WIDTH, WIDTH)
        self.k = make.linear(WIDTH, WIDTH)
        self.v = make.linear(WIDTH, WIDTH)
        self.proj = make.linear(WIDTH, WIDTH)
        self.ln2 = make.layernorm()
        self.fc = make.linear(WIDTH, FF)
        self.out = make.linear(FF, WIDTH)

    def attention(self, h, causal_mask):
        q = split_heads(self.q(h))
        k = split_heads(self.k(h))
        v = split_heads(self.v(h))
        scores = (q @ k.transpose(-2, -1)) * SCORE_SCALE
        prob = softmax(scores.masked_fill(causal_mask, MASKED))
        return self.proj(merge_heads(prob @ v))

    def forward(self, x, causal_mask):
        x1 = x + self.attention(self.ln1(x), causal_mask)
        return x1 + self.out(gelu(self.fc(self.ln2(x1))))


class Gpt(torch.nn.Module):
    def __init__(self, device):
        super().__init__()
        make = WeightMaker(device)
        self.token_embedding = make.next((VOCAB, WIDTH), 0.02)
        self.position_embedding = make.next((SEQ, WIDTH), 0.01)
        self.blocks = torch.nn.ModuleList([Block(make) for _ in range(LAYERS)])
        self.ln_f = make.layernorm()
        mask = torch.triu(torch.ones(SEQ, SEQ, dtype=torch.bool), diagonal=1)
        self.register_buffer("causal_mask", mask.to(device))

    def forward(self, tokens, targets):
        """tokens [batch * seq] i64, targets [batch * seq, 1] i64 -> the mean loss."""
        tok = self.token_embedding.index_select(0, tokens).reshape(BATCH, SEQ, WIDTH)
        x = (tok + self.position_embedding).reshape(TOKENS, WIDTH)
        for block in self.blocks:
            x = block(x, self.causal_mask)
        logits = self.ln_f(x) @ self.token_embedding.t()
        shifted = logits - logits.amax(-1, keepdim=True)
        log_prob = shifted - torch.log(torch.exp(shifted).sum(-1, keepdim=True))
        return -log_prob.gather(1, targets).mean()


def since_t0(t):
    return (t - T0) * 1000.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=["eager", "compile", "reduce-overhead", "graph"])
    parser.add_argument("steps", type=int)
    parser.add_argument("--device", choices=["cpu", "cuda"], default="cuda")
    args = parser.parse_args()
    if args.steps < 1:
        parser.error("STEPS must be at least 1")
    if args.device == "cpu" and args.mode in ("reduce-overhead", "graph"):
        parser.error(f"mode {args.mode} needs CUDA graphs: use --device cuda")
    if args.device == "cuda" and not torch.cuda.is_available():
        sys.exit("torch_gpt.py: CUDA is not available to torch")

    # f32 as ember computes it: no TF32 in matmuls.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")

    dev = torch.device(args.device)
    torch.set_grad_enabled(False)  # forward only, as ember-bench-gpt
    model = Gpt(dev)
    # The host's tokens, ready before the steps as ember-bench-gpt's host vectors are.
    host = [(torch.tensor(step_tokens(s), dtype=torch.int64),
             torch.tensor(step_targets(s), dtype=torch.int64).reshape(TOKENS, 1))
            for s in range(args.steps)]

    if args.mode == "graph":
        static_tokens = host[0][0].to(dev)
        static_targets = host[0][1].to(dev)
        replay, static_loss = captured(lambda: model(static_tokens, static_targets))

        def step(i):
            static_tokens.copy_(host[i][0])
            static_targets.copy_(host[i][1])
            replay()
            return static_loss.item()
    else:
        fn = compiled(model, args.mode)

        def step(i):
            if args.mode == "reduce-overhead":
                # The previous step's outputs are read: their graph memory may be reused.
                torch.compiler.cudagraph_mark_step_begin()
            return fn(host[i][0].to(dev), host[i][1].to(dev)).item()

    if args.device == "cuda":
        torch.cuda.synchronize()
    t_start = time.perf_counter()
    times = []
    losses = []
    for i in range(args.steps):
        start = time.perf_counter()
        losses.append(step(i))
        times.append((time.perf_counter() - start) * 1000.0)
        if i == 0:
            t_first = time.perf_counter()
    t_end = time.perf_counter()
    print(json.dumps({"mode": args.mode, "device": args.device, "steps": args.steps,
                      "main_unix_ns": MAIN_UNIX_NS, "import_ms": since_t0(T_IMPORT),
                      "start_ms": since_t0(t_start), "first_result_ms": since_t0(t_first),
                      "total_ms": since_t0(t_end),
                      "first_step_ms": times[0],
                      "steady_ms_per_step": statistics.median(times[1:]) if len(times) > 1
                      else None,
                      "first_loss": losses[0], "last_loss": losses[-1]}))


if __name__ == "__main__":
    main()
