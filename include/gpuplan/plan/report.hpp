// SPDX-License-Identifier: Apache-2.0
#pragma once
// Reports of an evaluated plan (the JSON tree run_plan builds): a side-by-side table, Markdown,
// CSV with stable columns, and one self-contained HTML page with inline SVG charts.
#include <string>

#include "gpuplan/report/table.hpp"

namespace gpuplan {

Document plan_document(const Value& report);  // table and markdown share the tables
std::string plan_csv(const Value& report);
std::string plan_html(const Value& report);
// A value of the report by dotted path; a scenario may be named instead of indexed
// ("scenarios.h100-owned.cost_usd.owned_tco"). nullptr when nothing matches.
const Value* plan_get(const Value& report, const std::string& path);

}  // namespace gpuplan
