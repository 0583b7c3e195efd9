#!/usr/bin/env python3
"""The kernel curves of attnplan's step model against NVIDIA's AI Configurator's measured op
tables (issue 38, item 1): github.com/ai-dynamo/aiconfigurator @ 095f58a5,
aic-core/src/aiconfigurator_core/systems/data/<gpu>/<op>/<engine>/<release>/<table>.parquet,
each converted to JSON by tools/parquet_to_json.mjs into DIR with the same layout
(DIR/h100_sxm/gemm/vllm/0.24.0/gemm_perf.json, ...). Prints, per GPU:

- gemm: dense bf16 GEMMs (gemm_perf, N and K >= 1024) near their ridge (FLOPs at the table's
  own peak fraction within 16x of bytes at its own bandwidth fraction): the median |log error|
  of the larger roofline, and of (memory^p + compute^p)^(1/p) plus a launch floor, for each p;
  LatencyConstants' gemmRidge* are the best p.
- moe: the fused-MoE kernels (moe_perf, bf16, "balanced", expert parallelism 1, 64 tokens or
  more) at attnplan's own levels (the GEMM and bandwidth fractions, the grouped GEMMs' 0.7634
  and the MoE floor): the median log error (measured over modelled) and its |.| for each p;
  LatencyConstants::moeRidge is the best p.
- attention: decode attention (generation_attention_perf, bf16 KV, no window): the floor and
  the bandwidth fraction that fit t = floor + (bytes + h) / (bandwidth x fraction).
- allreduce: vLLM's custom all-reduce under CUDA graphs (custom_allreduce_perf): the alpha and
  link efficiency of alpha + 2 (n - 1) / n x bytes / (link x efficiency) that fit the table,
  beside attnplan's (fitted on end-to-end rows; see README, "Latency at a load").

usage: kernel_tables.py DIR [--gpus h100_sxm,h200_sxm,b200_sxm,a100_sxm,l40s]
"""
import json
import math
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CATALOG_NAME = {"h100_sxm": "H100 SXM", "h200_sxm": "H200", "b200_sxm": "B200",
                "a100_sxm": "A100 80GB", "l40s": "L40S"}
# The release whose tables each GPU is read at (the newest vLLM the repository measured it with).
RELEASE = {"h100_sxm": "0.24.0", "h200_sxm": "0.24.0", "b200_sxm": "0.24.0", "a100_sxm": "0.14.0",
           "l40s": "0.24.0"}
# attnplan's levels by generation (model/serve/StepTime.h, LatencyConstants): GEMM fraction,
# bandwidth fraction, MoE floor (s). The moe check times the table's rows as the step does.
LEVELS = {"ampere": (0.6785, 0.8368, 36e-6), "ada": (0.5907, 0.85, 27e-6),
          "hopper": (0.6466, 0.8723, 40e-6), "blackwell": (0.72, 0.85, 29e-6)}
GROUPED = 0.7634  # LatencyConstants::moe
LAUNCH = 3e-6     # a GEMM kernel's launch floor, in the step's layerSeconds
P_GRID = (1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0)


def gpus():
    with open(os.path.join(HERE, "..", "resources", "gpus.json")) as f:
        return {g["name"]: g for g in json.load(f)["gpus"]}


def table(root, gpu, op, name):
    engine = "vllm"
    path = os.path.join(root, gpu, op, engine, RELEASE[gpu], name + ".json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def joined(m, c, p):
    return max(m, c) if p is None else (m ** p + c ** p) ** (1 / p)


def median_abs(errors):
    return statistics.median(abs(e) for e in errors)


def gemm(rows, g):
    bw, peak = g["bandwidth_bytes_per_s"], g["bf16_tflops"] * 1e12
    rows = [r for r in rows if r["gemm_dtype"] == "bfloat16" and r["n"] >= 1024 and r["k"] >= 1024]
    big = [r for r in rows if r["n"] * r["k"] >= 2 ** 26]
    bwf = statistics.median(2 * r["n"] * r["k"] / (r["latency"] * 1e-3) / bw
                            for r in big if r["m"] <= 16)
    pf = statistics.median(2 * r["m"] * r["n"] * r["k"] / (r["latency"] * 1e-3) / peak
                           for r in big if r["m"] >= 4096)
    near = []
    for r in rows:
        m = 2 * r["n"] * r["k"] / (bw * bwf)
        c = 2 * r["m"] * r["n"] * r["k"] / (peak * pf)
        if 1 / 16 <= c / m <= 16:
            near.append((m, c, r["latency"] * 1e-3))
    out = [f"{len(near)} rows near the ridge (the table's levels: {bwf:.2f} of the bandwidth, "
           f"{pf:.2f} of the bf16 peak); median |log error|: larger roofline "
           f"{median_abs(math.log(t / max(m, c)) for m, c, t in near):.3f}"]
    for p in P_GRID:
        e = median_abs(math.log(t / (LAUNCH + joined(m, c, p))) for m, c, t in near)
        out.append(f"p={p:g} + 3 us {e:.3f}")
    return "; ".join(out)


def moe(rows, g):
    gemm_f, bw_f, floor = LEVELS[g["arch"]]
    bw = g["bandwidth_bytes_per_s"] * bw_f
    rate = g["bf16_tflops"] * 1e12 * gemm_f * GROUPED
    timed = []
    for r in rows:
        if (r.get("distribution") != "balanced" or r["moe_dtype"] != "bfloat16"
                or r["moe_ep_size"] != 1 or r["num_tokens"] < 64):
            continue
        T, E, k = r["num_tokens"], r["num_experts"], r["topk"]
        per = 3 * r["hidden_size"] * r["inter_size"] / r["moe_tp_size"]
        touched = E * (1 - (1 - 1 / E) ** (T * k))
        timed.append((touched * per * 2 / bw, 2 * T * k * per / rate, r["latency"] * 1e-3))
    if not timed:
        return "no balanced rows at expert parallelism 1"
    out = [f"{len(timed)} rows"]
    for p in (None,) + P_GRID:
        e = [math.log(t / (floor + joined(m, c, p))) for m, c, t in timed]
        out.append(f"{'larger' if p is None else 'p=%g' % p} {statistics.median(e):+.2f} "
                   f"|{median_abs(e):.2f}|")
    return "; ".join(out)


def attention(rows, g):
    bw = g["bandwidth_bytes_per_s"]
    pts = []
    for r in rows:
        if r["kv_cache_dtype"] != "bfloat16" or r.get("window_size", 0) != 0:
            continue
        ctx = r["isl"] + r.get("step", 0)
        pts.append((r["batch_size"] * ctx * 2 * r["num_key_value_heads"] * r["head_dim"] * 2,
                    r["latency"] * 1e-3))
    best = min((median_abs(math.log((a * 1e-6 + (b + h * 2 ** 20) / (bw * e / 100)) / t)
                           for b, t in pts), a, e / 100, h)
               for a in range(4, 15) for e in range(70, 101, 2) for h in (0, 4, 16, 64))
    return (f"{len(pts)} rows: floor {best[1]} us, {best[2]:.2f} of the bandwidth, "
            f"{best[3]} MiB more a step (median |log error| {best[0]:.3f})")


def allreduce(rows, g):
    link = (g.get("interconnect_bytes_per_s") or 0) / 2
    if link <= 0:
        return "no NVLink in the catalog"
    pts = [(r["num_gpus"], r["message_size"] * 2, r["latency"] * 1e-3) for r in rows
           if r.get("backend") == "vllm_graph"]

    def err(alpha, eff):
        return median_abs(math.log((alpha + 2 * (n - 1) / n * b / (link * eff)) / t)
                          for n, b, t in pts)
    best = min((err(a * 1e-7, e / 100), a / 10, e / 100)
               for a in range(20, 120, 2) for e in range(30, 101, 2))
    return (f"{len(pts)} rows: alpha {best[1]:.1f} us, link efficiency {best[2]:.2f} (median "
            f"|log error| {best[0]:.3f}); attnplan's 10.2 us and 0.50: {err(10.2e-6, 0.4974):.3f}")


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = argv[1]
    names = ["h100_sxm", "h200_sxm", "b200_sxm", "a100_sxm", "l40s"]
    if "--gpus" in argv:
        names = argv[argv.index("--gpus") + 1].split(",")
    catalog = gpus()
    for name in names:
        g = catalog[CATALOG_NAME[name]]
        print(f"{name} (vLLM {RELEASE[name]}):")
        for label, op, tab, fn in (("gemm", "gemm", "gemm_perf", gemm),
                                   ("moe", "moe", "moe_perf", moe),
                                   ("attention", "attention", "generation_attention_perf",
                                    attention),
                                   ("allreduce", "comm", "custom_allreduce_perf", allreduce)):
            rows = table(root, name, op, tab)
            print(f"  {label}: {fn(rows, g) if rows else 'no table'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
