#include "bill.hpp"

#include <cmath>
#include <fmt/format.h>

#include "gpuplan/format.hpp"

namespace gpuplan {

ClusterPower cluster_of(const Facility& f, const Scenario& s, int gpus, long storage_units) {
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
  c.storage_units = f.storage ? storage_units : 0;
  if (f.storage) c.storage_power = f.storage->power * static_cast<double>(storage_units);
  if (f.node.max_power.value() > 0) {
    PowerInput pi;
    pi.nodes = c.nodes;
    pi.node = f.node;
    pi.avg_fraction = f.power_fraction;
    pi.fabric = c.fabric.power;
    pi.storage = c.storage_power;
    pi.pue = f.site.pue;
    pi.rack_power = f.site.rack_power;
    pi.rack_units = f.site.rack_units;
    c.power = cluster_power(pi);
    const std::string node = f.node.id.empty() ? "one node" : "one " + f.node.id;
    if (c.power->rack_over_budget) {
      const Power& p = *c.power;
      const std::string what = p.rack_limit == RackLimit::packaging
                                   ? fmt::format("one cabinet of {} {} nodes", p.nodes_per_rack, f.node.id)
                                   : node;
      c.warnings.push_back(fmt::format("{} draws {}, more than the {} rack budget of site {}: each needs a rack rated for at "
                                       "least that (a --site with such racks, or --rack-power {:.0f}kW)",
                                       what, format_si(p.rack_draw.value(), "W"), format_si(f.site.rack_power.value(), "W"),
                                       f.site.id, std::ceil(p.rack_draw.value() / 1e3)));
    }
    // The default site is a national average; a campus of tens of megawatts is built to a
    // hyperscale PUE (Uptime: new large facilities 1.3 or better; Google's fleet 1.10).
    if (!s.has("site") && c.power->facility_peak.value() > 10e6)
      c.warnings.push_back(fmt::format("{} at the default site {} (PUE {}, a national average); a facility this large is "
                                       "usually built nearer PUE 1.1-1.3: give --site (hyperscale, us-virginia, ...)",
                                       format_si(c.power->facility_peak.value(), "W"), f.site.id, format_sig(f.site.pue)));
    if (c.power->node_too_tall)
      c.warnings.push_back(fmt::format("{} is {}U, taller than the site's {}U racks", node, f.node.rack_units, f.site.rack_units));
  }
  return c;
}

Bill make_bill(const Facility& f, const Scenario& s, const ClusterPower& c, const RunFacts& run) {
  Bill b;
  Table& t = b.table;
  t.headers = {"bill", "value"};
  t.right = {false, true};
  const bool per_year = run.wall.value() <= 0;
  const Seconds span = per_year ? seconds(365.0 * 86400) : run.wall;
  const std::string span_name = per_year ? " per year" : "";

  b.power = Value::object();
  b.power.set("nodes", c.nodes);
  if (c.power) {
    const Power& p = *c.power;
    b.power.set("it_kw", p.it_peak.value() / 1e3);
    b.power.set("it_kw_avg", p.it_avg.value() / 1e3);
    b.power.set("facility_mw_peak", p.facility_peak.value() / 1e6);
    b.power.set("facility_mw_avg", p.facility_avg.value() / 1e6);
    b.power.set("pue", f.site.pue);
    b.power.set("racks", p.racks > 0 ? Value(p.racks) : Value());
    b.power.set("nodes_per_rack", p.nodes_per_rack > 0 ? Value(p.nodes_per_rack) : Value());
    t.add_row({"site", f.site.id + fmt::format(" (PUE {}, {}/kWh, {} gCO2e/kWh)", format_sig(f.site.pue),
                                                format_usd(f.site.electricity.value() * 3.6e6), format_sig(f.site.gco2_per_kwh))});
    t.add_row({"IT power (nameplate / average)", format_si(p.it_peak.value(), "W") + " / " + format_si(p.it_avg.value(), "W")});
    t.add_row({"facility power (peak / average)", format_si(p.facility_peak.value(), "W") + " / " + format_si(p.facility_avg.value(), "W")});
    b.power.set("rack_limit", p.racks > 0 ? Value(std::string(rack_limit_name(p.rack_limit))) : Value());
    b.power.set("rack_kw", p.racks > 0 ? Value(p.rack_draw.value() / 1e3) : Value());
    b.power.set("liquid_cooled", f.node.liquid_cooled);
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
    // A facility's year: working for the utilisation share, idle the rest; a run: working.
    const Joules e = per_year ? run_energy(p.facility_avg * s.utilisation + p.facility_idle * (1 - s.utilisation), span)
                              : run_energy(p.facility_avg, span);
    b.power.set("facility_mw_idle", p.facility_idle.value() / 1e6);
    b.energy_mwh = to_kwh(e) / 1e3;
    b.electricity_usd = (e * f.site.electricity).value();
    b.co2_t = co2_tonnes(e, f.site.gco2_per_kwh);
    t.add_row({"energy" + span_name, format_si(*b.energy_mwh * 1e6, "Wh")});
    t.add_row({"carbon" + span_name, format_tonnes(*b.co2_t) + " CO2e"});
  } else {
    for (const char* k : {"it_kw", "it_kw_avg", "facility_mw_peak", "facility_mw_avg", "pue", "racks", "nodes_per_rack",
                          "rack_limit", "rack_kw", "liquid_cooled", "facility_mw_idle"})
      b.power.set(k, Value());
  }

  b.fabric = Value::object();
  const Fabric& fb = c.fabric;
  b.fabric.set("link", f.scale_out.id);
  b.fabric.set("nics", fb.nics);
  b.fabric.set("tiers", fb.tiers >= 0 ? Value(fb.tiers) : Value());
  b.fabric.set("fits", fb.fits);
  b.fabric.set("max_endpoints", fb.max_endpoints > 0 ? Value(fb.max_endpoints) : Value());
  b.fabric.set("nics_per_node", f.nics_per_node);
  b.fabric.set("switches", fb.tiers >= 0 ? Value(fb.switches()) : Value());
  b.fabric.set("leaf", fb.leaf);
  b.fabric.set("spine", fb.spine);
  b.fabric.set("core", fb.core);
  b.fabric.set("oversubscription", s.oversubscription);
  b.fabric.set("bisection_bytes_per_s", fb.bisection.value());
  b.fabric.set("power_w", fb.power.value());
  b.fabric.set("comm_fraction", run.comm_fraction >= 0 ? Value(run.comm_fraction) : Value());
  if (fb.tiers > 0)
    t.add_row({"scale-out fabric", fmt::format("{} NICs of {}, {} switches in {} tier{} ({} leaf, {} spine, {} core){}", fb.nics,
                                               f.scale_out.id, fb.switches(), fb.tiers, fb.tiers > 1 ? "s" : "", fb.leaf,
                                               fb.spine, fb.core, fb.fits ? "" : "; beyond 3 tiers")});
  else if (fb.tiers == 0)
    t.add_row({"scale-out fabric", "none (one node)"});
  else
    t.add_row({"scale-out fabric", fmt::format("{} NICs; switch radix unknown for '{}'", fb.nics, f.scale_out.id)});

  b.cost = Value::object();
  const double device_s = run.gpus * span.value();
  std::optional<double> cloud, owned_run, owned_tco, owned_year, idle, cloud_life, break_even;
  // Renting storage too, when the chosen system has a monthly price (object storage).
  std::optional<double> storage_rent;
  if (f.storage && f.storage->usd_per_tb_month > 0 && run.storage_bytes > 0)
    storage_rent = run.storage_bytes / 1e12 * f.storage->usd_per_tb_month * span.value() / (365.0 / 12 * 86400);
  if (f.cloud) cloud = cloud_cost(usd_per_s(f.cloud->value), device_s).value() + storage_rent.value_or(0);
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
    oi.staff_per_year = usd(s.staff_per_year);
    OwnedCost oc = owned_cost(oi);
    owned_run = owned_run_cost(oc, span).value();
    owned_tco = oc.tco.value();
    owned_year = oc.tco.value() / s.years;
    idle = oc.idle_device_hour.value();
    if (f.cloud) break_even = break_even_months(oc, oi, usd_per_s(f.cloud->value));
    b.cost.set("capital", oc.capital.value());
  }
  // Cloud over the same life, for the working share of it (what owning is compared with).
  if (f.cloud) cloud_life = cloud_cost(usd_per_s(f.cloud->value), run.gpus * s.years * 365 * 86400 * s.utilisation).value();
  b.cost.set("cloud", cloud);
  b.cost.set("owned_run", owned_run);
  b.cost.set("owned_tco", owned_tco);
  b.cost.set("owned_per_year", owned_year);
  b.cost.set("cloud_lifetime", cloud_life);
  b.cost.set("lifetime_years", s.years);
  b.cost.set("break_even_months", break_even);
  b.cost.set("electricity", b.electricity_usd);
  b.cost.set("idle_gpu_hour", idle);
  b.cost.set("cloud_storage", storage_rent);
  b.cost.set("headline", s.buy ? "owned" : "cloud");
  if (b.electricity_usd) t.add_row({"electricity" + span_name, format_usd(*b.electricity_usd)});
  auto cloud_row = [&] {
    if (cloud)
      t.add_row({"cloud cost" + span_name, fmt::format("{} ({}{} at {}/device-hour)", format_usd(*cloud), f.cloud->provider,
                                                       f.cloud->commitment.empty() ? "" : " " + f.cloud->commitment,
                                                       format_usd(f.cloud->value * 3600))});
  };
  auto owned_rows = [&] {
    if (!owned_run) return;
    if (!per_year) t.add_row({"owned: run's share", format_usd(*owned_run)});
    t.add_row({"owned: idle device-hour", format_usd(*idle)});
  };
  if (s.buy) owned_rows(), cloud_row();
  else cloud_row(), owned_rows();
  // The whole life side by side, one label each: per year and over the amortisation life.
  if (owned_tco) {
    const std::string life = fmt::format("{} years", format_sig(s.years));
    t.add_row({"owned: per year / over " + life, format_usd(*owned_year) + " / " + format_usd(*owned_tco)});
    if (cloud_life)
      t.add_row({"cloud: per year / over " + life + fmt::format(" at {:.0f}% use", s.utilisation * 100),
                 format_usd(*cloud_life / s.years) + " / " + format_usd(*cloud_life)});
    if (f.cloud)
      t.add_row({"buy vs cloud break-even",
                 break_even ? fmt::format("{:.1f} months{}", *break_even, *break_even > s.years * 12 ? " (beyond the " + life + ")" : "")
                            : std::string("never: renting costs less than running the owned cluster")});
  }
  return b;
}

Value assumptions_json(const std::vector<Assumption>& list) {
  Value a = Value::array();
  for (const auto& x : list) {
    Value v = Value::object();
    v.set("name", x.name);
    v.set("value", x.text.empty() ? Value(x.number) : Value(x.text));
    v.set("unit", x.unit);
    v.set("origin", x.origin);
    a.push(v);
  }
  return a;
}

std::string assumption_line(const Assumption& a) {
  return fmt::format("{} = {}{} ({})", a.name, a.text.empty() ? format_sig(a.number, 4) : a.text, a.unit.empty() ? "" : " " + a.unit,
                     a.origin);
}

Value warnings_json(const std::vector<std::string>& list) {
  Value a = Value::array();
  for (const auto& w : list) a.push(w);
  return a;
}

}  // namespace gpuplan
