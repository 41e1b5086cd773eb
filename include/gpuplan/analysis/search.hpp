// SPDX-License-Identifier: Apache-2.0
#pragma once
// Exhaustive layout search: tp x pp x dp x cp x ep x micro-batch x recompute x ZeRO x
// interleaving x sequence parallelism, honouring divisibility and the user's constraints,
// pruning layouts that do not fit before timing them. Where no layout of a count fits on the
// devices, each is tried again with its state offloaded to the host (optimizer, activations,
// weights: every set its ZeRO stage and recomputation allow), unless --offload fixes the set.
#include <cstdint>
#include <vector>

#include "gpuplan/analysis/step.hpp"

namespace gpuplan {

struct Candidate {
  Layout layout;
  StepTime time;
  MemoryBreakdown memory;
  double tokens_per_s = 0;
};

// FLOPs of one step over the step time and the peak of `gpus` devices at the compute type:
// MFU with the model FLOPs, HFU with the hardware FLOPs.
double flops_utilisation(Flops flops, const StepTime& t, const StepModel& sm, int gpus);

// layer_parts of the layouts one model's searches meet, kept by the degrees they depend on (tp,
// cp, ep, micro-batch, sequence parallelism): the pipeline depths and recomputations of a count,
// and a deadline's counts, share them (a deadline query meets some 28,000 groups and 1,900 of these).
class LayerCache {
 public:
  explicit LayerCache(const StepModel& sm) : sm_(sm) {}
  // layer_parts(sm, l); the reference holds until the next call.
  const LayerParts& of(const Layout& l);

 private:
  const StepModel& sm_;
  std::vector<std::uint64_t> keys_ = std::vector<std::uint64_t>(512);  // open addressing; 0 is empty (tp >= 1)
  std::vector<std::uint32_t> index_ = std::vector<std::uint32_t>(512);  // into parts_, slot by slot
  std::vector<LayerParts> parts_;
  LayerParts scratch_;  // a layout beyond the key's widths
};

struct SearchResult {
  long evaluated = 0;  // layouts considered
  long fitting = 0;    // layouts whose memory fits
  std::vector<Candidate> top;  // best first
  double seconds = 0;  // wall time of the search, when the caller timed it (analyses read no clock)
};

// Ranks by tokens per second, then by the documented tie order: smaller tp, pp, cp, ep,
// zero, micro-batch, recompute (none < selective < full), interleave, sequence parallel off.
// `bounded` skips the groups of layouts whose step provably cannot enter the top once it is full:
// the same top, with fewer layouts evaluated (and counted). A floor (bounded only) skips the groups
// that cannot reach it before the top is full: for a caller that knows its top reaches it (the
// deadline's count, where any_layout_reaches said yes), the same top again.
SearchResult search_layouts(const StepModel& sm, int gpus, const LayoutConstraints& c, double batch_tokens,
                            int top_k, bool bounded = false, double floor_tokens_per_s = 0,
                            LayerCache* layers = nullptr);

// Whether some layout of `gpus` devices that fits reaches `tokens_per_s` (the same layouts and
// throughput as search_layouts, so the same answer as its best >= tokens_per_s), stopping at the
// first that does and skipping groups of layouts that provably cannot: for a deadline's
// yes-or-no at one count, several times cheaper than ranking every layout.
bool any_layout_reaches(const StepModel& sm, int gpus, const LayoutConstraints& c, double batch_tokens,
                        double tokens_per_s, LayerCache* layers = nullptr);

// Whether the search retries a count with its training state offloaded where nothing fits on the
// devices: the offload not fixed by the user, and a host to offload to.
bool offload_fallback(const StepModel& sm, const LayoutConstraints& c);
// Whether some layout of `gpus` devices fits on the devices, without offload (stops at the first).
bool fits_on_devices(const StepModel& sm, int gpus, const LayoutConstraints& c, double batch_tokens);
// Whether the search finds any layout on `gpus` devices: on the devices, or offloaded where the
// search would offload.
bool any_layout_fits(const StepModel& sm, int gpus, const LayoutConstraints& c, double batch_tokens);

// The fewest devices (any count) for which some layout fits in memory; gpus = 0 if none
// up to max_gpus. The layout's step time is not considered.
struct MinGpus {
  int gpus = 0;
  Candidate best;
  long evaluated = 0;
};
MinGpus min_gpus_for_memory(const StepModel& sm, const LayoutConstraints& c, int max_gpus);

// Memory of one layout as given (every unset flag at its default).
Layout layout_from(const LayoutConstraints& c, int gpus_hint);

// The memory question: one layout as given (unset degrees at their defaults, dp what `gpus`
// leaves), or with `fewest` the fewest devices on which some layout fits. Throws Error(usage)
// for a layout the model cannot run, Error(no_answer) when no count fits.
struct MemoryAnswer {
  Layout layout;
  MemoryBreakdown memory;
  double capacity = 0;  // usable device memory, bytes
  bool fits = false;    // within the device's memory and its share of the host's
  int min_gpus = 0;     // with `fewest`
  long evaluated = 0;   // layouts tried, with `fewest`
};
MemoryAnswer memory_answer(const StepModel& sm, const LayoutConstraints& c, int gpus, bool fewest);

}  // namespace gpuplan
