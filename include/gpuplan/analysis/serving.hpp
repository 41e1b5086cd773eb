#pragma once
// Serving a load: one replica's operating point at a batch (capacity, TTFT and TPOT under
// load), the batch that serves most within latency targets, the tensor-parallel degree whose
// weights fit, and the replicas a request rate needs. Pure functions of an InferModel.
#include <optional>

#include "gpuplan/analysis/inference.hpp"

namespace gpuplan {

// Largest batch the search tries (vLLM's max_num_seqs is 256 by default; more is allowed).
constexpr int max_batch_tried = 4096;
// Most devices a deployment may need before the answer is "no": every count is checked
// against it, so that no float-to-integer conversion overflows.
constexpr int max_serving_devices = 10'000'000;

// One replica serving requests of P prompt and O output tokens at a batch of B: decode steps
// of all B sequences, interrupted by one prefill per arriving request. Its capacity is
// lambda = B / (O t_d + B t_p); at a load that keeps the prefill busy a share rho of the time,
// a token takes t_d / (1 - rho) and the first token t_p + t_d / (1 - rho).
struct Operating {
  int batch = 0;
  double capacity_rps = 0;  // requests per second at full load
  double prefill_s = 0, step_s = 0;
  double ttft_s = 0, tpot_s = 0;  // at the load considered
};
Operating operate(const InferModel& im, int batch, double prompt, double output, double load_share);

// Whether an operating point meets the targets (a target of 0 is none).
bool meets_targets(const Operating& o, double ttft, double tpot);

// The batch with the most capacity whose latencies at full load meet the targets.
std::optional<Operating> best_batch(const InferModel& im, int max_batch, double prompt, double output, double ttft,
                                    double tpot);

// Smallest power-of-two tensor-parallel degree inside a node whose weights and one full sequence
// fit (the largest that divides the heads when none does).
int choose_tp(const ModelArch& m, const ParamCounts& pc, const Device& d, const InferSettings& base, int gpus);

// Replicas of `capacity_rps` each that carry `rate`: ceil(rate / capacity). Throws
// Error(no_answer) when the devices (replicas x tp) would exceed max_serving_devices.
int replicas_for(double rate, double capacity_rps, int tp);

}  // namespace gpuplan
