// SPDX-License-Identifier: Apache-2.0
#include "gpuplan/probe/cpu_probe.hpp"

#include <chrono>
#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <memory>
#include <omp.h>
#include <string>
#include <thread>
#include <unistd.h>

#include "gpuplan/error.hpp"
#include "gpuplan/output.hpp"

namespace gpuplan {

double probe_now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int gemm_base(int n, bool fp64, int samples, double warmup_s, double* rates);
#ifdef GPUPLAN_HAVE_AVX2_GEMM
int gemm_avx2(int n, bool fp64, int samples, double warmup_s, double* rates);
#endif

GemmRun cpu_gemm_rates(int n, bool fp64, int samples, double warmup_s) {
  GemmRun r;
  r.rates.resize(static_cast<std::size_t>(samples));
#ifdef GPUPLAN_HAVE_AVX2_GEMM
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    r.isa = "x86-64 AVX2+FMA";
    gemm_avx2(n, fp64, samples, warmup_s, r.rates.data());
    return r;
  }
#endif
  r.isa = "baseline (no AVX2)";
  gemm_base(n, fp64, samples, warmup_s, r.rates.data());
  return r;
}

namespace {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      auto p = line.find(':');
      if (p != std::string::npos) return line.substr(line.find_first_not_of(" \t", p + 1));
    }
  return "unknown CPU";
}

long last_level_cache() {
  long best = 0;
  for (int level = 0; level < 8; ++level) {
    std::ifstream in(fmt::format("/sys/devices/system/cpu/cpu0/cache/index{}/size", level));
    std::string s;
    if (!(in >> s) || s.empty()) continue;
    long v = std::atol(s.c_str());
    if (s.back() == 'K') v *= 1024;
    if (s.back() == 'M') v *= 1024 * 1024;
    best = std::max(best, v);
  }
#ifdef _SC_LEVEL3_CACHE_SIZE
  if (best == 0) best = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
  return best > 0 ? best : 32L * 1024 * 1024;
}

// STREAM triad a = b + s c over arrays of `n` doubles, 24 bytes counted per element (write
// allocate not counted, as McCalpin's STREAM). First touch in parallel places the pages.
std::vector<double> stream_triad(long n, int samples) {
  std::unique_ptr<double[]> a(new double[static_cast<std::size_t>(n)]), b(new double[static_cast<std::size_t>(n)]),
      c(new double[static_cast<std::size_t>(n)]);
  double* pa = a.get();
  double* pb = b.get();
  double* pc = c.get();
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) pa[i] = 0, pb[i] = 1.0, pc[i] = 2.0;
  std::vector<double> rates;
  for (int k = 0; k <= samples; ++k) {
    const double t0 = probe_now_s();
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; ++i) pa[i] = pb[i] + 3.0 * pc[i];
    const double dt = probe_now_s() - t0;
    if (k > 0) rates.push_back(24.0 * static_cast<double>(n) / dt);  // the first pass is a warm-up
  }
  // Verify: every element is 1 + 3 x 2.
  for (long i = 0; i < n; i += n / 97 + 1)
    if (pa[i] != 7.0) fail(Exit::software, "STREAM triad verification failed");
  return rates;
}

}  // namespace

Calibration probe_cpu(const ProbeOptions& o, const Device& dev) {
  Calibration c;
  c.tool = o.tool + " cpu probe";
  c.created = utc_timestamp();
  c.kind = "cpu";
  c.device_name = cpu_model();
  c.accelerator = dev.id;
  const int threads = omp_get_max_threads();
  const long llc = last_level_cache();
  c.facts = {{"logical_cpus", std::to_string(std::thread::hardware_concurrency())},
             {"threads", std::to_string(threads)},
             {"last_level_cache_bytes", std::to_string(llc)}};

  // GEMM: a sweep of square sizes, fp32 (the curve) and fp64 (one size).
  const std::vector<int> sizes = o.quick ? std::vector<int>{256, 512, 1024} : std::vector<int>{256, 512, 1024, 2048, 3072};
  const int samples = o.quick ? 5 : 10;
  const double warm = o.quick ? 0.2 : 1.0;
  const double peak32 = dev.peak_for(DType::fp32).value();
  std::string isa;
  Measurement best32;
  Progress progress("probe", static_cast<int>(sizes.size()) + 2);
  for (int n : sizes) {
    progress.next(fmt::format("GEMM fp32 n = {}", n));
    GemmRun g = cpu_gemm_rates(n, false, samples, warm);
    isa = g.isa;
    Stats st = summarize(g.rates);
    if (peak32 > 0) c.gemm_points.push_back({static_cast<double>(n), st.median / peak32});
    if (st.median > best32.value)
      best32 = Measurement{"gemm_fp32", st.median, "FLOP/s", st,
                           fmt::format("Eigen 3 MatrixXf product, {} threads, {}", threads, g.isa),
                           fmt::format("n = {} (best of {} sizes), {} samples after {} s warm-up", n, sizes.size(), samples, warm)};
  }
  c.measurements.push_back(best32);
  c.gemm_dtype = "fp32";
  if (c.gemm_points.size() >= 2) c.gemm_curve = fit_gemm_curve(c.gemm_points);
  const int n64 = o.quick ? 512 : 2048;
  progress.next(fmt::format("GEMM fp64 n = {}", n64));
  GemmRun g64 = cpu_gemm_rates(n64, true, samples, warm);
  Stats s64 = summarize(g64.rates);
  c.measurements.push_back(Measurement{"gemm_fp64", s64.median, "FLOP/s", s64,
                                       fmt::format("Eigen 3 MatrixXd product, {} threads, {}", threads, g64.isa),
                                       fmt::format("n = {}, {} samples", n64, samples)});
  c.facts.emplace_back("isa", isa);

  // STREAM triad: each array at least 4x the last-level cache (McCalpin's rule).
  const long min_bytes = (o.quick ? 32L : 256L) * 1024 * 1024;
  const long n = std::max(4 * llc, min_bytes) / 8;
  progress.next("STREAM triad");
  Stats ts = summarize(stream_triad(n, o.quick ? 5 : 10));
  c.measurements.push_back(Measurement{"stream_triad", ts.median, "B/s", ts,
                                       fmt::format("OpenMP static triad a = b + s c, {} threads; 24 bytes per element "
                                                   "(write-allocate traffic not counted)",
                                                   threads),
                                       fmt::format("3 arrays of {} MiB", n * 8 / (1024 * 1024))});
  return c;
}

}  // namespace gpuplan
