// SPDX-License-Identifier: Apache-2.0
#include "gpuplan/analysis/cost.hpp"

namespace gpuplan {

Usd cloud_cost(UsdRate per_device, double device_seconds) { return per_device * seconds(device_seconds); }

OwnedCost owned_cost(const OwnedInput& in) {
  constexpr double year_s = 365.0 * 86400;
  OwnedCost c;
  const Seconds life = seconds(in.years * year_s);
  c.capital = in.capex_per_device * static_cast<double>(in.devices) + in.other_capex;
  // Working at the average draw, idle for the rest of the life at the idle draw.
  c.electricity = (in.facility_avg * life * in.utilisation + in.facility_idle * life * (1 - in.utilisation)) * in.electricity;
  c.facility = usd(in.it_peak.value() / 1000 * in.facility_usd_per_kw_month * 12 * in.years);
  c.staff = in.staff_per_year * in.years;
  c.tco = c.capital + c.electricity + c.facility + c.staff;
  c.per_working_s = c.tco / (life * in.utilisation);
  if (in.devices > 0)
    c.idle_device_hour = (c.capital + c.facility + c.staff) / (in.years * year_s / 3600 * in.devices);
  return c;
}

std::optional<double> break_even_months(const OwnedCost& c, const OwnedInput& in, UsdRate cloud_per_device) {
  constexpr double month_s = 365.0 / 12 * 86400;
  if (in.years <= 0 || in.devices <= 0) return std::nullopt;
  const double rent = cloud_per_device.value() * in.devices * in.utilisation * month_s;
  const double running = (c.electricity + c.facility + c.staff).value() / (in.years * 12);
  if (rent <= running) return std::nullopt;
  return c.capital.value() / (rent - running);
}

}  // namespace gpuplan
