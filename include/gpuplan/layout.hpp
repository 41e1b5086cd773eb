#pragma once
// A parallel layout of a training job, and the constraints a user puts on it.
#include <optional>
#include <string>

namespace gpuplan {

enum class Recompute { none, selective, full };
std::string to_string(Recompute r);
Recompute parse_recompute(const std::string& s);  // throws Error(usage)

struct Layout {
  int tp = 1, pp = 1, dp = 1, cp = 1, ep = 1;
  int zero = 1;  // 0 none (DDP), 1 distributed optimizer, 2 + gradients, 3 + parameters (FSDP)
  Recompute recompute = Recompute::selective;
  int micro_batch = 1;   // sequences per micro-batch per model replica
  int global_batch = 0;  // sequences per step; 0 = not given (taken as enough micro-batches)
  int interleave = 1;    // virtual pipeline stages per device
  bool sequence_parallel = true;

  int gpus() const { return tp * pp * dp * cp; }
  // Micro-batches per pipeline per step (gradient-accumulation steps when pp = 1).
  int micro_batches() const {
    return global_batch > 0 ? global_batch / (micro_batch * dp) : 0;
  }
};

// Flags given on the command line or in a plan: each fixes one dimension of the search.
struct LayoutConstraints {
  std::optional<int> tp, pp, dp, cp, ep, zero, micro_batch, global_batch, interleave;
  std::optional<Recompute> recompute;
  std::optional<bool> sequence_parallel;
};

}  // namespace gpuplan
