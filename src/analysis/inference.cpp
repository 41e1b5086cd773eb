// SPDX-License-Identifier: Apache-2.0
#include "gpuplan/analysis/inference.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "gpuplan/error.hpp"
#include "gpuplan/format.hpp"

namespace gpuplan {
namespace {
constexpr double mib = 1024.0 * 1024;

// Tokens vLLM profiles its activation peak at (max_num_batched_tokens of its V1 engine).
constexpr double vllm_profile_tokens = 8192;

Bytes weight_bytes(double params, const InferSettings& s) { return bytes(params * s.bpw / 8); }
// Weights of which `routed` are routed experts, at their own width where the format gives them
// one (gpt-oss's MXFP4 experts).
Bytes weight_bytes(double params, double routed, const InferSettings& s) {
  const double expert_bpw = s.expert_bpw > 0 ? s.expert_bpw : s.bpw;
  return bytes((params - routed) * s.bpw / 8 + routed * expert_bpw / 8);
}

// Parameters of the transformer blocks alone (no embedding, no output head).
double block_params(const ParamCounts& pc) { return pc.total - pc.embedding - pc.encoder - pc.output; }

// What each of a serving runtime's tp devices holds and computes whole beyond its 1/tp share:
// MLA's down-projections (the queries' and the keys' and values' latent with its rotary part),
// which vLLM and SGLang keep replicated on every tensor-parallel rank (vLLM's fused_qkv_a_proj
// and kv_a_proj_with_mqa, SGLang's fused_qkv_a_proj_with_mqa: ReplicatedLinear), over all layers,
// as a share of one device's: params x (1 - 1/tp).
double replicated_extra(const ModelArch& m, const InferSettings& s) {
  if (!m.mla() || s.tp <= 1 || !serving_runtime(s.runtime)) return 0;
  const double down = static_cast<double>(m.hidden) * (m.q_lora_rank + m.kv_lora_rank + m.qk_rope_dim);
  return down * m.layers * (1 - 1.0 / s.tp);
}
}  // namespace

Runtime parse_runtime(const std::string& s) {
  if (s == "llama.cpp" || s == "llamacpp") return Runtime::llama_cpp;
  if (s == "ollama") return Runtime::ollama;
  if (s == "vllm") return Runtime::vllm;
  if (s == "sglang") return Runtime::sglang;
  if (s == "tensorrt-llm" || s == "trtllm") return Runtime::tensorrt_llm;
  fail(Exit::usage, fmt::format("runtime '{}' is not known; expected llama.cpp, ollama, vllm, sglang or tensorrt-llm", s));
}

std::string to_string(Runtime r) {
  switch (r) {
    case Runtime::llama_cpp: return "llama.cpp";
    case Runtime::ollama: return "ollama";
    case Runtime::vllm: return "vllm";
    case Runtime::sglang: return "sglang";
    case Runtime::tensorrt_llm: return "tensorrt-llm";
  }
  return "vllm";
}

namespace {
struct Quant {
  const char* name;
  double bpw;
  bool gguf;
  bool fp4;  // runs at the device's FP4 rate where it has one
};
// GGUF block formats at ggml's block sizes (Q4_0 18 bytes per 32 weights = 4.5 bpw, Q4_1 20/32 =
// 5, Q5_0 22/32 = 5.5, Q5_1 24/32 = 6, Q8_0 34/32 = 8.5, Q6_K 210/256 = 6.5625; ggml-common.h);
// the K-quant mixes at the file bpw llama.cpp's quantize README measures for Llama-3.1-8B (Q4_K_M
// 4.89, Q5_K_M 5.70, Q3_K_M 3.91, Q2_K 3.16); the IQ family at the bpw llama-quantize states for
// each (tools/quantize/quantize.cpp QUANT_OPTIONS: IQ1_S 1.56 ... IQ4_NL 4.50; a file's output and
// embedding tensors at wider types make it a little larger). AWQ/GPTQ/int4: 4 bits plus a 16-bit
// scale and zero per group of 128 = 4.25 (inference.md section 4). MXFP4: 32 FP4 (E2M1) elements
// share one 8-bit power-of-two scale = 4.25 (OCP Microscaling Formats spec v1.0); NVFP4 (fp4, as
// TensorRT-LLM names it): 16 elements share one FP8 (E4M3) scale = 4.5 (NVIDIA Blackwell).
// fp8-block: FP8 weights with one FP32 scale per 128 x 128 block (and activations per 1 x 128
// tile), DeepSeek-V3's format (arXiv 2412.19437 section 3.3), which Kimi K2's and Qwen3's FP8
// checkpoints share: 4 bytes a 16,384 weights, 8 bits to the precision here.
constexpr Quant quants[] = {
    {"fp32", 32, false, false},     {"bf16", 16, false, false},     {"fp16", 16, false, false},
    {"fp8", 8, false, false},       {"fp8-block", 8, false, false}, {"int8", 8, false, false},
    {"int4", 4.25, false, false},
    {"awq", 4.25, false, false},    {"gptq", 4.25, false, false},   {"mxfp4", 4.25, false, true},
    {"nvfp4", 4.5, false, true},    {"fp4", 4.5, false, true},      {"q8_0", 8.5, true, false},
    {"q6_k", 6.5625, true, false},  {"q5_1", 6.0, true, false},     {"q5_k_m", 5.70, true, false},
    {"q5_0", 5.5, true, false},     {"q4_1", 5.0, true, false},     {"q4_k_m", 4.89, true, false},
    {"q4_0", 4.5, true, false},     {"iq4_nl", 4.5, true, false},   {"iq4_xs", 4.25, true, false},
    {"q3_k_m", 3.91, true, false},  {"iq3_m", 3.66, true, false},   {"iq3_s", 3.44, true, false},
    {"iq3_xs", 3.3, true, false},   {"q2_k", 3.16, true, false},    {"iq3_xxs", 3.06, true, false},
    {"iq2_m", 2.7, true, false},    {"iq2_s", 2.5, true, false},    {"iq2_xs", 2.31, true, false},
    {"iq2_xxs", 2.06, true, false}, {"iq1_m", 1.75, true, false},   {"iq1_s", 1.56, true, false},
    {"gguf", 0, true, false}};  // a GGUF file's own mix: its bits come from its header

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

const Quant& find_quant(const std::string& q) {
  const std::string l = lower(q);
  for (const auto& e : quants)
    if (l == e.name) return e;
  std::string names;
  for (const auto& e : quants) names += std::string(names.empty() ? "" : ", ") + e.name;
  fail(Exit::usage, fmt::format("quantisation '{}' is not known; expected auto or one of {} (any case)", q, names));
}
}  // namespace

double bits_per_weight(const std::string& quant) { return find_quant(quant).bpw; }
bool is_gguf(const std::string& quant) { return lower(quant) != "auto" && find_quant(quant).gguf; }

std::string canonical_quant(const std::string& quant) {
  if (lower(quant) == "auto") return "auto";
  return find_quant(quant).name;
}

std::vector<std::string> quant_ladder(Runtime r, const Device& d) {
  if (!serving_runtime(r)) return {"bf16", "q8_0", "q6_k", "q5_k_m", "q4_k_m", "iq4_xs", "q3_k_m", "iq3_m", "q2_k", "iq3_xxs",
                                   "iq2_m", "iq2_xxs", "iq1_m"};
  std::vector<std::string> l{"bf16", "fp8"};
  if (d.peak[static_cast<int>(DType::fp4)] > 0) l.push_back("nvfp4");
  l.push_back("awq");
  return l;
}

bool runs_mmq(const InferSettings& s, const Device& d) {
  // The name lookup last: a serving runtime's GEMMs (the deployment search's) ask at every step.
  return !serving_runtime(s.runtime) && d.peak[static_cast<int>(DType::int8)] > 0 && d.memory_type == "gddr" &&
         is_gguf(s.quant);
}

double gemm_ceiling(const InferModel& im) {
  // llama.cpp's MMQ kernels on int8 tensor cores: fit to RTX 4090, Llama 3 8B Q5_1, 11,330
  // tokens/s at pp2048 with 512-token micro-batches (llama.cpp PR #22298, 2026), where the same
  // curve as the 16-bit GEMMs' reaches this share of the int8 peak. Checked in
  // tests/validation/REPORT.md against other current and older builds.
  if (runs_mmq(im.settings, im.device)) return mmq_ceiling;
  return gemm_ceiling(im.compute, im.device, im.settings.compute);
}

void set_quant(InferSettings& s, const std::string& quant, const ModelArch& m, const Device& d) {
  // FP8 of a model whose own checkpoint is block-scaled (DeepSeek's) is that checkpoint.
  const Quant& q = find_quant(lower(quant) == "fp8" && m.native_quant == "fp8-block" ? m.native_quant : quant);
  s.quant = q.name;
  s.bpw = q.bpw;
  s.expert_bpw = 0;
  // The model's own format at its exact bits (a GGUF file's tensors' bytes over their parameters).
  if (s.quant == m.native_quant && m.native_bpw > 0) s.bpw = m.native_bpw;
  if (s.bpw <= 0)
    fail(Exit::usage, fmt::format("--quant {}: a GGUF file's own mix has the bits its header gives; --model a .gguf file "
                                  "for it, or name a format",
                                  s.quant));
  // A model whose record names a native format for its experts alone (gpt-oss: MXFP4 experts,
  // bf16 attention and router) ships that mix when asked for that format.
  if (!m.native_quant.empty() && m.native_quant_experts && s.quant == m.native_quant && m.moe()) {
    s.expert_bpw = q.bpw;
    // llama.cpp's published GGUF of such a model (ggml-org's gpt-oss) keeps the experts' format and
    // stores the rest as Q8_0: its 20B is 11.27 GiB for 20.91B parameters (llama.cpp
    // benches/dgx-spark.md). Ollama's library build keeps them 16-bit (its gpt-oss:20b is 14 GB).
    s.bpw = s.runtime == Runtime::llama_cpp ? find_quant("q8_0").bpw : 16;
  }
  const auto has = [&](DType t) { return d.peak[static_cast<int>(t)] > 0; };
  s.dequant_fp4 = q.fp4 && !has(DType::fp4);
  // Hopper's tensor cores take one scale per operand: a block-scaled GEMM rescales its partial
  // sums on the CUDA cores after every 128-deep slice of k (DeepSeek-V3 report, section 3.3.2),
  // which costs it FP8's advantage. vLLM PR #23280 (H100, Sep 2025) measured DeepSeek-V3's
  // N=2112 K=7168 GEMM at 2,048-8,192 rows at 427-490 TFLOP/s with 128 x 128 block scales against
  // 648-716 in BF16; SGLang PR #5207 measured N=24576 K=7168 at 4,096 rows at 810 (vLLM's kernel)
  // to 1,220 TFLOP/s (DeepGEMM). So they run at about the 16-bit rate there: estimate. Blackwell's
  // tensor cores apply block scales themselves; CDNA's rate is left at FP8's for want of a measurement.
  const bool blocks_cost_fp8 = s.quant == "fp8-block" && d.family == "hopper";
  if ((s.quant == "fp8" || s.quant == "fp8-block") && has(DType::fp8) && !blocks_cost_fp8) s.compute = DType::fp8;
  else if (s.quant == "int8" && has(DType::int8)) s.compute = DType::int8;
  else if (runs_mmq(s, d)) s.compute = DType::int8;
  else if (q.fp4 && s.expert_bpw == 0 && has(DType::fp4)) s.compute = DType::fp4;
  else if (d.family == "cpu") s.compute = DType::fp32;
  else s.compute = has(DType::bf16) ? DType::bf16 : DType::fp16;
}

int min_inference_devices(const ModelArch& m, const ParamCounts& pc, const Device& d, InferSettings s, int max_devices) {
  for (int n = 1; n <= max_devices; ++n) {
    if (serving_runtime(s.runtime) && m.heads % n) continue;
    s.tp = n;
    if (inference_memory(m, pc, d, s).fits()) return n;
  }
  return 0;
}

std::string choose_quant(const ModelArch& m, const ParamCounts& pc, const Device& d, InferSettings s) {
  const std::vector<std::string> ladder = quant_ladder(s.runtime, d);
  for (const auto& q : ladder) {
    set_quant(s, q, m, d);
    if (inference_memory(m, pc, d, s).fits()) return q;
  }
  return ladder.back();
}

double kv_element_bytes(const std::string& dtype) {
  if (dtype == "fp16" || dtype == "bf16") return 2;
  if (dtype == "fp8") return 1;
  if (dtype == "q8_0") return 34.0 / 32;
  if (dtype == "q4_0") return 18.0 / 32;
  if (dtype == "fp32") return 4;
  fail(Exit::usage, fmt::format("KV cache type '{}' is not known; expected fp16, bf16, fp8, q8_0, q4_0 or fp32", dtype));
}

Bytes runtime_reserve(Runtime r, const Device& d, int tp, Bytes weights_and_workspace, std::optional<double> fraction) {
  switch (r) {
    case Runtime::vllm: return (1 - fraction.value_or(0.9)) * d.usable_memory();
    case Runtime::sglang: {
      // mem_fraction_static by tensor-parallel degree (SGLang server_args.py: 0.88 at tp 1, 0.87
      // at 2, 0.85 at 4, 0.81 at 8, 0.79 at 16 and more), the rest of memory held back.
      const double share = tp >= 16 ? 0.79 : tp >= 8 ? 0.81 : tp >= 4 ? 0.85 : tp >= 2 ? 0.87 : 0.88;
      return (1 - fraction.value_or(share)) * d.usable_memory();
    }
    case Runtime::tensorrt_llm:
      // kv_cache_free_gpu_mem_fraction 0.9 of what the weights and activations leave
      // (TensorRT-LLM perf-overview: "the default setting of 0.90").
      return (1 - fraction.value_or(0.9)) * std::max(bytes(0), d.usable_memory() - weights_and_workspace);
    case Runtime::llama_cpp: return bytes(1024 * mib);
    case Runtime::ollama: return bytes((d.family == "apple" ? 512 : 457) * mib);
  }
  return bytes(1024 * mib);
}

std::string launch_line(const InferModel& im, const std::string& model, int seqs) {
  const InferSettings& s = im.settings;
  const bool fp8_kv = s.kv_elem_bytes == 1;
  const int ep = s.experts_whole ? s.tp : s.ep;
  // The memory share the plan assumed: the one given, else the runtime's default at this degree.
  const Bytes usable = im.device.usable_memory();
  const double share = s.mem_fraction.value_or(usable.value() > 0 ? 1 - (im.memory.reserve / usable) : 0.9);
  std::string line;
  switch (s.runtime) {
    case Runtime::vllm:
      // vLLM's engine arguments (docs.vllm.ai, serving/engine_args): data-parallel attention is
      // --data-parallel-size with --enable-expert-parallel, the experts spread over dp x tp.
      // Each data-parallel rank is an engine of its own, whose --max-num-seqs caps its own batch:
      // the replica's sequences over the ranks.
      line = fmt::format("vllm serve {}", model);
      if (s.ep > 1) line += fmt::format(" --data-parallel-size {} --enable-expert-parallel", s.ep);
      else line += fmt::format(" --tensor-parallel-size {}", s.tp);
      if (s.experts_whole) line += " --enable-expert-parallel";
      if (s.pp > 1) line += fmt::format(" --pipeline-parallel-size {}", s.pp);
      line += fmt::format(" --max-num-seqs {} --max-model-len {} --gpu-memory-utilization {:.2f}",
                          s.ep > 1 ? (seqs + s.ep - 1) / s.ep : seqs, s.context, share);
      if (fp8_kv) line += " --kv-cache-dtype fp8";
      if (s.prefix_tokens <= 0) line += " --no-enable-prefix-caching";
      return line;
    case Runtime::sglang:
      // SGLang's server arguments (docs.sglang.ai, backend/server_arguments): DP attention is
      // --dp-size N --enable-dp-attention inside a tp group of the same size.
      line = fmt::format("python -m sglang.launch_server --model-path {} --tp-size {}", model, s.ep > 1 ? s.ep : s.tp);
      if (s.ep > 1) line += fmt::format(" --dp-size {} --enable-dp-attention --ep-size {}", s.ep, s.ep);
      else if (ep > 1) line += fmt::format(" --ep-size {}", ep);
      if (s.pp > 1) line += fmt::format(" --pp-size {}", s.pp);
      line += fmt::format(" --max-running-requests {} --context-length {} --mem-fraction-static {:.2f}", seqs, s.context, share);
      if (fp8_kv) line += " --kv-cache-dtype fp8_e4m3";
      if (s.prefix_tokens <= 0) line += " --disable-radix-cache";
      return line;
    case Runtime::tensorrt_llm:
      // trtllm-serve's options (TensorRT-LLM docs, commands/trtllm-serve); the KV dtype follows the
      // checkpoint's quantisation config.
      line = fmt::format("trtllm-serve {} --tp_size {}", model, s.ep > 1 ? s.ep : s.tp);
      if (s.pp > 1) line += fmt::format(" --pp_size {}", s.pp);
      if (ep > 1) line += fmt::format(" --ep_size {}", ep);
      return line + fmt::format(" --max_batch_size {} --max_seq_len {} --kv_cache_free_gpu_memory_fraction {:.2f}", seqs,
                                s.context, s.mem_fraction.value_or(0.9));
    case Runtime::llama_cpp:
    case Runtime::ollama: {
      // llama-server's options (llama.cpp tools/server/README.md): layers on the device(s), the
      // context for all slots, the slots; Ollama takes the context from OLLAMA_CONTEXT_LENGTH.
      // -ngl 99 puts every layer (and the output layer) on the device(s); a CPU runs them all itself.
      const int on_device = im.device.family == "cpu"          ? 0
                            : im.memory.offloaded_layers > 0 ? im.model.layers - im.memory.offloaded_layers
                                                             : 99;
      if (s.runtime == Runtime::ollama) return fmt::format("OLLAMA_CONTEXT_LENGTH={} ollama run {}", s.context, model);
      line = fmt::format("llama-server -m {} -c {} -ngl {} -np {}", model, s.context * std::max(1, seqs), on_device,
                         std::max(1, seqs));
      if (s.tp > 1) line += " --split-mode layer";
      // -b (the logical batch, 2048 by default) must hold the micro-batch.
      if (s.ubatch != 512) line += fmt::format(" -ub {}{}", s.ubatch, s.ubatch > 2048 ? fmt::format(" -b {}", s.ubatch) : "");
      if (s.kv_elem_bytes < 2) {
        const char* type = s.kv_elem_bytes > 1 ? "q8_0" : "q4_0";  // 34/32 or 18/32 bytes an element
        line += fmt::format(" -ctk {} -ctv {} -fa on", type, type);
      }
      return line;
    }
  }
  return line;
}

int runtime_max_seqs(Runtime r, const Device& d) {
  constexpr double gib = 1024.0 * 1024 * 1024;
  switch (r) {
    case Runtime::vllm: return d.memory.value() >= 70 * gib && d.id.rfind("a100", 0) != 0 ? 1024 : 256;
    case Runtime::tensorrt_llm: return 2048;
    default: return 0;
  }
}

namespace {
// The main cache's bytes per token: without a sparse model's indexer keys.
Bytes attention_kv_per_token(const ModelArch& m, double elem_bytes, int tp) {
  // MLA caches the compressed latent and the rotary key once per layer, whole on every rank.
  const double layers = m.attention_layers();
  if (m.mla()) return bytes(layers * (m.kv_lora_rank + m.qk_rope_dim) * elem_bytes);
  const int heads = std::max(1, (m.kv_heads + tp - 1) / tp);
  return bytes(2.0 * layers * heads * m.head_dim * elem_bytes);
}
}  // namespace

Bytes kv_bytes_per_token(const ModelArch& m, double elem_bytes, int tp) {
  // A sparse model's indexer keeps its keys beside them, whole on every rank too.
  return attention_kv_per_token(m, elem_bytes, tp) + bytes(m.attention_layers() * m.indexer_key_bytes());
}

Bytes kv_read_bytes(const ModelArch& m, double elem_bytes, int tp, double context, int batch) {
  if (!m.sparse()) return kv_cache_bytes(m, elem_bytes, tp, static_cast<long>(std::ceil(context)), batch);
  // The indexer reads every cached token's key; attention, the top-k tokens' entries alone.
  const double topk = std::min(context, static_cast<double>(m.sparse_topk));
  return (attention_kv_per_token(m, elem_bytes, tp) * topk + bytes(m.attention_layers() * m.indexer_key_bytes() * context)) *
         static_cast<double>(batch);
}

namespace {
// FLOPs of one (query, key) pair in one attention layer: QK^T and PV, 2 d_q each (4 d_q). MLA
// (DeepSeek-V2, arXiv 2405.04434, section 2.1) differs by phase. Decompressed, as prefill runs it,
// a head's keys have d_nope + d_rope dimensions and its values d_v: 2 h (d_nope + d_rope) + 2 h d_v.
// In decode the serving engines absorb W_UK into the query and W_UV into the output (FlashMLA;
// vLLM's, SGLang's and TensorRT-LLM's MLA decode kernels), so every head attends the shared
// latent as multi-query attention: scores over d_c + d_rope, values over d_c, 2 h (d_c + d_rope) +
// 2 h d_c. At DeepSeek-V3's shapes that is 278,528 a pair against the decompressed form's 81,920:
// 483 FLOPs a byte of an FP8 latent, compute-bound on every device (FlashMLA's own sweep on H800
// runs at its compute roofline).
double pair_width(const ModelArch& m, bool decode) {
  if (!m.mla()) return 4.0 * static_cast<double>(m.q_width());
  const double h = m.heads;
  if (decode) return 2 * h * (m.kv_lora_rank + m.qk_rope_dim) + 2 * h * m.kv_lora_rank;
  return 2 * h * (m.qk_nope_dim + m.qk_rope_dim) + 2 * h * m.v_head_dim;
}

// Attention's FLOPs over the attention layers for `read` (query, key) pairs attended (pair_width
// each), and `scored` pairs a sparse model's indexer scores, 2 x its heads x width each.
Flops pair_flops(const ModelArch& m, double read, double scored, bool decode) {
  return flops(m.attention_layers() * (pair_width(m, decode) * read +
                                       (m.sparse() ? 2.0 * m.indexer_heads * m.indexer_dim * scored : 0)));
}
}  // namespace

Flops attention_flops(const ModelArch& m, double context, double queries, double tp) {
  // Each query reads its layer's bound of the context (attended); the indexer scores all of it.
  return pair_flops(m, m.attended(context), context, true) * (queries / tp);
}

Bytes kv_cache_bytes(const ModelArch& m, double elem_bytes, int tp, long context, int batch) {
  const int layers = m.attention_layers();
  const Bytes per_layer = layers > 0 ? kv_bytes_per_token(m, elem_bytes, tp) / static_cast<double>(layers) : bytes(0);
  int sliding = 0;
  if (m.sliding_window > 0) sliding = m.sliding_layers > 0 ? m.sliding_layers : layers;
  const double tokens = static_cast<double>(layers - sliding) * static_cast<double>(context) +
                        static_cast<double>(sliding) * static_cast<double>(std::min(context, m.sliding_window));
  // A hybrid's linear layers hold their state whatever the context, split with their heads.
  const Bytes state = bytes(m.linear_layers * m.linear_state_bytes / tp);
  return (per_layer * tokens + state) * static_cast<double>(batch);
}

std::string unified_limit_note(const Device& d, const InferMemory& mem) {
  const double need = mem.total().value(), pool = mem.pool.value();
  const std::string head =
      fmt::format("does not fit in the {} the GPU may use of {}'s {} of unified memory by default ({} needed)",
                  format_iec(mem.capacity.value()), d.id, format_iec(pool), format_iec(need));
  // The limit in MiB, rounded up to a whole GiB so that the runtime's own allocations fit.
  const double limit_mib = std::ceil(need / (1024.0 * mib)) * 1024;
  const std::string leaves = format_iec(std::max(0.0, pool - limit_mib * mib));
  if (d.family == "apple")
    return fmt::format("{}; it fits once the limit is raised (sudo sysctl iogpu.wired_limit_mb={:.0f}), leaving macOS "
                       "{}", head, limit_mib, leaves);
  return fmt::format("{}; it fits once the GPU's share is raised to {} (the driver's or firmware's setting), leaving the "
                     "system {}", head, format_iec(limit_mib * mib), leaves);
}

double routed_expert_params(const ModelArch& m, const ParamCounts& pc) {
  return m.moe() ? static_cast<double>(m.moe_layers()) * m.experts * pc.expert : 0.0;
}

double stage_share(const ModelArch& m, int pp) {
  return pp > 1 ? std::ceil(static_cast<double>(m.layers) / pp) / m.layers : 1.0;
}

InferMemory inference_memory(const ModelArch& m, const ParamCounts& pc, const Device& d, const InferSettings& s) {
  InferMemory r;
  // A pipeline stage holds its layers' share of the blocks and, at either end, the embedding or
  // the output layer (the larger counts: the most loaded stage).
  const double stage = stage_share(m, s.pp);
  const double stage_params = s.pp > 1 ? block_params(pc) * stage + std::max(pc.embedding + pc.encoder, pc.output) : pc.total;
  const double routed = routed_expert_params(m, pc);
  r.weights = weight_bytes(stage_params, routed * stage, s) / static_cast<double>(s.tp) +
              weight_bytes(replicated_extra(m, s) * stage, s);
  // Expert parallelism: every device keeps the rest whole and its share of the routed experts.
  if (s.ep > 1) r.weights = weight_bytes(pc.total - routed + routed / s.ep, routed / s.ep, s);
  r.kv_per_token = kv_bytes_per_token(m, s.kv_elem_bytes, s.tp) * stage;
  r.kv = kv_cache_bytes(m, s.kv_elem_bytes, s.tp, s.context, s.batch) * stage;
  if (serving_runtime(s.runtime)) {
    // The activation peak of the profile run: hidden states, QKV and the MLP's gate and up
    // projections in 16 bits (an estimate; vLLM measured 1.42 GiB for Qwen2.5-7B, issue #13882).
    const double ffn = m.moe() ? static_cast<double>(m.expert_ffn) * (m.active_experts + m.shared_experts) : m.ffn;
    r.workspace = bytes(vllm_profile_tokens * (4.0 * m.hidden + 3.0 * ffn / s.tp) * 2);
  } else {
    // llama.cpp's compute buffer: fp32 hidden state and logits of one micro-batch (inference.md 4).
    r.workspace = bytes(4.0 * s.ubatch * (m.hidden + m.vocab));
  }
  r.reserve = s.reserve ? *s.reserve : runtime_reserve(s.runtime, d, s.tp, r.weights + r.workspace, s.mem_fraction);
  r.capacity = d.usable_memory();
  if (d.unified_memory) {
    r.pool = d.memory;
    r.system = bytes(std::min(unified_system_minimum, d.memory.value() * (1 - d.gpu_memory_share)));
  }
  // Offload to host memory needs a host memory apart from the device's: a unified pool has none.
  if (!r.fits() && !serving_runtime(s.runtime) && d.family != "cpu" && !d.unified_memory) {
    // Layers go to host memory from the first, until the rest fits with the runtime's margin
    // (llama.cpp --fit; Ollama fills from the last layer). The token embedding stays on the host.
    const Bytes per_layer = (weight_bytes(block_params(pc), routed, s) / static_cast<double>(s.tp) + r.kv) / static_cast<double>(m.layers);
    const Bytes fixed = weight_bytes(pc.output, s) / static_cast<double>(s.tp) + r.workspace + r.reserve;
    const double room = (r.capacity - fixed) / per_layer;
    // Clamped as a double: a huge or NaN room must not reach the integer cast.
    const int on_device = room > 0 ? static_cast<int>(std::floor(std::min(room, static_cast<double>(m.layers)))) : 0;
    r.offloaded_layers = m.layers - on_device;
    r.offloaded_bytes = per_layer * static_cast<double>(r.offloaded_layers) + weight_bytes(pc.embedding + pc.encoder, s) / static_cast<double>(s.tp);
  }
  return r;
}

DecodeEfficiency decode_efficiency(const Device& d, double bpw) {
  // GDDR (NVIDIA's consumer and workstation cards) on current CUDA builds: a two-term fit,
  // t = bytes / (eta BW) + layers x t_layer, to three llama.cpp single-token runs, each at one
  // token per micro-batch (pp512 at -ub 1, so the logits of all but the last token are skipped):
  // RTX 4090 Llama 3 8B BF16 65.21 tokens/s (PR #15131, Aug 2025), RTX 5090 Llama 3.2 1B BF16 652.28
  // (PR #24216, 2026) and RTX 3090 Llama 3 8B Q4_0 155.02 (PR #15802, Sep 2025). The two BF16 runs
  // give eta 0.95 and 24 us a layer (CUDA graphs, on by default since PR #6766, Apr 2024, removed
  // most launches); Q4_0 then streams at 0.75: the quantised dot-product kernels dequantise as they
  // read. Checked out of sample in tests/validation/REPORT.md.
  const bool sixteen = bpw >= 16;
  if (d.memory_type == "gddr")
    return sixteen ? DecodeEfficiency{0.95, seconds(24e-6), "GDDR, 16-bit weights: fit to llama.cpp's 2025-26 CUDA runs"}
                   : DecodeEfficiency{0.75, seconds(24e-6), "GDDR, quantised weights: fit to llama.cpp's 2025-26 CUDA runs"};
  // Two-term fits to llama.cpp's Llama-2 decode (XiongjieDai, Dec 2023; inference.md 5.1).
  // Unified LPDDR behind CUDA (DGX Spark's GB10): the unified-memory streaming share above with the
  // CUDA builds' per-layer cost (CUDA graphs). Checked out of sample on ggml-org's DGX Spark runs
  // (tests/validation/REPORT.md).
  const bool cuda = d.family == "volta" || d.family == "turing" || d.family == "ampere" || d.family == "ada" ||
                    d.family == "hopper" || d.family == "blackwell";
  if (d.memory_type == "lpddr" && cuda)
    return {0.86, seconds(24e-6), "unified LPDDR on CUDA: the unified-memory share, CUDA's per-layer cost"};
  if (d.memory_type == "lpddr") return {0.86, seconds(0.166e-3), "unified LPDDR: the M2 Ultra fit (Dec 2023 builds)"};
  if (d.memory_type == "ddr")
    return {0.60, seconds(0), "CPU DDR: about 80% of a STREAM ceiling that is about 75% of channels x MT/s x 8 B (estimate)"};
  // HBM: the mean of the Dec 2023 A100 and H100 PCIe fits (0.142 ms a layer), less what CUDA
  // graphs saved a layer on an H100 PCIe (Llama 2 7B Q4_K_M, 143.35 to 163.83 tokens/s: 27 us;
  // llama.cpp issue #6763, Apr 2024). No later HBM measurement was found to refit it on.
  return {0.72, seconds(0.115e-3), "HBM: the Dec 2023 A100 and H100 PCIe fits, less CUDA graphs' saving"};
}

DecodeEfficiency serving_decode_efficiency(const Device& d) {
  const Efficiency e = default_efficiency(d);
  if (d.family == "cpu" || d.family == "apple") return decode_efficiency(d, 16);
  // The fused-MoE floor: the kernel time vLLM's and SGLang's MoE benchmarks (benchmark_moe.py,
  // tuning_fused_moe_triton.py) measure at one token, less the time to stream its experts at the
  // family's efficiency: Mixtral 8x7B BF16 TP2 on H100 144.0 us (24.7 us left; vLLM PR #24700,
  // Sep 2025), Qwen3-30B-A3B FP8 on H100 40.4 us (27.6; same PR), Qwen3-Next-80B FP8 TP4 on H100
  // 29.5 us (26.8; vLLM PR #44830) and Qwen3-235B-A22B FP8 TP8 on H200 31.7 us (27.1; SGLang PR
  // #11730): 27 us, their mean rounded. The three small ones read experts an L2 cache can hold,
  // which makes their residuals lower bounds. Checked at larger batches in tests/validation/REPORT.md.
  // The fixed cost a layer and pass: fit (rounded) to vLLM 0.30.0 serving Qwen3-8B in BF16 on one
  // H100 SXM to one user, 6.83 ms a token at 128/128 (tgarg01/silybench-data, perf_points.csv,
  // 2026-09-24), where the 36 layers' 15.1 GB of weights stream in 5.1 ms at the family's
  // efficiency. Out of sample: the same runs' FP8 rows (3-9% fast: FP8's small-batch GEMMs stream
  // slower), NIM's TensorRT-LLM Llama 3.3 70B at one user and the TensorRT-LLM throughput tables
  // (tests/validation/REPORT.md). The CUDA-graph launch cost alone (12 x 0.58 us) left single-user
  // decode 13-39% fast on those runs.
  return {e.memory, seconds(45e-6),
          "serving runtime: streaming efficiency of the family; 45 us a layer and pass (fit to vLLM's one-user decode)",
          seconds(27e-6)};
}

double switched_allreduce_s(double bytes, int n, double bw, double latency) {
  if (n <= 1 || bytes <= 0) return 0;
  return 2.0 * (n - 1) / n * bytes / bw + 2 * latency;
}

// SGLang PR 2904 (2025-01) timed its custom all-reduce on H100 SXM from 512 B to 1 MB; a line
// through each degree's six points: tp 2 3.9 us + bytes / 64.6 GB/s, tp 4 4.9 us + bytes /
// 38.2 GB/s, tp 8 7.0 us + bytes / 37.4 GB/s (within 2.7 us of every point). The bandwidth term is
// taken to scale with the link's bandwidth over H100's 450 GB/s (an assumption).
double custom_allreduce_s(const Device& d, double bytes, int n) {
  const double latency = n <= 2 ? 3.9e-6 : n <= 4 ? 4.9e-6 : 7.0e-6;
  const double bw = (n <= 2 ? 64.6e9 : n <= 4 ? 38.2e9 : 37.4e9) * d.scale_up.bw_per_direction.value() / 450e9;
  return latency + bytes / bw;
}

InferModel make_infer_model(const ModelArch& m, const ParamCounts& pc, const Device& d, const Device& host,
                            const InferSettings& s) {
  // A serving runtime reading GGUF weights runs llama.cpp's own kernels, ported (vLLM's
  // csrc/quantization/gguf: mmvq.cuh, vecdotq.cuh from ggml): it streams them no faster than
  // llama.cpp does.
  const bool own_kernels = serving_runtime(s.runtime) && !is_gguf(s.quant);
  // A native mix (gpt-oss: MXFP4 experts, 16-bit attention) streams mostly its experts' blocks,
  // which llama.cpp dequantises as it reads: the quantised formats' efficiency.
  DecodeEfficiency decode =
      own_kernels ? serving_decode_efficiency(d) : decode_efficiency(d, s.expert_bpw > 0 ? s.expert_bpw : s.bpw);
  if (serving_runtime(s.runtime) && !own_kernels) decode.origin = "GGUF weights on a serving runtime: llama.cpp's kernels, ported";
  return InferModel{m, pc, d, host, s, inference_memory(m, pc, d, s), decode, default_efficiency(d), nullptr};
}

Seconds request_overhead(Runtime r) {
  // vLLM 0.30.0 (tgarg01/silybench-data, perf_points.csv, 2026-09-24; vllm bench serve, streamed):
  // one user's TTFT of 128-token prompts to Qwen3-8B on one H100 is 14.45 and 14.43 ms in FP8,
  // 14.23 and 14.10 ms in BF16, where the prompt's own pass is modelled at 4.2 and 6.8 ms. The
  // mean of the four residuals, 8.8 ms, is this fit; it is what the server and client add to a
  // pass at any prompt length (the longer prompts' rows check it, with the prefill's own error).
  // NIM's TensorRT-LLM rows leave at most a few milliseconds (tests/validation/REPORT.md).
  return r == Runtime::vllm ? seconds(8.8e-3) : seconds(0);
}

long sequence_tokens(const InferSettings& s) {
  return serving_runtime(s.runtime) && s.request_tokens > 0 ? std::min(s.request_tokens, s.context) : s.context;
}

namespace {
// A device's KV pool: the room the weights, workspace and reserve leave (layers llama.cpp keeps in
// host memory take their weights and their share of the cache there), what one running sequence
// holds of it, and one prefix's blocks.
struct KvPool {
  Bytes room = bytes(0), per_sequence = bytes(0), prefix = bytes(0);
  bool shared = false;  // one prefix for all: stored once, not in each sequence
};

// One sequence's cache of `tokens` tokens in `m` on one device of the tensor-parallel group.
Bytes sequence_cache(const ModelArch& m, const InferSettings& s, double tokens) {
  return kv_cache_bytes(m, s.kv_elem_bytes, s.tp, static_cast<long>(std::ceil(tokens)), 1);
}

KvPool kv_pool(const InferModel& im) {
  const InferMemory& mem = im.memory;
  const InferSettings& s = im.settings;
  const double on_device = static_cast<double>(im.model.layers - mem.offloaded_layers) / im.model.layers;
  const double held = static_cast<double>(sequence_tokens(s));
  const double stage = stage_share(im.model, s.pp);
  KvPool p;
  p.room = mem.capacity - mem.weights - mem.workspace - mem.reserve + mem.offloaded_bytes;
  p.shared = s.prefix_tokens > 0 && s.prefix_count <= 1;
  if (s.prefix_tokens > 0) p.prefix = sequence_cache(im.model, s, std::min(static_cast<double>(s.prefix_tokens), held)) * stage;
  // A shared prefix's blocks are stored once (on each data-parallel rank), and a sequence holds
  // its own cache for the rest, the prefix too when it missed. Distinct prefixes are each the
  // sequence's own.
  const double shared = p.shared ? cached_prompt_tokens(s, held, PrefixFound{1, 0, 1, 0}) : 0;
  p.per_sequence = sequence_cache(im.model, s, held - shared) * (stage * on_device);
  if (im.draft) p.per_sequence += sequence_cache(im.draft->model, s, held);
  return p;
}
}  // namespace

int kv_batch_limit(const InferModel& im) {
  const KvPool p = kv_pool(im);
  const Bytes left = p.room - (p.shared ? p.prefix : bytes(0));
  // Data-parallel attention: each of the ep devices holds its own sequences' caches.
  return left.value() > 0 ? static_cast<int>(std::min(1e9, std::floor(left / p.per_sequence) * im.settings.ep)) : 0;
}

PrefixFound prefix_found(const InferModel& im, int resident) {
  const InferSettings& s = im.settings;
  if (s.prefix_tokens <= 0) return {};
  if (s.prefix_count <= 1) return PrefixFound{1, 0, 1, 0};
  const KvPool p = kv_pool(im);
  if (p.prefix.value() <= 0) return {};
  // Each of the ep data-parallel ranks runs its share of the sequences and keeps prefixes in what
  // they leave, and has a tier of its own.
  const double ep = s.ep, running = std::ceil(std::max(0, resident) / ep);
  const double spare = std::max(0.0, (p.room - p.per_sequence * running).value());
  const double count = static_cast<double>(s.prefix_count);
  PrefixFound f;
  f.prefixes_device = std::min(count, std::floor(spare / p.prefix.value()) * ep);
  f.prefixes_offload = std::min(count - f.prefixes_device, std::floor(s.offload_bytes / p.prefix) * ep);
  f.device = f.prefixes_device / count;
  f.offload = f.prefixes_offload / count;
  return f;
}

double cached_prompt_tokens(const InferSettings& s, double prompt, const PrefixFound& found) {
  return s.prefix_hit * (found.device + found.offload) * std::min(static_cast<double>(s.prefix_tokens), std::max(0.0, prompt - 1));
}

Seconds prefix_load_time(const InferModel& im, double prompt, int resident) {
  const InferSettings& s = im.settings;
  if (s.offload_bytes.value() <= 0 || s.offload_read.value() <= 0) return seconds(0);
  const PrefixFound f = prefix_found(im, resident);
  const double tokens = cached_prompt_tokens(s, prompt, PrefixFound{0, f.offload, 0, 0});  // found in the tier
  return sequence_cache(im.model, s, tokens) * stage_share(im.model, s.pp) / s.offload_read;
}

Seconds request_time(const InferModel& im, double prompt, int resident) {
  return request_overhead(im.settings.runtime) + prefix_load_time(im, prompt, resident);
}

int batch_limit(const InferModel& im) {
  const int kv = kv_batch_limit(im);
  const int cap = im.settings.max_seqs > 0 ? im.settings.max_seqs : runtime_max_seqs(im.settings.runtime, im.device);
  // Data-parallel attention: each of the ep devices schedules its own sequences.
  const int seqs = cap > 0 ? cap * im.settings.ep : 0;
  return seqs > 0 ? std::min(kv, seqs) : kv;
}

const char* batch_limit_cause(const InferModel& im) { return batch_limit(im) < kv_batch_limit(im) ? "max_seqs" : "kv"; }

namespace {
// The routed experts a batch of tokens touches in one MoE layer: 1 - (1 - k/E)^B of them.
double touched_experts(const ModelArch& m, double batch) {
  const double k = m.active_experts, e = m.experts;
  return e * (1 - std::pow(1 - k / e, batch));
}
}  // namespace

Bytes decode_weight_bytes(const InferModel& im, int batch) {
  const ModelArch& m = im.model;
  const ParamCounts& pc = im.params;
  // The logits read the output projection: the embedding matrix itself where the two are tied.
  double params = block_params(pc) + pc.head, routed = 0;
  if (m.moe()) {
    const double touched = touched_experts(m, batch);
    params -= m.moe_layers() * pc.expert * (m.experts - touched);
    routed = m.moe_layers() * pc.expert * touched;
  }
  return weight_bytes(params, routed, im.settings) / static_cast<double>(im.settings.tp) +
         weight_bytes(replicated_extra(m, im.settings), im.settings);
}

namespace {
// Time to stream `b` from the device's memory at the decode efficiency.
Seconds stream_time(const InferModel& im, Bytes b) { return b / (im.device.memory_bw * im.decode.bandwidth); }

// 4-bit float weights widened in the kernel (InferSettings::dequant_fp4) under a serving runtime
// stream at dequant_stream of the datasheet bandwidth and compute at dequant_gemm of the GEMM
// rate their shapes allow. Fitted on GPUStack's runs of vLLM 0.10.2 serving gpt-oss-120b's MXFP4
// experts on one H100 (docs/performance-lab/gpt-oss-120b/h100.md): the four-user TPOT, 8.31 ms,
// gives the stream's share, the bursts of 2K and 4K prompts the GEMMs'. Out of sample: the same
// runs at tp 2 and 32K prompts, A100's and MI300X's (tests/validation/REPORT.md). llama.cpp's own
// MXFP4 kernels keep its decode fit. On Hopper the experts' GEMMs take triton_moe_hopper's rate
// instead (below), which those bursts then check out of sample.
constexpr double dequant_stream = 0.55, dequant_gemm = 0.35;

// vLLM's and SGLang's fused-MoE Triton kernels on Hopper do a batch's expert GEMMs at about 188
// TFLOP/s, whatever the weights' precision: vLLM PR #24700's benchmark_moe.py (main branch) timed
// Qwen3-30B-A3B's FP8 experts on an H100 at 1,647.57 us for 4,096 tokens, 2 x 4,096 x 8 x 3 x
// 2,048 x 768 = 309.2 GFLOP (the fit), where the grouped GEMM on the dense curve takes a third of
// that. Out of sample: the same benchmark at 1,024 and 2,048 tokens, and the prompt-bound bursts
// of DeepSeek-R1 (block FP8, H200), Qwen3-235B (BF16 and block FP8, H100) and gpt-oss (MXFP4,
// H100) in tests/validation/REPORT.md. The big experts of Mixtral run faster than this (272
// TFLOP/s at 512 tokens in the same PR): a rate for today's fine-grained experts. TensorRT-LLM's
// CUTLASS MoE GEMMs and other devices keep the curve.
constexpr double triton_moe_hopper = 309237645312.0 / 1647.57e-6;  // FLOP/s

bool triton_moe(const InferModel& im) {
  const Runtime r = im.settings.runtime;
  return (r == Runtime::vllm || r == Runtime::sglang) && im.device.family == "hopper";
}

// An expert GEMM's share of the compute precision's peak, capped at the Triton kernels' rate.
double expert_rate_capped(const InferModel& im, double eff) {
  return triton_moe(im) ? std::min(eff, triton_moe_hopper / im.device.peak_for(im.settings.compute).value()) : eff;
}

bool dequantises(const InferModel& im) { return im.settings.dequant_fp4 && serving_runtime(im.settings.runtime); }

// The extra time `b` bytes of widened 4-bit weights take over the family's streaming rate.
Seconds dequant_extra(const InferModel& im, Bytes b) {
  if (!dequantises(im)) return seconds(0);
  return b / (im.device.memory_bw * dequant_stream) - stream_time(im, b);
}

// What a pass over `batch` tokens streams of its widened 4-bit weights, per device: the touched
// experts where only they are in the format (gpt-oss), else every weight it reads.
Bytes widened_bytes(const InferModel& im, double batch) {
  const InferSettings& s = im.settings;
  if (!dequantises(im)) return bytes(0);
  if (s.expert_bpw <= 0) return decode_weight_bytes(im, static_cast<int>(std::min(batch, 1e9)));
  const double routed = im.model.moe_layers() * im.params.expert * touched_experts(im.model, batch);
  return bytes(routed * s.expert_bpw / 8 / s.tp);
}

// The fused-MoE calls' floor of one pass over the layers (serving runtimes; zero elsewhere).
Seconds moe_floor(const InferModel& im) {
  return im.model.moe() ? im.decode.per_moe_layer * static_cast<double>(im.model.moe_layers()) : seconds(0);
}

// Expert parallelism's dispatch and combine around every MoE layer for `own` tokens a device:
// their k copies in 16 bits, (ep - 1) / ep of them to other devices, over the scale-up link inside
// its domain, else the device's share of the scale-out NICs.
Seconds dispatch_combine(const InferModel& im, double own) {
  const InferSettings& s = im.settings;
  if (s.ep <= 1) return seconds(0);
  const ModelArch& m = im.model;
  const double ep = s.ep;
  const bool inside = s.ep <= im.device.scale_up_domain;
  const Link& link = inside ? im.device.scale_up : im.device.scale_out;
  const double per_device = inside ? link.bw_per_direction.value()
                                   : link.bw_per_direction.value() * std::max(1, im.device.nics_per_node) /
                                         std::max(1, im.device.devices_per_node);
  if (per_device <= 0) return seconds(0);
  const double bytes_out = own * m.active_experts * m.hidden * 2 * (ep - 1) / ep;
  return seconds(2 * m.moe_layers() * (bytes_out / (per_device * im.compute.link) + link.latency.value()));
}

// Two all-reduces per layer of `tokens` activations in 16 bits, one-shot through the switch at
// each level of the training step's hierarchical collective (hierarchical_collective_s): inside the
// scale-up domain, then among the domains over the scale-out fabric or, on cards with no NICs of
// their own, the host link.
Seconds tp_allreduces(const InferModel& im, double tokens) {
  const InferSettings& s = im.settings;
  if (s.tp <= 1 || !serving_runtime(s.runtime)) return seconds(0);
  const double bytes = tokens * im.model.hidden * 2;
  double one = hierarchical_collective_s(im.device, im.compute, bytes, s.tp, 1, switched_allreduce_s);
  // Inside an NVLink domain the runtimes' own kernels take the small tensors, NCCL the large ones:
  // whichever is faster.
  const Device& d = im.device;
  if (d.scale_up.id.rfind("nvlink", 0) == 0 && s.tp <= d.scale_up_domain && d.scale_up.bw_per_direction.value() > 0)
    one = std::min(one, custom_allreduce_s(d, bytes, s.tp));
  return seconds(2.0 * im.model.layers * one);
}
}  // namespace

// The linear layers' efficiency on `tokens` tokens at once: the training model's GEMM curve
// (gemm_curve) under the ceiling of the precision (FP8's own where the device has it), at the GEMM
// that carries most of the dense FLOPs, h by its width over tensor parallelism: the MLP's first
// (gate and up) in a dense model, the attention's QKV projection in an MoE model, whose MLP FLOPs
// are the experts' (expert_efficiency).
double linear_efficiency(const InferModel& im, double tokens) {
  const ModelArch& m = im.model;
  const InferSettings& s = im.settings;
  const double par = serving_runtime(s.runtime) ? s.tp : 1;  // layer splits run one device at a time
  const double width = m.moe() ? static_cast<double>(m.q_width() + 2 * m.kv_width())
                               : (m.gated() ? 2 : 1) * static_cast<double>(m.ffn);
  return gemm_curve(gemm_ceiling(im), im.compute.gemm_half, tokens, m.hidden, width / par);
}

// The routed experts of `tokens` tokens run as one grouped GEMM (vLLM's and SGLang's fused MoE,
// DeepGEMM): every touched expert's rows in one launch, so its tiles are those of tokens x k rows,
// and wave quantisation counts them together rather than per expert. Each expert's first GEMM
// (gate and up) is hidden by its width over tensor parallelism.
double expert_efficiency(const InferModel& im, double tokens) {
  const ModelArch& m = im.model;
  const InferSettings& s = im.settings;
  const double par = serving_runtime(s.runtime) ? s.tp : 1;
  return expert_rate_capped(im, gemm_curve(gemm_ceiling(im), im.compute.gemm_half, tokens * m.active_experts, m.hidden,
                                            (m.gated() ? 2 : 1) * static_cast<double>(m.expert_ffn) / par));
}

namespace {
// The rows each GEMM of a pass over `tokens` tokens has: all of them under a serving runtime,
// llama.cpp's micro-batch (--ubatch) otherwise.
double gemm_rows(const InferSettings& s, double tokens) {
  return serving_runtime(s.runtime) ? tokens : std::min(tokens, static_cast<double>(s.ubatch));
}
}  // namespace

Seconds linear_compute(const InferModel& im, double tokens, double devices, double logit_rows) {
  // The blocks for every token, the output projection (the embedding matrix where tied) for the
  // rows whose logits are sampled.
  const double active = im.params.active - im.params.embedding - im.params.output;
  const double routed = im.model.moe() ? im.model.moe_layers() * im.model.active_experts * im.params.expert : 0;
  const double peak = im.device.peak_for(im.settings.compute).value() * devices;
  const double rows = gemm_rows(im.settings, tokens);
  // Replicated weights: every one of the devices computes them for all the tokens.
  const double whole = replicated_extra(im.model, im.settings) * devices;
  // Widened 4-bit weights (the experts', or every one where the whole model is in the format)
  // reach dequant_gemm of the rate their GEMMs' shape allows once the rows fill the device; a few
  // rows' GEMMs, bound by the weights they stream, stay where the curve puts them.
  const bool widen = dequantises(im), all = widen && im.settings.expert_bpw <= 0;
  constexpr double full = 1e9;  // rows enough for the curve's wave term to vanish
  double linear_eff = linear_efficiency(im, rows), expert_eff = expert_efficiency(im, rows);
  if (all) linear_eff = std::min(linear_eff, linear_efficiency(im, full) * dequant_gemm);
  if (widen && !triton_moe(im)) expert_eff = std::min(expert_eff, expert_efficiency(im, full) * dequant_gemm);
  Seconds t = seconds(2 * ((active - routed + whole) * tokens + im.params.head * logit_rows) / (peak * linear_eff));
  if (routed > 0) t += seconds(2 * routed * tokens / (peak * expert_eff));
  return t;
}

namespace {
// vLLM and SGLang quantise an FP8 GEMM's 16-bit input in a kernel of its own, with per-token (or
// per-group) scales, before each of a layer's four GEMMs (QKV, output, MLP in, MLP out; an MoE
// layer's expert inputs as one): vLLM PR #17126's benchmark on an H100 timed Llama 3.1 8B's
// N=6,144 K=4,096 FP8 GEMM with that quantisation 2.3-2.8 us longer than without at 1-128 rows
// (bench_fp8_gemm.py, fp8-tensor-w-tensor-a against its -noquant); more rows add their 3 bytes an
// element (read 2, write 1). TensorRT-LLM fuses the quantisation into the kernel before it.
constexpr double activation_quant_call = 2.4e-6;  // seconds

Seconds activation_quant(const InferModel& im, double rows) {
  const InferSettings& s = im.settings;
  if ((s.runtime != Runtime::vllm && s.runtime != Runtime::sglang) || (s.quant != "fp8" && s.quant != "fp8-block"))
    return seconds(0);
  const ModelArch& m = im.model;
  const double tp = s.tp, moe_layers = m.moe_layers(), dense_layers = m.layers - moe_layers;
  const double inputs = m.layers * (2.0 * m.hidden + static_cast<double>(m.q_width()) / tp) +
                        dense_layers * static_cast<double>(m.ffn) / tp +
                        moe_layers * (m.active_experts + m.shared_experts) * static_cast<double>(m.expert_ffn) / tp;
  return seconds(4.0 * m.layers * activation_quant_call) + stream_time(im, bytes(3.0 * rows * inputs));
}

// The rate a serving runtime's attention products run at: 16 bits whatever the weights are
// (FlashAttention and FlashMLA take the 16-bit cache), FP8 where the KV cache is 8-bit on a device
// with an FP8 rate (FlashAttention-3's and TensorRT-LLM's FP8 attention). llama.cpp's at the
// compute precision's rate, in 16 bits beside int8 MMQ.
FlopRate attention_peak(const InferModel& im) {
  const InferSettings& s = im.settings;
  const Device& d = im.device;
  if (!serving_runtime(s.runtime)) return d.peak_for(runs_mmq(s, d) ? DType::fp16 : s.compute);
  if (s.kv_elem_bytes == 1 && d.peak[static_cast<int>(DType::fp8)] > 0) return d.peak_for(DType::fp8);
  return std::max(d.peak_for(DType::bf16), d.peak_for(DType::fp16));
}

// A decode step's attention products per second. MLA's absorbed decode (multi-query attention over
// the 576-wide latent) runs in 16 bits whatever the cache holds: FlashMLA dequantises an FP8 cache
// to bf16 before its products, and its dense decode kernel reaches 660 TFLOPS on an H800 SXM5 at
// its compute-bound best, 67% of the 989 dense bf16 peak (deepseek-ai/FlashMLA README, 2025-09).
// Other attention at the GEMM ceiling of attention_peak.
constexpr double mla_decode_eff = 660.0 / 989.0;
FlopRate decode_attention_rate(const InferModel& im) {
  const Device& d = im.device;
  if (im.model.mla() && serving_runtime(im.settings.runtime))
    return std::max(d.peak_for(DType::bf16), d.peak_for(DType::fp16)) * mla_decode_eff;
  return attention_peak(im) * im.compute.gemm_max;
}
}  // namespace

Seconds prefill_time(const InferModel& im, long tokens, int prompts, int resident) {
  const ModelArch& m = im.model;
  const InferSettings& s = im.settings;
  // A cached prefix is not computed again: the prompt's other tokens run the linear layers and
  // attend causally to each other and to the cached ones (4 L d_q a pair); the weights are read
  // once either way.
  const double cached = cached_prompt_tokens(s, static_cast<double>(tokens), prefix_found(im, resident));
  const double fresh = static_cast<double>(tokens) - cached;
  const double n = fresh * prompts;
  // Each query reads the keys before it up to its layer's window or top-k (attended_pairs); a
  // sparse model's indexer scores every earlier key.
  const Flops attention =
      pair_flops(m, m.attended_pairs(fresh, cached), fresh * fresh / 2 + fresh * cached, false) * static_cast<double>(prompts);
  // Layer splits run one device at a time; tensor and expert parallelism share the work.
  const double par = serving_runtime(s.runtime) ? s.tp * s.ep : 1;
  // Attention's products at attention_peak. A serving runtime runs them in flash-attention kernels
  // (FlashAttention-3 on Hopper) at the training model's flash rate for the keys each call sees,
  // the prompt with its cached prefix (flash_attention_eff, fitted on FlashAttention-3's H100
  // sweep); llama.cpp on the linear layers' curve, beside int8 MMQ on the 16-bit one.
  const bool mmq = runs_mmq(s, im.device);
  const double attention_rate =
      attention_peak(im).value() * (serving_runtime(s.runtime) ? flash_attention_eff(im.compute, static_cast<double>(tokens), false)
                                                               : linear_efficiency(im, gemm_rows(s, n)) *
                                                                     (mmq ? im.compute.gemm_max / mmq_ceiling : 1));
  // Only each prompt's last position is sampled: its logits alone run the output projection.
  const Seconds compute = linear_compute(im, n, par, prompts) + seconds(attention.value() / (attention_rate * par));
  const Seconds read = s.ep > 1 ? stream_time(im, im.memory.weights)  // each device its own share
                                : stream_time(im, decode_weight_bytes(im, static_cast<int>(std::min(n, 1e6))) * (s.tp / par)) +
                                      dequant_extra(im, widened_bytes(im, n) * (s.tp / par));
  Seconds t = std::max(compute, read) + moe_floor(im) + im.decode.per_layer * static_cast<double>(m.layers) +
              activation_quant(im, n / s.ep);
  // Offloaded layers: llama.cpp runs large batches on the device and streams those layers'
  // weights over the host link for each micro-batch.
  if (im.memory.offloaded_layers > 0 && im.device.host.bw_per_direction.value() > 0)
    t += im.memory.offloaded_bytes * std::ceil(n / s.ubatch) / im.device.host.bw_per_direction;
  // Expert parallelism: each device dispatches and combines its own prompts' tokens.
  return t + tp_allreduces(im, n) + dispatch_combine(im, n / s.ep);
}

Seconds fused_moe_time(const InferModel& im, int tokens) {
  const ModelArch& m = im.model;
  if (!m.moe() || tokens < 1) return seconds(0);
  const InferSettings& s = im.settings;
  const double k = m.active_experts, tp = s.tp;
  // The experts `tokens` tokens touch, each device its 1/tp slice of each, read once; their GEMMs'
  // 2 tokens k P_expert FLOPs on the grouped-GEMM curve; and the call's floor.
  const double touched = touched_experts(m, tokens) * im.params.expert;
  const Bytes touched_bytes = weight_bytes(touched, touched, s) / tp;
  const Seconds read = stream_time(im, touched_bytes) + dequant_extra(im, touched_bytes);
  const Seconds work = seconds(2 * tokens * k * im.params.expert / tp /
                               (im.device.peak_for(s.compute).value() * expert_efficiency(im, tokens)));
  return std::max(read, work) + im.decode.per_moe_layer;
}

namespace {
Seconds decode_pass(const InferModel& im, int batch, double context, int per_seq);

// One decode step of an expert-parallel replica with data-parallel attention: each device runs
// attention and the dense part for its ceil(B / ep) sequences, then its experts / ep routed experts
// for the B k / ep tokens routed to them (balanced routing), with a dispatch and a combine
// all-to-all of each device's tokens around every MoE layer. Each part on its own roofline.
Seconds ep_decode_step(const InferModel& im, int batch, double context) {
  const ModelArch& m = im.model;
  const ParamCounts& pc = im.params;
  const InferSettings& s = im.settings;
  const double ep = s.ep, k = m.active_experts, layers = m.moe_layers();
  const double own = std::ceil(batch / ep), routed_tokens = batch * k / ep;
  const auto peak = im.device.peak_for(s.compute);
  const double gmax = gemm_ceiling(im);
  // The dense part: every weight but the routed experts (and the input embedding), for own sequences.
  const double routed = routed_expert_params(m, pc);
  const double dense_params = pc.total - pc.embedding - pc.encoder - routed;
  const double dense_active = pc.active - pc.embedding - layers * k * pc.expert;
  const Seconds t_dense =
      std::max(stream_time(im, weight_bytes(dense_params, s)),
               Seconds(flops(2 * dense_active * own) / (peak * gemm_curve(gmax, im.compute.gemm_half, own, m.hidden, m.hidden))));
  const Bytes kv = kv_read_bytes(m, s.kv_elem_bytes, 1, context, static_cast<int>(own));
  const Flops attention = attention_flops(m, context, own, 1);
  const Seconds t_attention = std::max(stream_time(im, kv), Seconds(attention / decode_attention_rate(im)));
  // The experts: those of the device's share that the batch touches, in one grouped GEMM over
  // the routed tokens' rows (expert_efficiency).
  const double touched = touched_experts(m, batch) / ep;
  const Bytes expert_bytes = weight_bytes(layers * touched * pc.expert, layers * touched * pc.expert, s);
  const Seconds t_experts =
      std::max(stream_time(im, expert_bytes) + dequant_extra(im, expert_bytes),
               Seconds(flops(2 * routed_tokens * layers * pc.expert) /
                       (peak * expert_rate_capped(im, gemm_curve(gmax, im.compute.gemm_half, std::max(1.0, routed_tokens),
                                                                 m.hidden, (m.gated() ? 2 : 1) * static_cast<double>(m.expert_ffn))))));
  return t_dense + t_attention + t_experts + dispatch_combine(im, own) + moe_floor(im) + activation_quant(im, own) +
         im.decode.per_layer * static_cast<double>(m.layers);
}
}  // namespace

Seconds decode_step_time(const InferModel& im, int batch, double context) {
  const ModelArch& m = im.model;
  const InferSettings& s = im.settings;
  if (s.ep > 1) return ep_decode_step(im, batch, context);
  // Pipeline stages each run their layers for one of pp micro-batches while the others run the
  // rest: a token of a micro-batch crosses every stage once, so the step is one tensor-parallel
  // group's over all layers at the micro-batch, plus the sends between stages (16-bit hidden
  // states over the scale-out link). The pipeline carries pp micro-batches at once.
  int rows = batch;
  Seconds sends = seconds(0);
  if (s.pp > 1) {
    rows = std::max(1, (batch + s.pp - 1) / s.pp);
    const Link& out = im.device.scale_out;
    if (out.bw_per_direction.value() > 0)
      sends = seconds((s.pp - 1) * (rows * m.hidden * 2.0 / (out.bw_per_direction.value() * im.compute.link) +
                                    out.latency.value()));
  }
  if (s.spec_tokens <= 0) return decode_pass(im, rows, context, 1) + sends;
  // Speculation: k draft steps, then the target scores the k proposals and its own next token for
  // every sequence in one pass (weights and cache read once, k + 1 rows of compute each), yielding
  // spec_tokens_per_step tokens. Without a draft model, the draft is a head of one of the target's
  // layers (EAGLE's, or DeepSeek's MTP module): a layer's share of a step.
  const int k = s.spec_tokens;
  const Seconds verify = decode_pass(im, rows, context, k + 1);
  const Seconds draft = im.draft ? decode_step_time(*im.draft, rows, context)
                                 : decode_pass(im, rows, context, 1) / static_cast<double>(m.layers);
  return (verify + draft * static_cast<double>(k)) / spec_tokens_per_step(k, s.spec_accept) + sends;
}

std::string degrees_text(const InferSettings& s) {
  // llama.cpp and Ollama split the layers across devices (--split-mode layer): not tensor parallelism.
  if (!serving_runtime(s.runtime) && s.tp > 1) return fmt::format("layer split over {}", s.tp);
  if (s.ep > 1) return fmt::format("ep {} (data-parallel attention)", s.ep);
  if (s.experts_whole) return fmt::format("tp {} ep {}", s.tp, s.tp);
  return s.pp > 1 ? fmt::format("tp {} pp {}", s.tp, s.pp) : fmt::format("tp {}", s.tp);
}

double spec_tokens_per_step(int k, double a) {
  if (k <= 0) return 1;
  if (a >= 1) return k + 1.0;
  return (1 - std::pow(a, k + 1)) / (1 - a);
}

InferModel with_draft(InferModel target, const ModelArch& draft, const ParamCounts& draft_params) {
  InferSettings ds = target.settings;
  ds.spec_tokens = 0;
  ds.pp = 1;
  ds.reserve = bytes(0);  // one runtime, one reserve: the target's
  auto d = std::make_shared<InferModel>(make_infer_model(draft, draft_params, target.device, target.host, ds));
  d->decode = target.decode;
  d->compute = target.compute;
  InferMemory& mem = target.memory;
  mem.weights += d->memory.weights;
  mem.kv_per_token += d->memory.kv_per_token;
  mem.kv += d->memory.kv;
  target.draft = std::move(d);
  return target;
}

namespace {

// One pass of the model over `batch` sequences, `per_seq` new tokens each, whose caches hold
// `context` tokens on average: a decode step (per_seq 1) or a speculative verification.
Seconds decode_pass(const InferModel& im, int batch, double context, int per_seq) {
  const ModelArch& m = im.model;
  const InferSettings& s = im.settings;
  const double rows = static_cast<double>(batch) * per_seq;
  const double share = static_cast<double>(m.layers - im.memory.offloaded_layers) / m.layers;
  // llama.cpp and Ollama split layers across devices and run them one after another: the split
  // divides memory, not the bytes each token streams (inference.md 1.4). vLLM's tensor
  // parallelism divides both.
  const double split = serving_runtime(s.runtime) ? 1 : s.tp;
  const Bytes head = weight_bytes(im.params.head, s) * (split / s.tp);
  const Bytes blocks = decode_weight_bytes(im, static_cast<int>(std::min(rows, 1e9))) * split - head;
  const Bytes kv = kv_read_bytes(m, s.kv_elem_bytes, s.tp, context, batch) * split;
  const Bytes host_bytes = (blocks + kv) * (1 - share);
  const Seconds t_host = host_bytes.value() > 0
                             ? host_bytes / (im.host.memory_bw * decode_efficiency(im.host, im.settings.bpw).bandwidth)
                             : seconds(0);
  // Two kernels of each layer run one after the other, each on its own roofline: the linear
  // layers stream the weights and compute 2 N_active FLOPs per sequence; attention streams the
  // KV cache and computes 4 L d_q context per sequence. A large batch can be compute-bound in
  // the first while memory-bound in the second, so the step is the sum of the two maxima, not
  // one roofline over the totals (which lets the KV reads hide under the GEMMs). FlashDecoding
  // (Dao et al. 2023) and vLLM's paged attention are such separate, bandwidth-bound kernels.
  // A serving runtime's linear layers run a batch-row GEMM, on the same curve as prefill (its
  // wave-quantisation term is what a few hundred rows cost); llama.cpp's single-stream kernels are
  // bound by the weights they stream, at the ceiling. Attention at the ceiling.
  const double tp_div = serving_runtime(s.runtime) ? s.tp : 1;
  const auto peak = im.device.peak_for(s.compute);
  const Seconds linear = serving_runtime(s.runtime)
                             ? linear_compute(im, rows, tp_div, rows)
                             : seconds(2 * (im.params.active - im.params.embedding - im.params.output + im.params.head) * rows /
                                         (peak.value() * gemm_ceiling(im)));
  const Flops attention = attention_flops(m, context, rows, tp_div);
  const Seconds t_linear = std::max(stream_time(im, blocks * share + head) + dequant_extra(im, widened_bytes(im, rows)), linear);
  const Seconds t_attention =
      std::max(stream_time(im, kv * share), Seconds(attention / decode_attention_rate(im)));
  return t_linear + t_attention + t_host + moe_floor(im) + im.decode.per_layer * static_cast<double>(m.layers) +
         tp_allreduces(im, rows) + activation_quant(im, rows);
}

}  // namespace

}  // namespace gpuplan
