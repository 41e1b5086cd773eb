// SPDX-License-Identifier: Apache-2.0
#pragma once
// A training run as `train` and plans keep it (the question, its answer, the cluster and its
// bill), and the JSON pieces the commands share.
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/analysis/serving.hpp"
#include "gpuplan/analysis/train.hpp"
#include "gpuplan/plan/plan.hpp"
#include "gpuplan/report/bill_fields.hpp"
#include "gpuplan/report/table.hpp"
#include "gpuplan/scenario.hpp"

namespace gpuplan {


// A training run: the question asked of plan_training, its answer and the bill of its cluster.
// `train` renders it; plans keep it to vary the bill without searching again.
struct TrainRun {
  Job job;
  TrainQuestion question;
  TrainAnswer answer;
  FacilitySettings settings;
  ClusterPower cluster;
  FacilityBill bill;
  std::vector<std::string> warnings;  // the job's, the facility's, the answer's and the cluster's
};
// `reuse`: the answer of a question known to be the same (a plan's scenarios that differ only in
// their bill), in place of searching again.
TrainRun train_run(const Catalog& catalog, const Scenario& s, const TrainAnswer* reuse = nullptr);
struct RunOptions;
Document train_document(const TrainRun& run, const Scenario& s, const RunOptions& o);

// What a plan's constraints and headlines read of a training run.
ScenarioFigures figures_of(const TrainRun& run);
// The cluster's part of them (peak facility power, racks), for training and serving alike.
void set_cluster_figures(ScenarioFigures& f, const ClusterPower& c);
// A plan's infer scenario: the JSON of `infer` and the figures of its typed answer.
struct InferEvaluation {
  Value data;
  ScenarioFigures figures;
  ServingAnswer answer;  // the deployment found, for a question asked again with another bill
};
// `reuse`: the answer of a question known to be the same (scenarios or sensitivity sides that
// differ only in their bill), in place of searching the deployments again.
InferEvaluation infer_for_plan(const Catalog& catalog, const Scenario& s, const ServingAnswer* reuse = nullptr);

Value assumptions_json(const std::vector<Assumption>& list);
// "PUE = 1.56 (sites.us-average: ...)", for --explain.
std::string assumption_line(const Assumption& a);
Value warnings_json(const std::vector<std::string>& list);

}  // namespace gpuplan
