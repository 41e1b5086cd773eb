// `gpuplan plan FILE`: evaluate every scenario of a plan file with the train and infer
// commands, check constraints, vary the sensitivity inputs, and report in every format.
#include <chrono>
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
};
Evaluation evaluate(const Catalog& cat, const PlanScenario& ps, const Scenario& s) {
  if (ps.command == "infer") {
    InferEvaluation e = infer_for_plan(cat, s);
    return {std::move(e.data), e.figures, std::nullopt};
  }
  TrainRun run = train_run(cat, s);
  Value data = train_document(run, s, RunOptions{}).data;
  const ScenarioFigures f = figures_of(run);
  return {std::move(data), f, std::move(run)};
}

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
                               l.recompute, l.sequence_parallel, l.offload};
  return s;
}

// Layout searches one evaluation of a scenario may run.
long searches_of(const PlanScenario& ps, const Scenario& s) {
  return ps.command == "train" && s.gpus <= 0 ? plan_deadline_searches : 1;
}

}  // namespace

PlanRun run_plan(const Catalog& base, const std::string& path, const PlanLimits& limits) {
  return run_plan_text(base, read_plan_text(path), path, limits);
}

PlanRun run_plan_text(const Catalog& base, const std::string& text, const std::string& path, const PlanLimits& limits) {
  Plan p = parse_plan(text, path);
  // The work budget, checked before anything runs (a 4 KB plan could otherwise ask for hours).
  std::vector<Scenario> resolved;
  resolved.reserve(p.scenarios.size());
  const long per_scenario = 1 + 2 * static_cast<long>(p.sensitivity.size());
  long work = 0;
  for (const auto& ps : p.scenarios) {
    resolved.push_back(scenario_of(ps));
    work += per_scenario * searches_of(ps, resolved.back());
  }
  if (work > limits.max_searches)
    fail(Exit::data, fmt::format("{}: error: the plan needs up to {} layout searches ({} scenarios, {} evaluations each, "
                                 "up to {} searches where the device count is searched); a plan runs at most {} "
                                 "(--max-searches): sweep fewer values or vary fewer sensitivity inputs",
                                 shown(path), work, p.scenarios.size(), per_scenario, plan_deadline_searches,
                                 limits.max_searches));
  Catalog cat = base;
  std::vector<Diagnostic> diags;
  if (!cat.merge_text(text, path, diags, "catalog")) {
    // One line: the first problem, and how many more there are.
    std::string msg = diags.front().text();
    if (diags.size() > 1) msg += fmt::format(" (and {} more)", diags.size() - 1);
    fail(Exit::data, msg);
  }
  Value report = Value::object();
  report.set("schema_version", json_schema_version);
  report.set("tool", version_string());
  Value plan = Value::object();
  plan.set("title", p.title);
  plan.set("description", p.description);
  plan.set("author", p.author);
  plan.set("date", p.date);
  plan.set("file", path);
  report.set("plan", plan);
  Value scenarios = Value::array();
  PlanRun run;
  int passed = 0;
  std::string cheapest, fastest;
  double best_cost = 0, best_time = 0;
  const auto started = std::chrono::steady_clock::now();
  long done = 0;
  Progress progress("plan", static_cast<int>(p.scenarios.size()));
  for (std::size_t i = 0; i < p.scenarios.size(); ++i) {
    const PlanScenario& ps = p.scenarios[i];
    const Scenario& s = resolved[i];
    progress.next(ps.name);
    Value out = Value::object();
    out.set("name", ps.name);
    out.set("command", ps.command);
    Value settings = Value::object();
    for (const auto& st : ps.settings) settings.set(st.key, st.value);
    Value result;
    std::optional<TrainRun> chosen;
    std::optional<Headline> headline;
    Verdict verdict;
    try {
      Evaluation e = evaluate(cat, ps, s);
      result = std::move(e.data);
      chosen = std::move(e.train);
      verdict = check_constraints(ps.constraints, e.figures, s.bill.buy);
      headline = headline_of(e.figures, s.bill.buy);
    } catch (const Error& e) {
      if (e.code() != Exit::no_answer) rethrow_at(e, ps);
      verdict.pass = false;
      verdict.reasons.push_back(std::string("no answer: ") + e.what());
    }
    out.set("verdict", verdict.pass ? "pass" : "fail");
    Value reasons = Value::array();
    for (const auto& r : verdict.reasons) reasons.push(r);
    out.set("reasons", reasons);
    out.set("settings", settings);
    out.set("cost_headline", s.bill.buy ? "owned" : "cloud");
    out.set("headline", headline ? headline_json(*headline) : Value());
    if (result.type() == Value::Type::object)
      for (const auto& [k, v] : result.members()) out.set(k, v);
    // Sensitivity: each input scaled by 1 -+ its fraction, the rest as given.
    Value sens = Value::array();
    if (result.type() == Value::Type::object) {
      for (const auto& in : p.sensitivity) {
        Value row = Value::object();
        row.set("input", in.name);
        row.set("by", in.by);
        for (const char* side : {"low", "high"}) {
          const double factor = side[0] == 'l' ? 1 - in.by : 1 + in.by;
          Scenario varied = s;
          apply_setting(varied, sensitivity_setting(in.name), fmt::format("{}", factor));
          Headline h;
          try {
            h = headline_of(evaluate(cat, ps, pinned(varied, in.name, chosen)).figures, s.bill.buy);
          } catch (const Error&) {
            // A variation with no answer (nothing fits) leaves its cell empty.
          }
          row.set(fmt::format("cost_{}", side), h.cost);
          row.set(fmt::format("time_{}", side), h.time);
        }
        sens.push(row);
      }
    }
    out.set("sensitivity", sens);
    if (verdict.pass) {
      ++passed;
      const auto [cost, time, cost_label, time_label] = *headline;
      if (cost && (cheapest.empty() || *cost < best_cost)) cheapest = ps.name, best_cost = *cost;
      if (time && (fastest.empty() || *time < best_time)) fastest = ps.name, best_time = *time;
    }
    scenarios.push(out);
    done += per_scenario * searches_of(ps, s);
    if (i == 0 && limits.note && done < work) {
      const std::chrono::duration<double> spent = std::chrono::steady_clock::now() - started;
      const double rest = spent.count() * static_cast<double>(work - done) / static_cast<double>(done);
      if (rest > 10)
        limits.note(fmt::format("{}: {} scenarios, up to {} layout searches: about {} more at the first scenario's pace",
                                shown(path), p.scenarios.size(), work, format_duration(rest)));
    }
  }
  report.set("scenarios", scenarios);
  Value summary = Value::object();
  summary.set("scenarios", static_cast<int>(p.scenarios.size()));
  summary.set("pass", passed);
  summary.set("fail", static_cast<int>(p.scenarios.size()) - passed);
  summary.set("cheapest_passing", cheapest);
  summary.set("fastest_passing", fastest);
  report.set("summary", summary);
  run.all_pass = passed == static_cast<int>(p.scenarios.size());
  run.report = report;
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
