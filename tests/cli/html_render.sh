# SPDX-License-Identifier: Apache-2.0
# The HTML report in a real browser: chromium renders it headless to PNG and the image must be
# a real page (a PNG of some size, not an error page). Skipped (exit 77) where chromium is absent;
# scripts/bootstrap installs it for the test job (GPUPLAN_WITH_BROWSER=1, as .ci/run does).
. "$(dirname "$0")/lib.sh"

browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ]; then
  echo "skip: no chromium"
  exit 77
fi
# The university cluster (a failed constraint: exit 3) and the campus assistant (self-host, rent
# or pay an API: exit 0).
for case in "university-cluster 3" "campus-assistant 0"; do
  set -- $case
  run plan "$SRC/examples/$1.toml" --format html -o "$TMP/report.html"
  [ "$rc" -eq "$2" ] || fail "$1: plan exited $rc: $err"
  grep -q '<svg' "$TMP/report.html" || fail "no inline SVG chart"
  grep -qE 'src="http|href="http|<script' "$TMP/report.html" && fail "the page is not self-contained"
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1200,2400 \
    --screenshot="$TMP/report.png" "file://$TMP/report.html" >"$TMP/browser.log" 2>&1
  [ -s "$TMP/report.png" ] || fail "chromium wrote no PNG: $(tail -3 "$TMP/browser.log")"
  [ "$(head -c 8 "$TMP/report.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "not a PNG"
  size=$(wc -c <"$TMP/report.png")
  [ "$size" -gt 40000 ] || fail "the rendered page is suspiciously small ($size bytes): blank or an error page"
  rm -f "$TMP/report.png" "$TMP/report.html"
done
finish
