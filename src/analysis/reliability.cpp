// SPDX-License-Identifier: Apache-2.0
#include "gpuplan/analysis/reliability.hpp"

#include <algorithm>
#include <cmath>

namespace gpuplan {

namespace {
// The Llama 3 snapshot: 16,384 GPUs for 54 days.
constexpr double llama3_device_hours = 16384.0 * 54 * 24;
}  // namespace

const std::vector<FailureCause>& failure_causes() {
  static const std::vector<FailureCause> causes = {
      {"GPU (faulty GPU, SRAM, system processor)", (148.0 + 19 + 17) / llama3_device_hours},
      {"GPU HBM", 72.0 / llama3_device_hours},
      {"network switches and cables", 35.0 / llama3_device_hours},
      {"software, hosts, NICs and other", (419.0 - 148 - 19 - 17 - 72 - 35) / llama3_device_hours},
  };
  return causes;
}

double failures_per_device_hour() {
  double rate = 0;
  for (const auto& c : failure_causes()) rate += c.per_device_hour;
  return rate;
}

Goodput derive_goodput(const GoodputInput& in) {
  Goodput g;
  g.interruptions_per_hour = failures_per_device_hour() * std::max(1, in.devices);
  const double m = 3600 / g.interruptions_per_hour;
  g.mtbf = seconds(m);
  const double c = std::max(0.0, in.checkpoint_stall.value()), w = std::max(c, in.checkpoint_write.value());
  g.optimal_interval = in.interval.value() <= 0;
  const double tau = g.optimal_interval ? std::max(60.0, std::sqrt(2 * c * m) - c) : in.interval.value();
  g.interval = seconds(tau);
  g.checkpoint_share = c / (tau + c);
  g.lost_share = ((tau + c) / 2 + (w - c)) / m;
  g.restart_share = (in.restart.value() + in.checkpoint_read.value()) / m;
  g.value = std::max(0.0, 1 - g.checkpoint_share - g.lost_share - g.restart_share);
  return g;
}

}  // namespace gpuplan
