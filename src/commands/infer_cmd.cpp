// `gpuplan infer`: will a model fit and how fast does it run on one device (the laptop
// question), what a fixed deployment sustains, and how many devices serve a load within latency
// targets, at what cost and energy per million output tokens.
#include <cmath>
#include <fmt/format.h>

#include "bill.hpp"
#include "gpuplan/analysis/serving.hpp"
#include "gpuplan/commands.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/format.hpp"

namespace gpuplan {
namespace {

// Default request shape when none is given: a chat turn.
constexpr long default_prompt = 1000, default_output = 300;
// Latency targets when a user count is given without any: MLPerf Inference's Llama-2-70B
// Server scenario (TTFT p99 2 s, TPOT p99 200 ms; loadgen mlperf.conf).
constexpr double mlperf_ttft = 2.0, mlperf_tpot = 0.2;
constexpr double mlperf_interactive_ttft = 0.45, mlperf_interactive_tpot = 0.04;
// Seconds a user reads and types between replies when --think-time is not given (an assumption).
constexpr double default_think = 60;

}  // namespace

void set_infer_memory_json(Value& v, const InferMemory& mem) {
  v.set("fits", mem.fits());
  v.set("weights_bytes", std::round(mem.weights.value()));
  v.set("kv_cache_bytes_per_token", mem.kv_per_token.value());
  v.set("kv_cache_bytes", std::round(mem.kv.value()));
  v.set("workspace_bytes", std::round(mem.workspace.value()));
  v.set("reserve_bytes", std::round(mem.reserve.value()));
  v.set("total_bytes", std::round(mem.total().value()));
  v.set("capacity_bytes", mem.capacity.value());
  v.set("offloaded_layers", mem.offloaded_layers);
  v.set("offloaded_bytes", std::round(mem.offloaded_bytes.value()));
}

Document run_infer(const Catalog& catalog, const Scenario& s, const RunOptions& o) {
  // The laptop question (one device, no load, no site named) runs outside a data centre: no
  // facility overhead on its energy.
  const bool local = s.rate <= 0 && s.users <= 0 && s.gpus <= 0 && !s.has("site") && !s.has("pue");
  Scenario sl = s;
  if (local) sl.pue = 1.0;
  Job j = resolve(sl, catalog);
  if (local)
    for (auto& a : j.facility.assumptions)
      if (a.name == "PUE") a.origin = "local machine: no data-centre overhead (give --site or --pue for one)";
  const ModelArch& m = j.model;
  std::vector<std::string> warnings = j.facility.warnings;
  const double output = static_cast<double>(s.output_tokens > 0 ? s.output_tokens : default_output);
  // A --context without a prompt length is a conversation that fills it: the prompt is the
  // context less the reply, so decode reads that much KV and prefill computes it.
  const double prompt = static_cast<double>(
      s.prompt_tokens > 0 ? s.prompt_tokens
                          : s.context > 0 ? std::max(1L, s.context - static_cast<long>(output)) : default_prompt);
  const bool serving = s.rate > 0 || s.users > 0;
  const bool targeted = s.serving_scenario == "server" || s.serving_scenario == "interactive";
  if (s.rate > 0 && s.ttft_s <= 0 && s.tpot_s <= 0 && !targeted)
    fail(Exit::usage, "--rate needs a latency target: --ttft and/or --tpot, or --scenario server|interactive (MLPerf's "
                      "server scenario is --ttft 2s --tpot 200ms)");
  double ttft = s.ttft_s, tpot = s.tpot_s;
  std::vector<Assumption> assumptions = j.facility.assumptions;
  if (targeted) {
    // MLPerf Inference's Llama-2-70B scenarios: server TTFT 2 s and TPOT 200 ms (loadgen
    // mlperf.conf); interactive (v5.0) 4.4x lower TTFT and 5x shorter TPOT, 450 ms and 40 ms
    // (NVIDIA's MLPerf Inference v5.0 results post). A target given as a flag wins.
    const bool interactive = s.serving_scenario == "interactive";
    if (ttft <= 0) ttft = interactive ? mlperf_interactive_ttft : mlperf_ttft;
    if (tpot <= 0) tpot = interactive ? mlperf_interactive_tpot : mlperf_tpot;
    assumptions.push_back(Assumption{"latency targets", 0, fmt::format("TTFT {}, TPOT {}", format_duration(ttft), format_duration(tpot)),
                                     "", fmt::format("scenario {}: MLPerf Inference Llama-2-70B {} constraints", s.serving_scenario,
                                                     s.serving_scenario)});
  } else if (s.users > 0 && ttft <= 0 && tpot <= 0 && s.serving_scenario != "offline") {
    ttft = mlperf_ttft, tpot = mlperf_tpot;
    assumptions.push_back(Assumption{"latency targets", 0, "TTFT 2 s, TPOT 200 ms", "",
                                     "default with --users: MLPerf Inference Llama-2-70B server scenario"});
  }

  // The cache holds --context; else a request's prompt and reply when requests are described or
  // served; else (the laptop question) what resolve_infer gives, min(4096, the model's maximum).
  InferSettings is = resolve_infer(s, j);
  if (is.quant != s.quant)  // the runtime chose the weights (resolve_infer)
    assumptions.push_back(Assumption{"weights", 0, is.quant, "", "default of ollama: its library tags are Q4_K_M builds"});
  const bool sized_by_request = serving || s.gpus > 0 || s.prompt_tokens > 0 || s.output_tokens > 0;
  if (s.context <= 0 && sized_by_request) is.context = static_cast<long>(prompt + output);
  if (is.runtime == Runtime::ollama && s.context <= 0 && !sized_by_request)
    assumptions.push_back(Assumption{"context", static_cast<double>(is.context), {}, "tokens",
                                     "default of ollama by device memory (docs/context-length: under 24 GiB 4k, 24-48 GiB "
                                     "32k, more 256k), at most the model's"});
  if (m.max_context > 0 && is.context > m.max_context) {
    std::string msg = fmt::format("context {} exceeds {}'s maximum of {} tokens", is.context, m.id, m.max_context);
    if (s.strict) fail(Exit::usage, msg);
    warnings.push_back(msg);
  }
  const int gpus_given = s.gpus;
  const Device host = resolve_host(s, catalog, j.device);
  // A model of the deployment, with measured figures in place of the defaults when calibrated.
  auto build = [&](const InferSettings& settings) {
    InferModel x = make_infer_model(m, j.params, j.device, host, settings);
    if (j.calibration) apply_calibration(*j.calibration, j.device, x.decode);
    x.compute = j.step.eff;  // calibrated and scaled
    x.decode.bandwidth = std::min(1.0, x.decode.bandwidth * s.efficiency_scale);
    return x;
  };
  std::vector<Deployment> tried;
  if (!s.layout.tp) {
    is.tp = choose_tp(j.model, j.params, j.device, is, gpus_given > 0 ? gpus_given : (serving ? j.device.devices_per_node : 1));
    // A deployment of several devices: every tensor-parallel degree from the smallest that fits
    // to the node (a wider group has more KV room and faster steps, but fewer replicas).
    if (serving || gpus_given > 1) {
      DeploymentQuestion q{prompt, output, ttft, tpot, gpus_given, 0, is.tp, 1, m.heads};
      if (serving)
        q.rate = s.rate > 0 ? s.rate
                            : static_cast<double>(s.users) / ((s.think_s > 0 ? s.think_s : default_think) + ttft + output * tpot);
      q.widest_tp = std::max(1, gpus_given > 0 ? std::min(gpus_given, j.device.devices_per_node) : j.device.devices_per_node);
      tried = try_deployments(q, [&](int t) {
        InferSettings trial = is;
        trial.tp = t;
        return build(trial);
      });
      // The best; the smaller degree on a tie (tried in increasing order).
      const Deployment* best = nullptr;
      for (const auto& d : tried)
        if (d.op && (!best || better_deployment(d, *best, serving))) best = &d;
      if (best) is.tp = best->tp;
      // None serves: the error below speaks of the widest degree that fits, the one that comes
      // closest to the targets, not of the narrowest.
      else
        for (const auto& d : tried)
          if (d.why != "does not fit") is.tp = d.tp;
    }
  }
  if (m.heads % is.tp) fail(Exit::usage, fmt::format("--tp {} does not divide the {} attention heads of {}", is.tp, m.heads, m.id));
  if (gpus_given > 0 && gpus_given % is.tp)
    fail(Exit::usage, fmt::format("--gpus {} is not a multiple of the tensor-parallel degree {}", gpus_given, is.tp));

  InferModel im = build(is);
  const InferMemory& mem = im.memory;
  const int max_batch = kv_batch_limit(im);
  if (mem.offloaded_layers > 0 && mem.offloaded_bytes.value() > host.memory.value())
    warnings.push_back(fmt::format("the {} offloaded layers ({}) do not fit in {}'s {} either", mem.offloaded_layers,
                                   format_iec(mem.offloaded_bytes.value()), host.id, format_iec(host.memory.value())));
  if (!mem.fits() && mem.offloaded_layers == 0 && j.device.family != "cpu")
    warnings.push_back(fmt::format("does not fit: {} needed, {} available per device; try a smaller --quant, --tp or --gpus",
                                   format_iec(mem.total().value()), format_iec(mem.capacity.value())));
  // Runs: fits on the devices, or its offloaded layers fit in the host's memory. Otherwise the
  // memory table is the answer, with no speed, and the command exits 1 (as serving does).
  const bool host_holds = mem.offloaded_bytes.value() <= host.memory.value();
  const bool runs = mem.fits() || (mem.offloaded_layers > 0 && host_holds);

  // Single stream: the local question.
  const double single_prefill = prefill_time(im, static_cast<long>(prompt), 1).value();
  const double single_step = decode_step_time(im, 1, prompt + output / 2).value();

  // Deployment: replicas of tp devices.
  std::optional<Operating> op;
  int replicas = 1, gpus = gpus_given > 0 ? gpus_given : is.tp;
  double throughput = 1 / single_step, load = throughput / output, utilisation = 0;
  if (serving || gpus_given > 0) {
    ServingLoad asked{s.rate, s.users, s.think_s > 0 ? s.think_s : default_think, gpus_given};
    if (s.users > 0 && s.think_s <= 0)
      assumptions.push_back(Assumption{"think time", default_think, {}, "s", "default assumption: a user reads and types for a minute"});
    const Sized z = size_deployment(im, prompt, output, ttft, tpot, asked);
    if (serving && gpus_given > 0 && z.gpus > gpus_given)
      warnings.push_back(fmt::format("--gpus {} carries {:.1f} requests/s; {} are needed for {:.1f}", gpus_given,
                                     (gpus_given / is.tp) * z.op.sustained_rps, z.gpus, z.rate));
    op = z.op;
    replicas = z.replicas, gpus = z.gpus;
    load = z.load_rps, utilisation = z.utilisation, throughput = z.throughput;
  }

  // Cost and energy per million output tokens, from the bill of the devices in use.
  const ClusterPower cp = cluster_of(j.facility, s, gpus, 0);
  warnings.insert(warnings.end(), cp.warnings.begin(), cp.warnings.end());
  const Bill bill = make_bill(j.facility, s, cp, RunFacts{gpus, seconds(3600), -1});
  std::optional<double> usd_per_hour;
  const Value* cloud = bill.cost.find("cloud");
  const Value* owned = bill.cost.find("owned_run");
  if (s.buy && owned && owned->type() == Value::Type::number) usd_per_hour = owned->as_number();
  else if (cloud && cloud->type() == Value::Type::number) usd_per_hour = cloud->as_number();
  else if (owned && owned->type() == Value::Type::number) usd_per_hour = owned->as_number();
  const double tokens_per_hour = throughput * 3600;
  std::optional<double> usd_per_m, kwh_per_m;
  if (usd_per_hour && tokens_per_hour > 0) usd_per_m = *usd_per_hour / tokens_per_hour * 1e6;
  if (bill.energy_mwh && tokens_per_hour > 0) kwh_per_m = *bill.energy_mwh * 1e3 / tokens_per_hour * 1e6;

  Value v = Value::object();
  v.set("model", m.id);
  v.set("gpu", j.device.id);
  v.set("quant", is.quant);
  v.set("runtime", to_string(is.runtime));
  v.set("tp", is.tp);
  v.set("context", static_cast<double>(is.context));
  v.set("prompt_tokens", prompt);
  v.set("output_tokens", output);
  set_infer_memory_json(v, mem);
  v.set("host", mem.offloaded_layers > 0 ? Value(host.id) : Value());
  v.set("prefill_tokens_per_s", runs ? Value(prompt / single_prefill) : Value());
  v.set("decode_tokens_per_s", runs ? Value(1 / single_step) : Value());
  v.set("ttft_s", runs ? Value(op ? op->ttft_s : single_prefill + single_step) : Value());
  v.set("tpot_s", runs ? Value(op ? op->tpot_s : single_step) : Value());
  // Percentiles under Poisson arrivals at the load served; null offline (every request queued
  // at once: no arrival process, no latency) and for a single local stream.
  for (const auto& [name, tail] : {std::pair{"ttft", op ? op->ttft : std::nullopt}, std::pair{"tpot", op ? op->tpot : std::nullopt}}) {
    v.set(fmt::format("{}_p50_s", name), tail ? Value(tail->p50) : Value());
    v.set(fmt::format("{}_p90_s", name), tail ? Value(tail->p90) : Value());
    v.set(fmt::format("{}_p99_s", name), tail ? Value(tail->p99) : Value());
  }
  v.set("max_batch", max_batch);
  v.set("batch", op ? Value(op->batch) : Value(1));
  v.set("throughput_tokens_per_s", runs ? Value(throughput) : Value());
  v.set("requests_per_s", runs ? Value(load) : Value());
  v.set("utilisation", op ? Value(utilisation) : Value());
  v.set("replicas", replicas);
  v.set("gpus", gpus);
  v.set("usd_per_million_tokens", runs ? usd_per_m : Value());
  v.set("kwh_per_million_tokens", runs ? kwh_per_m : Value());
  v.set("site", j.facility.site.id);
  v.set("power", bill.power);
  // The bill of one hour: its hourly figures per hour, the totals of the cluster's life
  // (capital, cost of ownership, per year, break-even) beside them, not under "per hour".
  Value per_hour = Value::object(), totals = Value::object();
  for (const auto& [k, x] : bill.cost.members())
    (k == "cloud" || k == "owned_run" || k == "electricity" || k == "idle_gpu_hour" || k == "cloud_storage" ? per_hour
                                                                                                          : totals)
        .set(k, x);
  v.set("cost_usd_per_hour", per_hour);
  v.set("cost_usd", totals);
  assumptions.push_back(Assumption{"decode bandwidth efficiency", im.decode.bandwidth, {}, "", im.decode.origin});
  assumptions.push_back(Assumption{"decode overhead per layer", im.decode.per_layer.value(), {}, "s", im.decode.origin});
  assumptions.push_back(Assumption{"runtime reserve", mem.reserve.value(), {}, "B",
                                   s.reserve_bytes ? "set: reserve"
                                                   : "default of " + to_string(is.runtime) +
                                                         " (vLLM gpu_memory_utilization 0.9, llama.cpp fit margin 1 GiB, Ollama 457/512 MiB)"});
  for (const auto& n : j.calibration_notes) assumptions.push_back(Assumption{"calibration", 0, n, "", j.calibration_path});
  v.set("calibration", j.calibration ? Value(j.calibration_path) : Value());
  v.set("assumptions", assumptions_json(assumptions));
  v.set("warnings", warnings_json(warnings));

  Document doc;
  doc.data = v;
  Table t;
  t.title = fmt::format("{} ({}) on {} x {} with {}, tp {}, context {}", m.id, is.quant, gpus, j.device.id,
                        to_string(is.runtime), is.tp, is.context);
  t.headers = {"result", "value"};
  t.right = {false, true};
  t.add_row({"weights per device", format_iec(mem.weights.value())});
  t.add_row({"KV cache", fmt::format("{} ({} per token)", format_iec(mem.kv.value()), format_iec(mem.kv_per_token.value()))});
  t.add_row({"workspace + reserve", format_iec(mem.workspace.value() + mem.reserve.value())});
  t.add_row({"total / capacity", format_iec(mem.total().value()) + " / " + format_iec(mem.capacity.value())});
  t.add_row({"fits", mem.fits() ? "yes"
                     : mem.offloaded_layers > 0
                         ? fmt::format("no: {} of {} layers in {} memory", mem.offloaded_layers, m.layers, host.id)
                         : "no"});
  if (runs) {
    t.add_row({"prefill", format_si(prompt / single_prefill, "tokens/s")});
    t.add_row({"decode, one stream", format_si(1 / single_step, "tokens/s")});
    if (op) {
      t.add_row({"batch (max by KV)", fmt::format("{} ({})", op->batch, max_batch)});
      t.add_row({"TTFT / TPOT at load", format_duration(op->ttft_s) + " / " + format_duration(op->tpot_s)});
      if (op->ttft && op->tpot)
        t.add_row({"TTFT / TPOT p50, p90, p99",
                   fmt::format("{}, {}, {} / {}, {}, {}", format_duration(op->ttft->p50), format_duration(op->ttft->p90),
                               format_duration(op->ttft->p99), format_duration(op->tpot->p50),
                               format_duration(op->tpot->p90), format_duration(op->tpot->p99))});
      t.add_row({"replicas x tp = devices", fmt::format("{} x {} = {}", replicas, is.tp, gpus)});
      t.add_row({"requests/s (utilisation)", fmt::format("{} ({:.0f}%)", format_sig(load), 100 * utilisation)});
      t.add_row({"output throughput", format_si(throughput, "tokens/s")});
    } else {
      t.add_row({"TTFT / TPOT", format_duration(single_prefill + single_step) + " / " + format_duration(single_step)});
      t.add_row({"max batch by KV", std::to_string(max_batch)});
    }
    if (usd_per_m) t.add_row({"cost per million output tokens", format_usd(*usd_per_m)});
    if (kwh_per_m) t.add_row({"energy per million output tokens", format_sig(*kwh_per_m) + " kWh"});
  }
  doc.tables.push_back(t);
  // --top K: the degrees tried, best first, with why each loses to the chosen one.
  if (s.top > 0 && tried.size() > 1) {
    std::stable_sort(tried.begin(), tried.end(),
                     [&](const Deployment& a, const Deployment& b) { return better_deployment(a, b, serving); });
    Table alt;
    alt.title = "deployments tried (--top)";
    alt.headers = {"tp", "devices", "batch", "output tokens/s", "TTFT / TPOT", "verdict"};
    alt.right = {true, true, true, true, true, false};
    Value list = Value::array();
    const Deployment* first = tried.front().op ? &tried.front() : nullptr;
    for (std::size_t i = 0; i < tried.size() && i < static_cast<std::size_t>(s.top); ++i) {
      const Deployment& a = tried[i];
      std::string verdict = a.why;
      if (a.op)
        verdict = a.tp == is.tp ? "chosen"
                  : serving     ? (a.devices == first->devices ? std::string("as many devices; ties go to the smaller degree")
                                                                   : fmt::format("needs {} more devices", a.devices - first->devices))
                                : fmt::format("{:.0f}% less throughput", 100 * (1 - a.throughput / first->throughput));
      alt.add_row({std::to_string(a.tp), a.op ? std::to_string(a.devices) : "-", a.op ? std::to_string(a.op->batch) : "-",
                   a.op ? format_si(a.throughput, "tokens/s") : "-",
                   a.op ? format_duration(a.op->ttft_s) + " / " + format_duration(a.op->tpot_s) : "-", verdict});
      Value r = Value::object();
      r.set("tp", a.tp);
      r.set("devices", a.op ? Value(a.devices) : Value());
      r.set("batch", a.op ? Value(a.op->batch) : Value());
      r.set("throughput_tokens_per_s", a.op ? Value(a.throughput) : Value());
      r.set("ttft_s", a.op ? Value(a.op->ttft_s) : Value());
      r.set("tpot_s", a.op ? Value(a.op->tpot_s) : Value());
      r.set("verdict", verdict);
      list.push(r);
    }
    doc.tables.push_back(alt);
    doc.data.set("alternatives", list);
  }
  if (s.top > 0 && tried.size() <= 1)
    warnings.push_back("--top ranks the tensor-parallel degrees tried for --gpus N or a load, without --tp: nothing to rank here");
  doc.warnings = warnings;
  if (!runs) doc.exit_code = static_cast<int>(Exit::no_answer);
  if (o.explain) {
    doc.lines.push_back("decode step = max(bytes / (eta x bandwidth), FLOPs / peak) + host bytes / host bandwidth + layers x t_layer"
                        " + tensor-parallel all-reduces");
    doc.lines.push_back("prefill = max(2 N_active n + 2 L n^2 d_attn FLOPs / (GEMM efficiency x peak), weight bytes / bandwidth)");
    doc.lines.push_back("replica capacity = B / (O t_decode + B t_prefill) requests/s (prefill interrupts decoding)");
    for (const auto& a : assumptions)
      doc.lines.push_back(assumption_line(a));
  }
  return doc;
}

}  // namespace gpuplan
