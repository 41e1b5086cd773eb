// SPDX-License-Identifier: Apache-2.0
#pragma once
// An accelerator resolved from the catalog with its links: what the analyses read.
#include <string>

#include "gpuplan/units.hpp"

namespace gpuplan {

enum class DType { fp32, tf32, bf16, fp16, fp8, fp4, int8, int4 };
DType parse_dtype(const std::string& s);  // throws Error(usage)
std::string to_string(DType d);

struct Link {
  std::string id;
  ByteRate bw_per_direction = bytes_per_s(0);
  Seconds latency = seconds(0);
  int switch_radix = 0;
  Watts switch_power = watts(0);  // 0 when no source gives it
  double port_usd = 0;            // capital per port (NIC, switch port, optics); 0 when not priced
  bool in_network_reduction = false;  // switches that reduce in flight (InfiniBand SHARP)
};

struct Device {
  std::string id, name, family;
  std::string memory_type;  // hbm, gddr, lpddr or ddr
  Bytes memory = bytes(0);
  ByteRate memory_bw = bytes_per_s(0);
  double peak[8] = {};  // FLOP/s by DType; 0 when the device has no such unit
  Watts tdp = watts(0);  // 0 when no source gives it
  Watts idle = watts(0);  // board draw at idle; 0 when no source gives it
  bool system_power = false;  // tdp and idle are the whole machine at the wall (power_scope = "system")
  Watts power_limit = watts(0);  // enforced board power limit below TDP; 0: none (runs at TDP)
  double clock_scale = 1;        // the compute clock at that limit, as a share of the clock at TDP
  Link scale_up, scale_out, host;
  int scale_up_domain = 1, devices_per_node = 1, nics_per_node = 0;
  bool unified_memory = false;
  double gpu_memory_share = 1;
  std::string source;

  // Peak for a dtype, falling back to the next wider type the device has (fp8 -> bf16).
  FlopRate peak_for(DType d) const;
  // Memory a model may use (unified memory counts once, at the share the GPU may wire).
  Bytes usable_memory() const { return memory * gpu_memory_share; }
};

// Why `gpus` devices cannot work together: no link the catalog knows between them (within a
// scale-up domain, or across nodes), naming the device and what would connect it; empty when
// they can (or when there is one).
std::string interconnect_problem(const Device& d, int gpus);

// The compute clock a board power limit allows, as a share of the clock at TDP. A busy board
// draws its idle floor plus dynamic power a C V^2 f (Weste and Harris, CMOS VLSI Design, section
// 5.1); the voltage follows the clock down to a floor, below which only the clock falls. With
// c = (cap - idle)/(TDP - idle) (idle 0 where the catalog has none) and v the floor as a share of
// the voltage at TDP: f/f0 = c^(1/3) while c >= v^3, else c / v^2. Memory bandwidth is left as it
// is (HBM runs on its own clock).
// v = 0.948 is fitted, once, on one public power-limit sweep of a compute-bound workload: llama.cpp
// prefill on RTX 3090s at 300, 250 and 200 W of 350 W (llmgarage.ai, "Tokens-per-Second Test
// Bench: Power Limit Sweep", 2026-02): 0.943, 0.853, 0.600 of the 350 W rate, modelled within
// +0.8%, -6.8%, +5.9% (the cube law alone: +0.7%, +4.8%, +38%). It was chosen after seeing
// torchtitan's 500 W H100 rows run slower than the cube law says, and not fitted on them. An
// estimate: no datacenter-GPU sweep was reachable.
constexpr double power_cap_voltage_floor = 0.948;
double power_cap_clock_scale(Watts tdp, Watts idle, Watts cap);
// Why a board power limit cannot hold on the device, naming the range it accepts (no TDP in the
// catalog, at or below the idle draw or a tenth of TDP, above TDP); empty when it can.
std::string power_cap_problem(const Device& d, Watts cap);
// The device under a board power limit: every tensor and vector rate at the clock scale (undoing
// an earlier limit first, so a flag overrides the catalog's default limit), power_limit set; a
// limit at TDP lifts it. Throws Error(usage) with power_cap_problem's line where it cannot hold.
void apply_power_cap(Device& d, Watts cap);

}  // namespace gpuplan
