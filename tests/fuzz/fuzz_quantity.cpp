// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: the quantity parser, for every kind. The first byte picks the kind; the
// rest is the text. A parse either throws QuantityError or returns a finite, non-negative
// number: anything else (a crash, a sanitizer report, another exception) is a finding.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "gpuplan/quantity.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  constexpr int kinds = static_cast<int>(gpuplan::QuantityKind::real) + 1;
  const auto kind = static_cast<gpuplan::QuantityKind>(data[0] % kinds);
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    const double v = gpuplan::parse_quantity(text, kind);
    if (!std::isfinite(v) || v < 0) std::abort();
  } catch (const gpuplan::QuantityError&) {
  }
  return 0;
}
