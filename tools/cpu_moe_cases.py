#!/usr/bin/env python3
"""Runs the published llama.cpp runs with MoE experts in host memory (tests/data/cpu-moe/
attnplan-args.json) through `attnplan-cli latency ... --engine llama.cpp --batch 1 --json` and
compares 1 / tpot_seconds with the published generation tokens/s. Prints one line per case and
how many fall within the file's tolerance; exit 0 either way.

usage: cpu_moe_cases.py ATTNPLAN_CLI [ARGS.json]
"""
import json
import os
import subprocess
import sys


def main():
    cli = sys.argv[1]
    path = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.path.dirname(__file__), "..", "tests", "data", "cpu-moe", "attnplan-args.json")
    data = json.load(open(path))
    within = 0
    ran = 0
    shared = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared")
    for c in data["cases"]:
        model = c["args"][0]
        if model.startswith("shared:"):
            model = os.path.join(shared, model[len("shared:"):])
            if not os.path.exists(model):
                print(f"skip {c['id']}: {model} is not here (a user's clone)")
                continue
        args = [cli, "latency", model] + c["args"][1:] + ["--engine", "llama.cpp", "--input-tokens", "512",
                                                "--output-tokens", "128", "--batch", "1", "--json"]
        p = subprocess.run(args, capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            print(f"FAIL {c['id']}: {p.stderr.strip()}")
            continue
        tps = 1.0 / json.loads(p.stdout)["tpot_seconds"]
        err = tps / c["published_tg"] - 1
        ok = abs(err) <= data["tolerance"]
        within += ok
        ran += 1
        print(f"{'ok  ' if ok else 'MISS'} {c['id']}: {tps:.1f} tokens/s against "
              f"{c['published_tg']} ({err:+.1%})")
    print(f"within {data['tolerance']:.0%}: {within} of {ran} run ({len(data['cases'])} listed)")


if __name__ == "__main__":
    main()
