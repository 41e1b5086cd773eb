// SPDX-License-Identifier: Apache-2.0
// Calibration: statistics, the curve fit on synthetic data with a known answer, the file round
// trip, its use by the models, and the refusal of a file measured on another device.
#include <catch2/catch.hpp>
#include <cmath>

#include "gpuplan/records.hpp"
#include "gpuplan/calibration/calibration.hpp"
#include "gpuplan/catalog/catalog.hpp"
#include "gpuplan/error.hpp"

using namespace gpuplan;
using Approx = Catch::Detail::Approx;

namespace {
Calibration sample() {
  Calibration c;
  c.tool = "test";
  c.created = "2026-12-02T00:00:00Z";
  c.kind = "cuda";
  c.device_name = "NVIDIA H100 80GB HBM3";
  c.accelerator = "h100-sxm";
  c.facts = {{"note", "quote \" and backslash \\"}, {"sms", "132"}};  // sorted by key, as files keep them
  Measurement g{"gemm_bf16", 7.0e14, "FLOP/s", summarize({6.9e14, 7.0e14, 7.1e14}), "cuBLASLt", "n = 8192", "ok"};
  Measurement m{"hbm_triad", 2.9e12, "B/s", summarize({2.9e12}), "kernel", "1 GiB", "ok"};
  Measurement u{"gemm_fp8", 0, "FLOP/s", {}, "", "", "unsupported: test"};
  c.measurements = {g, m, u};
  return c;
}
}  // namespace

TEST_CASE("Sample statistics use the median and interpolated percentiles") {
  Stats s = summarize({5, 1, 4, 2, 3});
  CHECK(s.median == 3);
  CHECK(s.p10 == Approx(1.4));
  CHECK(s.p90 == Approx(4.6));
  CHECK(s.max == 5);
  CHECK(s.n == 5);
  // Sample standard deviation sqrt(2.5) over the mean 3.
  CHECK(s.cv == Approx(std::sqrt(2.5) / 3));
  CHECK(summarize({}).n == 0);
}

TEST_CASE("The GEMM curve fit recovers a known curve") {
  // eff(n) = 0.8 x n / (n + 2.5 x 512) / (1 + 50 x 128^2 / n^2): the step model's curve for square GEMMs.
  std::vector<CurvePoint> pts;
  for (double n : {256.0, 512.0, 1024.0, 4096.0, 16384.0})
    pts.push_back({n, 0.8 * n / (n + 2.5 * 512) / (1 + 50.0 * 128 * 128 / (n * n))});
  CurveFit f = fit_gemm_curve(pts);
  CHECK(f.max == Approx(0.8).epsilon(1e-9));
  CHECK(f.half == Approx(512).epsilon(1e-9));
  CHECK(f.rms < 1e-9);
  CHECK_THROWS_AS(fit_gemm_curve({{1024, 0.5}}), Error);
}

TEST_CASE("A GEMM fit the loader would refuse falls back to the default shape through the best point") {
  // Efficiency 0.2 at n = 1024 and 0.5 at 2048 (a quick run on a loaded machine): with the tile
  // factors w = 1 + 50 x 128^2 / n^2 (1.78125 and 1.1953125), 1/(eff w) = a + b/n gives a = 0.539
  // and b = 2323, a max of 1.86, outside (0, 1.5]. The default shape (half 512) through the best
  // point: max = 0.5 x (1 + 2.5 x 512 / 2048) x 1.1953125 = 0.97119140625.
  const std::vector<CurvePoint> noisy = {{1024, 0.2}, {2048, 0.5}};
  const CurveFit f = fit_gemm_curve(noisy);
  CHECK_FALSE(f.fallback.empty());
  CHECK(f.max == Approx(0.97119140625));
  CHECK(f.half == 512);
  CHECK(acceptable_curve(f.max, f.half));
  // The curve meets the best point exactly; at n = 1024 it gives max x 1024/2304 / 1.78125.
  const double at_1024 = 0.97119140625 * 1024 / 2304 / 1.78125;
  CHECK(f.rms == Approx(std::sqrt(std::pow(at_1024 / 0.2 - 1, 2) / 2)));
  // Capped at the largest max a file may hold.
  CHECK(fit_gemm_curve({{256, 0.1}, {512, 0.9}}).max == 1.5);
  // And the file it is written to loads, keeping the reason.
  Calibration c = sample();
  c.gemm_dtype = "bf16";
  c.gemm_points = noisy;
  c.gemm_curve = f;
  const Calibration r = parse_calibration(to_toml(c), "noisy.toml");
  REQUIRE(r.gemm_curve);
  CHECK(r.gemm_curve->max == Approx(0.97119140625));
  CHECK(r.gemm_curve->fallback == f.fallback);
}

TEST_CASE("A calibration file survives a round trip") {
  Calibration c = sample();
  c.gemm_dtype = "bf16";
  c.gemm_points = {{1024, 0.5}, {8192, 0.75}};
  c.gemm_curve = fit_gemm_curve(c.gemm_points);
  Calibration r = parse_calibration(to_toml(c), "mem.toml");
  CHECK(r.schema == 1);
  CHECK(r.kind == "cuda");
  CHECK(r.device_name == c.device_name);
  CHECK(r.accelerator == "h100-sxm");
  CHECK(r.facts == c.facts);
  REQUIRE(r.measurements.size() == 3);
  CHECK(r.measurements[0].value == 7.0e14);
  CHECK(r.measurements[0].stats.p90 == c.measurements[0].stats.p90);
  CHECK(r.measurements[2].status == "unsupported: test");
  CHECK(r.find("gemm_fp8") == nullptr);  // unsupported is not a figure
  REQUIRE(r.gemm_curve);
  CHECK(r.gemm_curve->max == c.gemm_curve->max);
  CHECK(r.gemm_points.size() == 2);
  CHECK(to_toml(r) == to_toml(c));
}

TEST_CASE("Malformed calibration files are refused with their position") {
  auto msg = [](const char* text) {
    try {
      parse_calibration(text, "c.toml");
    } catch (const Error& e) {
      CHECK(e.code() == Exit::data);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(msg("schema = 2\nkind = \"cpu\"\ndevice_name = \"x\"\naccelerator = \"cpu-desktop\"\n") ==
        "c.toml:1:10: error: schema 2 is not supported; this gpuplan reads schema 1");
  CHECK(msg("schema = 1\ndevice_name = \"x\"\naccelerator = \"a\"\n").find("missing 'kind'") != std::string::npos);
  CHECK(msg("schema = 1\nkind = \"tpu\"\ndevice_name = \"x\"\naccelerator = \"a\"\n").find("c.toml:2:8: error: 'kind' must be cpu or cuda") == 0);
  CHECK(msg("schema = [").rfind("c.toml:1:", 0) == 0);
  CHECK(msg("schema = 1\nkind = \"cpu\"\ndevice_name = \"x\"\naccelerator = \"a\"\n[[measurement]]\nmetric = \"m\"\nvalue = \"fast\"\nunit = \"B/s\"\n")
            .find("'value' must be a number") != std::string::npos);
}

TEST_CASE("A calibration replaces the default efficiencies of its device only") {
  Catalog cat = Catalog::builtin();
  Device h100 = resolve_device(cat, "h100-sxm");
  Calibration c = sample();
  Efficiency e = default_efficiency(h100);
  auto notes = apply_calibration(c, h100, DType::bf16, e);
  CHECK(e.gemm_max == Approx(7.0e14 / 989.4e12).epsilon(1e-3));
  CHECK(e.memory == Approx(2.9e12 / 3.35e12).epsilon(1e-3));
  CHECK(e.origin == "calibration");
  CHECK(notes.size() == 2);
  // Decode scales with the measured streaming against the family default (0.88 for Hopper).
  DecodeEfficiency d = decode_efficiency(h100, 4.5);
  apply_calibration(c, h100, d);
  CHECK(d.bandwidth == Approx(0.72 * (2.9e12 / 3.35e12) / 0.88).epsilon(1e-3));
  // A fitted curve wins over the single best figure.
  c.gemm_dtype = "bf16";
  c.gemm_points = {{1024, 0.4}, {8192, 0.7}};
  c.gemm_curve = fit_gemm_curve(c.gemm_points);
  Efficiency e2 = default_efficiency(h100);
  apply_calibration(c, h100, DType::bf16, e2);
  CHECK(e2.gemm_max == c.gemm_curve->max);
  CHECK(e2.gemm_half == c.gemm_curve->half);
  CHECK(e2.gemm_half_fused == c.gemm_curve->half);  // square GEMMs alone: the fused trainers' depth too
  // Measured on an H100, refused for an A100.
  CHECK_NOTHROW(check_calibration_for(c, h100, "h100.toml"));
  CHECK_THROWS_AS(check_calibration_for(c, resolve_device(cat, "a100-80gb"), "h100.toml"), Error);
}

TEST_CASE("CUDA probe curve points in FLOP/s become efficiencies against the catalog peak") {
  Catalog cat = Catalog::builtin();
  Device h100 = resolve_device(cat, "h100-sxm");
  Calibration c = sample();
  c.gemm_dtype = "bf16";
  c.gemm_points_unit = "FLOP/s";
  c.gemm_points = {{1024, 0.4 * 989.4e12}, {8192, 0.7 * 989.4e12}};
  finish_calibration(c, h100);
  CHECK(c.gemm_points_unit == "efficiency");
  CHECK(c.gemm_points[1].efficiency == Approx(0.7));
  REQUIRE(c.gemm_curve);
  CHECK(c.gemm_curve->points == 2);
}

TEST_CASE("Measurements are compared with the catalog figure each one measures") {
  Catalog cat = Catalog::builtin();
  const Device d = resolve_device(cat, "h100-sxm");
  Calibration c;
  c.accelerator = "h100-sxm";
  auto add = [&](const char* metric, double value, const char* unit) {
    Measurement m;
    m.metric = metric, m.value = value, m.unit = unit;
    c.measurements.push_back(m);
  };
  add("gemm_bf16", 791e12, "FLOP/s");       // of the 989.4 TFLOP/s dense BF16 peak
  add("hbm_triad", 2.97e12, "B/s");         // of 3.35 TB/s
  add("h2d_pinned", 55e9, "B/s");           // of PCIe 5's 64 GB/s a direction
  add("launch_roundtrip", 5e-6, "s");       // nothing in the catalog measures it
  const std::vector<Comparison> x = compare_with_catalog(c, d);
  REQUIRE(x.size() == 4);
  CHECK(x[0].reference_name == "dense peak");
  CHECK(*x[0].ratio == Approx(791e12 / d.peak[static_cast<int>(DType::bf16)]));
  CHECK(x[1].reference == d.memory_bw.value());
  CHECK(*x[1].ratio == Approx(2.97 / 3.35).epsilon(1e-3));
  CHECK(x[2].reference_name == "host link");
  CHECK(*x[2].ratio == Approx(55.0 / 64));
  CHECK(x[3].reference == 0);
  CHECK_FALSE(x[3].ratio);
}
