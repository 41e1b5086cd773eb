// SPDX-License-Identifier: Apache-2.0
#pragma once
// Replaying a request trace through a serving deployment: each request's arrival, prompt and
// reply, dealt to the replicas in turn, each replica batching continuously (a request joins when
// a sequence slot and its cache are free, its prompt is prefilled while the batch waits, then it
// decodes a token each step with the others). Gives latency percentiles for traffic as it came,
// bursts included, beside the closed forms for Poisson arrivals (serving.hpp).
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/analysis/serving.hpp"

namespace gpuplan {

// Rows a trace may hold: the public Azure LLM inference traces run to a few hundred thousand a
// day; more is refused rather than read without bound.
constexpr long max_trace_rows = 1'000'000;
// A trace file's size limit (a million rows of a timestamp and two counts fit well inside it).
constexpr std::size_t max_trace_bytes = 256u << 20;
// Output tokens a trace may ask for in all: the replay takes a decode step for each at worst (one
// sequence at a time), so this bounds its time (a few seconds).
constexpr double max_trace_output_tokens = 1e8;

struct TraceRequest {
  double arrival = 0;  // seconds from the first request
  double prompt = 0, output = 0;
};

// A CSV of arrival time, prompt tokens and output tokens, one request a row. A first row of
// names picks the columns: the Azure LLM inference traces' TIMESTAMP, ContextTokens and
// GeneratedTokens, BurstGPT's Timestamp, Request tokens and Response tokens, or timestamp/arrival,
// prompt/input and output; without one, the first three columns in that order. Timestamps are
// seconds or "YYYY-MM-DD HH:MM:SS[.fraction]". A row that is not numeric, a negative or zero
// length, a time earlier than the row before, or more than max_trace_rows rows is a one-line
// error naming the file and the row (exit 65).
std::vector<TraceRequest> parse_trace(const std::string& text, const std::string& path);
std::vector<TraceRequest> read_trace(const std::string& path);

struct TraceReplay {
  long requests = 0;
  int replicas = 1;
  double duration_s = 0;    // first arrival to last completion
  double rate_rps = 0;      // requests over the span of arrivals
  double mean_prompt = 0, mean_output = 0;
  double throughput = 0;    // output tokens/s over the whole replay
  Percentiles ttft, tpot;
  double ttft_mean = 0, tpot_mean = 0;
  long longest_queue = 0;   // requests waiting at once, the most on one replica
};
// Replays `trace` on `replicas` replicas of `im`: at most max_seqs sequences at once, and only as
// many as the KV cache holds at their full length (a paged cache reserves as a sequence grows;
// this admits a request when its whole length fits, so that none is preempted). A decode step
// costs decode_step_time at the sequences running; a prompt's prefill, prefill_time, stalls them.
TraceReplay replay_trace(const InferModel& im, const std::vector<TraceRequest>& trace, int replicas);

}  // namespace gpuplan
