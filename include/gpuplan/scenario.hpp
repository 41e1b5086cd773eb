#pragma once
// Every input of one question in one plain struct. A command-line flag and a plan-file key
// are the same setting with the same name (--tp 8 is tp = 8) and both go through
// apply_setting, which validates and reports errors the same way.
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/analysis/step.hpp"
#include "gpuplan/layout.hpp"

namespace gpuplan {

class Catalog;

struct Scenario {
  std::string model;          // catalog id
  double params = 0;          // --params: synthesise a dense model
  std::optional<int> layers, hidden, heads, kv_heads, ffn, vocab;  // architecture overrides
  std::string gpu = "h100-sxm";
  int gpus = 0;               // fixed device count (train, search)
  LayoutConstraints layout;
  int seq_len = 0;            // 0: the model's default (min(max_context, 4096)) for training
  std::string precision = "bf16";
  std::string optimizer = "adam";
  int grad_bytes = 4;
  std::optional<double> reserve_bytes;
  double tokens = 0;          // training tokens; 0: 20 per parameter (Chinchilla)
  double deadline_s = 0;      // --weeks / --days
  double goodput = 0.9;       // share of wall-clock doing useful steps (Llama 3: >90%)
  double batch_tokens = 4.0 * 1024 * 1024;  // default global batch when none is given
  std::string mode = "train";  // memory: train or infer
  std::string quant = "bf16";
  int context = 0;            // inference context (tokens)
  int batch = 1;              // inference sequences
  std::vector<std::string> notes;  // how settings were interpreted, for --explain
};

// Applies one setting by its flag name without dashes ("tp", "micro-batch", "params").
// Throws Error(usage) naming the setting and what is accepted.
void apply_setting(Scenario& s, const std::string& name, const std::string& value);

// The names apply_setting knows, for "did you mean" in plan files.
const std::vector<std::string>& setting_names();

struct Job {
  ModelArch model;
  ParamCounts params;
  Device device;
  StepSettings step;
  std::vector<std::string> assumptions;
};

// Resolves ids through the catalog and builds the model and settings.
Job resolve(const Scenario& s, const Catalog& catalog);

}  // namespace gpuplan
