// Benchmarks (Google Benchmark): one memory evaluation, one step-time evaluation, and the
// full layout search for gpt3-175b on 1024 A100s. Figures go to tests/bench/RESULTS.md.
#include <benchmark/benchmark.h>

#include "gpuplan/analysis/search.hpp"
#include "gpuplan/catalog/catalog.hpp"
#include "gpuplan/scenario.hpp"

using namespace gpuplan;

namespace {
Job job() {
  static Catalog c = Catalog::builtin();
  Scenario s;
  apply_setting(s, "model", "gpt3-175b");
  apply_setting(s, "gpu", "a100-80gb");
  return resolve(s, c);
}
}  // namespace

static void memory_eval(benchmark::State& state) {
  Job j = job();
  Layout l{8, 8, 16, 1, 1, 1, Recompute::selective, 1, 1536, 1, true};
  for (auto _ : state) {
    benchmark::DoNotOptimize(training_memory(j.model, j.params, j.step.train, l));
    l.micro_batch = 1 + (l.micro_batch & 1);  // defeat hoisting
  }
}
BENCHMARK(memory_eval);

static void step_eval(benchmark::State& state) {
  Job j = job();
  StepModel sm{j.model, j.params, j.device, j.step};
  Layout l{8, 8, 16, 1, 1, 1, Recompute::selective, 1, 1536, 1, true};
  for (auto _ : state) {
    benchmark::DoNotOptimize(step_time(sm, l));
    l.micro_batch = 1 + (l.micro_batch & 1);
  }
}
BENCHMARK(step_eval);

static void full_search_gpt3_1024(benchmark::State& state) {
  Job j = job();
  StepModel sm{j.model, j.params, j.device, j.step};
  LayoutConstraints c;
  c.global_batch = 1536;
  long evaluated = 0;
  for (auto _ : state) {
    SearchResult r = search_layouts(sm, 1024, c, 0, 10);
    evaluated += r.evaluated;
    benchmark::DoNotOptimize(r);
  }
  state.counters["layouts_per_s"] = benchmark::Counter(static_cast<double>(evaluated), benchmark::Counter::kIsRate);
}
BENCHMARK(full_search_gpt3_1024)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
