// SPDX-License-Identifier: Apache-2.0
#include <catch2/catch.hpp>
#include <cmath>

#include "catalog_fixture.hpp"
#include "gpt_fixture.hpp"

#include "gpuplan/analysis/memory.hpp"
#include "gpuplan/analysis/search.hpp"
#include "gpuplan/analysis/step.hpp"
#include "gpuplan/catalog/catalog.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/scenario.hpp"

using namespace gpuplan;

namespace {
TrainSettings korthikanti(int seq) {
  TrainSettings s;
  s.seq_len = seq;
  s.flash_attention = false;
  return s;
}
double bytes_of(Bytes b) { return b.value(); }
// The GPT fixture on a catalog device at `seq` tokens, with its default efficiencies.
StepModel gpt_on(const char* device, int layers, int hidden, int heads, int seq) {
  static const Catalog cat = Catalog::builtin();
  const ModelArch m = gpt(layers, hidden, heads);
  StepModel sm{m, count_params(m), resolve_device(cat, device), {}};
  sm.settings.train.seq_len = seq;
  sm.settings.eff = default_efficiency(sm.device);
  return sm;
}
StepModel a100_gpt(int layers, int hidden, int heads, int seq) { return gpt_on("a100-80gb", layers, hidden, heads, seq); }
}  // namespace

TEST_CASE("activations per layer match Korthikanti Table 2 exactly", "[memory]") {
  const ModelArch m = gpt();
  const double s = 2048, b = 4, h = 4096, a = 32;
  TrainSettings st = korthikanti(2048);
  Layout l;
  l.micro_batch = 4;
  l.sequence_parallel = false;
  SECTION("no parallelism, no recomputation: sbh(34 + 5as/h)") {
    l.tp = 1;
    CHECK(bytes_of(layer_activations(m, st, l, Recompute::none)) == Approx(s * b * h * (34 + 5 * a * s / h)).epsilon(1e-12));
  }
  SECTION("tensor parallel: sbh(10 + 24/t + 5as/(ht))") {
    l.tp = 8;
    CHECK(bytes_of(layer_activations(m, st, l, Recompute::none)) ==
          Approx(s * b * h * (10 + 24.0 / 8 + 5 * a * s / (h * 8))).epsilon(1e-12));
  }
  SECTION("tensor and sequence parallel: sbh(34 + 5as/h)/t") {
    l.tp = 8;
    l.sequence_parallel = true;
    CHECK(bytes_of(layer_activations(m, st, l, Recompute::none)) ==
          Approx(s * b * h * (34 + 5 * a * s / h) / 8).epsilon(1e-12));
  }
  SECTION("tensor parallel with selective recomputation: sbh(10 + 24/t)") {
    l.tp = 8;
    CHECK(bytes_of(layer_activations(m, st, l, Recompute::selective)) == Approx(s * b * h * (10 + 24.0 / 8)).epsilon(1e-12));
  }
  SECTION("tensor and sequence parallel with selective recomputation: 34sbh/t") {
    l.tp = 8;
    l.sequence_parallel = true;
    CHECK(bytes_of(layer_activations(m, st, l, Recompute::selective)) == Approx(34 * s * b * h / 8).epsilon(1e-12));
  }
  SECTION("full recomputation keeps 2sbh per layer") {
    l.tp = 8;
    CHECK(bytes_of(layer_activations(m, st, l, Recompute::full)) == Approx(2 * s * b * h).epsilon(1e-12));
  }
}

TEST_CASE("model states follow Megatron and DeepSpeed closed forms", "[memory]") {
  const ModelArch m = gpt();
  const ParamCounts pc = count_params(m);
  TrainSettings st = korthikanti(2048);
  Layout l;
  l.dp = 8;
  auto states = [&](const MemoryBreakdown& mb) { return bytes_of(mb.weights + mb.gradients + mb.optimizer); };
  const double p = pc.total;  // tp = pp = 1: the device holds every parameter
  SECTION("DDP with fp32 main gradients: 18 bytes per parameter (Megatron)") {
    l.zero = 0;
    MemoryBreakdown mb = training_memory(m, pc, st, l);
    CHECK(mb.params_per_device == Approx(p));
    CHECK(states(mb) == Approx(18 * p).epsilon(1e-12));
  }
  SECTION("distributed optimizer: 6 + 12/DP bytes per parameter (Megatron)") {
    l.zero = 1;
    CHECK(states(training_memory(m, pc, st, l)) == Approx((6 + 12.0 / 8) * p).epsilon(1e-12));
  }
  SECTION("ZeRO-2 with 16-bit gradients: 4P + 16P/N (DeepSpeed estimator)") {
    l.zero = 2;
    st.grad_bytes = 2;
    CHECK(states(training_memory(m, pc, st, l)) == Approx(4 * p + 16 * p / 8).epsilon(1e-12));
  }
  SECTION("ZeRO-3: 18P/N plus a 4 x largest-layer gather buffer (DeepSpeed estimator)") {
    l.zero = 3;
    st.grad_bytes = 2;
    MemoryBreakdown mb = training_memory(m, pc, st, l);
    CHECK(states(mb) == Approx(18 * p / 8).epsilon(1e-12));
    CHECK(bytes_of(mb.buffers - st.bucket) == Approx(4 * pc.largest_tensor).epsilon(1e-12));
    CHECK(pc.largest_tensor == 51200.0 * 4096);  // the embedding
  }
  SECTION("PyTorch FSDP's fp32 shards are the master weights: 16P/N with fp32 gradients") {
    // The fp32 parameter shard (4P/N, also the optimizer's master copy), the fp32 gradient shard
    // (4P/N) and Adam's two moments (8P/N): no 16-bit shard beside them.
    l.zero = 3;
    st.fp32_shards = true;
    MemoryBreakdown mb = training_memory(m, pc, st, l);
    CHECK(bytes_of(mb.weights) == Approx(4 * p / 8).epsilon(1e-12));
    CHECK(bytes_of(mb.optimizer) == Approx(8 * p / 8).epsilon(1e-12));
    CHECK(states(mb) == Approx(16 * p / 8).epsilon(1e-12));
    // Under pipelining FSDP gathers the stage's 16-bit weights as before: the flag changes nothing.
    l.pp = 2;
    TrainSettings plain = st;
    plain.fp32_shards = false;
    CHECK(states(training_memory(m, pc, st, l)) == states(training_memory(m, pc, plain, l)));
  }
  SECTION("ZeRO-3 under pipelining is FSDP keeping the stage gathered: 4P + 16P/N for a stage of P") {
    // torchtitan's reshard_after_forward = not pp_enabled: the stage's 16-bit weights (2P) and its
    // unsharded 16-bit gradients (2P) stay, beside the sharded fp32 gradient (4P/N) and Adam (12P/N).
    l.zero = 3;
    l.pp = 2;
    st.grad_bytes = 2;
    MemoryBreakdown mb = training_memory(m, pc, st, l);
    const double ps = mb.params_per_device;
    CHECK(ps < p);
    CHECK(states(mb) == Approx(4 * ps + 16 * ps / 8).epsilon(1e-12));
  }
  SECTION("DDP with 16-bit gradients: 16 bytes per parameter (ZeRO paper)") {
    l.zero = 0;
    st.grad_bytes = 2;
    CHECK(states(training_memory(m, pc, st, l)) == Approx(16 * p).epsilon(1e-12));
  }
}

TEST_CASE("pipeline stages hold their layers and in-flight micro-batches", "[memory]") {
  const ModelArch m = gpt(24);
  const ParamCounts pc = count_params(m);
  TrainSettings st = korthikanti(2048);
  Layout l;
  l.pp = 4;
  l.tp = 2;
  l.sequence_parallel = true;
  StageParams first = stage_params(m, pc, l, false);
  // 6 layers split over tp, norms replicated, plus the embedding shard.
  CHECK(first.total() == Approx(6 * (pc.attention / 2 + pc.norms + pc.dense_mlp / 2) + pc.embedding / 2));
  // 1F1B: p micro-batches of L/p layers in flight = L layers' worth (Korthikanti 4.2.3), and
  // min(1, m/p) of that with fewer micro-batches than stages.
  l.global_batch = 64;
  l.dp = 1;
  l.micro_batch = 1;
  l.recompute = Recompute::selective;
  Bytes per_layer = layer_activations(m, st, l, Recompute::selective);
  MemoryBreakdown full = training_memory(m, pc, st, l);
  CHECK(bytes_of(full.activations) == Approx(24 * bytes_of(per_layer) + 2048.0 * 4096 / 2 * 4).epsilon(1e-9));
  l.global_batch = 2;  // m = 2 < p = 4
  MemoryBreakdown few = training_memory(m, pc, st, l);
  CHECK(bytes_of(few.activations) == Approx(12 * bytes_of(per_layer) + 2048.0 * 4096 / 2 * 2).epsilon(1e-9));
}

TEST_CASE("fewest GPUs for a 405B dense model on 80 GB devices", "[memory][search]") {
  const StepModel sm = step_model_of(job_of({{"model", "llama-3.1-405b"}, {"gpu", "h100-sxm"}, {"seq-len", "4096"}}));
  SECTION("ZeRO-3 wins when the layout is free") {
    LayoutConstraints on_devices;
    on_devices.offload = offload_none;
    MinGpus mg = min_gpus_for_memory(sm, on_devices, 1 << 16);
    REQUIRE(mg.gpus > 0);
    CHECK(mg.best.layout.zero == 3);
    // Hand bound: 18 bytes x 405.85B params / 80 GB = 91.3 devices even with nothing else.
    CHECK(mg.gpus >= 92);
    CHECK(mg.gpus <= 130);
    CHECK(mg.best.memory.total().value() <= 80e9);
  }
  SECTION("optimizer offload holds it on fewer, within the host's share") {
    // Each H100 gets a share of its server's host memory (dgx-h100: 2 TiB over 8 devices = 256
    // GiB); the fp32 master weights, moments and gradient partition, 16 bytes a parameter, fill
    // it: 16 x 405.85B / 274.88 GB = 23.62, so at least 24 devices.
    MinGpus mg = min_gpus_for_memory(sm, LayoutConstraints{}, 1 << 16);  // nothing fixed
    REQUIRE(mg.gpus > 0);
    CHECK(mg.best.layout.offload == offload_optimizer);
    CHECK(mg.gpus >= 24);
    CHECK(mg.gpus < 92);
    CHECK(mg.best.memory.host.value() <= 256.0 * 1024 * 1024 * 1024);
  }
  SECTION("tensor plus pipeline parallelism wins without data-parallel sharding") {
    LayoutConstraints c0;
    c0.zero = 0;
    c0.dp = 1;
    MinGpus mg = min_gpus_for_memory(sm, c0, 1 << 16);
    REQUIRE(mg.gpus > 0);
    CHECK(mg.best.layout.tp * mg.best.layout.pp * mg.best.layout.cp == mg.gpus);
    CHECK(mg.best.layout.pp > 1);
    // 18 bytes x 405.85B / (80 GB - reserve and activations) > 91: more than ZeRO-3 needs.
    CHECK(mg.gpus > 92);
  }
}

TEST_CASE("the search tries tensor parallelism beyond powers of two and every micro-batch dividing a rank's batch",
          "[search]") {
  const StepModel sm = step_model_of(job_of({{"model", "gpt3-175b"}, {"gpu", "a100-80gb"}}));
  LayoutConstraints k;
  k.pp = 8;
  k.cp = 1;
  k.zero = 1;
  k.recompute = Recompute::none;
  k.interleave = 1;
  k.global_batch = 1536;
  k.offload = offload_none;
  SECTION("tensor parallelism") {
    // 96 heads, MLP 49152 = 2^14 x 3: tp in 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, each dividing
    // 768 / 8 = 96 and leaving dp = 96 / tp dividing 1536: one layout per degree at mb = 1
    // (powers of two alone: 6).
    k.micro_batch = 1;
    const SearchResult r = search_layouts(sm, 768, k, 1536.0 * 2048, 11);
    CHECK(r.evaluated == 11);
    for (const Candidate& cand : r.top) CHECK(96 % cand.layout.tp == 0);
  }
  SECTION("micro-batch") {
    // tp 4, pp 8 on 1024: dp 32 takes 48 sequences; its divisors 1, 2, 3, 4, 6, 8, 12, 16, 24, 48.
    k.tp = 4;
    const SearchResult r = search_layouts(sm, 1024, k, 1536.0 * 2048, 10);
    CHECK(r.evaluated == 10);
    for (const Candidate& cand : r.top) {
      CHECK(48 % cand.layout.micro_batch == 0);
      CHECK(cand.layout.global_batch == 1536);
    }
  }
}

TEST_CASE("closed forms of the step model", "[step]") {
  // Ring all-reduce: 2(n-1)/n S/B + 2(n-1) alpha.
  CHECK(ring_allreduce_s(1e9, 8, 1e11, 1e-5) == Approx(2.0 * 7 / 8 * 1e9 / 1e11 + 14 * 1e-5));
  CHECK(ring_gather_s(1e9, 4, 1e10, 0) == Approx(0.75 * 0.1));
  CHECK(ring_allreduce_s(1e9, 1, 1e11, 1e-5) == 0);
  // FLOPs per token: 6N + 12 L s d_attn (PaLM), N without the input embedding when untied.
  ModelArch m = gpt(24, 4096, 32);
  m.tied_embeddings = false;
  ParamCounts pc = count_params(m);
  CHECK(model_flops_per_token(m, pc, 2048) == Approx(6 * (pc.total - pc.embedding) + 12.0 * 24 * 2048 * 4096));
  // Causal attention as flash attention runs it: half the score matrix, 6 L s d_attn.
  CHECK(model_flops_per_token(m, pc, 2048, false, true) == Approx(6 * (pc.total - pc.embedding) + 6.0 * 24 * 2048 * 4096));
  TrainSettings ts;
  CHECK(mfu_convention(ts) == "6N + 6Lsd (causal attention, as run)");
  ts.flash_attention = false;
  CHECK(mfu_convention(ts) == "6N + 12Lsd");
}

TEST_CASE("FP8 training keeps one-byte copies of the linear layers' inputs", "[memory]") {
  // A Llama-style layer (GQA, SwiGLU, no dropout), no parallelism, selective recomputation:
  // 16 bits, norms 4sbh + QKV and MLP inputs 4sbh + Q, K, V 2sb(q + 2kv) + attention output 2sbq
  // + MLP 6sbf; FP8: the QKV and MLP inputs 2sbh, the MLP's second input sbf instead of 2sbf, and
  // the projection's FP8 copy sbq beside the attention output.
  ModelArch m = gpt(2, 4096, 32);
  m.kv_heads = 8, m.ffn = 14336, m.activation = Activation::swiglu, m.linear_bias = false, m.layernorm = false;
  const double s = 4096, b = 2, h = 4096, q = 4096, kv = 1024, f = 14336;
  TrainSettings st;
  st.seq_len = 4096;
  Layout l;
  l.micro_batch = 2;
  const double lse = 4 * s * b * 32;  // flash attention's fp32 log-sum-exp per row and head
  CHECK(bytes_of(layer_activations(m, st, l, Recompute::selective)) ==
        Approx(8 * s * b * h + 2 * s * b * (q + 2 * kv) + 2 * s * b * q + 6 * s * b * f + lse).epsilon(1e-12));
  st.gemm_input_bytes = 1;
  CHECK(bytes_of(layer_activations(m, st, l, Recompute::selective)) ==
        Approx(6 * s * b * h + 2 * s * b * (q + 2 * kv) + 3 * s * b * q + 5 * s * b * f + lse).epsilon(1e-12));
  StepSettings ss;
  set_precision(ss, DType::fp8);
  CHECK(ss.train.gemm_input_bytes == 1);
  CHECK(ss.train.weight_bytes == 2);
  set_precision(ss, DType::fp32);
  CHECK(ss.train.gemm_input_bytes == 2);
  CHECK(ss.train.weight_bytes == 4);
}

TEST_CASE("AMD Instinct GEMM ceilings are the measured best-shape matmul rates", "[step]") {
  // stas00/ml-engineering's MAMF table (ROCm 6.2): MI300X 781.9 of 1,300 TFLOP/s, MI250X 147.0 of 191.5
  // per GCD. MI325X shares MI300X's CDNA 3 die and software.
  Catalog c = Catalog::builtin();
  CHECK(default_efficiency(resolve_device(c, "mi300x")).gemm_max == Approx(781.9 / 1300).epsilon(1e-3));
  CHECK(default_efficiency(resolve_device(c, "mi325x")).gemm_max == Approx(781.9 / 1300).epsilon(1e-3));
  CHECK(default_efficiency(resolve_device(c, "mi250x")).gemm_max == Approx(147.0 / 191.5).epsilon(1e-3));
}

TEST_CASE("the GEMM size scale follows the device's FLOPs per byte of bandwidth", "[step]") {
  Catalog c = Catalog::builtin();
  // 512 on the A100 80GB it was fitted on; H100 SXM 989.4 TFLOP/s over 3.35 TB/s against the
  // A100's 312 over 2.039: 512 x 295.3 / 153.0 = 988; B200 2,250 over 8.0: 941; TPUs keep 512.
  CHECK(gemm_half_of(resolve_device(c, "a100-80gb")) == Approx(512).epsilon(1e-3));
  CHECK(gemm_half_of(resolve_device(c, "h100-sxm")) == Approx(512 * (989.4 / 3.35) / (312 / 2.039)).epsilon(1e-3));
  CHECK(gemm_half_of(resolve_device(c, "b200")) == Approx(512 * (2250 / 8.0) / (312 / 2.039)).epsilon(1e-3));
  CHECK(gemm_half_of(resolve_device(c, "tpu-v6e")) == 512);
  // Never below the A100's: a device with more bandwidth per FLOP keeps 512.
  CHECK(gemm_half_of(resolve_device(c, "apple-m2-ultra")) == 512);
  CHECK(default_efficiency(resolve_device(c, "h100-sxm")).gemm_half == gemm_half_of(resolve_device(c, "h100-sxm")));
}

TEST_CASE("fused element-wise kernels leave the GEMMs their own depth where one is known", "[step]") {
  // XLA's sm_90 GEMM table fits the curve at half 60 (k_halves 2.5: a 150-deep GEMM at half the
  // ceiling). One micro-batch of 16 x 1,024 tokens of a 768-wide layer, h = 768: the QKV
  // projection (k = 768, n = 2,304) runs at 0.8 x 768 / (768 + 2.5 x 60) x t / (t + 50), t = 16,384
  // x 2,304 / 128^2 = 2,304 output tiles, and at 768 / (768 + 2.5 x 988.0) with Megatron's depth.
  const StepModel sm = gpt_on("h100-sxm", 4, 768, 12, 1024);
  CHECK(sm.settings.eff.gemm_half_fused == 60);
  StepModel fused = sm;
  fused.settings.train.fused_kernels = true;
  Layout l;
  l.micro_batch = 16, l.global_batch = 16;
  const double tokens = 16 * 1024.0, tiles = tokens * 2304 / (128 * 128), tile_term = tiles / (tiles + 50);
  const double flops = 2 * tokens * 768 * 2304, proj = 2 * tokens * 768 * 768, proj_tiles = tokens * 768 / (128 * 128);
  const double out_term = proj_tiles / (proj_tiles + 50);
  const double expected = flops / (989.4e12 * 0.8 * 768 / (768 + 150) * tile_term) +
                          proj / (989.4e12 * 0.8 * 768 / (768 + 150) * out_term);
  CHECK(layer_parts(fused, l).attn_gemm == Approx(expected).epsilon(1e-3));
  const double half = gemm_half_of(sm.device);
  const double megatron = flops / (989.4e12 * 0.8 * 768 / (768 + 2.5 * half) * tile_term) +
                          proj / (989.4e12 * 0.8 * 768 / (768 + 2.5 * half) * out_term);
  CHECK(layer_parts(sm, l).attn_gemm == Approx(megatron).epsilon(1e-3));
  // A100: Hopper's 60 scaled by the tensor rate per SM per clock (2,048 against 4,096), 30, an
  // estimate; the same projections at 312 TFLOP/s and the A100's 0.87 ceiling.
  StepModel a100 = a100_gpt(4, 768, 12, 1024);
  CHECK(a100.settings.eff.gemm_half_fused == 30);
  StepModel a100_fused = a100;
  a100_fused.settings.train.fused_kernels = true;
  CHECK(layer_parts(a100_fused, l).attn_gemm == Approx(flops / (312e12 * 0.87 * 768 / (768 + 75) * tile_term) +
                                                       proj / (312e12 * 0.87 * 768 / (768 + 75) * out_term))
                                                    .epsilon(1e-3));
  // B200: XLA's sm_100_B200 table fits 199 under the 0.80 ceiling.
  CHECK(gpt_on("b200", 4, 768, 12, 1024).settings.eff.gemm_half_fused == 199);
  // No depth for CDNA 3: the setting changes nothing there.
  StepModel mi = gpt_on("mi300x", 4, 768, 12, 1024);
  StepModel mi_fused = mi;
  mi_fused.settings.train.fused_kernels = true;
  CHECK(step_time(mi_fused, l).compute.value() == step_time(mi, l).compute.value());
}

TEST_CASE("flash attention's backward pass costs 2.5 forward passes of the attention core", "[step]") {
  // Eager attention computes the whole score matrix (forward 1, backward 2); causal flash
  // attention half of it (forward 1, backward 2.5 at 0.87 of the forward's rate, so 1 + 2.5 /
  // 0.87 forward passes), at L / (L + 238) of eager's rate for L = s keys a call. Everything else
  // is equal, so over one micro-batch without recomputation: eager - flash = 3 x 2c - (1 + 2.5 /
  // 0.87) x c (L + 238) / L per layer, c the causal core 4 b s^2 q / 2 at 80% of the GEMM
  // ceiling, plus the framework's 3%.
  const StepModel flash = a100_gpt(4, 2048, 16, 2048);
  StepModel eager = flash;
  eager.settings.train.flash_attention = false;
  Layout l;
  l.global_batch = 1, l.zero = 0, l.recompute = Recompute::none;
  const double c = 4.0 * 2048 * 2048 * 2048 / 2 / (312e12 * 0.87 * 0.8);
  const double diff = step_time(eager, l).compute.value() - step_time(flash, l).compute.value();
  const double passes = 1 + 2.5 / 0.87;
  CHECK(diff == Approx(4 * (6 * c - passes * c * (2048 + 238) / 2048) * 1.03).epsilon(1e-9));
}

TEST_CASE("FlashAttention-2 kernels run the attention core at 35 percent of peak on Hopper", "[step]") {
  // FlashAttention-3 (Shah et al. 2024): FA2 reaches 35% of H100's peak. The causal core c = 4 b s^2 q
  // / 2 runs forward once and backward 2.5 times at 0.87 of the forward's rate, so flash2 - flash =
  // (1 + 2.5 / 0.87) c (1/0.35 - 1/(0.8 x 0.8))
  // x (L + 238) / L per layer at the dense peak, plus the framework's 3%. On an A100 FA2 is the
  // flash kernel already: no change.
  const StepModel fa3 = gpt_on("h100-sxm", 4, 2048, 16, 2048);
  StepModel fa2 = fa3;
  fa2.settings.train.flash2 = true;
  Layout l;
  l.global_batch = 1, l.zero = 0, l.recompute = Recompute::none;
  const double c = 4.0 * 2048 * 2048 * 2048 / 2 / 989.4e12 * (2048 + 238) / 2048;
  const double diff = step_time(fa2, l).compute.value() - step_time(fa3, l).compute.value();
  CHECK(diff == Approx(4 * (1 + 2.5 / 0.87) * c * (1 / 0.35 - 1 / (0.8 * 0.8)) * 1.03).epsilon(1e-9));
  const StepModel a100 = a100_gpt(4, 2048, 16, 2048);
  StepModel a100_fa2 = a100;
  a100_fa2.settings.train.flash2 = true;
  CHECK(step_time(a100_fa2, l).compute.value() == step_time(a100, l).compute.value());
}

TEST_CASE("context parallelism merges each ring step's output in fp32", "[step]") {
  // cp = 2 on a 4-layer model, tokens s b = 2048 per rank: the ring's merges add, per layer,
  // forward cp x 10 s b q bytes, backward that again plus cp x 8 s b 2 kv, at the streaming rate.
  // Against cp = 1 with the same tokens per rank (seq 2048): the flash calls see s / 2cp = 1,024
  // keys instead of 2,048 over twice the sequence, so the core costs 2 (1024 + 238) / 1024 /
  // ((2048 + 238) / 2048) of cp = 1's.
  const StepModel one = a100_gpt(4, 2048, 16, 2048);
  StepModel two = one;
  two.settings.train.seq_len = 4096;
  Layout l;
  l.global_batch = 1, l.zero = 0, l.recompute = Recompute::none;
  Layout lc = l;
  lc.cp = 2;
  const double bw = 2.039e12 * 0.88, sb = 2048, q = 2048, kv = 2048;
  const double merge = 2 * 10 * sb * q / bw * 2 + 2 * 8 * sb * 2 * kv / bw;  // forward + backward, one layer
  const double c1 = 4.0 * 2048 * 2048 * 2048 / 2 / (312e12 * 0.87 * 0.8 * 2048 / (2048 + 238));
  const double c2 = 4.0 * 2048 * 4096 * 2048 / 2 / (312e12 * 0.87 * 0.8 * 1024 / (1024 + 238));
  const double diff = step_time(two, lc).compute.value() - step_time(one, l).compute.value();
  CHECK(diff == Approx(4 * (merge + (1 + 2.5 / 0.87) * (c2 - c1)) * 1.03).epsilon(1e-9));
}

TEST_CASE("an MoE layer routes each token's k copies through memory", "[step]") {
  ModelArch m = gpt(2, 2048, 16);
  m.experts = 128, m.active_experts = 8, m.expert_ffn = 768;
  // 4 h (k + 1) bytes a token: 4 x 2048 x 9 = 73,728.
  CHECK(moe_permute_bytes(m, 1) == 73728);
  CHECK(moe_permute_bytes(m, 4096) == 4096.0 * 73728);
}

TEST_CASE("an expert's down projection runs at the layer width's depth", "[step]") {
  // Two MoE models, experts 512 and 1,024 wide under a width of 2,048 (8 experts, 2 routed, no
  // expert parallelism: each expert sees tk = 2,048 x 2 / 8 = 512 tokens). Only the experts'
  // GEMMs and their element-wise work (6 bytes per token, copy and expert width) differ; each down
  // projection takes the curve at depth h, not at its own f:
  // per layer E x (2 tk h f / (P c(tk, h, f)) + 2 tk f h / (P c(tk, h, h))) + 6 s k f / bw,
  // forward, backward twice and the framework's 3%.
  StepModel one = a100_gpt(2, 2048, 16, 2048);
  one.model.experts = 8, one.model.active_experts = 2, one.model.expert_ffn = 512;
  one.params = count_params(one.model);
  StepModel two = one;
  two.model.expert_ffn = 1024;
  two.params = count_params(two.model);
  Layout l;
  l.global_batch = 1, l.zero = 0, l.recompute = Recompute::none;
  const double P = 312e12, gmax = 0.87, half = 512, h = 2048, tk = 512, bw = 2.039e12 * 0.88;
  auto experts = [&](double f) {
    const double up = 2 * tk * h * f / (P * gemm_curve(gmax, half, tk, h, f));
    const double down = 2 * tk * f * h / (P * gemm_curve(gmax, half, tk, h, h));
    return 8 * (up + down) + 6 * 2048.0 * 2 * f / bw;
  };
  const double diff = step_time(two, l).compute.value() - step_time(one, l).compute.value();
  CHECK(diff == Approx(2 * 3 * (experts(1024) - experts(512)) * 1.03).epsilon(1e-9));
}

TEST_CASE("recomputing some layers keeps the rest whole and costs their share", "[memory][step]") {
  // 8 layers, no pipeline: recomputing n of them keeps n checkpoints (2sbh) and 8 - n whole layers;
  // memory and time interpolate between full recomputation of all and none, n / 8 of the way.
  Catalog cat = Catalog::builtin();
  const ModelArch m = gpt(8, 4096, 32);
  StepModel sm{m, count_params(m), resolve_device(cat, "a100-80gb"), {}};
  sm.settings.train.seq_len = 2048;
  Layout l;
  l.tp = 2, l.global_batch = 4, l.zero = 1, l.recompute = Recompute::none;
  const TrainSettings& st = sm.settings.train;
  const MemoryBreakdown none = training_memory(m, sm.params, st, l);
  const StepTime t_none = step_time(sm, l);
  l.recompute = Recompute::full;
  const MemoryBreakdown all = training_memory(m, sm.params, st, l);
  const StepTime t_all = step_time(sm, l);
  l.recompute_layers = 3;
  const MemoryBreakdown three = training_memory(m, sm.params, st, l);
  const StepTime t_three = step_time(sm, l);
  const double whole = bytes_of(layer_activations(m, st, l, Recompute::none)), ckpt = bytes_of(layer_activations(m, st, l, Recompute::full));
  CHECK(bytes_of(three.activations) - bytes_of(all.activations) == Approx(5 * (whole - ckpt)));
  // The working set of the layer being recomputed stays: 3 checkpoints + 5 whole layers + 1 whole.
  CHECK(bytes_of(three.activations) - bytes_of(none.activations) == Approx(3 * ckpt - 3 * whole + whole));
  CHECK(t_three.compute.value() == Approx(t_none.compute.value() + 3.0 / 8 * (t_all.compute - t_none.compute).value()));
  CHECK(t_three.tp_comm.value() == Approx(t_none.tp_comm.value() + 3.0 / 8 * (t_all.tp_comm - t_none.tp_comm).value()));
  CHECK(t_three.hardware_flops.value() == Approx(t_none.model_flops.value() * (1 + 3.0 / 8 / 3)));
  CHECK(recompute_text(l) == "full (3 layers a stage)");
  l.recompute_layers = 1;
  CHECK(recompute_text(l) == "full (1 layer a stage)");
}

TEST_CASE("the search recomputes the fewest layers that fit", "[search]") {
  // Llama 3.1 405B on 256 GB200 (186 GiB) at NVIDIA's recipe layout (tp 4, pp 16, v 4) with 16K
  // tokens: no layout without recomputation fits; full recomputation of every layer does, and of 5
  // of the stage's 8 layers still does, but of 4 does not.
  Catalog cat = Catalog::builtin();
  const ModelArch m = model_from_record(cat.get("models", "llama-3.1-405b"));
  StepModel sm{m, count_params(m), resolve_device(cat, "gb200"), {}};
  sm.settings.train.seq_len = 16384;
  set_precision(sm.settings, DType::fp8);
  sm.settings.train.grad_bytes = 2;
  LayoutConstraints c;
  c.tp = 4, c.pp = 16, c.cp = 1, c.interleave = 4, c.micro_batch = 1, c.global_batch = 1536, c.zero = 1;
  c.offload = offload_none;
  const SearchResult r = search_layouts(sm, 256, c, 0, 1);
  REQUIRE(!r.top.empty());
  Layout l = r.top.front().layout;
  CHECK(l.recompute == Recompute::full);
  CHECK(l.recompute_layers == 5);
  const double capacity = sm.device.usable_memory().value();
  CHECK(training_memory(m, sm.params, sm.settings.train, l).fits(capacity, sm.settings.train));
  l.recompute_layers = 4;
  CHECK_FALSE(training_memory(m, sm.params, sm.settings.train, l).fits(capacity, sm.settings.train));
  c.recompute = Recompute::none;
  CHECK(search_layouts(sm, 256, c, 0, 1).top.empty());
  // --recompute full alone means every layer.
  c.recompute = Recompute::full;
  CHECK(search_layouts(sm, 256, c, 0, 1).top.front().layout.recompute_layers == 0);
}

TEST_CASE("one device offloads its optimizer under ZeRO as DeepSpeed runs it", "[memory][search]") {
  // Llama 3.2 3B on one RTX 4090 (24 GiB): 3.21B x 18 bytes of model state (16-bit weights and
  // gradients, fp32 master and moments, fp32 gradient partition) is 54 GiB, so nothing fits on
  // the card. ZeRO-Offload trains on a single GPU at stage 2 (Ren et al. 2021), which shards
  // nothing on one rank but moves the optimizer's 16 bytes a parameter (51 GB) to the host.
  const StepModel sm = step_model_of(job_of({{"model", "llama-3.2-3b"}, {"gpu", "rtx-4090"}}));
  const SearchResult free = search_layouts(sm, 1, LayoutConstraints{}, 0, 1);
  REQUIRE(!free.top.empty());
  const Layout& l = free.top.front().layout;
  CHECK(l.dp == 1);
  CHECK((l.offload & offload_optimizer) != 0);
  CHECK(l.zero >= 2);
  CHECK(free.top.front().memory.host.value() == Approx(16.0 * sm.params.total).epsilon(0.01));
  // --offload optimizer on one device is a layout, not "no layout suits".
  LayoutConstraints given;
  given.offload = offload_optimizer;
  const SearchResult fixed = search_layouts(sm, 1, given, 0, 1);
  REQUIRE(!fixed.top.empty());
  CHECK(fixed.top.front().layout.zero == 2);
  // --zero 0 keeps the state on the device: then nothing fits.
  LayoutConstraints zero0;
  zero0.zero = 0;
  CHECK(search_layouts(sm, 1, zero0, 0, 1).top.empty());
}

TEST_CASE("the pipeline bubble is p-1 over v micro-batch slots", "[step]") {
  Catalog c = Catalog::builtin();
  ModelArch m = gpt(24);
  StepModel sm{m, count_params(m), resolve_device(c, "a100-80gb"), {}};
  sm.settings.train.seq_len = 2048;
  Layout l;
  l.pp = 4;
  l.dp = 1;
  l.global_batch = 16;
  l.zero = 0;
  StepTime t1 = step_time(sm, l);
  const double per_slot = (t1.compute.value() + t1.tp_comm.value() + t1.pp_comm.value()) / 16;
  CHECK(t1.bubble.value() == Approx(3 * per_slot));
  l.interleave = 2;
  StepTime t2 = step_time(sm, l);
  CHECK(t2.bubble.value() == Approx(1.5 * (t2.compute.value() + t2.pp_comm.value()) / 16));
}

TEST_CASE("bad layouts and settings are usage errors", "[memory]") {
  Scenario s;
  CHECK_THROWS_AS(apply_setting(s, "tp", "0"), Error);
  CHECK_THROWS_AS(apply_setting(s, "tp", "-2"), Error);
  CHECK_THROWS_AS(apply_setting(s, "zero", "4"), Error);
  CHECK_THROWS_AS(apply_setting(s, "precision", "fp12"), Error);
  CHECK_THROWS_AS(apply_setting(s, "recompute", "some"), Error);
  CHECK_THROWS_AS(apply_setting(s, "tokens", "0"), Error);
  CHECK_THROWS_WITH(apply_setting(s, "micro-bach", "2"), Catch::Matchers::Contains("did you mean micro-batch?"));
  Catalog c = Catalog::builtin();
  apply_setting(s, "model", "llama-2-7b");
  apply_setting(s, "heads", "33");
  CHECK_THROWS_WITH(resolve(s, c), Catch::Matchers::Contains("does not divide"));
  // The library itself refuses a zero degree (the settings table never passes one on).
  const StepModel sm = a100_gpt(4, 2048, 16, 2048);
  for (auto set : {+[](LayoutConstraints& k) { k.tp = 0; }, +[](LayoutConstraints& k) { k.micro_batch = 0; },
                   +[](LayoutConstraints& k) { k.pp = -1; }, +[](LayoutConstraints& k) { k.global_batch = 0; }}) {
    LayoutConstraints k;
    set(k);
    CHECK_THROWS_WITH(search_layouts(sm, 8, k, 0, 1), Catch::Matchers::Contains("expected a whole number of at least 1"));
  }
  CHECK_THROWS_AS(search_layouts(sm, 0, LayoutConstraints{}, 0, 1), Error);
}

namespace {
// Mixtral 8x7B on H100 with every default: an MoE model for the communication terms.
StepModel mixtral_on_h100() { return step_model_of(job_of({{"model", "mixtral-8x7b"}})); }
}  // namespace

TEST_CASE("Overlap settings hide tensor-parallel and expert communication") {
  StepModel sm = mixtral_on_h100();
  Layout l;
  l.tp = 2, l.dp = 128, l.ep = 8, l.zero = 1, l.micro_batch = 1, l.global_batch = 1024;
  const StepTime base = step_time(sm, l);
  REQUIRE(base.tp_comm.value() > 0);
  REQUIRE(base.ep_comm.value() > 0);
  sm.settings.tp_overlap = 1;
  sm.settings.ep_overlap = 0.5;
  const StepTime hidden = step_time(sm, l);
  CHECK(hidden.tp_comm.value() == 0);
  CHECK(hidden.ep_comm.value() == Approx(base.ep_comm.value() / 2).epsilon(1e-12));
  CHECK(hidden.compute.value() == Approx(base.compute.value()).epsilon(1e-12));
}

TEST_CASE("Expert all-to-all across nodes is bound by the scale-out share of the traffic") {
  // 8 ranks inside one NVLink domain against 16 ranks over two nodes: the second sends half of
  // its bytes over InfiniBand, so it cannot be faster than that half at the NIC's rate.
  StepModel sm = mixtral_on_h100();
  Layout l;
  l.dp = 16, l.ep = 8, l.zero = 1, l.micro_batch = 1, l.global_batch = 1024, l.sequence_parallel = false;
  const double inside = step_time(sm, l).ep_comm.value();
  l.dp = 32, l.ep = 16, l.global_batch = 2048;  // same tokens per rank, twice the ranks
  const double across = step_time(sm, l).ep_comm.value();
  CHECK(across > 2 * inside);
}

TEST_CASE("a deduplicating dispatcher sends a token once to each node", "[step]") {
  // k = 2 experts over 2 nodes: per-expert dispatch sends 2 x 1/2 = 1 copy across; once per node,
  // the other node is hit with probability 1 - (1/2)^2 = 3/4. DeepSeek-V3's k = 8 over 8 nodes:
  // 8 x 7/8 = 7 copies against 7 x (1 - (7/8)^8) = 4.60. One node: nothing crosses.
  CHECK(remote_token_copies(2, 2, false) == Approx(1));
  CHECK(remote_token_copies(2, 2, true) == Approx(0.75));
  CHECK(remote_token_copies(8, 8, false) == Approx(7));
  CHECK(remote_token_copies(8, 8, true) == Approx(7 * (1 - std::pow(7.0 / 8, 8))));
  CHECK(remote_token_copies(8, 1, true) == 0);
  // Mixtral (k = 2) on ep 16 over two H100 nodes, one micro-batch of 4,096 tokens: each MoE layer
  // moves 2 s b h k = 2 x 4,096 x 4,096 x 2 bytes four times (dispatch and combine, forward and
  // backward); its scale-out share (1 and 0.75 copies of 2) at 50 GB/s x 0.8 a GPU, plus 20 us,
  // is slower than the NVLink share (7/16 of it at 450 x 0.8 GB/s): 32 layers.
  StepModel sm = mixtral_on_h100();
  sm.settings.train.seq_len = 4096;
  Layout l;
  l.dp = 16, l.ep = 16, l.zero = 1, l.micro_batch = 1, l.global_batch = 16, l.sequence_parallel = false;
  const double bytes = 2.0 * 4096 * 4096 * 2, nic = 400e9 / 8 * 0.8;
  const double per_expert = step_time(sm, l).ep_comm.value();
  sm.settings.ep_dedup = true;
  const double once = step_time(sm, l).ep_comm.value();
  CHECK(per_expert == Approx(32 * 4 * (bytes / 2 * 1 / nic + 20e-6)).epsilon(1e-9));
  CHECK(once == Approx(32 * 4 * (bytes / 2 * 0.75 / nic + 20e-6)).epsilon(1e-9));
}

TEST_CASE("pipeline sends carry a tensor-parallel rank's share of the activations with or without sequence parallelism", "[step]") {
  // Narayanan et al. 2021, section 4.1: each of the t ranks sends 1/t of the b s h activations to
  // the next stage (scatter/gather), so switching sequence parallelism off leaves the pipeline
  // traffic as it is: 2 sends per micro-batch per model chunk.
  Catalog c = Catalog::builtin();
  ModelArch m = gpt(24);
  StepModel sm{m, count_params(m), resolve_device(c, "a100-80gb"), {}};
  sm.settings.train.seq_len = 2048;
  Layout l;
  l.tp = 8, l.pp = 4, l.dp = 1, l.global_batch = 16, l.zero = 0;
  l.sequence_parallel = true;
  const StepTime with_sp = step_time(sm, l);
  l.sequence_parallel = false;
  const StepTime without = step_time(sm, l);
  CHECK(with_sp.pp_comm.value() > 0);
  CHECK(without.pp_comm.value() == Approx(with_sp.pp_comm.value()));
  // Twice the model chunks (interleave 2): twice the sends.
  l.interleave = 2;
  CHECK(step_time(sm, l).pp_comm.value() == Approx(2 * without.pp_comm.value()));
}

TEST_CASE("pipeline schedules set the bubble and DualPipe's memory", "[step][memory]") {
  // pp 8, one micro-batch's compute and exposed traffic per slot: 1F1B (p - 1) = 7 slots;
  // ZB-H1 7/3; DualPipe (8/2 - 1) x 2/3 = 2, with two parameter copies and pp + 1 = 9 micro-batches
  // in flight on every stage.
  StepModel sm = a100_gpt(32, 4096, 32, 2048);
  const ModelArch& m = sm.model;
  Layout l;
  l.pp = 8, l.dp = 1, l.global_batch = 32, l.zero = 0, l.recompute = Recompute::none;
  const StepTime one = step_time(sm, l);
  const double slot = (one.compute + one.tp_comm + one.pp_comm).value() / 32;
  CHECK(one.bubble.value() == Approx(7 * slot));
  sm.settings.train.schedule = Schedule::zero_bubble;
  CHECK(step_time(sm, l).bubble.value() == Approx(7.0 / 3 * slot));
  sm.settings.train.schedule = Schedule::dualpipe;
  CHECK(step_time(sm, l).bubble.value() == Approx(2 * slot));
  TrainSettings plain = sm.settings.train, dual = sm.settings.train;
  plain.schedule = Schedule::one_f_one_b;
  const MemoryParts pp_plain = memory_parts(m, sm.params, plain, l), pp_dual = memory_parts(m, sm.params, dual, l);
  CHECK(pp_plain.stage[0].in_flight == 8);
  CHECK(pp_dual.stage[0].in_flight == 9);
  CHECK(pp_dual.stage[1].in_flight == 9);
  CHECK(training_memory(m, sm.params, dual, l).weights.value() ==
        Approx(2 * training_memory(m, sm.params, plain, l).weights.value()));
  CHECK(parse_schedule("zero-bubble") == Schedule::zero_bubble);
  CHECK(to_string(Schedule::dualpipe) == "dualpipe");
  CHECK_THROWS_AS(parse_schedule("gpipe"), Error);
}

TEST_CASE("a fixed schedule constrains the search's virtual stages", "[search]") {
  StepModel sm = a100_gpt(32, 4096, 32, 2048);
  LayoutConstraints c;
  c.pp = 4, c.tp = 2;
  sm.settings.train.schedule = Schedule::interleaved;
  for (const auto& cand : search_layouts(sm, 64, c, 1 << 20, 20).top) CHECK(cand.layout.interleave > 1);
  sm.settings.train.schedule = Schedule::one_f_one_b;
  for (const auto& cand : search_layouts(sm, 64, c, 1 << 20, 20).top) CHECK(cand.layout.interleave == 1);
  c.pp.reset();
  sm.settings.train.schedule = Schedule::dualpipe;
  for (const auto& cand : search_layouts(sm, 64, c, 1 << 20, 50).top) CHECK((cand.layout.pp == 1 || cand.layout.pp % 2 == 0));
}

TEST_CASE("training precisions name their GEMM rate and quantised bytes", "[step][memory]") {
  CHECK(parse_precision("fp4") == Precision::nvfp4);
  CHECK(parse_precision("mxfp8") == Precision::mxfp8);
  CHECK_THROWS_AS(parse_precision("fp6"), Error);
  CHECK(compute_dtype_of(Precision::mxfp8) == DType::fp8);
  CHECK(compute_dtype_of(Precision::nvfp4) == DType::fp4);
  // An E8M0 scale per 32 FP8 elements; an E4M3 scale per 16 FP4 elements.
  CHECK(quantised_bytes(Precision::fp8) == 1);
  CHECK(quantised_bytes(Precision::mxfp8) == 1 + 1.0 / 32);
  CHECK(quantised_bytes(Precision::nvfp4) == 0.5 + 1.0 / 16);
  CHECK(quantised_bytes(Precision::bf16) == 2);
  StepSettings st;
  set_precision(st, Precision::nvfp4);
  CHECK(st.train.gemm_input_bytes == 0.5625);
  CHECK(st.train.attn_input_bytes == 0.5625);
  CHECK(st.train.weight_bytes == 2);
  st.low_precision_mlp_only = true;
  set_precision(st, Precision::nvfp4);
  CHECK(st.train.gemm_input_bytes == 0.5625);
  CHECK(st.train.attn_input_bytes == 2);
}

TEST_CASE("low-precision GEMM inputs are quantised at 2 plus 2q bytes an element", "[step]") {
  // mxfp8 and fp8 run the same GEMMs (the fp8 tensor rate and ceiling) and differ only in what a
  // quantised element takes: q = 1 + 1/32 against 1, so each quantisation writes 2/32 bytes more
  // an element. A GPT layer (two-matrix MLP, no parallelism) quantises forward the QKV input h,
  // the projection input q, the MLP input h and its second input f, and backward the output
  // gradients q + 2kv, h, f and h: per layer and token 4h + q + 2f + q + 2kv elements (kv = q).
  static const Catalog cat = Catalog::builtin();
  const ModelArch m = gpt(4, 2048, 16);
  StepModel fp8{m, count_params(m), resolve_device(cat, "b200"), {}};
  fp8.settings.train.seq_len = 2048;
  fp8.settings.eff = default_efficiency(fp8.device);
  set_precision(fp8.settings, Precision::fp8);
  StepModel mx = fp8;
  set_precision(mx.settings, Precision::mxfp8);
  Layout l;
  l.global_batch = 1, l.zero = 0, l.recompute = Recompute::none;
  const double h = 2048, f = 4 * 2048, tokens = 2048, bw = 8e12 * 0.85;
  const double elements = tokens * (4 * h + 2 * 2048 + 2 * f + 2 * 2048);
  const double diff = step_time(mx, l).compute.value() - step_time(fp8, l).compute.value();
  CHECK(diff == Approx(4 * elements * (2.0 / 32) / bw * 1.03).epsilon(1e-9));
  CHECK(diff > 0);
}

TEST_CASE("layers kept in bf16 under a low precision cost what bf16 costs", "[step]") {
  // Every layer kept in 16 bits: the same GEMMs at the bf16 rate and ceiling, no quantisation, and
  // the output layer in 16 bits either way, so the step's compute equals bf16's; half of them:
  // halfway between bf16 and nvfp4 throughout.
  static const Catalog cat = Catalog::builtin();
  const ModelArch m = gpt(4, 4096, 32);
  StepModel bf16{m, count_params(m), resolve_device(cat, "gb200"), {}};
  bf16.settings.train.seq_len = 4096;
  bf16.settings.eff = default_efficiency(bf16.device);
  StepModel fp4 = bf16;
  set_precision(fp4.settings, Precision::nvfp4);
  Layout l;
  l.global_batch = 1, l.zero = 0, l.recompute = Recompute::none;
  StepModel all = fp4, half = fp4;
  all.settings.high_precision_layers = 4;
  half.settings.high_precision_layers = 2;
  const double t16 = step_time(bf16, l).compute.value(), t4 = step_time(fp4, l).compute.value();
  CHECK(step_time(all, l).compute.value() == Approx(t16).epsilon(1e-12));
  CHECK(step_time(half, l).compute.value() == Approx((t16 + t4) / 2).epsilon(1e-12));
  CHECK(t4 < t16);
  // Under pipelining each end stage holds half of them: 2 of 4 layers on 2 stages puts one of the
  // first stage's two in 16 bits, halfway between none and both (4 puts both there).
  Layout lp = l;
  lp.pp = 2;
  StepModel none = fp4, one = fp4, both = fp4;
  one.settings.high_precision_layers = 2;
  both.settings.high_precision_layers = 4;
  CHECK(step_parts(one, lp).per_micro ==
        Approx((step_parts(none, lp).per_micro + step_parts(both, lp).per_micro) / 2).epsilon(1e-12));
}

TEST_CASE("mlp-only quantisation keeps attention's projections and saved inputs in 16 bits", "[step][memory]") {
  static const Catalog cat = Catalog::builtin();
  ModelArch m = gpt(4, 4096, 32);
  m.head_dim = 64;  // q = 2,048 against h = 4,096
  StepModel all{m, count_params(m), resolve_device(cat, "h100-sxm"), {}};
  all.settings.train.seq_len = 4096;
  all.settings.eff = default_efficiency(all.device);
  set_precision(all.settings, Precision::fp8);
  StepModel mlp = all;
  mlp.settings.low_precision_mlp_only = true;
  set_precision(mlp.settings, Precision::fp8);
  Layout l;
  l.global_batch = 1, l.zero = 0, l.recompute = Recompute::selective;
  // Attention at 16 bits is slower than at fp8 even after its quantisation is saved.
  CHECK(step_time(mlp, l).compute.value() > step_time(all, l).compute.value());
  // Memory: the QKV input kept at 2 bytes instead of 1, and no FP8 copy of the projection's input
  // beside the 16-bit attention output: s b h - s b q more.
  const double s = 4096, b = 1, h = 4096, q = 2048;
  CHECK(bytes_of(layer_activations(m, mlp.settings.train, l, Recompute::selective)) -
            bytes_of(layer_activations(m, all.settings.train, l, Recompute::selective)) ==
        Approx(s * b * h - s * b * q).epsilon(1e-12));
}

TEST_CASE("a micro-batch takes at least the host time to issue its kernels", "[step]") {
  // 36 kernels a dense layer forward and backward, and 30 more in an MoE layer, at 5 us eagerly or
  // 0.58 us from a CUDA graph.
  CHECK(host_issue_s(4, 0, false) == Approx(4 * 36 * 5e-6));
  CHECK(host_issue_s(4, 2, true) == Approx((4 * 36 + 2 * 30) * 0.58e-6));
  // An 8-layer model of width 256 at 32 tokens does less than the 1.44 ms an eager host needs to
  // issue a micro-batch on an A100 (most of its work is the output layer over 50k words): the host
  // sets its pace. CUDA graphs lower that floor to 167 us, below the work.
  StepModel eager = a100_gpt(8, 256, 4, 32);
  StepModel graphs = eager;
  graphs.settings.cuda_graphs = true;
  Layout l;
  l.global_batch = 8;  // 8 micro-batches of one sequence
  const double work = step_parts(graphs, l).per_micro;
  REQUIRE(work < 1440e-6);
  REQUIRE(work > 167e-6);
  CHECK(step_time(eager, l).compute.value() == Approx(8 * 1440e-6));
  CHECK(step_time(graphs, l).compute.value() == Approx(8 * work));
}

TEST_CASE("SHARP reduces the gradient all-reduce in the switches", "[step]") {
  // S / B once, plus the latency up and down each tier of 64-port switches: one tier reaches 64
  // ranks, two 64 x 32 = 2,048, three 65,536.
  CHECK(sharp_allreduce_s(1e9, 64, 5e10, 2e-5, 64) == Approx(0.02 + 2 * 1 * 2e-5));
  CHECK(sharp_allreduce_s(1e9, 100, 5e10, 2e-5, 64) == Approx(0.02 + 2 * 2 * 2e-5));
  CHECK(sharp_allreduce_s(1e9, 3000, 5e10, 2e-5, 64) == Approx(0.02 + 2 * 3 * 2e-5));
  CHECK(sharp_allreduce_s(1e9, 1, 5e10, 2e-5, 64) == 0);
  // In a step: tp 8 fills each A100 node, so the 16 data-parallel ranks are a node apart and the
  // gradient all-reduce runs all on the scale-out fabric (HDR, 40-port switches: one tier). The
  // ring's 2 x 15/16 S / B and 30 latencies become S / B and 2 latencies.
  StepModel ring = a100_gpt(8, 1024, 8, 512);
  StepModel sharp = ring;
  sharp.settings.sharp = true;
  REQUIRE(ring.device.scale_out.in_network_reduction);
  Layout l;
  l.tp = 8, l.dp = 16, l.global_batch = 16, l.zero = 0;
  const Device& d = ring.device;
  const double bytes = step_parts(ring, l).trained * ring.settings.train.grad_bytes;
  const double bw = d.scale_out.bw_per_direction.value() * std::max(1, d.nics_per_node) / d.devices_per_node * ring.settings.eff.link;
  const double latency = std::max(d.scale_out.latency.value(), d.scale_up.latency.value());
  CHECK(step_parts(ring, l).grad_allreduce == Approx(2.0 * 15 / 16 * bytes / bw + 30 * latency));
  CHECK(step_parts(sharp, l).grad_allreduce == Approx(bytes / bw + 2 * latency));
  // Reduce-scatter and all-gather (ZeRO) are unchanged.
  CHECK(step_parts(sharp, l).grad_gather == Approx(step_parts(ring, l).grad_gather));
}

TEST_CASE("the loss over the vocabulary costs its logits memory traffic", "[step]") {
  // Unfused (PyTorch's fp32 upcast, log-softmax and their backward) moves 36 bytes a logit, a fused
  // kernel 6: at tp 2 each rank holds half the vocabulary, so the micro-batch differs by
  // 30 s b V / 2 over the A100's streaming rate, plus the step's framework share.
  StepModel unfused = a100_gpt(4, 2048, 16, 2048);
  StepModel fused = unfused;
  fused.settings.train.fused_loss = true;
  Layout l;
  l.tp = 2, l.micro_batch = 2;
  const double s = 2048, b = 2, vocab = unfused.model.vocab;
  const double bw = unfused.device.memory_bw.value() * unfused.settings.eff.memory;
  CHECK(step_parts(unfused, l).per_micro - step_parts(fused, l).per_micro ==
        Approx(30 * s * b * vocab / 2 / bw * (1 + unfused.settings.framework_overhead)).epsilon(1e-9));
}

TEST_CASE("flash attention in training skips the pairs beyond a sliding window", "[step]") {
  // A 4-layer GPT at 8,192 tokens on an A100 with flash attention: a window as long as the
  // sequence changes nothing, and a step is linear in each layer's pairs, so windowing half the
  // layers costs the mean of none and all (2,048^2 / 2 + 6,144 x 2,048 pairs against 8,192^2 / 2).
  StepModel full = a100_gpt(4, 4096, 32, 8192);
  full.settings.train.flash_attention = true;
  Layout l;
  StepModel same = full, all = full, half = full;
  same.model.sliding_window = 8192, same.model.sliding_layers = 4;
  all.model.sliding_window = 2048, all.model.sliding_layers = 4;
  half.model.sliding_window = 2048, half.model.sliding_layers = 2;
  CHECK(all.model.attended_pairs(8192, 0) == Approx(2048.0 * 2048 / 2 + 6144.0 * 2048));
  CHECK(step_parts(same, l).per_micro == Approx(step_parts(full, l).per_micro).epsilon(1e-12));
  CHECK(step_parts(all, l).per_micro < step_parts(full, l).per_micro);
  CHECK(step_parts(half, l).per_micro ==
        Approx((step_parts(full, l).per_micro + step_parts(all, l).per_micro) / 2).epsilon(1e-12));
}
