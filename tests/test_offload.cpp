// SPDX-License-Identifier: Apache-2.0
// Host offload of training state: memory moved to the host, the host-link and host-update time
// it costs, and when the search uses it. Closed forms derived by hand from the models'
// comments (memory.cpp, step.cpp): ZeRO-Offload (Ren et al. 2021), ZeRO-Infinity
// (Rajbhandari et al. 2021).
#include <catch2/catch.hpp>

#include "catalog_fixture.hpp"
#include "gpt_fixture.hpp"

#include "gpuplan/analysis/search.hpp"
#include "gpuplan/catalog/catalog.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/scenario.hpp"

using namespace gpuplan;

TEST_CASE("offloaded model states move to the host in closed form", "[memory][offload]") {
  const ModelArch m = gpt();
  const ParamCounts pc = count_params(m);
  TrainSettings st;
  st.seq_len = 2048;
  Layout l;
  l.dp = 8;
  const double p = pc.total;
  SECTION("optimizer under ZeRO-2 with fp32 gradients: 2P on the device, 16P/N on the host") {
    l.zero = 2;
    l.offload = offload_optimizer;
    const MemoryBreakdown mb = training_memory(m, pc, st, l);
    CHECK(mb.weights.value() == Approx(2 * p).epsilon(1e-12));
    CHECK(mb.gradients.value() == 0);
    CHECK(mb.optimizer.value() == 0);
    CHECK(mb.host.value() == Approx(16 * p / 8).epsilon(1e-12));
  }
  SECTION("optimizer under ZeRO-1 keeps the full gradients on the device") {
    l.zero = 1;
    l.offload = offload_optimizer;
    const MemoryBreakdown mb = training_memory(m, pc, st, l);
    CHECK(mb.gradients.value() == Approx(4 * p).epsilon(1e-12));
    CHECK(mb.optimizer.value() == 0);
    CHECK(mb.host.value() == Approx(16 * p / 8).epsilon(1e-12));
  }
  SECTION("optimizer and weights under ZeRO-3: no model state on the device, 18P/N on the host") {
    l.zero = 3;
    l.offload = offload_optimizer | offload_weights;
    const MemoryBreakdown mb = training_memory(m, pc, st, l);
    CHECK((mb.weights + mb.gradients + mb.optimizer).value() == 0);
    CHECK(mb.host.value() == Approx(18 * p / 8).epsilon(1e-12));
  }
  SECTION("activation checkpoints: two layers' inputs stay, the rest go to the host") {
    l.zero = 1;
    l.recompute = Recompute::full;
    l.dp = 1;
    const MemoryBreakdown kept = training_memory(m, pc, st, l);
    l.offload = offload_activations;
    const MemoryBreakdown moved = training_memory(m, pc, st, l);
    const double checkpoint = 2.0 * 2048 * 1 * 4096;  // 2sbh, one layer's input in 16 bits
    CHECK(moved.host.value() == Approx(24 * checkpoint).epsilon(1e-12));
    CHECK((kept.activations - moved.activations).value() == Approx(22 * checkpoint).epsilon(1e-12));
  }
}

TEST_CASE("offload sets a layout cannot run are refused", "[offload]") {
  Layout l;
  l.zero = 0;
  l.offload = offload_optimizer;
  CHECK(std::string(offload_problem(l)) == "optimizer offload needs ZeRO 1, 2 or 3");
  l.zero = 2;
  CHECK(std::string(offload_problem(l)).empty());
  l.offload = offload_optimizer | offload_weights;
  CHECK_FALSE(std::string(offload_problem(l)).empty());
  l.zero = 3;
  CHECK(std::string(offload_problem(l)).empty());
  l.offload = offload_activations;
  l.recompute = Recompute::selective;
  CHECK(std::string(offload_problem(l)) == "activation offload needs full recomputation of every layer");
  l.recompute = Recompute::full;
  CHECK(std::string(offload_problem(l)).empty());
  l.recompute_layers = 4;  // the other layers' activations would stay whole on the device
  CHECK(std::string(offload_problem(l)) == "activation offload needs full recomputation of every layer");
  for (int o : {0, 1, 4, 5, 3, 7}) CHECK(parse_offload(offload_name(o)) == o);
  CHECK_THROWS_AS(parse_offload("weights"), Error);
}

TEST_CASE("an offloaded optimizer runs on the host and crosses the host link", "[step][offload]") {
  Catalog c = Catalog::builtin();
  ModelArch m = gpt();
  StepModel sm{m, count_params(m), resolve_device(c, "h100-sxm"), {}};
  sm.settings.train.seq_len = 2048;
  sm.settings.host_memory_bw = bytes_per_s(100e9);
  Layout l;
  l.dp = 1;
  l.zero = 1;
  l.global_batch = 8;
  const StepTime on = step_time(sm, l);
  l.offload = offload_optimizer;
  const StepTime off = step_time(sm, l);
  const StepParts parts = step_parts(sm, l);
  const double local = parts.stage.total();  // dp = 1: the shard is the whole stage
  // CPU-Adam: 2 x 12 + 4 + 2 = 30 bytes a parameter over the host's memory at its efficiency.
  CHECK(off.optimizer.value() == Approx(local * 30 / (100e9 * sm.settings.eff.memory)).epsilon(1e-12));
  // PCIe 5 (64 GB/s a direction at the link efficiency): gradients down, half hidden behind the
  // backward pass at the default dp-overlap 0.5, weights up.
  const double one_way = local * 2 / (64e9 * sm.settings.eff.link);
  CHECK(off.offload.value() == Approx(one_way * 0.5 + one_way).epsilon(1e-12));
  CHECK(off.compute.value() == on.compute.value());
  CHECK(off.total.value() == Approx(on.total.value() - on.optimizer.value() + off.optimizer.value() + off.offload.value()).epsilon(1e-12));
}

TEST_CASE("the search offloads only where nothing fits on the devices", "[search][offload]") {
  Catalog c = Catalog::builtin();
  Scenario s;
  apply_setting(s, "model", "llama-3.1-70b");
  apply_setting(s, "gpu", "h100-sxm");
  Job j = resolve(s, c);
  StepModel sm{j.model, j.params, j.device, j.step};
  // 70.6B x 18 bytes = 1.27 TB of model states: 12 H100 cannot hold them (106 GB each before
  // activations, of 85.5 GB), 32 can.
  const SearchResult twelve = search_layouts(sm, 12, s.layout, 4.0 * 1024 * 1024, 5);
  REQUIRE_FALSE(twelve.top.empty());
  for (const Candidate& cand : twelve.top) {
    CHECK(cand.layout.offload != offload_none);
    CHECK(cand.memory.host.value() <= j.step.train.host_memory.value());
  }
  const SearchResult more = search_layouts(sm, 32, s.layout, 4.0 * 1024 * 1024, 5);
  REQUIRE_FALSE(more.top.empty());
  for (const Candidate& cand : more.top) CHECK(cand.layout.offload == offload_none);
  // any_layout_reaches asks the same question: 12 devices reach what their best layout does.
  CHECK(any_layout_reaches(sm, 12, s.layout, 4.0 * 1024 * 1024, twelve.top.front().tokens_per_s));
  // --offload none: nothing fits on 12.
  LayoutConstraints none;
  none.offload = offload_none;
  CHECK(search_layouts(sm, 12, none, 4.0 * 1024 * 1024, 5).top.empty());
  CHECK_FALSE(any_layout_reaches(sm, 12, none, 4.0 * 1024 * 1024, 1));
}

TEST_CASE("a device with unified memory has no host to offload to", "[offload]") {
  Catalog c = Catalog::builtin();
  Scenario s;
  apply_setting(s, "model", "llama-3.1-8b");
  apply_setting(s, "gpu", "apple-m3-max");
  CHECK(resolve(s, c).step.train.host_memory.value() == 0);
  apply_setting(s, "offload", "optimizer");
  CHECK_THROWS_AS(resolve(s, c), Error);
}

TEST_CASE("the memory question answers a layout as given or the fewest devices", "[memory]") {
  const StepModel sm = step_model_of(job_of({{"model", "llama-3.1-8b"}, {"gpu", "h100-sxm"}}));
  LayoutConstraints k;
  k.tp = 2;
  // --gpus 8 with tp 2 leaves dp 4; ZeRO-1 at the default: 8.03B x (2 + 4) / 2 on the device
  // plus the 12-byte optimizer state sharded over 4.
  const MemoryAnswer a = memory_answer(sm, k, 8, false);
  CHECK(a.layout.dp == 4);
  const double p = a.memory.params_per_device;
  CHECK((a.memory.weights + a.memory.gradients).value() == Approx(6 * p));
  CHECK(a.memory.optimizer.value() == Approx(12 * p / 4));
  CHECK(a.fits == (a.memory.total().value() <= 80e9));
  CHECK_THROWS_WITH(memory_answer(sm, k, 7, false), Catch::Matchers::Contains("gpus 7 is not tp 2"));
  k.tp = 3;
  CHECK_THROWS_WITH(memory_answer(sm, k, 0, false), Catch::Matchers::Contains("tp 3 does not divide the 32 attention heads"));
  LayoutConstraints none;
  none.offload = offload_none;
  const MemoryAnswer fewest = memory_answer(sm, none, 0, true);
  // 8.03B x 18 bytes = 145 GB of model states: two 80 GB devices at the least.
  CHECK(fewest.min_gpus >= 2);
  CHECK(fewest.fits);
  CHECK(fewest.layout.gpus() == fewest.min_gpus);
}
