#include "gpuplan/scenario.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fmt/ranges.h>
#include <fmt/format.h>

#include "gpuplan/analysis/inference.hpp"
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
      "weeks", "days", "goodput", "mode", "quant", "context", "batch",
      "site", "pue", "power-fraction", "buy", "years", "utilisation", "cloud", "committed", "price", "capex",
      "staff", "facility-cost", "storage", "storage-units", "checkpoint-every", "epochs", "bytes-per-token",
      "oversubscription", "runtime", "kv-dtype", "prompt-tokens", "output-tokens", "rate", "users", "think-time",
      "ttft", "tpot", "strict", "host", "calibration", "efficiency-scale", "price-scale", "pue-scale", "tokens-scale",
      "power-scale", "tp-overlap", "ep-overlap"};
  return names;
}

bool Scenario::has(const std::string& name) const { return std::find(given.begin(), given.end(), name) != given.end(); }

void apply_setting(Scenario& s, const std::string& name, const std::string& value) {
  auto& c = s.layout;
  if (std::find(setting_names().begin(), setting_names().end(), name) != setting_names().end()) s.given.push_back(name);
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
  } else if (name == "quant") {
    bits_per_weight(value);  // validates
    s.quant = value;
  } else if (name == "runtime") {
    parse_runtime(value);
    s.runtime = value;
  } else if (name == "kv-dtype") {
    kv_element_bytes(value);
    s.kv_dtype = value;
  } else if (name == "prompt-tokens") s.prompt_tokens = positive_int(name, value, 100000000);
  else if (name == "output-tokens") s.output_tokens = positive_int(name, value, 100000000);
  else if (name == "rate") {
    s.rate = quantity(name, value, QuantityKind::real);
    if (s.rate <= 0 || s.rate > 1e7) fail(Exit::usage, fmt::format("--rate '{}' must be more than 0 and at most 1e7 requests per second", value));
  } else if (name == "users") s.users = positive_int(name, value, 1e9);
  else if (name == "think-time") s.think_s = quantity(name, value, QuantityKind::duration);
  else if (name == "ttft" || name == "tpot") {
    double v = quantity(name, value, QuantityKind::duration);
    if (v <= 0 || v > 3600) fail(Exit::usage, fmt::format("--{} '{}' must be more than 0 s and at most 1 h", name, value));
    (name == "ttft" ? s.ttft_s : s.tpot_s) = v;
  } else if (name == "strict") s.strict = boolean(name, value);
  else if (name == "host") s.host = value;
  else if (name == "calibration") s.calibration = value;
  else if (name == "tp-overlap" || name == "ep-overlap")
    (name == "tp-overlap" ? s.tp_overlap : s.ep_overlap) = quantity(name, value, QuantityKind::fraction);
  else if (name.size() > 6 && name.substr(name.size() - 6) == "-scale") {
    const double v = quantity(name, value, QuantityKind::real);
    if (v < 0.1 || v > 10) fail(Exit::usage, fmt::format("--{} '{}' must be from 0.1 to 10", name, value));
    (name == "efficiency-scale" ? s.efficiency_scale
     : name == "price-scale"    ? s.price_scale
     : name == "pue-scale"      ? s.pue_scale
     : name == "tokens-scale"   ? s.tokens_scale
                                : s.power_scale) = v;
  }
  else if (name == "context") s.context = positive_int(name, value, 100000000);
  else if (name == "batch") s.batch = positive_int(name, value, 1000000);
  else if (name == "site") s.site = value;
  else if (name == "pue") {
    double v = quantity(name, value, QuantityKind::real);
    if (v < 1 || v > 3) fail(Exit::usage, fmt::format("--pue '{}' must be from 1 (no overhead) to 3", value));
    s.pue = v;
  } else if (name == "power-fraction") {
    s.power_fraction = quantity(name, value, QuantityKind::fraction);
    if (s.power_fraction < 0.1) fail(Exit::usage, "--power-fraction must be between 0.1 and 1 (share of nameplate drawn on average)");
  } else if (name == "buy") s.buy = boolean(name, value);
  else if (name == "years") {
    s.years = quantity(name, value, QuantityKind::real);
    if (s.years <= 0 || s.years > 30) fail(Exit::usage, fmt::format("--years '{}' must be more than 0 and at most 30", value));
  } else if (name == "utilisation") {
    s.utilisation = quantity(name, value, QuantityKind::fraction);
    if (s.utilisation < 0.01) fail(Exit::usage, "--utilisation must be between 1% and 100%");
  } else if (name == "cloud") s.cloud = value;
  else if (name == "committed") s.committed = boolean(name, value);
  else if (name == "price") {
    double v = quantity(name, value, QuantityKind::money_per_hour);
    if (v <= 0 || v * 3600 > 1000) fail(Exit::usage, fmt::format("--price '{}' must be more than $0/h and at most $1000/h per device", value));
    s.price = v;
  } else if (name == "capex") {
    double v = quantity(name, value, QuantityKind::money);
    if (v <= 0 || v > 1e8) fail(Exit::usage, fmt::format("--capex '{}' must be more than $0 and at most $100M per device", value));
    s.capex = v;
  } else if (name == "staff") s.staff_per_year = quantity(name, value, QuantityKind::money);
  else if (name == "facility-cost") {
    double v = quantity(name, value, QuantityKind::real);
    if (v > 10000) fail(Exit::usage, "--facility-cost is USD per kW of IT per month, at most 10000");
    s.facility_cost = v;
  } else if (name == "storage") s.storage = value;
  else if (name == "storage-units") s.storage_units = positive_int(name, value, 1000000);
  else if (name == "checkpoint-every") {
    s.checkpoint_every_s = quantity(name, value, QuantityKind::duration);
    if (s.checkpoint_every_s < 60) fail(Exit::usage, "--checkpoint-every must be at least 1 minute (e.g. 30min, 1h)");
  } else if (name == "epochs") {
    s.epochs = quantity(name, value, QuantityKind::real);
    if (s.epochs < 0.01 || s.epochs > 1000) fail(Exit::usage, "--epochs must be from 0.01 to 1000");
  } else if (name == "bytes-per-token") {
    s.bytes_per_token = quantity(name, value, QuantityKind::real);
    if (s.bytes_per_token < 0.5 || s.bytes_per_token > 64) fail(Exit::usage, "--bytes-per-token must be from 0.5 to 64");
  } else if (name == "oversubscription") {
    s.oversubscription = quantity(name, value, QuantityKind::real);
    if (s.oversubscription < 1 || s.oversubscription > 16)
      fail(Exit::usage, "--oversubscription must be from 1 (non-blocking) to 16");
  } else {
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
  st.tp_overlap = s.tp_overlap;
  st.ep_overlap = s.ep_overlap;
  j.facility = resolve_facility(s, catalog, j.device);
  resolve_calibration(s, j);
  if (s.efficiency_scale != 1) {
    Efficiency& e = j.step.eff;
    e.gemm_max = std::min(1.0, e.gemm_max * s.efficiency_scale);
    e.gemm_max_fp8 = std::min(1.0, e.gemm_max_fp8 * s.efficiency_scale);
    e.memory = std::min(1.0, e.memory * s.efficiency_scale);
    j.assumptions.push_back(fmt::format("efficiency scaled by {} (efficiency-scale)", s.efficiency_scale));
  }
  return j;
}

std::string default_calibration_path(const std::string& accelerator) {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  const char* home = std::getenv("HOME");
  std::string base = xdg && *xdg ? xdg : home ? std::string(home) + "/.config" : std::string();
  return base.empty() ? std::string() : base + "/gpuplan/calibration/" + accelerator + ".toml";
}

void resolve_calibration(const Scenario& s, Job& j) {
  std::string path = s.calibration;
  if (path.empty()) {
    path = default_calibration_path(j.device.id);
    std::error_code ec;
    if (path.empty() || !std::filesystem::exists(path, ec)) return;
  }
  Calibration c = load_calibration(path);
  check_calibration_for(c, j.device, path);
  finish_calibration(c, j.device);
  for (auto& n : apply_calibration(c, j.device, j.step.compute_dtype, j.step.eff))
    j.calibration_notes.push_back(n);
  j.calibration = std::move(c);
  j.calibration_path = path;
}

InferSettings resolve_infer(const Scenario& s, const Job& j) {
  InferSettings is;
  const Device& d = j.device;
  is.quant = s.quant;
  is.bpw = bits_per_weight(s.quant);
  if (!s.runtime.empty()) is.runtime = parse_runtime(s.runtime);
  else if (is_gguf(s.quant) || d.family == "apple" || d.family == "cpu") is.runtime = Runtime::llama_cpp;
  else is.runtime = Runtime::vllm;
  const auto has = [&](DType t) { return d.peak[static_cast<int>(t)] > 0; };
  if (s.quant == "fp8" && has(DType::fp8)) is.compute = DType::fp8;
  else if (s.quant == "int8" && has(DType::int8)) is.compute = DType::int8;
  else if (d.family == "cpu") is.compute = DType::fp32;
  else is.compute = has(DType::bf16) ? DType::bf16 : DType::fp16;
  is.kv_elem_bytes = kv_element_bytes(s.kv_dtype);
  is.tp = s.layout.tp.value_or(1);
  const long io = s.prompt_tokens + s.output_tokens;
  is.context = s.context > 0 ? s.context : io > 0 ? io : std::min<long>(j.model.max_context, 4096);
  is.batch = s.batch;
  if (s.reserve_bytes) is.reserve = bytes(*s.reserve_bytes);
  return is;
}

Device resolve_host(const Scenario& s, const Catalog& catalog, const Device& d) {
  if (!s.host.empty()) return resolve_device(catalog, s.host);
  if (d.family == "cpu" || d.family == "apple") return d;
  return resolve_device(catalog, d.memory_type == "gddr" ? "cpu-desktop" : "cpu-server");
}

namespace {

Assumption assume(std::string name, double number, std::string unit, std::string origin) {
  return Assumption{std::move(name), number, {}, std::move(unit), std::move(origin)};
}

std::string record_origin(const Record& r) {
  std::string o = r.kind + "." + r.id + ": " + r.text("source");
  if (r.has("as_of")) o += " (as of " + r.text("as_of") + ")";
  if (r.flag("estimate")) o += " [estimate]";
  return o;
}

Quote quote_of(const Record& r, const char* field) {
  return Quote{r.id, r.text("provider"), r.text("commitment"), r.text("as_of"), r.text("source"), r.number(field), false};
}

bool is_committed(const std::string& c) { return c == "1y" || c == "3y" || c == "capacity-block"; }

// The cheapest cloud quote for the device from the provider (any when empty) on the term asked.
std::optional<Quote> pick_cloud(const Scenario& s, const Catalog& c, const Device& d, Facility& f) {
  std::vector<std::string> providers;
  const Record* best = nullptr;
  for (const Record* r : c.list("prices")) {
    if (r->text("type") != "cloud" || r->text("accelerator") != d.id || !r->has("usd_per_gpu_hour")) continue;
    providers.push_back(r->text("provider"));
    if (!s.cloud.empty() && r->text("provider") != s.cloud) continue;
    const std::string term = r->text("commitment", "on-demand");
    if (s.committed ? !is_committed(term) : term != "on-demand") continue;
    if (!best || r->number("usd_per_gpu_hour") < best->number("usd_per_gpu_hour")) best = r;
  }
  if (!best) {
    std::string what = fmt::format("no {} cloud price for {}{}", s.committed ? "committed" : "on-demand", d.id,
                                   s.cloud.empty() ? "" : " from '" + s.cloud + "'");
    std::sort(providers.begin(), providers.end());
    providers.erase(std::unique(providers.begin(), providers.end()), providers.end());
    std::string have = providers.empty() ? "none in the catalog" : fmt::format("{}", fmt::join(providers, ", "));
    if (!s.cloud.empty())
      fail(Exit::usage, fmt::format("{}; providers with a price for {}: {} (or give --price '$2/h')", what, d.id, have));
    f.warnings.push_back(what + ": cloud cost not computed (give --price '$2/h')");
    return std::nullopt;
  }
  f.assumptions.push_back(assume("cloud price", best->number("usd_per_gpu_hour"), "USD/device-hour", record_origin(*best)));
  Quote q = quote_of(*best, "usd_per_gpu_hour");
  q.value /= 3600;  // the catalog keeps USD per device-hour
  return q;
}

std::optional<Quote> pick_purchase(const Catalog& c, const Device& d, Facility& f) {
  const Record* best = nullptr;
  for (const Record* r : c.list("prices"))
    if (r->text("type") == "purchase" && r->text("accelerator") == d.id && r->has("usd_per_device") &&
        (!best || r->number("usd_per_device") < best->number("usd_per_device")))
      best = r;
  if (!best) {
    f.warnings.push_back(fmt::format("no purchase price for {}: owned cost not computed (give --capex '$30000')", d.id));
    return std::nullopt;
  }
  f.assumptions.push_back(assume("purchase price", best->number("usd_per_device"), "USD/device", record_origin(*best)));
  return quote_of(*best, "usd_per_device");
}

}  // namespace

Facility resolve_facility(const Scenario& s, const Catalog& catalog, const Device& d) {
  Facility f;
  const Record& site = catalog.get("sites", s.site);
  Site& st = f.site;
  st.id = site.id;
  st.name = site.text("name");
  st.source = site.text("source");
  st.pue = std::max(1.0, (s.pue ? *s.pue : site.number("pue")) * s.pue_scale);
  st.electricity = usd_per_joule(site.number("usd_per_kwh") / 3.6e6);  // the catalog keeps USD per kWh
  st.gco2_per_kwh = site.number("grid_gco2_per_kwh");
  st.rack_power = watts(site.number("rack_power_w"));
  st.facility_usd_per_kw_month = s.facility_cost ? *s.facility_cost : site.number("facility_usd_per_kw_month");
  const std::string site_origin = record_origin(site);
  f.assumptions.push_back(assume("PUE", st.pue, "", s.pue ? "set: pue" : site_origin));
  f.assumptions.push_back(assume("electricity price", st.electricity.value() * 3.6e6, "USD/kWh", site_origin));
  f.assumptions.push_back(assume("grid carbon intensity", st.gco2_per_kwh, "gCO2e/kWh", site_origin));
  if (st.rack_power.value() > 0) f.assumptions.push_back(assume("rack power budget", st.rack_power.value(), "W", site_origin));
  if (st.facility_usd_per_kw_month > 0)
    f.assumptions.push_back(assume("facility cost", st.facility_usd_per_kw_month, "USD/kW-month",
                                   s.facility_cost ? "set: facility-cost" : site_origin));

  // The node: a server record for this accelerator, else an estimate from its TDP.
  const Record* server = nullptr;
  for (const Record* r : catalog.list("servers"))
    if (r->text("accelerator") == d.id) { server = r; break; }
  if (server) {
    f.node.devices = static_cast<int>(server->number("devices"));
    f.node.max_power = watts(server->number("max_power_w"));
    f.node.origin = record_origin(*server);
    f.node.estimate = server->flag("estimate");
  } else if (d.tdp.value() > 0) {
    f.node = node_from_tdp(d.devices_per_node, d.tdp);
  } else {
    f.node.devices = d.devices_per_node;
    f.warnings.push_back(fmt::format("no power figure for {} (no server record, no TDP in the catalog): power, energy and "
                                     "carbon not computed",
                                     d.id));
  }
  if (f.node.max_power.value() > 0)
    f.assumptions.push_back(assume("node nameplate power", f.node.max_power.value(), "W", f.node.origin));
  f.power_fraction = std::min(1.0, s.power_fraction * s.power_scale);
  f.assumptions.push_back(assume("average draw / nameplate", f.power_fraction, "",
                                 f.power_fraction == default_power_fraction
                                     ? "default: Newkirk et al. 2025 (arXiv 2506.14551), H100 nodes training at 76% of 10.2 kW"
                                     : "set: power-fraction"));
  f.scale_out = d.scale_out;
  f.nics_per_node = d.nics_per_node;
  if (!d.scale_out.id.empty()) {
    const Record& link = catalog.get("interconnects", d.scale_out.id);
    if (d.scale_out.switch_power.value() > 0)
      f.assumptions.push_back(assume("scale-out switch power", d.scale_out.switch_power.value(), "W", record_origin(link)));
    else
      f.warnings.push_back(fmt::format("no switch power for {} in the catalog: fabric power not counted", link.id));
    if (d.scale_out.port_usd > 0)
      f.assumptions.push_back(assume("scale-out port price", d.scale_out.port_usd, "USD/port", record_origin(link)));
    else
      f.assumptions.push_back(Assumption{"network capital", 0, "not included", "",
                                         fmt::format("no sourced port price (port_usd) for {} in the catalog", link.id)});
  }

  if (!s.storage.empty()) {
    const Record& r = catalog.get("storage", s.storage);
    StorageSystem sys{r.id, r.text("name"), r.text("unit"), r.text("source"),
                      bytes_per_s(r.number("read_bytes_per_s")), bytes_per_s(r.number("write_bytes_per_s")),
                      bytes(r.number("capacity_bytes")), r.number("usd_per_tb"), r.number("usd_per_tb_month"),
                      watts(r.number("power_w"))};
    f.assumptions.push_back(assume("storage read per unit", sys.read.value(), "B/s", record_origin(r)));
    f.assumptions.push_back(assume("storage write per unit", sys.write.value(), "B/s", record_origin(r)));
    f.storage = sys;
  }

  if (s.price) {
    f.cloud = Quote{"--price", s.cloud, s.committed ? "committed" : "on-demand", {}, "set: price", *s.price, true};
    f.assumptions.push_back(assume("cloud price", *s.price * 3600, "USD/device-hour", "set: price"));
  } else {
    f.cloud = pick_cloud(s, catalog, d, f);
  }
  if (s.capex) {
    f.purchase = Quote{"--capex", {}, {}, {}, "set: capex", *s.capex, true};
    f.assumptions.push_back(assume("purchase price", *s.capex, "USD/device", "set: capex"));
  } else {
    f.purchase = pick_purchase(catalog, d, f);
  }
  if (s.price_scale != 1) {
    if (f.cloud) f.cloud->value *= s.price_scale;
    if (f.purchase) f.purchase->value *= s.price_scale;
    f.assumptions.push_back(assume("prices scaled", s.price_scale, "", "set: price-scale"));
  }
  f.assumptions.push_back(assume("amortisation life", s.years, "years", s.has("years") ? "set: years" : "default"));
  f.assumptions.push_back(assume("utilisation of an owned cluster", s.utilisation, "",
                                 s.has("utilisation") ? "set: utilisation" : "default: the run pays only its own hours"));
  return f;
}

}  // namespace gpuplan
