#pragma once
// The bill of a cluster running a job: power, racks, fabric, storage, energy, carbon and
// dollars, as JSON members and tables. Shared by `train` and `power` (and serving).
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/analysis/train.hpp"
#include "gpuplan/report/table.hpp"
#include "gpuplan/scenario.hpp"

namespace gpuplan {


struct ClusterPower {
  long nodes = 0;
  Fabric fabric;
  std::optional<Power> power;  // absent when the device has no power figure
  long storage_units = 0;
  Watts storage_power = watts(0);
  std::vector<std::string> warnings;  // what cannot be built as asked (racks, fabric, cooling)
};
ClusterPower cluster_of(const Facility& f, const Scenario& s, int gpus, long storage_units);

struct RunFacts {
  int gpus = 0;
  Seconds wall = seconds(0);  // wall-clock of the run (0: a facility with no run, per year)
  double comm_fraction = -1;  // exposed communication share of a step; < 0 when unknown
  double storage_bytes = 0;   // what the run keeps on storage (dataset and checkpoints)
};

struct Bill {
  Value power, fabric, cost;
  std::optional<double> energy_mwh, co2_t, electricity_usd;
  Table table;
};
Bill make_bill(const Facility& f, const Scenario& s, const ClusterPower& c, const RunFacts& run);

// A training run: the question asked of plan_training, its answer and the bill of its cluster.
// `train` renders it; plans keep it to vary the bill without searching again.
struct TrainRun {
  Job job;
  TrainQuestion question;
  TrainAnswer answer;
  ClusterPower cluster;
  Bill bill;
  std::vector<std::string> warnings;  // the job's, the facility's, the answer's and the cluster's
};
TrainRun train_run(const Catalog& catalog, const Scenario& s);
struct RunOptions;
Document train_document(const TrainRun& run, const Scenario& s, const RunOptions& o);

Value assumptions_json(const std::vector<Assumption>& list);
// "PUE = 1.56 (sites.us-average: ...)", for --explain.
std::string assumption_line(const Assumption& a);
Value warnings_json(const std::vector<std::string>& list);

}  // namespace gpuplan
