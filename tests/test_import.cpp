// SPDX-License-Identifier: Apache-2.0
// Models the user has (issue 34): Hugging Face config.json files and GGUF headers as catalog
// records, checked against the catalog's own records, published parameter counts and KV bytes
// derived by hand.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "catalog_fixture.hpp"
#include "gpuplan/analysis/inference.hpp"
#include "gpuplan/analysis/memory.hpp"
#include "gpuplan/catalog/gguf.hpp"
#include "gpuplan/catalog/import.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/records.hpp"

using namespace gpuplan;
using Approx = Catch::Detail::Approx;

namespace {
const std::string data = std::string(GPUPLAN_SOURCE_DIR) + "/tests/data/hf/";
ModelArch catalog_model(const char* id) { return model_from_record(builtin_catalog().get("models", id)); }
ModelArch imported(const std::string& dir) { return model_from_record(import_model(data + dir)); }

// The shape fields the analyses read, compared one by one.
void same_shape(const ModelArch& a, const ModelArch& b) {
  CHECK(a.layers == b.layers);
  CHECK(a.hidden == b.hidden);
  CHECK(a.heads == b.heads);
  CHECK(a.kv_heads == b.kv_heads);
  CHECK(a.head_dim == b.head_dim);
  CHECK(a.vocab == b.vocab);
  CHECK(a.activation == b.activation);
  CHECK(a.layernorm == b.layernorm);
  CHECK(a.tied_embeddings == b.tied_embeddings);
  CHECK(a.qkv_bias == b.qkv_bias);
  CHECK(a.experts == b.experts);
  CHECK(a.active_experts == b.active_experts);
  CHECK(a.shared_experts == b.shared_experts);
  CHECK(a.dense_layers == b.dense_layers);
  CHECK(a.kv_lora_rank == b.kv_lora_rank);
  CHECK(a.q_lora_rank == b.q_lora_rank);
  CHECK(a.sliding_window == b.sliding_window);
  CHECK(a.sliding_layers == b.sliding_layers);
  if (a.moe()) CHECK(a.expert_ffn == b.expert_ffn);
  if (!a.moe() || a.dense_layers > 0) CHECK(a.ffn == b.ffn);
}
}  // namespace

TEST_CASE("Hugging Face configs import as the catalog's records of the same models") {
  for (const char* id : {"llama-3.1-8b", "qwen3-30b-a3b", "deepseek-v3", "gpt-oss-20b", "gemma-2-9b", "mixtral-8x7b", "qwen2.5-32b",
                         "gemma-3-27b", "llama-3.2-1b", "phi-4", "mistral-7b", "qwen3-8b", "kimi-k2", "qwen3-235b-a22b",
                         "llama-3.1-405b", "llama-2-7b", "llama-3.2-3b", "qwen2.5-14b", "qwen2.5-7b", "qwen3-32b",
                         "gpt2-124m", "tinyllama-1.1b", "qwen3-4b", "qwen3-14b", "qwen3-next-80b-a3b", "llama-4-scout",
                         "llama-4-maverick", "qwen3-coder-480b-a35b", "glm-4.7", "glm-4.5-air", "nemotron-h-8b",
                         "gemma-3-1b", "gemma-3-4b"}) {
    INFO(id);
    same_shape(imported(id), catalog_model(id));
  }
  // Gemma 3's language model is its text_config; its vocabulary the config class's default.
  CHECK(imported("gemma-3-27b").vocab == 262208);
  CHECK(imported("gemma-3-27b").sliding_layers == 52);
  // Nemotron-H 8B: 24 Mamba-2 mixers of in_proj 4,096 x (2 x 8,192 + 2 x 8 x 128 + 128), a
  // depthwise convolution with bias of 10,240 channels x 5, 3 x 128, a gated norm of 8,192 and
  // out_proj 8,192 x 4,096: 109,635,968 each; 4 attention layers of 41,943,040; 24 MLPs of
  // 2 x 4,096 x 21,504; two 131,072 x 4,096 embeddings; and the norms of the 28 planned layers
  // (two each) and the final one, 233,472 (the model has 53: 16,384 fewer).
  const ModelArch nh = imported("nemotron-h-8b");
  CHECK(nh.layers == 28);
  CHECK(nh.linear_layers == 24);
  CHECK(nh.linear_params == 109635968.0);
  CHECK(count_params(nh).total == 24 * 109635968.0 + 4 * 41943040.0 + 24 * 2 * 4096.0 * 21504 + 2 * 131072.0 * 4096 + 233472);
  // Its state a sequence: 128 heads x 64 x 128 in float32 and 3 x 10,240 16-bit inputs a layer.
  CHECK(nh.linear_state_bytes == 128.0 * 64 * 128 * 4 + 3 * 10240.0 * 2);
  // GPT-2 learns its positions and biases every linear layer; its width is 4 x n_embd.
  CHECK(imported("gpt2-124m").learned_positions);
  CHECK(imported("gpt2-124m").linear_bias);
  CHECK(count_params(imported("gpt2-124m")).total == 124439808.0);
  // Gemma 3 1B: one KV head of 256, 22 of 26 layers within a 512-token window, so at 8,192
  // tokens 2 x 256 x 2 bytes x (4 x 8,192 + 22 x 512) a sequence.
  CHECK(kv_cache_bytes(imported("gemma-3-1b"), 2, 1, 8192, 1).value() == Approx(2.0 * 256 * 2 * (4 * 8192 + 22 * 512)));
  // gpt-oss's config says its experts ship in MXFP4 (quantization_config quant_method mxfp4).
  const ModelArch oss = imported("gpt-oss-20b");
  CHECK(oss.native_quant == "mxfp4");
  CHECK(oss.native_quant_experts);
  // DeepSeek's and Kimi's configs give FP8 with weight_block_size [128, 128]: block-scaled FP8.
  CHECK(imported("deepseek-v3").native_quant == "fp8-block");
  CHECK(imported("kimi-k2").native_quant == "fp8-block");
  // gpt-oss alternates sliding (128 tokens) and full layers: layer_types lists 12 of each.
  CHECK(oss.sliding_layers == 12);
}

TEST_CASE("Imported configs count the parameters their publishers state") {
  // Published totals: Llama 3.1 8B 8.03B (model card), Qwen3-30B-A3B 30.5B, DeepSeek-V3 671B
  // without its MTP module (technical report), gpt-oss-20b 20.91B (model card), Gemma 2 9B 9.24B,
  // Mixtral 8x7B 46.7B (model cards), Qwen2.5-32B 32.8B (its safetensors on the Hugging Face hub;
  // the card's 32.5B is rounded down), Llama 3.2 1B 1.23B, Phi-4 14.7B, Mistral 7B 7.24B, Qwen3 8B
  // 8.19B, Qwen3 235B-A22B 235B (model cards), Llama 3.1 405B 405.85B and Llama 2 7B 6,738,415,616
  // (safetensors counts); Llama 3.2 3B 3.21B, Qwen2.5 3B 3.09B, 7B 7.61B and 14B 14.7B, Qwen3 14B
  // 14.8B and 32B 32.8B (model cards); Kimi K2 1.03T (its Hugging Face page, from the
  // safetensors); Qwen3 4B 4.02B (its safetensors, as a public project's notes quote it; the card
  // rounds to 4.0B); Qwen3-Coder 480B-A35B 480B (model card); Gemma 3 1B 1,000M and 4B 3,884M
  // without its vision encoder (the Gemma 3 report's Table 1). Within 0.5%.
  const std::pair<const char*, double> published[] = {{"llama-3.1-8b", 8.03e9},  {"qwen3-30b-a3b", 30.5e9}, {"deepseek-v3", 671e9},
                                                      {"gpt-oss-20b", 20.91e9},  {"gemma-2-9b", 9.24e9},    {"mixtral-8x7b", 46.7e9},
                                                      {"qwen2.5-32b", 32.8e9},   {"llama-3.2-1b", 1.23e9},  {"phi-4", 14.7e9},
                                                      {"mistral-7b", 7.24e9},    {"qwen3-8b", 8.19e9},      {"qwen3-235b-a22b", 235e9},
                                                      {"llama-3.1-405b", 405.85e9}, {"llama-2-7b", 6.738e9},
                                                      {"llama-3.2-3b", 3.21e9},  {"qwen2.5-3b", 3.09e9},    {"qwen2.5-7b", 7.61e9},
                                                      {"qwen2.5-14b", 14.7e9},   {"qwen3-14b", 14.8e9},     {"qwen3-32b", 32.8e9},
                                                      {"kimi-k2", 1.03e12},      {"qwen3-4b", 4.02e9},
                                                      {"qwen3-coder-480b-a35b", 480e9},
                                                      {"gemma-3-1b", 1.0e9},    {"gemma-3-4b", 3.884e9}};
  for (const auto& [id, total] : published) {
    INFO(id);
    CHECK(count_params(imported(id)).total == Approx(total).epsilon(0.005));
  }
}

TEST_CASE("A multimodal config counts its vision tower as weights and not as work") {
  // Gemma 3 27B's SigLIP So400m: patch embedding 3 x 14 x 14 x 1152 + 1152, 4,096 positions
  // (896 / 14 squared) x 1152, 27 blocks of attention (4 x 1152^2 + 4 x 1152), MLP
  // (2 x 1152 x 4304 + 4304 + 1152) and two LayerNorms (4 x 1152), a final LayerNorm, and the
  // 1152 x 5376 projection into the language model.
  const double block = 4.0 * 1152 * 1152 + 4 * 1152 + 2.0 * 1152 * 4304 + 4304 + 1152 + 4 * 1152;
  const double tower = 3.0 * 14 * 14 * 1152 + 1152 + 4096.0 * 1152 + 27 * block + 2 * 1152 + 1152.0 * 5376;
  const ModelArch g = imported("gemma-3-27b");
  CHECK(g.encoder_params == tower);
  // The Gemma 3 report, Table 1: 417M vision encoder + 1,416M embedding + 25,600M non-embedding.
  const ParamCounts pc = count_params(g), text = count_params(catalog_model("gemma-3-27b"));
  CHECK(pc.total == Approx(27.433e9).epsilon(0.005));
  CHECK(pc.total - text.total == Approx(tower));
  CHECK(pc.active == text.active);  // no work per generated token
  const Device h100 = resolve_device(builtin_catalog(), "h100-sxm");
  InferSettings s;
  const InferModel ig = make_infer_model(g, pc, h100, h100, s), it = make_infer_model(catalog_model("gemma-3-27b"), text, h100, h100, s);
  CHECK(decode_step_time(ig, 1, 2048).value() == Approx(decode_step_time(it, 1, 2048).value()));
  CHECK(inference_memory(g, pc, h100, s).weights.value() == Approx(tower * 2 + inference_memory(catalog_model("gemma-3-27b"), text, h100, s).weights.value()));
}

TEST_CASE("Llama 4 imports with its interleaved MoE layers and chunked attention") {
  // Meta's model cards: Scout 109B total and 17B active, Maverick 400B and 17B. Scout: every
  // layer MoE (16 routed experts of width 8192, one of them per token, and a shared one); three
  // layers in four attend within 8,192-token chunks, every fourth globally.
  const ModelArch scout = imported("llama-4-scout");
  CHECK(scout.experts == 16);
  CHECK(scout.shared_experts == 1);
  CHECK(scout.expert_ffn == 8192);
  CHECK(scout.dense_layers == 0);
  CHECK(scout.sliding_window == 8192);
  CHECK(scout.sliding_layers == 36);
  CHECK(count_params(scout).total == Approx(109e9).epsilon(0.005));
  CHECK(count_params(scout).active == Approx(17e9).epsilon(0.02));
  // At 32,768 tokens the 12 global layers hold them all, the 36 chunked ones a chunk:
  // 2 (K and V) x 8 KV heads x 128 x 2 bytes a layer and token.
  CHECK(kv_cache_bytes(scout, 2, 1, 32768, 1).value() == Approx(2.0 * 8 * 128 * 2 * (12 * 32768 + 36 * 8192)));
  // Maverick: 128 experts on every second layer; the other 24 are dense MLPs of width 16384.
  const ModelArch maverick = imported("llama-4-maverick");
  CHECK(maverick.experts == 128);
  CHECK(maverick.dense_layers == 24);
  CHECK(maverick.ffn == 16384);
  CHECK(count_params(maverick).total == Approx(400e9).epsilon(0.005));
  CHECK(count_params(maverick).active == Approx(17e9).epsilon(0.02));
}

TEST_CASE("A hybrid config counts its Gated DeltaNet layers and their fixed state") {
  // Qwen3-Coder-Next (Qwen3-Next's shape): 36 of 48 layers are Gated DeltaNet (16 key heads and
  // 32 value heads of 128, kernel 4), the other 12 gated attention (16 heads of 256, 2 KV heads).
  const ModelArch q = imported("qwen3-coder-next");
  CHECK(q.linear_layers == 36);
  CHECK(q.attn_output_gate);
  // One DeltaNet mixer: in_proj_qkvz 2048 x (2 x 2048 + 2 x 4096), in_proj_ba 2048 x 64, the
  // convolution 8192 x 4, A_log and dt_bias 32 each, the norm 128, out_proj 4096 x 2048.
  CHECK(q.linear_params == 2048.0 * 12288 + 2048 * 64 + 8192 * 4 + 64 + 128 + 4096.0 * 2048);
  // Its checkpoint holds 79,674,391,296 parameters (its safetensors total, as a public test
  // transcribes it; the model card says 80B): within 0.01% (the shared expert's gate and the q/k
  // norms, 104k, are not counted).
  const ParamCounts pc = count_params(q);
  CHECK(pc.total == Approx(79674391296.0).epsilon(1e-4));
  CHECK(pc.total - pc.active == Approx(48.0 * (512 - 10) * 3 * 2048 * 512));
  // The KV cache: 12 layers x 2 (K and V) x 2 heads x 256 x 2 bytes a token; the state: 36 x
  // (32 x 128 x 128 x 4 bytes of recurrence + (2 x 2048 + 4096) x 3 x 2 bytes of convolution)
  // a sequence, whatever its length.
  CHECK(kv_bytes_per_token(q, 2, 1).value() == 12.0 * 2 * 2 * 256 * 2);
  const double state = 36.0 * (32 * 128 * 128 * 4 + 8192 * 3 * 2);
  CHECK(kv_cache_bytes(q, 2, 1, 4096, 3).value() == Approx(3 * (12.0 * 2 * 2 * 256 * 2 * 4096 + state)));
  CHECK(kv_cache_bytes(q, 2, 2, 4096, 1).value() == Approx(12.0 * 2 * 1 * 256 * 2 * 4096 + state / 2));  // tp 2
  CHECK(q.caveat.empty());
}

TEST_CASE("Imported configs hold the KV bytes per token derived by hand") {
  // 2 (K and V) x layers x KV heads x head dim x 2 bytes.
  CHECK(kv_bytes_per_token(imported("llama-3.1-8b"), 2, 1).value() == 2.0 * 32 * 8 * 128 * 2);
  CHECK(kv_bytes_per_token(imported("qwen3-30b-a3b"), 2, 1).value() == 2.0 * 48 * 4 * 128 * 2);
  CHECK(kv_bytes_per_token(imported("gemma-2-9b"), 2, 1).value() == 2.0 * 42 * 8 * 256 * 2);
  CHECK(kv_bytes_per_token(imported("llama-3.2-3b"), 2, 1).value() == 2.0 * 28 * 8 * 128 * 2);
  CHECK(kv_bytes_per_token(imported("qwen2.5-3b"), 2, 1).value() == 2.0 * 36 * 2 * 128 * 2);  // 2048 / 16 heads
  CHECK(kv_bytes_per_token(imported("qwen2.5-7b"), 2, 1).value() == 2.0 * 28 * 4 * 128 * 2);  // 3584 / 28 heads
  CHECK(kv_bytes_per_token(imported("qwen2.5-14b"), 2, 1).value() == 2.0 * 48 * 8 * 128 * 2);
  CHECK(kv_bytes_per_token(imported("qwen3-14b"), 2, 1).value() == 2.0 * 40 * 8 * 128 * 2);
  CHECK(kv_bytes_per_token(imported("qwen3-32b"), 2, 1).value() == 2.0 * 64 * 8 * 128 * 2);
  // Llama 4 Scout's 48 layers at 8 KV heads of 128 (within a chunk, every layer holds them all).
  CHECK(kv_bytes_per_token(imported("llama-4-scout"), 2, 1).value() == 2.0 * 48 * 8 * 128 * 2);
  // MLA: the latent (512) and the rotary key (64) once per layer.
  CHECK(kv_bytes_per_token(imported("deepseek-v3"), 2, 1).value() == 61.0 * (512 + 64) * 2);
  CHECK(kv_bytes_per_token(imported("kimi-k2"), 2, 1).value() == 61.0 * (512 + 64) * 2);
  // The rest, from each config's layers, KV heads and head dim (hidden / heads where no head_dim).
  const std::tuple<const char*, double, double, double> shapes[] = {
      {"gemma-3-27b", 62, 16, 128}, {"gpt-oss-20b", 24, 8, 64},     {"llama-2-7b", 32, 32, 128},   {"llama-3.1-405b", 126, 8, 128},
      {"llama-3.2-1b", 16, 8, 64},  {"mistral-7b", 32, 8, 128},     {"mixtral-8x7b", 32, 8, 128},  {"phi-4", 40, 10, 128},
      {"qwen2.5-32b", 64, 8, 128},  {"qwen3-235b-a22b", 94, 4, 128}, {"qwen3-8b", 36, 8, 128},     {"qwen3-4b", 36, 8, 128}};
  for (const auto& [id, layers, kv, dim] : shapes) {
    INFO(id);
    CHECK(kv_bytes_per_token(imported(id), 2, 1).value() == 2.0 * layers * kv * dim * 2);
  }
  // Gemma 2's sliding layers hold at most 4,096 tokens: at 8,192 half the layers hold half.
  const ModelArch g = imported("gemma-2-9b");
  CHECK(kv_cache_bytes(g, 2, 1, 8192, 1).value() == Approx(2.0 * 8 * 256 * 2 * (21 * 8192 + 21 * 4096)));
}

TEST_CASE("A config gives the same memory and step as the catalog record") {
  const Device h100 = resolve_device(builtin_catalog(), "h100-sxm");
  for (const char* id : {"llama-3.1-8b", "mixtral-8x7b", "qwen3-30b-a3b"}) {
    INFO(id);
    const ModelArch a = imported(id), b = catalog_model(id);
    InferSettings s;
    s.context = 4096;
    const InferMemory ma = inference_memory(a, count_params(a), h100, s), mb = inference_memory(b, count_params(b), h100, s);
    CHECK(ma.weights.value() == Approx(mb.weights.value()));
    CHECK(ma.kv.value() == Approx(mb.kv.value()));
    const InferModel ia = make_infer_model(a, count_params(a), h100, h100, s), ib = make_infer_model(b, count_params(b), h100, h100, s);
    CHECK(decode_step_time(ia, 16, 2048).value() == Approx(decode_step_time(ib, 16, 2048).value()));
    CHECK(prefill_time(ia, 2048, 1).value() == Approx(prefill_time(ib, 2048, 1).value()));
  }
}

TEST_CASE("What the schema cannot describe is the record note and marks it an estimate") {
  // A Qwen3-Next-like config: three linear-attention layers to one full, a state-space key, no
  // context length; and the published configs whose vision encoder (Gemma 3) or
  // multi-token-prediction layer (DeepSeek-V3) the counts leave out.
  namespace fs = std::filesystem;
  const fs::path file = fs::temp_directory_path() / "gpuplan-test-hybrid.json";
  std::ofstream(file) << R"({"model_type": "qwen3_next", "num_hidden_layers": 4, "hidden_size": 1024,
    "num_attention_heads": 8, "num_key_value_heads": 2, "intermediate_size": 2816, "vocab_size": 32000,
    "linear_num_value_heads": 16, "layer_types": ["linear_attention", "linear_attention",
    "linear_attention", "full_attention"]})";
  const ModelArch hybrid = model_from_record(import_model(file.string()));
  fs::remove(file);
  CHECK(hybrid.caveat.find("3 of its 4 layers are linear-attention") != std::string::npos);
  CHECK(hybrid.caveat.find("no context length: 4,096 assumed") != std::string::npos);
  CHECK(hybrid.max_context == 4096);
  CHECK(imported("gemma-3-27b").caveat.empty());  // its SigLIP tower is counted (below)
  CHECK(imported("deepseek-v3").caveat == "its 1 multi-token-prediction layer(s) are not counted");
  CHECK(imported("llama-3.1-8b").caveat.empty());
  CHECK(catalog_model("llama-3.1-8b").caveat.empty());
}

TEST_CASE("A 16-bit checkpoint's safetensors index gives its exact parameter count") {
  // Llama 3.1 8B's index says 16,060,522,496 bytes: 8,030,261,248 bf16 parameters. An index that
  // is not JSON, or gives no positive number, states none (the record has no params_total).
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "gpuplan-test-index";
  fs::create_directories(dir);
  fs::copy_file(data + "llama-3.1-8b/config.json", dir / "config.json", fs::copy_options::overwrite_existing);
  const auto stated = [&](const std::string& index) {
    std::ofstream(dir / "model.safetensors.index.json") << index;
    return model_from_record(import_model(dir.string())).stated_total;
  };
  CHECK(stated(R"({"metadata": {"total_size": 16060522496}, "weight_map": {"lm_head.weight": "a.safetensors"}})") == 8030261248.0);
  CHECK(stated(R"({"metadata": {"total_size": "16060522496"}})") == 0);
  CHECK(stated(R"({"metadata": {"total_size": -5}})") == 0);
  CHECK(stated("not json, \"total_size\": 16060522496") == 0);
  fs::remove_all(dir);
}

TEST_CASE("Bad model files are one error naming the file and the field") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "gpuplan-test-import";
  fs::create_directories(dir / "empty");
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name, std::ios::binary) << text;
    return (dir / name).string();
  };
  const auto code_of = [](const std::string& path) {
    try {
      import_model(path);
    } catch (const Error& e) {
      return std::make_pair(e.code(), std::string(e.what()));
    }
    return std::make_pair(Exit::ok, std::string());
  };
  auto [c1, m1] = code_of(write("missing.json", R"({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32})"));
  CHECK(c1 == Exit::data);
  CHECK(m1.find("num_hidden_layers") != std::string::npos);
  auto [c2, m2] = code_of(write("negative.json", R"({"num_hidden_layers": -4, "hidden_size": 4096, "num_attention_heads": 32})"));
  CHECK(c2 == Exit::data);
  CHECK(m2.find("num_hidden_layers") != std::string::npos);
  auto [c3, m3] = code_of(write("notjson.json", "{ nope"));
  CHECK(c3 == Exit::data);
  CHECK(code_of((dir / "empty").string()).first == Exit::no_input);
  // A config over 1 MiB is refused before it is parsed.
  auto [c4, m4] = code_of(write("huge.json", "{\"x\": \"" + std::string(2 << 20, 'a') + "\"}"));
  CHECK(c4 == Exit::data);
  CHECK(m4.find("at most 1 MiB") != std::string::npos);
  auto [c5, m5] = code_of(write("short.gguf", std::string("GGUF\3\0\0\0\1\0", 10)));
  CHECK(c5 == Exit::data);
  CHECK(m5.find("truncated") != std::string::npos);
  auto [c6, m6] = code_of(write("notgguf.gguf", "GGML"));
  CHECK(c6 == Exit::data);
  fs::remove_all(dir);
}

namespace {
// A GGUF header with no tensor data, written as the specification lays it out.
struct GgufWriter {
  std::string meta, infos;
  std::uint64_t keys = 0, tensors = 0;
  template <class T>
  static void put(std::string& out, T v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }
  static void str(std::string& out, const std::string& s) { put<std::uint64_t>(out, s.size()), out += s; }
  void u32(const std::string& k, std::uint32_t v) { str(meta, k), put<std::uint32_t>(meta, 4), put(meta, v), ++keys; }
  void f32(const std::string& k, float v) { str(meta, k), put<std::uint32_t>(meta, 6), put(meta, v), ++keys; }
  void text(const std::string& k, const std::string& v) { str(meta, k), put<std::uint32_t>(meta, 8), str(meta, v), ++keys; }
  void tokens(std::uint64_t n) {
    str(meta, "tokenizer.ggml.tokens"), put<std::uint32_t>(meta, 9), put<std::uint32_t>(meta, 8), put(meta, n), ++keys;
    for (std::uint64_t i = 0; i < n; ++i) str(meta, "t");
  }
  void tensor(const std::string& name, std::vector<std::uint64_t> dims, std::uint32_t type) {
    str(infos, name), put<std::uint32_t>(infos, static_cast<std::uint32_t>(dims.size()));
    for (auto d : dims) put(infos, d);
    put(infos, type), put<std::uint64_t>(infos, 0), ++tensors;
  }
  std::string bytes() const {
    std::string out = "GGUF";
    put<std::uint32_t>(out, 3), put(out, tensors), put(out, keys);
    return out + meta + infos;
  }
  // The file written to the temporary directory and imported as a model.
  ModelArch imported(const std::string& name) const {
    const auto file = std::filesystem::temp_directory_path() / name;
    std::ofstream(file, std::ios::binary) << bytes();
    ModelArch m = model_from_record(import_model(file.string()));
    std::filesystem::remove(file);
    return m;
  }
};
}  // namespace

TEST_CASE("GGUF headers give the architecture and the exact weight bytes") {
  // A two-layer Llama in Q4_K with Q6_K output, F32 norms: the weight bytes are each tensor's
  // elements / 256 x 144 (Q4_K) or x 210 (Q6_K), or x 4 (F32).
  GgufWriter w;
  w.text("general.architecture", "llama");
  w.u32("general.file_type", 15);  // MOSTLY_Q4_K_M
  w.u32("llama.block_count", 2);
  w.u32("llama.embedding_length", 512);
  w.u32("llama.feed_forward_length", 1536);
  w.u32("llama.attention.head_count", 8);
  w.u32("llama.attention.head_count_kv", 2);
  w.u32("llama.context_length", 4096);
  w.f32("llama.attention.layer_norm_rms_epsilon", 1e-5f);
  w.tokens(1024);
  w.tensor("token_embd.weight", {512, 1024}, 12);
  w.tensor("output.weight", {512, 1024}, 14);
  w.tensor("output_norm.weight", {512}, 0);
  for (int l = 0; l < 2; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    w.tensor(p + "attn_q.weight", {512, 512}, 12);
    w.tensor(p + "attn_k.weight", {512, 128}, 12);
    w.tensor(p + "attn_v.weight", {512, 128}, 14);
    w.tensor(p + "attn_output.weight", {512, 512}, 12);
    w.tensor(p + "ffn_gate.weight", {512, 1536}, 12);
    w.tensor(p + "ffn_up.weight", {512, 1536}, 12);
    w.tensor(p + "ffn_down.weight", {1536, 512}, 14);
    w.tensor(p + "attn_norm.weight", {512}, 0);
    w.tensor(p + "ffn_norm.weight", {512}, 0);
  }
  const std::string bytes = w.bytes();
  const GgufHeader h = parse_gguf(bytes, "test.gguf");
  const double q4k = 512.0 * 1024 + 2 * (512.0 * 512 + 512.0 * 128 + 512.0 * 512 + 2 * 512.0 * 1536);
  const double q6k = 512.0 * 1024 + 2 * (512.0 * 128 + 1536.0 * 512);
  const double f32 = 512.0 + 2 * 2 * 512.0;
  CHECK(h.weight_elements() == q4k + q6k + f32);
  CHECK(h.weight_bytes() == Approx(q4k / 256 * 144 + q6k / 256 * 210 + f32 * 4));
  // As a model: the shape from the metadata, its vocabulary from the token list, untied (there is
  // an output.weight), and its own bits per weight.
  const ModelArch m = w.imported("gpuplan-test-llama.gguf");
  CHECK(m.layers == 2);
  CHECK(m.hidden == 512);
  CHECK(m.heads == 8);
  CHECK(m.kv_heads == 2);
  CHECK(m.ffn == 1536);
  CHECK(m.vocab == 1024);
  CHECK_FALSE(m.tied_embeddings);
  CHECK(m.native_quant == "q4_k_m");
  CHECK(m.native_bpw == Approx(8 * h.weight_bytes() / h.weight_elements()));
  // Its weights at that format are the file's bytes.
  InferSettings s;
  set_quant(s, "q4_k_m", m, resolve_device(builtin_catalog(), "rtx-4090"));
  CHECK(s.bpw == Approx(m.native_bpw));
}

TEST_CASE("GGUF headers of MoE and sliding-window architectures") {
  // A Qwen3-MoE-like file: 4 experts of which 2 per token, expert width 256; and a Gemma 2 file
  // whose sliding window halves the layers it bounds.
  GgufWriter moe;
  moe.text("general.architecture", "qwen3moe");
  moe.u32("qwen3moe.block_count", 2);
  moe.u32("qwen3moe.embedding_length", 512);
  moe.u32("qwen3moe.feed_forward_length", 1536);
  moe.u32("qwen3moe.expert_feed_forward_length", 256);
  moe.u32("qwen3moe.expert_count", 4);
  moe.u32("qwen3moe.expert_used_count", 2);
  moe.u32("qwen3moe.attention.head_count", 8);
  moe.u32("qwen3moe.attention.head_count_kv", 4);
  moe.u32("qwen3moe.attention.key_length", 128);
  moe.tokens(1024);
  moe.tensor("token_embd.weight", {512, 1024}, 8);
  moe.tensor("blk.0.ffn_gate_exps.weight", {512, 256, 4}, 39);  // MXFP4: 32 weights in 17 bytes
  const GgufHeader h = parse_gguf(moe.bytes(), "moe.gguf");
  CHECK(h.weight_bytes() == Approx(512.0 * 1024 / 32 * 34 + 512.0 * 256 * 4 / 32 * 17));
  const ModelArch m = moe.imported("gpuplan-test-moe.gguf");
  CHECK(m.experts == 4);
  CHECK(m.active_experts == 2);
  CHECK(m.expert_ffn == 256);
  CHECK(m.head_dim == 128);
  CHECK(m.tied_embeddings);
  GgufWriter gem;
  gem.text("general.architecture", "gemma2");
  gem.u32("gemma2.block_count", 4);
  gem.u32("gemma2.embedding_length", 256);
  gem.u32("gemma2.feed_forward_length", 1024);
  gem.u32("gemma2.attention.head_count", 4);
  gem.u32("gemma2.attention.sliding_window", 128);
  gem.f32("gemma2.attention.layer_norm_rms_epsilon", 1e-6f);
  gem.tokens(1024);
  gem.tensor("token_embd.weight", {256, 1024}, 1);
  gem.tensor("blk.0.ffn_up.weight", {256, 1024}, 1);
  gem.tensor("blk.1.ffn_up.weight", {256, 1024}, 1);
  gem.tensor("blk.2.ffn_up.weight", {256, 1024}, 1);
  const ModelArch g = gem.imported("gpuplan-test-gemma.gguf");
  CHECK(g.sliding_window == 128);
  CHECK(g.sliding_layers == 2);
  CHECK(g.activation == Activation::geglu);
}

TEST_CASE("DeepSeek-V3.2's sparse attention counts its indexer and caches its keys") {
  // V3's shapes plus a lightning indexer in each of the 61 layers: wq_b 1536 x (64 x 128), wk
  // 7168 x 128, the key LayerNorm's 2 x 128 and weights_proj 7168 x 64, 13,959,424 a layer.
  const ModelArch v3 = imported("deepseek-v3"), v32 = imported("deepseek-v3.2");
  REQUIRE(v32.sparse());
  CHECK(v32.sparse_topk == 2048);
  const double indexer = 1536.0 * 64 * 128 + 7168.0 * 128 + 2 * 128 + 7168.0 * 64;
  CHECK(indexer == 13959424);
  CHECK(count_params(v32).total - count_params(v3).total == Approx(61 * indexer));
  // The cache: MLA's latent and rotary key, and the indexer's FP8 key with its FP32 scale (132 B).
  CHECK(kv_bytes_per_token(v32, 2, 1).value() == 61.0 * ((512 + 64) * 2 + 132));
  CHECK(kv_cache_bytes(v32, 2, 8, 100000, 1).value() == 61.0 * ((512 + 64) * 2 + 132) * 100000);
  // A decode step reads the top 2,048 tokens' latents and every token's indexer key.
  CHECK(kv_read_bytes(v32, 2, 8, 100000, 3).value() == 3 * 61.0 * ((512 + 64) * 2 * 2048 + 132 * 100000.0));
  CHECK(kv_read_bytes(v3, 2, 8, 100000, 3).value() == kv_cache_bytes(v3, 2, 8, 100000, 3).value());
  // Decode attention: MLA absorbed, each of the 128 heads scoring the 512 + 64 latent and summing
  // the 512 latent values, 2 x 128 x 576 + 2 x 128 x 512 = 278,528 FLOPs per key read (2,048 of
  // 100,000 for V3.2), and the indexer's 2 x 64 x 128 per key for all.
  const double pair = 2.0 * 128 * (512 + 64) + 2.0 * 128 * 512;
  CHECK(pair == 278528);
  CHECK(attention_flops(v32, 100000, 1, 1).value() == Approx(61 * (pair * 2048 + 2.0 * 64 * 128 * 100000)));
  CHECK(attention_flops(v3, 100000, 1, 1).value() == Approx(61 * pair * 100000));
  // A dense model's pair is QK^T and PV at its query width, 4 d_q: Llama 3.1 8B, 4 x 4,096.
  CHECK(attention_flops(imported("llama-3.1-8b"), 1000, 1, 1).value() == Approx(32 * 4.0 * 4096 * 1000));
  CHECK(v32.caveat.find("training prices its sparse attention as dense attention") != std::string::npos);
}

TEST_CASE("Sliding-window and sparse layers bound the keys a query reads") {
  // Gemma 2 9B: 21 of its 42 layers attend within 4,096 tokens. At 8,192 cached tokens a query
  // reads (21 x 4,096 + 21 x 8,192) / 42 = 6,144 keys a layer on average; a prefill of 8,192
  // tokens reads 4,096^2 / 2 + 4,096 x 4,096 pairs in a windowed layer, 8,192^2 / 2 in a full one.
  const ModelArch g = imported("gemma-2-9b");
  REQUIRE(g.sliding_window == 4096);
  REQUIRE(g.sliding_layers == 21);
  CHECK(g.attended(8192) == Approx(6144));
  CHECK(g.attended(1000) == Approx(1000));
  CHECK(g.attended_pairs(8192, 0) == Approx((4096.0 * 4096 / 2 + 4096.0 * 4096 + 8192.0 * 8192 / 2) / 2));
  // After 10,000 cached tokens a windowed layer's queries each read the whole window.
  CHECK(g.attended_pairs(100, 10000) == Approx((100 * 4096.0 + 100.0 * 100 / 2 + 100.0 * 10000) / 2));
  // A sparse model's queries read at most its top-k: DeepSeek-V3.2's 2,048.
  const ModelArch v32 = imported("deepseek-v3.2");
  CHECK(v32.attended(100000) == 2048);
  CHECK(v32.attended_pairs(4096, 0) == Approx(2048.0 * 2048 / 2 + 2048.0 * 2048));
}

TEST_CASE("Jamba's Mamba layers and interleaved experts are counted exactly") {
  // AI21 Jamba 1.5 Mini: 32 layers, attention in every 8th from layer 4 (4 layers), Mamba-1
  // mixers in the other 28, an MoE MLP of 16 experts (top 2) in every 2nd from layer 1 (16).
  // A mixer, d_inner 8,192 (2 x 4,096), state 16, conv 4, dt rank 256: in_proj 4,096 x 16,384,
  // the convolution 8,192 x 4 and its bias, x_proj 8,192 x 288, dt_proj 256 x 8,192 and its bias,
  // A_log 8,192 x 16, D, out_proj 8,192 x 4,096 and the dt, B and C norms (256 + 16 + 16).
  const ModelArch j = imported("jamba-1.5-mini");
  const double mixer = 4096.0 * 16384 + 8192 * 4 + 8192 + 8192.0 * 288 + 256.0 * 8192 + 8192 + 8192.0 * 16 + 8192 +
                       8192.0 * 4096 + 288;
  CHECK(j.linear_layers == 28);
  CHECK(j.attention_layers() == 4);
  CHECK(j.linear_params == Approx(mixer));
  CHECK(j.moe_layers() == 16);
  CHECK(j.caveat.empty());
  // The state a sequence keeps: the float32 8,192 x 16 recurrent state and 3 16-bit inputs.
  CHECK(j.linear_state_bytes == 8192.0 * 16 * 4 + 8192.0 * 3 * 2);
  // The KV cache of its 4 attention layers (8 KV heads of 128).
  CHECK(kv_bytes_per_token(j, 2, 1).value() == 4.0 * 2 * 8 * 128 * 2);
  // AI21's model card: 52B parameters in total, 12B active.
  const ParamCounts pc = count_params(j);
  CHECK(pc.total == Approx(52e9).epsilon(0.01));
  CHECK(pc.active == Approx(12e9).epsilon(0.01));
}

TEST_CASE("Nemotron 3's MoE blocks are counted exactly beside its Mamba-2 and attention layers") {
  // NVIDIA Nemotron 3 Nano 30B-A3B: 52 blocks, 23 Mamba-2 mixers (M), 6 attention (*) and 23 MoE
  // blocks (E) of 128 squared-ReLU experts of 1,856 (6 a token) and a shared expert of 3,712.
  // Planned as 29 layers of a mixer and an MoE MLP whose experts are 23/29 as wide, 1,472.
  const ModelArch n = imported("nemotron-3-nano");
  CHECK(n.layers == 29);
  CHECK(n.linear_layers == 23);
  CHECK(n.attention_layers() == 6);
  CHECK(n.moe_layers() == 29);
  CHECK(n.expert_ffn == 1472);
  CHECK(n.shared_experts == 2);
  // A Mamba-2 mixer, 64 heads of 64, 8 groups of state 128, conv 4: in_proj 2,688 x (2 x 4,096 +
  // 2 x 8 x 128 + 64), the convolution with bias over 6,144 channels (x 5), dt_bias, A_log and D,
  // the gated norm (4,096) and out_proj 4,096 x 2,688.
  const double mixer = 2688.0 * (2 * 4096 + 2 * 8 * 128 + 64) + 6144.0 * 5 + 3 * 64 + 4096 + 4096.0 * 2688;
  CHECK(n.linear_params == mixer);
  // The experts' weights and each token's expert work are the model's: 23 x 128 x 2 x 2,688 x
  // 1,856 routed and 23 x 2 x 2,688 x 3,712 shared (6 of the routed a token).
  const ParamCounts pc = count_params(n);
  CHECK(29 * 128 * pc.expert == Approx(23.0 * 128 * 2 * 2688 * 1856));
  CHECK(29 * 6 * pc.expert == Approx(23.0 * 6 * 2 * 2688 * 1856));
  // The KV cache of its 6 attention layers (2 KV heads of 128).
  CHECK(kv_bytes_per_token(n, 2, 1).value() == 6.0 * 2 * 2 * 128 * 2);
  // NVIDIA's model card: 31.6B parameters in total, 3.6B active with the embeddings.
  CHECK(pc.total == Approx(31.6e9).epsilon(0.005));
  CHECK(pc.active == Approx(3.6e9).epsilon(0.01));
  CHECK(n.caveat.find("6 more routers") != std::string::npos);
}
