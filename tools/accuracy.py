#!/usr/bin/env python3
"""How far attnplan's figures fall from every public measurement the project holds (issue 38,
item 5): the engine start-up logs of ../shared/engine-logs and ../shared/engine-logs-2026 (each
case's plan from the flags and its log, tools/engine_log_cases.py) and the published latency
rows of ../shared/latency (each row's invocation as attnplan-args.json gives it,
tools/latency_args.py), grouped by engine, publisher and GPU, with the share within the
tolerance, the median error and the worst cases with their causes, as docs/ACCURACY.md.

It also writes the error bands the CLI and the app give beside each latency figure
(resources/error-bands.json, compiled in): per engine and GPU architecture, the published rows'
count, median |error| and the |error| 80% of them fall within, for TTFT (its low-load rows),
TPOT and throughput.

usage: accuracy.py CLI SHARED [--write FILE | --check FILE] [--bands JSON]
  --write: writes the page and the bands; --check: exits 1 (and prints the difference) when
  either is not what this build gives: CI's check that both are current. --bands: where the
  bands are (default resources/error-bands.json beside this tool's folder). Without ../shared (a
  user's clone) there is nothing to measure: it says so and exits 0.
"""
import difflib
import json
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# The causes of the misses this project has analysed, by the case ids they explain (a pattern
# searched in the id); a miss none matches says "not analysed".
CAUSES = [
    # Start-up logs, by case.
    ("trtllm-4275", "a TensorRT engine on the C++ runtime: its runtime and decoder buffers "
                    "are not modelled"),
    ("dgxspark", "unified memory: what the system holds outside torch (49 GiB) is not known "
                 "before the engine runs"),
    ("sglang-rtx3090", "free memory under WSL2 and Docker, below the device's"),
    ("club3090", "an MTP drafter the invocation does not name (issue 37)"),
    ("-mtp", "an MTP drafter the invocation does not name (issue 37)"),
    # Latency rows, by publisher and model.
    ("dstack-dsr1", "early-2025 engine releases (vLLM 0.7.3-0.7.4, SGLang 0.4.2-0.4.3, TensorRT-LLM 0.17); "
                    "AI Configurator's measured vLLM 0.19-0.24 kernels put a step near "
                    "attnplan's (issue 38: engines by release)"),
    ("-maxload", "a max-load run of ShareGPT lengths that vary, given to attnplan as their "
                 "means (issue 38: length distributions)"),
    ("gpt-oss-120b", "gpt-oss's MXFP4 experts: no measured table of vLLM 0.10's MXFP4 MoE "
                     "kernels (issue 38: grouped MoE GEMM by tokens per expert)"),
    ("-mi3", "AMD under ROCm, timed with efficiencies fitted on NVIDIA rows (issue 38: AMD)"),
    ("trtllm-dsr1", "attention DP and EP on TensorRT-LLM: all-to-all and load imbalance "
                    "(issue 37)"),
    ("qpsINF", "a TensorRT-LLM run at an unbounded rate: its engine's batch limit and "
               "scheduling are not stated"),
    ("walidelkhatib", "vLLM preempting under a full KV cache (its log: 98% used, 3 waiting)"),
]


def cause(case_id):
    for pattern, why in CAUSES:
        if pattern in case_id:
            return why
    return "not analysed"


def run_json(args):
    out = subprocess.run([sys.executable, *args, "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit("accuracy: %s failed: %s" % (" ".join(args), out.stderr.strip()))
    return json.loads(out.stdout)


def pct(x):
    return "-" if x is None else "%.1f%%" % (100 * x)


def table(head, rows):
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return lines


def start_up_logs(cli, shared):
    """Each gated run's largest |error| over its checks, by engine and kind of run."""
    runs = []
    for folder in ("engine-logs", "engine-logs-2026"):
        path = os.path.join(shared, folder)
        if not os.path.exists(os.path.join(path, "attnplan-args.json")):
            continue
        engines = {c["id"]: c.get("engine", "?") for c in json.load(
            open(os.path.join(path, "cases.json")))}
        for r in run_json([os.path.join(HERE, "engine_log_cases.py"), cli, path]):
            if not r["gate"]:
                continue
            errs = [abs(c["difference"]) for c in r.get("checks", [])
                    if c["difference"] is not None]
            worst = max(errs) if errs and "error" not in r else None
            runs.append({"folder": folder, "case": r["case"], "run": r["run"].split(":")[0],
                         "engine": engines.get(r["case"], "?").replace("tensorrt-llm",
                                                                         "trtllm"),
                         "error": worst, "within": r["within"]})
    return runs


def percentile(xs, q):
    """numpy's linear percentile of xs (0 <= q <= 1)."""
    xs = sorted(xs)
    at = q * (len(xs) - 1)
    lo = int(at)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (at - lo)


def gpu_arch():
    catalog = json.load(open(os.path.join(HERE, "..", "resources", "gpus.json")))
    return {g["name"]: g["arch"] for g in catalog["gpus"]}


def bands(rows):
    """The bands by engine family and GPU architecture, in a fixed order."""
    arch = gpu_arch()
    out = []
    key = lambda r: (r["engine"].split("@")[0], arch.get(r["gpu"], "?"))
    for (engine, family), rs in grouped(rows, key):
        for m in ("ttft", "tpot", "throughput"):
            errs = [abs(r["errors"][m]) for r in rs if m in r["errors"]]
            if errs:
                out.append({"engine": engine, "arch": family, "metric": m, "rows": len(errs),
                            "median_abs_error": round(statistics.median(errs), 3),
                            "p80_abs_error": round(percentile(errs, 0.8), 3)})
    return {"about": "attnplan's latency error bands: per engine and GPU architecture, how far "
                     "its figures fell from the published rows of ../shared/latency "
                     "(attnplan-args.json, each row's invocation as given). Generated by "
                     "tools/accuracy.py with docs/ACCURACY.md; do not edit.",
            "bands": out}


def latency_rows(cli, shared):
    path = os.path.join(shared, "latency", "attnplan-args.json")
    if not os.path.exists(path):
        return [], {}
    data = run_json([os.path.join(HERE, "latency_args.py"), cli, path])
    given = json.load(open(path))
    tolerance = given["tolerance"]
    sets = {r["id"]: r.get("set", "?") for r in given["rows"]}
    rows = []
    for r in data["rows"]:
        a = r["args"]
        publisher = re.sub(r"[0-9.]+$", "", r["id"].split("-")[0])
        rows.append({"id": r["id"], "publisher": publisher, "set": sets.get(r["id"], "?"),
                     "engine": a[a.index("--engine") + 1] if "--engine" in a else "vllm",
                     "gpu": a[a.index("--gpu") + 1] if "--gpu" in a else "?",
                     "errors": r["errors"]})
    return rows, tolerance


def grouped(items, key):
    groups = {}
    for it in items:
        groups.setdefault(key(it), []).append(it)
    return sorted(groups.items())


def group_line(name, rs, tol, share=False):
    """A table row: each metric's rows within tolerance of its count (with their share where
    `share`), its median |error|; with `share`, the median TPOT error in a column of its own."""
    line = [name]
    for m in ("ttft", "tpot", "throughput"):
        errs = [abs(r["errors"][m]) for r in rs if m in r["errors"]]
        if not errs:
            line.append("-")
            continue
        within = sum(e <= tol[m] for e in errs)
        line.append("%d of %d%s, median %s" % (
            within, len(errs), " (%d%%)" % round(100 * within / len(errs)) if share else "",
            pct(statistics.median(errs))))
    if share:
        errs = [abs(r["errors"]["tpot"]) for r in rs if "tpot" in r["errors"]]
        line.append(pct(statistics.median(errs)) if errs else "-")
    return line


def render(cli, shared):
    out = ["# Accuracy: attnplan against published measurements", "",
           "Generated by `python3 tools/accuracy.py CLI ../shared --write docs/ACCURACY.md` from "
           "this build; CI fails when it is stale (`tst_serve accuracyPageIsCurrent`). Every "
           "case is public and read from `../shared` (a user's clone has none: the script says "
           "so). The figures are each case's invocation as its `attnplan-args.json` gives it: "
           "what a user would type from what the case publishes, never tuned per case.", ""]
    runs = start_up_logs(cli, shared)
    out += ["## Memory: engine start-up logs", "",
            "A run is within when every figure it checks (KV tokens, KV bytes, concurrency) is "
            "within 5% of the log's. `plan`: from the flags alone, before the engine runs; "
            "`log`: from the log's own text.", ""]
    rows = []
    for (engine, kind), rs in grouped(runs, lambda r: (r["engine"], r["run"])):
        errs = [r["error"] for r in rs if r["error"] is not None]
        rows.append([engine, kind, len(rs), sum(r["within"] for r in rs),
                     pct(statistics.median(errs)) if errs else "-"])
    out += table(["engine", "run", "runs", "within 5%", "median error"], rows)
    misses = sorted((r for r in runs if not r["within"]),
                    key=lambda r: -(r["error"] if r["error"] is not None else 1e9))
    out += ["", "Misses, largest first:", ""]
    out += table(["case", "run", "error", "cause"],
                 [[r["case"], r["run"], pct(r["error"]) if r["error"] is not None else "refused",
                   cause(r["case"])] for r in misses]) if misses else ["None."]
    rows_, tol = latency_rows(cli, shared)
    out += ["", "## Speed: published latency and throughput rows", "",
            "Each row's TTFT, TPOT and output tokens a second against the published figure: "
            "within %s (TTFT, its low-load rows), %s (TPOT) and %s (throughput)." % tuple(
                "%d%%" % round(100 * tol.get(m, 0)) for m in ("ttft", "tpot", "throughput")),
            ""]
    # Issue 38's groups: each file of rows on its own (at least 80% of TPOTs and throughputs
    # within 25% and of low-load TTFTs within 35%, a median TPOT error of at most 15%).
    body = []
    for name, rs in grouped(rows_, lambda r: r["set"]):
        body.append(group_line(name, rs, tol, True))
        if any(r["publisher"] == "dstack" for r in rs):
            body.append(group_line(name + " less dstack's early-2025 runs",
                                   [r for r in rs if r["publisher"] != "dstack"], tol, True))
    out += ["### By set", ""] + table(["set", "TTFT", "TPOT", "throughput",
                                       "median TPOT error"], body) + [""]
    for title, key in (("By engine", lambda r: r["engine"]),
                       ("By publisher", lambda r: r["publisher"]),
                       ("By GPU", lambda r: r["gpu"])):
        body = [group_line(name, rs, tol) for name, rs in grouped(rows_, key)]
        out += ["### " + title, ""] + table([title.split()[-1], "TTFT", "TPOT", "throughput"],
                                            body) + [""]
    worst = []
    for r in rows_:
        for m, e in r["errors"].items():
            if abs(e) > tol[m]:
                worst.append((abs(e), r["id"], m, e))
    worst.sort(key=lambda w: (-w[0], w[1], w[2]))
    out += ["Outside the tolerance, the twelve largest (of %d):" % len(worst), ""]
    out += table(["row", "figure", "error", "cause"],
                 [[w[1], w[2], "%+.0f%%" % (100 * w[3]), cause(w[1])] for w in worst[:12]])
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    cli, shared = argv[1], argv[2]
    if not os.path.isdir(os.path.join(shared, "latency")):
        print("accuracy: %s holds no cases (a user's clone): nothing to measure" % shared)
        return 0
    page = render(cli, shared)
    band_path = (argv[argv.index("--bands") + 1] if "--bands" in argv
                 else os.path.join(HERE, "..", "resources", "error-bands.json"))
    band_text = json.dumps(bands(latency_rows(cli, shared)[0]), indent=1) + "\n"
    if "--write" in argv:
        open(argv[argv.index("--write") + 1], "w").write(page)
        open(band_path, "w").write(band_text)
        return 0
    if "--check" in argv:
        path = argv[argv.index("--check") + 1]
        stale = False
        for have_path, want in ((path, page), (band_path, band_text)):
            have = open(have_path).read() if os.path.exists(have_path) else ""
            if have != want:
                sys.stdout.writelines(difflib.unified_diff(
                    have.splitlines(True), want.splitlines(True), have_path, "this build"))
                stale = True
        if stale:
            print("accuracy: stale: python3 tools/accuracy.py CLI ../shared --write %s" % path)
            return 1
        return 0
    sys.stdout.write(page)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
