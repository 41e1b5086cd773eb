# Black-box: the third hardening round (issue 33): each defect's reproduction, with the
# documented exit code and one stderr line.
. "$(dirname "$0")/lib.sh"

# 1. toml++ recurses on dotted keys, headers and nesting: a 70 KB file overflowed the stack
# (exit 139). The pre-check bounds them, with the position.
parts=$(printf '.a%.0s' $(seq 1 40000))
printf 'a%s = 1\n' "$parts" >"$TMP/dotted.toml"
run plan "$TMP/dotted.toml"
expect_rc 65; expect_err "dotted.toml:1:"; expect_err "more than 64 parts"; expect_one_line_err
printf '[a%s]\nx = 1\n' "$parts" >"$TMP/header.toml"
run plan "$TMP/header.toml"
expect_rc 65; expect_err "more than 64 parts"; expect_one_line_err
printf 'a = %s\n' "$(printf '[%.0s' $(seq 1 100000))" >"$TMP/nested.toml"
run plan "$TMP/nested.toml"
expect_rc 65; expect_err "nest more than 64 deep"; expect_one_line_err
# The same file under the XDG catalogs directory: every command reports it, none crashes.
mkdir -p "$TMP/xdg/gpuplan/catalogs"
cp "$TMP/dotted.toml" "$TMP/xdg/gpuplan/catalogs/bad.toml"
XDG_CONFIG_HOME="$TMP/xdg" "$GPUPLAN" catalog list models >"$TMP/out" 2>"$TMP/err"
rc=$?; err=$(cat "$TMP/err")
expect_rc 65; expect_err "more than 64 parts"

# 13. A UTF-8 byte-order mark, as Windows editors write it, starts a file and is accepted.
printf '\xef\xbb\xbf[[scenario]]\nname = "a"\nparams = "1B"\ngpus = 8\n' >"$TMP/bom.toml"
run plan "$TMP/bom.toml" --format json
expect_rc 0; expect_out '"name": "a"'

finish
