// SPDX-License-Identifier: Apache-2.0
#pragma once
// Training memory per device (the most loaded one), after Megatron's theoretical memory,
// DeepSpeed's ZeRO estimators and Korthikanti et al. 2022 (activations).
#include <algorithm>
#include <string>

#include "gpuplan/analysis/model.hpp"
#include "gpuplan/layout.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan {

enum class Optimizer { adam, adam8bit, sgd };
// Pre-training, or fine-tuning: every weight (full, the same arithmetic on a dataset), or
// low-rank adapters over frozen base weights in 16 bits (LoRA, Hu et al. 2021) or in 4 bits
// (QLoRA, Dettmers et al. 2023).
enum class Finetune { none, full, lora, qlora };
std::string to_string(Finetune f);            // none, full, lora, qlora
Finetune parse_finetune(const std::string& s);  // throws Error(usage)

// Pipeline schedules: searched (1F1B, interleaved where the layout has virtual stages), or one
// fixed: 1F1B (Narayanan et al. 2021), interleaved 1F1B, zero bubble (ZB-H1, Qi et al. 2024) or
// DualPipe (DeepSeek-V3 report, section 3.2.1).
enum class Schedule { searched, one_f_one_b, interleaved, zero_bubble, dualpipe };
std::string to_string(Schedule s);            // searched, 1f1b, interleaved, zero-bubble, dualpipe
Schedule parse_schedule(const std::string& s);  // throws Error(usage)

struct TrainSettings {
  int seq_len = 4096;
  int weight_bytes = 2;     // bf16/fp16 weights (fp8 training keeps bf16 weights, as Transformer Engine)
  int grad_bytes = 4;       // Megatron's fp32 main gradients; 2 for 16-bit gradients
  // PyTorch FSDP's mixed precision (FSDP1 MixedPrecision, FSDP2 MixedPrecisionPolicy): the sharded
  // parameters are fp32 and are the optimizer's master weights; their 16-bit copies exist only
  // while a unit is gathered. Under ZeRO-3 without pipelining no 16-bit weight shard persists, so
  // the model states are 4 + 12 bytes per parameter over dp, not DeepSpeed's 2 + 4 + 12.
  bool fp32_shards = false;
  // Bytes per element of the inputs the linear layers keep for their weight gradients: 2, or the
  // quantised copy's (block scales included) under a low precision, where Transformer Engine keeps
  // the copy it multiplied with: of the MLP's (and experts') layers, and of attention's projections.
  double gemm_input_bytes = 2, attn_input_bytes = 2;
  Optimizer optimizer = Optimizer::adam;
  bool flash_attention = true;
  // FlashAttention-2 kernels (PyTorch SDPA's flash backend) rather than FlashAttention-3 class
  // ones (FA3, cuDNN/Transformer Engine fused attention): slower on Hopper (Efficiency::flash2_ceiling).
  bool flash2 = false;
  // The cross-entropy loss in one fused kernel (Megatron's --cross-entropy-loss-fusion, on in NeMo's
  // and Megatron-Bridge's configs; flash-attn's CrossEntropyLoss, llm-foundry's default) rather than
  // PyTorch's fp32 upcast, log-softmax and their backward: memory traffic per logit (step_parts).
  bool fused_loss = false;
  // Element-wise work (norms, activations, residuals, rotary, casts) fused into few kernels around
  // the GEMMs, as torch.compile and hand-written trainers (llm.c) run it: the GEMM curve's depth
  // term, which stands mostly for that work, is the GEMMs' own where measured (Efficiency::
  // gemm_half_fused). Megatron's and Transformer Engine's kernels are the default.
  bool fused_kernels = false;
  Bytes reserve = bytes(1024.0 * 1024 * 1024);  // CUDA context, cuBLAS workspace, allocator slack
  Bytes bucket = bytes(2 * 25e6);  // two 25 MB gradient buckets in flight (PyTorch DDP bucket_cap_mb)
  Bytes host_memory = bytes(0);     // host memory per device for offload (its share of the node's); 0: none
  Finetune finetune = Finetune::none;
  int lora_rank = 16;               // LoRA and QLoRA adapters' rank
  Schedule schedule = Schedule::searched;
};

// Whether the base weights are frozen and only low-rank adapters train (LoRA, QLoRA).
inline bool adapters_only(const TrainSettings& s) { return s.finetune == Finetune::lora || s.finetune == Finetune::qlora; }
// Bytes per frozen base weight: 16 bits under LoRA; QLoRA's 4-bit NormalFloat with its
// double-quantised block constants, 4.127 bits (Dettmers et al. 2023, section 3).
double base_weight_bytes(const TrainSettings& s);
// LoRA adapter parameters of `layers` transformer layers on one tensor-parallel rank: rank r on
// every linear layer of attention and of a dense MLP (QLoRA's choice, Dettmers et al. 2023,
// section 4), r (d_in + d_out) each; MoE experts carry none.
double lora_params(const ModelArch& m, int layers, int tp, int rank);

// Bytes of optimizer state per parameter, fp32 master weights included: Adam 12, 8-bit Adam 6, SGD 8.
int optimizer_bytes_per_param(Optimizer o);

// Parameters held by one device of one pipeline stage (the first and the last are kept).
struct StageParams {
  double dense = 0;   // sharded over dp x cp by ZeRO
  double expert = 0;  // sharded over dp x cp / ep
  double total() const { return dense + expert; }
};
StageParams stage_params(const ModelArch& m, const ParamCounts& pc, const Layout& l, bool last_stage);

struct MemoryBreakdown {
  Bytes weights = bytes(0), gradients = bytes(0), optimizer = bytes(0), activations = bytes(0),
        buffers = bytes(0), reserve = bytes(0);
  double params_per_device = 0;
  bool last_stage = false;  // whether the last pipeline stage is the most loaded
  Bytes host = bytes(0);    // what the layout offloads to host memory (not in total())
  Bytes total() const { return weights + gradients + optimizer + activations + buffers + reserve; }
  // Within the device's memory and its share of the host's.
  bool fits(double capacity, const TrainSettings& s) const {
    return total().value() <= capacity && host.value() <= s.host_memory.value();
  }
};

// Activation bytes held by one layer for one micro-batch (Korthikanti Table 2, generalised to
// grouped-query attention, gated MLPs, MoE and flash attention; see memory.cpp).
Bytes layer_activations(const ModelArch& m, const TrainSettings& s, const Layout& l, Recompute r);

// Memory of the most loaded device. Allocates nothing: the layout search calls it millions of times.
MemoryBreakdown training_memory(const ModelArch& m, const ParamCounts& pc, const TrainSettings& s, const Layout& l);

// What the memory of a layout shares with every ZeRO stage and interleaving of it (a function of
// tp, pp, dp, cp, ep, micro-batch, global batch, recomputation and sequence parallelism): per
// stage checked (the first, and the last when pp > 1) its parameters, their ZeRO shard, its
// activations and buffers. The search computes it once per group; training_memory(.., parts)
// then equals training_memory(..) for every layout of the group.
struct MemoryParts {
  struct Stage {
    double params = 0;            // per device
    double sharded = 0;           // per device once ZeRO shards them: dense / (dp cp) + expert / (dp cp / ep)
    int layers = 0;               // layers on the stage
    double in_flight = 1;         // micro-batches whose activations it holds, before interleaving
    Bytes per_layer = bytes(0);   // one layer, one micro-batch, under the layout's recomputation
    Bytes working = bytes(0);     // one layer without recomputation (the working set of full recomputation)
    double dropout = 0;           // embedding dropout mask of one micro-batch, bytes (GPT-era first stage)
    Bytes output = bytes(0);      // output layer and loss (the last stage)
    Bytes pipe_buffers = bytes(0);  // pipeline send and receive buffers
    double adapters = 0;          // LoRA adapter parameters per device (fine-tuning with adapters)
  } stage[2];
  int stages = 1;
};
// Layers of a stage of `layers` kept in the layout's recomputation form (MemoryParts::per_layer):
// all, except that full recomputation of recompute_layers of them leaves the rest whole.
inline int layers_at_recompute(const Layout& l, int layers) {
  if (l.recompute != Recompute::full) return layers;
  return l.recompute_layers > 0 ? std::min(l.recompute_layers, layers) : layers;
}
MemoryParts memory_parts(const ModelArch& m, const ParamCounts& pc, const TrainSettings& s, const Layout& l);
MemoryBreakdown training_memory(const ModelArch& m, const ParamCounts& pc, const TrainSettings& s, const Layout& l,
                                const MemoryParts& parts);

}  // namespace gpuplan
