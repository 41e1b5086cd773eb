// SPDX-License-Identifier: Apache-2.0
#include "gpuplan/analysis/model.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "gpuplan/error.hpp"

namespace gpuplan {

ParamCounts count_params(const ModelArch& m) {
  ParamCounts p;
  const double h = m.hidden;
  // Attention. MLA (DeepSeek-V2/V3): compressed queries and keys/values; otherwise
  // Q and O are h x (heads x head_dim), K and V are h x (kv_heads x head_dim).
  if (m.mla()) {
    const double qk_head = m.qk_nope_dim + m.qk_rope_dim;
    const double q = m.q_lora_rank > 0 ? h * m.q_lora_rank + m.q_lora_rank + m.q_lora_rank * m.heads * qk_head
                                       : h * m.heads * qk_head;
    const double kv = h * (m.kv_lora_rank + m.qk_rope_dim) + m.kv_lora_rank +
                      static_cast<double>(m.kv_lora_rank) * m.heads * (m.qk_nope_dim + m.v_head_dim);
    const double o = static_cast<double>(m.heads) * m.v_head_dim * h;
    p.attention = q + kv + o;
    p.largest_tensor = std::max({h * m.q_lora_rank, o, static_cast<double>(m.q_lora_rank) * m.heads * qk_head});
  } else {
    const double qw = static_cast<double>(m.q_width()), kvw = static_cast<double>(m.kv_width());
    p.attention = 2 * h * qw + 2 * h * kvw + (m.attn_output_gate ? h * qw : 0);
    if (m.qkv_bias || m.linear_bias) p.attention += qw + 2 * kvw;
    if (m.linear_bias) p.attention += h;
    p.largest_tensor = h * qw;
  }
  // DeepSeek sparse attention's lightning indexer: its query projection from the compressed query
  // (or the input), one key projection with its LayerNorm, and a weight per indexer head.
  if (m.sparse()) {
    const double from = m.q_lora_rank > 0 ? m.q_lora_rank : h;
    p.attention += from * m.indexer_heads * m.indexer_dim + h * m.indexer_dim + 2.0 * m.indexer_dim + h * m.indexer_heads;
  }
  // A hybrid's linear mixers take the place of attention in their layers; per layer, the average.
  if (m.linear_layers > 0 && m.layers > 0)
    p.attention = (m.attention_layers() * p.attention + m.linear_layers * m.linear_params) / m.layers;
  p.norms = (m.layernorm ? 4 : 2) * h;
  const double mats = m.gated() ? 3 : 2;
  p.dense_mlp = mats * h * m.ffn + (m.linear_bias ? m.ffn + h : 0);
  p.largest_tensor = std::max(p.largest_tensor, h * m.ffn);
  if (m.moe()) {
    p.expert = mats * h * m.expert_ffn;
    const double router = h * m.experts;
    p.moe_mlp_total = (m.experts + m.shared_experts) * p.expert + router;
    p.moe_mlp_active = (m.active_experts + m.shared_experts) * p.expert + router;
  }
  p.encoder = m.encoder_params;
  p.embedding = static_cast<double>(m.vocab) * h + (m.learned_positions ? static_cast<double>(m.max_context) * h : 0);
  p.output = (m.tied_embeddings ? 0 : static_cast<double>(m.vocab) * h) + (m.layernorm ? 2 : 1) * h;
  p.head = p.output + (m.tied_embeddings ? static_cast<double>(m.vocab) * h : 0);
  p.largest_tensor = std::max(p.largest_tensor, static_cast<double>(m.vocab) * h);
  const int dense = m.moe() ? m.dense_layers : m.layers;
  const int moe = m.moe_layers();
  const double blocks_common = m.layers * (p.attention + p.norms);
  p.total = blocks_common + dense * p.dense_mlp + moe * p.moe_mlp_total + p.embedding + p.encoder + p.output;
  p.active = blocks_common + dense * p.dense_mlp + moe * p.moe_mlp_active + p.embedding + p.output;
  return p;
}

namespace {
// Queries 1..n of a prefill after c cached tokens see c + i keys each, at most `bound` (none: 0);
// the continuous form of that sum.
double bounded_pairs(double n, double c, double bound) {
  if (bound <= 0 || bound >= c + n) return n * n / 2 + n * c;
  if (bound <= c) return n * bound;
  const double x = bound - c;  // the queries before the bound is reached
  return x * x / 2 + x * c + (n - x) * bound;
}
}  // namespace

double ModelArch::attended(double context) const {
  const double n = attention_layers();
  if (n <= 0) return 0;
  const double windowed = sliding_window > 0 ? sliding_layers : 0;
  const double rest = sparse() ? std::min(context, static_cast<double>(sparse_topk)) : context;
  return (windowed * std::min(context, static_cast<double>(sliding_window)) + (n - windowed) * rest) / n;
}

double ModelArch::attended_pairs(double fresh, double cached, bool sparse) const {
  const double n = attention_layers();
  if (n <= 0) return 0;
  const double windowed = sliding_window > 0 ? sliding_layers : 0;
  const double rest = bounded_pairs(fresh, cached, sparse ? static_cast<double>(sparse_topk) : 0);
  return (windowed * bounded_pairs(fresh, cached, static_cast<double>(sliding_window)) + (n - windowed) * rest) / n;
}

ModelArch synthesize_dense(double params) {
  if (!(params >= min_synth_params && params <= max_synth_params))
    fail(Exit::usage, fmt::format("a parameter count of {} is outside 10M to 100T; give a count such as 7B or 405B", params));
  ModelArch m;
  m.id = fmt::format("dense-{:g}B", params / 1e9);  // names the size asked for: dense-7B
  m.vocab = 128256;
  m.activation = Activation::swiglu;
  m.max_context = 8192;
  // Llama's shapes keep width/layers near 128: 12 * L * h^2 = N with h = 128 L.
  double layers = std::cbrt(params / (12.0 * 128 * 128));
  int width_heads = std::max(1, static_cast<int>(std::lround(layers)));
  m.hidden = 128 * width_heads;
  m.heads = width_heads;
  m.head_dim = 128;
  m.kv_heads = std::min(8, m.heads);
  while (m.heads % m.kv_heads) --m.kv_heads;
  m.ffn = static_cast<int>(std::ceil(8.0 * m.hidden / 3.0 / 256.0) * 256);
  m.layers = 1;
  ParamCounts one = count_params(m);
  double per_layer = one.attention + one.norms + one.dense_mlp;
  double rest = one.embedding + one.output;
  m.layers = std::max(1, static_cast<int>(std::lround((params - rest) / per_layer)));
  m.name = fmt::format("synthetic dense model ({} layers, width {})", m.layers, m.hidden);
  m.stated_total = count_params(m).total;
  m.stated_active = m.stated_total;
  return m;
}

void check_expert_split(const ModelArch& m, int ep) {
  if (!m.moe()) fail(Exit::usage, fmt::format("ep {}: {} is a dense model; expert parallelism needs an MoE model", ep, m.id));
  if (m.experts % ep)
    fail(Exit::usage, fmt::format("ep {} does not divide the {} routed experts of {} (give a divisor)", ep, m.experts, m.id));
}

void validate(const ModelArch& m) {
  auto bad = [](const std::string& what) { fail(Exit::usage, what); };
  if (m.layers <= 0) bad(fmt::format("layers must be positive (got {})", m.layers));
  if (m.hidden <= 0) bad(fmt::format("hidden must be positive (got {})", m.hidden));
  if (m.heads <= 0) bad(fmt::format("heads must be positive (got {})", m.heads));
  if (m.kv_heads <= 0 || m.kv_heads > m.heads || m.heads % m.kv_heads)
    bad(fmt::format("kv-heads {} must divide heads {}", m.kv_heads, m.heads));
  if (m.head_dim <= 0 && m.hidden % m.heads)
    bad(fmt::format("heads {} do not divide hidden {}; give a head dim", m.heads, m.hidden));
  if (m.ffn <= 0) bad(fmt::format("ffn must be positive (got {})", m.ffn));
  if (m.vocab <= 0) bad(fmt::format("vocab must be positive (got {})", m.vocab));
}

}  // namespace gpuplan
