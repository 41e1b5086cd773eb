# SPDX-License-Identifier: Apache-2.0
# Black-box: the settings table as the command line sees it: flags per command, "did you mean",
# bare switches, one quantity grammar, conflicts, `gpuplan settings`, and the man page.
. "$(dirname "$0")/lib.sh"


# Unknown commands, flags and flags of another command.
bad 2 "unknown command 'trian'; did you mean train?" trian --gpus 8
bad 2 "unknown command 'lst'; did you mean list?" catalog lst models
bad 2 "unknown flag '--tpp' for train; did you mean --tp?" train --model llama-3.1-8b --gpus 8 --tpp 2
bad 2 "--epochs does not apply to infer: it is a setting of train" infer --model llama-3.1-8b --epochs 2
bad 2 "--mode does not apply to infer: it is a setting of memory" infer --model llama-3.1-8b --mode train
bad 2 "--checkpoint-every does not apply to infer" infer --model llama-3.1-8b --checkpoint-every 1h
bad 2 "--tokens does not apply to search" search --model llama-3.1-8b --gpus 8 --tokens 1T
bad 2 "--pipeline-schedule dualpipe needs an even --pp (stage pairs); pp is 3" train --model llama-3.1-8b --gpus 24 --pp 3 --pipeline-schedule dualpipe
bad 2 "--interleave 2 needs --pipeline-schedule interleaved (it is 1f1b)" train --model llama-3.1-8b --gpus 16 --pp 4 --interleave 2 --pipeline-schedule 1f1b
bad 2 "--draft-tokens 4 needs --accept" infer --model llama-3.1-8b --draft-tokens 4
bad 2 "unexpected argument 'extra' for memory" memory --model llama-3.1-8b extra
# Contradictions.
bad 2 "give --weeks or --days, not both" train --model llama-3.1-8b --weeks 2 --days 3
bad 2 "give --model or --params, not both" memory --model llama-3.1-8b --params 7B
bad 2 "give --rate or --users, not both" infer --model llama-3.1-8b --rate 1 --users 5 --ttft 1s
# Ranges come from the table, and values are shown escaped on one line.
bad 2 "--staff '1e308' must be from \$0 to \$1B" train --model llama-3.1-8b --gpus 8 --staff 1e308
bad 2 "--reserve '1e308' must be from 0 to 1TiB" train --model llama-3.1-8b --gpus 8 --reserve 1e308
bad 2 "--years '1e-308' must be from 0.1 to 30 years" power --gpus 8 --years 1e-308
bad 2 "--tokens '1e308' must be from 1 to 100P" train --model llama-3.1-8b --gpus 8 --tokens 1e308
bad 2 "--site 'a\x0ab' must be an id or path" train --model llama-3.1-8b --gpus 8 --site "$(printf 'a\nb')"
run train --model llama-3.1-8b --gpus 8 --site "$(head -c 100000 /dev/zero | tr '\0' x)"
expect_rc 2; expect_one_line_err
[ "$(wc -c <"$TMP/err")" -lt 2200 ] || fail "a 128 KiB value is echoed whole"
run train --model llama-3.1-8b --gpus 8 --weeks "$(printf '4\033[31m')"
expect_rc 2; expect_err '\x1b[31m'; expect_one_line_err

# One grammar: suffixes in any case, durations for deadlines, plain numbers in the setting's unit.
run train --params 7b --gpus 8 --tokens 100b --format json
expect_rc 0; expect_out '"tokens": 100000000000'
run train --model llama-3.1-8b --weeks 4w --format json
expect_rc 0; expect_out '"deadline_s": 2419200'
run train --model llama-3.1-8b --days 28 --format json
expect_rc 0; expect_out '"deadline_s": 2419200'
run power --gpus 8 --price 2.5 --format json
expect_rc 0; cp "$TMP/out" "$TMP/plain"
run power --gpus 8 --price '$2.5/h' --format json
cmp -s "$TMP/plain" "$TMP/out" || fail "--price 2.5 and --price \$2.5/h differ"

# Bare switches, and their --no- form.
run memory --model llama-3.1-8b --gpus 8 --tp 2 --sequence-parallel --format json
expect_rc 0; expect_out '"sequence_parallel": true'
run memory --model llama-3.1-8b --gpus 8 --tp 2 --no-sequence-parallel --format json
expect_rc 0; expect_out '"sequence_parallel": false'
run memory --model llama-3.1-8b --sequence-parallel=maybe
expect_rc 2; expect_one_line_err

# memory --gpus without --dp: dp is what the other degrees leave.
run memory --model llama-2-7b --gpus 8 --tp 2 --format json
expect_rc 0; expect_out '"dp": 4'; expect_out '"schema_version": 1'
bad 2 "gpus 7 is not tp 2 x pp 1 x cp 1 x dp 3" memory --model llama-2-7b --gpus 7 --tp 2
# Warnings go to stderr with a prefix, and into the JSON warnings.
run memory --model llama-2-7b --gpus 8 --tp 2 --seq-len 8192 --format json
expect_rc 0; expect_err "gpuplan: warning: sequence length 8192 exceeds llama-2-7b's maximum context of 4096 tokens"
expect_out '"warnings": ['
# CSV: one row per result, with a header.
run train --model llama-3.1-8b --gpus 8 --format csv
expect_rc 0; [ "$(wc -l <"$TMP/out")" -eq 2 ] || fail "train CSV is not a header and one row"
head -1 "$TMP/out" | grep -q "wall_clock_s" || fail "train CSV header lacks wall_clock_s"
head -1 "$TMP/out" | grep -q "assumptions\.\|warnings" && fail "train CSV spreads its assumption list over columns"

# gpuplan help CMD is the command's --help, sectioned as the man page is: a golden of train's.
run help train
expect_rc 0; expect_out "Usage: gpuplan train [OPTIONS]"
golden help-train.txt
run train --help
diff -u "$GOLDEN/help-train.txt" "$TMP/out" >/dev/null || fail "gpuplan help train differs from train --help"
run help catalog list
cp "$TMP/out" "$TMP/help-list"
run catalog list --help
diff -u "$TMP/help-list" "$TMP/out" >/dev/null || fail "gpuplan help catalog list differs from catalog list --help"
run help
cp "$TMP/out" "$TMP/help-alone"
run --help
diff -u "$TMP/help-alone" "$TMP/out" >/dev/null || fail "gpuplan help alone differs from gpuplan --help"
# --help lists only what a command takes.
run infer --help
expect_rc 0; expect_out "--ttft"
for f in --mode --epochs --checkpoint-every --cp --tokens; do
  grep -qE -- "^ *$f( |,)" "$TMP/out" && fail "infer --help lists $f"
done
run train --help
expect_rc 0; expect_out "--checkpoint-every"; expect_out "default derived from failures"; expect_out "--restart-time"

# gpuplan settings: every setting once, with its commands; the man page names each of them.
run settings --format json
expect_rc 0; expect_out '"name": "tp"'; expect_out '"accepted": "a whole number from 1 to 1024"'
run settings --format csv
expect_rc 0
head -1 "$TMP/out" | grep -q '^setting,type,accepted,default,commands,help$' || fail "settings CSV header"
names=$(tail -n +2 "$TMP/out" | cut -d, -f1)
[ "$(echo "$names" | wc -l)" -ge 70 ] || fail "settings lists fewer than 70 settings"
[ "$(echo "$names" | sort | uniq -d)" = "" ] || fail "a setting is listed twice"
# The settings reference page is generated from the table, so it documents each of them.
run settings --man
expect_rc 0; expect_out '.TH GPUPLAN-SETTINGS 7'
cp "$TMP/out" "$TMP/settings.7"
for n in $names; do
  grep -qF -- ".B \\-\\-${n//-/\\-}" "$TMP/settings.7" || fail "gpuplan settings --man does not document --$n"
done
# The prose of gpuplan(1) names no flag that is gone: every --flag in it is one that some
# command's --help lists (or cmake's --install, and the --no- prefix of switches).
for c in "" memory train search infer power plan settings completions probe catalog "catalog list" "catalog show" \
         "catalog check" "catalog paths"; do
  # shellcheck disable=SC2086
  "$GPUPLAN" $c --help 2>/dev/null
done | grep -o -- '--[a-z][a-z0-9-]*' | sort -u >"$TMP/known"
for f in $(grep -o -- '\\-\\-[a-z][a-z0-9\\-]*' "$SRC/man/gpuplan.1" | sed 's/\\-/-/g' | sort -u); do
  case "$f" in --install | --no-) continue ;; esac
  grep -qxF -- "$f" "$TMP/known" || fail "man/gpuplan.1 documents $f, which no command takes"
done
run settings --command infer --format csv
expect_rc 0; expect_out "ttft,"; grep -q '^epochs,' "$TMP/out" && fail "settings --command infer lists epochs"
bad 2 "--command 'plan' takes no settings" settings --command plan
bad 2 "--man prints the whole table as a man page" settings --man --command train
bad 2 "--man prints the whole table as a man page" settings --man --format json
# --attention eager stores the attention scores unless recomputed (Korthikanti 2022, Table 2:
# 5as/h extra per layer), so recomputation none holds more than under flash attention, and the
# search tries selective recomputation again (under flash attention it is the same as none).
run memory --model llama-2-7b --gpus 8 --recompute none --get activations_bytes; flash="$out"
run memory --model llama-2-7b --gpus 8 --recompute none --attention eager --get activations_bytes; eager="$out"
awk -v f="$flash" -v e="$eager" 'BEGIN { exit !(e > f && f > 0) }' || fail "eager activations $eager are not above flash $flash"
run search --model llama-2-7b --gpus 8 --attention eager --top 40 --format csv
expect_rc 0; grep -q ",selective," "$TMP/out" || fail "eager attention: no selective layout among the top 40"
run search --model llama-2-7b --gpus 8 --top 40 --format csv
expect_rc 0; grep -q ",selective," "$TMP/out" && fail "flash attention: selective listed beside none"
bad 2 "--attention 'fast' is not known; expected flash, flash2 or eager" memory --model llama-2-7b --attention fast
# --get: one value of any command's answer; a key that matches nothing or none at all is exit 2.
run train --model llama-3.1-8b --gpus 8 --get gpus
expect_rc 0; [ "$out" = 8 ] || fail "--get gpus printed '$out'"
bad 2 "--get 'nope' matches nothing in the answer" train --model llama-3.1-8b --gpus 8 --get nope
bad 2 "--get needs a key" train --model llama-3.1-8b --gpus 8 --get ''
# No deployment of 8 devices meets the targets: the error speaks of the widest degree tried.
bad 1 "no batch meets the targets on 8 x h100-sxm" infer --model llama-3.1-8b --gpu h100-sxm --gpus 8 --scenario interactive --prompt-tokens 100000 --output-tokens 1
# A switch given a value it cannot read names the values it takes, on one line (exit 2).
run train --model gpt2-124m --gpu a100-40gb --gpus 1 --tokens 1B --fused-loss=maybe
expect_rc 2; expect_err "--fused-loss is a switch: 'maybe' is not on or off; give --fused-loss, --no-fused-loss or --fused-loss=true|false"
# --sharp: the gradient all-reduce of GPT-3 at dp 128 on NDR moves S / B across nodes, not twice
# that, so its data-parallel time falls by more than a third; fabrics without SHARP refuse it.
run train --model gpt3-175b --gpu h100-sxm --gpus 8192 --tokens 300B --zero 0 --tp 8 --pp 8 --get step_breakdown_s.dp_comm_s
expect_rc 0; ring="$out"
run train --model gpt3-175b --gpu h100-sxm --gpus 8192 --tokens 300B --zero 0 --tp 8 --pp 8 --sharp --get step_breakdown_s.dp_comm_s
expect_rc 0
awk -v a="$out" -v b="$ring" 'BEGIN { exit !(a > 0 && a < 0.6 * b) }' || fail "--sharp should cut dp_comm_s below 0.6 x $ring, got $out"
bad 2 "--sharp: mi300x's scale-out fabric roce-400g does not reduce in its switches" train --model llama-3.1-8b --gpu mi300x --gpus 64 --sharp
expect_one_line_err; expect_no_out
# --framework compiled: GPT-2 1.5B on an H100 node loses the unfused work around its GEMMs (1,600
# wide: Megatron's depth term costs it most), so its MFU is more than 1.5x Megatron's. The GPT-2
# records name compiled as their trainer, so it is also their default; a model whose record names
# none keeps Megatron's rates and the answer says how much a compiled trainer would gain. A device
# without a measured GEMM depth says that it changes nothing, only when the framework was asked.
run train --model gpt2-1.5b --gpu h100-sxm --gpus 8 --tokens 10B --framework megatron --get mfu
expect_rc 0; megatron="$out"
run train --model gpt2-1.5b --gpu h100-sxm --gpus 8 --tokens 10B --framework compiled --get mfu
expect_rc 0; compiled="$out"
awk -v a="$compiled" -v b="$megatron" 'BEGIN { exit !(a > 1.5 * b) }' || fail "--framework compiled MFU $compiled should exceed 1.5 x $megatron"
grep -qF "these are Megatron's rates" "$TMP/err" && fail "--framework compiled should not repeat the hint"
run train --model gpt2-1.5b --gpu h100-sxm --gpus 8 --tokens 10B --get mfu
expect_rc 0; [ "$out" = "$compiled" ] || fail "gpt2-1.5b's default MFU $out should be its record's trainer's, $compiled"
grep -qF "these are Megatron's rates" "$TMP/err" && fail "a model trained compiled by default should not get the hint"
run train --model tinyllama-1.1b --gpu h100-sxm --gpus 8 --tokens 10B --get mfu
expect_rc 0; expect_err "these are Megatron's rates; a trainer that fuses its element-wise work"
run train --model gpt2-1.5b --gpu a100-80gb --gpus 8 --tokens 10B --get mfu
expect_rc 0; grep -qF "no measured GEMM depth" "$TMP/err" && fail "the record's trainer should not warn on a100-80gb"
run train --model gpt2-1.5b --gpu mi300x --gpus 8 --tokens 10B --framework compiled --get mfu
expect_rc 0; expect_err "--fused-kernels: no measured GEMM depth for mi300x (cdna3 family)"
# A100's fused depth is an estimate (Hopper's scaled by the tensor rate per SM), and --explain says so
run train --model gpt2-124m --gpu a100-80gb --gpus 8 --tokens 10B --explain
expect_rc 0; expect_out "fused kernels: a GEMM k deep runs at k / (k + 75) of the ceiling (estimate: Hopper's measured depth scaled by the tensor rate per SM)"
finish
