// SPDX-License-Identifier: Apache-2.0
// Reproduces published measurements with the models and writes a predicted-vs-measured report:
//  1. vTrain multi-node iteration times (shared/validation/vtrain/multi-node.csv: Megatron-DeepSpeed
//     on A100, full recomputation); target: median absolute error at most 10%.
//  2. Training throughput tables (NVIDIA NeMo and MosaicML llm-foundry, quoted below from
//     shared/validation/throughput-tables.md); target: MFU within 5 percentage points.
//  3. llama.cpp single-stream decode (shared/reference/inference.md 5.1 and 5.2); target: within 20%.
//  4. Serving throughput (TensorRT-LLM's performance overview) and published training runs: reported.
// Usage: gpuplan_validate [--vtrain CSV] [--korthikanti CSV] [--report REPORT.md]; exits 1 when a
// target is missed (Korthikanti 2022 is reported, not yet a target).
// Constants are global, never tuned per case.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <string>
#include <initializer_list>
#include <vector>

#include "gpuplan/analysis/inference.hpp"
#include "gpuplan/analysis/search.hpp"
#include "gpuplan/analysis/step.hpp"
#include "gpuplan/catalog/catalog.hpp"
#include "gpuplan/commands.hpp"
#include "gpuplan/scenario.hpp"

using namespace gpuplan;

namespace {

struct Summary {
  std::vector<double> errors;
  double median() const {
    std::vector<double> s = errors;
    std::sort(s.begin(), s.end());
    return s.empty() ? 0 : s[s.size() / 2];
  }
  double mean() const {
    double m = 0;
    for (double e : errors) m += e;
    return errors.empty() ? 0 : m / static_cast<double>(errors.size());
  }
  double max() const { return errors.empty() ? 0 : *std::max_element(errors.begin(), errors.end()); }
};

// The public training corpus (the training issue's target: median absolute error at most 10%, none
// beyond 35%): every tokens/s or GPU-hours case of the throughput tables, the Megatron-Bridge
// summary, MaxText's TPU table and the published runs, as a signed relative error of throughput
// (or of GPU-hours for the runs), with what each case exercises.
struct CorpusCase {
  std::string source, model, device, kind;  // kind: "dense" or "moe"
  double error = 0;
  int seq = 0;  // tokens per sequence (0: the model's default, under 32K)
  std::string precision;  // fp8, mxfp8 or nvfp4 where a case ran a low precision
  std::string finetune;   // lora or qlora where a case fine-tuned adapters
};
// A scenario with no flags given (for resolve_host's default host).
const Scenario& no_flags() {
  static const Scenario s;
  return s;
}

// The step model of a catalog model on a catalog device at `seq` tokens and a precision, with
// the device's default efficiencies.
StepModel catalog_step_model(const Catalog& cat, const ModelArch& m, const char* device, int seq, Precision precision) {
  StepModel sm{m, count_params(m), resolve_device(cat, device), {}};
  sm.settings.train.seq_len = seq;
  set_precision(sm.settings, precision);
  sm.settings.eff = default_efficiency(sm.device);
  return sm;
}

std::vector<CorpusCase>& corpus() {
  static std::vector<CorpusCase> cases;
  return cases;
}
void add_to_corpus(std::string source, const ModelArch& m, const Device& d, double error, int seq,
                   Precision p = Precision::bf16, Finetune f = Finetune::none) {
  corpus().push_back({std::move(source), m.id, d.family, m.moe() ? "moe" : "dense", error, seq,
                      low_precision(p) ? to_string(p) : std::string(), f == Finetune::lora ? "lora" : ""});
}

std::vector<std::string> csv_cells(const std::string& line) {
  std::vector<std::string> f;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) f.push_back(cell);
  return f;
}

// A Megatron GPT: GeLU MLP, LayerNorm, biases, learned positions, tied embeddings, full
// multi-head attention, on `dev` with eager attention (Megatron's kernels before flash attention).
StepModel megatron_gpt(const std::string& id, int hidden, int ffn, int heads, int layers, int vocab, int seq, const Device& dev) {
  ModelArch m;
  m.id = id;
  m.hidden = hidden;
  m.ffn = ffn;
  m.heads = heads;
  m.kv_heads = heads;
  m.head_dim = hidden / heads;
  m.layers = layers;
  m.vocab = vocab;
  m.activation = Activation::gelu;
  m.layernorm = true;
  m.tied_embeddings = true;
  m.learned_positions = true;
  m.linear_bias = true;
  m.max_context = seq;
  StepModel sm{m, count_params(m), dev, {}};
  sm.settings.train.seq_len = seq;
  sm.settings.train.flash_attention = false;
  sm.settings.eff = default_efficiency(dev);
  return sm;
}

std::string vtrain_section(const char* path, bool& ok) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path);
    ok = false;
    return {};
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
    const std::vector<std::string> f = csv_cells(line);
    if (f.size() < 19) continue;
    // Megatron's padded GPT-2 vocabulary; Megatron-DeepSpeed 2023 default (eager) kernels.
    const int hidden = std::stoi(f[5]);
    StepModel sm = megatron_gpt("gpt", hidden, 4 * hidden, std::stoi(f[7]), std::stoi(f[6]), 51200, std::stoi(f[8]), dev);
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
    double predicted = step_time(sm, l).total.value();
    double err = predicted / measured - 1;
    errors.push_back(std::fabs(err));
    table += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {:.3f} | {:.3f} | {:+.1f}% |\n", f[0], f[18], f[2],
                         l.tp, l.pp, l.dp, l.micro_batch, l.global_batch, measured, predicted, 100 * err);
  }
  Summary sum{errors};
  std::printf("vtrain: cases %zu median %.1f%% mean %.1f%% max %.1f%%\n", errors.size(), 100 * sum.median(),
              100 * sum.mean(), 100 * sum.max());
  ok = ok && sum.median() <= 0.10;
  return fmt::format("## vTrain multi-node iteration times (A100, Megatron-DeepSpeed, full recomputation)\n\n"
                     "{} cases; median absolute error {:.1f}%, mean {:.1f}%, max {:.1f}% (target: median at most 10%).\n\n{}\n",
                     errors.size(), 100 * sum.median(), 100 * sum.mean(), 100 * sum.max(), table);
}

// ---- Korthikanti et al. 2022 (arXiv 2205.05198), Table 5 iteration times and Figure 1
// activation memory: Megatron-LM on Selene (A100 80 GB, DGX A100), fp16, eager attention (the
// scores are stored unless recomputed), data parallelism 1. The benchmark Calculon reports
// against (3.65% average, 8.87% max on the iteration times); reported here like for like.
std::string korthikanti_section(const char* path) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path);
    return {};
  }
  Catalog cat = Catalog::builtin();
  const Device dev = resolve_device(cat, "a100-80gb");
  std::string line;
  std::getline(in, line);
  Summary time, act;
  std::string table = "| model | gpus | tp pp v | recompute | sp | measured s | predicted s | error | activations, paper | predicted "
                      "(layers) | error | device total |\n"
                      "|---|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n";
  while (std::getline(in, line)) {
    std::vector<std::string> f = csv_cells(line);
    while (f.size() < 25) f.emplace_back();
    const bool timed = !f[23].empty(), sized = !f[19].empty();
    if (!timed && !sized) continue;
    const StepModel sm = megatron_gpt(f[0], std::stoi(f[1]), std::stoi(f[2]), std::stoi(f[3]), std::stoi(f[5]),
                                      std::stoi(f[7]), std::stoi(f[6]), dev);
    const ModelArch& m = sm.model;
    Layout l;
    l.tp = std::stoi(f[9]);
    l.pp = std::stoi(f[10]);
    l.dp = std::stoi(f[11]);
    l.interleave = std::stoi(f[12]);
    l.micro_batch = std::stoi(f[13]);
    l.global_batch = std::stoi(f[14]);
    l.zero = 0;
    l.recompute = f[16] == "full" ? Recompute::full : f[16] == "selective" ? Recompute::selective : Recompute::none;
    l.sequence_parallel = f[17] == "True";
    std::string tcells = "| | | ", acells = "| | | |";
    if (timed) {
      const double measured = std::stod(f[23]), predicted = step_time(sm, l).total.value();
      time.errors.push_back(std::fabs(predicted / measured - 1));
      tcells = fmt::format("| {:.2f} | {:.2f} | {:+.1f}% ", measured, predicted, 100 * (predicted / measured - 1));
    }
    if (sized) {
      // Figure 1's values are the transformer layers' activations of the first stage (Table 2's
      // per-layer forms x the layers and micro-batches in flight): the embedding dropout mask and
      // the output layer, which the model also holds, are not in them (training-models.md 5.3).
      const double paper = std::stod(f[19]);
      const MemoryParts parts = memory_parts(m, sm.params, sm.settings.train, l);
      const MemoryParts::Stage& first = parts.stage[0];
      const double interleaved = l.interleave > 1 && l.pp > 1 ? 1.0 + (l.pp - 1.0) / (static_cast<double>(l.pp) * l.interleave) : 1;
      const double predicted = first.per_layer.value() * first.layers * first.in_flight * interleaved / (1024.0 * 1024 * 1024);
      act.errors.push_back(std::fabs(predicted / paper - 1));
      const double total = training_memory(m, sm.params, sm.settings.train, l).activations.value() / (1024.0 * 1024 * 1024);
      acells = fmt::format("| {:.2f} GiB | {:.2f} GiB | {:+.1f}% | {:.2f} GiB |", paper, predicted, 100 * (predicted / paper - 1), total);
    }
    table += fmt::format("| {} | {} | {} {} {} | {} | {} {}{}\n", f[0], f[8], l.tp, l.pp, l.interleave, f[16],
                         l.sequence_parallel ? "on" : "off", tcells, acells);
  }
  std::printf("korthikanti: iteration %zu cases mean %.1f%% max %.1f%%; activations %zu cases mean %.1f%% max %.1f%%\n",
              time.errors.size(), 100 * time.mean(), 100 * time.max(), act.errors.size(), 100 * act.mean(), 100 * act.max());
  return fmt::format(
      "## Korthikanti et al. 2022, Table 5 and Figure 1 (A100, Megatron-LM, fp16, eager attention)\n\n"
      "Iteration times: {} rows, mean absolute error {:.1f}%, max {:.1f}% (Calculon: 3.65% and 8.87%; target 3.5% and 8%). "
      "Activation memory of the first stage's transformer layers against Figure 1's values (the paper's Table 2 closed "
      "forms, which leave out the embedding dropout mask and the output layer; the device total beside them has both): {} "
      "rows, mean {:.1f}%, max {:.1f}% (target: every row within 2%). "
      "Iteration-time target {}; activation target {}. The GEMM curve's two constants were fitted on these rows and the "
      "vTrain set together (step.hpp, gemm_curve); every other section uses the same constants.\n\n{}\n",
      time.errors.size(), 100 * time.mean(), 100 * time.max(), act.errors.size(), 100 * act.mean(), 100 * act.max(),
      time.mean() <= 0.035 && time.max() <= 0.08 ? "met" : "not met", act.max() <= 0.02 ? "met" : "not met", table);
}

// ---- 2. Training throughput tables: measured tokens/s/GPU, converted to MFU under the tool's own
// convention (6N + 12 L s d per token over the dense peak of the precision), against the MFU the
// best layout the search finds under the published layout flags.
struct ThroughputRow {
  const char* source;
  const char* model;  // catalog id, or "mpt-<size>" built below
  const char* gpu;
  int gpus, tp, pp, cp, vp, seq, global_batch;  // 0: free for the search
  const char* precision;
  int recompute;  // -1 free, 0 none, 2 full
  double tokens_per_s_per_gpu;
  double tp_overlap = -1;  // share of tensor-parallel traffic hidden (async TP: 1); negative: by source
};
// NVIDIA NeMo performance summary, container 24.12 (DGX-H100, FP8); MosaicML llm-foundry
// scripts/train/benchmarking/README.md (BF16, FSDP). Both as quoted in
// shared/validation/throughput-tables.md.
constexpr ThroughputRow throughput_rows[] = {
    {"NeMo 24.12", "gpt3-175b", "h100-sxm", 128, 4, 8, 1, 6, 2048, 256, "fp8", -1, 716},
    {"NeMo 24.12", "gpt3-175b", "h100-sxm", 512, 4, 8, 1, 6, 2048, 2048, "fp8", -1, 825},
    {"NeMo 24.12", "llama-2-7b", "h100-sxm", 8, 1, 1, 1, 1, 4096, 0, "fp8", -1, 16934},
    {"NeMo 24.12", "llama-2-70b", "h100-sxm", 64, 4, 4, 1, 20, 4096, 0, "fp8", -1, 1728},
    {"NeMo 24.12", "llama-3.1-8b", "h100-sxm", 8, 1, 1, 2, 1, 8192, 0, "fp8", -1, 12273},
    {"NeMo 24.12", "llama-3.1-70b", "h100-sxm", 64, 4, 4, 2, 5, 8192, 0, "fp8", -1, 1524},
    {"MosaicML", "mpt-70b", "h100-sxm", 64, 1, 1, 1, 1, 2048, 0, "bf16", 2, 1039},
    {"MosaicML", "mpt-70b", "a100-80gb", 64, 1, 1, 1, 1, 2048, 0, "bf16", 2, 410},
    {"MosaicML", "mpt-70b", "a100-40gb", 128, 1, 1, 1, 1, 2048, 0, "bf16", 2, 376},
    {"MosaicML", "mpt-30b", "h100-sxm", 32, 1, 1, 1, 1, 2048, 0, "bf16", 2, 2308},
    {"MosaicML", "mpt-30b", "a100-80gb", 8, 1, 1, 1, 1, 2048, 0, "bf16", 2, 916},
    {"MosaicML", "mpt-13b", "h100-sxm", 8, 1, 1, 1, 1, 2048, 0, "bf16", 0, 4792},
    {"MosaicML", "mpt-13b", "a100-80gb", 8, 1, 1, 1, 1, 2048, 0, "bf16", 0, 2262},
    {"MosaicML", "mpt-7b", "h100-sxm", 8, 1, 1, 1, 1, 2048, 0, "bf16", 0, 10643},
    {"MosaicML", "mpt-7b", "a100-80gb", 8, 1, 1, 1, 1, 2048, 0, "bf16", 0, 4641},
    {"MosaicML", "mpt-7b", "a100-40gb", 128, 1, 1, 1, 1, 2048, 0, "bf16", 2, 3623},
    {"MosaicML", "mpt-1b", "h100-sxm", 8, 1, 1, 1, 1, 2048, 0, "bf16", 0, 45455},
    {"MosaicML", "mpt-3b", "h100-sxm", 8, 1, 1, 1, 1, 2048, 0, "fp8", 0, 30586},
    {"MosaicML", "mpt-125m", "a100-80gb", 8, 1, 1, 1, 1, 2048, 0, "bf16", 0, 142830},
    {"MosaicML", "mpt-350m", "a100-80gb", 8, 1, 1, 1, 1, 2048, 0, "bf16", 0, 58782},
    {"MosaicML", "mpt-760m", "a100-80gb", 8, 1, 1, 1, 1, 2048, 0, "bf16", 0, 32434},
    {"MosaicML", "mpt-1b", "a100-80gb", 8, 1, 1, 1, 1, 2048, 0, "bf16", 0, 20513},
    {"MosaicML", "mpt-3b", "a100-80gb", 8, 1, 1, 1, 1, 2048, 0, "bf16", 0, 10811},
    {"MosaicML", "mpt-760m", "h100-sxm", 8, 1, 1, 1, 1, 2048, 0, "bf16", 0, 63147},
    // torchtitan docs/performance.md (pytorch/torchtitan at 0413364): FSDP2 on 64 A100 80GB, BF16,
    // local batch 1 (Llama 3, 8K tokens) or 2 (Llama 2, 4K), WPS per GPU; "selective" activation
    // checkpointing searched, "full" and "no" as published.
    {"torchtitan", "llama-3-8b", "a100-80gb", 64, 1, 1, 1, 1, 8192, 64, "bf16", -1, 2973},
    {"torchtitan", "llama-3-70b", "a100-80gb", 64, 1, 1, 1, 1, 8192, 64, "bf16", 2, 331},
    {"torchtitan", "llama-2-13b", "a100-80gb", 64, 1, 1, 1, 1, 4096, 128, "bf16", 0, 2162},
    {"torchtitan", "llama-2-70b", "a100-80gb", 64, 1, 1, 1, 1, 4096, 128, "bf16", 2, 353},
    // torchtitan docs/performance.md at eaea6f6 (benchmarks of 2024-12, torchtitan 9dec370): Grand
    // Teton H100 96GB HBM2e at their default 500 W limit (h100-sxm-96gb), Llama 3.1, FSDP2 in every
    // table. Tables 1 and 3: 8 and 128 GPUs, local batch 2 of 8K tokens, selective checkpointing,
    // plain FSDP (bf16) and FSDP + torch.compile + Float8 (fp8). Table 2: FSDP x CP on 8 GPUs at
    // 32K-262K tokens, local batch 1, full checkpointing, Float8. Table 4: 70B on 256 GPUs, FSDP 32
    // x TP 8, local batch 16, full, Float8, without and with async TP. Tables 5 and 6: 405B on 512
    // GPUs, TP 8 x PP 8, 1F1B, async TP, Float8, full; local batch 32 (Table 5) and 8 with CP at
    // 32K-262K (Table 6). torch.compile's fusions are not modelled; nothing was fitted on these rows.
    {"torchtitan H100 500 W", "llama-3.1-8b", "h100-sxm-96gb", 8, 1, 1, 1, 1, 8192, 16, "bf16", -1, 5762},
    {"torchtitan H100 500 W", "llama-3.1-8b", "h100-sxm-96gb", 8, 1, 1, 1, 1, 8192, 16, "fp8", -1, 8532},
    {"torchtitan H100 500 W", "llama-3.1-8b", "h100-sxm-96gb", 128, 1, 1, 1, 1, 8192, 256, "bf16", -1, 5605},
    {"torchtitan H100 500 W", "llama-3.1-8b", "h100-sxm-96gb", 128, 1, 1, 1, 1, 8192, 256, "fp8", -1, 8380},
    {"torchtitan H100 500 W", "llama-3.1-8b", "h100-sxm-96gb", 8, 1, 1, 1, 1, 32768, 8, "fp8", 2, 3890},
    {"torchtitan H100 500 W", "llama-3.1-8b", "h100-sxm-96gb", 8, 1, 1, 2, 1, 65536, 4, "fp8", 2, 2540},
    {"torchtitan H100 500 W", "llama-3.1-8b", "h100-sxm-96gb", 8, 1, 1, 4, 1, 131072, 2, "fp8", 2, 1071},
    {"torchtitan H100 500 W", "llama-3.1-8b", "h100-sxm-96gb", 8, 1, 1, 8, 1, 262144, 1, "fp8", 2, 548},
    {"torchtitan H100 500 W", "llama-3.1-70b", "h100-sxm-96gb", 256, 8, 1, 1, 1, 8192, 512, "fp8", 2, 829, 0},
    {"torchtitan H100 500 W", "llama-3.1-70b", "h100-sxm-96gb", 256, 8, 1, 1, 1, 8192, 512, "fp8", 2, 876, 1},
    {"torchtitan H100 500 W", "llama-3.1-405b", "h100-sxm-96gb", 512, 8, 8, 1, 1, 8192, 256, "fp8", 2, 100, 1},
    {"torchtitan H100 500 W", "llama-3.1-405b", "h100-sxm-96gb", 512, 8, 8, 1, 1, 32768, 64, "fp8", 2, 76, 1},
    {"torchtitan H100 500 W", "llama-3.1-405b", "h100-sxm-96gb", 512, 8, 8, 2, 1, 65536, 32, "fp8", 2, 47, 1},
    {"torchtitan H100 500 W", "llama-3.1-405b", "h100-sxm-96gb", 512, 8, 8, 4, 1, 131072, 16, "fp8", 2, 31, 1},
    {"torchtitan H100 500 W", "llama-3.1-405b", "h100-sxm-96gb", 512, 8, 8, 8, 1, 262144, 8, "fp8", 2, 16, 1},
    // Nemotron-4 340B Technical Report (NVIDIA 2024, arXiv 2406.11704) Table 2: BF16 on DGX H100,
    // TP 8 x PP 12 with interleaving, DP 16, 32 and 64, 4,096-token sequences, batch 768, 1536 and
    // 2304 at 10.3, 10.3 and 8.0 s an iteration (MFU 42.4%, 42.3%, 41.0% in the report); tokens/s/GPU
    // = batch x 4096 / (time x GPUs). Megatron-Core, assumed to hide TP traffic as NVIDIA's NeMo
    // recipes do (tp-overlap 1; the report does not say; chosen before running, and exposed TP
    // traffic would put the rows 2 pp slow where hidden puts them 4 pp fast).
    {"Nemotron-4 340B report", "nemotron-4-340b", "h100-sxm", 1536, 8, 12, 1, 0, 4096, 768, "bf16", -1, 198.8, 1},
    {"Nemotron-4 340B report", "nemotron-4-340b", "h100-sxm", 3072, 8, 12, 1, 0, 4096, 1536, "bf16", -1, 198.8, 1},
    {"Nemotron-4 340B report", "nemotron-4-340b", "h100-sxm", 6144, 8, 12, 1, 0, 4096, 2304, "bf16", -1, 192.0, 1},
    // The Llama 3 Herd of Models (Meta 2024, arXiv 2407.21783) Table 4: Llama 3 405B pre-training on
    // H100 80GB (700 W), BF16, TP 8 x PP 16, DP 64 and 128, 8,192-token sequences, 16M tokens a
    // batch (2,048 sequences), 430 and 400 TFLOP/s per GPU (43% and 41% BF16 MFU). Converted to
    // tokens/s/GPU under this section's 6N + 12 L s d (2.625e12 FLOPs a token): 163.8 and 152.4.
    // Meta's schedule interleaves stages (searched here) and its TP traffic is taken as exposed,
    // Megatron's default (chosen before running). The third row (CP 16 at 131K tokens) is left out:
    // its DP is printed as 4 where TP x CP x PP x DP must make 16,384.
    {"Llama 3 paper", "llama-3.1-405b", "h100-sxm", 8192, 8, 16, 1, 0, 8192, 2048, "bf16", -1, 163.8},
    {"Llama 3 paper", "llama-3.1-405b", "h100-sxm", 16384, 8, 16, 1, 0, 8192, 2048, "bf16", -1, 152.4},
    // Small models. TinyLlama's README (jzhang38/TinyLlama): 24k tokens/s per A100-40G for the 1.1B
    // model on 16 GPUs, FSDP, FlashAttention-2, fused kernels, no activation checkpointing, 2,048-token
    // sequences, 2M-token batches (3,456 GPU-hours for 300B tokens). nanoGPT's README (karpathy/
    // nanoGPT, "efficiency notes", Dec 2022): bench.py's GPT-2 124M loop, 12 sequences of 1,024 tokens,
    // bf16 and torch.compile, at 135 ms an iteration on one A100 (the 8 x A100 40GB node of its
    // README): 12,288 / 0.135 = 91,022 tokens/s. bench.py builds it without biases; the catalog's
    // GPT-2 has them (0.1M parameters).
    {"TinyLlama README", "tinyllama-1.1b", "a100-40gb", 16, 1, 1, 1, 1, 2048, 1024, "bf16", 0, 24000},
    {"nanoGPT README", "gpt2-124m", "a100-40gb", 1, 1, 1, 1, 1, 1024, 12, "bf16", 0, 91022},
    // nanochat (karpathy/nanochat, Oct 2025) on one 8 x H100 SXM node: torch.compile, PyTorch SDPA
    // attention, F.cross_entropy on upcast logits, Muon and AdamW sharded over the ranks, 2,048-
    // token sequences, 524,288 tokens (256 sequences) a step. d32 (1,879,048,192 parameters): the
    // base_train log quoted in run1000.sh (at 06a1977), 1,571.88 and 1,572.76 ms a step at micro-
    // batch 8 ("mfu: 50.9" under its 6N + 12Lsd): 524,288 / 1.57232 / 8 = 41,681 tokens/s a GPU.
    // d20 (560,988,160): the base_train log of nanochat's launch walkthrough (read in a copy of it),
    // 487.03 ms (the median of steps 3 to 13) at micro-batch 32: 134,563. Built by relu2_gpt() below.
    {"nanochat", "nanochat-d20", "h100-sxm", 8, 1, 1, 1, 1, 2048, 256, "bf16", 0, 134563},
    {"nanochat", "nanochat-d32", "h100-sxm", 8, 1, 1, 1, 1, 2048, 256, "bf16", 0, 41681},
    // A GPT-2 small speedrun on one A100 SXM4 80GB (ashrafs1/nanogpt model card on Hugging Face, and
    // its author's write-up, shehab-ashraf.github.io/posts/nanogpt, 2026): modded-nanogpt's
    // architecture at 12 x 768 (162.2M parameters, untied), 2,048-token sequences, 32 a micro-batch
    // and 8 accumulated (524,288 tokens a step), Muon; "~195,000 tokens/second" (its 1,500 steps,
    // 786M tokens, in about 78 minutes with compilation and evaluation: 168,000 on average).
    {"A100 speedrun card", "speedrun-124m", "a100-80gb", 1, 1, 1, 1, 1, 2048, 256, "bf16", 0, 195000},
};

// MPT shapes (width, heads, layers) as in llm-foundry's benchmarking yamls: GeLU MLP of 4x width,
// no biases, tied embeddings, vocabulary 50,368, ALiBi (no position embedding).
ModelArch mpt(const std::string& id) {
  struct Shape { const char* id; int hidden, heads, layers; };
  static constexpr Shape shapes[] = {{"mpt-125m", 768, 12, 12},  {"mpt-350m", 1024, 16, 24}, {"mpt-760m", 1536, 12, 24},
                                     {"mpt-1b", 2048, 16, 24}, {"mpt-3b", 2560, 20, 32}, {"mpt-7b", 4096, 32, 32},
                                     {"mpt-13b", 5120, 40, 40}, {"mpt-30b", 7168, 64, 48}, {"mpt-70b", 8192, 64, 80}};
  ModelArch m;
  for (const auto& sh : shapes)
    if (id == sh.id) m.hidden = sh.hidden, m.heads = sh.heads, m.layers = sh.layers;
  m.id = id;
  m.kv_heads = m.heads;
  m.head_dim = m.hidden / m.heads;
  m.ffn = 4 * m.hidden;
  m.vocab = 50368;
  m.activation = Activation::gelu;
  m.layernorm = true;
  m.tied_embeddings = true;
  m.max_context = 2048;
  return m;
}

// GPTs of the modded-nanogpt line (nanochat/gpt.py, Oct 2025; the A100 speedrun card's): an MLP of
// 4x width with relu^2 (two matrices, as GeLU's: the same GEMMs), rotary positions, parameter-
// free RMSNorm, no biases, untied embedding and output layer. nanochat: width 64 x depth in heads
// of 128, vocabulary 65,536; the speedrun card: GPT-2 small's 12 x 768 in heads of 64, 50,304.
ModelArch relu2_gpt(const std::string& id, int layers, int hidden, int head_dim, int vocab) {
  ModelArch m;
  m.id = id;
  m.layers = layers;
  m.hidden = hidden;
  m.head_dim = head_dim;
  m.heads = m.kv_heads = m.hidden / m.head_dim;
  m.ffn = 4 * m.hidden;
  m.vocab = vocab;
  m.activation = Activation::gelu;
  m.max_context = 2048;
  return m;
}

std::string throughput_section(const Catalog& cat, bool& ok) {
  std::string table = "| source | model | gpus | device | precision | layout found | measured MFU | predicted MFU | difference |\n"
                      "|---|---|---:|---|---|---|---:|---:|---:|\n";
  Summary sum;
  for (const auto& r : throughput_rows) {
    const std::string id = r.model;
    ModelArch m = id.rfind("mpt-", 0) == 0         ? mpt(id)
                  : id.rfind("nanochat-d", 0) == 0
                      ? relu2_gpt(id, std::stoi(id.substr(10)), 64 * std::stoi(id.substr(10)), 128, 65536)
                  : id == "speedrun-124m" ? relu2_gpt(id, 12, 768, 64, 50304)
                                                   : model_from_record(cat.get("models", id));
    StepModel sm = catalog_step_model(cat, m, r.gpu, r.seq, parse_precision(r.precision));
    // NeMo's H100 recipes overlap tensor-parallel communication with GEMMs (tp_comm_overlap,
    // userbuffers); Megatron's default, and llm-foundry's FSDP, do not.
    if (std::string(r.source).rfind("NeMo", 0) == 0) sm.settings.tp_overlap = 1;
    if (r.tp_overlap >= 0) sm.settings.tp_overlap = r.tp_overlap;
    // torchtitan rows as --framework torchtitan sets them: dp-overlap left at the step model's 0.5,
    // attention on PyTorch SDPA's FlashAttention-2 kernels.
    if (std::string(r.source).rfind("torchtitan", 0) == 0) sm.settings.train.flash2 = true;
    // Fused cross-entropy: NeMo's GPT configs (cross_entropy_loss_fusion), llm-foundry's default
    // loss_fn (fused_crossentropy, flash-attn's kernel), TinyLlama's README (flash-attn's fused
    // cross-entropy). nanoGPT and torchtitan call F.cross_entropy on upcast logits (unfused).
    const std::string src = r.source;
    sm.settings.train.fused_loss = src.rfind("NeMo", 0) == 0 || src == "MosaicML" || src == "TinyLlama README";
    // nanochat and the speedrun card as --framework compiled sets it, with SDPA's FlashAttention-2
    // (--attention flash2).
    if (src == "nanochat" || src == "A100 speedrun card") sm.settings.train.fused_kernels = sm.settings.train.flash2 = true;
    LayoutConstraints c;
    if (r.tp > 0) c.tp = r.tp;
    if (r.pp > 0) c.pp = r.pp;
    if (r.cp > 0) c.cp = r.cp;
    if (r.vp > 0) c.interleave = r.vp;
    if (r.global_batch > 0) c.global_batch = r.global_batch;
    if (r.recompute == 0) c.recompute = Recompute::none;
    if (r.recompute == 2) c.recompute = Recompute::full;
    // FSDP full sharding (llm-foundry's FULL_SHARD; torchtitan's FSDP2 over the data-parallel
    // ranks in every layout), whose fp32 shards are the master weights (--framework fsdp)
    if ((r.tp == 1 && r.pp == 1 && (std::string(r.source) == "MosaicML" || std::string(r.source) == "TinyLlama README")) ||
        std::string(r.source).rfind("torchtitan", 0) == 0)
      c.zero = 3, sm.settings.train.fp32_shards = true;
    SearchResult res = search_layouts(sm, r.gpus, c, 4.0 * 1024 * 1024, 1);
    // The datasheet peak, as the tool's MFU uses (under a power limit too).
    const double peak = sm.device.peak_for(sm.settings.compute_dtype).value() / sm.device.clock_scale;
    const double per_token = model_flops_per_token(m, sm.params, r.seq);
    const double measured = r.tokens_per_s_per_gpu * per_token / peak;
    if (res.top.empty()) {
      table += fmt::format("| {} | {} | {} | {} | {} | none fits | {:.1f}% | - | - |\n", r.source, r.model, r.gpus, r.gpu,
                           r.precision, 100 * measured);
      ok = false;
      continue;
    }
    const Candidate& best = res.top.front();
    const double predicted = best.tokens_per_s / r.gpus * per_token / peak;
    const double diff = predicted - measured;
    sum.errors.push_back(std::fabs(diff));
    add_to_corpus(r.source, m, sm.device, predicted / measured - 1, r.seq, sm.settings.precision);
    const Layout& l = best.layout;
    table += fmt::format("| {} | {} | {} | {} | {} | tp{} pp{} cp{} v{} zero{} {} mb{} gb{} | {:.1f}% | {:.1f}% | {:+.1f} pp |\n",
                         r.source, r.model, r.gpus, r.gpu, r.precision, l.tp, l.pp, l.cp, l.interleave, l.zero,
                         recompute_text(l), l.micro_batch, l.global_batch, 100 * measured, 100 * predicted, 100 * diff);
  }
  const long within = std::count_if(sum.errors.begin(), sum.errors.end(), [](double e) { return e <= 0.05; });
  std::printf("throughput: cases %zu median %.1f pp max %.1f pp, %ld within 5 pp\n", sum.errors.size(), 100 * sum.median(),
              100 * sum.max(), within);
  ok = ok && sum.median() <= 0.05;
  return fmt::format("## Training throughput tables (MFU, 6N + 12 L s d over the dense peak of the precision)\n\n"
                     "Measured MFU is the published tokens/s/GPU under the same FLOP convention. {} cases; median "
                     "difference {:.1f} pp, max {:.1f} pp; {} within 5 pp (target: MFU within 5 pp, met by the median).\n\n"
                     "The search may pick any ZeRO stage, recomputation and micro-batch under the published tp/pp/cp/vp "
                     "(and FSDP for MosaicML and torchtitan). NeMo rows hide tensor-parallel communication behind GEMMs "
                     "(tp-overlap 1, as NeMo's tp_comm_overlap); torchtitan's async-TP rows likewise. FP8 rows pay "
                     "Transformer Engine's quantisation of every GEMM input (read 16 bits, write row- and column-wise "
                     "FP8 copies) and keep the output layer in 16 bits; with those the NeMo FP8 rows are within 3 pp. "
                     "The loss pays its logits' memory traffic, fused (6 bytes a logit) for NeMo, MosaicML "
                     "(llm-foundry's fused_crossentropy) and TinyLlama (flash-attn's kernel), unfused (36, PyTorch's "
                     "fp32 path) for nanoGPT and torchtitan: it moved nanoGPT's GPT-2 124M (vocabulary 50,304 against "
                     "a width of 768) from 12.6% fast to 1.2%. The byte counts follow the kernels' reads and writes, "
                     "not a fit, but the term was added after seeing that row. "
                     "The torchtitan H100 rows run "
                     "at the boards' default 500 W limit (h100-sxm-96gb: compute clock x0.795 by the voltage-floor "
                     "estimate, 96GB HBM2e at 2.4 TB/s), their MFU over the datasheet peak, with attention on PyTorch "
                     "SDPA's FlashAttention-2 kernels (35% of peak on Hopper, as --framework torchtitan sets it): the 8K "
                     "FSDP rows within 2.5 pp (plain FSDP at 33.7% measured, as torchtitan's '33% to 39%' says), 70B "
                     "and 405B within 3.8 pp, and long context fast by up to 5.1 pp as the ring grows (Llama 3.1 8B at "
                     "262K with cp 8: 12.7% measured, 17.8% modelled). "
                     "nanochat's two runs on an H100 node (torch.compile) are modelled as --framework compiled sets "
                     "them, with SDPA's FlashAttention-2: fused element-wise kernels leave the GEMMs only their own "
                     "depth cost, fitted on XLA's measured sm_90 GEMM table and on nothing here (step.cpp). With "
                     "Megatron's depth term they came out 40% (d20, 1,280 wide) and 27% (d32, 2,048 wide) slow. "
                     "On an A100 the fused depth is an estimate (Hopper's scaled by the tensor rate per SM; no "
                     "measured sm_80 table), added with a GPT-2-small speedrun on one A100 as its check (modelled "
                     "8.9% slow); before it, compiled trainers on an A100 ran at Megatron's rates (that row: 54% "
                     "slow). nanoGPT's December 2022 bench (a PyTorch 2.0 nightly, before its flash-attention "
                     "path) keeps Megatron's rates here: as --framework compiled sets it, the model gives 42-44% "
                     "MFU against its 25.1%, so that row says fused rates describe current compilers and hand-"
                     "written trainers, not early torch.compile. llm-foundry's own A100 table (FSDP, Triton "
                     "flash attention, no compiler) from 125M to 3B runs 7-18% faster than Megatron's rates give, "
                     "the gap growing as the width falls (125M: 44.3% measured, 36.5% modelled); those rows are "
                     "modelled as llm-foundry runs, unfused. "
                     "torchtitan's FP8 rows also run torch.compile; modelled as fused they come out fast (the "
                     "torchtitan H100 median 8.1% becomes 17.9%), so they are left as they were: Float8's per-tensor "
                     "scaling and FSDP's gathers keep work that the fused BF16 path of nanochat does not have. "
                     "The same rows, as errors of tokens/s, are part of the training corpus above.\n\n{}\n",
                     sum.errors.size(), 100 * sum.median(), 100 * sum.max(), within, table);
}

// ---- 3. llama.cpp single-stream decode.
struct DecodeRow {
  const char* source;
  const char* model;
  const char* quant;
  const char* gpu;
  int gpus;          // layer split across this many devices
  int tokens;        // tg128 or tg512: the mean context is half of it
  double measured;   // tokens/s
  bool fitted;       // the decode constants were fitted on this row (in-sample)
  bool current;      // a build from Aug 2024 on, what the constants model (older: reported)
  bool logits = true;  // false: pp512 at one token per micro-batch, where only the last token's logits are computed
  double file_gib = 0;  // the GGUF's size where its mix is not the named format's alone: its bits per weight
};
// Current builds: llama.cpp pull requests' llama-bench tables (JohannesGaessler's, at -ub 1),
// issue #6763 and PR #6766 (NVIDIA's CUDA graphs, Apr 2024, with graphs on), and ariya's
// llama-bench run (dmatora/LLM-inference-speed-benchmarks issue #12, Aug 2024, build 3622), and
// ggml-org's own DGX Spark table (llama.cpp benches/dgx-spark.md, Nov 2025).
// Older builds: inference.md 5.1 (XiongjieDai llama.cpp README, Dec 2023, Llama-2, tg128) and 5.2
// (May 2024, Llama-3, tg512); the HBM and Apple constants come from the first. f16 runs as fp16.
constexpr DecodeRow decode_rows[] = {
    {"PR 15131, 2025-08", "llama-3.1-8b", "bf16", "rtx-4090", 1, 512, 65.21, true, true, false},
    {"PR 24216, 2026", "llama-3.2-1b", "bf16", "rtx-5090", 1, 512, 652.28, true, true, false},
    {"PR 15802, 2025-09", "llama-3.1-8b", "q4_0", "rtx-3090", 1, 512, 155.02, true, true, false},
    {"issue 6763, 2024-04", "llama-2-7b", "q4_k_m", "h100-pcie", 1, 128, 163.83, true, true},
    {"ariya, 2024-08", "llama-3.1-8b", "q4_k_m", "rtx-3080", 1, 128, 111.95, false, true},
    // ggml-org's DGX Spark runs (benches/dgx-spark.md, build 6918, Nov 2025; tg32), ggml-org's GGUFs:
    // gpt-oss in MXFP4 with Q8_0 elsewhere, Qwen2.5-Coder-7B (Qwen2.5-7B's shapes) in Q8_0, Gemma 3 4B
    // QAT in Q4_0 with its tied embedding (which every token's logits read) in a wider format: its file's
    // 2.35 GiB over 3.88B parameters, 5.2 bits each, where Q4_0 alone would be 2.03 GiB.
    {"dgx-spark.md, 2025-11", "gpt-oss-20b", "mxfp4", "dgx-spark", 1, 32, 84.10, false, true},
    {"dgx-spark.md, 2025-11", "gpt-oss-120b", "mxfp4", "dgx-spark", 1, 32, 59.02, false, true},
    {"dgx-spark.md, 2025-11", "qwen3-30b-a3b", "q8_0", "dgx-spark", 1, 32, 60.92, false, true},
    {"dgx-spark.md, 2025-11", "qwen2.5-7b", "q8_0", "dgx-spark", 1, 32, 29.30, false, true},
    {"dgx-spark.md, 2025-11", "gemma-3-4b", "q4_0", "dgx-spark", 1, 32, 78.97, false, true, true, 2.35},
    {"PR 6766, 2024-04", "llama-2-7b", "q4_0", "rtx-3090", 1, 128, 128.27, false, false},
    {"PR 6766, 2024-04", "llama-2-7b", "q4_0", "rtx-4090", 1, 128, 146.81, false, false},
    {"5.1", "llama-2-7b", "q4_0", "rtx-4090", 1, 128, 149.4, false, false},
    {"5.1", "llama-2-7b", "fp16", "rtx-4090", 1, 128, 60.8, false, false},
    {"5.1", "llama-2-13b", "q4_0", "rtx-4090", 1, 128, 88.9, false, false},
    {"5.1", "llama-2-7b", "q4_0", "rtx-3090", 1, 128, 120.6, false, false},
    {"5.1", "llama-2-7b", "fp16", "rtx-3090", 1, 128, 51.9, false, false},
    {"5.1", "llama-2-13b", "q4_0", "rtx-3090", 1, 128, 75.0, false, false},
    {"5.1", "llama-2-7b", "q4_0", "a100-80gb", 1, 128, 136.2, true, false},
    {"5.1", "llama-2-7b", "fp16", "a100-80gb", 1, 128, 73.8, true, false},
    {"5.1", "llama-2-70b", "q4_0", "a100-80gb", 1, 128, 25.7, true, false},
    {"5.1", "llama-2-7b", "q4_0", "h100-pcie", 1, 128, 133.8, true, false},
    {"5.1", "llama-2-7b", "fp16", "h100-pcie", 1, 128, 83.3, true, false},
    {"5.1", "llama-2-70b", "q4_0", "h100-pcie", 1, 128, 25.9, true, false},
    {"5.1", "llama-2-7b", "q4_0", "apple-m2-ultra", 1, 128, 91.9, true, false},
    {"5.1", "llama-2-7b", "fp16", "apple-m2-ultra", 1, 128, 40.7, true, false},
    {"5.1", "llama-2-70b", "q4_0", "apple-m2-ultra", 1, 128, 14.4, true, false},
    {"5.1", "llama-2-7b", "q4_0", "apple-m3-max", 1, 128, 63.1, false, false},
    {"5.1", "llama-2-7b", "fp16", "apple-m3-max", 1, 128, 24.8, false, false},
    {"5.2", "llama-3.1-8b", "q4_k_m", "rtx-3090", 1, 512, 115.4, false, false},
    {"5.2", "llama-3.1-8b", "fp16", "rtx-3090", 1, 512, 47.4, false, false},
    {"5.2", "llama-3.1-8b", "q4_k_m", "rtx-4090", 1, 512, 130.6, false, false},
    {"5.2", "llama-3.1-8b", "fp16", "rtx-4090", 1, 512, 54.8, false, false},
    {"5.2", "llama-3.1-8b", "q4_k_m", "rtx-4090", 2, 512, 124.7, false, false},
    {"5.2", "llama-3.1-8b", "q4_k_m", "rtx-4090", 4, 512, 120.3, false, false},
    {"5.2", "llama-3.1-70b", "q4_k_m", "rtx-4090", 2, 512, 19.2, false, false},
    {"5.2", "llama-3.1-70b", "q4_k_m", "rtx-4090", 4, 512, 19.8, false, false},
    {"5.2", "llama-3.1-70b", "q4_k_m", "rtx-4090", 8, 512, 18.9, false, false},
    {"5.2", "llama-3.1-70b", "fp16", "rtx-4090", 8, 512, 6.5, false, false},
    {"5.2", "llama-3.1-70b", "q4_k_m", "rtx-3090", 2, 512, 16.6, false, false},
    {"5.2", "llama-3.1-8b", "q4_k_m", "apple-m2-ultra", 1, 512, 78.8, false, false},
    {"5.2", "llama-3.1-8b", "fp16", "apple-m2-ultra", 1, 512, 36.9, false, false},
    {"5.2", "llama-3.1-70b", "q4_k_m", "apple-m2-ultra", 1, 512, 12.5, false, false},
    {"5.2", "llama-3.1-70b", "fp16", "apple-m2-ultra", 1, 512, 4.8, false, false},
    {"5.2", "llama-3.1-8b", "q4_k_m", "apple-m3-max", 1, 512, 49.0, false, false},
    {"5.2", "llama-3.1-8b", "fp16", "apple-m3-max", 1, 512, 22.0, false, false},
    {"5.2", "llama-3.1-70b", "q4_k_m", "apple-m3-max", 1, 512, 7.7, false, false},
};

// ---- llama.cpp prompt processing: llama-bench's ppN with 512-token micro-batches (-ub 512, the
// default), Llama 3 8B ("llama 8B", the shapes of llama-3.1-8b) in GGUF block formats on GeForce
// cards, from the tables of ggml-org/llama.cpp pull requests (the PR's own column). llama.cpp runs
// these formats' matrix products as its MMQ kernels on int8 tensor cores; the model prices them at
// the int8 rate under mmq_ceiling, fitted on the row marked fit. Current builds are in the serving
// corpus; the 2024 builds, before later MMQ work, are reported.
struct PrefillRow {
  const char* source;
  bool current, fitted;
  const char* gpu;
  const char* quant;
  int tokens;
  double measured;  // tokens/s
  const char* model = "llama-3.1-8b";
  int ubatch = 512;  // llama-bench's -ub
};
constexpr PrefillRow prefill_rows[] = {
    {"PR 22298 (2026)", true, true, "rtx-4090", "q5_1", 2048, 11330.23},
    {"PR 24127 (2026)", true, false, "rtx-5090", "iq4_nl", 512, 14925.08},
    {"PR 7676 (Jun 2024)", false, false, "rtx-4090", "q4_0", 512, 10358.75},
    {"PR 7676 (Jun 2024)", false, false, "rtx-3090", "q5_0", 512, 3654.78},
    {"PR 7676 (Jun 2024)", false, false, "rtx-3090", "q5_1", 512, 3493.64},
    {"PR 8062 (Jun 2024)", false, false, "rtx-4090", "q5_0", 2048, 10491.78},
    {"PR 8062 (Jun 2024)", false, false, "rtx-4090", "q5_1", 2048, 9783.51},
    // ggml-org's DGX Spark runs (benches/dgx-spark.md, build 6918, Nov 2025): pp2048 at -ub 2048,
    // ggml-org's GGUFs (gpt-oss in MXFP4 with Q8_0 elsewhere; Qwen2.5-Coder-7B has Qwen2.5-7B's shapes).
    {"dgx-spark.md (Nov 2025)", true, false, "dgx-spark", "mxfp4", 2048, 3782.76, "gpt-oss-20b", 2048},
    {"dgx-spark.md (Nov 2025)", true, false, "dgx-spark", "mxfp4", 2048, 1937.54, "gpt-oss-120b", 2048},
    {"dgx-spark.md (Nov 2025)", true, false, "dgx-spark", "q8_0", 2048, 3175.62, "qwen3-30b-a3b", 2048},
    {"dgx-spark.md (Nov 2025)", true, false, "dgx-spark", "q8_0", 2048, 2276.28, "qwen2.5-7b", 2048},
    {"dgx-spark.md (Nov 2025)", true, false, "dgx-spark", "q4_0", 2048, 5713.05, "gemma-3-4b", 2048},
};

std::string prefill_section(const Catalog& cat, Summary& serving) {
  std::string table = "| source | build | model | quant | device | prompt | measured tok/s | predicted tok/s | error |\n"
                      "|---|---|---|---|---|---:|---:|---:|---:|\n";
  Summary current, older, spark;
  for (const auto& r : prefill_rows) {
    const ModelArch m = model_from_record(cat.get("models", r.model));
    const ParamCounts pc = count_params(m);
    const Device d = resolve_device(cat, r.gpu);
    InferSettings s;
    s.runtime = Runtime::llama_cpp;
    s.context = r.tokens;
    s.ubatch = r.ubatch;
    set_quant(s, r.quant, m, d);
    const InferModel im = make_infer_model(m, pc, d, resolve_host(no_flags(), cat, d), s);
    const double predicted = r.tokens / prefill_time(im, r.tokens, 1).value();
    const double err = predicted / r.measured - 1;
    if (r.current && !r.fitted) {
      (d.memory_type == "gddr" ? current : spark).errors.push_back(std::fabs(err));
      serving.errors.push_back(std::fabs(err));
    } else if (!r.current) {
      older.errors.push_back(std::fabs(err));
    }
    table += fmt::format("| {}{} | {} | {} | {} | {} | {} | {:.0f} | {:.0f} | {:+.1f}% |\n", r.source,
                         r.fitted ? " (fit)" : "", r.current ? "current" : "older", r.model, r.quant, r.gpu, r.tokens,
                         r.measured, predicted, 100 * err);
  }
  std::printf("prefill: current out of sample %zu cases max %.1f%%; older builds %zu cases median %.1f%%\n",
              current.errors.size(), 100 * current.max(), older.errors.size(), 100 * older.median());
  return fmt::format(
      "## llama.cpp prompt processing (batch-1 TTFT; part of the serving corpus)\n\n"
      "llama-bench's prompt processing of Llama 3 8B in GGUF block formats on GeForce cards, 512-token micro-batches, "
      "as llama.cpp pull requests measured it. The quantised matrix products run as MMQ kernels on int8 tensor cores: "
      "the model prices them at the int8 rate on the training model's GEMM curve at 512 rows, under a ceiling of "
      "{:.2f} fitted on the 2026 RTX 4090 row (marked fit), with flash attention in 16 bits and the output projection "
      "for the last position alone. Out of sample, the current RTX 5090 row: {:.1f}% (its INT8 rate an estimate from "
      "NVIDIA's AI TOPS). The June 2024 builds, the first with int8 MMQ, are reported: median {:.1f}% over {} rows, fast "
      "by what MMQ gained since (PR 8062 alone took the 4090's Q5_1 from 7,516 to 9,784 tokens/s). Before this, the "
      "model priced these products on the 16-bit curve: 5,756 tokens/s for the 4090's Q4_0 at 512 tokens, 56% of "
      "June 2024's 10,359. DGX Spark's five rows (ggml-org's own runs at 2,048-token micro-batches, `--ubatch 2048`; "
      "the GB10's LPDDR is not GDDR, so the model keeps its products on the 16-bit curve): median {:.0f}%, max {:.0f}%, "
      "out of sample. Its tensor BF16 rate is an estimate (2x the 31 TFLOP/s FP32 NVIDIA gave at Hot Chips, as for the "
      "GeForce Blackwell cards): the halving from FP4 used before, 125 TFLOP/s, put these rows 45-108% fast. gpt-oss-120b "
      "(128 experts, 64 rows an expert a micro-batch) stays the fastest and Gemma 3 4B (262k-word vocabulary, a "
      "width of 2,560) the slowest.\n\n{}\n",
      mmq_ceiling, 100 * current.max(), 100 * older.median(), older.errors.size(), 100 * spark.median(),
      100 * spark.max(), table);
}

std::string decode_section(const Catalog& cat, bool& ok, Summary& serving) {
  std::string table = "| source | build | model | quant | device | devices | measured tok/s | predicted tok/s | error |\n"
                      "|---|---|---|---|---|---:|---:|---:|---:|\n";
  Summary current, out_sample, older, older_hbm_apple;
  for (const auto& r : decode_rows) {
    ModelArch m = model_from_record(cat.get("models", r.model));
    ParamCounts pc = count_params(m);
    if (!r.logits) pc.head = 0;
    Device d = resolve_device(cat, r.gpu);
    InferSettings s;
    s.runtime = Runtime::llama_cpp;
    set_quant(s, r.quant, m, d);  // a native mix (gpt-oss) as llama.cpp's GGUF of it stores it
    if (r.file_gib > 0) s.bpw = r.file_gib * 1024 * 1024 * 1024 * 8 / count_params(m).total;
    s.tp = r.gpus;
    s.context = r.tokens;
    Device host = resolve_host(no_flags(), cat, d);
    InferModel im = make_infer_model(m, pc, d, host, s);
    const double predicted = 1 / decode_step_time(im, 1, r.tokens / 2.0).value();
    const double err = predicted / r.measured - 1;
    if (r.current) {
      current.errors.push_back(std::fabs(err));
      if (!r.fitted) out_sample.errors.push_back(std::fabs(err));
      serving.errors.push_back(std::fabs(err));
    } else {
      older.errors.push_back(std::fabs(err));
      // The HBM and Apple constants are still those of the older builds: their rows stay in the corpus.
      if (d.memory_type != "gddr") {
        older_hbm_apple.errors.push_back(std::fabs(err));
        serving.errors.push_back(std::fabs(err));
      }
    }
    table += fmt::format("| {}{}{} | {} | {} | {} | {} | {} | {:.1f} | {:.1f} | {:+.1f}% |\n", r.source, r.fitted ? " (fit)" : "",
                         r.logits ? "" : " (-ub 1)", r.current ? "current" : "older", r.model, r.quant, r.gpu, r.gpus,
                         r.measured, predicted, 100 * err);
  }
  std::printf("decode: current builds %zu cases median %.1f%% max %.1f%% (out of sample median %.1f%% max %.1f%%); older "
              "builds %zu cases median %.1f%% (HBM and Apple %zu, median %.1f%% max %.1f%%)\n",
              current.errors.size(), 100 * current.median(), 100 * current.max(), 100 * out_sample.median(),
              100 * out_sample.max(), older.errors.size(), 100 * older.median(), older_hbm_apple.errors.size(),
              100 * older_hbm_apple.median(), 100 * older_hbm_apple.max());
  ok = ok && current.max() <= 0.20 && older_hbm_apple.max() <= 0.20;
  return fmt::format(
      "## llama.cpp single-stream decode (current builds; inference.md 5.1 and 5.2 for older ones)\n\n"
      "The GDDR constants are a two-term fit to three 2025-26 CUDA runs (marked fit), whose llama-bench tests ran one "
      "token per micro-batch (-ub 1), so that only the last token's logits were computed (the model leaves out the "
      "output projection for them); the HBM constants are the Dec 2023 fits less CUDA graphs' measured saving (issue "
      "6763, marked fit), the Apple ones the Dec 2023 M2 Ultra fit; DGX Spark's unified LPDDR behind CUDA takes the "
      "Apple streaming share with CUDA's per-layer cost, no constant of its own (its five rows are out of sample). "
      "Current builds (Aug 2024 on): {} "
      "cases, median absolute error {:.1f}%, max {:.1f}%; out of sample median {:.1f}%, max {:.1f}% (target: every "
      "current case within 20%). The older builds' GDDR rows are reported, not a target: today's constants put them "
      "fast, by what the builds gained since (median {:.1f}% over all {} older rows). Even the first builds with CUDA "
      "graphs (PR 6766, Apr 2024) ran Q4_0 19-28% slower than the 2025 fit; the quantised kernels' work after them "
      "is what it captures. Their HBM and Apple rows ({}, "
      "median {:.1f}%, max {:.1f}%) stay in the target and the corpus, their constants being those builds'. Llama 3 "
      "runs use the Llama 3.1 architecture (same shapes).\n\n{}\n",
      current.errors.size(), 100 * current.median(), 100 * current.max(), 100 * out_sample.median(),
      100 * out_sample.max(), 100 * older.median(), older.errors.size(), older_hbm_apple.errors.size(),
      100 * older_hbm_apple.median(), 100 * older_hbm_apple.max(), table);
}

// ---- 4. Published training runs: GPU-hours as reported, against `gpuplan train` with the published
// device count and token budget and every other setting at its default (goodput derived from
// failures, checkpoints and restarts included).
// Reported, not gated: published totals include restarts, evaluation and framework choices the
// flags do not describe.
struct RunRow {
  const char* name;
  const char* settings;  // flags, as on the command line
  double gpu_hours;
  const char* source;
};
constexpr RunRow run_rows[] = {
    {"Llama 3.1 405B", "model=llama-3.1-405b gpu=h100-sxm gpus=16384 tokens=15.6T", 30.84e6,
     "Llama 3.1 model card (30.84M H100 hours); 16,384 GPUs per the Llama 3 paper"},
    {"Falcon 180B", "model=falcon-180b gpu=a100-40gb gpus=4096 tokens=3.5T", 7.0e6,
     "Falcon series paper (arXiv 2311.16867): about 7M A100-40GB hours on up to 4,096 GPUs"},
    // BLOOM's run as published (BLOOM paper, arXiv 2211.05100, section 3.4; the BigScience tr11
    // training README): TP 4, PP 12, DP 8, micro-batch 2, global batch 2048, ZeRO-1, every layer
    // recomputed, Megatron-DeepSpeed of 2022 without flash attention or sequence parallelism.
    {"BLOOM 176B",
     "model=bloom-176b gpu=a100-80gb gpus=384 tokens=366B tp=4 pp=12 dp=8 micro-batch=2 global-batch=2048 zero=1 "
     "recompute=full attention=eager sequence-parallel=false framework=megatron",
     1082990, "Luccioni et al. 2022 (arXiv 2211.02001): 1,082,990 A100 hours on 384 GPUs; layout as published"},
    // StarCoderBase (Li et al. 2023, arXiv 2305.06161, section 5.6): 1T tokens of 8,192 on 512 A100
    // 80GB with Megatron-LM, TP 4 x PP 4 (16 GPUs a replica), batches of 4M tokens; the
    // bigcode/starcoder model card gives 320,256 GPU hours of pre-training (24 days on 512 GPUs
    // would be 294,912).
    {"StarCoderBase 15.5B", "model=starcoder-15b gpu=a100-80gb gpus=512 tokens=1T seq-len=8192 tp=4 pp=4", 320256,
     "bigcode/starcoder model card (512 A100, 320,256 GPU hours); StarCoder paper (arXiv 2305.06161): 1T tokens, TP 4 x PP 4"},
    {"DeepSeek-V3 (DualPipe)", "model=deepseek-v3 gpu=h800 gpus=2048 tokens=14.8T precision=fp8 pipeline-schedule=dualpipe", 2.664e6,
     "DeepSeek-V3 report (arXiv 2412.19437) Table 1: 2,664K H800 hours of pre-training on 2,048 GPUs"},
};

// ---- Serving throughput: TensorRT-LLM's performance overview (NVIDIA/TensorRT-LLM
// docs/source/performance/perf-overview.md at 00f3768, trtllm-bench throughput, PyTorch backend:
// requests of fixed ISL/OSL queued at once, total output tokens/s of one TP group). Weights from
// NVIDIA's ModelOpt checkpoints (FP8 on Hopper, NVFP4 on B200); Llama 3.3 70B has Llama 3.1 70B's
// shapes. Every published column of a GPU this catalog has, at the table's TP (the document's MoE
// options also name attention data parallelism and an EP size, but nest them where the runtime
// would not read them and give no EP; the rows are run as tensor parallelism, as their headers say).
// The same deployment as `gpuplan infer --gpus TP --tp TP --quant Q --runtime tensorrt-llm`.
constexpr const char* perf_sequences[] = {"128/128",   "128/2048", "128/4096", "500/2000", "1000/1000",
                                          "1000/2000", "2048/128", "2048/2048", "5000/500", "20000/2000"};
struct PerfColumn {
  const char* model;
  const char* gpu;
  int tp, pp;
  const char* quant;
  bool moe;
  double tokens_per_s[10];  // by perf_sequences; 0: not published
};
constexpr PerfColumn perf_columns[] = {
    {"llama-3.1-8b", "h100-sxm", 1, 1, "fp8", false, {28312, 22714, 14325, 17660, 15220, 13899, 3450, 9305, 3459, 1351}},
    {"llama-3.1-8b", "h200", 1, 1, "fp8", false, {27911, 26221, 18027, 20770, 17744, 16828, 3538, 12194, 3902, 1804}},
    {"llama-3.1-70b", "h100-sxm", 2, 1, "fp8", false, {6378, 6651, 4199, 5222, 4205, 4146, 762, 3082, 898, 437}},
    {"llama-3.1-70b", "h200", 1, 1, "fp8", false, {3803, 4336, 2872, 3666, 2909, 2994, 442, 2003, 566, 283}},
    {"llama-3.1-405b", "h100-sxm", 8, 1, "fp8", false, {3627, 4340, 3116, 3994, 2919, 2895, 453, 2296, 610, 345}},
    {"llama-3.1-405b", "h200", 8, 1, "fp8", false, {3814, 5348, 4741, 4724, 3330, 3722, 456, 2948, 650, 505}},
    {"llama-3.1-70b", "b200", 1, 1, "nvfp4", false, {11147, 9922, 6831, 7762, 7007, 6271, 1339, 4783, 1459, 665}},
    {"llama-3.1-405b", "b200", 4, 1, "nvfp4", false, {6281, 8020, 6345, 6244, 5209, 4933, 749, 4212, 1048, 672}},
    {"llama-4-scout", "h100-sxm", 4, 1, "fp8", true, {0, 15130, 8603, 12399, 12129, 9838, 3253, 7972, 3342, 0}},
    {"llama-4-scout", "h200", 4, 1, "fp8", true, {30354, 34316, 21332, 24630, 21636, 18499, 3699, 14949, 4605, 2105}},
    {"llama-4-scout", "b200", 1, 1, "nvfp4", true, {25342, 14699, 8932, 11977, 10591, 9356, 3137, 7152, 2937, 1644}},
    {"llama-4-maverick", "h100-sxm", 8, 1, "fp8", true, {0, 10829, 6744, 10108, 9677, 9151, 0, 6916, 3457, 0}},
    {"llama-4-maverick", "h200", 8, 1, "fp8", true, {63994, 40572, 24616, 37835, 31782, 34734, 7307, 20957, 8456, 4106}},
    {"llama-4-maverick", "b200", 8, 1, "nvfp4", true, {124323, 112676, 68170, 0, 79617, 63766, 18088, 52195, 0, 12678}},
    {"qwen3-235b-a22b", "h100-sxm", 8, 1, "fp8", true, {0, 19658, 12447, 18351, 14898, 15136, 0, 9924, 3225, 0}},
    {"qwen3-235b-a22b", "h200", 8, 1, "fp8", true, {30429, 42821, 26852, 28026, 23789, 22061, 3331, 16672, 3623, 1876}},
    {"qwen3-235b-a22b", "b200", 8, 1, "nvfp4", true, {63362, 66057, 39496, 57117, 42391, 34105, 7329, 26854, 8190, 4453}},
    {"qwen3-30b-a3b", "b200", 1, 1, "nvfp4", true, {39827, 37844, 24953, 27817, 25828, 22051, 6251, 17554, 6142, 2944}},
    // RTX PRO 6000 Blackwell Server Edition (its own tables: TP x PP over PCIe, NVFP4).
    {"llama-3.1-70b", "rtx-pro-6000", 1, 1, "nvfp4", false, {3264, 2422, 1349, 1856, 1787, 1594, 393, 1074, 401, 142}},
    {"llama-3.1-70b", "rtx-pro-6000", 1, 2, "nvfp4", false, {6172, 4993, 2893, 4114, 3707, 2993, 813, 2336, 812, 319}},
    {"llama-3.1-70b", "rtx-pro-6000", 1, 4, "nvfp4", false, {9641, 7922, 4978, 6939, 5961, 5274, 1511, 3870, 1511, 630}},
    {"llama-3.1-70b", "rtx-pro-6000", 1, 8, "nvfp4", false, {11881, 9833, 7352, 9435, 8166, 6943, 2495, 6078, 2491, 1148}},
    {"qwen3-30b-a3b", "rtx-pro-6000", 1, 1, "nvfp4", true, {28011, 12540, 7491, 10695, 9910, 8378, 3257, 5908, 2530, 871}},
    {"qwen3-30b-a3b", "rtx-pro-6000", 2, 1, "nvfp4", true, {32646, 22744, 15049, 17266, 16431, 13323, 3785, 10679, 3799, 1558}},
    {"qwen3-30b-a3b", "rtx-pro-6000", 4, 1, "nvfp4", true, {36819, 35715, 28139, 26175, 24046, 25131, 4311, 18134, 5212, 2551}},
    {"qwen3-30b-a3b", "rtx-pro-6000", 8, 1, "nvfp4", true, {39490, 52676, 33895, 44088, 31785, 28881, 4798, 22391, 5965, 0}},
};

// A scenario from settings as the command line names them, applied in order.
Scenario scenario_of(std::initializer_list<std::pair<const char*, std::string>> settings) {
  Scenario sc;
  for (const auto& [key, value] : settings) apply_setting(sc, key, value);
  return sc;
}

// A scenario from settings written key=value, space-separated: "model=gpt3-175b gpus=4096 ...".
Scenario scenario_of(const std::string& settings) {
  Scenario sc;
  std::stringstream ss(settings);
  std::string kv;
  while (ss >> kv) apply_setting(sc, kv.substr(0, kv.find('=')), kv.substr(kv.find('=') + 1));
  return sc;
}

double perf_prediction(const Catalog& cat, const PerfColumn& c, const char* runtime, std::string_view isl,
                       std::string_view osl) {
  const Scenario sc = scenario_of({{"model", c.model}, {"gpu", c.gpu}, {"gpus", std::to_string(c.tp * c.pp)},
                                   {"tp", std::to_string(c.tp)}, {"pp", std::to_string(c.pp)}, {"quant", c.quant},
                                   {"runtime", runtime}, {"prompt-tokens", std::string(isl)},
                                   {"output-tokens", std::string(osl)}});
  return run_infer(cat, sc, RunOptions{}).data.find("throughput_tokens_per_s")->as_number();
}

std::string serving_section(const Catalog& cat, Summary& serving) {
  std::string table = "| model | device | tp | weights | ISL/OSL | measured tokens/s | predicted | error |\n"
                      "|---|---|---:|---|---|---:|---:|---:|\n";
  std::string groups = "| column | cases | median | max | signed median |\n|---|---:|---:|---:|---:|\n";
  Summary dense_hopper, moe_hopper, fp4, vllm;
  for (const auto& c : perf_columns) {
    Summary column;
    std::vector<double> signed_errors;
    for (std::size_t i = 0; i < std::size(perf_sequences); ++i) {
      if (c.tokens_per_s[i] <= 0) continue;
      const std::string_view seq = perf_sequences[i];
      const auto slash = seq.find('/');
      const std::string_view isl = seq.substr(0, slash), osl = seq.substr(slash + 1);
      const double predicted = perf_prediction(cat, c, "tensorrt-llm", isl, osl);
      const double e = predicted / c.tokens_per_s[i] - 1;
      signed_errors.push_back(e);
      column.errors.push_back(std::fabs(e));
      serving.errors.push_back(std::fabs(e));
      (std::string_view(c.quant) == "nvfp4" ? fp4 : c.moe ? moe_hopper : dense_hopper).errors.push_back(std::fabs(e));
      if (!c.moe && std::string_view(c.quant) == "fp8")
        vllm.errors.push_back(std::fabs(perf_prediction(cat, c, "vllm", isl, osl) / c.tokens_per_s[i] - 1));
      table += fmt::format("| {} | {} | {}{} | {} | {} | {:.0f} | {:.0f} | {:+.0f}% |\n", c.model, c.gpu, c.tp,
                           c.pp > 1 ? fmt::format(" x pp {}", c.pp) : std::string(), c.quant, seq,
                           c.tokens_per_s[i], predicted, 100 * e);
    }
    std::sort(signed_errors.begin(), signed_errors.end());
    groups += fmt::format("| {} on {} x {}{}, {}{} | {} | {:.0f}% | {:.0f}% | {:+.0f}% |\n", c.model, c.tp * c.pp, c.gpu,
                          c.pp > 1 ? fmt::format(" (pp {})", c.pp) : std::string(), c.quant,
                          c.moe ? " (MoE)" : "", column.errors.size(), 100 * column.median(), 100 * column.max(),
                          100 * signed_errors[signed_errors.size() / 2]);
  }
  std::printf("serving: dense fp8 %zu cases median %.0f%% max %.0f%%; moe fp8 %zu median %.0f%%; nvfp4 %zu median %.0f%%\n",
              dense_hopper.errors.size(), 100 * dense_hopper.median(), 100 * dense_hopper.max(),
              moe_hopper.errors.size(), 100 * moe_hopper.median(), fp4.errors.size(), 100 * fp4.median());
  return fmt::format(
      "## Serving throughput (TensorRT-LLM performance overview)\n\n"
      "Fixed ISL/OSL queued at once (offline), every published column of a device in the catalog at its TP, as "
      "`--runtime tensorrt-llm` (an FP8 KV cache, as NVIDIA's ModelOpt checkpoints set it, and 90% of the memory the "
      "weights leave). None of the model's constants was fitted on these rows.\n\n"
      "- Dense, FP8 on H100 and H200: {} cases, median absolute error {:.0f}%, max {:.0f}% (the default vllm runtime "
      "with a 16-bit KV cache, for comparison: median {:.0f}%). Long replies at large batches of the larger models are "
      "the highest (Llama 3.1 405B up to +44%).\n"
      "- MoE, FP8 on H100 and H200 (Llama 4 Scout and Maverick, Qwen3-235B-A22B): {} cases, median {:.0f}%, max "
      "{:.0f}%. Too fast everywhere; on H200 by 11-35% (median by column), on H100 by 14% (Qwen3) to 2.7x "
      "(Maverick). H100's measured throughput falls further below H200's than either capacity or bandwidth "
      "explains (Maverick: 0.30 of H200's, where the KV capacity ratio is about 0.35 and the model gives 0.7).\n"
      "- NVFP4 on B200 and on the RTX PRO 6000 Blackwell (its tables run TP and PP over PCIe), dense and MoE: {} "
      "cases, median {:.0f}%, max {:.0f}%. Served NVFP4 GEMMs run at a measured share of the 16-bit ceiling "
      "(vLLM PR 20646 on a B200: 3,025 TFLOP/s against BF16's 1,421 at the same shape, 2.13x where the peaks are "
      "4x; fp4_gemm_share in step.hpp), out of sample for these rows: before it, with the 16-bit ceiling, the "
      "prompt-bound dense rows (2048/128) were +49% to +51% and the B200 columns +15% to +115% (signed medians). "
      "Now the dense B200 columns are +14% and +16% (prompt-bound rows -14% and -3%: the long replies at large "
      "batches are the fast ones, as for FP8 on Hopper). Qwen3-30B-A3B (3B active) is the furthest, +88% median "
      "and +146% at 128/128: at batches in the thousands its step is a few milliseconds of device work, and what "
      "the runtime spends a step per sequence on the host, which the model does not price, would explain it. On "
      "the RTX PRO 6000 one card is +6% (dense) and +18% (MoE); tensor parallelism over the server's PCIe is "
      "within 36% (a PCIe server's cards reduce over its PCIe fabric, not its NICs); pipeline stages over PCIe "
      "come out faster the more there are (+5% at 2, +26% at 4, +62% at 8): measured throughput grows 2.1x, 3.3x "
      "and 4.6x over one card where the model's grows nearly with the stages, a loss per stage the model does "
      "not price.\n\n"
      "By column (signed median: + is a model too fast):\n\n{}\n{}\n",
      dense_hopper.errors.size(), 100 * dense_hopper.median(), 100 * dense_hopper.max(), 100 * vllm.median(),
      moe_hopper.errors.size(), 100 * moe_hopper.median(), 100 * moe_hopper.max(), fp4.errors.size(),
      100 * fp4.median(), 100 * fp4.max(), groups, table);
}

// ---- Fused-MoE kernel time per layer against the tokens in the batch, as vLLM's
// benchmarks/kernels/benchmark_moe.py and SGLang's tuning_fused_moe_triton.py time one layer's
// fused expert call (the Triton kernels the runtimes serve MoE models with). The one-token rows
// are the floor's fit (inference.cpp, marked fit); the rest are out of sample. The benchmarks
// replay one layer's experts, so where those fit a GPU's L2 cache (about 50 MB on H100 and H200)
// they read faster than from HBM, as a served model's 48-94 layers do not.
struct MoeKernelRow {
  const char* source;
  const char* model;  // catalog id with the benchmark's expert shapes
  const char* gpu;
  const char* quant;
  int tp;
  int tokens;
  double measured_us;
};
constexpr MoeKernelRow moe_kernel_rows[] = {
    // vLLM PR #24700 (Sep 2025), H100 80GB: Mixtral 8x7B BF16 at TP 2 (its tuned config) and
    // Qwen3-30B-A3B FP8 at TP 1 (the PR's defaults).
    {"vLLM PR 24700", "mixtral-8x7b", "h100-sxm", "bf16", 2, 1, 144.03},
    {"vLLM PR 24700", "mixtral-8x7b", "h100-sxm", "bf16", 2, 2, 229.28},
    {"vLLM PR 24700", "mixtral-8x7b", "h100-sxm", "bf16", 2, 4, 351.10},
    {"vLLM PR 24700", "mixtral-8x7b", "h100-sxm", "bf16", 2, 8, 434.98},
    {"vLLM PR 24700", "mixtral-8x7b", "h100-sxm", "bf16", 2, 16, 471.49},
    {"vLLM PR 24700", "mixtral-8x7b", "h100-sxm", "bf16", 2, 32, 487.35},
    {"vLLM PR 24700", "mixtral-8x7b", "h100-sxm", "bf16", 2, 64, 483.14},
    {"vLLM PR 24700", "mixtral-8x7b", "h100-sxm", "bf16", 2, 128, 491.39},
    {"vLLM PR 24700", "mixtral-8x7b", "h100-sxm", "bf16", 2, 256, 536.77},
    {"vLLM PR 24700", "mixtral-8x7b", "h100-sxm", "bf16", 2, 512, 662.33},
    {"vLLM PR 24700", "qwen3-30b-a3b", "h100-sxm", "fp8", 1, 1, 40.44},
    {"vLLM PR 24700", "qwen3-30b-a3b", "h100-sxm", "fp8", 1, 2, 56.15},
    {"vLLM PR 24700", "qwen3-30b-a3b", "h100-sxm", "fp8", 1, 4, 78.10},
    {"vLLM PR 24700", "qwen3-30b-a3b", "h100-sxm", "fp8", 1, 8, 118.64},
    {"vLLM PR 24700", "qwen3-30b-a3b", "h100-sxm", "fp8", 1, 16, 164.64},
    {"vLLM PR 24700", "qwen3-30b-a3b", "h100-sxm", "fp8", 1, 32, 210.07},
    {"vLLM PR 24700", "qwen3-30b-a3b", "h100-sxm", "fp8", 1, 64, 237.26},
    {"vLLM PR 24700", "qwen3-30b-a3b", "h100-sxm", "fp8", 1, 128, 247.67},
    {"vLLM PR 24700", "qwen3-30b-a3b", "h100-sxm", "fp8", 1, 256, 262.38},
    {"vLLM PR 24700", "qwen3-30b-a3b", "h100-sxm", "fp8", 1, 512, 286.24},
    // The same PR's prefill-sized batches, as its description gives them for vLLM's main branch
    // before the PR's configs (the PR's own times stop at 512 there): the kernel reaches 144-188
    // TFLOP/s of FP8 work, where the grouped-GEMM curve gives about 600. The 4,096-token row fits
    // the Triton kernels' rate on Hopper (inference.cpp, triton_moe_hopper).
    {"vLLM PR 24700, main", "qwen3-30b-a3b", "h100-sxm", "fp8", 1, 1024, 536.33},
    {"vLLM PR 24700, main", "qwen3-30b-a3b", "h100-sxm", "fp8", 1, 2048, 911.64},
    {"vLLM PR 24700, main", "qwen3-30b-a3b", "h100-sxm", "fp8", 1, 4096, 1647.57},
    // vLLM PR #53710 (Aug 2026), L40S: Qwen3-30B-A3B's experts (E=128, N=768) in FP8 at TP 1, the
    // PR's tuned config (Triton 3.6.0): 73-193 TFLOP/s.
    {"vLLM PR 53710", "qwen3-30b-a3b", "l40s", "fp8", 1, 1024, 1052.11},
    {"vLLM PR 53710", "qwen3-30b-a3b", "l40s", "fp8", 1, 2048, 1286.40},
    {"vLLM PR 53710", "qwen3-30b-a3b", "l40s", "fp8", 1, 4096, 1846.43},
    {"vLLM PR 53710", "qwen3-30b-a3b", "l40s", "fp8", 1, 8192, 3195.68},
    // SGLang PR #11730 (Oct 2025), H200: Qwen3-235B-A22B FP8 at TP 8 (its untuned defaults).
    {"SGLang PR 11730", "qwen3-235b-a22b", "h200", "fp8", 8, 1, 31.70},
    {"SGLang PR 11730", "qwen3-235b-a22b", "h200", "fp8", 8, 2, 36.56},
    {"SGLang PR 11730", "qwen3-235b-a22b", "h200", "fp8", 8, 4, 49.67},
    {"SGLang PR 11730", "qwen3-235b-a22b", "h200", "fp8", 8, 8, 66.87},
    {"SGLang PR 11730", "qwen3-235b-a22b", "h200", "fp8", 8, 16, 92.36},
    {"SGLang PR 11730", "qwen3-235b-a22b", "h200", "fp8", 8, 32, 124.99},
    // vLLM PR #31448 (Dec 2025), B200: Qwen3-Omni-30B-A3B's experts (E=128, N=768, Qwen3-30B-A3B's
    // shapes) in BF16 at TP 1, default config.
    {"vLLM PR 31448", "qwen3-30b-a3b", "b200", "bf16", 1, 1, 39.61},
    {"vLLM PR 31448", "qwen3-30b-a3b", "b200", "bf16", 1, 2, 51.87},
    {"vLLM PR 31448", "qwen3-30b-a3b", "b200", "bf16", 1, 4, 73.18},
};

std::string moe_kernel_section(const Catalog& cat, Summary& moe) {
  std::string table = "| source | model | device | weights | tp | tokens | measured us | predicted us | error |\n"
                      "|---|---|---|---|---:|---:|---:|---:|---:|\n";
  Summary out;
  for (const auto& r : moe_kernel_rows) {
    const ModelArch m = model_from_record(cat.get("models", r.model));
    const Device d = resolve_device(cat, r.gpu);
    InferSettings s;
    s.runtime = Runtime::vllm;
    s.tp = r.tp;
    set_quant(s, r.quant, m, d);
    const InferModel im = make_infer_model(m, count_params(m), d, d, s);
    const double predicted = 1e6 * fused_moe_time(im, r.tokens).value();
    const double err = predicted / r.measured_us - 1;
    // The one-token rows fit the call's floor; the H100 FP8 row at 4,096 tokens the Triton kernels' rate.
    const bool fit = (r.tokens == 1 && std::string(r.source) != "vLLM PR 31448") ||
                     (std::string(r.source) == "vLLM PR 24700, main" && r.tokens == 4096);
    if (!fit) out.errors.push_back(std::fabs(err)), moe.errors.push_back(std::fabs(err));
    table += fmt::format("| {}{} | {} | {} | {} | {} | {} | {:.1f} | {:.1f} | {:+.1f}% |\n", r.source, fit ? " (fit)" : "",
                         r.model, r.gpu, r.quant, r.tp, r.tokens, r.measured_us, predicted, 100 * err);
  }
  std::printf("moe kernels: out of sample %zu cases median %.1f%% max %.1f%%\n", out.errors.size(), 100 * out.median(),
              100 * out.max());
  return fmt::format(
      "## Fused-MoE kernel time per layer (vLLM and SGLang MoE kernel benchmarks; part of the MoE serving corpus)\n\n"
      "One MoE layer's fused expert call on one device of its tensor-parallel group, as the runtimes' kernel "
      "benchmarks time it, against `fused_moe_time`: the experts the tokens touch, E(1 - (1 - k/E)^B), their 1/tp "
      "slices streamed at the family's efficiency (or their GEMMs, if longer), plus the call's floor of 27 us, fitted "
      "on the one-token rows marked fit. The benchmarks replay one layer, so experts that fit the L2 cache read faster "
      "than a served model's do. Out of sample: {} cases, median absolute error {:.1f}%, max {:.1f}%. At prefill-sized "
      "batches (1,024 tokens and more) the Triton kernel does FP8 work at 144-188 TFLOP/s on H100 (about a tenth of "
      "its FP8 peak) and 73-193 on L40S (up to a quarter of its), where the grouped GEMMs on the dense curve give "
      "about 600 on H100: the model was 2-3x fast there. On Hopper, vLLM's and SGLang's expert GEMMs now run at "
      "most at the H100 row's 188 TFLOP/s at 4,096 tokens (marked fit), whatever the precision; the L40S, whose "
      "curve was within 30%, keeps it. Mixtral's big experts run faster than that rate (272 TFLOP/s at 512 tokens, "
      "49% slow in the model): the rate is that of today's fine-grained experts.\n\n{}\n",
      out.errors.size(), 100 * out.median(), 100 * out.max(), table);
}

// ---- MoE serving end to end: SGLang pull requests' bench_serving runs of DeepSeek-V3 (fixed
// prompt and output lengths, --random-range-ratio 1; a closed loop of `concurrency` requests), as
// `gpuplan infer --runtime sglang --users C --think-time 0 --scenario offline`. Reported, not
// fitted: they show how far the decode step is from DeepSeek's at tensor parallelism.
struct MoeServingRow {
  const char* source;
  const char* model;
  const char* gpu;
  int gpus, tp, isl, osl, concurrency;
  double tokens_per_s;  // output tokens/s
};
constexpr MoeServingRow moe_serving_rows[] = {
    // SGLang PR #7687 (Jul 2025): two nodes of 8 H200 at tp 16, 200 prompts; 102,400 output tokens
    // in 409.60 s with the PR's tuned MoE config.
    {"SGLang PR 7687", "deepseek-v3", "h200", 16, 16, 1024, 512, 8, 250.0},
    // SGLang PR #6939 (Jun 2025): 8 B200 at tp 8 (Triton attention backend), 128 prompts; 578.37
    // output tokens/s before the PR's tuning.
    {"SGLang PR 6939", "deepseek-v3", "b200", 8, 8, 1000, 1000, 16, 578.37},
};

std::string moe_serving_section(const Catalog& cat) {
  std::string table = "| source | model | devices | tp | ISL/OSL | concurrency | measured tokens/s | predicted | error |\n"
                      "|---|---|---|---:|---|---:|---:|---:|---:|\n";
  for (const auto& r : moe_serving_rows) {
    const Scenario sc = scenario_of({{"model", r.model}, {"gpu", r.gpu}, {"gpus", std::to_string(r.gpus)},
                                     {"tp", std::to_string(r.tp)}, {"quant", "fp8"}, {"runtime", "sglang"},
                                     {"prompt-tokens", std::to_string(r.isl)}, {"output-tokens", std::to_string(r.osl)},
                                     {"users", std::to_string(r.concurrency)}, {"think-time", "0"}, {"scenario", "offline"}});
    const double tps = run_infer(cat, sc, RunOptions{}).data.find("throughput_tokens_per_s")->as_number();
    table += fmt::format("| {} | {} | {} x {} | {} | {}/{} | {} | {:.0f} | {:.0f} | {:+.0f}% |\n", r.source, r.model, r.gpus,
                         r.gpu, r.tp, r.isl, r.osl, r.concurrency, r.tokens_per_s, tps, 100 * (tps / r.tokens_per_s - 1));
  }
  return "## MoE serving end to end (SGLang benchmark runs; reported)\n\n"
         "DeepSeek-V3 in FP8 at tensor parallelism, as SGLang pull requests measured it with bench_serving. The model "
         "is far too fast here: its decode step prices each MoE layer's experts as the kernel benchmarks above time "
         "them, the attention and dense weights at the family's streaming efficiency, and the all-reduces, and that "
         "comes to less than half of the step these runs imply (about 25-30 ms at 8-16 users). What the rest is "
         "(MLA's and the block-FP8 GEMMs' small-batch kernels, the many small kernels of a DeepSeek layer) needs a "
         "public per-kernel profile to price; none was fitted.\n\n" +
         table + "\n";
}

// ---- MoE serving, offline bursts and four users: GPUStack's performance lab (gpustack/gpustack
// docs/performance-lab/{deepseek-r1/h200, gpt-oss-120b/h100, qwen3-235b-a22b/h100}.md, 2025-26).
// `vllm bench serve` sends every prompt at once (ShareGPT: 1,000 or 984 conversations; random: 500
// prompts of 2,000 or 4,000 tokens, 100 of 32,000), or keeps four in flight (rows with users 4).
// Lengths are the run's means (total input and generated tokens over requests: ShareGPT's vary,
// and the random runs stop at end-of-sequence, so their replies are shorter than asked). Output
// tokens/s against `gpuplan infer --users N --think-time 0 --scenario offline` at those means; the
// four-user rows also give the mean TPOT. Layouts as the pages serve them: "tp 8 ep 8" is --tp 8
// --ep 8 (tensor-parallel attention, experts whole: TensorRT-LLM's --ep_size 8, vLLM's
// --enable-expert-parallel); SGLang's --enable-dp-attention is run as --ep 8 --dp-attention, the
// nearest layout the model has. None of the model's constants was fitted on these rows.
struct LabRow {
  const char* runtime;  // and version, as the page gives it
  const char* model;
  const char* gpu;
  const char* quant;
  int gpus, tp, pp, ep;
  bool fit;  // a row the widened-FP4 stream's share was fitted on (inference.cpp): reported, not summarised
  const char* workload;
  int requests, users;  // users: the burst (every request) or the concurrency cap
  double input_tokens, output_tokens;  // totals over the run
  double tokens_per_s;                 // output tokens/s
  double tpot_ms;                      // mean TPOT; 0: not compared
};
constexpr LabRow lab_rows[] = {
    // DeepSeek-R1-0528 on 8 x H200 (vLLM 0.11.0, SGLang 0.5.3, TensorRT-LLM 1.0.0).
    {"vllm 0.11.0", "deepseek-r1", "h200", "fp8", 8, 8, 1, 1, false, "ShareGPT", 1000, 1000, 219171, 200752, 2621.05, 0},
    {"sglang 0.5.3", "deepseek-r1", "h200", "fp8", 8, 8, 1, 1, false, "ShareGPT", 1000, 1000, 219171, 200767, 3172.46, 0},
    {"tensorrt-llm 1.0.0", "deepseek-r1", "h200", "fp8", 8, 8, 1, 8, false, "ShareGPT", 1000, 1000, 219171, 200813, 1618.94, 0},
    // SGLang with --enable-dp-attention and no --dp: run as tp 8 (below).
    {"sglang 0.5.3", "deepseek-r1", "h200", "fp8", 8, 8, 1, 1, false, "ShareGPT", 1000, 1000, 219171, 200752, 3414.99, 0},
    {"vllm 0.11.0", "deepseek-r1", "h200", "fp8", 8, 8, 1, 1, false, "random 32K", 100, 100, 3199900, 10000, 48.33, 0},
    {"vllm 0.11.0", "deepseek-r1", "h200", "fp8", 8, 8, 1, 1, false, "random 4K", 500, 500, 1997530, 100000, 753.67, 0},
    {"vllm 0.11.0", "deepseek-r1", "h200", "fp8", 8, 8, 1, 1, false, "random 2K", 500, 500, 998393, 50000, 843.71, 0},
    {"vllm 0.11.0", "deepseek-r1", "h200", "fp8", 8, 8, 1, 1, false, "ShareGPT", 100, 4, 22836, 21338, 196.81, 19.36},
    {"sglang 0.5.3", "deepseek-r1", "h200", "fp8", 8, 8, 1, 1, false, "random 32K", 100, 100, 3199900, 9952, 49.89, 0},
    {"sglang 0.5.3", "deepseek-r1", "h200", "fp8", 8, 8, 1, 1, false, "random 4K", 500, 500, 1997530, 100000, 767.42, 0},
    {"sglang 0.5.3", "deepseek-r1", "h200", "fp8", 8, 8, 1, 1, false, "random 2K", 500, 500, 998393, 50000, 907.31, 0},
    // gpt-oss-120b (MXFP4 experts) on H100 (vLLM 0.10.2; --async-scheduling on the tp 2, tp 4 and pp 2 rows).
    {"vllm 0.10.2", "gpt-oss-120b", "h100-sxm", "mxfp4", 1, 1, 1, 1, false, "ShareGPT", 1000, 1000, 215312, 195544, 2901.05, 0},
    {"vllm 0.10.2", "gpt-oss-120b", "h100-sxm", "mxfp4", 2, 2, 1, 1, false, "ShareGPT", 1000, 1000, 215312, 196205, 7648.67, 0},
    {"vllm 0.10.2", "gpt-oss-120b", "h100-sxm", "mxfp4", 4, 4, 1, 1, false, "ShareGPT", 1000, 1000, 215312, 196174, 11327.22, 0},
    {"vllm 0.10.2", "gpt-oss-120b", "h100-sxm", "mxfp4", 2, 1, 2, 1, false, "ShareGPT", 1000, 1000, 215312, 196089, 5337.65, 0},
    {"vllm 0.10.2", "gpt-oss-120b", "h100-sxm", "mxfp4", 1, 1, 1, 1, false, "random 32K", 100, 100, 3200000, 9877, 49.65, 0},
    {"vllm 0.10.2", "gpt-oss-120b", "h100-sxm", "mxfp4", 1, 1, 1, 1, false, "random 4K", 500, 500, 1999249, 67205, 463.35, 0},
    {"vllm 0.10.2", "gpt-oss-120b", "h100-sxm", "mxfp4", 1, 1, 1, 1, false, "random 2K", 500, 500, 999120, 49197, 675.11, 0},
    {"vllm 0.10.2", "gpt-oss-120b", "h100-sxm", "mxfp4", 1, 1, 1, 1, true, "ShareGPT", 100, 4, 22946, 21691, 453.04, 8.31},
    {"vllm 0.10.2", "gpt-oss-120b", "h100-sxm", "mxfp4", 2, 2, 1, 1, false, "random 32K", 100, 100, 3200000, 9955, 100.70, 0},
    {"vllm 0.10.2", "gpt-oss-120b", "h100-sxm", "mxfp4", 2, 2, 1, 1, false, "random 4K", 500, 500, 1999249, 68046, 1135.29, 0},
    {"vllm 0.10.2", "gpt-oss-120b", "h100-sxm", "mxfp4", 2, 2, 1, 1, false, "random 2K", 500, 500, 999120, 49059, 1595.22, 0},
    {"vllm 0.10.2", "gpt-oss-120b", "h100-sxm", "mxfp4", 2, 2, 1, 1, false, "ShareGPT", 100, 4, 22946, 21691, 645.55, 5.75},
    // gpt-oss-20b on one H100 (vLLM 0.11.0; gpt-oss-20b/h100.md).
    {"vllm 0.11.0", "gpt-oss-20b", "h100-sxm", "mxfp4", 1, 1, 1, 1, false, "ShareGPT", 1000, 1000, 215312, 193979, 7817.03, 0},
    {"vllm 0.11.0", "gpt-oss-20b", "h100-sxm", "mxfp4", 1, 1, 1, 1, false, "random 32K", 100, 100, 3200000, 9350, 86.62, 0},
    {"vllm 0.11.0", "gpt-oss-20b", "h100-sxm", "mxfp4", 1, 1, 1, 1, false, "random 4K", 500, 500, 1999249, 52309, 847.43, 0},
    {"vllm 0.11.0", "gpt-oss-20b", "h100-sxm", "mxfp4", 1, 1, 1, 1, false, "random 2K", 500, 500, 999120, 47022, 1443.44, 0},
    // gpt-oss-120b on one A100 80GB (vLLM 0.11.0; gpt-oss-120b/a100.md).
    {"vllm 0.11.0", "gpt-oss-120b", "a100-80gb", "mxfp4", 1, 1, 1, 1, false, "random 32K", 100, 100, 3200000, 9988, 13.50, 0},
    {"vllm 0.11.0", "gpt-oss-120b", "a100-80gb", "mxfp4", 1, 1, 1, 1, false, "random 4K", 500, 500, 1999249, 67259, 249.67, 0},
    {"vllm 0.11.0", "gpt-oss-120b", "a100-80gb", "mxfp4", 1, 1, 1, 1, false, "random 2K", 500, 500, 999120, 48981, 395.21, 0},
    {"vllm 0.11.0", "gpt-oss-120b", "a100-80gb", "mxfp4", 1, 1, 1, 1, false, "ShareGPT", 100, 4, 22946, 21691, 326.09, 11.67},
    // gpt-oss-120b on 8 MI300X at tp 8 (vLLM PR #55934, Sep 2026: a ROCm nightly with AITER's
    // W4A16 MXFP4 MoE, its default there; vllm bench serve, fixed 1024/1024, --ignore-eos, C in
    // flight). Not GPUStack's: the same comparison at a fixed concurrency.
    {"vllm nightly", "gpt-oss-120b", "mi300x", "mxfp4", 8, 8, 1, 1, false, "random 1K", 1, 1, 1024, 1024, 264, 0},
    {"vllm nightly", "gpt-oss-120b", "mi300x", "mxfp4", 8, 8, 1, 1, false, "random 1K", 1, 8, 1024, 1024, 1416, 0},
    {"vllm nightly", "gpt-oss-120b", "mi300x", "mxfp4", 8, 8, 1, 1, false, "random 1K", 1, 32, 1024, 1024, 3946, 0},
    {"vllm nightly", "gpt-oss-120b", "mi300x", "mxfp4", 8, 8, 1, 1, false, "random 1K", 1, 64, 1024, 1024, 6248, 0},
    {"vllm nightly", "gpt-oss-120b", "mi300x", "mxfp4", 8, 8, 1, 1, false, "random 1K", 1, 128, 1024, 1024, 9319, 0},
    // Qwen3-235B-A22B-Instruct-2507 on H100 (vLLM 0.11.0, SGLang 0.5.5.post1): BF16, and Qwen's FP8
    // checkpoint (tp 8 only with expert parallelism: its 128-blocks do not split eight ways).
    {"vllm 0.11.0", "qwen3-235b-a22b", "h100-sxm", "bf16", 8, 8, 1, 1, false, "ShareGPT", 984, 984, 212894, 193865, 4015.36, 0},
    {"sglang 0.5.5", "qwen3-235b-a22b", "h100-sxm", "bf16", 8, 8, 1, 1, false, "ShareGPT", 984, 984, 214137, 193829, 3644.72, 0},
    {"vllm 0.11.0", "qwen3-235b-a22b", "h100-sxm", "fp8-block", 8, 8, 1, 8, false, "ShareGPT", 984, 984, 211761, 192350, 3856.59, 0},
    {"vllm 0.11.0", "qwen3-235b-a22b", "h100-sxm", "fp8-block", 4, 4, 1, 1, false, "ShareGPT", 984, 984, 212992, 194446, 3592.57, 0},
    {"vllm 0.11.0", "qwen3-235b-a22b", "h100-sxm", "fp8-block", 4, 4, 1, 4, false, "ShareGPT", 984, 984, 214311, 192752, 3376.99, 0},
    {"vllm 0.11.0", "qwen3-235b-a22b", "h100-sxm", "bf16", 8, 8, 1, 1, false, "random 32K", 100, 100, 3200000, 8191, 57.85, 0},
    {"vllm 0.11.0", "qwen3-235b-a22b", "h100-sxm", "bf16", 8, 8, 1, 1, false, "random 4K", 500, 500, 1997942, 92185, 931.21, 0},
    {"vllm 0.11.0", "qwen3-235b-a22b", "h100-sxm", "bf16", 8, 8, 1, 1, false, "random 2K", 500, 500, 998175, 49500, 1127.26, 0},
    {"vllm 0.11.0", "qwen3-235b-a22b", "h100-sxm", "fp8-block", 4, 4, 1, 1, false, "random 32K", 100, 100, 3200000, 8281, 39.66, 0},
    {"vllm 0.11.0", "qwen3-235b-a22b", "h100-sxm", "fp8-block", 4, 4, 1, 1, false, "random 4K", 500, 500, 1997942, 90966, 717.60, 0},
    {"vllm 0.11.0", "qwen3-235b-a22b", "h100-sxm", "fp8-block", 4, 4, 1, 1, false, "random 2K", 500, 500, 998175, 49471, 894.84, 0},
};

// ---- MoE serving at maximum throughput: TensorRT-LLM's DeepSeek-R1 performance guide
// (NVIDIA/TensorRT-LLM docs/source/blogs/Best_perf_practice_on_DeepSeek-R1_in_TensorRT-LLM.md,
// "B200 max-throughput" and "H200 max-throughput", reproduced at commit b626186). trtllm-bench
// throughput on 8 GPUs with data-parallel attention and EP 8 (enable_attention_dp, --tp 8 --ep 8),
// CUDA graphs, 1,024-token prompts and 2,048-token replies, the concurrency, per-rank batch cap
// (--max_batch_size) and KV memory fraction each command sets; the runs send 5 to 16 times the
// concurrency in requests, so the steady state dominates. Total output tokens/s against `gpuplan
// infer --ep 8 --dp-attention --users C --think-time 0 --scenario offline` with the same caps. No
// constant was fitted on these rows.
struct MaxThroughputRow {
  const char* label;
  const char* settings;  // flags, as on the command line
  double tokens_per_s;   // total output tokens/s
};
constexpr MaxThroughputRow max_throughput_rows[] = {
    {"B200, DeepSeek-R1-0528 NVFP4, FP8 KV cache, 896 a rank, 7,168 users",
     "gpu=b200 quant=nvfp4 kv-dtype=fp8 max-seqs=896 mem-fraction=0.93 users=7168", 43146.2},
    {"B200, DeepSeek-R1 NVFP4, 16-bit KV cache, 384 a rank, 3,072 users",
     "gpu=b200 quant=nvfp4 kv-dtype=bf16 max-seqs=384 mem-fraction=0.85 users=3072", 36384.1},
    {"H200, DeepSeek-R1 FP8, 128 a rank, 1,024 users", "gpu=h200 quant=fp8 max-seqs=128 mem-fraction=0.8 users=1024",
     11489.3},
};

std::string max_throughput_section(const Catalog& cat, Summary& moe) {
  std::string table = "| run | measured tokens/s | predicted | error |\n|---|---:|---:|---:|\n";
  Summary out;
  for (const auto& r : max_throughput_rows) {
    const Scenario sc = scenario_of(std::string("model=deepseek-r1 gpus=8 ep=8 dp-attention=true runtime=tensorrt-llm "
                                                "prompt-tokens=1024 output-tokens=2048 think-time=0 scenario=offline ") +
                                    r.settings);
    const double tps = run_infer(cat, sc, RunOptions{}).data.find("throughput_tokens_per_s")->as_number();
    const double e = tps / r.tokens_per_s - 1;
    out.errors.push_back(std::fabs(e));
    moe.errors.push_back(std::fabs(e));
    table += fmt::format("| {} | {:.0f} | {:.0f} | {:+.0f}% |\n", r.label, r.tokens_per_s, tps, 100 * e);
  }
  std::printf("moe max throughput: cases %zu median %.0f%% max %.0f%%\n", out.errors.size(), 100 * out.median(),
              100 * out.max());
  return fmt::format(
      "## MoE serving at maximum throughput (TensorRT-LLM's DeepSeek-R1 guide; part of the MoE serving corpus)\n\n"
      "DeepSeek-R1 on 8 B200 (NVFP4 experts) and 8 H200 (FP8) as TensorRT-LLM's performance guide runs it for "
      "maximum throughput: attention data-parallel on each GPU, experts in EP 8, 1,024-token prompts and 2,048-token "
      "replies at the concurrency and per-rank batch cap of each command. {} cases, median absolute error {:.0f}%, "
      "max {:.0f}%.\n\n"
      "- The model is fast on all three. On B200 its decode step at 512 sequences a rank and about 2,500 cached tokens "
      "each is 43 ms (dense layers 7.0, attention 14.5, experts 7.6, dispatch and combine 9.4, floors 4.3); the "
      "measured rates imply about 84 ms an iteration at 384 a rank (3,072 sequences at 36,384 tokens/s), prefill "
      "chunks included. Attention is MLA's absorbed decode in 16 bits at FlashMLA's measured 67% of the bf16 peak "
      "(an FP8 cache is dequantised before the products); at the FP8 peak's GEMM ceiling, as before, it was 6.7 ms "
      "and the rows +53%, +51% and +41%.\n"
      "- Two mechanisms were tried and not kept. Placing each prompt's attention and dense layers on its own rank "
      "(data-parallel attention cannot spread one prompt), with prompts on different ranks in one step overlapping "
      "as a Poisson stream, moved the rows to +98%, +54% and +14%: the prefill the old placement overpriced had been "
      "hiding the decode step's shortfall. A host cost per sequence and step, the same for every runtime, needs "
      "about 40 us to bring these rows within 30%, where it takes the TensorRT-LLM dense FP8 table from 7% to a 55% "
      "max and vLLM's rows from 5% to 8%; at 10 us it helps the MoE FP8 table (31% to 20%) but not these. No single "
      "constant fits, and none was fitted.\n\n{}\n",
      out.errors.size(), 100 * out.median(), 100 * out.max(), table);
}

// ---- One user's decode on 8 B200 under SGLang: a sweep of SGLang's cookbook models (gist
// BenHamm/78563d0d0a08d7cb61b4737392633384, 2026-02-15/16; SGLang v0.5.8.post1, 8 x B200 183 GB on
// NVSwitch, clocks locked at maximum, sglang.bench_serving random 1K/1K, each model at its
// cookbook's recommended configuration): mean TPOT at concurrency 1. Added after the one-shot
// all-reduce (inference.cpp custom_allreduce_s) was chosen while looking at these rows, so they are
// in sample for that choice; no constant was fitted on them. Kimi-K2-Instruct is listed as BF16,
// but its 1T parameters in BF16 do not fit 8 x 183 GB: its published FP8 checkpoint is run. GLM-4.6
// has GLM-4.7's shapes; Qwen3-Coder-Next Qwen3-Next-80B-A3B's. GLM-5, run with EAGLE, is left out.
struct OneUserRow {
  const char* model;
  const char* quant;
  int tp;
  double tpot_ms;
};
constexpr OneUserRow one_user_rows[] = {
    {"gpt-oss-120b", "mxfp4", 8, 2.41},   {"qwen3-235b-a22b", "bf16", 8, 6.70}, {"glm-4.7", "bf16", 8, 14.93},
    {"kimi-k2", "fp8", 8, 7.54},          {"deepseek-r1", "nvfp4", 8, 5.74},    {"nemotron-3-nano", "fp8", 1, 4.36},
    {"qwen3-next-80b-a3b", "bf16", 2, 4.53},
};

std::string one_user_section(const Catalog& cat, Summary& moe) {
  std::string table = "| model | tp | weights | measured TPOT | predicted | error |\n|---|---:|---|---:|---:|---:|\n";
  Summary out;
  for (const auto& r : one_user_rows) {
    const Scenario sc = scenario_of({{"model", r.model}, {"gpu", "b200"}, {"gpus", std::to_string(r.tp)},
                                     {"tp", std::to_string(r.tp)}, {"quant", r.quant}, {"runtime", "sglang"},
                                     {"prompt-tokens", "1024"}, {"output-tokens", "1024"}, {"users", "1"},
                                     {"think-time", "0"}, {"scenario", "offline"}});
    const double tpot = 1000 * run_infer(cat, sc, RunOptions{}).data.find("tpot_s")->as_number();
    const double e = tpot / r.tpot_ms - 1;
    out.errors.push_back(std::fabs(e));
    moe.errors.push_back(std::fabs(e));
    table += fmt::format("| {} | {} | {} | {:.2f} ms | {:.2f} ms | {:+.0f}% |\n", r.model, r.tp, r.quant, r.tpot_ms, tpot,
                         100 * e);
  }
  std::printf("moe one user on b200: cases %zu median %.0f%% max %.0f%%\n", out.errors.size(), 100 * out.median(),
              100 * out.max());
  return fmt::format(
      "## MoE decode at one user on 8 B200 (SGLang's cookbook models, February 2026; part of the MoE serving corpus)\n\n"
      "SGLang v0.5.8 serving seven MoE models on one 8 x B200 node at their cookbook configurations, random 1K/1K "
      "prompts, one request at a time: mean time per output token against `gpuplan infer --runtime sglang --users 1` "
      "(a positive error is a slower step than measured). "
      "{} cases, median absolute error {:.0f}%, max {:.0f}%.\n\n"
      "- At one user a step is mostly fixed costs: the model charges 45 us a layer (fitted on vLLM's one-user decode of "
      "a dense model on one H100), 27 us a fused-MoE call, and two all-reduces a layer. The measured steps leave 63 us "
      "a layer (Qwen3 235B) to 150 us (GLM-4.6) once the weights' streaming is taken out, so no one layer cost fits "
      "them all.\n"
      "- The all-reduces were 20 us each (two hops of NVLink's 10 us); SGLang's and vLLM's one-shot kernels take 4-7 "
      "us at these sizes (SGLang PR 2904, H100). Priced so, the rows went from a median of 33% (gpt-oss-120b +99%, "
      "Qwen3 235B +87%) to the figures below; the serving corpus moved from 10.5% to 10.9% (NIM's TensorRT-LLM "
      "Llama 3.3 70B on 2 H100 at one user from +5% to -9% and -15% in TPOT) and the MoE lab from 17% to 16%.\n\n{}\n",
      out.errors.size(), 100 * out.median(), 100 * out.max(), table);
}

std::string lab_section(const Catalog& cat, Summary& moe) {
  std::string table = "| runtime | model | devices | layout | weights | workload | users | measured tokens/s | predicted | "
                      "error | TPOT measured | predicted | error |\n|---|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n";
  Summary by_model[4];
  const char* models[] = {"deepseek-r1", "gpt-oss-120b", "gpt-oss-20b", "qwen3-235b-a22b"};
  for (const auto& r : lab_rows) {
    const std::string runtime(r.runtime, std::strchr(r.runtime, ' '));
    const long isl = std::lround(r.input_tokens / r.requests), osl = std::lround(r.output_tokens / r.requests);
    Scenario sc = scenario_of({{"model", r.model}, {"gpu", r.gpu}, {"gpus", std::to_string(r.gpus)},
                               {"quant", r.quant}, {"runtime", runtime}, {"prompt-tokens", std::to_string(isl)},
                               {"output-tokens", std::to_string(osl)}, {"users", std::to_string(r.users)},
                               {"think-time", "0"}, {"scenario", "offline"}});
    apply_setting(sc, "tp", std::to_string(r.tp));
    if (r.pp > 1) apply_setting(sc, "pp", std::to_string(r.pp));
    if (r.ep > 1) apply_setting(sc, "ep", std::to_string(r.ep));
    const std::string layout = fmt::format("tp {}{}{}", r.tp, r.pp > 1 ? fmt::format(" pp {}", r.pp) : "",
                                           r.ep > 1 ? fmt::format(" ep {}", r.ep) : "");
    const Value d = run_infer(cat, sc, RunOptions{}).data;
    const double tps = d.find("throughput_tokens_per_s")->as_number(), tpot = 1000 * d.find("tpot_s")->as_number();
    Summary& group = by_model[std::find_if(std::begin(models), std::end(models),
                                           [&](const char* m) { return std::string_view(m) == r.model; }) -
                              std::begin(models)];
    const auto add = [&](double predicted, double measured) {
      const double e = predicted / measured - 1;
      if (!r.fit) group.errors.push_back(std::fabs(e)), moe.errors.push_back(std::fabs(e));
      return fmt::format("{:+.0f}%{}", 100 * e, r.fit ? " (fit)" : "");
    };
    const std::string tps_error = add(tps, r.tokens_per_s);
    const std::string tpot_cells =
        r.tpot_ms > 0 ? fmt::format("| {:.2f} ms | {:.2f} ms | {} |", r.tpot_ms, tpot, add(tpot, r.tpot_ms)) : "| | | |";
    table += fmt::format("| {} | {} | {} x {} | {} | {} | {} ({}/{}) | {} | {:.0f} | {:.0f} | {} {}\n", r.runtime, r.model,
                         r.gpus, r.gpu, layout, r.quant, r.workload, isl, osl, r.users, r.tokens_per_s, tps, tps_error,
                         tpot_cells);
  }
  std::string groups;
  for (std::size_t i = 0; i < std::size(models); ++i)
    groups += fmt::format("- {}: {} cases, median absolute error {:.0f}%, max {:.0f}%.\n", models[i],
                          by_model[i].errors.size(), 100 * by_model[i].median(), 100 * by_model[i].max());
  Summary all;
  for (const auto& g : by_model) all.errors.insert(all.errors.end(), g.errors.begin(), g.errors.end());
  std::printf("moe lab: cases %zu median %.0f%% max %.0f%%\n", all.errors.size(), 100 * all.median(), 100 * all.max());
  return fmt::format(
      "## MoE serving, offline bursts and four users (GPUStack performance lab and vLLM PR 55934; part of the MoE "
      "serving corpus)\n\n"
      "`vllm bench serve` against vLLM, SGLang and TensorRT-LLM serving DeepSeek-R1 on 8 H200, gpt-oss-120b on 1-4 "
      "H100, one A100 and 8 MI300X, gpt-oss-20b on one H100, and Qwen3-235B-A22B on 4-8 H100: every prompt at once (ShareGPT, or random "
      "prompts of 2K, 4K and 32K tokens), or a fixed number in flight. Output tokens/s (and mean TPOT at four users) "
      "against `--users N --think-time 0 --scenario offline` at the run's mean lengths. A burst's throughput includes "
      "its ramp and its tail, which a steady state does not, and ShareGPT's lengths vary where the model takes their "
      "means. SGLang's DP-attention runs (`--enable-dp-attention` with no `--dp`) are run as tp 8. One constant "
      "was fitted on the row marked fit: widened MXFP4 experts stream at 0.55 of the bandwidth where the device has "
      "no FP4 tensor cores (the one-card four-user TPOT; inference.cpp). On Hopper vLLM's and SGLang's fused-MoE "
      "Triton kernels do the experts' GEMMs at 188 TFLOP/s (fitted on a kernel benchmark, the fused-MoE section "
      "above), in place of the 0.35 of their GEMMs' rate that widened experts reach elsewhere (fitted on the "
      "one-card 2K and 4K bursts, now out of sample with the rest). {} cases, median absolute error {:.0f}%, max "
      "{:.0f}%:\n\n{}\n"
      "- The Triton kernels' rate took the prompt-bound bursts on Hopper from 29-63% fast to within 13% for "
      "DeepSeek-R1 (block FP8, H200), and gpt-oss-20b's from 18-27% slow to within 8%; Qwen3-235B's went from "
      "within 18% (1-18% fast) to 8-19% slow in BF16 and from within 17% to 18-30% slow in block FP8 at tp 4. "
      "The lab's median went from 23% to 17%. The FP8 GEMMs' input quantisation (vLLM section) then took it to "
      "16%: DeepSeek-R1's prompt-bound bursts within 14%, Qwen3-235B's block FP8 ones 20-31% slow. Counting MLA's "
      "attention as its kernels run it (decompressed in prefill, 192-wide keys and 128-wide values, 81,920 FLOPs a "
      "pair where 4 d_q gave 65,536; absorbed in decode, 278,528) took the 32K-prompt DeepSeek-R1 rows from 8% and "
      "14% slow to 13% and 18% and the median to 17%; no constant was refitted, and the flash-attention rate, fitted "
      "on 128-wide heads, does not see that wider heads run closer to peak.\n"
      "- gpt-oss on A100 (another GPU and vLLM release) is within 23% and its four-user TPOT within 2%; at tp 2 on "
      "H100 the bursts are within 12% and the four-user TPOT within 1% since the all-reduces are priced as vLLM's "
      "one-shot kernel runs them (it was 21% slow at 20 us an all-reduce). Before the widened-FP4 constants these "
      "rows were 79-132% fast.\n"
      "- gpt-oss on MI300X at tp 8 grows too little with the users: 34% slow at one, 56% fast at 128 (a step of "
      "13.7 ms measured against 8.8). The same PR's Triton backend runs 1.7-2x slower than its AITER one, so the "
      "runtime's kernels set these figures as much as the device.\n"
      "- The ShareGPT bursts stay fast: DeepSeek-R1 47-91% (238% on TensorRT-LLM, whose kernels are not Triton), "
      "gpt-oss-20b 59%, Qwen3-235B 17-60%. A burst of a thousand short prompts is a long tail of few sequences "
      "decoding, which the model's mean lengths do not see. vLLM 0.11's four-user TPOT for DeepSeek-R1, 19.4 ms, "
      "is twice the model's 9.5 ms.\n\n{}\n",
      all.errors.size(), 100 * all.median(), 100 * all.max(), groups, table);
}

// ---- NVIDIA NIM at a fixed concurrency: docs.nvidia.com/nim/benchmarking/llm/1.0.0/performance
// (AIPerf, a closed loop of `concurrency` requests), Llama 3.3 70B Instruct (Llama 3.1 70B's
// shapes), NIM 1.8.0 on 2 x H100 80GB, FP8, TP2: mean TTFT, inter-token latency and output
// tokens/s, up to the concurrency where the prompts' queue stays bounded. NIM's FP8 profiles run
// TensorRT-LLM: `gpuplan infer --runtime tensorrt-llm --users C --think-time 0 --scenario offline`.
struct ConcurrencyRow {
  int isl, osl, concurrency;
  double ttft_ms, itl_ms, tokens_per_s;  // 0: not published
};
constexpr ConcurrencyRow nim_rows[] = {
    {5000, 500, 1, 406.77, 18.58, 51.67}, {5000, 500, 5, 546.7, 21.83, 218.48}, {5000, 500, 25, 688.69, 38.75, 623.4},
    {5000, 500, 50, 834.51, 59.73, 814.37}, {500, 2000, 1, 47.77, 18.91, 52.85},
};

std::string concurrency_section(const Catalog& cat, Summary& serving) {
  std::string table = "| ISL/OSL | concurrency | TTFT measured | predicted | error | ITL measured | predicted | error | tokens/s "
                      "measured | predicted | error |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  Summary sum;
  for (const auto& r : nim_rows) {
    const Scenario sc = scenario_of({{"model", "llama-3.1-70b"}, {"gpu", "h100-sxm"}, {"gpus", "2"}, {"tp", "2"},
                                     {"quant", "fp8"}, {"runtime", "tensorrt-llm"}, {"prompt-tokens", std::to_string(r.isl)},
                                     {"output-tokens", std::to_string(r.osl)}, {"users", std::to_string(r.concurrency)},
                                     {"think-time", "0"}, {"scenario", "offline"}});
    const Value d = run_infer(cat, sc, RunOptions{}).data;
    const double ttft = 1000 * d.find("ttft_s")->as_number(), itl = 1000 * d.find("tpot_s")->as_number(),
                 tps = d.find("throughput_tokens_per_s")->as_number();
    for (const auto& [m, p] : {std::pair{r.ttft_ms, ttft}, {r.itl_ms, itl}, {r.tokens_per_s, tps}}) {
      sum.errors.push_back(std::fabs(p / m - 1));
      serving.errors.push_back(std::fabs(p / m - 1));
    }
    table += fmt::format("| {}/{} | {} | {:.0f} ms | {:.0f} ms | {:+.0f}% | {:.1f} ms | {:.1f} ms | {:+.0f}% | {:.0f} | {:.0f} | {:+.0f}% |\n",
                         r.isl, r.osl, r.concurrency, r.ttft_ms, ttft, 100 * (ttft / r.ttft_ms - 1), r.itl_ms, itl,
                         100 * (itl / r.itl_ms - 1), r.tokens_per_s, tps, 100 * (tps / r.tokens_per_s - 1));
  }
  std::printf("concurrency: cases %zu median %.0f%% max %.0f%%\n", sum.errors.size(), 100 * sum.median(), 100 * sum.max());
  return fmt::format("## Serving at a fixed concurrency (NVIDIA NIM, TTFT, inter-token latency and throughput)\n\n"
                     "{} cases (three per row); median absolute error {:.0f}%, max {:.0f}%. A closed loop: every completion "
                     "brings a new prompt, which queues for the prefill (M/D/1) and stalls the batch's decoding while it "
                     "runs; none of the constants was fitted on these rows.\n\n{}\n",
                     sum.errors.size(), 100 * sum.median(), 100 * sum.max(), table);
}

// ---- vLLM at a fixed concurrency: tgarg01/silybench-data, derived/csv/perf_points.csv (runs
// 20260924T225750Z and 20260924T125045Z): vLLM 0.30.0 serving Qwen/Qwen3-8B on one H100 SXM 80GB
// (GCP a3-highgpu-1g), --max-model-len 16384, --gpu-memory-utilization 0.9, FP8 by
// --quantization fp8 (the BF16 checkpoint's weights quantised on load) or BF16, measured with
// vllm bench serve over random prompts of fixed length at max concurrency C (50 prompts to 5 C),
// three repeats. One user: the TTFT (its p95; at one user the spread is under 4%) and the median
// inter-token latency. More users: the output tokens/s and the TPOT p95. Two constants were fitted on rows of this
// table (marked fit): the serving layer cost (45 us, BF16 128/128's latency) and vLLM's request
// overhead (8.8 ms, the four 128-token TTFTs). `gpuplan infer --runtime vllm --gpus 1 --users C
// --think-time 0`.
struct VllmRow {
  const char* quant;
  int isl, osl, users;
  // One user: TTFT (p95) and the median inter-token latency; more: the TPOT p95 (a request's mean
  // interval between tokens, as narrow across requests as a closed loop makes it) and output tokens/s.
  double ttft_ms, itl_ms, tokens_per_s;
  bool fit_ttft = false, fit_itl = false;
};
constexpr VllmRow vllm_rows[] = {
    {"fp8", 128, 128, 1, 14.45, 4.618, 213.3, true},    {"fp8", 128, 1024, 1, 14.43, 4.662, 214.1, true},
    {"fp8", 1024, 128, 1, 29.30, 4.696, 205.1},         {"fp8", 2048, 2048, 1, 50.32, 4.796, 207.6},
    {"fp8", 8192, 512, 1, 205.08, 5.104, 182.6},        {"bf16", 128, 128, 1, 14.23, 6.826, 145.3, true, true},
    {"bf16", 128, 1024, 1, 14.10, 6.858, 145.7, true},  {"bf16", 1024, 128, 1, 34.31, 6.889, 141.0},
    {"bf16", 2048, 2048, 1, 61.34, 6.998, 142.4},       {"bf16", 8192, 512, 1, 253.87, 7.301, 128.8},
    {"fp8", 128, 128, 4, 0, 4.7236, 796.9},    {"fp8", 128, 128, 16, 0, 5.0097, 3087.6},   {"fp8", 128, 128, 64, 0, 6.7276, 9170.4},
    {"fp8", 128, 1024, 4, 0, 4.8298, 796.9},   {"fp8", 128, 1024, 16, 0, 5.2777, 3027.0},  {"fp8", 128, 1024, 64, 0, 7.366, 8620.7},
    {"fp8", 1024, 128, 4, 0, 4.9098, 759.8},   {"fp8", 1024, 128, 16, 0, 7.1358, 2393.3},  {"fp8", 1024, 128, 64, 0, 16.4428, 3700.6},
    {"fp8", 2048, 2048, 4, 0, 5.3838, 716.2},  {"fp8", 2048, 2048, 16, 0, 7.4497, 2136.1}, {"fp8", 2048, 2048, 64, 0, 15.7554, 4033.0},
    {"fp8", 8192, 512, 4, 0, 7.3515, 505.4},   {"fp8", 8192, 512, 16, 0, 15.8221, 966.3},   {"bf16", 128, 128, 4, 0, 6.933, 548.2},
    {"bf16", 128, 128, 16, 0, 7.2802, 2156.2}, {"bf16", 128, 128, 64, 0, 9.1006, 6957.7},  {"bf16", 128, 1024, 4, 0, 7.0248, 547.9},
    {"bf16", 128, 1024, 16, 0, 7.5456, 2116.8}, {"bf16", 128, 1024, 64, 0, 9.6334, 6597.0}, {"bf16", 1024, 128, 4, 0, 7.1294, 531.6},
    {"bf16", 1024, 128, 16, 0, 10.0664, 1756.8}, {"bf16", 1024, 128, 64, 0, 21.5832, 2847.3}, {"bf16", 2048, 2048, 4, 0, 7.6051, 506.4},
    {"bf16", 2048, 2048, 16, 0, 9.8005, 1625.1}, {"bf16", 2048, 2048, 64, 0, 18.3399, 3462.8}, {"bf16", 8192, 512, 4, 0, 9.85, 377.6},
    {"bf16", 8192, 512, 10, 0, 15.4396, 625.7},
};

std::string vllm_section(const Catalog& cat, Summary& serving) {
  std::string one = "| weights | ISL/OSL | TTFT measured | predicted | error | ITL measured | predicted | error |\n"
                    "|---|---|---:|---:|---:|---:|---:|---:|\n";
  std::string many = "| weights | ISL/OSL | users | tokens/s measured | predicted | error | TPOT p95 measured | predicted | "
                     "error |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n";
  Summary first, token, rate, pace, out;
  for (const auto& r : vllm_rows) {
    const Scenario sc = scenario_of({{"model", "qwen3-8b"}, {"gpu", "h100-sxm"}, {"gpus", "1"}, {"quant", r.quant},
                                     {"runtime", "vllm"}, {"prompt-tokens", std::to_string(r.isl)},
                                     {"output-tokens", std::to_string(r.osl)}, {"users", std::to_string(r.users)},
                                     {"think-time", "0"}});
    const Value d = run_infer(cat, sc, RunOptions{}).data;
    const auto add = [&](Summary& part, double predicted, double measured, bool fit) {
      const double e = predicted / measured - 1;
      if (fit) return fmt::format("{:+.0f}% (fit)", 100 * e);
      part.errors.push_back(std::fabs(e));
      out.errors.push_back(std::fabs(e));
      serving.errors.push_back(std::fabs(e));
      return fmt::format("{:+.0f}%", 100 * e);
    };
    if (r.users == 1) {
      const double ttft = 1000 * d.find("ttft_s")->as_number(), itl = 1000 * d.find("tpot_s")->as_number();
      const std::string et = add(first, ttft, r.ttft_ms, r.fit_ttft), ei = add(token, itl, r.itl_ms, r.fit_itl);
      one += fmt::format("| {} | {}/{} | {:.1f} ms | {:.1f} ms | {} | {:.2f} ms | {:.2f} ms | {} |\n", r.quant, r.isl, r.osl,
                         r.ttft_ms, ttft, et, r.itl_ms, itl, ei);
    } else {
      const double tps = d.find("throughput_tokens_per_s")->as_number(), tpot = 1000 * d.find("tpot_s")->as_number();
      const std::string er = add(rate, tps, r.tokens_per_s, false), ep = add(pace, tpot, r.itl_ms, false);
      many += fmt::format("| {} | {}/{} | {} | {:.0f} | {:.0f} | {} | {:.2f} ms | {:.2f} ms | {} |\n", r.quant, r.isl,
                          r.osl, r.users, r.tokens_per_s, tps, er, r.itl_ms, tpot, ep);
    }
  }
  std::printf("vllm: out of sample %zu cases median %.0f%% max %.0f%% (ttft %.0f%%, itl %.0f%%, throughput %.0f%%, "
              "tpot at 4-64 users %.0f%%)\n",
              out.errors.size(), 100 * out.median(), 100 * out.max(), 100 * first.median(), 100 * token.median(),
              100 * rate.median(), 100 * pace.median());
  return fmt::format(
      "## vLLM at a fixed concurrency (Qwen3-8B on one H100, silybench-data; part of the serving corpus)\n\n"
      "vLLM 0.30.0 with vllm bench serve, one user (TTFT p95 and median inter-token latency) and 4 to 64 (output "
      "tokens/s and TPOT p95: each row a point of the throughput-interactivity frontier, throughput per GPU against "
      "a user's tokens/s), `--runtime vllm --gpus 1 --users C --think-time 0`. Two constants were fitted on rows "
      "marked fit: the serving layer cost, 45 us a layer and pass (BF16 128/128's latency), and vLLM's request "
      "overhead, 8.8 ms (the 128-token TTFTs). Out of sample: {} cases, median absolute error {:.0f}%, max {:.0f}% "
      "(one-user TTFT median {:.0f}%, one-user latency {:.0f}%, throughput {:.0f}%, TPOT at 4-64 users {:.0f}%). A "
      "closed loop's requests each see about the same prefills land in their lives, so the TPOT p95 is close to "
      "the mean the model gives. The FP8 runs (quantised on load to per-tensor FP8) pay vLLM's quantisation of each "
      "GEMM's 16-bit input in a call of its own, 2.4 us and 3 bytes an element (vLLM PR 17126's GEMM benchmark, with "
      "and without it; not fitted here): their one-user latencies went from 4-9% fast to within 4%. Prompts' attention "
      "runs in 16 bits over the 16-bit cache whatever the weights, at flash attention's rate for the prompt's keys "
      "(the training model's, fitted on FlashAttention-3's H100 sweep): before, it ran at the FP8 rate on the linear "
      "layers' curve, and the FP8 8K prompt was 18% fast (now 13%). The BF16 TTFTs of 1k-8k prompts are 11-20% "
      "slow: prefill's BF16 GEMMs on H100 reach about 54% of peak here (31.4 us a token between 2k and 8k), above "
      "the training model's ceiling that the prefill uses, and no constant was changed for it. The benchmark starts its C users at once, so its TTFT percentiles above one user measure that first "
      "wave's queue (p95 555 ms at 16 users of 2k prompts), not the steady state the model gives; they are not "
      "compared. vLLM's log gives its KV cache as 430,272 tokens in the FP8 run; the model's 0.9 share leaves room "
      "for 460,500 (+7%).\n\n{}\n{}\n",
      out.errors.size(), 100 * out.median(), 100 * out.max(), 100 * first.median(), 100 * token.median(),
      100 * rate.median(), 100 * pace.median(), one, many);
}

// ---- Megatron-Bridge performance summary, NeMo containers 25.11 and 26.02 (NVIDIA-NeMo/Megatron-
// Bridge docs/performance-summary.md at df0289c; the 25.11 rows as first read at 00b7660, where the
// H100 Qwen3 235B row lacked a column, which df0289c's copy has): pre-training tokens/s/GPU of
// NVIDIA's performance recipes on DGX-GB300, GB200, B300, B200 and H100, each at its published
// layout (FSDP, TP, PP, CP, VP, EP, micro-batch, global batch; FP8-CS as fp8, FP8-MX as mxfp8,
// NVFP4 as nvfp4). The recipes overlap tensor-parallel traffic with GEMMs (tp-overlap 1, as NeMo's)
// and reduce gradients in 16 bits (grad_reduce_in_fp32 = False in every model's common perf
// settings, scripts/performance/configs/*/*_llm_pretrain.py); the FSDP rows on Grace machines
// offload activations to host memory (cpu_offloading_num_layers, 20 and 40 of 80 layers in
// llama3_workload_base_configs.py; gpuplan offloads every layer's). The search picks only
// recomputation and sequence parallelism. The same page's 25.09 table ran the MoE recipes with
// token dropping (a capacity factor) where 25.11 and 26.02 are dropless with forced balance: on the
// same layouts B200 Qwen3 30B ran 18,066 tokens/s/GPU against 25.11's 9,299, H100 Qwen3 30B
// 10,494 against 5,275, B200 Qwen3 235B 4,104 (FP8-CS) against 3,269; those rows are quoted in the
// report, not in the corpus.
struct BridgeRow {
  const char* model;
  const char* gpu;
  int gpus;
  const char* precision;
  int global_batch, micro_batch, seq, fsdp, tp, pp, cp, vp, ep;
  double tokens_per_s_per_gpu;
  bool offload_activations = false;
  const char* release = "25.11";  // the NeMo container of the table
};
constexpr BridgeRow bridge_rows[] = {
    {"llama-3-8b", "gb300", 8, "fp8", 128, 2, 8192, 0, 1, 1, 1, 1, 1, 37556},
    {"llama-3-70b", "gb300", 64, "fp8", 256, 2, 8192, 1, 1, 1, 1, 1, 1, 4520, true},
    {"llama-3.1-405b", "gb300", 256, "fp8", 1536, 1, 8192, 0, 2, 8, 2, 4, 1, 999},
    {"deepseek-v3", "gb300", 256, "bf16", 4096, 1, 4096, 0, 1, 2, 1, 4, 32, 3848},
    {"deepseek-v3", "gb300", 256, "mxfp8", 4096, 1, 4096, 0, 1, 2, 1, 4, 32, 4357},
    {"gpt-oss-120b", "gb300", 64, "bf16", 1280, 2, 8192, 0, 1, 1, 1, 1, 64, 18347},
    {"qwen3-30b-a3b", "gb300", 8, "mxfp8", 512, 4, 4096, 0, 1, 1, 1, 1, 8, 28934},
    {"qwen3-235b-a22b", "gb300", 256, "bf16", 8192, 2, 4096, 0, 1, 4, 1, 12, 16, 6131},
    {"llama-3-8b", "gb200", 8, "fp8", 128, 2, 8192, 0, 1, 1, 1, 1, 1, 31508},
    {"llama-3-70b", "gb200", 64, "fp8", 256, 2, 8192, 1, 1, 1, 1, 1, 1, 4312, true},
    {"llama-3.1-405b", "gb200", 256, "fp8", 1536, 1, 8192, 0, 4, 16, 1, 4, 1, 813},
    {"deepseek-v3", "gb200", 256, "bf16", 4096, 1, 4096, 0, 1, 4, 1, 4, 64, 3139},
    {"deepseek-v3", "gb200", 256, "mxfp8", 4096, 1, 4096, 0, 1, 8, 1, 4, 32, 4018},
    {"gpt-oss-120b", "gb200", 64, "bf16", 1280, 1, 8192, 0, 1, 1, 1, 1, 64, 15876},
    {"qwen3-30b-a3b", "gb200", 8, "mxfp8", 512, 4, 4096, 0, 1, 1, 1, 1, 8, 23766},
    {"qwen3-235b-a22b", "gb200", 256, "bf16", 8192, 1, 4096, 0, 1, 8, 1, 3, 32, 4916},
    {"llama-3-8b", "b200", 8, "fp8", 128, 2, 8192, 0, 1, 1, 1, 1, 1, 30624},
    {"llama-3.1-405b", "b200", 128, "fp8", 64, 1, 8192, 0, 4, 8, 2, 8, 1, 661},
    {"deepseek-v3", "b200", 256, "mxfp8", 2048, 1, 4096, 0, 1, 16, 1, 1, 8, 2139},
    {"gpt-oss-120b", "b200", 64, "bf16", 512, 4, 4096, 0, 1, 1, 1, 1, 8, 8213},
    {"qwen3-30b-a3b", "b200", 8, "mxfp8", 512, 1, 4096, 0, 1, 1, 1, 1, 8, 9299},
    {"qwen3-235b-a22b", "b200", 64, "mxfp8", 1024, 1, 4096, 0, 1, 8, 1, 2, 8, 3269},
    {"llama-3-8b", "h100-sxm", 8, "fp8", 128, 1, 8192, 1, 1, 1, 1, 1, 1, 14451},
    {"llama-3-70b", "h100-sxm", 64, "fp8", 128, 1, 8192, 0, 4, 8, 1, 5, 1, 1602},
    {"llama-3.1-405b", "h100-sxm", 1024, "fp8", 512, 1, 8192, 0, 8, 8, 2, 8, 1, 292},
    {"gpt-oss-120b", "h100-sxm", 64, "bf16", 512, 4, 4096, 0, 1, 4, 1, 1, 8, 5630},
    {"qwen3-30b-a3b", "h100-sxm", 16, "fp8", 512, 2, 4096, 0, 1, 2, 1, 24, 8, 5275},
    {"qwen3-235b-a22b", "h100-sxm", 256, "fp8", 2048, 1, 4096, 0, 2, 8, 1, 4, 32, 1575},
    {"llama-3-70b", "gb300", 64, "fp8", 256, 2, 8192, 1, 1, 1, 1, 1, 1, 5003, true, "26.02"},
    {"llama-3-70b", "gb300", 64, "mxfp8", 256, 1, 8192, 0, 1, 4, 1, 5, 1, 4596, false, "26.02"},
    {"llama-3-70b", "gb300", 64, "nvfp4", 256, 1, 8192, 0, 1, 4, 1, 5, 1, 6798, false, "26.02"},
    {"llama-3.1-405b", "gb300", 256, "fp8", 1536, 1, 8192, 0, 4, 8, 1, 4, 1, 988, false, "26.02"},
    {"llama-3.1-405b", "gb300", 256, "mxfp8", 1536, 1, 8192, 0, 2, 8, 2, 4, 1, 931, false, "26.02"},
    {"llama-3.1-405b", "gb300", 256, "nvfp4", 1536, 1, 8192, 0, 4, 8, 1, 4, 1, 1347, false, "26.02"},
    {"deepseek-v3", "gb300", 256, "mxfp8", 4096, 2, 4096, 0, 1, 2, 1, 8, 32, 4612, false, "26.02"},
    {"gpt-oss-120b", "gb300", 64, "bf16", 1280, 4, 4096, 0, 1, 1, 1, 1, 64, 19412, false, "26.02"},
    {"qwen3-30b-a3b", "gb300", 8, "mxfp8", 512, 8, 4096, 0, 1, 1, 1, 1, 8, 30376, false, "26.02"},
    {"qwen3-235b-a22b", "gb300", 256, "mxfp8", 8192, 2, 4096, 0, 1, 4, 1, 1, 32, 6583, false, "26.02"},
    {"llama-3-70b", "gb200", 64, "fp8", 256, 2, 8192, 1, 1, 1, 1, 1, 1, 4040, true, "26.02"},
    {"llama-3-70b", "gb200", 64, "mxfp8", 256, 1, 8192, 0, 2, 4, 1, 5, 1, 3887, false, "26.02"},
    {"llama-3-70b", "gb200", 64, "nvfp4", 256, 1, 8192, 0, 2, 4, 1, 5, 1, 5041, false, "26.02"},
    {"llama-3.1-405b", "gb200", 256, "fp8", 1536, 1, 8192, 0, 4, 16, 1, 4, 1, 793, false, "26.02"},
    {"llama-3.1-405b", "gb200", 256, "mxfp8", 1536, 1, 8192, 0, 4, 16, 1, 8, 1, 786, false, "26.02"},
    {"llama-3.1-405b", "gb200", 256, "nvfp4", 1536, 1, 8192, 0, 4, 16, 1, 8, 1, 1145, false, "26.02"},
    {"deepseek-v3", "gb200", 256, "mxfp8", 4096, 1, 4096, 0, 1, 4, 1, 4, 64, 3955, false, "26.02"},
    {"gpt-oss-120b", "gb200", 64, "bf16", 1280, 4, 4096, 0, 1, 1, 1, 1, 64, 15784, false, "26.02"},
    {"qwen3-30b-a3b", "gb200", 8, "mxfp8", 512, 4, 4096, 0, 1, 1, 1, 1, 8, 26084, false, "26.02"},
    {"qwen3-235b-a22b", "gb200", 256, "mxfp8", 8192, 1, 4096, 0, 1, 8, 1, 1, 32, 5448, false, "26.02"},
    {"deepseek-v3", "b300", 256, "mxfp8", 4096, 1, 4096, 0, 1, 16, 1, 1, 8, 2983, false, "26.02"},
    {"gpt-oss-120b", "b300", 64, "bf16", 1280, 4, 4096, 0, 1, 1, 1, 1, 64, 8359, false, "26.02"},
    {"qwen3-30b-a3b", "b300", 8, "mxfp8", 512, 8, 4096, 0, 1, 1, 1, 1, 8, 29521, false, "26.02"},
    {"qwen3-235b-a22b", "b300", 256, "mxfp8", 8192, 1, 4096, 0, 1, 8, 1, 4, 8, 2691, false, "26.02"},
    {"deepseek-v3", "b200", 256, "mxfp8", 4096, 1, 4096, 0, 1, 16, 1, 1, 8, 2689, false, "26.02"},
    {"gpt-oss-120b", "b200", 64, "bf16", 1280, 4, 4096, 0, 1, 1, 1, 1, 64, 8047, false, "26.02"},
    {"qwen3-30b-a3b", "b200", 8, "mxfp8", 512, 1, 4096, 0, 1, 1, 1, 1, 8, 9691, false, "26.02"},
    {"qwen3-235b-a22b", "b200", 256, "mxfp8", 8192, 1, 4096, 0, 1, 8, 1, 1, 8, 3805, false, "26.02"},
    {"llama-3-70b", "h100-sxm", 64, "fp8", 256, 1, 8192, 0, 4, 8, 1, 5, 1, 1621, false, "26.02"},
    {"llama-3.1-405b", "h100-sxm", 1024, "fp8", 1536, 1, 8192, 0, 8, 8, 2, 8, 1, 311, false, "26.02"},
    {"gpt-oss-120b", "h100-sxm", 64, "bf16", 1280, 1, 4096, 0, 1, 4, 1, 1, 8, 5993, false, "26.02"},
    {"qwen3-30b-a3b", "h100-sxm", 16, "fp8", 1024, 1, 4096, 0, 1, 2, 1, 12, 8, 2557, false, "26.02"},
    {"qwen3-235b-a22b", "h100-sxm", 256, "fp8", 8192, 1, 4096, 0, 2, 8, 1, 4, 32, 1633, false, "26.02"},
};

std::string bridge_section(const Catalog& cat) {
  std::string table = "| NeMo | model | device | gpus | precision | layout | measured tokens/s/GPU | predicted | error |\n"
                      "|---|---|---|---:|---|---|---:|---:|---:|\n";
  Summary sum;
  for (const auto& r : bridge_rows) {
    const ModelArch m = model_from_record(cat.get("models", r.model));
    StepModel sm = catalog_step_model(cat, m, r.gpu, r.seq, parse_precision(r.precision));
    sm.settings.tp_overlap = 1;
    sm.settings.train.grad_bytes = 2;
    sm.settings.train.fused_loss = true;  // Megatron-Bridge's providers set cross_entropy_loss_fusion
    LayoutConstraints c;
    c.tp = r.tp, c.pp = r.pp, c.cp = r.cp, c.ep = r.ep, c.interleave = r.vp, c.micro_batch = r.micro_batch;
    c.global_batch = r.global_batch;
    c.zero = r.fsdp ? 3 : 1;  // FSDP, else Megatron's distributed optimizer
    c.offload = r.offload_activations ? offload_activations : offload_none;
    if (r.offload_activations) {
      const Device host = resolve_host(no_flags(), cat, sm.device);
      const double per = std::max(1, sm.device.devices_per_node);
      sm.settings.train.host_memory = host.memory / per;
      sm.settings.host_memory_bw = host.memory_bw / per;
    }
    const std::string layout = fmt::format("{}tp{} pp{} cp{} v{} ep{} mb{} gb{}", r.fsdp ? "fsdp " : "", r.tp, r.pp, r.cp, r.vp,
                                           r.ep, r.micro_batch, r.global_batch);
    const SearchResult res = search_layouts(sm, r.gpus, c, 0, 1);
    if (res.top.empty()) {
      table += fmt::format("| {} | {} | {} | {} | {} | {} | {:.0f} | does not fit | - |\n", r.release, r.model, r.gpu, r.gpus,
                           r.precision, layout, r.tokens_per_s_per_gpu);
      continue;
    }
    const double predicted = res.top.front().tokens_per_s / r.gpus;
    sum.errors.push_back(std::fabs(predicted / r.tokens_per_s_per_gpu - 1));
    add_to_corpus(std::string("Megatron-Bridge ") + r.release, m, sm.device, predicted / r.tokens_per_s_per_gpu - 1, r.seq,
                  sm.settings.precision);
    table += fmt::format("| {} | {} | {} | {} | {} | {} {} | {:.0f} | {:.0f} | {:+.0f}% |\n", r.release, r.model, r.gpu, r.gpus,
                         r.precision, layout, recompute_text(res.top.front().layout), r.tokens_per_s_per_gpu, predicted,
                         100 * (predicted / r.tokens_per_s_per_gpu - 1));
  }
  const std::size_t rows = std::size(bridge_rows);
  std::printf("bridge: cases %zu of %zu fit, median %.0f%% max %.0f%%\n", sum.errors.size(), rows, 100 * sum.median(),
              100 * sum.max());
  return fmt::format(
      "## Megatron-Bridge performance summary (NeMo 25.11 and 26.02; part of the training corpus)\n\n"
      "Pre-training tokens/s/GPU of NVIDIA's performance recipes on GB300, GB200, B300, B200 and H100, each at its "
      "published layout (dense, MoE; BF16, FP8 with per-tensor scaling, MXFP8 and NVFP4), with the recipes' 16-bit "
      "gradient reduction and, for the FSDP rows on Grace machines, activations offloaded to host memory. {} of {} "
      "rows fit in memory as the model counts it (the GB200 405B rows at 8 virtual stages and the H100 Qwen3 235B "
      "rows do not: the model's memory is above what these recipes run in); on those, median absolute error {:.0f}%, "
      "max {:.0f}%. One constant was fitted on rows of this table: the NVFP4 GEMM ceiling (40% of the FP4 peak, "
      "step.cpp), on its three NVFP4 rows, which are in sample for it; every other constant is as in the other "
      "sections. Dense rows are within about 30%. The MoE rows that miss most share two things. They are dropless "
      "with forced balance: the same page's 25.09 table, with token dropping, ran the same layouts 1.3-2x faster (B200 "
      "Qwen3 30B 18,066 tokens/s/GPU against 25.11's 9,299; H100 Qwen3 30B 10,494 against 5,275; B200 Qwen3 235B "
      "4,104 against 3,269). And they run small micro-batches on 8-GPU x86 nodes: Qwen3 30B on 8 GPUs is within "
      "3% at micro-batch 8 (GB300, B300) and 2-3x slow at micro-batch 1 (B200, H100). The host's time to "
      "issue the kernels (step.cpp's host floor, eager: 36 kernels a layer and 30 more an MoE layer at 5 us) does not "
      "explain it: B200's Qwen3 30B row at micro-batch 1 leaves 6.3 ms a layer and micro-batch (9.2 ms measured, "
      "2.9 ms modelled), over a thousand eager launches' worth, where the floor is 0.33 ms; and Megatron-Bridge "
      "found CUDA graphs of attention and the router no faster on the same all-to-all dispatcher (PR 3868, Qwen3 "
      "30B on 16 H100). What the rest is (the dispatcher's wait for its token counts, imbalance under forced "
      "balance) needs a per-kernel profile.\n\n{}\n",
      sum.errors.size(), rows, 100 * sum.median(), 100 * sum.max(), table);
}

// ---- NeMo AutoModel's performance summary (NVIDIA-NeMo/Automodel docs/performance-summary.md, "Last
// Updated 2025-10-02", the version whose LoRA table runs TP 2 x FSDP): PyTorch FSDP2 on DGX H100,
// BF16, tokens/s/GPU, each at its published layout, with what its benchmark config sets
// (examples/benchmark/configs/*_te_deepep.yaml, examples/llm_pretrain/llama3_1_70b_pretrain_benchmark_
// 8nodes_tp1cp2pp1.yaml, examples/llm_finetune/{llama3_1,qwen,llama3_3}/*peft_benchmark*.yaml):
// activation checkpointing (full) or none, the attention kernels (Transformer Engine's fused
// attention: flash; PyTorch SDPA in the Hugging Face models (force_hf) and FlexAttention: flash2),
// async TP (tp-overlap 1). LoRA rows: rank 16 on every linear layer, frozen bf16 base. MoE rows
// dispatch through DeepEP, which sends a token once to each node (--ep-dispatch deepep). Nothing was
// fitted on these rows. Left out:
// the Nemotron V3 rows (hybrid Mamba layers, which the catalog's schema has no form for).
struct AutoModelRow {
  const char* model;
  int gpus, global_batch, micro_batch, seq, tp, pp, cp, vp, ep;
  Recompute recompute;
  bool flash2;        // PyTorch SDPA or FlexAttention rather than Transformer Engine's attention
  bool lora;          // LoRA rank 16 on every linear layer
  double tp_overlap;  // async TP: 1
  double tokens_per_s_per_gpu;
};
constexpr AutoModelRow automodel_rows[] = {
    {"qwen3-30b-a3b", 8, 512, 4, 4096, 1, 1, 1, 1, 8, Recompute::full, false, false, 0, 12040},
    {"gpt-oss-20b", 8, 256, 2, 4096, 1, 1, 1, 1, 8, Recompute::none, true, false, 0, 13058},
    {"gpt-oss-120b", 64, 512, 2, 4096, 1, 1, 1, 1, 64, Recompute::none, true, false, 0, 7626},
    {"deepseek-v3", 1024, 8192, 1, 4096, 1, 4, 1, 8, 64, Recompute::full, false, false, 0, 865},
    {"deepseek-v3", 256, 512, 1, 4096, 1, 4, 1, 8, 64, Recompute::full, false, false, 0, 1002},
    {"kimi-k2", 256, 512, 1, 4096, 1, 8, 1, 4, 32, Recompute::full, false, false, 0, 924},
    {"llama-3.1-70b", 64, 128, 1, 8192, 1, 1, 2, 1, 1, Recompute::full, true, false, 0, 866.77},
    {"llama-3.1-8b", 1, 32, 2, 4096, 1, 1, 1, 1, 1, Recompute::none, true, true, 0, 12472.87},
    {"qwen2.5-7b", 1, 32, 2, 4096, 1, 1, 1, 1, 1, Recompute::none, true, true, 0, 14110.05},
    {"llama-3.3-70b", 8, 32, 2, 4096, 2, 1, 1, 1, 1, Recompute::full, false, true, 1, 1091.85},
    {"qwen2.5-32b", 8, 32, 2, 4096, 2, 1, 1, 1, 1, Recompute::full, false, true, 1, 2250.31},
    {"llama-3.3-70b", 16, 32, 2, 4096, 2, 1, 1, 1, 1, Recompute::full, false, true, 1, 984.85},
    {"qwen2.5-32b", 16, 32, 2, 4096, 2, 1, 1, 1, 1, Recompute::full, false, true, 1, 2072.89},
};

std::string automodel_section(const Catalog& cat) {
  std::string table = "| model | gpus | layout | attention | fine-tuning | measured tokens/s/GPU | predicted | error |\n"
                      "|---|---:|---|---|---|---:|---:|---:|\n";
  Summary sum;
  int fits = 0;
  for (const auto& r : automodel_rows) {
    const ModelArch m = model_from_record(cat.get("models", r.model));
    StepModel sm = catalog_step_model(cat, m, "h100-sxm", r.seq, Precision::bf16);
    sm.settings.train.flash2 = r.flash2;
    sm.settings.train.fp32_shards = true;  // FSDP2's mixed precision, as --framework fsdp
    sm.settings.ep_dedup = true;           // DeepEP's dispatch (--ep-dispatch deepep), the table's MoE kernels
    sm.settings.tp_overlap = r.tp_overlap;
    if (r.lora) sm.settings.train.finetune = Finetune::lora, sm.settings.train.lora_rank = 16;
    LayoutConstraints c;
    c.tp = r.tp, c.pp = r.pp, c.cp = r.cp, c.ep = r.ep, c.interleave = r.vp, c.micro_batch = r.micro_batch;
    c.global_batch = r.global_batch, c.zero = 3, c.recompute = r.recompute, c.offload = offload_none;
    if (r.recompute == Recompute::full) c.recompute_layers = 0;  // every layer, as the configs checkpoint them
    const std::string layout = fmt::format("fsdp tp{} pp{} cp{} v{} ep{} mb{} gb{} {}", r.tp, r.pp, r.cp, r.vp, r.ep,
                                           r.micro_batch, r.global_batch, to_string(r.recompute));
    const SearchResult res = search_layouts(sm, r.gpus, c, 0, 1);
    const char* attention = r.flash2 ? "flash2" : "flash";
    if (res.top.empty()) {
      table += fmt::format("| {} | {} | {} | {} | {} | {:.0f} | does not fit | - |\n", r.model, r.gpus, layout, attention,
                           r.lora ? "LoRA r16" : "-", r.tokens_per_s_per_gpu);
      continue;
    }
    ++fits;
    const double predicted = res.top.front().tokens_per_s / r.gpus, err = predicted / r.tokens_per_s_per_gpu - 1;
    sum.errors.push_back(std::fabs(err));
    add_to_corpus("NeMo AutoModel", m, sm.device, err, r.seq, Precision::bf16, sm.settings.train.finetune);
    table += fmt::format("| {} | {} | {} | {} | {} | {:.0f} | {:.0f} | {:+.0f}% |\n", r.model, r.gpus, layout, attention,
                         r.lora ? "LoRA r16" : "-", r.tokens_per_s_per_gpu, predicted, 100 * err);
  }
  const std::size_t rows = std::size(automodel_rows);
  std::printf("automodel: cases %d of %zu fit, median %.0f%% max %.0f%%\n", fits, rows, 100 * sum.median(), 100 * sum.max());
  return fmt::format(
      "## NeMo AutoModel (PyTorch FSDP2 on H100, BF16; part of the training corpus)\n\n"
      "Pre-training and LoRA fine-tuning tokens/s/GPU of NeMo AutoModel's benchmark recipes (docs/performance-summary.md, "
      "2025-10-02), each at its published layout with its config's activation checkpointing, attention kernels and "
      "async TP; LoRA at rank 16 on every linear layer over a frozen bf16 base. {} of {} rows fit in memory as the "
      "model counts it; on those, median absolute error {:.0f}%, max {:.0f}%. None of the constants was fitted on "
      "them. The LoRA rows, the first fine-tuning cases, are within 13%: a frozen base's backward without weight "
      "gradients and the base's gathers are priced as run. The Qwen3 30B row runs the recipe Megatron-Bridge's H100 "
      "table runs 2-4x slower (above): here, with DeepEP at micro-batch 4, the devices' work sets the pace, and the "
      "model is 24% slow. The FSDP pre-training rows are slow by 20-27%, and for the dense one the cause is plain: "
      "Llama 3.1 70B (FSDP 32 x CP 2, 4 micro-batches a step, explicit FSDP2 prefetching) measures 18.9 s a step "
      "against 18.6 s of modelled compute, while the model exposes half of ZeRO-3's per-micro-batch gathers (6.9 s). "
      "Hiding them behind each micro-batch's compute puts it within 2% but moves MosaicML's and torchtitan's FSDP "
      "rows 4-9 pp fast and the two-node LoRA rows to +29%: those runs expose about half, so the frameworks differ "
      "here, and the rule was left as it is.\n\n{}\n",
      fits, rows, 100 * sum.median(), 100 * sum.max(), table);
}

// ---- MaxText on TPU: AI-Hypercomputer/maxtext docs/reference/models/tiering.md (at 20a91e1),
// "Approx tokens/sec/device" of the Gold and Silver pre-training recipes on Trillium (v6e) and v5p,
// BF16. MaxText shards the model over the slice's ICI (FSDP, ZeRO-3) without pipelining; the
// search picks tensor, context and expert parallelism, recomputation and the micro-batch, at about
// 4M tokens a step.
struct MaxTextRow {
  const char* model;
  const char* tpu;
  int chips, seq;
  double tokens_per_s_per_chip;
};
constexpr MaxTextRow maxtext_rows[] = {
    {"llama-2-70b", "tpu-v6e", 256, 4096, 900},    {"llama-3.1-8b", "tpu-v6e", 256, 8192, 7207},
    {"llama-3.1-70b", "tpu-v6e", 256, 8192, 960},  {"llama-3.1-405b", "tpu-v6e", 256, 8192, 123},
    {"mixtral-8x7b", "tpu-v6e", 256, 4096, 3899},  {"mixtral-8x22b", "tpu-v6e", 256, 4096, 1326},
    {"llama-2-70b", "tpu-v5p", 512, 4096, 692},    {"mixtral-8x7b", "tpu-v5p", 256, 4096, 2909},
};

std::string maxtext_section(const Catalog& cat) {
  std::string table = "| model | device | chips | seq | layout found | measured tokens/s/chip | predicted | error |\n"
                      "|---|---|---:|---:|---|---:|---:|---:|\n";
  Summary sum;
  for (const auto& r : maxtext_rows) {
    const ModelArch m = model_from_record(cat.get("models", r.model));
    StepModel sm = catalog_step_model(cat, m, r.tpu, r.seq, Precision::bf16);
    sm.settings.train.fused_loss = true;  // XLA fuses the log-softmax (as --framework maxtext)
    LayoutConstraints c;
    c.pp = 1;
    c.zero = 3;
    c.offload = offload_none;
    const SearchResult res = search_layouts(sm, r.chips, c, 4.0 * 1024 * 1024, 1);
    if (res.top.empty()) {
      table += fmt::format("| {} | {} | {} | {} | none fits | {:.0f} | - | - |\n", r.model, r.tpu, r.chips, r.seq,
                           r.tokens_per_s_per_chip);
      continue;
    }
    const Candidate& best = res.top.front();
    const Layout& l = best.layout;
    const double predicted = best.tokens_per_s / r.chips, err = predicted / r.tokens_per_s_per_chip - 1;
    sum.errors.push_back(std::fabs(err));
    add_to_corpus("MaxText (TPU)", m, sm.device, err, r.seq);
    table += fmt::format("| {} | {} | {} | {} | tp{} cp{} ep{} zero3 {} mb{} gb{} | {:.0f} | {:.0f} | {:+.0f}% |\n", r.model,
                         r.tpu, r.chips, r.seq, l.tp, l.cp, l.ep, recompute_text(l), l.micro_batch, l.global_batch,
                         r.tokens_per_s_per_chip, predicted, 100 * err);
  }
  std::printf("maxtext: cases %zu median %.0f%% max %.0f%%\n", sum.errors.size(), 100 * sum.median(), 100 * sum.max());
  return fmt::format("## MaxText on TPU (Trillium and v5p, BF16; part of the training corpus)\n\n"
                     "{} cases; median absolute error {:.0f}%, max {:.0f}%. None of the constants was fitted on them.\n\n{}\n",
                     sum.errors.size(), 100 * sum.median(), 100 * sum.max(), table);
}

// The corpus summary: every case above that measured throughput or GPU-hours, by source and kind.
// ---- Memory per device at published layouts: torchtitan docs/performance.md (eaea6f6), peak
// memory per GPU beside each throughput row of Tables 1-4, whose micro-batch is the local batch
// (FSDP2 without pipelining accumulates no micro-batches). Reported, not a target. torchtitan's
// "selective" checkpointing is its per-op policy (matmul outputs kept), not Megatron's selective
// that the model counts; the Float8 rows also use torch.compile, whose fusions free memory.
struct MemoryRow {
  const char* model;
  int gpus, tp, cp, micro_batch, seq;
  const char* precision;
  Recompute recompute;
  double measured_gib;
  const char* what;
};
constexpr MemoryRow memory_rows[] = {
    {"llama-3.1-8b", 8, 1, 1, 2, 8192, "bf16", Recompute::selective, 82.4, "Table 1, FSDP"},
    {"llama-3.1-8b", 8, 1, 1, 2, 8192, "fp8", Recompute::selective, 76.8, "Table 1, + compile + Float8"},
    {"llama-3.1-8b", 128, 1, 1, 2, 8192, "bf16", Recompute::selective, 67.0, "Table 3, FSDP"},
    {"llama-3.1-8b", 128, 1, 1, 2, 8192, "fp8", Recompute::selective, 61.8, "Table 3, + compile + Float8"},
    {"llama-3.1-8b", 8, 1, 1, 1, 32768, "fp8", Recompute::full, 83.9, "Table 2, FSDP 8 CP 1"},
    {"llama-3.1-8b", 8, 1, 2, 1, 65536, "fp8", Recompute::full, 84.2, "Table 2, FSDP 4 CP 2"},
    {"llama-3.1-8b", 8, 1, 4, 1, 131072, "fp8", Recompute::full, 84.0, "Table 2, FSDP 2 CP 4"},
    {"llama-3.1-8b", 8, 1, 8, 1, 262144, "fp8", Recompute::full, 84.5, "Table 2, FSDP 1 CP 8"},
    {"llama-3.1-70b", 256, 8, 1, 16, 8192, "fp8", Recompute::full, 71.9, "Table 4, FSDP 32 TP 8"},
};

std::string memory_section(const Catalog& cat) {
  std::string table = "| rows | model | gpus | layout | precision | recompute | measured GiB | modelled GiB | error |\n"
                      "|---|---|---:|---|---|---|---:|---:|---:|\n";
  Summary sum;
  for (const auto& r : memory_rows) {
    const ModelArch m = model_from_record(cat.get("models", r.model));
    StepModel sm = catalog_step_model(cat, m, "h100-sxm-96gb", r.seq, parse_precision(r.precision));
    sm.settings.train.flash2 = true, sm.settings.train.fp32_shards = true;  // as --framework torchtitan
    Layout l;
    l.tp = r.tp, l.cp = r.cp, l.dp = r.gpus / (r.tp * r.cp), l.zero = 3, l.recompute = r.recompute;
    l.micro_batch = r.micro_batch, l.global_batch = r.micro_batch * l.dp, l.sequence_parallel = r.tp > 1;
    const double modelled = training_memory(m, sm.params, sm.settings.train, l).total().value() / 1073741824.0;
    const double err = modelled / r.measured_gib - 1;
    sum.errors.push_back(std::fabs(err));
    table += fmt::format("| {} | {} | {} | tp{} cp{} dp{} zero3 mb{} seq {} | {} | {} | {:.1f} | {:.1f} | {:+.0f}% |\n", r.what,
                         r.model, r.gpus, l.tp, l.cp, l.dp, l.micro_batch, r.seq, r.precision, to_string(r.recompute),
                         r.measured_gib, modelled, 100 * err);
  }
  std::printf("memory: cases %zu median %.0f%% max %.0f%%\n", sum.errors.size(), 100 * sum.median(), 100 * sum.max());
  return fmt::format("## Memory per device at published layouts (torchtitan, H100 96GB; reported, not a target)\n\n"
                     "Peak memory per GPU as torchtitan's performance page reports it, against the model's total at the "
                     "same layout and micro-batch (FSDP2 as ZeRO-3, sequence parallelism with TP, a 1 GiB reserve). {} "
                     "rows; median absolute error {:.0f}%, max {:.0f}%. Not like for like: torchtitan logs the caching "
                     "allocator's peak reservation (memory/max_reserved, components/metrics.py), cached and fragmented "
                     "blocks included, which grows toward capacity under pressure (the four long-context rows all read "
                     "84 of 89.4 GiB at 32K-262K tokens), while the model counts live tensors, a lower bound on it. "
                     "Where the model is above, torchtitan's selective checkpointing is its per-op policy, which keeps "
                     "less than the Megatron selective the model counts, and the Float8 rows use torch.compile too.\n\n{}\n",
                     sum.errors.size(), 100 * sum.median(), 100 * sum.max(), table);
}

std::string corpus_section() {
  struct Group {
    std::string name;
    Summary sum;
    long within = 0;
  };
  std::vector<Group> groups;
  auto add = [&](const std::string& name, double e) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) { return g.name == name; });
    if (it == groups.end()) it = groups.insert(groups.end(), Group{name, {}, 0});
    it->sum.errors.push_back(std::fabs(e));
    if (std::fabs(e) <= 0.35) ++it->within;
  };
  for (const auto& c : corpus()) {
    add("all", c.error);
    add("source: " + c.source, c.error);
    add("kind: " + c.kind, c.error);
    add("device family: " + c.device, c.error);
    if (c.seq >= 32768) add("context: 32K tokens or more", c.error);
    if (!c.precision.empty()) add("precision: " + c.precision, c.error);
    if (!c.finetune.empty()) add("fine-tuning: " + c.finetune, c.error);
  }
  std::string table = "| cases | n | median | max | within 35% |\n|---|---:|---:|---:|---:|\n";
  for (const auto& g : groups)
    table += fmt::format("| {} | {} | {:.1f}% | {:.0f}% | {} |\n", g.name, g.sum.errors.size(), 100 * g.sum.median(),
                         100 * g.sum.max(), g.within);
  const Summary& all = groups.empty() ? Summary{} : groups.front().sum;
  std::printf("training corpus: cases %zu median %.1f%% max %.0f%%\n", all.errors.size(), 100 * all.median(), 100 * all.max());
  return fmt::format(
      "## Public training corpus (target of the training issue: median absolute error at most 10%, none beyond 35%)\n\n"
      "Every throughput or GPU-hours case below (NeMo 24.12, MosaicML and torchtitan tables, Megatron-Bridge 25.11 and 26.02, "
      "NeMo AutoModel, MaxText on TPU, MLPerf Training v3.1, v4.1, v5.0 and v5.1, published runs): {} cases, median absolute error {:.1f}%, max {:.0f}%: median target {}, max target {}. The "
      "errors are of tokens/s (GPU-hours for the runs); by source, kind and device family:\n\n{}\n",
      all.errors.size(), 100 * all.median(), 100 * all.max(), all.median() <= 0.10 ? "met" : "not met",
      all.max() <= 0.35 ? "met" : "not met", table);
}

std::string runs_section(const Catalog& cat) {
  std::string table = "| run | settings | published GPU-hours | predicted GPU-hours | error | source |\n|---|---|---:|---:|---:|---|\n";
  Summary sum;
  for (const auto& r : run_rows) {
    const Scenario sc = scenario_of(r.settings);
    const Document d = run_train(cat, sc, RunOptions{});
    const double predicted = d.data.find("gpu_hours")->as_number();
    const double err = predicted / r.gpu_hours - 1;
    sum.errors.push_back(std::fabs(err));
    add_to_corpus("published run (GPU-hours)", model_from_record(cat.get("models", sc.model)), resolve_device(cat, sc.gpu),
                  err, 0, parse_precision(sc.precision));
    table += fmt::format("| {} | `{}` | {:.3g} M | {:.3g} M | {:+.0f}% | {} |\n", r.name, r.settings, r.gpu_hours / 1e6,
                         predicted / 1e6, 100 * err, r.source);
  }
  std::printf("published runs: cases %zu median %.0f%% max %.0f%%\n", sum.errors.size(), 100 * sum.median(), 100 * sum.max());
  return fmt::format("## Published training runs (GPU-hours; reported, not a target)\n\n"
                     "{} runs; median absolute error {:.0f}%, max {:.0f}%. Every setting not listed is the default, "
                     "the goodput derived from failures at Llama 3's rate, checkpoints and restarts (92% for Llama 3.1 "
                     "405B's 16,384 GPUs, 97-99% for the runs of 384-4,096). "
                     "The model is low on most: published totals include what the step model does not see (batch and "
                     "context ramps, long-context stages, evaluation, planned maintenance).\n\n{}\n",
                     sum.errors.size(), 100 * sum.median(), 100 * sum.max(), table);
}

// ---- MLPerf Training submissions at scale (rounds other than v4.0, which is held out): the step
// time each NVIDIA log records (tracked_stats train_step_timing, v3.1 and v4.1; train_step_time,
// v5.0 and v5.1), the median of the last block of steps before the run stopped, against `gpuplan train` at
// the layout the submission's config gives. No constant was fitted on these rows.
// - v3.1: mlcommons/training_results_v3.1, NVIDIA/results/eos-dfw_nN_ngc23.09_nemo/gpt3/result_0.txt
//   with config_DGXH100_Nx8xMINIBSx4x8_mbs1.sh and conf/custom.yaml (GPT-3 175B, sequence 2048,
//   tp 4, pp 8, virtual pipeline 12, micro-batch 1, global batch MINIBS x dp, sequence parallel,
//   FP8, TP_COMM_OVERLAP=True, no activation recomputation).
// - v4.1: training_results_v4.1 (as mirrored in swsok/training_results_v4.1), NVIDIA/results/
//   eos_nN_ngc24.09_nemo/gpt3/result_0.txt with config_DGXH100_Nx8xMINIBSx4x8_mbs2.sh and
//   b200_n8_preview_nemo with config_DGXB200_8x8x1024x4x8_mbs2_cg.sh (GPT-3 175B, tp 4, pp 8,
//   virtual pipeline 6, micro-batch 2, global batch 2048, FP8, TP overlap; B200 with per-layer CUDA
//   graphs). Its 11,616-GPU run (eos-dfw_n1452_ngc24.04) is left out: it is v4.0's configuration
//   and container, and v4.0 is held out.
// - v5.0: training_results_v5.0 (as mirrored in prishajain1/training_results_v5.0), NVIDIA/results/
//   eos-dfw_nN_ngc25.01_nemo/llama31_405b/result_0.txt with config_DGXH100_Nx8xMINIBSxtp8pp8cp2.sh
//   (Llama 3.1 405B, sequence 8192, tp 8, pp 8, cp 2, virtual pipeline 8, micro-batch 1, global
//   batch nodes x MINIBS / 16, FP8, TP_COMM_OVERLAP=True, distributed optimizer with overlapped
//   reduce and FP8 parameter gather), and tyche_ngpuN_ngc25.04_nemo with config_GB200_Nx4x112x
//   tp4pp8cp2_cg*.sh (the same at tp 4 on GB200, full CUDA graphs; the 512-GPU run maps ranks tp,
//   pp, dp).
// - v5.1: mlcommons/training_results_v5.1, NVIDIA/results/hsg_ngpuN_ngc25.09_nemo/llama31_405b/
//   result_0.txt with config_GB200_*xtp4pp8cp2_cg_fp4.sh (Llama 3.1 405B, sequence 8192, tp 4,
//   pp 8, cp 2, virtual pipeline 8, micro-batch 1, NVFP4, CUDA graphs, TP_COMM_OVERLAP=False); and
//   AMD/results/MI355X_EPYC_9575F_pytorch/llama31_8b/result_0.txt with config_MI355X_1x8x1_8b.sh
//   (Llama 3.1 8B on 8 MI355X, sequence 8192, tp 1, pp 1, micro-batch 2, global batch 32, FP8;
//   NeMo 2.5 on ROCm Megatron-core and TransformerEngine, as the MI350X Dockerfile of the same
//   implementation builds it). Its log records samples/s a block of 12,288 samples; the step is the
//   global batch over their median, 30.65.
struct MlperfRow {
  const char* round;
  const char* settings;  // flags, as on the command line
  const char* recipe;    // the config's layout and recipe, as flags
  int gpus;
  double step_s;  // measured
};
constexpr const char* gpt3_v31 =
    "framework=nemo tp=4 pp=8 interleave=12 micro-batch=1 seq-len=2048 precision=fp8 recompute=none tokens=100B";
constexpr const char* gpt3_v41 = "framework=nemo tp=4 pp=8 interleave=6 micro-batch=2 seq-len=2048 precision=fp8 "
                                 "recompute=none tokens=100B";
constexpr const char* gpt3_v41_b200 = "framework=nemo cuda-graphs=true tp=4 pp=8 interleave=6 micro-batch=2 seq-len=2048 "
                                      "precision=fp8 recompute=none tokens=100B";
constexpr const char* llama405_v50_h100 =
    "framework=nemo tp=8 pp=8 cp=2 interleave=8 micro-batch=1 seq-len=8192 precision=fp8 recompute=none tokens=100B";
constexpr const char* llama405_v50_gb200 = "framework=nemo cuda-graphs=true tp=4 pp=8 cp=2 interleave=8 micro-batch=1 "
                                           "seq-len=8192 precision=fp8 recompute=none tokens=100B";
constexpr const char* llama405_v51 = "framework=nemo tp-overlap=0 cuda-graphs=true tp=4 pp=8 cp=2 interleave=8 micro-batch=1 "
                                     "seq-len=8192 precision=nvfp4 recompute=none tokens=100B";
constexpr const char* llama8_v51_amd = "framework=nemo tp=1 pp=1 micro-batch=2 seq-len=8192 precision=fp8 recompute=none "
                                       "tokens=100B";
constexpr MlperfRow mlperf_rows[] = {
    {"v3.1", "model=gpt3-175b gpu=h100-sxm gpus=4096 global-batch=2048", gpt3_v31, 4096, 1.608},
    {"v3.1", "model=gpt3-175b gpu=h100-sxm gpus=6144 global-batch=3072", gpt3_v31, 6144, 1.620},
    {"v3.1", "model=gpt3-175b gpu=h100-sxm gpus=8192 global-batch=4096", gpt3_v31, 8192, 1.626},
    {"v3.1", "model=gpt3-175b gpu=h100-sxm gpus=10240 global-batch=2560", gpt3_v31, 10240, 0.925},
    {"v3.1", "model=gpt3-175b gpu=h100-sxm gpus=10752 global-batch=2688", gpt3_v31, 10752, 0.930},
    {"v4.1", "model=gpt3-175b gpu=h100-sxm gpus=256 global-batch=2048", gpt3_v41, 256, 18.37},
    {"v4.1", "model=gpt3-175b gpu=h100-sxm gpus=512 global-batch=2048", gpt3_v41, 512, 9.49},
    {"v4.1", "model=gpt3-175b gpu=b200 gpus=64 global-batch=2048", gpt3_v41_b200, 64, 36.04},
    {"v5.0", "model=llama-3.1-405b gpu=h100-sxm gpus=512 global-batch=1152", llama405_v50_h100, 512, 55.18},
    {"v5.0", "model=llama-3.1-405b gpu=h100-sxm gpus=2048 global-batch=1152", llama405_v50_h100, 2048, 14.25},
    {"v5.0", "model=llama-3.1-405b gpu=h100-sxm gpus=2432 global-batch=1216", llama405_v50_h100, 2432, 12.74},
    {"v5.0", "model=llama-3.1-405b gpu=h100-sxm gpus=2560 global-batch=1120", llama405_v50_h100, 2560, 11.20},
    {"v5.0", "model=llama-3.1-405b gpu=h100-sxm gpus=8192 global-batch=1536", llama405_v50_h100, 8192, 5.20},
    {"v5.0", "model=llama-3.1-405b gpu=gb200 gpus=256 global-batch=448", llama405_v50_gb200, 256, 19.20},
    {"v5.0", "model=llama-3.1-405b gpu=gb200 gpus=512 global-batch=896", llama405_v50_gb200, 512, 19.71},
    {"v5.1", "model=llama-3.1-405b gpu=gb200 gpus=2560 global-batch=960", llama405_v51, 2560, 3.164},
    {"v5.1", "model=llama-3.1-405b gpu=gb200 gpus=5120 global-batch=1280", llama405_v51, 5120, 2.223},
    {"v5.1", "model=llama-3.1-8b gpu=mi355x gpus=8 global-batch=32", llama8_v51_amd, 8, 32 / 30.65},
};

std::string mlperf_section(const Catalog& cat) {
  std::string table = "| round | settings | GPUs | measured step | predicted | error (tokens/s) |\n|---|---|---:|---:|---:|---:|\n";
  Summary sum;
  for (const auto& r : mlperf_rows) {
    const Scenario sc = scenario_of(std::string(r.settings) + " " + r.recipe);
    const Document d = run_train(cat, sc, RunOptions{});
    const double step = d.data.find("step_time_s")->as_number();
    const double err = r.step_s / step - 1;  // tokens/s predicted over measured
    sum.errors.push_back(std::fabs(err));
    add_to_corpus(std::string("MLPerf Training ") + r.round, model_from_record(cat.get("models", sc.model)),
                  resolve_device(cat, sc.gpu), err, static_cast<int>(sc.step.train.seq_len), parse_precision(sc.precision));
    table += fmt::format("| {} | `{}` | {} | {:.3f} s | {:.3f} s | {:+.0f}% |\n", r.round, r.settings, r.gpus, r.step_s, step,
                         100 * err);
  }
  std::printf("mlperf: cases %zu median %.0f%% max %.0f%%\n", sum.errors.size(), 100 * sum.median(), 100 * sum.max());
  return fmt::format(
      "## MLPerf Training at scale (v3.1, v4.1, v5.0 and v5.1; v4.0 is held out; part of the training corpus)\n\n"
      "NVIDIA's largest submissions: GPT-3 175B on 4,096 to 10,752 H100 (Eos, v3.1, NeMo 23.09: tp 4, pp 8, "
      "virtual pipeline 12, FP8, TP overlap), on 256 and 512 H100 and 64 B200 (v4.1, NeMo 24.09: virtual pipeline 6, "
      "micro-batch 2; v4.1's 11,616-GPU run repeats v4.0's configuration and is left out), Llama 3.1 405B on 512 to 8,192 H100 (Eos, v5.0, NeMo 25.01: tp 8, pp 8, "
      "cp 2, virtual pipeline 8, FP8, TP overlap) and on 256 and 512 GB200 (v5.0, NeMo 25.04: the same at tp 4, full "
      "CUDA graphs), Llama 3.1 405B on 2,560 and 5,120 GB200 (v5.1, NeMo 25.09: tp 4, pp 8, "
      "cp 2, virtual pipeline 8, NVFP4, CUDA graphs, TP_COMM_OVERLAP=False), and AMD's Llama 3.1 8B on 8 MI355X (v5.1, NeMo "
      "2.5 on ROCm: data parallel, micro-batch 2, FP8). The step time each log records, "
      "against the step at the submission's layout; every other setting is `--framework nemo`'s. {} cases, median "
      "absolute error {:.0f}%, max {:.0f}%. No constant was fitted on them; the v4.1, v5.0 and MI355X rows were added "
      "after the model they test, unchanged by them.\n\n"
      "- Llama 3.1 405B on H100 is within 4% from 512 to 8,192 GPUs (data-parallel degree 4 to 64), the error the "
      "same at every size: at 8,192 GPUs the model exposes 0.54 s of its 5.41 s step as data-parallel traffic, and "
      "the measured step (5.20 s) is as far below it as at 512 GPUs, where that traffic costs almost nothing.\n"
      "- The same recipe on GB200 in FP8 (April 2025) is 20-23% fast. Its per-GPU rate, 747 tokens/s at 256 GPUs, is "
      "below the 813 that Megatron-Bridge 25.11 measured seven months later for the same model and precision on "
      "GB200 with full recomputation (+3% in the model, section above): early Blackwell software, which the model, "
      "fitted on the later recipes, does not see.\n"
      "- Llama 3.1 8B on 8 MI355X (AMD, v5.1) is within 2%: the training corpus's first AMD Instinct row with a "
      "published layout.\n"
      "- GPT-3 at v4.1's micro-batch 2 is 7-8% slow on 256 and 512 H100 and within 2% on 64 B200.\n"
      "- GPT-3 is within 5% from 4,096 to 10,752 GPUs: the data-parallel traffic over 336 ranks of NDR is priced as "
      "run, so nothing grows with the node count that the logs do not show.\n"
      "- Llama 3.1 405B in NVFP4 is slow. Its compute alone is 92% of the measured step at 5,120 GPUs, so the NVFP4 GEMMs "
      "(40% of the FP4 peak, fitted on Megatron-Bridge's NVFP4 rows) run slower than MLPerf's recipe does. The "
      "submission also maps ranks tp, cp, pp, dp (TP_PP_DP_MAPPING=True), where gpuplan's order is Megatron's default "
      "(tp, cp, dp, pp), whose pipeline sends cross InfiniBand (0.22 s a step at 5,120 GPUs). Tried in that order, the "
      "sends fell to 0.014 s but the data-parallel traffic, then all on InfiniBand, showed 0.61 s (the step model hides "
      "gradient traffic only behind one micro-batch's backward pass, where Megatron's overlapped reduce and FP8 "
      "parameter gather spread it over the step): +42%, so the order was not added. With TP overlap on (the common "
      "config sets MC_TP_OVERLAP_AG and _RS) the rows would be 10-13% slow.\n\n{}\n",
      sum.errors.size(), 100 * sum.median(), 100 * sum.max(), table);
}

}  // namespace

int main(int argc, char** argv) {
  const char* vtrain = nullptr;
  const char* korthikanti = nullptr;
  const char* report = nullptr;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--vtrain")) vtrain = argv[i + 1];
    else if (!std::strcmp(argv[i], "--korthikanti")) korthikanti = argv[i + 1];
    else if (!std::strcmp(argv[i], "--report")) report = argv[i + 1];
    else {
      std::fprintf(stderr, "usage: gpuplan_validate [--vtrain CSV] [--korthikanti CSV] [--report REPORT.md]\n");
      return 2;
    }
  }
  Catalog cat = Catalog::builtin();
  bool ok = true;
  std::string text =
      "# Validation report\n\nRegenerate: `build/tests/gpuplan_validate --vtrain ../shared/validation/vtrain/multi-node.csv "
      "--korthikanti ../shared/validation/korthikanti/cases.csv --report tests/validation/REPORT.md` (ctest runs it as "
      "validation.*).\n\n";
  bool vt_ok = true, tp_ok = true, dec_ok = true;
  if (vtrain) text += vtrain_section(vtrain, vt_ok);
  if (korthikanti) text += korthikanti_section(korthikanti);
  std::string training = throughput_section(cat, tp_ok);
  training += bridge_section(cat);
  training += automodel_section(cat);
  training += maxtext_section(cat);
  training += mlperf_section(cat);
  training += runs_section(cat);
  text += corpus_section() + training + memory_section(cat);
  Summary serving;
  std::string serving_text = serving_section(cat, serving);
  serving_text += concurrency_section(cat, serving);
  serving_text += vllm_section(cat, serving);
  serving_text += prefill_section(cat, serving);
  Summary moe;
  serving_text += moe_kernel_section(cat, moe);
  serving_text += moe_serving_section(cat);
  serving_text += lab_section(cat, moe);
  serving_text += max_throughput_section(cat, moe);
  serving_text += one_user_section(cat, moe);
  std::printf("moe serving corpus: cases %zu median %.1f%% max %.0f%%\n", moe.errors.size(), 100 * moe.median(),
              100 * moe.max());
  serving_text += fmt::format("MoE serving corpus (the four sections above that say so; target: median at most 15%): {} "
                              "cases, median absolute error {:.1f}%, max {:.0f}%.\n\n",
                              moe.errors.size(), 100 * moe.median(), 100 * moe.max());
  const std::string decode_text = decode_section(cat, dec_ok, serving);
  std::printf("serving corpus: cases %zu median %.1f%% max %.0f%%\n", serving.errors.size(), 100 * serving.median(),
              100 * serving.max());
  text += fmt::format("## Public serving corpus (target of the serving issue: median absolute error at most 12%, none beyond "
                      "35%)\n\nTensorRT-LLM's offline throughput as measured (FP8 KV cache), NIM's TTFT, inter-token "
                      "latency and throughput at fixed concurrency, vLLM's one-user latencies and throughput at 4 to 64 users, "
                      "and llama.cpp's single-stream decode: {} cases, "
                      "median absolute error {:.1f}%, max {:.0f}%: median target {}, max target {}.\n\n",
                      serving.errors.size(), 100 * serving.median(), 100 * serving.max(),
                      serving.median() <= 0.12 ? "met" : "not met", serving.max() <= 0.35 ? "met" : "not met");
  text += decode_text + serving_text;
  if (report) std::ofstream(report) << text;
  ok = vt_ok && tp_ok && dec_ok;
  return ok ? 0 : 1;
}
