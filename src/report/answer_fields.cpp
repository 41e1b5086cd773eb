// SPDX-License-Identifier: Apache-2.0
#include "gpuplan/report/answer_fields.hpp"

#include <array>
#include <cmath>
#include <fmt/format.h>

#include "gpuplan/format.hpp"

namespace gpuplan {
namespace {

using L = const Layout&;
std::string on_off(bool b) { return b ? "on" : "off"; }

// clang-format off
const std::array<Field<Layout>, 13> layout_table{{
    {"tp", [](L l) { return Value(l.tp); }, "tp"},
    {"pp", [](L l) { return Value(l.pp); }, "pp"},
    {"dp", [](L l) { return Value(l.dp); }, "dp"},
    {"cp", [](L l) { return Value(l.cp); }, "cp"},
    {"ep", [](L l) { return Value(l.ep); }, "ep"},
    {"zero", [](L l) { return Value(l.zero); }, "zero"},
    {"recompute", [](L l) { return Value(to_string(l.recompute)); }, "recompute", [](L l) { return recompute_text(l); }, false},
    {"recompute_layers", [](L l) { return Value(l.recompute_layers); }},
    {"micro_batch", [](L l) { return Value(l.micro_batch); }, "mb"},
    {"global_batch", [](L l) { return Value(l.global_batch); }, "gb"},
    {"interleave", [](L l) { return Value(l.interleave); }, "v"},
    {"sequence_parallel", [](L l) { return Value(l.sequence_parallel); }, "sp",
     [](L l) { return on_off(l.sequence_parallel); }, false},
    {"offload", [](L l) { return Value(offload_name(l.offload)); }, "offload", nullptr, false},
}};

using S = const StepTime&;
const std::array<Term<StepTime>, 9> step_table{{
    {"compute_s", "compute", [](S t) { return t.compute.value(); }},
    {"tp_comm_s", "tensor-parallel comm", [](S t) { return t.tp_comm.value(); }},
    {"pp_comm_s", "pipeline comm", [](S t) { return t.pp_comm.value(); }},
    {"dp_comm_s", "data-parallel comm", [](S t) { return t.dp_comm.value(); }},
    {"cp_comm_s", "context-parallel comm", [](S t) { return t.cp_comm.value(); }},
    {"ep_comm_s", "expert-parallel comm", [](S t) { return t.ep_comm.value(); }},
    {"bubble_s", "pipeline bubble", [](S t) { return t.bubble.value(); }},
    {"optimizer_s", "optimizer", [](S t) { return t.optimizer.value(); }},
    {"offload_s", "host offload transfers", [](S t) { return t.offload.value(); }},
}};

using M = const MemoryBreakdown&;
const std::array<Term<MemoryBreakdown>, 6> memory_table{{
    {"weights", "weights", [](M m) { return m.weights.value(); }},
    {"gradients", "gradients", [](M m) { return m.gradients.value(); }},
    {"optimizer", "optimizer", [](M m) { return m.optimizer.value(); }},
    {"activations", "activations", [](M m) { return m.activations.value(); }},
    {"buffers", "buffers", [](M m) { return m.buffers.value(); }},
    {"reserve", "reserve", [](M m) { return m.reserve.value(); }},
}};

using R = const RankedLayout&;
const std::array<Field<RankedLayout>, 12> ranked_table_fields{{
    {"", nullptr, "rank", [](R r) { return std::to_string(r.rank); }},
    {"gpus", [](R r) { return Value(r.gpus); }},
    {"layout", [](R r) { return fields_object(layout_fields(), r.c->layout); }},
    {"step_time_s", [](R r) { return Value(r.c->time.total.value()); }, "step",
     [](R r) { return format_duration(r.c->time.total.value()); }},
    {"step_breakdown_s", [](R r) { return terms_object(step_terms(), r.c->time, false); }},
    {"tokens_per_s", [](R r) { return Value(r.c->tokens_per_s); }, "tokens/s",
     [](R r) { return format_si(r.c->tokens_per_s, ""); }},
    {"mfu", [](R r) { return Value(r.mfu); }, "MFU", [](R r) { return format_sig(100 * r.mfu) + "%"; }},
    {"hfu", [](R r) { return Value(r.hfu); }},
    {"memory_per_gpu_bytes", [](R r) { return Value(std::round(r.c->memory.total().value())); }, "memory",
     [](R r) { return format_iec(r.c->memory.total().value()); }},
    {"memory_breakdown_bytes", [](R r) { return terms_object(memory_terms(), r.c->memory, true); }},
    {"capacity_bytes", [](R r) { return Value(r.capacity); }},
    {"host_memory_per_gpu_bytes", [](R r) { return Value(std::round(r.c->memory.host.value())); }},
}};
// clang-format on

}  // namespace

std::span<const Field<Layout>> layout_fields() { return layout_table; }
std::span<const Term<StepTime>> step_terms() { return step_table; }
std::span<const Term<MemoryBreakdown>> memory_terms() { return memory_table; }
std::span<const Field<RankedLayout>> ranked_layout_fields() { return ranked_table_fields; }

template <class T>
Value terms_object(std::span<const Term<T>> terms, const T& x, bool whole_numbers) {
  Value v = Value::object();
  for (const auto& t : terms) v.set(std::string(t.key), whole_numbers ? std::round(t.of(x)) : t.of(x));
  return v;
}
template Value terms_object(std::span<const Term<StepTime>>, const StepTime&, bool);
template Value terms_object(std::span<const Term<MemoryBreakdown>>, const MemoryBreakdown&, bool);

RankedLayout ranked(int rank, const Candidate& c, const StepModel& sm, int gpus) {
  return RankedLayout{rank, gpus, &c, flops_utilisation(c.time.model_flops, c.time, sm, gpus),
                      flops_utilisation(c.time.hardware_flops, c.time, sm, gpus), sm.device.usable_memory().value()};
}

Table ranked_table(std::span<const RankedLayout> rows) {
  const auto f = ranked_layout_fields();
  // rank, then the layout's columns, then the rest.
  Table t = fields_columns(f.first(1), rows);
  std::vector<Layout> layouts;
  for (const auto& r : rows) layouts.push_back(r.c->layout);
  const Table l = fields_columns(layout_fields(), std::span<const Layout>(layouts));
  const Table rest = fields_columns(f.subspan(1), rows);
  for (const Table* part : {&l, &rest}) {
    t.headers.insert(t.headers.end(), part->headers.begin(), part->headers.end());
    t.right.insert(t.right.end(), part->right.begin(), part->right.end());
    for (std::size_t i = 0; i < t.rows.size(); ++i)
      t.rows[i].insert(t.rows[i].end(), part->rows[i].begin(), part->rows[i].end());
  }
  return t;
}

Table ranked_csv(std::span<const RankedLayout> rows) {
  // One row per layout; nested objects become dotted columns (layout.tp, step_breakdown_s.compute_s).
  Table t;
  for (const auto& r : rows) {
    Value v = Value::object();
    v.set("rank", r.rank);
    const Value fields = fields_object(ranked_layout_fields(), r);
    for (const auto& [k, x] : fields.members()) v.set(k, x);
    const auto flat = flatten(v);
    if (t.headers.empty())
      for (const auto& kv : flat) t.headers.push_back(kv.first);
    std::vector<std::string> cells;
    for (const auto& kv : flat) cells.push_back(kv.second);
    t.add_row(std::move(cells));
  }
  return t;
}

}  // namespace gpuplan
