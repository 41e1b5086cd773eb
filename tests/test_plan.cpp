// SPDX-License-Identifier: Apache-2.0
// Plan constraints and headlines read the typed figures of an answer.
#include <catch2/catch.hpp>

#include "gpuplan/plan/plan.hpp"

using namespace gpuplan;

TEST_CASE("constraints check a training answer's figures", "[plan]") {
  ScenarioFigures f;
  f.cloud_usd = 2.0e6;
  f.owned_usd = 5.0e6;
  f.facility_mw_peak = 0.3;
  f.racks = 12;
  f.gpus = 128;
  f.wall_clock_s = 40 * 86400.0;
  Constraints c;
  c.budget_usd = 3.0e6;
  c.max_facility_mw = 0.25;
  c.deadline_s = 30 * 86400.0;
  c.max_racks = 16;
  c.max_gpus = 128;
  const Verdict rented = check_constraints(c, f, false);
  CHECK_FALSE(rented.pass);
  REQUIRE(rented.reasons.size() == 2);  // power and deadline; the $2M cloud run is in budget
  CHECK(rented.reasons[0] == "facility power 300 kW exceeds the cap of 250 kW");
  CHECK(rented.reasons[1] == "training takes 40.0 d, past the deadline of 30.0 d");
  const Verdict owned = check_constraints(c, f, true);
  REQUIRE(owned.reasons.size() == 3);
  CHECK(owned.reasons[0] == "owned cost of ownership $5.00M exceeds the budget of $3.00M");
  const Headline h = headline_of(f, true);
  CHECK(*h.cost == 5.0e6);
  CHECK(*h.time == Approx(40));
  CHECK(h.time_label == "wall clock (days)");
}

TEST_CASE("a serving budget is a year of the deployment's hourly cost", "[plan]") {
  ScenarioFigures f;
  f.serving = true;
  f.cloud_usd = 100;  // per hour: $876,000 a year
  f.gpus = 8;
  f.usd_per_million_tokens = 1.5;
  f.tpot_s = 0.02;
  Constraints c;
  c.budget_usd = 800000;
  c.deadline_s = 1;  // a training constraint: serving ignores it
  const Verdict v = check_constraints(c, f, false);
  REQUIRE(v.reasons.size() == 1);
  CHECK(v.reasons[0] == "cloud cost per year $876k exceeds the budget of $800k");
  CHECK(check_constraints(c, f, true).reasons[0] ==
        "budget $800k cannot be checked: no owned cost per year (no price in the catalog)");
  const Headline h = headline_of(f, false);
  CHECK(*h.cost == 1.5);
  CHECK(*h.time == 0.02);
}
