// SPDX-License-Identifier: Apache-2.0
#pragma once
// Numbers for people: about three significant digits, SI prefixes for rates and FLOPs,
// IEC prefixes for memory capacity. Numbers for machines: shortest round-trip text.
#include <string>

namespace gpuplan {

// 3 significant digits, no exponent for ordinary magnitudes: 989, 3.35, 0.0123, 1.23e-07.
std::string format_sig(double value, int digits = 3);
// SI prefix and unit: format_si(3.35e12, "B/s") == "3.35 TB/s".
std::string format_si(double value, const std::string& unit);
// A mass in metric tonnes: "352 kt", "17.8 t", "850 kg" (never "mt", which reads as metric tons).
std::string format_tonnes(double tonnes);
// IEC prefix for capacities: format_iec(80e9) == "74.5 GiB".
std::string format_iec(double bytes);
// Durations: 90 s, 36.0 h, 12.3 d, 4.2 w, 1.5 y.
std::string format_duration(double seconds);
// Money: $5.58M, $2.49, $0.0123.
std::string format_usd(double usd);
// Calendar dates (proleptic Gregorian, UTC): "2027-01-04" as days since 1970-01-01 and back.
// parse_date throws Error(usage) naming the text and the form it accepts (YYYY-MM-DD, 1970-9999).
long parse_date(const std::string& text);
std::string format_date(long days);
// Full precision for JSON and CSV: integers without a fraction, others round-trip exact.
std::string format_exact(double value);
// A TOML basic string: quotes and backslashes escaped, control characters (other than tab) as
// \uXXXX, which TOML 1.0 requires, so that whatever a loader accepted reads back (found by
// fuzz_calibration: a device name holding U+0001).
std::string toml_string(const std::string& s);

}  // namespace gpuplan
