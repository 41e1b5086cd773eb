// SPDX-License-Identifier: Apache-2.0
// gpuplan-probe-cuda: measures what one CUDA device really does and prints a calibration file
// (TOML) on stdout. Method after shared/reference/probe.md: CUDA events on a dedicated
// non-blocking stream, warm-up by time, samples of 20-50 ms, the median of at least 10 samples
// with p10/p90/max and the coefficient of variation, random inputs, working sets far larger than
// L2, results verified, clocks recorded before and after (NVML through dlopen, when present).
// Exit 69 with "no CUDA device found" and the driver's message when there is no usable device.
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fmt/format.h>
#include <functional>
#include <string>
#include <vector>

#include "gpuplan/calibration/calibration.hpp"
#include "gpuplan/output.hpp"
#include "kernels.hpp"

using namespace gpuplan;

namespace {

constexpr int exit_no_device = 69;
constexpr int exit_failure = 70;

struct Failure {
  std::string what;
};
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Failure{fmt::format("{}: {}", what, cudaGetErrorString(e))};
}
void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw Failure{fmt::format("{}: cuBLAS status {}", what, static_cast<int>(s))};
}

double wall_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// ---- NVML, loaded at run time (the toolkit ships no nvml.h; the driver ships the library).
struct Nvml {
  using Handle = void*;
  void* lib = nullptr;
  Handle dev = nullptr;
  int (*clock)(Handle, int, unsigned*) = nullptr;
  int (*max_clock)(Handle, int, unsigned*) = nullptr;
  int (*power)(Handle, unsigned*) = nullptr;
  int (*temperature)(Handle, int, unsigned*) = nullptr;
  int (*reasons)(Handle, unsigned long long*) = nullptr;

  explicit Nvml(const char* pci_bus_id) {
    lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (!lib) return;
    auto sym = [&](const char* n) { return dlsym(lib, n); };
    auto init = reinterpret_cast<int (*)()>(sym("nvmlInit_v2"));
    auto by_pci = reinterpret_cast<int (*)(const char*, Handle*)>(sym("nvmlDeviceGetHandleByPciBusId_v2"));
    clock = reinterpret_cast<int (*)(Handle, int, unsigned*)>(sym("nvmlDeviceGetClockInfo"));
    max_clock = reinterpret_cast<int (*)(Handle, int, unsigned*)>(sym("nvmlDeviceGetMaxClockInfo"));
    power = reinterpret_cast<int (*)(Handle, unsigned*)>(sym("nvmlDeviceGetPowerUsage"));
    temperature = reinterpret_cast<int (*)(Handle, int, unsigned*)>(sym("nvmlDeviceGetTemperature"));
    reasons = reinterpret_cast<int (*)(Handle, unsigned long long*)>(sym("nvmlDeviceGetCurrentClocksThrottleReasons"));
    if (!init || !by_pci || init() != 0 || by_pci(pci_bus_id, &dev) != 0) dev = nullptr;
  }
  bool ok() const { return dev != nullptr; }
  unsigned sm_clock() const {
    unsigned v = 0;
    if (ok() && clock) clock(dev, 1, &v);  // NVML_CLOCK_SM
    return v;
  }
  unsigned sm_max() const {
    unsigned v = 0;
    if (ok() && max_clock) max_clock(dev, 1, &v);
    return v;
  }
  std::string conditions() const {
    if (!ok()) return "NVML not available";
    unsigned mw = 0, temp = 0;
    unsigned long long r = 0;
    if (power) power(dev, &mw);
    if (temperature) temperature(dev, 0, &temp);
    if (reasons) reasons(dev, &r);
    return fmt::format("SM clock {} of {} MHz, power {:.0f} W, {} C, clock event reasons 0x{:x}", sm_clock(), sm_max(),
                       mw / 1000.0, temp, r);
  }
};

// ---- Timing: events around K back-to-back operations on a non-blocking stream.
struct Timer {
  cudaStream_t stream{};
  cudaEvent_t start{}, stop{};
  Timer() {
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
  }
  double time(const std::function<void()>& op, int k) {
    check(cudaEventRecord(start, stream), "cudaEventRecord");
    for (int i = 0; i < k; ++i) op();
    check(cudaEventRecord(stop, stream), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    return ms / 1e3;
  }
  // Rates (work per second) of `samples` samples of about `sample_s` each, after `warm_s` of warm-up.
  std::vector<double> rates(const std::function<void()>& op, double work, int samples, double warm_s, double sample_s = 0.03) {
    const double pilot = std::max(1e-7, time(op, 1));
    const int k = std::clamp(static_cast<int>(sample_s / pilot), 1, 100000);
    const double t0 = wall_s();
    while (wall_s() - t0 < warm_s) time(op, k);
    std::vector<double> r;
    for (int i = 0; i < samples; ++i) r.push_back(work * k / time(op, k));
    return r;
  }
};

Measurement measured(const char* metric, const char* unit, const std::vector<double>& rates, std::string method,
                     std::string params, const Nvml& nvml) {
  Measurement m;
  m.metric = metric;
  m.unit = unit;
  m.stats = summarize(rates);
  m.value = m.stats.median;
  m.method = std::move(method);
  m.params = std::move(params) + "; " + nvml.conditions();
  if (m.stats.cv > 0.03) m.status = fmt::format("suspect: coefficient of variation {:.1f}% above 3%", 100 * m.stats.cv);
  if (nvml.ok() && nvml.sm_max() > 0 && nvml.sm_clock() < 0.75 * nvml.sm_max())
    m.status = "suspect: SM clock below 75% of its maximum after the run (throttled)";
  return m;
}

// ---- GEMM through cuBLASLt, TN layout (required for FP8; used for every type, as SuperBench).
struct GemmType {
  const char* name;
  cudaDataType_t ab, cd;
  cublasComputeType_t compute;
  ProbeType fill;
  std::size_t ab_bytes, cd_bytes;
  int min_cc;  // compute capability x 10
};
constexpr GemmType gemm_types[] = {
    {"bf16", CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, ProbeType::bf16, 2, 2, 80},
    {"fp16", CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, ProbeType::f16, 2, 2, 70},
    {"tf32", CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, ProbeType::f32, 4, 4, 80},
    {"fp32", CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, ProbeType::f32, 4, 4, 70},
    {"fp8", CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F, ProbeType::fp8, 1, 2, 89},
};

float half_to_float(unsigned short h) {
  const unsigned sign = (h >> 15) & 1, exp = (h >> 10) & 31, man = h & 1023;
  float v = exp == 0 ? std::ldexp(static_cast<float>(man), -24)
                     : exp == 31 ? INFINITY : std::ldexp(static_cast<float>(man | 1024), static_cast<int>(exp) - 25);
  return sign ? -v : v;
}
float output_to_float(const unsigned char* p, cudaDataType_t t) {
  if (t == CUDA_R_32F) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  unsigned short h;
  std::memcpy(&h, p, 2);
  if (t == CUDA_R_16F) return half_to_float(h);
  unsigned bits = static_cast<unsigned>(h) << 16;  // bf16
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// Times one type at one square size; returns the median rate, or -1 when unsupported.
double gemm_probe(cublasLtHandle_t lt, Timer& timer, const GemmType& g, long n, int samples, double warm, const Nvml& nvml,
                  void* workspace, std::size_t ws_bytes, std::vector<Measurement>* out) {
  const unsigned long long elems = static_cast<unsigned long long>(n) * n;
  void *a = nullptr, *b = nullptr, *d = nullptr;
  float* one = nullptr;
  check(cudaMalloc(&a, elems * g.ab_bytes), "cudaMalloc A");
  check(cudaMalloc(&b, elems * g.ab_bytes), "cudaMalloc B");
  check(cudaMalloc(&d, elems * g.cd_bytes), "cudaMalloc D");
  check(cudaMalloc(&one, sizeof(float)), "cudaMalloc scale");
  const float host_one = 1.0f;
  check(cudaMemcpy(one, &host_one, sizeof host_one, cudaMemcpyHostToDevice), "cudaMemcpy scale");
  check(probe_fill(g.fill, a, elems, 1, timer.stream), "fill A");
  check(probe_fill(g.fill, b, elems, 2, timer.stream), "fill B");
  cublasLtMatmulDesc_t op{};
  cublasLtMatrixLayout_t la{}, lb{}, ld{};
  cublasLtMatmulPreference_t pref{};
  check(cublasLtMatmulDescCreate(&op, g.compute, CUDA_R_32F), "cublasLtMatmulDescCreate");
  const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  check(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta), "TRANSA");
  check(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb), "TRANSB");
  if (g.ab == CUDA_R_8F_E4M3) {
    const int8_t fast = 1;
    check(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast), "FAST_ACCUM");
    check(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &one, sizeof one), "A_SCALE");
    check(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &one, sizeof one), "B_SCALE");
  }
  const auto un = static_cast<uint64_t>(n);
  check(cublasLtMatrixLayoutCreate(&la, g.ab, un, un, static_cast<int64_t>(n)), "layout A");
  check(cublasLtMatrixLayoutCreate(&lb, g.ab, un, un, static_cast<int64_t>(n)), "layout B");
  check(cublasLtMatrixLayoutCreate(&ld, g.cd, un, un, static_cast<int64_t>(n)), "layout D");
  check(cublasLtMatmulPreferenceCreate(&pref), "preference");
  check(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes, sizeof ws_bytes),
        "workspace");
  cublasLtMatmulHeuristicResult_t heur{};
  int found = 0;
  double result = -1;
  if (cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, ld, ld, pref, 1, &heur, &found) == CUBLAS_STATUS_SUCCESS && found > 0) {
    const float alpha = 1, beta = 0;
    auto run = [&] {
      check(cublasLtMatmul(lt, op, &alpha, a, la, b, lb, &beta, d, ld, d, ld, &heur.algo, workspace, ws_bytes, timer.stream),
            "cublasLtMatmul");
    };
    const double flops = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
    std::vector<double> rates = timer.rates(run, flops, samples, warm);
    // Verify four elements against the host: D(i, j) = sum_k A(k, i) B(k, j) (A stored k x m).
    double worst = 0;
    for (long idx : {0L, 1L, n / 2, n - 1}) {
      const long i = idx, j = (idx * 7 + 3) % n;
      double ref = 0;
      for (long k = 0; k < n; ++k)
        ref += static_cast<double>(probe_host_value(static_cast<unsigned long long>(k + i * n), 1)) *
               probe_host_value(static_cast<unsigned long long>(k + j * n), 2);
      unsigned char buf[4];
      check(cudaMemcpy(buf, static_cast<unsigned char*>(d) + (static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * n) * g.cd_bytes,
                       g.cd_bytes, cudaMemcpyDeviceToHost),
            "cudaMemcpy D");
      worst = std::max(worst, std::fabs(output_to_float(buf, g.cd) - ref) / std::sqrt(static_cast<double>(n)));
    }
    const double tolerance = g.ab == CUDA_R_8F_E4M3 ? 0.2 : 0.05;  // input rounding grows as sqrt(k)
    Measurement m = measured(("gemm_" + std::string(g.name)).c_str(), "FLOP/s", rates,
                             fmt::format("cuBLASLt heuristic top-1, TN, compute {}{}", g.compute == CUBLAS_COMPUTE_32F_FAST_TF32 ? "32F_FAST_TF32" : "32F",
                                         g.ab == CUDA_R_8F_E4M3 ? ", E4M3 inputs, BF16 output, fast accumulate" : ""),
                             fmt::format("m = n = k = {}, workspace {} MiB", n, ws_bytes >> 20), nvml);
    if (worst > tolerance) m.status = fmt::format("suspect: verification error {:.3g} per sqrt(k) above {}", worst, tolerance);
    out->push_back(m);
    result = m.value;
  }
  cublasLtMatmulPreferenceDestroy(pref);
  cublasLtMatrixLayoutDestroy(la);
  cublasLtMatrixLayoutDestroy(lb);
  cublasLtMatrixLayoutDestroy(ld);
  cublasLtMatmulDescDestroy(op);
  cudaFree(a), cudaFree(b), cudaFree(d), cudaFree(one);
  return result;
}

int probe(int device, bool quick) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    int driver = 0;
    cudaDriverGetVersion(&driver);
    std::fprintf(stderr, "gpuplan-probe-cuda: error: no CUDA device found (%s; driver version %d)\n",
                 e != cudaSuccess ? cudaGetErrorString(e) : "the driver reports no device", driver);
    return exit_no_device;
  }
  if (device < 0 || device >= count) {
    std::fprintf(stderr, "gpuplan-probe-cuda: error: --device %d is out of range; %d device(s) found\n", device, count);
    return exit_no_device;
  }
  check(cudaSetDevice(device), "cudaSetDevice");
  cudaDeviceProp p{};
  check(cudaGetDeviceProperties(&p, device), "cudaGetDeviceProperties");
  char pci[32] = {};
  cudaDeviceGetPCIBusId(pci, sizeof pci, device);
  Nvml nvml(pci);
  int clock_khz = 0, mem_khz = 0, driver = 0, runtime = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device);
  cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, device);
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  std::size_t free_b = 0, total_b = 0;
  check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");

  Calibration c;
  c.tool = "gpuplan-probe-cuda";
  c.created = utc_timestamp();
  c.kind = "cuda";
  c.device_name = p.name;
  const int cc = p.major * 10 + p.minor;
  c.facts = {{"compute_capability", fmt::format("{}.{}", p.major, p.minor)},
             {"sms", std::to_string(p.multiProcessorCount)},
             {"memory_bytes", std::to_string(p.totalGlobalMem)},
             {"free_memory_bytes", std::to_string(free_b)},
             {"l2_bytes", std::to_string(p.l2CacheSize)},
             {"memory_bus_bits", std::to_string(p.memoryBusWidth)},
             {"sm_clock_khz", std::to_string(clock_khz)},
             {"memory_clock_khz", std::to_string(mem_khz)},
             {"ecc", p.ECCEnabled ? "on" : "off"},
             {"mig", std::string(p.name).find("MIG") != std::string::npos ? "yes" : "no"},
             {"pci_bus_id", pci},
             {"driver_version", std::to_string(driver)},
             {"runtime_version", std::to_string(runtime)},
             {"cublaslt_version", std::to_string(cublasLtGetVersion())},
             {"devices", std::to_string(count)},
             {"conditions_before", nvml.conditions()}};
  if (free_b < total_b / 2) c.facts.emplace_back("warning", "less than half the memory is free: another process shares the device");

  Timer timer;
  const int samples = quick ? 10 : 20;
  const double warm = quick ? 0.3 : 1.0;
  cublasLtHandle_t lt{};
  check(cublasLtCreate(&lt), "cublasLtCreate");
  const std::size_t ws_bytes = (p.major >= 9 ? 32u : 4u) << 20;
  void* ws = nullptr;
  check(cudaMalloc(&ws, ws_bytes), "cudaMalloc workspace");
  const std::vector<long> sizes = quick ? std::vector<long>{1024, 4096, 8192} : std::vector<long>{512, 1024, 2048, 4096, 8192, 16384};
  // Progress on a terminal: each GEMM size, the three HBM streams, host copies, launches, peer copies.
  gpuplan::Progress progress("probe", static_cast<int>(std::size(gemm_types) * sizes.size()) + 6);
  for (const auto& g : gemm_types) {
    if (cc < g.min_cc) {
      Measurement m;
      m.metric = std::string("gemm_") + g.name;
      m.unit = "FLOP/s";
      m.status = fmt::format("unsupported: compute capability {}.{} has no {} tensor cores", p.major, p.minor, g.name);
      c.measurements.push_back(m);
      continue;
    }
    std::vector<Measurement> per_size;
    std::vector<long> size_of;
    for (long n : sizes) {
      progress.next(fmt::format("GEMM {} n = {}", g.name, n));
      const double dn = static_cast<double>(n);
      const double need = dn * dn * (2.0 * static_cast<double>(g.ab_bytes) + static_cast<double>(g.cd_bytes));
      if (need > 0.8 * static_cast<double>(free_b)) continue;
      const double rate = gemm_probe(lt, timer, g, n, samples, warm, nvml, ws, ws_bytes, &per_size);
      size_of.push_back(n);
      if (rate < 0) {
        Measurement m;
        m.metric = std::string("gemm_") + g.name;
        m.unit = "FLOP/s";
        m.status = "unsupported: cuBLASLt found no algorithm for this type on this device";
        per_size = {m};
        break;
      }
    }
    // The best size is the planning figure; the bf16 sweep also becomes the curve (gpuplan
    // fits it against the catalog peak when it reads the file).
    auto best = std::max_element(per_size.begin(), per_size.end(),
                                 [](const Measurement& x, const Measurement& y) { return x.value < y.value; });
    if (best != per_size.end()) c.measurements.push_back(*best);
    if (std::string(g.name) == "bf16")
      for (std::size_t i = 0; i < per_size.size() && i < size_of.size(); ++i)
        if (per_size[i].status == "ok") c.gemm_points.push_back({static_cast<double>(size_of[i]), per_size[i].value});
  }
  c.gemm_dtype = "bf16";
  c.gemm_points_unit = "FLOP/s";  // gpuplan divides by the catalog's peak and fits the curve
  cudaFree(ws);
  cublasLtDestroy(lt);

  // HBM streaming: arrays of max(1 GiB, 8 x L2) each (3 arrays for the triad).
  const std::size_t bytes = std::max<std::size_t>(std::size_t{1} << 30, 8 * static_cast<std::size_t>(p.l2CacheSize));
  if (3 * bytes < free_b) {
    float *a = nullptr, *b = nullptr, *cc_buf = nullptr;
    check(cudaMalloc(&a, bytes), "cudaMalloc stream");
    check(cudaMalloc(&b, bytes), "cudaMalloc stream");
    check(cudaMalloc(&cc_buf, bytes), "cudaMalloc stream");
    const unsigned long long floats = bytes / 4;
    check(probe_fill(ProbeType::f32, a, floats, 3, timer.stream), "fill");
    check(probe_fill(ProbeType::f32, b, floats, 4, timer.stream), "fill");
    check(probe_fill(ProbeType::f32, cc_buf, floats, 5, timer.stream), "fill");
    const int blocks = p.multiProcessorCount * 8;
    struct K { StreamKind k; const char* metric; double arrays; const char* counting; };
    for (const K& k : {K{StreamKind::read, "hbm_read", 1, "bytes read"}, K{StreamKind::copy, "hbm_copy", 2, "bytes read + written"},
                       K{StreamKind::triad, "hbm_triad", 3, "2 reads + 1 write per element"}}) {
      progress.next(k.metric);
      auto run = [&] { check(probe_stream(k.k, a, b, cc_buf, floats, blocks, timer.stream), "stream kernel"); };
      c.measurements.push_back(measured(k.metric, "B/s", timer.rates(run, k.arrays * static_cast<double>(bytes), samples, warm),
                                        fmt::format("own kernel, float4 grid-stride, __ldcg/__stcg; counts {}", k.counting),
                                        fmt::format("{} MiB per array, {} blocks of 256", bytes >> 20, blocks), nvml));
    }
    // Verify the triad: a = b + 3 c for a few elements.
    for (unsigned long long i : {0ull, floats / 3, floats - 1}) {
      float got = 0;
      check(cudaMemcpy(&got, a + i, 4, cudaMemcpyDeviceToHost), "cudaMemcpy verify");
      const float want = probe_host_value(i, 4) + 3.0f * probe_host_value(i, 5);
      if (std::fabs(got - want) > 1e-5f) c.measurements.back().status = "suspect: triad verification failed";
    }
    cudaFree(a), cudaFree(b), cudaFree(cc_buf);
  }

  // Pinned host <-> device copies.
  {
    progress.next("host copies");
    const std::size_t hb = (quick ? 64u : 256u) << 20;
    void *h = nullptr, *dbuf = nullptr;
    check(cudaHostAlloc(&h, hb, cudaHostAllocPortable), "cudaHostAlloc");
    check(cudaMalloc(&dbuf, hb), "cudaMalloc h2d");
    std::memset(h, 1, hb);
    auto h2d = [&] { check(cudaMemcpyAsync(dbuf, h, hb, cudaMemcpyHostToDevice, timer.stream), "H2D"); };
    auto d2h = [&] { check(cudaMemcpyAsync(h, dbuf, hb, cudaMemcpyDeviceToHost, timer.stream), "D2H"); };
    c.measurements.push_back(measured("h2d_pinned", "B/s", timer.rates(h2d, static_cast<double>(hb), samples, warm),
                                      "cudaMemcpyAsync from pinned memory (copy engine)", fmt::format("{} MiB", hb >> 20), nvml));
    c.measurements.push_back(measured("d2h_pinned", "B/s", timer.rates(d2h, static_cast<double>(hb), samples, warm),
                                      "cudaMemcpyAsync to pinned memory (copy engine)", fmt::format("{} MiB", hb >> 20), nvml));
    cudaFreeHost(h), cudaFree(dbuf);
  }

  // Kernel launch: back-to-back on the device (events around many empty kernels) and the host
  // round trip (launch then synchronise).
  {
    progress.next("kernel launches");
    auto launch = [&] { check(probe_empty(timer.stream), "empty kernel"); };
    std::vector<double> per = timer.rates(launch, 1, samples, warm, 0.01);
    for (double& x : per) x = 1 / x;  // seconds per launch
    c.measurements.push_back(measured("launch_back_to_back", "s", per, "empty kernels between events", "1 thread", nvml));
    std::vector<double> rt;
    for (int i = 0; i < (quick ? 200 : 2000); ++i) {
      const double t0 = wall_s();
      launch();
      check(cudaStreamSynchronize(timer.stream), "sync");
      rt.push_back(wall_s() - t0);
    }
    c.measurements.push_back(measured("launch_roundtrip", "s", rt, "wall clock around launch + cudaStreamSynchronize", "", nvml));
  }

  // Peer to peer, device 0 -> 1, when there are two devices that can reach each other.
  int can = 0;
  if (count > 1 && cudaDeviceCanAccessPeer(&can, device, (device + 1) % count) == cudaSuccess && can) {
    progress.next("peer copies");
    const int peer = (device + 1) % count;
    const std::size_t pb = 256u << 20;
    void *src = nullptr, *dst = nullptr;
    check(cudaDeviceEnablePeerAccess(peer, 0), "cudaDeviceEnablePeerAccess");
    check(cudaMalloc(&src, pb), "cudaMalloc p2p");
    check(cudaSetDevice(peer), "cudaSetDevice");
    check(cudaMalloc(&dst, pb), "cudaMalloc p2p");
    check(cudaSetDevice(device), "cudaSetDevice");
    auto copy = [&] { check(cudaMemcpyPeerAsync(dst, peer, src, device, pb, timer.stream), "P2P"); };
    c.measurements.push_back(measured("p2p_unidirectional", "B/s", timer.rates(copy, static_cast<double>(pb), samples, warm),
                                      fmt::format("cudaMemcpyPeerAsync {} -> {} (copy engine)", device, peer), "256 MiB", nvml));
    cudaFree(src);
    cudaSetDevice(peer);
    cudaFree(dst);
    cudaSetDevice(device);
  }
  c.facts.emplace_back("conditions_after", nvml.conditions());
  const std::string out = to_toml(c);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  int device = 0;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) quick = true;
    else if (!std::strcmp(argv[i], "--device") && i + 1 < argc) device = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: gpuplan-probe-cuda [--quick] [--device N]\n"
                           "Measures one CUDA device and prints a gpuplan calibration file (TOML) on stdout.\n");
      return std::strcmp(argv[i], "--help") ? 2 : 0;
    }
  }
  try {
    return probe(device, quick);
  } catch (const Failure& f) {
    std::fprintf(stderr, "gpuplan-probe-cuda: error: %s\n", f.what.c_str());
    return exit_failure;
  }
}
