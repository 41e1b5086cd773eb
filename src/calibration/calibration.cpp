// SPDX-License-Identifier: Apache-2.0
#include "gpuplan/calibration/calibration.hpp"

#include <limits>
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <ctime>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include "../toml_parse.hpp"
#include "gpuplan/format.hpp"

#include "gpuplan/error.hpp"
#include "gpuplan/output.hpp"

namespace gpuplan {

// A calibration file is a few kilobytes; anything past this is not one.
constexpr std::size_t max_calibration_bytes = 1 << 20;

Stats summarize(std::vector<double> samples) {
  Stats s;
  s.n = static_cast<int>(samples.size());
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  // Nearest-rank percentiles on the sorted samples.
  auto pct = [&](double p) {
    const double rank = p * static_cast<double>(samples.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(rank));
    const auto hi = static_cast<std::size_t>(std::ceil(rank));
    return samples[lo] + (samples[hi] - samples[lo]) * (rank - static_cast<double>(lo));
  };
  s.median = pct(0.5);
  s.p10 = pct(0.1);
  s.p90 = pct(0.9);
  s.max = samples.back();
  double mean = 0;
  for (double x : samples) mean += x;
  mean /= static_cast<double>(samples.size());
  double var = 0;
  for (double x : samples) var += (x - mean) * (x - mean);
  s.cv = samples.size() > 1 && mean != 0 ? std::sqrt(var / static_cast<double>(samples.size() - 1)) / mean : 0;
  return s;
}

CurveFit fit_gemm_curve(const std::vector<CurvePoint>& points) {
  if (points.size() < 2) fail(Exit::data, "a GEMM efficiency curve needs at least two sizes");
  // The step model's curve for a square GEMM of size n (gemm_curve with m = k = n): eff = max x
  // n / (n + k_halves half) / w(n), w(n) = 1 + tile_half 128^2 / n^2. Linear least squares on
  // y = 1 / (eff w(n)) = a + b / n: max = 1/a, half = b max / k_halves.
  const auto tiles_factor = [](double n) { return 1 + gemm_tile_half * 128.0 * 128 / (n * n); };
  const auto rows = static_cast<Eigen::Index>(points.size());
  Eigen::MatrixXd a(rows, 2);
  Eigen::VectorXd y(rows);
  for (Eigen::Index i = 0; i < rows; ++i) {
    const auto& p = points[static_cast<std::size_t>(i)];
    if (p.n <= 0 || p.efficiency <= 0) fail(Exit::data, "GEMM curve points need positive sizes and efficiencies");
    a(i, 0) = 1;
    a(i, 1) = 1 / p.n;
    y(i) = 1 / (p.efficiency * tiles_factor(p.n));
  }
  const Eigen::Vector2d coef = a.colPivHouseholderQr().solve(y);
  CurveFit f;
  f.points = static_cast<int>(points.size());
  f.max = 1 / coef(0);
  f.half = std::max(0.0, coef(1) * f.max / gemm_k_halves);
  const auto rms = [&] {
    double ss = 0;
    for (const auto& p : points) ss += std::pow(gemm_curve(f.max, f.half, p.n, p.n, p.n) / p.efficiency - 1, 2);
    return std::sqrt(ss / static_cast<double>(points.size()));
  };
  f.rms = rms();
  if (!acceptable_curve(f.max, f.half) || !std::isfinite(f.rms)) {
    const auto best = std::max_element(points.begin(), points.end(),
                                       [](const CurvePoint& l, const CurvePoint& r) { return l.efficiency < r.efficiency; });
    const double fitted_max = f.max;
    f.half = Efficiency{}.gemm_half;
    // The default shape through the best point.
    f.max = std::min(max_gemm_curve_max, best->efficiency / gemm_curve(1, f.half, best->n, best->n, best->n));
    f.rms = rms();
    f.fallback = fmt::format("the fit's max {:.3g} is outside (0, {}]; the default shape (half-size {:.0f}) through the "
                             "best point ({:.3g} at n = {:.0f}) is used",
                             fitted_max, max_gemm_curve_max, f.half, best->efficiency, best->n);
  }
  return f;
}

bool acceptable_curve(double max, double half) {
  return max > 0 && max <= max_gemm_curve_max && half >= 0 && half <= max_gemm_half;
}

std::string utc_timestamp() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

const Measurement* Calibration::find(std::string_view metric) const {
  for (const auto& m : measurements)
    if (m.metric == metric && m.status == "ok") return &m;
  return nullptr;
}

namespace {
std::string num(double v) { return fmt::format("{}", v); }
}  // namespace

std::string to_toml(const Calibration& c) {
  std::string o = "# gpuplan calibration file: what a probe measured on one device.\n"
                  "# Use it with --calibration FILE; compare it with 'gpuplan probe --compare FILE'.\n";
  o += fmt::format("schema = {}\ntool = {}\ncreated = {}\nkind = {}\ndevice_name = {}\naccelerator = {}\n", c.schema,
                   toml_string(c.tool), toml_string(c.created), toml_string(c.kind), toml_string(c.device_name), toml_string(c.accelerator));
  o += "\n[facts]\n";
  auto facts = c.facts;  // sorted, as a TOML reader returns them
  std::stable_sort(facts.begin(), facts.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [k, v] : facts) o += fmt::format("{} = {}\n", k, toml_string(v));
  for (const auto& m : c.measurements) {
    o += fmt::format("\n[[measurement]]\nmetric = {}\nvalue = {}\nunit = {}\n", toml_string(m.metric), num(m.value), toml_string(m.unit));
    o += fmt::format("median = {}\np10 = {}\np90 = {}\nmax = {}\ncv = {}\nn = {}\n", num(m.stats.median), num(m.stats.p10),
                     num(m.stats.p90), num(m.stats.max), num(m.stats.cv), m.stats.n);
    o += fmt::format("method = {}\nparams = {}\nstatus = {}\n", toml_string(m.method), toml_string(m.params), toml_string(m.status));
  }
  if (!c.gemm_points.empty()) {
    o += fmt::format("\n[gemm_curve]\ndtype = {}\nunit = {}\npoints = [", toml_string(c.gemm_dtype), toml_string(c.gemm_points_unit));
    for (std::size_t i = 0; i < c.gemm_points.size(); ++i)
      o += fmt::format("{}[{}, {}]", i ? ", " : "", num(c.gemm_points[i].n), num(c.gemm_points[i].efficiency));
    o += "]\n";
    if (c.gemm_curve)
    {
      o += fmt::format("max = {}\nhalf = {}\nrms = {}\n", num(c.gemm_curve->max), num(c.gemm_curve->half), num(c.gemm_curve->rms));
      if (!c.gemm_curve->fallback.empty()) o += fmt::format("fallback = {}\n", toml_string(c.gemm_curve->fallback));
    }
  }
  return o;
}

namespace {
[[noreturn]] void bad(const std::string& path, const toml::source_region& where, const std::string& what) {
  fail(Exit::data, fmt::format("{}:{}:{}: error: {}", path, where.begin.line, where.begin.column, what));
}

template <typename T>
T required(const toml::table& t, std::string_view key, const std::string& path, const char* type) {
  const toml::node* n = t.get(key);
  if (!n) bad(path, t.source(), fmt::format("missing '{}' ({})", key, type));
  if constexpr (std::is_same_v<T, double>) {
    if (auto v = n->value<double>()) return *v;
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (auto v = n->value<std::string>()) return *v;
  } else {
    // An integer node only: toml++ converts a float node to int64 with a plain cast, undefined
    // for 1e300 (found by fuzz_calibration); and the value must fit T.
    if (n->is_integer()) {
      const int64_t v = *n->value<int64_t>();
      if (v >= std::numeric_limits<T>::min() && v <= std::numeric_limits<T>::max()) return static_cast<T>(v);
    }
  }
  bad(path, n->source(), fmt::format("'{}' must be {}", key, type));
}

std::string optional_text(const toml::table& t, std::string_view key) {
  const toml::node* n = t.get(key);
  if (auto v = n ? n->value<std::string>() : std::nullopt) return *v;
  return {};
}
}  // namespace

Calibration parse_calibration(std::string_view text, const std::string& path) {
  toml::table root;
  try {
    root = parse_toml(text, path);
  } catch (const TomlSyntax& e) {
    fail(Exit::data, fmt::format("{}: error: {}", e.where, e.message));
  }
  Calibration c;
  c.schema = required<int>(root, "schema", path, "an integer");
  if (c.schema != calibration_schema)
    bad(path, root.get("schema")->source(),
        fmt::format("schema {} is not supported; this gpuplan reads schema {}", c.schema, calibration_schema));
  c.tool = optional_text(root, "tool");
  c.created = optional_text(root, "created");
  c.kind = required<std::string>(root, "kind", path, "a string (cpu or cuda)");
  if (c.kind != "cpu" && c.kind != "cuda") bad(path, root.get("kind")->source(), "'kind' must be cpu or cuda");
  c.device_name = required<std::string>(root, "device_name", path, "a string");
  c.accelerator = required<std::string>(root, "accelerator", path, "a catalog accelerator id");
  if (const auto* facts = root.get_as<toml::table>("facts"))
    for (const auto& [k, v] : *facts)
      if (auto s = v.value<std::string>()) c.facts.emplace_back(std::string(k.str()), *s);
  if (const toml::node* ms = root.get("measurement")) {
    const auto* arr = ms->as_array();
    if (!arr) bad(path, ms->source(), "'measurement' must be an array of tables ([[measurement]])");
    for (const auto& node : *arr) {
      const auto* t = node.as_table();
      if (!t) bad(path, node.source(), "each measurement must be a table");
      Measurement m;
      m.metric = required<std::string>(*t, "metric", path, "a string");
      m.value = required<double>(*t, "value", path, "a number");
      if (!(m.value >= 0) || !std::isfinite(m.value)) bad(path, t->get("value")->source(), "'value' must be a non-negative number");
      m.unit = required<std::string>(*t, "unit", path, "a string");
      m.stats.median = t->get("median") ? required<double>(*t, "median", path, "a number") : m.value;
      if (t->get("p10")) m.stats.p10 = required<double>(*t, "p10", path, "a number");
      if (t->get("p90")) m.stats.p90 = required<double>(*t, "p90", path, "a number");
      if (t->get("max")) m.stats.max = required<double>(*t, "max", path, "a number");
      if (t->get("cv")) m.stats.cv = required<double>(*t, "cv", path, "a number");
      if (t->get("n")) m.stats.n = required<int>(*t, "n", path, "an integer");
      m.method = optional_text(*t, "method");
      m.params = optional_text(*t, "params");
      const std::string st = optional_text(*t, "status");
      if (!st.empty()) m.status = st;
      c.measurements.push_back(m);
    }
  }
  if (const auto* curve = root.get_as<toml::table>("gemm_curve")) {
    c.gemm_dtype = required<std::string>(*curve, "dtype", path, "a string");
    if (curve->get("unit")) c.gemm_points_unit = required<std::string>(*curve, "unit", path, "a string");
    if (c.gemm_points_unit != "efficiency" && c.gemm_points_unit != "FLOP/s")
      bad(path, curve->get("unit")->source(), "GEMM curve 'unit' must be efficiency or FLOP/s");
    if (const auto* pts = curve->get_as<toml::array>("points")) {
      for (const auto& p : *pts) {
        const auto* pair = p.as_array();
        if (!pair || pair->size() != 2 || !(*pair)[0].value<double>() || !(*pair)[1].value<double>())
          bad(path, p.source(), "each GEMM curve point must be [size, efficiency]");
        c.gemm_points.push_back({*(*pair)[0].value<double>(), *(*pair)[1].value<double>()});
      }
    }
    if (curve->get("max")) {
      CurveFit f;
      f.max = required<double>(*curve, "max", path, "a number");
      f.half = required<double>(*curve, "half", path, "a number");
      if (curve->get("rms")) f.rms = required<double>(*curve, "rms", path, "a number");
      f.points = static_cast<int>(c.gemm_points.size());
      if (curve->get("fallback")) f.fallback = required<std::string>(*curve, "fallback", path, "a string");
      if (!acceptable_curve(f.max, f.half))
        bad(path, curve->source(), fmt::format("GEMM curve max must be in (0, {}] and half in [0, {:.0f}]",
                                               max_gemm_curve_max, max_gemm_half));
      c.gemm_curve = f;
    }
  }
  return c;
}

Calibration load_calibration(const std::string& path) {
  return parse_calibration(read_file_capped(path, "calibration file", max_calibration_bytes), path);
}

void finish_calibration(Calibration& c, const Device& d) {
  if (c.gemm_points_unit == "FLOP/s" && !c.gemm_points.empty()) {
    const double peak = d.peak_for(parse_dtype(c.gemm_dtype)).value();
    for (auto& p : c.gemm_points) p.efficiency /= peak;
    c.gemm_points_unit = "efficiency";
  }
  if (c.gemm_points.size() >= 2 && !c.gemm_curve) c.gemm_curve = fit_gemm_curve(c.gemm_points);
}

void check_calibration_for(const Calibration& c, const Device& d, const std::string& path) {
  if (c.accelerator != d.id)
    fail(Exit::usage, fmt::format("calibration '{}' was measured on {} ({}), not {}; use --gpu {} or probe this device",
                                  path, c.accelerator, c.device_name, d.id, c.accelerator));
  // A rate far above the datasheet's is not a measurement of this device (1e16 FLOP/s of BF16
  // on an H100 gave an MFU of 626%). Boost clocks and a conservative catalog figure stay well
  // within a quarter above it.
  for (const auto& x : compare_with_catalog(c, d))
    if (x.ratio && *x.ratio > max_measured_over_catalog)
      fail(Exit::data, fmt::format("{}: error: {} measured {:.4g} is {:.3g}x the catalog's {} for {} ({:.4g}); more than {}x "
                                   "is not a measurement of this device",
                                   path, x.measured->metric, x.measured->value, *x.ratio, x.reference_name, d.id, x.reference,
                                   max_measured_over_catalog));
}

namespace {
const char* metric_for(DType t) {
  switch (t) {
    case DType::fp32: return "gemm_fp32";
    case DType::tf32: return "gemm_tf32";
    case DType::bf16: return "gemm_bf16";
    case DType::fp16: return "gemm_fp16";
    case DType::fp8: return "gemm_fp8";
    default: return "gemm_bf16";
  }
}
const Measurement* memory_measurement(const Calibration& c) {
  for (const char* m : {"hbm_triad", "stream_triad", "hbm_read", "hbm_copy"})
    if (const Measurement* x = c.find(m)) return x;
  return nullptr;
}
}  // namespace

std::vector<std::string> apply_calibration(const Calibration& c, const Device& d, DType compute, Efficiency& eff) {
  std::vector<std::string> notes;
  const Measurement* g = c.find(metric_for(compute));
  if (!g && c.kind == "cpu") g = c.find("gemm_fp32");  // a CPU runs every 16-bit GEMM in fp32
  if (g) {
    const std::string dtype = g->metric.substr(5);
    const double peak = d.peak_for(parse_dtype(dtype)).value();
    const double measured = g->value / peak;
    if (c.gemm_curve && c.gemm_dtype == dtype) {
      eff.gemm_max = c.gemm_curve->max;
      eff.gemm_half = c.gemm_curve->half;
      eff.gemm_half_fused = c.gemm_curve->half;  // square GEMMs alone: their own depth
      eff.fused_origin = "the calibration file's measured GEMMs";
      notes.push_back(fmt::format("GEMM efficiency {:.3f} max, half-size {:.0f} (fitted to {} measured sizes; best {:.1f}% of peak)",
                                  eff.gemm_max, eff.gemm_half, c.gemm_curve->points, 100 * measured));
    } else {
      if (compute == DType::fp8) eff.gemm_max_fp8 = measured;
      else eff.gemm_max = measured;
      notes.push_back(fmt::format("GEMM efficiency {:.3f} ({} measured {})", measured, g->metric, g->value));
    }
  }
  if (const Measurement* m = memory_measurement(c)) {
    eff.memory = m->value / d.memory_bw.value();
    notes.push_back(fmt::format("memory efficiency {:.3f} ({} measured {:.4g} B/s)", eff.memory, m->metric, m->value));
  }
  eff.origin = "calibration";
  return notes;
}

std::vector<std::string> apply_calibration(const Calibration& c, const Device& d, DecodeEfficiency& dec) {
  std::vector<std::string> notes;
  const Measurement* m = memory_measurement(c);
  if (!m) return notes;
  // Decode streams like the probe's kernels but pays more per byte than they do; the default
  // decode efficiency scales by the measured-to-default streaming ratio.
  const double ratio = (m->value / d.memory_bw.value()) / default_efficiency(d).memory;
  dec.bandwidth = std::min(1.0, dec.bandwidth * ratio);
  dec.origin = fmt::format("calibration: default scaled by measured streaming ({:.3f} of the default)", ratio);
  notes.push_back(dec.origin);
  return notes;
}

std::vector<Comparison> compare_with_catalog(const Calibration& c, const Device& d) {
  std::vector<Comparison> out;
  for (const auto& m : c.measurements) {
    Comparison x;
    x.measured = &m;
    const std::string dtype = m.metric.rfind("gemm_", 0) == 0 ? m.metric.substr(5) : std::string();
    if (dtype == "fp32" || dtype == "tf32" || dtype == "bf16" || dtype == "fp16" || dtype == "fp8") {
      const double peak = d.peak[static_cast<int>(parse_dtype(dtype))];
      if (peak > 0) x.reference = peak, x.reference_name = "dense peak";
    } else if (m.metric.rfind("hbm_", 0) == 0 || m.metric == "stream_triad") {
      x.reference = d.memory_bw.value(), x.reference_name = "memory bandwidth";
    } else if (m.metric == "h2d_pinned" || m.metric == "d2h_pinned") {
      x.reference = d.host.bw_per_direction.value(), x.reference_name = "host link";
    } else if (m.metric.rfind("p2p_", 0) == 0) {
      x.reference = d.scale_up.bw_per_direction.value(), x.reference_name = "scale-up link";
    }
    if (x.reference > 0 && m.value > 0) x.ratio = m.value / x.reference;
    out.push_back(std::move(x));
  }
  return out;
}

}  // namespace gpuplan
