// SPDX-License-Identifier: Apache-2.0
#include <catch2/catch.hpp>
#include <cmath>

#include "gpuplan/analysis/reliability.hpp"
#include "gpuplan/analysis/train.hpp"
#include "catalog_fixture.hpp"
#include "gpuplan/catalog/catalog.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/scenario.hpp"

using namespace gpuplan;

namespace {
TrainQuestion question(const char* model, const char* gpu) {
  const Catalog& c = builtin_catalog();
  Scenario s;
  apply_setting(s, "model", model);
  apply_setting(s, "gpu", gpu);
  const Job j = resolve(s, c);
  TrainQuestion q;
  q.model = StepModel{j.model, j.params, j.device, j.step};
  q.tokens = 1e12;
  q.unit = 8;
  // The mechanics below at a given goodput of 0.9; the derived one has its own tests.
  q.goodput_given = true;
  return q;
}
}  // namespace

TEST_CASE("goodput derived from failures falls as the devices grow", "[train][reliability]") {
  // Llama 3's rate, 419 interruptions in 54 days on 16,384 GPUs: at that size one every
  // 54 x 24 / 419 = 3.09 hours.
  GoodputInput in;
  in.devices = 16384;
  in.checkpoint_write = in.checkpoint_stall = in.checkpoint_read = seconds(60);
  Goodput g = derive_goodput(in);
  CHECK(g.mtbf.value() == Approx(54.0 * 24 * 3600 / 419));
  // Young/Daly: tau = sqrt(2 c M) - c; waste c / (tau + c) + (tau + c) / 2M + (R + read) / M.
  const double m = g.mtbf.value(), tau = std::sqrt(2 * 60 * m) - 60;
  CHECK(g.interval.value() == Approx(tau));
  CHECK(g.value == Approx(1 - 60 / (tau + 60) - (tau + 60) / 2 / m - (600.0 + 60) / m));
  // 1,024 devices fail 16 times less often: more of the wall clock trains.
  in.devices = 1024;
  CHECK(derive_goodput(in).value > g.value);
  // A given interval is kept; asynchronous checkpointing (a short stall, the write in flight
  // still lost on an interruption) wastes less than the same write stalling.
  in.devices = 16384;
  in.interval = seconds(3600);
  const Goodput given = derive_goodput(in);
  CHECK_FALSE(given.optimal_interval);
  CHECK(given.interval.value() == 3600);
  in.checkpoint_stall = seconds(1);
  CHECK(derive_goodput(in).value > given.value);
}

TEST_CASE("the failure rates reproduce Llama 3's snapshot and sink goodput at 100,000 GPUs", "[train][reliability]") {
  // The rates by cause (Llama 3 paper, Table 5: faulty GPU 148, SRAM 19, system processor 17,
  // HBM3 72, network 35, the other 128 of 419) give 419 interruptions over 54 days on 16,384.
  GoodputInput in;
  in.devices = 16384;
  CHECK(derive_goodput(in).interruptions_per_hour * 54 * 24 == Approx(419));
  REQUIRE(failure_causes().size() == 4);
  CHECK(failure_causes()[1].per_device_hour * 16384 * 54 * 24 == Approx(72));  // HBM
  // 100,000 H100s (a 405B checkpoint of 6.5 TB at the Llama 3 cluster's 122 MB/s a device) fail
  // every 30 minutes: the restarts alone take a third of the wall clock, where at 1,000 GPUs the
  // run trains about 99% of the time.
  const auto at = [&](int n) {
    GoodputInput x;
    x.devices = n;
    x.checkpoint_write = x.checkpoint_stall = x.checkpoint_read = seconds(6.5e12 / (llama3_storage_per_device * n));
    return derive_goodput(x);
  };
  const Goodput big = at(100000), small = at(1000);
  CHECK(big.mtbf.value() == Approx(3600 / (100000 * failures_per_device_hour())));
  CHECK(big.restart_share > 0.3);
  CHECK(big.value < 0.7);
  CHECK(small.value > 0.97);
}

TEST_CASE("a training run derives its goodput unless one is given", "[train][reliability]") {
  // Llama 3.1 405B on 16,384 H100s, no storage system: the checkpoint (16 bytes a parameter) goes
  // at the Llama 3 cluster's 2 TB/s, and Meta's >90% effective training time is what comes out.
  TrainQuestion q = question("llama-3.1-405b", "h100-sxm");
  q.goodput_given = false;
  q.gpus = 16384;
  q.tokens = 15e12;
  q.storage.checkpoint = bytes(405.85e9 * 16);
  const TrainAnswer a = plan_training(q);
  REQUIRE(a.reliability);
  CHECK(a.reliability->mtbf.value() == Approx(54.0 * 24 * 3600 / 419));
  CHECK(a.goodput == Approx(a.reliability->value));
  CHECK(a.goodput > 0.9);
  CHECK(a.goodput < 0.95);
  CHECK(a.wall.value() == Approx(a.steps * a.best.time.total.value() / a.goodput));
  // Given, it is used as it is.
  q.goodput_given = true;
  q.goodput = 0.8;
  const TrainAnswer b = plan_training(q);
  CHECK_FALSE(b.reliability);
  CHECK(b.goodput == Approx(0.8));
}

TEST_CASE("time to train on a fixed count is steps x step time over goodput", "[train]") {
  TrainQuestion q = question("llama-3.1-8b", "h100-sxm");
  q.gpus = 64;
  const TrainAnswer a = plan_training(q);
  const double seq = q.model.settings.train.seq_len;
  const double steps = 1e12 / (a.best.layout.global_batch * seq);
  CHECK(a.gpus == 64);
  CHECK(a.steps == Approx(steps));
  CHECK(a.wall.value() == Approx(steps * a.best.time.total.value() / 0.9));
  CHECK(a.gpu_hours == Approx(a.wall.value() * 64 / 3600));
  CHECK(a.goodput == 0.9);  // no checkpoint interval: nothing taken out
  const double peak = q.model.device.peak_for(q.model.settings.compute_dtype).value() * 64;
  CHECK(a.mfu == Approx(a.best.time.model_flops.value() / a.best.time.total.value() / peak));
  CHECK(a.mfu > 0.2);
  CHECK(a.mfu < 0.8);
  CHECK(a.counts_searched == 1);
}

TEST_CASE("a deadline gives the fewest devices in whole units that meet it", "[train]") {
  TrainQuestion q = question("llama-3.1-8b", "h100-sxm");
  q.deadline = seconds(14 * 86400.0);
  const TrainAnswer a = plan_training(q);
  REQUIRE(a.gpus > q.unit);
  REQUIRE(a.gpus % q.unit == 0);
  CHECK(a.wall <= q.deadline);
  // One unit fewer misses it: the answer is the smallest.
  TrainQuestion fewer = q;
  fewer.deadline = seconds(0);
  fewer.gpus = a.gpus - q.unit;
  CHECK(plan_training(fewer).wall > q.deadline);
  // The cards below a node (1, 2, 4: log2 8 counts), then doubling and bisection over k units:
  // at most 3 + 2 log2(k) + 1 counts searched, each once.
  const double k = a.gpus / q.unit;
  CHECK(a.counts_searched <= 3 + 2 * std::ceil(std::log2(k)) + 1);
}

TEST_CASE("a deadline that a node more than meets takes whole cards below it", "[train]") {
  // 20B tokens of Llama 3.1 8B in 14 days: the devices a node of 8 would need are few, so the
  // answer is a power of two below 8 whose half misses the deadline.
  TrainQuestion q = question("llama-3.1-8b", "h100-sxm");
  q.tokens = 20e9;
  q.deadline = seconds(14 * 86400.0);
  const TrainAnswer a = plan_training(q);
  REQUIRE(a.gpus < q.unit);
  CHECK((a.gpus & (a.gpus - 1)) == 0);
  CHECK(a.wall <= q.deadline);
  if (a.gpus > 1) {
    TrainQuestion half = q;
    half.deadline = seconds(0);
    half.gpus = a.gpus / 2;
    CHECK(plan_training(half).wall > q.deadline);
  }
}

TEST_CASE("a count that misses its deadline says so and names the count that meets it", "[train]") {
  TrainQuestion q = question("llama-3.1-8b", "a100-80gb");
  q.gpus = 64;
  q.deadline = seconds(30 * 86400.0);
  const TrainAnswer a = plan_training(q);
  CHECK_FALSE(a.meets_deadline);
  CHECK(a.wall > q.deadline);
  CHECK(a.unmet.find("too few") != std::string::npos);
  CHECK(a.unmet.find("checkpoint") == std::string::npos);
  // The tokens that fit: throughput x goodput x deadline.
  CHECK(a.tokens_by_deadline == Approx(a.best.tokens_per_s * 0.9 * 30 * 86400));
  // The count named is the deadline search's own answer.
  TrainQuestion fewest = q;
  fewest.gpus = 0;
  CHECK(a.gpus_for_deadline == plan_training(fewest).gpus);
  // With no tokens the question is the inverse: the run fills the deadline exactly.
  q.tokens = 0;
  q.tokens_from_deadline = true;
  const TrainAnswer inv = plan_training(q);
  CHECK(inv.meets_deadline);
  CHECK(inv.tokens == Approx(a.tokens_by_deadline));
  CHECK(inv.wall.value() == Approx(30 * 86400.0));
}

TEST_CASE("the deadline search gives the count of a plain doubling and bisection in fewer searches", "[train]") {
  // The reference: double from one unit until the best layout meets the deadline, then bisect,
  // ranking every layout of every count (what the search did before it skipped counts that
  // cannot meet the deadline and asked only yes or no of the rest).
  auto reference = [](const TrainQuestion& q, int& searched) {
    auto meets = [&](int k) {
      ++searched;
      SearchResult r = search_layouts(q.model, k * q.unit, q.layout, q.target_batch(k * q.unit), 1);
      if (r.top.empty()) return false;
      const Candidate& c = r.top.front();
      const double steps = q.tokens / (c.layout.global_batch * double(q.model.settings.train.seq_len));
      return wall_clock(steps, seconds(c.time.total.value()), q.goodput) <= q.deadline;
    };
    int hi = 1;
    while (!meets(hi)) hi *= 2;
    int lo = hi / 2;
    while (hi - lo > 1) {
      const int mid = lo + (hi - lo) / 2;
      (meets(mid) ? hi : lo) = mid;
    }
    return hi * q.unit;
  };
  for (auto [model, days] : {std::pair{"llama-3.1-8b", 14.0}, std::pair{"deepseek-v3", 56.0}, std::pair{"llama-2-70b", 30.0}}) {
    INFO(model);
    TrainQuestion q = question(model, "h100-sxm");
    q.tokens = std::string(model) == "deepseek-v3" ? 14.8e12 : 2e12;
    q.deadline = seconds(days * 86400);
    int searched = 0;
    const int expected = reference(q, searched);
    const TrainAnswer a = plan_training(q);
    CHECK(a.gpus == expected);
    CHECK(a.counts_searched < searched);
  }
}

TEST_CASE("any_layout_reaches and the bounded search agree with the best layout of a full search", "[train]") {
  // Memory-tight counts too (70B on 16, 405B on 128), where the best layouts recompute some layers:
  // a group's bound must hold for its partial recomputations.
  for (auto [model, gpus] : {std::pair{"llama-3.1-8b", 64}, std::pair{"deepseek-v3", 2048}, std::pair{"llama-2-70b", 256},
                             std::pair{"llama-3.1-70b", 16}, std::pair{"llama-3.1-405b", 128}, std::pair{"mixtral-8x7b", 24}}) {
    INFO(model);
    const TrainQuestion q = question(model, "h100-sxm");
    const double batch = q.target_batch(gpus);
    const SearchResult r = search_layouts(q.model, gpus, q.layout, batch, 1);
    REQUIRE(!r.top.empty());
    const double best = r.top.front().tokens_per_s;
    // Bounded, the same best, from fewer layouts.
    const SearchResult b = search_layouts(q.model, gpus, q.layout, batch, 1, true);
    REQUIRE(!b.top.empty());
    CHECK(b.top.front().tokens_per_s == best);
    CHECK(b.top.front().layout.tp == r.top.front().layout.tp);
    CHECK(b.top.front().layout.pp == r.top.front().layout.pp);
    CHECK(b.top.front().layout.zero == r.top.front().layout.zero);
    CHECK(b.top.front().layout.recompute_layers == r.top.front().layout.recompute_layers);
    CHECK(b.evaluated <= r.evaluated);
    // With the floor a deadline's count knows it reaches: the same best again, from fewer still.
    const SearchResult f = search_layouts(q.model, gpus, q.layout, batch, 1, true, best * (1 - 1e-9));
    REQUIRE(!f.top.empty());
    CHECK(f.top.front().tokens_per_s == best);
    CHECK(f.top.front().layout.recompute_layers == r.top.front().layout.recompute_layers);
    CHECK(f.evaluated <= b.evaluated);
    CHECK(any_layout_reaches(q.model, gpus, q.layout, batch, best * (1 - 1e-9)));
    CHECK(any_layout_reaches(q.model, gpus, q.layout, batch, best * 0.5));
    CHECK_FALSE(any_layout_reaches(q.model, gpus, q.layout, batch, best * (1 + 1e-9)));
  }
}

TEST_CASE("the step parts split at data parallelism give step_parts bit for bit", "[train]") {
  // One replica (tp 8, pp 4, ep 8, micro-batch 2, full recomputation) at dp 8, 32 and 64: its
  // replica parts, then what each dp adds (the collectives and the pipeline sends' reach).
  const TrainQuestion q = question("deepseek-v3", "h100-sxm");
  for (int dp : {8, 32, 64}) {
    INFO("dp " << dp);
    const Layout l{8, 4, dp, 1, 8, 1, Recompute::full, 2, 2 * dp * 16, 1, true};
    const StepParts direct = step_parts(q.model, l);
    StepParts split = replica_parts(q.model, l);
    // The replica alone: one rank, nothing to reduce, no send priced yet.
    CHECK(split.n_dp == 1);
    CHECK(split.grad_allreduce == 0);
    CHECK(split.p2p == 0);
    add_data_parallel(q.model, l, split);
    CHECK(split.per_micro == direct.per_micro);
    CHECK(split.ep_per_micro == direct.ep_per_micro);
    CHECK(split.p2p == direct.p2p);
    CHECK(split.p2p > 0);
    CHECK(split.n_dp == dp);
    CHECK(split.grad_allreduce == direct.grad_allreduce);
    CHECK(split.grad_allreduce > 0);
    CHECK(split.weight_gather == direct.weight_gather);
    CHECK(step_time(q.model, l, split).total.value() == step_time(q.model, l).total.value());
  }
}

TEST_CASE("layer parts kept by the degrees they depend on give step_parts bit for bit", "[train]") {
  // DeepSeek-V3 (dense and MoE layers, ep) at layouts that share tp, cp, ep, micro-batch and
  // sequence parallelism but not pp, recomputation or dp: one entry of the cache serves them all.
  const TrainQuestion q = question("deepseek-v3", "h100-sxm");
  LayerCache cache(q.model);
  const Layout layouts[] = {
      {8, 4, 32, 1, 8, 1, Recompute::full, 2, 1024, 1, true},  {8, 8, 16, 1, 8, 1, Recompute::none, 2, 1024, 1, true},
      {8, 16, 8, 1, 8, 2, Recompute::full, 2, 1024, 2, true},  {4, 4, 64, 2, 16, 1, Recompute::none, 1, 512, 1, true},
      {4, 8, 32, 2, 16, 3, Recompute::full, 1, 512, 1, true},  {1, 1, 8, 1, 1, 0, Recompute::none, 1, 8, 1, false},
      // A micro-batch beyond the key's width is computed afresh.
      {1, 1, 8, 1, 1, 0, Recompute::none, 1 << 21, 8 << 21, 1, false}};
  for (const Layout& l : layouts) {
    INFO("tp " << l.tp << " pp " << l.pp << " cp " << l.cp << " ep " << l.ep << " mb " << l.micro_batch);
    StepParts cached = replica_parts(q.model, l, cache.of(l));
    add_data_parallel(q.model, l, cached);
    const StepParts direct = step_parts(q.model, l);
    CHECK(cached.per_micro == direct.per_micro);
    CHECK(cached.recompute_micro == direct.recompute_micro);
    CHECK(cached.tp_per_micro == direct.tp_per_micro);
    CHECK(cached.cp_per_micro == direct.cp_per_micro);
    CHECK(cached.ep_per_micro == direct.ep_per_micro);
    CHECK(cached.bwd == direct.bwd);
    CHECK(cached.p2p == direct.p2p);
    CHECK(step_time(q.model, l, cached).total.value() == step_time(q.model, l).total.value());
  }
  // The first three share one entry, the next two another: asked again, the same parts.
  CHECK(&cache.of(layouts[0]) == &cache.of(layouts[1]));
  CHECK(cache.of(layouts[3]).attn_gemm == layer_parts(q.model, layouts[4]).attn_gemm);
}

TEST_CASE("the bounded search keeps the best layout under every pipeline schedule", "[train]") {
  // The group bound counts the bubble at the most chunks a group can interleave and one pipeline
  // send each way: 405B on 256 H100s and GPT-3 on 512 A100s pipeline their best layouts.
  for (auto [model, gpu, gpus] : {std::tuple{"llama-3.1-405b", "h100-sxm", 256}, std::tuple{"gpt3-175b", "a100-80gb", 512}})
    for (Schedule sched : {Schedule::searched, Schedule::one_f_one_b, Schedule::interleaved, Schedule::zero_bubble,
                           Schedule::dualpipe}) {
      INFO(model << " " << to_string(sched));
      TrainQuestion q = question(model, gpu);
      q.model.settings.train.schedule = sched;
      const double batch = q.target_batch(gpus);
      const SearchResult r = search_layouts(q.model, gpus, q.layout, batch, 1);
      REQUIRE(!r.top.empty());
      const double best = r.top.front().tokens_per_s;
      const SearchResult b = search_layouts(q.model, gpus, q.layout, batch, 1, true, best * (1 - 1e-9));
      REQUIRE(!b.top.empty());
      CHECK(b.top.front().tokens_per_s == best);
      CHECK(b.top.front().layout.interleave == r.top.front().layout.interleave);
      CHECK(any_layout_reaches(q.model, gpus, q.layout, batch, best * (1 - 1e-9)));
      CHECK_FALSE(any_layout_reaches(q.model, gpus, q.layout, batch, best * (1 + 1e-9)));
    }
}

TEST_CASE("a deadline no count can meet is no answer", "[train]") {
  TrainQuestion q = question("llama-3.1-405b", "h100-sxm");
  q.deadline = seconds(0.864);
  CHECK_THROWS_MATCHES(plan_training(q), Error, Catch::Matchers::Predicate<Error>([](const Error& e) {
                         return e.code() == Exit::no_answer && std::string(e.what()).find("no count of") == 0;
                       }));
  // Devices with no link between them (one RTX 4090 a machine in the catalog): one is all there is.
  TrainQuestion desk = question("llama-3.1-405b", "rtx-4090");
  desk.deadline = seconds(86.4);
  CHECK_THROWS_MATCHES(plan_training(desk), Error, Catch::Matchers::Predicate<Error>([](const Error& e) {
                         return e.code() == Exit::no_answer && std::string(e.what()).find("no interconnect") != std::string::npos;
                       }));
  desk.deadline = seconds(0);
  desk.gpus = 2;
  CHECK_THROWS_WITH(plan_training(desk), Catch::Matchers::Contains("no interconnect between the devices"));
}

TEST_CASE("fewer than 100 steps is more devices than the run can use", "[train]") {
  TrainQuestion q = question("llama-3.1-8b", "h100-sxm");
  q.gpus = 64;
  const TrainAnswer ok = plan_training(q);
  // 50 steps of the chosen batch: the batch shrinks to keep 100 steps (a fine-tuning dataset).
  q.tokens = 50 * ok.step_tokens;
  const TrainAnswer small = plan_training(q);
  CHECK(small.steps >= min_training_steps);
  CHECK(small.step_tokens < ok.step_tokens);
  // 50 sequences in all: not even one sequence a step on one rank makes 100 steps.
  q.tokens = 50.0 * q.model.settings.train.seq_len;
  CHECK_THROWS_AS(plan_training(q), Error);
}

TEST_CASE("checkpoint writes come out of goodput", "[train]") {
  TrainQuestion q = question("llama-3.1-8b", "h100-sxm");
  q.gpus = 64;
  StorageSystem sys;
  sys.id = "test";
  sys.read = bytes_per_s(10e9);
  sys.write = bytes_per_s(1e9);
  q.storage.system = &sys;
  q.storage.units = 2;
  q.storage.checkpoint = bytes(112e9);   // 8B x (2 weight + 12 optimizer) bytes
  q.storage.checkpoint_every = seconds(3600);
  const TrainAnswer a = plan_training(q);
  // 112 GB over 2 units of 1 GB/s: 56 s per checkpoint, once an hour of training.
  CHECK(a.storage.checkpoint_write.value() == Approx(56));
  CHECK(a.goodput == Approx(0.9 * (1 - 56.0 / 3656)));
  CHECK(a.wall.value() == Approx(a.steps * a.best.time.total.value() / a.goodput));
}

TEST_CASE("a global batch the user chose draws no batch warning", "[train]") {
  TrainQuestion q = question("llama-3.1-8b", "h100-sxm");
  q.gpus = 64;
  q.layout.global_batch = 64;  // the user's own batch: no batch warning
  CHECK(plan_training(q).warnings.empty());
}
