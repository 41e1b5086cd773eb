// SPDX-License-Identifier: Apache-2.0
// `gpuplan memory`: per-device training (or inference) memory with its breakdown.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "bill.hpp"
#include "gpuplan/report/answer_fields.hpp"
#include "gpuplan/analysis/search.hpp"
#include "gpuplan/commands.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/format.hpp"

namespace gpuplan {

Value layout_json(const Layout& l) { return fields_object(layout_fields(), l); }

namespace {

std::string bar(double part, double whole) {
  const double share = whole > 0 ? part / whole : 0;
  const int n = share > 0 ? static_cast<int>(std::lround(20 * std::min(share, 1.0))) : 0;
  std::string s;
  for (int i = 0; i < n; ++i) s += "\u2588";
  return s;
}

void add_breakdown(Document& doc, const MemoryBreakdown& mb, double capacity, double host_capacity, std::string title) {
  Table t;
  t.title = std::move(title);
  t.headers = {"term", "bytes", "GiB", "share", ""};
  t.right = {false, true, true, true, false};
  const double total = mb.total().value();
  for (const auto& term : memory_terms()) {
    const double v = term.of(mb);
    t.add_row({std::string(term.label), format_exact(std::round(v)), format_iec(v), format_sig(100 * v / total) + "%",
               bar(v, total)});
  }
  t.add_row({"total", format_exact(std::round(total)), format_iec(total), "", ""});
  // Beyond ten times the capacity a percentage reads as noise ("8846606360% used"): say how
  // many times the capacity it is.
  const double used = total / capacity;
  t.add_row({"capacity", format_exact(capacity), format_iec(capacity),
             used > 10 ? format_sig(used) + "x the capacity" : format_sig(100 * used) + "% used", ""});
  if (mb.host.value() > 0)
    t.add_row({"host (offloaded)", format_exact(std::round(mb.host.value())), format_iec(mb.host.value()),
               format_sig(100 * mb.host.value() / host_capacity) + "% of " + format_iec(host_capacity), ""});
  doc.tables.push_back(t);
}

void set_memory_json(Value& v, const MemoryAnswer& a, const Job& j) {
  const MemoryBreakdown& mb = a.memory;
  for (const auto& term : memory_terms()) v.set(std::string(term.key) + "_bytes", std::round(term.of(mb)));
  v.set("total_bytes", std::round(mb.total().value()));
  v.set("capacity_bytes", a.capacity);
  // The capacity less the reserve term (CUDA context and library workspaces; --reserve).
  v.set("usable_bytes", std::round(std::max(0.0, a.capacity - mb.reserve.value())));
  v.set("host_bytes", std::round(mb.host.value()));
  v.set("host_capacity_bytes", std::round(j.step.train.host_memory.value()));
  v.set("fits", a.fits);
  v.set("params_total", j.params.total);
  v.set("params_active", j.params.active);
  v.set("params_per_device", std::round(mb.params_per_device));
}

// The largest --gpus or --min-gpus answer the inference mode considers.
constexpr int max_inference_devices = 1024;

Document inference_memory_doc(const Job& j, const Scenario& s, bool fewest) {
  const ModelArch& m = j.model;
  InferSettings is = resolve_infer(s, j);
  // --gpus N without --tp splits the model over all N (tensor parallelism for a serving runtime,
  // layers for llama.cpp); --min-gpus finds the fewest that hold it.
  if (!s.layout.tp && s.gpus > 0) {
    if (serving_runtime(is.runtime) && m.heads % s.gpus)
      fail(Exit::usage, fmt::format("gpus {} does not divide the {} attention heads of {} (a serving runtime splits them; "
                                    "give --tp, or a count that divides them)",
                                    s.gpus, m.heads, m.id));
    is.tp = s.gpus;
  }
  int min_gpus = 0;
  if (fewest) {
    min_gpus = min_inference_devices(m, j.params, j.device, is, max_inference_devices);
    if (min_gpus > 0) is.tp = min_gpus;
  }
  const InferMemory im = inference_memory(m, j.params, j.device, is);
  Document doc;
  Value v = Value::object();
  v.set("mode", "infer");
  v.set("model", m.id);
  v.set("gpu", j.device.id);
  v.set("quant", is.quant);
  v.set("bits_per_weight", is.bpw);
  v.set("runtime", to_string(is.runtime));
  set_infer_memory_json(v, im);
  v.set("params_total", j.params.total);
  v.set("params_active", j.params.active);
  v.set("context", static_cast<double>(is.context));
  v.set("batch", s.batch);
  v.set("tp", is.tp);
  if (fewest) v.set("min_gpus", min_gpus > 0 ? Value(min_gpus) : Value());
  doc.data = v;
  Table t;
  t.title = fmt::format("{} on {} ({}, {}), context {} x {} sequences, tp {}", m.id, j.device.id, is.quant,
                        to_string(is.runtime), is.context, s.batch, is.tp);
  t.headers = {"term", "GiB"};
  t.right = {false, true};
  t.add_row({"weights", format_iec(im.weights.value())});
  t.add_row({"kv cache", format_iec(im.kv.value())});
  t.add_row({"workspace", format_iec(im.workspace.value())});
  t.add_row({"reserve", format_iec(im.reserve.value())});
  t.add_row({"total", format_iec(im.total().value())});
  t.add_row({"capacity", format_iec(im.capacity.value())});
  doc.tables.push_back(t);
  if (fewest) doc.lines.push_back(min_gpus > 0 ? fmt::format("fewest devices: {}", min_gpus)
                                              : fmt::format("no count of devices up to {} holds it", max_inference_devices));
  // fit_text says "no" or "no: why".
  const std::string why = fit_text(im, m.layers, "host").substr(2);
  doc.lines.push_back(im.fits() ? "fits" : "does not fit" + why);
  if (!im.fits()) {
    doc.exit_code = static_cast<int>(Exit::no_answer);
    doc.failure = im.fits_raised_limit() ? unified_limit_note(j.device, im)
                                          : fmt::format("{} ({}) does not fit on {} x {}: {} of {} per device", m.id, is.quant,
                                                        is.tp, j.device.id, format_iec(im.total().value()),
                                                        format_iec(im.capacity.value()));
  }
  return doc;
}

// The training memory answer as JSON, the breakdown table and the verdict (and with --explain
// the formulas behind it).
Document memory_document(const Job& j, const MemoryAnswer& a, bool fewest, bool explain) {
  const Layout& l = a.layout;
  const MemoryBreakdown& mb = a.memory;
  Document doc;
  Value v = Value::object();
  v.set("mode", "train");
  v.set("model", j.model.id);
  v.set("gpu", j.device.id);
  v.set("seq_len", j.step.train.seq_len);
  if (fewest) {
    v.set("min_gpus", a.min_gpus);
    v.set("evaluated", a.evaluated);
  }
  set_memory_json(v, a, j);
  v.set("layout", layout_json(l));
  v.set("warnings", warnings_json(j.warnings));
  doc.data = v;
  doc.warnings = j.warnings;
  add_breakdown(doc, mb, a.capacity, j.step.train.host_memory.value(),
                fmt::format("{} on {}: tp {} pp {} dp {} cp {} ep {}, ZeRO-{}, recompute {}, micro-batch {}, seq {}{}",
                            j.model.id, j.device.id, l.tp, l.pp, l.dp, l.cp, l.ep, l.zero, recompute_text(l),
                            l.micro_batch, j.step.train.seq_len,
                            l.offload ? ", offload " + offload_name(l.offload) : std::string()));
  const char* fit = a.fits ? "fits" : "does not fit";
  doc.lines.push_back(fewest ? fmt::format("fewest devices: {} ({})", a.min_gpus, fit) : std::string(fit));
  if (!a.fits) {
    doc.exit_code = static_cast<int>(Exit::no_answer);
    doc.failure = fmt::format("{} does not fit on {} at this layout: {} of {} per device; try more devices "
                              "('gpuplan memory --min-gpus') or --zero 3",
                              j.model.id, j.device.id, format_iec(mb.total().value()), format_iec(a.capacity));
  }
  if (!explain) return doc;
  doc.lines.push_back("");
  doc.lines.push_back(fmt::format("parameters: total {:.4g}, active {:.4g}, on this device {:.4g} ({} stage)",
                                  j.params.total, j.params.active, mb.params_per_device, mb.last_stage ? "last" : "first"));
  doc.lines.push_back(fmt::format("model states: weights {} B/param, gradients {} B/param, optimizer {} B/param; "
                                  "ZeRO-{} shards over dp x cp = {}",
                                  j.step.train.weight_bytes, j.step.train.grad_bytes,
                                  optimizer_bytes_per_param(j.step.train.optimizer), l.zero, l.dp * l.cp));
  doc.lines.push_back("activations: Korthikanti et al. 2022: per layer sbh(34 + 5as/h) bytes without parallelism, "
                      "sbh(10 + 24/t + 5as/(ht)) with tensor parallelism, /t with sequence parallelism, the 5as/h "
                      "term dropped by selective recomputation or flash attention, 2sbh with full recomputation; "
                      "x layers x min(p, m) micro-batches in flight on the first stage");
  doc.lines.push_back(fmt::format("buffers: 2 x 25 MB gradient buckets, ZeRO-3 gather 4 x largest tensor, pipeline "
                                  "send/receive; reserve {} (CUDA context, workspace; --reserve)",
                                  format_iec(mb.reserve.value())));
  if (l.offload) doc.lines.push_back(j.host_note);
  for (const auto& a2 : j.assumptions) doc.lines.push_back(a2);
  return doc;
}

}  // namespace

Document run_memory(const Catalog& catalog, const Scenario& s, const RunOptions& o) {
  const Job j = resolve(s, catalog);
  if (s.mode == "infer") return inference_memory_doc(j, s, o.min_gpus);
  const MemoryAnswer a = memory_answer(StepModel{j.model, j.params, j.device, j.step}, s.layout, s.gpus, o.min_gpus);
  return memory_document(j, a, o.min_gpus, o.explain);
}

}  // namespace gpuplan
