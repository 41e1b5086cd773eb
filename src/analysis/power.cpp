#include "gpuplan/analysis/power.hpp"

#include "gpuplan/error.hpp"

#include <algorithm>
#include <cmath>

namespace gpuplan {
namespace {
long ceil_div(double a, double b, std::string_view what) { return checked_count(a / b, what); }
}  // namespace

NodeSpec node_from_tdp(int devices, Watts tdp) {
  NodeSpec n;
  n.devices = devices;
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
  const double down = std::floor(k * r / (1 + r));  // leaf ports facing nodes
  const double up = k - down;
  const double e = static_cast<double>(f.nics);
  if (e <= k) {
    f.tiers = 1;
    f.leaf = 1;
  } else if (e <= down * k) {  // every spine reaches every leaf
    f.tiers = 2;
    f.leaf = ceil_div(e, down, "leaf switches");
    f.spine = ceil_div(static_cast<double>(f.leaf) * up, k, "spine switches");
  } else {
    f.tiers = 3;
    f.leaf = ceil_div(e, down, "leaf switches");
    f.spine = ceil_div(static_cast<double>(f.leaf) * up, k / 2, "spine switches");  // aggregation: half down, half up
    f.core = ceil_div(static_cast<double>(f.spine) * (k / 2), k, "core switches");
  }
  f.bisection = in.port_bw * (e / 2 / r);
  f.power = in.switch_power * static_cast<double>(f.switches());
  return f;
}

Power cluster_power(const PowerInput& in) {
  Power p;
  const Watts nodes = in.node.max_power * static_cast<double>(in.nodes);
  p.it_peak = nodes + in.fabric + in.storage;
  // Switches and storage draw close to their rating whatever the GPUs do.
  p.it_avg = nodes * in.avg_fraction + in.fabric + in.storage;
  p.facility_peak = p.it_peak * in.pue;
  p.facility_avg = p.it_avg * in.pue;
  if (in.rack_power.value() > 0 && in.node.max_power.value() > 0) {
    p.nodes_per_rack = static_cast<int>(std::max(1L, checked_count(in.rack_power / in.node.max_power, "nodes per rack", false, 1e6)));
    p.racks = ceil_div(static_cast<double>(in.nodes), p.nodes_per_rack, "racks");
  }
  return p;
}

Joules run_energy(Watts average, Seconds wall) { return average * wall; }

double co2_tonnes(Joules energy, double gco2_per_kwh) { return to_kwh(energy) * gco2_per_kwh / 1e6; }

}  // namespace gpuplan
