// SPDX-License-Identifier: Apache-2.0
#include "bill.hpp"

#include <cmath>
#include <fmt/format.h>

#include "gpuplan/format.hpp"

namespace gpuplan {

void set_cluster_figures(ScenarioFigures& f, const ClusterPower& c) {
  if (!c.power) return;
  f.facility_mw_peak = c.power->facility_peak.value() / 1e6;
  if (c.power->racks > 0) f.racks = static_cast<double>(c.power->racks);
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
