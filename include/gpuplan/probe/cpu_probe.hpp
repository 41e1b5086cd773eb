// SPDX-License-Identifier: Apache-2.0
#pragma once
// The CPU probe: Eigen GEMM in fp32 and fp64 with all cores (a sweep of sizes gives the
// efficiency curve) and a STREAM triad with arrays far beyond the last-level cache, written
// as a calibration (shared/reference/probe.md section 7).
#include <string>

#include "gpuplan/calibration/calibration.hpp"

namespace gpuplan {

struct ProbeOptions {
  bool quick = false;       // under a minute (CI)
  std::string accelerator;  // catalog id the file calibrates
  std::string tool;         // "gpuplan 0.1.0"
};

Calibration probe_cpu(const ProbeOptions& o, const Device& catalog_device);

// GEMM rates (FLOP/s per sample) of one n x n x n product; samples after `warmup_s` of the same work.
struct GemmRun {
  std::vector<double> rates;
  std::string isa;
};
GemmRun cpu_gemm_rates(int n, bool fp64, int samples, double warmup_s);

}  // namespace gpuplan
