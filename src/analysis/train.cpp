// SPDX-License-Identifier: Apache-2.0
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

Goodput run_goodput(const TrainQuestion& q, int devices, const StorageResult* storage) {
  const Device& d = q.model.device;
  const Bytes checkpoint = q.storage.checkpoint;
  GoodputInput in;
  in.devices = devices;
  in.restart = q.restart;
  in.interval = q.storage.checkpoint_every;
  const StorageSystem* s = q.storage.system;
  if (s && storage && storage->units > 0) {
    in.checkpoint_write = checkpoint / (s->write * static_cast<double>(storage->units));
    in.checkpoint_read = checkpoint / (s->read * static_cast<double>(storage->units));
  } else {
    // No storage system given: the storage of the Llama 3 cluster per device, its 2 TB/s sustained
    // for 16,384 GPUs (Dubey et al. 2024, section 3.3.1: Tectonic, 2 TB/s sustained and 7 TB/s at
    // peak), so about 122 MB/s a device (an estimate for another cluster).
    const double rate = llama3_storage_per_device * devices;
    in.checkpoint_write = in.checkpoint_read = seconds(checkpoint.value() / rate);
  }
  // Asynchronous checkpointing stalls for each device's copy of its shard to host memory.
  in.checkpoint_stall = q.async_checkpoint && d.host.bw_per_direction.value() > 0
                            ? seconds(checkpoint.value() / devices / d.host.bw_per_direction.value())
                            : in.checkpoint_write;
  return derive_goodput(in);
}

SearchResult search_or_fail(const StepModel& sm, const LayoutConstraints& c, int gpus, double batch_tokens, int top) {
  if (const std::string p = interconnect_problem(sm.device, gpus); !p.empty()) fail(Exit::no_answer, p);
  SearchResult r = search_layouts(sm, gpus, c, batch_tokens, top);
  if (r.evaluated == 0)
    fail(Exit::no_answer, fmt::format("no layout of {} devices suits {} under the given constraints (tp must divide the {} "
                                      "heads, pp the layers, the product must equal the device count)",
                                      gpus, sm.model.id, sm.model.heads));
  if (r.top.empty()) {
    // Where the search also tried the host, say how much it had: the share may be what is short.
    const std::string offloaded =
        offload_fallback(sm, c)
            ? fmt::format(", nor with its training state offloaded to the {} of host memory a device has (--host for a "
                          "larger host)",
                          format_iec(sm.settings.train.host_memory.value()))
            : "";
    fail(Exit::no_answer, fmt::format("{} does not fit on {} x {} in any of {} layouts{}; try more devices "
                                      "('gpuplan memory --min-gpus')",
                                      sm.model.id, gpus, sm.device.id, r.evaluated, offloaded));
  }
  return r;
}

namespace {

double step_tokens_of(const TrainQuestion& q, const Candidate& c) {
  return static_cast<double>(c.layout.global_batch) * q.model.settings.train.seq_len;
}

// The fewest devices whose best layout meets the deadline: first the whole cards below one unit
// (1, 2, 4, ... of a node), then multiples of the unit, doubling until it is met, then bisecting
// (time falls as devices grow). Each count is asked once, and only whether some layout reaches the
// throughput the deadline needs (any_layout_reaches, which stops at the first and skips what
// cannot); the answer's count is then searched in full. `fewer` is the next smaller count tried.
struct Fewest {
  int gpus = 0, fewer = 0;
  SearchResult result;
};
Fewest fewest_for_deadline(const TrainQuestion& q, int& counts) {
  // tokens/s the deadline needs at n devices: steps x step time / goodput <= deadline, the
  // goodput falling as the devices grow (more of them fail) unless it was given.
  auto needed_at = [&](int n) {
    const double g = q.goodput_given ? q.goodput : run_goodput(q, n, nullptr).value;
    return q.tokens / (std::max(1e-9, g) * q.deadline.value());
  };
  std::map<int, bool> cache;
  LayerCache layers(q.model);  // the counts share most layouts' layer parts
  auto meets_devices = [&](int n) {
    auto it = cache.find(n);
    if (it == cache.end()) {
      it = cache.emplace(n, any_layout_reaches(q.model, n, q.layout, q.target_batch(n), needed_at(n), &layers)).first;
      ++counts;
    }
    return it->second;
  };
  // The answer's count in full: some layout reaches what it needs, so no group below that can be best.
  auto full = [&](int n) {
    return search_layouts(q.model, n, q.layout, q.target_batch(n), 1, true, needed_at(n), &layers);
  };
  // Devices with no link between them: one is all there is.
  if (const std::string p = interconnect_problem(q.model.device, 2); !p.empty()) {
    if (meets_devices(1)) return {1, 0, full(1)};
    fail(Exit::no_answer, fmt::format("one {} does not train {} on {:.3g} tokens within {}, and more cannot help: {}",
                                      q.model.device.id, q.model.model.id, q.tokens, format_duration(q.deadline.value()), p));
  }
  for (int n = 1; n < q.unit; n *= 2) {
    if (q.unit % n) break;
    if (meets_devices(n)) return {n, n / 2, full(n)};
  }
  auto meets = [&](int k) { return meets_devices(k * q.unit); };
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
  while (hi < max_deadline_units / 2 && hi * best_tokens_per_unit < needed_at(hi * q.unit)) hi *= 2;  // hi cannot meet it
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
  // Below one unit, the largest card count tried under it.
  int below = 0;
  for (int n = 1; n < q.unit && q.unit % n == 0; n *= 2) below = n;
  return {hi * q.unit, hi > 1 ? (hi - 1) * q.unit : below, full(hi * q.unit)};
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
    Fewest f = fewest_for_deadline(q, a.counts_searched);
    a.gpus = f.gpus;
    r = std::move(f.result);
    a.count_limit = f.fewer <= 0 ? "unit"
                    : any_layout_fits(q.model, f.fewer, q.layout, q.target_batch(f.fewer)) ? "deadline" : "memory";
  }
  a.best = r.top.front();
  a.evaluated = r.evaluated;
  a.fitting = r.fitting;
  a.step_tokens = step_tokens_of(q, a.best);
  const StepTime& st = a.best.time;

  // Storage: the dataset, the read rate, checkpoints and what writing them costs in goodput (which
  // does not depend on the tokens, so the tokens a deadline allows follow from it).
  StorageInput si = q.storage;
  si.tokens_per_s = a.best.tokens_per_s;
  si.tokens = q.tokens;
  if (q.tokens_from_deadline) si.tokens = a.best.tokens_per_s * q.goodput * q.deadline.value();
  a.storage = storage_needs(si);
  if (q.goodput_given) a.goodput = q.goodput * (1 - a.storage.checkpoint_overhead);
  else {
    a.reliability = run_goodput(q, a.gpus, &a.storage);
    a.goodput = a.reliability->value;
    if (a.goodput < 0.05)
      fail(Exit::no_answer, fmt::format("{} devices fail about every {} (Llama 3's rate), too often for the run to make "
                                        "progress between checkpoints and restarts; use fewer devices or give --goodput",
                                        a.gpus, format_duration(a.reliability->mtbf.value())));
  }
  if (q.deadline.value() > 0) a.tokens_by_deadline = a.best.tokens_per_s * a.goodput * q.deadline.value();
  if (q.tokens_from_deadline) {
    a.tokens = a.tokens_by_deadline;
    si.tokens = a.tokens;
    a.storage = storage_needs(si);
  }
  a.steps = a.tokens / a.step_tokens;
  if (a.steps < min_training_steps)
    fail(Exit::no_answer, fmt::format("{} devices are more than {} can use on {} tokens: one sequence per data-parallel "
                                      "rank makes a step of {} tokens, so the run has {:.3g} steps (fewer than {}); use "
                                      "fewer devices",
                                      a.gpus, q.model.model.id, format_si(q.tokens, ""), format_si(a.step_tokens, ""),
                                      a.steps, min_training_steps));

  a.mfu = flops_utilisation(st.model_flops, st, q.model, a.gpus);
  a.hfu = flops_utilisation(st.hardware_flops, st, q.model, a.gpus);
  a.comm_fraction = ((st.tp_comm + st.pp_comm + st.dp_comm + st.cp_comm + st.ep_comm) / st.total).value();
  a.wall = wall_clock(a.steps, st.total, a.goodput);
  a.gpu_hours = a.wall.value() * a.gpus / 3600;

  // Beyond a few times the usual batch, more devices buy little: large runs use 4-16M tokens per
  // step (Llama 3 405B ramped to 16M).
  const double target = q.target_batch(a.gpus);
  if (a.step_tokens > 4 * target && !q.layout.global_batch)
    a.warnings.push_back(fmt::format("the global batch is {} tokens per step, {:.0f}x the target {}; so many devices may not "
                                     "train well (Llama 3 405B used at most 16M)",
                                     format_si(a.step_tokens, ""), a.step_tokens / target, format_si(target, "")));
  // A deadline missed: by the devices given (name the count that would meet it), or, where the
  // search chose the count, by the checkpoint writes it does not see (1e-9: rounding).
  if (q.deadline.value() > 0 && a.wall.value() > q.deadline.value() * (1 + 1e-9)) {
    a.meets_deadline = false;
    const double without_checkpoints =
        wall_clock(a.steps, st.total, q.goodput_given ? q.goodput : 1).value();
    if (without_checkpoints <= q.deadline.value())
      a.unmet = q.goodput_given
                    ? fmt::format("checkpoint writes ({:.1f}% of the wall clock) stretch the run to {} past the {} deadline",
                                  100 * a.storage.checkpoint_overhead, format_duration(a.wall.value()),
                                  format_duration(q.deadline.value()))
                    : fmt::format("interruptions, restarts and checkpoints (goodput {:.0f}%) stretch the run to {} past the {} "
                                  "deadline",
                                  100 * a.goodput, format_duration(a.wall.value()), format_duration(q.deadline.value()));
    else {
      TrainQuestion fq = q;
      fq.gpus = 0;
      int counts = 0;
      try {
        a.gpus_for_deadline = fewest_for_deadline(fq, counts).gpus;
      } catch (const Error&) {
        a.gpus_for_deadline = 0;
      }
      a.unmet = fmt::format("{} x {} train {} tokens in {} at {}, past the {} deadline: the devices are too few (the "
                            "deadline needs {}; {} tokens fit in it){}",
                            a.gpus, q.model.device.id, format_si(a.tokens, ""), format_duration(a.wall.value()),
                            format_si(a.best.tokens_per_s, "tokens/s"), format_duration(q.deadline.value()),
                            format_si(a.tokens / (a.goodput * q.deadline.value()), "tokens/s"),
                            format_si(a.tokens_by_deadline, ""),
                            a.gpus_for_deadline > 0 ? fmt::format("; {} devices meet it", a.gpus_for_deadline) : "");
    }
  }
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
