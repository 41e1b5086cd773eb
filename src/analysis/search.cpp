// SPDX-License-Identifier: Apache-2.0
#include "gpuplan/analysis/search.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <bitset>
#include <optional>
#include <span>
#include <vector>
#include <cmath>
#include <tuple>
#include <type_traits>

#include <fmt/format.h>

#include "gpuplan/error.hpp"
#include "gpuplan/format.hpp"

namespace gpuplan {

namespace {

bool better(const Candidate& a, const Candidate& b) {
  if (a.tokens_per_s != b.tokens_per_s) return a.tokens_per_s > b.tokens_per_s;
  const Layout &x = a.layout, &y = b.layout;
  auto key = [](const Layout& l) {
    return std::make_tuple(l.tp, l.pp, l.cp, l.ep, l.zero, l.micro_batch, static_cast<int>(l.recompute), l.interleave,
                           l.sequence_parallel, l.offload);
  };
  return key(x) < key(y);
}

// Calls f(v) for the fixed value or for each of the values, until `stop` is set.
template <typename F>
void for_values(const std::optional<int>& fixed, std::span<const int> values, const bool& stop, F f) {
  if (fixed) {
    f(*fixed);
    return;
  }
  for (int v : values) {
    if (stop) return;
    f(v);
  }
}

constexpr int max_tp = 64;
constexpr int max_micro_batch = 256;
constexpr std::array<int, 5> cp_values{1, 2, 4, 8, 16};
constexpr std::array<int, 9> ep_values{1, 2, 4, 8, 16, 32, 64, 128, 256};
constexpr std::array<int, 4> zero_values{0, 1, 2, 3};
constexpr std::array<int, 6> interleave_values{1, 2, 3, 4, 6, 8};

// The ZeRO stage of a layout with one data-parallel rank. Sharding over one rank saves nothing,
// so it is stage 0, unless the training state goes to the host, which DeepSpeed does only under
// ZeRO: ZeRO-Offload trains on a single GPU at stage 2 (Ren et al. 2021, sections 4 and 6), and
// ZeRO-Infinity's parameter offload needs stage 3 (Rajbhandari et al. 2021).
int one_rank_zero(int offload) {
  return (offload & offload_weights) ? 3 : (offload & offload_optimizer) ? 2 : 0;
}

// Tensor-parallel degrees up to 64 that split the model evenly: every power of two dividing the
// heads, and any other divisor of the heads that also divides the MLP width (and the experts'),
// with the key/value heads split or replicated whole (Megatron needs whole heads per rank;
// GPT-3's 96 heads allow 3, 6, 12, 24 and 48).
std::vector<int> tp_values(const ModelArch& m) {
  std::vector<int> out;
  for (int t = 1; t <= max_tp; ++t) {
    if (m.heads % t) continue;
    const bool pow2 = (t & (t - 1)) == 0;
    const bool kv_whole = m.kv_heads % t == 0 || t % m.kv_heads == 0;
    if (pow2 || (m.ffn % t == 0 && (!m.moe() || m.expert_ffn % t == 0) && kv_whole)) out.push_back(t);
  }
  return out;
}

// Micro-batch sizes: every divisor (up to 256) of the sequences each data-parallel rank takes
// per step, as Calculon searches them, when the global batch is given; when it is not, the
// divisors up to 16 of the ranks' share of the target batch (so the batch stays the target),
// or where dp does not divide the target the powers of two to 16 (the batch then rounded to a
// multiple of micro-batch x dp).
void micro_batch_values(const std::optional<int>& global_batch, double target_sequences, int dp, std::vector<int>& out) {
  out.clear();
  auto divisors = [&](int local, int most) {
    for (int d = 1; d <= std::min(local, most); ++d)
      if (local % d == 0) out.push_back(d);
  };
  if (global_batch) {
    if (*global_batch % dp == 0) divisors(*global_batch / dp, max_micro_batch);
    return;
  }
  const double target = std::max(1.0, std::round(target_sequences));
  if (target < 1e9 && std::fmod(target, dp) == 0) {
    divisors(static_cast<int>(target) / dp, 16);
    return;
  }
  for (int d : {1, 2, 4, 8, 16}) out.push_back(d);
}

// Calls f(layout) for every layout of `gpus` devices allowed by the model and constraints, until
// f returns false (when it returns bool). Layouts come in groups that differ only in ZeRO stage
// and interleaving; group(first) is called before each group (its zero and interleave are
// placeholders) and skips the group when it returns false. Global batch: fixed when given, else
// the nearest multiple of micro x dp to batch_tokens.
constexpr auto every_group = [](const Layout&) { return true; };

// Every degree a constraint fixes is a whole number of at least 1 (the settings table keeps the
// command line and plans there; a caller of the library that does not gets a usage error, not a
// division by zero).
void check_constraints(const LayoutConstraints& c, int gpus) {
  const std::pair<const char*, const std::optional<int>*> degrees[] = {
      {"tp", &c.tp}, {"pp", &c.pp}, {"dp", &c.dp}, {"cp", &c.cp}, {"ep", &c.ep},
      {"micro-batch", &c.micro_batch}, {"global-batch", &c.global_batch}, {"interleave", &c.interleave}};
  for (const auto& [name, v] : degrees)
    if (*v && **v < 1) fail(Exit::usage, fmt::format("--{} {}: expected a whole number of at least 1", name, **v));
  if (gpus < 1) fail(Exit::usage, fmt::format("--gpus {}: expected a whole number of at least 1", gpus));
}

template <typename F, typename G = decltype(every_group)>
long enumerate(const ModelArch& m, const TrainSettings& st, int gpus, const LayoutConstraints& c, double batch_tokens, F f,
               G group = every_group) {
  check_constraints(c, gpus);
  const int seq_len = st.seq_len;
  long count = 0;
  bool stop = false;
  const std::vector<int> tps = tp_values(m);
  std::vector<int> mbs;
  for_values(c.tp, tps, stop, [&](int tp) {
    if (gpus % tp || m.heads % tp) return;
    for_values(c.cp, cp_values, stop, [&](int cp) {
      if (gpus % (tp * cp) || seq_len % (2 * cp)) return;
      if (cp > 1 && seq_len / cp < 1024) return;  // ring attention needs long enough shards
      const int rest = gpus / (tp * cp);
      for (int pp = 1; pp <= std::min(rest, m.layers) && !stop; ++pp) {
        if (rest % pp || (c.pp && *c.pp != pp)) continue;
        const int dp = rest / pp;
        if (c.dp && *c.dp != dp) continue;
        micro_batch_values(c.global_batch, batch_tokens / seq_len, dp, mbs);
        for_values(c.ep, ep_values, stop, [&](int ep) {
          if (ep > 1 && (!m.moe() || m.experts % ep || (dp * cp) % ep)) return;
          for_values(c.micro_batch, mbs, stop, [&](int mb) {
            int gb;
            if (c.global_batch) {
              gb = *c.global_batch;
              if (gb % (mb * dp)) return;
            } else {
              double per = static_cast<double>(mb) * dp * seq_len;
              // A micro-batch that alone overshoots the target batch only inflates it: keep the
              // smallest one there (the batch then follows from dp, not from the search).
              if (mb > 1 && per > 1.5 * batch_tokens) return;
              gb = static_cast<int>(std::max(1.0, std::round(batch_tokens / per))) * mb * dp;
            }
            const int micro_batches = gb / (mb * dp);
            if (micro_batches < 1) return;
            for (int rc = 0; rc < 3 && !stop; ++rc) {
              auto recompute = static_cast<Recompute>(rc);
              if (c.recompute && *c.recompute != recompute) continue;
              if (c.recompute_layers.value_or(0) > 0 && recompute != Recompute::full) continue;
              // Under flash attention selective recomputation keeps and recomputes nothing more
              // than none does (memory.cpp, step.cpp): the same layout twice, so only none is listed.
              if (!c.recompute && recompute == Recompute::selective && st.flash_attention) continue;
              for (int spi = 0; spi < 2 && !stop; ++spi) {
                bool sp = spi == 1;
                if (c.sequence_parallel ? *c.sequence_parallel != sp : (tp == 1 ? sp : !sp)) continue;
                if (tp == 1 && sp && !c.sequence_parallel) continue;
                // ZeRO stage and interleaving innermost: the layouts of one group share their
                // memory and step parts (the callers compute them once, in group).
                if (!group(Layout{tp, pp, dp, cp, ep, 0, recompute, mb, gb, 1, sp})) continue;
                for_values(c.zero, zero_values, stop, [&](int zero) {
                  // One data-parallel rank has nothing to shard: stage 0, or the stage the given
                  // host offload runs under.
                  if (dp * cp == 1 && !c.zero && zero != one_rank_zero(c.offload.value_or(offload_none))) return;
                  for_values(c.interleave, interleave_values, stop, [&](int v) {
                    // Uneven splits are allowed (Llama 3 ran 126 layers on 16 stages): the most loaded
                    // stage holds ceil(layers / pp) layers in v chunks.
                    if (v > 1 && (pp == 1 || m.layers < pp * v || micro_batches % pp)) return;
                    // A fixed schedule: only interleaving has virtual stages, and it needs them.
                    if (st.schedule != Schedule::searched && pp > 1 && (v > 1) != (st.schedule == Schedule::interleaved))
                      return;
                    if (st.schedule == Schedule::dualpipe && pp % 2) return;  // two directions, pp / 2 stage pairs
                    Layout l{tp, pp, dp, cp, ep, zero, recompute, mb, gb, v, sp, c.offload.value_or(offload_none),
                             c.recompute_layers.value_or(0)};
                    if (*offload_problem(l)) return;
                    ++count;
                    if constexpr (std::is_same_v<decltype(f(l)), bool>) stop = !f(l);
                    else f(l);
                  });
                });
              }
            }
          });
        });
      }
    });
  });
  return count;
}

// The sets of host offload the search tries, least moved first. Offload is the last resort, as
// practitioners use it: only on a device count where no layout fits on the devices alone (it
// only adds time, and a published run that fits does not offload), unless --offload fixes it.
constexpr std::array<int, 5> offload_sets{offload_optimizer, offload_activations, offload_optimizer | offload_activations,
                                          offload_optimizer | offload_weights,
                                          offload_optimizer | offload_weights | offload_activations};

// Whether the search may recompute only some layers: when neither the recomputation nor the layers
// are given (--recompute full alone means every layer, as Megatron's full granularity does).
bool partial_recompute(const LayoutConstraints& c) { return !c.recompute && !c.recompute_layers; }

// The fewest of a stage's layers that full recomputation must cover for l, which recomputes every
// layer and needs `all` bytes, to still fit: 0 when all must. Memory grows by the same bytes for
// each layer that keeps its activations (on the most loaded stage), so the step from all layers
// to all but one gives the answer, checked and raised while it does not fit.
int fewest_recomputed(const StepModel& sm, const Layout& l, const MemoryParts& parts, double capacity, double all) {
  const TrainSettings& st = sm.settings.train;
  auto total = [&](int n) {
    Layout x = l;
    x.recompute_layers = n;
    const MemoryBreakdown mem = training_memory(sm.model, sm.params, st, x, parts);
    return mem.fits(capacity, st) ? mem.total().value() : -1.0;
  };
  const int per_stage = (sm.model.layers + l.pp - 1) / l.pp;
  if (per_stage < 2) return 0;
  const double one_less = total(per_stage - 1);
  if (one_less < 0) return 0;
  const double per_layer = one_less - all;
  int n = per_layer > 0 ? std::max(1, per_stage - static_cast<int>((capacity - all) / per_layer)) : 1;
  while (n < per_stage - 1 && total(n) < 0) ++n;
  return n;
}

// Calls f(layout, memory) for l if it fits, else, with `offload`, for each offloaded variant of
// l that can run and fits, until f returns false. With `partial`, a layout that recomputes every
// layer and fits is followed by the one that recomputes the fewest layers that still fit (as
// Megatron's --recompute-num-layers). Counts the variants tried in `evaluated`; returns false
// when f stopped it.
template <typename F>
bool fitting(const StepModel& sm, const Layout& l, const MemoryParts& parts, double capacity, bool offload,
             long& evaluated, F f, bool partial = false, bool zero_given = false) {
  const TrainSettings& st = sm.settings.train;
  MemoryBreakdown mem = training_memory(sm.model, sm.params, st, l, parts);
  if (mem.fits(capacity, st)) {
    if (!f(l, mem)) return false;
    if (!partial || l.recompute != Recompute::full || l.recompute_layers > 0 || l.offload != offload_none) return true;
    Layout x = l;
    x.recompute_layers = fewest_recomputed(sm, l, parts, capacity, mem.total().value());
    if (x.recompute_layers == 0) return true;
    ++evaluated;
    return f(x, training_memory(sm.model, sm.params, st, x, parts));
  }
  if (!offload) return true;
  for (int o : offload_sets) {
    Layout x = l;
    x.offload = o;
    if (l.dp * l.cp == 1 && !zero_given) x.zero = one_rank_zero(o);
    if (*offload_problem(x)) continue;
    ++evaluated;
    mem = training_memory(sm.model, sm.params, st, x, parts);
    if (mem.fits(capacity, st) && !f(x, mem)) return false;
  }
  return true;
}

}  // namespace

double flops_utilisation(Flops flops, const StepTime& t, const StepModel& sm, int gpus) {
  // Over the datasheet peak, as MFU is quoted: a board power limit lowers the rate, not the yardstick.
  const FlopRate nominal = sm.device.peak_for(sm.settings.compute_dtype) / sm.device.clock_scale;
  return (flops / t.total / (nominal * static_cast<double>(gpus))).value();
}

Layout layout_from(const LayoutConstraints& c, int gpus_hint) {
  Layout l;
  l.tp = c.tp.value_or(1);
  l.pp = c.pp.value_or(1);
  l.cp = c.cp.value_or(1);
  l.ep = c.ep.value_or(1);
  int rest = gpus_hint > 0 ? gpus_hint / std::max(1, l.tp * l.pp * l.cp) : 1;
  l.dp = c.dp.value_or(std::max(1, rest));
  l.zero = c.zero.value_or(1);
  l.recompute = c.recompute.value_or(c.recompute_layers ? Recompute::full : Recompute::selective);
  l.recompute_layers = c.recompute_layers.value_or(0);
  l.micro_batch = c.micro_batch.value_or(1);
  l.global_batch = c.global_batch.value_or(0);
  l.interleave = c.interleave.value_or(1);
  l.sequence_parallel = c.sequence_parallel.value_or(l.tp > 1);
  l.offload = c.offload.value_or(offload_none);
  return l;
}

namespace {
// A lower bound on the step of every layout of a group (its ZeRO stages, interleavings, offloads
// and partial recomputations): its micro-batches' compute and exposed tp/cp/ep traffic, less every
// recomputation (step_time takes that share away for the layers a variant does not recompute), one
// pipeline send each way, the bubble at the most chunks the group can interleave, and what the
// backward pass cannot hide of the cheaper gradient collective (an all-reduce, or ZeRO's
// reduce-scatter and all-gather). More interleaving's sends, ZeRO-3's gathers, the optimizer and
// offload only add to it.
double fastest_step(const StepModel& sm, const StepParts& p, const Layout& l) {
  const int mbs = l.micro_batches_run();
  const double per = micro_batch_time(p, l.pp, 1, 1).all;
  // The most chunks enumerate allows this group (the bubble falls as they grow).
  const Schedule schedule = sm.settings.train.schedule;
  int chunks = 1;
  if (l.pp > 1 && mbs % l.pp == 0 && (schedule == Schedule::searched || schedule == Schedule::interleaved))
    for (int v : interleave_values)
      if (sm.model.layers >= l.pp * v) chunks = v;
  double t = (mbs + bubble_slots(schedule, l.pp, chunks)) * per;
  if (p.n_dp > 1) {
    t += exposed_dp_s(std::min(p.grad_allreduce, p.grad_gather + p.weight_gather), p.bwd, sm.settings.dp_overlap);
  }
  return t;
}

// Below this share of a target a group's bound certainly misses it, whichever way rounding went.
constexpr double bound_margin = 1 - 1e-9;

// Which groups of layouts certainly fall short of a target throughput, by fastest_step's bound.
// A fully recomputed group, which enumerate lists right after the same layout without
// recomputation, has that group's bound (fastest_step takes the recomputation away), so where
// that one fell short it is skipped without computing its step parts.
class GroupBounds {
 public:
  GroupBounds(const StepModel& sm, LayerCache& layers) : sm_(sm), layers_(layers) {}

  // Whether l's group's bound is below `target` tokens/s; where it is not, l's step parts are
  // left in `p`.
  bool short_of(const Layout& l, double target, StepParts& p) {
    if (l.recompute == Recompute::full && last_bound_ >= 0 && same_group(l) && last_bound_ < target * bound_margin)
      return true;
    const double b = bound(l, target, p);
    if (l.recompute == Recompute::none) last_ = l, last_bound_ = b;
    return b < target;
  }

 private:
  bool same_group(const Layout& l) const {
    const Layout& k = last_;
    return l.tp == k.tp && l.pp == k.pp && l.dp == k.dp && l.cp == k.cp && l.ep == k.ep &&
           l.micro_batch == k.micro_batch && l.global_batch == k.global_batch &&
           l.sequence_parallel == k.sequence_parallel && l.offload == k.offload;
  }
  // The bound (tokens/s) of l's group. The replica's parts come first: the bound without the
  // data-parallel collectives and the pipeline sends' reach, which only add time, may already
  // fall short of `target`, and then they are not computed.
  double bound(const Layout& l, double target, StepParts& p) {
    p = replica_parts(sm_, l, layers_.of(l));
    const double tokens = l.global_batch * static_cast<double>(sm_.settings.train.seq_len);
    const double without = tokens / fastest_step(sm_, p, l);
    if (without < target) return without;
    add_data_parallel(sm_, l, p);
    return tokens / fastest_step(sm_, p, l);
  }

  const StepModel& sm_;
  LayerCache& layers_;
  Layout last_;  // the last group without recomputation
  double last_bound_ = -1;
};
}  // namespace

const LayerParts& LayerCache::of(const Layout& l) {
  // The degrees layer_parts reads, packed; a layout beyond the widths (a constraint far outside
  // what the search enumerates) is computed afresh.
  const auto fits = [](int v, int bits) { return v >= 1 && v < (1 << bits); };
  if (!fits(l.tp, 12) || !fits(l.cp, 12) || !fits(l.ep, 16) || !fits(l.micro_batch, 20))
    return scratch_ = layer_parts(sm_, l);
  const std::uint64_t key = static_cast<std::uint64_t>(l.tp) | static_cast<std::uint64_t>(l.cp) << 12 |
                            static_cast<std::uint64_t>(l.ep) << 24 | static_cast<std::uint64_t>(l.micro_batch) << 40 |
                            static_cast<std::uint64_t>(l.sequence_parallel) << 60;
  const auto slot_of = [this](std::uint64_t k) {
    // Fibonacci hashing: the product's top bits, which every bit of the key reaches.
    const int bits = std::countr_zero(keys_.size());
    std::size_t i = static_cast<std::size_t>((k * 0x9E3779B97F4A7C15ULL) >> (64 - bits));
    while (keys_[i] != 0 && keys_[i] != k) i = (i + 1) & (keys_.size() - 1);
    return i;
  };
  std::size_t i = slot_of(key);
  if (keys_[i] == 0) {
    if (2 * (parts_.size() + 1) > keys_.size()) {  // grow first: the table stays at most half full
      std::vector<std::uint64_t> keys(keys_.size() * 2);
      std::vector<std::uint32_t> index(keys.size());
      keys.swap(keys_);
      index.swap(index_);
      for (std::size_t j = 0; j < keys.size(); ++j)
        if (keys[j] != 0) {
          const std::size_t at = slot_of(keys[j]);
          keys_[at] = keys[j];
          index_[at] = index[j];
        }
      i = slot_of(key);
    }
    keys_[i] = key;
    index_[i] = static_cast<std::uint32_t>(parts_.size());
    parts_.push_back(layer_parts(sm_, l));
  }
  return parts_[index_[i]];
}

SearchResult search_layouts(const StepModel& sm, int gpus, const LayoutConstraints& c, double batch_tokens, int top_k,
                            bool bounded, double floor_tokens_per_s, LayerCache* layers) {
  std::optional<LayerCache> own;  // a search of its own where the caller keeps none
  if (!layers) layers = &own.emplace(sm);
  SearchResult r;
  const double capacity = sm.device.usable_memory().value();
  const double seq = sm.settings.train.seq_len;
  r.top.reserve(static_cast<std::size_t>(top_k) + 1);
  // The parts a group of layouts shares (all but the ZeRO stage and interleaving), computed once
  // per group; the step's parts only once a layout of the group fits.
  bool have_step = false;
  MemoryParts mparts;
  StepParts sparts;
  // Which ZeRO stage and interleaving of the group without recomputation fit (by sequence
  // parallelism): where one did, recomputing some of its layers can only be slower, so the search
  // does not look for that variant. The group without recomputation comes first (enumerate).
  std::array<std::array<std::bitset<129>, 4>, 2> whole_fits;
  auto whole = [&](const Layout& l) -> std::bitset<129>::reference {
    return whole_fits[l.sequence_parallel][static_cast<std::size_t>(l.zero)][static_cast<std::size_t>(l.interleave)];
  };
  GroupBounds bounds(sm, *layers);
  auto group = [&](const Layout& l) {
    have_step = false;
    if (l.recompute == Recompute::none)
      for (auto& z : whole_fits[l.sequence_parallel]) z.reset();
    // Bounded: once the top is full, a group whose bound is below its last cannot enter it (ties
    // are ranked by the layout, so only a strictly slower bound is skipped); before, one below the
    // floor the caller knows the top reaches.
    const bool full = static_cast<int>(r.top.size()) == top_k;
    if (bounded && (full || floor_tokens_per_s > 0)) {
      const double worst = full ? r.top.back().tokens_per_s : floor_tokens_per_s * bound_margin;
      if (bounds.short_of(l, worst, sparts)) return false;
      have_step = true;
    }
    mparts = memory_parts(sm.model, sm.params, sm.settings.train, l);
    return true;
  };
  long variants = 0;
  auto consider = [&](const Layout& l, const MemoryBreakdown& mem) {  // prune before timing: only what fits
    ++r.fitting;
    if (l.recompute == Recompute::none) whole(l) = true;
    if (!have_step) {
      sparts = replica_parts(sm, l, layers->of(l));
      add_data_parallel(sm, l, sparts);
      have_step = true;
    }
    Candidate cand;
    cand.layout = l;
    cand.memory = mem;
    cand.time = step_time(sm, l, sparts);
    cand.tokens_per_s = l.global_batch * seq / cand.time.total.value();
    if (static_cast<int>(r.top.size()) == top_k && !better(cand, r.top.back())) return true;
    auto pos = std::upper_bound(r.top.begin(), r.top.end(), cand, better);
    r.top.insert(pos, cand);
    if (static_cast<int>(r.top.size()) > top_k) r.top.pop_back();
    return true;
  };
  for (const bool offload : {false, true}) {
    if (offload && (r.fitting > 0 || !offload_fallback(sm, c))) break;
    r.evaluated += enumerate(sm.model, sm.settings.train, gpus, c, batch_tokens, [&](const Layout& l) {
      fitting(sm, l, mparts, capacity, offload, variants, consider,
              partial_recompute(c) && !(l.recompute == Recompute::full && whole(l)), c.zero.has_value());
    }, group);
  }
  r.evaluated += variants;
  return r;
}

bool fits_on_devices(const StepModel& sm, int gpus, const LayoutConstraints& c, double batch_tokens) {
  const double capacity = sm.device.usable_memory().value();
  MemoryParts mparts;
  bool fits = false;
  enumerate(sm.model, sm.settings.train, gpus, c, batch_tokens, [&](const Layout& l) {
    fits = training_memory(sm.model, sm.params, sm.settings.train, l, mparts).fits(capacity, sm.settings.train);
    return !fits;
  }, [&](const Layout& l) {
    mparts = memory_parts(sm.model, sm.params, sm.settings.train, l);
    return true;
  });
  return fits;
}

bool any_layout_fits(const StepModel& sm, int gpus, const LayoutConstraints& c, double batch_tokens) {
  if (fits_on_devices(sm, gpus, c, batch_tokens)) return true;
  if (!offload_fallback(sm, c)) return false;
  const double capacity = sm.device.usable_memory().value();
  MemoryParts mparts;
  long variants = 0;
  bool found = false;
  enumerate(sm.model, sm.settings.train, gpus, c, batch_tokens, [&](const Layout& l) {
    return fitting(sm, l, mparts, capacity, true, variants, [&](const Layout&, const MemoryBreakdown&) {
      found = true;
      return false;
    }, false, c.zero.has_value());
  }, [&](const Layout& l) {
    mparts = memory_parts(sm.model, sm.params, sm.settings.train, l);
    return true;
  });
  return found;
}

bool any_layout_reaches(const StepModel& sm, int gpus, const LayoutConstraints& c, double batch_tokens,
                        double tokens_per_s, LayerCache* layers) {
  std::optional<LayerCache> own;  // a search of its own where the caller keeps none
  if (!layers) layers = &own.emplace(sm);
  const double capacity = sm.device.usable_memory().value();
  const double seq = sm.settings.train.seq_len;
  bool found = false;
  MemoryParts mparts;
  StepParts sparts;
  GroupBounds bounds(sm, *layers);
  auto group = [&](const Layout& l) {
    // No variant of the group is faster than fastest_step: a group whose bound falls short is
    // skipped whole.
    if (bounds.short_of(l, tokens_per_s * (1 - 1e-12), sparts)) return false;
    mparts = memory_parts(sm.model, sm.params, sm.settings.train, l);
    return true;
  };
  long variants = 0;
  for (const bool offload : {false, true}) {
    // Offload only where no layout fits on the devices (as search_layouts), which the groups
    // skipped above cannot tell: ask memory alone, stopping at the first layout that fits.
    if (offload && (found || !offload_fallback(sm, c) || fits_on_devices(sm, gpus, c, batch_tokens))) break;
    enumerate(sm.model, sm.settings.train, gpus, c, batch_tokens, [&](const Layout& l) {
      return fitting(sm, l, mparts, capacity, offload, variants, [&](const Layout& x, const MemoryBreakdown&) {
        found = x.global_batch * seq / step_time(sm, x, sparts).total.value() >= tokens_per_s;
        return !found;
      }, partial_recompute(c), c.zero.has_value());
    }, group);
  }
  return found;
}

MinGpus min_gpus_for_memory(const StepModel& sm, const LayoutConstraints& c, int max_gpus) {
  MinGpus out;
  const double capacity = sm.device.usable_memory().value();
  LayoutConstraints cc = c;
  if (!cc.micro_batch) cc.micro_batch = 1;  // memory only: the smallest micro-batch
  // Every count up to 4096, then powers of two: beyond that nobody buys odd counts.
  for (int n = 1; n <= max_gpus; n = n < 4096 ? n + 1 : n * 2) {
    bool found = false;
    Candidate best;
    double best_total = 0;
    long variants = 0;
    for (const bool offload : {false, true}) {
      if (offload && (found || !offload_fallback(sm, cc))) break;
      out.evaluated += enumerate(sm.model, sm.settings.train, n, cc, sm.settings.train.seq_len, [&](const Layout& l0) {
        Layout l = l0;
        l.global_batch = 0;  // memory only: assume enough micro-batches to fill the pipeline
        fitting(sm, l, memory_parts(sm.model, sm.params, sm.settings.train, l), capacity, offload, variants,
                [&](const Layout& x, const MemoryBreakdown& mem) {
                  // Among fitting layouts prefer the least offloaded, then the least memory.
                  const double total = mem.total().value();
                  if (!found || x.offload < best.layout.offload ||
                      (x.offload == best.layout.offload && total < best_total)) {
                    found = true;
                    best_total = total;
                    best.layout = x;
                    best.memory = mem;
                  }
                  return true;
                }, false, cc.zero.has_value());
      });
    }
    out.evaluated += variants;
    if (found) {
      out.gpus = n;
      out.best = best;
      return out;
    }
  }
  return out;
}

namespace {

// Why the model cannot run a layout as given (the memory question takes any layout; the search
// only proposes layouts that can run).
void check_layout(const ModelArch& m, const Layout& l, int seq_len) {
  if (m.heads % l.tp) fail(Exit::usage, fmt::format("tp {} does not divide the {} attention heads of {}", l.tp, m.heads, m.id));
  if (l.pp > m.layers) fail(Exit::usage, fmt::format("pp {} is larger than the {} layers of {}", l.pp, m.layers, m.id));
  if (l.interleave > 1 && m.layers < l.pp * l.interleave)
    fail(Exit::usage, fmt::format("interleave {} with pp {} needs at least {} layers; {} has {}", l.interleave, l.pp,
                                  l.pp * l.interleave, m.id, m.layers));
  if (seq_len % l.cp) fail(Exit::usage, fmt::format("cp {} does not divide the sequence length {}", l.cp, seq_len));
  if (l.ep > 1) check_expert_split(m, l.ep);
  if (*offload_problem(l)) fail(Exit::usage, fmt::format("offload {}: {}", offload_name(l.offload), offload_problem(l)));
  if (l.recompute_layers > 0 && l.recompute != Recompute::full)
    fail(Exit::usage, fmt::format("recompute-layers {} needs --recompute full (it is {})", l.recompute_layers,
                                  to_string(l.recompute)));
  if (l.recompute_layers > (m.layers + l.pp - 1) / l.pp)
    fail(Exit::usage, fmt::format("recompute-layers {} is more than the {} layers of a pipeline stage (pp {})",
                                  l.recompute_layers, (m.layers + l.pp - 1) / l.pp, l.pp));
  if (l.global_batch > 0 && l.global_batch % (l.micro_batch * l.dp))
    fail(Exit::usage, fmt::format("global batch {} is not a multiple of micro-batch x dp = {}", l.global_batch,
                                  l.micro_batch * l.dp));
}

}  // namespace

MemoryAnswer memory_answer(const StepModel& sm, const LayoutConstraints& c, int gpus, bool fewest) {
  MemoryAnswer a;
  a.capacity = sm.device.usable_memory().value();
  const TrainSettings& st = sm.settings.train;
  if (fewest) {
    const MinGpus mg = min_gpus_for_memory(sm, c, 1 << 20);
    if (mg.gpus == 0)
      fail(Exit::no_answer, fmt::format("{} does not fit on any number of {} under the given constraints: one layer "
                                        "alone needs more than the {} of memory",
                                        sm.model.id, sm.device.id, format_iec(a.capacity)));
    a.layout = mg.best.layout;
    a.memory = mg.best.memory;
    a.min_gpus = mg.gpus;
    a.evaluated = mg.evaluated;
  } else {
    a.layout = layout_from(c, gpus);
    const Layout& l = a.layout;
    if (gpus > 0 && l.gpus() != gpus)
      fail(Exit::usage, fmt::format("gpus {} is not tp {} x pp {} x cp {} x dp {}", gpus, l.tp, l.pp, l.cp, l.dp));
    check_layout(sm.model, l, st.seq_len);
    a.memory = training_memory(sm.model, sm.params, st, l);
  }
  a.fits = a.memory.fits(a.capacity, st);
  return a;
}

bool offload_fallback(const StepModel& sm, const LayoutConstraints& c) {
  return !c.offload && sm.settings.train.host_memory.value() > 0;
}

}  // namespace gpuplan
