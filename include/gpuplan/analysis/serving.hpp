// SPDX-License-Identifier: Apache-2.0
#pragma once
// Serving a load: one replica's operating point at a batch (capacity, TTFT and TPOT under
// load), the batch that serves most within latency targets, the tensor-parallel degree whose
// weights fit, and the replicas a request rate needs. Pure functions of an InferModel.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/analysis/facility.hpp"
#include "gpuplan/analysis/inference.hpp"

namespace gpuplan {

// Largest batch the search tries (vLLM's max_num_seqs is 256 by default; more is allowed).
constexpr int max_batch_tried = 4096;
// Most devices a deployment may need before the answer is "no": every count is checked
// against it, so that no float-to-integer conversion overflows.
constexpr int max_serving_devices = 10'000'000;

// One replica serving requests of P prompt and O output tokens at a batch of B: decode steps
// of all B sequences, interrupted by one prefill per arriving request. Its capacity is
// lambda = B / (O t_d + B t_p); at a load that keeps the prefill busy a share rho of the time,
// a token takes t_d / (1 - rho) and the first token t_p + t_d / (1 - rho).
//
// Tail latency: requests arrive as a Poisson stream and wait for one of the B sequence slots,
// each held for a request's whole life (B / capacity seconds at full load): an M/G/B queue.
// Its wait is M/M/B's (Erlang C) scaled by (1 + c_s^2) / 2 (the Allen-Cunneen approximation),
// with c_s = 0 for requests of fixed length (M/D/B); exact for M/M/1, and Pollaczek-Khinchine's
// closed form for M/D/1. A request's TPOT is its O steps plus the prefill steps that land in
// its life, a Poisson count (taken at its normal quantile).
struct Percentiles {
  double p50 = 0, p90 = 0, p99 = 0;
};
struct Operating {
  int batch = 0;
  double capacity_rps = 0;   // requests per second at full load (the offline capacity)
  double sustained_rps = 0;  // the most it carries within the targets (capacity when none)
  double load_share = 0;     // the load considered, a share of capacity
  double prefill_s = 0, step_s = 0;
  double step1_s = 0;  // one sequence's step (the step at the load is between the two)
  double stall_s = 0;  // how long a prompt's prefill holds up the batch's decoding: prefill_s / pp
  double request_s = 0;  // the runtime's own time for a request before its first token (request_overhead)
  int prefills_per_step = 1;
  double ttft_s = 0, tpot_s = 0;  // means at the load considered
  // At the load considered; absent at full load, where the queue grows without bound.
  std::optional<Percentiles> ttft, tpot;
};
Operating operate(const InferModel& im, int batch, double prompt, double output, double load_share);

// M/M/c: the probability that an arrival waits (Erlang C), with a = lambda / mu offered load
// and c servers; 1 when a >= c.
double erlang_c(int servers, double offered);
// The waiting time of an M/G/c queue at the p-quantile (0 < p < 1): P(W > t) = C exp(-t / m)
// with m = (1 + scv) / 2 / (c mu - lambda); infinite when lambda >= c mu.
double wait_quantile(int servers, double arrival_rate, double service_s, double service_scv, double p);
// Its mean: C m.
double mean_wait(int servers, double arrival_rate, double service_s, double service_scv);

// What a request waits before its prefill starts, as three independent parts: the decode
// iteration in progress when it arrives (uniform on [0, iteration], with the probability that
// the replica is decoding for others: busy, and not prefilling), the prompts queued ahead of it at the prefill (an M/D/1 queue:
// P(W > t) = rho exp(-2 (1 - rho) t / s), Kingman's exponential tail), and a batch slot (the
// M/G/c wait above). Its tail is in closed form (the two exponential waits sum to a
// hypoexponential; the uniform is integrated against it), so percentiles cost a bisection.
struct TtftWait {
  double iteration_s = 0, decoding = 0;  // the uniform part, and the chance an arrival meets it
  double prefill_waits = 0, prefill_rate = 0;  // P(queued at the prefill), its tail's rate
  double slot_waits = 0, slot_rate = 0;        // Erlang C, and 2 (c mu - lambda) / (1 + scv)
  double exceeds(double t) const;               // P(wait > t)
  double mean() const;
  double quantile(double p) const;              // the p-quantile, 0 < p < 1
};

// Whether an operating point meets the targets at p99 (a target of 0 is none); at full load,
// where there are no percentiles, the means.
bool meets_targets(const Operating& o, double ttft, double tpot);

// The batch that carries the most requests per second with p99 TTFT and TPOT within the
// targets: each batch at the highest load share that meets them.
// `evaluated`, when given, counts the operating points tried (a batch at a load).
std::optional<Operating> best_batch(const InferModel& im, int max_batch, double prompt, double output, double ttft,
                                    double tpot, long* evaluated = nullptr);

// Smallest power-of-two tensor-parallel degree inside a node whose weights and one full sequence
// fit (the largest that divides the heads when none does).
int choose_tp(const ModelArch& m, const ParamCounts& pc, const Device& d, const InferSettings& base, int gpus);

// What a deployment serves: a request rate, a closed loop of users, or what given devices sustain.
struct ServingLoad {
  double rate = 0;       // requests/s; with users, derived from them
  long users = 0;        // each asks, waits for the reply, then thinks for think_s
  double think_s = 60;
  int gpus = 0;          // devices given: what they sustain (with a rate: whether they suffice)
  // Requests/s asked at operating point `op`: the rate, or for users a closed loop whose cycle
  // is a reply (TTFT + O TPOT at op) and a think time; 0: what the devices sustain.
  double rate_at(const Operating& op, double output) const;
};

// One deployment tried: replicas of tp x pp devices at their best batch.
struct Deployment {
  int tp = 1;
  int pp = 1;                   // pipeline stages (across nodes, where a node cannot hold the model)
  int ep = 1;                   // expert parallelism with data-parallel attention (MoE models)
  std::optional<Operating> op;  // absent when it cannot serve (why says so)
  int devices = 0;              // what it needs for the load, or the devices given
  double throughput = 0;        // output tokens/s of the deployment
  long evaluated = 0;           // operating points its batch search tried
  std::string why;
};
struct DeploymentQuestion {
  double prompt = 0, output = 0, ttft = 0, tpot = 0;  // request shape and p99 targets (0: none)
  ServingLoad load;    // its gpus: the devices given (0: as many as the load needs)
  int first_tp = 1;    // the smallest degree whose weights fit (choose_tp)
  int widest_tp = 1;   // the largest tried: a node, or the devices given
  int heads = 1;       // a degree must divide the attention heads
  int max_pp = 1;      // the most pipeline stages tried (1: none)
  int max_ep = 1;      // the widest expert parallelism tried (1: none)
  int experts = 0;     // routed experts an expert-parallel degree must divide (0: not MoE)
};
// Every power-of-two degree from first_tp to widest_tp that divides the heads and the devices,
// each with its best batch; at widest_tp, where the model does not fit, pipelines of 2, 4, ...
// max_pp stages of it (vLLM's pipeline parallelism across nodes); for an MoE model, expert
// parallelism over 2, 4, ... max_ep devices with data-parallel attention. model_at(tp, pp, ep)
// builds the replica's model. In the order tried.
// `evaluate`, when given, sizes each replica that fits instead of its best batch (a fixed
// concurrency, say).
std::vector<Deployment> try_deployments(const DeploymentQuestion& q, const std::function<InferModel(int, int, int)>& model_at,
                                        const std::function<void(const InferModel&, Deployment&)>& evaluate = {});
// Whether a is the better deployment: fewer devices for a load, else more throughput; one
// that cannot serve is never better. The order --top lists them in.
bool better_deployment(const Deployment& a, const Deployment& b, bool for_load);
// The degrees to deploy: the best tried (the first on a tie); when none serves, the widest that
// fits, which comes closest to the targets; tp `fallback` alone when none even fits.
struct Degrees {
  int tp = 1, pp = 1, ep = 1;
  bool operator==(const Degrees&) const = default;
};
Degrees chosen_degrees(const std::vector<Deployment>& tried, bool for_load, int fallback);

// A deployment of replicas of `tp` devices, each at its best batch, sized for a load.
struct Sized {
  Operating op;          // at the load served (TTFT, TPOT and their percentiles)
  int replicas = 0, gpus = 0;
  double rate = 0;       // requests/s asked for (0: as many as the devices sustain)
  double load_rps = 0;   // requests/s served
  double utilisation = 0;  // of the replicas' full capacity
  double throughput = 0;   // output tokens/s
};
// `users` requests always in flight (a benchmark's concurrency: each user asks again as soon as its
// reply ends) on `replicas` replicas, each with its share, ceil(users / replicas), in its batch (as
// many as the KV cache holds; the rest wait for a slot). The percentiles are the means. Every
// completion brings a new prompt, whose prefill the batch's decoding waits for, and the prompts
// queue for the prefill (an M/D/1 wait W at the completion rate x):
//   TPOT = step(n) + n / O x prefill(P),  TTFT = prefill(P) + W(x) + step(n) (+ the wait for a slot),
// where each replica completes x = n / (TTFT + (O - 1) TPOT) requests a second.
Sized size_concurrent(const InferModel& im, double prompt, double output, long users, int replicas);

// Disaggregated serving (NVIDIA Dynamo, llm-d, SGLang's PD disaggregation): prefill workers and
// decode workers of the same tp devices. A prefill worker runs prompts one after another (an
// M/D/x queue over the pool); each request's KV cache, prompt x KV bytes per token over tp, then
// crosses to a decode worker over each device's share of the node's NICs (workers in other
// nodes); a decode worker steps its batch with no prefill stalling it. The fewest prefill workers
// that meet the TTFT target at p99 and the fewest decode workers, at the largest batch whose step
// meets TPOT, that keep their slots at most 90% busy.
struct Disaggregated {
  int prefill_workers = 0, decode_workers = 0, tp = 1, devices = 0;
  int decode_batch = 0;
  double prefill_s = 0, kv_transfer_s = 0, ttft_p99_s = 0, tpot_s = 0;
};
// Empty when no decode batch meets TPOT or no prefill pool of up to max_serving_devices meets TTFT.
std::optional<Disaggregated> size_disaggregated(const InferModel& im, double prompt, double output, double rate,
                                                double ttft, double tpot);

// Error(no_answer) when the weights or one sequence's KV do not fit, or no batch meets the
// targets (saying what one request alone gets).
Sized size_deployment(const InferModel& im, double prompt, double output, double ttft, double tpot, const ServingLoad& load);

// One request alone (the local question): prefill of the prompt, then decode steps whose cache
// holds the prompt and half the reply on average.
// One request alone: its prompt's pass samples the first token, after the runtime's own time for
// a request (request_overhead).
struct SingleStream {
  double prefill_s = 0, step_s = 0, request_s = 0;
  double ttft_s() const { return request_s + prefill_s; }
};
SingleStream single_stream(const InferModel& im, double prompt, double output);

// The p99 targets a serving question is held to. MLPerf Inference's Llama-2-70B scenarios:
// server TTFT 2 s and TPOT 200 ms (loadgen mlperf.conf), interactive (v5.0) 450 ms and 40 ms
// (NVIDIA's MLPerf Inference v5.0 results post); users with no target and no scenario get the
// server's. A target given wins over the scenario's.
constexpr double mlperf_server_ttft = 2.0, mlperf_server_tpot = 0.2;
constexpr double mlperf_interactive_ttft = 0.45, mlperf_interactive_tpot = 0.04;
struct LatencyTargets {
  double ttft = 0, tpot = 0;  // 0: none
  std::string origin;         // where defaults came from; empty when none were filled in
};
LatencyTargets latency_targets(const std::string& scenario, double ttft, double tpot, bool users);

// Request shape when none is given: a chat turn of 1,000 prompt tokens and a 300-token reply
// (an assumption, said so in the answer's assumptions), and a user's think time of a minute.
constexpr long default_prompt = 1000, default_output = 300;
constexpr double default_think = 60;
// The most pipeline stages a deployment for a load is given when a node cannot hold the model.
constexpr int max_serving_stages = 16;
// The widest expert parallelism a deployment for a load is given (SGLang's large-scale EP served
// DeepSeek-V3 on 72 decode GPUs; LMSYS blog, 2025-05).
constexpr int max_serving_ep = 64;

// The serving question, resolved from the catalog and the flags: the model, the device and
// the host its offloaded layers use, the runtime's settings (tp set by `tp` or chosen), the
// decode efficiency (calibrated and scaled where the flags say), the requests and the load.
struct ServingQuestion {
  ModelArch model;
  ParamCounts params;
  Device device, host;
  InferSettings settings;
  Efficiency compute;        // the prefill's GEMM curve (calibrated, scaled)
  DecodeEfficiency decode;   // replaces the runtime's default decode efficiency
  long prompt_tokens = 0, output_tokens = 0;  // 0: defaults (the context less the reply, default_*)
  long context = 0;          // the cache's context; 0: what the requests need when served, else the settings' own
  double rate = 0;           // requests per second
  long users = 0;
  double think_s = -1;       // negative: default_think; 0: a closed loop at concurrency `users`
  long population = 0;       // the users behind `rate` (a workload of requests a day): their default targets
  int gpus = 0;              // devices given; 0: one replica, or as many as the load needs
  int tp = 0;                // fixed tensor-parallel degree; 0: chosen
  int pp = 0;                // fixed pipeline stages; 0: chosen (1 unless the widest degree cannot hold the model)
  int ep = 0;                // fixed expert parallelism (data-parallel attention; with tp, tp's devices); 0: chosen for MoE models
  bool dp_attention = false; // --dp-attention: ep with data-parallel attention, as ep alone means
  double length_low = 1;     // request lengths uniform from this share of the nominal to it (1: fixed)
  bool frontier = false;     // sweep deployments and concurrency for the throughput-interactivity curve
  int disagg = 0;            // disaggregated prefill and decode: 1 force it, -1 forbid it, 0 compare
  std::optional<ModelArch> draft;  // speculative decoding's draft model (settings.spec_tokens > 0); absent: a head
  std::string scenario;      // offline, server or interactive; empty: as the targets say
  double ttft_s = 0, tpot_s = 0;
  bool strict = false;       // a context beyond the model's maximum is an error, not a warning
};

// What serving the question comes to: the request, the targets and the load, the degrees tried,
// the replica's model and memory, whether it runs, one stream's speed and, for a load or given
// devices, the deployment sized; with the assumptions it made and what a planner should know.
// One point of the throughput-interactivity curve: a deployment at a fixed concurrency (a closed
// loop of that many users on one replica), as serving benchmarks measure them.
struct FrontierPoint {
  int tp = 1, pp = 1, ep = 1, devices = 1;
  int concurrency = 1;
  double tokens_per_s_per_user = 0;  // 1 / TPOT
  double tokens_per_s_per_gpu = 0;   // output tokens/s over the replica's devices
  double ttft_s = 0, tpot_s = 0;
  bool pareto = false;               // no other point is at least as good on both and better on one
};
// The points of every deployment tried (tp up to a node, pipelines where the model needs them,
// expert parallelism for MoE) at 1, 2, 4, ... up to its batch limit, each marked when it is on the
// Pareto frontier of tokens/s per GPU against tokens/s per user.
std::vector<FrontierPoint> pareto_marked(std::vector<FrontierPoint> points);

struct ServingAnswer {
  InferSettings settings;  // as served: the context sized, the degree chosen
  Device host;
  double prompt = 0, output = 0;
  LatencyTargets targets;
  ServingLoad load;
  bool serving = false;           // a rate or users to carry
  std::vector<Deployment> tried;  // the degrees tried for several devices or a load, when tp is not fixed
  std::vector<FrontierPoint> frontier;  // --frontier: every point swept, the Pareto ones marked
  std::optional<Disaggregated> disaggregated;  // at a rate with targets, unless forbidden
  bool disaggregated_chosen = false;           // it serves the load on fewer devices (or was forced)
  InferModel model;
  SingleStream single;
  bool runs = false;              // fits, or its offloaded layers fit in the host's memory
  std::string unmet;              // why the request is not met as asked (the command exits 1); empty when it is
  std::optional<Sized> sized;
  int gpus = 1;                   // devices in use
  // Distinct prefixes over all replicas (settings.prefix_count: those each replica serves, where
  // requests are routed to the replica holding their prefix).
  long prefixes = 0;
  std::vector<Assumption> assumptions;
  std::vector<std::string> warnings;
  double throughput() const { return sized ? sized->throughput : 1 / single.step_s; }
};
// Throws Error(usage) for a rate with no latency target, a degree that splits no heads evenly or
// devices that are no multiple of it, and a context beyond the model's with `strict`.
ServingAnswer answer_serving(const ServingQuestion& q);

// Replicas of `capacity_rps` each that carry `rate`: ceil(rate / capacity). Throws
// Error(no_answer) when the devices (replicas x tp) would exceed max_serving_devices.
int replicas_for(double rate, double capacity_rps, int tp);

}  // namespace gpuplan
