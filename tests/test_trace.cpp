// SPDX-License-Identifier: Apache-2.0
// Request traces: reading the public traces' columns, refusing bad rows with the row number, and
// replaying them through a replica against the closed forms for Poisson arrivals.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>

#include "catalog_fixture.hpp"
#include "gpuplan/analysis/trace.hpp"
#include "gpuplan/catalog/catalog.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/records.hpp"

using namespace gpuplan;
using Approx = Catch::Detail::Approx;

namespace {

// The Exit code and message of parse_trace on `text`.
std::pair<Exit, std::string> refused(const std::string& text) {
  try {
    parse_trace(text, "t.csv");
  } catch (const Error& e) {
    return {e.code(), e.what()};
  }
  return {Exit::ok, ""};
}

InferModel vllm_8b() {
  const ModelArch m = model_from_record(builtin_catalog().get("models", "llama-3.1-8b"));
  const Device d = resolve_device(builtin_catalog(), "h100-sxm");
  InferSettings s;
  s.context = 1200;
  return make_infer_model(m, count_params(m), d, d, s);
}

// `n` requests of 1000 prompt and 200 output tokens arriving at `rate` a second: Poisson, or in
// bursts of `burst` at once with the gaps between bursts exponential (the same mean rate).
std::vector<TraceRequest> arrivals(double rate, int n, int burst, unsigned seed) {
  std::mt19937_64 g(seed);
  std::exponential_distribution<double> gap(rate / burst);
  std::vector<TraceRequest> t;
  double at = 0;
  for (int i = 0; i < n; ++i) {
    if (i % burst == 0) at += gap(g);
    t.push_back({at, 1000, 200});
  }
  return t;
}

}  // namespace

TEST_CASE("A trace reads the Azure BurstGPT and plain columns", "[trace]") {
  // Azure LLM inference trace: dates, its own column names; times are from the first request.
  auto t = parse_trace("TIMESTAMP,ContextTokens,GeneratedTokens\n"
                       "2023-11-16 18:15:46.5,374,44\n2023-11-16 18:15:50.0,396,109\n",
                       "azure.csv");
  REQUIRE(t.size() == 2);
  CHECK(t[0].arrival == 0);
  CHECK(t[1].arrival == Approx(3.5));
  CHECK(t[1].prompt == 396);
  CHECK(t[1].output == 109);
  // BurstGPT: six columns, the counts named Request tokens and Response tokens.
  t = parse_trace("Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
                  "5,ChatGPT,472,18,490,Conversation log\n45,ChatGPT,1087,230,1317,Conversation log\n",
                  "burst.csv");
  REQUIRE(t.size() == 2);
  CHECK(t[1].arrival == 40);
  CHECK(t[1].prompt == 1087);
  CHECK(t[1].output == 230);
  // No header: arrival, prompt, output; CRLF and blank lines allowed.
  t = parse_trace("0,10,5\r\n\r\n1.5,20,6\r\n", "plain.csv");
  REQUIRE(t.size() == 2);
  CHECK(t[1].arrival == 1.5);
}

TEST_CASE("A bad trace row is refused with its row number", "[trace]") {
  for (const auto& [text, row] : {std::pair<std::string, std::string>{"0,10,5\n1,x,5\n", "row 2"},
                                  {"0,10,5\n1,-3,5\n", "row 2"},
                                  {"0,10,5\n2,10,5\n1,10,5\n", "row 3"},
                                  {"0,10,0\n", "row 1"},
                                  {"0,10\n", "row 1"},
                                  {"nan,10,5\n", "row 1"}}) {
    INFO(text);
    const auto [code, msg] = refused(text);
    CHECK(code == Exit::data);
    CHECK(msg.find(row) != std::string::npos);
  }
  CHECK(refused("when,how,what\n1,2,3\n").second.find("names no arrival time column") != std::string::npos);
  CHECK(refused("").first == Exit::data);
  // More rows than max_trace_rows: refused, not read without bound.
  std::string big;
  big.reserve(static_cast<std::size_t>(max_trace_rows) * 7);
  for (long i = 0; i <= max_trace_rows; ++i) big += "0,1,1\n";
  CHECK(refused(big).second.find("more than 1000000 rows") != std::string::npos);
  // Or more output tokens in all than a replay can step through in seconds.
  CHECK(refused("0,10,60000000\n1,10,60000000\n").second.find("row 2: its requests ask for more than 100000000 output tokens") !=
        std::string::npos);
}

TEST_CASE("A Poisson trace replayed agrees with the closed forms", "[trace]") {
  // 20,000 requests at 10 a second on one H100 serving Llama 3.1 8B (about half its capacity):
  // the replay decodes the sequences present, prefills the prompts that arrived together, and
  // waits for slots; the closed forms price the same steps at Little's-law occupancy. Their
  // medians agree within 12% (measured: TTFT 43 ms against 48, TPOT 9.2 against 9.9); the tails
  // less closely, the replay's TTFT above (its prefills come in bursts the closed form averages).
  const InferModel im = vllm_8b();
  const auto trace = arrivals(10, 20000, 1, 7);
  const TraceReplay r = replay_trace(im, trace, 1);
  CHECK(r.requests == 20000);
  CHECK(r.rate_rps == Approx(10).epsilon(0.03));
  const Operating full = operate(im, batch_limit(im), 1000, 200, 1);
  const Operating at = operate(im, batch_limit(im), 1000, 200, r.rate_rps / full.capacity_rps);
  REQUIRE(at.ttft);
  REQUIRE(at.tpot);
  CHECK(r.ttft.p50 == Approx(at.ttft->p50).epsilon(0.12));
  CHECK(r.tpot.p50 == Approx(at.tpot->p50).epsilon(0.12));
  CHECK(r.ttft.p99 == Approx(at.ttft->p99).epsilon(0.25));
  CHECK(r.tpot.p99 == Approx(at.tpot->p99).epsilon(0.15));
  // Everything is served: the output rate is the arrivals' over the replay.
  CHECK(r.throughput == Approx(200.0 * 20000 / r.duration_s));
}

TEST_CASE("A bursty trace raises the tail above Poisson arrivals at the same rate", "[trace]") {
  const InferModel im = vllm_8b();
  const TraceReplay poisson = replay_trace(im, arrivals(10, 20000, 1, 7), 1);
  const TraceReplay bursty = replay_trace(im, arrivals(10, 20000, 20, 7), 1);
  CHECK(bursty.rate_rps == Approx(poisson.rate_rps).epsilon(0.1));
  CHECK(bursty.ttft.p99 > 2 * poisson.ttft.p99);
  CHECK(bursty.longest_queue > poisson.longest_queue);
  // Two replicas split the trace in turn: each sees half the rate, so the tail falls.
  const TraceReplay two = replay_trace(im, arrivals(10, 20000, 20, 7), 2);
  CHECK(two.replicas == 2);
  CHECK(two.ttft.p99 < bursty.ttft.p99);
}
