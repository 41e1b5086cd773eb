// SPDX-License-Identifier: Apache-2.0
// The web build's CPU probe: a browser tab cannot measure the machine's cores and memory the way
// the probe must (OpenMP threads over every core, arrays far beyond the last-level cache), so
// the page says so and points at the native binary.
#include "gpuplan/probe/cpu_probe.hpp"

#include "gpuplan/error.hpp"

namespace gpuplan {

Calibration probe_cpu(const ProbeOptions&, const Device&) {
  fail(Exit::no_device, "the CPU probe runs in the native gpuplan binary, not in a browser; run 'gpuplan probe cpu' there");
}

GemmRun cpu_gemm_rates(int, bool, int, double) {
  fail(Exit::no_device, "the CPU probe runs in the native gpuplan binary, not in a browser");
}

}  // namespace gpuplan
