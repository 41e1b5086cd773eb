// SPDX-License-Identifier: Apache-2.0
// Inference memory and speed: exact KV-cache sizes, GGUF bits per weight, the two-term decode
// model and the offload split, by hand.
#include <tuple>

#include <catch2/catch.hpp>

#include "gpuplan/records.hpp"
#include "gpuplan/analysis/inference.hpp"
#include "catalog_fixture.hpp"
#include "gpuplan/catalog/catalog.hpp"
#include "gpuplan/error.hpp"

using namespace gpuplan;
using Approx = Catch::Detail::Approx;

namespace {
const Catalog& cat() { return builtin_catalog(); }
ModelArch model(const char* id) { return model_from_record(cat().get("models", id)); }
// The decode tests' case: Q4_0 weights (4.5 bits) under llama.cpp, one stream, a short context.
InferSettings q4_0_stream() {
  InferSettings s;
  s.quant = "q4_0";
  s.bpw = 4.5;
  s.runtime = Runtime::llama_cpp;
  s.context = 128;
  return s;
}
}  // namespace

TEST_CASE("KV cache per token at fp16 for Llama 2 7B and Llama 3 8B and 70B") {
  // 2 (K, V) x layers x KV heads x head dim x 2 bytes: Llama 2 7B 2 x 32 x 32 x 128 x 2 = 512 KiB;
  // Llama 3 8B (GQA, 8 KV heads) 2 x 32 x 8 x 128 x 2 = 128 KiB; 70B 2 x 80 x 8 x 128 x 2 = 320 KiB.
  CHECK(kv_bytes_per_token(model("llama-2-7b"), 2, 1).value() == 512 * 1024);
  CHECK(kv_bytes_per_token(model("llama-3.1-8b"), 2, 1).value() == 128 * 1024);
  CHECK(kv_bytes_per_token(model("llama-3.1-70b"), 2, 1).value() == 320 * 1024);
  // Tensor parallelism splits KV heads, never below one per device (replicated beyond 8).
  CHECK(kv_bytes_per_token(model("llama-3.1-70b"), 2, 8).value() == 40 * 1024);
  CHECK(kv_bytes_per_token(model("llama-3.1-70b"), 2, 16).value() == 40 * 1024);
  // MLA caches the latent: DeepSeek-V3 61 layers x (512 + 64) x 2 bytes.
  CHECK(kv_bytes_per_token(model("deepseek-v3"), 2, 8).value() == 61 * 576 * 2);
  // fp8 cache halves it.
  CHECK(kv_bytes_per_token(model("llama-3.1-8b"), kv_element_bytes("fp8"), 1).value() == 64 * 1024);
}

TEST_CASE("Sliding-window layers hold at most the window") {
  ModelArch m = model("mistral-7b");
  REQUIRE(m.sliding_window == 4096);
  const double per_token = kv_bytes_per_token(m, 2, 1).value();
  CHECK(kv_cache_bytes(m, 2, 1, 2048, 1).value() == Approx(per_token * 2048));
  CHECK(kv_cache_bytes(m, 2, 1, 32768, 2).value() == Approx(per_token * 4096 * 2));
}

TEST_CASE("GGUF and other formats at their true bits per weight") {
  // ggml block sizes: Q4_0 18 bytes per 32 weights, Q8_0 34/32, Q6_K 210/256.
  CHECK(bits_per_weight("q4_0") == 4.5);
  CHECK(bits_per_weight("q8_0") == 8.5);
  CHECK(bits_per_weight("q6_k") == 6.5625);
  // K-quant mixes at llama.cpp's measured file bpw for Llama-3.1-8B (quantize README).
  CHECK(bits_per_weight("q4_k_m") == 4.89);
  CHECK(bits_per_weight("q5_k_m") == 5.70);
  CHECK(bits_per_weight("q2_k") == 3.16);
  CHECK(bits_per_weight("fp8") == 8);
  CHECK(bits_per_weight("bf16") == 16);
  CHECK(is_gguf("q4_k_m"));
  CHECK_FALSE(is_gguf("awq"));
  CHECK_THROWS_AS(bits_per_weight("q9"), Error);
  CHECK(kv_element_bytes("q8_0") == 34.0 / 32);
  CHECK_THROWS_AS(kv_element_bytes("int3"), Error);
}

TEST_CASE("Served FP4 GEMMs run at the measured share of the 16-bit ceiling") {
  // vLLM PR #20646 on a B200: NVFP4 3,025.5 TFLOP/s against BF16's 1,421.0 at M=8192, N=6144,
  // K=4096, where the peaks differ 4x (9,000 and 2,250): 0.532 of the 16-bit ceiling (0.80).
  const Device b200 = resolve_device(cat(), "b200");
  const Efficiency e = default_efficiency(b200);
  CHECK(gemm_ceiling(e, b200, DType::fp4) == Approx(0.80 * (3025.5 / 1421.0) / 4).epsilon(1e-12));
  CHECK(gemm_ceiling(e, b200, DType::fp8) == Approx(0.71));
  CHECK(gemm_ceiling(e, b200, DType::bf16) == Approx(0.80));
  // A device without FP4 tensor rates keeps the 16-bit ceiling for fp4 (it never computes there).
  const Device h100 = resolve_device(cat(), "h100-sxm");
  CHECK(gemm_ceiling(default_efficiency(h100), h100, DType::fp4) == Approx(0.80));
}

TEST_CASE("llama.cpp's micro-batch sets its prompt GEMMs' rows and its compute buffer") {
  // A 2,048-token prompt of Llama 3.1 8B in BF16 on an RTX 4090: at -ub 2048 every GEMM has
  // 2,048 rows instead of 512, so the curve's wave term is nearer 1 and the prompt is faster; the
  // buffer holds 4 bytes of hidden state and logits a row: 4 x 2048 x (4096 + 128256).
  ModelArch m = model("llama-3.1-8b");
  ParamCounts pc = count_params(m);
  Device d = resolve_device(cat(), "rtx-4090");
  InferSettings s;
  s.runtime = Runtime::llama_cpp;
  s.context = 2048;
  set_quant(s, "bf16", m, d);
  const InferModel small = make_infer_model(m, pc, d, resolve_device(cat(), "cpu-desktop"), s);
  s.ubatch = 2048;
  const InferModel large = make_infer_model(m, pc, d, resolve_device(cat(), "cpu-desktop"), s);
  CHECK(prefill_time(large, 2048, 1).value() < prefill_time(small, 2048, 1).value());
  CHECK(large.memory.workspace.value() == Approx(4.0 * 2048 * (4096 + 128256)));
  CHECK(small.memory.workspace.value() == Approx(4.0 * 512 * (4096 + 128256)));
  // Prompts no longer than the micro-batch see no difference.
  CHECK(prefill_time(large, 256, 1).value() == Approx(prefill_time(small, 256, 1).value()));
}

TEST_CASE("Decode follows bytes over bandwidth plus a per-layer cost") {
  // Llama 2 7B at Q4_0 on an RTX 4090 (GDDR, quantised weights: eta 0.75, 24 us per layer), one
  // stream, empty cache: t = (N - embedding) x 4.5 / 8 / (0.75 x 1008 GB/s) + 32 x 24 us.
  ModelArch m = model("llama-2-7b");
  ParamCounts pc = count_params(m);
  Device d = resolve_device(cat(), "rtx-4090");
  InferSettings s = q4_0_stream();
  InferModel im = make_infer_model(m, pc, d, resolve_device(cat(), "cpu-desktop"), s);
  const double bytes = (pc.total - pc.embedding) * 4.5 / 8;
  CHECK(decode_weight_bytes(im, 1).value() == Approx(bytes));
  CHECK(decode_step_time(im, 1, 0).value() == Approx(bytes / (0.75 * 1008e9) + 32 * 24e-6));
  // The cache adds its bytes: 100 tokens of 512 KiB.
  CHECK(decode_step_time(im, 1, 100).value() - decode_step_time(im, 1, 0).value() == Approx(100 * 512 * 1024 / (0.75 * 1008e9)));
  // 16-bit weights stream at 0.95 (no dequantisation on the way).
  s.quant = "bf16";
  s.bpw = 16;
  im = make_infer_model(m, pc, d, resolve_device(cat(), "cpu-desktop"), s);
  CHECK(decode_step_time(im, 1, 0).value() == Approx((pc.total - pc.embedding) * 2 / (0.95 * 1008e9) + 32 * 24e-6));
}

TEST_CASE("Consumer AMD Intel and NVIDIA cards decode at their sourced bandwidths") {
  // Llama 2 7B at Q4_0, one stream: the GDDR formula above at the RX 9070 XT's 640 GB/s (20 Gbps
  // on 256 bits), the Arc Pro B60's 456 GB/s (19 Gbps on 192 bits) and the RTX 5060's 448 GB/s
  // (28 Gbps on 128 bits), and the R9700's 640 GB/s (the same die's memory system as the RX 9070
  // XT, an estimate); 8, 16, 24 and 32 GiB each hold it.
  ModelArch m = model("llama-2-7b");
  ParamCounts pc = count_params(m);
  InferSettings s = q4_0_stream();
  const double bytes = (pc.total - pc.embedding) * 4.5 / 8;
  for (const auto& [id, bw, gib] :
       {std::tuple{"rx-9070-xt", 640e9, 16.0}, std::tuple{"arc-pro-b60", 456e9, 24.0}, std::tuple{"rtx-5060", 448e9, 8.0},
        std::tuple{"radeon-ai-pro-r9700", 640e9, 32.0}, std::tuple{"rtx-3060", 360e9, 12.0},
        std::tuple{"rtx-4060-ti-16gb", 288e9, 16.0}, std::tuple{"rtx-5060-ti-16gb", 448e9, 16.0},
        std::tuple{"rtx-5070-ti", 896e9, 16.0}, std::tuple{"rx-7900-xtx", 960e9, 24.0}}) {
    INFO(id);
    const Device d = resolve_device(cat(), id);
    CHECK(d.memory.value() == gib * 1024 * 1024 * 1024);
    const InferModel im = make_infer_model(m, pc, d, resolve_device(cat(), "cpu-desktop"), s);
    CHECK(im.memory.fits());
    CHECK(decode_step_time(im, 1, 0).value() == Approx(bytes / (0.75 * bw) + 32 * 24e-6));
  }
  // Their matrix rates: the RX 9070 XT's 1,557 sparse INT4 TOPS halved three times for FP16; the
  // B60's 160 XMX engines at 2.4 GHz, 256 FP16 FLOPs a clock each.
  CHECK(resolve_device(cat(), "rx-9070-xt").peak_for(DType::bf16).value() == Approx(1557e12 / 8).epsilon(0.01));
  CHECK(resolve_device(cat(), "arc-pro-b60").peak_for(DType::bf16).value() == Approx(160 * 2.4e9 * 256).epsilon(0.01));
  // Jetson AGX Thor (RidgeRun's T5000 table): 128 GB of LPDDR5X at 273 GB/s, one pool, as DGX
  // Spark's; so a model decodes on it at Spark's rate, and its FP32 is 2,560 cores x 2 x 1.575 GHz.
  const Device thor = resolve_device(cat(), "jetson-agx-thor"), spark = resolve_device(cat(), "dgx-spark");
  CHECK(thor.memory.value() == 128.0 * 1024 * 1024 * 1024);
  CHECK(thor.memory_bw.value() == 273e9);
  CHECK(thor.unified_memory);
  CHECK(thor.peak_for(DType::fp32).value() == Approx(2560 * 2 * 1.575e9).epsilon(1e-3));
  const Device host = resolve_device(cat(), "cpu-desktop");
  CHECK(decode_step_time(make_infer_model(m, pc, thor, host, s), 1, 0).value() ==
        Approx(decode_step_time(make_infer_model(m, pc, spark, host, s), 1, 0).value()));
}

TEST_CASE("Every Apple chip decodes at the unified share of its sourced bandwidth") {
  // Llama 2 7B at Q4_0 (llama.cpp, one stream, empty cache) on the chips people run it on: the
  // weights stream at 0.86 of Apple's bandwidth with 0.166 ms a layer (the M2 Ultra fit,
  // inference.cpp); each chip's bandwidth and memory as Apple states them (M1: LPDDR4X-4266 on
  // 128 bits, derived). GPU share: two thirds of a machine of 36 GB or less.
  ModelArch m = model("llama-2-7b");
  ParamCounts pc = count_params(m);
  InferSettings s = q4_0_stream();
  const double bytes = (pc.total - pc.embedding) * 4.5 / 8;
  for (const auto& [id, bw, gib] :
       {std::tuple{"apple-m1", 68.25e9, 16.0}, std::tuple{"apple-m1-pro", 200e9, 32.0}, std::tuple{"apple-m2", 100e9, 24.0},
        std::tuple{"apple-m3", 100e9, 24.0}, std::tuple{"apple-m3-pro", 150e9, 36.0},
        std::tuple{"apple-m3-max-36gb", 300e9, 36.0}, std::tuple{"apple-m4", 120e9, 32.0}}) {
    INFO(id);
    const Device d = resolve_device(cat(), id);
    CHECK(d.memory.value() == gib * 1024 * 1024 * 1024);
    CHECK(d.unified_memory);
    CHECK(d.usable_memory().value() == Approx(0.67 * gib * 1024 * 1024 * 1024));
    const InferModel im = make_infer_model(m, pc, d, d, s);
    CHECK(im.memory.fits());
    CHECK(decode_step_time(im, 1, 0).value() == Approx(bytes / (0.86 * bw) + 32 * 0.166e-3));
  }
  // 68.25 GB/s on an M1 gives 14.6 tokens/s: bandwidth bound, as the bigger chips.
  const InferModel m1 = make_infer_model(m, pc, resolve_device(cat(), "m1"), resolve_device(cat(), "m1"), s);
  CHECK(1 / decode_step_time(m1, 1, 0).value() == Approx(14.6).epsilon(0.01));
}

TEST_CASE("Decode with tied embeddings reads the embedding matrix for the logits") {
  // Llama 3.2 1B ties its output projection to the token embedding (128,256 x 2,048 = 262.7 M
  // parameters): each token's logits read that matrix, so a step streams every weight, 1,235.8 M
  // parameters, 2.47 GB in bf16, not the 1.97 GB of the blocks and the final norm.
  ModelArch m = model("llama-3.2-1b");
  REQUIRE(m.tied_embeddings);
  ParamCounts pc = count_params(m);
  CHECK(pc.total == Approx(1235814400).epsilon(1e-6));
  CHECK(pc.head - pc.output == Approx(128256.0 * 2048));
  InferSettings s;
  s.quant = "bf16";
  s.bpw = 16;
  s.runtime = Runtime::llama_cpp;
  Device d = resolve_device(cat(), "rtx-5090");
  InferModel im = make_infer_model(m, pc, d, resolve_device(cat(), "cpu-desktop"), s);
  CHECK(decode_weight_bytes(im, 1).value() == Approx(pc.total * 2));
}

TEST_CASE("A large batch pays for its KV reads even when the linear layers are compute-bound") {
  // Llama 3.1 8B, fp8 weights and KV on an H100 with vLLM, 1,000 sequences: the linear layers
  // compute 2 x 7.5e9 x 1000 FLOPs, about 10 ms at the fp8 ceiling, against 3 ms of weight
  // reads; attention streams 64 KiB per cached token. The two kernels run one after the other,
  // so 1,000 more tokens of context add their reads, 1000 x 1000 x 64 KiB / (eta x 3.35 TB/s),
  // instead of hiding under the GEMMs as one roofline over the totals would have it.
  ModelArch m = model("llama-3.1-8b");
  Device d = resolve_device(cat(), "h100-sxm");
  InferSettings s;
  s.quant = "fp8";
  s.bpw = 8;
  s.compute = DType::fp8;
  s.kv_elem_bytes = kv_element_bytes("fp8");
  s.context = 2048;
  const InferModel im = make_infer_model(m, count_params(m), d, d, s);
  const double more = decode_step_time(im, 1000, 1100).value() - decode_step_time(im, 1000, 100).value();
  CHECK(more == Approx(1000.0 * 1000 * 64 * 1024 / (im.decode.bandwidth * d.memory_bw.value())).epsilon(0.01));
}

TEST_CASE("MoE decode reads the experts a batch touches") {
  ModelArch m = model("mixtral-8x7b");
  ParamCounts pc = count_params(m);
  InferSettings s;
  s.bpw = 16;
  Device d = resolve_device(cat(), "h100-sxm");
  InferModel im = make_infer_model(m, pc, d, d, s);
  // One token: 2 of 8 experts per layer; a large batch touches all of them.
  const double all = (pc.total - pc.embedding) * 2;
  const double one = all - m.moe_layers() * pc.expert * 6 * 2;
  CHECK(decode_weight_bytes(im, 1).value() == Approx(one));
  CHECK(decode_weight_bytes(im, 1000).value() == Approx(all));
}

TEST_CASE("Layers beyond the device go to host memory and slow decoding") {
  // Llama 3.1 70B at Q4_K_M (about 43 GB) on a 24 GB RTX 4090 with llama.cpp.
  ModelArch m = model("llama-3.1-70b");
  ParamCounts pc = count_params(m);
  Device d = resolve_device(cat(), "rtx-4090");
  Device host = resolve_device(cat(), "cpu-desktop");
  InferSettings s;
  s.quant = "q4_k_m";
  s.bpw = 4.89;
  s.runtime = Runtime::llama_cpp;
  s.context = 4096;
  InferMemory mem = inference_memory(m, pc, d, s);
  CHECK_FALSE(mem.fits());
  // Hand count: per layer (blocks / 80 + cache / 80); fixed = output head + workspace + 1 GiB margin.
  const double per_layer = ((pc.total - pc.embedding - pc.output) * 4.89 / 8 + mem.kv.value()) / 80;
  const double fixed = pc.output * 4.89 / 8 + mem.workspace.value() + 1024.0 * 1024 * 1024;
  const int on_device = static_cast<int>((d.usable_memory().value() - fixed) / per_layer);
  CHECK(mem.offloaded_layers == 80 - on_device);
  CHECK(mem.offloaded_layers > 30);
  InferModel im = make_infer_model(m, pc, d, host, s);
  // Host DDR5 at 0.6 x 102.4 GB/s dominates: slower than ten tokens per second.
  CHECK(1 / decode_step_time(im, 1, 100).value() < 10);
  // vLLM does not offload: the model simply does not fit.
  s.runtime = Runtime::vllm;
  CHECK(inference_memory(m, pc, d, s).offloaded_layers == 0);
}

TEST_CASE("Runtime reserves are the documented defaults") {
  Device gpu = resolve_device(cat(), "h100-sxm");
  Device mac = resolve_device(cat(), "apple-m3-max");
  const Bytes none = bytes(0), weights = bytes(20e9);
  CHECK(runtime_reserve(Runtime::vllm, gpu, 1, none).value() == Approx(0.1 * gpu.usable_memory().value()));
  CHECK(runtime_reserve(Runtime::llama_cpp, gpu, 1, none).value() == 1024.0 * 1024 * 1024);
  CHECK(runtime_reserve(Runtime::ollama, gpu, 1, none).value() == 457.0 * 1024 * 1024);
  CHECK(runtime_reserve(Runtime::ollama, mac, 1, none).value() == 512.0 * 1024 * 1024);
  // SGLang's mem_fraction_static: 0.88 at tp 1, 0.81 at tp 8 (of nvidia-smi's 81,559 MiB).
  const double h100 = 81559.0 * 1024 * 1024;
  CHECK(runtime_reserve(Runtime::sglang, gpu, 1, weights).value() == Approx(0.12 * h100));
  CHECK(runtime_reserve(Runtime::sglang, gpu, 8, weights).value() == Approx(0.19 * h100));
  // TensorRT-LLM: 10% of what 20 GB of weights leave.
  CHECK(runtime_reserve(Runtime::tensorrt_llm, gpu, 1, weights).value() == Approx(0.1 * (h100 - 20e9)));
  CHECK(parse_runtime("tensorrt-llm") == Runtime::tensorrt_llm);
  CHECK(serving_runtime(Runtime::sglang));
  CHECK_FALSE(serving_runtime(Runtime::ollama));
  // Apple unified memory counts once, at the share the GPU may wire (75%).
  CHECK(mac.usable_memory().value() == Approx(0.75 * 128.0 * 1024 * 1024 * 1024));
  CHECK_THROWS_AS(parse_runtime("tgi"), Error);
}

TEST_CASE("Native low-bit formats IQ quants and any spelling") {
  // MXFP4: 32 E2M1 elements share an 8-bit scale, (32 x 4 + 8) / 32 = 4.25 bits (OCP MX v1.0);
  // NVFP4: 16 share an FP8 scale, (16 x 4 + 8) / 16 = 4.5.
  CHECK(bits_per_weight("mxfp4") == 4.25);
  CHECK(bits_per_weight("nvfp4") == 4.5);
  CHECK(bits_per_weight("fp4") == 4.5);
  // llama-quantize's stated bpw (tools/quantize/quantize.cpp).
  CHECK(bits_per_weight("iq4_xs") == 4.25);
  CHECK(bits_per_weight("iq2_xxs") == 2.06);
  CHECK(bits_per_weight("iq1_s") == 1.56);
  // ggml's Q5_0 block: 22 bytes per 32 weights.
  CHECK(bits_per_weight("q5_0") == 5.5);
  // As llama.cpp spells them.
  CHECK(bits_per_weight("Q4_K_M") == 4.89);
  CHECK(canonical_quant("IQ4_XS") == "iq4_xs");
  CHECK(canonical_quant("MXFP4") == "mxfp4");
  CHECK(canonical_quant("Auto") == "auto");
  CHECK(is_gguf("IQ3_M"));
  CHECK_FALSE(is_gguf("nvfp4"));
  CHECK_THROWS_AS(canonical_quant("iq5_xs"), Error);
}

TEST_CASE("gpt-oss ships MXFP4 experts and bf16 elsewhere and fits the cards its model card names") {
  // gpt-oss-120b: 36 MoE layers x 128 experts x 3 x 2880 x 2880 (plus biases) routed; the rest
  // (attention, router, embeddings) in bf16. The model card: the 120B fits one 80 GB GPU.
  const ModelArch m = model("gpt-oss-120b");
  REQUIRE(m.native_quant == "mxfp4");
  const ParamCounts pc = count_params(m);
  const Device h100 = resolve_device(cat(), "h100-sxm");
  InferSettings s;
  set_quant(s, "mxfp4", m, h100);
  CHECK(s.bpw == 16);
  CHECK(s.expert_bpw == 4.25);
  const double routed = routed_expert_params(m, pc);
  CHECK(routed == Approx(36.0 * 128 * pc.expert));
  const InferMemory mem = inference_memory(m, pc, h100, s);
  CHECK(mem.weights.value() == Approx((pc.total - routed) * 2 + routed * 4.25 / 8));
  CHECK(mem.weights.value() < 66e9);
  CHECK(mem.fits());
  // The same model with every weight in bf16 needs three cards' worth.
  set_quant(s, "bf16", m, h100);
  CHECK(s.expert_bpw == 0);
  CHECK(inference_memory(m, pc, h100, s).weights.value() == Approx(pc.total * 2));
  CHECK_FALSE(inference_memory(m, pc, h100, s).fits());
  // gpt-oss-20b in 16 GB (the model card): under 13.8 GiB of weights.
  const ModelArch small = model("gpt-oss-20b");
  set_quant(s, "mxfp4", small, h100);
  CHECK(inference_memory(small, count_params(small), h100, s).weights.value() < 13.8 * 1024 * 1024 * 1024);
  // MXFP4 on every weight of a dense model runs at an FP4 rate where the device has one.
  const Device b200 = resolve_device(cat(), "b200");
  set_quant(s, "nvfp4", model("llama-3.1-70b"), b200);
  CHECK(s.compute == DType::fp4);
  set_quant(s, "nvfp4", model("llama-3.1-70b"), h100);
  CHECK(s.compute == DType::bf16);
}

TEST_CASE("Unified memory is one pool with no host to offload to") {
  // Qwen3 32B at Q8_0 (34.7 GiB with its cache) on a 36 GiB M4 Max: the GPU's default limit is
  // 0.67 of it, and beyond 36 less the system's 4 GiB it would run from swap.
  const Device mac = resolve_device(cat(), "apple-m4-max-36gb");
  const ModelArch m = model("qwen3-32b");
  const ParamCounts pc = count_params(m);
  InferSettings s;
  s.runtime = Runtime::llama_cpp;
  set_quant(s, "q8_0", m, mac);
  InferMemory mem = inference_memory(m, pc, mac, s);
  CHECK(mem.pool.value() == 36.0 * 1024 * 1024 * 1024);
  CHECK(mem.capacity.value() == Approx(0.67 * 36.0 * 1024 * 1024 * 1024));
  CHECK(mem.system.value() == unified_system_minimum);
  CHECK(mem.offloaded_layers == 0);
  CHECK_FALSE(mem.fits());
  CHECK_FALSE(mem.fits_raised_limit());
  // Q6_K (27.3 GiB) fits once the limit is raised, and the note names the sysctl.
  set_quant(s, "q6_k", m, mac);
  mem = inference_memory(m, pc, mac, s);
  CHECK(mem.fits_raised_limit());
  CHECK(unified_limit_note(mac, mem).find("iogpu.wired_limit_mb=28672") != std::string::npos);
  // Q4_K_M fits the default limit.
  set_quant(s, "q4_k_m", m, mac);
  CHECK(inference_memory(m, pc, mac, s).fits());
  // A discrete card has no pool.
  CHECK(inference_memory(m, pc, resolve_device(cat(), "rtx-4090"), s).pool.value() == 0);
}

TEST_CASE("quant auto picks the widest format of the runtime's ladder that fits") {
  const ModelArch m = model("llama-3.1-70b");
  const ParamCounts pc = count_params(m);
  const Device h100 = resolve_device(cat(), "h100-sxm");
  InferSettings s;  // vLLM, tp 1: bf16 (131 GiB) does not fit 79.6 GiB, fp8 (65.7 GiB) does.
  CHECK(choose_quant(m, pc, h100, s) == "fp8");
  s.tp = 2;  // 65.7 GiB of bf16 a card fits under vLLM's 0.9
  CHECK(choose_quant(m, pc, h100, s) == "bf16");
  s.tp = 1;
  s.runtime = Runtime::llama_cpp;  // a 36 GiB Mac: the GGUF ladder down to what its GPU may wire
  const Device mac = resolve_device(cat(), "apple-m4-max-36gb");
  CHECK(choose_quant(model("qwen3-32b"), count_params(model("qwen3-32b")), mac, s) == "q5_k_m");
  CHECK(quant_ladder(Runtime::vllm, resolve_device(cat(), "b200")) == std::vector<std::string>{"bf16", "fp8", "nvfp4", "awq"});
  CHECK(quant_ladder(Runtime::vllm, h100) == std::vector<std::string>{"bf16", "fp8", "awq"});
}

TEST_CASE("A serving runtime's memory share and sequence cap are its defaults unless given") {
  const Device h100 = resolve_device(cat(), "h100-sxm");
  const Device a100 = resolve_device(cat(), "a100-80gb");
  const Bytes none = bytes(0);
  // --mem-fraction 0.8: vLLM keeps 20% of the card back, TensorRT-LLM 20% of what the weights leave.
  CHECK(runtime_reserve(Runtime::vllm, h100, 1, none, 0.8).value() == Approx(0.2 * h100.memory.value()));
  CHECK(runtime_reserve(Runtime::tensorrt_llm, h100, 1, bytes(20e9), 0.8).value() ==
        Approx(0.2 * (h100.memory.value() - 20e9)));
  // vLLM's max_num_seqs: 1,024 on a card of 70 GiB or more that is not an A100, else 256
  // (vllm/engine/arg_utils.py get_batch_defaults); TensorRT-LLM's max_batch_size 2,048; SGLang's
  // follows its KV pool.
  CHECK(runtime_max_seqs(Runtime::vllm, h100) == 1024);
  CHECK(runtime_max_seqs(Runtime::vllm, a100) == 256);
  CHECK(runtime_max_seqs(Runtime::vllm, resolve_device(cat(), "l40s")) == 256);
  CHECK(runtime_max_seqs(Runtime::tensorrt_llm, h100) == 2048);
  CHECK(runtime_max_seqs(Runtime::sglang, h100) == 0);
  // The batch is the KV cache's limit, capped by the sequences given.
  const ModelArch m = model("llama-3.1-8b");
  InferSettings s;
  s.context = 1300;
  InferModel im = make_infer_model(m, count_params(m), h100, h100, s);
  const int kv = kv_batch_limit(im);
  REQUIRE(kv > 64);
  CHECK(batch_limit(im) == std::min(kv, 1024));
  s.max_seqs = 64;
  im = make_infer_model(m, count_params(m), h100, h100, s);
  CHECK(batch_limit(im) == 64);
  CHECK(std::string(batch_limit_cause(im)) == "max_seqs");
}

TEST_CASE("A paged cache holds a request's tokens however long the context allowed") {
  // Llama 3.1 8B in BF16 on an H100 under vLLM with --max-model-len 16384, serving requests of
  // 128 prompt and 128 reply tokens: each sequence takes blocks for its 256 tokens (128 KiB a
  // token), so the cache holds room / (256 x 128 KiB) of them, 64 times the sequences of the full
  // context. llama.cpp reserves the whole context for each slot.
  const Device h100 = resolve_device(cat(), "h100-sxm");
  const ModelArch m = model("llama-3.1-8b");
  InferSettings s;
  s.context = 16384;
  s.request_tokens = 256;
  const InferModel im = make_infer_model(m, count_params(m), h100, h100, s);
  const Bytes room = im.memory.capacity - im.memory.weights - im.memory.workspace - im.memory.reserve;
  CHECK(kv_batch_limit(im) == static_cast<int>(std::floor(room.value() / (256 * 131072.0))));
  s.request_tokens = 0;
  const int whole = kv_batch_limit(make_infer_model(m, count_params(m), h100, h100, s));
  CHECK(whole == static_cast<int>(std::floor(room.value() / (16384 * 131072.0))));
  s.request_tokens = 256;
  s.runtime = Runtime::llama_cpp;
  CHECK(sequence_tokens(s) == 16384);
}

TEST_CASE("llama.cpp prefills GGUF block formats on int8 tensor cores on GeForce cards") {
  // MMQ: a Q5_1 Llama 3 8B on an RTX 4090 under llama.cpp computes at the int8 rate (660.6 TOPS)
  // under mmq_ceiling, on the curve at 512-row micro-batches; BF16 weights, vLLM and an HBM card
  // keep the 16-bit rate.
  const ModelArch m = model("llama-3.1-8b");
  const ParamCounts pc = count_params(m);
  const Device rtx = resolve_device(cat(), "rtx-4090");
  const Device h100 = resolve_device(cat(), "h100-sxm");
  InferSettings s;
  s.runtime = Runtime::llama_cpp;
  s.context = 2048;
  set_quant(s, "q5_1", m, rtx);
  CHECK(runs_mmq(s, rtx));
  CHECK(s.compute == DType::int8);
  const InferModel im = make_infer_model(m, pc, rtx, rtx, s);
  CHECK(gemm_ceiling(im) == Approx(mmq_ceiling));
  // 2048 tokens' blocks and one position's logits, at 512 rows' efficiency.
  const double blocks = pc.active - pc.embedding - pc.output;
  CHECK(linear_compute(im, 2048, 1, 1).value() ==
        Approx(2 * (blocks * 2048 + pc.head) / (660.6e12 * linear_efficiency(im, 512))));
  InferSettings b = s;
  set_quant(b, "bf16", m, rtx);
  CHECK_FALSE(runs_mmq(b, rtx));
  InferSettings v = s;
  v.runtime = Runtime::vllm;
  set_quant(v, "q5_1", m, rtx);
  CHECK_FALSE(runs_mmq(v, rtx));
  InferSettings hbm = s;
  set_quant(hbm, "q5_1", m, h100);
  CHECK_FALSE(runs_mmq(hbm, h100));
  CHECK(hbm.compute == DType::bf16);
}
