#include "gpuplan/analysis/train.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>

#include "gpuplan/error.hpp"
#include "gpuplan/format.hpp"

namespace gpuplan {

double TrainQuestion::target_batch(int devices) const {
  // A run of few tokens (fine-tuning a small dataset) aims at a batch that makes twice
  // min_training_steps steps, so that rounding it to whole micro-batches (up to 1.5 times, see
  // search.cpp) still leaves enough; one sequence per data-parallel rank may still be too many.
  const double wanted = std::max(batch_tokens, batch_tokens_per_device * devices);
  return tokens > 0 ? std::min(wanted, tokens / (2 * min_training_steps)) : wanted;
}

Seconds wall_clock(double steps, Seconds step, double goodput) { return step * (steps / goodput); }

SearchResult search_or_fail(const StepModel& sm, const LayoutConstraints& c, int gpus, double batch_tokens, int top) {
  SearchResult r = search_layouts(sm, gpus, c, batch_tokens, top);
  if (r.evaluated == 0)
    fail(Exit::no_answer, fmt::format("no layout of {} devices suits {} under the given constraints (tp must divide the {} "
                                      "heads, pp the layers, the product must equal the device count)",
                                      gpus, sm.model.id, sm.model.heads));
  if (r.top.empty())
    fail(Exit::no_answer, fmt::format("{} does not fit on {} x {} in any of {} layouts; try more devices "
                                      "('gpuplan memory --min-gpus')",
                                      sm.model.id, gpus, sm.device.id, r.evaluated));
  return r;
}

namespace {

double step_tokens_of(const TrainQuestion& q, const Candidate& c) {
  return static_cast<double>(c.layout.global_batch) * q.model.settings.train.seq_len;
}

// The fewest devices, in multiples of the unit, whose best layout meets the deadline: double
// until it is met, then bisect (time falls as devices grow). Each count is asked once, and
// only whether some layout reaches the throughput the deadline needs (any_layout_reaches,
// which stops at the first and skips what cannot); the answer's count is then searched in full.
std::pair<int, SearchResult> fewest_for_deadline(const TrainQuestion& q, int& counts) {
  // tokens/s the deadline needs: steps x step time / goodput <= deadline
  const double needed = q.tokens / (q.goodput * q.deadline.value());
  std::map<int, bool> cache;
  auto meets = [&](int k) {
    auto it = cache.find(k);
    if (it == cache.end()) {
      it = cache.emplace(k, any_layout_reaches(q.model, k * q.unit, q.layout, q.target_batch(k * q.unit), needed)).first;
      ++counts;
    }
    return it->second;
  };
  // Skip the doublings that cannot meet the deadline. model_flops_per_token, counted as the step
  // runs the attention, never exceeds what the devices compute, so no layout's MFU exceeds 1 (the
  // framework's overhead only lowers it). A count whose devices at that MFU still fall short of the
  // tokens per second the deadline needs fails, so the doubling starts at the first power of two
  // that could meet it; the counts it then asks, and so the answer, are those of a doubling from one.
  const TrainSettings& ts = q.model.settings.train;
  const double best_tokens_per_unit =
      q.unit * q.model.device.peak_for(q.model.settings.compute_dtype).value() /
      model_flops_per_token(q.model.model, q.model.params, ts.seq_len, adapters_only(ts), ts.flash_attention);
  int hi = 1;
  while (hi < max_deadline_units / 2 && hi * best_tokens_per_unit < needed) hi *= 2;  // hi cannot meet it
  while (!meets(hi)) {
    if (hi >= max_deadline_units / 2)
      fail(Exit::no_answer, fmt::format("no count of {} up to {} trains {} on {:.3g} tokens within {}", q.model.device.id,
                                        static_cast<long>(max_deadline_units) * q.unit / 2, q.model.model.id, q.tokens,
                                        format_duration(q.deadline.value())));
    hi *= 2;
  }
  int lo = hi / 2;  // lo fails (or is 0)
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    (meets(mid) ? hi : lo) = mid;
  }
  return {hi * q.unit, search_layouts(q.model, hi * q.unit, q.layout, q.target_batch(hi * q.unit), 1)};
}

}  // namespace

TrainAnswer plan_training(const TrainQuestion& q) {
  if (q.gpus <= 0 && q.deadline.value() <= 0) fail(Exit::usage, "training needs a device count or a deadline");
  TrainAnswer a;
  a.tokens = q.tokens;
  SearchResult r;
  if (q.gpus > 0) {
    a.gpus = q.gpus;
    r = search_or_fail(q.model, q.layout, q.gpus, q.target_batch(q.gpus), 1);
    a.counts_searched = 1;
    a.count_limit = "given";
  } else {
    std::tie(a.gpus, r) = fewest_for_deadline(q, a.counts_searched);
    const int fewer = a.gpus - q.unit;
    a.count_limit = fewer <= 0 ? "unit"
                    : any_layout_fits(q.model, fewer, q.layout, q.target_batch(fewer)) ? "deadline" : "memory";
  }
  a.best = r.top.front();
  a.evaluated = r.evaluated;
  a.fitting = r.fitting;
  a.step_tokens = step_tokens_of(q, a.best);
  a.steps = q.tokens / a.step_tokens;
  if (a.steps < min_training_steps)
    fail(Exit::no_answer, fmt::format("{} devices are more than {} can use on {} tokens: one sequence per data-parallel "
                                      "rank makes a step of {} tokens, so the run has {:.3g} steps (fewer than {}); use "
                                      "fewer devices",
                                      a.gpus, q.model.model.id, format_si(q.tokens, ""), format_si(a.step_tokens, ""),
                                      a.steps, min_training_steps));

  const StepTime& st = a.best.time;
  a.mfu = flops_utilisation(st.model_flops, st, q.model, a.gpus);
  a.hfu = flops_utilisation(st.hardware_flops, st, q.model, a.gpus);
  a.comm_fraction = ((st.tp_comm + st.pp_comm + st.dp_comm + st.cp_comm + st.ep_comm) / st.total).value();

  // Storage: the dataset, the read rate, checkpoints and what writing them costs in goodput.
  StorageInput si = q.storage;
  si.tokens = q.tokens;
  si.tokens_per_s = a.best.tokens_per_s;
  a.storage = storage_needs(si);
  a.goodput = q.goodput * (1 - a.storage.checkpoint_overhead);
  a.wall = wall_clock(a.steps, st.total, a.goodput);
  a.gpu_hours = a.wall.value() * a.gpus / 3600;

  // Beyond a few times the usual batch, more devices buy little: large runs use 4-16M tokens per
  // step (Llama 3 405B ramped to 16M).
  const double target = q.target_batch(a.gpus);
  if (a.step_tokens > 4 * target && !q.layout.global_batch)
    a.warnings.push_back(fmt::format("the global batch is {} tokens per step, {:.0f}x the target {}; so many devices may not "
                                     "train well (Llama 3 405B used at most 16M)",
                                     format_si(a.step_tokens, ""), a.step_tokens / target, format_si(target, "")));
  if (q.deadline.value() > 0 && a.wall > q.deadline)
    a.warnings.push_back(fmt::format("checkpoint writes stretch the run to {} past the {} deadline",
                                     format_duration(a.wall.value()), format_duration(q.deadline.value())));
  if (a.storage.idle_fraction > 0 && si.system)
    a.warnings.push_back(fmt::format("storage is the bottleneck: {} units of {} read {} of the {} needed; devices idle {:.0f}% of "
                                     "the time",
                                     a.storage.units, si.system->id,
                                     format_si(static_cast<double>(a.storage.units) * si.system->read.value(), "B/s"),
                                     format_si(a.storage.read.value(), "B/s"), 100 * a.storage.idle_fraction));
  if (a.comm_fraction > comm_warning_share)
    a.warnings.push_back(fmt::format("exposed communication is {:.0f}% of the step: the fabric, not the devices, sets the pace",
                                     100 * a.comm_fraction));
  return a;
}

}  // namespace gpuplan
