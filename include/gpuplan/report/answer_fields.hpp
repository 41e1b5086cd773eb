// SPDX-License-Identifier: Apache-2.0
#pragma once
// The field tables of the training answers (see gpuplan/report/fields.hpp): a layout, the terms
// of a step, the terms of a device's memory, and one ranked layout of a search. `memory`,
// `train` and `search` render every format from these lists.
#include <span>

#include "gpuplan/analysis/search.hpp"
#include "gpuplan/report/fields.hpp"

namespace gpuplan {

// The degrees and options of a layout: JSON keys (layout.tp, ...) and search-table columns.
std::span<const Field<Layout>> layout_fields();

// One term of a breakdown: its key, its label in tables and its size.
template <class T>
struct Term {
  std::string_view key, label;
  double (*of)(const T&);
};
// The step's terms in seconds (compute_s, tp_comm_s, ...); their sum is StepTime::total.
std::span<const Term<StepTime>> step_terms();
// A device's memory terms in bytes (weights, gradients, ...); their sum is MemoryBreakdown::total().
std::span<const Term<MemoryBreakdown>> memory_terms();
// {"compute_s": ..., ...}: the terms of x, each value rounded by `round` when asked (bytes).
template <class T>
Value terms_object(std::span<const Term<T>> terms, const T& x, bool whole_numbers);

// One ranked layout of a search, on `gpus` devices.
struct RankedLayout {
  int rank = 0, gpus = 0;
  const Candidate* c = nullptr;
  double mfu = 0, hfu = 0, capacity = 0;  // utilisation over peak; usable device memory, bytes
};
RankedLayout ranked(int rank, const Candidate& c, const StepModel& sm, int gpus);
// gpus, layout, step_time_s, step_breakdown_s, tokens_per_s, mfu, hfu, memory_per_gpu_bytes,
// memory_breakdown_bytes, capacity_bytes; the search table's columns (rank, the layout's, step,
// tokens/s, MFU, memory).
std::span<const Field<RankedLayout>> ranked_layout_fields();
// The search table: a row per layout, and its CSV (the same, with every key as a column).
Table ranked_table(std::span<const RankedLayout> rows);
Table ranked_csv(std::span<const RankedLayout> rows);

}  // namespace gpuplan
