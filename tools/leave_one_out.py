#!/usr/bin/env python3
"""Leave-one-out on published sweeps (issue "benchmarks in"): for every sweep of at least
MIN points on one deployment in an acceptance file (../shared/latency/attnplan-args.json, or a
held-back file of its schema), calibrate on the lowest-load point (`attnplan-cli calibrate ARGS
--ttft-ms --tpot-ms --save F`, the point's published mean TTFT and TPOT) and predict the others
(`attnplan-cli latency ARGS --calibration F --json`). Prints each sweep's errors on the points
it was not fitted on, before and after, and the medians over all sweeps.

usage: leave_one_out.py CLI ARGS.json [--min N] [--only PREFIX,...] [--cases FILE,...] [--json]
  --cases: the published cases the rows come from (../shared/latency/cases.json and
  cases-new-publishers.json): where the acceptance file compares no TTFT at the fitted point,
  its published mean TTFT is taken from there, as a user's benchmark of that point has it
  --only: the sweeps whose rows' ids start so (the issue names NIM's, GPUStack's, dstack's and
  the A10G's: --only nim-,gpustack-,dstack-,walidelkhatib- --min 2)
"""
import collections
import json
import os
import statistics
import subprocess
import sys
import tempfile

LOADS = ("--concurrent", "--requests-per-second", "--batch", "--requests")


def deployment(args):
    out, i = [], 0
    while i < len(args):
        if args[i] in LOADS:
            i += 2
            continue
        if args[i] == "--max-load":
            i += 1
            continue
        out.append(args[i])
        i += 1
    return tuple(out)


def weight(row):
    a = row["args"]
    for flag in ("--concurrent", "--requests-per-second", "--batch"):
        if flag in a:
            return float(a[a.index(flag) + 1])
    return float("inf")  # max load, a burst


def published(row, metric):
    for c in row["compare"]:
        if c["metric"] == metric:
            return c["published_ms"] / 1e3 if "published_ms" in c else c["target"]
    return None


def latency(cli, row, extra):
    run = subprocess.run([cli, "latency", *row["args"], *extra, "--json"], capture_output=True,
                         text=True)
    if run.returncode != 0:
        return None
    return json.loads(run.stdout)


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    cli, path = argv[1], argv[2]
    least = int(argv[argv.index("--min") + 1]) if "--min" in argv else 4
    only = argv[argv.index("--only") + 1].split(",") if "--only" in argv else None
    rows = json.load(open(path))["rows"]
    published_ttft = {}
    if "--cases" in argv:
        for f in argv[argv.index("--cases") + 1].split(","):
            for c in json.load(open(f)):
                if isinstance(c, dict) and c.get("ttft_ms") and c.get("ttft_stat", "mean") == "mean":
                    published_ttft[c["id"]] = c["ttft_ms"] / 1e3
    sweeps = collections.defaultdict(list)
    for r in rows:
        sweeps[deployment(r["args"])].append(r)
    errs = {"tpot": [], "throughput": []}
    before = {"tpot": [], "throughput": []}
    report = []
    tmp = tempfile.mkdtemp()
    for n, (dep, rs) in enumerate(sweeps.items()):
        if len(rs) < least:
            continue
        if only and not any(rs[0]["id"].startswith(p) for p in only):
            continue
        rs.sort(key=weight)
        first = rs[0]
        ttft, tpot = published(first, "ttft"), published(first, "tpot")
        if ttft is None:
            ttft = published_ttft.get(first["id"])
        if tpot is None:
            report.append({"sweep": first["id"], "skipped": "its lightest point publishes no TPOT"})
            continue
        cal = os.path.join(tmp, "sweep%d.json" % n)
        extra = ["--tpot-ms", repr(tpot * 1e3), "--save", cal]
        if ttft is not None:
            extra += ["--ttft-ms", repr(ttft * 1e3)]
        run = subprocess.run([cli, "calibrate", *first["args"], *extra], capture_output=True,
                             text=True)
        if run.returncode != 0:
            report.append({"sweep": first["id"], "skipped": run.stderr.strip()})
            continue
        points = []
        for r in rs[1:]:
            b, a = latency(cli, r, []), latency(cli, r, ["--calibration", cal])
            if a is None or b is None:
                points.append({"id": r["id"], "refused": True})
                continue
            p = {"id": r["id"]}
            for metric, key in (("tpot", "tpot_seconds"), ("throughput", "output_tokens_per_second")):
                want = published(r, metric)
                if want is None:
                    continue
                p[metric] = a[key] / want - 1
                p[metric + "_before"] = b[key] / want - 1
                errs[metric].append(abs(p[metric]))
                before[metric].append(abs(p[metric + "_before"]))
            points.append(p)
        report.append({"sweep": first["id"], "fitted_on": first["id"], "points": points})
    summary = {m: {"points": len(e), "median_error": statistics.median(e) if e else None,
                   "median_error_before": statistics.median(before[m]) if before[m] else None}
               for m, e in errs.items()}
    if "--json" in argv:
        print(json.dumps({"summary": summary, "sweeps": report}, indent=1))
        return 0
    for s in report:
        if "skipped" in s:
            print("  %s: skipped (%s)" % (s["sweep"], s["skipped"]))
            continue
        print("  fitted on %s" % s["fitted_on"])
        for p in s["points"]:
            if p.get("refused"):
                print("    %s: refused" % p["id"])
                continue
            print("    %s: %s" % (p["id"], ", ".join(
                "%s %+.0f%% (before %+.0f%%)" % (m, 100 * p[m], 100 * p[m + "_before"])
                for m in ("tpot", "throughput") if m in p)))
    for m, s in summary.items():
        if s["points"]:
            print("%s: %d predicted points, median |error| %.1f%% (before calibration %.1f%%)" %
                  (m, s["points"], 100 * s["median_error"], 100 * s["median_error_before"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
