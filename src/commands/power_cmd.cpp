// SPDX-License-Identifier: Apache-2.0
// `gpuplan power`: a facility of N devices at a site, running all year.
#include <fmt/format.h>

#include "bill.hpp"
#include "gpuplan/records.hpp"
#include "gpuplan/analysis/device.hpp"
#include "gpuplan/commands.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/format.hpp"

namespace gpuplan {

Document run_power(const Catalog& catalog, const Scenario& s, const RunOptions& o) {
  if (s.gpus <= 0) fail(Exit::usage, "power needs --gpus N (and --gpu ID, default h100-sxm)");
  const Device d = resolve_scenario_device(s, catalog);
  const Facility f = resolve_facility(s, catalog, d);
  const long storage_units = s.storage_units > 0 ? s.storage_units : (f.storage ? 1 : 0);
  const ClusterPower c = cluster_of(f, s.bill, s.gpus, storage_units);
  const FacilityBill b = facility_bill(f, s.bill, c, RunFacts{s.gpus, seconds(0), -1});
  const BillView bill{f, s.bill, c, b};
  Value v = Value::object();
  v.set("gpu", d.id);
  v.set("gpus", s.gpus);
  v.set("site", f.site.id);
  v.set("power", fields_object(bill_power_fields(), bill));
  v.set("fabric", fields_object(bill_fabric_fields(), bill));
  v.set("energy_mwh_per_year", b.energy_mwh);
  v.set("co2_t_per_year", b.co2_t);
  v.set("cost_usd_per_year", fields_object(bill_cost_fields(), bill));
  v.set("assumptions", assumptions_json(f.assumptions));
  std::vector<std::string> warnings = f.all_warnings();
  warnings.insert(warnings.end(), c.warnings.begin(), c.warnings.end());
  v.set("warnings", warnings_json(warnings));
  Document doc;
  doc.data = v;
  Table t = bill_table(bill);
  t.title = fmt::format("{} x {} ({} node{} of {} at {}{}{})", s.gpus, d.id, c.nodes, c.nodes == 1 ? "" : "s",
                        f.node.devices, format_si(f.node.max_power.value(), "W"), f.node.estimate ? ", estimated" : "",
                        s.gpus < c.nodes * f.node.devices
                            ? fmt::format("; the power of {} of its {} devices", s.gpus, c.nodes * f.node.devices)
                            : std::string());
  doc.tables.push_back(t);
  doc.warnings = warnings;
  if (o.explain)
    for (const auto& a : f.assumptions)
      doc.lines.push_back(assumption_line(a));
  return doc;
}

}  // namespace gpuplan
