# SPDX-License-Identifier: Apache-2.0
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

# 2. Contradictory model records (more dense layers than layers gave negative weights and a
# passing plan; more active experts than experts; KV heads that do not divide the heads): each
# refused where it loads, and by catalog check, with the field named (exit 65).
model() {
  printf '[models.bad]\nname = "bad"\nsource = "test"\nlayers = 2\nhidden = 4096\nheads = 32\nffn = 11008\nvocab = 32000\n'
  printf 'activation = "swiglu"\nnorm = "rmsnorm"\ntied_embeddings = false\nmax_context = 4096\nparams_total = "7B"\n%s\n' "$1"
}
model $'experts = 8\nactive_experts = 2\ndense_layers = 10' >"$TMP/m1.toml"
model $'experts = 8\nactive_experts = 9' >"$TMP/m2.toml"
model 'kv_heads = 5' >"$TMP/m3.toml"
model $'linear_layers = 2\nlinear_params = "30M"' >"$TMP/m4.toml"  # no state, and no attention layer left
model 'sparse_topk = 2048' >"$TMP/m5.toml"  # sparse attention with no indexer
model 'indexer_dim = 128' >"$TMP/m6.toml"   # an indexer with no top-k
for f in m1:dense_layers m2:active_experts m3:kv_heads m4:linear_layers m5:sparse_topk m6:indexer_dim; do
  run catalog check "$TMP/${f%%:*}.toml"
  expect_rc 65; expect_err "model 'bad': ${f#*:}"
  run infer --model bad --catalog "$TMP/${f%%:*}.toml"
  expect_rc 65; expect_err "${f#*:}"
done
# 3. Contradictory power records: a server of 1,000 H100 at 100 W, an idle draw above TDP.
printf '[servers.tiny]\nname = "t"\nsource = "test"\naccelerator = "h100-sxm"\ndevices = 1000\nmax_power_w = "100W"\n' >"$TMP/s1.toml"
run catalog check "$TMP/s1.toml"
expect_rc 65; expect_err "server 'tiny': max_power_w"; expect_one_line_err
printf '[accelerators.h100-sxm]\nidle_w = "800W"\n' >"$TMP/a1.toml"
run power --gpus 8 --catalog "$TMP/a1.toml"
expect_rc 65; expect_err "accelerator 'h100-sxm': idle_w"; expect_one_line_err

# 6. A scenario of devices with no link between them fails alone (exit 3) with the reason; the
# good scenario beside it is still reported.
printf '[defaults]\nmodel = "llama-3.1-8b"\ntokens = "1B"\n[[scenario]]\nname = "mac"\ngpu = "apple-m3-max"\ngpus = 2\n[[scenario]]\nname = "h100"\ngpu = "h100-sxm"\ngpus = 8\n' >"$TMP/mac.toml"
run plan "$TMP/mac.toml" --format json
expect_rc 3; expect_out "no interconnect between the devices"; expect_out '"name": "h100"'

# 10. [sensitivity] price = 0.9 is valid as documented (it was refused with a flag the user never
# gave, "--price-scale '0.09999999999999998'", and no position).
printf '[[scenario]]\nname = "a"\nparams = "1B"\ngpus = 8\n[sensitivity]\nprice = 0.9\n' >"$TMP/sens.toml"
run plan "$TMP/sens.toml" --format json
expect_rc 0; expect_out '"sensitivity": ['

# 11. A catalog name starting with = comes out of CSV as text, not a formula; --get prints a
# plan title's ESC, BEL and newline as spaces; a bidi override never reaches a table.
printf '[models."llama-3.1-8b"]\nname = "=HYPERLINK(\\"http://x\\")"\n' >"$TMP/inj.toml"
run catalog list models --format csv --catalog "$TMP/inj.toml"
expect_rc 0; expect_out "\"'=HYPERLINK("
printf '[plan]\ntitle = "a\\u001b]0;pwned\\u0007\\nb"\n[[scenario]]\nname = "a"\nparams = "1B"\ngpus = 8\n' >"$TMP/esc.toml"
run plan "$TMP/esc.toml" --get plan.title
expect_rc 0; [ "$out" = "a ]0;pwned  b" ] || fail "--get plan.title printed '$out'"
printf '[models."llama-3.1-8b"]\nname = "evil\\u202Etxt"\n' >"$TMP/bidi.toml"
run catalog show llama-3.1-8b --catalog "$TMP/bidi.toml"
expect_rc 0; grep -q $'\xe2\x80\xae' "$TMP/out" && fail "a bidi override reached the table"
# Nor CSV, which is read with cat too: ESC, C1 and bidi controls become spaces, line breaks stay.
printf '[models."llama-3.1-8b"]\nname = "a\\u001b[2Jb\\u009bc\\u202Ed\\ne"\n' >"$TMP/ctl.toml"
run catalog list models --format csv --catalog "$TMP/ctl.toml"
expect_rc 0; expect_out '"a [2Jb c d
e"'
grep -q $'\xe2\x80\xae\|\xc2\x9b\|\x1b' "$TMP/out" && fail "a terminal control reached CSV"

# 4. A catalog directory that cannot be read is exit 66, not skipped; *.TOML counts; a directory
# with nothing to check says so.
if [ "$(id -u)" -ne 0 ]; then  # root reads a mode-300 directory anyway
  mkdir -p "$TMP/noread" && cp "$SRC/catalogs/prices.toml" "$TMP/noread/" && chmod 300 "$TMP/noread"
  run catalog list prices --catalog "$TMP/noread"
  expect_rc 66; expect_err "cannot read catalog directory"; expect_one_line_err
  chmod 700 "$TMP/noread"
fi
mkdir -p "$TMP/upper" && printf '[models.bad]\nname = "x"\n' >"$TMP/upper/MINE.TOML"
run catalog check "$TMP/upper"
expect_rc 65; expect_err "MINE.TOML"
mkdir -p "$TMP/empty"
run catalog check "$TMP/empty"
expect_rc 66; expect_err "no catalog file (*.toml)"; expect_one_line_err

# 5. Absurd rates: a calibration far above the datasheet is bad data; rate flags are bounded on
# both sides.
printf 'schema = 1\nkind = "cuda"\naccelerator = "h100-sxm"\ndevice_name = "x"\n[[measurement]]\nmetric = "gemm_bf16"\nvalue = 1e16\nunit = "FLOP/s"\n' >"$TMP/cal16.toml"
run train --model llama-3.1-8b --gpus 8 --tokens 1B --calibration "$TMP/cal16.toml"
expect_rc 65; expect_err "not a measurement of this device"; expect_one_line_err
bad 2 "--rate '1e-300' must be from 0.0001" infer --model llama-3.1-8b --rate 1e-300 --ttft 1s
bad 2 "--tpot '1e-300' must be from" infer --model llama-3.1-8b --rate 1 --tpot 1e-300

# 7. A FIFO at an implicit path is refused, not waited on.
mkdir -p "$TMP/xdg2/gpuplan/calibration"
mkfifo "$TMP/xdg2/gpuplan/calibration/h100-sxm.toml"
XDG_CONFIG_HOME="$TMP/xdg2" timeout 10 "$GPUPLAN" train --model llama-3.1-8b --gpus 8 --tokens 1B >"$TMP/out" 2>"$TMP/err"
rc=$?; err=$(cat "$TMP/err")
expect_rc 66; expect_err "not a regular file"
mkdir -p "$TMP/xdg3/gpuplan"
mkfifo "$TMP/xdg3/gpuplan/catalogs"
XDG_CONFIG_HOME="$TMP/xdg3" timeout 10 "$GPUPLAN" catalog list models >"$TMP/out" 2>"$TMP/err"
rc=$?; err=$(cat "$TMP/err")
expect_rc 66; expect_err "not a directory or a regular file"

# 13. settings and the check agree on --params' range.
run settings --format csv
expect_rc 0; grep -q '^params,.*from 10M to 100T' "$TMP/out" || fail "settings lists another --params range"
bad 2 "--params '5M' must be from 10M to 100T" memory --params 5M

# 8. -o without --force never loses a file: of ten runs racing to one path exactly one succeeds;
# a file-size limit (SIGXFSZ) leaves no temporary file behind.
printf '[[scenario]]\nname = "a"\nparams = "1B"\ngpus = 8\n' >"$TMP/one.toml"
for i in 1 2 3 4 5 6 7 8 9 10; do ("$GPUPLAN" plan "$TMP/one.toml" -o "$TMP/race.md" 2>/dev/null && echo ok >>"$TMP/race.log") & done
wait
[ "$(grep -c ok "$TMP/race.log")" -eq 1 ] || fail "$(grep -c ok "$TMP/race.log") of 10 racing runs wrote race.md, expected 1"
(ulimit -f 1; "$GPUPLAN" plan "$TMP/one.toml" --format html -o "$TMP/big.html") >/dev/null 2>&1
ls -a "$TMP" | grep -q '^\.big\.html\.' && fail "a file-size limit left a temporary file behind"
# 9. -o - and -o /dev/stdout are standard output; probe --compare honours -o.
run plan "$TMP/one.toml" -o - --format json
expect_rc 0; expect_out '"schema_version": 1'
run plan "$TMP/one.toml" -o /dev/stdout --format json
expect_rc 0; expect_out '"schema_version": 1'
run probe --compare "$SRC/tests/fuzz/seeds/calibration/h100-gemm.toml" -o "$TMP/compare.txt"
expect_rc 0; expect_no_out; [ -s "$TMP/compare.txt" ] || fail "probe --compare ignored -o"

# 13. A relative $HOME is ignored (XDG paths are absolute); an unknown 4 MB key gets no
# did-you-mean search (it spent 7 s) and one capped line.
HOME=relative "$GPUPLAN" catalog paths --format csv >"$TMP/out" 2>"$TMP/err"
grep -q 'relative/' "$TMP/out" && fail "a relative HOME was used: $(cat "$TMP/out")"
{ printf '[models."llama-3.1-8b"]\n'; head -c 4000000 /dev/zero | tr '\0' k; printf ' = 1\n'; } >"$TMP/bigkey.toml"
timeout 10 "$GPUPLAN" catalog check "$TMP/bigkey.toml" >"$TMP/out" 2>"$TMP/err"
rc=$?; err=$(cat "$TMP/err")
expect_rc 65; expect_err "unknown key"; [ "$(wc -c <"$TMP/err")" -lt 4000 ] || fail "the unknown key's message is not capped"

# 12. The CUDA probe helper is bounded: one that streams without end is stopped at 1 MiB, one that
# hangs at the time limit, and neither leaves a temporary file.
printf '#!/bin/sh\nexec yes\n' >"$TMP/stream-probe" && chmod +x "$TMP/stream-probe"
printf '#!/bin/sh\nexec sleep 60\n' >"$TMP/hang-probe" && chmod +x "$TMP/hang-probe"
before=$(ls /tmp | grep -c '^gpuplan-probe-')
GPUPLAN_PROBE_CUDA="$TMP/stream-probe" timeout 20 "$GPUPLAN" probe --device cuda --quick >"$TMP/out" 2>"$TMP/err"
rc=$?; err=$(cat "$TMP/err")
expect_rc 70; expect_err "wrote more than 1024 KiB"; expect_one_line_err
GPUPLAN_PROBE_TIMEOUT=1 GPUPLAN_PROBE_CUDA="$TMP/hang-probe" timeout 20 "$GPUPLAN" probe --device cuda --quick >"$TMP/out" 2>"$TMP/err"
rc=$?; err=$(cat "$TMP/err")
expect_rc 70; expect_err "did not finish in 1 s"; expect_one_line_err
[ "$(ls /tmp | grep -c '^gpuplan-probe-')" -eq "$before" ] || fail "the probe left a temporary file in /tmp"

# 13. Memory far beyond the capacity says how many times, not a ten-digit percentage, and exits 1.
run memory --params 100T --gpu rtx-4070-laptop --tp 1 --pp 1 --dp 1
expect_rc 1; expect_out "x the capacity"; grep -q '[0-9]\{6,\}% used' "$TMP/out" && fail "a ten-digit percentage"

finish
