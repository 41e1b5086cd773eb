// SPDX-License-Identifier: Apache-2.0
#include "gpuplan/analysis/facility.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "gpuplan/format.hpp"

namespace gpuplan {

ClusterPower cluster_of(const Facility& f, const FacilitySettings& s, int gpus, long storage_units) {
  ClusterPower c;
  c.nodes = (gpus + f.node.devices - 1) / f.node.devices;
  FabricInput fi;
  fi.nodes = c.nodes;
  fi.nics_per_node = std::max(1, gpus >= f.node.devices ? f.nics_per_node : std::min(f.nics_per_node, gpus));
  fi.radix = f.scale_out.switch_radix;
  fi.oversubscription = s.oversubscription;
  fi.port_bw = f.scale_out.bw_per_direction;
  fi.switch_power = f.scale_out.switch_power;
  c.fabric = fat_tree(fi);
  if (!c.fabric.fits)
    c.warnings.push_back(fmt::format(
        "{} scale-out ports need a {}-tier fat tree of {}-port {} switches, beyond the 3 tiers of a standard design (which "
        "hold at most {:.0f} at oversubscription {}): use a higher-radix fabric (--scale-out), --oversubscription, or "
        "split the cluster",
        c.fabric.nics, c.fabric.tiers, f.scale_out.switch_radix, f.scale_out.id, c.fabric.max_endpoints,
        format_sig(s.oversubscription)));
  // Only a cluster of more than one node has a scale-out fabric to power.
  if (c.nodes > 1 && !f.scale_out.id.empty() && f.scale_out.switch_power.value() <= 0)
    c.warnings.push_back(fmt::format("no switch power for {} in the catalog: fabric power not counted", f.scale_out.id));
  c.storage_units = f.storage ? storage_units : 0;
  if (f.storage) c.storage_power = f.storage->power * static_cast<double>(storage_units);
  if (f.node.max_power.value() <= 0) return c;
  PowerInput pi;
  pi.nodes = c.nodes;
  pi.devices = gpus;
  pi.node = f.node;
  pi.avg_fraction = f.power_fraction;
  pi.fabric = c.fabric.power;
  pi.storage = c.storage_power;
  pi.pue = f.site.pue;
  pi.rack_power = f.site.rack_power;
  pi.rack_units = f.site.rack_units;
  c.power = cluster_power(pi);
  const Power& p = *c.power;
  const std::string node = f.node.id.empty() ? "one node" : "one " + f.node.id;
  if (p.rack_over_budget) {
    const std::string what =
        p.rack_limit == RackLimit::packaging ? fmt::format("one cabinet of {} {} nodes", p.nodes_per_rack, f.node.id) : node;
    c.warnings.push_back(fmt::format("{} draws {}, more than the {} rack budget of site {}: each needs a rack rated for at "
                                     "least that (a --site with such racks, or --rack-power {:.0f}kW)",
                                     what, format_si(p.rack_draw.value(), "W"), format_si(f.site.rack_power.value(), "W"),
                                     f.site.id, std::ceil(p.rack_draw.value() / 1e3)));
  }
  // The default site is a national average; a campus of tens of megawatts is built to a
  // hyperscale PUE (Uptime: new large facilities 1.3 or better; Google's fleet 1.10).
  if (!s.site_given && p.facility_peak.value() > 10e6)
    c.warnings.push_back(fmt::format("{} at the default site {} (PUE {}, a national average); a facility this large is "
                                     "usually built nearer PUE 1.1-1.3: give --site (hyperscale, us-virginia, ...)",
                                     format_si(p.facility_peak.value(), "W"), f.site.id, format_sig(f.site.pue)));
  if (p.node_too_tall)
    c.warnings.push_back(fmt::format("{} is {}U, taller than the site's {}U racks", node, f.node.rack_units, f.site.rack_units));
  return c;
}

FacilityBill facility_bill(const Facility& f, const FacilitySettings& s, const ClusterPower& c, const RunFacts& run) {
  FacilityBill b;
  b.per_year = run.wall.value() <= 0;
  b.span = b.per_year ? seconds(365.0 * 86400) : run.wall;
  b.comm_fraction = run.comm_fraction;
  BillCost& cost = b.cost;
  if (c.power) {
    const Power& p = *c.power;
    // A facility's year: working for the utilisation share, idle the rest; a run: working.
    const Joules e = b.per_year ? run_energy(p.facility_avg * s.utilisation + p.facility_idle * (1 - s.utilisation), b.span)
                                : run_energy(p.facility_avg, b.span);
    b.energy_mwh = to_kwh(e) / 1e3;
    cost.electricity = (e * f.site.electricity).value();
    b.co2_t = co2_tonnes(e, f.site.gco2_per_kwh);
  }
  const double device_s = run.gpus * b.span.value();
  // Renting storage too, when the chosen system has a monthly price (object storage).
  if (f.storage && f.storage->usd_per_tb_month > 0 && run.storage_bytes > 0)
    cost.cloud_storage = run.storage_bytes / 1e12 * f.storage->usd_per_tb_month * b.span.value() / (365.0 / 12 * 86400);
  if (f.cloud) cost.cloud = cloud_cost(usd_per_s(f.cloud->value), device_s).value() + cost.cloud_storage.value_or(0);
  if (f.purchase && c.power) {
    OwnedInput oi;
    oi.devices = run.gpus;
    oi.capex_per_device = usd(f.purchase->value);
    if (f.storage && f.storage->usd_per_tb > 0 && f.storage->capacity.value() > 0)
      oi.other_capex = usd(f.storage->usd_per_tb * f.storage->capacity.value() / 1e12 * static_cast<double>(c.storage_units));
    if (c.fabric.tiers > 0 && f.scale_out.port_usd > 0)
      oi.other_capex += usd(f.scale_out.port_usd *
                            static_cast<double>(c.fabric.nics + c.fabric.switches() * f.scale_out.switch_radix));
    oi.years = s.years;
    oi.utilisation = s.utilisation;
    oi.facility_avg = c.power->facility_avg;
    oi.facility_idle = c.power->facility_idle;
    oi.it_peak = c.power->it_peak;
    oi.electricity = f.site.electricity;
    oi.facility_usd_per_kw_month = f.site.facility_usd_per_kw_month;
    oi.staff_per_year = s.staff_per_year;
    const OwnedCost oc = owned_cost(oi);
    cost.capital = oc.capital.value();
    cost.owned_run = owned_run_cost(oc, b.span).value();
    cost.owned_tco = oc.tco.value();
    cost.owned_per_year = oc.tco.value() / s.years;
    cost.idle_gpu_hour = oc.idle_device_hour.value();
    if (f.cloud) cost.break_even_months = break_even_months(oc, oi, usd_per_s(f.cloud->value));
  }
  // Cloud over the same life, for the working share of it (what owning is compared with).
  if (f.cloud) {
    cost.cloud_lifetime = cloud_cost(usd_per_s(f.cloud->value), run.gpus * s.years * 365 * 86400 * s.utilisation).value();
    cost.cloud_per_year = *cost.cloud_lifetime / s.years;
  }
  cost.lifetime_years = s.years;
  cost.owned_headline = s.buy;
  return b;
}

}  // namespace gpuplan
