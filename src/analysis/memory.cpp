// SPDX-License-Identifier: Apache-2.0
#include "gpuplan/analysis/memory.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "gpuplan/error.hpp"

namespace gpuplan {

int optimizer_bytes_per_param(Optimizer o) {
  switch (o) {
    case Optimizer::adam: return 12;     // fp32 master + m + v (ZeRO paper, K = 12)
    case Optimizer::adam8bit: return 6;  // fp32 master + two 8-bit moments (Dettmers et al. 2022)
    case Optimizer::sgd: return 8;       // fp32 master + fp32 momentum
  }
  return 12;
}

namespace {
constexpr const char* finetune_names[] = {"none", "full", "lora", "qlora"};
constexpr const char* schedule_names[] = {"searched", "1f1b", "interleaved", "zero-bubble", "dualpipe"};
}

std::string to_string(Schedule s) { return schedule_names[static_cast<int>(s)]; }

Schedule parse_schedule(const std::string& s) {
  for (int i = 1; i < 5; ++i)
    if (s == schedule_names[i]) return static_cast<Schedule>(i);
  fail(Exit::usage, fmt::format("pipeline schedule '{}' is not known; expected 1f1b, interleaved, zero-bubble or dualpipe", s));
}

std::string to_string(Finetune f) { return finetune_names[static_cast<int>(f)]; }

Finetune parse_finetune(const std::string& s) {
  for (int i = 0; i < 4; ++i)
    if (s == finetune_names[i]) return static_cast<Finetune>(i);
  fail(Exit::usage, fmt::format("fine-tuning '{}' is not known; expected none, full, lora or qlora", s));
}

double base_weight_bytes(const TrainSettings& s) {
  if (s.finetune == Finetune::qlora) return 4.127 / 8;
  return s.finetune == Finetune::lora ? 2 : s.weight_bytes;
}

double lora_params(const ModelArch& m, int layers, int tp, int rank) {
  const double h = m.hidden, qw = static_cast<double>(m.q_width()), kvw = static_cast<double>(m.kv_width());
  double per_layer = (h + qw) + 2 * (h + kvw) + (qw + h);  // q, k, v and the output projection
  if (!m.moe()) per_layer += (m.gated() ? 3 : 2) * (h + m.ffn);
  return rank * per_layer * layers / tp;
}

StageParams stage_params(const ModelArch& m, const ParamCounts& pc, const Layout& l, bool last_stage) {
  // Layers split as evenly as possible; the first stages take the remainder.
  const int per = (m.layers + l.pp - 1) / l.pp;
  const int first = 0, count_first = std::min(per, m.layers);
  const int start = last_stage ? (l.pp - 1) * per : first;
  const int count = last_stage ? std::max(0, m.layers - start) : count_first;
  // MoE layers on this stage: DeepSeek-style models keep their first dense_layers dense.
  int moe = 0;
  if (m.moe()) moe = std::max(0, std::min(start + count, m.layers) - std::max(start, m.dense_layers));
  const int dense_mlp = count - moe;
  StageParams p;
  // Norms are replicated across tensor-parallel ranks; everything else is split.
  p.dense = count * (pc.attention / l.tp + pc.norms) + dense_mlp * pc.dense_mlp / l.tp;
  if (moe) {
    const double local_experts = static_cast<double>(m.experts) / l.ep;
    p.expert = moe * local_experts * pc.expert / l.tp;
    p.dense += moe * (m.shared_experts * pc.expert / l.tp + static_cast<double>(m.hidden) * m.experts);
  }
  const bool has_first = !last_stage || l.pp == 1;
  const bool has_last = last_stage || l.pp == 1;
  if (has_first) p.dense += (pc.embedding + pc.encoder) / l.tp;
  // The last stage holds the output projection (a copy of the embedding when tied and pp > 1).
  if (has_last) {
    const double final_norm = (m.layernorm ? 2.0 : 1.0) * m.hidden;
    const double vocab_matrix = static_cast<double>(m.vocab) * m.hidden;
    const double projection = m.tied_embeddings ? (l.pp > 1 ? vocab_matrix : 0) : pc.output - final_norm;
    p.dense += final_norm + projection / l.tp;
  }
  return p;
}

Bytes layer_activations(const ModelArch& m, const TrainSettings& st, const Layout& l, Recompute r) {
  // Korthikanti et al. 2022, Section 4: per layer, 16-bit activations and 1-byte dropout masks:
  // attention 11sbh + 5as^2b, MLP 19sbh, norms 4sbh (= 34sbh + 5as^2b for GPT), of which the
  // QKV input, the dropout masks and the norm inputs stay unsplit under tensor parallelism
  // (10sbh) and the rest divides by t; sequence parallelism divides everything by t.
  const double s = static_cast<double>(st.seq_len) / l.cp, b = l.micro_batch, h = m.hidden;
  const double t = l.tp;
  const bool sp = l.sequence_parallel && l.tp > 1;
  const double sbh = s * b * h;
  const bool dropout = m.linear_bias;  // GPT-era models train with dropout; Llama-era do not
  const double qw = static_cast<double>(m.q_width()), kvw = static_cast<double>(m.kv_width());
  if (r == Recompute::full) return bytes(2 * sbh / (sp ? t : 1));  // the layer input, kept as a checkpoint

  // Under a low precision (Transformer Engine) each quantised linear layer keeps the quantised
  // copy of its input (gi bytes an element for the MLP's, ga for attention's): the QKV and MLP
  // inputs, the MLP's second GEMM input, and beside the attention output that flash attention
  // keeps in 16 bits, the projection's own quantised copy of it.
  const double gi = st.gemm_input_bytes, ga = st.attn_input_bytes;
  double unsplit = ga * sbh + gi * sbh + 4 * sbh;  // QKV input, MLP input, two norm inputs
  if (dropout) unsplit += 2 * sbh;                  // attention-output and MLP-output masks
  double split = 2 * s * b * (qw + kvw) + 2 * s * b * kvw + 2 * s * b * qw;  // Q, K, V, projection input
  if (ga < 2) split += ga * s * b * qw;
  // MLP inner activations: GeLU keeps its input and its output, the second GEMM's input (4sbf
  // in 16 bits); gated units keep gate, up and product (6sbf). MoE layers keep them for each
  // routed and shared expert of a token, plus the dispatched copies of the token (expert inputs).
  const double per_ffn = (m.gated() ? 4 : 2) + gi;
  if (m.moe()) {
    const double k = m.active_experts + m.shared_experts;
    split += k * (per_ffn * s * b * m.expert_ffn + gi * sbh);
  } else {
    split += per_ffn * s * b * m.ffn;
  }
  double core = 0;  // the attention core: softmax output, dropout mask and output (5as^2b)
  if (st.flash_attention) split += 4 * s * b * m.heads;  // fp32 log-sum-exp per row
  else if (r == Recompute::none) core = (dropout ? 5.0 : 2.0) * m.heads * s * s * b;
  double total = (sp ? unsplit / t : unsplit) + split / t + core / t;
  return bytes(total);
}

MemoryParts memory_parts(const ModelArch& m, const ParamCounts& pc, const TrainSettings& st, const Layout& l) {
  MemoryParts parts;
  parts.stages = l.pp > 1 ? 2 : 1;
  const Bytes per_layer = layer_activations(m, st, l, l.recompute);
  const int per = (m.layers + l.pp - 1) / l.pp;
  const double s = static_cast<double>(st.seq_len) / l.cp, b = l.micro_batch, h = m.hidden;
  const bool sp = l.sequence_parallel && l.tp > 1;
  for (int which = 0; which < parts.stages; ++which) {
    const bool last = which == 1;
    MemoryParts::Stage& g = parts.stage[which];
    const StageParams p = stage_params(m, pc, l, last);
    g.params = p.total();
    // ZeRO shards model states over the data-parallel ranks (dp x cp; expert parameters over
    // dp x cp / ep): the parameters per device once sharded.
    const double n_dense = static_cast<double>(l.dp) * l.cp;
    const double n_expert = std::max(1.0, n_dense / l.ep);
    g.sharded = p.dense / n_dense + p.expert / n_expert;

    // Activations: 1F1B keeps min(p, m) micro-batches in flight on the first stage, one on
    // the last (interleaving adds to the first stage's, in training_memory).
    g.layers = last ? m.layers - (l.pp - 1) * per : std::min(per, m.layers);
    g.in_flight = last ? 1 : std::min(l.pp, l.micro_batches_run());
    // DualPipe feeds micro-batches from both ends: every stage holds pp + 1 of them (DeepSeek-V3
    // report, Table 2).
    if (st.schedule == Schedule::dualpipe && l.pp > 1) g.in_flight = l.pp + 1.0;
    g.per_layer = per_layer;
    if (l.recompute == Recompute::full)  // one layer's working set while it is recomputed
      g.working = layer_activations(m, st, l, Recompute::none);
    if (!last && m.linear_bias) g.dropout = s * b * h / (sp ? l.tp : 1);  // embedding dropout mask, per micro-batch
    if (last || l.pp == 1)  // output layer and cross-entropy in fp32: 4sbh(1 + V/h)/t
      g.output = bytes(4 * s * b * h * (1 + static_cast<double>(m.vocab) / h) / l.tp);
    if (l.pp > 1) g.pipe_buffers = bytes(2 * 2 * s * b * h / (sp ? l.tp : 1));  // send and receive buffers
    if (adapters_only(st)) g.adapters = lora_params(m, g.layers, l.tp, st.lora_rank);
  }
  return parts;
}

MemoryBreakdown training_memory(const ModelArch& m, const ParamCounts& pc, const TrainSettings& st, const Layout& l) {
  return training_memory(m, pc, st, l, memory_parts(m, pc, st, l));
}

MemoryBreakdown training_memory(const ModelArch&, const ParamCounts& pc, const TrainSettings& st, const Layout& l,
                                const MemoryParts& parts) {
  MemoryBreakdown best;
  double host = 0;
  for (int which = 0; which < parts.stages; ++which) {
    const MemoryParts::Stage& g = parts.stage[which];
    MemoryBreakdown mb;
    mb.last_stage = which == 1;
    mb.params_per_device = g.params;
    // Model states. ZeRO-1 (Megatron's distributed optimizer) shards optimizer states,
    // ZeRO-2 gradients too, ZeRO-3 the weights as well.
    // What trains: every parameter, or (fine-tuning with adapters) the adapters alone, over frozen
    // base weights that keep no gradient or optimizer state.
    const bool adapters = adapters_only(st);
    const double n_dp = static_cast<double>(l.dp) * l.cp;
    const double trained_all = adapters ? g.adapters : g.params, trained_shard = adapters ? g.adapters / n_dp : g.sharded;
    auto sharded = [&](double bytes_per_param, bool shard) { return bytes_per_param * (shard ? trained_shard : trained_all); };
    const double w = st.weight_bytes, gr = st.grad_bytes, o = optimizer_bytes_per_param(st.optimizer);
    // With 16-bit gradients, ZeRO keeps an fp32 gradient partition beside the optimizer
    // state (DeepSpeed: 4P + 16P/N for ZeRO-2, 18P/N for ZeRO-3).
    const double fp32_grad_partition = (gr < 4 && l.zero >= 1) ? 4 : 0;
    // FSDP under pipelining keeps a stage's 16-bit weights gathered between each forward and its
    // backward (torchtitan's default reshard_after_forward = not pp_enabled, its parallelize.py
    // apply_fsdp), which under 1F1B is nearly the whole step, and accumulates the stage's
    // gradients unsharded over the micro-batches. DeepSpeed runs no ZeRO-3 with pipelining, so
    // ZeRO-3 with pp > 1 is read as FSDP's. torchtitan's 405B at TP 8, PP 8, FSDP 8 measures 82.5
    // GiB (1F1B) and 72.7 GiB (interleaved); the shards alone would be about 20 GiB.
    const bool fsdp_pipeline = l.zero >= 3 && l.pp > 1;
    const bool weights_sharded = l.zero >= 3 && !fsdp_pipeline;
    // PyTorch FSDP keeps no 16-bit shard: its weights are the fp32 shard, which is also the
    // optimizer's master copy, so the optimizer's own state is the rest (Adam's moments).
    const double master = weights_sharded && st.fp32_shards ? 4 : 0;
    mb.weights = bytes(master > 0 ? sharded(master, true) : sharded(w, weights_sharded));
    // DualPipe keeps two copies of the parameters, one for each direction (same table).
    if (st.schedule == Schedule::dualpipe && l.pp > 1) mb.weights *= 2.0;
    if (adapters) mb.weights += bytes(base_weight_bytes(st) * (weights_sharded ? g.sharded : g.params));
    mb.gradients = bytes(fsdp_pipeline ? gr * trained_all + sharded(fp32_grad_partition, true)
                         : l.zero >= 3 ? sharded(gr < 4 ? fp32_grad_partition : gr, true)
                                       : (l.zero == 2 && gr >= 4 ? sharded(gr, true) : gr * trained_all));
    if (l.zero == 2 && gr < 4) mb.gradients += bytes(sharded(fp32_grad_partition, true));
    mb.optimizer = bytes(sharded(o - master, l.zero >= 1) + (l.zero == 1 ? sharded(fp32_grad_partition, true) : 0));
    // Host offload (ZeRO-Offload, Ren et al. 2021, section 4.1): the fp32 master weights, the
    // moments and an fp32 gradient partition live on the host, which runs the update; under
    // ZeRO-2 and 3 each reduced gradient bucket goes straight there. ZeRO-Infinity's parameter
    // offload (Rajbhandari et al. 2021) keeps the 16-bit weight shard there too, fetched layer
    // by layer into the gathered-tensor buffers.
    if (l.offload & offload_optimizer) {
      mb.optimizer = bytes(0);
      if (l.zero >= 2) mb.gradients = bytes(l.zero == 2 && gr < 4 ? gr * trained_all : 0);
      mb.host += bytes(sharded(o + 4 - master, true));  // an fp32 shard stays: the weights
    }
    if (l.offload & offload_weights) {
      mb.host += mb.weights;
      mb.weights = bytes(0);
    }

    // Interleaving keeps (p-1)/(p v) more in flight on the first stage (Korthikanti Section 4.2.3).
    double in_flight = g.in_flight;
    if (which == 0 && l.interleave > 1 && l.pp > 1)
      in_flight *= 1.0 + static_cast<double>(l.pp - 1) / (static_cast<double>(l.pp) * l.interleave);
    // Recomputing only some layers (recompute_layers of the stage's), the rest keep everything.
    const int recomputed = layers_at_recompute(l, g.layers);
    Bytes act = g.per_layer * (recomputed * in_flight) + g.working * ((g.layers - recomputed) * in_flight);
    if (l.offload & offload_activations) {  // the checkpoints go to the host; two in transit stay
      mb.host += act;
      act = g.per_layer * std::min(2.0, g.layers * in_flight);
    }
    if (l.recompute == Recompute::full) act += g.working;
    if (g.dropout > 0) act += bytes(g.dropout * in_flight);
    act += g.output;
    mb.activations = act;

    mb.buffers = st.bucket;
    if (l.zero >= 3)  // gathered 16-bit weights and gradients of the largest tensor (DeepSpeed: 4 P_largest)
      mb.buffers += bytes(4 * pc.largest_tensor / l.tp);
    mb.buffers += g.pipe_buffers;
    mb.reserve = st.reserve;
    if (which == 0 || mb.total() > best.total()) best = mb;
    host = std::max(host, mb.host.value());
  }
  best.host = bytes(host);  // each stage's devices share the host: the most loaded one must fit too
  return best;
}

}  // namespace gpuplan
