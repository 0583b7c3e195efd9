#!/usr/bin/env python3
"""The straightforward NumPy attention the benchmark compares against: matmul, mask, softmax,
matmul, exactly the lesson's scaled_dot_product_attention applied per head, float32.

usage: numpy_attention.py TOKENS HEADS HEAD_DIM CAUSAL(0|1) [REPEATS]
prints one JSON object: {"seconds": median, "tokens": ..., "numpy": version}
"""
import json
import sys
import time

import numpy as np


def softmax(x, axis=-1):
    x_max = np.max(x, axis=axis, keepdims=True)
    x_max = np.where(np.isfinite(x_max), x_max, 0.0)
    e = np.exp(x - x_max)
    return e / np.sum(e, axis=axis, keepdims=True)


def attention(q, k, v, mask):
    scores = q @ np.swapaxes(k, -1, -2) / np.float32(np.sqrt(q.shape[-1]))
    if mask is not None:
        scores = np.where(mask, scores, np.float32(-np.inf))
    return softmax(scores) @ v


def main():
    n, heads, d, causal = (int(a) for a in sys.argv[1:5])
    repeats = int(sys.argv[5]) if len(sys.argv) > 5 else 3
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((heads, n, d), dtype=np.float32) for _ in range(3))
    mask = np.tril(np.ones((n, n), dtype=bool)) if causal else None
    times = []
    for _ in range(repeats + 1):  # one warm-up
        t0 = time.perf_counter()
        attention(q, k, v, mask)  # all heads at once, as the lesson writes it
        times.append(time.perf_counter() - t0)
    times = sorted(times[1:])
    print(json.dumps({"seconds": times[len(times) // 2], "tokens": n, "numpy": np.__version__}))


if __name__ == "__main__":
    main()
