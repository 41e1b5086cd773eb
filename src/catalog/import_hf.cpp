// SPDX-License-Identifier: Apache-2.0
// A Hugging Face config.json as a catalog model record. The keys are transformers' own
// (PretrainedConfig and each model's config class: LlamaConfig, Qwen3MoeConfig,
// DeepseekV3Config, GptOssConfig, Gemma3TextConfig, ...); nlohmann/json reads the file, and only
// this file sees it.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "gpuplan/error.hpp"
#include "import_common.hpp"

namespace gpuplan {

namespace {
using json = nlohmann::json;

// The first of `keys` that the config holds, as a number; nullopt when none does. A key present
// with another type, a negative or a non-finite value is an error naming it.
std::optional<double> number_of(const json& c, std::initializer_list<const char*> keys, const std::string& path) {
  for (const char* k : keys) {
    const auto it = c.find(k);
    if (it == c.end() || it->is_null()) continue;
    if (!it->is_number()) import_error(path, k, fmt::format("is {}, not a number", it->type_name()));
    const double v = it->get<double>();
    if (!std::isfinite(v) || v < 0) import_error(path, k, fmt::format("is {}; expected a count of zero or more", it->dump()));
    return v;
  }
  return std::nullopt;
}

double required(const json& c, std::initializer_list<const char*> keys, const std::string& path) {
  if (auto v = number_of(c, keys, path); v && *v > 0) return *v;
  import_error(path, *keys.begin(), "is missing (or zero); the model's shape needs it");
}

bool flag_of(const json& c, const char* key, bool fallback) {
  const auto it = c.find(key);
  return it != c.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

std::string text_of(const json& c, const char* key) {
  const auto it = c.find(key);
  return it != c.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// How many entries of the config's layer_types are `kind`; empty where it has no such list.
std::optional<double> layers_of_type(const json& c, const char* kind) {
  const auto it = c.find("layer_types");
  if (it == c.end() || !it->is_array()) return std::nullopt;
  double n = 0;
  for (const auto& t : *it) n += t.is_string() && t.get<std::string>() == kind;
  return n;
}

// Bytes of a linear mixer's recurrent state element: float32 unless mamba_ssm_dtype says 16-bit.
double ssm_state_elem_bytes(const json& c) {
  const std::string dtype = text_of(c, "mamba_ssm_dtype");
  return dtype == "bfloat16" || dtype == "float16" ? 2 : 4;
}

// Gated DeltaNet layers (Qwen3-Next, Qwen3.5; transformers' Qwen3NextGatedDeltaNet): in_proj_qkvz
// h x (2 nk dk + 2 nv dv), in_proj_ba h x 2 nv, a depthwise convolution of kernel K over the
// 2 nk dk + nv dv channels of Q, K and V, A_log and dt_bias (nv each), a gated RMSNorm (dv) and
// out_proj nv dv x h. Their state per sequence: the recurrent nv x dk x dv matrix (in the
// config's mamba_ssm_dtype, which Qwen3.5's configs set to float32; float32 where it is absent, as
// transformers' reference recurrence keeps it) and the convolution's last K - 1 inputs (16-bit). The layers are those layer_types names linear_attention, else all but
// every full_attention_interval-th. Empty without the linear_* keys.
struct LinearMixer {
  double layers = 0, params = 0, state_bytes = 0;
};
std::optional<LinearMixer> gated_deltanet(const json& c, double layers, const std::string& path) {
  const auto nk = number_of(c, {"linear_num_key_heads"}, path), nv = number_of(c, {"linear_num_value_heads"}, path);
  const auto dk = number_of(c, {"linear_key_head_dim"}, path), dv = number_of(c, {"linear_value_head_dim"}, path);
  if (!nk || !nv || !dk || !dv || *nk <= 0 || *nv <= 0 || *dk <= 0 || *dv <= 0) return std::nullopt;
  const double h = required(c, {"hidden_size"}, path);
  const double kernel = number_of(c, {"linear_conv_kernel_dim"}, path).value_or(4);
  LinearMixer g;
  if (auto listed = layers_of_type(c, "linear_attention")) {
    g.layers = *listed;
  } else {
    const double interval = std::max(1.0, number_of(c, {"full_attention_interval"}, path).value_or(4));
    g.layers = layers - std::floor(layers / interval);
  }
  if (g.layers <= 0) return std::nullopt;
  const double key = *nk * *dk, value = *nv * *dv, conv = 2 * key + value;
  g.params = h * (2 * key + 2 * value) + h * 2 * *nv + conv * kernel + 2 * *nv + *dv + value * h;
  g.state_bytes = *nv * *dk * *dv * ssm_state_elem_bytes(c) + conv * (kernel - 1) * 2;
  return g;
}

// Mamba-2 mixers as Nemotron-H's hybrid_override_pattern places them (transformers'
// NemotronHMamba2Mixer): in_proj h x (2 d_inner + 2 g s + n_heads) (d_inner = n_heads x head_dim),
// a depthwise convolution of kernel K with bias over the d_inner + 2 g s channels of x, B and C,
// dt_bias, A_log and D (n_heads each), a gated RMSNorm (d_inner) and out_proj d_inner x h. Its state
// per sequence: the n_heads x head_dim x s recurrent state (float32 unless mamba_ssm_dtype says
// 16-bit, as for Gated DeltaNet above) and the convolution's last K - 1 inputs (16-bit).
std::optional<LinearMixer> mamba2(const json& c, double mixers, const std::string& path) {
  const auto nh = number_of(c, {"mamba_num_heads"}, path), hd = number_of(c, {"mamba_head_dim"}, path);
  const auto st = number_of(c, {"ssm_state_size"}, path);
  if (!nh || !hd || !st || *nh <= 0 || *hd <= 0 || *st <= 0 || mixers <= 0) return std::nullopt;
  const double h = required(c, {"hidden_size"}, path);
  const double groups = number_of(c, {"n_groups"}, path).value_or(1);
  const double kernel = number_of(c, {"conv_kernel"}, path).value_or(4);
  const double inner = *nh * *hd, conv = inner + 2 * groups * *st;
  LinearMixer m;
  m.layers = mixers;
  m.params = h * (2 * inner + 2 * groups * *st + *nh) + conv * (kernel + 1) + 3 * *nh + inner + inner * h;
  m.state_bytes = *nh * *hd * *st * ssm_state_elem_bytes(c) + conv * (kernel - 1) * 2;
  return m;
}

// Layers i of `layers` with i % period == offset (Jamba's attention and expert layers).
double every_period(double layers, double period, double offset) {
  if (period < 1 || offset < 0 || offset >= layers) return 0;
  return std::floor((layers - 1 - offset) / period) + 1;
}

// Jamba's Mamba (Mamba-1) mixers (transformers' JambaMambaMixer), in all but the attention layers
// (every attn_layer_period-th from attn_layer_offset): in_proj h x 2 d_inner (d_inner = expand x
// h), a depthwise convolution of kernel K over d_inner channels (with its bias where
// mamba_conv_bias), x_proj d_inner x (dt_rank + 2 s), dt_proj dt_rank x d_inner with its bias,
// A_log d_inner x s, D (d_inner), out_proj d_inner x h (in and out with biases where
// mamba_proj_bias), and RMSNorms on dt, B and C (dt_rank + 2 s). Its state per sequence: the
// d_inner x s recurrent state (float32 unless mamba_ssm_dtype says 16-bit) and the convolution's
// last K - 1 inputs (16-bit).
std::optional<LinearMixer> mamba1(const json& c, double layers, const std::string& path) {
  const auto st = number_of(c, {"mamba_d_state"}, path), period = number_of(c, {"attn_layer_period"}, path);
  if (!st || !period || *st <= 0) return std::nullopt;
  const double h = required(c, {"hidden_size"}, path);
  const double inner = number_of(c, {"mamba_expand"}, path).value_or(2) * h;
  const double kernel = number_of(c, {"mamba_d_conv"}, path).value_or(4);
  const auto rank = number_of(c, {"mamba_dt_rank"}, path);
  const double dt = rank && *rank > 0 ? *rank : std::ceil(h / 16);  // "auto": ceil(h / 16)
  const bool conv_bias = flag_of(c, "mamba_conv_bias", true), proj_bias = flag_of(c, "mamba_proj_bias", false);
  LinearMixer m;
  m.layers = layers - every_period(layers, *period, number_of(c, {"attn_layer_offset"}, path).value_or(0));
  if (m.layers <= 0 || m.layers >= layers) return std::nullopt;
  m.params = h * 2 * inner + inner * kernel + (conv_bias ? inner : 0) + inner * (dt + 2 * *st) + dt * inner + inner +
             inner * *st + inner + inner * h + (proj_bias ? 2 * inner + h : 0) + dt + 2 * *st;
  m.state_bytes = inner * *st * ssm_state_elem_bytes(c) + inner * (kernel - 1) * 2;
  return m;
}

// A ViT encoder tower as SigLIP and CLIP build it (their transformers modelling code): patch
// embedding (a C x p x p convolution with bias), one learned position per patch, L pre-norm blocks
// of attention (four h x h matrices with biases) and a two-matrix MLP (with biases), two
// LayerNorms a block and one after; then one h x d projection into the language model's width (Gemma 3's
// multimodal projector). SigLIP So400m (h 1152, MLP 4304, 27 layers, patch 14 of 896) comes to
// 416.9M, the Gemma 3 report's 417M vision encoder. Empty when the config lacks the shape.
std::optional<double> vit_params(const json& v, double text_hidden, const std::string& path) {
  if (!v.is_object()) return std::nullopt;
  const auto h = number_of(v, {"hidden_size", "embed_dim"}, path);
  const auto f = number_of(v, {"intermediate_size"}, path);
  const auto layers = number_of(v, {"num_hidden_layers", "depth"}, path);
  const auto patch = number_of(v, {"patch_size"}, path);
  if (!h || !f || !layers || !patch || *h <= 0 || *f <= 0 || *layers <= 0 || *patch <= 0) return std::nullopt;
  const double channels = number_of(v, {"num_channels", "in_channels"}, path).value_or(3);
  const double image = number_of(v, {"image_size"}, path).value_or(0);
  const double positions = image > 0 ? std::pow(std::floor(image / *patch), 2) : number_of(v, {"num_position_embeddings"}, path).value_or(0);
  const double block = 4 * *h * *h + 4 * *h + 2 * *h * *f + *f + *h + 4 * *h;
  return channels * *patch * *patch * *h + *h + positions * *h + *layers * block + 2 * *h + *h * text_hidden;
}

}  // namespace

std::optional<double> safetensors_total(std::string_view index_text) {
  // {"metadata": {"total_size": BYTES}, "weight_map": {...}}; a file that is not JSON is ignored.
  const json index = json::parse(index_text, nullptr, false);
  if (!index.is_object() || !index.contains("metadata") || !index["metadata"].is_object()) return std::nullopt;
  const json& size = index["metadata"].value("total_size", json());
  if (!size.is_number()) return std::nullopt;
  const double v = size.get<double>();
  return v > 0 && std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

ImportedFields import_hf_config(std::string_view text, const std::string& path, std::optional<double> index_bytes) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::exception& e) {  // a syntax error, or a number past a double (out_of_range)
    fail(Exit::data, fmt::format("{}: error: not JSON: {}", shown(path), shown(e.what(), 200)));
  }
  if (!root.is_object()) fail(Exit::data, fmt::format("{}: error: a config.json is a JSON object", shown(path)));
  // A multimodal checkpoint's language model is its text_config (Gemma 3, Llama 4, Mistral 3).
  const bool nested = root.contains("text_config") && root["text_config"].is_object();
  const json& c = nested ? root["text_config"] : root;
  std::string type = text_of(c, "model_type");
  if (type.empty()) type = text_of(root, "model_type");

  ImportedFields f;
  f.family = type;
  const double layers = required(c, {"num_hidden_layers", "n_layer", "num_layers"}, path);
  const double hidden = required(c, {"hidden_size", "n_embd", "d_model"}, path);
  const double heads = required(c, {"num_attention_heads", "n_head"}, path);
  f.set("layers", layers);
  f.set("hidden", hidden);
  f.set("heads", heads);
  double kv = number_of(c, {"num_key_value_heads", "num_kv_heads"}, path).value_or(heads);
  if (flag_of(c, "multi_query", false)) kv = 1;
  f.set("kv_heads", kv);
  if (auto hd = number_of(c, {"head_dim", "attention_head_dim"}, path); hd && *hd > 0 && *hd * heads != hidden) f.set("head_dim", *hd);
  // Gemma 3's configs leave out what its config class defaults (transformers' Gemma3TextConfig:
  // a 262,208-token vocabulary and 131,072 positions).
  const bool gemma3 = type.rfind("gemma3", 0) == 0;
  if (gemma3 && !number_of(c, {"vocab_size"}, path)) f.set("vocab", 262208);
  else f.set("vocab", required(c, {"vocab_size"}, path));
  const auto context = number_of(c, {"max_position_embeddings", "n_positions", "max_sequence_length"}, path);
  f.set("max_context", context.value_or(gemma3 ? 131072 : 4096));

  // The MLP: gated (SwiGLU, GeGLU) for every family but the GPT-2 and BLOOM lines.
  std::string act = text_of(c, "hidden_act").empty() ? text_of(c, "hidden_activation") : text_of(c, "hidden_act");
  if (act.empty() && type.rfind("gemma", 0) == 0) act = "gelu_pytorch_tanh";  // Gemma's config classes' default
  const bool plain = type == "gpt2" || type == "gpt_neox" || type == "gptj" || type == "bloom" || type == "opt" ||
                     type == "falcon" || type == "gpt_bigcode" || type == "phi" || type == "starcoder2";
  f.set_text("activation", plain ? "gelu" : act.rfind("gelu", 0) == 0 ? "geglu" : "swiglu");
  const bool layernorm = c.contains("layer_norm_eps") || c.contains("layer_norm_epsilon") || c.contains("layernorm_epsilon");
  f.set_text("norm", layernorm && !c.contains("rms_norm_eps") ? "layernorm" : "rmsnorm");
  // transformers' PretrainedConfig ties the embeddings unless the config says otherwise.
  f.set_flag("tied_embeddings", flag_of(c, "tie_word_embeddings", flag_of(root, "tie_word_embeddings", true)));
  f.set_flag("qkv_bias", flag_of(c, "attention_bias", type == "qwen2" || type == "qwen2_moe"));
  // GPT-2 learns a position embedding for each of n_positions and biases every linear layer
  // (transformers' modeling_gpt2: wpe, Conv1D with bias).
  if (type == "gpt2") {
    f.set_flag("learned_positions", true);
    f.set_flag("linear_bias", true);
  }

  // Mixture of experts: routed experts, experts per token, shared experts, leading dense layers.
  // Llama 4 names its dense MLP's width intermediate_size_mlp and its experts' intermediate_size,
  // keeps one shared expert beside the routed ones, and interleaves MoE layers (every
  // interleave_moe_layer_step-th, listed in moe_layers): as many leading dense layers count the same.
  const bool llama4 = type.rfind("llama4", 0) == 0;
  const auto experts = number_of(c, {"num_local_experts", "num_experts", "n_routed_experts"}, path);
  // GPT-2's config leaves n_inner null for 4 x n_embd (transformers' GPT2Config).
  const bool gpt2 = type == "gpt2";
  const double width = gpt2 && !number_of(c, {"n_inner"}, path) ? 4 * hidden : required(c, {"intermediate_size", "n_inner", "ffn_dim"}, path);
  const double ffn = number_of(c, {"intermediate_size_mlp"}, path).value_or(width);
  f.set("ffn", ffn);
  if (experts && *experts > 1) {
    f.set("experts", *experts);
    f.set("active_experts", required(c, {"num_experts_per_tok", "experts_per_token", "moe_topk"}, path));
    const double expert_ffn = number_of(c, {"moe_intermediate_size", "expert_intermediate_size"}, path).value_or(width);
    f.set("expert_ffn", expert_ffn);
    // A shared expert's own width, where the config gives one (Qwen2-MoE, Nemotron-H), counts as
    // that many of the routed experts' width: one wide shared expert.
    const auto shared_width = number_of(c, {"shared_expert_intermediate_size", "moe_shared_expert_intermediate_size"}, path);
    if (shared_width && *shared_width > 0) {
      const double shared = number_of(c, {"n_shared_experts", "num_shared_experts"}, path).value_or(1);
      f.set("shared_experts", std::max(1.0, std::round(std::max(1.0, shared) * *shared_width / expert_ffn)));
    } else if (auto shared = number_of(c, {"n_shared_experts", "num_shared_experts"}, path); shared && *shared > 0) {
      f.set("shared_experts", *shared);
    }
    if (auto dense = number_of(c, {"first_k_dense_replace"}, path); dense && *dense > 0) f.set("dense_layers", *dense);
    if (llama4) {
      f.set("shared_experts", 1);
      double moe_layers = std::floor(layers / std::max(1.0, number_of(c, {"interleave_moe_layer_step"}, path).value_or(1)));
      if (c.contains("moe_layers") && c["moe_layers"].is_array() && !c["moe_layers"].empty())
        moe_layers = static_cast<double>(c["moe_layers"].size());
      if (moe_layers < layers) f.set("dense_layers", layers - moe_layers);
    }
    // Jamba: an MoE MLP in every expert_layer_period-th layer from expert_layer_offset.
    if (auto period = number_of(c, {"expert_layer_period"}, path); period && *period > 1) {
      const double moe_layers = every_period(layers, *period, number_of(c, {"expert_layer_offset"}, path).value_or(0));
      if (moe_layers > 0 && moe_layers < layers) f.set("dense_layers", layers - moe_layers);
    }
  }
  // Multi-head latent attention (DeepSeek-V2/V3, Kimi K2).
  if (auto r = number_of(c, {"kv_lora_rank"}, path); r && *r > 0) {
    f.set("kv_lora_rank", *r);
    if (auto q = number_of(c, {"q_lora_rank"}, path); q && *q > 0) f.set("q_lora_rank", *q);
    f.set("qk_rope_dim", required(c, {"qk_rope_head_dim"}, path));
    f.set("qk_nope_dim", required(c, {"qk_nope_head_dim"}, path));
    f.set("v_head_dim", required(c, {"v_head_dim"}, path));
  }
  // Sliding-window attention: the layers the config lists as sliding, else as the family has them
  // (sliding_layers_of); a window with use_sliding_window false (Qwen2) is off.
  if (auto w = number_of(c, {"sliding_window"}, path); w && *w > 0 && *w < 1e9 && flag_of(c, "use_sliding_window", true)) {
    const auto listed = layers_of_type(c, "sliding_attention");
    const double sliding =
        listed ? *listed : sliding_layers_of(type, layers, number_of(c, {"sliding_window_pattern"}, path).value_or(6));
    if (sliding > 0) {
      f.set("sliding_window", *w);
      f.set("sliding_layers", sliding);
    }
  }
  // Chunked attention (Llama 4): a layer attends within its chunk only, so its cache holds at
  // most a chunk, as a window would. The chunked layers are the RoPE ones (no_rope_layers 1);
  // every no_rope_layer_interval-th (4th) layer is global.
  if (auto chunk = number_of(c, {"attention_chunk_size"}, path); chunk && *chunk > 0 && *chunk < 1e9 && !f.has("sliding_window")) {
    double chunked = layers - std::floor(layers / std::max(1.0, number_of(c, {"no_rope_layer_interval"}, path).value_or(4)));
    if (c.contains("no_rope_layers") && c["no_rope_layers"].is_array() && c["no_rope_layers"].size() == static_cast<std::size_t>(layers)) {
      chunked = 0;
      for (const auto& t : c["no_rope_layers"]) chunked += t.is_number() && t.get<double>() != 0;
    }
    if (chunked > 0) {
      f.set("sliding_window", *chunk);
      f.set("sliding_layers", chunked);
    }
  }
  // The checkpoint's own format: gpt-oss ships MXFP4 experts (quantization_config quant_method mxfp4).
  if (c.contains("quantization_config") || root.contains("quantization_config")) {
    const json& q = root.contains("quantization_config") ? root["quantization_config"] : c["quantization_config"];
    const std::string method = q.is_object() ? text_of(q, "quant_method") : std::string();
    if (method == "mxfp4" && experts) f.set_text("native_quant", "mxfp4"), f.set_text("native_quant_scope", "experts");
    // DeepSeek's, Kimi K2's and Qwen3's FP8 checkpoints give their 128 x 128 scale blocks.
    if (method == "fp8") f.set_text("native_quant", q.contains("weight_block_size") ? "fp8-block" : "fp8");
  }
  // What the catalog's schema cannot describe: planned as the nearest thing it can, and said.
  if (!context && !gemma3)
    f.caveats.push_back("the config gives no context length: 4,096 assumed");
  double other_layers = 0;
  if (c.contains("layer_types") && c["layer_types"].is_array())
    for (const auto& t : c["layer_types"])
      other_layers += !(t.is_string() && (t.get<std::string>() == "full_attention" || t.get<std::string>() == "sliding_attention"));
  bool mamba_planned = false;
  // Jamba: Mamba-1 mixers in all but every attn_layer_period-th layer, counted exactly.
  if (const auto mixer = type == "jamba" ? mamba1(c, layers, path) : std::nullopt) {
    f.set("linear_layers", mixer->layers);
    f.set("linear_params", mixer->params);
    f.set("linear_state_bytes", mixer->state_bytes);
    mamba_planned = true;
  }
  // Nemotron-H: each of its layers is one of a Mamba-2 mixer (M), attention (*) or an MLP (-).
  // Planned as one layer per mixer with an MLP of the width that gives the same MLP weights in
  // all (the MLP-only layers' shared out), so that weights, FLOPs, KV cache and state are exact;
  // the layer count (launch overheads, pipeline stages) is the mixers'.
  // Its MoE variants (Nemotron 3) have MoE blocks (E) in place of the MLPs: planned the same way,
  // as one layer per mixer whose MoE MLP's experts (and shared expert) are narrowed so that the
  // experts' weights and each token's expert FLOPs are the model's; only the router, one per
  // layer, is counted in the mixers' layers rather than the MoE blocks'.
  const std::string pattern = text_of(c, "hybrid_override_pattern");
  if (!pattern.empty() && pattern.size() == static_cast<std::size_t>(layers)) {
    const double m = static_cast<double>(std::count(pattern.begin(), pattern.end(), 'M'));
    const double a = static_cast<double>(std::count(pattern.begin(), pattern.end(), '*'));
    const double d = static_cast<double>(std::count(pattern.begin(), pattern.end(), '-'));
    const double e = static_cast<double>(std::count(pattern.begin(), pattern.end(), 'E'));
    const bool moe_blocks = e > 0 && d == 0 && f.has("experts");
    if (const auto mixer = mamba2(c, m, path); mixer && a > 0 && m + a + d + e == layers && (e == 0 || moe_blocks)) {
      const double mixers = m + a;
      f.set("layers", mixers);
      f.set("linear_layers", mixer->layers);
      f.set("linear_params", mixer->params);
      f.set("linear_state_bytes", mixer->state_bytes);
      // Squared-ReLU MLPs have two matrices, as the plain (GeLU) MLP does.
      if (text_of(c, "mlp_hidden_act") == "relu2" || act == "relu2") f.set_text("activation", "gelu");
      if (moe_blocks) {
        const double expert = number_of(c, {"moe_intermediate_size", "expert_intermediate_size"}, path).value_or(width);
        const double narrowed = std::round(expert * e / mixers);
        f.set("expert_ffn", narrowed);
        f.set("ffn", narrowed);
        f.caveats.push_back(fmt::format("its {:.0f} layers ({:.0f} Mamba-2, {:.0f} attention, {:.0f} MoE alone) are planned as "
                                        "{:.0f} layers of a mixer and an MoE MLP whose experts are {:.0f} wide ({:.0f}/{:.0f} of "
                                        "{:.0f}): weights, FLOPs, KV cache and state as the model has them but for {:.0f} more "
                                        "routers, per-layer overheads and pipeline stages over {:.0f} layers",
                                        layers, m, a, e, mixers, narrowed, e, mixers, expert, mixers - e, mixers));
      } else {
        const double mlp = std::round(width * d / mixers);
        f.set("ffn", mlp);
        f.caveats.push_back(fmt::format("its {:.0f} layers ({:.0f} Mamba-2, {:.0f} attention, {:.0f} MLP alone) are planned as "
                                        "{:.0f} layers of a mixer and an MLP {:.0f} wide: weights, FLOPs, KV cache and state as "
                                        "the model has them, per-layer overheads and pipeline stages over {:.0f} layers",
                                        layers, m, a, d, mixers, mlp, mixers));
      }
      mamba_planned = true;
    }
  }
  // Gated DeltaNet (Qwen3-Next, Qwen3.5): counted exactly; other linear mixers are not.
  if (const auto gdn = mamba_planned ? std::nullopt : gated_deltanet(c, layers, path)) {
    f.set("linear_layers", gdn->layers);
    f.set("linear_params", gdn->params);
    f.set("linear_state_bytes", gdn->state_bytes);
    other_layers -= gdn->layers;
  }
  if (type == "qwen3_next" || flag_of(c, "attn_output_gate", false)) f.set_flag("attn_output_gate", true);
  const bool hybrid = mamba_planned ? false : other_layers > 0 || (!f.has("linear_layers") && c.contains("linear_num_value_heads")) || c.contains("ssm_state_size") ||
                      c.contains("mamba_d_state") || c.contains("hybrid_override_pattern") || c.contains("layers_block_type");
  if (hybrid)
    f.caveats.push_back(other_layers > 0 ? fmt::format("{:.0f} of its {:.0f} layers are linear-attention or state-space layers, "
                                                       "planned as full attention (their KV cache and attention cost are overstated)",
                                                       other_layers, layers)
                                         : "its linear-attention or state-space layers are planned as full attention (their KV cache "
                                           "and attention cost are overstated)");
  // DeepSeek sparse attention: the indexer's shape and top-k, counted and cached exactly.
  if (auto k = number_of(c, {"index_topk"}, path); k && *k > 0) {
    const auto ih = number_of(c, {"index_n_heads"}, path), idim = number_of(c, {"index_head_dim"}, path);
    if (!ih || !idim || *ih <= 0 || *idim <= 0)
      fail(Exit::data, fmt::format("{}: error: index_topk needs index_n_heads and index_head_dim (the sparse attention's indexer)", shown(path)));
    f.set("sparse_topk", *k);
    f.set("indexer_heads", *ih);
    f.set("indexer_dim", *idim);
    f.caveats.push_back("training prices its sparse attention as dense attention (inference reads the top-k tokens)");
    if (auto freq = number_of(c, {"index_topk_freq"}, path); freq && *freq > 1)
      f.caveats.push_back(fmt::format("its indexer is shared by {:.0f} layers at a time; it is counted in every layer", *freq));
  }
  if (auto mtp = number_of(c, {"num_nextn_predict_layers", "mtp_num_hidden_layers"}, path); mtp && *mtp > 0)
    f.caveats.push_back(fmt::format("its {:.0f} multi-token-prediction layer(s) are not counted", *mtp));
  if (root.contains("vision_config")) {
    if (const auto tower = vit_params(root["vision_config"], hidden, path)) {
      f.set("encoder_params", *tower);
      const std::string kind = text_of(root["vision_config"], "model_type");
      if (kind != "siglip_vision_model" && kind != "clip_vision_model")
        f.caveats.push_back(fmt::format("its vision encoder ({}) is counted as a plain ViT from vision_config", kind.empty() ? "unnamed" : kind));
    } else {
      f.caveats.push_back("its vision encoder's weights are not counted (vision_config lacks the ViT's shape)");
    }
  }
  // The exact count where the checkpoint's index gives its bytes in 16-bit weights.
  const std::string dtype = text_of(root, "torch_dtype").empty() ? text_of(root, "dtype") : text_of(root, "torch_dtype");
  if (index_bytes && (dtype == "bfloat16" || dtype == "float16") && !f.has("native_quant")) f.set("params_total", *index_bytes / 2);
  return f;
}

}  // namespace gpuplan
