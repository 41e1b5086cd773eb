# SPDX-License-Identifier: Apache-2.0
# Black-box: catalog queries, formats, exit codes and golden outputs.
. "$(dirname "$0")/lib.sh"

run --version
expect_rc 0; expect_out "gpuplan 0.22.0 ("
run -V
expect_rc 0; expect_out "gpuplan 0.22.0 ("
# The man page's header names the same version (it had fallen six behind).
version=$(sed -E 's/^gpuplan ([0-9.]+) .*/\1/' "$TMP/out")
grep -q "^\.TH GPUPLAN 1 [0-9-]* \"gpuplan $version\"" "$SRC/man/gpuplan.1" || fail "man/gpuplan.1 .TH does not name gpuplan $version"
# gpuplan help CMD [SUB] is that command's --help; a misspelt one is a usage error with a suggestion.
run help train
expect_rc 0; expect_out "Fastest layout, step time and time to train"; expect_out "--gpus"
run help catalog list
expect_rc 0; expect_out "List the records of one kind"
bad 2 "no command 'trian' to show help for; did you mean train?" help trian
# catalog list alone: the kinds and how many records each holds.
run catalog list --format json
expect_rc 0; expect_out '"kind": "accelerators"'; expect_out '"kind": "storage"'; expect_out '"records":'
run --help
expect_rc 0; expect_out "catalog"
run
expect_rc 2; expect_no_out
run --bogus
expect_rc 2; expect_err "gpuplan: error:"

run catalog list accelerators
expect_rc 0; expect_out "h100-sxm"; expect_out "NVIDIA H100 SXM5 80GB"
[ -z "$err" ] || fail "catalog list wrote to stderr: $err"
run catalog list models --format csv
expect_rc 0; expect_out "id,name,params_total"
golden catalog-list-models.csv
run catalog list accelerators --format json
expect_rc 0
[ "$(grep -c '"source":' "$TMP/out")" -ge 35 ] || fail "json listing lacks 35 sourced records"

run catalog show h100-sxm --format json
expect_rc 0; golden catalog-show-h100-sxm.json
run catalog show llama-3.1-70b --format json
expect_rc 0; golden catalog-show-llama-3.1-70b.json
run catalog show hyperscale --format csv
expect_rc 0; golden catalog-show-hyperscale.csv
run catalog show h100-smx
expect_rc 2; expect_err "did you mean h100-sxm?"; expect_no_out; expect_one_line_err
run catalog list gpus
expect_rc 2; expect_err "unknown catalog kind 'gpus'"
run catalog list accelerators --format yaml
expect_rc 2; expect_err "--format 'yaml' is not a format"; expect_no_out

# catalog check: valid, invalid (65, file:line:col), unreadable (66)
cat >"$TMP/quote.toml" <<'TOML'
[accelerators.my-quote]
name = "Quoted card"
vendor = "Acme"
family = "hopper"
memory_bytes = "96GB"
memory_bw_bytes_per_s = "4TB/s"
bf16_flops_per_s = "1000T"
tdp_w = "800W"
launch_year = 2025
source = "vendor quote"
TOML
run catalog check "$TMP/quote.toml"
expect_rc 0; expect_out "ok"
printf '[accelerators.h100-sxm]\nmemory_bytes = "80 GB/s"\ntdp = 700\n' >"$TMP/bad.toml"
run catalog check "$TMP/bad.toml"
expect_rc 65
expect_err "$TMP/bad.toml:2:16: error: 'memory_bytes': '80 GB/s' has an unknown unit"
expect_err "$TMP/bad.toml:3:1: error: unknown key 'tdp' in accelerator 'h100-sxm'; did you mean 'tdp_w'?"
printf '[models\n' >"$TMP/syntax.toml"
run catalog check "$TMP/syntax.toml"
expect_rc 65; expect_err "$TMP/syntax.toml:1:"
run catalog check "$TMP/missing.toml"
expect_rc 66; expect_err "cannot read catalog"; expect_one_line_err

# Overrides: --catalog and GPUPLAN_CATALOG_PATH change a field; later wins.
printf '[accelerators.h100-sxm]\ntdp_w = "650W"\n' >"$TMP/o1.toml"
printf '[accelerators.h100-sxm]\ntdp_w = "600W"\n' >"$TMP/o2.toml"
GPUPLAN_CATALOG_PATH="$TMP/o1.toml" run catalog show h100-sxm --format json --catalog "$TMP/o2.toml"
expect_rc 0; expect_out '"tdp_w": 600'
GPUPLAN_CATALOG_PATH="$TMP/o1.toml" run catalog show h100-sxm --format json
expect_out '"tdp_w": 650'
mkdir -p "$XDG_CONFIG_HOME/gpuplan/catalogs"
cp "$TMP/o1.toml" "$XDG_CONFIG_HOME/gpuplan/catalogs/"
run catalog paths
expect_rc 0; expect_out "XDG_CONFIG_HOME"; expect_out "yes"
run catalog show h100-sxm --format json
expect_out '"tdp_w": 650'
run catalog show h100-sxm --catalog "$TMP/missing.toml"
expect_rc 66
# XDG_DATA_HOME sits between the system data directories and XDG_CONFIG_HOME.
printf '[accelerators.h100-sxm]\ntdp_w = "640W"\n' >"$TMP/o3.toml"
mkdir -p "$TMP/data-home/gpuplan/catalogs" && cp "$TMP/o3.toml" "$TMP/data-home/gpuplan/catalogs/"
XDG_DATA_HOME="$TMP/data-home" run catalog paths --format json
expect_out '"origin": "XDG_DATA_HOME"'
rm "$XDG_CONFIG_HOME/gpuplan/catalogs/o1.toml"
XDG_DATA_HOME="$TMP/data-home" run catalog show h100-sxm --format json
expect_out '"tdp_w": 640'

# Aliases: Ollama's tags and short chip names find the record, which the answer names by its id.
run memory --model llama3.1:8b --gpu m3-max --mode infer --format json
expect_rc 0; expect_out '"model": "llama-3.1-8b"'; expect_out '"gpu": "apple-m3-max"'
finish
