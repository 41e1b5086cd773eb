// Serving: one replica's operating point, the batch within targets, the tensor-parallel degree
// and the replica count, against the closed forms in serving.hpp.
#include <catch2/catch.hpp>

#include "gpuplan/analysis/serving.hpp"
#include "catalog_fixture.hpp"
#include "gpuplan/catalog/catalog.hpp"
#include "gpuplan/error.hpp"

using namespace gpuplan;
using Approx = Catch::Detail::Approx;

namespace {
const Catalog& cat() { return builtin_catalog(); }
InferModel served(const char* id, const char* gpu, int tp) {
  const ModelArch m = model_from_record(cat().get("models", id));
  const Device d = resolve_device(cat(), gpu);
  InferSettings s;
  s.tp = tp;
  s.context = 1300;
  return make_infer_model(m, count_params(m), d, d, s);
}
}  // namespace

TEST_CASE("a replica's capacity is B over O decode steps plus B prefills", "[serving]") {
  const InferModel im = served("llama-3.1-8b", "h100-sxm", 1);
  const Operating o = operate(im, 32, 1000, 300, 0);
  // vLLM prefills 8192 / 1000 = 8 prompts per step; each request pays an eighth of it.
  CHECK(o.prefill_s == Approx(prefill_time(im, 1000, 8).value() / 8));
  CHECK(o.step_s == Approx(decode_step_time(im, 32, 1000 + 150).value()));
  CHECK(o.capacity_rps == Approx(32 / (300 * o.step_s + 32 * o.prefill_s)));
  // No load: no queueing; a token takes one step and the first one the whole prefill step too.
  CHECK(o.tpot_s == Approx(o.step_s));
  CHECK(o.ttft_s == Approx(8 * o.prefill_s + o.step_s));
  // Under load the prefill takes a share rho of the time and stretches each token by 1 / (1 - rho).
  const Operating full = operate(im, 32, 1000, 300, 1.0);
  const double rho = std::min(0.95, full.capacity_rps * full.prefill_s);
  CHECK(full.tpot_s == Approx(full.step_s / (1 - rho)));
}

TEST_CASE("the best batch meets the targets and a tighter target lowers it", "[serving]") {
  const InferModel im = served("llama-3.1-8b", "h100-sxm", 1);
  const auto loose = best_batch(im, 512, 1000, 300, 2.0, 0.2);
  const auto tight = best_batch(im, 512, 1000, 300, 2.0, 0.02);
  REQUIRE(loose);
  REQUIRE(tight);
  CHECK(meets_targets(*loose, 2.0, 0.2));
  CHECK(meets_targets(*tight, 2.0, 0.02));
  CHECK(tight->batch < loose->batch);
  CHECK(tight->capacity_rps < loose->capacity_rps);
  CHECK_FALSE(best_batch(im, 512, 1000, 300, 0, 1e-6));  // no batch decodes a token in 1 us
}

TEST_CASE("tensor parallelism is the smallest power of two whose weights fit", "[serving]") {
  const ModelArch m8 = model_from_record(cat().get("models", "llama-3.1-8b"));
  const ModelArch m405 = model_from_record(cat().get("models", "llama-3.1-405b"));
  const Device h100 = resolve_device(cat(), "h100-sxm");
  InferSettings s;
  s.context = 4096;
  CHECK(choose_tp(m8, count_params(m8), h100, s, 8) == 1);
  // 405B at bf16 is 810 GB: no degree inside an 8 x 80 GB node holds it; the widest is returned.
  CHECK(choose_tp(m405, count_params(m405), h100, s, 8) == 8);
  // At fp8 (405 GB) eight devices hold it and four (320 GB) do not.
  s.bpw = 8;
  CHECK(choose_tp(m405, count_params(m405), h100, s, 8) == 8);
  CHECK(choose_tp(m405, count_params(m405), h100, s, 4) == 4);
}

TEST_CASE("replicas are the rate over a replica's capacity rounded up and bounded", "[serving]") {
  CHECK(replicas_for(10, 3, 2) == 4);
  CHECK(replicas_for(9, 3, 1) == 3);  // exact: no extra replica from rounding
  CHECK(replicas_for(0.1, 3, 8) == 1);
  CHECK_THROWS_AS(replicas_for(1e7, 1e-3, 1), Error);  // 1e10 devices
  CHECK_THROWS_AS(replicas_for(1, 0, 1), Error);       // no capacity at all
}
