#include "gpuplan/analysis/device.hpp"

#include <fmt/format.h>

#include "gpuplan/catalog/catalog.hpp"
#include "gpuplan/error.hpp"

namespace gpuplan {

namespace {
constexpr const char* dtype_names[] = {"fp32", "tf32", "bf16", "fp16", "fp8", "fp4", "int8", "int4"};
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
  return l;
}

DType parse_dtype(const std::string& s) {
  for (int i = 0; i < 8; ++i)
    if (s == dtype_names[i]) return static_cast<DType>(i);
  fail(Exit::usage, fmt::format("precision '{}' is not known; expected fp32, tf32, bf16, fp16, fp8, fp4, int8 or int4", s));
}

std::string to_string(DType d) { return dtype_names[static_cast<int>(d)]; }

FlopRate Device::peak_for(DType d) const {
  // Fall back along fp4 -> fp8 -> bf16 -> fp16 -> tf32 -> fp32 when a unit is missing.
  static constexpr DType chain[] = {DType::fp4, DType::fp8, DType::bf16, DType::fp16, DType::tf32, DType::fp32};
  double v = peak[static_cast<int>(d)];
  if (v > 0) return flops_per_s(v);
  bool started = false;
  for (DType c : chain) {
    if (c == d) started = true;
    if (started && peak[static_cast<int>(c)] > 0) return flops_per_s(peak[static_cast<int>(c)]);
  }
  if (d == DType::int8 || d == DType::int4) return peak_for(DType::bf16);
  return flops_per_s(peak[static_cast<int>(DType::fp32)]);
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
  return d;
}

}  // namespace gpuplan
