// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: the calibration loader. Any text either loads or is refused with
// Error(data); a loaded file must render back to TOML that loads again.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "gpuplan/calibration/calibration.hpp"
#include "gpuplan/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  gpuplan::Calibration c;
  try {
    c = gpuplan::parse_calibration(text, "fuzz.toml");
  } catch (const gpuplan::Error& e) {
    if (e.code() != gpuplan::Exit::data) std::abort();
    return 0;
  }
  try {
    (void)gpuplan::parse_calibration(gpuplan::to_toml(c), "round-trip.toml");
  } catch (const gpuplan::Error&) {
    std::abort();  // what the loader accepted, it must read back
  }
  return 0;
}
