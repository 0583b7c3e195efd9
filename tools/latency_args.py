#!/usr/bin/env python3
"""The project's latency acceptance check: every row of ../shared/latency/attnplan-args.json
(or a held-back file of the same schema) run as `attnplan-cli latency ARGS --json` and compared
as the row's `compare` says: ttft and tpot against published_ms, throughput against target
(published x scale, for the whole deployment). Prints per-metric shares within the file's
tolerance, the median error, and each row's figures with --rows.

usage: latency_args.py CLI ARGS.json [--rows] [--json]
"""
import json
import statistics
import subprocess
import sys


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    cli, path = argv[1], argv[2]
    data = json.load(open(path))
    tol = data["tolerance"]
    errors = {"ttft": [], "tpot": [], "throughput": []}
    rows, refused, detail = [], [], []
    for row in data["rows"]:
        run = subprocess.run([cli, "latency", *row["args"], "--json"], capture_output=True,
                             text=True)
        if run.returncode != 0:
            refused.append((row["id"], run.stderr.strip().splitlines()[-1:] or ["?"]))
            for c in row["compare"]:
                errors[c["metric"]].append(None)
            continue
        out = json.loads(run.stdout)
        line = [row["id"]]
        per = {}
        for c in row["compare"]:
            got = out[c["key"]]
            want = c["published_ms"] / 1e3 if "published_ms" in c else c["target"]
            err = got / want - 1
            errors[c["metric"]].append(err)
            per[c["metric"]] = err
            line.append("%s %+.0f%%" % (c["metric"], 100 * err))
        rows.append(line)
        detail.append({"id": row["id"], "args": row["args"], "errors": per})
    summary = {}
    for metric, errs in errors.items():
        if not errs:
            continue
        t = tol[metric]
        ok = sum(1 for e in errs if e is not None and abs(e) <= t)
        given = [abs(e) for e in errs if e is not None]
        summary[metric] = {"rows": len(errs), "within": ok, "tolerance": t,
                           "median_error": statistics.median(given) if given else None,
                           "refused": sum(1 for e in errs if e is None)}
    if "--json" in argv:
        print(json.dumps({"summary": summary, "refused": refused, "rows": detail}, indent=1))
        return 0
    if "--rows" in argv:
        for line in rows:
            print("  " + ", ".join(line))
    for rid, why in refused:
        print("  refused %s: %s" % (rid, why[0]))
    for metric, s in summary.items():
        med = "%.1f%%" % (100 * s["median_error"]) if s["median_error"] is not None else "-"
        print("%s: %d/%d within %d%% (%d refused), median |error| %s" %
              (metric, s["within"], s["rows"], round(100 * s["tolerance"]), s["refused"], med))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
