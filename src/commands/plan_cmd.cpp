// SPDX-License-Identifier: Apache-2.0
// `gpuplan plan FILE`: evaluate every scenario of a plan file with the train and infer
// commands, check constraints, vary the sensitivity inputs, and report in every format.
#include <algorithm>
#include <chrono>
#include <map>
#include <fmt/format.h>

#include "bill.hpp"
#include "gpuplan/commands.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/output.hpp"
#include "gpuplan/format.hpp"
#include "gpuplan/plan/plan.hpp"
#include "gpuplan/plan/report.hpp"

namespace gpuplan {
namespace {

// Errors of one scenario as the plan file's errors: the value that caused them when it can be
// found (an unknown id is quoted in the message), else the scenario table.
[[noreturn]] void rethrow_at(const Error& e, const PlanScenario& ps) {
  const std::string msg = e.what();
  for (const auto& s : ps.settings)
    if (msg.find("'" + s.value + "'") != std::string::npos) fail(Exit::data, fmt::format("{}: error: {}", s.where, msg));
  fail(Exit::data, fmt::format("{}: error: scenario '{}': {}", ps.where, ps.name, msg));
}

Scenario scenario_of(const PlanScenario& ps) {
  Scenario s;
  for (const auto& st : ps.settings) {
    try {
      apply_setting(s, st.key, st.value);
    } catch (const Error& e) {
      fail(Exit::data, fmt::format("{}: error: {}", st.where, e.what()));
    }
  }
  return s;
}

// One scenario's answer: its JSON, the figures of its typed answer, and for training the run
// (the count and layout the search chose).
struct Evaluation {
  Value data;
  ScenarioFigures figures;
  std::optional<TrainRun> train;
  std::optional<ServingAnswer> serving;
};
// The answer a question with another bill reuses: a training search's or a serving search's.
struct Known {
  std::optional<TrainAnswer> train;
  std::optional<ServingAnswer> serving;
};
Evaluation evaluate(const Catalog& cat, const PlanScenario& ps, const Scenario& s, const Known* reuse = nullptr) {
  if (ps.command == "infer") {
    InferEvaluation e = infer_for_plan(cat, s, reuse && reuse->serving ? &*reuse->serving : nullptr);
    return {std::move(e.data), e.figures, std::nullopt, std::move(e.answer)};
  }
  TrainRun run = train_run(cat, s, reuse && reuse->train ? &*reuse->train : nullptr);
  Value data = train_document(run, s, RunOptions{}).data;
  const ScenarioFigures f = figures_of(run);
  return {std::move(data), f, std::move(run), std::nullopt};
}
Known known_of(const Evaluation& e) { return Known{e.train ? std::optional<TrainAnswer>(e.train->answer) : std::nullopt, e.serving}; }

Value headline_json(const Headline& h) {
  Value v = Value::object();
  v.set("cost", h.cost);
  v.set("time", h.time);
  v.set("cost_label", h.cost_label);
  v.set("time_label", h.time_label);
  return v;
}

// A sensitivity input that changes only the bill (price, PUE, power) leaves the device count
// and layout the search chose: the variation evaluates that one layout instead of searching
// again. Tokens change the count only when a deadline sets it. Efficiency changes step times,
// and with them which layout is fastest: it searches.
Scenario pinned(const Scenario& varied, const std::string& input, const std::optional<TrainRun>& base) {
  if (!base || input == "mfu" || (input == "tokens" && varied.gpus <= 0)) return varied;
  Scenario s = varied;
  const Layout& l = base->answer.best.layout;
  s.gpus = base->answer.gpus;
  s.deadline_s = 0;
  s.layout = LayoutConstraints{l.tp, l.pp, l.dp, l.cp, l.ep, l.zero, l.micro_batch, l.global_batch, l.interleave,
                               l.recompute, l.sequence_parallel, l.offload,
                               l.recompute_layers > 0 ? std::optional<int>(l.recompute_layers) : std::nullopt};
  return s;
}

// Settings that change what a run costs and draws, never what it trains on or how fast: scenarios
// that differ in these alone ask the layout search the same question.
bool bill_only(std::string_view key) {
  static constexpr std::string_view keys[] = {"price",       "capex",       "cloud",          "committed",   "buy",
                                              "years",       "utilisation", "staff",          "facility-cost", "price-scale",
                                              "pue",         "pue-scale",   "power-scale",    "power-fraction", "site",
                                              "rack-power",  "rack-units",  "api"};
  return std::find(std::begin(keys), std::end(keys), key) != std::end(keys);
}
// A scenario's question without its bill: the key of the answers a plan reuses.
std::string search_key(const PlanScenario& ps) {
  std::string key = ps.command;
  for (const auto& st : ps.settings)
    if (!bill_only(st.key)) key += "\n" + st.key + "=" + st.value;
  return key;
}

// Layout searches one evaluation of a scenario may run.
long searches_of(const PlanScenario& ps, const Scenario& s) {
  return ps.command == "train" && s.gpus <= 0 ? plan_deadline_searches : 1;
}

}  // namespace

PlanRun run_plan(const Catalog& base, const std::string& path, const PlanLimits& limits) {
  return run_plan_text(base, read_plan_text(path), path, limits);
}

namespace {

// Told once, after the first scenario, how long the rest should take when that is long.
void note_pace(const PlanLimits& limits, const std::string& path, std::size_t scenarios, long work, long done,
               std::chrono::steady_clock::time_point started) {
  const std::chrono::duration<double> spent = std::chrono::steady_clock::now() - started;
  const double rest = spent.count() * static_cast<double>(work - done) / static_cast<double>(done);
  if (rest > 10)
    limits.note(fmt::format("{}: {} scenarios, up to {} layout searches: about {} more at the first scenario's pace",
                            shown(path), scenarios, work, format_duration(rest)));
}

// Refuses, before anything runs, a plan whose layout searches exceed the budget (a 4 KB plan
// could otherwise ask for hours). Returns the searches it may run.
long check_budget(const Plan& p, const std::vector<Scenario>& resolved, const std::string& path, const PlanLimits& limits) {
  const long per_scenario = 1 + 2 * static_cast<long>(p.sensitivity.size());
  long work = 0;
  for (std::size_t i = 0; i < p.scenarios.size(); ++i) work += per_scenario * searches_of(p.scenarios[i], resolved[i]);
  if (work > limits.max_searches)
    fail(Exit::data, fmt::format("{}: error: the plan needs up to {} layout searches ({} scenarios, {} evaluations each, "
                                 "up to {} searches where the device count is searched); a plan runs at most {} "
                                 "(--max-searches): sweep fewer values or vary fewer sensitivity inputs",
                                 shown(path), work, p.scenarios.size(), per_scenario, plan_deadline_searches,
                                 limits.max_searches));
  return work;
}

// The built-in catalog with the plan's own records (vendor quotes) merged over it.
Catalog plan_catalog(const Catalog& base, const std::string& text, const std::string& path) {
  Catalog cat = base;
  std::vector<Diagnostic> diags;
  if (!cat.merge_text(text, path, diags, "catalog")) {
    // One line: the first problem, and how many more there are.
    std::string msg = diags.front().text();
    if (diags.size() > 1) msg += fmt::format(" (and {} more)", diags.size() - 1);
    fail(Exit::data, msg);
  }
  return cat;
}

Value plan_json(const Plan& p, const std::string& path) {
  Value plan = Value::object();
  plan.set("title", p.title);
  plan.set("description", p.description);
  plan.set("author", p.author);
  plan.set("date", p.date);
  plan.set("file", path);
  return plan;
}

// Each sensitivity input scaled by 1 -+ its fraction, the rest as given: the headline of each
// side (empty where the variation has no answer, such as nothing fitting).
Value sensitivity_json(const Catalog& cat, const PlanScenario& ps, const Scenario& s,
                       const std::vector<SensitivityInput>& inputs, const std::optional<TrainRun>& chosen,
                       const Known& base) {
  Value sens = Value::array();
  for (const auto& in : inputs) {
    Value row = Value::object();
    row.set("input", in.name);
    row.set("by", in.by);
    for (const char* side : {"low", "high"}) {
      Scenario varied = s;
      // 12 significant digits: 1 - 0.9 is 0.09999999999999998 in binary, and means 0.1.
      apply_setting(varied, sensitivity_setting(in.name), fmt::format("{:.12g}", side[0] == 'l' ? 1 - in.by : 1 + in.by));
      Headline h;
      try {
        // A serving deployment answers the same whatever the bill: an input that scales the bill
        // alone reuses it (training pins its layout, above, as tokens may move its count).
        const bool bill = bill_only(sensitivity_setting(in.name));
        h = headline_of(evaluate(cat, ps, pinned(varied, in.name, chosen), ps.command == "infer" && bill ? &base : nullptr).figures,
                        s.bill.buy);
      } catch (const Error&) {
      }
      row.set(fmt::format("cost_{}", side), h.cost);
      row.set(fmt::format("time_{}", side), h.time);
    }
    sens.push(row);
  }
  return sens;
}

// One scenario: its settings, answer, verdict against its constraints, headline and sensitivity.
struct ScenarioOutcome {
  Value json;
  bool pass = false;
  std::optional<Headline> headline;
};
// The answers of the plan's questions so far, by search_key.
using Answers = std::map<std::string, Known>;
ScenarioOutcome run_scenario(const Catalog& cat, const PlanScenario& ps, const Scenario& s,
                             const std::vector<SensitivityInput>& inputs, Answers& answers) {
  ScenarioOutcome o;
  Value result;
  std::optional<TrainRun> chosen;
  Known base;  // this scenario's answer, for the sensitivity sides that change only the bill
  Verdict verdict;
  try {
    const std::string key = search_key(ps);
    const auto known = answers.find(key);
    Evaluation e = evaluate(cat, ps, s, known == answers.end() ? nullptr : &known->second);
    base = known_of(e);
    if (known == answers.end()) answers.emplace(key, base);
    result = std::move(e.data);
    chosen = std::move(e.train);
    verdict = check_constraints(ps.constraints, e.figures, s.bill.buy);
    o.headline = headline_of(e.figures, s.bill.buy);
  } catch (const Error& e) {
    if (e.code() != Exit::no_answer) rethrow_at(e, ps);
    verdict.pass = false;
    verdict.reasons.push_back(std::string("no answer: ") + e.what());
  }
  o.pass = verdict.pass;
  Value& out = o.json = Value::object();
  out.set("name", ps.name);
  out.set("command", ps.command);
  out.set("verdict", verdict.pass ? "pass" : "fail");
  Value reasons = Value::array();
  for (const auto& r : verdict.reasons) reasons.push(r);
  out.set("reasons", reasons);
  Value settings = Value::object();
  for (const auto& st : ps.settings) settings.set(st.key, st.value);
  out.set("settings", settings);
  out.set("cost_headline", s.bill.buy ? "owned" : "cloud");
  out.set("headline", o.headline ? headline_json(*o.headline) : Value());
  if (result.type() == Value::Type::object)
    for (const auto& [k, v] : result.members()) out.set(k, v);
  out.set("sensitivity", result.type() == Value::Type::object ? sensitivity_json(cat, ps, s, inputs, chosen, base) : Value::array());
  return o;
}

}  // namespace

PlanRun run_plan_text(const Catalog& base, const std::string& text, const std::string& path, const PlanLimits& limits) {
  const Plan p = parse_plan(text, path);
  std::vector<Scenario> resolved;
  for (const auto& ps : p.scenarios) resolved.push_back(scenario_of(ps));
  const long work = check_budget(p, resolved, path, limits);
  const Catalog cat = plan_catalog(base, text, path);
  Value scenarios = Value::array();
  int passed = 0;
  std::optional<std::pair<double, std::string>> cheapest, fastest;  // the best passing headline and its scenario
  const auto started = std::chrono::steady_clock::now();
  Progress progress("plan", static_cast<int>(p.scenarios.size()));
  Answers answers;
  for (std::size_t i = 0; i < p.scenarios.size(); ++i) {
    progress.next(p.scenarios[i].name);
    ScenarioOutcome o = run_scenario(cat, p.scenarios[i], resolved[i], p.sensitivity, answers);
    if (o.pass) {
      ++passed;
      const std::string& name = p.scenarios[i].name;
      if (o.headline->cost && (!cheapest || *o.headline->cost < cheapest->first)) cheapest.emplace(*o.headline->cost, name);
      if (o.headline->time && (!fastest || *o.headline->time < fastest->first)) fastest.emplace(*o.headline->time, name);
    }
    scenarios.push(std::move(o.json));
    const long done = (1 + 2 * static_cast<long>(p.sensitivity.size())) * searches_of(p.scenarios[i], resolved[i]);
    if (i == 0 && limits.note && done < work) note_pace(limits, path, p.scenarios.size(), work, done, started);
  }
  Value summary = Value::object();
  summary.set("scenarios", static_cast<int>(p.scenarios.size()));
  summary.set("pass", passed);
  summary.set("fail", static_cast<int>(p.scenarios.size()) - passed);
  summary.set("cheapest_passing", cheapest ? cheapest->second : std::string());
  summary.set("fastest_passing", fastest ? fastest->second : std::string());
  PlanRun run;
  run.report = Value::object();
  run.report.set("schema_version", json_schema_version);
  run.report.set("tool", version_string());
  run.report.set("plan", plan_json(p, path));
  run.report.set("scenarios", scenarios);
  run.report.set("summary", summary);
  run.all_pass = passed == static_cast<int>(p.scenarios.size());
  return run;
}

std::string render_plan(const PlanRun& run, const std::string& format, std::size_t max_width) {
  if (format == "html") return plan_html(run.report);
  if (format == "csv") return plan_csv(run.report);
  const Format f = parse_format(format);
  if (f == Format::json) return to_json(run.report) + "\n";
  // A header saying what the plan is, then the tables.
  const Value& plan = *run.report.find("plan");
  auto field = [&](const char* k) { return plan.find(k)->as_string(); };
  std::string who;
  for (const char* k : {"author", "date", "file"})
    if (!field(k).empty()) who += (who.empty() ? "" : " · ") + field(k);
  // Titles and descriptions are the plan author's text: escaped for the format, one line each.
  const std::string title = field("title").empty() ? field("file") : field("title");
  std::string head;
  if (f == Format::markdown) {
    head = "# " + markdown_text(title) + "\n\n";
    if (!field("description").empty()) head += markdown_text(field("description")) + "\n\n";
    head += "_" + markdown_text(who + " · " + version_string()) + "_\n\n";
  } else if (f == Format::table) {
    head = printable(title) + "\n";
    if (!field("description").empty()) head += printable(field("description")) + "\n";
    head += printable(who) + "\n\n";
  }
  return head + render(plan_document(run.report), f, max_width);
}

}  // namespace gpuplan
