# SPDX-License-Identifier: Apache-2.0
# Black-box: --model with a file the user has (issue 34): a Hugging Face config.json or the
# directory holding it, a GGUF header, a catalog .toml record; and catalog import.
. "$(dirname "$0")/lib.sh"
HF="$SRC/tests/data/hf"

run catalog import "$HF/llama-3.1-8b"
expect_rc 0; expect_out '[models."llama-3.1-8b"]'; expect_out 'kv_heads = 8'; expect_out 'source = "imported from'
# The same memory as the catalog's record of the model.
run memory --mode infer --model llama-3.1-8b --get weights_bytes
expect_rc 0; catalog="$out"
run memory --mode infer --model "$HF/llama-3.1-8b/config.json" --get weights_bytes
expect_rc 0; [ "$out" = "$catalog" ] || fail "config.json gives $out weight bytes, the catalog $catalog"
# gpt-oss's config names its MXFP4 experts: the default format, and it fits 16 GB.
run infer --model "$HF/gpt-oss-20b" --gpu rtx-4080 --format json
expect_rc 0; expect_out '"quant": "mxfp4"'; expect_out '"fits": true'
# What the record leaves out is a warning in the answer, on stderr and in JSON.
run infer --model "$HF/deepseek-v3" --gpu h200 --gpus 8 --get warnings
expect_rc 0; expect_out "the record for deepseek-v3 is an estimate: its 1 multi-token-prediction layer(s) are not counted"
# A multimodal checkpoint's vision tower is weights (Gemma 3's SigLIP and projector: 423M).
run catalog import "$HF/gemma-3-27b"
expect_rc 0; expect_out 'encoder_params = 423059184'
run train --model "$HF/deepseek-v3" --gpus 2048 --tokens 1T
expect_rc 0; expect_err "deepseek-v3 is an estimate: its 1 multi-token-prediction layer(s) are not counted"
# A catalog record of one's own, in train and in a plan.
printf '[models.mine]\nname = "mine"\nsource = "test"\nlayers = 16\nhidden = 2048\nheads = 16\nffn = 5632\nvocab = 32000\nactivation = "swiglu"\nnorm = "rmsnorm"\ntied_embeddings = false\nmax_context = 4096\n' >"$TMP/mine.toml"
run train --model "$TMP/mine.toml" --gpus 8 --tokens 10B --get model
expect_rc 0; [ "$out" = mine ] || fail "train --model mine.toml named the model '$out'"
printf '[[scenario]]\nname = "a"\nmodel = "%s"\ngpus = 8\ntokens = "10B"\n' "$TMP/mine.toml" >"$TMP/plan.toml"
run plan "$TMP/plan.toml" --get scenarios.a.model
expect_rc 0; [ "$out" = mine ] || fail "a plan's model file gave '$out'"
# A GGUF file: its own mix is the default format, at the file's exact bits.
run catalog import "$SRC/tests/fuzz/seeds/gguf/qwen3moe-mxfp4.gguf"
expect_rc 0; expect_out 'experts = 4'; expect_out 'native_quant = "gguf"'; expect_out 'native_bits_per_weight = '
run catalog import "$SRC/tests/fuzz/seeds/gguf/llama-q4_k_m.gguf"
expect_rc 65; expect_err "llama-q4_k_m.gguf: error: 'vocab' = 16"; expect_one_line_err
# Bad input: one line naming the file and the field.
mkdir -p "$TMP/noconfig"
bad 66 "a model directory holds a config.json" infer --model "$TMP/noconfig"
printf '{"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": -2}' >"$TMP/neg.json"
bad 65 "num_hidden_layers" infer --model "$TMP/neg.json"
# Two fields out of range: still one line, the first and a count of the rest.
printf '{"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 32, "intermediate_size": 11008, "vocab_size": 5, "max_position_embeddings": 1}' >"$TMP/two.json"
bad 65 "(and 1 more problem)" infer --model "$TMP/two.json"
# A number past a double is nlohmann's out_of_range, not its parse_error: still not JSON, exit 65
# (fuzz_hf found it escaping as an internal error).
printf '{"num_hidden_layers": 1e400, "hidden_size": 4096}' >"$TMP/overflow.json"
bad 65 "not JSON: [json.exception.out_of_range.406] number overflow" infer --model "$TMP/overflow.json"
bad 66 "cannot read" infer --model ./no-such-model.gguf
# A model directory named without a slash is a directory all the same.
cp -r "$HF/llama-3.1-8b" "$TMP/my-model"
w=$(cd "$TMP" && "$GPUPLAN" memory --mode infer --model my-model --get weights_bytes) || fail "--model my-model from its parent"
[ "$w" = "$catalog" ] || fail "--model my-model gave $w weight bytes, the catalog $catalog"
bad 2 "ep 8: llama-3.1-8b is a dense model" infer --model llama-3.1-8b --gpu h100-sxm --ep 8

# Devices too: --gpu takes a record of one's own, --gpu-memory a variant's capacity.
printf '[accelerators.rtx-4090d-48gb]\nname = "RTX 4090D 48GB"\nvendor = "NVIDIA"\nfamily = "ada"\nmemory_bytes = "48GiB"\nmemory_bw_bytes_per_s = "1008GB/s"\nbf16_flops_per_s = "165T"\nscale_up = "pcie4"\nhost_link = "pcie4"\nlaunch_year = 2024\nsource = "test"\n' >"$TMP/dev.toml"
run infer --model llama-3.1-70b --gpu "$TMP/dev.toml" --quant q4_k_m --format json
expect_rc 0; expect_out '"gpu": "rtx-4090d-48gb"'; expect_out '"capacity_bytes": 51539607552'; expect_out '"fits": true'
run infer --model qwen3-32b --gpu apple-m3-max --gpu-memory 36GiB --quant q4_k_m --get unified_memory_bytes
expect_rc 0; [ "$out" = 38654705664 ] || fail "--gpu-memory 36GiB gave $out"
grep -v memory_bw "$TMP/dev.toml" >"$TMP/dev-missing.toml"
bad 65 "missing required key 'memory_bw_bytes_per_s'" infer --model llama-3.1-8b --gpu "$TMP/dev-missing.toml"
bad 2 "--gpu-memory" infer --model llama-3.1-8b --gpu-memory -5GB

finish
