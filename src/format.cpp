// SPDX-License-Identifier: Apache-2.0
#include "gpuplan/format.hpp"

#include <array>
#include <cmath>
#include <cctype>
#include <fmt/format.h>

#include "gpuplan/error.hpp"

namespace gpuplan {

std::string format_sig(double value, int digits) {
  if (value == 0) return "0";
  if (!std::isfinite(value)) return value > 0 ? "inf" : (value < 0 ? "-inf" : "nan");
  double mag = std::fabs(value);
  if (mag >= 1e15 || mag < 1e-4) return fmt::format("{:.{}e}", value, digits - 1);
  int exponent = static_cast<int>(std::floor(std::log10(mag)));
  int decimals = std::max(0, digits - 1 - exponent);
  std::string text = fmt::format("{:.{}f}", value, decimals);
  // Rounding may carry into a new digit (9.996 -> 10.00): trim to the right width again.
  double rounded = std::stod(text);
  if (std::floor(std::log10(std::fabs(rounded))) > exponent && decimals > 0)
    text = fmt::format("{:.{}f}", value, decimals - 1);
  return text;
}

std::string format_si(double value, const std::string& unit) {
  static constexpr std::array<std::pair<double, const char*>, 7> prefixes{
      {{1e18, "E"}, {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}}};
  double mag = std::fabs(value);
  for (const auto& [scale, prefix] : prefixes) {
    if (mag < scale * 0.9995) continue;
    // A bare count (no prefix, no unit) has no trailing space: "12", not "12 ".
    if (*prefix == '\0' && unit.empty()) return format_sig(value / scale);
    return fmt::format("{} {}{}", format_sig(value / scale), prefix, unit);
  }
  // A bare count below one is written as a number: "208 m" GPU-hours reads as minutes or metres.
  if (unit.empty()) return format_sig(value);
  if (mag >= 1e-3 * 0.9995) return fmt::format("{} m{}", format_sig(value * 1e3), unit);
  // Micro and nano in ASCII, as the rest of the output writes them ("398 us").
  if (!unit.empty() && mag >= 1e-6 * 0.9995) return fmt::format("{} u{}", format_sig(value * 1e6), unit);
  if (!unit.empty() && mag >= 1e-9 * 0.9995) return fmt::format("{} n{}", format_sig(value * 1e9), unit);
  if (mag == 0) return fmt::format("0 {}", unit);
  return fmt::format("{} {}", format_sig(value), unit);
}

std::string format_tonnes(double tonnes) {
  const double mag = std::fabs(tonnes);
  if (mag != 0 && mag < 0.9995) return fmt::format("{} kg", format_sig(tonnes * 1e3));
  if (mag >= 1e9 * 0.9995) return fmt::format("{} Gt", format_sig(tonnes / 1e9));
  if (mag >= 1e6 * 0.9995) return fmt::format("{} Mt", format_sig(tonnes / 1e6));
  if (mag >= 1e3 * 0.9995) return fmt::format("{} kt", format_sig(tonnes / 1e3));
  return fmt::format("{} t", format_sig(tonnes));
}

std::string format_iec(double bytes) {
  static constexpr std::array<const char*, 6> names{"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = bytes;
  std::size_t i = 0;
  while (std::fabs(v) >= 1023.5 && i + 1 < names.size()) {
    v /= 1024.0;
    ++i;
  }
  return fmt::format("{} {}", format_sig(v), names[i]);
}

std::string format_duration(double s) {
  double mag = std::fabs(s);
  if (mag < 1) return format_si(s, "s");
  if (mag < 120) return format_sig(s) + " s";
  if (mag < 7200) return format_sig(s / 60) + " min";
  if (mag < 3 * 86400) return format_sig(s / 3600) + " h";
  if (mag < 60 * 86400) return format_sig(s / 86400) + " d";
  if (mag < 730 * 86400) return format_sig(s / (7 * 86400)) + " w";
  return format_sig(s / (365 * 86400)) + " y";
}

std::string format_usd(double usd) {
  double mag = std::fabs(usd);
  if (mag >= 1e9) return "$" + format_sig(usd / 1e9) + "B";
  if (mag >= 1e6) return "$" + format_sig(usd / 1e6) + "M";
  if (mag >= 1e3) return "$" + format_sig(usd / 1e3) + "k";
  if (mag >= 100) return fmt::format("${:.0f}", usd);
  if (mag >= 1) return fmt::format("${:.2f}", usd);
  return "$" + format_sig(usd);
}

std::string format_exact(double value) {
  if (!std::isfinite(value)) return "null";
  if (value == std::floor(value) && std::fabs(value) < 9.007199254740992e15)
    return fmt::format("{}", static_cast<long long>(value));
  return fmt::format("{}", value);
}

namespace {
bool leap(long y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }
// Leap years from year 1 up to, not including, y.
long leaps_before(long y) { return (y - 1) / 4 - (y - 1) / 100 + (y - 1) / 400; }
constexpr int month_days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
int days_in(long y, int m) { return month_days[m - 1] + (m == 2 && leap(y)); }
}  // namespace

long parse_date(const std::string& text) {
  bool form = text.size() == 10;
  for (std::size_t i = 0; form && i < text.size(); ++i) form = i == 4 || i == 7 ? text[i] == '-' : std::isdigit(static_cast<unsigned char>(text[i]));
  const int y = form ? std::stoi(text.substr(0, 4)) : 0, m = form ? std::stoi(text.substr(5, 2)) : 0,
            d = form ? std::stoi(text.substr(8, 2)) : 0;
  if (!form || y < 1970 || y > 9999 || m < 1 || m > 12 || d < 1 || d > days_in(y, m))
    fail(Exit::usage, fmt::format("date '{}' is not a calendar date; expected YYYY-MM-DD, from 1970 to 9999", text));
  long days = 365L * (y - 1970) + leaps_before(y) - leaps_before(1970) + d - 1;
  for (int k = 1; k < m; ++k) days += days_in(y, k);
  return days;
}

std::string format_date(long days) {
  long y = 1970;
  while (days >= 365 + leap(y)) days -= 365 + leap(y++);
  int m = 1;
  while (days >= days_in(y, m)) days -= days_in(y, m++);
  return fmt::format("{:04d}-{:02d}-{:02d}", y, m, days + 1);
}

std::string toml_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') out += '\\';
    if ((u < 0x20 && c != '\t') || u == 0x7f) {
      out += fmt::format("\\u{:04x}", u);
      continue;
    }
    out += c;
  }
  return out + "\"";
}

}  // namespace gpuplan
