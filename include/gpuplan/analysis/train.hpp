// SPDX-License-Identifier: Apache-2.0
#pragma once
// Time to train: the best layout on a fixed device count, or the fewest devices that meet a
// deadline; the run's steps, goodput (with checkpoint writes taken out), wall clock and storage,
// and the warnings a planner should see. A pure function of resolved inputs: no catalog, no
// flags, no clock.
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/analysis/search.hpp"
#include "gpuplan/analysis/reliability.hpp"
#include "gpuplan/analysis/storage.hpp"

namespace gpuplan {

// A communication share of the step above this is worth a warning: the fabric, not the
// devices, sets the pace.
constexpr double comm_warning_share = 0.3;
// Fewer optimizer steps than this is not a training run: learning-rate warm-up alone takes
// hundreds to thousands (Llama 3 405B warmed up over 8,000; Dubey et al. 2024, 3.4.1).
constexpr double min_training_steps = 100;
// The batch a fine-tuning run aims at, 262,144 tokens: Llama 2's supervised fine-tuning ran 64
// sequences of 4,096 tokens a step (Touvron et al. 2023, section 3.1).
constexpr double finetune_batch_tokens = 64.0 * 4096;
// The deadline search grows the cluster in units of this many devices at most twice per
// bisection step, up to 2^17 units.
constexpr int max_deadline_units = 1 << 17;

struct TrainQuestion {
  StepModel model;
  LayoutConstraints layout;
  int gpus = 0;                      // a fixed count; 0: the fewest meeting the deadline
  Seconds deadline = seconds(0);     // 0: none
  // The deadline search counts devices in multiples of this beyond it (a scale-up domain or node),
  // and in powers of two that divide it below it (1, 2 or 4 cards of a node).
  int unit = 1;
  double tokens = 0;                 // tokens to train on
  // With a count and a deadline: the tokens are what the count trains within the deadline.
  bool tokens_from_deadline = false;
  // Goodput: derived from failures, checkpoints and restarts (reliability.hpp) unless given.
  bool goodput_given = false;
  double goodput = 0.9;              // given: share of wall clock doing useful steps, before checkpoints
  Seconds restart = seconds(default_restart_s);  // detection, rescheduling and start-up
  bool async_checkpoint = false;     // a checkpoint stalls training only for its copy to host memory
  // The batch the search aims at: max(batch_tokens, batch_tokens_per_device x devices), at most
  // tokens / (2 min_training_steps).
  double batch_tokens = 4.0 * 1024 * 1024, batch_tokens_per_device = 1024;
  StorageInput storage;              // tokens and tokens_per_s are filled in by the analysis
  double target_batch(int devices) const;
};

struct TrainAnswer {
  int gpus = 0;
  Candidate best;
  long evaluated = 0, fitting = 0;  // layouts of the chosen count
  int counts_searched = 0;           // device counts the deadline search evaluated
  // What set the device count: "given" (a fixed count), "unit" (one device is enough), "memory"
  // (the next smaller count the search tries holds no layout) or "deadline" (it holds the model
  // but is too slow).
  std::string count_limit;
  // With a count and a deadline: the tokens the count trains within the deadline, whether the
  // run meets it, the fewest devices that would (0 when none up to the search's bound), and why
  // it misses (empty when it meets it).
  double tokens_by_deadline = 0;
  bool meets_deadline = true;
  int gpus_for_deadline = 0;
  std::string unmet;
  double tokens = 0, step_tokens = 0, steps = 0;
  double goodput = 0;                // after checkpoint writes
  std::optional<Goodput> reliability;  // how the goodput was derived; absent when given
  Seconds wall = seconds(0);
  double gpu_hours = 0;
  double mfu = 0, hfu = 0;           // model and hardware FLOPs over peak
  double comm_fraction = 0;          // exposed communication share of a step
  StorageResult storage;
  std::vector<std::string> warnings;
};

// Throws Error(no_answer) when no layout fits, no count meets the deadline, or the count is
// more than the run can use (fewer than min_training_steps steps).
TrainAnswer plan_training(const TrainQuestion& q);

// The search on a fixed count, or Error(no_answer) saying why no layout suits or fits.
SearchResult search_or_fail(const StepModel& sm, const LayoutConstraints& c, int gpus, double batch_tokens, int top);

// The goodput of a run on `devices` devices: derived from failures, its checkpoint (written to the
// storage system where one is given, else by each node over its NICs: an estimate) and restarts.
Goodput run_goodput(const TrainQuestion& q, int devices, const StorageResult* storage);

// Wall clock of `steps` steps of `step` seconds at a goodput: steps x step / goodput.
Seconds wall_clock(double steps, Seconds step, double goodput);

}  // namespace gpuplan
