#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The web page in a real browser: headless chromium opens build-web/web/index.html from disk with
# a query in the URL's fragment (as a shared link carries it), and the page must answer it with
# the planner's output, show the one-line error for a bad input, and render a plan's HTML report.
#   tests/web/browser.sh build-web/web SOURCE_DIR
set -u
web=$1 src=$2
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$browser" ] || { echo "skip: no chromium"; exit 77; }
[ -f "$web/index.html" ] && [ -f "$web/gpuplan.js" ] || { echo "skip: no web build in $web"; exit 77; }
fails=0
page() {  # the DOM after the page has run the query in its fragment
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --virtual-time-budget=30000 --dump-dom \
    "file://$(cd "$web" && pwd)/index.html#$1" 2>/dev/null
}
check() {  # NAME FRAGMENT TEXT...: the page shows every TEXT
  local name=$1 fragment=$2 dom
  shift 2
  dom=$(page "$fragment")
  for want in "$@"; do
    if ! grep -qF -- "$want" <<<"$dom"; then
      echo "FAIL: $name: the page lacks '$want'"
      fails=$((fails + 1))
    fi
  done
}
check "local inference" "cmd=local&model=llama-3.1-8b&gpu=rtx-4090&quant=q4_k_m&runtime=llama.cpp&format=json" \
  'data-exit="0"' '"decode_tokens_per_s":' 'gpuplan infer --model llama-3.1-8b --gpu rtx-4090'
check "training" "cmd=train&model=llama-3.1-8b&gpu=h100-sxm&gpus=64&tokens=1T&format=table" 'data-exit="0"' 'wall clock' 'GPU-hours'
check "a bad input" "cmd=local&model=no-such-model&gpu=rtx-4090" 'data-exit="2"' "gpuplan: error: unknown model 'no-such-model'"
plan=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(open(sys.argv[1]).read()))' "$src/examples/campus-chatbot.toml")
check "a plan's report" "cmd=plan&format=html&plan=$plan" 'data-exit="0"' 'srcdoc="&lt;!DOCTYPE html&gt;' '&lt;svg'
[ "$fails" -eq 0 ] && echo "the page answers in chromium" || exit 1
