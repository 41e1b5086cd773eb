// SPDX-License-Identifier: Apache-2.0
#pragma once
// A parallel layout of a training job, and the constraints a user puts on it.
#include <optional>
#include <string>

namespace gpuplan {

enum class Recompute { none, selective, full };
std::string to_string(Recompute r);
Recompute parse_recompute(const std::string& s);  // throws Error(usage)

// Host offload: what of a device's training state lives in host memory and crosses the host
// link instead (DeepSpeed ZeRO-Offload and ZeRO-Infinity, PyTorch FSDP's CPUOffload). A set of
// these bits; offload_problem says which sets a layout can run.
enum Offload : int { offload_none = 0, offload_optimizer = 1, offload_weights = 2, offload_activations = 4 };
// none, optimizer, activations, optimizer+activations, optimizer+weights, all.
std::string offload_name(int offload);
int parse_offload(const std::string& s);  // throws Error(usage)

struct Layout {
  int tp = 1, pp = 1, dp = 1, cp = 1, ep = 1;
  int zero = 1;  // 0 none (DDP), 1 distributed optimizer, 2 + gradients, 3 + parameters (FSDP)
  Recompute recompute = Recompute::selective;
  int micro_batch = 1;   // sequences per micro-batch per model replica
  int global_batch = 0;  // sequences per step; 0 = not given (taken as enough micro-batches)
  int interleave = 1;    // virtual pipeline stages per device
  bool sequence_parallel = true;
  int offload = offload_none;  // a set of Offload bits
  // Under full recomputation, how many of a stage's layers recompute (Megatron's block method,
  // --recompute-num-layers); the rest keep their activations. 0: every layer.
  int recompute_layers = 0;

  int gpus() const { return tp * pp * dp * cp; }
  // Micro-batches per pipeline per step (gradient-accumulation steps when pp = 1).
  int micro_batches() const {
    return global_batch > 0 ? global_batch / (micro_batch * dp) : 0;
  }
  // The micro-batches a step runs: those, or, where the global batch is not set, pp of them (the
  // fewest that fill the pipeline).
  int micro_batches_run() const {
    const int m = micro_batches();
    return m > 0 ? m : pp;
  }
};

// Flags given on the command line or in a plan: each fixes one dimension of the search.
struct LayoutConstraints {
  std::optional<int> tp, pp, dp, cp, ep, zero, micro_batch, global_batch, interleave;
  std::optional<Recompute> recompute;
  std::optional<bool> sequence_parallel;
  std::optional<int> offload;  // unset: none, or the least that fits when nothing fits without
  std::optional<int> recompute_layers;  // unset: searched under full recomputation (every layer or fewest that fit)
};

// Why a layout cannot offload as it asks (empty when it can): the optimizer's state needs a
// sharded optimizer (ZeRO 1-3, as DeepSpeed requires), the weights ZeRO-3 and the optimizer
// with them (ZeRO-Infinity's parameter offload; FSDP offloads both), the activations full
// recomputation (only the layers' input checkpoints are kept, so only those move).
const char* offload_problem(const Layout& l);

// The layout's recomputation as printed: "none", "selective", "full", or "full (12 layers a stage)"
// where only some layers recompute.
std::string recompute_text(const Layout& l);

}  // namespace gpuplan
