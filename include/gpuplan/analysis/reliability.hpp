// SPDX-License-Identifier: Apache-2.0
#pragma once
// Goodput from failures: a synchronous training job stops whenever any of its devices or their
// hosts and links fails, goes back to its last checkpoint and restarts. From the failure rate per
// device-hour, the checkpoint's write time and the restart time follow the job's mean time between
// interruptions, the checkpoint interval that wastes least (Young 1974; Daly 2006), and the share
// of the wall clock left for useful steps.
#include <string>
#include <vector>

#include "gpuplan/units.hpp"

namespace gpuplan {

// Unexpected interruptions per device-hour by cause, from the Llama 3 paper's 54-day snapshot of
// 405B pre-training on 16,384 H100s (Dubey et al. 2024, "The Llama 3 Herd of Models", Table 5, as
// DatacenterDynamics and Tom's Hardware report it): 419 in all, of which faulty GPUs 148, GPU HBM3
// 72, GPU SRAM 19, GPU system processor 17, network switches and cables 35, CPUs 2; the other 126
// (software, hosts, NICs, storage, ...) together. 47 planned interruptions are left out.
struct FailureCause {
  std::string name;
  double per_device_hour = 0;
};
const std::vector<FailureCause>& failure_causes();
double failures_per_device_hour();

// Detection, rescheduling and start-up after an interruption, before the checkpoint is read
// back: an estimate (no public measurement at scale was found that is not held out); give
// --restart-time to override.
constexpr double default_restart_s = 600;
// Checkpoint bandwidth per device where no storage system is given: the Llama 3 cluster's
// Tectonic storage, 2 TB/s sustained for its 16,384 GPUs (Dubey et al. 2024, section 3.3.1).
constexpr double llama3_storage_per_device = 2e12 / 16384;

struct GoodputInput {
  int devices = 1;
  Seconds checkpoint_write = seconds(0);  // the whole checkpoint to storage
  Seconds checkpoint_stall = seconds(0);  // what a checkpoint stops training for (the write, or with
                                          // asynchronous checkpointing its copy to host memory)
  Seconds checkpoint_read = seconds(0);   // reading it back after an interruption
  Seconds restart = seconds(default_restart_s);
  Seconds interval = seconds(0);          // training time between checkpoints; 0: the optimum
};

struct Goodput {
  double value = 1;                  // share of wall clock doing useful steps
  double interruptions_per_hour = 0;
  Seconds mtbf = seconds(0);         // the job's mean time between interruptions
  Seconds interval = seconds(0);     // training between checkpoints
  bool optimal_interval = true;      // Young/Daly's, not given
  // Shares of wall clock: writing checkpoints, work lost since the last one, restarting.
  double checkpoint_share = 0, lost_share = 0, restart_share = 0;
};

// First order (Daly 2006): each segment of interval tau trains for tau and stalls for the
// checkpoint's stall c; an interruption, at rate 1/M, loses on average half a segment and the
// write still in flight, and costs the restart R and the read-back. Waste
// = c / (tau + c) + (R + read + (tau + c) / 2 + (write - c)) / M, goodput = 1 - waste (at least 0);
// the optimum tau = sqrt(2 c M) - c (Young's, with Daly's correction), at least a minute.
Goodput derive_goodput(const GoodputInput& in);

}  // namespace gpuplan
