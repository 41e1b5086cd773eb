// SPDX-License-Identifier: Apache-2.0
// Quantities read from text with their units (quantity.hpp): plain SI numbers, locale-independent.
#include "gpuplan/quantity.hpp"

#include <array>
#include <cerrno>
#include <charconv>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>
#include <fmt/format.h>
#include <utility>

#include "gpuplan/error.hpp"

namespace gpuplan {
namespace {

// std::from_chars for a double, where the standard library has it (libstdc++ 11 on). libc++
// before 17 (the web build's emscripten) has not: there the longest decimal number at the start
// (digits, a point, digits, an exponent), which is what from_chars reads, goes to strtod in the
// "C" locale the program runs in.
std::from_chars_result decimal_from_chars(const char* b, const char* e, double& v) {
#if defined(_LIBCPP_VERSION) && _LIBCPP_VERSION < 170000
  const char* p = b;
  const auto digits = [&] {
    const char* from = p;
    while (p < e && std::isdigit(static_cast<unsigned char>(*p))) ++p;
    return p > from;
  };
  bool any = digits();
  if (p < e && *p == '.') {
    ++p;
    any = digits() || any;
  }
  if (!any) return {b, std::errc::invalid_argument};
  if (p < e && (*p == 'e' || *p == 'E')) {
    const char* mark = p++;
    if (p < e && (*p == '+' || *p == '-')) ++p;
    if (!digits()) p = mark;
  }
  const std::string text(b, p);
  errno = 0;
  const double r = std::strtod(text.c_str(), nullptr);
  if (errno == ERANGE) return {p, std::errc::result_out_of_range};
  v = r;
  return {p, std::errc()};
#else
  return std::from_chars(b, e, v, std::chars_format::general);
#endif
}

struct Suffix {
  std::string_view text;
  double factor;
};

// Suffix tables per kind. Matching is exact after the number and optional spaces.
constexpr std::array count_suffixes{Suffix{"", 1}, Suffix{"k", 1e3}, Suffix{"K", 1e3},
                                    Suffix{"M", 1e6}, Suffix{"B", 1e9}, Suffix{"G", 1e9},
                                    Suffix{"T", 1e12}, Suffix{"P", 1e15}};
constexpr double ki = 1024.0;
constexpr std::array byte_suffixes{
    Suffix{"", 1},           Suffix{"B", 1},           Suffix{"kB", 1e3},
    Suffix{"KB", 1e3},       Suffix{"MB", 1e6},        Suffix{"GB", 1e9},
    Suffix{"TB", 1e12},      Suffix{"PB", 1e15},       Suffix{"EB", 1e18},
    Suffix{"KiB", ki},       Suffix{"MiB", ki * ki},   Suffix{"GiB", ki * ki * ki},
    Suffix{"TiB", ki * ki * ki * ki}, Suffix{"PiB", ki * ki * ki * ki * ki}};
constexpr std::array byte_rate_suffixes{
    Suffix{"B/s", 1},       Suffix{"kB/s", 1e3},    Suffix{"KB/s", 1e3},   Suffix{"MB/s", 1e6},
    Suffix{"GB/s", 1e9},    Suffix{"TB/s", 1e12},   Suffix{"PB/s", 1e15},  Suffix{"GiB/s", ki * ki * ki},
    Suffix{"MiB/s", ki * ki}, Suffix{"TiB/s", ki * ki * ki * ki},
    // bits per second, as network links are sold
    Suffix{"b/s", 0.125},   Suffix{"kb/s", 125},    Suffix{"Mb/s", 1.25e5},  Suffix{"Gb/s", 1.25e8},
    Suffix{"Tb/s", 1.25e11}, Suffix{"bps", 0.125},  Suffix{"kbps", 125},     Suffix{"Mbps", 1.25e5},
    Suffix{"Gbps", 1.25e8}, Suffix{"Tbps", 1.25e11}};
constexpr std::array flop_rate_suffixes{
    Suffix{"", 1},          Suffix{"G", 1e9},        Suffix{"T", 1e12},         Suffix{"P", 1e15},
    Suffix{"E", 1e18},      Suffix{"FLOP/s", 1},     Suffix{"GFLOP/s", 1e9},    Suffix{"TFLOP/s", 1e12},
    Suffix{"PFLOP/s", 1e15}, Suffix{"EFLOP/s", 1e18}, Suffix{"FLOPS", 1},      Suffix{"GFLOPS", 1e9},
    Suffix{"TFLOPS", 1e12}, Suffix{"PFLOPS", 1e15},  Suffix{"EFLOPS", 1e18},   Suffix{"TOPS", 1e12},
    Suffix{"POPS", 1e15}};
constexpr std::array power_suffixes{Suffix{"W", 1}, Suffix{"kW", 1e3}, Suffix{"KW", 1e3},
                                    Suffix{"MW", 1e6}, Suffix{"GW", 1e9}};
constexpr double hour = 3600, day = 86400;
constexpr std::array duration_suffixes{
    Suffix{"", 1},        Suffix{"s", 1},         Suffix{"ms", 1e-3},      Suffix{"us", 1e-6},
    Suffix{"min", 60},    Suffix{"m", 60},        Suffix{"h", hour},       Suffix{"hr", hour},
    Suffix{"d", day},     Suffix{"w", 7 * day},   Suffix{"y", 365 * day}};
constexpr std::array money_suffixes{Suffix{"", 1}, Suffix{"k", 1e3}, Suffix{"K", 1e3},
                                    Suffix{"M", 1e6}, Suffix{"B", 1e9}};
constexpr std::array per_hour_suffixes{Suffix{"/h", 1 / hour}, Suffix{"/hr", 1 / hour},
                                       Suffix{"/hour", 1 / hour}};
constexpr double kwh = 3.6e6;
constexpr std::array per_kwh_suffixes{Suffix{"/kWh", 1 / kwh}, Suffix{"/MWh", 1 / (1000 * kwh)}};
constexpr std::array fraction_suffixes{Suffix{"", 1}, Suffix{"%", 0.01}};
constexpr std::array real_suffixes{Suffix{"", 1}};

// The suffix as written; else, ignoring case ("70b", "4W", "80gib"), when every suffix that
// matches so means the same factor. "gb/s" matches both GB/s and Gb/s and is refused.
template <std::size_t N>
bool match(std::string_view rest, const std::array<Suffix, N>& table, double& factor) {
  for (const auto& s : table) {
    if (rest == s.text) {
      factor = s.factor;
      return true;
    }
  }
  bool found = false;
  for (const auto& s : table) {
    if (!same_ignoring_case(rest, s.text)) continue;
    if (found && s.factor != factor) return false;
    factor = s.factor;
    found = true;
  }
  return found;
}

bool lookup(QuantityKind kind, std::string_view rest, double& factor) {
  switch (kind) {
    case QuantityKind::count: return match(rest, count_suffixes, factor);
    case QuantityKind::bytes: return match(rest, byte_suffixes, factor);
    case QuantityKind::byte_rate: return match(rest, byte_rate_suffixes, factor);
    case QuantityKind::flop_rate: return match(rest, flop_rate_suffixes, factor);
    case QuantityKind::power: return match(rest, power_suffixes, factor);
    case QuantityKind::duration: return match(rest, duration_suffixes, factor);
    case QuantityKind::money: return match(rest, money_suffixes, factor);
    case QuantityKind::money_per_hour: return match(rest, per_hour_suffixes, factor);
    case QuantityKind::money_per_kwh: return match(rest, per_kwh_suffixes, factor);
    case QuantityKind::fraction: return match(rest, fraction_suffixes, factor);
    case QuantityKind::real: return match(rest, real_suffixes, factor);
  }
  return false;
}

bool is_money(QuantityKind kind) {
  return kind == QuantityKind::money || kind == QuantityKind::money_per_hour ||
         kind == QuantityKind::money_per_kwh;
}

}  // namespace

std::string_view describe(QuantityKind kind) {
  switch (kind) {
    case QuantityKind::count: return "a count such as 70B, 1.5T, 405e9 or 8k (k, M, B/G, T, P)";
    case QuantityKind::bytes: return "a size such as 80GB, 80GiB or 512 (B, kB, MB, GB, TB, PB, KiB, MiB, GiB, TiB, PiB)";
    case QuantityKind::byte_rate: return "a rate such as 3.35TB/s, 900GB/s or 400Gb/s (B/s with k, M, G, T, P; b/s or bps for bits)";
    case QuantityKind::flop_rate: return "a FLOP rate such as 989.4T, 989.4TFLOP/s or 1.98PFLOPS";
    case QuantityKind::power: return "a power such as 700W, 10.2kW or 150MW";
    case QuantityKind::duration: return "a duration such as 90s, 36h, 30d, 4w or 1y (ms, s, min, h, d, w, y)";
    case QuantityKind::money: return "an amount such as $5.5M, $250k or 1200 (US dollars)";
    case QuantityKind::money_per_hour: return "a price per hour such as $2.49/h";
    case QuantityKind::money_per_kwh: return "an energy price such as $0.08/kWh or 80/MWh";
    case QuantityKind::fraction: return "a fraction such as 0.45 or 45%";
    case QuantityKind::real: return "a non-negative number";
  }
  return "a quantity";
}

double parse_quantity(std::string_view text, QuantityKind kind) {
  auto reject = [&](std::string_view why) -> double {
    throw QuantityError(fmt::format("'{}' {}; expected {}", text, why, describe(kind)));
  };
  std::string_view s = text;
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  if (s.empty()) return reject("is empty");
  if (s.front() == '-') return reject("is negative");
  if (s.front() == '+') s.remove_prefix(1);
  if (is_money(kind) && !s.empty() && s.front() == '$') s.remove_prefix(1);
  if (s.empty() || !(std::isdigit(static_cast<unsigned char>(s.front())) || s.front() == '.'))
    return reject("is not a number");
  double value = 0;
  const char* begin = s.data();
  const char* end = s.data() + s.size();
  auto [ptr, ec] = decimal_from_chars(begin, end, value);
  if (ec == std::errc::result_out_of_range) return reject("is out of range");
  if (ec != std::errc()) return reject("is not a number");
  std::string_view rest(ptr, static_cast<std::size_t>(end - ptr));
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  if (is_money(kind) && rest.size() >= 3 && rest.substr(0, 3) == "USD") rest.remove_prefix(3);
  double factor = 1;
  if (!lookup(kind, rest, factor)) {
    return reject(rest.empty() ? std::string_view("has no unit") : std::string_view("has an unknown unit or trailing text"));
  }
  double result = value * factor;
  // A decimal prefix reads as one decimal number: "32.8B" is 32.8e9, the double nearest
  // 32,800,000,000, where 32.8 x 1e9 is 32,799,999,999.999996.
  const std::string_view digits(begin, static_cast<std::size_t>(ptr - begin));
  const double k = std::round(std::log10(factor));
  if (factor > 1 && std::pow(10.0, k) == factor && digits.find_first_of("eE") == std::string_view::npos) {
    const std::string decimal = fmt::format("{}e{}", digits, static_cast<int>(k));
    decimal_from_chars(decimal.data(), decimal.data() + decimal.size(), result);
  }
  if (!std::isfinite(result)) return reject("is out of range");
  if (kind == QuantityKind::fraction && result > 1.0) return reject("is above 1 (100%)");
  return result;
}

}  // namespace gpuplan
