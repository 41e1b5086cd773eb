// SPDX-License-Identifier: Apache-2.0
// Benchmarks (Google Benchmark): one memory evaluation, one step-time evaluation, the full
// layout search for gpt3-175b on 1024 A100s, and a serving deployment search. Figures go to tests/bench/RESULTS.md.
#include <benchmark/benchmark.h>

#include "gpuplan/analysis/search.hpp"
#include "gpuplan/analysis/serving.hpp"
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

// The serving deployment search: Llama 2 70B fp8 on 8 H100 under MLPerf's server targets
// (p99 TTFT 2 s, TPOT 200 ms), every tensor-parallel degree, every batch, each at the highest
// load meeting them. A candidate is one operating point (a degree's batch at a load).
static void deployment_search_llama2_70b(benchmark::State& state) {
  static Catalog c = Catalog::builtin();
  Scenario s;
  apply_setting(s, "model", "llama-2-70b");
  apply_setting(s, "gpu", "h100-sxm");
  apply_setting(s, "quant", "fp8");
  const Job j = resolve(s, c);
  InferSettings is = resolve_infer(s, j);
  is.context = 1300;
  DeploymentQuestion q{1000, 300, 2.0, 0.2, ServingLoad{0, 0, 60, 8}, 1, 8, j.model.heads};
  long evaluated = 0;
  for (auto _ : state) {
    const auto tried = try_deployments(q, [&](int tp, int pp, int ep) {
      InferSettings t = is;
      t.tp = tp;
      t.pp = pp;
      t.ep = ep;
      return make_infer_model(j.model, j.params, j.device, j.device, t);
    });
    for (const auto& d : tried) evaluated += d.evaluated;
    benchmark::DoNotOptimize(tried);
  }
  state.counters["candidates_per_s"] = benchmark::Counter(static_cast<double>(evaluated), benchmark::Counter::kIsRate);
}
BENCHMARK(deployment_search_llama2_70b)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
