// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness: the GGUF header reader. Any bytes either read as a header or are refused
// with Error(data); a header read holds no more tensors and keys than the bytes could carry.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "gpuplan/catalog/gguf.hpp"
#include "gpuplan/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    const gpuplan::GgufHeader h = gpuplan::parse_gguf(bytes, "fuzz.gguf");
    // Each key takes at least 12 bytes (length, type) and each tensor 28 (length, one dimension,
    // type, offset): more than the input holds would mean a count was trusted.
    if (h.kv.size() * 12 + h.tensors.size() * 28 > size) std::abort();
    (void)h.weight_bytes();
  } catch (const gpuplan::Error& e) {
    if (e.code() != gpuplan::Exit::data) std::abort();
  }
  return 0;
}
