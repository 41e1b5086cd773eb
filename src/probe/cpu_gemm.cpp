// SPDX-License-Identifier: Apache-2.0
// One Eigen GEMM benchmark, compiled twice: for the x86-64 baseline and for AVX2 + FMA
// (cpu_probe.cpp picks at run time). Eigen chooses its SIMD path at compile time, and the
// difference is large (probe.md 7: 37.6 against 128.5 GFLOP/s on one core). Each build renames
// Eigen's namespace so that the two sets of template instantiations cannot be merged by the
// linker, and this file uses nothing else from headers that other files instantiate.
#ifndef GPUPLAN_GEMM_VARIANT
#error "define GPUPLAN_GEMM_VARIANT (the function name of this build)"
#endif
#define GPUPLAN_PASTE2(a, b) a##b
#define GPUPLAN_PASTE(a, b) GPUPLAN_PASTE2(a, b)
#define Eigen GPUPLAN_PASTE(GPUPLAN_GEMM_VARIANT, _eigen)
#include <Eigen/Dense>

namespace gpuplan {
double probe_now_s();  // steady clock, from cpu_probe.cpp

// Fills rates[0..samples) with FLOP/s; returns the number written.
int GPUPLAN_GEMM_VARIANT(int n, bool fp64, int samples, double warmup_s, double* rates) {
  auto run = [&](auto zero) {
    using M = Eigen::Matrix<decltype(zero), Eigen::Dynamic, Eigen::Dynamic>;
    M a = M::Random(n, n), b = M::Random(n, n), c(n, n);
    const double flops = 2.0 * n * n * n;
    const double start = probe_now_s();
    do c.noalias() = a * b;
    while (probe_now_s() - start < warmup_s);
    for (int i = 0; i < samples; ++i) {
      const double t0 = probe_now_s();
      c.noalias() = a * b;
      rates[i] = flops / (probe_now_s() - t0);
    }
    // Use the result, so the product cannot be elided.
    if (!(c(0, 0) == c(0, 0))) return 0;
    return samples;
  };
  return fp64 ? run(0.0) : run(0.0f);
}
}  // namespace gpuplan
