// SPDX-License-Identifier: Apache-2.0
#pragma once
// Training step time of one layout: compute by roofline with size-dependent GEMM
// efficiency, tensor/pipeline/data/context/expert-parallel communication over the
// scale-up and scale-out links, the pipeline bubble, and the optimizer step.
#include "gpuplan/analysis/device.hpp"
#include "gpuplan/analysis/memory.hpp"

namespace gpuplan {

// Achievable fractions of datasheet peaks per accelerator family: the default curve that a
// calibration file replaces. Sources in step.cpp.
struct Efficiency {
  double gemm_max = 0.8;    // large bf16 GEMMs
  // The device's GEMM size scale (512 on A100, more on SMs that need deeper tiles): the depth
  // k at which a GEMM reaches half its ceiling is gemm_k_halves x gemm_half (see gemm_eff).
  double gemm_half = 512;
  // The GEMM's own depth scale (Hopper and Blackwell measured, Ampere estimated: step.cpp): what
  // is left of the depth term when a trainer fuses the element-wise work around its GEMMs
  // (TrainSettings::fused_kernels); 0: none for this family, and the depth term stays gemm_half.
  double gemm_half_fused = 0;
  const char* fused_origin = "";  // where gemm_half_fused comes from
  double gemm_max_fp8 = 0.68;  // large FP8 GEMMs (where the device has FP8)
  // GEMMs of the NVFP4 training recipe (its Hadamard transforms, 2D weight scaling and stochastic
  // rounding lumped in), over the FP4 peak: a fit on Blackwell (step.cpp), an estimate elsewhere.
  // Inference's FP4 GEMMs: fp4_gemm_share (below).
  double gemm_max_fp4 = 0.68;
  double memory = 0.85;     // streaming bandwidth
  double link = 0.8;        // achievable fraction of link bandwidth for NCCL-class collectives
  // FlashAttention-2's ceiling as a share of the dense peak where it is slower than the default
  // flash kernels (Hopper: 0.35); 0: the same ceiling as flash.
  double flash2_ceiling = 0;
  std::string origin = "default curve";
};
Efficiency default_efficiency(const Device& d);
// The device's GEMM size scale: 512 (fitted on an A100 80GB) times its dense bf16 FLOPs per
// byte of memory bandwidth over the A100's, at least 1x. Reasoning in step.cpp.
double gemm_half_of(const Device& d);

// The GEMM curve: eff = max x k / (k + gemm_k_halves x half) x T / (T + gemm_tile_half), with
// T = m n / 128^2 the 128 x 128 output tiles. The depth term is each tile's fixed cost against its
// k loop; the tile term is wave quantisation, which vanishes once the output spans many waves
// of the device, so a GEMM of 2,048 tokens by a wide layer runs near its ceiling (the per-
// dimension form 1/(1 + half/m + half/k + half/n) it replaces held it at two thirds). Both
// constants were fitted once, together, by a grid search over the vTrain multi-node set and
// Korthikanti et al. 2022 Table 5 (A100; tests/validation/REPORT.md), one pair for every row:
// never per case.
constexpr double gemm_k_halves = 2.5, gemm_tile_half = 50;
// Flash attention's rate over its ceiling is L / (L + flash_keys_half) for L keys a call (step.cpp).
constexpr double flash_keys_half = 238;
// Flash attention's backward rate over its forward rate (FlashAttention-3 paper, H100; step.cpp).
constexpr double flash_bwd_rate = 0.87;
// Flash attention's share of the peak for calls that see `keys` keys: its ceiling (FlashAttention-2's
// where `flash2` and the device has one, else 0.8 of the GEMM ceiling) times L / (L + flash_keys_half).
inline double flash_attention_eff(const Efficiency& e, double keys, bool flash2) {
  const double ceiling = flash2 && e.flash2_ceiling > 0 ? e.flash2_ceiling : e.gemm_max * 0.8;
  return ceiling * keys / (keys + flash_keys_half);
}
inline double gemm_curve(double max, double half, double m, double k, double n) {
  const double tiles = m * n * (1.0 / (128 * 128));
  return max * k / (k + gemm_k_halves * half) * tiles / (tiles + gemm_tile_half);
}
// Served NVFP4 GEMMs (W4A4, each activation quantised on the way in) reach this share of the
// 16-bit ceiling times the ratio of the peaks: on a B200, vLLM's CUTLASS NVFP4 GEMM ran Llama 3.1
// 8B's N=6144 K=4096 projection at 3,025 TFLOP/s at M=8192 where torch's BF16 ran 1,421 (vLLM PR
// #20646, bench_nvfp4_gemm.py, Jul 2025): 2.13x, against the peaks' 4x (9,000 and 2,250). The
// training recipe's fitted 0.40 of the FP4 peak (step.cpp) comes out alike.
constexpr double fp4_gemm_share = (3025.5 / 1421.0) / (9000.0 / 2250.0);
// The GEMM ceiling of a compute precision: FP8's own where the device has FP8 tensor rates, and
// served FP4's share of the 16-bit one where it has FP4 rates.
inline double gemm_ceiling(const Efficiency& e, const Device& d, DType compute) {
  if (compute == DType::fp8 && d.peak[static_cast<int>(DType::fp8)] > 0) return e.gemm_max_fp8;
  if (compute == DType::fp4 && d.peak[static_cast<int>(DType::fp4)] > 0) return e.gemm_max * fp4_gemm_share;
  return e.gemm_max;
}
// Efficiency of an (m x k) by (k x n) GEMM on the curve.
double gemm_eff(const Efficiency& e, double m, double k, double n);

// Training precisions (--precision): 32 or 16 bits, or one of Transformer Engine's low-precision
// GEMM recipes: fp8 (E4M3/E5M2 with a scale per tensor; Hopper on), mxfp8 (FP8 in blocks of 32
// sharing a power-of-two scale, the OCP MX format) and nvfp4 (E2M1 in blocks of 16 with an E4M3
// scale, and an FP32 scale per tensor; NVIDIA 2025, 'Pretraining Large Language Models with
// NVFP4', arXiv 2509.25149). The low-precision recipes quantise the linear layers' GEMMs only:
// attention's core, the norms, the embedding and the output layer stay in 16 bits.
enum class Precision { fp32, tf32, bf16, fp16, fp8, mxfp8, nvfp4 };
Precision parse_precision(const std::string& s);  // "fp4" reads as nvfp4; throws Error(usage)
std::string to_string(Precision p);
DType compute_dtype_of(Precision p);  // the tensor rate its GEMMs run at: fp8 for fp8 and mxfp8, fp4 for nvfp4
inline bool low_precision(Precision p) { return p == Precision::fp8 || p == Precision::mxfp8 || p == Precision::nvfp4; }
// Bytes a quantised element takes with its share of the block scale: fp8 1, mxfp8 1 + 1/32,
// nvfp4 1/2 + 1/16; 2 (16 bits, unquantised) for the others.
double quantised_bytes(Precision p);

struct StepSettings {
  TrainSettings train;
  Precision precision = Precision::bf16;
  DType compute_dtype = DType::bf16;
  // Under a low precision: only the MLP's (and experts') linear layers quantised, the attention
  // projections in 16 bits (--low-precision-layers mlp); and how many transformer layers stay in
  // 16 bits altogether, split between the first and the last (Megatron's first_last_layers_bf16
  // with num_layers_at_start_in_bf16 and num_layers_at_end_in_bf16, off by default; the NVFP4
  // recipe keeps about 16% of them, arXiv 2509.25149).
  bool low_precision_mlp_only = false;
  int high_precision_layers = 0;
  Efficiency eff;
  double dp_overlap = 0.5;  // share of data-parallel gradient traffic hidden behind the backward pass
  // Shares of tensor-parallel and expert all-to-all traffic hidden behind compute: 0 is
  // Megatron's default; NeMo's userbuffers (TP) and DeepSeek's DualPipe (EP) hide most of it.
  double tp_overlap = 0, ep_overlap = 0;
  // Expert dispatch that sends a token once to each node holding one of its experts and fans it
  // out there (DeepEP, HybridEP): the scale-out share of the all-to-all shrinks (remote_token_copies).
  bool ep_dedup = false;
  // Share of the ring attention's K/V passes hidden behind the attention core they feed (as
  // Transformer Engine's context parallelism runs them: 1); 0 exposes them all.
  double cp_overlap = 1;
  double framework_overhead = 0.03;  // kernel launches, synchronisation, data loading (share of compute)
  // The host issues each layer's kernels one by one (eager PyTorch) or replays them as CUDA graphs
  // (--cuda-graphs): a micro-batch takes at least the time to issue its kernels (host_floor).
  bool cuda_graphs = false;
  // The gradient all-reduce's scale-out level reduced in the fabric's switches (InfiniBand SHARP
  // through NCCL's CollNet, NCCL_COLLNET_ENABLE=1; off by default in NCCL): --sharp, where the
  // fabric has it (sharp_allreduce_s).
  bool sharp = false;
  // The host's memory bandwidth per device (its share of the node's), for an offloaded
  // optimizer's update; 0: no host to offload to.
  ByteRate host_memory_bw = bytes_per_s(0);
};
// Whether the GEMMs run at their own measured depth: the trainer fuses its element-wise work and
// the device's fused depth is measured (Efficiency::gemm_half_fused); otherwise Megatron's term.
inline bool fused_rates(const StepSettings& st) { return st.train.fused_kernels && st.eff.gemm_half_fused > 0; }
// Sets the precision and what follows from it: 32-bit weights under fp32/tf32, 16-bit otherwise;
// quantised copies of the saved inputs of the linear layers it quantises (all, or the MLP's under
// low_precision_mlp_only) under a low precision.
void set_precision(StepSettings& st, Precision p);
void set_precision(StepSettings& st, DType compute);  // fp8 as Precision::fp8, fp4 as nvfp4


// One step of one layout, term by term (their sum is `total`). Typed at the boundary: the step
// model computes in plain doubles inside (the search's hot path) and hands out quantities.
struct StepTime {
  Seconds compute = seconds(0), tp_comm = seconds(0), pp_comm = seconds(0), dp_comm = seconds(0),
          cp_comm = seconds(0), ep_comm = seconds(0), bubble = seconds(0), optimizer = seconds(0);
  Seconds offload = seconds(0);  // exposed host-link transfers of offloaded state (the host's update is `optimizer`)
  Seconds total = seconds(0);
  Flops model_flops = flops(0);     // per step, model_flops_per_token of the attention as run (mfu_convention)
  Flops hardware_flops = flops(0);  // model FLOPs plus recomputation
};

// Precomputed per model and settings, so that each layout costs a few hundred operations.
struct StepModel {
  ModelArch model;
  ParamCounts params;
  Device device;
  StepSettings settings;
};

// Model FLOPs per token for training: 6 N_active + 12 L s d_attn (PaLM's convention, full
// attention matrix; Chowdhery et al. 2022, Appendix B), or with `causal` 6 L s d_attn: the half of
// the score matrix that causal flash attention computes, as the step model runs it. Over frozen
// base weights (LoRA, QLoRA) 4 N: the backward pass computes the activations' gradients but no
// weight gradients.
double model_flops_per_token(const ModelArch& m, const ParamCounts& pc, int seq_len, bool frozen_base = false,
                             bool causal = false);
// The MFU convention of a training run, as printed: "6N + 6Lsd (causal, as run)" under flash
// attention, "6N + 12Lsd" with the whole score matrix (eager attention), 4N over a frozen base.
std::string mfu_convention(const TrainSettings& st);

// Bytes one MoE layer's forward pass moves to route `tokens` tokens: the dispatcher's permute reads
// each 16-bit token and writes its k routed copies, and the combine reads the copies back and writes
// the weighted sum, 4 h (k + 1) bytes a token (the least traffic a dispatcher can have; unfused
// ones copy more). Memory-bound, at the streaming rate.
double moe_permute_bytes(const ModelArch& m, double tokens);

// Copies of a token that cross the scale-out network when it is routed to k experts spread evenly
// over `nodes` nodes (its own one of them): per-expert dispatch sends k (nodes - 1) / nodes; a
// dispatcher that sends once per node, (nodes - 1)(1 - (1 - 1/nodes)^k), the expected number of other
// nodes among k destinations drawn uniformly (balanced routing).
double remote_token_copies(double k, double nodes, bool once_per_node);

// Ring collectives over n ranks: all-reduce moves 2(n-1)/n of the bytes, all-gather and
// reduce-scatter (n-1)/n, each step paying the link latency.
double ring_allreduce_s(double bytes, int n, double bw, double latency);
double ring_gather_s(double bytes, int n, double bw, double latency);
// An all-reduce over n ranks reduced in the switches (SHARP): each rank sends its bytes up the
// switch tree once and receives the reduced result once, bytes / bw where a ring moves
// 2(n-1)/n of them, and pays the link latency once a tier up and once down. Tiers of a
// rail's fat tree of radix-port switches (half their ports down above the leaves): 1 up to radix
// ranks, then each tier multiplies the reach by radix / 2.
double sharp_allreduce_s(double bytes, int n, double bw, double latency, int radix);

// A collective over `size` ranks `stride` devices apart, hierarchical as NCCL runs it: on the
// scale-up link inside one domain; beyond it, first inside each domain, then 1/inside of the bytes
// among the domains over each device's share of its node's NICs (the host link where it has none).
// `ring` prices one level (ring_allreduce_s, ring_gather_s or serving's switched_allreduce_s).
using CollectiveLevel = double (*)(double bytes, int n, double bw, double latency);
double hierarchical_collective_s(const Device& d, const Efficiency& e, double bytes, int size, int stride,
                                 CollectiveLevel ring);

StepTime step_time(const StepModel& sm, const Layout& l);

// What the step time of a layout shares with every ZeRO stage and interleaving of it (a function
// of tp, pp, dp, cp, ep, micro-batch, global batch, recomputation and sequence parallelism):
// one micro-batch's compute and exposed tp/cp/ep communication, one pipeline send, the
// data-parallel collectives. The search computes it once per group; step_time(.., parts) then
// equals step_time(..) for every layout of the group.
struct StepParts {
  double per_micro = 0, tp_per_micro = 0, cp_per_micro = 0, ep_per_micro = 0;
  double bwd = 0;     // backward compute of one micro-batch (what gradient reduction can hide behind)
  double p2p = 0;     // one pipeline send of one micro-batch's activations
  double p2p_bytes = 0;  // what each rank sends of them
  StageParams stage;  // the first stage's parameters per device
  double trained = 0; // of those, what trains (all of them, or the LoRA adapters)
  int n_dp = 1;       // dp x cp
  double grad_gather = 0, weight_gather = 0, grad_allreduce = 0;  // over the dp x cp ranks: what trains
  double param_gather = 0;  // ZeRO-3's gather of every weight (frozen ones at their own width), each micro-batch
  double mem_bw = 0;  // achieved memory bandwidth (the optimizer update)
  double host_bw = 0, host_mem_bw = 0;  // achieved host link (per direction) and host memory bandwidth
  double checkpoints = 0;  // bytes of one micro-batch's layer-input checkpoints on the stage (full recomputation)
  // Of per_micro and tp_per_micro, what full recomputation of every layer adds (0 otherwise).
  double recompute_micro = 0, tp_recompute_micro = 0;
  // The host's time to issue one micro-batch's kernels: the devices run no faster (host_floor).
  double host_micro = 0;
  int per_stage = 1;  // layers on the most loaded stage
};
StepParts step_parts(const StepModel& sm, const Layout& l);
// step_parts in two: the parts inside one data-parallel replica, which depend on l's tp, pp, cp,
// ep, micro-batch, recomputation and sequence parallelism alone, and then what l's dp adds (the
// pipeline send's reach and the collectives over the dp x cp ranks). Counts that share a replica
// share the first.
StepParts replica_parts(const StepModel& sm, const Layout& l);
void add_data_parallel(const StepModel& sm, const Layout& l, StepParts& parts);
// What one layer of each kind costs a micro-batch, which depends on l's tp, cp, ep, micro-batch
// and sequence parallelism alone (not on pp, recomputation or dp): replica_parts assembles a
// stage of them, so a search computes them once for the layouts that share those degrees.
struct LayerParts {
  double tokens = 0;  // per micro-batch on a rank (seq / cp x micro-batch)
  double to16 = 1;    // a 16-bit GEMM's time over a quantised one's (low precisions)
  double attn_gemm = 0, attn_core = 0, cp_merge_fwd = 0, cp_merge_bwd = 0, dense_mlp = 0, moe_mlp = 0, elem = 0,
         permute = 0;
  double cast_fwd_dense = 0, cast_bwd_dense = 0, cast_fwd_moe = 0, cast_bwd_moe = 0;  // low-precision quantisation
  double head = 0, loss = 0;                   // the output layer and the loss over the vocabulary
  double tp_one = 0, cp_comm = 0, ep_a2a = 0;  // one tp collective, a layer's ring passes, one all-to-all
};
LayerParts layer_parts(const StepModel& sm, const Layout& l);
StepParts replica_parts(const StepModel& sm, const Layout& l, const LayerParts& layer);
// Host time to issue `layers` layers' kernels (forward and backward) of which `moe_layers` are
// MoE layers, eagerly or as CUDA graphs.
double host_issue_s(int layers, int moe_layers, bool cuda_graphs);
StepTime step_time(const StepModel& sm, const Layout& l, const StepParts& parts);
// The pipeline bubble of a step in micro-batch slots, for pp stages of `interleave` chunks each.
double bubble_slots(Schedule schedule, int pp, int interleave);
// One micro-batch on the most loaded stage, where `skipped` of full recomputation's cost is not
// run and each stage holds `interleave` chunks: its compute (at least the host's time to issue it),
// exposed tensor-parallel traffic and pipeline sends, and all of it with the exposed cp and ep
// traffic. step_time's, and the layout search's lower bound on it.
struct MicroBatchTime {
  double compute = 0, tp = 0, pp = 0, all = 0;
};
MicroBatchTime micro_batch_time(const StepParts& p, int pp, int interleave, double skipped);
// What the backward pass, `overlap` of it usable, leaves exposed of a gradient collective's `wire` time.
double exposed_dp_s(double wire, double bwd, double overlap);

}  // namespace gpuplan
