// SPDX-License-Identifier: Apache-2.0
#include "gpuplan/analysis/step.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "gpuplan/error.hpp"

namespace gpuplan {

Efficiency default_efficiency(const Device& d) {
  Efficiency e;
  const std::string& family = d.family;
  // GEMM: best measured bf16 cuBLAS rates / dense peak. A100 271.2 of 312 (87%) and H100
  // 794.5 of 989 (80%), H200 790.3 (80%), from Stas Bekman's MAMF finder and thonking.ai,
  // as collected in shared/reference/probe.md section 4. Memory: BabelStream triad, A100
  // 1.79 of 2.04 TB/s (88%), H100 2.97 of 3.35 (89%), H200 4.15 of 4.8 (86%), same source.
  // Other families have no sourced measurement: 0.75 and 0.85 are estimates.
  // FP8: H100 1402.6 of 1979 (71%, MAMF); elsewhere probe.md's default of 0.68 (an estimate).
  if (family == "ampere" || family == "volta") {
    e.gemm_max = 0.87;
    e.memory = 0.88;
    // The GEMM's own depth (fused trainers) has no measured table for sm_80: an estimate, Hopper's
    // measured 60 (below) scaled by the tensor rate per SM per clock, A100 2,048 FLOPs (312 TFLOP/s
    // over 108 SMs at 1.41 GHz) against H100's 4,096 (989 over 132 at 1.83): 30. The same scaling
    // from Hopper to B200 (about 7,700) gives 113 where B200's measured table gives 199 (below), so
    // the depth grows faster than the rate and A100's may be nearer 17; 30 is the slower reading.
    // A 768-deep GEMM (GPT-2 124M) then runs at 91% of the ceiling, where the default term gives 38%.
    e.gemm_half_fused = 30;
    e.fused_origin = "estimate: Hopper's measured depth scaled by the tensor rate per SM";
  } else if (family == "hopper") {
    e.gemm_max = 0.80;
    e.gemm_max_fp8 = 0.71;
    e.memory = 0.88;
    // FlashAttention-2 on H100: "only 35% utilization of theoretical max FLOPs" (Shah et al. 2024,
    // FlashAttention-3, arXiv 2407.08608, introduction), against FA3's 75% (its abstract).
    e.flash2_ceiling = 0.35;
    // The GEMM's own depth: XLA's measured cuBLAS table for sm_90 (openxla/xla, xla/service/gpu/
    // model/matmul_interpolator_data.h, 2025; up to 809 TFLOP/s in BF16, so an H100 SXM) at its 20
    // largest shapes (b x m x n of 8M-67M outputs, k 256-4,096: 458-809 TFLOP/s) fits this curve,
    // with the ceiling above and the tile term, at 60 (rms 4.8%): a 1,024-deep GEMM at 90% of a
    // 4,096-deep one (measured: 86-92%), where the default depth term (gemm_half_of, 988) gives 47%.
    // The rest of the default term is the work around the GEMMs that fused trainers do not have.
    e.gemm_half_fused = 60;
    e.fused_origin = "XLA's measured sm_90 GEMM table";
  } else if (family == "blackwell") {
    e.gemm_max = 0.80;
    e.gemm_max_fp8 = 0.71;
    // The GEMM's own depth: XLA's measured cuBLAS table for B200 (openxla/xla, xla/service/gpu/
    // model/default_matmul_perf_table.txtpb, key sm_100_B200, 2026), BF16 at its largest shapes
    // (b 4 x m 4,096, n 1,024-4,096, k 512-4,096: 801-1,670 TFLOP/s; a 1,024-deep GEMM at 75-81% of
    // a 4,096-deep one), fits this curve under the ceiling above at 199 (rms 8.6%).
    e.gemm_half_fused = 199;
    e.fused_origin = "XLA's measured sm_100 (B200) GEMM table";
    // NVFP4 GEMMs at 40% of the FP4 peak: fitted, the one constant fitted on them, on the three
    // NVFP4 rows of Megatron-Bridge's 26.02 table that fit (Llama 3 70B on GB300 and GB200, Llama
    // 3.1 405B on GB300; within 6%, in sample: tests/validation/REPORT.md), for want of a sourced
    // FP4 GEMM measurement. FP8's 71% carried over put them 30-50% fast: the recipe's NVFP4 runs
    // 1.3-1.5x its MXFP8, not the 2-3x of the peaks.
    e.gemm_max_fp4 = 0.40;
    e.memory = 0.85;
    e.origin = "estimate (Hopper's measured figures carried over)";
  } else if (family == "cdna3" || family == "cdna2") {
    // BF16 matmul at its best shape over the dense peak (MAMF, stas00/ml-engineering
    // compute/accelerator/README.md, ROCm 6.2): MI300X 781.9 of 1,300 (60.1%; 450 under ROCm 6.1),
    // MI250X 147.0 of 191.5 per GCD (76.7%). FP8 and memory have no sourced measurement.
    e.gemm_max = family == "cdna3" ? 0.601 : 0.767;
    e.memory = 0.85;
    e.origin = "GEMM ceiling measured (MAMF, ROCm 6.2); memory an estimate";
  } else {
    e.gemm_max = 0.75;
    e.memory = 0.85;
    e.origin = "estimate (no sourced measurement for this family)";
  }
  e.gemm_half = gemm_half_of(d);
  return e;
}

double gemm_half_of(const Device& d) {
  // gemm_half was fitted on an A100 80GB (512; gemm_curve), where a 4,096-deep GEMM alone runs
  // at about 80% of peak (probe.md section 4) but the curve gives 66%: most of what the depth
  // term charges is not the GEMM's own tile cost but the memory-bound work around it (norms,
  // activations, residuals, permutes), whose share of a layer grows as 1/hidden, as the depth
  // term does. That share scales with the device's dense FLOPs per byte of memory bandwidth, so
  // the scale does too: H100 989/3.35 = 295 FLOP/B against the A100's 312/2.039 = 153, so 988;
  // B200 2,250/8.0 = 281, so 942. (A measured H100 GEMM at 4,096 cubed, 788.7 TFLOP/s, holds
  // 80% of peak: the tile cost alone does not grow with the SM's speed, as the per-SM scaling
  // used before assumed, which put a B200 at 2,690 and its 4,096-wide GEMMs at 27% of peak.)
  // TPUs keep 512: XLA fuses element-wise work into the matrix units' producers and consumers, so
  // it does not grow with the ratio (v6e's 560 FLOP/B would give 1,880 and MaxText's published
  // Trillium rates 22-43% slower; the choice was made after seeing them, so for it they are in
  // sample: tests/validation/REPORT.md).
  constexpr double a100_flops_per_byte = 312e12 / 2.039e12;
  const double peak = d.peak_for(DType::bf16).value(), bw = d.memory_bw.value();
  if (peak <= 0 || bw <= 0 || d.family == "tpu") return Efficiency{}.gemm_half;
  return Efficiency{}.gemm_half * std::max(1.0, peak / bw / a100_flops_per_byte);
}

namespace {
constexpr const char* precision_names[] = {"fp32", "tf32", "bf16", "fp16", "fp8", "mxfp8", "nvfp4"};
}  // namespace

Precision parse_precision(const std::string& s) {
  if (s == "fp4") return Precision::nvfp4;
  for (int i = 0; i < 7; ++i)
    if (s == precision_names[i]) return static_cast<Precision>(i);
  fail(Exit::usage, fmt::format("precision '{}' is not known; expected bf16, fp16, fp8, mxfp8, nvfp4 (fp4), tf32 or fp32", s));
}

std::string to_string(Precision p) { return precision_names[static_cast<int>(p)]; }

DType compute_dtype_of(Precision p) {
  switch (p) {
    case Precision::fp32: return DType::fp32;
    case Precision::tf32: return DType::tf32;
    case Precision::fp16: return DType::fp16;
    case Precision::fp8:
    case Precision::mxfp8: return DType::fp8;
    case Precision::nvfp4: return DType::fp4;
    default: return DType::bf16;
  }
}

double quantised_bytes(Precision p) {
  switch (p) {
    case Precision::fp8: return 1;
    case Precision::mxfp8: return 1 + 1.0 / 32;  // an 8-bit (E8M0) scale per 32 elements
    case Precision::nvfp4: return 0.5 + 1.0 / 16;  // an 8-bit (E4M3) scale per 16 elements
    default: return 2;
  }
}

void set_precision(StepSettings& st, Precision p) {
  st.precision = p;
  st.compute_dtype = compute_dtype_of(p);
  st.train.weight_bytes = (p == Precision::fp32 || p == Precision::tf32) ? 4 : 2;
  st.train.gemm_input_bytes = low_precision(p) ? quantised_bytes(p) : 2;
  st.train.attn_input_bytes = low_precision(p) && !st.low_precision_mlp_only ? quantised_bytes(p) : 2;
}

void set_precision(StepSettings& st, DType compute) {
  set_precision(st, compute == DType::fp8   ? Precision::fp8
                    : compute == DType::fp4 ? Precision::nvfp4
                                            : parse_precision(to_string(compute)));
}

double model_flops_per_token(const ModelArch& m, const ParamCounts& pc, int seq_len, bool frozen_base, bool causal) {
  // Embedding lookups are not matrix products: exclude the input embedding from N.
  const double n = pc.active - pc.embedding + (m.tied_embeddings ? pc.embedding : 0);
  return (frozen_base ? 4 : 6) * n + (causal ? 6.0 : 12.0) * m.attention_layers() * seq_len * static_cast<double>(m.q_width());
}

std::string mfu_convention(const TrainSettings& st) {
  return std::string(adapters_only(st) ? "4N" : "6N") + (st.flash_attention ? " + 6Lsd (causal attention, as run)" : " + 12Lsd") +
         (adapters_only(st) ? ", frozen base" : "");
}

double moe_permute_bytes(const ModelArch& m, double tokens) {
  return 2 * 2 * tokens * m.hidden * (m.active_experts + 1.0);
}

double remote_token_copies(double k, double nodes, bool once_per_node) {
  if (nodes <= 1) return 0;
  return once_per_node ? (nodes - 1) * (1 - std::pow(1 - 1 / nodes, k)) : k * (nodes - 1) / nodes;
}

double ring_allreduce_s(double bytes, int n, double bw, double latency) {
  if (n <= 1 || bytes <= 0) return 0;
  return 2.0 * (n - 1) / n * bytes / bw + 2.0 * (n - 1) * latency;
}

double ring_gather_s(double bytes, int n, double bw, double latency) {
  if (n <= 1 || bytes <= 0) return 0;
  return static_cast<double>(n - 1) / n * bytes / bw + (n - 1) * latency;
}

double sharp_allreduce_s(double bytes, int n, double bw, double latency, int radix) {
  if (n <= 1 || bytes <= 0) return 0;
  const double k = std::max(2, radix);
  int tiers = 1;
  for (double reach = k; reach < n && tiers < 64; reach *= std::max(2.0, k / 2)) ++tiers;
  return bytes / bw + 2.0 * tiers * latency;
}

double gemm_eff(const Efficiency& e, double m, double k, double n) { return gemm_curve(e.gemm_max, e.gemm_half, m, k, n); }

namespace {

struct LinkChoice {
  double bw, latency;
};

LinkChoice scale_up_link(const Device& d, const Efficiency& e) {
  return {d.scale_up.bw_per_direction.value() * e.link, d.scale_up.latency.value()};
}

// Each device's share of its node's NICs on the scale-out fabric.
LinkChoice scale_out_link(const Device& d, const Efficiency& e) {
  double per_device = d.scale_out.bw_per_direction.value() * std::max(1, d.nics_per_node) /
                      std::max(1, d.devices_per_node);
  if (per_device <= 0) per_device = d.host.bw_per_direction.value();
  return {per_device * e.link, std::max(d.scale_out.latency.value(), d.scale_up.latency.value())};
}

// A group of `size` ranks whose members are `stride` devices apart. Inside one scale-up
// domain the collective runs on the scale-up link. Beyond it, hierarchically (as NCCL
// does): the ranks that share a domain reduce there first, and only 1/inside of the bytes
// crosses the scale-out fabric. `ring` prices both levels (ring_allreduce_s or ring_gather_s), or
// `outer` the scale-out one where it runs otherwise (in the switches, sharp_allreduce_s).
template <typename Ring, typename Outer>
double collective_s(const Device& d, const Efficiency& e, double bytes, int size, int stride, Ring ring, Outer outer) {
  if (size <= 1) return 0;
  LinkChoice up = scale_up_link(d, e);
  const int inside = std::max(1, std::min(size, d.scale_up_domain / std::max(1, stride)));
  if (inside >= size) return ring(bytes, size, up.bw, up.latency);
  LinkChoice out = scale_out_link(d, e);
  return ring(bytes, inside, up.bw, up.latency) + outer(bytes / inside, size / inside, out.bw, out.latency);
}
template <typename Ring>
double collective_s(const Device& d, const Efficiency& e, double bytes, int size, int stride, Ring ring) {
  return collective_s(d, e, bytes, size, stride, ring, ring);
}

// All-to-all among `size` ranks (expert dispatch and combine) of `bytes` for `copies` routed copies
// of each token: each rank sends (size-1)/size of its bytes, the share for other nodes over its
// scale-out NIC (once per node under a deduplicating dispatcher, remote_token_copies) and the rest
// over the scale-up link, both at once. The pairwise exchanges run concurrently, so each level pays
// its latency once, not once per peer as a ring would.
double alltoall_s(const Device& d, const Efficiency& e, double bytes, int size, int stride, double copies, bool dedup) {
  if (size <= 1) return 0;
  const LinkChoice up = scale_up_link(d, e);
  const int inside = std::max(1, std::min(size, d.scale_up_domain / std::max(1, stride)));
  const double local = (inside - 1.0) / size * bytes;
  const double remote = bytes / copies * remote_token_copies(copies, static_cast<double>(size) / inside, dedup);
  double t = local > 0 ? local / up.bw + up.latency : 0;
  if (remote > 0) {
    const LinkChoice out = scale_out_link(d, e);
    t = std::max(t, remote / out.bw + out.latency);
  }
  return t;
}

// An all-reduce whose scale-out level runs in the switches (SHARP), hierarchical as collective_s:
// a ring inside each scale-up domain, then 1/inside of the bytes reduced in the fabric among the
// domains.
double sharp_collective_s(const Device& d, const Efficiency& e, double bytes, int size, int stride) {
  const int radix = d.scale_out.switch_radix;
  return collective_s(d, e, bytes, size, stride, ring_allreduce_s, [radix](double b, int n, double bw, double latency) {
    return sharp_allreduce_s(b, n, bw, latency, radix);
  });
}

double p2p_s(const Device& d, const Efficiency& e, double bytes, bool crosses_nodes) {
  LinkChoice l = crosses_nodes ? scale_out_link(d, e) : scale_up_link(d, e);
  return bytes / l.bw + l.latency;
}

}  // namespace

double hierarchical_collective_s(const Device& d, const Efficiency& e, double bytes, int size, int stride,
                                 CollectiveLevel ring) {
  return collective_s(d, e, bytes, size, stride, ring);
}

double host_issue_s(int layers, int moe_layers, bool cuda_graphs) {
  // Kernels a layer issues, forward and backward (an estimate from the ops of a Megatron layer
  // under Transformer Engine: forward, a fused norm and projection, rotary embedding, fused
  // attention, the output projection, bias-dropout-add, the MLP's norm and first projection, its
  // activation, the second projection and bias-dropout-add, about 12; backward about twice that,
  // each GEMM's data and weight gradients apart). An MoE layer adds the router, its top-k and
  // auxiliary loss, the permutation, grouped GEMMs, unpermutation and both all-to-alls, each way:
  // about 30 more.
  constexpr double dense_kernels = 36, moe_kernels = 30;
  // Issuing a kernel: eager PyTorch spends 4-7 us of host time an op with autograd (pytorch/pytorch
  // issues #41383, 2020: 5-7 us; #82793, 2022: 4 us an op on CUDA), 5 us here; a replayed CUDA
  // graph 0.58 us a node (ahrefs/ocannl issue #488, 2026: 15 us a replay plus 0.58 us a node,
  // against 6.4 us a launch).
  const double per_kernel = cuda_graphs ? 0.58e-6 : 5e-6;
  return (layers * dense_kernels + moe_layers * moe_kernels) * per_kernel;
}

LayerParts layer_parts(const StepModel& sm, const Layout& l) {
  const ModelArch& m = sm.model;
  const Device& d = sm.device;
  const StepSettings& st = sm.settings;
  const Efficiency& e = st.eff;
  LayerParts y;
  // GEMMs run at the precision's peak; FP8 has its own ceiling. The attention core stays in
  // 16 bits (Transformer Engine keeps softmax and attention in BF16).
  const double peak16 = d.peak_for(DType::bf16).value();
  // (Two doubles, not a copy of Efficiency: this runs millions of times and must not allocate.)
  const double gmax = st.precision == Precision::nvfp4 ? e.gemm_max_fp4 : gemm_ceiling(e, d, st.compute_dtype);
  const double half = fused_rates(st) ? e.gemm_half_fused : e.gemm_half;
  auto geff = [&](double m_, double k_, double n_) { return gemm_curve(gmax, half, m_, k_, n_); };

  const double s = static_cast<double>(st.train.seq_len) / l.cp;  // tokens per sequence on this rank
  const double b = l.micro_batch;
  const double tokens = s * b;
  const double h = m.hidden, t = l.tp;
  const double peak = d.peak_for(st.compute_dtype).value();
  const double mem_bw = d.memory_bw.value() * e.memory;
  const double qw = static_cast<double>(m.q_width()), kvw = static_cast<double>(m.kv_width());
  y.tokens = tokens;

  // --- compute per layer, forward, one micro-batch
  auto gemm = [&](double k, double n) { return 2 * tokens * k * n / (peak * geff(tokens, k, n)); };
  // Under a low precision, a GEMM left in 16 bits takes its quantised time times to16: the curve's
  // shape is the same, its ceiling and the peak are the 16-bit ones.
  const bool lowp = low_precision(st.precision), mlp_only = lowp && st.low_precision_mlp_only;
  y.to16 = lowp ? peak * gmax / (peak16 * e.gemm_max) : 1;
  y.attn_gemm = (gemm(h, (qw + 2 * kvw) / t) + gemm(qw / t, h)) * (mlp_only ? y.to16 : 1);
  // Attention core (QK^T and PV): causal flash attention skips the blocks above the diagonal and,
  // in a sliding-window layer, those beyond the window (attended_pairs, averaged over the layers);
  // eager attention computes the whole score matrix, masked. Each cp rank has 1/cp of the pairs.
  const double full_seq = st.train.seq_len;
  double core_flops = 4 * b * qw / t *
                      (st.train.flash_attention ? m.attended_pairs(full_seq, 0, false) / l.cp : s * full_seq);
  const double core_peak = low_precision(st.precision) ? peak16 : peak;
  // Flash attention's rate grows with the keys each kernel call sees, L / (L + 238): fitted on
  // FlashAttention-3's H100 forward sweep (head dim 128, batch x length 16k: 430 TFLOP/s at 512 up
  // to 621 at 16,384; pytorch/benchmark PR 2391). Under context parallelism each ring step's call
  // sees half a rank's chunk, s / 2cp (the load-balanced causal split).
  const double keys = l.cp > 1 ? full_seq / (2 * l.cp) : full_seq;
  const double core_eff = st.train.flash_attention ? flash_attention_eff(e, keys, st.train.flash2)
                          : st.train.flash2 && e.flash2_ceiling > 0 ? e.flash2_ceiling
                                                                      : e.gemm_max * 0.8;
  y.attn_core = core_flops / (core_peak * core_eff);
  // Ring attention merges each of its cp steps' partial outputs into an fp32 sum: reading the
  // step's 16-bit output and reading and writing the sum, 10 bytes an output element; the backward
  // pass sums dQ the same way and dK, dV (8 bytes an element) as they travel the ring.
  y.cp_merge_fwd = l.cp > 1 ? l.cp * 10 * b * s * qw / t / mem_bw : 0;
  y.cp_merge_bwd = l.cp > 1 ? y.cp_merge_fwd + l.cp * 8 * b * s * 2 * kvw / t / mem_bw : 0;
  const double mats = m.gated() ? 3 : 2;
  const bool sp = l.sequence_parallel && l.tp > 1;
  // Transformer Engine quantises each input of a low-precision GEMM: it reads the 16-bit tensor
  // and writes the row-wise copy the forward GEMM takes and the column-wise (transposed) one the
  // weight gradient takes, 2 + 2q bytes an element (q = quantised_bytes); the backward pass does
  // the same to the output gradients, for the data and weight gradients. Memory-bound. Under
  // sequence parallelism the h-wide tensors are quantised as 1/t shards, before their all-gather.
  // (The weights are quantised once a step, cached over its micro-batches: left out.)
  const double cast = lowp ? (2 + 2 * quantised_bytes(st.precision)) / mem_bw : 0;
  const double hs = h / (sp ? t : 1);
  const double attn_cast_fwd = mlp_only ? 0 : cast * tokens * (hs + qw / t);
  const double attn_cast_bwd = mlp_only ? 0 : cast * tokens * ((qw + 2 * kvw) / t + hs);
  auto mlp_cast_fwd = [&](double ffn, double copies) { return cast * copies * tokens * (hs + ffn / t); };
  auto mlp_cast_bwd = [&](double ffn, double copies) { return cast * copies * tokens * ((mats - 1) * ffn / t + hs); };
  // The GEMM curve's depth term stands for the memory-bound work around a layer's GEMMs, which
  // goes with the layer's width (gemm_half_of), more than for a GEMM's own k loop. A dense MLP's
  // down projection is deeper than the layer is wide; an MoE expert's can be far shallower (Qwen3
  // 30B-A3B: 768 against a width of 2,048), and at its own depth it counted that work again on the
  // layer's smallest GEMMs: its depth term reads at least the layer's width. (Chosen after seeing
  // the MoE rows of tests/validation/REPORT.md run faster than modelled: in sample for the choice.)
  auto mlp_of = [&](double ffn, double token_share) {
    double tk = tokens * token_share;
    if (tk <= 0) return 0.0;
    double up = 2 * tk * h * (mats - 1) * ffn / t / (peak * geff(tk, h, (mats - 1) * ffn / t));
    double down = 2 * tk * ffn / t * h / (peak * geff(tk, std::max(ffn, h) / t, h));
    return up + down;
  };
  const bool moe = m.moe();
  y.dense_mlp = mlp_of(m.ffn, 1);
  if (moe) {
    // Each token visits k routed experts. With expert parallelism the ep ranks exchange
    // tokens so that each device runs its experts/ep local experts on tokens x k tokens in
    // all (balanced routing): tokens x k / local per expert.
    const double local = static_cast<double>(m.experts) / l.ep;
    y.moe_mlp = local * mlp_of(m.expert_ffn, m.active_experts / local) + m.shared_experts * mlp_of(m.expert_ffn, 1);
  }
  // Memory-bound element-wise work: norms, residuals, activation function, rotary, dropout.
  double elem_bytes = 24 * tokens * h / (sp ? t : 1) + 6 * tokens * (moe ? m.expert_ffn * m.active_experts : m.ffn) / t;
  y.elem = elem_bytes / mem_bw;
  y.permute = moe ? moe_permute_bytes(m, tokens) / (sp ? t : 1) / mem_bw : 0;
  const double expert_copies = m.active_experts + m.shared_experts;
  y.cast_fwd_dense = lowp ? attn_cast_fwd + mlp_cast_fwd(m.ffn, 1) : 0;
  y.cast_bwd_dense = lowp ? attn_cast_bwd + mlp_cast_bwd(m.ffn, 1) : 0;
  y.cast_fwd_moe = lowp && moe ? attn_cast_fwd + mlp_cast_fwd(m.expert_ffn, expert_copies) : 0;
  y.cast_bwd_moe = lowp && moe ? attn_cast_bwd + mlp_cast_bwd(m.expert_ffn, expert_copies) : 0;
  // Output layer and loss on the last stage (and the embedding on the first), in 16 bits under a
  // low precision: Megatron's output layer is its own ColumnParallelLinear, not a Transformer
  // Engine module.
  y.head = gemm(h, m.vocab / t) * y.to16;
  // The loss over the vocabulary, memory-bound, on the last stage with the output layer. Unfused,
  // as PyTorch's F.cross_entropy runs on 16-bit logits under autocast: the fp32 upcast (read 2,
  // write 4 bytes a logit), log-softmax (4 + 4), the NLL backward's zero-filled gradient (4),
  // log-softmax's backward (read 4 + 4, write 4) and the cast back to 16 bits (4 + 2): 36 bytes a
  // logit. Fused (flash-attn's cross-entropy kernel, Megatron's fused vocab-parallel one): the
  // forward reads the 16-bit logits once, the backward reads them again and writes their gradient,
  // 6 bytes. Against 6N FLOPs a token this is 1-2% of a Llama 3 8B step, 10-20% of GPT-2 124M's.
  y.loss = (st.train.fused_loss ? 6 : 36) * tokens * static_cast<double>(m.vocab) / t / mem_bw;

  // --- tensor-parallel communication: one all-reduce of the layer's 16-bit activations (or the
  // same volume as an all-gather and a reduce-scatter with sequence parallelism).
  if (l.tp > 1) y.tp_one = collective_s(d, e, 2 * tokens * h, l.tp, 1, ring_allreduce_s);
  // --- context parallelism: ring attention passes K and V shards (cp - 1) times forward and
  // twice that backward.
  if (l.cp > 1) {
    double kv_bytes = 2 * 2 * b * s * kvw / t;
    y.cp_comm = 3 * (l.cp - 1) * p2p_s(d, e, kv_bytes, l.cp * l.tp > d.scale_up_domain);
  }
  // --- expert parallelism: one dispatch or combine all-to-all.
  if (moe && l.ep > 1) {
    double bytes_a2a = 2 * tokens * h * m.active_experts / (sp ? t : 1);
    y.ep_a2a = alltoall_s(d, e, bytes_a2a, l.ep, l.tp * l.cp, m.active_experts, st.ep_dedup);
  }
  return y;
}

StepParts replica_parts(const StepModel& sm, const Layout& l) { return replica_parts(sm, l, layer_parts(sm, l)); }

StepParts replica_parts(const StepModel& sm, const Layout& l, const LayerParts& y) {
  const ModelArch& m = sm.model;
  const Device& d = sm.device;
  const StepSettings& st = sm.settings;
  const Efficiency& e = st.eff;
  StepParts r;
  const double tokens = y.tokens, h = m.hidden, t = l.tp;
  const double mem_bw = d.memory_bw.value() * e.memory;
  const bool sp = l.sequence_parallel && l.tp > 1;
  const bool lowp = low_precision(st.precision), mlp_only = lowp && st.low_precision_mlp_only;
  const bool moe = m.moe();
  const double attn_gemm = y.attn_gemm, attn_core = y.attn_core, dense_mlp = y.dense_mlp, moe_mlp = y.moe_mlp;
  const double to16 = y.to16, permute = y.permute;

  const int per_stage = (m.layers + l.pp - 1) / l.pp;
  const int moe_layers_here = moe ? std::min(per_stage, std::max(0, m.moe_layers() - (m.layers - per_stage))) : 0;
  // The most loaded stage: the last stages hold the MoE layers in DeepSeek-style models.
  const int dense_layers_here = per_stage - moe_layers_here;
  const double shared = attn_core + y.cp_merge_fwd + y.elem;  // what no precision changes
  const double fwd_layer_dense = attn_gemm + dense_mlp + shared + y.cast_fwd_dense;
  const double fwd_layer_moe = attn_gemm + moe_mlp + shared + permute + y.cast_fwd_moe;
  // Layers kept in 16 bits under a low precision (high_precision_layers, split between the first
  // and the last): the first or last stage holds its half of them; taken from the stage's MoE
  // layers first, as the last layers are MoE in DeepSeek-style models.
  const int hp_here = lowp ? std::min(per_stage, l.pp > 1 ? (st.high_precision_layers + 1) / 2 : st.high_precision_layers) : 0;
  const int hp_moe = std::min(hp_here, moe_layers_here), hp_dense = std::min(hp_here - hp_moe, dense_layers_here);
  const double attn16 = mlp_only ? attn_gemm : attn_gemm * to16;
  double fwd = (dense_layers_here - hp_dense) * fwd_layer_dense + (moe_layers_here - hp_moe) * fwd_layer_moe +
               hp_dense * (attn16 + dense_mlp * to16 + shared) + hp_moe * (attn16 + moe_mlp * to16 + shared + permute);
  const double head = y.head;
  fwd += head;
  double bwd = 2 * fwd;
  bwd += (dense_layers_here - hp_dense) * (y.cast_bwd_dense - 2 * y.cast_fwd_dense) +
         (moe_layers_here - hp_moe) * (y.cast_bwd_moe - 2 * y.cast_fwd_moe);
  // Flash attention's backward recomputes the scores and probabilities it did not keep: five
  // matrix products against the forward's two, 2.5x its FLOPs (the flash-attention repository's
  // benchmark convention, benchmarks/benchmark_flash_attention.py), not the 2x of stored scores.
  // It also runs slower than the forward pass: 0.87 of its rate for FlashAttention-2 (322 of 370
  // TFLOP/s) and for FlashAttention-3 (561 of 648) on an H100 at head dim 128 and 16K tokens (Shah
  // et al. 2024, FlashAttention-3, forward and backward speed figures).
  if (st.train.flash_attention) bwd += (2.5 / flash_bwd_rate - 2) * per_stage * attn_core;
  bwd += per_stage * (y.cp_merge_bwd - 2 * y.cp_merge_fwd);
  const bool adapters = adapters_only(st.train);
  // Frozen base weights (LoRA, QLoRA): the backward pass skips the weight-gradient GEMMs, half of
  // its linear-layer work (the adapters' own GEMMs, rank r against width h, are left out).
  if (adapters)
    bwd -= dense_layers_here * (attn_gemm + dense_mlp) + moe_layers_here * (attn_gemm + moe_mlp) + head;
  double recompute = 0;
  if (l.recompute == Recompute::full) recompute = fwd - head;
  else if (l.recompute == Recompute::selective && !st.train.flash_attention) recompute = per_stage * attn_core;
  double per_micro = (fwd + bwd + recompute + y.loss) * (1 + st.framework_overhead);
  // Full recomputation's share, which a layout recomputing only some layers scales (step_time).
  if (l.recompute == Recompute::full) r.recompute_micro = recompute * (1 + st.framework_overhead);
  // The host issues the stage's kernels while the devices run the ones before: a micro-batch takes
  // the longer of the two. Only small layers at small micro-batches meet this floor.
  r.host_micro = host_issue_s(per_stage, moe_layers_here, st.cuda_graphs);
  // QLoRA dequantises the 4-bit base weights to 16 bits before each pass that uses them (forward,
  // backward, a recomputed forward): reading 4.127 bits and writing 16 a weight, memory-bound (a
  // roofline estimate).
  r.stage = stage_params(m, sm.params, l, false);  // the first stage's parameters per device
  if (st.train.finetune == Finetune::qlora) {
    const double pass = r.stage.total() * (base_weight_bytes(st.train) + 2) / mem_bw;
    per_micro += 2 * pass;
    if (l.recompute == Recompute::full) {
      per_micro += pass;
      r.recompute_micro += pass;
    }
  }

  // --- tensor-parallel communication: 2 all-reduces forward and 2 backward per layer (or
  // the same volume as all-gathers and reduce-scatters with sequence parallelism), again in
  // the recomputed forward. Exposed: Megatron does not overlap them by default.
  double tp_per_micro = 0;
  if (l.tp > 1) {
    tp_per_micro = per_stage * 4 * y.tp_one * (1 - st.tp_overlap);
    if (l.recompute == Recompute::full) {
      r.tp_recompute_micro = per_stage * 2 * y.tp_one * (1 - st.tp_overlap);
      tp_per_micro += r.tp_recompute_micro;
    }
  }
  // --- context parallelism: the ring's passes, overlapped with the attention core.
  double cp_per_micro = 0;
  if (l.cp > 1) cp_per_micro = per_stage * (y.cp_comm - st.cp_overlap * std::min(y.cp_comm, 3 * attn_core));
  // --- expert parallelism: dispatch and combine all-to-alls, forward and backward.
  double ep_per_micro = 0;
  if (moe && l.ep > 1) ep_per_micro = moe_layers_here * 4 * y.ep_a2a * (1 - st.ep_overlap);
  // --- pipeline: activations to the next stage, forward and backward, per micro-batch. Each
  // tensor-parallel rank sends its 1/t of them, with or without sequence parallelism: Megatron's
  // scatter/gather optimisation (Narayanan et al. 2021, section 4.1; on by default) splits the
  // replicated tensor before the inter-node send and all-gathers it over NVLink after.
  if (l.pp > 1) r.p2p_bytes = 2 * tokens * h / t;
  r.trained = adapters ? lora_params(m, per_stage, l.tp, st.train.lora_rank) : r.stage.total();
  r.per_micro = per_micro;
  r.tp_per_micro = tp_per_micro;
  r.cp_per_micro = cp_per_micro;
  r.ep_per_micro = ep_per_micro;
  r.bwd = bwd;
  r.mem_bw = mem_bw;
  r.host_bw = d.host.bw_per_direction.value() * e.link;
  r.host_mem_bw = st.host_memory_bw.value() * e.memory;
  r.checkpoints = per_stage * 2 * tokens * h / (sp ? t : 1);
  r.per_stage = per_stage;
  return r;
}

void add_data_parallel(const StepModel& sm, const Layout& l, StepParts& r) {
  const Device& d = sm.device;
  const Efficiency& e = sm.settings.eff;
  const TrainSettings& ts = sm.settings.train;
  r.p2p = l.pp > 1 ? p2p_s(d, e, r.p2p_bytes, l.tp * l.cp * l.dp >= d.scale_up_domain) : 0;
  // --- data parallelism (finished per ZeRO stage in step_time): the collectives over the
  // dp x cp ranks of the first stage's parameters, in the gradient and the weight dtype. Ranks
  // are tp x pp x cp apart, so dp groups leave the scale-up domain quickly.
  r.n_dp = l.dp * l.cp;
  r.grad_gather = r.weight_gather = r.param_gather = r.grad_allreduce = 0;
  if (r.n_dp > 1) {
    const int stride = l.tp;  // dp x cp ranks are tp apart (Megatron's rank order tp, cp, dp, pp)
    const double grad_bytes = r.trained * ts.grad_bytes;
    const double weight_bytes = r.trained * ts.weight_bytes;
    r.grad_gather = collective_s(d, e, grad_bytes, r.n_dp, stride, ring_gather_s);
    r.weight_gather = collective_s(d, e, weight_bytes, r.n_dp, stride, ring_gather_s);
    r.param_gather = adapters_only(ts) ? collective_s(d, e, r.stage.total() * base_weight_bytes(ts) + weight_bytes,
                                                      r.n_dp, stride, ring_gather_s)
                                       : r.weight_gather;
    r.grad_allreduce = sm.settings.sharp && d.scale_out.in_network_reduction
                           ? sharp_collective_s(d, e, grad_bytes, r.n_dp, stride)
                           : collective_s(d, e, grad_bytes, r.n_dp, stride, ring_allreduce_s);
  }
}

StepParts step_parts(const StepModel& sm, const Layout& l) {
  StepParts r = replica_parts(sm, l);
  add_data_parallel(sm, l, r);
  return r;
}

StepTime step_time(const StepModel& sm, const Layout& l) { return step_time(sm, l, step_parts(sm, l)); }

double bubble_slots(Schedule schedule, int pp, int interleave) {
  // 1F1B (p - 1) / v (Narayanan et al. 2021); zero bubble (ZB-H1) (p - 1)(F + B - 2W), a third of
  // 1F1B's when the forward, the input gradients and the weight gradients take a third each (Qi et
  // al. 2024, section 3); DualPipe (p/2 - 1)(F&B + B - 3W), two thirds of a slot per stage pair
  // with F&B = F + B (DeepSeek-V3 report, Table 2).
  if (pp <= 1) return 0;
  switch (schedule) {
    case Schedule::zero_bubble: return (pp - 1.0) / 3;
    case Schedule::dualpipe: return std::max(0.0, pp / 2.0 - 1) * 2 / 3;
    default: return (pp - 1.0) / interleave;
  }
}

MicroBatchTime micro_batch_time(const StepParts& p, int pp, int interleave, double skipped) {
  MicroBatchTime t;
  t.compute = std::max(p.per_micro - skipped * p.recompute_micro, p.host_micro);
  t.tp = p.tp_per_micro - skipped * p.tp_recompute_micro;
  t.pp = pp > 1 ? 2 * interleave * p.p2p : 0;
  t.all = t.compute + t.tp + p.cp_per_micro + p.ep_per_micro + t.pp;
  return t;
}

double exposed_dp_s(double wire, double bwd, double overlap) {
  // Gradient buckets of the last micro-batch reduce while earlier layers run backward.
  return std::max(wire - bwd * overlap, wire * (1 - overlap));
}

namespace {

// Host offload: the host-link time left exposed per step, and the host's update in place of the
// device's (`optimizer`). The optimizer (ZeRO-Offload, Ren et al. 2021): 16-bit gradients go
// down while the backward pass runs (hidden as the data-parallel traffic is), the host's
// CPU-Adam reads gradient, master weights and moments and writes them and the 16-bit weights
// back (2 o + 4 + w bytes a parameter, bound by its memory bandwidth), and the new weights come
// up before the next forward pass. Weights (ZeRO-Infinity) come up twice per micro-batch,
// forward and backward, and activation checkpoints go down and back once, each prefetched
// layer by layer behind that micro-batch's compute: only what exceeds it shows.
double offload_s(const StepSettings& st, const Layout& l, const StepParts& p, double local_params, int mbs,
                 double& optimizer) {
  const double w = st.train.weight_bytes, o = optimizer_bytes_per_param(st.train.optimizer);
  double exposed = 0;
  if (l.offload & offload_optimizer) {
    optimizer = local_params * (2 * o + 4 + w) / p.host_mem_bw;
    const double one_way = local_params * w / p.host_bw;
    exposed += one_way * (1 - st.dp_overlap) + one_way;
  }
  if (l.offload & offload_weights) {  // ZeRO-3: this rank's shard of the stage's weights (frozen ones at their own width)
    const double shard = adapters_only(st.train) ? p.stage.total() / p.n_dp * base_weight_bytes(st.train) : local_params * w;
    exposed += mbs * std::max(0.0, 2 * shard / p.host_bw - p.per_micro);
  }
  if (l.offload & offload_activations) exposed += mbs * std::max(0.0, 2 * p.checkpoints / p.host_bw - p.per_micro);
  return exposed;
}

}  // namespace

StepTime step_time(const StepModel& sm, const Layout& l, const StepParts& p) {
  const StepSettings& st = sm.settings;
  const int mbs = l.micro_batches_run();
  // Recomputing recompute_layers of the stage's layers: that share of full recomputation's cost.
  const double skipped = 1 - static_cast<double>(layers_at_recompute(l, p.per_stage)) / p.per_stage;
  const MicroBatchTime micro = micro_batch_time(p, l.pp, l.interleave, skipped);
  const double bubble = bubble_slots(st.train.schedule, l.pp, l.interleave) * micro.all;

  // --- data parallelism: gradient reduce-scatter/all-reduce over dp x cp ranks; ZeRO-3 also
  // gathers parameters forward and backward.
  const int n_dp = p.n_dp;
  double dp = 0;
  if (n_dp > 1) {
    double wire = l.zero >= 1 ? p.grad_gather + p.weight_gather : p.grad_allreduce;
    // ZeRO-3 gathers each micro-batch's parameters forward and backward. Under pipelining FSDP keeps
    // a stage gathered between a forward and its backward (memory.cpp) but reshards after each
    // backward, so 1F1B's next forward gathers again: torchtitan's 405B rows at 32 and 8
    // micro-batches a step (TP 8, PP 8, FSDP 8) measure 41 s and 54 s, as two gathers a
    // micro-batch make them, where one gather a step would make the first 26 s.
    if (l.zero >= 3) wire += 2 * mbs * p.param_gather;
    dp = exposed_dp_s(wire, p.bwd, st.dp_overlap);
  }
  // --- optimizer: memory-bound update of the local shard (read 16, write 12 bytes/param for Adam).
  const bool adapters = adapters_only(st.train);
  double local_params = adapters      ? (l.zero >= 1 ? p.trained / n_dp : p.trained)
                        : l.zero >= 1 ? p.stage.dense / n_dp + p.stage.expert / std::max(1.0, double(n_dp) / l.ep)
                                      : p.stage.total();
  double optimizer = local_params * 28 / p.mem_bw;
  const double offload = l.offload ? offload_s(st, l, p, local_params, mbs, optimizer) : 0;

  StepTime r;
  r.compute = seconds(mbs * micro.compute);
  r.tp_comm = seconds(mbs * micro.tp);
  r.cp_comm = seconds(mbs * p.cp_per_micro);
  r.ep_comm = seconds(mbs * p.ep_per_micro);
  r.pp_comm = seconds(mbs * micro.pp);
  r.bubble = seconds(bubble);
  r.dp_comm = seconds(dp);
  r.optimizer = seconds(optimizer);
  r.offload = seconds(offload);
  r.total = r.compute + r.tp_comm + r.cp_comm + r.ep_comm + r.pp_comm + r.bubble + r.dp_comm + r.optimizer + r.offload;
  const double step_tokens = static_cast<double>(mbs) * l.micro_batch * l.dp * st.train.seq_len;
  r.model_flops =
      flops(model_flops_per_token(sm.model, sm.params, st.train.seq_len, adapters, st.train.flash_attention) * step_tokens);
  // Full recomputation runs the forward pass again: 2N on 6N, or on 4N over frozen weights.
  const double recomputed = l.recompute == Recompute::full ? 1 - skipped : 0;
  r.hardware_flops = r.model_flops * (1 + recomputed * (adapters ? 0.5 : 1.0 / 3.0));
  return r;
}

}  // namespace gpuplan
