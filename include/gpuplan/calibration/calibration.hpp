// SPDX-License-Identifier: Apache-2.0
#pragma once
// What a probe measured on one device, as written to and read from a calibration file (TOML,
// schema 1), and how the models use it: measured GEMM and memory rates replace the default
// efficiencies of the accelerator the file names; datasheet peaks stay the MFU denominators.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpuplan/analysis/device.hpp"
#include "gpuplan/analysis/inference.hpp"
#include "gpuplan/analysis/step.hpp"

namespace gpuplan {

constexpr int calibration_schema = 1;

// Robust summary of timing samples (rates): the median is the planning value.
struct Stats {
  double median = 0, p10 = 0, p90 = 0, max = 0, cv = 0;
  int n = 0;
};
Stats summarize(std::vector<double> samples);

struct Measurement {
  std::string metric;  // gemm_bf16, gemm_fp32, hbm_read, hbm_triad, stream_triad, h2d_pinned, launch_roundtrip, ...
  double value = 0;    // the median, in SI units
  std::string unit;    // FLOP/s, B/s, s
  Stats stats;
  std::string method;  // library or kernel, layout, byte-counting convention
  std::string params;  // shape, buffer sizes, repetitions
  std::string status = "ok";  // ok, unsupported, suspect, skipped (with the reason after a colon)
};

// GEMM efficiency against square size n: the step model's curve with m = k = n (gemm_curve),
// eff(n) = max n / (n + 2.5 half) / w(n), w(n) = 1 + 50 x 128^2 / n^2. Fitted by least squares on
// 1 / (eff w) = 1/max + (2.5 half / max) / n.
struct CurvePoint {
  double n = 0, efficiency = 0;
};
struct CurveFit {
  double max = 0, half = 0, rms = 0;  // rms: root mean square of the relative residuals
  int points = 0;
  std::string fallback;  // why the default shape was used instead of the fit; empty when fitted
};
// A measured rate above the catalog's figure for it by more than this is bad data (exit 65).
constexpr double max_measured_over_catalog = 1.25;
// What a calibration file may hold: max in (0, max_gemm_curve_max], half in [0, max_gemm_half].
constexpr double max_gemm_curve_max = 1.5, max_gemm_half = 1e6;
bool acceptable_curve(double max, double half);
// Throws Error(data) with fewer than 2 points. Noisy points (efficiency falling with size, as
// on a loaded machine) can fit a max outside what a calibration file may hold; then the step
// model's default shape (half-size Efficiency::gemm_half) is scaled to the best measured point,
// and `fallback` says so: a probe never writes a file its loader refuses.
CurveFit fit_gemm_curve(const std::vector<CurvePoint>& points);

struct Calibration {
  int schema = calibration_schema;
  std::string tool, created;  // who wrote it and when (UTC)
  std::string kind;           // cpu or cuda
  std::string device_name;    // as the driver or the OS reports it
  std::string accelerator;    // catalog id it calibrates
  std::vector<std::pair<std::string, std::string>> facts;  // device facts, as text
  std::vector<Measurement> measurements;
  std::vector<CurvePoint> gemm_points;  // by square size, for dtype gemm_dtype
  std::string gemm_dtype;
  std::string gemm_points_unit = "efficiency";  // or FLOP/s, as the CUDA probe writes them
  std::optional<CurveFit> gemm_curve;

  const Measurement* find(std::string_view metric) const;
};

std::string to_toml(const Calibration& c);
// Now, as 2026-12-02T16:00:00Z: when a probe measured (only calibration files carry a time).
std::string utc_timestamp();
// Parses a calibration file; errors are "path:line:col: error: ..." (Error data).
Calibration parse_calibration(std::string_view text, const std::string& path);
Calibration load_calibration(const std::string& path);  // Error(no_input) when unreadable

// Turns FLOP/s curve points into efficiencies against the device's datasheet peak and fits
// the curve (the CUDA probe does not know the catalog).
void finish_calibration(Calibration& c, const Device& d);

// Refuses (Error usage) a calibration measured on another accelerator than `d`.
void check_calibration_for(const Calibration& c, const Device& d, const std::string& path);
// Measured figures in place of the defaults; returns one line per figure replaced.
// A measurement beside the catalog figure it measures (GEMM: the dense peak of its type; memory
// streams: the memory bandwidth; host copies: the host link; peer copies: the scale-up link).
struct Comparison {
  const Measurement* measured = nullptr;
  double reference = 0;        // the catalog's figure; 0: none to compare with
  std::string reference_name;  // "dense peak", "memory bandwidth", ...; empty: none
  std::optional<double> ratio; // measured over the catalog's figure
};
std::vector<Comparison> compare_with_catalog(const Calibration& c, const Device& d);

std::vector<std::string> apply_calibration(const Calibration& c, const Device& d, DType compute, Efficiency& eff);
std::vector<std::string> apply_calibration(const Calibration& c, const Device& d, DecodeEfficiency& dec);

}  // namespace gpuplan
