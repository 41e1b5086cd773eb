// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: the request-trace reader. Any bytes either read as requests or are refused
// with Error(data); requests read are sorted, positive and no more than the rows could hold.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "gpuplan/analysis/trace.hpp"
#include "gpuplan/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto t = gpuplan::parse_trace(text, "fuzz.csv");
    // Each request takes at least a row of "0,1,1": six bytes.
    if (t.empty() || t.size() * 6 > size + 1) std::abort();
    double last = 0;
    for (const auto& q : t) {
      if (!(q.arrival >= last) || !(q.prompt >= 1) || !(q.output >= 1) || !std::isfinite(q.arrival)) std::abort();
      last = q.arrival;
    }
  } catch (const gpuplan::Error& e) {
    if (e.code() != gpuplan::Exit::data) std::abort();
  }
  return 0;
}
