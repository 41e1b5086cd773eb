# SPDX-License-Identifier: Apache-2.0
# Black-box: memory, train and search, their JSON keys, and bad input.
. "$(dirname "$0")/lib.sh"

run memory --model llama-3.1-70b --gpu h100-sxm --tp 8 --pp 4 --dp 16 --zero 1 --recompute selective --micro-batch 1 --seq-len 8192 --format json
expect_rc 0
for k in weights_bytes gradients_bytes optimizer_bytes activations_bytes buffers_bytes reserve_bytes total_bytes \
         capacity_bytes fits params_total params_active params_per_device layout; do
  expect_out "\"$k\":"
done
golden memory-llama-3.1-70b.json
run memory --model llama-3.1-70b --gpu h100-sxm --tp 8 --pp 4 --dp 16 --explain
expect_rc 0; expect_out "Korthikanti"; expect_out "fits"
run memory --params 405B --gpu h100-sxm --min-gpus --format json
expect_rc 0; expect_out '"min_gpus":'; expect_out '"zero": 3'
run memory --params 405B --gpu h100-sxm --min-gpus --explain
expect_rc 0; expect_out "synthesised a Llama-like dense model"
# Does not fit: the answer is printed, one line on stderr says so, and the exit is 1, as in
# infer and train; --gpus splits the model, --min-gpus finds the fewest cards.
run memory --model gpt3-175b --gpu a100-80gb --mode infer --quant int8 --format json
expect_rc 1; expect_out '"weights_bytes": 174'; expect_out '"fits": false'; expect_err "does not fit"; expect_one_line_err
run memory --model gpt3-175b --gpu a100-80gb --mode infer --quant int8 --gpus 4 --format json
expect_rc 0; expect_out '"tp": 4'; expect_out '"fits": true'
run memory --model gpt3-175b --gpu a100-80gb --mode infer --quant int8 --min-gpus --get min_gpus
expect_rc 0; [ "$out" = 3 ] || fail "gpt3-175b int8 on A100 80GB: fewest $out, expected 3 (96 heads split 3 ways)"
run memory --model llama-3.1-70b --gpu h100-sxm --tp 1 --pp 1 --dp 1
expect_rc 1; expect_out "does not fit"; expect_err "--min-gpus"; expect_one_line_err
run memory --model llama-2-7b --gpu rtx-4090 --mode infer --quant q4_k_m --context 4096 --format json
expect_rc 0; expect_out '"kv_cache_bytes_per_token": 524288'; expect_out '"fits": true'

run train --model llama-3.1-70b --gpu h100-sxm --gpus 1024 --tokens 15T --format json
expect_rc 0
for k in gpus layout step_time_s step_breakdown_s tokens_per_s mfu hfu tokens wall_clock_s wall_clock_days gpu_hours memory_per_gpu_bytes; do
  expect_out "\"$k\":"
done
run train --params 7B --gpu a100-80gb --gpus 64
expect_rc 0; expect_out "20 per parameter"
run train --model llama-3.1-8b --gpu h100-sxm --weeks 4 --format json
expect_rc 0; expect_out '"deadline_s": 2419200'
run train --model mixtral-8x7b --gpu h100-sxm --gpus 256 --tp 2 --ep 8 --format json
expect_rc 0; expect_out '"tp": 2'; expect_out '"ep": 8'
run search --model gpt3-175b --gpu a100-80gb --gpus 1024 --global-batch 1536 --top 10 --stats --format json
expect_rc 0; expect_out '"evaluated":'; expect_out '"valid":'; expect_out '"results":'; expect_out '"layouts_per_s":'
[ "$(grep -c '"step_time_s"' "$TMP/out")" -eq 10 ] || fail "search --top 10 did not list 10 layouts"
# Same input, same bytes.
run search --model gpt3-175b --gpu a100-80gb --gpus 1024 --global-batch 1536 --top 3 --format json
cp "$TMP/out" "$TMP/first"
run search --model gpt3-175b --gpu a100-80gb --gpus 1024 --global-batch 1536 --top 3 --format json
cmp -s "$TMP/first" "$TMP/out" || fail "search output is not deterministic"
# CSV: one row per layout under a header of keys, the same figures as the JSON.
run search --model gpt3-175b --gpu a100-80gb --gpus 1024 --global-batch 1536 --top 3 --format csv
expect_rc 0; expect_out 'rank,gpus,layout.tp,layout.pp,'
[ "$(wc -l <"$TMP/out")" -eq 4 ] || fail "search --top 3 --format csv is not a header and 3 rows"
golden search-gpt3-175b-1024.csv
run search --model gpt3-175b --gpu a100-80gb --gpus 1024 --global-batch 1536 --top 3
expect_rc 0
golden search-gpt3-175b-1024.txt

# Bad input: one line on stderr, documented exit code, nothing on stdout.
bad 2 "--tp '0' must be a whole number" memory --model llama-2-7b --tp 0
bad 2 "'-3' is negative" memory --model llama-2-7b --pp -3
bad 2 "tp 3 does not divide the 32 attention heads" memory --model llama-2-7b --tp 3
bad 2 "pp 40 is larger than the 32 layers" memory --model llama-2-7b --pp 40
bad 2 "precision 'fp12' is not known" memory --model llama-2-7b --precision fp12
bad 2 "did you mean llama-2-7b?" memory --model llama-2-7c
bad 2 "unknown accelerator 'h100'" memory --model llama-2-7b --gpu h100
bad 2 "--heads 33 does not divide --hidden 4096" memory --model llama-2-7b --heads 33
bad 2 "--tokens: '0x' has an unknown unit" train --model llama-2-7b --gpus 8 --tokens 0x
bad 2 "--tokens '0' must be from 1 to 100P" train --model llama-2-7b --gpus 8 --tokens 0
bad 2 "train needs --gpus N or a deadline" train --model llama-2-7b
bad 2 "no model" memory --gpu h100-sxm
bad 2 "quantisation 'q9' is not known" memory --model llama-2-7b --mode infer --quant q9
bad 1 "no layout of 7 devices" train --model llama-2-7b --gpus 7 --tp 2
bad 1 "does not fit on 1 x" train --model llama-3.1-405b --gpus 1
bad 1 "devices are more than" train --params 1B --gpus 1000000 --goodput 0.9
bad 1 "1000000 devices fail about every 3.04 min" train --params 1B --gpus 1000000
# Goodput derived from failures (Llama 3's rate): its parts in JSON, the interruptions expected.
run train --model llama-3.1-405b --gpu h100-sxm --gpus 16384 --tokens 15T --format json
expect_rc 0; expect_out '"origin": "derived"'; expect_out '"mtbf_s": 11135.08'; expect_out '"interruptions_expected":'
run train --model llama-3.1-405b --gpu h100-sxm --gpus 16384 --tokens 15T --goodput 0.85 --format json
expect_rc 0; expect_out '"goodput": 0.85,'; expect_out '"origin": "given"'; expect_out '"interruptions_expected": null'
bad 2 "--restart-time" train --model llama-3.1-8b --gpus 8 --restart-time -5s
bad 1 "no count of" train --model llama-3.1-405b --gpu h100-sxm --days 0.05
bad 1 "no interconnect between the devices" train --model llama-3.1-8b --gpu apple-m3-max --gpus 2 --tokens 1B
bad 1 "no interconnect between the devices" search --model llama-3.1-8b --gpu apple-m3-max --gpus 2
bad 1 "does not fit on any number" memory --params 405B --gpu l4 --min-gpus --tp 1 --pp 1 --zero 0

# Deadlines (issue 31): a count given with a deadline is checked against it, exit 1 naming the
# real cause (too few devices, not checkpoint writes) and the count that meets it.
run train --model llama-3.1-8b --gpu a100-80gb --gpus 64 --tokens 1T --days 30 --format json
expect_rc 1; expect_out '"meets_deadline": false'; expect_out '"gpus_for_deadline":'; expect_out '"tokens_by_deadline":'
expect_err "the devices are too few"; expect_err "devices meet it"
[ "$(grep -c "gpuplan: error:" "$TMP/err")" -eq 1 ] || fail "a missed deadline should be one error line: $err"
grep -q "checkpoint" "$TMP/err" && fail "a missed deadline blames checkpoint writes, with no checkpointing set"
# The inverse: with no tokens, what 64 cards train in 30 days, and the day the run ends.
run train --model llama-3.1-8b --gpu h100-sxm --gpus 64 --days 30 --start 2027-01-04 --format json
expect_rc 0; expect_out '"meets_deadline": true'; expect_out '"end_date": "2027-02'; expect_out '"start_date": "2027-01-04"'
bad 2 "date '2027-02-30' is not a calendar date" train --model llama-3.1-8b --gpus 8 --start 2027-02-30
# The fewest cards for a deadline need not be whole nodes: LoRA on 2B tokens of Llama 3.1 70B in
# a week takes 4 H100, not a node of 8.
run train --model llama-3.1-70b --gpu h100-sxm --finetune lora --dataset-tokens 2B --weeks 1 --get gpus
expect_rc 0; [ "$out" = 4 ] || fail "70B LoRA on 2B tokens in a week: $out H100, expected 4"

finish
