// Reproduces the vTrain multi-node measurements (shared/validation/vtrain/multi-node.csv:
// Megatron-DeepSpeed on A100, full recomputation) and writes a predicted-vs-measured table.
// Usage: gpuplan_validate VTRAIN_CSV [REPORT.md]; exits 1 when the median absolute error
// exceeds 10% (the target of issue 4). Constants are global, never tuned per case.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gpuplan/analysis/step.hpp"
#include "gpuplan/catalog/catalog.hpp"

using namespace gpuplan;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: gpuplan_validate VTRAIN_CSV [REPORT.md]\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 66;
  }
  Catalog cat = Catalog::builtin();
  // The vTrain configs do not say 40 or 80 GB; bandwidth of the links is what matters and
  // matches both (NVLink 3, 8 x HDR per node in vTrain's simulator settings).
  Device dev = resolve_device(cat, "a100-80gb");
  std::string line;
  std::getline(in, line);
  std::vector<double> errors;
  std::string table = "| # | params (B) | gpus | tp | pp | dp | micro | global | measured s | predicted s | error |\n"
                      "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) f.push_back(cell);
    if (f.size() < 19) continue;
    ModelArch m;
    m.id = "gpt";
    m.hidden = std::stoi(f[5]);
    m.layers = std::stoi(f[6]);
    m.heads = std::stoi(f[7]);
    m.kv_heads = m.heads;
    m.head_dim = m.hidden / m.heads;
    m.ffn = 4 * m.hidden;
    m.vocab = 51200;  // Megatron's padded GPT-2 vocabulary
    m.activation = Activation::gelu;
    m.layernorm = true;
    m.tied_embeddings = true;
    m.learned_positions = true;
    m.linear_bias = true;
    m.max_context = std::stoi(f[8]);
    StepModel sm{m, count_params(m), dev, {}};
    sm.settings.train.seq_len = std::stoi(f[8]);
    sm.settings.train.flash_attention = false;  // Megatron-DeepSpeed 2023 default kernels
    sm.settings.eff = default_efficiency(dev.family);
    sm.settings.train.grad_bytes = 2;  // Megatron-DeepSpeed fp16 runs reduce 16-bit gradients
    Layout l;
    l.tp = std::stoi(f[9]);
    l.pp = std::stoi(f[10]);
    l.dp = std::stoi(f[11]);
    l.micro_batch = std::stoi(f[12]);
    l.global_batch = std::stoi(f[13]);
    l.zero = 0;
    l.recompute = Recompute::full;
    l.sequence_parallel = false;
    double measured = std::stod(f[17]);
    double predicted = step_time(sm, l).total;
    double err = predicted / measured - 1;
    errors.push_back(std::fabs(err));
    table += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {:.3f} | {:.3f} | {:+.1f}% |\n", f[0], f[18], f[2],
                         l.tp, l.pp, l.dp, l.micro_batch, l.global_batch, measured, predicted, 100 * err);
  }
  std::vector<double> sorted = errors;
  std::sort(sorted.begin(), sorted.end());
  double median = sorted.empty() ? 0 : sorted[sorted.size() / 2];
  double mean = 0;
  for (double e : errors) mean += e;
  mean /= static_cast<double>(std::max<std::size_t>(1, errors.size()));
  std::string report = fmt::format(
      "# Validation report\n\nRegenerate: `build/tests/gpuplan_validate ../shared/validation/vtrain/multi-node.csv "
      "tests/validation/REPORT.md` (also run by ctest as validation.vtrain).\n\n"
      "## vTrain multi-node iteration times (A100, Megatron-DeepSpeed, full recomputation)\n\n"
      "{} cases; median absolute error {:.1f}%, mean {:.1f}%, max {:.1f}% (target: median at most 10%).\n\n{}",
      errors.size(), 100 * median, 100 * mean, 100 * sorted.back(), table);
  std::printf("cases %zu median %.1f%% mean %.1f%% max %.1f%%\n", errors.size(), 100 * median, 100 * mean,
              100 * sorted.back());
  if (argc > 2) std::ofstream(argv[2]) << report;
  return median <= 0.10 ? 0 : 1;
}
