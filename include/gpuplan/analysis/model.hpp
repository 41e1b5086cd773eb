// SPDX-License-Identifier: Apache-2.0
#pragma once
// A model's architecture and its parameter counts, derived layer by layer.
#include <string>

namespace gpuplan {


enum class Activation { gelu, swiglu, geglu };

struct ModelArch {
  std::string id = "custom";
  std::string name = "custom model";
  int layers = 0, hidden = 0, heads = 0, kv_heads = 0, head_dim = 0, ffn = 0, vocab = 0;
  Activation activation = Activation::swiglu;
  bool layernorm = false;  // LayerNorm (weight and bias) rather than RMSNorm
  bool tied_embeddings = false;
  bool learned_positions = false;
  bool qkv_bias = false;
  bool linear_bias = false;  // GPT-2/3 style biases everywhere; also implies dropout in training
  long max_context = 0;
  long sliding_window = 0;
  int sliding_layers = 0;
  bool attn_output_gate = false;  // a gate projection as wide as Q on the attention output
  // Hybrid models: layers whose mixer is linear attention (Gated DeltaNet) or a state-space
  // model, holding a fixed state per sequence instead of a KV cache.
  int linear_layers = 0;
  double linear_params = 0, linear_state_bytes = 0;
  // Mixture of experts (experts > 1) and multi-head latent attention (kv_lora_rank > 0).
  int experts = 0, active_experts = 0, shared_experts = 0, expert_ffn = 0, dense_layers = 0;
  int q_lora_rank = 0, kv_lora_rank = 0, qk_rope_dim = 0, qk_nope_dim = 0, v_head_dim = 0;
  // DeepSeek sparse attention (DeepSeek-V3.2, arXiv 2512.02556): in every attention layer a
  // lightning indexer of indexer_heads x indexer_dim scores all cached tokens for each query, which
  // then attends to the sparse_topk best. The indexer keeps its own key cache.
  long sparse_topk = 0;
  int indexer_heads = 0, indexer_dim = 0;
  double stated_total = 0, stated_active = 0;
  // A multimodal checkpoint's vision or audio encoder and projector: weights held beside the
  // language model (on its first pipeline stage), with no work per generated token.
  double encoder_params = 0;
  // The format the published checkpoint ships in ("mxfp4" for gpt-oss), the default quantisation;
  // empty: bf16. With native_quant_experts, only the routed experts are in it.
  std::string native_quant;
  bool native_quant_experts = false;
  double native_bpw = 0;  // the exact bits per parameter of that format (a GGUF file's); 0: the format's own
  // The framework its public training runs use (GPT-2's: compiled), the default --framework for
  // it; empty: Megatron's rates.
  std::string trainer;
  // A record marked an estimate: its note (an imported model's layers the schema cannot describe).
  std::string caveat;

  bool moe() const { return experts > 1; }
  bool mla() const { return kv_lora_rank > 0; }
  bool sparse() const { return sparse_topk > 0; }
  // The indexer's key cache per token and attention layer: FP8 keys with an FP32 scale per block
  // of 128 (132 bytes for DeepSeek-V3.2's 128-wide keys), whatever the main cache's type.
  double indexer_key_bytes() const { return sparse() ? indexer_dim + 4.0 * ((indexer_dim + 127) / 128) : 0; }
  // The keys one query reads at `context` cached tokens, averaged over the attention layers: a
  // sliding-window layer's at most its window, a sparse one's its top-k, others all.
  double attended(double context) const;
  // The (query, key) pairs of a prefill of `fresh` tokens after `cached` ones, averaged over the
  // attention layers, each query seeing the keys before it up to its layer's bound (with `sparse`
  // false, a sparse layer's as dense: training's, which the step prices dense).
  double attended_pairs(double fresh, double cached, bool sparse = true) const;
  bool gated() const { return activation != Activation::gelu; }
  int moe_layers() const { return moe() ? layers - dense_layers : 0; }
  // Layers with attention over the context (and a KV cache).
  int attention_layers() const { return layers - linear_layers; }
  // Width of the attention output (heads x head dim) and of one K or V projection.
  long q_width() const { return static_cast<long>(heads) * (mla() ? v_head_dim : head_dim); }
  long kv_width() const { return static_cast<long>(kv_heads) * head_dim; }
};

struct ParamCounts {
  double attention = 0;     // per layer (a hybrid's mixers averaged over its layers)
  double norms = 0;         // per layer
  double dense_mlp = 0;     // per dense layer
  double expert = 0;        // one routed expert
  double moe_mlp_total = 0; // per MoE layer: routed + shared experts + router
  double moe_mlp_active = 0;
  double embedding = 0;     // input embedding (and learned positions)
  double encoder = 0;       // a multimodal checkpoint's encoder tower: in total (first stage), not in active
  double output = 0;        // output projection when untied, plus the final norm
  double head = 0;          // what each token's logits read: output, plus the embedding matrix when tied
  double largest_tensor = 0;  // the biggest single weight matrix (DeepSpeed's "largest layer")
  double total = 0;
  double active = 0;

  double layer_total(bool moe_layer) const { return attention + norms + (moe_layer ? moe_mlp_total : dense_mlp); }
};

ParamCounts count_params(const ModelArch& m);

// A plausible Llama-like dense model of about `params` parameters. The rule (also in the
// man page and --explain): head dim 128, width = 128 x layers (Llama's aspect ratio),
// 8 KV heads, SwiGLU with ffn = 8/3 x width rounded up to 256, vocabulary 128,256,
// untied embeddings; the layer count is then adjusted so the total is closest to params.
ModelArch synthesize_dense(double params);
// The parameter counts it synthesises, 10M to 100T: the --params setting's range too.
constexpr double min_synth_params = 1e7, max_synth_params = 1e14;

// Validates the shape (heads divide hidden when head_dim is implicit, and so on);
// throws Error(usage) naming the offending field.
void validate(const ModelArch& m);
// Error(usage) unless `ep` devices can split the model's routed experts evenly.
void check_expert_split(const ModelArch& m, int ep);

}  // namespace gpuplan
