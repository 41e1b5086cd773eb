// SPDX-License-Identifier: Apache-2.0
#pragma once
// One parser for human quantities, used by command-line flags, catalogs and plan files
// alike: "70B", "80GiB", "3.35TB/s", "400Gb/s", "700W", "4w", "$2.49/h", "0.08/kWh".
// Locale-independent (std::from_chars). Results are plain SI numbers: bytes, bytes/s,
// FLOP/s, watts, seconds, USD, USD/s (for per-hour prices) and USD/J (for energy prices).
#include <stdexcept>
#include <string>
#include <string_view>

namespace gpuplan {

enum class QuantityKind {
  count,           // 70B, 1.5T, 405e9, 8k
  bytes,           // 80GB (SI), 80GiB (IEC), 512 (bytes)
  byte_rate,       // 3.35TB/s, 900GB/s, 400Gb/s (bits), 25Gbps
  flop_rate,       // 989.4T, 989.4TFLOP/s, 1.979PFLOPS
  power,           // 700W, 10.2kW, 150MW
  duration,        // 90s, 36h, 30d, 4w, 1y, 50ms
  money,           // $5.5M, 250000, $1.2k
  money_per_hour,  // $2.49/h, 2.49/hr (returned as USD per second)
  money_per_kwh,   // $0.08/kWh, 80/MWh (returned as USD per joule)
  fraction,        // 0.45 or 45%
  real,            // a plain non-negative number
};

// What the kind accepts, for error messages ("a byte size such as 80GB or 80GiB").
std::string_view describe(QuantityKind kind);

struct QuantityError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// Parses text as kind; throws QuantityError with a message that quotes the text and
// says what is accepted. Rejects empty text, negatives, NaN, infinity, overflow,
// trailing junk and unknown suffixes.
double parse_quantity(std::string_view text, QuantityKind kind);

}  // namespace gpuplan
