// SPDX-License-Identifier: Apache-2.0
// `gpuplan infer`: will a model fit and how fast does it run on one device (the laptop
// question), what a fixed deployment sustains, and how many devices serve a load within latency
// targets, at what cost and energy per million output tokens. The decisions are analyses
// (analysis/serving, analysis/inference, analysis/cost); this file asks them and renders.
#include <algorithm>
#include <cmath>
#include <memory>
#include <fmt/format.h>

#include "bill.hpp"
#include "gpuplan/analysis/cost.hpp"
#include "gpuplan/analysis/serving.hpp"
#include "gpuplan/analysis/trace.hpp"
#include "gpuplan/commands.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/format.hpp"

namespace gpuplan {

void set_infer_memory_json(Value& v, const InferMemory& mem) {
  v.set("fits", mem.fits());
  v.set("weights_bytes", std::round(mem.weights.value()));
  v.set("kv_cache_bytes_per_token", mem.kv_per_token.value());
  v.set("kv_cache_bytes", std::round(mem.kv.value()));
  v.set("workspace_bytes", std::round(mem.workspace.value()));
  v.set("reserve_bytes", std::round(mem.reserve.value()));
  v.set("total_bytes", std::round(mem.total().value()));
  v.set("capacity_bytes", mem.capacity.value());
  // What the runtime lets the model use: the capacity less its reserve (vLLM's
  // gpu_memory_utilization, SGLang's static fraction, llama.cpp's margin, a unified-memory
  // machine's working-set limit is already in the capacity).
  v.set("usable_bytes", std::round(std::max(0.0, mem.capacity.value() - mem.reserve.value())));
  // A unified-memory machine's whole memory, of which capacity_bytes is the GPU's default limit.
  v.set("unified_memory_bytes", mem.pool.value() > 0 ? Value(mem.pool.value()) : Value());
  v.set("offloaded_layers", mem.offloaded_layers);
  v.set("offloaded_bytes", std::round(mem.offloaded_bytes.value()));
}

// The weights' format in words: "mxfp4 experts, bf16 elsewhere" for a native mix.
std::string quant_text(const InferSettings& is) {
  return is.expert_bpw > 0 ? fmt::format("{} experts, bf16 elsewhere", is.quant) : is.quant;
}

// Where the weights' format came from when --quant did not name one.
std::string quant_origin(const Scenario& s, const ModelArch& m, const std::string& quant) {
  if (s.has("quant")) return "--quant auto: the widest format of the runtime's ladder that fits";
  if (s.runtime == "ollama" && quant == "q4_k_m")
    return "default of ollama: its library tags are Q4_K_M builds, unless the checkpoint ships 4-bit";
  if (!m.native_quant.empty()) return "models." + m.id + ".native_quant: the format its published checkpoint ships in";
  return "default: 16-bit weights, as most checkpoints ship";
}

// What caps the batch, in words.
std::string limit_name(const InferModel& im) {
  return std::string(batch_limit_cause(im)) == "kv" ? "KV cache" : "max sequences";
}

// The fit verdict in words: yes; layers in host memory; a unified pool's limit to raise; swap.
std::string fit_text(const InferMemory& mem, int layers, const std::string& host) {
  if (mem.fits()) return "yes";
  if (mem.offloaded_layers > 0) return fmt::format("no: {} of {} layers in {} memory", mem.offloaded_layers, layers, host);
  if (mem.fits_raised_limit())
    return fmt::format("no: beyond the GPU's default limit ({} of {} unified); fits once raised",
                       format_iec(mem.capacity.value()), format_iec(mem.pool.value()));
  if (mem.pool.value() > 0) return fmt::format("no: needs swap ({} unified, {} kept by the system)", format_iec(mem.pool.value()),
                                                format_iec(mem.system.value()));
  return "no";
}

namespace {

// What `infer` answers: the serving analysis's answer, and the bill of the devices it uses.
struct InferRun : ServingAnswer {
  Job job;
  FacilitySettings facility;
  ClusterPower cluster;
  FacilityBill bill;
  std::optional<double> usd_per_m, kwh_per_m;
  // Without a load: the same figures with the batch full (the offline steady state), the cheapest
  // a token gets on these devices; a one-stream figure alone reads as the price of serving.
  int full_batch = 0;
  double full_throughput = 0;
  std::optional<double> usd_per_m_full, kwh_per_m_full;
  std::string launch;  // the runtime's command for this deployment
  std::shared_ptr<const ServingAnswer> searched;  // the deployment search's answer before the bill and notes
  std::optional<MonthlyCost> monthly;  // --requests-per-day or --api: a month owned, rented and at each API
  std::optional<TraceReplay> replay;  // --trace: the requests replayed
  std::optional<Operating> poisson;   // and the closed forms at the same mean rate, where it is below capacity
};

// The laptop question (one device, no load, no site named) runs outside a data centre: no
// facility overhead on its energy.
bool is_local(const Scenario& s) { return s.rate <= 0 && s.users <= 0 && s.gpus <= 0 && !s.has("site") && !s.has("pue"); }

Job resolve_job(const Catalog& catalog, const Scenario& s) {
  const bool local = is_local(s);
  Scenario sl = s;
  if (local) sl.pue = 1.0;
  Job j = resolve(sl, catalog);
  if (local)
    for (auto& a : j.facility.assumptions)
      if (a.name == "PUE") a.origin = "local machine: no data-centre overhead (give --site or --pue for one)";
  return j;
}

// The question the serving analysis answers, resolved from the flags: the runtime's settings,
// the host, and the decode efficiency calibrated and scaled as the flags say; the KV offload
// tier's assumption, where there is one, into `offload`.
ServingQuestion serving_question(const Catalog& catalog, const Scenario& s, const Job& j, std::optional<Assumption>& offload) {
  ServingQuestion q;
  q.model = j.model;
  q.params = j.params;
  q.device = j.device;
  q.host = resolve_host(s, catalog, j.device);
  q.settings = resolve_infer(s, j);
  offload = resolve_kv_offload(s, catalog, j.device, q.host, q.settings);
  q.compute = j.step.eff;  // calibrated and scaled
  q.decode = make_infer_model(j.model, j.params, j.device, q.host, q.settings).decode;
  if (j.calibration) apply_calibration(*j.calibration, j.device, q.decode);
  q.decode.bandwidth = std::min(1.0, q.decode.bandwidth * s.efficiency_scale);
  q.prompt_tokens = s.prompt_tokens;
  q.output_tokens = s.output_tokens;
  q.context = s.context;
  q.rate = s.rate;
  q.users = s.users;
  // A workload of users and requests a day: Poisson arrivals at their mean rate (thousands of
  // people asking now and then), held to the targets users get by default.
  if (s.requests_per_day > 0) {
    if (s.users <= 0) fail(Exit::usage, "--requests-per-day counts each user's requests: give --users too");
    q.rate = static_cast<double>(s.users) * s.requests_per_day / 86400;
    q.population = s.users;
    q.users = 0;
  }
  q.think_s = s.think_s;
  q.gpus = s.gpus;
  q.tp = s.layout.tp.value_or(0);
  q.pp = s.layout.pp.value_or(0);
  q.ep = s.layout.ep.value_or(0);
  q.dp_attention = s.dp_attention;
  q.length_low = s.length_low;
  q.frontier = s.frontier;
  q.disagg = s.disagg;
  if (!s.draft.empty()) q.draft = model_named(catalog, s.draft);
  q.scenario = s.serving_scenario;
  q.ttft_s = s.ttft_s;
  q.tpot_s = s.tpot_s;
  q.strict = s.strict;
  return q;
}

// The bill of an hour of the devices in use, and its cost and energy per million output tokens.
void price(InferRun& r, const Scenario& s) {
  r.facility = s.bill;
  r.cluster = cluster_of(r.job.facility, s.bill, r.gpus, 0);
  r.warnings.insert(r.warnings.end(), r.cluster.warnings.begin(), r.cluster.warnings.end());
  r.bill = facility_bill(r.job.facility, s.bill, r.cluster, RunFacts{r.gpus, seconds(3600), -1});
  const BillCost& cost = r.bill.cost;
  const auto usd_per_hour = s.bill.buy && cost.owned_run ? cost.owned_run : cost.cloud ? cost.cloud : cost.owned_run;
  const std::optional<double> kwh_per_hour =
      r.bill.energy_mwh ? std::optional<double>(*r.bill.energy_mwh * 1e3) : std::nullopt;
  r.usd_per_m = per_million_tokens(usd_per_hour, r.throughput());
  r.kwh_per_m = per_million_tokens(kwh_per_hour, r.throughput());
  const int limit = !r.sized && r.runs ? batch_limit(r.model) : 0;
  if (limit > 1) {
    r.full_batch = limit;
    r.full_throughput = operate(r.model, r.full_batch, r.prompt, r.output, 1).capacity_rps * r.output;
    r.usd_per_m_full = per_million_tokens(usd_per_hour, r.full_throughput);
    r.kwh_per_m_full = per_million_tokens(kwh_per_hour, r.full_throughput);
  }
  const InferModel& im = r.model;
  r.assumptions.push_back(Assumption{"decode bandwidth efficiency", im.decode.bandwidth, {}, "", im.decode.origin});
  r.assumptions.push_back(Assumption{"decode overhead per layer", im.decode.per_layer.value(), {}, "s", im.decode.origin});
  if (im.settings.prefix_tokens > 0)
    r.assumptions.push_back(Assumption{"prefix cache", im.settings.prefix_hit,
                                       fmt::format("{} of {} prompt tokens shared", format_exact(static_cast<double>(im.settings.prefix_tokens)),
                                                   format_exact(r.prompt)),
                                       "hit rate",
                                       im.settings.prefix_count > 1
                                           ? fmt::format("given: one of {} prefixes, each kept where the device's cache has room, "
                                                         "then in the offload tier, else prefilled again",
                                                         im.settings.prefix_count)
                                           : "given: cached tokens are not prefilled again; their KV blocks are stored once a replica"});
  if (im.model.moe() && im.decode.per_moe_layer.value() > 0)
    r.assumptions.push_back(Assumption{"fused-MoE floor per MoE layer", im.decode.per_moe_layer.value(), {}, "s",
                                       "vLLM and SGLang fused-MoE kernel benchmarks at one token (inference.cpp)"});
  r.assumptions.push_back(Assumption{"runtime reserve", im.memory.reserve.value(), {}, "B",
                                     s.reserve_bytes  ? "set: reserve"
                                     : s.mem_fraction ? fmt::format("set: mem-fraction {}", *s.mem_fraction)
                                                      : "default of " + to_string(r.settings.runtime) +
                                                           " (vLLM gpu_memory_utilization 0.9, llama.cpp fit margin 1 GiB, Ollama 457/512 MiB)"});
  for (const auto& n : r.job.calibration_notes) r.assumptions.push_back(Assumption{"calibration", 0, n, "", r.job.calibration_path});
}

// --trace: the requests it holds, and the question asked at their mean prompt and reply, with a
// cache for the longest.
std::vector<TraceRequest> trace_of(const Scenario& s, Scenario& asked) {
  if (s.trace.empty()) return {};
  if (s.rate > 0 || s.users > 0)
    fail(Exit::usage, "--trace replays the arrivals it holds: give no --rate or --users with it");
  std::vector<TraceRequest> t = read_trace(s.trace);
  double prompts = 0, outputs = 0, longest = 0;
  for (const auto& q : t) prompts += q.prompt, outputs += q.output, longest = std::max(longest, q.prompt + q.output);
  const double n = static_cast<double>(t.size());
  if (!s.has("prompt-tokens")) asked.prompt_tokens = std::max(1L, std::lround(prompts / n));
  if (!s.has("output-tokens")) asked.output_tokens = std::max(1L, std::lround(outputs / n));
  if (!s.has("context")) asked.context = static_cast<int>(std::min(longest, 2e9));
  return t;
}

// The API prices to compare: every one offering the model, then those --api names.
std::vector<ApiOffer> api_offers(const Catalog& catalog, const Scenario& s, const std::string& model) {
  std::vector<const Record*> records;
  for (const Record* a : catalog.list("apis"))
    if (a->text("model") == model) records.push_back(a);
  std::string_view rest = s.apis;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    std::string id(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    id.erase(0, id.find_first_not_of(' '));
    id.erase(id.find_last_not_of(' ') + 1);
    if (id.empty()) fail(Exit::usage, fmt::format("--api '{}' has an empty id; give ids separated by commas", s.apis));
    const Record* a = &catalog.get("apis", id);
    if (std::find(records.begin(), records.end(), a) == records.end()) records.push_back(a);
  }
  std::vector<ApiOffer> offers;
  for (const Record* a : records)
    offers.push_back(ApiOffer{a->id, a->text("name"), a->text("provider"), a->text("model"), a->text("as_of"),
                              a->text("source"), a->number("usd_per_m_input"), a->number("usd_per_m_output")});
  return offers;
}

// A month of the load: the deployment owned and rented, and each API's list price.
void add_monthly(InferRun& r, const Catalog& catalog, const Scenario& s) {
  if (!r.sized || (s.requests_per_day <= 0 && s.apis.empty())) return;
  const Sized& z = *r.sized;
  const BillCost& cost = r.bill.cost;  // an hour of the deployment
  const auto owned = cost.owned_per_year ? std::optional<double>(*cost.owned_per_year / 12) : std::nullopt;
  const auto rented = cost.cloud ? std::optional<double>(*cost.cloud * month_s / 3600) : std::nullopt;
  const double capacity = z.utilisation > 0 ? z.load_rps / z.utilisation : z.load_rps;
  r.monthly = monthly_cost(z.load_rps, capacity, r.prompt, r.output, owned, rented, api_offers(catalog, s, r.job.model.id));
  if (r.monthly->apis.empty())
    r.warnings.push_back(fmt::format("no API price in the catalog serves {}: name one to compare with --api "
                                     "(gpuplan catalog list apis)",
                                     r.job.model.id));
}

InferRun infer_run(const Catalog& catalog, const Scenario& given, const ServingAnswer* reuse) {
  InferRun r;
  Scenario s = given;
  const std::vector<TraceRequest> trace = trace_of(given, s);
  r.job = resolve_job(catalog, s);
  std::optional<Assumption> offload;
  const ServingQuestion q = serving_question(catalog, s, r.job, offload);
  // The search's own answer, kept as it came for a question asked again with another bill.
  r.searched = std::make_shared<const ServingAnswer>(reuse ? *reuse : answer_serving(q));
  static_cast<ServingAnswer&>(r) = *r.searched;
  // The facility's assumptions and warnings first (a laptop question has no bill to pay: the
  // prices the catalog lacks are not worth a warning), then the analysis's.
  std::vector<Assumption> assumptions = r.job.facility.assumptions;
  if (!s.has("quant") || s.quant == "auto")  // the weights were chosen for the user (resolve_infer)
    assumptions.push_back(Assumption{"weights", 0, quant_text(q.settings), "", quant_origin(s, r.job.model, q.settings.quant)});
  if (offload) assumptions.push_back(*offload);
  assumptions.insert(assumptions.end(), r.assumptions.begin(), r.assumptions.end());
  r.assumptions = std::move(assumptions);
  std::vector<std::string> warnings = r.job.warnings;
  const auto& facility = is_local(s) ? r.job.facility.warnings : r.job.facility.all_warnings();
  warnings.insert(warnings.end(), facility.begin(), facility.end());
  warnings.insert(warnings.end(), r.warnings.begin(), r.warnings.end());
  if (!q.settings.offload_tier.empty() && q.settings.prefix_count <= 1)
    warnings.push_back(fmt::format("--kv-offload {}: one shared prefix stays on the device, so the tier holds nothing; it keeps "
                                   "distinct prefixes (--prefix-count, such as each user's conversation)",
                                   s.kv_offload));
  r.warnings = std::move(warnings);
  price(r, s);
  add_monthly(r, catalog, s);
  // The checkpoint to serve: the path given, else a placeholder naming the catalog model.
  const bool path = s.model.find('/') != std::string::npos || s.model.ends_with(".json") || s.model.ends_with(".gguf");
  const std::string checkpoint =
      path ? s.model
           : fmt::format("<{} {}>", r.job.model.id, r.settings.runtime == Runtime::llama_cpp ? "GGUF file" : "checkpoint");
  // A load's batch, else the runtime's own: the cache's limit on a serving runtime, one
  // conversation on llama.cpp and Ollama.
  const int seqs = r.sized ? r.sized->op.batch : serving_runtime(r.settings.runtime) ? batch_limit(r.model) : 1;
  r.launch = launch_line(r.model, checkpoint, seqs);
  if (!trace.empty() && r.runs) {
    const int replicas = std::max(1, r.gpus / replica_devices(r.settings));
    r.replay = replay_trace(r.model, trace, replicas);
    // The closed forms for Poisson arrivals at the trace's mean rate, mean prompt and reply.
    const int batch = std::max(1, batch_limit(r.model));
    const Operating full = operate(r.model, batch, r.replay->mean_prompt, r.replay->mean_output, 1);
    const double share = full.capacity_rps > 0 ? r.replay->rate_rps / replicas / full.capacity_rps : 1;
    if (share < 1) r.poisson = operate(r.model, batch, r.replay->mean_prompt, r.replay->mean_output, share);
    else
      r.warnings.push_back(fmt::format("the trace's mean rate, {} requests/s, is {:.0f}% of the {} replica{}' capacity: its "
                                       "queue grows, and Poisson arrivals at that rate have no steady state",
                                       format_sig(r.replay->rate_rps), 100 * share, replicas, replicas == 1 ? "" : "s"));
  }
  return r;
}

Value infer_json(const InferRun& r) {
  const InferMemory& mem = r.model.memory;
  const Operating* op = r.sized ? &r.sized->op : nullptr;
  const bool runs = r.runs;
  Value v = Value::object();
  v.set("model", r.job.model.id);
  v.set("gpu", r.job.device.id);
  v.set("quant", r.settings.quant);
  v.set("runtime", to_string(r.settings.runtime));
  v.set("tp", r.settings.tp);
  v.set("pp", r.settings.pp);
  v.set("ep", r.settings.experts_whole ? r.settings.tp : r.settings.ep);
  // How attention is split beside expert parallelism: "tensor" (tp ep), "data" (ep alone), or null.
  v.set("attention_parallel", r.settings.ep > 1 ? Value("data") : r.settings.experts_whole ? Value("tensor") : Value());
  if (r.settings.spec_tokens > 0) {
    Value sp = Value::object();
    sp.set("draft", r.model.draft ? Value(r.model.draft->model.id) : Value("head"));
    sp.set("draft_tokens", r.settings.spec_tokens);
    sp.set("accept", r.settings.spec_accept);
    sp.set("tokens_per_step", spec_tokens_per_step(r.settings.spec_tokens, r.settings.spec_accept));
    v.set("speculative", sp);
  } else {
    v.set("speculative", Value());
  }
  v.set("context", static_cast<double>(r.settings.context));
  v.set("prompt_tokens", r.prompt);
  v.set("output_tokens", r.output);
  if (r.settings.prefix_tokens > 0) {
    const int resident = op ? op->batch : 1;
    const PrefixFound found = prefix_found(r.model, resident);
    Value pc = Value::object();
    pc.set("prefix_tokens", static_cast<double>(r.settings.prefix_tokens));
    pc.set("hit_rate", r.settings.prefix_hit);
    pc.set("prefixes", static_cast<double>(r.prefixes));
    pc.set("prefixes_per_replica", static_cast<double>(r.settings.prefix_count));
    // Where a reused prefix is found at the operating point's batch, as shares of the prefixes.
    pc.set("found_device", found.device);
    pc.set("found_offload", found.offload);
    pc.set("cached_tokens", cached_prompt_tokens(r.settings, r.prompt, found));  // per request, on average
    if (!r.settings.offload_tier.empty()) {
      Value off = Value::object();
      off.set("tier", r.settings.offload_tier);
      off.set("bytes_per_device", r.settings.offload_bytes.value());
      off.set("read_bytes_per_s", r.settings.offload_read.value());
      off.set("prefixes", found.prefixes_offload);
      off.set("load_s", prefix_load_time(r.model, r.prompt, resident).value());  // per request, on average
      pc.set("offload", off);
    } else {
      pc.set("offload", Value());
    }
    v.set("prefix_cache", pc);
  } else {
    v.set("prefix_cache", Value());
  }
  set_infer_memory_json(v, mem);
  v.set("host", mem.offloaded_layers > 0 ? Value(r.host.id) : Value());
  v.set("prefill_tokens_per_s", runs ? Value(r.prompt / r.single.prefill_s) : Value());
  v.set("decode_tokens_per_s", runs ? Value(1 / r.single.step_s) : Value());
  v.set("ttft_s", runs ? Value(op ? op->ttft_s : r.single.ttft_s()) : Value());
  v.set("tpot_s", runs ? Value(op ? op->tpot_s : r.single.step_s) : Value());
  // Percentiles under Poisson arrivals at the load served; null offline (every request queued
  // at once: no arrival process, no latency) and for a single local stream.
  for (const auto& [name, tail] : {std::pair{"ttft", op ? op->ttft : std::nullopt}, std::pair{"tpot", op ? op->tpot : std::nullopt}}) {
    v.set(fmt::format("{}_p50_s", name), tail ? Value(tail->p50) : Value());
    v.set(fmt::format("{}_p90_s", name), tail ? Value(tail->p90) : Value());
    v.set(fmt::format("{}_p99_s", name), tail ? Value(tail->p99) : Value());
  }
  v.set("max_batch", batch_limit(r.model));
  // What sets it: the KV cache ("kv") or the runtime's cap on sequences ("max_seqs"), and that cap.
  v.set("batch_limit", batch_limit_cause(r.model));
  const int cap = r.settings.max_seqs > 0 ? r.settings.max_seqs : runtime_max_seqs(r.settings.runtime, r.job.device);
  v.set("max_seqs", cap > 0 ? Value(cap) : Value());
  v.set("batch", op ? Value(op->batch) : Value(1));
  v.set("throughput_tokens_per_s", runs ? Value(r.throughput()) : Value());
  v.set("requests_per_s", runs ? Value(r.sized ? r.sized->load_rps : 1 / r.single.step_s / r.output) : Value());
  v.set("utilisation", r.sized ? Value(r.sized->utilisation) : Value());
  v.set("replicas", r.sized ? r.sized->replicas : 1);
  v.set("gpus", r.gpus);
  v.set("launch", r.launch);
  if (const auto& d = r.disaggregated) {
    Value dv = Value::object();
    dv.set("prefill_workers", d->prefill_workers);
    dv.set("decode_workers", d->decode_workers);
    dv.set("tp", d->tp);
    dv.set("devices", d->devices);
    dv.set("decode_batch", d->decode_batch);
    dv.set("prefill_s", d->prefill_s);
    dv.set("kv_transfer_s", d->kv_transfer_s);
    dv.set("ttft_p99_s", d->ttft_p99_s);
    dv.set("tpot_s", d->tpot_s);
    dv.set("aggregated_devices", r.sized ? Value(r.sized->gpus) : Value());
    dv.set("chosen", r.disaggregated_chosen);
    v.set("disaggregated", dv);
  } else {
    v.set("disaggregated", Value());
  }
  if (!r.frontier.empty()) {
    Value fv = Value::array();
    for (const auto& p : r.frontier) {
      Value o = Value::object();
      o.set("tp", p.tp);
      o.set("pp", p.pp);
      o.set("ep", p.ep);
      o.set("devices", p.devices);
      o.set("concurrency", p.concurrency);
      o.set("tokens_per_s_per_user", p.tokens_per_s_per_user);
      o.set("tokens_per_s_per_gpu", p.tokens_per_s_per_gpu);
      o.set("ttft_s", p.ttft_s);
      o.set("tpot_s", p.tpot_s);
      o.set("pareto", p.pareto);
      fv.push(o);
    }
    v.set("frontier", fv);
  } else {
    v.set("frontier", Value());
  }
  if (r.replay) {
    const TraceReplay& t = *r.replay;
    Value tv = Value::object();
    tv.set("requests", static_cast<double>(t.requests));
    tv.set("replicas", t.replicas);
    tv.set("rate_rps", t.rate_rps);
    tv.set("mean_prompt_tokens", t.mean_prompt);
    tv.set("mean_output_tokens", t.mean_output);
    tv.set("duration_s", t.duration_s);
    tv.set("throughput_tokens_per_s", t.throughput);
    tv.set("longest_queue", static_cast<double>(t.longest_queue));
    tv.set("ttft_mean_s", t.ttft_mean);
    tv.set("tpot_mean_s", t.tpot_mean);
    const auto tails = [](Value& o, const char* name, const Percentiles& p) {
      o.set(fmt::format("{}_p50_s", name), p.p50);
      o.set(fmt::format("{}_p90_s", name), p.p90);
      o.set(fmt::format("{}_p99_s", name), p.p99);
    };
    tails(tv, "ttft", t.ttft);
    tails(tv, "tpot", t.tpot);
    if (r.poisson && r.poisson->ttft && r.poisson->tpot) {
      Value pv = Value::object();
      tails(pv, "ttft", *r.poisson->ttft);
      tails(pv, "tpot", *r.poisson->tpot);
      tv.set("poisson", pv);
    } else {
      tv.set("poisson", Value());
    }
    v.set("trace", tv);
  } else {
    v.set("trace", Value());
  }
  if (const auto& m = r.monthly) {
    Value mv = Value::object();
    mv.set("requests", m->requests);
    mv.set("input_tokens", m->input_tokens);
    mv.set("output_tokens", m->output_tokens);
    mv.set("owned_usd", m->owned ? Value(*m->owned) : Value());
    mv.set("rented_usd", m->rented ? Value(*m->rented) : Value());
    Value apis = Value::array();
    for (const auto& a : m->apis) {
      Value av = Value::object();
      av.set("id", a.offer.id);
      av.set("provider", a.offer.provider);
      av.set("model", a.offer.model.empty() ? Value() : Value(a.offer.model));
      av.set("usd", a.usd);
      av.set("usd_per_m_input", a.offer.usd_per_m_input);
      av.set("usd_per_m_output", a.offer.usd_per_m_output);
      av.set("as_of", a.offer.as_of);
      apis.push(av);
    }
    mv.set("apis", apis);
    mv.set("cheapest_api", m->apis.empty() ? Value() : Value(m->apis.front().offer.id));
    mv.set("break_even_requests_per_day", m->break_even_requests_per_day ? Value(*m->break_even_requests_per_day) : Value());
    mv.set("capacity_requests_per_day", m->capacity_requests_per_day);
    v.set("monthly_cost", mv);
  } else {
    v.set("monthly_cost", Value());
  }
  v.set("usd_per_million_tokens", runs ? r.usd_per_m : Value());
  v.set("kwh_per_million_tokens", runs ? r.kwh_per_m : Value());
  const bool full = r.full_batch > 0;
  v.set("full_batch_throughput_tokens_per_s", full ? Value(r.full_throughput) : Value());
  v.set("usd_per_million_tokens_full_batch", full ? r.usd_per_m_full : Value());
  v.set("kwh_per_million_tokens_full_batch", full ? r.kwh_per_m_full : Value());
  v.set("site", r.job.facility.site.id);
  const BillView bill{r.job.facility, r.facility, r.cluster, r.bill};
  v.set("power", fields_object(bill_power_fields(), bill));
  // The bill of one hour: its hourly figures per hour, the totals of the cluster's life
  // (capital, cost of ownership, per year, break-even) beside them, not under "per hour".
  Value per_hour = Value::object(), totals = Value::object();
  const Value cost = fields_object(bill_cost_fields(), bill);
  for (const auto& [k, x] : cost.members())
    (k == "cloud" || k == "owned_run" || k == "electricity" || k == "idle_gpu_hour" || k == "cloud_storage" ? per_hour
                                                                                                          : totals)
        .set(k, x);
  v.set("cost_usd_per_hour", per_hour);
  v.set("cost_usd", totals);
  v.set("calibration", r.job.calibration ? Value(r.job.calibration_path) : Value());
  v.set("assumptions", assumptions_json(r.assumptions));
  return v;
}

// Where requests find their prefixes at a batch: "4.1k of 10k prefixes on the device, 10k in host
// memory (64 GiB): 90% of requests find theirs (12.3 ms to load)".
std::string prefix_text(const InferRun& r, int resident) {
  const InferSettings& is = r.settings;
  const PrefixFound f = prefix_found(r.model, resident);
  std::string t = fmt::format("{} of {} prefix{} on the device", format_sig(f.prefixes_device), format_sig(static_cast<double>(is.prefix_count)),
                              is.prefix_count > 1 ? "es" : "");
  if (r.prefixes > is.prefix_count) t += fmt::format(" (a replica's share of {})", format_sig(static_cast<double>(r.prefixes)));
  if (!is.offload_tier.empty())
    t += fmt::format(", {} in {} ({})", format_sig(f.prefixes_offload), is.offload_tier == "host" ? "host memory" : is.offload_tier,
                     format_iec(is.offload_bytes.value()));
  t += fmt::format(": {:.0f}% of requests find theirs", 100 * is.prefix_hit * (f.device + f.offload));
  const double load = prefix_load_time(r.model, r.prompt, resident).value();
  if (load > 0) t += fmt::format(" ({} to load, on average)", format_duration(load));
  return t;
}

Table infer_table(const InferRun& r) {
  const InferMemory& mem = r.model.memory;
  const InferSettings& is = r.settings;
  Table t;
  t.title = fmt::format("{} ({}) on {} x {} with {}, {}, context {}", r.job.model.id, is.quant, r.gpus, r.job.device.id,
                        to_string(is.runtime), degrees_text(is), is.context);
  t.headers = {"result", "value"};
  t.right = {false, true};
  t.add_row({"weights per device", format_iec(mem.weights.value())});
  t.add_row({"KV cache", fmt::format("{} ({} per token)", format_iec(mem.kv.value()), format_iec(mem.kv_per_token.value()))});
  t.add_row({"workspace + reserve", format_iec(mem.workspace.value() + mem.reserve.value())});
  t.add_row({"total / capacity", format_iec(mem.total().value()) + " / " + format_iec(mem.capacity.value())});
  t.add_row({"fits", fit_text(mem, r.job.model.layers, r.host.id)});
  if (!r.runs) return t;
  t.add_row({"prefill", format_si(r.prompt / r.single.prefill_s, "tokens/s")});
  t.add_row({"decode, one stream", format_si(1 / r.single.step_s, "tokens/s")});
  if (is.spec_tokens > 0)
    t.add_row({"speculative decoding", fmt::format("{} draft tokens from {}, accepted at {:.2f}: {:.2f} tokens a step",
                                                   is.spec_tokens, r.model.draft ? r.model.draft->model.id : "a one-layer head",
                                                   is.spec_accept, spec_tokens_per_step(is.spec_tokens, is.spec_accept))});
  if (r.sized) {
    const Sized& z = *r.sized;
    const Operating& op = z.op;
    t.add_row({"batch (max)", fmt::format("{} ({} by {})", op.batch, batch_limit(r.model), limit_name(r.model))});
    t.add_row({"TTFT / TPOT at load", format_duration(op.ttft_s) + " / " + format_duration(op.tpot_s)});
    if (op.ttft && op.tpot)
      t.add_row({"TTFT / TPOT p50, p90, p99",
                 fmt::format("{}, {}, {} / {}, {}, {}", format_duration(op.ttft->p50), format_duration(op.ttft->p90),
                             format_duration(op.ttft->p99), format_duration(op.tpot->p50), format_duration(op.tpot->p90),
                             format_duration(op.tpot->p99))});
    if (is.ep > 1) t.add_row({"replicas x ep = devices", fmt::format("{} x {} = {}", z.replicas, is.ep, z.gpus)});
    else if (is.pp > 1) t.add_row({"replicas x tp x pp = devices", fmt::format("{} x {} x {} = {}", z.replicas, is.tp, is.pp, z.gpus)});
    else t.add_row({"replicas x tp = devices", fmt::format("{} x {} = {}", z.replicas, is.tp, z.gpus)});
    t.add_row({"requests/s (utilisation)", fmt::format("{} ({:.0f}%)", format_sig(z.load_rps), 100 * z.utilisation)});
    if (is.prefix_count > 1 || !is.offload_tier.empty()) t.add_row({"prefix cache", prefix_text(r, op.batch)});
    if (const auto& d = r.disaggregated)
      t.add_row({fmt::format("disaggregated{}", r.disaggregated_chosen ? " (chosen)" : ""),
                 fmt::format("{} prefill + {} decode x tp {} = {} devices (aggregated {}); TTFT p99 {}, TPOT {}",
                             d->prefill_workers, d->decode_workers, d->tp, d->devices, z.gpus,
                             format_duration(d->ttft_p99_s), format_duration(d->tpot_s))});
    t.add_row({"output throughput", format_si(z.throughput, "tokens/s")});
  } else {
    t.add_row({"TTFT / TPOT", format_duration(r.single.ttft_s()) + " / " + format_duration(r.single.step_s)});
    t.add_row({"max batch", fmt::format("{} (by {})", batch_limit(r.model), limit_name(r.model))});
  }
  const std::string one = r.sized ? "" : " (one stream)";
  if (r.usd_per_m) t.add_row({"cost per million output tokens" + one, format_usd(*r.usd_per_m)});
  if (r.kwh_per_m) t.add_row({"energy per million output tokens" + one, format_sig(*r.kwh_per_m) + " kWh"});
  if (r.full_batch > 0) {
    t.add_row({fmt::format("output throughput at batch {}", r.full_batch), format_si(r.full_throughput, "tokens/s")});
    if (r.usd_per_m_full) t.add_row({fmt::format("cost per million output tokens at batch {}", r.full_batch), format_usd(*r.usd_per_m_full)});
    if (r.kwh_per_m_full)
      t.add_row({fmt::format("energy per million output tokens at batch {}", r.full_batch), format_sig(*r.kwh_per_m_full) + " kWh"});
  }
  return t;
}

// --top K: the degrees tried, best first, with why each loses to the chosen one.
void add_alternatives(Document& doc, const InferRun& r, int top) {
  std::vector<Deployment> tried = r.tried;
  std::stable_sort(tried.begin(), tried.end(),
                   [&](const Deployment& a, const Deployment& b) { return better_deployment(a, b, r.serving); });
  Table alt;
  alt.title = "deployments tried (--top)";
  alt.headers = {"tp", "pp", "ep", "devices", "batch", "output tokens/s", "TTFT / TPOT", "verdict"};
  alt.right = {true, true, true, true, true, true, true, false};
  Value list = Value::array();
  const Deployment* first = tried.front().op ? &tried.front() : nullptr;
  for (std::size_t i = 0; i < tried.size() && i < static_cast<std::size_t>(top); ++i) {
    const Deployment& a = tried[i];
    std::string verdict = a.why;
    if (a.op)
      verdict = a.tp == r.settings.tp && a.pp == r.settings.pp && a.ep == r.settings.ep ? "chosen"
                : r.serving           ? (a.devices == first->devices ? std::string("as many devices; ties go to the smaller degree")
                                                                     : fmt::format("needs {} more devices", a.devices - first->devices))
                                      : fmt::format("{:.0f}% less throughput", 100 * (1 - a.throughput / first->throughput));
    alt.add_row({std::to_string(a.tp), std::to_string(a.pp), std::to_string(a.ep), a.op ? std::to_string(a.devices) : "-", a.op ? std::to_string(a.op->batch) : "-",
                 a.op ? format_si(a.throughput, "tokens/s") : "-",
                 a.op ? format_duration(a.op->ttft_s) + " / " + format_duration(a.op->tpot_s) : "-", verdict});
    Value row = Value::object();
    row.set("tp", a.tp);
    row.set("pp", a.pp);
    row.set("ep", a.ep);
    row.set("devices", a.op ? Value(a.devices) : Value());
    row.set("batch", a.op ? Value(a.op->batch) : Value());
    row.set("throughput_tokens_per_s", a.op ? Value(a.throughput) : Value());
    row.set("ttft_s", a.op ? Value(a.op->ttft_s) : Value());
    row.set("tpot_s", a.op ? Value(a.op->tpot_s) : Value());
    row.set("verdict", verdict);
    list.push(row);
  }
  doc.tables.push_back(alt);
  doc.data.set("alternatives", list);
}

InferRun infer_run(const Catalog& catalog, const Scenario& s, const ServingAnswer* reuse = nullptr);

// --quants: the same question at each format of the runtime's ladder, widest first, with the
// memory, the fit and the speed of one stream (a format that cannot run says why).
void add_quants(Document& doc, const Catalog& catalog, const Scenario& s, const InferRun& chosen) {
  Table t;
  t.title = fmt::format("weight formats of {} on {} x {} with {}", chosen.job.model.id, chosen.gpus, chosen.job.device.id,
                        to_string(chosen.settings.runtime));
  t.headers = {"quant", "bits/weight", "weights", "total / capacity", "fits", "prefill", "decode"};
  t.right = {false, true, true, true, false, true, true};
  Value list = Value::array();
  for (const auto& q : quant_ladder(chosen.settings.runtime, chosen.job.device)) {
    Scenario sq = s;
    sq.quants = false;
    sq.top = 0;
    apply_setting(sq, "quant", q);
    if (!s.has("runtime")) apply_setting(sq, "runtime", to_string(chosen.settings.runtime));
    Value row = Value::object();
    row.set("quant", q);
    try {
      const InferRun r = infer_run(catalog, sq);
      const InferMemory& mem = r.model.memory;
      t.add_row({quant_text(r.settings), format_sig(r.settings.bpw), format_iec(mem.weights.value()),
                 format_iec(mem.total().value()) + " / " + format_iec(mem.capacity.value()),
                 fit_text(mem, r.job.model.layers, r.host.id),
                 r.runs ? format_si(r.prompt / r.single.prefill_s, "tokens/s") : "-",
                 r.runs ? format_si(1 / r.single.step_s, "tokens/s") : "-"});
      row.set("bits_per_weight", r.settings.bpw);
      row.set("weights_bytes", std::round(mem.weights.value()));
      row.set("total_bytes", std::round(mem.total().value()));
      row.set("fits", mem.fits());
      row.set("prefill_tokens_per_s", r.runs ? Value(r.prompt / r.single.prefill_s) : Value());
      row.set("decode_tokens_per_s", r.runs ? Value(1 / r.single.step_s) : Value());
    } catch (const Error& e) {
      t.add_row({q, format_sig(bits_per_weight(q)), "-", "-", e.what(), "-", "-"});
      row.set("error", e.what());
    }
    list.push(row);
  }
  doc.tables.push_back(t);
  doc.data.set("quants", list);
}

Document infer_document(const InferRun& r, const Scenario& s, const RunOptions& o, const Catalog& catalog) {
  Document doc;
  doc.warnings = r.warnings;
  if (s.top > 0 && r.tried.size() <= 1)
    doc.warnings.push_back("--top ranks the tensor-parallel degrees tried for --gpus N or a load, without --tp: nothing to rank here");
  doc.data = infer_json(r);
  doc.data.set("warnings", warnings_json(doc.warnings));
  doc.tables.push_back(infer_table(r));
  if (s.top > 0 && r.tried.size() > 1) add_alternatives(doc, r, s.top);
  if (s.quants) add_quants(doc, catalog, s, r);
  if (!r.frontier.empty()) {
    Table ft;
    ft.title = "frontier: output tokens/s per GPU against tokens/s per user (the Pareto points; JSON has them all)";
    ft.headers = {"deployment", "users", "tokens/s/user", "tokens/s/GPU", "TTFT"};
    ft.right = {false, true, true, true, true};
    for (const auto& p : r.frontier) {
      if (!p.pareto) continue;
      InferSettings d;
      d.tp = p.tp, d.pp = p.pp, d.ep = p.ep;
      ft.add_row({degrees_text(d), std::to_string(p.concurrency), format_sig(p.tokens_per_s_per_user),
                  format_sig(p.tokens_per_s_per_gpu), format_duration(p.ttft_s)});
    }
    doc.tables.push_back(ft);
  }
  if (const auto& m = r.monthly) {
    Table mt;
    mt.title = fmt::format("a month of {} requests ({} input, {} output tokens): self-host, rent or pay an API",
                           format_si(m->requests, ""), format_si(m->input_tokens, ""), format_si(m->output_tokens, ""));
    mt.headers = {"option", "USD a month", "basis"};
    mt.right = {false, true, false};
    const auto money = [](std::optional<double> x) { return x ? format_usd(*x) : std::string("-"); };
    mt.add_row({fmt::format("owned ({} x {})", r.gpus, r.job.device.id), money(m->owned),
                fmt::format("cost of ownership over {} years, a twelfth of a year", format_exact(r.bill.cost.lifetime_years))});
    mt.add_row({fmt::format("rented ({} x {})", r.gpus, r.job.device.id), money(m->rented), "the cloud price, around the clock"});
    for (const auto& a : m->apis)
      mt.add_row({"API: " + a.offer.name, format_usd(a.usd),
                  fmt::format("{} in, {} out per million tokens ({})", format_usd(a.offer.usd_per_m_input),
                              format_usd(a.offer.usd_per_m_output), a.offer.as_of)});
    doc.tables.push_back(mt);
    if (!m->apis.empty() && m->owned) {
      const std::string& cheapest = m->apis.front().offer.name;
      doc.lines.push_back(m->break_even_requests_per_day
                              ? fmt::format("owning breaks even with {} above {} requests a day (the deployment serves up to {})",
                                            cheapest, format_si(*m->break_even_requests_per_day, ""),
                                            format_si(m->capacity_requests_per_day, ""))
                              : fmt::format("owning does not break even with {} within the deployment's {} requests a day",
                                            cheapest, format_si(m->capacity_requests_per_day, "")));
    }
  }
  if (r.replay) {
    const TraceReplay& t = *r.replay;
    Table tt;
    tt.title = fmt::format("trace replayed: {} requests at {} requests/s, {} replica{}", t.requests, format_sig(t.rate_rps),
                           t.replicas, t.replicas == 1 ? "" : "s");
    tt.headers = {"latency", "p50", "p90", "p99", "Poisson p99"};
    tt.right = {false, true, true, true, true};
    const auto row = [&](const char* name, const Percentiles& p, std::optional<Percentiles> poisson) {
      tt.add_row({name, format_duration(p.p50), format_duration(p.p90), format_duration(p.p99),
                  poisson ? format_duration(poisson->p99) : "-"});
    };
    row("TTFT", t.ttft, r.poisson ? r.poisson->ttft : std::nullopt);
    row("TPOT", t.tpot, r.poisson ? r.poisson->tpot : std::nullopt);
    tt.add_row({"output throughput", format_si(t.throughput, "tokens/s"), "", "", ""});
    doc.tables.push_back(tt);
  }
  if (r.runs) doc.lines.push_back("launch: " + r.launch);
  if (!r.unmet.empty()) {
    doc.exit_code = static_cast<int>(Exit::no_answer);
    doc.failure = r.unmet;
    // A serving runtime chosen by default on a single card: llama.cpp would run the model with
    // the layers that do not fit in host memory, which is what a desktop user would do.
    if (s.runtime.empty() && serving_runtime(r.settings.runtime) && r.job.device.devices_per_node == 1 &&
        r.job.device.family != "cpu" && !r.job.device.unified_memory)
      doc.failure += "; or --runtime llama.cpp, which keeps the layers that do not fit in host memory";
  }
  if (o.explain) {
    doc.lines.push_back("decode step = max(bytes / (eta x bandwidth), FLOPs / peak) + host bytes / host bandwidth + layers x t_layer"
                        " + tensor-parallel all-reduces");
    doc.lines.push_back("prefill = max(2 N_active n + 2 L n^2 d_attn FLOPs / (GEMM efficiency x peak), weight bytes / bandwidth)");
    doc.lines.push_back("replica capacity = B / (O t_decode + B t_prefill) requests/s (prefill interrupts decoding)");
    for (const auto& a : r.assumptions) doc.lines.push_back(assumption_line(a));
  }
  return doc;
}

}  // namespace

Document run_infer(const Catalog& catalog, const Scenario& s, const RunOptions& o) {
  return infer_document(infer_run(catalog, s), s, o, catalog);
}

InferEvaluation infer_for_plan(const Catalog& catalog, const Scenario& s, const ServingAnswer* reuse) {
  const InferRun r = infer_run(catalog, s, reuse);
  InferEvaluation e{infer_document(r, s, RunOptions{}, catalog).data, {}, *r.searched};
  ScenarioFigures& f = e.figures;
  f.serving = true;
  f.cloud_usd = r.bill.cost.cloud;
  f.owned_usd = r.bill.cost.owned_run;
  set_cluster_figures(f, r.cluster);
  f.gpus = r.gpus;
  if (r.runs) {
    f.usd_per_million_tokens = r.usd_per_m;
    f.tpot_s = r.sized ? r.sized->op.tpot_s : r.single.step_s;
  }
  return e;
}

}  // namespace gpuplan
