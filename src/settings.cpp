// SPDX-License-Identifier: Apache-2.0
#include "gpuplan/settings.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>
#include <fmt/format.h>

#include "gpuplan/analysis/inference.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/format.hpp"
#include "gpuplan/scenario.hpp"

namespace gpuplan {
namespace {

using Q = QuantityKind;
using V = const SettingValue&;
using Apply = void (*)(Scenario&, V);

constexpr unsigned model_cmds = cmd_memory | cmd_train | cmd_search | cmd_infer;
constexpr unsigned layout_cmds = cmd_memory | cmd_train | cmd_search;
constexpr unsigned bill_cmds = cmd_train | cmd_infer | cmd_power;
constexpr unsigned all_cmds = model_cmds | cmd_power;
constexpr double hour = 3600, day = 86400, week = 7 * day, year = 365 * day;

constexpr Setting integer(std::string_view name, double lo, double hi, unsigned cmds, std::string_view fallback,
                          std::string_view help, Apply a) {
  return Setting{name, SettingType::integer, Q::count, 0, lo, hi, false, {}, cmds, {}, fallback, help, a, {}};
}
// A number of a kind; `plain` and `unit`: how a number without a unit reads.
constexpr Setting number(std::string_view name, Q kind, double plain, std::string_view unit, double lo, double hi,
                         bool above, unsigned cmds, std::string_view fallback, std::string_view help, Apply a) {
  return Setting{name, SettingType::number, kind, plain, lo, hi, above, {}, cmds, unit, fallback, help, a, {}};
}
constexpr Setting choice(std::string_view name, std::string_view choices, unsigned cmds, std::string_view fallback,
                         std::string_view help, Apply a) {
  return Setting{name, SettingType::choice, Q::real, 0, 0, 0, false, choices, cmds, {}, fallback, help, a, {}};
}
constexpr Setting text(std::string_view name, unsigned cmds, std::string_view fallback, std::string_view help, Apply a,
                       std::string_view accepts = {}) {
  return Setting{name, SettingType::text, Q::real, 0, 0, 0, false, {}, cmds, {}, fallback, help, a, accepts};
}
constexpr Setting flag(std::string_view name, unsigned cmds, std::string_view help, Apply a,
                       std::string_view fallback = "off") {
  return Setting{name, SettingType::boolean, Q::real, 0, 0, 0, false, {}, cmds, {}, fallback, help, a, {}};
}

}  // namespace

// A framework's defaults for the step model and the layout, each where the flags have not set
// it (a flag given later overrides it too). Sources:
// - megatron: Megatron-LM's --tp-comm-overlap and --overlap-grad-reduce are off unless asked for
//   (megatron/training/arguments.py, store_true flags): TP and gradient traffic exposed.
// - nemo: NeMo's and Megatron-Bridge's performance recipes turn on tp_comm_overlap,
//   overlap_grad_reduce and overlap_param_gather (Megatron-Bridge CommOverlapConfig).
// - deepspeed: ZeRO's overlap_comm is off by default (DeepSpeed config docs) and the stage is
//   the user's: gradient traffic exposed.
// - fsdp, torchtitan: PyTorch FSDP shards everything (ShardingStrategy.FULL_SHARD, FSDP2's
//   fully_shard) and prefetches the next all-gather during backward (BACKWARD_PRE); torchtitan
//   builds on FSDP2. Prefetching does not hide the traffic whole: NCCL's kernels share the SMs and
//   HBM with the compute, and the step model's half-hidden default (dp-overlap 0.5) is kept. That
//   choice was made on data: torchtitan's A100 table (4 rows) is 3.5% median at 0.5 and 14.8% at
//   1; its H100 500 W table (15 rows) was 31% and 44% (before the power limit's voltage floor and
//   FlashAttention-2 kernels below).
// - maxtext: FSDP over the data axis by default (ici_fsdp_parallelism -1), with XLA's
//   latency-hiding scheduler overlapping the collectives.
// - compiled: a single-program data-parallel trainer whose element-wise work is fused into few
//   kernels, by torch.compile (nanoGPT, nanochat) or by hand (llm.c): --fused-kernels. Its
//   attention and loss are left to their flags (nanoGPT and nanochat call PyTorch's SDPA and
//   cross_entropy: --attention flash2; llm.c has cuDNN attention and a fused classifier:
//   --fused-loss).
void apply_framework(Scenario& s, const std::string& name) {
  if (name == "compiled" && !s.has("fused-kernels")) s.step.train.fused_kernels = true;
  const bool nemo = name == "nemo", sharded = name == "fsdp" || name == "torchtitan" || name == "maxtext";
  const bool pytorch_fsdp = name == "fsdp" || name == "torchtitan";
  if (!s.has("tp-overlap")) s.step.tp_overlap = nemo ? 1 : 0;
  // PyTorch DDP overlaps its bucketed all-reduces with the backward pass as FSDP prefetches: the
  // same half-hidden default.
  if (!s.has("dp-overlap"))
    s.step.dp_overlap = nemo || name == "maxtext" ? 1 : pytorch_fsdp || name == "compiled" ? 0.5 : 0;
  if (sharded && !s.has("zero")) s.layout.zero = 3;
  // PyTorch's scaled_dot_product_attention runs FlashAttention-2 for its flash backend (PyTorch
  // docs, torch.nn.functional.scaled_dot_product_attention); Megatron and NeMo use Transformer
  // Engine's fused attention. Chosen after seeing torchtitan's H100 rows, whose attention ran at
  // an FA2 rate: in sample for that choice.
  if (pytorch_fsdp && !s.has("attention")) s.step.train.flash_attention = true, s.step.train.flash2 = true;
  // NeMo's GPT configs and Megatron-Bridge's model providers set cross_entropy_loss_fusion; XLA
  // fuses MaxText's log-softmax into one pass. Megatron-LM leaves --cross-entropy-loss-fusion off,
  // and DeepSpeed, FSDP and torchtitan models call PyTorch's cross_entropy on upcast logits.
  if (!s.has("fused-loss")) s.step.train.fused_loss = nemo || name == "maxtext";
  // Megatron-Bridge's performance recipes reduce gradients in 16 bits (ddp.grad_reduce_in_fp32 =
  // False in each model's perf config), half the data-parallel traffic of Megatron's fp32 default.
  if (nemo && !s.has("grad-dtype")) s.grad_bytes = 2;
  // FSDP's mixed precision keeps fp32 shards as the master weights (FSDP2's MixedPrecisionPolicy,
  // torchtitan's param bf16 / reduce fp32 default): no 16-bit shard beside them.
  s.step.train.fp32_shards = pytorch_fsdp;
  s.notes.push_back(fmt::format("framework {}: tp-overlap {}, dp-overlap {}{}{}{}{}, {} cross-entropy, {}-bit gradients",
                                name, s.step.tp_overlap, s.step.dp_overlap, sharded ? ", ZeRO-3 (full sharding)" : "",
                                pytorch_fsdp ? " with fp32 shards as the master weights" : "",
                                s.step.train.flash2 ? ", attention flash2 (PyTorch SDPA)" : "",
                                s.step.train.fused_kernels ? ", fused element-wise kernels" : "",
                                s.step.train.fused_loss ? "fused" : "unfused", 8 * s.grad_bytes));
}

namespace {
// clang-format off
const std::array table{
    // The model.
    text("model", model_cmds, "none",
         "Model id from the catalog (gpuplan catalog list models), or a file: a Hugging Face config.json or the "
         "directory holding it, a .gguf file (its header), a catalog .toml record",
         [](Scenario& s, V v) { s.model = v.text; }),
    number("params", Q::count, 0, {}, min_synth_params, max_synth_params, false, model_cmds, "none",
           "Parameter count (e.g. 70B): synthesises a Llama-like dense model",
           [](Scenario& s, V v) { s.params = v.number; }),
    integer("layers", 1, 1000, model_cmds, "the model's", "Override the model's layer count",
            [](Scenario& s, V v) { s.layers = v.integer(); }),
    integer("hidden", 1, 1e6, model_cmds, "the model's", "Override the hidden width",
            [](Scenario& s, V v) { s.hidden = v.integer(); }),
    integer("heads", 1, 4096, model_cmds, "the model's", "Override the attention heads",
            [](Scenario& s, V v) { s.heads = v.integer(); }),
    integer("kv-heads", 1, 4096, model_cmds, "the model's", "Override the key/value heads",
            [](Scenario& s, V v) { s.kv_heads = v.integer(); }),
    integer("ffn", 1, 1e7, model_cmds, "the model's", "Override the MLP width",
            [](Scenario& s, V v) { s.ffn = v.integer(); }),
    integer("vocab", 1, 1e7, model_cmds, "the model's", "Override the vocabulary",
            [](Scenario& s, V v) { s.vocab = v.integer(); }),
    // The devices.
    text("gpu", all_cmds, "h100-sxm", "Accelerator id (gpuplan catalog list accelerators), or a .toml file holding one accelerator record",
         [](Scenario& s, V v) { s.gpu = v.text; }),
    number("gpu-memory", Q::bytes, 0, {}, 1024.0 * 1024 * 1024, 16.0 * 1024 * 1024 * 1024 * 1024, false, all_cmds,
           "the record's", "The device's memory, for a variant of the record (36GiB for a 36 GB M3 Max)",
           [](Scenario& s, V v) { s.gpu_memory = v.number; }),
    integer("gpus", 1, 1e7, all_cmds, "none", "Number of devices",
            [](Scenario& s, V v) { s.gpus = v.integer(); }),
    number("power-cap", Q::power, 1, "W", 1, 5000, true, cmd_train | cmd_search | cmd_infer | cmd_power,
           "TDP (or the variant's default limit)",
           "Board power limit per device, e.g. 500W: the clock it allows scales compute (estimate), nodes draw less",
           [](Scenario& s, V v) { s.power_cap = v.number; }),
    // The layout and training precision.
    integer("tp", 1, 1024, model_cmds, "searched", "Tensor-parallel degree",
            [](Scenario& s, V v) { s.layout.tp = v.integer(); }),
    integer("pp", 1, 1024, model_cmds, "searched (infer: 1, or across nodes where a node cannot hold the model)",
            "Pipeline-parallel degree",
            [](Scenario& s, V v) { s.layout.pp = v.integer(); }),
    integer("dp", 1, 1e7, layout_cmds, "searched", "Data-parallel degree",
            [](Scenario& s, V v) { s.layout.dp = v.integer(); }),
    integer("cp", 1, 1024, layout_cmds, "searched", "Context-parallel degree",
            [](Scenario& s, V v) { s.layout.cp = v.integer(); }),
    integer("ep", 1, 4096, model_cmds, "searched (infer: for MoE models, with data-parallel attention)",
            "Expert-parallel degree",
            [](Scenario& s, V v) { s.layout.ep = v.integer(); }),
    integer("zero", 0, 3, layout_cmds, "searched", "ZeRO stage: 0 none, 1 optimizer, 2 + gradients, 3 + weights (FSDP)",
            [](Scenario& s, V v) { s.layout.zero = v.integer(); }),
    choice("recompute", "none|selective|full", layout_cmds, "searched", "Activation recomputation",
           [](Scenario& s, V v) { s.layout.recompute = parse_recompute(v.text); }),
    integer("recompute-layers", 1, 1000, layout_cmds, "searched: every layer, or the fewest that fit",
            "Layers of each pipeline stage that full recomputation covers (Megatron's --recompute-num-layers); implies "
            "--recompute full",
            [](Scenario& s, V v) { s.layout.recompute_layers = v.integer(); }),
    integer("micro-batch", 1, 65536, layout_cmds, "searched", "Sequences per micro-batch",
            [](Scenario& s, V v) { s.layout.micro_batch = v.integer(); }),
    integer("global-batch", 1, 1e8, layout_cmds, "about 4M tokens", "Sequences per step",
            [](Scenario& s, V v) { s.layout.global_batch = v.integer(); }),
    integer("interleave", 1, 128, layout_cmds, "searched", "Virtual pipeline stages per device",
            [](Scenario& s, V v) { s.layout.interleave = v.integer(); }),
    choice("offload", "none|optimizer|activations|optimizer+activations|optimizer+weights|all", layout_cmds,
           "none, or the least that fits when nothing fits without",
           "Training state kept in host memory: optimizer (ZeRO-Offload), weights (ZeRO-Infinity), activations",
           [](Scenario& s, V v) { s.layout.offload = parse_offload(v.text); }),
    choice("finetune", "none|full|lora|qlora", layout_cmds, "none (pre-training)",
           "Fine-tuning: full (every weight), lora (16-bit frozen base, adapters train) or qlora (4-bit frozen base)",
           [](Scenario& s, V v) { s.step.train.finetune = parse_finetune(v.text); }),
    integer("lora-rank", 1, 4096, layout_cmds, "16", "Rank of the LoRA/QLoRA adapters (on every attention and dense MLP matrix)",
            [](Scenario& s, V v) { s.step.train.lora_rank = v.integer(); }),
    flag("sequence-parallel", layout_cmds, "Sequence parallelism",
         [](Scenario& s, V v) { s.layout.sequence_parallel = v.on; }, "searched"),
    integer("seq-len", 1, 1e8, layout_cmds, "min(4096, the model's context)", "Sequence length in tokens",
            [](Scenario& s, V v) { s.seq_len = v.integer(); }),
    choice("precision", "bf16|fp16|fp8|mxfp8|nvfp4|fp4|tf32|fp32", layout_cmds, "bf16",
           "Training precision: fp8 (scaled per tensor), mxfp8 (per 32 elements) and nvfp4 (fp4: 4-bit per 16) run "
           "the linear layers' GEMMs at that tensor rate (fp8 from Hopper on, mxfp8 and nvfp4 on Blackwell)",
           [](Scenario& s, V v) { s.precision = v.text; }),
    choice("low-precision-layers", "all|mlp", layout_cmds, "all",
           "Linear layers a low --precision quantises: all, or mlp (the MLP's and experts'; attention's projections "
           "in bf16, as the embedding and output layer always are)",
           [](Scenario& s, V v) { s.step.low_precision_mlp_only = v.text == "mlp"; }),
    integer("high-precision-layers", 0, 1000, layout_cmds, "0 (Megatron's default)",
            "Transformer layers kept in bf16 under a low --precision, half at each end (Megatron's "
            "first_last_layers_bf16; NVIDIA's NVFP4 recipe keeps about 16%)",
            [](Scenario& s, V v) { s.step.high_precision_layers = v.integer(); }),
    choice("optimizer", "adam|adam8bit|sgd", layout_cmds, "adam", "Optimizer",
           [](Scenario& s, V v) { s.optimizer = v.text; }),
    choice("grad-dtype", "fp32|bf16|fp16", layout_cmds, "fp32", "Gradient type (fp32 as Megatron keeps them)",
           [](Scenario& s, V v) { s.grad_bytes = v.text == "fp32" ? 4 : 2; }),
    choice("framework", "megatron|nemo|deepspeed|fsdp|torchtitan|maxtext|compiled", cmd_train | cmd_search | cmd_memory,
           "the model record's trainer (GPT-2: compiled), else none (the step model's own, Megatron's, defaults)",
           "Training framework: sets the overlaps and sharding it defaults to (explicit flags win)",
           [](Scenario& s, V v) { apply_framework(s, v.text); }),
    flag("cuda-graphs", cmd_train | cmd_search,
         "Replay each layer's kernels as CUDA graphs (0.58 us of host time a kernel) rather than issue them eagerly "
         "(5 us, PyTorch's per-op cost): a micro-batch takes at least the host's time to issue it",
         [](Scenario& s, V v) { s.step.cuda_graphs = v.on; }),
    flag("sharp", cmd_train | cmd_search,
         "Reduce the gradient all-reduce's scale-out level in the InfiniBand switches (SHARP through NCCL's CollNet, "
         "NCCL_COLLNET_ENABLE=1): each rank sends and receives its bytes once, where a ring moves twice as much",
         [](Scenario& s, V v) { s.step.sharp = v.on; }),
    flag("fused-kernels", cmd_train | cmd_search,
         "Element-wise work fused into few kernels around the GEMMs (torch.compile, llm.c): the GEMMs pay only their "
         "own depth cost (measured on Hopper and Blackwell, XLA's GEMM tables; estimated on Ampere), not the unfused "
         "work Megatron's rates carry; elsewhere no change (on with --framework compiled)",
         [](Scenario& s, V v) { s.step.train.fused_kernels = v.on; }),
    flag("fused-loss", cmd_train | cmd_search,
         "Cross-entropy in one fused kernel (6 bytes of memory traffic a logit, not PyTorch's unfused fp32 path's 36; "
         "on with --framework nemo or maxtext)",
         [](Scenario& s, V v) { s.step.train.fused_loss = v.on; }),
    number("tp-overlap", Q::fraction, 0, {}, 0, 1, false, cmd_train | cmd_search, "0",
           "Share of tensor-parallel comm hidden behind GEMMs (NeMo userbuffers ~1)",
           [](Scenario& s, V v) { s.step.tp_overlap = v.number; }),
    choice("pipeline-schedule", "1f1b|interleaved|zero-bubble|dualpipe", cmd_train | cmd_search | cmd_memory,
           "searched (1f1b, interleaved where virtual stages pay)",
           "Pipeline schedule: its bubble and, for dualpipe, two parameter copies and pp + 1 micro-batches in flight",
           [](Scenario& s, V v) { s.step.train.schedule = parse_schedule(v.text); }),
    number("cp-overlap", Q::fraction, 0, {}, 0, 1, false, cmd_train | cmd_search, "1",
           "Share of context-parallel K/V traffic hidden behind the attention it feeds",
           [](Scenario& s, V v) { s.step.cp_overlap = v.number; }),
    number("ep-overlap", Q::fraction, 0, {}, 0, 1, false, cmd_train | cmd_search, "0",
           "Share of expert all-to-all hidden behind compute (DeepSeek DualPipe ~1)",
           [](Scenario& s, V v) { s.step.ep_overlap = v.number; }),
    choice("ep-dispatch", "alltoall|deepep", cmd_train | cmd_search, "alltoall",
           "Expert dispatch: alltoall sends a token to each of its routed experts (Megatron's alltoall "
           "dispatcher); deepep sends it once to each node that holds one of them, fanning out there over the "
           "scale-up links (DeepEP, Megatron's flex dispatcher with HybridEP)",
           [](Scenario& s, V v) { s.step.ep_dedup = v.text == "deepep"; }),
    number("dp-overlap", Q::fraction, 0, {}, 0, 1, false, cmd_train | cmd_search, "0.5",
           "Share of data-parallel gradient traffic hidden behind the backward pass",
           [](Scenario& s, V v) { s.step.dp_overlap = v.number; }),
    choice("attention", "flash|flash2|eager", layout_cmds, "flash (fsdp, torchtitan: flash2)",
           "Attention kernels: flash (FA3, cuDNN or TE fused; no scores stored), flash2 (FlashAttention-2, PyTorch SDPA: "
           "35% of peak on Hopper) or eager (scores stored unless recomputed, Megatron 2022)",
           [](Scenario& s, V v) {
             s.step.train.flash_attention = v.text != "eager";
             s.step.train.flash2 = v.text == "flash2";
           }),
    number("reserve", Q::bytes, 0, {}, 0, 1024.0 * 1024 * 1024 * 1024, false, model_cmds, "1 GiB (train), the runtime's (infer)",
           "Framework reserve per device", [](Scenario& s, V v) { s.reserve_bytes = v.number; }),
    // The training run.
    number("tokens", Q::count, 0, {}, 1, 1e17, false, cmd_train, "20 per parameter", "Training tokens",
           [](Scenario& s, V v) { s.tokens = v.number; }),
    number("weeks", Q::duration, week, "weeks", hour, 520 * week, false, cmd_train, "none", "Deadline in weeks (or 4w, 28d)",
           [](Scenario& s, V v) { s.deadline_s = v.number; }),
    number("days", Q::duration, day, "days", hour, 3650 * day, false, cmd_train, "none", "Deadline in days (or 28d, 4w)",
           [](Scenario& s, V v) { s.deadline_s = v.number; }),
    text("start", cmd_train, "none", "The day the run starts, YYYY-MM-DD: the answer gives the day it ends",
         [](Scenario& s, V v) { s.start_day = parse_date(v.text); }),
    number("goodput", Q::fraction, 0, {}, 0.05, 1, false, cmd_train,
           "derived from failures (Llama 3's rate), checkpoints and restarts",
           "Share of wall-clock doing useful steps (overrides the derived goodput)",
           [](Scenario& s, V v) { s.goodput = v.number; }),
    number("tokens-scale", Q::real, 0, {}, 0.1, 10, false, cmd_train, "1", "Multiply the token budget (sensitivity)",
           [](Scenario& s, V v) { s.tokens_scale = v.number; }),
    // Calibration and efficiency.
    text("calibration", cmd_train | cmd_search | cmd_infer, "$XDG_CONFIG_HOME/gpuplan/calibration/GPU.toml when present",
         "Calibration file from 'gpuplan probe'", [](Scenario& s, V v) { s.calibration = v.text; }),
    number("efficiency-scale", Q::real, 0, {}, 0.1, 10, false, cmd_train | cmd_search | cmd_infer, "1",
           "Multiply GEMM and memory efficiency (sensitivity)", [](Scenario& s, V v) { s.efficiency_scale = v.number; }),
    // Inference.
    choice("mode", "train|infer", cmd_memory, "train", "What memory sizes: training or inference",
           [](Scenario& s, V v) { s.mode = v.text; }),
    text("quant", cmd_memory | cmd_infer, "the model's native format (bf16; gpt-oss mxfp4 experts)",
         "Inference weights: bf16, fp8, fp8-block (128 x 128 block scales: DeepSeek's, Kimi K2's and Qwen3's FP8 "
         "checkpoints; fp8 means it for a model that ships it), int8, int4, awq, mxfp4, nvfp4, fp4, q8_0, q4_k_m, iq4_xs, "
         "... (any case), or auto (the widest that fits)",
         [](Scenario& s, V v) { s.quant = canonical_quant(v.text); }),
    integer("context", 1, 1e8, cmd_memory | cmd_infer, "prompt + output, else min(4096, the model's maximum)",
            "Inference context in tokens", [](Scenario& s, V v) { s.context = v.integer(); }),
    integer("batch", 1, 1e6, cmd_memory | cmd_infer, "1", "Inference sequences resident at once",
            [](Scenario& s, V v) { s.batch = v.integer(); }),
    integer("ubatch", 1, 65536, cmd_memory | cmd_infer, "512 (llama.cpp's)",
            "llama.cpp's micro-batch (-ub): the rows of each prompt-processing GEMM and of its compute buffer",
            [](Scenario& s, V v) { s.ubatch = v.integer(); }),
    choice("runtime", "llama.cpp|ollama|vllm|sglang|tensorrt-llm", cmd_memory | cmd_infer,
           "llama.cpp for GGUF, Apple and CPU; else vllm",
           "Inference runtime (its memory share, KV cache type and kernels)", [](Scenario& s, V v) { s.runtime = v.text; }),
    choice("kv-dtype", "fp16|bf16|fp8|q8_0|q4_0", cmd_infer, "fp16", "KV cache type",
           [](Scenario& s, V v) { s.kv_dtype = v.text; }),
    integer("prompt-tokens", 1, 1e8, cmd_infer, "1000", "Prompt tokens per request",
            [](Scenario& s, V v) { s.prompt_tokens = v.integer(); }),
    integer("output-tokens", 1, 1e8, cmd_infer, "300", "Output tokens per request",
            [](Scenario& s, V v) { s.output_tokens = v.integer(); }),
    number("rate", Q::real, 0, {}, 1e-4, 1e7, false, cmd_infer, "none", "Requests per second to serve (needs --ttft and/or --tpot)",
           [](Scenario& s, V v) { s.rate = v.number; }),
    integer("users", 1, 1e9, cmd_infer, "none", "Concurrent users (with --think-time; default targets MLPerf's 2 s / 200 ms)",
            [](Scenario& s, V v) { s.users = v.integer(); }),
    number("requests-per-day", Q::real, 0, {}, 1e-3, 1e6, false, cmd_infer, "none",
           "Requests each of --users makes a day: the load is users x this over 24 h, and the answer gives a month's "
           "cost owned, rented and at each API offering the model (for a busy hour's load give --rate)",
           [](Scenario& s, V v) { s.requests_per_day = v.number; }),
    text("api", cmd_infer, "every API offering the model",
         "API prices to compare (gpuplan catalog list apis): a closed tier, another provider",
         [](Scenario& s, V v) { s.apis = v.text; }, "API price ids separated by commas"),
    number("think-time", Q::duration, 1, "s", 0, day, false, cmd_infer, "60 s",
           "Time a user takes between replies (0: a fixed concurrency)", [](Scenario& s, V v) { s.think_s = v.number; }),
    integer("draft-tokens", 1, 64, cmd_infer, "none (no speculative decoding)",
            "Speculative decoding: tokens the draft proposes each step (needs --accept)",
            [](Scenario& s, V v) { s.spec_tokens = v.integer(); }),
    number("accept", Q::fraction, 0, {}, 0, 1, false, cmd_infer, "none (measure it on your traffic)",
           "Speculative decoding: the chance each proposed token is accepted", [](Scenario& s, V v) { s.spec_accept = v.number; }),
    text("draft", cmd_infer, "a one-layer drafting head (EAGLE, MTP)", "Speculative decoding's draft model id",
         [](Scenario& s, V v) { s.draft = v.text; }),
    number("ttft", Q::duration, 1, "s", 1e-6, hour, false, cmd_infer, "none", "Time-to-first-token target at p99, e.g. 1s",
           [](Scenario& s, V v) { s.ttft_s = v.number; }),
    number("tpot", Q::duration, 1, "s", 1e-6, hour, false, cmd_infer, "none", "Time-per-output-token target at p99, e.g. 50ms",
           [](Scenario& s, V v) { s.tpot_s = v.number; }),
    integer("top", 1, 64, cmd_infer, "none", "List the K best tensor-parallel deployments tried, with why each loses",
            [](Scenario& s, V v) { s.top = v.integer(); }),
    choice("scenario", "offline|server|interactive", cmd_infer, "offline; server targets with --users",
           "Latency targets: MLPerf's server (TTFT 2 s, TPOT 200 ms) or interactive (450 ms, 40 ms); offline: none",
           [](Scenario& s, V v) { s.serving_scenario = v.text; }),
    number("mem-fraction", Q::fraction, 0, {}, 0.1, 1, false, cmd_memory | cmd_infer,
           "the runtime's: vllm 0.9, sglang 0.88 to 0.79 by tp, tensorrt-llm 0.9 of what the weights leave",
           "A serving runtime's memory share (vLLM's gpu_memory_utilization, SGLang's mem_fraction_static, "
           "TensorRT-LLM's kv_cache_free_gpu_mem_fraction)",
           [](Scenario& s, V v) { s.mem_fraction = v.number; }),
    integer("max-seqs", 1, 1e6, cmd_memory | cmd_infer,
            "the runtime's: vllm 1024 on 70 GiB or more (not A100), else 256; tensorrt-llm 2048; else the KV cache's",
            "Sequences a replica runs at once (vLLM's max_num_seqs, SGLang's max_running_requests, TensorRT-LLM's "
            "max_batch_size)",
            [](Scenario& s, V v) { s.max_seqs = v.integer(); }),
    number("length-range", Q::fraction, 0, {}, 0.01, 1, false, cmd_infer, "1 (fixed lengths)",
           "Prompt and output lengths drawn uniformly from this share of --prompt-tokens and --output-tokens up to them "
           "(serving benchmarks' random range ratio, e.g. 0.8)",
           [](Scenario& s, V v) { s.length_low = v.number; }),
    flag("disagg", cmd_infer,
         "Disaggregated prefill and decode workers (with --rate) as the answer",
         [](Scenario& s, V v) { s.disagg = v.on ? 1 : -1; }, "sized beside the aggregated deployment, chosen when it needs fewer devices"),
    flag("frontier", cmd_infer,
         "Sweep every deployment of a node at 1, 2, 4, ... concurrent users: output tokens/s per GPU against tokens/s "
         "per user, the Pareto points marked",
         [](Scenario& s, V v) { s.frontier = v.on; }),
    text("trace", cmd_infer, "none (Poisson arrivals in closed form)",
         "Replay a CSV of requests (arrival time, prompt tokens, output tokens; the Azure LLM inference and BurstGPT "
         "traces' columns) through the deployment: latency percentiles as the traffic came",
         [](Scenario& s, V v) { s.trace = v.text; }, "a CSV file"),
    integer("prefix-tokens", 1, 1e8, cmd_infer, "none (no prefix caching)",
            "Prefix caching: the prompt tokens requests share (a system prompt, earlier turns), prefilled once and stored "
            "once a replica when found cached (needs --prefix-hit)",
            [](Scenario& s, V v) { s.prefix_tokens = v.integer(); }),
    number("prefix-hit", Q::fraction, 0, {}, 0, 1, false, cmd_infer, "none",
           "Prefix caching: the chance a request finds the --prefix-tokens prefix cached (vLLM's prefix cache hit rate)",
           [](Scenario& s, V v) { s.prefix_hit = v.number; }),
    integer("prefix-count", 1, 1e9, cmd_infer, "1 (one prefix all requests share)",
            "Prefix caching: distinct prefixes of --prefix-tokens that requests draw on, equally often (each user's own "
            "conversation: the users). The device keeps what its cache has room for beside the running sequences",
            [](Scenario& s, V v) { s.prefix_count = v.integer(); }),
    text("kv-offload", cmd_infer, "none",
         "Prefix caching: a KV offload tier for the prefixes the device has no room for (vLLM's CPU offloading, "
         "LMCache, SGLang HiCache): host (the host CPU's memory, over the device's host link) or nvme (a local drive; "
         "or a drive's storage id)",
         [](Scenario& s, V v) { s.kv_offload = v.text; }, "host, nvme or a storage id"),
    number("kv-offload-size", Q::bytes, 0, {}, 1024.0 * 1024 * 1024, 1e15, false, cmd_infer,
           "host: half the host's memory per device; a drive: its capacity",
           "The KV offload tier's size per device", [](Scenario& s, V v) { s.kv_offload_bytes = v.number; }),
    flag("dp-attention", cmd_infer,
         "Expert parallelism with data-parallel attention (what --ep N alone means; --tp N --ep N keeps attention "
         "tensor-parallel)",
         [](Scenario& s, V v) { s.dp_attention = v.on; }),
    flag("quants", cmd_infer, "Also list every weight format the runtime offers, with its memory, fit and speed",
         [](Scenario& s, V v) { s.quants = v.on; }),
    flag("strict", cmd_infer, "Context beyond the model's maximum is an error, not a warning",
         [](Scenario& s, V v) { s.strict = v.on; }),
    text("host", cmd_infer | layout_cmds, "cpu-desktop for GDDR cards, cpu-server otherwise",
         "Host CPU id for offloaded layers or training state (its memory is shared by a node's devices)",
         [](Scenario& s, V v) { s.host = v.text; }),
    // The bill: site, power, prices, storage.
    text("site", bill_cmds, "us-average", "Site id: PUE, electricity price, grid carbon, rack budget",
         [](Scenario& s, V v) { s.site = v.text, s.bill.site_given = true; }),
    number("pue", Q::real, 0, {}, 1, 3, false, bill_cmds, "the site's", "Power usage effectiveness (1: no overhead)",
           [](Scenario& s, V v) { s.pue = v.number; }),
    number("power-fraction", Q::fraction, 0, {}, 0.1, 1, false, bill_cmds, "0.76",
           "Average draw as a share of node nameplate", [](Scenario& s, V v) { s.power_fraction = v.number; }),
    flag("buy", bill_cmds, "Owned cost is the headline", [](Scenario& s, V v) { s.bill.buy = v.on; }),
    number("years", Q::duration, year, "years", 0.1 * year, 30 * year, false, bill_cmds, "4", "Amortisation life",
           [](Scenario& s, V v) { s.bill.years = v.number / year; }),
    number("utilisation", Q::fraction, 0, {}, 0.01, 1, false, bill_cmds, "1",
           "Share of an owned cluster's life doing paid work", [](Scenario& s, V v) { s.bill.utilisation = v.number; }),
    text("cloud", bill_cmds, "the cheapest quote", "Cloud provider for the price (aws, gcp, azure, coreweave, lambda, ...)",
         [](Scenario& s, V v) { s.cloud = v.text; }, "a provider named in the catalog's prices"),
    flag("committed", bill_cmds, "Use a committed (1y, 3y or capacity-block) cloud price",
         [](Scenario& s, V v) { s.committed = v.on; }),
    number("price", Q::money_per_hour, 1 / hour, "USD/h", 0, 1000 / hour, true, bill_cmds, "the catalog's",
           "Cloud price per device-hour, e.g. '$2/h' or 2", [](Scenario& s, V v) { s.price = v.number; }),
    number("capex", Q::money, 0, {}, 0, 1e8, true, bill_cmds, "the catalog's", "Purchase price per device, e.g. '$30000'",
           [](Scenario& s, V v) { s.capex = v.number; }),
    number("staff", Q::money, 0, {}, 0, 1e9, false, bill_cmds, "0", "Staff cost per year of an owned cluster",
           [](Scenario& s, V v) { s.bill.staff_per_year = usd(v.number); }),
    number("facility-cost", Q::real, 0, {}, 0, 10000, false, bill_cmds, "the site's",
           "Facility cost, USD per kW of IT per month", [](Scenario& s, V v) { s.facility_cost = v.number; }),
    number("price-scale", Q::real, 0, {}, 0.1, 10, false, bill_cmds, "1", "Multiply every price (sensitivity)",
           [](Scenario& s, V v) { s.price_scale = v.number; }),
    number("pue-scale", Q::real, 0, {}, 0.1, 10, false, bill_cmds, "1", "Multiply the PUE, never below 1 (sensitivity)",
           [](Scenario& s, V v) { s.pue_scale = v.number; }),
    number("power-scale", Q::real, 0, {}, 0.1, 10, false, bill_cmds, "1", "Multiply the average power draw (sensitivity)",
           [](Scenario& s, V v) { s.power_scale = v.number; }),
    number("oversubscription", Q::real, 0, {}, 1, 16, false, bill_cmds, "1 (non-blocking)", "Fat-tree oversubscription",
           [](Scenario& s, V v) { s.bill.oversubscription = v.number; }),
    text("scale-out", bill_cmds, "the accelerator's", "Scale-out fabric id (gpuplan catalog list interconnects), e.g. roce-800g",
         [](Scenario& s, V v) { s.scale_out = v.text; }),
    number("rack-power", Q::power, 1, "W", 1000, 1e6, false, bill_cmds, "the site's",
           "Power budget per rack, e.g. 40kW: at least one node", [](Scenario& s, V v) { s.rack_power = v.number; }),
    integer("rack-units", 1, 60, bill_cmds, "the site's", "Usable rack units (U) per rack: at least one node",
            [](Scenario& s, V v) { s.rack_units = v.integer(); }),
    text("storage", cmd_train | cmd_power, "none: needs only", "Storage system id (gpuplan catalog list storage)",
         [](Scenario& s, V v) { s.storage = v.text; }),
    integer("storage-units", 1, 1e6, cmd_train | cmd_power, "what the run needs", "Fix the number of storage units",
            [](Scenario& s, V v) { s.storage_units = v.integer(); }),
    number("restart-time", Q::duration, 1, "s", 1, day, false, cmd_train, "10 min (an estimate)",
           "Time to detect an interruption, reschedule and start again, before the checkpoint is read back",
           [](Scenario& s, V v) { s.restart_s = v.number; }),
    flag("async-checkpoint", cmd_train,
         "Asynchronous checkpointing: a checkpoint stalls training only for each device's copy to host memory",
         [](Scenario& s, V v) { s.async_checkpoint = v.on; }),
    number("checkpoint-every", Q::duration, 1, "s", 60, year, false, cmd_train, "Young/Daly's optimum",
           "Checkpoint interval, e.g. 1h (default: the one that wastes least at the run's failure rate)",
           [](Scenario& s, V v) { s.checkpoint_every_s = v.number; }),
    number("dataset-tokens", Q::count, 0, {}, 1, 1e17, false, cmd_train, "none",
           "Tokens in the dataset: training tokens = dataset-tokens x epochs (fine-tuning)",
           [](Scenario& s, V v) { s.dataset_tokens = v.number; }),
    number("epochs", Q::real, 0, {}, 0.01, 1000, false, cmd_train, "1", "Passes over the dataset",
           [](Scenario& s, V v) { s.epochs = v.number; }),
    number("bytes-per-token", Q::real, 0, {}, 0.5, 64, false, cmd_train, "4", "Raw text bytes per token",
           [](Scenario& s, V v) { s.bytes_per_token = v.number; }),
};
// clang-format on

constexpr std::array conflicts{Conflict{"model", "params"}, Conflict{"weeks", "days"}, Conflict{"rate", "users"},
                               Conflict{"tokens", "dataset-tokens"}, Conflict{"reserve", "mem-fraction"},
                               Conflict{"requests-per-day", "rate"}, Conflict{"requests-per-day", "think-time"}};

constexpr std::array<std::string_view, 5> command_list{"memory", "train", "search", "infer", "power"};

std::vector<std::string> split_choices(std::string_view c) {
  std::vector<std::string> out;
  while (!c.empty()) {
    const auto bar = c.find('|');
    out.emplace_back(c.substr(0, bar));
    if (bar == std::string_view::npos) break;
    c.remove_prefix(bar + 1);
  }
  return out;
}

// Whether a range is shown in the setting's own unit ("520 weeks", "1000 USD/h") rather than
// as the kind prints it.
bool in_own_unit(const Setting& s) { return s.plain > 0 && !(s.kind == Q::duration && s.plain == 1); }

// A number as the user would write it, shortest form: 0.1, 30, 10000000.
std::string plain(double v) { return fmt::format("{}", v); }

// A value with the largest suffix that divides it exactly ("1min", "1y", "100P"); plain otherwise.
template <std::size_t N>
std::string with_suffix(double v, const std::array<std::pair<const char*, double>, N>& units) {
  for (const auto& [suffix, size] : units)
    if (v >= size && std::fmod(v, size) == 0) return plain(v / size) + suffix;
  return plain(v);
}

// One end of a range, written as the setting would accept it.
std::string show(const Setting& s, double v) {
  using U = std::pair<const char*, double>;
  // In the setting's own unit (4 weeks, 0.1 years), unless a bound reads badly in it (an hour is
  // 0.0416666... days): then as a duration.
  if (in_own_unit(s)) {
    const double x = v / s.plain;
    if (s.kind != Q::duration || x == 0 || std::fabs(std::stod(format_sig(x)) - x) <= 1e-9 * std::fabs(x)) return plain(x);
  }
  if (s.type == SettingType::integer) return plain(v);
  switch (s.kind) {
    case Q::bytes: return with_suffix(v, std::array{U{"TiB", 1099511627776.0}, U{"GiB", 1073741824.0}, U{"MiB", 1048576.0}});
    case Q::duration:
      return v == 0 ? "0" : with_suffix(v, std::array{U{"y", year}, U{"w", week}, U{"d", day}, U{"h", hour}, U{"min", 60.0},
                                                      U{"s", 1.0}, U{"ms", 1e-3}});
    case Q::money: return "$" + with_suffix(v, std::array{U{"B", 1e9}, U{"M", 1e6}, U{"k", 1e3}});
    case Q::count: return with_suffix(v, std::array{U{"P", 1e15}, U{"T", 1e12}, U{"B", 1e9}, U{"M", 1e6}});
    default: return plain(v);
  }
}

bool plain_number(const std::string& text, double& out) {
  try {
    out = parse_quantity(text, Q::real);
    return true;
  } catch (const QuantityError&) {
    return false;
  }
}

bool truthy(const std::string& v, bool& out) {
  if (v == "true" || v == "1" || v == "yes" || v == "on") return out = true, true;
  if (v == "false" || v == "0" || v == "no" || v == "off") return out = false, true;
  return false;
}

}  // namespace

unsigned command_bit(std::string_view name) {
  for (std::size_t i = 0; i < command_list.size(); ++i)
    if (command_list[i] == name) return 1u << i;
  return 0;
}

std::string command_names(unsigned mask) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < command_list.size(); ++i)
    if (mask & (1u << i)) names.emplace_back(command_list[i]);
  return in_words(names);
}

std::span<const Setting> settings_table() { return table; }

const Setting* find_setting(std::string_view name) {
  for (const auto& s : table)
    if (s.name == name) return &s;
  return nullptr;
}

std::vector<std::string> setting_names() {
  std::vector<std::string> out;
  for (const auto& s : table) out.emplace_back(s.name);
  return out;
}

std::string accepted(const Setting& s) {
  switch (s.type) {
    case SettingType::boolean: return "true or false";
    case SettingType::text: return s.accepts.empty() ? "an id or path" : std::string(s.accepts);
    case SettingType::choice: return in_words(split_choices(s.choices));
    case SettingType::integer: return fmt::format("a whole number from {} to {}", show(s, s.min), show(s, s.max));
    case SettingType::number: break;
  }
  const std::string unit = in_own_unit(s) ? " " + std::string(s.unit) : "";
  if (s.above_min) return fmt::format("more than {} and at most {}{}", show(s, s.min), show(s, s.max), unit);
  return fmt::format("from {} to {}{}", show(s, s.min), show(s, s.max), unit);
}

std::string conflict_among(const std::vector<std::string>& names) {
  const auto given = [&](std::string_view n) { return std::find(names.begin(), names.end(), n) != names.end(); };
  for (const auto& c : conflicts)
    if (given(c.a) && given(c.b)) return fmt::format("give --{} or --{}, not both", c.a, c.b);
  return {};
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates, std::string_view prefix) {
  std::vector<std::string> with;
  for (const auto& c : candidates) with.push_back(std::string(prefix) + c);
  const std::string hint = suggest(std::string(prefix) + word, with);
  return hint.empty() ? std::string() : "; did you mean " + hint + "?";
}

void apply_setting(Scenario& sc, const std::string& name, const std::string& value) {
  const Setting* s = find_setting(name);
  if (!s) fail(Exit::usage, fmt::format("unknown setting '{}'{}", shown(name), did_you_mean(name, setting_names(), "")));
  const std::string given = shown(value);
  SettingValue v;
  switch (s->type) {
    case SettingType::boolean:
      if (!truthy(value, v.on)) fail(Exit::usage, fmt::format("--{} '{}' must be true or false", name, given));
      break;
    case SettingType::text:
      // shown() changes exactly the texts with control characters or bytes that are not UTF-8.
      if (value.empty() || value.size() > 4096 || shown(value, value.size() + 1) != value)
        fail(Exit::usage, fmt::format("--{} '{}' must be an id or path of 1 to 4096 bytes of UTF-8 text without control characters",
                                      name, given));
      v.text = value;
      break;
    case SettingType::choice: {
      const auto options = split_choices(s->choices);
      if (std::find(options.begin(), options.end(), value) == options.end())
        fail(Exit::usage, fmt::format("--{} '{}' is not known; expected {}", name, given, in_words(options)));
      v.text = value;
      break;
    }
    case SettingType::integer:
    case SettingType::number: {
      double x = 0;
      if (s->plain > 0 && plain_number(value, x)) {
        x *= s->plain;  // a number in the setting's own unit: "--weeks 4", "--price 2.5"
      } else {
        try {
          x = parse_quantity(value, s->kind);
        } catch (const QuantityError& e) {
          fail(Exit::usage, fmt::format("--{}: {}", name, shown(e.what(), 200)));
        }
      }
      const bool whole = s->type == SettingType::integer;
      if ((whole && x != std::floor(x)) || x < s->min || (s->above_min && x <= s->min) || x > s->max || !std::isfinite(x))
        fail(Exit::usage, fmt::format("--{} '{}' must be {}", name, given, accepted(*s)));
      v.number = x;
      break;
    }
  }
  s->apply(sc, v);
  sc.given.push_back(name);
}

}  // namespace gpuplan
