// SPDX-License-Identifier: Apache-2.0
#include "gpuplan/analysis/device.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "gpuplan/error.hpp"

namespace gpuplan {

namespace {
constexpr const char* dtype_names[] = {"fp32", "tf32", "bf16", "fp16", "fp8", "fp4", "int8", "int4"};

}  // namespace

DType parse_dtype(const std::string& s) {
  for (int i = 0; i < 8; ++i)
    if (s == dtype_names[i]) return static_cast<DType>(i);
  fail(Exit::usage, fmt::format("precision '{}' is not known; expected fp32, tf32, bf16, fp16, fp8, fp4, int8 or int4", s));
}

std::string to_string(DType d) { return dtype_names[static_cast<int>(d)]; }

FlopRate Device::peak_for(DType d) const {
  // Fall back along fp4 -> fp8 -> bf16 -> fp16 -> tf32 -> fp32 when a unit is missing.
  static constexpr DType chain[] = {DType::fp4, DType::fp8, DType::bf16, DType::fp16, DType::tf32, DType::fp32};
  double v = peak[static_cast<int>(d)];
  if (v > 0) return flops_per_s(v);
  bool started = false;
  for (DType c : chain) {
    if (c == d) started = true;
    if (started && peak[static_cast<int>(c)] > 0) return flops_per_s(peak[static_cast<int>(c)]);
  }
  if (d == DType::int8 || d == DType::int4) return peak_for(DType::bf16);
  return flops_per_s(peak[static_cast<int>(DType::fp32)]);
}

double power_cap_clock_scale(Watts tdp, Watts idle, Watts cap) {
  if (cap >= tdp) return 1;
  const double c = (cap.value() - idle.value()) / (tdp.value() - idle.value());
  constexpr double v = power_cap_voltage_floor;
  return c >= v * v * v ? std::cbrt(c) : c / (v * v);
}

std::string interconnect_problem(const Device& d, int gpus) {
  if (gpus <= 1) return {};
  const bool within = gpus <= std::max(1, d.scale_up_domain);
  if (within && d.scale_up_domain > 1 && d.scale_up.bw_per_direction.value() > 0) return {};
  if (!within && d.scale_out.bw_per_direction.value() > 0 &&
      (d.scale_up_domain <= 1 || d.scale_up.bw_per_direction.value() > 0))
    return {};
  if (d.scale_up_domain <= 1 && d.scale_out.bw_per_direction.value() > 0) return {};
  return fmt::format("no interconnect between the devices: the catalog gives {} no {} link for {} of them; plan one, or give "
                     "--scale-out with a fabric",
                     d.id, within ? "scale-up" : "scale-out", gpus);
}

std::string power_cap_problem(const Device& d, Watts cap) {
  const double w = cap.value(), tdp = d.tdp.value();
  if (tdp <= 0) return fmt::format("power cap {:.0f} W: {} has no TDP in the catalog, so a limit cannot be applied", w, d.id);
  const double lo = std::max(0.1 * tdp, d.idle.value());
  if (w <= lo)
    return fmt::format("power cap {:.0f} W is too low for {}: expected more than {:.0f} W ({}) and at most its TDP of {:.0f} W",
                       w, d.id, lo, d.idle.value() >= 0.1 * tdp ? "its idle draw" : "a tenth of TDP", tdp);
  if (w > tdp) return fmt::format("power cap {:.0f} W is above {}'s TDP of {:.0f} W; expected at most {:.0f} W", w, d.id, tdp, tdp);
  return {};
}

void apply_power_cap(Device& d, Watts cap) {
  if (const std::string problem = power_cap_problem(d, cap); !problem.empty()) fail(Exit::usage, problem);
  const double w = cap.value(), tdp = d.tdp.value();
  const double scale = power_cap_clock_scale(d.tdp, d.idle, cap) / d.clock_scale;
  for (double& p : d.peak) p *= scale;
  d.clock_scale *= scale;
  d.power_limit = w < tdp ? cap : watts(0);
}

}  // namespace gpuplan
