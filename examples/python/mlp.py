"""ember from Python: a two-layer MLP classifier's forward pass (matmul, bias, gelu, softmax)
on ember, checked against NumPy, with tensors exchanged through DLPack without copies.

    PYTHONPATH=build/python python3 examples/python/mlp.py            # plans in ./.ember/plans.db
    EMBER_PLAN_DB=/tmp/mlp.db PYTHONPATH=build/python python3 examples/python/mlp.py

Run it twice on one database: the second run explores nothing (its plans come from the file).
"""

import math
import sys

import numpy as np

import ember


def gelu(x):
    return 0.5 * x * (1.0 + ember.erf(x * (1.0 / math.sqrt(2.0))))


def softmax(x):
    e = ember.exp(x - ember.max(x, axis=-1, keepdims=True))
    return e / ember.sum(e, axis=-1, keepdims=True)


def forward(x, w1, b1, w2, b2):
    return softmax(gelu(x @ w1 + b1) @ w2 + b2)


def reference(x, w1, b1, w2, b2):
    from math import erf
    h = x @ w1 + b1
    h = 0.5 * h * (1.0 + np.vectorize(erf)(h / math.sqrt(2.0)))
    z = h @ w2 + b2
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def main():
    rng = np.random.default_rng(0)
    batch, width, hidden, classes = 64, 32, 64, 10
    params = [rng.standard_normal((width, hidden)) / math.sqrt(width),
              rng.standard_normal(hidden) * 0.1,
              rng.standard_normal((hidden, classes)) / math.sqrt(hidden),
              rng.standard_normal(classes) * 0.1]
    weights = [ember.asarray(p) for p in params]  # float64 data becomes float32
    worst = 0.0
    for step in range(8):
        x = rng.standard_normal((batch, width))
        probs = forward(ember.asarray(x), *weights)  # queued, fused when read
        got = np.from_dlpack(probs)  # ember's memory, not a copy
        worst = max(worst, float(np.abs(got - reference(x, *params)).max()))
        labels = ember.argmax(probs, axis=1)
    stats = ember.stats()
    print(f"mlp: 8 steps of a {batch}x{width} -> {hidden} -> {classes} MLP on ember (cpu)")
    print(f"  max |ember - numpy|   {worst:.2e}")
    print(f"  first labels          {labels.tolist()[:8]}")
    print(f"  explorations          {stats['explorations']}")
    print(f"  cache hits            {stats['cache_hits']} (db {stats['cache_hits_from_db']}, "
          f"shm {stats['cache_hits_from_shm']})")
    print(f"  plans loaded          db {stats['plans_loaded_from_db']}, "
          f"shm {stats['plans_loaded_from_shm']}")
    print(f"  fused executions      {stats['fused_executions']}")
    return 0 if worst < 1e-4 else 1


if __name__ == "__main__":
    sys.exit(main())
