#include "gpuplan/analysis/search.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace gpuplan {

namespace {

bool better(const Candidate& a, const Candidate& b) {
  if (a.tokens_per_s != b.tokens_per_s) return a.tokens_per_s > b.tokens_per_s;
  const Layout &x = a.layout, &y = b.layout;
  auto key = [](const Layout& l) {
    return std::make_tuple(l.tp, l.pp, l.cp, l.ep, l.zero, l.micro_batch, static_cast<int>(l.recompute), l.interleave,
                           l.sequence_parallel);
  };
  return key(x) < key(y);
}

template <typename F>
void for_values(const std::optional<int>& fixed, std::initializer_list<int> values, F f) {
  if (fixed) {
    f(*fixed);
    return;
  }
  for (int v : values) f(v);
}

// Whether two layouts differ at most in ZeRO stage and interleaving (so share MemoryParts and StepParts).
bool same_group(const Layout& a, const Layout& b) {
  return a.tp == b.tp && a.pp == b.pp && a.dp == b.dp && a.cp == b.cp && a.ep == b.ep && a.micro_batch == b.micro_batch &&
         a.global_batch == b.global_batch && a.recompute == b.recompute && a.sequence_parallel == b.sequence_parallel;
}

constexpr std::initializer_list<int> pow2 = {1, 2, 4, 8, 16, 32, 64};

// Calls f(layout) for every layout of `gpus` devices allowed by the model and constraints.
// Global batch: fixed when given, else the nearest multiple of micro x dp to batch_tokens.
template <typename F>
long enumerate(const ModelArch& m, const TrainSettings& st, int gpus, const LayoutConstraints& c, double batch_tokens, F f) {
  const int seq_len = st.seq_len;
  long count = 0;
  for_values(c.tp, pow2, [&](int tp) {
    if (gpus % tp || m.heads % tp) return;
    for_values(c.cp, {1, 2, 4, 8, 16}, [&](int cp) {
      if (gpus % (tp * cp) || seq_len % (2 * cp)) return;
      if (cp > 1 && seq_len / cp < 1024) return;  // ring attention needs long enough shards
      const int rest = gpus / (tp * cp);
      for (int pp = 1; pp <= std::min(rest, m.layers); ++pp) {
        if (rest % pp || (c.pp && *c.pp != pp)) continue;
        const int dp = rest / pp;
        if (c.dp && *c.dp != dp) continue;
        for_values(c.ep, {1, 2, 4, 8, 16, 32, 64, 128, 256}, [&](int ep) {
          if (ep > 1 && (!m.moe() || m.experts % ep || (dp * cp) % ep)) return;
          for_values(c.micro_batch, {1, 2, 4, 8, 16}, [&](int mb) {
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
            for (int rc = 0; rc < 3; ++rc) {
              auto recompute = static_cast<Recompute>(rc);
              if (c.recompute && *c.recompute != recompute) continue;
              // Under flash attention selective recomputation keeps and recomputes nothing more
              // than none does (memory.cpp, step.cpp): the same layout twice, so only none is listed.
              if (!c.recompute && recompute == Recompute::selective && st.flash_attention) continue;
              for (int spi = 0; spi < 2; ++spi) {
                bool sp = spi == 1;
                if (c.sequence_parallel ? *c.sequence_parallel != sp : (tp == 1 ? sp : !sp)) continue;
                if (tp == 1 && sp && !c.sequence_parallel) continue;
                // ZeRO stage and interleaving innermost: the layouts of one group share their
                // memory and step parts (search_layouts computes them once).
                for_values(c.zero, {0, 1, 2, 3}, [&](int zero) {
                  if (dp * cp == 1 && zero > 0 && !c.zero) return;  // nothing to shard over
                  for_values(c.interleave, {1, 2, 3, 4, 6, 8}, [&](int v) {
                    // Uneven splits are allowed (Llama 3 ran 126 layers on 16 stages): the most loaded
                    // stage holds ceil(layers / pp) layers in v chunks.
                    if (v > 1 && (pp == 1 || m.layers < pp * v || micro_batches % pp)) return;
                    Layout l{tp, pp, dp, cp, ep, zero, recompute, mb, gb, v, sp};
                    ++count;
                    f(l);
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

}  // namespace

double flops_utilisation(double flops, const StepTime& t, const StepModel& sm, int gpus) {
  return flops / t.total / (sm.device.peak_for(sm.settings.compute_dtype).value() * gpus);
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
  l.recompute = c.recompute.value_or(Recompute::selective);
  l.micro_batch = c.micro_batch.value_or(1);
  l.global_batch = c.global_batch.value_or(0);
  l.interleave = c.interleave.value_or(1);
  l.sequence_parallel = c.sequence_parallel.value_or(l.tp > 1);
  return l;
}

SearchResult search_layouts(const StepModel& sm, int gpus, const LayoutConstraints& c, double batch_tokens, int top_k) {
  SearchResult r;
  const double capacity = sm.device.usable_memory().value();
  const double seq = sm.settings.train.seq_len;
  r.top.reserve(static_cast<std::size_t>(top_k) + 1);
  // The parts a group of layouts shares (all but the ZeRO stage and interleaving), computed when
  // the group changes; the step's parts only once a layout of the group fits.
  Layout group;
  bool have_memory = false, have_step = false;
  MemoryParts mparts;
  StepParts sparts;
  r.evaluated = enumerate(sm.model, sm.settings.train, gpus, c, batch_tokens, [&](const Layout& l) {
    if (!have_memory || !same_group(l, group)) {
      group = l;
      mparts = memory_parts(sm.model, sm.params, sm.settings.train, l);
      have_memory = true;
      have_step = false;
    }
    MemoryBreakdown mem = training_memory(sm.model, sm.params, sm.settings.train, l, mparts);
    if (mem.total().value() > capacity) return;  // prune before timing
    ++r.fitting;
    if (!have_step) {
      sparts = step_parts(sm, l);
      have_step = true;
    }
    Candidate cand;
    cand.layout = l;
    cand.memory = mem;
    cand.time = step_time(sm, l, sparts);
    cand.tokens_per_s = l.global_batch * seq / cand.time.total;
    if (static_cast<int>(r.top.size()) == top_k && !better(cand, r.top.back())) return;
    auto pos = std::upper_bound(r.top.begin(), r.top.end(), cand, better);
    r.top.insert(pos, cand);
    if (static_cast<int>(r.top.size()) > top_k) r.top.pop_back();
  });
  return r;
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
    out.evaluated += enumerate(sm.model, sm.settings.train, n, cc, sm.settings.train.seq_len, [&](const Layout& l0) {
      Layout l = l0;
      l.global_batch = 0;  // memory only: assume enough micro-batches to fill the pipeline
      MemoryBreakdown mem = training_memory(sm.model, sm.params, sm.settings.train, l);
      double total = mem.total().value();
      if (total > capacity) return;
      // Among fitting layouts prefer the least memory, then the simpler layout.
      if (!found || total < best_total) {
        found = true;
        best_total = total;
        best.layout = l;
        best.memory = mem;
      }
    });
    if (found) {
      out.gpus = n;
      out.best = best;
      return out;
    }
  }
  return out;
}

}  // namespace gpuplan
