// SPDX-License-Identifier: Apache-2.0
#include "gpuplan/records.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "gpuplan/catalog/import.hpp"
#include "gpuplan/error.hpp"

namespace gpuplan {

namespace {
constexpr const char* dtype_fields[] = {"fp32_flops_per_s", "tf32_flops_per_s", "bf16_flops_per_s",
                                        "fp16_flops_per_s", "fp8_flops_per_s",  "fp4_flops_per_s",
                                        "int8_ops_per_s",   "int4_ops_per_s"};

Link resolve_link(const Catalog& c, const Record& acc, const char* field) {
  if (!acc.has(field)) return Link{};
  return link_by_id(c, acc.text(field));
}
}  // namespace

Link link_by_id(const Catalog& c, const std::string& id) {
  Link l;
  const Record& r = c.get("interconnects", id);
  l.id = r.id;
  l.bw_per_direction = bytes_per_s(r.number("bw_per_direction_bytes_per_s"));
  l.latency = seconds(r.number("latency_s"));
  l.switch_radix = static_cast<int>(r.number("switch_radix"));
  l.switch_power = watts(r.number("switch_power_w"));
  l.port_usd = r.number("port_usd");
  l.in_network_reduction = r.flag("in_network_reduction");
  return l;
}

Device resolve_device(const Catalog& c, const std::string& id) {
  const Record& r = c.get("accelerators", id);
  Device d;
  d.id = r.id;
  d.name = r.text("name");
  d.family = r.text("family");
  d.memory_type = r.text("memory_type", d.family == "apple" ? "lpddr" : d.family == "cpu" ? "ddr" : d.family == "ada" ? "gddr" : "hbm");
  d.memory = bytes(r.number("memory_bytes"));
  d.memory_bw = bytes_per_s(r.number("memory_bw_bytes_per_s"));
  for (int i = 0; i < 8; ++i) d.peak[i] = r.number(dtype_fields[i]);
  d.tdp = watts(r.number("tdp_w"));
  d.idle = watts(r.number("idle_w"));
  d.system_power = r.text("power_scope") == "system";
  d.scale_up = resolve_link(c, r, "scale_up");
  d.scale_out = resolve_link(c, r, "scale_out");
  d.host = resolve_link(c, r, "host_link");
  if (d.scale_up.id.empty()) d.scale_up = d.host;
  d.scale_up_domain = static_cast<int>(r.number("scale_up_domain", 1));
  d.devices_per_node = static_cast<int>(r.number("devices_per_node", 1));
  d.nics_per_node = static_cast<int>(r.number("nics_per_node", 0));
  d.unified_memory = r.flag("unified_memory");
  d.gpu_memory_share = r.number("gpu_memory_share", 1);
  d.source = r.text("source");
  if (d.peak_for(DType::bf16).value() <= 0)
    fail(Exit::data, fmt::format("accelerator '{}' has no FLOP rate in the catalog", id));
  if (r.has("power_limit_w")) {  // bad data in the catalog, not a usage error
    const Watts limit = watts(r.number("power_limit_w"));
    if (const std::string problem = power_cap_problem(d, limit); !problem.empty())
      fail(Exit::data, fmt::format("accelerator '{}': power_limit_w: {}", id, problem));
    apply_power_cap(d, limit);
  }
  return d;
}

Device device_named(const Catalog& c, const std::string& id_or_path) {
  if (c.find("accelerators", id_or_path) || !names_a_file(id_or_path)) return resolve_device(c, id_or_path);
  Catalog with = c;
  std::vector<Diagnostic> diags;
  const std::vector<std::string> before = c.ids("accelerators");
  if (!with.merge_path(id_or_path, diags)) {
    fail(Exit::data, diags.front().text() + more_problems(diags.size() - 1));
  }
  std::vector<std::string> added;
  for (const auto& a : with.ids("accelerators"))
    if (std::find(before.begin(), before.end(), a) == before.end()) added.push_back(a);
  if (added.size() != 1)
    fail(Exit::data, fmt::format("{}: error: a device file holds one new [accelerators.ID] record; this one has {}",
                                 shown(id_or_path), added.empty() ? "none" : "several"));
  return resolve_device(with, added.front());
}

ModelArch model_named(const Catalog& c, const std::string& id_or_path) {
  if (!c.find("models", id_or_path) && names_a_file(id_or_path)) return model_from_record(import_model(id_or_path));
  return model_from_record(c.get("models", id_or_path));
}

ModelArch model_from_record(const Record& r) {
  ModelArch m;
  m.id = r.id;
  m.name = r.text("name");
  if (r.flag("estimate")) m.caveat = r.text("note", "some fields are unverified");
  auto i = [&](const char* f, double fallback = 0) { return static_cast<int>(r.number(f, fallback)); };
  m.layers = i("layers");
  m.hidden = i("hidden");
  m.heads = i("heads");
  m.kv_heads = i("kv_heads", m.heads);
  m.head_dim = i("head_dim", m.heads > 0 ? m.hidden / m.heads : 0);
  m.ffn = i("ffn");
  m.vocab = i("vocab");
  std::string act = r.text("activation", "swiglu");
  m.activation = act == "gelu" ? Activation::gelu : act == "geglu" ? Activation::geglu : Activation::swiglu;
  m.layernorm = r.text("norm") == "layernorm";
  m.tied_embeddings = r.flag("tied_embeddings");
  m.learned_positions = r.flag("learned_positions");
  m.qkv_bias = r.flag("qkv_bias");
  m.linear_bias = r.flag("linear_bias");
  m.max_context = static_cast<long>(r.number("max_context"));
  m.sliding_window = static_cast<long>(r.number("sliding_window"));
  m.sliding_layers = i("sliding_layers", m.sliding_window > 0 ? m.layers : 0);
  m.experts = i("experts");
  m.active_experts = i("active_experts");
  m.shared_experts = i("shared_experts");
  m.expert_ffn = i("expert_ffn", m.ffn);
  m.dense_layers = i("dense_layers");
  m.q_lora_rank = i("q_lora_rank");
  m.kv_lora_rank = i("kv_lora_rank");
  m.qk_rope_dim = i("qk_rope_dim");
  m.qk_nope_dim = i("qk_nope_dim");
  m.v_head_dim = i("v_head_dim");
  m.sparse_topk = static_cast<long>(r.number("sparse_topk"));
  m.indexer_heads = i("indexer_heads");
  m.indexer_dim = i("indexer_dim");
  if (m.mla()) m.head_dim = m.qk_nope_dim + m.qk_rope_dim;
  m.native_quant = r.text("native_quant");
  m.native_quant_experts = r.text("native_quant_scope") == "experts";
  m.native_bpw = r.number("native_bits_per_weight");
  m.trainer = r.text("trainer");
  m.stated_total = r.number("params_total");
  m.encoder_params = r.number("encoder_params");
  m.attn_output_gate = r.flag("attn_output_gate");
  m.linear_layers = i("linear_layers");
  m.linear_params = r.number("linear_params");
  m.linear_state_bytes = r.number("linear_state_bytes");
  m.stated_active = r.number("params_active", m.stated_total);
  return m;
}

}  // namespace gpuplan
