#!/usr/bin/env python3
"""model/'s include graph, checked: every include runs down a floor, and no circle.

usage: check_includes.py SOURCE_DIR [--graph]

model/ is in wings (README, "Layout"), each on a floor; a file may include its own wing and
wings on lower floors, never one on its own floor or above. Units are a .h with its .cpp (so
A.cpp including B.h while B.cpp includes A.h is a circle). Every include names its wing
("serve/GpuCatalog.h"): model/ is the only include root. At most six source files may stay
loose at model/'s top. README's Layout section must list every wing, so the two cannot drift. Outside
model/engines/, no code of model/ or app/ names a serving engine (comments, strings and includes
aside): the engines are one table, and everything else loops over it.

Exit 0 clean, 1 with each arrow up, circle or unplaced file named.
"""
import os
import re
import sys

# floor, wing, what lives there. One place: README's Layout table says the same.
WINGS = [
    (1, "base", "checked arithmetic, Expected, units, JSON files with limits, field readers, catalogs' user files, embedded resources"),
    (2, "spec", "ModelSpec and the exact math: parameters, weight bytes, KV and state per token and sequence, FLOPs, dtypes"),
    (3, "read", "config.json by family, safetensors, GGUF, the Hugging Face cache, the bundled configs, start-up logs"),
    (3, "price", "price catalog (ours and LiteLLM's), prompt layouts, caching rules per provider"),
    (4, "serve", "GPU catalog, deployment inputs, memory estimates, the roofline and the serving-load model"),
    (5, "engines", "one folder per engine (vllm, sglang, trtllm, llamacpp) with its cited release rows; capacity and plans over them"),
    (5, "kernels", "the live attention kernels, the benchmark and its calibration"),
    (6, "report", "Scenario, Report and the one JSON schema"),
    (7, "lesson", "the seed lesson's worked views"),
]
MAX_LOOSE = 6
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
ENGINE_NAME = re.compile(r"vllm|sglang|trtllm|tensorrt|llamacpp|llama_cpp|llamaserver|llama_server", re.I)
# Comments, string and character literals (raw strings too), blanked to spaces.
NOT_CODE = re.compile(r'//[^\n]*|/\*.*?\*/|R"\((?:.|\n)*?\)"|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def engine_names(src):
    """Lines of code outside model/engines/ that name an engine."""
    found = []
    for top in ("model", "app"):
        for d, _, names in os.walk(os.path.join(src, top)):
            rel = os.path.relpath(d, src)
            if rel == "model/engines" or rel.startswith("model/engines/"):
                continue
            for n in sorted(names):
                if not n.endswith((".h", ".cpp")):
                    continue
                path = os.path.join(d, n)
                code = NOT_CODE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)),
                                    open(path, encoding="utf-8").read())
                for i, line in enumerate(code.split("\n"), 1):
                    if not line.lstrip().startswith("#include") and ENGINE_NAME.search(line):
                        found.append(f"{os.path.relpath(path, src)}:{i}: names an engine in code "
                                     f"outside model/engines/: {line.strip()[:80]}")
    return found


def main():
    src = sys.argv[1]
    model = os.path.join(src, "model")
    floor = {w: f for f, w, _ in WINGS}
    problems = []

    files = []
    for d, _, names in os.walk(model):
        for n in names:
            if n.endswith((".h", ".cpp", ".cpp.in")):
                files.append(os.path.relpath(os.path.join(d, n), model))
    files.sort()
    known = set(files)

    loose = [f for f in files if "/" not in f]
    if len(loose) > MAX_LOOSE:
        problems.append(f"{len(loose)} loose files at model/'s top (at most {MAX_LOOSE}): {loose}")
    for f in files:
        wing = f.split("/")[0]
        if "/" in f and wing not in floor:
            problems.append(f"model/{f}: {wing}/ is not a wing (tests/check_includes.py WINGS)")

    def unit(path):
        for ext in (".cpp.in", ".cpp", ".h"):
            if path.endswith(ext):
                return path[: -len(ext)]
        return path

    edges = {}
    up = 0
    for f in files:
        text = open(os.path.join(model, f), encoding="utf-8").read()
        wing = f.split("/")[0] if "/" in f else None
        for target in INCLUDE.findall(text):
            if target not in known:
                # A header beside the build (generated) is fine; a relative or unrooted path is not.
                if target.startswith("..") or "/" not in target:
                    problems.append(f"model/{f}: #include \"{target}\" does not name its wing")
                continue
            twing = target.split("/")[0]
            if wing and twing != wing and floor.get(twing, 99) >= floor.get(wing, 0):
                up += 1
                problems.append(
                    f"model/{f} (floor {floor[wing]}, {wing}) includes {target} "
                    f"(floor {floor.get(twing)}, {twing}): an arrow up or sideways")
            a, b = unit(f), unit(target)
            if a != b:
                edges.setdefault(a, set()).add(b)

    # Circles among units: Tarjan's strongly connected components.
    index, low, stack, on, comps = {}, {}, [], set(), []
    counter = [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(set(edges) | {u for s in edges.values() for u in s}):
        if v not in index:
            strong(v)
    for c in comps:
        problems.append("a circle: " + " <-> ".join(c))

    readme = open(os.path.join(src, "README.md"), encoding="utf-8").read()
    layout = readme.split("## Layout", 1)[1] if "## Layout" in readme else ""
    for _, w, _ in WINGS:
        if not re.search(r"model/" + w + r"/", layout):
            problems.append(f"README's Layout section does not list model/{w}/")

    named = engine_names(src)
    problems += named

    if "--graph" in sys.argv:
        for a in sorted(edges):
            for b in sorted(edges[a]):
                print(f"{a} -> {b}")
    wings_used = sorted({f.split('/')[0] for f in files if '/' in f})
    for p in problems:
        print("FAIL: " + p, file=sys.stderr)
    print(f"{len(files)} files in {len(wings_used)} wings, {len(loose)} loose; "
          f"{up} arrows up, {len(comps)} circles, {len(named)} engine names outside engines/")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
