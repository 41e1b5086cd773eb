# SPDX-License-Identifier: Apache-2.0
# Helpers for black-box tests of the real binary. Each test script is run by ctest as
#   bash tests/cli/NAME.sh /path/to/gpuplan /path/to/source
# and sources this file. A failed expectation prints what differed and exits 1.
set -u
GPUPLAN="$1"
SRC="$2"
GOLDEN="$SRC/tests/golden"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export HOME="$TMP/home" XDG_CONFIG_HOME="$TMP/config" XDG_DATA_DIRS="$TMP/data"
unset GPUPLAN_CATALOG_PATH
failures=0

# run ARGS...: runs gpuplan, leaving $out, $err and $rc.
run() {
  "$GPUPLAN" "$@" >"$TMP/out" 2>"$TMP/err"
  rc=$?
  out=$(cat "$TMP/out")
  err=$(cat "$TMP/err")
}
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
expect_rc() { [ "$rc" -eq "$1" ] || fail "expected exit $1, got $rc (stderr: $err)"; }
expect_out() { grep -qF -- "$1" "$TMP/out" || fail "stdout lacks '$1'"; }
expect_err() { grep -qF -- "$1" "$TMP/err" || fail "stderr lacks '$1' (stderr: $err)"; }
expect_no_out() { [ -z "$out" ] || fail "stdout should be empty, got: ${out:0:200}"; }
expect_one_line_err() { [ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "stderr should be one line, got: $err"; }
# bad CODE MESSAGE ARGS...: exit CODE, one stderr line containing MESSAGE, no stdout.
bad() {
  local want_rc="$1" want="$2"; shift 2
  run "$@"; expect_rc "$want_rc"; expect_err "$want"; expect_no_out; expect_one_line_err
}
# A misspelt helper must fail the script, not pass in silence. Bash runs this for a name it cannot
# find, in a subshell: the mark is a file that finish counts.
command_not_found_handle() { echo "FAIL: command not found: $1" >&2; echo "$1" >>"$TMP/not-found"; return 127; }
# golden NAME: stdout must equal tests/golden/NAME (regenerate with GPUPLAN_UPDATE_GOLDEN=1).
# Reports name the tool as "gpuplan X.Y.Z (COMMIT)"; goldens keep "gpuplan X.Y.Z (commit)" so
# that they do not change with every commit.
golden() {
  sed -E 's/(gpuplan [0-9]+\.[0-9]+\.[0-9]+) \([^)]*\)/\1 (commit)/g' "$TMP/out" >"$TMP/out.golden"
  if [ "${GPUPLAN_UPDATE_GOLDEN:-0}" = 1 ]; then cp "$TMP/out.golden" "$GOLDEN/$1"; return; fi
  diff -u "$GOLDEN/$1" "$TMP/out.golden" >"$TMP/diff" || { fail "golden $1 differs"; head -40 "$TMP/diff" >&2; }
}
finish() {
  [ -f "$TMP/not-found" ] && failures=$((failures + $(wc -l <"$TMP/not-found")))
  [ "$failures" -eq 0 ] || { echo "$failures failure(s)" >&2; exit 1; }
  echo "ok"
}
