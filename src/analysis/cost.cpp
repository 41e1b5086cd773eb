// SPDX-License-Identifier: Apache-2.0
#include "gpuplan/analysis/cost.hpp"

#include <algorithm>
#include <cmath>

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
  if (in.years <= 0 || in.devices <= 0) return std::nullopt;
  const double rent = cloud_per_device.value() * in.devices * in.utilisation * month_s;
  const double running = (c.electricity + c.facility + c.staff).value() / (in.years * 12);
  if (rent <= running) return std::nullopt;
  return c.capital.value() / (rent - running);
}

MonthlyCost monthly_cost(double rate_rps, double capacity_rps, double prompt, double output, std::optional<double> owned,
                         std::optional<double> rented, std::vector<ApiOffer> offers) {
  MonthlyCost m;
  m.requests = rate_rps * month_s;
  m.input_tokens = m.requests * prompt;
  m.output_tokens = m.requests * output;
  m.owned = owned;
  m.rented = rented;
  m.capacity_requests_per_day = capacity_rps * 86400;
  std::stable_sort(offers.begin(), offers.end(), [&](const ApiOffer& a, const ApiOffer& b) {
    return api_usd_per_request(a, prompt, output) < api_usd_per_request(b, prompt, output);
  });
  for (auto& o : offers) {
    const double usd = m.requests * api_usd_per_request(o, prompt, output);
    m.apis.push_back(MonthlyCost::Api{std::move(o), usd});
  }
  // Owning is a fixed cost a month up to the deployment's capacity; an API's grows with the
  // requests: they cross where the requests pay the owned month at the cheapest API's price.
  if (owned && !m.apis.empty()) {
    const double per_request = api_usd_per_request(m.apis.front().offer, prompt, output);
    const double per_day = per_request > 0 ? *owned / per_request / (month_s / 86400) : HUGE_VAL;
    if (per_day <= m.capacity_requests_per_day) m.break_even_requests_per_day = per_day;
  }
  return m;
}

}  // namespace gpuplan
