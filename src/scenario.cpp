// SPDX-License-Identifier: Apache-2.0
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
#include "gpuplan/format.hpp"
#include "gpuplan/xdg.hpp"
#include "gpuplan/quantity.hpp"
#include "gpuplan/settings.hpp"

namespace gpuplan {

std::string to_string(Recompute r) {
  switch (r) {
    case Recompute::none: return "none";
    case Recompute::selective: return "selective";
    case Recompute::full: return "full";
  }
  return "selective";
}

std::string recompute_text(const Layout& l) {
  if (l.recompute == Recompute::full && l.recompute_layers > 0)
    return fmt::format("full ({} layer{} a stage)", l.recompute_layers, l.recompute_layers > 1 ? "s" : "");
  return to_string(l.recompute);
}

Recompute parse_recompute(const std::string& s) {
  if (s == "none") return Recompute::none;
  if (s == "selective") return Recompute::selective;
  if (s == "full") return Recompute::full;
  fail(Exit::usage, fmt::format("--recompute '{}' is not known; expected none, selective or full", s));
}

std::string offload_name(int o) {
  switch (o) {
    case offload_none: return "none";
    case offload_optimizer: return "optimizer";
    case offload_activations: return "activations";
    case offload_optimizer | offload_activations: return "optimizer+activations";
    case offload_optimizer | offload_weights: return "optimizer+weights";
    case offload_optimizer | offload_weights | offload_activations: return "all";
  }
  return "weights";  // weights without the optimizer: refused by offload_problem
}

int parse_offload(const std::string& s) {
  for (int o : {0, 1, 4, 5, 3, 7})
    if (s == offload_name(o)) return o;
  fail(Exit::usage, fmt::format("--offload '{}' is not known; expected none, optimizer, activations, "
                                "optimizer+activations, optimizer+weights or all", s));
}

const char* offload_problem(const Layout& l) {
  if ((l.offload & offload_optimizer) && l.zero < 1) return "optimizer offload needs ZeRO 1, 2 or 3";
  if ((l.offload & offload_weights) && (l.zero < 3 || !(l.offload & offload_optimizer)))
    return "weight offload needs ZeRO-3 and the optimizer offloaded too";
  if ((l.offload & offload_activations) && (l.recompute != Recompute::full || l.recompute_layers > 0))
    return "activation offload needs full recomputation of every layer";
  return "";
}

bool Scenario::has(const std::string& name) const { return std::find(given.begin(), given.end(), name) != given.end(); }

Device resolve_scenario_device(const Scenario& s, const Catalog& catalog) {
  Device d = device_named(catalog, s.gpu);
  // --gpu-memory: a variant of the record (a 36 GB M3 Max, a 48 GB RTX 4090D).
  if (s.gpu_memory) d.memory = bytes(*s.gpu_memory);
  if (s.power_cap) apply_power_cap(d, watts(*s.power_cap));
  return d;
}

Job resolve(const Scenario& s, const Catalog& catalog) {
  Job j;
  if (!s.model.empty()) {
    j.model = model_named(catalog, s.model);
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
  if (!m.caveat.empty()) j.warnings.push_back(fmt::format("the record for {} is an estimate: {}", m.id, m.caveat));
  j.params = count_params(m);
  j.device = resolve_scenario_device(s, catalog);
  if (j.device.power_limit.value() > 0)
    j.assumptions.push_back(fmt::format(
        "board power limit {:.0f} W of {:.0f} W TDP ({}): compute clock x{:.3f} over an idle floor of {:.0f} W (an "
        "estimate: dynamic power C V^2 f with the voltage following the clock to a floor fitted on an RTX 3090 sweep); "
        "memory bandwidth unchanged",
        j.device.power_limit.value(), j.device.tdp.value(), s.power_cap ? "power-cap" : "the catalog's default limit",
        j.device.clock_scale, j.device.idle.value()));

  StepSettings& st = j.step;
  st = s.step;
  j.assumptions.insert(j.assumptions.end(), s.notes.begin(), s.notes.end());
  // A model whose public training runs use another framework (GPT-2: compiled) gets its settings
  // unless --framework was given; a setting given on its own still wins (apply_framework). The
  // schema admits only frameworks whose defaults live in the step settings (megatron, deepspeed,
  // compiled), so the layout and gradient width stay the scenario's.
  if (!m.trainer.empty() && !s.has("framework")) {
    Scenario t = s;
    t.notes.clear();
    apply_framework(t, m.trainer);
    st = t.step;
    for (const auto& n : t.notes)
      j.assumptions.push_back(fmt::format("{} ({}'s usual trainer; --framework megatron for Megatron's rates)", n, m.id));
  }
  st.train.seq_len = s.seq_len > 0 ? s.seq_len : static_cast<int>(std::min<long>(m.max_context, 4096));
  if (s.seq_len > 0 && m.max_context > 0 && s.seq_len > m.max_context)
    j.warnings.push_back(fmt::format("sequence length {} exceeds {}'s maximum context of {} tokens", s.seq_len, m.id, m.max_context));
  st.train.grad_bytes = s.grad_bytes;
  st.train.optimizer = s.optimizer == "adam8bit" ? Optimizer::adam8bit : s.optimizer == "sgd" ? Optimizer::sgd : Optimizer::adam;
  if (s.reserve_bytes) st.train.reserve = bytes(*s.reserve_bytes);
  set_precision(st, parse_precision(s.precision));
  // Low precisions need tensor cores for them; running bf16 instead would answer another question.
  // The block-scaled formats came with the tensor cores that have FP4 (Blackwell, CDNA 4); NVFP4 is
  // NVIDIA's own.
  const bool has_fp8 = j.device.peak[static_cast<int>(DType::fp8)] > 0, has_fp4 = j.device.peak[static_cast<int>(DType::fp4)] > 0;
  if (st.precision == Precision::fp8 && !has_fp8)
    fail(Exit::usage, fmt::format("--precision fp8: {} has no fp8 tensor rate in the catalog; use --precision bf16 (or "
                                  "a device with fp8: h100-sxm, h200, b200, gb200, mi300x, ...)",
                                  j.device.id));
  if (st.precision == Precision::mxfp8 && !(has_fp8 && has_fp4))
    fail(Exit::usage, fmt::format("--precision mxfp8: {} has no block-scaled (MX) fp8 tensor rate; use --precision fp8 "
                                  "or bf16 (mxfp8 runs on b200, gb200, b300, gb300, mi355x)",
                                  j.device.id));
  if (st.precision == Precision::nvfp4 && !(has_fp4 && j.device.family == "blackwell"))
    fail(Exit::usage, fmt::format("--precision {}: {} has no NVFP4 tensor rate; use --precision fp8 or bf16 (nvfp4 runs "
                                  "on b200, gb200, b300, gb300)",
                                  s.precision, j.device.id));
  if (st.high_precision_layers > m.layers)
    fail(Exit::usage, fmt::format("--high-precision-layers {}: {} has {} layers; give at most {}", st.high_precision_layers,
                                  m.id, m.layers, m.layers));
  if (!low_precision(st.precision) && (st.high_precision_layers > 0 || st.low_precision_mlp_only))
    j.warnings.push_back(fmt::format("--high-precision-layers and --low-precision-layers apply to fp8, mxfp8 and nvfp4; "
                                     "with --precision {} every layer is in {} already",
                                     s.precision, s.precision));
  st.eff = default_efficiency(j.device);
  // Offloaded training state shares the host's memory and bandwidth among the node's devices; a
  // device with unified memory (or no host link) has nowhere else to put it.
  const Device host = resolve_host(s, catalog, j.device);
  if (host.id != j.device.id && j.device.host.bw_per_direction.value() > 0) {
    const double per = std::max(1, j.device.devices_per_node);
    st.train.host_memory = host.memory / per;
    st.host_memory_bw = host.memory_bw / per;
    j.host_note = fmt::format("host memory {} and bandwidth {} per device for offload: {} shared by {} device{} ({})",
                              format_iec(st.train.host_memory.value()), format_si(st.host_memory_bw.value(), "B/s"),
                              host.id, j.device.devices_per_node, j.device.devices_per_node > 1 ? "s" : "",
                              s.host.empty() ? "default host; --host chooses another" : "--host");
  } else if (s.layout.offload.value_or(offload_none) != offload_none) {
    fail(Exit::usage, fmt::format("--offload {}: {} has no separate host memory to offload to (unified memory or no "
                                  "host link); use --offload none",
                                  offload_name(*s.layout.offload), j.device.id));
  }
  const Schedule schedule = st.train.schedule;
  if (schedule != Schedule::searched) {
    const int pp = s.layout.pp.value_or(0), v = s.layout.interleave.value_or(0);
    if (schedule == Schedule::dualpipe && pp > 1 && pp % 2)
      fail(Exit::usage, fmt::format("--pipeline-schedule dualpipe needs an even --pp (stage pairs); pp is {}", pp));
    if (v > 1 && schedule != Schedule::interleaved)
      fail(Exit::usage, fmt::format("--interleave {} needs --pipeline-schedule interleaved (it is {})", v, to_string(schedule)));
    if (v == 1 && pp > 1 && schedule == Schedule::interleaved)
      fail(Exit::usage, "--pipeline-schedule interleaved needs --interleave 2 or more");
    // DualPipe overlaps the expert all-to-alls with the other direction's computation.
    if (schedule == Schedule::dualpipe && !s.has("ep-overlap")) {
      st.ep_overlap = 1;
      j.assumptions.push_back("pipeline schedule dualpipe: ep-overlap 1 (DeepSeek-V3 report, section 3.2.1: all-to-all hidden "
                              "behind the other direction's compute)");
    }
  }
  if (s.layout.recompute_layers) {
    if (s.layout.recompute && *s.layout.recompute != Recompute::full)
      fail(Exit::usage, fmt::format("--recompute-layers {} needs --recompute full (it is {})", *s.layout.recompute_layers,
                                    to_string(*s.layout.recompute)));
    if (*s.layout.recompute_layers > m.layers)
      fail(Exit::usage, fmt::format("--recompute-layers {} is more than the {} layers of {}", *s.layout.recompute_layers,
                                    m.layers, m.id));
  }
  // An offload set that the ZeRO stage or recomputation given cannot run is a usage error, not
  // a search that finds nothing (what is not given may still be searched to fit it).
  if (s.layout.offload && *s.layout.offload != offload_none) {
    Layout probe;
    probe.offload = *s.layout.offload;
    probe.zero = s.layout.zero.value_or(3);
    probe.recompute = s.layout.recompute.value_or(Recompute::full);
    if (*offload_problem(probe))
      fail(Exit::usage, fmt::format("--offload {}: {}", offload_name(probe.offload), offload_problem(probe)));
  }
  j.facility = resolve_facility(s, catalog, j.device);
  if (!s.scale_out.empty()) j.device.scale_out = j.facility.scale_out;  // the step's collectives use it too
  if (j.step.sharp && !j.device.scale_out.in_network_reduction)
    fail(Exit::usage, fmt::format("--sharp: {}'s scale-out fabric {} does not reduce in its switches; SHARP runs on "
                                  "InfiniBand HDR, NDR and XDR (give --scale-out ib-ndr, say, or drop --sharp)",
                                  j.device.id, j.device.scale_out.id.empty() ? "(none)" : j.device.scale_out.id));
  resolve_calibration(s, j);
  if (j.step.train.fused_kernels && !fused_rates(j.step) && (s.has("fused-kernels") || s.has("framework")))
    j.warnings.push_back(fmt::format("--fused-kernels: no measured GEMM depth for {} ({} family): its GEMMs keep the default "
                                     "depth term; a calibration file from 'gpuplan probe' measures one",
                                     j.device.id, j.device.family));
  if (s.efficiency_scale != 1) {
    Efficiency& e = j.step.eff;
    e.gemm_max = std::min(1.0, e.gemm_max * s.efficiency_scale);
    e.gemm_max_fp8 = std::min(1.0, e.gemm_max_fp8 * s.efficiency_scale);
    e.gemm_max_fp4 = std::min(1.0, e.gemm_max_fp4 * s.efficiency_scale);
    e.memory = std::min(1.0, e.memory * s.efficiency_scale);
    j.assumptions.push_back(fmt::format("efficiency scaled by {} (efficiency-scale)", s.efficiency_scale));
  }
  return j;
}

std::string default_calibration_path(const std::string& accelerator) {
  const std::string base = xdg_config_home();
  return base.empty() ? std::string() : base + "/gpuplan/calibration/" + accelerator + ".toml";
}

void resolve_calibration(const Scenario& s, Job& j) {
  std::string path = s.calibration;
  if (path.empty()) {
    path = default_calibration_path(j.device.id);
    std::error_code ec;
    if (path.empty() || !std::filesystem::exists(path, ec)) return;
    // The default location is read only as a regular file: a FIFO there would hang the command.
    if (!std::filesystem::is_regular_file(path, ec))
      fail(Exit::no_input, fmt::format("cannot read the default calibration file '{}': not a regular file", path));
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
  if (!s.runtime.empty()) is.runtime = parse_runtime(s.runtime);
  // llama.cpp where it is the usual runtime: GGUF weights, Apple, CPUs, and the desktop chips
  // whose unified LPDDR memory holds the model (Strix Halo, DGX Spark).
  else if (is_gguf(s.quant) || d.family == "apple" || d.family == "cpu" || d.memory_type == "lpddr")
    is.runtime = Runtime::llama_cpp;
  else is.runtime = Runtime::vllm;
  // Ollama's library tags default to Q4_K_M weights (`ollama pull llama3.1:8b` is the Q4_K_M
  // build: devtoolkit.sh Llama quantization guide; martinkollie.com "LLM naming explained").
  const bool ollama = is.runtime == Runtime::ollama;
  // Without --quant: the format the model's checkpoint ships in; on Ollama Q4_K_M, unless that
  // format is already 4-bit: Ollama's gpt-oss tags carry the checkpoint's MXFP4 experts as they
  // are (14 GB for gpt-oss:20b and 65 GB for gpt-oss:120b on ollama.com/library/gpt-oss; "we
  // distribute the original values for the weights", an Ollama maintainer on r/ollama, 2025).
  const std::string native = j.model.native_quant.empty() ? "bf16" : j.model.native_quant;
  const bool native_4bit = bits_per_weight(native) <= 4.5;
  const std::string quant = s.has("quant") ? s.quant : ollama && !native_4bit ? "q4_k_m" : native;
  set_quant(is, quant == "auto" ? "bf16" : quant, j.model, d);
  // TensorRT-LLM serves NVIDIA's ModelOpt FP8 and FP4 checkpoints, whose hf_quant_config sets
  // kv_cache_quant_algo FP8: their KV cache is FP8 unless --kv-dtype says otherwise.
  const bool modelopt = is.runtime == Runtime::tensorrt_llm && (is.quant == "fp8" || is.quant == "fp4" || is.quant == "nvfp4");
  is.kv_elem_bytes = kv_element_bytes(modelopt && !s.has("kv-dtype") ? "fp8" : s.kv_dtype);
  is.tp = s.layout.tp.value_or(1);
  const long io = s.prompt_tokens + s.output_tokens;
  // Ollama sizes its default context by the device's memory (ollama docs/context-length.mdx:
  // under 24 GiB 4k, 24-48 GiB 32k, 48 GiB or more 256k), never beyond the model's.
  const double gib = d.memory.value() / (1024.0 * 1024 * 1024);
  const long fallback = ollama ? (gib < 24 ? 4096 : gib < 48 ? 32768 : 262144) : 4096;
  is.context = s.context > 0 ? s.context : io > 0 ? io : std::min<long>(j.model.max_context, fallback);
  is.request_tokens = io;
  is.batch = s.batch;
  is.ubatch = s.ubatch;
  if (s.reserve_bytes) is.reserve = bytes(*s.reserve_bytes);
  if (s.mem_fraction && !serving_runtime(is.runtime))
    fail(Exit::usage, fmt::format("--mem-fraction is a serving runtime's share of memory (vllm, sglang, tensorrt-llm); {} "
                                  "keeps a fixed margin: give --reserve",
                                  to_string(is.runtime)));
  is.mem_fraction = s.mem_fraction;
  is.max_seqs = s.max_seqs;
  if ((s.prefix_tokens > 0) != (s.prefix_hit >= 0))
    fail(Exit::usage, "prefix caching takes both --prefix-tokens N (the prompt tokens requests share) and --prefix-hit R "
                      "(the chance a request finds them cached, 0 to 1)");
  if (s.prefix_tokens > 0 && !serving_runtime(is.runtime))
    fail(Exit::usage, fmt::format("--prefix-tokens models a serving runtime's prefix cache (vllm, sglang, tensorrt-llm); {} "
                                  "keeps one conversation's cache",
                                  to_string(is.runtime)));
  if (s.prefix_count > 1 && s.prefix_tokens <= 0)
    fail(Exit::usage, "--prefix-count counts distinct prefixes of --prefix-tokens: give --prefix-tokens N and --prefix-hit R");
  is.prefix_tokens = s.prefix_tokens;
  is.prefix_hit = std::max(0.0, s.prefix_hit);
  is.prefix_count = s.prefix_count;
  if (quant == "auto") {
    // Sized at the tensor-parallel degree given, else across --gpus (a node's worth at most for a
    // serving runtime, at a power of two that splits the heads; llama.cpp splits layers over all).
    InferSettings trial = is;
    if (!s.layout.tp && s.gpus > 0) {
      trial.tp = s.gpus;
      if (serving_runtime(is.runtime)) {
        trial.tp = 1;
        while (trial.tp * 2 <= std::min(s.gpus, std::max(1, d.devices_per_node)) && j.model.heads % (trial.tp * 2) == 0)
          trial.tp *= 2;
      }
    }
    set_quant(is, choose_quant(j.model, j.params, d, trial), j.model, d);
  }
  if ((s.spec_accept >= 0 || !s.draft.empty()) && s.spec_tokens <= 0)
    fail(Exit::usage, "--accept and --draft describe speculative decoding: give --draft-tokens K too");
  if (s.spec_tokens > 0) {
    // The acceptance rate depends on the draft, the target and the traffic: no default stands for it.
    if (s.spec_accept < 0)
      fail(Exit::usage, fmt::format("--draft-tokens {} needs --accept: the chance each proposed token is accepted (0 to 1; "
                                    "DeepSeek-V3 reports 0.85 to 0.9 for its MTP token; measure yours)",
                                    s.spec_tokens));
    is.spec_tokens = s.spec_tokens;
    is.spec_accept = s.spec_accept;
  }
  return is;
}

const Record* server_record(const Catalog& catalog, const std::string& accelerator) {
  for (const Record* r : catalog.list("servers"))
    if (r->text("accelerator") == accelerator) return r;
  return nullptr;
}

Device resolve_host(const Scenario& s, const Catalog& catalog, const Device& d) {
  if (!s.host.empty()) return resolve_device(catalog, s.host);
  if (d.family == "cpu" || d.family == "apple" || d.memory_type == "lpddr") return d;  // one memory: no host to spill to
  Device host = resolve_device(catalog, d.memory_type == "gddr" ? "cpu-desktop" : "cpu-server");
  // The accelerator's own server, where its record says how much memory its CPUs have (DGX H100:
  // 2 TB), holds that much for each node's worth of devices; the generic host's bandwidth stands.
  if (const Record* server = server_record(catalog, d.id); server && server->has("host_memory_bytes")) {
    host.id = server->id;
    host.memory = bytes(server->number("host_memory_bytes") * std::max(1, d.devices_per_node) / server->number("devices"));
  }
  return host;
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
    f.cost_warnings.push_back(what + ": cloud cost not computed (give --price '$2/h')");
    return std::nullopt;
  }
  f.assumptions.push_back(assume("cloud price", best->number("usd_per_gpu_hour"), "USD/device-hour", record_origin(*best)));
  Quote q = quote_of(*best, "usd_per_gpu_hour");
  q.value /= 3600;  // the catalog keeps USD per device-hour
  return q;
}

// Whether a purchase record's price gets an estimated server share: its source left the server
// out (or did not say) and the record gives the overhead (server_overhead).
bool adds_server(const Record& r) { return r.text("server_share") != "included" && r.has("server_overhead"); }

// A purchase record's price per device with its share of the server: the record's own where it
// includes it, times the estimated overhead where adds_server, else the GPUs alone.
double with_server(const Record& r) {
  return r.number("usd_per_device") * (adds_server(r) ? r.number("server_overhead") : 1.0);
}

std::optional<Quote> pick_purchase(const Catalog& c, const Device& d, Facility& f) {
  const Record* best = nullptr;
  for (const Record* r : c.list("prices"))
    if (r->text("type") == "purchase" && r->text("accelerator") == d.id && r->has("usd_per_device") &&
        (!best || with_server(*r) < with_server(*best)))
      best = r;
  if (!best) {
    f.cost_warnings.push_back(fmt::format("no purchase price for {}: owned cost not computed (give --capex '$30000')", d.id));
    return std::nullopt;
  }
  // One stated basis: per device with its share of the server, as the record gives it or as its
  // estimated overhead adds it; otherwise the GPU alone, with a warning.
  const std::string share = best->text("server_share");
  const bool estimated = adds_server(*best);
  const std::string basis =
      share == "included" ? "per device, server share included"
      : estimated         ? fmt::format("per device, server share estimated: {} for the GPU x {:.2f}",
                                        format_usd(best->number("usd_per_device")), best->number("server_overhead"))
      : share == "excluded" ? "per device, the GPU alone: no server share"
                            : "per device, server share not stated by the source";
  f.assumptions.push_back(assume("purchase price", with_server(*best), "USD/device", basis + "; " + record_origin(*best)));
  if (share != "included" && !estimated)
    f.cost_warnings.push_back(fmt::format("the purchase price of {} ({}, {}) is {}: the owned cost leaves out the server's "
                                          "CPUs, memory, NICs and chassis unless --capex gives a price that has them",
                                          d.id, format_usd(best->number("usd_per_device")), best->text("as_of"),
                                          share == "excluded" ? "the GPU alone" : "on a basis its source does not state"));
  Quote q = quote_of(*best, "usd_per_device");
  q.value = with_server(*best);
  return q;
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
  st.rack_power = watts(s.rack_power ? *s.rack_power : site.number("rack_power_w"));
  st.rack_units = s.rack_units > 0 ? s.rack_units : static_cast<int>(site.number("rack_units"));
  st.facility_usd_per_kw_month = s.facility_cost ? *s.facility_cost : site.number("facility_usd_per_kw_month");
  const std::string site_origin = record_origin(site);
  f.assumptions.push_back(assume("PUE", st.pue, "", s.pue ? "set: pue" : site_origin));
  f.assumptions.push_back(assume("electricity price", st.electricity.value() * 3.6e6, "USD/kWh", site_origin));
  f.assumptions.push_back(assume("grid carbon intensity", st.gco2_per_kwh, "gCO2e/kWh", site_origin));
  if (st.rack_power.value() > 0)
    f.assumptions.push_back(assume("rack power budget", st.rack_power.value(), "W", s.rack_power ? "set: rack-power" : site_origin));
  if (st.rack_units > 0)
    f.assumptions.push_back(assume("rack height", st.rack_units, "U", s.rack_units > 0 ? "set: rack-units" : site_origin));
  if (st.facility_usd_per_kw_month > 0)
    f.assumptions.push_back(assume("facility cost", st.facility_usd_per_kw_month, "USD/kW-month",
                                   s.facility_cost ? "set: facility-cost" : site_origin));

  // The node: a server record for this accelerator, else an estimate from its TDP.
  const Record* server = server_record(catalog, d.id);
  if (server) {
    f.node.id = server->id;
    f.node.devices = static_cast<int>(server->number("devices"));
    f.node.max_power = watts(server->number("max_power_w"));
    f.node.rack_units = static_cast<int>(server->number("rack_units"));
    f.node.nodes_per_rack = static_cast<int>(server->number("nodes_per_rack"));
    f.node.rack_scale = server->flag("rack_scale");
    f.node.liquid_cooled = server->flag("liquid_cooled");
    f.node.origin = record_origin(*server);
    f.node.estimate = server->flag("estimate");
  } else if (d.tdp.value() > 0) {
    f.node = node_from_tdp(d.devices_per_node, d.tdp, d.system_power);
  } else {
    f.node.devices = d.devices_per_node;
    // Moot for a laptop question, which has no bill: with the prices the catalog lacks.
    f.cost_warnings.push_back(fmt::format("no power figure for {} (no server record, no TDP in the catalog): power, energy and "
                                     "carbon not computed",
                                     d.id));
  }
  // A board power limit lowers what each device may draw; the rest of the node is unchanged.
  if (d.power_limit.value() > 0 && f.node.max_power.value() > 0) {
    f.node.max_power -= (d.tdp - d.power_limit) * static_cast<double>(f.node.devices);
    f.node.device_limit = d.power_limit;
    f.node.clock_scale = d.clock_scale;
    f.assumptions.push_back(assume("board power limit", d.power_limit.value(), "W",
                                   s.power_cap ? "set: power-cap" : "accelerators." + d.id + ": " + d.source));
  }
  f.node.idle = d.idle * static_cast<double>(f.node.devices);
  if (d.idle.value() > 0)
    f.assumptions.push_back(assume("idle draw per device", d.idle.value(), "W", "accelerators." + d.id + ": " + d.source));
  else if (s.bill.utilisation < 1)
    f.warnings.push_back(fmt::format("no idle draw for {} in the catalog: the idle share of the life counts switches and "
                                     "storage only (energy and electricity are a lower bound)",
                                     d.id));
  if (f.node.max_power.value() > 0)
    f.assumptions.push_back(assume("node nameplate power", f.node.max_power.value(), "W", f.node.origin));
  f.power_fraction = std::min(1.0, s.power_fraction * s.power_scale);
  f.assumptions.push_back(assume("average draw / nameplate", f.power_fraction, "",
                                 f.power_fraction == default_power_fraction
                                     ? "default: Newkirk et al. 2025 (arXiv 2506.14551), H100 nodes training at 76% of 10.2 kW"
                                     : "set: power-fraction"));
  // A limit the user set must hold one node; the site's own budget only warns (cluster_of).
  if (s.rack_power && f.node.max_power.value() > *s.rack_power)
    fail(Exit::usage, fmt::format("--rack-power {} is less than one node ({} draws {}); give at least {}",
                                  format_si(*s.rack_power, "W"), f.node.id.empty() ? d.id : f.node.id,
                                  format_si(f.node.max_power.value(), "W"), format_si(f.node.max_power.value(), "W")));
  if (s.rack_units > 0 && f.node.rack_units > s.rack_units)
    fail(Exit::usage, fmt::format("--rack-units {} is less than one node ({} is {}U); give at least {}", s.rack_units,
                                  f.node.id, f.node.rack_units, f.node.rack_units));

  // Scale-out NICs per node: the server record's per-device count, else the accelerator's
  // per-node count scaled to this node (a GB200 tray of 4 GPUs has 4 NICs, so an NVL72 rack 72).
  const double nics_per_device = server && server->has("nics_per_device")
                                     ? server->number("nics_per_device")
                                     : (d.nics_per_node > 0 ? double(d.nics_per_node) / std::max(1, d.devices_per_node) : 1.0);
  f.nics_per_node = std::max(1, static_cast<int>(std::lround(nics_per_device * f.node.devices)));
  f.scale_out = d.scale_out;
  if (!s.scale_out.empty()) {
    const Record& r = catalog.get("interconnects", s.scale_out);
    if (r.text("scope") != "scale-out")
      fail(Exit::usage, fmt::format("--scale-out {} is a {} link; expected a scale-out fabric (gpuplan catalog list "
                                    "interconnects: ib-ndr, ib-xdr, roce-400g, ...)",
                                    r.id, r.text("scope")));
    f.scale_out = link_by_id(catalog, r.id);
  }
  if (!f.scale_out.id.empty()) {
    const Record& link = catalog.get("interconnects", f.scale_out.id);
    if (!s.scale_out.empty()) f.assumptions.push_back(Assumption{"scale-out fabric", 0, link.id, "", "set: scale-out"});
    if (f.scale_out.switch_radix > 0)
      f.assumptions.push_back(assume("scale-out switch radix", f.scale_out.switch_radix, "ports", record_origin(link)));
    if (f.scale_out.switch_power.value() > 0)
      f.assumptions.push_back(assume("scale-out switch power", f.scale_out.switch_power.value(), "W", record_origin(link)));
    if (f.scale_out.port_usd > 0)
      f.assumptions.push_back(assume("scale-out port price", f.scale_out.port_usd, "USD/port", record_origin(link)));
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
  f.assumptions.push_back(assume("amortisation life", s.bill.years, "years", s.has("years") ? "set: years" : "default"));
  f.assumptions.push_back(assume("utilisation of an owned cluster", s.bill.utilisation, "",
                                 s.has("utilisation") ? "set: utilisation" : "default: the run pays only its own hours"));
  f.assumptions.push_back(assume("staff cost of an owned cluster", s.bill.staff_per_year.value(), "USD/year",
                                 s.has("staff") ? "set: staff" : "default: none counted (give --staff)"));
  return f;
}

std::optional<Assumption> resolve_kv_offload(const Scenario& s, const Catalog& catalog, const Device& d, const Device& host,
                                             InferSettings& is) {
  if (s.kv_offload_bytes && s.kv_offload.empty())
    fail(Exit::usage, "--kv-offload-size sizes a KV offload tier: give --kv-offload host or nvme too");
  if (s.kv_offload.empty() || s.kv_offload == "none") return std::nullopt;
  if (s.prefix_tokens <= 0)
    fail(Exit::usage, fmt::format("--kv-offload {} keeps cached prefixes off the device: give --prefix-tokens N and "
                                  "--prefix-hit R (and --prefix-count for more than one prefix)",
                                  s.kv_offload));
  // The device's host link, shared by nothing else: the tier is read a device at a time.
  const double link = d.host.bw_per_direction.value();
  const double per_node = std::max(1, d.devices_per_node);
  double capacity = 0, read = 0;
  std::string origin;
  if (s.kv_offload == "host") {
    if (host.id == d.id || link <= 0)
      fail(Exit::usage, fmt::format("--kv-offload host: {} has no separate host memory (unified memory or no host link); "
                                    "use --kv-offload nvme or none",
                                    d.id));
    // The host's memory and bandwidth are shared by the node's devices.
    capacity = host.memory.value() / per_node;
    read = std::min(link, host.memory_bw.value() / per_node);
    is.offload_tier = "host";
    origin = fmt::format("{}'s memory and bandwidth shared by {} device{}, read over {} ({})", host.id, d.devices_per_node,
                         d.devices_per_node > 1 ? "s" : "", d.host.id, format_si(link, "B/s"));
    // Half of it: the rest is the operating system's, the runtime's and its pinned staging buffers'
    // (an assumption; --kv-offload-size sets it).
    is.offload_bytes = bytes(s.kv_offload_bytes.value_or(capacity / 2));
  } else {
    const std::string id = s.kv_offload == "nvme" ? "nvme-pm1743" : s.kv_offload;
    const Record* r = catalog.find("storage", id);
    if (!r || r->text("unit") != "drive")
      fail(Exit::usage, fmt::format("--kv-offload {}: not a tier; give host, nvme, none or a local drive's storage id ({})",
                                    s.kv_offload, [&] {
                                      std::string ids;
                                      for (const Record* x : catalog.list("storage"))
                                        if (x->text("unit") == "drive") ids += (ids.empty() ? "" : ", ") + x->id;
                                      return ids;
                                    }()));
    // One drive per device, read through the host: the drive's rate or the link's, the lower.
    capacity = r->number("capacity_bytes");
    read = link > 0 ? std::min(r->number("read_bytes_per_s"), link) : r->number("read_bytes_per_s");
    is.offload_tier = id;
    origin = fmt::format("one {} per device (an assumption), read at {}{}; {}", id, format_si(r->number("read_bytes_per_s"), "B/s"),
                         link > 0 ? fmt::format(" through {}", d.host.id) : "", record_origin(*r));
    if (capacity <= 0 && !s.kv_offload_bytes)
      fail(Exit::usage, fmt::format("--kv-offload {}: the drive's record has no capacity_bytes; give --kv-offload-size", id));
    is.offload_bytes = bytes(s.kv_offload_bytes.value_or(capacity));
  }
  if (capacity > 0 && is.offload_bytes.value() > capacity)
    fail(Exit::usage, fmt::format("--kv-offload-size {}: the {} tier has {} per device; give at most that",
                                  format_iec(is.offload_bytes.value()), is.offload_tier, format_iec(capacity)));
  is.offload_read = bytes_per_s(read);
  return assume(fmt::format("KV offload tier ({})", is.offload_tier), is.offload_bytes.value(), "B per device",
                fmt::format("{}; {}", s.kv_offload_bytes ? "size set: kv-offload-size"
                                      : is.offload_tier == "host"
                                          ? "size: half the host's memory per device (assumption; the rest for the system and the runtime)"
                                          : "size: the drive's capacity",
                            origin));
}

}  // namespace gpuplan
