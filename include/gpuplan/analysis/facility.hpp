// SPDX-License-Identifier: Apache-2.0
#pragma once
// The facility side of a job and its bill, as typed answers: the cluster a count of devices
// makes (nodes, racks, fabric, power), then what running it costs over a run or a year
// (energy, carbon, cloud and owned cost, break-even). Pure: the facility comes resolved from
// the catalog, the settings as plain numbers; nothing here reads a catalog, names a flag or prints.
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/analysis/cost.hpp"
#include "gpuplan/analysis/power.hpp"
#include "gpuplan/analysis/storage.hpp"
#include "gpuplan/analysis/device.hpp"

namespace gpuplan {

// One input of a result, for the assumptions list: its value, unit and where it came from
// (a catalog record and its source, a documented default, or a flag).
struct Assumption {
  std::string name;
  double number = 0;
  std::string text;  // used instead of number when not empty
  std::string unit;
  std::string origin;
};

// The facility side of a job, resolved from the site, server, interconnect, storage and
// price records.
struct Facility {
  Site site;
  NodeSpec node;
  double power_fraction = default_power_fraction;
  Link scale_out;
  int nics_per_node = 0;  // scale-out NICs per node (0: one per device, rail-optimised)
  std::optional<StorageSystem> storage;
  std::optional<Quote> cloud, purchase;
  std::vector<Assumption> assumptions;
  std::vector<std::string> warnings;
  std::vector<std::string> cost_warnings;  // prices the catalog lacks (moot for a laptop question)
  // Both, for a command that shows the bill.
  std::vector<std::string> all_warnings() const {
    std::vector<std::string> w = warnings;
    w.insert(w.end(), cost_warnings.begin(), cost_warnings.end());
    return w;
  }
};

// What of a question the bill reads besides the facility.
struct FacilitySettings {
  double oversubscription = 1;  // scale-out fabric, down:up at the leaves
  bool site_given = false;      // false: the default national-average site (worth a warning at campus scale)
  double utilisation = 1;       // share of an owned cluster's life doing paid work
  double years = 4;             // amortisation life
  Usd staff_per_year = usd(0);
  bool buy = false;             // owned is the headline cost
};

// The cluster of `gpus` devices: nodes, fabric, power and racks, storage units, and what cannot
// be built as asked (racks over budget, fabrics beyond three tiers, nodes taller than racks).
struct ClusterPower {
  long nodes = 0;
  Fabric fabric;
  std::optional<Power> power;  // absent when the device has no power figure
  long storage_units = 0;
  Watts storage_power = watts(0);
  std::vector<std::string> warnings;
};
ClusterPower cluster_of(const Facility& f, const FacilitySettings& s, int gpus, long storage_units);

struct RunFacts {
  int gpus = 0;
  Seconds wall = seconds(0);  // wall-clock of the run (0: a facility with no run, per year)
  double comm_fraction = -1;  // exposed communication share of a step; < 0 when unknown
  double storage_bytes = 0;   // what the run keeps on storage (dataset and checkpoints)
};

// Dollars of a run (or of a year, for a facility with no run); each absent where a price or a
// power figure is missing. USD.
struct BillCost {
  std::optional<double> capital;          // devices, priced network ports and storage
  std::optional<double> cloud;            // renting the devices (and object storage) for the span
  std::optional<double> owned_run;        // the span's share of owning (cost of ownership per device-second)
  std::optional<double> owned_tco;        // owning over the whole life
  std::optional<double> owned_per_year;   // owned_tco / years
  std::optional<double> cloud_lifetime;   // renting for the working share of the same life
  std::optional<double> cloud_per_year;   // cloud_lifetime / years
  std::optional<double> break_even_months;  // when owning has cost less than renting; absent: never
  std::optional<double> electricity;      // the span's energy at the site's price
  std::optional<double> idle_gpu_hour;    // what an owned device-hour costs when it does no work
  std::optional<double> cloud_storage;    // object storage rented for the span
  double lifetime_years = 0;
  bool owned_headline = false;            // owned is the figure to quote (else cloud)
};

struct FacilityBill {
  bool per_year = false;     // a facility's year (no run): the energy counts idle time at its draw
  Seconds span = seconds(0); // the run's wall clock, or a year
  std::optional<double> energy_mwh, co2_t;  // facility energy and carbon over the span (t CO2e)
  double comm_fraction = -1;  // the run's exposed communication share (< 0: unknown)
  BillCost cost;
};
FacilityBill facility_bill(const Facility& f, const FacilitySettings& s, const ClusterPower& c, const RunFacts& run);

}  // namespace gpuplan
