// SPDX-License-Identifier: Apache-2.0
#pragma once
#include <optional>
// Dollars: renting (device-hours x a quoted rate) and owning (capital amortised over years,
// electricity, facility and staff), with the run's share and the cost of an idle device-hour.
#include <string>
#include <vector>

#include "gpuplan/units.hpp"

namespace gpuplan {

// A price as the catalog (or a flag) gives it, with where it came from.
struct Quote {
  std::string id, provider, commitment, as_of, source;
  double value = 0;  // USD per device-second (cloud) or USD per device (purchase)
  bool from_flag = false;
};

Usd cloud_cost(UsdRate per_device, double device_seconds);

struct OwnedInput {
  int devices = 0;
  Usd capex_per_device = usd(0);
  Usd other_capex = usd(0);       // storage, network ports (when priced)
  double years = 4;
  double utilisation = 1;         // share of the life the cluster does paid work
  Watts facility_avg = watts(0);  // at the wall while working
  Watts facility_idle = watts(0); // at the wall while idle (the rest of the life)
  Watts it_peak = watts(0);       // what a colocation contract bills per kW
  UsdPerJoule electricity = usd_per_joule(0);
  double facility_usd_per_kw_month = 0;
  Usd staff_per_year = usd(0);
};
struct OwnedCost {
  Usd capital = usd(0), electricity = usd(0), facility = usd(0), staff = usd(0);
  Usd tco = usd(0);                 // over the whole life
  UsdRate per_working_s = usd_per_s(0);  // tco over the working seconds
  Usd idle_device_hour = usd(0);    // what an unused device-hour still costs (capital, facility, staff)
};
OwnedCost owned_cost(const OwnedInput& in);
// Months of use after which owning costs less than renting the same device-hours: the capital
// over the monthly saving (cloud rent of the working hours less the owned running costs).
// Empty when renting is never dearer (the saving is not positive).
std::optional<double> break_even_months(const OwnedCost& c, const OwnedInput& in, UsdRate cloud_per_device);
// A figure per million output tokens from its hourly amount (dollars, kWh) and a token rate;
// absent when the hourly amount is unknown or nothing is produced.
inline std::optional<double> per_million_tokens(std::optional<double> per_hour, double tokens_per_s) {
  if (!per_hour || !(tokens_per_s > 0)) return std::nullopt;
  return *per_hour / (tokens_per_s * 3600) * 1e6;
}
// A month of service: a twelfth of a 365-day year.
constexpr double month_s = 365.0 / 12 * 86400;

// A hosted API's list price (catalog kind `apis`): USD per million input and output tokens.
struct ApiOffer {
  std::string id, name, provider, model, as_of, source;  // model: the catalog model served; empty: a closed tier
  double usd_per_m_input = 0, usd_per_m_output = 0;
};
// What a request of `prompt` input and `output` output tokens costs at an API's list price.
inline double api_usd_per_request(const ApiOffer& a, double prompt, double output) {
  return (a.usd_per_m_input * prompt + a.usd_per_m_output * output) / 1e6;
}

// Self-host, rent or pay an API, for a month of a workload: requests at `rate_rps` of `prompt`
// and `output` tokens served by a deployment of capacity `capacity_rps`, owned at `owned` or
// rented at `rented` USD a month (absent where no price is known), beside each API offer.
struct MonthlyCost {
  double requests = 0, input_tokens = 0, output_tokens = 0;  // in the month
  std::optional<double> owned, rented;                      // USD a month
  struct Api {
    ApiOffer offer;
    double usd = 0;  // the month's requests at its list price
  };
  std::vector<Api> apis;  // cheapest first
  // Requests a day above which owning the deployment costs less than the cheapest API; absent
  // with no owned price or API, or when that is beyond what the deployment can serve.
  std::optional<double> break_even_requests_per_day;
  double capacity_requests_per_day = 0;
};
MonthlyCost monthly_cost(double rate_rps, double capacity_rps, double prompt, double output, std::optional<double> owned,
                         std::optional<double> rented, std::vector<ApiOffer> offers);

// The run's share: its wall-clock time at the cost of a working second.
inline Usd owned_run_cost(const OwnedCost& c, Seconds wall) { return c.per_working_s * wall; }

}  // namespace gpuplan
