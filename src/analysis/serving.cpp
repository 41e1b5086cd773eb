// SPDX-License-Identifier: Apache-2.0
#include "gpuplan/analysis/serving.hpp"

#include <algorithm>
#include <array>
#include <utility>
#include <cmath>
#include <fmt/format.h>

#include "gpuplan/error.hpp"
#include "gpuplan/format.hpp"

namespace gpuplan {

namespace {

// Standard normal quantiles (z for 0.5, 0.9, 0.99).
constexpr double z50 = 0, z90 = 1.2815515655446004, z99 = 2.3263478740408408;

// The waiting-time quantile of an M/G/c queue given its Erlang C and drain rate c mu - lambda.
double quantile_given(double waits, double drain, double scv, double p) {
  if (1 - p >= waits) return 0;  // at least a share p of arrivals find a free server
  return (1 + scv) / 2 / drain * std::log(waits / (1 - p));
}

// The pieces of a replica's latency at a load share u of its capacity (no queueing yet).
struct Load {
  double lambda, step, tpot_mean, first, hold, rho, occupancy;
};
// The sequences decoding at a load: n = lambda x a request's time in the replica (Little's law),
// whose steps cost step(n), straight between one sequence's step and the full batch's (the
// weights read once, each sequence's cache and work on top): n = lambda (P + (O + 1) step(n) /
// (1 - rho)) with P its prompt's share of a prefill step, solved for n, at most the batch. A step at the full batch
// whatever the load, as before, overstated TPOT and TTFT wherever the batch was not full.
Load load_of(const Operating& o, double u, double output) {
  Load l;
  l.lambda = u * o.capacity_rps;
  l.rho = std::min(0.95, l.lambda * o.stall_s);  // share of time spent prefilling
  const double b = o.batch, slope = b > 1 ? (o.step_s - o.step1_s) / (b - 1) : 0, base = o.step1_s - slope;
  const double per = l.lambda * (output + 1) / (1 - l.rho);
  const double room = 1 - per * slope;
  const double n = u >= 1 || room <= 0 ? b : (l.lambda * o.prefill_s + per * base) / room;
  l.occupancy = std::clamp(n, std::min(1.0, b), b);
  l.step = b > 1 ? base + slope * l.occupancy : o.step_s;
  l.tpot_mean = l.step / (1 - l.rho);
  // A request's prefill step holds it and the prompts that arrived during the iteration before it
  // (a chunk holds at most prefills_per_step). That step samples its first token (as vLLM, SGLang
  // and TensorRT-LLM do) and decodes the sequences already running, which are there with
  // probability 1 - exp(-lambda O TPOT) (their M/G/infinity occupancy), always at full load.
  const double together = u >= 1 ? o.prefills_per_step : std::min<double>(o.prefills_per_step, 1 + l.lambda * l.tpot_mean);
  const double others = u >= 1 ? 1 : 1 - std::exp(-l.lambda * output * l.tpot_mean);
  l.first = o.request_s + o.prefill_s * together + l.tpot_mean * others;
  l.hold = o.batch / o.capacity_rps;  // a request holds its slot B / capacity at full load
  return l;
}
// What a request waits before its prefill at the load: the iteration in progress, the prompts
// queued ahead (each holds the prefill for stall_s), and a batch slot. The replica decodes for
// others unless it is empty: requests in it are Poisson with mean lambda x their time in it
// (an M/G/infinity occupancy), so it is busy with probability 1 - exp(-lambda T).
TtftWait wait_of(const Operating& o, const Load& l, double output) {
  TtftWait w;
  w.iteration_s = l.step;
  w.decoding = (1 - std::exp(-l.lambda * (l.first + output * l.tpot_mean))) * (1 - l.rho);
  w.prefill_waits = l.rho;
  w.prefill_rate = o.stall_s > 0 ? 2 * (1 - l.rho) / o.stall_s : 0;
  const double drain = o.batch / l.hold - l.lambda;
  w.slot_waits = drain > 0 ? erlang_c(o.batch, l.lambda * l.hold) : 1;
  w.slot_rate = 2 * std::max(drain, 1e-12);
  return w;
}
// A request's TPOT at the normal quantile z: its O steps and the prefill steps that land in
// its life. Prefill steps arrive at lambda / k and each takes k t_p; a Poisson count of mean m.
double tpot_at(const Operating& o, const Load& l, double output, double z) {
  const double k = o.prefills_per_step, m = l.lambda / k * output * l.tpot_mean;
  const double landed = std::max(0.0, m + z * std::sqrt(m));
  return (output * l.step + landed * k * o.stall_s) / output;
}
// Whether the p99 TTFT is within `ttft`: P(first + wait > ttft) <= 1%, one evaluation of the
// tail rather than a search for its quantile.
bool ttft_p99_within(const Operating& o, const Load& l, double output, double ttft) {
  return ttft >= l.first && wait_of(o, l, output).exceeds(ttft - l.first) <= 0.01;
}

// The latencies of o at a load share u of its capacity.
void at_load(Operating& o, double u, double output) {
  o.load_share = u;
  const Load l = load_of(o, u, output);
  o.tpot_s = l.tpot_mean;
  o.ttft.reset(), o.tpot.reset();
  // At full load (offline: every request queued at once) there is no arrival process to
  // queue behind: the TTFT is the prefill and first token alone, and there are no percentiles.
  o.ttft_s = l.first;
  if (u >= 1) return;
  const TtftWait w = wait_of(o, l, output);
  o.ttft_s += w.mean();
  o.ttft = Percentiles{l.first + w.quantile(0.5), l.first + w.quantile(0.9), l.first + w.quantile(0.99)};
  o.tpot = Percentiles{tpot_at(o, l, output, z50), tpot_at(o, l, output, z90), tpot_at(o, l, output, z99)};
}

// The highest load share in [0, hi] at which ok(u) holds, to 1e-5 (ok holds at 0, fails above).
template <class F>
double highest(double hi, F ok) {
  if (ok(hi)) return hi;
  double lo = 0;
  while (hi - lo > 1e-5) {
    const double mid = (lo + hi) / 2;
    (ok(mid) ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace

double erlang_c(int servers, double offered) {
  const double c = servers;
  if (offered <= 0) return 0;
  if (offered >= c) return 1;
  // Erlang B = t_c / sum_{k<=c} t_k with t_k = a^k / k!, summed from k = c down (relative to
  // t_c): the terms grow while k > a and fall after, so the sum stops once they are negligible,
  // or once it is so large that B (and with it C) is nil. O(c - a + sqrt(a)) rather than O(c).
  double term = 1, sum = 1;
  for (int k = servers; k >= 1; --k) {
    term *= k / offered;  // t_{k-1} / t_c
    sum += term;
    if (sum > 1e300) return 0;
    if (k - 1 < offered && term < 1e-17 * sum) break;
  }
  const double b = 1 / sum, rho = offered / c;
  return b / (1 - rho * (1 - b));
}

namespace {
// P(A + B > x) for independent waits A, B that are 0 with probability 1 - a (1 - b), else
// exponential at rate alpha (beta): c_a e^(-alpha x) + c_b e^(-beta x) for x >= 0, where the
// both-wait term is the hypoexponential tail (beta e^(-alpha x) - alpha e^(-beta x)) / (beta - alpha).
struct TwoExp {
  double ca = 0, alpha = 1, cb = 0, beta = 1;
};
TwoExp two_exp(double a, double alpha, double b, double beta) {
  if (std::fabs(beta - alpha) < 1e-9 * std::max(alpha, beta)) beta = alpha * (1 + 1e-6);  // equal rates: the limit
  return {a * (1 - b) + a * b * beta / (beta - alpha), alpha, b * (1 - a) - a * b * alpha / (beta - alpha), beta};
}
double tail(const TwoExp& g, double x) {
  return x < 0 ? 1 : g.ca * std::exp(-g.alpha * x) + g.cb * std::exp(-g.beta * x);
}
// (1/r) of the integral over u in [0, r] of tail(t - u): the tail seen after a uniform wait on [0, r].
double smeared(const TwoExp& g, double t, double r) {
  const double upto = std::clamp(t, 0.0, r);  // where t - u >= 0
  double s = r - upto;                         // where t - u < 0 the tail is 1
  for (const auto& [c, k] : {std::pair{g.ca, g.alpha}, std::pair{g.cb, g.beta}})
    s += c / k * (std::exp(-k * (t - upto)) - std::exp(-k * t));
  return s / r;
}
}  // namespace

double TtftWait::exceeds(double t) const {
  const TwoExp g = two_exp(prefill_waits, prefill_rate > 0 ? prefill_rate : 1, slot_waits, slot_rate > 0 ? slot_rate : 1);
  const double uniform = iteration_s > 0 ? decoding : 0;
  return (1 - uniform) * tail(g, t) + (uniform > 0 ? uniform * smeared(g, t, iteration_s) : 0);
}

double TtftWait::mean() const {
  return decoding * iteration_s / 2 + (prefill_rate > 0 ? prefill_waits / prefill_rate : 0) +
         (slot_rate > 0 ? slot_waits / slot_rate : 0);
}

double TtftWait::quantile(double p) const {
  if (exceeds(0) <= 1 - p) return 0;
  double lo = 0, hi = std::max(iteration_s, 1e-6);
  for (int i = 0; i < 200 && exceeds(hi) > 1 - p; ++i) hi *= 2;
  for (int i = 0; i < 60 && hi - lo > 1e-6 * hi; ++i) {
    const double mid = (lo + hi) / 2;
    (exceeds(mid) > 1 - p ? lo : hi) = mid;
  }
  return hi;
}

double mean_wait(int servers, double arrival_rate, double service_s, double service_scv) {
  const double drain = servers / service_s - arrival_rate;  // c mu - lambda
  if (drain <= 0) return HUGE_VAL;
  return erlang_c(servers, arrival_rate * service_s) * (1 + service_scv) / 2 / drain;
}

double wait_quantile(int servers, double arrival_rate, double service_s, double service_scv, double p) {
  const double drain = servers / service_s - arrival_rate;
  if (drain <= 0) return HUGE_VAL;
  return quantile_given(erlang_c(servers, arrival_rate * service_s), drain, service_scv, p);
}

Operating operate(const InferModel& im, int batch, double prompt, double output, double load_share) {
  Operating o;
  o.batch = batch;
  // Under load a serving runtime prefills several prompts per step (chunked prefill); each
  // request pays its share of that step. llama.cpp serves one prompt at a time.
  o.prefills_per_step = serving_runtime(im.settings.runtime)
                            ? std::max(1, std::min(batch, static_cast<int>(serving_prefill_tokens / std::max(1.0, prompt))))
                            : 1;
  o.prefill_s = prefill_time(im, static_cast<long>(prompt), o.prefills_per_step, batch).value() / o.prefills_per_step;
  o.step_s = decode_step_time(im, batch, prompt + output / 2).value();
  o.step1_s = batch > 1 ? decode_step_time(im, 1, prompt + output / 2).value() : o.step_s;
  // Pipeline stages prefill different micro-batches' prompts at once: each prompt holds the
  // replica for 1/pp of its prefill.
  o.stall_s = o.prefill_s / im.settings.pp;
  o.request_s = request_time(im, prompt, batch).value();
  o.capacity_rps = batch / (output * o.step_s + batch * o.stall_s);
  o.sustained_rps = o.capacity_rps;
  at_load(o, load_share, output);
  return o;
}

bool meets_targets(const Operating& o, double ttft, double tpot) {
  const double t = o.ttft ? o.ttft->p99 : o.ttft_s, p = o.tpot ? o.tpot->p99 : o.tpot_s;
  return (ttft <= 0 || t <= ttft) && (tpot <= 0 || p <= tpot);
}

std::optional<Operating> best_batch(const InferModel& im, int max_batch, double prompt, double output, double ttft, double tpot,
                                    long* evaluated) {
  std::optional<Operating> best;
  long tried = 0;
  const bool targets = ttft > 0 || tpot > 0;
  // Largest batch first: a batch whose whole capacity is below the best sustained rate so far
  // cannot win and is not searched.
  for (int b = std::min(max_batch, max_batch_tried); b >= 1; --b) {
    Operating o = operate(im, b, prompt, output, targets ? 0 : 1.0);
    ++tried;
    if (best && o.capacity_rps <= best->sustained_rps) continue;
    if (!targets) {
      best = o;
      continue;
    }
    if (!meets_targets(o, ttft, tpot)) continue;  // not even an idle replica meets them
    // The highest load share that meets them (latencies grow with the load): TPOT's first, on
    // its closed form, then TTFT's below it, which costs an Erlang C each.
    double lo = 1 - 1e-6;
    if (tpot > 0) lo = highest(lo, [&](double u) { return ++tried, tpot_at(o, load_of(o, u, output), output, z99) <= tpot; });
    if (ttft > 0) lo = highest(lo, [&](double u) { return ++tried, ttft_p99_within(o, load_of(o, u, output), output, ttft); });
    at_load(o, lo, output);
    o.sustained_rps = lo * o.capacity_rps;
    if (!best || o.sustained_rps > best->sustained_rps) best = o;
  }
  if (evaluated) *evaluated += tried;
  return best;
}

int choose_tp(const ModelArch& m, const ParamCounts& pc, const Device& d, const InferSettings& base, int gpus) {
  const int limit = std::min(gpus, std::max(1, d.devices_per_node));
  int tp = 1;
  for (int t = 1; t <= limit; t *= 2) {
    if (m.heads % t) break;
    tp = t;
    InferSettings s = base;
    s.tp = t;
    s.batch = 1;
    if (inference_memory(m, pc, d, s).fits()) return t;
  }
  return tp;
}


std::vector<Deployment> try_deployments(const DeploymentQuestion& q, const std::function<InferModel(int, int, int)>& model_at,
                                        const std::function<void(const InferModel&, Deployment&)>& evaluate) {
  std::vector<Deployment> tried;
  auto attempt = [&](int t, int p, int x) {
    const InferModel im = model_at(t, p, x);
    const int limit = batch_limit(im);
    Deployment d;
    d.tp = t, d.pp = p, d.ep = x;
    const int devices = t * p * x;
    if (!im.memory.fits() || limit < 1) {
      d.why = !im.memory.fits() ? "does not fit" : "no room for one sequence's KV";
    } else if (evaluate) {
      evaluate(im, d);
    } else if (auto op = best_batch(im, limit, q.prompt, q.output, q.ttft, q.tpot, &d.evaluated)) {
      d.op = *op;
      const double rate = q.load.rate_at(*op, q.output);
      d.devices = rate > 0 ? replicas_for(rate, op->sustained_rps, devices) * devices : q.load.gpus;
      d.throughput = (d.devices / devices) * op->sustained_rps * q.output;
    } else {
      d.why = "no batch meets the latency targets";
    }
    tried.push_back(d);
    return d.why != "does not fit" && d.why != "no room for one sequence's KV";
  };
  int t = q.first_tp;
  for (; t <= q.widest_tp && q.heads % t == 0; t *= 2) {
    if (q.load.gpus > 0 && q.load.gpus % t) continue;
    if (!attempt(t, 1, 1) && t == q.widest_tp) {
      // The widest degree does not hold the model: pipeline it across more of them.
      for (int p = 2; p <= q.max_pp; p *= 2) {
        if (q.load.gpus > 0 && q.load.gpus % (t * p)) continue;
        if (attempt(t, p, 1)) break;
      }
    }
  }
  for (int x = 2; q.experts > 0 && x <= q.max_ep && q.experts % x == 0; x *= 2)
    if (q.load.gpus <= 0 || q.load.gpus % x == 0) attempt(1, 1, x);
  return tried;
}

std::vector<FrontierPoint> pareto_marked(std::vector<FrontierPoint> points) {
  // By interactivity, fastest first (more throughput first on a tie): a point is on the frontier
  // when its throughput beats every faster point's.
  std::sort(points.begin(), points.end(), [](const FrontierPoint& a, const FrontierPoint& b) {
    return a.tokens_per_s_per_user != b.tokens_per_s_per_user ? a.tokens_per_s_per_user > b.tokens_per_s_per_user
                                                              : a.tokens_per_s_per_gpu > b.tokens_per_s_per_gpu;
  });
  double best = -1;
  for (auto& p : points) {
    p.pareto = p.tokens_per_s_per_gpu > best;
    best = std::max(best, p.tokens_per_s_per_gpu);
  }
  return points;
}

bool better_deployment(const Deployment& a, const Deployment& b, bool for_load) {
  if (a.op.has_value() != b.op.has_value()) return a.op.has_value();
  if (!a.op) return false;
  return for_load ? a.devices < b.devices : a.throughput > b.throughput;
}

Degrees chosen_degrees(const std::vector<Deployment>& tried, bool for_load, int fallback) {
  const Deployment* best = nullptr;
  for (const auto& d : tried)
    if (d.op && (!best || better_deployment(d, *best, for_load))) best = &d;
  if (best) return {best->tp, best->pp, best->ep};
  Degrees chosen{fallback, 1, 1};
  for (const auto& d : tried)
    if (d.why != "does not fit" && d.ep == 1) chosen = {d.tp, d.pp, 1};
  return chosen;
}

double ServingLoad::rate_at(const Operating& op, double output) const {
  if (users > 0) return static_cast<double>(users) / (think_s + op.ttft_s + output * op.tpot_s);
  return rate;
}

namespace {
// The replica's devices as printed ("8 x h100-sxm at tp 8"), and the sequences its KV cache holds;
// Error(no_answer) when the weights or one sequence's cache do not fit.
std::pair<std::string, int> replica_slots(const InferModel& im) {
  const InferMemory& mem = im.memory;
  const std::string on = fmt::format("{} x {} at {}", replica_devices(im.settings), im.device.id, degrees_text(im.settings));
  if (!mem.fits())
    fail(Exit::no_answer, fmt::format("{} ({}) does not fit on {}: {} of {} per device", im.model.id, im.settings.quant, on,
                                      format_iec(mem.total().value()), format_iec(mem.capacity.value())));
  const int slots = batch_limit(im);
  if (slots < 1)
    fail(Exit::no_answer, fmt::format("no room for one {}-token sequence's KV cache on {}", im.settings.context, on));
  return {on, slots};
}
}  // namespace

Sized size_deployment(const InferModel& im, double prompt, double output, double ttft, double tpot, const ServingLoad& load) {
  const int tp = replica_devices(im.settings);
  const auto [on, max_batch] = replica_slots(im);
  const auto best = best_batch(im, max_batch, prompt, output, ttft, tpot);
  if (!best) {
    const Operating one = operate(im, 1, prompt, output, 1.0);
    fail(Exit::no_answer, fmt::format("no batch meets the targets on {}: one request alone has TTFT {} and TPOT {}; "
                                      "try --quant fp8, a larger --tp or a faster device",
                                      on, format_duration(one.ttft_s), format_duration(one.step_s)));
  }
  Sized z;
  z.rate = load.rate_at(*best, output);
  if (z.rate > 0) {
    z.replicas = replicas_for(z.rate, best->sustained_rps, tp);
    z.load_rps = z.rate;
  } else {
    z.replicas = load.gpus / tp;
    z.load_rps = z.replicas * best->sustained_rps;
  }
  z.gpus = z.replicas * tp;
  z.utilisation = z.load_rps / (z.replicas * best->capacity_rps);
  z.op = *best;  // the batch's step and prefill times stand; only the load changes
  at_load(z.op, z.utilisation, output);
  z.throughput = z.load_rps * output;
  return z;
}

std::optional<Disaggregated> size_disaggregated(const InferModel& im, double prompt, double output, double rate,
                                                double ttft, double tpot) {
  const InferSettings& s = im.settings;
  if (rate <= 0 || s.ep > 1 || s.pp > 1) return std::nullopt;
  Disaggregated d;
  d.tp = s.tp;
  const Device& dev = im.device;
  // The KV cache of one prompt, each device its shard, over its share of the node's NICs.
  const double nic = dev.scale_out.bw_per_direction.value() * std::max(1, dev.nics_per_node) / std::max(1, dev.devices_per_node);
  const double shard = prompt * kv_bytes_per_token(im.model, s.kv_elem_bytes, s.tp).value();
  d.kv_transfer_s = nic > 0 ? shard / (nic * im.compute.link) + dev.scale_out.latency.value() : 0;
  // Decode: the largest batch whose step meets TPOT (a step of the full batch, no prefill in it).
  const int limit = std::min(batch_limit(im), max_batch_tried);
  const double context = prompt + output / 2;
  int lo = 0, hi = limit;  // the step grows with the batch
  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;
    if (tpot <= 0 || decode_step_time(im, mid, context).value() <= tpot) lo = mid;
    else hi = mid - 1;
  }
  if (lo < 1) return std::nullopt;
  d.decode_batch = lo;
  d.tpot_s = decode_step_time(im, lo, context).value();
  // Each request holds a decode slot for O steps: slots busy at most 90%.
  const double most = static_cast<double>(max_serving_devices) / d.tp;  // workers of either kind, at most
  const double decode = std::ceil(rate * output * d.tpot_s / (0.9 * d.decode_batch));
  if (decode > most) return std::nullopt;
  d.decode_workers = std::max(1, static_cast<int>(decode));
  // Prefill: one prompt at a time; the fewest workers whose p99 wait, prefill, transfer and first
  // decode step meet TTFT (the wait falls as workers are added: doubling, then bisection).
  d.prefill_s = prefill_time(im, static_cast<long>(prompt), 1).value();
  const double floor = d.prefill_s + prefix_load_time(im, prompt, 1).value() + d.kv_transfer_s + d.tpot_s;
  if (ttft > 0 && floor > ttft) return std::nullopt;
  const double busiest = std::ceil(rate * d.prefill_s / 0.95);
  if (busiest + d.decode_workers > most) return std::nullopt;
  const auto meets = [&](int x) { return ttft <= 0 || floor + wait_quantile(x, rate, d.prefill_s, 0, 0.99) <= ttft; };
  int fewest = std::max(1, static_cast<int>(busiest)), enough = fewest;
  while (!meets(enough)) {
    if (2.0 * enough + d.decode_workers > most) return std::nullopt;
    fewest = enough + 1, enough *= 2;
  }
  while (fewest < enough) {
    const int mid = fewest + (enough - fewest) / 2;
    if (meets(mid)) enough = mid;
    else fewest = mid + 1;
  }
  d.prefill_workers = enough;
  d.ttft_p99_s = floor + wait_quantile(d.prefill_workers, rate, d.prefill_s, 0, 0.99);
  d.devices = (d.prefill_workers + d.decode_workers) * d.tp;
  return d;
}

Sized size_concurrent(const InferModel& im, double prompt, double output, long users, int replicas) {
  const int slots = replica_slots(im).second;
  const long share = (users + replicas - 1) / replicas;  // the busiest replica's users
  const int n = static_cast<int>(std::min<long>(share, slots));
  Sized z;
  z.replicas = replicas;
  z.gpus = replicas * replica_devices(im.settings);
  Operating& o = z.op;
  o.batch = n;
  o.prefill_s = prefill_time(im, static_cast<long>(prompt), 1, n).value();
  o.step_s = decode_step_time(im, n, prompt + output / 2).value();
  // A pipeline's stages each hold a prompt for 1/pp of its prefill.
  o.stall_s = o.prefill_s / im.settings.pp;
  o.request_s = request_time(im, prompt, n).value();
  const double hold = o.stall_s;
  o.tpot_s = o.step_s + n / output * hold;
  // New prompts queue for the prefill, one at a time: an M/D/1 wait at the rate requests complete,
  // which itself falls as the wait grows. The prefill's step samples the first token and decodes
  // the other n - 1 sequences; the rest of the reply takes O - 1 steps. The runtime's own time for
  // a request (request_time: request_overhead, and reading a prefix back from the KV offload tier)
  // comes before its first token. The replica's rate x solves
  // x = n / cycle(x); the right side falls as x rises, so bisection finds it (below 1 / prefill,
  // where the wait is finite).
  const double others = n > 1 ? decode_step_time(im, n - 1, prompt + output / 2).value() : 0;
  auto cycle = [&](double x) {
    return o.request_s + o.prefill_s + mean_wait(1, x, hold, 0) + others + (output - 1) * o.tpot_s;
  };
  double lo = 0, hi = std::min(n / (o.request_s + o.prefill_s + others + (output - 1) * o.tpot_s), 1 / hold);
  for (int i = 0; i < 60; ++i) {
    const double mid = (lo + hi) / 2;
    (mid < n / cycle(mid) ? lo : hi) = mid;
  }
  const double per_replica = lo;  // requests/s
  o.ttft_s = cycle(per_replica) - (output - 1) * o.tpot_s;
  // Users beyond the cache's slots wait for one: a slot frees every 1 / per_replica seconds.
  o.ttft_s += static_cast<double>(share - n) / per_replica;
  o.ttft = Percentiles{o.ttft_s, o.ttft_s, o.ttft_s};
  o.tpot = Percentiles{o.tpot_s, o.tpot_s, o.tpot_s};
  o.capacity_rps = o.sustained_rps = per_replica;
  o.load_share = 1;
  z.load_rps = z.rate = replicas * per_replica;
  z.utilisation = static_cast<double>(n) / slots;
  z.throughput = z.load_rps * output;
  return z;
}

SingleStream single_stream(const InferModel& im, double prompt, double output) {
  return SingleStream{prefill_time(im, static_cast<long>(prompt), 1).value(), decode_step_time(im, 1, prompt + output / 2).value(),
                      request_time(im, prompt, 1).value()};
}

LatencyTargets latency_targets(const std::string& scenario, double ttft, double tpot, bool users) {
  LatencyTargets t{ttft, tpot, {}};
  if (scenario == "server" || scenario == "interactive") {
    const bool interactive = scenario == "interactive";
    if (t.ttft <= 0) t.ttft = interactive ? mlperf_interactive_ttft : mlperf_server_ttft;
    if (t.tpot <= 0) t.tpot = interactive ? mlperf_interactive_tpot : mlperf_server_tpot;
    t.origin = fmt::format("scenario {}: MLPerf Inference Llama-2-70B {} constraints", scenario, scenario);
  } else if (users && ttft <= 0 && tpot <= 0 && scenario != "offline") {
    t.ttft = mlperf_server_ttft, t.tpot = mlperf_server_tpot;
    t.origin = "default with users: MLPerf Inference Llama-2-70B server scenario";
  }
  return t;
}

int replicas_for(double rate, double capacity_rps, int tp) {
  // A replica with no capacity cannot serve any rate (checked before dividing by it).
  const double need = capacity_rps > 0 ? std::ceil(rate / capacity_rps - 1e-9) : HUGE_VAL;
  if (!(need * tp <= static_cast<double>(max_serving_devices)))
    fail(Exit::no_answer, fmt::format("serving {:.3g} requests/s at {:.3g} per replica of {} device{} needs more than {} devices",
                                      rate, capacity_rps, tp, tp == 1 ? "" : "s", max_serving_devices));
  return std::max(1, static_cast<int>(need));  // at most max_serving_devices: no overflow
}

namespace {

// A replica's model at degree tp, with the question's decode and GEMM efficiencies.
InferModel replica(const ServingQuestion& q, const InferSettings& settings, int tp, int pp, int ep) {
  InferSettings at = settings;
  at.tp = tp;
  at.pp = pp;
  at.ep = ep;
  InferModel x = make_infer_model(q.model, q.params, q.device, q.host, at);
  x.decode = q.decode;
  x.compute = q.compute;
  if (q.draft && at.spec_tokens > 0) x = with_draft(x, *q.draft, count_params(*q.draft));
  return x;
}

}  // namespace

namespace {
ServingAnswer serve(const ServingQuestion& q) {
  ServingAnswer a;
  a.host = q.host;
  a.settings = q.settings;
  // The request: a --context without a prompt length is a conversation that fills it, so the
  // prompt is the context less the reply (decode reads that much KV, prefill computes it).
  a.output = static_cast<double>(q.output_tokens > 0 ? q.output_tokens : default_output);
  a.prompt = static_cast<double>(q.prompt_tokens > 0 ? q.prompt_tokens
                                 : q.context > 0     ? std::max(1L, q.context - static_cast<long>(a.output))
                                                     : default_prompt);
  // Lengths drawn uniformly from a share of the nominal up to it (serving benchmarks' random
  // range ratio): the step and the load follow the mean, the cache holds the longest.
  const double nominal_prompt = a.prompt, nominal_output = a.output;
  if (q.length_low < 1) {
    a.prompt *= (1 + q.length_low) / 2;
    a.output *= (1 + q.length_low) / 2;
  }
  a.serving = q.rate > 0 || q.users > 0;
  a.targets = latency_targets(q.scenario, q.ttft_s, q.tpot_s, q.users > 0 || q.population > 0);
  if (q.rate > 0 && a.targets.ttft <= 0 && a.targets.tpot <= 0)
    fail(Exit::usage, "a request rate needs a latency target: ttft and/or tpot, or the server or interactive scenario "
                      "(MLPerf's server scenario is ttft 2 s, tpot 200 ms)");
  if (!a.targets.origin.empty())
    a.assumptions.push_back(Assumption{"latency targets", 0,
                                       fmt::format("TTFT {}, TPOT {}", format_duration(a.targets.ttft), format_duration(a.targets.tpot)),
                                       "", a.targets.origin});
  a.load = ServingLoad{q.rate, q.users, q.think_s >= 0 ? q.think_s : default_think, q.gpus};
  if (q.users > 0 && q.think_s < 0)
    a.assumptions.push_back(Assumption{"think time", default_think, {}, "s", "default assumption: a user reads and types for a minute"});

  // The cache holds the context given; else a request's prompt and reply when requests are
  // described or served; else (the laptop question) the settings' own.
  InferSettings& is = a.settings;
  const bool sized_by_request = a.serving || q.gpus > 0 || q.prompt_tokens > 0 || q.output_tokens > 0;
  if (q.context > 0) is.context = q.context;
  else if (sized_by_request) is.context = static_cast<long>(nominal_prompt + nominal_output);
  if (sized_by_request) is.request_tokens = static_cast<long>(std::ceil(nominal_prompt + nominal_output));
  if (is.runtime == Runtime::ollama && q.context <= 0 && !sized_by_request)
    a.assumptions.push_back(Assumption{"context", static_cast<double>(is.context), {}, "tokens",
                                       "default of ollama by device memory (docs/context-length: under 24 GiB 4k, 24-48 GiB "
                                       "32k, more 256k), at most the model's"});
  const ModelArch& m = q.model;
  if (m.max_context > 0 && is.context > m.max_context) {
    std::string msg = fmt::format("context {} exceeds {}'s maximum of {} tokens", is.context, m.id, m.max_context);
    if (q.strict) fail(Exit::usage, msg);
    a.warnings.push_back(msg);
  }

  // Users who ask again as soon as a reply ends: a closed loop at concurrency `users` (what
  // serving benchmarks measure), on the replicas given, else the fewest that meet the targets.
  const bool concurrent = q.users > 0 && a.load.think_s == 0;
  auto concurrent_at = [&](const InferModel& im) {
    const int t = replica_devices(im.settings);
    if (q.gpus > 0) return size_concurrent(im, a.prompt, a.output, q.users, std::max(1, q.gpus / t));
    auto meets = [&](long r) { return meets_targets(size_concurrent(im, a.prompt, a.output, q.users, static_cast<int>(r)).op,
                                                    a.targets.ttft, a.targets.tpot); };
    const long most = std::min<long>(q.users, max_serving_devices / t);
    if (!meets(most))
      fail(Exit::no_answer, fmt::format("{} concurrent users cannot get TTFT {} and TPOT {} on up to {} replicas of {} x {}",
                                        q.users, format_duration(a.targets.ttft), format_duration(a.targets.tpot), most, t,
                                        q.device.id));
    long lo = 1, hi = most;
    while (lo < hi) {
      const long mid = lo + (hi - lo) / 2;
      if (meets(mid)) hi = mid;
      else lo = mid + 1;
    }
    return size_concurrent(im, a.prompt, a.output, q.users, static_cast<int>(lo));
  };

  // The degrees: those given, else the smallest tensor-parallel degree whose weights fit and, for
  // several devices or a load, the best deployment among the degrees from there to a node, with
  // pipeline stages across nodes where a node cannot hold the model (up to the devices given, or
  // max_serving_stages nodes for a load).
  int& tp = is.tp;
  int& pp = is.pp;
  int& ep = is.ep;
  pp = q.pp > 0 ? q.pp : 1;
  ep = q.ep > 0 ? q.ep : 1;
  // --tp N --ep N: tensor-parallel attention, experts whole across the same devices.
  if (q.tp > 1 && q.ep > 1) {
    if (q.ep != q.tp || q.dp_attention)
      fail(Exit::usage, fmt::format("tp {} with ep {}: expert parallelism beside tensor-parallel attention spreads the experts "
                                    "over the same devices (give --ep equal to --tp), and --dp-attention takes no --tp",
                                    q.tp, q.ep));
    check_expert_split(m, q.ep);
    is.experts_whole = true;
    ep = 1;
  }
  if (q.dp_attention && q.ep <= 1)
    fail(Exit::usage, "--dp-attention runs attention data-parallel beside expert parallelism: give --ep N too");
  if (q.tp > 0 || q.ep > 1) {
    tp = q.tp > 0 ? q.tp : 1;
  } else {
    tp = choose_tp(m, q.params, q.device, is, q.gpus > 0 ? q.gpus : (a.serving ? q.device.devices_per_node : 1));
    if (a.serving || q.gpus > 1 || q.frontier) {
      // llama.cpp and Ollama split layers over every card of the machine they run on, and have no
      // pipeline stages across machines.
      const bool server = serving_runtime(is.runtime);
      const int widest = std::max(1, q.gpus > 0 ? (server ? std::min(q.gpus, q.device.devices_per_node) : q.gpus)
                                                : q.device.devices_per_node);
      DeploymentQuestion dq{a.prompt, a.output, a.targets.ttft, a.targets.tpot, a.load, tp, widest, m.heads};
      dq.max_pp = q.pp > 0 || !server ? 1 : q.gpus > 0 ? std::max(1, q.gpus / widest) : max_serving_stages;
      // Expert parallelism for an MoE model on a serving runtime, unless a layout is given.
      if (m.moe() && serving_runtime(is.runtime) && q.pp <= 0 && q.ep <= 0) {
        dq.max_ep = q.gpus > 0 ? q.gpus : max_serving_ep;
        dq.experts = m.experts;
      }
      const int fixed_pp = pp;
      const auto model_at = [&](int t, int p, int x) { return replica(q, is, t, fixed_pp > 1 ? fixed_pp : p, x); };
      if (concurrent) {
        a.tried = try_deployments(dq, model_at, [&](const InferModel& im, Deployment& d) {
          try {
            const Sized z = concurrent_at(im);
            d.op = z.op, d.devices = z.gpus, d.throughput = z.throughput;
          } catch (const Error& e) {
            d.why = e.what();
          }
        });
      } else {
        a.tried = try_deployments(dq, model_at);
      }
      const Degrees chosen = chosen_degrees(a.tried, concurrent ? q.gpus <= 0 : a.serving, tp);
      if (q.frontier) {
        // Every deployment of a node (or the devices given) at 1, 2, 4, ... concurrent users, up
        // to what its cache holds, each on one replica.
        DeploymentQuestion fq = dq;
        fq.load = ServingLoad{0, 0, 0, q.gpus};
        std::vector<FrontierPoint> points;
        try_deployments(fq, model_at, [&](const InferModel& im, Deployment& d) {
          const int limit = std::min(batch_limit(im), max_batch_tried);
          for (int c = 1; c <= limit; c *= 2) {
            const Sized z = size_concurrent(im, a.prompt, a.output, c, 1);
            FrontierPoint p;
            p.tp = d.tp, p.pp = d.pp, p.ep = d.ep, p.devices = replica_devices(im.settings), p.concurrency = c;
            p.tpot_s = z.op.tpot_s, p.ttft_s = z.op.ttft_s;
            p.tokens_per_s_per_user = 1 / z.op.tpot_s;
            p.tokens_per_s_per_gpu = z.throughput / p.devices;
            points.push_back(p);
          }
          d.why = "swept";
        });
        a.frontier = pareto_marked(std::move(points));
      }
      tp = chosen.tp;
      if (q.pp <= 0) pp = chosen.pp;
      ep = chosen.ep;
    }
  }
  if (ep > 1) {
    check_expert_split(m, ep);
    if (tp > 1 || pp > 1 || !serving_runtime(is.runtime))
      fail(Exit::usage, fmt::format("ep {}: expert parallelism with data-parallel attention is a serving runtime's (vllm, "
                                    "sglang, tensorrt-llm), without --pp; with --tp, give --ep equal to it",
                                    ep));
  }
  if (m.heads % tp) fail(Exit::usage, fmt::format("tp {} does not divide the {} attention heads of {}", tp, m.heads, m.id));
  if (pp > m.layers) fail(Exit::usage, fmt::format("pp {} is more than the {} layers of {}", pp, m.layers, m.id));
  if (pp > 1 && !serving_runtime(is.runtime))
    fail(Exit::usage, fmt::format("pp {}: pipeline stages are a serving runtime's (vllm, sglang, tensorrt-llm); {} splits "
                                  "layers across --tp devices itself", pp, to_string(is.runtime)));
  if (q.gpus > 0 && q.gpus % replica_devices(is))
    fail(Exit::usage, fmt::format("gpus {} is not a multiple of a replica's {} devices ({})", q.gpus, replica_devices(is),
                                  degrees_text(is)));

  // Whether it runs, one stream's speed and, for a load or devices given, the deployment sized.
  a.model = replica(q, is, tp, pp, ep);
  const InferMemory& mem = a.model.memory;
  if (mem.fits_raised_limit()) {
    a.unmet = unified_limit_note(q.device, mem);
  } else if (!mem.fits() && mem.pool.value() > 0) {
    a.unmet = fmt::format("does not fit: {} needed of {}'s {} of unified memory, which must leave the system {}; it would "
                          "run only from swap. Try a smaller quantisation or a shorter context",
                          format_iec(mem.total().value()), q.device.id, format_iec(mem.pool.value()),
                          format_iec(mem.system.value()));
  } else if (!mem.fits() && mem.offloaded_layers == 0 && q.device.family != "cpu") {
    // A memory share given by hand can be what leaves no room: say how much of the total it holds back.
    const std::string reserve =
        is.mem_fraction ? fmt::format(" ({} of it held back by --mem-fraction {:g})", format_iec(mem.reserve.value()),
                                      *is.mem_fraction)
                        : "";
    a.unmet = fmt::format("{} ({}) does not fit on {} x {} at {}: {}{} of {} per device; try {}a smaller quantisation or "
                          "more devices (tp, gpus)",
                          m.id, is.quant, replica_devices(is), q.device.id, degrees_text(is), format_iec(mem.total().value()),
                          reserve, format_iec(mem.capacity.value()), is.mem_fraction ? "a larger --mem-fraction, " : "");
  }
  // Otherwise the memory is the answer, with no speed (the command exits 1). A unified pool runs
  // what fits it, once the GPU's limit is raised.
  a.runs = mem.fits() || mem.fits_raised_limit() ||
           (mem.offloaded_layers > 0 && mem.offloaded_bytes.value() <= q.host.memory.value());
  if (!a.runs && a.unmet.empty())
    a.unmet = fmt::format("{} ({}) does not fit on {} x {}, nor in host memory: the {} of its {} layers left over need {}, and "
                          "{} has {}; try a smaller quantisation (--quants lists them), more devices, or a --host with more "
                          "memory",
                          m.id, is.quant, replica_devices(is), q.device.id, mem.offloaded_layers, m.layers,
                          format_iec(mem.offloaded_bytes.value()), q.host.id, format_iec(q.host.memory.value()));
  a.single = single_stream(a.model, a.prompt, a.output);
  a.gpus = q.gpus > 0 ? q.gpus : replica_devices(is);
  // What does not run has no deployment to size: the memory is the answer (unmet says why).
  if (!a.runs || (!a.serving && q.gpus <= 0)) return a;
  a.sized = concurrent ? concurrent_at(a.model)
                       : size_deployment(a.model, a.prompt, a.output, a.targets.ttft, a.targets.tpot, a.load);
  if (a.serving && q.gpus > 0 && a.sized->gpus > q.gpus)
    a.warnings.push_back(fmt::format("{} devices carry {:.1f} requests/s; {} are needed for {:.1f}", q.gpus,
                                     (q.gpus / replica_devices(is)) * a.sized->op.sustained_rps, a.sized->gpus, a.sized->rate));
  // Fewer than given suffice: say so, as the answer's devices, cost and power are theirs.
  if (a.serving && q.gpus > 0 && a.sized->gpus < q.gpus)
    a.warnings.push_back(fmt::format("{} of the {} devices carry the load ({} replica{} of {}); the answer's devices, cost "
                                     "and power are theirs",
                                     a.sized->gpus, q.gpus, a.sized->replicas, a.sized->replicas > 1 ? "s" : "",
                                     replica_devices(is)));
  a.gpus = a.sized->gpus;
  // Disaggregated prefill and decode beside it, at a rate on a serving runtime: chosen when it
  // carries the load on fewer devices, or when forced.
  if (q.disagg >= 0 && q.rate > 0 && serving_runtime(is.runtime)) {
    a.disaggregated = size_disaggregated(a.model, a.prompt, a.output, q.rate, a.targets.ttft, a.targets.tpot);
    if (a.disaggregated) {
      a.disaggregated_chosen = q.disagg > 0 || a.disaggregated->devices < a.sized->gpus;
      if (a.disaggregated_chosen) a.gpus = a.disaggregated->devices;
    }
  }
  if (q.disagg > 0 && !a.disaggregated_chosen)
    fail(Exit::no_answer, q.rate > 0 && serving_runtime(is.runtime) && is.ep <= 1 && is.pp <= 1
                              ? "no disaggregated deployment meets the latency targets: one prompt's prefill, its KV "
                                "transfer and a decode step already exceed the TTFT target, or no decode batch meets TPOT"
                              : "--disagg sizes prefill and decode workers for a request rate (--rate with --ttft or "
                                "--tpot) on a serving runtime, without pipeline or expert parallelism");
  return a;
}

}  // namespace

// Distinct prefixes (--prefix-count) on several replicas: a router that sends a prefix's requests
// to the replica holding it (llm-d's prefix-aware scheduler, Dynamo's KV-aware router, SGLang's
// cache-aware router) leaves each of R replicas ceil(count / R) of them. A smaller share needs no
// more replicas (though the deployment search may pick other degrees for it), so the fewest R that
// suffice serving their own share is found by bisection, from the replicas the count served whole
// needs down.
ServingAnswer answer_serving(const ServingQuestion& q) {
  ServingAnswer whole = serve(q);
  const long count = q.settings.prefix_count;
  whole.prefixes = count;
  const auto replicas = [](const ServingAnswer& a) { return a.sized ? a.sized->replicas : 1; };
  if (count <= 1 || replicas(whole) <= 1) return whole;
  const auto share = [&](int r) {
    ServingQuestion x = q;
    x.settings.prefix_count = (count + r - 1) / r;
    return serve(x);
  };
  int hi = replicas(whole), lo = 1;  // share(hi) suffices: it needs at most what `whole` needed
  ServingAnswer best = share(hi);
  if (replicas(best) > hi) return whole;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    ServingAnswer a = share(mid);
    if (replicas(a) <= mid) hi = mid, best = std::move(a);
    else lo = mid + 1;
  }
  // Fewer replicas may carry the share `hi` gives them, but each would then serve more prefixes:
  // the deployment is hi replicas, less loaded than sized (its latencies are those of the higher
  // load, an upper bound).
  if (best.sized && best.sized->replicas < hi) {
    Sized& z = *best.sized;
    z.utilisation *= static_cast<double>(z.replicas) / hi;
    z.replicas = hi;
    z.gpus = best.gpus = hi * replica_devices(best.settings);
  }
  best.prefixes = count;
  best.assumptions.push_back(Assumption{"prefix routing", static_cast<double>(best.settings.prefix_count),
                                        fmt::format("of {} prefixes a replica", count), "prefixes",
                                        "requests go to the replica holding their prefix (llm-d's prefix-aware scheduler, "
                                        "Dynamo's KV-aware router): each replica serves its share"});
  return best;
}

}  // namespace gpuplan
