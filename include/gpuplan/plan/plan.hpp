// SPDX-License-Identifier: Apache-2.0
#pragma once
// Plan files: a procurement review's scenarios in one TOML file. [plan] describes it,
// [defaults] holds settings every scenario shares, [[scenario]] tables add or override
// settings (a setting is a CLI flag's name and value, applied by the same apply_setting), list
// values sweep (cartesian, or zip on request), [constraints] give each scenario a verdict,
// [catalog.KIND.ID] adds inline records, [sensitivity] varies inputs for a tornado table.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuplan/report/value.hpp"

namespace gpuplan {

struct PlanSetting {
  std::string key, value;
  std::string where;  // "file:line:col" of the value
};

struct Constraints {
  std::optional<double> budget_usd, max_facility_mw, deadline_s, max_racks, max_gpus;
};

struct PlanScenario {
  std::string name;
  std::string command = "train";  // train or infer
  std::vector<PlanSetting> settings;
  Constraints constraints;
  std::string where;
};

// Inputs a sensitivity study may vary, each by +- a fraction, and the setting that scales it.
struct SensitivityInput {
  std::string name;  // mfu, price, pue, tokens, power
  double by = 0;
};

struct Plan {
  std::string path, title, description, author, date;
  std::vector<PlanScenario> scenarios;
  std::vector<SensitivityInput> sensitivity;
};

// Largest plan file and largest sweep accepted.
constexpr std::size_t max_plan_bytes = 1 << 20;
constexpr std::size_t max_plan_scenarios = 500;

// Parses and expands a plan; errors are Error(data) "file:line:col: error: ...".
Plan parse_plan(std::string_view text, const std::string& path);
// Reads a plan file: Error(no_input) when missing or a directory; Error(data) when too large or binary.
std::string read_plan_text(const std::string& path);

// The setting that scales a sensitivity input ("mfu" -> "efficiency-scale").
std::string sensitivity_setting(const std::string& input);

struct Verdict {
  bool pass = true;
  std::vector<std::string> reasons;
};
// What constraints and headlines read of one scenario's answer, taken from the typed answer
// (train's run or infer's deployment), never from its JSON. Absent: the answer has no such figure.
struct ScenarioFigures {
  bool serving = false;
  // Training: the run rented, and owning the cluster over its life. Serving: an hour of the
  // deployment rented, and an hour's share of owning it. USD.
  std::optional<double> cloud_usd, owned_usd;
  std::optional<double> facility_mw_peak, racks;
  double gpus = 0;
  std::optional<double> wall_clock_s;                    // training
  std::optional<double> usd_per_million_tokens, tpot_s;  // serving
};
Verdict check_constraints(const Constraints& c, const ScenarioFigures& f, bool owned);

// The headline cost and time of a scenario's result, what the tornado and the charts report and
// what "cheapest" and "fastest" compare: serving, $ per million tokens and time per output token;
// training, the owned cost of ownership (or the cloud cost) and the wall clock in days.
struct Headline {
  std::optional<double> cost, time;
  std::string cost_label, time_label;
};
Headline headline_of(const ScenarioFigures& f, bool owned);

// A commented template for `gpuplan plan --init`.
std::string plan_template();

}  // namespace gpuplan
