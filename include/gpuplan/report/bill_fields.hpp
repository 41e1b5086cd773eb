// SPDX-License-Identifier: Apache-2.0
#pragma once
// The field tables of a cluster and its bill (see gpuplan/report/fields.hpp): the JSON objects
// `power`, `fabric` and `cost_usd` of train, infer and power, and the bill's human table.
#include <span>

#include "gpuplan/analysis/facility.hpp"
#include "gpuplan/report/fields.hpp"

namespace gpuplan {

// What the bill's fields read: the facility, the settings, the cluster and the bill of one answer.
struct BillView {
  const Facility& facility;
  const FacilitySettings& settings;
  const ClusterPower& cluster;
  const FacilityBill& bill;
};
std::span<const Field<BillView>> bill_power_fields();   // power.nodes, power.it_kw, ...
std::span<const Field<BillView>> bill_fabric_fields();  // fabric.nics, fabric.tiers, ...
std::span<const Field<BillView>> bill_cost_fields();    // cost_usd.cloud, cost_usd.owned_tco, ...
// The bill as people read it: site, power, racks, fabric, energy, carbon and dollars.
Table bill_table(const BillView& v);

}  // namespace gpuplan
