// SPDX-License-Identifier: Apache-2.0
#include "gpuplan/plan/plan.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <sstream>
#include "../toml_parse.hpp"

#include "gpuplan/error.hpp"
#include "gpuplan/format.hpp"
#include "gpuplan/output.hpp"
#include "gpuplan/quantity.hpp"
#include "gpuplan/scenario.hpp"

namespace gpuplan {
namespace {

std::string where(const toml::source_region& r, const std::string& path) { return toml_where(r, path); }
[[noreturn]] void bad(const toml::node& n, const std::string& path, const std::string& what) {
  fail(Exit::data, fmt::format("{}: error: {}", where(n.source(), path), what));
}
[[noreturn]] void bad_key(const toml::key& k, const std::string& path, const std::string& what) {
  fail(Exit::data, fmt::format("{}: error: {}", where(k.source(), path), what));
}

const char* type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a number";
    case toml::node_type::boolean: return "a boolean";
    default: return "a date or time";
  }
}

// A scalar as the text a command-line flag would carry.
std::optional<std::string> scalar_text_of(const toml::node& n) {
  if (auto s = n.value<std::string>()) return *s;
  if (n.is_integer()) return fmt::format("{}", *n.value<int64_t>());
  if (n.is_floating_point()) return fmt::format("{}", *n.value<double>());
  if (auto b = n.value<bool>()) return *b ? "true" : "false";
  if (n.is_date()) {
    const auto d = *n.value<toml::date>();
    return fmt::format("{:04}-{:02}-{:02}", d.year, d.month, d.day);
  }
  return std::nullopt;
}

std::string text_field(const toml::table& t, std::string_view key, const std::string& path) {
  const toml::node* n = t.get(key);
  if (!n) return {};
  if (auto s = scalar_text_of(*n); s && !n->is_array()) return *s;
  bad(*n, path, fmt::format("'{}' must be a string, not {}", key, type_name(*n)));
}

void check_keys(const toml::table& t, const std::vector<std::string>& allowed, const std::string& path, const char* what) {
  for (const auto& [k, v] : t) {
    std::string key(k.str());
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    std::string hint = suggest(key, allowed);
    bad_key(k, path, fmt::format("unknown key '{}' in {}{}", key, what, hint.empty() ? "" : "; did you mean '" + hint + "'?"));
  }
}

double number_of(const toml::node& n, QuantityKind kind, const std::string& path, const char* key) {
  if (n.is_integer() || n.is_floating_point()) {
    const double v = n.is_integer() ? static_cast<double>(*n.value<int64_t>()) : *n.value<double>();
    if (!std::isfinite(v) || v < 0) bad(n, path, fmt::format("'{}' must be a non-negative number", key));
    return v;
  }
  if (auto s = n.value<std::string>()) {
    try {
      return parse_quantity(*s, kind);
    } catch (const QuantityError& e) {
      bad(n, path, fmt::format("'{}': {}", key, e.what()));
    }
  }
  bad(n, path, fmt::format("'{}' must be {}, not {}", key, describe(kind), type_name(n)));
}

Constraints parse_constraints(const toml::table& t, const std::string& path, Constraints base) {
  check_keys(t, {"budget_usd", "max_facility_mw", "deadline", "max_racks", "max_gpus"}, path, "[constraints]");
  for (const auto& [k, v] : t) {
    const std::string key(k.str());
    if (key == "budget_usd") base.budget_usd = number_of(v, QuantityKind::money, path, "budget_usd");
    else if (key == "max_facility_mw") base.max_facility_mw = number_of(v, QuantityKind::real, path, "max_facility_mw");
    else if (key == "deadline") {
      if (v.is_integer() || v.is_floating_point()) bad(v, path, "'deadline' must be a duration such as \"8w\" or \"30d\"");
      base.deadline_s = number_of(v, QuantityKind::duration, path, "deadline");
    } else if (key == "max_racks") base.max_racks = number_of(v, QuantityKind::count, path, "max_racks");
    else if (key == "max_gpus") base.max_gpus = number_of(v, QuantityKind::count, path, "max_gpus");
  }
  return base;
}

std::string slug(std::string s) {
  std::string out;
  for (char c : s) {
    const char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out += (std::isalnum(static_cast<unsigned char>(l)) || l == '.') ? l : '-';
  }
  return out;
}

bool valid_name(const std::string& s) {
  if (s.empty() || s.size() > 80) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_';
  });
}

// One setting key of a table, as a scalar or a sweep (array of scalars).
struct RawSetting {
  std::string key;
  std::vector<std::string> values;  // more than one: a sweep
  bool sweep = false;
  std::vector<std::string> wheres;
};

std::vector<RawSetting> settings_of(const toml::table& t, const std::string& path, const std::vector<std::string>& skip) {
  std::vector<std::string> allowed = setting_names();
  allowed.insert(allowed.end(), skip.begin(), skip.end());
  std::vector<RawSetting> out;
  for (const auto& [k, v] : t) {
    const std::string key(k.str());
    if (std::find(skip.begin(), skip.end(), key) != skip.end()) continue;
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      std::string hint = suggest(key, allowed);
      bad_key(k, path, fmt::format("unknown setting '{}'{}", key, hint.empty() ? "" : "; did you mean '" + hint + "'?"));
    }
    RawSetting r{key, {}, false, {}};
    if (const auto* arr = v.as_array()) {
      if (arr->empty()) bad(v, path, fmt::format("'{}' sweeps an empty list", key));
      r.sweep = true;
      for (const auto& item : *arr) {
        auto s = scalar_text_of(item);
        if (!s || item.is_array() || item.is_table())
          bad(item, path, fmt::format("'{}' lists {}; a sweep lists strings, numbers or booleans", key, type_name(item)));
        r.values.push_back(*s);
        r.wheres.push_back(where(item.source(), path));
      }
    } else {
      auto s = scalar_text_of(v);
      if (!s || v.is_table()) bad(v, path, fmt::format("'{}' must be a string, number or boolean, not {}", key, type_name(v)));
      r.values.push_back(*s);
      r.wheres.push_back(where(v.source(), path));
    }
    out.push_back(r);
  }
  std::vector<std::string> keys;
  for (const auto& r : out) keys.push_back(r.key);
  if (const std::string c = conflict_among(keys); !c.empty())
    fail(Exit::data, fmt::format("{}: error: {} (in one table)", out.back().wheres[0], c));
  return out;
}

// Checks each value the way the command line would, pointing at the value on error.
void validate_values(const std::vector<RawSetting>& raw) {
  for (const auto& r : raw)
    for (std::size_t i = 0; i < r.values.size(); ++i) {
      Scenario probe;
      try {
        apply_setting(probe, r.key, r.values[i]);
      } catch (const Error& e) {
        std::string msg = e.what();
        fail(Exit::data, fmt::format("{}: error: {}", r.wheres[i], msg));
      }
    }
}

}  // namespace

std::string sensitivity_setting(const std::string& input) {
  if (input == "mfu") return "efficiency-scale";
  if (input == "price") return "price-scale";
  if (input == "pue") return "pue-scale";
  if (input == "tokens") return "tokens-scale";
  if (input == "power") return "power-scale";
  return {};
}

Plan parse_plan(std::string_view text, const std::string& path) {
  toml::table doc;
  try {
    doc = parse_toml(text, path);
  } catch (const TomlSyntax& e) {
    fail(Exit::data, fmt::format("{}: error: {}", e.where, e.message));
  }
  check_keys(doc, {"plan", "defaults", "constraints", "scenario", "catalog", "sensitivity"}, path, "the plan file");
  Plan p;
  p.path = path;
  std::string sweep_mode = "cartesian";
  if (const toml::node* n = doc.get("plan")) {
    const auto* t = n->as_table();
    if (!t) bad(*n, path, "'plan' must be a table ([plan])");
    check_keys(*t, {"title", "description", "author", "date", "sweep"}, path, "[plan]");
    p.title = text_field(*t, "title", path);
    p.description = text_field(*t, "description", path);
    p.author = text_field(*t, "author", path);
    p.date = text_field(*t, "date", path);
    if (t->get("sweep")) {
      sweep_mode = text_field(*t, "sweep", path);
      if (sweep_mode != "cartesian" && sweep_mode != "zip")
        bad(*t->get("sweep"), path, fmt::format("sweep '{}' is not known; expected cartesian or zip", sweep_mode));
    }
  }
  std::vector<RawSetting> defaults;
  std::string default_command = "train";
  if (const toml::node* n = doc.get("defaults")) {
    const auto* t = n->as_table();
    if (!t) bad(*n, path, "'defaults' must be a table ([defaults])");
    for (const auto& [k, v] : *t)
      if (v.is_table()) bad(v, path, fmt::format("'{}' in [defaults] must be a setting, not a table", k.str()));
    defaults = settings_of(*t, path, {"command"});
    if (t->get("command")) default_command = text_field(*t, "command", path);
  }
  Constraints plan_constraints;
  if (const toml::node* n = doc.get("constraints")) {
    const auto* t = n->as_table();
    if (!t) bad(*n, path, "'constraints' must be a table ([constraints])");
    plan_constraints = parse_constraints(*t, path, {});
  }
  if (const toml::node* n = doc.get("sensitivity")) {
    const auto* t = n->as_table();
    if (!t) bad(*n, path, "'sensitivity' must be a table ([sensitivity]) of input = fraction");
    check_keys(*t, {"mfu", "price", "pue", "tokens", "power"}, path, "[sensitivity]");
    for (const auto& [k, v] : *t) {
      const double by = number_of(v, QuantityKind::fraction, path, std::string(k.str()).c_str());
      // The low side scales the input by 1 - by, which the scale settings take down to 0.1.
      if (!(by > 0 && by <= 0.9))
        bad(v, path, fmt::format("'{}' must vary by more than 0 and at most 0.9 (e.g. 0.2 or \"20%\")", k.str()));
      p.sensitivity.push_back({std::string(k.str()), by});
    }
  }
  const toml::node* scen = doc.get("scenario");
  if (!scen) fail(Exit::data, fmt::format("{}: error: the plan has no [[scenario]]; add at least one (gpuplan plan --init shows how)", path));
  const auto* arr = scen->as_array();
  if (!arr || !arr->is_array_of_tables()) bad(*scen, path, "'scenario' must be an array of tables ([[scenario]])");
  validate_values(defaults);
  for (const auto& node : *arr) {
    const auto& t = *node.as_table();
    const toml::node* name_node = t.get("name");
    if (!name_node) bad(node, path, "a [[scenario]] needs a name (lower-case letters, digits, '-', '.', '_')");
    const std::string base = text_field(t, "name", path);
    if (!valid_name(base)) bad(*name_node, path, fmt::format("scenario name '{}' must be lower-case letters, digits, '-', '.' or '_' (at most 80)", base));
    std::string command = t.get("command") ? text_field(t, "command", path) : default_command;
    if (command != "train" && command != "infer")
      bad(t.get("command") ? *t.get("command") : node, path, fmt::format("command '{}' is not known; expected train or infer", command));
    Constraints cons = plan_constraints;
    if (const toml::node* c = t.get("constraints")) {
      if (!c->as_table()) bad(*c, path, "'constraints' must be a table ([scenario.constraints])");
      cons = parse_constraints(*c->as_table(), path, plan_constraints);
    }
    for (const auto& [k, v] : t)
      if (v.is_table() && k.str() != "constraints") bad(v, path, fmt::format("'{}' in a scenario must be a setting, not a table", k.str()));
    std::vector<RawSetting> own = settings_of(t, path, {"name", "command", "constraints"});
    validate_values(own);
    for (const auto& r : own)
      if (const Setting* st = find_setting(r.key); st && !(st->commands & command_bit(command)))
        fail(Exit::data, fmt::format("{}: error: '{}' does not apply to {} scenarios: it is a setting of {}", r.wheres[0], r.key,
                                     command, command_names(st->commands)));
    // Scenario keys override defaults of the same name, and of a name they cannot go with
    // (a scenario's "days" replaces the defaults' "weeks").
    std::vector<RawSetting> merged;
    for (const auto& d : defaults)
      if (std::none_of(own.begin(), own.end(), [&](const RawSetting& o) {
            return o.key == d.key || !conflict_among({o.key, d.key}).empty();
          }))
        merged.push_back(d);
    merged.insert(merged.end(), own.begin(), own.end());
    std::vector<std::size_t> sweeps;
    for (std::size_t i = 0; i < merged.size(); ++i)
      if (merged[i].sweep) sweeps.push_back(i);
    std::size_t count = 1;
    if (sweep_mode == "zip" && !sweeps.empty()) {
      count = merged[sweeps[0]].values.size();
      for (std::size_t i : sweeps)
        if (merged[i].values.size() != count)
          fail(Exit::data, fmt::format("{}: error: sweep = \"zip\" needs lists of one length; '{}' has {}, '{}' has {}",
                                       merged[i].wheres[0], merged[sweeps[0]].key, count, merged[i].key, merged[i].values.size()));
    } else {
      for (std::size_t i : sweeps) {
        count *= merged[i].values.size();
        if (count > max_plan_scenarios) break;
      }
    }
    if (p.scenarios.size() + count > max_plan_scenarios)
      fail(Exit::data, fmt::format("{}: error: the sweeps expand to more than {} scenarios; split the plan or shorten the lists",
                                   where(node.source(), path), max_plan_scenarios));
    for (std::size_t c = 0; c < count; ++c) {
      PlanScenario s;
      s.command = command;
      s.constraints = cons;
      s.where = where(node.source(), path);
      std::string name = base;
      std::size_t rest = c;
      std::vector<std::size_t> pick(merged.size(), 0);
      // Cartesian: the last sweep varies fastest; zip: all advance together.
      for (std::size_t k = sweeps.size(); k-- > 0;) {
        const std::size_t i = sweeps[k];
        if (sweep_mode == "zip") pick[i] = c;
        else pick[i] = rest % merged[i].values.size(), rest /= merged[i].values.size();
      }
      for (std::size_t i = 0; i < merged.size(); ++i) {
        s.settings.push_back({merged[i].key, merged[i].values[pick[i]], merged[i].wheres[pick[i]]});
        if (merged[i].sweep) name += "-" + slug(merged[i].values[pick[i]]);
      }
      s.name = name;
      for (const auto& other : p.scenarios)
        if (other.name == s.name)
          fail(Exit::data, fmt::format("{}: error: scenario name '{}' is used twice", s.where, s.name));
      p.scenarios.push_back(std::move(s));
    }
  }
  return p;
}

std::string read_plan_text(const std::string& path) {
  std::string text = read_file_capped(path, "plan", max_plan_bytes);
  if (text.find('\0') != std::string::npos) fail(Exit::data, fmt::format("{}: error: this is not a text file (it contains NUL bytes)", path));
  return text;
}

Verdict check_constraints(const Constraints& c, const ScenarioFigures& f, bool owned) {
  Verdict v;
  auto need = [&](bool ok, std::string why) {
    if (!ok) v.pass = false, v.reasons.push_back(std::move(why));
  };
  if (c.budget_usd) {
    std::optional<double> cost = owned ? f.owned_usd : f.cloud_usd;
    std::string what;
    if (!f.serving) {
      what = owned ? "owned cost of ownership" : "cloud cost";
    } else {  // serving: a year of the deployment
      what = owned ? "owned cost per year" : "cloud cost per year";
      if (cost) *cost *= 365 * 24;
    }
    if (!cost) need(false, fmt::format("budget {} cannot be checked: no {} (no price in the catalog)", format_usd(*c.budget_usd), what));
    else need(*cost <= *c.budget_usd, fmt::format("{} {} exceeds the budget of {}", what, format_usd(*cost), format_usd(*c.budget_usd)));
  }
  if (c.max_facility_mw) {
    if (!f.facility_mw_peak) need(false, "facility power cannot be checked: no power figure for this device");
    else need(*f.facility_mw_peak <= *c.max_facility_mw, fmt::format("facility power {} exceeds the cap of {}",
                                                                     format_si(*f.facility_mw_peak * 1e6, "W"),
                                                                     format_si(*c.max_facility_mw * 1e6, "W")));
  }
  if (c.deadline_s && !f.serving) {
    const auto& s = f.wall_clock_s;
    need(s && *s <= *c.deadline_s, fmt::format("training takes {}, past the deadline of {}", s ? format_duration(*s) : "?",
                                               format_duration(*c.deadline_s)));
  }
  if (c.max_racks) {
    if (!f.racks) need(false, "racks cannot be checked: the site has no rack power budget or the device no power figure");
    else need(*f.racks <= *c.max_racks, fmt::format("{} racks exceed the limit of {}", *f.racks, *c.max_racks));
  }
  if (c.max_gpus) need(f.gpus <= *c.max_gpus, fmt::format("{} devices exceed the limit of {}", f.gpus, *c.max_gpus));
  return v;
}

Headline headline_of(const ScenarioFigures& f, bool owned) {
  Headline h;
  if (f.serving) {
    h.cost = f.usd_per_million_tokens, h.cost_label = "$ per million output tokens";
    h.time = f.tpot_s, h.time_label = "time per output token (s)";
  } else {
    h.cost = owned ? f.owned_usd : f.cloud_usd;
    // Two different things: an owned cluster's whole life, a cloud run's hours. A report that
    // mixes them labels each bar with its own (report.cpp).
    h.cost_label = owned ? "owned: cost of ownership over the life ($)" : "cloud: the run ($)";
    if (f.wall_clock_s) h.time = *f.wall_clock_s / 86400;
    h.time_label = "wall clock (days)";
  }
  return h;
}

std::string plan_template() {
  return R"(# A gpuplan plan file: evaluate with `gpuplan plan FILE`. Every scenario key is a setting,
# spelled exactly as the command-line flag without dashes in front ("global-batch = 1536" is
# --global-batch 1536). See `man gpuplan` for the settings.

[plan]
title = "Training cluster options"
description = "Buy 64 H100 or 32 B200, or rent, for an 8B model on 1T tokens"
author = "Research computing"
date = "2026-12-01"
# sweep = "zip"          # lists advance together instead of every combination

[defaults]                # shared by every scenario
command = "train"         # or "infer"
model = "llama-3.1-8b"
tokens = "1T"
site = "us-average"
years = 5

[constraints]             # every scenario gets pass or fail with the reasons
budget_usd = "$6M"
max_facility_mw = 0.25
deadline = "8w"
# max_racks = 20
# max_gpus = 256

[[scenario]]
name = "h100-owned"
gpu = "h100-sxm"
gpus = 64
buy = true

[[scenario]]
name = "b200-owned"
gpu = "b200"
gpus = 32
buy = true

[[scenario]]
name = "h100-cloud"
gpu = "h100-sxm"
gpus = [64, 128]          # a list sweeps: h100-cloud-64 and h100-cloud-128
cloud = "aws"

# An inline catalog record, checked like a catalog file (here: a vendor quote).
# [catalog.prices.quote-h100]
# name = "Vendor quote, 64 H100 SXM"
# accelerator = "h100-sxm"
# type = "purchase"
# provider = "vendor"
# usd_per_device = "$31000"
# as_of = "2026-11"
# source = "quote 2026-117"

[sensitivity]             # each input varied by +- the fraction: a tornado of cost and time
mfu = 0.2
price = 0.2
pue = 0.1
)";
}

}  // namespace gpuplan
