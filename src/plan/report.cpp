// SPDX-License-Identifier: Apache-2.0
#include "gpuplan/plan/report.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <optional>
#include <sstream>

#include "gpuplan/format.hpp"
#include "gpuplan/plan/plan.hpp"

namespace gpuplan {
namespace {

std::string text(const Value& v, const std::string& key) {
  const Value* x = v.find(key);
  return x && x->type() == Value::Type::string ? x->as_string() : std::string();
}

// The rows of the comparison: label, JSON path, formatter, and which command has it.
struct Metric {
  const char* label;
  const char* path;
  std::string (*show)(double);
  const char* command;  // "" for both
};
std::string show_int(double v) {
  return std::fabs(v) < 9e15 ? fmt::format("{}", static_cast<long long>(std::llround(v))) : format_sig(v);
}
// A bar of `frac` of `full` pixels: at least 1, at most full, whatever frac is (NaN, inf).
int bar_pixels(double frac, int full) {
  const double px = std::round(full * frac);
  return px >= 1 ? static_cast<int>(std::min(px, static_cast<double>(full))) : 1;
}
std::string show_days(double v) { return format_sig(v) + " d"; }
std::string show_pct(double v) { return format_sig(100 * v) + "%"; }
std::string show_usd(double v) { return format_usd(v); }
// Power in W, kW or MW as it falls (a 27 kW room is not "0.0270 MW"); the chart reads it too.
std::string show_mw(double v) { return format_si(v * 1e6, "W"); }
std::string show_mwh(double v) { return format_si(v * 1e6, "Wh"); }
std::string show_t(double v) { return format_tonnes(v); }
std::string show_s(double v) { return format_duration(v); }
std::string show_rate(double v) { return format_si(v, "tokens/s"); }
std::string show_kwh(double v) { return format_sig(v) + " kWh"; }
std::string show_si(double v) { return format_si(v, ""); }
std::string show_bytes(double v) { return format_iec(v); }

const std::vector<Metric>& metrics() {
  static const std::vector<Metric> m{
      {"devices", "gpus", show_int, ""},
      {"wall clock", "wall_clock_days", show_days, "train"},
      {"GPU-hours", "gpu_hours", show_si, "train"},
      {"MFU", "mfu", show_pct, "train"},
      {"memory per device", "memory_per_gpu_bytes", show_bytes, "train"},
      {"replicas", "replicas", show_int, "infer"},
      {"TTFT", "ttft_s", show_s, "infer"},
      {"TPOT", "tpot_s", show_s, "infer"},
      {"output throughput", "throughput_tokens_per_s", show_rate, "infer"},
      {"$ per million tokens", "usd_per_million_tokens", show_usd, "infer"},
      {"kWh per million tokens", "kwh_per_million_tokens", show_kwh, "infer"},
      {"facility power (peak)", "power.facility_mw_peak", show_mw, ""},
      {"racks", "power.racks", show_int, ""},
      {"energy", "energy_mwh", show_mwh, "train"},
      {"carbon (CO2e)", "co2_t", show_t, "train"},
      {"cloud cost", "cost_usd.cloud", show_usd, "train"},
      {"owned: run's share", "cost_usd.owned_run", show_usd, "train"},
      {"owned: cost of ownership", "cost_usd.owned_tco", show_usd, "train"},
      {"capital cost", "cost_usd.capital", show_usd, ""},
      {"cloud cost per hour", "cost_usd_per_hour.cloud", show_usd, "infer"},
      {"owned cost per hour", "cost_usd_per_hour.owned_run", show_usd, "infer"},
      {"a month owned", "monthly_cost.owned_usd", show_usd, "infer"},
      {"a month rented", "monthly_cost.rented_usd", show_usd, "infer"},
      {"a month at the cheapest API", "monthly_cost.apis.0.usd", show_usd, "infer"},
      {"owning pays above (requests/day)", "monthly_cost.break_even_requests_per_day", show_si, "infer"},
  };
  return m;
}

std::string cell(const Value& s, const Metric& m) {
  if (*m.command && text(s, "command") != m.command) return "";
  auto v = number_at(s, m.path);
  return v ? m.show(*v) : "-";
}

// The headline cost and time of a scenario (what the charts and the tornado show), as the plan
// put it in the scenario's JSON; none for a scenario without an answer.
Headline headline(const Value& s) {
  Headline h;
  const Value* v = s.find("headline");
  if (!v || v->type() != Value::Type::object) return h;
  h.cost = number_at(*v, "cost");
  h.time = number_at(*v, "time");
  h.cost_label = text(*v, "cost_label");
  h.time_label = text(*v, "time_label");
  return h;
}

std::string xml(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

// A horizontal bar chart as inline SVG.
std::string bars(const std::string& title, const std::vector<std::pair<std::string, double>>& rows,
                 std::string (*show)(double)) {
  if (rows.empty()) return {};
  double top = 0;
  for (const auto& r : rows) top = std::max(top, r.second);
  if (top <= 0) top = 1;
  const int row_h = 26, left = 190, width = 640, bar_w = 330;
  const int height = 30 + row_h * static_cast<int>(rows.size());
  std::string s = fmt::format(R"(<figure><svg role="img" aria-label="{0}" viewBox="0 0 {1} {2}" width="{1}" height="{2}" xmlns="http://www.w3.org/2000/svg">)"
                              R"(<text x="0" y="16" class="t">{0}</text>)",
                              xml(title), width, height);
  int y = 28;
  for (const auto& [label, v] : rows) {
    const int w = bar_pixels(v / top, bar_w);
    s += fmt::format(R"(<text x="{}" y="{}" class="l" text-anchor="end">{}</text><rect x="{}" y="{}" width="{}" height="{}" class="b"/>)"
                     R"(<text x="{}" y="{}" class="v">{}</text>)",
                     left - 8, y + 15, xml(label), left, y + 2, w, row_h - 8, left + w + 6, y + 15, xml(show(v)));
    y += row_h;
  }
  return s + "</svg></figure>\n";
}

// A tornado: for each input, the low and high effect on a value around its base.
std::string tornado(const std::string& title, double base, const std::vector<std::tuple<std::string, double, double>>& rows,
                    std::string (*show)(double)) {
  if (rows.empty() || base <= 0) return {};
  double span = 0;
  for (const auto& [n, lo, hi] : rows) span = std::max({span, std::fabs(lo - base), std::fabs(hi - base)});
  if (span <= 0) span = 1;
  const int row_h = 26, mid = 330, half = 170, width = 660;
  const int height = 44 + row_h * static_cast<int>(rows.size());
  std::string s = fmt::format(R"(<figure><svg role="img" aria-label="{0}" viewBox="0 0 {1} {2}" width="{1}" height="{2}" xmlns="http://www.w3.org/2000/svg">)"
                              R"(<text x="0" y="16" class="t">{0}</text><line x1="{3}" y1="22" x2="{3}" y2="{2}" class="axis"/>)"
                              R"(<text x="{3}" y="34" class="v" text-anchor="middle">base {4}</text>)",
                              xml(title), width, height, mid, xml(show(base)));
  int y = 40;
  for (const auto& [name, lo, hi] : rows) {
    for (double v : {lo, hi}) {
      const int w = bar_pixels(std::fabs(v - base) / span, half);
      const int x = v < base ? mid - w : mid;
      s += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" class="{}"/>)", x, y + 2, w, row_h - 8, v < base ? "lo" : "hi");
    }
    s += fmt::format(R"(<text x="8" y="{}" class="l">{}</text><text x="{}" y="{}" class="v">{} .. {}</text>)", y + 15, xml(name),
                     mid + half + 8, y + 15, xml(show(std::min(lo, hi))), xml(show(std::max(lo, hi))));
    y += row_h;
  }
  return s + "</svg></figure>\n";
}

// Output tokens/s per GPU on a scenario's frontier (infer --frontier) at `per_user` tokens/s per
// user: between the two Pareto points around it, linearly; the most throughput of any point when
// every point is more interactive; none when no point is that interactive.
std::optional<double> per_gpu_at(const Value& frontier, double per_user) {
  std::vector<std::pair<double, double>> pts;  // (tokens/s per user, per GPU), Pareto only
  for (const auto& p : frontier.items())
    if (const Value* on = p.find("pareto"); on && on->type() == Value::Type::boolean && on->as_bool())
      if (auto u = number_at(p, "tokens_per_s_per_user"), g = number_at(p, "tokens_per_s_per_gpu"); u && g) pts.emplace_back(*u, *g);
  if (pts.empty()) return std::nullopt;
  std::sort(pts.begin(), pts.end());  // least interactive (most throughput) first
  if (per_user > pts.back().first) return std::nullopt;
  if (per_user <= pts.front().first) return pts.front().second;
  for (std::size_t i = 1; i < pts.size(); ++i)
    if (per_user <= pts[i].first) {
      const auto& [u0, g0] = pts[i - 1];
      const auto& [u1, g1] = pts[i];
      return u1 > u0 ? g0 + (g1 - g0) * (per_user - u0) / (u1 - u0) : g1;
    }
  return std::nullopt;
}

// The levels of interactivity (tokens/s per user) plans compare GPU types at: a reader's pace,
// and twice and five times it.
constexpr double interactivity_levels[] = {20, 50, 100};

// A scenario's cost per million output tokens at `per_user` tokens/s per user on its frontier:
// its headline's device-hour (cloud, or owned) over what a device then produces; none without a
// frontier or a price, or where the frontier does not reach that level.
std::optional<double> frontier_cost(const Value& s, double per_user) {
  const Value* f = s.find("frontier");
  const auto gpus = number_at(s, "gpus");
  const auto hour = number_at(s, text(s, "cost_headline") == "owned" ? "cost_usd_per_hour.owned_run" : "cost_usd_per_hour.cloud");
  if (!f || f->type() != Value::Type::array || !gpus || !hour || *gpus <= 0) return std::nullopt;
  const auto g = per_gpu_at(*f, per_user);
  if (!g || *g <= 0) return std::nullopt;
  return *hour / *gpus / 3600 / *g * 1e6;
}

// Each level of interactivity that two scenarios' frontiers reach, with each scenario's cost
// there (in the scenarios' order; none where it has no frontier or does not reach the level).
std::vector<std::pair<double, std::vector<std::optional<double>>>> frontier_costs(const std::vector<Value>& scen) {
  std::vector<std::pair<double, std::vector<std::optional<double>>>> out;
  for (double level : interactivity_levels) {
    std::vector<std::optional<double>> costs;
    for (const auto& s : scen) costs.push_back(frontier_cost(s, level));
    if (std::count_if(costs.begin(), costs.end(), [](const auto& c) { return c.has_value(); }) >= 2)
      out.emplace_back(level, std::move(costs));
  }
  return out;
}

// The time a headline measures, shown in the tables' units: TPOT as a duration (58.1 ms, not
// 0.0581), a wall clock in days.
auto show_time(const std::string& time_label) {
  return time_label.rfind("time per output token", 0) == 0 ? show_s : show_days;
}

// Memory per device as stacked parts, with the device's capacity marked: training shows weights,
// gradients, optimizer states, activations, buffers and reserve; serving weights, KV cache,
// workspace and reserve.
std::string memory_breakdown(const std::vector<Value>& scen) {
  struct Part { const char* label; const char* train; const char* infer; const char* colour; };
  static const Part parts[] = {{"weights", "memory_breakdown_bytes.weights", "weights_bytes", "#3b6fb6"},
                               {"gradients", "memory_breakdown_bytes.gradients", nullptr, "#6c9bd2"},
                               {"optimizer", "memory_breakdown_bytes.optimizer", nullptr, "#a4c2e8"},
                               {"activations/KV", "memory_breakdown_bytes.activations", "kv_cache_bytes", "#e39b3b"},
                               {"buffers", "memory_breakdown_bytes.buffers", "workspace_bytes", "#9a9a9a"},
                               {"reserve", "memory_breakdown_bytes.reserve", "reserve_bytes", "#cfcfcf"}};
  double top = 0;
  std::vector<std::pair<std::string, std::vector<double>>> rows;
  std::vector<double> caps;
  for (const auto& s : scen) {
    const bool infer = text(s, "command") == "infer";
    std::vector<double> v;
    double sum = 0;
    for (const auto& p : parts) {
      const char* path = infer ? p.infer : p.train;
      const double x = path ? number_at(s, path).value_or(0) : 0;
      v.push_back(x);
      sum += x;
    }
    if (sum <= 0) continue;
    const double cap = number_at(s, "capacity_bytes").value_or(0);
    top = std::max({top, sum, cap});
    rows.push_back({text(s, "name"), v});
    caps.push_back(cap);
  }
  if (rows.empty()) return {};
  // The legend names the parts some scenario has (no gradients or optimizer for serving alone),
  // and the fourth as what it holds: activations in training, the KV cache in serving.
  std::vector<bool> shown(std::size(parts), false);
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.second.size(); ++i) shown[i] = shown[i] || r.second[i] > 0;
  bool any_train = false, any_infer = false;
  for (const auto& s : scen) (text(s, "command") == "infer" ? any_infer : any_train) = true;
  const auto label = [&](std::size_t i) -> std::string {
    if (std::string_view(parts[i].label) != "activations/KV") return parts[i].label;
    return any_train && any_infer ? "activations/KV" : any_infer ? "KV cache" : "activations";
  };
  const int row_h = 26, left = 190, bar_w = 330, width = 640;
  const int height = 52 + row_h * static_cast<int>(rows.size());
  std::string o = fmt::format(R"(<figure><svg role="img" aria-label="Memory per device" viewBox="0 0 {0} {1}" width="{0}" height="{1}" xmlns="http://www.w3.org/2000/svg">)"
                              R"(<text x="0" y="16" class="t">Memory per device (the line marks the capacity)</text>)",
                              width, height);
  int x = 0;
  for (std::size_t i = 0; i < std::size(parts); ++i) {
    if (!shown[i]) continue;
    const std::string name = label(i);
    o += fmt::format(R"(<rect x="{}" y="24" width="10" height="10" fill="{}"/><text x="{}" y="33" class="l">{}</text>)", x,
                     parts[i].colour, x + 14, xml(name));
    x += 14 + 7 * static_cast<int>(name.size()) + 10;
  }
  int y = 46;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    o += fmt::format(R"(<text x="{}" y="{}" class="l" text-anchor="end">{}</text>)", left - 8, y + 15, xml(rows[r].first));
    double at = left, total = 0;
    for (std::size_t i = 0; i < rows[r].second.size(); ++i) {
      const double w = bar_w * rows[r].second[i] / top;
      total += rows[r].second[i];
      if (w > 0) o += fmt::format(R"(<rect x="{:.1f}" y="{}" width="{:.1f}" height="{}" fill="{}"/>)", at, y + 2, w, row_h - 8, parts[i].colour);
      at += w;
    }
    if (caps[r] > 0) {
      const double cx = left + bar_w * caps[r] / top;
      o += fmt::format(R"(<line x1="{:.1f}" y1="{}" x2="{:.1f}" y2="{}" class="axis"/>)", cx, y, cx, y + row_h - 4);
    }
    o += fmt::format(R"(<text x="{:.1f}" y="{}" class="v">{}</text>)", left + bar_w + 8.0, y + 15, xml(format_iec(total)));
    y += row_h;
  }
  return o + "</svg></figure>\n";
}

}  // namespace

const Value* plan_get(const Value& report, const std::string& path) {
  const Value* cur = &report;
  std::size_t start = 0;
  while (cur && start <= path.size()) {
    const std::size_t dot = path.find('.', start);
    const std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (cur->type() == Value::Type::object) {
      cur = cur->find(part);
    } else if (cur->type() == Value::Type::array) {
      const Value* next = nullptr;
      for (const auto& item : cur->items())
        if (item.type() == Value::Type::object && item.find("name") && item.find("name")->type() == Value::Type::string &&
            item.find("name")->as_string() == part)
          next = &item;
      if (!next && !part.empty() && part.size() <= 9 && std::all_of(part.begin(), part.end(), ::isdigit)) {
        const std::size_t i = std::stoul(part);  // at most 9 digits: never out of range
        if (i < cur->items().size()) next = &cur->items()[i];
      }
      cur = next;
    } else {
      return nullptr;
    }
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return cur;
}

Document plan_document(const Value& report) {
  Document doc;
  doc.data = report;
  const auto& scen = report.find("scenarios")->items();
  Table cmp;
  cmp.title = "Comparison";
  cmp.headers = {"metric"};
  cmp.right = {false};
  for (const auto& s : scen) cmp.headers.push_back(text(s, "name")), cmp.right.push_back(true);
  for (const auto& m : metrics()) {
    std::vector<std::string> row{m.label};
    bool any = false;
    for (const auto& s : scen) {
      row.push_back(cell(s, m));
      any = any || (!row.back().empty() && row.back() != "-");
    }
    if (any) cmp.add_row(row);
  }
  // GPU types at equal interactivity, where two scenarios' frontiers reach the level.
  for (const auto& [level, costs] : frontier_costs(scen)) {
    std::vector<std::string> row{fmt::format("$ per million tokens at {} tokens/s per user", format_exact(level))};
    for (const auto& c : costs) row.push_back(c ? show_usd(*c) : "-");
    cmp.add_row(row);
  }
  std::vector<std::string> verdict_row{"verdict"};
  for (const auto& s : scen) verdict_row.push_back(text(s, "verdict"));
  cmp.add_row(verdict_row);
  doc.tables.push_back(cmp);

  Table why;
  why.title = "Constraints";
  why.headers = {"scenario", "verdict", "reasons"};
  why.right = {false, false, false};
  for (const auto& s : scen) {
    std::string reasons;
    for (const auto& r : s.find("reasons")->items()) reasons += (reasons.empty() ? "" : "; ") + r.as_string();
    why.add_row({text(s, "name"), text(s, "verdict"), reasons.empty() ? "all constraints met" : reasons});
  }
  doc.tables.push_back(why);

  for (const auto& s : scen) {
    const Value* sens = s.find("sensitivity");
    if (!sens || sens->items().empty()) continue;
    const Headline h = headline(s);
    Table t;
    t.title = fmt::format("Sensitivity of {}: {} and {}", text(s, "name"), h.cost_label, h.time_label);
    t.headers = {"input", "varied by", "cost low", "cost high", "time low", "time high"};
    t.right = {false, true, true, true, true, true};
    const bool infer = text(s, "command") == "infer";
    for (const auto& r : sens->items()) {
      auto f = [&](const char* k) {
        auto v = number_at(r, k);
        if (!v) return std::string("-");
        if (k[0] == 'c') return format_usd(*v);
        return infer ? format_duration(*v) : format_sig(*v) + " d";
      };
      t.add_row({text(r, "input"), "+-" + format_sig(100 * number_at(r, "by").value_or(0)) + "%", f("cost_low"), f("cost_high"),
                 f("time_low"), f("time_high")});
    }
    doc.tables.push_back(t);
  }

  // Every assumption once, with the scenarios that use it.
  std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> seen;  // (row, scenarios)
  for (const auto& s : scen) {
    const Value* as = s.find("assumptions");
    if (!as) continue;
    for (const auto& a : as->items()) {
      std::vector<std::string> row{text(a, "name"), scalar_text(*a.find("value")), text(a, "unit"), text(a, "origin")};
      auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& p) { return p.first == row; });
      if (it == seen.end()) seen.push_back({row, {text(s, "name")}});
      else it->second.push_back(text(s, "name"));
    }
  }
  Table at;
  at.title = "Assumptions and their sources";
  at.headers = {"assumption", "value", "unit", "origin", "scenarios"};
  at.right = {false, true, false, false, false};
  for (const auto& [row, names] : seen) {
    std::string who = names.size() == scen.size() ? "all" : "";
    if (who.empty())
      for (const auto& n : names) who += (who.empty() ? "" : ", ") + n;
    std::vector<std::string> r = row;
    r.push_back(who);
    at.add_row(r);
  }
  if (!at.rows.empty()) doc.tables.push_back(at);
  return doc;
}

std::string plan_csv(const Value& report) {
  static const char* columns[] = {"name", "command", "verdict", "model", "gpu", "gpus", "wall_clock_days", "gpu_hours", "mfu",
                                  "power.facility_mw_peak", "power.racks", "energy_mwh", "co2_t", "cost_usd.cloud",
                                  "cost_usd.owned_run", "cost_usd.owned_tco", "ttft_s", "tpot_s", "throughput_tokens_per_s",
                                  "usd_per_million_tokens", "kwh_per_million_tokens"};
  Table t;
  for (const char* c : columns) t.headers.push_back(c);
  t.headers.push_back("reasons");
  for (const auto& s : report.find("scenarios")->items()) {
    std::vector<std::string> row;
    for (const char* c : columns) {
      const Value* v = find_path(s, c);
      row.push_back(v && v->type() != Value::Type::null ? scalar_text(*v) : "");
    }
    std::string reasons;
    for (const auto& r : s.find("reasons")->items()) reasons += (reasons.empty() ? "" : "; ") + r.as_string();
    row.push_back(reasons);
    t.add_row(row);
  }
  return render_csv(t);
}

std::string plan_html(const Value& report) {
  const Value& plan = *report.find("plan");
  const auto& scen = report.find("scenarios")->items();
  const std::string title = text(plan, "title").empty() ? "gpuplan report" : text(plan, "title");
  std::string h = R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>)" + xml(title) + R"(</title>
<style>
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2430;max-width:1100px;margin:2em auto;padding:0 1em}
h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.2em;margin-top:1.8em;border-bottom:1px solid #d5dae2;padding-bottom:.2em}
.meta{color:#5b6473}table{border-collapse:collapse;margin:.6em 0;font-variant-numeric:tabular-nums}
th,td{border:1px solid #d5dae2;padding:.3em .6em;text-align:left;vertical-align:top}.r{text-align:right}
thead th{background:#eef1f5}.pass{color:#0b6b2f;font-weight:600}.fail{color:#a1121b;font-weight:600}
.cards{display:flex;gap:1em;flex-wrap:wrap}.card{border:1px solid #d5dae2;border-radius:6px;padding:.6em 1em;min-width:12em}
svg .t{font-weight:600;font-size:14px}svg .l,svg .v{font-size:12px;fill:#1d2430}svg .b{fill:#3b6fb6}
svg .lo{fill:#2f8f5b}svg .hi{fill:#c0392b}svg .axis{stroke:#5b6473;stroke-width:1}figure{margin:1em 0}
@media print{body{margin:0;max-width:none}h2{break-after:avoid}figure,table{break-inside:avoid}}
</style></head><body>
)";
  h += "<h1>" + xml(title) + "</h1>\n<p class=\"meta\">";
  for (const char* k : {"author", "date", "file"})
    if (!text(plan, k).empty()) h += xml(text(plan, k)) + " &middot; ";
  h += "made with " + xml(text(report, "tool")) + "</p>\n";
  if (!text(plan, "description").empty()) h += "<p>" + xml(text(plan, "description")) + "</p>\n";

  const Value& sum = *report.find("summary");
  h += "<div class=\"cards\">";
  h += fmt::format("<div class=\"card\"><b>{}</b> scenarios<br><span class=\"pass\">{} pass</span>, <span class=\"fail\">{} fail</span></div>",
                   scalar_text(*sum.find("scenarios")), scalar_text(*sum.find("pass")), scalar_text(*sum.find("fail")));
  for (const char* k : {"cheapest_passing", "fastest_passing"})
    if (!text(sum, k).empty())
      h += fmt::format("<div class=\"card\">{}<br><b>{}</b></div>", k[0] == 'c' ? "cheapest that passes" : "fastest that passes",
                       xml(text(sum, k)));
  h += "</div>\n";

  Document doc = plan_document(report);
  auto table_html = [&](const Table& t) {
    auto right = [&](std::size_t i) { return i < t.right.size() && t.right[i]; };
    std::string o = "<table><thead><tr>";
    for (std::size_t i = 0; i < t.headers.size(); ++i) o += std::string(right(i) ? "<th class=\"r\">" : "<th>") + xml(t.headers[i]) + "</th>";
    o += "</tr></thead><tbody>\n";
    for (const auto& r : t.rows) {
      o += "<tr>";
      for (std::size_t i = 0; i < r.size(); ++i) {
        const std::string& c = r[i];
        std::string cls = c == "pass" ? "pass" : c == "fail" ? "fail" : "";
        if (right(i)) cls += cls.empty() ? "r" : " r";
        o += (cls.empty() ? std::string("<td>") : "<td class=\"" + cls + "\">") + xml(c) + "</td>";
      }
      o += "</tr>\n";
    }
    return o + "</tbody></table>\n";
  };
  h += "<h2>Comparison</h2>\n" + table_html(doc.tables[0]);
  h += "<h2>Constraints</h2>\n" + table_html(doc.tables[1]);

  h += "<h2>Charts</h2>\n";
  std::vector<std::pair<std::string, double>> cost, time, mw, racks;
  std::string cost_label, time_label;
  // One label per chart: when scenarios' headlines differ (owned and cloud), each bar names its own.
  bool mixed = false;
  for (const auto& s : scen)
    if (const Headline hl = headline(s); hl.cost) mixed |= !cost_label.empty() && cost_label != hl.cost_label, cost_label = hl.cost_label;
  if (mixed) cost_label = "cost of each scenario's run ($)";
  for (const auto& s : scen) {
    const Headline hl = headline(s);
    if (hl.cost) cost.push_back({mixed ? text(s, "name") + " (" + hl.cost_label.substr(0, hl.cost_label.find(':')) + ")" : text(s, "name"), *hl.cost});
    if (hl.time) time.push_back({text(s, "name"), *hl.time}), time_label = hl.time_label;
    if (auto v = number_at(s, "power.facility_mw_peak")) mw.push_back({text(s, "name"), *v});
    if (auto v = number_at(s, "power.racks")) racks.push_back({text(s, "name"), *v});
  }
  h += bars("Cost: " + cost_label, cost, show_usd);
  h += bars("Time: " + time_label.substr(0, time_label.find(" (")), time, show_time(time_label));
  h += memory_breakdown(scen);
  h += bars("Facility power, peak", mw, show_mw);
  h += bars("Racks", racks, show_int);
  for (const auto& [level, costs] : frontier_costs(scen)) {
    std::vector<std::pair<std::string, double>> rows;
    for (std::size_t i = 0; i < scen.size(); ++i)
      if (costs[i]) rows.emplace_back(text(scen[i], "name"), *costs[i]);
    h += bars(fmt::format("Cost per million output tokens at {} tokens/s per user (the frontier)", format_exact(level)), rows,
              show_usd);
  }

  bool any_sens = false;
  for (const auto& s : scen) {
    const Value* sens = s.find("sensitivity");
    if (!sens || sens->items().empty()) continue;
    if (!any_sens) h += "<h2>Sensitivity</h2>\n", any_sens = true;
    const Headline hl = headline(s);
    // The cost and the time each input moves, as the text table has both.
    const auto swings = [&](const char* low, const char* high) {
      std::vector<std::tuple<std::string, double, double>> rows;
      for (const auto& r : sens->items()) {
        auto lo = number_at(r, low), hi = number_at(r, high);
        if (lo && hi)
          rows.emplace_back(text(r, "input") + " +-" + format_sig(100 * number_at(r, "by").value_or(0)) + "%", *lo, *hi);
      }
      std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
        return std::fabs(std::get<2>(a) - std::get<1>(a)) > std::fabs(std::get<2>(b) - std::get<1>(b));
      });
      return rows;
    };
    if (hl.cost) h += tornado(text(s, "name") + ": " + hl.cost_label, *hl.cost, swings("cost_low", "cost_high"), show_usd);
    if (hl.time)
      h += tornado(text(s, "name") + ": " + hl.time_label, *hl.time, swings("time_low", "time_high"), show_time(hl.time_label));
  }
  if (doc.tables.size() > 2) {
    const Table& last = doc.tables.back();
    if (last.title == "Assumptions and their sources") h += "<h2>Assumptions and their sources</h2>\n" + table_html(last);
  }
  h += "</body></html>\n";
  return h;
}

}  // namespace gpuplan
