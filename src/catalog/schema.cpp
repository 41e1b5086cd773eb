// SPDX-License-Identifier: Apache-2.0
#include "gpuplan/catalog/schema.hpp"

#include <array>
#include <fmt/format.h>
#include <vector>

#include "gpuplan/error.hpp"

namespace gpuplan {
namespace {

using F = FieldSpec;
using T = FieldType;
using Q = QuantityKind;

// Every record: name and source are required; estimate marks an unverified figure.
#define GPUPLAN_COMMON_FIELDS                                                              \
  F{"name", T::text, Q::real, true, 0, 0, {}, "display name"},                             \
      F{"source", T::text, Q::real, true, 0, 0, {}, "where the figures come from"},        \
      F{"estimate", T::boolean, Q::real, false, 0, 0, {}, "true when a figure is unverified"}, \
      F{"note", T::text, Q::real, false, 0, 0, {}, "caveats"},                                \
      F{"aliases", T::text, Q::real, false, 0, 0, {}, "other names that find this record, comma-separated (m3-max, llama3.1:8b)"}

// Ranges are "sane" bounds: wide enough for any real device from a phone to a rack,
// narrow enough to catch a unit slip (80 for 80 GB, 3.35 for 3.35 TB/s).
constexpr double peta = 1e15;
constexpr std::array accelerator_fields{
    GPUPLAN_COMMON_FIELDS,
    F{"vendor", T::text, Q::real, true, 0, 0, {}, "manufacturer"},
    F{"family", T::choice, Q::real, true, 0, 0,
      "volta|turing|ampere|ada|hopper|blackwell|cdna2|cdna3|cdna4|rdna|xe2|tpu|gaudi|trainium|apple|cpu",
      "architecture family (selects the default efficiency curves)"},
    F{"memory_bytes", T::number, Q::bytes, true, 1e9, 2e13, {}, "device memory capacity"},
    F{"memory_bw_bytes_per_s", T::number, Q::byte_rate, true, 1e10, 1e14, {}, "memory bandwidth"},
    F{"memory_type", T::choice, Q::real, false, 0, 0, "hbm|gddr|lpddr|ddr",
      "memory technology (selects the decode efficiency); default by family: apple lpddr, cpu ddr, ada gddr, else hbm"},
    F{"fp64_flops_per_s", T::number, Q::flop_rate, false, 1e9, 1 * peta, {}, "dense FP64 (vector or tensor, whichever is higher)"},
    F{"fp32_flops_per_s", T::number, Q::flop_rate, false, 1e9, 1 * peta, {}, "dense FP32 (non-tensor)"},
    F{"tf32_flops_per_s", T::number, Q::flop_rate, false, 1e9, 5 * peta, {}, "dense TF32 tensor"},
    F{"bf16_flops_per_s", T::number, Q::flop_rate, false, 1e9, 10 * peta, {}, "dense BF16 tensor"},
    F{"fp16_flops_per_s", T::number, Q::flop_rate, false, 1e9, 10 * peta, {}, "dense FP16 tensor (FP32 accumulate)"},
    F{"fp8_flops_per_s", T::number, Q::flop_rate, false, 1e9, 20 * peta, {}, "dense FP8 tensor"},
    F{"fp4_flops_per_s", T::number, Q::flop_rate, false, 1e9, 40 * peta, {}, "dense FP4 tensor"},
    F{"int8_ops_per_s", T::number, Q::flop_rate, false, 1e9, 20 * peta, {}, "dense INT8 tensor"},
    F{"int4_ops_per_s", T::number, Q::flop_rate, false, 1e9, 40 * peta, {}, "dense INT4 tensor"},
    F{"tdp_w", T::number, Q::power, false, 5, 5000, {}, "board power (TDP/TBP)"},
    F{"idle_w", T::number, Q::power, false, 1, 2000, {}, "measured board draw at idle (driver loaded, no work)"},
    F{"power_scope", T::choice, Q::real, false, 0, 0, "board|system",
      "what tdp_w and idle_w measure: the board (a server adds its share), or the whole machine at the wall (a Mac)"},
    F{"power_limit_w", T::number, Q::power, false, 5, 5000, {},
      "default board power limit below TDP, as the variant ships (--power-cap overrides it)"},
    F{"scale_up", T::text, Q::real, false, 0, 0, {}, "interconnect id of the scale-up link"},
    F{"scale_up_domain", T::integer, Q::count, false, 1, 100000, {}, "devices per scale-up domain (a PCIe server's devices share its PCIe fabric: the server's count)"},
    F{"devices_per_node", T::integer, Q::count, false, 1, 1000, {}, "devices per server"},
    F{"host_link", T::text, Q::real, false, 0, 0, {}, "interconnect id of the host link"},
    F{"scale_out", T::text, Q::real, false, 0, 0, {}, "interconnect id of the usual scale-out NIC"},
    F{"nics_per_node", T::integer, Q::count, false, 0, 64, {}, "scale-out NICs per node"},
    F{"unified_memory", T::boolean, Q::real, false, 0, 0, {}, "memory shared with the CPU (Apple, Grace)"},
    F{"gpu_memory_share", T::number, Q::fraction, false, 0.1, 1, {}, "share of unified memory the GPU may use"},
    F{"launch_year", T::integer, Q::real, true, 2010, 2035, {}, "year of launch"},
};

constexpr std::array interconnect_fields{
    GPUPLAN_COMMON_FIELDS,
    F{"scope", T::choice, Q::real, true, 0, 0, "scale-up|scale-out|host", "where the link is used"},
    F{"bw_per_direction_bytes_per_s", T::number, Q::byte_rate, true, 1e8, 1e13, {}, "per device (or port), per direction"},
    F{"latency_s", T::number, Q::duration, true, 1e-8, 1e-3, {}, "small-message latency per hop"},
    F{"switch_radix", T::integer, Q::count, false, 2, 10000, {}, "ports per switch"},
    F{"switch_power_w", T::number, Q::power, false, 1, 1e5, {}, "power per switch"},
    F{"nic_power_w", T::number, Q::power, false, 1, 1000, {}, "power per NIC or port"},
    F{"port_usd", T::number, Q::money, false, 1, 1e6, {}, "capital cost per port (NIC, switch port, optics)"},
    F{"in_network_reduction", T::boolean, Q::real, false, 0, 0, {}, "its switches reduce all-reduce data in flight (SHARP)"},
};

constexpr std::array storage_fields{
    GPUPLAN_COMMON_FIELDS,
    F{"unit", T::text, Q::real, true, 0, 0, {}, "what one unit is (appliance, node, drive)"},
    F{"read_bytes_per_s", T::number, Q::byte_rate, true, 1e6, 1e13, {}, "read throughput per unit"},
    F{"write_bytes_per_s", T::number, Q::byte_rate, true, 1e6, 1e13, {}, "write throughput per unit"},
    F{"capacity_bytes", T::number, Q::bytes, false, 1e9, 1e18, {}, "usable capacity per unit"},
    F{"usd_per_tb", T::number, Q::money, false, 1, 1e5, {}, "price per usable TB"},
    F{"usd_per_tb_month", T::number, Q::money, false, 0.01, 1e4, {}, "rental price per TB-month"},
    F{"power_w", T::number, Q::power, false, 1, 1e5, {}, "power per unit"},
};

constexpr std::array site_fields{
    GPUPLAN_COMMON_FIELDS,
    F{"pue", T::number, Q::real, true, 1, 3, {}, "power usage effectiveness"},
    F{"usd_per_kwh", T::number, Q::money_per_kwh, true, 1e-3, 2, {}, "electricity price"},
    F{"grid_gco2_per_kwh", T::number, Q::real, true, 0, 2000, {}, "grid carbon intensity, g CO2e per kWh"},
    F{"rack_power_w", T::number, Q::power, false, 1000, 1e6, {}, "power budget per rack"},
    F{"rack_units", T::integer, Q::count, false, 1, 60, {}, "usable rack units per rack"},
    F{"facility_usd_per_kw_month", T::number, Q::money, false, 0, 10000, {}, "colocation/facility cost per kW of IT per month"},
};

constexpr std::array price_fields{
    GPUPLAN_COMMON_FIELDS,
    F{"as_of", T::text, Q::real, true, 0, 0, {}, "date the price was observed (YYYY-MM or YYYY-MM-DD)"},
    F{"accelerator", T::text, Q::real, true, 0, 0, {}, "accelerator id"},
    F{"type", T::choice, Q::real, true, 0, 0, "cloud|purchase", "rent or buy"},
    F{"provider", T::text, Q::real, true, 0, 0, {}, "cloud provider or seller"},
    F{"commitment", T::choice, Q::real, false, 0, 0, "on-demand|spot|1y|3y|capacity-block|list", "pricing term"},
    F{"usd_per_gpu_hour", T::number, Q::money_per_hour, false, 0.01, 200, {}, "rental price per device-hour"},
    F{"usd_per_device", T::number, Q::money, false, 100, 1e7, {}, "purchase price per device"},
    F{"server_share", T::choice, Q::real, false, 0, 0, "included|excluded",
      "whether a purchase price per device includes its share of the server (CPUs, memory, NICs, chassis)"},
    F{"server_overhead", T::number, Q::real, false, 1, 3, {},
      "where the price leaves the server out: the whole server's cost over the priced GPUs (an estimate, sourced)"},
};

// A hosted API's list price per million tokens: an open model as a provider serves it (`model`
// names the catalog's model) or a closed tier users compare against.
constexpr std::array api_fields{
    GPUPLAN_COMMON_FIELDS,
    F{"as_of", T::text, Q::real, true, 0, 0, {}, "date the price was observed (YYYY-MM or YYYY-MM-DD)"},
    F{"provider", T::text, Q::real, true, 0, 0, {}, "who serves it (deepinfra, groq, openai, ...)"},
    F{"model", T::text, Q::real, false, 0, 0, {}, "the catalog model served (absent for a closed model)"},
    F{"tier", T::choice, Q::real, false, 0, 0, "open|closed", "an open model's weights, or a closed model (default: open with a model, closed without)"},
    F{"usd_per_m_input", T::number, Q::money, true, 0.001, 1000, {}, "price per million input (prompt) tokens"},
    F{"usd_per_m_output", T::number, Q::money, true, 0.001, 1000, {}, "price per million output tokens"},
};

constexpr std::array server_fields{
    GPUPLAN_COMMON_FIELDS,
    F{"accelerator", T::text, Q::real, true, 0, 0, {}, "accelerator id"},
    F{"devices", T::integer, Q::count, true, 1, 1000, {}, "accelerators per server"},
    F{"max_power_w", T::number, Q::power, true, 100, 2e5, {}, "nameplate maximum power"},
    F{"rack_units", T::integer, Q::count, false, 1, 60, {}, "height in rack units"},
    F{"nics_per_device", T::number, Q::real, false, 0.125, 16, {}, "scale-out NICs per accelerator (1: one per GPU, rail-optimised)"},
    F{"host_memory_bytes", T::number, Q::bytes, false, 1e9, 1e14, {}, "the server's CPU memory, shared by its accelerators for offload"},
    F{"nodes_per_rack", T::integer, Q::count, false, 1, 1000, {}, "nodes per rack or cabinet in the vendor's packaging (Cray EX: 128)"},
    F{"rack_scale", T::boolean, Q::real, false, 0, 0, {}, "the server is a whole rack (GB200 NVL72): one per rack"},
    F{"liquid_cooled", T::boolean, Q::real, false, 0, 0, {}, "needs direct liquid cooling"},
    F{"usd", T::number, Q::money, false, 1000, 1e8, {}, "purchase price of the server"},
    F{"as_of", T::text, Q::real, false, 0, 0, {}, "date of the price"},
};

constexpr std::array model_fields{
    GPUPLAN_COMMON_FIELDS,
    F{"family", T::text, Q::real, false, 0, 0, {}, "model family"},
    F{"layers", T::integer, Q::count, true, 1, 1000, {}, "transformer blocks"},
    F{"hidden", T::integer, Q::count, true, 64, 200000, {}, "model width"},
    F{"heads", T::integer, Q::count, true, 1, 1024, {}, "query heads"},
    F{"kv_heads", T::integer, Q::count, false, 1, 1024, {}, "key/value heads (grouped-query attention)"},
    F{"head_dim", T::integer, Q::count, false, 8, 1024, {}, "per-head width when not hidden/heads"},
    F{"ffn", T::integer, Q::count, true, 64, 1000000, {}, "MLP inner width (dense layers)"},
    F{"vocab", T::integer, Q::count, true, 100, 2000000, {}, "vocabulary size"},
    F{"activation", T::choice, Q::real, true, 0, 0, "gelu|swiglu|geglu", "MLP type (gated ones have three matrices)"},
    F{"norm", T::choice, Q::real, true, 0, 0, "layernorm|rmsnorm", "normalisation"},
    F{"tied_embeddings", T::boolean, Q::real, true, 0, 0, {}, "input and output embeddings shared"},
    F{"learned_positions", T::boolean, Q::real, false, 0, 0, {}, "learned position embeddings (GPT-style)"},
    F{"qkv_bias", T::boolean, Q::real, false, 0, 0, {}, "biases on Q, K, V"},
    F{"linear_bias", T::boolean, Q::real, false, 0, 0, {}, "biases on every linear layer (GPT-2/3 style)"},
    F{"max_context", T::integer, Q::count, true, 128, 100000000, {}, "maximum context in tokens"},
    F{"sliding_window", T::integer, Q::count, false, 1, 100000000, {}, "sliding-window attention span"},
    F{"sliding_layers", T::integer, Q::count, false, 0, 1000, {}, "layers that use the sliding window (default all when a window is set)"},
    F{"attn_output_gate", T::boolean, Q::real, false, 0, 0, {}, "a sigmoid gate on the attention output, projected from the input like Q (Qwen3-Next, Qwen3.5)"},
    F{"linear_layers", T::integer, Q::count, false, 0, 1000, {}, "layers whose mixer is linear attention or a state-space model: a fixed state per sequence, no KV cache"},
    F{"linear_params", T::number, Q::count, false, 1, 1e11, {}, "parameters of one such layer's mixer (in place of attention)"},
    F{"linear_state_bytes", T::number, Q::bytes, false, 1, 1e12, {}, "that mixer's state per sequence, whatever the context (recurrent and convolution state)"},
    F{"experts", T::integer, Q::count, false, 1, 4096, {}, "routed experts per MoE layer"},
    F{"active_experts", T::integer, Q::count, false, 1, 256, {}, "routed experts per token"},
    F{"shared_experts", T::integer, Q::count, false, 0, 64, {}, "always-active experts"},
    F{"expert_ffn", T::integer, Q::count, false, 16, 1000000, {}, "inner width of one expert"},
    F{"dense_layers", T::integer, Q::count, false, 0, 1000, {}, "leading dense layers in an MoE model"},
    F{"q_lora_rank", T::integer, Q::count, false, 1, 100000, {}, "MLA: query compression rank"},
    F{"kv_lora_rank", T::integer, Q::count, false, 1, 100000, {}, "MLA: key/value compression rank"},
    F{"qk_rope_dim", T::integer, Q::count, false, 1, 1024, {}, "MLA: rotary part of each head"},
    F{"qk_nope_dim", T::integer, Q::count, false, 1, 1024, {}, "MLA: non-rotary part of each head"},
    F{"v_head_dim", T::integer, Q::count, false, 1, 1024, {}, "MLA: value head width"},
    F{"sparse_topk", T::integer, Q::count, false, 1, 100000000, {}, "sparse attention (DeepSeek-V3.2): the tokens each query attends to, chosen by a lightning indexer"},
    F{"indexer_heads", T::integer, Q::count, false, 1, 1024, {}, "sparse attention: the indexer's heads"},
    F{"indexer_dim", T::integer, Q::count, false, 1, 4096, {}, "sparse attention: the indexer's head width (its FP8 key cache per token and layer)"},
    F{"params_total", T::number, Q::count, false, 1e6, 1e14, {}, "parameters as stated by the source (an imported config without its index: counted from the shape)"},
    F{"encoder_params", T::number, Q::count, false, 0, 1e11, {}, "a multimodal checkpoint's vision or audio encoder and projector: weights held beside the language model, no work per generated token"},
    F{"params_active", T::number, Q::count, false, 1e6, 1e14, {}, "active parameters per token (MoE)"},
    F{"native_quant", T::choice, Q::real, false, 0, 0,
      "bf16|fp16|fp32|fp8|fp8-block|mxfp4|nvfp4|q8_0|q6_k|q5_k_m|q5_0|q5_1|q4_k_m|q4_0|q4_1|q3_k_m|q2_k|iq4_xs|iq4_nl|iq3_m|iq3_s|"
      "iq3_xxs|iq2_m|iq2_xxs|iq1_m|iq1_s|gguf",
      "the format the published weights ship in (the default --quant; bf16 when absent; gguf: a GGUF file's own mix)"},
    F{"native_bits_per_weight", T::number, Q::real, false, 1, 32, {},
      "the weights' exact bits per parameter in that format (a GGUF file's tensors' bytes over their parameters)"},
    F{"native_quant_scope", T::choice, Q::real, false, 0, 0, "all|experts",
      "which weights are in the native format: all, or the routed experts alone (the rest bf16)"},
    F{"trainer", T::choice, Q::real, false, 0, 0, "megatron|deepspeed|compiled",
      "the framework the model's public training runs use, the default --framework for it (megatron when absent; "
      "the frameworks that shard or narrow the gradients are given with --framework)"},
};

#undef GPUPLAN_COMMON_FIELDS

constexpr std::array kinds{
    KindSpec{"accelerators", "accelerator", accelerator_fields},
    KindSpec{"apis", "API price", api_fields},
    KindSpec{"interconnects", "interconnect", interconnect_fields},
    KindSpec{"models", "model", model_fields},
    KindSpec{"prices", "price", price_fields},
    KindSpec{"servers", "server", server_fields},
    KindSpec{"sites", "site", site_fields},
    KindSpec{"storage", "storage system", storage_fields},
};

}  // namespace

std::span<const KindSpec> catalog_kinds() { return kinds; }

const KindSpec* find_kind(std::string_view kind) {
  for (const auto& k : kinds)
    if (k.kind == kind || k.singular == kind) return &k;
  return nullptr;
}

std::string unknown_kind_message(std::string_view kind) {
  std::vector<std::string> names;
  for (const auto& k : kinds) names.emplace_back(k.kind);
  const std::string hint = suggest(std::string(kind), names);
  return fmt::format("unknown catalog kind '{}'{}; expected {}", kind, hint.empty() ? "" : "; did you mean " + hint + "?",
                     in_words(names));
}

const FieldSpec* find_field(const KindSpec& kind, std::string_view name) {
  for (const auto& f : kind.fields)
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace gpuplan
