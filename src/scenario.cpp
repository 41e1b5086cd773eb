#include "gpuplan/scenario.hpp"

#include <cmath>
#include <fmt/format.h>

#include "gpuplan/catalog/catalog.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/quantity.hpp"

namespace gpuplan {

std::string to_string(Recompute r) {
  switch (r) {
    case Recompute::none: return "none";
    case Recompute::selective: return "selective";
    case Recompute::full: return "full";
  }
  return "selective";
}

Recompute parse_recompute(const std::string& s) {
  if (s == "none") return Recompute::none;
  if (s == "selective") return Recompute::selective;
  if (s == "full") return Recompute::full;
  fail(Exit::usage, fmt::format("--recompute '{}' is not known; expected none, selective or full", s));
}

namespace {

double quantity(const std::string& name, const std::string& value, QuantityKind kind) {
  try {
    return parse_quantity(value, kind);
  } catch (const QuantityError& e) {
    fail(Exit::usage, fmt::format("--{}: {}", name, e.what()));
  }
}

int positive_int(const std::string& name, const std::string& value, double max = 1e9) {
  double v = quantity(name, value, QuantityKind::count);
  if (v < 1 || v != std::floor(v) || v > max)
    fail(Exit::usage, fmt::format("--{} '{}' must be a whole number from 1 to {}", name, value, max));
  return static_cast<int>(v);
}

bool boolean(const std::string& name, const std::string& value) {
  if (value == "true" || value == "1" || value == "yes" || value == "on") return true;
  if (value == "false" || value == "0" || value == "no" || value == "off") return false;
  fail(Exit::usage, fmt::format("--{} '{}' must be true or false", name, value));
}

}  // namespace

const std::vector<std::string>& setting_names() {
  static const std::vector<std::string> names{
      "model", "params", "layers", "hidden", "heads", "kv-heads", "ffn", "vocab", "gpu", "gpus",
      "tp", "pp", "dp", "cp", "ep", "zero", "recompute", "micro-batch", "global-batch", "interleave",
      "sequence-parallel", "seq-len", "precision", "optimizer", "grad-dtype", "reserve", "tokens",
      "weeks", "days", "goodput", "mode", "quant", "context", "batch"};
  return names;
}

void apply_setting(Scenario& s, const std::string& name, const std::string& value) {
  auto& c = s.layout;
  if (name == "model") s.model = value;
  else if (name == "params") s.params = quantity(name, value, QuantityKind::count);
  else if (name == "layers") s.layers = positive_int(name, value, 1000);
  else if (name == "hidden") s.hidden = positive_int(name, value, 1000000);
  else if (name == "heads") s.heads = positive_int(name, value, 4096);
  else if (name == "kv-heads") s.kv_heads = positive_int(name, value, 4096);
  else if (name == "ffn") s.ffn = positive_int(name, value, 10000000);
  else if (name == "vocab") s.vocab = positive_int(name, value, 10000000);
  else if (name == "gpu") s.gpu = value;
  else if (name == "gpus") s.gpus = positive_int(name, value, 10000000);
  else if (name == "tp") c.tp = positive_int(name, value, 1024);
  else if (name == "pp") c.pp = positive_int(name, value, 1024);
  else if (name == "dp") c.dp = positive_int(name, value, 10000000);
  else if (name == "cp") c.cp = positive_int(name, value, 1024);
  else if (name == "ep") c.ep = positive_int(name, value, 4096);
  else if (name == "zero") {
    if (value != "0" && value != "1" && value != "2" && value != "3")
      fail(Exit::usage, fmt::format("--zero '{}' must be 0, 1, 2 or 3", value));
    c.zero = value[0] - '0';
  } else if (name == "recompute") c.recompute = parse_recompute(value);
  else if (name == "micro-batch") c.micro_batch = positive_int(name, value, 65536);
  else if (name == "global-batch") c.global_batch = positive_int(name, value, 100000000);
  else if (name == "interleave") c.interleave = positive_int(name, value, 128);
  else if (name == "sequence-parallel") c.sequence_parallel = boolean(name, value);
  else if (name == "seq-len") s.seq_len = positive_int(name, value, 100000000);
  else if (name == "precision") {
    DType d = parse_dtype(value);
    if (d != DType::bf16 && d != DType::fp16 && d != DType::fp8 && d != DType::fp32 && d != DType::tf32)
      fail(Exit::usage, fmt::format("--precision '{}' is not a training precision; expected bf16, fp16, fp8, tf32 or fp32", value));
    s.precision = value;
  } else if (name == "optimizer") {
    if (value != "adam" && value != "adam8bit" && value != "sgd")
      fail(Exit::usage, fmt::format("--optimizer '{}' is not known; expected adam, adam8bit or sgd", value));
    s.optimizer = value;
  } else if (name == "grad-dtype") {
    if (value == "fp32") s.grad_bytes = 4;
    else if (value == "bf16" || value == "fp16") s.grad_bytes = 2;
    else fail(Exit::usage, fmt::format("--grad-dtype '{}' is not known; expected fp32, bf16 or fp16", value));
  } else if (name == "reserve") s.reserve_bytes = quantity(name, value, QuantityKind::bytes);
  else if (name == "tokens") {
    s.tokens = quantity(name, value, QuantityKind::count);
    if (s.tokens <= 0) fail(Exit::usage, "--tokens must be positive (e.g. 15T)");
  } else if (name == "weeks" || name == "days") {
    double v = quantity(name, value, QuantityKind::real);
    if (v <= 0) fail(Exit::usage, fmt::format("--{} must be positive", name));
    s.deadline_s = v * (name == "weeks" ? 7 : 1) * 86400;
  } else if (name == "goodput") {
    s.goodput = quantity(name, value, QuantityKind::fraction);
    if (s.goodput < 0.05) fail(Exit::usage, "--goodput must be between 0.05 and 1");
  } else if (name == "mode") {
    if (value != "train" && value != "infer")
      fail(Exit::usage, fmt::format("--mode '{}' is not known; expected train or infer", value));
    s.mode = value;
  } else if (name == "quant") s.quant = value;
  else if (name == "context") s.context = positive_int(name, value, 100000000);
  else if (name == "batch") s.batch = positive_int(name, value, 1000000);
  else {
    std::string hint = suggest(name, setting_names());
    fail(Exit::usage, fmt::format("unknown setting '{}'{}", name, hint.empty() ? "" : "; did you mean " + hint + "?"));
  }
}

Job resolve(const Scenario& s, const Catalog& catalog) {
  Job j;
  if (!s.model.empty() && s.params > 0) fail(Exit::usage, "give --model or --params, not both");
  if (!s.model.empty()) {
    j.model = model_from_record(catalog.get("models", s.model));
  } else if (s.params > 0) {
    j.model = synthesize_dense(s.params);
    j.assumptions.push_back(fmt::format(
        "--params {:.3g}: synthesised a Llama-like dense model: head dim 128, width 128 x layers, 8 KV heads, "
        "SwiGLU ffn = 8/3 width (rounded up to 256), vocabulary 128,256, untied; {} layers, width {}, ffn {}",
        s.params, j.model.layers, j.model.hidden, j.model.ffn));
  } else {
    fail(Exit::usage, "no model: give --model ID (see 'gpuplan catalog list models') or --params N (e.g. 70B)");
  }
  ModelArch& m = j.model;
  const bool implicit_head_dim = !m.mla() && m.head_dim * m.heads == m.hidden;
  if (s.layers) m.layers = *s.layers;
  if (s.hidden) m.hidden = *s.hidden;
  if (s.heads) {
    if (m.kv_heads == m.heads) m.kv_heads = *s.heads;
    m.heads = *s.heads;
  }
  if (s.kv_heads) m.kv_heads = *s.kv_heads;
  if (s.ffn) m.ffn = *s.ffn, m.expert_ffn = m.moe() ? m.expert_ffn : *s.ffn;
  if (s.vocab) m.vocab = *s.vocab;
  if ((s.hidden || s.heads) && implicit_head_dim) {
    if (m.hidden % m.heads)
      fail(Exit::usage, fmt::format("--heads {} does not divide --hidden {}", m.heads, m.hidden));
    m.head_dim = m.hidden / m.heads;
  }
  if (s.layers || s.hidden || s.heads || s.kv_heads || s.ffn || s.vocab) m.id += "+overrides";
  validate(m);
  j.params = count_params(m);
  j.device = resolve_device(catalog, s.gpu);

  StepSettings& st = j.step;
  st.train.seq_len = s.seq_len > 0 ? s.seq_len : static_cast<int>(std::min<long>(m.max_context, 4096));
  if (s.seq_len > 0 && m.max_context > 0 && s.seq_len > m.max_context)
    j.assumptions.push_back(fmt::format("warning: --seq-len {} exceeds {}'s maximum context {}", s.seq_len, m.id, m.max_context));
  st.train.grad_bytes = s.grad_bytes;
  st.train.optimizer = s.optimizer == "adam8bit" ? Optimizer::adam8bit : s.optimizer == "sgd" ? Optimizer::sgd : Optimizer::adam;
  if (s.reserve_bytes) st.train.reserve = bytes(*s.reserve_bytes);
  st.compute_dtype = parse_dtype(s.precision);
  st.train.weight_bytes = (st.compute_dtype == DType::fp32 || st.compute_dtype == DType::tf32) ? 4 : 2;
  st.eff = default_efficiency(j.device.family);
  return j;
}

}  // namespace gpuplan
