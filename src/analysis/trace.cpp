// SPDX-License-Identifier: Apache-2.0
#include "gpuplan/analysis/trace.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fmt/format.h>
#include <queue>

#include "gpuplan/error.hpp"
#include "gpuplan/format.hpp"
#include "gpuplan/output.hpp"

namespace gpuplan {

namespace {

std::string trimmed(std::string_view s) {
  while (!s.empty() && (std::isspace(static_cast<unsigned char>(s.front())) || s.front() == '"')) s.remove_prefix(1);
  while (!s.empty() && (std::isspace(static_cast<unsigned char>(s.back())) || s.back() == '"')) s.remove_suffix(1);
  return std::string(s);
}

std::vector<std::string> fields_of(std::string_view line) {
  std::vector<std::string> out;
  std::size_t from = 0;
  while (true) {
    const std::size_t comma = line.find(',', from);
    out.push_back(trimmed(line.substr(from, comma == std::string_view::npos ? std::string_view::npos : comma - from)));
    if (comma == std::string_view::npos || out.size() > 64) break;
    from = comma + 1;
  }
  return out;
}

// A plain decimal number, the whole field, finite.
std::optional<double> number_of(const std::string& s) {
  if (s.empty() || s.size() > 64) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// Days from 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's civil-date algorithm).
long days_from_civil(long y, long m, long d) {
  y -= m <= 2;
  const long era = (y >= 0 ? y : y - 399) / 400;
  const long yoe = y - era * 400;
  const long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// Seconds, or "YYYY-MM-DD HH:MM:SS[.fraction]" (a 'T' between the two allowed) as seconds since 1970.
std::optional<double> time_of(const std::string& s) {
  if (auto v = number_of(s)) return v;
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, n = 0;
  double sec = 0;
  if (s.size() < 19 || s.size() > 40) return std::nullopt;
  std::string t = s;
  if (t[10] == 'T') t[10] = ' ';
  if (std::sscanf(t.c_str(), "%4d-%2d-%2d %2d:%2d:%lf%n", &y, &mo, &d, &h, &mi, &sec, &n) != 6 ||
      static_cast<std::size_t>(n) != t.size())
    return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec < 0 || sec >= 61) return std::nullopt;
  return static_cast<double>(days_from_civil(y, mo, d)) * 86400 + h * 3600.0 + mi * 60.0 + sec;
}

int column(const std::vector<std::string>& names, std::initializer_list<const char*> wanted) {
  for (std::size_t i = 0; i < names.size(); ++i)
    for (const char* w : wanted)
      if (same_ignoring_case(names[i], w)) return static_cast<int>(i);
  return -1;
}

}  // namespace

std::vector<TraceRequest> parse_trace(const std::string& text, const std::string& path) {
  const std::string file = shown(path);
  auto bad = [&](long row, const std::string& what) {
    fail(Exit::data, fmt::format("trace {}: row {}: {}; a row is arrival time (seconds or YYYY-MM-DD HH:MM:SS), prompt "
                                 "tokens and output tokens",
                                 file, row, what));
  };
  std::vector<TraceRequest> out;
  double outputs = 0;  // the replay steps once for each (at worst), so their sum is bounded
  int ti = 0, pi = 1, oi = 2;
  bool first = true;
  double t0 = 0, last = 0;
  long row = 0;
  std::size_t from = 0;
  while (from < text.size()) {
    std::size_t end = text.find('\n', from);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + from, end - from);
    from = end + 1;
    ++row;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (trimmed(line).empty()) continue;
    const std::vector<std::string> f = fields_of(line);
    if (first) {
      first = false;
      if (f.size() < 3) bad(row, fmt::format("{} column{}", f.size(), f.size() == 1 ? "" : "s"));
      if (!time_of(f[0]) || !number_of(f[1])) {  // a header: find the columns by name
        ti = column(f, {"timestamp", "arrival", "arrival_s", "time", "arrival_time"});
        pi = column(f, {"contexttokens", "context_tokens", "request tokens", "prompt", "prompt_tokens", "input", "input_tokens"});
        oi = column(f, {"generatedtokens", "generated_tokens", "response tokens", "output", "output_tokens"});
        if (ti < 0 || pi < 0 || oi < 0)
          fail(Exit::data, fmt::format("trace {}: row 1: the header names no {} column; expected TIMESTAMP, "
                                       "ContextTokens, GeneratedTokens (Azure), Timestamp, Request tokens, Response tokens "
                                       "(BurstGPT) or arrival, prompt, output",
                                       file, ti < 0 ? "arrival time" : pi < 0 ? "prompt tokens" : "output tokens"));
        continue;
      }
    }
    if (static_cast<long>(out.size()) >= max_trace_rows)
      fail(Exit::data, fmt::format("trace {}: more than {} rows; replay a sample or a window of it", file, max_trace_rows));
    const int need = std::max({ti, pi, oi});
    if (static_cast<int>(f.size()) <= need) bad(row, fmt::format("{} columns, where the columns named need {}", f.size(), need + 1));
    const auto t = time_of(f[static_cast<std::size_t>(ti)]);
    const auto p = number_of(f[static_cast<std::size_t>(pi)]);
    const auto o = number_of(f[static_cast<std::size_t>(oi)]);
    if (!t) bad(row, fmt::format("arrival time '{}' is not a number or a date and time", shown(f[static_cast<std::size_t>(ti)], 40)));
    if (!p || !o) bad(row, fmt::format("'{}' is not a number", shown(f[static_cast<std::size_t>(p ? oi : pi)], 40)));
    if (*p < 1 || *o < 1 || *p > 1e8 || *o > 1e8)
      bad(row, fmt::format("{} tokens {}; expected a whole count from 1 to 100,000,000 (drop failed requests first)",
                           *p < 1 || *p > 1e8 ? "prompt" : "output", format_exact(*p < 1 || *p > 1e8 ? *p : *o)));
    if (out.empty()) t0 = last = *t;
    if (*t < last) bad(row, "its time is earlier than the row before (sort the trace by arrival)");
    last = *t;
    outputs += std::round(*o);
    if (outputs > max_trace_output_tokens)
      fail(Exit::data, fmt::format("trace {}: row {}: its requests ask for more than {} output tokens in all; replay a "
                                   "sample or a window of it",
                                   file, row, format_exact(max_trace_output_tokens)));
    out.push_back({*t - t0, std::round(*p), std::round(*o)});
  }
  if (out.empty()) fail(Exit::data, fmt::format("trace {}: no requests", file));
  return out;
}

std::vector<TraceRequest> read_trace(const std::string& path) {
  return parse_trace(read_file_capped(path, "trace", max_trace_bytes), path);
}

namespace {

Percentiles percentiles_of(std::vector<double>& v) {
  if (v.empty()) return {};
  std::sort(v.begin(), v.end());
  const auto at = [&](double p) { return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))]; };
  return {at(0.5), at(0.9), at(0.99)};
}

}  // namespace

TraceReplay replay_trace(const InferModel& im, const std::vector<TraceRequest>& trace, int replicas) {
  TraceReplay r;
  r.replicas = std::max(1, replicas);
  r.requests = static_cast<long>(trace.size());
  if (trace.empty()) return r;
  const InferSettings& s = im.settings;
  const double request_s = request_overhead(s.runtime).value();
  double prompts = 0, outputs = 0;
  for (const auto& q : trace) prompts += q.prompt, outputs += q.output;
  r.mean_prompt = prompts / static_cast<double>(trace.size());
  r.mean_output = outputs / static_cast<double>(trace.size());
  // What a replica holds at once: its sequence cap, and the cache's tokens (the sequences it
  // holds, as tokens).
  const bool serving = serving_runtime(s.runtime);
  const int runtime_cap = s.max_seqs > 0 ? s.max_seqs : runtime_max_seqs(s.runtime, im.device);
  const long cap = serving ? std::max(1L, static_cast<long>(runtime_cap > 0 ? runtime_cap * s.ep : 1 << 30)) : 1;
  const double kv_tokens = std::max(1.0, static_cast<double>(kv_batch_limit(im)) * static_cast<double>(sequence_tokens(s)));
  // The step at n sequences, at the trace's mean context; worked out once for each n met.
  const double context = r.mean_prompt + r.mean_output / 2;
  std::vector<double> steps;
  auto step = [&](long n) {
    if (static_cast<long>(steps.size()) <= n) steps.resize(static_cast<std::size_t>(n) + 1, -1);
    double& t = steps[static_cast<std::size_t>(n)];
    if (t < 0) t = decode_step_time(im, static_cast<int>(std::min<long>(n, 1 << 30)), context).value();
    return t;
  };
  std::vector<double> ttft, tpot;
  ttft.reserve(trace.size());
  tpot.reserve(trace.size());
  double end = 0;
  for (int rep = 0; rep < r.replicas; ++rep) {
    // This replica's requests: every replicas-th, in arrival order.
    std::vector<std::size_t> mine;
    for (std::size_t i = static_cast<std::size_t>(rep); i < trace.size(); i += static_cast<std::size_t>(r.replicas)) mine.push_back(i);
    std::deque<std::size_t> waiting;
    // Running sequences by the step at which they finish (the step counter's value then).
    using Done = std::pair<long, std::size_t>;
    std::priority_queue<Done, std::vector<Done>, std::greater<>> running;
    std::vector<std::size_t> joined;  // prefilled, their first token due at the next step
    double t = 0, kv_used = 0;
    long counter = 0;  // decode steps so far
    std::size_t next = 0;
    std::vector<double> first_time(mine.size(), 0);
    auto index_in_mine = [&](std::size_t i) { return (i - static_cast<std::size_t>(rep)) / static_cast<std::size_t>(r.replicas); };
    while (next < mine.size() || !waiting.empty() || !running.empty()) {
      while (next < mine.size() && trace[mine[next]].arrival <= t) waiting.push_back(mine[next++]);
      if (running.empty() && waiting.empty()) {
        t = trace[mine[next]].arrival;
        continue;
      }
      r.longest_queue = std::max(r.longest_queue, static_cast<long>(waiting.size()));
      // Admit and prefill: as many waiting prompts as slots, the cache and one prefill chunk take
      // (one at a time on llama.cpp), at least one when nothing runs.
      std::vector<std::size_t> group;
      double group_tokens = 0;
      while (!waiting.empty()) {
        const TraceRequest& q = trace[waiting.front()];
        const long in = static_cast<long>(running.size() + group.size());
        const bool fits = in < cap && kv_used + q.prompt + q.output <= kv_tokens;
        const bool chunk = group.empty() || (serving && group_tokens + q.prompt <= serving_prefill_tokens);
        if (!(fits || in == 0) || !chunk) break;
        group.push_back(waiting.front());
        group_tokens += q.prompt;
        kv_used += q.prompt + q.output;
        waiting.pop_front();
      }
      double load_s = 0;  // reading prefixes back from the KV offload tier (prefix_load_time)
      if (!group.empty()) {
        const double mean = group_tokens / static_cast<double>(group.size());
        const int resident = static_cast<int>(running.size() + group.size());
        t += prefill_time(im, static_cast<long>(std::ceil(mean)), static_cast<int>(group.size()), resident).value() / s.pp;
        load_s = prefix_load_time(im, mean, resident).value();
        for (std::size_t i : group) {
          running.push({counter + static_cast<long>(trace[i].output), i});
          joined.push_back(i);
        }
      }
      if (running.empty()) continue;
      // One decode step of every running sequence; the prompts just prefilled have their first
      // token at its end, which reaches the client after the runtime's own time for a request.
      t += step(static_cast<long>(running.size()));
      ++counter;
      for (std::size_t i : joined) {
        first_time[index_in_mine(i)] = t;
        ttft.push_back(t - trace[i].arrival + request_s + load_s);
      }
      joined.clear();
      while (!running.empty() && running.top().first <= counter) {
        const std::size_t i = running.top().second;
        running.pop();
        const TraceRequest& q = trace[i];
        kv_used -= q.prompt + q.output;
        tpot.push_back(q.output > 1 ? (t - first_time[index_in_mine(i)]) / (q.output - 1) : 0);
      }
    }
    end = std::max(end, t);
  }
  r.duration_s = end;
  const double span = trace.back().arrival;
  r.rate_rps = span > 0 ? static_cast<double>(trace.size() - 1) / span : 0;
  r.throughput = end > 0 ? outputs / end : 0;
  for (double v : ttft) r.ttft_mean += v;
  for (double v : tpot) r.tpot_mean += v;
  r.ttft_mean /= static_cast<double>(std::max<std::size_t>(1, ttft.size()));
  r.tpot_mean /= static_cast<double>(std::max<std::size_t>(1, tpot.size()));
  r.ttft = percentiles_of(ttft);
  r.tpot = percentiles_of(tpot);
  return r;
}

}  // namespace gpuplan
