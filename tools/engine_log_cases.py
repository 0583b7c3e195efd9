#!/usr/bin/env python3
"""Runs the acceptance check of ../shared/engine-logs-2026 (issue 36): for every case of
attnplan-args.json, the `plan` runs (`attnplan-cli capacity MODEL ARGS --json`) and the `log` run
(`attnplan-cli log raw/FILE [--model M] --json`), each check's prediction against the logged
figure of cases.json, within the file's tolerance. Prints one line per run and a summary of the
gated ones; exit 0 either way (the figures are the answer; tests decide what to assert).

The earlier logs' folder (../shared/engine-logs: cases carry `runs` of flags alone, models
'configs/X', 'bundled:NAME', 'shared:PATH' or 'inline:NAME' from the file's inline_configs) runs
the same way: each run is `capacity MODEL ARGS --json`.

usage: engine_log_cases.py ATTNPLAN_CLI SHARED_ENGINE_LOGS_DIR [--json]
"""
import json
import math
import os
import subprocess
import sys
import tempfile


INLINE = tempfile.mkdtemp(prefix="attnplan-inline-")


def model_path(folder, model, inline=None):
    if model.startswith("bundled:"):
        return model[len("bundled:"):]
    if model.startswith("inline:"):
        name = model[len("inline:"):]
        path = os.path.join(INLINE, name)
        os.makedirs(path, exist_ok=True)
        with open(os.path.join(path, "config.json"), "w") as f:
            entry = (inline or {})[name]
            json.dump(entry.get("config", entry), f)
        return path
    if model.startswith("shared:"):
        return os.path.join(folder, "..", model[len("shared:"):])
    if model.startswith("configs/"):
        return os.path.join(folder, model)
    return model


def run(cli, args):
    p = subprocess.run([cli] + args, capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        return None, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "exit %d" % p.returncode
    try:
        return json.loads(p.stdout), None
    except ValueError:
        return None, "not JSON"


def evaluate(expr, reply):
    scope = {k: v for k, v in reply.items() if isinstance(v, (int, float))}
    scope["math"] = math
    try:
        return float(eval(expr, {"__builtins__": {}}, scope))  # expressions are the shared file's
    except Exception as e:  # a key the reply lacks
        return None


def main():
    cli, folder = sys.argv[1], sys.argv[2]
    as_json = "--json" in sys.argv
    args = json.load(open(os.path.join(folder, "attnplan-args.json")))
    cases = {c["id"]: c for c in json.load(open(os.path.join(folder, "cases.json")))}
    tolerance = args.get("tolerance", 0.05)
    results = []
    for case in args["cases"]:
        facts = cases[case["id"]]
        logged = facts["logged"]
        runs = []
        plan = case.get("plan") or {}
        if "runs" in case:  # the earlier logs' schema: flags alone, the model beside them
            plan = {"model": model_path(folder, case["model"], args.get("inline_configs")),
                    "runs": case["runs"]}
        for r in plan.get("runs", []) if "model" in plan else []:
            runs.append(("plan:" + r["name"], ["capacity", plan["model"] if "runs" in case
                                                   else model_path(folder, plan["model"])] +
                         r["args"] + ["--json"], r["checks"]))
        log = case.get("log")
        if log is not None and "checks" in log:
            raw = facts["raw_file"]
            raw = raw if raw.startswith("raw/") else os.path.join("raw", raw)
            a = ["log", os.path.join(folder, raw), "--json"]
            if log.get("model"):
                a += ["--model", model_path(folder, log["model"])]
            runs.append(("log", a, log["checks"]))
        for name, a, checks in runs:
            reply, error = run(cli, a)
            row = {"case": case["id"], "run": name, "gate": case.get("gate", True), "checks": []}
            if reply is None:
                row["error"] = error
            else:
                for c in checks:
                    want = logged.get(c["logged"])
                    scale = c.get("logged_scale", 1)
                    got = evaluate(c["predicted"], reply)
                    diff = (got / (want * scale) - 1) if isinstance(got, (int, float)) and \
                        isinstance(want, (int, float)) and want else None
                    row["checks"].append({"what": c["what"], "logged": want, "predicted": got,
                                          "difference": diff})
            row["within"] = "error" not in row and all(
                x["difference"] is not None and abs(x["difference"]) <= tolerance
                for x in row["checks"])
            results.append(row)
    if as_json:
        print(json.dumps(results, indent=1))
        return
    for r in results:
        tag = "ok  " if r["within"] else "MISS"
        detail = r.get("error") or ", ".join(
            "%s %s" % (c["what"], "n/a" if c["difference"] is None else "%+.1f%%" % (100 * c["difference"]))
            for c in r["checks"])
        print("%s %s%s %s: %s" % (tag, "" if r["gate"] else "(ungated) ", r["case"], r["run"], detail))
    gated = [r for r in results if r["gate"]]
    print("gated runs within %.0f%%: %d of %d" % (100 * tolerance, sum(r["within"] for r in gated),
                                                len(gated)))


if __name__ == "__main__":
    main()
