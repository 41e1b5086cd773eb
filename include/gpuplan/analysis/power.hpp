// SPDX-License-Identifier: Apache-2.0
#pragma once
// Power of a cluster at the wall: nodes at nameplate (what a facility must provision) and at
// their average draw during training, the scale-out fabric, storage, racks, the site's PUE,
// energy over a run and its carbon. The shape follows training-models.md section 5.7:
// P_IT = nodes x node power + fabric + storage; P_facility = PUE x P_IT; E = P x t.
#include <string>

#include "gpuplan/units.hpp"

namespace gpuplan {

struct Site {
  std::string id, name, source;
  double pue = 1;
  UsdPerJoule electricity = usd_per_joule(0);
  double gco2_per_kwh = 0;
  Watts rack_power = watts(0);           // 0: the site has no rack budget
  int rack_units = 0;                    // usable U per rack; 0: not limited by height
  double facility_usd_per_kw_month = 0;  // 0: not known
};

// One node (server) at nameplate: a catalog server record, or estimated from the accelerator's TDP.
struct NodeSpec {
  int devices = 1;
  Watts max_power = watts(0);  // 0: no figure (no server record and no TDP)
  Watts idle = watts(0);       // the accelerators' idle draw (host idle not known: a lower bound); 0: unknown
  int rack_units = 0;          // height; 0: unknown (racks then limited by power only)
  Watts device_limit = watts(0);  // each device's board power limit below TDP (nameplate lowered by it); 0: none
  double clock_scale = 1;         // the compute clock at that limit, for the record
  int nodes_per_rack = 0;      // the vendor's cabinet, which is the rack (Cray EX: 128); 0: none
  bool rack_scale = false;     // the node is a whole rack (GB200 NVL72)
  bool liquid_cooled = false;
  std::string id;              // server record id; empty for an estimate from TDP
  std::string origin;
  bool estimate = false;
};

// Nameplate of a node built around `devices` accelerators of board power `tdp` when no server
// record exists: the DGX H100 ratio of system maximum to GPU TDP (10.2 kW / (8 x 700 W) = 1.82),
// hardware-facts.md 4a ("non-GPU overhead per 8-GPU server", an estimate).
// A `whole_machine` figure (a Mac measured at the wall, power_scope = "system") already holds
// everything around the chip: the node is that figure, not an estimate.
constexpr double node_overhead_ratio = 10200.0 / (8 * 700.0);
NodeSpec node_from_tdp(int devices, Watts tdp, bool whole_machine = false);

// Average draw during training as a share of nameplate: Newkirk et al. 2025 (arXiv 2506.14551)
// measured compute-intensive training on 8-GPU H100 nodes at 76% of the 10.2 kW rating.
constexpr double default_power_fraction = 0.76;

// A fat tree of radix-k switches over the nodes' scale-out NIC ports, rail-optimised when a
// node has several NICs (NIC i of every node in a group meets on one leaf, which holds as many
// such rails as its ports allow). With
// oversubscription r, a leaf gives d = floor(k r/(1+r)) ports down and the rest up; higher
// tiers split their ports half down, half up. The tiers follow the radix: one switch holds
// k endpoints, two tiers d k, three tiers d k^2/2 (k^3/4 at r = 1, Al-Fares et al. 2008),
// each further tier k/2 times more. More than three tiers is beyond any published reference
// design (`fits` is false, and the caller warns); the counts are still those of the deeper tree. Full
// bisection reproduces NVIDIA's DGX SuperPOD RA counts: H100 (Table 4) 31 nodes -> 8 leaf +
// 4 spine, 127 -> 32 + 16; B200 1,024 GPUs -> 32 + 16, 4,096 -> 128 + 128 + 64 core.
struct FabricInput {
  long nodes = 1;
  int nics_per_node = 1;
  int radix = 0;  // 0: unknown, no switch count
  double oversubscription = 1;
  ByteRate port_bw = bytes_per_s(0);
  Watts switch_power = watts(0);  // 0: unknown, not counted
};
struct Fabric {
  long nics = 0, leaf = 0, spine = 0, core = 0;
  int tiers = 0;       // 0: a single node needs no scale-out fabric; -1: radix unknown
  bool fits = true;    // false: more than the three tiers of a standard fat tree
  double max_endpoints = 0;  // what three tiers of this radix hold at this oversubscription
  ByteRate bisection = bytes_per_s(0);
  Watts power = watts(0);
  long switches() const { return leaf + spine + core; }
};
Fabric fat_tree(const FabricInput& in);

struct PowerInput {
  long nodes = 1;
  // Devices the job uses, where fewer than its nodes hold (one GPU of an 8-GPU server): the job is
  // charged that share of the nodes' draw, as a shared node's other jobs bear the rest. 0: all.
  long devices = 0;
  NodeSpec node;
  double avg_fraction = default_power_fraction;
  Watts fabric = watts(0);
  Watts storage = watts(0);
  double pue = 1;
  Watts rack_power = watts(0);
  int rack_units = 0;
};
// What limits the nodes in one rack.
enum class RackLimit { none, power, units, packaging, rack_scale };
struct Power {
  Watts it_peak = watts(0), it_avg = watts(0), facility_peak = watts(0), facility_avg = watts(0);
  Watts facility_idle = watts(0);  // nodes idle (their known idle draw), switches and storage on
  long racks = 0;         // 0 when neither a rack budget nor a packaging is known
  int nodes_per_rack = 0;
  RackLimit rack_limit = RackLimit::none;
  Watts rack_draw = watts(0);     // one full rack at nameplate (one node when nothing packs them)
  bool rack_over_budget = false;  // that rack draws more than the site's rack power budget
  bool node_too_tall = false;     // one node is taller than the rack
};
std::string_view rack_limit_name(RackLimit l);
Power cluster_power(const PowerInput& in);

// Energy of a run at an average facility power, and its carbon (grid intensity in g CO2e per kWh).
Joules run_energy(Watts average, Seconds wall);
double co2_tonnes(Joules energy, double gco2_per_kwh);

inline double to_kwh(Joules e) { return e.value() / 3.6e6; }

}  // namespace gpuplan
