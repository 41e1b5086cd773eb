# SPDX-License-Identifier: Apache-2.0
# Black-box: gpuplan infer, the five questions of the issue, JSON keys and bad input.
. "$(dirname "$0")/lib.sh"

keys="fits weights_bytes kv_cache_bytes_per_token kv_cache_bytes total_bytes capacity_bytes offloaded_layers
      prefill_tokens_per_s decode_tokens_per_s ttft_s tpot_s max_batch throughput_tokens_per_s replicas gpus
      usd_per_million_tokens kwh_per_million_tokens"
run infer --model llama-3.1-70b --gpu h100-sxm --quant fp8 --rate 20 --prompt-tokens 1000 --output-tokens 300 --ttft 1s --tpot 50ms --format json
expect_rc 0
for k in $keys; do expect_out "\"$k\":"; done
expect_out '"runtime": "vllm"'; expect_out '"fits": true'
golden infer-llama-3.1-70b-h100-rate20.json
# TTFT and TPOT at the chosen load meet the targets at p99.
ttft=$(sed -n 's/.*"ttft_p99_s": \([0-9.e-]*\),/\1/p' "$TMP/out"); tpot=$(sed -n 's/.*"tpot_p99_s": \([0-9.e-]*\),/\1/p' "$TMP/out")
[ -n "$ttft" ] && [ -n "$tpot" ] || fail "no p99 TTFT or TPOT in the answer"
awk -v a="$ttft" -v b="$tpot" 'BEGIN { exit !(a <= 1 && b <= 0.05) }' || fail "targets missed at p99: ttft $ttft tpot $tpot"
# Per hour means per hour: the cluster's lifetime totals are under cost_usd, as in train.
run infer --model llama-3.1-70b --gpu h100-sxm --gpus 8 --format json
per_hour=$(sed -n '/"cost_usd_per_hour": {/,/}/p' "$TMP/out")
for k in capital owned_tco cloud_lifetime break_even_months; do
  grep -q "\"$k\"" <<<"$per_hour" && fail "cost_usd_per_hour carries the lifetime figure $k"
  expect_out "\"$k\":"
done

# --gpus 8 picks the deployment a hand search over every --tp finds best (within 5%).
run infer --model llama-2-70b --quant fp8 --gpu h100-sxm --gpus 8 --get throughput_tokens_per_s
expect_rc 0; chosen="$out"; by_hand=0
for tp in 1 2 4 8; do
  run infer --model llama-2-70b --quant fp8 --gpu h100-sxm --gpus 8 --tp $tp --get throughput_tokens_per_s
  by_hand=$(awk -v a="$by_hand" -v b="$out" 'BEGIN { print (b > a ? b : a) }')
done
awk -v c="$chosen" -v b="$by_hand" 'BEGIN { exit !(c >= 0.95 * b) }' || fail "infer --gpus 8 gives $chosen tokens/s, the best --tp $by_hand"
run infer --model llama-3.1-8b --gpu rtx-4090 --quant q4_k_m --context 8k --format json
expect_rc 0; expect_out '"runtime": "llama.cpp"'; expect_out '"kv_cache_bytes_per_token": 131072'; expect_out '"fits": true'
run infer --model llama-2-13b --gpu apple-m3-max --quant q4_k_m
expect_rc 0; expect_out "apple-m3-max with llama.cpp"; expect_out "decode, one stream"
golden infer-llama-2-13b-m3-max.txt
run infer --model mistral-7b --gpu cpu-server --quant q4_k_m --format json
expect_rc 0; expect_out '"gpu": "cpu-server"'; expect_out '"offloaded_layers": 0'
run infer --model llama-3.1-405b --gpu h200 --quant fp8 --users 5000 --site hyperscale --format json
expect_rc 0; expect_out '"site": "hyperscale"'; expect_out '"TTFT 2.00 s, TPOT 200 ms"'; expect_out '"think time"'
# The laptop question with offload, and a fixed deployment's capacity.
run infer --model llama-3.1-70b --gpu rtx-4090 --quant q4_k_m --format json
expect_rc 0; expect_out '"fits": false'; expect_out '"host": "cpu-desktop"'
grep -q '"offloaded_layers": [1-9]' "$TMP/out" || fail "70B on a 4090 should offload layers"
run infer --model llama-3.1-8b --gpu h100-sxm --gpus 8 --format json
expect_rc 0; expect_out '"replicas": 8'; expect_out '"gpus": 8'
run infer --model llama-3.1-8b --gpu rtx-4090 --context 200k
expect_rc 1; expect_err "gpuplan: warning: context 200000 exceeds llama-3.1-8b's maximum of 131072 tokens"; grep -q warning "$TMP/out" && fail "a warning reached stdout"
run memory --model llama-2-7b --gpu rtx-4090 --mode infer --quant q4_k_m --format json
expect_rc 0; expect_out '"kv_cache_bytes_per_token": 524288'

bad 2 "quantisation 'q9' is not known" infer --model llama-3.1-8b --quant q9
bad 2 "--batch '0' must be a whole number" infer --model llama-3.1-8b --batch 0
bad 2 "a request rate needs a latency target" infer --model llama-3.1-8b --rate 5
bad 2 "context 200000 exceeds llama-3.1-8b's maximum" infer --model llama-3.1-8b --context 200k --strict
bad 2 "--kv-dtype 'int3' is not known" infer --model llama-3.1-8b --kv-dtype int3
bad 2 "--runtime 'tgi' is not known" infer --model llama-3.1-8b --runtime tgi
bad 2 "give --rate or --users, not both" infer --model llama-3.1-8b --rate 1 --users 5 --ttft 1s
bad 1 "no batch meets the targets" infer --model llama-3.1-70b --gpu l4 --gpus 8 --tp 8 --rate 1 --tpot 1ms
run infer --model llama-3.1-405b --gpu rtx-4090 --gpus 1 --rate 1 --ttft 1s
expect_rc 1; expect_err "does not fit on 1 x rtx-4090"; expect_out "total / capacity"
# A load no count of devices carries: no overflow, no negative count (it printed -2147483648 devices).
bad 1 "needs more than 10000000 devices" infer --model llama-3.1-70b --gpu cpu-desktop --quant q2_k --rate 1e7 --ttft 1h --tpot 1h

# --gpus 8 without --tp takes the tensor-parallel degree with the most throughput: within 5%
# of the best found by trying each by hand (Llama 2 70B fp8 on 8 H100: TP 1 holds only two
# sequences of KV per replica, so the widest-replica answer is far from the best).
best=0
for tp in 1 2 4 8; do
  run infer --model llama-2-70b --gpu h100-sxm --quant fp8 --gpus 8 --tp $tp --format json
  expect_rc 0
  v=$(sed -n 's/.*"throughput_tokens_per_s": \([0-9.]*\),/\1/p' "$TMP/out")
  best=$(awk -v a="$best" -v b="$v" 'BEGIN { print (b > a ? b : a) }')
done
run infer --model llama-2-70b --gpu h100-sxm --quant fp8 --gpus 8 --format json
expect_rc 0
auto=$(sed -n 's/.*"throughput_tokens_per_s": \([0-9.]*\),/\1/p' "$TMP/out")
awk -v a="$auto" -v b="$best" 'BEGIN { exit !(a >= 0.95 * b) }' || fail "--gpus 8 chose $auto tokens/s; the best --tp gives $best"

# Does not fit is exit 1 everywhere, with the memory table and no speed: on the devices, and
# offloaded layers that do not fit in the host either.
run infer --model llama-3.1-405b --gpu h100-sxm --format json
expect_rc 1; expect_out '"fits": false'; expect_out '"decode_tokens_per_s": null'
run infer --model llama-3.1-405b --gpu rtx-4090 --quant q4_k_m --runtime llama.cpp --format json
expect_rc 1; expect_out '"decode_tokens_per_s": null'; expect_err "nor in host memory: the 115 of its 126 layers left over need 212 GiB"
run infer --model llama-3.1-405b --gpu h100-sxm --gpus 1 --rate 1 --ttft 2s
expect_rc 1; expect_err "does not fit on 1 x h100-sxm"
# A desktop card that misses under the default serving runtime is pointed at llama.cpp, which
# runs gpt-oss-20b on a 12 GB RTX 3060 with one of its 24 layers in host memory; a datacenter
# card is not.
run infer --model gpt-oss-20b --gpu rtx-3060
expect_rc 1; expect_one_line_err; expect_err "or --runtime llama.cpp, which keeps the layers that do not fit in host memory"
run infer --model gpt-oss-20b --gpu rtx-3060 --runtime llama.cpp
expect_out "1 of 24 layers in cpu-desktop memory"
run infer --model llama-3.1-405b --gpu h100-sxm
grep -qF -- "--runtime llama.cpp" "$TMP/err" && fail "an H100 miss should not suggest llama.cpp"

# Ollama's defaults: Q4_K_M weights, and a context sized by the device's memory (4k under 24 GiB).
run infer --model llama-3.1-8b --gpu rtx-4090 --runtime ollama --format json
expect_rc 0; expect_out '"quant": "q4_k_m"'; expect_out '"context": 4096'; expect_out 'default of ollama'
run infer --model llama-3.1-8b --gpu rtx-4090 --runtime ollama --quant q8_0 --format json
expect_rc 0; expect_out '"quant": "q8_0"'
# gpt-oss's Ollama tags keep the checkpoint's MXFP4 experts (ollama.com/library/gpt-oss: 14 GB):
# about 12.8 GiB of weights, where Q4_K_M would be another file.
run infer --model gpt-oss-20b --gpu rtx-4090 --runtime ollama --format json
expect_rc 0; expect_out '"quant": "mxfp4"'; expect_out 'native_quant'

# --context alone is a conversation that fills it: decode slows as the KV it reads grows
# (Llama 3.1 8B holds 128 KiB of KV per token: 16 GiB at 128k beside 16 GB of weights).
run infer --model llama-3.1-8b --gpu h100-sxm --context 1000 --format json
short=$(sed -n 's/.*"decode_tokens_per_s": \([0-9.]*\),/\1/p' "$TMP/out")
run infer --model llama-3.1-8b --gpu h100-sxm --context 128000 --format json
long=$(sed -n 's/.*"decode_tokens_per_s": \([0-9.]*\),/\1/p' "$TMP/out")
awk -v a="$short" -v b="$long" 'BEGIN { exit !(b < 0.6 * a) }' || fail "decode at 128k ($long) should be well below 1k ($short)"

# --scenario interactive holds MLPerf's 40 ms TPOT: a wider tensor-parallel group than offline.
run infer --model llama-2-70b --gpu h100-sxm --quant fp8 --gpus 8 --scenario interactive --format json
expect_rc 0; expect_out 'scenario interactive: MLPerf Inference Llama-2-70B'
tp=$(sed -n 's/^  "tp": \([0-9]*\),/\1/p' "$TMP/out"); [ "${tp:-0}" -ge 4 ] || fail "interactive chose tp ${tp:-none}, expected 4 or more"
tpot=$(sed -n 's/.*"tpot_s": \([0-9.]*\),/\1/p' "$TMP/out")
awk -v t="$tpot" 'BEGIN { exit !(t <= 0.04) }' || fail "interactive TPOT $tpot above 40 ms"
run infer --model llama-2-70b --gpu h100-sxm --quant fp8 --rate 10 --scenario server --format json
expect_rc 0; expect_out '"value": "TTFT 2.00 s, TPOT 200 ms"'

# --top K ranks the deployments tried, the chosen one first, each with why it loses.
run infer --model llama-2-70b --gpu h100-sxm --quant fp8 --gpus 8 --top 4 --format json
expect_rc 0; expect_out '"alternatives": ['; expect_out '"verdict": "chosen"'; expect_out '% less throughput"'
[ "$(grep -c '"verdict":' "$TMP/out")" -eq 4 ] || fail "--top 4 should list 4 deployments"
run infer --model llama-2-70b --gpu h100-sxm --quant fp8 --gpus 8 --top 2
expect_rc 0; expect_out "deployments tried (--top)"
run infer --model llama-3.1-8b --gpu h100-sxm --top 3
expect_rc 0; expect_err "nothing to rank here"

# Everyday answers (issue 31). Capacity as nvidia-smi reports it: vLLM serves Llama 3.1 70B in
# bf16 on two H100 (65.7 GiB a card under gpu_memory_utilization 0.9).
run infer --model llama-3.1-70b --gpu h100-sxm --gpus 2 --quant bf16 --format json
expect_rc 0; expect_out '"fits": true'; expect_out '"capacity_bytes": 85520809984'; expect_out '"usable_bytes":'
# Colab's T4 (15,360 MiB as nvidia-smi gives it): an 8B model in Q4_K_M fits with llama.cpp; in
# 16 bits its 15.0 GiB of weights alone fill the card, and llama.cpp keeps two layers on the host.
run infer --model llama-3.1-8b --gpu t4 --quant q4_k_m --format json
expect_rc 0; expect_out '"fits": true'; expect_out '"capacity_bytes": 16106127360'
# The two layers on the host leave the card room for its one sequence's cache of the other 30.
run infer --model llama-3.1-8b --gpu tesla-t4 --quant bf16 --runtime llama.cpp
expect_rc 0; expect_out "no: 2 of 32 layers in cpu-desktop memory"; expect_out "1 (by KV cache)"
# A Mac's memory is one pool: nothing goes "to the host"; Q8_0 Qwen3 32B would swap on 36 GiB,
# and the answer is still printed with one line saying why it is not met (exit 1).
run infer --model qwen3-32b --gpu apple-m4-max-36gb --quant q8_0 --format json
expect_rc 1; expect_out '"offloaded_layers": 0'; expect_out '"unified_memory_bytes": 38654705664'
expect_err "swap"; expect_one_line_err
run infer --model qwen3-32b --gpu apple-m4-max-36gb --quant Q6_K
expect_rc 1; expect_err "iogpu.wired_limit_mb=28672"; expect_out "beyond the GPU's default limit (24.1 GiB of 36.0 GiB unified); fits once raised"
# gpt-oss defaults to its MXFP4 experts and fits one H100 (its model card); bf16 does not.
run infer --model gpt-oss-120b --gpu h100-sxm --format json
expect_rc 0; expect_out '"quant": "mxfp4"'; expect_out '"fits": true'
run infer --model gpt-oss-120b --gpu h100-sxm --quant bf16
expect_rc 1; expect_err "does not fit"; expect_one_line_err; expect_out "total / capacity"
# Formats as llama.cpp spells them, auto, and the table of every format.
run infer --model llama-3.1-8b --gpu rtx-4090 --quant Q4_K_M --get quant
expect_rc 0; [ "$out" = q4_k_m ] || fail "Q4_K_M read as $out"
run infer --model llama-3.1-70b --gpu h100-sxm --quant auto --get quant
expect_rc 0; [ "$out" = fp8 ] || fail "--quant auto on one H100 chose $out, expected fp8"
run infer --model llama-3.1-70b --gpu h100-sxm --quant fp8 --quants --format json
expect_rc 0; expect_out '"quants": ['; expect_out '"quant": "awq"'
run infer --model llama-3.1-8b --gpu rtx-4090 --quant q9_9
expect_rc 2; expect_err "iq4_xs"; expect_one_line_err
# llama.cpp splits 70B Q4_K_M over two 24 GB cards (no pipeline stages).
run infer --model llama-3.1-70b --gpu rtx-4090 --gpus 2 --quant q4_k_m --get fits
expect_rc 0; [ "$out" = true ] || fail "70B Q4_K_M on two RTX 4090: fits $out"

# Well-known public deployments fit as they run:
# - Llama 3.1 405B in FP8 on one node of 8 H100 (Meta, "Introducing Llama 3.1", 2024-07: the FP8
#   quantised 405B runs on a single server node);
# - DeepSeek-R1 in FP8 on 8 H200 at tp 8 (SGLang's DeepSeek V3/R1 documentation: one 8 x H200 node);
# - Llama 3.1 405B in 16 bits on 8 MI300X (AMD, day-0 Llama 3.1 support: a single MI300X node);
# - gpt-oss-20b in 16 GB (OpenAI's model card).
for q in "llama-3.1-405b --gpu h100-sxm --gpus 8 --quant fp8" "deepseek-r1 --gpu h200 --gpus 8 --tp 8 --quant fp8 --runtime sglang" \
         "llama-3.1-405b --gpu mi300x --gpus 8 --quant bf16" "gpt-oss-20b --gpu rtx-4080"; do
  # shellcheck disable=SC2086
  run infer --model $q --get fits
  [ "$rc" -eq 0 ] && [ "$out" = true ] || fail "$q: fits $out (exit $rc)"
done
# ... and do not where they do not: 405B in FP8 on 4 H100, 70B in 16 bits on one H100.
run infer --model llama-3.1-405b --gpu h100-sxm --gpus 4 --tp 4 --quant fp8 --get fits
expect_rc 1; [ "$out" = false ] || fail "405B fp8 on 4 H100 fits $out"

# The runtime's memory settings (issue 32): --mem-fraction and --max-seqs, and the answer names
# what caps the batch.
run infer --model llama-3.1-8b --gpu h100-sxm --users 2000 --think-time 0 --max-seqs 64 --format json
expect_rc 0; expect_out '"max_batch": 64'; expect_out '"batch_limit": "max_seqs"'; expect_out '"max_seqs": 64'
run infer --model llama-3.1-8b --gpu h100-sxm --mem-fraction 0.5 --get usable_bytes
expect_rc 0; awk -v u="$out" 'BEGIN { exit !(u > 0.49 * 85520809984 && u < 0.51 * 85520809984) }' || fail "usable at 0.5: $out"
bad 2 "--mem-fraction is a serving runtime's" infer --model llama-3.1-8b --gpu rtx-4090 --quant q4_k_m --mem-fraction 0.8
bad 2 "give --reserve or --mem-fraction" infer --model llama-3.1-8b --reserve 1GiB --mem-fraction 0.8

# Every parallelism the runtimes offer (issue 32): TP8 EP8 (tensor-parallel attention, experts
# whole across the same devices), EP with data-parallel attention, and the contradictions.
run infer --model deepseek-r1 --gpu h200 --gpus 8 --tp 8 --ep 8 --quant fp8 --runtime sglang --format json
expect_rc 0; expect_out '"ep": 8'; expect_out '"attention_parallel": "tensor"'; expect_out '"tp": 8'
run infer --model deepseek-r1 --gpu h200 --gpus 8 --ep 8 --dp-attention --quant fp8 --runtime sglang --format json
expect_rc 0; expect_out '"attention_parallel": "data"'
bad 2 "give --ep equal to --tp" infer --model deepseek-r1 --gpu h200 --gpus 8 --tp 8 --ep 4 --quant fp8
bad 2 "--dp-attention runs attention data-parallel" infer --model deepseek-r1 --gpu h200 --gpus 8 --dp-attention --quant fp8

# Request lengths as benchmarks draw them (uniform from 0.8 to 1 of nominal): the mean sets the
# work, the longest the cache.
run infer --model llama-3.1-8b --gpu h100-sxm --prompt-tokens 1000 --output-tokens 1000 --users 32 --think-time 0 --length-range 0.8 --format json
expect_rc 0; expect_out '"prompt_tokens": 900,'; expect_out '"output_tokens": 900,'; expect_out '"context": 2000,'

# Prefix caching: 90% of requests find the 1,500-token system prompt cached, so 1,350 of each
# 2,000-token prompt are not prefilled again, and the cache holds 2.6 times the sequences.
run infer --model llama-3.1-8b --gpu h100-sxm --prompt-tokens 2000 --output-tokens 200 --prefix-tokens 1500 --prefix-hit 0.9 --format json
expect_rc 0; expect_out '"cached_tokens": 1350'; expect_out '"hit_rate": 0.9'; expect_out '"max_batch": 536,'
run infer --model llama-3.1-8b --gpu h100-sxm --prompt-tokens 2000 --output-tokens 200 --format json
expect_rc 0; expect_out '"prefix_cache": null'; expect_out '"max_batch": 207,'
bad 2 "prefix caching takes both --prefix-tokens N" infer --model llama-3.1-8b --gpu h100-sxm --prefix-hit 0.5
bad 2 "--prefix-tokens models a serving runtime's prefix cache" infer --model llama-3.1-8b --gpu rtx-4090 --runtime llama.cpp --prefix-tokens 100 --prefix-hit 0.5
bad 2 "--prefix-hit" infer --model llama-3.1-8b --gpu h100-sxm --prefix-tokens 100 --prefix-hit 1.5
# Each of 2,000 users has a 7,000-token conversation: a local NVMe drive holds every replica's
# share of them, so 90% of requests skip 7,000 tokens of prefill and read them back instead
# over the drive at 13 GB/s.
conv="--model llama-3.1-8b --gpu h100-sxm --prompt-tokens 8000 --output-tokens 300 --users 2000 --think-time 30 --prefix-tokens 7000 --prefix-hit 0.9 --prefix-count 2000"
run infer $conv --format json --get gpus
expect_rc 0; plain="$out"
run infer $conv --kv-offload nvme --format json
expect_rc 0; expect_out '"tier": "nvme-pm1743"'; expect_out '"prefixes": 2000,'; expect_out '"found_offload": 1,'; expect_out '"cached_tokens": 6300,'
tiered=$(sed -n 's/^  "gpus": \([0-9]*\),/\1/p' "$TMP/out")
[ -n "$tiered" ] && [ "$tiered" -lt "$plain" ] || fail "an NVMe tier should need fewer devices than $plain, got '$tiered'"
run infer $conv --kv-offload host
expect_rc 0; expect_out "in host memory (128 GiB)"
bad 2 "--kv-offload host keeps cached prefixes off the device" infer --model llama-3.1-8b --gpu h100-sxm --kv-offload host
# A drive of the user's own without a capacity needs the tier's size given.
printf '[storage.my-ssd]\nname = "My SSD"\nunit = "drive"\nread_bytes_per_s = "7GB/s"\nwrite_bytes_per_s = "5GB/s"\nsource = "test"\n' > "$TMP/drive.toml"
bad 2 "--kv-offload my-ssd: the drive's record has no capacity_bytes; give --kv-offload-size" infer --catalog "$TMP/drive.toml" --model llama-3.1-8b --gpu h100-sxm --prefix-tokens 500 --prefix-hit 0.5 --prefix-count 100 --kv-offload my-ssd
run infer --catalog "$TMP/drive.toml" --model llama-3.1-8b --gpu h100-sxm --prefix-tokens 500 --prefix-hit 0.5 --prefix-count 100 --kv-offload my-ssd --kv-offload-size 100GB --format json
expect_rc 0; expect_out '"bytes_per_device": 100000000000,'; expect_out '"read_bytes_per_s": 7000000000,'
# One shared prefix never leaves the device: a tier beside it is said to hold nothing.
run infer --model llama-3.1-8b --gpu h100-sxm --prefix-tokens 500 --prefix-hit 0.5 --kv-offload host
expect_rc 0; expect_err "one shared prefix stays on the device, so the tier holds nothing"
bad 2 "--prefix-count counts distinct prefixes" infer --model llama-3.1-8b --gpu h100-sxm --prefix-count 5
bad 2 "--kv-offload-size sizes a KV offload tier" infer --model llama-3.1-8b --gpu h100-sxm --kv-offload-size 10GiB
bad 2 "not a tier; give host, nvme, none or a local drive's storage id" infer --model llama-3.1-8b --gpu h100-sxm --prefix-tokens 100 --prefix-hit 0.5 --kv-offload s3-standard
bad 2 "the host tier has 256 GiB per device" infer --model llama-3.1-8b --gpu h100-sxm --prefix-tokens 100 --prefix-hit 0.5 --kv-offload host --kv-offload-size 1TiB
bad 2 "dgx-spark has no separate host memory" infer --model llama-3.1-8b --gpu dgx-spark --runtime vllm --prefix-tokens 100 --prefix-hit 0.5 --kv-offload host

# --trace: requests replayed as they came, beside the closed forms at the same mean rate.
printf 'arrival,prompt,output\n' > "$TMP/trace.csv"
awk 'BEGIN { srand(5); t = 0; for (i = 0; i < 3000; i++) { t += -log(1 - rand()) / 8; printf "%.6f,1000,200\n", t } }' >> "$TMP/trace.csv"
run infer --model llama-3.1-8b --gpu h100-sxm --trace "$TMP/trace.csv" --format json
expect_rc 0; expect_out '"requests": 3000,'; expect_out '"mean_prompt_tokens": 1000,'; expect_out '"ttft_p99_s":'; expect_out '"poisson": {'
run infer --model llama-3.1-8b --gpu h100-sxm --trace "$TMP/trace.csv"
expect_rc 0; expect_out "trace replayed: 3000 requests at"; expect_out "Poisson p99"
printf '0,100,10\n2,100,10\n1,100,10\n' > "$TMP/unsorted.csv"
bad 65 "row 3: its time is earlier than the row before" infer --model llama-3.1-8b --gpu h100-sxm --trace "$TMP/unsorted.csv"
printf '0,100,10\n1,lots,10\n' > "$TMP/word.csv"
bad 65 "row 2: 'lots' is not a number" infer --model llama-3.1-8b --gpu h100-sxm --trace "$TMP/word.csv"
bad 2 "--trace replays the arrivals it holds" infer --model llama-3.1-8b --gpu h100-sxm --trace "$TMP/trace.csv" --rate 5 --ttft 1s
bad 66 "cannot read trace" infer --model llama-3.1-8b --gpu h100-sxm --trace "$TMP/absent.csv"

# Disaggregated prefill and decode beside the aggregated deployment at a rate: long prompts and a
# tight TPOT favour it, and the answer's devices are then its own.
run infer --model llama-3.1-8b --gpu h100-sxm --rate 50 --ttft 500ms --tpot 20ms --prompt-tokens 8000 --output-tokens 200 --format json
expect_rc 0; expect_out '"disaggregated": {'; expect_out '"chosen": true'; expect_out '"aggregated_devices": 32'; expect_out '"gpus": 28,'
run infer --model llama-3.1-8b --gpu h100-sxm --rate 50 --ttft 500ms --tpot 20ms --prompt-tokens 8000 --output-tokens 200 --no-disagg --format json
expect_rc 0; expect_out '"disaggregated": null'; expect_out '"gpus": 32,'
bad 1 "--disagg sizes prefill and decode workers for a request rate" infer --model llama-3.1-8b --gpu h100-sxm --users 10 --think-time 0 --disagg

# --frontier: every deployment of a node at 1, 2, 4, ... users; the Pareto points in the table.
run infer --model llama-3.1-70b --gpu h100-sxm --quant fp8 --frontier --prompt-tokens 1000 --output-tokens 1000 --format json
expect_rc 0; expect_out '"frontier": ['; expect_out '"tokens_per_s_per_gpu":'; expect_out '"pareto": true'; expect_out '"pareto": false'
run infer --model llama-3.1-70b --gpu h100-sxm --quant fp8 --frontier --prompt-tokens 1000 --output-tokens 1000
expect_rc 0; expect_out "frontier: output tokens/s per GPU against tokens/s per user"; expect_out "tp 8            1"

# The launch line: the runtime's flags for the deployment planned.
run infer --model llama-3.1-70b --gpu h100-sxm --rate 20 --ttft 2s --tpot 100ms
expect_rc 0; expect_out "launch: vllm serve <llama-3.1-70b checkpoint> --tensor-parallel-size 4 --max-num-seqs 314 --max-model-len 1300 --gpu-memory-utilization 0.90 --no-enable-prefix-caching"
run infer --model deepseek-r1 --gpu h200 --gpus 8 --ep 8 --quant fp8 --runtime sglang --users 64 --think-time 0 --format json
expect_rc 0; expect_out '"launch": "python -m sglang.launch_server --model-path <deepseek-r1 checkpoint> --tp-size 8 --dp-size 8 --enable-dp-attention --ep-size 8 --max-running-requests 64'
# vLLM's data-parallel ranks are engines of their own: --max-num-seqs caps each, 64 users over 8.
run infer --model deepseek-r1 --gpu h200 --gpus 8 --ep 8 --quant fp8 --users 64 --think-time 0 --format json
expect_rc 0; expect_out '"launch": "vllm serve <deepseek-r1 checkpoint> --data-parallel-size 8 --enable-expert-parallel --max-num-seqs 8 '
run infer --model llama-3.1-70b --gpu rtx-4090 --quant q4_k_m
expect_rc 0; expect_out "launch: llama-server -m <llama-3.1-70b GGUF file> -c 4096 -ngl 44 -np 1"
run infer --model qwen2.5-7b --gpu dgx-spark --runtime llama.cpp --quant q8_0 --ubatch 4096
expect_rc 0; expect_out "-ngl 99 -np 1 -ub 4096 -b 4096"
run infer --model "$SRC/tests/data/hf/qwen3-8b" --gpu h100-sxm --runtime tensorrt-llm --prefix-tokens 500 --prefix-hit 0.5 --format json
expect_rc 0; expect_out "\"launch\": \"trtllm-serve $SRC/tests/data/hf/qwen3-8b --tp_size 1 --max_batch_size"

# Self-host, rent or pay an API: a workload of users and requests a day, priced a month each way.
run infer --model llama-3.1-70b --gpu h100-sxm --quant fp8 --users 2000 --requests-per-day 20 --api openai-gpt-5.4-mini --format json
expect_rc 0; expect_out '"monthly_cost": {'; expect_out '"cheapest_api": "deepinfra-llama-3.1-70b"'; expect_out '"id": "openai-gpt-5.4-mini"'
# One H100 owned (its price, and an eighth of its 8-GPU server's power) breaks even with the
# cheapest API below what the deployment serves; at $150k a device it does not.
expect_out '"break_even_requests_per_day": 67'
run infer --model llama-3.1-70b --gpu h100-sxm --quant fp8 --users 2000 --requests-per-day 20 --capex '$150000'
expect_rc 0; expect_out "self-host, rent or pay an API"; expect_out "API: DeepInfra Llama 3.1 70B Instruct Turbo"
expect_out "owning does not break even with DeepInfra Llama 3.1 70B Instruct Turbo"
run infer --model llama-3.1-70b --gpu h100-sxm --quant fp8 --rate 1 --ttft 2s --format json
expect_rc 0; expect_out '"monthly_cost": null'
bad 2 "--requests-per-day counts each user's requests: give --users too" infer --model llama-3.1-8b --requests-per-day 20
bad 2 "give --requests-per-day or --rate, not both" infer --model llama-3.1-8b --requests-per-day 20 --rate 1
bad 2 "unknown API price 'gpt-5'; did you mean" infer --model llama-3.1-8b --users 10 --requests-per-day 20 --api gpt-5
bad 2 "--api ',' has an empty id" infer --model llama-3.1-8b --users 10 --requests-per-day 20 --api ,
# Without a load the cost per million tokens is one stream's; the full batch's is the same hour over
# the full batch's throughput: their ratio is the inverse of the throughputs'. With a load, none.
run infer --model gpt-oss-120b --gpu h100-sxm --format json
expect_rc 0
python3 - "$TMP/out" <<'PY' || fail "full-batch cost per million tokens is not the hour over the full batch's throughput"
import json, sys
d = json.load(open(sys.argv[1]))
one, full = d["throughput_tokens_per_s"], d["full_batch_throughput_tokens_per_s"]
c1, cf = d["usd_per_million_tokens"], d["usd_per_million_tokens_full_batch"]
assert full > 5 * one, (one, full)  # 70 sequences where one ran
assert abs(cf / c1 - one / full) < 1e-9 * (one / full), (c1, cf, one, full)
PY
run infer --model gpt-oss-120b --gpu h100-sxm
expect_rc 0; expect_out "cost per million output tokens (one stream)"; expect_out "cost per million output tokens at batch"
run infer --model llama-3.1-8b --gpu h100-sxm --users 10 --format json
expect_rc 0; expect_out '"usd_per_million_tokens_full_batch": null'
# A load that fewer devices than --gpus carry: the answer says how many of them it uses.
run infer --model llama-3.1-8b --gpu h100-sxm --gpus 8 --users 10 --format json --get gpus
expect_rc 0; [ "$(cat "$TMP/out")" -lt 8 ] || fail "10 users of an 8B model should need fewer than 8 H100, got $(cat "$TMP/out")"
expect_err "of the 8 devices carry the load"
# A hand-set memory share that leaves no room is named in the error.
run infer --model llama-3.1-8b --gpu h100-sxm --mem-fraction 0.1 --gpus 1 --users 4
expect_rc 1; expect_err "held back by --mem-fraction 0.1) of 79.6 GiB per device; try a larger --mem-fraction"; expect_one_line_err
# llama.cpp across two cards splits the layers; the answer does not call it tensor parallelism.
run infer --model llama-3.3-70b --gpu rtx-4090 --gpus 2 --runtime llama.cpp --quant q4_k_m
expect_rc 0; expect_out "with llama.cpp, layer split over 2,"; expect_out "--split-mode layer"

finish
