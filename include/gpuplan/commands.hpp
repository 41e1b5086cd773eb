// SPDX-License-Identifier: Apache-2.0
#pragma once
// The subcommands, as plain functions of plain option structs. Only src/cli.cpp knows
// CLI11; it fills these structs, calls run_*, and renders the returned Document.
#include <functional>
#include <string>
#include <vector>

#include "gpuplan/catalog/catalog.hpp"
#include "gpuplan/report/table.hpp"

namespace gpuplan {

struct CatalogListOptions {
  std::string kind;
};
struct CatalogShowOptions {
  std::string id;
  std::string kind;  // optional: restrict to one kind
};

Document run_catalog_list(const Catalog& catalog, const CatalogListOptions& opts);
Document run_catalog_show(const Catalog& catalog, const CatalogShowOptions& opts);
// Validates files on top of the built-in catalog; returns the report and sets ok.
Document run_catalog_check(const std::vector<std::string>& files, bool& ok);
Document run_catalog_paths(const std::vector<std::string>& extra);
// The catalog record (TOML) a model file gives, checked as a catalog file's would be.
std::string run_catalog_import(const std::string& path);

}  // namespace gpuplan

#include "gpuplan/scenario.hpp"

namespace gpuplan {

struct RunOptions {
  bool explain = false;
  bool min_gpus = false;  // memory --min-gpus
  bool stats = false;     // search --stats
  int top = 10;
};

// gpuplan memory: the breakdown of one layout, or the fewest devices that fit.
Document run_memory(const Catalog& catalog, const Scenario& s, const RunOptions& o);
// gpuplan train: best layout on --gpus devices (or the fewest meeting --weeks), and the time.
Document run_train(const Catalog& catalog, const Scenario& s, const RunOptions& o);
// gpuplan search: the ranked layouts on --gpus devices.
Document run_search(const Catalog& catalog, const Scenario& s, const RunOptions& o);

// gpuplan power: a facility of --gpus devices at a site, per year.
Document run_power(const Catalog& catalog, const Scenario& s, const RunOptions& o);

// gpuplan infer: fit and speed on one device, a fixed deployment, or the devices for a load.
Document run_infer(const Catalog& catalog, const Scenario& s, const RunOptions& o);

// gpuplan probe: measures this machine and returns a calibration file (TOML).
struct ProbeOptionsCli {
  std::string device = "auto";  // auto, cpu or cuda
  bool quick = false;
  std::string as;               // catalog accelerator id the file calibrates
};
// Warnings (a GEMM curve that fell back to the default shape) are appended to `warnings`.
std::string run_probe(const Catalog& catalog, const ProbeOptionsCli& o, std::vector<std::string>& warnings);
// gpuplan probe --compare FILE: measured against the catalog's figures.
Document run_probe_compare(const Catalog& catalog, const std::string& path);

// gpuplan plan FILE: every scenario evaluated, with verdicts and sensitivity.
struct PlanRun {
  Value report;
  bool all_pass = true;
};
// What a plan may cost: every scenario's evaluations (1, plus 2 per sensitivity input) times
// the layout searches of each (1 at a fixed count or for serving; up to
// plan_deadline_searches when the count is searched for a deadline or for memory).
constexpr long plan_deadline_searches = 40;  // 17 doublings to max_deadline_units, 17 halvings, 6 card counts below a node
constexpr long default_plan_searches = 20000;
constexpr long max_plan_searches = 10000000;
struct PlanLimits {
  long max_searches = default_plan_searches;  // refused, before any runs, above this
  // Told once, after the first scenario, how long the rest should take when that is long.
  std::function<void(const std::string&)> note;
};
PlanRun run_plan(const Catalog& catalog, const std::string& path, const PlanLimits& limits = {});
// The same on a plan's text (the fuzzer's entry point; path names it in messages).
PlanRun run_plan_text(const Catalog& catalog, const std::string& text, const std::string& path,
                      const PlanLimits& limits = {});
// table, markdown, csv, json or html; tables wrap to max_width when it is not 0.
std::string render_plan(const PlanRun& run, const std::string& format, std::size_t max_width = 0);

// gpuplan settings: the settings table (the commands in the mask only).
Document run_settings(unsigned commands);
// The settings table as the man page gpuplan-settings(7), in roff (the build installs it).
std::string settings_man_page();

// "gpuplan 0.1.0"
const char* version_string();

// Shared JSON pieces.
Value layout_json(const Layout& l);
struct InferMemory;
void set_infer_memory_json(Value& v, const InferMemory& mem);
std::string fit_text(const InferMemory& mem, int layers, const std::string& host);

}  // namespace gpuplan
