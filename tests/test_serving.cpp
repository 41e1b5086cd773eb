// SPDX-License-Identifier: Apache-2.0
// Serving: one replica's operating point, the batch within targets, the tensor-parallel degree
// and the replica count, against the closed forms in serving.hpp.
#include <catch2/catch.hpp>

#include <cmath>

#include "gpuplan/records.hpp"
#include "gpuplan/analysis/cost.hpp"
#include "gpuplan/analysis/serving.hpp"
#include "catalog_fixture.hpp"
#include "gpuplan/catalog/catalog.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/scenario.hpp"
#include "gpuplan/settings.hpp"

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
// Llama 3.1 8B in BF16 with vLLM, sequences of 4,096 tokens: the prefix-caching tests' setup.
InferSettings vllm_bf16_4k(const ModelArch& m, const Device& d) {
  InferSettings s;
  s.runtime = Runtime::vllm;
  s.context = 4096;
  set_quant(s, "bf16", m, d);
  return s;
}

// A device's room for KV cache: what the weights, workspace and reserve leave.
double kv_room(const InferModel& im) {
  return (im.memory.capacity - im.memory.weights - im.memory.workspace - im.memory.reserve).value();
}
}  // namespace

TEST_CASE("a replica's capacity is B over O decode steps plus B prefills", "[serving]") {
  const InferModel im = served("llama-3.1-8b", "h100-sxm", 1);
  const Operating o = operate(im, 32, 1000, 300, 0);
  // vLLM prefills 8192 / 1000 = 8 prompts per step; each request pays an eighth of it.
  CHECK(o.prefill_s == Approx(prefill_time(im, 1000, 8).value() / 8));
  CHECK(o.step_s == Approx(decode_step_time(im, 32, 1000 + 150).value()));
  CHECK(o.capacity_rps == Approx(32 / (300 * o.step_s + 32 * o.prefill_s)));
  // No load: no queueing, and a request decodes alone: a token takes one sequence's step, and
  // the first one comes out of its own prompt's prefill step (no other in its chunk, and no other
  // sequence to decode in it), after vLLM's own 8.8 ms for a request.
  CHECK(o.step1_s == Approx(decode_step_time(im, 1, 1000 + 150).value()));
  CHECK(o.tpot_s == Approx(o.step1_s));
  CHECK(o.request_s == Approx(8.8e-3));
  CHECK(o.ttft_s == Approx(o.request_s + o.prefill_s));
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

// --- Queueing (serving.hpp): closed forms of M/M/1, M/D/1 and M/M/c. ---
TEST_CASE("M/M/1 waiting time mean and quantiles are the closed forms", "[serving]") {
  // lambda 3/s, service 0.25 s (mu 4/s, rho 0.75): P(wait) = rho, E[W] = rho / (mu - lambda),
  // P(W > t) = rho exp(-(mu - lambda) t).
  CHECK(erlang_c(1, 0.75) == Approx(0.75));
  CHECK(mean_wait(1, 3, 0.25, 1) == Approx(0.75 / 1));
  CHECK(wait_quantile(1, 3, 0.25, 1, 0.99) == Approx(std::log(0.75 / 0.01)));
  CHECK(wait_quantile(1, 3, 0.25, 1, 0.2) == 0);  // 25% of arrivals find it idle: the 20th percentile waits 0
  CHECK(mean_wait(1, 4, 0.25, 1) == HUGE_VAL);    // rho = 1: unbounded
}

TEST_CASE("M/D/1 mean wait is Pollaczek-Khinchine's rho S over 2 of 1 - rho", "[serving]") {
  for (double rho : {0.1, 0.5, 0.9, 0.99}) {
    const double s = 0.2, lambda = rho / s;
    CHECK(mean_wait(1, lambda, s, 0) == Approx(rho * s / (2 * (1 - rho))));
  }
}

TEST_CASE("Erlang C matches its textbook values and a direct sum at thousands of servers", "[serving]") {
  // M/M/2 at a = 1 (rho 0.5): B = (1/2) / (1 + 1 + 1/2) = 0.2, C = 0.2 / (1 - 0.5 x 0.8) = 1/3.
  CHECK(erlang_c(2, 1) == Approx(1.0 / 3));
  CHECK(erlang_c(10, 0) == 0);
  CHECK(erlang_c(10, 10) == 1);
  // The early-stopping sum against a full sum of Poisson terms in log space.
  for (const auto& [c, a] : {std::pair{64, 50.0}, std::pair{4096, 4000.0}, std::pair{4096, 3000.0}, std::pair{300, 299.5}}) {
    long double sum = 0;
    const long double log_tc = c * std::log(static_cast<long double>(a)) - std::lgamma(static_cast<long double>(c) + 1);
    for (int k = 0; k <= c; ++k)
      sum += std::exp(k * std::log(static_cast<long double>(a)) - std::lgamma(static_cast<long double>(k) + 1) - log_tc);
    const double b = static_cast<double>(1 / sum), rho = a / c;
    const double want = b / (1 - rho * (1 - b));
    CHECK(erlang_c(c, a) == Approx(want).margin(1e-15));
  }
}

TEST_CASE("under p99 targets a replica runs at the highest load that meets them", "[serving]") {
  const InferModel im = served("llama-3.1-8b", "h100-sxm", 1);
  const auto offline = best_batch(im, 512, 1000, 300, 0, 0);
  const auto server = best_batch(im, 512, 1000, 300, 0.5, 0.03);
  REQUIRE(offline);
  REQUIRE(server);
  CHECK(offline->sustained_rps == offline->capacity_rps);
  CHECK_FALSE(offline->ttft);  // full load: no arrival process, no percentiles
  CHECK(server->sustained_rps < server->capacity_rps);
  CHECK(server->sustained_rps < offline->sustained_rps);
  REQUIRE(server->ttft);
  REQUIRE(server->tpot);
  CHECK(server->ttft->p99 <= 0.5);
  CHECK(server->tpot->p99 <= 0.03);
  CHECK(server->ttft->p50 <= server->ttft->p90);
  CHECK(server->tpot->p90 <= server->tpot->p99);
  // A little more load breaks one of them: the load found is the highest.
  const Operating more = operate(im, server->batch, 1000, 300, server->load_share + 1e-3);
  CHECK_FALSE(meets_targets(more, 0.5, 0.03));
}

TEST_CASE("the deployment search tries each degree that divides the devices and ranks them", "[serving]") {
  const ModelArch m = model_from_record(cat().get("models", "llama-2-70b"));
  const Device d = resolve_device(cat(), "h100-sxm");
  InferSettings base;
  base.bpw = 8;  // fp8 weights: 70 GB, on one 80 GB device with little KV room
  base.context = 1300;
  const auto model_at = [&](int tp, int pp, int ep) {
    InferSettings s = base;
    s.tp = tp;
    s.pp = pp;
    s.ep = ep;
    return make_infer_model(m, count_params(m), d, d, s);
  };
  DeploymentQuestion q{1000, 300, 2.0, 0.2, ServingLoad{0, 0, 60, 8}, 1, 8, m.heads};
  const auto tried = try_deployments(q, model_at);
  REQUIRE(tried.size() == 4);  // tp 1, 2, 4, 8
  for (std::size_t i = 0; i < tried.size(); ++i) {
    CHECK(tried[i].tp == 1 << i);
    if (!tried[i].op) continue;
    CHECK(tried[i].devices == 8);
    // 8 / tp replicas, each at its sustained rate, each request O output tokens.
    CHECK(tried[i].throughput == Approx(8.0 / tried[i].tp * tried[i].op->sustained_rps * 300));
    CHECK(tried[i].evaluated > 0);
  }
  const Deployment* best = &tried[0];
  for (const auto& t : tried)
    if (better_deployment(t, *best, false)) best = &t;
  for (const auto& t : tried) CHECK_FALSE(better_deployment(t, *best, false));
  // A rate: the same degrees, each sized by ceil(rate / sustained) replicas.
  q.load.gpus = 0, q.load.rate = 50;
  for (const auto& t : try_deployments(q, model_at))
    if (t.op) CHECK(t.devices == t.tp * replicas_for(50, t.op->sustained_rps, t.tp));
  // Users: each degree sized for the rate its own latencies give, as size_deployment does.
  q.load.rate = 0, q.load.users = 3000;
  for (const auto& t : try_deployments(q, model_at))
    if (t.op)
      CHECK(t.devices == t.tp * replicas_for(3000 / (60 + t.op->ttft_s + 300 * t.op->tpot_s), t.op->sustained_rps, t.tp));
  // A degree that does not divide the devices is not tried.
  q.load = ServingLoad{0, 0, 60, 6}, q.widest_tp = 6;
  for (const auto& t : try_deployments(q, model_at)) CHECK(6 % t.tp == 0);
}

TEST_CASE("the chosen degree is the best deployment else the widest that fits", "[serving]") {
  Operating op;
  const auto tried_one = [&](int tp, int devices, bool serves, const char* why) {
    Deployment d;
    d.tp = tp, d.devices = devices, d.throughput = 100.0 / tp, d.why = why;
    if (serves) d.op = op;
    return d;
  };
  // For a load, fewest devices; tp 2 and 4 tie at 8, and the smaller degree wins.
  const std::vector<Deployment> tried{tried_one(1, 0, false, "does not fit"), tried_one(2, 8, true, ""),
                                      tried_one(4, 8, true, ""), tried_one(8, 16, true, "")};
  CHECK(chosen_degrees(tried, true, 1) == (Degrees{2, 1, 1}));
  // For the devices given, most throughput: 100 / tp is highest at tp 2 among those that serve.
  CHECK(chosen_degrees(tried, false, 1) == (Degrees{2, 1, 1}));
  // None serves: the widest that fits comes closest; none fits: the fallback.
  const std::vector<Deployment> none{tried_one(1, 0, false, "does not fit"),
                                     tried_one(2, 0, false, "no batch meets the latency targets"),
                                     tried_one(4, 0, false, "no batch meets the latency targets")};
  CHECK(chosen_degrees(none, true, 1) == (Degrees{4, 1, 1}));
  CHECK(chosen_degrees({tried_one(1, 0, false, "does not fit")}, true, 1) == (Degrees{1, 1, 1}));
}

TEST_CASE("a deployment is sized from a rate, from users, or from the devices given", "[serving]") {
  const InferModel im = served("llama-3.1-8b", "h100-sxm", 1);
  const auto best = best_batch(im, kv_batch_limit(im), 1000, 300, 2.0, 0.2);
  REQUIRE(best);
  ServingLoad rate;
  rate.rate = 50;
  const Sized r = size_deployment(im, 1000, 300, 2.0, 0.2, rate);
  CHECK(r.replicas == replicas_for(50, best->sustained_rps, 1));
  CHECK(r.gpus == r.replicas);
  CHECK(r.utilisation == Approx(50 / (r.replicas * best->capacity_rps)));
  CHECK(r.throughput == Approx(50 * 300));
  // 600 users who think 60 s between replies: rate = users / (think + TTFT + O x TPOT).
  ServingLoad users;
  users.users = 600;
  const Sized u = size_deployment(im, 1000, 300, 2.0, 0.2, users);
  CHECK(u.rate == Approx(600 / (60 + best->ttft_s + 300 * best->tpot_s)));
  // Eight devices given: eight replicas, each at its sustained rate.
  ServingLoad fixed;
  fixed.gpus = 8;
  const Sized f = size_deployment(im, 1000, 300, 2.0, 0.2, fixed);
  CHECK(f.replicas == 8);
  CHECK(f.load_rps == Approx(8 * best->sustained_rps));
  CHECK(f.utilisation == Approx(best->sustained_rps / best->capacity_rps));
  // Impossible: no batch decodes a token in a microsecond; 405B at bf16 on one device.
  CHECK_THROWS_AS(size_deployment(im, 1000, 300, 0, 1e-6, rate), Error);
  CHECK_THROWS_AS(size_deployment(served("llama-3.1-405b", "h100-sxm", 1), 1000, 300, 2.0, 0.2, rate), Error);
}

TEST_CASE("latency targets come from the flags then the MLPerf scenario", "[serving]") {
  // MLPerf Inference Llama-2-70B: server 2 s / 200 ms; interactive 450 ms / 40 ms.
  const LatencyTargets server = latency_targets("server", 0, 0, false);
  CHECK((server.ttft == 2.0 && server.tpot == 0.2 && !server.origin.empty()));
  const LatencyTargets interactive = latency_targets("interactive", 0.3, 0, false);
  CHECK((interactive.ttft == 0.3 && interactive.tpot == 0.04));  // the flag wins over the scenario
  const LatencyTargets users = latency_targets("", 0, 0, true);
  CHECK((users.ttft == 2.0 && users.tpot == 0.2));
  const LatencyTargets offline = latency_targets("offline", 0, 0, true);
  CHECK((offline.ttft == 0 && offline.tpot == 0 && offline.origin.empty()));
  const LatencyTargets given = latency_targets("", 1.0, 0, true);
  CHECK((given.ttft == 1.0 && given.tpot == 0 && given.origin.empty()));
}

TEST_CASE("one stream is a prefill then steps over the prompt and half the reply", "[serving]") {
  const InferModel im = served("llama-3.1-8b", "h100-sxm", 1);
  const SingleStream one = single_stream(im, 1000, 300);
  CHECK(one.prefill_s == Approx(prefill_time(im, 1000, 1).value()));
  CHECK(one.step_s == Approx(decode_step_time(im, 1, 1150).value()));
  // The prompt's pass samples the first token, after vLLM's own time for a request.
  CHECK(one.ttft_s() == Approx(8.8e-3 + one.prefill_s));
  InferModel trt = im;
  trt.settings.runtime = Runtime::tensorrt_llm;
  CHECK(single_stream(trt, 1000, 300).request_s == 0);
}

TEST_CASE("per million tokens divides an hourly figure by the tokens of an hour", "[serving]") {
  // $72 an hour at 20,000 tokens/s: 72 million tokens an hour, $1 per million.
  CHECK(*per_million_tokens(72.0, 20000) == Approx(1.0));
  CHECK_FALSE(per_million_tokens(std::nullopt, 20000));
  CHECK_FALSE(per_million_tokens(72.0, 0));
}

namespace {
// A serving question on H100s for Llama 3.1 8B, bf16 weights and KV cache, vLLM.
ServingQuestion question_8b() {
  ServingQuestion q;
  q.model = model_from_record(cat().get("models", "llama-3.1-8b"));
  q.params = count_params(q.model);
  q.device = resolve_device(cat(), "h100-sxm");
  q.host = resolve_device(cat(), "cpu-server");
  q.settings.runtime = Runtime::vllm;
  q.settings.context = 4096;
  q.compute = default_efficiency(q.device);
  q.decode = serving_decode_efficiency(q.device);
  return q;
}
}  // namespace

TEST_CASE("the serving question fills in the request and sizes the cache for it", "[serving]") {
  ServingQuestion q = question_8b();
  SECTION("a laptop question: the default chat turn, the settings' context, one device") {
    const ServingAnswer a = answer_serving(q);
    CHECK(a.prompt == default_prompt);
    CHECK(a.output == default_output);
    CHECK(a.settings.context == 4096);
    CHECK_FALSE(a.serving);
    CHECK_FALSE(a.sized);
    CHECK(a.gpus == a.settings.tp);
    CHECK(a.runs);
  }
  SECTION("a context without a prompt length is a conversation that fills it") {
    q.context = 8192;
    q.output_tokens = 192;
    const ServingAnswer a = answer_serving(q);
    CHECK(a.prompt == 8000);
    CHECK(a.settings.context == 8192);
  }
  SECTION("a load sizes the cache for its requests and the devices for its rate") {
    q.rate = 10;
    q.ttft_s = 2, q.tpot_s = 0.2;
    q.prompt_tokens = 1000, q.output_tokens = 500;
    const ServingAnswer a = answer_serving(q);
    CHECK(a.serving);
    CHECK(a.settings.context == 1500);
    REQUIRE(a.sized);
    CHECK(a.gpus == a.sized->gpus);
    CHECK(a.sized->gpus % a.settings.tp == 0);
  }
  SECTION("what cannot be served is refused") {
    q.rate = 10;  // no target
    CHECK_THROWS_WITH(answer_serving(q), Catch::Matchers::Contains("needs a latency target"));
    q.rate = 0;
    q.tp = 3;  // 32 heads
    CHECK_THROWS_WITH(answer_serving(q), Catch::Matchers::Contains("tp 3 does not divide the 32 attention heads"));
    q.tp = 2, q.gpus = 3;
    CHECK_THROWS_WITH(answer_serving(q), Catch::Matchers::Contains("gpus 3 is not a multiple"));
  }
}

TEST_CASE("a serving runtime's decode batch runs its GEMMs on the training model's curve", "[serving]") {
  // Llama 3.1 8B in FP8 on an H100, tp 1: the MLP's first GEMM is batch x 4,096 by 4,096 x
  // 28,672 (gate and up), at FP8's ceiling of 71%. Mixtral's dense part is its attention, whose QKV
  // projection is batch x 4,096 by 4,096 x (4,096 + 2 x 1,024); its experts run as one grouped GEMM
  // of the batch's two copies of each token, batch x 2 rows by 4,096 x 28,672.
  InferSettings s;
  s.runtime = Runtime::vllm;
  s.quant = "fp8";
  s.compute = DType::fp8;
  const Device h100 = resolve_device(cat(), "h100-sxm");
  const ModelArch m = model_from_record(cat().get("models", "llama-3.1-8b"));
  const InferModel im = make_infer_model(m, count_params(m), h100, h100, s);
  const double half = gemm_half_of(h100);
  CHECK(linear_efficiency(im, 256) == Approx(gemm_curve(0.71, half, 256, 4096, 28672)));
  // 0.71 x 4096 / (4096 + 2.5 half) x T / (T + 50), T = 256 x 28672 / 128^2 = 448 tiles.
  CHECK(linear_efficiency(im, 256) == Approx(0.71 * 4096 / (4096 + 2.5 * half) * 448 / 498.0));
  const ModelArch mx = model_from_record(cat().get("models", "mixtral-8x7b"));
  const InferModel imx = make_infer_model(mx, count_params(mx), h100, h100, s);
  CHECK(linear_efficiency(imx, 256) == Approx(gemm_curve(0.71, half, 256, 4096, 6144)));
  // Under vLLM on Hopper its Triton kernels cap that at 309.2 GFLOP in 1,647.57 us (188 TFLOP/s,
  // vLLM PR #24700's H100 benchmark), 0.095 of the FP8 peak; TensorRT-LLM's keep the curve.
  CHECK(expert_efficiency(imx, 256) == Approx(309237645312.0 / 1647.57e-6 / h100.peak_for(DType::fp8).value()));
  CHECK(expert_efficiency(imx, 256) == Approx(0.0948).epsilon(0.001));
  InferSettings trt = s;
  trt.runtime = Runtime::tensorrt_llm;
  CHECK(expert_efficiency(make_infer_model(mx, count_params(mx), h100, h100, trt), 256) ==
        Approx(gemm_curve(0.71, half, 512, 4096, 2 * 14336.0)));
  // The linear layers' time: the dense FLOPs at the first, the routed experts' at the second.
  const ParamCounts pc = count_params(mx);
  const double routed = 32.0 * 2 * pc.expert, dense = pc.active - pc.embedding - pc.output - routed;
  const double peak = h100.peak_for(DType::fp8).value();
  // A decode step's 256 rows each sample logits through the output projection (head).
  CHECK(linear_compute(imx, 256, 1, 256).value() ==
        Approx(2 * (dense + pc.head) * 256 / (peak * linear_efficiency(imx, 256)) +
               2 * routed * 256 / (peak * expert_efficiency(imx, 256))));
  // A dense model's is its FLOPs at the one efficiency; a prefill of one 256-token prompt samples
  // its last position alone.
  const ParamCounts p8 = count_params(m);
  const double blocks = p8.active - p8.embedding - p8.output;
  CHECK(linear_compute(im, 256, 1, 256).value() == Approx(2 * (blocks + p8.head) * 256 / (peak * linear_efficiency(im, 256))));
  CHECK(linear_compute(im, 256, 1, 1).value() == Approx(2 * (blocks * 256 + p8.head) / (peak * linear_efficiency(im, 256))));
}

TEST_CASE("an MoE decode step grows with the experts a batch touches not with batch x k", "[serving]") {
  // DeepSeek-R1 at FP8 on 8 H200 at tp 8: the step reads each touched expert once, and its grouped
  // GEMMs see the batch's token copies together, so 64 sequences cost far less than 64 single ones
  // (the weights read grow by the touched experts, 256 (1 - (1 - 8/256)^64) = 222 of 256 against 8).
  InferSettings s;
  s.runtime = Runtime::sglang;
  s.tp = 8;
  s.quant = "fp8";
  s.bpw = 8;
  s.compute = DType::fp8;
  s.context = 2048;
  const Device h200 = resolve_device(cat(), "h200");
  const ModelArch m = model_from_record(cat().get("models", "deepseek-r1"));
  const InferModel im = make_infer_model(m, count_params(m), h200, h200, s);
  const double one = decode_step_time(im, 1, 1000).value(), many = decode_step_time(im, 64, 1000).value();
  CHECK(many / one < 8);
  CHECK(many > one);
  // The weights a step reads: every layer's dense part and touched experts, over tp, and MLA's
  // down-projections whole on every device (7168 x (1536 + 512 + 64) a layer, 61 layers, FP8).
  const ParamCounts pc = count_params(m);
  const double touched = 256 * (1 - std::pow(1 - 8.0 / 256, 64));
  const double replicated = 61.0 * 7168 * (1536 + 512 + 64);
  CHECK(decode_weight_bytes(im, 64).value() ==
        Approx((pc.total - pc.embedding - 58.0 * pc.expert * (256 - touched)) / 8 + replicated * (1 - 1.0 / 8)));
  // The same share in the weights each device holds, and in every token's linear FLOPs.
  CHECK(im.memory.weights.value() == Approx(pc.total / 8 + replicated * (1 - 1.0 / 8)));
  InferSettings one_device = s;
  one_device.tp = 1;
  const InferModel whole = make_infer_model(m, pc, h200, h200, one_device);
  CHECK(whole.memory.weights.value() == Approx(pc.total));
}

TEST_CASE("a closed loop at a fixed concurrency obeys Little's law with M/D/1 prefill queueing", "[serving]") {
  // 20 users always in flight on one replica of Llama 3.1 8B: n = 20 in the batch, TPOT = step(20)
  // + 20 / O x prefill, and the rate x with x (TTFT + (O - 1) TPOT) = n, where TTFT = prefill +
  // rho / (2 (1 - rho)) prefill + step(19) + vLLM's 8.8 ms a request, rho = x prefill
  // (Pollaczek-Khinchine, deterministic service): the prompt's step samples its first token and
  // decodes the 19 others.
  ServingQuestion q = question_8b();
  InferSettings s = q.settings;
  s.context = 1500;
  const InferModel im = make_infer_model(q.model, q.params, q.device, q.host, s);
  const double P = 1000, O = 500;
  const Sized z = size_concurrent(im, P, O, 20, 1);
  const double prefill = prefill_time(im, 1000, 1).value(), step = decode_step_time(im, 20, P + O / 2).value();
  CHECK(z.op.batch == 20);
  CHECK(z.op.tpot_s == Approx(step + 20 / O * prefill));
  const double x = z.load_rps, rho = x * prefill;
  const double others = decode_step_time(im, 19, P + O / 2).value();
  CHECK(z.op.ttft_s == Approx(8.8e-3 + prefill + rho / (2 * (1 - rho)) * prefill + others).epsilon(1e-6));
  CHECK(x * (z.op.ttft_s + (O - 1) * z.op.tpot_s) == Approx(20).epsilon(1e-6));
  CHECK(z.throughput == Approx(x * O));
  // Twice the users on two replicas: each replica sees the same; the deployment carries twice.
  const Sized two = size_concurrent(im, P, O, 40, 2);
  CHECK(two.op.ttft_s == Approx(z.op.ttft_s));
  CHECK(two.throughput == Approx(2 * z.throughput));
  CHECK(two.gpus == 2);
  // More users than the cache holds: the rest wait for a slot, which frees every 1 / x seconds.
  const int slots = kv_batch_limit(im);
  const Sized over = size_concurrent(im, P, O, slots + 10, 1);
  CHECK(over.op.batch == slots);
  const double x_full = over.load_rps, rho_full = x_full * prefill;
  CHECK(over.op.ttft_s == Approx(8.8e-3 + prefill + rho_full / (2 * (1 - rho_full)) * prefill +
                                  decode_step_time(im, slots - 1, P + O / 2).value() + 10 / x_full)
                              .epsilon(1e-6));
}

TEST_CASE("a think time of zero means a fixed concurrency not the default minute", "[serving]") {
  ServingQuestion q = question_8b();
  q.users = 8;
  q.scenario = "offline";
  q.think_s = 0;
  q.prompt_tokens = 1000, q.output_tokens = 500;
  const ServingAnswer a = answer_serving(q);
  REQUIRE(a.sized);
  CHECK(a.sized->op.batch == 8);
  CHECK(a.load.think_s == 0);
  q.think_s = -1;  // not given: a minute, said so
  const ServingAnswer b = answer_serving(q);
  CHECK(b.load.think_s == default_think);
  CHECK(std::any_of(b.assumptions.begin(), b.assumptions.end(), [](const Assumption& x) { return x.name == "think time"; }));
}

TEST_CASE("pipeline stages split a replica's layers across nodes", "[serving]") {
  // Llama 3.1 405B in bf16 on H100s: a node of 8 cannot hold it; tp 8 x pp 2 can. A stage holds
  // ceil(126 / 2) = 63 of the 126 layers' blocks and the larger of the embedding and output layer,
  // and that share of each sequence's KV cache.
  const ModelArch m = model_from_record(cat().get("models", "llama-3.1-405b"));
  const ParamCounts pc = count_params(m);
  const Device h100 = resolve_device(cat(), "h100-sxm");
  InferSettings s;
  s.tp = 8;
  s.context = 1300;
  const InferModel one = make_infer_model(m, pc, h100, h100, s);
  CHECK_FALSE(one.memory.fits());
  s.pp = 2;
  const InferModel two = make_infer_model(m, pc, h100, h100, s);
  CHECK(two.memory.fits());
  CHECK(two.memory.weights.value() == Approx(((pc.total - pc.embedding - pc.output) * 63 / 126 + std::max(pc.embedding, pc.output)) * 2 / 8));
  CHECK(two.memory.kv_per_token.value() == Approx(one.memory.kv_per_token.value() / 2));
  // A token of each micro-batch crosses both stages: one tp-8 group's step over all the layers at
  // the micro-batch (64 of 128), plus a send of its 16-bit hidden states over the scale-out link.
  const double send = 64 * 16384 * 2.0 / (h100.scale_out.bw_per_direction.value() * default_efficiency(h100).link) +
                      h100.scale_out.latency.value();
  CHECK(decode_step_time(two, 128, 1000).value() == Approx(decode_step_time(one, 64, 1000).value() + send));
  // Sixteen devices: the search pipelines the node-wide degree rather than refuse.
  ServingQuestion q;
  q.model = m, q.params = pc, q.device = h100, q.host = resolve_device(cat(), "cpu-server");
  q.compute = default_efficiency(h100), q.decode = serving_decode_efficiency(h100);
  q.gpus = 16;
  const ServingAnswer a = answer_serving(q);
  CHECK(a.settings.tp == 8);
  CHECK(a.settings.pp == 2);
  REQUIRE(a.sized);
  CHECK(a.sized->gpus == 16);
  // Pipeline stages are a serving runtime's: llama.cpp splits layers across its --tp devices.
  q.settings.runtime = Runtime::llama_cpp;
  q.pp = 2;
  CHECK_THROWS_AS(answer_serving(q), Error);
}

TEST_CASE("speculative decoding yields the expected accepted run per verification", "[serving]") {
  // Leviathan et al. 2023, equation 1: (1 - a^(k+1)) / (1 - a). k 4 at 0.8: (1 - 0.32768) / 0.2.
  CHECK(spec_tokens_per_step(4, 0.8) == Approx((1 - 0.32768) / 0.2));
  CHECK(spec_tokens_per_step(4, 0) == 1);
  CHECK(spec_tokens_per_step(4, 1) == 5);
  CHECK(spec_tokens_per_step(0, 0.5) == 1);
  // A step: the target verifies k + 1 tokens a sequence in one pass, after k draft steps.
  const Device h100 = resolve_device(cat(), "h100-sxm");
  const ModelArch m = model_from_record(cat().get("models", "llama-3.1-70b"));
  const ModelArch small = model_from_record(cat().get("models", "llama-3.2-1b"));
  InferSettings s;
  s.tp = 2;
  s.context = 1300;
  s.quant = "fp8", s.bpw = 8;  // 35 GB a device: room for a cache
  const InferModel plain = make_infer_model(m, count_params(m), h100, h100, s);
  s.spec_tokens = 4, s.spec_accept = 0.8;
  const InferModel head = make_infer_model(m, count_params(m), h100, h100, s);
  const InferModel drafted = with_draft(head, small, count_params(small));
  // At batch 1 a pass is bound by the weights it streams, so verifying 5 rows costs one step; a
  // one-layer head costs a layer's share of one.
  const double step = decode_step_time(plain, 1, 1000).value();
  CHECK(decode_step_time(head, 1, 1000).value() ==
        Approx((step + 4 * step / 80) / spec_tokens_per_step(4, 0.8)).epsilon(0.02));
  InferModel draft_alone = *drafted.draft;
  CHECK(decode_step_time(drafted, 1, 1000).value() ==
        Approx((step + 4 * decode_step_time(draft_alone, 1, 1000).value()) / spec_tokens_per_step(4, 0.8)).epsilon(0.02));
  // The draft's weights and cache join the target's on the devices.
  CHECK(drafted.memory.weights.value() == Approx(head.memory.weights.value() + drafted.draft->memory.weights.value()));
  REQUIRE(kv_batch_limit(head) > 0);
  CHECK(kv_batch_limit(drafted) < kv_batch_limit(head));
}

TEST_CASE("speculative decoding needs its acceptance rate", "[serving]") {
  Scenario s;
  apply_setting(s, "model", "llama-3.1-8b");
  apply_setting(s, "draft-tokens", "4");
  const Job j = resolve(s, cat());
  CHECK_THROWS_AS(resolve_infer(s, j), Error);
  Scenario t;
  apply_setting(t, "model", "llama-3.1-8b");
  apply_setting(t, "accept", "0.7");
  CHECK_THROWS_AS(resolve_infer(t, resolve(t, cat())), Error);
  apply_setting(s, "accept", "0.7");
  CHECK(resolve_infer(s, j).spec_accept == 0.7);
}

TEST_CASE("expert parallelism with data-parallel attention shards the routed experts", "[serving]") {
  // Mixtral 8x7B in FP8 on 8 H100s at ep 8: every device keeps the dense part (attention, norms,
  // router, embeddings) whole and 1 of the 8 routed experts of each layer, and its own sequences'
  // caches, so the replica holds 8 times one device's sequences.
  const ModelArch m = model_from_record(cat().get("models", "mixtral-8x7b"));
  const ParamCounts pc = count_params(m);
  const Device h100 = resolve_device(cat(), "h100-sxm");
  InferSettings s;
  s.quant = "fp8", s.bpw = 8, s.compute = DType::fp8, s.context = 1300, s.ep = 8;
  const InferModel im = make_infer_model(m, pc, h100, h100, s);
  const double routed = 32.0 * 8 * pc.expert;
  CHECK(routed_expert_params(m, pc) == Approx(routed));
  CHECK(im.memory.weights.value() == Approx(pc.total - routed + routed / 8));
  const double room = kv_room(im);
  CHECK(kv_batch_limit(im) == 8 * static_cast<int>(room / kv_cache_bytes(m, 2, 1, 1300, 1).value()));
  // One sequence, each part on its roofline: the dense part (streamed, or its GEMMs of one row on
  // the curve, whichever is slower), its cache, the quarter of this device's expert that two of
  // eight experts touch (1 - (1 - 2/8)^1) with its quarter-token of work, two all-to-alls of its 2
  // copies of 4,096 16-bit values, 7/8 of them leaving over NVLink, the per-layer overhead,
  // each MoE layer's fused-expert floor of 27 us, and vLLM's quantisation of the FP8 GEMMs' inputs:
  // 4 calls a layer at 2.4 us, and 3 bytes an element of the row's QKV and MLP inputs (4,096 each),
  // output-projection input (4,096) and its two experts' inputs (14,336 each).
  const double bw = h100.memory_bw.value() * im.decode.bandwidth, peak = h100.peak_for(DType::fp8).value();
  const double half = gemm_half_of(h100);
  const double dense = pc.total - pc.embedding - routed, dense_active = pc.active - pc.embedding - 32 * 2 * pc.expert;
  const double t_dense = std::max(dense / bw, 2 * dense_active / (peak * gemm_curve(0.71, half, 1, 4096, 4096)));
  const double t_experts =
      std::max(32 * 0.25 * pc.expert / bw, 2 * (2.0 / 8) * 32 * pc.expert / (peak * gemm_curve(0.71, half, 1, 4096, 2 * 14336.0)));
  const double a2a = 2 * 32 * (2 * 4096 * 2 * 7.0 / 8 / (h100.scale_up.bw_per_direction.value() * im.compute.link) +
                              h100.scale_up.latency.value());
  const double quant = 4 * 32 * 2.4e-6 + 3.0 * 32 * (2 * 4096 + 4096 + 2 * 14336) / bw;
  const double expected = t_dense + kv_cache_bytes(m, 2, 1, 1000, 1).value() / bw + t_experts + a2a +
                          32 * im.decode.per_layer.value() + 32 * 27e-6 + quant;
  CHECK(decode_step_time(im, 1, 1000).value() == Approx(expected).epsilon(1e-6));
  CHECK(degrees_text(s) == "ep 8 (data-parallel attention)");
  CHECK(replica_devices(s) == 8);
}

TEST_CASE("tensor-parallel decode reduces its activations with the runtimes' one-shot kernel", "[serving]") {
  // SGLang PR 2904's H100 line: at tp 8, 7.0 us + bytes / 37.4 GB/s; B200's NVLink 5 carries twice
  // H100's 450 GB/s, so its bandwidth term halves. One token of gpt-oss-120b (2,880 wide, 16 bits)
  // at tp 8 on B200: 7.0 us + 5,760 / 74.8 GB/s.
  const Device h100 = resolve_device(cat(), "h100-sxm"), b200 = resolve_device(cat(), "b200");
  CHECK(custom_allreduce_s(h100, 4096, 8) == Approx(7.0e-6 + 4096 / 37.4e9));
  CHECK(custom_allreduce_s(h100, 4096, 2) == Approx(3.9e-6 + 4096 / 64.6e9));
  CHECK(custom_allreduce_s(b200, 5760, 8) == Approx(7.0e-6 + 5760 / 74.8e9));
  // A decode step at one token pays two a layer, 36 layers: going from tp 8's to the ring's price
  // (two hops of the link's latency and the ring's bytes) would add exactly their difference.
  const ModelArch m = model_from_record(cat().get("models", "gpt-oss-120b"));
  const ParamCounts pc = count_params(m);
  InferSettings s;
  s.quant = "mxfp4", s.bpw = 4.25, s.compute = DType::fp4, s.context = 2048, s.tp = 8, s.runtime = Runtime::sglang;
  const InferModel im = make_infer_model(m, pc, b200, b200, s);
  const double ring = switched_allreduce_s(5760, 8, b200.scale_up.bw_per_direction.value() * im.compute.link,
                                           b200.scale_up.latency.value());
  const double one_shot = custom_allreduce_s(b200, 5760, 8);
  REQUIRE(one_shot < ring);
  InferModel pcie = im;
  pcie.device.scale_up.id = "pcie";  // no NVLink: the ring's price
  CHECK(decode_step_time(pcie, 1, 1000).value() - decode_step_time(im, 1, 1000).value() ==
        Approx(2 * 36 * (ring - one_shot)).epsilon(1e-6));
}

TEST_CASE("MLA decode attention runs in 16 bits at FlashMLA's measured rate", "[serving]") {
  // DeepSeek-V3 on 8 B200 at ep 8: 512 sequences a rank. Between 4,000 and 8,000 cached tokens
  // only attention grows. Each key read costs 61 layers x 278,528 FLOPs (the absorbed form) and
  // 576 bytes of an FP8 latent (1,152 in bf16), 483 (242) FLOPs a byte, above B200's
  // 2.25 PFLOP/s x 660 / 989 over 8 TB/s x 0.85 = 221: compute-bound either way. FlashMLA
  // dequantises an FP8 cache to bf16 for its products, so the cache's type does not change the
  // step's growth: 512 x 4,000 x 61 x 278,528 / (2.25e15 x 660 / 989).
  const ModelArch m = model_from_record(cat().get("models", "deepseek-v3"));
  const ParamCounts pc = count_params(m);
  const Device b200 = resolve_device(cat(), "b200");
  InferSettings s;
  s.quant = "fp8", s.bpw = 8, s.compute = DType::fp8, s.context = 9000, s.ep = 8, s.runtime = Runtime::sglang;
  const double growth = 512.0 * 4000 * 61 * 278528 / (b200.peak_for(DType::bf16).value() * 660 / 989);
  for (const double kv_bytes : {1.0, 2.0}) {
    s.kv_elem_bytes = kv_bytes;
    const InferModel im = make_infer_model(m, pc, b200, b200, s);
    CHECK(decode_step_time(im, 8 * 512, 8000).value() - decode_step_time(im, 8 * 512, 4000).value() ==
          Approx(growth).epsilon(1e-6));
  }
}

TEST_CASE("the deployment search serves a large MoE model expert-parallel", "[serving]") {
  // DeepSeek-V3 in FP8 on 16 H100s: a node cannot hold it; tp 8 x pp 2 can, and so can ep 16,
  // which carries more (the chosen one is the better of the two).
  const ModelArch m = model_from_record(cat().get("models", "deepseek-v3"));
  const Device h100 = resolve_device(cat(), "h100-sxm");
  ServingQuestion q;
  q.model = m, q.params = count_params(m), q.device = h100, q.host = resolve_device(cat(), "cpu-server");
  q.compute = default_efficiency(h100), q.decode = serving_decode_efficiency(h100);
  q.settings.quant = "fp8", q.settings.bpw = 8, q.settings.compute = DType::fp8;
  q.gpus = 16;
  const ServingAnswer a = answer_serving(q);
  const Deployment* pipelined = nullptr;
  const Deployment* expert = nullptr;
  for (const auto& d : a.tried) {
    if (d.op && d.pp == 2) pipelined = &d;
    if (d.op && d.ep == 16) expert = &d;
  }
  REQUIRE(pipelined);
  REQUIRE(expert);
  CHECK(a.settings.ep == (expert->throughput > pipelined->throughput ? 16 : 1));
  // Expert parallelism serves with data-parallel attention: not beside --tp.
  q.tp = 2, q.ep = 8;
  CHECK_THROWS_AS(answer_serving(q), Error);
}

TEST_CASE("the wait before a prefill has closed-form parts", "[serving]") {
  // A batch slot alone: P(W > t) = C exp(-k t), so the p-quantile is ln(C / (1 - p)) / k.
  TtftWait slot;
  slot.slot_waits = 0.5, slot.slot_rate = 4;
  CHECK(slot.quantile(0.99) == Approx(std::log(0.5 / 0.01) / 4).epsilon(1e-5));
  CHECK(slot.quantile(0.4) == 0);  // half of arrivals find a slot
  CHECK(slot.mean() == Approx(0.5 / 4));
  // The decode iteration in progress alone, met always: uniform on [0, 30 ms].
  TtftWait iteration;
  iteration.iteration_s = 0.03, iteration.decoding = 1;
  CHECK(iteration.quantile(0.5) == Approx(0.015).epsilon(1e-5));
  CHECK(iteration.quantile(0.9) == Approx(0.027).epsilon(1e-5));
  CHECK(iteration.mean() == Approx(0.015));
  // Two exponential waits that always happen sum to a hypoexponential: P(W > t) =
  // (b e^(-a t) - a e^(-b t)) / (b - a); at rates 2 and 5, t = 1: (5 e^-2 - 2 e^-5) / 3.
  TtftWait both;
  both.prefill_waits = 1, both.prefill_rate = 2, both.slot_waits = 1, both.slot_rate = 5;
  CHECK(both.exceeds(1) == Approx((5 * std::exp(-2.0) - 2 * std::exp(-5.0)) / 3));
  CHECK(both.mean() == Approx(0.5 + 0.2));
  // The uniform smears that tail: P(U + W > t) = (1/r) integral of P(W > t - u) over [0, r];
  // at r = 1, t = 2 and one wait at rate 2: (e^-2 - e^-4) / 2.
  TtftWait smeared;
  smeared.iteration_s = 1, smeared.decoding = 1, smeared.prefill_waits = 1, smeared.prefill_rate = 2;
  CHECK(smeared.exceeds(2) == Approx((std::exp(-2.0) - std::exp(-4.0)) / 2));
  CHECK(smeared.exceeds(0.5) == Approx(0.5 + (1 - std::exp(-1.0)) / 2));
}

TEST_CASE("TTFT percentiles under Poisson arrivals spread with the load", "[serving]") {
  const InferModel im = served("llama-3.1-8b", "h100-sxm", 1);
  const Operating light = operate(im, 32, 1000, 300, 0.2);
  const Operating heavy = operate(im, 32, 1000, 300, 0.8);
  REQUIRE(light.ttft);
  REQUIRE(heavy.ttft);
  CHECK(light.ttft->p50 < light.ttft->p90);
  CHECK(light.ttft->p90 < light.ttft->p99);
  CHECK(heavy.ttft->p99 - heavy.ttft->p50 > light.ttft->p99 - light.ttft->p50);
  // At no load nothing is in progress: the TTFT is the request's own prefill step, which samples
  // its first token; under load that step also decodes the sequences running, there with
  // probability 1 - exp(-lambda O TPOT).
  const Operating idle = operate(im, 32, 1000, 300, 0);
  CHECK(idle.ttft_s == Approx(idle.request_s + idle.prefill_s));
  // Under load the steps are those of the sequences decoding, lambda x their time in the replica
  // (Little's law), between one sequence's step and the full batch's.
  CHECK(light.tpot_s < heavy.tpot_s);
  CHECK(light.tpot->p50 > light.step1_s);
  CHECK(heavy.tpot->p50 < heavy.step_s / (1 - heavy.capacity_rps * 0.8 * heavy.stall_s));
}

TEST_CASE("tensor-parallel attention with experts whole across the devices steps as tensor parallelism", "[serving]") {
  // --tp 8 --ep 8 places each MoE layer's experts whole, 32 a device, where tp 8 splits each of
  // them eight ways: the same bytes a device reads, the same FLOPs and all-reduces.
  ServingQuestion q;
  q.model = model_from_record(cat().get("models", "deepseek-r1"));
  q.params = count_params(q.model);
  q.device = resolve_device(cat(), "h200");
  q.host = q.device;
  q.settings.runtime = Runtime::sglang;
  set_quant(q.settings, "fp8", q.model, q.device);
  q.compute = default_efficiency(q.device);
  q.decode = serving_decode_efficiency(q.device);
  q.gpus = 8;
  q.tp = 8;
  const ServingAnswer tp = answer_serving(q);
  q.ep = 8;
  const ServingAnswer tpep = answer_serving(q);
  CHECK(tpep.settings.experts_whole);
  CHECK(tpep.settings.ep == 1);
  CHECK(degrees_text(tpep.settings) == "tp 8 ep 8");
  CHECK(tpep.single.step_s == Approx(tp.single.step_s));
  CHECK(tpep.model.memory.weights.value() == Approx(tp.model.memory.weights.value()));
  q.ep = 4;
  CHECK_THROWS_AS(answer_serving(q), Error);
}

TEST_CASE("a fused MoE call streams the touched experts' slices and pays its floor", "[serving]") {
  // Mixtral 8x7B in BF16 at tp 2 on an H100, one token: 2 of the 8 experts, each device reading
  // its half of each (3 x 4,096 x 14,336 / 2 parameters, 2 bytes), at the Hopper streaming
  // efficiency 0.88 of 3.35 TB/s, plus the 27 us floor: 352 MB / 2.95 TB/s + 27 us = 146.5 us
  // (vLLM's benchmark_moe.py measured 144.0 us, vLLM PR #24700).
  const ModelArch m = model_from_record(cat().get("models", "mixtral-8x7b"));
  const Device h100 = resolve_device(cat(), "h100-sxm");
  InferSettings s;
  s.runtime = Runtime::vllm;
  s.tp = 2;
  set_quant(s, "bf16", m, h100);
  const InferModel im = make_infer_model(m, count_params(m), h100, h100, s);
  const double expert = 3.0 * 4096 * 14336;
  CHECK(im.params.expert == Approx(expert));
  CHECK(fused_moe_time(im, 1).value() == Approx(2 * expert * 2 / 2 / (0.88 * 3.35e12) + 27e-6));
  // Four tokens touch 8 (1 - (6/8)^4) = 5.47 experts.
  CHECK(fused_moe_time(im, 4).value() == Approx(8 * (1 - std::pow(0.75, 4)) * expert * 2 / 2 / (0.88 * 3.35e12) + 27e-6));
  // A dense model has no such call.
  const ModelArch dense = model_from_record(cat().get("models", "llama-3.1-8b"));
  CHECK(fused_moe_time(make_infer_model(dense, count_params(dense), h100, h100, s), 4).value() == 0);
}

TEST_CASE("MXFP4 experts widened in the kernel stream at their own share of the bandwidth", "[serving]") {
  // gpt-oss-120b on one H100 under vLLM, one token: its 4 of 128 experts, each 3 x 2880 x 2880 +
  // biases in MXFP4 (4.25 bits), read at 0.55 of 3.35 TB/s (Hopper has no FP4 tensor cores, so the
  // kernel widens them to 16 bits as it reads), plus the 27 us floor. On a B200, which has FP4
  // tensor cores, the same experts stream at the family's 0.85 of 8 TB/s.
  const ModelArch m = model_from_record(cat().get("models", "gpt-oss-120b"));
  const Device h100 = resolve_device(cat(), "h100-sxm"), b200 = resolve_device(cat(), "b200");
  InferSettings s;
  s.runtime = Runtime::vllm;
  set_quant(s, "mxfp4", m, h100);
  CHECK(s.dequant_fp4);
  const ParamCounts pc = count_params(m);
  const double four = 4 * pc.expert * 4.25 / 8;
  CHECK(fused_moe_time(make_infer_model(m, pc, h100, h100, s), 1).value() == Approx(four / (0.55 * 3.35e12) + 27e-6));
  set_quant(s, "mxfp4", m, b200);
  CHECK_FALSE(s.dequant_fp4);
  CHECK(fused_moe_time(make_infer_model(m, pc, b200, b200, s), 1).value() == Approx(four / (0.85 * 8e12) + 27e-6));
  // llama.cpp's own MXFP4 kernels keep its decode fit: no widening there.
  s.runtime = Runtime::llama_cpp;
  set_quant(s, "mxfp4", m, h100);
  const InferModel local = make_infer_model(m, pc, h100, h100, s);
  CHECK(fused_moe_time(local, 1).value() == Approx(four / (local.decode.bandwidth * 3.35e12)));
}

TEST_CASE("block-scaled FP8 runs at the 16-bit rate on Hopper and at FP8's on Blackwell", "[serving]") {
  const ModelArch r1 = model_from_record(cat().get("models", "deepseek-r1"));
  const ModelArch llama = model_from_record(cat().get("models", "llama-3.1-70b"));
  const Device h200 = resolve_device(cat(), "h200"), b200 = resolve_device(cat(), "b200");
  InferSettings s;
  // DeepSeek's own FP8 checkpoint has 128 x 128 scale blocks: fp8 names it.
  REQUIRE(r1.native_quant == "fp8-block");
  set_quant(s, "fp8", r1, h200);
  CHECK(s.quant == "fp8-block");
  CHECK(s.bpw == 8);
  CHECK(s.compute == DType::bf16);
  set_quant(s, "FP8", r1, b200);
  CHECK(s.compute == DType::fp8);
  // A per-tensor FP8 checkpoint (NVIDIA's ModelOpt) keeps FP8's rate on Hopper; Qwen's own FP8
  // checkpoints are block-scaled, named so.
  set_quant(s, "fp8", llama, h200);
  CHECK(s.quant == "fp8");
  CHECK(s.compute == DType::fp8);
  set_quant(s, "fp8-block", llama, h200);
  CHECK(s.compute == DType::bf16);
}

TEST_CASE("tensor parallelism across nodes reduces over the scale-out fabric as well", "[serving]") {
  // DeepSeek-V3 at tp 16 on H200 nodes of 8: each of the two all-reduces of every layer (61) runs
  // inside each node over NVLink, then between the two nodes over InfiniBand, paying the scale-out
  // latency twice (reduce and broadcast). One more millisecond of scale-out latency therefore adds
  // 2 x 61 x 2 x 1 ms to a decode step; at tp 8, inside one node, it adds nothing.
  const ModelArch m = model_from_record(cat().get("models", "deepseek-v3"));
  const ParamCounts pc = count_params(m);
  Device h200 = resolve_device(cat(), "h200");
  InferSettings s;
  s.runtime = Runtime::sglang;
  s.tp = 16;
  set_quant(s, "fp8", m, h200);
  Device slow = h200;
  slow.scale_out.latency += seconds(1e-3);
  const double base = decode_step_time(make_infer_model(m, pc, h200, h200, s), 4, 1000).value();
  const double later = decode_step_time(make_infer_model(m, pc, slow, slow, s), 4, 1000).value();
  CHECK(later - base == Approx(2 * 61 * 2 * 1e-3));
  s.tp = 8;
  CHECK(decode_step_time(make_infer_model(m, pc, slow, slow, s), 4, 1000).value() ==
        Approx(decode_step_time(make_infer_model(m, pc, h200, h200, s), 4, 1000).value()));
}

TEST_CASE("tensor parallelism over cards with no NICs reduces over their host links", "[serving]") {
  // Sixteen RTX 4090s, each its own PCIe node with no scale-out NIC: as the training step's
  // collectives do, the all-reduces cross between cards over the host link, paying the larger of
  // the two latencies. One more millisecond of PCIe latency adds 2 x 80 x 2 x 1 ms to a decode
  // step of Llama 3.1 70B (80 layers, two all-reduces each, two link traversals each).
  const ModelArch m = model_from_record(cat().get("models", "llama-3.1-70b"));
  const ParamCounts pc = count_params(m);
  const Device card = resolve_device(cat(), "rtx-4090");
  REQUIRE(card.scale_out.bw_per_direction.value() == 0);
  InferSettings s;
  s.runtime = Runtime::vllm;
  s.tp = 16;
  Device slow = card;
  slow.scale_up.latency += seconds(1e-3);
  const double base = decode_step_time(make_infer_model(m, pc, card, card, s), 4, 1000).value();
  const double later = decode_step_time(make_infer_model(m, pc, slow, slow, s), 4, 1000).value();
  CHECK(std::isfinite(base));
  CHECK(later - base == Approx(2 * 80 * 2 * 1e-3));
}

TEST_CASE("vLLM quantises an FP8 GEMM's input in a call of its own and TensorRT-LLM does not", "[serving]") {
  // Llama 3.1 8B in FP8 on an H100, one sequence: vLLM's step is TensorRT-LLM's plus 4 quantising
  // calls a layer at 2.4 us (vLLM PR #17126's H100 benchmark, with and without them) and 3 bytes an
  // element of the layer's GEMM inputs: QKV and MLP in (4,096 each), output in (4,096), MLP out
  // (14,336). In BF16 the two are the same.
  const ModelArch m = model_from_record(cat().get("models", "llama-3.1-8b"));
  const ParamCounts pc = count_params(m);
  const Device h100 = resolve_device(cat(), "h100-sxm");
  for (const char* quant : {"fp8", "bf16"}) {
    INFO(quant);
    InferSettings s;
    s.context = 2048;
    set_quant(s, quant, m, h100);
    s.runtime = Runtime::vllm;
    const InferModel vllm = make_infer_model(m, pc, h100, h100, s);
    s.runtime = Runtime::tensorrt_llm;
    const InferModel trt = make_infer_model(m, pc, h100, h100, s);
    const double bw = h100.memory_bw.value() * vllm.decode.bandwidth;
    const double quant_s = std::string(quant) == "fp8" ? 4 * 32 * 2.4e-6 + 3.0 * 32 * (2 * 4096 + 4096 + 14336) / bw : 0;
    CHECK(decode_step_time(vllm, 1, 1000).value() - decode_step_time(trt, 1, 1000).value() == Approx(quant_s).margin(1e-12));
  }
}

TEST_CASE("served attention runs in 16 bits unless the KV cache is 8-bit", "[serving]") {
  // Llama 3.1 8B with FP8 weights on an H100 with vLLM, one 8,192-token prompt: its linear layers
  // at the FP8 rate either way; its attention, 4 L d x 8192^2 / 2, at the 16-bit peak (989.4 TFLOP/s)
  // over a 16-bit cache and at the FP8 peak (1,979) over an 8-bit one, each times flash attention's
  // share at 8,192 keys. The difference of the two prefills is that of the two attentions.
  const ModelArch m = model_from_record(cat().get("models", "llama-3.1-8b"));
  const ParamCounts pc = count_params(m);
  const Device h100 = resolve_device(cat(), "h100-sxm");
  InferSettings s;
  s.runtime = Runtime::vllm;
  s.context = 8192;
  set_quant(s, "fp8", m, h100);
  const InferModel sixteen = make_infer_model(m, pc, h100, h100, s);
  s.kv_elem_bytes = 1;
  const InferModel eight = make_infer_model(m, pc, h100, h100, s);
  const double flops = 4.0 * m.layers * static_cast<double>(m.q_width()) * 8192.0 * 8192 / 2;
  const double share = flash_attention_eff(sixteen.compute, 8192, false);
  CHECK(h100.peak_for(DType::fp8).value() == Approx(1979e12));
  CHECK(h100.peak_for(DType::bf16).value() == Approx(989.4e12));
  CHECK(prefill_time(sixteen, 8192, 1).value() - prefill_time(eight, 8192, 1).value() ==
        Approx(flops / (h100.peak_for(DType::bf16).value() * share) - flops / (h100.peak_for(DType::fp8).value() * share)));
}

TEST_CASE("a cached prompt prefix costs only its attention and is stored once", "[serving]") {
  // Llama 3.1 8B in BF16 on an H100 with vLLM. With every request finding its first P tokens
  // cached, a prompt of P + 500 tokens prefills 500: their linear layers, and their attention to
  // each other and to the P cached ones, 4 L d (500^2 / 2 + 500 P), in flash-attention calls that
  // see P + 500 keys (at the 16-bit peak times flash_attention_eff of those keys). Beyond a
  // 500-token prompt's own time the prefix adds only that attention's difference.
  const ModelArch m = model_from_record(cat().get("models", "llama-3.1-8b"));
  const ParamCounts pc = count_params(m);
  const Device h100 = resolve_device(cat(), "h100-sxm");
  InferSettings s = vllm_bf16_4k(m, h100);
  const double plain = prefill_time(make_infer_model(m, pc, h100, h100, s), 500, 1).value();
  s.prefix_hit = 1;
  s.prefix_tokens = 1000;
  const double one = prefill_time(make_infer_model(m, pc, h100, h100, s), 1500, 1).value() - plain;
  s.prefix_tokens = 2000;
  const double two = prefill_time(make_infer_model(m, pc, h100, h100, s), 2500, 1).value() - plain;
  CHECK(one > 0);
  const Efficiency eff = make_infer_model(m, pc, h100, h100, s).compute;
  const auto attention = [&](double pairs, double keys) {
    return 4.0 * m.layers * static_cast<double>(m.q_width()) * pairs /
           (h100.peak_for(DType::bf16).value() * flash_attention_eff(eff, keys, false));
  };
  CHECK(one == Approx(attention(500.0 * 500 / 2 + 500.0 * 1000, 1500) - attention(500.0 * 500 / 2, 500)));
  CHECK(two == Approx(attention(500.0 * 500 / 2 + 500.0 * 2000, 2500) - attention(500.0 * 500 / 2, 500)));
  // No hit: the whole prompt is prefilled.
  s.prefix_hit = 0;
  s.prefix_tokens = 1000;
  InferSettings none = s;
  none.prefix_tokens = 0;
  CHECK(prefill_time(make_infer_model(m, pc, h100, h100, s), 1500, 1).value() ==
        Approx(prefill_time(make_infer_model(m, pc, h100, h100, none), 1500, 1).value()));
  // The cache: 128 KiB a token. At a hit rate of 0.75 on a 1,000-token prefix each sequence keeps
  // 4,096 - 750 tokens of its own and the replica the prefix once.
  s.prefix_hit = 0.75;
  const InferModel im = make_infer_model(m, pc, h100, h100, s);
  const double room = kv_room(im);
  CHECK(kv_batch_limit(im) == static_cast<int>((room - 1000.0 * 131072) / ((4096 - 750) * 131072.0)));
}

TEST_CASE("distinct prefixes fill the room the batch leaves then the offload tier", "[serving]") {
  // Llama 3.1 8B in BF16 on an H100 with vLLM, 4,096-token sequences, 128 KiB of KV a token. With
  // 1,000 distinct 2,000-token prefixes each prefix is 2,000 x 128 KiB = 250 MiB on the device and
  // a running sequence holds its whole 4,096 tokens (512 MiB). At 10 running sequences the device
  // keeps floor((room - 10 x 512 MiB) / 250 MiB) prefixes; a 40 GiB host tier floor(40 GiB / 250
  // MiB) = 163 more. Requests reusing a prefix (hit 0.8) find it with probability (kept) / 1,000.
  const ModelArch m = model_from_record(cat().get("models", "llama-3.1-8b"));
  const ParamCounts pc = count_params(m);
  const Device h100 = resolve_device(cat(), "h100-sxm");
  InferSettings s = vllm_bf16_4k(m, h100);
  s.prefix_tokens = 2000;
  s.prefix_hit = 0.8;
  s.prefix_count = 1000;
  const double token = 131072, prefix = 2000 * token, sequence = 4096 * token;
  InferModel im = make_infer_model(m, pc, h100, h100, s);
  const double room = kv_room(im);
  const double device = std::floor((room - 10 * sequence) / prefix);
  PrefixFound f = prefix_found(im, 10);
  CHECK(f.prefixes_device == device);
  CHECK(f.device == Approx(device / 1000));
  CHECK(f.offload == 0);
  // Distinct prefixes are no sequence's shared blocks: the batch limit is the room over 512 MiB.
  CHECK(kv_batch_limit(im) == static_cast<int>(room / sequence));
  // No prefix cached costs no load; the cached tokens are the hit rate times the found share.
  CHECK(prefix_load_time(im, 2500, 10).value() == 0);
  CHECK(cached_prompt_tokens(s, 2500, f) == Approx(0.8 * device / 1000 * 2000));
  // The tier: PCIe Gen5's 64 GB/s a direction (under the host's 921.6 GB/s over 8 devices).
  s.offload_tier = "host";
  s.offload_bytes = bytes(40.0 * 1024 * 1024 * 1024);
  s.offload_read = bytes_per_s(64e9);
  im = make_infer_model(m, pc, h100, h100, s);
  f = prefix_found(im, 10);
  CHECK(f.prefixes_offload == 163);
  CHECK(f.offload == Approx(0.163));
  // A request reuses its prefix with 0.8, finds it in host memory with 0.163 of those, and reads
  // its 2,000 tokens' KV back at 64 GB/s: 260.8 tokens on average, counted as 261 whole tokens.
  const double load = 261 * token / 64e9;
  CHECK(prefix_load_time(im, 2500, 10).value() == Approx(load));
  // The load delays the first token: request_time is vLLM's request overhead plus it.
  CHECK(request_time(im, 2500, 10).value() == Approx(request_overhead(Runtime::vllm).value() + load));
  // Past the room, the device keeps none; a shared prefix (count 1) is always there.
  CHECK(prefix_found(im, 1000).prefixes_device == 0);
  s.prefix_count = 1;
  CHECK(prefix_found(make_infer_model(m, pc, h100, h100, s), 1000).device == 1);
}

TEST_CASE("prefixes routed to their replica need fewer devices with a tier", "[serving]") {
  // 2,000 users each with a 7,000-token conversation on Llama 3.1 8B, 8,000-token prompts: a
  // local NVMe tier holds every replica's share, so every reused prefix is found and the
  // deployment needs fewer devices than with the device's cache alone.
  ServingQuestion q;
  q.model = model_from_record(cat().get("models", "llama-3.1-8b"));
  q.params = count_params(q.model);
  q.device = q.host = resolve_device(cat(), "h100-sxm");
  q.settings.runtime = Runtime::vllm;
  set_quant(q.settings, "bf16", q.model, q.device);
  q.settings.prefix_tokens = 7000;
  q.settings.prefix_hit = 0.9;
  q.settings.prefix_count = 2000;
  q.decode = make_infer_model(q.model, q.params, q.device, q.host, q.settings).decode;
  q.compute = default_efficiency(q.device);
  q.prompt_tokens = 8000;
  q.output_tokens = 300;
  q.users = 2000;
  q.think_s = 30;
  const ServingAnswer plain = answer_serving(q);
  q.settings.offload_tier = "nvme-pm1743";
  q.settings.offload_bytes = bytes(15.36e12);
  q.settings.offload_read = bytes_per_s(13e9);
  const ServingAnswer tiered = answer_serving(q);
  REQUIRE(plain.sized);
  REQUIRE(tiered.sized);
  CHECK(tiered.sized->gpus < plain.sized->gpus);
  // Each replica serves its share of the prefixes, and the tier holds it whole.
  const int r = tiered.sized->replicas;
  CHECK(tiered.settings.prefix_count == (2000 + r - 1) / r);
  const PrefixFound f = prefix_found(tiered.model, tiered.sized->op.batch);
  CHECK(f.device + f.offload == Approx(1));
}

TEST_CASE("under load the batch decodes the sequences Little's law puts in it", "[serving]") {
  // Llama 3.1 8B on an H100, 32 slots, 1000-token prompts and 300-token replies, at half the
  // capacity: lambda = capacity / 2 requests/s; each is in the replica for its prefill share P and
  // O + 1 steps of step(n) / (1 - rho), step(n) straight from step(1) to step(32). Solving
  // n = lambda (P + (O + 1) step(n) / (1 - rho)) for n gives the sequences decoding, and the
  // step and TPOT there.
  const InferModel im = served("llama-3.1-8b", "h100-sxm", 1);
  const Operating o = operate(im, 32, 1000, 300, 0.5);
  const double lambda = 0.5 * o.capacity_rps, rho = lambda * o.stall_s;
  const double slope = (o.step_s - o.step1_s) / 31, base = o.step1_s - slope;
  const double per = lambda * 301 / (1 - rho);
  const double n = (lambda * o.prefill_s + per * base) / (1 - per * slope);
  REQUIRE(n > 1);
  REQUIRE(n < 32);
  CHECK(o.tpot_s == Approx((base + slope * n) / (1 - rho)));
}

TEST_CASE("the frontier keeps the points no other beats on both throughput and interactivity", "[serving]") {
  // (tokens/s/user, tokens/s/GPU): (100, 10) and (50, 40) are on it; (60, 30) too, between them;
  // (40, 35) is beaten by (50, 40), and (90, 5) by (100, 10).
  std::vector<FrontierPoint> pts(5);
  const double xy[5][2] = {{100, 10}, {50, 40}, {60, 30}, {40, 35}, {90, 5}};
  for (std::size_t i = 0; i < 5; ++i) pts[i].tokens_per_s_per_user = xy[i][0], pts[i].tokens_per_s_per_gpu = xy[i][1];
  const auto marked = pareto_marked(pts);
  std::vector<double> on;
  for (const auto& p : marked)
    if (p.pareto) on.push_back(p.tokens_per_s_per_user);
  CHECK(on == std::vector<double>{100, 60, 50});
}

TEST_CASE("the frontier sweeps every deployment of a node and its concurrency", "[serving]") {
  // Llama 3.1 70B in FP8 on H100s, 1000/1000 tokens: tp 1 to 8, at 1, 2, 4, ... users up to
  // each one's cache. More users never make a user faster, and the fastest point is the widest
  // tensor parallelism at one user.
  ServingQuestion q;
  q.model = model_from_record(cat().get("models", "llama-3.1-70b"));
  q.params = count_params(q.model);
  q.device = resolve_device(cat(), "h100-sxm");
  q.host = q.device;
  set_quant(q.settings, "fp8", q.model, q.device);
  q.compute = default_efficiency(q.device);
  q.decode = serving_decode_efficiency(q.device);
  q.prompt_tokens = q.output_tokens = 1000;
  q.frontier = true;
  const ServingAnswer a = answer_serving(q);
  REQUIRE(!a.frontier.empty());
  const FrontierPoint& fastest = a.frontier.front();
  CHECK(fastest.tp == 8);
  CHECK(fastest.concurrency == 1);
  CHECK(fastest.pareto);
  // At tp 8, by users: each more user slows every user a little and adds throughput.
  std::vector<FrontierPoint> tp8;
  for (const auto& p : a.frontier)
    if (p.tp == 8) tp8.push_back(p);
  std::sort(tp8.begin(), tp8.end(), [](const FrontierPoint& x, const FrontierPoint& y) { return x.concurrency < y.concurrency; });
  REQUIRE(tp8.size() >= 6);
  for (std::size_t i = 1; i < tp8.size(); ++i) {
    CHECK(tp8[i].concurrency == 2 * tp8[i - 1].concurrency);
    CHECK(tp8[i].tokens_per_s_per_user < tp8[i - 1].tokens_per_s_per_user);
    CHECK(tp8[i].tokens_per_s_per_gpu > tp8[i - 1].tokens_per_s_per_gpu);
  }
  CHECK(std::count_if(a.frontier.begin(), a.frontier.end(), [](const FrontierPoint& p) { return p.pareto; }) >= 5);
}

TEST_CASE("disaggregated serving sizes prefill and decode workers and moves each prompt's cache", "[serving]") {
  // Llama 3.1 8B on H100s at tp 1, 8,000-token prompts and 200-token replies at 50 requests/s,
  // TTFT 500 ms and TPOT 20 ms at p99.
  const ModelArch m = model_from_record(cat().get("models", "llama-3.1-8b"));
  const Device h100 = resolve_device(cat(), "h100-sxm");
  InferSettings s;
  s.context = 8200;
  set_quant(s, "bf16", m, h100);
  const InferModel im = make_infer_model(m, count_params(m), h100, h100, s);
  const auto d = size_disaggregated(im, 8000, 200, 50, 0.5, 0.02);
  REQUIRE(d);
  // The cache crosses over the device's share of the node's NICs: 8,000 tokens of 128 KiB.
  const double nic = h100.scale_out.bw_per_direction.value() * h100.nics_per_node / h100.devices_per_node;
  CHECK(d->kv_transfer_s == Approx(8000.0 * 131072 / (nic * im.compute.link) + h100.scale_out.latency.value()));
  // The decode batch is the largest whose step meets TPOT.
  CHECK(decode_step_time(im, d->decode_batch, 8100).value() <= 0.02);
  CHECK(decode_step_time(im, d->decode_batch + 1, 8100).value() > 0.02);
  CHECK(d->tpot_s == Approx(decode_step_time(im, d->decode_batch, 8100).value()));
  // Decode slots at most 90% busy: lambda O TPOT / (0.9 B) workers, rounded up.
  CHECK(d->decode_workers == static_cast<int>(std::ceil(50 * 200 * d->tpot_s / (0.9 * d->decode_batch))));
  // The fewest prefill workers whose p99 (M/D/x wait, prefill, transfer, first step) meets TTFT.
  const double floor = d->prefill_s + d->kv_transfer_s + d->tpot_s;
  CHECK(d->prefill_s == Approx(prefill_time(im, 8000, 1).value()));
  CHECK(floor + wait_quantile(d->prefill_workers, 50, d->prefill_s, 0, 0.99) <= 0.5);
  CHECK(floor + wait_quantile(d->prefill_workers - 1, 50, d->prefill_s, 0, 0.99) > 0.5);
  CHECK(d->devices == d->prefill_workers + d->decode_workers);
  // A TTFT below one prompt's prefill cannot be met.
  CHECK_FALSE(size_disaggregated(im, 8000, 200, 50, 0.05, 0.02));
}
