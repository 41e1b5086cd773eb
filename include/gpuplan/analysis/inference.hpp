// SPDX-License-Identifier: Apache-2.0
#pragma once
// Inference: memory (weights at a quantisation, KV cache with GQA/MQA/MLA and sliding windows,
// workspace, the runtime's reserve), layers offloaded to the host when a model does not fit,
// and the speed of each phase: prefill is compute-bound, decode memory-bound. Formulas after
// shared/reference/inference.md section 4; decode uses its two-term form
// t = bytes / (eta x bandwidth) + layers x t_layer, which fits llama.cpp data far better than
// bandwidth / bytes.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/analysis/device.hpp"
#include "gpuplan/analysis/model.hpp"
#include "gpuplan/analysis/step.hpp"

namespace gpuplan {

enum class Runtime { llama_cpp, ollama, vllm, sglang, tensorrt_llm };
Runtime parse_runtime(const std::string& s);  // throws Error(usage)
std::string to_string(Runtime r);
// A serving runtime (vLLM, SGLang, TensorRT-LLM): tensor-parallel kernels, continuous batching
// with chunked prefill, a KV pool sized from the memory left; the others are llama.cpp's kind.
inline bool serving_runtime(Runtime r) { return r == Runtime::vllm || r == Runtime::sglang || r == Runtime::tensorrt_llm; }

// Bits per weight of a quantisation: GGUF formats at their true bits per weight; names in any case
// (Q4_K_M is q4_k_m). Throws Error(usage).
double bits_per_weight(const std::string& quant);
bool is_gguf(const std::string& quant);
// The quantisation's name as gpuplan spells it (lower case), or "auto". Throws Error(usage).
std::string canonical_quant(const std::string& quant);
// Bytes per element of the KV cache: fp16/bf16 2, fp8 1, q8_0 34/32, q4_0 18/32. Throws Error(usage).
double kv_element_bytes(const std::string& dtype);

struct InferSettings {
  std::string quant = "bf16";
  double bpw = 16;
  double expert_bpw = 0;  // bits per routed-expert weight where the format gives them their own (gpt-oss's MXFP4); 0: bpw
  // 4-bit float weights (MXFP4, NVFP4) on a device without FP4 tensor cores: a serving runtime's
  // kernels widen them to 16 bits as they read them (dequant_stream, dequant_gemm in inference.cpp).
  bool dequant_fp4 = false;
  DType compute = DType::bf16;
  double kv_elem_bytes = 2;
  int tp = 1;
  // Pipeline stages of a serving runtime's replica (vLLM's pipeline_parallel_size): each holds
  // ceil(layers / pp) layers on its tp devices, across nodes where one node's cannot hold them.
  int pp = 1;
  // Expert parallelism with data-parallel attention (an MoE model on a serving runtime, as SGLang
  // and vLLM deploy DeepSeek-V3): each of ep devices runs attention and the dense layers for its
  // own sequences and holds experts / ep of every MoE layer's routed experts; 1: none.
  int ep = 1;
  // Tensor-parallel attention with the experts placed whole across the same tp devices (vLLM's and
  // SGLang's "TP8 EP8": --tp N --ep N). Each device holds experts / tp of every MoE layer and runs
  // the tokens routed to them; its bytes, FLOPs and all-reduces are tensor parallelism's, so the
  // step is the tp step. Shown as "tp N ep N".
  bool experts_whole = false;
  long context = 4096;  // tokens one sequence's cache holds
  // A request's prompt and reply, where requests are described (0: not). A paged cache (vLLM,
  // SGLang, TensorRT-LLM) takes blocks as a sequence grows, so it holds this many tokens for one,
  // however long the context it is allowed; llama.cpp and Ollama reserve the context a slot.
  long request_tokens = 0;
  int batch = 1;        // sequences resident at once
  // llama.cpp's physical micro-batch (-ub, n_ubatch; default 512): the rows of each prompt-processing
  // GEMM and of the compute buffer. Serving runtimes batch a step's tokens whole.
  int ubatch = 512;
  Runtime runtime = Runtime::vllm;
  std::optional<Bytes> reserve;  // per device; unset: the runtime's default
  // The runtime's memory share (vLLM's gpu_memory_utilization, SGLang's mem_fraction_static,
  // TensorRT-LLM's kv_cache_free_gpu_mem_fraction); unset: its default.
  std::optional<double> mem_fraction;
  int max_seqs = 0;  // sequences the scheduler runs at once (vLLM's max_num_seqs, ...); 0: the runtime's default
  // Speculative decoding: a draft proposes spec_tokens tokens a step, each accepted with
  // probability spec_accept, and the target verifies them in one pass (0: none).
  int spec_tokens = 0;
  double spec_accept = 0;
  // Prefix caching (vLLM's automatic prefix caching, SGLang's radix cache): the first
  // prefix_tokens of a prompt (a system prompt, an earlier turn) are found cached with
  // probability prefix_hit. A hit is not prefilled again, and the prefix's KV blocks are shared:
  // stored once a replica, not once a sequence.
  long prefix_tokens = 0;
  double prefix_hit = 0;
  // Distinct prefixes of prefix_tokens that requests draw on, equally often: 1, one shared system
  // prompt, stored once; more (each user's own conversation), each a sequence's own blocks while
  // it runs, kept between requests where the cache has room (prefix_found).
  long prefix_count = 1;
  // A KV offload tier (vLLM's CPU offloading connector, LMCache's local CPU and disk backends,
  // SGLang's HiCache): prefixes the device's cache has no room for wait there, per device, and
  // are read back at the tier's bandwidth before the prompt's prefill. None when offload_bytes is 0.
  std::string offload_tier;  // "host" or a local drive's storage id
  Bytes offload_bytes = bytes(0);
  ByteRate offload_read = bytes_per_s(0);  // per device
};
// What a request costs the runtime besides its passes, before its first token reaches the client
// (HTTP, tokenisation, handing the request to the engine and the token back): vLLM's OpenAI
// server 8.8 ms; zero for the others, for want of a measurement.
Seconds request_overhead(Runtime r);
// The tokens one sequence's cache holds at its longest: the request's under a paged cache, else
// the context.
long sequence_tokens(const InferSettings& s);

// The quantisations a runtime offers on a device, widest first (--quant auto, --quants): llama.cpp's
// GGUF ladder; a serving runtime's bf16, fp8, nvfp4 where the device has an FP4 rate, and AWQ.
std::vector<std::string> quant_ladder(Runtime r, const Device& d);
// Sets the weights' format: its bits per weight (the model's native mix where `quant` is the
// format its record names for its experts) and the compute type it runs at (FP8, INT8, FP4 where
// the device has the unit; else bf16, or fp32 on a CPU). Throws Error(usage) for an unknown name.
void set_quant(InferSettings& s, const std::string& quant, const ModelArch& m, const Device& d);

// Devices of one replica: tp x pp x ep.
inline int replica_devices(const InferSettings& s) { return s.tp * s.pp * s.ep; }
// The replica's degrees as printed: "tp 8", "tp 8 pp 2", "ep 16".
std::string degrees_text(const InferSettings& s);

// Tokens a speculative step yields per sequence: the accepted run of k proposals, each accepted
// with probability a, plus the target's own token, (1 - a^(k+1)) / (1 - a) (Leviathan et al.
// 2023, "Fast Inference from Transformers via Speculative Decoding", equation 1).
double spec_tokens_per_step(int k, double a);

// The runtime's headroom: vLLM keeps 10% of memory back (gpu_memory_utilization 0.9), SGLang
// 12% to 21% by tensor-parallel degree (mem_fraction_static), TensorRT-LLM 10% of what the
// weights and activations leave (kv_cache_free_gpu_mem_fraction 0.9); llama.cpp's fit margin is
// 1024 MiB per device, Ollama's minimum 457 MiB on CUDA and 512 MiB on Metal.
Bytes runtime_reserve(Runtime r, const Device& d, int tp, Bytes weights_and_workspace,
                      std::optional<double> fraction = std::nullopt);
// The runtime's default cap on sequences run at once, 0 where only the KV cache bounds them:
// vLLM's max_num_seqs (1,024 on a device of 70 GiB or more that is not an A100, else 256:
// vllm/engine/arg_utils.py get_batch_defaults), TensorRT-LLM's max_batch_size (2,048: llmapi
// llm_args.py); SGLang's max_running_requests defaults to half its KV pool's tokens, which the
// KV limit already bounds, and llama.cpp's to its --parallel slots.
int runtime_max_seqs(Runtime r, const Device& d);

// KV bytes per token on one device (all layers; K and V; heads split by tp, never below one; a
// sparse model's indexer keys beside them).
Bytes kv_bytes_per_token(const ModelArch& m, double elem_bytes, int tp);
// KV bytes for `batch` sequences of `context` tokens on one device; sliding-window layers hold
// at most the window.
Bytes kv_cache_bytes(const ModelArch& m, double elem_bytes, int tp, long context, int batch);
// What a decode step reads of that cache: all of it, but a sparse model's attention reads only
// its top-k tokens' entries (its indexer, every token's key).
Bytes kv_read_bytes(const ModelArch& m, double elem_bytes, int tp, double context, int batch);
// A decode step's attention FLOPs for `queries` queries over `context` cached tokens, split `tp`
// ways: 4 L d_q per key each reads (ModelArch::attended; MLA in its absorbed form, 2 h (2 d_c +
// d_rope)), and a sparse model's indexer over every key.
Flops attention_flops(const ModelArch& m, double context, double queries, double tp);

struct InferMemory {
  Bytes weights = bytes(0), kv_per_token = bytes(0), kv = bytes(0), workspace = bytes(0), reserve = bytes(0);
  Bytes capacity = bytes(0);
  // Unified memory (Apple, DGX Spark, Strix Halo) is one pool: the GPU may wire `capacity` of it
  // by default (macOS's working-set limit), the rest is the system's. A model beyond the limit
  // but within the pool runs once the limit is raised (iogpu.wired_limit_mb on macOS), squeezing
  // the system; beyond the pool it needs swap. 0 on a discrete device.
  Bytes pool = bytes(0);
  Bytes system = bytes(0);  // of the pool, what the operating system keeps at the least (unified_system_minimum)
  int offloaded_layers = 0;             // layers the runtime keeps in host memory (llama.cpp, Ollama)
  Bytes offloaded_bytes = bytes(0);     // host bytes: those layers and their cache
  Bytes total() const { return weights + kv + workspace + reserve; }
  bool fits() const { return total() <= capacity; }
  // Fits the unified pool once the GPU's limit is raised (never on a discrete device).
  bool fits_raised_limit() const { return !fits() && pool.value() > 0 && total() <= pool - system; }
};
// What a unified-memory machine's operating system keeps when the GPU's limit is raised: 4 GiB,
// an estimate (macOS wires about 2 GiB for its kernel, and a desktop session's own processes
// need about as much again); beyond the pool less this, a model runs from swap.
constexpr double unified_system_minimum = 4.0 * 1024 * 1024 * 1024;
// Why a model beyond a unified-memory GPU's default limit is not run as asked, and the setting
// that makes it fit: macOS's iogpu.wired_limit_mb, or the GPU's share elsewhere; with what it
// leaves the system.
std::string unified_limit_note(const Device& d, const InferMemory& mem);
// Routed-expert parameters of the whole model (every MoE layer's routed experts).
double routed_expert_params(const ModelArch& m, const ParamCounts& pc);
// The share of a model's layers on its most loaded pipeline stage: ceil(layers / pp) / layers.
double stage_share(const ModelArch& m, int pp);
InferMemory inference_memory(const ModelArch& m, const ParamCounts& pc, const Device& d, const InferSettings& s);
// The fewest devices that hold the model and the settings' batch of KV: a tensor-parallel degree
// that splits the attention heads for a serving runtime, any count of cards splitting the layers
// for llama.cpp and Ollama; 0 when none up to max_devices does.
int min_inference_devices(const ModelArch& m, const ParamCounts& pc, const Device& d, InferSettings s, int max_devices);
// --quant auto: the widest format of the runtime's ladder whose weights, workspace and the
// settings' batch of KV fit at the settings' tp; the narrowest where none does.
std::string choose_quant(const ModelArch& m, const ParamCounts& pc, const Device& d, InferSettings s);

// Decode efficiency by memory technology: from the two-term fits of llama.cpp's Llama-2
// measurements (inference.md 5.1), means per class. Replaced by calibration when given.
struct DecodeEfficiency {
  double bandwidth = 0.8;             // share of datasheet bandwidth streamed
  Seconds per_layer = seconds(0);     // fixed cost per layer and token (kernel launches, synchronisation)
  std::string origin;
  Seconds per_moe_layer = seconds(0); // a serving runtime's fused-MoE call: its floor per MoE layer and pass
};
// llama.cpp's single-stream figures for a device and the weights' bits (16-bit or quantised).
DecodeEfficiency decode_efficiency(const Device& d, double bits_per_weight);
// For a serving runtime (vLLM, TensorRT-LLM class) the figures differ: decode kernels stream at
// the device's measured streaming efficiency (BabelStream, step.cpp's Efficiency::memory), and
// each layer costs a fixed 45 us a pass: its dozen small kernels (norms, rotary embedding,
// attention over a short cache, activation quantisation) each take a few microseconds however
// little they do, where CUDA graphs leave only 0.58 us a node of launch cost. An MoE layer's fused expert call
// (routing, token sort, two grouped GEMMs) has a floor of its own, about 27 us whatever its bytes.
DecodeEfficiency serving_decode_efficiency(const Device& d);

// Tensor-parallel all-reduce of small activations inside a switched scale-up domain: serving
// runtimes use a one-shot reduce through the switch (two link traversals, NCCL NVLS or
// TensorRT-LLM's custom all-reduce) rather than a ring of 2(n-1) steps.
double switched_allreduce_s(double bytes, int n, double bw, double latency);
// The one-shot all-reduce kernels serving runtimes run inside an NVLink domain (vLLM's and SGLang's
// custom all-reduce, after TensorRT-LLM's), as measured: a few microseconds for a decode step's
// activations, where NCCL's ring pays its hops. Large tensors go to NCCL.
double custom_allreduce_s(const Device& d, double bytes, int n);

struct InferModel {
  ModelArch model;
  ParamCounts params;
  Device device, host;  // host: where offloaded layers live
  InferSettings settings;
  InferMemory memory;
  DecodeEfficiency decode;
  Efficiency compute;
  // The draft model of speculative decoding, on the same devices (its weights and cache are in
  // `memory`); absent with spec_tokens: a drafting head of one layer of the target (EAGLE, MTP).
  std::shared_ptr<const InferModel> draft;
};
// The same model drafting with `draft` (its weights and KV cache join the target's memory).
InferModel with_draft(InferModel target, const ModelArch& draft, const ParamCounts& draft_params);
InferModel make_infer_model(const ModelArch& m, const ParamCounts& pc, const Device& d, const Device& host,
                            const InferSettings& s);

// Prompts a serving runtime prefills together: vLLM's chunked prefill fills a budget of
// max_num_batched_tokens (8192 in its V1 engine) per step.
constexpr double serving_prefill_tokens = 8192;

// The command that starts this deployment on its runtime, with the flags the plan sets: vLLM's
// and SGLang's parallel sizes, sequence cap, model length, memory share and KV dtype, TensorRT-LLM's
// trtllm-serve equivalents, llama.cpp's llama-server context, layers on the device and slots.
// `model` is the checkpoint to serve (a path, or a placeholder naming the catalog model).
std::string launch_line(const InferModel& im, const std::string& model, int seqs);

// Where a request's prefix is found while `resident` sequences run on a replica, as shares of the
// requests that reuse one (prefix_hit of them): in the device's cache, in the offload tier. One
// shared prefix is always on the device. Of prefix_count equally popular ones, the device keeps
// as many as the KV pool has room for beside the running sequences, and the tier as many as its
// bytes hold; each is a prefix's KV on one device.
struct PrefixFound {
  double device = 0, offload = 0;
  double prefixes_device = 0, prefixes_offload = 0;  // prefixes each place holds (a replica)
};
PrefixFound prefix_found(const InferModel& im, int resident);
// The prompt tokens a request finds cached, on average: prefix_hit of the prefix, where it is found.
double cached_prompt_tokens(const InferSettings& s, double prompt, const PrefixFound& found);
// Reading a prefix found in the offload tier back to the device, per request on average: its KV
// on one device (that device's heads and layers) at the tier's read bandwidth. It delays the
// request's first token, not the batch (the copy runs beside the compute).
Seconds prefix_load_time(const InferModel& im, double prompt, int resident);
// What a request costs before its first token besides its passes: request_overhead and the load.
Seconds request_time(const InferModel& im, double prompt, int resident);

// One MoE layer's fused expert call for `tokens` tokens on one device of a tensor-parallel group:
// the touched experts' slices streamed (or their GEMMs, whichever is longer) plus the call's floor;
// the expert part of a decode step, as the benchmarks of vLLM's and SGLang's MoE kernels time it.
Seconds fused_moe_time(const InferModel& im, int tokens);
// Whether llama.cpp (or Ollama) runs these GGUF block-format weights' matrix products as its MMQ
// kernels on int8 tensor cores (since llama.cpp PR #7676, Jun 2024): on NVIDIA cards with GDDR
// memory and an int8 rate. Their GEMMs then run at the int8 rate, under mmq_ceiling; flash
// attention stays in 16 bits. HBM cards keep the 16-bit curve, for want of a current measurement.
bool runs_mmq(const InferSettings& s, const Device& d);
constexpr double mmq_ceiling = 0.365;
// The ceiling of the inference GEMMs' curve: MMQ's, else the precision's (gemm_ceiling).
double gemm_ceiling(const InferModel& im);
// The linear layers' GEMM efficiency on `tokens` tokens at once (prefill; a serving runtime's
// decode batch): the training model's curve at the dense part's largest GEMM (the MLP's first in a
// dense model, the QKV projection in an MoE one), under the precision's ceiling.
double linear_efficiency(const InferModel& im, double tokens);
// An MoE model's routed experts on `tokens` tokens: one grouped GEMM of tokens x k rows.
double expert_efficiency(const InferModel& im, double tokens);
// The linear layers' compute time for `tokens` tokens on `devices` devices sharing it: the dense
// part at linear_efficiency, the routed experts' k copies of each token at expert_efficiency, and
// the output projection for the `logit_rows` of them whose logits are sampled (every row of a
// decode step; a prefill's last position of each prompt).
Seconds linear_compute(const InferModel& im, double tokens, double devices, double logit_rows);
// `prompts` prompts of `tokens` tokens prefilled together, less what each finds cached while
// `resident` sequences run (prefix_found).
Seconds prefill_time(const InferModel& im, long tokens, int prompts, int resident = 1);
// One decode step for `batch` sequences whose caches hold `context` tokens on average.
Seconds decode_step_time(const InferModel& im, int batch, double context);
// Sequences of the settings' context whose KV cache fits beside the weights, workspace and
// reserve on one device (0 when not even one does).
int kv_batch_limit(const InferModel& im);
// The batch the runtime runs at most: the KV limit, capped by max_seqs (given or the runtime's).
int batch_limit(const InferModel& im);
// What sets batch_limit: "kv" or "max_seqs".
const char* batch_limit_cause(const InferModel& im);
// Weight bytes one decode step reads on the device (MoE: the experts a batch of tokens touches).
Bytes decode_weight_bytes(const InferModel& im, int batch);

}  // namespace gpuplan
