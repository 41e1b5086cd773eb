// SPDX-License-Identifier: Apache-2.0
#include "gpuplan/analysis/power.hpp"

#include "gpuplan/error.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpuplan {
namespace {
long ceil_div(double a, double b, std::string_view what) { return checked_count(a / b, what); }
}  // namespace

NodeSpec node_from_tdp(int devices, Watts tdp, bool whole_machine) {
  NodeSpec n;
  n.devices = devices;
  if (whole_machine) {
    n.max_power = tdp * static_cast<double>(devices);
    n.origin = "the accelerator's figure for the whole machine at the wall (power_scope = system)";
    return n;
  }
  n.max_power = tdp * (devices * node_overhead_ratio);
  n.estimate = true;
  n.origin = "estimate: devices x TDP x 1.82 (DGX H100 nameplate / GPU TDP)";
  return n;
}

Fabric fat_tree(const FabricInput& in) {
  Fabric f;
  f.nics = in.nodes * in.nics_per_node;
  if (in.nodes <= 1 || in.radix <= 0) {
    f.tiers = in.nodes <= 1 ? 0 : -1;
    return f;
  }
  const double k = in.radix;
  const double r = std::max(1.0, in.oversubscription);
  const double down = std::max(1.0, std::floor(k * r / (1 + r)));  // leaf ports facing nodes
  const double up = k - down;
  const double e = static_cast<double>(f.nics);
  f.max_endpoints = down * k * (k / 2);
  f.bisection = in.port_bw * (e / 2 / r);
  if (e <= k) {
    f.tiers = 1;
    f.leaf = 1;
  } else {
    // Rail-optimised: each of a node's NICs is on its own rail, and a group of up to `down`
    // nodes has its own leaves, so a partial group still needs its rails' leaves. A leaf holds as
    // many whole rails of a group as its down ports allow: one rail of 32 DGX nodes, four of the
    // 72 rails of 8 NVL72 racks (18 leaves for a GB200 SU rather than one leaf per NIC).
    const double rails = std::max(1, in.nics_per_node);
    const double group = std::min(static_cast<double>(in.nodes), down);
    const double rails_per_leaf = std::max(1.0, std::floor(down / group));
    const double leaves = std::ceil(rails / rails_per_leaf) * std::ceil(static_cast<double>(in.nodes) / down);
    // Tiers: two while every spine reaches every leaf (k leaves), then each tier multiplies
    // the leaves it can reach by k/2 (its switches give half their ports down).
    f.tiers = 2;
    for (double reach = k; leaves > reach && f.tiers < 64; reach *= k / 2) ++f.tiers;  // radix 2 never grows
    f.fits = f.tiers <= 3;
    f.leaf = checked_count(leaves, "leaf switches");
    if (f.tiers == 2) {
      f.spine = ceil_div(leaves * up, k, "spine switches");
    } else {
      // Middle tiers (spine, and above three tiers the further ones, counted with the spine)
      // split half down, half up; the top tier gives all k ports down.
      double below = leaves, ports_up = up;
      for (int tier = 2; tier < f.tiers; ++tier) {
        const double n = std::ceil(below * ports_up / (k / 2));
        f.spine += checked_count(n, "spine switches");
        below = n, ports_up = k / 2;
      }
      f.core = ceil_div(below * (k / 2), k, "core switches");
    }
  }
  f.power = in.switch_power * static_cast<double>(f.switches());
  return f;
}

std::string_view rack_limit_name(RackLimit l) {
  switch (l) {
    case RackLimit::power: return "power budget";
    case RackLimit::units: return "rack units";
    case RackLimit::packaging: return "the vendor's cabinet";
    case RackLimit::rack_scale: return "a rack-scale system";
    case RackLimit::none: break;
  }
  return "none";
}

Power cluster_power(const PowerInput& in) {
  Power p;
  const double held = static_cast<double>(in.nodes) * std::max(1, in.node.devices);
  const double share = in.devices > 0 ? std::min(1.0, static_cast<double>(in.devices) / held) : 1.0;
  const Watts nodes = in.node.max_power * (static_cast<double>(in.nodes) * share);
  p.it_peak = nodes + in.fabric + in.storage;
  // Switches and storage draw close to their rating whatever the GPUs do.
  p.it_avg = nodes * in.avg_fraction + in.fabric + in.storage;
  p.facility_peak = p.it_peak * in.pue;
  p.facility_avg = p.it_avg * in.pue;
  p.facility_idle = (in.node.idle * (static_cast<double>(in.nodes) * share) + in.fabric + in.storage) * in.pue;
  const double node_w = in.node.max_power.value();
  p.node_too_tall = in.rack_units > 0 && in.node.rack_units > in.rack_units;
  // Nodes per rack: a rack-scale system is a rack, and so is a vendor's cabinet (a Cray EX
  // cabinet of 128 nodes brings its own power shelves and coolant distribution); otherwise the
  // tighter of the site's power budget and rack height. A rack that alone exceeds the site's
  // budget still counts as one rack, and is flagged (the caller warns).
  double per_rack = std::numeric_limits<double>::infinity();
  const auto limit = [&](double n, RackLimit why) {
    if (n < per_rack) per_rack = n, p.rack_limit = why;
  };
  if (in.node.rack_scale) {
    limit(1, RackLimit::rack_scale);
  } else if (in.node.nodes_per_rack > 0) {
    limit(in.node.nodes_per_rack, RackLimit::packaging);
  } else {
    if (in.rack_power.value() > 0 && node_w > 0) limit(std::floor(in.rack_power.value() / node_w), RackLimit::power);
    if (in.rack_units > 0 && in.node.rack_units > 0) limit(std::floor(double(in.rack_units) / in.node.rack_units), RackLimit::units);
  }
  if (p.rack_limit != RackLimit::none) {
    p.nodes_per_rack = static_cast<int>(std::max(1L, checked_count(per_rack, "nodes per rack", false, 1e6)));
    p.racks = ceil_div(static_cast<double>(in.nodes), p.nodes_per_rack, "racks");
  }
  // The fullest rack at nameplate: a partial cluster fills fewer nodes than the packaging holds.
  p.rack_draw = in.node.max_power * static_cast<double>(std::min<long>(std::max(1, p.nodes_per_rack), in.nodes));
  p.rack_over_budget = in.rack_power.value() > 0 && p.rack_draw.value() > in.rack_power.value();
  return p;
}

Joules run_energy(Watts average, Seconds wall) { return average * wall; }

double co2_tonnes(Joules energy, double gco2_per_kwh) { return to_kwh(energy) * gco2_per_kwh / 1e6; }

}  // namespace gpuplan
