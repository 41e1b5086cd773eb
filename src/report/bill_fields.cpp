// SPDX-License-Identifier: Apache-2.0
#include "gpuplan/report/bill_fields.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>

#include "gpuplan/format.hpp"

namespace gpuplan {
namespace {

using B = const BillView&;
Value opt(const std::optional<double>& x) { return x ? Value(*x) : Value(); }
// A figure of the cluster's power, null when the device has no power figure.
template <class F>
Value power_of(B v, F f) {
  return v.cluster.power ? Value(f(*v.cluster.power)) : Value();
}
// A rack figure, null when nothing limits the racks (no budget, no packaging).
template <class F>
Value rack_of(B v, F f) {
  return v.cluster.power && v.cluster.power->racks > 0 ? Value(f(*v.cluster.power)) : Value();
}

// clang-format off
const std::array<Field<BillView>, 14> power_table{{
    {"nodes", [](B v) { return Value(v.cluster.nodes); }},
    {"it_kw", [](B v) { return power_of(v, [](const Power& p) { return p.it_peak.value() / 1e3; }); }},
    {"it_kw_avg", [](B v) { return power_of(v, [](const Power& p) { return p.it_avg.value() / 1e3; }); }},
    {"facility_mw_peak", [](B v) { return power_of(v, [](const Power& p) { return p.facility_peak.value() / 1e6; }); }},
    {"facility_mw_avg", [](B v) { return power_of(v, [](const Power& p) { return p.facility_avg.value() / 1e6; }); }},
    {"pue", [](B v) { return power_of(v, [&](const Power&) { return v.facility.site.pue; }); }},
    {"racks", [](B v) { return rack_of(v, [](const Power& p) { return p.racks; }); }},
    {"nodes_per_rack", [](B v) { return power_of(v, [](const Power& p) { return p.nodes_per_rack > 0 ? Value(p.nodes_per_rack) : Value(); }); }},
    {"rack_limit", [](B v) { return rack_of(v, [](const Power& p) { return std::string(rack_limit_name(p.rack_limit)); }); }},
    {"rack_kw", [](B v) { return rack_of(v, [](const Power& p) { return p.rack_draw.value() / 1e3; }); }},
    {"liquid_cooled", [](B v) { return power_of(v, [&](const Power&) { return v.facility.node.liquid_cooled; }); }},
    {"facility_mw_idle", [](B v) { return power_of(v, [](const Power& p) { return p.facility_idle.value() / 1e6; }); }},
    {"power_cap_w", [](B v) { return v.facility.node.device_limit.value() > 0 ? Value(v.facility.node.device_limit.value()) : Value(); }},
    {"clock_scale", [](B v) { return Value(v.facility.node.clock_scale); }},
}};

const std::array<Field<BillView>, 14> fabric_table{{
    {"link", [](B v) { return Value(v.facility.scale_out.id); }},
    {"nics", [](B v) { return Value(v.cluster.fabric.nics); }},
    {"tiers", [](B v) { return v.cluster.fabric.tiers >= 0 ? Value(v.cluster.fabric.tiers) : Value(); }},
    {"fits", [](B v) { return Value(v.cluster.fabric.fits); }},
    {"max_endpoints", [](B v) { return v.cluster.fabric.max_endpoints > 0 ? Value(v.cluster.fabric.max_endpoints) : Value(); }},
    {"nics_per_node", [](B v) { return Value(v.facility.nics_per_node); }},
    {"switches", [](B v) { return v.cluster.fabric.tiers >= 0 ? Value(v.cluster.fabric.switches()) : Value(); }},
    {"leaf", [](B v) { return Value(v.cluster.fabric.leaf); }},
    {"spine", [](B v) { return Value(v.cluster.fabric.spine); }},
    {"core", [](B v) { return Value(v.cluster.fabric.core); }},
    {"oversubscription", [](B v) { return Value(v.settings.oversubscription); }},
    {"bisection_bytes_per_s", [](B v) { return Value(v.cluster.fabric.bisection.value()); }},
    {"power_w", [](B v) { return Value(v.cluster.fabric.power.value()); }},
    {"comm_fraction", [](B v) { return v.bill.comm_fraction >= 0 ? Value(v.bill.comm_fraction) : Value(); }},
}};

const std::array<Field<BillView>, 12> cost_table{{
    {"capital", [](B v) { return opt(v.bill.cost.capital); }},
    {"cloud", [](B v) { return opt(v.bill.cost.cloud); }},
    {"owned_run", [](B v) { return opt(v.bill.cost.owned_run); }},
    {"owned_tco", [](B v) { return opt(v.bill.cost.owned_tco); }},
    {"owned_per_year", [](B v) { return opt(v.bill.cost.owned_per_year); }},
    {"cloud_lifetime", [](B v) { return opt(v.bill.cost.cloud_lifetime); }},
    {"lifetime_years", [](B v) { return Value(v.bill.cost.lifetime_years); }},
    {"break_even_months", [](B v) { return opt(v.bill.cost.break_even_months); }},
    {"electricity", [](B v) { return opt(v.bill.cost.electricity); }},
    {"idle_gpu_hour", [](B v) { return opt(v.bill.cost.idle_gpu_hour); }},
    {"cloud_storage", [](B v) { return opt(v.bill.cost.cloud_storage); }},
    {"headline", [](B v) { return Value(v.bill.cost.owned_headline ? "owned" : "cloud"); }},
}};
// clang-format on

}  // namespace

std::span<const Field<BillView>> bill_power_fields() { return power_table; }
std::span<const Field<BillView>> bill_fabric_fields() { return fabric_table; }
std::span<const Field<BillView>> bill_cost_fields() { return cost_table; }

Table bill_table(const BillView& v) {
  const Facility& f = v.facility;
  const ClusterPower& c = v.cluster;
  const BillCost& cost = v.bill.cost;
  Table t;
  t.headers = {"bill", "value"};
  t.right = {false, true};
  const std::string span_name = v.bill.per_year ? " per year" : "";
  if (c.power) {
    const Power& p = *c.power;
    t.add_row({"site", f.site.id + fmt::format(" (PUE {}, {}/kWh, {} gCO2e/kWh)", format_sig(f.site.pue),
                                                format_usd(f.site.electricity.value() * 3.6e6), format_sig(f.site.gco2_per_kwh))});
    if (f.node.device_limit.value() > 0)
      t.add_row({"board power limit", fmt::format("{} per device (compute clock x{:.2f}, an estimate)",
                                                  format_si(f.node.device_limit.value(), "W"), f.node.clock_scale)});
    t.add_row({"IT power (nameplate / average)", format_si(p.it_peak.value(), "W") + " / " + format_si(p.it_avg.value(), "W")});
    t.add_row({"facility power (peak / average)", format_si(p.facility_peak.value(), "W") + " / " + format_si(p.facility_avg.value(), "W")});
    if (f.node.liquid_cooled)
      t.add_row({"cooling", fmt::format("direct liquid cooling ({}): facility water to every rack", f.node.id)});
    if (p.racks > 0) {
      std::string budget;
      if (f.site.rack_power.value() > 0) budget = format_si(f.site.rack_power.value(), "W");
      if (f.site.rack_units > 0) budget += (budget.empty() ? "" : ", ") + fmt::format("{}U", f.site.rack_units);
      const std::string node = f.node.rack_units > 0 ? fmt::format("{}, {}U", format_si(f.node.max_power.value(), "W"), f.node.rack_units)
                                                     : format_si(f.node.max_power.value(), "W");
      // A cluster smaller than one rack's capacity fills that one rack only so far.
      const long filled = std::min<long>(p.nodes_per_rack, c.nodes);
      t.add_row({"racks", fmt::format("{} ({} node{} of {} per rack{}; limited by {})", p.racks, filled,
                                      filled > 1 ? "s" : "", node,
                                      budget.empty() ? "" : (p.rack_over_budget ? ", over a budget of " : " of ") + budget,
                                      rack_limit_name(p.rack_limit))});
    }
    t.add_row({"energy" + span_name, format_si(*v.bill.energy_mwh * 1e6, "Wh")});
    t.add_row({"carbon" + span_name, format_tonnes(*v.bill.co2_t) + " CO2e"});
  }
  const Fabric& fb = c.fabric;
  if (fb.tiers > 0)
    t.add_row({"scale-out fabric", fmt::format("{} NICs of {}, {} switch{} in {} tier{} ({} leaf, {} spine, {} core){}", fb.nics,
                                               f.scale_out.id, fb.switches(), fb.switches() > 1 ? "es" : "", fb.tiers,
                                               fb.tiers > 1 ? "s" : "", fb.leaf, fb.spine, fb.core,
                                               fb.fits ? "" : "; beyond 3 tiers")});
  else if (fb.tiers == 0)
    t.add_row({"scale-out fabric", "none (one node)"});
  else if (f.scale_out.id.empty())
    t.add_row({"scale-out fabric", fmt::format("{} nodes, no scale-out fabric in the device's record (--scale-out names one)",
                                               c.nodes)});
  else
    t.add_row({"scale-out fabric", fmt::format("{} NICs; switch radix unknown for '{}'", fb.nics, f.scale_out.id)});
  if (cost.electricity) t.add_row({"electricity" + span_name, format_usd(*cost.electricity)});
  auto cloud_row = [&] {
    if (cost.cloud)
      t.add_row({"cloud cost" + span_name, fmt::format("{} ({}{} at {}/device-hour)", format_usd(*cost.cloud), f.cloud->provider,
                                                       f.cloud->commitment.empty() ? "" : " " + f.cloud->commitment,
                                                       format_usd(f.cloud->value * 3600))});
  };
  auto owned_rows = [&] {
    if (!cost.owned_run) return;
    if (!v.bill.per_year) t.add_row({"owned: run's share", format_usd(*cost.owned_run)});
    t.add_row({"owned: idle device-hour", format_usd(*cost.idle_gpu_hour)});
  };
  if (cost.owned_headline) owned_rows(), cloud_row();
  else cloud_row(), owned_rows();
  // The whole life side by side, one label each: per year and over the amortisation life.
  if (cost.owned_tco) {
    const std::string life = fmt::format("{} years", format_sig(cost.lifetime_years));
    t.add_row({"owned: per year / over " + life, format_usd(*cost.owned_per_year) + " / " + format_usd(*cost.owned_tco)});
    if (cost.cloud_lifetime)
      t.add_row({"cloud: per year / over " + life + fmt::format(" at {:.0f}% use", v.settings.utilisation * 100),
                 format_usd(*cost.cloud_per_year) + " / " + format_usd(*cost.cloud_lifetime)});
    if (f.cloud)
      t.add_row({"buy vs cloud break-even",
                 cost.break_even_months
                     ? fmt::format("{:.1f} months{}", *cost.break_even_months,
                                   *cost.break_even_months > cost.lifetime_years * 12 ? " (beyond the " + life + ")" : "")
                     : std::string("never: renting costs less than running the owned cluster")});
  }
  return t;
}

}  // namespace gpuplan
