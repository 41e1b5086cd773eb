#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The web page gives the CLI's numbers: a dozen commands run by the native binary and by the web
# build's gpuplan.js (under node, as the page runs it) must agree on the exit code, the error
# and warning lines, and every JSON value (numbers to 1e-9 relative: the two C libraries' libm
# may differ in a last bit).
#   tests/web/compare.sh build/gpuplan build-web/web/gpuplan.js SOURCE_DIR
set -u
native=$1 js=$2 src=$3
command -v node >/dev/null || { echo "skip: no node"; exit 77; }
[ -f "$js" ] || { echo "skip: no web build at $js"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/cmds" <<CMDS
train	--model	llama-3.1-8b	--gpu	h100-sxm	--gpus	64	--tokens	1T	--format	json
train	--model	deepseek-v3	--gpu	h100-sxm	--weeks	8	--format	json
train	--model	llama-3.1-8b	--gpu	a100-80gb	--gpus	64	--tokens	1T	--days	30	--format	json
infer	--model	llama-3.1-8b	--gpu	rtx-4090	--quant	q4_k_m	--runtime	llama.cpp	--format	json
infer	--model	qwen3-32b	--gpu	apple-m4-max-36gb	--quant	q8_0	--format	json
infer	--model	llama-3.1-70b	--gpu	h100-sxm	--rate	20	--ttft	2s	--tpot	100ms	--format	json
infer	--model	qwen3-8b	--gpu	h100-sxm	--quant	fp8	--users	16	--think-time	0	--gpus	1	--format	json
infer	--model	deepseek-r1	--gpu	h200	--gpus	8	--tp	8	--quant	fp8	--runtime	sglang	--users	64	--think-time	0	--format	json
power	--gpu	h100-sxm	--gpus	1024	--format	json
memory	--model	llama-3.1-70b	--gpu	h100-sxm	--gpus	8	--format	json
plan	$src/examples/campus-chatbot.toml	--format	json
plan	$src/examples/university-cluster.toml	--format	json
infer	--model	no-such-model	--gpu	h100-sxm
train	--model	llama-3.1-8b	--gpu	h100-sxm	--tokens	-5
CMDS
node "$src/tests/web/run.js" "$js" "$tmp/cmds" >"$tmp/web.json" || { echo "FAIL: the web build did not run"; exit 1; }
python3 - "$native" "$tmp/cmds" "$tmp/web.json" <<'PY'
import json, math, subprocess, sys
native, cmds, web = sys.argv[1], sys.argv[2], sys.argv[3]
answers = json.load(open(web))
lines = [l for l in open(cmds).read().split("\n") if l]
fails = 0

def same(a, b, where):
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return f"{where}: keys differ: {sorted(set(a) ^ set(b))}"
        for k in a:
            if k == "tool":  # the version line names each build's commit
                continue
            d = same(a[k], b[k], f"{where}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{where}: {len(a)} items against {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = same(x, y, f"{where}[{i}]")
            if d:
                return d
        return None
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        if a == b or abs(a - b) <= 1e-9 * max(abs(a), abs(b)):
            return None
        return f"{where}: {a} against {b}"
    return None if a == b else f"{where}: {a!r} against {b!r}"

for line, w in zip(lines, answers):
    args = line.split("\t")
    n = subprocess.run([native] + args, capture_output=True, text=True)
    shown = " ".join(args[:6])
    problem = None
    if n.returncode != w["rc"]:
        problem = f"exit {n.returncode} against the page's {w['rc']}"
    elif n.stderr.rstrip("\n") != w["err"]:
        problem = f"stderr differs: {n.stderr.strip()!r} against {w['err']!r}"
    elif "--format" in args and n.stdout.strip():
        try:
            problem = same(json.loads(n.stdout), json.loads(w["out"]), "$")
        except json.JSONDecodeError as e:
            problem = f"not JSON: {e}"
    elif n.stdout.rstrip("\n") != w["out"]:
        problem = "stdout differs"
    if problem:
        fails += 1
        print(f"FAIL: gpuplan {shown}: {problem}")
print(f"{len(lines) - fails} of {len(lines)} commands agree")
sys.exit(1 if fails else 0)
PY
